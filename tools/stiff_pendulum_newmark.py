#!/usr/bin/python3
"""Newmark in minimal coordinates on the stiff pendulum of the Meccanica paper (doi:10.1007/s11012-021-01433-0) §3.

The independent reference of tests/t-newmark.sh: the Meccanica paper (doi:10.1007/s11012-021-01433-0) eq. 13,
m L^2 theta'' + m g L sin(theta) = T0 sin(wbar t), integrated by the Newmark
formulas in theta itself (no constraints), Newton on the new acceleration to
1e-14.  Prints the largest |theta| over the run, or "unstable" when |theta|
passes 1e6 or stops being finite.

usage: stiff_pendulum_newmark.py H T_END BETA GAMMA [L M G T0 WBAR J]
  J: a rotational inertia about the centroid added to m L^2 (a rigid body
  standing in for the point mass; 0 for the paper's point mass)
"""
import math
import sys


def run(h, tend, beta, gam, L=1.0, m=1.0, g=9.8, T0=0.1, wbar=0.1, J=0.0):
    I = m * L * L + J

    def acc(th, t):
        return (T0 * math.sin(wbar * t) - m * g * L * math.sin(th)) / I

    th, v, t = 0.0, 0.0, 0.0
    a = acc(th, t)
    big = 0.0
    for i in range(int(round(tend / h))):
        t1 = (i + 1) * h
        a1 = a
        for _ in range(100):
            th1 = th + h * v + h * h * ((0.5 - beta) * a + beta * a1)
            r = a1 - acc(th1, t1)
            d = -r / (1.0 + h * h * beta * m * g * L * math.cos(th1) / I)
            a1 += d
            if abs(d) < 1e-14:
                break
        th = th + h * v + h * h * ((0.5 - beta) * a + beta * a1)
        v = v + h * ((1 - gam) * a + gam * a1)
        a = a1
        if not math.isfinite(th) or abs(th) > 1e6:
            return None
        big = max(big, abs(th))
    return big


def main():
    if len(sys.argv) < 5:
        sys.exit(__doc__)
    args = [float(x) for x in sys.argv[1:]]
    big = run(*args)
    print("unstable" if big is None else "%.10g" % big)


if __name__ == "__main__":
    main()
