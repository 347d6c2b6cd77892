#!/bin/sh
# t-export-csv.sh - `mbsim export --csv` (man mbsim-export(1), CSV): the
# table read back with Python's csv module holds, column by column, the
# very doubles of the HDF5 file (tests/csv_check.py reads the file with
# h5py, not through mbsim), with the units of its series; the default
# columns are every series of the groups the manual names; on outputs of
# decks/ (bodies, points, joints, drivers, beam nodes), of a deck with
# force elements and measures, and of a tools/sweep run.  Bad input is
# refused without a file left: missing file, HDF5 file that is not an
# output, a modes file, a missing quantity or component.
# Usage: MBSIM=build/mbsim sh tests/t-export-csv.sh   (run from the source root)

# shellcheck source=tests/lib.sh
. "$(dirname "$0")/lib.sh"

if ! "$PY" -c 'import h5py' 2>/dev/null; then
	skip "every check" "$PY lacks h5py (tools/install-deps installs it)" 36
	finish
	exit
fi
check="$PY $top/tests/csv_check.py"
cd "$tmp" || exit 1

# csv_ok NAME CSV H5 [--default]: csv_check passes
csv_ok() {
	name=$1
	shift
	# shellcheck disable=SC2086 # check is a command and its script
	if $check "$@" >chk 2>&1; then ok "$name: $(cat chk)"; else bad "$name" "$(cat chk)"; fi
}

# 1. decks/ (short runs): the default table, exact
for d in double_pendulum slider_crank andrews_squeezer flexible_four_bar; do
	"$MBSIM" run "$decks/$d.yaml" -o "$d.h5" --quiet --set time.end=0.02 2>err ||
		{ bad "run $d" "$(cat err)"; continue; }
	expect_rc 0 "export --csv $d.h5" "$MBSIM" export --csv "$d.h5"
	csv_ok "$d.csv: the default columns, values exact" "$d.csv" "$d.h5" --default
done
"$MBSIM" export --csv double_pendulum.h5 2>err
# 0.02 s at the deck's step 1e-3, every sample: 21 rows
grep -q "^mbsim: double_pendulum.csv: 21 samples, [0-9]* columns besides time" err &&
	ok "export says what it wrote" || bad "export's message" "$(cat err)"
# force elements (tsda, rsda, motor, ...) and measures: /forces, /measures
"$MBSIM" run "$top/tests/forces/pend_rsda.yaml" -o rsda.h5 --quiet --set time.end=0.05 2>err ||
	bad "run pend_rsda" "$(cat err)"
expect_rc 0 "export --csv of a deck with forces and measures" "$MBSIM" export --csv rsda.h5
grep -q '^time \[s\].*forces/.*measures/' rsda.csv && ok "rsda.csv has /forces and /measures columns" ||
	bad "rsda.csv columns" "$(head -1 rsda.csv | head -c 400)"
csv_ok "rsda.csv: values exact" rsda.csv rsda.h5 --default

# 2. --quantity: the columns named, in that order, to stdout with -o -
expect_rc 0 "export --csv -o - --quantity ..." "$MBSIM" export --csv slider_crank.h5 -o - \
	--quantity bodies/slider/position:x --quantity /energy/total \
	--quantity bodies/crank/orientation --quantity joints/uni_c/multipliers:1
cp out q.csv
h=$(head -1 q.csv)
want='time [s],bodies/slider/position:x [m],energy/total [J],bodies/crank/orientation:w [1],bodies/crank/orientation:x [1],bodies/crank/orientation:y [1],bodies/crank/orientation:z [1],'
case $h in
"$want"*) ok "--quantity: columns in the order given, quaternion as w, x, y, z" ;;
*) bad "--quantity header" "$h" ;;
esac
csv_ok "--quantity table: values exact" q.csv slider_crank.h5
# the checker fails on a value one ulp off (it tests exactness): row 5, column 2
"$PY" -c 'import csv, math
r = list(csv.reader(open("q.csv", newline="")))
r[5][1] = repr(math.nextafter(float(r[5][1]), math.inf))
csv.writer(open("q2.csv", "w", newline="")).writerows(r)'
if $check q2.csv slider_crank.h5 >chk 2>&1; then bad "csv_check passes a value one ulp off" "$(cat chk)"
else ok "csv_check fails on a value one ulp off"; fi

# 3. a tools/sweep run: every run's table against its file
if command -v parallel >/dev/null 2>&1; then
	expect_rc 0 "sweep of the pendulum (2 x 2)" "$top/tools/sweep" -o sw -j 2 --mbsim "$MBSIM" \
		"$decks/double_pendulum.yaml" integrator.method=hi,lms2 integrator.step=1e-3,2e-3 \
		-- --set time.end=0.05
	n=0
	for f in sw/*.h5; do
		"$MBSIM" export --csv -q "$f" 2>err && $check "${f%.h5}.csv" "$f" --default >chk 2>&1 &&
			n=$((n + 1)) || bad "sweep: $f" "$(cat err chk)"
	done
	[ "$n" = 4 ] && ok "sweep: the 4 runs' tables exact" || bad "sweep: $n of 4 tables exact"
else
	skip "sweep tables" "GNU parallel is not installed (tools/install-deps --test installs it)" 2
fi

# 4. refusals: exit 1, no CSV left
expect_rc 1 "missing file" "$MBSIM" export --csv nothing.h5
grep -q "nothing.h5.*No such file" err && ok "missing file: 'No such file'" || bad "missing file: message"
echo "a,b" >plain.h5
expect_rc 1 "a file that is not HDF5" "$MBSIM" export --csv plain.h5
grep -q "not an HDF5 file" err && ok "not HDF5: message" || bad "not HDF5: message"
"$PY" -c 'import h5py; h5py.File("other.h5", "w")["x"] = [1.0, 2.0]'
expect_rc 1 "an HDF5 file that is not an output" "$MBSIM" export --csv other.h5
grep -q "/time" err && ok "not an output: names /time" || bad "not an output: message"
[ -e other.csv ] && bad "other.csv was written"
"$MBSIM" modes "$decks/double_pendulum.yaml" -o modes.h5 >/dev/null 2>&1
expect_rc 1 "a modes file" "$MBSIM" export --csv modes.h5
expect_rc 1 "a missing quantity" "$MBSIM" export --csv double_pendulum.h5 -o miss.csv \
	--quantity bodies/nobody/position
grep -q "nobody" err && ok "missing quantity: named" || bad "missing quantity: message"
[ -e miss.csv ] || [ -e miss.csv.partial ] && bad "a missing quantity left a file"
expect_rc 1 "a missing component" "$MBSIM" export --csv double_pendulum.h5 -o - \
	--quantity bodies/bar1/position:w
grep -q "no component 'w'" err && ok "missing component: named" || bad "missing component: message"
expect_rc 64 "-o with two files" "$MBSIM" export --csv a.h5 b.h5 -o x.csv
expect_rc 64 "-o onto the input" "$MBSIM" export --csv double_pendulum.h5 -o double_pendulum.h5
expect_rc 64 "--csv with --every" "$MBSIM" export --csv --every 2 double_pendulum.h5
expect_rc 64 "--quantiy suggests" "$MBSIM" export --csv --quantiy x double_pendulum.h5
grep -q "did you mean '--quantity'" err && ok "--quantiy: suggestion" || bad "--quantiy: suggestion"
expect_rc 0 "export --csv --help" "$MBSIM" export --csv --help
grep -q "export --csv" out && ok "--help prints the synopsis" || bad "--help" "$(cat out)"

finish
