#!/bin/sh
# t-manual.sh - the manual pages agree with the program:
#   1. every field of `mbsim run --json` (top level and nested, over hi,
#      lms2, esdirk436l2sa2, newmark, tangent_newmark, rn4 and bdf runs)
#      is listed in the JSON part of mbsim-run(1);
#   2. every deck key `mbsim list keys` knows (the keys of
#      schema/deck.schema.json: tests/schema_check.py keeps the two equal)
#      is named in bold in mbsim-deck(5) (t-user.sh checks that the manual
#      pages name every integrator);
#   3. reactions with body 2 the ground: a 2 kg bar (I_yy = 0.1 kg m^2
#      about its centroid, 1 m from the pin) released level; the force on
#      the ground at t0 is -m g (1 - m r^2 / (I + m r^2)) = -2 g 0.1/2.1 =
#      -0.934285714 N along z, not zero as mbsim-output(5) once said;
#   4. mbsim(1)'s NAME line says what mbsim simulates: rigid bodies,
#      particles and beams;
#   5. the examples of the manual pages run (tests/man_examples.py).
. "$(dirname "$0")/lib.sh"
cd "$top" || exit 1

# NAME N MIN: passes if N >= MIN items were checked and $missing is empty
documented() {
	if [ "$2" -lt "$3" ]; then
		bad "$1: only $2 checked, want >= $3"
	elif [ -n "$missing" ]; then
		bad "$1: missing:$missing"
	else
		ok "$1: all $2"
	fi
}

# 1. JSON fields
: >"$tmp/keys"
for run in "double_pendulum hi" "double_pendulum lms2" "double_pendulum esdirk436l2sa2" \
	"double_pendulum newmark" "double_pendulum tangent_newmark" "double_pendulum rn4" \
	"coupled_oscillators bdf"; do
	set -- $run
	"$MBSIM" run "decks/$1.yaml" --set time.end=0.01 --set "integrator.method=$2" \
		-o "$tmp/j.h5" --force --json >"$tmp/out" 2>"$tmp/err"
	rc=$?
	if [ "$rc" -ne 0 ]; then
		bad "json: $1 $2 (exit $rc)"
		continue
	fi
	"$PY" -c '
import json, sys
j = json.load(open(sys.argv[1]))
def walk(o, skip):
    for k, v in o.items():
        print(k)
        if isinstance(v, dict) and k not in skip:
            walk(v, skip)
walk(j, ("set",))	# the keys of "set" are the --set keys given
' "$tmp/out" >>"$tmp/keys" || bad "json: $1 $2: not a JSON object"
done
sort -u "$tmp/keys" -o "$tmp/keys"
# the JSON part of mbsim-run(1): from its first line to the next section
sed -n '/^With \\fB\\-\\-json\\fR the summary is a single JSON object/,/^\.S[HS]/p' \
	man/mbsim-run.1 >"$tmp/jsonman"
missing=
for k in $(cat "$tmp/keys"); do
	grep -qE "(\\\\fB$k\\\\fR|^\\.BR? ([^ ]* )*\"?$k\"?( |,|\$))" "$tmp/jsonman" || missing="$missing $k"
done
documented "json: fields of mbsim-run(1)'s --json list" "$(wc -l <"$tmp/keys")" 20

# 2. deck keys in mbsim-deck(5)
"$MBSIM" list keys >"$tmp/dk" 2>&1 || bad "list keys failed"
missing=
nk=0
for path in $(awk '{print $1}' "$tmp/dk"); do
	leaf=${path##*.}
	leaf=${leaf%\[\]}
	case $leaf in '*' | '') continue ;; esac
	nk=$((nk + 1))
	grep -qE "(\\\\fB$leaf(\\\\fR|:)|^\\.BR? ([^ ]* )*\"?$leaf\"?( |,|\$))" man/mbsim-deck.5 ||
		missing="$missing $path"
done
documented "deck keys named in mbsim-deck(5)" "$nk" 100

# 3. reactions on the ground
cat >"$tmp/g2.yaml" <<'DECK'
title: pendulum whose joint has the ground as body 2
gravity: [0, 0, -9.81]
bodies:
  - {name: bar, mass: 2, inertia: [0.1, 0.1, 0.01], position: [1, 0, 0]}
joints:
  - {name: pin, type: revolute, body1: bar, body2: ground, point: [0, 0, 0], axis: [0, 1, 0]}
time: {end: 0.01}
integrator: {method: fi, step: 0.001}
DECK
expect_rc 0 "ground reaction: run" "$MBSIM" run "$tmp/g2.yaml" -o "$tmp/g2.h5" --quiet
pycheck "ground reaction at t0 = -2 g 0.1/2.1 N along z (joint pin, body 2 ground)" "
F = h5py.File('$tmp/g2.h5')['joints/reaction_force'][0, 0]
want = -2 * 9.81 * 0.1 / 2.1
ok = abs(F[2] - want) <= 1e-9 * abs(want) and abs(F[0]) < 1e-12 and abs(F[1]) < 1e-12
msg = 'reaction_force of pin at t = 0: %r, want [0, 0, %.9g]' % (list(F), want)"
if grep -qi "zero when body 2 is the ground" man/mbsim-output.5; then
	bad "mbsim-output(5) still says the reactions are zero when body 2 is the ground"
else
	ok "mbsim-output(5): reactions on the ground are not said to be zero"
fi

# 4. NAME line
name=$(sed -n '/^\.SH NAME/{n;p;}' man/mbsim.1)
case $name in
*rigid*particles*beams*) ok "mbsim(1) NAME: $name" ;;
*) bad "mbsim(1) NAME line names neither particles nor beams: $name" ;;
esac

# 5. examples
mkdir -p "$tmp/ex"
if "$PY" tests/man_examples.py "$MBSIM" "$tmp/ex" man/*.[157] >"$tmp/exout" 2>&1; then
	ok "man examples: $(grep -c '^ok' "$tmp/exout") run"
else
	bad "man examples" "$(grep -v '^ok' "$tmp/exout")"
fi
finish
