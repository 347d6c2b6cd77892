/* keys.c - the deck's key table, suggestions, and the key listing. */
#include "keys.h"
#include "../model/model.h"
#include "../model/shape.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define J(t) (1u << JOINT_##t)
#define F(t) (1u << FORCE_##t)
#define FN(t) (1u << FUNC_##t)

#define B(t) (1u << BODY_##t)

#define J_AXIS (J(REVOLUTE) | J(CYLINDRICAL) | J(TRANSLATIONAL) | J(UNIVERSAL) | J(FIXED) | \
		J(POINT_LINE) | J(POINT_PLANE) | J(PLANAR) | J(SCREW))
/* couplings of other joints' coordinates; every other type joins two bodies */
#define J_CPL (J(GEAR) | J(RACK_PINION) | J(COUPLER))
#define J_BODIES (((1u << JOINT_NTYPES) - 1) & ~J_CPL)
#define J_NOTDIST (J_AXIS | J(SPHERICAL))

static const struct key_def repeat_keys[] = {
	{ "index", K_STR, 0, NULL, "name of the index variable (an identifier)" },
	{ "from", K_INT, 0, NULL, "first index value (default 1)" },
	{ "to", K_INT, 0, NULL, "last index value; to < from gives no items" },
	{ NULL, 0, 0, NULL, NULL }
};
static const struct key_sect repeat_sect = { "repeat", repeat_keys };

static const struct key_def time_keys[] = {
	{ "start", K_NUM, 0, NULL, "initial time in s (default 0)" },
	{ "end", K_NUM, 0, NULL, "final time in s, greater than start (required)" },
	{ NULL, 0, 0, NULL, NULL }
};
static const struct key_sect time_sect = { "time", time_keys };

static const struct key_def integ_keys[] = {
	{ "method", K_STR, 0, NULL, "integration scheme, see `mbsim list integrators`, or auto: scheme and formulation chosen from the model, see mbsim-deck(5) (default hi)" },
	{ "formulation", K_STR, 0, NULL, "coordinates of the ODE schemes rn4, w2, adams and dopri5: auto (the scheme's own: rp, or tree for dopri5 and bdf), rp (Euler parameters with coordinate partitioning) or tree (recursive joint coordinates of a tree-structured model rooted at the ground, Arnold 2013); other schemes take auto only (default auto)" },
	{ "step", K_NUM, 0, NULL, "step size in s, > 0 (default 1e-3)" },
	{ "tolerance", K_NUM, 0, NULL, "Newton convergence tolerance, > 0 (default 1e-10)" },
	{ "max_iterations", K_INT, 0, NULL, "Newton iteration limit per step, >= 1 (default 50)" },
	{ "linear_solver", K_STR, 0, NULL, "auto, schur or umfpack (default auto)" },
	{ "rho_inf", K_NUM, 0, NULL, "spectral radius at infinity of the dissipative index-3 schemes (doi:10.1007/s11044-021-09806-9), in [0, 1] (default 0.6)" },
	{ "alpha", K_NUM, 0, NULL, "HHT alpha; when not given (rho_inf-1)/(rho_inf+1), at least -1/3, in [-1/3, 0] (default from rho_inf)" },
	{ "adaptive", K_BOOL, 0, NULL, "control the step from the error estimate of lms2 or esdirk436l2sa2 (default false)" },
	{ "assess_error", K_BOOL, 0, NULL, "adaptive schemes: integrate a second time at a tenth of atol and rtol and report the largest difference of the bodies' positions at the samples as the run's global error estimate, with a warning when it is above 10 times atol + rtol Y (the second run takes 1.3 to 2.5 times the first's time) (default false)" },
	{ "atol", K_NUM, 0, NULL, "absolute error tolerance of the step control, > 0 (default 1e-6)" },
	{ "rtol", K_NUM, 0, NULL, "relative error tolerance of the step control, in [0, 1] (default 1e-6)" },
	{ "safety", K_NUM, 0, NULL, "safety factor of the step control, in [0.001, 1] (default 0.9)" },
	{ "facmin", K_NUM, 0, NULL, "smallest step ratio of the step control, in [0.001, 0.999] (default 0.2)" },
	{ "facmax", K_NUM, 0, NULL, "largest step ratio of the step control, in [1.001, 1000] (default 5)" },
	{ "max_step", K_NUM, 0, NULL, "largest step the step control may take, s, > 0 (default: the whole run)" },
	{ "index", K_INT, 0, NULL, "constraint formulation of the dae3 schemes except hht and genalpha: 3 (positions, as in doi:10.1007/s11044-021-09806-9) or 2 (positions and velocities with a second multiplier, Gear-Gupta-Leimkuhler) (default 3)" },
	{ "startup", K_STR, 0, NULL, "start of lms2/3/4: trapezoidal or single_step (default trapezoidal)" },
	{ "variant", K_STR, 0, NULL, "beta and gamma of newmark and tangent_newmark by name: trapezoidal (1/4, 1/2), fox_goodwin (1/12, 1/2), linear_acceleration (1/6, 1/2) or central_differences (0, 1/2; tangent_newmark only); not with beta or gamma (default trapezoidal)" },
	{ "beta", K_NUM, 0, NULL, "Newmark beta of newmark and tangent_newmark, in [0, 1]; newmark needs beta > 0 (default 1/4)" },
	{ "gamma", K_NUM, 0, NULL, "Newmark gamma of newmark and tangent_newmark (alpha in doi:10.1007/s11012-021-01433-0), in [1/2, 1] (default 1/2)" },
	{ "jacobian", K_STR, 0, NULL, "integration Jacobians J1, J2 of rn4 and w2: auto (analytic where the formulation has them: rp with no particles and as force elements only TSDAs and RSDAs without state expressions, forces and torques on a body whose expressions name no state, tires and viscous elements; forward differences of f otherwise) or differences (always differences) (default auto)" },
	{ "predictor", K_STR, 0, NULL, "first Newton iterate of hi and fi: extrapolate (a polynomial through up to the last six steps' solutions, for hi multipliers and displacement, of the degree that predicted the last step best) or last (the last step's values) (default extrapolate)" },
	{ NULL, 0, 0, NULL, NULL }
};
static const struct key_sect integ_sect = { "integrator", integ_keys };

