"""xdmf_contact_check.py - run from tests/t-xdmf-contact.sh:

    python3 tests/xdmf_contact_check.py xml RUN.xdmf RUN.h5
    pvpython tests/xdmf_contact_check.py pv RUN.xdmf RUN.h5

Checks the "contacts" collection of RUN.xdmf (man mbsim-export(1)) against
/contacts of RUN.h5 (man mbsim-output(5): count a row per sample, the other
datasets a row per contact, sample after sample), printing one "ok"/"FAIL"
line each.  xml: with Python's XML parser and h5py,
  1. there is a grid for exactly the exported samples (the times of the
     "bodies" collection) whose /contacts/count is not 0, at that sample's
     time, of count points;
  2. every DataItem it names is a dataset of RUN.xdmf.h5 whose shape is the
     item's Dimensions, and every HyperSlab lies inside it;
  3. through those HyperSlabs, each grid's points are /contacts/point of its
     sample, its normal force (impulse) vectors normal_force * normal, its
     friction vectors friction_force, gap and sliding as written: equal, since
     the sidecar holds the float64 values and the product is the same IEEE
     product.
pv: ParaView's XDMF reader opens RUN.xdmf; at the exported sample with the
most contacts its "contacts" block has those points and force vectors (equal
as above), and at a sample without contacts it has no block.
Exit status 0 when all pass, 1 otherwise.
"""
import os
import sys
import xml.etree.ElementTree as ET

import h5py
import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import checks  # noqa: E402
from checks import check  # noqa: E402


def expected(f):
    """Per sample: (first row, count) and the rows' values by attribute name."""
    cnt = f["/contacts/count"][:].astype(int)
    off = np.concatenate(([0], np.cumsum(cnt)))
    c = f["/contacts"]
    imp = "normal_impulse" in c
    fn = c["normal_impulse" if imp else "normal_force"][:]
    vals = {"point": c["point"][:],
            ("normal_impulse" if imp else "normal_force"): fn[:, None] * c["normal"][:],
            ("friction_impulse" if imp else "friction_force"): c[
                "friction_impulse" if imp else "friction_force"][:],
            "gap": c["gap"][:], "sliding": c["sliding"][:].astype(float)}
    return cnt, off, vals


def read_item(item, d, side):
    """The values an XDMF DataItem (HDF or HyperSlab of HDF) names; checks 2."""
    dims = [int(x) for x in item.get("Dimensions").split()]
    if item.get("ItemType") == "HyperSlab":
        sel, src = item.findall("DataItem")
        s = np.array([int(x) for x in sel.text.split()]).reshape(3, -1)
        full = read_item(src, d, side)
        if full is None:
            return None
        start, stride, count = s
        ok = all(start[i] >= 0 and start[i] + stride[i] * (count[i] - 1) < full.shape[i]
                 for i in range(len(start))) and list(count) == dims
        if not ok:
            return None
        return full[tuple(slice(a, a + b * n, b) for a, b, n in zip(start, stride, count))]
    fname, path = item.text.strip().split(":", 1)
    if fname != os.path.basename(side.filename) or path not in side:
        return None
    v = side[path][()]
    return v if list(v.shape) == dims else None


def xml_checks(xdmf, h5):
    root = ET.parse(xdmf).getroot()
    grids = {g.get("Name"): g for g in root.findall("Domain/Grid")}
    check("bodies" in grids and "contacts" in grids,
          "%s: a 'bodies' and a 'contacts' collection" % os.path.basename(xdmf), list(grids))
    if "contacts" not in grids:
        return
    side = h5py.File(os.path.join(os.path.dirname(xdmf) or ".",
                                  os.path.basename(xdmf) + ".h5"), "r")
    with h5py.File(h5, "r") as f:
        t = f["/time"][:]
        cnt, off, vals = expected(f)
    exported = [int(g.get("Name").split()[1]) for g in grids["bodies"].findall("Grid")]
    want = [s for s in exported if cnt[s] > 0]
    have = [int(g.get("Name").split()[1]) for g in grids["contacts"].findall("Grid")]
    check(have == want and len(want) > 0,
          "a contacts grid at each of the %d exported samples with contacts (of %d)"
          % (len(want), len(exported)), "have %s want %s" % (have[:10], want[:10]))
    bad_t, bad_items, bad_vals, names = [], [], [], set()
    for g in grids["contacts"].findall("Grid"):
        s = int(g.get("Name").split()[1])
        if float(g.find("Time").get("Value")) != t[s] or \
                int(g.find("Topology").get("NumberOfElements")) != cnt[s]:
            bad_t.append(s)
        r = slice(off[s], off[s + 1])
        items = [("point", g.find("Geometry/DataItem"))] + \
            [(a.get("Name"), a.find("DataItem")) for a in g.findall("Attribute")]
        for name, it in items:
            names.add(name)
            v = read_item(it, d=None, side=side)
            if v is None:
                bad_items.append((s, name))
            elif name not in vals or not np.array_equal(v, vals[name][r]):
                bad_vals.append((s, name))
    check(not bad_t, "each grid at its sample's time, of its count of points", bad_t[:5])
    check(not bad_items, "every DataItem a dataset of the sidecar of its Dimensions, "
          "every HyperSlab inside it", bad_items[:5])
    check(not bad_vals and names == set(vals),
          "points, %s equal /contacts' values" % ", ".join(sorted(names - {"point"})),
          (bad_vals[:5], sorted(names)))


def pv_checks(xdmf, h5):
    from paraview import servermanager as sm
    from paraview.simple import XDMFReader
    from vtk.numpy_interface import dataset_adapter as dsa
    with h5py.File(h5, "r") as f:
        t = f["/time"][:]
        cnt, off, vals = expected(f)
    r = XDMFReader(FileNames=[xdmf])
    ts = np.asarray(r.TimestepValues)
    idx = [int(np.argmin(abs(t - x))) for x in ts]
    s = max(idx, key=lambda k: cnt[k])
    z = [k for k in idx if cnt[k] == 0]

    def block(tv):
        r.UpdatePipeline(tv)
        d = sm.Fetch(r)
        for i in range(d.GetNumberOfBlocks()):
            if d.GetMetaData(i).Get(d.NAME()) == "contacts":
                return d.GetBlock(i)
        return "missing"
    b = block(t[s])
    ok = b not in (None, "missing") and b.GetNumberOfPoints() == cnt[s]
    detail = "no block" if not ok else ""
    if ok:
        a = dsa.WrapDataObject(b)
        rows = slice(off[s], off[s + 1])
        for name in vals:
            got = a.Points if name == "point" else a.PointData[name]
            if not np.array_equal(np.asarray(got), vals[name][rows]):
                ok, detail = False, name
    check(ok, "ParaView: sample %d's contacts block has its %d points and their values"
          % (s, cnt[s]), detail)
    if z:
        b = block(t[z[0]])
        check(b is None or b.GetNumberOfPoints() == 0,
              "ParaView: no contact points at sample %d (none there)" % z[0])


def main():
    mode, xdmf, h5 = sys.argv[1:4]
    (xml_checks if mode == "xml" else pv_checks)(xdmf, h5)
    sys.exit(1 if checks.fails else 0)


if __name__ == "__main__":
    main()
