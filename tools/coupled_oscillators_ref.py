#!/usr/bin/python3
"""coupled_oscillators_ref.py - exact solution of the two coupled oscillators of Arnold (2013) §2.2.

Arnold (2013) (docs/REFERENCES.md) §2.2, Fig. 1, eqs. 5-6: a small mass m1 on a
spring-damper (c1, d1) to the ground and one (c2, d2) to a large mass m2,
both along x, a force F(t) = F0 sin(W t) on the small mass alone.  In the
displacements p1, p2 from the relaxed springs (decks/coupled_oscillators.yaml:
the small mass starts at x1 = 0, the large one at 1 m):

  m1 p1'' = F - d1 p1' - c1 p1 + d2 (p2' - p1') + c2 (p2 - p1)    (5a)
  m2 p2'' =   - d2 (p2' - p1') - c2 (p2 - p1)                    (5b)

and for m1 = 0 eq. 5a becomes the first-order eq. 6, solved for p1':

  p1' = (F - c1 p1 + d2 p2' + c2 (p2 - p1)) / (d1 + d2).

Both are linear with constant coefficients, x' = A x + b F0 sin(W t)
(x = p1, p2, p1', p2' for m1 > 0; p1, p2, p2' for m1 = 0), so the solution
is exact, without a time integrator:

  x(t) = x_p(t) + exp(A t) (x(0) - x_p(0)),  x_p(t) = F0 Im(z e^(i W t)),
  z = (i W I - A)^-1 b,

the periodic response x_p plus the free motion; exp(A t) = V exp(D t) V^-1
from the eigen-decomposition of A, all in mpmath at --dps digits (50 by
default), so the answer carries no step-size or round-off error at double
precision, however stiff A is (its fast eigenvalues at m1 = 1e-8 are near
-1e5 +- 1e6 i /s).  Nothing of mbsim is used: the deck's `parameters:`
(m1, m2, c1, c2, d1, d2, F0, W, x1) are read with --set NAME=VALUE
overrides; the start is the deck's: at rest, the small mass at x1 (the
ground spring relaxed at x = 0), the large one at 1 m (for m1 = 0, p1' is
eq. 6's, not a state).  The eigenvalues: near -d/(2 m1) +- i sqrt(c/m1)
(the fast mode, d = d1 + d2, c = c1 + c2), for m1 = 0 one at -c/d, and the
large mass's near +-10i /s, all lightly damped with the deck's dampers.

Usage:
  /usr/bin/python3 tools/coupled_oscillators_ref.py [--deck DECK] [--set m1=1e-3]
      [--times 0.1,0.2,...] [--compare RUN.h5]
      print, per time, t p1 p2 (absolute x of the small and the large
      mass, m); with --compare, one line "max_abs_small A max_abs_large B
      samples N": the largest |difference| from the positions of an mbsim
      run of the deck (bodies small and large) at its sample times, or of
      a text file of lines "t x_small x_large" (not ending in .h5; the
      output of docs/results/003/ida_plain.c)
  /usr/bin/python3 tools/coupled_oscillators_ref.py --distance 1e-1,...,1e-8
      [--times ...]: for each m1, max over the times of |p(m1) - p(0)|
      for both masses, the true distance of Arnold (2013) eq. 3 (default
      times 0.1, 0.2, ..., 2)
  --check: the largest relative residual of the differential equations
      at the times (the closed form's derivative against A x + b F)
"""
import argparse
import os
import sys

import mpmath as mp
import yaml

TOP = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
DPS = 50        # mpmath's digits for the exact solution (--dps)


def parameters(deck, sets):
    """The deck's parameters (numbers only), with NAME=VALUE overrides."""
    with open(deck) as f:
        p = {k: float(v) for k, v in yaml.safe_load(f)["parameters"].items()}
    for s in sets:
        k, v = s.split("=", 1)
        p[k] = float(v)
    return p


def system(p):
    """A, b and x(0) of eqs. 5 (m1 > 0) or 6 (m1 = 0) as mpmath matrices,
    x = displacements (and rates) from the relaxed springs."""
    m1, m2, c1, c2, d1, d2 = (mp.mpf(p[k]) for k in ("m1", "m2", "c1", "c2", "d1", "d2"))
    x1 = mp.mpf(p["x1"])
    if m1 > 0:
        # rows p1' = v1, p2' = v2, then eqs. 5a and 5b divided by the masses
        A = mp.matrix([[0, 0, 1, 0],
                       [0, 0, 0, 1],
                       [-(c1 + c2) / m1, c2 / m1, -(d1 + d2) / m1, d2 / m1],
                       [c2 / m2, -c2 / m2, d2 / m2, -d2 / m2]])
        b = mp.matrix([0, 0, 1 / m1, 0])
        x0 = mp.matrix([x1, 0, 0, 0])
    else:
        # p1' of eq. 6: (F - (c1 + c2) p1 + c2 p2 + d2 v2) / (d1 + d2)
        d = d1 + d2
        r = [-(c1 + c2) / d, c2 / d, d2 / d]          # p1' as a row in (p1, p2, v2)
        A = mp.matrix([r,
                       [0, 0, 1],
                       [(c2 + d2 * r[0]) / m2, (-c2 + d2 * r[1]) / m2, (-d2 + d2 * r[2]) / m2]])
        b = mp.matrix([1 / d, 0, d2 / (d * m2)])
        x0 = mp.matrix([x1, 0, 0])
    return A, b, x0


