#!/bin/sh
# t-forces.sh - force elements of issue 15 items 1-5: expressions of time
# and state, tabulated curves, bushings, joint motors with feedback, the
# /forces and /measures output.  Decks in tests/forces/; every expected
# number is analytic (the decks' comments) or another formulation of the
# same model, never an earlier mbsim run.
#
#   MBSIM=build/mbsim sh tests/t-forces.sh
#
#   1. pend_rsda.yaml (rotational spring-damper) against pend_expr.yaml
#      (a motor with effort -k q.pivot - c qd.pivot) and pend_torque.yaml
#      (a torque load with that multiplier), with hi, fi, lms2 and
#      genalpha: positions equal to round-off (1e-12 m) and the Newton
#      iterations of every step equal (/solver/newton_iterations);
#   2. the force Jacobian blocks reach Newton: a stiff rsda (k = 4e5 N m/rad)
#      with lms2 takes 2.00 iterations a step (6.00 without the blocks, as
#      before issue 15);
#   3. curve.yaml (a tabulated spring law), curve_csv.yaml (the same from
#      a CSV file) and curve_expr.yaml (the law as an expression): equal to
#      1e-12 m; the spring visits compression and extension;
#   4. bushing.yaml: mbsim static gives the hand values of its comment to
#      1e-9 (translation -0.003405 m, rotation 0.01 rad); bushing_curve.yaml
#      (the force along z from a curve) its hand value -0.00117147 m;
#   5. pd.yaml: a PD motor's step response has the analytic overshoot and
#      2 % settling time of the second-order system to 1 %;
#   6. pid.yaml: the integral removes the offset L / kp = 0.1 rad that the
#      same law without it (ki = 0) leaves, and the effort stays within
#      its limit of 30 N m and reaches it; rate.yaml: a P motor on a rate
#      and a constant-effort motor in a translational joint against their
#      closed-form motions;
#   7. /forces of every force element of the shipped decks, /measures
#      through the logical names of summary, compare and converge;
#   8. bad decks: unknown joint or body in an expression (did you mean),
#      curve knots not increasing, motor without a law, gains that do not
#      apply: exit 2 at FILE:LINE:COL;
#   9. point_expr.yaml: a body-fixed point's x.P ... vz.P in expressions
#      equal the same written with its body (r + A s, v + w x A s) to
#      1e-14 in measures, and a damping force on vz.tip gives the run of
#      the same law on vz.bar and wx.bar to 1e-12 m with hi and lms2, with
#      equal Newton iterations; wx.tip (a point has no angular velocity)
#      is an error at FILE:LINE:COL; vz.tpi suggests vz.tip (the closest
#      name, not the last one made: vz.bar, as it did before);
#  10. repeat_expr.yaml: a repeat block's springs k*i*deflection (the text
#      names the index: one parser each) and dampers c*rate (one shared
#      parser) run as the same deck with stiffness "k*i", damping c, to
#      1e-12 m, and the copies move differently (so a shared i would
#      show); sharing itself: test_force.c's test_sexpr_cache.
# Prints "N passed, N failed, N skipped"; exits 1 on any failure.

# shellcheck source=tests/lib.sh
. "$(dirname "$0")/lib.sh"

fd=$top/tests/forces

# 1. expression = rotational spring-damper, four schemes
for m in hi fi lms2 genalpha; do
	for d in pend_rsda pend_expr pend_torque; do
		"$MBSIM" run "$fd/$d.yaml" -o "$tmp/$d-$m.h5" --set integrator.method=$m \
			>/dev/null 2>"$tmp/err" || bad "run $d $m"
	done
	pycheck "$m: expression torque = rsda to 1e-12 m, same Newton iterations every step" "
a = h5py.File('$tmp/pend_rsda-$m.h5')
ok = True
for d in ('pend_expr', 'pend_torque'):
    b = h5py.File('$tmp/' + d + '-$m.h5')
    dp = np.abs(a['/bodies/position'][:] - b['/bodies/position'][:]).max()
    ia = a['/solver/newton_iterations'][:]; ib = b['/solver/newton_iterations'][:]
    ok = ok and dp <= 1e-12 and ia.shape == ib.shape and (ia == ib).all()
    msg += '%s: max |dr| %g, steps with other iterations %d; ' % (d, dp, (ia != ib).sum())
