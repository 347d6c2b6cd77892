#!/bin/sh
# t-review.sh - regressions found reviewing the merge of user, silent and
# hispec (one section per finding, each failed before its fix).
# Usage: MBSIM=build/mbsim sh tests/t-review.sh (from the source root)

# shellcheck source=tests/lib.sh
. "$(dirname "$0")/lib.sh"
udecks=$top/tests/user

# 1. run -o onto an existing FIFO: the output check opened it for reading
# to look for an HDF5 attribute and blocked for ever (no writer comes).
# mbsim-run(1): anything but an earlier output or a character device is
# refused with status 64.  timeout only guards the suite against the hang.
mkfifo "$tmp/fifo"
expect_rc 64 "run -o FIFO: refused, not blocked" \
	timeout 60 "$MBSIM" run "$udecks/wheels.yaml" -o "$tmp/fifo" --quiet
grep -q "is not a regular file" "$tmp/err" && ok "run -o FIFO: the message says why" ||
	bad "run -o FIFO: the message says why"

# 2. A --set into a repeat copy that fails (a key misspelt, a path that is
# not a scalar) was followed by "unknown body 'wheel3' in force 'push3'
# (did you mean 'wheel1'?)": the builder skipped that copy and every copy
# after it, so the forces naming them failed too.  The --set error is the
# only message (as for an item that is no copy, whose --set fails before
# the build).
for s in bodies.wheel3.massx=2 bodies.wheel3=2 bodies.wheel3.position.7=5; do
	expect_rc 2 "--set $s into a repeat copy: exit 2" \
		"$MBSIM" check "$udecks/wheels.yaml" --set "$s"
	n=$(wc -l <"$tmp/err")
	if [ "$n" -eq 1 ] && grep -q '^--set:1:' "$tmp/err"; then
		ok "--set $s: one message, at the --set"
	else
		bad "--set $s: one message, at the --set" "$(cat "$tmp/err")"
	fi
done

# 3. --set parameters.x=1 on a deck without parameters pointed at column 1
# (the missing 'parameters') while naming 'x'; a deck with parameters
# points at the name (column 12, t-user.sh item 2): so does this one.
expect_rc 2 "--set parameters.x on a deck without parameters: exit 2" \
	"$MBSIM" check "$udecks/ramp_arm.yaml" --set parameters.x=1
msg="--set:1:12: error: unknown parameter 'x': the deck defines no parameters"
grep -qxF -- "$msg" "$tmp/err" && ok "--set parameters.x: reported at the name" ||
	bad "--set parameters.x: reported at the name" "want: $msg" "got: $(cat "$tmp/err")"

# 4. mbsim list keys split a help text at its first range marker and took
# the rest as the range: output.times had the range "in [time.start,
# time.end]; the run steps onto each ..." and "(default: X)" was no
# default (joints[].length: default "-", range "> 0 (default: distance at
# t0)").  The columns as t-user.sh item 7 reads them (two blanks or more
# apart); the expected cells are the help texts of src/deck/keys.c.
"$MBSIM" list keys >"$tmp/keys"
key_cells() {	# KEY TYPE DEFAULT RANGE
	line=$(awk -v k="$1" '$1 == k' "$tmp/keys" | sed 's/   */|/g')
	case $line in
	"$1|$2|$3|$4|"*) ok "list keys: $1 is $2, default $3, range $4" ;;
	*) bad "list keys: $1 is $2, default $3, range $4" "got: $line" ;;
	esac
}
key_cells output.times numbers - 'in [time.start, time.end]'
key_cells 'joints[].length' number 'distance at t0' '> 0'
key_cells 'forces[].free_length' number 'length at t0' -
grep -q '^output.times .*sample times in s, increasing; the run steps onto each' "$tmp/keys" &&
	ok "list keys: output.times keeps its whole description" ||
	bad "list keys: output.times keeps its whole description" "$(grep '^output.times' "$tmp/keys")"

# 5. The accuracy note of spectral named "the k-fold root at infinity"
# also at rho_inf = 1, where the error comes from the (k-1)-fold root at
# -1 present at every ratio (mbsim-spectral(1)); it names the cluster at
# -rho_inf.  lms3 at rho_inf 1, ratio 1e6: estimate 9.6e-6 > 1e-6.
"$MBSIM" spectral --method lms3 --rho 1 --ratio-range 1e6:1e7 --points 2 >/dev/null 2>"$tmp/err"
grep -q "note: .*cluster at -rho_inf = 1)" "$tmp/err" && ! grep -q "at infinity" "$tmp/err" &&
	ok "spectral lms3 rho 1: the note names the cluster at -rho_inf" ||
	bad "spectral lms3 rho 1: the note names the cluster at -rho_inf" "$(cat "$tmp/err")"

# 6. spectral --measured of an LMS said nothing below ratio 1e6, where
# its note began, although near rho_inf = 1 the measured radius is off
# much earlier: lms4 at rho_inf 0.99 by 6.6e-5 at ratio 1e4 against the
# 50-digit roots of tools/lms_radius_ref.py (0.99226250562530390).  The
# note now reports the measured radius's largest difference from the
# polynomial's; a difference above 1e-5 (the measured error is 6.6 times
# that) must be there, and the default range (agreement to 2e-11,
# t-spectral-exact.sh 2) stays silent.
"$MBSIM" spectral --method lms4 --rho 0.99 --ratio-range 1e2:1e4 --points 3 --measured \
	>/dev/null 2>"$tmp/err"
d=$(sed -n 's/.*differs by up to \([0-9.e+-]*\) (at ratio 10000).*/\1/p' "$tmp/err")
if [ -n "$d" ] && awk -v d="$d" 'BEGIN { exit !(d > 1e-5) }'; then
	ok "spectral --measured lms4 rho 0.99 to ratio 1e4: note of a difference $d"
else
	bad "spectral --measured lms4 rho 0.99 to ratio 1e4: note of a difference > 1e-5" "$(cat "$tmp/err")"
fi
"$MBSIM" spectral --method lms4 --rho 0.99 --measured >/dev/null 2>"$tmp/err"
[ -s "$tmp/err" ] && bad "spectral --measured lms4 rho 0.99, default range: a note" "$(cat "$tmp/err")" ||
	ok "spectral --measured lms4 rho 0.99, default range: no note"

finish
