#!/usr/bin/python3
"""study001_tables.py - Tables 1 and 2 and Fig. 2 of Sandu et al. (2001) §5.1 with mbsim.

Sandu et al. (2001) (docs/REFERENCES.md) checks its step-size control on the stiff
double pendulum (decks/stiff_double_pendulum.yaml): for atol = rtol =
10^k, k = -2 .. -5, it compares the angle theta1 of body 1 (Table 1) and
its rate theta1-dot (Table 2) at the run's own steps t_i with a
reference E, and lists
  t*      the time of the largest error,
  Delta   max_i |E*_i - e_i|, E*_i the reference at t_i,
  RelErr  Delta / |E*(t*)| x 100 [%],
  avg     sqrt(1/n sum_i |E*_i - e_i|^2) (RMS over the n samples).
This script does the same with `mbsim run` (integrator.method=METHOD,
integrator.adaptive=true, atol = rtol = 10^k, output.every=1, so a
sample at every step), the reference being tools/stiff_double_pendulum_ref.py
(Radau at rtol 1e-12) evaluated at exactly mbsim's output times through
its dense output (within 2e-12 of a solve that stops there) instead of
the paper's cubic spline through a fixed-step reference.  theta1 and
theta1-dot come from body 1's orientation and angular velocity in the
output (stiff_double_pendulum_ref.run_angles), on the paper's branch
theta1(0) = 2 pi.

Usage:
  /usr/bin/python3 tools/study001_tables.py --mbsim build/mbsim --method METHOD --out DIR
      [--deck decks/stiff_double_pendulum.yaml] [--ks=-2,-3,-4,-5] [--fig-k -3]
      [--set KEY=VALUE ...]
--set passes a setting to every run (e.g. integrator.tolerance=1e-15); a
parameters.NAME=VALUE is given to the reference too.

Writes into DIR: run_k<k>.h5 (the runs), tables.csv (one row per table
and k: mbsim's and the paper's t*, Delta, RelErr, avg, their ratios, the
seed's accuracy criterion Delta <= 10 x 10^k, and the run's steps,
rejected steps, Newton iterations and wall time), tables.md (the same as
Markdown, with the command lines and the paper's implied |E*(t*)| =
Delta / RelErr x 100 beside the reference there), fig2.png (theta1 and
theta1-dot over time, reference and mbsim at 10^fig-k, like the paper's
Fig. 2).  Prints the tables.  Exit status 1 if a run failed (it is
recorded as failed in the tables), 0 otherwise.
"""
import argparse
import csv
import math
import os
import subprocess
import sys

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402

import stiff_double_pendulum_ref as ref  # noqa: E402
from mbsimlib import mbsim_exe, run_summary, say, short  # noqa: E402

# Seed 001 Tables 1 (theta1) and 2 (theta1-dot): k -> (t*, Delta, RelErr %, avg)
PAPER = {
    "theta1": {-2: (0.592127, 5.223e-2, 0.12126, 3.234e-3),
               -3: (0.599954, 4.198e-3, 0.00964, 2.631e-4),
               -4: (0.626135, 4.916e-4, 0.00108, 2.946e-5),
               -5: (1.065146, 1.902e-5, 0.00039, 9.868e-6)},
    "theta1_dot": {-2: (0.795548, 4.061e-2, 1.84434, 2.348e-2),
                   -3: (0.373114, 3.792e-3, 0.12340, 2.181e-3),
                   -4: (0.217757, 8.652e-4, 0.00922, 3.445e-4),
                   -5: (0.186183, 2.343e-4, 0.00246, 9.357e-5)},
}
TABLE = {"theta1": "Table 1 (theta1, rad)", "theta1_dot": "Table 2 (theta1-dot, rad/s)"}
# The seed's criterion (§5.1): Delta "of the order 10^k" for theta1, and
# up to 10^(k+1) "very good" for theta1-dot; both read here as Delta <= 10 x 10^k.
CRIT = 10.0


def run(exe, deck, method, k, sets, out):
    """mbsim run at atol = rtol = 10^k with a sample at every step; the
    JSON summary (status "failed" and the message when it fails)."""
    tol = "1e%d" % k
    cmd = [exe, "run", deck, "--set", "integrator.method=" + method,
           "--set", "integrator.adaptive=true", "--set", "integrator.atol=" + tol,
           "--set", "integrator.rtol=" + tol, "--set", "output.every=1"]
    for s in sets:
        cmd += ["--set", s]
    cmd += ["-o", out, "--force", "--json"]
    j = run_summary(subprocess.run(cmd, capture_output=True, text=True))
    j["command"] = " ".join(short(c) if c in (exe, deck, out) else c for c in cmd)
    return j


