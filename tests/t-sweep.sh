#!/bin/sh
# t-sweep.sh - tools/sweep and mbsim summary (issue 14 item 4).
#
# A 3 x 4 sweep of the slider-crank (integrator.method x integrator.step)
# runs with GNU parallel; mbsim summary must print 12 rows whose parameter
# columns are those of the file names and whose statuses are right.  The
# one failing combination is hi at h = 0.1 s: the crank turns 0.63 rad per
# step and hi's Newton iteration stops at its 50 iterations with a
# correction of 1.02 (measured; far from the 1e-10 tolerance, not near it),
# while fi and lms2, which solve for the whole step implicitly, complete
# (measured).  Every smaller step completes with every scheme.
# The Slurm script is checked with bash -n and executed task by task with
# SLURM_ARRAY_TASK_ID set, as an array would; where Debian's slurm-wlm is
# installed and the test runs as root, a private single-node Slurm is
# started for sbatch --test-only and a two-task array, else that is skipped.
# Hostile text (quotes, $(...), backticks, ;, *, leading dashes, blanks) in
# the values, the arguments after --, -o DIR and the --sbatch options, on
# both paths, must reach mbsim (or sbatch) exactly and run nothing; a line
# break anywhere is refused; mbsim check refuses a bad key before any run.
# Usage: MBSIM=build/mbsim sh tests/t-sweep.sh   (run from the source root)

# shellcheck source=tests/lib.sh
. "$(dirname "$0")/lib.sh"

sweep=$top/tools/sweep
deck=$decks/slider_crank.yaml

# grid expansion: lists, linear and log ranges, product with the last key
# fastest (--dry-run prints the output files)
"$sweep" --dry-run -o "$tmp/dry" --mbsim "$MBSIM" "$deck" time.end=1:2:3 integrator.step=1e-3:1e-1:3:log >"$tmp/cmds" 2>"$tmp/err"
got=$(sed 's/.*\/\([^/]*\)\.h5$/\1/' "$tmp/cmds" | tr '\n' ' ')
want="end=1_step=0.001 end=1_step=0.01 end=1_step=0.1 end=1.5_step=0.001 end=1.5_step=0.01 end=1.5_step=0.1 end=2_step=0.001 end=2_step=0.01 end=2_step=0.1 "
if [ "$got" = "$want" ]; then ok "sweep: a:b:n and a:b:n:log ranges, product"; else bad "sweep: grid" "got:  $got" "want: $want"; fi
expect_rc 64 "sweep: bad range is a usage error" "$sweep" --dry-run -o "$tmp/dry" --mbsim "$MBSIM" "$deck" a=1:2
expect_rc 64 "sweep: key given twice is a usage error" "$sweep" --dry-run -o "$tmp/dry" --mbsim "$MBSIM" "$deck" a=1 a=2

if ! command -v parallel >/dev/null 2>&1; then
	# (counted with parallel and Slurm: 52 checks below, 3 above)
	skip "the sweeps below" "GNU parallel is not installed (tools/install-deps --test installs it)" 52
	finish
	exit
fi

# the 3 x 4 sweep with GNU parallel; 1 (some run failed) is the expected status
expect_rc 1 "sweep: 3 x 4 slider-crank grid runs, exit 1 for its failed run" \
	"$sweep" -o "$tmp/sc" -j 2 --mbsim "$MBSIM" "$deck" \
	integrator.method=hi,fi,lms2 integrator.step=1e-3,2e-3,5e-3,0.1 -- --set time.end=0.5
"$PY" - "$tmp/sc/summary.csv" "$tmp/sc" <<'PY' >"$tmp/check" 2>&1
import csv, os, sys
rows = list(csv.DictReader(open(sys.argv[1])))
errs = []
if len(rows) != 12:
    errs.append("%d rows, want 12" % len(rows))
