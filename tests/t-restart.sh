#!/bin/sh
# t-restart.sh - mbsim run --restart FILE.h5[@T] (man mbsim-run(1),
# "Restarting from a saved state"; /checkpoint of mbsim-output(5);
# src/sim/checkpoint.c and each family's ckpt op).
#
# 1. Bit for bit: every scheme on ra (and rn4, w2 on rp), fixed steps, on two decks - the
#    closed crank-rocker loop with a PID motor (its integral a state) and
#    an rsda (its unwrapped angle a state) of tests/matrix, and the
#    slider-crank with Coulomb friction (forces from the last step's
#    multipliers) of decks/ - run to 0.4 s with a checkpoint at every
#    sample, then restarted from t = 0.2 s: every sample series of the
#    restarted file equals the full run's at the same times
#    (tests/restart_cmp.py --exact).  The adaptive ones (lms2,
#    esdirk436l2sa2) alike from a checkpoint in the middle of their steps;
#    gears and a screw (coupling references), and an oscillator whose
#    record events after the restart are the full run's, under hi and lms2.
#    rn4 and w2 on rp (its partition, KLU's pivot order and caches, the
#    kept Jacobians saved) alike on both decks at fixed steps, and from
#    the middle checkpoint of adaptive runs on the crank-rocker and the
#    PID pendulum (tests/matrix), whose controller integral is an ODE
#    coordinate; the pendulum at fixed steps of 2 ms too.
# 2. A run to 0.3 s restarted to 0.6 s equals a run to 0.6 s bit for bit
#    when 0.3 s is a breakpoint of the longer run (output.times).
# 3. Within the scheme's error: rn4 and w2 on the tree formulation (whose
#    charts start again), adams (rp) and bdf (tree), whose SUNDIALS
#    histories start again, and dopri5 (tree; ARKODE's step estimated
#    anew; adaptive at 1e-4, sampled at output.times every 0.1 s: 1.5e-6 m,
#    E = 2.3e-6), on the PID pendulum of tests/matrix restarted
#    at 0.5 s: positions within 10 E of the uninterrupted run, E its
#    difference from the same run at half the step (rn4, w2) or a tenth
#    of the tolerance (adams, bdf), i.e. an estimate of the run's own
#    error.  Measured (rn4, w2 on rp before they came back bit for bit:
#    5.0e-10 m, E = 2.7e-8; 3.9e-6, E = 1.7e-5), adams 7.0e-7 (E =
#    1.4e-7, atol = rtol = 1e-4), bdf 2.2e-7 (E = 2.9e-7); the factor 10: two runs each
#    within about twice E of the truth (Richardson for order 1 and up),
#    and a variable-order code restarted at order 1.  moreau (its contact
#    impulses' warm start not kept) likewise on a sliding box.
# 4. SIGKILL: a run killed after at least one flush continues from its
#    last checkpoint to the end bit for bit (genalpha) and within the error
#    bound of 3. above (adams, 10 E, E against its run at a tenth of the
#    tolerance).
# 5. Refusals, exit 2 with the reason: no checkpoint, a time the file has
#    none of, a time not before time.end, another model, another
#    integrator, another scheme setting (integrator.predictor: another
#    size), a model with smooth contact (its friction state is not
#    saved); the source as the output: exit 64, the source untouched.  A
#    changed parameter (the rsda's stiffness) is taken.
#
#   MBSIM=build/mbsim sh tests/t-restart.sh
#
# Prints "N passed, N failed, N skipped"; exits 1 on any failure.

# shellcheck source=tests/lib.sh
. "$(dirname "$0")/lib.sh"
if ! "$PY" -c 'import h5py' 2>/dev/null; then
	skip "every check of t-restart.sh" "no h5py for $PY" 1
	finish
	exit $?
fi
rocker=$top/tests/matrix/pid_crank_rocker.yaml
friction=$decks/slider_crank_friction.yaml
pend=$top/tests/matrix/pid_pendulum.yaml
cmp=$top/tests/restart_cmp.py

# run DECK OUT ARG...: mbsim run quietly, stderr to $tmp/err
run() {
	_d=$1 _o=$2
	shift 2
	"$MBSIM" run "$_d" -o "$_o" --force --quiet "$@" 2>"$tmp/err"
}

# same NAME FULL RESTARTED: bit for bit
same() {
	if "$PY" "$cmp" "$2" "$3" --exact >"$tmp/cmp" 2>&1; then
		ok "$1: $(cat "$tmp/cmp")"
	else
		bad "$1" "$(cat "$tmp/cmp")"
	fi
}

# checkpoint time k of FILE (python index: -1 the last), as %.17g
ck_time() {
	"$PY" -c "import h5py; t = h5py.File('$1', 'r')['checkpoint/time'][:]; print('%.17g' % t[$2])"
}

