#!/bin/sh
# table1.sh — the paper's Table 1 (Gracioli & Fischmeister, LCTES 2009: code bytes
# per hash function),
# measured on the device-side tracer, with its cycles per interrupt.
#
# Usage: sh scripts/table1.sh [AVRR] [OUTDIR]    (from the repository root)
#
# For the default configuration and for the paper's selector of funcsheap
# under each hash function, `avrr tracer` writes the tracer, avr-gcc builds
# traces/funcsheap.c with it, and the build is recorded for 2M instructions
# and profiled on its replay (`avrr analyze profile`).  Written: OUTDIR/
# table1.csv and OUTDIR/table1.md.  Code bytes are avr-nm's sizes of the
# hash functions, and the growth of .text over the plain build; cycles are
# simavr's, per interrupt: avrr_trace_record (gather, hash, store) and the
# stub (saving and restoring SREG and the clobbered registers, the calls),
# beside the cost model of `avrr info`.  Needs avr-gcc and sqlite3 (with
# its JSON functions).  Deterministic.
set -eu

AVRR=${1:-./avrr}
OUT=${2:-results}
SEL="SPL+SPH+SREG+r24+r25+r30"   # results/README.md: the paper's selector for funcsheap
DEFAULT="sel=cycles:32,ra=0,width=32"   # FP_DEFAULT_SPEC
CFLAGS="-mmcu=atmega16 -DF_CPU=8000000UL -Os -g -std=gnu11 -Wall -Wextra -Werror
        -I/usr/include/simavr -Wl,--section-start=.mmcu=0x910000"
for tool in avr-gcc avr-nm avr-size sqlite3; do
	command -v $tool > /dev/null || { echo "table1.sh: $tool is not installed" >&2; exit 2; }
done
work=$(mktemp -d "${TMPDIR:-/tmp}/avrr-table1.XXXXXX")
trap 'rm -rf "$work"' EXIT INT TERM

# json FILE PATH: one value of a JSON file.
json() { sqlite3 :memory: "SELECT json_extract(readfile('$1'), '$2')"; }
text_of() { avr-size -A "$1" | awk '$1 == ".text" { print $2 }'; }

plain_text=$(text_of traces/funcsheap.elf)

# build_and_profile NAME SPEC: the traced build of funcsheap, recorded for
# 2M instructions and profiled on its replay into $work/NAME.{elf,json,info}.
build_and_profile() {
	"$AVRR" tracer traces/funcsheap.elf --fp "$2" -o "$work/tracer.h"
	case $2 in
	*sic:*)   # the counter: linked with relocations, then rewritten
		# shellcheck disable=SC2086
		avr-gcc $CFLAGS -Wl,--emit-relocs -include "$work/tracer.h" -o "$work/$1.linked" \
			traces/funcsheap.c
		"$AVRR" instrument "$work/$1.linked" -o "$work/$1.elf" > "$work/$1.instrument" ;;
	*)
		# shellcheck disable=SC2086
		avr-gcc $CFLAGS -include "$work/tracer.h" -o "$work/$1.elf" traces/funcsheap.c ;;
	esac
	# The replay the profile runs on needs the default configuration;
	# the measured one comes first, for avrr info's model.
	also=""
	[ "$1" = default ] || also="--fp default:$DEFAULT"
	# shellcheck disable=SC2086
	"$AVRR" record "$work/$1.elf" --stimuli traces/funcsheap.stim --fp "$1:$2" $also \
		--instructions 2M --quiet -o "$work/$1.db" > /dev/null
	"$AVRR" analyze "$work/$1.db" profile --json > "$work/$1.json"
	"$AVRR" info "$work/$1.db" --json > "$work/$1.info"
}

# per_call NAME PATTERN: total cycles per call of the functions named like
# PATTERN (SQL LIKE) in NAME's profile.
per_call() {
	sqlite3 :memory: "SELECT printf('%.1f', 1.0 * sum(json_extract(f.value, '\$.total')) /
		max(json_extract(f.value, '\$.calls')))
		FROM json_each(readfile('$work/$1.json'), '\$.functions') f
		WHERE json_extract(f.value, '\$.name') LIKE '$2'"
}
echo "config,hash,paper_text_bytes,hash_text_bytes,tracer_text_bytes,ram_bytes,record_cycles,stub_cycles,cycles_per_interrupt,model_cycles_per_interrupt,interrupts" \
	> "$work/table1.csv"
