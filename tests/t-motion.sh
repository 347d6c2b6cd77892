#!/bin/sh
# t-motion.sh - motion laws (mbsim-deck(5), FUNCTIONS): expression, table
# (linear, monotone, spline, natural_spline), step, step5, harmonic and
# piecewise with a law per segment.
#
# 1. tests/motion/laws.yaml drives nine sliders, one law each, under every
#    scheme of `mbsim list integrators`; tests/motion_check.py compares
#    each slider's position, velocity and acceleration with the law and
#    its derivatives written by hand (SciPy, numpy for the tables) to
#    1e-10 of the series' magnitude.  Which derivatives a scheme meets
#    exactly depends on the scheme, not on the law: the index-3 schemes
#    (families half_implicit, fully_implicit, dae3) impose the position
#    constraint only, so their velocities and accelerations carry the
#    scheme's error (hi: 4e-3 relative on a harmonic at h = 1e-3) and only
#    positions are checked; the dae3 schemes that take integrator.index: 2
#    impose the velocity constraint as well (positions and velocities
#    checked); tangent_newmark and the schemes of rp and tree (rosenbrock,
#    adams, ida, erk) meet all three levels (all checked).
# 2. A CSV table of sin(2 pi t) sampled at 1 kHz drives four sliders, one
#    per interpolation; each is within its interpolation's error bound of
#    the sine (motion_check.py, sine_bounds: h^2/8 max|f''| for linear,
#    5/384 h^4 max|f''''| for the splines, ...).
# 3. A motor's target (a controller target) takes the laws too: the PID
#    motor of tests/forces/pid.yaml with its step target written as a
#    piecewise of a constant and an expression gives the same efforts to
#    the last bit.
# 4. Errors: an unknown type lists the known ones; an unknown name in an
#    expression is reported at its column with a suggestion; a syntax error
#    with muparser's message; bad tables and segments.
#
#   MBSIM=build/mbsim sh tests/t-motion.sh
. "$(dirname "$0")/lib.sh"
cd "$top" || exit 1

if ! have_scipy; then
	skip "motion laws" "SciPy or h5py" 60
	finish
	exit $?
fi

# 1. every scheme
"$MBSIM" list integrators >"$tmp/schemes" || bad "list integrators"
n=0
while read -r name family form rest; do
	case $family in
	tangent | rosenbrock | adams | ida | erk) levels=3 ;;
	*) levels=1 ;;
	esac
	n=$((n + 1))
	if "$MBSIM" run tests/motion/laws.yaml --set "integrator.method=$name" -o "$tmp/l.h5" \
		--force -q >"$tmp/out" 2>"$tmp/err" &&
		"$PY" tests/motion_check.py "$tmp/l.h5" "$levels" >"$tmp/chk" 2>&1; then
		ok "laws under $name: levels 1-$levels exact"
	else
		bad "laws under $name (levels 1-$levels)" "$(cat "$tmp/err" "$tmp/chk")"
	fi
	case $rest in
	*"index 2: -"*) continue ;;
	esac
	# the index-2 form imposes the velocity constraint too
	if "$MBSIM" run tests/motion/laws.yaml --set "integrator.method=$name" \
		--set integrator.index=2 -o "$tmp/l.h5" --force -q >"$tmp/out" 2>"$tmp/err" &&
		"$PY" tests/motion_check.py "$tmp/l.h5" 2 >"$tmp/chk" 2>&1; then
		ok "laws under $name, index 2: levels 1-2 exact"
	else
		bad "laws under $name, index 2 (levels 1-2)" "$(cat "$tmp/err" "$tmp/chk")"
	fi
done <"$tmp/schemes"
# 27 schemes today; fewer means the list was not read
[ "$n" -ge 27 ] && ok "every scheme of the list ($n)" || bad "only $n schemes listed"

# 2. a sine sampled at 1 kHz from a CSV file
"$PY" -c '
import numpy as np
t = np.round(np.arange(0, 1.0005, 1e-3), 12)
with open("'"$tmp"'/sine.csv", "w") as f:
    f.write("t,value\n")
    for x in t:
        f.write("%r,%r\n" % (float(x), float(np.sin(2 * np.pi * x))))
