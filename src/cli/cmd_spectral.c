/* cmd_spectral.c - `mbsim spectral`: linear analysis of a scheme (004 §4).
 *
 * LMS_k (lms2-lms4) are analysed from their characteristic polynomial
 * (004 eq. 2 applied to y' = i w y, the coefficients those of coef_make):
 *
 *   p(z) = z^k - sum_{j=1..k} a_j z^(k-j) - i w dt sum_{j=0..k} b_j z^(k-j)
 *
 * whose roots and their conjugates are the nonzero eigenvalues of the
 * one-step map.  Its roots are found in long double (Aberth iteration,
 * spectral_roots).  Why not the measured matrix: sigma(z) = b0 (z + rho)^k,
 * so for w dt -> inf the roots cluster at -rho with spread
 * (w dt)^(-1/k), and the eigenvalues of the measured matrix, whose
 * entries carry round-off of order 1e-11, move by (1e-11)^(1/k): -2.1e-4
 * at ratio 1e7 and +4.9e-4 at 1e8 for lms3.  A root of p is a simple root
 * at any finite ratio (rho < 1); its error from the coefficients' rounding
 * to double is about eps |p|_abs / |p'| (eps = 2^-53), which the command estimates and
 * reports when it exceeds 1e-6 (lms4 past ratio ~1e13).  --measured
 * forces the measured matrix for them too.
 *
 * The scheme itself is run on x'' + w^2 x = 0: one free body of unit mass
 * held by a spring of stiffness w^2 (T = 1 s) and free length 0 to the
 * origin, whose force -w^2 x is exactly linear.
 * Its one-step map is linear in the engine's history (positions,
 * velocities, accelerations of the stored states, auxiliary variables,
 * pseudo-accelerations: dae3_slots); one step from each unit history
 * gives the amplification matrix column by column, and its eigenvalues
 * (LAPACK dgeev) the spectral radius.  The principal root lambda (the
 * one nearest exp(i w dt)) gives, with ln lambda = dt wbar (-xi + i
 * sqrt(1 - xi^2)), the amplitude decay xi and the period elongation
 * w / wbar - 1 (004 §4, in %).  Abscissa: dt / (n T), n = implicit stages
 * per step.
 */
#include "cli.h"
#include "usage.h"
#include "../elem/elem.h"
#include "../form/ra.h"
#include "../integ/integ.h"
#include "../integ/dae3.h"
#include "../integ/coef.h"
#include "../util/xalloc.h"

#include <complex.h>
#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void dgeev_(const char *jobvl, const char *jobvr, const int *n, double *a, const int *lda,
	    double *wr, double *wi, double *vl, const int *ldvl, double *vr, const int *ldvr,
	    double *work, const int *lwork, int *info);

struct spec_opts {
	const char *method;
	double rho, alpha, lo, hi;
	int points, json, csv, measured;
	int rho_given;
};

