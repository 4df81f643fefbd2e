-- results/fig8.csv (figures/figures.mk runs it on build/figures/figures.db).
SELECT firmware, hash_bits, 16 - hash_bits AS ra, median AS median_per_value,
		printf('%.1f', 100.0 * median / max(median) OVER (PARTITION BY firmware))
			AS pct_of_worst, printf('%.3f', mean) AS mean_per_value,
		printf('%.1f', 100.0 * mean / max(mean) OVER (PARTITION BY firmware))
			AS mean_pct_of_worst, values_used, inputs AS distinct_state_ra_pairs
	FROM fig8 ORDER BY firmware, hash_bits;
