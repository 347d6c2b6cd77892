#!/usr/bin/env python3
"""contact_ref.py - reference values of the smooth contact benchmarks
(tests/t-contact.sh), from the minimal equations integrated with SciPy's
Radau/DOP853 at tight tolerances, never from mbsim.

  restitution FORM E N K M V0 [G]
      the restitution of one impact of a mass M at speed V0 on a rigid
      plane under F = max(0, K d^N (1 + c(E) d'/V0)), c of FORM
      (hunt_crossley 3(1-e)/2, lankarani_nikravesh 3(1-e^2)/4, flores
      8(1-e)/(5e), exact: the c whose impact without gravity rebounds
      with E, from the closed form -c e - ln(1 - c e) = c - ln(1 + c)
      written with Lambert's W, e = (1 + W0(-(1+c) exp(-(1+c)))) / c,
      solved by SciPy's brentq; W by mpmath at 60 digits), gravity G along the approach (default
      0): the rebound speed over V0, integrated.
  closed FORM E
      the restitution without gravity from the closed form (Lambert W)
      at the FORM's c(E).
  hertz_duration M R ESTAR V0
      the contact time of the undamped Hertz impact, 2.868 (M^2/(R ESTAR^2
      V0))^(1/5) (K. L. Johnson, Contact Mechanics, 1985, section 11.4), and the
      same from integrating M d'' = -4/3 ESTAR sqrt(R) d^1.5 (both printed).
"""
import sys

import numpy as np
from scipy.integrate import solve_ivp
from scipy.optimize import brentq
import mpmath


def closed(c):
    """the restitution of F = K d^n (1 + c d'/v0) without gravity"""
    if c == 0:
        return 1.0
    with mpmath.workdps(60):    # W0 near its branch point -1/e for small c
        z = 1 + mpmath.mpf(c)
        return float((1 + mpmath.lambertw(-z * mpmath.exp(-z))) / c)


def damping(form, e):
    if form == "exact":
        e = max(e, 0.01)
        if e >= 1:
            return 0.0
        return np.exp(brentq(lambda lc: closed(np.exp(lc)) - e, np.log(1e-12), np.log(1e3),
                             xtol=1e-14))
    return {"hunt_crossley": 1.5 * (1 - e), "lankarani_nikravesh": 0.75 * (1 - e * e),
            "flores": 1.6 * (1 - e) / max(e, 0.01)}[form]


def impact(form, e, n, K, m, v0, g=0.0):
    chi = damping(form, e) / v0

    def f(t, y):
        d, dd = y
        F = max(0.0, K * d ** n * (1 + chi * dd)) if d > 0 else 0.0
        return [dd, g - F / m]

    out = lambda t, y: y[0]
    out.terminal, out.direction = True, -1
    s = solve_ivp(f, [0, 10.0], [0.0, v0], method="DOP853", events=out, rtol=1e-12,
                  atol=1e-16, first_step=1e-9, max_step=1e-6 * (m / K) ** (1 / (n + 1)) * 1e3)
    return s.t_events[0][0], -s.y_events[0][0][1]


def main(a):
    if a[0] == "restitution":
        form, e, n, K, m, v0 = a[1], *map(float, a[2:7])
        g = float(a[7]) if len(a) > 7 else 0.0
        print("%.12g" % (impact(form, e, n, K, m, v0, g)[1] / v0))
    elif a[0] == "closed":
        print("%.12g" % closed(damping(a[1], float(a[2]))))
    elif a[0] == "hertz_duration":
        m, R, Es, v0 = map(float, a[1:5])
        t, _ = impact("flores", 1.0, 1.5, 4.0 / 3.0 * Es * np.sqrt(R), m, v0)
        print("%.12g %.12g" % (2.868 * (m * m / (R * Es * Es * v0)) ** 0.2, t))
    else:
        sys.exit(__doc__)


if __name__ == "__main__":
    main(sys.argv[1:])
