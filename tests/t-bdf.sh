#!/bin/sh
# t-bdf.sh - bdf: the tree formulation (seed 003) as a DAE in residual
# form, integrated by SUNDIALS IDA (src/integ/bdf.c):
#
#   MBSIM=build/mbsim sh tests/t-bdf.sh
#
#   1. The double pendulum (to 2 s) and the 8-link spherical chain (to
#      1 s), bdf against rn4 on tree and ra (esdirk436l2sa2), all adaptive
#      at atol = rtol = 1e-10: positions agree at the output.times
#      samples to ten times what was measured (dp bdf-rn4 3.4e-8 m, bdf-ra
#      6.7e-8; chain bdf-rn4 3.1e-8, bdf-ra 2.2e-7, bound 1e-6).  The free
#      body spring_top (a chart re-based: IDAReInit) and the heavy top (98
#      re-bases) against rn4 on tree (measured 1.7e-9, 1.4e-8).  --json carries IDA's
#      statistics, order at most 5.
#   2. IDA giving up ends the run with exit 1 and the time named.
#   3. Mass 0 with rn4: a deck error (exit 2) at the mass key.
#   4. decks/coupled_oscillators.yaml (seed 003 Fig. 1): m1 = 0 runs; the
#      BDF step count at m1/m2 = 1e-6 is at least 10 times that at
#      m1 = 0 (measured 1980 / 134); the small mass's error against
#      m1 = 0 decreases from m1 = 1e-1 to 1e-4 (measured 5.8e-5, 4.4e-6,
#      1.1e-6, 1.4e-7 m; below 1e-4 the atol = 1e-6 integration error
#      dominates it; docs/results/003 at 1e-10 down to 1e-8).
#   5. m1 = 0 at atol = rtol = 1e-8 and 1e-10 (before seed 003 eq. 29's
#      velocity variables: 391142 steps, and a stall at t = 3.1e-10 s)
#      completes in under 2000 steps (measured 228, 480; 8 samples) and its positions
#      agree with the exact solution of eq. 6 (tools/
#      coupled_oscillators_ref.py, as in 6) to 100
#      (atol + rtol |p|), |p| <= 1.02 m: IDA's local weight with the
#      allowance for accumulation of tests/t-small-mass.sh (measured
#      1.4e-7 and 1.3e-9 m).
#   6. The limit m1 -> 0 (seed 003 eq. 3), against the exact solutions of
#      eqs. 5 and 6 (tools/coupled_oscillators_ref.py; the model is
#      linear): the distance max_t |p(m1) - p(0)| of both masses, bdf
#      runs at the 8 samples, decreases strictly from m1 = 1e-1 to 1e-4,
#      and there each run's own error against the exact solution, plus
#      that of the m1 = 0 run, is below a third of the exact distance, so
#      the decrease is the limit's and not the runs' errors (see below
#      for why the range stops at 1e-4).
#   7. The same limit below 1e-4, where bdf's own errors pass the true
#      distance: rn4 on the tree formulation (atol = rtol = 1e-10), which
#      resolves the fast mode, at m1 = 1e-4, 1e-5, 1e-6: the distance of
#      each to the exact m1 = 0 solution decreases strictly (exact
#      distances, large mass 2.4e-9, 2.4e-10, 2.4e-11 m) and each run's
#      own error is below a third of it (measured at most 1.2e-11 m small,
#      5.9e-16 m large; docs/results/003 to m1 = 1e-8).
# Prints "N passed, N failed, N skipped"; exits 1 on any failure.

# shellcheck source=tests/lib.sh
. "$(dirname "$0")/lib.sh"

tight="--set integrator.adaptive=true --set integrator.atol=1e-10 --set integrator.rtol=1e-10"

