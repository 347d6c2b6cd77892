#!/usr/bin/python3
"""wp_simbody.py - work-precision of mbsim's adaptive schemes against Simbody's integrators.

  tools/wp_simbody.py [--mbsim build/mbsim] [--harness build/bench/wp_simbody]
                      [--models dp,8,32] [--tols 1e-3,1e-6,1e-9] [--rounds 3]
                      [--out docs/results] [--timeout 60]

`make wp-simbody` runs it (outside make test: minutes of CPU; the harness
needs Simbody, `tools/install-deps --study`).  The models are
decks/double_pendulum.yaml ("dp") and decks/chain.yaml with N links (a
number), both to t = 2 s; the Simbody side is bench/simbody/wp_simbody.cpp,
which builds the same bodies, joints and gravity and starts from mbsim's
initial state (its t = 0 sample, after the projection of the chain's spins
onto the joints; the centroid positions and velocities of the two are
compared and the largest difference reported).

The error of a run is the largest distance over the bodies between its
centroid positions at t = 2 s and those of the reference: mbsim's `adams`
on the tree formulation at atol = rtol = 1e-13, checked against `adams` on
rp at the same tolerance and against Simbody's RungeKuttaFeldberg at
accuracy 1e-13 (the distances between the three are reported; a reference
they do not agree on to 1e-9 m stops the study; Simbody at 1e-14 costs
ten times as much for 6e-11 m on the 8-link chain).

CPU time is the user + system time of the whole process from wait4 (on a
machine shared by more runnable processes than cores, wall times measure
the load), median over --rounds rounds; each round runs every case once,
mbsim and Simbody cases interleaved and the order reversed from round to
round.  Both sides run with OMP_NUM_THREADS = OPENBLAS_NUM_THREADS = 1.
The Simbody harness also reports the CPU time of its integration alone
(building the system and loading the libraries excluded), and the table
gives it; a process's fixed cost is measured by a run to t = 1e-6 s.

Writes docs/results/wp_simbody.md (tables and the figures against the
targets of the study), wp_simbody.png (CPU against error) and
wp_simbody.json (every run).
"""
import argparse
import json
import math
import os
import platform
import resource
import statistics
import subprocess
import sys
import tempfile
import time

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from mbsimlib import mbsim_exe, rotation, run_summary, say  # noqa: E402

T_END = 2.0
REF_TOL = 1e-13
SIMBODY = ["rkm", "rkf", "rk3", "rk2", "verlet", "cpodes", "cpodes_adams", "see2", "euler"]
SIMBODY_NAMES = {"rkm": "RungeKuttaMerson", "rkf": "RungeKuttaFeldberg", "rk3": "RungeKutta3",
                 "rk2": "RungeKutta2", "verlet": "Verlet", "cpodes": "CPodes BDF",
                 "cpodes_adams": "CPodes Adams", "see2": "SemiExplicitEuler2",
                 "euler": "ExplicitEuler"}
SIMBODY_ACC = [1e-2, 1e-3, 1e-4, 1e-5, 1e-6, 1e-7, 1e-8, 1e-9, 1e-10, 1e-11]
TOP = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
ENV = dict(os.environ, OMP_NUM_THREADS="1", OPENBLAS_NUM_THREADS="1")