static const struct key_def output_keys[] = {
	{ "every", K_INT, 0, NULL, "write every k-th step, >= 1; unset: every k-th with k the smallest that writes at most 10000 samples of a fixed-step run besides the start and the end, an adaptive run's steps (time.end - time.start) / 10000 or more apart (default auto)" },
	{ "times", K_NUMLIST, 0, NULL, "sample times in s, increasing, in [time.start, time.end]; the run steps onto each and writes only these (excludes every)" },
	{ "flush_interval", K_NUM, 0, NULL, "seconds of wall time between writes of the samples kept in memory to the file, >= 0; 0: every sample (default 2)" },
	{ "compression", K_INT, 0, NULL, "deflate level of the series, 0 (none) to 9 (default 0)" },
	{ "euler", K_STR, 0, NULL, "also write every rigid body's orientation as Euler angles of this intrinsic sequence, three of x, y, z with no two neighbours equal (zyx: A = Rz(a1) Ry(a2) Rx(a3), yaw pitch roll; zxz: the classical one), to /bodies/euler_angles (default: none)" },
	{ "joint_frame_reactions", K_BOOL, 0, NULL, "also write the joints' reaction force and torque in body 2's joint frame, to /joints/reaction_force_joint_frame and reaction_torque_joint_frame (default false)" },
	{ NULL, 0, 0, NULL, NULL }
};
static const struct key_sect output_sect = { "output", output_keys };

static const struct key_def initial_keys[] = {
	{ "assemble", K_BOOL, 0, NULL, "make the initial state satisfy the constraints (default true)" },
	{ "tolerance", K_NUM, 0, NULL, "Newton tolerance of the assembly, > 0 (default 1e-12)" },
	{ NULL, 0, 0, NULL, NULL }
};
static const struct key_sect initial_sect = { "initial", initial_keys };

static const struct key_def orient_keys[] = {
	{ "matrix", K_MAT3, 0, NULL, "rows of the body-to-global rotation matrix" },
	{ "quaternion", K_NUMLIST, 0, NULL, "unit quaternion [w, x, y, z]" },
	{ "axis", K_VEC3, 0, NULL, "rotation axis (global), nonzero; with angle" },
	{ "angle", K_NUM, 0, NULL, "rotation angle about axis in rad" },
	{ "euler", K_VEC3, 0, NULL, "three intrinsic rotation angles in rad" },
	{ "sequence", K_STR, 0, NULL, "axes of the euler rotations, e.g. xyz (default zxz)" },
	{ NULL, 0, 0, NULL, NULL }
};
static const struct key_sect orient_sect = { "orientation", orient_keys };

/* shape: what a body looks like (model/shape.h); mask bits by enum shape_type */
#define SH(t) (1u << SHAPE_##t)
static const struct key_def shape_orient_keys[] = {	/* the keys of orient_keys */
	{ "matrix", K_MAT3, 0, NULL, "rows of the shape-to-body rotation matrix" },
	{ "quaternion", K_NUMLIST, 0, NULL, "unit quaternion [w, x, y, z], shape to body" },
	{ "axis", K_VEC3, 0, NULL, "rotation axis in the body frame, nonzero; with angle" },
	{ "angle", K_NUM, 0, NULL, "rotation angle about axis in rad" },
	{ "euler", K_VEC3, 0, NULL, "three intrinsic rotation angles in rad" },
	{ "sequence", K_STR, 0, NULL, "axes of the euler rotations, e.g. xyz (default zxz)" },
	{ NULL, 0, 0, NULL, NULL }
};
static const struct key_sect shape_orient_sect = { "orientation", shape_orient_keys };
static const struct key_def shape_keys[] = {
	{ "type", K_STR, 0, NULL, "box, cylinder, sphere, capsule or mesh (required)" },
	{ "size", K_VEC3, SH(BOX), NULL, "box edge lengths along the shape's x, y, z in m, each > 0 (required)" },
	{ "radius", K_NUM, SH(CYLINDER) | SH(SPHERE) | SH(CAPSULE), NULL, "radius in m, > 0 (required)" },
	{ "length", K_NUM, SH(CYLINDER) | SH(CAPSULE), NULL, "length along the shape's z in m (capsule: between the centres of its end caps, may be 0), > 0 (required)" },
	{ "file", K_STR, SH(MESH), NULL, "STL (ASCII or binary) or OBJ file, relative to the deck's directory (required)" },
	{ "scale", K_NUM, SH(MESH), NULL, "factor from the file's units to m, > 0 (default 1)" },
	{ "position", K_VEC3, 0, NULL, "origin of the shape in the body frame, m (default 0)" },
	{ "orientation", K_MAP, 0, &shape_orient_sect, "axes of the shape in the body frame (default identity)" },
	{ NULL, 0, 0, NULL, NULL }
};
static const struct key_sect shape_sect = { "shape", shape_keys };

