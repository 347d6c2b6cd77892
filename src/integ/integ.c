/* integ.c - what every integration family shares: set-up, the index-1
 * acceleration solve, mass blocks, failure detail. */
#include "integ.h"
#include "dae3.h"
#include "newmark.h"
#include "odeint.h"
#include "tangent.h"
#include "../util/vec.h"
#include "../util/xalloc.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static enum kkt_mode solver_mode(const char *name)
{
	if (strcmp(name, "umfpack") == 0)
		return KKT_FULL;
	return KKT_AUTO;	/* "auto" and "schur" */
}

int integ_check_beams(const struct model *m, const struct integ_info *info,
		      const struct sim_options *o, struct diag *d)
{
	if (m->nbeams == 0 || !info)
		return 0;
	if (strcmp(info->family, "dae3") != 0) {
		/* the beams' coupling blocks reach the Newton matrix of the
		 * dae3 engine only (dae3_solve.c blocks()) */
		diag_error(d, &m->beams[0].pos, "%sintegrator '%s' cannot step beam '%s': beams "
			   "take the dae3 schemes only (lms*, ss*, bathe, msst*, esdirk*, hht, "
			   "genalpha, newmark)%s", o->method_pos.line ? "" : "no integrator.method "
			   "given: the default ", info->name, m->beams[0].name,
			   o->method_pos.line ? "" : "; mbsim static and modes (but for modes --at) need none");
		return -1;
	}
	if (strcmp(o->linear_solver, "schur") == 0) {
		diag_error(d, &m->beams[0].pos, "beam '%s' couples its nodes in the Newton "
			   "matrix: integrator.linear_solver schur needs it block diagonal; use "
			   "auto or umfpack", m->beams[0].name);
		return -1;
	}
	return 0;
}

struct integ *integ_new(const struct integ_info *info, struct ra *sys,
			const struct sim_options *o, struct diag *d)
{
	if (integ_check_beams(sys->m, info, o, d))
		return NULL;
	struct integ *it = xcalloc(1, sizeof(*it));
	int ng = sys->ng, nc = sys->nc;
	it->info = info;
	it->sys = sys;
	it->tol = o->tolerance;
	it->maxit = o->max_iterations;
	it->kkt = kkt_new_pairs(sys->nb, nc, sys->bi, sys->bj, solver_mode(o->linear_solver),
				sys->npair, sys->pairs);
	if (sys->npair)
		it->Wc = xcalloc(36 * (size_t)sys->npair, sizeof(double));
	kkt_set_rows(it->kkt, sys->jo);
	it->W = xcalloc((size_t)sys->nb * 18 + 1, sizeof(double));
	it->g = xcalloc((size_t)ng + (size_t)nc + 1, sizeof(double));	/* fi packs (g, lambda) */
	it->dg = xcalloc((size_t)ng + 1, sizeof(double));
	it->F = xcalloc((size_t)ng + 1, sizeof(double));
	if (info->id != INTEG_HI)	/* hi keeps its start's right side in F */
		it->F2 = xcalloc((size_t)ng + 1, sizeof(double));
	/* hi also solves the multiplier correction (nc) into rhs: a model
	 * with redundant constraints can have more rows than coordinates */
	it->rhs = xcalloc((size_t)(ng > nc ? ng : nc) + 1, sizeof(double));
	it->dl = xcalloc((size_t)nc + 1, sizeof(double));
	it->dl2 = xcalloc((size_t)nc + 1, sizeof(double));
	it->lam = xcalloc((size_t)nc + 1, sizeof(double));
	it->bad_row = -1;
	it->bad_body = -1;
	it->eom_body = -1;
	it->omega_max = NAN;
	int hi = strcmp(info->family, "half_implicit") == 0;
	if (hi || strcmp(info->family, "fully_implicit") == 0) {
		/* hi: lambda, then the displacement g, whose predictions
		 * choose the degree; fi: (r-ddot, w-dot), then lambda */
		it->hist.n = ng + nc;
		it->hist.n0 = hi ? nc : ng + nc;
		it->hist.sel = hi ? nc : 0;
		it->hist.cap = o->predictor ? INTEG_HIST_MAX : 0;
		it->hist.v = xcalloc((size_t)it->hist.cap * (size_t)it->hist.n + 1, sizeof(double));
		it->hist.q = it->hist.cap;
	}
	it->h_next = o->step;
	if (o->index == 2 && (strcmp(info->family, "dae3") != 0 || info->id == INTEG_HHT ||
			      info->id == INTEG_GENALPHA || info->id == INTEG_NEWMARK)) {
		diag_error(d, NULL, "integrator '%s' has no index-2 formulation: integrator.index: 2 "
			   "needs a dae3 scheme other than hht, genalpha and newmark (lms*, ss*, "
			   "bathe, msst*, esdirk*)", info->name);
		integ_free(&it);
		return NULL;
	}
	if (strcmp(info->family, "dae3") == 0 && dae3_init(it, o)) {
		diag_error(d, NULL, "integrator '%s': its coefficients could not be made for "
			   "rho_inf = %g", info->name, o->rho_inf);
		integ_free(&it);
		return NULL;
	}
	if (info->id == INTEG_NEWMARK && newmark_init(it, o)) {
		diag_error(d, NULL, "integrator 'newmark' needs integrator.beta > 0 (got %g): the "
			   "index-3 form cannot impose the constraints with beta = 0", o->nm_beta);
		integ_free(&it);
		return NULL;
	}
	/* integrator.formulation fits the scheme: the deck's check
	 * (build_formulation), at its FILE:LINE:COL */
	if ((strcmp(info->formulation, "rp") == 0 || strcmp(info->formulation, "tree") == 0) &&
	    odeint_init(it, o, d)) {
		integ_free(&it);
		return NULL;
	}
	if (info->id == INTEG_TANGENT_NEWMARK) {
		if (tangent_init(it, o, d)) {
			integ_free(&it);
			return NULL;
		}
		it->growth = nm_growth_new(sys);
	}
	return it;
}

