#!/usr/bin/env pvpython
"""Render one sample of an mbsim run through its XDMF file with ParaView.

    pvpython tools/xdmf_render.py RUN.xdmf OUT.png [--time T] [--size W H]
                                  [--view AZIMUTH,ELEVATION] [--shaded] [--json]

RUN.xdmf is written by `mbsim run ... --xdmf` or `mbsim export --xdmf`
(man mbsim-export(1)); it is read with ParaView's "XDMF Reader".  Each body
is drawn in a flat colour of its own (COLOURS, by the vertex array
"body"), on white, without shading, so that a pixel tells which body it
shows (--shaded: lit, for pictures).  --view: the camera's azimuth from
+x towards +y and elevation above the x-y plane, in degrees.  With --json, prints the time drawn, the pixel (x right, y down)
where each body's vertex centroid projects, and the body colours.
Needs a display: run it under xvfb-run where there is none (pvpython
--force-offscreen-rendering is tried by tests/t-xdmf.sh first).
"""
import json
import sys

from paraview import servermanager as sm
from paraview.simple import (ColorBy, GetActiveViewOrCreate, GetColorTransferFunction,
                             Render, SaveScreenshot, Show, XDMFReader)
from vtk.numpy_interface import dataset_adapter as dsa

# flat colours of bodies 0, 1, 2, ... (cycled), RGB in [0, 1]
COLOURS = [(0.85, 0.1, 0.1), (0.1, 0.45, 0.85), (0.1, 0.65, 0.2), (0.95, 0.6, 0.05),
           (0.55, 0.2, 0.7), (0.3, 0.3, 0.3)]


def parse(argv):
    opts = {"time": None, "size": (640, 480), "view": (-60.0, 25.0), "json": False,
            "shaded": False}
    pos = []
    i = 0
    while i < len(argv):
        a = argv[i]
        if a == "--time":
            opts["time"] = float(argv[i + 1])
            i += 1
        elif a == "--size":
            opts["size"] = (int(argv[i + 1]), int(argv[i + 2]))
            i += 2
        elif a == "--view":
            az, el = argv[i + 1].split(",")
            opts["view"] = (float(az), float(el))
            i += 1
        elif a == "--json":
            opts["json"] = True
        elif a == "--shaded":
            opts["shaded"] = True
        else:
            pos.append(a)
        i += 1
    if len(pos) != 2:
        sys.exit(__doc__)
    return pos[0], pos[1], opts


def render(xdmf, png, time=None, size=(640, 480), view=(-60.0, 25.0), shaded=False):
    """Draw the sample nearest time (default: the first); return the reader,
    the time drawn, the fetched data set and the render view."""
    import math
    r = XDMFReader(FileNames=[xdmf])
    times = list(r.TimestepValues)
    t = times[0] if time is None else min(times, key=lambda x: abs(x - time))
    r.UpdatePipeline(t)
    data = sm.Fetch(r)
    v = GetActiveViewOrCreate("RenderView")
    v.ViewSize = list(size)
    v.ViewTime = t
    v.OrientationAxesVisibility = 0
    v.Background = [1, 1, 1]
    try:
        v.UseColorPaletteForBackground = 0
    except AttributeError:
        pass
    d = Show(r, v)
    ColorBy(d, ("POINTS", "body"))
    nb = int(dsa.WrapDataObject(data).PointData["body"].max()) + 1
    lut = GetColorTransferFunction("body")
    lut.InterpretValuesAsCategories = 1
    lut.Annotations = sum([[str(b), str(b)] for b in range(nb)], [])
    lut.IndexedColors = sum([list(COLOURS[b % len(COLOURS)]) for b in range(nb)], [])
    d.Ambient = 0.35 if shaded else 1.0
    d.Diffuse = 0.65 if shaded else 0.0
    d.Specular = 0.0
    d.InterpolateScalarsBeforeMapping = 0
    # camera on a sphere about the bodies, z up
    b = data.GetBounds()
    c = [(b[0] + b[1]) / 2, (b[2] + b[3]) / 2, (b[4] + b[5]) / 2]
    az, el = math.radians(view[0]), math.radians(view[1])
    u = [math.cos(el) * math.cos(az), math.cos(el) * math.sin(az), math.sin(el)]
    cam = v.GetActiveCamera()
    cam.SetFocalPoint(*c)
    cam.SetPosition(*[c[i] + u[i] for i in range(3)])
    cam.SetViewUp(0, 0, 1)
    v.ResetCamera()
    Render(v)
    SaveScreenshot(png, v, ImageResolution=list(size), TransparentBackground=0)
    return r, t, data, v


def project(v, points):
    """Pixels (x right, y down from the top left) of world points."""
    ren = v.GetRenderer()
    h = v.ViewSize[1]
    out = []
    for p in points:
        ren.SetWorldPoint(p[0], p[1], p[2], 1.0)
        ren.WorldToDisplay()
        x, y, _ = ren.GetDisplayPoint()
        out.append((x, h - 1 - y))
    return out


def centroids(data):
    w = dsa.WrapDataObject(data)
    import numpy as np
    pts = np.asarray(w.Points)
    body = np.asarray(w.PointData["body"]).astype(int)
    return [pts[body == k].mean(axis=0) for k in range(body.max() + 1)]


def main():
    xdmf, png, opts = parse(sys.argv[1:])
    _, t, data, v = render(xdmf, png, opts["time"], opts["size"], opts["view"], opts["shaded"])
    if opts["json"]:
        cs = centroids(data)
        print(json.dumps({"time": t, "pixels": project(v, cs),
                          "colours": [COLOURS[k % len(COLOURS)] for k in range(len(cs))]}))


if __name__ == "__main__":
    main()
