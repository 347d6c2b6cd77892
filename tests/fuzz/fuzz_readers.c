/* fuzz_readers.c - libFuzzer target, structure-aware: the result readers
 * (`mbsim compare`, `summary`, `export --xdmf` and the common samples of
 * `converge`) on an mbsim output made from the input.
 *
 * The input does not hold a file: it describes one.  Its first bytes
 * choose the samples, bodies and joints; then each dataset of a small
 * output in the layout of mbsim-output(5) (/time, the body series with
 * their names table, the joint multipliers with their offsets table,
 * energy, residuals, shapes) takes one byte of operation: keep, leave
 * out, another number type, a string type, another shape (one dimension
 * more or less, an extent off by one, a missing or an extra dimension),
 * special values (inf, NaN, 1e308, -0, denormals, repeated or decreasing
 * times) at chosen places, its names/offsets attribute pointing elsewhere,
 * a group in its place, chunked or compressed storage.  The file is made
 * in memory with HDF5's core driver, its image written to a private
 * file, and one reader, chosen by the first byte, run on it: compare with
 * itself or with a good file either way (exit 0, 1 or 2), summary (0 or
 * 1), export (0 or 1, and no .partial file left), the common samples of
 * converge's reference (h5r_common_samples: rows within the files).  A
 * file made without any change passes compare with itself and export.  run.sh passes -close_fd_mask=3: the commands'
 * messages are not wanted here. */
#include "cli/cli.h"
#include "io/h5read.h"
#include "io/xdmf.h"

#include <hdf5.h>
#include <math.h>
#include <float.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

struct in {
	const uint8_t *p;
	size_t n;
};

static unsigned take(struct in *z, unsigned mod)
{
	if (z->n == 0)
		return 0;
	unsigned v = *z->p++;
	z->n--;
	return mod ? v % mod : v;
}

static double take_value(struct in *z)
{
	static const double special[] = { 0.0, -0.0, 1.0, -1.0, 1e-3, 5e-3, 1e308, -1e308,
					   DBL_MIN / 4, 1e-9, 0.5, 2.0 };
	unsigned k = take(z, 16);
	if (k < sizeof special / sizeof special[0])
		return special[k];
	if (k == 12)
		return INFINITY;
	if (k == 13)
		return -INFINITY;
	if (k == 14)
		return NAN;
	double v = 0;
	uint8_t b[8] = { 0 };
	for (int i = 0; i < 8; i++)
		b[i] = (uint8_t)take(z, 0);
	memcpy(&v, b, sizeof v);
	return v;
}

/* Symbolic extents of the good file. */
enum { S = -1, B = -2, B1 = -3, J = -4, J1 = -5, M = -6, V = -7, T = -8 };

struct spec {
	const char *path;
	int nd, dim[3];
	int kind;		/* 0 numbers, 1 names (strings), 2 integers */
	const char *names, *offsets;
};

static const struct spec specs[] = {
	{ "/time", 1, { S }, 0, NULL, NULL },
	{ "/bodies/names", 1, { B }, 1, NULL, NULL },
	{ "/bodies/position", 3, { S, B, 3 }, 0, "/bodies/names", NULL },
	{ "/bodies/orientation", 3, { S, B, 4 }, 0, "/bodies/names", NULL },
	{ "/bodies/velocity", 3, { S, B, 3 }, 0, "/bodies/names", NULL },
	{ "/bodies/angular_velocity", 3, { S, B, 3 }, 0, "/bodies/names", NULL },
	{ "/joints/names", 1, { J }, 1, NULL, NULL },
	{ "/joints/multiplier_offsets", 1, { J1 }, 2, NULL, NULL },
	{ "/joints/multipliers", 2, { S, M }, 0, "/joints/names", "/joints/multiplier_offsets" },
	{ "/joints/reaction_force", 3, { S, J, 3 }, 0, "/joints/names", NULL },
	{ "/energy/total", 1, { S }, 0, NULL, NULL },
	{ "/energy/drift", 1, { S }, 0, NULL, NULL },
	{ "/constraints/position_residual", 1, { S }, 0, NULL, NULL },
	{ "/constraints/velocity_residual", 1, { S }, 0, NULL, NULL },
	{ "/shapes/mass", 1, { B }, 0, NULL, NULL },
	{ "/shapes/inertia", 3, { B, 3, 3 }, 0, NULL, NULL },
	{ "/shapes/vertices", 2, { V, 3 }, 0, NULL, NULL },
	{ "/shapes/vertex_offsets", 1, { B1 }, 2, NULL, NULL },
	{ "/shapes/triangles", 2, { T, 3 }, 2, NULL, NULL },
};
#define NSPEC ((int)(sizeof specs / sizeof specs[0]))

