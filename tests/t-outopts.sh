#!/bin/sh
# t-outopts.sh - the output options for comparing with other programs
# (mbsim-deck(5), output; mbsim-output(5)): output.euler writes every rigid
# body's orientation as Euler angles of a named intrinsic sequence, checked
# against the quaternions of the same file by an independent conversion
# (SciPy's Rotation) and by rebuilding the rotation matrix from the angles;
# output.joint_frame_reactions writes the joints' reactions in body 2's
# joint frame, checked against what the joints cannot transmit and the
# deck's axes.
# Usage: MBSIM=build/mbsim sh tests/t-outopts.sh (from the source root)

# shellcheck source=tests/lib.sh
. "$(dirname "$0")/lib.sh"

# rebuild A = R_a0(e0) R_a1(e1) R_a2(e2) and compare with the quaternion
rot='
def R1(k, t):
    c, s = np.cos(t), np.sin(t)
    i, j = (k + 1) % 3, (k + 2) % 3
    M = np.eye(3); M[i, i] = M[j, j] = c; M[j, i] = s; M[i, j] = -s
    return M
def Rq(q):
    w, x, y, z = q
    return np.array([[1 - 2*(y*y + z*z), 2*(x*y - w*z), 2*(x*z + w*y)],
                     [2*(x*y + w*z), 1 - 2*(x*x + z*z), 2*(y*z - w*x)],
                     [2*(x*z - w*y), 2*(y*z + w*x), 1 - 2*(x*x + y*y)]])
'

# 1. the heavy top (a spinning, precessing, nutating 3-D body) in four
# sequences, two of each kind
if have_scipy; then
	for seq in zyx xyz zxz yzy; do
		expect_rc 0 "heavy top, output.euler=$seq" "$MBSIM" run "$decks/heavy_top.yaml" \
			--set time.end=0.5 --set output.euler=$seq -o "$tmp/top_$seq.h5"
		pycheck "$seq: angles rebuild the quaternion's matrix (1e-12) and equal SciPy's (1e-9)" "$rot"'
from scipy.spatial.transform import Rotation
seq = "'$seq'"
with h5py.File("'"$tmp/top_$seq.h5"'", "r") as f:
    e = f["bodies/euler_angles"][:, 0, :]
    q = f["bodies/orientation"][:, 0, :]
    attr = f["bodies/euler_angles"].attrs["sequence"]
    attr = attr.decode() if isinstance(attr, bytes) else attr
ax = ["xyz".index(c) for c in seq]
rebuilt = max(np.abs(R1(ax[0], a) @ R1(ax[1], b) @ R1(ax[2], c) - Rq(qq)).max()
              for (a, b, c), qq in zip(e, q))
# SciPy: upper case = intrinsic; its quaternions are (x, y, z, w)
ref = Rotation.from_quat(q[:, [1, 2, 3, 0]]).as_euler(seq.upper())
d = np.abs((e - ref + np.pi) % (2 * np.pi) - np.pi).max()
ok = (attr == seq and rebuilt <= 1e-12 and d <= 1e-9 and np.abs(e).max() <= np.pi and len(e) > 100
      and np.ptp(e[:, 0]) > 0.1)
msg = "sequence %r rebuilt %.3g scipy %.3g range %.3g" % (attr, rebuilt, d, np.abs(e).max())'
	done
else
	skip "output.euler against SciPy" "scipy" 8
fi

# 2. singular attitudes: the middle angle pi/2 of zyx (a body turned a
# quarter turn about y) and 0 of zxz (about z): the last angle is 0 and
# the first carries the rotation, as documented
for c in "zyx 0,1,0 1.2" "zxz 0,0,1 0.7"; do
	set -- $c
	printf 'bodies: [{name: b, mass: 1, inertia: [1, 2, 3], orientation: {axis: [%s], angle: %s}}]\n' \
		"$2" "$(test "$1" = zyx && echo 'pi/2' || echo "$3")" >"$tmp/lock.yaml"
	printf 'gravity: [0, 0, 0]\ntime: {end: 0.01}\noutput: {euler: %s}\n' "$1" >>"$tmp/lock.yaml"
	expect_rc 0 "singular attitude, $1" "$MBSIM" run "$tmp/lock.yaml" -o "$tmp/lock.h5"
	pycheck "singular attitude, $1: the last angle 0, the first the rotation, the matrix rebuilt" "$rot"'
