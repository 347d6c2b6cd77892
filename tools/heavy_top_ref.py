#!/usr/bin/python3
"""heavy_top_ref.py - reference solution of decks/heavy_top.yaml.

An independent route: the Lagrange top in its minimal coordinates, the
z-x-z Euler angles (psi precession, theta nutation, phi spin) of the body
frame, A = Rz(psi) Rx(theta) Rz(phi), with the Lagrangian

    L = 1/2 J1' (theta'^2 + psi'^2 sin^2 theta) + 1/2 J3 (phi' + psi' cos theta)^2
        - m g l cos theta,            J1' = J1 + m l^2 (about the pivot)

(Goldstein, Classical Mechanics, §5.7).  psi and phi are cyclic: p_phi =
J3 (phi' + psi' cos theta) and p_psi = J1' psi' sin^2 theta + p_phi cos
theta are constants, and the state (psi, theta, phi, theta') obeys

    psi'   = (p_psi - p_phi cos theta) / (J1' sin^2 theta)
    phi'   = p_phi / J3 - psi' cos theta
    theta'' = psi'^2 sin theta cos theta - p_phi psi' sin theta / J1' + m g l sin theta / J1'

integrated with SciPy's DOP853 (rtol = atol = 1e-13 by default).  Nothing
of mbsim's absolute coordinates, constraints or rotation updates is used.
theta stays in [0.30, 0.52] rad, far from the Euler angles' singularity.

The parameters are read from the deck's `parameters` block (m, l, J1, J3,
tilt, spin) and gravity is (0, 0, -g), g = 9.81, as in the deck.

Written in mbsim's HDF5 layout (mbsimlib.write_bodies) so that `mbsim
converge --reference FILE.h5` and `mbsim compare` read it:
  /time; /bodies/names = [top]; /bodies/{position,velocity,orientation,
  angular_velocity} of shape (N, 1, 3 or 4)
  (centroid, global; quaternion (w, x, y, z) body to global; body-frame
  angular velocity); /energy/total (kinetic + potential, J).
Checks before writing: the energy of the samples is constant to the
tolerance's bound (see energy check in main), and exits 1 otherwise.

Usage: /usr/bin/python3 tools/heavy_top_ref.py [-o OUT.h5] [--dt 1e-3]
           [--t-end 10] [--rtol 1e-13] [--deck decks/heavy_top.yaml]
"""
import os
import sys

import numpy as np
import yaml
from scipy.integrate import solve_ivp

from mbsimlib import TOP, reference_file, reference_parser, sample_times, write_bodies

G = 9.81


def params(deck):
    with open(deck) as fh:
        p = yaml.safe_load(fh)["parameters"]
    return {k: float(p[k]) for k in ("m", "l", "J1", "J3", "tilt", "spin")}


class Top:
    def __init__(self, p):
        self.m, self.l, self.J1, self.J3 = p["m"], p["l"], p["J1"], p["J3"]
        self.J1p = self.J1 + self.m * self.l ** 2
        self.mgl = self.m * G * self.l
        # initial state: theta = tilt, psi = phi = 0, omega_body = (0, 0, spin)
        self.th0 = p["tilt"]
        self.pphi = self.J3 * p["spin"]
        self.ppsi = self.pphi * np.cos(self.th0)

    def rates(self, th):
        s, c = np.sin(th), np.cos(th)
        dpsi = (self.ppsi - self.pphi * c) / (self.J1p * s * s)
        dphi = self.pphi / self.J3 - dpsi * c
        return dpsi, dphi

    def rhs(self, _t, y):
        _psi, th, _phi, dth = y
        dpsi, dphi = self.rates(th)
        s, c = np.sin(th), np.cos(th)
        ddth = dpsi * dpsi * s * c - self.pphi * dpsi * s / self.J1p + self.mgl * s / self.J1p
        return [dpsi, dth, dphi, ddth]

    def energy(self, y):
        _psi, th, _phi, dth = y
        dpsi, dphi = self.rates(th)
        w3 = dphi + dpsi * np.cos(th)
        return (0.5 * self.J1p * (dth ** 2 + (dpsi * np.sin(th)) ** 2) + 0.5 * self.J3 * w3 ** 2
                + self.mgl * np.cos(th))


