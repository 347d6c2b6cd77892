#!/usr/bin/env python3
"""friction_ref.py - references for tests/t-friction.sh, independent of
mbsim: the minimal equations of each deck integrated by scipy (Radau,
rtol = atol = 1e-12) with the same regularization, -mu N tanh(v / v_eps).

  bead  tests/friction/bead_rod.yaml: a bead on a rod turned about the
        vertical at omega, r'' = omega^2 r - mu sqrt((2 omega r')^2 + g^2)
        tanh(r' / v_eps) (the rod's normal force: Coriolis and weight per
        unit mass; the centripetal direction is the rod's free one).

(tests/friction/incline.yaml has closed forms: t-friction.sh case 1.)

Prints "t r v" rows at the times given: friction_ref.py bead T1 [T2 ...]
[--set name=value ...]."""
import sys

import numpy as np
from scipy.integrate import solve_ivp

G = 9.81


def bead(p):
    w, mu, ve = p["omega"], p["mu"], p["v_eps"]

    def f(t, y):
        r, v = y
        return [v, w * w * r - mu * np.sqrt((2 * w * v) ** 2 + G * G) * np.tanh(v / ve)]
    return f, [p["r0"], p["v0"]]


DEFAULTS = {
    "bead": {"omega": 5.0, "mu": 0.3, "r0": 0.5, "v0": -1.0, "v_eps": 1e-5},
}


def main(argv):
    kind, rest = argv[0], argv[1:]
    p = dict(DEFAULTS[kind])
    times = []
    while rest:
        a = rest.pop(0)
        if a == "--set":
            k, v = rest.pop(0).split("=")
            p[k] = float(v)
        else:
            times.append(float(a))
    f, y0 = {"bead": bead}[kind](p)
    sol = solve_ivp(f, (0.0, max(times)), y0, method="Radau", rtol=1e-12, atol=1e-12,
                    t_eval=sorted(times), dense_output=False)
    if not sol.success:
        sys.exit("friction_ref: " + sol.message)
    for t, s, v in zip(sol.t, sol.y[0], sol.y[1]):
        print("%.17g %.17g %.17g" % (t, s, v))


if __name__ == "__main__":
    main(sys.argv[1:])
