#!/usr/bin/python3
"""check_tolprop.py - tolerance proportionality of mbsim's step control (issue 18 item 1).

Usage: check_tolprop.py MBSIM METHOD DECK TOLS [REF.h5] [--set KEY=VALUE]...
  DECK  andrews: decks/andrews_squeezer.yaml; error = max over the 7 angles
        at t = 0.03 of |q - q_ref| / (1 + |q_ref|), q_ref the Test Set
        solution (tests/andrews_testset.csv) -- the weight atol + rtol |q|
        of each angle divided by the tolerance, atol = rtol
        spherical_top: decks/spherical_top.yaml; error = max over the run's samples
        of max_xyz |r - r_ref| / (1 + |r_ref|) of the centroid, r_ref from
        REF.h5 (tools/spherical_top_ref.py --dt 1e-4) by cubic Hermite
        interpolation in position and velocity (interpolation error below
        h^4/384 max|r''''| = 3e-14 m for h = 1e-4, l w^4 = 0.3 * 25^4)
  TOLS  comma-separated tolerances; each run has atol = rtol = TOL,
        integrator.adaptive = true.

--abs-limit TOL:LIMIT (andrews): also require max |q - q_ref| < LIMIT at
that TOL (issue 18's done-when: 1e-8:1e-7).

Passes (exit 0) when at every TOL the error is at most 10 TOL, and the
least-squares slope of log(error) against log(TOL) is within 0.8 .. 1.2
(issue 18: "within a factor 10 of the tolerance ... falls at a slope
within 0.8-1.2").  Prints one line per tolerance: error, error / TOL,
steps, rejected steps.  Reads results only through mbsimlib.series.
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


def andrews_error(f, absolute=False):
    rows = [ln.strip().split(",") for ln in open(os.path.join(TOP, "tests/andrews_testset.csv"))
            if ln.strip() and not ln.startswith("#")]
    t = series(f, "time")
    if abs(t[-1] - 0.03) > 1e-12:
        sys.exit("check_tolprop: andrews run ends at t = %r" % t[-1])
    # the deck's joint coordinate is the Test Set angle minus its initial value
    err = 0.0
    for name, q0, q3 in rows:
        q = series(f, "joints/%s/coordinate" % name)[-1] + float(q0)
        err = max(err, abs(q - float(q3)) / (1 if absolute else 1 + abs(float(q3))))
    return err


def top_error(f, ref):
    tr, rr, vr = series(ref, "time"), series(ref, "bodies/top/position"), series(ref, "bodies/top/velocity")
    t, r = series(f, "time"), series(f, "bodies/top/position")
    if t[-1] > tr[-1] + 1e-12:
        sys.exit("check_tolprop: reference ends at %g before the run (%g)" % (tr[-1], t[-1]))
    i = np.clip(np.searchsorted(tr, t) - 1, 0, len(tr) - 2)
    h = (tr[i + 1] - tr[i])[:, None]
    s = (t[:, None] - tr[i][:, None]) / h
    rh = ((2 * s**3 - 3 * s**2 + 1) * rr[i] + (s**3 - 2 * s**2 + s) * h * vr[i]
          + (-2 * s**3 + 3 * s**2) * rr[i + 1] + (s**3 - s**2) * h * vr[i + 1])
    return (np.abs(r - rh) / (1 + np.abs(rh))).max()


def main():
    args = sys.argv[1:]
    sets, done = [], None
    while "--set" in args:
        k = args.index("--set")
        sets += ["--set", args[k + 1]]
        del args[k:k + 2]
    if "--abs-limit" in args:
        k = args.index("--abs-limit")
        done = [float(x) for x in args[k + 1].split(":")]
        del args[k:k + 2]
    exe, method, deck, tols = args[0], args[1], args[2], [float(x) for x in args[3].split(",")]
    ref = h5py.File(args[4], "r") if deck == "spherical_top" else None
    path = os.path.join(TOP, "decks", "andrews_squeezer.yaml" if deck == "andrews" else deck + ".yaml")
    errs, ok = [], True
    with tempfile.TemporaryDirectory() as tmp:
        out = os.path.join(tmp, "r.h5")
        for tol in tols:
            cmd = [exe, "run", path, "-o", out, "--quiet", "--set", "integrator.method=" + method,
                   "--set", "integrator.adaptive=true", "--set", "integrator.atol=%g" % tol,
                   "--set", "integrator.rtol=%g" % tol] + sets
            r = subprocess.run(cmd, capture_output=True, text=True)
            if r.returncode != 0:
                print("  tol %g: run failed (exit %d): %s" % (tol, r.returncode, r.stderr.strip()))
                return 1
            with h5py.File(out, "r") as f:
                e = andrews_error(f) if deck == "andrews" else top_error(f, ref)
                if done and deck == "andrews" and tol == done[0]:
                    ea = andrews_error(f, absolute=True)
                    ok &= ea < done[1]
                    print("  tol %.0e: max |q - q_ref| over the 7 angles %.3e (limit %g)%s"
                          % (tol, ea, done[1], "" if ea < done[1] else "  FAILS"))
                n, rej = len(series(f, "time")) - 1, f.attrs.get("rejected_steps", -1)
            errs.append(e)
            flag = "" if e <= 10 * tol else "  > 10 tol"
            ok &= e <= 10 * tol
            print("  tol %.0e: error %.3e = %.3f tol, %d samples, %s rejected%s"
                  % (tol, e, e / tol, n, rej, flag))
    slope = np.polyfit(np.log(tols), np.log(errs), 1)[0]
    ok &= 0.8 <= slope <= 1.2
    print("  slope of log(error) on log(tol): %.3f (want 0.8 .. 1.2)" % slope)
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
