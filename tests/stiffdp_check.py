#!/usr/bin/python3
"""stiffdp_check.py - a decks/stiff_double_pendulum.yaml run against its reference.

    stiffdp_check.py RUN.h5 [T ...]

RUN.h5 from `mbsim run`; the reference is tools/stiff_double_pendulum_ref.py
(Radau, rtol 1e-12) solved here and evaluated at the run's own output
times.  Prints one line of key=value pairs:
  th1, th1d   largest |theta1 - ref| (rad) and |theta1-dot - ref| (rad/s)
              over the run's samples, theta1 from body 1's orientation
  th1max, th1dmax   largest |theta1| and |theta1-dot| of the reference there
  cm          largest difference (rad, modulo 2 pi) between theta1 from
              the orientation and atan2 of body 1's centroid (joint 1 is at
              the origin and the centroid on body 1's x axis)
  at<T>, atd<T>   the theta1 and theta1-dot errors at the sample nearest
              each T given
  energy      the reference's energy balance error (relative; the solve
              exits 1 when it exceeds its bound, see
              stiff_double_pendulum_ref.solve)
"""
import math
import os
import sys

import h5py
import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tools"))
import stiff_double_pendulum_ref as ref  # noqa: E402
from mbsimlib import series  # noqa: E402


def main():
    run = sys.argv[1]
    p = ref.model()
    sol = ref.solve(p)
    t, th1, w1, _th2, _w2 = ref.run_angles(run, p["th1_0"], p["th2_0"])
    Y = sol.sol(t)
    e1, e2 = np.abs(th1 - Y[0]), np.abs(w1 - Y[2])
    with h5py.File(run, "r") as f:
        r = series(f, "bodies/body1/position")
    d = th1 - np.arctan2(r[:, 1], r[:, 0])
    cm = np.abs(d - 2 * math.pi * np.round(d / (2 * math.pi)))
    out = ["th1=%.3e" % e1.max(), "th1d=%.3e" % e2.max(), "th1max=%.6g" % np.abs(Y[0]).max(),
           "th1dmax=%.6g" % np.abs(Y[2]).max(), "cm=%.3e" % cm.max(),
           "energy=%.2g" % sol.energy_error]
    for s in sys.argv[2:]:
        i = int(np.argmin(np.abs(t - float(s))))
        out += ["at%s=%.3e" % (s, e1[i]), "atd%s=%.3e" % (s, e2[i])]
    print(" ".join(out))


if __name__ == "__main__":
    main()
