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
 *   x.P, ..., vz.P        position and velocity of body-fixed point P
 *                         (points:), global, m and m/s (a body of the
 *                         same name wins)
 *   deflection, rate      (force elements only) the element's own
 *                         deflection and its rate (see mbsim-deck(5))
 *
 * and deck parameters as constants (a state name shadows a parameter of
 * the same name); curves (curve.h) are functions of one argument.
 *
 * A road height (the tire element, sx_scope.road) is a function of the
 * place only: it names x and y, the global coordinates of the point
 * below the wheel centre (m), besides parameters and curves, and no
 * state or time.
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
	SX_POINT,		/* idx = point (model.points), sub = 0..5: x y z vx vy vz */
	SX_ROAD_X, SX_ROAD_Y,	/* a road height's x and y (sx_scope.road) */
};

struct sx_var {
	enum sx_kind kind;
	int idx, sub;
	double val;		/* muparser reads it here; never moves */
	double unw[3];		/* SX_Q of a rotation: last wrapped angle, whole
				 * turns added to it, 1 once taken (unwrap) */
};

struct sexpr {
	char *text;
	void *h;		/* muparser handle */
	struct sx_var *v;
	int nv;
	int refs;		/* elements holding it (sx_cache), 1 unshared */
};

/* Compiled expressions shared by their text: elements whose expression
 * has the same text, the same 'self' and the same values of the
 * parameters it names (the copies of a repeat block whose text does not
 * change with the index) get one parser and one set of variable cells
 * (some 6.5 KB and 0.14 ms of set-up each).  Sharing the cells is safe:
 * sx_fill sets every one before each evaluation, one element at a time,
 * and the only state a cell keeps (the unwrapping of q.J) belongs to the
 * joint, which the same text names for every holder. */
struct sx_cache;
struct sx_cache *sx_cache_new(void);
/* Free the table and its references; the expressions stay with their
 * holders. */
void sx_cache_free(struct sx_cache **c);

/* What an expression may name. */
struct sx_scope {
	const struct model *m;
	const char *const *pnames;	/* deck parameters (constants) */
	const double *pvals;
	int np;
	const struct curve *curves;	/* must not move while expressions live */
	int ncurves;
	int self;			/* deflection and rate allowed */
	int road;			/* a road height: x and y only, no state */
	struct sx_cache *cache;		/* share by text (NULL: compile each) */
};

struct sx_err {
	int pos;		/* 0-based offset in the text */
	char msg[320];
};

/* Compile text (or take the same one from sc->cache).  0 and *out, or -1
 * with err (unknown names get a "did you mean" among the names of the
 * scope). */
int sexpr_compile(const char *text, const struct sx_scope *sc, struct sexpr **out,
		  struct sx_err *err);
/* Value with the variables as filled; NaN if muparser fails. */
double sexpr_value(struct sexpr *e);
/* Release one holder's reference; the last frees it. */
void sexpr_free(struct sexpr **e);
/* 1 if the expression reads any state (not only t and constants); of a
 * road height, 1 if it names x or y. */
int sexpr_has_state(const struct sexpr *e);

/* Joint types that have a coordinate q.J: revolute, cylindrical
 * (the angle), translational (the displacement). */
int sexpr_joint_has_q(int joint_type);

#endif