struct sizes {
	long s, b, j;
};

static long extent(const struct sizes *z, int d)
{
	switch (d) {
	case S: return z->s;
	case B: return z->b;
	case B1: return z->b + 1;
	case J: return z->j;
	case J1: return z->j + 1;
	case M: return 5 * z->j;
	case V: return 4 * z->b;
	case T: return 2 * z->b;
	default: return d;
	}
}

/* The good value of element i (row-major) of spec s: times 1 ms apart,
 * unit quaternions, offsets 0, 4, 8 ..., triangles within the vertices. */
static double good_value(const struct spec *s, const struct sizes *z, long i, long cols)
{
	long r = cols ? i / cols : 0, c = cols ? i % cols : 0;
	const char *p = s->path;
	if (strcmp(p, "/time") == 0)
		return 1e-3 * (double)i;
	if (strcmp(p, "/bodies/orientation") == 0)
		return c % 4 == 0 ? 1.0 : 0.0;
	if (strcmp(p, "/joints/multiplier_offsets") == 0)
		return 5.0 * (double)i;
	if (strcmp(p, "/shapes/vertex_offsets") == 0)
		return 4.0 * (double)i;
	if (strcmp(p, "/shapes/triangles") == 0)
		return (double)((r / 2) * 4 + (r % 2 + c) % 4);
	if (strcmp(p, "/shapes/mass") == 0)
		return 1.0;
	if (strcmp(p, "/shapes/inertia") == 0)
		return c % 4 == 0 ? 0.1 : 0.0;
	return 0.01 * (double)(r + 1) + 0.1 * (double)c;
	(void)z;
}

static void set_str_attr(hid_t obj, const char *name, const char *val)
{
	hid_t ty = H5Tcopy(H5T_C_S1), sp = H5Screate(H5S_SCALAR);
	H5Tset_size(ty, strlen(val) + 1);
	hid_t a = H5Acreate2(obj, name, ty, sp, H5P_DEFAULT, H5P_DEFAULT);
	if (a >= 0) {
		H5Awrite(a, ty, val);
		H5Aclose(a);
	}
	H5Sclose(sp);
	H5Tclose(ty);
}

static void set_num_attr(hid_t obj, const char *name, double v)
{
	hid_t sp = H5Screate(H5S_SCALAR);
	hid_t a = H5Acreate2(obj, name, H5T_NATIVE_DOUBLE, sp, H5P_DEFAULT, H5P_DEFAULT);
	if (a >= 0) {
		H5Awrite(a, H5T_NATIVE_DOUBLE, &v);
		H5Aclose(a);
	}
	H5Sclose(sp);
}

static const char *const other_paths[] = { "/bodies/names", "/joints/names", "/time",
					   "/nothing", "/bodies", "/joints/multiplier_offsets",
					   "/bodies/b0/position", "" };

/* One dataset of the file as spec s and the operation bytes say; 1 when
 * it was changed from the good file. */
