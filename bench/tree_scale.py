#!/usr/bin/python3
"""tree_scale.py CSV PNG - plot bench/tree_scale.sh's table: microseconds
per body and right-hand-side evaluation of the formulation tree against
the number of links N of the spherical chain (log N), with the issue's
goal (0.3 us at N = 1e4) and the band of linear growth (+-10 % of the
cost per body at N = 1e3)."""
import csv
import sys

import matplotlib
matplotlib.use("Agg")
import matplotlib.pyplot as plt

rows = list(csv.DictReader(open(sys.argv[1])))
N = [int(r["N"]) for r in rows]
us = [float(r["us_per_body"]) for r in rows]
fig, ax = plt.subplots(figsize=(6, 4))
ax.semilogx(N, us, "o-", label="tree f (median of 5 trials)")
ax.axhline(0.3, color="k", ls="--", lw=0.8, label="goal at N = 1e4: 0.3 us")
if 1000 in N:
    ref = us[N.index(1000)]
    ax.axhspan(0.9 * ref, 1.1 * ref, color="C1", alpha=0.2, label="N = 1e3 +- 10 %")
ax.set_xlabel("links N (spherical chain, 3 N coordinates)")
ax.set_ylabel("us per body and f")
ax.set_ylim(0, max(us) * 1.3)
ax.legend(fontsize=8)
ax.set_title("seed 003 tree formulation: cost of f per body")
fig.tight_layout()
fig.savefig(sys.argv[2], dpi=120)
