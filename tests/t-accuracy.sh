#!/bin/sh
# t-accuracy.sh - accuracy on constrained models (issue 18 items 1-3):
#
#   MBSIM=build/mbsim sh tests/t-accuracy.sh
#
#   1. the spherical top's independent reference (tools/spherical_top_ref.py);
#   2. honest orders on constrained positions, fixed step: the spherical top
#      (spherical joint) for every dae3 scheme at integrator.index 3 and 2,
#      Andrews' squeezer against the Test Set, the closed loop
#      four_link_free at index 2 (index 3: tests/t-dae3.sh section 2);
#   3. tolerance proportionality of the step control (esdirk436l2sa2,
#      lms2) on Andrews and the spherical top, and issue 18's done-when.
# The unconstrained design orders are in tests/t-dae3.sh section 1; the
# full table in docs/results/004/orders.md (tools/constrained_orders.py).
# Every threshold says where it comes from; "measured" numbers are from
# this branch's build on 2026-11-25.  Prints "N passed, N failed, N skipped".

# shellcheck source=tests/lib.sh
. "$(dirname "$0")/lib.sh"

SCHEMES="lms2 lms3 lms4 ss2 ss3 ss4 bathe msstc3 msstc4 msstc5 mssth3 mssth4 mssth5
esdirk324l2sa esdirk335l2sa esdirk436l2sa2 hht genalpha"
# the DIRKs with stage order 2 (explicit first stage): min(p, q + 1) = 3
# at index 2 (Hairer & Wanner VII.4); everything else stays at 2
HIGH="mssth3 mssth4 mssth5 esdirk324l2sa esdirk335l2sa esdirk436l2sa2"
note() { echo "     $1"; }
# slope_line: the rms slopes of `converge --csv` ($tmp/out), one line
slope_line() {
	awk -F, 'NR > 1 && !($1 in s) { s[$1] = $7; q = $1; sub(/^bodies\//, "", q)
		printf "%s%s %.3f", (n++ ? ", " : ""), q, $7 } END { print "" }' "$tmp/out"
}

if ! have_scipy; then
	# every check of this file (counted with SciPy: 73)
	skip "every check of t-accuracy.sh" "no scipy or h5py for $PY (tools/install-deps installs python3-scipy, python3-h5py)" 73
	finish
	exit $?
fi

# =====================================================================
# 1. Reference of decks/spherical_top.yaml
# =====================================================================
# The pivot equations (3 degrees of freedom) with DOP853 at 1e-13; the
# tool fails unless energy and the vertical angular momentum stay within
# 1e-9 relative (measured 4.4e-16 and 1.9e-15).  Two grids: 1e-3 for
# `converge`, 1e-4 for the Hermite interpolation of check_tolprop.py
# (DOP853's dense output; the two agree to 2.8e-15 m at the shared times,
# measured against a run with max_step 1e-4).
href=$tmp/spherical_top_ref.h5 href4=$tmp/spherical_top_ref4.h5
expect_rc 0 "spherical_top reference (tools/spherical_top_ref.py, invariants within 1e-9)" \
	"$PY" "$top/tools/spherical_top_ref.py" -o "$href"
expect_rc 0 "spherical_top reference on a 1e-4 s grid" \
	"$PY" "$top/tools/spherical_top_ref.py" -o "$href4" --dt 1e-4
ht=$decks/spherical_top.yaml
HQ="--quantity bodies/top/position --quantity bodies/top/orientation"

# =====================================================================
# 2. Orders on constrained positions, fixed step
# =====================================================================
# Heavy top, index 3: every scheme at 2 (the index-3 order reduction).
# Steps 2.5e-3 .. 3.125e-4 (finest errors >= 1e-8, far above the
# reference's 1e-13 and the Newton tolerance 1e-13); measured slopes
# 1.91 (mssth4) .. 2.18 (mssth3, still approaching 2 from above), so
# +-0.2.  The issue's measurement, on other steps: mssth3/4/5 2.42 / 2.39
# / 2.03, esdirk324/335/436 1.96 / 1.98 / 2.09.
for m in $SCHEMES; do
	# shellcheck disable=SC2086
	expect_rc 0 "spherical_top $m index 3: order 2 of position and orientation" \
		"$MBSIM" converge "$ht" --steps 2.5e-3,1.25e-3,6.25e-4,3.125e-4 --reference "$href" \
		--set integrator.method=$m --set integrator.tolerance=1e-13 $HQ \
		--expect-order 2:0.2 --csv --quiet
	note "slopes: $(slope_line)"
