#!/bin/sh
# t-animate.sh - tools/animate.py (issue 14 item 3): a GIF of the double
# pendulum has the frames asked for (--frames 12 of 8001 samples: 12
# distinct sample indices, each frame a different time label, so Pillow
# cannot merge two), a PNG strip is written, a bad view is refused; the
# beams of decks/flexible_four_bar.yaml are lines through their nodes,
# which --deflection-scale K draws at K times their offset from the chord
# (a clamped beam, a cantilever: K times their displacement from the start);
# a modes file is one cycle of its mode K (--mode), as documented.
# Usage: MBSIM=build/mbsim sh tests/t-animate.sh   (run from the source root)

# shellcheck source=tests/lib.sh
. "$(dirname "$0")/lib.sh"

if ! "$PY" -c 'import matplotlib, PIL, h5py, yaml' 2>/dev/null; then
	bad "$PY lacks matplotlib, Pillow, h5py or yaml (tools/install-deps installs them)"
	finish
	exit
fi
expect_rc 0 "run the double pendulum" "$MBSIM" run "$decks/double_pendulum.yaml" -o "$tmp/dp.h5" --quiet
expect_rc 0 "animate.py: GIF and strip" "$PY" "$top/tools/animate.py" "$tmp/dp.h5" \
	-o "$tmp/dp.gif" --strip "$tmp/dp.png" --frames 12 --panels 4 --view yz
n=$("$PY" -c 'import sys; from PIL import Image; print(Image.open(sys.argv[1]).n_frames)' "$tmp/dp.gif" 2>&1)
if [ "$n" = 12 ]; then ok "animate.py: GIF has 12 frames"; else bad "animate.py: GIF frames" "got $n, want 12"; fi
sz=$("$PY" -c 'import sys; from PIL import Image; im = Image.open(sys.argv[1]); print(im.format, im.size[0] > im.size[1])' "$tmp/dp.png" 2>&1)
if [ "$sz" = "PNG True" ]; then ok "animate.py: strip is a wide PNG"; else bad "animate.py: strip" "$sz"; fi
expect_rc 0 "animate.py: 3-D view by azimuth and elevation" "$PY" "$top/tools/animate.py" "$tmp/dp.h5" \
	--strip "$tmp/dp3.png" --panels 2 --view 30,20
expect_rc 1 "animate.py: bad view refused" "$PY" "$top/tools/animate.py" "$tmp/dp.h5" --strip "$tmp/x.png" --view up
# A file that is not a run gives a message and exit 1, no Python traceback
# (before: a traceback for a missing file and for a modes file).
echo "not hdf5" >"$tmp/not.h5"
for f in "$tmp/none.h5" "$tmp/not.h5"; do
	"$PY" "$top/tools/animate.py" "$f" -o "$tmp/x.gif" >"$tmp/out" 2>"$tmp/err"
	rc=$?
	if [ $rc -eq 1 ] && grep -q "^animate.py: $f: " "$tmp/err" && ! grep -q Traceback "$tmp/err"; then
		ok "animate.py on $(basename "$f"): a message, exit 1"
	else
		bad "animate.py on $(basename "$f"): a message, exit 1 (exit $rc)"
	fi
done
# a modes file (mbsim modes -o): one cycle of mode K in 24 frames, the
# bodies where the documented rule puts them, rebuilt here with SciPy's
# rotation exponential (animate.py uses Rodrigues' formula); a mode the
# file has not, or a free motion: a message, exit 1
"$MBSIM" modes "$decks/double_pendulum.yaml" -o "$tmp/modes.h5" >/dev/null 2>&1
expect_rc 0 "animate.py: mode 2 of the double pendulum" "$PY" "$top/tools/animate.py" "$tmp/modes.h5" \
	--mode 2 -o "$tmp/m.gif" --view yz
n=$("$PY" -c 'import sys; from PIL import Image; print(Image.open(sys.argv[1]).n_frames)' "$tmp/m.gif" 2>&1)
if [ "$n" = 24 ]; then ok "animate.py: a mode's GIF has 24 frames"; else bad "animate.py: a mode's frames" "got $n, want 24"; fi
pycheck "animate.py: mode 2's frames as documented" '
sys.path.insert(0, "'"$top"'/tools")
from scipy.spatial.transform import Rotation
import animate
f = h5py.File("'"$tmp"'/modes.h5", "r")
t, names, pos, rot = animate.mode_motion(f, 2)
P, A = f["state/position"][0], f["state/rotation"][0].reshape(-1, 3, 3)
z = (f["modes/shape"][1, :, 0] + 1j * f["modes/shape"][1, :, 1]).reshape(-1, 6)
fr = f["modes/frequency"][1]
L = max(np.ptp(np.vstack([P, [[0, 0, 0]]]), axis=0))
s = min(0.1 * L / np.abs(z[:, :3]).max(), 0.3 / np.abs(z[:, 3:]).max())
errs = []
for j in range(24):
    e = np.exp(2j * np.pi * j / 24)
    if np.abs(pos[j] - (P + s * np.real(e * z[:, :3]))).max() > 1e-12:
        errs.append("frame %d positions" % j)
    for b in range(len(P)):
        R = A[b] @ Rotation.from_rotvec(s * np.real(e * z[b, 3:])).as_matrix()
        if np.abs(rot[b][j] - R).max() > 1e-12:
            errs.append("frame %d body %d rotation" % (j, b))
if np.abs(t - np.arange(24) / (24 * fr)).max() > 1e-15:
    errs.append("times")
