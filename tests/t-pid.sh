#!/bin/sh
# t-pid.sh - the integral state of PI/PID motors under every kind of scheme
# (form/ode_ctrl.c for rn4, w2, adams, dopri5, bdf on rp and tree; the trapezoidal
# integral of ra_force.c for the index-3 schemes).  Two decks of
# tests/matrix/:
#
#   pid_pendulum.yaml (a bar held by a PID motor along a cosine ramp), to
#     t = 0.9 s, short of the ramp's end at 1 s (there the target's second
#     derivative jumps, and a scheme whose stages reach beyond the step,
#     rn4's second at 1.15 h, drops to order 2 from it; tests/matrix/README.md);
#   pid_crank_rocker.yaml (a closed planar loop, a PID motor with an effort
#     limit on the crank, an rsda on the rocker), to t = 1 s;
#
# each scheme at steps h = 2e-3 and 1e-3 (adams, bdf: atol = rtol = 1e-7
# and 1e-9, output every 1e-3 s) against lms2 at 1e-4 and 2e-4, and the
# pendulum also against tools/pid_pendulum_ref.py (SciPy's DOP853 on the
# minimal equations, when SciPy is there): joint coordinates and motor
# efforts within the bound of tests/pid_check.py (Richardson's estimate of
# each run's error from its order, doubled), and the pendulum's observed
# order at least the scheme's less 0.5.  Orders: dopri5 5 (at fixed
# steps), rn4 4, w2 2, lms2,
# genalpha, mssth3 2 (the index-3 schemes' order with constraints), hi 1.
# Before the integral was a state of the ODE, rn4 was 18 rad and w2 1.8
# rad off on the pendulum at h = 1e-3, and lms2, adams converged at order
# 1 (the integral's rectangle rule, lagging a step).
#
#   MBSIM=build/mbsim sh tests/t-pid.sh
#
# Prints "N passed, N failed, N skipped"; exits 1 on any failure.

# shellcheck source=tests/lib.sh
. "$(dirname "$0")/lib.sh"

md=$top/tests/matrix

# run NAME DECK OUT SETTINGS...: a run to t = $tend
run() {
	_name=$1 _deck=$2 _out=$3
	shift 3
	set -- --set time.end="$tend" "$@"
	if ! "$MBSIM" run "$_deck" -o "$_out" "$@" >/dev/null 2>"$tmp/err"; then
		bad "run $_name" "$(grep -v note "$tmp/err" | head -c 400)"
		return 1
	fi
}

# scheme DECK TAG METHOD FORMULATION ORDER [EXACT]: its two runs, checked
scheme() {
	_d=$1 _tag=$2 _m=$3 _f=$4 _p=$5 _ex=${6:-}
	_a=$tmp/$_tag-$_m-$_f-a.h5 _b=$tmp/$_tag-$_m-$_f-b.h5
	_s="--set integrator.method=$_m --set integrator.formulation=$_f"
	if [ "$_p" = tol ]; then
		# shellcheck disable=SC2086 # _s: settings, one word each
		run "$_tag $_m $_f" "$_d" "$_a" $_s --set integrator.step=1e-3 \
			--set integrator.atol=1e-7 --set integrator.rtol=1e-7 || return
		# shellcheck disable=SC2086
		run "$_tag $_m $_f" "$_d" "$_b" $_s --set integrator.step=1e-3 \
			--set integrator.atol=1e-9 --set integrator.rtol=1e-9 || return
	else
		# order 5 (dopri5) at 2e-3 and 1e-3 is within 1e-10 of the
		# pendulum's exact solution, whose own error that is: 2e-2, 1e-2
		_h=2e-3 _h2=1e-3
		[ "$_p" = 5 ] && [ "$_tag" = pendulum ] && _h=2e-2 _h2=1e-2
		# shellcheck disable=SC2086
		run "$_tag $_m $_f" "$_d" "$_a" $_s --set integrator.step=$_h || return
		# shellcheck disable=SC2086
		run "$_tag $_m $_f" "$_d" "$_b" $_s --set integrator.step=$_h2 || return
	fi
	if "$PY" "$top/tests/pid_check.py" "$_tag $_m $_f" "$_p" "$_a" "$_b" \
		"$tmp/$_tag-ref.h5" "$tmp/$_tag-ref2.h5" ${_ex:+"$_ex"} >"$tmp/pout" 2>&1; then
		ok "$(cat "$tmp/pout")"
	else
		bad "$_tag $_m $_f" "$(head -c 800 "$tmp/pout")"
	fi
}

