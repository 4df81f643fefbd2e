#!/bin/sh
# The device log's cost (docs/device.md), measured: for each firmware and
# fingerprint spec, the tracer with the log is generated, the firmware
# built, rewritten by avrr instrument (so its input reads are logged),
# stamped and run on the stand-in chip (avrr device --stats) for 2 M
# instructions with its stimuli, and the dump imported.  Writes
# OUT/device_log.csv and .md.
#
# Usage: device_table.sh AVRR OUT
#
# The log's demand is measured through the function sink (one register
# write a byte, no waiting), so its bytes per second are what the firmware
# produces, not what a sink let through.  Where the firmware leaves its
# USART free (funcsheap, funcsheap_noloop), the same build is also run with
# the UART sink at 115,200 baud and its dump imported: items lost there
# are counted.
#
# Columns: code bytes of the plain build, what the tracer adds, what the
# log adds on top (its code and the read sites); the log's RAM (its
# avrr_log_* variables); interrupts the tracer recorded and input reads
# logged; cycles per interrupt in the fingerprint code; cycles to append
# an item (avrr_log_put and avrr_log_fp, per item); cycles per input read
# (the inline sequence's 69, by the instruction set's cycle counts, plus
# the measured avrr_log_read and the append); cycles per log byte in the
# sending; the log's bytes, by kind (interrupt items, read items, block
# head and CRC, the header), and bytes per second of run; the baud it needs
# (10 bits a byte, 8N1); the headroom a 115,200-baud UART leaves (its
# 11,520 bytes a second less the demand, as a share of them); items lost
# through the UART sink at 115,200; and whether it fits (needs less than
# 115,200 baud and, where the UART was run, lost nothing).
set -eu
[ $# -eq 2 ] || { echo "usage: device_table.sh AVRR OUT" >&2; exit 2; }
avrr=$1
out=$2
flags='-Os -I/usr/include/simavr -Wl,--section-start=.mmcu=0x910000'
ring=255
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
mkdir -p "$out"
csv=$out/device_log.csv
echo "firmware,config,spec,mcu,f_cpu,code_plain,code_tracer,code_log,ram_log,interrupts,reads,pointer_reads,trace_cycles_per_irq,append_cycles_per_item,cycles_per_read,cycles_per_pointer_read,send_cycles_per_byte,log_bytes,irq_bytes,read_bytes,block_bytes,header_bytes,run_ms,log_bytes_per_s,baud_needed,headroom_115200,lost_uart_115200,fits_115200" > "$csv.tmp"

# Builds $tmp/NAME.elf: the log with SINK, instrumented and stamped.
build_log() {
	bname=$1 sink=$2
	if [ "$sink" = uart ]; then
		# shellcheck disable=SC2086
		"$avrr" tracer "$tmp/plain.elf" $fparg --log uart --baud 115200 --ring $ring $extra \
			-o "$tmp/$bname.h" --force > /dev/null
		$cc -Wl,--emit-relocs -include "$tmp/$bname.h" -o "$tmp/${bname}0.elf" "$src"
	else
		# shellcheck disable=SC2086
		"$avrr" tracer "$tmp/plain.elf" $fparg --log func --ring $ring $extra \
			-o "$tmp/$bname.h" --force > /dev/null
		$cc -Wl,--emit-relocs -include "$tmp/$bname.h" -include tests/firmware/log_sink.h \
			-o "$tmp/${bname}0.elf" "$src"
	fi
	# shellcheck disable=SC2086
	"$avrr" instrument "$tmp/${bname}0.elf" $iargs -o "$tmp/$bname.elf" --force > /dev/null
	"$avrr" stamp "$tmp/$bname.elf" > /dev/null
}

# NAME SOURCE MCU F_CPU STIMULI LABEL SPEC UART [TRACER ARGS] [INSTRUMENT
# ARGS]: SPEC "" is the default; UART yes runs the UART sink at 115,200 too.
row() {
	name=$1 src=$2 mcu=$3 fcpu=$4 stim=$5 label=$6 spec=$7 uart=$8 extra=${9:-} iargs=${10:-}
	cc="avr-gcc -mmcu=$mcu -DF_CPU=${fcpu}UL $flags"
	fparg=
	[ -n "$spec" ] && fparg="--fp $spec"
	$cc -o "$tmp/plain.elf" "$src"
	# shellcheck disable=SC2086
	"$avrr" tracer "$tmp/plain.elf" $fparg -o "$tmp/t.h" --force > /dev/null
	$cc -include "$tmp/t.h" -o "$tmp/tracer.elf" "$src"
	build_log log func
	reg=GPIOR0
	[ "$mcu" = atmega16 ] && reg=TWAR
	text() { avr-size -A "$1" | awk '$1 == ".text" || $1 == ".data" { s += $2 } END { print s }'; }
	c0=$(text "$tmp/plain.elf"); c1=$(text "$tmp/tracer.elf"); c2=$(text "$tmp/log.elf")
	ram=$(avr-nm -S -t d "$tmp/log.elf" | awk '$4 ~ /^avrr_log_/ && ($3 == "B" || $3 == "b" || $3 == "D" || $3 == "d") { s += $2 } END { print s + 0 }')
	stimarg=
	[ -n "$stim" ] && stimarg="--stimuli $stim"
	# shellcheck disable=SC2086
	dev=$("$avrr" device "$tmp/log.elf" $stimarg --log-reg $reg --log-out "$tmp/d.log" \
		--instructions 2000000 --stats --force)
	cycles=$(echo "$dev" | sed -n 's/^device: [0-9]* instructions, \([0-9]*\) cycles.*/\1/p')
	bytes=$(echo "$dev" | sed -n 's/.*; log \([0-9]*\) bytes.*/\1/p')
	# shellcheck disable=SC2046
	set -- $(echo "$dev" | sed -n 's/^stats: interrupts \([0-9]*\), trace cycles \([0-9]*\), log cycles \([0-9]*\), of which sending \([0-9]*\); reads \([0-9]*\), read cycles \([0-9]*\), append cycles \([0-9]*\)/\1 \2 \3 \4 \5 \6 \7/p')
	irqs=$1 tcyc=$2 scyc=$4 reads=$5 rcyc=$6 pcyc=$7
	# shellcheck disable=SC2046
	set -- $(echo "$dev" | sed -n 's/^stats: loads below 0x200 \([0-9]*\), their test.s cycles \([0-9]*\)/\1 \2/p') 0 0
	loads=$1 lcyc=$2
	"$avrr" import "$tmp/d.log" --elf "$tmp/log.elf" -o "$tmp/r.db" --force > "$tmp/imp" 2>&1 ||
		{ cat "$tmp/imp" >&2; exit 1; }
	# shellcheck disable=SC2046
	set -- $(sed -n 's/.*\.log: [0-9]* blocks, \([0-9]*\) interrupts, \([0-9]*\) input reads.*/\1 \2/p' "$tmp/imp")
	ilogged=$1 rlogged=$2
	# the bytes by kind: the parser's own count (avrr import --stats)
	# shellcheck disable=SC2046
	set -- $(sed -n 's/^import: [0-9]* bytes: header \([0-9]*\), block heads and CRCs \([0-9]*\), interrupts \([0-9]*\), reads \([0-9]*\).*/\1 \2 \3 \4/p' "$tmp/imp") - - - -
	hb=$1 bb=$2 ib=$3 rb=$4
	lost=n/a
	if [ "$uart" = yes ]; then
		build_log ulog uart
		# shellcheck disable=SC2086
		"$avrr" device "$tmp/ulog.elf" $stimarg --log-out "$tmp/u.log" \
			--instructions 2000000 --force > /dev/null
		lost=$("$avrr" import "$tmp/u.log" --elf "$tmp/ulog.elf" -o "$tmp/u.db" --force 2>&1 |
			sed -n 's/.*the device lost \([0-9]*\) items.*/\1/p')
		lost=${lost:-0}
		[ "$lost" = 0 ] || lost="first loss: $lost"
	fi
	awk -v n="$name" -v lb="$label" -v sp="${spec:-default}" -v m="$mcu" -v md="$tmp/md" -v f="$fcpu" -v c0="$c0" -v c1="$c1" \
	    -v c2="$c2" -v ram="$ram" -v i="$irqs" -v t="$tcyc" -v sc="$scyc" -v b="$bytes" \
	    -v rd="$reads" -v rc="$rcyc" -v pc="$pcyc" -v cy="$cycles" -v lost="$lost" -v ld="$loads" \
	    -v lc="$lcyc" -v ib="$ib" -v rb="$rb" -v bb="$bb" -v hb="$hb" 'BEGIN {
		ms = cy / f * 1000; bps = b / (cy / f); baud = bps * 10;
		room = (11520 - bps) / 11520 * 100;
		fits = (baud < 115200 && (lost == "0" || lost == "n/a")) ? "yes" : "no";
		app = pc / (i + rd + ld);
		per_read = rd ? sprintf("%.0f", 69 + rc / rd + app) : "n/a";
		per_load = ld ? sprintf("%.0f", 76 + lc / ld + app) : "n/a";
		printf "%s,%s,\"%s\",%s,%s,%d,%d,%d,%d,%d,%d,%d,%.0f,%.0f,%s,%s,%.0f,%d,%s,%s,%s,%s,%.1f,%.0f,%.0f,%+.0f%%,%s,%s\n",
			n, lb, sp, m, f, c0, c1 - c0, c2 - c1, ram, i, rd, ld, t / i, app, per_read,
			per_load, sc / b, b, ib, rb, bb, hb, ms, bps, baud, room, lost, fits
		printf "| %s | %s | %d | %d | %d | %d | %d | %d | %d | %.0f | %.0f | %s | %s | %d | %s / %s / %s / %s | %.1f | %.0f | %.0f | %+.0f%% | %s | **%s** |\n",
			n, lb, c0, c1 - c0, c2 - c1, ram, i, rd, ld, t / i, app, per_read, per_load,
			b, ib, rb, bb, hb, ms, bps, baud, room, lost, fits >> md }' >> "$csv.tmp"
	echo "device_table: $name ${spec:-default}" >&2
}

