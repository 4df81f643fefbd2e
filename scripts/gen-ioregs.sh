#!/bin/sh
# Generates OUTDIR/ioregs.c and OUTDIR/ioregs_gen.h: for every MCU libsimavr
# simulates, its I/O register names (with their data-space addresses) and its
# interrupt vector names, read from avr-libc's own headers through the AVR
# compiler's preprocessor, so avrr speaks the MCU's own names without
# hand-kept tables.
#
# Usage: gen-ioregs.sh OUTDIR MCUS
#   MCUS is a file with one line per simavr core, its names separated by
#   spaces (what scripts/simavr-mcus.c prints from libsimavr's avr_kind
#   table), e.g. "atmega164 atmega164p atmega164pa".
#
# Which avr-libc part each name gets: the part of that name, when
# `avr-gcc -mmcu=NAME` accepts it and avr-libc defines its registers; else
# the first name of the same simavr core that does (atmega128L, atmega164,
# atmega324, atmega8l and attiny2313v are simavr aliases avr-gcc does not
# know: they get the tables of atmega128, atmega164p, atmega324p, atmega8 and
# attiny2313).  A core none of whose names avr-gcc knows is left out, with a
# warning; if every core is left out (no avr-gcc), it is an error.
#
# What a table holds:
#   - registers: every `NAME _SFR_IO8(a)` (at a + 0x20) and `NAME
#     _SFR_MEM8(a)` (at a) define, in any spelling avr-libc uses: spaces
#     around the parentheses, 0x or 0X, hex or decimal;
#   - 16- and 32-bit registers (`_SFR_IO16`, `_SFR_MEM16`, `_SFR_MEM32`:
#     ADC, TCNT1, ...) are left out when an 8-bit name exists at their
#     address, as avr-libc defines their bytes (ADCL, TCNT1L) and the table is
#     of bytes; a wide name at an address no 8-bit name has is added there,
#     naming its low byte.  (avr-libc 2.0 defines the bytes of every wide
#     register simavr's parts have, so this adds nothing today.)
#   - vectors: every `NAME_vect _VECTOR(n)` define, and every
#     `NAME_vect_num n` whose NAME_vect is not such a define, at vector n.
#     Legacy SIG_* names are left out.
# Several names at one address (aliases) are all kept, sorted by address
# then name, so the name an address reads back as is the first of them.
#
# Each name is preprocessed once, eight at a time (GNU xargs -P); the whole
# run takes a second or two.
set -eu
[ $# -eq 2 ] || { echo "usage: gen-ioregs.sh OUTDIR MCUS-FILE" >&2; exit 2; }
out=$1
list=$2
AVR_GCC=${AVR_GCC:-avr-gcc}
tab=$(printf '\t')

tmp=$(mktemp -d "${TMPDIR:-/tmp}/gen-ioregs.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
trap 'exit 130' INT TERM

names=$(tr -s ' \t' '\n\n' < "$list" | sed '/^$/d' | sort -u)
[ -n "$names" ] || { echo "gen-ioregs: $list names no MCU" >&2; exit 1; }
for n in $names; do
	case $n in
	*[!A-Za-z0-9_]*) echo "gen-ioregs: bad MCU name '$n' in $list" >&2; exit 1 ;;
	esac
done
# avr-gcc writes no output for a name it does not know (exit status 1, which
# xargs passes on as 123): that name is simply not known.
# shellcheck disable=SC2086
printf '%s\n' $names | xargs -P 8 -I{} "$AVR_GCC" -mmcu={} -E -dM -include avr/io.h \
	-x c /dev/null -o "$tmp/{}.defs" 2> "$tmp/errs" || :

# Known: avr-gcc accepts the name and avr-libc defines at least one register.
( cd "$tmp" && grep -lE '^#define [A-Za-z_][A-Za-z0-9_]* _SFR_(IO|MEM)8 *\(' -- *.defs ) \
	> "$tmp/known" 2> /dev/null || :
if [ ! -s "$tmp/known" ]; then
	echo "gen-ioregs: $AVR_GCC knows none of the MCUs in $list:" >&2
	head -n 5 "$tmp/errs" >&2
	exit 1
fi

# map: "NAME GCCNAME" for every name that gets a table, in the list's order;
# gcc: each GCCNAME once.
awk -v map="$tmp/map" -v gcc="$tmp/gcc" '
FILENAME == ARGV[1] { sub(/\.defs$/, ""); known[$0] = 1; next }
NF {
	first = ""
	for (i = 1; i <= NF && first == ""; i++)
		if ($i in known)
			first = $i
	if (first == "") {
		print "gen-ioregs: leaving out simavr'"'"'s " $0 ": avr-gcc/avr-libc know none of its names" > "/dev/stderr"
		next
	}
	for (i = 1; i <= NF; i++) {
		g = ($i in known) ? $i : first
		print $i " " g > map
		if (!(g in seen)) { seen[g] = 1; print g > gcc }
	}
}
' "$tmp/known" "$list"

# Records "GCCNAME<tab>R|V<tab>ADDR<tab>NAME" from every part's defines.
files=""
while read -r g; do files="$files $tmp/$g.defs"; done < "$tmp/gcc"
# shellcheck disable=SC2086
awk '
function num(s,    v, i) {
	v = 0
	if (s ~ /^0[xX]/) {
		s = tolower(substr(s, 3))
		for (i = 1; i <= length(s); i++)
			v = v * 16 + index("0123456789abcdef", substr(s, i, 1)) - 1
	} else
		v = s + 0
	return v
}
function flush(    n) {
	if (part == "")
		return
	for (n in wide)
		if (!(wide[n] in has8))
			print part "\tR\t" wide[n] "\t" n
	for (n in vnum)
		if (!(n in vec))
			print part "\tV\t" vnum[n] "\t" n
	for (n in vec)
		print part "\tV\t" vec[n] "\t" n
	split("", wide); split("", has8); split("", vec); split("", vnum)
}
FNR == 1 {
	flush()
	part = FILENAME
	sub(/^.*\//, "", part)
	sub(/\.defs$/, "", part)
}
$1 == "#define" && $2 ~ /^[A-Za-z_][A-Za-z0-9_]*$/ {
	name = $2
	v = $0
	sub(/^#define[ \t]+[A-Za-z0-9_]+[ \t]+/, "", v)
	gsub(/[ \t]/, "", v)
	if (v ~ /^_SFR_(IO|MEM)(8|16|32)\((0[xX][0-9A-Fa-f]+|[0-9]+)\)$/) {
		a = v
		sub(/^[^(]*\(/, "", a)
		sub(/\)$/, "", a)
		a = num(a)
		if (v ~ /^_SFR_IO/)
			a += 32
		if (v ~ /^_SFR_(IO|MEM)8\(/) {
			print part "\tR\t" a "\t" name
			has8[a] = 1
		} else
			wide[name] = a
	} else if (name ~ /_vect$/ && v ~ /^_VECTOR\([0-9]+\)$/) {
		a = v
		gsub(/[^0-9]/, "", a)
		vec[name] = a + 0
	} else if (name ~ /_vect_num$/ && v ~ /^[0-9]+[uU]?$/) {
		sub(/_num$/, "", name)
		vnum[name] = v + 0
	}
}
END { flush() }
' $files > "$tmp/recs"
LC_ALL=C sort -t "$tab" -k1,1 -k2,2 -k3,3n -k4,4 "$tmp/recs" > "$tmp/sorted"

cat > "$tmp/ioregs_gen.h" <<'HDR'
/* Generated by scripts/gen-ioregs.sh from avr-libc's headers. */
#ifndef AVRR_IOREGS_GEN_H
#define AVRR_IOREGS_GEN_H
#include <stdint.h>
typedef struct ioreg_name { const char *name; uint16_t addr; } ioreg_name;
typedef struct mcu_names {
	const char *mcu;            /* simavr's name for the part */
	const ioreg_name *regs;     /* 8-bit registers, by data-space address */
	unsigned nregs;
	const ioreg_name *vectors;  /* "INT0_vect" = 1 ... (addr = vector number) */
	unsigned nvectors;
	const char *gcc_mcu;        /* avr-gcc's (avr-libc's) name for it */
} mcu_names;
extern const mcu_names ioregs_mcus[];
extern const unsigned ioregs_nmcus;
#endif
HDR

awk -F "$tab" '
function id(s) { gsub(/[^A-Za-z0-9]/, "_", s); return s }
function close_array() { if (cur != "") print "};" }
FNR == NR {   # the map, "NAME GCCNAME"
	split($0, f, " ")
	nmap++; mname[nmap] = f[1]; mgcc[nmap] = f[2]
	next
}
{
	key = $1 "\t" $2
	if (key != cur) {
		close_array()
		cur = key
		arr = ($2 == "R" ? "regs_" : "vect_") id($1)
		have[arr] = 1
		print "static const ioreg_name " arr "[] = {"
	}
	print "\t{\"" $4 "\", " $3 "},"
}
END {
	close_array()
	print "const mcu_names ioregs_mcus[] = {"
	for (i = 1; i <= nmap; i++) {
		r = "regs_" id(mgcc[i]); v = "vect_" id(mgcc[i])
		rs = r in have ? r ", sizeof " r " / sizeof " r "[0]" : "NULL, 0"
		vs = v in have ? v ", sizeof " v " / sizeof " v "[0]" : "NULL, 0"
		print "\t{\"" mname[i] "\", " rs ", " vs ", \"" mgcc[i] "\"},"
	}
	print "};"
	print "const unsigned ioregs_nmcus = sizeof ioregs_mcus / sizeof ioregs_mcus[0];"
}
' "$tmp/map" "$tmp/sorted" > "$tmp/body.c"
{
	echo '/* Generated by scripts/gen-ioregs.sh from avr-libc'"'"'s headers. */'
	echo '#include <stddef.h>'
	echo '#include "ioregs_gen.h"'
	cat "$tmp/body.c"
} > "$tmp/ioregs.c"
mv "$tmp/ioregs_gen.h" "$out/ioregs_gen.h"
mv "$tmp/ioregs.c" "$out/ioregs.c"
