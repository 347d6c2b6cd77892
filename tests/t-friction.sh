#!/bin/sh
# t-friction.sh - Coulomb friction in a translational joint under the
# schemes (docs/results/matrix.md findings 4, 9, 12): the law
# -mu N tanh(v / v_eps), the normal force N of the multipliers of the same
# Newton iterate or acceleration solve, and its Jacobian in Newton's
# matrix (elem/elem_friction.c, form/ra_lowrank.c).  References from
# outside mbsim: closed forms and tests/friction_ref.py (scipy's Radau at
# rtol = atol = 1e-12 on the minimal equations with the same law).
#
# 1. tests/friction/incline.yaml: a block pushed up a slope (mu > tan th)
#    stops and sticks.  Closed form: stop at s = v0^2 / (2 g (sin th + mu
#    cos th)) = 0.10865 m, then the creep v = -v_eps atanh(tan th / mu).
#    Before, lms2, fi, mssth3, newmark and genalpha stopped at the
#    reversal (t = 0.217 s, "Newton did not converge").
# 2. tests/friction/bead_rod.yaml: a bead on a driven turning rod, the
#    rod's normal force from the multipliers changing with the bead's
#    speed (Coriolis), a reversal at t = 0.06 s: fi stopped there before,
#    rn4 was 0.037 m off at t = 0.3 s.
# 2b. The slider-crank with friction (decks/) under adams on rp: the
#    friction effort as the matrix's reference's (it was 0.60 N off).
# 3. Its energy balance: the friction's work is counted with the force
#    the dynamics used, so the drift with friction is no larger than the
#    same run's without it (before: lms2 7.4e-3 J against 2.9e-4 J, rn4
#    5.3 J against 1.3e-4 J).
#
# 4. A Newton failure on a body that a friction element acts on names the
#    element (the message named only the constraint residual, at
#    round-off, while the iteration stalled on the friction force).
#
#   MBSIM=build/mbsim sh tests/t-friction.sh
#
# Prints "N passed, N failed, N skipped"; exits 1 on any failure.

# shellcheck source=tests/lib.sh
. "$(dirname "$0")/lib.sh"

fd=$top/tests/friction

# run DECK OUT SETTINGS...: a run that must complete
run() {
	_deck=$1 _out=$2
	shift 2
	if ! "$MBSIM" run "$_deck" -o "$_out" "$@" >/dev/null 2>"$tmp/err"; then
		bad "run $(basename "$_deck") $*" "$(grep -v note "$tmp/err" | head -c 400)"
		return 1
	fi
}

# 1. the block on the slope, h = 1e-3.  hi (forces explicit at t_n) and w2
# (a W-method: its Jacobian by differences, not the law's) do not hold a
# stuck joint (mbsim-deck(5), friction) and are not run here.
for m in lms2 fi mssth3 newmark genalpha rn4 adams; do
	run "$fd/incline.yaml" "$tmp/inc-$m.h5" --set integrator.method=$m || continue
	pycheck "incline $m: stops where the closed form does and creeps at its speed" "
th, mu, g, v0, ve = np.radians(10), 0.3, 9.81, 1.0, 1e-5
f = h5py.File('$tmp/inc-$m.h5')
t = series(f, 'time'); p = series(f, 'bodies/block/position'); v = series(f, 'bodies/block/velocity')
s = p[:, 0] * np.cos(th) + p[:, 2] * np.sin(th)
sd = v[:, 0] * np.cos(th) + v[:, 2] * np.sin(th)
i = int(np.argmin(abs(t - 0.5)))
smax = v0 ** 2 / (2 * g * (np.sin(th) + mu * np.cos(th)))	# closed form
creep = -ve * np.arctanh(np.tan(th) / mu)	# tanh(v / v_eps) mu N = m g sin th
# where it stops: within the block's travel in one step at its start
# speed, v0 h = 1e-3 m (a scheme that places the stop within a step; fi,
# first order, is 5e-4 m short); 0.28 s of creep moves it 1.9e-6 m more
ds = abs(s[i] - (smax + creep * (0.5 - v0 / (g * (np.sin(th) + mu * np.cos(th))))))
# the creep, a steady state every stable scheme holds: 1e-7 m/s (1.5 %;
# measured 4e-8 for mssth3, 1e-12 for lms2)
dv = abs(sd[i] - creep)
ok = t[-1] > 0.5 - 1e-9 and ds <= 1e-3 and dv <= 1e-7
msg = 'end %g, position off %.3g m (bound 1e-3), speed %.4g vs creep %.4g' % (t[-1], ds, sd[i], creep)
"
done

