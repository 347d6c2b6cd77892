"""mbsimlib.py - routines shared by the scripts in tools/.

The scripts run as `/usr/bin/python3 tools/NAME.py`, so this directory is
first on sys.path and `import mbsimlib` finds this file.

  say, TOP, mbsim_exe    the study scripts (study000.py, spectral_plots.py)
  run_summary, short     the --json summary of an `mbsim run` and command
                         lines for the record (study001_tables.py,
                         study001_vehicle.py)
  reference_parser, sample_times, reference_file, write_bodies,
  write_joint_coordinates
                         the reference solutions (double_pendulum_ref.py,
                         andrews_ref.py), written in mbsim's HDF5 layout
                         (man/mbsim-output.5) so that `mbsim compare` and
                         `mbsim converge --reference FILE.h5` read them
  series, text           reading a result series by its logical name
  split_quantity, component, units
                         a quantity PATH[:COMP] as mbsim's --quantity takes
                         it, its column and its units (plot.py,
                         tests/csv_check.py)
  rotation               rotation matrices of orientation quaternions
                         (animate.py, four_bar_ref.py, tests/xdmf_check.py)
"""
import argparse
import contextlib
import json
import os
import sys

import h5py
import numpy as np

TOP = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def rotation(q):
    """Rotation matrices (n, 3, 3), body to global, of unit quaternions (n, 4) (w, x, y, z)."""
    w, x, y, z = q[:, 0], q[:, 1], q[:, 2], q[:, 3]
    return np.stack([
        np.stack([1 - 2 * (y * y + z * z), 2 * (x * y - w * z), 2 * (x * z + w * y)], -1),
        np.stack([2 * (x * y + w * z), 1 - 2 * (x * x + z * z), 2 * (y * z - w * x)], -1),
        np.stack([2 * (x * z - w * y), 2 * (y * z + w * x), 1 - 2 * (x * x + y * y)], -1),
    ], -2)


def say(msg):
    """A progress line on stderr."""
    print(msg, file=sys.stderr, flush=True)


def mbsim_exe(path, prog):
    """Absolute path of the mbsim binary PATH; exit naming PROG if it is missing."""
    exe = os.path.abspath(path)
    if not os.access(exe, os.X_OK):
        sys.exit("%s: %s not found; build it first (make)" % (prog, exe))
    return exe


def run_summary(p):
    """The --json summary of an `mbsim run ... --json`, P its completed
    process (text output): status "failed" when it exits non-zero or prints
    no JSON, the message then stderr's tail unless the JSON has one."""
    try:
        j = json.loads(p.stdout)
    except ValueError:
        j = {"status": "failed", "message": (p.stderr or p.stdout).strip()[-300:]}
    if p.returncode != 0:
        j["status"] = "failed"
        j.setdefault("message", p.stderr.strip()[-300:])
    return j


def short(path):
    """PATH relative to the current directory when it lies below it."""
    r = os.path.relpath(path)
    return path if r.startswith("..") else r


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


LAYOUT_VERSION = 2


def text(v):
    """A string attribute or table entry: h5py returns bytes for fixed-length strings."""
    return v.decode() if isinstance(v, bytes) else str(v)


@contextlib.contextmanager
def reference_file(path, t, info, deck):
    """Open PATH for writing with /time = T; on leaving the block without an
    error, set the root attributes integrator = INFO, layout_version and
    status = "complete", and the dataset /deck = DECK."""
    with h5py.File(path, "w") as f:
        f.create_dataset("time", data=t).attrs["units"] = "s"
        yield f
        f.attrs["integrator"] = info
        f.attrs["layout_version"] = LAYOUT_VERSION
        f.create_dataset("deck", data=np.bytes_(deck.encode()))
        f.attrs["status"] = "complete"


def _named(f, group, names):
    """The names table GROUP/names (fixed-length strings)."""
    f.create_dataset(group + "/names", data=np.array([n.encode() for n in names], dtype="S"))


def _series(f, path, data, units, group):
    ds = f.create_dataset(path, data=data)
    ds.attrs["units"] = units
    ds.attrs["names"] = np.bytes_(("/%s/names" % group).encode())
    return ds


