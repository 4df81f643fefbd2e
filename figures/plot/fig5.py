"""Fig. 5: false input duplicates and all duplicate fingerprints against the
GP registers added to SPL+SPH+SREG+RA (fig5.csv)."""
from common import COLOURS, FIRMWARE, args, column, figure, rows, save

results, out = args()
fig = figure(960, 640, "Fig. 5: false input duplicates (solid) and all duplicate "
             "fingerprints (dashed) vs. GP registers (SPL+SPH+SREG+RA first)")
ax = fig.subplots()
for fw in FIRMWARE:
    rs = rows(results, "fig5", firmware=fw, series="gp")
    x = column(rs, "added", int)
    ax.plot(x, column(rs, "input_duplicates_pct"), "o-", color=COLOURS[fw], label=fw + ", input")
    ax.plot(x, column(rs, "total_duplicates_pct"), "--", color=COLOURS[fw], label=fw + ", all")
rs = rows(results, "fig5", series="gp+io")
ax.plot(column(rs, "added", int), column(rs, "input_duplicates_pct"), "o-", mfc="none",
        color="C3", label="funcsheap_noloop + TIFR, PINB, TCNT1L, TCNT1H")
ax.set_xlabel("GP registers added")
ax.set_ylabel("% of interrupts")
ax.set_ylim(0, 105)
ax.grid(True, alpha=0.3)
ax.legend(loc="center right", fontsize=8)
save(fig, out)