done
# Heavy top, index 2 (GGL): the DIRKs of stage order 2 at 3, the others
# at 2.  Steps 1e-2 .. 1.25e-3 (finest errors >= 3e-8); measured 2.99 ..
# 3.06 (mssth3) and 1.99 .. 2.02: +-0.15 and +-0.1.  hht and genalpha
# have no index-2 form (refused: checked below).
for m in $SCHEMES; do
	case $m in hht | genalpha) continue ;; esac
	p=2 t=0.1
	case " $HIGH " in *" $m "*) p=3 t=0.15 ;; esac
	# shellcheck disable=SC2086
	expect_rc 0 "spherical_top $m index 2: order $p of position and orientation" \
		"$MBSIM" converge "$ht" --steps 1e-2,5e-3,2.5e-3,1.25e-3 --reference "$href" \
		--set integrator.method=$m --set integrator.index=2 $HQ \
		--expect-order $p:$t --csv --quiet
	note "slopes: $(slope_line)"
done
# A deck error (exit 2) at the key, in run and in check alike: check
# exited 0 and run stopped at set-up with exit 1 (docs/results/matrix.md,
# finding 13: 14 FAILED cells of tests/matrix/bushing_aniso.yaml, which
# says index: 2 for mssth5, under hi, fi, hht, ... bdf).
expect_rc 2 "integrator.index: 2 refused for hht (no index-2 form)" \
	"$MBSIM" run "$ht" -o "$tmp/x.h5" --set integrator.method=hht --set integrator.index=2
grep -q "integrator 'hht' has no index-2 formulation" "$tmp/err" &&
	ok "the refusal names hht and the index-2 formulation" || bad "the refusal names hht"
ba=$top/tests/matrix/bushing_aniso.yaml
for m in hi rn4 bdf; do
	expect_rc 2 "check: bushing_aniso's index: 2 refused for $m" \
		"$MBSIM" check "$ba" --set integrator.method=$m
	grep -q "bushing_aniso.yaml:9:49: error: integrator '$m' has no index-2 formulation: .*needs one of the schemes lms2, .*mssth5" "$tmp/err" &&
		ok "check: the refusal of $m is at the key and names the index-2 schemes" ||
		bad "check: the refusal of $m is at the key" "$(cat "$tmp/err")"
done
expect_rc 0 "check: bushing_aniso's index: 2 taken by its own mssth5" "$MBSIM" check "$ba"
expect_rc 2 "integrator.index: 4 is a deck error" \
	"$MBSIM" check "$ht" --set integrator.index=4
grep -q "integrator.index must be 2 or 3" "$tmp/err" && ok "the message says 2 or 3" ||
	bad "the message says 2 or 3"

# Andrews' squeezer: the error of the 7 angles at t = 0.03 against the
# Test Set (tests/check_andrews_order.py).  Index 3 on 1e-5 .. 1.25e-6
# (at 4e-5 .. 1e-5 esdirk436l2sa2 is not yet asymptotic: local orders
# -2.95, 1.42); measured slopes 1.875 (esdirk436l2sa2, local orders 1.78,
# 1.90, 1.94 rising to 2), 2.00 .. 2.04 for the others: 2 +- 0.2.
for m in lms2 genalpha mssth5 esdirk436l2sa2; do
	expect_rc 0 "andrews $m index 3: order 2 of the angles at t = 0.03" \
		"$PY" "$top/tests/check_andrews_order.py" "$MBSIM" $m 1e-5,5e-6,2.5e-6,1.25e-6 2 0.2 \
		--set integrator.tolerance=1e-13
	note "$(tail -1 "$tmp/out")"
done
# Index 2 on 4e-5 .. 5e-6: measured 2.995 .. 3.008 (esdirk324l2sa,
# esdirk436l2sa2, mssth5) and 2.004 .. 2.016 (lms2, bathe): +-0.1.  The
# deck's Newton tolerance 1e-10: at 1e-13 the index-2 iteration stalls
# near 6e-13 on this deck (known; see mbsim-deck(5) integrator.index).
for mp in esdirk324l2sa:3 esdirk436l2sa2:3 mssth5:3 lms2:2 bathe:2; do
	m=${mp%:*} p=${mp#*:}
	expect_rc 0 "andrews $m index 2: order $p of the angles at t = 0.03" \
		"$PY" "$top/tests/check_andrews_order.py" "$MBSIM" $m 4e-5,2e-5,1e-5,5e-6 $p 0.1 \
		--set integrator.index=2
	note "$(tail -1 "$tmp/out")"
done

# four_link_free (closed loop) at index 2: reference esdirk436l2sa2 at
# index 2 and h = 1e-5, every 5th step (5e-5 s, a divisor of the study
# steps); its error ~ |ref(2e-5) - ref(1e-5)| / (2^3 - 1): the difference
# must be below 1e-11 (measured 1.3e-12), i.e. error < 1.5e-12, under
# 1/100 of the finest study error (esdirk436l2sa2 2.9e-10).
fl=$decks/four_link_free.yaml
fref=$tmp/fl2_ref.h5 fref2=$tmp/fl2_ref2.h5
"$MBSIM" run "$fl" -o "$fref" --quiet --set integrator.method=esdirk436l2sa2 \
	--set integrator.index=2 --set integrator.step=1e-5 --set output.every=5 2>"$tmp/err"
"$MBSIM" run "$fl" -o "$fref2" --quiet --set integrator.method=esdirk436l2sa2 \
	--set integrator.index=2 --set integrator.step=2e-5 --set output.every=5 2>>"$tmp/err"
FLQ="--quantity bodies/link2/position --quantity bodies/link3/position
--quantity bodies/link2/orientation --quantity bodies/link3/orientation --quantity bodies/rotor/orientation"
# shellcheck disable=SC2086
expect_rc 0 "four_link_free index-2 reference: h=1e-5 vs 2e-5 within 1e-11" \
	"$MBSIM" compare "$fref" "$fref2" $FLQ --rtol 0 --atol 1e-11
# Steps 1.25e-3 .. 1.5625e-4: measured 2.99 .. 3.00 (ESDIRKs, MSSTH) and
# 2.00 for the second-order schemes (docs/results/004/orders.md).
for m in $SCHEMES; do
	case $m in hht | genalpha) continue ;; esac
	p=2 t=0.1
	case " $HIGH " in *" $m "*) p=3 t=0.1 ;; esac
	# shellcheck disable=SC2086
	expect_rc 0 "four_link_free $m index 2: order $p" \
		"$MBSIM" converge "$fl" --steps 1.25e-3,6.25e-4,3.125e-4,1.5625e-4 \
		--reference "$fref" --set integrator.method=$m --set integrator.index=2 $FLQ \
		--expect-order $p:$t --csv --quiet
	note "slopes: $(slope_line)"
