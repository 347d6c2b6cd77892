/* model.h - the formulation-independent multibody model.
 *
 * Built once by deck/ (or by tests directly), then immutable. Units SI.
 * Frames: "global" is the inertial frame; "body frame" is the centroidal
 * frame of a body, rotated by A (body -> global, row-major 3x3).
 * Ground is body index MODEL_GROUND (-1): r = 0, A = I, at rest.
 *
 * Constraints are written against a body's r and A only (000 §2); joints
 * and drivers are lists of scalar primitives (prim.h).
 */
#ifndef MBSIM_MODEL_H
#define MBSIM_MODEL_H

#include "../util/diag.h"
#include "func.h"

#define MODEL_GROUND (-1)

struct body {
	char *name;
	double mass;		/* kg, > 0 */
	double J[9];		/* centroidal inertia in body frame, SPD, kg m^2 */
	double r0[3];		/* initial centroid position, global, m */
	double A0[9];		/* initial rotation body -> global */
	double v0[3];		/* initial centroid velocity, global, m/s */
	double w0[3];		/* initial angular velocity, body frame, rad/s */
	struct srcpos pos;	/* where the deck defines it */
};

enum joint_type {
	JOINT_SPHERICAL,	/* 3 rows: points coincide */
	JOINT_REVOLUTE,		/* 5: spherical + z1 _|_ x2', y2' ... (see joint.c) */
	JOINT_UNIVERSAL,	/* 4: spherical + z1 . z2 = 0 */
	JOINT_CYLINDRICAL,	/* 4: axes parallel, point 2 on axis 1 */
	JOINT_TRANSLATIONAL,	/* 5: cylindrical + no rotation about axis */
	JOINT_FIXED,		/* 6: spherical + frames aligned */
	JOINT_DISTANCE,		/* 1: |p2 - p1| = length */
	JOINT_NTYPES
};

/* A joint connects marker frames on two bodies.  s[k] is the marker point
 * on body[k] in that body's frame; F[k] the marker axes (columns x, y, z)
 * in that body's frame, z = joint axis.  For universal joints z of
 * marker 0 and z of marker 1 are the two cross axes (perpendicular). */
struct joint {
	char *name;
	enum joint_type type;
	int body[2];		/* body indices or MODEL_GROUND */
	double s[2][3];
	double F[2][9];
	double length;		/* distance joint: m */
	int row0, nrows;	/* its rows in the constraint vector (set by model_finalize) */
	struct srcpos pos;
};

enum driver_kind { DRIVER_ROTATION, DRIVER_TRANSLATION };

/* A driver prescribes a joint's coordinate as a function of time: the
 * relative angle of marker 1's x axis about marker 0's z axis (revolute,
 * cylindrical) or the displacement of point 1 along marker 0's z
 * (translational, cylindrical). One constraint row. */
struct driver {
	char *name;
	int joint;		/* index into model.joints */
	enum driver_kind kind;
	struct func f;		/* coordinate(t) and two derivatives */
	int relative;		/* 1: f moves the joint from where it is at t0:
				 * target = coordinate(t0) + f(t) - f(t0) */
	double offset;		/* set by model_finalize: target = f(t) + offset */
	int row0;		/* set by model_finalize */
	struct srcpos pos;
};

enum force_type {
	FORCE_TSDA,	/* spring-damper-actuator between two points */
	FORCE_RSDA,	/* rotational spring-damper-actuator about a revolute joint */
	FORCE_POINT,	/* force vec * f(t) at a point of a body */
	FORCE_TORQUE,	/* torque vec * f(t) on a body */
	FORCE_FRICTION,	/* Coulomb friction in a translational joint (000 §3.4) */
	FORCE_NTYPES
};

struct force {
	char *name;
	enum force_type type;
	int body[2];		/* TSDA: both ends; POINT/TORQUE: body[0] */
	double s[2][3];		/* attachment points, body frames */
	double k, c;		/* stiffness (N/m or N m/rad), damping */
	double l0;		/* TSDA free length m; RSDA free angle rad */
	struct func act;	/* actuator force/torque (t) (TSDA/RSDA), or
				 * magnitude profile of POINT/TORQUE */
	int has_act;
	double vec[3];		/* POINT/TORQUE direction*magnitude */
	int body_frame;		/* POINT/TORQUE: vec in body frame (1) or global (0) */
	int joint;		/* RSDA, FRICTION: joint index */
	double mu;		/* FRICTION coefficient */
	double v_eps;		/* FRICTION: |v| below this -> no force, m/s */
	struct srcpos pos;
};

struct prim;
struct model_index;	/* capacities and name hash tables (model.c) */

