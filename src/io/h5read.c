/* h5read.c - HDF5 reader (h5read.h). */
#include "h5read.h"
#include "../util/xalloc.h"

#include <hdf5.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct h5in {
	hid_t file;
};

struct h5in *h5r_open(const char *path, char *err, size_t errlen)
{
	H5Eset_auto2(H5E_DEFAULT, NULL, NULL);
	if (H5Fis_hdf5(path) <= 0) {
		snprintf(err, errlen, "cannot read '%s': not an HDF5 file or not readable", path);
		return NULL;
	}
	hid_t f = H5Fopen(path, H5F_ACC_RDONLY, H5P_DEFAULT);
	if (f < 0) {
		snprintf(err, errlen, "cannot open HDF5 file '%s'", path);
		return NULL;
	}
	struct h5in *h = xcalloc(1, sizeof(*h));
	h->file = f;
	return h;
}

void h5r_close(struct h5in **ph)
{
	if (!*ph)
		return;
	H5Fclose((*ph)->file);
	free(*ph);
	*ph = NULL;
}

/* H5Lexists on every prefix: it fails on a missing intermediate group. */
static int link_exists(hid_t file, const char *path)
{
	char buf[1024];
	snprintf(buf, sizeof buf, "%s", path);
	for (char *p = buf + 1; *p; p++) {
		if (*p != '/')
			continue;
		*p = 0;
		if (H5Lexists(file, buf, H5P_DEFAULT) <= 0)
			return 0;
		*p = '/';
	}
	return H5Lexists(file, buf, H5P_DEFAULT) > 0;
}

/* 1 if a dataset exists at path, 0 otherwise. */
static int h5r_exists(struct h5in *f, const char *path)
{
	if (!path[0] || strcmp(path, "/") == 0 || !link_exists(f->file, path))
		return 0;
	H5O_info_t info;
	if (H5Oget_info_by_name(f->file, path, &info, H5P_DEFAULT) < 0)
		return 0;
	return info.type == H5O_TYPE_DATASET;
}

int h5r_read(struct h5in *f, const char *path, struct h5r_data *d, char *err, size_t errlen)
{
	memset(d, 0, sizeof(*d));
	if (!h5r_exists(f, path)) {
		snprintf(err, errlen, "no dataset '%s'", path);
		return -1;
	}
	hid_t ds = H5Dopen2(f->file, path, H5P_DEFAULT);
	if (ds < 0) {
		snprintf(err, errlen, "cannot open dataset '%s'", path);
		return -1;
	}
	int rc = -1;
	hid_t ty = H5Dget_type(ds), sp = H5Dget_space(ds);
	H5T_class_t cl = H5Tget_class(ty);
	int nd = H5Sget_simple_extent_ndims(sp);
	hsize_t dims[2] = { 0, 1 }, fsize = 0;
	size_t tsize = H5Tget_size(ty);
	if (cl != H5T_FLOAT && cl != H5T_INTEGER) {
		snprintf(err, errlen, "dataset '%s' is not numeric", path);
	} else if (tsize == 0 || tsize > 8 || (tsize & (tsize - 1))) {
		/* a damaged header claimed 4294967288-byte numbers, and
		 * H5Dread's conversion buffer asked for 4 GB */
		snprintf(err, errlen, "dataset '%s' has numbers of %zu bytes (1, 2, 4 or 8 expected)",
			 path, tsize);
	} else if (nd < 1 || nd > 2) {
		snprintf(err, errlen, "dataset '%s' has %d dimensions (1 or 2 expected)", path, nd);
	} else if (H5Sget_simple_extent_dims(sp, dims, NULL) < 0 || H5Fget_filesize(f->file, &fsize) < 0 ||
		   dims[1] > INT_MAX || (dims[1] && dims[0] > (fsize + 4096) / dims[1])) {
		/* mbsim writes no compressed datasets: one stored byte (at
		 * least) per value, so a bigger extent is a damaged header */
		snprintf(err, errlen, "dataset '%s' claims more values than the file can hold", path);
	} else {
		d->rows = (long)dims[0];
		d->cols = nd == 2 ? (int)dims[1] : 1;
		d->ndims = nd;
		d->v = xmalloc(((size_t)d->rows * (size_t)d->cols + 1) * sizeof(double));
		if (d->rows * d->cols == 0 ||
		    H5Dread(ds, H5T_NATIVE_DOUBLE, H5S_ALL, H5S_ALL, H5P_DEFAULT, d->v) >= 0) {
			rc = 0;
		} else {
			snprintf(err, errlen, "cannot read dataset '%s'", path);
			h5r_data_release(d);
		}
	}
	H5Sclose(sp);
	H5Tclose(ty);
	H5Dclose(ds);
	return rc;
}

