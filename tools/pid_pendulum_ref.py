#!/usr/bin/python3
"""pid_pendulum_ref.py - reference solution of a bar held by a PID motor.

tests/matrix/pid_pendulum.yaml: a uniform bar of mass m and length L pinned
at one end, hanging under gravity g, with a motor at the pin that follows
the target r(t), a cosine ramp from 0 to r1 over [0, T1] (constant after),
by u = kp e + kd e' + ki z, e = r - theta, z' = e.  With I = m L^2 / 3
about the pin the minimal equations are

    theta'' = (u - m g (L/2) sin theta) / I,   z' = r(t) - theta,

theta measured from the downward vertical.  This script integrates them
with SciPy's DOP853 at rtol = atol = 1e-13 (--rtol) - nothing of mbsim in it
- on [0, T1] and [T1, t_end] apart (r'' jumps at T1), and writes, in
mbsim's HDF5 layout (man/mbsim-output.5):
  /time
  /joints/names, /joints/coordinate   theta (N, 1), the pin 'pin'
  /forces/names, /forces/effort       u (N, 1), the motor 'servo'
  /forces/rate                        theta' (N, 1)
  /integral                           z (N)
Prints the largest |u| on stderr.
"""
import sys

import numpy as np
from scipy.integrate import solve_ivp

from mbsimlib import reference_file, reference_parser, sample_times, _named, _series


def main():
    ap = reference_parser(__doc__, "pid_pendulum_ref.h5", 0.01, 2.0)
    ap.add_argument("--mass", type=float, default=1.0, help="kg")
    ap.add_argument("--length", type=float, default=1.0, help="m")
    ap.add_argument("--gravity", type=float, default=9.81, help="m/s^2")
    ap.add_argument("--kp", type=float, default=200.0, help="N m/rad")
    ap.add_argument("--kd", type=float, default=10.0, help="N m s/rad")
    ap.add_argument("--ki", type=float, default=500.0, help="N m/(rad s)")
    ap.add_argument("--to", type=float, default=1.0, help="r1, rad")
    ap.add_argument("--ramp-end", type=float, default=1.0, help="T1, s")
    a = ap.parse_args()
    m, L, g, r1, T1 = a.mass, a.length, a.gravity, a.to, a.ramp_end
    inertia = m * L * L / 3.0

    def target(t):
        if t >= T1:
            return r1, 0.0
        w = np.pi / T1
        return 0.5 * r1 * (1.0 - np.cos(w * t)), 0.5 * r1 * w * np.sin(w * t)

    def effort(t, y):
        th, dth, z = y
        r, rd = target(t)
        return a.kp * (r - th) + a.kd * (rd - dth) + a.ki * z

    def rhs(t, y):
        th, dth, z = y
        return [dth, (effort(t, y) - m * g * 0.5 * L * np.sin(th)) / inertia, target(t)[0] - th]

    t = sample_times(a.t_end, a.dt)
    y0, parts = [0.0, 0.0, 0.0], []
    for lo, hi in ((0.0, min(T1, a.t_end)), (min(T1, a.t_end), a.t_end)):
        if hi <= lo:
            continue
        tk = t[(t >= lo) & (t <= hi)] if not parts else t[(t > lo) & (t <= hi)]
        sol = solve_ivp(rhs, (lo, hi), y0, method="DOP853", t_eval=tk, rtol=a.rtol,
                        atol=a.rtol, dense_output=True)
        if not sol.success:
            sys.exit("pid_pendulum_ref.py: DOP853 failed: %s" % sol.message)
        parts.append(sol.y)
        y0 = sol.sol(hi)
    Y = np.concatenate(parts, axis=1)
    u = np.array([effort(tk, yk) for tk, yk in zip(t, Y.T)])
    deck = "pid_pendulum_ref.py %s" % " ".join(sys.argv[1:])
    with reference_file(a.output, t, "pid_pendulum_ref.py (DOP853, rtol %g)" % a.rtol,
                        deck) as f:
        _named(f, "joints", ["pin"])
        _series(f, "joints/coordinate", Y[0][:, None], "rad", "joints")
        _named(f, "forces", ["servo"])
        _series(f, "forces/effort", u[:, None], "N m", "forces")
        _series(f, "forces/rate", Y[1][:, None], "rad/s", "forces")
        f.create_dataset("integral", data=Y[2])
    print("pid_pendulum_ref.py: %d samples to t = %g s, max |u| = %.6g N m" %
          (len(t), t[-1], np.max(np.abs(u))), file=sys.stderr)


if __name__ == "__main__":
    main()
