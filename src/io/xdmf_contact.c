/* xdmf_contact.c - the contacts of an output file drawn in FILE.xdmf
 * (xdmf.h): each sample's contact points a point set, with the normal and
 * friction force (impulse, nonsmooth model) as vectors on the points, for
 * ParaView's Glyph filter to draw as arrows.
 *
 * /contacts of the output file (man mbsim-output(5)) has count (N), a row
 * per sample, and the other datasets a row per contact, sample after
 * sample; the sidecar FILE.xdmf.h5 gets the rows of the exported samples
 * only, in float64 (the forces as written, not rounded), and each
 * sample's grid reads its rows by a HyperSlab.  A sample without contacts
 * has no grid: ParaView's XDMF reader (5.11) gives no block at a time its
 * temporal collection lacks, but fails on a grid of no points (a
 * Geometry of 0 x 3 values) or crashes on one without Geometry. */
#include "xdmf_contact.h"
#include "h5read.h"
#include "../util/xalloc.h"

#include <hdf5.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define XC_NSER 5
/* the sidecar's datasets: 3 columns but gap and sliding */
static const char *const xc_name[XC_NSER] = { "point", "normal_force", "friction_force", "gap",
					      "sliding" };

static void xc_release_data(struct xdmf_contacts *c)
{
	for (int j = 0; j < XC_NSER; j++) {
		free(c->v[j]);
		c->v[j] = NULL;
	}
	free(c->off);
	c->off = NULL;
}

void xdmf_contacts_release(struct xdmf_contacts *c)
{
	xc_release_data(c);
	c->present = 0;
}

/* Whether d, read from path, has rows rows and cols columns. */
static int xc_shape(const char *path, const struct h5r_data *d, long rows, int cols, char *err,
		    size_t n)
{
	if (d->rows != rows || d->cols != cols) {
		snprintf(err, n, "%s has %ld x %d values, expected %ld x %d (as /contacts/count "
			 "says)", path, d->rows, d->cols, rows, cols);
		return -1;
	}
	return 0;
}

/* A dataset of /contacts with rows rows and cols columns into *d. */
static int xc_need(struct h5in *f, const char *path, long rows, int cols, struct h5r_data *d,
		   char *err, size_t n)
{
	return h5r_read(f, path, d, err, n) || xc_shape(path, d, rows, cols, err, n) ? -1 : 0;
}

int xdmf_contacts_read(struct h5in *f, long ns, struct xdmf_contacts *c, char *err, size_t n)
{
	struct h5r_data cnt = { 0 }, d[6] = { { 0 } };
	char e[512];
	int rc = -1;
	memset(c, 0, sizeof(*c));
	if (h5r_read(f, "/contacts/count", &cnt, e, sizeof e)) {
		if (strncmp(e, "no dataset", 10) == 0)	/* a model without contact */
			return 0;
		snprintf(err, n, "%s", e);
		return -1;
	}
	if (cnt.rows != ns || cnt.cols != 1) {
		snprintf(err, n, "/contacts/count has %ld x %d values, expected %ld (a row per "
			 "sample)", cnt.rows, cnt.cols, ns);
		goto out;
	}
	c->off = xmalloc((size_t)(ns + 1) * sizeof(long));
	c->off[0] = 0;
	for (long k = 0; k < ns; k++) {	/* written so that a NaN fails too */
		if (!(cnt.v[k] >= 0 && cnt.v[k] <= 1e12)) {
			snprintf(err, n, "/contacts/count[%ld] is %g, not a count", k, cnt.v[k]);
			goto out;
		}
		c->off[k + 1] = c->off[k] + (long)cnt.v[k];
	}
	long R = c->off[ns];
	/* the nonsmooth model writes impulses where the smooth one writes
	 * forces: the normal forces when they are there, else the impulses */
	static const char *const force[2][2] = {
		{ "/contacts/normal_force", "/contacts/friction_force" },
		{ "/contacts/normal_impulse", "/contacts/friction_impulse" } };
	c->impulse = h5r_read(f, force[0][0], &d[2], e, sizeof e) != 0;
	if (xc_need(f, "/contacts/point", R, 3, &d[0], err, n) ||
	    xc_need(f, "/contacts/normal", R, 3, &d[1], err, n) ||
	    (c->impulse ? xc_need(f, force[1][0], R, 1, &d[2], err, n)
			: xc_shape(force[0][0], &d[2], R, 1, err, n)) ||
	    xc_need(f, force[c->impulse][1], R, 3, &d[3], err, n) ||
	    xc_need(f, "/contacts/gap", R, 1, &d[4], err, n) ||
	    xc_need(f, "/contacts/sliding", R, 1, &d[5], err, n))
		goto out;
	/* the normal force as a vector: its size along the unit normal */
	c->v[0] = d[0].v;
	d[0].v = NULL;
	c->v[1] = xmalloc((size_t)(3 * R + 1) * sizeof(double));
	for (long i = 0; i < R; i++)
		for (int k = 0; k < 3; k++)
			c->v[1][3 * i + k] = d[2].v[i] * d[1].v[3 * i + k];
	c->v[2] = d[3].v;
	d[3].v = NULL;
	c->v[3] = d[4].v;
	d[4].v = NULL;
	c->v[4] = d[5].v;
	d[5].v = NULL;
	c->present = 1;
	rc = 0;
out:
	h5r_data_release(&cnt);
	for (int j = 0; j < 6; j++)
		h5r_data_release(&d[j]);
	if (rc)
		xc_release_data(c);
	return rc;
}

