#!/usr/bin/python3
"""hmmwv14_layout.py - the static layout of decks/hmmwv14.yaml's stiff variant.

The deck's parameter unsprung scales the masses and inertias of its 12
unsprung bodies (header, STIFF VARIANT).  A lighter vehicle sits higher on
its tyres, so for unsprung < 1 the deck moves its layout as a rigid body,
raised by lift and pitched by tilt about (0, 0, H), and sets the spring
tensions Tf (front) and Tr (rear).  This script solves those four, for each
unsprung value given, by Newton's method on forward differences, so that
the initial accelerations of mbsim's index-1 solve vanish: the chassis's
vertical and pitch accelerations and the vertical accelerations of the
front and rear left spindles (the vehicle is symmetric about y = 0).  It
then fits each of the four by a line in 1 - unsprung, prints the lines and
the largest misfit, and the largest initial accelerations the deck gives
with its own lines (the deck states these lines; the misfit says how far
they are from straight).

Each evaluation is `mbsim run` to time.end = 1e-6 s with rn4 (the deck's
lms2 at 2e-4 s fails at small unsprung) and the four parameters overridden
by --set; the accelerations are those of the first sample.

Usage:
  /usr/bin/python3 tools/hmmwv14_layout.py --mbsim build/mbsim
      [--deck decks/hmmwv14.yaml] [--unsprung 1/64,1/4,1/2,3/4,0.999]
"""
import argparse
import os
import subprocess
import sys
import tempfile

import h5py
import numpy as np

from mbsimlib import TOP, mbsim_exe

KEYS = ("lift", "tilt", "Tf", "Tr")
STEPS = np.array([1e-6, 1e-7, 1.0, 1.0])   # forward-difference steps: m, rad, N, N


def initial(exe, deck, uns, x, out):
    """Body names, accelerations and angular accelerations at t = 0."""
    cmd = [exe, "run", deck, "--set", "time.end=1e-6", "--set", "integrator.method=rn4",
           "--set", "integrator.adaptive=true", "--set", "parameters.unsprung=" + uns,
           "-o", out, "--force", "--quiet"]
    if x is not None:
        for k, v in zip(KEYS, x):
            cmd += ["--set", "parameters.%s=%r" % (k, float(v))]
    r = subprocess.run(cmd, capture_output=True, text=True)
    if r.returncode:
        sys.exit("hmmwv14_layout.py: %s: %s" % (" ".join(cmd), r.stderr.strip()))
    with h5py.File(out, "r") as f:
        names = [n.decode() if isinstance(n, bytes) else str(n) for n in f["bodies/names"][:]]
        return names, f["bodies/acceleration"][0], f["bodies/angular_acceleration"][0]


def residual(exe, deck, uns, x, out):
    n, a, w = initial(exe, deck, uns, x, out)
    i = n.index
    return np.array([a[i("chassis"), 2], w[i("chassis"), 1],
                     a[i("spindle_fl"), 2], a[i("spindle_rl"), 2]])


def solve(exe, deck, uns, out):
    """lift, tilt, Tf, Tr at unsprung = uns; starts from the deck's tensions."""
    x = np.array([0.0, 0.0, -12069.33, -11600.77])
    for _ in range(10):
        r = residual(exe, deck, uns, x, out)
        if np.abs(r).max() < 1e-8:
            return x
        jac = np.empty((4, 4))
        for k in range(4):
            xp = x.copy()
            xp[k] += STEPS[k]
            jac[:, k] = (residual(exe, deck, uns, xp, out) - r) / STEPS[k]
        x = x - np.linalg.solve(jac, r)
    sys.exit("hmmwv14_layout.py: no convergence at unsprung = %s" % uns)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--mbsim", default="build/mbsim")
    ap.add_argument("--deck", default=os.path.join(TOP, "decks", "hmmwv14.yaml"))
    ap.add_argument("--unsprung", default="1/64,1/4,1/2,3/4,0.999")
    a = ap.parse_args()
    exe = mbsim_exe(a.mbsim, "hmmwv14_layout.py")
    vals = a.unsprung.split(",")
    u = np.array([1 - eval(v, {"__builtins__": {}}) for v in vals])   # 1 - unsprung
    with tempfile.TemporaryDirectory() as tmp:
        out = os.path.join(tmp, "t0.h5")
        sol = []
        for v in vals:
            x = solve(exe, a.deck, v, out)
            sol.append(x)
            print("unsprung = %-6s lift %.10e m, tilt %.10e rad, Tf %.6f N, Tr %.6f N" % (v, *x))
        sol = np.array(sol)
        for k, name in enumerate(KEYS):
            p = np.polyfit(u, sol[:, k], 1)
            mis = np.abs(sol[:, k] - np.polyval(p, u)).max()
            print("%-4s = %.10g + %.10g*(1 - unsprung)   misfit %.2g" % (name, p[1], p[0], mis))
        for v in vals:
            _, acc, ang = initial(exe, a.deck, v, None, out)
            print("deck at unsprung = %-6s max |a| %.2g m/s^2, max |alpha| %.2g rad/s^2"
                  % (v, np.abs(acc).max(), np.abs(ang).max()))


if __name__ == "__main__":
    main()
