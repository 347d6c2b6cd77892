#!/usr/bin/python3
"""Tip of a cantilever under a dead tip load perpendicular to it: Reissner's
planar elastica (extensible, shear-deformable; the beam model of
mbsim's elements), solved as a boundary-value problem with SciPy, for
tests/t-statics2.sh: a reference independent of mbsim's finite elements
and its static solver.

The beam lies along x from the clamp at the origin, the load P acts along
w (downwards, -z).  With phi the section's rotation, t = (cos phi, sin
phi) and n = (-sin phi, cos phi) in (x, w), the internal force is P along
w everywhere, so its axial and shear parts are N = P sin phi, V = P cos
phi, and the bending moment is P (x(L) - x(s)):
  phi' = kappa,  kappa' = -P x' / EI,
  (x', w') = (1 + N / EA) t + (V / GA) n,
  phi(0) = x(0) = w(0) = 0,  kappa(L) = 0 (no moment at the free tip).
Solved by shooting on the root curvature kappa(0) = P x(L) / EI (in (0,
1.1 P L / EI]): scipy.integrate.solve_ivp (DOP853, rtol 1e-13, atol
1e-15) to s = L, scipy.optimize.brentq on kappa(L) = 0.
Prints x(L) and w(L) in m to 17 digits.

Usage: /usr/bin/python3 tools/elastica_ref.py P [L EA GA EI]
(defaults: the steel strip of tests/statics/cantilever.yaml, L = 1 m,
50 x 10 mm, E = 210e9 Pa, nu = 0.3: EA = E A, GA = k G A with Cowper's
k = 10 (1 + nu) / (12 + 11 nu), EI = E b h^3 / 12 = 875 N m^2).
"""
import sys

import numpy as np
from scipy.integrate import solve_ivp
from scipy.optimize import brentq


def steel():
    E, nu, b, h = 210e9, 0.3, 0.05, 0.01
    A = b * h
    k = 10 * (1 + nu) / (12 + 11 * nu)
    return E * A, k * E / (2 * (1 + nu)) * A, E * b * h**3 / 12


def shoot(k0, P, L, EA, GA, EI):
    def f(_, y):
        phi, kap = y[0], y[1]
        c, sn = np.cos(phi), np.sin(phi)
        N, V = P * sn, P * c
        xp = (1 + N / EA) * c - V / GA * sn
        wp = (1 + N / EA) * sn + V / GA * c
        return [kap, -P * xp / EI, xp, wp]

    r = solve_ivp(f, (0, L), [0, k0, 0, 0], method="DOP853", rtol=1e-13, atol=1e-15)
    return r.y[:, -1]


def tip(P, L, EA, GA, EI):
    k0 = brentq(lambda k: shoot(k, P, L, EA, GA, EI)[1], 0, 1.1 * P * L / EI, xtol=1e-15,
                rtol=4 * np.finfo(float).eps, maxiter=500)
    y = shoot(k0, P, L, EA, GA, EI)
    return y[2], y[3]


def main():
    a = [float(v) for v in sys.argv[1:]]
    if len(a) not in (1, 5):
        sys.exit(__doc__)
    P = a[0]
    L, EA, GA, EI = a[1:] if len(a) == 5 else (1.0,) + steel()
    x, w = tip(P, L, EA, GA, EI)
    print("%.17g %.17g" % (x, w))


if __name__ == "__main__":
    main()
