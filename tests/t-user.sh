#!/bin/sh
# t-user.sh - what a new user hit (issue 16, items 2-8): a misspelt --set
# target, -o naming an input, derivatives of time functions at a
# breakpoint at t0, --set into repeat copies, messages with suggestions,
# manual pages that name every integrator, --json that is JSON, surplus
# arguments.  Results are read through mbsimlib.series (tools/), never by
# HDF5 paths.  Usage: MBSIM=build/mbsim sh tests/t-user.sh (source root)

# shellcheck source=tests/lib.sh
. "$(dirname "$0")/lib.sh"
udecks=$top/tests/user

# --- item 4: the t0 sample of a driver whose cosine ramp starts at t0 ------
# tests/user/ramp_arm.yaml: effort J alpha(t0+) = 0.42 pi^3/16 N m (derived
# in the deck).  The t0 sample is the index-1 solve at t0 for every scheme,
# one linear solve of a 6-body-coordinate system: its relative error is
# round-off, 1e-9 relative is the bound issue 16 asks for.  Before the fix
# fi and genalpha gave 0 (left limit) and hi 0.407 (half).
if [ -x "$PY" ] && "$PY" -c 'import h5py' 2>/dev/null; then
	for m in hi fi genalpha; do
		"$MBSIM" run "$udecks/ramp_arm.yaml" --set integrator.method=$m -o "$tmp/arm_$m.h5" \
			--quiet 2>"$tmp/err"
		if "$PY" - "$tmp/arm_$m.h5" "$top/tools" >"$tmp/py" 2>&1 <<'PYEOF'
import math, sys
sys.path.insert(0, sys.argv[2])
import h5py, mbsimlib
with h5py.File(sys.argv[1], "r") as f:
    t = mbsimlib.series(f, "time")
    e = mbsimlib.series(f, "drivers/motor/effort").ravel()
want = 0.42 * math.pi ** 3 / 16
assert t[0] == 0.0, t[0]
rel = abs(e[0] - want) / want
print("effort(t0) = %.17g, want %.17g, rel %.3g" % (e[0], want, rel))
sys.exit(0 if rel <= 1e-9 else 1)
PYEOF
		then ok "item 4: $m effort at t0 is the right limit"
		else bad "item 4: $m effort at t0 is the right limit" "$(cat "$tmp/py" "$tmp/err")"
		fi
	done
else
	echo "skip item 4: no h5py for $PY"
fi

finish
