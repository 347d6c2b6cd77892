#!/bin/sh
# t-gears.sh - gear, rack_pinion and screw joints (model/coupler.c) against
# hand kinematics, the minimal equations and energy, under every kind of
# scheme.  Decks of tests/gears/:
#
#   gear_train.yaml   an arm driving two discs through a spur (ratio -2) and
#                     a bevel pair (-1.5), over the top, about 5.5 turns of
#                     the last disc in 2 s;
#   rack_pinion.yaml  a pinion and a rack on a spring;
#   screw.yaml        a nut on a lead screw, on a spring, 1.6 turns each way;
#
# 1. hi (order 1), lms2, genalpha (2) on ra and rn4 (4) on rp, each at
#    h = 1e-3 and 5e-4: tests/gears_check.py asserts the hand kinematics
#    at every sample (ratio x input, 1e-9), the input coordinate against
#    tools/gear_ref.py converging at the scheme's order (the rack's mesh
#    force too), and the energy drift at most the scheme's on the
#    comparable model without couplings (gear_free, rack_spin,
#    screw_spin) at the same step;
# 2. bdf, and rn4 on the tree formulation, refuse each deck (exit 2)
#    naming the coupling joint;
# 3. ra against rp: shaft C's coordinate (/joints/coordinate, 3 theta_A)
#    of lms2 and of rn4 agree within twice the sum of their Richardson
#    error estimates from h and h/2;
# 4. statics and modes with a coupling: the rack hangs at -m g / k (the
#    spring takes its weight) with the pinion turned by x / R and the mesh
#    carrying no force; the arm of the gear train hangs down, the discs
#    turned by pi and -3 pi / 2 (mod 2 pi); their frequencies
#    sqrt(k / (m + J / R^2)) / 2 pi and sqrt(m g l / I) / 2 pi, to 1e-9;
#    a run of the gear train from its equilibrium stays at rest (|v|, |w|
#    at most 1e-6, as tools/randmodel.py asks): disc C is 3 pi / 2 from
#    its start there, and the row must take the turn the statics counted
#    (before, it took the branch within pi of the deck's angle: the
#    initial assembly moved disc B by 3.92 and the train swung at 3.7 rad/s);
# 5. a step that may turn a coupled joint by more than pi/2 fails (exit 1),
#    naming the coupling and the joint; a screw's /joints/coordinate is
#    its turn (the nut's slide over p / 2 pi, to 1e-9).
#
#   MBSIM=build/mbsim sh tests/t-gears.sh
#
# Prints "N passed, N failed, N skipped"; exits 1 on any failure.

# shellcheck source=tests/lib.sh
. "$(dirname "$0")/lib.sh"

gd=$top/tests/gears

# run OUT DECK SETTINGS...
run() {
	_out=$1 _deck=$2
	shift 2
	"$MBSIM" run "$gd/$_deck.yaml" -o "$_out" "$@" >/dev/null 2>"$tmp/err"
}

