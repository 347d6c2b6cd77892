#!/bin/sh
# t-shape.sh - body shapes (issue 14 item 1) as written to /shapes
# (man/mbsim-output.5): the box made from an inertia has that inertia, an
# inertia no solid box has gets edges of at least a twentieth of the
# longest, primitives and mesh files (ASCII and binary STL, OBJ) are
# triangulated and placed in the body frame as the deck says.  Bad shapes
# are in tests/bad/shape_*.yaml (run-bad-decks.sh).
# Usage: MBSIM=build/mbsim sh tests/t-shape.sh   (run from the source root)

# shellcheck source=tests/lib.sh
. "$(dirname "$0")/lib.sh"

if ! "$PY" -c 'import h5py, numpy' 2>/dev/null; then
	bad "$PY lacks h5py or numpy (tools/install-deps installs them)"
	finish
	exit
fi

# --- meshes: a unit tetrahedron as ASCII STL, binary STL and OBJ (a quad
# face, v/vt/vn indices and a negative index: the OBJ forms people write)
cat >"$tmp/tet.stl" <<'EOF'
solid tet
  facet normal 0 0 -1
    outer loop
      vertex 0 0 0
      vertex 0 1 0
      vertex 1 0 0
    endloop
  endfacet
  facet normal 0 -1 0
    outer loop
      vertex 0 0 0
      vertex 1 0 0
      vertex 0 0 1
    endloop
  endfacet
  facet normal -1 0 0
    outer loop
      vertex 0 0 0
      vertex 0 0 1
      vertex 0 1 0
    endloop
  endfacet
  facet normal 1 1 1
    outer loop
      vertex 1 0 0
      vertex 0 1 0
      vertex 0 0 1
    endloop
  endfacet
