#!/bin/sh
# t-contact-nsc.sh - the nonsmooth contact model (contact.model:
# nonsmooth) stepped by Moreau-Jean time-stepping (scheme moreau,
# src/integ/moreau.c), against closed forms (decks in tests/nsc/):
#
#   1. ball.yaml: a ball dropped from h0 = 1 m on a plane.  Newton's
#      impact law gives the apex heights h_k = e^(2k) h0.  The scheme
#      detects an impact at the step's midpoint, so each impact is placed
#      within a step: position off by at most v h, the impact velocity by
#      g h, so an apex by at most 2 v0 h per impact (v0 = sqrt(2 g h0)),
#      and |h_k - e^(2k) h0| <= 2 k v0 h, checked at h = 1e-4 and at
#      h = 1e-5 (first order: the bound shrinks with h), e = 0.5 and 0.9;
#      e = 0: the ball never rises after its first impact.  The energy
#      balance closes: K + V - W equals its start to 1e-9 J at every
#      sample, K and V computed here from the written states, W the
#      impulses' work (/energy/nonconservative_work), which is the energy
#      the impacts took (theta = 1/2 is exact for constant gravity).
#      /contacts: at every sample the normal impulses written balance the
#      step's momentum change, m (v_k - v_k-1) + m g h, to 1e-12 N s.
#   2. cradle.yaml: Newton's cradle, five balls, e = 1, with gaps of 1 mm
#      (sequential impacts): the last ball leaves at v, the others rest
#      (to 1e-12 m/s: each two-ball impact exchanges the velocities in
#      closed form, to round-off), momentum m v at every sample to 1e-12.
#      With the balls touching (d = 0) the impacts are simultaneous and
#      Newton's law at each contact is a linear complementarity problem
#      whose matrix (W = H M^-1 H^T, tridiagonal) is positive definite,
#      so its solution is unique and no matter of the solver: solved here
#      by enumerating its active sets, ball 1 at -0.6 v and balls 2-5 at
#      0.4 v (not the textbook answer, which needs sequential impacts);
#      the run agrees to 1e-9.
#   3. incline.yaml: a box on a plane tilted by alpha (gravity tilted),
#      mu_s = 0.5, mu_d = 0.4: at alpha = 26 deg (tan alpha = 0.488 <
#      mu_s) it sticks, every speed below 1e-9 over 1 s; at 27 deg (0.510
#      > mu_s) it slides with acceleration g (sin alpha - mu_d cos alpha):
#      the velocity from t = 0.1 to 1 s changes by that times 0.9 s to
#      1e-9 relative, without sideways motion or spin (below 1e-8).
#   4. box.yaml: a box dropped tilted and spinning bounces, comes to rest
#      on a face (its centre 0.05 m up, to the penetration v h <= 2.5e-3 m,
#      v <= sqrt(2 g 0.3 m) the fastest impact) and stays:
#      speed |v| + |w| 0.19 m (the half diagonal) below 1e-6 m/s over the
#      last 1000 steps.
#   5. sphere_roll.yaml: a sphere launched sliding at v0 = 2 m/s with mu =
#      0.2: it slips (v - omega R > 0) until t* = 2 v0 / (7 mu g), within
#      a step, then rolls at 5/7 v0 (to 1e-9) without slip (below 1e-9).
#   6. pendulum_wall.yaml: a pendulum strikes a wall at the bottom of its
#      swing (contact and a revolute joint together): it swings back to
#      e^2 L above the bottom, to 2 v h (v = sqrt(2 g L), as in 1.), and
#      its ball stays on the joint's circle (1e-9 m).
#   8. pile.yaml: 64 spheres in four jammed layers settle in a box of four walls
#      on a floor (mu 0.5, e = 0), a problem Gauss-Seidel solves only to
#      about 1e-4 of the largest impulse within 200 sweeps (the run accepts
#      it there, mbsim-deck(5) CONTACT): it completes, the largest change
#      accepted at most 1e-4 (--json max_contact_residual); over its last
#      0.3 s every centroid speed is below v_r = 1e-5 m/s, a few times the
#      4e-6 m/s by which an impulse error of 1e-4 of the bottom layer's
#      4 m g h moves one sphere of m = 0.1 kg (spin about the vertical is
#      not damped by point contacts and is not checked); no penetration
#      beyond h v, v = sqrt(2 g 4 mm) the fastest fall through the four
#      1 mm gaps; the ground's vertical impulse per step (normal and
#      friction) is the weight 64 m g h to the momentum change a speed of
#      v_r allows, 2 64 m v_r, and the floor's normal impulse alone that
#      to within mu_s times the walls' normal impulses (their friction,
#      Coulomb, carries the rest).
#   9. hostile decks: a restitution above 1 and a negative mu_s are
#      refused at their key (exit 2); two spheres at one point, and 60 at
#      one point (1770 pairs, each touching every other: n (n - 1) / 2),
#      run without crash: the contact problem has only zero impulses (no
#      relative velocity), so they fall together as one, z0 - g t^2 / 2
#      exactly (theta = 1/2 is exact for constant gravity; to 1e-12 m), and
#      every sample has all the pairs; the run counts them as overlapping
#      at the start (--json initial_overlaps n (n - 1) / 2, depth 2 R =
#      0.2 m) and its contact line says so, while box.yaml, which starts
#      in the air, has none.
#   7. refusal: any other scheme given a nonsmooth deck exits 2 naming
#      moreau, in run and in check; `mbsim list integrators` says which
#      contact models each scheme takes (moreau both, hi the smooth one).
#
#   MBSIM=build/mbsim sh tests/t-contact-nsc.sh
# Prints "N passed, N failed, N skipped"; exits 1 on any failure.

