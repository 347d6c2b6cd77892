#!/bin/sh
# t-usage.sh - the synopsis each command prints ('mbsim help CMD') must be
# the SYNOPSIS of its manual page, for every command 'mbsim help' lists:
# the whole section of man/mbsim-CMD.1 where the command has its own page
# (run, converge, compare, spectral), else lines of the SYNOPSIS of
# man/mbsim.1 (one line each: check, list, help, and the general synopsis
# of 'mbsim help' alone).  mbsim(1) carries the run line as well.
# Usage: MBSIM=build/mbsim sh tests/t-usage.sh   (run from the source root)

# shellcheck source=tests/lib.sh
. "$(dirname "$0")/lib.sh"

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

# in_man1 CMD: every line 'mbsim help CMD' prints is a line of the
# SYNOPSIS of mbsim(1) (CMD empty: the general synopsis)
in_man1() {
	name=${1:-mbsim}
	printed "$1" >"$tmp/help"
	if [ ! -s "$tmp/help" ]; then
		bad "$name: 'mbsim help $1' printed nothing"
		return
	fi
	missing=
	while IFS= read -r line; do
		if ! printf '%s\n' "$syn1" | grep -qxF -- "$line"; then
			missing="$line"
			break
		fi
	done <"$tmp/help"
	if [ -z "$missing" ]; then
		ok "$name: mbsim(1) SYNOPSIS has 'mbsim help${1:+ $1}'"
	else
		bad "$name: mbsim(1) SYNOPSIS lacks a line of 'mbsim help${1:+ $1}'" \
		    "help: $missing"
	fi
}

if [ ! -x "$MBSIM" ]; then
	bad "$MBSIM is not an executable (build it with make)"
	finish
	exit
fi
man1=$top/man/mbsim.1
if [ ! -r "$man1" ]; then
	bad "missing $man1"
	finish
	exit
fi
syn1=$(synopsis "$man1")

# the commands of 'mbsim help': the lines after "commands:" up to a blank one
cmds=$("$MBSIM" help | awk '/^commands:/ { f = 1; next } f && /^ *$/ { exit } f { print $1 }')
if [ -z "$cmds" ]; then
	bad "'mbsim help' lists no commands"
fi
for cmd in $cmds; do
	page=$top/man/mbsim-$cmd.1
	if [ ! -r "$page" ]; then
		in_man1 "$cmd"
		continue
	fi
	want=$(printed "$cmd")
	have=$(synopsis "$page")
	if [ -z "$want" ]; then
		bad "$cmd: 'mbsim help $cmd' printed nothing"
	elif [ "$want" = "$have" ]; then
		ok "$cmd: mbsim-$cmd(1) SYNOPSIS matches 'mbsim help $cmd'"
	else
		bad "$cmd: mbsim-$cmd(1) SYNOPSIS differs from 'mbsim help $cmd'" \
		    "help: $want" "man:  $have"
	fi
done
# mbsim(1) lists run as well, and the general synopsis
in_man1 run
in_man1 ""

finish
