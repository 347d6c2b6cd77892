#!/bin/sh
# t-animate.sh - tools/animate.py (issue 14 item 3): a GIF of the double
# pendulum has the frames asked for (--frames 12 of 8001 samples: 12
# distinct sample indices, each frame a different time label, so Pillow
# cannot merge two), a PNG strip is written, a bad view is refused.
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
"$MBSIM" modes "$decks/pendulum.yaml" -o "$tmp/modes.h5" >/dev/null 2>&1
for f in "$tmp/none.h5" "$tmp/not.h5" "$tmp/modes.h5"; do
	"$PY" "$top/tools/animate.py" "$f" -o "$tmp/x.gif" >"$tmp/out" 2>"$tmp/err"
	rc=$?
	if [ $rc -eq 1 ] && grep -q "^animate.py: $f: " "$tmp/err" && ! grep -q Traceback "$tmp/err"; then
		ok "animate.py on $(basename "$f"): a message, exit 1"
	else
		bad "animate.py on $(basename "$f"): a message, exit 1 (exit $rc)"
	fi
done
finish
