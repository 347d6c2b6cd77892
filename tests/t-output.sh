#!/bin/sh
# The output file (man/mbsim-output.5, layout 2; src/io/h5.c,
# src/sim/output.c): what survives SIGKILL, a full file system, a deck
# larger than an HDF5 attribute, a driver named like its joint,
# compression, and compare's reading of the layout.
. "$(dirname "$0")/lib.sh"
dp=$decks/double_pendulum.yaml
if ! "$PY" -c 'import h5py' 2>/dev/null; then
	# (counted with h5py: 19)
	skip "every check of t-output.sh" "no h5py for $PY" 19
	finish
	exit $?
fi

# kill_after DELAY FILE ARG...: mbsim run ARG... -o FILE --quiet (stderr
# to $tmp/err), killed by SIGKILL after DELAY s; FILE and FILE.partial
# removed first.
kill_after() {
	ka_d=$1 ka_f=$2
	shift 2
	rm -f "$ka_f" "$ka_f.partial"
	"$MBSIM" run "$@" -o "$ka_f" --quiet 2>"$tmp/err" &
	ka_pid=$!
	sleep "$ka_d"
	kill -KILL "$ka_pid" 2>/dev/null
	wait "$ka_pid" 2>/dev/null
}

# --- 1. SIGKILL at random moments ---------------------------------------
# A run of ~10 s (double pendulum to t = 2000 s, a sample every 10 steps;
# 200 s take 1 s here) with a flush every 0.1 s of wall time is killed
# 30 times: 10 after a random delay of 0 to 50 ms (0.05 r^2, r uniform:
# most within the first ~5 ms, where the process starts, reads the deck
# and makes the file) and 20 after 0.5 to 1.5 s (in the steps);
# at most 10 x 0.05 + 20 x 1.5 = 30.5 s of waiting.
#
# The file is made as F.partial and renamed onto F once it holds the
# whole layout, status "running", flushed (h5.c, make_file); so F is
# missing exactly when the process died before that rename - then at
# most F.partial is there - and once F exists F.partial is gone.  The
# rename comes before the first step, 2 to 5 ms after the fork here
# (measured by killing after 0.5 to 4 ms: F.partial or nothing below
# ~2 ms, F from ~5 ms), so every kill after 0.5 s (100 times that) must
# find F.  When F exists it
# must open with h5py and h5dump, say "running", have /time = 0.01 i
# (i = 0, 1, ...: no sample lost, in order; the clock lands on multiples
# of the step, so to round-off, 1e-9) and every series at least as long
# as /time; bar 2's centre (first len(/time) rows) is 3 to 5 m from the
# origin (pinned 4 m out, centre 1 m from the pin), which a row HDF5 never
# got would not be (it reads as the fill value 0).  A kill during a
# flush (~0.5 ms of each 0.1 s here) may leave series longer than /time,
# never shorter (h5.c writes /time last): longer by less than one flush's
# samples, and mbsimlib.series gives /time's length.  The seed is printed
# to replay a failure.
seed=${KILL_SEED:-$(od -An -N4 -tu4 /dev/urandom | tr -d ' ')}
echo "     SIGKILL delays from seed $seed (KILL_SEED=$seed to replay)"
delays=$(awk -v s="$seed" 'BEGIN { srand(s); for (i = 0; i < 30; i++)
	{ r = rand(); printf "%.4f\n", i < 10 ? 0.05 * r * r : 0.5 + r } }')