# shellcheck source=tests/lib.sh
. "$(dirname "$0")/lib.sh"

d=$top/tests/nsc
if ! have_scipy; then
	skip "nonsmooth contact benchmarks" "SciPy or h5py" 20
	finish
	exit $?
fi

# 1. the ball: apex heights
apex_check() {	# $1 file, $2 e, $3 h, $4 how many apexes
	pycheck "ball e = $2, h = $3: apex k within 2 k v0 h of e^(2k) h0, k = 1..$4" "
f = h5py.File('$1', 'r')
t = series(f, 'time'); z = series(f, 'bodies/ball/position')[:, 2] - 0.1
vz = series(f, 'bodies/ball/velocity')[:, 2]
ap = [z[k] for k in range(1, len(vz)) if vz[k - 1] > 0 and vz[k] <= 0]
v0 = np.sqrt(2 * 9.81 * 1.0)
err = [abs(ap[k - 1] - $2 ** (2 * k)) / (2 * k * v0 * $3) for k in range(1, min($4, len(ap)) + 1)]
ok = len(ap) >= $4 and max(err) <= 1
msg = 'apexes %s, error / bound %s' % (ap[:$4], err)"
}
for e in 0.5 0.9; do
	"$MBSIM" run "$d/ball.yaml" --set parameters.rest=$e -o "$tmp/b$e.h5" -q 2>"$tmp/err" ||
		bad "ball e = $e runs"
	apex_check "$tmp/b$e.h5" $e 1e-4 4
done
"$MBSIM" run "$d/ball.yaml" --set parameters.rest=0.5 --set integrator.step=1e-5 \
	--set time.end=1.3 --set output.every=10 -o "$tmp/b5.h5" -q 2>"$tmp/err" || bad "ball h = 1e-5 runs"
