"""Beyond the paper: false positives per recorded interrupt, set against
sequence matching, along the 16-bit line (matching.csv)."""
from common import COLOURS, FIRMWARE, args, column, figure, rows, save

results, out = args()
fig = figure(960, 640, "Beyond the paper: false positives per recorded interrupt, set "
             "(solid) vs. sequence (dashed) matching, 16 bits")
ax = fig.subplots()
for fw in FIRMWARE:
    for match, style in [("set", "o-"), ("sequence", "o--")]:
        rs = rows(results, "matching", firmware=fw, match=match)
        ax.plot(column(rs, "ra", int), column(rs, "per_interrupt"), style, ms=4,
                color=COLOURS[fw], label="%s %s" % (fw, match))
ax.set_yscale("log")
ax.set_ylim(0.05, 100000)
ax.set_xlabel("ra bits")
ax.set_ylabel("false positives per recorded interrupt")
ax.grid(True, alpha=0.3)
ax.legend(fontsize=8)
save(fig, out)
