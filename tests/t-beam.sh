#!/bin/sh
# t-beam.sh - geometrically exact beams (issue 13; model/beam.h): statics
# against Euler-Bernoulli and Timoshenko, the roll-up into a circle, natural
# frequencies, energy of a free tumbling beam, convergence with the mesh,
# the schemes that refuse beams and a bad beam key.  Decks in tests/beam/,
# each with its analytic value in its header.
. "$(dirname "$0")/lib.sh"
bd=$top/tests/beam

# --- cantilever, small tip load: P L^3/(3 EI) + P L/GA -------------------
# The finite-volume element holds a moment linear along the element exactly
# (its curvature at the two points, its shear constant), so the tip is
# exact up to the statics' convergence.  Its force tolerance, 1e-14 EA
# |x| / j = 8e-7 N (statics.c: the round-off of the axial force, |x| / j
# = 1 / 0.125), bounds a residual along the axis, where EA / L moves the
# tip by 1e-13 m; across it Newton's second step leaves far less (the tip
# is measured 1.9e-12 m off).  1e-6 of the value (3.3e-11 m) is asked for.
if "$MBSIM" static "$bd/cantilever.yaml" --json >"$tmp/out" 2>"$tmp/err"; then
	json_check "cantilever tip deflection = P L^3/(3 EI) + P L/GA" \
		"abs([b for b in j['bodies'] if b['name'] == 'tip'][0]['position'][2] + (0.01 / 300 + 0.01 / 1e5)) <= 1e-6 * (0.01 / 300 + 0.01 / 1e5)"
else
	bad "cantilever static" "$(cat "$tmp/err")"
fi

# --- convergence: cantilever under its weight ----------------------------
# q L^4/(8 EI) + q L^2/(2 GA) with the load lumped at the nodes: error
# O(Le^2), so halving the element length divides it by 4 (asked: 3.5 to
# 4.5 at 2, 4, 8 elements).
for n in 2 4 8; do
	"$MBSIM" static "$bd/weight.yaml" --set beams.b.elements=$n --json >"$tmp/w$n.json" 2>"$tmp/err" ||
		bad "weight static, $n elements" "$(cat "$tmp/err")"
done
pycheck "tip under its weight: error ratio 4 per halving (second order), 8 elements within 2e-3" "
ex = -(0.01 / (8 * 100) + 0.01 / (2 * 1e5))
e = []
for n in (2, 4, 8):
    j = json.load(open('$tmp/w%d.json' % n))
    e.append([b for b in j['bodies'] if b['name'] == 'tip'][0]['position'][2] - ex)
r1, r2 = e[0] / e[1], e[1] / e[2]
ok = 3.5 <= r1 <= 4.5 and 3.5 <= r2 <= 4.5 and abs(e[2]) <= 2e-3 * abs(ex)
msg = 'errors %r, ratios %g %g' % (e, r1, r2)"

# --- roll-up: M = 2 pi EI / L closes a 10-element cantilever ---------------
# done-when of issue 13: the tip within 1e-3 L of the root.  The constant
# moment gives a constant curvature, which the rotation interpolation
# represents exactly; the strain energy at rest is M^2 L / (2 EI) = 1973.92 J
# within the same relative 1e-3.
expect_rc 0 "roll-up run (lms2)" "$MBSIM" run "$bd/rollup.yaml" -o "$tmp/roll.h5"
pycheck "roll-up: tip at the root within 1e-3 L, mid node at z = -L/pi, energy M^2 L/(2 EI)" "
f = h5py.File('$tmp/roll.h5', 'r')
tip = series(f, 'bodies/tip/position')[-1]
mid = series(f, 'bodies/b_10/position')[-1]
U = f['/energy/potential'][-1]
M = 2 * np.pi * 100
ok = np.linalg.norm(tip) <= 1e-3 and abs(mid[2] + 1 / np.pi) <= 1e-3 and abs(U - M * M / 200) <= 1e-3 * M * M / 200
msg = 'tip %r mid %r U %g' % (tip, mid, U)"
pycheck "roll-up: /beams/b/resultant bending moment M2 = M at every point" "
f = h5py.File('$tmp/roll.h5', 'r')
R = f['/beams/b/resultant'][-1]
ok = R.shape == (20, 6) and np.all(np.abs(R[:, 4] - 2 * np.pi * 100) <= 1e-6 * 2 * np.pi * 100)
msg = repr(R[:, 4])"