# 2. the bead on the turning rod, h = 1e-3, against scipy
if have_scipy; then
	"$PY" "$top/tests/friction_ref.py" bead 0.1 0.3 >"$tmp/bead.ref" ||
		bad "tests/friction_ref.py bead"
	for m in lms2 fi mssth3 rn4 adams; do
		run "$fd/bead_rod.yaml" "$tmp/bead-$m.h5" --set integrator.method=$m || continue
		pycheck "bead $m: radius and radial speed as scipy's after the reversal" "
ref = np.loadtxt('$tmp/bead.ref')
f = h5py.File('$tmp/bead-$m.h5')
t = series(f, 'time'); p = series(f, 'bodies/bead/position'); v = series(f, 'bodies/bead/velocity')
mu, g, w, h = 0.3, 9.81, 5.0, 1e-3
# a fixed step over the reversal, where the friction's acceleration jumps
# by 2 mu g, misses at most 2 mu g h of speed (5.9e-3 m/s); r'' = w^2 r
# grows a speed error dv to dv sinh(w tau) / w in tau (<= 0.3 s: x 0.43)
dvb = 2 * mu * g * h
drb = dvb * np.sinh(w * 0.3) / w
err = []
for tr, rr, vr in ref:
    i = int(np.argmin(abs(t - tr)))
    r = np.hypot(p[i, 0], p[i, 1]); rd = (p[i, 0] * v[i, 0] + p[i, 1] * v[i, 1]) / r
    err.append((abs(r - rr), abs(rd - vr)))
ok = t[-1] > 0.5 - 1e-9 and err[0][1] <= dvb and err[1][0] <= drb
msg = 'speed off %.3g at 0.1 s (bound %.3g), radius off %.3g at 0.3 s (bound %.3g)' % (err[0][1], dvb, err[1][0], drb)
"
	done
else
	skip "bead against scipy" "no scipy/h5py for $PY" 5
fi

# 2b. decks/slider_crank_friction.yaml under adams on rp against mssth5
# (index 2, h = 1.25e-4; matrix.md's reference for the deck), 0.5 s: the
# friction effort at every sample.  Before, rp's friction read the
# multipliers of its last f call (0.60 N off at t = 0.111 s); now
# 1.5e-7 N.  Bound 4.9e-4 N: the matrix's for
# this cell (from adams' tolerance and the reference's step)
scf=$top/decks/slider_crank_friction.yaml
if run "$scf" "$tmp/scf-ref.h5" --set integrator.method=mssth5 --set integrator.step=1.25e-4 \
	--set integrator.index=2 --set time.end=0.5 &&
	run "$scf" "$tmp/scf-adams.h5" --set integrator.method=adams --set integrator.formulation=rp \
		--set time.end=0.5; then
	pycheck "slider_crank_friction adams/rp: friction effort as mssth5's to 4.9e-4 N" "
a = h5py.File('$tmp/scf-adams.h5'); r = h5py.File('$tmp/scf-ref.h5')
ta = series(a, 'time'); tr = series(r, 'time')
ea = series(a, 'forces/friction/effort'); er = series(r, 'forces/friction/effort')
d = np.abs(ea - er[[int(np.argmin(abs(tr - t))) for t in ta]])
ok = len(ta) > 400 and d.max() <= 4.9e-4
msg = 'effort off by %.3g N at t = %g' % (d.max(), ta[int(d.argmax())])
"
fi

# 3. the energy balance with friction against the same run without it
for m in lms2 rn4 adams; do
	for mu in 0 0.3; do
		"$MBSIM" run "$fd/bead_rod.yaml" -o "$tmp/e.h5" --set integrator.method=$m \
			--set parameters.mu=$mu --json >"$tmp/e-$m-$mu.json" 2>"$tmp/err" ||
			bad "run bead $m mu=$mu"
	done
	pycheck "bead $m: energy balance with friction no worse than without" "
d0 = json.load(open('$tmp/e-$m-0.json'))['max_energy_drift']
d1 = json.load(open('$tmp/e-$m-0.3.json'))['max_energy_drift']
ok = d1 <= d0
msg = 'drift %.3g J with friction, %.3g J without' % (d1, d0)
"
done

# 4. one Newton iteration cannot converge: the message names the friction
expect_rc 1 "bead, one Newton iteration: the run fails" "$MBSIM" run "$fd/bead_rod.yaml" \
	-o "$tmp/m.h5" --set integrator.max_iterations=1
if grep -q "Newton did not converge.*body 'rod', where friction 'friction' in joint 'slide' acts" \
	"$tmp/err"; then
	ok "the Newton failure names the friction element on the body"
else
	bad "the Newton failure names the friction element on the body" "$(cat "$tmp/err")"
fi

finish