def errors(t, e, E):
    """t*, Delta, E*(t*), RelErr %, avg of the samples e against reference E."""
    d = np.abs(E - e)
    i = int(np.argmax(d))
    return t[i], d[i], E[i], 100.0 * d[i] / abs(E[i]), math.sqrt(float(np.mean(d * d)))


def fmt(x, spec):
    return "-" if x is None or (isinstance(x, float) and not math.isfinite(x)) else spec % x


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--mbsim", default="build/mbsim")
    ap.add_argument("--method", required=True)
    ap.add_argument("--out", required=True)
    ap.add_argument("--deck", default=ref.DECK)
    ap.add_argument("--ks", default="-2,-3,-4,-5", help="exponents k of atol = rtol = 10^k")
    ap.add_argument("--fig-k", type=int, default=-3, help="the run drawn in fig2.png")
    ap.add_argument("--set", action="append", default=[], metavar="KEY=VALUE")
    a = ap.parse_args()
    exe = mbsim_exe(a.mbsim, "study001_tables.py")
    deck = os.path.abspath(a.deck)
    ks = [int(k) for k in a.ks.split(",")]
    os.makedirs(a.out, exist_ok=True)

    over = [s[len("parameters."):] for s in a.set if s.startswith("parameters.")]
    p = ref.model(deck, over)
    sol = ref.solve(p)
    say("reference: Radau rtol 1e-12, %d steps, energy balance within %.1e"
        % (len(sol.t) - 1, sol.energy_error))

    rows, runs, curves = [], {}, {}
    for k in ks:
        h5 = os.path.join(a.out, "run_k%d.h5" % k)
        say("%s atol = rtol = 1e%d ..." % (a.method, k))
        j = run(exe, deck, a.method, k, a.set, h5)
        runs[k] = j
        ok = j.get("status") == "complete"
        if ok:
            t, th1, w1, _th2, _w2 = ref.run_angles(h5, p["th1_0"], p["th2_0"])
            Y = sol.sol(t)
            curves[k] = (t, th1, w1)
        for q in ("theta1", "theta1_dot"):
            r = {"table": q, "k": k, "method": a.method, "status": j.get("status")}
            if ok:
                ts, D, Es, rel, avg = errors(t, th1 if q == "theta1" else w1,
                                             Y[0] if q == "theta1" else Y[2])
                r.update(t_star=ts, delta=D, E_star=Es, relerr=rel, avg=avg, samples=len(t))
            pt, pD, prel, pavg = PAPER[q][k] if k in PAPER[q] else (None,) * 4
            Eref_pt = float(sol.sol(pt)[0 if q == "theta1" else 2]) if pt is not None else None
            r.update(paper_t_star=pt, paper_delta=pD, paper_relerr=prel, paper_avg=pavg,
                     paper_E_star=pD / prel * 100 if pD else None, ref_at_paper_t_star=Eref_pt)
            if ok and pD:
                r.update(ratio_delta=r["delta"] / pD, ratio_avg=r["avg"] / pavg)
            if ok:
                r["criterion"] = "yes" if r["delta"] <= CRIT * 10.0 ** k else "no"
            for key in ("steps", "rejected_steps", "mean_newton_iterations", "wall_time"):
                r[key] = j.get(key)
            rows.append(r)

    cols = ["table", "k", "method", "status", "t_star", "delta", "relerr", "avg", "E_star",
            "paper_t_star", "paper_delta", "paper_relerr", "paper_avg", "ratio_delta",
            "ratio_avg", "criterion", "paper_E_star", "ref_at_paper_t_star", "samples",
            "steps", "rejected_steps", "mean_newton_iterations", "wall_time"]
    with open(os.path.join(a.out, "tables.csv"), "w", newline="") as fh:
        w = csv.DictWriter(fh, cols, extrasaction="ignore")
        w.writeheader()
        for r in rows:
            w.writerow({c: r.get(c, "") for c in cols})

    md = ["# Sandu et al. (2001) Tables 1 and 2 with mbsim `%s`" % a.method, "",
          "Made by `tools/study001_tables.py` (its docstring says how each number is computed);",
          "deck `decks/stiff_double_pendulum.yaml`, reference `tools/stiff_double_pendulum_ref.py`",
          "(Radau, rtol 1e-12, evaluated at mbsim's output times; energy balance within %.1e)."
          % sol.energy_error, "",
          "Delta <= 10^(k+1): the paper's reading of its tables (§5.1: Delta \"of the order",
          "10^k\" for theta1, up to 10^(k+1) \"very good\" for theta1-dot).", ""]
    lines = []
    for q in ("theta1", "theta1_dot"):
        lines.append("")
        lines.append("%s, mbsim %s | paper (Sandu et al. 2001)" % (TABLE[q], a.method))
        hdr = ("| k | t* | Delta | RelErr % | avg | paper t* | paper Delta | paper RelErr % "
               "| paper avg | Delta ratio | avg ratio | Delta <= 10^(k+1) | steps (rejected) |")
        md += ["## " + TABLE[q], "", hdr, "|" + "---|" * 13]
        lines.append("%3s %9s %10s %10s %10s | %9s %10s %10s %10s | %7s %7s %4s"
                     % ("k", "t*", "Delta", "RelErr%", "avg", "t*", "Delta", "RelErr%", "avg",
                        "D/Dp", "a/ap", "crit"))
        for r in (r for r in rows if r["table"] == q):
            ok = r["status"] == "complete"
            m = [fmt(r.get("t_star"), "%.6f"), fmt(r.get("delta"), "%.3e"),
                 fmt(r.get("relerr"), "%.3g"), fmt(r.get("avg"), "%.3e")] if ok else \
                ["failed", "-", "-", "-"]
            pp = [fmt(r["paper_t_star"], "%.6f"), fmt(r["paper_delta"], "%.3e"),
                  fmt(r["paper_relerr"], "%.5f"), fmt(r["paper_avg"], "%.3e")]
            rr = [fmt(r.get("ratio_delta"), "%.3g"), fmt(r.get("ratio_avg"), "%.3g"),
                  r.get("criterion", "-")]
            st = "%s (%s)" % (r.get("steps", "-"), r.get("rejected_steps", "-"))
            md.append("| %d | %s | %s | %s | %s |" % (r["k"], " | ".join(m), " | ".join(pp),
                                                       " | ".join(rr), st))
            lines.append("%3d %9s %10s %10s %10s | %9s %10s %10s %10s | %7s %7s %4s"
                         % tuple([r["k"]] + m + pp + rr))
        md.append("")
    md += ["## The paper's RelErr against this reference", "",
           "The paper's |E*(t*)| implied by its own columns (Delta / RelErr x 100) and this",
           "reference at the paper's t*: where they differ, the paper's RelErr column or its",
           "model differs from this reading of it.", "",
           "| table | k | paper t* | paper Delta/RelErr x 100 | reference at paper t* |",
           "|---|---|---|---|---|"]
    for r in rows:
        if r["paper_t_star"] is not None:
            md.append("| %s | %d | %.6f | %.4g | %.4f |" % (r["table"], r["k"], r["paper_t_star"],
                                                          r["paper_E_star"], r["ref_at_paper_t_star"]))
    md += ["", "## Runs", ""]
    for k in ks:
        j = runs[k]
        md.append("- k = %d: `%s` -> %s%s" % (k, j["command"], j.get("status"),
                                              "" if j.get("status") == "complete"
                                              else ": " + str(j.get("message", ""))))
    fk = a.fig_k if a.fig_k in curves else (sorted(curves)[0] if curves else None)
    if fk is not None:
        t, th1, w1 = curves[fk]
        tt = np.linspace(0.0, float(t[-1]), 4001)
        Y = sol.sol(tt)
        fig, ax = plt.subplots(1, 2, figsize=(11, 4))
        for axi, yr, ym, lab in ((ax[0], Y[0], th1, "theta1 [rad]"),
                                 (ax[1], Y[2], w1, "theta1-dot [rad/s]")):
            axi.plot(tt, yr, "k-", lw=1.2, label="reference (Radau, rtol 1e-12)")
            axi.plot(t, ym, ".", ms=2, color="tab:red",
                     label="mbsim %s, atol = rtol = 1e%d (every step)" % (a.method, fk))
            axi.set_xlabel("t [s]")
            axi.set_ylabel(lab)
            axi.grid(alpha=0.3)
        ax[0].axhline(1.5 * math.pi, color="gray", ls=":", lw=1)
        ax[0].legend(fontsize=8)
        fig.suptitle("Stiff double pendulum (Sandu et al. (2001) §5.1, Fig. 2): body 1")
        fig.tight_layout()
        fig.savefig(os.path.join(a.out, "fig2.png"), dpi=120)
        plt.close(fig)
        md += ["", "![theta1 and theta1-dot, reference and mbsim at 1e%d](fig2.png)" % fk]
    with open(os.path.join(a.out, "tables.md"), "w") as fh:
        fh.write("\n".join(md) + "\n")
    print("\n".join(lines[1:]))
    say("wrote %s/tables.csv, tables.md%s" % (a.out, ", fig2.png" if fk is not None else ""))
    return 1 if any(runs[k].get("status") != "complete" for k in ks) else 0


if __name__ == "__main__":
    sys.exit(main())
