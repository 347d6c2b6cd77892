#!/bin/sh
# t-review3.sh - regressions found reviewing the second wave's merges (one
# section per finding, each failed before its fix).
# Usage: MBSIM=build/mbsim sh tests/t-review3.sh (from the source root)

# shellcheck source=tests/lib.sh
. "$(dirname "$0")/lib.sh"

sc=$tmp/sc.h5
"$MBSIM" run "$top/decks/slider_crank.yaml" --set time.end=0.1 -o "$sc" --quiet >/dev/null 2>&1 ||
	bad "slider_crank run"

# 1. summary took every 4-column dataset for a quaternion: for the
# universal joint's 4 multipliers, ':x' read column 1 and ':w' column 0,
# where converge reads ':x' as column 0 and refuses ':w'.  Now both use
# one rule (cli_comp_col): ':x' is ':0' exactly, ':w' is an error of the row.
"$MBSIM" summary "$sc" --quantity "joints/uni_c/multipliers:x@0.1" >"$tmp/sx" 2>/dev/null
"$MBSIM" summary "$sc" --quantity "joints/uni_c/multipliers:0@0.1" >"$tmp/s0" 2>/dev/null
col() {	# FILE: the value in the column whose header names the multipliers
	awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) if ($i ~ /multipliers/) c = i }
		NR == 2 && c { print $c }' "$1"
}
vx=$(col "$tmp/sx")
v0=$(col "$tmp/s0")
if [ -n "$vx" ] && [ "$vx" = "$v0" ]; then
	ok "summary: multipliers:x is column 0 ($vx)"
else
	bad "summary: multipliers:x '$vx' against :0 '$v0'"
fi
"$MBSIM" summary "$sc" --quantity "joints/uni_c/multipliers:w@0.1" >"$tmp/sw" 2>&1
st=$?
if [ "$st" -eq 1 ]; then
	ok "summary: multipliers:w of a 4-column non-orientation dataset is refused (exit 1)"
else
	bad "summary: multipliers:w exit $st" "$(cat "$tmp/sw")"
fi

# 2. export --xdmf checked the shapes' vertex offsets with
# voff[b+1] < voff[b], which a NaN passes; (long)NaN then bounded a loop
# of writes (SIGSEGV, exit 139).  Now exit 1 with a message.
if have_scipy; then
	"$PY" - "$sc" "$tmp/nan.h5" <<'PY' || bad "h5py could not write the NaN offsets file"
import sys, shutil, h5py, numpy as np
shutil.copy(sys.argv[1], sys.argv[2])
with h5py.File(sys.argv[2], "r+") as f:
    v = f["shapes/vertex_offsets"][:].astype(float)
    del f["shapes/vertex_offsets"]
    v[1] = np.nan
    f["shapes/vertex_offsets"] = v
PY
	"$MBSIM" export --xdmf "$tmp/nan.h5" >"$tmp/out" 2>"$tmp/err"
	st=$?
	if [ "$st" -eq 1 ] && grep -q '^mbsim: error: ' "$tmp/err"; then
		ok "export --xdmf: NaN vertex offset refused with a message (exit 1)"
	else
		bad "export --xdmf: NaN vertex offset exit $st" "$(cat "$tmp/err")"
	fi
else
	skip "export --xdmf: NaN vertex offset" "no scipy or h5py for $PY"
fi
finish
