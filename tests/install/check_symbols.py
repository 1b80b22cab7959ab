#!/usr/bin/env python3
"""The shared library exports the public API and nothing else.

Usage: check_symbols.py LIBKINEGRAPH.so INCLUDE_DIR...

The public API is every declaration marked KG_API in the headers of the
include directories (include/kinegraph/ and the generated version.h). The
dynamic symbols the library defines (nm -D --defined-only) must all be among
them, and every one of them must be defined. Prints the count; exits 1 with
the offending names otherwise."""
import glob
import os
import re
import subprocess
import sys


def declared(dirs):
    names = set()
    for d in dirs:
        for path in glob.glob(os.path.join(d, "kinegraph", "*.h")):
            text = re.sub(r"/\*.*?\*/", " ", open(path).read(), flags=re.S)
            # a declaration runs from KG_API to its semicolon
            for decl in re.findall(r"\bKG_API\b([^;{]*);", text):
                decl = re.sub(r"\bKG_PRINTF\s*\([^)]*\)", "", decl)
                m = re.search(r"(\w+)\s*\(", decl)  # a function: the name before its '('
                if not m:
                    m = re.search(r"(\w+)\s*(\[[^\]]*\])?\s*$", decl)  # data
                names.add(m.group(1))
    return names


def exported(lib):
    out = subprocess.run(["nm", "-D", "--defined-only", lib], check=True, capture_output=True, text=True).stdout
    names = set()
    for line in out.splitlines():
        parts = line.split()
        if len(parts) == 3 and parts[1] in "TDRBVWiu":
            names.add(parts[2].split("@")[0])
    return names


def main():
    lib, dirs = sys.argv[1], sys.argv[2:]
    api, syms = declared(dirs), exported(lib)
    extra = sorted(syms - api)
    missing = sorted(api - syms)
    print(f"{len(syms)} exported symbols, {len(api)} declared KG_API in {', '.join(dirs)}")
    for n in extra:
        print(f"{lib}: exported but not declared KG_API in include/kinegraph/: {n}")
    for n in missing:
        print(f"{lib}: declared KG_API but not defined by the library: {n}")
    return 1 if extra or missing else 0


if __name__ == "__main__":
    sys.exit(main())
