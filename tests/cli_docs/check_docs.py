#!/usr/bin/env python3
"""The man pages and shell completions list exactly the options --help lists.

kinegraph-doc writes build/doc/ from the commands' option tables (cli/), the
ones the parser reads and --help prints; this checks what it wrote against
what the built command says, command by command:
  - kinegraph-COMMAND.1 has one OPTIONS entry per option of --help, with the
    same names, each once; its synopsis is --help's usage; kinegraph.1 names
    every command; groff reads every page without a warning;
  - bash (the completion script sourced, COMP_WORDS set, _kinegraph called)
    offers every command at the first word, each command's long options after
    '--' and all of its names after '-', and an option's value from its
    words or files (convert --to, check --fail-on, check --results' folders);
  - zsh (zsh_complete.zsh: a real completion through a pseudo-terminal) offers
    every command's names after '-', and convert --to's formats; skipped with a
    notice when zsh is not installed.

Usage: check_docs.py KINEGRAPH DOC_DIR"""
import os
import re
import shutil
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
failures = []


def fail(msg):
    failures.append(msg)
    print("FAIL:", msg)


def help_options(kinegraph, command):
    """The names of every option line of `kinegraph COMMAND --help`, per line."""
    out = subprocess.run([kinegraph, command, "--help"], capture_output=True, text=True, check=True).stdout
    lines = []
    for line in out.splitlines():
        m = re.match(r" {1,4}(-[-\w]*(?:, -[-\w]*)*)", line)
        if m:
            lines.append(tuple(m.group(1).split(", ")))
    return out, lines


def commands(kinegraph):
    out = subprocess.run([kinegraph, "--help"], capture_output=True, text=True, check=True).stdout
    section = out.split("commands:\n", 1)[1].split("\n\n", 1)[0]
    return [line.split()[0] for line in section.splitlines()]


def man_options(page):
    """The names of every .TP entry of a page's OPTIONS section, per entry."""
    text = open(page, encoding="utf-8").read()
    section = text.split(".SH OPTIONS\n", 1)[1].split("\n.SH ", 1)[0]
    entries = []
    lines = section.splitlines()
    for k, line in enumerate(lines):
        if line == ".TP":
            names = re.findall(r"\\fB(.*?)\\fR", lines[k + 1])
            entries.append(tuple(n.replace("\\-", "-") for n in names))
    return text, entries


def check_man(kinegraph, doc, cmds):
    top = open(os.path.join(doc, "man1", "kinegraph.1"), encoding="utf-8").read()
    for c in cmds:
        if "\\fBkinegraph\\-%s\\fR(1)" % c not in top:
            fail("kinegraph.1 does not name kinegraph-%s(1)" % c)
        helptext, want = help_options(kinegraph, c)
        text, got = man_options(os.path.join(doc, "man1", "kinegraph-%s.1" % c))
        if got != want:
            fail("kinegraph-%s.1 lists %s, --help %s" % (c, sorted(set(got) ^ set(want)) or "the same in another order", want))
        names = [n for entry in got for n in entry]
        if len(names) != len(set(names)):
            fail("kinegraph-%s.1 lists an option twice: %s" % (c, names))
        usage = helptext.splitlines()[0][len("usage: "):]
        synopsis = text.split(".SH SYNOPSIS\n.nf\n", 1)[1].splitlines()[0].replace("\\-", "-")
        if synopsis != usage:
            fail("kinegraph-%s.1's synopsis '%s' is not --help's usage '%s'" % (c, synopsis, usage))
    groff = shutil.which("groff")
    if not groff:
        print("check_docs: groff not installed, the pages' roff not checked")
        return
    pages = sorted(os.path.join(doc, "man1", p) for p in os.listdir(os.path.join(doc, "man1")))
    r = subprocess.run([groff, "-man", "-Tutf8", "-ww", "-z"] + pages, capture_output=True, text=True)
    if r.returncode or r.stderr:
        fail("groff warns about the pages: %s" % r.stderr)


def bash_complete(script, words, cwd):
    """What _kinegraph puts in COMPREPLY for the last of words."""
    code = 'source "$1"; shift; COMP_WORDS=("$@"); COMP_CWORD=$(($# - 1)); _kinegraph; printf "%s\\n" "${COMPREPLY[@]}"'
    r = subprocess.run(["bash", "-c", code, "bash", script] + words, capture_output=True, text=True, cwd=cwd)
    if r.returncode:
        fail("bash completion of %s: exit %d: %s" % (words, r.returncode, r.stderr))
    return sorted(w for w in r.stdout.splitlines() if w)


