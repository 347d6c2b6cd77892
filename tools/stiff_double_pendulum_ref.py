#!/usr/bin/python3
"""stiff_double_pendulum_ref.py - reference solution of decks/stiff_double_pendulum.yaml.

The stiff double pendulum of Sandu et al. (2001) §5.1 (docs/REFERENCES.md) in its
two minimal coordinates, the absolute angles th1, th2 of the bodies in
the x-y plane (counterclockwise from +x), from Lagrange's equations;
nothing of mbsim's absolute coordinates, constraints or integrators is
used.  Integrated with SciPy's Radau (rtol = atol = 1e-12 by default)
and its analytic Jacobian.

Model (the deck's header says where each value comes from):
  joint 1 at the origin; CM 1 at L1 e(th1); joint 2 at d e(th1), d = 2 L1;
  CM 2 at d e(th1) + L2 e(th2); e(a) = (cos a, sin a); gravity -g y;
  I1, I2 the centroidal moments about z.
  Kinetic energy T = 1/2 [th1', th2'] M [th1'; th2'],
    M = [[I1 + m1 L1^2 + m2 d^2,  m2 d L2 cos(th1 - th2)],
         [m2 d L2 cos(th1 - th2), I2 + m2 L2^2]],
  potential g ((m1 L1 + m2 d) sin th1 + m2 L2 sin th2), and the RSDA
  moments (seed's linear law) on the joint angles th1 and th2 - th1:
    S1 = -k1 (th1 - alpha1) - C1 th1'              on body 1,
    S2 = -k2 (th2 - th1 - alpha2) - C2 (th2' - th1')  on body 2, -S2 on body 1.
  Lagrange:  M [th1''; th2''] = [Q1; Q2] with, s = sin(th1 - th2),
    Q1 = -m2 d L2 s th2'^2 - (m1 L1 + m2 d) g cos th1 + S1 - S2,
    Q2 =  m2 d L2 s th1'^2 - m2 L2 g cos th2 + S2.

Angle branch: the deck's theta1, theta2 are taken on the branch on which
the spring deflections start in [-pi, pi), as the deck's rsda (angle:
wrapped) wraps them:
th1(0) = alpha1 + wrap(theta1 - alpha1) (2 pi for the paper's data, the
branch of the paper's Fig. 2), th2(0) - th1(0) = alpha2 + wrap(theta2 -
theta1 - alpha2).  The run fails (exit 1) if a deflection leaves
(-pi, pi) at any step, where mbsim's wrapped spring and the linear one
part.

Parameters are read from the deck: its `parameters` block (m1, m2, L1,
L2, k1, k2, C1, C2, alpha1, alpha2, theta1, theta2, w2), the z moment of
each body's `inertia` and `gravity`'s y component, all evaluated as the
deck's expressions; -p NAME=VALUE overrides a parameter like mbsim's
`--set parameters.NAME=VALUE`.

Usage:
  /usr/bin/python3 tools/stiff_double_pendulum_ref.py [-o OUT.csv|OUT.h5]
      [--dt 1e-3 | --times-from RUN.h5] [--t-end T] [--rtol 1e-12]
      [--deck decks/stiff_double_pendulum.yaml] [-p NAME=VALUE ...]
OUT.csv: columns t, theta1, theta1_dot, theta2, theta2_dot (rad, rad/s).
OUT.h5: mbsim's layout (mbsimlib.write_bodies: /time, /bodies/{body1,
body2}/{position, velocity, orientation, angular_velocity}) plus
/angles/theta and /angles/theta_dot of shape (N, 2), for `mbsim compare`.
--times-from RUN.h5 samples at exactly the /time values of an mbsim output.

As a module: `model(deck, overrides)`, `solve(p, t_end, rtol)` (a dense
solution), `run_angles(path, th1_0, th2_0)` (th1, th1', th2, th2' of an
mbsim output from body orientations, on the reference's branch).
"""
import argparse
import ast
import math
import os
import sys

import h5py
import numpy as np
import yaml
from scipy.integrate import solve_ivp

from mbsimlib import TOP, reference_file, sample_times, series, write_bodies

DECK = os.path.join(TOP, "decks", "stiff_double_pendulum.yaml")
# The energy balance E(t) + D(t) = E(0) (D the dampers' dissipated energy)
# relative to the largest term (1.08e4 J, spring 2 at t0), measured 3.1e-9,
# 3.2e-11, 2.4e-13 at rtol 1e-6, 1e-8, 1e-12; a wrong sign in a Coriolis
# term breaks it by 1.7e-3.  Bound: ENERGY_SLACK rtol.
ENERGY_SLACK = 100
_FUNCS = {"sin": math.sin, "cos": math.cos, "tan": math.tan, "sqrt": math.sqrt,
          "exp": math.exp, "log": math.log, "abs": abs, "atan2": math.atan2}