/* contact: a body's or a plane's contact material (model/contact.h) */
static const struct key_def cmat_keys[] = {
	{ "mu_s", K_NUM, 0, NULL, "static Coulomb friction coefficient, >= 0 (default 0)" },
	{ "mu_d", K_NUM, 0, NULL, "dynamic (sliding) Coulomb friction coefficient, in [0, mu_s] (default mu_s)" },
	{ "restitution", K_NUM, 0, NULL, "coefficient of restitution e, in [0, 1] (default 1)" },
	{ "stiffness", K_NUM, 0, NULL, "smooth model: the side's normal stiffness k of k delta^exponent, N/m^exponent, > 0; not with youngs_modulus (one of the two required by the smooth model)" },
	{ "youngs_modulus", K_NUM, 0, NULL, "smooth model: Young's modulus E of a Hertz side, Pa, > 0; the side's stiffness 4/3 E/(1 - nu^2) sqrt(R*) needs a sphere or capsule on one side of the pair; not with stiffness" },
	{ "poisson_ratio", K_NUM, 0, NULL, "Poisson's ratio nu of a Hertz side, in [0, 0.5) (default 0.3)" },
	{ "exponent", K_NUM, 0, NULL, "exponent of the penetration in the normal force, > 0, the same in every material of the deck (default 1.5 with youngs_modulus, else 1)" },
	{ NULL, 0, 0, NULL, NULL }
};
static const struct key_sect cmat_sect = { "contact material", cmat_keys };

static const struct key_def body_keys[] = {
	{ "name", K_STR, 0, NULL, "unique body name, not 'ground' (required)" },
	{ "kind", K_STR, 0, NULL, "rigid or particle (a point mass: no inertia, orientation or angular velocity; loaded at its centre only) (default rigid)" },
	{ "mass", K_NUM, 0, NULL, "mass in kg, > 0 (required)" },
	{ "inertia", K_INERTIA, B(RIGID), NULL, "centroidal inertia in the body frame: [Ixx, Iyy, Izz] or 3x3 rows, positive definite (required)" },
	{ "position", K_VEC3, 0, NULL, "initial centroid position, global, m (default 0)" },
	{ "orientation", K_MAP, B(RIGID), &orient_sect, "initial orientation (default identity)" },
	{ "velocity", K_VEC3, 0, NULL, "initial centroid velocity, global, m/s (default 0)" },
	{ "angular_velocity", K_VEC3, B(RIGID), NULL, "initial angular velocity, body frame, rad/s (default 0)" },
	{ "shape", K_MAP, B(RIGID), &shape_sect, "what the body looks like in output for viewers (default: the box of uniform density with its mass and inertia)" },
	{ "contact", K_MAP, B(RIGID), &cmat_sect, "contact material: the body's shape becomes its collision geometry (a mesh: its convex hull; required: shape) (default: no contact)" },
	{ "repeat", K_MAP, 0, &repeat_sect, "instantiate the item once per index value" },
	{ NULL, 0, 0, NULL, NULL }
};
static const struct key_sect body_sect = { "body", body_keys };

static const struct key_def contact_keys[] = {
	{ "model", K_STR, 0, NULL, "contact model: smooth (compliant normal force and friction, a force on the bodies) or nonsmooth (impulses, Moreau-Jean time-stepping) (default smooth)" },
	{ "damping", K_STR, 0, NULL, "smooth model's normal damping from the restitution: exact, hunt_crossley, lankarani_nikravesh or flores (default exact)" },
	{ NULL, 0, 0, NULL, NULL }
};
static const struct key_sect contact_sect = { "contact", contact_keys };

static const struct key_def cplane_keys[] = {
	{ "point", K_VEC3, 0, NULL, "a point of the plane, global, m (default 0)" },
	{ "normal", K_VEC3, 0, NULL, "normal of the plane, global, nonzero, pointing out of the solid half-space below it (required)" },
	{ "material", K_MAP, 0, &cmat_sect, "the plane's contact material (default: rigid; friction and restitution of the body alone)" },
	{ NULL, 0, 0, NULL, NULL }
};
static const struct key_sect cplane_sect = { "contact plane", cplane_keys };

static const struct key_def joint_keys[] = {
	{ "name", K_STR, 0, NULL, "unique joint name (required)" },
	{ "type", K_STR, 0, NULL, "spherical, revolute, universal, cylindrical, translational, fixed, distance, point_on_line, point_on_plane, planar, screw, gear, rack_pinion or coupler (required)" },
	{ "body1", K_STR, J_BODIES, NULL, "first body name or ground (required)" },
	{ "body2", K_STR, J_BODIES, NULL, "second body name or ground (required)" },
	{ "point", K_VEC3, J_NOTDIST, NULL, "joint point, global, at t0" },
	{ "point1", K_VEC3, J_BODIES, NULL, "joint point on body1, body1 frame" },
	{ "point2", K_VEC3, J_BODIES, NULL, "joint point on body2, body2 frame" },
	{ "axis", K_VEC3, J_AXIS, NULL, "joint axis, global, at t0 (universal: on body1; point_on_line: the line; point_on_plane, planar: the normal)" },
	{ "axis1", K_VEC3, J_AXIS, NULL, "joint axis on body1, body1 frame" },
	{ "axis2", K_VEC3, J_AXIS, NULL, "joint axis on body2, body2 frame" },
	{ "cross_axis", K_VEC3, J(UNIVERSAL), NULL, "second universal axis, global at t0, on body2, perpendicular to axis" },
	{ "at1", K_VEC3, J(DISTANCE), NULL, "distance joint end on body1, global at t0" },
	{ "at2", K_VEC3, J(DISTANCE), NULL, "distance joint end on body2, global at t0" },
	{ "length", K_NUM, J(DISTANCE), NULL, "distance in m, > 0 (default: distance at t0)" },
	{ "pitch", K_NUM, J(SCREW), NULL, "advance of body2 along the axis per turn about it, m, nonzero (negative: left-handed) (required)" },
	{ "joint1", K_STR, J_CPL, NULL, "first coupled joint, listed before this one (gear, rack_pinion: a revolute or cylindrical joint, its turn; coupler: a revolute or translational joint) (required)" },
	{ "joint2", K_STR, J_CPL, NULL, "second coupled joint, listed before this one (gear: a revolute or cylindrical joint, its turn; rack_pinion: a translational or cylindrical joint, its slide; coupler: a revolute or translational joint) (required)" },
	{ "joint3", K_STR, J(COUPLER), NULL, "third coupled joint, revolute or translational, listed before this one (with ratio3)" },
	{ "ratio", K_NUM, J(GEAR), NULL, "turn of joint2 per turn of joint1, nonzero (an external mesh of parallel axes turns the other way: negative) (required)" },
	{ "radius", K_NUM, J(RACK_PINION), NULL, "slide of joint2 per radian of joint1, m, nonzero (the pitch radius, signed by the axes' sense) (required)" },
	{ "ratio1", K_NUM, J(COUPLER), NULL, "coefficient of joint1's coordinate change (required)" },
	{ "ratio2", K_NUM, J(COUPLER), NULL, "coefficient of joint2's coordinate change (required)" },
	{ "ratio3", K_NUM, J(COUPLER), NULL, "coefficient of joint3's coordinate change (with joint3)" },
	{ "repeat", K_MAP, 0, &repeat_sect, "instantiate the item once per index value" },
	{ NULL, 0, 0, NULL, NULL }
};
static const struct key_sect joint_sect = { "joint", joint_keys };

