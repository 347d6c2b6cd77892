#!/usr/bin/python3
"""heavy_top_check.py - figures of a decks/heavy_top.yaml run against its reference.

    heavy_top_check.py REF.h5 RUN.h5 [DECK]

REF.h5 from tools/heavy_top_ref.py, RUN.h5 from `mbsim run`.  Prints one
line of key=value pairs:
  cg      largest |r - r_ref| of the centroid over the run's samples, m
  de      largest |E - E(0)| of /energy/total, J
  demean  mean of E - E(0) over the second half of the run, J (a drift
          shows here, a bounded oscillation averages out)
  dlz     largest change of the angular momentum about the vertical
          through the pivot, A J w + m r x v (z component), kg m^2/s: a
          constant of the motion (gravity and the pivot force have no
          moment about that axis)
  iters   mean Newton iterations per sample (/solver/newton_iterations)

    heavy_top_check.py --free RUN.h5 J1 J2 J3

RUN.h5 a run of one free body 'top' with principal inertia diag(J1, J2,
J3) and no forces: prints dl (largest change of the spatial angular
momentum A J w, any component, kg m^2/s) and de (largest change of the
rotational energy w.J w / 2, J), both constants of the motion.
Series are read through mbsimlib.series, whatever the output layout.
"""
import os
import sys

import h5py
import numpy as np
import yaml

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tools"))
import mbsimlib  # noqa: E402


def rot(q):
    a, b, c, d = q
    return np.array([[a * a + b * b - c * c - d * d, 2 * (b * c - a * d), 2 * (b * d + a * c)],
                     [2 * (b * c + a * d), a * a - b * b + c * c - d * d, 2 * (c * d - a * b)],
                     [2 * (b * d - a * c), 2 * (c * d + a * b), a * a - b * b - c * c + d * d]])


def free(run_path, jdiag):
    J = np.diag(jdiag)
    with h5py.File(run_path, "r") as run:
        q = mbsimlib.series(run, "bodies/top/orientation")
        w = mbsimlib.series(run, "bodies/top/angular_velocity")
    lsp = np.array([rot(q[k]) @ J @ w[k] for k in range(len(q))])
    e = 0.5 * np.einsum("ij,jk,ik->i", w, J, w)
    print("dl=%.3e de=%.3e e0=%.4f" % (np.abs(lsp - lsp[0]).max(), np.abs(e - e[0]).max(), e[0]))


def main():
    if sys.argv[1] == "--free":
        free(sys.argv[2], [float(x) for x in sys.argv[3:6]])
        return
    ref_path, run_path = sys.argv[1], sys.argv[2]
    deck = sys.argv[3] if len(sys.argv) > 3 else os.path.join(mbsimlib.TOP, "decks", "heavy_top.yaml")
    with open(deck) as fh:
        p = yaml.safe_load(fh)["parameters"]
    m = float(p["m"])
    J = np.diag([float(p["J1"]), float(p["J1"]), float(p["J3"])])
    with h5py.File(ref_path, "r") as ref, h5py.File(run_path, "r") as run:
        s = lambda f, n: mbsimlib.series(f, n)  # noqa: E731
        tr, t = s(ref, "time"), s(run, "time")
        i = np.searchsorted(tr, t - 1e-9)
        if i.max() >= len(tr) or np.abs(tr[i] - t).max() > 1e-9:
            sys.exit("heavy_top_check: the run's samples are not among the reference's")
        cg = np.linalg.norm(s(run, "bodies/top/position") - s(ref, "bodies/top/position")[i], axis=1)
        e = s(run, "energy/total")
        q, w = s(run, "bodies/top/orientation"), s(run, "bodies/top/angular_velocity")
        r, v = s(run, "bodies/top/position"), s(run, "bodies/top/velocity")
        lz = np.array([(rot(q[k]) @ J @ w[k] + m * np.cross(r[k], v[k]))[2] for k in range(len(t))])
        iters = s(run, "solver/newton_iterations")
    n = len(t)
    print("cg=%.3e de=%.3e demean=%.3e dlz=%.3e iters=%.3f"
          % (cg.max(), np.abs(e - e[0]).max(), (e[n // 2:] - e[0]).mean(), np.abs(lz - lz[0]).max(),
             iters[1:].mean()))


if __name__ == "__main__":
    main()