done

# =====================================================================
# 3. Step control: tolerance proportionality (tests/check_tolprop.py)
# =====================================================================
# atol = rtol = TOL; passes when the error is <= 10 TOL at every TOL and
# the slope of log(error) on log(TOL) is within 0.8 .. 1.2 (issue 18).
# Error: Andrews, max over the angles at t = 0.03 of |q - q_ref| / (1 +
# |q_ref|) (the weight atol + rtol |q| over TOL); top, the same of the
# centroid over all samples.  Newton tolerance 1e-14: the control allows
# each step TOL h / span, down to 1e-16 m here; the iteration's own error
# must stay below that (at 1e-10 the deck's 1e-10 makes it stall).
# Measured error / TOL: esdirk436l2sa2 Andrews 0.055 .. 1.0 (slope 1.000),
# top 0.150 .. 0.737 (0.918); lms2 Andrews 0.54 .. 0.99, top ~0.4.
# lms2 stops at 1e-8 (top) and 1e-7 (Andrews): it needs 177 000 steps at
# 1e-8 on Andrews (second order; 2.5 s a run), not a test's budget.
tp() {
	expect_rc 0 "tolerance proportionality: $1 on $2, atol = rtol = $3" \
		"$PY" "$top/tests/check_tolprop.py" "$MBSIM" "$1" "$2" "$3" "$href4" \
		--set integrator.tolerance=1e-14 ${4:+--abs-limit "$4"}
	sed 's/^/   /' "$tmp/out"
}
# with issue 18's done-when: at 1e-8 the 7 angles within 1e-7 of the
# Test Set (measured max |q - q_ref| 4.0e-8; 1.7e-4 before this branch)
tp esdirk436l2sa2 andrews 1e-4,1e-5,1e-6,1e-7,1e-8,1e-9,1e-10 1e-8:1e-7
tp esdirk436l2sa2 spherical_top 1e-4,1e-5,1e-6,1e-7,1e-8,1e-9,1e-10
tp lms2 andrews 1e-4,1e-5,1e-6,1e-7
tp lms2 spherical_top 1e-4,1e-5,1e-6,1e-7,1e-8
# At index 2 (order 3; the doubling estimate divided by 3 as at index 3,
# 7/3 on the safe side): measured error / TOL 2.9 .. 6.3 on the top
# (slope 0.95; 2488 steps at 1e-10 instead of 93 274), 0.20 .. 0.93 on
# Andrews to 1e-8.  Andrews stops at 1e-8 and runs with Newton tolerance
# 1e-12: its index-2 iteration stalls near 5e-13 (tolerance 1e-13 fails),
# and the floor of 1e-12 per step then shows at 1e-9 (3.2 TOL, slope
# 0.799 with it) and dominates at 1e-10 (26 TOL), measured.
tp2() {
	expect_rc 0 "tolerance proportionality at index 2: $1 on $2, atol = rtol = $3" \
		"$PY" "$top/tests/check_tolprop.py" "$MBSIM" "$1" "$2" "$3" "$href4" \
		--set integrator.index=2 --set integrator.tolerance="$4"
	sed 's/^/   /' "$tmp/out"
}
tp2 esdirk436l2sa2 spherical_top 1e-4,1e-5,1e-6,1e-7,1e-8,1e-9,1e-10 1e-14
tp2 esdirk436l2sa2 andrews 1e-4,1e-5,1e-6,1e-7,1e-8 1e-12

left=$(ls "$TMPDIR" | wc -l)
[ "$left" -eq 0 ] && ok "temporary run files removed" || bad "temporary run files removed ($left left)"
finish
