/* tree.h - the recursive joint-coordinate formulation "tree" (seed 003
 * §3), offered as an ODE (ode.h) to the schemes rn4, w2 and adams.
 *
 * Topology (seed 003 §3.1).  The model must be a tree rooted at the
 * ground: every body has exactly one joint towards the ground (its
 * parent joint; the joint's other body is its parent, or the ground).  A
 * body with no joint at all is a free (floating) body, with a 6-coordinate
 * "free joint" to the ground; so is the first body (lowest index) of a
 * jointed group that no joint connects to the ground.  A joint between
 * two bodies already connected closes a loop and is refused, named; so
 * are joint types without joint coordinates here (distance, point_on_line,
 * point_on_plane), joints on particles, friction and a second
 * driver of one coordinate (tree_check).  A particle without joints is a node of 3 coordinates,
 * its position (orientation the identity, as model.h keeps it).
 *
 * Coordinates q_i of the joint of body i, in the frames of its two
 * markers (joint.s, joint.F: P on the parent, Q on the child, whichever
 * of body1 and body2 that is): the relative rotation R = P^T Q and the
 * offset d of Q's origin from P's, in P, are (C a constant chosen at the
 * start from the initial relative pose, Rz a rotation about marker z):
 *
 *   revolute       1: angle a        R = Rz(a) C           d = 0
 *   cylindrical    2: angle a, s     R = Rz(a) C           d = s e_z
 *   translational  1: slide s        R = C                 d = s e_z
 *   universal      2: a, b           R = Rz(a) C Rz(b)     d = 0
 *   spherical      3: phi            R = exp(phi~) C       d = 0
 *   planar         3: x, y, angle a  R = Rz(a) C           d = x e_x + y e_y
 *   fixed          0                 R = C                 d = 0
 *   free body      6: x, phi         A = exp(phi~) C       r = x
 *   free particle  3: x              A = I                 r = x
 *
 * C makes the constraint rows of the joint (model.c's primitives) hold
 * for every q: a sign pattern for revolute, cylindrical, translational,
 * planar and fixed (axes parallel or antiparallel), a matrix with C e_z _|_ e_z
 * for the universal joint.  Each form is the same with the two markers
 * exchanged, so a joint may point either way.  phi is a rotation vector,
 * a local chart about C: after an accepted step in which |phi| passed
 * TREE_CHART_MAX, accept() re-bases it (C <- exp(phi~) C, phi = 0,
 * phi-dot <- the relative angular velocity), so there is no singularity
 * of Euler angles.
 *
 * f(t, q, q-dot): positions and velocities of all bodies by a forward
 * pass (seed 003 eqs. 7, 8), the applied forces of ra_forces with the
 * gyroscopic term, then the O(N) articulated-body recursion for regular
 * (positive definite) body masses: a backward pass of articulated
 * inertias and bias forces (the condensed mass matrices and forces of
 * seed 003 eq. 17, with (J^T M J)^+ the inverse) and a forward pass of
 * joint and body accelerations (eqs. 24a, 25a).  tree_impl.h states the
 * frames, tree_kin.c and tree_rec.c the equations.
 *
 * Drivers make a joint coordinate rheonomic: q, q-dot, q-ddot of the
 * driver's function (ra's coordinate, model.c joint_coordinate, turned
 * into tree's by a sign and whole turns at the start), so it leaves the
 * state (the ODE's n is the coordinates less the driven ones) and the
 * recursion takes the joint as locked along it with the known bias S_a
 * q-ddot_a (seed 003 eq. 9 with that q-ddot given).
 *
 * The model's constraint rows have no multipliers of their own here:
 * bodies() gives each joint's rows the multipliers whose constraint force
 * is the joint's transmitted wrench of the recursion (least squares over
 * the joint's rows and its drivers' rows, exact when they are
 * independent: a driver's is its effort), so output,
 * reactions and monitors read them as from ra.
 */
#ifndef MBSIM_TREE_H
#define MBSIM_TREE_H

#include "ode.h"

#define TREE_CHART_MAX 1.0	/* rad: |phi| past which a chart is re-based */
/* a joint coordinate is massless when its condensed inertia is at most
 * this fraction of its composite (rigid-subtree) inertia (tree_rec.c) */
#define TREE_RANK_TOL 1e-10

/* Is body b's mass matrix diag(m I, J) positive definite?  (Otherwise
 * only the tree formulation with bdf takes the model: seed 003 §3.3.) */
int tree_body_regular(const struct model *m, int b);

struct tree;

/* Is m a model the tree formulation takes?  0, or -1 with an error per
 * offending element (at its FILE:LINE:COL) in d. */
int tree_check(const struct model *m, struct diag *d);

/* On s (borrowed); NULL with records in d when tree_check fails. */
struct tree *tree_new(struct ra *s, struct diag *d);
void tree_free(struct tree **T);
/* The ODE view of T (ode.h); valid while T lives. */
struct ode_sys *tree_ode(struct tree *T);

int tree_ncoords(const struct tree *T);
long tree_rebases(const struct tree *T);	/* chart re-bases so far */

/* The coordinates of joint type t (0 for a type tree does not take). */
int tree_joint_ncoords(enum joint_type t);
/* Model joint j's coordinates and their rates at the last f into q, qd
 * (room for 3); returns their count.  Those of tree.h's table, except
 * that a spherical joint gives the rotation vector phi of the child
 * body's rotation relative to the parent body since the start,
 * A_p^T A_c = exp(phi~) (A_p^T A_c)(t0), |phi| <= pi, in the parent's
 * body frame (the global frame for the ground), and phi-dot (not the
 * re-based chart). */
int tree_joint_coords(const struct tree *T, int j, double *q, double *qd);

/* For tests: the joint of body b's coordinates (first, count), the parent
 * body (-1 ground) and the joint (-1: a free body). */
void tree_node(const struct tree *T, int b, int *q0, int *n, int *parent, int *joint);

#endif
