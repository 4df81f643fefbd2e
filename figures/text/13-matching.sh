# text/13-matching.sh: results/README.md's section on beyond the paper: set vs. sequence matching, from
# $F/figures.db (sourced by figures/text.sh, which defines q and val).
cat <<'TEXT'

## Beyond the paper — set vs. sequence matching

The same oracle configurations (16 bits, jenkins, the paper's selector) with
`--match sequence`, which the paper's replay cannot do: a hit counts only if
it is one of the next expected interrupts in happens-before order
(`matching.png`, `matching.csv`).  False positives per recorded interrupt:

| firmware | set, 8/8 | sequence, 8/8 | set / sequence | sequence at its best split |
| --- | --- | --- | --- | --- |
TEXT
q "SELECT printf('| %s | %.1f | %.2f | %.0fx | %.3f (ra=%d) |', m.firmware, m.set_per, m.seq_per,
	m.set_per / m.seq_per, b.per, b.ra) FROM m_sum m
	JOIN (SELECT firmware, ra, min(seq_per) AS per FROM m_sum GROUP BY firmware) b
	USING (firmware) WHERE m.ra = 8 ORDER BY m.firmware"
echo
q "SELECT 'The paper has no counterpart (its replay matches against the whole set); here '
	|| printf('sequence-aware matching makes %.0f-%.0fx fewer false positives than set '
		|| 'matching at the 8/8 split and %.0f-%.0fx over all 16-bit splits.',
		min(CASE WHEN ra = 8 THEN set_per / seq_per END),
		max(CASE WHEN ra = 8 THEN set_per / seq_per END),
		min(set_per / seq_per), max(set_per / seq_per)) FROM m_sum"

