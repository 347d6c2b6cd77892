#!/bin/sh
# t-docs.sh - user-facing text cites the source papers so that a reader
# can find them (man mbsim(1) REFERENCES, docs/REFERENCES.md): no internal
# labels ("seed 004", a bare "000 eq. 12", "issue 13", "the seed's") and
# no paths outside the repository (../shared, shared/reference).
#   1. README.md, man/*, docs/ (its text, tables, scripts and the study
#      program of docs/results/003: every file but the pictures), decks/*.yaml and the example decks
#      under tests/ (tests/fuzz holds fuzzer corpora, not examples).
#   2. What the program prints: mbsim --help, mbsim help CMD for every
#      command --help lists, mbsim list TARGET for every target its usage
#      names; `list integrators` names no source file (such as "hi.c").
#   3. The string literals of src/ (comments may keep the short labels).
# tests/docs_cite_check.py holds the patterns.  $MBSIM is the binary.
. "$(dirname "$0")/lib.sh"
cd "$top" || exit 1
check=tests/docs_cite_check.py

# 1. the files
set -- README.md man/* decks/*.yaml
for f in $(find docs -type f \( -name '*.md' -o -name '*.csv' -o -name '*.c' -o -name '*.txt' \
	-o -name '*.sh' \) | sort) \
	$(find tests -name '*.yaml' -not -path 'tests/fuzz/*' | sort); do
	set -- "$@" "$f"
done
if "$PY" "$check" "$@" >"$tmp/hits"; then
	ok "files: $# files cite papers, no internal labels or outside paths"
else
	bad "files: internal labels or outside paths" "$(cat "$tmp/hits")"
fi

# 2. what the program prints
out_check() {	# NAME CMD...: the output of CMD has no internal label
	name=$1
	shift
	"$@" >"$tmp/o" 2>&1
	if ! [ -s "$tmp/o" ]; then
		bad "$name: no output"
	elif "$PY" "$check" "-:$name" <"$tmp/o" >"$tmp/hits"; then
		ok "$name: no internal labels"
	else
		bad "$name: internal labels" "$(cat "$tmp/hits")"
	fi
}
out_check "mbsim --help" "$MBSIM" --help
cmds=$("$MBSIM" --help 2>&1 | sed -n '/^commands:/,/^$/s/^  \([a-z]*\) .*/\1/p')
n=$(echo "$cmds" | wc -w)
[ "$n" -ge 10 ] && ok "--help lists $n commands" || bad "--help lists $n commands, want >= 10"
for c in $cmds; do
	out_check "mbsim help $c" "$MBSIM" help "$c"
done
targets=$("$MBSIM" list 2>&1 | sed -n 's/^usage: mbsim list //p' | tr '|' ' ')
[ -n "$targets" ] && ok "list targets: $targets" || bad "mbsim list names no targets"
for t in $targets; do
	out_check "mbsim list $t" "$MBSIM" list "$t"
done
"$MBSIM" list integrators >"$tmp/o" 2>&1
if grep -nE '[A-Za-z0-9_]\.[ch]([^A-Za-z0-9]|$)' "$tmp/o" >"$tmp/hits"; then
	bad "list integrators names source files" "$(cat "$tmp/hits")"
else
	ok "list integrators names no source files"
fi

# 3. the string literals of src/
if "$PY" "$check" --c $(find src -name '*.c' -o -name '*.h' -o -name '*.def' | sort) >"$tmp/hits"; then
	ok "src string literals: no internal labels"
else
	bad "src string literals: internal labels" "$(cat "$tmp/hits")"
fi
# no control characters in the manual pages (a form feed where \fB was
# meant rendered "BstepsR" in mbsim-output(5))
if LC_ALL=C grep -n "$(printf '[\001-\010\013-\037\177]')" man/* >"$tmp/ctl"; then
	bad "man pages hold control characters" "$(cat "$tmp/ctl")"
else
	ok "man pages: no control characters"
fi

finish
