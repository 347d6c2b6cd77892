#!/usr/bin/python3
"""alternate.py - two builds of mbsim timed alternately on the same cases.

  bench/alternate.py REF_MBSIM NEW_MBSIM [--rounds N] [--beams]

Each round runs every case once with each build, the order of the two
builds swapped from round to round, so that the load of a shared machine
falls on both alike.  Prints, per case, the median whole-process time, the
median CPU time of the process (user + system, from wait4: on a machine
shared by more runnable processes than cores the wall times measure the
load, the CPU times much less so) and the median run-loop time (the JSON's
wall_time) of each build and the difference.  For a change that must not cost speed (issue 34's
restructuring); bench/run.sh (make bench) times one build.  --beams times
the three flexible benchmarks of issue 36 as shipped instead (the
four-bar, the lateral buckling and the rotating shaft, every sample the
deck writes).
"""
import argparse
import json
import os
import statistics
import subprocess
import tempfile
import time

CASES = {
    "slider_crank_hi": ["decks/slider_crank.yaml", "--set", "output.every=100"],
    "pendulum_lms2": ["decks/pendulum.yaml"],
    "chain32_lms2": ["decks/chain.yaml", "--set", "output.every=100", "--set",
                     "integrator.method=lms2"],
    "stiff_dp_rn4": ["decks/stiff_double_pendulum.yaml"],
    "four_link_hi": ["decks/four_link.yaml", "--set", "output.every=100"],
    "pendulum_1step": ["decks/pendulum.yaml", "--set", "time.end=1e-3"],
}


BEAM_CASES = {
    "flexible_four_bar": ["decks/flexible_four_bar.yaml"],
    "lateral_buckling": ["decks/lateral_buckling.yaml"],
    "rotating_shaft": ["decks/rotating_shaft.yaml"],
}

def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("ref")
    ap.add_argument("new")
    ap.add_argument("--rounds", type=int, default=9)
    ap.add_argument("--beams", action="store_true", help="the flexible benchmarks (issue 36)")
    a = ap.parse_args()
    cases = BEAM_CASES if a.beams else CASES
    builds = {"ref": a.ref, "new": a.new}
    proc = {(c, b): [] for c in cases for b in builds}
    loop = {(c, b): [] for c in cases for b in builds}
    cpu = {(c, b): [] for c in cases for b in builds}
    with tempfile.TemporaryDirectory() as tmp:
        for r in range(a.rounds):
            for c, args in cases.items():
                for b in (("ref", "new") if r % 2 == 0 else ("new", "ref")):
                    t0 = time.perf_counter()
                    p = subprocess.Popen([builds[b], "run"] + args +
                                         ["-o", os.path.join(tmp, b + ".h5"), "--force", "--json"],
                                         stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
                    out = p.stdout.read()
                    _, status, ru = os.wait4(p.pid, 0)
                    proc[(c, b)].append(time.perf_counter() - t0)
                    if os.waitstatus_to_exitcode(status) != 0:
                        raise SystemExit("%s failed on %s" % (builds[b], c))
                    cpu[(c, b)].append(ru.ru_utime + ru.ru_stime)
                    loop[(c, b)].append(json.loads(out)["wall_time"])
    for c in cases:
        pr, pn = (statistics.median(proc[(c, b)]) for b in ("ref", "new"))
        cr, cn = (statistics.median(cpu[(c, b)]) for b in ("ref", "new"))
        lr, ln = (statistics.median(loop[(c, b)]) for b in ("ref", "new"))
        print("%-18s process %.4f -> %.4f s (%+.1f %%)   CPU %.4f -> %.4f s (%+.1f %%)   "
              "loop %.4f -> %.4f s (%+.1f %%)" % (
                  c, pr, pn, 100 * (pn - pr) / pr, cr, cn, 100 * (cn - cr) / cr,
                  lr, ln, 100 * (ln - lr) / lr))


if __name__ == "__main__":
    main()
