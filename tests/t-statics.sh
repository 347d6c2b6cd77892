#!/bin/sh
# t-statics.sh - mbsim static, run --from-static and mbsim modes (issue 15
# items 6 and 7).  Decks in tests/statics/; every expected number is
# analytic or from tools/double_pendulum_modes.py (minimal coordinates,
# SciPy), never from an earlier mbsim run.
#
#   MBSIM=build/mbsim sh tests/t-statics.sh
#
#   1. car.yaml (a body on four vertical spring-dampers, unloaded in the
#      deck): the sag is m g / (2 (k_front + k_rear)) = 0.0840857142857143 m
#      (exact, the deck's comment) to 1e-9 m, no drift or tilt beyond 1e-9;
#   2. run --from-static of car.yaml: |v|, |w| <= 1e-9 over 1 s (issue 15);
#      without --from-static the same run moves by more than 0.1 m/s,
#      so the check could fail;
#   3. decks/pendulum.yaml from its horizontal start: the hanging
#      equilibrium (centroid at (0, 0, -len/2) to 1e-9 m) and the pin's
#      reaction m g = 9.81 N to 1e-9 relative;
#   4. modes of chain2.yaml: w^2 = (175 -+ sqrt(20625)) / 2 (the deck's
#      comment) to 1e-9 relative; damped variant (k2 = 0, c1 = 3): one
#      free motion and f = sqrt(k1 / m1) / (2 pi), zeta = c1 / (2 sqrt(k1
#      m1)) = 0.15 to 1e-9; stable-step hint of seed 002 eq. 11
#      (central differences: h = 2 / w_max) to 1e-12 relative;
#   5. modes of decks/pendulum.yaml: f = sqrt(m g d / (J + m d^2)) / (2 pi),
#      d = len / 2, J = m len^2 / 12 (the deck's inertia about the pin) to
#      1e-9 relative;
#   6. modes of decks/double_pendulum.yaml against
#      tools/double_pendulum_modes.py to 1e-9 relative;
#   7. no_support.yaml (a body with nothing under it): exit 1 naming body
#      'rock', in text and in --json; usage errors exit 64;
#   8. --time T: held_pendulum.yaml (the pendulum turned by a driver at
#      0.5 rad/s) at T = 1 s sits at 0.5 rad below the horizontal with
#      driver effort m g (len / 2) cos(0.5) (the deck's comment), 1e-9;
#   9. the equilibria found for the conservative seed decks (pendulum,
#      double pendulum, free four-link, heavy top, spring top, 8-link
#      chain) are stable: no mode with a negative damping ratio;
#  10. modes --at T (the state a run reaches): spinner.yaml, a free body
#      spinning at Omega = 10 rad/s about its principal axis of largest
#      inertia, (J1, J2, J3) = (2, 3, 4): the gyroscopic wobble of Euler's
#      equations linearized about the spin, Omega sqrt((J3-J1)(J3-J2)/(J1
#      J2)) / (2 pi) = 10 / sqrt(3) / (2 pi) Hz, to 1e-9 relative, beside
#      six free motions (without the gyroscopic term there would be no
#      mode above 0 Hz); chain2.yaml, which starts and stays at rest, gives
#      at T = 0.5 the frequencies of its static equilibrium to 1e-12
#      relative;
#  11. modes -o FILE.h5: /modes/frequency equals the printed frequencies
#      (17 digits), status complete, state run, time T; an existing file
#      that is not an mbsim output is refused (exit 64, left as it was)
#      unless --force; --at with --time and --at not after time.start are
#      usage errors; the chain's mode shapes: mass 2 / mass 1 =
#      (k1 + k2 - m1 w^2) / k2 (the first row of (K - w^2 M) x = 0) to
#      1e-9, real (imaginary parts of round-off, <= 1e-12), nothing in y,
#      z or the rotations; the spinner's wobble: dth_x = i (J3 - J2) Omega /
#      (lambda J1) dth_y = i sqrt(3)/2 dth_y (Euler's first equation), to
#      1e-9.
# Prints "N passed, N failed, N skipped"; exits 1 on any failure.

# shellcheck source=tests/lib.sh
. "$(dirname "$0")/lib.sh"

sd=$top/tests/statics


# 1. sag of the car
expect_rc 0 "static car.yaml --json" "$MBSIM" static "$sd/car.yaml" --json
json_check "car: sag m g / (2 (kf + kr)) to 1e-9 m, level, centred" "
(lambda p, q, sag: abs((0.5 - p[2]) - sag) <= 1e-9 and abs(p[0]) <= 1e-9 and abs(p[1]) <= 1e-9
 and abs(abs(q[0]) - 1) <= 1e-9)(j['bodies'][0]['position'], j['bodies'][0]['orientation'],
 1200 * 9.81 / (2 * (40000 + 30000)))"