static int make_dataset(hid_t f, const struct spec *s, const struct sizes *z, struct in *in)
{
	unsigned op = take(in, 24);
	hsize_t dims[4] = { 1, 1, 1, 1 };
	int nd = s->nd;
	for (int i = 0; i < nd; i++)
		dims[i] = (hsize_t)extent(z, s->dim[i]);
	hid_t lcpl = H5Pcreate(H5P_LINK_CREATE);
	H5Pset_create_intermediate_group(lcpl, 1);
	int changed = op >= 12;
	if (op == 12) {		/* left out */
		H5Pclose(lcpl);
		return 1;
	}
	if (op == 13) {		/* a group in its place */
		hid_t g = H5Gcreate2(f, s->path, lcpl, H5P_DEFAULT, H5P_DEFAULT);
		if (g >= 0)
			H5Gclose(g);
		H5Pclose(lcpl);
		return 1;
	}
	if (op == 14) {		/* one extent off */
		int k = (int)take(in, (unsigned)nd);
		int delta = take(in, 2) ? 1 : -1;
		if (dims[k] > 0 || delta > 0)
			dims[k] = (hsize_t)((long)dims[k] + delta);
	} else if (op == 15) {	/* a dimension more or less */
		if (take(in, 2) && nd < 4)
			dims[nd++] = 1 + take(in, 3);
		else if (nd > 1)
			nd--;
	} else if (op == 16) {	/* another extent for every dimension */
		for (int i = 0; i < nd; i++)
			dims[i] = take(in, 7);
	}
	hid_t ty = H5Tcopy(s->kind == 2 ? H5T_NATIVE_INT : H5T_NATIVE_DOUBLE);
	int strings = s->kind == 1;
	if (op == 17) {		/* another type */
		/* (the H5T_NATIVE_ names are calls, not constants) */
		hid_t types[] = { H5T_NATIVE_FLOAT, H5T_NATIVE_INT, H5T_NATIVE_SCHAR,
				  H5T_NATIVE_ULLONG, H5T_NATIVE_DOUBLE, H5T_NATIVE_USHORT };
		unsigned k = take(in, 8);
		H5Tclose(ty);
		if (k < 6) {
			ty = H5Tcopy(types[k]);
			strings = 0;
		} else {
			ty = H5Tcopy(H5T_C_S1);
			strings = 1;
		}
	}
	if (strings) {
		H5Tclose(ty);
		ty = H5Tcopy(H5T_C_S1);
		H5Tset_size(ty, op == 17 || op == 18 ? 1 + take(in, 12) : 8);
	}
	hid_t dcpl = H5Pcreate(H5P_DATASET_CREATE);
	hsize_t maxd[4] = { dims[0], dims[1], dims[2], dims[3] };
	if (op == 19 || (s->dim[0] == S && op < 12)) {	/* chunked, as the writer makes them */
		hsize_t ch[4];
		for (int i = 0; i < nd; i++)
			ch[i] = dims[i] ? dims[i] : 1;
		if (op == 19)
			ch[0] = 1 + take(in, 4);
		maxd[0] = H5S_UNLIMITED;
		H5Pset_chunk(dcpl, nd, ch);
		if (op == 19 && take(in, 2))
			H5Pset_deflate(dcpl, 1);
	}
	hid_t sp = op == 20 ? H5Screate(H5S_SCALAR) : H5Screate_simple(nd, dims, maxd);
	hid_t ds = H5Dcreate2(f, s->path, ty, sp, lcpl, dcpl, H5P_DEFAULT);
	H5Pclose(dcpl);
	H5Pclose(lcpl);
	if (ds < 0) {
		H5Sclose(sp);
		H5Tclose(ty);
		return changed;
	}
	hssize_t np = H5Sget_simple_extent_npoints(sp);
	if (np > 0 && np < (1 << 20)) {
		long cols = 1;
		for (int i = 1; i < nd; i++)
			cols *= (long)dims[i];
		if (strings) {
			size_t w = H5Tget_size(ty);
			char *buf = calloc((size_t)np, w);
			for (hssize_t i = 0; i < np && buf; i++)
				snprintf(buf + (size_t)i * w, w, "b%ld", (long)i);
			if (buf && op == 21 && np > 1)	/* two entries of one name */
				memcpy(buf + w, buf, w);
			if (buf)
				H5Dwrite(ds, ty, H5S_ALL, H5S_ALL, H5P_DEFAULT, buf);
			free(buf);
		} else {
			double *v = malloc((size_t)np * sizeof(double));
			for (hssize_t i = 0; i < np && v; i++)
				v[i] = good_value(s, z, (long)i, cols);
			if (v && op == 21) {	/* special values at chosen places */
				for (unsigned k = 1 + take(in, 4); k > 0; k--)
					v[take(in, 0) % (unsigned)np] = take_value(in);
			} else if (v && op == 22) {	/* one value everywhere */
				double x = take_value(in);
				for (hssize_t i = 0; i < np; i++)
					v[i] = x;
			}
			if (v)
				H5Dwrite(ds, H5T_NATIVE_DOUBLE, H5S_ALL, H5S_ALL, H5P_DEFAULT, v);
			free(v);
		}
	}
	if (s->names) {
		const char *nm = s->names, *off = s->offsets;
		if (op == 23) {		/* the tables' paths changed */
			nm = other_paths[take(in, 8)];
			off = take(in, 2) ? other_paths[take(in, 8)] : NULL;
		}
		if (nm[0])
			set_str_attr(ds, "names", nm);
		if (off && off[0])
			set_str_attr(ds, "offsets", off);
	}
	H5Dclose(ds);
	H5Sclose(sp);
	H5Tclose(ty);
	return changed;
}

