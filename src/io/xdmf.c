/* xdmf.c - FILE.xdmf and FILE.xdmf.h5 for ParaView (xdmf.h). */
#include "xdmf.h"
#include "h5read.h"
#include "xdmf_contact.h"
#include "../util/vec.h"
#include "../util/xalloc.h"

#include <errno.h>
#include <hdf5.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* Scalars per vertex, per sample, to colour by. */
#define NFIELD 3
static const char *const field_name[NFIELD] = { "speed", "angular_speed", "kinetic_energy" };

static char *stem(const char *h5path)
{
	size_t n = strlen(h5path);
	if (n > 3 && strcmp(h5path + n - 3, ".h5") == 0)
		n -= 3;
	return xasprintf("%.*s", (int)n, h5path);
}

char *xdmf_path(const char *h5path)
{
	char *s = stem(h5path), *p = xasprintf("%s.xdmf", s);
	free(s);
	return p;
}

char *xdmf_data_path(const char *h5path)
{
	char *s = stem(h5path), *p = xasprintf("%s.xdmf.h5", s);
	free(s);
	return p;
}

static const char *base(const char *p)
{
	const char *s = strrchr(p, '/');
	return s ? s + 1 : p;
}

static void seterr(char *err, size_t n, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(err, n, fmt, ap);
	va_end(ap);
}

/* What the output file holds, read whole. */
struct run {
	long ns;		/* samples (rows of /time) */
	int nb;
	long nv, nt, nl;	/* vertices, triangles, line segments (beams) */
	struct h5r_data t, r, q, v, w, verts, voff, mass, J, tri, lines;
	struct xdmf_contacts con;	/* /contacts, when the model has contact */
};

static void run_release(struct run *u)
{
	struct h5r_data *d[] = { &u->t, &u->r, &u->q, &u->v, &u->w, &u->verts, &u->voff,
				 &u->mass, &u->J, &u->tri, &u->lines };
	for (size_t i = 0; i < sizeof d / sizeof d[0]; i++)
		h5r_data_release(d[i]);
	xdmf_contacts_release(&u->con);
}

static int need(struct h5in *f, const char *path, struct h5r_data *d, long rows, int cols,
		char *err, size_t n)
{
	char e[512];
	if (h5r_read(f, path, d, e, sizeof e)) {
		seterr(err, n, "%s%s", e,
		       strncmp(path, "/shapes", 7) == 0 ?
		       " (files written before shapes existed have none: run the deck again)" : "");
		return -1;
	}
	if ((rows >= 0 && d->rows < rows) || (cols > 0 && d->cols != cols)) {
		seterr(err, n, "%s has %ld x %d values, expected %ld x %d", path, d->rows, d->cols,
		       rows, cols);
		return -1;
	}
	return 0;
}

/* /shapes of f into u: 0, or -1 with a message in err. */
static int read_shapes(struct h5in *f, struct run *u, char *err, size_t n)
{
	char e[512];
	int rc = -1;
	if (need(f, "/shapes/mass", &u->mass, -1, 1, err, n))
		goto out;
	u->nb = (int)u->mass.rows;
	if (need(f, "/shapes/inertia", &u->J, u->nb, 9, err, n) ||
	    need(f, "/shapes/vertices", &u->verts, -1, 3, err, n) ||
	    need(f, "/shapes/vertex_offsets", &u->voff, u->nb + 1, 1, err, n))
		goto out;
	u->nv = u->verts.rows;
	if (need(f, "/shapes/triangles", &u->tri, -1, 3, err, n))
		goto out;
	u->nt = u->tri.rows;
	for (long i = 0; i < 3 * u->nt; i++)
		if (!(u->tri.v[i] >= 0 && u->tri.v[i] < (double)u->nv)) {
			seterr(err, n, "/shapes/triangles names a vertex that /shapes/vertices lacks");
			goto out;
		}
	if (u->voff.v[0] != 0 || u->voff.v[u->nb] != (double)u->nv) {
		seterr(err, n, "/shapes/vertex_offsets does not span /shapes/vertices");
		goto out;
	}
	/* the lines through beams' nodes: files without beams (or written
	 * before beams were drawn) have none */
	if (h5r_read(f, "/shapes/lines", &u->lines, e, sizeof e) == 0) {
		if (u->lines.cols != 2 && u->lines.rows > 0) {
			seterr(err, n, "/shapes/lines has %d columns, expected 2", u->lines.cols);
			goto out;
		}
		u->nl = u->lines.rows;
		for (long i = 0; i < 2 * u->nl; i++)
			if (!(u->lines.v[i] >= 0 && u->lines.v[i] < (double)u->nv)) {
				seterr(err, n, "/shapes/lines names a vertex that /shapes/vertices lacks");
				goto out;
			}
	} else if (strncmp(e, "no dataset", 10) != 0) {
		seterr(err, n, "%s", e);
		goto out;
	}
	for (int b = 0; b < u->nb; b++)	/* written so that a NaN fails too */
		if (!(u->voff.v[b + 1] >= u->voff.v[b])) {
			seterr(err, n, "/shapes/vertex_offsets is not increasing");
			goto out;
		}
	rc = 0;
out:
	return rc;
}

