#!/usr/bin/python3
"""study001_vehicle.py - Tables 3 and 4 and Fig. 5 of Sandu et al. (2001) §5.2 with mbsim.

Sandu et al. (2001) (docs/REFERENCES.md) times a 14-body stiff HMMWV driving over a
bump with an explicit Adams code (DEABM; its Table 3) and with its
Rosenbrock-Nystrom scheme (Table 4), for atol = rtol = 1e-2 .. 1e-5 and
simulated lengths 1 .. 4 s, on a 2001 SGI Onyx (R10000).  This script
does the same on decks/hmmwv14.yaml (a stand-in vehicle: see its header)
with mbsim's `adams` (CVODE Adams-Moulton, functional iteration) and
`rn4`: for every method M, tolerance TOL and end time END one run

  mbsim run decks/hmmwv14.yaml --set integrator.method=M
      --set integrator.adaptive=true --set integrator.atol=TOL
      --set integrator.rtol=TOL [--set integrator.max_step=CAP]
      --set time.end=END --set output.every=1 --json -o FILE

Every cell is a separate run (as the paper's tables are), the longest END
first; the steps the longest run took up to each shorter END are recorded
beside the shorter run's own steps (step_prefix_of_longest), as a check
that the shorter runs are its prefixes.

Per run: the CPU seconds of the whole process (user + system, from
getrusage(RUSAGE_CHILDREN) deltas around it), the CPU of its run loop
estimated as that minus the CPU of a set-up-only process (the same
command to time.end = 1e-6 s, once per method; mbsim reports no CPU time
of its own), its `wall_time` (wall clock of set-up and integration, from
--json), steps, mean step END / steps, rhs_evaluations,
jacobian_evaluations, rejected_steps, status, and the load average
before it.  One more run (adams, the loosest tolerance, the longest END,
output.every = 10^9) measures what writing a sample at every step costs.
`mbsim modes decks/hmmwv14.yaml --at 0.01 --json` gives the degrees of
freedom n (rn4's Jacobians by differences take 2 n + 1 evaluations of f per
step; analytic ones, integrator.jacobian auto, one for f_t) and the
dominant eigenvalue (the paper's: -2.6e5).

Usage:
  /usr/bin/python3 tools/study001_vehicle.py --mbsim build/mbsim --out DIR
      [--deck decks/hmmwv14.yaml] [--ends 1,2,3,4] [--tols 1e-2,1e-3,1e-4,1e-5]
      [--methods rn4,adams] [--fig-tol 1e-3]

Writes into DIR: tables3_4.csv (one row per run), tables3_4.md (Tables 3
and 4 in the paper's layout, ours beside the paper's, the adams / rn4
ratios, mean steps, evaluations per step, the runs' commands), fig5.png
(chassis height and step size over time, rn4 at --fig-tol over the
longest END, like the paper's Fig. 5) and fig5_rn4.h5 (that run; the other
runs' files are deleted once read).  Prints the tables.  Exit status 1
if a run failed, 0 otherwise.
"""
import argparse
import csv
import datetime
import json
import math
import os
import platform
import resource
import shutil
import subprocess
import sys
import tempfile
import time

import h5py
import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402

from mbsimlib import TOP, mbsim_exe, run_summary, say, series, short  # noqa: E402

DECK = os.path.join(TOP, "decks", "hmmwv14.yaml")
# Seed 001 Tables 3 (explicit, DEABM) and 4 (Rosenbrock-Nystrom): CPU seconds
# on an SGI Onyx R10000; rows 1..4 s, columns atol = rtol = 1e-2 .. 1e-5.
SEED_TOLS = (1e-2, 1e-3, 1e-4, 1e-5)
SEED = {
    "adams": {1: (3618, 3641, 3667, 3663), 2: (7276, 7348, 7287, 7276),
              3: (10865, 11122, 10949, 10965), 4: (14480, 14771, 14630, 14592)},
    "rn4": {1: (5.6, 13.2, 40.7, 172), 2: (12.6, 32.6, 95, 405),
            3: (13, 36.3, 105, 422), 4: (13.3, 37, 106, 428)},
}
SEED_TABLE = {"adams": "Table 3 (explicit: seed DEABM, mbsim `adams`)",
              "rn4": "Table 4 (implicit: Rosenbrock-Nystrom, mbsim `rn4`)"}
SEED_EIG = -2.6e5
MAX_STEP = 0.0    # --max-step: no cap (the tyres' road look-ahead lands the steps short of the bump)
BUMP_FRONT, BUMP_REAR = 0.5, 1.2386    # the deck header's TIMING