def mbsim_schemes(exe):
    """The mbsim cases: label -> --set arguments.  The adaptive schemes of
    the study, any explicit Runge-Kutta pair that `mbsim list integrators`
    lists, and the choice mbsim makes when the deck names no scheme."""
    cases = {
        "adams/tree": ["integrator.method=adams", "integrator.formulation=tree"],
        "adams/rp": ["integrator.method=adams", "integrator.formulation=rp"],
        "lms2": ["integrator.method=lms2"],
        "esdirk436l2sa2 i2": ["integrator.method=esdirk436l2sa2", "integrator.index=2"],
        "esdirk436l2sa2 i3": ["integrator.method=esdirk436l2sa2", "integrator.index=3"],
        "bdf": ["integrator.method=bdf"],
        "rn4": ["integrator.method=rn4"],
    }
    out = subprocess.run([exe, "list", "integrators"], capture_output=True, text=True, check=True).stdout
    for line in out.splitlines():
        f = line.split()
        if not f:
            continue
        d = line.lower()
        if "erk" in f[0] or ("explicit" in d and "runge" in d and "rosenbrock" not in d):
            for form in ("tree", "rp"):
                cases["%s/%s" % (f[0], form)] = ["integrator.method=" + f[0], "integrator.formulation=" + form]
    # mbsim's automatic choice where this build has one, else what a deck
    # naming no scheme runs
    auto = subprocess.run([exe, "check", os.path.join(TOP, "decks/pendulum.yaml"), "--set",
                           "integrator.method=auto"],
                          capture_output=True, text=True)
    if auto.returncode == 0:
        cases["auto"] = ["integrator.method=auto"]
    else:
        cases["default"] = None
    return cases


def deck_args(model):
    if model == "dp":
        return [os.path.join(TOP, "decks/double_pendulum.yaml")]
    return [os.path.join(TOP, "decks/chain.yaml"), "--set", "parameters.N=%d" % int(model)]


def reach(model):
    """The largest distance of a centroid from the origin (m): the scale
    rtol multiplies in a position's tolerance atol + rtol |y|."""
    return 5.0 if model == "dp" else (2 * int(model) - 1) * 2.0 / 2


def model_name(model):
    return "double pendulum" if model == "dp" else "chain N = %s" % model


def mbsim_cmd(exe, model, sets, tol, out, t_end=T_END):
    cmd = [exe, "run"] + deck_args(model)
    if sets is None:
        cmd += ["--unset", "integrator.method", "--unset", "integrator.step"]
    else:
        cmd += sum((["--set", s] for s in sets), [])
        if "integrator.method=auto" not in sets:
            cmd += ["--set", "integrator.adaptive=true"]
    cmd += ["--set", "integrator.atol=%g" % tol, "--set", "integrator.rtol=%g" % tol,
            "--set", "time.end=%r" % t_end, "--set", "output.times=[0, %r]" % t_end,
            "--json", "--quiet", "-o", out]
    return cmd


def timed(cmd, timeout):
    """Run CMD: (stdout, stderr, exit status or None after TIMEOUT seconds)."""
    p = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=ENV)
    try:
        so, se = p.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        p.kill()
        so, se = p.communicate()
        return so, "timeout after %g s" % timeout, None
    return so, se, p.returncode


