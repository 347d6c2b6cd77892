#!/bin/sh
# t-tire.sh - the tire force element (road contact: a unilateral vertical
# spring-damper from a wheel centre to a road z = h(x, y)).  Decks in
# tests/tire/; every expected number comes from the deck's own comment
# (a closed form), never from an earlier mbsim run.
#
#   MBSIM=build/mbsim sh tests/t-tire.sh
#
#   1. rest.yaml, a 100 kg mass on a vertical slider over a level road at
#      h0 = 0.25 m: mbsim static puts it at h0 + R - m g / k = 0.74019 m
#      to 1e-12 m (static's force tolerance 9.81e-8 N over k = 1e5 N/m is
#      1e-12 m); a 2 s run from first touch settles there to 1e-10 m (the
#      transient left, sag exp(-c t / 2m) = 9.81e-3 exp(-20) = 2e-11 m),
#      pushing m g = 981 N to 1e-4 N (k times 1e-9 m) and storing
#      (m g)^2 / 2k = 4.811805 J to 1e-7 J (m g times 1e-10 m);
#   2. drop.yaml, the mass dropped from 0.2 m above first touch: free fall
#      to 1e-12 m before contact (lms2 is exact for a constant
#      acceleration), first contact between the samples at 0.201 and
#      0.202 s (t1 = sqrt(2 * 0.2 / g) = 0.201929 s); off the road the
#      element applies exactly nothing (force, effort 0; acceleration -g
#      to 1e-12); the push is never negative, and at some samples in
#      contact k d + c d' < 0 (a bilateral spring-damper would pull
#      there); the mass leaves the road and lands again, twice at least;
#      the energy balance closes to 0.0196 J, 1e-4 of m g gap = 196 J;
#   3. bump.yaml, a wheel driven at 1 m/s over a cosine bump of 0.05 m:
#      its centre follows h(x) + R - m g / k to 2 m max|h''| / k =
#      1.97e-5 m (hi, lms2 and adaptive esdirk436l2sa2); the same lag
#      without the road's slope in the damper's rate would be
#      c max|h'| v / k = 6.95e-4 m; it rises by A = 0.05 m to 2e-5 m; the
#      energy balance closes to 1e-3 J, 2e-4 of the work m g A = 4.9 J the
#      drive does lifting the wheel (the tire's power less the rate of its
#      spring energy counted as nonconservative: counting the spring's
#      power there as well opens the drop's balance by some 240 J); lms2
#      at h = 1e-2 (omega h = 3.2) completes in at most 2 Newton
#      iterations a step (1.60; without the tire's Jacobian blocks Newton
#      fails at t = 0.05 s);
#   4. malformed tires: exit 2 at FILE:LINE:COL (ground, radius, missing
#      stiffness, a road naming time or state, with "did you mean", a
#      negative lookahead, a lookahead_tolerance of 0);
#      `mbsim list forces` names the type;
#   5. the road look-ahead of adaptive steps (mbsim-deck(5) tire): a wheel
#      over a bump 0.04 m long, driven at 5 m/s (curb.yaml) and pushed
#      from 1 to 11 m/s at 20 m/s^2 (curb_push.yaml).  rn4, lms2,
#      esdirk436l2sa2 and adams at atol = rtol = 1e-5 each cut a step
#      short (road_cuts > 0); the step that enters the bump travels at
#      most one look-ahead spacing (R / 100 = 4 mm: the design); the
#      wheel's height follows a reference, rn4 at 1e-10 with steps of at
#      most 1e-4 s (cubic Hermite between its samples), at every sample:
#      driven within 10 atol = 1e-4 m (measured at most 3.2e-5), pushed
#      within 1e-3 m, 1/500 of the 0.68 m rise a missed bump would leave
#      out (measured at most 1.4e-4: its 0.7 s flight carries the launch's
#      error).  A control: with `lookahead: 0` the same runs of curb.yaml
#      step over the bump (the wheel never rises), so the deck does test
#      the look-ahead.
# Prints "N passed, N failed, N skipped"; exits 1 on any failure.

# shellcheck source=tests/lib.sh
. "$(dirname "$0")/lib.sh"

td=$top/tests/tire

# 1. resting mass
expect_rc 0 "static rest.yaml" "$MBSIM" static "$td/rest.yaml" --json
json_check "static: z = h0 + R - m g / k = 0.74019 m to 1e-12 m" \
	"abs(j['bodies'][0]['position'][2] - (0.25 + 0.5 - 100 * 9.81 / 1e5)) <= 1e-12"
