"""Fig. 8: recorded fingerprints per fingerprint value against hash bits,
mean and median, in % of each firmware's worst (fig8.csv), as the paper."""
from common import COLOURS, FIRMWARE, args, column, figure, rows, save

results, out = args()
fig = figure(960, 640, "Fig. 8: recorded fingerprints per fingerprint value vs. hash bits "
             "(16 bits, jenkins, the paper's selector)\nsolid: mean; dashed: median "
             "(whole numbers, so it steps)")
ax = fig.subplots()
for fw in FIRMWARE:
    rs = rows(results, "fig8", firmware=fw)
    x = column(rs, "hash_bits", int)
    ax.plot(x, column(rs, "mean_pct_of_worst"), "o-", color=COLOURS[fw], label=fw + ", mean")
    ax.plot(x, column(rs, "pct_of_worst"), "--", color=COLOURS[fw], label=fw + ", median")
ax.set_xlabel("hash bits (ra = 16 - hash bits)")
ax.set_ylabel("per value (% of the worst)")
ax.grid(True, alpha=0.3)
ax.legend(fontsize=8)
save(fig, out)
