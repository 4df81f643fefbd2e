#!/bin/sh
# tables.sh: gathers every figure's numbers into one SQLite database,
# $F/figures.db, from the data steps' outputs (recordings, `avrr select`
# JSON, `avrr fingerprint` tables, `avrr sweep` CSVs), and derives in it
# the tables and views that the figures' CSVs (figures/csv/*.sql), plots
# (figures/plot/*.py) and text (figures/text/*.sh) read.  Cheap next to
# the avrr runs: changing a derivation reruns this step, not them.
. figures/lib.sh
FIRMWARE="adcapp funcsheap funcsheap_noloop"
db=$F/figures.db.tmp
rm -f "$db"

# ---- Fig. 2: return-address clustering -----------------------------------

for fw in $FIRMWARE; do
	sqlite3 -bail "$F/$fw.db" "ATTACH '$db' AS f;
		CREATE TABLE IF NOT EXISTS f.fig2 (firmware TEXT, ra INTEGER, interrupts INTEGER);
		INSERT INTO f.fig2 SELECT '$fw', ra, count(*) FROM interrupts GROUP BY ra"
done

# ---- Fig. 4: register frequency (avrr select --gp 32 --io 64) ---------------

# Frequency-based selection's counts (§4.1), in % of the instructions
# scanned; the plot shows the ten most named of each kind.
sqlite3 -bail "$db" "CREATE TABLE fig4 AS
	WITH j AS (SELECT readfile('$F/adcapp.select.json') AS j)
	SELECT k.kind, CAST(e.key AS INTEGER) + 1 AS rank,
		json_extract(e.value, '\$.register') AS register,
		json_extract(e.value, '\$.uses') AS uses,
		100.0 * json_extract(e.value, '\$.uses') / json_extract(j.j, '\$.instructions') AS pct
	FROM j, (SELECT 'gp' AS kind UNION ALL SELECT 'io') k, json_each(j.j, '\$.' || k.kind) e"
# Does a stack-switching OS rank SPL and SPH higher?  adcapp_tasks is
# adcapp's code run as two cooperative tasks whose switch saves and
# restores SP through SPL/SPH (tests/firmware/adcapp_tasks.c); where each
# firmware's selection ranks SPL, SPH and SREG among the I/O registers.
sqlite3 -bail "$db" "CREATE TABLE fig4t (firmware TEXT, instructions INTEGER, io_named INTEGER,
	register TEXT, rank INTEGER, uses INTEGER)"
for f in traces/adcapp traces/funcsheap traces/funcsheap_noloop tests/firmware/adcapp_tasks; do
	sqlite3 -bail "$db" "WITH j AS (SELECT readfile('$F/$(basename "$f").select.json') AS j)
		INSERT INTO fig4t SELECT '$(basename "$f")', json_extract(j.j, '\$.instructions'),
			(SELECT count(*) FROM json_each(j.j, '\$.io')), r.register,
			(SELECT CAST(e.key AS INTEGER) + 1 FROM json_each(j.j, '\$.io') e
				WHERE json_extract(e.value, '\$.register') = r.register),
			coalesce((SELECT json_extract(e.value, '\$.uses') FROM json_each(j.j, '\$.io') e
				WHERE json_extract(e.value, '\$.register') = r.register), 0)
		FROM j, (SELECT 'SPL' AS register UNION ALL SELECT 'SPH' UNION ALL SELECT 'SREG') r"
done

# ---- record-time configurations (Fig. 5, 6, 8, 10, section 6) -------------

# The catalog names each configuration's figure and parameters, so that the
# SQL below finds them by name instead of parsing specs.
sqlite3 -bail "$db" "CREATE TABLE catalog (firmware TEXT, name TEXT, figure TEXT,
	series TEXT, x INTEGER, selector TEXT, hash TEXT, ra INTEGER, width INTEGER)"
sqlite3 -bail "$db" "CREATE TABLE info (firmware TEXT, name TEXT, interrupts INTEGER,
		median_dup REAL, input_dup INTEGER);
	CREATE TABLE fp (firmware TEXT, name TEXT, n INTEGER, ra INTEGER,
		digest BLOB, ra_part INTEGER, hash_part INTEGER, input_key INTEGER)"
