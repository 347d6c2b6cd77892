#!/usr/bin/env python3
"""motion_check.py - the motion laws of tests/motion/laws.yaml against
their closed forms (tests/t-motion.sh).

    motion_check.py FILE.h5 LEVELS

LEVELS: 1 checks each driven slider's x position, 2 also its velocity,
3 also its acceleration (which of them a scheme meets exactly:
t-motion.sh).  Every recorded sample must equal the law, derivative by
derivative, within 1e-10 of the largest magnitude of that series (1 m,
m/s or m/s^2 where the series is 0).  The references are written here
independently of mbsim: the derivatives of the expression, STEP, STEP5,
harmonic and piecewise laws by hand, the splines by SciPy's CubicSpline
(its own not-a-knot and natural end conditions), the linear table by
numpy, and the monotone table by fc_slopes below (Fritsch and Carlson,
SIAM J. Numer. Anal. 17 (1980) 238-246, as mbsim-deck(5) states it) on
numpy's Hermite cubic.

    motion_check.py --sine FILE.h5 H

The four sliders of tests/motion/sine.yaml drive sin(2 pi t) sampled
every H seconds (the CSV file t-motion.sh writes) with the four
interpolations; each must be within its interpolation's error bound of
the sine (see sine_bounds) and, the splines and the linear table, within
1e-10 of the same interpolant computed by SciPy and numpy.

Exit status 0 when every check passes; prints one line per check.
"""
import sys

import h5py
import numpy as np

sys.path.insert(0, __file__.rsplit("/", 2)[0] + "/tools")
from mbsimlib import series  # noqa: E402

TOL = 1e-10
KNOTS = np.array([-0.0487, 0.0013, 0.0513, 0.1013, 0.1513, 0.2013, 0.2513, 0.3013, 0.3513])
VALUES = np.array([0.1, 0.25, 0.2, -0.05, 0.3, 0.45, 0.4, 0.1, 0.0])


def expression(t):
    a, w = 0.3, 5.0                      # parameters a, w of laws.yaml
    s, c, e = np.sin(w * t + 0.2), np.cos(w * t + 0.2), np.exp(-t)
    return (a * s + 0.1 * t**2 - e, a * w * c + 0.2 * t + e, -a * w * w * s + 0.2 - e)


def step(t, h0, h1, t0, t1, quintic):
    """Adams' STEP (cubic) and STEP5 (quintic) and their derivatives."""
    L = t1 - t0
    s = np.clip((t - t0) / L, 0.0, 1.0)
    inside = (t > t0) & (t < t1)
    a = h1 - h0
    if quintic:
        g = s**3 * (10 - 15 * s + 6 * s**2)
        g1 = 30 * s**2 * (1 - s)**2
        g2 = 60 * s * (1 - s) * (1 - 2 * s)
    else:
        g = s**2 * (3 - 2 * s)
        g1 = 6 * s * (1 - s)
        g2 = 6 - 12 * s
    return (h0 + a * g, np.where(inside, a * g1 / L, 0.0), np.where(inside, a * g2 / L**2, 0.0))


def harmonic(t):
    A, w, ph = 0.5, 7.0, 0.3
    return (0.05 + A * np.sin(w * t + ph), A * w * np.cos(w * t + ph), -A * w * w * np.sin(w * t + ph))


def piecewise(t):
    x = t
    first = t < 0.1537
    p = (0.05 + 0.4 * x - x**2, 0.4 - 2 * x, -2 + 0 * x)
    q = (0.2 * np.cos(3 * t), -0.6 * np.sin(3 * t), -1.8 * np.cos(3 * t))
    return tuple(np.where(first, a, b) for a, b in zip(p, q))


def fc_slopes(x, y):
    """Knot slopes of the Fritsch-Carlson monotone cubic as mbsim-deck(5)
    and model/curve.h state them: mean secants, 0 where the secants change
    sign or one is 0, one-sided at the ends, scaled into the circle of
    radius 3."""
    d = np.diff(y) / np.diff(x)
    m = np.empty_like(y)
    m[0], m[-1] = d[0], d[-1]
    for k in range(1, len(y) - 1):
        m[k] = 0.5 * (d[k - 1] + d[k]) if d[k - 1] * d[k] > 0 else 0.0
    for k in range(len(d)):
        if d[k] == 0:
            m[k] = m[k + 1] = 0.0
            continue
        a, b = m[k] / d[k], m[k + 1] / d[k]
        if a * a + b * b > 9:
            tau = 3 / np.sqrt(a * a + b * b)
            m[k], m[k + 1] = tau * a * d[k], tau * b * d[k]
    return m


def hermite(x, y, m, t):
    """Cubic Hermite on slopes m with its two derivatives, constant outside."""
    k = np.clip(np.searchsorted(x, t, side="right") - 1, 0, len(x) - 2)
    h = x[k + 1] - x[k]
    u = (t - x[k]) / h
    y0, y1, m0, m1 = y[k], y[k + 1], m[k] * h, m[k + 1] * h
    v = (2 * u**3 - 3 * u**2 + 1) * y0 + (u**3 - 2 * u**2 + u) * m0 + \
        (-2 * u**3 + 3 * u**2) * y1 + (u**3 - u**2) * m1
    d1 = ((6 * u**2 - 6 * u) * (y0 - y1) + (3 * u**2 - 4 * u + 1) * m0 + (3 * u**2 - 2 * u) * m1) / h
    d2 = ((12 * u - 6) * (y0 - y1) + (6 * u - 4) * m0 + (6 * u - 2) * m1) / h**2
    out = (t < x[0]) | (t > x[-1])
    return (np.where(out, np.where(t < x[0], y[0], y[-1]), v), np.where(out, 0.0, d1),
            np.where(out, 0.0, d2))


