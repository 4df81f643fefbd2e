#!/bin/sh
# The device log's cost (docs/device.md), measured: for each firmware, the
# tracer with the log is generated, the firmware built, stamped and run on
# the stand-in chip (avrr device --stats) for 2 M instructions with its
# stimuli, and the dump imported.  Writes OUT/device_log.csv and .md.
#
# Usage: device_table.sh AVRR OUT
#
# The log build is linked with its relocations and rewritten by avrr
# instrument, so its input reads are logged too.
#
# Columns: code bytes of the plain build, what the tracer adds, what the
# log adds on top (its code and the read sites); the log's RAM (its
# avrr_log_* variables); interrupts the tracer recorded and input reads
# logged; cycles per interrupt in the fingerprint code; cycles to append
# an item (avrr_log_put, per item); cycles per input read (the inline
# sequence's 69, by the instruction set's cycle counts, plus the measured
# avrr_log_read and the append); cycles per log byte in the sending (the
# sink's waits included); the log's bytes and bytes per second of run; the
# baud it needs (10 bits a byte, 8N1); items lost; and whether it fits a
# 115,200-baud UART (needs less than 115,200 and lost nothing).
set -eu
[ $# -eq 2 ] || { echo "usage: device_table.sh AVRR OUT" >&2; exit 2; }
avrr=$1
out=$2
flags='-Os -I/usr/include/simavr -Wl,--section-start=.mmcu=0x910000'
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
mkdir -p "$out"
csv=$out/device_log.csv
echo "firmware,mcu,f_cpu,sink,code_plain,code_tracer,code_log,ram_log,interrupts,reads,pointer_reads,trace_cycles_per_irq,append_cycles_per_item,cycles_per_read,cycles_per_pointer_read,send_cycles_per_byte,log_bytes,run_ms,log_bytes_per_s,baud_needed,lost,fits_115200" > "$csv.tmp"

# NAME SOURCE MCU F_CPU SINK STIMULI SPEC [TRACER ARGS]: the configurations
# tests/integration/test_device.c replays exactly (funcsheap's there
# through the function sink)
row() {
	name=$1 src=$2 mcu=$3 fcpu=$4 sink=$5 stim=$6 spec=$7 extra=${8:-} iargs=${9:-}
	cc="avr-gcc -mmcu=$mcu -DF_CPU=${fcpu}UL $flags"
	$cc -o "$tmp/plain.elf" "$src"
	"$avrr" tracer "$tmp/plain.elf" --fp "$spec" -o "$tmp/t.h" --force > /dev/null
	$cc -include "$tmp/t.h" -o "$tmp/tracer.elf" "$src"
	if [ "$sink" = uart ]; then
		# shellcheck disable=SC2086
		"$avrr" tracer "$tmp/plain.elf" --fp "$spec" --log uart --baud 115200 $extra \
			-o "$tmp/l.h" --force
		$cc -Wl,--emit-relocs -include "$tmp/l.h" -o "$tmp/log0.elf" "$src"
		reg=
	else
		# shellcheck disable=SC2086
		"$avrr" tracer "$tmp/plain.elf" --fp "$spec" --log func $extra -o "$tmp/l.h" --force
		$cc -Wl,--emit-relocs -include "$tmp/l.h" -include tests/firmware/log_sink.h \
			-o "$tmp/log0.elf" "$src"
		reg=GPIOR0
		[ "$mcu" = atmega16 ] && reg=TWAR
	fi
	# shellcheck disable=SC2086
	"$avrr" instrument "$tmp/log0.elf" $iargs -o "$tmp/log.elf" --force > /dev/null
	"$avrr" stamp "$tmp/log.elf" > /dev/null
	text() { avr-size -A "$1" | awk '$1 == ".text" || $1 == ".data" { s += $2 } END { print s }'; }
	c0=$(text "$tmp/plain.elf"); c1=$(text "$tmp/tracer.elf"); c2=$(text "$tmp/log.elf")
	ram=$(avr-nm -S -t d "$tmp/log.elf" | awk '$4 ~ /^avrr_log_/ && ($3 == "B" || $3 == "b" || $3 == "D" || $3 == "d") { s += $2 } END { print s + 0 }')
	stimarg=
	[ -n "$stim" ] && stimarg="--stimuli $stim"
	regarg=
	[ -n "$reg" ] && regarg="--log-reg $reg"
	# shellcheck disable=SC2086
	dev=$("$avrr" device "$tmp/log.elf" $stimarg $regarg --log-out "$tmp/d.log" \
		--instructions 2000000 --stats --force)
	cycles=$(echo "$dev" | sed -n 's/^device: [0-9]* instructions, \([0-9]*\) cycles.*/\1/p')
	bytes=$(echo "$dev" | sed -n 's/.*; log \([0-9]*\) bytes.*/\1/p')
	# shellcheck disable=SC2046
	set -- $(echo "$dev" | sed -n 's/^stats: interrupts \([0-9]*\), trace cycles \([0-9]*\), log cycles \([0-9]*\), of which sending \([0-9]*\); reads \([0-9]*\), read cycles \([0-9]*\), append cycles \([0-9]*\)/\1 \2 \3 \4 \5 \6 \7/p')
	irqs=$1 tcyc=$2 scyc=$4 reads=$5 rcyc=$6 pcyc=$7
	# shellcheck disable=SC2046
	set -- $(echo "$dev" | sed -n 's/^stats: loads below 0x200 \([0-9]*\), their test.s cycles \([0-9]*\)/\1 \2/p') 0 0
	loads=$1 lcyc=$2
	lost=$("$avrr" import "$tmp/d.log" --elf "$tmp/log.elf" -o "$tmp/r.db" --force 2>&1 |
		sed -n 's/.*the device lost \([0-9]*\) items.*/\1/p')
	lost=${lost:-0}
	awk -v n="$name" -v m="$mcu" -v f="$fcpu" -v s="$sink" -v c0="$c0" -v c1="$c1" -v c2="$c2" \
	    -v ram="$ram" -v i="$irqs" -v t="$tcyc" -v sc="$scyc" -v b="$bytes" -v rd="$reads" \
	    -v rc="$rcyc" -v pc="$pcyc" -v cy="$cycles" -v lost="$lost" -v ld="$loads" \
	    -v lc="$lcyc" 'BEGIN {
		ms = cy / f * 1000; bps = b / (cy / f); baud = bps * 10;
		fits = (baud < 115200 && lost == 0) ? "yes" : "no";
		app = pc / (i + rd + ld);
		per_read = rd ? sprintf("%.0f", 69 + rc / rd + app) : "n/a";
		per_load = ld ? sprintf("%.0f", 76 + lc / ld + app) : "n/a";
		printf "%s,%s,%s,%s,%d,%d,%d,%d,%d,%d,%d,%.0f,%.0f,%s,%s,%.0f,%d,%.1f,%.0f,%.0f,%s,%s\n",
			n, m, f, s, c0, c1 - c0, c2 - c1, ram, i, rd, ld, t / i, app, per_read,
			per_load, sc / b, b, ms, bps, baud, (lost ? "first loss: " lost : "0"),
			fits }' >> "$csv.tmp"
}

