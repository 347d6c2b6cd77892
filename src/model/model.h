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

#include <stddef.h>

#include "../util/diag.h"
#include "curve.h"
#include "func.h"

#define MODEL_GROUND (-1)

/* A particle is a point mass: loads and joints act at its centre only, so
 * it has no orientation.  Every formulation keeps 6 generalized coordinates
 * per body; a particle's rotational block is inert: J is a placeholder
 * (mass times 1 m^2 times I, for the scale of the iteration matrices), A0 = I,
 * w0 = 0, and no constraint row, force or geometric stiffness ever couples
 * it (the deck and model_finalize refuse marker points off the centre,
 * axes on a particle, torques), so its rotation stays exactly the identity
 * and its angular velocity exactly 0 under every scheme: each Newton
 * correction of the block is W^-1 times a zero right-hand side.  This costs
 * 3 unused coordinates per particle and no change to ra, kkt or the
 * integrators; a formulation with 3 coordinates per particle (recursive,
 * seed 003) can use model_nq().  Output, energies and mobility counts skip
 * the inert block. */
enum body_kind { BODY_RIGID, BODY_PARTICLE, BODY_NKINDS };

struct body {
	char *name;
	enum body_kind kind;
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
	JOINT_POINT_LINE,	/* 2: point 2 on the line through point 1 along axis 1 */
	JOINT_POINT_PLANE,	/* 1: point 2 on the plane through point 1 normal to axis 1 */
	JOINT_PLANAR,		/* 3: axes parallel, point 2 in the plane normal to axis 1 */
	JOINT_SCREW,		/* 5: cylindrical + translation = pitch / 2 pi x rotation */
	/* couplings of other joints' coordinates, one row each (joint_cpl) */
	JOINT_GEAR,		/* rotation 2 = ratio x rotation 1 (two revolutes) */
	JOINT_RACK_PINION,	/* translation 2 = radius x rotation 1 */
	JOINT_COUPLER,		/* sum of ratio_k x coordinate_k = 0, 2 or 3 joints */
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
	struct joint_cpl *cpl;	/* SCREW, GEAR, RACK_PINION, COUPLER (owned), else NULL */
	struct srcpos pos;
};

enum driver_kind { DRIVER_ROTATION, DRIVER_TRANSLATION };

/* A coupling row (model/coupler.c): sum over k < n of c[k] (q_k - q0[k])
 * = 0, q_k the coordinate kind[k] of joint[k] (joint_coordinate: a
 * rotation followed continuously through turns, or a translation).  The
 * row's two sides are the joint's body[0], body[1]: the bodies of the
 * coupled joints other than ground, at most two (model_finalize).  A
 * screw couples its own two coordinates (joint[0] = joint[1] = itself). */
#define JOINT_CPL_MAX 3
struct joint_cpl {
	int n;
	int joint[JOINT_CPL_MAX];
	enum driver_kind kind[JOINT_CPL_MAX];
	double c[JOINT_CPL_MAX];
	double q0[JOINT_CPL_MAX];	/* coordinates at t0 (model_finalize) */
	double ref0[JOINT_CPL_MAX];	/* the rotation terms' angles followed
					 * through turns at the start of a run:
					 * q0, or (run --from-static) the
					 * equilibrium's (ra_cpl_keep) */
	double pitch;			/* SCREW: m per turn */
};
static inline int joint_is_coupling(enum joint_type t)
{
	return t == JOINT_GEAR || t == JOINT_RACK_PINION || t == JOINT_COUPLER;
}

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

/* The force element types, one row each in elem/elem.def (their code:
 * elem/elem_NAME.c, behind the table of elem/elem.h). */
enum force_type {
#define ELEM(id, name, help) FORCE_##id,
#include "../elem/elem.def"
#undef ELEM
	FORCE_NTYPES
};

/* The time functions of an element, kept out of struct force so that
 * the plain springs of a large model do not carry them (made for
 * elements with an actuator function and motors alone; bench/README.md
 * "Memory per body"). */
