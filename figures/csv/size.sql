-- results/size.csv (figures/figures.mk runs it on build/figures/figures.db).
SELECT firmware, text_bytes, interrupts, return_addresses,
		printf('%.1f', top10_pct) AS top10_ra_pct,
		printf('%.2f', input_dup_pct) AS input_duplicates_pct_paper_selector,
		hash_values_used AS hash_values_used_16bit,
		printf('%.4f', r1) AS false_ra_rel_ra1, printf('%.4f', r2) AS false_ra_rel_ra2,
		printf('%.4f', r4) AS false_ra_rel_ra4, printf('%.4f', r8) AS false_ra_rel_ra8,
		zero_from AS no_false_ra_from
	FROM size ORDER BY text_bytes;