def check_bash(kinegraph, doc, cmds, tmp):
    script = os.path.join(doc, "completion", "kinegraph")
    got = bash_complete(script, ["kinegraph", ""], tmp)
    if got != sorted(cmds + ["--version", "--help", "-h"]):
        fail("bash: kinegraph <TAB> offers %s" % got)
    for c in cmds:
        _, want = help_options(kinegraph, c)
        names = sorted(n for entry in want for n in entry)
        got = bash_complete(script, ["kinegraph", c, "-"], tmp)
        if got != names:
            fail("bash: kinegraph %s -<TAB> offers %s, --help lists %s" % (c, got, names))
        got = bash_complete(script, ["kinegraph", c, "x", "--"], tmp)
        if got != [n for n in names if n.startswith("--")]:
            fail("bash: kinegraph %s x --<TAB> offers %s" % (c, got))
    os.mkdir(os.path.join(tmp, "reports"))
    open(os.path.join(tmp, "robot.urdf"), "w").close()
    for words, want in [(["convert", "a.urdf", "b.glb", "--to", ""], "bvh csv dae glb gltf json mjcf npz urdf"),
                        (["convert", "a.urdf", "b.glb", "--to", "g"], "glb gltf"),
                        (["check", "--fail-on", ""], "error warning"),
                        (["check", "--results", ""], "reports"),
                        (["convert", "--ledger", "rob"], "robot.urdf"),
                        (["fk", "rob"], "robot.urdf"),
                        (["fk", "--q", ""], ""),
                        (["highbar", ""], "--cut-time --dt --duration --fps --help --json --output --swing -h -o")]:
        got = bash_complete(script, ["kinegraph"] + words, tmp)
        if got != sorted(want.split()):
            fail("bash: kinegraph %s<TAB> offers %s, not %s" % (" ".join(words), got, want))


def zsh_complete(doc, words, tmp):
    out = os.path.join(tmp, "zsh.out")
    r = subprocess.run(["zsh", "-f", os.path.join(HERE, "zsh_complete.zsh"), os.path.join(doc, "completion"), out,
                        " ".join(["kinegraph"] + words)], capture_output=True, text=True, cwd=tmp, timeout=60)
    if r.returncode not in (0, 77):
        fail("zsh completion of %s: exit %d: %s" % (words, r.returncode, r.stderr))
    return r.returncode, sorted(set(w.strip() for w in open(out) if w.strip()))


def check_zsh(kinegraph, doc, cmds, tmp):
    if not shutil.which("zsh"):
        print("check_docs: zsh not installed (./setup.sh test installs it), the zsh completion not checked")
        return
    for c in cmds:
        _, want = help_options(kinegraph, c)
        names = sorted(n for entry in want for n in entry)
        rc, got = zsh_complete(doc, [c, "-"], tmp)
        if rc == 77:
            print("check_docs: zsh has no zsh/zpty, the zsh completion not checked")
            return
        if got != names:
            fail("zsh: kinegraph %s -<TAB> offers %s, --help lists %s" % (c, got, names))
    _, got = zsh_complete(doc, ["convert", "a.urdf", "b.glb", "--to", "g"], tmp)
    if got != ["glb", "gltf"]:
        fail("zsh: kinegraph convert a.urdf b.glb --to g<TAB> offers %s" % got)
    _, got = zsh_complete(doc, ["co"], tmp)
    if got != ["collisions", "convert"]:
        fail("zsh: kinegraph co<TAB> offers %s" % got)


def main():
    kinegraph, doc = (os.path.abspath(a) for a in sys.argv[1:3])
    cmds = commands(kinegraph)
    if len(cmds) < 14:
        fail("kinegraph --help lists %d commands: %s" % (len(cmds), cmds))
    check_man(kinegraph, doc, cmds)
    with tempfile.TemporaryDirectory() as tmp:
        check_bash(kinegraph, doc, cmds, tmp)
    with tempfile.TemporaryDirectory() as tmp:
        check_zsh(kinegraph, doc, cmds, tmp)
    print("check_docs: %d commands; %s" % (len(cmds), "%d failures" % len(failures) if failures else "man pages and completions list what --help lists"))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
