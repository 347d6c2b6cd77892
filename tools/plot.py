#!/usr/bin/python3
"""plot.py - series of one or many mbsim runs against time, to PNG, PDF or SVG.

usage: /usr/bin/python3 tools/plot.py FILE.h5... QUANTITY... [-o OUT.png|OUT.pdf|OUT.svg]
           [--title TEXT] [--size W,H] [--dpi N]

An argument that ends in .h5 or names an existing file is a result file of
`mbsim run` (man/mbsim-output.5); the others are quantities, PATH[:COMP]
as `mbsim compare`, `mbsim summary` and `mbsim export --csv` take them:
a series by its logical name (bodies/rod/position, joints/pin/coordinate,
drivers/crank/effort, energy/total, ...) and optionally one component (x,
y, z; w of an orientation; a column's index).  Each quantity is one panel
(stacked, sharing the time axis) with one line per file, or, for a series
of several columns and no COMP, one line per file and column; the y axis
is labelled with the quantity and its units (the series' "units"
attribute), the x axis with the time in s.

Each file's lines are labelled by the --set values that tell the files
apart (the "settings" attribute that `mbsim run` writes and `tools/sweep`
sets: `method=lms2, step=0.001`), a key shortened to its last component
where that is unambiguous; by the file name when they do not differ.
The format follows the extension of -o (default: the first file's name
with .png); matplotlib draws without a display (Agg).  In an SVG each line
is a group whose id is "series N" (N from 1), for programs that read it.

Exit status: 0; 1 when a file is missing, not HDF5, not an output of
`mbsim run`, or lacks a quantity or component (one line on stderr, no
traceback, nothing written); 2 on a usage error.
"""
import argparse
import os
import sys

import h5py
import numpy as np

import matplotlib
matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

import mbsimlib  # noqa: E402

FORMATS = (".png", ".pdf", ".svg")


def fail(msg):
    sys.exit("plot.py: " + msg)


def settings(f):
    """The KEY=VALUE pairs of a file's --set arguments, in order, a later key
    winning (the root attribute "settings": one a line, backslash and line
    break escaped as \\\\ and \\n), as mbsim summary reads them."""
    s = mbsimlib.text(f.attrs.get("settings", ""))
    out = {}
    for line in s.split("\n"):
        kv, i = "", 0
        while i < len(line):            # \\ and \n back to \ and a line break
            if line[i] == "\\" and i + 1 < len(line):
                i += 1
                kv += "\n" if line[i] == "n" else line[i]
            else:
                kv += line[i]
            i += 1
        k, sep, v = kv.partition("=")
        if sep and k:
            out.pop(k, None)
            out[k] = v
    return out


def labels(files, sets):
    """A label per file: the settings whose values differ between the files,
    a key by its last component when no other key shares it; else the file
    name."""
    keys = []
    for s in sets:
        keys += [k for k in s if k not in keys]
    vary = [k for k in keys if len({s.get(k) for s in sets}) > 1]
    if not vary:
        return [os.path.basename(p) for p in files]
    last = [k.split(".")[-1] for k in vary]
    short = [s if last.count(s) == 1 else k for k, s in zip(vary, last)]
    return [", ".join("%s=%s" % (sk, s.get(k, "-")) for k, sk in zip(vary, short)) for s in sets]