apex_check "$tmp/b5.h5" 0.5 1e-5 4
"$MBSIM" run "$d/ball.yaml" --set parameters.rest=0 -o "$tmp/b0.h5" -q 2>"$tmp/err" || bad "ball e = 0 runs"
pycheck "ball e = 0: never rises after its first impact, at rest on the plane" "
f = h5py.File('$tmp/b0.h5', 'r')
z = series(f, 'bodies/ball/position')[:, 2] - 0.1; v = series(f, 'bodies/ball/velocity')
k = int(np.argmax(z <= 0))
ok = k > 0 and np.all(np.diff(z[k:]) <= 1e-15) and np.abs(v[k + 1:]).max() <= 1e-12 and z[-1] > -2 * 4.43e-4
msg = 'first impact at sample %d, rise %g, speed %g, z %g' % (k, np.diff(z[k:]).max(), np.abs(v[k + 1:]).max(), z[-1])"
pycheck "ball e = 0.5: /contacts impulses balance the momentum of every step" "
f = h5py.File('$tmp/b0.5.h5', 'r')
t = series(f, 'time'); v = series(f, 'bodies/ball/velocity')[:, 2]
cnt = f['contacts/count'][:]; P = f['contacts/normal_impulse'][:]
off = np.concatenate([[0], np.cumsum(cnt)])
# m (v_k - v_k-1) = -m g h + sum P_N (m = 1 kg, the normal is +z)
err = max(abs(P[off[k]:off[k + 1]].sum() - (v[k] - v[k - 1] + 9.81 * (t[k] - t[k - 1])))
          for k in range(1, len(t)))
ok = cnt[0] == 0 and cnt.max() == 1 and P.max() > 6 and err <= 1e-12
msg = 'impulse balance %g, largest impulse %g' % (err, P.max())"
pycheck "ball e = 0.5: K + V - W constant to 1e-9 J, W the energy the impacts took" "
f = h5py.File('$tmp/b0.5.h5', 'r')
r = series(f, 'bodies/ball/position'); v = series(f, 'bodies/ball/velocity')
w = series(f, 'bodies/ball/angular_velocity'); W = series(f, 'energy/nonconservative_work')
E = 0.5 * (v ** 2).sum(1) + 0.5 * 0.004 * (w ** 2).sum(1) + 9.81 * r[:, 2] - W
ok = np.abs(E - E[0]).max() <= 1e-9 and W[-1] < -9
msg = 'balance %g J, work %g J' % (np.abs(E - E[0]).max(), W[-1])"

# 2. Newton's cradle
"$MBSIM" run "$d/cradle.yaml" -o "$tmp/c.h5" -q 2>"$tmp/err" || bad "cradle runs"
pycheck "cradle, gaps: the last ball leaves at v, the others rest, momentum kept" "
f = h5py.File('$tmp/c.h5', 'r')
V = np.array([series(f, 'bodies/ball%d/velocity' % i) for i in range(1, 6)])
end = V[:, -1, :]
want = np.zeros((5, 3)); want[4, 0] = 1
p = V.sum(0) - [1, 0, 0]
ok = np.abs(end - want).max() <= 1e-12 and np.abs(p).max() <= 1e-12
msg = 'end velocities %s, momentum error %g' % (end[:, 0], np.abs(p).max())"
"$MBSIM" run "$d/cradle.yaml" --set parameters.d=0 -o "$tmp/c0.h5" -q 2>"$tmp/err" ||
	bad "cradle touching runs"
pycheck "cradle, touching: the simultaneous impacts' complementarity solution" "
import itertools
# five unit masses, four contacts: U = H u, H rows e_(i+1) - e_i;
# W = H H^T, q = U- (1 + e) with e = 1 for the approaching contact 1-2
H = np.zeros((4, 5))
for i in range(4):
    H[i, i], H[i, i + 1] = -1, 1
u0 = np.array([1.0, 0, 0, 0, 0]); Wm = H @ H.T
# Newton: U+ + e min(U-, 0) >= 0 _|_ P >= 0; U+ = H u0 + W P
b = H @ u0 + np.minimum(H @ u0, 0)
sol = None
for act in itertools.product([0, 1], repeat=4):
    A = [i for i in range(4) if act[i]]
    P = np.zeros(4)
    if A:
        P[A] = np.linalg.solve(Wm[np.ix_(A, A)], -b[A])
    w = Wm @ P + b
    if np.all(P >= -1e-14) and np.all(w >= -1e-14):
        sol = u0 + H.T @ P
