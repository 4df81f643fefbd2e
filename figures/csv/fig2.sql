-- results/fig2.csv (figures/figures.mk runs it on build/figures/figures.db).
SELECT firmware, ra, printf('0x%04x', ra) AS ra_hex, interrupts FROM fig2
	ORDER BY firmware, ra;