for fw in $FIRMWARE; do
	sqlite3 -bail "$db" "ATTACH '$F/$fw.fp.db' AS a;
		INSERT INTO info SELECT * FROM a.info;
		INSERT INTO fp SELECT * FROM a.fp"
done
for fw in $FIRMWARE; do
	sqlite3 -bail "$db" < "$F/$fw.catalog.sql"
done
sqlite3 -bail "$db" "CREATE INDEX fp_by_name ON fp (name, firmware)"

# ---- Fig. 5: false input duplicates vs. GP registers ----------------------

# The paper's selector includes the return address (§5.1), so two distinct
# contexts are false input duplicates when their selector bytes *and* RA
# agree.  avrr info's input_duplicates compares the selector bytes alone; it
# is kept as a column for reference.
sqlite3 -bail "$db" "CREATE TABLE fig5 AS
	WITH c AS (SELECT DISTINCT firmware, name, input_key, ra, digest, ra_part, hash_part
		FROM fp WHERE name LIKE 'f5-%'),
	g AS (SELECT firmware, name, count(*) AS k FROM c GROUP BY firmware, name, input_key, ra),
	t AS (SELECT firmware, name, sum(CASE WHEN k > 1 THEN k ELSE 0 END) AS total FROM
		(SELECT firmware, name, count(*) AS k FROM c GROUP BY firmware, name, ra_part, hash_part)
		GROUP BY firmware, name)
	SELECT g.firmware, k.series, k.x, k.selector, i.interrupts,
		sum(CASE WHEN g.k > 1 THEN g.k ELSE 0 END) AS dup_with_ra, i.input_dup AS dup_without_ra,
		max(t.total) AS dup_total
	FROM g JOIN info i USING (firmware, name) JOIN catalog k USING (firmware, name)
	JOIN t USING (firmware, name)
	GROUP BY g.firmware, g.name"

# Fig. 5's single registers: the same measure with SPL, SPH, SREG, the
# return address and one GP register, for each of the 32.
sqlite3 -bail "$db" "CREATE TABLE fig5s AS
	WITH c AS (SELECT DISTINCT firmware, name, input_key, ra, digest FROM fp
		WHERE name LIKE 'f5s-%'),
	g AS (SELECT firmware, name, count(*) AS k FROM c GROUP BY firmware, name, input_key, ra)
	SELECT g.firmware, k.x AS rank, replace(k.selector, 'SPL+SPH+SREG+', '') AS register,
		i.interrupts, sum(CASE WHEN g.k > 1 THEN g.k ELSE 0 END) AS dup
	FROM g JOIN info i USING (firmware, name) JOIN catalog k USING (firmware, name)
	GROUP BY g.firmware, g.name"
# Why one register is not enough in funcsheap: at its busiest return
# addresses, how many distinct states SPL+SPH+SREG and the first 0, 1, 2 GP
# registers give (one byte holds at most 256 values).
sqlite3 -bail "$db" "CREATE TABLE fig5ra AS
	WITH s AS (SELECT firmware, ra, name, count(*) AS n, count(DISTINCT input_key) AS st
		FROM fp WHERE name IN ('f5-g0', 'f5-g1', 'f5-g2') GROUP BY firmware, ra, name),
	p AS (SELECT firmware, ra, max(n) AS interrupts,
		max(CASE WHEN name = 'f5-g0' THEN st END) AS states_x0,
		max(CASE WHEN name = 'f5-g1' THEN st END) AS states_x1,
		max(CASE WHEN name = 'f5-g2' THEN st END) AS states_x2 FROM s GROUP BY firmware, ra)
	SELECT *, row_number() OVER (PARTITION BY firmware ORDER BY interrupts DESC, ra) AS rk
	FROM p"

# ---- Fig. 6: median collisions per ra prefix vs. hash width ---------------

# Why a single hash lags with SPL+SPH+SREG: the fingerprint values each one
# uses, against the distinct pairs (selector state, ra prefix) it is given.
sqlite3 -bail "$db" "CREATE TABLE fig6v AS SELECT f.firmware, k.hash, k.x AS hash_bits,
	count(DISTINCT f.ra_part || ':' || f.hash_part) AS values_used,
	count(DISTINCT f.ra_part || ':' || f.input_key) AS inputs
	FROM fp f JOIN catalog k USING (firmware, name) WHERE k.figure = 'fig6'
	GROUP BY f.firmware, k.hash, k.x"