void integ_free(struct integ **pit)
{
	struct integ *it = *pit;
	if (!it)
		return;
	dae3_free(it);
	tangent_free(it);
	odeint_free(&it->ode);
	nm_growth_free(&it->growth);
	kkt_free(&it->kkt);
	free(it->W);
	free(it->Wc);
	free(it->g);
	free(it->dg);
	free(it->F);
	free(it->F2);
	free(it->rhs);
	free(it->dl);
	free(it->dl2);
	free(it->lam);
	free(it->hist.v);
	free(it);
	*pit = NULL;
}

void integ_gyro_blocks(struct integ *it, const struct ra_state *y, double f)
{
	const struct ra *s = it->sys;
	for (int b = 0; b < s->nb; b++) {
		const double *w = y->w + 3 * b, *J = ra_inertia(s, b);
		double Jw[3], W1[9], W2[9], T[9];
		m3_mulv(Jw, J, w);
		m3_skew(W1, w);
		m3_mul(T, W1, J);
		m3_skew(W2, Jw);
		for (int e = 0; e < 9; e++)
			it->W[18 * b + 9 + e] += f * (T[e] - W2[e]);
	}
}

void integ_residual(struct integ *it, const struct ra_state *y, double t, const double *lamf,
		    const double *g, const double *lam, double theta, double cq)
{
	struct ra *s = it->sys;
	double *F = it->F, *e = it->rhs;
	ra_eval(s, y, t, PRIM_PHI | PRIM_JAC);
	ra_forces(s, y, t, lamf, F);
	ra_gyro(s, y, F);
	ra_jac_tmul(s, lam, e);
	for (int b = 0; b < s->nb; b++) {
		double Jwd[3];
		m3_mulv(Jwd, ra_inertia(s, b), g + 6 * b + 3);
		for (int c = 0; c < 3; c++) {
			int i = 6 * b + c;
			e[i] = theta * F[i] - e[i] - s->mass[b] * g[i];
			e[i + 3] = theta * F[i + 3] - e[i + 3] - Jwd[c];
		}
	}
	for (int k = 0; k < s->nc; k++)
		it->dl[k] = -s->phi[k] / cq;
}

