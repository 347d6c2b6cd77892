#!/bin/sh
# Runs every shell-level test of mbsim: malformed decks, hostile command
# lines, fuzzer reproducers (tests/fuzz/regress), hostile HDF5 files, limits of the
# run loop (t-runloop.sh), schema, usage
# synopses, deck regression values, convergence orders, the seed-004
# schemes (t-dae3.sh), spectral radii of LMS_k (t-spectral-exact.sh), hi and
# hilg on a spinning top (t-heavy-top.sh), signals during a large set-up (t-signal.sh),
# the output file (t-output.sh: SIGKILL, full disk).  $MBSIM is the binary.
set -u
: "${MBSIM:=build/mbsim}"
export MBSIM
fail=0
# every tests/t-*.sh, so that a new test cannot be left out of the list
for t in tests/run-bad-decks.sh tests/t-*.sh; do
	echo "== $t"
	if [ -f "$t" ]; then
		sh "$t" || fail=1
	else
		echo "FAIL $t is missing"
		fail=1
	fi
done
echo "== tests/schema_check.py"
/usr/bin/python3 tests/schema_check.py || fail=1
exit $fail
