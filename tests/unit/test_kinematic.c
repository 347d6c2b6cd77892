/* test_kinematic.c - kinematic analysis of fully driven mechanisms
 * (sim/kinematic.c) and the HDF5 reader it is checked through (io/h5read.c).
 *
 * The mechanism: a crank on a revolute joint to ground at the origin, axis
 * global x, centroid at distance R from the axis, driven at constant rate
 * omega.  Exact motion (a rotation about +x by theta = omega t from the
 * initial pose r0 = (0, R, 0), A0 = I):
 *   r = R (0, cos th, sin th),  v = R omega (0, -sin th, cos th),
 *   a = -R omega^2 (0, cos th, sin th),  A = Rx(th),
 *   w = (omega, 0, 0) and wd = 0 in the body frame.
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
#include <unistd.h>

#include "testutil.h"
#include "io/h5read.h"
#include "model/model.h"
#include "sim/kinematic.h"
#include "util/diag.h"
#include "util/vec.h"

#define R_CRANK 0.3	/* m */
#define OMEGA 2.5	/* rad/s: several turns over the test interval */

/* Newton stops at a few ulps of the coordinates (~1e-16 m here); velocity
 * and acceleration come from one linear solve each, so 1e-12 leaves three
 * orders of magnitude for the conditioning of the 6x6 Jacobian. */
#define TOL 1e-12

static struct model *crank(int driven)
{
	struct model *m = model_new();
	struct body *b = model_add_body(m, "crank");
	b->mass = 2.0;
	b->J[0] = 0.1;
	b->J[4] = 0.2;
	b->J[8] = 0.2;
	v3_set(b->r0, 0.0, R_CRANK, 0.0);
	m3_identity(b->A0);
	struct joint *j = model_add_joint(m, "pin", JOINT_REVOLUTE);
	j->body[0] = MODEL_GROUND;
	j->body[1] = 0;
	const double p[3] = { 0, 0, 0 }, ax[3] = { 1, 0, 0 };
	model_joint_global(m, j, p, ax, NULL);
	if (driven) {
		struct driver *d = model_add_driver(m, "motor");
		d->joint = 0;
		d->kind = DRIVER_ROTATION;
		d->f.type = FUNC_RATE;
		d->f.c[0] = 0.0;
		d->f.c[1] = OMEGA;
	}
	struct diag dg;
	diag_init(&dg);
	int rc = model_finalize(m, &dg);
	diag_release(&dg);
	assert_int_equal(rc, 0);
	return m;
}

static void check_sample(const struct kin_series *k, int i)
{
	double th = OMEGA * k->t[i], c = cos(th), s = sin(th);
	const double *r = k->r + 3 * i, *v = k->v + 3 * i, *a = k->a + 3 * i;
	const double *w = k->w + 3 * i, *wd = k->wd + 3 * i, *q = k->q + 4 * i;
	assert_near(r[0], 0.0, 0, TOL);
	assert_near(r[1], R_CRANK * c, 0, TOL);
	assert_near(r[2], R_CRANK * s, 0, TOL);
	assert_near(v[0], 0.0, 0, TOL);
	assert_near(v[1], -R_CRANK * OMEGA * s, 0, TOL);
	assert_near(v[2], R_CRANK * OMEGA * c, 0, TOL);
	assert_near(a[0], 0.0, 0, TOL);
	assert_near(a[1], -R_CRANK * OMEGA * OMEGA * c, 0, TOL);
	assert_near(a[2], -R_CRANK * OMEGA * OMEGA * s, 0, TOL);
	assert_near(w[0], OMEGA, 0, TOL);
	assert_near(w[1], 0.0, 0, TOL);
	assert_near(w[2], 0.0, 0, TOL);
	for (int l = 0; l < 3; l++)
		assert_near(wd[l], 0.0, 0, TOL);
	/* quaternion of Rx(th): +-(cos th/2, sin th/2, 0, 0) */
	double sg = q[0] * cos(th / 2) + q[1] * sin(th / 2) < 0 ? -1.0 : 1.0;
	assert_near(sg * q[0], cos(th / 2), 0, TOL);
	assert_near(sg * q[1], sin(th / 2), 0, TOL);
	assert_near(q[2], 0.0, 0, TOL);
	assert_near(q[3], 0.0, 0, TOL);
}

/* Samples every 0.01 s over four turns, internal steps of at most 0.01 s. */
static void test_driven_crank(void **state)
{
	(void)state;
	struct model *m = crank(1);
	assert_int_equal(kinematic_dof(m), 0);
	enum { NT = 1001 };
	double *t = malloc(NT * sizeof(double));
	for (int i = 0; i < NT; i++)
		t[i] = 0.01 * i;
	struct kin_series k;
	char msg[512] = "";
	int rc = kinematic_solve(m, 0.0, t, NT, 0.01, &k, msg, sizeof msg);
	if (rc)
		fail_msg("kinematic_solve: %s", msg);
	assert_int_equal(k.nt, NT);
	for (int i = 0; i < NT; i++)
		check_sample(&k, i);
	/* residuals |Phi|, |Phi_q v - nu|, |Phi_q a - gamma| at round-off:
	 * sums of terms up to R = 0.3 m, R omega = 0.75 m/s, R omega^2 =
	 * 1.9 m/s^2 (ulp <= 2.2e-16); 1e-14 is 45 ulps of the largest
	 * (measured 1.1e-16, 1.3e-15, 8.9e-16) */
	assert_near(k.max_res[0], 0.0, 0, 1e-14);
	assert_near(k.max_res[1], 0.0, 0, 1e-14);
	assert_near(k.max_res[2], 0.0, 0, 1e-14);
	kinematic_release(&k);
	free(t);
	model_free(&m);
}