# --- 1. bit for bit, fixed steps -------------------------------------
for deck in "$rocker" "$friction"; do
	tag=$(basename "$deck" .yaml)
	for m in hi hilg fi ss2 ss3 ss4 bathe msstc3 msstc4 msstc5 mssth3 mssth4 mssth5 \
		esdirk324l2sa esdirk335l2sa esdirk436l2sa2 hht genalpha newmark tangent_newmark \
		lms2 lms3 lms4 rn4 w2; do
		set -- --set integrator.method=$m --set integrator.step=1e-3 --set time.end=0.4
		if ! run "$deck" "$tmp/full.h5" "$@" --set output.flush_interval=0 ||
		   ! run "$deck" "$tmp/rest.h5" "$@" --restart "$tmp/full.h5@0.2"; then
			bad "$tag $m: the runs" "$(cat "$tmp/err")"
			continue
		fi
		same "$tag $m from 0.2 s" "$tmp/full.h5" "$tmp/rest.h5"
	done
done

# --- 1b. adaptive, from a checkpoint among the steps -------------------
# (rn4, w2 on rp also on the PID pendulum: its partition and the
# controller's integral as an ODE coordinate, fixed steps and adaptive)
for case in "$rocker lms2" "$rocker esdirk436l2sa2" "$rocker rn4" "$rocker w2" \
	"$pend rn4" "$pend w2" "$pend rn4 fixed" "$pend w2 fixed"; do
	# shellcheck disable=SC2086 # case: deck, scheme, mode
	set -- $case
	deck=$1 m=$2 tag="adaptive $2"
	if [ "${3:-}" = fixed ]; then
		set -- --set integrator.method=$m --set integrator.step=2e-3 --set time.end=0.4
		tag="fixed-step $m"
	else
		set -- --set integrator.method=$m --set integrator.adaptive=true --set time.end=0.4
	fi
	tag="$(basename "$deck" .yaml) $tag"
	if run "$deck" "$tmp/full.h5" "$@" --set output.flush_interval=0; then
		T=$(ck_time "$tmp/full.h5" "len(t) // 2")
		if run "$deck" "$tmp/rest.h5" "$@" --restart "$tmp/full.h5@$T"; then
			same "$tag from t = $T" "$tmp/full.h5" "$tmp/rest.h5"
		else
			bad "$tag restart" "$(cat "$tmp/err")"
		fi
	else
		bad "$tag run" "$(cat "$tmp/err")"
	fi
done

# --- 1c. coupling references, events ----------------------------------
# gears and a screw (tests/gears: the coupling rows' unwrapped angles,
# ra.cref, kept in the checkpoint; the screw turns many times) and the
# 100-crossing oscillator of tests/events (record events: the crossings
# after the restart are the full run's after that time, found again from
# the restarted state), from the middle checkpoint
for d in gears/gear_train gears/screw_spin events/oscillator; do
	for m in hi lms2; do
		deck=$top/tests/$d.yaml
		if run "$deck" "$tmp/full.h5" --set integrator.method=$m --set output.flush_interval=0 &&
		   T=$(ck_time "$tmp/full.h5" "len(t) // 2") &&
		   run "$deck" "$tmp/rest.h5" --set integrator.method=$m --restart "$tmp/full.h5@$T"; then
			same "$(basename $d) $m from t = $T" "$tmp/full.h5" "$tmp/rest.h5"
		else
			bad "$d $m: the runs" "$(cat "$tmp/err")"
			continue
		fi
		[ $d = events/oscillator ] && pycheck "oscillator $m: the events after t = $T are the full run's" "
a, b = h5py.File('$tmp/full.h5', 'r'), h5py.File('$tmp/rest.h5', 'r')
ta, tb = a['events/time'][:], b['events/time'][:]
ok = len(tb) >= 40 and np.array_equal(ta[ta > $T], tb)
msg = '%d events after the restart, %d in the full run' % (len(tb), np.sum(ta > $T))"
	done
done

# --- 2. to 0.3 s, then on to 0.6 s --------------------------------------
long='output.times=[0, 0.1, 0.2, 0.3, 0.4, 0.5, 0.6]'
for m in hi lms3 genalpha; do
	set -- --set integrator.method=$m --set integrator.step=1e-3
	if run "$rocker" "$tmp/long.h5" "$@" --set time.end=0.6 --set "$long" &&
	   run "$rocker" "$tmp/short.h5" "$@" --set time.end=0.3 --set 'output.times=[0, 0.1, 0.2, 0.3]' &&
	   run "$rocker" "$tmp/cont.h5" "$@" --set time.end=0.6 --set "$long" --restart "$tmp/short.h5"; then
		same "$m 0-0.3 s then to 0.6 s = 0-0.6 s" "$tmp/long.h5" "$tmp/cont.h5"
	else
		bad "$m 0.3 s + 0.3 s: the runs"
	fi
