"""Fig. 2: interrupts per return address, one panel per firmware (fig2.csv)."""
from common import FIRMWARE, args, column, figure, rows, save

results, out = args()
fig = figure(960, 640, "Fig. 2: interrupts per return address (10M instructions each)")
axes = fig.subplots(3, 1)
for ax, fw in zip(axes, FIRMWARE):
    rs = rows(results, "fig2", firmware=fw)
    ax.vlines(column(rs, "ra", int), 1, column(rs, "interrupts", int), lw=2)
    ax.set_yscale("log")
    ax.set_title(fw, fontsize=9)
    ax.set_ylabel("interrupts")
    ax.xaxis.set_major_formatter(lambda x, _: "0x%04x" % int(x))
    ax.grid(True, alpha=0.3)
axes[-1].set_xlabel("return address (byte)")
fig.tight_layout()
save(fig, out)
