/* test_contact.c - collision detection (src/contact/) against closed-form
 * distances of simple configurations, the broad phase against testing
 * every pair, and the deck's refusals of bad contact input. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "testutil.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "contact/contact.h"
#include "deck/deck.h"
#include "model/model.h"
#include "model/options.h"

#define HEAD "time: {end: 1}\n"
#define INERTIA "inertia: [1, 1, 1]"
/* a body item of unit mass with shape S and a material of stiffness 1 */
#define BODY(name, S) "- {name: " name ", mass: 1, " INERTIA ", shape: {" S "}, " \
	"contact: {stiffness: 1}}\n"

static struct model *model_of(const char *text)
{
	struct diag d;
	struct sim_options o;
	struct model *m = NULL;
	diag_init(&d);
	struct deck *dk = testutil_load_text(text, &d);
	assert_non_null(dk);
	testutil_build(dk, &m, &o);
	deck_free(&dk);
	diag_release(&d);
	return m;
}

/* Poses: body i at r[3i], identity rotations. */
static void identity_poses(int nb, double *A)
{
	for (int b = 0; b < nb; b++)
		for (int k = 0; k < 9; k++)
			A[9 * b + k] = k % 4 == 0;
}

/* The collision world of the model of text; A set to identity poses of
 * its nb bodies. */
static struct contact_world *world_of(const char *text, struct model **m, int nb, double *A)
{
	*m = model_of(text);
	identity_poses(nb, A);
	return contact_world_new(*m);
}

/* contact_detect, which must succeed: the number of contacts found */
static size_t detect(struct contact_world *W, const double *r, const double *A, double margin,
		     const struct contact_pt **c)
{
	size_t n;
	assert_int_equal(contact_detect(W, r, A, margin, c, &n), 0);
	return n;
}

static void test_sphere_plane(void **state)
{
	struct model *m;
	double r[3] = { 0.3, -0.2, 0.4 }, A[9];
	struct contact_world *W = world_of(HEAD "contact_planes: [{normal: [0, 0, 2]}]\n"
					   "bodies:\n- {name: s, mass: 1, " INERTIA ", shape: {type: sphere, "
					   "radius: 0.5}, contact: {stiffness: 1e5}}\n", &m, 1, A);
	const struct contact_pt *c;
	assert_int_equal(detect(W, r, A, 0, &c), 1);
	assert_int_equal(c->a, -1);
	assert_int_equal(c->b, 0);
	/* centre 0.4 above the plane, radius 0.5: 0.1 deep; the point midway
	 * between the plane (z = 0) and the sphere's lowest point (z = -0.1) */
	assert_near(c->gap, -0.1, 0, 1e-15);
	assert_near(c->n[2], 1, 0, 1e-15);
	assert_near(c->p[0], 0.3, 0, 1e-15);
	assert_near(c->p[2], -0.05, 0, 1e-15);
	assert_near(c->rb[2], -0.45, 0, 1e-15);
	assert_near(c->R, 0.5, 0, 0);
	/* 0.05 above: found with a margin of 0.1, not with 0.01 */
	r[2] = 0.55;
	assert_int_equal(detect(W, r, A, 0.1, &c), 1);
	assert_near(c->gap, 0.05, 0, 1e-15);
	assert_int_equal(detect(W, r, A, 0.01, &c), 0);
	contact_world_free(&W);
	model_free(&m);
}

static void test_box_plane(void **state)
{
	struct model *m;
	double r[3] = { 0, 0, 0.19 }, A[9];
	struct contact_world *W = world_of(HEAD "contact_planes: [{normal: [0, 0, 1]}]\n"
					   "bodies:\n- {name: b, mass: 1, " INERTIA ", shape: {type: box, "
					   "size: [1, 2, 0.4]}, contact: {stiffness: 1e5}}\n", &m, 1, A);
	const struct contact_pt *c;
	/* flat on the plane, 0.01 deep: the four lower corners */
	size_t n = detect(W, r, A, 0, &c);
	assert_int_equal(n, 4);
	for (size_t i = 0; i < n; i++) {
		assert_near(c[i].gap, -0.01, 0, 1e-15);
		assert_near(fabs(c[i].p[0]), 0.5, 0, 1e-15);
		assert_near(fabs(c[i].p[1]), 1, 0, 1e-15);
	}
	/* turned 30 degrees about y: one edge (two corners) down, at
	 * z = 0.19 - (0.5 sin 30 + 0.2 cos 30) */
	double th = M_PI / 6;
	A[0] = cos(th), A[2] = sin(th), A[6] = -sin(th), A[8] = cos(th);
	assert_int_equal(detect(W, r, A, 0, &c), 2);
	assert_near(c[0].gap, 0.19 - 0.5 * sin(th) - 0.2 * cos(th), 0, 1e-15);
	contact_world_free(&W);
	model_free(&m);
}

