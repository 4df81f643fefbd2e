"""Fig. 10: recorded fingerprints per hash value, the paper's selector
hashed to 16 bits (fig10.csv), one panel per firmware."""
from common import FIRMWARE, args, column, figure, rows, save

results, out = args()
fig = figure(1200, 800, "Fig. 10: recorded fingerprints per hash value, the paper's selector "
             "hashed to 16 bits (jenkins, no ra bits)")
axes = fig.subplots(3, 1)
for ax, fw in zip(axes, FIRMWARE):
    rs = rows(results, "fig10", firmware=fw)
    ax.vlines(column(rs, "value", int), 0, column(rs, "fingerprints", int))
    ax.set_xlim(0, 65535)
    ax.set_ylim(bottom=0)
    ax.set_title(fw, fontsize=9)
    ax.set_xlabel("hash value")
    ax.set_ylabel("fingerprints")
    ax.grid(True, alpha=0.3)
fig.tight_layout()
save(fig, out)
