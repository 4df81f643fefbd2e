-- results/fig6_values.csv (figures/figures.mk runs it on build/figures/figures.db).
SELECT firmware, 'SPL+SPH+SREG' AS selector, hash, 4 AS ra, hash_bits, values_used,
		inputs AS distinct_state_ra_pairs FROM fig6v ORDER BY firmware, hash, hash_bits;
