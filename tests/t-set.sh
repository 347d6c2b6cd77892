#!/bin/sh
# t-set.sh - --set of lists and of elements of vectors a deck omits, and
# --unset (mbsim-run(1), Loading the deck and overrides).
#
# A free body of tests/set/free.yaml (no gravity, no velocity in the deck)
# under rn4, which integrates a constant acceleration exactly (a
# quadratic is within its order), so at t = T = 0.5 s its centroid is at
# r0 + v0 T + g T^2/2 to round-off (1e-12 m):
#   --set gravity.2=0          the default [0, 0, -9.81] with 0 for z: at rest;
#   --set gravity.0=1          [1, 0, -9.81]: x = T^2/2, z = -9.81 T^2/2;
#   --set 'gravity=[0,0,-1.62]'  the Moon: z = -1.62 T^2/2;
#   --set bodies.ball.velocity.1=5  [0, 5, 0] from the default 0: y = 5 T;
#   --set 'bodies.ball.velocity=[1,2,3]' and a later 'gravity=[0,0,0]'
#                              replacing the list the first --set made;
# tests/set/repeat.yaml: a copy of a repeat block loses and gains keys;
# the PID motor of tests/forces/pid.yaml made PI by --set control=pi
# --unset kd equals the deck with those lines edited, to the last bit;
# the errors of lists and of --unset, at their --set/--unset column.
#
#   MBSIM=build/mbsim sh tests/t-set.sh
. "$(dirname "$0")/lib.sh"
cd "$top" || exit 1

# NAME X Y Z SETS...: the centroid at the end is (X, Y, Z) within 1e-12 m
at_end() {
	name=$1 x=$2 y=$3 z=$4
	shift 4
	if "$MBSIM" run tests/set/free.yaml "$@" -o "$tmp/f.h5" --force -q 2>"$tmp/err"; then
		pycheck "$name" "
r = series(h5py.File('$tmp/f.h5'), 'bodies/ball/position')[-1]
ok = np.max(np.abs(r - np.array([$x, $y, $z]))) <= 1e-12
msg = 'centroid %r' % r"
	else
		bad "$name" "$(cat "$tmp/err")"
	fi
}
T=0.5
at_end "gravity.2=0 completes the default: at rest" 0 0 0 --set gravity.2=0
at_end "gravity.0=1 keeps the default's z" "$T**2/2" 0 "-9.81*$T**2/2" --set gravity.0=1
at_end "gravity=[0,0,-1.62] as a list" 0 0 "-1.62*$T**2/2" --set 'gravity=[0,0,-1.62]'
at_end "velocity.1=5 of a body without velocity" 0 "5*$T" "-9.81*$T**2/2" \
	--set bodies.ball.velocity.1=5
at_end "a later list replaces an earlier one" "$T" "2*$T" "3*$T" \
	--set 'bodies.ball.velocity=[1,2,3]' --set 'gravity=[0,0,-1.62]' --set 'gravity=[0,0,0]'
at_end "--set=KEY=[list] and --unset of an added key" 0 0 0 \
	'--set=gravity=[0, 0, 0]' --set 'bodies.ball.velocity=[1,2,3]' --unset bodies.ball.velocity

# the copies of a repeat block, after expansion: ball2 loses its velocity
# (at rest at [0, 2, 0]), ball3 gains 4 m/s along z; ball1 moves on
if "$MBSIM" run tests/set/repeat.yaml --unset bodies.ball2.velocity \
	--set bodies.ball3.velocity.2=4 -o "$tmp/r.h5" -q 2>"$tmp/err"; then
	pycheck "--unset and --set in repeat copies" "
f = h5py.File('$tmp/r.h5')
r = np.array([series(f, 'bodies/ball%d/position' % k)[-1] for k in (1, 2, 3)])
ok = np.max(np.abs(r - np.array([[0.5, 1, 0], [0, 2, 0], [0.5, 3, 2]]))) <= 1e-12
msg = repr(r)"
else
	bad "--unset in repeat copies" "$(cat "$tmp/err")"
