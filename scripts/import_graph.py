#!/usr/bin/env python3
"""The import graph of a Rust crate with folders as nodes.

Usage: scripts/import_graph.py [SRC_DIR]      (default: src)

Reads the `crate::…`, `super::…` and `self::…` paths of every .rs file (and
bare paths into a child module, as `power::Power` inside algo/mod.rs), the
same way ../shared/tools/import-circles does, but merges the files of one
folder into one node: `algo/core`, `kernel`, `tui/panes`, …; a file directly
in SRC_DIR is its own node (`error`, `linalg`, `lib`). Test modules
(`#[cfg(test)]` and below) and comments are ignored.

Prints every folder → folder edge with the number of distinct names used
and the layers of both ends, the edges that point up the layer order,
then the circles between folders (strongly connected components), or
"no circle". The order is the one tests/layers.rs checks (its LAYERS
table, read from there: faces over the session over the families over
kernels and data over the solver core over the ground). Exit status 1
when an edge points up or there is a circle.
"""
import os
import re
import sys
from collections import defaultdict

src = os.path.abspath(sys.argv[1] if len(sys.argv) > 1 else "src")
files = {}
for d, _, fs in os.walk(src):
    for f in fs:
        if f.endswith(".rs"):
            p = os.path.join(d, f)
            rel = os.path.relpath(p, src)[:-3].split(os.sep)
            if rel[-1] == "mod":
                rel = rel[:-1]
            if rel in (["lib"], ["main"]):
                rel = []
            # main.rs and lib.rs both are the crate root here.
            if tuple(rel) in files and rel == []:
                continue
            files[tuple(rel)] = p


def node(mod):
    """The folder node of a module: its directory below SRC_DIR, or the file."""
    rel = os.path.relpath(files[mod], src)
    d = os.path.dirname(rel)
    if d:
        return d.replace(os.sep, "/")
    return rel[:-3]


def resolve(mod, path):
    segs = list(path)
    if not segs:
        return None
    if segs[0] == "crate":
        base, segs = [], segs[1:]
    elif segs[0] in ("super", "self"):
        base = list(mod)
        while segs and segs[0] in ("super", "self"):
            if segs[0] == "super":
                base = base[:-1]
            segs = segs[1:]
    else:
        return None
    best = None
    for i in range(len(segs) + 1):
        cand = tuple(base + segs[:i])
        if cand in files:
            best = cand
    return best


tok = re.compile(r"\b((?:crate|super|self)(?:::[A-Za-z_][A-Za-z0-9_]*)+)(::\{([^}]*)\})?")
edges = defaultdict(lambda: defaultdict(set))
for mod, p in files.items():
    text = open(p, encoding="utf-8", errors="replace").read()
    text = re.sub(r"//[^\n]*", "", text)
    test_at = re.search(r"#\[cfg\(test\)\]", text)
    if test_at:
        text = text[: test_at.start()]
    found = []
    for m in tok.finditer(text):
        head = m.group(1).split("::")
        groups = [g.strip() for g in (m.group(3) or "").split(",") if g.strip()] or [""]
        for g in groups:
            path = head + ([s for s in g.split("::") if s and s != "self" and not s.startswith("*")] if g else [])
            path = [re.sub(r"\s+as\s+.*$", "", s) for s in path]
            found.append(path)
    for m in re.finditer(r"(?<![:\w])([a-z_][a-z0-9_]*)((?:::[A-Za-z_][A-Za-z0-9_]*)+)", text):
        first = m.group(1)
        if first in ("crate", "super", "self", "std", "core", "alloc"):
            continue
        if tuple(list(mod) + [first]) in files:
            found.append(["self", first] + m.group(2).split("::")[1:])
    for path in found:
        t = resolve(mod, path)
        if t is not None and t != mod and node(t) != node(mod):
            edges[node(mod)][node(t)].add(path[-1])

layers_rs = os.path.join(os.path.dirname(src), "tests", "layers.rs")
LAYERS = {}
if os.path.exists(layers_rs):
    table = open(layers_rs, encoding="utf-8").read().split("const LAYERS", 1)[-1].split("];", 1)[0]
    LAYERS = {m: int(l) for m, l in re.findall(r'\("(\w+)",\s*(\d+)\)', table)}


def layer(n):
    return LAYERS.get(n.split("/")[0])


nodes = sorted({node(m) for m in files})
print(f"{len(nodes)} nodes, {sum(len(v) for v in edges.values())} edges")
up = []
for a in sorted(nodes, key=lambda n: (-(layer(n) if layer(n) is not None else 9), n)):
    for b in sorted(edges[a]):
        la, lb = layer(a), layer(b)
        mark = ""
        if la is not None and lb is not None and lb > la:
            mark = "  UP"
            up.append((a, b))
        print(f"  {a} [{la}] -> {b} [{lb}] ({len(edges[a][b])}){mark}")
if LAYERS:
    print(f"{len(up)} edges point up the layer order (tests/layers.rs)")
    for a, b in up:
        print(f"  up: {a} -> {b}: {', '.join(sorted(edges[a][b]))}")

graph = {a: set(edges[a]) for a in nodes}
index, low, stack, on, sccs, n = {}, {}, [], set(), [], [0]
sys.setrecursionlimit(10000)


def visit(v):
    index[v] = low[v] = n[0]
    n[0] += 1
    stack.append(v)
    on.add(v)
    for w in graph[v]:
        if w not in index:
            visit(w)
            low[v] = min(low[v], low[w])
        elif w in on:
            low[v] = min(low[v], index[w])
    if low[v] == index[v]:
        comp = []
        while True:
            w = stack.pop()
            on.discard(w)
            comp.append(w)
            if w == v:
                break
        if len(comp) > 1:
            sccs.append(comp)


for v in nodes:
    if v not in index:
        visit(v)
if not sccs:
    print("no circle between folders")
    sys.exit(1 if up else 0)
for i, comp in enumerate(sorted(sccs, key=len, reverse=True), 1):
    cs = set(comp)
    print(f"circle {i}: {', '.join(sorted(comp))}")
    for a in sorted(comp):
        for b in sorted(edges[a]):
            if b in cs:
                print(f"  {a} -> {b}: {', '.join(sorted(edges[a][b]))}")
sys.exit(1)
