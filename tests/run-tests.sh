#!/bin/sh
# run-tests.sh - the whole test suite, as `make test` runs it:
#
#   MBSIM=build/mbsim sh tests/run-tests.sh [--units-only] [UNIT_BINARY]...
#
# Runs every cmocka unit binary given, then (unless --units-only) every
# shell-level test: malformed decks, hostile command lines, fuzzer
# reproducers (tests/fuzz/regress), hostile HDF5 files, limits of the run
# loop (t-runloop.sh), schema, usage synopses, deck regression values,
# convergence orders, the DAE schemes (t-dae3.sh), spectral radii of LMS_k
# (t-spectral-exact.sh), hi and hilg on a spinning top (t-heavy-top.sh),
# signals during a large set-up (t-signal.sh), the output file (t-output.sh:
# SIGKILL, full disk).  A failure stops nothing: every binary and script
# runs, and the last line is the total over all of them,
#
#   N passed, N failed, N skipped
#
# read from each unit binary's cmocka summary ("[  PASSED  ] N test(s).",
# "[  FAILED  ] N test(s)", "[  SKIPPED ] N test(s)") and from the count
# line each script prints last (lib.sh's finish, check_runs.py); a program
# that exits non-zero without counting a failure (a crash, an early exit),
# or that counts nothing at all (an exit 0 before its count line), adds
# one failure.  Exit status 1 if anything failed, or if anything was
# skipped while MBSIM_NO_SKIP=1 (.ci/run; lib.sh's skip then fails itself).
set -u
: "${MBSIM:=build/mbsim}"
export MBSIM
units_only=0
[ "${1:-}" = --units-only ] && { units_only=1; shift; }
log=$(mktemp "${TMPDIR:-/tmp}/run-tests.XXXXXX") || exit 1
trap 'rm -f "$log" "$log.rc"' EXIT INT TERM
P=0 F=0 S=0

# count KIND NAME: adds the counts in $log (the output of NAME, of KIND
# unit or script) and its exit status in $log.rc to P, F and S
count() {
	rc=$(cat "$log.rc")
	if [ "$1" = unit ]; then
		set -- "$2" "$(awk '
			/^\[  PASSED  \] [0-9]+ test/ { p += $4 }
			/^\[  FAILED  \] [0-9]+ test/ { f += $4 }
			/^\[  SKIPPED \] [0-9]+ test/ { s += $4 }
			END { print p + 0, f + 0, s + 0 }' "$log")"
	else
		set -- "$2" "$(awk '
			/^[0-9]+ passed, [0-9]+ failed/ { p = $1; f = $3; s = ($5 == "" ? 0 : $5) }
			END { print p + 0, f + 0, s + 0 }' "$log")"
	fi
	# shellcheck disable=SC2086 # three numbers
	set -- "$1" $2
	if [ "$rc" -ne 0 ] && [ "$3" -eq 0 ]; then
		echo "FAIL $1: exit $rc without a failed check counted"
		set -- "$1" "$2" 1 "$4"
	elif [ $(($2 + $3 + $4)) -eq 0 ]; then
		echo "FAIL $1: exit $rc with no check counted (no count line: it stopped early)"
		set -- "$1" "$2" 1 "$4"
	fi
	P=$((P + $2)) F=$((F + $3)) S=$((S + $4))
}

# run KIND NAME CMD...: runs CMD (its output shown as it comes) and counts it
run() {
	kind=$1 name=$2
	shift 2
	echo "== $name"
	{ "$@" 2>&1; echo $? >"$log.rc"; } | tee "$log"
	count "$kind" "$name"
}

for t in "$@"; do
	run unit "$t" "$t"
done
if [ "$units_only" = 0 ]; then
	# every tests/t-*.sh, so that a new test cannot be left out of the list
	for t in tests/run-bad-decks.sh tests/t-*.sh; do
		run script "$t" sh "$t"
	done
	run script tests/schema_check.py /usr/bin/python3 tests/schema_check.py
fi
echo "$P passed, $F failed, $S skipped"
[ "$F" -eq 0 ] && { [ "$S" -eq 0 ] || [ "${MBSIM_NO_SKIP:-0}" != 1 ]; }