void h5r_data_release(struct h5r_data *d)
{
	free(d->v);
	memset(d, 0, sizeof(*d));
}

struct list {
	char **names;
	int n, cap;
	const char *prefix;
};

static herr_t visit(hid_t obj, const char *name, const H5O_info_t *info, void *op)
{
	struct list *l = op;
	if (info->type != H5O_TYPE_DATASET)
		return 0;
	if (l->n == l->cap) {
		l->cap = l->cap ? 2 * l->cap : 32;
		l->names = xrealloc(l->names, (size_t)l->cap * sizeof(char *));
	}
	const char *sep = l->prefix[strlen(l->prefix) - 1] == '/' ? "" : "/";
	l->names[l->n++] = xasprintf("%s%s%s", l->prefix, sep, name);
	return 0;
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

int h5r_list(struct h5in *f, const char *group, char ***names)
{
	struct list l = { NULL, 0, 0, group };
	*names = NULL;
	if (strcmp(group, "/") != 0 && !link_exists(f->file, group))
		return 0;
	hid_t g = H5Oopen(f->file, group, H5P_DEFAULT);
	if (g < 0)
		return 0;
	H5Ovisit(g, H5_INDEX_NAME, H5_ITER_INC, visit, &l);
	H5Oclose(g);
	if (l.n > 1)
		qsort(l.names, (size_t)l.n, sizeof(char *), cmp_str);
	*names = l.names;
	return l.n;
}

void h5r_list_free(char ***names, int n)
{
	for (int i = 0; i < n; i++)
		free((*names)[i]);
	free(*names);
	*names = NULL;
}

int h5r_attr_str(struct h5in *f, const char *path, const char *name, char *buf, size_t n)
{
	if (n == 0)
		return -1;
	buf[0] = 0;
	if (H5Aexists_by_name(f->file, path, name, H5P_DEFAULT) <= 0)
		return -1;
	hid_t a = H5Aopen_by_name(f->file, path, name, H5P_DEFAULT, H5P_DEFAULT);
	if (a < 0)
		return -1;
	int rc = -1;
	hid_t ty = H5Aget_type(a);
	if (H5Tget_class(ty) == H5T_STRING) {
		if (H5Tis_variable_str(ty) > 0) {
			char *s = NULL;
			hid_t mt = H5Tcopy(H5T_C_S1);
			H5Tset_size(mt, H5T_VARIABLE);
			if (H5Aread(a, mt, &s) >= 0 && s) {
				snprintf(buf, n, "%s", s);
				H5free_memory(s);
				rc = 0;
			}
			H5Tclose(mt);
		} else {
			size_t sz = H5Tget_size(ty);
			char *s = xcalloc(sz + 1, 1);
			if (H5Aread(a, ty, s) >= 0) {
				snprintf(buf, n, "%s", s);
				rc = 0;
			}
			free(s);
		}
	}
	H5Tclose(ty);
	H5Aclose(a);
	return rc;
}

long h5r_match_times(const double *ta, long na, const double *tb, long nb, long *ia, long *ib)
{
	long i = 0, j = 0, k = 0;
	while (i < na && j < nb) {
		double tol = 1e-9 * fmax(1.0, fabs(ta[i]));
		if (fabs(ta[i] - tb[j]) <= tol) {
			ia[k] = i++;
			ib[k++] = j++;
		} else if (ta[i] < tb[j]) {
			i++;
		} else {
			j++;
		}
	}
	return k;
}