# 1
{ cat "$decks/double_pendulum.yaml"; echo "output: {times: [0.5, 1, 1.5, 2]}"; } >"$tmp/dp.yaml"
{ cat "$decks/chain.yaml"; echo "output: {times: [0.5, 1]}"; } >"$tmp/chain.yaml"
{ cat "$decks/spring_top.yaml"; echo "output: {times: [0.25, 0.5, 0.75, 1]}"; } >"$tmp/top.yaml"
sed 's/^output: {every: 10}/output: {times: [0.5, 1, 1.5, 2]}/' "$decks/heavy_top.yaml" >"$tmp/ht.yaml"
for c in "dp 4 --set time.end=2" "chain 2 --set time.end=1 --set parameters.N=8" \
	"top 4 --set time.end=1" "ht 4 --set time.end=2"; do
	name=${c%% *} rest=${c#* } n=${rest%% *} set=${rest#* }
	# shellcheck disable=SC2086 # set and tight are lists of words
	"$MBSIM" run "$tmp/$name.yaml" $set $tight --set integrator.method=bdf \
		-o "$tmp/${name}_bdf.h5" --json >"$tmp/out" 2>"$tmp/err" || bad "$name with bdf: exit $?"
	json_check "$name with bdf: complete, tree, IDA's statistics (order 1-5)" \
		'j["status"] == "complete" and j["formulation"] == "tree" and j["bdf_steps"] > 0 and 1 <= j["bdf_last_order"] <= 5 and j["bdf_newton_iterations"] > 0 and j["max_position_residual"] <= 1e-12'
	# shellcheck disable=SC2086
	"$MBSIM" run "$tmp/$name.yaml" $set $tight --set integrator.method=rn4 \
		--set integrator.formulation=tree -o "$tmp/${name}_rn4.h5" -q 2>"$tmp/err" ||
		bad "$name with rn4: exit $?"
	# bounds: ten times the agreement measured with rn4 (dp 3.4e-8 m,
	# chain 3.1e-8, top 1.7e-9, ht 1.4e-8) and with ra (dp 6.7e-8, chain
	# 2.2e-7: 1e-6, the largest bound)
	case $name in
	dp) brn4=3.4e-7 bra=6.7e-7 ;;
	chain) brn4=3.1e-7 bra=1e-6 ;;
	top) brn4=1.7e-8 ;;
	ht) brn4=1.4e-7 ;;
	esac
	agree "$name: bdf and rn4 (tree)" "$tmp/${name}_bdf.h5" "$tmp/${name}_rn4.h5" "$n" $brn4
	if [ "$name" = dp ] || [ "$name" = chain ]; then
		# shellcheck disable=SC2086
		"$MBSIM" run "$tmp/$name.yaml" $set $tight --set integrator.method=esdirk436l2sa2 \
			--set integrator.tolerance=1e-10 -o "$tmp/${name}_ra.h5" -q 2>"$tmp/err" ||
			bad "$name with ra: exit $?"
		agree "$name: bdf and ra (esdirk436l2sa2)" "$tmp/${name}_bdf.h5" "$tmp/${name}_ra.h5" "$n" $bra
	fi
done
json_check "heavy_top with bdf: charts re-based (IDAReInit)" 'j["repartitions"] >= 10'

# 2
expect_rc 1 "IDA gives up: exit 1" "$MBSIM" run "$tmp/dp.yaml" --set integrator.method=bdf \
	--set integrator.atol=1e-300 --set integrator.rtol=1e-300 -o "$tmp/x.h5" --force
if grep -q "IDA gave up at t = " "$tmp/err"; then ok "IDA's failure names the time"; else
	bad "IDA's failure names the time"; fi

# 3
expect_rc 2 "mass 0 with rn4: deck error" "$MBSIM" run "$decks/coupled_oscillators.yaml" \
	--set parameters.m1=0 --set integrator.method=rn4 -o "$tmp/x.h5" --force
if grep -q "coupled_oscillators.yaml:[0-9]*:[0-9]*: error: mass of body 'small' must be positive, got 0 (a massless body needs integrator.method: bdf" "$tmp/err"; then
	ok "names the body at FILE:LINE:COL and bdf"
else
	bad "names the body at FILE:LINE:COL and bdf"
fi

# 4
sed 's/^output: {every: 10}/output: {times: [0.25, 0.5, 0.75, 1, 1.25, 1.5, 1.75, 2]}/' \
	"$decks/coupled_oscillators.yaml" >"$tmp/co.yaml"
for e in 1e-1 1e-2 1e-3 1e-4 1e-6 0; do
	"$MBSIM" run "$tmp/co.yaml" --set parameters.m1=$e \
		-o "$tmp/co_$e.h5" --json >"$tmp/co_$e.json" 2>"$tmp/err" || bad "m1 = $e: exit $?"
done
cp "$tmp/co_0.json" "$tmp/out"
json_check "coupled oscillators, m1 = 0 (eq. 6, a massless coordinate): complete" \
	'j["status"] == "complete" and j["samples"] == 8'
