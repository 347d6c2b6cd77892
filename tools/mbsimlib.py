"""mbsimlib.py - routines shared by the scripts in tools/.

The scripts run as `/usr/bin/python3 tools/NAME.py`, so this directory is
first on sys.path and `import mbsimlib` finds this file.

  say, TOP, mbsim_exe    the study scripts (study000.py, spectral_plots.py)
  reference_parser, sample_times, reference_file, write_body
                         the reference solutions (double_pendulum_ref.py,
                         andrews_ref.py), written in mbsim's HDF5 layout
                         (man/mbsim-output.5) so that `mbsim compare` and
                         `mbsim converge --reference FILE.h5` read them
"""
import argparse
import contextlib
import os
import sys

import h5py
import numpy as np

TOP = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def say(msg):
    """A progress line on stderr."""
    print(msg, file=sys.stderr, flush=True)


def mbsim_exe(path, prog):
    """Absolute path of the mbsim binary PATH; exit naming PROG if it is missing."""
    exe = os.path.abspath(path)
    if not os.access(exe, os.X_OK):
        sys.exit("%s: %s not found; build it first (make)" % (prog, exe))
    return exe


def reference_parser(doc, output, dt, t_end):
    """Options every reference tool takes: -o, --dt, --t-end, --rtol (DOP853's
    rtol = atol, 1e-13 by default)."""
    ap = argparse.ArgumentParser(description=doc.split("\n")[0])
    ap.add_argument("-o", "--output", default=output)
    ap.add_argument("--dt", type=float, default=dt, help="sample interval, s")
    ap.add_argument("--t-end", type=float, default=t_end)
    ap.add_argument("--rtol", type=float, default=1e-13)
    return ap


def sample_times(t_end, dt):
    """0, dt, 2 dt, ... up to t_end, the last sample exactly at t_end."""
    n = int(round(t_end / dt))
    t = np.arange(n + 1) * dt
    t[-1] = t_end
    return t


@contextlib.contextmanager
def reference_file(path, t, info, deck):
    """Open PATH for writing with /time = T; on leaving the block without an
    error, set the root attributes integrator = INFO, deck = DECK and
    status = "complete"."""
    with h5py.File(path, "w") as f:
        f.create_dataset("time", data=t).attrs["units"] = "s"
        yield f
        f.attrs["integrator"] = info
        f.attrs["deck"] = deck
        f.attrs["status"] = "complete"


def write_body(f, name, pos, vel, quat, angvel):
    """/bodies/NAME/{position,velocity,orientation,angular_velocity}, (N, 3)
    or (N, 4) for the quaternion (w, x, y, z)."""
    g = f.create_group("bodies/" + name)
    g.create_dataset("position", data=pos).attrs["units"] = "m"
    g.create_dataset("velocity", data=vel).attrs["units"] = "m/s"
    g.create_dataset("orientation", data=quat).attrs["units"] = "1"
    g.create_dataset("angular_velocity", data=angvel).attrs["units"] = "rad/s"


def series(f, path):
    """The series PATH of an open mbsim output file F, samples first, as a
    numpy array: 'time', 'bodies/NAME/position', 'joints/NAME/coordinate',
    'drivers/NAME/effort', 'energy/total', ...  Tests and tools read
    results through this one function, so that they follow the layout of
    man/mbsim-output.5 whatever its version."""
    path = path.strip("/")
    if path.startswith("drivers/") and path not in f:
        path = "joints/" + path[len("drivers/"):]
    return f[path][()]
