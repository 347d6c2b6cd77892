#!/bin/sh
# Runs every shell-level test of mbsim: malformed decks, hostile command
# lines, fuzzer reproducers (tests/fuzz/regress), hostile HDF5 files, schema, usage
# synopses, deck regression values, convergence orders, the seed-004
# schemes (t-dae3.sh), the output file (t-output.sh: SIGKILL, full disk).  $MBSIM is the binary.
set -u
: "${MBSIM:=build/mbsim}"
export MBSIM
fail=0
for t in tests/run-bad-decks.sh tests/t-usage.sh tests/t-regress.sh tests/t-converge.sh \
	tests/t-argv.sh tests/t-fuzz-regress.sh tests/t-h5-hostile.sh \
	tests/t-dae3.sh tests/t-output.sh; do
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
