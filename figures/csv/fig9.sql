-- results/fig9.csv (figures/figures.mk runs it on build/figures/figures.db).
SELECT firmware, selector, ra, hash_bits, width, false_loop, false_ra,
		false_loop + false_ra AS false_positives,
		printf('%.4f', 1.0 * (false_loop + false_ra) / interrupts) AS per_interrupt,
		input_duplicates, hash_collisions,
		printf('%.4f', 1.0 * input_duplicates / interrupts) AS input_dup_per_interrupt,
		printf('%.4f', 1.0 * hash_collisions / interrupts) AS collisions_per_interrupt
	FROM oracle WHERE match = 'set' ORDER BY firmware, selector DESC, width, ra;
