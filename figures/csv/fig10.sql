-- results/fig10.csv (figures/figures.mk runs it on build/figures/figures.db).
SELECT firmware, value, fingerprints, fingerprints - 1 AS collisions FROM fig10
	ORDER BY firmware, value;
