-- results/fig5.csv (figures/figures.mk runs it on build/figures/figures.db).
SELECT firmware, series, x AS added, selector, interrupts,
		dup_with_ra AS input_duplicates,
		printf('%.2f', 100.0 * dup_with_ra / interrupts) AS input_duplicates_pct,
		printf('%.2f', 100.0 * dup_without_ra / interrupts) AS without_ra_pct,
		printf('%.2f', 100.0 * dup_total / interrupts) AS total_duplicates_pct
	FROM fig5 ORDER BY firmware, instr('gp gp+io default+io', series), x;
