#!/usr/bin/env python3
"""Lists of algorithm ids kept by hand outside the algorithms' own files.

Usage: scripts/id_lists.py [ROOT]      (default: the current directory)

What an algorithm can do is declared on it (`Solver::caps`, `weighs`,
`model_kind`); code elsewhere should ask the registry, not test an id. This
prints every line, outside `src/algo/` and outside tests, that decides by
id: two or more ids on one line (a list), one id alone on a line (an entry
of a list written one per line), ids joined in a sentence ("a, b or c"),
an id as a match arm, dict key, prefix or in a comparison. The ids are read from the algorithms' `fn id` in
`src/algo`, so the count runs the same on any commit.

Searched: `src/` (the registry `src/algo/mod.rs` but no algorithm's own
file; without `#[cfg(test)]` modules),
`python/src/`, `python/meanscape/` (without the generated
`_estimators.py`, whose `_algorithm = "id"` is its binding to the engine)
and `python/tools/`. Prints the lines and their count; exit status 1 when
there is one.
"""
import os
import re
import sys

root = os.path.abspath(sys.argv[1] if len(sys.argv) > 1 else ".")

ids = set()
for d, _, fs in os.walk(os.path.join(root, "src", "algo")):
    for f in fs:
        if f.endswith(".rs"):
            text = open(os.path.join(d, f), encoding="utf-8").read()
            ids.update(re.findall(r'fn id\(&self\) -> &\'static str \{\s*"([^"]+)"', text))
if not ids:
    sys.exit("no `fn id` found under src/algo")

lit = re.compile(r'"(' + "|".join(re.escape(i) for i in sorted(ids, key=len, reverse=True)) + r')"')
# One id decides: a match arm or alternative, a comparison, a dict key, an
# id alone on its line, or a prefix test (`starts_with("rff")`).
decides = [
    re.compile(r'"[^"]+"\s*(=>|\|)'),
    re.compile(r'(==|!=)\s*"[^"]+"|"[^"]+"\s*(==|!=)'),
    re.compile(r'"[^"]+"\s*:\s*[\(\[\{"]'),
    re.compile(r'^\s*"[^"]+"\s*:'),
]
# An id alone on its line is an entry of a list written one per line when
# its neighbour is one too (alone, it is an argument: `fit(\n "kmeans", …`).
alone = re.compile(r'^\s*"[^"]+",?\s*$')
# Ids inside one string: "a, b or c" written by hand.
words = "|".join(re.escape(i) for i in sorted(ids, key=len, reverse=True))
sentence = re.compile(r'\b(' + words + r')(, | or )(' + words + r')\b')
prefix = re.compile(r'(starts_with|contains|startswith)\("(' + "|".join(sorted({i.split("-")[0] for i in ids})) + r')"\)')


def files():
    for sub, ext in (("src", ".rs"), ("python/src", ".rs"), ("python/meanscape", ".py"), ("python/tools", ".py")):
        base = os.path.join(root, sub)
        for d, _, fs in os.walk(base):
            rel = os.path.relpath(d, root)
            for f in sorted(fs):
                # The registry (src/algo/mod.rs) is searched, the
                # algorithms' own files are not.
                if rel.startswith(os.path.join("src", "algo")) and (rel, f) != (os.path.join("src", "algo"), "mod.rs"):
                    continue
                if f.endswith(ext) and f != "_estimators.py":
                    yield os.path.join(d, f)


def code_of(path, line):
    code = line.split("//")[0] if path.endswith(".rs") else line.split("#")[0]
    # ``"power"`` in a docstring is an example, not a list.
    return re.sub(r"``[^`]*``", "", code)


hits = []
for path in sorted(files()):
    lines = []
    for line in open(path, encoding="utf-8"):
        if line.strip() == "#[cfg(test)]":
            break
        lines.append(line)
    codes = [code_of(path, line) for line in lines]
    lone = [bool(alone.match(c) and lit.search(c)) for c in codes]
    for i, code in enumerate(codes):
        found = lit.findall(code)
        many = len(set(found)) >= 2
        one = found and any(p.search(code) for p in decides)
        listed = lone[i] and ((i > 0 and lone[i - 1]) or (i + 1 < len(lone) and lone[i + 1]))
        if many or one or listed or sentence.search(code) or prefix.search(code):
            hits.append(f"{os.path.relpath(path, root)}:{i + 1}: {lines[i].strip()}")

for h in hits:
    print(h)
print(f"{len(hits)} id-list lines outside src/algo ({len(ids)} algorithms)")
sys.exit(1 if hits else 0)
