#!/bin/sh
# t-dae3.sh - the seed-004 schemes of the dae3 engine (src/integ/dae3*.c).
#
#   MBSIM=build/mbsim sh tests/t-dae3.sh
#
#   1. design order of positions and orientations of every dae3 scheme on
#      the smooth unconstrained deck decks/spring_top.yaml (velocities
#      checked loosely), against a fine esdirk436l2sa2 run;
#   2. observed orders on the closed loop decks/four_link_free.yaml (index-3
#      order reduction: printed, asserted only >= 1.8);
#   3. `mbsim spectral`: rho(inf) of every scheme, |rho| ~ 1 at small steps;
#   4. SS_r and LMS_r give the same steps after a single-step start-up;
#   5. adaptive step control (lms2, esdirk436l2sa2);
#   6. every scheme runs every deck of decks/ for a short time;
#   7. Andrews' squeezer against the Test Set solution at t = 0.03.
# Every threshold says where it comes from; "measured" numbers are from
# build-t4 on 2026-11-21.  Known bugs are reported as XFAIL (printed, not
# counted as failures); should one pass, it is reported as XPASS and
# counted as a failure until its XFAIL is removed.
# Prints "N passed, N failed, N skipped"; exits 1 on any failure.

# shellcheck source=tests/lib.sh
. "$(dirname "$0")/lib.sh"

SCHEMES="lms2 lms3 lms4 ss2 ss3 ss4 bathe msstc3 msstc4 msstc5 mssth3 mssth4 mssth5
esdirk324l2sa esdirk335l2sa esdirk436l2sa2 hht genalpha"

xfail=0
# known, reported bug: printed, not counted as a failure
xf() { xfail=$((xfail + 1)); echo "XFAIL $1"; [ -s "$tmp/err" ] && sed 's/^/     /' "$tmp/err"; }
# a known bug's check passes: counted as a failure until the XFAIL goes
xpass() { fail=$((fail + 1)); echo "XPASS $1: remove its XFAIL"; }
note() { echo "     $1"; }

# slopes: `converge --csv` on stdin -> "quantity rms_slope max_slope" per quantity
slopes() {
	awk -F, 'NR > 1 { s[$1] = $7; m[$1] = $8; if (!($1 in o)) { o[$1] = n++; q[n - 1] = $1 } }
		END { for (i = 0; i < n; i++) printf "%s %s %s\n", q[i], s[q[i]], m[q[i]] }'
}
# slope_line FILE: "q1 s1, q2 s2, ..." (short names) on one line
slope_line() {
	slopes <"$1" | awk '{ sub(/^bodies\//, "", $1); printf "%s%s %.3f", (NR > 1 ? ", " : ""), $1, $2 } END { print "" }'
}
# maxdiff NAME: max |a-b| of dataset NAME in `mbsim compare` output $tmp/out
maxdiff() { awk -v d="$1" '$1 == d { print $2 }' "$tmp/out"; }
# within V WANT LIMIT: sets d = |V - WANT| (%.2e); true if V is not empty
# and d < LIMIT
within() {
	d=$(awk -v v="$1" -v w="$2" 'BEGIN { d = v - w; printf "%.2e", d < 0 ? -d : d }')
	[ -n "$1" ] && awk -v d="$d" -v l="$3" 'BEGIN { exit !(d < l) }'
}

H5DUMP=$(command -v h5dump)
# h5nums FILE DATASET [START COUNT]: values, one per line
h5nums() {
	if [ -n "${3:-}" ]; then
		"$H5DUMP" -y -w 0 -m '%.17g' -d "$2" -s "$3" -c "$4" "$1"
	else
		"$H5DUMP" -y -w 0 -m '%.17g' -d "$2" "$1"
	fi | awk '/DATA \{/ { f = 1; next } f && /\}/ { exit } f { gsub(/,/, " "); for (i = 1; i <= NF; i++) print $i }'
}
# h5attr FILE NAME: a scalar root attribute (strings without quotes)
h5attr() { "$H5DUMP" -a "/$2" "$1" | awk '/\(0\):/ { sub(/.*\(0\): */, ""); gsub(/"/, ""); print; exit }'; }

