#!/bin/sh
# bench/tree_scale.sh - the cost of one right-hand-side evaluation of the
# formulation tree (seed 003 §3) per body against N, on the spherical
# chain (decks/chain.yaml, N links), with bench/tree_f.c (f alone, in
# process, thread CPU time; its header says why), and the whole run of
# N = 1e4 links for 1 s with adams at atol = rtol = 1e-6:
#
#   sh bench/tree_scale.sh [N...]        (default 10 100 1000 10000 100000)
#
# Builds build/bench/tree_f, writes docs/results/003/tree_scale.csv (N,
# coordinates, median and fastest f in s, us per body and f) and, through
# bench/tree_scale.py, docs/results/003/tree_scale.png.  The issue's
# goals: at most 0.3 us per body at N = 1e4, and the cost per body at
# 1e5 within 10 % of that at 1e3 (linear growth).  RUN=0 skips the whole
# run (it takes about a minute).  Timings never enter `make test`.
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top"
make -s build/bench/tree_f build/mbsim
out=docs/results/003
mkdir -p "$out"
Ns=${*:-10 100 1000 10000 100000}
{
	echo "N,coordinates,median_f_s,min_f_s,us_per_body"
	for n in $Ns; do
		build/bench/tree_f decks/chain.yaml "$n" 3 | tr ' ' ','
	done
} >"$out/tree_scale.csv"
cat "$out/tree_scale.csv"
/usr/bin/python3 bench/tree_scale.py "$out/tree_scale.csv" "$out/tree_scale.png"
if [ "${RUN:-1}" != 0 ]; then
	tmp=$(mktemp -d)
	trap 'rm -rf "$tmp"' EXIT
	/usr/bin/time -f "whole process: %e s wall, %U s user, %M kB peak" build/mbsim run \
		decks/chain.yaml --set parameters.N=10000 --set integrator.method=adams \
		--set integrator.formulation=tree --set time.end=1 --set output.every=100000 \
		--set integrator.atol=1e-6 --set integrator.rtol=1e-6 -o "$tmp/run.h5" --json \
		>"$tmp/run.json"
	/usr/bin/python3 -c "
import json, sys
j = json.load(open(sys.argv[1]))
print('run N = 1e4, 1 s, adams 1e-6: %s, %d f evaluations, run (set-up and loop) %.1f s' % (
    j['status'], j['rhs_evaluations'], j['wall_time']))" "$tmp/run.json"
fi
