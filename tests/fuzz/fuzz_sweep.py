#!/usr/bin/python3
"""fuzz_sweep.py - random hostile arguments through tools/sweep's argument handling.

  tests/fuzz/fuzz_sweep.py SECONDS [--seed S] [--runner-every N]

Each execution draws one command line of grid arguments (1 to 3 keys, each
with a list of values or a range) and an outdir, deck and mbsim path, all
built from an alphabet of what a shell would act on (quotes, $( ), back
quotes, ; & | < > * ? ~ # !, blanks, tabs, leading dashes, backslashes,
= : ,), line breaks, NUL, DEL, other control characters and non-ASCII
text, and runs them through the sweep's own functions in process
(grid_pairs, grid, run_argv, yaml_scalar, write_runs).  A finding is any
of:
  - an exception other than the usage exit (SystemExit 64), or that exit
    for arguments that hold nothing it refuses (a line break or NUL in a
    grid argument, a bad range, an empty or repeated value, a key given
    twice);
  - a value that does not come back from its --set argument as the same
    text: libyaml (PyYAML's CSafeLoader, the parser mbsim links) composing
    the scalar written after KEY= must give the value exactly;
  - a run name outside [A-Za-z0-9.+=_-], longer than NAME_MAX plus its run
    number, or two runs with one name;
  - an argument file (DIR/runs/N.args) whose lines are not exactly the log
    file and the argument vector;
  - every --runner-every executions (default 500), DIR/runs/run executed
    by bash with a fake mbsim that writes the arguments it receives: they
    must be the argument vector, byte for byte, and nothing else may have
    run (a marker file that an injected command would create is checked).
Exit 0 with the number of executions; 1 on a finding, which is printed
with the seed and execution that replay it.
"""
import argparse
import importlib.machinery
import importlib.util
import os
import random
import re
import shutil
import subprocess
import sys
import tempfile
import time

import yaml

TOP = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
loader = importlib.machinery.SourceFileLoader("sweep", os.path.join(TOP, "tools", "sweep"))
spec = importlib.util.spec_from_loader("sweep", loader)
sweep = importlib.util.module_from_spec(spec)
loader.exec_module(sweep)

HOSTILE = ["'", '"', "$(", ")", "`", ";", "&", "|", "<", ">", "*", "?", "~", "#", "!", " ",
           "\t", "-", "--", "\\", "=", ":", ",", "$HOME", "${x}", "%", "@", "{", "}", "[",
           "]", "\r", "\x7f", "\x01", "\x1b", "é", "中", "\u2028", "😀", ".", "+", "e", "1",
           "0", "x", "touch MARK", "\n", "\0", "\x85", "\u2029", "\ufeff", "yes", "null", "~", "&a", "*a", "!!str", "- "]
NAME_RE = re.compile(r"[A-Za-z0-9.+=_-]+")


def text(rng, n=6):
    return "".join(rng.choice(HOSTILE) for _ in range(rng.randint(1, n)))


def spec_text(rng):
    r = rng.random()
    if r < 0.15:  # a range, good or bad
        parts = [rng.choice(["0", "1", "-1", "1e3", "x", "", "inf", "nan", "2"]) for _ in range(3)]
        if rng.random() < 0.3:
            parts.append(rng.choice(["log", "lin", ""]))
        return ":".join(parts)
    return ",".join(text(rng) for _ in range(rng.randint(1, 3)))


def refusable(g):
    """Could grid argument G be refused?  (Anything but a well-formed list.)"""
    key, eq, sp = g.partition("=")
    return (not eq or not key or not sp or "\n" in g or "\0" in g or ":" in sp
            or "" in sp.split(",") or len(set(sp.split(","))) != len(sp.split(",")))


class Finding(Exception):
    pass


def check_value(v):
    s = sweep.yaml_scalar(v)
    node = yaml.compose(s, Loader=yaml.CSafeLoader)
    if not isinstance(node, yaml.ScalarNode) or node.value != v:
        raise Finding("value %r written as %r reads back as %r" % (v, s, getattr(node, "value", node)))