struct model {
	char *title;
	double gravity[3];		/* m/s^2, global */
	struct body *bodies;	int nbodies;
	struct joint *joints;	int njoints;
	struct driver *drivers;	int ndrivers;
	struct force *forces;	int nforces;
	/* filled by model_finalize: */
	int ncons;				/* number of constraint rows: the
						 * joints' (joint.row0, nrows), then
						 * one per driver (driver.row0) */
	struct prim *dprims;			/* the drivers' primitives; a joint's
						 * are made when asked for
						 * (model_joint_prims, model_prim) */
	struct model_index *ix;			/* private to model.c */
};

/* Lifecycle: model_new returns an empty model; add_* append a zeroed
 * element (name copied) and return it for the caller to fill.  Appending
 * is amortized O(1) (arrays double) and moves earlier elements, so do not
 * keep pointers to elements across an add.  The name must not change once
 * added (the name index points at it). */
struct model *model_new(void);
void model_free(struct model **m);
struct body *model_add_body(struct model *m, const char *name);
struct joint *model_add_joint(struct model *m, const char *name, enum joint_type t);
struct driver *model_add_driver(struct model *m, const char *name);
struct force *model_add_force(struct model *m, const char *name, enum force_type t);

/* Name lookup through hash tables, O(1): index, MODEL_GROUND for
 * "ground" (bodies only), -2 if not found.  Of equal names the first
 * added is found. */
int model_find_body(const struct model *m, const char *name);
int model_find_joint(const struct model *m, const char *name);
int model_find_driver(const struct model *m, const char *name);
int model_find_force(const struct model *m, const char *name);
/* Free the name tables (some 126 bytes a body of a pendulum array) once
 * the model is built: the run needs no lookups.  A later model_find_*
 * remakes the table it needs, O(N) once. */
void model_drop_index(struct model *m);

/* Helpers for builders: initial pose of body b (ground -> identity). */
void model_pose0(const struct model *m, int b, double r[3], double A[9]);
/* Global point p / direction u at t0 -> body b's frame. */
void model_point_to_body(const struct model *m, int b, const double p[3], double s[3]);
void model_dir_to_body(const struct model *m, int b, const double u[3], double a[3]);
/* Set a joint's markers from a global point and axis at t0 (the usual
 * deck form). axis2 is the second axis of a universal joint (else NULL). */
void model_joint_global(struct model *m, struct joint *j, const double p[3],
			const double axis[3], const double *axis2);
/* Set a joint's markers from body-frame points and axes: marker 0's frame
 * from z0; marker 1's z from z1 and its x from marker 0's x at t0. */
void model_joint_local(struct model *m, struct joint *j, const double s0[3],
		       const double s1[3], const double z0[3], const double z1[3]);

/* Expand joints and drivers into primitives, number the rows, check
 * references. Returns 0, or -1 with records in d. */
int model_finalize(struct model *m, struct diag *d);

/* Most rows a joint has (fixed). */
#define MODEL_JOINT_ROWS_MAX 6
/* The primitives of joint j, its rows in order, into out (room for
 * MODEL_JOINT_ROWS_MAX); returns their number.  Made from the joint's
 * markers at every call rather than stored: 104 bytes a row, 520 a
 * revolute joint, a fifth of what a body of a pendulum array costs a
 * run (issue 17: 4 KB a body). */
int model_joint_prims(const struct model *m, int j, struct prim *out);
/* The primitive of constraint row k (0 <= k < ncons, model finalized): a
 * driver's stored one, or a joint's made in *buf (a binary search of
 * the joints' rows and the joint's primitives: for occasional lookups;
 * loops over rows go joint by joint with model_joint_prims). */
const struct prim *model_prim(const struct model *m, int k, struct prim *buf);

/* Registry tables (feed `mbsim list` and docs). */
extern const char *const joint_type_names[JOINT_NTYPES];
extern const char *const joint_type_help[JOINT_NTYPES];
extern const int joint_type_rows[JOINT_NTYPES];
extern const char *const force_type_names[FORCE_NTYPES];
extern const char *const force_type_help[FORCE_NTYPES];

/* Joint coordinate from poses: relative angle of marker 1's x about
 * marker 0's z in (-pi, pi] (ROTATION), or displacement of point 1 from
 * point 0 along marker 0's z (TRANSLATION). */
double joint_coordinate(const struct joint *j, enum driver_kind k,
			const double *r0, const double *A0, const double *r1,
			const double *A1);
double model_joint_coordinate0(const struct model *m, const struct joint *j,
			       enum driver_kind k);

#endif