tags="pendulum crank_rocker"
if ! "$PY" -c 'import h5py, numpy' 2>/dev/null; then
	skip "the schemes (13 on the pendulum, 8 on the crank-rocker) and the partitions" "no h5py or numpy for $PY" 22
	tags=
fi

for tag in $tags; do
	deck=$md/pid_$tag.yaml
	tend=1
	[ $tag = pendulum ] && tend=0.9
	run "$tag lms2 1e-4" "$deck" "$tmp/$tag-ref.h5" --set integrator.step=1e-4 || continue
	run "$tag lms2 2e-4" "$deck" "$tmp/$tag-ref2.h5" --set integrator.step=2e-4 || continue
	exact=
	if [ $tag = pendulum ]; then
		if ! have_scipy; then
			skip "pendulum against pid_pendulum_ref.py" "no scipy for $PY (tools/install-deps installs python3-scipy)"
		elif "$PY" "$top/tools/pid_pendulum_ref.py" -o "$tmp/exact.h5" --dt 1e-3 \
			--t-end "$tend" 2>"$tmp/err"; then
			exact=$tmp/exact.h5
		else
			bad "tools/pid_pendulum_ref.py" "$(cat "$tmp/err")"
		fi
	fi
	forms="rp tree"
	[ $tag = crank_rocker ] && forms=rp	# a closed loop: tree refuses it (below)
	for f in $forms; do
		scheme "$deck" $tag rn4 "$f" 4 "$exact"
		scheme "$deck" $tag w2 "$f" 2 "$exact"
		scheme "$deck" $tag adams "$f" tol "$exact"
	done
	[ $tag = pendulum ] && scheme "$deck" $tag bdf auto tol "$exact"
	for f in $forms; do
		scheme "$deck" $tag dopri5 "$f" 5 "$exact"
	done
	for m in lms2 genalpha mssth3; do
		scheme "$deck" $tag $m auto 2 "$exact"
	done
	scheme "$deck" $tag hi auto 1 "$exact"
done

# /solver/partitions of a run whose integral states ode_ctrl adds after
# rp's coordinates: a row is the time and rp's independent coordinates
# only (the four-bar has one degree of freedom: 2 columns), each a
# coordinate index 7 b + k of its 3 bodies.  The writer took the wrapped
# system's n (rp's + 1 integral) and wrote 3 columns, the rows shifted
# and the last ones uninitialized memory.
[ -n "$tags" ] && pycheck "crank_rocker rn4: /solver/partitions holds rp's coordinates only" "
with h5py.File('$tmp/crank_rocker-rn4-rp-a.h5', 'r') as f:
    P = f['solver/partitions'][()]
c = P[:, 1:]
ok = (P.ndim == 2 and P.shape[1] == 2 and np.all(np.diff(P[:, 0]) >= 0) and
      np.all(c == np.round(c)) and np.all((c >= 0) & (c < 21)))
msg = 'partitions %s: %s' % (P.shape, P[:4].tolist())"

# the crank-rocker's loop on tree: refused at check, at the joint closing it
expect_rc 2 "crank_rocker on tree refused" "$MBSIM" check "$md/pid_crank_rocker.yaml" \
	--set integrator.method=rn4 --set integrator.formulation=tree
grep -q "pid_crank_rocker.yaml:[0-9]*:[0-9]*: error: joint 'C' closes a loop" "$tmp/err" ||
	bad "the refusal names joint C at FILE:LINE:COL" "$(cat "$tmp/err")"

finish
