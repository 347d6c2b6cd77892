#!/bin/sh
# t-matrix.sh - the fast subset of `make matrix` (tools/matrix.py,
# tools/randmodel.py; docs/results/matrix-method.md):
#   1. the cross-validation matrix on four decks and six schemes (one per
#      family: hi, lms2, mssth4, rn4 and adams on rp and tree, bdf): no
#      cell FAILED.  tests/matrix/gears.yaml (gear, rack_pinion, coupler,
#      screw joints) is one of them; tree refuses it.  tests/forces/pid.yaml (integral control, a limit)
#      is one of them: rn4, w2, adams and bdf gave a wrong effort there
#      (0.31 N m off at tolerance 1e-11, where the bound is 0.009 N m);
#      tests/matrix/events_record.yaml (recorded events: their crossing
#      times are compared) is one: adams and bdf, returning only at the
#      samples, located the crossings 2.6e-6 s off whatever the tolerance
#      (bound 1.6e-6 s);
#   1b. the nonsmooth contact decks tests/nsc/pendulum_wall.yaml (an impact
#      on a wall and a revolute joint) and tests/nsc/cradle.yaml (five
#      sequential impacts), which only moreau takes: its cells agree with
#      the moreau reference at h/8 as first order, hi's are refused;
#   2. the judge itself: a result that converges to a wrong limit (the
#      reference shifted by 1e-3 m) fails, one off by its own Richardson
#      error passes; a run that finds another number of event crossings
#      than the reference fails, one whose crossing times converge passes;
#      a body turning through a half turn about y, whose quaternion's w
#      crosses 0 where the h run writes (w, 0, 1, 0) and the reference
#      (w, 0, -1, 0) (both w >= 0: q and -q are one rotation), agrees
#      when its angle error is of Richardson size (it failed with a
#      distance 2: tests/forces/crank_rocker_pid.yaml, hi, fi, hilg),
#      and still fails when the angle converges to a limit 1e-3 rad off;
#      adams and bdf return every step h on a deck with a tire (a road),
#      as on one with events;
#   3. tests/matrix/bushing_aniso.yaml (unequal rotational stiffnesses of a
#      bushing, found by the random models): K + V - W stays at its
#      initial value within 1e-8 J over 1 s at h = 1e-4 (mssth5; measured
#      1.5e-10 J, 3.7e-11 J at h/2); without the bushing's term in W it
#      was off by 8.1e-4 J;
#   4. tests/statics/held_pendulum.yaml under bdf (found by the matrix): its
#      only coordinate is driven (rate 0.5 rad/s), so tree's state is
#      empty; the bar must still turn: coordinate 1 rad at t = 2 s and
#      centroid (0.5 cos 1, 0, -0.5 sin 1) to 1e-9 (the deck's geometry).
#      It stayed at its start (coordinate 0, exit 0) before;
#   5. 50 random models (tools/randmodel.py --seeds 0:50, 2-4 bodies,
#      0.1 s): every property holds, with friction too (docs/results/
#      matrix.md findings 4 and 12: seed 39, a slider with friction on a
#      revolute driven by an expression law, failed lms2, mssth4 and rn4
#      until friction's fix, and was then excused); each model's failures
#      are printed and saved under $tmp/rand.
#   6. the tools run numpy's BLAS (OpenBLAS) at one thread: called from
#      several worker threads it corrupted a product now and then
#      (matrix.md finding 14, the flaky modes property of 5).
#   MBSIM=build/mbsim sh tests/t-matrix.sh
. "$(dirname "$0")/lib.sh"

"$PY" "$top/tools/matrix.py" --mbsim "$MBSIM" --budget 0.02 --out "$tmp/matrix.md" \
	--schemes hi,lms2,mssth4,rn4,adams,bdf \
	--decks "$top/decks/pendulum.yaml" "$top/decks/slider_crank.yaml" \
	"$top/tests/forces/pid.yaml" "$top/tests/matrix/gears.yaml" \
	"$top/tests/matrix/events_record.yaml" >"$tmp/out" 2>"$tmp/err"
rc=$?
if [ $rc -eq 0 ] && grep -q " 0 FAILED" "$tmp/err"; then
	ok "matrix: $(tail -n 1 "$tmp/err")"
