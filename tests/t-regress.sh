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
run fl_hi.h5 decks/four_link.yaml --set output.every=100
run fl_fi.h5 decks/four_link.yaml --set output.every=100 --set integrator.method=fi
run chain8.h5 decks/chain.yaml --set parameters.N=8 --set time.end=1 --set output.every=100
for mu in 0 0.2 0.4; do
	run scf_$mu.h5 decks/slider_crank_friction.yaml --set parameters.mu=$mu
done
run as_hi.h5 decks/andrews_squeezer.yaml --set output.every=100
run as_fi.h5 decks/andrews_squeezer.yaml --set output.every=100 --set integrator.method=fi
/usr/bin/python3 tests/check_runs.py "$d"