/* The keys of every law; a piecewise segment's own law has them all but
 * segments (no piecewise inside piecewise, and no endless key paths). */
#define LAW_KEYS \
	{ "type", K_STR, 0, NULL, "constant, rate, polynomial, harmonic, cosine_ramp, piecewise, rate_ramps, expression, table, step or step5 (required)" }, \
	{ "value", K_NUM, FN(CONSTANT) | FN(RATE) | FN(RATE_RAMPS), NULL, "constant value; rate, rate_ramps: value at t = 0 (default 0)" }, \
	{ "rate", K_NUM, FN(RATE), NULL, "rate of change per s" }, \
	{ "coefficients", K_NUMLIST, FN(POLYNOMIAL), NULL, "c0, c1, ... of sum c_i t^i, at most 8" }, \
	{ "offset", K_NUM, FN(HARMONIC), NULL, "harmonic offset (default 0)" }, \
	{ "amplitude", K_NUM, FN(HARMONIC), NULL, "harmonic amplitude" }, \
	{ "omega", K_NUM, FN(HARMONIC), NULL, "harmonic angular frequency in rad/s" }, \
	{ "phase", K_NUM, FN(HARMONIC), NULL, "harmonic phase in rad (default 0)" }, \
	{ "from", K_NUM, FN(COSINE_RAMP) | FN(RATE_RAMPS) | FN(STEP) | FN(STEP5), NULL, "cosine_ramp, step, step5: value before start; rate_ramps: rate before the first ramp, 0 when not given" }, \
	{ "to", K_NUM, FN(COSINE_RAMP) | FN(STEP) | FN(STEP5), NULL, "ramp value after end" }, \
	{ "start", K_NUM, FN(COSINE_RAMP) | FN(STEP) | FN(STEP5), NULL, "ramp start time in s" }, \
	{ "end", K_NUM, FN(COSINE_RAMP) | FN(STEP) | FN(STEP5), NULL, "ramp end time in s, > start" }, \
	{ "ramps", K_LIST, FN(RATE_RAMPS), &ramp_sect, "rate_ramps: the ramps of the rate, in time order" }, \
	{ "expression", K_STR, FN(EXPRESSION), NULL, "expression of t and the parameters; derivatives by automatic differentiation (required)" }, \
	{ "times", K_NUMLIST, FN(TABLE), NULL, "table times in s, strictly increasing, at least 2 (with values; or file)" }, \
	{ "values", K_NUMLIST, FN(TABLE), NULL, "table values at times, as many as times" }, \
	{ "file", K_STR, FN(TABLE), NULL, "CSV file of rows t,value (relative to the deck), in place of times and values" }, \
	{ "interpolation", K_STR, FN(TABLE), NULL, "linear, monotone (Fritsch-Carlson), spline (C2, not-a-knot) or natural_spline (default linear)" }, \
	{ "extrapolation", K_STR, FN(TABLE), NULL, "constant or linear, outside the times (default constant)" }

static const struct key_def ramp_keys[] = {
	{ "start", K_NUM, 0, NULL, "ramp start time in s, not before the end of the ramp above" },
	{ "end", K_NUM, 0, NULL, "ramp end time in s, > start" },
	{ "to", K_NUM, 0, NULL, "rate after the ramp" },
	{ NULL, 0, 0, NULL, NULL }
};
static const struct key_sect ramp_sect = { "ramp", ramp_keys };

static const struct key_def seg_func_keys[] = {
	LAW_KEYS,
	{ NULL, 0, 0, NULL, NULL }
};
static const struct key_sect seg_func_sect = { "function", seg_func_keys };

static const struct key_def seg_keys[] = {
	{ "start", K_NUM, 0, NULL, "segment start time in s, strictly increasing" },
	{ "coefficients", K_NUMLIST, 0, NULL, "polynomial in (t - start), c0 first, at most 8 (or function)" },
	{ "function", K_MAP, 0, &seg_func_sect, "the segment's own law of t (any type but piecewise), in place of coefficients" },
	{ NULL, 0, 0, NULL, NULL }
};
static const struct key_sect seg_sect = { "segment", seg_keys };

static const struct key_def func_keys[] = {
	LAW_KEYS,
	{ "segments", K_LIST, FN(PIECEWISE), &seg_sect, "pieces: polynomials or laws" },
	{ NULL, 0, 0, NULL, NULL }
};
static const struct key_sect func_sect = { "function", func_keys };

