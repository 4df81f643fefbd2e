-- results/matching.csv (figures/figures.mk runs it on build/figures/figures.db).
SELECT firmware, ra, width, match, hits, false_loop, false_ra,
		false_loop + false_ra AS false_positives,
		printf('%.6f', 1.0 * (false_loop + false_ra) / interrupts) AS per_interrupt
	FROM oracle WHERE selector = 'default' AND width = 16 ORDER BY firmware, match DESC, ra;
