-- results/fig5_single.csv (figures/figures.mk runs it on build/figures/figures.db).
SELECT firmware, rank AS frequency_rank, register, interrupts,
		dup AS input_duplicates, printf('%.2f', 100.0 * dup / interrupts) AS input_duplicates_pct
	FROM fig5s ORDER BY firmware, rank;
