#!/usr/bin/env python3
"""man_examples.py - run the examples of the manual pages.

Usage: man_examples.py MBSIM TMPDIR MANPAGE...

Every line of a manual page that starts (after blanks) with
"mbsim run|check|static|modes" and names a deck of the source tree is an
example: roff escapes undone, continuation lines ("\\e" at the end)
joined, the part before a pipe or "&&" kept, decks/*.yaml globbed.  A line
with a shell variable ($h) is a loop body, not run.  It runs from the
source root as an argument vector (no shell): "run" with -o inside TMPDIR
(its own -o name kept) and time.end cut to 0.05 s, "modes"/"static" with
any -o moved into TMPDIR.  Prints "ok PAGE:LINE: COMMAND" or "FAIL
PAGE:LINE: COMMAND (exit N)" and its standard error; exit status 1 if
any failed or none was found.
"""
import glob
import os
import re
import shlex
import subprocess
import sys

CMD = re.compile(r"^\s*(?:\$\s+)?mbsim (run|check|static|modes) ")


def examples(page):
    lines = open(page, encoding="utf-8").read().split("\n")
    i = 0
    while i < len(lines):
        start, text = i + 1, lines[i]
        while text.rstrip().endswith("\\e") and i + 1 < len(lines):
            i += 1
            text = text.rstrip()[:-2] + " " + lines[i].strip()
        i += 1
        if not CMD.match(text):
            continue
        text = text.replace("\\-", "-").replace("\\(aq", "'").replace("\\e", "\\")
        text = re.split(r"\s(?:\||&&)\s", text)[0].strip()
        if text.startswith("$"):
            text = text[1:].strip()
        if "$" in text:
            continue
        yield start, text


def argv_of(text, mbsim, tmp):
    words = shlex.split(text)[1:]
    cmd, args = words[0], words[1:]
    out = []
    for a in args:
        out.extend(sorted(glob.glob(a)) if "*" in a else [a])
    args = out
    if "-o" in args:
        k = args.index("-o") + 1
        args[k] = os.path.join(tmp, os.path.basename(args[k]))
    elif cmd == "run":
        args += ["-o", os.path.join(tmp, "example.h5")]
    if cmd == "run":
        args += ["--set", "time.end=0.05", "--force"]
    return [mbsim, cmd] + args


def main():
    mbsim, tmp, pages = sys.argv[1], sys.argv[2], sys.argv[3:]
    n = bad = 0
    for page in pages:
        for line, text in examples(page):
            deckish = [w for w in shlex.split(text) if w.endswith(".yaml")]
            if not deckish or not all(glob.glob(w) for w in deckish):
                print("FAIL %s:%d: %s (names no deck of the source tree)" % (page, line, text))
                bad += 1
                continue
            argv = argv_of(text, mbsim, tmp)
            r = subprocess.run(argv, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                               timeout=600)
            n += 1
            if r.returncode == 0:
                print("ok   %s:%d: %s" % (page, line, text))
            else:
                bad += 1
                print("FAIL %s:%d: %s (exit %d)" % (page, line, text, r.returncode))
                for e in r.stderr.decode(errors="replace").splitlines()[-5:]:
                    print("     " + e)
    if n == 0:
        print("FAIL no examples found")
        return 1
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
