#!/usr/bin/env python3
"""layers.py — avrr's folder graph from its #includes, and the layering
rule docs/layout.md states, checked.

Usage: layers.py [ROOT] [-v]     (exit 1 when the rule is broken)

Reads every *.c and *.h under the project's source folders, resolves each
#include "..." as the compiler does (the including file's folder first, then
the root, which the Makefile passes as -I.), and draws an edge from the
includer's folder to the included file's folder.  Prints the edges, the
count of cycles in the folder graph (elementary cycles, and the strongly
connected components of more than one folder), and the count of includes
that go up a layer: from a folder to one in a later layer of LAYERS below
(or to a peer in its own), which is the layer order of README.md's Layout
section and docs/layout.md, lowest first.  Also counts
includes not written root-relative ("x/y.h" from the root) — the house's one
include style — those that name a folder outside LAYERS, simavr's headers
included outside sim/, and a folder's private headers (PRIVATE) included
from another folder.
"""
import os
import re
import subprocess
import sys
from collections import defaultdict

# Lowest first: a folder may include only its own files and those of the
# layers before it.  Folders in one layer are peers: neither may include
# the other (the two debugger front-ends).
LAYERS = [
    ["util"],
    ["session"],
    ["sim"],
    ["dwarf"],
    ["trace"],
    ["fingerprint"],
    ["db"],
    ["rerun"],
    ["recorder"],
    ["device"],
    ["replayer"],
    ["sweep"],
    ["analyze"],
    ["timeline"],
    ["report"],
    ["shell", "gdb"],
    ["cli"],
]
SKIP = {"tests", "bench", "scripts", "build", "build-san", "build-fuzz", "traces", "results",
        "docs", ".git"}
INCLUDE = re.compile(r'^\s*#\s*include\s+"([^"]+)"', re.M)
# The headers libsimavr-dev installs (sim_*.h, the avr_*.h peripherals,
# fifo_declare.h), in either include form.
SIMAVR = re.compile(r'^\s*#\s*include\s+[<"]((?:simavr/)?(?:sim_\w+|avr_(?:acomp|adc|bitbang|'
                    r'eeprom|extint|flash|ioport|lin|spi|timer|twi|uart|usb|watchdog)|'
                    r'fifo_declare)\.h)[>"]', re.M)
# Headers private to their folder: the inside of a type the folder's public
# header keeps opaque (struct sim's fields and the rules between them).
PRIVATE = {"sim/sim_impl.h"}


def sources(root):
    for top in sorted(os.listdir(root)):
        d = os.path.join(root, top)
        if top in SKIP or not os.path.isdir(d):
            continue
        for dirpath, _, files in os.walk(d):
            for f in sorted(files):
                if f.endswith((".c", ".h")):
                    yield os.path.relpath(os.path.join(dirpath, f), root)


def resolve(root, includer, name):
    """The included file's path from the root, and whether the include is
    written root-relative; None when it is not a project file."""
    here = os.path.dirname(includer)
    local = os.path.normpath(os.path.join(here, name))
    if os.path.exists(os.path.join(root, local)):
        # One style: the path from the root, even for a file beside the
        # includer ("shell/view.h", not "view.h").
        return local, local == name
    if os.path.exists(os.path.join(root, name)):
        return os.path.normpath(name), not name.startswith("../")
    return None, True  # generated (build/gen) or external


def folder(path):
    return path.split(os.sep)[0]


def cycles(graph):
    """Elementary cycles (Johnson's idea, by plain DFS: the graph is tiny)."""
    nodes = sorted(graph)
    found = []
    for i, start in enumerate(nodes):
        allowed = set(nodes[i:])
        stack = [(start, [start])]
        while stack:
            node, path = stack.pop()
            for nxt in sorted(graph.get(node, ())):
                if nxt == start:
                    found.append(path[:])
                elif nxt in allowed and nxt not in path:
                    stack.append((nxt, path + [nxt]))
    return found


def sccs(graph):
    index, low, on, st, out, n = {}, {}, set(), [], [], [0]

    def visit(v):
        index[v] = low[v] = n[0]
        n[0] += 1
        st.append(v)
        on.add(v)
        for w in graph.get(v, ()):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = st.pop()
                on.discard(w)
                comp.append(w)
                if w == v:
                    break
            out.append(sorted(comp))

    for v in sorted(graph):
        if v not in index:
            visit(v)
    return [c for c in out if len(c) > 1]


