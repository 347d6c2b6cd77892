#!/usr/bin/python3
"""matrix.py - the cross-validation matrix: every deck x every scheme and
formulation that mbsim takes for it, each compared with a reference run of
the same deck (docs/results/matrix.md explains the bound).

  tools/matrix.py [--mbsim build/mbsim] [--jobs 2] [--out docs/results/matrix.md]
                  [--decks D.yaml ...] [--schemes hi,lms2,...] [--budget S]

A cell is one (deck, scheme, formulation).  Each is run twice, at its step
h and at h/2 (tolerance tol and tol/10 for the error-controlled adams and
bdf), on the samples of the reference.  With d the largest difference of the
two runs, the cell agrees when its distance e from the reference is within

    B = S * d * 2^p / (2^p - 1) + floor,   S = 4,

for every quantity (Richardson: a scheme of order p has e(h) = d 2^p/(2^p-1)
to leading order; S covers any order down to 1 and a run not yet in its
asymptotic range), and when halving the step does not move the positions
and velocities away from the reference.  floor is the reference's own
uncertainty (its distance from the same scheme at twice its step) plus
1e-6 of the quantity's largest value (below that the reference is not
resolved: its Newton tolerance 1e-10 on stiff models).  The exit status is 1 when a cell FAILED.
mbsim is run with argument vectors (subprocess), never through a shell.
"""
import argparse
import concurrent.futures as cf
import json
import math
import os
import re
import resource
import shutil
import subprocess
import sys
import tempfile
import time

# One BLAS thread in this process, set before numpy loads OpenBLAS (it
# reads the variable once): the tools check their decks in worker threads,
# and Debian's threaded OpenBLAS, called by numpy in one worker while
# another starts mbsim, now and then returned a product with rows missing
# -- modes_check.measure's projection counted 8 zero crossings of a run
# that has 15, and randmodel's modes property failed by 1.2e-3 to 1.4e-3
# on files that measure right alone (docs/results/matrix.md, finding 14)
os.environ["OPENBLAS_NUM_THREADS"] = "1"

import h5py  # noqa: E402
import numpy as np  # noqa: E402

import mbsimlib

TOP = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
S_SAFETY = 4.0
LEVELS = 2          # h, then h/4
RUN_TIMEOUT = 300   # s of wall time per run
# s of CPU time one mbsim process may take (RLIMIT_CPU), 0 for none: a
# bound that does not depend on the machine's load, unlike RUN_TIMEOUT;
# randmodel sets it, and counts a run stopped by it as over the limit
CPU_LIMIT = 0
BEGIN, END = "<!-- matrix table: generated -->", "<!-- matrix table: end -->"
REL_FLOOR = 1e-6
# (group, dataset, description); every one the file has is compared
QUANTITIES = [
    ("bodies", "position", "m"), ("bodies", "velocity", "m/s"),
    ("bodies", "orientation", "1"), ("bodies", "angular_velocity", "rad/s"),
    ("particles", "position", "m"), ("particles", "velocity", "m/s"),
    ("points", "position", "m"), ("points", "velocity", "m/s"),
    ("joints", "coordinate", "rad or m"),
    ("joints", "reaction_force", "N"), ("joints", "reaction_torque", "N m"),
    ("drivers", "effort", "N or N m"),
    ("forces", "effort", "N or N m"), ("forces", "force", "N"), ("forces", "torque", "N m"),
    ("measures", "value", "-"),
]
KINEMATIC = {"bodies/position", "bodies/velocity", "bodies/orientation",
             "bodies/angular_velocity", "particles/position", "particles/velocity",
             "points/position", "points/velocity", "joints/coordinate"}
REACTIONS = {"joints/reaction_force", "joints/reaction_torque"}
# The quantities made of the multipliers.  newmark with gamma = 1/2 does
# not damp them: on the index-3 equations their error at a step keeps the
# size the start gave it, whatever h (decks/spherical_top.yaml: 122 N at
# h = 2.5e-4 and 1.25e-4 s beside a largest reaction of 46 N; the mean of
# two steps 0.27 and 0.13 N), and mbsim run says so.  Those cells compare
# the other quantities only (documented rule, docs/results/matrix.md).
MULTIPLIERS = REACTIONS | {"drivers/effort"}
# the crossing times of the deck's events (not a series: one row per
# crossing, mbsim-output(5) /events); a run that finds another number of
# crossings than the reference fails
EVENTS = "events/time"