# --- natural frequencies (mbsim modes) -----------------------------------
# Euler-Bernoulli f = (beta L)^2 sqrt(EI/(m L^4)) / (2 pi): clamped-free
# beta_1 L = 1.8751041, free-free 4.7300408.  Shear and rotary inertia
# lower them by about (beta L)^2 (m22/m + EI/GA) / (2 L^2) (Rayleigh-
# Timoshenko, first order): 1.9e-5 and 1.2e-4 here.  The lumped mass
# converges at second order: the error at 10 elements over that at 20,
# measured from the shifted value, is 4 (asked: 3 to 5), and the value
# extrapolated from the two (Richardson, f20 + (f20 - f10)/3) agrees with
# Euler-Bernoulli within the shift plus a quarter of the extrapolation
# step.
for d in clamped_free free_free; do
	for n in 10 20; do
		"$MBSIM" modes "$bd/$d.yaml" --set beams.b.elements=$n --json >"$tmp/$d$n.json" 2>"$tmp/err" ||
			bad "modes $d $n elements" "$(cat "$tmp/err")"
	done
done
for case in "clamped_free 1.8751041 0" "free_free 4.7300408 6"; do
	set -- $case
	pycheck "first bending frequency, $1 (beta L = $2), $3 free motions" "
bl = $2
fe = bl * bl * 10 / (2 * np.pi)
s = 0.5 * bl * bl * (1e-6 + 100 / 1e7)
f = []
for n in (10, 20):
    j = json.load(open('$tmp/$1%d.json' % n))
    fr = [m['frequency'] for m in j['modes']]
    nfree = sum(1 for x in fr if x == 0)
    f.append(min(x for x in fr if x > 0))
ft = fe * (1 - s)
ratio = (f[0] - ft) / (f[1] - ft)
fx = f[1] + (f[1] - f[0]) / 3
ok = nfree == $3 and 3 <= ratio <= 5 and abs(fx - fe) <= s * fe + 0.25 * abs(f[1] - f[0])
msg = 'f10 %g f20 %g EB %g ratio %g extrapolated %g free %d' % (f[0], f[1], fe, ratio, fx, nfree)"
done

# --- free tumbling beam, genalpha rho_inf = 1 -----------------------------
# No dissipation in the scheme, none in the beam: the energy error is the
# scheme's, O(h^2), and bounded: its largest value over 4 s is that over
# the first 1 s within 10 % (no drift), and it falls by 3 to 5 when h is
# halved (second order; a finite-volume force that did work of its own
# would not scale so).
for h in 1e-3 5e-4; do
	expect_rc 0 "tumbling beam, genalpha rho_inf 1, h = $h" "$MBSIM" run "$bd/tumble.yaml" \
		--set time.end=4 --set integrator.step=$h -o "$tmp/tum$h.h5"
done
pycheck "tumbling beam: energy bounded (max over 4 s <= 1.1 max over 1 s), error O(h^2)" "
d = {}
for h in ('1e-3', '5e-4'):
    f = h5py.File('$tmp/tum%s.h5' % h, 'r')
    E = f['/energy/total'][:]
    t = f['/time'][:]
    e = np.abs(E - E[0])
    d[h] = (e.max(), e[t <= 1].max(), E[0])
r = d['1e-3'][0] / d['5e-4'][0]
ok = all(v[0] <= 1.1 * v[1] for v in d.values()) and 3 <= r <= 5 and d['1e-3'][0] <= 1e-4 * d['1e-3'][2]
msg = '%r ratio %g' % (d, r)"

# --- schemes: the dae3 family runs, the others refuse at the beam ---------
# (the done-when's schemes besides lms2 close the circle as well)
for s in genalpha esdirk436l2sa2 hht; do
	expect_rc 0 "roll-up runs with $s" "$MBSIM" run "$bd/rollup.yaml" \
		--set integrator.method=$s -o "$tmp/s.h5"
	pycheck "roll-up with $s: tip at the root within 1e-3 L" "
