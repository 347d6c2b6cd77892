/* cmd_static.c - mbsim static: the static equilibrium of a deck
 * (sim/statics.h), printed as text or JSON. */
#include "cli.h"
#include "usage.h"
#include "../deck/deck.h"
#include "../sim/linearize.h"
#include "../sim/statics.h"
#include "../util/vec.h"
#include "../util/xalloc.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Options of static and modes: DECK, --set, --time, --json. */
int cli_static_parse(int argc, char **argv, const char *usage, const char **deck, char ***sets,
		     int *nsets, double *time, int *json)
{
	*time = NAN;
	*deck = NULL;
	*nsets = 0;
	*json = 0;
	*sets = xcalloc((size_t)argc + 1, sizeof(char *));
	for (int i = 1; i < argc; i++) {
		const char *a = argv[i], *v;
		int err = 0;
		if (cli_setopt(argc, argv, &i, usage, &err, *sets, nsets)) {
		} else if ((v = cli_optval(argc, argv, &i, "--time", usage, &err))) {
			char *end;
			*time = strtod(v, &end);
			if (!*v || *end || !isfinite(*time)) {
				cli_usage_error(usage, "--time must be a finite number of seconds, "
						"got '%s'", v);
				return -1;
			}
		} else if (err) {
			return -1;
		} else if (strcmp(a, "--json") == 0) {
			*json = 1;
		} else if (strcmp(a, "--help") == 0 || strcmp(a, "-h") == 0) {
			printf("usage: %s", usage);
			return 1;
		} else if (a[0] == '-' && a[1]) {
			static const char *const opts[] = { "--set", "--unset", "--time", "--json", "--help", "-h",
							    NULL };
			cli_usage_error(usage, "unknown option '%s'%s", a, cli_suggest(a, opts));
			return -1;
		} else if (!*deck) {
			*deck = a;
		} else {
			cli_usage_error(usage, "more than one deck ('%s' and '%s')", *deck, a);
			return -1;
		}
	}
	if (!*deck) {
		cli_usage_error(usage, "no deck given");
		return -1;
	}
	return 0;
}

/* The command line of static or modes parsed and its deck loaded: 0, or
 * 1 with the exit status to return in *status.  *t defaults to
 * time.start. */
int cli_static_open(int argc, char **argv, const char *usage, struct deck **dk,
		    struct model **m, struct sim_options *o, double *t, int *json, int *status)
{
	const char *deck;
	char **sets;
	int nsets;
	int rc = cli_static_parse(argc, argv, usage, &deck, &sets, &nsets, t, json);
	if (rc) {
		cli_sets_free(sets, nsets);
		*status = rc > 0 ? EXIT_OK : EXIT_USAGE;
		return 1;
	}
	rc = cli_load_statics(deck, sets, nsets, dk, m, o);
	cli_sets_free(sets, nsets);
	if (rc) {
		*status = rc;
		return 1;
	}
	if (isnan(*t))
		*t = o->t0;
	return 0;
}

int cli_static_solve(struct ra *s, struct ra_state *x, double t0, int json,
		     const struct statics_options *so, struct statics_result *res)
{
	struct statics_result rr, *pr = res ? res : &rr;
	ra_state_from_model(s, x, t0);
	if (statics_solve(s, x, t0, so, pr) == 0)
		return 0;
	if (json) {
		printf("{\"status\": \"failed\", \"message\": ");
		cli_json_str(pr->message);
		printf(", \"iterations\": %d, \"load_factor\": ", pr->iterations);
		cli_json_num(pr->load_factor);
		printf(", \"load_steps\": %d, \"force_residual\": ", pr->load_steps);
		cli_json_num(pr->res_force);
		printf(", \"constraint_residual\": ");
		cli_json_num(pr->res_phi);
		printf(", \"body\": ");
		cli_json_str(pr->worst_body >= 0 ? s->m->bodies[pr->worst_body].name : "");
		printf(", \"constraint\": ");
		cli_json_str(pr->worst_row >= 0 ? statics_row_name(s->m, pr->worst_row) : "");
		printf("}\n");
	}
	fprintf(stderr, "mbsim: error: %s at t = %g\n", pr->message, t0);
	return -1;
}