f = h5py.File('$tmp/c0.h5', 'r')
end = np.array([series(f, 'bodies/ball%d/velocity' % i)[-1, 0] for i in range(1, 6)])
ok = sol is not None and np.abs(end - sol).max() <= 1e-9
msg = 'run %s, complementarity %s' % (end, sol)"

# 3. the incline
for a in 26 27; do
	"$MBSIM" run "$d/incline.yaml" --set parameters.alpha=$a -o "$tmp/i$a.h5" -q 2>"$tmp/err" ||
		bad "incline $a deg runs"
done
pycheck "incline 26 deg (tan < mu_s): the block sticks" "
f = h5py.File('$tmp/i26.h5', 'r')
v = series(f, 'bodies/block/velocity'); w = series(f, 'bodies/block/angular_velocity')
ok = np.abs(v).max() <= 1e-9 and np.abs(w).max() <= 1e-9
msg = 'speed %g, spin %g' % (np.abs(v).max(), np.abs(w).max())"
pycheck "incline 27 deg (tan > mu_s): slides with g (sin a - mu_d cos a)" "
f = h5py.File('$tmp/i27.h5', 'r')
t = series(f, 'time'); v = series(f, 'bodies/block/velocity'); w = series(f, 'bodies/block/angular_velocity')
a = np.radians(27); acc = 9.81 * (np.sin(a) - 0.4 * np.cos(a))
k = int(np.searchsorted(t, 0.1))
got = (v[-1, 0] - v[k, 0]) / (t[-1] - t[k])
ok = abs(got / acc - 1) <= 1e-9 and np.abs(v[:, 1:]).max() <= 1e-8 and np.abs(w).max() <= 1e-8
msg = 'acceleration %.15g, closed form %.15g; sideways %g, spin %g' % (got, acc, np.abs(v[:, 1:]).max(), np.abs(w).max())"

# 4. the box comes to rest and stays
"$MBSIM" run "$d/box.yaml" -o "$tmp/box.h5" -q 2>"$tmp/err" || bad "box runs"
pycheck "box: at rest on a face, speed below 1e-6 m/s over the last 1000 steps" "
f = h5py.File('$tmp/box.h5', 'r')
v = series(f, 'bodies/box/velocity'); w = series(f, 'bodies/box/angular_velocity')
z = series(f, 'bodies/box/position')[:, 2]
sp = np.sqrt((v ** 2).sum(1)) + 0.19 * np.sqrt((w ** 2).sum(1))
ok = len(sp) == 3001 and sp[-1001:].max() <= 1e-6 and abs(z[-1] - 0.05) <= 2.5e-3 and sp[:500].max() > 1
msg = 'speed %g over the last 1000 steps, centre at %g' % (sp[-1001:].max(), z[-1])"

# 5. the sphere launched sliding
"$MBSIM" run "$d/sphere_roll.yaml" -o "$tmp/s.h5" -q 2>"$tmp/err" || bad "sphere runs"
pycheck "sphere: slips until 2 v0 / (7 mu g), then rolls at 5/7 v0" "
f = h5py.File('$tmp/s.h5', 'r')
t = series(f, 'time'); v = series(f, 'bodies/ball/velocity')[:, 0]
w = series(f, 'bodies/ball/angular_velocity'); q = series(f, 'bodies/ball/orientation')
def wy(qq, ww):   # the world y component of body-frame w (quaternion w, x, y, z)
    a, x, y, z = qq
    return (2 * (x * y + a * z)) * ww[0] + (1 - 2 * (x * x + z * z)) * ww[1] + (2 * (y * z - a * x)) * ww[2]
slip = np.array([v[k] - 0.1 * wy(q[k], w[k]) for k in range(len(t))])
k = int(np.argmax(np.abs(slip) <= 1e-9)); ts = 2 * 2 / (7 * 0.2 * 9.81)
ok = abs(t[k] - ts) <= 1e-4 and np.abs(slip[k:]).max() <= 1e-9 and abs(v[-1] - 2 * 5 / 7) <= 1e-9 and np.all(slip[:k] > 0)
msg = 'slip ends at %.6g (closed form %.6g), then %g; v %.15g' % (t[k], ts, np.abs(slip[k:]).max(), v[-1])"