/* The file described by the input, in memory; its image in *img.  Returns
 * the image's size (0 on failure); *changed is 1 unless it is the good file. */
static size_t make_file(struct in *in, void **img, int *changed)
{
	struct sizes z = { 1 + take(in, 6), 1 + take(in, 3), take(in, 3) };
	hid_t fapl = H5Pcreate(H5P_FILE_ACCESS);
	H5Pset_fapl_core(fapl, 4096, 0);
	hid_t f = H5Fcreate("fuzz-readers-image.h5", H5F_ACC_TRUNC, H5P_DEFAULT, fapl);
	H5Pclose(fapl);
	*img = NULL;
	*changed = 0;
	if (f < 0)
		return 0;
	for (int i = 0; i < NSPEC; i++)
		*changed |= make_dataset(f, &specs[i], &z, in);
	set_str_attr(f, "status", take(in, 8) == 7 ? "failed: at t = 0.001" : "complete");
	set_str_attr(f, "integrator", "hi");
	set_str_attr(f, "command_line", take(in, 8) == 7 ? "mbsim run d.yaml --set --set=" :
		     "mbsim run d.yaml --set parameters.L=2 --set=g=1");
	set_num_attr(f, "steps", take(in, 8) == 7 ? take_value(in) : 10.0);
	set_num_attr(f, "mean_newton_iterations", 1.5);
	set_num_attr(f, "wall_time", 0.01);
	H5Fflush(f, H5F_SCOPE_GLOBAL);
	ssize_t n = H5Fget_file_image(f, NULL, 0);
	if (n > 0 && (*img = malloc((size_t)n)) && H5Fget_file_image(f, *img, (size_t)n) != n) {
		free(*img);
		*img = NULL;
	}
	H5Fclose(f);
	return *img ? (size_t)n : 0;
}

static void write_file(const char *path, const void *img, size_t n)
{
	FILE *f = fopen(path, "wb");
	if (!f || fwrite(img, 1, n, f) != n)
		abort();
	fclose(f);
}

static int run(int (*cmd)(int, char **), char **argv)
{
	int argc = 0;
	while (argv[argc])
		argc++;
	return cmd(argc, argv);
}

