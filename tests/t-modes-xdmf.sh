#!/bin/sh
# t-modes-xdmf.sh - export --xdmf of a modes file (mbsim modes -o): the
# mode shapes drawn for ParaView as 24 frames over one cycle of each mode
# (mbsim-export(1), MODES FILES), at times k + j/24.  The vertices are
# checked against the documented motion, rebuilt here from the modes file
# alone with SciPy's rotation exponential: body b at frame j of mode k is
# at r_b + s Re(dr e^(i phi)), turned A_b exp(s Re(dth e^(i phi))~),
# phi = 2 pi j / 24, s bringing the largest displacement to a tenth of the
# extent of the shapes' box (at most 0.3 rad of rotation).  Independent of
# that rule: the bodies stay rigid, and every mode moves a vertex by 5 % of
# the extent or more (a mode drawn still would pass the rest).  A modes file without shapes (an earlier mbsim) is refused
# saying what to do.  `modes -o FILE --xdmf` writes the same pair as
# `export --xdmf FILE`.
# Usage: MBSIM=build/mbsim sh tests/t-modes-xdmf.sh (from the source root)

# shellcheck source=tests/lib.sh
. "$(dirname "$0")/lib.sh"

# the double pendulum (planar, real shapes), a chain of three (3-D), the
# heavy top linearized while it spins (gyroscopic: complex shapes)
for c in "double_pendulum" "chain --set parameters.N=3" "heavy_top --at 0.05"; do
	set -- $c
	d=$1
	shift
	expect_rc 0 "modes $d -o" "$MBSIM" modes "$decks/$d.yaml" "$@" -o "$tmp/$d.h5"
	expect_rc 0 "export --xdmf of the modes file" "$MBSIM" export --xdmf "$tmp/$d.h5"
	grep -q "modes 1-[0-9]* of [0-9]*, 24 frames a cycle" "$tmp/err" &&
		ok "$d: the note says which modes and how drawn" ||
		bad "$d: the note says which modes and how drawn"
	if ! have_scipy; then
		skip "$d: vertices against the documented motion" "scipy" 1
		continue
	fi
	pycheck "$d: vertices, times and reversal as documented (float32: 1e-6 of the extent)" '
from scipy.spatial.transform import Rotation
m = h5py.File("'"$tmp/$d.h5"'", "r")
x = h5py.File("'"$tmp/$d.xdmf.h5"'", "r")
P, R = m["state/position"][0], m["state/rotation"][0].reshape(-1, 3, 3)
V, off = m["shapes/vertices"][:], m["shapes/vertex_offsets"][:]
Z, fr = m["modes/shape"][:], m["modes/frequency"][:]
nb, nm = len(P), min(len(fr), 12)
world = np.concatenate([P[b] + V[off[b]:off[b + 1]] @ R[b].T for b in range(nb)])
L = np.linalg.norm(world.max(0) - world.min(0))
X = x["vertices"][:].astype(float)
worst, rigid, moved = 0.0, 0.0, 0.0
for k in range(nm):
    z = Z[k, :, 0] + 1j * Z[k, :, 1]
    zt = np.abs(z.reshape(nb, 2, 3)[:, 0]).max(); zr = np.abs(z.reshape(nb, 2, 3)[:, 1]).max()
    s = min(0.1 * L / zt if zt > 0 else np.inf, 0.3 / zr if zr > 0 else np.inf)
    for j in range(24):
        e = np.real(s * z * np.exp(2j * np.pi * j / 24)).reshape(nb, 2, 3)
        want = np.concatenate([P[b] + e[b, 0] + V[off[b]:off[b + 1]] @
                               (R[b] @ Rotation.from_rotvec(e[b, 1]).as_matrix()).T
                               for b in range(nb)])
        worst = max(worst, np.abs(X[24 * k + j] - want).max())
    moved = max(moved, np.abs(X[24 * k:24 * k + 24] - world).max())
    for b in range(nb):
        a, c = X[24 * k + 5, off[b]:off[b + 1]], world[off[b]:off[b + 1]]
        da = np.linalg.norm(a[:, None] - a[None], axis=2); dc = np.linalg.norm(c[:, None] - c[None], axis=2)
        rigid = max(rigid, np.abs(da - dc).max())
t = np.array([float(v) for v in __import__("re").findall(r"<Time Value=\"([^\"]+)\"", open("'"$tmp/$d.xdmf"'").read())])
ok = (worst <= 1e-6 * L and rigid <= 1e-6 * L and moved >= 0.05 * L and X.shape[0] == 24 * nm and
      np.allclose(t, np.arange(24 * nm) / 24.0, atol=1e-12))
msg = "modes %d, worst %.3g, rigid %.3g, moved %.3g, L %.3g" % (nm, worst, rigid, moved, L)'
done

# a modes file without /shapes (written before they were): the message
# says what to do
if have_scipy; then
	cp "$tmp/double_pendulum.h5" "$tmp/old.h5"
	"$PY" -c 'import h5py, sys; f = h5py.File(sys.argv[1], "r+"); del f["shapes"]' "$tmp/old.h5"
	expect_rc 1 "a modes file without shapes: exit 1" "$MBSIM" export --xdmf "$tmp/old.h5"
	grep -q "has no /shapes (written before modes files had them): run mbsim modes -o again" "$tmp/err" &&
		ok "its message says to write it again" || bad "its message says to write it again"
else
	skip "a modes file without shapes" "h5py" 2
fi

# modes -o FILE --xdmf writes the same pair as export --xdmf of FILE does
expect_rc 0 "modes double_pendulum -o --xdmf" "$MBSIM" modes "$decks/double_pendulum.yaml" \
	-o "$tmp/dpx.h5" --xdmf
if h5diff "$tmp/dpx.xdmf.h5" "$tmp/double_pendulum.xdmf.h5" >"$tmp/d" 2>&1 &&
	sed 's/dpx/double_pendulum/g' "$tmp/dpx.xdmf" | cmp -s - "$tmp/double_pendulum.xdmf"; then
	ok "modes --xdmf: the same .xdmf and .xdmf.h5 as export --xdmf"
else
	bad "modes --xdmf: the same .xdmf and .xdmf.h5 as export --xdmf" "$(head -5 "$tmp/d")"
fi
expect_rc 64 "modes --xdmf without -o: usage error" "$MBSIM" modes "$decks/double_pendulum.yaml" --xdmf

finish