# 6. the pendulum strikes a wall
"$MBSIM" run "$d/pendulum_wall.yaml" -o "$tmp/p.h5" -q 2>"$tmp/err" || bad "pendulum runs"
pycheck "pendulum and wall: rebound to e^2 L, on the joint's circle" "
f = h5py.File('$tmp/p.h5', 'r')
r = series(f, 'bodies/ball/position'); vx = series(f, 'bodies/ball/velocity')[:, 0]
k = int(np.argmax(vx < 0)); up = r[k:, 2].max() + 1
v = np.sqrt(2 * 9.81)
circ = np.abs(np.sqrt((r ** 2).sum(1)) - 1).max()
ok = k > 0 and abs(up - 0.25) <= 2 * v * 1e-4 and circ <= 1e-9
msg = 'rebound %g (e^2 L = 0.25), circle %g' % (up, circ)"

# 8. a pile of 64 spheres settles
"$MBSIM" run "$d/pile.yaml" -o "$tmp/pile.h5" -q --json >"$tmp/pile.json" 2>"$tmp/err" ||
	bad "pile runs"
pycheck "pile of 64: completes, the accepted Gauss-Seidel change at most 1e-4" "
j = json.load(open('$tmp/pile.json'))
ok = j['status'] == 'complete' and 0 <= j['max_contact_residual'] <= 1e-4
msg = str({k: j.get(k) for k in ('status', 'inexact_contact_steps', 'max_contact_residual')})"
pycheck "pile of 64: at rest, no penetration beyond h v, the ground carries the weight" "
f = h5py.File('$tmp/pile.h5', 'r')
t = f['time'][:]; v = f['bodies/velocity'][:]
c = f['contacts/count'][:]; off = np.concatenate(([0], np.cumsum(c)))
pair = f['contacts/pair'][:]; n = f['contacts/normal'][:]; gap = f['contacts/gap'][:]
pn = f['contacts/normal_impulse'][:]; pt = f['contacts/friction_impulse'][:]
m, h, g, vr = 0.1, 1e-3, 9.81, 1e-5
Wh = 64 * m * g * h
sp = np.sqrt((v ** 2).sum(2)).max(1)
rest = np.nonzero(t >= t[-1] - 0.3)[0]
worst = [0, 0]
for k in rest:
    r = slice(off[k], off[k + 1]); gr = pair[r, 0] == -1
    vert = (pn[r][:, None] * n[r] + pt[r])[gr, 2].sum()
    floor = pn[r][gr & (pair[r, 2] == 0)].sum(); walls = pn[r][gr & (pair[r, 2] > 0)].sum()
    worst[0] = max(worst[0], abs(vert - Wh) / (2 * 64 * m * vr))
    worst[1] = max(worst[1], abs(floor - Wh) / (0.5 * walls + 2 * 64 * m * vr))
pen = -gap.min(); vmax = np.sqrt(2 * g * 0.004)
ok = sp[rest].max() <= vr and sp.max() > 1e-2 and pen <= h * vmax and max(worst) <= 1
msg = 'speed at rest %g (moved at %g), penetration %g (h v %g), ground / bound %g, floor / bound %g' % (
    sp[rest].max(), sp.max(), pen, h * vmax, worst[0], worst[1])"

# 9. hostile decks
hostile() {	# hostile FILE N MU_S E: N spheres of 1 kg at (0, 0, 0.5), 0.1 m apart
	{
		printf 'title: hostile nonsmooth deck (tests/t-contact-nsc.sh)\ngravity: [0, 0, -9.81]\n'
		printf 'time: {end: 0.01}\nintegrator: {method: moreau, step: 1e-3}\n'
		printf 'output: {every: 1}\ncontact: {model: nonsmooth}\n'
		printf 'contact_planes:\n  - {point: [0, 0, 0], normal: [0, 0, 1]}\nbodies:\n'
		i=0
		while [ $i -lt "$2" ]; do
			printf '  - {name: s%d, mass: 1, inertia: [4e-3, 4e-3, 4e-3], position: [0, 0, 0.5],\n' $i
			printf '     shape: {type: sphere, radius: 0.1}, contact: {mu_s: %s, restitution: %s}}\n' "$3" "$4"
			i=$((i + 1))
		done
	} >"$1"
}
hostile "$tmp/e.yaml" 1 0.5 1.5
expect_rc 2 "restitution 1.5 refused" "$MBSIM" run "$tmp/e.yaml" -o "$tmp/h.h5"
# line 11, column 76: the value 1.5 in the first sphere's line
grep -q "e.yaml:11:76: error: restitution .* must be in \[0, 1\], got 1.5" "$tmp/err" ||
	bad "restitution 1.5: the message at its key" "$(cat "$tmp/err")"
