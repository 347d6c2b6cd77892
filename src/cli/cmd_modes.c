/* cmd_modes.c - mbsim modes: natural frequencies and damping ratios of the
 * linearized constrained system at the static equilibrium of a deck
 * (sim/statics.h, sim/linearize.h). */
#include "cli.h"
#include "usage.h"
#include "../deck/deck.h"
#include "../sim/linearize.h"
#include "../sim/statics.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>

/* Seed 002 eq. 11: Newmark(gamma, beta) is stable for
 * h <= (1 / omega_max) / sqrt(gamma / 2 - beta); the three conditionally
 * stable members of seed 002 §2 with gamma = 1/2. */
static const struct {
	const char *name;
	double beta;
} newmark[] = {
	{ "central_differences", 0.0 },
	{ "linear_acceleration", 1.0 / 6 },
	{ "fox_goodwin", 1.0 / 12 },
};
#define NNEWMARK (int)(sizeof newmark / sizeof newmark[0])

static double hmax(double fmax, double beta)
{
	return 1.0 / (6.283185307179586476925286766559 * fmax) / sqrt(0.25 - beta);
}

static void print_text(const struct modes *mo)
{
	printf("%d degrees of freedom at the static equilibrium; %s\n", mo->ndof,
	       mo->damped ? "damped (first-order eigenproblem)" : "undamped");
	if (mo->nmodes == 0)
		return;
	printf("\n%4s %22s %22s %14s\n", "mode", "frequency [Hz]", "damped freq. [Hz]",
	       "damping ratio");
	for (int i = 0; i < mo->nmodes; i++) {
		const struct mode *e = &mo->m[i];
		printf("%4d %22.15g %22.15g %14.9g%s\n", i + 1, e->freq, e->damped, e->zeta,
		       e->rigid ? "   (free motion)" : e->zeta < 0 ? "   (unstable)" : "");
	}
	if (mo->fmax > 0) {
		printf("\nlargest frequency %.15g Hz: stable step (seed 002 eq. 11, gamma = 1/2)\n",
		       mo->fmax);
		for (int k = 0; k < NNEWMARK; k++)
			printf("  %-20s h <= %.6g s\n", newmark[k].name, hmax(mo->fmax, newmark[k].beta));
	}
}

static void print_json(const struct modes *mo)
{
	printf("{\"status\": \"ok\", \"dof\": %d, \"damped\": %s, \"modes\": [", mo->ndof,
	       mo->damped ? "true" : "false");
	for (int i = 0; i < mo->nmodes; i++) {
		const struct mode *e = &mo->m[i];
		printf("%s{\"frequency\": ", i ? ", " : "");
		cli_json_num(e->freq);
		printf(", \"damped_frequency\": ");
		cli_json_num(e->damped);
		printf(", \"damping_ratio\": ");
		cli_json_num(e->zeta);
		printf(", \"eigenvalue\": [");
		cli_json_num(e->re);
		printf(", ");
		cli_json_num(e->im);
		printf("], \"free\": %s}", e->rigid ? "true" : "false");
	}
	printf("], \"max_frequency\": ");
	cli_json_num(mo->fmax);
	printf(", \"stable_step\": {");
	for (int k = 0; k < NNEWMARK; k++) {
		printf("%s\"%s\": ", k ? ", " : "", newmark[k].name);
		cli_json_num(mo->fmax > 0 ? hmax(mo->fmax, newmark[k].beta) : INFINITY);
	}
	printf("}}\n");
}

int cmd_modes(int argc, char **argv)
{
	struct deck *dk = NULL;
	struct model *m = NULL;
	struct sim_options o;
	int json, rc;
	double t;
	if (cli_static_open(argc, argv, USAGE_MODES, &dk, &m, &o, &t, &json, &rc))
		return rc;
	struct ra *s = ra_new(m);
	struct ra_state x;
	ra_state_init(s, &x);
	rc = EXIT_SIM;
	if (cli_static_solve(s, &x, t, json, NULL) == 0) {
		struct modes mo;
		char msg[256];
		if (modes_compute(s, &x, t, &mo, msg, sizeof msg) == 0) {
			if (json)
				print_json(&mo);
			else
				print_text(&mo);
			rc = EXIT_OK;
		} else {
			if (json) {
				printf("{\"status\": \"failed\", \"message\": ");
				cli_json_str(msg);
				printf("}\n");
			}
			fprintf(stderr, "mbsim: error: %s\n", msg);
		}
		modes_release(&mo);
	}
	ra_state_release(&x);
	ra_free(&s);
	model_free(&m);
	deck_free(&dk);
	return rc;
}