# The test decks that exercise force elements (the decks/ directory is taken whole).
TEST_DIRS = ["tests/forces", "tests/tire", "tests/beam", "tests/statics", "tests/tree",
             "tests/matrix", "tests/nsc"]


def say(msg):
    print(msg, file=sys.stderr, flush=True)


def schemes(mbsim):
    """[(name, formulations, order, constrained order, error-controlled)] of `mbsim list integrators`."""
    out = subprocess.run([mbsim, "list", "integrators"], capture_output=True, text=True,
                         check=True).stdout
    res = []
    for line in out.splitlines():
        m = re.match(r"(\S+)\s+(\S+)\s+(ra|rp|tree)\s+order (\d+) \(constrained: (\d+)", line)
        if not m:
            continue
        name, family, form = m.group(1), m.group(2), m.group(3)
        # the ODE schemes step rp and tree alike, but bdf (family ida):
        # tree's residual form only
        forms = {"ra": ["ra"], "rp": ["rp", "tree"],
                 "tree": ["tree"] if family == "ida" else ["tree", "rp"]}[form]
        res.append((name, forms, int(m.group(4)), int(m.group(5)), name in ("adams", "bdf")))
    return res


def cell_sets(scheme, form):
    """The --set arguments that choose SCHEME on FORM."""
    a = ["--set", "integrator.method=" + scheme]
    # bdf takes tree alone, by its own row; the other ODE schemes either
    if form in ("rp", "tree") and scheme != "bdf":
        a += ["--set", "integrator.formulation=" + form]
    return a


def sets(pairs):
    a = []
    for k, v in pairs:
        a += ["--set", "%s=%s" % (k, v)]
    return a


class Deck:
    """A deck copied into a work directory (its siblings linked, so curves
    and meshes are found), output.times taken out (the matrix samples on
    its own grid), and its step, start and end read."""

    def __init__(self, path, work):
        import yaml
        self.name = os.path.relpath(path, TOP) if path.startswith(TOP) else path
        self.dir = tempfile.mkdtemp(prefix="deck.", dir=work)
        src = os.path.dirname(os.path.abspath(path))
        for f in os.listdir(src):
            if not f.endswith(".yaml"):
                os.symlink(os.path.join(src, f), os.path.join(self.dir, f))
        text = open(path).read()
        text = re.sub(r"(?m)^output:\s*\{\s*times:\s*\[[^\]]*\]\s*\}\s*$", "", text)
        self.file = os.path.join(self.dir, os.path.basename(path))
        with open(self.file, "w") as f:
            f.write(text)
        d = yaml.safe_load(text) or {}
        integ = d.get("integrator") or {}
        t = d.get("time") or {}
        # numbers, not expressions of parameters: a ValueError names the deck
        self.h0 = float(integ.get("step", 1e-3))
        try:
            self.tolerance = float(integ.get("tolerance", 1e-10))
        except (TypeError, ValueError):
            self.tolerance = None
        self.t0 = float(t.get("start", 0) or 0)
        self.t_end = float(t.get("end"))
        # adams and bdf then return every step h, not every sample: events
        # are located on the run loop's step (mbsim-deck(5) EVENTS), whose
        # interpolant across a whole sample interval errs by its 4th power
        self.events = bool(d.get("events"))
        # adams and bdf also return every step h on a road (a tire): their
        # own steps are not cut by its look-ahead, which acts on adaptive
        # run-loop steps (mbsim-deck(5), tire), and across a whole sample
        # interval they stepped over tests/tire/curb_push.yaml's 40 mm bump
        # (bdf returning every 0.06 s kept the wheel on the road where it
        # is thrown 0.67 m up; every 1e-3 s it agrees to 4e-8 m with adams)
        forces = d.get("forces") or []
        self.road = any(isinstance(f, dict) and f.get("type") == "tire" for f in forces)
        self.fine = self.events or self.road
        # newmark's gamma (every named variant has 1/2); None when an expression
        try:
            self.nm_gamma = 0.5 if "variant" in integ else float(integ.get("gamma", 0.5))
        except (TypeError, ValueError):
            self.nm_gamma = None
        self.runs = 0


def limit_cpu():
    """preexec_fn of the mbsim processes: RLIMIT_CPU of CPU_LIMIT s."""
    if CPU_LIMIT:
        n = int(math.ceil(CPU_LIMIT))
        resource.setrlimit(resource.RLIMIT_CPU, (n, n + 5))


def over_cpu(p):
    """True when the process P was stopped by CPU_LIMIT (SIGXCPU, or SIGKILL at the hard limit)."""
    return bool(CPU_LIMIT) and p.returncode in (-24, -9)


