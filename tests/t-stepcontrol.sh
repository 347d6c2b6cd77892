#!/bin/sh
# t-stepcontrol.sh - adaptive rn4 on rp ends where its tolerance says
# (issue 37, "step control that keeps its promise").
#
#   MBSIM=build/mbsim sh tests/t-stepcontrol.sh
#
# Each bound is 10 (atol + rtol Y) with atol = rtol = TOL and Y a bound on
# the position coordinates compared, from the deck's geometry: the issue's
# "no adaptive run ends more than 10 times beyond its tolerance".
#
#   1. decks/double_pendulum.yaml, 2 s, rn4 adaptive at TOL = 1e-3, 1e-4,
#      1e-6: body positions within 10 TOL (1 + 5) of the DOP853 solution of
#      the minimal equations (tools/double_pendulum_ref.py, rtol 1e-13;
#      Y = 5 m: bar 1 is 4 m long, bar 2's centroid 1 m from its pin) at
#      the common samples (t = 0, 2 s and those that fall on its 1 ms grid).
#      Before rp's position solves started from the last accepted
#      configuration, TOL = 1e-3 ended with bar 2 2.36 m off (its tip
#      4.24 m), exit 0: a rejected step's trial points had left the
#      dependent Euler parameters on another branch.  Measured after:
#      0.044, 1.6e-3, 5.0e-6 m against bounds 0.06, 6e-3, 6e-5.
#   2. decks/chain.yaml (32 links), 2 s: the reference is adams on the tree
#      formulation at atol = rtol = 1e-12, checked against rn4 on rp at
#      1e-10 (Newton 1e-13): another scheme and another formulation, which
#      must agree within 1e-7 m at the end (measured 3.3e-9).  rn4 adaptive
#      at TOL = 1e-3 completes (it failed at t = 1.325 before, the
#      dependent coordinates not converging from a rejected step's trial
#      point) and, with TOL = 1e-6, ends within 10 TOL (1 + 64) m of the
#      reference (Y = 64 m, the chain's length; measured 0.024 and
#      2.9e-5 m).
#   3. decks/chain.yaml with 8 links, 1 s, the deck's Newton tolerance
#      (1e-7): esdirk436l2sa2 and lms2 adaptive at TOL = 1e-6 and 1e-8 end
#      within 10 TOL (1 + 16) m of adams/tree at 1e-12 (Y = 16 m).  The
#      Newton tolerance of a step was the deck's, and the error stalled at
#      1.9e-5 m (esdirk436l2sa2) and 2.0e-4 m (lms2) whatever TOL asked;
#      tied to TOL it is 1.7e-6, 4.9e-8 m (esdirk436l2sa2) and 2.1e-5,
#      6.1e-7 m (lms2) against bounds 1.7e-4 and 1.7e-6.  The reference
#      agrees with rn4 on rp at 1e-10 (Newton 1e-13) within 1e-8 m.
#   4. decks/chain.yaml with 128 links, 1 ms, Newton tolerance 1e-14:
#      lms2 and esdirk436l2sa2 adaptive at TOL = 1e-9 complete and end
#      within 10 TOL (1 + 256) m of adams/tree at 1e-12 (checked against
#      rn4/rp at 1e-10 within 1e-9 m).  Before, lms2 collapsed to
#      h = 2e-10 s and failed at t = 2.4e-9 s, esdirk436l2sa2 crept on
#      at about 1e-11 s a step: a Newton tolerance below the round-off
#      of the saddle-point solve was never met, and the error allowance
#      shrank with the step below the round-off of the positions.
# Run time about 40 s.  Prints "N passed, N failed, N skipped"; exits 1 on any failure.

# shellcheck source=tests/lib.sh
. "$(dirname "$0")/lib.sh"

# 1. the double pendulum against its minimal-coordinate reference
if have_scipy && "$PY" "$top/tools/double_pendulum_ref.py" -o "$tmp/dpref.h5" --t-end 2 \
	>/dev/null 2>"$tmp/err"; then
	for tol in 1e-3 1e-4 1e-6; do
		bound=$(awk -v t="$tol" 'BEGIN { printf "%.3g", 10 * t * (1 + 5) }')
		if "$MBSIM" run "$decks/double_pendulum.yaml" --set integrator.method=rn4 \
			--set integrator.adaptive=true --set integrator.atol="$tol" \
			--set integrator.rtol="$tol" --set time.end=2 -o "$tmp/dp$tol.h5" \
			--quiet 2>"$tmp/err"; then
			agree "double pendulum, rn4 adaptive at $tol, against DOP853" \
				"$tmp/dp$tol.h5" "$tmp/dpref.h5" 2 "$bound"
		else
			bad "double pendulum, rn4 adaptive at $tol: run failed"
		fi
	done