f = h5py.File('$tmp/s.h5', 'r')
tip = series(f, 'bodies/tip/position')[-1]
ok = np.linalg.norm(tip) <= 1e-3
msg = repr(tip)"
done
for s in hi fi hilg tangent_newmark rn4 adams; do
	expect_rc 2 "$s refuses a beam with exit 2" "$MBSIM" run "$bd/rollup.yaml" \
		--set integrator.method=$s -o "$tmp/s.h5"
	if grep -q "rollup.yaml:[0-9]*:[0-9]*: error: integrator '$s' cannot step beam 'b'" "$tmp/err"; then
		ok "$s: message at FILE:LINE:COL of the beam"
	else
		bad "$s: message at FILE:LINE:COL of the beam"
	fi
done
expect_rc 2 "linear_solver schur refuses a beam" "$MBSIM" run "$bd/rollup.yaml" \
	--set integrator.linear_solver=schur -o "$tmp/s.h5"

# --- deck errors -----------------------------------------------------------
cat >"$tmp/bad.yaml" <<'EOF'
time: {end: 1}
integrator: {method: lms2}
beams:
  - name: b
    from: [0, 0, 0]
    to: [1, 0, 0]
    elements: 2
    section: {EA: 1, GA: 1, GJ: 1, EI: 1, m: 1, m22: 1, m33: 1, EJ: 3}
EOF
expect_rc 2 "unknown beam section key" "$MBSIM" check "$tmp/bad.yaml"
grep -q "bad.yaml:8:[0-9]*: error: unknown key 'EJ'" "$tmp/err" && ok "bad key at FILE:LINE:COL" ||
	bad "bad key at FILE:LINE:COL" "$(cat "$tmp/err")"
sed -e 's/, EJ: 3//' -e 's/elements: 2/elements: 0/' "$tmp/bad.yaml" >"$tmp/bad2.yaml"
expect_rc 2 "elements 0" "$MBSIM" check "$tmp/bad2.yaml"
grep -q "bad2.yaml:7:[0-9]*: error: 'elements'" "$tmp/err" && ok "elements 0 at FILE:LINE:COL" ||
	bad "elements 0 at FILE:LINE:COL" "$(cat "$tmp/err")"
sed -e 's/, EJ: 3//' -e 's/elements: 2/elements: 1\n    nodes: {start: x, end: x}/' "$tmp/bad.yaml" >"$tmp/bad3.yaml"
expect_rc 2 "two nodes of one name" "$MBSIM" check "$tmp/bad3.yaml"
grep -q "bad3.yaml:8:[0-9]*: error: beam 'b' names two nodes 'x'" "$tmp/err" &&
	ok "two nodes of one name at FILE:LINE:COL of the second" ||
	bad "two nodes of one name at FILE:LINE:COL of the second" "$(cat "$tmp/err")"
expect_rc 0 "check prints the mesh" "$MBSIM" check "$bd/rollup.yaml"
grep -q "beam 'b': 10 elements, 21 nodes (bodies 'root' ... 'tip')" "$tmp/out" && ok "check: mesh line" ||
	bad "check: mesh line" "$(cat "$tmp/out")"

# --- a full 6 x 6 section stiffness (section.stiffness) -------------------
# (1) The diagonal given as a matrix is the same law: the roll-up deck (its
# damping exercises mu C too) with stiffness = diag(EA, GA, GA, GJ, EI, EI)
# in place of its keys steps to the same bits at every sample (the element
# finds C diagonal either way, model/beam.c).  output.times dropped in both
# copies, so all 301 samples are compared.
sed -e '/^output:/d' "$bd/rollup.yaml" >"$tmp/rk0.yaml"
sed -e '/^output:/d' -e 's/section: {EA: 1e6, GA: 1e6, GJ: 80, EI: EI,/section: {stiffness: [[1e6, 0, 0, 0, 0, 0], [0, 1e6, 0, 0, 0, 0], [0, 0, 1e6, 0, 0, 0], [0, 0, 0, 80, 0, 0], [0, 0, 0, 0, EI, 0], [0, 0, 0, 0, 0, EI]],/' \
	"$bd/rollup.yaml" >"$tmp/rk1.yaml"
if grep -q "stiffness: \[\[1e6" "$tmp/rk1.yaml"; then
	ok "roll-up deck rewritten with stiffness"
else
	bad "roll-up deck rewritten with stiffness" "$(grep section "$tmp/rk1.yaml")"
