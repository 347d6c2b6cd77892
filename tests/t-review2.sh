#!/bin/sh
# t-review2.sh - regressions found reviewing the merge of layout, scale,
# acc2 and modes (one section per finding, each failed before its fix).
# Usage: MBSIM=build/mbsim sh tests/t-review2.sh (from the source root)

# shellcheck source=tests/lib.sh
. "$(dirname "$0")/lib.sh"

# 1. An offsets attribute that names a dataset at a logical name of its own
# series (/bodies/position with offsets "/bodies/b/position", and a dataset
# there too): offsets_read called h5r_read, which tries the logical name
# first, read the offsets of /bodies/position again, and so on until the
# stack overflowed (SIGSEGV, exit 139).  The offsets [0, 1] are a valid
# table for the one name, so the file equals itself (exit 0) and differs
# from a copy whose position is 1 instead of 0 (exit 1: 1 > atol + rtol).
if have_scipy; then
	"$PY" - "$tmp" <<'PY' || bad "h5py could not write the looping offsets files"
import sys, h5py, numpy as np
for name, x in (("loop0.h5", 0.0), ("loop1.h5", 1.0)):
    with h5py.File(sys.argv[1] + "/" + name, "w") as f:
        f["time"] = np.arange(3.0)
        f["bodies/names"] = np.array([b"b"], dtype="S1")
        d = f.create_dataset("bodies/position", data=np.full((3, 1), x))
        d.attrs["names"] = np.bytes_("/bodies/names")
        d.attrs["offsets"] = np.bytes_("/bodies/b/position")
        f["bodies/b/position"] = np.array([0.0, 1.0])
PY
	for q in "" "--quantity bodies/b/position"; do
		# shellcheck disable=SC2086
		expect_rc 0 "offsets naming a slice of their own series ($q): equal to itself" \
			"$MBSIM" compare "$tmp/loop0.h5" "$tmp/loop0.h5" $q
		# shellcheck disable=SC2086
		expect_rc 1 "offsets naming a slice of their own series ($q): differs from a copy" \
			"$MBSIM" compare "$tmp/loop1.h5" "$tmp/loop0.h5" $q
	done
else
	skip "offsets naming a slice of their own series (2 x 2 compares)" "no scipy or h5py for $PY" 4
fi

# 2. mbsim modes kept one of every two tiny real eigenvalues, taking them
# for the halves of an undamped free motion's double zero.  A free motion
# with damping has a single zero (s = 0 and s = -c/m), so two damped free
# motions were listed as one (while one damped and one undamped gave two).
# tests/statics/chain2.yaml with k1 = k2 = 0, c1 = 3, c2 = 4: K = 0, so
# both masses are free (2 free motions, mbsim-modes(1)); the other
# eigenvalues solve det(s M + C) = 0, M = diag(1, 2), C = [[7, -4], [-4,
# 4]]: s^2 + 9 s + 6 = 0, s = (-9 -+ sqrt(57)) / 2, real and decaying
# (damping ratio 1); their frequencies |s| / 2 pi to 1e-9 relative (the
# finite differences of C err by ~1e-12, mbsim-modes(1)).
expect_rc 0 "modes chain2.yaml k1=k2=0 c1=3 c2=4 --json" "$MBSIM" modes \
	"$top/tests/statics/chain2.yaml" --set parameters.k1=0 --set parameters.k2=0 \
	--set parameters.c1=3 --set parameters.c2=4 --json
json_check "two damped free motions: 2 free modes, then |s| = (9 -+ sqrt(57)) / 2 with zeta 1" "
(lambda m: j['dof'] == 2 and len(m) == 4 and m[0]['free'] and m[1]['free']
 and all(not e['free'] and abs(e['damping_ratio'] - 1) <= 1e-9 for e in m[2:])
 and all(abs(e['frequency'] - r / (2 * math.pi)) <= 1e-9 * r / (2 * math.pi)
         for e, r in zip(m[2:], ((9 - math.sqrt(57)) / 2, (9 + math.sqrt(57)) / 2))))(j['modes'])"
# the same count with one damper (c2 = 0): mass2 undamped and free, mass1
# free with s = -c1 / m1 = -3 (the eigenvalue of mass1 alone: c2 = 0
# uncouples them)
expect_rc 0 "modes chain2.yaml k1=k2=0 c1=3 --json" "$MBSIM" modes \
	"$top/tests/statics/chain2.yaml" --set parameters.k1=0 --set parameters.k2=0 \
	--set parameters.c1=3 --json
json_check "one damped, one undamped free motion: 2 free modes and |s| = 3" "
(lambda m: len(m) == 3 and m[0]['free'] and m[1]['free'] and not m[2]['free']
 and abs(m[2]['frequency'] - 3 / (2 * math.pi)) <= 1e-9 * 3 / (2 * math.pi))(j['modes'])"

# 3. compare and converge take q and -q for one rotation (mbsim-compare(1))
# only when a dataset had 4 columns: /bodies/orientation read whole
# (--quantity bodies/orientation, layout 2: 4 columns per body) was
# compared with its signs as stored.  A copy of a double-pendulum run with
# the second body's quaternions negated (the same rotations) failed with
# |a - b| = 1.41; now it equals the run, for compare (exit 0) and for
# converge (the same errors as against the run itself), and a copy with
# that body's w changed by 1e-3 (a real difference, above the default
# atol 1e-9 + rtol 1e-6) still fails.
if have_scipy; then
	dp=$decks/double_pendulum.yaml
	"$MBSIM" run "$dp" --set time.end=0.01 -o "$tmp/dp.h5" --quiet 2>"$tmp/err" ||
		bad "double pendulum run for item 3"
	"$PY" - "$tmp" <<'PY' || bad "h5py could not write the negated copies"
