/* h5.c - HDF5 time-series writer (h5.h). */
#define _GNU_SOURCE	/* sched_getcpu, pthread_attr_setaffinity_np */
#include "h5.h"
#include "../util/xalloc.h"

#include <fcntl.h>
#include <sched.h>
#include <hdf5.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* A series' rows are kept in memory until the file is closed or until
 * H5_DEFER rows have come; a short run's series then become contiguous
 * datasets of their final size, written once (no chunk index, no extent
 * changes: 65 series of the slider-crank cost 1.5 ms less to write that
 * way than as chunked datasets).  A longer series turns into an
 * extendible dataset of H5_CHUNK-row chunks, appended as before. */
#define H5_DEFER 4096
#define H5_CHUNK 256

struct series {
	hid_t dset;		/* -1 while deferred */
	char *path, *units, *desc;
	int ncols;		/* 0: 1-D */
	enum h5_type type;
	hsize_t nrows;		/* rows written to the file */
	hsize_t pre;		/* rows of the contiguous dataset made ahead (h5_start) */
	int nbuf, cap;		/* rows in buf, room in buf */
	double *buf;
};

struct h5out {
	hid_t file;		/* -1 until created */
	char *path;
	struct series *s;
	int ns;
	char group[512];	/* the last group known to exist */
	pthread_t th;		/* h5_start's thread, while busy */
	int busy;
	hsize_t expect;
	int failed;		/* rows lost by a write in h5_row */
};

struct h5out *h5_create(const char *path, char *err, size_t errlen)
{
	/* A regular file at path is removed rather than truncated, as linkers
	 * do with their output: truncating a file that was just written makes
	 * ext4 write its blocks out at the next close (auto_da_alloc) and
	 * free them when the file is removed, ~3 ms per repeated run.  A
	 * symbolic link is written through, and a file that cannot be removed
	 * is truncated.  Whether path can be written is tried here, to report
	 * a bad path at once; the file tried is removed again when it is new,
	 * and HDF5 creates it later (h5_start, or the first call that writes). */
	struct stat st;
	int fresh = lstat(path, &st) != 0 || (S_ISREG(st.st_mode) && unlink(path) == 0);
	int fd = open(path, O_WRONLY | O_CREAT, 0666);
	if (fd < 0) {
		snprintf(err, errlen, "cannot create HDF5 file '%s'", path);
		return NULL;
	}
	close(fd);
	if (fresh)
		unlink(path);
	struct h5out *o = xcalloc(1, sizeof(*o));
	o->file = -1;
	o->path = xstrdup(path);
	return o;
}

static int create(struct h5out *o, struct series *s, hsize_t rows, int chunked);

static void create_file(struct h5out *o)
{
	H5Eset_auto2(H5E_DEFAULT, NULL, NULL);
	o->file = H5Fcreate(o->path, H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT);
}

/* h5_start's thread: the file and every series as a contiguous dataset of
 * the expected rows, while the caller computes them.  Nothing else calls
 * HDF5 until sync joins it (the library is not built thread-safe). */
static void *start_thread(void *arg)
{
	struct h5out *o = arg;
	create_file(o);
	for (int i = 0; o->file >= 0 && i < o->ns; i++)
		if (create(o, &o->s[i], o->expect, 0) == 0)
			o->s[i].pre = o->expect;
	return NULL;
}

void h5_start(struct h5out *o, long rows)
{
	if (rows <= 0 || rows > H5_DEFER || o->busy || o->file >= 0)
		return;	/* busy first: o->file is the thread's until joined */
	/* on another processor than this thread's: a new thread often starts
	 * on its parent's, and shared it costs the run as much time as it
	 * saves (measured, 2 processors).  With one processor, no thread. */
	cpu_set_t set;
	int here = sched_getcpu();
	if (here < 0 || sched_getaffinity(0, sizeof set, &set) || !CPU_ISSET(here, &set))
		return;
	CPU_CLR(here, &set);
	if (CPU_COUNT(&set) == 0)
		return;
	pthread_attr_t at;
	if (pthread_attr_init(&at))
		return;
	o->expect = (hsize_t)rows;
	o->busy = pthread_attr_setaffinity_np(&at, sizeof set, &set) == 0 &&
		  pthread_create(&o->th, &at, start_thread, o) == 0;
	pthread_attr_destroy(&at);
}

/* Before any HDF5 call: h5_start's work done, the file created. */
static int sync_file(struct h5out *o)
{
	if (o->busy) {
		pthread_join(o->th, NULL);
		o->busy = 0;
	}
	if (o->file < 0)
		create_file(o);
	return o->file >= 0 ? 0 : -1;
}