/* Rows are kept while they lie on one grid of spacing hist.h; a row off
 * it (a step of another size, e.g. the last one shortened to land on
 * time.end) starts the history again. */
static int same(double a, double b)
{
	return fabs(a - b) <= 1e-9 * fabs(b);
}

void integ_hist_reset(struct integ *it)
{
	it->hist.rows = 0;
}

/* Newton's backward-difference extrapolation to the next grid point: the
 * polynomial through the newest q rows, at the next point, is
 * sum_j (-1)^j binom(q, j + 1) v_j. */
static const double extrap_w[INTEG_HIST_MAX + 1][INTEG_HIST_MAX] = {
	{ 0 }, { 1 }, { 2, -1 }, { 3, -3, 1 }, { 4, -6, 4, -1 }, { 5, -10, 10, -5, 1 },
	{ 6, -15, 20, -15, 6, -1 }
};

/* Row j (0 the newest) of the ring is at slot (head + j) % cap. */
static void ring_rows(const struct integ_hist *H, int q, const double **r)
{
	for (int j = 0; j < q; j++)
		r[j] = H->v + (size_t)((H->head + j) % H->cap) * (size_t)H->n;
}

/* The extrapolation of q rows at index i. */
static inline double extrap_at(const double *const *r, const double *w, int q, size_t i)
{
	double s = 0.0;
	for (int j = 0; j < q; j++)
		s += w[j] * r[j][i];
	return s;
}

/* Squared distance of the extrapolation of q rows from the row (v0, v1),
 * over its values sel .. n-1. */
static double extrap_err(const struct integ_hist *H, int q, const double *v0, const double *v1)
{
	const double *r[INTEG_HIST_MAX], *w = extrap_w[q];
	size_t n = (size_t)H->n, n0 = (size_t)H->n0;
	double e = 0.0;
	ring_rows(H, q, r);
	for (size_t i = (size_t)H->sel; i < n; i++) {
		double d = extrap_at(r, w, q, i) - (i < n0 ? v0[i] : v1[i - n0]);
		e += d * d;
	}
	return e;
}

void integ_hist_push(struct integ *it, double t, const double *v0, const double *v1)
{
	struct integ_hist *H = &it->hist;
	if (H->cap == 0)
		return;
	if (H->rows > 0) {
		double d = t - H->t;
		if (!(d > 0.0) || (H->rows > 1 && !same(d, H->h)))
			H->rows = 0;
		else
			H->h = d;
	}
	size_t n = (size_t)H->n, n0 = (size_t)H->n0;
	/* order for the next step: of q - 1, q, q + 1 rows, the one whose
	 * prediction of the row (its values sel .. n-1) was closest (a smooth
	 * solution favours a high degree, noise of the Newton tolerance a low
	 * one), as multistep codes move their order by one at a time */
	if (H->rows > 0) {
		double best = INFINITY;
		int qc = H->q < H->rows ? H->q : H->rows;
		int q0 = qc > 1 ? qc - 1 : 1, q1 = qc < H->rows ? qc + 1 : H->rows;
		for (int q = q0; q <= q1; q++) {
			double e = extrap_err(H, q, v0, v1);
			if (e < best) {
				best = e;
				H->q = q;
			}
		}
	}
	H->head = (H->head + H->cap - 1) % H->cap;
	double *row = H->v + (size_t)H->head * n;
	memcpy(row, v0, n0 * sizeof(double));
	if (n > n0)
		memcpy(row + n0, v1, (n - n0) * sizeof(double));
	if (H->rows < H->cap)
		H->rows++;
	H->t = t;
}

int integ_hist_predict(const struct integ *it, double t, double *out0, double *out1)
{
	const struct integ_hist *H = &it->hist;
	int q = H->rows < H->q ? H->rows : H->q;
	/* one row is the last step's values, which the caller has anyway */
	if (q < 2 || !same(t - H->t, H->h))
		return 0;
	const double *r[INTEG_HIST_MAX], *w = extrap_w[q];
	size_t n = (size_t)H->n, n0 = (size_t)H->n0;
	ring_rows(H, q, r);
	for (size_t i = 0; i < n0; i++)
		out0[i] = extrap_at(r, w, q, i);
	for (size_t i = n0; i < n; i++)
		out1[i - n0] = extrap_at(r, w, q, i);
	return q;
}

