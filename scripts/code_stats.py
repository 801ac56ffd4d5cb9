#!/usr/bin/env python3
"""Size of a Rust crate's source: lines per folder and the longest functions.

Usage: scripts/code_stats.py [SRC_DIR] [--top N]      (default: src, 10)

Lines per folder count every line of the folder's own .rs files (not its
subfolders'), tests included, and how many of them sit in `#[cfg(test)]`
modules. A function's length runs from its `fn` line to its closing brace;
functions inside test modules are left out of the ranking.
"""
import argparse
import os
import re

ap = argparse.ArgumentParser()
ap.add_argument("src", nargs="?", default="src")
ap.add_argument("--top", type=int, default=10)
a = ap.parse_args()

folders = {}
fns = []
fn_re = re.compile(r"^\s*(?:pub(?:\([a-z]+\))?\s+)?(?:const\s+)?(?:unsafe\s+)?fn\s+([A-Za-z_][A-Za-z0-9_]*)")


def strip(line):
    """The line without its comment and string contents, for brace counting."""
    line = re.sub(r'"(?:\\.|[^"\\])*"', '""', line)
    line = re.sub(r"'(?:\\.|[^'\\])'", "''", line)
    return line.split("//", 1)[0]


for d, _, fs in os.walk(a.src):
    for f in sorted(fs):
        if not f.endswith(".rs"):
            continue
        p = os.path.join(d, f)
        rel = os.path.relpath(p, a.src)
        folder = os.path.dirname(rel) or "."
        lines = open(p, encoding="utf-8").read().split("\n")
        if lines and lines[-1] == "":
            lines.pop()
        test_from = next((i for i, l in enumerate(lines) if l.strip() == "#[cfg(test)]"), len(lines))
        tot, test = folders.get(folder, (0, 0))
        folders[folder] = (tot + len(lines), test + len(lines) - test_from)
        for i, l in enumerate(lines[:test_from]):
            m = fn_re.match(l)
            if not m:
                continue
            depth, opened = 0, False
            for j in range(i, len(lines)):
                s = strip(lines[j])
                if not opened and ";" in s and "{" not in s:
                    break  # a declaration without a body
                depth += s.count("{") - s.count("}")
                opened = opened or "{" in s
                if opened and depth <= 0:
                    fns.append((j - i + 1, f"{rel}:{i + 1}", m.group(1)))
                    break

print("| folder | lines | of which tests |")
print("|---|---:|---:|")
for k in sorted(folders):
    print(f"| {k} | {folders[k][0]} | {folders[k][1]} |")
total = sum(v[0] for v in folders.values())
print(f"| total | {total} | {sum(v[1] for v in folders.values())} |")
print()
print(f"| longest functions | lines | where |")
print("|---|---:|---|")
for n, where, name in sorted(fns, key=lambda t: (-t[0], t[1]))[: a.top]:
    print(f"| {name} | {n} | {where} |")
