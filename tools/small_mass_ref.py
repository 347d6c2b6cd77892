#!/usr/bin/python3
"""small_mass_ref.py - reference solutions of the two planar problems of Arnold (2013) §4.

Arnold (2013) (docs/REFERENCES.md) §4, Fig. 3: point masses i and j in the x-y
plane, i on two spring-dampers to the ground (c_ix, d_ix along x; c_iy,
d_iy along y).  This script integrates the paper's closed-form equations
in absolute coordinates with scipy's Radau (rtol 1e-12, atol 1e-14 by
default), independently of mbsim's recursion:

  a (Fig. 3 upper, eqs. 33a-d): j on an x-spring-damper (c_jx, d_jx) to
    i, free along y:
      m_i p_ix'' = -d_ix p_ix' - c_ix p_ix + d_jx (p_jx' - p_ix') + c_jx (p_jx - p_ix - l)
      m_i p_iy'' = -d_iy p_iy' - c_iy p_iy
      m_j p_jx'' = -d_jx (p_jx' - p_ix') - c_jx (p_jx - p_ix - l)
      m_j p_jy'' = 0
    and for m_i = 0 the reduced equations (eq. 34 solved for the rates of
    i, with eq. 35 for j):
      p_ix' = (-c_ix p_ix + d_jx p_jx' + c_jx (p_jx - p_ix - l)) / (d_ix + d_jx)
      p_iy' = -c_iy p_iy / d_iy
  b (Fig. 3 lower, eqs. 36a-d): j on i with p_jx = p_ix + l, free along y:
      (m_i + m_j) p_ix'' = -d_ix p_ix' - c_ix p_ix
      m_i p_iy'' = -d_iy p_iy' - c_iy p_iy        (m_i = 0: p_iy' = -c_iy p_iy / d_iy)
      m_j p_jy'' = 0

l is the relaxed length of the x-spring (a) or the fixed x-offset (b)
between i and j (the paper's l_i in b; in a the paper's p_jx shifted by l).
Parameters and initial values are read from the deck's `parameters:`
(decks/small_mass_a.yaml, decks/small_mass_b.yaml: mi, mj, cix, dix, ciy,
diy, cjx, djx, l, xi0, yi0, xj0, vjy0; the start is at rest but for j's
y-rate vjy0, p_jx - p_ix - l = xj0 in a and 0 in b), with --set NAME=VALUE
overrides.  With m_i = 0 the rates of i are those of the reduced
equations, not zero.

Usage:
  /usr/bin/python3 tools/small_mass_ref.py --config a|b [--deck DECK] [--set mi=0]
      [--times 0.5,1,1.5,2] [--compare RUN.h5]
Prints, per time, t p_ix p_iy p_jx p_jy; with --compare, instead one line
"max_abs D samples N": the largest |difference| of those four positions
between RUN.h5 (bodies i and j of an mbsim run of the deck) and the
reference at RUN.h5's sample times.
"""
import argparse
import os
import sys

import h5py
import numpy as np
import yaml
from scipy.integrate import solve_ivp

from mbsimlib import TOP, series


def rhs(config, p):
    mi, mj = p["mi"], p["mj"]
    cix, dix, ciy, diy, l = p["cix"], p["dix"], p["ciy"], p["diy"], p["l"]
    cjx, djx = p.get("cjx", 0.0), p.get("djx", 0.0)

    if config == "a" and mi > 0:
        def f(t, y):                  # y = pix piy pjx pjy vix viy vjx vjy
            pix, piy, pjx, pjy, vix, viy, vjx, vjy = y
            fj = -djx * (vjx - vix) - cjx * (pjx - pix - l)
            return [vix, viy, vjx, vjy,
                    (-dix * vix - cix * pix - fj) / mi,
                    (-diy * viy - ciy * piy) / mi,
                    fj / mj, 0.0]
    elif config == "a":
        def f(t, y):                  # y = pix piy pjx pjy vjx vjy
            pix, piy, pjx, pjy, vjx, vjy = y
            vix = (-cix * pix + djx * vjx + cjx * (pjx - pix - l)) / (dix + djx)
            viy = -ciy * piy / diy
            fj = -djx * (vjx - vix) - cjx * (pjx - pix - l)
            return [vix, viy, vjx, vjy, fj / mj, 0.0]
    elif config == "b" and mi > 0:
        def f(t, y):                  # y = pix piy pjy vix viy vjy
            pix, piy, pjy, vix, viy, vjy = y
            return [vix, viy, vjy, (-dix * vix - cix * pix) / (mi + mj),
                    (-diy * viy - ciy * piy) / mi, 0.0]
    else:
        def f(t, y):                  # y = pix piy pjy vix vjy
            pix, piy, pjy, vix, vjy = y
            return [vix, -ciy * piy / diy, vjy, (-dix * vix - cix * pix) / mj, 0.0]
    return f


def initial(config, p):
    xi, yi, l, vjy = p["xi0"], p["yi0"], p["l"], p["vjy0"]
    if config == "a":
        pjx = xi + l + p["xj0"]
        return [xi, yi, pjx, yi, 0, 0, 0, vjy] if p["mi"] > 0 else [xi, yi, pjx, yi, 0, vjy]
    return [xi, yi, yi, 0, 0, vjy] if p["mi"] > 0 else [xi, yi, yi, 0, vjy]


def positions(config, p, y):
    """p_ix, p_iy, p_jx, p_jy (rows) of the states y (columns)."""
    if config == "a":
        return y[:4]
    return np.array([y[0], y[1], y[0] + p["l"], y[2]])


def solve(config, p, times, rtol=1e-12, atol=1e-14):
    times = np.asarray(times, float)
    s = solve_ivp(rhs(config, p), (0.0, float(times[-1])), initial(config, p), method="Radau",
                  t_eval=times, rtol=rtol, atol=atol)
    if not s.success:
        sys.exit("small_mass_ref: %s" % s.message)
    return positions(config, p, s.y).T          # (len(times), 4)


def params(deck, sets):
    with open(deck) as f:
        p = {k: float(v) for k, v in yaml.safe_load(f)["parameters"].items()}
    for s in sets:
        k, v = s.split("=", 1)
        if k.startswith("parameters."):
            k = k[len("parameters."):]
        if k not in p:
            sys.exit("small_mass_ref: no parameter '%s' in %s" % (k, deck))
        p[k] = float(v)
    return p


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--config", choices=("a", "b"), required=True)
    ap.add_argument("--deck")
    ap.add_argument("--set", action="append", default=[])
    ap.add_argument("--times", default="0.5,1,1.5,2")
    ap.add_argument("--compare")
    ap.add_argument("--rtol", type=float, default=1e-12)
    a = ap.parse_args()
    deck = a.deck or os.path.join(TOP, "decks", "small_mass_%s.yaml" % a.config)
    p = params(deck, a.set)
    if a.compare:
        with h5py.File(a.compare, "r") as f:
            t = series(f, "time")
            got = np.column_stack([series(f, "bodies/i/position")[:, :2],
                                   series(f, "bodies/j/position")[:, :2]])
        keep = t > 0
        ref = solve(a.config, p, t[keep], a.rtol, 1e-2 * a.rtol)
        print("max_abs %.3e samples %d" % (np.max(np.abs(got[keep] - ref)), int(keep.sum())))
        return 0
    times = [float(x) for x in a.times.split(",")]
    for t, row in zip(times, solve(a.config, p, times, a.rtol, 1e-2 * a.rtol)):
        print("%g %.12e %.12e %.12e %.12e" % ((t,) + tuple(row)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