# =====================================================================
# 1. Design order on decks/spring_top.yaml (smooth, unconstrained, 3-D)
# =====================================================================
st=$decks/spring_top.yaml
sref=$tmp/spring_ref.h5 sref2=$tmp/spring_ref2.h5
# Reference: esdirk436l2sa2 (order 4) at h = 1e-4, every step written (a
# grid that holds every multiple of the coarsest study step).
"$MBSIM" run "$st" -o "$sref" --quiet --set integrator.method=esdirk436l2sa2 \
	--set integrator.step=1e-4 --set output.every=1 --set integrator.tolerance=1e-13 2>"$tmp/err"
"$MBSIM" run "$st" -o "$sref2" --quiet --set integrator.method=esdirk436l2sa2 \
	--set integrator.step=2e-4 --set output.every=1 --set integrator.tolerance=1e-13 2>>"$tmp/err"
# Its error is about |ref(2e-4) - ref(1e-4)| / (2^4 - 1); that difference
# must stay below 1e-12 (measured 4.1e-14 on positions, 3.0e-14 on
# orientations), i.e. reference error < 1e-13, well under the smallest
# finest-step error of the study (mssth5 at 5e-3: rms 2.2e-11).
expect_rc 0 "spring_top reference: esdirk436l2sa2 h=1e-4 vs 2e-4 within 1e-12" \
	"$MBSIM" compare "$sref" "$sref2" --quantity bodies/top/position \
	--quantity bodies/top/orientation --rtol 0 --atol 1e-12
note "reference self-difference: position $(maxdiff /bodies/top/position), orientation $(maxdiff /bodies/top/orientation)"

# Step sets in the asymptotic range of each design order, with the finest
# errors above ~1e-11 (so far above the reference error and the Newton
# tolerance 1e-13).  Measured slopes: 2nd order 1.99-2.00 on
# 1e-2..1.25e-3; 3rd order 3.00-3.09 on 2e-2..2.5e-3 (esdirk335l2sa is
# still 3.2 on 4e-2..5e-3); 4th order 3.91-4.00, 5th order 4.99-5.04 on
# 4e-2..5e-3 (mssth5 rms 2.2e-11 at 5e-3).
S2=1e-2,5e-3,2.5e-3,1.25e-3
S3=2e-2,1e-2,5e-3,2.5e-3
S45=4e-2,2e-2,1e-2,5e-3
for m in $SCHEMES; do
	case $m in
	mssth3 | esdirk324l2sa | esdirk335l2sa) p=3 steps=$S3 ;;
	mssth4 | esdirk436l2sa2) p=4 steps=$S45 ;;
	mssth5) p=5 steps=$S45 ;;
	*) p=2 steps=$S2 ;;
	esac
	# positions and orientations: slope within 0.2 of the design order
	# (brief of the dae3 branch; measured worst |slope - p|: 0.094, mssth4)
	expect_rc 0 "spring_top $m: order $p of position and orientation" \
		"$MBSIM" converge "$st" --steps "$steps" --reference "$sref" \
		--set integrator.method=$m --set integrator.tolerance=1e-13 \
		--quantity bodies/top/position --quantity bodies/top/orientation \
		--expect-order $p:0.2 --csv --quiet
	note "slopes: $(slope_line "$tmp/out")"
	# velocities: within 0.2 as well (measured worst |slope - p| 0.117,
	# mssth5 angular velocity 5.117; next mssth5 velocity 5.099, mssth4
	# velocity 3.951, esdirk335l2sa velocity 3.048)
	expect_rc 0 "spring_top $m: order $p of velocity and angular velocity" \
		"$MBSIM" converge "$st" --steps "$steps" --reference "$sref" \
		--set integrator.method=$m --set integrator.tolerance=1e-13 \
		--quantity bodies/top/velocity --quantity bodies/top/angular_velocity \
		--expect-order $p:0.2 --csv --quiet
	note "slopes: $(slope_line "$tmp/out")"