/* Create the groups leading to path (all but its last component); series
 * come group by group, so the last group made is remembered. */
static void make_groups(struct h5out *o, const char *path)
{
	char buf[512];
	snprintf(buf, sizeof buf, "%s", path);
	char *slash = strrchr(buf, '/');
	if (!slash || slash == buf)
		return;
	*slash = 0;
	if (strcmp(buf, o->group) == 0)
		return;
	for (char *p = buf + 1;; p++) {
		if (*p != '/' && *p)
			continue;
		char c = *p;
		*p = 0;
		if (H5Lexists(o->file, buf, H5P_DEFAULT) <= 0) {
			hid_t g = H5Gcreate2(o->file, buf, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
			if (g >= 0)
				H5Gclose(g);
		}
		*p = c;
		if (!c)
			break;
	}
	snprintf(o->group, sizeof o->group, "%s", buf);
}

/* scalar attribute of type t on the open object obj (replaced when it
 * exists, unless obj is fresh) */
static int attr_put(hid_t obj, const char *name, hid_t t, const void *value, int fresh)
{
	if (!fresh && H5Aexists(obj, name) > 0)
		H5Adelete(obj, name);
	hid_t sp = H5Screate(H5S_SCALAR);
	hid_t a = H5Acreate2(obj, name, t, sp, H5P_DEFAULT, H5P_DEFAULT);
	int rc = a >= 0 && H5Awrite(a, t, value) >= 0 ? 0 : -1;
	if (a >= 0)
		H5Aclose(a);
	H5Sclose(sp);
	return rc;
}

static int attr_str(hid_t obj, const char *name, const char *value, int fresh)
{
	hid_t t = H5Tcopy(H5T_C_S1);
	H5Tset_size(t, strlen(value) + 1);
	H5Tset_strpad(t, H5T_STR_NULLTERM);
	int rc = attr_put(obj, name, t, value, fresh);
	H5Tclose(t);
	return rc;
}

/* the object at path, opened (-1 on failure) */
static hid_t open_obj(struct h5out *o, const char *path)
{
	return sync_file(o) ? -1 : H5Oopen(o->file, path, H5P_DEFAULT);
}

int h5_attr_str(struct h5out *o, const char *path, const char *name, const char *value)
{
	hid_t obj = open_obj(o, path);
	if (obj < 0)
		return -1;
	int rc = attr_str(obj, name, value, 0);
	H5Oclose(obj);
	return rc;
}

int h5_attr_num(struct h5out *o, const char *path, const char *name, double value)
{
	hid_t obj = open_obj(o, path);
	if (obj < 0)
		return -1;
	int rc = attr_put(obj, name, H5T_NATIVE_DOUBLE, &value, 0);
	H5Oclose(obj);
	return rc;
}

int h5_series(struct h5out *o, const char *path, int ncols, enum h5_type type,
	      const char *units, const char *desc)
{
	if (o->busy)
		sync_file(o);
	o->s = xrealloc(o->s, (size_t)(o->ns + 1) * sizeof(*o->s));
	struct series *s = &o->s[o->ns];
	memset(s, 0, sizeof(*s));
	s->dset = -1;
	s->path = xstrdup(path);
	s->units = units ? xstrdup(units) : NULL;
	s->desc = desc ? xstrdup(desc) : NULL;
	s->ncols = ncols;
	s->type = type;
	s->cap = 64;
	s->buf = xmalloc((size_t)s->cap * (size_t)(ncols > 0 ? ncols : 1) * sizeof(double));
	return o->ns++;
}

/* The dataset of s: contiguous of the given rows, or extendible in
 * chunks (from 0 rows); -1 on failure. */
static int create(struct h5out *o, struct series *s, hsize_t rows, int chunked)
{
	int rank = s->ncols > 0 ? 2 : 1;
	hsize_t dims[2] = { chunked ? 0 : rows, (hsize_t)s->ncols };
	hsize_t maxd[2] = { chunked ? H5S_UNLIMITED : rows, (hsize_t)s->ncols };
	hsize_t chunk[2] = { H5_CHUNK, (hsize_t)(s->ncols > 0 ? s->ncols : 1) };
	make_groups(o, s->path);
	hid_t sp = H5Screate_simple(rank, dims, maxd);
	hid_t pl = H5Pcreate(H5P_DATASET_CREATE);
	if (chunked)
		H5Pset_chunk(pl, rank, chunk);
	hid_t ft = s->type == H5_INT ? H5T_NATIVE_INT : H5T_NATIVE_DOUBLE;
	s->dset = H5Dcreate2(o->file, s->path, ft, sp, H5P_DEFAULT, pl, H5P_DEFAULT);
	H5Pclose(pl);
	H5Sclose(sp);
	if (s->dset < 0)
		return -1;
	if (s->units)
		attr_str(s->dset, "units", s->units, 1);
	if (s->desc)
		attr_str(s->dset, "description", s->desc, 1);
	return 0;
}

/* Write the buffered rows of s, the last ones when final (creating its
 * dataset first if needed: contiguous when these are all its rows). */
static int put_rows(struct h5out *o, struct series *s, int final)
{
	if (sync_file(o))
		return -1;
	if (s->pre && (!final || s->nrows + (hsize_t)s->nbuf != s->pre)) {
		/* made ahead for another number of rows (a run that stopped
		 * early): made again */
		H5Dclose(s->dset);
		H5Ldelete(o->file, s->path, H5P_DEFAULT);
		s->dset = -1;
		s->pre = 0;
	}
	if (s->dset < 0 && create(o, s, (hsize_t)s->nbuf, !final))
		return -1;
	if (s->nbuf == 0)
		return 0;
	int rank = s->ncols > 0 ? 2 : 1;
	hsize_t dims[2] = { s->nrows + (hsize_t)s->nbuf, (hsize_t)s->ncols };
	hid_t fs = H5S_ALL;
	if (!final || s->nrows > 0) {
		if (H5Dset_extent(s->dset, dims) < 0)
			return -1;
		fs = H5Dget_space(s->dset);
		hsize_t start[2] = { s->nrows, 0 }, count[2] = { (hsize_t)s->nbuf, (hsize_t)s->ncols };
		H5Sselect_hyperslab(fs, H5S_SELECT_SET, start, NULL, count, NULL);
	}
	hsize_t count[2] = { (hsize_t)s->nbuf, (hsize_t)s->ncols };
	hid_t ms = H5Screate_simple(rank, count, NULL);
	herr_t e = H5Dwrite(s->dset, H5T_NATIVE_DOUBLE, ms, fs, H5P_DEFAULT, s->buf);
	H5Sclose(ms);
	if (fs != H5S_ALL)
		H5Sclose(fs);
	s->nrows += (hsize_t)s->nbuf;	/* the extent has grown */
	return e < 0 ? -1 : 0;
}

/* put_rows, after which the buffer is empty: its rows written, or lost
 * with -1 (a failed write must not leave a full buffer to h5_row) */
static int write_buf(struct h5out *o, struct series *s, int final)
{
	int rc = put_rows(o, s, final);
	s->nbuf = 0;
	return rc;
}

void h5_row(struct h5out *o, int id, const double *row)
{
	struct series *s = &o->s[id];
	size_t w = (size_t)(s->ncols > 0 ? s->ncols : 1);
	if (s->nbuf == s->cap) {
		/* still in memory: o->busy first, as dset and pre are the
		 * thread's until it is joined */
		if ((o->busy || s->dset < 0 || s->pre) && s->cap < H5_DEFER) {
			s->cap *= 2;
			s->buf = xrealloc(s->buf, (size_t)s->cap * w * sizeof(double));
		} else {
			if (write_buf(o, s, 0))
				o->failed = 1;
			if (s->cap > H5_CHUNK) {
				s->cap = H5_CHUNK;
				s->buf = xrealloc(s->buf, (size_t)s->cap * w * sizeof(double));
			}
		}
	}
	memcpy(s->buf + (size_t)s->nbuf * w, row, w * sizeof(double));
	s->nbuf++;
}

int h5_close(struct h5out **po, const char *status)
{
	struct h5out *o = *po;
	if (!o)
		return 0;
	int rc = sync_file(o) || o->failed ? -1 : 0;
	for (int i = 0; i < o->ns; i++) {
		struct series *s = &o->s[i];
		if (o->file >= 0)
			rc |= write_buf(o, s, 1);
		if (s->dset >= 0)
			H5Dclose(s->dset);
		free(s->buf);
		free(s->path);
		free(s->units);
		free(s->desc);
	}
	if (o->file >= 0) {
		rc |= h5_attr_str(o, "/", "status", status);
		if (H5Fclose(o->file) < 0)
			rc = -1;
	}
	free(o->s);
	free(o->path);
	free(o);
	*po = NULL;
	return rc;
}