class Runner:
    """Runs one case and returns its summary with the child's CPU time."""

    def __init__(self, a, tmp):
        self.a, self.tmp = a, tmp

    def run(self, cmd):
        # the child is reaped inside timed(): its CPU time is the increase
        # of our children's
        r0 = resource.getrusage(resource.RUSAGE_CHILDREN)
        so, se, rc = timed(cmd, self.a.timeout)
        r1 = resource.getrusage(resource.RUSAGE_CHILDREN)
        cpu = (r1.ru_utime - r0.ru_utime) + (r1.ru_stime - r0.ru_stime)
        return so, se, rc, cpu

    def mbsim(self, model, sets, tol, t_end=T_END):
        h5 = os.path.join(self.tmp, "run.h5")
        cmd = mbsim_cmd(self.a.mbsim, model, sets, tol, h5, t_end)
        so, se, rc, cpu = self.run(cmd)
        j = run_summary(subprocess.CompletedProcess(cmd, rc if rc is not None else 1, so, se))
        r = {"status": j.get("status"), "message": j.get("message", "")[:300], "cpu": cpu,
             "steps": j.get("steps"), "evaluations": j.get("rhs_evaluations"), "loop": j.get("wall_time"),
             "integrator": j.get("integrator"), "formulation": j.get("formulation"),
             "warnings": j.get("warnings", [])}
        if r["status"] == "complete":
            import h5py
            with h5py.File(h5, "r") as f:
                r["position"] = f["bodies/position"][-1].tolist()
                r["t"] = float(f["time"][-1])
                r["position0"] = f["bodies/position"][0].tolist()
                r["velocity0"] = f["bodies/velocity"][0].tolist()
                A = rotation(f["bodies/orientation"][0])
                w = np.einsum("bij,bj->bi", A, f["bodies/angular_velocity"][0])
                r["omega0"] = w.tolist()
            if abs(r["t"] - t_end) > 1e-12 * t_end:
                r["status"] = "failed"
                r["message"] = "ended at t = %g" % r["t"]
        return r

    def simbody(self, model, integ, acc, omega_file, t_end=T_END):
        cmd = [self.a.harness, "double_pendulum" if model == "dp" else "chain", integ,
               "--accuracy", "%g" % acc, "--end", "%r" % t_end]
        if model != "dp":
            cmd += ["--n", str(int(model)), "--omega", omega_file]
        so, se, rc, cpu = self.run(cmd)
        try:
            j = json.loads(so)
        except ValueError:
            return {"status": "failed", "message": (se or so).strip()[-300:], "cpu": cpu}
        j["cpu_integration"] = j.pop("cpu_time")
        j["cpu"] = cpu
        if rc != 0:
            j["status"] = "failed"
        return j


def dist(p, q):
    return float(np.max(np.linalg.norm(np.asarray(p) - np.asarray(q), axis=1)))


def dop853_dp(tmp):
    """The double pendulum's centroids at T_END from the independent route
    of tools/double_pendulum_ref.py (two absolute angles, SciPy's DOP853 at
    rtol 1e-13)."""
    import h5py
    out = os.path.join(tmp, "dop853.h5")
    subprocess.run([sys.executable, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                                 "double_pendulum_ref.py"),
                    "-o", out, "--t-end", repr(T_END)], check=True, capture_output=True)
    with h5py.File(out, "r") as f:
        assert abs(f["time"][-1] - T_END) < 1e-12
        return f["bodies/position"][-1]


def prepare(run, model, tmp):
    """mbsim's initial state, written as the harness's --omega file, and the
    three references with their mutual distances."""
    ref = run.mbsim(model, ["integrator.method=adams", "integrator.formulation=tree"], REF_TOL)
    if ref["status"] != "complete":
        sys.exit("wp_simbody.py: reference run failed on %s: %s" % (model, ref["message"]))
    om = os.path.join(tmp, "omega_%s.txt" % model)
    with open(om, "w") as f:
        for w in ref["omega0"]:
            f.write("%.17g %.17g %.17g\n" % tuple(w))
    rp = run.mbsim(model, ["integrator.method=adams", "integrator.formulation=rp"], REF_TOL)
    sb = run.simbody(model, "rkf", 1e-13, om)
    if rp["status"] != "complete" or sb["status"] != "complete":
        sys.exit("wp_simbody.py: a reference run failed on %s: %s %s"
                 % (model, rp.get("message"), sb.get("message")))
    init = max(dist(ref["position0"], sb["position0"]), dist(ref["velocity0"], sb["velocity0"]))
    d = {"tree_rp": dist(ref["position"], rp["position"]),
         "tree_simbody": dist(ref["position"], sb["position"]),
         "rp_simbody": dist(rp["position"], sb["position"]),
         "initial_state": init}
    if model == "dp":
        d["tree_dop853"] = dist(ref["position"], dop853_dp(tmp))
    say("%s: references agree to %.1e (tree-rp), %.1e (tree-Simbody rkf 1e-13); initial state to %.1e"
        % (model, d["tree_rp"], d["tree_simbody"], init))
    if max(d["tree_rp"], d["tree_simbody"]) > 1e-9 or init > 1e-9:
        sys.exit("wp_simbody.py: the references of %s disagree: %s" % (model, d))
    return ref["position"], om, d


