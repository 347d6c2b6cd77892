#!/usr/bin/env python3
"""contact_check.py - measurements of the smooth contact benchmarks in an
output file (tests/t-contact.sh), printed one a line for the shell.

  apex FILE BODY R          the heights above the plane z = 0 (centre less
                            R) of BODY's apexes after the release, each the
                            vertex of the parabola through the samples about
                            the sample's maximum
  duration FILE BODY R      the first contact's duration: the times where
                            z = R, falling then rising, by linear
                            interpolation of the samples
  accel FILE BODY T0 T1     x acceleration of BODY fitted to x(t) over
                            [T0, T1] (least squares, quadratic), and the
                            largest |x - x(0)|
  roll FILE BODY R V0       the time from which |v_x - R w_y| < 1e-3 V0
                            (slip ended) and v_x at the end
  rest FILE BODY N          the largest speed (|v| and R |w| alike, R = 1)
                            over the last N samples
"""
import sys

import h5py
import numpy as np


def load(path, body):
    f = h5py.File(path, "r")
    names = [n.decode() if isinstance(n, bytes) else n for n in f["bodies/names"][:]]
    i = names.index(body)
    return f["time"][:], f["bodies/position"][:, i, :], f["bodies/velocity"][:, i, :], \
        f["bodies/angular_velocity"][:, i, :], f["bodies/orientation"][:, i, :]


def main(a):
    t, r, v, w, q = load(a[1], a[2])
    if a[0] == "apex":
        z = r[:, 2] - float(a[3])
        for k in range(1, len(z) - 1):
            if z[k] >= z[k - 1] and z[k] > z[k + 1] and k > 2:
                c = np.polyfit(t[k - 1:k + 2] - t[k], z[k - 1:k + 2], 2)
                print("%.10g" % (c[2] - c[1] ** 2 / (4 * c[0])))
    elif a[0] == "duration":
        z = r[:, 2] - float(a[3])
        s = np.nonzero(np.diff(np.sign(z)))[0]
        tc = [t[k] - z[k] * (t[k + 1] - t[k]) / (z[k + 1] - z[k]) for k in s[:2]]
        print("%.10g" % (tc[1] - tc[0]))
    elif a[0] == "accel":
        t0, t1 = float(a[3]), float(a[4])
        m = (t >= t0) & (t <= t1)
        c = np.polyfit(t[m] - t0, r[m, 0], 2)
        print("%.10g %.10g" % (2 * c[0], np.max(np.abs(r[:, 0] - r[0, 0]))))
    elif a[0] == "roll":
        R, v0 = float(a[3]), float(a[4])
        # w is in the body frame: the global w_y of a sphere rolling along x
        wg = np.array([np.dot(rot(q[k]), w[k]) for k in range(len(t))])
        slip = v[:, 0] - R * wg[:, 1]
        k = np.nonzero(np.abs(slip) >= 1e-3 * v0)[0]
        k = k[-1] + 1 if len(k) else 0
        print("%.10g %.10g" % (t[min(k, len(t) - 1)], v[-1, 0]))
    elif a[0] == "rest":
        n = int(a[3])
        print("%.6g" % max(np.max(np.linalg.norm(v[-n:], axis=1)),
                           np.max(np.linalg.norm(w[-n:], axis=1))))
    else:
        sys.exit(__doc__)


def rot(q):
    w, x, y, z = q
    return np.array([[1 - 2 * (y * y + z * z), 2 * (x * y - w * z), 2 * (x * z + w * y)],
                     [2 * (x * y + w * z), 1 - 2 * (x * x + z * z), 2 * (y * z - w * x)],
                     [2 * (x * z - w * y), 2 * (y * z + w * x), 1 - 2 * (x * x + y * y)]])


if __name__ == "__main__":
    try:
        main(sys.argv[1:])
    except BrokenPipeError:     # a reader that took the first lines only
        sys.stderr.close()
