#!/bin/sh
# t-h5types.sh - the types of what the output files hold, as a reader sees
# them (mbsim-output(5), ROOT ATTRIBUTES): every root string attribute is
# a variable-length UTF-8 string, which h5py returns as str (not bytes);
# those of datasets and groups (units, description, names, offsets) are
# fixed-length UTF-8 strings (bytes in h5py: libhdf5 1.10 reads a
# variable-length one trusting a damaged file's heap, see src/io/h5.c);
# counts are integers; mbsim's own readers (summary, compare) read both
# these files and files of the earlier kind (fixed-length strings, counts
# as doubles), written here with h5py.
# Usage: MBSIM=build/mbsim sh tests/t-h5types.sh (from the source root)

# shellcheck source=tests/lib.sh
. "$(dirname "$0")/lib.sh"

# a run file (hi), an rp run (its ODE counts), a bdf run (IDA's counts)
# and a modes file
expect_rc 0 "run hi" "$MBSIM" run "$decks/double_pendulum.yaml" --set time.end=0.05 -o "$tmp/hi.h5"
expect_rc 0 "run rn4" "$MBSIM" run "$decks/double_pendulum.yaml" --set time.end=0.05 \
	--set integrator.method=rn4 -o "$tmp/rn4.h5"
expect_rc 0 "run bdf" "$MBSIM" run "$decks/double_pendulum.yaml" --set time.end=0.05 \
	--set integrator.method=bdf -o "$tmp/bdf.h5"
expect_rc 0 "modes -o" "$MBSIM" modes "$decks/double_pendulum.yaml" -o "$tmp/modes.h5"

# the counts mbsim-output(5) lists as integers
counts='["steps", "factorizations", "rejected_steps", "singular_steps", "road_cuts",
 "layout_version", "rhs_evaluations", "jacobian_evaluations", "analytic_jacobians",
 "repartitions", "bdf_steps", "bdf_last_order", "bdf_newton_iterations",
 "bdf_error_test_failures", "bdf_convergence_failures", "dof", "damped", "gyroscopic"]'
for f in hi rn4 bdf modes; do
	pycheck "$f: root string attributes are str, the others fixed-length UTF-8, counts integers, the rest floats" '
counts = set('"$counts"')
bad = []
def look(name, obj):
    for k, v in obj.attrs.items():
        if name != "/" and isinstance(v, (bytes, np.bytes_)):
            t = obj.attrs.get_id(k).get_type()
            if t.is_variable_str() or t.get_cset() != h5py.h5t.CSET_UTF8:
                bad.append("%s@%s: not fixed-length UTF-8" % (name, k))
        elif isinstance(v, bytes) or isinstance(v, np.bytes_):
            bad.append("%s@%s: bytes" % (name, k))
        elif k in counts and not isinstance(v, (np.integer, int)):
            bad.append("%s@%s: %r is not an integer" % (name, k, v))
        elif not isinstance(v, str) and k not in counts and not isinstance(v, np.floating):
            bad.append("%s@%s: %r" % (name, k, type(v)))
with h5py.File("'"$tmp/$f.h5"'", "r") as f:
    look("/", f)
    f.visititems(look)
    seen = [k for k in f.attrs if k in counts]
    status = f.attrs["status"]
ok = not bad and status == "complete" and len(seen) >= 3
msg = "%s; counts seen %s; status %r" % (bad, seen, status)'
done
pycheck "rn4 and bdf carry their own counts (a check that looks at them)" '
a, b = h5py.File("'"$tmp/rn4.h5"'", "r").attrs, h5py.File("'"$tmp/bdf.h5"'", "r").attrs
ok = "rhs_evaluations" in a and "bdf_steps" in b and a["steps"] == 50'

# mbsim's readers: summary and compare on a new file and on one of the
# earlier kind: the same file with every string attribute rewritten as
# fixed-length (np.bytes_) and every count as a double
cp "$tmp/hi.h5" "$tmp/old.h5"
"$PY" -c '
import h5py, numpy as np, sys
with h5py.File(sys.argv[1], "r+") as f:
    def redo(obj):
        for k, v in list(obj.attrs.items()):
            if isinstance(v, str):
                del obj.attrs[k]
                obj.attrs[k] = np.bytes_(v.encode())
            elif isinstance(v, np.integer):
                del obj.attrs[k]
                obj.attrs[k] = float(v)
    redo(f)
    f.visititems(lambda n, o: redo(o))
' "$tmp/old.h5"
pycheck "the old-kind file holds bytes and double counts (what the readers must still take)" '
a = h5py.File("'"$tmp/old.h5"'", "r").attrs
ok = isinstance(a["status"], bytes) and isinstance(a["steps"], np.floating)'
for f in hi old; do
	expect_rc 0 "summary reads the $f file" "$MBSIM" summary "$tmp/$f.h5" --json \
		--quantity bodies/bar1/position:x@0.05
	json_check "summary of the $f file: complete, 50 steps, hi, a value" \
		'j[0]["status"] == "complete" and j[0]["steps"] == 50 and j[0]["integrator"] == "hi" and
		 isinstance(j[0]["quantities"]["bodies/bar1/position:x@0.05"], float)'
done
expect_rc 0 "compare: the new file against the old kind: identical" "$MBSIM" compare \
	"$tmp/hi.h5" "$tmp/old.h5" --json
json_check "compare: every dataset equal, /time passes" \
	'j["time_pass"] and j["common_samples"] == 51 and all(v["max_abs"] == 0 for v in j["datasets"].values())'

finish
