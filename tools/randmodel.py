#!/usr/bin/python3
"""randmodel.py - seeded random multibody decks and the properties every one must have.

  tools/randmodel.py --seed 17 -o m.yaml          write one model (replayable)
  tools/randmodel.py --seed 17 --twin -o m.yaml   its static twin (properties 3, 4)
  tools/randmodel.py --check --seeds 0:50 [--bodies 2:6] [--rotate 2]
                     [--results DIR] [--jobs 2]   generate and check many

A model is a tree of 2-30 bodies (a random parent for each, or the ground)
joined by every joint type the deck has, closed loops added between bodies
of the tree, a gear between two revolutes of a tree, particles, free bodies, every force element (tsda, rsda,
force, torque, friction, motor with p/pd/pi/pid control and limits or an
expression of state, bushing, tire) and drivers, points and measures.
Joints are given by global points and axes at t0, so every joint, closing
a loop or not, holds at the initial configuration by construction; random
initial velocities are projected onto the constraints by mbsim's assembly
(mbsim-run(1), Consistent initial conditions).

Properties checked for each model (--check):
  1. every scheme and formulation of its share agrees with the reference
     within the bound of tools/matrix.py (formulations ra, rp and tree are
     then consistent with one another through the same reference);
  2. the energy balance closes on the reference run: K + V - W stays at
     its initial value (W = /energy/nonconservative_work) within the
     reference's own error (its distance from the same scheme at twice the
     step, times 4 and Richardson's 8/7, + 1e-6 of the largest energy); a file without W is a
     counted skip;
  3. `static` then `run --from-static` stays at rest (max |v| and |w| <=
     1e-6 over the run) when the model has no time-dependent loads or
     drivers, or on its static twin (the model without drivers, forces,
     torques, motors' targets and actuators) when it has them (a counted
     skip when static finds no equilibrium);
  4. the lowest mode of `mbsim modes` that rings (not a free motion,
     damping ratio <= 0.1) is the frequency of the run that starts there
     in that mode (`run --excite-mode K --amplitude 1e-4`, lms2 at 200
     steps a period, 8 periods), measured from its zero crossings by
     tools/modes_check.py, to 1e-3 relative (lms2's phase error at 200
     steps a period is 1e-4, measured on tests/statics/*.yaml; the
     nonlinearity at 1e-4 far less), on the model or its static twin as
     for 3; a counted skip when there is no such mode.
A model that fails is saved to DIR/fail-SEED.yaml with the command that
replays it.  A failure of a model with friction is tried again without
its friction elements; when the same cells then agree (and the energy
balance closes) it is labelled with the open friction finding of
docs/results/matrix.md.  The exit status is 1 when a model failed in a
way no known finding explains.
"""
import argparse
import concurrent.futures as cf
import json
import math
import os
import random
import resource
import shutil
import sys
import tempfile
import time
import types

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import matrix as mx  # noqa: E402  (first: it limits numpy's BLAS threads)
import numpy as np  # noqa: E402

TREE_JOINTS = ["revolute", "spherical", "universal", "cylindrical", "translational",
               "planar", "fixed"]
OTHER_JOINTS = ["distance", "point_on_line", "point_on_plane"]
LOOP_JOINTS = ["distance", "spherical", "point_on_plane", "distance"]


def unit(rng):
    v = np.array([rng.gauss(0, 1) for _ in range(3)])
    return v / np.linalg.norm(v)


def perp(a, rng):
    v = np.cross(a, unit(rng))
    return v / np.linalg.norm(v)


def r(x, n=4):
    """A number rounded for the deck (every value of the deck is what it says)."""
    return float(round(x, n))


def vec(v, n=4):
    return [r(x, n) for x in v]


def func(rng):
    """A smooth function of time (harmonic or cosine ramp)."""
    if rng.random() < 0.5:
        return {"type": "harmonic", "amplitude": r(rng.uniform(0.1, 1)),
                "omega": r(rng.uniform(1, 10)), "phase": r(rng.uniform(0, 3))}
    return {"type": "cosine_ramp", "from": 0, "to": r(rng.uniform(-1, 1)),
            "start": 0, "end": r(rng.uniform(0.1, 0.5))}


def law(rng, t_end):
    """A motion law of the deck's FUNCTIONS with its breakpoints inside
    (0, T_END): expression, spline table, step, step5 or piecewise (value
    and rate continuous; the acceleration jumps at the second piece)."""
    kind = rng.choice(["expression", "table", "step", "step5", "piecewise"])
    a, b = sorted(rng.uniform(0.05, 0.95) * t_end for _ in range(2))
    b = max(b, a + 0.05 * t_end)
    if kind == "expression":
        return {"type": "expression", "expression": "%g*sin(%g*t) + %g*t^2" % (
            r(rng.uniform(0.1, 1)), r(rng.uniform(2, 20)), r(rng.uniform(-3, 3)))}
    if kind == "table":
        n = rng.randint(4, 7)
        times = [r(t_end * (i - 0.5) / (n - 2), 5) for i in range(n)]
        return {"type": "table", "interpolation": "spline", "times": times,
                "values": [r(rng.uniform(-0.05, 0.05)) for _ in times]}
    if kind in ("step", "step5"):
        return {"type": kind, "from": 0, "to": r(rng.uniform(-0.5, 0.5)), "start": r(a, 5),
                "end": r(b, 5)}
    c1, c2 = r(rng.uniform(-1, 1)), r(rng.uniform(-20, 20))
    return {"type": "piecewise", "segments": [
        {"start": 0, "coefficients": [0, c1, c2]},
        {"start": r(a, 5), "coefficients": [r(c1 * r(a, 5) + c2 * r(a, 5) ** 2, 12),
                                            r(c1 + 2 * c2 * r(a, 5), 12),
                                            r(rng.uniform(-20, 20))]}]}