narrow='sel=cycles:16,ra=8,width=24'  # 3-byte fingerprints: the default before cycles:32
sic='sel=SPL+SPH+SREG+r24+sic:16,hash=jenkins,ra=8,width=32'
# The default spec, cycles:32: Timer1 is the tracer's.  adcapp owns Timer1
# (its 1 kHz tick) and its USART: the software instruction counter instead,
# its blocks sent with interrupts off (docs/device.md).
row adcapp traces/adcapp.c atmega16 8000000 traces/adcapp.stim sic:16 "$sic" no --send-masked
row funcsheap traces/funcsheap.c atmega16 8000000 traces/funcsheap.stim default "" yes
row funcsheap_noloop traces/funcsheap_noloop.c atmega16 8000000 traces/funcsheap_noloop.stim \
	default "" yes
row arduino_blink tests/firmware/arduino_blink.c atmega328p 16000000 "" default "" no
row arduino_button tests/firmware/arduino_button.c atmega328p 16000000 \
	tests/firmware/arduino_button.stim default "" no "" --log-loads
# The narrow spec, for comparison.
row funcsheap traces/funcsheap.c atmega16 8000000 traces/funcsheap.stim narrow "$narrow" yes
row funcsheap_noloop traces/funcsheap_noloop.c atmega16 8000000 traces/funcsheap_noloop.stim \
	narrow "$narrow" yes