else
	bad "matrix subset (exit $rc)" "$(cat "$tmp/out")" "$(tail -n 3 "$tmp/err")"
fi

"$PY" "$top/tools/matrix.py" --mbsim "$MBSIM" --budget 0.02 --out "$tmp/matrix-nsc.md" \
	--schemes moreau,hi --decks "$top/tests/nsc/pendulum_wall.yaml" \
	"$top/tests/nsc/cradle.yaml" >"$tmp/out" 2>"$tmp/err"
rc=$?
if [ $rc -eq 0 ] && grep -q "2 decks, 4 cells: 2 agree, 2 refused, 0 FAILED" "$tmp/err" &&
	grep -q "reference moreau at h = 1.25e-05 s (first order)" "$tmp/matrix-nsc.md"; then
	ok "matrix, nonsmooth decks (moreau reference): $(tail -n 1 "$tmp/err")"
else
	bad "matrix, nonsmooth decks (exit $rc)" "$(cat "$tmp/out")" "$(tail -n 3 "$tmp/err")"
fi

pycheck "judge: a wrong limit fails, a Richardson-sized error passes" "
import matrix as mx
t = np.linspace(0, 1, 11)
ref = {'time': t, 'redundant': '', 'bodies/position': np.sin(t)[:, None]}
# a scheme of order 2 whose error is 1e-4 t at h and 2.5e-5 t at h/2
a = dict(ref, **{'bodies/position': (np.sin(t) + 1e-4 * t)[:, None]})
b = dict(ref, **{'bodies/position': (np.sin(t) + 2.5e-5 * t)[:, None]})
good, _ = mx.judge(ref, {}, a, b, 2)
# the same pair converging to sin(t) + 1e-3: distance 1e-3 >> 4 * 7.5e-5 * 4/3
a2 = dict(ref, **{'bodies/position': (np.sin(t) + 1e-3 + 1e-4 * t)[:, None]})
b2 = dict(ref, **{'bodies/position': (np.sin(t) + 1e-3 + 2.5e-5 * t)[:, None]})
wrong, w = mx.judge(ref, {}, a2, b2, 2)
# events: crossings at 0.3 and 0.7 s; the h and h/2 runs 4e-4 and 1e-4 s
# off (order 2): within 4 * 3e-4 * 4/3; one crossing missed: fails
ev = dict(ref, **{'events/time': np.array([0.3, 0.7])})
ea = dict(ev, **{'events/time': np.array([0.3004, 0.7004])})
eb = dict(ev, **{'events/time': np.array([0.3001, 0.7001])})
egood, _ = mx.judge(ev, {}, ea, eb, 2)
emiss, ew = mx.judge(ev, {}, dict(ev, **{'events/time': np.array([0.3])}), eb, 2)
ok = good and not wrong and abs(w['t'] - 1) < 1e-12 and egood and not emiss
msg = 'good %s wrong %s worst %s; events %s, one missed %s (%s)' % (good, wrong, w, egood, emiss, ew)
"
pycheck "judge: orientations compared as rotations (q and -q) through a half turn" "
import matrix as mx
t = np.linspace(0, 1, 11)
def quat(th):  # about y by th, written with w >= 0 as mbsim does (mat_to_quat)
    q = np.stack([np.cos(th / 2), 0 * th, np.sin(th / 2), 0 * th], axis=1)
    return np.where(q[:, :1] < 0, -q, q)
# the angle reaches pi at t = 0.5 s; order 2, errors 1e-4 t and 2.5e-5 t
th = 2 * np.pi * t
ref = {'time': t, 'redundant': '', 'bodies/orientation': quat(th)}
a = dict(ref, **{'bodies/orientation': quat(th + 1e-4 * t)})
b = dict(ref, **{'bodies/orientation': quat(th + 2.5e-5 * t)})
flip = float(np.abs(a['bodies/orientation'] - ref['bodies/orientation']).max())
good, w = mx.judge(ref, {}, a, b, 2)
a2 = dict(ref, **{'bodies/orientation': quat(th + 1e-3 + 1e-4 * t)})
b2 = dict(ref, **{'bodies/orientation': quat(th + 1e-3 + 2.5e-5 * t)})
wrong, w2 = mx.judge(ref, {}, a2, b2, 2)
ok = flip > 1.9 and good and not wrong
msg = 'raw distance %g; half turn %s (%s); 1e-3 rad off %s (%s)' % (flip, good, w, wrong, w2)
"

