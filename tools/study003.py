#!/usr/bin/python3
"""study003.py - Fig. 2 of Arnold (2013) §2.2 with mbsim: BDF steps against m1/m2.

Arnold (2013) (docs/REFERENCES.md) shows on the two coupled oscillators of its
Fig. 1 (decks/coupled_oscillators.yaml, eqs. 5-6) that a BDF code with
step-size control (DASSL, atol = rtol = 1e-6) takes more and more steps as
the small mass m1 = epsilon shrinks (m1/m2 = 1e-1 ... 1e-8), and few at
m1 = 0, where eq. 5a becomes the first-order eq. 6.  This script does the
same with `mbsim run` and integrator.method=bdf (SUNDIALS IDA on the tree
formulation, the deck's own setting):

  steps   for each m1 in --eps (m2 = 1 in the deck) and m1 = 0, one run
          with the deck as it is (adaptive, atol = rtol = --tol, output
          every 10 steps): IDA's steps (bdf_steps), rejected steps, Newton
          iterations, mbsim's wall time;
  error   for the same m1, a second run with output.times = 0.1, 0.2,
          ..., t_end (IDA's dense output at those times; these runs take
          other steps, so their step counts are not the figure's), and
          max over those times of |p(m1) - p(0)| for the small and the
          large mass: the O(epsilon) distance of the smooth solution from
          the reduced one (Arnold (2013) eq. 3) plus both runs' integration
          errors; with --tight TOL the same again at atol = rtol = TOL, to
          separate the two;
  exact   the same distance of the exact solutions (tools/
          coupled_oscillators_ref.py: eqs. 5 and 6 are linear, solved by
          the matrix exponential in mpmath, no time integrator), and each
          run's own error: max over the times of |p - p_exact| at the same
          m1 (the m1 = 0 runs' in the m1 = 0 row).  The measured distance
          is the truth's where both runs' own errors are below it; the
          script names the range of m1 where they are below a third of it.

Usage:
  /usr/bin/python3 tools/study003.py --mbsim build/mbsim --out DIR
      [--deck decks/coupled_oscillators.yaml] [--eps 1e-1,...,1e-8]
      [--tol 1e-6] [--tight 1e-10]

Writes into DIR: fig2_steps.csv (m1, m1/m2, steps, rejected, Newton
iterations, wall time, error to m1 = 0 of both masses at --tol and at
--tight, the exact distance, each run's own error), fig2_steps.png (steps against m1/m2, log axes, the m1 = 0
count as a horizontal line, like the paper's Fig. 2; beside it the error
against m1), commands.txt (every command line).  The HDF5 files go to a
temporary directory.  Prints the table.  Exit status 1 if a run failed.
"""
import argparse
import csv
import json
import os
import subprocess
import sys
import tempfile
import time

import h5py
import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402

import coupled_oscillators_ref as exact_ref  # noqa: E402
from mbsimlib import TOP, mbsim_exe, say, series  # noqa: E402


def run(exe, deck, m1, tol, out, log, extra=()):
    cmd = [exe, "run", deck, "--set", "parameters.m1=%g" % m1,
           "--set", "integrator.atol=%g" % tol, "--set", "integrator.rtol=%g" % tol,
           *extra, "-o", out, "--force", "--json"]
    log.append(" ".join("OUT.h5" if c == out else "TIMED_DECK" if c.endswith("timed.yaml")
                        else os.path.relpath(c, TOP) if c.startswith("/") else c for c in cmd))
    p = subprocess.run(cmd, capture_output=True, text=True)
    j = json.loads(p.stdout) if p.stdout.strip() else {"status": "failed", "message": p.stderr}
    if p.returncode != 0 or j.get("status") != "complete":
        say("m1 = %g, tol %g: run failed (exit %d): %s" % (m1, tol, p.returncode, p.stderr.strip()))
        j["status"] = "failed"
    return j


