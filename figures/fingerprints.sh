#!/bin/sh
# fingerprints.sh FW: copies the recording $F/FW.rec.db to $F/FW.db and
# stores in it every record-time configuration
# that Fig. 5, 6, 8, 10 and section 6 measure (`avrr fingerprint`), and
# writes $F/FW.catalog.sql (each configuration's figure and parameters, so
# that the SQL finds them by name instead of parsing specs) and
# $F/FW.fp.db: `avrr info`'s metrics of each (table info) and the
# fingerprints the figures count themselves (table fp).  Every configuration is
# spelled out here: nothing depends on the recording's own default.
. figures/lib.sh
fw=$1
db=$F/$fw.db.tmp
cp "$F/$fw.rec.db" "$db"
specs= specs2=
: > "$F/$fw.catalog.sql.tmp"

# cfg FW NAME FIGURE SERIES X SELECTOR HASH RA WIDTH: one configuration.
cfg() {
	# avrr fingerprint takes at most 256 configurations a call: the single
	# registers of Fig. 5 go in a second call.
	case $2 in f5s-*)
		specs2="$specs2 $2:sel=$6,hash=$7,ra=$8,width=$9"
		printf "INSERT INTO catalog VALUES ('%s','%s','%s','%s',%s,'%s','%s',%s,%s);\n" \
			"$@" >> "$F/$fw.catalog.sql.tmp"
		return ;;
	esac
	if [ "$7" = rrc ]; then
		specs="$specs $2:sel=$6,hash=rr,marker=$marker,ra=$8,width=$9"
	else
		specs="$specs $2:sel=$6,hash=$7,ra=$8,width=$9"
	fi
	printf "INSERT INTO catalog VALUES ('%s','%s','%s','%s',%s,'%s','%s',%s,%s);\n" \
		"$@" >> "$F/$fw.catalog.sql.tmp"
}

# code_clusters FW: round-robin's marker as the paper chose it, by code
# region: the recorded return addresses split into four clusters at the
# three widest gaps between neighbours, each cluster a region with its own
# hash function, in round-robin order.
code_clusters() {
	val "$db" "WITH r AS (SELECT DISTINCT ra FROM interrupts),
		g AS (SELECT ra, ra - lag(ra) OVER (ORDER BY ra) AS gap FROM r),
		cut AS (SELECT ra FROM g WHERE gap IS NOT NULL ORDER BY gap DESC, ra LIMIT 3),
		c AS (SELECT r.ra, (SELECT count(*) FROM cut WHERE cut.ra <= r.ra) AS k FROM r)
		SELECT group_concat(printf('0x%x-0x%x:%s', lo, hi, h), '+') FROM (SELECT min(ra) AS lo,
			max(ra) AS hi, CASE k WHEN 0 THEN 'modular' WHEN 1 THEN 'twomod'
			WHEN 2 THEN 'jenkins' ELSE 'knuth' END AS h FROM c GROUP BY k ORDER BY k)"
}

