#!/bin/sh
# t-excite.sh - mbsim run --excite-mode: the static equilibrium started in
# one mode of mbsim modes rings at that mode's frequency.  Three
# independent sources meet: a closed form (or numpy's eigenvalues of the
# minimal M, C, K), the eigenproblem of mbsim modes (linearize.c), and the
# nonlinear run (lms2), whose frequency tools/modes_check.py measures from
# zero crossings.
#
#   MBSIM=build/mbsim sh tests/t-excite.sh
#
#   1. compound_pendulum.yaml (a rotated body on an oblique hinge): modes'
#      frequency = sqrt(m g d / (n.A J A^T n + m d^2)) / 2 pi to 1e-9
#      (measured 1.6e-14); the run rings at it to 1e-4 (lms2 at 1639 steps
#      a period: phase error about 0.1 (w h)^2 = 1.5e-6 measured); the
#      hinge angle's amplitude is --amplitude times the length of the
#      shape's rotation (the shape is 1 at its largest entry) to 1e-3
#      (the pendulum's nonlinearity at 1e-4 rad: 1e-9);
#   1b. the same standing above its hinge (an unstable equilibrium): the
#      growing mode's s = sqrt(m g d / J) to 1e-9, and the run is
#      A |psi_rot| sinh(s t) to 1e-4 of its largest (1.2e-4 rad at 1.4 s);
#   2. chain2.yaml, both modes: the closed form of its header to 1e-9, the
#      run at it to 1e-4, and only that mode rings: x1 / x2 is the shape's
#      ratio at every sample to 1e-6;
#   3. chain2.yaml with dampers: the run's damped frequency = the modes'
#      damped frequency = numpy's eigenvalues of [0 I; -K -C] (2 x 2 M,
#      C, K of the header) to 1e-4 (run) and 1e-9 (modes);
#   4. usage: a mode number 0 or 'x', --amplitude without --excite-mode
#      or not positive: exit 64 (usage); a mode past the last, a free motion
#      (spinner.yaml) or no equilibrium (no_support.yaml): exit 1 and no
#      output file.
# Prints "N passed, N failed, N skipped"; exits 1 on any failure.

# shellcheck source=tests/lib.sh
. "$(dirname "$0")/lib.sh"

sd=$top/tests/statics
mc=$top/tools/modes_check.py

if ! have_scipy; then
	skip "t-excite" "no scipy/h5py for $PY" 16
	finish
	exit $?
fi

ring() {	# name deck k amplitude t_end h file [--set ...]: modes, then the excited run
	name=$1 deck=$2 k=$3 amp=$4 te=$5 h=$6 f=$7
	shift 7
	"$MBSIM" modes "$deck" "$@" -o "$tmp/$f.modes.h5" --force >"$tmp/out" 2>"$tmp/err" ||
		{ bad "$name: mbsim modes"; return 1; }
	"$MBSIM" run "$deck" "$@" --excite-mode "$k" --amplitude "$amp" --set time.end="$te" \
		--set integrator.method=lms2 --set integrator.step="$h" -o "$tmp/$f.h5" --force -q \
		2>"$tmp/err" || { bad "$name: mbsim run --excite-mode $k"; return 1; }
	if "$PY" "$mc" "$tmp/$f.modes.h5" "$tmp/$f.h5" "$k" --rtol 1e-4 >"$tmp/pout" 2>&1; then
		ok "$name: the run rings at the mode's frequency: $(cat "$tmp/pout")"
	else
		bad "$name: the run rings at the mode's frequency" "$(cat "$tmp/pout")"
	fi
}

