# text/02-fig2.sh: results/README.md's section on Fig. 2, return-address clustering, from
# $F/figures.db (sourced by figures/text.sh, which defines q and val).
cat <<'TEXT'

## Fig. 2 — return-address clustering

Interrupts per return address, log scale (`fig2.png`).

| firmware | interrupts | return addresses | 10 busiest take | RAs for 90 % | busiest RA (interrupts) |
| --- | --- | --- | --- | --- | --- |
TEXT
q "SELECT printf('| %s | %d | %d | %.1f %% | %d | 0x%04x (%d) |', firmware, tot, n, top10, n90,
	top_ra, top_n) FROM fig2_sum ORDER BY firmware"
echo
q "SELECT 'The paper sees interrupts cluster around a few return addresses (8,500 interrupts of '
	|| 'FuncsHeap around two address ranges); here it '
	|| CASE WHEN min(top10) >= 50 THEN 'agrees for all three firmware'
		ELSE 'agrees where the 10 busiest return addresses take at least half of the '
		|| 'interrupts and differs elsewhere' END
	|| ': the 10 busiest take ' || group_concat(printf('%.0f %% (%s)', top10, firmware), ', ')
	|| '.' FROM fig2_sum"
echo
q "SELECT '**Verdict: ' || CASE WHEN min(top10) >= 50 THEN 'agrees.**'
	ELSE CASE WHEN max(top10) >= 50 THEN 'partly.**' ELSE 'differs.**' END
	|| printf(' Measured cause: funcsheap_noloop is funcsheap with its delay loop removed, '
		|| 'and its 10 busiest return addresses take %.0f %% of the interrupts against %.0f %% '
		|| 'with the loop: the clusters are where a firmware waits, and a firmware that waits '
		|| 'nowhere in particular has none.',
		max(CASE WHEN firmware = 'funcsheap_noloop' THEN top10 END),
		max(CASE WHEN firmware = 'funcsheap' THEN top10 END)) END FROM fig2_sum"