static const struct key_def driver_keys[] = {
	{ "name", K_STR, 0, NULL, "unique driver name (required)" },
	{ "joint", K_STR, 0, NULL, "name of the driven joint (required)" },
	{ "kind", K_STR, 0, NULL, "rotation or translation (default from the joint type)" },
	{ "relative", K_BOOL, 0, NULL, "function moves the joint from its t0 coordinate (default true)" },
	{ "function", K_MAP, 0, &func_sect, "the prescribed coordinate as a function of time (required)" },
	{ "repeat", K_MAP, 0, &repeat_sect, "instantiate the item once per index value" },
	{ NULL, 0, 0, NULL, NULL }
};
static const struct key_sect driver_sect = { "driver", driver_keys };

/* ---- issue 15: state expressions, curves, motors, bushings, measures ---- */
#define F_EXPR (F(TSDA) | F(RSDA) | F(POINT) | F(TORQUE) | F(MOTOR))

static const struct key_def curve_keys[] = {
	{ "name", K_STR, 0, NULL, "unique curve name, an identifier; expressions call it as name(x) (required)" },
	{ "x", K_NUMLIST, 0, NULL, "argument values, strictly increasing, at least 2 (with y; or file)" },
	{ "y", K_NUMLIST, 0, NULL, "values at x, as many as x" },
	{ "file", K_STR, 0, NULL, "CSV file of x,y rows, path relative to the deck; lines that do not start with a number are skipped" },
	{ "interpolation", K_STR, 0, NULL, "linear, cubic (monotone, Fritsch-Carlson), spline (C2, not-a-knot) or natural_spline (default linear)" },
	{ "extrapolation", K_STR, 0, NULL, "outside the knots: constant (end value) or linear (end slope) (default constant)" },
	{ NULL, 0, 0, NULL, NULL }
};
static const struct key_sect curve_sect = { "curve", curve_keys };

static const struct key_def measure_keys[] = {
	{ "name", K_STR, 0, NULL, "unique measure name (required)" },
	{ "expression", K_STR, 0, NULL, "expression of time and state, see mbsim-deck(5) EXPRESSIONS OF STATE (required)" },
	{ "repeat", K_MAP, 0, &repeat_sect, "instantiate the item once per index value" },
	{ NULL, 0, 0, NULL, NULL }
};
static const struct key_sect measure_sect = { "measure", measure_keys };

static const struct key_def event_keys[] = {
	{ "name", K_STR, 0, NULL, "unique event name (required)" },
	{ "condition", K_STR, 0, NULL, "expression of time and state whose crossing of zero is the event, see mbsim-deck(5) EXPRESSIONS OF STATE (required)" },
	{ "direction", K_STR, 0, NULL, "rising (from negative to zero or above), falling (from positive to zero or below) or both (default both)" },
	{ "action", K_STR, 0, NULL, "stop (end the run at the event) or record (write it to /events and go on) (default record)" },
	{ "repeat", K_MAP, 0, &repeat_sect, "instantiate the item once per index value" },
	{ NULL, 0, 0, NULL, NULL }
};
static const struct key_sect event_sect = { "event", event_keys };

static const struct key_def kcurve_keys[] = {
	{ "x", K_STR, 0, NULL, "curve of the force along x (N) versus the displacement (m)" },
	{ "y", K_STR, 0, NULL, "curve of the force along y versus the displacement" },
	{ "z", K_STR, 0, NULL, "curve of the force along z versus the displacement" },
	{ "rx", K_STR, 0, NULL, "curve of the moment about x (N m) versus the rotation (rad)" },
	{ "ry", K_STR, 0, NULL, "curve of the moment about y versus the rotation" },
	{ "rz", K_STR, 0, NULL, "curve of the moment about z versus the rotation" },
	{ NULL, 0, 0, NULL, NULL }
};
static const struct key_sect kcurve_sect = { "stiffness_curves", kcurve_keys };