_CONSTS = {"pi": math.pi, "e": math.e}
_BINOPS = {ast.Add: lambda a, b: a + b, ast.Sub: lambda a, b: a - b,
           ast.Mult: lambda a, b: a * b, ast.Div: lambda a, b: a / b,
           ast.Pow: lambda a, b: a ** b}


def _eval(text, env):
    """A deck expression (numbers, + - * / ^, parentheses, names of ENV,
    pi, e and a few functions) as a float."""
    if isinstance(text, (int, float)):
        return float(text)
    node = ast.parse(str(text).replace("^", "**"), mode="eval").body

    def ev(n):
        if isinstance(n, ast.Constant) and isinstance(n.value, (int, float)):
            return float(n.value)
        if isinstance(n, ast.Name):
            if n.id in env:
                return env[n.id]
            if n.id in _CONSTS:
                return _CONSTS[n.id]
            raise ValueError("unknown name '%s' in '%s'" % (n.id, text))
        if isinstance(n, ast.UnaryOp) and isinstance(n.op, (ast.USub, ast.UAdd)):
            v = ev(n.operand)
            return -v if isinstance(n.op, ast.USub) else v
        if isinstance(n, ast.BinOp):
            a, b = ev(n.left), ev(n.right)
            op = type(n.op)
            if op in _BINOPS:
                return _BINOPS[op](a, b)
        if isinstance(n, ast.Call) and isinstance(n.func, ast.Name) and n.func.id in _FUNCS:
            return float(_FUNCS[n.func.id](*[ev(a) for a in n.args]))
        raise ValueError("cannot evaluate '%s'" % text)
    return ev(node)


def wrap(a):
    """a in [-pi, pi), as mbsim's rsda wraps its deflection (wrap, src/form/ra_force_impl.h)."""
    return a - 2 * math.pi * math.floor((a + math.pi) / (2 * math.pi))


def model(deck=DECK, overrides=()):
    """The model's numbers from DECK, with OVERRIDES ('NAME=VALUE') applied."""
    with open(deck) as fh:
        d = yaml.safe_load(fh)
    over = dict(o.split("=", 1) for o in overrides)
    env = {}
    for k, v in d["parameters"].items():
        env[k] = _eval(over.pop(k, v), env)
    if over:
        sys.exit("stiff_double_pendulum_ref.py: no parameter %s in %s" % (", ".join(over), deck))
    p = {k: env[k] for k in ("m1", "m2", "L1", "L2", "k1", "k2", "C1", "C2",
                             "alpha1", "alpha2", "theta1", "theta2", "w2")}
    for i, b in enumerate(d["bodies"][:2]):
        J = b["inertia"]
        p["I%d" % (i + 1)] = _eval(J[2][2] if isinstance(J[0], list) else J[2], env)
    p["g"] = -_eval(d["gravity"][1], env)
    p["th1_0"] = p["alpha1"] + wrap(p["theta1"] - p["alpha1"])
    p["th2_0"] = p["th1_0"] + p["alpha2"] + wrap(p["theta2"] - p["theta1"] - p["alpha2"])
    p["t_end"] = _eval(d["time"]["end"], env)
    return p


