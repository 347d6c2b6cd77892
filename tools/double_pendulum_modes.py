#!/usr/bin/python3
"""Small-oscillation frequencies of the double pendulum of Fang et al. (2023) §3
(decks/double_pendulum.yaml) from its linearized minimal equations, for
tests/t-statics.sh: an independent check of `mbsim modes`, which works in
absolute coordinates with a null-space projection and finite differences.

Minimal coordinates: the angles t1, t2 of the bars from the downward
vertical, both about the global x axis.  Bar k has mass m_k, length l_k,
its centroid at c_k = l_k / 2 from its proximal pin and J_k = m_k (w^2 +
l_k^2) / 12 about its centroid and the pin axis (the deck's inertia about
the body z axis, which both orientations map to global x).  Lagrange's
equations linearized about t1 = t2 = 0:
  M = [[J1 + m1 c1^2 + m2 l1^2, m2 l1 c2], [m2 l1 c2, J2 + m2 c2^2]]
  K = diag((m1 c1 + m2 l1) g, m2 c2 g)
and det(K - w^2 M) = 0 (scipy.linalg.eigh).  Prints the frequencies in
Hz, ascending, one a line, to 17 digits.

Usage: /usr/bin/python3 tools/double_pendulum_modes.py [L w rho g]
(defaults: the deck's L = 2 m, w = 0.05 m, rho = 7800 kg/m^3, g = 9.81).
"""
import math
import sys

import numpy as np
import scipy.linalg


def frequencies(L, w, rho, g):
    l1, l2 = 2 * L, L
    m1, m2 = rho * l1 * w * w, rho * l2 * w * w
    c1, c2 = l1 / 2, l2 / 2
    J1 = m1 * (w * w + l1 * l1) / 12
    J2 = m2 * (w * w + l2 * l2) / 12
    M = np.array([[J1 + m1 * c1 ** 2 + m2 * l1 ** 2, m2 * l1 * c2],
                  [m2 * l1 * c2, J2 + m2 * c2 ** 2]])
    K = np.diag([(m1 * c1 + m2 * l1) * g, m2 * c2 * g])
    w2 = scipy.linalg.eigh(K, M, eigvals_only=True)
    return sorted(math.sqrt(x) / (2 * math.pi) for x in w2)


def main():
    args = [float(a) for a in sys.argv[1:]] or [2.0, 0.05, 7800.0, 9.81]
    if len(args) != 4:
        sys.exit("usage: double_pendulum_modes.py [L w rho g]")
    for f in frequencies(*args):
        print(repr(f))


if __name__ == "__main__":
    main()