static const struct key_def force_keys[] = {
	{ "name", K_STR, 0, NULL, "unique force name (required)" },
	{ "type", K_STR, 0, NULL, "tsda, rsda, force, torque, friction, motor, bushing, tire or viscous (required)" },
	{ "body1", K_STR, F(TSDA) | F(BUSHING) | F(VISCOUS), NULL, "first body (tsda, bushing, viscous)" },
	{ "body2", K_STR, F(TSDA) | F(BUSHING) | F(VISCOUS), NULL, "second body (tsda, bushing, viscous)" },
	{ "body", K_STR, F(POINT) | F(TORQUE) | F(TIRE), NULL, "loaded body (force, torque; tire: the body that carries the wheel centre)" },
	{ "joint", K_STR, F(RSDA) | F(FRICTION) | F(MOTOR) | F(TORQUE), NULL, "joint (rsda: revolute or cylindrical; friction: translational; motor: revolute, cylindrical or translational; torque: a distance joint, the massless link the torque turns, instead of body)" },
	{ "point1", K_VEC3, F(TSDA) | F(BUSHING) | F(VISCOUS), NULL, "attachment on body1, body frame (viscous: default 0)" },
	{ "point2", K_VEC3, F(TSDA) | F(BUSHING) | F(VISCOUS), NULL, "attachment on body2, body frame (viscous: default 0)" },
	{ "at1", K_VEC3, F(TSDA) | F(VISCOUS), NULL, "attachment on body1, global at t0" },
	{ "at2", K_VEC3, F(TSDA) | F(VISCOUS), NULL, "attachment on body2, global at t0" },
	{ "point", K_VEC3, F(POINT) | F(TIRE), NULL, "point of application, body frame (tire: the wheel centre) (default 0)" },
	{ "at", K_VEC3, F(POINT) | F(BUSHING) | F(TIRE), NULL, "point of application, global at t0 (bushing: both attachments; tire: the wheel centre)" },
	{ "stiffness", K_NUM, F(TSDA) | F(RSDA) | F(TIRE), NULL, "N/m or N m/rad, >= 0; tire: > 0, required (default 0)" },
	{ "damping", K_NUM, F(TSDA) | F(RSDA) | F(TIRE) | F(VISCOUS), NULL, "N s/m or N m s/rad; viscous: required and positive, >= 0 (default 0)" },
	{ "radius", K_NUM, F(TIRE), NULL, "m, > 0: height of the wheel centre above the road where the tire starts to touch (required)" },
	{ "road", K_STR, F(TIRE), NULL, "road height z = h(x, y), m, an expression of x and y (global, m), parameters and curves (default 0)" },
	{ "lookahead", K_NUM, F(TIRE), NULL, "m, >= 0: spacing at which adaptive steps sample the road ahead of the wheel for features to land short of; 0: none (default radius / 100)" },
	{ "lookahead_tolerance", K_NUM, F(TIRE), NULL, "m, > 0: departure of the road from its line behind the wheel that starts a feature (default 1e-4)" },
	{ "free_length", K_NUM, F(TSDA), NULL, "m (default: length at t0)" },
	{ "free_angle", K_NUM, F(RSDA), NULL, "rad (default 0)" },
	{ "angle", K_STR, F(RSDA), NULL, "continuous (the joint angle followed through any number of turns) or wrapped (the deflection wrapped to [-pi, pi)) (default continuous)" },
	{ "actuator", K_MAP, F(TSDA) | F(RSDA), &func_sect, "actuator force or torque as a function of time" },
	{ "vector", K_VEC3, F(POINT) | F(TORQUE), NULL, "force (N) or torque (N m) vector (required)" },
	{ "frame", K_STR, F(POINT) | F(TORQUE), NULL, "frame of vector: global or body; global only on a particle or a link (default global)" },
	{ "function", K_MAP, F(POINT) | F(TORQUE), &func_sect, "multiplier of vector as a function of time (default 1)" },
	{ "mu", K_NUM, F(FRICTION), NULL, "Coulomb friction coefficient, >= 0 (required)" },
	{ "velocity_threshold", K_NUM, F(FRICTION), NULL, "m/s, > 0 (default 1e-5)" },
	{ "expression", K_STR, F_EXPR, NULL, "expression of time and state: added to the tension (tsda) or moment (rsda) like actuator; the multiplier of vector (force, torque) in place of function; the effort (motor)" },
	{ "control", K_STR, F(MOTOR), NULL, "motor feedback law without expression: p, pd, pi or pid (required without expression)" },
	{ "on", K_STR, F(MOTOR), NULL, "controlled quantity: coordinate or rate (default coordinate)" },
	{ "target", K_MAP, F(MOTOR), &func_sect, "commanded coordinate or rate as a function of time (required with control)" },
	{ "kp", K_NUM, F(MOTOR), NULL, "proportional gain, N m/rad or N/m (per rad/s, m/s with on: rate), >= 0" },
	{ "kd", K_NUM, F(MOTOR), NULL, "derivative gain on the error rate, N m s/rad or N s/m, >= 0 (on: coordinate only)" },
	{ "ki", K_NUM, F(MOTOR), NULL, "integral gain, N m/(rad s) or N/(m s), >= 0" },
	{ "limit", K_NUM, F(MOTOR), NULL, "largest |effort|, N m or N, > 0 (default none)" },
	{ "orientation", K_MAP, F(BUSHING), &orient_sect, "bushing axes, global at t0 (default the global axes)" },
	{ "translational_stiffness", K_VEC3, F(BUSHING), NULL, "N/m along the bushing's x, y, z, >= 0" },
	{ "rotational_stiffness", K_VEC3, F(BUSHING), NULL, "N m/rad about x, y, z, >= 0" },
	{ "translational_damping", K_VEC3, F(BUSHING), NULL, "N s/m, >= 0 (default 0)" },
	{ "rotational_damping", K_VEC3, F(BUSHING), NULL, "N m s/rad, >= 0 (default 0)" },
	{ "preload_force", K_VEC3, F(BUSHING), NULL, "force on body2 at zero deflection, bushing axes, N (default 0)" },
	{ "preload_torque", K_VEC3, F(BUSHING), NULL, "torque on body2 at zero deflection, bushing axes, N m (default 0)" },
	{ "stiffness_curves", K_MAP, F(BUSHING), &kcurve_sect, "curves (curves:) of the elastic force or moment of components, in place of their linear stiffness" },
	{ "repeat", K_MAP, 0, &repeat_sect, "instantiate the item once per index value" },
	{ NULL, 0, 0, NULL, NULL }
};
static const struct key_sect force_sect = { "force", force_keys };

static const struct key_def point_keys[] = {
	{ "name", K_STR, 0, NULL, "unique point name (required)" },
	{ "body", K_STR, 0, NULL, "body or particle the point is fixed on, or ground (required)" },
	{ "point", K_VEC3, 0, NULL, "position in the body frame, m" },
	{ "at", K_VEC3, 0, NULL, "position, global at t0, m (one of point and at is required)" },
	{ "repeat", K_MAP, 0, &repeat_sect, "instantiate the item once per index value" },
	{ NULL, 0, 0, NULL, NULL }
};
static const struct key_sect point_sect = { "point", point_keys };

