#!/bin/sh
# t-stiffdp.sh - decks/stiff_double_pendulum.yaml, the stiff double pendulum
# of seed 001 §5.1, against tools/stiff_double_pendulum_ref.py (Lagrange's
# equations in the two absolute angles, SciPy Radau at 1e-12: nothing of
# mbsim in it).
#
#   MBSIM=build/mbsim sh tests/t-stiffdp.sh
#
#   1. `mbsim check` passes and finds mobility 2 (two revolute joints in
#      a plane);
#   2. the zero-tension angles are mapped right: at t0 the rsda deflections
#      are the seed's theta1 - alpha1^0 = 2 pi - 3 pi/2 = pi/2 and
#      (theta2 - theta1) - alpha2^0 = 23 pi/12 - 2 pi = -pi/12, to 1e-12
#      (rounding of the assembled angles);
#   3. the reference passes its own energy balance (solved once, by
#      tests/stiffdp_check.py, which exits 1 otherwise);
#   4. esdirk436l2sa2, adaptive, atol = rtol = 1e-8 (Newton tolerance 1e-15,
#      the deck's header says why), every step written: theta1 and
#      theta1-dot agree with the reference at every sample within the
#      seed's mixed tolerance of the compared quantity, atol + rtol max|y|
#      (seed 001 eq. 13, applied as the seed does in §5.1 to both theta1
#      and theta1-dot): 1e-8 (1 + 6.304) = 7.3e-8 rad and 1e-8 (1 + 9.658)
#      = 1.07e-7 rad/s, max|y| the reference's over the run (printed).
#      Measured 2.8e-9 rad and 3.2e-8 rad/s (2026-12 build): the bound
#      leaves factors 26 and 3.3.  At Newton tolerance 1e-12 the run misses
#      it (2.6e-6 rad), which is why the deck says to tighten it.
#      theta1 from the orientation agrees with atan2 of body 1's centroid
#      to 1e-12 rad (round-off).
# Run time about 12 s.  Prints "N passed, N failed, N skipped"; exits 1 on any failure.

# shellcheck source=tests/lib.sh
. "$(dirname "$0")/lib.sh"

deck=$decks/stiff_double_pendulum.yaml

# 1. check
expect_rc 0 "mbsim check stiff_double_pendulum.yaml" "$MBSIM" check "$deck"
if grep -q "mobility 2 " "$tmp/out"; then
	ok "mobility 2"
else
	bad "mobility is not 2" "$(cat "$tmp/out")"
fi

# 2. free angles: deflections at t0
if "$MBSIM" run "$deck" --set time.end=1e-4 -o "$tmp/t0.h5" >"$tmp/out" 2>"$tmp/err"; then
	d1=$(series_at "$tmp/t0.h5" forces/rsda1/deflection 0)
	d2=$(series_at "$tmp/t0.h5" forces/rsda2/deflection 0)
	e1=$(awk -v d="$d1" 'BEGIN { printf "%.3e", d - atan2(1, 0) }')
	e2=$(awk -v d="$d2" 'BEGIN { printf "%.3e", d + atan2(0, -1) / 12 }')
	if le "$e1" 1e-12 && le "$e2" 1e-12; then
		ok "rsda deflections at t0: $d1 (pi/2), $d2 (-pi/12)"
	else
		bad "rsda deflections at t0: '$d1' (want pi/2), '$d2' (want -pi/12)"
	fi
else
	bad "run to 1e-4 s failed"
fi

# 3, 4. the reference, and esdirk436l2sa2 at 1e-8 against it
if ! have_scipy; then
	# (counted with SciPy: 4 checks below, 3 above)
	skip "stiff double pendulum: the reference and the runs against it" "no scipy or h5py for $PY (tools/install-deps installs them)" 4
	finish
	exit $?
fi
# get KEY LINE: the value of KEY= in LINE
get() { echo "$2" | tr ' ' '\n' | sed -n "s/^$1=//p"; }
if "$MBSIM" run "$deck" --set integrator.method=esdirk436l2sa2 --set integrator.adaptive=true \
	--set integrator.atol=1e-8 --set integrator.rtol=1e-8 --set integrator.tolerance=1e-15 \
	--set output.every=1 -o "$tmp/run.h5" >"$tmp/out" 2>"$tmp/err"; then
	# the reference is solved (and its energy balance checked) in here
	if l=$("$PY" "$top/tests/stiffdp_check.py" "$tmp/run.h5" 0.5 1 2 2>"$tmp/err"); then
		ok "tools/stiff_double_pendulum_ref.py: energy balance within $(get energy "$l")"
	else
		bad "tools/stiff_double_pendulum_ref.py (in tests/stiffdp_check.py) failed" "$(cat "$tmp/err")"
	fi
	b1=$(awk -v m="$(get th1max "$l")" 'BEGIN { printf "%.3g", 1e-8 * (1 + m) }')
	b2=$(awk -v m="$(get th1dmax "$l")" 'BEGIN { printf "%.3g", 1e-8 * (1 + m) }')
	if le "$(get th1 "$l")" "$b1"; then
		ok "esdirk436l2sa2 1e-8: theta1 within $(get th1 "$l") rad of the reference (bound $b1; at t = 0.5, 1, 2: $(get at0.5 "$l") $(get at1 "$l") $(get at2 "$l"))"
	else
		bad "esdirk436l2sa2 1e-8: theta1 error '$(get th1 "$l")' > $b1" "$l"
	fi
	if le "$(get th1d "$l")" "$b2"; then
		ok "esdirk436l2sa2 1e-8: theta1-dot within $(get th1d "$l") rad/s (bound $b2; at t = 0.5, 1, 2: $(get atd0.5 "$l") $(get atd1 "$l") $(get atd2 "$l"))"
	else
		bad "esdirk436l2sa2 1e-8: theta1-dot error '$(get th1d "$l")' > $b2" "$l"
	fi
	if le "$(get cm "$l")" 1e-12; then
		ok "theta1 from the orientation = atan2 of the centroid (to $(get cm "$l"))"
	else
		bad "theta1 from the orientation and from the centroid differ by '$(get cm "$l")'" "$l"
	fi
else
	bad "esdirk436l2sa2 at 1e-8 failed"
fi
finish