def write_bodies(f, names, pos, vel, quat, angvel):
    """/bodies/names and /bodies/{position,velocity,orientation,angular_velocity}
    of shape (N, bodies, 3), or (N, bodies, 4) for the quaternions (w, x, y, z)."""
    _named(f, "bodies", names)
    for qty, data, units in (("position", pos, "m"), ("velocity", vel, "m/s"),
                             ("orientation", quat, "1"), ("angular_velocity", angvel, "rad/s")):
        _series(f, "bodies/" + qty, np.asarray(data, dtype=float), units, "bodies")


def write_joint_coordinates(f, names, coord, units, desc):
    """/joints/names and /joints/coordinate of shape (N, joints)."""
    _named(f, "joints", names)
    _series(f, "joints/coordinate", np.asarray(coord, dtype=float), units,
            "joints").attrs["description"] = desc


def series(f, path):
    """The series PATH of an open mbsim output file F, samples first, as a
    numpy array: 'time', 'bodies/NAME/position', 'joints/NAME/coordinate',
    'drivers/NAME/effort', 'energy/total', ...  Tests and tools read
    results through this one function, so that they follow the layout of
    man/mbsim-output.5 whatever its version: GROUP/NAME/QTY is NAME's
    slice of GROUP/QTY, whose attribute "names" names the table of its
    second axis (and "offsets", when present, the table of NAME's columns);
    a file of the first layout has datasets at those paths, and its
    drivers under joints/.  A series has the samples of /time: a run
    killed during a flush may have left more rows, which are dropped."""
    path = path.strip("/")
    if path in f and isinstance(f[path], h5py.Dataset):
        return _samples(f, f[path][()])
    parts = path.split("/")
    if len(parts) < 3:
        raise KeyError("no series '%s'" % path)
    group, name, qty = parts[0], "/".join(parts[1:-1]), parts[-1]
    if group == "drivers" and group + "/" + qty not in f:
        return series(f, "joints/%s/%s" % (name, qty))          # the first layout
    ds = f[group + "/" + qty]
    names = [text(n) for n in f[text(ds.attrs["names"])][()]]
    if name not in names:
        raise KeyError("no series '%s': '%s' is not in %s" % (path, name, text(ds.attrs["names"])))
    k = names.index(name)
    if "offsets" in ds.attrs:
        o = f[text(ds.attrs["offsets"])][()]
        return _samples(f, ds[:, o[k]:o[k + 1]])
    return _samples(f, ds[:, k] if ds.ndim == 2 else ds[:, k, :])


def _samples(f, a):
    """The first len(/time) rows of A: a run killed during a flush may
    leave series longer than /time, which is written last (src/io/h5.h)."""
    n = f["time"].shape[0] if "time" in f else None
    return a[:n] if getattr(a, "ndim", 0) >= 1 else a


def split_quantity(spec):
    """PATH[:COMP] -> (PATH, COMP or None), cut at the last ':' when the word
    after it holds no '/' (a ':' in a body's name belongs to the path), as
    mbsim's --quantity (cli_comp_split)."""
    path, sep, comp = spec.rpartition(":")
    if not sep or "/" in comp or not path:
        return spec.strip("/"), None
    return path.strip("/"), comp


def component(path, comp, ncols):
    """The column of the word COMP in a series PATH of NCOLS columns, as mbsim
    reads it (cli_comp_col): x, y, z the columns 0, 1, 2 (1, 2, 3 after w in
    an orientation quaternion (w, x, y, z)), w column 0 of a quaternion, a
    number its index; None when there is no such column."""
    quat = ncols == 4 and path.endswith("/orientation")
    if comp in ("x", "y", "z"):
        k = "xyz".index(comp) + (1 if quat else 0)
    elif comp == "w":
        k = 0 if quat else None
    elif comp and comp.isdigit():
        k = int(comp)
    else:
        k = None
    return k if k is not None and k < ncols else None


def units(f, path):
    """The "units" attribute of the series PATH ('bodies/rod/position': that
    of /bodies/position), '' when it has none."""
    path = path.strip("/")
    if path in f and isinstance(f[path], h5py.Dataset):
        ds = f[path]
    else:
        parts = path.split("/")
        key = parts[0] + "/" + parts[-1]
        if len(parts) < 3 or key not in f:
            return ""
        ds = f[key]
    return text(ds.attrs.get("units", ""))


def names(f, group):
    """The names of GROUP ('bodies', 'joints', 'drivers') in file order."""
    if group + "/names" in f:
        return [text(n) for n in f[group + "/names"][()]]
    return sorted(f[group].keys()) if group in f else []          # the first layout