def read(path, quants):
    """Times and, per quantity, (values (n, m), column names, units) of one
    file; exits with a message for a file or quantity that cannot be read."""
    if not os.path.exists(path):
        fail("%s: no such file" % path)
    if not os.path.isfile(path):
        fail("%s: not a regular file" % path)
    try:
        f = h5py.File(path, "r")
    except OSError:
        fail("%s: not an HDF5 file or not readable" % path)
    with f:
        if "time" not in f:
            what = "a modes file (mbsim modes -o), not a run" if "modes" in f else \
                "not an output of mbsim run (no /time)"
            fail("%s: %s" % (path, what))
        t = mbsimlib.series(f, "time")
        sets = settings(f)
        out = []
        for q in quants:
            sp, comp = mbsimlib.split_quantity(q)
            try:
                a = np.asarray(mbsimlib.series(f, sp), dtype=float)
            except (KeyError, ValueError, OSError) as e:
                msg = str(e.args[0]) if e.args else ""
                fail("%s: %s" % (path, msg if msg.startswith("no series") else
                                 "no series '%s'" % sp))
            a = a.reshape(a.shape[0], -1)
            if a.shape[0] < len(t):
                fail("%s: '%s' has %d samples, /time %d" % (path, sp, a.shape[0], len(t)))
            a = a[:len(t)]
            if comp is not None:
                k = mbsimlib.component(sp, comp, a.shape[1])
                if k is None:
                    fail("%s: no component '%s' in %s with %d columns (use x, y, z%s or an "
                         "index 0..%d)" % (path, comp, sp, a.shape[1],
                                           ", w" if sp.endswith("/orientation") and
                                           a.shape[1] == 4 else "", a.shape[1] - 1))
                cols = [comp]
                a = a[:, k:k + 1]
            elif a.shape[1] == 1:
                cols = [None]
            else:
                quat = sp.endswith("/orientation") and a.shape[1] == 4
                cols = list("wxyz") if quat else list("xyz") if a.shape[1] == 3 else \
                    [str(j) for j in range(a.shape[1])]
            out.append((a, cols, mbsimlib.units(f, sp)))
    return t, sets, out


def split_args(args):
    files = [a for a in args if a.endswith(".h5") or os.path.isfile(a)]
    quants = [a for a in args if a not in files]
    return files, quants


def figure(files, quants, title=None, size=(7, 3), dpi=100):
    """The figure of the quantities of the files and its number of lines."""
    data = [read(p, quants) for p in files]
    names = labels(files, [d[1] for d in data])
    fig, axes = plt.subplots(len(quants), 1, sharex=True, squeeze=False,
                             figsize=(size[0], size[1] * len(quants)), dpi=dpi)
    n = 0
    for i, q in enumerate(quants):
        ax = axes[i][0]
        units = ""
        for (t, _, series), name in zip(data, names):
            a, cols, units = series[i]
            for j, c in enumerate(cols):
                n += 1
                lab = name if c is None or len(cols) == 1 else "%s: %s" % (name, c)
                ax.plot(t, a[:, j], label=lab, gid="series %d" % n)
        ax.set_ylabel("%s, %s" % (q, units) if units else q)
        ax.grid(True, alpha=0.3)
        if len(ax.get_lines()) > 1:
            ax.legend(fontsize="small")
    axes[-1][0].set_xlabel("time, s")
    if title:
        axes[0][0].set_title(title)
    fig.tight_layout()
    return fig, n


def plot(files, quants, out, title, size, dpi):
    fig, n = figure(files, quants, title, size, dpi)
    try:
        fig.savefig(out)
    except OSError as e:
        fail("%s: %s" % (out, e.strerror or e))
    plt.close(fig)
    return n


def main():
    ap = argparse.ArgumentParser(prog="plot.py", description=__doc__.split("\n")[0],
                                 formatter_class=argparse.RawDescriptionHelpFormatter,
                                 epilog=__doc__.split("\n", 2)[2])
    ap.add_argument("args", nargs="+", metavar="FILE.h5|QUANTITY")
    ap.add_argument("-o", "--output", help="the plot, .png, .pdf or .svg")
    ap.add_argument("--title")
    ap.add_argument("--size", default="7,3", help="inches per panel, W,H (default 7,3)")
    ap.add_argument("--dpi", type=int, default=100)
    a = ap.parse_args()
    files, quants = split_args(a.args)
    if not files:
        ap.error("no result file (FILE.h5) among %s" % " ".join(a.args))
    if not quants:
        ap.error("no quantity to plot (e.g. bodies/NAME/position:x, energy/total)")
    out = a.output or os.path.splitext(files[0])[0] + ".png"
    if os.path.splitext(out)[1].lower() not in FORMATS:
        ap.error("-o %s: the plot must be a .png, .pdf or .svg" % out)
    try:
        size = tuple(float(v) for v in a.size.split(","))
        assert len(size) == 2 and min(size) > 0
    except (ValueError, AssertionError):
        ap.error("bad --size '%s' (want W,H in inches)" % a.size)
    n = plot(files, quants, out, a.title, size, a.dpi)
    mbsimlib.say("plot.py: %s, %d line%s" % (out, n, "" if n == 1 else "s"))


if __name__ == "__main__":
    main()