/* beams (model/beam.h, deck/beam.c) */
static const struct key_def bsec_keys[] = {
	{ "EA", K_NUM, 0, NULL, "axial stiffness, N, > 0; required unless stiffness" },
	{ "GA", K_NUM, 0, NULL, "shear stiffness of both section axes (with its shear correction factor), N, > 0; required unless GA2 and GA3, or stiffness" },
	{ "GA2", K_NUM, 0, NULL, "shear stiffness along section axis 2, N, > 0 (default GA)" },
	{ "GA3", K_NUM, 0, NULL, "shear stiffness along section axis 3, N, > 0 (default GA)" },
	{ "GJ", K_NUM, 0, NULL, "torsional stiffness, N m^2, > 0; required unless stiffness" },
	{ "EI", K_NUM, 0, NULL, "bending stiffness about both section axes, N m^2, > 0; required unless EI2 and EI3, or stiffness" },
	{ "EI2", K_NUM, 0, NULL, "bending stiffness about section axis 2, N m^2, > 0 (default EI)" },
	{ "EI3", K_NUM, 0, NULL, "bending stiffness about section axis 3, N m^2, > 0 (default EI)" },
	{ "stiffness", K_MAT6, 0, NULL, "the whole sectional stiffness C as 6 rows of 6 numbers, (n, m) = C (Gamma1, Gamma2, Gamma3, kappa1, kappa2, kappa3) in the section frame: N in the upper left 3 x 3 block, N m in the off-diagonal blocks, N m^2 in the lower right; symmetric (within 1e-9 sqrt(C_ii C_jj)) and positive definite; in place of EA, GA, GA2, GA3, GJ, EI, EI2, EI3" },
	{ "m", K_NUM, 0, NULL, "mass per unit length, kg/m, > 0 (required)" },
	{ "m11", K_NUM, 0, NULL, "mass moment of inertia per unit length about the beam axis, kg m, > 0 (default m22 + m33)" },
	{ "m22", K_NUM, 0, NULL, "mass moment of inertia per unit length about section axis 2, kg m, > 0 (required)" },
	{ "m33", K_NUM, 0, NULL, "mass moment of inertia per unit length about section axis 3, kg m, > 0 (required)" },
	{ "damping", K_NUM, 0, NULL, "stiffness-proportional damping mu: sectional damping mu times the stiffness, s, >= 0 (default 0)" },
	{ NULL, 0, 0, NULL, NULL }
};
static const struct key_sect bsec_sect = { "section", bsec_keys };
static const struct key_def bmat_keys[] = {
	{ "E", K_NUM, 0, NULL, "Young's modulus, Pa, > 0 (required)" },
	{ "nu", K_NUM, 0, NULL, "Poisson's ratio, in [0, 0.5) (required unless G)" },
	{ "G", K_NUM, 0, NULL, "shear modulus, Pa, > 0 (default E / (2 (1 + nu)))" },
	{ "rho", K_NUM, 0, NULL, "density, kg/m^3, > 0 (required)" },
	{ "damping", K_NUM, 0, NULL, "stiffness-proportional damping mu, s, >= 0 (default 0)" },
	{ NULL, 0, 0, NULL, NULL }
};
static const struct key_sect bmat_sect = { "material", bmat_keys };
static const struct key_def bcs_keys[] = {
	{ "type", K_STR, 0, NULL, "rectangle, circle or tube (required)" },
	{ "b", K_NUM, 0, NULL, "rectangle: width along section axis 2, m, > 0 (required)" },
	{ "h", K_NUM, 0, NULL, "rectangle: height along section axis 3, m, > 0 (required)" },
	{ "r", K_NUM, 0, NULL, "circle: radius, m, > 0 (required)" },
	{ "ro", K_NUM, 0, NULL, "tube: outer radius, m, > 0 (required)" },
	{ "ri", K_NUM, 0, NULL, "tube: inner radius, m, in [0, ro) (required)" },
	{ NULL, 0, 0, NULL, NULL }
};
static const struct key_sect bcs_sect = { "cross_section", bcs_keys };
static const struct key_def bnode_keys[] = {
	{ "start", K_STR, 0, NULL, "name of the node body at from (default NAME_0)" },
	{ "end", K_STR, 0, NULL, "name of the node body at to (default NAME_N, N = 2 elements)" },
	{ NULL, 0, 0, NULL, NULL }
};
static const struct key_sect bnode_sect = { "nodes", bnode_keys };
static const struct key_def beam_keys[] = {
	{ "name", K_STR, 0, NULL, "unique beam name; its node bodies are NAME_0 ... NAME_N (required)" },
	{ "from", K_VEC3, 0, NULL, "first end, global at t0, m (required)" },
	{ "to", K_VEC3, 0, NULL, "second end, global at t0, m (required)" },
	{ "elements", K_INT, 0, NULL, "number of three-node elements, >= 1; 2 elements + 1 nodes (required)" },
	{ "up", K_VEC3, 0, NULL, "direction of section axis 3, made perpendicular to the beam (default: the global axis least parallel to the beam)" },
	{ "section", K_MAP, 0, &bsec_sect, "sectional stiffness and inertia (or material and cross_section)" },
	{ "material", K_MAP, 0, &bmat_sect, "material of the section, with cross_section" },
	{ "cross_section", K_MAP, 0, &bcs_sect, "shape of the section, with material" },
	{ "nodes", K_MAP, 0, &bnode_sect, "names of the end nodes" },
	{ "velocity", K_VEC3, 0, NULL, "initial velocity of the point from, global, m/s (default 0)" },
	{ "angular_velocity", K_VEC3, 0, NULL, "initial angular velocity of the whole beam about from, global, rad/s (default 0)" },
	{ NULL, 0, 0, NULL, NULL }
};
static const struct key_sect beam_sect = { "beam", beam_keys };

