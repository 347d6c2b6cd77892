#!/usr/bin/python3
"""animate.py - a GIF or MP4 and a PNG strip of an mbsim run or of a mode.

usage: /usr/bin/python3 tools/animate.py RUN.h5 [-o OUT.gif|OUT.mp4] [--strip OUT.png]
           [--view xy|xz|yz|AZ,EL] [--frames N] [--fps F] [--panels K] [--size W,H]
           [--deflection-scale K] [--mode K]

RUN.h5 is the output of mbsim run, or of mbsim modes -o: then one cycle
of its mode K (--mode, default 1) is drawn in 24 frames, each body moved
from the state linearized at along the mode's shape as `mbsim export
--xdmf` draws it (mbsim-export(1)), but with the largest displacement a
tenth of the extent of the bodies' centroids and the origin (animate.py
draws no shapes), at most 0.3 rad; the title's time runs over the mode's
period (over 1 s for a buckling mode of mbsim modes --buckling -o).  There a joint between two bodies is a line
between their centroids (the deck's point of a joint is where it was in
the deck, not at the state linearized at); a ground joint's point is
fixed and drawn as in a run.

Every body is a dot at its centroid, with a line from the centroid to each
of its joints' points (the `point` of the joint in the deck, numbers or
expressions of the deck's parameters, carried with the body from its first
sample), and a line between the centroids of the two bodies of a joint
whose point cannot be read (a `repeat` block's joints are not drawn).  Ground joints'
points are crosses.  A beam is a line through its nodes (small dots), from
the file's /shapes/lines; --deflection-scale K draws each node at K times
its distance from the beam's chord (the straight line between its end
nodes, where the initially straight beam's node would be at its fraction
of the length), so that a deflection of millimetres shows on a member of
metres (the ends stay where they are; default 1: as computed; the title
says the scale); a beam whose first node is clamped (never moves nor
turns) is drawn at K times each node's displacement from its start
instead, so that a cantilever's tip goes K times as far.  The title holds the time.  --view names a projection
plane (xy, xz, yz: the plane's first axis to the right) or a 3-D camera's
azimuth and elevation in degrees (`--view 30,20`).  --frames N frames at
sample indices evenly spread over the run (default: every sample up to
100); --fps F frames per second (default 20).  The animation's format
follows the extension: .gif through Pillow, .mp4 through ffmpeg (Debian's
`ffmpeg`, not installed by tools/install-deps).  --strip writes K panels
(--panels, default 6) side by side at evenly spread times.

Results are read through mbsimlib.series and mbsimlib.names, so any file
of man/mbsim-output.5 works; the joints and their points come from the
deck text the file keeps (/deck).
"""
import argparse
import os
import shutil
import sys

import h5py
import numpy as np
import yaml

import matplotlib
matplotlib.use("Agg")
import matplotlib.animation as manim  # noqa: E402
import matplotlib.pyplot as plt  # noqa: E402

import mbsimlib  # noqa: E402

AXES = {"x": 0, "y": 1, "z": 2}


def number(x, ns):
    """A deck number: a float, or an expression of the deck's parameters and
    the usual functions (a close reading of muparser's syntax: ^ is **, and
    one conditional c ? a : b at the top level is a if c else b); None when
    it is neither."""
    if isinstance(x, (int, float)):
        return float(x)
    s = str(x).replace("^", "**")
    q = s.find("?")
    if s.count("?") == 1 and s.count(":") == 1 and s[:q].count("(") == s[:q].count(")"):
        c, rest = s.split("?")          # one conditional a ? b : c at the top level
        a, b = rest.split(":")
        s = "(%s) if (%s) else (%s)" % (a, c, b)
    try:
        return float(eval(s, {"__builtins__": {}}, ns))
    except Exception:  # an expression this reading does not know
        return None


