#!/bin/sh
# Runs every libFuzzer harness (tests/fuzz/fuzz_*.c, built under BUILD) for
# SECONDS each, one after another, and reports executions per harness and a
# closing "N passed, N failed" (a harness fails on a crash, a sanitizer
# report, a leak, a timeout or running out of memory).
#
# Usage: fuzz.sh BUILD SECONDS
#
# Each harness first runs its corpus: tests/fuzz/corpus/NAME (seeds and the
# regression inputs of crashes found before: add a crash's file there once
# it is fixed) and the bundled files that suit it; what it finds new goes
# to BUILD/corpus/NAME, kept between runs.  A crash is written to
# BUILD/crash/NAME-*, and its report to BUILD/log/NAME.log.
set -u
[ $# -eq 2 ] || { echo "usage: fuzz.sh BUILD SECONDS" >&2; exit 2; }
build=$1
seconds=$2
export AVRR_FUZZ_RECORDING="$build/seed/recording/small.db"
export LSAN_OPTIONS="suppressions=$(pwd)/tests/lsan.supp:print_suppressions=0"
export UBSAN_OPTIONS="print_stacktrace=1:halt_on_error=1"
mkdir -p "$build/crash" "$build/log"

seeds_for() {
	case $1 in
	elf) echo "traces tests/firmware $build/seed/elf" ;;
	stimuli) echo "traces tests/firmware" ;;
	recording) echo "$build/seed/recording" ;;
	*) echo "" ;;
	esac
}

# Options of one harness.  The recording harnesses leave simavr's IRQs
# behind with every replay (tests/lsan.supp), so libFuzzer would take every
# replaying input for a possible leak, run it again and scan the whole heap
# (until it gives up by itself after 1,000 of them): most of a short run's
# time.  LeakSanitizer's check when the run ends still fails it for a leak
# of avrr's own, suppressions applied; only the input that leaked is not
# named (tests/fuzz/README.md).
options_for() {
	case $1 in
	recording | rows) echo "-detect_leaks=0" ;;
	*) echo "" ;;
	esac
}

# ASan's options of one harness, added to the caller's ASAN_OPTIONS.
# fuzz_recording's inputs are mostly SQLite parsing a schema no input had
# before, every allocation through ASan: recording a stack trace at each
# malloc and free was a sixth of its time.  Without them a report still
# names the bad access and where it happened, only not where its block
# was allocated or freed: run the crash's file through the harness again
# (tests/fuzz/README.md) for those.  Nothing detected changes.
asan_for() {
	case $1 in
	recording) echo "malloc_context_size=0" ;;
	*) echo "" ;;
	esac
}

passed=0
failed=0
for src in tests/fuzz/fuzz_*.c; do
	name=$(basename "$src" .c)
	name=${name#fuzz_}
	bin="$build/tests/fuzz/fuzz_$name"
	work="$build/corpus/$name"
	mkdir -p "$work" "tests/fuzz/corpus/$name"
	log="$build/log/$name.log"
	asan=$(asan_for "$name")
	# shellcheck disable=SC2046
	ASAN_OPTIONS="${ASAN_OPTIONS:-}${asan:+${ASAN_OPTIONS:+:}$asan}" \
	"$bin" -max_total_time="$seconds" -timeout=20 -rss_limit_mb=4096 -max_len=65536 \
		-print_final_stats=1 -artifact_prefix="$build/crash/$name-" $(options_for "$name") \
		"$work" "tests/fuzz/corpus/$name" $(seeds_for "$name") > "$log" 2>&1
	rc=$?
	runs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -n 1)
	if [ "$rc" -eq 0 ]; then
		passed=$((passed + 1))
		printf 'fuzz_%-12s %10s executions in %s s, no crash\n' "$name" "${runs:-?}" "$seconds"
	else
		failed=$((failed + 1))
		printf 'fuzz_%-12s FAILED (exit %s) after %s executions; see %s\n' "$name" "$rc" \
			"${runs:-?}" "$log"
		grep -m 5 -E 'ERROR|runtime error|SUMMARY|Test unit written' "$log" | sed 's/^/    /'
	fi
done
echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