static int parse(int argc, char **argv, struct spec_opts *so)
{
	so->method = NULL;
	so->rho = 0.6;
	so->alpha = NAN;
	so->lo = 1e-3;
	so->hi = 1e2;
	so->points = 51;
	so->json = so->csv = so->measured = so->rho_given = 0;
	for (int i = 1; i < argc; i++) {
		const char *a = argv[i], *v;
		char *end;
		int err = 0;
		if ((v = cli_optval(argc, argv, &i, "--method", USAGE_SPECTRAL, &err))) {
			so->method = v;
		} else if ((v = cli_optval(argc, argv, &i, "--rho", USAGE_SPECTRAL, &err)) ||
			   (v = cli_optval(argc, argv, &i, "--alpha", USAGE_SPECTRAL, &err))) {
			double x = strtod(v, &end);
			int rho = a[2] == 'r';
			if (*end || !(rho ? (x >= 0 && x <= 1) : (x >= -1.0 / 3.0 && x <= 0))) {
				cli_usage_error(USAGE_SPECTRAL, "%s must be a number in %s, got '%s'",
						rho ? "--rho" : "--alpha", rho ? "[0, 1]" : "[-1/3, 0]", v);
				return -1;
			}
			*(rho ? &so->rho : &so->alpha) = x;
			so->rho_given |= rho;
		} else if ((v = cli_optval(argc, argv, &i, "--ratio-range", USAGE_SPECTRAL, &err))) {
			so->lo = strtod(v, &end);
			if (*end != ':' || (so->hi = strtod(end + 1, &end), *end) ||
			    !(so->lo > 0 && so->hi > so->lo)) {
				cli_usage_error(USAGE_SPECTRAL, "--ratio-range wants A:B with 0 < A < B, got '%s'", v);
				return -1;
			}
		} else if ((v = cli_optval(argc, argv, &i, "--points", USAGE_SPECTRAL, &err))) {
			long n = strtol(v, &end, 10);
			if (*end || n < 1 || n > 100000) {
				cli_usage_error(USAGE_SPECTRAL, "--points wants an integer in [1, 100000], got '%s'", v);
				return -1;
			}
			so->points = (int)n;
		} else if (err) {
			return -1;
		} else if (strcmp(a, "--json") == 0) {
			so->json = 1;
		} else if (strcmp(a, "--csv") == 0) {
			so->csv = 1;
		} else if (strcmp(a, "--measured") == 0) {
			so->measured = 1;
		} else if (strcmp(a, "--help") == 0 || strcmp(a, "-h") == 0) {
			printf("usage: %s", USAGE_SPECTRAL);
			return 1;
		} else {
			cli_usage_error(USAGE_SPECTRAL, "%s '%s'", a[0] == '-' ? "unknown option" :
					"unexpected argument", a);
			return -1;
		}
	}
	if (!so->method) {
		cli_usage_error(USAGE_SPECTRAL, "--method is required");
		return -1;
	}
	if (so->json && so->csv) {
		cli_usage_error(USAGE_SPECTRAL, "--json and --csv exclude each other");
		return -1;
	}
	if (so->rho_given && strcmp(so->method, "newmark") == 0) {
		cli_usage_error(USAGE_SPECTRAL, "--rho does not apply to newmark, which has beta "
				"and gamma (here 1/4 and 1/2, the trapezoidal rule) and no rho_inf");
		return -1;
	}
	return 0;
}

static struct model *oscillator(double w2)
{
	struct model *m = model_new();
	memset(m->gravity, 0, sizeof m->gravity);
	struct body *b = model_add_body(m, "mass");
	static const double I3[9] = { 1, 0, 0, 0, 1, 0, 0, 0, 1 };
	b->mass = 1.0;
	memcpy(b->J, I3, sizeof I3);
	memcpy(b->A0, I3, sizeof I3);
	struct force *f = model_add_force(m, "spring", FORCE_TSDA);
	f->body[0] = MODEL_GROUND;
	f->body[1] = 0;
	((struct tsda_par *)elem_par(f))->k = w2;	/* free length 0: the force -w^2 x
							 * is linear in x */
	struct diag d;
	diag_init(&d);
	model_finalize(m, &d);
	diag_release(&d);
	return m;
}

struct point {
	double rho, ad, pe;
	double complex root;	/* in: the previous abscissa's principal root
				 * (0 at the first); out: this one's */
};

/* From the eigenvalues l[0..n) of the one-step map of x'' + w^2 x = 0 at
 * step dt (a real map: conjugate pairs): the spectral radius, and the
 * amplitude decay and period elongation (004 §4) of the principal
 * eigenvalue, the one in the upper half plane that continues the previous
 * abscissa's (p->root), at the first the one closest to exp(i w dt).
 * Closest to exp(i w dt) at every abscissa picked, past w dt = pi where
 * exp(i w dt) wraps round the circle, a spurious root: newmark's at
 * exactly 1 for ratio 1 and 2 (w dt = 2 pi), AD -nan and PE -100; lms2's
 * AD 28.8, 6.7, 26.8 at ratios 1, 1.26, 1.58.  AD and PE are NaN when
 * the principal root is real and positive (no rotation, no period). */
static void point_from_eigenvalues(const double complex *l, int n, double w, double dt,
				   struct point *p)
{
	double complex target = p->root != 0 ? p->root : cexp(I * w * dt), best = 0;
	double dbest = INFINITY;
	p->rho = 0.0;
	for (int i = 0; i < n; i++) {
		double complex u = cimag(l[i]) < 0 ? conj(l[i]) : l[i];
		p->rho = fmax(p->rho, cabs(u));
		if (cabs(u - target) < dbest) {
			dbest = cabs(u - target);
			best = u;
		}
	}
	p->root = best;
	double complex L = clog(best);
	double wbar = cabs(L);
	p->ad = wbar > 0 ? -100.0 * creal(L) / wbar : NAN;
	p->pe = wbar > 0 ? 100.0 * (w * dt / wbar - 1.0) : NAN;
}

