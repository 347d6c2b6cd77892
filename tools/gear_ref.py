#!/usr/bin/python3
"""gear_ref.py - reference motions of the coupling decks of tests/gears/.

Each model reduces to one coordinate (nothing of mbsim in it):

  gear_train.yaml   theta_A of the arm: I theta'' = -m g l cos theta,
                    I = 0.73 kg m^2 (the arm's 0.30 about its shaft, and
                    2^2 0.04 + 3^2 0.03 of the discs through the ratios),
                    m = 1 kg, l = 0.5 m, theta(0) = 0, theta'(0) = 6 rad/s;
                    SciPy's DOP853 at rtol = atol = 1e-13.
  rack_pinion.yaml  the rack's slide x: M x'' = -k x - m g, M = m + J/R^2
                    = 2 + 0.02/0.1^2 = 4 kg, k = 200 N/m, x(0) = 0,
                    x'(0) = -0.3 m/s: closed form.
  screw.yaml        the nut's slide d: M d'' = -k d - m g, M = m + J/c^2,
                    c = p / 2 pi, p = 0.02 m, m = 0.5 kg, J = 2e-3 kg m^2,
                    k = 500 N/m, d(0) = 0, d'(0) = 0.05 m/s: closed form.

  gear_ref.py [gear_train|rack_pinion|screw] T...   prints the coordinate at T
"""
import math
import sys

import numpy as np

G = 9.81


def gear_train(t):
    """theta_A (rad) at the times t (increasing, from 0)."""
    from scipy.integrate import solve_ivp
    inertia, m, l, w0 = 0.73, 1.0, 0.5, 6.0
    t = np.asarray(t, dtype=float)
    sol = solve_ivp(lambda _, y: [y[1], -m * G * l * math.cos(y[0]) / inertia],
                    (0.0, float(t[-1])), [0.0, w0], method="DOP853", t_eval=t,
                    rtol=1e-13, atol=1e-13)
    return sol.y[0]


def oscillator(t, mass, k, weight, v0):
    """x(t) of mass x'' = -k x - weight, x(0) = 0, x'(0) = v0."""
    w = math.sqrt(k / mass)
    xeq = -weight / k
    t = np.asarray(t, dtype=float)
    return xeq * (1.0 - np.cos(w * t)) + v0 / w * np.sin(w * t)


def rack_pinion(t):
    """the rack's slide x (m)."""
    return oscillator(t, 2.0 + 0.02 / 0.1 ** 2, 200.0, 2.0 * G, -0.3)


SCREW_C = 0.02 / (2.0 * math.pi)    # m/rad


def screw(t):
    """the nut's slide d (m)."""
    return oscillator(t, 0.5 + 2e-3 / SCREW_C ** 2, 500.0, 0.5 * G, 0.05)


def main():
    f = {"gear_train": gear_train, "rack_pinion": rack_pinion, "screw": screw}[sys.argv[1]]
    ts = [float(a) for a in sys.argv[2:]]
    for t, x in zip(ts, f([0.0] + ts)[1:]):
        print(f"{t:.6g} {x:.15g}")


if __name__ == "__main__":
    main()