def rot(psi, th, phi):
    def rz(a):
        c, s = np.cos(a), np.sin(a)
        return np.array([[c, -s, 0.0], [s, c, 0.0], [0.0, 0.0, 1.0]])
    c, s = np.cos(th), np.sin(th)
    rx = np.array([[1.0, 0.0, 0.0], [0.0, c, -s], [0.0, s, c]])
    return rz(psi) @ rx @ rz(phi)


def mat_to_quat(r):
    tr = np.trace(r)
    if tr > 0:
        s = 2.0 * np.sqrt(tr + 1.0)
        q = [0.25 * s, (r[2, 1] - r[1, 2]) / s, (r[0, 2] - r[2, 0]) / s, (r[1, 0] - r[0, 1]) / s]
    else:
        i = int(np.argmax(np.diag(r)))
        j, k = (i + 1) % 3, (i + 2) % 3
        s = 2.0 * np.sqrt(1.0 + r[i, i] - r[j, j] - r[k, k])
        q = [0.0] * 4
        q[0] = (r[k, j] - r[j, k]) / s
        q[1 + i] = 0.25 * s
        q[1 + j] = (r[j, i] + r[i, j]) / s
        q[1 + k] = (r[k, i] + r[i, k]) / s
    q = np.array(q)
    return q if q[0] >= 0 else -q


def write(path, t, y, top, info, deck):
    n = len(t)
    pos, vel, quat, om = (np.empty((n, 3)), np.empty((n, 3)), np.empty((n, 4)), np.empty((n, 3)))
    for i in range(n):
        psi, th, phi, dth = y[:, i]
        dpsi, dphi = top.rates(th)
        a = rot(psi, th, phi)
        w_glob = np.array([0.0, 0.0, dpsi])                       # about global z
        w_glob += dth * rot(psi, 0.0, 0.0)[:, 0]                  # about the line of nodes
        w_glob += dphi * a[:, 2]                                  # about the body axis
        pos[i] = top.l * a[:, 2]
        vel[i] = np.cross(w_glob, pos[i])
        quat[i] = mat_to_quat(a)
        om[i] = a.T @ w_glob
    with reference_file(path, t, info, deck + " (Euler-angle ODE of the Lagrange top)") as f:
        write_bodies(f, ["top"], pos[:, None], vel[:, None], quat[:, None], om[:, None])
        f.create_dataset("energy/total", data=top.energy(y)).attrs["units"] = "J"


def main():
    ap = reference_parser(__doc__, "heavy_top_ref.h5", dt=1e-3, t_end=10.0)
    ap.add_argument("--deck", default=os.path.join(TOP, "decks", "heavy_top.yaml"))
    a = ap.parse_args()
    top = Top(params(a.deck))
    t = sample_times(a.t_end, a.dt)
    y0 = [0.0, top.th0, 0.0, 0.0]
    sol = solve_ivp(top.rhs, (0.0, a.t_end), y0, method="DOP853", t_eval=t,
                    rtol=a.rtol, atol=a.rtol, max_step=a.dt)
    if not sol.success:
        sys.exit("heavy_top_ref: integration failed: " + sol.message)
    # Energy (not used by the equations: psi', phi' come from the momenta).
    # Bound: DOP853 accepts local errors up to ~ 2 (atol + rtol |y|) per
    # component; E's gradient is at most |dE/dtheta| + |dE/dtheta'| ~
    # mgl + J1' |theta'| + p_phi |psi'| (< 10 J here), so nfev/12 steps
    # change E by at most nfev/12 * 10 * 2 * (atol + rtol * 50)
    e = top.energy(sol.y)
    drift = np.abs(e - e[0]).max()
    bound = sol.nfev / 12 * 10 * 2 * (a.rtol + a.rtol * 50)
    if not drift <= bound:
        sys.exit("heavy_top_ref: energy drift %.3g J > %.3g J allowed by the tolerances"
                 % (drift, bound))
    info = "DOP853 rtol=atol=%g max_step=%g (Euler angles)" % (a.rtol, a.dt)
    write(a.output, sol.t, sol.y, top, info, os.path.relpath(a.deck, TOP))
    print("heavy_top_ref: %d samples to t = %g written to %s (%d rhs evaluations); theta in "
          "[%.4f, %.4f]; energy %.6f J, drift %.2g J <= %.2g J"
          % (len(t), a.t_end, a.output, sol.nfev, sol.y[1].min(), sol.y[1].max(), e[0], drift,
             bound), file=sys.stderr)


if __name__ == "__main__":
    main()