/* Velocities of the small free vibration in mode k (1-based, as mbsim
 * modes numbers them) of the linearized system at x, amplitude amp of
 * the shape's largest coordinate (m or rad): dq(t) = amp Re(-i psi e^(s t)),
 * so dq(0) = 0 for a real psi and dq'(0) = amp Re(-i s psi), which for an
 * undamped mode (s = i omega) is amp omega psi; for a real s (overdamped,
 * or an unstable equilibrium's s > 0) dq'(0) = amp s psi, the start of
 * amp psi sinh(s t) when -s is an eigenvalue too.  v global, w body frame,
 * as the shape's coordinates are (linearize.h).  0, or -1 after a message. */
static int mode_velocities(struct ra *s, const struct ra_state *x, double t0, int k, double amp,
			   double *v, double *w)
{
	struct modes mo = { 0 };
	char msg[256];
	int rc = -1;
	if (modes_compute(s, x, t0, &mo, msg, sizeof msg)) {
		fprintf(stderr, "mbsim: error: --excite-mode: %s\n", msg);
	} else if (k > mo.nmodes) {
		fprintf(stderr, "mbsim: error: --excite-mode %d: the static equilibrium has %d mode%s "
			"(mbsim modes lists them)\n", k, mo.nmodes, mo.nmodes == 1 ? "" : "s");
	} else if (mo.m[k - 1].rigid) {
		fprintf(stderr, "mbsim: error: --excite-mode %d is a free motion (zero stiffness, "
			"no vibration); mbsim modes lists the modes\n", k);
	} else {
		const struct mode *e = &mo.m[k - 1];
		for (int b = 0; b < s->nb; b++)
			for (int i = 0; i < 3; i++) {
				const double *pv = e->shape + 2 * (6 * b + i), *pw = pv + 6;
				/* Re(-i (re + i im)(a + i b)) = im a + re b; a real s
				 * (overdamped, or unstable) has a real psi: s psi */
				v[3 * b + i] = amp * (e->im != 0 ? e->im * pv[0] + e->re * pv[1] : e->re * pv[0]);
				w[3 * b + i] = amp * (e->im != 0 ? e->im * pw[0] + e->re * pw[1] : e->re * pw[0]);
			}
		rc = 0;
	}
	modes_release(&mo);
	return rc;
}

int cli_static_model(struct model *m, double t0, int json, int mode, double amp)
{
	struct ra *s = ra_new(m);
	struct ra_state x;
	ra_state_init(s, &x);
	int rc = cli_static_solve(s, &x, t0, json, NULL, NULL);
	double *v = xcalloc(3 * (size_t)s->nb + 1, sizeof(double));
	double *w = xcalloc(3 * (size_t)s->nb + 1, sizeof(double));
	if (rc == 0 && mode > 0)
		rc = mode_velocities(s, &x, t0, mode, amp, v, w);
	if (rc == 0) {
		ra_force_turns(s, m);	/* a continuous rsda keeps its turns */
		ra_cpl_keep(s, m);	/* and so does a coupling */
		for (int b = 0; b < m->nbodies; b++) {
			struct body *B = &m->bodies[b];
			v3_copy(B->r0, x.r + 3 * b);
			memcpy(B->A0, x.A + 9 * b, sizeof(B->A0));
			v3_copy(B->v0, v + 3 * b);
			v3_copy(B->w0, w + 3 * b);
		}
	}
	free(v);
	free(w);
	ra_state_release(&x);
	ra_free(&s);
	return rc;
}

