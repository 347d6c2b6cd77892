#!/usr/bin/python3
"""double_pendulum_ref.py - reference solution of decks/double_pendulum.yaml.

An independent route, as Fang et al. (2023) §3.1 took for Fig. 2a: the planar
double pendulum in minimal coordinates (two absolute angles), integrated
with SciPy's 8th-order Runge-Kutta (DOP853) at tight tolerances, written
in mbsim's HDF5 layout (man/mbsim-output.5) so that `mbsim converge
--reference FILE.h5` and `mbsim compare` can read it.

Model (decks/double_pendulum.yaml, with mbsim's inertia):
  bar k: length l_k, mass m_k, centroidal inertia about the joint axis
  (global x) I_k = m_k (w^2 + l_k^2) / 12 -- the deck's J_yy = J_zz, which
  includes the w^2 term the paper's slender-rod ODE left out.
  Bar 1 pinned at the origin, bar 2 pinned to the far end of bar 1; both
  joint axes along global x, motion in the y-z plane, gravity -g z.
  Angles th_k from the downward vertical, positive from -z towards +y:
  unit vector along bar k  e_k = (0, sin th_k, -cos th_k).
  Initially th1 = pi/2 (bar 1 horizontal along +y), th2 = 0 (bar 2 down),
  at rest.
  Centroids: c1 = (l1/2) e1, c2 = l1 e1 + (l2/2) e2.

Equations (Lagrange, absolute angles):
  [a11, a12 cos d; a12 cos d, a22] [th1''; th2''] =
      [-a12 sin d th2'^2 - b1 sin th1; a12 sin d th1'^2 - b2 sin th2],
  d = th1 - th2,
  a11 = m1 l1^2/4 + I1 + m2 l1^2,  a22 = m2 l2^2/4 + I2,  a12 = m2 l1 l2/2,
  b1 = (m1/2 + m2) g l1,  b2 = m2 g l2/2.

Usage: /usr/bin/python3 tools/double_pendulum_ref.py [-o OUT.h5]
           [--dt 1e-3] [--t-end 8] [--rtol 1e-13] [--max-step 1e-3]
Writes /time, /bodies/bar{1,2}/{position,velocity} (global, m and m/s),
/bodies/bar{1,2}/{orientation,angular_velocity} and root attributes
status = "complete", integrator = "DOP853 ...".

Self-check: the ODE is conservative, so the energy
  E = a11 th1'^2/2 + a12 cos d th1' th2' + a22 th2'^2/2 - b1 cos th1 - b2 cos th2
must stay constant up to what the integration error allows (energy_bound);
the script exits 1 if it does not.
"""
import sys

import numpy as np
from scipy.integrate import solve_ivp

from mbsimlib import reference_file, reference_parser, sample_times, write_bodies

# Deck data (decks/double_pendulum.yaml; seed000-models.md §2.1).
L, W, RHO, G = 2.0, 0.05, 7800.0, 9.81
L1, L2 = 2 * L, L
M1, M2 = RHO * L1 * W * W, RHO * L2 * W * W
I1 = M1 * (W * W + L1 * L1) / 12.0
I2 = M2 * (W * W + L2 * L2) / 12.0
A11 = M1 * L1 * L1 / 4 + I1 + M2 * L1 * L1
A22 = M2 * L2 * L2 / 4 + I2
A12 = M2 * L1 * L2 / 2
B1 = (M1 / 2 + M2) * G * L1
B2 = M2 * G * L2 / 2


def rhs(_t, y):
    th1, th2, w1, w2 = y
    d = th1 - th2
    c, s = np.cos(d), np.sin(d)
    m = np.array([[A11, A12 * c], [A12 * c, A22]])
    f = np.array([-A12 * s * w2 * w2 - B1 * np.sin(th1),
                  A12 * s * w1 * w1 - B2 * np.sin(th2)])
    acc = np.linalg.solve(m, f)
    return [w1, w2, acc[0], acc[1]]


def energy(y):
    """E and |dE/dy_i| per state component (4 x N) of the samples y."""
    th1, th2, w1, w2 = y
    c, s = np.cos(th1 - th2), np.sin(th1 - th2)
    e = (0.5 * A11 * w1 * w1 + A12 * c * w1 * w2 + 0.5 * A22 * w2 * w2
         - B1 * np.cos(th1) - B2 * np.cos(th2))
    grad = np.abs([B1 * np.sin(th1) - A12 * s * w1 * w2, B2 * np.sin(th2) + A12 * s * w1 * w2,
                   A11 * w1 + A12 * c * w2, A22 * w2 + A12 * c * w1])
    return e, grad


def energy_bound(grad, y, nfev, rtol, atol):
    """Largest energy change the integration may make.  DOP853 accepts a
    step when the rms over the 4 components of err_i / (atol + rtol |y_i|)
    is <= 1, so each local error is at most 2 (atol + rtol |y_i|) and
    changes E by at most sum_i |dE/dy_i| 2 (atol + rtol |y_i|).  Each step
    costs at least 12 evaluations of rhs, so there are at most nfev / 12
    steps; the errors add up at worst linearly.  The largest per-step
    change over the samples stands for every step (E varies smoothly).
    GRAD: |dE/dy_i| at the samples y, from energy()."""
    per_step = (grad * 2 * (atol + rtol * np.abs(y))).sum(axis=0).max()
    return nfev / 12 * per_step


