#!/usr/bin/python3
"""gears_check.py - one scheme's runs of a coupling deck (tests/t-gears.sh).

  gears_check.py KIND ORDER COARSE FINE COMPARABLE

KIND: gear_train, rack_pinion or screw (the decks of tests/gears/);
COARSE, FINE: the scheme at steps h and h/2, of order ORDER; COMPARABLE:
the comparable model without coupling rows (gear_free, rack_spin,
screw_spin) at step h.  Every coordinate is read from the bodies' states
(positions, unit quaternions), not from /joints, so that the joints'
own definitions are not what is checked:

1. Hand kinematics, at every sample of COARSE and FINE: theta_B - theta_B0
   = -2 (theta_A - theta_A0) and theta_C - theta_C0 = 3 (theta_A -
   theta_A0) (gear_train: ratios -2 and -1.5), x - x0 = R (theta -
   theta0) (rack_pinion, R = 0.1 m), d - d0 = p / 2 pi (theta - theta0)
   (screw, p = 0.02 m), within KTOL = 1e-9 (rad or m): the runs meet
   their rows to the Newton tolerance (1e-10, on corrections) and the
   quaternions of the output to round-off (measured: 2e-14 at most).
2. Dynamics: the input coordinate (theta_A, x, d) against
   tools/gear_ref.py (SciPy's DOP853 at 1e-13 on the minimal equation,
   closed forms): the error falls at least at order ORDER - 0.5 from h to
   h/2 while it is above FLOOR = 1e-10 (above the references' error,
   1e-12), and is at most FLOOR below it.  rack_pinion also the mesh's
   reaction on the rack (/joints/reaction_force, z), the force the
   pinion's inertia takes, -(J / R^2) x'' with x'' = -(k x + m g) / M of
   the closed form, the same way (FLOOR in N), and its x, y exactly 0.
3. Energy: the largest |/energy/drift| of COARSE at most 1.01 times that
   of COMPARABLE at the same step, plus 1e-12 J (the round-off of the
   energy sums, about 1e-13 of the energy scale, 2-30 J): 1 % for two
   models of one motion whose Newton iterates differ.  Measured ratios:
   1.000 for hi, lms2 and genalpha on the three decks (the same motion in
   the same coordinates), 0.13-0.98 for rn4.
Prints one line of numbers; exits 1 when a check fails, naming it.
"""
import math
import os
import sys

import h5py
import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tools"))
import gear_ref  # noqa: E402
from mbsimlib import series  # noqa: E402

KTOL = 1e-9
FLOOR = 1e-10


def turn(f, body, axis):
    """the body's rotation angle (rad) about the global axis 0, 1, 2 it
    turns about, followed through turns from its quaternion (w, x, y, z)"""
    q = series(f, f"bodies/{body}/orientation")
    return np.unwrap(2.0 * np.arctan2(q[:, 1 + axis], q[:, 0]))


def read(path, kind):
    """time, input coordinate, the kinematic relations' residuals"""
    with h5py.File(path, "r") as f:
        t = f["time"][:]
        if kind == "gear_train":
            p = series(f, "bodies/arm/position")
            a = np.unwrap(np.arctan2(p[:, 2], p[:, 1]))
            b, c = turn(f, "discB", 0), turn(f, "discC", 1)
            da = a - a[0]
            res = max(np.abs(b - b[0] + 2.0 * da).max(), np.abs(c - c[0] - 3.0 * da).max())
            return t, a, res, None
        if kind == "rack_pinion":
            x = series(f, "bodies/rack/position")[:, 2]
            th = turn(f, "pinion", 0)
            return t, x, np.abs(x - x[0] - 0.1 * (th - th[0])).max(), \
                series(f, "joints/mesh/reaction_force")
        d = series(f, "bodies/nut/position")[:, 2]
        th = turn(f, "nut", 2)
        return t, d, np.abs(d - d[0] - gear_ref.SCREW_C * (th - th[0])).max(), None


def drift(path):
    with h5py.File(path, "r") as f:
        return float(np.abs(f["energy/drift"][:]).max())


def converges(what, err, order, fails):
    """the observed order of the errors at h and h/2, checked as in 2."""
    obs = math.log2(err[0] / err[1]) if err[1] > 0 else float("inf")
    if err[1] > FLOOR and not obs >= order - 0.5:
        fails.append(f"{what}: order {obs:.2f} < {order - 0.5:g} (errors {err[0]:.3g}, "
                     f"{err[1]:.3g})")
    return obs


def main():
    kind, order, coarse, fine, comp = sys.argv[1], float(sys.argv[2]), *sys.argv[3:6]
    ref = {"gear_train": gear_ref.gear_train, "rack_pinion": gear_ref.rack_pinion,
           "screw": gear_ref.screw}[kind]
    fails = []
    err, ferr = [], []
    for path in (coarse, fine):
        t, q, res, force = read(path, kind)
        if not res <= KTOL:
            fails.append(f"kinematics of {os.path.basename(path)}: {res:.3g} > {KTOL:g}")
        x = ref(t)
        err.append(float(np.abs(q - x).max()))
        if force is not None:
            xdd = -(200.0 * x + 2.0 * gear_ref.G) / 4.0
            ferr.append(float(np.abs(force[:, 2] + 0.02 / 0.1 ** 2 * xdd).max()))
            if np.any(force[:, :2] != 0.0):
                fails.append(f"mesh reaction of {os.path.basename(path)} off the rack's axis")
    obs = converges("coordinate", err, order, fails)
    if ferr:
        converges("mesh reaction", ferr, order, fails)
    dc, dr = drift(coarse), drift(comp)
    if not dc <= 1.01 * dr + 1e-12:
        fails.append(f"energy drift {dc:.3g} J > 1.01 x {dr:.3g} J of the comparable model")
    more = f", reaction errors {ferr[0]:.3g} {ferr[1]:.3g} N" if ferr else ""
    print(f"kinematics within {KTOL:g}, errors {err[0]:.3g} {err[1]:.3g} (order {obs:.2f}){more}, "
          f"drift {dc:.3g} J vs {dr:.3g} J")
    for msg in fails:
        print("  " + msg)
    return 1 if fails else 0


if __name__ == "__main__":
    sys.exit(main())
