-- results/fig7.csv (figures/figures.mk runs it on build/figures/figures.db).
SELECT firmware, ra, false_ra,
		printf('%.4f', 1.0 * false_ra / max(false_ra) OVER (PARTITION BY firmware))
			AS relative_to_worst, byte_false_ra,
		printf('%.4f', 1.0 * byte_false_ra / max(byte_false_ra) OVER (PARTITION BY firmware))
			AS byte_relative_to_worst, interrupts,
		printf('%.3f', 1000.0 * false_ra / interrupts) AS per_1000,
		printf('%.3f', 1000.0 * byte_false_ra / interrupts) AS byte_per_1000
	FROM fig7 ORDER BY firmware, ra;