def run(mbsim, deck, extra, out, timeout=RUN_TIMEOUT):
    """mbsim run DECK -o OUT --json with EXTRA arguments: (summary dict, stderr)."""
    argv = [mbsim, "run", deck.file, "-o", out, "--force", "--json"] + extra
    deck.runs += 1
    try:
        p = subprocess.run(argv, capture_output=True, text=True, timeout=timeout,
                           preexec_fn=limit_cpu if CPU_LIMIT else None)
    except subprocess.TimeoutExpired:
        return {"status": "failed", "message": "timed out after %d s" % timeout}, ""
    if over_cpu(p):
        return {"status": "failed", "over_cpu": True,
                "message": "over the CPU limit of %g s" % CPU_LIMIT}, p.stderr
    j = mbsimlib.run_summary(p)
    if not j.get("message") and j["status"] == "failed":
        j["message"] = p.stderr.strip()[-300:]
    return j, p.stderr


def check(mbsim, deck, extra):
    """None when `mbsim check` takes the deck with EXTRA, else its first message."""
    p = subprocess.run([mbsim, "check", deck.file] + extra, capture_output=True, text=True)
    if p.returncode == 0:
        return None
    msg = (p.stderr.strip().splitlines() or ["exit %d" % p.returncode])[0]
    return msg.replace(deck.file, deck.name)


def read(path):
    """{quantity: (N, k) array} of the datasets of QUANTITIES in PATH, plus
    'time' and 'redundant' (the root attribute redundant_rows)."""
    res = {}
    with h5py.File(path, "r") as f:
        n = len(f["time"])
        res["time"] = f["time"][:n]
        rr = f.attrs.get("redundant_rows", b"")
        res["redundant"] = rr.decode() if isinstance(rr, bytes) else str(rr)
        for g, q, _ in QUANTITIES:
            key = g + "/" + q
            if key in f and f[key].shape[0] >= n:
                a = np.asarray(f[key][:n], dtype=float).reshape(n, -1)
                if a.shape[1]:
                    res[key] = a
        if EVENTS in f:
            res[EVENTS] = np.asarray(f[EVENTS][:], dtype=float).reshape(-1)
    return res


def on_grid(data, times):
    """DATA restricted to the samples at TIMES (to 1e-9 of a step); None if one is missing."""
    t = data["time"]
    idx = []
    for x in times:
        i = int(np.argmin(np.abs(t - x)))
        if abs(t[i] - x) > 1e-9 * max(1.0, abs(x)):
            return None
        idx.append(i)
    out = {k: (v[idx] if isinstance(v, np.ndarray) and v.ndim == 2 else v) for k, v in data.items()}
    out["time"] = t[idx]
    return out


ORIENTATION = "bodies/orientation"


def diff(a, b, q=None):
    """max |a - b| over samples and columns (NaN in both: equal) and the sample of it.
    Quantity Q orientation: q and -q are one rotation, so each quaternion of B
    takes the sign nearer A's.  mbsim writes w >= 0 (mat_to_quat), but near a
    half turn w is about 0 and its sign, with x, y, z, flips with any error:
    tests/forces/crank_rocker_pid.yaml's crank at t = 0.6 s is (1e-5, 0, 1, 0)
    under hi and (1e-5, 0, -1, 0) in the reference, 2 apart for 1e-5 of angle."""
    if q == ORIENTATION and a.size:
        n = a.shape[0]
        a4, b4 = a.reshape(n, -1, 4), b.reshape(n, -1, 4)
        sign = np.where(np.sum(a4 * b4, axis=2, keepdims=True) < 0, -1.0, 1.0)
        b = (b4 * sign).reshape(a.shape)
    da = np.abs(a - b)
    both = np.isnan(a) & np.isnan(b)
    da[both] = 0.0
    da[np.isnan(da)] = np.inf
    if da.size == 0:
        return 0.0, 0
    i = np.unravel_index(int(np.argmax(da)), da.shape)[0]
    return float(da.max()), int(i)


def quantities(ref, *others, skip=()):
    """The quantities every file has with the same shape, but SKIP; reactions
    only when no file dropped redundant rows (they are then not unique)."""
    keys = [k for k in ref if isinstance(ref[k], np.ndarray) and k != "time"]
    keep = []
    for k in keys:
        if k in skip or any(k not in o or o[k].shape != ref[k].shape for o in others):
            continue
        if k in REACTIONS and any(x["redundant"] for x in (ref,) + others):
            continue
        keep.append(k)
    return keep