row arduino_blink tests/firmware/arduino_blink.c atmega328p 16000000 "" narrow "$narrow" no
row arduino_button tests/firmware/arduino_button.c atmega328p 16000000 \
	tests/firmware/arduino_button.stim narrow "$narrow" no "" --log-loads
mv "$csv.tmp" "$csv"

md=$out/device_log.md
{
	echo "# The device log's cost"
	echo
	echo "Generated by \`make device-table\` (scripts/device_table.sh) from the"
	echo "stand-in chip (\`avrr device --stats\`, 2 M instructions with the bundled"
	echo "stimuli, then on to the end of a block), device log format version 2"
	echo "(docs/device.md), $ring-byte blocks. Measured, not estimated: every number"
	echo "below is counted in these runs."
	echo
	echo "- **config**: \`default\` is avrr's default fingerprint, \`sel=cycles:32,ra=0,width=32\`"
	echo "  (Timer1 and its overflow interrupt are the tracer's); \`narrow\` is \`$narrow\`"
	echo "  (the default before cycles:32), for comparison; adcapp owns Timer1 (its"
	echo "  1 kHz tick), so it uses \`$sic\`, its blocks sent with interrupts off"
	echo "  (--send-masked). Code added by the log includes adcapp's sic:16 counter increments."
	echo "- **demand**: the log goes through the function sink (one register write a"
	echo "  byte, no waiting), so its bytes per second are what the firmware produces."
	echo "  The bytes are split as interrupt items / read items / block heads and CRCs /"
	echo "  the header (sent once per reset; over these short runs it is 1-4 % of the total)."
	echo "- **baud needed**: bytes per second x 10 (8N1). **headroom**: what a 115,200-baud"
	echo "  UART (11,520 bytes a second) has left, as a share of it; negative: over."
	echo "- **lost at 115,200**: the same build with the UART sink (\`--log uart --baud 115200\`)"
	echo "  for 2 M instructions, its dump imported. Only where the firmware leaves its"
	echo "  USART free: adcapp and the two Arduino-style firmware use theirs (n/a). At"
	echo "  8 MHz the nearest UBRR (3) gives 125,000 baud, 8.5 % fast, so this run is"
	echo "  kinder than a real 115,200 link; the fit is judged on the demand."
	echo "- **cycles**: per interrupt in the fingerprint code; per item in the append"
	echo "  (avrr_log_put_*); per input read, the inline sequence's 69 (by the instruction"
	echo "  set's cycle counts) plus the measured avrr_log_read and append; a pointer read"
	echo "  (arduino_button, --log-loads) 76 plus avrr_log_ld's map test and the append."
	echo "  The sending is not in them (it is the sink's)."
	echo
	echo "| firmware | config | code plain | + tracer | + log | log RAM | interrupts | reads | pointer reads | cyc/irq | append cyc/item | cyc/read | cyc/pointer read | log B | irq / read / block / header B | run ms | log B/s | baud needed | headroom at 115,200 | lost at 115,200 | fits 115,200 |"
	echo "| --- | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | --- | ---: | ---: | ---: | ---: | --- | --- |"
	cat "$tmp/md"
} > "$md"
cat "$md"
