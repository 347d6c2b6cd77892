# lib.sh - set-up shared by the shell tests; sourced, not run:
#
#   . "$(dirname "$0")/lib.sh"
#
# Sets MBSIM (absolute; default build/mbsim), top (the source root), decks,
# PY (/usr/bin/python3) and tmp, a private directory removed on exit; TMPDIR
# becomes $tmp/scratch, so a test can check that mbsim leaves nothing there.
# Counts results in pass, fail and skipped:
#   ok NAME                  a passed check
#   skip NAME REASON [N]     N checks (default 1) not run for want of a tool
#                            or a privilege (REASON: what is missing);
#                            counted in skipped, or in fail when the
#                            environment has MBSIM_NO_SKIP=1 (.ci/run)
#   bad NAME [DETAIL]...     a failed check; prints the details, else the
#                            stderr of the last expect_rc ($tmp/err)
#   expect_rc WANT NAME CMD...   run CMD (stdout to $tmp/out, stderr to
#                            $tmp/err); passes if its exit status is WANT
#   have_scipy               true if $PY imports scipy and h5py
#   have_mpmath              true if $PY imports mpmath, yaml and h5py (the exact
#                            references of tools/coupled_oscillators_ref.py)
#   json_check NAME EXPR     $tmp/out is JSON (as j); passes if the Python
#                            expression EXPR (json and math imported) is
#                            true; a failure prints the JSON and the error
#   le A B                   |A| <= B for numbers; false when A is empty
#   pycheck NAME CODE        runs the Python CODE (sys, json, h5py, numpy
#                            as np and series of tools/mbsimlib imported),
#                            which sets ok = <bool> and may set msg; passes
#                            if ok, a failure prints msg or the traceback
#   series_at FILE NAME ROW  the values of the series NAME (a logical name:
#                            bodies/B/position, joints/J/coordinate, ...;
#                            man/mbsim-output.5) at sample ROW, one a line,
#                            read by tools/mbsimlib.py
#   pos_diff A B             max |difference| of body and particle
#                            positions of the output files A and B (mbsim
#                            compare) and their common samples, as "MAX
#                            COMMON"; empty when compare fails
#   agree NAME A B COMMON BOUND   passes if pos_diff A B is within BOUND
#                            m at COMMON or more common samples (t-tree,
#                            t-bdf: each BOUND about ten times the agreement
#                            measured for its pair, at most 1e-6 m, the
#                            bound for tree against ra at tight tolerances)
#   wait_end PID SECONDS     waits (polling every 50 ms, counted in
#                            waited) at most SECONDS for the background
#                            process PID to end: then sets st to its exit
#                            status; else kills it (SIGKILL), reaps it and
#                            returns 1 (t-signal, t-inputs)
#   finish                   prints "N passed, N failed, N skipped" (the
#                            line tests/run-tests.sh adds up); false on
#                            failures

