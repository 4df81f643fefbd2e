# text/08-fig8.sh: results/README.md's section on Fig. 8, fingerprints per hash value vs. hash bits, from
# $F/figures.db (sourced by figures/text.sh, which defines q and val).
cat <<'TEXT'

## Fig. 8 — fingerprints per hash value vs. hash bits

16-bit jenkins fingerprints with the paper's selector, `ra` = 16 − hash bits:
the median number of recorded fingerprints per fingerprint value, in % of the
worst (`fig8.png`).  From 3 hash bits, as in the paper.

| firmware | b=3 | b=4 | b=6 | b=8 | b=12 | b=16 | median at b=3 and b=16 |
| --- | --- | --- | --- | --- | --- | --- | --- |
TEXT
q "SELECT printf('| %s | %.0f | %.0f | %.0f | %.0f | %.0f | %.0f | %g and %g |', firmware,
	max(CASE WHEN hash_bits = 3 THEN pct END), max(CASE WHEN hash_bits = 4 THEN pct END),
	max(CASE WHEN hash_bits = 6 THEN pct END), max(CASE WHEN hash_bits = 8 THEN pct END),
	max(CASE WHEN hash_bits = 12 THEN pct END), max(CASE WHEN hash_bits = 16 THEN pct END),
	max(CASE WHEN hash_bits = 3 THEN median END), max(CASE WHEN hash_bits = 16 THEN median END))
	FROM f8 GROUP BY firmware ORDER BY firmware"
echo
q "WITH s AS (SELECT firmware, max(CASE WHEN hash_bits = 16 THEN pct END) AS p16,
		max(CASE WHEN hash_bits = 3 THEN median END) AS m3 FROM f8 GROUP BY firmware)
	SELECT 'The paper sees the median fall steadily, about as 1/x, as hash bits grow; here it '
	|| CASE WHEN max(p16) <= 25 THEN 'agrees for all three'
		ELSE 'agrees where the median starts high ('
		|| group_concat(CASE WHEN p16 <= 25 THEN printf('%s: %g at 3 bits, %.0f %% of that at 16',
			firmware, m3, p16) END, '; ')
		|| ') and differs where most values hold one or two fingerprints from the start ('
		|| group_concat(CASE WHEN p16 > 25 THEN printf('%s: %g, then %.0f %%', firmware, m3, p16)
			END, '; ') || ')' END || '.' FROM s"
echo
q "WITH s AS (SELECT firmware, max(CASE WHEN hash_bits = 16 THEN pct END) AS p16 FROM f8
		GROUP BY firmware), r AS (SELECT firmware, count(DISTINCT ra) AS ras FROM fp
		WHERE name = 's6' GROUP BY firmware)
	SELECT printf('**Verdict: %s.** %d of 3 firmware fall to a quarter of the worst or below.',
		CASE sum(p16 <= 25) WHEN 3 THEN 'agrees' WHEN 0 THEN 'differs' ELSE 'partly' END,
		sum(p16 <= 25))
	|| ' Measured cause: at 3 hash bits the other 13 are return-address bits, and the '
	|| 'firmware with many return addresses (' || group_concat(CASE WHEN p16 > 25 THEN
		printf('%s: %d', firmware, ras) END, ', ') || ', against ' || group_concat(CASE WHEN
		p16 <= 25 THEN printf('%s: %d', firmware, ras) END, ', ') || ') already spread their '
	|| 'fingerprints over as many values as they ever will.' FROM s JOIN r USING (firmware)"
echo
# The mean per value: where it stops falling and why (fig8.csv's last two
# columns: values used, and the most a hash could use).
q "WITH m AS (SELECT firmware, hash_bits, mean, values_used, inputs,
		100.0 * mean / max(mean) OVER (PARTITION BY firmware) AS pct,
		-- rises: ends more than 5 % above its lowest
		(SELECT f.mean FROM fig8 f WHERE f.firmware = fig8.firmware AND f.hash_bits = 16) >
			1.05 * min(mean) OVER (PARTITION BY firmware) AS up
		FROM fig8),
	lo AS (SELECT firmware, hash_bits AS b, pct, values_used, inputs FROM m m1
		WHERE mean = (SELECT min(mean) FROM m m2 WHERE m2.firmware = m1.firmware)),
	hi AS (SELECT firmware, pct, values_used, inputs FROM m WHERE hash_bits = 16),
	s AS (SELECT firmware, max(up) AS rises FROM m GROUP BY firmware)
	SELECT 'The mean per value (solid in the plot) does not fall steadily either: it falls '
	|| 'to its end (within 5 % of its lowest) only for '
	|| coalesce((SELECT group_concat(printf('%s (%.1f %% of the worst at b=16)',
		firmware, hi.pct), ', ') FROM s JOIN hi USING (firmware) WHERE rises = 0), 'none')
	|| ', but ' || (SELECT group_concat(printf('%s falls to %.1f %% at b=%d and rises to %.1f %% '
		|| 'at b=16', firmware, lo.pct, lo.b, hi.pct), ', and ') FROM s JOIN lo USING (firmware)
		JOIN hi USING (firmware) WHERE rises > 0)
	|| '.  Measured cause of the rise: the mean is the fingerprints over the values used, and '
	|| 'a hash can use no more values than there are distinct pairs of selector state and ra '
	|| 'prefix (\`distinct_state_ra_pairs\` in \`fig8.csv\`); once the hash bits separate '
	|| 'every state, each ra bit handed to the hash only merges pairs: '
	|| (SELECT group_concat(printf('%s %d pairs (%d values used) at b=%d, %d (%d) at b=16',
		firmware, lo.inputs, lo.values_used, lo.b, hi.inputs, hi.values_used), '; ')
		FROM s JOIN lo USING (firmware) JOIN hi USING (firmware) WHERE rises > 0)
	|| '.'"