static const struct key_def top_keys[] = {
	{ "title", K_STR, 0, NULL, "free text" },
	{ "seed", K_INT, 0, NULL, "seed of urand() in expressions, >= 0 (default 1)" },
	{ "parameters", K_FREE, 0, NULL, "name: number or expression, evaluated in order" },
	{ "gravity", K_VEC3, 0, NULL, "m/s^2, global (default [0, 0, -9.81])" },
	{ "time", K_MAP, 0, &time_sect, "simulated interval (required)" },
	{ "integrator", K_MAP, 0, &integ_sect, "integration scheme and its settings" },
	{ "output", K_MAP, 0, &output_sect, "output sampling" },
	{ "initial", K_MAP, 0, &initial_sect, "initial assembly" },
	{ "bodies", K_LIST, 0, &body_sect, "rigid bodies and particles" },
	{ "beams", K_LIST, 0, &beam_sect, "geometrically exact beams of three-node elements; their nodes are bodies" },
	{ "joints", K_LIST, 0, &joint_sect, "kinematic joints" },
	{ "drivers", K_LIST, 0, &driver_sect, "prescribed joint motions" },
	{ "curves", K_LIST, 0, &curve_sect, "tabulated curves, functions of one argument in expressions" },
	{ "forces", K_LIST, 0, &force_sect, "force elements" },
	{ "points", K_LIST, 0, &point_sect, "named body-fixed points, written to the output and named in expressions (x.P, vx.P)" },
	{ "measures", K_LIST, 0, &measure_sect, "named expressions sampled with the output (/measures)" },
	{ "contact", K_MAP, 0, &contact_sect, "contact model and its settings (bodies take part through their contact material)" },
	{ "contact_planes", K_LIST, 0, &cplane_sect, "fixed planes of the ground bodies with a contact material touch; the half-space below each is solid" },
	{ "events", K_LIST, 0, &event_sect, "conditions whose crossings of zero are recorded in /events or stop the run" },
	{ NULL, 0, 0, NULL, NULL }
};
const struct key_sect key_top = { "the deck", top_keys };

const struct key_def *key_find(const struct key_sect *s, const char *name)
{
	for (const struct key_def *k = s->keys; k->name; k++)
		if (strcmp(k->name, name) == 0)
			return k;
	return NULL;
}

const struct key_sect *key_sub(const struct key_sect *s, const char *name)
{
	const struct key_def *k = key_find(s, name);
	return k ? k->sub : NULL;
}

const char *key_suggest(const struct key_sect *s, const char *word, char *buf,
			size_t size)
{
	struct suggest sg;
	suggest_init(&sg, word);
	for (const struct key_def *k = s->keys; k->name; k++)
		suggest_add(&sg, k->name);
	return suggest_text(&sg, buf, size);
}

static const char *type_word(const struct key_def *k)
{
	switch (k->type) {
	case K_NUM: return "number";
	case K_INT: return "integer";
	case K_BOOL: return "boolean";
	case K_STR: return "string";
	case K_VEC3: return "vector[3]";
	case K_NUMLIST: return "numbers";
	case K_MAT3: return "matrix[3x3]";
	case K_MAT6: return "matrix[6x6]";
	case K_INERTIA: return "inertia";
	case K_FREE: return "number";
	default: return "-";
	}
}

/* The help text of a key is "description[, range][; more][ (default D)|
 * (default: D)| (required)]": split it into description (with its more),
 * range and default, written into the caller's buffers of n bytes.  A
 * range "in [a, b]" ends at its ']', another at the next ';' or ','. */
static void split_help(const char *help, char *desc, char *range, char *def, size_t n)
{
	static const char *const starts[] = { ", > ", ", >= ", ", < ", ", <= ", ", in [",
					      ", greater than ", NULL };
	size_t len = strlen(help), end = len;
	snprintf(def, n, "-");
	if (len > 1 && help[len - 1] == ')') {
		const char *d = strstr(help, " (default ");
		const char *dc = strstr(help, " (default: ");
		const char *r = strstr(help, " (required)");
		if (d || dc) {
			const char *v = d ? d + 10 : dc + 11;
			snprintf(def, n, "%.*s", (int)(help + len - 1 - v), v);
			end = (size_t)((d ? d : dc) - help);
		} else if (r && r + 11 == help + len) {
			snprintf(def, n, "required");
			end = (size_t)(r - help);
		}
	}
	const char *rs = NULL;
	for (int i = 0; starts[i]; i++) {
		const char *q = strstr(help, starts[i]);
		if (q && (size_t)(q - help) < end && (!rs || q < rs))
			rs = q;
	}
	if (!rs) {
		snprintf(range, n, "-");
		snprintf(desc, n, "%.*s", (int)end, help);
		return;
	}
	size_t r0 = (size_t)(rs - help) + 2, r1 = r0;
	if (strncmp(help + r0, "in [", 4) == 0) {
		const char *close = memchr(help + r0, ']', end - r0);
		r1 = close ? (size_t)(close - help) + 1 : end;
	} else {
		r1 = r0 + strcspn(help + r0, ";,");
		if (r1 > end)
			r1 = end;
	}
	snprintf(range, n, "%.*s", (int)(r1 - r0), help + r0);
	snprintf(desc, n, "%.*s%.*s", (int)(rs - help), help, (int)(end - r1), help + r1);
}

int key_default_list(const struct key_def *def, char *buf, size_t n)
{
	char desc[512], range[512], dv[512];
	split_help(def->help, desc, range, dv, sizeof dv);
	if (def->type == K_VEC3 && strcmp(dv, "0") == 0) {
		snprintf(buf, n, "[0, 0, 0]");
		return 0;
	}
	if (dv[0] == '[') {
		snprintf(buf, n, "%s", dv);
		return 0;
	}
	return -1;
}

void keys_print(FILE *f, const struct key_sect *s, const char *prefix)
{
	for (const struct key_def *k = s->keys; k->name; k++) {
		char path[256];
		snprintf(path, sizeof path, "%s%s", prefix, k->name);
		if (k->type == K_MAP || k->type == K_LIST) {
			char sub[260];
			snprintf(sub, sizeof sub, "%s%s.", path,
				 k->type == K_LIST ? "[]" : "");
			keys_print(f, k->sub, sub);
			continue;
		}
		char desc[256], range[256], def[256];
		split_help(k->help, desc, range, def, sizeof desc);
		if (k->type == K_FREE)
			strcat(path, ".*");
		fprintf(f, "%-34s  %-11s  %-12s  %-16s  %s\n", path, type_word(k), def, range, desc);
	}
}
