#!/usr/bin/env python3
"""contact_pile.py - the pile of spheres of issue 32 for `make bench`: N
spheres (R = 0.05 m, 0.1 kg, k = 1e5 N/m, mu 0.5, e 0.5) stacked in a square
box of four wall planes on a floor plane, in columns of 10 whose spheres
overlap by 1e-4 m (so that every sphere touches its neighbours from the
first step on) and sideways neighbours 1 mm apart, each displaced by up to
5 mm at random so that the pile settles sideways; hi, h = 1e-4 s.

The cost of a step is the difference of the processor time (user + system,
os.wait4) of a run of 220 steps and one of 20, over 200: set-up, the first
steps and the file's creation cancel; processor time, not wall time, since
the machines are shared.  Prints, per N: that time, the mean contacts per
step (/contacts/count at the samples) and the cost per contact-step in
microseconds, then the growth of that cost between successive N (its ratio,
and the exponent: log ratio over log N ratio).

With --model nonsmooth the pile of deck_nonsmooth() (moreau, h = 1e-3 s,
the layers falling onto each other from 1 mm apart) instead.

  bench/contact_pile.py [--mbsim build/mbsim] [--n 100,1000,10000] [--reps 3]
                        [--model smooth|nonsmooth]
"""
import argparse
import math
import os
import subprocess
import sys
import tempfile

import h5py
import numpy as np


def pile(n, gap, head, material, z0, dz):
    """N spheres of radius 0.05 m in columns of about ten inside four wall
    planes on a floor: sideways pitch 2 R + GAP with random offsets of up
    to 5 mm, the first layer's centres at Z0, layers DZ apart; HEAD the
    deck's lines before the planes, MATERIAL the spheres' contact mapping."""
    side = max(1, round(math.sqrt(n / 10)))
    cols = side * side
    layers = math.ceil(n / cols)
    R = 0.05
    pitch = 2 * R + gap
    L = side * pitch / 2
    rng = np.random.default_rng(1)
    lines = head + ["contact_planes:",
                    "  - {normal: [0, 0, 1]}",
                    "  - {point: [%g, 0, 0], normal: [1, 0, 0]}" % -L,
                    "  - {point: [%g, 0, 0], normal: [-1, 0, 0]}" % L,
                    "  - {point: [0, %g, 0], normal: [0, 1, 0]}" % -L,
                    "  - {point: [0, %g, 0], normal: [0, -1, 0]}" % L, "bodies:"]
    k = 0
    for z in range(layers):
        for c in range(cols):
            if k == n:
                break
            x = -L + pitch * (c % side + 0.5) + 0.005 * rng.uniform(-1, 1)
            y = -L + pitch * (c // side + 0.5) + 0.005 * rng.uniform(-1, 1)
            lines.append("  - {name: s%d, mass: 0.1, inertia: [1e-4, 1e-4, 1e-4], "
                         "position: [%.6f, %.6f, %.6f], shape: {type: sphere, radius: %g}, "
                         "contact: %s}" % (k, x, y, z0 + z * dz, R, material))
            k += 1
    return "\n".join(lines) + "\n"


def deck(n):
    """The smooth pile: every sphere touching its neighbours (1 mm gaps
    sideways, layers overlapping by 0.1 mm) from the first step."""
    R = 0.05
    return pile(n, 0.001,
                ["title: pile of %d spheres (bench/contact_pile.py)" % n,
                 "time: {end: 0.022}", "integrator: {method: hi, step: 1e-4}",
                 "output: {every: 100}", "contact: {model: smooth}"],
                "{stiffness: 1e5, mu_s: 0.5, mu_d: 0.5, restitution: 0.5}",
                R - 1e-4, 2 * R - 1e-4)


def deck_nonsmooth(n, end=0.022):
    """The pile under the nonsmooth model (moreau, h = 1e-3 s): the same
    spheres (mu 0.5, e 0.5; no stiffness) and columns, but apart at the
    start, as Moreau's scheme wants (it stops approach, it does not push
    overlapping bodies apart): layers 1 mm apart, sideways pitch 2 R + 12 mm
    with the same random offsets of up to 5 mm, so that neighbours and walls
    start at least 1 mm apart and the columns lean as they settle."""
    R = 0.05
    return pile(n, 0.012,
                ["title: pile of %d spheres, nonsmooth (bench/contact_pile.py)" % n,
                 "gravity: [0, 0, -9.81]",
                 "time: {end: %g}" % end, "integrator: {method: moreau, step: 1e-3}",
                 "output: {every: 10}", "contact: {model: nonsmooth}"],
                "{mu_s: 0.5, mu_d: 0.5, restitution: 0.5}",
                R + 0.001, 2 * R + 0.001)


def run(mbsim, path, d, steps, h):
    """Processor seconds of a run of `steps` steps of h (its exit status 0)."""
    p = subprocess.Popen([mbsim, "run", path, "-o", os.path.join(d, "p.h5"), "--force",
                          "--set", "time.end=%g" % (steps * h)],
                         stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    _, status, ru = os.wait4(p.pid, 0)
    err = p.stderr.read().decode(errors="replace")
    p.stderr.close()
    if status:
        sys.exit("%s: %s" % (path, err[-500:]))
    return ru.ru_utime + ru.ru_stime


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--mbsim", default="build/mbsim")
    ap.add_argument("--n", default="100,1000,10000")
    ap.add_argument("--reps", type=int, default=3)
    ap.add_argument("--model", choices=("smooth", "nonsmooth"), default="smooth")
    a = ap.parse_args()
    make, h = (deck, 1e-4) if a.model == "smooth" else (deck_nonsmooth, 1e-3)
    rows = []
    with tempfile.TemporaryDirectory() as d:
        for n in map(int, a.n.split(",")):
            path = os.path.join(d, "pile%d.yaml" % n)
            open(path, "w").write(make(n))
            cpu = {20: [], 220: []}
            for _ in range(a.reps):
                for steps in (20, 220):
                    cpu[steps].append(run(a.mbsim, path, d, steps, h))
            with h5py.File(os.path.join(d, "p.h5"), "r") as f:
                nc = float(np.mean(f["contacts/count"][1:]))
            t = float(np.median(cpu[220]) - np.median(cpu[20]))
            rows.append((n, t, nc, 1e6 * t / (200 * nc)))
            print("N %6d  200 steps %.3f s of processor  %.0f contacts/step  "
                  "%.3f us per contact-step" % rows[-1], flush=True)
    for (n0, *_, c0), (n1, *_, c1) in zip(rows, rows[1:]):
        print("N %d -> %d: cost per contact-step x %.2f, growth exponent %.3f"
              % (n0, n1, c1 / c0, math.log(c1 / c0) / math.log(n1 / n0)))


if __name__ == "__main__":
    main()