def names_of(deck):
    """Functions and the deck's parameters for number()."""
    ns = {k: getattr(np, k) for k in ("sin", "cos", "tan", "sqrt", "exp", "log", "abs", "pi")}
    params = deck.get("parameters") if isinstance(deck.get("parameters"), dict) else {}
    for _ in range(len(params)):      # parameters may use each other, in any order
        for k, v in params.items():
            x = number(v, ns)
            if x is not None:
                ns[k] = x
    return ns


def point_of(j, ns):
    """A joint's `point` as 3 floats, or None."""
    p = j.get("point") if isinstance(j, dict) else None
    if not isinstance(p, list) or len(p) != 3:
        return None
    v = [number(c, ns) for c in p]
    return None if any(c is None for c in v) else np.array(v)


def beams_of(f):
    """Per beam, the indices into /bodies/names of its nodes in order, from
    /shapes/lines (centre vertices of consecutive nodes) and
    /shapes/vertex_offsets; [] for a file without beams."""
    if "shapes/lines" not in f or "shapes/line_offsets" not in f:
        return []
    lines, loff = f["shapes/lines"][()], f["shapes/line_offsets"][()]
    voff = f["shapes/vertex_offsets"][()]
    body = np.searchsorted(voff, lines, side="right") - 1      # the body of each vertex
    return [[int(body[a, 0])] + [int(b) for b in body[a:c, 1]] for a, c in zip(loff[:-1], loff[1:])
            if c > a]


def deflected(p, frac, k):
    """Nodes p (n, 3) drawn at k times their offset from the chord p[0] ->
    p[-1], a node's place on it its fraction frac of the initial length."""
    ref = p[0] + np.outer(frac, p[-1] - p[0])
    out = ref + k * (p - ref)
    out[[0, -1]] = p[[0, -1]]       # the ends as computed (p0 + (p1 - p0) rounds)
    return out


def expm_so3(v):
    """exp(v~) of rotation vectors v (n, 3): Rodrigues' formula."""
    th = np.linalg.norm(v, axis=1)
    K = np.zeros((len(v), 3, 3))
    K[:, 0, 1], K[:, 0, 2], K[:, 1, 2] = -v[:, 2], v[:, 1], -v[:, 0]
    K -= K.transpose(0, 2, 1)
    safe = np.where(th > 0, th, 1)
    a = np.where(th > 1e-8, np.sin(safe) / safe, 1 - th ** 2 / 6)
    b = np.where(th > 1e-8, (1 - np.cos(safe)) / safe ** 2, 0.5 - th ** 2 / 24)
    return np.eye(3) + a[:, None, None] * K + b[:, None, None] * K @ K


def mode_motion(f, k):
    """One cycle of mode k of a modes file as a run: 24 frames at times
    j T / 24 (T the mode's period), every body moved from the state
    linearized at by s Re(dr e^(i phi)), turned A exp(s Re(dth e^(i phi))~),
    phi = 2 pi j / 24, s bringing the largest displacement to a tenth of the
    extent of the centroids and the origin (at most 0.3 rad): the rule of
    `mbsim export --xdmf` for a modes file (mbsim-export(1)), whose extent is
    that of the shapes.
    (times, names, positions (24, b, 3), rotations [(24, 3, 3)] per body)."""
    names = [mbsimlib.text(n) for n in f["state/bodies"][()]]
    P = f["state/position"][0]
    A0 = f["state/rotation"][0].reshape(-1, 3, 3)
    # a buckling file (mbsim modes --buckling -o) has load factors for
    # frequencies: its modes swing at a period of 1 s
    buckling = "modes/load_factor" in f
    fr = f["modes/load_factor" if buckling else "modes/frequency"][()]
    if not 1 <= k <= len(fr):
        raise ValueError("--mode %d: the file has %d modes" % (k, len(fr)))
    if not buckling and (f["modes/free"][k - 1] or fr[k - 1] <= 0):
        raise ValueError("--mode %d is a free motion (0 Hz): nothing to animate" % k)
    z = (f["modes/shape"][k - 1, :, 0] + 1j * f["modes/shape"][k - 1, :, 1]).reshape(-1, 6)
    L = np.ptp(np.vstack([P, np.zeros((1, 3))]), axis=0).max() or 1.0
    ar, ath = np.abs(z[:, :3]).max(), np.abs(z[:, 3:]).max()
    s = min(0.1 * L / ar if ar > 0 else np.inf, 0.3 / ath if ath > 0 else np.inf)
    ph = np.exp(2j * np.pi * np.arange(24) / 24)
    pos = P[None] + s * np.real(ph[:, None, None] * z[None, :, :3])
    rot = [A0[b] @ expm_so3(s * np.real(ph[:, None] * z[b, 3:][None])) for b in range(len(names))]
    return np.arange(24) / (24 * (1.0 if buckling else fr[k - 1])), names, pos, rot


