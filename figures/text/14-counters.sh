# text/14-counters.sh: results/README.md's section on counters: which turn of the loop, from
# $F/figures.db (sourced by figures/text.sh, which defines q and val).
cat <<'TEXT'

## Counters — which turn of the loop

No state hash tells apart the turns of a superloop that changes nothing, so
the fingerprint can carry K bits of a counter of progress, stored as they
are between the return address bits and the hash (docs/fingerprints.md):
`sic:K`, the software instruction counter (control transfers that are not
forward jumps), or `cycles:K`, the cycle count a free-running timer gives.
Here the paper's selector with 8 ra and 8 hash bits, plus K counter bits
(K = 0: the paper's 16-bit fingerprint), under both matching rules
(`counters.png`, `counters.csv`).  False positives (loop + RA) per 1,000
recorded interrupts at K = 0, 8, 12 and 16 counter bits, and the smallest K
with none at all.  K = 0 is the same configuration for both counters.  The
plot draws its y axis on a log scale; a point on the line marked 0 stands
for no false positive.

| firmware | counter | matching | K = 0 | K = 8 | K = 12 | K = 16 | first K with 0 |
| --- | --- | --- | --- | --- | --- | --- | --- |
TEXT
q "SELECT printf('| %s | %s | %s | %s | %s | %s | %s | %s |', firmware, kind, match, t0, t8, t12,
	t16, CASE WHEN first_zero IS NULL THEN 'none ≤ 16' WHEN zero_from > 16
		THEN first_zero || ' (not for every larger K)' WHEN zero_from > first_zero
		THEN first_zero || ' (again 0 from ' || zero_from || ')' ELSE first_zero END)
	FROM c_sum ORDER BY firmware, kind DESC, match DESC"
echo
# The findings, worded from the numbers: which series reach zero and where.
q "WITH k AS (SELECT kind, match, count(*) AS n, count(first_zero) AS z,
		min(first_zero) AS lo, max(first_zero) AS hi, min(p16) AS r_lo, max(p16) AS r_hi,
		group_concat(CASE WHEN first_zero IS NULL THEN firmware END, ', ') AS never
		FROM c_sum GROUP BY kind, match),
	w AS (SELECT match, kind, CASE WHEN z = n THEN 'on all ' || n || ' firmware, first at K = '
			|| CASE WHEN lo = hi THEN lo ELSE lo || '–' || hi END
		WHEN z = 0 THEN printf('on none of the %d firmware up to K = 16 (%.3g–%.3g per 1,000 '
			|| 'remain at K = 16)', n, r_lo, r_hi)
		ELSE 'on ' || z || ' of ' || n || ' firmware, first at K = '
			|| CASE WHEN lo = hi THEN lo ELSE lo || '–' || hi END
			|| ', but not on ' || never || ' up to K = 16' END AS txt FROM k)
	SELECT 'With sequence matching (' || (SELECT printf('%.3g–%.3g', min(p0), max(p0))
			FROM c_sum WHERE match = 'sequence' AND kind = 'sic')
		|| ' false positives per 1,000 interrupts without a counter), they reach zero with '
		|| '\`sic:K\` ' || (SELECT txt FROM w WHERE match = 'sequence' AND kind = 'sic')
		|| ', and with \`cycles:K\` '
		|| (SELECT txt FROM w WHERE match = 'sequence' AND kind = 'cycles')
		|| '.  With set matching (' || (SELECT printf('%.3g–%.3g', min(p0), max(p0)) FROM c_sum
			WHERE match = 'set' AND kind = 'sic')
		|| ' without a counter), they reach zero with \`sic:K\` '
		|| (SELECT txt FROM w WHERE match = 'set' AND kind = 'sic') || ', and with \`cycles:K\` '
		|| (SELECT txt FROM w WHERE match = 'set' AND kind = 'cycles') || '.'"
echo
q "SELECT printf('Each added counter bit divides the false positives by a median factor of %.2f '
	|| '(over the %d steps from K to K + 1 in the table''s series that end above zero); the '
	|| 'smallest factor, %.2f, is %s with %s, %s matching, from K = %d to %d.',
	(SELECT median FROM ($(median 'SELECT 1 AS g, factor AS x FROM c_step'))),
	(SELECT count(*) FROM c_step), factor, firmware, kind, match, bits, bits + 1)
	FROM c_step ORDER BY factor, firmware, kind, match, bits LIMIT 1"
echo
cat <<'TEXT'
On the device the two counters cost differently ([table1.md](table1.md)):
`cycles:K` is two `LDS` of Timer1 per interrupt, while `sic:K` needs the
firmware rewritten by `avrr instrument` (docs/tracer.md), an increment at
every counted transfer, 16 + 5 cycles per counter byte with interrupts on,
whose share of funcsheap's run table1.md measures.
TEXT
