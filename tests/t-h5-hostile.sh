#!/bin/sh
# t-h5-hostile.sh - files given to `mbsim compare` (and `mbsim summary`, `mbsim export --csv`) that are not what they
# should be: empty, a deck, truncated output files (at 8 sizes), an output
# file with bytes flipped (any documented status), and HDF5 files of foreign layout (made with
# h5py: no /time, /time a group, a string, 3-D, empty, NaN or descending;
# datasets of strings and of 3 dimensions; layout-2 series with a looping
# or out-of-range offsets table or a missing names table).  Each must end with exit 1 or
# 2 and an "mbsim: error:" or FAIL message, never a signal or a sanitizer
# report (under `make asan`, status 99).
# Usage: MBSIM=build/mbsim sh tests/t-h5-hostile.sh
# shellcheck source=tests/lib.sh
. "$(dirname "$0")/lib.sh"

ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}exitcode=99"
UBSAN_OPTIONS="${UBSAN_OPTIONS:+$UBSAN_OPTIONS:}exitcode=99"
export ASAN_OPTIONS UBSAN_OPTIONS

good=$tmp/good.h5
"$MBSIM" run "$decks/pendulum.yaml" --set time.end=0.01 -o "$good" --quiet ||
	bad "reference run"

# NAME FILE [B]: compare FILE with B (default: the good file), both ways;
# exit 1 or 2 with a message.  With ANY=1 set, exit 0 also passes (a file
# whose damage may miss everything compare reads).
hostile() {
	other=${3:-$good}
	for order in ab ba; do
		if [ $order = ab ]; then
			"$MBSIM" compare "$2" "$other" >"$tmp/out" 2>"$tmp/err"
		else
			"$MBSIM" compare "$other" "$2" >"$tmp/out" 2>"$tmp/err"
		fi
		st=$?
		if grep -q 'Sanitizer\|runtime error:' "$tmp/err"; then
			bad "$1 ($order): sanitizer report (exit $st)" "stderr:"
			grep -m5 'ERROR\|SUMMARY\|runtime error' "$tmp/err" | sed 's/^/     /'
		elif { [ "$st" -eq 1 ] || [ "$st" -eq 2 ]; } &&
			grep -q 'mbsim: error: \|FAIL' "$tmp/err" "$tmp/out"; then
			ok "$1 ($order): exit $st"
		elif [ "$st" -eq 0 ] && [ "${ANY:-0}" = 1 ]; then
			ok "$1 ($order): exit 0 (the damage missed what compare reads)"
		else
			bad "$1 ($order): exit $st, want 1 or 2 with a message" "stderr:"
			head -5 "$tmp/err" | sed 's/^/     /'
		fi
	done
	# mbsim summary makes a row of any file: a header and one row, exit 0 or 1
	"$MBSIM" summary "$2" --quantity energy/total@0 >"$tmp/out" 2>"$tmp/err"
	st=$?
	if grep -q 'Sanitizer\|runtime error:' "$tmp/err" || [ "$st" -gt 1 ] ||
	   [ "$(wc -l <"$tmp/out")" -ne 2 ]; then
		bad "$1 (summary): exit $st, $(wc -l <"$tmp/out") lines; want 0 or 1 and a row" "stderr:"
		head -5 "$tmp/err" | sed 's/^/     /'
	else
		ok "$1 (summary): a row, exit $st"
	fi
	# mbsim export --csv: exit 1 with a message, or 0 when the damage
	# missed every series it reads
	"$MBSIM" export --csv "$2" -o "$tmp/h.csv" >"$tmp/out" 2>"$tmp/err"
	st=$?
	if grep -q 'Sanitizer\|runtime error:' "$tmp/err" || [ "$st" -gt 1 ] ||
	   { [ "$st" -eq 1 ] && ! grep -q 'mbsim: error: ' "$tmp/err"; }; then
		bad "$1 (export --csv): exit $st, want 0, or 1 with a message" "stderr:"
		head -5 "$tmp/err" | sed 's/^/     /'
	else
		ok "$1 (export --csv): exit $st"
	fi
}

