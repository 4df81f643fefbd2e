"""Fig. 9: false positives per recorded interrupt over the ra/hash design
space, split by cause (fig9.csv).  Rows 1-2: every split of 4-16 bits with
the paper's selector, coloured by log10; row 3: the 16-bit line."""
import math

from matplotlib.colors import LinearSegmentedColormap

from common import FIRMWARE, args, column, figure, rows, save

results, out = args()
fig = figure(1350, 1200, "Fig. 9: false positives per recorded interrupt, jenkins, set "
             "matching, by cause.  Rows 1-2: every split of 4-16 bits with the paper's "
             "selector\n(colour: log10 of false positives per interrupt; the dashed line is "
             "16 bits).  Row 3: the 16-bit line, with the paper's selector and with the "
             "whole context (all).")
axes = fig.subplots(3, 3)
cmap = LinearSegmentedColormap.from_list("heat", ["white", "yellow", "orange", "red", "black"])
for row, (col, what) in zip(axes, [("input_dup_per_interrupt", "input duplicates"),
                                   ("collisions_per_interrupt", "hash collisions")]):
    for ax, fw in zip(row, FIRMWARE):
        rs = rows(results, "fig9", firmware=fw, selector="default")
        c = [math.log10(v + 0.0001) for v in column(rs, col)]
        sc = ax.scatter(column(rs, "ra", int), column(rs, "hash_bits", int), c=c, cmap=cmap,
                        vmin=-4, vmax=4, marker="s", s=60)
        ax.plot([0, 16], [16, 0], "k--", lw=1)
        ax.set_xlim(-1, 17)
        ax.set_ylim(-1, 17)
        ax.set_title("%s: %s" % (fw, what), fontsize=9)
        ax.set_xlabel("ra bits")
        ax.set_ylabel("hash bits")
        fig.colorbar(sc, ax=ax, label="log10 false positives per interrupt")
for ax, fw in zip(axes[2], FIRMWARE):
    rs = [r for r in rows(results, "fig9", firmware=fw, selector="default") if r["width"] == "16"]
    x = column(rs, "ra", int)
    ax.plot(x, column(rs, "per_interrupt"), "o-", color="C0", label="paper's: all causes")
    ax.plot(x, column(rs, "input_dup_per_interrupt"), "--", color="C0",
            label="paper's: input duplicates")
    ax.plot(x, column(rs, "collisions_per_interrupt"), ":", color="C0",
            label="paper's: hash collisions")
    rs = rows(results, "fig9", firmware=fw, selector="all")
    ax.plot(column(rs, "ra", int), column(rs, "per_interrupt"), "o-", color="C1",
            label="all (collisions only)")
    ax.set_yscale("log")
    ax.set_ylim(bottom=0.0001)
    ax.set_xlim(-1, 17)
    ax.set_title(fw + ", 16 bits", fontsize=9)
    ax.set_xlabel("ra bits")
    ax.set_ylabel("false positives per interrupt")
    ax.grid(True, alpha=0.3)
    ax.legend(loc="lower right", fontsize=7)
fig.tight_layout()
save(fig, out)
