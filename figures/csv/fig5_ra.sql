-- results/fig5_ra.csv (figures/figures.mk runs it on build/figures/figures.db).
SELECT firmware, printf('0x%04x', ra) AS ra, interrupts, states_x0, states_x1,
		states_x2 FROM fig5ra WHERE rk <= 5 ORDER BY firmware, rk;
