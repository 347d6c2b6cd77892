#!/usr/bin/python3
"""Checks on whole runs of the repository's decks (issue "mbsim run ...").

usage: check_runs.py DIR    (DIR holds the HDF5 files written by t-regress.sh)

1. Properties the seed paper demonstrates (000 Fig. 3, Fig. 9):
   - double pendulum, HI: position residual <= 1e-9 at every sample; energy
     drift within 1 % of the largest kinetic energy; no secular trend (mean of
     the last quarter minus mean of the first quarter < 0.2 % of that scale);
   - double pendulum, FI: total energy decreases (backward Euler dissipates)
     by more than 1 % of that scale;
   - friction slider-crank: the largest jump of the driving torque grows with mu.
   - slider-crank with integrator.predictor last vs extrapolate: same
     positions to 1e-9 m, fewer Newton iterations (predictor()).
   - Andrews' squeezer (h = 1e-5): the seven joint angles at t = 0.03, plus
     their initial values, agree with the Test Set's published reference
     solution within the first-order error of the step: 1e-2 rad for beta
     and theta, which turn ~2.5 times, 1e-3 rad for the other five (bounded
     angles); HI energy balance (seed 004 eq. 23) within 0.2 % of the
     largest kinetic energy; FI loses more than 1 % of it.
   The energy bounds separate a conserving scheme from a dissipating one:
   each lies between what HI and FI give (measured, 8 s double pendulum as
   in docs/results/000 Fig. 3, and 0.03 s Andrews' squeezer): largest
   |drift| 0.08 % (HI) / 7.4 % (FI, 227 J) of the largest kinetic energy
   3061 J; trend and FI's loss 0.0017 % (HI) / 5.7 % (FI); Andrews |drift|
   0.12 % (HI) / 3.9 % (FI) of 1.51 J.  The Andrews angle
   errors at t = 0.03 are 5.7e-3 (beta), 7.2e-3 (theta) and at most 1.0e-4
   (phi, omega) rad; over the whole run `mbsim converge` against
   tools/andrews_ref.py measures max errors 5.7e-3, 7.2e-3 and 1.5e-3 rad
   at h = 1e-5, halving with h (tests/t-converge.sh checks the order).
2. Regression values: tests/regress/*.csv rows "file,dataset,column,time,value,rtol,atol"
   recorded from mbsim itself (see the header of each file for the build
   and why the tolerance); any change beyond where Newton stops and
   round-off fails.
"""
import csv
import glob
import os
import sys

import h5py
import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tools"))
from mbsimlib import series, text  # noqa: E402  (the one reader of result series)

failed = 0
passed = 0


def check(cond, what):
    global failed, passed
    if cond:
        passed += 1
        print("ok  ", what)
    else:
        failed += 1
        print("FAIL", what)


def andrews_testset():
    """Test Set "andrews": the seven angles' names, initial values and
    reference solution at t = 0.03 (tests/andrews_testset.csv says whence)."""
    path = os.path.join(os.path.dirname(os.path.abspath(__file__)), "andrews_testset.csv")
    with open(path) as fh:
        rows = [r for r in csv.reader(fh) if r and not r[0].startswith("#")]
    return [r[0] for r in rows], [float(r[1]) for r in rows], [float(r[2]) for r in rows]


def andrews(d):
    f = h5py.File(os.path.join(d, "as_hi.h5"), "r")
    t = f["time"][:]
    check(abs(t[-1] - 0.03) < 1e-12, "as_hi ends at t = 0.03")
    names, q0, q03 = andrews_testset()
    for k, name in enumerate(names):
        q = series(f, "joints/%s/coordinate" % name)[-1] + q0[k]
        tol = 1e-2 if k < 2 else 1e-3  # beta, theta turn; the others are bounded (docstring)
        check(abs(q - q03[k]) <= tol,
              "as_hi %s(0.03) = %.6f vs Test Set %.6f (tol %g)" % (name, q, q03[k], tol))
    K = f["energy/kinetic"][:]
    drift = f["energy/drift"][:]
    check(np.abs(drift).max() <= 0.002 * K.max(),
          "as_hi |drift| %.3g <= 0.2%% of max kinetic %.4g" % (np.abs(drift).max(), K.max()))
    g = h5py.File(os.path.join(d, "as_fi.h5"), "r")
    E = g["energy/drift"][:]
    check(E[-1] < -0.01 * K.max(), "as_fi energy decreases (drift %.3g J at 0.03)" % E[-1])