def load(path, scale=1.0, mode=1):
    """Times, body centroids (n, b, 3), and the segments to draw: per frame
    a function of the sample index giving a list of (2, 3) arrays and beam
    polylines (m, 3), plus the fixed ground points and the indices of the
    bodies drawn as dots (not beam nodes).  A modes file: one cycle of its
    mode `mode` (mode_motion)."""
    with h5py.File(path, "r") as f:
        modes = "modes" in f and "time" not in f
        if modes:
            t, names, pos, rot = mode_motion(f, mode)
        else:
            t = mbsimlib.series(f, "time")
            names = mbsimlib.names(f, "bodies")
            parts = mbsimlib.names(f, "particles")     # no orientation: the identity
            pos = np.stack([mbsimlib.series(f, "bodies/%s/position" % n) for n in names] +
                           [mbsimlib.series(f, "particles/%s/position" % n) for n in parts], 1)
            rot = [mbsimlib.rotation(mbsimlib.series(f, "bodies/%s/orientation" % n))
                   for n in names]
            rot += [np.broadcast_to(np.eye(3), (len(t), 3, 3)) for n in parts]
            names = names + parts
        deck = mbsimlib.text(f["deck"][()]) if "deck" in f else ""
        beams = beams_of(f)
    try:
        dk = yaml.safe_load(deck) or {}
    except yaml.YAMLError:
        dk = {}
    dk = dk if isinstance(dk, dict) else {}
    joints, ns = dk.get("joints") or [], names_of(dk)
    idx = {n: k for k, n in enumerate(names)}
    attach, pairs, ground = [], [], []   # (body, local point), (body, body), global point
    for j in joints if isinstance(joints, list) else []:
        if not isinstance(j, dict):
            continue
        bs = [b for b in (j.get("body1"), j.get("body2")) if b in idx]
        p = point_of(j, ns)
        if modes and len(bs) == 2:
            p = None    # the deck's point is where the joint was in the deck, not at the state
        if p is None:
            if len(bs) == 2:
                pairs.append((idx[bs[0]], idx[bs[1]]))
            continue
        for b in bs:
            k = idx[b]
            attach.append((k, rot[k][0].T @ (p - pos[0, k])))   # body frame, first sample
        if len(bs) < 2:
            ground.append(p)

    # each beam node's fraction of its beam's initial length (straight at t0)
    fracs = []
    for nodes in beams:
        d = np.linalg.norm(pos[0, nodes] - pos[0, nodes[0]], axis=1)
        fracs.append(d / d[-1] if d[-1] > 0 else np.zeros(len(nodes)))

    # a beam whose first node never moves nor turns (clamped to the
    # ground): its deflection is from its initial line, so that a
    # cantilever's tip goes K times as far; any other: from its chord
    clamped = [np.array_equal(pos[:, nodes[0]], np.broadcast_to(pos[0, nodes[0]], pos[:, nodes[0]].shape))
               and np.array_equal(rot[nodes[0]], np.broadcast_to(rot[nodes[0]][0], rot[nodes[0]].shape))
               for nodes in beams]

    def segments(i):
        s = [np.array([pos[i, k], pos[i, k] + rot[k][i] @ sp]) for k, sp in attach]
        s += [np.array([pos[i, a], pos[i, b]]) for a, b in pairs]
        s += [pos[0, nodes] + scale * (pos[i, nodes] - pos[0, nodes]) if c else
              deflected(pos[i, nodes], fr, scale) for nodes, fr, c in zip(beams, fracs, clamped)]
        return s
    on_beam = {b for nodes in beams for b in nodes}
    dots = np.array([k for k in range(len(names)) if k not in on_beam], dtype=int)
    return t, names, pos, segments, np.array(ground).reshape(-1, 3), dots, scale


