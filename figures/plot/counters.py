"""Counters: false positives per 1,000 interrupts against K counter bits,
sic and cycles, set and sequence matching (counters.csv).  Log scale; no
false positive at all is drawn on the line marked 0."""
from common import FIRMWARE, args, column, figure, rows, save

ZERO = 0.001  # where "no false positive" is drawn
results, out = args()
fig = figure(960, 640, "Counters: false positives per 1,000 interrupts vs. counter bits K "
             "(the paper's selector, jenkins, 8 ra + K counter + 8 hash bits).\nLog scale; no "
             "false positive at all is drawn on the line marked 0. Solid: set matching; "
             "dashed: sequence matching.")
ticks = [ZERO, 0.01, 0.1, 1, 10, 100, 1000, 10000, 100000, 1000000]
labels = ["0", "0.01", "0.1", "1", "10", "100", "1k", "10k", "100k", "1M"]
for ax, fw in zip(fig.subplots(1, 3), FIRMWARE):
    for kind, colour in [("sic", "C0"), ("cycles", "C1")]:
        for match, style in [("set", "o-"), ("sequence", "o--")]:
            rs = rows(results, "counters", firmware=fw, kind=kind, match=match)
            y = [v if v > 0 else ZERO for v in column(rs, "per_1000")]
            ax.plot(column(rs, "bits", int), y, style, ms=3, color=colour,
                    mfc="none" if match == "sequence" else None,
                    label="%s, %s" % (kind, match))
    ax.set_yscale("log")
    ax.set_ylim(0.0005, 3000000)
    ax.set_yticks(ticks, labels)
    ax.axhline(0.0032, ls=":", color="0.4")  # parts the 0 line from the rest
    ax.set_xlim(0, 16)
    ax.set_xticks(range(0, 17, 2))
    ax.set_title(fw, fontsize=9)
    ax.set_xlabel("counter bits K (0: no counter)")
    ax.set_ylabel("false positives per 1,000 interrupts")
    ax.grid(True, alpha=0.3)
    ax.legend(loc="lower left", bbox_to_anchor=(0, 0.12), fontsize=7)  # above the 0 line
fig.tight_layout()
save(fig, out)