# ---- Fig. 8: fingerprints per hash value vs. hash bits --------------------

sqlite3 -bail "$db" "CREATE TABLE fig8 AS
	WITH v AS (SELECT firmware || '|' || name AS g, count(*) AS x FROM fp
		WHERE name LIKE 'f8-%' GROUP BY firmware, name, ra_part, hash_part),
	m AS ($(median 'SELECT g, x FROM v'))
	SELECT k.firmware, k.x AS hash_bits, m.median,
		(SELECT avg(x) FROM v WHERE v.g = m.g) AS mean,
		(SELECT count(*) FROM v WHERE v.g = m.g) AS values_used,
		-- The most values a hash can use: the distinct pairs (selector
		-- state, ra prefix); the mean per value is at least the
		-- fingerprints over these.
		(SELECT count(*) FROM (SELECT DISTINCT input_key, ra_part FROM fp
			WHERE fp.firmware = k.firmware AND fp.name = k.name)) AS inputs
	FROM m JOIN catalog k ON k.firmware || '|' || k.name = m.g"

# ---- Fig. 10: use of the hash space -----------------------------------------

sqlite3 -bail "$db" "CREATE TABLE fig10 AS SELECT firmware, hash_part AS value,
	count(*) AS fingerprints FROM fp WHERE name = 'f10' GROUP BY firmware, hash_part"

# ---- Section 6: collisions vs. recorded fingerprints ----------------------

# Distinct contexts in order of first appearance; a collision is one whose
# fingerprint an earlier distinct context already has.
sqlite3 -bail "$db" "CREATE TABLE sec6 AS
	WITH c AS (SELECT firmware, min(n) AS n, ra_part, hash_part FROM fp WHERE name = 's6'
		GROUP BY firmware, digest),
	d AS (SELECT firmware, n, n > min(n) OVER (PARTITION BY firmware, ra_part, hash_part)
		AS dup FROM c),
	s AS (SELECT firmware, n, sum(dup) OVER (PARTITION BY firmware ORDER BY n) AS collisions,
		max(n) OVER (PARTITION BY firmware) AS last FROM d)
	SELECT firmware, n AS fingerprints, collisions FROM s WHERE n % 250 = 0 OR n = last;
	-- What a uniform hash would give: a prefix of d distinct contexts fills
	-- 256 (1 - (1 - 1/256)^d) of its 256 hash values on average.
	CREATE TABLE sec6_uniform AS
	WITH p AS (SELECT firmware, ra_part, count(DISTINCT digest) AS d FROM fp WHERE name = 's6'
		GROUP BY firmware, ra_part)
	SELECT firmware, sum(d - 256 * (1 - pow(1 - 1 / 256.0, d))) AS expected FROM p
		GROUP BY firmware;
	CREATE TABLE sec6_fit AS
	WITH a AS (SELECT firmware, count(*) AS k, sum(fingerprints) AS sx, sum(collisions) AS sy,
		sum(1.0 * fingerprints * fingerprints) AS sxx,
		sum(1.0 * fingerprints * collisions) AS sxy,
		sum(1.0 * collisions * collisions) AS syy FROM sec6 GROUP BY firmware)
	SELECT firmware, (k * sxy - sx * sy) / (k * sxx - sx * sx) AS slope,
		(sy - (k * sxy - sx * sy) / (k * sxx - sx * sx) * sx) / k AS intercept,
		(k * sxy - sx * sy) * (k * sxy - sx * sy) /
			((k * sxx - sx * sx) * (k * syy - sy * sy)) AS r2 FROM a"

# ---- the oracle (avrr sweep): Fig. 7, Fig. 9, set vs. sequence --------------