def positions(path):
    with h5py.File(path, "r") as f:
        return (series(f, "time"), series(f, "bodies/small/position")[:, 0],
                series(f, "bodies/large/position")[:, 0])


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--mbsim", default=os.path.join(TOP, "build", "mbsim"))
    ap.add_argument("--out", required=True)
    ap.add_argument("--deck", default=os.path.join(TOP, "decks", "coupled_oscillators.yaml"))
    ap.add_argument("--eps", default="1e-1,1e-2,1e-3,1e-4,1e-5,1e-6,1e-7,1e-8")
    ap.add_argument("--tol", type=float, default=1e-6)
    ap.add_argument("--tight", type=float, default=1e-10, help="0: no tight runs")
    ap.add_argument("--rn4", type=float, default=1e-10,
                    help="tolerance of the rn4 runs on the tree formulation (m1 > 0) whose distance "
                         "to the exact m1 = 0 solution is the limit's own measure; 0: none")
    a = ap.parse_args()
    exe = mbsim_exe(a.mbsim, "study003")
    os.makedirs(a.out, exist_ok=True)
    eps = [float(e) for e in a.eps.split(",")]
    t_end = 2.0
    times = ", ".join("%g" % (0.1 * k) for k in range(1, int(round(t_end / 0.1)) + 1))
    tk = [0.1 * k for k in range(1, int(round(t_end / 0.1)) + 1)]
    par = exact_ref.parameters(a.deck, [])
    ex = {}
    for m1 in eps + [0.0]:
        sol = exact_ref.Exact(dict(par, m1=m1))
        pos = np.array([sol.positions(t) for t in tk])
        ex[m1] = (pos[:, 0], pos[:, 1])    # displacements; the large mass rests at x = 1 m
    log, rows, failed = [], [], False
    t0 = time.time()
    with tempfile.TemporaryDirectory() as tmp:
        # --set takes scalars only: the error runs use a copy of the deck
        # whose output line lists the times
        with open(a.deck) as f:
            text = f.read()
        if "\noutput: {every: 10}\n" not in text:
            sys.exit("study003: %s has no line 'output: {every: 10}'" % a.deck)
        timed = os.path.join(tmp, "timed.yaml")
        with open(timed, "w") as f:
            f.write(text.replace("\noutput: {every: 10}\n", "\noutput: {times: [%s]}\n" % times))
        log.append("# the error runs use DECK with its output line replaced by "
                   "'output: {times: [%s]}'" % times)
        ref = {}
        tols = [a.tol] + ([a.tight] if a.tight > 0 else [])
        for tol in tols:
            j = run(exe, timed, 0.0, tol, os.path.join(tmp, "e0_%g.h5" % tol), log)
            failed |= j["status"] != "complete"
            ref[tol] = positions(os.path.join(tmp, "e0_%g.h5" % tol)) if j["status"] == "complete" else None
        own0 = {}
        for tol in tols:
            if ref[tol] is not None:
                own0[tol] = (np.max(np.abs(ref[tol][1] - ex[0.0][0])),
                             np.max(np.abs(ref[tol][2] - 1.0 - ex[0.0][1])))
        for m1 in eps + [0.0]:
            h5 = os.path.join(tmp, "s_%g.h5" % m1)
            j = run(exe, a.deck, m1, a.tol, h5, log)
            failed |= j["status"] != "complete"
            row = {"m1": m1, "m1_over_m2": m1, "status": j["status"],
                   "steps": j.get("bdf_steps", ""), "rejected": j.get("rejected_steps", ""),
                   "newton": j.get("bdf_newton_iterations", ""),
                   "wall_s": "%.4f" % j["wall_time"] if "wall_time" in j else ""}
            row["dist_small_exact"] = row["dist_large_exact"] = ""
            if m1 > 0:
                row["dist_small_exact"] = "%.3e" % np.max(np.abs(ex[m1][0] - ex[0.0][0]))
                row["dist_large_exact"] = "%.3e" % np.max(np.abs(ex[m1][1] - ex[0.0][1]))
            for tol in tols:
                tag = "tol" if tol == a.tol else "tight"
                row["err_small_" + tag] = row["err_large_" + tag] = ""
                row["own_small_" + tag] = row["own_large_" + tag] = ""
                if m1 == 0 and tol in own0:
                    row["own_small_" + tag] = "%.3e" % own0[tol][0]
                    row["own_large_" + tag] = "%.3e" % own0[tol][1]
                if m1 == 0 or ref[tol] is None:
                    continue
                h5e = os.path.join(tmp, "e_%g_%g.h5" % (m1, tol))
                j = run(exe, timed, m1, tol, h5e, log)
                failed |= j["status"] != "complete"
                if j["status"] != "complete":
                    continue
                t, p1, p2 = positions(h5e)
                t0_, q1, q2 = ref[tol]
                if len(t) != len(t0_) or np.max(np.abs(t - t0_)) > 1e-12:
                    sys.exit("study003: sample times differ between m1 = %g and m1 = 0" % m1)
                row["err_small_" + tag] = "%.3e" % np.max(np.abs(p1 - q1))
                row["err_large_" + tag] = "%.3e" % np.max(np.abs(p2 - q2))
                row["own_small_" + tag] = "%.3e" % np.max(np.abs(p1 - ex[m1][0]))
                row["own_large_" + tag] = "%.3e" % np.max(np.abs(p2 - 1.0 - ex[m1][1]))
            row["rn4_small"] = row["rn4_large"] = row["rn4_own_small"] = row["rn4_own_large"] = ""
            row["rn4_steps"] = ""
            if m1 > 0 and a.rn4 > 0:
                # rn4 on the tree formulation resolves the fast mode instead
                # of damping it (its error stays at round-off where bdf's
                # does not): its m1 > 0 solutions against the exact m1 = 0 one
                h5r = os.path.join(tmp, "r_%g.h5" % m1)
                j = run(exe, timed, m1, a.rn4, h5r, log,
                        ("--set", "integrator.method=rn4", "--set", "integrator.formulation=tree"))
                failed |= j["status"] != "complete"
                if j["status"] == "complete":
                    t, p1, p2 = positions(h5r)
                    row["rn4_steps"] = j.get("steps", "")
                    row["rn4_small"] = "%.3e" % np.max(np.abs(p1 - ex[0.0][0]))
                    row["rn4_large"] = "%.3e" % np.max(np.abs(p2 - 1.0 - ex[0.0][1]))
                    row["rn4_own_small"] = "%.1e" % np.max(np.abs(p1 - ex[m1][0]))
                    row["rn4_own_large"] = "%.1e" % np.max(np.abs(p2 - 1.0 - ex[m1][1]))
            rows.append(row)
            say("m1 = %-6g steps %s, error small/large %s %s" % (
                m1, row["steps"], row["err_small_tol"], row["err_large_tol"]))
    run_time = time.time() - t0
    # the limit: at the tight tolerance the distance to m1 = 0 should fall
    # with every decade of m1 (both masses), the runs' own errors below it
    # and the exact distance with every decade; the measured one is the
    # truth's only down to the m1 where both runs' own errors reach it
    zero_row = [r for r in rows if r["m1"] == 0]
    for mass in ("small", "large"):
        e = [float(r["rn4_%s" % mass]) for r in rows if r["m1"] > 0 and r.get("rn4_%s" % mass)]
        if len(e) > 1:
            say("rn4 (tree) m1 > 0 against the exact m1 = 0, %s mass: %s over m1 = %s" % (
                mass, "decreasing" if all(b < a for a, b in zip(e, e[1:])) else "NOT monotone",
                a.eps))
        e = [float(r["dist_%s_exact" % mass]) for r in rows if r["m1"] > 0]
        mono = all(b < a for a, b in zip(e, e[1:]))
        say("exact distance of the %s mass: %s over m1 = %s" % (
            mass, "decreasing" if mono else "NOT monotone", a.eps))
    for tag in ("tol", "tight"):
        for mass in ("small", "large"):
            key = "err_%s_%s" % (mass, tag)
            e = [float(r[key]) for r in rows if r["m1"] > 0 and r.get(key)]
            if len(e) > 1:
                mono = all(b < a for a, b in zip(e, e[1:]))
                say("measured distance of the %s mass at %s: %s over m1 = %s" % (
                    mass, tag, "decreasing" if mono else "NOT monotone", a.eps))
            own0_ = zero_row[0].get("own_%s_%s" % (mass, tag)) if zero_row else ""
            if not own0_:
                continue
            good = []
            for r in rows:
                if r["m1"] == 0 or not r.get("own_%s_%s" % (mass, tag)):
                    continue
                if float(r["own_%s_%s" % (mass, tag)]) + float(own0_) > \
                        float(r["dist_%s_exact" % mass]) / 3:
                    break
                good.append(r)
            if good:
                d = [float(r[key]) for r in good]
                say("  both runs' own errors below a third of the exact distance for m1 = "
                    "%g .. %g; measured distance there %s" % (
                        good[0]["m1"], good[-1]["m1"],
                        "decreasing" if all(b < a for a, b in zip(d, d[1:])) else
                        "NOT monotone"))
    keys = list(rows[0].keys())
    with open(os.path.join(a.out, "fig2_steps.csv"), "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=keys)
        w.writeheader()
        w.writerows(rows)
    with open(os.path.join(a.out, "commands.txt"), "w") as f:
        f.write("# tools/study003.py, %d runs, %.1f s wall\n" % (len(log), run_time))
        f.write("\n".join(log) + "\n")

    pos = [r for r in rows if r["m1"] > 0 and r["status"] == "complete"]
    zero = [r for r in rows if r["m1"] == 0 and r["status"] == "complete"]
    fig, (ax, bx) = plt.subplots(1, 2, figsize=(10, 4))
    ax.loglog([r["m1"] for r in pos], [r["steps"] for r in pos], "o-", label="bdf, m1 > 0")
    if zero:
        ax.axhline(zero[0]["steps"], color="k", ls="--", label="m1 = 0 (eq. 6): %d" % zero[0]["steps"])
    ax.set_xlabel("m1 / m2")
    ax.set_ylabel("BDF steps to t = %g s" % t_end)
    ax.set_title("Arnold (2013) Fig. 2: atol = rtol = %g" % a.tol)
    ax.invert_xaxis()
    ax.grid(True, which="both", alpha=0.3)
    ax.legend()
    for tag, tol, mk in (("tol", a.tol, "o"), ("tight", a.tight, "s")):
        pts = [(r["m1"], float(r["err_small_" + tag])) for r in pos if r.get("err_small_" + tag)]
        if pts:
            bx.loglog(*zip(*pts), mk + "-", label="small mass, atol = rtol = %g" % tol)
        pts = [(r["m1"], float(r["err_large_" + tag])) for r in pos if r.get("err_large_" + tag)]
        if pts:
            bx.loglog(*zip(*pts), mk + ":", label="large mass, atol = rtol = %g" % tol)
    for mass, ls in (("small", "^-"), ("large", "v:")):
        pts = [(r["m1"], float(r["rn4_" + mass])) for r in pos if r.get("rn4_" + mass)]
        if pts:
            bx.loglog(*zip(*pts), ls, ms=4, label="%s mass, rn4 (tree) at %g against exact m1 = 0"
                      % (mass, a.rn4))
    e = np.array([r["m1"] for r in pos])
    bx.loglog(e, [float(r["dist_small_exact"]) for r in pos], "k-", lw=0.7,
              label="small mass, exact (tools/coupled_oscillators_ref.py)")
    bx.loglog(e, [float(r["dist_large_exact"]) for r in pos], "k--", lw=0.7,
              label="large mass, exact")
    bx.set_xlabel("m1 = epsilon (kg)")
    bx.set_ylabel("max |p(epsilon) - p(0)| at t = 0.1 .. %g (m)" % t_end)
    bx.grid(True, which="both", alpha=0.3)
    bx.legend(fontsize=7)
    fig.tight_layout()
    fig.savefig(os.path.join(a.out, "fig2_steps.png"), dpi=110)

    print(",".join(keys))
    for r in rows:
        print(",".join(str(r[k]) for k in keys))
    print("run time %.1f s" % run_time)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
