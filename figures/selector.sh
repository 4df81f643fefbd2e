#!/bin/sh
# selector.sh FW ELF: writes $F/FW.sel, the paper's selector for FW (§4.1),
# spelled out: SPL, SPH, SREG and the three GP registers `avrr select`
# ranks first (its JSON lists them ranked under "gp").  Every figure that
# says it uses "the paper's selector" takes it from this file, never from
# the recording's own default configuration (a counter) nor from
# `avrr sweep`'s default.
. figures/lib.sh
"$AVRR" select "$2" --json > "$F/$1.sel.json"
psel=$(val :memory: "SELECT 'SPL+SPH+SREG+' || json_extract(j, '\$.gp[0].register') || '+'
	|| json_extract(j, '\$.gp[1].register') || '+' || json_extract(j, '\$.gp[2].register')
	FROM (SELECT readfile('$F/$1.sel.json') AS j)")
[ -n "$psel" ] || { echo "selector.sh: avrr select ranks fewer than 3 GP registers in $1" >&2; exit 1; }
printf '%s' "$psel" > "$F/$1.sel.tmp"
mv "$F/$1.sel.tmp" "$F/$1.sel"
