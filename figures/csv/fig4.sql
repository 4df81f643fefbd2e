-- results/fig4.csv (figures/figures.mk runs it on build/figures/figures.db).
SELECT kind, rank, register, uses, printf('%.2f', pct) AS pct FROM fig4
	ORDER BY kind, rank;
