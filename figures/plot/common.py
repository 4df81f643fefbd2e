"""common.py: what every plot step shares.

Each plot is `python3 figures/plot/NAME.py RESULTS OUT.png`: it reads
RESULTS/NAME.csv (and any other CSV it names) and draws OUT.png with
matplotlib.  Nothing here computes a number the CSVs do not hold.
"""
import csv
import os
import sys

import matplotlib

matplotlib.use("Agg")  # no display: files only
import matplotlib.pyplot as plt  # noqa: E402

FIRMWARE = ["adcapp", "funcsheap", "funcsheap_noloop"]
COLOURS = {fw: "C%d" % i for i, fw in enumerate(FIRMWARE)}


def args():
    """The results directory and the PNG to write, from the command line."""
    if len(sys.argv) != 3:
        sys.exit("usage: %s RESULTS OUT.png" % sys.argv[0])
    return sys.argv[1], sys.argv[2]


def rows(results, name, **where):
    """RESULTS/NAME.csv as a list of dicts, keeping rows whose columns
    equal the given values."""
    with open(os.path.join(results, name + ".csv"), newline="") as f:
        return [r for r in csv.DictReader(f)
                if all(r[k] == v for k, v in where.items())]


def column(rs, name, kind=float):
    return [kind(r[name]) for r in rs]


def figure(width, height, title):
    """A figure of WIDTH x HEIGHT pixels (at 100 dpi) with a title."""
    fig = plt.figure(figsize=(width / 100, height / 100), dpi=100)
    fig.suptitle(title, fontsize=10)
    return fig


def save(fig, out):
    fig.savefig(out, dpi=100, format="png")
    plt.close(fig)