def loglog(points, e):
    """CPU at error E interpolated log-log along POINTS [(error, cpu)],
    None outside the errors they reach."""
    pts = sorted(p for p in points if p[0] > 0 and p[1] > 0)
    for (e0, c0), (e1, c1) in zip(pts, pts[1:]):
        if e0 <= e <= e1:
            if e1 == e0:
                return min(c0, c1)
            s = (math.log(e) - math.log(e0)) / (math.log(e1) - math.log(e0))
            return math.exp(math.log(c0) + s * (math.log(c1) - math.log(c0)))
    if len(pts) == 1 and pts[0][0] == e:
        return pts[0][1]
    return None


def fastest_simbody(sim, e, key):
    """Simbody's fastest integrator at error E: (cpu, name) or (None, None)."""
    best = (None, None)
    for integ in SIMBODY:
        pts = [(r["error"], r[key]) for (i, _), r in sim.items() if i == integ and r.get("error") is not None]
        c = loglog(pts, e)
        if c is not None and (best[0] is None or c < best[0]):
            best = (c, integ)
    return best


def study(a):
    cases = mbsim_schemes(a.mbsim)
    models = a.models.split(",")
    tols = [float(t) for t in a.tols.split(",")]
    git = subprocess.run(["git", "-C", TOP, "describe", "--always", "--dirty"], capture_output=True, text=True)
    res = {"machine": {"host": platform.node(), "loadavg_start": os.getloadavg(),
                       "commit": git.stdout.strip() if git.returncode == 0 else "unknown",
                       "started": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime())},
           "models": {}}
    with tempfile.TemporaryDirectory() as tmp:
        run = Runner(a, tmp)
        for model in models:
            ref, om, agree = prepare(run, model, tmp)
            jobs = [("mbsim", c, t) for c in cases for t in tols] + \
                   [("simbody", i, acc) for i in SIMBODY for acc in SIMBODY_ACC]
            cpu = {j: [] for j in jobs}
            cpu_int = {j: [] for j in jobs if j[0] == "simbody"}     # its own clock
            first, dead, slow, fixed = {}, set(), {}, []
            for rnd in range(a.rounds):
                order = jobs if rnd % 2 == 0 else jobs[::-1]
                # interleave the two sides so that the load falls on both alike
                mb = [j for j in order if j[0] == "mbsim"]
                sb = [j for j in order if j[0] == "simbody"]
                inter = [x for pair in zip(mb, sb) for x in pair] + mb[len(sb):] + sb[len(mb):]
                # the fixed cost of an mbsim process (start-up, deck, model,
                # file): a run to t = 1e-6 s
                fixed.append(run.mbsim(model, ["integrator.method=adams", "integrator.formulation=tree"],
                                       1e-6, 1e-6)["cpu"])
                for j in inter:
                    side, c, t = j
                    if j in dead or (side == "simbody" and t < slow.get(c, 0)):
                        continue
                    r = run.mbsim(model, cases[c], t) if side == "mbsim" else run.simbody(model, c, t, om)
                    if r["status"] != "complete":
                        first[j] = r
                        dead.add(j)
                        say("%s %s %s %g: %s %s" % (model, side, c, t, r["status"], r.get("message", "")[:120]))
                        continue
                    cpu[j].append(r["cpu"])
                    if side == "simbody":
                        cpu_int[j].append(r["cpu_integration"])
                        if r["cpu"] > a.budget and rnd == 0:
                            # far from Simbody's fastest at tighter accuracies
                            slow[c] = t
                    if j not in first:
                        r["error"] = dist(r["position"], ref)
                        first[j] = r
                        say("%s %s %s %g: error %.2e cpu %.3f s" % (model, side, c, t, r["error"], r["cpu"]))
            table = {}
            for j, r in first.items():
                row = {k: r.get(k) for k in ("status", "message", "steps", "evaluations", "error",
                                            "integrator", "formulation", "attempts", "warnings")}
                if cpu[j]:
                    row["cpu"] = statistics.median(cpu[j])
                    row["rounds"] = len(cpu[j])
                if cpu_int.get(j):
                    row["cpu_integration"] = statistics.median(cpu_int[j])
                elif cpu[j]:    # mbsim: the process less its fixed cost
                    row["cpu_integration"] = max(row["cpu"] - statistics.median(fixed), 0.0)
                table["|".join([j[0], j[1], "%g" % j[2]])] = row
            res["models"][model] = {"agreement": agree, "runs": table, "slow": slow,
                                    "fixed_cpu": statistics.median(fixed)}
    res["machine"]["loadavg_end"] = os.getloadavg()
    res["machine"]["finished"] = time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime())
    res["tols"] = tols
    res["cases"] = list(cases)
    return res