import sys, shutil, h5py
d = sys.argv[1]
for name, neg, dw in (("dpneg.h5", True, 0.0), ("dpoff.h5", True, 1e-3)):
    shutil.copy(d + "/dp.h5", d + "/" + name)
    with h5py.File(d + "/" + name, "r+") as f:
        q = f["bodies/orientation"]
        a = q[()]
        a[:, 1, :] *= -1
        a[:, 1, 0] += dw
        q[...] = a
PY
	expect_rc 0 "compare --quantity bodies/orientation: q and -q per body are one rotation" \
		"$MBSIM" compare "$tmp/dpneg.h5" "$tmp/dp.h5" --quantity bodies/orientation
	expect_rc 1 "compare --quantity bodies/orientation: w off by 1e-3 fails" \
		"$MBSIM" compare "$tmp/dpoff.h5" "$tmp/dp.h5" --quantity bodies/orientation
	for r in dp dpneg; do
		"$MBSIM" converge "$dp" --set time.end=0.01 --steps 1e-3,5e-4 --reference "$tmp/$r.h5" \
			--quantity bodies/orientation --csv --quiet >"$tmp/conv-$r.csv" 2>"$tmp/err" ||
			bad "converge against $r.h5"
	done
	if [ -s "$tmp/conv-dp.csv" ] && cmp -s "$tmp/conv-dp.csv" "$tmp/conv-dpneg.csv"; then
		ok "converge --quantity bodies/orientation: the same errors against the negated copy"
	else
		bad "converge --quantity bodies/orientation: the same errors against the negated copy" \
			"$(cat "$tmp/conv-dp.csv" "$tmp/conv-dpneg.csv")"
	fi
else
	skip "quaternion signs per body (2 compares, 1 converge)" "no scipy or h5py for $PY" 3
fi

# 4. A /time of shape (N, 0) (no values, N rows) was read as N times:
# h5r_match_times read N values from a buffer of none (ASan: heap-buffer-
# overflow; the plain build "found" a common sample in the garbage).
# /time must hold one time per sample; compare and converge say so and
# exit as for a file without /time: compare 2 (mbsim-compare(1)),
# converge 1 (the reference read after the runs fails, as one without
# /time does).  Under `make asan` a read past the buffer exits 99.
ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}exitcode=99"
export ASAN_OPTIONS
if have_scipy; then
	"$PY" - "$tmp/time0.h5" <<'PY' || bad "h5py could not write the zero-width /time"
import sys, h5py, numpy as np
with h5py.File(sys.argv[1], "w") as f:
    f.create_dataset("time", shape=(1000000, 0), dtype="f8")
    f["energy/total"] = np.zeros(3)
PY
	[ -s "$tmp/dp.h5" ] || "$MBSIM" run "$decks/double_pendulum.yaml" --set time.end=0.01 \
		-o "$tmp/dp.h5" --quiet 2>"$tmp/err"
	for order in "$tmp/time0.h5 $tmp/dp.h5" "$tmp/dp.h5 $tmp/time0.h5"; do
		# shellcheck disable=SC2086
		expect_rc 2 "compare with a /time of 1e6 rows and no values: exit 2" "$MBSIM" compare $order
		grep -q "mbsim: error: .*'/time'.*one time per sample" "$tmp/err" &&
			ok "compare: the message says /time holds no time per sample" ||
			bad "compare: the message says /time holds no time per sample"
	done
	# refused before any run, as an unreadable reference (mbsim-converge(1): 64)
	expect_rc 64 "converge --reference with a /time of no values: exit 64" \
		"$MBSIM" converge "$decks/double_pendulum.yaml" --set time.end=0.01 --steps 1e-3,5e-4 \
		--reference "$tmp/time0.h5" --quantity energy/total --quiet
	grep -q "one time per sample" "$tmp/err" && ok "converge: the message says so" ||
		bad "converge: the message says so"
else
	skip "zero-width /time (2 x 2 compare checks, 2 converge checks)" "no scipy or h5py for $PY" 6
fi

# 5. converge's components took every dataset of 4 columns for a
# quaternion: joints/uni_c/multipliers:x (a universal joint: 3 point rows,
# then 1) was column 1, and :w was accepted, against mbsim-converge(1)
# (x, y, z are columns 0, 1, 2 but of a quaternion).  Now :x gives the
# errors of :0, :w is refused (exit 64), and an orientation's :x is
# still its column 1.
sc=$decks/slider_crank.yaml
conv() {
	"$MBSIM" converge "$sc" --set time.end=0.05 --steps 1e-3,5e-4 --quantity "$1" --csv \
		--quiet 2>"$tmp/err" | sed 1d | cut -d, -f2-
}
for pair in joints/uni_c/multipliers:x,joints/uni_c/multipliers:0 \
	bodies/rod/orientation:x,bodies/rod/orientation:1; do
	a=$(conv "${pair%,*}") b=$(conv "${pair#*,}")
	if [ -n "$a" ] && [ "$a" = "$b" ]; then
		ok "converge ${pair%,*} is ${pair#*,}"
	else
		bad "converge ${pair%,*} is ${pair#*,}" "$a" "$b"
	fi
done
expect_rc 64 "converge joints/uni_c/multipliers:w: no w in multipliers" "$MBSIM" converge "$sc" \
	--set time.end=0.05 --steps 1e-3,5e-4 --quantity joints/uni_c/multipliers:w --quiet
grep -q "no component 'w' in a dataset with 4 columns (use x, y, z or an index 0..3)" "$tmp/err" &&
	ok "the message lists x, y, z and the indices" || bad "the message lists x, y, z and the indices"

finish
