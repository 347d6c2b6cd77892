/* test_h5.c - the HDF5 writer (io/h5.c) and the reader's logical names
 * (io/h5read.c): chunk shapes from one body to 10^5, rows as written,
 * slices of a series with a names table and with an offsets table, the
 * list of series, and status at close; rows made in place (h5_row_next)
 * across the buffer's growth, tables of 1 to 3 dimensions (h5_matrix)
 * and numeric attributes (h5r_attr_num). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <hdf5.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "testutil.h"
#include "io/h5.h"
#include "io/h5read.h"

static void tmpname(char *path)
{
	int fd = mkstemp(path);
	assert_true(fd >= 0);
	close(fd);
}

/* bytes of one chunk of the dataset at path */
static double chunk_bytes(const char *file, const char *path, hsize_t *c)
{
	hid_t f = H5Fopen(file, H5F_ACC_RDONLY, H5P_DEFAULT);
	hid_t d = H5Dopen2(f, path, H5P_DEFAULT);
	hid_t pl = H5Dget_create_plist(d);
	int r = H5Pget_chunk(pl, 3, c);
	double b = 8;
	for (int i = 0; i < r; i++)
		b *= (double)c[i];
	H5Pclose(pl);
	H5Dclose(d);
	H5Fclose(f);
	return b;
}

/* 3-vector series /bN of N "bodies" for each N of nb[0..n) */
static void body_series(struct h5out *o, const long *nb, int n)
{
	for (int i = 0; i < n; i++) {
		char p[64];
		snprintf(p, sizeof p, "/b%ld", nb[i]);
		assert_true(h5_series(o, p, nb[i], 3, H5_DOUBLE, "m", NULL) >= 0);
	}
}

/* Chunks of 3-vector series of 1 to 10^5 bodies, rows unknown: between
 * 32 kB and 1 MB (the brief: ~64 kB - 1 MB; a row of 1000 bodies is 24 kB,
 * so two rows, 48 kB), split along the body axis past 1 MB per row. */
static void test_chunks(void **state)
{
	(void)state;
	char path[] = "/tmp/mbsim-test-h5-XXXXXX", err[256];
	tmpname(path);
	struct h5_opts opt = { 0, 0, 0 };
	struct h5out *o = h5_create(path, &opt, err, sizeof err);
	assert_non_null(o);
	static const long nb[] = { 1, 1000, 30000, 100000 };
	/* the index first, as the run's /time */
	assert_true(h5_series(o, "/t", 0, 0, H5_DOUBLE, "s", NULL) >= 0);
	assert_true(h5_series(o, "/u", 0, 0, H5_DOUBLE, "s", NULL) >= 0);
	body_series(o, nb, 4);
	/* rows unknown: full-size chunks from the first flush that is not
	 * h5_close's, but for the index (see test_first_chunks) */
	assert_int_equal(h5_flush(o), 0);
	assert_int_equal(h5_close(&o, "complete", err, sizeof err), 0);
	for (int i = 0; i < 4; i++) {
		char p[64];
		hsize_t c[3];
		snprintf(p, sizeof p, "/b%ld", nb[i]);
		double b = chunk_bytes(path, p, c);
		assert_true(b >= 32768 && b <= 1048576);
		assert_int_equal(c[2], 3);
		if (nb[i] == 100000) {
			assert_int_equal(c[0], 1);
			assert_true(c[1] < 100000);	/* split */
		}
	}
	hsize_t c[3];
	assert_near(chunk_bytes(path, "/u", c), 65536, 0, 0);	/* 8192 samples */
	assert_near(chunk_bytes(path, "/t", c), 4096, 0, 0);	/* the index: 512 */
	unlink(path);
}

/* Rows unknown and no flush before h5_close (a run shorter than its flush
 * interval): chunks of about 4 kB (h5.c H5_CHUNK_FIRST), one row when a
 * row is larger; the split of rows over 1 MB as in test_chunks; the
 * attributes in place. */
static void test_first_chunks(void **state)
{
	(void)state;
	char path[] = "/tmp/mbsim-test-h5-XXXXXX", err[256];
	tmpname(path);
	struct h5_opts opt = { 2.0, 0, 0 };
	struct h5out *o = h5_create(path, &opt, err, sizeof err);
	assert_non_null(o);
	static const long nb[] = { 1, 1000, 100000 };
	body_series(o, nb, 3);
	int t = h5_series(o, "/t", 0, 0, H5_DOUBLE, "s", "time");
	assert_true(t >= 0);
	assert_int_equal(h5_attr_str(o, "/t", "extra", "kept"), 0);
	double v = 0.5;
	h5_row(o, t, &v);
	assert_int_equal(h5_close(&o, "complete", err, sizeof err), 0);
	hsize_t c[3];
	assert_near(chunk_bytes(path, "/t", c), 4096, 0, 0);	/* 512 samples */
	assert_near(chunk_bytes(path, "/b1", c), 170 * 24, 0, 0);
	assert_near(chunk_bytes(path, "/b1000", c), 24000, 0, 0);	/* one row */
	assert_int_equal(c[0], 1);
	chunk_bytes(path, "/b100000", c);
	assert_int_equal(c[0], 1);
	assert_true(c[1] < 100000);
	hid_t f = H5Fopen(path, H5F_ACC_RDONLY, H5P_DEFAULT);
	assert_true(f >= 0);
	hid_t d = H5Dopen2(f, "/t", H5P_DEFAULT);
	assert_true(d >= 0);
	assert_true(H5Aexists(d, "units") > 0 && H5Aexists(d, "description") > 0 &&
		    H5Aexists(d, "extra") > 0);
	H5Dclose(d);
	H5Fclose(f);
	unlink(path);
}

