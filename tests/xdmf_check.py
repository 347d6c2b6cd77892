"""xdmf_check.py - run by pvpython from tests/t-xdmf.sh:

    pvpython tests/xdmf_check.py RUN.xdmf RUN.h5 OUT.png TIME

Opens RUN.xdmf with ParaView's XDMF reader, renders the sample nearest
TIME to OUT.png (tools/xdmf_render.py: each body a flat colour on white)
and checks, printing one "ok"/"FAIL" line each:
  1. the reader's time steps are /time of RUN.h5, every sample;
  2. at that sample every vertex the reader gives is r + R(q) v, with r and
     q the body's /bodies/position and /bodies/orientation of RUN.h5 and v
     its body-frame vertex of /shapes/vertices, within 1e-6 m (float32 holds
     coordinates below 1 m to 6e-8 m: 1e-6 m leaves 16 ulps for the
     rotation's rounding);
  3. the speed array is |/bodies/velocity| of the body, to float32's 1e-6
     relative; the kinetic_energy array summed over the bodies (one vertex
     each) is /energy/kinetic of the run, which the run computed itself
     (form/ra.c), to 1e-6 relative (float32 and the sum of 3 terms);
  4. in the PNG, the pixel where each body's vertex centroid projects (or
     one within 2 pixels: the rounding of the projection) has that body's
     colour, each channel within 10/255; a corner is the white background
     (the same check on the wrong pixel fails).
Exit status 0 when all pass, 1 otherwise.
"""
import os
import sys

import h5py
import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tools"))
import xdmf_render  # noqa: E402
from mbsimlib import rotation  # noqa: E402
from vtk.numpy_interface import dataset_adapter as dsa  # noqa: E402
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import checks  # noqa: E402
from checks import check  # noqa: E402


def main():
    xdmf, h5, png, t_want = sys.argv[1], sys.argv[2], sys.argv[3], float(sys.argv[4])
    reader, t, data, view = xdmf_render.render(xdmf, png, t_want)
    with h5py.File(h5, "r") as f:
        times = f["/time"][:]
        check(len(reader.TimestepValues) == len(times) and
              np.array_equal(np.asarray(reader.TimestepValues), times),
              "xdmf: the reader's %d time steps are /time (%d samples)"
              % (len(reader.TimestepValues), len(times)))
        k = int(np.argmin(np.abs(times - t)))
        r = f["/bodies/position"][k]
        q = f["/bodies/orientation"][k]
        vel = f["/bodies/velocity"][k]
        ekin = float(f["/energy/kinetic"][k])
        verts = f["/shapes/vertices"][:]
        off = f["/shapes/vertex_offsets"][:]
    w = dsa.WrapDataObject(data)
    pts = np.asarray(w.Points)
    body = np.asarray(w.PointData["body"]).astype(int)
    speed = np.asarray(w.PointData["speed"])
    ke = np.asarray(w.PointData["kinetic_energy"]).astype(float)
    nb = len(off) - 1
    check(len(pts) == off[-1], "xdmf: %d vertices, as /shapes/vertices" % len(pts))
    err, serr, cents = 0.0, 0.0, []
    for b in range(nb):
        want = r[b] + verts[off[b]:off[b + 1]] @ rotation(q[b][None])[0].T
        have = pts[off[b]:off[b + 1]]
        check(np.all(body[off[b]:off[b + 1]] == b), "xdmf: body array of body %d" % b)
        err = max(err, float(np.abs(have - want).max()))
        sv = np.linalg.norm(vel[b])
        serr = max(serr, float(np.abs(speed[off[b]:off[b + 1]] - sv).max()) / max(sv, 1e-30))
        cents.append(want.mean(axis=0))  # where the HDF5 file puts the body
    check(err < 1e-6, "xdmf: vertices at t = %g are r + R(q) v of the HDF5 file "
          "(max error %.2g m)" % (t, err))
    ksum = sum(ke[off[b]] for b in range(nb))
    kerr = abs(ksum - ekin) / ekin
    check(kerr < 1e-6, "xdmf: kinetic_energy of the bodies sums to /energy/kinetic %.6g J "
          "(relative error %.2g)" % (ekin, kerr))
    check(serr < 1e-6, "xdmf: speed is |v| of the HDF5 file to float32 (max relative error %.2g)"
          % serr)
    from PIL import Image
    im = np.asarray(Image.open(png).convert("RGB")).astype(int)
    h, wd = im.shape[:2]
    pix = xdmf_render.project(view, cents)

    def near(px, colour):
        x0, y0 = int(round(px[0])), int(round(px[1]))
        c = np.array(colour) * 255
        for y in range(max(y0 - 2, 0), min(y0 + 3, h)):
            for x in range(max(x0 - 2, 0), min(x0 + 3, wd)):
                if np.all(np.abs(im[y, x] - c) <= 10):
                    return True
        return False

    for b in range(nb):
        colour = xdmf_render.COLOURS[b % len(xdmf_render.COLOURS)]
        check(near(pix[b], colour), "png: body %d's colour at its projected centroid (%.0f, %.0f)"
              % (b, pix[b][0], pix[b][1]), "pixel there: %s" % im[int(pix[b][1]), int(pix[b][0])])
    check(near((1, 1), (1, 1, 1)) and not near((1, 1), xdmf_render.COLOURS[0]),
          "png: a corner is background, not a body")
    return 1 if checks.fails else 0


if __name__ == "__main__":
    code = main()
    sys.stdout.flush()
    # leave without ParaView's teardown: under Xvfb it can fail on the GL
    # context after everything is done (X error GLXBadContext, exit 1)
    os._exit(code)