def split(runs):
    mb, sim = {}, {}
    for k, r in runs.items():
        side, c, t = k.split("|")
        (mb if side == "mbsim" else sim)[(c, float(t))] = r
    return mb, sim


def speedups(runs):
    """Per mbsim run: Simbody's fastest CPU at its error over its own, for
    whole processes and for the integration alone (Simbody's CPU clock
    around it; mbsim's process less the fixed cost of a process, None when
    that leaves less than a millisecond or a fifth of the process: the
    difference of two noisy figures)."""
    mb, sim = split(runs)
    out = {}
    for (c, t), r in mb.items():
        if r.get("error") is None or not r.get("cpu"):
            continue
        s, who = fastest_simbody(sim, r["error"], "cpu")
        si, whoi = fastest_simbody(sim, r["error"], "cpu_integration")
        li = r.get("cpu_integration")
        out["mbsim|%s|%g" % (c, t)] = {"process": s / r["cpu"] if s else None, "by": who,
                                       "integration": si / li if si and li and li >= max(1e-3, 0.2 * r["cpu"]) else None,
                                       "by_int": whoi}
    return out


def oneline(m, n=60):
    """A message fit for a table cell."""
    return " ".join((m or "").split())[:n].replace("|", "/")


def fmt(x, f="%.2e"):
    return "—" if x is None else f % x


