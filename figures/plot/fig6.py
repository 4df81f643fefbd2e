"""Fig. 6: median collisions per ra prefix (4 ra bits) against hash bits,
for each hash and two selectors (fig6.csv).  Log scale; a median of 0 is
drawn on the dotted line marked 0, below every other value."""
from common import FIRMWARE, args, column, figure, rows, save

ZERO = 0.1  # where a median of 0 is drawn
results, out = args()
fig = figure(1200, 800, "Fig. 6: median collisions per ra prefix (4 ra bits) vs. hash bits; "
             "rr: round-robin by 128-byte blocks, rrc: by code clusters.\nNone (0) is drawn "
             "on the dotted line, below every other value.")
axes = fig.subplots(2, 3)
for row, sel in zip(axes, ["all", "SPL+SPH+SREG"]):
    for ax, fw in zip(row, FIRMWARE):
        for i, h in enumerate(["modular", "twomod", "jenkins", "knuth", "rr", "rrc"]):
            rs = rows(results, "fig6", firmware=fw, selector=sel, hash=h)
            y = [m if m > 0 else ZERO for m in column(rs, "median_collisions")]
            ax.plot(column(rs, "hash_bits", int), y, "o-", ms=3, color="C%d" % i, label=h)
        ax.set_yscale("log")
        ax.set_ylim(bottom=0.07)
        ax.axhline(ZERO, ls=":", color="0.4")
        top = ax.get_ylim()[1]
        ticks = [t for t in ax.get_yticks() if ZERO < t <= top]
        ax.set_yticks([ZERO] + ticks, ["0"] + ["%g" % t for t in ticks])
        ax.set_ylim(0.07, top)
        ax.set_xticks(range(2, 17, 2))
        ax.set_title("%s, selector %s" % (fw, sel), fontsize=9)
        ax.set_xlabel("hash bits")
        ax.set_ylabel("median collisions")
        ax.grid(True, alpha=0.3)
        ax.legend(fontsize=7)
fig.tight_layout()
save(fig, out)