want = [(m, h) for m in ("hi", "fi", "lms2") for h in ("1e-3", "2e-3", "5e-3", "0.1")]
for r, (m, h) in zip(rows, want):
    name = os.path.basename(r["file"])
    if name != "method=%s_step=%s.h5" % (m, h):
        errs.append("file %s, want method=%s_step=%s.h5" % (name, m, h))
    if (r["integrator.method"], r["integrator.step"], r["time.end"]) != (m, h, "0.5"):
        errs.append("%s: parameters %s %s %s" % (name, r["integrator.method"], r["integrator.step"], r["time.end"]))
    if r["integrator"] != m:
        errs.append("%s: integrator attribute %s" % (name, r["integrator"]))
    st = "failed" if (m, h) == ("hi", "0.1") else "complete"
    if r["status"] != st:
        errs.append("%s: status %s, want %s" % (name, r["status"], st))
    if st == "failed" and "t = 0.1 (step 1" not in r["message"]:
        errs.append("%s: message does not name time and step: %s" % (name, r["message"]))
    if st == "complete":
        # t_end exact; steps = 0.5 / h (the clock lands on time.end)
        n = round(0.5 / float(h))
        if float(r["t_end"]) != 0.5 or int(r["steps"]) != n:
            errs.append("%s: t_end %s steps %s, want 0.5 and %d" % (name, r["t_end"], r["steps"], n))
        if not int(r["newton_iterations"]) >= n:
            errs.append("%s: %s Newton iterations for %d steps" % (name, r["newton_iterations"], n))
if errs:
    print("\n".join(errs))
PY
if [ ! -s "$tmp/check" ]; then
	ok "summary: 12 rows, parameter columns, statuses, steps right"
else
	bad "summary: table of the sweep" "$(cat "$tmp/check")"
fi

# --quantity: at a sample time the value is the file's (read independently
# through tools/mbsimlib.py); between two samples, with output.every 1 and
# h = 1e-3, the linear interpolation of its neighbours (exact arithmetic);
# past the end of this complete run (t = 9 > 0.5) an empty field, the row
# printed and exit 1 with the reason (mbsim-summary(1))
f=$tmp/sc/method=fi_step=1e-3.h5
expect_rc 1 "summary: --quantity at a sample time, between samples and past the end" \
	"$MBSIM" summary "$f" --quantity bodies/slider/position:x@0.25 --quantity bodies/slider/position:x@0.2505 --quantity energy/total@9
x250=$(series_at "$f" bodies/slider/position 250 | sed -n 1p)
x251=$(series_at "$f" bodies/slider/position 251 | sed -n 1p)
"$PY" - "$tmp/out" "$x250" "$x251" <<'PY' >"$tmp/check" 2>&1
import csv, sys
r = list(csv.DictReader(open(sys.argv[1])))[0]
a, b = float(sys.argv[2]), float(sys.argv[3])
v0, v1 = float(r["bodies/slider/position:x@0.25"]), float(r["bodies/slider/position:x@0.2505"])
if v0 != a:
    print("at 0.25: %r, file %r" % (v0, a))
if abs(v1 - 0.5 * (a + b)) > 1e-15 * max(1, abs(a)):
    print("at 0.2505: %r, want %r" % (v1, 0.5 * (a + b)))
if r["energy/total@9"] != "":
    print("past the end: %r, want empty" % r["energy/total@9"])
PY
if [ ! -s "$tmp/check" ]; then ok "summary: quantity values"; else bad "summary: quantity values" "$(cat "$tmp/check")"; fi

expect_rc 64 "summary: a quantity without @TIME is a usage error" \
	"$MBSIM" summary "$f" --quantity bodies/slider/position
expect_rc 1 "summary: a vector quantity without component is an error of the row" \
	"$MBSIM" summary "$f" --quantity bodies/slider/position@0.25
expect_rc 1 "summary: a missing file is a row, exit 1" "$MBSIM" summary "$f" "$tmp/none.h5"
if grep -q "^$tmp/none.h5,unreadable," "$tmp/out"; then ok "summary: missing file row says unreadable"; else bad "summary: missing file row" "$(cat "$tmp/out")"; fi

expect_rc 0 "summary --json" "$MBSIM" summary --json "$tmp/sc"/method=*.h5
"$PY" - "$tmp/out" <<'PY' >"$tmp/check" 2>&1
import json, sys
d = json.load(open(sys.argv[1]))
if len(d) != 12:
    print("%d objects" % len(d))
steps = sorted({o["parameters"]["integrator.step"] for o in d})
if steps != [1e-3, 2e-3, 5e-3, 0.1]:
    print("steps %r" % steps)
if sorted(o["status"] for o in d).count("failed") != 1:
    print("statuses %r" % [o["status"] for o in d])
PY
if [ ! -s "$tmp/check" ]; then ok "summary --json: 12 objects, numeric parameters, one failed"; else bad "summary --json" "$(cat "$tmp/check")"; fi

