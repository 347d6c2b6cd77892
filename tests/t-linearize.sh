#!/bin/sh
# t-linearize.sh - mbsim linearize (mbsim-linearize(1)): A, B, C, D in the
# partitioned minimal coordinates.
#  1. tests/linearize/quarter_car.yaml: equal to the hand-derived matrices
#     of its header to round-off (1e-12 of each matrix's largest entry;
#     measured: A 1.1e-13 relative, the rounding of the difference
#     quotients of K and C, B exact), states body.z, wheel.z and their
#     rates, inputs the actuated suspension and the force, outputs the
#     three measures;
#  1b. tests/walk29/quarter_car3.yaml (three masses on slanted sliders,
#     under gravity): the hand-derived matrices of its header within
#     1e-9 of each matrix's largest entry (measured: A 3.7e-11, the
#     truncation of the fourth-order differences of the slanted springs,
#     B 1e-14, C 5e-14, D exactly 0), at the initial state and at the
#     static equilibrium (the same, the springs being linear);
#  2. the eigenvalues of A are the damped modes' (mbsim modes) to 1e-9
#     relative (both from the same linearization in two bases: measured
#     ~1e-15) on the quarter car, the driven pendulum and the double
#     pendulum of Fang et al. (2023) at their static equilibria, and on the
#     pendulum at the state of a run (--at 0.7, modes --at 0.7);
#  3. tests/linearize/pendulum.yaml (a damped pendulum, nonlinear, driven
#     by a torque): the gain |C (jw - A)^-1 B + D| at w = 0.1, 0.31, 1, 3.1
#     and 10 times its natural frequency against the amplitude of the
#     steady state of `mbsim run --from-static` with the torque T0 sin(w t)
#     (least-squares fit of a sin + b cos + c over the last two periods,
#     after 12 s, eleven decay times of the transient) within 1 %
#     (measured 2.5e-6 at most);
#  4. the HDF5 file (-o) holds the JSON's matrices and names;
#  5. refusals: exit 64 for a bad command line, 2 for a bad deck.
# Usage: MBSIM=build/mbsim sh tests/t-linearize.sh (from the source root)

# shellcheck source=tests/lib.sh
. "$(dirname "$0")/lib.sh"
ld=$top/tests/linearize

# 1b.
for how in "" --from-static; do
	expect_rc 0 "three masses: linearize $how --json" "$MBSIM" linearize \
		"$top/tests/walk29/quarter_car3.yaml" $how --json
	json_check "three masses $how: A, B, C, D the hand-derived ones (the deck's header)" '
(lambda m1, m2, m3, k1, c1, k2, c2, k3, c3, g: all(
  max(abs(a - b) for ra, rb in zip(j[k], ref) for a, b in zip(ra, rb)) <=
  1e-9 * max(max(abs(b) for rb in ref for b in rb), 1e-300 if k == "D" else 0)
  for k, ref in (
   ("A", [[0, 0, 0, 1, 0, 0], [0, 0, 0, 0, 1, 0], [0, 0, 0, 0, 0, 1],
          [-k1/m1, k1/m1, 0, -c1/m1, c1/m1, 0],
          [k1/m2, -(k1 + k2)/m2, k2/m2, c1/m2, -(c1 + c2)/m2, c2/m2],
          [0, k2/m3, -(k2 + k3)/m3, 0, c2/m3, -(c2 + c3)/m3]]),
   ("B", [[0, 0, 0], [0, 0, 0], [0, 0, 0], [0, 0, g * 1.6/m1], [-g/m2, 0, 0],
          [g/m3, g/m3, 0]]),
   ("C", [[1/g, -1/g, 0, 0, 0, 0], [1, 0, 0, 0, 0, 0], [0, 0, 0, 0, 0, 0.6/g]]),
   ("D", [[0, 0, 0]] * 3)))
 and j["states"] == ["seat.z", "car.z", "wheel.z", "seat.vz", "car.vz", "wheel.vz"]
 and j["inputs"] == ["susp", "road", "seatpush"])(80, 400, 45, 9000, 600, 21000, 1500, 190000, 40, 0.8)'