def one(rng, work, runner):
    gargs = [text(rng, 4) + "=" + spec_text(rng) for _ in range(rng.randint(1, 3))]
    try:
        pairs = sweep.grid_pairs(gargs)
        runs = sweep.grid(pairs)
    except SystemExit as e:
        if e.code != sweep.EXIT_USAGE:
            raise Finding("exit %r for %r" % (e.code, gargs))
        keys = [g.partition("=")[0] for g in gargs]
        if not any(refusable(g) for g in gargs) and len(set(keys)) == len(keys):
            # only the product's repeats are left to refuse: none here
            raise Finding("usage exit for arguments it should take: %r" % gargs)
        return
    for _, vals in pairs:
        for v in vals:
            check_value(v)
    names = [n for n, _ in runs]
    if len(set(names)) != len(names):
        raise Finding("two runs named alike: %r" % names)
    for n in names:
        if not NAME_RE.fullmatch(n) or len(n) > sweep.NAME_MAX + 1 + len(str(len(runs))):
            raise Finding("run name %r" % n)
    outdir = os.path.join(work, "d" + text(rng, 3).replace("/", "-").replace("\0", "-")
                          .replace("\n", "-"))
    deck = os.path.join(work, text(rng, 3).replace("\0", "-").replace("\n", "-") + ".yaml")
    mbsim = runner if runner else os.path.join(work, "mbsim")
    extra = ["--set", text(rng, 3).replace("\0", "-").replace("\n", "-")] if rng.random() < 0.3 else []
    argvs = [sweep.run_argv(mbsim, deck, outdir, n, sets, extra) for n, sets in runs]
    if not runner and rng.random() > 0.02:
        return
    sweep.write_runs(outdir, mbsim, runs, argvs, extra)
    for i, argv in enumerate(argvs):
        with open(os.path.join(outdir, "runs", "%d.args" % i), "rb") as f:
            lines = f.read().split(b"\n")
        want = [os.fsencode(x) for x in [os.path.join(outdir, runs[i][0] + ".log")] + argv] + [b""]
        if lines != want:
            raise Finding("runs/%d.args holds %r, not %r" % (i, lines, want))
    if runner:
        p = subprocess.run(["bash", os.path.join(outdir, "runs", "run")] +
                           [str(i) for i in range(len(argvs))], cwd=work,
                           stdin=subprocess.DEVNULL, capture_output=True, check=False)
        for i, argv in enumerate(argvs):
            log = os.path.join(outdir, runs[i][0] + ".log")
            with open(log, "rb") as f:
                got = f.read().split(b"\0")[:-1]
            if got != [os.fsencode(x) for x in argv[1:]]:
                raise Finding("run %d received %r, not %r (stderr %r)" % (i, got, argv[1:], p.stderr))
        if os.path.exists(os.path.join(work, "MARK")) or os.path.exists(os.path.join(outdir, "MARK")):
            raise Finding("an argument ran a command: MARK exists")
    shutil.rmtree(outdir, ignore_errors=True)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("seconds", type=float)
    ap.add_argument("--seed", type=int, default=int(time.time()))
    ap.add_argument("--runner-every", type=int, default=500)
    a = ap.parse_args()
    work = tempfile.mkdtemp(prefix="fuzz-sweep.")
    fake = os.path.join(work, "fake-mbsim")
    with open(fake, "w") as f:  # writes its arguments, NUL-terminated, to stdout (the log)
        f.write("#!/bin/sh\nfor a in \"$@\"; do printf '%s\\0' \"$a\"; done\n")
    os.chmod(fake, 0o755)
    rng = random.Random(a.seed)
    n, t0 = 0, time.time()
    sys.stderr = open(os.devnull, "w")  # the sweep's usage messages
    try:
        while time.time() - t0 < a.seconds:
            n += 1
            try:
                one(rng, work, fake if n % a.runner_every == 0 else None)
            except Finding as e:
                print("fuzz_sweep: FINDING at execution %d of --seed %d: %s" % (n, a.seed, e))
                return 1
            except Exception as e:  # noqa: BLE001 - any other exception is a finding too
                print("fuzz_sweep: FINDING at execution %d of --seed %d: %r" % (n, a.seed, e))
                return 1
    finally:
        shutil.rmtree(work, ignore_errors=True)
    print("fuzz_sweep: %d executions in %.0f s (seed %d), no finding" % (n, time.time() - t0, a.seed))
    return 0


if __name__ == "__main__":
    sys.exit(main())