done

# =====================================================================
# 2. Closed loop decks/four_link_free.yaml: index-3 order reduction
# =====================================================================
fl=$decks/four_link_free.yaml
fref=$tmp/fl_ref.h5 fref2=$tmp/fl_ref2.h5
# Reference: esdirk436l2sa2 at h = 1e-5 written every 5 steps (5e-5 grid,
# holds every multiple of 1.25e-3).  On the closed loop it converges at
# order ~2 only, so its error is about |ref(2e-5) - ref(1e-5)| / 3: the
# difference must be below 1e-8 (measured 1.0e-9 on positions),
# i.e. reference error < 3e-9, under 1/10 of the finest study error
# (esdirk436l2sa2 at 1.5625e-4: ~4e-8 on positions).
"$MBSIM" run "$fl" -o "$fref" --quiet --set integrator.method=esdirk436l2sa2 \
	--set integrator.step=1e-5 --set output.every=5 2>"$tmp/err"
"$MBSIM" run "$fl" -o "$fref2" --quiet --set integrator.method=esdirk436l2sa2 \
	--set integrator.step=2e-5 --set output.every=5 2>>"$tmp/err"
FLQ="--quantity bodies/link2/position --quantity bodies/link3/position
--quantity bodies/link2/orientation --quantity bodies/link3/orientation --quantity bodies/rotor/orientation"
# shellcheck disable=SC2086
expect_rc 0 "four_link_free reference: esdirk436l2sa2 h=1e-5 vs 2e-5 within 1e-8" \
	"$MBSIM" compare "$fref" "$fref2" $FLQ --rtol 0 --atol 1e-8
note "reference self-difference: link2 position $(maxdiff /bodies/link2/position)"
# Steps 1.25e-3..1.5625e-4: for mssth4 and esdirk436l2sa2 the local
# orders still climb towards 2 from below at larger steps (measured
# 1.2-1.6 between 1e-2 and 2.5e-3, 1.8-1.9 below 1.25e-3).  Asserted:
# 1.8 <= slope <= 3.2 (--expect-order 2.5:0.7).  1.8 is the brief's floor
# (index-3 reduces the high-order schemes to ~2; 2.0 measured on the
# double pendulum); 3.2 is the largest design order below 4 plus 0.2
# (none of the schemes reaches 3 on this loop: mssth3 ~2.5 measured).
for m in $SCHEMES; do
	# shellcheck disable=SC2086
	expect_rc 0 "four_link_free $m: position/orientation order in [1.8, 3.2]" \
		"$MBSIM" converge "$fl" --steps 1.25e-3,6.25e-4,3.125e-4,1.5625e-4 \
		--reference "$fref" --set integrator.method=$m $FLQ \
		--expect-order 2.5:0.7 --csv --quiet
	note "slopes: $(slope_line "$tmp/out")"
done

# =====================================================================
# 3. Spectral radius (mbsim spectral on x'' + w^2 x = 0)
# =====================================================================
# spec M R RANGE N: spectral radii at the N ratios, one line
spec() {
	"$MBSIM" spectral --method "$1" --rho "$2" --ratio-range "$3" --points "$4" --csv 2>"$tmp/err" |
		awk -F, 'NR > 1 { printf "%s%s", (NR > 2 ? " " : ""), $2 } END { print "" }'
}
# DIRK-type schemes with tunable rho_inf: R(inf) is exactly +-R (coef.c),
# so at ratio 1e8 the radius equals R to within 1e-6 (measured worst
# 3.7e-8, msstc3 at R = 0.6; at ratio 1e6 and R = 0 up to 6.9e-7 is
# still seen, hence the larger ratio).  R = 0.6 is away from the MSSTH
# poles (0.69 mssth3; 0.66, 0.755 mssth4; 0.556, 0.897 mssth5).
for m in bathe msstc3 msstc4 msstc5 mssth3 mssth4 mssth5; do
	for R in 0 0.3 0.6 1; do
		v=$(spec $m $R 1e6:1e8 2 | awk '{ print $2 }')
		if within "$v" $R 1e-6; then
			ok "spectral $m rho=$R: |rho(1e8) - R| = $d < 1e-6"
		else
			bad "spectral $m rho=$R: rho(1e8) = '$v'"
		fi
	done