'
cp tests/motion/sine.yaml "$tmp/sine.yaml"
# rn4 meets positions and velocities exactly (part 1), so what is checked
# is the interpolant
if "$MBSIM" run "$tmp/sine.yaml" -o "$tmp/s.h5" --force -q 2>"$tmp/err" &&
	"$PY" tests/motion_check.py --sine "$tmp/s.h5" 1e-3 >"$tmp/chk" 2>&1; then
	ok "CSV sine at 1 kHz within each interpolation's bound: $(tr '\n' ' ' <"$tmp/chk")"
else
	bad "CSV sine at 1 kHz" "$(cat "$tmp/err" "$tmp/chk")"
fi

# 3. a controller target
sed 's/target: {type: piecewise, segments: \[{start: 0, coefficients: \[0\]}, {start: 0.1, coefficients: \[1\]}\]}/target: {type: piecewise, segments: [{start: 0, function: {type: constant, value: 0}}, {start: 0.1, function: {type: expression, expression: "2*t^0 - 1"}}]}/' \
	tests/forces/pid.yaml >"$tmp/pid_law.yaml"
if grep -q 'expression: "2\*t^0 - 1"' "$tmp/pid_law.yaml" &&
	"$MBSIM" run tests/forces/pid.yaml --set time.end=0.5 -o "$tmp/p0.h5" -q 2>"$tmp/err" &&
	"$MBSIM" run "$tmp/pid_law.yaml" --set time.end=0.5 -o "$tmp/p1.h5" -q 2>"$tmp/err"; then
	pycheck "motor target as laws: the same efforts" "
a = h5py.File('$tmp/p0.h5'); b = h5py.File('$tmp/p1.h5')
ea, eb = series(a, 'forces/servo/effort'), series(b, 'forces/servo/effort')
ok = ea.shape == eb.shape and np.array_equal(ea, eb) and np.max(np.abs(ea)) > 1
msg = 'max difference %g, max effort %g' % (np.max(np.abs(ea - eb)), np.max(np.abs(ea)))"
else
	bad "motor target as laws" "$(cat "$tmp/err")"
fi

# 4. errors, at their FILE:LINE:COL
law() {
	sed "s|LAW|$1|" >"$tmp/bad.yaml" <<'EOF'
time: {end: 0.1}
parameters: {amp: 0.2}
bodies:
  - {name: s, mass: 1, inertia: [1, 1, 1]}
joints:
  - {name: j, type: translational, body1: ground, body2: s, axis: [1, 0, 0], point: [0, 0, 0]}
drivers:
  - {name: d, joint: j, function: LAW}
EOF
	expect_rc 2 "$2" "$MBSIM" check "$tmp/bad.yaml"
	grep -q "$3" "$tmp/err" && ok "$2: message" || bad "$2: message" "$(cat "$tmp/err")"
}
law '{type: expresion, expression: "t"}' "unknown type" \
	"bad.yaml:8:42: note: function types: constant, rate, polynomial, harmonic, cosine_ramp, piecewise, rate_ramps, expression, table, step, step5"
law '{type: expression, expression: "amp*sin(tt)"}' "unknown name in an expression" \
	"bad.yaml:8:75: error: unknown name 'tt' (a motion law knows t and the parameters) (did you mean 't'?)"
law '{type: expression, expression: "sinh(t"}' "syntax error in an expression" \
	"bad.yaml:8:.*: error: expected ')' after the arguments of sinh"
law '{type: expression, expression: "amp*sn(t)"}' "unknown function in an expression" \
	"error: unknown function 'sn' in a motion law (did you mean 'sin'?)"
law '{type: table, times: [0, 1, 1], values: [0, 1, 2]}' "table times not increasing" \
	"error: times values of function of driver 'd' must be strictly increasing (point 3: 1 after 1)"
law '{type: table, times: [0, 1], values: [0, 1, 2]}' "table lengths" \
	"has 2 times values and 3 values values"
law '{type: table, times: [0, 1], values: [0, 1], interpolation: cubic}' "table interpolation" \
	"unknown interpolation 'cubic'"
law '{type: step5, from: 0, to: 1, start: 1, end: 1}' "step end <= start" \
	"end of step5 in function of driver 'd' must be greater than its start"
law '{type: piecewise, segments: [{start: 0, coefficients: [1], function: {type: constant, value: 1}}]}' \
	"segment with both" "has both 'coefficients' and 'function'"
law '{type: piecewise, segments: [{start: 0, function: {type: piecewise, segments: []}}]}' \
	"piecewise in a segment" "cannot be piecewise itself"
law '{type: table, file: nofile.csv}' "missing table file" "cannot open '.*nofile.csv'"

finish