def write_doc(res, a):
    L = []
    m = res["machine"]
    L += ["# Work-precision against Simbody",
          "",
          "Made by `tools/wp_simbody.py` (`make wp-simbody`; the Simbody side is",
          "`bench/simbody/wp_simbody.cpp`, built against Debian's libsimbody-dev, which",
          "`tools/install-deps --study` installs), mbsim built from commit %s, Simbody 3.7." % m.get("commit", "?"),
          "Started %s, finished %s, on a" % (m["started"], m["finished"]),
          "**loaded machine** (2 cores shared with other jobs; load average %.1f at the start," % m["loadavg_start"][0],
          "%.1f at the end): the CPU times are user + system time of each process from wait4," % m["loadavg_end"][0],
          "medians of %d alternated rounds, single-threaded BLAS on both sides; they are less" % a.rounds,
          "disturbed by the load than wall times would be, but caches and frequency are shared:",
          "read ratios, not absolute figures.",
          "",
          "Models: the double pendulum of decks/double_pendulum.yaml and the spherical chain of",
          "decks/chain.yaml (L. Fang, A. Kissel, R. Zhang, D. Negrut, \"On the Use of Half-Implicit",
          "Numerical Integration in Multibody Dynamics\", J. Comput. Nonlinear Dynam. 18(1), 014501",
          "(2023), doi:10.1115/1.4056183, §3 and §3.3, Fig. 7), both to t = 2 s,",
          "Simbody starting from mbsim's initial state (after the projection of the chain's spins).",
          "Error: the largest distance over the bodies between the centroid positions at t = 2 s",
          "and the reference, mbsim's `adams` on `tree` at atol = rtol = 1e-13.  mbsim runs",
          "with atol = rtol = the tolerance and `integrator.adaptive: true` (but auto); Simbody with",
          "setAccuracy(a) for a = 1e-2 .. 1e-11 (an integrator whose run takes more than",
          "%g CPU seconds is not run at tighter accuracies: it is then far from the fastest)." % a.budget,
          "\"auto\" is `integrator.method: auto`, mbsim's automatic choice of scheme and",
          "formulation (the integrator column says which it took); in a build without it,",
          "\"default\" is a run whose deck names no `integrator.method`.",
          "",
          "Speed-up: Simbody's fastest integrator at the same error (CPU interpolated log-log",
          "between its accuracies) divided by mbsim's CPU; above 1 mbsim is faster.  \"process\"",
          "compares whole processes (start-up, model, file included); \"integration\" compares",
          "Simbody's own CPU clock around the integration with mbsim's process CPU less the",
          "fixed cost of an mbsim process (a run to t = 1e-6 s, median over the rounds; — when",
          "less than 1 ms or a fifth of the process is left: the difference of two noisy figures).",
          "— also where Simbody's integrators do not reach the error.",
          ""]
    verdict, flagged = [], []
    for model, d in res["models"].items():
        ag = d["agreement"]
        mb, sim = split(d["runs"])
        sp = speedups(d["runs"])
        L += ["## %s" % model_name(model), "",
              "References: `adams`/tree and `adams`/rp at 1e-13 agree to %.1e m, `adams`/tree and"
              % ag["tree_rp"],
              "Simbody's RungeKuttaFeldberg at 1e-13 to %.1e m; initial centroid positions and" % ag["tree_simbody"],
              "velocities of the two programs agree to %.1e.  Fixed cost of an mbsim process: %.1f ms."
              % (ag["initial_state"], 1e3 * d.get("fixed_cpu", float("nan")))]
        if "tree_dop853" in ag:
            L += ["The reference is %.1e m from the minimal-coordinate ODE integrated by SciPy's DOP853"
                  % ag["tree_dop853"], "at rtol 1e-13 (tools/double_pendulum_ref.py)."]
        L += ["",
              "| mbsim scheme | tol | integrator/form | status | steps | f evals | error (m) | CPU (s) "
              "| integration (s) | speed-up process | speed-up integration |",
              "|---|---|---|---|---|---|---|---|---|---|---|"]
        for c in res["cases"]:
            for t in res["tols"]:
                r = mb.get((c, t))
                if r is None:
                    continue
                s = sp.get("mbsim|%s|%g" % (c, t), {})
                st = r["status"] if r["status"] == "complete" else "%s: %s" % (r["status"], oneline(r["message"]))
                if r.get("warnings"):
                    st += " (warned)"
                elif r.get("error") is not None and r["error"] > 10 * t * (1 + reach(model)) \
                        and c != "default":     # hi at a fixed step: no tolerance
                    st += ", **error > 10 tol**"
                    flagged.append((model, c, t, r["error"]))
                L.append("| %s | %g | %s/%s | %s | %s | %s | %s | %s | %s | %s | %s |" % (
                    c, t, r.get("integrator"), r.get("formulation"), st, r.get("steps"),
                    fmt(r.get("evaluations"), "%d"), fmt(r.get("error")), fmt(r.get("cpu"), "%.4f"),
                    fmt(r.get("cpu_integration"), "%.4f"),
                    fmt(s.get("process"), "%.2f") + (" (%s)" % s["by"] if s.get("by") else ""),
                    fmt(s.get("integration"), "%.2f") + (" (%s)" % s["by_int"] if s.get("integration") else "")))
        L += ["", "| Simbody | accuracy | status | steps | evaluations | error (m) | CPU process (s) "
              "| CPU integration (s) |", "|---|---|---|---|---|---|---|---|"]
        for i in SIMBODY:
            for acc in SIMBODY_ACC:
                r = sim.get((i, acc))
                if r is None:
                    continue
                L.append("| %s | %g | %s | %s | %s | %s | %s | %s |" % (
                    SIMBODY_NAMES[i], acc, r["status"] if r["status"] == "complete" else
                    "%s: %s" % (r["status"], oneline(r.get("message"))),
                    r.get("steps"), r.get("evaluations"), fmt(r.get("error")), fmt(r.get("cpu"), "%.4f"),
                    fmt(r.get("cpu_integration"), "%.4f")))
        L.append("")
        for t in res["tols"]:
            for c, goal in (("auto" if "auto" in res["cases"] else "default", 3.0), ("lms2", 1.0),
                            ("esdirk436l2sa2 i2", 1.0),
                            ("esdirk436l2sa2 i3", 1.0), ("bdf", 1.0)):
                s = sp.get("mbsim|%s|%g" % (c, t)) or {}
                r = mb.get((c, t), {})
                why = r.get("status") if r.get("status") != "complete" else "Simbody does not reach its error"
                verdict.append((model, t, c, goal, s.get("process"), s.get("integration"), why))
    L += ["## Against the targets of the study", "",
          "Target: mbsim's automatic choice at least 3 times faster than Simbody's fastest at",
          "equal error; lms2, esdirk436l2sa2 (index 2 and 3) and bdf no slower where they",
          "reach the error.  Speed-ups of whole processes and of the integration alone:", "",
          "| model | tol | scheme | goal | speed-up process | met | speed-up integration | met |",
          "|---|---|---|---|---|---|---|---|"]

    def met(x, goal, why):
        return ("yes" if x >= goal else "**no**") if x else "n/a (%s)" % why
    for model, t, c, goal, sp_p, sp_i, why in verdict:
        L.append("| %s | %g | %s | ≥ %g | %s | %s | %s | %s |" % (
            model_name(model), t, c, goal, fmt(sp_p, "%.2f"), met(sp_p, goal, why),
            fmt(sp_i, "%.2f"), met(sp_i, goal, why if not sp_p else "too small to measure")))
    L += ["", "Best mbsim scheme at each tolerance (whole processes):", ""]
    for model, d in res["models"].items():
        sp = speedups(d["runs"])
        mb, _ = split(d["runs"])
        for t in res["tols"]:
            best = max(((v["process"], k.split("|")[1]) for k, v in sp.items()
                        if v["process"] and float(k.split("|")[2]) == t), default=None)
            if best:
                L.append("- %s, %g: %s, %.2f times as fast as Simbody's fastest at its error (%s)"
                         % (model_name(model), t, best[1], best[0], SIMBODY_NAMES[sp["mbsim|%s|%g" % (best[1], t)]["by"]]))
        errs = {mb[("default", t)].get("error") for t in res["tols"] if ("default", t) in mb}
        if len(errs) == 1 and None not in errs:
            L.append("- %s: mbsim's own choice (%s) gave the same error at every tolerance: it does"
                     % (model_name(model), mb[("default", res["tols"][0])].get("integrator")))
            L.append("  not follow atol and rtol, so this build has no automatic choice to measure")
    L.append("")
    for k, name in ((4, "whole processes"), (5, "the integration alone")):
        n = sum(1 for v in verdict if v[k] and v[k] >= v[3])
        m = sum(1 for v in verdict if v[k])
        L.append("%s: %d of %d comparisons that can be made meet the target (of %d)."
                 % (name.capitalize(), n, m, len(verdict)))
    L.append("")
    if flagged:
        L += ["Adaptive runs that ended more than 10 times beyond their tolerance without a warning:",
              "error > 10 (atol + rtol R), R the largest distance of a centroid from the origin",
              "(5 m on the double pendulum, (2 N - 1) m on the chain).  The tolerance is per",
              "coordinate and, for rn4 and adams, per step, so this is a flag, not a verdict:", ""]
        L += ["- %s, %s at %g: error %.1e m (%.0f times atol + rtol R)"
              % (model_name(m), c, t, e, e / (t * (1 + reach(m)))) for m, c, t, e in flagged]
        L.append("")
    L += ["![CPU against error](wp_simbody.png)", ""]
    with open(os.path.join(a.out, "wp_simbody.md"), "w") as f:
        f.write("\n".join(L))