/* What analyse() works in: the same at every abscissa. */
struct amat {
	int n, lw;			/* history slots (dae3_slots), dgeev workspace */
	double *A, *e, *wr, *wi, *work;	/* n x n, n, n, n, lw */
	struct ra_state x;
};

static void amat_init(struct amat *M, struct integ *it)
{
	int n = dae3_slots(it);
	M->n = n;
	M->lw = 8 * n + 8;
	M->A = xcalloc((size_t)n * n, sizeof(double));
	M->e = xcalloc((size_t)n, sizeof(double));
	M->wr = xcalloc((size_t)n, sizeof(double));
	M->wi = xcalloc((size_t)n, sizeof(double));
	M->work = xcalloc((size_t)M->lw, sizeof(double));
	ra_state_init(it->sys, &M->x);
}

static void amat_release(struct amat *M)
{
	ra_state_release(&M->x);
	free(M->A);
	free(M->e);
	free(M->wr);
	free(M->wi);
	free(M->work);
}

/* One abscissa: amplification matrix, eigenvalues, principal root. */
static int analyse(struct integ *it, struct amat *M, struct ra_state *x0, struct ra_state *y,
		   double dt, double w, struct point *p, char *err, size_t nerr)
{
	int n = M->n, info = 0, one = 1;
	double *A = M->A, *e = M->e, *wr = M->wr, *wi = M->wi;
	struct ra_state *x = &M->x;
	int rc = 0;
	for (int i = 0; i < n && !rc; i++) {
		dae3_prime(it, x0, dt);
		memset(e, 0, (size_t)n * sizeof(double));
		e[i] = 1.0;
		dae3_set(it, 0, dt, e);
		ra_state_copy(it->sys, x, dae3_last(it));
		int st = integ_step(it, dt, x, y);
		if (st) {
			snprintf(err, nerr, "the scheme's Newton iteration failed (status %d) at "
				 "dt = %g on the oscillator", st, dt);
			rc = -1;
			break;
		}
		dae3_get(it, 0, dt, A + (size_t)i * n);	/* column i (column-major) */
	}
	if (!rc) {
		char N = 'N';
		dgeev_(&N, &N, &n, A, &n, wr, wi, NULL, &one, NULL, &one, M->work, &M->lw, &info);
		if (info) {
			snprintf(err, nerr, "dgeev failed (info %d) at dt = %g", info, dt);
			rc = -1;
		}
	}
	if (!rc) {
		double complex *l = xcalloc((size_t)n, sizeof(double complex));
		for (int i = 0; i < n; i++)
			l[i] = wr[i] + I * wi[i];
		point_from_eigenvalues(l, n, w, dt, p);
		free(l);
	}
	return rc;
}

typedef long double complex cld;

/* p(z) = sum_{j=0..n} c[j] z^(n-j) and p'(z) by Horner; *pa = sum |c_j| |z|^(n-j),
 * the scale of p's round-off. */
static cld horner(const cld *c, int n, cld z, cld *dp, long double *pa)
{
	cld p = c[0], d = 0;
	long double a = cabsl(c[0]), az = cabsl(z);
	for (int j = 1; j <= n; j++) {
		d = d * z + p;
		p = p * z + c[j];
		a = a * az + cabsl(c[j]);
	}
	*dp = d;
	if (pa)
		*pa = a;
	return p;
}

/* The n <= 4 roots of p (c[0] != 0) by Aberth's iteration (simultaneous
 * Newton with the other roots deflated), in long double; err[i] gets
 * an estimate of root i's error when the coefficients carry relative
 * errors eps (below).  A root is
 * final when |p(z)| is at the level of round-off in evaluating p or the
 * step is at the last bits of z.  Returns 0, -1 when the iteration did
 * not settle in 500 sweeps. */