void integ_acc_get(const struct ra *s, const struct ra_state *x, double *g)
{
	for (int b = 0; b < s->nb; b++) {
		v3_copy(g + 6 * b, x->a + 3 * b);
		v3_copy(g + 6 * b + 3, x->wd + 3 * b);
	}
}

void integ_acc_put(const struct ra *s, const double *g, struct ra_state *x)
{
	for (int b = 0; b < s->nb; b++) {
		v3_copy(x->a + 3 * b, g + 6 * b);
		v3_copy(x->wd + 3 * b, g + 6 * b + 3);
	}
}

void integ_note_eom(struct integ *it)
{
	const struct ra *s = it->sys;
	it->eom_body = -1;
	it->eom_value = 0.0;
	for (int i = 0; i < s->ng; i++)
		if (!(fabs(it->rhs[i]) <= fabs(it->eom_value))) {
			it->eom_value = fabs(it->rhs[i]);
			it->eom_body = i / 6;
		}
}

void integ_note_worst(struct integ *it)
{
	const struct ra *s = it->sys;
	it->bad_row = -1;
	it->eom_body = -1;
	it->bad_value = 0.0;
	for (int k = 0; k < s->nc; k++)
		if (!(fabs(s->phi[k]) <= fabs(it->bad_value))) {
			it->bad_value = s->phi[k];
			it->bad_row = k;
		}
}

double integ_norm2(const double *a, int n, const double *b, int m)
{
	double s = 0.0;
	for (int i = 0; i < n; i++)
		s += a[i] * a[i];
	for (int i = 0; i < m; i++)
		s += b[i] * b[i];
	return sqrt(s);
}

int integ_accel(struct integ *it, struct ra_state *x)
{
	if (it->info->id == INTEG_BDF)	/* seed 003: masses may be singular */
		return bdf_begin(it, x);
	int rc = ra_accel(it->sys, it->kkt, it->W, it->F, it->g, x);
	it->factorizations++;
	if (rc) {
		it->bad_row = kkt_bad_row(it->kkt);
		return INTEG_SINGULAR;
	}
	if (it->tan)	/* tangent_newmark: omega_max of the first sample */
		return tangent_omega_at(it, x);
	return INTEG_OK;
}

int integ_fix_redundant(struct integ *it, int *rows)
{
	int n = kkt_dropped(it->kkt, rows);
	if (n == 0)
		return 0;
	kkt_fix_dropped(it->kkt, rows, n);
	if (strcmp(it->info->family, "dae3") == 0)
		dae3_fix_redundant(it, rows, n);
	return n;
}

int integ_singular_retry(struct integ *it, int on)
{
	double tol = on ? INTEG_SINGULAR_TOL * pow(100.0, on - 1) : 0.0;
	if (it->tan) {
		/* tangent_newmark solves no saddle-point system: the same angle
		 * sqrt(tol) as the rank tolerance of its QR for the step */
		tangent_rank_tol(it, sqrt(tol));
		return 0;
	}
	if (it->ode)	/* the ODE schemes' partitioning is their own */
		return -1;
	if (kkt_set_singular_tol(it->kkt, tol))
		return -1;
	if (strcmp(it->info->family, "dae3") == 0)
		dae3_singular_tol(it, tol);
	return 0;
}

int integ_step(struct integ *it, double h, struct ra_state *x, struct ra_state *y)
{
	switch (it->info->id) {
	case INTEG_HI:
	case INTEG_HILG:
		return hi_step(it, h, x, y);
	case INTEG_FI:
		return fi_step(it, h, x, y);
	case INTEG_NEWMARK:
		return newmark_step(it, h, x, y);
	case INTEG_TANGENT_NEWMARK:
		return nm_growth_step(it, tangent_step(it, h, x, y), y);
	case INTEG_RN4:
	case INTEG_W2:
	case INTEG_ADAMS:
	case INTEG_BDF:
		return odeint_step(it, h, x, y);
	default:
		return dae3_step(it, h, x, y);
	}
}
