#!/bin/sh
# t-consistency.sh - results that must agree with each other or with an
# exact solution, across schemes and commands.
#
#   MBSIM=build/mbsim sh tests/t-consistency.sh
#
#   1. fi on tests/forces/crank_rocker_pid.yaml (a PID motor whose
#      damping gain outweighs the crank's inertia, h kd = 0.01 against
#      1.7e-3 kg m^2): completes at h = 1e-3 and 5e-4 (it stopped at step 0
#      in 50 iterations while its Newton matrix lacked the force Jacobian),
#      and its crank and rocker angles converge to lms2's at h = 1e-4 at
#      first order: the difference halves with the step (ratio within
#      [1.8, 2.2]; measured 2.00), and is below 2e-3 rad at 1e-3
#      (measured 9.3e-4 rad);
# Prints "N passed, N failed"; exits 1 on any failure.

# shellcheck source=tests/lib.sh
. "$(dirname "$0")/lib.sh"

fd=$top/tests/forces

# 1. fi's Newton matrix with the force Jacobian
cr=$fd/crank_rocker_pid.yaml
"$MBSIM" run "$cr" --set integrator.method=lms2 --set integrator.step=1e-4 \
	-o "$tmp/cr-ref.h5" >/dev/null 2>"$tmp/err" || bad "crank-rocker lms2 1e-4"
for h in 1e-3 5e-4; do
	if "$MBSIM" run "$cr" --set integrator.step=$h -o "$tmp/cr-fi$h.h5" >/dev/null 2>"$tmp/err"; then
		ok "crank-rocker: fi completes at h = $h"
	else
		bad "crank-rocker: fi completes at h = $h"
	fi
done
pycheck "crank-rocker: fi converges to lms2 at first order" "
def diff(p):
    with h5py.File('$tmp/cr-ref.h5') as a, h5py.File(p) as b:
        ta, tb = series(a, 'time'), series(b, 'time')
        return max(np.abs(np.interp(tb, ta, series(a, 'joints/%s/coordinate' % j)) -
                          series(b, 'joints/%s/coordinate' % j)).max() for j in ('o2', 'o4'))
d1, d2 = diff('$tmp/cr-fi1e-3.h5'), diff('$tmp/cr-fi5e-4.h5')
ok = d1 < 2e-3 and 1.8 <= d1 / d2 <= 2.2
msg = 'differences %g (1e-3), %g (5e-4)' % (d1, d2)
print(msg)"

finish
