/* coef.h - coefficients of the seed-004 schemes (004 §2, eqs. 2-7) and of
 * their predictors (004 §3.1, eqs. 12-17).
 *
 * Every formula and its checks: shared/reference/integrator-coefficients.md.
 * rho is rho_inf in [0, 1]; where a method defines gamma by an equation the
 * root is solved here for any rho (never interpolated from a table).
 */
#ifndef MBSIM_COEF_H
#define MBSIM_COEF_H

/* (no <complex.h> here: its macro I would leak into includers) */

#define COEF_MAXS 7		/* stages including the explicit stage 0 */

enum coef_kind { COEF_LMS, COEF_SS, COEF_DIRK, COEF_NEWMARK };

struct coef {
	enum coef_kind kind;
	int order;		/* design order of positions */
	double rho;		/* rho_inf it was made for */
	/* LMS, constant step: y_n = sum_{j=1..k} a[j] y_{n-j} + h sum_{j=0..k} b[j] y'_{n-j}
	 * (a[0] unused) */
	int k;
	double a[5], b[5];
	/* SS_r: g[0..2r-2] = gamma_0 .. gamma_{2r-2} (reference §C) */
	int r;
	double _Complex g[7];
	/* DIRK / composite (Bathe, MSSTC, MSSTH, ESDIRK): s stages including
	 * the explicit stage 0 at t_{n-1}; A[i][j] (j <= i) multiplies h y'_j in
	 * stage i; c[i] the stage abscissae (c[0] = 0, c[s-1] = 1); stiffly
	 * accurate (b = last row); A[i][i] = gamma for i >= 1.  bhat: the
	 * embedded weights when has_bhat.  pred4_last: the last stage uses the
	 * fourth-order predictor (004 eq. 16). */
	int s;
	double A[COEF_MAXS][COEF_MAXS], c[COEF_MAXS], bhat[COEF_MAXS];
	int has_bhat, pred4_last;
	double gamma;
	/* Newmark family: generalized-alpha (alpha_m, alpha_f) and HHT
	 * (alpha_hht, with alpha_m = alpha_f = 0): beta, gam of the update. */
	double beta, gam, alpha_m, alpha_f, alpha_hht;
};

/* Fill c for the scheme of registry name `name` ("lms2", "ss3", "bathe",
 * "msstc4", "mssth5", "esdirk436l2sa2", "hht", "genalpha", ...) and rho.
 * alpha: the HHT alpha (NAN: (rho-1)/(rho+1), clipped to >= -1/3).
 * Returns 0, or -1 for an unknown name or a root that did not converge
 * (also: rho outside [0, 1], an HHT alpha outside [-1/3, 0], or an MSSTH
 * tableau next to one of its poles in rho, entries > 1e4; see coef.c). */
int coef_make(const char *name, double rho, double alpha, struct coef *c);

/* LMS2 variable step (reference §A): ratio = h_n / h_{n-1}, H = h_{n-1}.
 * a[1], a[2] and hb[0..2] = h * b_j (already multiplied by the step). */
void coef_lms2_var(double rho, double ratio, double H, double a[3], double hb[3]);

/* Derivative predictors y'_N ~ sum m_j y_{N-1-j} + sum n_j y'_{N-1-j}
 * (004 eqs. 12, 14, 16, 17; reference §B).  hn = t_N - t_{N-1};
 * second order: r1 = hn / (t_{N-1} - t_{N-2});
 * fourth order: r1 as above, r2 = hn / (t_{N-2} - t_{N-3}).
 * m[] already divided by hn. */
void coef_pred2(double hn, double r1, double m[2], double n[2]);
void coef_pred4(double hn, double r1, double r2, double m[3], double n[3]);

#endif
