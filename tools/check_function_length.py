#!/usr/bin/env python3
"""No function runs over MAX lines (100 unless told) outside generated tables.

Scans the .c files of core, formats, importers, exporters, io, analysis and cli.
A function's length counts its lines from the first line of its signature (the
return type) to its closing brace, both included. The scan matches braces on
the code alone: comments, string and character literals and preprocessor lines
are skipped, so a brace inside one of them neither opens nor closes a body, and
of a preprocessor conditional only the first branch kept is read (#if 0's is
not), so a brace opened in two branches counts once. A brace at file level
opens a function body when the last token before it is the `)` of a parameter
list (an initializer's or a struct's brace follows `=` or a name). Prints
file:line name length for every function over MAX and exits 1 when there is
one.

Usage: check_function_length.py SOURCE_DIR [MAX]"""
import os
import re
import sys

# Known exceptions, each with why: reported, not failed. Keys are (file, function).
KNOWN = {}

FOLDERS = ("core", "formats", "importers", "exporters", "io", "analysis", "cli")


def code_only(text):
    """The text with comments, literals, preprocessor lines and the branches a
    conditional does not take first blanked out.

    Every character of those becomes a space (newlines are kept), so line
    numbers and columns still match the file. Of #if / #elif / #else, the
    first branch is kept (the #else of an #if 0), so that a brace opened in
    two branches is counted once."""
    return drop_branches(strip(text))


def strip(text):
    """Comments and literals blanked out, and the continuation lines of
    directives; a directive's first line is kept for drop_branches."""
    out = list(text)
    i, n = 0, len(text)
    line_start = True  # only whitespace since the last newline
    while i < n:
        c = text[i]
        if c == "\n":
            line_start = True
            i += 1
            continue
        if line_start and c == "#":  # a directive, with its continuation lines
            first = True
            while i < n and text[i] != "\n":
                if text[i] == "\\" and i + 1 < n and text[i + 1] == "\n":
                    out[i] = " "
                    i += 2
                    first = False
                    continue
                if text.startswith("/*", i):  # a comment may carry the directive over lines
                    end = text.find("*/", i + 2)
                    end = n if end < 0 else end + 2
                    for j in range(i, end):
                        if text[j] != "\n":
                            out[j] = " "
                    first = first and "\n" not in text[i:end]
                    i = end
                    continue
                if not first:
                    out[i] = " "
                i += 1
            continue
        if not c.isspace():
            line_start = False
        if text.startswith("//", i):
            while i < n and text[i] != "\n":
                out[i] = " "
                i += 1
        elif text.startswith("/*", i):
            end = text.find("*/", i + 2)
            end = n if end < 0 else end + 2
            for j in range(i, end):
                if text[j] != "\n":
                    out[j] = " "
            i = end
        elif c in "\"'":
            j = i + 1
            while j < n and text[j] != c and text[j] != "\n":
                j += 2 if text[j] == "\\" else 1
            for k in range(i, min(j + 1, n)):
                if text[k] != "\n":
                    out[k] = " "
            i = j + 1
        else:
            i += 1
    return "".join(out)


def drop_branches(code):
    """Blanks every directive line, and the branches of each conditional after
    the first one kept (#if 0's first branch is not kept)."""
    lines = code.split("\n")
    stack = []  # per open conditional: [this branch kept, a branch was kept]
    for n, line in enumerate(lines):
        m = re.match(r"\s*#\s*(\w*)(.*)", line)
        word = m.group(1) if m else None
        if word in ("if", "ifdef", "ifndef"):
            on = not (word == "if" and re.match(r"\s*0\s*$", m.group(2)))
            stack.append([on, on])
        elif word in ("elif", "else") and stack:
            stack[-1] = [not stack[-1][1], True]
        elif word == "endif" and stack:
            stack.pop()
        if m or not all(on for on, _ in stack):
            lines[n] = " " * len(line)
    return "\n".join(lines)


def functions(text):
    """(name, first line, length in lines) of every function defined in text."""
    code = code_only(text)
    line_of = [0] * (len(code) + 1)
    line = 1
    for i, c in enumerate(code):
        line_of[i] = line
        if c == "\n":
            line += 1
    line_of[len(code)] = line
    found = []
    depth = 0
    decl_start = None  # offset of the first token after the last file-level ; or }
    opened = None      # (name, first line) of the function whose body is open
    for i, c in enumerate(code):
        if depth == 0 and decl_start is None and not c.isspace() and c not in ";}":
            decl_start = i
        if c == "{":
            if depth == 0:
                opened = signature(code, decl_start, i)
                if opened:
                    opened = (opened, line_of[decl_start])
            depth += 1
        elif c == "}":
            depth -= 1
            if depth == 0:
                if opened:
                    found.append((opened[0], opened[1], line_of[i] - opened[1] + 1))
                opened = None
                decl_start = None
            depth = max(depth, 0)
        elif c == ";" and depth == 0:
            decl_start = None
    return found


def signature(code, start, brace):
    """The function's name when the brace at offset brace opens a function body."""
    if start is None:
        return None
    head = code[start:brace].rstrip()
    if not head.endswith(")") or "=" in head.split("(")[0]:
        return None
    # Walk back over the parameter list to its opening parenthesis.
    level = 0
    for j in range(len(head) - 1, -1, -1):
        if head[j] == ")":
            level += 1
        elif head[j] == "(":
            level -= 1
            if level == 0:
                m = re.search(r"(\w+)\s*$", head[:j])
                return m.group(1) if m else None
    return None


def main():
    if len(sys.argv) not in (2, 3):
        print(__doc__.rsplit("\n\n", 1)[-1], file=sys.stderr)
        return 2
    root = sys.argv[1]
    limit = int(sys.argv[2]) if len(sys.argv) == 3 else 100
    bad = 0
    for top in FOLDERS:
        for dirpath, dirs, names in os.walk(os.path.join(root, top)):
            dirs.sort()
            for name in sorted(names):
                if not name.endswith(".c"):
                    continue
                path = os.path.join(dirpath, name)
                rel = os.path.relpath(path, root)
                with open(path, encoding="utf-8") as f:
                    text = f.read()
                for fn, first, length in functions(text):
                    if length <= limit:
                        continue
                    if (rel, fn) in KNOWN:
                        print(f"{rel}:{first}: {fn} {length} known exception ({KNOWN[(rel, fn)]})")
                    else:
                        print(f"{rel}:{first}: {fn} {length}")
                        bad += 1
    print(f"{bad} function(s) over {limit} lines" if bad else f"function length: none over {limit} lines")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