def mutual_calls(root):
    """Pairs of object files in one folder of build/ that each use a symbol
    the other defines (nm), or None without a build."""
    build = os.path.join(root, "build")
    objs = sorted(os.path.relpath(os.path.join(d, f), build)
                  for d, _, fs in os.walk(build) for f in fs if f.endswith(".o")
                  and os.path.relpath(d, build).split(os.sep)[0] in {x for l in LAYERS for x in l})
    if not objs:
        return None
    defined, used = {}, {}
    for o in objs:
        try:
            out = subprocess.run(["nm", os.path.join(build, o)], capture_output=True, text=True,
                                 check=True).stdout
        except (OSError, subprocess.CalledProcessError):
            return None
        defined[o] = {ln.split()[-1] for ln in out.splitlines() if re.match(r"\S+ [TDBR] ", ln)}
        used[o] = {ln.split()[-1] for ln in out.splitlines() if re.match(r"\s+U ", ln)}
    pairs = []
    for i, a in enumerate(objs):
        for b in objs[i + 1:]:
            if folder(a) == folder(b) and used[a] & defined[b] and used[b] & defined[a]:
                pairs.append((a[:-2], b[:-2], len(used[a] & defined[b]), len(used[b] & defined[a])))
    return pairs


def main():
    args = [a for a in sys.argv[1:] if not a.startswith("-")]
    verbose = "-v" in sys.argv
    root = args[0] if args else "."
    rank = {f: i for i, layer in enumerate(LAYERS) for f in layer}
    graph = defaultdict(set)
    edges = defaultdict(list)
    up, style, unknown, simavr, private = [], [], [], [], []
    module_deps = defaultdict(set)   # "shell/engine" -> {"shell/ui", ...}
    for src in sources(root):
        with open(os.path.join(root, src), encoding="utf-8", errors="replace") as fh:
            text = fh.read()
        if folder(src) != "sim":
            simavr += [f"{src}: <{h}>" for h in SIMAVR.findall(text)]
        for name in INCLUDE.findall(text):
            target, style_ok = resolve(root, src, name)
            if target is None:
                continue
            if not style_ok:
                style.append(f"{src}: \"{name}\"")
            a, b = folder(src), folder(target)
            if target in PRIVATE and a != b:
                private.append(f"{src} -> {target}")
            if a == b:
                mod, dep = os.path.splitext(src)[0], os.path.splitext(target)[0]
                if mod != dep:
                    module_deps[mod].add(dep)
                continue
            graph[a].add(b)
            graph.setdefault(b, set())
            edges[(a, b)].append(f"{src} -> {target}")
            if a not in rank or b not in rank:
                unknown.append(f"{src} -> {target}")
            elif rank[b] >= rank[a]:
                up.append(f"{src} -> {target}  ({a} is " +
                          ("a peer of" if rank[b] == rank[a] else "below") + f" {b})")
    cyc = cycles(graph)
    comps = sccs(graph)
    print(f"folders: {len(graph)}, folder edges: {sum(len(v) for v in graph.values())}, "
          f"includes across folders: {sum(len(v) for v in edges.values())}")
    if verbose:
        for (a, b) in sorted(edges):
            print(f"  {a} -> {b}  ({len(edges[(a, b)])})")
    print(f"cycles: {len(cyc)} (strongly connected groups of folders: {len(comps)})")
    for c in cyc[:20]:
        print("  cycle: " + " -> ".join(c + [c[0]]))
    for c in comps:
        print("  group: " + ", ".join(c))
    print(f"includes going up a layer (or across, between peers): {len(up)}")
    for u in up:
        print("  " + u)
    print(f"includes not root-relative (\"folder/file.h\"): {len(style)}")
    if verbose:
        for s in style:
            print("  " + s)
    print(f"includes from or to a folder outside the layer order: {len(unknown)}")
    for u in unknown:
        print("  " + u)
    print(f"simavr headers included outside sim/: {len(simavr)}")
    for u in simavr:
        print("  " + u)
    print(f"private headers included from outside their folder: {len(private)}")
    for u in private:
        print("  " + u)
    # a module with no .c (a header of types or shared state) calls
    # nothing: a circle needs code on both sides
    coded = {os.path.splitext(s)[0] for s in sources(root) if s.endswith(".c")}
    mutual = sorted({tuple(sorted((m, d))) for m, ds in module_deps.items() for d in ds
                     if m in module_deps.get(d, ()) and m in coded and d in coded})
    print(f"modules including each other within a folder: {len(mutual)}")
    for a, b in mutual:
        print(f"  {a} <-> {b}")
    calls = mutual_calls(root)
    if calls is not None:
        print(f"modules calling each other within a folder (nm on build/): {len(calls)}")
        for a, b, ab, ba in calls:
            print(f"  {a} <-> {b}  ({ab} names one way, {ba} the other)")
    # test_conventions runs this: any cycle, upward include, other include
    # style, unplaced folder, simavr header outside sim/ or private header
    # outside its folder breaks the house's layering; mutual modules are
    # counted, not yet refused
    sys.exit(1 if cyc or comps or up or style or unknown or simavr or private else 0)


if __name__ == "__main__":
    main()