H5DUMP=$(command -v h5dump)
killed=0 rows=0 nonempty=0 inflush=0 missing=0 partial=0 skeleton=0
for d in $delays; do
	f=$tmp/killed.h5
	kill_after "$d" "$f" "$dp" --set time.end=2000 --set output.every=10 \
		--set output.flush_interval=0.1
	if [ ! -e "$f" ]; then
		late=$(awk -v d="$d" 'BEGIN { print (d >= 0.5) }')
		if [ "$late" = 1 ]; then
			bad "SIGKILL after $d s: no file '$f' (made and renamed ~10 ms after exec)"
			break
		fi
		missing=$((missing + 1))
		[ -e "$f.partial" ] && partial=$((partial + 1))
		killed=$((killed + 1))
		continue
	fi
	if [ -n "$H5DUMP" ] && [ "$(h5attr "$f" status)" = running ] &&
		! "$H5DUMP" -H "$f" | grep -q DATASET; then
		# the skeleton that stands at F while the file is made as
		# F.partial (io/h5_skeleton.h)
		skeleton=$((skeleton + 1))
		killed=$((killed + 1))
		continue
	fi
	if [ -e "$f.partial" ]; then
		bad "SIGKILL after $d s: both '$f' and '$f.partial' exist"
		break
	fi
	if [ -n "$H5DUMP" ] && ! "$H5DUMP" -d /time "$f" >/dev/null 2>"$tmp/err"; then
		bad "SIGKILL after $d s: h5dump cannot read the file" "$(cat "$tmp/err")"
		break
	fi
	if ! r=$("$PY" - "$f" "$top/tools" <<'PY' 2>"$tmp/err"
import sys
sys.path.insert(0, sys.argv[2])
import h5py, numpy as np
from mbsimlib import series
with h5py.File(sys.argv[1], "r") as f:
    st = f.attrs["status"]
    st = st.decode() if isinstance(st, bytes) else st
    t = f["time"][()]
    n = len(t)
    lens = {}
    def collect(k, v):
        if isinstance(v, h5py.Dataset) and "units" in v.attrs:
            lens[k] = v.shape[0]
    f.visititems(collect)
    bad = [k for k, m in lens.items() if m < n]
    assert st == "running", "status %r" % st
    assert np.all(np.abs(t - 0.01 * np.arange(n)) < 1e-9), "times are not 0.01 i"
    assert not bad and len(lens) > 20, "series shorter than /time (%d): %s" % (n, bad[:3])
    longer = max(lens.values()) - n
    # 0.1 s of the double pendulum (2000 samples of 1e-3 s a second
    # with output.every 10 at ~200 simulated s per wall s) is far fewer
    # than 100000 samples; mbsimlib drops the rows past /time
    assert longer < 100000, "series %d rows longer than /time" % longer
    assert all(len(series(f, p)) == n for p in ("bodies/bar2/position", "joints/pin1/coordinate",
                                                 "energy/total"))
    r = np.linalg.norm(series(f, "bodies/bar2/position"), axis=1)
    assert np.all((r > 3 - 1e-6) & (r < 5 + 1e-6)), "a sample of bar 2 is %g m out" % r.min()
    print(n, int(longer > 0))
PY
	); then
		bad "SIGKILL after $d s: the file is not as of a flush" "$(cat "$tmp/err")"
		break
	fi
	set -- $r
	killed=$((killed + 1))
	rows=$((rows + $1))
	inflush=$((inflush + $2))
	[ "$1" -gt 0 ] && nonempty=$((nonempty + 1))
done
# not a vacuous check: some kills came after samples were flushed (when
# the machine is loaded, fewer do; one is enough)
if [ "$killed" -eq 30 ] && [ "$nonempty" -gt 0 ]; then
	ok "SIGKILL at 30 random moments (10 in the first 50 ms): every file opens (h5py, h5dump), status running, /time complete and in order, every series as long ($nonempty with samples, $rows samples in all; $inflush killed during a flush; $missing killed before the file was made, $partial of them leaving F.partial; $skeleton leaving the skeleton)"
elif [ "$killed" -eq 30 ]; then
	bad "SIGKILL at 30 random moments: no file had samples (no flush happened; is the machine overloaded?)"
fi

# --- 1a. SIGKILL inside a flush -------------------------------------------
# output.flush_interval 0: every sample (each 10 steps) is its own flush,
# so much of the run is flushing and kills land inside flushes.  10 kills
# after 0.2 to 0.7 s (at most 7 s): every file opens, and every series is
# as long as /time or longer by at most the one sample of the flush the
# kill interrupted (h5.c writes /time last).
delays=$(awk -v s="$seed" 'BEGIN { srand(s + 1); for (i = 0; i < 10; i++) printf "%.3f\n", 0.2 + 0.5 * rand() }')
killed=0 inflush=0
for d in $delays; do
	f=$tmp/flush.h5
	kill_after "$d" "$f" "$dp" --set time.end=2000 --set output.every=10 \
		--set output.flush_interval=0
	if ! r=$("$PY" - "$f" <<'PY' 2>"$tmp/err"
import sys, h5py, numpy as np
with h5py.File(sys.argv[1], "r") as f:
    n = len(f["time"])
    lens = []
    f.visititems(lambda k, v: lens.append(v.shape[0])
                 if isinstance(v, h5py.Dataset) and "units" in v.attrs else None)
    assert len(lens) > 20 and n > 0, "%d series, %d samples" % (len(lens), n)
    assert min(lens) >= n and max(lens) <= n + 1, "lengths %d..%d, /time %d" % (min(lens), max(lens), n)
    print(int(max(lens) > n))
PY
	); then
		bad "SIGKILL after $d s, a flush every sample" "$(cat "$tmp/err")"
		break
	fi
	killed=$((killed + 1))
	inflush=$((inflush + r))
