#!/usr/bin/python3
"""shaft_drive.py - the prescribed angle of the rotating shaft of seed 004
§5.4 (decks/rotating_shaft.yaml) as `piecewise` polynomial segments.

The shaft's speed, seed 004 eq. 25 (A1 = 0.8, A2 = 1.2, T1 = 0.5 s,
T2 = 1 s, T3 = 1.25 s, omega = 60 rad/s), is two cosine ramps; its angle
theta(t), the integral, has sines that a driver function cannot state, so
each ramp is cut into 8 segments and theta expanded in a Taylor polynomial
of degree 7 about each segment's start (exact derivatives of a t - b sin(c
(t - t0))).  Truncation over a segment of length D: a c^7 D^8 / 8! at
most, 5e-8 rad for the first ramp.  Prints the YAML of the segments.
"""
import math

A1, A2, T1, T2, T3, W = 0.8, 1.2, 0.5, 1.0, 1.25, 60.0
NSEG, DEG = 8, 7


def ramp_theta(t, t0, t1, rate0, drate, theta0):
    """angle on [t0, t1] where the speed ramps from rate0 by drate:
    speed = rate0 + drate/2 (1 - cos(pi (t - t0)/(t1 - t0)))"""
    c = math.pi / (t1 - t0)
    s = t - t0
    return theta0 + rate0 * s + 0.5 * drate * (s - math.sin(c * s) / c)


def derivs(t, t0, t1, rate0, drate, theta0):
    """theta and its derivatives 1..DEG at t"""
    c = math.pi / (t1 - t0)
    s = t - t0
    d = [ramp_theta(t, t0, t1, rate0, drate, theta0),
         rate0 + 0.5 * drate * (1 - math.cos(c * s))]
    # k-th derivative (k >= 2) of -drate/2 sin(c s)/c: -drate/2 c^(k-1) sin^(k)(c s)
    for k in range(2, DEG + 1):
        sk = [math.sin, math.cos, lambda x: -math.sin(x), lambda x: -math.cos(x)][k % 4]
        d.append(-0.5 * drate * c ** (k - 1) * sk(c * s))
    return d


def segs():
    out = []
    th_T1 = ramp_theta(T1, 0, T1, 0, A1 * W, 0)
    th_T2 = th_T1 + A1 * W * (T2 - T1)
    for (t0, t1, r0, dr, th0) in ((0, T1, 0, A1 * W, 0), (T2, T3, A1 * W, (A2 - A1) * W, th_T2)):
        for k in range(NSEG):
            ts = t0 + (t1 - t0) * k / NSEG
            d = derivs(ts, t0, t1, r0, dr, th0)
            out.append((ts, [d[i] / math.factorial(i) for i in range(DEG + 1)]))
        if t0 == 0:
            out.append((T1, [th_T1, A1 * W]))
    th_T3 = ramp_theta(T3, T2, T3, A1 * W, (A2 - A1) * W, th_T2)
    out.append((T3, [th_T3, A2 * W]))
    return out


if __name__ == "__main__":
    for ts, c in segs():
        print("        - {start: %.17g, coefficients: [%s]}" % (ts, ", ".join("%.17g" % x for x in c)))