static int spectral_roots(const cld *c, int n, long double eps, cld *z, double *err)
{
	/* start: a circle of the roots' mean modulus, turned off the axes */
	long double r = powl(cabsl(c[n] / c[0]), 1.0L / n);
	if (!(r > 0) || !isfinite(r))
		r = 1;
	for (int i = 0; i < n; i++)
		z[i] = r * cexpl(I * (2.0L * (long double)M_PI * i / n + 0.4L));
	int done = 0;
	for (int sweep = 0; sweep < 500 && !done; sweep++) {
		done = 1;
		for (int i = 0; i < n; i++) {
			long double pa;
			cld dp, p = horner(c, n, z[i], &dp, &pa);
			if (cabsl(p) <= 4 * n * LDBL_EPSILON * pa)
				continue;	/* p(z) is round-off: z is a root */
			cld q = p / dp, s = 0;
			for (int j = 0; j < n; j++)
				if (j != i)
					s += 1.0L / (z[i] - z[j]);
			cld dz = q / (1.0L - q * s);
			z[i] -= dz;
			if (cabsl(dz) > 8 * LDBL_EPSILON * fmaxl(1, cabsl(z[i])))
				done = 0;
		}
	}
	for (int i = 0; i < n; i++) {
		/* Taylor coefficients t_m = p^(m)(z)/m! by repeated synthetic
		 * division; a perturbation e of p moves the root by about
		 * min_m (e / |t_m|)^(1/m): e/|p'| at a simple root, the m-th
		 * root at an m-fold one (lms3, lms4 at rho = 1: (z + 1)^(k-1)
		 * divides p) */
		cld t[5];
		long double pa, best = INFINITY;
		cld dp;
		horner(c, n, z[i], &dp, &pa);
		for (int j = 0; j <= n; j++)
			t[j] = c[j];
		for (int m = 0; m <= n; m++)
			for (int j = 1; j <= n - m; j++)
				t[j] += t[j - 1] * z[i];
		/* now t[n - m] = p^(m)(z)/m! */
		for (int m = 1; m <= n; m++) {
			long double tm = cabsl(t[n - m]);
			if (tm > 0)
				best = fminl(best, powl(eps * pa / tm, 1.0L / m));
		}
		err[i] = (double)best;
	}
	return done ? 0 : -1;
}

/* One abscissa of LMS_k from its characteristic polynomial (see the top
 * of the file); *bound: the error bound of the radius. */
static int analyse_lms(const struct coef *cf, double dt, double w, struct point *p,
		       double *bound, char *err, size_t nerr)
{
	int k = cf->k;
	cld c[5], z[4];
	double e[4];
	long double wdt = (long double)w * dt;
	c[0] = 1.0L - I * wdt * cf->b[0];
	for (int j = 1; j <= k; j++)
		c[j] = -(long double)cf->a[j] - I * wdt * cf->b[j];
	/* the engine's coefficients are the published ones rounded to double:
	 * that rounding, not the long double arithmetic, bounds the error */
	if (spectral_roots(c, k, DBL_EPSILON / 2, z, e)) {
		snprintf(err, nerr, "the roots of the characteristic polynomial did not "
			 "converge at dt = %g", dt);
		return -1;
	}
	/* the eigenvalues are the roots and their conjugates (-i w) */
	double complex l[4];
	double rmax = -1;
	for (int i = 0; i < k; i++) {
		l[i] = (double complex)z[i];
		if (cabs(l[i]) > rmax) {
			rmax = cabs(l[i]);
			*bound = e[i];
		}
	}
	point_from_eigenvalues(l, k, w, dt, p);
	return 0;
}

/* SS_r's auxiliary variables (dae3_step.c, step_ss): a perturbation of
 * auxiliary variable k alone is multiplied in a step by -(1 - g)/g, g =
 * gamma_{2k-1} (reference §C "update"; the update is triangular in k, so
 * these are eigenvalues of the one-step map), and LMS_r's characteristic
 * polynomial, whose roots the consistent solution follows, has not got
 * them.  ss2: g = (1.5 - rho/2)/(1 + rho), modulus |1 - 3 rho|/(3 - rho),
 * 1/3 at rho_inf = 0, above rho_inf for rho_inf < 3 - 2 sqrt 2.  The
 * largest modulus; 0 for any other scheme. */
static double ss_aux_radius(const struct spec_opts *so)
{
	struct coef c;
	if (strncmp(so->method, "ss", 2) || coef_make(so->method, so->rho, so->alpha, &c) ||
	    c.kind != COEF_SS)
		return 0.0;
	double r = 0.0;
	for (int k = 1; k < c.r; k++)
		r = fmax(r, cabs((1.0 - c.g[2 * k - 1]) / c.g[2 * k - 1]));
	return r;
}

