-- results/sec6.csv (figures/figures.mk runs it on build/figures/figures.db).
SELECT s.firmware, fingerprints, collisions,
		printf('%.2f', slope * fingerprints + intercept) AS fitted,
		printf('%.4f', slope) AS slope, printf('%.2f', intercept) AS intercept,
		printf('%.4f', r2) AS r2
	FROM sec6 s JOIN sec6_fit f USING (firmware) ORDER BY s.firmware, fingerprints;