def frames_of(n, want):
    """Sample indices of the frames: want (or min(n, 100)) evenly spread, first and last included."""
    k = min(n, want) if want else min(n, 100)
    return np.unique(np.round(np.linspace(0, n - 1, max(k, 1))).astype(int))


class Scene:
    """One axes drawing the model at a sample."""

    def __init__(self, ax, view, data):
        self.ax, self.view = ax, view
        self.t, self.names, self.pos, self.segments, self.ground, self.dots, self.scale = data
        pts = [self.pos[:, self.dots].reshape(-1, 3)] + \
            [s for i in range(0, len(self.t), max(1, len(self.t) // 50)) for s in self.segments(i)]
        if len(self.ground):
            pts.append(self.ground)
        allp = np.concatenate(pts)
        lo, hi = allp.min(0), allp.max(0)
        c, r = (lo + hi) / 2, max((hi - lo).max() / 2, 1e-3) * 1.1
        if view[0] == "3d":
            ax.view_init(elev=view[2], azim=view[1])
            for setl, k in ((ax.set_xlim, 0), (ax.set_ylim, 1), (ax.set_zlim, 2)):
                setl(c[k] - r, c[k] + r)
            ax.set_xlabel("x, m")
            ax.set_ylabel("y, m")
            ax.set_zlabel("z, m")
        else:
            a, b = view[1], view[2]
            ax.set_xlim(c[a] - r, c[a] + r)
            ax.set_ylim(c[b] - r, c[b] + r)
            ax.set_aspect("equal")
            ax.set_xlabel("xyz"[a] + ", m")
            ax.set_ylabel("xyz"[b] + ", m")
        self.artists = []

    def proj(self, p):
        p = np.atleast_2d(p)
        if self.view[0] == "3d":
            return p[:, 0], p[:, 1], p[:, 2]
        return p[:, self.view[1]], p[:, self.view[2]]

    def draw(self, i):
        for a in self.artists:
            a.remove()
        ax, self.artists = self.ax, []
        for s in self.segments(i):
            if len(s) > 2:      # a beam: its nodes as small dots
                self.artists += ax.plot(*self.proj(s), ".-", color="C2", lw=2.5, ms=4,
                                        gid="beam")
            else:
                self.artists += ax.plot(*self.proj(s), "-", color="0.3", lw=2)
        if len(self.dots):
            self.artists += ax.plot(*self.proj(self.pos[i, self.dots]), "o", color="C0", ms=6)
        if len(self.ground):
            self.artists += ax.plot(*self.proj(self.ground), "x", color="C3", ms=8)
        ax.set_title("t = %.3f s" % self.t[i] +
                     ("" if self.scale == 1 else ", deflection x %g" % self.scale))
        return self.artists


def parse_view(s):
    if s in ("xy", "xz", "yz", "yx", "zx", "zy"):
        return ("plane", AXES[s[0]], AXES[s[1]])
    try:
        az, el = (float(v) for v in s.split(","))
        return ("3d", az, el)
    except ValueError:
        sys.exit("animate.py: bad --view '%s' (want xy, xz, yz or AZ,EL in degrees)" % s)


def new_axes(fig, view, *grid):
    return fig.add_subplot(*grid, projection="3d" if view[0] == "3d" else None)


def animate(data, view, out, frames, fps, size):
    fig = plt.figure(figsize=size, dpi=80)
    sc = Scene(new_axes(fig, view, 1, 1, 1), view, data)
    fig.tight_layout()
    idx = frames_of(len(data[0]), frames)
    if out.endswith(".mp4"):
        if not shutil.which("ffmpeg"):
            sys.exit("animate.py: ffmpeg is not installed (apt-get install ffmpeg), write a .gif")
        writer = manim.FFMpegWriter(fps=fps)
    elif out.endswith(".gif"):
        writer = manim.PillowWriter(fps=fps)
    else:
        sys.exit("animate.py: %s: the animation must be a .gif or an .mp4" % out)
    ani = manim.FuncAnimation(fig, sc.draw, frames=list(idx), blit=False)
    ani.save(out, writer=writer)
    plt.close(fig)
    return len(idx)


def strip(data, view, out, panels, size):
    idx = frames_of(len(data[0]), panels)
    fig = plt.figure(figsize=(size[0] * len(idx) * 0.6, size[1] * 0.6), dpi=80)
    for k, i in enumerate(idx):
        Scene(new_axes(fig, view, 1, len(idx), k + 1), view, data).draw(i)
    fig.tight_layout()
    fig.savefig(out)
    plt.close(fig)


def load_or_exit(path, scale=1.0, mode=1):
    """load(path), or exit 1 with a message (no traceback) when path is not
    a readable file of mbsim run or mbsim modes -o: missing, not HDF5, a
    mode it has not or that does not vibrate."""
    if not os.path.isfile(path):
        sys.exit("animate.py: %s: %s" % (path, "no such file" if not os.path.exists(path)
                                         else "not a regular file"))
    try:
        with h5py.File(path, "r") as f:
            if "modes" in f and "time" not in f:
                if "state/bodies" not in f:
                    sys.exit("animate.py: %s: a modes file without its state" % path)
            elif "time" not in f or "bodies" not in f:
                sys.exit("animate.py: %s: not an output of mbsim run or mbsim modes -o "
                         "(no /time or /bodies)" % path)
        return load(path, scale, mode)
    except OSError as e:
        sys.exit("animate.py: %s: not an HDF5 file or not readable (%s)" % (path, e))
    except (KeyError, ValueError) as e:
        sys.exit("animate.py: %s: not a readable mbsim output (%s)" % (path, e))


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0],
                                 formatter_class=argparse.RawDescriptionHelpFormatter,
                                 epilog=__doc__.split("\n", 2)[2])
    ap.add_argument("run")
    ap.add_argument("-o", "--output", help="animation, .gif or .mp4")
    ap.add_argument("--strip", help="PNG strip of --panels frames")
    ap.add_argument("--view", default="xz")
    ap.add_argument("--frames", type=int, default=0)
    ap.add_argument("--fps", type=float, default=20)
    ap.add_argument("--panels", type=int, default=6)
    ap.add_argument("--size", default="5,4", help="inches at 80 dpi, W,H")
    ap.add_argument("--mode", type=int, default=1, metavar="K",
                    help="a modes file: the mode to animate (default 1)")
    ap.add_argument("--deflection-scale", type=float, default=1.0, metavar="K",
                    help="beams: K times each node's offset from the chord (default 1)")
    a = ap.parse_args()
    if not a.output and not a.strip:
        ap.error("nothing to write: give -o OUT.gif|OUT.mp4 and/or --strip OUT.png")
    view = parse_view(a.view)
    size = tuple(float(v) for v in a.size.split(","))
    if not a.deflection_scale > 0:
        ap.error("--deflection-scale wants a number > 0, got %g" % a.deflection_scale)
    if a.mode < 1:
        ap.error("--mode wants a mode number 1, 2, ... as mbsim modes lists them")
    data = load_or_exit(a.run, a.deflection_scale, a.mode)
    if a.output:
        n = animate(data, view, a.output, a.frames, a.fps, size)
        mbsimlib.say("animate.py: %s, %d frames" % (a.output, n))
    if a.strip:
        strip(data, view, a.strip, a.panels, size)
        mbsimlib.say("animate.py: %s" % a.strip)


if __name__ == "__main__":
    main()