/* Sparse requested times (1 s apart: 2.5 rad) are reached through the
 * internal steps without the driver's sin(angle - f) row jumping a branch. */
static void test_sparse_times(void **state)
{
	(void)state;
	struct model *m = crank(1);
	const double t[4] = { 0.0, 1.0, 2.0, 3.5 };
	struct kin_series k;
	char msg[512] = "";
	int rc = kinematic_solve(m, 0.0, t, 4, 0.05, &k, msg, sizeof msg);
	if (rc)
		fail_msg("kinematic_solve: %s", msg);
	for (int i = 0; i < 4; i++)
		check_sample(&k, i);
	kinematic_release(&k);
	model_free(&m);
}

/* Without the driver the crank has one degree of freedom: refused. */
static void test_refuses_dof(void **state)
{
	(void)state;
	struct model *m = crank(0);
	assert_int_equal(kinematic_dof(m), 1);
	const double t[1] = { 0.0 };
	struct kin_series k;
	char msg[512] = "";
	assert_int_equal(kinematic_solve(m, 0.0, t, 1, 0.01, &k, msg, sizeof msg), -1);
	assert_non_null(strstr(msg, "1 degree of freedom"));
	model_free(&m);
}

/* kinematic_write then h5read: the layout round-trips. */
static void test_write_read(void **state)
{
	(void)state;
	struct model *m = crank(1);
	const double t[3] = { 0.0, 0.5, 1.0 };
	struct kin_series k;
	char msg[512] = "", path[] = "/tmp/mbsim-test-kinematic-XXXXXX";
	assert_int_equal(kinematic_solve(m, 0.0, t, 3, 0.01, &k, msg, sizeof msg), 0);
	int fd = mkstemp(path);
	assert_true(fd >= 0);
	close(fd);
	assert_int_equal(kinematic_write(m, &k, path, msg, sizeof msg), 0);
	struct h5in *f = h5r_open(path, msg, sizeof msg);
	assert_non_null(f);
	struct h5r_data d;
	assert_int_equal(h5r_read(f, "/bodies/crank/velocity", &d, msg, sizeof msg), 0);
	assert_int_equal(d.rows, 3);
	assert_int_equal(d.cols, 3);
	for (int i = 0; i < 9; i++)
		assert_near(d.v[i], k.v[i], 0, 0);	/* stored bit for bit */
	h5r_data_release(&d);
	assert_int_equal(h5r_read(f, "/time", &d, msg, sizeof msg), 0);
	assert_int_equal(d.ndims, 1);
	assert_near(d.v[1], 0.5, 0, 0);
	h5r_data_release(&d);
	assert_int_equal(h5r_read(f, "/bodies/nothing/position", &d, msg, sizeof msg), -1);
	char **names;
	int n = h5r_list(f, "/bodies", &names);
	/* the crank's six series: position, velocity, acceleration,
	 * orientation, angular velocity and acceleration (mbsim-output(5)) */
	assert_int_equal(n, 6);
	assert_string_equal(names[0], "/bodies/crank/acceleration");
	h5r_list_free(&names, n);
	char status[64];
	assert_int_equal(h5r_attr_str(f, "/", "status", status, sizeof status), 0);
	assert_string_equal(status, "complete");
	h5r_close(&f);
	unlink(path);
	kinematic_release(&k);
	model_free(&m);
}

static void test_match_times(void **state)
{
	(void)state;
	/* a: every 0.1 (accumulated, so off by round-off); b: every 0.25 */
	double a[21], b[9];
	double acc = 0.0;
	for (int i = 0; i < 21; i++, acc += 0.1)
		a[i] = acc;
	for (int i = 0; i < 9; i++)
		b[i] = 0.25 * i;
	long ia[9], ib[9];
	long n = h5r_match_times(a, 21, b, 9, ia, ib);
	assert_int_equal(n, 5);	/* 0, 0.5, 1, 1.5, 2: a[5k] with b[2k] */
	for (int k = 0; k < 5; k++) {
		assert_int_equal(ia[k], 5 * k);
		assert_int_equal(ib[k], 2 * k);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_driven_crank),
		cmocka_unit_test(test_sparse_times),
		cmocka_unit_test(test_refuses_dof),
		cmocka_unit_test(test_write_read),
		cmocka_unit_test(test_match_times),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