fi
expect_rc 2 "--unset of a copy that is not there" \
	"$MBSIM" check tests/set/repeat.yaml --unset bodies.ball7.velocity
grep -q "^--unset:1:8: error: no list item named 'ball7' in 'bodies'" "$tmp/err" &&
	ok "--unset of a missing copy: message" || bad "--unset of a missing copy: message"

# PID to PI on the command line
"$MBSIM" run tests/forces/pid.yaml --set time.end=0.3 --set forces.servo.control=pi \
	--unset forces.servo.kd -o "$tmp/pi1.h5" -q 2>"$tmp/err" || bad "PI by --unset" "$(cat "$tmp/err")"
sed '/^    kd: kd$/d; s/^    control: pid$/    control: pi/' tests/forces/pid.yaml >"$tmp/pi.yaml"
if grep -q 'control: pi$' "$tmp/pi.yaml" && ! grep -q 'kd: kd' "$tmp/pi.yaml" &&
	"$MBSIM" run "$tmp/pi.yaml" --set time.end=0.3 -o "$tmp/pi2.h5" -q 2>"$tmp/err"; then
	expect_rc 0 "PID made PI by --set/--unset equals the edited deck, bit for bit" \
		"$MBSIM" compare "$tmp/pi1.h5" "$tmp/pi2.h5" --rtol 0 --atol 0
else
	bad "PI deck" "$(cat "$tmp/err")"
fi
expect_rc 2 "control=pi alone keeps kd: refused" \
	"$MBSIM" check tests/forces/pid.yaml --set forces.servo.control=pi
grep -q "tests/forces/pid.yaml:22:9: error: 'kd' does not apply to control pi of force 'servo'" \
	"$tmp/err" && ok "control=pi alone: message" || bad "control=pi alone: message"

# errors, validated as the deck is
err() {
	err_name=$1 err_pat=$2
	shift 2
	expect_rc 2 "$err_name" "$MBSIM" check tests/set/free.yaml "$@"
	grep -q -- "$err_pat" "$tmp/err" && ok "$err_name: message" || bad "$err_name: message" "$(cat "$tmp/err")"
}
err "a list of 2 for a vector" "^--set:1:9: error: expected a list of 3 numbers for 'gravity', got a list of 2" \
	--set 'gravity=[0,0]'
err "a name in a vector" "^--set:1:14: error: expected a number for 'gravity', got 'x'" \
	--set 'gravity=[0,0,x]'
err "a list for a scalar" "^--set:1:10: error: 'time.end' takes a scalar, got a list" \
	--set 'time.end=[1]'
err "a mapping" "^--set:1:9: error: expected a scalar or a list value, got a mapping" \
	--set 'gravity={a: 1}'
err "an element past a vector" "^--set:1:9: error: no list item named '3' in 'gravity'" \
	--set gravity.3=1
err "a vector without a default" "^--set:1:10: error: 'joints.j.axis' is not in the deck and has no default" \
	--set joints.j.axis.0=1
err "unset a key the deck lacks" "^--unset:1:1: error: 'gravity' is not in the deck: nothing to unset" \
	--unset gravity
err "unset an unknown key" "^--unset:1:13: error: unknown key 'mas' in body (did you mean 'mass'?)" \
	--unset bodies.ball.mas
err "unset a required key" "free.yaml:.*error: missing required key 'end' in time" --unset time.end
err "unset an item of a list" "^--unset:1:21: error: cannot unset an item of a list" \
	--unset bodies.ball.inertia.0
err "--unset with a value" "^--unset:1:1: error: expected KEY for --unset, got 'time.end=1'" \
	--unset time.end=1
expect_rc 64 "--unset without a key" "$MBSIM" check tests/set/free.yaml --unset
"$MBSIM" run --help | grep -q -- '\[--unset KEY\]\.\.\.' && ok "run --help names --unset" ||
	bad "run --help names --unset"

finish