def seed_cpu(method, end, tol):
    for i, st in enumerate(SEED_TOLS):
        if abs(tol / st - 1) < 1e-9 and method in SEED and int(end) == end and int(end) in SEED[method]:
            return SEED[method][int(end)][i]
    return None


def tol_s(t):
    """1e-3 as the paper writes it (not 0.001)."""
    k = round(math.log10(t))
    return "1e%d" % k if abs(t / 10.0 ** k - 1) < 1e-9 else "%g" % t


def call(cmd):
    """Run CMD; (completed process, CPU seconds of the child, wall seconds).
    A binary being rebuilt (not there, text file busy, no JSON) is retried."""
    for attempt in range(6):
        r0 = resource.getrusage(resource.RUSAGE_CHILDREN)
        w0 = time.perf_counter()
        try:
            p = subprocess.run(cmd, capture_output=True, text=True)
        except OSError as e:
            say("  %s; retrying" % e)
            time.sleep(10)
            continue
        w1 = time.perf_counter()
        r1 = resource.getrusage(resource.RUSAGE_CHILDREN)
        cpu = (r1.ru_utime - r0.ru_utime) + (r1.ru_stime - r0.ru_stime)
        if p.returncode in (126, 127) or (not p.stdout.strip() and attempt < 5):
            say("  no result (exit %d: %s); retrying" % (p.returncode, p.stderr.strip()[-200:]))
            time.sleep(10)
            continue
        return p, cpu, w1 - w0
    sys.exit("study001_vehicle.py: %s does not run" % cmd[0])


def run(exe, deck, method, tol, end, out, every=1):
    cmd = [exe, "run", deck, "--set", "integrator.method=" + method,
           "--set", "integrator.adaptive=true", "--set", "integrator.atol=%g" % tol,
           "--set", "integrator.rtol=%g" % tol] + (
               ["--set", "integrator.max_step=%g" % MAX_STEP] if MAX_STEP > 0 else []) + [
           "--set", "time.end=%g" % end, "--set", "output.every=%d" % every,
           "--json", "-o", out, "--force"]
    load = os.getloadavg()[0]
    p, cpu, wall = call(cmd)
    j = run_summary(p)
    j["cpu_process"] = cpu
    j["elapsed"] = wall
    j["load"] = load
    j["command"] = " ".join(short(c) if c in (exe, deck) else c for c in cmd[:-3]) + " -o FILE"
    return j


