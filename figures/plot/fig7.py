"""Fig. 7: false RA positives against the ra bits of a 16-bit fingerprint
(fig7.csv), as avrr measured them, on one scale for all three firmware:
per 1,000 recorded interrupts, log scale, none drawn on the line marked 0.

The paper draws each firmware as a fraction of its own worst and gives no
numbers (only the shape: a fall about as 1/x, no gain from the first bit of
a byte address), so no series here is the paper's: both are avrr's runs,
the return address reduced by word address (avrr's) and by byte address
(the paper's reduction, computed exactly from the same sweep)."""
from common import COLOURS, FIRMWARE, args, column, figure, rows, save

ZERO = 0.01  # where "no false RA positive" is drawn
results, out = args()
fig = figure(960, 640, "Fig. 7: false RA positives vs. ra bits of a 16-bit fingerprint, "
             "as avrr measured them\n(jenkins, the paper's selector, set matching).  Solid: "
             "ra from the word address (avrr's);\ndashed: from the byte address (the paper's "
             "reduction).  One log scale; none is drawn on the line marked 0.")
ax = fig.subplots()
for fw in FIRMWARE:
    rs = rows(results, "fig7", firmware=fw)
    x = column(rs, "ra", int)
    for col, style, what in [("per_1000", "o-", "word addresses"),
                             ("byte_per_1000", "o--", "byte addresses")]:
        y = [v if v > 0 else ZERO for v in column(rs, col)]
        ax.plot(x, y, style, color=COLOURS[fw], mfc="none" if "--" in style else None,
                label="%s, %s" % (fw, what))
ax.set_yscale("log")
ax.axhline(ZERO, ls=":", color="0.4")
ax.set_ylim(bottom=ZERO / 2)
top = ax.get_ylim()[1]
ticks = [t for t in ax.get_yticks() if ZERO < t <= top]
ax.set_yticks([ZERO] + ticks, ["0"] + ["%g" % t for t in ticks])
ax.set_ylim(ZERO / 2, top)
ax.set_xticks(range(0, 17, 2))
ax.set_xlabel("ra bits (of 16; the rest are hash bits)")
ax.set_ylabel("false RA positives per 1,000 recorded interrupts")
ax.grid(True, alpha=0.3)
ax.legend(fontsize=8)
save(fig, out)
