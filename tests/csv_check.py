#!/usr/bin/python3
"""csv_check.py - a CSV of `mbsim export --csv` against its HDF5 file.

usage: /usr/bin/python3 tests/csv_check.py FILE.csv FILE.h5 [--default]

Reads the CSV back with Python's csv module and checks, column by column,
that every value is the double the HDF5 file holds (float() of the text
equal to h5py's value, bit for bit; an empty field where the file holds
NaN), read through h5py and mbsimlib.series, not through mbsim: the time
column against /time, a column "PATH:COMP [UNITS]" against the series PATH
(COMP: x, y, z the columns 0, 1, 2 of a vector; w, x, y, z those of an
orientation quaternion (w, x, y, z); a number the column of that index;
no COMP: a series of one column), UNITS against the "units" attribute of
the dataset.  With --default it also checks that the columns are every
column of every series under the groups man/mbsim-export.1 names for the
default, found by walking the file with h5py.  Prints "N columns, M rows"
and exits 0, or prints what differs and exits 1.
"""
import csv
import math
import os
import re
import sys

import h5py
import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tools"))
import mbsimlib  # noqa: E402

GROUPS = ("bodies", "particles", "points", "joints", "drivers", "forces", "measures", "energy")


def column_of(path, comp, ncols):
    if comp is None:
        return 0 if ncols == 1 else None
    return mbsimlib.component(path, comp, ncols)


def default_columns(f):
    """(path, ncols) of every series under GROUPS, by walking the file."""
    out = []
    for g in GROUPS:
        if g not in f:
            continue
        for qty, ds in f[g].items():
            if not isinstance(ds, h5py.Dataset) or qty == "names" or \
                    qty.endswith("_names") or qty.endswith("_offsets") or \
                    qty.endswith("_units"):   # tables of units per element
                continue
            if "names" not in ds.attrs:               # a series of the group: /energy/total
                a = mbsimlib.series(f, "%s/%s" % (g, qty))
                out.append(("%s/%s" % (g, qty), a.reshape(a.shape[0], -1).shape[1]))
                continue
            names = [mbsimlib.text(n) for n in f[mbsimlib.text(ds.attrs["names"])][()]]
            for n in names:
                a = mbsimlib.series(f, "%s/%s/%s" % (g, n, qty))
                out.append(("%s/%s/%s" % (g, n, qty), a.reshape(a.shape[0], -1).shape[1]))
    return out


def same(text, x):
    if math.isnan(x):
        return text == ""
    return text != "" and float(text) == x     # the same double, not a tolerance


def main():
    csvp, h5p = sys.argv[1], sys.argv[2]
    with open(csvp, newline="") as fp:
        rows = list(csv.reader(fp))
    head, body = rows[0], rows[1:]
    errs = []
    with h5py.File(h5p, "r") as f:
        t = mbsimlib.series(f, "time")
        if len(body) != len(t):
            errs.append("%d rows, /time has %d samples" % (len(body), len(t)))
        if head[0] != "time [s]":
            errs.append("first column '%s', want 'time [s]'" % head[0])
        seen = {}
        for j, h in enumerate(head):
            m = re.fullmatch(r"(.+?)(?::([a-z0-9]+))? \[(.*)\]", h)
            if not m:
                errs.append("column %d: header '%s' is not 'PATH[:COMP] [UNITS]'" % (j, h))
                continue
            path, comp, units = m.groups()
            a = t if j == 0 else mbsimlib.series(f, path)
            a = a.reshape(a.shape[0], -1)
            k = column_of(path, comp, a.shape[1])
            if k is None or k >= a.shape[1]:
                errs.append("column '%s': no such column in %s (%d)" % (h, path, a.shape[1]))
                continue
            if j > 0:
                seen[path] = seen.get(path, 0) + 1
                if units != mbsimlib.units(f, path):
                    errs.append("column '%s': units '%s', file '%s'" % (h, units, mbsimlib.units(f, path)))
            bad = [i for i in range(min(len(body), len(t))) if not same(body[i][j], a[i, k])]
            if bad:
                i = bad[0]
                errs.append("column '%s': %d values differ, first at row %d: '%s' != %r"
                            % (h, len(bad), i, body[i][j], a[i, k]))
        if "--default" in sys.argv:
            want = default_columns(f)
            if sorted(seen.items()) != sorted(want):
                errs.append("default columns differ: missing %s, extra %s"
                            % (sorted(set(want) - set(seen.items()))[:5],
                               sorted(set(seen.items()) - set(want))[:5]))
    if errs:
        print("\n".join(errs[:10]))
        sys.exit(1)
    print("%d columns, %d rows" % (len(head), len(body)))


if __name__ == "__main__":
    main()