"
done

# 1b. static and modes see the expression as they see the rsda
"$MBSIM" modes "$fd/pend_rsda.yaml" --json >"$tmp/mr.json" 2>"$tmp/err" || bad "modes pend_rsda"
"$MBSIM" modes "$fd/pend_expr.yaml" --json >"$tmp/me.json" 2>"$tmp/err" || bad "modes pend_expr"
pycheck "modes: expression = rsda; Re s = -c / (2 J_pin) = -0.8 / 1.4 to 1e-9" "
a = json.load(open('$tmp/mr.json')); b = json.load(open('$tmp/me.json'))
ea = a['modes'][0]['eigenvalue']; eb = b['modes'][0]['eigenvalue']
# J_pin = 0.2 + m (len/2)^2 = 0.2 + 2 * 0.25 (the deck's inertia and centroid)
ok = abs(ea[0] - eb[0]) <= 1e-12 and abs(ea[1] - eb[1]) <= 1e-9 * abs(ea[1]) and abs(eb[0] + 0.8 / 1.4) <= 1e-9
msg = '%s %s' % (ea, eb)
"

# 2. the finite-difference force Jacobian in the Newton matrix
"$MBSIM" run "$fd/pend_rsda.yaml" -o "$tmp/stiff.h5" --set integrator.method=lms2 \
	--set parameters.k=4e5 >/dev/null 2>&1
pycheck "stiff rsda with lms2: 2.00 Newton iterations a step (6.00 without force blocks)" "
it = h5py.File('$tmp/stiff.h5')['/solver/newton_iterations'][1:]
ok = it.mean() <= 2.0; msg = 'mean %g' % it.mean()
"

# 3. curves
for d in curve curve_csv curve_expr; do
	"$MBSIM" run "$fd/$d.yaml" -o "$tmp/$d.h5" >/dev/null 2>"$tmp/err" || bad "run $d"
done
pycheck "tabulated spring = CSV curve = expression of the law, 1e-12 m, both branches" "
a = h5py.File('$tmp/curve.h5'); b = h5py.File('$tmp/curve_expr.h5'); c = h5py.File('$tmp/curve_csv.h5')
r = a['/bodies/position'][:]
d1 = np.abs(r - b['/bodies/position'][:]).max(); d2 = np.abs(r - c['/bodies/position'][:]).max()
de = a['/forces/deflection'][:, 0]
ok = d1 <= 1e-12 and d2 <= 1e-12 and de.min() < -0.05 and de.max() > 0.05
msg = 'expr %g csv %g deflection [%g, %g]' % (d1, d2, de.min(), de.max())
"

# 4. bushing statics
expect_rc 0 "static bushing.yaml --json" "$MBSIM" static "$fd/bushing.yaml" --json
pycheck "bushing: z = -(m g - P)/kz, rotation T/kr to 1e-9, nothing else" "
j = json.load(open('$tmp/out'))
b = j['bodies'][0]; d = b['displacement']; q = b['orientation']
th = 2 * np.arcsin(q[1])
ok = (abs(d[2] + (10 * 9.81 - 30) / 2e4) <= 1e-9 and abs(th - 5 / 500) <= 1e-9
      and abs(d[0]) <= 1e-12 and abs(d[1]) <= 1e-12 and abs(q[2]) <= 1e-12 and abs(q[3]) <= 1e-12)
msg = json.dumps(b)
"

expect_rc 0 "static bushing_curve.yaml --json" "$MBSIM" static "$fd/bushing_curve.yaml" --json
pycheck "bushing with a force curve along z: hand value -0.00117147368421053 m to 1e-9" "
j = json.load(open('$tmp/out'))
b = j['bodies'][0]; d = b['displacement']; th = 2 * np.arcsin(b['orientation'][1])
ok = abs(d[2] - (-0.001 - 18.1 * 0.009 / 950)) <= 1e-9 and abs(th - 0.01) <= 1e-9
msg = json.dumps(b)
"