expect_rc 0 "run rest.yaml" "$MBSIM" run "$td/rest.yaml" -o "$tmp/rest.h5"
pycheck "rest: settles at 0.74019 m to 1e-10 m, pushes m g, stores (m g)^2 / 2k" "
f = h5py.File('$tmp/rest.h5')
z = series(f, 'bodies/mass/position')[-1, 2]
push = series(f, 'forces/tyre/effort')[-1]
E = series(f, 'forces/tyre/energy')[-1]
zeq = 0.25 + 0.5 - 100 * 9.81 / 1e5
msg = 'z - zeq %g, push %.9g, energy %.9g' % (z - zeq, push, E)
ok = abs(z - zeq) <= 1e-10 and abs(push - 981) <= 1e-4 and abs(E - 981**2 / 2e5) <= 1e-7"

# 2. a drop: contact, lift-off, landing
expect_rc 0 "run drop.yaml" "$MBSIM" run "$td/drop.yaml" -o "$tmp/drop.h5"
pycheck "drop: free fall to 1e-12 m, first contact at t1 = 0.201929 s" "
f = h5py.File('$tmp/drop.h5')
t = f['time'][:]
z = series(f, 'bodies/mass/position')[:, 2]
d = series(f, 'forces/tyre/deflection')
before = t < 0.2019
fall = np.abs(z[before] - (0.7 - 9.81 * t[before]**2 / 2)).max()
first = t[np.flatnonzero(d > 0)[0]]
msg = 'free fall off by %g m, first contact sample %g s' % (fall, first)
ok = fall <= 1e-12 and abs(first - 0.202) < 1e-9"
pycheck "drop: nothing off the road, never a pull, lifts off and lands twice" "
f = h5py.File('$tmp/drop.h5')
d = series(f, 'forces/tyre/deflection')
r = series(f, 'forces/tyre/rate')
e = series(f, 'forces/tyre/effort')
F = series(f, 'forces/tyre/force')
a = series(f, 'bodies/mass/acceleration')[:, 2]
air = d <= 0
touch = (~air).astype(int)
landings = int(np.sum(np.diff(touch) == 1))
clipped = int(np.sum(~air & (1e5 * d + 200 * r < 0)))
msg = 'off road: |F| %g, |a + g| %g; min push %g; clipped samples %d; landings %d' % (
    np.abs(F[air]).max(), np.abs(a[air] + 9.81).max(), e.min(), clipped, landings)
ok = (np.abs(F[air]).max() == 0 and np.abs(e[air]).max() == 0 and
      np.abs(a[air] + 9.81).max() <= 1e-12 and e.min() >= 0 and clipped > 0 and landings >= 3)"
pycheck "drop: energy balance within 1e-4 m g gap = 0.0196 J" "
f = h5py.File('$tmp/drop.h5')
drift = np.abs(f['energy/drift'][:]).max()
msg = 'drift %g J' % drift
ok = drift <= 1e-4 * 100 * 9.81 * 0.2"

# 3. over a bump at constant speed
for m in hi lms2 esdirk; do
	case $m in
	esdirk) set -- --set integrator.method=esdirk436l2sa2 --set integrator.adaptive=true \
		--set integrator.atol=1e-7 --set integrator.rtol=1e-7 ;;
	*) set -- --set integrator.method=$m ;;
	esac
	expect_rc 0 "run bump.yaml $m" "$MBSIM" run "$td/bump.yaml" "$@" -o "$tmp/bump-$m.h5"
	pycheck "bump $m: follows the road to 1.97e-5 m, rises by A, energy within 1e-3 J" "
f = h5py.File('$tmp/bump-$m.h5')
p = series(f, 'bodies/wheel/position')
x, z = p[:, 0], p[:, 2]
A, L, x0, R = 0.05, 1.0, 0.5, 0.4
h = np.where((x > x0) & (x < x0 + L), A * (1 - np.cos(2 * np.pi * (x - x0) / L)) / 2, 0)
err = np.abs(z - (h + R - 10 * 9.81 / 1e6)).max()
rise = z.max() - z[0]
drift = np.abs(f['energy/drift'][:]).max()
msg = 'lag %g m, rise %g m, drift %g J' % (err, rise, drift)
ok = err <= 2 * 10 * (A / 2) * (2 * np.pi / L)**2 / 1e6 and abs(rise - A) <= 2e-5 and drift <= 1e-3"
done
expect_rc 0 "bump lms2 at h = 1e-2" "$MBSIM" run "$td/bump.yaml" --set integrator.step=1e-2 --json \
	-o "$tmp/bump-big.h5"