# Hostile text in every argument the sweep takes (-o DIR relative, with a
# leading dash, as --dir=DIR; the deck and binary by absolute paths with
# hostile names; values; arguments after --).  Nothing may reach a
# shell: no file X may appear anywhere under $tmp (the runs' working
# directory is DIR, Slurm's the directory sbatch ran in, $tmp/w); and each
# value must reach mbsim exactly, blanks included: it names the joint pin1
# of the double pendulum, and the output's /joints/names and summary.csv
# must hold it.  Arguments after -- go to mbsim run as they are: one sets
# pin2's name by a YAML double-quoted scalar, whose text is the name.
mkdir -p "$tmp/w" && cd "$tmp/w" || exit 1
# the deck and the binary under hostile names too
# shellcheck disable=SC2016
dp=$tmp/w/'-d $(touch X);`touch X` * "q" '\''r'\''.yaml'
cp "$decks/double_pendulum.yaml" "$dp"
# shellcheck disable=SC2016
mb=$tmp/w/'-m $(touch X);`touch X` *'
ln -s "$MBSIM" "$mb"
# shellcheck disable=SC2016
pdir='-p $(touch X);`touch X` * "q"'
# shellcheck disable=SC2016 # the $(...) and `...` are the payload
vals='$(touch X),`touch X`,a;touch X;b,"q" '\''r'\'',*,-x, a  b '
# shellcheck disable=SC2016
arg2='joints.pin2.name="$(touch X); `touch X` ;* -x '\''q'\'' a  b "'
no_x() {
	found=$(find "$tmp" -name X)
	if [ -z "$found" ]; then ok "$1: no file X"; else bad "$1: a shell ran the payload" "$found"; fi
	find "$tmp" -name X -exec rm -f {} +	# so that the next check is its own
}
# exact DIR COUNT NAME [VALUES]: summary.csv of DIR has COUNT complete rows,
# pin1 named by VALUES (default $vals; comma-separated, repeated to COUNT)
# in grid order, pin2 by $arg2, in summary.csv and in each output file's
# /joints/names
exact() {
	"$PY" - "$1" "$2" "${4-$vals}" "$arg2" <<'PY' >"$tmp/check" 2>&1
import csv, sys, h5py
d, n, vals, arg2 = sys.argv[1], int(sys.argv[2]), sys.argv[3].split(","), sys.argv[4]
vals = (vals * n)[:n]
pin2 = arg2.split("=", 1)[1][1:-1]
rows = list(csv.DictReader(open(d + "/summary.csv", newline="")))
if len(rows) != n:
    print("%d rows, want %d" % (len(rows), n))
for r, v in zip(rows, vals):
    got = (r["status"], r["joints.pin1.name"], r["joints.pin2.name"], r["time.end"])
    if got != ("complete", v, arg2.split("=", 1)[1], "0.01"):
        print("summary row %r, want pin1 %r" % (got, v), r["message"])
    with h5py.File(r["file"], "r") as f:
        names = [x.decode() for x in f["joints/names"][()]]
    if names != [v, pin2]:
        print("%s: /joints/names %r, want %r" % (r["file"], names, [v, pin2]))
PY
	if [ ! -s "$tmp/check" ]; then ok "$3: values exact in the file and summary.csv"; else bad "$3" "$(cat "$tmp/check")"; fi
}
expect_rc 0 "sweep: quotes, \$(), backticks, ;, *, dashes, blanks in values and args (GNU parallel)" \
	"$sweep" "--dir=$pdir" -j 2 --mbsim "$mb" "$dp" "joints.pin1.name=$vals" -- --set=time.end=0.01 --set "$arg2"
no_x "sweep, GNU parallel"
exact "$tmp/w/$pdir" 7 "sweep, GNU parallel"