endsolid tet
EOF
"$PY" - "$tmp/tet.stl" "$tmp/tetb.stl" <<'PY'
import re, struct, sys
v = [tuple(map(float, m)) for m in re.findall(r"vertex (\S+) (\S+) (\S+)", open(sys.argv[1]).read())]
with open(sys.argv[2], "wb") as f:
    f.write(b"solid but binary".ljust(80, b" "))   # a binary STL may begin with 'solid'
    f.write(struct.pack("<I", len(v) // 3))
    for i in range(0, len(v), 3):
        f.write(struct.pack("<3f", 0, 0, 0))
        for p in v[i:i + 3]:
            f.write(struct.pack("<3f", *p))
        f.write(b"\0\0")
PY
cat >"$tmp/sq.obj" <<'EOF'
# a unit square in z = 0 as one quad, and a triangle under it
v 0 0 0
v 1 0 0
v 1 1 0
v 0 1 0
vt 0 0
vn 0 0 1
f 1/1/1 2/1/1 3/1/1 4/1/1
f -4//1 -1//1 -2//1
EOF
cat >"$tmp/shapes.yaml" <<'EOF'
time: {end: 0.01}
gravity: [0, 0, 0]
bodies:
  - {name: diag, mass: 2, inertia: [0.1, 0.2, 0.25]}
  - name: full
    mass: 3
    inertia: [[0.2, 0.05, 0], [0.05, 0.3, 0.02], [0, 0.02, 0.4]]
  - {name: rod, mass: 1, inertia: [1, 1, 1e-9]}
  - {name: cube, mass: 1, inertia: [1, 1, 1],
     shape: {type: box, size: [1, 2, 3], position: [0.5, 0, 0], orientation: {axis: [0, 0, 1], angle: pi/2}}}
  - {name: cyl, mass: 1, inertia: [1, 1, 1], shape: {type: cylinder, radius: 0.5, length: 2}}
  - {name: ball, mass: 1, inertia: [1, 1, 1], shape: {type: sphere, radius: 0.25}}
  - {name: cap, mass: 1, inertia: [1, 1, 1], shape: {type: capsule, radius: 0.1, length: 1}}
  - {name: stla, mass: 1, inertia: [1, 1, 1], shape: {type: mesh, file: tet.stl, scale: 2}}
  - {name: stlb, mass: 1, inertia: [1, 1, 1], shape: {type: mesh, file: tetb.stl, scale: 2}}
  - {name: obj, mass: 1, inertia: [1, 1, 1], shape: {type: mesh, file: sq.obj, position: [0, 0, 1]}}
  - {name: again, mass: 1, inertia: [1, 1, 1], shape: {type: mesh, file: tet.stl}}
EOF
expect_rc 0 "a deck of every shape type runs" "$MBSIM" run "$tmp/shapes.yaml" -o "$tmp/s.h5" --quiet
"$PY" - "$tmp/s.h5" >"$tmp/py" 2>&1 <<'PY'
import sys
import h5py, numpy as np
f = h5py.File(sys.argv[1], "r")
names = [n.decode() for n in f["/bodies/names"][:]]
typ = [t.decode() for t in f["/shapes/type"][:]]
dflt = f["/shapes/from_inertia"][:]
size, pos, quat = f["/shapes/size"][:], f["/shapes/position"][:], f["/shapes/orientation"][:]
m, J = f["/shapes/mass"][:], f["/shapes/inertia"][:]
V, T = f["/shapes/vertices"][:], f["/shapes/triangles"][:]
vo, to = f["/shapes/vertex_offsets"][:], f["/shapes/triangle_offsets"][:]
B = {n: i for i, n in enumerate(names)}

def say(ok, what):
    print(("ok   " if ok else "FAIL ") + what)

def R(q):
    w, x, y, z = q
    return np.array([[1 - 2*(y*y + z*z), 2*(x*y - w*z), 2*(x*z + w*y)],
                     [2*(x*y + w*z), 1 - 2*(x*x + z*z), 2*(y*z - w*x)],
                     [2*(x*z - w*y), 2*(y*z + w*x), 1 - 2*(x*x + y*y)]])

def verts(b):
    return V[vo[b]:vo[b + 1]]

def box_inertia(b):
    # the inertia of a uniform box of edges a (its own axes), rotated by
    # the shape's orientation: I_x = m/12 (a_y^2 + a_z^2), ... (textbook)
    a2 = size[b] ** 2
    d = m[b] / 12 * np.array([a2[1] + a2[2], a2[0] + a2[2], a2[0] + a2[1]])
    P = R(quat[b])
    return P @ np.diag(d) @ P.T

for n in ("diag", "full"):
    b = B[n]
    err = np.abs(box_inertia(b) - J[b]).max()
    say(dflt[b] == 1 and typ[b] == "box" and err < 1e-12,
        "%s: the default box has the body's inertia (max error %.2g)" % (n, err))
    # its 8 corners: half edges along the principal axes, about the centroid
    c = (verts(b) - pos[b]) @ R(quat[b])
    say(len(c) == 8 and np.allclose(np.abs(c), size[b] / 2, rtol=1e-12, atol=1e-15),
        "%s: the corners are +-size/2 along the principal axes" % n)
b = B["rod"]
# [1, 1, 1e-9] with m = 1: edges^2 = 6 (1 + 1e-9 - 1), 6 (1 + 1e-9 - 1), 6 (2 - 1e-9):
# two edges of ~7.7e-5 m against sqrt(12) = 3.46 m, raised to 3.46 / 20
say(abs(max(size[b]) - np.sqrt(12 - 6e-9)) < 1e-9 and abs(min(size[b]) - max(size[b]) / 20) < 1e-12,
    "rod: edges below a twentieth of the longest are raised to it (%s)" % size[b])
b = B["cube"]
# a box [1, 2, 3] turned 90 degrees about z and moved 0.5 along x: in the
# body frame x spans 0.5 -+ 1 and y -+ 0.5
v = verts(b)
say(np.allclose(v.min(axis=0), [-0.5, -0.5, -1.5]) and np.allclose(v.max(axis=0), [1.5, 0.5, 1.5]),
    "box: placed and turned in the body frame (%s .. %s)" % (v.min(axis=0), v.max(axis=0)))
b = B["cyl"]
v = verts(b)
rho = np.hypot(v[:, 0], v[:, 1])
say(np.isclose(rho.max(), 0.5) and np.allclose([v[:, 2].min(), v[:, 2].max()], [-1, 1]),
    "cylinder: radius 0.5, from z = -1 to 1")
b = B["ball"]
v = verts(b)
say(np.allclose(np.linalg.norm(v, axis=1), 0.25), "sphere: every vertex at the radius")
b = B["cap"]
v = verts(b)
# capsule: caps of radius 0.1 about z = -+0.5; every vertex at distance 0.1 from the segment
zc = np.clip(v[:, 2], -0.5, 0.5)
d = np.sqrt(v[:, 0] ** 2 + v[:, 1] ** 2 + (v[:, 2] - zc) ** 2)
say(np.allclose(d, 0.1) and np.isclose(v[:, 2].max(), 0.6), "capsule: every vertex 0.1 from its axis segment")
for n in ("stla", "stlb"):
    b = B[n]
    v = verts(b)
    say(to[b + 1] - to[b] == 4 and len(v) == 12 and np.allclose(v.max(axis=0), [2, 2, 2]),
        "%s: 4 triangles of the tetrahedron, scaled by 2" % n)
say(np.array_equal(verts(B["stla"]), verts(B["stlb"])), "ASCII and binary STL give the same vertices")
b = B["obj"]
v, t = verts(b), T[to[b]:to[b + 1]] - vo[b]
say(len(v) == 4 and len(t) == 3 and np.allclose(v[:, 2], 1) and
    sorted(map(tuple, t)) == [(0, 1, 2), (0, 2, 3), (0, 3, 2)],
    "obj: a quad as two triangles, v/vt/vn and negative indices, placed at z = 1 (%s)" % t.tolist())
say(all(t == "mesh" for t in (typ[B["stla"]], typ[B["obj"]])) and
    f["/shapes/file"][B["obj"]].decode().endswith("sq.obj"), "mesh: type and file written")
say(T.min() >= 0 and all(T[to[i]:to[i + 1]].min() >= vo[i] and T[to[i]:to[i + 1]].max() < vo[i + 1]
                         for i in range(len(names))), "every triangle indexes its own body's vertices")
PY
while IFS= read -r line; do
	case $line in
	ok*) ok "${line#ok   }" ;;
	FAIL*) bad "${line#FAIL }" ;;
	*) bad "shape check: $line" ;;
	esac
done <"$tmp/py"
[ -s "$tmp/py" ] || bad "the shape check printed nothing"

# a mesh file named relative to the deck is found beside it, from anywhere
mkdir -p "$tmp/d/sub"
cp "$tmp/tet.stl" "$tmp/d/sub/"
printf 'time: {end: 0.01}\nbodies:\n  - {name: a, mass: 1, inertia: [1, 1, 1], shape: {type: mesh, file: sub/tet.stl}}\n' \
	>"$tmp/d/m.yaml"
expect_rc 0 "mesh path relative to the deck's directory" sh -c \
	"cd '$tmp' && '$MBSIM' check d/m.yaml"
# --set reaches shape keys
expect_rc 2 "--set bodies.diag.shape.radius on a box is refused" \
	"$MBSIM" check --set bodies.cube.shape.radius=1 "$tmp/shapes.yaml"
grep -q "key 'radius' does not apply to a shape of type box" "$tmp/err" ||
	bad "--set radius on a box: message" "$(cat "$tmp/err")"
expect_rc 0 "--set bodies.cyl.shape.radius=0.2" \
	"$MBSIM" check --set bodies.cyl.shape.radius=0.2 "$tmp/shapes.yaml"
finish