# 5. PD step response.  1 %: hi is first order, so at the deck's h = 1e-3 s
# its relative error in a response of frequency w_n = 10 rad/s is of the
# order w_n h = 1e-2; the settling time read from samples 1e-3 s apart is
# resolved to 1e-3 / 1.96 = 5e-4 of it (measured 6.6e-4 and 1.6e-3)
"$MBSIM" run "$fd/pd.yaml" -o "$tmp/pd.h5" >/dev/null 2>"$tmp/err" || bad "run pd.yaml"
pycheck "PD step: overshoot and 2 % settling time of the analytic response to 1 %" "
f = h5py.File('$tmp/pd.h5'); t = f['/time'][:]; q = f['/joints/coordinate'][:, 0]
J, kp, kd = 0.5, 50.0, 2.0
wn = np.sqrt(kp / J); z = kd / (2 * np.sqrt(kp * J)); wd = wn * np.sqrt(1 - z * z)
os_exact = np.exp(-z * np.pi / np.sqrt(1 - z * z))
# settling: last time the exact response leaves the 2 % band, on a 1e-6 s grid
tt = np.arange(0, 2.9, 1e-6)
x = 1 - np.exp(-z * wn * tt) * (np.cos(wd * tt) + z / np.sqrt(1 - z * z) * np.sin(wd * tt))
ts_exact = tt[np.nonzero(np.abs(x - 1) > 0.02)[0][-1] + 1]
out = np.nonzero(np.abs(q - 1) > 0.02)[0]
ts = t[out[-1] + 1] - 0.1
os_ = q.max() - 1
ok = abs(os_ / os_exact - 1) <= 0.01 and abs(ts / ts_exact - 1) <= 0.01
msg = 'overshoot %.6f (exact %.6f), settling %.4f s (exact %.4f s)' % (os_, os_exact, ts, ts_exact)
"

# 6. PID against a constant load, effort limit
"$MBSIM" run "$fd/pid.yaml" -o "$tmp/pid.h5" --set time.end=6 >/dev/null 2>"$tmp/err" ||
	bad "run pid.yaml"
"$MBSIM" run "$fd/pid.yaml" -o "$tmp/pd0.h5" --set time.end=6 --set forces.servo.ki=0 \
	>/dev/null 2>"$tmp/err" || bad "run pid.yaml ki=0"
pycheck "PID removes the offset L/kp = 0.1 rad of its ki = 0 variant; |effort| <= limit 30" "
f = h5py.File('$tmp/pid.h5'); g = h5py.File('$tmp/pd0.h5')
q = f['/joints/coordinate'][-1, 0]; q0 = g['/joints/coordinate'][-1, 0]
e = f['/forces/effort'][:, 0]
ok = abs(q - 1) < 0.01 and abs(q0 - 0.9) < 0.01 and np.abs(e).max() == 30.0
msg = 'pid %g, ki = 0 %g, max |effort| %g' % (q, q0, np.abs(e).max())
"

# 6b. rate control and a translational motor
"$MBSIM" run "$fd/rate.yaml" -o "$tmp/rate.h5" --set integrator.method=lms2 >/dev/null \
	2>"$tmp/err" || bad "run rate.yaml"
pycheck "on: rate P motor: w = 2 (1 - exp(-10 t)) to 2e-5; 5 N push: x = 1.25 t^2 to 1e-12 m" "
f = h5py.File('$tmp/rate.h5'); t = f['/time'][:]
w = f['/forces/rate'][:, 0]; x = f['/forces/deflection'][:, 1]; mv = f['/measures/value'][:]
ew = np.abs(w - 2 * (1 - np.exp(-10 * t))).max(); ex = np.abs(x - 1.25 * t * t).max()
# 2e-5: lms2's second-order error, (10 h)^2 / 12 of the command 2 is 1.7e-5;
# a constant acceleration is integrated exactly; q.rail = x.slider - 1, wz = qd
ok = ew <= 2e-5 and ex <= 1e-12 and np.abs(mv[:, 0]).max() <= 1e-12 and np.abs(mv[:, 1] - w).max() <= 1e-12
msg = 'rate %g, push %g' % (ew, ex)
"

# 7. outputs
for d in andrews_squeezer pendulum_array slider_crank_friction spring_top; do
	"$MBSIM" run "$decks/$d.yaml" -o "$tmp/$d.h5" --set time.end=0.01 >/dev/null 2>"$tmp/err" ||
		bad "run $d"
	pycheck "$d: /forces has every force element and its series" "
