#!/bin/sh
# The original IFToMM A02 N-four-bar (N = 40, 20 s: decks/n_four_bar.yaml
# --set parameters.N=40 --set time.end=20) with every scheme issue 10 names,
# each at 1 ms (esdirk436l2sa2 with the Newton tolerance 1e-8, the deck's
# note; adaptive at atol = rtol = 1e-8 its step control fails at 0.715 s,
# before the first singular position): does it run to the end through its
# 20 singular positions (cranks horizontal, at 0.72 s, 1.24 s, ...
# 18.93 s), its energy drift (the run summary's, over the samples), B0 at
# 20 s against tools/four_bar_ref.py (the exact
# one-degree-of-freedom reduction), steps, Newton iterations and the CPU
# time of the whole process (user + system).  Too slow for make test
# (tangent_newmark takes minutes: a dense QR of the 486 x 605 Jacobian per
# iteration); one run per scheme, CSV to bench/results/n40-DATE.csv.
#   [MBSIM=build/mbsim] [SCHEMES="lms2 hi"] sh bench/n_four_bar_40.sh
set -eu
MBSIM=${MBSIM:-build/mbsim}
SCHEMES=${SCHEMES:-hi fi lms2 hht genalpha esdirk436l2sa2 tangent_newmark}
mkdir -p bench/results
out=bench/results/n40-$(date +%Y%m%d-%H%M%S).csv
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
echo "scheme,step,status,t_end,steps,mean_newton_iterations,max_energy_drift_J,B0_error_m,cpu_s,message" >"$out"
for m in $SCHEMES; do
	case $m in
	esdirk436l2sa2) args="--set integrator.step=1e-3 --set integrator.tolerance=1e-8" h=1e-3 ;;
	*) args="--set integrator.step=1e-3" h=1e-3 ;;
	esac
	# shellcheck disable=SC2086 # $args: words
	/usr/bin/python3 - "$MBSIM" "$m" "$h" "$tmp/r.h5" $args >>"$out" <<'PY'
import json, re, resource, subprocess, sys
mb, m, h, h5 = sys.argv[1:5]
args = [mb, "run", "decks/n_four_bar.yaml", "--set", "parameters.N=40", "--set", "time.end=20",
        "--set", "integrator.method=" + m] + sys.argv[5:] + ["-o", h5, "--json", "--force", "--quiet"]
r0 = resource.getrusage(resource.RUSAGE_CHILDREN)
p = subprocess.run(args, capture_output=True, text=True)
r1 = resource.getrusage(resource.RUSAGE_CHILDREN)
cpu = r1.ru_utime - r0.ru_utime + r1.ru_stime - r0.ru_stime
try:
    d = json.loads(p.stdout)
except ValueError:
    d = {"status": "failed", "message": p.stderr.strip().splitlines()[-1] if p.stderr.strip() else ""}
err = ""
if d.get("status") == "complete":
    c = subprocess.run(["/usr/bin/python3", "tools/four_bar_ref.py", "--N", "40", "--t-end", "20",
                        "--check", h5, "--tol", "1e9"], capture_output=True, text=True)
    e = re.search(r"\|B0 - reference\| = (\S+)", c.stdout)
    err = e.group(1) if e else "?"
msg = d.get("message", "").replace(",", ";").replace("\n", " ")[:160]
print("%s,%s,%s,%s,%s,%s,%s,%s,%.1f,%s" % (m, h, d.get("status"), d.get("t_end", ""), d.get("steps", ""),
      d.get("mean_newton_iterations", ""), d.get("max_energy_drift", ""), err, cpu, msg))
PY
	tail -1 "$out"
done
echo "wrote $out"