struct force_ext {
	struct func act;	/* has_act: actuator force/torque (t) (TSDA/RSDA),
				 * or magnitude profile of POINT/TORQUE */
	struct func target;	/* MOTOR control: the target of its coordinate
				 * or rate */
};

/* A force element: what every type has; the rest is the type's own
 * parameter struct at par (elem/elem_NAME.c, those made by hand
 * elsewhere declared in elem/elem.h), owned, plain data. */
struct force {
	char *name;
	enum force_type type;
	int body[2];		/* the bodies of its ends (one-body elements:
				 * body[0]; elements in a joint: the joint's) */
	int has_act;		/* x->act given (here to fill the hole before s) */
	double s[2][3];		/* attachment points, body frames (TIRE: s[0] the
				 * wheel centre) */
	int joint;		/* elements in a joint, torque on a link: joint
				 * index, else -1 */
	/* expression of time and state (sexpr.h), owned: added to the
	 * tension/moment of TSDA/RSDA, the multiplier of POINT/TORQUE (in
	 * place of act), the effort of MOTOR; of TIRE the road height
	 * h(x, y) (sexpr.h, SX_ROAD_X/Y; NULL: the plane z = 0) */
	struct sexpr *ex;
	struct force_ext *x;	/* has_act or MOTOR (owned), else NULL */
	void *par;		/* the type's parameters (owned) */
	struct srcpos pos;
};

/* A named expression sampled with the output (/measures). */
struct measure {
	char *name;
	struct sexpr *ex;
	struct srcpos pos;
};

/* A named condition watched after every accepted step (events:,
 * sim/events.c): a crossing of zero in the asked direction is recorded
 * in /events, and a `stop` event ends the run there. */
enum event_dir { EVENT_BOTH = 0, EVENT_RISING = 1, EVENT_FALLING = 2 };
enum event_action { EVENT_STOP = 0, EVENT_RECORD = 1 };
struct event {
	char *name;
	struct sexpr *ex;
	enum event_dir dir;
	enum event_action action;
	struct srcpos pos;
};

/* A named point fixed on a body (s in the body frame), whose global
 * position, velocity and acceleration the output writes (/points). */
struct body_point {
	char *name;
	int body;		/* body index or MODEL_GROUND */
	double s[3];		/* m, body frame */
	struct srcpos pos;
};

/* A geometrically exact beam (Simo-Reissner rod) of three-node
 * finite-volume elements (seed 004 §3.1; model/beam.h).  Its nodes are
 * ordinary rigid bodies, consecutive from node0: element e joins bodies
 * node0 + 2e, + 2e + 1, + 2e + 2; a node's body frame is the section frame
 * (axis 1 along the beam).  The element's internal forces act on them
 * (form/ra_beam.c). */
