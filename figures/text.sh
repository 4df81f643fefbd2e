#!/bin/sh
# text.sh SECTION: prints one section of results/README.md, the shell
# fragment figures/text/SECTION.sh run against $F/figures.db, where q
# QUERY prints a query's rows bare.  FIRMWARE, INSNS, SEED and START (the
# second `make figures` began) come from figures/figures.mk.
. figures/lib.sh
db=$F/figures.db
q() { sqlite3 -bail -list "$db" "$1"; }
elapsed=$(($(date +%s) - ${START:-$(date +%s)}))
. "$1"