for row in "default:-:$DEFAULT" \
	   "modular:4:sel=$SEL,hash=modular,ra=8,width=16" \
	   "twomod:92:sel=$SEL,hash=twomod,ra=8,width=16" \
	   "jenkins:216:sel=$SEL,hash=jenkins,ra=8,width=16" \
	   "knuth:126:sel=$SEL,hash=knuth,ra=8,width=16" \
	   "rr:-:sel=$SEL,hash=rr,ra=8,width=16"; do
	name=${row%%:*}; rest=${row#*:}; paper=${rest%%:*}; spec=${rest#*:}
	build_and_profile "$name" "$spec"
	# The hash functions' own code (Jenkins: with its one-at-a-time helper).
	hash_bytes=$(avr-nm -S --radix=d "$work/$name.elf" |
		awk '$4 ~ /^avrr_(hash_|oaat)/ { s += $2 } END { print s + 0 }')
	ram=$(avr-nm -S --radix=d "$work/$name.elf" |
		awk '$4 ~ /^avrr_trace_(ring|count)$/ { s += $2 } END { print s + 0 }')
	tracer_bytes=$(( $(text_of "$work/$name.elf") - plain_text ))
	stub=$(sqlite3 :memory: "SELECT sum(json_extract(f.value, '\$.self'))
		 FROM json_each(readfile('$work/$name.json'), '\$.functions') f
		 WHERE json_extract(f.value, '\$.name') LIKE '\\_\\_vector\\_%' ESCAPE '\\'")
	irqs=$(json "$work/$name.info" '$.interrupts')
	model=$(json "$work/$name.info" '$.fingerprint_configs[0].device.cycles_per_interrupt')
	rec=$(per_call "$name" avrr_trace_record)
	st=$(awk -v t="$stub" -v n="$irqs" 'BEGIN { printf "%.1f", t / n }')
	all=$(awk -v a="$rec" -v b="$st" 'BEGIN { printf "%.1f", a + b }')
	hash=${spec#*hash=}; hash=${hash%%,*}; [ "$name" = default ] && hash=none
	echo "$name,$hash,$paper,$hash_bytes,$tracer_bytes,$ram,$rec,$st,$all,$model,$irqs" >> "$work/table1.csv"
done

# The hash functions alone, over 6 and 12 bytes.
: > "$work/perbyte.md"
for h in modular twomod jenkins knuth; do
	build_and_profile "w12$h" "sel=$SEL+r18+r19+r20+r21+r22+r23,hash=$h,ra=8,width=16"
	c6=$(per_call "$h" 'avrr_hash_%')
	c12=$(per_call "w12$h" 'avrr_hash_%')
	awk -v h="$h" -v a="$c6" -v b="$c12" 'BEGIN { p = (b - a) / 6
		printf "| %s | %s | %s | %.0f | %.0f |\n", h, a, b, p, a - 6 * p }' >> "$work/perbyte.md"
done

# The software instruction counter: jenkins's row with sic:16 added (its
# stub also reads the counter: 2 LDS, 2 CLR), rewritten by avrr instrument.
# Its stub makes 3 counted transfers per interrupt (the two calls, RETI),
# with interrupts off: their cycles are the stub's growth less the reads.
build_and_profile sic "sel=$SEL+sic:16,hash=jenkins,ra=8,width=32"
sic_irqs=$(json "$work/sic.info" '$.interrupts')
sic_stub=$(sqlite3 :memory: "SELECT sum(json_extract(f.value, '\$.self'))
	 FROM json_each(readfile('$work/sic.json'), '\$.functions') f
	 WHERE json_extract(f.value, '\$.name') LIKE '\\_\\_vector\\_%' ESCAPE '\\'")
jen_stub=$(awk -F, '$1 == "jenkins" { print $8 }' "$work/table1.csv")
sic_transfers=$(sqlite3 "$work/sic.db" "SELECT transfers FROM run")
sic_cycles=$(sqlite3 "$work/sic.db" "SELECT cycles FROM run")
sic_model=$(json "$work/sic.info" '$.fingerprint_configs[0].device.cycles_per_transfer')
sic_sites=$(sed -n 's/^counted transfers instrumented: \([0-9]*\);.*/\1/p' "$work/sic.instrument")
sic_linked=$(text_of "$work/sic.linked")
sic_text=$(text_of "$work/sic.elf")
awk -v s="$sic_stub" -v n="$sic_irqs" -v j="$jen_stub" -v t="$sic_transfers" \
    -v c="$sic_cycles" -v m="$sic_model" -v sites="$sic_sites" -v a="$sic_linked" \
    -v b="$sic_text" 'BEGIN {
	off = (s / n - j - 4 - 2) / 3
	printf "| %d | %d | %d | %d | %.1f | %.1f | %d | %.1f | %.1f |\n", sites, a, b, b - a,
		(b - a) / sites, off, m, t / n, 100 * t * m / c }' > "$work/sic.md"

{
	echo "# Table 1 — the device-side tracer's cost, measured"
	echo
	echo "Written by \`scripts/table1.sh\` (\`make table1\`); do not edit by hand.  The"
	echo "paper's Table 1 gives the code bytes of its hash functions on an AVR; here"
	echo "\`avrr tracer\` writes the tracer (docs/tracer.md) for the default"
	echo "configuration and for funcsheap's paper selector ($SEL, 8 RA +"
	echo "8 hash bits) under each hash function, avr-gcc 5.4 -Os builds"
	echo "traces/funcsheap.c with it for the ATmega16, and the build runs 2M"
	echo "instructions in simavr, profiled on its replay (\`avrr analyze profile\`)."
	echo "The tests (tests/integration/test_tracer.c) check that these builds store"
	echo "exactly the fingerprints \`avrr record\` computes."
	echo
	echo "| config | paper .text (B) | hash .text (B) | tracer .text (B) | RAM (B) | record (cycles/irq) | stub (cycles/irq) | total (cycles/irq) | \`avrr info\` model (cycles/irq) |"
	echo "| --- | --- | --- | --- | --- | --- | --- | --- | --- |"
	tail -n +2 "$work/table1.csv" | awk -F, '{ printf "| %s | %s | %s | %s | %s | %s | %s | %s | %s |\n", $1, $3, $4, $5, $6, $7, $8, $9, $10 }'
	echo
	echo "*hash .text*: the hash function's own code (Jenkins with its one-at-a-time"
	echo "helper; round-robin all four).  *tracer .text*: all the tracer adds to the"
	echo "firmware (the stubs of its 4 ISRs, the gathering, the hash, the store)."
	echo "*record*: avrr_trace_record per interrupt, gathering, hashing and storing;"
	echo "*stub*: the naked entry saving and restoring SREG and the registers a"
	echo "call may clobber, reading Timer1, the two calls and RETI, per interrupt."
	echo "*model*: \`avrr info\`'s cycles per interrupt (fingerprint/cost.h), whose"
	echo "stub, own overhead and hash costs are the measurements below."
	echo
	awk -F, 'NR > 1 && $1 != "rr" { d = ($10 - $9) / $9; if (d < 0) d = -d; if (d > m) m = d }
		$1 == "rr" { rm = $9; rp = $10 }
		END { printf "The model is within %.1f %% of the measured total for every row but\n", 100 * m
		      printf "round-robin, where it prices the dearest hash (%s cycles), the worst\n", rp
		      printf "interrupt cost, not the mean over the rotation (%s measured).\n", rm }' \
		"$work/table1.csv"
	echo
	echo "## The hash functions' cycles, per byte and once"
	echo
	echo "Each hash function's cycles per call (its profile's total) over the paper's"
	echo "6-byte selector and over 12 bytes (6 more registers), and the per-byte and"
	echo "once costs they give — the constants of fingerprint/cost.c."
	echo
	echo "| hash | 6 bytes | 12 bytes | per byte | once |"
	echo "| --- | --- | --- | --- | --- |"
	cat "$work/perbyte.md"
	echo
	echo "## The software instruction counter"
	echo
	echo "The jenkins row's selector with a 16-bit \`sic:16\` counter added (width 32),"
	echo "linked with \`-Wl,--emit-relocs\` and rewritten by \`avrr instrument\`"
	echo "(docs/tracer.md): every counted transfer of funcsheap, of avr-libc's"
	echo "\`malloc\`/\`free\` and of the startup code gets the counter's increment."
	echo "*off*: cycles per counted transfer with interrupts off, measured: the"
	echo "stub's 3 transfers per interrupt (two calls, RETI), its cycles less the"
	echo "jenkins stub's and the counter's reads (2 LDS, 2 CLR), over 3.  *on*: the"
	echo "model's cycles per transfer, which with interrupts on is 1 more"
	echo "(\`sbrc\` does not skip: 1 cycle, then \`rjmp\` 2 and \`andi\`, \`out\`, \`pop\`,"
	echo "\`sei\` 5 against \`sbrc\` skipping 2, \`out\`, \`pop\`, \`rjmp\` 5).  *share*: the"
	echo "counter's cycles in % of the run's, at the model's cost."
	echo
	echo "| sites | .text linked (B) | .text rewritten (B) | growth (B) | per site (B) | off (cycles/transfer) | on, model (cycles/transfer) | transfers/irq | share (%) |"
	echo "| --- | --- | --- | --- | --- | --- | --- | --- | --- |"
	cat "$work/sic.md"
} > "$work/table1.md"
mkdir -p "$OUT"
cp "$work/table1.csv" "$work/table1.md" "$OUT/"
cat "$OUT/table1.md"