sqlite3 -bail "$db" ".import --csv $F/sweep.csv sweep" "CREATE TABLE oracle AS
	SELECT replace(recording, '.db', '') AS firmware,
		CASE WHEN selector = 'all' THEN 'all' ELSE 'default' END AS selector,
		match, CAST(ra AS INTEGER) AS ra,
		CAST(width AS INTEGER) AS width, CAST(width AS INTEGER) - CAST(ra AS INTEGER)
			AS hash_bits,
		max(CASE WHEN metric = 'interrupts' THEN CAST(value AS INTEGER) END) AS interrupts,
		max(CASE WHEN metric = 'hits' THEN CAST(value AS INTEGER) END) AS hits,
		max(CASE WHEN metric = 'false_loop' THEN CAST(value AS INTEGER) END) AS false_loop,
		max(CASE WHEN metric = 'false_ra' THEN CAST(value AS INTEGER) END) AS false_ra,
		max(CASE WHEN metric = 'input_duplicates' THEN CAST(value AS INTEGER) END)
			AS input_duplicates,
		max(CASE WHEN metric = 'hash_collisions' THEN CAST(value AS INTEGER) END)
			AS hash_collisions
	FROM sweep GROUP BY recording, selector, config, match"

# avrr reduces word addresses (fingerprint/hash.h); the paper reduced byte
# addresses, whose bit 0 is always 0 on the AVR.  A byte-address prefix of
# k bits is therefore a word-address prefix of k - 1 bits beside a bit
# that is 0 in every fingerprint, which changes no match, and 16 - k hash
# bits: the sweep's width-15 row with ra = k - 1 (k = 0: the width-16 row
# with no ra bits).  Exact, not an approximation: the hash part is the
# same function of the same bytes.
sqlite3 -bail "$db" "CREATE TABLE fig7 AS SELECT w.firmware, w.ra, w.false_ra,
		coalesce(b.false_ra, w.false_ra) AS byte_false_ra, w.interrupts
	FROM oracle w LEFT JOIN oracle b ON b.firmware = w.firmware AND b.selector = w.selector
		AND b.match = w.match AND b.width = 15 AND b.ra = w.ra - 1
	WHERE w.selector = 'default' AND w.match = 'set' AND w.width = 16"

# ---- counters: which turn of the loop ---------------------------------------

# The sweep names no counter bits: with 8 ra and 8 hash bits, they are
# the width beyond 16.
sqlite3 -bail "$db" ".import --csv $F/counters-sweep.csv csweep" "
	CREATE TABLE counters (firmware TEXT, kind TEXT, match TEXT, bits INTEGER,
		false_positives INTEGER, interrupts INTEGER, correct INTEGER);
	WITH c AS (SELECT replace(recording, '.db', '') AS firmware,
			CASE WHEN selector LIKE '%+sic:%' THEN 'sic'
				WHEN selector LIKE '%+cycles:%' THEN 'cycles' END AS kind,
			match, CAST(width AS INTEGER) - 16 AS bits,
			sum(CASE WHEN metric IN ('false_loop', 'false_ra') THEN CAST(value AS INTEGER)
				END) AS fp,
			max(CASE WHEN metric = 'interrupts' THEN CAST(value AS INTEGER) END) AS n,
			max(CASE WHEN metric = 'correct' THEN CAST(value AS INTEGER) END) AS correct
		FROM csweep GROUP BY recording, config, match)
	INSERT INTO counters
	SELECT firmware, kind, match, bits, fp, n, correct FROM c WHERE kind IS NOT NULL
	UNION ALL SELECT firmware, k.kind, match, 0, fp, n, correct
		FROM c, (SELECT 'sic' AS kind UNION ALL SELECT 'cycles') k WHERE c.kind IS NULL"
# The sweep fails on a missed interrupt (docs/sweep.md, Failures); every
# recorded one must also have been found where it was taken.
bad=$(val "$db" "SELECT count(*) FROM counters WHERE correct != interrupts")
[ "$bad" = 0 ] || { echo "tables.sh: the oracle missed interrupts of the counters sweep" >&2; exit 1; }

# ---- firmware size ----------------------------------------------------------

# The paper's applications fill ~14 KB; ours ~2 KB.  funcsheap_big is
# funcsheap_noloop with 150 generated functions in its main loop
# (tests/firmware/funcsheap_big.c), recorded and measured as the others.
BIG=funcsheap_big
sqlite3 -bail "$F/$BIG.db" "ATTACH '$db' AS f;
	CREATE TABLE f.size_fig2 AS SELECT '$BIG' AS firmware, ra, count(*) AS interrupts
		FROM interrupts GROUP BY ra;
	INSERT INTO f.size_fig2 SELECT * FROM f.fig2 WHERE firmware = 'funcsheap_noloop';
	CREATE TABLE f.size_fp AS SELECT * FROM f.fp WHERE firmware = 'funcsheap_noloop'
		AND name IN ('f5-g3', 'f10');
	ATTACH '$F/$BIG.fp.db' AS b;
	INSERT INTO f.size_fp SELECT * FROM b.fp"