: >"$tmp/empty.h5"
hostile "empty file" "$tmp/empty.h5"
hostile "a deck" "$decks/pendulum.yaml"
hostile "a directory" "$tmp"
size=$(wc -c <"$good")
for k in 1 2 3 4 5 6 7 15; do
	n=$((size * k / 16))
	head -c "$n" "$good" >"$tmp/trunc$k.h5"
	hostile "truncated to $n of $size bytes" "$tmp/trunc$k.h5"
done
if have_scipy; then
	"$PY" - "$good" "$tmp" <<'PY' || bad "h5py could not write the foreign files"
import sys, shutil, h5py, numpy as np
good, d = sys.argv[1], sys.argv[2]
def mk(name, fill):
    with h5py.File(f"{d}/{name}.h5", "w") as f:
        fill(f)
mk("no_time", lambda f: f.create_dataset("x", data=[1.0]))
mk("time_group", lambda f: f.create_group("time"))
mk("time_string", lambda f: f.create_dataset("time", data=np.array([b"a", b"b"])))
mk("time_3d", lambda f: f.create_dataset("time", data=np.zeros((2, 2, 2))))
mk("time_empty", lambda f: f.create_dataset("time", data=np.zeros(0)))
mk("time_nan", lambda f: f.create_dataset("time", data=[np.nan, 0.0, np.inf]))
mk("time_descending", lambda f: f.create_dataset("time", data=[0.01, 0.005, 0.0]))
def odd_body(f):
    f.create_dataset("time", data=[0.0, 0.005, 0.01])
    f.create_dataset("bodies/b/position", data=np.array([b"x", b"y", b"z"]))
    f.create_dataset("bodies/b/velocity", data=np.zeros((3, 2, 2)))
    f.create_dataset("bodies/b/orientation", data=np.zeros((1, 4)))
mk("odd_datasets", odd_body)
# layout 2 (mbsim-output(5)): a series whose offsets table is the logical
# name of its own slice (read_logical would recurse), offsets past the
# columns, a names table that is not there
def layout(off, table="/joints/names"):
    def fill(f):
        f.create_dataset("time", data=[0.0, 0.005, 0.01])
        f.create_dataset("joints/names", data=np.array([b"a", b"b"]))
        f.create_dataset("joints/o", data=np.array([0, 1, 5]))
        m = f.create_dataset("joints/m", data=np.zeros((3, 2)))
        m.attrs["units"] = "N"
        m.attrs["names"] = np.bytes_(table.encode())
        if off:
            m.attrs["offsets"] = np.bytes_(off.encode())
    return fill
mk("offsets_loop", layout("/joints/a/m"))
mk("offsets_range", layout("/joints/o"))
mk("names_missing", layout(None, "/joints/nothing"))
# the good file with 64 bytes flipped in its middle
b = bytearray(open(good, "rb").read())
for i in range(len(b) // 2, len(b) // 2 + 64):
    b[i] ^= 0x5A
open(f"{d}/flipped.h5", "wb").write(bytes(b))
PY
	for n in no_time time_group time_string time_3d time_empty time_nan time_descending; do
		hostile "$n" "$tmp/$n.h5"
	done
	# datasets compare cannot read: FAIL, also against itself
	hostile odd_datasets "$tmp/odd_datasets.h5" "$tmp/odd_datasets.h5"
	hostile offsets_loop "$tmp/offsets_loop.h5" "$tmp/offsets_loop.h5"
	hostile offsets_range "$tmp/offsets_range.h5" "$tmp/offsets_range.h5"
	# read whole: compares equal to itself, or not at all against the good file
	ANY=1 hostile names_missing "$tmp/names_missing.h5" "$tmp/names_missing.h5"
	ANY=1 hostile "64 bytes flipped" "$tmp/flipped.h5"
else
	skip "foreign HDF5 files (12 files, 4 checks each)" "no scipy or h5py for $PY" 48
fi
finish