class Pendulum:
    def __init__(self, p):
        self.p = p
        self.d = 2 * p["L1"]
        self.a11 = p["I1"] + p["m1"] * p["L1"] ** 2 + p["m2"] * self.d ** 2
        self.a22 = p["I2"] + p["m2"] * p["L2"] ** 2
        self.a12 = p["m2"] * self.d * p["L2"]
        self.b1 = (p["m1"] * p["L1"] + p["m2"] * self.d) * p["g"]
        self.b2 = p["m2"] * p["L2"] * p["g"]

    def forces(self, y):
        p = self.p
        t1, t2, w1, w2 = y[:4]
        s = math.sin(t1 - t2)
        S1 = -p["k1"] * (t1 - p["alpha1"]) - p["C1"] * w1
        S2 = -p["k2"] * (t2 - t1 - p["alpha2"]) - p["C2"] * (w2 - w1)
        return (-self.a12 * s * w2 * w2 - self.b1 * math.cos(t1) + S1 - S2,
                self.a12 * s * w1 * w1 - self.b2 * math.cos(t2) + S2)

    def mass(self, y):
        c = self.a12 * math.cos(y[0] - y[1])
        return np.array([[self.a11, c], [c, self.a22]])

    def rhs(self, _t, y):
        """th1', th2', th1'', th2'' and the dampers' dissipated power (y[4]
        is the dissipated energy, for the energy check)."""
        acc = np.linalg.solve(self.mass(y), self.forces(y))
        w1, w2 = y[2], y[3]
        return [w1, w2, acc[0], acc[1],
                self.p["C1"] * w1 * w1 + self.p["C2"] * (w2 - w1) ** 2]

    def energy(self, y):
        """Kinetic + gravity + spring energy at states Y (4 or 5, n)."""
        p = self.p
        t1, t2, w1, w2 = y[0], y[1], y[2], y[3]
        kin = 0.5 * (self.a11 * w1 * w1 + 2 * self.a12 * np.cos(t1 - t2) * w1 * w2
                     + self.a22 * w2 * w2)
        pot = self.b1 * np.sin(t1) + self.b2 * np.sin(t2)
        spr = 0.5 * (p["k1"] * (t1 - p["alpha1"]) ** 2 + p["k2"] * (t2 - t1 - p["alpha2"]) ** 2)
        return kin + pot + spr

    def jac(self, _t, y):
        """d rhs / d y: M^-1 (dQ/dy - dM/dy acc)."""
        p = self.p
        t1, t2, w1, w2 = y[:4]
        M = self.mass(y)
        acc = np.linalg.solve(M, self.forces(y))
        s, c = math.sin(t1 - t2), math.cos(t1 - t2)
        k1, k2, C1, C2 = p["k1"], p["k2"], p["C1"], p["C2"]
        # dQ/d(t1, t2, w1, w2)
        dQ = np.array([
            [-self.a12 * c * w2 * w2 + self.b1 * math.sin(t1) - k1 - k2,
             self.a12 * c * w2 * w2 + k2, -C1 - C2, -2 * self.a12 * s * w2 + C2],
            [self.a12 * c * w1 * w1 + k2,
             -self.a12 * c * w1 * w1 + self.b2 * math.sin(t2) - k2,
             2 * self.a12 * s * w1 + C2, -C2]])
        # dM/dt1 = -a12 s [[0, 1], [1, 0]], dM/dt2 = -dM/dt1
        dMa = -self.a12 * s * np.array([acc[1], acc[0]])
        dQ[:, 0] -= dMa
        dQ[:, 1] += dMa
        J = np.zeros((5, 5))
        J[0, 2] = J[1, 3] = 1.0
        J[2:4, :4] = np.linalg.solve(M, dQ)
        J[4, 2] = 2 * C1 * w1 - 2 * C2 * (w2 - w1)
        J[4, 3] = 2 * C2 * (w2 - w1)
        return J


def solve(p, t_end=None, rtol=1e-12):
    """Radau from the deck's initial state to T_END: a solve_ivp result with
    dense output (components th1, th2, th1', th2', dissipated energy).
    Exits 1 if a spring deflection leaves (-pi, pi), or if the energy
    balance E(t) + D(t) = E(0) fails by more than ENERGY_SLACK times rtol
    times the largest energy term at the solver's steps."""
    pend = Pendulum(p)
    y0 = [p["th1_0"], p["th2_0"], 0.0, p["w2"], 0.0]
    sol = solve_ivp(pend.rhs, (0.0, p["t_end"] if t_end is None else t_end), y0,
                    method="Radau", rtol=rtol, atol=rtol, jac=pend.jac, dense_output=True)
    if not sol.success:
        sys.exit("stiff_double_pendulum_ref.py: Radau failed: %s" % sol.message)
    e1 = sol.y[0] - p["alpha1"]
    e2 = sol.y[1] - sol.y[0] - p["alpha2"]
    if np.max(np.abs(e1)) >= math.pi or np.max(np.abs(e2)) >= math.pi:
        sys.exit("stiff_double_pendulum_ref.py: a deflection leaves (-pi, pi) "
                 "(max |e1| %.3f, |e2| %.3f): mbsim's wrapped rsda differs from the "
                 "linear spring here" % (np.max(np.abs(e1)), np.max(np.abs(e2))))
    E = pend.energy(sol.y)
    scale = max(np.max(np.abs(E)), np.max(sol.y[4]))
    sol.energy_error = float(np.max(np.abs(E + sol.y[4] - E[0])) / scale)
    if sol.energy_error > ENERGY_SLACK * rtol:
        sys.exit("stiff_double_pendulum_ref.py: energy balance off by %.3g of %.3g J "
                 "(bound %g): the integration is not to be trusted"
                 % (sol.energy_error, scale, ENERGY_SLACK * rtol))
    sol.pend = pend
    return sol