fi
expect_rc 0 "roll-up with EA ... EI" "$MBSIM" run "$tmp/rk0.yaml" -o "$tmp/rk0.h5"
expect_rc 0 "roll-up with stiffness" "$MBSIM" run "$tmp/rk1.yaml" -o "$tmp/rk1.h5"
pycheck "diagonal stiffness matrix = EA ... EI keys, bit for bit (positions, orientations, resultants)" "
a = h5py.File('$tmp/rk0.h5', 'r')
b = h5py.File('$tmp/rk1.h5', 'r')
ks = ('bodies/position', 'bodies/orientation', 'beams/b/resultant')
ok = a['time'].shape[0] == 301 and all(np.array_equal(a[k][:], b[k][:]) for k in ks)
msg = repr([(k, float(np.abs(a[k][:] - b[k][:]).max())) for k in ks])"

# (2) Extension-twist coupling (tests/beam/twist_coupled.yaml, whose
# header derives the values): a cantilever pulled by P extends by
# L (C^-1)_11 P = 1.3245033e-3 m and twists by L (C^-1)_41 P = -0.2317881
# rad, exactly at finite twist.  The statics stop when every force and
# moment residual is below 1e-10 of the force scale (statics.c: max(P,
# 1e-4 EA |x| / j) = max(1e4, 8e3) N, |x| / j = 1 / 0.125), 1e-6 N or
# N m at each of the 8 free nodes; through
# C^-1 that moves the tip by at most 8 L (C^-1)_11 1e-6 = 1.1e-12 m (8e-10
# of u) and turns it by 8 L ((C^-1)_44 + |C^-1_41|) 1e-6 = 1.3e-7 rad (6e-7
# of phi): asked 1e-8 and 1e-6 relative.  The tip keeps its axis 1 along
# x: the quaternion's y and z parts are half the bending rotations, which
# the same residual moments leave at most 8 L 1e-6 / EI = 8e-8 rad (EI =
# 100; asked |q_y| + |q_z| <= 8e-8; measured 1.5e-12).
if "$MBSIM" static "$bd/twist_coupled.yaml" --json >"$tmp/out" 2>"$tmp/err"; then
	json_check "extension-twist: u = L GJ P/d, phi = -L c P/d (d = EA GJ - c^2)" "
[abs(t['position'][0] - 1 - 80e4 / 6.04e8) <= 1e-8 * 80e4 / 6.04e8 and
 abs(2 * math.atan2(t['orientation'][1], t['orientation'][0]) + 1.4e8 / 6.04e8) <= 1e-6 * 1.4e8 / 6.04e8 and
 abs(t['orientation'][2]) + abs(t['orientation'][3]) <= 8e-8
 for t in j['bodies'] if t['name'] == 'tip'] == [True]"
else
	bad "extension-twist static" "$(cat "$tmp/err")"
fi
# the same deck without the coupling does not twist (the twist above is
# the coupling's) and extends by L P/EA = 1e-3 m: the same residual
# moments (1e-6 N m at 8 nodes) leave a twist of at most 8 L 1e-6 / GJ =
# 1e-7 rad, quaternion x part 5e-8 (measured 2.3e-15: nothing drives it),
# and the extension as above (asked 1e-8 relative)
if "$MBSIM" static "$bd/twist_coupled.yaml" --set parameters.c=0 --json >"$tmp/out" 2>"$tmp/err"; then
	json_check "extension-twist deck with c = 0: no twist, u = L P/EA" "
[abs(t['orientation'][1]) <= 5e-8 and abs(t['position'][0] - 1 - 1e-3) <= 1e-8 * 1e-3
 for t in j['bodies'] if t['name'] == 'tip'] == [True]"
else
	bad "extension-twist static, c = 0" "$(cat "$tmp/err")"
fi
# the run (lms2, the coupled C in the Newton matrix, damping mu C with mu =
# 0.01 s) comes to rest at the same tip: the force applied at t = 0 starts
# axial and twist modes, every one of which is overdamped (mu omega > 2
# from the first twist mode, (pi/2) sqrt(GJ/m11)/L = 314 rad/s, up) and
# so decays at least as fast as exp(-t/mu); at t = 1 s that is e^-100,
# and Newton's tolerance (1e-10) is what remains: asked 1e-9 relative.
expect_rc 0 "extension-twist run, lms2, damping 0.01 s" "$MBSIM" run "$bd/twist_coupled.yaml" \
	--set beams.b.section.damping=0.01 --set time.end=1 --set integrator.rho_inf=0 -o "$tmp/tc.h5"