/* converge's reference against a good run: the common samples */
static void common_samples(const char *path, const char *good)
{
	char err[512];
	struct h5in *f[2] = { h5r_open(good, err, sizeof err), h5r_open(path, err, sizeof err) };
	struct h5r_data t[2];
	memset(t, 0, sizeof t);
	if (f[0] && f[1] && h5r_read_time(f[0], &t[0], err, sizeof err) == 0 &&
	    h5r_read_time(f[1], &t[1], err, sizeof err) == 0) {
		long *idx[2], n = h5r_common_samples(t, 2, idx);
		for (int i = 0; i < 2; i++) {
			for (long k = 0; k < n; k++)
				if (idx[i][k] < 0 || idx[i][k] >= t[i].rows ||
				    (k > 0 && idx[i][k] <= idx[i][k - 1]))
					abort();
			free(idx[i]);
		}
	}
	for (int i = 0; i < 2; i++) {
		h5r_data_release(&t[i]);
		h5r_close(&f[i]);
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static char path[256], good[256], xdmf[300], side[300], partial[320];
	struct in in = { data, size };
	if (!path[0]) {
		const char *dir = getenv("TMPDIR");
		snprintf(path, sizeof path, "%s/mbsim-fuzz-readers-%ld.h5", dir ? dir : "/tmp",
			 (long)getpid());
		snprintf(good, sizeof good, "%s/mbsim-fuzz-readers-good-%ld.h5", dir ? dir : "/tmp",
			 (long)getpid());
		char *x = xdmf_path(path), *d = xdmf_data_path(path);
		snprintf(xdmf, sizeof xdmf, "%s", x);
		snprintf(side, sizeof side, "%s", d);
		snprintf(partial, sizeof partial, "%s.partial", d);
		free(x);
		free(d);
		/* the good file: no bytes, no change (3 samples, 2 bodies, 1 joint) */
		static const uint8_t none[3] = { 2, 1, 1 };
		struct in g = { none, sizeof none };
		void *img;
		int changed;
		size_t n = make_file(&g, &img, &changed);
		if (!n || changed)
			abort();
		write_file(good, img, n);
		free(img);
	}
	/* one reader an input (HDF5 opens and closes cost ~1 ms a file:
	 * all of them on every input made a tenth of the executions) */
	unsigned which = take(&in, 6);
	void *img;
	int changed;
	size_t n = make_file(&in, &img, &changed);
	if (!n)
		return 0;
	write_file(path, img, n);
	free(img);
	char *argv[4][10] = {
		{ "compare", path, good, NULL },
		{ "compare", good, path, NULL },
		{ "compare", path, path, NULL },
		{ "summary", path, "--quantity", "bodies/b0/position:x@0.0015", "--quantity",
		  "energy/total@0", "--quantity", "joints/b0/multipliers:1@0.001", NULL },
	};
	char *exp[] = { "export", "--xdmf", "-q", path, NULL };
	int rc = 0;
	if (which < 3) {
		rc = run(cmd_compare, argv[which]);
		if (rc != EXIT_OK && rc != EXIT_SIM && rc != EXIT_DECK)
			abort();
	} else if (which == 3) {
		rc = run(cmd_summary, argv[3]);
		if (rc != EXIT_OK && rc != EXIT_SIM)
			abort();
	} else if (which == 4) {
		rc = run(cmd_export, exp);
		if (rc != EXIT_OK && rc != EXIT_SIM)
			abort();
		if (access(partial, F_OK) == 0)
			abort();	/* export leaves no half-made file */
	} else {
		common_samples(path, good);
	}
	/* a good file passes (summary: the joint of its quantity may be
	 * missing; compare with the good file: other sizes differ) */
	if (!changed && (which == 2 || which == 4) && rc != EXIT_OK)
		abort();
	unlink(xdmf);
	unlink(side);
	unlink(path);
	return 0;
}