# adams and bdf return every step h on a deck with a road (a tire), as with
# events: across a whole sample interval of 0.06 s bdf stepped over
# tests/tire/curb_push.yaml's 40 mm bump (the wheel stayed on the road,
# tyre effort 98.1 N where the wheel flies; docs/results/matrix.md)
pycheck "the matrix's plan: adams and bdf return every step on a road or with events" "
import matrix as mx, tempfile
w = tempfile.mkdtemp(dir='$tmp')
d = {n: mx.Deck('$top/' + n, w) for n in ('tests/tire/curb_push.yaml', 'decks/pendulum.yaml',
                                          'tests/matrix/events_record.yaml')}
ok = d['tests/tire/curb_push.yaml'].fine and not d['decks/pendulum.yaml'].fine and \
    d['tests/matrix/events_record.yaml'].fine
msg = str({k: v.fine for k, v in d.items()})
"

expect_rc 0 "run bushing_aniso.yaml" "$MBSIM" run "$top/tests/matrix/bushing_aniso.yaml" -q \
	-o "$tmp/bush.h5"
pycheck "bushing with unequal rotational stiffnesses: energy balance within 1e-8 J" "
with h5py.File('$tmp/bush.h5', 'r') as f:
    e = f['energy/kinetic'][:] + f['energy/potential'][:] - f['energy/nonconservative_work'][:]
err = float(np.abs(e - e[0]).max())
ok = err <= 1e-8
msg = 'K + V - W moved by %.3g J' % err
"

expect_rc 0 "run held_pendulum.yaml with bdf" "$MBSIM" run "$top/tests/statics/held_pendulum.yaml" \
	-q --set integrator.method=bdf -o "$tmp/held.h5"
pycheck "bdf with every coordinate driven: the driver moves the bar" "
with h5py.File('$tmp/held.h5', 'r') as f:
    q = f['joints/coordinate'][-1, 0]; r = f['bodies/position'][-1, 0]; t = f['time'][-1]
want = np.array([0.5 * np.cos(1.0), 0.0, -0.5 * np.sin(1.0)])
ok = t == 2 and abs(q - 1.0) <= 1e-9 and np.abs(r - want).max() <= 1e-9
msg = 't %g coordinate %.12g centroid %s' % (t, q, r)
"

# (docs/results/matrix.md finding 14) the tools judge in worker threads
# while other workers start mbsim; Debian's threaded OpenBLAS under numpy
# then now and then returned a product with rows missing (modes_check
# counted 8 zero crossings of a run with 15: the modes property of 5
# failed by 1.4e-3 on files that measure right alone).  A fresh
# interpreter, as randmodel.py and matrix.py run, must have numpy's
# OpenBLAS at one thread (2 on a 2-processor machine before the fix; a
# BLAS that is not OpenBLAS has no threads of its own here).
pycheck "tools: numpy's BLAS at one thread in randmodel.py and matrix.py (finding 14)" "
import subprocess
def threads(mod):
    code = '\n'.join(['import sys, ctypes', 'sys.path.insert(0, %r)' % '$top/tools',
                      'import ' + mod, 'import numpy.linalg',
                      'try:', '    n = ctypes.CDLL(\'libblas.so.3\').openblas_get_num_threads()',
                      'except (OSError, AttributeError):', '    n = 1', 'print(n)'])
    p = subprocess.run([sys.executable, '-c', code], capture_output=True, text=True)
    return p.stdout.strip() or p.stderr.strip()[-200:]
got = {m: threads(m) for m in ('randmodel', 'matrix')}
ok = all(v == '1' for v in got.values())
msg = 'BLAS threads: %s' % got
"

"$PY" "$top/tools/randmodel.py" --check --mbsim "$MBSIM" --seeds 0:50 --bodies 2:4 \
	--t-end 0.1 --rotate 1 --results "$tmp/rand" >"$tmp/out" 2>"$tmp/err"
rc=$?
if [ $rc -eq 0 ]; then
	ok "randmodel: $(tail -n 1 "$tmp/err")"
else
	bad "randmodel: 50 seeds (exit $rc)" "$(cat "$tmp/out")" "$(tail -n 1 "$tmp/err")"
fi
finish