def predictor(d):
    """integrator.predictor: the cubic extrapolation of the Newton start
    changes where Newton starts, not what it solves.  On the driven
    slider-crank (no degrees of freedom, so no error growth) every sample
    agrees with the run from the last step's values to a few times the
    Newton tolerance (1e-10 on the displacement per step: 1e-9 m), and it
    needs fewer iterations."""
    for m in ("hi", "fi"):
        a = h5py.File(os.path.join(d, "sc_%s.h5" % m), "r")
        b = h5py.File(os.path.join(d, "sc_%s_last.h5" % m), "r")
        dev = max(np.abs(series(a, "bodies/%s/position" % n) - series(b, "bodies/%s/position" % n)).max()
                  for n in ("crank", "rod", "slider"))
        check(dev <= 1e-9, "sc_%s extrapolate vs last: positions within %.3g <= 1e-9 m" % (m, dev))
        ia, ib = a.attrs["mean_newton_iterations"], b.attrs["mean_newton_iterations"]
        check(ia < ib, "sc_%s mean Newton iterations %.3f (extrapolate) < %.3f (last)" % (m, ia, ib))


def datasets(g, prefix=""):
    for k, v in g.items():
        if isinstance(v, h5py.Dataset):
            yield prefix + "/" + k
        else:
            yield from datasets(v, prefix + "/" + k)


def is_series(ds):
    """A dataset with one row per sample (attribute units), not a table."""
    return "units" in ds.attrs


def layout(d):
    """Output files (src/io/h5.c, man/mbsim-output.5 layout 2): every series
    is chunked and extendible, written at flush points; the values do not
    depend on how often a run writes.  sc_hi samples every 100th step of
    sc_hi_every1's 8001, from the same computation: every series agrees
    bit for bit (NaN where a joint has no coordinate), and every table
    (names, offsets) is the same.  A failed run keeps its samples, every
    series the same length, and says why in its status."""
    a = h5py.File(os.path.join(d, "sc_hi_every1.h5"), "r")
    b = h5py.File(os.path.join(d, "sc_hi.h5"), "r")
    check(a["time"].shape == (8001,) and a["time"].chunks is not None and
          b["time"].shape == (81,) and b["time"].chunks is not None,
          "sc_hi_every1: 8001 samples, sc_hi: 81, both chunked")
    # (/checkpoint: a row at each flush, of the run's whole state with its
    # monitors, which follow the samples; not samples itself)
    names = sorted(n for n in datasets(b) if not n.startswith("/checkpoint/"))
    differ = [n for n in names if a[n].shape[1:] != b[n].shape[1:] or
              not (np.array_equal(a[n][::100], b[n][:], equal_nan=True) if is_series(b[n]) else
                   np.array_equal(a[n][()], b[n][()]) or n == "/deck")]
    # not an empty comparison: the time, the body names and the six body
    # series (man/mbsim-output.5) are among them
    want = ["/time", "/bodies/names"] + ["/bodies/%s" % q for q in (
        "position", "velocity", "acceleration", "orientation", "angular_velocity",
        "angular_acceleration")]
    check(set(want) <= set(names) and not differ and
          sorted(n for n in datasets(a) if not n.startswith("/checkpoint/")) == names and
          b["bodies/position"].shape == (81, 3, 3),
          "sc_hi_every1 every 100th row == sc_hi in all %d datasets (differ: %s)"
          % (len(names), differ[:3]))
    # the crank turns at 2 pi rad/s (its driver): with one sample per
    # turn the unwrapped angle still falls by 2 pi per second, as sampled
    # every step, since sim.c takes it between samples often enough (to
    # 1e-9 rad: the driver row is solved to the Newton tolerance 1e-10;
    # measured 0)
    c = series(h5py.File(os.path.join(d, "sc_hi_every1000.h5"), "r"), "joints/rev_a/coordinate")
    ce = series(a, "joints/rev_a/coordinate")[::1000]
    err = np.abs(c - c[0] + 2 * np.pi * np.arange(len(c))).max()
    check(len(c) == 9 and err < 1e-9 and np.array_equal(c, ce),
          "crank angle unwrapped over 8 turns sampled once per turn (off by %.2g rad)" % err)
    f = h5py.File(os.path.join(d, "fail.h5"), "r")
    st = text(f.attrs["status"])
    n = f["time"].shape[0]
    same = all(f[k].shape[0] == n for k in datasets(f) if is_series(f[k]))
    check(st.startswith("failed: Newton did not converge at t = 0.001 (step 1") and "joint '" in st
          and n >= 1 and same, "failed run: status '%s...', %d sample(s) in every series"
          % (st[:60], n))