def judge(ref, unc, a, b, p, skip=()):
    """Verdict of a cell: A at h, B at h/2, REF the reference, UNC {q: its
    uncertainty}, P the order, SKIP quantities not compared.  Returns (ok,
    worst) with worst = dict of the quantity of largest e/B."""
    rich = 2.0 ** p / (2.0 ** p - 1.0) if p > 0 else 2.0
    worst = None
    ok = True
    if EVENTS in ref:
        n = [len(x.get(EVENTS, ())) for x in (a, b)]
        if n != [len(ref[EVENTS])] * 2:
            return False, {"quantity": EVENTS, "err": np.inf, "err_half": np.inf, "d": np.inf,
                           "bound": 0.0, "t": float(ref["time"][-1]), "ratio": np.inf,
                           "why": "%d and %d crossings, the reference %d" % (
                               n[0], n[1], len(ref[EVENTS]))}
    for q in quantities(ref, a, b, skip=skip):
        if not ref[q].size:  # no crossing of the events, in every run alike
            continue
        e, ie = diff(a[q], ref[q], q)
        e2, _ = diff(b[q], ref[q], q)
        d, _ = diff(a[q], b[q], q)
        fin = np.abs(ref[q][np.isfinite(ref[q])])
        scale = float(fin.max()) if fin.size else 0.0
        floor = unc.get(q, 0.0) + REL_FLOOR * max(scale, 1e-3)
        bound = S_SAFETY * d * rich + floor
        bad = not e <= bound
        why = "beyond bound"
        # halving the step must bring a kinematic quantity closer (order > 0)
        if not bad and q in KINEMATIC and e > 10 * floor and not e2 <= 0.9 * e + floor:
            bad, why = True, "h/2 no closer (%.3g vs %.3g)" % (e2, e)
        r = e / bound if bound > 0 else (0.0 if e == 0 else np.inf)
        if bad:
            r = max(r, 1.0 + 1e-12)
        item = {"quantity": q, "err": e, "err_half": e2, "d": d, "bound": bound,
                "t": float(ref[q][ie] if q == EVENTS else ref["time"][ie]), "ratio": r, "why": why if bad else ""}
        if worst is None or r > worst["ratio"]:
            worst = item
        ok = ok and not bad
    return ok, worst


