#!/usr/bin/env python3
"""Values that cross the core untyped, counted.

Usage: scripts/typed_counts.py [ROOT]      (default: the current directory)

Counts, with the lines:
- string-keyed parameter reads in the algorithms and the solver core
  (`v.real("tol")`, `.count("max_iter")`, `.flag("bounded")` under
  `src/algo/` and `src/solver/`): a misspelt name fails at run time;
- `Any` in `src/` (`dyn Any`, `downcast`): a value whose type is found
  out at run time. A panic payload (`std::panic::catch_unwind`) is
  `dyn Any` by the standard library's choice and is not counted.
Exit status 1 when a count is above 0.
"""
import os
import re
import sys

root = os.path.abspath(sys.argv[1] if len(sys.argv) > 1 else ".")
reads = re.compile(r'\.(real|count|flag)\("[^"]*"\)')
any_use = re.compile(r'\bdyn Any\b|\bdowncast(_ref|_mut)?\b')
# A panic payload is `Box<dyn Any + Send>`: its `downcast_ref::<String>()`
# / `::<&str>()` is how its message is read, not a choice of this crate.
panic_payload = re.compile(r'downcast_ref::<(String|&str)>')


def rust_files(sub):
    for d, _, fs in os.walk(os.path.join(root, sub)):
        for f in sorted(fs):
            if f.endswith(".rs"):
                yield os.path.join(d, f)


def grep(subs, pattern, skip=None):
    hits = []
    for sub in subs:
        for path in sorted(rust_files(sub)):
            for n, line in enumerate(open(path, encoding="utf-8"), 1):
                if pattern.search(line) and not (skip and skip.search(line)):
                    hits.append(f"{os.path.relpath(path, root)}:{n}: {line.strip()}")
    return hits


counts = [
    ("string-keyed parameter reads (src/algo, src/solver)",
     grep(["src/algo", "src/solver"], reads)),
    ("Any downcasts and dyn Any (src)", grep(["src"], any_use, panic_payload)),
]
for title, hits in counts:
    for h in hits:
        print(h)
    print(f"{title}: {len(hits)}\n")
sys.exit(1 if any(hits for _, hits in counts) else 0)
