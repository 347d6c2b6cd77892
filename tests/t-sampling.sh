#!/bin/sh
# t-sampling.sh - the default output sampling (output.every unset) keeps a
# run's file proportionate: at most 10000 samples besides the start and
# the end (mbsim-deck(5), output), the summary line says how many and how
# large the file is, and the README's examples write outside the source
# tree.  Every expected count below is the documented rule worked out
# here, k = ceil(N / 10000) for N fixed steps, not a count mbsim printed.
# Usage: MBSIM=build/mbsim sh tests/t-sampling.sh (from the source root)

# shellcheck source=tests/lib.sh
. "$(dirname "$0")/lib.sh"

dp=$decks/double_pendulum.yaml

# rows FILE: the samples of /time
rows() { "$PY" -c 'import h5py, sys; print(h5py.File(sys.argv[1], "r")["time"].shape[0])' "$1"; }

# 1-2. fixed steps: 25000 steps of 4e-5 s to t = 1, so k = ceil(25000 /
# 10000) = 3: the start, steps 3, 6, ..., 24999 (8333 of them) and the
# end, 8335 samples, 3 h apart but the last (one step).  hi (whose
# samples lag a step, sim.c) and lms2 write the same times.
for m in hi lms2; do
	expect_rc 0 "$m: 25000 fixed steps, output.every unset" "$MBSIM" run "$dp" \
		--set time.end=1 --set integrator.step=4e-5 --set integrator.method=$m \
		-o "$tmp/$m.h5" --json
	json_check "$m: JSON samples 8335 of 25000 steps" \
		'j["steps"] == 25000 and j["samples"] == 8335'
	pycheck "$m: the file holds t = 3 k h (h = 4e-5 s) and the end" '
t = h5py.File("'"$tmp/$m.h5"'", "r")["time"][:]
want = np.append(np.arange(0, 25000, 3) * 4e-5, 1.0)
ok = len(t) == len(want) and np.allclose(t, want, rtol=0, atol=1e-12)
msg = "%d samples, max |t - want| %s" % (len(t), np.abs(t - want).max() if len(t) == len(want) else "-")'
done

# 3. output.every: 1 still writes every step: 25001 samples
expect_rc 0 "output.every=1: every step" "$MBSIM" run "$dp" --set time.end=1 \
	--set integrator.step=4e-5 --set output.every=1 -o "$tmp/all.h5" --json
n=$(rows "$tmp/all.h5")
[ "$n" = 25001 ] && ok "output.every=1: 25001 samples" || bad "output.every=1: 25001 samples" "got $n"

# 4. up to 10000 steps every step is a sample (the decks' own settings
# stay as they were): 10000 steps of 1e-4 s, 10001 samples
expect_rc 0 "10000 fixed steps" "$MBSIM" run "$dp" --set time.end=1 \
	--set integrator.step=1e-4 -o "$tmp/10k.h5" --json
json_check "10000 steps: 10001 samples" 'j["steps"] == 10000 and j["samples"] == 10001'

# 5. adaptive steps: a step is written when (t_end - t0) / 10000 = 2e-4 s
# or more has passed since the last sample; the steps are those of
# output.every: 1 (the same run, so the common samples are equal exactly)
ad="--set integrator.atol=1e-9 --set integrator.rtol=1e-9"
# shellcheck disable=SC2086 # $ad: several words
expect_rc 0 "adaptive rn4, output.every unset" "$MBSIM" run \
	"$decks/stiff_double_pendulum.yaml" $ad -o "$tmp/ad.h5" --json
cp "$tmp/out" "$tmp/ad.json"
# shellcheck disable=SC2086
expect_rc 0 "adaptive rn4, output.every=1" "$MBSIM" run \
	"$decks/stiff_double_pendulum.yaml" $ad --set output.every=1 -o "$tmp/ad1.h5" --json
cp "$tmp/out" "$tmp/ad1.json"
pycheck "adaptive: samples 2e-4 s or more apart, each a step of the every-step run" '
a, b = json.load(open("'"$tmp/ad.json"'")), json.load(open("'"$tmp/ad1.json"'"))
fa, fb = h5py.File("'"$tmp/ad.h5"'", "r"), h5py.File("'"$tmp/ad1.h5"'", "r")
ta, tb = fa["time"][:], fb["time"][:]
dt = 2.0 / 10000    # time.end 2 of the deck, t0 = 0
idx = np.searchsorted(tb, ta)
same = (np.all(idx < len(tb)) and np.array_equal(tb[np.minimum(idx, len(tb) - 1)], ta) and
        np.array_equal(fb["bodies/position"][:][idx], fa["bodies/position"][:]))
ok = (a["steps"] == b["steps"] and b["samples"] == b["steps"] + 1 and
      a["samples"] == len(ta) < b["samples"] and np.diff(ta)[:-1].min() >= dt * (1 - 1e-9) and
      ta[0] == 0 and ta[-1] == 2 and same)
msg = "steps %d/%d samples %d/%d min spacing %g same %s" % (a["steps"], b["steps"],
      a["samples"], b["samples"], np.diff(ta)[:-1].min(), same)'

# 6. the summary line names the samples and the file's size, as the JSON
# field output_bytes does (the size on disk, os.stat)
expect_rc 0 "summary line" "$MBSIM" run "$dp" --set time.end=1 --set integrator.step=4e-5 \
	-o "$tmp/s.h5"
pycheck "summary line: (8335 samples, SIZE) matches the file" '
import os, re
err = open("'"$tmp/err"'").read()
m = re.search(r"s\.h5 \((\d+) samples, ([0-9.]+) (bytes|kB|MB|GB)\)", err)
size = os.path.getsize("'"$tmp/s.h5"'")
scale = {"bytes": 1, "kB": 1e3, "MB": 1e6, "GB": 1e9}
# printed to 2 significant digits at least: within 5 % of the size
ok = bool(m) and int(m.group(1)) == 8335 and abs(float(m.group(2)) * scale[m.group(3)] - size) <= 0.05 * size
msg = "%s; file %d bytes" % (m.group(0) if m else err, size)'
pycheck "JSON output_bytes is the size of the file" '
ok = json.load(open("'"$tmp/ad.json"'"))["output_bytes"] == __import__("os").path.getsize("'"$tmp/ad.h5"'")'

# 7. the README's examples write outside the source tree: every command
# of its code blocks that writes a file (mbsim run, tools/sweep,
# animate.py, export) names an absolute -o or runs after a cd out of it
pycheck "README: the examples write outside the source tree" '
import re, shlex
lines, out, bad, code, cwd_out = open("'"$top/README.md"'").read().split("\n"), 0, [], 0, False
for ln in lines:
    if ln.startswith("    "):
        s = ln.strip().split("#")[0]
        if re.match(r"cd /", s):
            cwd_out = True
        w = s.split()
        writes = any(x in s for x in ("mbsim run", "tools/sweep", "animate.py", "mbsim export"))
        if writes and "--collect" not in s:
            out += 1
            o = w[w.index("-o") + 1] if "-o" in w else None
            where = o or (w[-1] if "export" in s else None)
            if not cwd_out and not (where and where.startswith("/")):
                bad.append(s)
    elif ln.strip():
        cwd_out = False   # each code block starts in the source root
ok = out >= 8 and not bad
msg = "%d writing commands; in the source tree: %s" % (out, bad)'

finish
