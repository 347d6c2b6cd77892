/* sexpr.h - expressions of time and state (forces, efforts, measures).
 *
 * A state expression is a muparser expression compiled once at set-up
 * whose variables are bound to quantities of the running model:
 *
 *   t                     time, s
 *   q.J, qd.J             coordinate and rate of joint J: the relative
 *                         angle of a revolute or cylindrical joint (rad,
 *                         continuous: unwrapped from its last evaluation),
 *                         the displacement of a translational one (m)
 *   x.B, y.B, z.B         centroid of body B, global, m
 *   vx.B, vy.B, vz.B      its velocity, global, m/s
 *   wx.B, wy.B, wz.B      its angular velocity, global, rad/s
 *   rx.B, ry.B, rz.B      its rotation vector log(A), global, rad
 *   deflection, rate      (force elements only) the element's own
 *                         deflection and its rate (see mbsim-deck(5))
 *
 * and deck parameters as constants (a state name shadows a parameter of
 * the same name); curves (curve.h) are functions of one argument.
 * The form layer fills each variable's value before sexpr_value.
 */
#ifndef MBSIM_SEXPR_H
#define MBSIM_SEXPR_H

#include "curve.h"

struct model;

enum sx_kind {
	SX_TIME,
	SX_Q, SX_QD,		/* idx = joint */
	SX_BODY,		/* idx = body, sub = 0..11: x y z vx vy vz wx wy wz rx ry rz */
	SX_SELF_DEF, SX_SELF_RATE,
};

struct sx_var {
	enum sx_kind kind;
	int idx, sub;
	double val;		/* muparser reads it here; never moves */
	double raw_last;	/* SX_Q of a rotation: last wrapped angle */
	double turns;		/* and the whole turns added to it */
	int have_last;
};

struct sexpr {
	char *text;
	void *h;		/* muparser handle */
	struct sx_var *v;
	int nv;
};

/* What an expression may name. */
struct sx_scope {
	const struct model *m;
	const char *const *pnames;	/* deck parameters (constants) */
	const double *pvals;
	int np;
	const struct curve *curves;	/* must not move while expressions live */
	int ncurves;
	int self;			/* deflection and rate allowed */
};

struct sx_err {
	int pos;		/* 0-based offset in the text */
	char msg[320];
};

/* Compile text.  0 and *out, or -1 with err (unknown names get a
 * "did you mean" among the names of the scope). */
int sexpr_compile(const char *text, const struct sx_scope *sc, struct sexpr **out,
		  struct sx_err *err);
/* Value with the variables as filled; NaN if muparser fails. */
double sexpr_value(struct sexpr *e);
void sexpr_free(struct sexpr **e);
/* 1 if the expression reads any state (not only t and constants). */
int sexpr_has_state(const struct sexpr *e);

/* Joint types that have a coordinate q.J: revolute, cylindrical
 * (the angle), translational (the displacement). */
int sexpr_joint_has_q(int joint_type);

#endif