pycheck "extension-twist run at rest at u = L GJ P/d, phi = -L c P/d" "
f = h5py.File('$tmp/tc.h5', 'r')
p = series(f, 'bodies/tip/position')[-1]
q = series(f, 'bodies/tip/orientation')[-1]
u, phi = 80e4 / 6.04e8, -1.4e8 / 6.04e8
ok = abs(p[0] - 1 - u) <= 1e-9 * u and abs(2 * np.arctan2(q[1], q[0]) - phi) <= 1e-9 * abs(phi)
msg = 'u %r phi %r' % (p[0] - 1, 2 * np.arctan2(q[1], q[0]))"

# (3) Bad matrices: exit 2 with the message at the offending node.  Rows
# one a line (lines 13 to 18 of stiff.yaml) so that LINE names the row.
cat >"$tmp/stiff.yaml" <<'EOF'
time: {end: 1}
integrator: {method: lms2}
beams:
  - name: b
    from: [0, 0, 0]
    to: [1, 0, 0]
    elements: 2
    section:
      m: 1
      m22: 1
      m33: 1
      stiffness:
        - [1, 0, 0, 0.5, 0, 0]
        - [0, 1, 0, 0, 0, 0]
        - [0, 0, 1, 0, 0, 0]
        - [0.5, 0, 0, 1, 0, 0]
        - [0, 0, 0, 0, 1, 0]
        - [0, 0, 0, 0, 0, 1]
EOF
expect_rc 0 "a coupled, symmetric, positive definite stiffness checks" "$MBSIM" check "$tmp/stiff.yaml"
# each case: what | sed script | the message expected after FILE: (names
# apart from expect_rc's variables name and want)
while IFS='|' read -r c_what c_sed c_msg; do
	sed -e "$c_sed" "$tmp/stiff.yaml" >"$tmp/s.yaml"
	expect_rc 2 "stiffness $c_what: exit 2" "$MBSIM" check "$tmp/s.yaml"
	if grep -qF "$tmp/s.yaml:$c_msg" "$tmp/err"; then
		ok "stiffness $c_what: message at FILE:LINE:COL"
	else
		bad "stiffness $c_what: message at FILE:LINE:COL" "want: $c_msg" "$(cat "$tmp/err")"
	fi
