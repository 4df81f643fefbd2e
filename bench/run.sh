#!/bin/sh
# Runs avrr's benchmarks (see bench/bench.c); one "bench ..." line each, a
# check mark or a cross per target, and a last line with the targets met.
# BENCH_INSTRUCTIONS: the timed runs' least length (raised per firmware until
# plain simavr takes 2 s); BENCH_CALLGRIND_INSTRUCTIONS: the callgrind runs'
# (0: the timed runs' own length).
set -eu
build=$1
command -v valgrind >/dev/null || {
	echo "bench: valgrind is missing (scripts/install-deps.sh installs it)" >&2
	exit 2
}
"$build/bench/bench" ./avrr "${BENCH_INSTRUCTIONS:-100000000}" "${BENCH_REVERSE_INSTRUCTIONS:-100000000}" \
	"${BENCH_CALLGRIND_INSTRUCTIONS:-0}"
