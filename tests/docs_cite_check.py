#!/usr/bin/env python3
"""docs_cite_check.py - user-facing text cites papers a reader can find.

Reads the files and program outputs named on the command line (a name
"-:LABEL" reads standard input, labelled LABEL in messages) and prints one
line FILE:LINE: TEXT per internal label found: "seed 00N", "seed-00N",
"seed00", a bare "00N eq." / "00N §" / "00N Fig.", "issue N", a path
outside the repository (../shared, shared/reference, shared/seeds) or
"the seed's".  With --c, FILE is C source and only its string literals
are searched (comments may keep the short labels beside the citation).
Exit status 1 when anything was found, 0 otherwise.
"""
import re
import sys

PATTERNS = [
    r"seed ?00[0-9]", r"seed(\\?-)00[0-9]", r"seed00",
    r"(^|[^0-9.~/\\-])00[0-4],? (eqs?\.|§|\\\(sc|sect|Figs?\.|Table|Alg)",
    r"\(00[0-4] [0-9]", r"issue [0-9]", r"issue-[0-9]",
    r"\.\./shared", r"shared/reference", r"shared/seeds", r"the seed's",
]
RX = re.compile("|".join("(?:%s)" % p for p in PATTERNS), re.IGNORECASE)


def c_strings(text):
    """(line, contents) of every string literal of C source text."""
    out, i, line, n = [], 0, 1, len(text)
    while i < n:
        c = text[i]
        if c == "\n":
            line += 1
        elif text.startswith("/*", i):
            j = text.find("*/", i + 2)
            j = n if j < 0 else j + 2
            line += text.count("\n", i, j)
            i = j
            continue
        elif text.startswith("//", i):
            j = text.find("\n", i)
            i = n if j < 0 else j
            continue
        elif c == "'":
            j = i + 1
            while j < n and text[j] != "'":
                j += 2 if text[j] == "\\" else 1
            i = j + 1
            continue
        elif c == '"':
            j, start = i + 1, line
            while j < n and text[j] != '"':
                if text[j] == "\n":
                    line += 1
                j += 2 if text[j] == "\\" else 1
            out.append((start, text[i + 1:j]))
            i = j + 1
            continue
        i += 1
    return out


def main(argv):
    c_mode = "--c" in argv
    found = 0
    for name in (a for a in argv if a != "--c"):
        if name.startswith("-:"):
            label, text = name[2:], sys.stdin.read()
        else:
            label = name
            with open(name, encoding="utf-8", errors="replace") as f:
                text = f.read()
        if c_mode:
            items = c_strings(text)
        else:
            items = list(enumerate(text.split("\n"), 1))
        for line, s in items:
            if RX.search(s):
                print("%s:%d: %s" % (label, line, s.strip()[:160]))
                found += 1
    return 1 if found else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
