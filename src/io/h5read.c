/* h5read.c - HDF5 reader (h5read.h). */
#include "h5read.h"
#include "../util/file.h"
#include "../util/xalloc.h"

#include <hdf5.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <errno.h>
#include <sys/stat.h>

struct h5in {
	hid_t file;
	/* the names table read last (logical names, see h5read.h) */
	char *tab_path, *tab;
	size_t tab_w;
	long tab_n;
	long *tab_order;	/* entries sorted by name (table_find) */
	/* the block of the series read last that logical names take
	 * their slices from: its entries [blk0, blk1) along the second
	 * axis (all of them when the series is small), with the path of
	 * its names table and its offsets (or NULL) */
	char *ds_path, *ds_table;
	struct h5r_data whole, ds_off;
	long ds_d1, ds_d2, blk0, blk1;
	int ds_nd;
};

/* Little-endian unsigned integer of n bytes at p. */
static unsigned long long le(const unsigned char *p, int n)
{
	unsigned long long v = 0;
	for (int i = n - 1; i >= 0; i--)
		v = v << 8 | p[i];
	return v;
}

/* The end of file the superblock of the HDF5 file f (of size bytes)
 * records, which the library compares with the file's size (H5Fsuper.c:
 * "truncated file"); 0 when no superblock is found.  The
 * superblock is at 0, 512, 1024, 2048 ... (after a user block); its
 * format (HDF5 File Format Specification, part II.A): version 0 or 1 has
 * 16 (v0) or 20 (v1) bytes, then the base, free-space, end-of-file
 * addresses; version 2 or 3 has 12 bytes, then the base, extension,
 * end-of-file addresses.  Sizes of offsets at byte 13 (v0, v1) or 9. */
static unsigned long long stored_eof(FILE *f, unsigned long long size)
{
	static const unsigned char sig[8] = { 0x89, 'H', 'D', 'F', '\r', '\n', 0x1a, '\n' };
	unsigned char b[64];
	for (unsigned long long at = 0; at + sizeof b <= size; at = at ? 2 * at : 512) {
		if (fseek(f, (long)at, SEEK_SET) != 0 || fread(b, 1, sizeof b, f) != sizeof b)
			return 0;
		if (memcmp(b, sig, 8) != 0)
			continue;
		int v = b[8], o = v < 2 ? b[13] : b[9], at0 = v == 0 ? 24 : v == 1 ? 28 : 12;
		if (v > 3 || (o != 2 && o != 4 && o != 8) || at0 + 3 * o > (int)sizeof b)
			return 0;
		return le(b + at0 + 2 * o, o);
	}
	return 0;
}

