#!/bin/sh
# t-viscous.sh - the viscous element (src/elem/elem_viscous.c), the
# element added through the force-element interface alone, against the
# closed forms of tests/forces/viscous.yaml (a ball under gravity and
# linear drag; two free bodies coupled by a viscous element):
#
#   1. rn4 at h = 1e-3: the ball's position and velocity at t = 2 equal the
#      closed form to 1e-9 (the scheme's error, 4th order, is some 1e-13
#      here: |v''''| tau^-4 h^4 ~ 1e-12); the pair's relative velocity
#      decays as exp(-c (1/m1 + 1/m2) t) to 1e-9 and its centre of mass
#      moves as a free fall to 1e-9;
#   2. lms2 and genalpha (second order, h = 1e-3) to 1e-5 m: the element in the
#      Newton iterations of the implicit schemes (its blocks c I);
#   3. /forces/power of the drag is -c |v|^2 of the ball's velocity at
#      every sample to 1e-12 relative, /forces/force on the ball -c v;
#   4. a viscous element without damping, or with a negative one: exit 2
#      at FILE:LINE:COL.
#
#   MBSIM=build/mbsim sh tests/t-viscous.sh
# Prints "N passed, N failed, N skipped"; exits 1 on any failure.

# shellcheck source=tests/lib.sh
. "$(dirname "$0")/lib.sh"

deck=$top/tests/forces/viscous.yaml

# closed forms of the deck's comment: m = 2, c = 0.8, r0 = (0, 0, 1),
# v0 = (1, -2, 3), g = (0, 0, -9.81); pair m1 = 1, m2 = 3, v1 = (0.5, 0, 0),
# v2 = (-1, 0.4, 0.2), r1 = (5, 0, 0), r2 = (6, 0, 0)
check() {	# $1 label, $2 file, $3 tolerance
	pycheck "$1" "
c = 0.8; g = np.array([0, 0, -9.81])
m = 2.0; tau = m / c; r0 = np.array([0, 0, 1.0]); v0 = np.array([1, -2, 3.0]); vt = tau * g
f = h5py.File('$2', 'r')
t = series(f, 'time')
e = np.exp(-t / tau)[:, None]
v = vt + (v0 - vt) * e
r = r0 + vt * t[:, None] + (v0 - vt) * tau * (1 - e)
dr = np.max(np.abs(series(f, 'bodies/ball/position') - r))
dv = np.max(np.abs(series(f, 'bodies/ball/velocity') - v))
m1, m2 = 1.0, 3.0; v1 = np.array([0.5, 0, 0]); v2 = np.array([-1, 0.4, 0.2])
u = (v2 - v1) * np.exp(-c * (1 / m1 + 1 / m2) * t)[:, None]
du = np.max(np.abs(series(f, 'bodies/b/velocity') - series(f, 'bodies/a/velocity') - u))
rc0 = (m1 * np.array([5, 0, 0.0]) + m2 * np.array([6, 0, 0.0])) / (m1 + m2)
vc0 = (m1 * v1 + m2 * v2) / (m1 + m2)
rc = rc0 + vc0 * t[:, None] + 0.5 * g * t[:, None] ** 2
dc = np.max(np.abs((m1 * series(f, 'bodies/a/position') + m2 * series(f, 'bodies/b/position'))
                   / (m1 + m2) - rc))
ok = t[-1] == 2.0 and max(dr, dv, du, dc) <= $3
msg = 'position %.3g, velocity %.3g, pair %.3g, centre %.3g (bound $3)' % (dr, dv, du, dc)"
}

"$MBSIM" run "$deck" -o "$tmp/rn4.h5" >/dev/null 2>"$tmp/err" || bad "run rn4" "$(cat "$tmp/err")"
check "rn4: ball and pair equal their closed forms" "$tmp/rn4.h5" 1e-9
for s in lms2 genalpha; do
	"$MBSIM" run "$deck" --set integrator.method=$s -o "$tmp/$s.h5" >/dev/null 2>"$tmp/err" ||
		bad "run $s" "$(cat "$tmp/err")"
	check "$s: ball and pair equal their closed forms" "$tmp/$s.h5" 1e-5
done

pycheck "power -c |v|^2 and force -c v of the drag, every sample" "
f = h5py.File('$tmp/rn4.h5', 'r')
v = series(f, 'bodies/ball/velocity')
P = series(f, 'forces/drag/power'); F = series(f, 'forces/drag/force')
Pe = -0.8 * np.sum(v * v, axis=1)
dP = np.max(np.abs(P - Pe) / np.abs(Pe)); dF = np.max(np.abs(F + 0.8 * v))
ok = dP <= 1e-12 and dF <= 1e-12 and len(P) > 100
msg = 'power %.3g relative, force %.3g' % (dP, dF)"

# 4. damping required and positive
sed 's/damping: c}/}/' "$deck" >"$tmp/nodamp.yaml"
expect_rc 2 "viscous without damping refused" "$MBSIM" check "$tmp/nodamp.yaml"
grep -q "nodamp.yaml:[0-9]*:[0-9]*: error: .*damping" "$tmp/out" "$tmp/err" 2>/dev/null &&
	ok "the message names damping at FILE:LINE:COL" ||
	bad "the message names damping at FILE:LINE:COL" "$(cat "$tmp/out" "$tmp/err" 2>/dev/null | head -3)"
sed 's/damping: c}/damping: -1}/' "$deck" >"$tmp/neg.yaml"
expect_rc 2 "negative damping refused" "$MBSIM" check "$tmp/neg.yaml"

finish
