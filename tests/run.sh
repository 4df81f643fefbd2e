#!/bin/sh
# Runs every test program under BUILD/tests and closes with one line
# "N passed, N failed".  Each program is a cmocka suite; its TAP output is
# counted, and a program that dies without reporting counts as one failure.
# Usage: tests/run.sh BUILD AVRR_BIN
set -u
build=$1
AVRR_BIN=$2
export AVRR_BIN CMOCKA_MESSAGE_OUTPUT=TAP
# Under the sanitizer build: simavr's own leaks are suppressed, ours are not.
LSAN_OPTIONS="suppressions=$(pwd)/tests/lsan.supp:print_suppressions=0"
UBSAN_OPTIONS="print_stacktrace=1:halt_on_error=1"
export LSAN_OPTIONS UBSAN_OPTIONS
passed=0 failed=0
log=$(mktemp)
for t in "$build"/tests/unit/test_* "$build"/tests/integration/test_*; do
	[ -x "$t" ] || continue
	case "$t" in *.d|*.o) continue ;; esac
	"$t" > "$log" 2>&1
	rc=$?
	p=$(grep -c '^ok ' "$log")
	f=$(grep '^not ok ' "$log" | grep -vc '# SKIP')
	if [ "$rc" -ne 0 ] && [ "$f" -eq 0 ]; then
		f=1
		echo "FAIL $t: exited with status $rc" >&2
	fi
	# A skipped test's reason, and the transcripts a test prints as "# | "
	# lines (test_cluster's), go to the log even when all passed.
	grep -e '^SKIP: ' -e '^# | ' -e '^not ok .*# SKIP' "$log" >&2
	if [ "$f" -ne 0 ]; then
		echo "--- $t" >&2
		grep -v '^ok ' "$log" | head -n 60 >&2
	fi
	printf '%-48s %3d passed, %d failed\n' "${t#"$build"/tests/}" "$p" "$f"
	passed=$((passed + p))
	failed=$((failed + f))
done
rm -f "$log"
echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
