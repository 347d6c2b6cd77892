#!/usr/bin/python3
"""study001_stiffness.py - where the stiffness of Sandu et al. (2001)'s vehicle (§5.2) comes from.

Sandu et al. (2001) (docs/REFERENCES.md) states a dominant eigenvalue of about -2.6e5 1/s
for its 14-body HMMWV, with TSDAs k = 2e7 N/m, c = 2e6 N s/m between the upper
control arms and the chassis.  decks/hmmwv14.yaml has -5.4e3.  The spring is
overdamped (c^2 >> 4 k m), so its fast root is close to -c / m_eff, m_eff the
mass the damper moves, reflected to its line: m_eff = c / |lambda|.  This
script builds variants of the deck that change one thing each and prints the
dominant eigenvalue of every one (mbsim modes at t = 0.01 s) and m_eff:

  deck      decks/hmmwv14.yaml as it is: arms as median links S-S plus a
            distance leg (18 degrees of freedom), spring at the arm's centroid
  revolute  Chrono's own arms (revolute to the chassis about the pivot axis,
            spherical at the ball joint; 10 degrees of freedom), spring as
            in the deck: does the joint set change the stiff mode?
  at_ball   the deck's joints, the spring moved (vertically, same length)
            to the upper ball joint U: the largest lever an arm offers
  unsprung=1/64
            the deck's STIFF VARIANT (parameters.unsprung = 1/64: the
            masses and inertias of the arms and spindles divided by 64, the
            layout moved to its equilibrium; not plausible HMMWV data):
            does it give the paper's -2.6e5 (within 10 %)?

The deck's points are expressions (the rigid move of its STIFF VARIANT), so
the variants' new points and axes are written as expressions of them too.

Usage:
  /usr/bin/python3 tools/study001_stiffness.py --mbsim build/mbsim [--deck decks/hmmwv14.yaml]
      [--out DIR]   (writes DIR/stiffness.md and DIR/stiffness.csv)
"""
import argparse
import copy
import csv
import json
import os
import subprocess
import sys
import tempfile

import yaml


def ex(v):
    """A deck value (number or expression string) as a parenthesized expression."""
    return '(%s)' % (v if isinstance(v, str) else repr(float(v)))


def variants(deck):
    out = {'deck': deck}
    joints = {j['name']: j for j in deck['joints']}
    # revolute arms: the median link's pivot M lies on the pivot axis, whose
    # other hard point is the distance leg's chassis end (deck: JOINT SET)
    rv = copy.deepcopy(deck)
    nj = []
    for j in rv['joints']:
        n = j['name']
        if n.endswith('_leg'):
            continue
        if n.endswith('_pivot'):
            leg = joints[n[:-len('_pivot')] + '_leg']
            ax = ['%s - %s' % (ex(a), ex(b)) for a, b in zip(leg['at1'], j['point'])]
            j = {'name': n, 'type': 'revolute', 'body1': 'chassis', 'body2': j['body2'],
                 'point': j['point'], 'axis': ax}
        nj.append(j)
    rv['joints'] = nj
    out['revolute'] = rv
    # spring at the ball joint, same direction and length
    ub = copy.deepcopy(deck)
    for f in ub['forces']:
        if f['type'] != 'tsda':
            continue
        corner = f['name'].split('_')[-1]
        u = joints['uca_%s_ball' % corner]['point']
        f['at1'] = ['%s - %s + %s' % (ex(a), ex(b), ex(c)) for a, b, c in zip(f['at1'], f['at2'], u)]
        f['at2'] = list(u)
    out['at_ball'] = ub
    # the stiff variant: the deck's own parameter (decks/hmmwv14.yaml, STIFF VARIANT)
    sv = copy.deepcopy(deck)
    sv['parameters']['unsprung'] = '1/64'
    out['unsprung=1/64'] = sv
    return out


def dominant(mbsim, path):
    cmd = [mbsim, 'modes', path, '--at', '0.01', '--json',
           '--set', 'integrator.method=rn4', '--set', 'integrator.adaptive=true',
           '--set', 'integrator.atol=1e-3', '--set', 'integrator.rtol=1e-3']
    r = subprocess.run(cmd, capture_output=True, text=True)
    if r.returncode:
        sys.exit('%s: %s' % (' '.join(cmd), r.stderr.strip()))
    d = json.loads(r.stdout)
    lam = min((m['eigenvalue'] for m in d['modes']), key=lambda e: e[0])
    return d['dof'], lam


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument('--mbsim', default='build/mbsim')
    ap.add_argument('--deck', default='decks/hmmwv14.yaml')
    ap.add_argument('--out')
    a = ap.parse_args()
    deck = yaml.safe_load(open(a.deck))
    cs = float(deck['parameters']['cs'])  # N s/m, the TSDA damping (the paper's 2e6)
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        for name, d in variants(deck).items():
            p = os.path.join(tmp, name.replace('/', '_') + '.yaml')
            with open(p, 'w') as fh:
                yaml.safe_dump(d, fh, sort_keys=False)
            dof, lam = dominant(a.mbsim, p)
            rows.append({'variant': name, 'dof': dof, 'eig_re': lam[0], 'eig_im': lam[1],
                         'm_eff_kg': cs / abs(lam[0])})
    rows.append({'variant': 'Sandu et al. (2001)', 'dof': 18, 'eig_re': -2.6e5, 'eig_im': float('nan'),
                 'm_eff_kg': 2e6 / 2.6e5})
    md = ['| variant | dof | dominant eigenvalue [1/s] | m_eff = c / abs(lambda) [kg] |',
          '|---|---|---|---|']
    for r in rows:
        md.append('| %s | %d | %.4g | %.3g |' % (r['variant'], r['dof'], r['eig_re'], r['m_eff_kg']))
    print('\n'.join(md))
    if a.out:
        with open(os.path.join(a.out, 'stiffness.md'), 'w') as fh:
            fh.write('\n'.join(md) + '\n')
        with open(os.path.join(a.out, 'stiffness.csv'), 'w', newline='') as fh:
            w = csv.DictWriter(fh, fieldnames=list(rows[0]))
            w.writeheader()
            w.writerows(rows)


if __name__ == '__main__':
    main()