# 2. a run from the equilibrium stays at rest
maxvel() {
	"$PY" -c "
import sys
sys.path.insert(0, '$top/tools')
import h5py, numpy as np, mbsimlib
with h5py.File('$1', 'r') as f:
    v = mbsimlib.series(f, 'bodies/car/velocity')
    w = mbsimlib.series(f, 'bodies/car/angular_velocity')
    t = mbsimlib.series(f, 'time')
    print('%.3e %.3e %g' % (np.abs(v).max(), np.abs(w).max(), t[-1]))"
}
expect_rc 0 "run car.yaml --from-static" "$MBSIM" run "$sd/car.yaml" --from-static -q \
	-o "$tmp/rest.h5"
read -r vmax wmax tend <<EOT
$(maxvel "$tmp/rest.h5")
EOT
if awk -v v="$vmax" -v w="$wmax" -v t="$tend" 'BEGIN { exit !(v <= 1e-9 && w <= 1e-9 && t == 1) }'; then
	ok "from-static: at rest over 1 s (max |v| $vmax m/s, |w| $wmax rad/s)"
else
	bad "from-static: not at rest (max |v| $vmax, |w| $wmax, t_end $tend)"
fi
expect_rc 0 "run car.yaml (deck start)" "$MBSIM" run "$sd/car.yaml" -q -o "$tmp/drop.h5"
read -r vmax wmax tend <<EOT
$(maxvel "$tmp/drop.h5")
EOT
if awk -v v="$vmax" 'BEGIN { exit !(v > 0.1) }'; then
	ok "control: from the deck's unloaded start the car moves (max |v| $vmax m/s)"
else
	bad "control: the unloaded start did not move (max |v| $vmax): check 2 proves nothing"
fi

# 3. the pendulum finds its hanging position from horizontal
expect_rc 0 "static decks/pendulum.yaml --json" "$MBSIM" static "$decks/pendulum.yaml" --json
json_check "pendulum: hangs at (0, 0, -0.5) to 1e-9 m, reaction m g to 1e-9" "
(lambda p, F: max(abs(p[0]), abs(p[1]), abs(p[2] + 0.5)) <= 1e-9
 and abs(F[2] - 9.81) <= 1e-9 * 9.81 and abs(F[0]) <= 1e-9)(
 j['bodies'][0]['position'], j['joints'][0]['force'])"

# 4. the two-mass chain, undamped and damped
expect_rc 0 "modes chain2.yaml --json" "$MBSIM" modes "$sd/chain2.yaml" --json
json_check "chain: w^2 = (175 -+ sqrt(20625)) / 2 to 1e-9 relative" "
(lambda f, ref: j['dof'] == 2 and len(f) == 2 and all(abs(a - b) <= 1e-9 * b for a, b in zip(f, ref)))(
 [m['frequency'] for m in j['modes']],
 [math.sqrt((175 + s * math.sqrt(20625)) / 2) / (2 * math.pi) for s in (-1, 1)])"
json_check "chain: seed 002 eq. 11 central differences h = 2 / w_max" "
abs(j['stable_step']['central_differences'] - 2 / (2 * math.pi * j['max_frequency'])) <= 1e-12 * j['stable_step']['central_differences']"
expect_rc 0 "modes chain2.yaml k2=0 c1=3 --json" "$MBSIM" modes "$sd/chain2.yaml" \
	--set parameters.k2=0 --set parameters.c1=3 --json
json_check "damped: one free motion, f = sqrt(k1/m1) / 2 pi and zeta = 0.15 to 1e-9" "
(lambda m: len(m) == 2 and m[0]['free'] and not m[1]['free']
 and abs(m[1]['frequency'] - 10 / (2 * math.pi)) <= 1e-9 * 10 / (2 * math.pi)
 and abs(m[1]['damping_ratio'] - 3 / (2 * math.sqrt(100))) <= 1e-9)(j['modes'])"

# 5. the pendulum
expect_rc 0 "modes decks/pendulum.yaml --json" "$MBSIM" modes "$decks/pendulum.yaml" --json
json_check "pendulum: f = sqrt(m g d / (J + m d^2)) / 2 pi to 1e-9 relative" "
(lambda f, ref: len(f) == 1 and abs(f[0] - ref) <= 1e-9 * ref)(
 [m['frequency'] for m in j['modes']], math.sqrt(9.81 * 0.5 / (1 / 12 + 0.25)) / (2 * math.pi))"

# 6. the double pendulum of seed 000 against its minimal equations
if ref=$("$PY" "$top/tools/double_pendulum_modes.py" 2>"$tmp/err"); then
	expect_rc 0 "modes decks/double_pendulum.yaml --json" "$MBSIM" modes \
		"$decks/double_pendulum.yaml" --json
	json_check "double pendulum: tools/double_pendulum_modes.py's $(echo $ref) Hz to 1e-9" "