moved = np.abs(pos - P).max()
ok = not errs and moved > 0.01 * L
msg = "; ".join(errs[:5]) + " (moved %.3g of %.3g)" % (moved, L)'
"$MBSIM" modes "$top/tests/statics/spinner.yaml" -o "$tmp/free.h5" >/dev/null 2>&1
for c in "$tmp/modes.h5 3 the file has 2 modes" "$tmp/free.h5 1 is a free motion"; do
	set -- $c
	"$PY" "$top/tools/animate.py" "$1" --mode "$2" -o "$tmp/x.gif" >"$tmp/out" 2>"$tmp/err"
	rc=$?
	f=$1
	shift 2
	if [ $rc -eq 1 ] && grep -q "$*" "$tmp/err" && ! grep -q Traceback "$tmp/err"; then
		ok "animate.py --mode: $(cat "$tmp/err")"
	else
		bad "animate.py --mode on $(basename "$f"): '$*', exit 1 (exit $rc)" "$(cat "$tmp/err")"
	fi
done

# beams: 3 polylines of 11 nodes (5 elements each); with --deflection-scale
# 50 the end nodes are where the file puts them and every other node at 50
# times its offset from the chord, the chord and the nodes' places on it
# computed here from /bodies/position by the node names of mbsim-deck(5)
# (start, NAME_1 .. NAME_9, end) and their distances at t0
expect_rc 0 "run the flexible four-bar" "$MBSIM" run "$decks/flexible_four_bar.yaml" -o "$tmp/fb.h5" \
	--quiet --set time.end=2
pycheck "animate.py: beams as lines, deflection x 50 from the chord" '
sys.path.insert(0, "'"$top"'/tools")
import animate
t, names, pos, segments, ground, dots, scale = animate.load("'"$tmp"'/fb.h5", 50.0)
beams = [s for s in segments(len(t) - 1) if len(s) > 2]
f = h5py.File("'"$tmp"'/fb.h5", "r")
bn = [x.decode() for x in f["bodies/names"][()]]
errs = []
if len(beams) != 3 or any(len(b) != 11 for b in beams):
    errs.append("beam lines %s" % [len(b) for b in beams])
dev = 0.0
for (nm, a, z), drawn in zip((("AB", "A1", "B1"), ("BC", "B2", "C2"), ("CD", "C3", "D3")), beams):
    nodes = [a] + ["%s_%d" % (nm, k) for k in range(1, 10)] + [z]
    p0 = np.array([series(f, "bodies/%s/position" % n)[0] for n in nodes])
    p = np.array([series(f, "bodies/%s/position" % n)[-1] for n in nodes])
    fr = np.linalg.norm(p0 - p0[0], axis=1) / np.linalg.norm(p0[-1] - p0[0])
    ref = p[0] + np.outer(fr, p[-1] - p[0])
    want = ref + 50 * (p - ref)
    dev = max(dev, np.abs(p - ref).max())
    if not (np.abs(drawn - want).max() < 1e-12 and np.array_equal(drawn[[0, -1]], p[[0, -1]])):
        errs.append("%s: drawn nodes off by %.3g m" % (nm, np.abs(drawn - want).max()))
if set(dots) & {bn.index(n) for n in bn if n[:3] in ("AB_", "BC_", "CD_")}:
    errs.append("beam nodes drawn as body dots")
ok = not errs and dev > 1e-5
msg = "; ".join(errs) + " (largest offset from a chord %.3g m)" % dev'
expect_rc 0 "animate.py: strip of the four-bar, deflection x 50" "$PY" "$top/tools/animate.py" \
	"$tmp/fb.h5" --strip "$tmp/fb.png" --panels 3 --view xy --deflection-scale 50
[ -s "$tmp/fb.png" ] && ok "animate.py: fb.png written" || bad "animate.py: no fb.png"
# a cantilever (its root clamped to the ground): each node at 50 times
# its displacement from its start, so that the tip goes 50 times as far
# (from the chord between root and tip it was drawn bowed the wrong way
# with the tip where it is)
expect_rc 0 "run the cantilever under its tip load" "$MBSIM" run "$top/tests/statics/cantilever.yaml" \
	--set integrator.method=lms2 --set integrator.step=1e-3 --set time.end=0.05 -o "$tmp/cant.h5" --quiet
pycheck "animate.py: a clamped beam drawn at 50 times its displacement" '
sys.path.insert(0, "'"$top"'/tools")
import animate
t, names, pos, segments, ground, dots, scale = animate.load("'"$tmp"'/cant.h5", 50.0)
beams = [s for s in segments(len(t) - 1) if len(s) > 2]
f = h5py.File("'"$tmp"'/cant.h5", "r")
P = np.array([series(f, "bodies/%s/position" % n) for n in [x.decode() for x in f["bodies/names"][()]]])
want = P[:, 0] + 50 * (P[:, -1] - P[:, 0])     # every body: start + 50 (end - start)
# each drawn point is some node start + 50 (end - start), and the tip
# (the node that moved most) is among them
err = max(np.min(np.linalg.norm(want - d, axis=1)) for d in beams[0]) if len(beams) == 1 else np.inf
tip = want[np.argmax(np.linalg.norm(P[:, -1] - P[:, 0], axis=1))]
drop = np.linalg.norm(P[:, -1] - P[:, 0], axis=1).max()
ok = err < 1e-12 and drop > 1e-4 and np.min(np.linalg.norm(beams[0] - tip, axis=1)) < 1e-12
msg = "drawn points off by %.3g; the tip moved %.3g m" % (err, drop)'
expect_rc 2 "animate.py: --deflection-scale 0 refused" "$PY" "$top/tools/animate.py" "$tmp/fb.h5" \
	--strip "$tmp/x.png" --deflection-scale 0
finish