def table(kind, x, y, t):
    if kind == "linear":
        k = np.clip(np.searchsorted(x, t, side="right") - 1, 0, len(x) - 2)
        s = np.diff(y)[k] / np.diff(x)[k]
        out = (t < x[0]) | (t > x[-1])
        return (np.interp(t, x, y), np.where(out, 0.0, s), 0 * t)
    if kind == "monotone":
        return hermite(x, y, fc_slopes(x, y), t)
    from scipy.interpolate import CubicSpline
    cs = CubicSpline(x, y, bc_type="not-a-knot" if kind == "spline" else "natural")
    return (cs(t), cs(t, 1), cs(t, 2))


def references(t):
    return {
        "expression": expression(t),
        "spline": table("spline", KNOTS, VALUES, t),
        "natural": table("natural", KNOTS, VALUES, t),
        "monotone": table("monotone", KNOTS, VALUES, t),
        "linear": table("linear", KNOTS, VALUES, t),
        "step": step(t, 0.1, 0.35, 0.0523, 0.2517, False),
        "step5": step(t, -0.2, 0.3, 0.0311, 0.2219, True),
        "harmonic": harmonic(t),
        "piecewise": piecewise(t),
    }


def recorded(f, k):
    return [series(f, "bodies/s%d/%s" % (k, q))[:, 0] for q in ("position", "velocity", "acceleration")]


def check_laws(path, levels):
    f = h5py.File(path, "r")
    t = series(f, "time")
    bad = 0
    for k, (name, ref) in enumerate(references(t).items(), start=1):
        got = recorded(f, k)
        errs = []
        for lv in range(levels):
            scale = np.max(np.abs(ref[lv])) or 1.0
            errs.append(np.max(np.abs(got[lv] - ref[lv])) / scale)
        fine = all(e <= TOL for e in errs)
        bad += not fine
        print("%s %-10s %s" % ("ok  " if fine else "FAIL", name, " ".join("%.1e" % e for e in errs)))
    return bad


def sine_bounds(h, w, x, y):
    """Largest |interpolant - sin(w t)| (and of the first derivative where
    stated) that each interpolation of samples every h may have, w = 2 pi:
      linear: h^2/8 max|f''| (the remainder of linear interpolation),
              first derivative h/2 max|f''|;
      spline, natural_spline: 5/384 h^4 max|f''''|, first derivative
              1/24 h^3 max|f''''| (C. A. Hall, W. W. Meyer, J. Approx.
              Theory 16 (1976) 105-122, for the spline with exact end
              conditions; sin(2 pi t) on [0, 1] has f'' = 0 at both ends,
              which the natural spline imposes, and the not-a-knot one is
              held to the same bound);
      monotone: h^4/384 max|f''''| (cubic Hermite with exact slopes) plus
              h/4 max_k |m_k - f'(x_k)| (the Hermite basis functions of the
              slopes sum to at most u (1 - u) <= 1/4 in magnitude), with
              the slopes m_k of fc_slopes."""
    m = fc_slopes(x, y)
    slope_err = np.max(np.abs(m - w * np.cos(w * x)))
    return {
        "linear": (h**2 / 8 * w**2, h / 2 * w**2),
        "spline": (5 / 384 * h**4 * w**4, h**3 / 24 * w**4),
        "natural": (5 / 384 * h**4 * w**4, h**3 / 24 * w**4),
        "monotone": (h**4 / 384 * w**4 + h / 4 * slope_err, None),
    }


def check_sine(path, h):
    f = h5py.File(path, "r")
    t = series(f, "time")
    w = 2 * np.pi
    x = np.round(np.arange(0.0, 1.0 + h / 2, h), 12)
    y = np.sin(w * x)
    bounds = sine_bounds(h, w, x, y)
    bad = 0
    for k, name in enumerate(("linear", "monotone", "spline", "natural"), start=1):
        got = recorded(f, k)
        e0 = np.max(np.abs(got[0] - np.sin(w * t)))
        e1 = np.max(np.abs(got[1] - w * np.cos(w * t)))
        b0, b1 = bounds[name]
        fine = e0 <= b0 and (b1 is None or e1 <= b1)
        line = "%s %-9s |x - sin| %.2e <= %.2e" % ("ok  " if fine else "FAIL", name, e0, b0)
        if b1 is not None:
            line += ", |v - w cos| %.2e <= %.2e" % (e1, b1)
        if name != "monotone":
            ref = table(name, x, y, t)
            e = max(np.max(np.abs(got[i] - ref[i])) / np.max(np.abs(ref[i])) for i in range(2))
            fine2 = e <= TOL
            line += "; against %s %.1e" % ("numpy" if name == "linear" else "SciPy", e)
            fine = fine and fine2
        bad += not fine
        print(line if fine else line.replace("ok  ", "FAIL", 1))
    return bad


def main():
    if sys.argv[1] == "--sine":
        return 1 if check_sine(sys.argv[2], float(sys.argv[3])) else 0
    return 1 if check_laws(sys.argv[1], int(sys.argv[2])) else 0


if __name__ == "__main__":
    sys.exit(main())