seq = "'$1'"
with h5py.File("'"$tmp/lock.h5"'", "r") as f:
    e = f["bodies/euler_angles"][0, 0, :]
    q = f["bodies/orientation"][0, 0, :]
ax = ["xyz".index(c) for c in seq]
rebuilt = np.abs(R1(ax[0], e[0]) @ R1(ax[1], e[1]) @ R1(ax[2], e[2]) - Rq(q)).max()
want = [0, np.pi / 2, 0] if seq == "zyx" else [0.7, 0, 0]
ok = rebuilt <= 1e-12 and np.abs(e - want).max() <= 1e-7
msg = "angles %s rebuilt %.3g" % (e, rebuilt)'
done

# 3. a sequence that is not one: exit 2 at the key's line and column
printf 'bodies: [{name: b, mass: 1, inertia: [1, 1, 1]}]\noutput: {euler: zzx}\ntime: {end: 1}\n' >"$tmp/bad.yaml"
expect_rc 2 "output.euler: zzx refused" "$MBSIM" check "$tmp/bad.yaml"
grep -q "bad.yaml:2:17: error: output.euler must be three of x, y, z" "$tmp/err" &&
	ok "its message names FILE:LINE:COL" || bad "its message names FILE:LINE:COL"

# 4. joint-frame reactions on the slider-crank: body 2's joint frame of
# rev_a (ground-crank, axis global x) and trans (ground-slider, axis global
# x) has z along global x (the deck's axes), so z of the joint-frame force
# is x of the global one; rev_a transmits no torque about its axis (the
# motor's is the driver's row, not the joint's), trans no force along it,
# the spherical joint sph_b no torque at all; lengths are kept.
expect_rc 0 "slider-crank, output.joint_frame_reactions" "$MBSIM" run \
	"$decks/slider_crank.yaml" --set time.end=0.5 --set output.joint_frame_reactions=true \
	-o "$tmp/sc.h5"
pycheck "joint frame: z along the axes, no torque about rev_a, no force along trans, norms kept" '
f = h5py.File("'"$tmp/sc.h5"'", "r")
names = [n.decode() for n in f["joints/names"][:]]
F, C = f["joints/reaction_force"][:], f["joints/reaction_torque"][:]
Fj, Cj = f["joints/reaction_force_joint_frame"][:], f["joints/reaction_torque_joint_frame"][:]
a, s, t = names.index("rev_a"), names.index("sph_b"), names.index("trans")
scale = np.abs(F).max()
checks = {
    "rev_a Fz = Fx": np.abs(Fj[:, a, 2] - F[:, a, 0]).max() <= 1e-12 * scale,
    "trans Fz = Fx": np.abs(Fj[:, t, 2] - F[:, t, 0]).max() <= 1e-12 * scale,
    "rev_a Cz = 0": np.abs(Cj[:, a, 2]).max() <= 1e-9 * np.abs(C).max(),
    "trans Fz = 0": np.abs(Fj[:, t, 2]).max() <= 1e-9 * scale,
    "sph_b C = 0": np.abs(Cj[:, s, :]).max() <= 1e-9 * np.abs(C).max(),
    "norms": np.abs(np.linalg.norm(Fj, axis=2) - np.linalg.norm(F, axis=2)).max() <= 1e-12 * scale
             and np.abs(np.linalg.norm(Cj, axis=2) - np.linalg.norm(C, axis=2)).max() <= 1e-12 * np.abs(C).max(),
    "not the global ones": np.abs(Fj[:, a] - F[:, a]).max() > 1e-3 * scale,
}
ok = all(checks.values())
msg = str(checks)'
expect_rc 0 "without the options" "$MBSIM" run "$decks/slider_crank.yaml" --set time.end=0.1 \
	-o "$tmp/plain.h5"
pycheck "without the options the file has neither dataset" '
f = h5py.File("'"$tmp/plain.h5"'", "r")
ok = "euler_angles" not in f["bodies"] and "reaction_force_joint_frame" not in f["joints"]'

finish
