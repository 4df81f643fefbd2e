#!/usr/bin/env python3
# fingerprints-table.py — writes the rows of docs/fingerprints.md's table of
# configurations ("The default configuration") from runs of avrr, so that
# the table is regenerated rather than edited when the simulation changes.
#
# Usage: fingerprints-table.py [AVRR] [DIR]    (from the repository's root;
# AVRR defaults to ./avrr, DIR, where the recordings go, to a temporary one)
# Prints the table, header included, on stdout: a few minutes' work.

import json
import os
import subprocess
import sys
import tempfile

OLD = "SPL+SPH+SREG+r24+r25+r31"
# (label, spec): the table's rows, in its order.
ROWS = [
    ("old: `%s,ra=8,width=16`" % OLD, "sel=%s,ra=8,width=16" % OLD),
    ("old `+cycles:8`, width 24", "sel=%s+cycles:8,ra=8,width=24" % OLD),
    ("old `+cycles:16`, width 32", "sel=%s+cycles:16,ra=8,width=32" % OLD),
    ("old `+sic:8`, width 24", "sel=%s+sic:8,ra=8,width=24" % OLD),
    ("old `+sic:16`, width 32", "sel=%s+sic:16,ra=8,width=32" % OLD),
    ("`cycles:16,ra=0,width=16`", "sel=cycles:16,ra=0,width=16"),
    ("`cycles:12,ra=8,width=20`", "sel=cycles:12,ra=8,width=20"),
    ("`cycles:16,ra=8,width=24` (the previous default)", "sel=cycles:16,ra=8,width=24"),
    ("`cycles:16,ra=16,width=32`", "sel=cycles:16,ra=16,width=32"),
    ("`sic:10,ra=8,width=18`", "sel=sic:10,ra=8,width=18"),
    ("`sic:16,ra=8,width=24`", "sel=sic:16,ra=8,width=24"),
    ("`sic:24,ra=8,width=32`", "sel=sic:24,ra=8,width=32"),
    ("`cycles:24,ra=8,width=32`", "sel=cycles:24,ra=8,width=32"),
    ("`cycles:28,ra=4,width=32`", "sel=cycles:28,ra=4,width=32"),
    ("**`cycles:32,ra=0,width=32`** (default)", "sel=cycles:32,ra=0,width=32"),
]
BUNDLED = ["adcapp", "funcsheap", "funcsheap_noloop"]
# The busy firmware: a press every 100 ms for 10^8 instructions, and two
# presses 10 s apart (2.6x10^8 cycles at 20 MHz).
BUSY = [("int0_busy", "--instructions", "100M"), ("int0_slow", "--cycles", "260M")]


def avrr(*args):
    p = subprocess.run([AVRR] + list(args), stdout=subprocess.PIPE)
    if p.returncode not in (0, 1):
        sys.exit("fingerprints-table: avrr %s: exit status %d" % (" ".join(args), p.returncode))
    return json.loads(p.stdout)


def fps():
    out = []
    for i, (_, spec) in enumerate(ROWS):
        out += ["--fp", "c%d:%s" % (i, spec)]
    return out


def false_positives(db, match):
    o = avrr("replay", db, "--oracle", "--match", match, "--json", *fps())
    return [c["false_loop"] + c["false_ra"] for c in o["configs"]]


def main():
    os.makedirs(DIR, exist_ok=True)
    dev, fset, fseq, fbusy = {}, {}, {}, {}
    for fw in BUNDLED:
        db = os.path.join(DIR, fw + ".db")
        info = avrr("record", "traces/%s.elf" % fw, "--stimuli", "traces/%s.stim" % fw,
                    "--seed", "1", "--quiet", "--force", "--json", "-o", db, *fps())
        dev[fw] = [c["device"] for c in info["fingerprint_configs"]]
        fset[fw] = false_positives(db, "set")
        fseq[fw] = false_positives(db, "sequence")
    for fw, stop, n in BUSY:
        db = os.path.join(DIR, fw + ".db")
        avrr("record", "tests/firmware/%s.elf" % fw, "--stimuli", "tests/firmware/%s.stim" % fw,
             stop, n, "--fp", "none", "--quiet", "--force", "--json", "-o", db)
        fbusy[fw] = false_positives(db, "sequence")
    print("| configuration | bits | cycles per interrupt | per counted transfer | per timer "
          "overflow | device overhead, % (adcapp / funcsheap / noloop) | false positives, "
          "set (bundled) | false positives, sequence (bundled) | false positives, sequence "
          "(int0_busy / int0_slow) |")
    print("| --- | --- | --- | --- | --- | --- | --- | --- | --- |")
    for i, (label, _) in enumerate(ROWS):
        d = dev["adcapp"][i]
        print("| %s | %d | %d | %d | %d | %s | %s | %s | %s |" % (
            label, d["bits"], d["cycles_per_interrupt"], d["cycles_per_transfer"],
            d["cycles_per_overflow"],
            " / ".join("%.2f" % dev[fw][i]["overhead_pct"] for fw in BUNDLED),
            " / ".join(str(fset[fw][i]) for fw in BUNDLED),
            " / ".join(str(fseq[fw][i]) for fw in BUNDLED),
            " / ".join(str(fbusy[fw][i]) for fw, _, _ in BUSY)))


if __name__ == "__main__":
    AVRR = os.path.abspath(sys.argv[1] if len(sys.argv) > 1 else "./avrr")
    DIR = sys.argv[2] if len(sys.argv) > 2 else tempfile.mkdtemp(prefix="avrr-fptable.")
    main()