def run_angles(path, th1_0, th2_0):
    """t, th1, th1', th2, th2' of the mbsim output PATH: each body's angle
    from its orientation (atan2 of the body x axis in the global frame),
    unwrapped over the samples and moved by whole turns onto the branch
    of TH1_0, TH2_0 at the first sample; the rates are the global z
    components of the angular velocities."""
    out = []
    with h5py.File(path, "r") as f:
        t = series(f, "time")
        out.append(t)
        for name, a0 in (("body1", th1_0), ("body2", th2_0)):
            q = series(f, "bodies/%s/orientation" % name)
            w, x, y, z = q[:, 0], q[:, 1], q[:, 2], q[:, 3]
            # first column of the rotation matrix of q
            ang = np.unwrap(np.arctan2(2 * (x * y + w * z), 1 - 2 * (y * y + z * z)))
            ang += 2 * math.pi * round((a0 - ang[0]) / (2 * math.pi))
            wb = series(f, "bodies/%s/angular_velocity" % name)
            # global z of A w_b: third row of A times w_b
            wz = (2 * (x * z - w * y) * wb[:, 0] + 2 * (y * z + w * x) * wb[:, 1]
                  + (1 - 2 * (x * x + y * y)) * wb[:, 2])
            out += [ang, wz]
    return out


def states(p, sol, t):
    """Positions, velocities, quaternions and angular velocities of both
    bodies at T (for mbsim's layout)."""
    th1, th2, w1, w2 = sol.sol(t)[:4]
    d = 2 * p["L1"]
    e = lambda a: np.stack([np.cos(a), np.sin(a), np.zeros_like(a)], -1)
    de = lambda a: np.stack([-np.sin(a), np.cos(a), np.zeros_like(a)], -1)
    pos = np.stack([p["L1"] * e(th1), d * e(th1) + p["L2"] * e(th2)], 1)
    vel = np.stack([p["L1"] * w1[:, None] * de(th1),
                    d * w1[:, None] * de(th1) + p["L2"] * w2[:, None] * de(th2)], 1)
    # the quaternion of the angle off the branch shift, so that it starts at
    # the deck's orientation (axis z, angle theta1 or theta2), as mbsim's does
    quat = lambda a: np.stack([np.cos(a / 2), 0 * a, 0 * a, np.sin(a / 2)], -1)
    turn = lambda k: 2 * math.pi * round((p["th%d_0" % k] - p["theta%d" % k]) / (2 * math.pi))
    q = np.stack([quat(th1 - turn(1)), quat(th2 - turn(2))], 1)
    z = np.zeros_like(w1)
    om = np.stack([np.stack([z, z, w1], -1), np.stack([z, z, w2], -1)], 1)
    return pos, vel, q, om


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("-o", "--output", default="stiff_double_pendulum_ref.csv")
    ap.add_argument("--deck", default=DECK)
    ap.add_argument("-p", "--param", action="append", default=[], metavar="NAME=VALUE")
    ap.add_argument("--dt", type=float, default=1e-3, help="sample interval, s")
    ap.add_argument("--times-from", metavar="RUN.h5", help="sample at this output's /time")
    ap.add_argument("--t-end", type=float, help="default: the deck's time.end")
    ap.add_argument("--rtol", type=float, default=1e-12, help="Radau's rtol = atol")
    a = ap.parse_args()
    p = model(a.deck, a.param)
    if a.t_end is not None:
        p["t_end"] = a.t_end
    if a.times_from:
        with h5py.File(a.times_from, "r") as f:
            t = series(f, "time")
        p["t_end"] = max(p["t_end"], float(t[-1]))
    else:
        t = sample_times(p["t_end"], a.dt)
    sol = solve(p, rtol=a.rtol)
    y = sol.sol(t)
    print("stiff_double_pendulum_ref.py: Radau rtol=atol=%g, %d steps, %d rhs evaluations, "
          "energy balance within %.2g; %d samples to %s"
          % (a.rtol, len(sol.t) - 1, sol.nfev, sol.energy_error, len(t), a.output),
          file=sys.stderr)
    if a.output.endswith(".h5"):
        with open(a.deck) as fh:
            text = fh.read()
        info = "scipy Radau rtol=atol=%g (tools/stiff_double_pendulum_ref.py)" % a.rtol
        with reference_file(a.output, t, info, text) as f:
            write_bodies(f, ["body1", "body2"], *states(p, sol, t))
            f.create_dataset("angles/theta", data=np.stack([y[0], y[1]], 1)).attrs["units"] = "rad"
            f.create_dataset("angles/theta_dot", data=np.stack([y[2], y[3]], 1)).attrs["units"] = "rad/s"
    else:
        np.savetxt(a.output, np.column_stack([t, y[0], y[2], y[1], y[3]]), delimiter=",",
                   fmt="%.17g", header="t,theta1,theta1_dot,theta2,theta2_dot", comments="")


if __name__ == "__main__":
    main()