done

# 1.
expect_rc 0 "quarter car: linearize --json" "$MBSIM" linearize "$ld/quarter_car.yaml" --json
cp "$tmp/out" "$tmp/qc.json"
json_check "quarter car: A, B, C, D equal the hand-derived ones (the deck's header)" '
(lambda ms, mu, ks, cs, kt: all(
  max(abs(a - b) for ra, rb in zip(j[k], ref) for a, b in zip(ra, rb)) <=
  1e-12 * max(abs(b) for rb in ref for b in rb)
  for k, ref in (
   ("A", [[0, 0, 1, 0], [0, 0, 0, 1], [-ks/ms, ks/ms, -cs/ms, cs/ms],
          [ks/mu, -(ks + kt)/mu, cs/mu, -cs/mu]]),
   ("B", [[0, 0], [0, 0], [-1/ms, 1/ms], [1/mu, 0]]),
   ("C", [[1, 0, 0, 0], [1, -1, 0, 0], [0, 0, 1, 0]]),
   ("D", [[0, 0], [0, 0], [0, 0]]))))(250, 35, 16000, 1000, 160000)'
json_check "quarter car: states, inputs and outputs named" '
j["states"] == ["body.z", "wheel.z", "body.vz", "wheel.vz"] and
j["inputs"] == ["suspension", "push"] and
j["outputs"] == ["body_height", "travel", "body_speed"] and j["state"] == "initial"'

# 2. eig(A) against the modes' eigenvalues (each pair s, conj(s) listed once)
eig_vs_modes() {
	name=$1
	shift
	"$MBSIM" linearize "$@" --json >"$tmp/lin.json" 2>"$tmp/err" || { bad "$name: linearize" ; return; }
	case $* in *--from-static*) set -- $(echo "$@" | sed 's/--from-static//') ;; esac
	"$MBSIM" modes "$@" --json >"$tmp/modes.json" 2>"$tmp/err" || { bad "$name: modes"; return; }
	pycheck "$name: eig(A) = the damped modes' eigenvalues" '
A = np.array(json.load(open("'"$tmp/lin.json"'"))["A"], float)
ev = np.linalg.eigvals(A) if A.size else np.array([])
s = []
for m in json.load(open("'"$tmp/modes.json"'"))["modes"]:
    re, im = m["eigenvalue"]
    s += [complex(re, im)] + ([complex(re, -im)] if im != 0 else [])
s = np.array(s)
scale = max(abs(ev).max(), 1e-300)
ok = len(ev) == len(s)
for z in s:
    if not ok: break
    k = np.argmin(abs(ev - z))
    ok = abs(ev[k] - z) <= 1e-9 * scale
    ev = np.delete(ev, k)
msg = "A: %s, modes: %s" % (np.linalg.eigvals(A), s)'
}
eig_vs_modes "quarter car" "$ld/quarter_car.yaml" --from-static
eig_vs_modes "pendulum" "$ld/pendulum.yaml" --from-static
eig_vs_modes "double pendulum" "$decks/double_pendulum.yaml" --from-static
eig_vs_modes "pendulum at a state of a run" "$ld/pendulum.yaml" --at 0.7

# 3. frequency response against sine runs
if "$MBSIM" linearize "$ld/pendulum.yaml" --from-static --json >"$tmp/pl.json" 2>"$tmp/err"; then
	pycheck "pendulum: |H(jw)| of A, B, C, D = the sine runs' amplitude within 1 % over two decades" '
