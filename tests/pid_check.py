#!/usr/bin/python3
"""pid_check.py - one scheme's runs against a reference (tests/t-pid.sh).

  pid_check.py LABEL ORDER COARSE FINE REF REF2 [EXACT]

COARSE and FINE: the scheme at step h and h/2 (ORDER a number), or at
tolerances tol and tol/100 (ORDER "tol"); REF, REF2: lms2 at h_r and 2 h_r;
EXACT (optional): an independent solution (tools/pid_pendulum_ref.py).
Compared on every joint coordinate and every finite /forces/effort column
at the samples all files share (to 1e-9 s).

The bound.  For a scheme of order p the difference of its runs at h and
h/2 is (2^p - 1) times the error of the finer one, to leading order
(Richardson), so est = max|FINE - COARSE| / (2^p - 1); for a scheme run at
tolerances, est = max|FINE - COARSE| (its error at tol/100 is below its
change from tol).  lms2 (order 2) estimates its own error the same way,
est_r = max|REF - REF2| / 3.  FINE must agree with REF within
2 (est + est_r): each estimate doubled for the terms past the leading one.
With EXACT: FINE within 2 est + 1e-11 of it (1e-11: the reference's
tolerance, 1e-13, times the 1e2 growth of its global error), and the
observed order log2(|COARSE - EXACT| / |FINE - EXACT|) at least p - 0.5
while the error is above 1e-11; for tolerances, |FINE - EXACT| at most
|COARSE - EXACT| / 10 (the error falls at least as tol^(1/2)).
Prints one line of numbers; exits 1 when a check fails, naming it and the
time of the largest difference.
"""
import sys

import h5py
import numpy as np


def load(path):
    with h5py.File(path, "r") as f:
        t = f["time"][:]
        cols = {}
        for j, n in enumerate(f["joints/names"][:]):
            cols["q." + n.decode()] = f["joints/coordinate"][:, j]
        if "forces/effort" in f:
            for j, n in enumerate(f["forces/names"][:]):
                e = f["forces/effort"][:, j]
                if np.all(np.isfinite(e)):
                    cols["effort." + n.decode()] = e
    return t, cols


def common(runs):
    """Sample rows of each run at the times all share."""
    t0 = runs[0][0]
    keep = np.ones(len(t0), bool)
    idx = []
    for t, _ in runs:
        i = np.clip(np.searchsorted(t, t0 - 1e-9), 0, len(t) - 1)
        keep &= np.abs(t[i] - t0) < 1e-9
        idx.append(i)
    return t0[keep], [i[keep] for i in idx]


def diff(a, b, ia, ib, t):
    """max |a - b| over the shared columns, its time and column; none
    shared (a file naming its joint or motor otherwise) exits 1, where a
    difference of 0 would pass every check."""
    worst = (0.0, 0.0, "")
    shared = [k for k in a[1] if k in b[1]]
    if not shared:
        sys.exit("no column shared by two of the files: %s and %s" % (sorted(a[1]), sorted(b[1])))
    for k in shared:
        d = np.abs(a[1][k][ia] - b[1][k][ib])
        j = int(np.argmax(d))
        if d[j] > worst[0]:
            worst = (float(d[j]), float(t[j]), k)
    return worst


def main():
    label, order = sys.argv[1], sys.argv[2]
    runs = [load(p) for p in sys.argv[3:]]
    t, ix = common(runs)
    if len(t) < 10:
        sys.exit("%s: %d common samples" % (label, len(t)))
    co, fi, rf, r2 = runs[:4]
    gap = diff(fi, co, ix[1], ix[0], t)
    est = gap[0] if order == "tol" else gap[0] / (2.0 ** float(order) - 1.0)
    est_r = diff(rf, r2, ix[2], ix[3], t)[0] / 3.0
    err = diff(fi, rf, ix[1], ix[2], t)
    bound = 2.0 * (est + est_r)
    out = ["%s: |fine - lms2| %.3g (%s, t = %.4g) <= %.3g = 2 (est %.3g + lms2's %.3g)" %
           (label, err[0], err[2], err[1], bound, est, est_r)]
    bad = []
    if not err[0] <= bound:
        bad.append("fine run off lms2")
    if len(runs) > 4:
        ex = runs[4]
        ec = diff(co, ex, ix[0], ix[4], t)
        ef = diff(fi, ex, ix[1], ix[4], t)
        out.append("exact: coarse %.3g, fine %.3g (%s, t = %.4g)" % (ec[0], ef[0], ef[2], ef[1]))
        if not ef[0] <= 2.0 * est + 1e-11:
            bad.append("fine run off the exact solution by more than 2 est + 1e-11")
        if order == "tol" and not ef[0] <= ec[0] / 10.0:
            bad.append("error at tol / 100 not a tenth of that at tol")
        if order != "tol" and ef[0] > 1e-11:
            p = np.log2(ec[0] / ef[0])
            out.append("observed order %.2f" % p)
            if not p >= float(order) - 0.5:
                bad.append("observed order %.2f < %s - 0.5" % (p, order))
    print("; ".join(out))
    if bad:
        print("FAILED: " + ", ".join(bad))
        sys.exit(1)


if __name__ == "__main__":
    main()
