-- results/counters.csv (figures/figures.mk runs it on build/figures/figures.db).
SELECT firmware, kind, match, bits, false_positives, interrupts,
		printf('%.3f', 1000.0 * false_positives / interrupts) AS per_1000
	FROM counters ORDER BY firmware, kind DESC, match DESC, bits;