done
[ "$killed" -eq 10 ] &&
	ok "SIGKILL 10 times with a flush every sample: every file opens, series as long as /time or one sample longer ($inflush killed inside a flush)"

# --- 1c. chunks of a run of unknown length ----------------------------------
# An adaptive run does not know how many samples it writes: its series
# start with chunks of ~4 kB and are made again with chunks of ~64 kB,
# still empty, at the first flush that is not the last (src/io/h5.c,
# H5_CHUNK_FIRST).  The double pendulum with rn4 to t = 20 (~1900 samples,
# rows of 2 x 3 doubles for /bodies/position), once flushed only at the
# end (flush_interval 1e9: 4096 / 48 = 85 rows a chunk) and once at every
# sample (made again: 65536 / 48 = 1365 rows a chunk; /time stays at 512
# samples a chunk): the same series,
# values and attributes, names and values in the same order.
ad="--set integrator.method=rn4 --set integrator.adaptive=true"
"$MBSIM" run "$dp" -o "$tmp/ad_end.h5" --quiet $ad --set time.end=20 --set output.flush_interval=1e9
"$MBSIM" run "$dp" -o "$tmp/ad_each.h5" --quiet $ad --set time.end=20 --set output.flush_interval=0
if r=$("$PY" - "$tmp/ad_end.h5" "$tmp/ad_each.h5" <<'PY' 2>"$tmp/err"
import sys, h5py, numpy as np
a, b = h5py.File(sys.argv[1], "r"), h5py.File(sys.argv[2], "r")
def objs(f):
    # (/checkpoint: a row at each flush, so not the same in the two)
    d = {}
    f.visititems(lambda k, v: None if k.startswith("checkpoint") else d.__setitem__(k, v))
    return d
A, B = objs(a), objs(b)
assert set(A) == set(B), set(A) ^ set(B)
for k, v in A.items():
    assert list(v.attrs) == list(B[k].attrs), (k, list(v.attrs), list(B[k].attrs))
    for n in v.attrs:
        assert np.array_equal(np.asarray(v.attrs[n]), np.asarray(B[k].attrs[n])), (k, n)
    if isinstance(v, h5py.Dataset) and k != "solver/wall_time" and v.dtype.kind in "fi":
        assert np.array_equal(v[()], B[k][()], equal_nan=True), k
ca, cb = A["bodies/position"].chunks, B["bodies/position"].chunks
assert ca == (85, 2, 3) and cb == (1365, 2, 3), (ca, cb)
# /time, the index, is never made again (src/io/h5.c: a kill inside
# the first flush leaves it readable): 512 samples a chunk in both
assert A["time"].chunks == B["time"].chunks == (512,), (A["time"].chunks, B["time"].chunks)
n = len(a["time"])
assert n > 1365, n
print(n, len(A))
PY
); then
	set -- $r
	ok "adaptive run, $1 samples: chunks of 85 rows flushed at the end, 1365 when flushed at every sample (made again, empty, at the first flush); $2 objects, values and attributes the same"
else
	bad "adaptive run: chunk shapes or contents" "$(cat "$tmp/err")"
fi
# Killed 5 times after 0.2 to 0.7 s with a flush every 0.1 s: the series
# made again at the first flush keep their attributes and no series is
# shorter than /time.
delays=$(awk -v s="$seed" 'BEGIN { srand(s + 2); for (i = 0; i < 5; i++) printf "%.3f\n", 0.2 + 0.5 * rand() }')
killed=0 rows=0
for d in $delays; do
	f=$tmp/adkill.h5
	kill_after "$d" "$f" "$dp" $ad --set time.end=2000 --set output.flush_interval=0.1
	if ! r=$("$PY" - "$f" <<'PY' 2>"$tmp/err"
import sys, h5py
with h5py.File(sys.argv[1], "r") as f:
    n = len(f["time"])
    lens = []
    f.visititems(lambda k, v: lens.append(v.shape[0])
                 if isinstance(v, h5py.Dataset) and "units" in v.attrs else None)
    assert len(lens) > 20, "%d series with units" % len(lens)
    assert min(lens) >= n, "a series of %d rows, /time %d" % (min(lens), n)
    assert "names" in f["joints/coordinate"].attrs
    if n > 0:
        assert f["bodies/position"].chunks[0] == 1365, f["bodies/position"].chunks
    print(n)
PY
	); then
		bad "adaptive run killed after $d s" "$(cat "$tmp/err")"
		break
	fi
	killed=$((killed + 1))
	rows=$((rows + r))
