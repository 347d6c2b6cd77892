#!/usr/bin/python3
"""spherical_top_ref.py - reference solution of decks/spherical_top.yaml.

An independent route: the rotation of the top about its fixed pivot, three
degrees of freedom, not mbsim's absolute coordinates with a spherical
joint.  State: the unit quaternion q (w, x, y, z) of the body-to-global
rotation A and the body-frame angular velocity w.

  J_O w' + w x J_O w = p x (A^T m g),     q' = q (0, w) / 2,

p = (0, 0, l) the centroid seen from the pivot in the body frame, J_O =
J + m (|p|^2 I - p p^T) the inertia about the pivot (parallel axes), g =
(0, 0, -9.81).  Integrated with SciPy's DOP853 at rtol = atol = 1e-13;
the centroid is r = A p, its velocity v = A (w x p).

Usage: /usr/bin/python3 tools/spherical_top_ref.py [-o OUT.h5] [--dt 1e-3]
           [--t-end 1] [--rtol 1e-13] [--max-step 1e-3]
Writes /time, /bodies/names = [top] and /bodies/{position,velocity,orientation,
angular_velocity} in mbsim's layout (man/mbsim-output.5), root attributes
status = "complete" and integrator = "DOP853 ...".

Self-checks (exit 1 when one fails): the energy
  E = w.J_O w / 2 + m g.(A p)  (g.(A p) = 9.81 r_z)
and the vertical component of the angular momentum about the pivot
(A J_O w)_z are first integrals; each must stay within 1e-9 of its
initial value relative to the largest term (measured drift: see the
message), and |q| within 1e-10 of 1.
"""
import sys

import numpy as np
from scipy.integrate import solve_ivp

from mbsimlib import reference_file, reference_parser, sample_times, write_bodies

# decks/spherical_top.yaml
M, G, L = 2.0, 9.81, 0.3
JC = np.diag([0.04, 0.04, 0.06])
P = np.array([0.0, 0.0, L])
JO = JC + M * (P @ P * np.eye(3) - np.outer(P, P))
JOI = np.linalg.inv(JO)
TH0 = 0.5
W0 = np.array([0.4, -0.6, 25.0])


def rot(q):
    w, x, y, z = q / np.linalg.norm(q)
    return np.array([[1 - 2 * (y * y + z * z), 2 * (x * y - w * z), 2 * (x * z + w * y)],
                     [2 * (x * y + w * z), 1 - 2 * (x * x + z * z), 2 * (y * z - w * x)],
                     [2 * (x * z - w * y), 2 * (y * z + w * x), 1 - 2 * (x * x + y * y)]])


def rhs(_t, s):
    q, w = s[:4], s[4:]
    a = rot(q)
    torque = np.cross(P, a.T @ np.array([0.0, 0.0, -M * G]))
    wd = JOI @ (torque - np.cross(w, JO @ w))
    qw, qx, qy, qz = q
    qd = 0.5 * np.array([-qx * w[0] - qy * w[1] - qz * w[2],
                         qw * w[0] + qy * w[2] - qz * w[1],
                         qw * w[1] + qz * w[0] - qx * w[2],
                         qw * w[2] + qx * w[1] - qy * w[0]])
    return np.concatenate([qd, wd])


def invariants(s):
    """E, (A J_O w)_z and |q| at every sample (columns of s)."""
    e, lz, nq = [], [], []
    for col in s.T:
        q, w = col[:4], col[4:]
        a = rot(q)
        e.append(0.5 * w @ JO @ w + M * G * (a @ P)[2])
        lz.append((a @ JO @ w)[2])
        nq.append(np.linalg.norm(q))
    return np.array(e), np.array(lz), np.array(nq)


def main():
    ap = reference_parser(__doc__, "spherical_top_ref.h5", dt=1e-3, t_end=1.0)
    ap.add_argument("--max-step", type=float, default=1e-3)
    a = ap.parse_args()
    t = sample_times(a.t_end, a.dt)
    q0 = np.array([np.cos(TH0 / 2), np.sin(TH0 / 2), 0.0, 0.0])	# axis x, angle th0
    sol = solve_ivp(rhs, (0.0, a.t_end), np.concatenate([q0, W0]), method="DOP853",
                    t_eval=t, rtol=a.rtol, atol=a.rtol, max_step=a.max_step)
    if not sol.success:
        sys.exit("spherical_top_ref: integration failed: " + sol.message)
    e, lz, nq = invariants(sol.y)
    de = np.abs(e - e[0]).max() / np.abs(e).max()
    dl = np.abs(lz - lz[0]).max() / np.abs(lz).max()
    dq = np.abs(nq - 1.0).max()
    if not (de <= 1e-9 and dl <= 1e-9 and dq <= 1e-10):
        sys.exit("spherical_top_ref: invariants drift: energy %.3g, L_z %.3g (relative, limit 1e-9), "
                 "|q| - 1 %.3g (limit 1e-10)" % (de, dl, dq))
    n = len(sol.t)
    pos, vel, quat = np.empty((n, 3)), np.empty((n, 3)), np.empty((n, 4))
    for i, col in enumerate(sol.y.T):
        q, w = col[:4] / np.linalg.norm(col[:4]), col[4:]
        r = rot(q)
        pos[i] = r @ P
        vel[i] = r @ np.cross(w, P)
        quat[i] = q if q[0] >= 0 else -q
    info = "DOP853 rtol=atol=%g max_step=%g (rotation about the pivot)" % (a.rtol, a.max_step)
    with reference_file(a.output, sol.t, info, "decks/spherical_top.yaml (pivot equations)") as f:
        write_bodies(f, ["top"], pos[:, None], vel[:, None], quat[:, None],
                     sol.y[4:].T.copy()[:, None])
    print("spherical_top_ref: %d samples to t = %g written to %s (%d rhs evaluations); drift of "
          "energy %.2g, L_z %.2g (relative), |q| - 1 %.2g" % (n, a.t_end, a.output, sol.nfev, de,
                                                          dl, dq), file=sys.stderr)


if __name__ == "__main__":
    main()