: "${MBSIM:=build/mbsim}"
case $MBSIM in /*) ;; *) MBSIM=$(pwd)/$MBSIM ;; esac
top=$(cd "$(dirname "$0")/.." && pwd)
# shellcheck disable=SC2034 # decks, PY: for the tests that source this
decks=$top/decks
PY=/usr/bin/python3
tmp=$(mktemp -d "${TMPDIR:-/tmp}/$(basename "$0" .sh).XXXXXX") || exit 1
trap 'rm -rf "$tmp"' EXIT INT TERM
TMPDIR=$tmp/scratch
export TMPDIR
mkdir -p "$TMPDIR"

pass=0
fail=0
skipped=0
ok() { pass=$((pass + 1)); echo "ok   $1"; }
skip() {
	if [ "${MBSIM_NO_SKIP:-0}" = 1 ]; then
		fail=$((fail + ${3:-1}))
		echo "FAIL $1: ${3:-1} check(s) not run: $2 (MBSIM_NO_SKIP=1 makes a skip a failure)"
	else
		skipped=$((skipped + ${3:-1}))
		echo "SKIP $1: ${3:-1} check(s) not run: $2"
	fi
}
bad() {
	fail=$((fail + 1))
	echo "FAIL $1"
	shift
	if [ $# -gt 0 ]; then
		for _detail in "$@"; do
			echo "     $_detail"
		done
	elif [ -s "$tmp/err" ]; then
		sed 's/^/     /' "$tmp/err"
	fi
}

expect_rc() {
	want=$1 name=$2
	shift 2
	"$@" >"$tmp/out" 2>"$tmp/err"
	rc=$?
	if [ "$rc" -eq "$want" ]; then ok "$name"; else bad "$name (exit $rc, want $want)"; fi
}

json_check() {
	if "$PY" -c "
import json, math, sys
j = json.load(open('$tmp/out'))
ok = ($2)
sys.exit(0 if ok else 1)" 2>"$tmp/perr"; then
		ok "$1"
	else
		bad "$1" "$(head -c 600 "$tmp/out")" "$(cat "$tmp/perr")"
	fi
}

# (an empty A is refused first: awk compares "" < 0 as strings, finds it
# true and makes a = -a the number 0)
le() { awk -v a="$1" -v b="$2" 'BEGIN { if (a == "") exit 1; if (a < 0) a = -a; exit !(a <= b) }'; }

pycheck() {
	if "$PY" -c "
import sys
sys.path.insert(0, '$top/tools')
import h5py, numpy as np, json
from mbsimlib import series
msg = ''
$2
if not ok:
    print(msg)
sys.exit(0 if ok else 1)" >"$tmp/pout" 2>&1; then
		ok "$1"
	else
		bad "$1" "$(head -c 800 "$tmp/pout")"
	fi
}

have_scipy() { [ -x "$PY" ] && "$PY" -c 'import scipy, h5py' 2>/dev/null; }
have_mpmath() { [ -x "$PY" ] && "$PY" -c 'import mpmath, yaml, h5py' 2>/dev/null; }
series_at() {
	"$PY" - "$top/tools" "$@" <<'PY'
import sys
sys.path.insert(0, sys.argv[1])
import h5py, numpy as np
from mbsimlib import series
with h5py.File(sys.argv[2], "r") as f:
    for x in np.atleast_1d(series(f, sys.argv[3])[int(sys.argv[4])]):
        print(repr(float(x)))
PY
}

# h5attr FILE NAME: a scalar root attribute of FILE, through h5dump
# (strings without their quotes); empty when the file does not open
h5attr() {
	h5dump -a "/$2" "$1" 2>/dev/null |
		awk '/\(0\):/ { sub(/.*\(0\): */, ""); gsub(/"/, ""); print; exit }'
}

pos_diff() {
	"$MBSIM" compare "$1" "$2" --json 2>/dev/null | "$PY" -c '
import json, sys
j = json.load(sys.stdin)
print(max(v["max_abs"] for k, v in j["datasets"].items()
          if k.startswith(("/bodies/", "/particles/")) and k.endswith("/position")),
      j["common_samples"])'
}

agree() {
	set -- "$1" "$(pos_diff "$2" "$3")" "$4" "$5"
	d=${2% *} n=${2#* }
	if [ -n "$2" ] && le "$d" "$4" && [ "$n" -ge "$3" ]; then
		ok "$1: positions agree to $d m at $n samples (bound $4)"
	else
		bad "$1: positions within $4 m at $3 or more samples" "got: ${2:-no comparison}"
	fi
}

wait_end() {
	waited=0
	while kill -0 "$1" 2>/dev/null && [ "$waited" -lt $(($2 * 20)) ]; do
		sleep 0.05
		waited=$((waited + 1))
	done
	if kill -0 "$1" 2>/dev/null; then
		kill -s KILL "$1"
		wait "$1"
		return 1
	fi
	wait "$1"
	st=$?
}

finish() {
	echo "$pass passed, $fail failed, $skipped skipped"
	[ "$fail" -eq 0 ]
}