struct beam {
	char *name;		/* in the model's packed names, like the bodies' */
	int nel, node0;		/* elements; body of node 0 (2 nel + 1 nodes) */
	double C[36];		/* sectional stiffness, row-major, strains
				 * (Gamma1..3, kappa1..3) in the section frame */
	int diag;		/* C diagonal (no coupling): set by beam_reference */
	double mu;		/* stiffness-proportional damping C = mu K, s */
	double m, J[3];		/* mass and mass moments per length (kg/m, kg m) */
	double *ref;		/* per element 2 evaluation points x (j, Gamma0[3],
				 * kappa0[3]): ds/dxi and the strains of the
				 * initial mesh (model_finalize) */
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
	struct body_point *points;	int npoints;
	int nparticles;		/* bodies of kind BODY_PARTICLE */
	struct curve *curves;	int ncurves;	/* tabulated curves (curve.h) */
	struct measure *measures;	int nmeasures;
	struct event *events;		int nevents;
	struct beam *beams;	int nbeams;	/* their nodes are in bodies */
	struct model_shapes *shapes;	/* what bodies look like (shape.h); NULL: none given */
	struct model_contact *contact;	/* contact materials and planes (contact.h); NULL: none */
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
struct body_point *model_add_point(struct model *m, const char *name);
/* A beam (name copied), its nodes to be added by the caller as bodies. */
struct beam *model_add_beam(struct model *m, const char *name);

/* Name lookup through hash tables, O(1): index, MODEL_GROUND for
 * "ground" (bodies only), -2 if not found.  Of equal names the first
 * added is found. */
int model_find_body(const struct model *m, const char *name);
int model_find_joint(const struct model *m, const char *name);
int model_find_driver(const struct model *m, const char *name);
int model_find_force(const struct model *m, const char *name);
int model_find_point(const struct model *m, const char *name);
int model_find_beam(const struct model *m, const char *name);
/* A hash of the model's structure (64-bit FNV-1a): the kinds, names and
 * connections of its bodies, joints, drivers and force elements, and its
 * constraint rows; not its parameters (masses, stiffnesses, functions),
 * which a study may change between a run and its restart. */
unsigned long long model_structure_hash(const struct model *m);

/* Free the name tables once the model is built: the run needs no
 * lookups (bench/README.md "Figures behind the model's comments").  A later model_find_*
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
 * markers at every call rather than stored, since stored they would be
 * a large share of what a body costs a run (bench/README.md). */
int model_joint_prims(const struct model *m, int j, struct prim *out);
/* The primitive of constraint row k (0 <= k < ncons, model finalized): a
 * driver's stored one, or a joint's made in *buf (a binary search of
 * the joints' rows and the joint's primitives: for occasional lookups;
 * loops over rows go joint by joint with model_joint_prims). */
const struct prim *model_prim(const struct model *m, int k, struct prim *buf);
/* The driver whose constraint row k is (the rows after the joints'), or
 * -1: a joint's row, or k out of range (model finalized). */
int model_row_driver(const struct model *m, int k);
/* Constraint row k by name into buf: "driver 'D'" or "joint 'J' (TYPE,
 * row i of n, PRIMITIVE)", "an unknown constraint" outside the rows. */
void model_row_name(const struct model *m, int k, char *buf, size_t n);

/* Coordinates that move: 6 per rigid body, 3 per particle (its inert
 * rotational block does not count); the Gruebler mobility is this minus
 * ncons. */
int model_nq(const struct model *m);
/* FNV-1a (64 bits) of s, high half folded into the low: the hash of the
 * model's name tables and of sexpr's cache. */
size_t model_hash(const char *s);
static inline int model_is_particle(const struct model *m, int b)
{
	return b >= 0 && m->bodies[b].kind == BODY_PARTICLE;
}
/* A particle is loaded and joined at its centre: body point s of
 * particle b within 1e-9 (1 m + |r0|) of it (the round-off of a point
 * given globally) is set to exactly 0 and 0 returned; farther, s is kept
 * and -1 returned with |s| (m) in *off.  0 for a body not a particle. */
int model_particle_centre(const struct model *m, int b, double s[3], double *off);

/* Registry tables (feed `mbsim list` and docs). */
extern const char *const joint_type_names[JOINT_NTYPES];
extern const char *const joint_type_help[JOINT_NTYPES];
extern const int joint_type_rows[JOINT_NTYPES];
extern const char *const force_type_names[FORCE_NTYPES];
extern const char *const force_type_help[FORCE_NTYPES];
extern const char *const body_kind_names[BODY_NKINDS];
/* Joint types a particle may take part in (bit per type), and which
 * of them need the particle as body2 (an axis on body1). */
#define JOINT_PARTICLE_OK ((1u << JOINT_SPHERICAL) | (1u << JOINT_DISTANCE) | \
			   (1u << JOINT_POINT_LINE) | (1u << JOINT_POINT_PLANE))
#define JOINT_AXIS_ON_1 ((1u << JOINT_POINT_LINE) | (1u << JOINT_POINT_PLANE))

/* Joint coordinate from poses: relative angle of marker 1's x about
 * marker 0's z in (-pi, pi] (ROTATION), or displacement of point 1 from
 * point 0 along marker 0's z (TRANSLATION). */
double joint_coordinate(const struct joint *j, enum driver_kind k,
			const double *r0, const double *A0, const double *r1,
			const double *A1);
double model_joint_coordinate0(const struct model *m, const struct joint *j,
			       enum driver_kind k);

#endif
