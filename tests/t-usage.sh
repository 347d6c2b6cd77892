#!/bin/sh
# t-usage.sh - the synopsis each command prints ('mbsim help CMD') must be
# the SYNOPSIS of its manual page: man/mbsim-run.1 for run (the whole
# section), man/mbsim.1 for the others (one line of the section each).
# Usage: MBSIM=build/mbsim sh tests/t-usage.sh   (run from the source root)

MBSIM=${MBSIM:-build/mbsim}
top=$(cd "$(dirname "$0")/.." && pwd)
pass=0
fail=0

ok() {
	pass=$((pass + 1))
	echo "ok - $1"
}

bad() {
	fail=$((fail + 1))
	echo "FAIL - $1"
	shift
	for l in "$@"; do
		echo "    $l"
	done
}

# Text lines of the SYNOPSIS section of man page $1, one per line, with
# groff markup removed and whitespace normalized.  Request lines are
# dropped, except .B/.I/.R/.SM whose arguments are text.
synopsis() {
	sed -n '/^\.SH  *"\{0,1\}SYNOPSIS/,/^\.SH/p' "$1" | sed '1d;$d' |
	sed -e '/^\.\\"/d' \
	    -e 's/^\.[BIRS][BIRM]\{0,1\}  *//' \
	    -e '/^[.'\'']/d' \
	    -e 's/\\f[BIRP]//g' -e 's/\\f(..//g' -e 's/\\f\[[^]]*\]//g' \
	    -e 's/\\-/-/g' -e 's/\\&//g' -e 's/\\ / /g' -e 's/\\~/ /g' \
	    -e 's/\\(em/--/g' -e 's/\\e/\\/g' -e 's/\\c$//' \
	    -e 's/"//g' |
	norm
}

# Collapse runs of blanks, trim; drop empty lines.
norm() {
	tr '\t' ' ' | sed -e 's/  */ /g' -e 's/^ //' -e 's/ $//' -e '/^$/d'
}

# The synopsis 'mbsim help $1' prints, without "usage: ".
printed() {
	"$MBSIM" help ${1:+"$1"} | sed -n '1,/^$/p' | sed '1s/^usage: *//' | norm
}

if [ ! -x "$MBSIM" ]; then
	echo "FAIL - $MBSIM is not an executable (build it with make)"
	echo "0 passed, 1 failed"
	exit 1
fi

man1=$top/man/mbsim.1
manrun=$top/man/mbsim-run.1
for f in "$man1" "$manrun"; do
	if [ ! -r "$f" ]; then
		echo "FAIL - missing $f"
		echo "0 passed, 1 failed"
		exit 1
	fi
done
syn1=$(synopsis "$man1")
synrun=$(synopsis "$manrun")

# run: the whole SYNOPSIS section of mbsim-run.1
want=$(printed run)
if [ -z "$want" ]; then
	bad "run: 'mbsim help run' printed nothing"
elif [ "$want" = "$synrun" ]; then
	ok "run: mbsim-run(1) SYNOPSIS matches 'mbsim help run'"
else
	bad "run: mbsim-run(1) SYNOPSIS differs from 'mbsim help run'" \
	    "help: $want" "man:  $synrun"
fi

# The run line must also be in mbsim(1), which lists every command; the
# general synopsis ('mbsim help' without a command) as well.
for cmd in run check list help ""; do
	name=${cmd:-mbsim}
	want=$(printed "$cmd")
	if [ -z "$want" ]; then
		bad "$name: 'mbsim help $cmd' printed nothing"
		continue
	fi
	missing=
	echo "$want" > "${TMPDIR:-/tmp}/t-usage.$$"
	while IFS= read -r line; do
		if ! printf '%s\n' "$syn1" | grep -qxF -- "$line"; then
			missing="$line"
			break
		fi
	done < "${TMPDIR:-/tmp}/t-usage.$$"
	rm -f "${TMPDIR:-/tmp}/t-usage.$$"
	if [ -z "$missing" ]; then
		ok "$name: mbsim(1) SYNOPSIS has 'mbsim help${cmd:+ $cmd}'"
	else
		bad "$name: mbsim(1) SYNOPSIS lacks a line of 'mbsim help${cmd:+ $cmd}'" \
		    "help: $missing"
	fi
done

echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
