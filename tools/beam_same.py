#!/usr/bin/python3
"""beam_same.py - do two mbsim builds report the same flexible benchmarks?

Runs decks/flexible_four_bar.yaml, decks/lateral_buckling.yaml and
decks/rotating_shaft.yaml as shipped (their steps, schemes and Newton
tolerances) through a reference build and a new one, and compares the
quantities that the Multibody Syst. Dyn. paper (doi:10.1007/s11044-021-09806-9)
§5.2-5.4 reports for them:
  four-bar: rotation and angular velocity about x at C (body C2);
  lateral buckling: rotation and angular velocity about x at mid-span
    (body beam_5) and the shear force N3 at the evaluation points of the
    beam's element 3 either side of it;
  rotating shaft: mid-span displacement, velocity and acceleration along
    z (body shaft_16).
Each quantity's largest difference over every sample is divided by its
amplitude (half its range over the reference run).  A third run, the
reference build at Newton tolerance 1e-13, gives the solution of the
scheme's step equations to round-off; each build's distance from it is
its Newton error at the deck's tolerance.  A quantity passes when the two
builds differ by less than --limit (default 1e-6, issue 36: "the
benchmarks' reported quantities move by less than 1e-6 of their
amplitude") or when the new build is no farther from the converged
solution than the reference: at the decks' tolerances the reference's own
Newton error is larger than 1e-6 of some amplitudes (the four-bar's
angular velocity 1.7e-5, the lateral buckling's 1.5e-4), so a change of
the Newton iteration (predictor, matrix strategy, stop test) moves them by
that much whatever it does.  tools/bitcheck is the exact check.

  tools/beam_same.py REF_MBSIM [NEW_MBSIM] [--limit 1e-6]
    NEW_MBSIM defaults to build/mbsim; the reference is usually the branch's
    base: git archive BASE | tar -x -C DIR && make -C DIR, then DIR/build/mbsim
Prints one line per quantity and each build's Newton iterations and
factorizations per step; exit 0 when every quantity agrees, 1 otherwise.
"""
import argparse
import json
import os
import subprocess
import sys
import tempfile

import h5py
import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from mbsimlib import series  # noqa: E402


def rot_x(q):
    """rotation angle about x of unit quaternions (w, x, y, z) by rows"""
    v = np.linalg.norm(q[:, 1:], axis=1)
    ang = 2 * np.arctan2(v, q[:, 0])
    return ang * np.where(v > 0, q[:, 1] / np.maximum(v, 1e-300), 0.0)


def fourbar(f):
    return {"C2 rotation x": rot_x(series(f, "bodies/C2/orientation")),
            "C2 angular velocity x": series(f, "bodies/C2/angular_velocity")[:, 0]}


def lateral(f):
    q = {"beam_5 rotation x": rot_x(series(f, "bodies/beam_5/orientation")),
         "beam_5 angular velocity x": series(f, "bodies/beam_5/angular_velocity")[:, 0]}
    res = f["/beams/beam/resultant"][:]	# samples x points x 6, two points an element
    for p in (4, 5):	# element 3's two evaluation points
        q["beam N3 at point %d" % p] = res[:, p, 2]
    return q


def shaft(f):
    return {"shaft_16 position z": series(f, "bodies/shaft_16/position")[:, 2],
            "shaft_16 velocity z": series(f, "bodies/shaft_16/velocity")[:, 2],
            "shaft_16 acceleration z": series(f, "bodies/shaft_16/acceleration")[:, 2]}


CASES = [("decks/flexible_four_bar.yaml", fourbar), ("decks/lateral_buckling.yaml", lateral),
         ("decks/rotating_shaft.yaml", shaft)]


def run(mbsim, deck, out, extra=()):
    p = subprocess.run([mbsim, "run", deck, "-o", out, "--force", "--json", *extra],
                       capture_output=True, text=True)
    if p.returncode != 0:
        sys.exit("%s %s: exit %d\n%s" % (mbsim, deck, p.returncode, p.stderr))
    return json.loads(p.stdout)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("ref")
    ap.add_argument("new", nargs="?", default="build/mbsim")
    ap.add_argument("--limit", type=float, default=1e-6)
    a = ap.parse_args()
    bad = 0
    with tempfile.TemporaryDirectory() as tmp:
        for deck, quants in CASES:
            js, qs = [], []
            # the reference build at Newton tolerance 1e-13: the solution of
            # the step's equations to round-off, against which each build's
            # own Newton error at the deck's tolerance is measured
            runs = ((a.ref, ()), (a.new, ()), (a.ref, ("--set", "integrator.tolerance=1e-13")))
            for k, (exe, extra) in enumerate(runs):
                out = os.path.join(tmp, "%d.h5" % k)
                js.append(run(exe, deck, out, extra))
                with h5py.File(out, "r") as f:
                    qs.append(quants(f))
            for j, name in zip(js, ("ref", "new")):
                print("%s %s: %.3f Newton iterations, %.4f factorizations a step" %
                      (deck, name, j["mean_newton_iterations"], j["factorizations"] / j["steps"]))
            for name, r in qs[0].items():
                n, c = qs[1][name], qs[2][name]
                amp = 0.5 * (np.max(r) - np.min(r))

                def dist(x, y):
                    return np.max(np.abs(x - y)) / amp if x.shape == y.shape else np.inf
                rel, er, en = dist(n, r), dist(r, c), dist(n, c)
                # the same within the limit, or no farther from the
                # converged solution than the reference
                ok = rel < a.limit or en <= 1.1 * er
                bad += not ok
                print("  %-26s amplitude %.4g; new - ref %.3g, ref - converged %.3g, "
                      "new - converged %.3g  %s" % (name, amp, rel, er, en, "ok" if ok else "FAIL"))
    sys.exit(1 if bad else 0)


if __name__ == "__main__":
    main()