/* A known short run: one chunk of its rows (no 64 kB chunk for 5 rows). */
static void test_short_chunks(void **state)
{
	(void)state;
	char path[] = "/tmp/mbsim-test-h5-XXXXXX", err[256];
	tmpname(path);
	struct h5_opts opt = { 2.0, 0, 5 };
	struct h5out *o = h5_create(path, &opt, err, sizeof err);
	assert_non_null(o);
	assert_true(h5_series(o, "/t", 0, 0, H5_DOUBLE, "s", NULL) >= 0);
	assert_int_equal(h5_close(&o, "complete", err, sizeof err), 0);
	hsize_t c[3];
	assert_near(chunk_bytes(path, "/t", c), 40, 0, 0);
	unlink(path);
}

/* Three bodies a, bb, c (3-vectors), two joints with 2 and 3 multiplier
 * columns, one NaN: the logical names read the slices as written. */
static void test_logical(void **state)
{
	(void)state;
	char path[] = "/tmp/mbsim-test-h5-XXXXXX", err[256];
	tmpname(path);
	struct h5out *o = h5_create(path, NULL, err, sizeof err);
	assert_non_null(o);
	const char *bn[] = { "a", "bb", "c" }, *jn[] = { "p", "q" };
	const int off[] = { 0, 2, 5 };
	assert_int_equal(h5_names(o, "/g/names", bn, 3), 0);
	assert_int_equal(h5_names(o, "/j/names", jn, 2), 0);
	assert_int_equal(h5_ints(o, "/j/m_offsets", off, 3), 0);
	int t = h5_series(o, "/time", 0, 0, H5_DOUBLE, "s", NULL);
	int pos = h5_series(o, "/g/pos", 3, 3, H5_DOUBLE, "m", NULL);
	int m = h5_series(o, "/j/m", 5, 0, H5_DOUBLE, "N", NULL);
	int cd = h5_series(o, "/j/coord", 2, 0, H5_DOUBLE, "rad", NULL);
	assert_int_equal(h5_attr_str(o, "/g/pos", "names", "/g/names"), 0);
	assert_int_equal(h5_attr_str(o, "/j/m", "names", "/j/names"), 0);
	assert_int_equal(h5_attr_str(o, "/j/m", "offsets", "/j/m_offsets"), 0);
	assert_int_equal(h5_attr_str(o, "/j/coord", "names", "/j/names"), 0);
	for (int i = 0; i < 4; i++) {	/* value = 100 sample + 10 entry + component */
		double ti = i, p[9], mu[5], c[2] = { NAN, i };
		for (int k = 0; k < 9; k++)
			p[k] = 100 * i + 10 * (k / 3) + k % 3;
		for (int k = 0; k < 5; k++)
			mu[k] = 100 * i + k;
		h5_row(o, t, &ti);
		h5_row(o, pos, p);
		h5_row(o, m, mu);
		h5_row(o, cd, c);
		assert_int_equal(h5_commit(o), 0);	/* flush_interval 0: written */
	}
	assert_int_equal(h5_close(&o, "complete", err, sizeof err), 0);

	struct h5in *f = h5r_open(path, err, sizeof err);
	assert_non_null(f);
	struct h5r_data d;
	assert_int_equal(h5r_read(f, "/g/bb/pos", &d, err, sizeof err), 0);
	assert_int_equal(d.rows, 4);
	assert_int_equal(d.cols, 3);
	assert_near(d.v[3 * 2 + 1], 211, 0, 0);	/* sample 2, body 1, y */
	h5r_data_release(&d);
	assert_int_equal(h5r_read(f, "/j/q/m", &d, err, sizeof err), 0);
	assert_int_equal(d.cols, 3);
	assert_near(d.v[3 * 3 + 0], 302, 0, 0);	/* sample 3, column 2 */
	h5r_data_release(&d);
	assert_int_equal(h5r_read(f, "/j/p/coord", &d, err, sizeof err), 0);
	assert_int_equal(d.ndims, 1);
	assert_true(isnan(d.v[0]) && isnan(d.v[3]));
	h5r_data_release(&d);
	assert_int_equal(h5r_read(f, "/j/q/coord", &d, err, sizeof err), 0);
	assert_near(d.v[3], 3, 0, 0);
	h5r_data_release(&d);
	assert_int_equal(h5r_read(f, "/g/b/pos", &d, err, sizeof err), -1);	/* "b" is not "bb" */
	assert_non_null(strstr(err, "'b' is not in /g/names"));
	assert_int_equal(h5r_read(f, "/g/pos", &d, err, sizeof err), 0);	/* whole: rows x 9 */
	assert_int_equal(d.cols, 9);
	h5r_data_release(&d);
	char **names;
	int n = h5r_list(f, "/j", &names);	/* tables left out */
	assert_int_equal(n, 4);
	assert_string_equal(names[0], "/j/p/coord");
	assert_string_equal(names[3], "/j/q/m");
	h5r_list_free(&names, n);
	char st[32];
	assert_int_equal(h5r_attr_str(f, "/", "status", st, sizeof st), 0);
	assert_string_equal(st, "complete");
	h5r_close(&f);
	unlink(path);
}