(lambda f, r: len(f) == 2 and all(abs(a - b) <= 1e-9 * b for a, b in zip(f, r)))(
 [m['frequency'] for m in j['modes']], [float(x) for x in '''$ref'''.split()])"
else
	bad "tools/double_pendulum_modes.py failed"
fi

# 8. --time: the quasi-static state of a driven pendulum at T = 1 s
expect_rc 0 "static held_pendulum.yaml --time 1 --json" "$MBSIM" static \
	"$sd/held_pendulum.yaml" --time 1 --json
json_check "held pendulum at T = 1: at angle omega T, effort m g (len/2) cos(omega T) to 1e-9" "
(lambda p, e: abs(p[0] - 0.5 * math.cos(0.5)) <= 1e-9 and abs(abs(p[2]) - 0.5 * math.sin(0.5)) <= 1e-9
 and abs(abs(e) - 0.5 * 9.81 * math.cos(0.5)) <= 1e-9 * 4.3)(
 j['bodies'][0]['position'], j['drivers'][0]['effort']) and j['time'] == 1"
expect_rc 64 "static: --time not a number" "$MBSIM" static "$sd/held_pendulum.yaml" --time x

# 9. the equilibria of the conservative seed decks (gravity and springs
# only) are stable: the potential guard of the iteration keeps it from
# the upright positions that Newton's method alone reaches as readily
for d in pendulum double_pendulum four_link_free heavy_top spring_top chain; do
	set -- "$decks/$d.yaml"
	[ "$d" = chain ] && set -- "$@" --set parameters.N=8	# 8 links: 48 dof, quick
	expect_rc 0 "modes $d.yaml --json" "$MBSIM" modes "$@" --json
	json_check "$d: no growing mode at the equilibrium found (every damping ratio >= 0)" "
all(m['damping_ratio'] >= 0 for m in j['modes']) and any(not m['free'] for m in j['modes'])"
done

# 7. failures
expect_rc 1 "static no_support.yaml fails" "$MBSIM" static "$sd/no_support.yaml"
if grep -q "no static equilibrium.*body 'rock'" "$tmp/err"; then
	ok "the failure names body 'rock': $(cat "$tmp/err")"
else
	bad "the failure does not name body 'rock'"
fi
expect_rc 1 "static no_support.yaml --json fails" "$MBSIM" static "$sd/no_support.yaml" --json
json_check "--json failure: status failed, body rock" "j['status'] == 'failed' and j['body'] == 'rock'"
expect_rc 1 "modes no_support.yaml fails" "$MBSIM" modes "$sd/no_support.yaml"
expect_rc 1 "run --from-static no_support.yaml fails before running" "$MBSIM" run \
	"$sd/no_support.yaml" --from-static -o "$tmp/ns.h5"
if [ ! -e "$tmp/ns.h5" ]; then ok "no output written"; else bad "an output was written"; fi
expect_rc 1 "run --from-static --json no_support.yaml fails" "$MBSIM" run \
	"$sd/no_support.yaml" --from-static --json -o "$tmp/ns.h5"
json_check "run --from-static --json: the failure as JSON, naming body rock" \
	"j['status'] == 'failed' and j['body'] == 'rock'"
expect_rc 64 "static: unknown option" "$MBSIM" static "$sd/car.yaml" --jsn
expect_rc 64 "modes: no deck" "$MBSIM" modes
# 10. modes at the state of a run
expect_rc 0 "modes spinner.yaml --at 0.5 --json" "$MBSIM" modes "$sd/spinner.yaml" --at 0.5 --json
json_check "spinner: wobble 10 / sqrt(3) / 2 pi Hz to 1e-9 relative, six free motions" "
(lambda m, ref: j['state'] == 'run' and j['time'] == 0.5 and j['gyroscopic'] and j['dof'] == 6
 and sum(e['free'] for e in m) == 6 and len(m) == 7 and not m[6]['free']
 and abs(m[6]['frequency'] - ref) <= 1e-9 * ref and abs(m[6]['damping_ratio']) <= 1e-12)(
 j['modes'], 10 / math.sqrt(3) / (2 * math.pi))"
"$MBSIM" modes "$sd/chain2.yaml" --json >"$tmp/static.json" 2>"$tmp/err"
expect_rc 0 "modes chain2.yaml --at 0.5 --json" "$MBSIM" modes "$sd/chain2.yaml" --at 0.5 --json
json_check "chain at rest: --at 0.5 gives the static frequencies to 1e-12 relative" "
(lambda a, b: len(a) == len(b) == 2 and all(abs(x - y) <= 1e-12 * y for x, y in zip(a, b))
 and not j['gyroscopic'])(
 [m['frequency'] for m in j['modes']],
 [m['frequency'] for m in json.load(open('$tmp/static.json'))['modes']])"