done <<'EOF'
not symmetric (C41 0.6, C14 0.5)|16s/0.5,/0.6,/|16:12: error: 'stiffness' of section of beam 'b' is not symmetric: row 4 column 1 is 0.6, row 1 column 4 0.5
not positive definite (C14 = C41 = 2 > sqrt(C11 C44))|13s/0.5/2/;16s/0.5/2/|13:9: error: 'stiffness' of section of beam 'b' is not positive definite: its leading 4 x 4 block is not
singular (C14 = C41 = 1 = sqrt(C11 C44))|13s/0.5/1/;16s/0.5/1/|13:9: error: 'stiffness' of section of beam 'b' is not positive definite: its leading 4 x 4 block is not
negative diagonal|18s/1\]/-1]/|18:27: error: 'stiffness' of section of beam 'b' is not positive definite: its diagonal entry 6 (kappa3) is -1
row of 5|15s/1, 0, 0, 0\]/1, 0, 0]/|15:11: error: row 3 of 'stiffness' of section of beam 'b': expected 6 numbers, got a list of 5
5 rows|18d|13:9: error: expected 6 rows of 6 numbers for 'stiffness' of section of beam 'b', got a list of 5
not a matrix|12s/stiffness:/stiffness: 3/;13,18d|12:18: error: expected 6 rows of 6 numbers for 'stiffness' of section of beam 'b', got '3'
not finite|14s/\[0, 1,/[0, 1e400,/|14:15: error: expression '1e400' for 'stiffness' is not a finite number
both kinds of keys|10s/m22: 1/EA: 1\n      m22: 1/|10:7: error: 'EA' of section of beam 'b': give stiffness or EA
EOF

# --- the benchmark decks of seed 004 (decks/*.yaml with beams) -----------
# Lateral buckling (decks/lateral_buckling.yaml): the beam, pushed in its
# stiff plane, buckles sideways before the crank's top (t = 0.2 s): the
# mid-span rotation about x, started by the 0.1 mm imperfection, grows by
# two orders of magnitude or more from t = 0.1 s to its largest value
# before 0.4 s (issue 13's done-when), with lms2 and genalpha at the seed's
# 1e-3 s and esdirk436l2sa2 at its 5e-3 s (h/n = 1e-3; dae3_solve.c's damped
# Newton iteration: without it this run diverged at 0.225 s).
for s in "lms2 1e-3" "genalpha 1e-3" "esdirk436l2sa2 5e-3"; do
	set -- $s
	expect_rc 0 "lateral buckling runs with $1, h = $2" "$MBSIM" run "$decks/lateral_buckling.yaml" \
		--set integrator.method=$1 --set integrator.step=$2 -o "$tmp/lb.h5"
	pycheck "lateral buckling, $1: mid-span rotation about x grows 100-fold after t = 0.1 s" "
f = h5py.File('$tmp/lb.h5', 'r')
t = f['/time'][:]
q = series(f, 'bodies/beam_5/orientation')
v = np.linalg.norm(q[:, 1:], axis=1)
th = 2 * np.arctan2(v, q[:, 0]) * np.where(v > 0, q[:, 1] / np.maximum(v, 1e-300), 0)
a = abs(th[np.argmin(abs(t - 0.1))])
b = np.abs(th[(t >= 0.1) & (t <= 0.4)]).max()
ok = b >= 100 * a and a > 0
msg = 'theta_x(0.1) %g, max over [0.1, 0.4] %g' % (a, b)"
done

# Rotating shaft (decks/rotating_shaft.yaml, genalpha at 1e-3 s): the sag
# settled before the spin-up is the static one, 3.28 mm (Euler-Bernoulli,
# clamped-clamped, disk included: ../shared/reference/flexible-
# benchmarks.md §4; within 2 %: shear and the lumped weight add some
# 0.5 %); at 0.8 omega the mid-span whirls on a circle about the sag whose
# radius is at most the Jeffcott rotor's e r^2 / (1 - r^2) with e <= d =
# 0.05 m, r = 48 / 57.07 (0.119 m; asked: the mean over [0.8, 1] s between
# half of it and it plus 10 %), and crossing the first bending frequency
# (57.07 rad/s at t = 1.105 s) the whirl grows (the largest radius over
# [1.1, 1.3] s at least 1.5 times that over [0.8, 1] s).
expect_rc 0 "rotating shaft runs with genalpha, h = 1e-3" "$MBSIM" run "$decks/rotating_shaft.yaml" \
	-o "$tmp/rs.h5"
pycheck "rotating shaft: static sag 3.28 mm, whirl at 0.8 omega below Jeffcott, grows at the critical speed" "
f = h5py.File('$tmp/rs.h5', 'r')
t = f['/time'][:]
p = series(f, 'bodies/shaft_16/position')
sag = p[(t > -0.3) & (t < 0), 2].mean()
r = np.hypot(p[:, 1], p[:, 2] - sag)
w = 48 / 57.07
jef = 0.05 * w * w / (1 - w * w)
r1 = r[(t >= 0.8) & (t < 1.0)]
r2 = r[(t >= 1.1) & (t < 1.3)]
ok = abs(-sag - 3.28e-3) <= 0.02 * 3.28e-3 and 0.5 * jef <= r1.mean() <= 1.1 * jef and r2.max() >= 1.5 * r1.max()
msg = 'sag %g, mean whirl %g (Jeffcott %g), max %g then %g' % (sag, r1.mean(), jef, r1.max(), r2.max())"
# The same sag by mbsim static (its Newton system once dropped the
# constraints of this stiff model: 200 iterations, no equilibrium).
#   - against the dynamic run's mean over [-0.3, 0) s: the run is at rest
#     but for the first bending mode's leftover, half-range a (5.1e-7 m),
#     whose mean over T = 0.3 s is within 2 a / (omega T), omega = 57.07
#     rad/s (above), of its centre; plus the deck's Newton tolerance 1e-8
#     m (the static solve's 1e-4 N over a stiffness above 3e5 N/m is 3e-10
#     m); and the run has settled: a at most 1e-3 of the sag;
#   - against Euler-Bernoulli 3.284 mm (P L^3/(192 EI) + q L^4/(384 EI),
#     P = 70.573 g, q = 11.64 g, g = 9.81): above it by the shear P L/(4
#     GA) + q L^2/(8 GA) = 2.57e-5 m (0.78 %) to 1e-3 of the whole (the
#     lumped weight's O(Le^2) error: tests/beam/weight.yaml at 16
#     elements is within 3.5e-4, and the weight makes a third of the sag
#     here).  Measured: 3.309849 mm static, 3.309875 mm dynamic.
expect_rc 0 "rotating shaft: mbsim static converges" "$MBSIM" static "$decks/rotating_shaft.yaml" --json
cp "$tmp/out" "$tmp/rs_static.json"
pycheck "rotating shaft: static sag = the settled dynamic one, = Euler-Bernoulli + shear" "
zs = [b for b in json.load(open('$tmp/rs_static.json'))['bodies'] if b['name'] == 'shaft_16'][0]['position'][2]
f = h5py.File('$tmp/rs.h5', 'r')
t = f['/time'][:]
z = series(f, 'bodies/shaft_16/position')[(t > -0.3) & (t < 0), 2]
a = (z.max() - z.min()) / 2
tol = 2 * a / (57.07 * 0.3) + 1e-8
P, q, L, EI, GA = 70.573 * 9.81, 11.64 * 9.81, 6, 354.5e3, 60.5e6
eb = P * L**3 / (192 * EI) + q * L**4 / (384 * EI)
sh = P * L / (4 * GA) + q * L**2 / (8 * GA)
ok = abs(zs - z.mean()) <= tol and a <= 1e-3 * abs(zs) and abs(-zs - eb - sh) <= 1e-3 * (eb + sh)
msg = 'static %.7g, dynamic %.7g (half-range %.3g, tolerance %.3g), Euler-Bernoulli %.7g + shear %.3g' % (zs, z.mean(), a, tol, eb, sh)"
for s in "lms2 1e-3" "esdirk436l2sa2 5e-3"; do
	set -- $s
	expect_rc 0 "rotating shaft runs with $1, h = $2" "$MBSIM" run "$decks/rotating_shaft.yaml" \
		--set integrator.method=$1 --set integrator.step=$2 -o "$tmp/rs2.h5" --set output.every=10
done

# Flexible four-bar (decks/flexible_four_bar.yaml): the whole 12 s with
# lms2 and genalpha at the seed's 4e-3 s, esdirk436l2sa2 at its 2e-2 s
# (h/n = 4e-3; without the damped Newton iteration it stopped at 7.84 s,
# where the axial force of bar CD peaks); the hinges keep the bars' ends
# together (position residual below 1e-10 m).
for s in "lms2 4e-3" "genalpha 4e-3" "esdirk436l2sa2 2e-2"; do
	set -- $s
	expect_rc 0 "flexible four-bar runs with $1, h = $2" "$MBSIM" run "$decks/flexible_four_bar.yaml" \
		--set integrator.method=$1 --set integrator.step=$2 -o "$tmp/fb.h5" --set output.every=25
	pycheck "flexible four-bar, $1: to 12 s, constraints met" "
f = h5py.File('$tmp/fb.h5', 'r')
ok = abs(f['/time'][-1] - 12) < 1e-9 and f['/constraints/position_residual'][:].max() < 1e-10
msg = '%g %g' % (f['/time'][-1], f['/constraints/position_residual'][:].max())"
done

# Newton on the four-bar (issue 36): lms2's first iterate takes the
# multipliers from the quadratic through the last three steps
# (dae3_step.c, lms_lam), so the first correction is near the tolerance
# instead of the reactions' change over a step.  The deck's first 3 s took
# 3.73 Newton iterations a step with constant multipliers (the build before
# issue 36) and take 2.83 with the quadratic; more than 3.2 means the
# extrapolation is lost.
if "$MBSIM" run "$decks/flexible_four_bar.yaml" --set time.end=3 -o "$tmp/fbn.h5" --json \
	>"$tmp/out" 2>"$tmp/err"; then
	json_check "flexible four-bar, lms2 at 4e-3 s, 3 s: at most 3.2 Newton iterations a step" \
		"j['status'] == 'complete' and j['mean_newton_iterations'] <= 3.2"
else
	bad "flexible four-bar, 3 s" "$(cat "$tmp/err")"
fi

finish
