-- results/fig4_tasks.csv (figures/figures.mk runs it on build/figures/figures.db).
SELECT firmware, instructions, io_named AS io_registers_named, register, rank AS io_rank,
		uses FROM fig4t ORDER BY instr('adcapp funcsheap funcsheap_noloop adcapp_tasks',
		firmware), firmware, register DESC;
