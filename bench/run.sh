#!/bin/sh
# Whole-process wall times of the benchmark decks: median, min and max of
# REPEAT runs after one warm-up, written as CSV to bench/results/.
# Then the large-model cases of bench/large.py, to a second CSV, and the
# pile of spheres on contact of bench/contact_pile.py, to a text file.
# Usage: [MBSIM=build/mbsim] [LARGE_N="1000 10000"] sh bench/run.sh [REPEAT]   (make bench),
# from the top directory
set -eu
MBSIM=${MBSIM:-build/mbsim}
REPEAT=${1:-7}
mkdir -p bench/results
out=bench/results/bench-$(date +%Y%m%d-%H%M%S).csv
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
echo "case,steps,median_s,min_s,max_s,per_step_us,loop_per_step_us,mean_newton_iterations,max_position_residual" > "$out"
bench() {
	name=$1; shift
	"$MBSIM" run "$@" -o "$tmp/w.h5" --quiet > /dev/null	# warm-up
	/usr/bin/python3 - "$name" "$REPEAT" "$MBSIM" "$tmp/w.h5" "$@" >> "$out" <<'PY'
import json, statistics, subprocess, sys, time
name, rep, mbsim, h5 = sys.argv[1], int(sys.argv[2]), sys.argv[3], sys.argv[4]
args = [mbsim, "run"] + sys.argv[5:] + ["-o", h5, "--json"]
ts, loop = [], []
for _ in range(rep):
    t0 = time.perf_counter()
    p = subprocess.run(args, capture_output=True, text=True, check=True)
    ts.append(time.perf_counter() - t0)
    s = json.loads(p.stdout)
    loop.append(s["wall_time"])
med = statistics.median(ts)
print("%s,%d,%.5f,%.5f,%.5f,%.3f,%.3f,%.3f,%.3g" % (name, s["steps"], med, min(ts), max(ts),
      1e6 * med / s["steps"], 1e6 * statistics.median(loop) / s["steps"],
      s["mean_newton_iterations"], s["max_position_residual"]))
PY
	tail -1 "$out"
}
bench slider_crank_hi decks/slider_crank.yaml --set output.every=100
bench slider_crank_fi decks/slider_crank.yaml --set output.every=100 --set integrator.method=fi
bench four_link_hi decks/four_link.yaml --set output.every=100
bench double_pendulum_hi decks/double_pendulum.yaml --set output.every=100
bench chain32_hi decks/chain.yaml --set output.every=100
bench chain32_fi decks/chain.yaml --set output.every=100 --set integrator.method=fi
# large N (issue 3): per body-step cost = per_step_us / N
bench chain256_hi decks/chain.yaml --set parameters.N=256 --set time.end=0.3 --set output.every=100
bench chain1024_fi decks/chain.yaml --set parameters.N=1024 --set time.end=0.3 --set output.every=100 --set integrator.method=fi
bench chain1024_hi decks/chain.yaml --set parameters.N=1024 --set time.end=0.1 --set integrator.step=2.5e-4 --set output.every=100
# seed-004 schemes (issue 4): one-body pendulum with lms2 (MBDyn: 27 us/step),
# the 32-link chain with lms2 against hi, Andrews' squeezer with esdirk436l2sa2
bench pendulum_lms2 decks/pendulum.yaml
bench chain32_lms2 decks/chain.yaml --set output.every=100 --set integrator.method=lms2
bench andrews_esdirk436 decks/andrews_squeezer.yaml --set integrator.method=esdirk436l2sa2 --set integrator.step=1e-6 --set output.every=1000
# seed 001 (the state-space schemes on Euler parameters): the stiff double
# pendulum with rn4 at its deck's 1e-4; the 14-body vehicle, 2 s at
# atol = rtol = 1e-3 (the issue's speed case) with rn4 and, for the ratio,
# the explicit adams; Bricard with adams at 1e-5 (energy drift 6e-4 J,
# within the IFToMM 1e-3 J)
bench stiff_dp_rn4 decks/stiff_double_pendulum.yaml
bench hmmwv_rn4 decks/hmmwv14.yaml --set integrator.method=rn4 --set integrator.adaptive=true \
	--set integrator.atol=1e-3 --set integrator.rtol=1e-3 --set output.every=10
bench hmmwv_adams decks/hmmwv14.yaml --set integrator.method=adams --set integrator.adaptive=true \
	--set integrator.atol=1e-3 --set integrator.rtol=1e-3 --set output.every=100
bench bricard_adams decks/bricard.yaml --set integrator.method=adams --set integrator.adaptive=true \
	--set integrator.atol=1e-5 --set integrator.rtol=1e-5 --set output.every=10
# beams (issue 13): the lateral buckling of seed 004 §5.3, 0.8 s at 1e-3 with
# lms2 (goal: under 0.1 s), and the rotating shaft of §5.4 at 1e-4 with
# genalpha (goal for 2.5 s: under 1 s; the deck runs 3.5 s, from t = -1 s
# to let the sag settle)
bench lateral_buckling_lms2 decks/lateral_buckling.yaml
bench rotating_shaft_genalpha decks/rotating_shaft.yaml --set integrator.step=1e-4 --set output.every=10
# seed 002 / issue 10, the IFToMM speed cases (10 s, the deck's output
# every 10th step): each with the fastest scheme and step found to meet
# the IFToMM energy-drift limit (docs/results/002: 0.1 J for the double
# four-bar, 1e-3 J for Bricard); and the floor, one step of the pendulum
# (start-up, deck, assembly, the HDF5 file)
bench fourbar_lms2 decks/n_four_bar.yaml --set integrator.method=lms2 --set integrator.step=0.008
bench bricard_genalpha decks/bricard.yaml --set integrator.method=genalpha --set integrator.step=0.01
bench bricard_lms2 decks/bricard.yaml --set integrator.method=lms2 --set integrator.step=0.01
bench floor_pendulum_1step decks/pendulum.yaml --set time.end=1e-3
echo "wrote $out"
# large models (issue 17): decks/pendulum_array.yaml at N = 1e3, 1e4, 1e5
# (or the N in $LARGE_N), set-up, cost per body-step and per body-sample
# written, peak memory (bench/large.py)
large=bench/results/large-$(date +%Y%m%d-%H%M%S).csv
# shellcheck disable=SC2086 # LARGE_N: a list of numbers
/usr/bin/python3 bench/large.py "$MBSIM" "$large" "$REPEAT" ${LARGE_N:-}
echo "wrote $large"
# the pile of spheres (issue 32): N = 100, 1000, 10000 spheres on contact,
# processor time per contact-step and its growth (bench/contact_pile.py)
pile=bench/results/contact-pile-$(date +%Y%m%d-%H%M%S).txt
/usr/bin/python3 bench/contact_pile.py --mbsim "$MBSIM" --reps 3 | tee "$pile"
echo "wrote $pile"
# and under the nonsmooth model (moreau), N = 100 and 1000
pile=bench/results/contact-pile-nonsmooth-$(date +%Y%m%d-%H%M%S).txt
/usr/bin/python3 bench/contact_pile.py --mbsim "$MBSIM" --reps 3 --model nonsmooth \
	--n 100,1000 | tee "$pile"
echo "wrote $pile"