def plot(res, a):
    """CPU against error, per model: whole processes (top) and the
    integration alone (bottom: Simbody's clock, mbsim's process less its fixed
    cost)."""
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    models = list(res["models"])
    fig, axs = plt.subplots(2, len(models), figsize=(3.6 * len(models), 6.4), squeeze=False)
    for row, (sk, mk, what) in enumerate((("cpu", "cpu", "CPU per process (s)"),
                                          ("cpu_integration", "cpu_integration", "integration (s)"))):
        for ax, model in zip(axs[row], models):
            mb, sim = split(res["models"][model]["runs"])
            for i in SIMBODY:
                pts = sorted((r["error"], r[sk]) for (n, _), r in sim.items()
                             if n == i and r.get("error") and r.get(sk))
                if pts:
                    ax.plot(*zip(*pts), "--", color="0.6", lw=0.8)
                    ax.annotate(i, pts[0], fontsize=5, color="0.4")
            for c in res["cases"]:
                pts = sorted((r["error"], r[mk]) for (n, _), r in mb.items()
                             if n == c and r.get("error") and r.get(mk))
                if pts:
                    ax.plot(*zip(*pts), "o-", ms=3, lw=1, label=c)
            ax.set_xscale("log")
            ax.set_yscale("log")
            ax.set_title(model_name(model), fontsize=8)
            ax.tick_params(labelsize=6)
            if row == 1:
                ax.set_xlabel("error at t = 2 s (m)", fontsize=7)
        axs[row][0].set_ylabel(what, fontsize=7)
    axs[0][-1].legend(fontsize=5)
    fig.tight_layout()
    fig.savefig(os.path.join(a.out, "wp_simbody.png"), dpi=64)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--mbsim", default="build/mbsim")
    ap.add_argument("--harness", default="build/bench/wp_simbody")
    ap.add_argument("--models", default="dp,8,32")
    ap.add_argument("--tols", default="1e-3,1e-6,1e-9")
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--timeout", type=float, default=60, help="seconds a run may take before it is dropped")
    ap.add_argument("--budget", type=float, default=1,
                    help="CPU seconds of a Simbody run beyond which its integrator's tighter accuracies are left out")
    ap.add_argument("--out", default="docs/results")
    ap.add_argument("--from-json", help="rewrite the doc and plot from saved wp_simbody.json files "
                    "(comma-separated: their models are merged)")
    ap.add_argument("--json-name", default="wp_simbody.json", help="name of the raw results in --out")
    a = ap.parse_args()
    if a.from_json:
        res = None
        for path in a.from_json.split(","):
            with open(path) as f:
                r = json.load(f)
            if res is None:
                res = r
            else:       # models measured by separate invocations
                res["models"].update(r["models"])
                res["machine"]["finished"] = r["machine"]["finished"]
                res["machine"]["loadavg_end"] = r["machine"]["loadavg_end"]
        a.rounds = res.get("rounds", a.rounds)
        a.budget = res.get("budget", a.budget)
    else:
        a.mbsim = mbsim_exe(a.mbsim, "wp_simbody.py")
        a.harness = os.path.abspath(a.harness)
        if not os.access(a.harness, os.X_OK):
            sys.exit("wp_simbody.py: %s not found; make wp-simbody builds it "
                     "(needs tools/install-deps --study)" % a.harness)
        res = study(a)
        res["rounds"] = a.rounds
        res["budget"] = a.budget
        os.makedirs(a.out, exist_ok=True)
        with open(os.path.join(a.out, a.json_name), "w") as f:
            json.dump(res, f, indent=0)
    write_doc(res, a)
    plot(res, a)


if __name__ == "__main__":
    main()