static void print_text(const struct ra *s, const struct ra_state *x, const struct statics_result *r,
		       double t0)
{
	const struct model *m = s->m;
	printf("static equilibrium at t = %g: %d iterations", t0, r->iterations);
	if (r->load_steps)
		printf(" in %d load steps", r->load_steps);
	printf(", force residual %.3g (tolerance %.3g), constraint residual %.3g (tolerance %.3g)\n",
	       r->res_force, r->tol_force, r->res_phi, r->tol_phi);
	printf("\n%-16s %15s %15s %15s   %-40s %s\n", "body", "x [m]", "y [m]", "z [m]",
	       "orientation (w, x, y, z)", "displacement from the deck [m]");
	for (int b = 0; b < s->nb; b++) {
		double q[4], d[3];
		const double *p = x->r + 3 * b;
		mat_to_quat(q, x->A + 9 * b);
		v3_sub(d, p, m->bodies[b].r0);
		printf("%-16s %15.9g %15.9g %15.9g   %9.6f %9.6f %9.6f %9.6f   %.6g %.6g %.6g\n",
		       m->bodies[b].name, p[0], p[1], p[2], q[0], q[1], q[2], q[3], d[0], d[1], d[2]);
	}
	if (m->njoints) {
		printf("\n%-16s %-44s %s\n", "joint", "reaction force on body 2 [N] (global)",
		       "couple about its marker [N m] (global)");
		for (int j = 0; j < m->njoints; j++) {
			const struct joint *J = &m->joints[j];
			double F[3], C[3];
			ra_reaction(s, x, J->row0, J->nrows, J->s[1], F, C);
			printf("%-16s %14.6g %14.6g %14.6g %14.6g %14.6g %14.6g\n", J->name, F[0], F[1],
			       F[2], C[0], C[1], C[2]);
		}
	}
	for (int d = 0; d < m->ndrivers; d++) {
		double F[3], C[3], e = ra_driver_effort(s, x, d, F, C);
		printf("driver %-16s effort %.9g %s (multiplier %.9g)\n", m->drivers[d].name, e,
		       m->drivers[d].kind == DRIVER_ROTATION ? "N m" : "N",
		       x->lam[m->drivers[d].row0]);
	}
}

static void print_json(const struct ra *s, const struct ra_state *x, const struct statics_result *r,
		       double t0)
{
	const struct model *m = s->m;
	printf("{\"status\": \"converged\", \"time\": ");
	cli_json_num(t0);
	printf(", \"iterations\": %d, \"load_factor\": ", r->iterations);
	cli_json_num(r->load_factor);
	printf(", \"load_steps\": %d, \"force_residual\": ", r->load_steps);
	cli_json_num(r->res_force);
	printf(", \"constraint_residual\": ");
	cli_json_num(r->res_phi);
	printf(", \"force_tolerance\": ");
	cli_json_num(r->tol_force);
	printf(", \"constraint_tolerance\": ");
	cli_json_num(r->tol_phi);
	printf(", \"bodies\": [");
	for (int b = 0; b < s->nb; b++) {
		double q[4], d[3];
		mat_to_quat(q, x->A + 9 * b);
		v3_sub(d, x->r + 3 * b, m->bodies[b].r0);
		printf("%s{\"name\": ", b ? ", " : "");
		cli_json_str(m->bodies[b].name);
		printf(", \"position\": ");
		cli_json_array(x->r + 3 * b, 3);
		printf(", \"orientation\": ");
		cli_json_array(q, 4);
		printf(", \"displacement\": ");
		cli_json_array(d, 3);
		printf("}");
	}
	printf("], \"joints\": [");
	for (int j = 0; j < m->njoints; j++) {
		const struct joint *J = &m->joints[j];
		double F[3], C[3];
		ra_reaction(s, x, J->row0, J->nrows, J->s[1], F, C);
		printf("%s{\"name\": ", j ? ", " : "");
		cli_json_str(J->name);
		printf(", \"force\": ");
		cli_json_array(F, 3);
		printf(", \"torque\": ");
		cli_json_array(C, 3);
		printf(", \"multipliers\": ");
		cli_json_array(x->lam + J->row0, J->nrows);
		printf("}");
	}
	printf("], \"drivers\": [");
	for (int d = 0; d < m->ndrivers; d++) {
		printf("%s{\"name\": ", d ? ", " : "");
		cli_json_str(m->drivers[d].name);
		double F[3], C[3];
		printf(", \"effort\": ");
		cli_json_num(ra_driver_effort(s, x, d, F, C));
		printf(", \"multiplier\": ");
		cli_json_num(x->lam[m->drivers[d].row0]);
		printf("}");
	}
	printf("]}\n");
}

