# text/09-fig9.sh: results/README.md's section on Fig. 9, the ra/hash design space, from
# $F/figures.db (sourced by figures/text.sh, which defines q and val).
cat <<'TEXT'

## Fig. 9 — the ra/hash design space

Oracle, set matching, jenkins: false positives (loop + RA) per recorded
interrupt (`fig9.png`).  Rows 1 and 2: every split of every width from 4 to
16 bits with the paper's selector, split by cause — false input duplicates
(the selected bytes and return address equal a recorded interrupt's) and
hash collisions — on a log colour scale (the dashed line is 16 bits).  Row
3: the 16-bit line, with the paper's selector (all causes, and each) and
with the whole context (`all`), whose false positives are hash collisions
only.  Along the 16-bit line:

| firmware | selector | best split (ra/hash) | at best | at 8/8 | 8/8 / best | at 0/16 | at 16/0 |
| --- | --- | --- | --- | --- | --- | --- | --- |
TEXT
q "SELECT printf('| %s | %s | %d/%d | %.2f | %.2f | %.2fx | %.2f | %.2f |', firmware, selector,
	best_ra, 16 - best_ra, best, even, even / best, ra0, ra16) FROM f9_sum
	ORDER BY firmware, selector DESC"
echo
q "SELECT 'The paper finds a valley — both extremes (all bits to the return address, or '
	|| 'all to the hash) far worse than a middle that is nearly flat — and advises an even split. '
	|| 'A valley here means the best split is inside (2-14 ra bits) and both extremes have at '
	|| 'least twice its false positives: '
	|| group_concat(printf('%s: %s (best %d/%d; 0/16 at %.2fx and 16/0 at %.2fx the best; 8/8 '
		|| 'at %.2fx)', firmware || CASE WHEN selector = 'all' THEN ' with all' ELSE '' END,
		CASE WHEN best_ra BETWEEN 2 AND 14 AND min(ra0, ra16) >= 2 * best THEN 'a valley'
			ELSE 'no valley' END, best_ra, 16 - best_ra, ra0 / best, ra16 / best,
		even / best), '; ') || '.' FROM (SELECT * FROM f9_sum ORDER BY firmware, selector DESC)"
echo
q "WITH v AS (SELECT sum(best_ra BETWEEN 2 AND 14 AND min(ra0, ra16) >= 2 * best) AS n
		FROM f9_sum WHERE selector = 'default'),
	c AS (SELECT min(100.0 * input_duplicates / (false_loop + false_ra)) AS lo,
		max(100.0 * input_duplicates / (false_loop + false_ra)) AS hi FROM oracle
		WHERE selector = 'default' AND match = 'set' AND width = 16 AND ra = 8)
	SELECT printf('**Verdict: %s.** %d of 3 firmware show the valley with the paper''s selector. '
		|| 'Measured cause: at 8/8, %.1f-%.1f %% of the false positives are input duplicates '
		|| '(split by cause in the plot): states whose selected bytes and return address equal '
		|| 'a recorded interrupt''s, which no split of the bits can tell apart, so the line is '
		|| 'flat where they dominate; with the whole context (all), which has none, only hash '
		|| 'collisions remain and the best split is %s — every return-address bit is a hash '
		|| 'bit lost, for the return address is already in the context.',
		CASE n WHEN 3 THEN 'agrees' WHEN 0 THEN 'differs' ELSE 'partly' END, n, lo, hi,
		(SELECT group_concat(printf('%d/%d (%s)', best_ra, 16 - best_ra, firmware), ', ')
			FROM f9_sum WHERE selector = 'all')) FROM v, c"