else
	skip "double pendulum against DOP853" "python3 with scipy and h5py" 3
fi

# the chain deck with N links to END s; the references of 2.-4.: adams on
# the tree formulation at 1e-12, checked against rn4 on rp at 1e-10
# (Newton 1e-13) within AGREE m
chain() {	# N END OUT SETTINGS...
	n=$1 end=$2 out=$3
	shift 3
	"$MBSIM" run "$decks/chain.yaml" --set parameters.N="$n" --set time.end="$end" \
		-o "$out" --quiet "$@" 2>"$tmp/err"
}
chain_refs() {	# N END REF REF2 AGREE
	if chain "$1" "$2" "$3" --set integrator.method=adams --set integrator.formulation=tree \
		--set integrator.atol=1e-12 --set integrator.rtol=1e-12 &&
		chain "$1" "$2" "$4" --set integrator.method=rn4 --set integrator.adaptive=true \
			--set integrator.atol=1e-10 --set integrator.rtol=1e-10 \
			--set integrator.tolerance=1e-13; then
		agree "$1-link chain: adams/tree at 1e-12 and rn4/rp at 1e-10 agree" \
			"$3" "$4" 2 "$5"
	else
		bad "$1-link chain references failed" "$(cat "$tmp/err")"
		return 1
	fi
}
# METHOD adaptive at atol = rtol = TOL on the N-link chain to END s, within
# 10 TOL (1 + 2 N) m of REF (Y = 2 N m, the chain's length)
chain_vs_ref() {	# N END METHOD TOL REF
	bound=$(awk -v t="$4" -v n="$1" 'BEGIN { printf "%.3g", 10 * t * (1 + 2 * n) }')
	if chain "$1" "$2" "$tmp/c$1$3$4.h5" --set integrator.method="$3" \
		--set integrator.adaptive=true --set integrator.atol="$4" \
		--set integrator.rtol="$4"; then
		agree "$1-link chain, $3 adaptive at $4, against adams/tree" \
			"$tmp/c$1$3$4.h5" "$5" 2 "$bound"
	else
		bad "$1-link chain, $3 adaptive at $4: run failed" "$(cat "$tmp/err")"
	fi
}

# 2. the 32-link chain: two references that agree, then rn4 against them
if chain_refs 32 2 "$tmp/cref.h5" "$tmp/cref2.h5" 1e-7; then
	for tol in 1e-3 1e-6; do
		chain_vs_ref 32 2 rn4 "$tol" "$tmp/cref.h5"
	done
fi

# 3. the 8-link chain at the deck's Newton tolerance: the dae3 schemes
if chain_refs 8 1 "$tmp/c8ref.h5" "$tmp/c8ref2.h5" 1e-8; then
	for m in esdirk436l2sa2 lms2; do
		for tol in 1e-6 1e-8; do
			chain_vs_ref 8 1 $m "$tol" "$tmp/c8ref.h5"
		done
	done
fi

# 4. the 128-link chain at a tight tolerance
if chain_refs 128 1e-3 "$tmp/c128ref.h5" "$tmp/c128ref2.h5" 1e-9; then
	bound=$(awk 'BEGIN { printf "%.3g", 10 * 1e-9 * (1 + 256) }')
	for m in lms2 esdirk436l2sa2; do
		# (timeout: the collapsed runs crept on for minutes)
		if timeout 120 "$MBSIM" run "$decks/chain.yaml" --set parameters.N=128 \
			--set time.end=1e-3 -o "$tmp/c128$m.h5" --quiet \
			--set integrator.method=$m --set integrator.adaptive=true \
			--set integrator.atol=1e-9 --set integrator.rtol=1e-9 \
			--set integrator.tolerance=1e-14 2>"$tmp/err"; then
			agree "128-link chain, $m adaptive at 1e-9, against adams/tree" \
				"$tmp/c128$m.h5" "$tmp/c128ref.h5" 2 "$bound"
		else
			bad "128-link chain, $m adaptive at 1e-9: run failed" "$(cat "$tmp/err")"
		fi
	done
fi

finish
