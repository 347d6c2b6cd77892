#!/usr/bin/python3
"""globerr_table.py - the global error estimate of integrator.assess_error
against the true error (man mbsim-run(1), GLOBAL ERROR; bench/README.md).

For each case: the adaptive run with integrator.assess_error (its estimate,
the largest difference of the bodies' centroid positions from a run at a
tenth of atol and rtol over its samples), then a reference stepping onto
the same sample times (at most 3000 of them, evenly strided, and the end):
adams on the tree formulation at atol = rtol = 1e-12 - another scheme and
formulation, not checked here against an independent solution (t-globerr.sh
checks it on the double pendulum against tools/double_pendulum_ref.py) -
and the true error, the largest position difference from it
(`mbsim compare`).  Factors are in units of atol +
rtol Y, Y the largest |position coordinate| of the run.

Usage: /usr/bin/python3 tools/globerr_table.py [--mbsim build/mbsim]
           [--cases dp,c8,c32] [--tols 1e-3,1e-6,1e-9] [--timeout 300]
"""
import argparse
import json
import os
import subprocess
import sys
import tempfile

import h5py

TOP = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SCHEMES = {  # name: settings
    "rn4": ["integrator.method=rn4", "integrator.adaptive=true"],
    "lms2": ["integrator.method=lms2", "integrator.adaptive=true"],
    "esdirk3": ["integrator.method=esdirk436l2sa2", "integrator.adaptive=true"],
    "esdirk2": ["integrator.method=esdirk436l2sa2", "integrator.adaptive=true",
                "integrator.index=2"],
    "bdf": ["integrator.method=bdf"],
    "adams/tree": ["integrator.method=adams", "integrator.formulation=tree"],
    "adams": ["integrator.method=adams"],
}
MODELS = {  # name: deck, settings, schemes
    "dp": ("double_pendulum.yaml", ["time.end=2"], ["rn4", "lms2", "adams"]),
    "c8": ("chain.yaml", ["parameters.N=8", "time.end=1"],
           ["lms2", "esdirk3", "esdirk2", "bdf", "rn4", "adams/tree"]),
    "c32": ("chain.yaml", ["parameters.N=32", "time.end=1"],
            ["lms2", "esdirk3", "esdirk2", "bdf", "rn4", "adams/tree"]),
}


def run(mbsim, deck, sets, out, timeout, json_out=False):
    argv = [mbsim, "run", os.path.join(TOP, "decks", deck), "-o", out, "--quiet"]
    for s in sets:
        argv += ["--set", s]
    if json_out:
        argv.append("--json")
    try:
        p = subprocess.run(argv, capture_output=True, text=True, timeout=timeout)
    except subprocess.TimeoutExpired:
        return None, "timeout"
    if json_out and p.stdout.strip():
        return json.loads(p.stdout), p.stderr
    return (p.returncode == 0), p.stderr


def pos_diff(mbsim, a, b):
    p = subprocess.run([mbsim, "compare", a, b, "--json"], capture_output=True, text=True)
    j = json.loads(p.stdout)
    return max(v["max_abs"] for k, v in j["datasets"].items()
               if k.startswith(("/bodies/", "/particles/")) and k.endswith("/position"))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--mbsim", default=os.path.join(TOP, "build", "mbsim"))
    ap.add_argument("--cases", default="dp,c8,c32")
    ap.add_argument("--tols", default="1e-3,1e-6,1e-9")
    ap.add_argument("--schemes", default="")
    ap.add_argument("--timeout", type=float, default=300)
    o = ap.parse_args()
    tmp = tempfile.mkdtemp(prefix="globerr")
    print("model scheme tol steps est_m est_factor true_m true_factor est/true "
          "warned wall_s")
    for name in o.cases.split(","):
        deck, msets, schemes = MODELS[name]
        if o.schemes:
            schemes = [s for s in schemes if s in o.schemes.split(",")]
        for sch in schemes:
            for tol in o.tols.split(","):
                out = os.path.join(tmp, "main.h5")
                sets = msets + SCHEMES[sch] + ["integrator.atol=" + tol,
                                                "integrator.rtol=" + tol,
                                                "integrator.assess_error=true"]
                j, err = run(o.mbsim, deck, sets, out, o.timeout, True)
                if not j or j.get("status") != "complete":
                    why = j.get("message") if j else err
                    print(name, sch, tol, "main run failed:", str(why)[:120], flush=True)
                    continue
                est, fac = j["global_error_position"], j["global_error_factor"]
                warned = any("global error" in w for w in j["warnings"])
                if est is None:
                    print(name, sch, tol, "not assessed:", j["warnings"], flush=True)
                    continue
                unit = est / fac if fac else float("nan")  # atol + rtol Y
                with h5py.File(out, "r") as f:
                    t = list(f["time"][:])
                keep = max(1, len(t) // 3000 + (len(t) % 3000 > 0))
                ts = sorted(set(t[::keep] + [t[-1]]))
                ref = os.path.join(tmp, "ref.h5")
                rs = msets + ["integrator.method=adams", "integrator.formulation=tree",
                              "integrator.atol=1e-12", "integrator.rtol=1e-12",
                              "output.times=[%s]" % ",".join(repr(x) for x in ts)]
                ok, err = run(o.mbsim, deck, rs, ref, o.timeout)
                if not ok:
                    print(name, sch, tol, "reference failed:", err[:120], flush=True)
                    continue
                true = pos_diff(o.mbsim, out, ref)
                tfac = true / unit
                print(name, sch, tol, j["steps"], "%.3g" % est, "%.3g" % fac, "%.3g" % true,
                      "%.3g" % tfac, "%.3g" % (est / true if true > 0 else float("inf")),
                      "yes" if warned else "no", "%.3g" % j["wall_time"], flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