def main(d):
    f = h5py.File(os.path.join(d, "dp_hi.h5"), "r")
    check(f.attrs["status"] == b"complete" or f.attrs["status"] == "complete", "dp_hi status complete")
    pres = f["constraints/position_residual"][:]
    check(pres.max() <= 1e-9, "dp_hi position residual %.3g <= 1e-9" % pres.max())
    K = f["energy/kinetic"][:]
    drift = f["energy/drift"][:]
    scale = K.max()
    check(np.abs(drift).max() <= 0.01 * scale,
          "dp_hi |drift| %.4g <= 1%% of max kinetic %.4g" % (np.abs(drift).max(), scale))
    n = len(drift)
    trend = abs(drift[-n // 4:].mean() - drift[: n // 4].mean())
    check(trend < 0.002 * scale, "dp_hi drift trend %.4g < 0.2%% of %.4g" % (trend, scale))
    g = h5py.File(os.path.join(d, "dp_fi.h5"), "r")
    E = g["energy/total"][:]
    m = len(E)
    check(E[-m // 4:].mean() < E[: m // 4].mean() - 0.01 * scale,
          "dp_fi total energy decreases (%.4g -> %.4g)" % (E[: m // 4].mean(), E[-m // 4:].mean()))
    jumps = []
    for mu in ("0", "0.2", "0.4"):
        h = h5py.File(os.path.join(d, "scf_%s.h5" % mu), "r")
        e = series(h, "drivers/motor/effort")
        jumps.append(np.abs(np.diff(e)).max())
    check(jumps[0] < jumps[1] < jumps[2],
          "friction torque jumps grow with mu: %s" % ", ".join("%.4g" % j for j in jumps))
    andrews(d)
    predictor(d)
    layout(d)
    for path in sorted(glob.glob(os.path.join(os.path.dirname(__file__), "regress", "*.csv"))):
        with open(path) as fh:
            rows = [r for r in csv.reader(fh) if r and not r[0].startswith("#")]
        for name, ds, col, t, val, rtol, atol in rows:
            h = h5py.File(os.path.join(d, name), "r")
            times = h["time"][:]
            i = int(np.argmin(np.abs(times - float(t))))
            data = series(h, ds)
            got = data[i] if data.ndim == 1 else data[i, int(col)]
            tol = float(atol) + float(rtol) * abs(float(val))
            check(abs(got - float(val)) <= tol and abs(times[i] - float(t)) < 1e-9,
                  "%s %s[%s] at t=%s: %.12g vs %s (tol %.2g)" % (name, ds, col, t, got, val, tol))
    print("%d passed, %d failed" % (passed, failed))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1]))