# 1. the compound pendulum
ring "compound pendulum" "$sd/compound_pendulum.yaml" 1 1e-4 10 1e-3 pend
pycheck "compound pendulum: modes' frequency and the amplitude against the closed form" "
from scipy.spatial.transform import Rotation
ax = np.array([0.3, -0.5, 0.8]); ax /= np.linalg.norm(ax)
A = Rotation.from_rotvec(1.1 * ax).as_matrix()
n = np.array([1.0, 1.0, 0.0]) / np.sqrt(2)
J = n @ A @ np.diag([0.1, 0.2, 0.3]) @ A.T @ n + 2 * 0.5 ** 2
f0 = np.sqrt(2 * 9.81 * 0.5 / J) / (2 * np.pi)
with h5py.File('$tmp/pend.modes.h5', 'r') as f:
    fm = f['modes/frequency'][0]
    psi = f['modes/shape'][0][:, 0]
with h5py.File('$tmp/pend.h5', 'r') as f:
    q = f['bodies/orientation'][:, 0]
q0 = q[0]
# the angle about the hinge of q0^-1 q: 2 atan2(|v|, w) with the sign of v . n_body
rel = Rotation.from_quat(q[:, [1, 2, 3, 0]]) * Rotation.from_quat(q0[[1, 2, 3, 0]]).inv()
th = rel.as_rotvec() @ n
amp = np.abs(th).max()
want = 1e-4 * np.linalg.norm(psi[3:6])
ok = abs(fm - f0) <= 1e-9 * f0 and abs(amp - want) <= 1e-3 * want
msg = 'closed form %.15g Hz, modes %.15g Hz, amplitude %.9g rad (want %.9g)' % (f0, fm, amp, want)
print(msg)"

# 1b. standing above its hinge: the growing mode is A psi sinh(s t)
"$MBSIM" modes "$sd/compound_pendulum.yaml" --set parameters.z0=0.5 -o "$tmp/inv.modes.h5" --force \
	>"$tmp/out" 2>"$tmp/err" || bad "inverted pendulum: mbsim modes"