static void test_round_pairs(void **state)
{
	struct model *m;
	/* a, b 0.45 apart along (3, 4, 0)/5; c, d (crossed capsules) far away,
	 * d's axis along x, 0.15 from c's along z in y, crossing at z = 0.2 */
	double r[12] = { 0, 0, 0, 0.27, 0.36, 0, 10, 0, 0, 10.3, 0.15, 0.2 }, A[36];
	struct contact_world *W = world_of(HEAD "bodies:\n"
					   BODY("a", "type: sphere, radius: 0.3")
					   BODY("b", "type: sphere, radius: 0.2")
					   BODY("c", "type: capsule, radius: 0.1, length: 1")
					   BODY("d", "type: capsule, radius: 0.1, length: 1, "
						"orientation: {axis: [0, 1, 0], angle: 1.5707963267948966}"), &m, 4, A);
	const struct contact_pt *c;
	assert_int_equal(detect(W, r, A, 0, &c), 2);
	assert_int_equal(c[0].a, 0);
	assert_int_equal(c[0].b, 1);
	assert_near(c[0].gap, 0.45 - 0.5, 0, 1e-15);
	assert_near(c[0].n[0], 0.6, 0, 1e-15);
	assert_near(c[0].n[1], 0.8, 0, 1e-15);
	/* R* = 0.3 0.2 / 0.5 */
	assert_near(c[0].R, 0.12, 1e-15, 0);
	/* midway between the surfaces: 0.3 - 0.025 from a's centre */
	assert_near(c[0].p[0], 0.6 * 0.275, 0, 1e-15);
	assert_int_equal(c[1].a, 2);
	assert_int_equal(c[1].b, 3);
	assert_near(c[1].gap, 0.15 - 0.2, 0, 1e-15);
	assert_near(c[1].n[1], 1, 0, 1e-15);
	assert_near(c[1].p[0], 10, 0, 1e-15);
	assert_near(c[1].p[1], 0.075, 0, 1e-15);
	assert_near(c[1].p[2], 0.2, 0, 1e-15);
	contact_world_free(&W);
	model_free(&m);
}

/* sphere-box by the closed form, box-box by libccd's MPR */
static void test_box_pairs(void **state)
{
	struct model *m;
	/* b 1.2 from a along x: gap 0.2; d 0.95 above c: 0.05 deep */
	double r[12] = { 0, 0, 0, 1.2, 0, 0, 20, 0, 0, 20.1, 0.2, 0.95 }, A[36];
	struct contact_world *W = world_of(HEAD "bodies:\n"
					   BODY("a", "type: box, size: [1, 1, 1]")
					   BODY("b", "type: sphere, radius: 0.5")
					   BODY("c", "type: box, size: [1, 1, 1]")
					   BODY("d", "type: box, size: [1, 1, 1]"), &m, 4, A);
	const struct contact_pt *c;
	assert_int_equal(detect(W, r, A, 0.3, &c), 2);
	assert_near(c[0].gap, 0.2, 0, 1e-15);
	assert_near(c[0].n[0], 1, 0, 1e-15);
	assert_near(c[0].p[0], 0.6, 0, 1e-15);
	assert_int_equal(c[1].a, 2);
	/* MPR on the boxes grown by margin / 2: its tolerance 1e-9 of the
	 * size, checked at 1e-6 */
	assert_near(c[1].gap, -0.05, 0, 1e-6);
	assert_near(c[1].n[2], 1, 0, 1e-6);
	assert_near(c[1].p[2], 0.475, 0, 1e-3);
	/* sphere centre inside the box: the nearest face (x = 0.5) */
	r[3] = 0.4;
	assert_int_equal(detect(W, r, A, 0, &c), 2);
	assert_near(c[0].gap, -0.1 - 0.5, 0, 1e-15);
	assert_near(c[0].n[0], 1, 0, 1e-15);
	contact_world_free(&W);
	model_free(&m);
}

/* a box's face on a cylinder's rim (a line contact): the face's normal and
 * the distance along it, not MPR's direction tilted along the line */
static void test_face_on_rim(void **state)
{
	struct model *m;
	/* the rim's top line at z = 0.05; the box's lower face 1e-4 below */
	double r[6] = { 0, 0, 0, 0.005, 0.003, 0.06 - 1e-4 }, A[18];
	struct contact_world *W = world_of(HEAD "bodies:\n"
					   BODY("a", "type: cylinder, radius: 0.05, length: 0.02, "
						"orientation: {axis: [1, 0, 0], angle: 1.5707963267948966}")
					   BODY("b", "type: box, size: [0.04, 0.04, 0.02]"), &m, 2, A);
	const struct contact_pt *c;
	for (int k = 0; k < 20; k++) {
		double ph = 0.05 * k, s2 = sin(ph), c2 = cos(ph);
		/* the cylinder turned about its axis (global y): nothing changes */
		A[0] = c2, A[2] = s2, A[6] = -s2, A[8] = c2;
		assert_int_equal(detect(W, r, A, 0, &c), 1);
		assert_near(c->gap, -1e-4, 0, 1e-12);
		assert_near(c->n[2], 1, 0, 1e-15);
		assert_near(c->p[0], 0, 0, 1e-12);
	}
	contact_world_free(&W);
	model_free(&m);
}

/* The grid finds every pair that testing all pairs finds: 400 spheres of
 * radii 0.15 to 0.25 and a few of radius 1.5 in a 1.5 m cube. */