# 1. each deck under each scheme
if have_scipy; then
	for sp in hi:1 lms2:2 genalpha:2 rn4:4; do
		m=${sp%%:*} p=${sp##*:}
		for dc in gear_train:gear_free rack_pinion:rack_spin screw:screw_spin; do
			d=${dc%%:*} c=${dc##*:}
			s="--set integrator.method=$m"
			# shellcheck disable=SC2086 # s: settings, one word each
			if run "$tmp/$d-$m-a.h5" "$d" $s --set integrator.step=1e-3 &&
			   run "$tmp/$d-$m-b.h5" "$d" $s --set integrator.step=5e-4 &&
			   run "$tmp/$c-$m.h5" "$c" $s --set integrator.step=1e-3; then
				if "$PY" "$top/tests/gears_check.py" "$d" "$p" "$tmp/$d-$m-a.h5" \
					"$tmp/$d-$m-b.h5" "$tmp/$c-$m.h5" >"$tmp/out" 2>&1; then
					ok "$d $m: $(cat "$tmp/out")"
				else
					bad "$d $m" "$(cat "$tmp/out")"
				fi
			else
				bad "$d $m: run" "$(head -c 400 "$tmp/err")"
			fi
		done
	done
else
	skip "hand kinematics, reference and energy" "SciPy or h5py" 12
fi

# 2. the tree formulation refuses couplings, naming the joint
for dj in gear_train:ab rack_pinion:mesh screw:lead; do
	d=${dj%%:*} j=${dj##*:}
	for ms in "bdf" "rn4 --set integrator.formulation=tree"; do
		# shellcheck disable=SC2086 # ms: the method and its settings
		expect_rc 2 "$d: ${ms%% *} on tree refuses" \
			"$MBSIM" run "$gd/$d.yaml" -o "$tmp/t.h5" --set integrator.method=$ms
		grep -q "joint '$j' is .*the tree formulation cannot take a coupling" "$tmp/err" &&
			ok "$d: ${ms%% *} names joint '$j'" || bad "$d: ${ms%% *} names joint '$j'"
	done
done

# 3. ra against rp on the gear train
if run "$tmp/ra-a.h5" gear_train --set integrator.step=1e-3 &&
   run "$tmp/ra-b.h5" gear_train --set integrator.step=5e-4 &&
   run "$tmp/rp-a.h5" gear_train --set integrator.method=rn4 --set integrator.step=1e-3 &&
   run "$tmp/rp-b.h5" gear_train --set integrator.method=rn4 --set integrator.step=5e-4; then
	pycheck "gear train: lms2 (ra) and rn4 (rp) agree on shaft C within their errors" "
def c(p):
    with h5py.File('$tmp/' + p, 'r') as f:
        return series(f, 'joints/shaftC/coordinate')
ra_a, ra_b, rp_a, rp_b = c('ra-a.h5'), c('ra-b.h5'), c('rp-a.h5'), c('rp-b.h5')
n = len(ra_a)    # h = 1e-3 samples; the h/2 runs write twice as many
est = abs(ra_b[::2] - ra_a).max() / 3 + abs(rp_b[::2] - rp_a).max() / 15
d = abs(ra_b[::2] - rp_b[::2]).max()
ok = len(ra_b) == 2 * n - 1 and d <= 2 * est and abs(rp_b[-1]) > 30
msg = 'ra - rp %.3g rad, bound %.3g rad, end %.3g rad' % (d, 2 * est, rp_b[-1])"
else
	bad "gear train: ra and rp runs" "$(head -c 400 "$tmp/err")"
fi

# 4. statics and modes
expect_rc 0 "static rack_pinion.yaml --json" "$MBSIM" static "$gd/rack_pinion.yaml" --json
json_check "rack: hangs at -m g / k, pinion at x / R, mesh force 0, to 1e-9" "
(lambda b, jn: abs(b['rack']['position'][2] + 2 * 9.81 / 200) <= 1e-9
 and abs(2 * math.atan2(b['pinion']['orientation'][1], b['pinion']['orientation'][0])
         - b['rack']['position'][2] / 0.1) <= 1e-9
 and abs(jn['mesh']['force'][2]) <= 1e-8)(
 {x['name']: x for x in j['bodies']}, {x['name']: x for x in j['joints']})"
expect_rc 0 "static gear_train.yaml --json" "$MBSIM" static "$gd/gear_train.yaml" --json
json_check "gear train: arm down (theta_A = -pi / 2), disc B by pi, disc C by -3 pi / 2 (mod 2 pi), to 1e-9" "
(lambda b, r: abs(b['arm']['position'][2] + 0.5) <= 1e-9
 and r(2 * math.atan2(b['discB']['orientation'][1], b['discB']['orientation'][0]) - math.pi) <= 1e-9
 and r(2 * math.atan2(b['discC']['orientation'][2], b['discC']['orientation'][0]) + 1.5 * math.pi) <= 1e-9)(
 {x['name']: x for x in j['bodies']}, lambda a: abs(math.remainder(a, 2 * math.pi)))"
expect_rc 0 "modes rack_pinion.yaml --json" "$MBSIM" modes "$gd/rack_pinion.yaml" --json
json_check "rack: f = sqrt(k / (m + J / R^2)) / 2 pi to 1e-9 relative" "
len(j['modes']) == 1 and abs(j['modes'][0]['frequency'] / (math.sqrt(200 / 4) / (2 * math.pi)) - 1) <= 1e-9"
expect_rc 0 "modes gear_train.yaml --json" "$MBSIM" modes "$gd/gear_train.yaml" --json
json_check "gear train: f = sqrt(m g l / I) / 2 pi, I = 0.73, to 1e-9 relative" "
len(j['modes']) == 1 and abs(j['modes'][0]['frequency'] / (math.sqrt(9.81 * 0.5 / 0.73) / (2 * math.pi)) - 1) <= 1e-9"
expect_rc 0 "run gear_train.yaml --from-static" "$MBSIM" run "$gd/gear_train.yaml" --from-static \
	-q -o "$tmp/fs.h5" --set time.end=0.2
pycheck "gear train from its equilibrium stays at rest (1e-6)" "
with h5py.File('$tmp/fs.h5', 'r') as f:
    v = np.abs(f['bodies/velocity'][:]).max(); w = np.abs(f['bodies/angular_velocity'][:]).max()
ok = v <= 1e-6 and w <= 1e-6
msg = 'max |v| %.3g m/s, |w| %.3g rad/s' % (v, w)"

# the screw's /joints/coordinate is its turn: slide / (p / 2 pi), to 1e-9
if [ -f "$tmp/screw-lms2-a.h5" ]; then
	pycheck "screw: /joints/coordinate is the turn d / (p / 2 pi), over 1.6 turns" "
with h5py.File('$tmp/screw-lms2-a.h5', 'r') as f:
    q = series(f, 'joints/lead/coordinate'); d = series(f, 'bodies/nut/position')[:, 2]
c = 0.02 / (2 * np.pi)
ok = np.abs(d - c * (q - q[0])).max() <= 1e-9 and q.max() - q.min() > 2 * np.pi
msg = 'off by %.3g m, range %.3g rad' % (np.abs(d - c * (q - q[0])).max(), q.max() - q.min())"
fi

# 5. a step that may turn a coupled joint past pi/2 fails, naming it: the
#    train at h = 0.1 s, disc C at 18 rad/s (1.8 rad a step)
expect_rc 1 "gear train at h = 0.1 s fails" "$MBSIM" run "$gd/gear_train.yaml" -q \
	-o "$tmp/big.h5" --set integrator.step=0.1
grep -q "gear 'bc': joint 'shaftC' turned by up to 1.8 rad .*reduce integrator.step" "$tmp/err" &&
	ok "the failure names gear 'bc', joint 'shaftC' and the remedy" ||
	bad "the failure names gear 'bc', joint 'shaftC' and the remedy"

finish
