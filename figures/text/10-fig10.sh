# text/10-fig10.sh: results/README.md's section on Fig. 10, use of the hash space, from
# $F/figures.db (sourced by figures/text.sh, which defines q and val).
cat <<'TEXT'

## Fig. 10 — use of the hash space

The paper's selector hashed to all 16 bits (jenkins, no return-address
bits): recorded fingerprints per hash value (`fig10.png`, `fig10.csv`; the
table is `fig10_states.csv`).

| firmware | fingerprints | distinct selector states | hash values used | of 65,536 | most on one value |
| --- | --- | --- | --- | --- | --- |
TEXT
q "SELECT printf('| %s | %d | %d | %d | %.3f %% | %d |', f.firmware, sum(fingerprints),
	(SELECT count(DISTINCT input_key) FROM fp WHERE name = 'f10' AND fp.firmware = f.firmware),
	count(*), 100.0 * count(*) / 65536, max(fingerprints)) FROM fig10 f GROUP BY f.firmware
	ORDER BY f.firmware"
echo
q "WITH u AS (SELECT firmware, 100.0 * count(*) / 65536 AS used FROM fig10 GROUP BY firmware),
	s AS (SELECT max(CASE WHEN firmware = 'funcsheap' THEN used END) AS loop,
		max(CASE WHEN firmware = 'funcsheap_noloop' THEN used END) AS noloop FROM u),
	k AS (SELECT firmware, count(DISTINCT input_key) AS states FROM fp WHERE name = 'f10'
		GROUP BY firmware)
	SELECT printf('The paper''s Jenkins hash uses 0.7 %% of the 16-bit space after 10,000 '
		|| 'fingerprints of FuncsHeap with its loop and 0.05 %% without; here %.3f %% and %.3f %%. '
		|| '**Verdict: %s.** (Agrees if both are within 2x of the paper''s, partly if one is '
		|| 'or the firmware with the loop uses more of the space, as in the paper.)  Measured '
		|| 'cause: a hash can use no more values than there are distinct selector states, and '
		|| 'there are %s.', loop, noloop,
		CASE WHEN loop BETWEEN 0.35 AND 1.4 AND noloop BETWEEN 0.025 AND 0.1 THEN 'agrees'
			WHEN (loop > noloop) = 1 OR loop BETWEEN 0.35 AND 1.4
				OR noloop BETWEEN 0.025 AND 0.1 THEN 'partly' ELSE 'differs' END,
		(SELECT group_concat(printf('%d in %s', states, firmware), ', ') FROM k))
	FROM s"