import subprocess
j = json.load(open("'"$tmp/pl.json"'"))
A, B, C, D = (np.array(j[k], float) for k in "ABCD")
wn = np.sqrt(3 * 9.81 / 2)         # the deck header: sqrt(3 g / (2 L))
ok, msg = True, ""
for w in wn * np.array([0.1, 0.31, 1, 3.1, 10]):
    P = 2 * np.pi / w
    T = 12 + 2 * P
    h = min(1e-3, P / 2000)
    out = "'"$tmp"'/frf.h5"
    r = subprocess.run(["'"$MBSIM"'", "run", "'"$ld/pendulum.yaml"'", "--from-static",
                        "--set", "parameters.W=%r" % w, "--set", "time.end=%r" % T,
                        "--set", "integrator.step=%r" % h, "--set", "output.every=1",
                        "-o", out, "--force", "--quiet"], capture_output=True, text=True)
    if r.returncode:
        ok, msg = False, r.stderr
        break
    with h5py.File(out, "r") as f:
        t, q = series(f, "time"), series(f, "measures/angle/value").ravel()
    k = t >= T - 2 * P
    X = np.column_stack([np.sin(w * t[k]), np.cos(w * t[k]), np.ones(k.sum())])
    a, b, _ = np.linalg.lstsq(X, q[k], rcond=None)[0]
    H = abs((C @ np.linalg.solve(1j * w * np.eye(len(A)) - A, B) + D)[0, 0])
    e = np.hypot(a, b) / H - 1
    msg += "w %.4g: run %.6g, |H| %.6g (%.2g); " % (w, np.hypot(a, b), H, e)
    ok = ok and abs(e) < 0.01'
else
	bad "pendulum: linearize --from-static"
fi

# 4. the file
expect_rc 0 "quarter car: -o" "$MBSIM" linearize "$ld/quarter_car.yaml" -o "$tmp/qc.h5"
pycheck "quarter car: the file holds the JSON's matrices and names" '
f = h5py.File("'"$tmp/qc.h5"'", "r")
j = json.load(open("'"$tmp/qc.json"'"))
t = lambda ds: [x.decode() if isinstance(x, bytes) else x for x in ds[()]]
ok = all(np.array_equal(f[k][()], np.array(j[k])) for k in "ABCD")
ok = ok and t(f["states"]) == j["states"] and t(f["inputs"]) == j["inputs"]
ok = ok and t(f["outputs"]) == j["outputs"] and f["A"].ndim == 2 and f["B"].shape == (4, 2)
ok = ok and f.attrs["analysis"] in ("linearize", b"linearize")'

# 5. refusals
expect_rc 64 "--at with --from-static" "$MBSIM" linearize "$ld/pendulum.yaml" --at 1 --from-static
expect_rc 64 "--time without --from-static" "$MBSIM" linearize "$ld/pendulum.yaml" --time 1
expect_rc 64 "--at 0 (not after time.start)" "$MBSIM" linearize "$ld/pendulum.yaml" --at 0
expect_rc 64 "an unknown option" "$MBSIM" linearize "$ld/pendulum.yaml" --buckling
expect_rc 64 "no deck" "$MBSIM" linearize
expect_rc 2 "a deck that does not exist" "$MBSIM" linearize "$tmp/none.yaml"
expect_rc 2 "a bad --set" "$MBSIM" linearize "$ld/pendulum.yaml" --set parameters.c=oops
# a PID motor's integral is a state A does not carry: refused at the motor
# (before the refusal, A was the 2 x 2 of kp and kd alone)
expect_rc 2 "a PID motor: linearize refuses the deck" "$MBSIM" linearize \
	"$top/tests/walk29/pid_pendulum.yaml"
grep -q "pid_pendulum.yaml:[0-9]*:[0-9]*: error: .*motor 'ctl'.*integral" "$tmp/err" &&
	ok "a PID motor: the message names the motor at its line" ||
	bad "a PID motor: the message names the motor at its line" "$(cat "$tmp/err")"
expect_rc 0 "the same deck with ki = 0: linearized" "$MBSIM" linearize \
	"$top/tests/walk29/pid_pendulum.yaml" --set forces.0.ki=0

finish