done
# ESDIRKs are L-stable: R(inf) = 0 whatever --rho (measured <= 7e-9 at 1e8)
for m in esdirk324l2sa esdirk335l2sa esdirk436l2sa2; do
	v=$(spec $m 0.6 1e6:1e8 2 | awk '{ print $2 }')
	if within "$v" 0 1e-6; then
		ok "spectral $m: L-stable, rho(1e8) = $v < 1e-6"
	else
		bad "spectral $m: rho(1e8) = '$v'"
	fi
done
# LMS_k, SS_k: sigma(z) = b0 (z + R)^k (coef.c), a k-fold root at -R, so
# for hw = 2 pi ratio large the roots are -R + O((hw)^(-1/k)).  Checked at
# ratios 1e4, 1e6, 1e8:
#   (a) the deviation falls like ratio^(-1/k) between 1e4 and 1e6:
#       log10(d(1e4)/d(1e6))/2 within 0.05 of 1/k (measured 0.500-0.501,
#       0.334-0.337, 0.256-0.259 for k = 2, 3, 4);
#   (b) d(1e8) < 5 (2 pi 1e8)^(-1/k) = 2.0e-4, 5.8e-3, 3.2e-2: the
#       perturbation size with a factor 5 for the constant (measured at
#       most 8.5e-5, 1.1e-3, 5.2e-3).  Larger ratios do not help: the
#       eigenvalues of a k-fold root are only computed to
#       (round-off)^(1/k) (measured 6e-3 for k = 4 at 1e10).
# R = 1 (k-fold root on the unit circle) is printed, not asserted:
# round-off alone gives |rho - 1| up to 1.2e-3 (lms4).
for m in lms2 lms3 lms4 ss2 ss3 ss4; do
	k=${m#lms}
	k=${k#ss}
	for R in 0 0.3 0.6 1; do
		l=$(spec $m $R 1e4:1e8 3)
		res=$(echo "$l" | awk -v R=$R -v k=$k 'NF == 3 {
			for (i = 1; i <= 3; i++) { d[i] = $i - R; if (d[i] < 0) d[i] = -d[i] }
			rate = (d[1] > 0 && d[2] > 0) ? log(d[1] / d[2]) / log(10) / 2 : -1
			tol = 5 * exp(-log(2 * 3.141592653589793 * 1e8) / k)
			okr = (rate - 1 / k < 0.05 && 1 / k - rate < 0.05)
			printf "%d %.3f %.2e %.2e", (okr && d[3] < tol), rate, d[3], tol }')
		set -- $res
		if [ "$R" = 1 ]; then
			note "spectral $m rho=1: radii at 1e4, 1e6, 1e8: $l (not asserted)"
			continue
		fi
		msg="spectral $m rho=$R: rate of approach $2 (1/k = $(awk -v k=$k 'BEGIN { printf "%.3f", 1 / k }')), |rho(1e8) - R| = $3 (limit $4)"
		# Known: SS_r's auxiliary variables are a filter with their own
		# poles, e.g. (1 - g1)/g1 = -1/3 for ss2 at R = 0 (g1 = 1.5); a
		# perturbation of the auxiliary variables alone excites them
		# (modulus 1/3 ss2, 0.316 ss3, 0.335 ss4 at R = 0; 0.330 ss4 at
		# R = 0.3).  A consistent start never does: SS_r and LMS_r agree
		# to round-off (section 4).  Listed, not counted as a failure.
		known=
		case $m:$R in ss?:0 | ss4:0.3) known="SS_r auxiliary-variable mode" ;; esac
		if [ "${1:-0}" = 1 ]; then
			if [ -n "$known" ]; then xpass "$msg ($known)"; else ok "$msg"; fi
		elif [ -n "$known" ]; then
			xf "$msg; radii $l ($known)"
		else
			bad "$msg; radii $l"
		fi
	done
done
# HHT: R(inf) = (1 + alpha)/(1 - alpha) (Hilber, Hughes, Taylor 1977;
# the inverse of the default alpha = (R - 1)/(R + 1) of mbsim-deck(5)),
# alpha clipped to -1/3, i.e. R(inf) >= 1/2.  Generalized-alpha: R(inf) =
# R (Chung & Hulbert 1993).  Their approach is fast: at ratio 1e10 within
# 1e-6 (measured at most 2.1e-8; 1e-5 at ratio 1e6).
for a in -0.1 -0.2 -0.3333333333333333 0; do
	v=$("$MBSIM" spectral --method hht --alpha $a --ratio-range 1e9:1e10 --points 2 --csv 2>"$tmp/err" |
		awk -F, 'NR == 3 { print $2 }')
	if within "$v" "$(awk -v a=$a 'BEGIN { printf "%.17g", (1 + a) / (1 - a) }')" 1e-6; then
		ok "spectral hht alpha=$a: rho(1e10) = $v, (1+a)/(1-a) within $d"
	else
		bad "spectral hht alpha=$a: rho(1e10) = '$v'"
	fi
done
for R in 0 0.3 0.6 1; do
	for m in hht genalpha; do
		v=$(spec $m $R 1e9:1e10 2 | awk '{ print $2 }')
		want=$(awk -v R=$R -v m=$m 'BEGIN { a = (R - 1) / (R + 1); if (a < -1 / 3) a = -1 / 3
			print (m == "hht") ? (1 + a) / (1 - a) : R }')
		if within "$v" "$want" 1e-6; then
			ok "spectral $m rho=$R: rho(1e10) = $v, design $want within $d"
		else
			bad "spectral $m rho=$R: rho(1e10) = '$v', design $want"
		fi
	done
done
# Small steps: every scheme is consistent, rho(1e-3) within 1e-4 of 1
# (the principal root is exp(i w dt) + O((w dt)^3); measured at most
# 7.3e-6, lms4 at R = 1, round-off of its 4-fold unimodular root).
worst=0
for m in $SCHEMES; do
	for R in 0 0.6 1; do
		v=$(spec $m $R 1e-3:1e-2 2 | awk '{ print $1 }')
		if within "$v" 1 1e-4; then
			worst=$(awk -v a="$worst" -v b="$d" 'BEGIN { print (b > a) ? b : a }')
		else
			bad "spectral $m rho=$R: rho(1e-3) = '$v' not within 1e-4 of 1"
			worst=x
		fi
	done
done
[ "$worst" != x ] && ok "spectral: rho(1e-3) within 1e-4 of 1 for every scheme and R in {0, 0.6, 1} (worst $worst)"

# =====================================================================
# 4. SS_r == LMS_r after a single-step start-up (planar rotations)
# =====================================================================
dp=$decks/double_pendulum.yaml
# Tolerance 1e-12: 1e-14 is below what Newton reaches on this deck (it
# stalls at corrections of 1-2e-14 and the run fails).
KQ="--quantity bodies/bar1/position --quantity bodies/bar2/position
--quantity bodies/bar1/orientation --quantity bodies/bar2/orientation
--quantity bodies/bar1/velocity --quantity bodies/bar2/velocity
--quantity bodies/bar1/angular_velocity --quantity bodies/bar2/angular_velocity"
for k in 2 3 4; do
	for s in lms ss; do
		"$MBSIM" run "$dp" -o "$tmp/$s$k.h5" --quiet --set time.end=0.5 \
			--set integrator.tolerance=1e-12 --set integrator.method=$s$k \
			--set integrator.startup=single_step 2>"$tmp/err" || bad "double pendulum $s$k single_step start-up run"
	done
	"$MBSIM" run "$dp" -o "$tmp/lmsT$k.h5" --quiet --set time.end=0.5 \
		--set integrator.tolerance=1e-12 --set integrator.method=lms$k 2>"$tmp/err" ||
		bad "double pendulum lms$k trapezoidal start-up run"
	# Kinematic states agree to rtol 1e-9, atol 1e-10 (measured max
	# differences: positions 2e-13, velocities 1.8e-11: round-off and
	# Newton-tolerance noise).
	# shellcheck disable=SC2086
	expect_rc 0 "lms$k == ss$k after single_step start-up (rtol 1e-9, atol 1e-10)" \
		"$MBSIM" compare "$tmp/lms$k.h5" "$tmp/ss$k.h5" $KQ --rtol 1e-9 --atol 1e-10
	note "max |lms-ss|: bar2 position $(maxdiff /bodies/bar2/position), bar2 velocity $(maxdiff /bodies/bar2/velocity), bar2 angular velocity $(maxdiff /bodies/bar2/angular_velocity)"
	# Accelerations and multipliers are only solved to the Newton
	# tolerance divided by cq = (h b0)^2 ~ 2.6e-7: 1e-12/2.6e-7 ~ 4e-6;
	# printed (measured 2e-7 and 1.5e-5 N), not asserted.
	"$MBSIM" compare "$tmp/lms$k.h5" "$tmp/ss$k.h5" --rtol 0 --atol 0 >"$tmp/out" 2>&1
	note "max |lms-ss|: bar2 acceleration $(maxdiff /bodies/bar2/acceleration), pin1 multipliers $(maxdiff /joints/pin1/multipliers)"
	# ...and with the default trapezoidal start-up they differ (the test
	# can fail): measured 2.5e-7, 1.1e-7, 7.1e-8 on bar2 position.
	# shellcheck disable=SC2086
	expect_rc 1 "lms$k (trapezoidal start-up) != ss$k" \
		"$MBSIM" compare "$tmp/lmsT$k.h5" "$tmp/ss$k.h5" $KQ --rtol 1e-9 --atol 1e-10
	note "max |lms-ss|: bar2 position $(maxdiff /bodies/bar2/position)"
done

# =====================================================================
# 5. Adaptive step control
# =====================================================================
expect_rc 1 "adaptive with bathe (no error estimate) refused" \
	"$MBSIM" run "$st" -o "$tmp/x.h5" --set integrator.method=bathe --set integrator.adaptive=true
grep -q "integrator 'bathe' has no error estimate" "$tmp/err" && ok "refusal names bathe and the missing estimate" ||
	bad "refusal names bathe and the missing estimate"

# adaptive M DECK REF TOL QUANTITY: one adaptive run to t = 1, checks,
# sets $aerr (max error at the common sample times vs REF)
adaptive() {
	am=$1 ad=$2 aref=$3 atol=$4 aq=$5
	af=$tmp/ad-$am-$(basename "$ad" .yaml)-$atol.h5
	aerr=
	if ! "$MBSIM" run "$ad" -o "$af" --quiet --set integrator.method=$am --set integrator.adaptive=true \
		--set integrator.atol=$atol --set integrator.rtol=$atol --set time.end=1 2>"$tmp/err"; then
		bad "adaptive $am $(basename "$ad") atol=rtol=$atol completes"
		return
	fi
	rm -f "$tmp/err"
	if [ -z "$H5DUMP" ]; then
		skip "adaptive $am $(basename "$ad") atol=rtol=$atol: status, step sizes" "no h5dump to read them"
	else
		st_=$(h5attr "$af" status)
		rj=$(h5attr "$af" rejected_steps)
		n=$(h5nums "$af" /solver/step_size | awk 'NR > 1' | wc -l)
		hr=$(h5nums "$af" /solver/step_size | awk 'NR > 1 { if (mn == "" || $1 < mn) mn = $1; if ($1 > mx) mx = $1 }
			END { printf "%.3g %.3g %.3g", mn, mx, mx / mn }')
		set -- $hr
		# varying steps: max/min step over the run > 2 (the initial
		# step integrator.step is 1e-2 or 1e-3; the controller may
		# change it by facmin 0.2 .. facmax 5 per step)
		if [ "$st_" = complete ] && [ -n "$rj" ] && awk -v r="$3" 'BEGIN { exit !(r > 2) }'; then
			ok "adaptive $am $(basename "$ad") atol=rtol=$atol: complete, $n steps, rejected_steps $rj, h in [$1, $2]"
		else
			bad "adaptive $am $(basename "$ad") atol=rtol=$atol: status '$st_', rejected_steps '$rj', h in [$1, $2]"
		fi
	fi
	"$MBSIM" compare "$af" "$aref" --quantity "$aq" --rtol 0 --atol 0 >"$tmp/out" 2>&1
	aerr=$(maxdiff "/$aq")
	note "max error of $aq vs reference: $aerr"
}
# adaptive_pair M DECK REF QUANTITY: error must fall by 10 from tolerances
# 1e-4 to 1e-6 (the control keeps the error per unit step, so the global
# error follows the tolerance: a factor 100; 10 leaves room for it not
# being exactly proportional; measured 103 lms2, 51 esdirk436l2sa2 on
# spring_top, 108 lms2, 89 esdirk436l2sa2 on the double pendulum;
# proportionality itself: tests/t-accuracy.sh)
adaptive_pair() {
	adaptive "$1" "$2" "$3" 1e-4 "$4"
	e4=$aerr
	adaptive "$1" "$2" "$3" 1e-6 "$4"
	e6=$aerr
	if [ -n "$e4" ] && [ -n "$e6" ] && awk -v a="$e4" -v b="$e6" 'BEGIN { exit !(b * 10 < a) }'; then
		ok "adaptive $1 $(basename "$2"): error $e4 -> $e6 from tolerance 1e-4 to 1e-6"
	else
		bad "adaptive $1 $(basename "$2"): error '$e4' -> '$e6' from tolerance 1e-4 to 1e-6"
	fi
}
adaptive_pair lms2 "$st" "$sref" bodies/top/position
adaptive_pair esdirk436l2sa2 "$st" "$sref" bodies/top/position
dref=$tmp/dp_ref.h5
if have_scipy && "$PY" "$top/tools/double_pendulum_ref.py" -o "$dref" --t-end 1 >/dev/null 2>"$tmp/err"; then
	note "double pendulum reference: tools/double_pendulum_ref.py (DOP853), 1 s"
else
	# no SciPy: esdirk436l2sa2 at h = 1e-5 (order ~2 here: error ~1e-9,
	# far below the adaptive errors >= 1e-6)
	"$MBSIM" run "$dp" -o "$dref" --quiet --set integrator.method=esdirk436l2sa2 \
		--set integrator.step=1e-5 --set output.every=1 --set time.end=1
	note "double pendulum reference: esdirk436l2sa2 h=1e-5 (no SciPy)"
fi
adaptive_pair esdirk436l2sa2 "$dp" "$dref" bodies/bar2/position
adaptive_pair lms2 "$dp" "$dref" bodies/bar2/position

# =====================================================================
# 6. Every scheme on every deck, a short run
# =====================================================================
# time.end 0.05 s (50 steps of the decks' 1e-3), Andrews' 3e-4 s (1 % of
# its 0.03 s, 30 steps of 1e-5).  Exit 0 and root status "complete".
nrun=0 nbad=0
for d in "$decks"/*.yaml; do
	n=$(basename "$d" .yaml)
	# bodies of mass 0 (seed 003 §4): bdf only, tests/t-small-mass.sh
	case $n in small_mass_*) continue ;; esac
	te=0.05
	[ "$n" = andrews_squeezer ] && te=3e-4
	for m in $SCHEMES; do
		nrun=$((nrun + 1))
		f=$tmp/short.h5
		rm -f "$f"
		# fixed steps (a deck may choose a step control that m lacks)
		if "$MBSIM" run "$d" -o "$f" --quiet --set integrator.method=$m \
			--set integrator.adaptive=false \
			--set time.end=$te --set output.every=1000 2>"$tmp/err"; then
			if [ -n "$H5DUMP" ] && [ "$(h5attr "$f" status)" != complete ]; then
				nbad=$((nbad + 1))
				bad "short run $n $m: status '$(h5attr "$f" status)'"
			fi
		else
			nbad=$((nbad + 1))
			bad "short run $n $m (time.end $te)"
		fi
	done
done
[ "$nbad" -eq 0 ] && ok "short runs: all $nrun scheme/deck combinations complete"

# =====================================================================
# 7. Andrews' squeezer vs the Test Set solution at t = 0.03
# =====================================================================
# q(0.03) and q(0) of the Test Set ("andrews", PSIDE at tol 1e-14;
# tests/andrews_testset.csv); tools/andrews_ref.py reproduces q(0.03)
# to 1.4e-9.  The deck's joint coordinate is q - q(0).  Error measure:
# max_i |q_i - q_ref,i| / max_i |q_ref,i| (relative error in the max norm,
# |q_ref| up to 15.8).
testset=$top/tests/andrews_testset.csv
ANGLES=$(awk -F, '!/^#/ { print $1 }' "$testset")
Q0=$(awk -F, '!/^#/ { print $2 }' "$testset")
Q03=$(awk -F, '!/^#/ { print $3 }' "$testset")
as=$decks/andrews_squeezer.yaml
# andrews H EVERY LIMIT: esdirk436l2sa2 at step H, relative error < LIMIT
andrews() {
	af=$tmp/andrews_$1.h5
	if ! "$MBSIM" run "$as" -o "$af" --quiet --set integrator.method=esdirk436l2sa2 \
		--set integrator.step=$1 --set output.every=$2 2>"$tmp/err"; then
		bad "andrews esdirk436l2sa2 h=$1 run"
		return
	fi
	if [ -z "$H5DUMP" ]; then
		skip "andrews esdirk436l2sa2 h=$1 against the Test Set" "no h5dump to read the file"
		return
	fi
	t=$(h5nums "$af" /time 30 1)
	qs=
	for j in $ANGLES; do
		qs="$qs $(series_at "$af" joints/$j/coordinate 30)"
	done
	e=$(echo $Q0 $Q03 $qs | awk '{ for (i = 1; i <= 21; i++) v[i] = $i }
		END { for (i = 1; i <= 7; i++) { d = v[14 + i] + v[i] - v[7 + i]; if (d < 0) d = -d
			r = v[7 + i] < 0 ? -v[7 + i] : v[7 + i]; if (d > md) md = d; if (r > mr) mr = r }
			printf "%.2e", md / mr }')
	if awk -v t="$t" -v e="$e" -v l="$3" 'BEGIN { exit !(t - 0.03 < 1e-12 && 0.03 - t < 1e-12 && e < l) }'; then
		ok "andrews esdirk436l2sa2 h=$1: relative error at t = 0.03 $e < $3"
	else
		bad "andrews esdirk436l2sa2 h=$1: relative error at t = '$t' is '$e', limit $3"
	fi
}
# h = 1e-5: < 1e-6 (brief; measured 4.4e-7).  h = 1e-6: < 1e-7 (the
# issue's done-when; measured 5.7e-9; ~1 s).  The index-3 order ~2 gives
# the factor ~80 between them.
andrews 1e-5 100 1e-6
andrews 1e-6 1000 1e-7

left=$(ls "$TMPDIR" | wc -l)
[ "$left" -eq 0 ] && ok "temporary run files removed" || bad "temporary run files removed ($left left)"
[ "$xfail" -gt 0 ] && echo "$xfail listed known limitations (XFAIL, see the comments)"
finish