narrow='sel=cycles:16,ra=8,width=24'  # 3-byte items; the default before cycles:32
row adcapp traces/adcapp.c atmega16 8000000 func traces/adcapp.stim \
	'sel=SPL+SPH+SREG+r24+sic:16,hash=jenkins,ra=8,width=32' '--ring 96 --send-masked'
row funcsheap traces/funcsheap.c atmega16 8000000 uart traces/funcsheap.stim "$narrow"
row funcsheap_noloop traces/funcsheap_noloop.c atmega16 8000000 uart traces/funcsheap_noloop.stim \
	"$narrow"
row arduino_blink tests/firmware/arduino_blink.c atmega328p 16000000 func "" "$narrow"
row arduino_button tests/firmware/arduino_button.c atmega328p 16000000 func \
	tests/firmware/arduino_button.stim "$narrow" "" --log-loads
mv "$csv.tmp" "$csv"

md=$out/device_log.md
{
	echo "# The device log's cost"
	echo
	echo "Generated by \`make device-table\` (scripts/device_table.sh) from the"
	echo "stand-in chip (\`avrr device --stats\`, 2 M instructions with the bundled"
	echo "stimuli). Fingerprints: \`$narrow\` (the default before cycles:32); adcapp (which uses"
	echo "Timer1) \`sel=SPL+SPH+SREG+r24+sic:16,hash=jenkins,ra=8,width=32\` with 96-byte"
	echo "blocks sent with interrupts off (--send-masked); the others 64-byte blocks."
	echo "The UART sink runs at 115,200 baud and blocks on UDRE (its waits are in"
	echo "\"send\"); the func sink writes one register. Input reads: IN, LDS, SBIS and"
	echo "SBIC of the input set (loads through X/Y/Z are not logged yet; docs/device.md)."
	echo "Code added by the log includes adcapp's sic:16 counter increments."
	echo "arduino_button is rewritten with --log-loads: its digitalRead reads PINx"
	echo "through a pointer; each LD/LDD costs 72 cycles when its address is 0x200"
	echo "or above (the inline test, by the instruction set's cycle counts) and 76"
	echo "plus avrr_log_ld's map test below it; \"cyc/pointer read\" is a logged one."
	echo
	echo "| firmware | MCU | sink | code plain | + tracer | + log | log RAM | interrupts | reads | pointer reads | trace cyc/irq | append cyc/item | cyc/read | cyc/pointer read | send cyc/byte | log B | run ms | log B/s | baud needed | lost | fits 115,200 |"
	echo "| --- | --- | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | --- | --- |"
	tail -n +2 "$csv" | awk -F, '{ printf "| %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s |\n",
		$1, $2, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, $17, $18, $19, $20, $21, $22 }'
} > "$md"
cat "$md"