# 11. the modes file
expect_rc 0 "modes spinner.yaml --at 0.5 -o --json" "$MBSIM" modes "$sd/spinner.yaml" \
	--at 0.5 -o "$tmp/spin.h5" --json
h5dump -m %.17g -d /modes/frequency "$tmp/spin.h5" 2>/dev/null |
	awk '/DATA \{/ { on = 1; next } on && /}/ { exit } on' | sed 's/^ *([0-9]*): *//' | tr ',' '\n' |
	sed '/^ *$/d' >"$tmp/freq"
json_check "/modes/frequency is the printed frequencies" "
[float(x) for x in open('$tmp/freq').read().split()] == [m['frequency'] for m in j['modes']]
 and j['output'] == '$tmp/spin.h5'"
st=$(h5attr "$tmp/spin.h5" status) state=$(h5attr "$tmp/spin.h5" state) at=$(h5attr "$tmp/spin.h5" time)
if [ "$st" = complete ] && [ "$state" = run ] && [ "$at" = 0.5 ]; then
	ok "modes file: status complete, state run, time 0.5"
else
	bad "modes file: status '$st', state '$state', time '$at'"
fi
echo "not an mbsim file" >"$tmp/other.h5"
expect_rc 64 "modes -o refuses a file that is not an mbsim output" "$MBSIM" modes \
	"$sd/chain2.yaml" -o "$tmp/other.h5"
if [ "$(cat "$tmp/other.h5")" = "not an mbsim file" ]; then ok "the file is left as it was"
else bad "the file was changed"; fi
expect_rc 0 "modes -o --force writes it" "$MBSIM" modes "$sd/chain2.yaml" -o "$tmp/other.h5" --force
if [ "$(h5attr "$tmp/other.h5" state)" = static_equilibrium ]; then ok "written: state static_equilibrium"
else bad "not written as a modes file"; fi
expect_rc 0 "modes chain2.yaml -o" "$MBSIM" modes "$sd/chain2.yaml" -o "$tmp/chain.h5"
if "$PY" -c "
import h5py, numpy as np, math, sys
f = h5py.File('$tmp/chain.h5')
S = f['/modes/shape'][:]; fr = f['/modes/frequency'][:]
ok = S.shape == (2, 12, 2)
for m in range(2):
    w2 = (2 * math.pi * fr[m]) ** 2
    ref = (100 + 50 - 1 * w2) / 50
    x = S[m, :, 0]
    ok = ok and abs(x[6] / x[0] - ref) <= 1e-9 * abs(ref) and np.abs(S[m, :, 1]).max() <= 1e-12 \
        and np.abs(np.delete(x, [0, 6])).max() <= 1e-12 and np.abs(x).max() == 1
    print(m, x[6] / x[0], ref)
sys.exit(0 if ok else 1)" >"$tmp/pout" 2>&1; then
	ok "chain shapes: x2 / x1 = (k1 + k2 - m1 w^2) / k2 to 1e-9"
else
	bad "chain shapes" "$(cat "$tmp/pout")"
fi
if "$PY" -c "
import h5py, numpy as np, math, sys
S = h5py.File('$tmp/spin.h5')['/modes/shape'][-1]
z = complex(*S[3]) / complex(*S[4])
print(z)
sys.exit(0 if abs(z - 1j * math.sqrt(3) / 2) <= 1e-9 and np.abs(S[:3]).max() <= 1e-12 else 1)" >"$tmp/pout" 2>&1; then
	ok "spinner wobble shape: dth_x / dth_y = i sqrt(3)/2 to 1e-9"
else
	bad "spinner wobble shape" "$(cat "$tmp/pout")"
fi
expect_rc 64 "modes: --at with --time" "$MBSIM" modes "$sd/chain2.yaml" --at 1 --time 1
expect_rc 64 "modes: --at not after time.start" "$MBSIM" modes "$sd/chain2.yaml" --at 0
# decks/hmmwv14.yaml's layout is its static equilibrium (its header,
# INITIAL STATE: solved so that every initial acceleration is below
# 1.2e-4 m/s^2): static converges in at most 5 Newton iterations (the
# reported count: measured 1; 6782 before moments were held to the force
# tolerance times the model's length, the upper arms' free spin against
# a 3.9e-6 N m moment) and moves no body by more than 1e-6 m (measured
# 2.5e-8 m)
expect_rc 0 "static hmmwv14" "$MBSIM" static "$decks/hmmwv14.yaml" --json
json_check "hmmwv14: at most 5 iterations, no body moved by 1e-6 m" '
j["status"] == "converged" and j["iterations"] <= 5 and
max(max(abs(v) for v in b["displacement"]) for b in j["bodies"]) <= 1e-6'
finish
