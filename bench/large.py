#!/usr/bin/python3
"""Large-model benchmark (issue 17): decks/pendulum_array.yaml at N = 1e3,
1e4, 1e5 pendulums; one CSV row per N.  Run by bench/run.sh (make bench);
alone: /usr/bin/python3 bench/large.py MBSIM OUT.csv REPEAT [N...]

Per N, whole `mbsim run` processes (h = 1e-3, so time.end = 0.01 is 10
steps), each the median of REPEAT runs (at most 3 at N >= 1e5):
  run10    10 steps, output every step      the issue's goal: < 10 s at 1e5
  run10q   10 steps, output every 1000th    (writes the first and last sample)
  run60q   60 steps, output every 1000th
  run60    60 steps, output every step
and `mbsim check` (read, build, model_finalize).  Derived:
  step_us      (run60q - run10q) / (50 N): run-loop cost per body-step
  output_us    (run60 - run60q) / ((samples60 - samples60q) N): writing
               cost per body-sample
  setup_s      run10q - 10 N step_us: start, deck, build, solver set-up,
               assembly, file creation (two samples are left in it)
  peak_kb      the largest resident set of the run10 processes (GNU time)
  per_body_b   peak_kb * 1024 / N
  buffer_kb    the output buffer of run10: the most bytes of samples the
               writer kept in memory at once (`run --json`,
               output_buffer_bytes; "-" from a build without it)
  per_body_wo_buffer   (peak_kb - buffer_kb) * 1024 / N: issue 17's goal,
               under 4096
  step_cpu_us, output_cpu_us   the same differences of CPU time (user +
               system, GNU time): on a shared machine less noisy than wall
               time, and blind to waiting for the disk
"""
import json, os, statistics, subprocess, sys, tempfile, time

DECK = "decks/pendulum_array.yaml"


def run(mbsim, args, h5):
    """Wall time, JSON summary (or None), peak RSS in KB, CPU s of one process."""
    cmd = ["/usr/bin/time", "-f", "%M %U %S", mbsim] + args
    if args[0] == "run":
        cmd += ["-o", h5, "--json"]
    t0 = time.perf_counter()
    p = subprocess.run(cmd, capture_output=True, text=True)
    dt = time.perf_counter() - t0
    if p.returncode != 0:
        sys.exit("bench/large.py: %s failed (exit %d): %s" % (" ".join(args), p.returncode,
                                                            p.stderr.strip()[-500:]))
    rss, user, sys_ = p.stderr.strip().splitlines()[-1].split()
    return (dt, (json.loads(p.stdout) if args[0] == "run" else None), int(rss),
            float(user) + float(sys_))


def case(mbsim, n, rep, h5):
    base = ["--set", "parameters.N=%d" % n]
    variants = {
        "run10": ["run", DECK] + base + ["--set", "time.end=0.01", "--set", "output.every=1"],
        "run10q": ["run", DECK] + base + ["--set", "time.end=0.01", "--set", "output.every=1000"],
        "run60q": ["run", DECK] + base + ["--set", "time.end=0.06", "--set", "output.every=1000"],
        "run60": ["run", DECK] + base + ["--set", "time.end=0.06", "--set", "output.every=1"],
        "check": ["check", DECK] + base,
    }
    t, js, rss, cpu = {}, {}, {}, {}
    for name, args in variants.items():
        res = [run(mbsim, args, h5) for _ in range(rep)]
        t[name] = statistics.median(r[0] for r in res)
        cpu[name] = statistics.median(r[3] for r in res)
        js[name] = res[-1][1]
        rss[name] = max(r[2] for r in res)
        if os.path.exists(h5):
            os.remove(h5)
    step_us = 1e6 * (t["run60q"] - t["run10q"]) / (50 * n)
    ds = js["run60"]["samples"] - js["run60q"]["samples"]
    out_us = 1e6 * (t["run60"] - t["run60q"]) / (ds * n)
    setup = t["run10q"] - 10 * n * step_us * 1e-6
    step_cpu = 1e6 * (cpu["run60q"] - cpu["run10q"]) / (50 * n)
    out_cpu = 1e6 * (cpu["run60"] - cpu["run60q"]) / (ds * n)
    buf = js["run10"].get("output_buffer_bytes")
    buf_kb = "-" if buf is None else "%d" % (buf // 1024)
    wo = "-" if buf is None else "%d" % ((rss["run10"] * 1024 - buf) // n)
    return ("%d,%.3f,%.3f,%.3f,%.3f,%.3f,%.3f,%d,%d,%.3g,%.3f,%.3f,%s,%s" %
            (n, t["check"], setup, t["run10"], step_us, out_us, t["run60"], rss["run10"],
             rss["run10"] * 1024 // n, js["run60"]["max_position_residual"], step_cpu, out_cpu,
             buf_kb, wo))


def main():
    mbsim, out, rep = sys.argv[1], sys.argv[2], int(sys.argv[3])
    ns = [int(float(a)) for a in sys.argv[4:]] or [1000, 10000, 100000]
    with open(out, "w") as f:
        f.write("N,check_s,setup_s,run10_s,step_us_per_body,output_us_per_body_sample,"
                "run60_s,peak_kb,per_body_bytes,max_position_residual,step_cpu_us_per_body,"
                "output_cpu_us_per_body_sample,buffer_kb,per_body_wo_buffer\n")
    h5 = os.path.join(tempfile.mkdtemp(), "large.h5")
    for n in ns:
        row = case(mbsim, n, min(rep, 3) if n >= 100000 else rep, h5)
        with open(out, "a") as f:
            f.write(row + "\n")
        print(row, flush=True)
    os.rmdir(os.path.dirname(h5))


if __name__ == "__main__":
    main()
