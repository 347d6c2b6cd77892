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
	ok "offsets naming a slice of their own series: skipped (no h5py)"
fi

finish
