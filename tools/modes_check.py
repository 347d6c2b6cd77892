#!/usr/bin/python3
"""modes_check.py - does a free vibration ring at the frequency `mbsim modes` gives?

  tools/modes_check.py MODES.h5 RUN.h5 K [--rtol R]

MODES.h5 is written by `mbsim modes DECK -o MODES.h5`, RUN.h5 by
`mbsim run DECK --excite-mode K` (the static equilibrium, started with the
velocities of mode K: mbsim-run(1)).  The run's displacement from the
static state, in the coordinates of a mode shape (mbsim-modes(1): per body
dr global and the small rotation dth in the body frame), is projected on
Re(shape K); its zero crossings, each placed by linear interpolation between
samples, give the damped frequency f = (n - 1) / (2 (t_n - t_1)) of n
crossings.  Compared with mode K's damped frequency.  Prints one line; exit
0 when |f - f_K| <= R f_K (default 1e-3), 1 when not, 2 on bad input.

The two are independent: the modes come from the eigenvalues of the
linearized constrained system (finite-difference stiffness, LAPACK dggev),
the run from integrating the nonlinear equations.
"""
import argparse
import sys

import h5py
import numpy as np


def quat_to_mat(q):
    """(..., 4) unit quaternions (w, x, y, z) -> (..., 3, 3) rotation matrices."""
    w, x, y, z = (q[..., i] for i in range(4))
    return np.stack([
        np.stack([1 - 2 * (y * y + z * z), 2 * (x * y - w * z), 2 * (x * z + w * y)], -1),
        np.stack([2 * (x * y + w * z), 1 - 2 * (x * x + z * z), 2 * (y * z - w * x)], -1),
        np.stack([2 * (x * z - w * y), 2 * (y * z + w * x), 1 - 2 * (x * x + y * y)], -1)], -2)


def read_modes(path):
    with h5py.File(path, "r") as f:
        if "modes/frequency" not in f:
            raise ValueError("%s: not a file of mbsim modes (no /modes)" % path)
        names = [n.decode() if isinstance(n, bytes) else str(n) for n in f["state/bodies"][()]]
        return {"names": names,
                "freq": f["modes/frequency"][()], "damped": f["modes/damped_frequency"][()],
                "zeta": f["modes/damping_ratio"][()], "free": f["modes/free"][()],
                "shape": f["modes/shape"][()],
                "r0": f["state/position"][0], "A0": f["state/rotation"][0].reshape(-1, 3, 3)}


def pick(path, zmax=0.1, fmin=1e-3):
    """The lowest mode (1-based) that rings: not a free motion, 0 <= zeta <= zmax,
    a damped frequency >= fmin Hz (below it 8 periods take hours, and a
    frequency that low in a model of metres and kilograms is most likely a
    free motion that rounding left above modes' free-motion threshold); or
    (None, why)."""
    m = read_modes(path)
    grow = [k + 1 for k in range(len(m["freq"])) if m["zeta"][k] < 0 and not m["free"][k]]
    if grow:  # any excitation also wakes the growing modes: no free vibration
        return None, "unstable equilibrium (mode %d grows)" % grow[0]
    for k in range(len(m["freq"])):
        if m["free"][k] or m["damped"][k] <= 0:
            continue
        if m["damped"][k] < fmin:
            return None, "lowest mode %d at %.3g Hz, below %g Hz" % (k + 1, m["damped"][k], fmin)
        if 0 <= m["zeta"][k] <= zmax:
            return k + 1, ""
        return None, "lowest mode %d has damping ratio %.3g" % (k + 1, m["zeta"][k])
    return None, "no vibration mode (free motions or overdamped only)"


def displacement(m, run):
    """(N, 6 n_b) displacement of RUN from the static state, in shape coordinates."""
    with h5py.File(run, "r") as f:
        t = f["time"][()]
        groups = {}
        for g in ("bodies", "particles"):
            if g + "/names" in f:
                nm = [n.decode() if isinstance(n, bytes) else str(n) for n in f[g + "/names"][()]]
                pos = f[g + "/position"][:len(t)]
                ori = f[g + "/orientation"][:len(t)] if g == "bodies" else None
                for i, n in enumerate(nm):
                    groups[n] = (pos[:, i], None if ori is None else ori[:, i])
    d = np.zeros((len(t), 6 * len(m["names"])))
    for b, n in enumerate(m["names"]):
        if n not in groups:
            raise ValueError("%s: body '%s' of the modes file is not in the run" % (run, n))
        p, q = groups[n]
        d[:, 6 * b:6 * b + 3] = p - m["r0"][b]
        if q is not None:
            A = quat_to_mat(q)
            if np.abs(A[0] - m["A0"][b]).max() > 1e-9:
                raise ValueError("%s: body '%s' does not start at the static state of the "
                                 "modes file" % (run, n))
            R = np.einsum("ji,njk->nik", m["A0"][b], A)  # A0^T A = exp(dth~)
            d[:, 6 * b + 3:6 * b + 6] = 0.5 * np.stack(
                [R[:, 2, 1] - R[:, 1, 2], R[:, 0, 2] - R[:, 2, 0], R[:, 1, 0] - R[:, 0, 1]], -1)
    return t, d


def measure(modes, run, k):
    """(frequency of the run, damped frequency of mode k, crossings)."""
    m = read_modes(modes)
    if not 1 <= k <= len(m["freq"]):
        raise ValueError("%s has %d modes, not %d" % (modes, len(m["freq"]), k))
    t, d = displacement(m, run)
    psi = m["shape"][k - 1][:, 0]
    y = d @ psi / (psi @ psi)
    s = np.nonzero(np.signbit(y[1:]) != np.signbit(y[:-1]))[0]
    s = s[y[s] != 0]          # the start, y = 0 exactly, is no crossing
    tc = t[s] - y[s] * (t[s + 1] - t[s]) / (y[s + 1] - y[s])
    if len(tc) < 3:
        return float("nan"), float(m["damped"][k - 1]), len(tc)
    return (len(tc) - 1) / (2 * (tc[-1] - tc[0])), float(m["damped"][k - 1]), len(tc)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("modes")
    ap.add_argument("run")
    ap.add_argument("k", type=int)
    ap.add_argument("--rtol", type=float, default=1e-3)
    a = ap.parse_args()
    try:
        f, fk, n = measure(a.modes, a.run, a.k)
    except (OSError, KeyError, ValueError) as e:
        print("modes_check.py: %s" % e, file=sys.stderr)
        return 2
    err = abs(f - fk) / fk if n >= 3 else float("inf")
    print("mode %d: run %.9g Hz from %d crossings, modes %.9g Hz, relative difference %.3g "
          "(bound %.3g)" % (a.k, f, n, fk, err, a.rtol))
    return 0 if err <= a.rtol else 1


if __name__ == "__main__":
    sys.exit(main())