done

# --- 3. within the scheme's error ---------------------------------------
# within NAME FULL RESTARTED REF FACTOR
within() {
	if "$PY" "$cmp" "$2" "$3" --bound "$5" --ref "$4" >"$tmp/cmp" 2>&1; then
		ok "$1: $(cat "$tmp/cmp")"
	else
		bad "$1" "$(cat "$tmp/cmp")"
	fi
}
for m in rn4-tree w2-tree adams bdf dopri5; do
	label=$m
	case $m in
	dopri5) # adaptive: samples (and checkpoints) at output.times, 0.5 s among them
		set -- --set integrator.adaptive=true --set integrator.atol=1e-4 \
			--set integrator.rtol=1e-4 --set "output.times=[0, 0.1, 0.2, 0.3, 0.4, \
0.5, 0.6, 0.7, 0.8, 0.9, 1, 1.1, 1.2, 1.3, 1.4, 1.5, 1.6, 1.7, 1.8, 1.9, 2]"
		ref="--set integrator.atol=1e-5 --set integrator.rtol=1e-5" ;;
	adams | bdf) set -- --set integrator.atol=1e-4 --set integrator.rtol=1e-4
		ref="--set integrator.atol=1e-5 --set integrator.rtol=1e-5" ;;
	*) set -- --set integrator.step=2e-3 --set integrator.formulation=tree
		ref="--set integrator.step=1e-3"
		m=${m%-tree} ;;
	esac
	# shellcheck disable=SC2086 # ref: options, split on purpose
	if run "$pend" "$tmp/full.h5" --set integrator.method=$m --set integrator.step=1e-3 "$@" \
		--set output.flush_interval=0 &&
	   run "$pend" "$tmp/ref.h5" --set integrator.method=$m --set integrator.step=1e-3 "$@" $ref &&
	   run "$pend" "$tmp/rest.h5" --set integrator.method=$m --set integrator.step=1e-3 "$@" \
		--restart "$tmp/full.h5@0.5"; then
		within "$label from 0.5 s" "$tmp/full.h5" "$tmp/rest.h5" "$tmp/ref.h5" 10
	else
		bad "$m: the runs" "$(cat "$tmp/err")"
	fi
done

# moreau (tests/nsc/incline.yaml: a box sliding with friction): the warm
# start of its contact impulses is not kept, and a restart's first contact
# problem starts cold, within the Gauss-Seidel tolerance (1e-10): E against
# the run at integrator.tolerance 1e-12 (measured: 7.5e-14 m, E = 1.1e-11)
incline=$top/tests/nsc/incline.yaml
if run "$incline" "$tmp/full.h5" --set output.flush_interval=0 &&
   run "$incline" "$tmp/ref.h5" --set integrator.tolerance=1e-12 &&
   T=$(ck_time "$tmp/full.h5" "len(t) // 2") &&
   run "$incline" "$tmp/rest.h5" --restart "$tmp/full.h5@$T"; then
	within "moreau from t = $T" "$tmp/full.h5" "$tmp/rest.h5" "$tmp/ref.h5" 10
else
	bad "moreau: the runs" "$(cat "$tmp/err")"
fi