sqlite3 -bail "$db" ".import --csv $F/sweep-$BIG.csv sweepbig" "
	CREATE TABLE size_fw (firmware TEXT, text_bytes INTEGER);
	INSERT INTO size_fw VALUES
		('funcsheap_noloop', $(avr-size -A traces/funcsheap_noloop.elf | awk '$1 == ".text" { print $2 }')),
		('$BIG', $(avr-size -A tests/firmware/$BIG.elf | awk '$1 == ".text" { print $2 }'));
	CREATE TABLE size_ra AS SELECT '$BIG' AS firmware, CAST(ra AS INTEGER) AS ra,
		CAST(value AS INTEGER) AS false_ra FROM sweepbig WHERE metric = 'false_ra'
	UNION ALL SELECT firmware, ra, false_ra FROM oracle WHERE firmware = 'funcsheap_noloop'
		AND selector = 'default' AND match = 'set' AND width = 16;
	CREATE TABLE size AS
	WITH r AS (SELECT firmware, ra, 1.0 * false_ra / max(false_ra) OVER (PARTITION BY firmware)
		AS rel, false_ra FROM size_ra),
	rs AS (SELECT firmware, max(CASE WHEN ra = 1 THEN rel END) AS r1,
		max(CASE WHEN ra = 2 THEN rel END) AS r2, max(CASE WHEN ra = 4 THEN rel END) AS r4,
		max(CASE WHEN ra = 8 THEN rel END) AS r8,
		coalesce(max(CASE WHEN false_ra > 0 THEN ra END) + 1, 0) AS zero_from
		FROM r GROUP BY firmware),
	c AS (SELECT DISTINCT firmware, input_key, ra, digest FROM size_fp WHERE name = 'f5-g3'),
	d AS (SELECT firmware, sum(CASE WHEN k > 1 THEN k ELSE 0 END) AS dup FROM
		(SELECT firmware, count(*) AS k FROM c GROUP BY firmware, input_key, ra)
		GROUP BY firmware),
	v AS (SELECT firmware, count(DISTINCT hash_part) AS used FROM size_fp WHERE name = 'f10'
		GROUP BY firmware),
	t AS (SELECT firmware, sum(interrupts) AS n, count(*) AS ras,
		(SELECT sum(interrupts) FROM (SELECT interrupts FROM size_fig2 g2
			WHERE g2.firmware = g.firmware ORDER BY interrupts DESC LIMIT 10)) AS top10
		FROM size_fig2 g GROUP BY firmware)
	SELECT z.firmware, z.text_bytes, t.n AS interrupts, t.ras AS return_addresses,
		100.0 * t.top10 / t.n AS top10_pct, 100.0 * d.dup / t.n AS input_dup_pct,
		v.used AS hash_values_used, rs.r1, rs.r2, rs.r4, rs.r8, rs.zero_from
	FROM size_fw z JOIN t USING (firmware) JOIN d USING (firmware) JOIN v USING (firmware)
		JOIN rs USING (firmware)"

# ---- the summaries results/README.md states, one or two views per figure ----

sqlite3 -bail "$db" "
CREATE VIEW fig2_sum AS
	WITH r AS (SELECT firmware, ra, interrupts, row_number() OVER w AS rk,
		sum(interrupts) OVER (PARTITION BY firmware) AS tot, sum(interrupts) OVER w AS cum
		FROM fig2 WINDOW w AS (PARTITION BY firmware ORDER BY interrupts DESC, ra))
	SELECT firmware, max(tot) AS tot, count(*) AS n,
		100.0 * sum(CASE WHEN rk <= 10 THEN interrupts ELSE 0 END) / max(tot) AS top10,
		sum(CASE WHEN cum - interrupts < 0.9 * tot THEN 1 ELSE 0 END) AS n90,
		max(CASE WHEN rk = 1 THEN ra END) AS top_ra, max(interrupts) AS top_n
	FROM r GROUP BY firmware;