/* A whole number in [lo, hi] or a finite positive number (integer 0),
 * else a usage error: 0 or -1. */
static int opt_number(const char *name, const char *v, int integer, int lo, int *iv, double *dv)
{
	char *end;
	double d = strtod(v, &end);
	if (!*v || *end || !isfinite(d) ||
	    (integer ? d != floor(d) || d < lo || d > 1e6 : !(d > 0 && d < 1))) {
		if (integer)
			cli_usage_error(USAGE_STATIC, "%s must be a whole number >= %d, got '%s'", name,
					lo, v);
		else
			cli_usage_error(USAGE_STATIC, "%s must be a number in (0, 1), got '%s'", name, v);
		return -1;
	}
	if (integer)
		*iv = (int)d;
	else
		*dv = d;
	return 0;
}

/* The solver's options taken out of argv (the rest left for
 * cli_static_open in *ac, av): 0, or -1 after a usage error. */
static int solver_options(int argc, char **argv, int *ac, char **av, struct statics_options *so)
{
	statics_options_default(so);
	*ac = 0;
	for (int i = 0; i < argc; i++) {
		const char *v;
		int err = 0, bad = 0;
		if ((v = cli_optval(argc, argv, &i, "--max-iterations", USAGE_STATIC, &err)))
			bad = opt_number("--max-iterations", v, 1, 1, &so->max_iterations, NULL);
		else if ((v = cli_optval(argc, argv, &i, "--load-steps", USAGE_STATIC, &err)))
			bad = opt_number("--load-steps", v, 1, 0, &so->load_steps, NULL);
		else if ((v = cli_optval(argc, argv, &i, "--tolerance", USAGE_STATIC, &err)))
			bad = opt_number("--tolerance", v, 0, 0, NULL, &so->tolerance);
		else if (!err)
			av[(*ac)++] = argv[i];
		if (err || bad)
			return -1;
	}
	av[*ac] = NULL;
	return 0;
}

int cmd_static(int argc, char **argv)
{
	struct deck *dk = NULL;
	struct model *m = NULL;
	struct sim_options o;
	struct statics_options so;
	int json, rc, ac;
	double t;
	char **av = xcalloc((size_t)argc + 1, sizeof(char *));
	int done = solver_options(argc, argv, &ac, av, &so) ? (rc = EXIT_USAGE, 1) :
		   cli_static_open(ac, av, USAGE_STATIC, &dk, &m, &o, &t, &json, &rc);
	free(av);
	if (done)
		return rc;
	struct ra *s = ra_new(m);
	struct ra_state x;
	ra_state_init(s, &x);
	struct statics_result r;
	rc = cli_static_solve(s, &x, t, json, &so, &r);
	if (rc == 0) {
		ra_eval(s, &x, t, PRIM_ALL);	/* the Jacobian of the reactions */
		if (json)
			print_json(s, &x, &r, t);
		else
			print_text(s, &x, &r, t);
	}
	ra_state_release(&x);
	ra_free(&s);
	model_free(&m);
	deck_free(&dk);
	return rc == 0 ? EXIT_OK : EXIT_SIM;
}
