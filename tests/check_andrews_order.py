#!/usr/bin/python3
"""check_andrews_order.py - order of a scheme on Andrews' squeezer against the Test Set.

Usage: check_andrews_order.py MBSIM METHOD STEPS P TOL [--set KEY=VALUE]...

Runs decks/andrews_squeezer.yaml to t = 0.03 with each fixed step of STEPS
(comma-separated) and takes the error max_i |q_i(0.03) - q_ref,i| over the
7 angles, q_ref the Test Set solution (tests/andrews_testset.csv; the
deck's joint coordinate is the angle minus its initial value).  Passes
(exit 0) when the least-squares slope of log(error) on log(h) is within
TOL of P.  Prints the errors, the order between neighbouring steps and the
slope.  An independent reference (PSIDE at 1e-14 in the Test Set,
reproduced by tools/andrews_ref.py to 1.4e-9) that needs no run of its own;
only t = 0.03 is compared.
"""
import os
import subprocess
import sys
import tempfile

import h5py
import numpy as np

TOP = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(TOP, "tools"))
from mbsimlib import series  # noqa: E402


def main():
    args = sys.argv[1:]
    sets = []
    while "--set" in args:
        k = args.index("--set")
        sets += ["--set", args[k + 1]]
        del args[k:k + 2]
    exe, method = args[0], args[1]
    steps = [float(x) for x in args[2].split(",")]
    p, tol = float(args[3]), float(args[4])
    rows = [ln.strip().split(",") for ln in open(os.path.join(TOP, "tests/andrews_testset.csv"))
            if ln.strip() and not ln.startswith("#")]
    errs = []
    with tempfile.TemporaryDirectory() as tmp:
        out = os.path.join(tmp, "a.h5")
        for h in steps:
            cmd = [exe, "run", os.path.join(TOP, "decks/andrews_squeezer.yaml"), "-o", out,
                   "--quiet", "--set", "integrator.method=" + method,
                   "--set", "integrator.step=%r" % h, "--set", "output.every=1000000"] + sets
            r = subprocess.run(cmd, capture_output=True, text=True)
            if r.returncode != 0:
                print("  h %g: run failed (exit %d): %s" % (h, r.returncode, r.stderr.strip()))
                return 1
            with h5py.File(out, "r") as f:
                t = series(f, "time")
                if abs(t[-1] - 0.03) > 1e-12:
                    print("  h %g: run ends at t = %r, not 0.03" % (h, t[-1]))
                    return 1
                errs.append(max(abs(series(f, "joints/%s/coordinate" % n)[-1] + float(q0) - float(q3))
                                for n, q0, q3 in rows))
    for i, (h, e) in enumerate(zip(steps, errs)):
        o = "" if i == 0 else "  order %.2f" % (np.log(errs[i - 1] / e) / np.log(steps[i - 1] / h))
        print("  h %g: max angle error %.3e%s" % (h, e, o))
    slope = np.polyfit(np.log(steps), np.log(errs), 1)[0]
    ok = abs(slope - p) <= tol
    print("  slope %.3f (want %g +- %g)" % (slope, p, tol))
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