/* A modes file (mbsim modes -o) drawn as a run: MODE_FRAMES samples over
 * one cycle of each of its first MODE_MAX modes, at "times" k + j /
 * MODE_FRAMES (mode k, frame j), each body moved from the state
 * linearized at by s Re(dq e^(i phi)), phi = 2 pi j / MODE_FRAMES, its
 * rotation A exp(dth~) (dth in the body frame, as the shape's), and its
 * velocities the derivative of that motion at the mode's frequency.  s
 * brings the largest displacement to a tenth of the model's extent (the
 * diagonal of the box round its shapes), at most 0.3 rad of rotation. */
#define MODE_FRAMES 24
#define MODE_MAX 12
static int read_modes(struct h5in *f, struct run *u, long *nmodes, int buckling, char *err,
		      size_t n)
{
	struct h5r_data fr = { 0 }, sh = { 0 }, P = { 0 }, R = { 0 };
	int rc = -1, nb = u->nb;
	/* a buckling file (mbsim modes --buckling) has load factors where a
	 * modes file has frequencies: its shapes are drawn at rest (0 Hz) */
	if (need(f, buckling ? "/modes/load_factor" : "/modes/frequency", &fr, -1, 1, err, n) ||
	    need(f, "/state/position", &P, 1, -1, err, n) ||
	    need(f, "/state/rotation", &R, 1, 9 * (P.cols / 3), err, n))
		goto out;
	if (P.cols != 3 * nb) {
		seterr(err, n, "the modes file has %d bodies and shapes for %d: a model with "
		       "particles is not drawn (their modes are in /modes/shape)", P.cols / 3, nb);
		goto out;
	}
	long nm = fr.rows < MODE_MAX ? fr.rows : MODE_MAX;
	if (nm == 0 || need(f, "/modes/shape", &sh, fr.rows, 12 * nb, err, n)) {
		if (nm == 0)
			seterr(err, n, "the modes file has no modes (a model without degrees of "
			       "freedom): nothing moves");
		goto out;
	}
	/* the model's extent: the box round its shapes at the state */
	double lo[3] = { INFINITY, INFINITY, INFINITY }, hi[3] = { -INFINITY, -INFINITY, -INFINITY };
	for (int b = 0; b < nb; b++)
		for (long i = (long)u->voff.v[b]; i < (long)u->voff.v[b + 1]; i++) {
			double p[3];
			m3_mulv(p, R.v + 9 * b, u->verts.v + 3 * i);
			for (int c = 0; c < 3; c++) {
				lo[c] = fmin(lo[c], P.v[3 * b + c] + p[c]);
				hi[c] = fmax(hi[c], P.v[3 * b + c] + p[c]);
			}
		}
	double L = nb > 0 && u->nv > 0 ? sqrt((hi[0] - lo[0]) * (hi[0] - lo[0]) +
					    (hi[1] - lo[1]) * (hi[1] - lo[1]) +
					    (hi[2] - lo[2]) * (hi[2] - lo[2])) : 1.0;
	u->ns = nm * MODE_FRAMES;
	struct h5r_data *d[5] = { &u->t, &u->r, &u->q, &u->v, &u->w };
	const int cols[5] = { 1, 3 * nb, 4 * nb, 3 * nb, 3 * nb };
	for (int i = 0; i < 5; i++) {
		d[i]->rows = u->ns;
		d[i]->cols = cols[i];
		d[i]->ndims = i ? 3 : 1;
		d[i]->v = xcalloc((size_t)u->ns * (size_t)cols[i] + 1, sizeof(double));
	}
	for (long k = 0; k < nm; k++) {
		const double *z = sh.v + (size_t)k * 12 * nb;	/* (6 nb) x (re, im) */
		double dt = 0, dr = 0;
		for (int i = 0; i < 6 * nb; i++) {
			double a = hypot(z[2 * i], z[2 * i + 1]);
			if (i % 6 < 3)
				dt = fmax(dt, a);
			else
				dr = fmax(dr, a);
		}
		double s = INFINITY, om = buckling ? 0 : 2 * M_PI * fr.v[k];
		if (dt > 0)
			s = 0.1 * L / dt;
		if (dr > 0)
			s = fmin(s, 0.3 / dr);
		if (!isfinite(s))
			s = 0;
		for (int j = 0; j < MODE_FRAMES; j++) {
			long row = k * MODE_FRAMES + j;
			double ph = 2 * M_PI * j / MODE_FRAMES, c = cos(ph), sn = sin(ph);
			u->t.v[row] = (double)k + (double)j / MODE_FRAMES;
			for (int b = 0; b < nb; b++) {
				const double *zb = z + 12 * b;
				double th[3], E[9], A[9];
				for (int i = 0; i < 3; i++) {
					double re = zb[2 * i], im = zb[2 * i + 1];
					double rr = zb[6 + 2 * i], ri = zb[6 + 2 * i + 1];
					u->r.v[row * 3 * nb + 3 * b + i] = P.v[3 * b + i] + s * (re * c - im * sn);
					u->v.v[row * 3 * nb + 3 * b + i] = -s * om * (re * sn + im * c);
					th[i] = s * (rr * c - ri * sn);
					u->w.v[row * 3 * nb + 3 * b + i] = -s * om * (rr * sn + ri * c);
				}
				so3_exp(E, th);
				m3_mul(A, R.v + 9 * b, E);
				mat_to_quat(u->q.v + row * 4 * nb + 4 * b, A);
			}
		}
	}
	*nmodes = fr.rows;
	rc = 0;
out:
	h5r_data_release(&fr);
	h5r_data_release(&sh);
	h5r_data_release(&P);
	h5r_data_release(&R);
	return rc;
}

