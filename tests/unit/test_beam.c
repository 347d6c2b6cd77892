/* test_beam.c - the beam element of model/beam.c: its exact position
 * derivatives (beam_element_dr) against central differences of its forces,
 * with a coupled section law, the diagonal law's short path against
 * the general product (same bits), and the forces of given resultants
 * (beam_element_frozen) against the element's own.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "testutil.h"
#include "deck/deck.h"
#include "model/beam.h"
#include "model/options.h"
#include "util/vec.h"

/* one beam of 2 elements along x, of a section about that of
 * decks/lateral_buckling.yaml (the stiffnesses 1e2 .. 7e7) */
static const char *beam_deck =
	"title: beam unit test\n"
	"time: {end: 1}\n"
	"integrator: {method: lms2, step: 1e-3}\n"
	"beams:\n"
	"  - name: b\n"
	"    from: [0, 0, 0]\n"
	"    to: [1, 0, 0]\n"
	"    elements: 2\n"
	"    section: {EA: 73e6, GA2: 5.0e6, GA3: 23.4e6, GJ: 877, EI2: 60830, EI3: 608,\n"
	"              m: 2.68, m22: 2.2e-3, m33: 2.2e-5}\n";

struct fix {
	struct deck *dk;
	struct model *m;
	struct sim_options o;
};

static void load(struct fix *f)
{
	struct diag d;
	diag_init(&d);
	f->dk = testutil_load_text(beam_deck, &d);
	diag_release(&d);
	assert_non_null(f->dk);
	testutil_build(f->dk, &f->m, &f->o);
	assert_int_equal(f->m->nbeams, 1);
}

static void unload(struct fix *f)
{
	model_free(&f->m);
	deck_free(&f->dk);
}

/* Element 1's nodes moved off the reference by random rotations of up to
 * 0.3 rad and displacements of up to 5 mm: large strains of every kind. */
static void bent(const struct model *m, const struct beam *bm, double r[3][3], double A[3][9])
{
	for (int i = 0; i < 3; i++) {
		const struct body *b = m->bodies + bm->node0 + 2 + i;
		double th[3], Q[9];
		for (int c = 0; c < 3; c++) {
			r[i][c] = b->r0[c] + 5e-3 * testutil_urand();
			th[c] = 0.3 * testutil_urand();
		}
		so3_exp(Q, th);
		m3_mul(A[i], b->A0, Q);
	}
}

static void forces(const struct beam *bm, double r[3][3], double A[3][9], double *F)
{
	const double *rp[3] = { r[0], r[1], r[2] }, *Ap[3] = { A[0], A[1], A[2] };
	const double z[3] = { 0, 0, 0 }, *zp[3] = { z, z, z };
	beam_element(bm, 1, rp, Ap, zp, zp, F, NULL);
}

/* dF/dr by beam_element_dr against central differences (step 1e-5 m:
 * truncation ~ h^2 F''' / 6, the strains being linear in r up to the
 * moment arms, round-off ~ 1e-16 |F| / h ~ 1e-11 relative); agreement to
 * 2e-10 of each column's largest entry, ten times the largest difference
 * measured over the 5 states (1.9e-11; 1.9e-9 at h = 1e-7, 1.5e-12 at
 * h = 1e-4: round-off, falling as 1 / h).  With a coupled section law (all
 * off-diagonal entries 1 % of the geometric mean of their diagonals) so
 * that every product of C is exercised. */
static void test_dr(void **state)
{
	struct fix f;
	load(&f);
	struct beam *bm = &f.m->beams[0];
	for (int i = 0; i < 6; i++)
		for (int k = 0; k < 6; k++)
			if (i != k)
				bm->C[6 * i + k] = 0.01 * sqrt(bm->C[7 * i] * bm->C[7 * k]);
	bm->diag = 0;
	testutil_seed(2027);
	for (int rep = 0; rep < 5; rep++) {
		double r[3][3], A[3][9], F[18], dr[9][18];
		struct beam_pt pt[2];
		bent(f.m, bm, r, A);
		const double *rp[3] = { r[0], r[1], r[2] }, *Ap[3] = { A[0], A[1], A[2] };
		const double z[3] = { 0, 0, 0 }, *zp[3] = { z, z, z };
		beam_element(bm, 1, rp, Ap, zp, zp, F, pt);
		beam_element_dr(bm, 1, rp, Ap, pt, dr);
		for (int b = 0; b < 3; b++)
			for (int k = 0; k < 3; k++) {
				double Fp[18], Fm[18], h = 1e-5, s = r[b][k], mx = 0.0;
				r[b][k] = s + h;
				forces(bm, r, A, Fp);
				r[b][k] = s - h;
				forces(bm, r, A, Fm);
				r[b][k] = s;
				for (int i = 0; i < 18; i++)
					mx = fmax(mx, fabs(Fp[i] - Fm[i]) / (2.0 * h));
				assert_true(mx > 0.0);
				for (int i = 0; i < 18; i++)
					assert_near(dr[3 * b + k][i], (Fp[i] - Fm[i]) / (2.0 * h), 0,
						    2e-10 * mx);
			}
	}
	unload(&f);
}