class Exact:
    """x(t) of system(p) for F = F0 sin(W t), computed with DPS digits
    (the eigenvectors of the stiff A lose about half of them: at 15, the
    double-precision default, the distances at m1 = 1e-5 were 30 % off)."""

    def __init__(self, p, dps=DPS):
        self.dps = dps
        with mp.workdps(dps):
            self.A, self.b, x0 = system(p)
            self.F0, self.W = mp.mpf(p["F0"]), mp.mpf(p["W"])
            self.z = mp.lu_solve(1j * self.W * mp.eye(self.A.rows) - self.A, self.b)
            self.D, self.V = mp.eig(self.A)
            self.c = mp.lu_solve(self.V, x0 - self.xp(0))   # the free motion in eigen-coordinates

    def xp(self, t):
        """The periodic response F0 Im(z e^(i W t))."""
        e = mp.expj(self.W * t)
        return mp.matrix([self.F0 * mp.im(zk * e) for zk in self.z])

    def __call__(self, t):
        """The state x(t) (mpmath, at the caller's precision: use it inside
        mp.workdps(self.dps))."""
        t = mp.mpf(t)
        free = self.V * mp.matrix([ck * mp.exp(dk * t) for ck, dk in zip(self.c, self.D)])
        return self.xp(t) + mp.matrix([mp.re(v) for v in free])

    def positions(self, t):
        """Displacements (p1, p2) at t as floats."""
        with mp.workdps(self.dps):
            x = self(t)
            return float(x[0]), float(x[1])

    def residual(self, t):
        """|x' - A x - b F(t)| / (|A x| + |b F0|) at t, x' from the closed form: a check
        of the algebra (about 10^-dps when it is right)."""
        with mp.workdps(self.dps):
            t = mp.mpf(t)
            e = mp.expj(self.W * t)
            xd = mp.matrix([self.F0 * mp.im(1j * self.W * zk * e) for zk in self.z])
            xd += mp.matrix([mp.re(v) for v in self.V * mp.matrix(
                [ck * dk * mp.exp(dk * t) for ck, dk in zip(self.c, self.D)])])
            Ax = self.A * self(t)
            r = xd - Ax - self.b * (self.F0 * mp.sin(self.W * t))
            return float(mp.norm(r) / (mp.norm(Ax) + mp.norm(self.b) * self.F0))


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--deck", default=os.path.join(TOP, "decks", "coupled_oscillators.yaml"))
    ap.add_argument("--set", action="append", default=[], metavar="NAME=VALUE")
    ap.add_argument("--times", default=",".join("%g" % (0.1 * k) for k in range(1, 21)))
    ap.add_argument("--compare", metavar="RUN.h5")
    ap.add_argument("--distance", metavar="M1,M1,...")
    ap.add_argument("--dps", type=int, default=DPS)
    ap.add_argument("--check", action="store_true",
                    help="print the largest relative residual of eqs. 5/6 at the times")
    a = ap.parse_args()
    p = parameters(a.deck, a.set)
    x2 = 1.0                                  # the large mass's x at rest (the deck's position)
    if a.compare:
        import numpy as np
        if a.compare.endswith(".h5"):
            import h5py
            from mbsimlib import series
            with h5py.File(a.compare, "r") as f:
                t = series(f, "time")
                s = series(f, "bodies/small/position")[:, 0]
                g = series(f, "bodies/large/position")[:, 0]
        else:
            t, s, g = np.loadtxt(a.compare, ndmin=2).T[:3]
        ex = Exact(p, a.dps)
        ref = np.array([ex.positions(ti) for ti in t])
        es = np.max(np.abs(s - ref[:, 0]))
        el = np.max(np.abs(g - x2 - ref[:, 1]))
        print("max_abs_small %.3e max_abs_large %.3e samples %d" % (es, el, len(t)))
        return 0
    times = [float(s) for s in a.times.split(",")]
    if a.check:
        ex = Exact(p, a.dps)
        print("max_relative_residual %.1e" % max(ex.residual(t) for t in times))
        return 0
    if a.distance:
        q = dict(p, m1=0.0)
        zero = Exact(q, a.dps)
        z = [zero.positions(t) for t in times]
        print("m1 max_abs_small max_abs_large")
        for m1 in a.distance.split(","):
            ex = Exact(dict(p, m1=float(m1)), a.dps)
            d = [ex.positions(t) for t in times]
            print("%s %.3e %.3e" % (m1, max(abs(u[0] - v[0]) for u, v in zip(d, z)),
                                    max(abs(u[1] - v[1]) for u, v in zip(d, z))))
        return 0
    ex = Exact(p, a.dps)
    for t in times:
        p1, p2 = ex.positions(t)
        print("%.10g %.17g %.17g" % (t, p1, p2 + x2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
