#!/usr/bin/python3
"""pendulum_ref.py - reference solution of a point mass on a massless link.

The particle decks (decks/stiff_pendulum.yaml, tests/t-particles.sh) model
a mass m on a massless link of length L from a pivot at the origin, in the
x-y plane, gravity g along -y, with a torque T(t) = T0 sin(w t) about +z
on the link.  Its one-degree-of-freedom equation is the Meccanica paper (doi:10.1007/s11012-021-01433-0) eq. 13,

    m L^2 theta'' + m g L sin(theta) - T(t) = 0,

theta measured from the downward vertical, counterclockwise about +z, so
the mass is at (L sin theta, -L cos theta, 0).  This script integrates it
with SciPy's DOP853 at rtol = atol = 1e-13 (--rtol) - nothing of mbsim in
it - and writes, in mbsim's HDF5 layout (man/mbsim-output.5), so that
`mbsim compare` and `mbsim converge --reference FILE.h5` read it:
  /time
  /particles/<name>/{position,velocity,acceleration}   the mass
  /points/<name>/{position,velocity,acceleration}      the same, as a point
  /energy/{kinetic,potential}   1/2 m L^2 theta'^2 and m g y
  /theta                        theta, theta' (N, 2)
Prints the largest |theta| on stderr.
"""
import sys

import numpy as np
from scipy.integrate import solve_ivp

from mbsimlib import reference_file, reference_parser, sample_times, _named, _series


def main():
    ap = reference_parser(__doc__, "pendulum_ref.h5", 0.01, 10.0)
    ap.add_argument("--mass", type=float, default=1.0, help="kg")
    ap.add_argument("--length", type=float, default=1.0, help="m")
    ap.add_argument("--gravity", type=float, default=9.8, help="m/s^2 along -y")
    ap.add_argument("--theta0", type=float, default=0.0, help="rad")
    ap.add_argument("--omega0", type=float, default=0.0, help="rad/s")
    ap.add_argument("--torque", type=float, default=0.0, help="T0, N m")
    ap.add_argument("--torque-omega", type=float, default=0.0, help="w of T0 sin(w t), rad/s")
    ap.add_argument("--name", default="bob", help="particle (and point) name")
    a = ap.parse_args()
    m, L, g, T0, w = a.mass, a.length, a.gravity, a.torque, a.torque_omega

    def rhs(t, y):
        th, dth = y
        return [dth, (T0 * np.sin(w * t) - m * g * L * np.sin(th)) / (m * L * L)]

    t = sample_times(a.t_end, a.dt)
    sol = solve_ivp(rhs, (t[0], t[-1]), [a.theta0, a.omega0], method="DOP853",
                    t_eval=t, rtol=a.rtol, atol=a.rtol)
    if not sol.success:
        sys.exit("pendulum_ref.py: DOP853 failed: %s" % sol.message)
    th, dth = sol.y
    ddth = np.array([rhs(tk, yk)[1] for tk, yk in zip(t, sol.y.T)])
    s, c, z = np.sin(th), np.cos(th), np.zeros_like(th)
    pos = np.stack([L * s, -L * c, z], axis=1)[:, None, :]
    vel = np.stack([L * c * dth, L * s * dth, z], axis=1)[:, None, :]
    acc = np.stack([L * (c * ddth - s * dth ** 2), L * (s * ddth + c * dth ** 2), z],
                   axis=1)[:, None, :]
    deck = "pendulum_ref.py %s" % " ".join(sys.argv[1:])
    with reference_file(a.output, t, "pendulum_ref.py (DOP853, rtol %g)" % a.rtol, deck) as f:
        for group in ("particles", "points"):
            _named(f, group, [a.name])
            for qty, data, units in (("position", pos, "m"), ("velocity", vel, "m/s"),
                                     ("acceleration", acc, "m/s^2")):
                _series(f, group + "/" + qty, data, units, group)
        f.create_dataset("energy/kinetic", data=0.5 * m * (L * dth) ** 2)
        f.create_dataset("energy/potential", data=-m * g * L * c)
        f.create_dataset("theta", data=np.stack([th, dth], axis=1))
    print("pendulum_ref.py: %d samples to t = %g s, max |theta| = %.6g rad" %
          (len(t), t[-1], np.max(np.abs(th))), file=sys.stderr)


if __name__ == "__main__":
    main()