done
[ "$killed" -eq 5 ] &&
	ok "adaptive run SIGKILLed 5 times: every file opens, series with their attributes, none shorter than /time ($rows samples in all)"

# --- 1b. a stale F.partial ------------------------------------------------
# what a run killed before its file was made leaves: the next run to the
# same output replaces it, and leaves F (complete) alone
printf 'not HDF5' >"$tmp/stale.h5.partial"
if "$MBSIM" run "$dp" -o "$tmp/stale.h5" --quiet --set time.end=0.01 2>"$tmp/err" &&
	[ ! -e "$tmp/stale.h5.partial" ] && [ "$(h5attr "$tmp/stale.h5" status)" = complete ]; then
	ok "a stale F.partial is replaced; F is complete, F.partial gone"
else
	bad "a stale F.partial" "$(ls "$tmp")" "$(cat "$tmp/err")"
fi

# --- 2. a full file system --------------------------------------------
# 1 MB of tmpfs and the double pendulum's 8001 samples of every step
# (~5 MB): exit 1 and a message naming the file, never a signal; the file,
# if it opens, is not "complete".
mnt=$tmp/full
mkdir -p "$mnt"
if mount -t tmpfs -o size=1m tmpfs "$mnt" 2>"$tmp/err"; then
	"$MBSIM" run "$dp" -o "$mnt/dp.h5" --quiet --set output.every=1 >/dev/null 2>"$tmp/err"
	rc=$?
	st=$("$PY" -c 'import sys, h5py; s = h5py.File(sys.argv[1], "r").attrs["status"]; print(s.decode() if isinstance(s, bytes) else s)' \
		"$mnt/dp.h5" 2>/dev/null)
	if [ "$rc" -eq 1 ] && grep -q "HDF5 file '$mnt/dp.h5' failed: No space left on device" "$tmp/err" &&
		[ "$st" != complete ]; then
		ok "full file system: exit 1, '$(head -1 "$tmp/err" | cut -c1-110)...', status '${st:-unreadable}'"
	else
		bad "full file system: exit $rc, status '$st'" "$(cat "$tmp/err")"
	fi
	# again, over that file: the check of an existing output is the
	# process's first HDF5 call, and HDF5 must not clean up at exit
	# (its handler crashed after a failed write: exit 139; h5read.c)
	rm -f "$mnt/dp.h5"
	"$MBSIM" run "$dp" -o "$mnt/dp.h5" --quiet --set time.end=0.01 >/dev/null 2>&1
	"$MBSIM" run "$dp" -o "$mnt/dp.h5" --quiet --set output.every=1 >/dev/null 2>"$tmp/err"
	rc=$?
	if [ "$rc" -eq 1 ] && grep -q "No space left on device" "$tmp/err"; then
		ok "full file system over an existing output: exit 1, no signal"
	else
		bad "full file system over an existing output: exit $rc" "$(cat "$tmp/err")"
	fi
	umount "$mnt"
else
	skip "full file system (2 runs)" "mount -t tmpfs refused ($(head -1 "$tmp/err"))" 2
fi

# --- 3. the deck text kept whole ----------------------------------------
# 70 kB of comments: more than an HDF5 attribute holds (64 kB); /deck is
# the file's text byte for byte.
big=$tmp/big.yaml
cp "$decks/pendulum.yaml" "$big"
awk 'BEGIN { for (i = 0; i < 1000; i++) printf "# %068d\n", i }' >>"$big"
if "$MBSIM" run "$big" -o "$tmp/big.h5" --quiet --set time.end=0.01 2>"$tmp/err" &&
	"$PY" -c 'import sys, h5py; d = h5py.File(sys.argv[1], "r")["deck"][()]; sys.exit(d != open(sys.argv[2], "rb").read())' \
		"$tmp/big.h5" "$big"; then
	ok "a $(wc -c <"$big")-byte deck is kept whole in /deck"
else
	bad "a deck larger than 64 kB is not kept whole"
fi