CREATE VIEW f5 AS SELECT firmware, series, x, selector, 100.0 * dup_with_ra / interrupts AS pct
	FROM fig5;
CREATE VIEW f5_sum AS SELECT firmware, series,
	max(CASE WHEN x = 0 THEN pct END) AS p0, max(CASE WHEN x = 1 THEN pct END) AS p1,
	max(CASE WHEN x = 2 THEN pct END) AS p2, max(CASE WHEN x = 3 THEN pct END) AS p3,
	max(CASE WHEN x = 8 THEN pct END) AS p8, max(CASE WHEN x = 16 THEN pct END) AS p16,
	min(pct) AS pmin, min(CASE WHEN pct < 5 THEN x END) AS x5
	FROM f5 GROUP BY firmware, series;
CREATE VIEW f6 AS SELECT firmware, selector, hash, x AS b, median_dup AS m
	FROM info JOIN catalog USING (firmware, name) WHERE figure = 'fig6';
CREATE VIEW f6_tot AS SELECT firmware, selector, hash, sum(m) AS total FROM f6
	GROUP BY firmware, selector, hash;
CREATE VIEW f6_sum AS SELECT firmware,
	max(CASE WHEN selector = 'all' AND hash NOT IN ('rr', 'rrc') THEN total END) /
		min(CASE WHEN selector = 'all' AND hash NOT IN ('rr', 'rrc') THEN total END) AS spread,
	max(CASE WHEN selector != 'all' AND hash NOT IN ('rr', 'rrc') THEN total END) /
		min(CASE WHEN selector != 'all' AND hash NOT IN ('rr', 'rrc') THEN total END)
		AS spread_sp,
	max(CASE WHEN selector != 'all' AND hash NOT IN ('rr', 'rrc', 'twomod') THEN total END) /
		min(CASE WHEN selector != 'all' AND hash NOT IN ('rr', 'rrc', 'twomod') THEN total END)
		AS spread_sp3,
	max(CASE WHEN selector != 'all' AND hash = 'twomod' THEN total END) /
		avg(CASE WHEN selector != 'all' AND hash IN ('modular', 'jenkins', 'knuth') THEN total
		END) AS twomod_ratio,
	avg(CASE WHEN selector != 'all' AND hash NOT IN ('rr', 'rrc') THEN total END) /
		max(CASE WHEN selector != 'all' AND hash = 'rr' THEN total END) AS rr_gain,
	avg(CASE WHEN selector != 'all' AND hash NOT IN ('rr', 'rrc') THEN total END) /
		max(CASE WHEN selector != 'all' AND hash = 'rrc' THEN total END) AS rrc_gain,
	avg(CASE WHEN selector != 'all' AND hash NOT IN ('rr', 'rrc') THEN total END) /
		avg(CASE WHEN selector = 'all' AND hash NOT IN ('rr', 'rrc') THEN total END) AS sel_gain
	FROM f6_tot GROUP BY firmware;
CREATE VIEW f7 AS SELECT firmware, ra, false_ra,
	1.0 * false_ra / max(false_ra) OVER (PARTITION BY firmware) AS rel
	FROM oracle WHERE selector = 'default' AND match = 'set' AND width = 16;
CREATE VIEW f7_sum AS SELECT firmware, max(false_ra) AS worst,
	max(CASE WHEN ra = 1 THEN rel END) AS r1, max(CASE WHEN ra = 2 THEN rel END) AS r2,
	max(CASE WHEN ra = 4 THEN rel END) AS r4, max(CASE WHEN ra = 8 THEN rel END) AS r8,
	min(CASE WHEN false_ra = 0 THEN ra END) AS zero_at,
	max(CASE WHEN ra = 1 THEN brel END) AS b1, max(CASE WHEN ra = 2 THEN brel END) AS b2,
	max(CASE WHEN ra = 8 THEN brel END) AS b8, max(CASE WHEN ra = 9 THEN brel END) AS b9,
	min(CASE WHEN byte_false_ra = 0 THEN ra END) AS bzero_at
	FROM (SELECT f7.*, fig7.byte_false_ra, 1.0 * fig7.byte_false_ra / max(fig7.byte_false_ra)
		OVER (PARTITION BY firmware)
		AS brel FROM f7 JOIN fig7 USING (firmware, ra)) GROUP BY firmware;
