#!/bin/sh
# fingerprints-big.sh: the size section's record-time numbers for
# funcsheap_big (funcsheap_noloop grown to ~14 KB, the size of the paper's
# applications): copies $F/funcsheap_big.rec.db to $F/funcsheap_big.db with
# the paper's selector at 8 + 8 bits (as Fig. 5, x = 3) and at 16 hash
# bits (as Fig. 10), and writes their fingerprints to
# $F/funcsheap_big.fp.db under the names those figures use.
. figures/lib.sh
BIG=funcsheap_big
db=$F/$BIG.db.tmp
cp "$F/$BIG.rec.db" "$db"
bsel=$(paper_selector $BIG)
"$AVRR" fingerprint "$db" --fp "z5:sel=$bsel,hash=jenkins,ra=8,width=16" \
	--fp "z10:sel=$bsel,hash=jenkins,ra=0,width=16" > /dev/null
rm -f "$F/$BIG.fp.db.tmp"
sqlite3 -bail "$db" "ATTACH '$F/$BIG.fp.db.tmp' AS f;
	CREATE TEMP TABLE irq (idx INTEGER PRIMARY KEY, ra INTEGER, digest BLOB);
	INSERT INTO irq SELECT idx, ra, digest FROM interrupts;
	CREATE TABLE f.fp (firmware TEXT, name TEXT, n INTEGER, ra INTEGER,
		digest BLOB, ra_part INTEGER, hash_part INTEGER, input_key INTEGER);
	INSERT INTO f.fp SELECT '$BIG', CASE c.name WHEN 'z5' THEN 'f5-g3' ELSE 'f10' END, p.n,
		i.ra, i.digest, p.ra_part, p.hash_part, p.input_key FROM fingerprints p
		JOIN fp_configs c ON c.id = p.config JOIN irq i ON i.idx = p.n
		WHERE c.name IN ('z5', 'z10')"
mv "$F/$BIG.fp.db.tmp" "$F/$BIG.fp.db"
mv "$db" "$F/$BIG.db"
