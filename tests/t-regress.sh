#!/bin/sh
# Whole-run checks and regression values of the repository's decks
# (tests/check_runs.py says what is checked and why).
set -u
: "${MBSIM:=build/mbsim}"
d=$(mktemp -d)
trap 'rm -rf "$d"' EXIT
run() { out=$1; shift; "$MBSIM" run "$@" -o "$d/$out" --quiet || { echo "FAIL run $out"; exit 1; }; }
run dp_hi.h5 decks/double_pendulum.yaml
run dp_fi.h5 decks/double_pendulum.yaml --set integrator.method=fi
run sc_hi.h5 decks/slider_crank.yaml --set output.every=100
run sc_fi.h5 decks/slider_crank.yaml --set output.every=100 --set integrator.method=fi
run sc_hi_last.h5 decks/slider_crank.yaml --set output.every=100 --set integrator.predictor=last
run sc_fi_last.h5 decks/slider_crank.yaml --set output.every=100 --set integrator.method=fi \
	--set integrator.predictor=last
# every step: 8001 samples, several chunks of every series (h5.c)
run sc_hi_every1.h5 decks/slider_crank.yaml
# one sample per crank turn: the angle is still unwrapped (sim.c)
run sc_hi_every1000.h5 decks/slider_crank.yaml --set output.every=1000
# a run that fails at step 1 (hi's limit on the chain, hi.c) still leaves
# its samples and a status
"$MBSIM" run decks/chain.yaml --set parameters.N=420 --set time.end=0.01 -o "$d/fail.h5" \
	--quiet 2>/dev/null && { echo "FAIL chain N=420 hi at h=1e-3 ran (expected to fail)"; exit 1; }
run fl_hi.h5 decks/four_link.yaml --set output.every=100
run fl_fi.h5 decks/four_link.yaml --set output.every=100 --set integrator.method=fi
run chain8.h5 decks/chain.yaml --set parameters.N=8 --set time.end=1 --set output.every=100
for mu in 0 0.2 0.4; do
	run scf_$mu.h5 decks/slider_crank_friction.yaml --set parameters.mu=$mu
done
run as_hi.h5 decks/andrews_squeezer.yaml --set output.every=100
run as_fi.h5 decks/andrews_squeezer.yaml --set output.every=100 --set integrator.method=fi
# Output into an existing file replaces it; through a symbolic link, the
# link stays and its target is written (h5.c removes regular files only).
run again.h5 decks/pendulum.yaml --set time.end=0.01
run again.h5 decks/pendulum.yaml --set time.end=0.02
ln -s again.h5 "$d/link.h5"
run link.h5 decks/pendulum.yaml --set time.end=0.03
[ -L "$d/link.h5" ] || { echo "FAIL output through a symbolic link replaced the link"; exit 1; }
/usr/bin/python3 -c 'import h5py, sys; t = h5py.File(sys.argv[1], "r")["time"][-1]; sys.exit(int(abs(t - 0.03) > 1e-12))' \
	"$d/again.h5" || { echo "FAIL the link's target does not hold the last run"; exit 1; }
echo "ok   output replaces an existing file and writes through a symbolic link"
# An output that cannot be written (the device that is always full) fails
# the run with exit 1 and says so, rather than passing in silence.
if [ -w /dev/full ]; then
	"$MBSIM" run decks/pendulum.yaml --set time.end=0.01 -o /dev/full --quiet 2>"$d/full.err"
	rc=$?
	if [ "$rc" -eq 1 ] && grep -q "HDF5 file '/dev/full'.*: No space left on device" "$d/full.err"; then
		echo "ok   a full disk fails the run (exit 1, message)"
	else
		echo "FAIL output to /dev/full: exit $rc, stderr: $(cat "$d/full.err")"; exit 1
	fi
fi
/usr/bin/python3 tests/check_runs.py "$d"