def quat_x(th):
    """Unit quaternion (w,x,y,z) of body-to-global rotation of a bar whose
    body x axis is e(th) = (0, sin th, -cos th) and body z axis global +x.

    The deck's initial frames: bar 1 A = [[0,0,1],[1,0,0],[0,1,0]] at
    th = pi/2 and bar 2 A = [[0,0,1],[0,1,0],[-1,0,0]] at th = 0, i.e.
    A(th) = Rx(th) A(0) with A(0) the bar-2 frame: columns x = (0,0,-1)
    rotated about global x by th."""
    a0 = np.array([[0.0, 0.0, 1.0], [0.0, 1.0, 0.0], [-1.0, 0.0, 0.0]])
    out = np.empty((len(th), 4))
    for i, t in enumerate(th):
        c, s = np.cos(t), np.sin(t)
        rx = np.array([[1.0, 0.0, 0.0], [0.0, c, -s], [0.0, s, c]])
        out[i] = mat_to_quat(rx @ a0)
    return out


def mat_to_quat(r):
    tr = r[0, 0] + r[1, 1] + r[2, 2]
    if tr > 0:
        s = 2.0 * np.sqrt(tr + 1.0)
        q = [0.25 * s, (r[2, 1] - r[1, 2]) / s, (r[0, 2] - r[2, 0]) / s, (r[1, 0] - r[0, 1]) / s]
    else:
        i = int(np.argmax([r[0, 0], r[1, 1], r[2, 2]]))
        j, k = (i + 1) % 3, (i + 2) % 3
        s = 2.0 * np.sqrt(1.0 + r[i, i] - r[j, j] - r[k, k])
        q = [0.0] * 4
        q[0] = (r[k, j] - r[j, k]) / s
        q[1 + i] = 0.25 * s
        q[1 + j] = (r[j, i] + r[i, j]) / s
        q[1 + k] = (r[k, i] + r[i, k]) / s
    q = np.array(q)
    return q if q[0] >= 0 else -q


def write(path, t, y, info):
    th1, th2, w1, w2 = y
    e1 = np.stack([0 * th1, np.sin(th1), -np.cos(th1)], axis=1)
    e2 = np.stack([0 * th2, np.sin(th2), -np.cos(th2)], axis=1)
    de1 = np.stack([0 * th1, np.cos(th1), np.sin(th1)], axis=1) * w1[:, None]
    de2 = np.stack([0 * th2, np.cos(th2), np.sin(th2)], axis=1) * w2[:, None]
    bodies = {
        "bar1": (0.5 * L1 * e1, 0.5 * L1 * de1, th1, w1),
        "bar2": (L1 * e1 + 0.5 * L2 * e2, L1 * de1 + 0.5 * L2 * de2, th2, w2),
    }
    with reference_file(path, t, info, "decks/double_pendulum.yaml (minimal-coordinate ODE)") as f:
        # body z is global x, so the angular velocity is (0, 0, th') in the body frame
        b = list(bodies.values())
        write_bodies(f, list(bodies), np.stack([x[0] for x in b], axis=1),
                     np.stack([x[1] for x in b], axis=1), np.stack([quat_x(x[2]) for x in b], axis=1),
                     np.stack([np.stack([0 * x[3], 0 * x[3], x[3]], axis=1) for x in b], axis=1))


def main():
    ap = reference_parser(__doc__, "double_pendulum_ref.h5", dt=1e-3, t_end=8.0)
    # At most the default sample interval, so that every sample lies within
    # one step of DOP853's dense output.  Not needed for accuracy: without a
    # cap (~700 steps instead of 8000 over 8 s) the samples move by 2.6e-12 m,
    # measured, far below any error `mbsim converge` reports against them.
    ap.add_argument("--max-step", type=float, default=1e-3)
    a = ap.parse_args()
    t = sample_times(a.t_end, a.dt)
    sol = solve_ivp(rhs, (0.0, a.t_end), [np.pi / 2, 0.0, 0.0, 0.0], method="DOP853",
                    t_eval=t, rtol=a.rtol, atol=a.rtol, max_step=a.max_step)
    if not sol.success:
        sys.exit("double_pendulum_ref: integration failed: " + sol.message)
    # Energy conservation (rtol = atol = 1e-13 over 8 s: bound 2.6e-5 J;
    # drift measured 4.0e-11 J, round-off of E ~ 3e3 J over 8000 steps;
    # b1 in rhs off by one part in 1e4 drifts by 0.3 J)
    e, grad = energy(sol.y)
    drift = np.abs(e - e[0]).max()
    bound = energy_bound(grad, sol.y, sol.nfev, a.rtol, a.rtol)
    if not drift <= bound:
        sys.exit("double_pendulum_ref: energy drift %.3g J > %.3g J allowed by the tolerances"
                 % (drift, bound))
    info = "DOP853 rtol=atol=%g max_step=%g (minimal coordinates)" % (a.rtol, a.max_step)
    write(a.output, sol.t, sol.y, info)
    print("double_pendulum_ref: %d samples to t = %g written to %s (%d rhs evaluations); "
          "energy drift %.2g J <= %.2g J" % (len(t), a.t_end, a.output, sol.nfev, drift, bound),
          file=sys.stderr)


if __name__ == "__main__":
    main()
