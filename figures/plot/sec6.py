"""Section 6: hash collisions against recorded fingerprints, with each
firmware's least-squares line (sec6.csv holds both)."""
from common import COLOURS, FIRMWARE, args, column, figure, rows, save

results, out = args()
fig = figure(960, 640, "Section 6: hash collisions vs. recorded fingerprints (sel=all, "
             "jenkins, 8 + 8 bits); lines: least squares (the paper: y = 0.75x − 1.51)")
ax = fig.subplots()
for fw in FIRMWARE:
    rs = rows(results, "sec6", firmware=fw)
    x = column(rs, "fingerprints", int)
    ax.plot(x, column(rs, "collisions", int), "o", ms=3, color=COLOURS[fw], label=fw)
    slope, icpt, r2 = (float(rs[0][k]) for k in ("slope", "intercept", "r2"))
    fit = [(a, b) for a, b in zip(x, column(rs, "fitted")) if b >= 0]
    ax.plot([a for a, _ in fit], [b for _, b in fit], "-", color=COLOURS[fw],
            label="%s: y = %.3fx %s %.1f (R² %.3f)" % (fw, slope, "−" if icpt < 0 else "+",
                                                        abs(icpt), r2))
ax.set_ylim(bottom=0)
ax.set_xlabel("recorded fingerprints")
ax.set_ylabel("collisions")
ax.grid(True, alpha=0.3)
ax.legend(loc="upper left", fontsize=8)
save(fig, out)