hostile "$tmp/mu.yaml" 1 -0.5 0.5
expect_rc 2 "mu_s -0.5 refused" "$MBSIM" run "$tmp/mu.yaml" -o "$tmp/h.h5"
grep -q "mu.yaml:11:58: error: mu_s .* must be >= 0, got -0.5" "$tmp/err" ||
	bad "mu_s -0.5: the message at its key" "$(cat "$tmp/err")"
for n in 2 60; do
	hostile "$tmp/c$n.yaml" $n 0.5 0.5
	expect_rc 0 "$n coincident spheres run" "$MBSIM" run "$tmp/c$n.yaml" -o "$tmp/c$n.h5" --json
	json_check "$n coincident spheres: $((n * (n - 1) / 2)) pairs overlapped at the start, by 2 R" \
		"j['initial_overlaps'] == $n * ($n - 1) // 2 and abs(j['initial_overlap_depth'] - 0.2) <= 1e-12"
	"$MBSIM" run "$tmp/c$n.yaml" -o "$tmp/c$n.h5" 2>"$tmp/err" >/dev/null
	grep -q "overlapped at the start, by up to 0.2 m: the nonsmooth model stops their approach" \
		"$tmp/err" && ok "$n coincident spheres: the contact line says they overlap" || bad "$n coincident spheres: the contact line says they overlap" "$(cat "$tmp/err")"
	pycheck "$n coincident spheres: fall together at g, all $((n * (n - 1) / 2)) pairs in contact" "
f = h5py.File('$tmp/c$n.h5', 'r')
t = f['time'][:]; z = f['bodies/position'][:, :, 2]; c = f['contacts/count'][:]
ok = np.abs(z - (0.5 - 0.5 * 9.81 * t ** 2)[:, None]).max() <= 1e-12 and np.all(c[1:] == $n * ($n - 1) // 2) \
    and np.all(f['contacts/normal_impulse'][:] == 0)
msg = 'z off by %g, counts %s' % (np.abs(z - (0.5 - 0.5 * 9.81 * t ** 2)[:, None]).max(), sorted(set(c.tolist())))"
done

expect_rc 0 "box (starts in the air) runs" "$MBSIM" run "$d/box.yaml" -o "$tmp/h.h5" --json \
	--set time.end=0.5
json_check "box: no pair overlapped at the start" "j['initial_overlaps'] == 0"

# 7. the other schemes refuse the nonsmooth model
for s in hi lms2 rn4; do
	expect_rc 2 "$s refuses the nonsmooth model (run)" "$MBSIM" run "$d/ball.yaml" \
		--set integrator.method=$s -o "$tmp/r.h5"
	grep -q "cannot step the nonsmooth contact model.*the schemes moreau only" "$tmp/err" &&
		ok "$s: the message names moreau" || bad "$s: the message names moreau"
done
expect_rc 2 "check refuses hi with the nonsmooth model" "$MBSIM" check "$d/ball.yaml" \
	--set integrator.method=hi
"$MBSIM" list integrators >"$tmp/l" 2>&1
grep -q "^moreau .*contact: smooth, nonsmooth)" "$tmp/l" && grep -q "^hi .*contact: smooth)" "$tmp/l" &&
	ok "list integrators: moreau takes both contact models, hi the smooth one" ||
	bad "list integrators: the contact models" "$(cat "$tmp/l")"

finish