def fmt(x, spec):
    return "-" if x is None or x == "" else spec % x


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--mbsim", default="build/mbsim")
    ap.add_argument("--out", required=True)
    ap.add_argument("--deck", default=DECK)
    ap.add_argument("--ends", default="1,2,3,4")
    ap.add_argument("--tols", default="1e-2,1e-3,1e-4,1e-5")
    ap.add_argument("--methods", default="rn4,adams")
    ap.add_argument("--fig-tol", type=float, default=1e-3)
    ap.add_argument("--max-step", type=float, default=0.0,
                    help="integrator.max_step of every run (default: none)")
    a = ap.parse_args()
    global MAX_STEP
    MAX_STEP = a.max_step
    exe = mbsim_exe(a.mbsim, "study001_vehicle.py")
    deck = os.path.abspath(a.deck)
    ends = sorted(float(e) for e in a.ends.split(","))
    tols = [float(t) for t in a.tols.split(",")]
    methods = a.methods.split(",")
    os.makedirs(a.out, exist_ok=True)
    t_start = time.perf_counter()
    cpu_start = resource.getrusage(resource.RUSAGE_CHILDREN)
    load_start = os.getloadavg()[0]
    mtime = os.stat(exe).st_mtime
    try:
        commit = subprocess.run(["git", "-C", TOP, "rev-parse", "--short", "HEAD"],
                                capture_output=True, text=True).stdout.strip()
        dirty = subprocess.run(["git", "-C", TOP, "status", "--porcelain", "src"],
                               capture_output=True, text=True).stdout.strip()
    except OSError:
        commit, dirty = "?", ""

    # the model's modes at t = 0.01 s
    mp, _, _ = call([exe, "modes", deck, "--at", "0.01", "--json"])
    modes = json.loads(mp.stdout)
    eig = [complex(*m["eigenvalue"]) for m in modes["modes"] if "eigenvalue" in m]
    dom = min(eig, key=lambda s: s.real)
    n = modes["dof"]
    say("modes at 0.01 s: %d dof, dominant eigenvalue %.4g%+.3gi (seed: %.2g)"
        % (n, dom.real, dom.imag, SEED_EIG))

    tmp = tempfile.mkdtemp(prefix="study001_vehicle.")
    rows = []
    fig = None
    base = {}
    for m in methods:
        j = run(exe, deck, m, tols[0], 1e-6, os.path.join(tmp, "setup.h5"))
        base[m] = j["cpu_process"]
        say("%s set-up only (time.end = 1e-6): %.3f s CPU" % (m, base[m]))
        for tol in tols:
            prefix = None
            for end in reversed(ends):
                h5 = os.path.join(tmp, "run.h5")
                say("%s tol %g end %g ..." % (m, tol, end))
                j = run(exe, deck, m, tol, end, h5)
                ok = j.get("status") == "complete"
                r = {"method": m, "end": end, "tol": tol, "status": j.get("status"),
                     "message": j.get("message", "")}
                for k in ("steps", "rejected_steps", "rhs_evaluations", "jacobian_evaluations",
                          "analytic_jacobians", "road_cuts", "wall_time", "cpu_process", "elapsed", "load",
                          "command"):
                    r[k] = j.get(k)
                r["cpu_loop"] = max(0.0, j["cpu_process"] - base[m])
                r["seed_cpu"] = seed_cpu(m, end, tol)
                if ok and j.get("steps"):
                    r["mean_step"] = end / j["steps"]
                    r["rhs_per_step"] = j["rhs_evaluations"] / j["steps"]
                if ok:
                    with h5py.File(h5, "r") as f:
                        t = series(f, "time")
                        hs = series(f, "solver/step_size")[1:]
                        r["at_max_step"] = (float(np.mean(hs >= MAX_STEP * (1 - 1e-9))) if len(hs) and MAX_STEP > 0
                                            else 0.0)
                        if end == ends[-1]:
                            prefix = t
                        is_fig = m == "rn4" and abs(tol / a.fig_tol - 1) < 1e-9 and end == ends[-1]
                        if is_fig:
                            fig = (t, series(f, "bodies/chassis/position")[:, 2],
                                   series(f, "solver/step_size"))
                    if prefix is not None:
                        r["step_prefix_of_longest"] = int(np.count_nonzero(prefix[1:] <= end * (1 + 1e-12)))
                    if is_fig:
                        shutil.move(h5, os.path.join(a.out, "fig5_rn4.h5"))
                say("  %s: %s steps, %.2f s CPU, wall_time %.2f s"
                    % (r["status"], r["steps"], r["cpu_process"], r["wall_time"] or 0))
                rows.append(r)
    # the cost of writing every step
    say("adams tol %g end %g without output ..." % (tols[0], ends[-1]))
    nout = run(exe, deck, "adams", tols[0], ends[-1], os.path.join(tmp, "run.h5"), every=10**9)
    for fn in os.listdir(tmp):
        os.remove(os.path.join(tmp, fn))
    os.rmdir(tmp)
    total_wall = time.perf_counter() - t_start
    c1 = resource.getrusage(resource.RUSAGE_CHILDREN)
    total_cpu = (c1.ru_utime - cpu_start.ru_utime) + (c1.ru_stime - cpu_start.ru_stime)
    rebuilt = os.stat(exe).st_mtime != mtime

    rows.sort(key=lambda r: (methods.index(r["method"]), r["end"], tols.index(r["tol"])))
    cols = ["method", "end", "tol", "status", "cpu_process", "cpu_loop", "wall_time", "elapsed",
            "seed_cpu", "steps", "mean_step", "rejected_steps", "rhs_evaluations",
            "jacobian_evaluations", "analytic_jacobians", "rhs_per_step", "at_max_step", "road_cuts", "step_prefix_of_longest", "load",
            "message", "command"]
    with open(os.path.join(a.out, "tables3_4.csv"), "w", newline="") as fh:
        w = csv.DictWriter(fh, cols, extrasaction="ignore")
        w.writeheader()
        for r in rows:
            w.writerow({c: r.get(c, "") for c in cols})

    cell = {(r["method"], r["end"], r["tol"]): r for r in rows}
    md = ["# Sandu et al. (2001) Tables 3 and 4 and Fig. 5 with mbsim (the HMMWV, §5.2)", "",
          "Made by `tools/study001_vehicle.py` (its docstring says how each number is measured);",
          "deck `decks/hmmwv14.yaml`. Every cell is a separate run.", "",
          "| | |", "|---|---|",
          "| mbsim | `%s` (built %s UTC), HEAD %s%s%s |"
          % (short(exe), datetime.datetime.fromtimestamp(mtime, datetime.timezone.utc)
             .strftime("%Y-%m-%d %H:%M"), commit,
             ", src/ with uncommitted changes" if dirty else ", src/ as committed",
             "; **rebuilt during the study**" if rebuilt else ""),
          "| machine | %s, %d CPUs, load average %.2f at start |"
          % (platform.processor() or platform.machine(), os.cpu_count(), load_start),
          "| date | %s |" % datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d %H:%M UTC"),
          "| run time of the study | **%.0f s** wall, %.0f s CPU of mbsim |" % (total_wall, total_cpu),
          "| model | %d degrees of freedom; dominant eigenvalue at t = 0.01 s %.4g%+.3gi 1/s "
          "(seed: about %.2g) |" % (n, dom.real, dom.imag, SEED_EIG), ""]
    # the head of every table: one column per tolerance, one row per end
    head = ["| end | " + " | ".join("tol " + tol_s(t) for t in tols) + " |", "|---" * (len(tols) + 1) + "|"]
    for m in sorted(methods, key=lambda m: ("adams", "rn4", m).index(m) if m in ("adams", "rn4") else 2):
        md += ["## %s" % SEED_TABLE.get(m, m), "",
               "CPU seconds of the whole mbsim process (the paper's: SGI Onyx R10000, in parentheses).", ""] + head
        for e in ends:
            cs = []
            for t in tols:
                r = cell.get((m, e, t))
                s = seed_cpu(m, e, t)
                if r is None or r["status"] != "complete":
                    cs.append("failed" + (" (%g)" % s if s else ""))
                else:
                    cs.append("%.2f (%g)" % (r["cpu_process"], s) if s is not None
                              else "%.2f" % r["cpu_process"])
            md.append("| %g s | %s |" % (e, " | ".join(cs)))
        md += ["", "Steps (rejected), mean step END / steps [s], f evaluations per step, steps cut"
               " short by the tyres' road look-ahead" + (", share of the steps at integrator.max_step ="
               " %g s" % MAX_STEP if MAX_STEP > 0 else "") + ":", ""] + head
        for e in ends:
            cs = []
            for t in tols:
                r = cell.get((m, e, t))
                cs.append("-" if r is None or r["status"] != "complete" else
                          "%d (%d), %.3g, %.1f, %d" % (r["steps"], r["rejected_steps"], r["mean_step"],
                                                       r["rhs_per_step"], r["road_cuts"]) +
                          (", %.0f%%" % (100 * r["at_max_step"]) if MAX_STEP > 0 else ""))
            md.append("| %g s | %s |" % (e, " | ".join(cs)))
        md.append("")
    if "adams" in methods and "rn4" in methods:
        md += ["## CPU ratio adams / rn4 (seed's Table 3 / Table 4 in parentheses)", ""] + head
        for e in ends:
            cs = []
            for t in tols:
                ra, rr = cell.get(("adams", e, t)), cell.get(("rn4", e, t))
                sa, sr = seed_cpu("adams", e, t), seed_cpu("rn4", e, t)
                ours = (ra["cpu_process"] / rr["cpu_process"]
                        if ra and rr and ra["status"] == rr["status"] == "complete"
                        and rr["cpu_process"] > 0 else None)
                cs.append("%s (%s)" % (fmt(ours, "%.1f"), fmt(sa / sr if sa and sr else None, "%.0f")))
            md.append("| %g s | %s |" % (e, " | ".join(cs)))
        md.append("")
    md += ["## Measurement notes", "",
           "- CPU: user + system seconds of the mbsim process (getrusage of the children).",
           "  Set-up alone (the same command to time.end = 1e-6 s): "
           + ", ".join("%s %.3f s" % (m, base[m]) for m in methods)
           + "; the run loop's CPU is the rest (`cpu_loop` in the CSV).",
           "- Each run writes a sample at every step (output.every = 1). The same adams run at tol %s"
           " to %g s without them (output.every = 10^9): %.2f s CPU against %.2f s, %s steps."
           % (tol_s(tols[0]), ends[-1], nout["cpu_process"],
              cell[("adams", ends[-1], tols[0])]["cpu_process"] if ("adams", ends[-1], tols[0]) in cell else float("nan"),
              nout.get("steps")),
           "- rn4 evaluates its Jacobians J1 = df/dy, J2 = df/dy' at every step: %s of %s"
           " analytic over the rn4 runs (integrator.jacobian auto; by differences they would take"
           " 2 n + 1 = %d evaluations of f each, n = %d; analytic ones none, or one for f_t when"
           " the model has a function of time); the paper's were analytic." % (sum(int(r.get("analytic_jacobians") or 0) for r in rows if r["method"] == "rn4"),
                           sum(int(r.get("jacobian_evaluations") or 0) for r in rows if r["method"] == "rn4"),
                           2 * n + 1, n),
           "- `step_prefix_of_longest` in the CSV: steps the %g s run of the same method and"
           " tolerance took up to each shorter end, beside that run's own `steps`." % ends[-1],
           "- Load average before each run: `load` in the CSV (%.2f .. %.2f)."
           % (min(r["load"] for r in rows), max(r["load"] for r in rows)), "",
           "## Runs", ""]
    md += ["Every run is (M = %s, TOL = %s, END = %s)" % (", ".join(methods), ", ".join(tol_s(t) for t in tols),
                                                          ", ".join("%g" % e for e in ends)), "",
           "    " + rows[0]["command"].replace("method=" + rows[0]["method"], "method=M")
           .replace("atol=%g" % rows[0]["tol"], "atol=TOL").replace("rtol=%g" % rows[0]["tol"], "rtol=TOL")
           .replace("time.end=%g" % rows[0]["end"], "time.end=END"), ""]
    for r in rows:
        if r["status"] != "complete":
            md.append("- failed: %s tol %s end %g: %s: %s" % (r["method"], tol_s(r["tol"]), r["end"],
                                                              r["status"], r["message"]))

    if fig is not None:
        t, z, h = fig
        f5, ax = plt.subplots(figsize=(9, 5))
        ax.plot(t, z, "k-", lw=1.2, label="chassis height z (left)")
        ax.set_xlabel("t [s]")
        ax.set_ylabel("chassis centroid height z [m]")
        lo, hi = float(z.min()), float(z.max())
        ax.set_ylim(lo - 0.1 * (hi - lo), hi + 1.3 * (hi - lo))   # the lower half, as the paper's
        for tb, lab in ((BUMP_FRONT, "front wheels\nat the bump"), (BUMP_REAR, "rear\nwheels")):
            if tb < t[-1]:
                ax.axvline(tb, color="gray", ls=":", lw=1)
                ax.text(tb, hi + 0.1 * (hi - lo), " " + lab, fontsize=8, color="gray", va="bottom")
        ax2 = ax.twinx()
        ax2.semilogy(t[1:], h[1:], ".", ms=2.5, color="tab:red", label="step size (right)")
        ax2.set_ylabel("step size [s]", color="tab:red")
        hlo, hhi = float(h[1:].min()), float(h[1:].max())
        if MAX_STEP > 0:
            ax2.axhline(MAX_STEP, color="tab:red", ls="--", lw=0.8, alpha=0.6,
                        label="integrator.max_step = %g s" % MAX_STEP)
        ax2.set_ylim(hlo / (hhi / hlo) ** 1.3, hhi * 2)   # the upper half
        ax.grid(alpha=0.3)
        l1, n1 = ax.get_legend_handles_labels()
        l2, n2 = ax2.get_legend_handles_labels()
        ax.legend(l1 + l2, n1 + n2, fontsize=8, loc="center right")
        ax.set_title("HMMWV over a bump, mbsim rn4, atol = rtol = %g (Sandu et al. (2001) Fig. 5): %d steps"
                     % (a.fig_tol, len(t) - 1), fontsize=10)
        f5.tight_layout()
        f5.savefig(os.path.join(a.out, "fig5.png"), dpi=120)
        plt.close(f5)
        md += ["", "![chassis height and rn4's step size](fig5.png)"]
    with open(os.path.join(a.out, "tables3_4.md"), "w") as fh:
        fh.write("\n".join(md) + "\n")
    print("\n".join(md))
    say("total %.0f s wall, %.0f s CPU; wrote %s/tables3_4.csv, tables3_4.md%s"
        % (total_wall, total_cpu, a.out, ", fig5.png" if fig is not None else ""))
    if rebuilt:
        say("warning: %s was rebuilt during the study" % exe)
    return 1 if any(r["status"] != "complete" for r in rows) else 0


if __name__ == "__main__":
    sys.exit(main())