# --- 4. a driver named like its joint (issue 16 item 1) -----------------
cat >"$tmp/yaw.yaml" <<'EOF'
title: a rotor turned by a driver named like its joint
gravity: [0, 0, 0]
time: {end: 0.1}
integrator: {method: hi, step: 1e-3}
bodies:
  - {name: rotor, mass: 1, inertia: [0.1, 0.1, 0.2], position: [0, 0, 0]}
joints:
  - {name: yaw, type: revolute, body1: ground, body2: rotor, point: [0, 0, 0], axis: [0, 0, 1]}
drivers:
  - {name: yaw, joint: yaw, function: {type: rate, rate: 2}}
EOF
expect_rc 0 "driver 'yaw' on joint 'yaw' runs" "$MBSIM" run "$tmp/yaw.yaml" -o "$tmp/yaw.h5" --quiet
# both series read back: the joint turned 2 rad/s x 0.1 s = 0.2 rad (the
# driver's rate, solved to the Newton tolerance); the driver's effort
# exists (zero: nothing resists the rotor, to round-off)
c=$(series_at "$tmp/yaw.h5" joints/yaw/coordinate 100)
e=$(series_at "$tmp/yaw.h5" drivers/yaw/effort 100)
if awk -v c="$c" -v e="$e" 'BEGIN { d = c - 0.2; exit !(c != "" && e != "" && d < 1e-9 && d > -1e-9 && e < 1e-9 && e > -1e-9) }'; then
	ok "joints/yaw/coordinate (0.2 rad at 0.1 s: $c) and drivers/yaw/effort ($e) both present"
else
	bad "joints/yaw/coordinate = '$c', drivers/yaw/effort = '$e'"
fi

# --- 5. compare reads the layout ----------------------------------------
sc=$decks/slider_crank.yaml
"$MBSIM" run "$sc" -o "$tmp/sc.h5" --quiet --set time.end=0.5 --set output.every=10 || bad "slider-crank run"
# NaN (no coordinate: spherical and universal joints) equals NaN
expect_rc 0 "compare: a file equals itself, NaN coordinates included" \
	"$MBSIM" compare "$tmp/sc.h5" "$tmp/sc.h5" --rtol 0 --atol 0
grep -q '^/joints/sph_b/coordinate .* ok$' "$tmp/out" && grep -q '^/drivers/motor/effort .* ok$' "$tmp/out" &&
	ok "compare lists joints/NAME and drivers/NAME series" || bad "compare's list" "$(cat "$tmp/out")"
# one value of the rod changed (sample 3, y): the difference names the rod
"$PY" - "$tmp/sc.h5" "$tmp/sc2.h5" <<'PY'
import shutil, sys, h5py
shutil.copy(sys.argv[1], sys.argv[2])
with h5py.File(sys.argv[2], "r+") as f:
    k = [n.decode() for n in f["bodies/names"][()]].index("rod")
    f["bodies/position"][3, k, 1] += 1e-3
PY
expect_rc 1 "compare: a changed value fails" "$MBSIM" compare "$tmp/sc2.h5" "$tmp/sc.h5" --rtol 0 --atol 1e-6
grep -q '^/bodies/rod/position *1\.0000e-03 .* FAIL$' "$tmp/out" &&
	[ "$(grep -c FAIL "$tmp/out")" -eq 2 ] &&
	ok "compare names the body that differs (/bodies/rod/position, 1e-3)" || bad "compare's report" "$(cat "$tmp/out")"

# --- 6. output.compression ------------------------------------------------
expect_rc 0 "output.compression: 9 runs" "$MBSIM" run "$sc" -o "$tmp/scz.h5" --quiet \
	--set time.end=0.5 --set output.every=10 --set output.compression=9
expect_rc 0 "a compressed file reads back identical" \
	"$MBSIM" compare "$tmp/scz.h5" "$tmp/sc.h5" --rtol 0 --atol 0
"$PY" -c 'import sys, h5py; f = h5py.File(sys.argv[1], "r"); sys.exit(f["bodies/position"].compression != "gzip" or f["bodies/position"].compression_opts != 9)' \
	"$tmp/scz.h5" && ok "compressed with deflate level 9" || bad "/bodies/position is not deflated at level 9"
expect_rc 2 "output.compression: 10 is an error" "$MBSIM" check "$sc" --set output.compression=10
grep -q "output.compression must be a deflate level 0 to 9, got 10" "$tmp/err" &&
	ok "output.compression 10: message" || bad "output.compression 10: message"
finish