struct h5in *h5r_open(const char *path, char *err, size_t errlen)
{
	/* before the library starts (this may be the process's first HDF5
	 * call: run's check of an existing output): no clean-up at exit,
	 * which crashed after a failed write (h5.c, h5_create) */
	H5dont_atexit();
	H5Eset_auto2(H5E_DEFAULT, NULL, NULL);
	/* before the library opens it: a FIFO would block open(2) until a
	 * writer came, a device might never end */
	struct stat st;
	const char *kind = NULL;
	if (stat(path, &st) != 0) {
		snprintf(err, errlen, "cannot read '%s': %s", path, strerror(errno));
		return NULL;
	}
	if ((kind = file_not_regular(&st))) {
		snprintf(err, errlen, "cannot read '%s': it is %s, not an HDF5 file", path, kind);
		return NULL;
	}
	if (H5Fis_hdf5(path) <= 0) {
		snprintf(err, errlen, "cannot read '%s': not an HDF5 file or not readable", path);
		return NULL;
	}
	/* the library's own test of a truncated file, made before it is
	 * asked: its failed H5Fopen loses memory (a LeakSanitizer report
	 * under make asan, which made run -o over a truncated output exit 1) */
	FILE *fp = fopen(path, "rb");
	unsigned long long eof = fp ? stored_eof(fp, (unsigned long long)st.st_size) : 0;
	if (fp)
		fclose(fp);
	if (eof > (unsigned long long)st.st_size) {
		snprintf(err, errlen, "cannot read '%s': truncated (%lld bytes, its superblock says "
			 "%llu)", path, (long long)st.st_size, eof);
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
	free((*ph)->tab_path);
	free((*ph)->tab);
	free((*ph)->tab_order);
	free((*ph)->ds_path);
	free((*ph)->ds_table);
	h5r_data_release(&(*ph)->whole);
	h5r_data_release(&(*ph)->ds_off);
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

/* The open attribute a, a scalar string of either kind (mbsim writes
 * variable-length ones, files of before 2026-12 and h5py's np.bytes_
 * fixed-length ones), as a malloc'd string of at most max bytes; NULL
 * when it is not such a string. */
static char *attr_text(hid_t a, size_t max)
{
	char *s = NULL;
	hid_t ty = H5Aget_type(a), sp = H5Aget_space(a);
	if (H5Tget_class(ty) == H5T_STRING && H5Sget_simple_extent_npoints(sp) == 1) {
		if (H5Tis_variable_str(ty) > 0) {
			char *v = NULL;
			hid_t mt = H5Tcopy(H5T_C_S1);
			H5Tset_size(mt, H5T_VARIABLE);
			H5Tset_cset(mt, H5Tget_cset(ty));	/* HDF5 converts no charsets */
			if (H5Aread(a, mt, &v) >= 0 && v) {
				s = xasprintf("%.*s", (int)(max < 65536 ? max : 65536), v);
				H5free_memory(v);
			}
			H5Tclose(mt);
		} else {
			size_t sz = H5Tget_size(ty);
			if (sz > 0 && sz <= max) {
				s = xcalloc(sz + 1, 1);
				if (H5Aread(a, ty, s) < 0) {
					free(s);
					s = NULL;
				}
			}
		}
	}
	H5Sclose(sp);
	H5Tclose(ty);
	return s;
}

/* The string attribute name of dataset ds into a malloc'd string, or NULL. */
static char *attr_of(hid_t ds, const char *name)
{
	if (H5Aexists(ds, name) <= 0)
		return NULL;
	hid_t a = H5Aopen(ds, name, H5P_DEFAULT);
	if (a < 0)
		return NULL;
	char *s = attr_text(a, 4095);
	H5Aclose(a);
	return s;
}

/* The cached table's entries sorted by name, ties by index (qsort has
 * no context argument: the table is passed through sort_tab). */
static const struct h5in *sort_tab;

static int entry_cmp(const void *a, const void *b)
{
	long i = *(const long *)a, j = *(const long *)b;
	int c = strncmp(sort_tab->tab + (size_t)i * sort_tab->tab_w,
			sort_tab->tab + (size_t)j * sort_tab->tab_w, sort_tab->tab_w);
	return c ? c : (i > j) - (i < j);
}

static void sort_table(struct h5in *f)
{
	f->tab_order = xmalloc(((size_t)f->tab_n + 1) * sizeof(long));
	for (long i = 0; i < f->tab_n; i++)
		f->tab_order[i] = i;
	sort_tab = f;
	qsort(f->tab_order, (size_t)f->tab_n, sizeof(long), entry_cmp);
	sort_tab = NULL;
}

/* Index of name in the cached table (the first, if repeated), or -1:
 * binary search of the sorted entries. */
static long table_find(const struct h5in *f, const char *name)
{
	/* strncmp over the entry's width: an entry is NUL-padded, so a
	 * shorter name equals it when the entry's next byte is NUL */
	if (strlen(name) > f->tab_w)
		return -1;
	long lo = 0, hi = f->tab_n;
	while (lo < hi) {
		long mid = lo + (hi - lo) / 2;
		if (strncmp(f->tab + (size_t)f->tab_order[mid] * f->tab_w, name, f->tab_w) < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo < f->tab_n && strncmp(f->tab + (size_t)f->tab_order[lo] * f->tab_w, name, f->tab_w) == 0)
		return f->tab_order[lo];
	return -1;
}

/* 0 if the chunks of dataset ds (if chunked) fit its dataspace: every
 * chunk dimension at least 1 and, along a dimension of fixed size, at
 * most that size (HDF5 refuses others when a file is written), and a
 * chunk of at most 256 MB (mbsim writes ~64 kB-1 MB).  libhdf5 1.10.8
 * read past its buffers (SIGSEGV in H5VM_memcpyvv) for a damaged header
 * that gave a (N, 4, 3) dataset chunks of (11, 2052, 3). */
static int chunks_ok(hid_t ds, hid_t sp, size_t tsize)
{
	hid_t pl = H5Dget_create_plist(ds);
	int rc = 0;
	if (pl >= 0 && H5Pget_layout(pl) == H5D_CHUNKED) {
		hsize_t c[H5S_MAX_RANK], dims[H5S_MAX_RANK], maxd[H5S_MAX_RANK];
		int nd = H5Sget_simple_extent_ndims(sp), nc = H5Pget_chunk(pl, H5S_MAX_RANK, c);
		double bytes = (double)tsize;
		if (nd < 0 || nc != nd || H5Sget_simple_extent_dims(sp, dims, maxd) < 0)
			rc = -1;
		for (int i = 0; rc == 0 && i < nd; i++) {
			bytes *= (double)c[i];
			if (c[i] == 0 || (maxd[i] != H5S_UNLIMITED && c[i] > (maxd[i] ? maxd[i] : 1)))
				rc = -1;
		}
		if (bytes > 256.0 * 1024 * 1024)
			rc = -1;
	}
	if (pl >= 0)
		H5Pclose(pl);
	return rc;
}

/* Load the names table at path (1-D fixed-length strings) into f's cache.
 * 0, or -1 with a message. */
static int load_table(struct h5in *f, const char *path, char *err, size_t errlen)
{
	if (f->tab_path && strcmp(f->tab_path, path) == 0)
		return 0;
	free(f->tab_path);
	free(f->tab);
	free(f->tab_order);
	f->tab_path = f->tab = NULL;
	f->tab_order = NULL;
	hid_t ds = h5r_exists(f, path) ? H5Dopen2(f->file, path, H5P_DEFAULT) : -1;
	if (ds < 0) {
		snprintf(err, errlen, "no names table '%s'", path);
		return -1;
	}
	hid_t ty = H5Dget_type(ds), sp = H5Dget_space(ds);
	hsize_t n = 0, fsize = 0;
	size_t w = H5Tget_size(ty);
	int rc = -1;
	if (H5Tget_class(ty) != H5T_STRING || H5Tis_variable_str(ty) > 0 || w == 0 ||
	    H5Sget_simple_extent_ndims(sp) != 1 || H5Sget_simple_extent_dims(sp, &n, NULL) < 0 ||
	    chunks_ok(ds, sp, w) ||
	    H5Fget_filesize(f->file, &fsize) < 0 || n > (fsize + 4096) / w) {
		snprintf(err, errlen, "'%s' is not a table of fixed-length strings", path);
	} else {
		char *tab = xcalloc((size_t)n * w + 1, 1);
		if (n == 0 || H5Dread(ds, ty, H5S_ALL, H5S_ALL, H5P_DEFAULT, tab) >= 0) {
			f->tab_path = xstrdup(path);
			f->tab = tab;
			f->tab_w = w;
			f->tab_n = (long)n;
			sort_table(f);
			rc = 0;
		} else {
			free(tab);
			snprintf(err, errlen, "cannot read '%s'", path);
		}
	}
	H5Sclose(sp);
	H5Tclose(ty);
	H5Dclose(ds);
	return rc;
}

/* The columns [*c0, *c1) of name k in the offsets table o. */
static int offsets_in(const struct h5r_data *o, long k, hsize_t ncols, hsize_t *c0, hsize_t *c1)
{
	if (!(o->ndims == 1 && k + 1 < o->rows && o->v[k] >= 0 && o->v[k] <= o->v[k + 1] &&
	      o->v[k + 1] <= (double)ncols))
		return -1;
	*c0 = (hsize_t)o->v[k];
	*c1 = (hsize_t)o->v[k + 1];
	return 0;
}

static int read_ds(struct h5in *f, hid_t ds, const char *path, long k, hsize_t c0, hsize_t c1,
		   struct h5r_data *d, char *err, size_t errlen);

/* The offsets table at path into o: the dataset there, read directly.
 * Not by h5r_read, which tries the logical name first: an offsets
 * attribute of /G/QTY naming /G/NAME/QTY, with a dataset there as well,
 * made it read the offsets of /G/QTY again, until the stack overflowed. */
static int offsets_read(struct h5in *f, const char *path, struct h5r_data *o)
{
	char err[64];
	memset(o, 0, sizeof(*o));
	hid_t ds = h5r_exists(f, path) ? H5Dopen2(f->file, path, H5P_DEFAULT) : -1;
	if (ds < 0)
		return -1;
	int rc = read_ds(f, ds, path, -1, 0, 0, o, err, sizeof err);
	H5Dclose(ds);
	return rc;
}

/* Read dataset ds (opened from path) whole, or (k >= 0) the slice of
 * entry k of its second axis: columns [c0, c1) of a 2-D dataset when
 * c1 > 0 (an offsets table), else [:, k] or [:, k, :]. */
static int read_ds(struct h5in *f, hid_t ds, const char *path, long k, hsize_t c0, hsize_t c1,
		   struct h5r_data *d, char *err, size_t errlen)
{
	int rc = -1;
	hid_t ty = H5Dget_type(ds), sp = H5Dget_space(ds), pl = H5Dget_create_plist(ds);
	H5T_class_t cl = H5Tget_class(ty);
	int nd = H5Sget_simple_extent_ndims(sp);
	hsize_t dims[3] = { 0, 1, 1 }, fsize = 0;
	size_t tsize = H5Tget_size(ty);
	/* one stored byte (at least) per value, or 1/1032 with deflate (its
	 * largest ratio): a bigger extent is a damaged header */
	hsize_t ratio = pl >= 0 && H5Pget_nfilters(pl) > 0 ? 1032 : 1;
	if (cl != H5T_FLOAT && cl != H5T_INTEGER) {
		snprintf(err, errlen, "dataset '%s' is not numeric", path);
	} else if (tsize == 0 || tsize > 8 || (tsize & (tsize - 1))) {
		/* a damaged header claimed 4294967288-byte numbers, and
		 * H5Dread's conversion buffer asked for 4 GB */
		snprintf(err, errlen, "dataset '%s' has numbers of %zu bytes (1, 2, 4 or 8 expected)",
			 path, tsize);
	} else if (chunks_ok(ds, sp, tsize)) {
		snprintf(err, errlen, "dataset '%s' has chunks that do not fit it (a damaged header)",
			 path);
	} else if (nd < 1 || nd > 3 || (k >= 0 && nd < 2)) {
		snprintf(err, errlen, "dataset '%s' has %d dimensions (%s expected)", path, nd,
			 k >= 0 ? "2 or 3" : "1 to 3");
	} else if (H5Sget_simple_extent_dims(sp, dims, NULL) < 0 || H5Fget_filesize(f->file, &fsize) < 0 ||
		   dims[1] > INT_MAX || dims[2] > INT_MAX || dims[1] * dims[2] > INT_MAX ||
		   (dims[1] * dims[2] > 0 && dims[0] > (fsize + 4096) * ratio / (dims[1] * dims[2]))) {
		snprintf(err, errlen, "dataset '%s' claims more values than the file can hold", path);
	} else if (k >= 0 && c1 == 0 && (hsize_t)k >= dims[1]) {
		snprintf(err, errlen, "dataset '%s' has %llu entries, not %ld", path,
			 (unsigned long long)dims[1], k + 1);
	} else {
		hsize_t start[3] = { 0, 0, 0 }, count[3] = { dims[0], dims[1], dims[2] };
		if (k >= 0 && c1 > 0) {
			start[1] = c0;
			count[1] = c1 - c0;
		} else if (k >= 0) {
			start[1] = (hsize_t)k;
			count[1] = 1;
		}
		d->rows = (long)dims[0];
		d->cols = (int)(nd == 1 ? 1 : count[1] * (nd == 3 ? count[2] : 1));
		d->ndims = nd == 1 || (k >= 0 && c1 == 0 && nd == 2) ? 1 : 2;
		d->v = xmalloc(((size_t)d->rows * (size_t)d->cols + 1) * sizeof(double));
		hid_t ms = -1;
		if (k >= 0 && d->rows * d->cols > 0) {
			H5Sselect_hyperslab(sp, H5S_SELECT_SET, start, NULL, count, NULL);
			hsize_t mn = (hsize_t)d->rows * (hsize_t)d->cols;
			ms = H5Screate_simple(1, &mn, NULL);
		}
		if (d->rows * d->cols == 0 ||
		    H5Dread(ds, H5T_NATIVE_DOUBLE, ms >= 0 ? ms : H5S_ALL, ms >= 0 ? sp : H5S_ALL,
			    H5P_DEFAULT, d->v) >= 0) {
			rc = 0;
		} else {
			snprintf(err, errlen, "cannot read dataset '%s'", path);
			h5r_data_release(d);
		}
		if (ms >= 0)
			H5Sclose(ms);
	}
	if (pl >= 0)
		H5Pclose(pl);
	H5Sclose(sp);
	H5Tclose(ty);
	return rc;
}

/* The slices of a series are taken from a block of its entries read at
 * once: all of them when the series holds up to H5R_BLOCK_MAX bytes, else
 * as many consecutive entries as fit in that size.  compare and converge
 * read every body's slice in turn (h5r_read_order: series by series, each
 * in the order of its names table), so each block is read once and the
 * readers are linear in the size of the file; reading each slice from the
 * file touched every chunk of the series again (quadratic in the bodies:
 * 10^4 bodies took 20 s). */
#ifndef H5R_BLOCK_MAX	/* (-D to check the blocks: 20 kB gave the same compare output) */
#define H5R_BLOCK_MAX (64.0 * 1024 * 1024)
#endif

static int cut(struct h5in *f, const char *path, long k, hsize_t c0, hsize_t c1,
	       struct h5r_data *d, char *err, size_t errlen);

/* 1 when entry k (columns [c0, c1) when c1 > 0) lies in the block kept. */
static int in_block(const struct h5in *f, long k, hsize_t c0, hsize_t c1)
{
	long a = c1 > 0 ? (long)c0 : k, b = c1 > 0 ? (long)c1 : k + 1;
	return f->whole.v && f->blk0 <= a && b <= f->blk1;
}

/* Entry k (columns [c0, c1) when c1 > 0) of the series ds at path, whose
 * names table is table and offsets off (NULL when none): read with the
 * block of entries around it, kept with them (f->ds_*). */
static int slice(struct h5in *f, hid_t ds, const char *path, const char *table,
		 struct h5r_data *off, long k, hsize_t c0, hsize_t c1, struct h5r_data *d,
		 char *err, size_t errlen)
{
	hid_t sp = H5Dget_space(ds);
	int nd = H5Sget_simple_extent_ndims(sp);
	hsize_t dims[3] = { 0, 1, 1 };
	int bad = nd < 2 || nd > 3 || H5Sget_simple_extent_dims(sp, dims, NULL) < 0;
	H5Sclose(sp);
	long a = c1 > 0 ? (long)c0 : k, b = c1 > 0 ? (long)c1 : k + 1;
	if (bad || (hsize_t)b > dims[1])
		return read_ds(f, ds, path, k, c0, c1, d, err, errlen);
	/* entries of the block: at least the one asked for */
	double per = 8.0 * (double)dims[0] * (double)dims[2];
	long n = per > 0 ? (long)fmin((double)dims[1], floor(H5R_BLOCK_MAX / per)) : (long)dims[1];
	long b0 = n >= (long)dims[1] ? 0 : a, b1 = n >= (long)dims[1] ? (long)dims[1] : a + n;
	if (b1 < b)
		b1 = b;
	if (b1 > (long)dims[1])
		b1 = (long)dims[1];
	free(f->ds_path);
	free(f->ds_table);
	f->ds_path = f->ds_table = NULL;
	h5r_data_release(&f->whole);
	h5r_data_release(&f->ds_off);
	int rc = b0 == 0 && b1 == (long)dims[1] ?
		 read_ds(f, ds, path, -1, 0, 0, &f->whole, err, errlen) :
		 read_ds(f, ds, path, b0, (hsize_t)b0, (hsize_t)b1, &f->whole, err, errlen);
	if (rc)
		return -1;
	f->ds_path = xstrdup(path);
	f->ds_table = xstrdup(table);
	if (off) {
		f->ds_off = *off;	/* taken over */
		memset(off, 0, sizeof(*off));
	}
	f->ds_d1 = (long)dims[1];
	f->ds_d2 = (long)dims[2];
	f->ds_nd = nd;
	f->blk0 = b0;
	f->blk1 = b1;
	return cut(f, path, k, c0, c1, d, err, errlen);
}

/* Entry k (columns [c0, c1) when c1 > 0) of the block kept. */
static int cut(struct h5in *f, const char *path, long k, hsize_t c0, hsize_t c1,
	       struct h5r_data *d, char *err, size_t errlen)
{
	const struct h5r_data *w = &f->whole;
	long d2 = f->ds_d2;
	if ((long)w->cols != (f->blk1 - f->blk0) * d2 || !in_block(f, k, c0, c1)) {
		snprintf(err, errlen, "dataset '%s' has %ld entries, not %ld", path, f->ds_d1,
			 (c1 > 0 ? (long)c1 : k + 1));
		return -1;
	}
	long from = ((c1 > 0 ? (long)c0 : k) - f->blk0) * d2;
	long n = c1 > 0 ? (long)(c1 - c0) * d2 : d2;
	d->rows = w->rows;
	d->cols = (int)n;
	d->ndims = c1 == 0 && f->ds_nd == 2 ? 1 : 2;
	d->v = xmalloc(((size_t)d->rows * (size_t)n + 1) * sizeof(double));
	for (long r = 0; r < d->rows; r++)
		memcpy(d->v + (size_t)r * (size_t)n, w->v + (size_t)r * (size_t)w->cols + (size_t)from,
		       (size_t)n * sizeof(double));
	return 0;
}

/* /GROUP/NAME/QTY -> the series /GROUP/QTY (qpath) and NAME; 0, or -1
 * when path has no such form. */
static int split_logical(const char *path, char *qpath, char *name)
{
	const char *g = path + (path[0] == '/'), *s1 = strchr(g, '/'), *s2 = strrchr(g, '/');
	if (!s1 || s1 == s2 || s1 == g || !s2[1] || strlen(path) > 900)
		return -1;
	snprintf(qpath, 1024, "/%.*s/%s", (int)(s1 - g), g, s2 + 1);
	snprintf(name, 1024, "%.*s", (int)(s2 - s1 - 1), s1 + 1);
	return 0;
}

/* The slice of the block kept, when qpath is its series and NAME's
 * columns are in it: 0 or -1 (err set), or -2 to read from the file. */
static int read_kept(struct h5in *f, const char *path, const char *qpath, const char *name,
		     struct h5r_data *d, char *err, size_t errlen)
{
	long k;
	hsize_t c0 = 0, c1 = 0;
	if (!f->ds_path || strcmp(f->ds_path, qpath) != 0)
		return -2;
	if (load_table(f, f->ds_table, err, errlen))
		return -1;
	if ((k = table_find(f, name)) < 0) {
		snprintf(err, errlen, "no dataset '%s' ('%s' is not in %s)", path, name,
			 f->ds_table);
		return -1;
	}
	if (f->ds_off.v && (offsets_in(&f->ds_off, k, (hsize_t)f->ds_d1, &c0, &c1) || c1 == c0)) {
		snprintf(err, errlen, "no columns of '%s' in '%s' (its offsets table)", name, qpath);
		return -1;
	}
	return in_block(f, k, c0, c1) ? cut(f, qpath, k, c0, c1, d, err, errlen) : -2;
}

/* Logical name /GROUP/NAME/QTY: the slice of NAME in /GROUP/QTY, whose
 * attribute "names" is the path of the names table of its second axis;
 * -2 when path is no such name (no /GROUP/QTY with a names table). */
static int read_logical(struct h5in *f, const char *path, struct h5r_data *d, char *err,
			size_t errlen)
{
	char qpath[1024], name[1024];
	if (split_logical(path, qpath, name))
		return -2;
	int rc = read_kept(f, path, qpath, name, d, err, errlen);
	if (rc != -2)
		return rc;
	long k;
	hsize_t c0 = 0, c1 = 0;
	hid_t ds = h5r_exists(f, qpath) ? H5Dopen2(f->file, qpath, H5P_DEFAULT) : -1;
	char *table = ds >= 0 ? attr_of(ds, "names") : NULL;
	rc = -1;
	if (!table) {
		rc = -2;
	} else if (load_table(f, table, err, errlen)) {
		/* err set */
	} else if ((k = table_find(f, name)) < 0) {
		snprintf(err, errlen, "no dataset '%s' ('%s' is not in %s)", path, name, table);
	} else {
		char *offpath = attr_of(ds, "offsets");
		struct h5r_data off;
		memset(&off, 0, sizeof off);
		hsize_t dims[3] = { 0, 0, 0 };
		hid_t sp = H5Dget_space(ds);
		H5Sget_simple_extent_dims(sp, dims, NULL);
		H5Sclose(sp);
		if (offpath && (offsets_read(f, offpath, &off) || offsets_in(&off, k, dims[1], &c0, &c1)))
			snprintf(err, errlen, "bad offsets table '%s' of '%s'", offpath, qpath);
		else if (offpath && c1 == c0)
			snprintf(err, errlen, "no dataset '%s' ('%s' has no columns in %s)", path,
				 name, qpath);
		else
			rc = slice(f, ds, qpath, table, offpath ? &off : NULL, k, c0, c1, d, err, errlen);
		h5r_data_release(&off);
		free(offpath);
	}
	free(table);
	if (ds >= 0)
		H5Dclose(ds);
	return rc;
}

int h5r_read(struct h5in *f, const char *path, struct h5r_data *d, char *err, size_t errlen)
{
	memset(d, 0, sizeof(*d));
	/* a logical name first: a file whose /GROUP/QTY has a names table
	 * has no groups per body (and the series read last is sliced
	 * without a look-up in the file) */
	int rc = read_logical(f, path, d, err, errlen);
	if (rc != -2)
		return rc;
	if (!h5r_exists(f, path)) {
		snprintf(err, errlen, "no dataset '%s'", path);
		return -1;
	}
	hid_t ds = H5Dopen2(f->file, path, H5P_DEFAULT);
	if (ds < 0) {
		snprintf(err, errlen, "cannot open dataset '%s'", path);
		return -1;
	}
	rc = read_ds(f, ds, path, -1, 0, 0, d, err, errlen);
	H5Dclose(ds);
	return rc;
}

int h5r_read_time(struct h5in *f, struct h5r_data *d, char *err, size_t errlen)
{
	if (h5r_read(f, "/time", d, err, errlen))
		return -1;
	if (d->cols != 1) {
		snprintf(err, errlen, "'/time' has %d values per row, not one time per sample",
			 d->cols);
		h5r_data_release(d);
		return -1;
	}
	/* the readers pair samples by time (h5r_match_times, which walks
	 * both series upwards) and index rows by the pairs: an infinite
	 * time matched every other (|inf - t| <= 1e-9 inf) and made indices
	 * past the rows */
	for (long i = 0; i < d->rows; i++) {
		if (!isfinite(d->v[i])) {
			snprintf(err, errlen, "'/time' holds %s at sample %ld (of %ld)",
				 isnan(d->v[i]) ? "NaN" : d->v[i] > 0 ? "+inf" : "-inf", i, d->rows);
		} else if (i > 0 && d->v[i] < d->v[i - 1]) {
			snprintf(err, errlen, "'/time' decreases at sample %ld: t = %.17g after %.17g",
				 i, d->v[i], d->v[i - 1]);
		} else {
			continue;
		}
		h5r_data_release(d);
		return -1;
	}
	return 0;
}

long h5r_common_samples(const struct h5r_data *t, int nf, long **idx)
{
	const struct h5r_data *tr = &t[nf - 1];
	long n = tr->rows;
	long *keep = xmalloc(((size_t)n + 1) * sizeof(long));
	double *tk = xmalloc(((size_t)n + 1) * sizeof(double));
	long *ia = xmalloc(((size_t)n + 1) * sizeof(long)), *ib = xmalloc(((size_t)n + 1) * sizeof(long));
	for (long j = 0; j < n; j++)
		keep[j] = j;
	/* the reference's samples that every file has */
	for (int i = 0; i < nf - 1; i++) {
		for (long j = 0; j < n; j++)
			tk[j] = tr->v[keep[j]];
		long m = h5r_match_times(tk, n, t[i].v, t[i].rows, ia, ib);
		for (long j = 0; j < m; j++)
			keep[j] = keep[ia[j]];
		n = m;
	}
	/* their rows in each file: matched again, each is found (the times
	 * are finite and ascending, h5r_read_time) */
	for (int i = 0; i < nf; i++) {
		idx[i] = xmalloc(((size_t)n + 1) * sizeof(long));
		for (long j = 0; j < n; j++)
			tk[j] = tr->v[keep[j]];
		long m = i == nf - 1 ? n : h5r_match_times(tk, n, t[i].v, t[i].rows, ia, ib);
		for (long j = 0; j < m; j++)
			idx[i][j] = i == nf - 1 ? keep[j] : ib[j];
		if (m < n)
			n = m;
	}
	free(keep);
	free(tk);
	free(ia);
	free(ib);
	return n;
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
	struct h5in *f;
};

static void add(struct list *l, char *name)
{
	if (l->n == l->cap) {
		l->cap = l->cap ? 2 * l->cap : 32;
		l->names = xrealloc(l->names, (size_t)l->cap * sizeof(char *));
	}
	l->names[l->n++] = name;
}

/* A dataset by its path, or with a names table by the logical names of
 * its slices; the tables (GROUP/names, GROUP/X_names, GROUP/X_offsets,
 * GROUP/X_units) are left out. */
static herr_t visit(hid_t obj, const char *name, const H5O_info_t *info, void *op)
{
	struct list *l = op;
	if (info->type != H5O_TYPE_DATASET)
		return 0;
	const char *sep = l->prefix[strlen(l->prefix) - 1] == '/' ? "" : "/";
	char *path = xasprintf("%s%s%s", l->prefix, sep, name);
	hid_t ds = H5Dopen2(obj, name, H5P_DEFAULT);
	char *table = ds >= 0 ? attr_of(ds, "names") : NULL;
	const char *base = strrchr(path, '/') + 1;
	size_t bl = strlen(base);
	int series = strcmp(base, "names") != 0 &&
		     !(bl >= 6 && strcmp(base + bl - 6, "_names") == 0) &&
		     !(bl >= 8 && strcmp(base + bl - 8, "_offsets") == 0) &&
		     !(bl >= 6 && strcmp(base + bl - 6, "_units") == 0);
	/* entries of its second axis: names past them have no data (a
	 * damaged table of thousands of names made compare list thousands
	 * of series that all failed) */
	hsize_t dims[3] = { 0, 0, 0 };
	if (ds >= 0) {
		hid_t sp = H5Dget_space(ds);
		if (sp < 0 || H5Sget_simple_extent_ndims(sp) < 2 || H5Sget_simple_extent_ndims(sp) > 3 ||
		    H5Sget_simple_extent_dims(sp, dims, NULL) < 0)
			dims[1] = 0;
		if (sp >= 0)
			H5Sclose(sp);
		H5Dclose(ds);
	}
	char err[256];
	if (table && load_table(l->f, table, err, sizeof err) == 0) {
		/* /G/QTY -> /G/NAME/QTY */
		char *slash = strrchr(path, '/');
		*slash = 0;
		for (long i = 0; i < l->f->tab_n && (hsize_t)i < dims[1]; i++)
			add(l, xasprintf("%s/%.*s/%s", path, (int)l->f->tab_w,
					 l->f->tab + (size_t)i * l->f->tab_w, slash + 1));
		free(path);
	} else if (series) {
		add(l, path);	/* read whole when its names table is unusable */
	} else {
		free(path);
	}
	free(table);
	return 0;
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

int h5r_list(struct h5in *f, const char *group, char ***names)
{
	struct list l = { NULL, 0, 0, group, f };
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
	char *s = attr_text(a, (size_t)1 << 30);
	H5Aclose(a);
	if (s)
		snprintf(buf, n, "%s", s);
	free(s);
	return s ? 0 : -1;
}

int h5r_units(struct h5in *f, const char *path, char *buf, size_t n)
{
	char qpath[1024], name[1024];
	if (h5r_exists(f, path))
		return h5r_attr_str(f, path, "units", buf, n);
	if (split_logical(path, qpath, name) || !h5r_exists(f, qpath))
		return -1;
	return h5r_attr_str(f, qpath, "units", buf, n);
}

int h5r_attr_num(struct h5in *f, const char *path, const char *name, double *v)
{
	if (H5Aexists_by_name(f->file, path, name, H5P_DEFAULT) <= 0)
		return -1;
	hid_t a = H5Aopen_by_name(f->file, path, name, H5P_DEFAULT, H5P_DEFAULT);
	if (a < 0)
		return -1;
	int rc = -1;
	hid_t ty = H5Aget_type(a), sp = H5Aget_space(a);
	H5T_class_t c = H5Tget_class(ty);
	if ((c == H5T_FLOAT || c == H5T_INTEGER) && H5Sget_simple_extent_npoints(sp) == 1 &&
	    H5Aread(a, H5T_NATIVE_DOUBLE, v) >= 0)
		rc = 0;
	H5Sclose(sp);
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

/* h5r_read_order: a path's series, its entry in the series' names table
 * (-1 for a dataset of its own) and its place in the list. */
struct okey {
	const char *series, *path;
	long k;
	int i;
};

static int okey_cmp(const void *a, const void *b)
{
	const struct okey *x = a, *y = b;
	int c = strcmp(x->series, y->series);
	if (c)
		return c;
	if (x->k != y->k)
		return x->k < y->k ? -1 : 1;
	return strcmp(x->path, y->path);
}

/* The names table of series qpath (NULL when none), from the list of
 * series met so far (a file has a few dozen). */
struct seen {
	char **qpath, **table;
	int n, cap;
};

static const char *table_of(struct h5in *f, struct seen *s, const char *qpath, const char **key)
{
	for (int i = 0; i < s->n; i++)
		if (strcmp(s->qpath[i], qpath) == 0) {
			*key = s->qpath[i];
			return s->table[i];
		}
	if (s->n == s->cap) {
		s->cap = s->cap ? 2 * s->cap : 16;
		s->qpath = xrealloc(s->qpath, (size_t)s->cap * sizeof(char *));
		s->table = xrealloc(s->table, (size_t)s->cap * sizeof(char *));
	}
	hid_t ds = h5r_exists(f, qpath) ? H5Dopen2(f->file, qpath, H5P_DEFAULT) : -1;
	s->table[s->n] = ds >= 0 ? attr_of(ds, "names") : NULL;
	if (ds >= 0)
		H5Dclose(ds);
	*key = s->qpath[s->n] = xstrdup(qpath);
	return s->table[s->n++];
}

void h5r_read_order(struct h5in *f, char *const *paths, int n, int *order)
{
	struct okey *key = xmalloc(((size_t)n + 1) * sizeof(*key));
	struct seen s = { NULL, NULL, 0, 0 };
	char qpath[1024], name[1024], err[256];
	for (int i = 0; i < n; i++) {
		const char *table = NULL;
		key[i] = (struct okey){ paths[i], paths[i], -1, i };
		if (split_logical(paths[i], qpath, name) == 0 &&
		    (table = table_of(f, &s, qpath, &key[i].series)) &&
		    load_table(f, table, err, sizeof err) == 0)
			key[i].k = table_find(f, name);
		if (key[i].k < 0)
			key[i].series = paths[i];
	}
	qsort(key, (size_t)n, sizeof(*key), okey_cmp);
	for (int i = 0; i < n; i++)
		order[i] = key[i].i;
	for (int i = 0; i < s.n; i++) {
		free(s.qpath[i]);
		free(s.table[i]);
	}
	free(s.qpath);
	free(s.table);
	free(key);
}