IO_EXTRA="TIFR+PINB+TCNT1L+TCNT1H"
say "fingerprints for $fw"
dsel=$(paper_selector $fw)
"$AVRR" select "traces/$fw.elf" --gp 32 --json > "$F/$fw.select32.json"
gps=$(val :memory: "SELECT group_concat(json_extract(value, '\$.register'), ' ')
	FROM json_each(readfile('$F/$fw.select32.json'), '\$.gp')")
# Fig. 5: SPL, SPH, SREG plus the top x GP registers, x = 0..16; for
# funcsheap_noloop also with the paper's remedy, TIFR, PINB, TCNT1L and
# TCNT1H, added to each, and one by one to the paper's selector.
sel=SPL+SPH+SREG
x=0
for r in '' $gps; do
	[ -z "$r" ] || { sel=$sel+$r; x=$((x + 1)); }
	[ $x -le 16 ] || break
	cfg $fw f5-g$x fig5 gp $x $sel jenkins 8 16
	[ $fw != funcsheap_noloop ] || cfg $fw f5-io-g$x fig5 gp+io $x $sel+$IO_EXTRA jenkins 8 16
done
# Which single GP register, added alone to SPL+SPH+SREG, tells most
# states apart (fig5_single.csv): x is its rank in frequency.
x=0
for r in $gps; do
	x=$((x + 1))
	cfg $fw f5s-$r fig5s one $x SPL+SPH+SREG+$r jenkins 8 16
done
if [ $fw = funcsheap_noloop ]; then
	sel=$dsel
	x=0
	for r in TIFR PINB TCNT1L TCNT1H; do
		sel=$sel+$r
		x=$((x + 1))
		cfg $fw f5-add-$r fig5 default+io $x $sel jenkins 8 16
	done
fi
# Fig. 6: each hash with the optimal (all) and a non-optimal selector,
# 4 ra bits and 1..16 hash bits.  Fig. 8: jenkins 16-bit fingerprints
# split every way.  Section 6: the whole context, jenkins, 8 + 8 bits.
# Round-robin twice: by 128-byte blocks (avrr's default marker) and by
# code clusters (rrc).
marker=$(code_clusters $fw)
for b in 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16; do
	for h in modular twomod jenkins knuth rr; do
		cfg $fw f6-all-$h-b$b fig6 all $b all $h 4 $((4 + b))
		cfg $fw f6-sp-$h-b$b fig6 SPL+SPH+SREG $b SPL+SPH+SREG $h 4 $((4 + b))
	done
	cfg $fw f6-all-rrc-b$b fig6 all $b all rrc 4 $((4 + b))
	cfg $fw f6-sp-rrc-b$b fig6 SPL+SPH+SREG $b SPL+SPH+SREG rrc 4 $((4 + b))
	# Like the paper, from 3 bits: below, the median flips between the
	# values of rarely hit return addresses and those of the hot ones.
	[ $b -lt 3 ] || cfg $fw f8-b$b fig8 jenkins $b $dsel jenkins $((16 - b)) 16
done
cfg $fw s6 sec6 all 0 all jenkins 8 16
# Fig. 10: the paper's selector hashed to all 16 bits.
cfg $fw f10 fig10 jenkins 16 $dsel jenkins 0 16
# shellcheck disable=SC2046,SC2086  # the specs hold no blanks
"$AVRR" fingerprint "$db" $(printf ' --fp %s' $specs) > /dev/null
# shellcheck disable=SC2046,SC2086
"$AVRR" fingerprint "$db" $(printf ' --fp %s' $specs2) > /dev/null
"$AVRR" info "$db" --json > "$F/$fw.info.json"
# The recording's metrics, and the rows the SQL counts itself.  The views
# decode the recording's chunks: a join would decode them again for every
# row, so the ground truth is copied into a table first.
rm -f "$F/$fw.fp.db.tmp"
sqlite3 -bail "$db" "ATTACH '$F/$fw.fp.db.tmp' AS f;
	CREATE TEMP TABLE irq (idx INTEGER PRIMARY KEY, ra INTEGER, digest BLOB);
	INSERT INTO irq SELECT idx, ra, digest FROM interrupts;
	CREATE TABLE f.info (firmware TEXT, name TEXT, interrupts INTEGER,
		median_dup REAL, input_dup INTEGER);
	INSERT INTO f.info SELECT '$fw', json_extract(value, '\$.name'),
		json_extract(value, '\$.fingerprints'),
		json_extract(value, '\$.median_duplicates_per_ra'),
		json_extract(value, '\$.input_duplicates')
		FROM json_each(readfile('$F/$fw.info.json'), '\$.fingerprint_configs');
	CREATE TABLE f.fp (firmware TEXT, name TEXT, n INTEGER, ra INTEGER,
		digest BLOB, ra_part INTEGER, hash_part INTEGER, input_key INTEGER);
	INSERT INTO f.fp SELECT '$fw', c.name, p.n, i.ra, i.digest, p.ra_part, p.hash_part,
		p.input_key FROM fingerprints p JOIN fp_configs c ON c.id = p.config
		JOIN irq i ON i.idx = p.n
		WHERE c.name LIKE 'f5-%' OR c.name LIKE 'f5s-%' OR c.name LIKE 'f8-%' OR c.name IN ('s6', 'f10')
		OR (c.name LIKE 'f6-sp-%' AND c.name NOT LIKE 'f6-sp-rr%')"
mv "$F/$fw.fp.db.tmp" "$F/$fw.fp.db"
mv "$F/$fw.catalog.sql.tmp" "$F/$fw.catalog.sql"
mv "$db" "$F/$fw.db"
