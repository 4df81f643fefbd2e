-- results/fig6.csv (figures/figures.mk runs it on build/figures/figures.db).
SELECT firmware, selector, hash, ra, x AS hash_bits, median_dup AS median_collisions
	FROM info JOIN catalog USING (firmware, name) WHERE figure = 'fig6'
	ORDER BY firmware, selector, hash, hash_bits;