long xdmf_contacts_rows(const struct xdmf_contacts *c, long every, long nk)
{
	long R = 0;
	for (long k = 0; k < nk; k++)
		R += c->off[k * every + 1] - c->off[k * every];
	return R;
}

int xdmf_contacts_write(hid_t f, const struct xdmf_contacts *c, long every, long nk)
{
	if (!c->present)
		return 0;
	hsize_t R = (hsize_t)xdmf_contacts_rows(c, every, nk);
	int ok = 1;
	hid_t g = H5Gcreate2(f, "/contacts", H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
	ok &= g >= 0;
	double *buf = xmalloc((size_t)(3 * R + 1) * sizeof(double));
	for (int j = 0; ok && j < XC_NSER; j++) {
		int cols = j < 3 ? 3 : 1;
		hsize_t dims[2] = { R, (hsize_t)cols };
		double *p = buf;
		for (long k = 0; k < nk; k++) {
			long s = k * every, m = c->off[s + 1] - c->off[s];
			memcpy(p, c->v[j] + (size_t)cols * (size_t)c->off[s],
			       (size_t)(cols * m) * sizeof(double));
			p += cols * m;
		}
		hid_t sp = H5Screate_simple(cols == 3 ? 2 : 1, dims, NULL);
		hid_t d = H5Dcreate2(g, xc_name[j], H5T_NATIVE_DOUBLE, sp, H5P_DEFAULT, H5P_DEFAULT,
				     H5P_DEFAULT);
		ok &= d >= 0 && (R == 0 || H5Dwrite(d, H5T_NATIVE_DOUBLE, H5S_ALL, H5S_ALL,
						    H5P_DEFAULT, buf) >= 0);
		if (d >= 0)
			H5Dclose(d);
		H5Sclose(sp);
	}
	free(buf);
	if (g >= 0)
		H5Gclose(g);
	return ok ? 0 : -1;
}

/* <DataItem> of the rows [r0, r0 + m) of /contacts/NAME (R rows) */
static void xc_slab(FILE *f, const char *dat, const char *name, long r0, long m, long R, int cols)
{
	if (cols > 1)
		fprintf(f, "     <DataItem ItemType=\"HyperSlab\" Dimensions=\"%ld %d\" Type=\"HyperSlab\">\n"
			"      <DataItem Dimensions=\"3 2\" Format=\"XML\">%ld 0 1 1 %ld %d</DataItem>\n"
			"      <DataItem Dimensions=\"%ld %d\" NumberType=\"Float\" Precision=\"8\" "
			"Format=\"HDF\">", m, cols, r0, m, cols, R, cols);
	else
		fprintf(f, "     <DataItem ItemType=\"HyperSlab\" Dimensions=\"%ld\" Type=\"HyperSlab\">\n"
			"      <DataItem Dimensions=\"3 1\" Format=\"XML\">%ld 1 %ld</DataItem>\n"
			"      <DataItem Dimensions=\"%ld\" NumberType=\"Float\" Precision=\"8\" "
			"Format=\"HDF\">", m, r0, m, R);
	xdmf_xml_str(f, dat);
	fprintf(f, ":/contacts/%s</DataItem>\n     </DataItem>\n", name);
}

void xdmf_contacts_xml(FILE *f, const char *dat, const struct xdmf_contacts *c, const double *t,
		       long every, long nk)
{
	if (!c->present)
		return;
	static const char *const attr[2][XC_NSER] = {
		{ NULL, "normal_force", "friction_force", "gap", "sliding" },
		{ NULL, "normal_impulse", "friction_impulse", "gap", "sliding" } };
	long R = xdmf_contacts_rows(c, every, nk), r0 = 0;
	fprintf(f, "  <Grid Name=\"contacts\" GridType=\"Collection\" CollectionType=\"Temporal\">\n");
	for (long k = 0; k < nk; k++) {
		long s = k * every, m = c->off[s + 1] - c->off[s];
		if (m == 0)	/* no grid: the reader gives no block at that time */
			continue;
		fprintf(f, "   <Grid Name=\"contacts %ld\" GridType=\"Uniform\">\n"
			"    <Time Value=\"%.17g\"/>\n"
			"    <Topology TopologyType=\"Polyvertex\" NumberOfElements=\"%ld\" "
			"NodesPerElement=\"1\"/>\n"
			"    <Geometry GeometryType=\"XYZ\">\n", s, t[s], m);
		xc_slab(f, dat, xc_name[0], r0, m, R, 3);
		fprintf(f, "    </Geometry>\n");
		for (int j = 1; j < XC_NSER; j++) {
			fprintf(f, "    <Attribute Name=\"%s\" AttributeType=\"%s\" Center=\"Node\">\n",
				attr[c->impulse][j], j < 3 ? "Vector" : "Scalar");
			xc_slab(f, dat, xc_name[j], r0, m, R, j < 3 ? 3 : 1);
			fprintf(f, "    </Attribute>\n");
		}
		fprintf(f, "   </Grid>\n");
		r0 += m;
	}
	fprintf(f, "  </Grid>\n");
}
