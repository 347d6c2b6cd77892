#!/bin/sh
# t-units.sh - units per element and a bushing's signed deflection
# (mbsim-output(5)): a series whose units attribute lists several ("N or
# N m") names with its attribute element_units a table of one unit a
# column, by the element's type and, for motors and joints, by the joint's
# type; /forces/bushing_deflection holds a bushing's displacement and
# rotation signed in its own axes, where /forces/deflection is only the
# length and cannot tell compression from extension.
# Usage: MBSIM=build/mbsim sh tests/t-units.sh (from the source root)

# shellcheck source=tests/lib.sh
. "$(dirname "$0")/lib.sh"

# 1. the tables against the types mbsim-output(5) lists
expect_rc 0 "rate.yaml: motors on a revolute and a translational joint" "$MBSIM" run \
	"$top/tests/forces/rate.yaml" --set time.end=0.01 -o "$tmp/rate.h5" -q
expect_rc 0 "pend_rsda.yaml" "$MBSIM" run "$top/tests/forces/pend_rsda.yaml" --set time.end=0.01 \
	-o "$tmp/rsda.h5" -q
expect_rc 0 "slider_crank_friction.yaml" "$MBSIM" run "$decks/slider_crank_friction.yaml" \
	--set time.end=0.01 -o "$tmp/fr.h5" -q
pycheck "forces: deflection, rate, effort units per element, by type and joint" '
want = {"tsda": ("m", "m/s", "N"), "rsda": ("rad", "rad/s", "N m"), "friction": ("-", "m/s", "N"),
        "bushing": ("m", "m/s", "-"), "tire": ("m", "m/s", "N"), "force": ("-", "-", "-"),
        "torque": ("-", "-", "-")}
bad, seen = [], set()
for p in ("'"$tmp/rate.h5"'", "'"$tmp/rsda.h5"'", "'"$tmp/fr.h5"'"):
    f = h5py.File(p, "r")
    names = [n.decode() for n in f["forces/names"][:]]
    types = [n.decode() for n in f["forces/type_names"][:]]
    got = [[u.decode() for u in f["forces/%s_units" % q][:]] for q in ("deflection", "rate", "effort")]
    for q in ("deflection", "rate", "effort"):
        if f["forces/" + q].attrs["element_units"].decode() != "/forces/%s_units" % q:
            bad.append((p, q, "attribute"))
    for i, (n, t) in enumerate(zip(names, types)):
        w = want.get(t)
        if t == "motor":   # rate.yaml: spin on the revolute axle, push on the rail
            w = ("rad", "rad/s", "N m") if n == "spin" else ("m", "m/s", "N")
        seen.add(t)
        if tuple(g[i] for g in got) != w:
            bad.append((n, t, [g[i] for g in got], w))
ok = not bad and {"motor", "rsda", "friction"} <= seen
msg = "%s seen %s" % (bad, seen)'
expect_rc 0 "slider-crank (four joint types, a rotation driver)" "$MBSIM" run \
	"$decks/slider_crank.yaml" --set time.end=0.01 -o "$tmp/sc.h5" -q
pycheck "joints: coordinate units rad, -, -, m; the driver: N m" '
f = h5py.File("'"$tmp/sc.h5"'", "r")
ju = [u.decode() for u in f["joints/coordinate_units"][:]]
du = [u.decode() for u in f["drivers/effort_units"][:]]
ok = (ju == ["rad", "-", "-", "m"] and du == ["N m"] and
      f["drivers/effort"].attrs["element_units"].decode() == "/drivers/effort_units" and
      f["drivers/multiplier"].attrs["element_units"].decode() == "/drivers/effort_units" and
      f["joints/coordinate"].attrs["element_units"].decode() == "/joints/coordinate_units")
msg = "%s %s" % (ju, du)'

# 2. the bushing of tests/forces/bushing.yaml at its static equilibrium
# (run --from-static: at rest there): the deck's hand values, z =
# -(m g - P)/kz = -0.003405 m (compression), rotation about x T/kr = 0.01
# rad; with gravity reversed z = -(-m g - P)/kz = +0.006405 m (extension).
# /forces/deflection is |d| in both and cannot tell the two apart.
for c in "down -9.81 -0.003405" "up 9.81 0.006405"; do
	set -- $c
	expect_rc 0 "bushing, gravity $1, from its equilibrium" "$MBSIM" run \
		"$top/tests/forces/bushing.yaml" --from-static --set "gravity=[0, 0, $2]" \
		--set time.end=0.01 -o "$tmp/b$1.h5" -q
	pycheck "bushing, gravity $1: z $3 m, rotation about x 0.01 rad, signed (1e-9)" '
f = h5py.File("'"$tmp/b$1.h5"'", "r")
d = f["forces/bushing_deflection"][:, 0, :]
L = f["forces/deflection"][:, 0]
want = np.array([0, 0, '"$3"', 0.01, 0, 0])
ok = (np.abs(d - want).max() <= 1e-9 and np.abs(L - abs('"$3"')).max() <= 1e-9 and
      f["forces/bushing_deflection"].attrs["units"].decode() == "m and rad")
msg = "%s %s" % (d[-1], L[-1])'
done
pycheck "no bushing, no bushing_deflection" '
ok = "bushing_deflection" not in h5py.File("'"$tmp/rate.h5"'", "r")["forces"]'

finish