static int read_run(const char *h5path, struct run *u, long *nmodes, char *err, size_t n)
{
	char e[512];
	memset(u, 0, sizeof(*u));
	*nmodes = -1;
	struct h5in *f = h5r_open(h5path, e, sizeof e);
	if (!f) {
		seterr(err, n, "%s", e);
		return -1;
	}
	int rc = -1;
	char an[32];
	if (h5r_attr_str(f, "/", "analysis", an, sizeof an) == 0 &&
	    (strcmp(an, "modes") == 0 || strcmp(an, "buckling") == 0)) {
		if (read_shapes(f, u, err, n) == 0 &&
		    read_modes(f, u, nmodes, strcmp(an, "buckling") == 0, err, n) == 0)
			rc = 0;
		else if (strncmp(err, "no dataset '/shapes", 19) == 0)	/* before 2026-12 */
			seterr(err, n, "the modes file has no /shapes (written before modes files "
			       "had them): run mbsim modes -o again");
		goto out;
	}
	if (h5r_read_time(f, &u->t, e, sizeof e)) {
		seterr(err, n, "%s", e);
		goto out;
	}
	u->ns = u->t.rows;
	if (read_shapes(f, u, err, n))
		goto out;
	if (u->ns > 0 &&
	    (need(f, "/bodies/position", &u->r, u->ns, 3 * u->nb, err, n) ||
	     need(f, "/bodies/orientation", &u->q, u->ns, 4 * u->nb, err, n) ||
	     need(f, "/bodies/velocity", &u->v, u->ns, 3 * u->nb, err, n) ||
	     need(f, "/bodies/angular_velocity", &u->w, u->ns, 3 * u->nb, err, n)))
		goto out;
	if (xdmf_contacts_read(f, u->ns, &u->con, err, n))
		goto out;
	rc = 0;
out:
	h5r_close(&f);
	if (rc)
		run_release(u);
	return rc;
}

/* The sidecar: /vertices (k x nv x 3), /FIELD (k x nv), float32, one
 * chunk a sample; /body (nv) and /triangles (nt x 3), int. */