import yaml
f = h5py.File('$tmp/$d.h5')
deck = yaml.safe_load(f['/deck'][()].decode() if isinstance(f['/deck'][()], bytes) else f['/deck'][()])
names = [n.decode() for n in f['/forces/names'][:]]
n = len(names)
ok = n >= 1 and all(f['/forces/' + q].shape[1] == n for q in
	('force', 'torque', 'deflection', 'rate', 'power', 'energy', 'effort'))
ok = ok and f['/forces/force'].shape[2] == 3 and np.isfinite(f['/forces/power'][:]).all()
msg = 'names %s' % names
"
done
pycheck "pend_rsda: measures/angle = joints/pivot/coordinate; height check 1e-12; spring energy k q^2/2" "
import sys; sys.path.insert(0, '$top/tools')
from mbsimlib import series
f = h5py.File('$tmp/pend_rsda-hi.h5')
a = series(f, 'measures/angle/value'); q = series(f, 'joints/pivot/coordinate')
h = series(f, 'measures/height_check/value'); E = series(f, 'forces/spring/energy')
ok = np.abs(a - q).max() <= 1e-12 and np.abs(h).max() <= 1e-12 and np.abs(E - 20 * q * q).max() <= 1e-10
msg = '%g %g %g' % (np.abs(a - q).max(), np.abs(h).max(), np.abs(E - 20 * q * q).max())
"
expect_rc 0 "summary reads measures/angle/value@1" "$MBSIM" summary "$tmp/pend_rsda-hi.h5" \
	--quantity measures/angle/value@1 --json
expect_rc 0 "compare takes measures/.../value and forces/.../torque" "$MBSIM" compare \
	"$tmp/pend_rsda-hi.h5" "$tmp/pend_expr-hi.h5" --quantity measures/angle/value \
	--quantity forces/spring/torque --rtol 1e-9 --atol 1e-12
expect_rc 0 "converge takes measures/angle/value" "$MBSIM" converge "$fd/pend_rsda.yaml" \
	--steps 4e-3,2e-3,1e-3 --quantity measures/angle/value --set time.end=0.2 --quiet

# 8. bad decks
sed 's/q.pivot - c/q.pivt - c/' "$fd/pend_expr.yaml" >"$tmp/bad1.yaml"
expect_rc 2 "unknown joint in q.X: exit 2" "$MBSIM" check "$tmp/bad1.yaml"
grep -q "bad1.yaml:16:63: error: unknown joint 'pivt' in 'q.pivt' (did you mean 'q.pivot'?)" "$tmp/err" &&
	ok "unknown joint: FILE:LINE:COL and did you mean" || bad "unknown joint message"
sed 's/q.pivot - c/k*x.bra - c/' "$fd/pend_expr.yaml" >"$tmp/bad2.yaml"
expect_rc 2 "unknown body in x.B: exit 2" "$MBSIM" check "$tmp/bad2.yaml"
grep -q "did you mean 'x.bar'" "$tmp/err" && ok "unknown body: did you mean" ||
	bad "unknown body message"
sed 's/x: \[-1, 0, 1\]/x: [-1, 0, 0]/' "$fd/curve.yaml" >"$tmp/bad3.yaml"
expect_rc 2 "curve knots not increasing: exit 2" "$MBSIM" check "$tmp/bad3.yaml"
grep -q "bad3.yaml:14:20: error: x values of curve .law. must be strictly increasing" "$tmp/err" && ok "curve knots: FILE:LINE" ||
	bad "curve knots message"
sed '/control: pd/d' "$fd/pd.yaml" >"$tmp/bad4.yaml"
expect_rc 2 "motor without expression or control: exit 2" "$MBSIM" check "$tmp/bad4.yaml"
sed 's/control: pd/control: p/' "$fd/pd.yaml" >"$tmp/bad5.yaml"
expect_rc 2 "kd with control p: exit 2" "$MBSIM" check "$tmp/bad5.yaml"
grep -q "bad5.yaml:.*'kd' does not apply to control p" "$tmp/err" && ok "kd with p: message" ||
	bad "kd with p message"
