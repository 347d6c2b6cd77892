#!/usr/bin/python3
"""Spectral radius of LMS2/3/4 from their published coefficients, in 50 digits.

    tools/lms_radius_ref.py K RHO RATIO...

prints "RATIO RADIUS" per ratio: the largest modulus of the roots of
rho(z) - i w dt sigma(z), w dt = 2 pi RATIO (one step per implicit stage,
period 1), with the closed-form coefficients of the optimal LMS_k (eq. 2 of the
Multibody Syst. Dyn. paper, doi:10.1007/s11044-021-09806-9, docs/REFERENCES.md).  Independent of mbsim: the reference that
tests/t-spectral-exact.sh holds `mbsim spectral` to.
"""
import sys

import mpmath as mp

mp.mp.dps = 50


def lms(k, r):
    """a_1..a_k, b_0..b_k of y_n = sum a_j y_{n-j} + h sum b_j y'_{n-j}."""
    if k == 2:
        d = 3 - r
        a = [4 * (1 - r) / d, (3 * r - 1) / d]
        b = [x / ((1 + r) * d) for x in (2, 4 * r, 2 * r**2)]
    elif k == 3:
        d = r**2 - 5 * r + 10
        a = [3 * (2 * r**2 - 9 * r + 5) / d, -3 * (5 * r**2 - 9 * r + 2) / d,
             (10 * r**2 - 5 * r + 1) / d]
        b = [x / ((1 + r) * d) for x in (6, 18 * r, 18 * r**2, 6 * r**3)]
    elif k == 4:
        d = -r**3 + 7 * r**2 - 21 * r + 35
        a = [4 * (-2 * r**3 + 13 * r**2 - 35 * r + 14) / d,
             -4 * (1 - r) * (7 * r**2 - 34 * r + 7) / d,
             -4 * (14 * r**3 - 35 * r**2 + 13 * r - 2) / d,
             (35 * r**3 - 21 * r**2 + 7 * r - 1) / d]
        b = [x / ((1 + r) * d) for x in (20, 80 * r, 120 * r**2, 80 * r**3, 20 * r**4)]
    else:
        raise SystemExit("K must be 2, 3 or 4")
    return a, b


def radius(k, r, ratio):
    a, b = lms(k, r)
    z = 2j * mp.pi * ratio
    c = [1 - z * b[0]] + [-a[j - 1] - z * b[j] for j in range(1, k + 1)]
    roots = mp.polyroots(c, maxsteps=1000, extraprec=300)
    return max(abs(x) for x in roots)


def main():
    if len(sys.argv) < 4:
        raise SystemExit(__doc__)
    k = int(sys.argv[1])
    r = mp.mpf(sys.argv[2])
    for s in sys.argv[3:]:
        print(s, mp.nstr(radius(k, r, mp.mpf(s)), 25))


if __name__ == "__main__":
    main()
