/* tree_f.c - the cost of one right-hand-side evaluation f of the
 * formulation tree (src/form/tree.c, seed 003 §3), in process:
 *
 *   build/bench/tree_f DECK N [SECONDS]
 *
 * loads DECK with parameters.N = N (decks/chain.yaml: the spherical chain
 * of N links), starts the tree's ODE at the deck's initial state (the
 * rates projected joint by joint, tree_start), moves the coordinates and
 * rates off it (below) and calls f at that state repeatedly: five trials of about SECONDS / 5 each (default 1 s in all),
 * each a count of calls fixed by a first calibrating trial.  Prints one
 * line, "N nq median_f_s min_f_s us_per_body" (median and fastest trial,
 * per call; microseconds per call and body from the median).  With
 * TREE_F_CALLS=k in the environment it makes exactly k calls and prints
 * nothing, for instruction and cache-miss counts under valgrind
 * (bench/README.md).  A call of f that fails (its status) makes it print
 * f's message instead and exit 1: a failing f is not what is timed.
 *
 * Why in process and not the run loop: a run's loop time per extra f
 * (bench/README.md) also holds the integrator's vector operations (CVODE's
 * Adams keeps up to 13 history vectors of length 2 nq, about a quarter of
 * the loop at N = 1e4) and its step-size choices, which depend on N; this
 * times f alone, on exactly the code the schemes call.  The clock is the
 * thread's CPU time (CLOCK_THREAD_CPUTIME_ID): on a shared machine with
 * more runnable processes than cores, wall time also counts the
 * intervals the process waits for a core (what is left is the caches and
 * memory bandwidth other processes share).
 */
#include "deck/deck.h"
#include "form/ra.h"
#include "form/tree.h"
#include "model/options.h"
#include "util/diag.h"
#include "util/xalloc.h"

#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static double now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static int cmp(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return x < y ? -1 : x > y;
}

int main(int argc, char **argv)
{
	if (argc < 3) {
		fprintf(stderr, "usage: tree_f DECK N [SECONDS]\n");
		return 2;
	}
	double budget = argc > 3 ? atof(argv[3]) : 1.0;
	struct diag d;
	diag_init(&d);
	struct deck *dk = deck_load(argv[1], &d);
	char set[64];
	snprintf(set, sizeof set, "parameters.N=%s", argv[2]);
	struct model *m = NULL;
	struct sim_options o;
	if (!dk || deck_set(dk, set, &d) || deck_build(dk, &m, &o, &d)) {
		for (int i = 0; i < d.n; i++) {
			char *s = diag_format(&d, i);
			fprintf(stderr, "%s\n", s);
			free(s);
		}
		return 2;
	}
	struct ra *s = ra_new(m);
	struct tree *T = tree_new(s, &d);
	if (!T) {
		fprintf(stderr, "tree_f: the deck is not a tree\n");
		return 2;
	}
	struct ode_sys *S = tree_ode(T);
	int n = tree_ncoords(T);
	double *y = xcalloc((size_t)n + 1, sizeof(double)), *yd = xcalloc((size_t)n + 1, sizeof(double));
	double *ydd = xcalloc((size_t)n + 1, sizeof(double));
	struct ra_state x;
	ra_state_init(s, &x);
	ra_state_from_model(s, &x, 0.0);
	if (S->start(S->ctx, &x, y, yd, ydd)) {
		fprintf(stderr, "tree_f: start failed: %s\n", S->why(S->ctx));
		return 1;
	}
	/* a state off the start's charts (there every rotation vector is 0,
	 * which takes the series branches of tree_kin.c's chart Jacobian): each
	 * coordinate moved by up to 0.5 and every rate in [-2, 2), from a
	 * fixed linear congruential sequence, so every run times the same f */
	unsigned long long lcg = 12345;
	for (int i = 0; i < n; i++) {
		lcg = lcg * 6364136223846793005ULL + 1442695040888963407ULL;
		y[i] += 0.5 * ((double)(lcg >> 11) / 9007199254740992.0 * 2.0 - 1.0);
		lcg = lcg * 6364136223846793005ULL + 1442695040888963407ULL;
		yd[i] = 2.0 * ((double)(lcg >> 11) / 9007199254740992.0 * 2.0 - 1.0);
	}
	/* calibrate: calls for a fifth of the budget; TREE_F_CALLS=k instead
	 * makes exactly k calls and prints nothing (instruction counts, e.g.
	 * valgrind --tool=callgrind, are then per call) */
	const char *fixed = getenv("TREE_F_CALLS");
	int bad = 0;	/* a failing f is not timed: any call's status */
	if (fixed) {
		for (long i = atol(fixed); i > 0; i--)
			bad |= S->rhs(S->ctx, 0.0, y, yd, ydd);
		goto done;
	}
	long k = 1;
	for (;;) {
		double t0 = now();
		for (long i = 0; i < k; i++)
			bad |= S->rhs(S->ctx, 0.0, y, yd, ydd);
		if (bad)
			goto done;
		double dt = now() - t0;
		if (dt > 0.02 || k > (1L << 30)) {
			k = (long)((double)k * budget / 5.0 / dt) + 1;
			break;
		}
		k *= 4;
	}
	double tr[5];
	for (int r = 0; r < 5; r++) {
		double t0 = now();
		for (long i = 0; i < k; i++)
			bad |= S->rhs(S->ctx, 0.0, y, yd, ydd);
		tr[r] = (now() - t0) / (double)k;
	}
	qsort(tr, 5, sizeof tr[0], cmp);
	if (!bad)
		printf("%d %d %.6e %.6e %.4f\n", m->nbodies, n, tr[2], tr[0], 1e6 * tr[2] / m->nbodies);
done:
	if (bad)
		fprintf(stderr, "tree_f: f failed: %s\n", S->why(S->ctx));
	ra_state_release(&x);
	free(y);
	free(yd);
	free(ydd);
	tree_free(&T);
	ra_free(&s);
	model_free(&m);
	deck_free(&dk);
	diag_release(&d);
	return bad ? 1 : 0;
}
