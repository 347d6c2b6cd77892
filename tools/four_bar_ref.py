#!/usr/bin/python3
"""four_bar_ref.py - reference for decks/n_four_bar.yaml (IFToMM A02).

On its parallelogram branch the N-four-bar has one degree of freedom,
the crank angle phi measured from +x (the IFToMM benchmark A02,
González et al. 2006): every crank turns by phi, every coupler translates with
the crank tops.  With 2N+1 uniform rods of mass m = 1 kg and length
L = 1 m,
  T = a phi'^2,  a = (N+1)/6 + N/2   (cranks: (1/2)(m L^2/3) phi'^2 each;
                                     couplers: (1/2) m L^2 phi'^2 each)
  V = b sin(phi), b = (N+1) g/2 + N g
and Lagrange's equation is 2 a phi'' + b cos(phi) = 0, phi(0) = pi/2,
phi'(0) = -1 (B0 starts at 1 m/s in +x).  B0 = L (cos phi, sin phi).
This integrates it with SciPy's DOP853 at rtol = atol = 1e-13 (about 1e-11
in B0 over 10 s, checked by the energy a phi'^2 + b sin phi, which must
stay constant; the script exits 1 if it drifts above 1e-9 J).

Usage: /usr/bin/python3 tools/four_bar_ref.py [--N 2] [--t-end 10]
           [--check OUT.h5 [--tol 1e-6]]
Prints B0 and phi at t-end and the instants of the singular (horizontal)
positions phi = k pi.  --check: compares B0 of an mbsim output of the
deck (top of body crank0: position + R (0, L/2, 0), last sample, which
must be at t-end) and exits 1 if |difference| > tol.
"""
import argparse
import math
import sys

import numpy as np
from scipy.integrate import solve_ivp

from mbsimlib import rotation


def reference(N, t_end, g=9.81):
    a = (N + 1) / 6.0 + N / 2.0
    b = (N + 1) * g / 2.0 + N * g

    def rhs(t, y):
        return [y[1], -b * math.cos(y[0]) / (2.0 * a)]

    def crossing(t, y):     # sin(phi) = 0 : horizontal cranks
        return math.sin(y[0])

    sol = solve_ivp(rhs, (0.0, t_end), [math.pi / 2, -1.0], method="DOP853",
                    rtol=1e-13, atol=1e-13, events=crossing, dense_output=True)
    if sol.status != 0:
        sys.exit("four_bar_ref: integration failed: " + sol.message)
    phi, dphi = sol.y[0, -1], sol.y[1, -1]
    e0 = a * 1.0 + b * 1.0
    drift = max(abs(a * sol.y[1] ** 2 + b * np.sin(sol.y[0]) - e0))
    return phi, dphi, sol.t_events[0], drift


def b0_of(path):
    import h5py
    with h5py.File(path, "r") as f:
        names = [n.decode() if isinstance(n, bytes) else str(n) for n in f["bodies/names"][()]]
        k = names.index("crank0")
        t = f["time"][-1]
        p = f["bodies/position"][-1, k]
        q = f["bodies/orientation"][-1, k]
    return t, p + rotation(q[None])[0] @ np.array([0.0, 0.5, 0.0])


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--N", type=int, default=2)
    ap.add_argument("--t-end", type=float, default=10.0)
    ap.add_argument("--check")
    ap.add_argument("--tol", type=float, default=1e-6)
    o = ap.parse_args()
    phi, dphi, cross, drift = reference(o.N, o.t_end)
    b0 = np.array([math.cos(phi), math.sin(phi), 0.0])
    print("N = %d, t = %g: phi = %.15f, phi' = %.15f, B0 = (%.15f, %.15f)"
          % (o.N, o.t_end, phi, dphi, b0[0], b0[1]))
    print("singular positions at t = " + ", ".join("%.6f" % t for t in cross))
    print("energy drift of the reference: %.2e J" % drift)
    if drift > 1e-9:
        print("four_bar_ref: the reference itself drifts", file=sys.stderr)
        return 1
    if o.check:
        t, b = b0_of(o.check)
        if abs(t - o.t_end) > 1e-9:
            print("four_bar_ref: %s ends at t = %.17g, not %g" % (o.check, t, o.t_end),
                  file=sys.stderr)
            return 1
        err = np.linalg.norm(b - b0)
        print("%s: B0 = (%.15f, %.15f), |B0 - reference| = %.3e (tol %g)"
              % (o.check, b[0], b[1], err, o.tol))
        return 0 if err <= o.tol else 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