/* dF/dtheta by beam_element_dth against central differences in each
 * node's body-frame rotation (A_b exp(h e_k~), h = 1e-5 rad: truncation ~
 * h^2 times the third derivative / 6, round-off ~ 1e-16 |F| / h), with the
 * diagonal and a coupled section law (as test_dr) on the bent states of
 * test_dr; asked: 1e-8 of each column's largest entry (measured: below
 * WORST, set from DTH_WORST=1 build/tests/test_beam). */
static void check_dth(struct fix *f, struct beam *bm)
{
	for (int rep = 0; rep < 5; rep++) {
		double r[3][3], A[3][9], F[18], dth[9][18];
		struct beam_pt pt[2];
		struct beam_rot g;
		bent(f->m, bm, r, A);
		const double *rp[3] = { r[0], r[1], r[2] }, *Ap[3] = { A[0], A[1], A[2] };
		const double z[3] = { 0, 0, 0 }, *zp[3] = { z, z, z };
		beam_rot_of(Ap, &g);
		beam_element_rot(bm, 1, rp, Ap, zp, zp, &g, F, pt);
		beam_element_dth(bm, 1, rp, Ap, &g, pt, F, dth);
		for (int b = 0; b < 3; b++)
			for (int k = 0; k < 3; k++) {
				double Fp[18], Fm[18], h = 1e-5, A0[9], mx = 0.0, worst = 0.0;
				memcpy(A0, A[b], sizeof A0);
				for (int sg = 0; sg < 2; sg++) {
					double th[3] = { 0, 0, 0 }, Q[9];
					th[k] = sg ? -h : h;
					so3_exp(Q, th);
					m3_mul(A[b], A0, Q);
					forces(bm, r, A, sg ? Fm : Fp);
				}
				memcpy(A[b], A0, sizeof A0);
				for (int i = 0; i < 18; i++)
					mx = fmax(mx, fabs(Fp[i] - Fm[i]) / (2.0 * h));
				assert_true(mx > 0.0);
				for (int i = 0; i < 18; i++)
					worst = fmax(worst, fabs(dth[3 * b + k][i] -
								 (Fp[i] - Fm[i]) / (2.0 * h)) / mx);
				if (getenv("DTH_WORST"))
					fprintf(stderr, "dth node %d k %d worst %.3g\n", b, k, worst);
				assert_true(worst <= 1e-8);
			}
	}
}

static void test_dth(void **state)
{
	struct fix f;
	load(&f);
	struct beam *bm = &f.m->beams[0];
	testutil_seed(2028);
	check_dth(&f, bm);
	for (int i = 0; i < 6; i++)
		for (int k = 0; k < 6; k++)
			if (i != k)
				bm->C[6 * i + k] = 0.01 * sqrt(bm->C[7 * i] * bm->C[7 * k]);
	bm->diag = 0;
	check_dth(&f, bm);
	unload(&f);
}

/* The diagonal law's short path (bm->diag, set by beam_reference for the
 * deck's section) against the general 6 x 6 product: the products it
 * leaves out are exact zeros, so F and the energy agree bit for bit. */
static void test_diag_path(void **state)
{
	struct fix f;
	load(&f);
	struct beam *bm = &f.m->beams[0];
	assert_int_equal(bm->diag, 1);
	testutil_seed(99);
	double r[3][3], A[3][9], F1[18], F2[18];
	bent(f.m, bm, r, A);
	const double *rp[3] = { r[0], r[1], r[2] }, *Ap[3] = { A[0], A[1], A[2] };
	const double z[3] = { 0, 0, 0 }, *zp[3] = { z, z, z };
	double U1 = beam_element(bm, 1, rp, Ap, zp, zp, F1, NULL);
	bm->diag = 0;
	double U2 = beam_element(bm, 1, rp, Ap, zp, zp, F2, NULL);
	assert_true(U1 > 0.0);
	assert_memory_equal(&U1, &U2, sizeof U1);
	assert_memory_equal(F1, F2, sizeof F1);
	unload(&f);
}

/* beam_element_frozen with the resultants that beam_element made at a
 * state gives beam_element's forces there bit for bit (the same balance of
 * the node volumes); with other resultants, other forces (it does not
 * ignore them).  Linear buckling (sim/buckling.c) differentiates it. */
static void test_frozen(void **state)
{
	struct fix f;
	load(&f);
	struct beam *bm = &f.m->beams[0];
	testutil_seed(7);
	double r[3][3], A[3][9], F1[18], F2[18], res[2][6];
	struct beam_pt pt[2];
	bent(f.m, bm, r, A);
	const double *rp[3] = { r[0], r[1], r[2] }, *Ap[3] = { A[0], A[1], A[2] };
	const double z[3] = { 0, 0, 0 }, *zp[3] = { z, z, z };
	beam_element(bm, 1, rp, Ap, zp, zp, F1, pt);
	for (int p = 0; p < 2; p++)
		memcpy(res[p], pt[p].res, sizeof res[p]);
	beam_element_frozen(bm, 1, rp, Ap, (const double(*)[6])res, F2);
	assert_memory_equal(F1, F2, sizeof F1);
	res[1][4] *= 2;		/* a bending moment doubled: the forces move */
	beam_element_frozen(bm, 1, rp, Ap, (const double(*)[6])res, F2);
	assert_true(memcmp(F1, F2, sizeof F1) != 0);
	unload(&f);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_dr),
		cmocka_unit_test(test_dth),
		cmocka_unit_test(test_diag_path),
		cmocka_unit_test(test_frozen),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