CREATE VIEW f8 AS SELECT firmware, hash_bits, median,
	100.0 * median / max(median) OVER (PARTITION BY firmware) AS pct FROM fig8;
CREATE VIEW f9 AS SELECT firmware, selector, ra,
	1.0 * (false_loop + false_ra) / interrupts AS per
	FROM oracle WHERE match = 'set' AND width = 16;
CREATE VIEW f9_sum AS SELECT f.firmware, f.selector, b.ra AS best_ra, b.per AS best,
	max(CASE WHEN f.ra = 8 THEN f.per END) AS even, max(CASE WHEN f.ra = 0 THEN f.per END) AS ra0,
	max(CASE WHEN f.ra = 16 THEN f.per END) AS ra16
	FROM f9 f JOIN (SELECT firmware, selector, ra, min(per) AS per FROM f9
		GROUP BY firmware, selector) b USING (firmware, selector)
	GROUP BY f.firmware, f.selector;
CREATE VIEW s6_sum AS
	WITH p AS (SELECT firmware, fingerprints AS x, collisions AS y,
		row_number() OVER (PARTITION BY firmware ORDER BY fingerprints) AS r,
		count(*) OVER (PARTITION BY firmware) AS k FROM sec6),
	e AS (SELECT firmware,
		max(CASE WHEN r = 1 THEN x END) AS x0, max(CASE WHEN r = 1 THEN y END) AS y0,
		max(CASE WHEN r = (k + 1) / 2 THEN x END) AS x1,
		max(CASE WHEN r = (k + 1) / 2 THEN y END) AS y1,
		max(CASE WHEN r = k THEN x END) AS x2, max(CASE WHEN r = k THEN y END) AS y2
		FROM p GROUP BY firmware)
	SELECT firmware, x2 AS n, y2 AS collisions, slope, intercept, r2,
		1.0 * (y1 - y0) / (x1 - x0) AS early, 1.0 * (y2 - y1) / (x2 - x1) AS late
	FROM e JOIN sec6_fit USING (firmware);
CREATE VIEW m_sum AS SELECT firmware, ra,
	max(CASE WHEN match = 'set' THEN 1.0 * (false_loop + false_ra) / interrupts END) AS set_per,
	max(CASE WHEN match = 'sequence' THEN 1.0 * (false_loop + false_ra) / interrupts END)
		AS seq_per
	FROM oracle WHERE selector = 'default' AND width = 16 GROUP BY firmware, ra;
CREATE VIEW c AS SELECT firmware, kind, match, bits, false_positives AS fp,
	1000.0 * false_positives / interrupts AS per,
	CASE WHEN false_positives = 0 THEN '0'
		WHEN 1000.0 * false_positives / interrupts >= 100
			THEN printf('%.0f', 1000.0 * false_positives / interrupts)
		WHEN 1000.0 * false_positives / interrupts >= 1
			THEN printf('%.1f', 1000.0 * false_positives / interrupts)
		ELSE printf('%.3f', 1000.0 * false_positives / interrupts) END AS txt
	FROM counters;
CREATE VIEW c_sum AS SELECT firmware, kind, match,
	max(CASE WHEN bits = 0 THEN txt END) AS t0, max(CASE WHEN bits = 8 THEN txt END) AS t8,
	max(CASE WHEN bits = 12 THEN txt END) AS t12, max(CASE WHEN bits = 16 THEN txt END) AS t16,
	max(CASE WHEN bits = 0 THEN per END) AS p0, max(CASE WHEN bits = 16 THEN per END) AS p16,
	min(CASE WHEN fp = 0 THEN bits END) AS first_zero,
	coalesce(max(CASE WHEN fp > 0 THEN bits END) + 1, 0) AS zero_from
	FROM c GROUP BY firmware, kind, match;
CREATE VIEW c_step AS SELECT a.firmware, a.kind, a.match, a.bits, 1.0 * a.fp / b.fp AS factor
	FROM c a JOIN c b ON b.firmware = a.firmware AND b.kind = a.kind AND b.match = a.match
		AND b.bits = a.bits + 1 WHERE b.fp > 0;"


mv "$db" "$F/figures.db"