json_check "bump lms2 at h = 1e-2: at most 2 Newton iterations a step (the tire's blocks)" \
	"j['mean_newton_iterations'] <= 2"

# 4. malformed tires
cat >"$tmp/bad.yaml" <<'EOF'
time: {end: 1}
bodies:
  - {name: wheel, mass: 10, inertia: [1, 1, 1], position: [0, 0, 0.5]}
forces:
  - {name: a, type: tire, body: ground, radius: -0.5, damping: -1, road: "z.wheel"}
  - {name: b, type: tire, body: wheel, radius: 0.5, stiffness: 1, road: "0.1*x + Y"}
  - {name: c, type: tire, body: wheel, radius: 0.5, stiffness: 1, lookahead: -1, lookahead_tolerance: 0}
EOF
expect_rc 2 "malformed tires: exit 2" "$MBSIM" check "$tmp/bad.yaml"
for want in \
	"bad.yaml:5:33: error: force 'a' cannot act on ground" \
	"bad.yaml:5:49: error: radius of force 'a' must be positive, got -0.5" \
	"bad.yaml:5:5: error: missing required key 'stiffness' in force 'a'" \
	"bad.yaml:5:64: error: damping of force 'a' must not be negative, got -1" \
	"bad.yaml:5:75: error: unknown name 'z.wheel' (a road height is a function of x and y" \
	"bad.yaml:6:82: error: unknown name 'Y' (a road height is a function of x and y: it names x, y, parameters and curves, no time or state) (did you mean 'y'?)" \
	"bad.yaml:7:78: error: lookahead of force 'c' must not be negative, got -1" \
	"bad.yaml:7:103: error: lookahead_tolerance of force 'c' must be positive, got 0"; do
	if grep -qF "$want" "$tmp/err"; then ok "message: ${want#*error: }"; else bad "message: $want"; fi
done
if "$MBSIM" list forces | grep -q '^tire '; then ok "list forces names tire"; else bad "list forces names tire"; fi

# 5. the road look-ahead of adaptive steps
sed 's/damping: c,/damping: c, lookahead: 0,/' "$td/curb.yaml" >"$tmp/curb-off.yaml"
for d in curb curb_push; do
	expect_rc 0 "$d reference: rn4 at 1e-10, max_step 1e-4" "$MBSIM" run "$td/$d.yaml" \
		--set integrator.atol=1e-10 --set integrator.rtol=1e-10 --set integrator.max_step=1e-4 \
		-o "$tmp/$d-ref.h5"
	case $d in
	curb) x0=1.98 bound=1e-4 ;;
	*) x0=3 bound=1e-3 ;;
	esac
	for m in rn4 lms2 esdirk436l2sa2 adams; do
		expect_rc 0 "$d $m" "$MBSIM" run "$td/$d.yaml" --set integrator.method=$m --json \
			-o "$tmp/$d-$m.h5"
		json_check "$d $m: the look-ahead cut a step short" "j['road_cuts'] > 0"
		pycheck "$d $m: enters the bump in <= 1 spacing (4 mm), height within $bound m of the reference" "
from scipy.interpolate import CubicHermiteSpline
f = h5py.File('$tmp/$d-$m.h5')
g = h5py.File('$tmp/$d-ref.h5')
t, tr = f['time'][:], g['time'][:]
p, pr = series(f, 'bodies/wheel/position'), series(g, 'bodies/wheel/position')
vr = series(g, 'bodies/wheel/velocity')
k = int(np.searchsorted(p[:, 0], $x0))
travel = p[k, 0] - p[k - 1, 0]
err = np.abs(p[:, 2] - CubicHermiteSpline(tr, pr[:, 2], vr[:, 2])(t)).max()
msg = 'entering step travels %g m, height off by %g m at most' % (travel, err)
ok = travel <= 0.004 * (1 + 1e-9) and err <= $bound and t[-1] == tr[-1]"
	done
done
for m in rn4 lms2 esdirk436l2sa2 adams; do
	expect_rc 0 "curb $m, lookahead: 0" "$MBSIM" run "$tmp/curb-off.yaml" --set integrator.method=$m \
		-o "$tmp/curb-off-$m.h5"
	pycheck "curb $m, lookahead: 0: steps over the bump (the wheel never rises)" "
f = h5py.File('$tmp/curb-off-$m.h5')
z = series(f, 'bodies/wheel/position')[:, 2]
msg = 'rise %g m' % (z.max() - z[0])
ok = z.max() - z[0] < 1e-6"
done

finish
