"""restart_cmp.py FULL.h5 RESTARTED.h5 [--exact | --bound B --ref REF.h5]

Compares the file of a run restarted from a checkpoint (mbsim run
--restart) with the file of the run it continues, at every sample time
the two share (the restarted file's first sample is the checkpoint's
state, its last the end):

  --exact   every sample series (every dataset whose first axis is the
            sample: bodies, joints, drivers, forces, energy, solver,
            constraints) equal bit for bit, NaNs in the same places;
  --bound F the body positions within F times E, E = the largest
            difference of the full run's positions from REF.h5 (the same
            run at half the step or a tenth of the tolerance: an estimate
            of the full run's own error) at their common samples.

Exits 0 when it holds, 1 with the worst dataset otherwise.  The two files
must end at the same time and share at least two samples."""
import sys

import h5py
import numpy as np


def common(ta, tb):
    ia = {t: i for i, t in enumerate(ta)}
    return [(ia[t], j) for j, t in enumerate(tb) if t in ia]


def exact(a, b):
    ta, tb = a["time"][:], b["time"][:]
    c = common(ta, tb)
    if len(c) < 2 or ta[-1] != tb[-1]:
        return False, "only %d common samples, ends %r %r" % (len(c), ta[-1], tb[-1])
    ia, ib = [i for i, _ in c], [j for _, j in c]
    bad, n = [], [0]

    def visit(name, o):
        if (not isinstance(o, h5py.Dataset) or name.startswith("checkpoint") or not o.shape
                or o.shape[0] != len(tb) or name not in a or o.dtype.kind not in "fi"
                or a[name].shape[0] != len(ta)):
            return
        x, y = np.asarray(a[name][ia], float), np.asarray(o[ib], float)
        n[0] += 1
        if not np.array_equal(x, y, equal_nan=True):
            bad.append("%s (max diff %.3g)" % (name, np.nanmax(np.abs(x - y))))
    b.visititems(visit)
    if n[0] < 20:
        return False, "only %d series compared" % n[0]
    msg = "%d series at %d samples, t = %.6g to %.6g" % (n[0], len(c), tb[ib[0]], tb[-1])
    return not bad, msg + ("" if not bad else ": differ: " + ", ".join(bad[:5]))


def posdiff(a, b):
    c = common(a["time"][:], b["time"][:])
    if len(c) < 2:
        return None, 0
    pa = a["bodies/position"][[i for i, _ in c]]
    pb = b["bodies/position"][[j for _, j in c]]
    return float(np.max(np.abs(pa - pb))), len(c)


def main():
    args = sys.argv[1:]
    a, b = h5py.File(args[0], "r"), h5py.File(args[1], "r")
    if "--exact" in args:
        ok, msg = exact(a, b)
    else:
        f = float(args[args.index("--bound") + 1])
        ref = h5py.File(args[args.index("--ref") + 1], "r")
        d, n = posdiff(a, b)
        e, m = posdiff(a, ref)
        if a["time"][-1] != b["time"][-1] or d is None or e is None:
            ok, msg = False, "no common samples or different ends"
        else:
            ok = d <= f * e
            msg = ("positions differ by %.3g m at %d samples; the run's own error %.3g m "
                   "(against the reference at %d samples), bound %g x that" % (d, n, e, m, f))
    print(msg)
    sys.exit(0 if ok else 1)


main()