sed 's/{z: zlaw}/{z: zlwa}/' "$fd/bushing_curve.yaml" >"$tmp/bad7.yaml"
expect_rc 2 "unknown curve in stiffness_curves: exit 2" "$MBSIM" check "$tmp/bad7.yaml"
grep -q "bad7.yaml:.*unknown curve 'zlwa'.*did you mean 'zlaw'" "$tmp/err" &&
	ok "unknown curve: did you mean" || bad "unknown curve message"
sed 's/law.csv/nothere.csv/' "$fd/curve_csv.yaml" >"$tmp/bad6.yaml"
expect_rc 2 "missing CSV file: exit 2" "$MBSIM" check "$tmp/bad6.yaml"

# 9. body-fixed points in expressions
for m in hi lms2; do
	"$MBSIM" run "$fd/point_expr.yaml" -o "$tmp/pt1.h5" --set integrator.method=$m >/dev/null \
		2>"$tmp/err" || bad "run point_expr.yaml $m"
	"$MBSIM" run "$fd/point_expr.yaml" -o "$tmp/pt0.h5" --set integrator.method=$m \
		--set parameters.usepoint=0 >/dev/null 2>"$tmp/err" || bad "run point_expr.yaml usepoint=0 $m"
	pycheck "$m: x.tip ... vz.tip = the body's r + d, v + w x d to 1e-14; force on vz.tip = on the body's to 1e-12 m" "
f = h5py.File('$tmp/pt1.h5'); g = h5py.File('$tmp/pt0.h5')
dm = np.abs(f['/measures/value'][:]).max()
dp = np.abs(f['/bodies/position'][:] - g['/bodies/position'][:]).max()
F = np.abs(f['/forces/force'][:]).max()
it = (f['/solver/newton_iterations'][:] == g['/solver/newton_iterations'][:]).all()
# F > 1 N: the damping force is not negligible, so the comparison could fail
ok = dm <= 1e-14 and dp <= 1e-12 and F > 1 and it
msg = 'measures %g, positions %g, max force %g, iterations equal %s' % (dm, dp, F, it)
"
done
sed 's/vz.tip) +/wx.tip) +/' "$fd/point_expr.yaml" >"$tmp/bad8.yaml"
expect_rc 2 "wx of a point: exit 2" "$MBSIM" check "$tmp/bad8.yaml"
grep -q "bad8.yaml:[0-9]*:[0-9]*: error: 'wx.tip': point 'tip' has a position and a velocity" "$tmp/err" &&
	ok "wx of a point: FILE:LINE:COL and why" || bad "wx of a point message"
sed 's/vz.tip) +/vz.tpi) +/' "$fd/point_expr.yaml" >"$tmp/bad9.yaml"
expect_rc 2 "unknown point: exit 2" "$MBSIM" check "$tmp/bad9.yaml"
grep -q "bad9.yaml:27:32: error: unknown body or point 'tpi' in 'vz.tpi' (did you mean 'vz.tip'?)" "$tmp/err" &&
	ok "unknown point: did you mean the closest, vz.tip" || bad "unknown point message"

# 10. repeat copies: shared parsers keep each copy's constants
sed -e 's/expression: "k\*i\*deflection"/stiffness: "k*i"/' -e 's/expression: "c\*rate"/damping: c/' \
	"$fd/repeat_expr.yaml" >"$tmp/repeat_ref.yaml"
"$MBSIM" run "$fd/repeat_expr.yaml" -o "$tmp/re.h5" >/dev/null 2>"$tmp/err" || bad "run repeat_expr.yaml"
"$MBSIM" run "$tmp/repeat_ref.yaml" -o "$tmp/rr.h5" >/dev/null 2>"$tmp/err" || bad "run its reference"
pycheck "repeat copies: k*i*deflection, c*rate = stiffness k*i, damping c to 1e-12 m; copies differ" "
f = h5py.File('$tmp/re.h5'); g = h5py.File('$tmp/rr.h5')
p = f['/bodies/position'][:]
d = np.abs(p - g['/bodies/position'][:]).max(); spread = np.abs(p[:, 0, 2] - p[:, 2, 2]).max()
ok = d <= 1e-12 and spread > 0.01
msg = 'difference %g, spread of copies 1 and 3 %g' % (d, spread)
"

finish