k=$("$PY" -c "
import h5py
with h5py.File('$tmp/inv.modes.h5', 'r') as f:
    print([i + 1 for i, z in enumerate(f['modes/damping_ratio'][()]) if z < 0][0])" 2>/dev/null)
if [ -n "$k" ] && "$MBSIM" run "$sd/compound_pendulum.yaml" --set parameters.z0=0.5 --excite-mode "$k" \
	--amplitude 1e-6 --set time.end=1.4 --set integrator.step=1e-3 -o "$tmp/inv.h5" --force -q 2>"$tmp/err"; then
	pycheck "inverted pendulum: growing mode $k is A |psi_rot| sinh(s t), s from the closed form" "
from scipy.spatial.transform import Rotation
ax = np.array([0.3, -0.5, 0.8]); ax /= np.linalg.norm(ax)
A = Rotation.from_rotvec(1.1 * ax).as_matrix()
n = np.array([1.0, 1.0, 0.0]) / np.sqrt(2)
s0 = np.sqrt(2 * 9.81 * 0.5 / (n @ A @ np.diag([0.1, 0.2, 0.3]) @ A.T @ n + 2 * 0.5 ** 2))
with h5py.File('$tmp/inv.modes.h5', 'r') as f:
    psi = f['modes/shape'][$k - 1][:, 0]
    sm = f['modes/eigenvalue'][$k - 1][0]
with h5py.File('$tmp/inv.h5', 'r') as f:
    t = f['time'][()]
    q = f['bodies/orientation'][:, 0]
rel = Rotation.from_quat(q[:, [1, 2, 3, 0]]) * Rotation.from_quat(q[0, [1, 2, 3, 0]]).inv()
th = np.abs(rel.as_rotvec() @ n)
want = 1e-6 * np.linalg.norm(psi[3:6]) * np.sinh(s0 * t)
# to 1e-4 of the largest: lms2's error for (s h)^2 = 1.3e-5, and the
# pendulum's nonlinearity at the end (theta about 1.2e-4 rad): theta^2 / 6
err = np.abs(th - want).max() / want.max()
ok = abs(sm - s0) <= 1e-9 * s0 and err <= 1e-4
msg = 'closed form s %.15g, modes %.15g; sinh off by %.3g of %.3g rad' % (s0, sm, err, want.max())
print(msg)"
else
	bad "inverted pendulum: modes lists a growing mode ($k) and the run starts in it"
fi

# 2. the two-mass chain, each mode alone
for k in 1 2; do
	ring "chain2 mode $k" "$sd/chain2.yaml" "$k" 1e-4 10 1e-3 "chain$k"
	pycheck "chain2 mode $k: closed form, and only mode $k rings" "
w2 = sorted([(175 - np.sqrt(20625)) / 2, (175 + np.sqrt(20625)) / 2])[$k - 1]
f0 = np.sqrt(w2) / (2 * np.pi)
with h5py.File('$tmp/chain$k.modes.h5', 'r') as f:
    fm = f['modes/frequency'][$k - 1]
    psi = f['modes/shape'][$k - 1][:, 0]
with h5py.File('$tmp/chain$k.h5', 'r') as f:
    x = f['bodies/position'][:, :, 0]
d = x - x[0]
big = np.abs(d[:, 1]) > 1e-2 * np.abs(d[:, 1]).max()
ratio = d[big, 0] / d[big, 1]
want = psi[0] / psi[6]
ok = abs(fm - f0) <= 1e-9 * f0 and np.abs(ratio - want).max() <= 1e-6 * abs(want)
msg = 'closed form %.15g, modes %.15g Hz; x1/x2 %.9g..%.9g, shape %.9g' % (f0, fm, ratio.min(), ratio.max(), want)
print(msg)"
done

# 3. with dampers
ring "damped chain2" "$sd/chain2.yaml" 1 1e-4 12 1e-3 dchain --set parameters.c1=2 --set parameters.c2=1
pycheck "damped chain2: modes' damped frequency against numpy's eigenvalues" "
M = np.diag([1.0, 2.0]); K = np.array([[150.0, -50], [-50, 50]]); C = np.array([[3.0, -1], [-1, 1]])
Mi = np.linalg.inv(M)
S = np.block([[np.zeros((2, 2)), np.eye(2)], [-Mi @ K, -Mi @ C]])
s = np.linalg.eigvals(S)
fd = np.sort(np.abs(s.imag[s.imag > 0])) / (2 * np.pi)
with h5py.File('$tmp/dchain.modes.h5', 'r') as f:
    fm = f['modes/damped_frequency'][()]
ok = np.abs(fm - fd).max() <= 1e-9 * fd.max()
msg = 'numpy %s, modes %s' % (fd, fm)
print(msg)"

# 4. usage and refusals
expect_rc 64 "--excite-mode 0: usage error" "$MBSIM" run "$sd/chain2.yaml" --excite-mode 0 -o "$tmp/u.h5"
expect_rc 64 "--excite-mode x: usage error" "$MBSIM" run "$sd/chain2.yaml" --excite-mode x -o "$tmp/u.h5"
expect_rc 64 "--amplitude without --excite-mode: usage error" "$MBSIM" run "$sd/chain2.yaml" --amplitude 1e-3 -o "$tmp/u.h5"
expect_rc 64 "--amplitude -1: usage error" "$MBSIM" run "$sd/chain2.yaml" --excite-mode 1 --amplitude -1 -o "$tmp/u.h5"
for c in "chain2.yaml 3 has 2 modes" "spinner.yaml 1 is a free motion" "no_support.yaml 1 no static equilibrium"; do
	set -- $c
	rm -f "$tmp/u.h5"
	"$MBSIM" run "$sd/$1" --excite-mode "$2" -o "$tmp/u.h5" -q >"$tmp/out" 2>"$tmp/err"
	rc=$?
	shift 2
	if [ "$rc" = 1 ] && grep -q "$*" "$tmp/err" && [ ! -e "$tmp/u.h5" ]; then
		ok "refused: $(head -1 "$tmp/err")"
	else
		bad "refused with exit 1 and '$*', no file (exit $rc)"
	fi
done

finish