# 40 random names (fixed seed) from an alphabet of YAML indicators, shell
# metacharacters, blanks, tabs, CR, other control characters and non-ASCII
# letters: each reaches mbsim as it is (their file names coincide often,
# and the runs' numbers then tell them apart)
rvals=$("$PY" -c '
import random
r = random.Random(28)
abc = " \t\r\x01\x1b\x7f\"\\$`;*&!|<>%@#?:[]{}()-~^=+.aZ9\u00e9\u4e2d"
vals = set()
while len(vals) < 40:
    vals.add("".join(r.choice(abc) for _ in range(r.randint(1, 12))))
print(",".join(sorted(vals)), end="")')
expect_rc 0 "sweep: 40 random hostile names (GNU parallel)" \
	"$sweep" -o "$tmp/w/r" -j 2 --mbsim "$MBSIM" "$dp" "joints.pin1.name=$rvals" -- --set=time.end=0.01 --set "$arg2"
no_x "sweep, random names"
exact "$tmp/w/r" 40 "sweep, random names" "$rvals"

# Characters that YAML reads as line breaks inside a quoted scalar (U+2028,
# U+2029, NEL) and the BOM: escaped, not folded (fuzz_sweep.py found
# 'a\u2028 b' arriving as 'a b' through the quoted --set scalar)
uvals=$("$PY" -c 'print("a\u2028 b,c\u2029 d,e\x85 f,\ufeffg", end="")')
expect_rc 0 "sweep: YAML's other line breaks and the BOM in values (GNU parallel)" \
	"$sweep" -o "$tmp/w/u" -j 2 --mbsim "$MBSIM" "$dp" "joints.pin1.name=$uvals" -- --set=time.end=0.01 --set "$arg2"
exact "$tmp/w/u" 4 "sweep, U+2028, U+2029, NEL, BOM" "$uvals"

# A line break cannot be one argument of a run's argument file: refused
# with exit 64 before anything is written (on the command-line design it
# ran the rest of the line as a command), in a value, an argument after --,
# -o DIR, --mbsim and the deck, and with --slurm in -o DIR and --sbatch.
nl='
touch X #'
refused() {
	what=$1
	shift
	expect_rc 64 "sweep: a line break in $what is refused" "$@"
	if ! grep -q "line break" "$tmp/err"; then bad "sweep: $what: message" "$(cat "$tmp/err")"; fi
	if [ -e "$tmp/w/nl" ] || [ -e "$tmp/w/nl.sh" ]; then bad "sweep: $what: something was written"; fi
	no_x "sweep, a line break in $what"
	rm -rf "$tmp/w/nl" "$tmp/w/nl.sh"
}
refused "a value" "$sweep" -o "$tmp/w/nl" --mbsim "$MBSIM" "$dp" "joints.pin1.name=a,b$nl"
refused "an argument after --" "$sweep" -o "$tmp/w/nl" --mbsim "$MBSIM" "$dp" joints.pin1.name=a -- --set "title=a$nl"
refused "-o DIR" "$sweep" -o "$tmp/w/nl$nl" --mbsim "$MBSIM" "$dp" joints.pin1.name=a
refused "--mbsim" "$sweep" -o "$tmp/w/nl" --mbsim "$MBSIM$nl" "$dp" joints.pin1.name=a
refused "the deck" "$sweep" -o "$tmp/w/nl" --mbsim "$MBSIM" "$dp$nl" joints.pin1.name=a
refused "-o DIR with --slurm" "$sweep" -o "$tmp/w/nl$nl" --mbsim "$MBSIM" --slurm "$tmp/w/nl.sh" "$dp" joints.pin1.name=a
refused "an --sbatch option" "$sweep" -o "$tmp/w/nl" --mbsim "$MBSIM" --slurm "$tmp/w/nl.sh" \
	"--sbatch=--time=5$nl" "$dp" joints.pin1.name=a

# mbsim check before anything is written or run, with mbsim's message
expect_rc 2 "sweep: a misspelt parameter stops the sweep before any run" \
	"$sweep" -o "$tmp/w/ck" --mbsim "$MBSIM" "$decks/chain.yaml" parameters.lenght=1,2,3
if grep -q "unknown parameter 'lenght' (did you mean 'len'?)" "$tmp/err" && [ ! -e "$tmp/w/ck" ]; then
	ok "sweep: mbsim's message, nothing written"
else
	bad "sweep: misspelt parameter" "$(cat "$tmp/err")" "$(ls "$tmp/w/ck" 2>&1)"
fi
expect_rc 2 "sweep --slurm: an invalid value writes no script" \
	"$sweep" -o "$tmp/w/ck" --mbsim "$MBSIM" --slurm "$tmp/w/ck.sh" "$deck" integrator.method=hi,bogus
if grep -q "unknown integrator 'bogus'" "$tmp/err" && [ ! -e "$tmp/w/ck.sh" ]; then
	ok "sweep --slurm: mbsim's message, no script"
else
	bad "sweep --slurm: invalid value" "$(cat "$tmp/err")"
fi
# * is a value, not a YAML alias: the deck sees the text * and says why not
expect_rc 2 "sweep: the value * is checked as the text *" \
	"$sweep" -o "$tmp/w/ck" --mbsim "$MBSIM" "$deck" 'integrator.method=fi,*'
if grep -q "unknown integrator '\*'" "$tmp/err" && ! grep -q alias "$tmp/err"; then
	ok "sweep: unknown integrator '*'"
else
	bad "sweep: the value *" "$(cat "$tmp/err")"
fi
# an expression with blanks is the expression: t_end 0.01 + 0.01 = 0.02
# (0.01 + 0.01 == 0.02 in doubles), listed as written
expect_rc 0 "sweep: 'time.end=0.01 + 0.01,3 * 0.01'" \
	"$sweep" -o "$tmp/w/ex" --mbsim "$MBSIM" "$dp" 'time.end=0.01 + 0.01,3 * 0.01'
"$PY" - "$tmp/w/ex/summary.csv" <<'PY' >"$tmp/check" 2>&1
import csv, sys
rows = [(r["time.end"], float(r["t_end"])) for r in csv.DictReader(open(sys.argv[1]))]
if rows != [("0.01 + 0.01", 0.01 + 0.01), ("3 * 0.01", 3 * 0.01)]:
    print(rows)
PY
if [ ! -s "$tmp/check" ]; then ok "sweep: values with blanks used and listed whole"; else bad "sweep: values with blanks" "$(cat "$tmp/check")"; fi
cd "$top" || exit 1

# Slurm: 3 tasks of 2 runs each (the last task has 2 of a 6-run grid)
"$sweep" -o "$tmp/sl" --mbsim "$MBSIM" --slurm "$tmp/sl.sh" --chunk 2 --sbatch=--time=00:05:00 \
	"$deck" integrator.step=1e-3,2e-3,5e-3 integrator.method=fi,lms2 -- --set time.end=0.1 2>"$tmp/err"
if bash -n "$tmp/sl.sh" && grep -q '^#SBATCH --array=0-2$' "$tmp/sl.sh" && grep -q '^#SBATCH --time=00:05:00$' "$tmp/sl.sh"; then
	ok "slurm: script parses (bash -n), array 0-2, extra #SBATCH line"
else
	bad "slurm: script" "$(cat "$tmp/sl.sh")"
fi
st=0
for t in 0 1 2; do
	SLURM_ARRAY_TASK_ID=$t bash "$tmp/sl.sh" >"$tmp/task$t.out" 2>&1 || st=1
done
n=$(ls "$tmp/sl"/*.h5 2>/dev/null | wc -l)
"$MBSIM" summary "$tmp/sl"/*.h5 >"$tmp/out" 2>"$tmp/err"
nc=$(grep -c ',complete,' "$tmp/out")
if [ "$st" = 0 ] && [ "$n" = 6 ] && [ "$nc" = 6 ]; then
	ok "slurm: tasks 0-2 run the 6 runs, all complete"
else
	bad "slurm: tasks" "status $st, $n files, $nc complete" "$(cat "$tmp/task0.out")"
fi
# The hostile values and args of the GNU parallel test, with -o DIR, the
# script's name and two --sbatch options hostile too (sbatch splits an
# #SBATCH line at blanks, so these have none: ${IFS}), two tasks run as an
# array would, from $tmp/w; then --collect.
# shellcheck disable=SC2016
sdir=$tmp/w/'s $(touch X);`touch X` * -x "q" '\''r'\'
# shellcheck disable=SC2016
sscript=$tmp/w/'-s $(touch X).sh'
# shellcheck disable=SC2016
sb1='--comment=$(touch${IFS}X);`touch${IFS}X`;*'
# shellcheck disable=SC2016
sb2='--job-name=-a;touch${IFS}X;b*'
cd "$tmp/w" || exit 1
hostile_slurm() {
	"$sweep" -o "$sdir" --mbsim "$mb" --slurm "$sscript" --chunk 4 "--sbatch=$sb1" "--sbatch=$sb2" \
		"$dp" "joints.pin1.name=$vals" -- --set=time.end=0.01 --set "$arg2"
}
if hostile_slurm 2>"$tmp/err" && bash -n "$sscript" && grep -qFx "#SBATCH $sb1" "$sscript" &&
   grep -qFx "#SBATCH $sb2" "$sscript" && grep -q '^#SBATCH --array=0-1$' "$sscript"; then
	ok "slurm: hostile script parses, array 0-1, the --sbatch options verbatim on their lines"
else
	bad "slurm: hostile script" "$(cat "$tmp/err" "$sscript")"
fi
st=0
for t in 0 1; do
	SLURM_ARRAY_TASK_ID=$t bash "$sscript" >"$tmp/task$t.out" 2>&1 || st=1
done
expect_rc 0 "slurm: hostile tasks run, --collect" "$sweep" --collect "$sdir"
no_x "slurm, tasks run by bash"
exact "$sdir" 7 "slurm, tasks run by bash"
# --collect lists the runs in grid order: N=8 before N=16, where the
# shell's sorted DIR/*.h5 puts N=16 first
"$sweep" -o "$tmp/w/n" --mbsim "$MBSIM" --slurm "$tmp/w/n.sh" "$decks/chain.yaml" \
	parameters.N=8,16 -- --set time.end=0.01 2>"$tmp/err"
SLURM_ARRAY_TASK_ID=0 bash "$tmp/w/n.sh" && SLURM_ARRAY_TASK_ID=1 bash "$tmp/w/n.sh"
expect_rc 0 "sweep --collect: two chains" "$sweep" --collect "$tmp/w/n"
got=$(cut -d, -f3 "$tmp/w/n/summary.csv" | tr '\n' ' ')
glob=$(cd "$tmp/w/n" && echo N=*.h5)
if [ "$got" = "parameters.N 8 16 " ] && [ "$glob" = "N=16.h5 N=8.h5" ]; then
	ok "sweep --collect: N=8 before N=16 (the glob: $glob)"
else
	bad "sweep --collect: order" "$got" "$glob"
fi
cd "$top" || exit 1

# A private single-node Slurm (munged, slurmctld, slurmd on localhost, all
# state in $tmp, ports from this shell's pid) where this machine can run one:
# Debian's slurm-wlm installed and root (slurmd runs jobs as their user).
slurm_pids=
stop_slurm() {
	for p in $slurm_pids; do
		kill "$p" 2>/dev/null
	done
	# wait (5 s at most) until they are gone, so that they do not write
	# their state into $tmp while it is removed
	for p in $slurm_pids; do
		n=0
		while kill -0 "$p" 2>/dev/null && [ $n -lt 50 ]; do
			sleep 0.1
			n=$((n + 1))
		done
	done
	slurm_pids=
}
start_slurm() {
	s=$tmp/slurm
	for b in munged slurmctld slurmd sbatch squeue sinfo; do
		command -v "$b" >/dev/null 2>&1 || { echo "skip slurm: no $b (Debian's slurm-wlm)"; return 1; }
	done
	[ "$(id -u)" = 0 ] || { echo "skip slurm: not root"; return 1; }
	[ -r /etc/munge/munge.key ] || { echo "skip slurm: no /etc/munge/munge.key"; return 1; }
	mkdir -p "$s/state" "$s/spool" && chmod 711 "$s" && cp /etc/munge/munge.key "$s/key" &&
		chmod 600 "$s/key" || return 1
	port=$((20000 + ($$ % 10000) * 2))
	cat >"$s/slurm.conf" <<SLURMCONF
ClusterName=mbsimtest
SlurmctldHost=localhost
SlurmUser=root
SlurmdUser=root
SlurmctldPort=$port
SlurmdPort=$((port + 1))
AuthType=auth/munge
AuthInfo=socket=$s/munge.sock
CredType=cred/munge
StateSaveLocation=$s/state
SlurmdSpoolDir=$s/spool
SlurmctldPidFile=$s/slurmctld.pid
SlurmdPidFile=$s/slurmd.pid
SlurmctldLogFile=$s/slurmctld.log
SlurmdLogFile=$s/slurmd.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
SchedulerType=sched/builtin
ReturnToService=2
MpiDefault=none
JobCompType=jobcomp/none
AccountingStorageType=accounting_storage/none
JobAcctGatherType=jobacct_gather/none
NodeName=localhost CPUs=1 State=UNKNOWN
PartitionName=debug Nodes=localhost Default=YES MaxTime=INFINITE State=UP
SLURMCONF
	SLURM_CONF=$s/slurm.conf
	export SLURM_CONF
	trap 'stop_slurm; rm -rf "$tmp"' EXIT INT TERM
	munged --force --socket="$s/munge.sock" --key-file="$s/key" --log-file="$s/munged.log" \
		--pid-file="$s/munged.pid" --seed-file="$s/seed" 2>>"$s/start.log" &&
		slurm_pids="$slurm_pids $(cat "$s/munged.pid")"
	slurmctld -f "$s/slurm.conf" 2>>"$s/start.log"
	slurmd -f "$s/slurm.conf" -N localhost 2>>"$s/start.log"
	i=0
	while [ $i -lt 40 ]; do
		[ -s "$s/slurmctld.pid" ] && [ -s "$s/slurmd.pid" ] &&
			sinfo -h -o %t 2>/dev/null | grep -q idle && break
		sleep 0.5
		i=$((i + 1))
	done
	for f in slurmctld.pid slurmd.pid; do
		[ -s "$s/$f" ] && slurm_pids="$slurm_pids $(cat "$s/$f")"
	done
	if ! sinfo -h -o %t 2>/dev/null | grep -q idle; then
		echo "skip slurm: the private Slurm did not start:"
		sed 's/^/     /' "$s/start.log" 2>/dev/null
		stop_slurm
		return 1
	fi
	return 0
}

# submit SCRIPT: sbatch it, set jid, wait for the array to leave the queue
# (each run takes milliseconds; the bound only keeps a stuck daemon from
# hanging the test)
submit() {
	jid=$(sbatch --parsable "$1" 2>"$tmp/err")
	i=0
	while [ -n "$jid" ] && [ $i -lt 240 ] && [ -n "$(squeue -h -j "$jid" 2>/dev/null)" ]; do
		sleep 0.5
		i=$((i + 1))
	done
}

if start_slurm; then
	if sbatch --test-only "$tmp/sl.sh" >"$tmp/sb" 2>&1; then
		ok "slurm: sbatch --test-only accepts the script"
	else
		bad "slurm: sbatch --test-only" "$(cat "$tmp/sb")"
	fi
	# a two-task array (one run per task) to completion
	"$sweep" -o "$tmp/sl2" --mbsim "$MBSIM" --slurm "$tmp/sl2.sh" \
		"$deck" integrator.method=fi,lms2 -- --set time.end=0.1 2>"$tmp/err"
	submit "$tmp/sl2.sh"
	"$MBSIM" summary "$tmp/sl2"/*.h5 >"$tmp/out" 2>"$tmp/err"
	if [ -n "$jid" ] && [ "$(grep -c ',complete,' "$tmp/out")" = 2 ] &&
	   [ -s "$tmp/sl2/slurm-${jid}_0.out" ] && [ -s "$tmp/sl2/slurm-${jid}_1.out" ]; then
		ok "slurm: a two-task array runs to completion on a private single-node Slurm"
	else
		bad "slurm: two-task array (job $jid)" "$(cat "$tmp/out" "$tmp/err")" \
		    "$(tail -n 5 "$tmp/slurm/slurmctld.log")"
	fi
	# the hostile script on Slurm, submitted from $tmp/w; Slurm's record
	# of the job holds the --sbatch options' values exactly
	cd "$tmp/w" || exit 1
	rm -rf "$sdir"
	hostile_slurm 2>"$tmp/err"
	submit "$sscript"
	scontrol show job "$jid" >"$tmp/scjob" 2>&1
	if [ -n "$jid" ] && grep -qFx "   Comment=${sb1#--comment=} " "$tmp/scjob" &&
	   grep -qF "JobName=${sb2#--job-name=}" "$tmp/scjob"; then
		ok "slurm: the job's comment and name are the --sbatch values"
	else
		bad "slurm: hostile job $jid" "$(cat "$tmp/err")" "$(grep -i 'comment\|jobname' "$tmp/scjob")"
	fi
	expect_rc 0 "slurm: hostile array on Slurm, --collect" "$sweep" --collect "$sdir"
	no_x "slurm, on a private Slurm"
	exact "$sdir" 7 "slurm, on a private Slurm"
	cd "$top" || exit 1
	stop_slurm
else
	skip "slurm: sbatch --test-only and a two-task array" "no private Slurm (above); the script is checked with bash -n only" 2
fi

finish