static int write_data(const char *path, const struct run *u, long every, long nk, char *err,
		      size_t n)
{
	char *tmp = xasprintf("%s.partial", path);
	hid_t f = H5Fcreate(tmp, H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT);
	if (f < 0) {
		/* on a full file system the file is made, its first write
		 * fails */
		seterr(err, n, "cannot create '%s'", tmp);
		unlink(tmp);
		free(tmp);
		return -1;
	}
	int ok = 1;
	hsize_t nv = (hsize_t)u->nv;
	hsize_t dv[3] = { (hsize_t)nk, nv, 3 }, cv[3] = { 1, nv ? nv : 1, 3 };
	hid_t pl = H5Pcreate(H5P_DATASET_CREATE);
	if (nk > 0 && nv > 0)
		H5Pset_chunk(pl, 3, cv);
	hid_t sp = H5Screate_simple(3, dv, NULL);
	hid_t dset[1 + NFIELD];
	/* one sample a chunk, written whole: no chunk cache, so that a
	 * failed write (a full file system) leaves no chunk the library
	 * holds for a file it cannot close (a LeakSanitizer report) */
	hid_t apl = H5Pcreate(H5P_DATASET_ACCESS);
	H5Pset_chunk_cache(apl, 0, 0, 1.0);
	dset[0] = H5Dcreate2(f, "/vertices", H5T_NATIVE_FLOAT, sp, H5P_DEFAULT, pl, apl);
	H5Sclose(sp);
	H5Pclose(pl);
	pl = H5Pcreate(H5P_DATASET_CREATE);
	if (nk > 0 && nv > 0)
		H5Pset_chunk(pl, 2, cv);
	sp = H5Screate_simple(2, dv, NULL);
	for (int j = 0; j < NFIELD; j++) {
		char p[64];
		snprintf(p, sizeof p, "/%s", field_name[j]);
		dset[1 + j] = H5Dcreate2(f, p, H5T_NATIVE_FLOAT, sp, H5P_DEFAULT, pl, apl);
	}
	H5Pclose(apl);
	H5Sclose(sp);
	H5Pclose(pl);
	for (int j = 0; j <= NFIELD; j++)
		ok &= dset[j] >= 0;
	/* the body of each vertex */
	int *body = xmalloc((size_t)nv * sizeof(int) + 1);
	for (int b = 0; b < u->nb; b++)
		for (long i = (long)u->voff.v[b]; i < (long)u->voff.v[b + 1]; i++)
			body[i] = b;
	sp = H5Screate_simple(1, &nv, NULL);
	hid_t bd = H5Dcreate2(f, "/body", H5T_NATIVE_INT, sp, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
	ok &= bd >= 0 && (nv == 0 || H5Dwrite(bd, H5T_NATIVE_INT, H5S_ALL, H5S_ALL, H5P_DEFAULT, body) >= 0);
	if (bd >= 0)
		H5Dclose(bd);
	H5Sclose(sp);
	free(body);
	/* the triangles, copied: FILE.xdmf and FILE.xdmf.h5 agree whatever
	 * becomes of FILE.h5 (a later run without --xdmf replaces it) */
	hsize_t dt[2] = { (hsize_t)u->nt, 3 };
	int *tri = xmalloc((size_t)u->nt * 3 * sizeof(int) + 1);
	for (long i = 0; i < 3 * u->nt; i++)
		tri[i] = (int)u->tri.v[i];
	sp = H5Screate_simple(2, dt, NULL);
	bd = H5Dcreate2(f, "/triangles", H5T_NATIVE_INT, sp, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
	ok &= bd >= 0 && (u->nt == 0 || H5Dwrite(bd, H5T_NATIVE_INT, H5S_ALL, H5S_ALL, H5P_DEFAULT, tri) >= 0);
	if (bd >= 0)
		H5Dclose(bd);
	H5Sclose(sp);
	free(tri);
	/* with lines, every cell for XDMF's Mixed topology: a triangle is
	 * 4 (its type) and its 3 vertices, a segment 2 (polyline), 2 (its
	 * points) and its 2 vertices */
	if (u->nl > 0) {
		hsize_t dc = (hsize_t)(4 * (u->nt + u->nl));
		int *cells = xmalloc((size_t)dc * sizeof(int)), *c = cells;
		for (long i = 0; i < u->nt; i++, c += 4)
			c[0] = 4, c[1] = (int)u->tri.v[3 * i], c[2] = (int)u->tri.v[3 * i + 1],
			c[3] = (int)u->tri.v[3 * i + 2];
		for (long i = 0; i < u->nl; i++, c += 4)
			c[0] = 2, c[1] = 2, c[2] = (int)u->lines.v[2 * i], c[3] = (int)u->lines.v[2 * i + 1];
		sp = H5Screate_simple(1, &dc, NULL);
		bd = H5Dcreate2(f, "/cells", H5T_NATIVE_INT, sp, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
		ok &= bd >= 0 && H5Dwrite(bd, H5T_NATIVE_INT, H5S_ALL, H5S_ALL, H5P_DEFAULT, cells) >= 0;
		if (bd >= 0)
			H5Dclose(bd);
		H5Sclose(sp);
		free(cells);
	}
	/* one sample at a time */
	float *xyz = xmalloc((size_t)nv * 3 * sizeof(float) + 1);
	float *fld = xmalloc((size_t)nv * NFIELD * sizeof(float) + 1);
	hsize_t mv[3] = { 1, nv, 3 };
	hid_t msv = H5Screate_simple(3, mv, NULL), msf = H5Screate_simple(2, mv, NULL);
	for (long k = 0; ok && k < nk && nv > 0; k++) {
		long s = k * every;
		const double *r = u->r.v + s * u->r.cols, *q = u->q.v + s * u->q.cols;
		const double *v = u->v.v + s * u->v.cols, *w = u->w.v + s * u->w.cols;
		for (int b = 0; b < u->nb; b++) {
			double A[9], qb[4], Jw[3];
			double qn = sqrt(q[4 * b] * q[4 * b] + q[4 * b + 1] * q[4 * b + 1] +
					 q[4 * b + 2] * q[4 * b + 2] + q[4 * b + 3] * q[4 * b + 3]);
			for (int c = 0; c < 4; c++)
				qb[c] = qn > 0 ? q[4 * b + c] / qn : c == 0;
			quat_to_mat(A, qb);
			m3_mulv(Jw, u->J.v + 9 * b, w + 3 * b);
			double f3[NFIELD] = {
				v3_norm(v + 3 * b), v3_norm(w + 3 * b),
				0.5 * u->mass.v[b] * v3_dot(v + 3 * b, v + 3 * b) + 0.5 * v3_dot(w + 3 * b, Jw)
			};
			for (long i = (long)u->voff.v[b]; i < (long)u->voff.v[b + 1]; i++) {
				double x[3];
				m3_mulv(x, A, u->verts.v + 3 * i);
				for (int c = 0; c < 3; c++)
					xyz[3 * i + c] = (float)(r[3 * b + c] + x[c]);
				for (int j = 0; j < NFIELD; j++)
					fld[(size_t)j * nv + (size_t)i] = (float)f3[j];
			}
		}
		hsize_t st[3] = { (hsize_t)k, 0, 0 };
		hid_t fs = H5Dget_space(dset[0]);
		H5Sselect_hyperslab(fs, H5S_SELECT_SET, st, NULL, mv, NULL);
		ok &= H5Dwrite(dset[0], H5T_NATIVE_FLOAT, msv, fs, H5P_DEFAULT, xyz) >= 0;
		H5Sclose(fs);
		for (int j = 0; j < NFIELD; j++) {
			fs = H5Dget_space(dset[1 + j]);
			H5Sselect_hyperslab(fs, H5S_SELECT_SET, st, NULL, mv, NULL);
			ok &= H5Dwrite(dset[1 + j], H5T_NATIVE_FLOAT, msf, fs, H5P_DEFAULT,
				       fld + (size_t)j * nv) >= 0;
			H5Sclose(fs);
		}
	}
	H5Sclose(msv);
	H5Sclose(msf);
	free(xyz);
	free(fld);
	for (int j = 0; j <= NFIELD; j++)
		if (dset[j] >= 0)
			H5Dclose(dset[j]);
	ok &= xdmf_contacts_write(f, &u->con, every, nk) == 0;
	ok &= H5Fclose(f) >= 0;
	if (ok && rename(tmp, path) != 0) {
		seterr(err, n, "cannot rename '%s' to '%s': %s", tmp, path, strerror(errno));
		ok = 0;
	} else if (!ok) {
		seterr(err, n, "writing '%s' failed", tmp);
	}
	if (!ok)
		unlink(tmp);
	free(tmp);
	return ok ? 0 : -1;
}

void xdmf_xml_str(FILE *f, const char *s)
{
	for (; *s; s++)
		switch (*s) {
		case '&': fputs("&amp;", f); break;
		case '<': fputs("&lt;", f); break;
		case '>': fputs("&gt;", f); break;
		case '"': fputs("&quot;", f); break;
		case '\'': fputs("&apos;", f); break;
		default: fputc(*s, f);
		}
}

/* <DataItem> of rows k of an HDF5 dataset of dims (nk, d1[, d2]). */
static void slab(FILE *f, const char *file, const char *dset, long k, long nk, long d1, int d2,
		 const char *type)
{
	if (d2 > 0) {
		fprintf(f, "      <DataItem ItemType=\"HyperSlab\" Dimensions=\"%ld %d\" Type=\"HyperSlab\">\n"
			"       <DataItem Dimensions=\"3 3\" Format=\"XML\">%ld 0 0 1 1 1 1 %ld %d</DataItem>\n"
			"       <DataItem Dimensions=\"%ld %ld %d\" %s Format=\"HDF\">", d1, d2, k, d1, d2,
			nk, d1, d2, type);
	} else {
		fprintf(f, "      <DataItem ItemType=\"HyperSlab\" Dimensions=\"%ld\" Type=\"HyperSlab\">\n"
			"       <DataItem Dimensions=\"3 2\" Format=\"XML\">%ld 0 1 1 1 %ld</DataItem>\n"
			"       <DataItem Dimensions=\"%ld %ld\" %s Format=\"HDF\">", d1, k, d1, nk, d1,
			type);
	}
	xdmf_xml_str(f, file);
	fprintf(f, ":%s</DataItem>\n      </DataItem>\n", dset);
}

static int write_xml(const char *path, const char *h5path, const char *datapath,
		     const struct run *u, long every, long nk, char *err, size_t n)
{
	char *tmp = xasprintf("%s.partial", path);
	FILE *f = fopen(tmp, "w");
	if (!f) {
		seterr(err, n, "cannot create '%s': %s", tmp, strerror(errno));
		free(tmp);
		return -1;
	}
	const char *h5 = base(h5path), *dat = base(datapath);
	static const char *const fl = "NumberType=\"Float\" Precision=\"4\"";
	fprintf(f, "<?xml version=\"1.0\" ?>\n"
		"<!-- written by mbsim (man mbsim-output(5)): bodies of ");
	xdmf_xml_str(f, h5);
	fprintf(f, " as triangles (beams' nodes also joined by lines), global vertices per sample in ");
	xdmf_xml_str(f, dat);
	fprintf(f, " -->\n<Xdmf Version=\"2.0\">\n <Domain>\n"
		"  <Grid Name=\"bodies\" GridType=\"Collection\" CollectionType=\"Temporal\">\n");
	for (long k = 0; k < nk; k++) {
		fprintf(f, "   <Grid Name=\"sample %ld\" GridType=\"Uniform\">\n"
			"    <Time Value=\"%.17g\"/>\n", k * every, u->t.v[k * every]);
		if (u->nl > 0)
			fprintf(f, "    <Topology TopologyType=\"Mixed\" NumberOfElements=\"%ld\">\n"
				"     <DataItem Dimensions=\"%ld\" NumberType=\"Int\" Precision=\"4\" "
				"Format=\"HDF\">", u->nt + u->nl, 4 * (u->nt + u->nl));
		else
			fprintf(f, "    <Topology TopologyType=\"Triangle\" NumberOfElements=\"%ld\">\n"
				"     <DataItem Dimensions=\"%ld 3\" NumberType=\"Int\" Precision=\"4\" "
				"Format=\"HDF\">", u->nt, u->nt);
		xdmf_xml_str(f, dat);
		fprintf(f, ":/%s</DataItem>\n    </Topology>\n"
			"    <Geometry GeometryType=\"XYZ\">\n", u->nl > 0 ? "cells" : "triangles");
		slab(f, dat, "/vertices", k, nk, u->nv, 3, fl);
		fprintf(f, "    </Geometry>\n"
			"    <Attribute Name=\"body\" AttributeType=\"Scalar\" Center=\"Node\">\n"
			"     <DataItem Dimensions=\"%ld\" NumberType=\"Int\" Precision=\"4\" Format=\"HDF\">",
			u->nv);
		xdmf_xml_str(f, dat);
		fprintf(f, ":/body</DataItem>\n    </Attribute>\n");
		for (int j = 0; j < NFIELD; j++) {
			char d[64];
			snprintf(d, sizeof d, "/%s", field_name[j]);
			fprintf(f, "    <Attribute Name=\"%s\" AttributeType=\"Scalar\" Center=\"Node\">\n",
				field_name[j]);
			slab(f, dat, d, k, nk, u->nv, 0, fl);
			fprintf(f, "    </Attribute>\n");
		}
		fprintf(f, "   </Grid>\n");
	}
	fprintf(f, "  </Grid>\n");
	xdmf_contacts_xml(f, dat, &u->con, u->t.v, every, nk);
	fprintf(f, " </Domain>\n</Xdmf>\n");
	int bad = ferror(f);
	bad |= fclose(f) != 0;
	if (bad) {
		seterr(err, n, "writing '%s' failed", tmp);
		unlink(tmp);
		free(tmp);
		return -1;
	}
	if (rename(tmp, path) != 0) {
		seterr(err, n, "cannot rename '%s' to '%s': %s", tmp, path, strerror(errno));
		unlink(tmp);
		free(tmp);
		return -1;
	}
	free(tmp);
	return 0;
}

/* ", N beam segments" (static storage) */
static const char *lines_note(long nl)
{
	static char buf[64];
	snprintf(buf, sizeof buf, ", %ld beam segments", nl);
	return buf;
}

static const char *every_note(long every)
{
	static char buf[64];
	snprintf(buf, sizeof buf, " (one in %ld)", every);
	return buf;
}

/* "12.3 MB": the two files' size together */
static const char *size_note(const char *dp, const char *xp)
{
	static char buf[64];
	struct stat a, b;
	double n = (stat(dp, &a) == 0 ? (double)a.st_size : 0) + (stat(xp, &b) == 0 ? (double)b.st_size : 0);
	if (n >= 1e6)
		snprintf(buf, sizeof buf, "%.3g MB in all", n / 1e6);
	else
		snprintf(buf, sizeof buf, "%.3g kB in all", n / 1e3);
	return buf;
}

int xdmf_export(const char *h5path, long every, char *info, size_t infolen, char *err,
		size_t errlen)
{
	struct run u;
	char *xp = xdmf_path(h5path), *dp = xdmf_data_path(h5path);
	/* the input is read whole first: nothing is touched for a file
	 * that is not an output; then an old FILE.xdmf goes, since it may
	 * name samples the new data lack */
	long nmodes;
	int rc = read_run(h5path, &u, &nmodes, err, errlen);
	if (rc == 0 && unlink(xp) != 0 && errno != ENOENT) {
		seterr(err, errlen, "cannot remove '%s': %s", xp, strerror(errno));
		run_release(&u);
		rc = 1;
	}
	if (rc == 0) {
		if (every < 1)	/* auto: at most XDMF_FRAMES + 1 frames */
			every = u.ns > 1 ? (u.ns - 2) / XDMF_FRAMES + 1 : 1;
		long nk = u.ns > 0 ? (u.ns - 1) / every + 1 : 0;
		rc = write_data(dp, &u, every, nk, err, errlen);
		if (rc == 0)
			rc = write_xml(xp, h5path, dp, &u, every, nk, err, errlen);
		char what[160] = "";
		if (nmodes >= 0)	/* read_modes: which modes, how drawn */
			snprintf(what, sizeof what, " (modes 1-%ld of %ld, %d frames a cycle at "
				 "times k + j/%d for mode k + 1)", u.ns / MODE_FRAMES, nmodes,
				 MODE_FRAMES, MODE_FRAMES);
		char con[64] = "";
		if (u.con.present)
			snprintf(con, sizeof con, ", %ld contact points",
				 xdmf_contacts_rows(&u.con, every, nk));
		if (rc == 0 && info)
			snprintf(info, infolen, "%s: %ld of %ld sample%s%s%s, %d bod%s, %ld vertices, "
				 "%ld triangles%s%s (data in %s, %s)", xp, nk, u.ns, u.ns == 1 ? "" : "s",
				 every > 1 ? every_note(every) : "", what, u.nb, u.nb == 1 ? "y" : "ies",
				 u.nv, u.nt, u.nl > 0 ? lines_note(u.nl) : "", con, dp, size_note(dp, xp));
		run_release(&u);
	}
	free(xp), free(dp);
	return rc ? -1 : 0;
}
