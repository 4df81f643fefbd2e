"""Fig. 4: how often adcapp's code names each register, the ten most named
of each kind (fig4.csv, from avrr select)."""
from common import args, column, figure, rows, save

results, out = args()
fig = figure(1200, 500, "Fig. 4: how often adcapp names each register, the ten most "
             "named of each kind (avrr select)")
for ax, (kind, title) in zip(fig.subplots(1, 2), [("gp", "general-purpose registers"),
                                                  ("io", "I/O registers")]):
    rs = [r for r in rows(results, "fig4", kind=kind) if int(r["rank"]) <= 10]
    ax.bar(range(len(rs)), column(rs, "pct"), width=0.7, alpha=0.6)
    ax.set_xticks(range(len(rs)), [r["register"] for r in rs], rotation=45, ha="right")
    ax.set_title(title, fontsize=9)
    ax.set_ylabel("% of instructions")
    ax.grid(True, axis="y", alpha=0.3)
fig.tight_layout()
save(fig, out)