# --- 4. killed, then continued ------------------------------------------
# killed DECK OUT ARG...: mbsim run ARG... killed by SIGKILL once it has
# run for D s, D = 0.2, 0.5, 1.0, 2.0 until the file holds a checkpoint
# after the start and before END (a kill between the end's checkpoint and
# the status leaves 'running' with nothing left to continue); 0, or 1 when
# none did.
killed() {
	_deck=$1 _out=$2 _end=$3
	shift 3
	for _d in 0.2 0.5 1.0 2.0; do
		rm -f "$_out" "$_out.partial"
		"$MBSIM" run "$_deck" -o "$_out" --quiet "$@" 2>"$tmp/err" &
		_pid=$!
		sleep "$_d"
		kill -KILL "$_pid" 2>/dev/null
		wait "$_pid" 2>/dev/null
		[ -f "$_out" ] && "$PY" -c "
import h5py, sys
f = h5py.File('$_out', 'r')
t = f['checkpoint/time'][:]
sys.exit(0 if f.attrs['status'] == 'running' and len(t) > 1 and 0 < t[-1] < $_end else 1)" 2>/dev/null &&
			return 0
	done
	return 1
}
# (the runs must outlast the first kills: genalpha's 80 s of 0.1 ms steps
# take about 2.6 s here, adams's 10000 s about 4 s; at 8 s and 2000 s, as
# before, genalpha ended in under 0.3 s once the step got faster and no
# kill landed mid-run)
for m in genalpha adams; do
	case $m in
	genalpha) end=80; set -- --set time.end=$end --set integrator.step=1e-4 ;;
	adams) end=10000; set -- --set time.end=$end --set integrator.step=1e-2 --set integrator.atol=1e-4 \
		--set integrator.rtol=1e-4 ;;
	esac
	set -- --set integrator.method=$m --set output.flush_interval=0.05 "$@"
	if ! killed "$pend" "$tmp/kill.h5" "$end" "$@"; then
		bad "$m killed: no file with a checkpoint after the start"
		continue
	fi
	T=$(ck_time "$tmp/kill.h5" -1)
	if run "$pend" "$tmp/full.h5" "$@" && run "$pend" "$tmp/cont.h5" "$@" --restart "$tmp/kill.h5"; then
		if [ $m = genalpha ]; then
			same "$m killed, continued from its last flush (t = $T)" "$tmp/full.h5" "$tmp/cont.h5"
		elif run "$pend" "$tmp/ref.h5" "$@" --set integrator.atol=1e-5 --set integrator.rtol=1e-5; then
			within "$m killed, continued from its last flush (t = $T)" "$tmp/full.h5" \
				"$tmp/cont.h5" "$tmp/ref.h5" 10
		else
			bad "$m killed: the reference run"
		fi
	else
		bad "$m killed: the runs" "$(cat "$tmp/err")"
	fi
done

# --- 5. refusals --------------------------------------------------------
set -- --set integrator.method=hi --set integrator.step=1e-3 --set time.end=0.2
run "$rocker" "$tmp/src.h5" "$@" --set output.flush_interval=0 || bad "refusals: the source run"
cp "$tmp/src.h5" "$tmp/src0.h5"
# refused NAME WANT PATTERN ARG...: exit WANT, the message matches PATTERN
refused() {
	_n=$1 _w=$2 _p=$3
	shift 3
	expect_rc "$_w" "$_n (exit $_w)" "$MBSIM" run "$@"
	grep -q "$_p" "$tmp/err" || bad "$_n: the message says why" "$(cat "$tmp/err")"
}
"$PY" -c "
import h5py, shutil
shutil.copy('$tmp/src.h5', '$tmp/nock.h5')
with h5py.File('$tmp/nock.h5', 'a') as f:
    del f['checkpoint']"
refused "no checkpoint" 2 "holds no checkpoint" "$rocker" -o "$tmp/r.h5" "$@" --restart "$tmp/nock.h5"
refused "a time without a checkpoint" 2 "t = 0.1005 is not a checkpoint" "$rocker" -o "$tmp/r.h5" \
	"$@" --restart "$tmp/src.h5@0.1005"
refused "a time at time.end" 2 "not before time.end" "$rocker" -o "$tmp/r.h5" "$@" \
	--restart "$tmp/src.h5@0.2"
refused "another model" 2 "the output of another model" "$pend" -o "$tmp/r.h5" "$@" \
	--restart "$tmp/src.h5@0.1"
refused "another integrator" 2 "written with integrator 'hi'" "$rocker" -o "$tmp/r.h5" "$@" \
	--set integrator.method=genalpha --restart "$tmp/src.h5@0.1"
refused "another size (no predictor history)" 2 "holds [0-9]* values where this run keeps" \
	"$rocker" -o "$tmp/r.h5" "$@" --set integrator.predictor=last --restart "$tmp/src.h5@0.1"
refused "the source as the output" 64 "is the file --restart reads" "$rocker" -o "$tmp/src.h5" \
	"$@" --restart "$tmp/src.h5@0.1"
# the smooth contact model's stick springs are not in a checkpoint
if run "$decks/contact_roll.yaml" "$tmp/roll.h5" --set time.end=0.1 --set output.flush_interval=0; then
	refused "a model with smooth contact" 2 "smooth contact model keeps a friction state" \
		"$decks/contact_roll.yaml" -o "$tmp/r.h5" --set time.end=0.2 --restart "$tmp/roll.h5"
else
	bad "contact_roll: the source run" "$(cat "$tmp/err")"
fi
cmp -s "$tmp/src.h5" "$tmp/src0.h5" && ok "the source is left as it was" ||
	bad "the refused run changed its source"
# a parameter may change: the same model with another rsda stiffness
expect_rc 0 "a parameter changed is taken" "$MBSIM" run "$rocker" -o "$tmp/r.h5" --quiet "$@" \
	--set time.end=0.3 --set forces.spring.stiffness=6 --restart "$tmp/src.h5@0.1"

finish