int cmd_spectral(int argc, char **argv)
{
	struct spec_opts so;
	int rc = parse(argc, argv, &so);
	if (rc)
		return rc > 0 ? EXIT_OK : EXIT_USAGE;
	const struct integ_info *info = integ_find(so.method);
	if (info && info->id == INTEG_TANGENT_NEWMARK) {
		/* on the unconstrained oscillator its tangent space is the whole
		 * space and its step is newmark's */
		fprintf(stderr, "mbsim: error: spectral analysis does not take 'tangent_newmark', "
			"which steps in the tangent space of a model's constraints; on the "
			"unconstrained oscillator analysed here that is the whole space and its "
			"step is newmark's: use `--method newmark` (beta 1/4, gamma 1/2)\n");
		return EXIT_USAGE;
	}
	if (!info || strcmp(info->family, "dae3") != 0) {
		fprintf(stderr, "mbsim: error: spectral analysis needs a dissipative index-3 scheme "
			"(lms, ss, bathe, msstc, mssth, esdirk; doi:10.1007/s11044-021-09806-9), hht, genalpha or the "
			"Newmark family (see `mbsim list integrators`), not '%s'\n", so.method);
		return EXIT_USAGE;
	}
	const double w = 2.0 * M_PI;	/* T = 1 s */
	struct model *m = oscillator(w * w);
	struct sim_options o;
	sim_options_default(&o);
	snprintf(o.method, sizeof o.method, "%s", so.method);
	o.rho_inf = so.rho;
	o.alpha = so.alpha;
	o.tolerance = 1e-14;
	o.max_iterations = 20;
	struct diag d;
	diag_init(&d);
	struct ra *sys = ra_new(m);
	struct integ *it = integ_new(info, sys, &o, &d);
	if (!it) {
		cli_print_diag(&d);
		diag_release(&d);
		ra_free(&sys);
		model_free(&m);
		return EXIT_SIM;
	}
	diag_release(&d);
	struct ra_state x0, y;
	ra_state_init(sys, &x0);
	ra_state_init(sys, &y);
	ra_state_from_model(sys, &x0, 0.0);
	int ns = dae3_stages(it), np = so.points;
	struct amat M;
	amat_init(&M, it);
	double *ratio = xcalloc((size_t)np, sizeof(double));
	double *sr = xcalloc((size_t)np, sizeof(double)), *ad = xcalloc((size_t)np, sizeof(double));
	double *pe = xcalloc((size_t)np, sizeof(double));
	char err[256];
	/* LMS_k: the characteristic polynomial of the engine's own coefficients */
	struct coef cf;
	int lms = !strncmp(so.method, "lms", 3) &&
		  coef_make(so.method, so.rho, so.alpha, &cf) == 0 && cf.kind == COEF_LMS;
	int poly = lms && !so.measured;
	/* worst: the polynomial's error estimate; dev: how far the measured
	 * radius of LMS_k (--measured) is from the polynomial's */
	double worst = 0, worst_at = 0, dev = 0, dev_at = 0;
	double complex prev = 0, qprev = 0;	/* principal roots, followed */
	for (int k = 0; k < np; k++) {
		double f = np > 1 ? (double)k / (np - 1) : 0.0;
		ratio[k] = so.lo * pow(so.hi / so.lo, f);
		struct point p = { 0, 0, 0, prev };
		double bound = 0;
		if (poly ? analyse_lms(&cf, ratio[k] * ns, w, &p, &bound, err, sizeof err) :
		    analyse(it, &M, &x0, &y, ratio[k] * ns, w, &p, err, sizeof err)) {
			fprintf(stderr, "mbsim: error: %s\n", err);
			rc = EXIT_SIM;
			np = k;
			break;
		}
		prev = p.root;
		if (bound > worst)
			worst = bound, worst_at = ratio[k];
		struct point q = { 0, 0, 0, qprev };
		double qb;
		if (lms && !poly &&
		    analyse_lms(&cf, ratio[k] * ns, w, &q, &qb, err, sizeof err) == 0 &&
		    fabs(q.rho - p.rho) > dev)
			dev = fabs(q.rho - p.rho), dev_at = ratio[k];
		qprev = q.root;
		sr[k] = p.rho;
		ad[k] = p.ad;
		pe[k] = p.pe;
	}
	/* SS_k measured: a k-fold root at infinity, the radius off by 2.5e-7
	 * (ss3) and 7.2e-7 (ss4) at ratio 1e6, 2.9e-5 and 6.9e-5 at 1e7
	 * (rho_inf 0.6, against the lms polynomial, which has the same
	 * roots: reference §E) */
	double aux = ss_aux_radius(&so);
	if (aux > so.rho)
		fprintf(stderr, "mbsim: note: the spectral radius of %s at rho_inf = %g tends to "
			"%.6g, not to rho_inf, as the ratio grows: %.6g is the factor by which "
			"a perturbation of its auxiliary variables alone changes in a step "
			"(|1 - gamma|/gamma of the SS_r update, Multibody System Dynamics, "
			"doi:10.1007/s11044-021-09806-9), an eigenvalue of the one-step map "
			"that lms%c has not.  A run never excites that mode (mbsim starts the "
			"auxiliary variables consistent with the states; with the same start-up "
			"%s gives the solution of lms%c to round-off); `--method lms%c` gives the "
			"radius of that solution\n", so.method, so.rho, aux, aux, so.method[2],
			so.method, so.method[2], so.method[2]);
	if (np > 0 && ratio[np - 1] > 1e6 && !strncmp(so.method, "ss", 2) && aux <= so.rho)
		fprintf(stderr, "mbsim: note: the measured spectral radius of %s is accurate to "
			"about 1e-6 only up to ratio 1e6 (round-off near its multiple root at "
			"infinity); `--method lms%c` has the same radius from its "
			"characteristic polynomial\n", so.method, so.method[2]);
	/* LMS_k measured: worse, and earlier as rho_inf nears 1 (lms4 at
	 * rho_inf 0.6 off by 3.2e-5 at ratio 1e6, at 0.99 by 1.8e-6 at 1e3
	 * against tools/lms_radius_ref.py): the difference itself */
	if (dev > 1e-6)
		fprintf(stderr, "mbsim: note: the measured spectral radius of %s differs by up "
			"to %.1e (at ratio %g) from the roots of its characteristic polynomial "
			"(round-off near its multiple root); without --measured the radius is "
			"that of the polynomial\n", so.method, dev, dev_at);
	if (worst > 1e-6)
		fprintf(stderr, "mbsim: note: the spectral radius is accurate only to %.1e at "
			"ratio %g (the coefficients' rounding to double, amplified where "
			"the %d roots cluster at -rho_inf = %g)\n", worst, worst_at, cf.k,
			so.rho);
	/* newmark has beta and gamma (the defaults of the deck: trapezoidal),
	 * no rho_inf */
	int nm = info->id == INTEG_NEWMARK;
	char par[96];
	if (nm)
		snprintf(par, sizeof par, "beta = %g, gamma = %g", o.nm_beta, o.nm_gamma);
	else
		snprintf(par, sizeof par, "rho_inf = %g", so.rho);
	if (so.json) {
		printf("{\"method\": \"%s\", \"rho_inf\": ", so.method);
		cli_json_num(nm ? NAN : so.rho);
		if (nm)
			printf(", \"beta\": %.17g, \"gamma\": %.17g", o.nm_beta, o.nm_gamma);
		printf(", \"stages\": %d, \"ratio\": ", ns);
		cli_json_array(ratio, np);
		printf(", \"spectral_radius\": ");
		cli_json_array(sr, np);
		printf(", \"amplitude_decay\": ");
		cli_json_array(ad, np);
		printf(", \"period_elongation\": ");
		cli_json_array(pe, np);
		printf("}\n");
	} else {
		if (so.csv)
			printf("ratio,spectral_radius,amplitude_decay,period_elongation\n");
		else
			printf("# %s, %s, %d implicit stage(s) per step; ratio = dt/(nT)\n"
			       "%-12s %-18s %-14s %-14s\n", so.method, par, ns, "ratio",
			       "spectral_radius", "AD_%", "PE_%");
		/* AD and PE are not defined when the principal root is real
		 * and positive: "n/a" (CSV: an empty field), never "-nan" */
		for (int k = 0; k < np; k++) {
			char a_[32] = "", p_[32] = "";
			const char *na = so.csv ? "" : "n/a";
			snprintf(a_, sizeof a_, so.csv ? "%.10g" : "%.6g", ad[k]);
			snprintf(p_, sizeof p_, so.csv ? "%.10g" : "%.6g", pe[k]);
			if (so.csv)
				printf("%.10g,%.17g,%s,%s\n", ratio[k], sr[k],
				       isfinite(ad[k]) ? a_ : na, isfinite(pe[k]) ? p_ : na);
			else
				printf("%-12.6g %-18.15f %-14s %-14s\n", ratio[k], sr[k],
				       isfinite(ad[k]) ? a_ : na, isfinite(pe[k]) ? p_ : na);
		}
	}
	amat_release(&M);
	free(ratio);
	free(sr);
	free(ad);
	free(pe);
	ra_state_release(&x0);
	ra_state_release(&y);
	integ_free(&it);
	ra_free(&sys);
	model_free(&m);
	return rc;
}