class Model:
    """The deck of one seed."""

    def __init__(self, seed, nmin=2, nmax=30, t_end=0.1, extras=True):
        rng = self.rng = random.Random(seed)
        self.seed = seed
        self.t_end = t_end
        self.nmin, self.nmax, self.extras = nmin, nmax, extras
        self.planar = rng.random() < 0.3
        self.n = rng.randint(nmin, nmax)
        self.bodies, self.joints, self.forces, self.drivers = [], [], [], []
        self.points, self.measures = [], []
        self.timedep = False
        self.kinds = set()
        self.pos = {"ground": np.zeros(3)}
        self.jtype = {}
        self.used = set()
        self.make_bodies()
        self.make_loops()
        self.make_forces()
        # a stream of its own, so that every seed's other elements stay
        # what they were before gears were drawn
        self.make_gear(random.Random(7919 * seed + 1))
        # the elements added after the matrix's first run (motion laws,
        # couplings and screws, viscous elements, recorded events) from a
        # third stream: every seed keeps the elements it had before, but
        # for the functions of the drivers and motors that get a law
        # instead (--no-extras: the model as it was drawn before them)
        self.events = []
        if extras:
            self.make_extras(random.Random(7919 * seed + 2))

    def offset(self):
        rng = self.rng
        if self.planar:
            a = rng.uniform(0, 2 * math.pi)
            return rng.uniform(0.3, 0.8) * np.array([math.cos(a), 0, math.sin(a)])
        return rng.uniform(0.3, 0.8) * unit(rng)

    def axis(self):
        return np.array([0.0, 1.0, 0.0]) if self.planar else unit(self.rng)

    def make_bodies(self):
        rng = self.rng
        names = []  # the rigid bodies so far: a particle is no parent
        for i in range(self.n):
            name = "b%d" % i
            particle = not self.planar and rng.random() < 0.1
            parent = rng.choice(["ground"] + names[-4:]) if names else "ground"
            free = i > 0 and rng.random() < 0.05
            p = self.pos[parent] + self.offset()
            self.pos[name] = p
            m = rng.uniform(0.5, 3)
            body = {"name": name, "mass": r(m), "position": vec(p)}
            if particle:
                body["kind"] = "particle"
                self.kinds.add("particle")
            else:
                a, b, c = (rng.uniform(0.05, 0.4) for _ in range(3))
                body["inertia"] = [r(m * (b * b + c * c) / 12, 6), r(m * (a * a + c * c) / 12, 6),
                                   r(m * (a * a + b * b) / 12, 6)]
                if not self.planar and rng.random() < 0.5:
                    body["orientation"] = {"axis": vec(unit(rng)), "angle": r(rng.uniform(0, 3))}
                w = [r(rng.uniform(-2, 2)) for _ in range(3)]
                body["angular_velocity"] = w
            body["velocity"] = [r(rng.uniform(-0.5, 0.5)) for _ in range(3)]
            self.bodies.append(body)
            if not particle:
                names.append(name)
            if free:
                self.kinds.add("free body")
                self.tsda(name, parent)
                continue
            self.joint(parent, name, particle)

    def joint(self, b1, b2, particle, loop=False):
        rng = self.rng
        name = "j%d" % len(self.joints)
        p = (self.pos[b1] + self.pos[b2]) / 2
        if particle:
            t = rng.choice(["spherical", "distance", "point_on_plane"])
            p = self.pos[b2]
        elif loop:
            t = "revolute" if self.planar else rng.choice(LOOP_JOINTS)
        elif self.planar:
            t = rng.choice(["revolute"] * 4 + ["translational", "planar", "fixed"])
        else:
            t = rng.choice(TREE_JOINTS + OTHER_JOINTS + ["revolute", "spherical"])
        j = {"name": name, "type": t, "body1": b1, "body2": b2}
        if t == "distance":
            j["at1"] = vec(self.pos[b1] + (0.1 * unit(rng) if b1 != "ground" else 0))
            j["at2"] = vec(self.pos[b2] + (0 if particle else 0.1 * unit(rng)))
            if b1 == "ground":
                j["at1"] = vec(self.pos[b2] + 0.5 * unit(rng))
        else:
            j["point"] = vec(p)
        a = self.axis()
        if t in ("revolute", "cylindrical", "translational", "universal", "point_on_line",
                 "point_on_plane", "planar"):
            j["axis"] = vec(a, 6)
        if t == "universal":
            j["cross_axis"] = vec(perp(np.array(j["axis"]), rng), 6)
        if t == "planar" and self.planar:
            j["axis"] = [0, 1, 0]
        self.joints.append(j)
        self.jtype[name] = t
        self.kinds.add("joint " + t)
        return name

    def make_loops(self):
        rng = self.rng
        rigid = [b["name"] for b in self.bodies if b.get("kind") != "particle"]
        for _ in range(rng.choice([0, 0, 1, 1, 2])):
            if len(rigid) < 2:
                break
            b1, b2 = rng.sample(rigid + ["ground"], 2)
            self.joint(b1, b2, False, loop=True)
            self.kinds.add("closed loop")

    def make_gear(self, rng):
        """A gear between two revolutes that no motor or driver turns, in
        half the models that have no closed loop (a constant ratio
        between two joints of a loop would lock it), when two such joints
        move at most two bodies besides ground (a coupling row's two
        sides): both on ground, or one on the other's body."""
        if "closed loop" in self.kinds or rng.random() >= 0.5:
            return
        js = [j for j in self.joints if j["type"] == "revolute" and j["name"] not in self.used]
        pairs = [(a, b) for a in js for b in js if a["name"] < b["name"]
                 and len({a["body1"], a["body2"], b["body1"], b["body2"]} - {"ground"}) <= 2]
        if not pairs:
            return
        a, b = rng.choice(pairs)
        ratio = rng.choice([-1, 1]) * rng.uniform(0.5, 2)
        self.joints.append({"name": "j%d" % len(self.joints), "type": "gear",
                            "joint1": a["name"], "joint2": b["name"], "ratio": r(ratio)})
        self.kinds.add("joint gear")

    def make_extras(self, rng):
        """Motion laws for drivers and motors' targets, a rack_pinion or a
        coupler, a screw, a viscous element and recorded events, each in
        part of the models."""
        for f in self.drivers + [f for f in self.forces if "target" in f]:
            key = "function" if "function" in f else "target"
            if rng.random() < 0.5:
                f[key] = law(rng, self.t_end)
                self.kinds.add("motion law " + f[key]["type"])
        self.make_coupling(rng)
        self.make_screw(rng)
        if rng.random() < 0.3:
            every = [b["name"] for b in self.bodies]
            b1, b2 = rng.sample(every + ["ground"], 2)
            self.forces.append({"name": "f%d" % len(self.forces), "type": "viscous", "body1": b1,
                                "body2": b2, "damping": r(rng.uniform(0.1, 5))})
            self.kinds.add("viscous")
        for b in self.bodies:
            # a crossing about mid-run of the body's x, moving at its
            # initial speed (at least 0.2 m/s): transversal, not grazing
            vx = b["velocity"][0]
            if abs(vx) >= 0.2 and rng.random() < 0.15 and len(self.events) < 2:
                c = b["position"][0] + vx * self.t_end * rng.uniform(0.3, 0.7)
                self.events.append({"name": "e%d" % len(self.events),
                                    "condition": "x.%s - %s" % (b["name"], r(c)), "action": "record"})
                self.kinds.add("event")

    def free_joints(self, *types):
        """Joints of TYPES that nothing acts on: no motor, driver, force or coupling."""
        taken = self.used | {f.get("joint") for f in self.forces} | {
            j.get(k) for j in self.joints for k in ("joint1", "joint2", "joint3")}
        return [j for j in self.joints if j["type"] in types and j["name"] not in taken]

    def make_coupling(self, rng):
        """A rack_pinion or a coupler on joints that move at most two
        bodies, in models without a closed loop (make_gear's reason)."""
        if "closed loop" in self.kinds or rng.random() >= 0.4:
            return
        js = self.free_joints("revolute", "cylindrical", "translational")
        pairs = [(a, b) for a in js for b in js if a["name"] != b["name"]
                 and len({a["body1"], a["body2"], b["body1"], b["body2"]} - {"ground"}) <= 2]
        rp = [(a, b) for a, b in pairs if a["type"] in ("revolute", "cylindrical")
              and b["type"] in ("translational", "cylindrical")]
        name = "j%d" % len(self.joints)
        if rp and rng.random() < 0.5:
            a, b = rng.choice(rp)
            self.joints.append({"name": name, "type": "rack_pinion", "joint1": a["name"],
                                "joint2": b["name"],
                                "radius": r(rng.choice([-1, 1]) * rng.uniform(0.05, 0.3))})
            self.kinds.add("joint rack_pinion")
            return
        cp = [(a, b) for a, b in pairs if a["type"] != "cylindrical" and b["type"] != "cylindrical"
              and a["name"] < b["name"]]
        if cp:
            a, b = rng.choice(cp)
            self.joints.append({"name": name, "type": "coupler", "joint1": a["name"],
                                "joint2": b["name"], "ratio1": r(rng.uniform(0.5, 2)),
                                "ratio2": r(rng.choice([-1, 1]) * rng.uniform(0.5, 2))})
            self.kinds.add("joint coupler")

    def make_screw(self, rng):
        """A cylindrical joint that nothing acts on becomes a screw."""
        js = self.free_joints("cylindrical")
        if js and rng.random() < 0.5:
            j = rng.choice(js)
            j["type"] = "screw"
            j["pitch"] = r(rng.choice([-1, 1]) * rng.uniform(0.002, 0.05))
            self.jtype[j["name"]] = "screw"
            self.kinds.add("joint screw")

    def tsda(self, b1, b2):
        rng = self.rng
        f = {"name": "f%d" % len(self.forces), "type": "tsda", "body1": b1, "body2": b2,
             "at1": vec(self.pos[b1]), "at2": vec(self.pos[b2]),
             "stiffness": r(rng.uniform(10, 200)), "damping": r(rng.uniform(0, 5))}
        if np.linalg.norm(self.pos[b1] - self.pos[b2]) < 1e-3:
            f["at1"] = vec(self.pos[b1] + 0.2 * unit(rng))
        if rng.random() < 0.3:
            f["actuator"] = func(rng)
            self.timedep = True
        if rng.random() < 0.3:
            f["expression"] = "-%g*rate*abs(rate)" % r(rng.uniform(0.1, 2))
            self.kinds.add("expression")
        self.forces.append(f)
        self.kinds.add("tsda")

    def make_forces(self):
        rng = self.rng
        rigid = [b["name"] for b in self.bodies if b.get("kind") != "particle"]
        every = [b["name"] for b in self.bodies]
        for _ in range(rng.randint(1, 3 + self.n // 3)):
            kind = rng.choice(["tsda", "rsda", "force", "torque", "motor", "motor", "bushing",
                               "friction", "driver", "point", "tire"])
            getattr(self, "add_" + kind)(rng, rigid, every)

    def joints_of(self, *types):
        return [j["name"] for j in self.joints if j["type"] in types
                and j["name"] not in self.used]

    def add_tsda(self, rng, rigid, every):
        b1, b2 = rng.sample(every + ["ground"], 2)
        self.tsda(b1, b2)

    def add_rsda(self, rng, rigid, every):
        js = self.joints_of("revolute", "cylindrical")
        if js:
            f = {"name": "f%d" % len(self.forces), "type": "rsda", "joint": rng.choice(js),
                 "stiffness": r(rng.uniform(1, 50)), "damping": r(rng.uniform(0, 2)),
                 "free_angle": r(rng.uniform(-0.5, 0.5))}
            if len(self.forces) % 3 == 0:  # the wrapped form too (no draw: seeds unchanged)
                f["angle"] = "wrapped"
                self.kinds.add("rsda wrapped")
            self.forces.append(f)
            self.kinds.add("rsda")

    def add_force(self, rng, rigid, every):
        b = rng.choice(every)
        f = {"name": "f%d" % len(self.forces), "type": "force", "body": b,
             "vector": vec(rng.uniform(1, 10) * unit(rng))}
        if b in rigid:
            f["point"] = vec(0.1 * unit(rng))
        if rng.random() < 0.5:
            f["expression"] = "%g*sin(t) - %g*vx.%s" % (r(rng.uniform(0, 1)), r(rng.uniform(0, 1)), b)
            self.kinds.add("expression")
        else:
            f["function"] = func(rng)
        self.timedep = True
        self.forces.append(f)
        self.kinds.add("force")

    def add_torque(self, rng, rigid, every):
        if rigid:
            f = {"name": "f%d" % len(self.forces), "type": "torque", "body": rng.choice(rigid),
                 "vector": vec(rng.uniform(0.1, 2) * self.axis()), "function": func(rng),
                 "frame": rng.choice(["global", "body"])}
            self.forces.append(f)
            self.timedep = True
            self.kinds.add("torque")

    def add_motor(self, rng, rigid, every):
        js = self.joints_of("revolute", "cylindrical", "translational")
        if not js:
            return
        j = rng.choice(js)
        self.used.add(j)
        f = {"name": "f%d" % len(self.forces), "type": "motor", "joint": j}
        if rng.random() < 0.3:
            f["expression"] = "-%g*q.%s - %g*qd.%s" % (r(rng.uniform(5, 50)), j, r(rng.uniform(0, 3)), j)
            self.kinds.add("motor expression")
        else:
            c = rng.choice(["p", "pd", "pi", "pid"])
            f.update(control=c, kp=r(rng.uniform(10, 200)), target=func(rng))
            if "d" in c:
                f["kd"] = r(rng.uniform(1, 10))
            if "i" in c:
                f["ki"] = r(rng.uniform(10, 200))
            if rng.random() < 0.4:
                f["limit"] = r(rng.uniform(5, 50))
                self.kinds.add("motor limit")
            self.kinds.add("motor " + c)
            self.timedep = True
        self.forces.append(f)

    def add_bushing(self, rng, rigid, every):
        if len(rigid) >= 1:
            b1, b2 = rng.sample(rigid + ["ground"], 2)
            f = {"name": "f%d" % len(self.forces), "type": "bushing", "body1": b1, "body2": b2,
                 "at": vec((self.pos[b1] + self.pos[b2]) / 2),
                 "translational_stiffness": [r(rng.uniform(10, 500)) for _ in range(3)],
                 "rotational_stiffness": [r(rng.uniform(1, 50)) for _ in range(3)],
                 "translational_damping": [r(rng.uniform(0, 5)) for _ in range(3)]}
            self.forces.append(f)
            self.kinds.add("bushing")

    def add_friction(self, rng, rigid, every):
        js = self.joints_of("translational")
        if js:
            self.forces.append({"name": "f%d" % len(self.forces), "type": "friction",
                                "joint": rng.choice(js), "mu": r(rng.uniform(0.05, 0.3))})
            self.kinds.add("friction")

    def add_driver(self, rng, rigid, every):
        js = self.joints_of("revolute", "translational")
        if js:
            j = rng.choice(js)
            self.used.add(j)
            self.drivers.append({"name": "d%d" % len(self.drivers), "joint": j, "function": func(rng)})
            self.timedep = True
            self.kinds.add("driver")

    def add_point(self, rng, rigid, every):
        b = rng.choice(every)
        name = "p%d" % len(self.points)
        pt = {"name": name, "body": b, "point": vec(0.2 * unit(rng)) if b in rigid else [0, 0, 0]}
        self.points.append(pt)
        self.measures.append({"name": "m%d" % len(self.measures),
                              "expression": "x.%s + 0.5*vz.%s" % (name, name)})
        self.kinds.add("point+measure")

    def add_tire(self, rng, rigid, every):
        if rigid:
            b = rng.choice(rigid)
            z = self.pos[b][2]
            self.forces.append({"name": "f%d" % len(self.forces), "type": "tire", "body": b,
                                "radius": r(rng.uniform(0.1, 0.4)),
                                "road": "%g + 0.05*sin(2*x)" % r(z - rng.uniform(0.05, 0.5)),
                                "stiffness": r(rng.uniform(1e3, 1e4)), "damping": r(rng.uniform(10, 50))})
            self.kinds.add("tire")

    def deck(self, twin=False):
        """The deck's text: flow mappings (JSON) one item a line, a valid YAML deck.
        twin: the static twin, the model without what depends on time (drivers,
        forces and torques, motors' targets, actuators): the model of the rest
        and modes properties when the model itself has time-dependent loads."""
        d = json.dumps
        forces, drivers = self.forces, self.drivers
        if twin:
            drivers = []
            forces = [dict((k, v) for k, v in f.items() if k != "actuator") for f in self.forces
                      if f["type"] not in ("force", "torque") and "target" not in f]
        L = ["# tools/randmodel.py --seed %d --bodies %d:%d --t-end %g -o FILE%s%s" % (
            self.seed, self.nmin, self.nmax, self.t_end, " --twin" if twin else "",
            "" if self.extras else " --no-extras"),
             "# kinds: " + ", ".join(sorted(self.kinds)),
             "title: %s" % d("random model %d" % self.seed),
             "time: {end: %g}" % self.t_end,
             "integrator: {method: lms2, step: 1e-3}"]
        for key, items in (("bodies", self.bodies), ("joints", self.joints),
                           ("drivers", drivers), ("forces", forces),
                           ("points", self.points), ("measures", self.measures),
                           ("events", [] if twin else self.events)):
            if items:
                L.append(key + ":")
                L += ["  - " + d(x) for x in items]
        return "\n".join(L) + "\n"


def energy(path):
    """K + V - W of a result file, or None when it has no work term."""
    import h5py
    with h5py.File(path, "r") as f:
        n = len(f["time"])
        if "energy/nonconservative_work" not in f:
            return None
        k, v, w = (np.asarray(f["energy/" + q][:n]) for q in ("kinetic", "potential",
                                                              "nonconservative_work"))
    return k + v - w, max(np.abs(k).max(), np.abs(v - v[0]).max(), np.abs(w).max())


def prop_energy(deck):
    """Energy balance of the reference pair: ('ok'|'FAILED'|'skip', text)."""
    files = [os.path.join(deck.dir, "ref%d.h5" % m) for m in (8, 4)]
    if not all(os.path.exists(f) for f in files):
        return "skip", "no reference files"
    e1, e2 = energy(files[0]), energy(files[1])
    if e1 is None or e2 is None:
        return "skip", "no /energy/nonconservative_work in the file"
    (b1, scale), (b2, _) = e1, e2
    r1, r2 = np.abs(b1 - b1[0]), np.abs(b2 - b2[0])
    # Richardson as in matrix.judge, 2^p / (2^p - 1) = 8/7 for p = 3: the
    # order of the first reference, mssth5 at index 2 (`mbsim list integrators`)
    bound = mx.S_SAFETY * float(np.abs(r1 - r2[:len(r1)]).max()) * 8 / 7 + mx.REL_FLOOR * scale
    err = float(r1.max())
    if err <= bound:
        return "ok", "energy balance %.3g <= %.3g J" % (err, bound)
    return "FAILED", "energy balance off by %.3g J (bound %.3g J, largest energy %.3g J)" % (
        err, bound, scale)


def static_deck(deck, model):
    """DECK, or its static twin (Model.deck) when the model has time-dependent loads."""
    if not model.timedep:
        return deck
    path = os.path.join(deck.dir, "twin%d.yaml" % model.seed)
    with open(path, "w") as f:
        f.write(model.deck(twin=True))
    return types.SimpleNamespace(file=path, dir=deck.dir, name=os.path.basename(path), runs=0)


# The equilibrium search of properties 3 and 4 (mbsim-static(1)): at
# the full load only, at most this many iterations (the default search also
# starts with 20 at the full load).  Where there is none
# (a slider that gravity pushes along its free axis), the default search
# steps the load down to 1e-6 and took thousands of iterations, some 10 s
# of CPU on a model of 15 bodies, before it said so -- most of a model's
# cost -- and run --from-static and modes each repeated it.
STATIC_ITER = 20


def equilibrium(mbsim, deck):
    """None when `mbsim static` finds an equilibrium of DECK at the full
    load within STATIC_ITER iterations, else why not (a counted skip)."""
    import subprocess
    p = subprocess.run([mbsim, "static", deck.file, "--load-steps", "1", "--max-iterations",
                        str(STATIC_ITER)], capture_output=True, text=True,
                       timeout=mx.RUN_TIMEOUT, preexec_fn=mx.limit_cpu)
    if mx.over_cpu(p):
        return "static: over the CPU limit of %g s" % mx.CPU_LIMIT
    if p.returncode != 0:
        return "no equilibrium: " + (p.stderr.strip().splitlines() or [""])[-1][:120]
    return None


def prop_rest(mbsim, deck, model):
    """run --from-static stays at rest: ('ok'|'FAILED'|'skip', text)."""
    out = os.path.join(deck.dir, "rest.h5")
    j, _ = mx.run(mbsim, deck, ["--from-static"], out)
    if j.get("over_cpu"):
        return "skip", j["message"]
    if j["status"] != "complete":
        return "skip", "no equilibrium: " + j.get("message", "")[:120]
    d = mx.read(out)
    vmax = max(float(np.abs(d[q]).max()) for q in ("bodies/velocity", "bodies/angular_velocity",
                                                 "particles/velocity") if q in d)
    if vmax <= 1e-6:
        return "ok", "at rest (max |v|, |w| %.3g)" % vmax
    return "FAILED", "run --from-static moves: max |v| or |w| %.3g > 1e-6" % vmax


def prop_modes(mbsim, deck, model):
    """The lowest ringing mode's frequency = that of the run started in it
    (modes_check.py): ('ok'|'FAILED'|'skip', text)."""
    import subprocess
    import modes_check as mc
    if "friction" in model.kinds:
        # modes linearize without it (no force at rest); a run ringing at
        # amplitude 1e-4 slides faster than its velocity_threshold, where
        # Coulomb's force acts: two different models (seed 39 of 2-4
        # bodies: 0.61698 Hz and 0.61611 Hz)
        return "skip", "friction: not in the linearization, in the ringing run"
    mfile = os.path.join(deck.dir, "modes.h5")
    p = subprocess.run([mbsim, "modes", deck.file, "-o", mfile, "--force"], capture_output=True,
                       text=True, timeout=mx.RUN_TIMEOUT, preexec_fn=mx.limit_cpu)
    if mx.over_cpu(p):
        return "skip", "modes: over the CPU limit of %g s" % mx.CPU_LIMIT
    if p.returncode != 0:
        return "skip", "no modes: " + p.stderr.strip()[:120]
    k, why = mc.pick(mfile)
    if k is None:
        return "skip", why
    fd = float(mc.read_modes(mfile)["damped"][k - 1])
    out = os.path.join(deck.dir, "ring.h5")
    j, _ = mx.run(mbsim, deck, ["--excite-mode", str(k), "--amplitude", "1e-4",
                                "--set", "time.end=%.17g" % (8 / fd),
                                "--set", "integrator.method=lms2", "--set", "integrator.adaptive=false",
                                "--set", "integrator.step=%.17g" % (1 / (200 * fd))], out)
    if j.get("over_cpu"):
        return "skip", "run --excite-mode: " + j["message"]
    if j["status"] != "complete":
        return "FAILED", "run --excite-mode %d: %s" % (k, j.get("message", "")[:160])
    f, fk, n = mc.measure(mfile, out, k)
    err = abs(f - fk) / fk if n >= 3 else float("inf")
    if err <= 1e-3:
        return "ok", "mode %d: %.6g Hz, the run %.6g Hz" % (k, fk, f)
    return "FAILED", "mode %d: modes %.9g Hz, the run %.9g Hz from %d crossings (%.3g > 1e-3)" % (
        k, fk, f, n, err)


def known(msg, model):
    """The defect (docs/results/matrix.md) that explains the failure MSG, or
    '': a Newton failure whose constraint residual is at round-off."""
    import re
    m = re.search(r"largest residual (\S+)", msg)
    # (a model with friction is no longer excused: its Newton cycling at a
    # reversal, matrix.md findings item 4, is fixed)
    if "did not converge" in msg and m and abs(float(m.group(1).rstrip(";,)"))) < 1e-12 \
            and "friction" not in model.kinds:
        return "converged step declared failed (Newton test on the correction)"
    return ""


def check_seed(mbsim, seed, args, cols, work):
    """Every property of one seed: a dict of the results."""
    m = Model(seed, args.bmin, args.bmax, args.t_end, args.extras)
    dirw = tempfile.mkdtemp(prefix="seed%d." % seed, dir=work)
    path = os.path.join(dirw, "rand%d.yaml" % seed)
    with open(path, "w") as f:
        f.write(m.deck())
    res = {"seed": seed, "kinds": sorted(m.kinds), "n": m.n, "cells": {}, "props": {}}
    deck, R, err = mx.prepare(mbsim, path, work, args.budget)
    if err and "prescribes a motion" in err:
        # a driver on a coordinate the loop locks: mbsim refuses the model
        # (mbsim-deck(5) DRIVERS), which is the right answer to it
        res["props"]["model"] = ("skip", "refused by check: a driver on a locked coordinate")
        return res, m
    if err and "over the CPU limit" in err:
        res["props"]["model"] = ("skip", err)
        return res, m
    share = [cols[(seed * args.rotate + i) % len(cols)] for i in range(args.rotate)]
    if err:
        k = known(err, m)
        diag = ""
        if not k and without_friction(mbsim, m, [], args, work, dirw) is not None:
            diag = " [diagnosis: %s]" % FRICTION
        res["props"]["model"] = ("FAILED", err + (" [known: %s]" % k if k else "") + diag)
        return res, m
    for s, form, order, corder, tolctl in args.fixed + share:
        p = corder if R["constrained"] else order
        c = mx.run_cell(mbsim, deck, s, form, p, tolctl, R)
        if c["verdict"] == "FAILED":
            c["known"] = known(c.get("message", ""), m)
        res["cells"]["%s/%s" % (s, form)] = c
    res["props"]["energy"] = prop_energy(deck)
    twin = static_deck(deck, m)
    why = equilibrium(mbsim, twin)
    if why:
        res["props"]["rest"] = res["props"]["modes"] = ("skip", why)
    else:
        res["props"]["rest"] = prop_rest(mbsim, twin, m)
        res["props"]["modes"] = prop_modes(mbsim, twin, m)
    shutil.rmtree(deck.dir, ignore_errors=True)
    bad = [(k, c) for k, c in res["cells"].items() if c["verdict"] == "FAILED" and not c.get("known")]
    if bad or res["props"]["energy"][0] == "FAILED":
        cs = [col for col in args.fixed + share if "%s/%s" % col[:2] in dict(bad)]
        ok = without_friction(mbsim, m, cs, args, work, dirw)
        for k, c in bad:
            if ok and ok.get(k):
                c["diagnosis"] = FRICTION
        v, t = res["props"]["energy"]
        if v == "FAILED" and ok and ok.get("energy"):
            res["props"]["energy"] = (v, t + " [diagnosis: %s]" % FRICTION)
    return res, m


# a diagnosis printed with the failure, not an excuse: since matrix.md's
# findings item 4 was fixed a model with friction must pass like any other
FRICTION = "agrees without its friction elements: a defect of friction (matrix.md, findings item 4)"


def without_friction(mbsim, m, cols, args, work, dirw):
    """The differential diagnosis of a failing model with friction: the
    same model without its friction elements, its reference and the
    columns COLS.  None when the model has no friction or the frictionless
    one fails too before its cells, else {column or 'energy': True when it
    agrees, or its energy balance closes}."""
    if "friction" not in m.kinds:
        return None
    keep = m.forces
    m.forces = [f for f in keep if f["type"] != "friction"]
    try:
        text = m.deck()
    finally:
        m.forces = keep
    path = os.path.join(dirw, "nofriction%d.yaml" % m.seed)
    with open(path, "w") as f:
        f.write(text)
    deck, R, err = mx.prepare(mbsim, path, work, args.budget)
    if err:
        return None
    out = {"energy": prop_energy(deck)[0] == "ok"}
    for s, form, order, corder, tolctl in cols:
        c = mx.run_cell(mbsim, deck, s, form, corder if R["constrained"] else order, tolctl, R)
        out["%s/%s" % (s, form)] = c["verdict"] == "agrees"
    shutil.rmtree(deck.dir, ignore_errors=True)
    return out


def timed_seed(mbsim, seed, args, cols, work, t0):
    """check_seed, or (None, None) once --time-limit seconds have passed."""
    if args.time_limit and time.time() - t0 > args.time_limit:
        return None, None
    return check_seed(mbsim, seed, args, cols, work)


def failed(res):
    return [k for k, c in res["cells"].items() if c["verdict"] == "FAILED"] + \
        [k for k, (v, _) in res["props"].items() if v == "FAILED"]


def unexplained(res):
    """The failures of RES that no known finding explains."""
    return [k for k, c in res["cells"].items() if c["verdict"] == "FAILED" and not c.get("known")] + \
        [k for k, (v, t) in res["props"].items() if v == "FAILED" and "[known: " not in t]


def report_line(res):
    """One line per failing seed: seed, kinds, the failures."""
    parts = []
    for k, c in res["cells"].items():
        if c["verdict"] == "FAILED":
            w = c.get("worst")
            txt = ("%s %.3g > %.3g at t=%.4g%s" % (w["quantity"], w["err"], w["bound"], w["t"],
                                                 " (" + w["why"] + ")" if w.get("why") else "")
                   if w else c.get("message", "")[:160])
            parts.append("%s: %s%s%s" % (k, txt, " [known: %s]" % c["known"] if c.get("known") else "",
                                         " [diagnosis: %s]" % c["diagnosis"] if c.get("diagnosis") else ""))
    for k, (v, t) in res["props"].items():
        if v == "FAILED":
            parts.append("%s: %s" % (k, t))
    return "seed %d (%d bodies; %s): %s" % (res["seed"], res["n"], ", ".join(res["kinds"]),
                                             "; ".join(parts))


def parse_range(text):
    a, _, b = text.partition(":")
    return int(a), int(b) if b else int(a) + 1


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--seed", type=int, help="write the model of this seed")
    ap.add_argument("-o", "--output", help="deck file to write (with --seed)")
    ap.add_argument("--twin", action="store_true",
                    help="with --seed: its static twin (no time-dependent loads or drivers)")
    ap.add_argument("--check", action="store_true", help="check the properties of --seeds")
    ap.add_argument("--no-extras", dest="extras", action="store_false",
                    help="the models as drawn before motion laws, couplings but gears, screws, "
                    "viscous elements and events (the seeds of matrix.md's older findings)")
    ap.add_argument("--seeds", default="0:50", help="A:B, seeds A to B-1")
    ap.add_argument("--bodies", default="2:30", help="fewest:most bodies")
    ap.add_argument("--t-end", type=float, default=0.1)
    ap.add_argument("--mbsim", default=os.path.join(mx.TOP, "build", "mbsim"))
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--rotate", type=int, default=4,
                    help="schemes per seed besides lms2/ra, rn4/rp, rn4/tree, in turn over all")
    ap.add_argument("--budget", type=float, default=0.05)
    ap.add_argument("--cpu-limit", type=float, default=5,
                    help="s of CPU one mbsim process may take; a run stopped by it is a counted skip")
    ap.add_argument("--time-limit", type=float, default=0,
                    help="start no seed after this many seconds (0: no limit); the rest count as not_run")
    ap.add_argument("--results", default=os.path.join(mx.TOP, "build", "randmodel"),
                    help="directory of fail-SEED.yaml and summary.json")
    args = ap.parse_args()
    args.bmin, args.bmax = (int(x) for x in args.bodies.split(":"))
    if not args.check:
        if args.seed is None:
            ap.error("--seed or --check")
        text = Model(args.seed, args.bmin, args.bmax, args.t_end, args.extras).deck(twin=args.twin)
        if args.output:
            with open(args.output, "w") as f:
                f.write(text)
        else:
            sys.stdout.write(text)
        return 0
    return check_many(args)


def check_many(args):
    mbsim = os.path.abspath(args.mbsim)
    mx.CPU_LIMIT = args.cpu_limit
    sch = mx.schemes(mbsim)
    byname = {s[0]: s for s in sch}
    fixed = [("lms2", "ra"), ("rn4", "rp"), ("rn4", "tree")]
    args.fixed = [byname[s][:1] + (f,) + byname[s][2:] for s, f in fixed]
    cols = [(s, f, o, c, t) for s, forms, o, c, t in sch for f in forms
            if (s, f) not in fixed]
    a, b = parse_range(args.seeds)
    t0 = time.time()
    os.makedirs(args.results, exist_ok=True)
    work = tempfile.mkdtemp(prefix="randmodel.")
    counts = {"models": 0, "not_run": 0, "cells": 0, "agree": 0, "refused": 0, "over_cpu": 0,
              "failed": 0, "known": 0, "unexplained": 0,
              "skips": {}, "props_ok": {}}
    bad = []
    try:
        with cf.ThreadPoolExecutor(args.jobs) as ex:
            futs = {ex.submit(timed_seed, mbsim, s, args, cols, work, t0): s for s in range(a, b)}
            for fut in cf.as_completed(futs):
                seed = futs[fut]
                try:
                    res, m = fut.result()
                    if res is None:
                        counts["not_run"] += 1
                        continue
                except Exception as e:  # the tool's own failure, reported as such
                    m = Model(seed, args.bmin, args.bmax, args.t_end, args.extras)
                    res = {"seed": seed, "kinds": sorted(m.kinds), "n": m.n, "cells": {},
                           "props": {"tool": ("FAILED", repr(e))}}
                tally(counts, res)
                if failed(res):
                    bad.append(res)
                    counts["unexplained"] += bool(unexplained(res))
                    save(args, m, res)
                    print(report_line(res), flush=True)
                if counts["models"] % 50 == 0:
                    mx.say("randmodel: %d models, %d failed, %.0f s" % (
                        counts["models"], len(bad), time.time() - t0))
    finally:
        shutil.rmtree(work, ignore_errors=True)
    with open(os.path.join(args.results, "summary.json"), "w") as f:
        json.dump({"counts": counts, "failures": [report_line(r) for r in bad]}, f, indent=1)
    cpu = resource.getrusage(resource.RUSAGE_CHILDREN)
    counts["cpu_s"] = round(cpu.ru_utime + cpu.ru_stime, 1)
    counts["wall_s"] = round(time.time() - t0, 1)
    mx.say("randmodel: seeds %d:%d: %s" % (a, b, json.dumps(counts)))
    # a failure a known finding explains is reported, not an error of the run
    return 1 if counts["unexplained"] else 0


def tally(counts, res):
    counts["models"] += 1
    for c in res["cells"].values():
        counts["cells"] += 1
        v = c["verdict"]
        counts[{"agrees": "agree", "refused": "refused", "over_cpu": "over_cpu"}.get(v, "failed")] += 1
        if v == "FAILED" and c.get("known"):
            counts["known"] += 1
    for k, (v, t) in res["props"].items():
        if v == "skip":
            key = "%s: %s" % (k, t.split(":")[0])
            counts["skips"][key] = counts["skips"].get(key, 0) + 1
        elif v == "ok":
            counts["props_ok"][k] = counts["props_ok"].get(k, 0) + 1


def save(args, m, res):
    """DIR/fail-SEED.yaml: the deck, the failures in its header."""
    path = os.path.join(args.results, "fail-%d.yaml" % m.seed)
    with open(path, "w") as f:
        f.write("# FAILED: " + report_line(res).replace("\n", " ") + "\n")
        f.write("# replay: tools/matrix.py --decks %s\n" % path)
        f.write(m.deck())
    if m.timedep and any(res["props"].get(k, ("",))[0] == "FAILED" for k in ("rest", "modes")):
        with open(os.path.join(args.results, "fail-%d-twin.yaml" % m.seed), "w") as f:
            f.write("# FAILED: the rest or modes property on the static twin of seed %d\n" % m.seed)
            f.write(m.deck(twin=True))


if __name__ == "__main__":
    sys.exit(main())