def plan(deck, budget, probe_cost):
    """Step h, end time and sample stride k of the cells of DECK: the deck's
    own step, and as many of its steps as BUDGET seconds of probe cost
    (s per step of lms2) allow, at least 40, at most to its end."""
    h = deck.h0
    n_max = int(round((deck.t_end - deck.t0) / h))
    n = int(budget / max(probe_cost, 1e-7))
    n = max(40, min(n, n_max, 4000))
    k = max(1, n // 20)
    n = k * (n // k)
    return h, deck.t0 + n * h, k


# index None: a fixed-step scheme without an index setting, the last
# resort for the decks of the nonsmooth contact model, which only moreau
# takes (mbsim-deck(5), CONTACT)
REF_TRIES = [("mssth5", "ra", 2), ("mssth5", "ra", 3), ("esdirk436l2sa2", "ra", 2),
             ("adams", "rp", 0), ("bdf", "tree", 0), ("moreau", "ra", None)]
# Newton tolerance of the implicit references (the deck's when tighter;
# the deck's own when a run at this one does not complete).  At the default
# 1e-10 the index-2 mssth5 reference of decks/hmmwv14.yaml carried an error
# that grew as its step shrank, the Newton stop accumulating over the steps
# (0.107 N in a tire effort at h = 5e-5 s, 0.299 N at 2.5e-5, from index 3
# whose two steps agree to 1.5e-3 N); at 1e-12 it is 1.1e-3 N at both.
REF_NEWTON_TOL = 1e-12


def reference(mbsim, deck, h, t_end, k):
    """Reference data on the grid and its uncertainty per quantity: the
    first of REF_TRIES that completes: mssth5 (index 2, else 3) or
    esdirk436l2sa2 at h/8 against the same at h/4, else adams or bdf at
    tolerance 1e-12 against 1e-11, else (a nonsmooth deck) moreau at h/8
    against h/4.  moreau is first order: its error at h/8 is about its
    distance from h/4 (e(h/8) = d / (2 - 1)), which the uncertainty's
    S = 4 covers; its cells at h and h/2 are judged as order 1, so a cell
    agrees when its error at h is within S times 2 (h vs h/2) plus that
    floor: the three steps h, h/2 and h/8 must line up as first order."""
    newton = min(REF_NEWTON_TOL, getattr(deck, "tolerance", None) or REF_NEWTON_TOL)
    tries = [(s, f, i, t) for s, f, i in REF_TRIES for t in ((newton, None) if i else (None,))]
    for scheme, form, index, ntol in tries:
        if check(mbsim, deck, cell_sets(scheme, form)):
            continue
        outs = []
        for m in (8, 4):
            out = os.path.join(deck.dir, "ref%d.h5" % m)
            if index is None:
                extra = sets([("integrator.step", repr(h / m)), ("output.every", str(k * m))])
            elif index:
                extra = sets([("integrator.step", repr(h / m)), ("integrator.index", str(index)),
                              ("output.every", str(k * m))] +
                             ([("integrator.tolerance", repr(ntol))] if ntol else []))
            else:
                tol = repr(1e-12 if m == 8 else 1e-11)
                kk = k if deck.fine else 1
                extra = sets([("integrator.step", repr(h * k / kk)), ("output.every", str(kk)),
                              ("integrator.atol", tol), ("integrator.rtol", tol)])
            j, _ = run(mbsim, deck, cell_sets(scheme, form) + extra + sets(
                [("time.end", repr(t_end)), ("integrator.adaptive", "false")]), out)
            if j.get("over_cpu"):
                return {"over_cpu": j["message"]}
            if j["status"] != "complete":
                break
            outs.append(out)
        if len(outs) < 2:
            continue
        ref, ref2 = read(outs[0]), read(outs[1])
        # the reference's error bound from its own step-halving pair, with
        # the cells' safety S: within S times the pair's distance for any
        # order down to log2(1 + 1/S) = 0.32.  The distance alone assumed
        # order 1: mssth5 after the end of a step law (seed 38, a driver's
        # acceleration jumps at t = 0.0943 s) erred by 0.166 N m in the
        # effort at t = 0.095 s where its h/8-h/4 pair differed by 0.095
        # (order 0.65 there; 1.25e-5 s gives the value rn4, w2 and adams
        # agreed on to 1e-4)
        unc = {q: S_SAFETY * diff(ref[q], ref2[q], q)[0] for q in quantities(ref, ref2)}
        what = ("%s at h = %g s, index %d%s" % (scheme, h / 8, index,
                                                ", Newton tolerance %g" % ntol if ntol else "")
                if index else
                "%s at h = %g s (first order)" % (scheme, h / 8) if index is None else
                "%s/%s at tolerance 1e-12" % (scheme, form))
        return {"scheme": what, "ref": ref, "unc": unc, "grid": ref["time"]}
    return None


def run_pair(mbsim, deck, base, tolctl, h, t_end, k, tol):
    """The cell's two runs, at h and h/2 (TOL and TOL/10 with step k h when
    error-controlled): ([file, file], None) or (None, failure dict)."""
    outs = []
    for i in (1, 2):
        out = os.path.join(deck.dir, "%s-%d.h5" % ("-".join(base[1::2]).replace("=", ""), i))
        common = [("time.end", repr(t_end)), ("integrator.adaptive", "false")]
        if tolctl:
            t = tol / 10 ** (i - 1)
            kk = k if deck.fine else 1
            extra = sets(common + [("integrator.step", repr(h * k / kk)), ("output.every", str(kk)),
                                   ("integrator.atol", repr(t)), ("integrator.rtol", repr(t))])
        else:
            extra = sets(common + [("integrator.step", repr(h / i)), ("output.every", str(k * i))])
        j, _ = run(mbsim, deck, base + extra, out)
        if j.get("over_cpu"):
            return None, {"verdict": "over_cpu", "message": j["message"], "argv": base + extra}
        if j["status"] != "complete":
            return None, {"verdict": "FAILED", "message": "run at %s: %s" % (
                "h = %g" % (h / i) if not tolctl else "tol = %g" % t, j.get("message", "")[:300]),
                "argv": base + extra}
        outs.append(out)
    return outs, None


def run_cell(mbsim, deck, scheme, form, order, tolctl, R):
    """One cell: 'refused' with the message of mbsim check, or the judged
    comparison, on the plan of the reference R (its h, t_end and k), at the
    first of h, h/4 (tol 1e-7, 1e-9 when error-controlled)
    where both runs complete and agree; a cell that agrees at neither
    FAILED with the finer one's result."""
    base = cell_sets(scheme, form)
    msg = check(mbsim, deck, base)
    if msg:
        return {"verdict": "refused", "message": msg}
    h, t_end, k = R["h"], R["t_end"], R["k"]
    res = None
    for level in range(LEVELS):
        hh, kk, tol = h / 4 ** level, k * 4 ** level, 1e-7 / 100 ** level
        outs, res = run_pair(mbsim, deck, base, tolctl, hh, t_end, k if tolctl else kk, tol)
        if outs is None and res["verdict"] == "over_cpu":
            break
        if outs is None:
            continue
        a, b = (on_grid(read(o), R["grid"]) for o in outs)
        for o in outs:
            os.unlink(o)
        if a is None or b is None:
            res = {"verdict": "FAILED", "message": "samples not on the reference's grid"}
            continue
        p = 0 if tolctl else order
        skip = MULTIPLIERS if scheme == "newmark" and getattr(deck, "nm_gamma", 0.5) == 0.5 else ()
        ok, worst = judge(R["ref"], R["unc"], a, b, p, skip)
        setting = ("tol %g" % tol) if tolctl else ("h %g" % hh)
        if skip:
            setting += ", no multipliers"
        res = {"verdict": "agrees" if ok else "FAILED", "worst": worst, "order": p,
               "setting": setting, "tries": level + 1}
        if ok:
            break
    return res


def refused_cell(mbsim, deck, scheme, form):
    """A cell of a deck that mbsim refuses as it is and with lms2: refused
    with check's message, or FAILED when this scheme takes it (there is
    then no reference to judge it by)."""
    msg = check(mbsim, deck, cell_sets(scheme, form))
    if msg:
        return {"verdict": "refused", "message": msg}
    return {"verdict": "FAILED", "message": "no reference: the deck is refused as it is and with lms2"}


def constrained(mbsim, deck):
    """True when the deck has constraint rows (`mbsim check` says so)."""
    p = subprocess.run([mbsim, "check", deck.file], capture_output=True, text=True)
    m = re.search(r"(\d+) constraint rows", p.stdout + p.stderr)
    return bool(m and int(m.group(1)) > 0)


# seconds per step per value written per sample and Newton iteration:
# lms2 on decks/pendulum.yaml, 2.8e-6 s a step for 60 values and 2.0
# iterations on an unloaded AMD EPYC core
COST_PER_VALUE = 2.3e-8


def sample_values(path):
    """Numbers written per sample (the sum over the series of /time's length)."""
    with h5py.File(path, "r") as f:
        n = len(f["time"])
        tot = []
        f.visititems(lambda name, o: tot.append(int(np.prod(o.shape[1:])))
                     if isinstance(o, h5py.Dataset) and o.ndim >= 1 and o.shape[0] == n else None)
    return sum(tot)


def probe(mbsim, deck):
    """Seconds per step of lms2 (or the deck's scheme, when lms2 refuses
    it) at the deck's step (50 steps), estimated from the size of a sample
    and the Newton iterations a step, not from the wall clock: the plan,
    and so every verdict, must not depend on the machine's load."""
    out = os.path.join(deck.dir, "probe.h5")
    n = max(1, min(50, int(round((deck.t_end - deck.t0) / deck.h0))))
    for method in (["--set", "integrator.method=lms2"], []):  # else the deck's own
        j, _ = run(mbsim, deck, method + sets([("integrator.adaptive", "false"),
                                               ("time.end", repr(deck.t0 + n * deck.h0))]), out)
        if j["status"] == "complete":
            it = j.get("mean_newton_iterations") or 1.0
            if not math.isfinite(it):
                it = 1.0
            return COST_PER_VALUE * sample_values(out) * max(1.0, it), ""
    return None, j.get("message", "")


def deck_list(args):
    if args.decks:
        return [os.path.abspath(d) for d in args.decks]
    res = sorted(os.path.join(TOP, "decks", f) for f in os.listdir(os.path.join(TOP, "decks"))
                 if f.endswith(".yaml"))
    for d in TEST_DIRS:
        res += sorted(os.path.join(TOP, d, f) for f in os.listdir(os.path.join(TOP, d))
                      if f.endswith(".yaml"))
    return res


def prepare(mbsim, path, work, budget):
    """Deck, plan and reference of one deck, or an error string."""
    try:
        deck = Deck(path, work)
    except (OSError, ValueError, TypeError) as e:
        deck = type("Unread", (), {"name": path, "runs": 0})()
        return deck, None, "tool: time.end or integrator.step not read as numbers: %r" % e
    try:
        return prepare_deck(mbsim, deck, budget)
    except (OSError, ValueError, KeyError) as e:  # the tool's own failure, reported as such
        return deck, None, "tool: %r" % e


REFUSED = "refused as it is and with lms2: "


def prepare_deck(mbsim, deck, budget):
    # a deck without an integrator its bodies take (a statics deck with a
    # beam) is run with lms2, which the probe tries first; one refused with
    # lms2 too has every cell checked and refused (main)
    msg = check(mbsim, deck, [])
    if msg and check(mbsim, deck, cell_sets("lms2", "ra")):
        return deck, None, REFUSED + msg
    cost, msg = probe(mbsim, deck)
    if cost is None:
        return deck, None, "probe run failed: " + msg
    h, t_end, k = plan(deck, budget, cost)
    R = reference(mbsim, deck, h, t_end, k)
    if R is None:
        return deck, None, "no reference scheme completed"
    if "over_cpu" in R:
        return deck, None, "reference: " + R["over_cpu"]
    R.update(h=h, t_end=t_end, k=k, constrained=constrained(mbsim, deck))
    return deck, R, ""


def fmt(x):
    return "%.2g" % x if x is not None else "-"


def cell_text(c):
    """The table's text of a cell result C."""
    v = c["verdict"]
    if v == "agrees":
        w = c["worst"]
        return "agrees %s <= %s" % (fmt(w["err"]), fmt(w["bound"])) if w else "agrees"
    if v == "refused":
        return "refused"
    w = c.get("worst")
    if w:
        return "**FAILED** %s %s > %s at t=%.4g" % (w["quantity"], fmt(w["err"]), fmt(w["bound"]), w["t"])
    return "**FAILED** run"


def failure_line(deck, scheme, form, c):
    """One line naming deck, scheme, formulation, quantity and time of a failed cell."""
    w = c.get("worst")
    if w:
        return ("FAILED %s %s/%s at %s: %s differs by %.3g from the reference at t = %.6g s "
                "(bound %.3g; h/2 run %.3g, h vs h/2 %.3g)%s" % (
                    deck, scheme, form, c.get("setting"), w["quantity"], w["err"], w["t"], w["bound"],
                    w["err_half"], w["d"], "; " + w["why"] if w["why"] else ""))
    return "FAILED %s %s/%s: %s" % (deck, scheme, form, c.get("message", ""))


def write_table(out, results, cols, meta, errors):
    """docs/results/matrix.md: the grid, then each deck's cells in full."""
    L = ["Generated by `make matrix` (tools/matrix.py).  " + meta, "",
         "Cells: **agrees** `e <= B` (largest distance from the reference over every",
         "quantity relative to its bound, the pair of the worst quantity shown), **refused**",
         "(`mbsim check` refuses the combination; the message is in the deck's section) or",
         "**FAILED** (quantity, distance, bound, time).", ""]
    short = {"agrees": "ok", "refused": "ref", "FAILED": "**FAIL**"}
    L.append("| deck | " + " | ".join(s + "/" + f for s, f in cols) + " |")
    L.append("|---|" + "---|" * len(cols))
    for deck in sorted(results):
        row = results[deck]
        L.append("| %s | " % deck + " | ".join(short[row[c]["verdict"]] if c in row else "-"
                                                for c in cols) + " |")
    for deck, msg in sorted(errors.items()):
        L.append("| %s | %s |" % (deck, "not run: " + msg.replace("|", "/")))
    L.append("")
    for deck in sorted(results):
        row = results[deck]
        info = row.get("_info", {})
        L += ["### " + deck, "", info.get("text", ""), "",
              "| scheme/formulation | setting | result | quantity | e (h) | e (h/2) | bound | t |",
              "|---|---|---|---|---|---|---|---|"]
        for c in cols:
            if c not in row:
                continue
            r = row[c]
            w = r.get("worst") or {}
            res = r["verdict"] if r["verdict"] != "FAILED" else "**FAILED**"
            if r["verdict"] != "agrees" and not w:
                res += ": " + r.get("message", "").replace("|", "/")
            L.append("| %s/%s | %s | %s | %s | %s | %s | %s | %s |" % (
                c[0], c[1], r.get("setting", ""), res + (" (" + w["why"] + ")" if w.get("why") else ""),
                w.get("quantity", ""), fmt(w.get("err")), fmt(w.get("err_half")),
                fmt(w.get("bound")), ("%.4g" % w["t"]) if w else ""))
        L.append("")
    text = "\n".join(L) + "\n"
    # a file with the two markers keeps what is around them (the method, the findings)
    old = open(out).read() if os.path.exists(out) else ""
    if BEGIN in old and END in old:
        text = old[:old.index(BEGIN) + len(BEGIN)] + "\n" + text + old[old.index(END):]
    with open(out, "w") as f:
        f.write(text)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--mbsim", default=os.path.join(TOP, "build", "mbsim"))
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--out", default=os.path.join(TOP, "docs", "results", "matrix.md"))
    ap.add_argument("--json", help="also write every cell's result as JSON here")
    ap.add_argument("--decks", nargs="*")
    ap.add_argument("--schemes", help="comma-separated subset of the schemes")
    ap.add_argument("--budget", type=float, default=0.03,
                    help="seconds of lms2 at the deck's step one cell run may take (sets the end time)")
    args = ap.parse_args()
    mbsim = os.path.abspath(args.mbsim)
    t_start = time.time()
    work = tempfile.mkdtemp(prefix="matrix.")
    try:
        sch = schemes(mbsim)
        if args.schemes:
            want = args.schemes.split(",")
            sch = [s for s in sch if s[0] in want]
        paths = deck_list(args)
        prepared, errors, refused = {}, {}, {}
        with cf.ThreadPoolExecutor(args.jobs) as ex:
            for deck, R, err in ex.map(lambda p: prepare(mbsim, p, work, args.budget), paths):
                if err.startswith(REFUSED):
                    refused[deck.name] = deck
                elif err:
                    errors[deck.name] = err
                    say("matrix: %s: %s" % (deck.name, err))
                else:
                    prepared[deck.name] = (deck, R)
            cols = [(s, f) for s, forms, *_ in sch for f in forms]
            jobs = {}
            for name, deck in refused.items():
                for s, form in cols:
                    jobs[(name, s, form)] = ex.submit(refused_cell, mbsim, deck, s, form)
            for name, (deck, R) in prepared.items():
                for s, forms, order, corder, tolctl in sch:
                    for form in forms:
                        p = corder if R["constrained"] else order
                        jobs[(name, s, form)] = ex.submit(
                            run_cell, mbsim, deck, s, form, p, tolctl, R)
            results, failures = {}, []
            for n_done, ((name, s, form), fut) in enumerate(jobs.items()):
                if n_done and n_done % 200 == 0:  # a partial table, in case the run is stopped
                    partial = {d: dict(r, _info={"text": "(partial)"}) for d, r in results.items()}
                    write_table(args.out, partial, cols, "PARTIAL: %d of %d cells." % (
                        n_done, len(jobs)), errors)
                    say("matrix: %d of %d cells, %.0f s" % (n_done, len(jobs), time.time() - t_start))
                try:
                    c = fut.result()
                except Exception as e:  # a cell that crashed the tool is a failure too
                    c = {"verdict": "FAILED", "message": "tool: %r" % e}
                results.setdefault(name, {})[(s, form)] = c
                if c["verdict"] == "FAILED":
                    failures.append(failure_line(name, s, form, c))
        for name in refused:
            results[name]["_info"] = {"text": "every scheme refused by `mbsim check`"}
        for name, (deck, R) in prepared.items():
            results.setdefault(name, {})["_info"] = {"text": "h = %g s to t = %g s (%d samples); reference %s; %s" % (
                R["h"], R["t_end"], len(R["grid"]), R["scheme"],
                "constrained (orders: the schemes' constrained orders)" if R["constrained"] else "unconstrained")}
        runs = sum(d.runs for d, _ in prepared.values())
        wall = time.time() - t_start
        cpu = resource.getrusage(resource.RUSAGE_CHILDREN)
        cpu = cpu.ru_utime + cpu.ru_stime
        n_cells = sum(len(r) - 1 for r in results.values())
        counts = {v: sum(1 for r in results.values() for c, x in r.items()
                         if c != "_info" and x["verdict"] == v) for v in ("agrees", "refused", "FAILED")}
        meta = ("%d decks, %d cells: %d agree, %d refused, %d FAILED; %d mbsim runs, %.0f s wall "
                "with %d workers, %.0f s CPU of the runs." % (
                    len(results), n_cells, counts["agrees"], counts["refused"],
                    counts["FAILED"], runs, wall, args.jobs, cpu))
        write_table(args.out, results, cols, meta, errors)
        if args.json:
            with open(args.json, "w") as f:
                json.dump({n: {"%s/%s" % c: x for c, x in r.items() if c != "_info"}
                           for n, r in results.items()}, f, indent=1, default=float)
        for line in failures:
            print(line)
        say("matrix: " + meta)
        return 1 if failures or errors else 0
    finally:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
