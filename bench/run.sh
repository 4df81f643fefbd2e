#!/bin/sh
# Runs avrr's benchmarks (see bench/bench.c); one "bench ..." line each.
set -eu
build=$1
"$build/bench/bench" ./avrr "${BENCH_INSTRUCTIONS:-20000000}"