/* Rows made in the writer's buffer (h5_row_next) while it grows from the
 * expected 2 samples to 100 without a flush, tables of 1 to 3 dimensions
 * and none, and a numeric attribute: read back exactly (small integers,
 * exact in double and int). */
static void test_in_place(void **state)
{
	(void)state;
	char path[] = "/tmp/mbsim-test-h5-XXXXXX", err[256];
	tmpname(path);
	struct h5_opts opt = { 1e9, 0, 2 };	/* no flush before close */
	struct h5out *o = h5_create(path, &opt, err, sizeof err);
	assert_non_null(o);
	int x = h5_series(o, "/x", 2, 0, H5_DOUBLE, "m", NULL);
	double m3[12];
	int mi[6];
	for (int k = 0; k < 12; k++)
		m3[k] = k;
	for (int k = 0; k < 6; k++)
		mi[k] = 10 * k;
	assert_int_equal(h5_matrix(o, "/t/m3", H5_DOUBLE, m3, 2, 2, 3), 0);
	assert_int_equal(h5_matrix(o, "/t/mi", H5_INT, mi, 3, 2, 0), 0);
	assert_int_equal(h5_matrix(o, "/t/none", H5_DOUBLE, m3, 0, 3, 0), 0);
	assert_int_equal(h5_ints(o, "/t/i", mi, 6), 0);
	assert_int_equal(h5_attr_num(o, "/t/mi", "scale", 2.5), 0);
	assert_null(h5_row_next(o, -1));
	for (int i = 0; i < 100; i++) {
		double *r = h5_row_next(o, x);
		assert_non_null(r);
		r[0] = i;
		r[1] = -i;
		assert_int_equal(h5_commit(o), 0);
	}
	assert_int_equal(h5_close(&o, "complete", err, sizeof err), 0);

	struct h5in *f = h5r_open(path, err, sizeof err);
	assert_non_null(f);
	struct h5r_data d;
	assert_int_equal(h5r_read(f, "/x", &d, err, sizeof err), 0);
	assert_int_equal(d.rows, 100);
	assert_int_equal(d.cols, 2);
	for (int i = 0; i < 100; i++) {
		assert_near(d.v[2 * i], i, 0, 0);
		assert_near(d.v[2 * i + 1], -i, 0, 0);
	}
	h5r_data_release(&d);
	assert_int_equal(h5r_read(f, "/t/m3", &d, err, sizeof err), 0);	/* rows x (2 3) */
	assert_int_equal(d.rows, 2);
	assert_int_equal(d.cols, 6);
	assert_near(d.v[11], 11, 0, 0);
	h5r_data_release(&d);
	assert_int_equal(h5r_read(f, "/t/mi", &d, err, sizeof err), 0);
	assert_int_equal(d.rows, 3);
	assert_int_equal(d.cols, 2);
	assert_near(d.v[5], 50, 0, 0);
	h5r_data_release(&d);
	assert_int_equal(h5r_read(f, "/t/none", &d, err, sizeof err), 0);
	assert_int_equal(d.rows, 0);
	assert_int_equal(d.cols, 3);
	h5r_data_release(&d);
	assert_int_equal(h5r_read(f, "/t/i", &d, err, sizeof err), 0);
	assert_int_equal(d.ndims, 1);
	assert_int_equal(d.rows, 6);
	assert_near(d.v[4], 40, 0, 0);
	h5r_data_release(&d);
	double v = 0;
	assert_int_equal(h5r_attr_num(f, "/t/mi", "scale", &v), 0);
	assert_near(v, 2.5, 0, 0);
	assert_int_equal(h5r_attr_num(f, "/", "status", &v), -1);	/* a string */
	assert_int_equal(h5r_attr_num(f, "/t/mi", "none", &v), -1);
	h5r_close(&f);
	unlink(path);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_chunks),
		cmocka_unit_test(test_first_chunks),
		cmocka_unit_test(test_short_chunks),
		cmocka_unit_test(test_logical),
		cmocka_unit_test(test_in_place),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
