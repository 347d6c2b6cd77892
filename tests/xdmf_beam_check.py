"""xdmf_beam_check.py - run by pvpython from tests/t-xdmf.sh:

    pvpython tests/xdmf_beam_check.py RUN.xdmf RUN.h5 OUT.png TIME

RUN.h5 the output of a deck with beams (decks/flexible_four_bar.yaml).
Opens RUN.xdmf with ParaView's XDMF reader, renders the sample nearest
TIME (tools/xdmf_render.py) and checks, one "ok"/"FAIL" line each:
  1. the grid has as many triangles as /shapes/triangles and one line cell
     per element half of every beam: 2 N segments for a beam of N elements,
     N read from the deck text the file keeps (/deck), its parameters
     resolved;
  2. every line cell joins two consecutive nodes of a beam, named as
     mbsim-deck(5) names them (NAME_0 .. NAME_2N, or the nodes' start and
     end names), at their /bodies/position of that sample within 1e-6 m
     (float32), and every such pair is a cell;
  3. every vertex is r + R(q) v of its body (the member's section corners
     and the node centres), within 1e-6 m;
  4. in the PNG, the pixel where each beam's middle node projects (or one
     within 2 pixels) is not the white background: the member is drawn.
Exit status 0 when all pass, 1 otherwise.
"""
import os
import sys

import h5py
import numpy as np
import yaml

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import checks  # noqa: E402
from checks import check  # noqa: E402
from xdmf_check import dsa, rotation, xdmf_render  # noqa: E402  (its imports)
from mbsimlib import text  # noqa: E402


def beam_nodes(deck):
    """Per beam of the deck, its node names in order."""
    d = yaml.safe_load(deck)
    par = d.get("parameters") or {}
    out = []
    for b in d["beams"]:
        n = b["elements"]
        n = int(par[n] if isinstance(n, str) else n)
        names = ["%s_%d" % (b["name"], k) for k in range(2 * n + 1)]
        nodes = b.get("nodes") or {}
        names[0] = nodes.get("start", names[0])
        names[-1] = nodes.get("end", names[-1])
        out.append(names)
    return out


def main():
    xdmf, h5, png, t_want = sys.argv[1], sys.argv[2], sys.argv[3], float(sys.argv[4])
    reader, t, data, view = xdmf_render.render(xdmf, png, t_want)
    with h5py.File(h5, "r") as f:
        times = f["/time"][:]
        k = int(np.argmin(np.abs(times - t)))
        r = f["/bodies/position"][k]
        q = f["/bodies/orientation"][k]
        names = [text(n) for n in f["/bodies/names"][()]]
        verts = f["/shapes/vertices"][:]
        off = f["/shapes/vertex_offsets"][:]
        ntri = f["/shapes/triangles"].shape[0]
        deck = text(f["/deck"][()])
    beams = beam_nodes(deck)
    w = dsa.WrapDataObject(data)
    pts = np.asarray(w.Points)
    types = np.array([data.GetCellType(i) for i in range(data.GetNumberOfCells())])
    lines = [i for i in range(len(types)) if types[i] in (3, 4)]     # VTK_LINE, VTK_POLY_LINE
    nseg = sum(len(b) - 1 for b in beams)
    check(np.sum(types == 5) == ntri and len(lines) == nseg,
          "xdmf: %d triangles (/shapes/triangles: %d) and %d line cells (the deck's beams: "
          "%d segments)" % (np.sum(types == 5), ntri, len(lines), nseg))
    want = {}
    for b in beams:
        for a, c in zip(b[:-1], b[1:]):
            want[(a, c)] = (r[names.index(a)], r[names.index(c)])
    found, err = set(), 0.0
    for i in lines:
        ids = data.GetCell(i).GetPointIds()
        p = np.array([pts[ids.GetId(j)] for j in range(ids.GetNumberOfIds())])
        best = min(want, key=lambda s: max(np.abs(p[0] - want[s][0]).max(),
                                           np.abs(p[-1] - want[s][1]).max()))
        e = max(np.abs(p[0] - want[best][0]).max(), np.abs(p[-1] - want[best][1]).max())
        err = max(err, e)
        if e < 1e-6 and len(p) == 2:
            found.add(best)
    check(found == set(want), "xdmf: every line joins consecutive beam nodes at their "
          "/bodies/position at t = %g (%d of %d pairs, max error %.2g m)"
          % (t, len(found), len(want), err))
    verr = 0.0
    for b in range(len(off) - 1):
        pw = r[b] + verts[off[b]:off[b + 1]] @ rotation(q[b][None])[0].T
        verr = max(verr, float(np.abs(pts[off[b]:off[b + 1]] - pw).max()))
    check(verr < 1e-6, "xdmf: every vertex is r + R(q) v of its body (max error %.2g m)" % verr)
    from PIL import Image
    im = np.asarray(Image.open(png).convert("RGB")).astype(int)
    h, wd = im.shape[:2]
    mids = [r[names.index(b[len(b) // 2])] for b in beams]
    for b, px in zip(beams, xdmf_render.project(view, mids)):
        x0, y0 = int(round(px[0])), int(round(px[1]))
        drawn = any(np.any(im[y, x] < 245) for y in range(max(y0 - 2, 0), min(y0 + 3, h))
                    for x in range(max(x0 - 2, 0), min(x0 + 3, wd)))
        check(drawn, "png: beam %s drawn at its middle node %s (%.0f, %.0f)"
              % (b[0], b[len(b) // 2], px[0], px[1]))
    return 1 if checks.fails else 0


if __name__ == "__main__":
    code = main()
    sys.stdout.flush()
    os._exit(code)   # as xdmf_check.py: no ParaView teardown under Xvfb