s6=$("$PY" -c 'import json,sys; print(json.load(open(sys.argv[1]))["bdf_steps"])' "$tmp/co_1e-6.json")
s0=$("$PY" -c 'import json,sys; print(json.load(open(sys.argv[1]))["bdf_steps"])' "$tmp/co_0.json")
if [ "$s6" -ge $((10 * s0)) ]; then ok "steps at m1 = 1e-6 ($s6) >= 10 x those at m1 = 0 ($s0)"; else
	bad "steps at m1 = 1e-6 >= 10 x those at m1 = 0" "got $s6 and $s0"; fi
prev=1
mono=1 errs=""
for e in 1e-1 1e-2 1e-3 1e-4; do
	d=$("$MBSIM" compare "$tmp/co_$e.h5" "$tmp/co_0.h5" --json | "$PY" -c '
import json, sys
print(json.load(sys.stdin)["datasets"]["/bodies/small/position"]["max_abs"])')
	errs="$errs $d"
	le "$d" "$prev" || mono=0
	prev=$d
done
if [ $mono = 1 ]; then ok "error against m1 = 0 decreases with m1:$errs"; else
	bad "error against m1 = 0 decreases with m1" "got$errs"; fi

# 5
if have_mpmath; then
	for tol in 1e-8 1e-10; do
		"$MBSIM" run "$tmp/co.yaml" --set parameters.m1=0 --set integrator.atol=$tol \
			--set integrator.rtol=$tol -o "$tmp/c0_$tol.h5" --json >"$tmp/out" 2>"$tmp/err" ||
			bad "m1 = 0 at atol = rtol = $tol: exit $?" "$(cat "$tmp/err")"
		json_check "m1 = 0 at atol = rtol = $tol: complete in under 2000 steps" \
			'j["status"] == "complete" and j["bdf_steps"] < 2000'
		r=$("$PY" "$top/tools/coupled_oscillators_ref.py" --deck "$tmp/co.yaml" --set m1=0 \
			--compare "$tmp/c0_$tol.h5" 2>&1)
		bound=$(awk -v t=$tol 'BEGIN { print 100 * (t + t * 1.02) }')
		if echo "$r" | awk -v b="$bound" '/^max_abs_small/ { f = 1; exit !($2 <= b && $4 <= b && $6 == 8) }
			END { if (!f) exit 1 }'; then
			ok "m1 = 0 at $tol: positions within $bound m of eq. 6's exact solution ($r)"
		else
			bad "m1 = 0 at $tol: positions within $bound m of eq. 6's exact solution at 8 samples" "got: $r"
		fi
	done
else
	skip "m1 = 0 against eq. 6 (2 runs, 2 checks each)" "no mpmath, yaml or h5py for $PY" 4
fi

# 6. The exact distance at the 8 samples (the tool, 50 digits) is, for
# m1 = 1e-1, 1e-2, 1e-3, 1e-4: large mass 2.42e-6, 2.35e-7, 2.36e-8,
# 2.36e-9 m (O(m1), 2.4e-5 m/kg x m1), small mass 6.06e-5, 9.64e-6,
# 2.36e-6, 1.17e-7 m (the initial layer of the lightly damped fast mode,
# decaying at d1/m1 /s); it keeps falling by 10 per decade to m1 = 1e-8 and
# below.  The runs measure it only where their own errors are smaller:
# at atol = rtol = 1e-10 the m1 > 0 runs' errors are at most 2.9e-9 m
# (small mass) and 2.8e-12 m (large), measured; m1 = 0 runs a decade
# tighter, since at 1e-10 its error (1.3e-9 m, large mass) is more than a
# third of the large mass's distance at m1 = 1e-4 and this check fails
# (at 1e-11: 2.4e-10 m).  Below 1e-4 the bdf runs' own errors grow (large
# mass at 1e-10 on the 20 samples of docs/results/003: 4.4e-10 m at
# m1 = 1e-5, 5.0e-9 at 1e-6, 3.3e-8 at 1e-8; IDA stays at order 1 with steps
# near 0.1 / sqrt(c1/m1)) and pass the true distance (2.4e-10 m at 1e-5),
# so a distance measured there would be theirs.
if have_mpmath; then
	for e in 1e-1 1e-2 1e-3 1e-4 0; do
		t=1e-10
		[ $e = 0 ] && t=1e-11
		"$MBSIM" run "$tmp/co.yaml" --set parameters.m1=$e --set integrator.atol=$t \
			--set integrator.rtol=$t -o "$tmp/lim_$e.h5" -q 2>"$tmp/err" ||
			bad "limit: m1 = $e at atol = rtol = $t: exit $?"
	done
	pycheck "limit m1 -> 0: distance to m1 = 0 decreases from m1 = 1e-1 to 1e-4 (both masses), runs' own errors below a third of it" "
import coupled_oscillators_ref as cr
par = cr.parameters('$decks/coupled_oscillators.yaml', [])
def run(e):
    with h5py.File('$tmp/lim_%s.h5' % e, 'r') as f:
        return (series(f, 'time'), series(f, 'bodies/small/position')[:, 0],
                series(f, 'bodies/large/position')[:, 0] - 1.0)
t, s0, l0 = run('0')
ex0 = cr.Exact(dict(par, m1=0.0))
x0 = np.array([ex0.positions(tk) for tk in t])
own0 = (np.abs(s0 - x0[:, 0]).max(), np.abs(l0 - x0[:, 1]).max())
ok, rows, prev = len(t) == 8, [], (np.inf, np.inf)
for e in ('1e-1', '1e-2', '1e-3', '1e-4'):
    te, se, le = run(e)
    ok = ok and len(te) == 8 and np.abs(te - t).max() < 1e-12
    xe = np.array([cr.Exact(dict(par, m1=float(e))).positions(tk) for tk in t])
    meas = (np.abs(se - s0).max(), np.abs(le - l0).max())
    true = (np.abs(xe[:, 0] - x0[:, 0]).max(), np.abs(xe[:, 1] - x0[:, 1]).max())
    own = (np.abs(se - xe[:, 0]).max(), np.abs(le - xe[:, 1]).max())
    for k in (0, 1):
        ok = ok and meas[k] < prev[k] and own[k] + own0[k] < true[k] / 3
    prev = meas
    rows.append('m1 %s: measured %.3g %.3g, exact %.3g %.3g, own %.2g %.2g' % ((e,) + meas + true + own))
msg = '; '.join(rows) + '; m1 = 0 own %.2g %.2g (small, large, m)' % own0
"
else
	skip "limit m1 -> 0" "no mpmath, yaml or h5py for $PY"
fi

# 7
if have_mpmath; then
	for e in 1e-4 1e-5 1e-6; do
		"$MBSIM" run "$tmp/co.yaml" --set parameters.m1=$e --set integrator.method=rn4 \
			--set integrator.formulation=tree --set integrator.atol=1e-10 \
			--set integrator.rtol=1e-10 -o "$tmp/rl_$e.h5" -q 2>"$tmp/err" ||
			bad "limit, rn4: m1 = $e: exit $?"
	done
	pycheck "limit m1 -> 0 with rn4 (tree): distance to the exact m1 = 0 decreases over m1 = 1e-4 .. 1e-6, own errors below a third of it" "
import coupled_oscillators_ref as cr
par = cr.parameters('$decks/coupled_oscillators.yaml', [])
ex0 = cr.Exact(dict(par, m1=0.0))
ok, rows, prev = True, [], (np.inf, np.inf)
for e in ('1e-4', '1e-5', '1e-6'):
    with h5py.File('$tmp/rl_%s.h5' % e, 'r') as f:
        t = series(f, 'time')
        p = (series(f, 'bodies/small/position')[:, 0], series(f, 'bodies/large/position')[:, 0] - 1.0)
    x0 = np.array([ex0.positions(tk) for tk in t])
    xe = np.array([cr.Exact(dict(par, m1=float(e))).positions(tk) for tk in t])
    meas = tuple(np.abs(p[k] - x0[:, k]).max() for k in (0, 1))
    own = tuple(np.abs(p[k] - xe[:, k]).max() for k in (0, 1))
    ok = ok and len(t) == 8
    for k in (0, 1):
        ok = ok and meas[k] < prev[k] and own[k] < meas[k] / 3
    prev = meas
    rows.append('m1 %s: distance %.3g %.3g, own %.2g %.2g' % ((e,) + meas + own))
msg = '; '.join(rows) + ' (small, large, m)'
"
else
	skip "limit m1 -> 0 with rn4" "no mpmath, yaml or h5py for $PY"
fi

finish
