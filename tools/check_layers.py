#!/usr/bin/env python3
"""The include graph between the source folders runs one way.

Layers, lowest first: core, formats, importers | exporters, io, analysis, cli.
A file may include headers of its own folder and of lower layers only: the
importers and exporters never see the io layer that dispatches to them (nor
each other), formats/ (what the formats share) sees neither, core sees only
core. include/kinegraph/ holds the public declarations of every layer and may
be included from anywhere. Prints every violation as file:line and exits 1
when there is one.

Usage: check_layers.py SOURCE_DIR"""
import os
import re
import sys

# Known exceptions, each with why and when it goes: reported, not failed.
KNOWN = {}

RANK = {"core": 0, "formats": 1, "importers": 2, "exporters": 2, "io": 3, "analysis": 4, "cli": 5}


def main():
    root = sys.argv[1]
    bad = 0
    for top in RANK:
        for dirpath, _, names in os.walk(os.path.join(root, top)):
            for name in sorted(names):
                if not name.endswith((".c", ".h")):
                    continue
                path = os.path.join(dirpath, name)
                for n, line in enumerate(open(path, encoding="utf-8"), 1):
                    m = re.match(r'\s*#\s*include\s+"(\w+)/', line)
                    if not m or m.group(1) not in RANK or m.group(1) == top:
                        continue
                    to = m.group(1)
                    rel = os.path.relpath(path, root)
                    if RANK[to] >= RANK[top] and (rel, to) in KNOWN:
                        print(f"{rel}:{n}: known exception ({KNOWN[(rel, to)]})")
                    elif RANK[to] >= RANK[top]:
                        print(f"{rel}:{n}: {top}/ includes {to}/, "
                              f"a layer {'above' if RANK[to] > RANK[top] else 'beside'} it")
                        bad += 1
    print(f"{bad} include(s) against the layers" if bad else "layers: every include runs downwards")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
