#!/bin/sh
# table1.sh — the paper's Table 1 (seed 004: code bytes per hash function),
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
echo "config,hash,paper_text_bytes,hash_text_bytes,tracer_text_bytes,ram_bytes,record_cycles,stub_cycles,cycles_per_interrupt,model_cycles_per_interrupt,interrupts" \
	> "$work/table1.csv"
for row in "default:-:$(printf '%s' 'sel=cycles:16,ra=8,width=24')" \
	   "modular:4:sel=$SEL,hash=modular,ra=8,width=16" \
	   "twomod:92:sel=$SEL,hash=twomod,ra=8,width=16" \
	   "jenkins:216:sel=$SEL,hash=jenkins,ra=8,width=16" \
	   "knuth:126:sel=$SEL,hash=knuth,ra=8,width=16" \
	   "rr:-:sel=$SEL,hash=rr,ra=8,width=16"; do
	name=${row%%:*}; rest=${row#*:}; paper=${rest%%:*}; spec=${rest#*:}
	"$AVRR" tracer traces/funcsheap.elf --fp "$spec" -o "$work/tracer.h"
	# shellcheck disable=SC2086
	avr-gcc $CFLAGS -include "$work/tracer.h" -o "$work/$name.elf" traces/funcsheap.c
	# The replay the profile runs on needs the default configuration;
	# the measured one comes first, for avrr info's model.
	also=""
	[ "$name" = default ] || also="--fp default:sel=cycles:16,ra=8,width=24"
	# shellcheck disable=SC2086
	"$AVRR" record "$work/$name.elf" --stimuli traces/funcsheap.stim --fp "$name:$spec" $also \
		--instructions 2M -o "$work/$name.db" > /dev/null
	"$AVRR" analyze "$work/$name.db" profile --json > "$work/$name.json"
	"$AVRR" info "$work/$name.db" --json > "$work/$name.info"
	# The hash functions' own code (Jenkins: with its one-at-a-time helper).
	hash_bytes=$(avr-nm -S --radix=d "$work/$name.elf" |
		awk '$4 ~ /^avrr_(hash_|oaat)/ { s += $2 } END { print s + 0 }')
	ram=$(avr-nm -S --radix=d "$work/$name.elf" |
		awk '$4 ~ /^avrr_trace_(ring|count)$/ { s += $2 } END { print s + 0 }')
	tracer_bytes=$(( $(text_of "$work/$name.elf") - plain_text ))
	calls=$(sqlite3 :memory: "SELECT json_extract(f.value, '\$.calls') || ',' || json_extract(f.value, '\$.total')
		 FROM json_each(readfile('$work/$name.json'), '\$.functions') f
		 WHERE json_extract(f.value, '\$.name') = 'avrr_trace_record'")
	stub=$(sqlite3 :memory: "SELECT sum(json_extract(f.value, '\$.self'))
		 FROM json_each(readfile('$work/$name.json'), '\$.functions') f
		 WHERE json_extract(f.value, '\$.name') LIKE '\\_\\_vector\\_%' ESCAPE '\\'")
	irqs=$(json "$work/$name.info" '$.interrupts')
	model=$(json "$work/$name.info" '$.fingerprint_configs[0].device.cycles_per_interrupt')
	n=${calls%,*}; total=${calls#*,}
	rec=$(awk -v t="$total" -v n="$n" 'BEGIN { printf "%.1f", t / n }')
	st=$(awk -v t="$stub" -v n="$irqs" 'BEGIN { printf "%.1f", t / n }')
	all=$(awk -v a="$rec" -v b="$st" 'BEGIN { printf "%.1f", a + b }')
	hash=${spec#*hash=}; hash=${hash%%,*}; [ "$name" = default ] && hash=none
	echo "$name,$hash,$paper,$hash_bytes,$tracer_bytes,$ram,$rec,$st,$all,$model,$irqs" >> "$work/table1.csv"
done

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
	echo "*model*: \`avrr info\`'s estimate for the fingerprint alone (no stub),"
	echo "priced from hand-written assembly (fingerprint/cost.h)."
} > "$work/table1.md"
mkdir -p "$OUT"
cp "$work/table1.csv" "$work/table1.md" "$OUT/"
cat "$OUT/table1.md"