static void test_broad_phase(void **state)
{
	enum { N = 400 };
	size_t len = 200 * N + 256, o = 0;
	char *text = malloc(len);
	double rad[N];
	o += (size_t)snprintf(text + o, len - o, HEAD "bodies:\n");
	testutil_seed(7);
	for (int i = 0; i < N; i++) {
		rad[i] = 0.15 + 0.1 * testutil_urand();
		if (i % 97 == 5)
			rad[i] = 1.5;	/* larger than 27 cells: tested against all */
		o += (size_t)snprintf(text + o, len - o, "- {name: s%d, mass: 1, " INERTIA
				      ", shape: {type: sphere, radius: %.17g}, contact: "
				      "{stiffness: 1}}\n", i, rad[i]);
	}
	struct model *m;
	double r[3 * N], A[9 * N];
	struct contact_world *W = world_of(text, &m, N, A);
	free(text);
	for (int i = 0; i < 3 * N; i++)
		r[i] = 1.5 * testutil_urand();
	const struct contact_pt *c;
	size_t want = 0;
	double margin = 0.01;
	for (int i = 0; i < N; i++)
		for (int j = i + 1; j < N; j++) {
			double d = sqrt(pow(r[3 * i] - r[3 * j], 2) + pow(r[3 * i + 1] - r[3 * j + 1], 2) +
					pow(r[3 * i + 2] - r[3 * j + 2], 2));
			want += d - rad[i] - rad[j] < margin;
		}
	size_t n = detect(W, r, A, margin, &c);
	assert_true(want > 100);
	assert_int_equal(n, want);
	for (size_t k = 1; k < n; k++)	/* sorted, each pair once */
		assert_true(c[k].a < c[k - 1].a ? 0 : c[k].a > c[k - 1].a || c[k].b > c[k - 1].b);
	r[0] = NAN;
	assert_int_equal(contact_detect(W, r, A, margin, &c, &n), -1);
	contact_world_free(&W);
	model_free(&m);
}

/* Deck text whose building fails with an error containing want. */
static void refused(const char *text, const char *want)
{
	struct diag d;
	struct sim_options o;
	struct model *m = NULL;
	diag_init(&d);
	struct deck *dk = testutil_load_text(text, &d);
	assert_non_null(dk);
	assert_int_equal(deck_build(dk, &m, &o, &d), -1);
	int found = 0;
	for (int i = 0; i < d.n; i++) {
		char *s = diag_format(&d, i);
		if (strstr(s, want) && strstr(s, ":"))
			found = 1;
		else
			fprintf(stderr, "(other) %s\n", s);
		free(s);
	}
	if (!found)
		fail_msg("no error containing '%s'", want);
	deck_free(&dk);
	diag_release(&d);
}

static void test_refusals(void **state)
{
	refused(HEAD "bodies:\n- {name: s, mass: 1, " INERTIA ", contact: {stiffness: 1}}\n",
		"needs a shape");
	refused(HEAD "bodies:\n- {name: s, mass: 1, " INERTIA ", shape: {type: sphere, radius: 1}, "
		"contact: {stiffness: 1, restitution: 1.5}}\n", "restitution of the contact material");
	refused(HEAD "bodies:\n- {name: s, mass: 1, " INERTIA ", shape: {type: sphere, radius: 1}, "
		"contact: {stiffness: 1, mu_s: -0.1}}\n", "mu_s of the contact material");
	refused(HEAD "bodies:\n- {name: s, mass: 1, " INERTIA ", shape: {type: sphere, radius: 1}, "
		"contact: {mu_s: 0.1}}\n", "needs stiffness or youngs_modulus");
	refused(HEAD "bodies:\n- {name: s, mass: 1, " INERTIA ", shape: {type: box, size: [1, 1, 1]}, "
		"contact: {youngs_modulus: 1e9}}\n", "Hertz contact needs a curved side");
	refused(HEAD "contact_planes: [{normal: [0, 0, 0]}]\n", "nonzero finite vector");
	refused(HEAD "contact: {model: smoth}\n", "unknown contact model 'smoth'");
	/* an open mesh: a tetrahedron without its fourth face */
	char path[] = "/tmp/test_contact_XXXXXX.obj";
	int fd = mkstemps(path, 4);
	assert_true(fd >= 0);
	FILE *f = fdopen(fd, "w");
	fputs("v 0 0 0\nv 1 0 0\nv 0 1 0\nv 0 0 1\nf 1 3 2\nf 1 2 4\nf 1 4 3\n", f);
	fclose(f);
	char text[512];
	snprintf(text, sizeof text, HEAD "bodies:\n- {name: s, mass: 1, " INERTIA ", shape: {type: "
		 "mesh, file: '%s'}, contact: {stiffness: 1}}\n", path);
	refused(text, "needs a closed mesh");
	remove(path);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_sphere_plane),
		cmocka_unit_test(test_box_plane),
		cmocka_unit_test(test_round_pairs),
		cmocka_unit_test(test_box_pairs),
		cmocka_unit_test(test_face_on_rim),
		cmocka_unit_test(test_broad_phase),
		cmocka_unit_test(test_refusals),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
