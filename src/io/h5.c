/* h5.c - HDF5 time-series writer (h5.h). */
#define _GNU_SOURCE	/* O_TMPFILE (link_skeleton) */
#include "h5.h"
#include "h5_skeleton.h"
#include "../util/spawn.h"
#include "../util/xalloc.h"

#include <errno.h>
#include <fcntl.h>
#include <hdf5.h>
#include <limits.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

/* Chunk shapes: about H5_CHUNK_BYTES per chunk along the sample axis (fewer
 * rows when the run is known to write fewer, so that a short run's file
 * is not mostly empty chunks); a row larger than H5_ROW_MAX (3-vectors of
 * more than ~44000 bodies) is split along its first axis into chunks of
 * about H5_SPLIT_BYTES, one sample each.  When the caller does not know
 * how many rows come (opt.rows 0: an adaptive run), the series start
 * with chunks of about H5_CHUNK_FIRST and all but the index are made
 * again with the full size, still empty, at the first flush that is not
 * h5_close's: a run that ends before its first flush interval is short,
 * and its file is not some 64 kB of zeros a series (the 14-body vehicle
 * of decks/hmmwv14.yaml, 12 samples: 2.5 MB made 0.28 MB, 2 to 5 ms of
 * its 50 ms; bench/README.md). */
#define H5_CHUNK_BYTES (64 * 1024)
#define H5_CHUNK_FIRST (4 * 1024)
#define H5_ROW_MAX (1024 * 1024)
#define H5_SPLIT_BYTES (256 * 1024)
/* Rows kept in memory past this many bytes are flushed whatever the
 * interval (always at least one sample). */
#define H5_KEEP_MAX (64UL * 1024 * 1024)
/* Suffix of the name a file is made under before it takes its own. */
#define H5_PARTIAL ".partial"

struct series {
	hid_t dset;		/* -1 until made */
	char *path, *units, *desc;
	enum h5_type type;
	int rank;		/* 1, 2 or 3 */
	hsize_t dims[3];	/* dims[0]: rows in the file */
	size_t width;		/* values per row */
	int nbuf, cap;		/* rows in buf, room in buf */
	double *buf;
	long chunk_rows;	/* rows a chunk holds (h5_series_chunk), 0: the rule */
};

/* A table or attribute declared before the file is made (see h5_start). */
struct pending {
	enum { P_STRINGS, P_TEXT, P_ATTR_STR, P_ATTR_NUM, P_MATRIX } kind;
	char *path, *name;
	void *data;		/* strings: n x w bytes; text; attribute string; matrix */
	long n;
	size_t w;		/* attribute number: 1 an integer, 0 a double */
	double num;
	long d1, d2;		/* matrix: n x d1 (x d2 when > 0); w = 0 doubles, 1 ints */
};

struct h5out {
	hid_t file;		/* -1 until made */
	char *path;
	char *tmp;		/* PATH.partial while being made, NULL once renamed or written in place */
	int skeleton;		/* path holds h5_skeleton until the rename */
	struct h5_opts opt;
	struct series *s;
	int ns;
	struct pending *p;	/* in the order declared */
	int np;
	int state;		/* 0 declaring, 1 h5_start's thread busy, 2 file made */
	int full_chunks;	/* the series have (or get) chunks of H5_CHUNK_BYTES:
				 * from the start when the rows are known */
	pthread_t th;
	hid_t dcpl;		/* the series' creation properties, made once (0 until then) */
	hid_t scalar, stype;	/* the attributes' dataspace and string type (0 until made) */
	char group[512];	/* the group made or found last ("" none) */
	size_t kept;		/* bytes of rows in the buffers */
	size_t kept_max;	/* the most kept at once */
	double last;		/* wall time of the last flush, s */
	int failed;
	char err[300];
};

static double wall(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* Remember the first failure; errno still holds the system's reason when
 * HDF5's file driver failed on write(2) or ftruncate(2). */
static int fail(struct h5out *o, const char *what)
{
	int e = errno;
	if (!o->failed) {
		if (e == ENOSPC || e == EDQUOT || e == EFBIG || e == EIO || e == EROFS)
			snprintf(o->err, sizeof o->err, "%s '%s' failed: %s", what, o->path,
				 strerror(e));
		else
			snprintf(o->err, sizeof o->err, "%s '%s' failed", what, o->path);
	}
	o->failed = 1;
	return -1;
}

size_t h5_kept_max(const struct h5out *o)
{
	return o->kept_max;
}

const char *h5_error(const struct h5out *o)
{
	return o->err;
}

static int attr_str(struct h5out *o, hid_t obj, const char *name, const char *value, int fresh);
static int pend(struct h5out *o, struct pending *p);

/* The name a file is made under (path + ".partial"), malloc'd. */
static char *partial_name(const char *path)
{
	size_t n = strlen(path);
	char *t = xmalloc(n + sizeof H5_PARTIAL);
	memcpy(t, path, n);
	memcpy(t + n, H5_PARTIAL, sizeof H5_PARTIAL);
	return t;
}

/* The skeleton written to an unnamed file in path's directory (O_TMPFILE)
 * and linked at path in one step: path either does not exist or opens,
 * and no other name is left by a kill between the two.  0 where the file
 * system or the kernel has no O_TMPFILE (the caller's .partial then). */
static int link_skeleton(const char *path)
{
#ifdef O_TMPFILE
	const char *slash = strrchr(path, '/');
	char *dir = slash ? xstrdup(path) : xstrdup(".");
	if (slash)
		dir[slash == path ? 1 : slash - path] = 0;
	int fd = open(dir, O_TMPFILE | O_WRONLY, 0666);
	free(dir);
	if (fd < 0)
		return 0;
	char proc[64];
	snprintf(proc, sizeof proc, "/proc/self/fd/%d", fd);
	int ok = write(fd, h5_skeleton, sizeof h5_skeleton) == (ssize_t)sizeof h5_skeleton &&
		 linkat(AT_FDCWD, proc, AT_FDCWD, path, AT_SYMLINK_FOLLOW) == 0;
	close(fd);
	return ok;
#else
	(void)path;
	return 0;
#endif
}

struct h5out *h5_create(const char *path, const struct h5_opts *opt, char *err, size_t errlen)
{
	/* A regular file at path is removed at once rather than truncated
	 * or left until the new one replaces it: the path never names the
	 * results of an earlier run once this one has started, and
	 * truncating a file just written makes ext4 write its blocks out at
	 * the next close (auto_da_alloc), ~3 ms per repeated run.  The new
	 * file is made as path.partial (a stale one, left by a run killed
	 * before its file was made, is replaced) and renamed onto path once
	 * made and flushed (make_file), so path never names a half-made
	 * file.  Anything else at path (a symbolic link, written through; a
	 * device) is written in place, as is a path whose .partial name
	 * cannot be created (too long).  Whether the file can be written is
	 * tried here, to report a bad path at once. */
	struct stat st;
	int exists = lstat(path, &st) == 0, fd = -1, skeleton = 0;
	char *tmp = NULL;
	if (!exists || S_ISREG(st.st_mode)) {
		if (exists)
			unlink(path);
		tmp = partial_name(path);
		if (lstat(tmp, &st) == 0 && S_ISREG(st.st_mode))
			unlink(tmp);
		/* until then path holds the skeleton (status running, no
		 * series: h5_skeleton.h), so that a process killed while the
		 * real file is made leaves a file that opens; h5_close
		 * removes it when no file was made.  Linked there at once
		 * (link_skeleton), or written as path.partial and renamed,
		 * which a kill between the two leaves alone (1 of 40 kills
		 * in the first 20 ms under ASan, tests/t-inputs.sh) */
		skeleton = link_skeleton(path);
		fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL, 0666);
		if (fd < 0) {
			free(tmp);
			tmp = NULL;
		} else if (skeleton) {
			unlink(tmp);	/* the name can be made: kept for the real file */
		} else {
			skeleton = write(fd, h5_skeleton, sizeof h5_skeleton) ==
					   (ssize_t)sizeof h5_skeleton && rename(tmp, path) == 0;
		}
	}
	if (fd < 0)
		fd = open(path, O_WRONLY | O_CREAT, 0666);
	if (fd < 0) {
		snprintf(err, errlen, "cannot create HDF5 file '%s': %s", path, strerror(errno));
		return NULL;
	}
	close(fd);
	/* no clean-up of HDF5 at exit: after a failed write (a full file
	 * system) H5Fclose fails, the file stays open, and HDF5's exit
	 * handler crashed closing it again (SIGSEGV in H5F__close_cb).
	 * The library itself starts at make_file's first call, in
	 * h5_start's thread, off this one (some 1.3 M instructions; an
	 * H5Eset_auto2 here used to start it); this thread's first HDF5
	 * call is in sync_file. */
	H5dont_atexit();
	struct h5out *o = xcalloc(1, sizeof(*o));
	o->file = -1;
	o->path = xstrdup(path);
	o->tmp = tmp;
	o->skeleton = skeleton;
	if (opt)
		o->opt = *opt;
	o->full_chunks = o->opt.rows > 0;
	o->last = wall();
	return o;
}

/* The file made under its .partial name takes the output's: from here on
 * path names a file that opens (HDF5 keeps writing through its open
 * descriptor). */
static int publish(struct h5out *o)
{
	if (!o->tmp)
		return 0;
	int rc = rename(o->tmp, o->path);
	free(o->tmp);
	o->tmp = NULL;
	return rc;
}

static void make_series(struct h5out *o, struct series *s);
static void do_pending(struct h5out *o, int attrs);

/* 1 when the string attributes declared on the root group, and those
 * the caller said will come, hold more than ROOT_COMPACT_MAX bytes: an object header (where attributes are
 * kept, "compact") holds at most 64 kB, and a command line of 4000 --set
 * options is longer.  Such a file keeps the root's attributes in dense
 * storage (a heap beside the header, in the file format of HDF5 1.8,
 * which any reader of 1.8 or later opens); other files are unchanged. */
#define ROOT_COMPACT_MAX 32768
static int root_attrs_large(const struct h5out *o)
{
	size_t sum = o->opt.root_attr_bytes;
	for (int i = 0; i < o->np; i++)
		if (o->p[i].kind == P_ATTR_STR && strcmp(o->p[i].path, "/") == 0)
			sum += strlen(o->p[i].data);
	return sum > ROOT_COMPACT_MAX;
}

/* The file, its tables, every series declared so far, their attributes,
 * and a flush: the file is valid and says "running" from here on. */
static void make_file(struct h5out *o)
{
	H5Eset_auto2(H5E_DEFAULT, NULL, NULL);
	errno = 0;
	/* chunk index B-trees of 8 entries a node rather than 64: a node of
	 * the default takes 2.5 kB for its first chunk, 63 of the 83 kB of a
	 * short run's file; a long run's ~1000 chunks a series are 4 levels */
	hid_t fcpl = H5Pcreate(H5P_FILE_CREATE), fapl = H5Pcreate(H5P_FILE_ACCESS);
	H5Pset_istore_k(fcpl, 4);
	if (root_attrs_large(o)) {	/* past an object header's 64 kB */
		H5Pset_attr_phase_change(fcpl, 0, 0);
		H5Pset_libver_bounds(fapl, H5F_LIBVER_V18, H5F_LIBVER_LATEST);
	}
	o->file = H5Fcreate(o->tmp ? o->tmp : o->path, H5F_ACC_TRUNC, fcpl, fapl);
	H5Pclose(fcpl);
	H5Pclose(fapl);
	if (o->file < 0) {
		fail(o, "creating HDF5 file");
		return;
	}
	if (attr_str(o, o->file, "status", "running", 1))
		fail(o, "writing HDF5 file");
	do_pending(o, 0);
	for (int i = 0; i < o->ns; i++)
		make_series(o, &o->s[i]);
	do_pending(o, 1);
	if (!o->failed && H5Fflush(o->file, H5F_SCOPE_LOCAL) < 0)
		fail(o, "writing HDF5 file");
	/* complete and on disk: the output path may name it now (a failed
	 * file is renamed by h5_close, once it says why) */
	if (!o->failed && publish(o))
		fail(o, "renaming the new HDF5 file onto");
}

static void *start_thread(void *arg)
{
	make_file(arg);
	return NULL;
}

/* Before any HDF5 call of the caller's thread: the file made. */
static void sync_file(struct h5out *o)
{
	if (o->state == 1) {
		join_here(o->th);
		/* this thread's own error stack (one a thread): quiet too */
		H5Eset_auto2(H5E_DEFAULT, NULL, NULL);
	} else if (o->state == 0) {
		make_file(o);
	}
	o->state = 2;
}

void h5_start(struct h5out *o)
{
	if (o->state != 0)
		return;
	if (spawn_elsewhere(&o->th, start_thread, o) == 0)
		o->state = 1;
	else
		sync_file(o);
}

/* Create the groups leading to path (all but its last component). */
static void make_groups(struct h5out *o, const char *path)
{
	char buf[512];
	snprintf(buf, sizeof buf, "%s", path);
	char *slash = strrchr(buf, '/');
	if (!slash || slash == buf)
		return;
	*slash = 0;
	/* the series of a group are declared one after another: its
	 * path's lookups once (H5Lexists a level a dataset was a tenth of
	 * the layout's time) */
	if (strcmp(buf, o->group) == 0)
		return;
	snprintf(o->group, sizeof o->group, "%s", buf);
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
}

/* scalar attribute of type t on the open object obj, replaced if it exists
 * (fresh: obj was just made and has no attributes yet).  One dataspace
 * and one string type (its size set for each) serve all attributes: made
 * and closed for each, they were a quarter of an attribute's time. */
static int attr_put(struct h5out *o, hid_t obj, const char *name, hid_t t, const void *value,
		    int fresh)
{
	if (!fresh && H5Aexists(obj, name) > 0)
		H5Adelete(obj, name);
	if (o->scalar <= 0)
		o->scalar = H5Screate(H5S_SCALAR);
	hid_t a = H5Acreate2(obj, name, t, o->scalar, H5P_DEFAULT, H5P_DEFAULT);
	int rc = a >= 0 && H5Awrite(a, t, value) >= 0 ? 0 : -1;
	if (a >= 0)
		H5Aclose(a);
	return rc;
}

/* fixed-length UTF-8 string type of n bytes (at least 1), NUL-terminated */
static hid_t str_type(size_t n)
{
	hid_t t = H5Tcopy(H5T_C_S1);
	H5Tset_size(t, n ? n : 1);
	H5Tset_strpad(t, H5T_STR_NULLTERM);
	H5Tset_cset(t, H5T_CSET_UTF8);	/* names and the deck may be UTF-8 */
	return t;
}

/* A root attribute (status, integrator, settings, ...) is a
 * variable-length UTF-8 string: h5py reads it as a str (a fixed-length
 * one comes back as bytes).  A dataset's or group's (units, description,
 * names, offsets) is fixed-length UTF-8: every reader lists them as it
 * walks the file, and libhdf5 1.10 reads a variable-length string from
 * its global heap trusting the heap's object size, so a damaged file
 * made it copy gigabytes past its buffer (make fuzz, h5 target, through
 * compare's walk); the few root ones are read by name, where a reader
 * looks.  Both are marked UTF-8, as names and text may be. */
static int attr_str(struct h5out *o, hid_t obj, const char *name, const char *value, int fresh)
{
	if (obj != o->file) {
		hid_t t = str_type(strlen(value) + 1);
		int rc = attr_put(o, obj, name, t, value, fresh);
		H5Tclose(t);
		return rc;
	}
	if (o->stype <= 0) {
		o->stype = H5Tcopy(H5T_C_S1);
		H5Tset_size(o->stype, H5T_VARIABLE);
		H5Tset_cset(o->stype, H5T_CSET_UTF8);
	}
	return attr_put(o, obj, name, o->stype, &value, fresh);
}


/* kind P_ATTR_STR with the string value, or P_ATTR_NUM with num (an
 * integer when integer is 1) */
static int attr_obj(struct h5out *o, const char *path, const char *name, const char *value,
		    double num, int integer)
{
	struct pending p = { value ? P_ATTR_STR : P_ATTR_NUM, xstrdup(path), xstrdup(name),
			     value ? xstrdup(value) : NULL, 0, (size_t)integer, num, 0, 0 };
	return pend(o, &p);
}

int h5_attr_str(struct h5out *o, const char *path, const char *name, const char *value)
{
	return attr_obj(o, path, name, value, 0, 0);
}

int h5_attr_num(struct h5out *o, const char *path, const char *name, double value)
{
	return attr_obj(o, path, name, NULL, value, 0);
}

int h5_attr_int(struct h5out *o, const char *path, const char *name, long long value)
{
	return attr_obj(o, path, name, NULL, (double)value, 1);
}

/* A contiguous dataset of type t and dims dim[0..rank) (scalar when rank
 * is 0) holding v. */
static int put_table(struct h5out *o, const char *path, hid_t t, int rank, const hsize_t *dim,
		     const void *v)
{
	if (o->failed)
		return -1;
	make_groups(o, path);
	hsize_t nel = 1;
	for (int i = 0; i < rank; i++)
		nel *= dim[i];
	hid_t sp = rank == 0 ? H5Screate(H5S_SCALAR) : H5Screate_simple(rank, dim, NULL);
	hid_t d = H5Dcreate2(o->file, path, t, sp, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
	int rc = d >= 0 && (nel == 0 || H5Dwrite(d, t, H5S_ALL, H5S_ALL, H5P_DEFAULT, v) >= 0) ? 0 : -1;
	if (d >= 0)
		H5Dclose(d);
	H5Sclose(sp);
	return rc ? fail(o, "writing HDF5 file") : 0;
}

/* Write one table or attribute. */
static void put_pending(struct h5out *o, const struct pending *p)
{
	hsize_t dim[3] = { (hsize_t)p->n, (hsize_t)p->d1, (hsize_t)p->d2 };
	if (p->kind == P_STRINGS || p->kind == P_TEXT) {
		hid_t t = str_type(p->w);
		put_table(o, p->path, t, p->kind == P_TEXT ? 0 : 1, dim, p->data);
		H5Tclose(t);
	} else if (p->kind == P_MATRIX) {
		put_table(o, p->path, p->w ? H5T_NATIVE_INT : H5T_NATIVE_DOUBLE,
			  p->d1 > 0 ? (p->d2 > 0 ? 3 : 2) : 1, dim, p->data);
	} else if (!o->failed) {
		/* the root and the series are open already (H5Oopen by path
		 * was a sixth of the time of the attributes) */
		hid_t obj = strcmp(p->path, "/") == 0 ? o->file : -1;
		for (int i = 0; obj < 0 && i < o->ns; i++)
			if (o->s[i].dset >= 0 && strcmp(o->s[i].path, p->path) == 0)
				obj = o->s[i].dset;
		int opened = obj < 0;
		if (opened)
			obj = H5Oopen(o->file, p->path, H5P_DEFAULT);
		int rc = obj >= 0 ? 0 : -1;
		if (obj >= 0) {
			long long v = (long long)p->num;	/* h5_attr_int: exact */
			rc = p->kind == P_ATTR_STR ? attr_str(o, obj, p->name, p->data, 0) :
			     p->w ? attr_put(o, obj, p->name, H5T_NATIVE_LLONG, &v, 0) :
			     attr_put(o, obj, p->name, H5T_NATIVE_DOUBLE, &p->num, 0);
			if (opened)
				H5Oclose(obj);
		}
		if (rc)
			fail(o, "writing HDF5 file");
	}
}

/* Write the pending tables (attrs 0) or attributes (attrs 1), and free
 * their data: a run keeps no copy of what is on disk (the tables of
 * /shapes are some 500 bytes a body). */
static void do_pending(struct h5out *o, int attrs)
{
	for (int i = 0; i < o->np; i++) {
		int isattr = o->p[i].kind == P_ATTR_STR || o->p[i].kind == P_ATTR_NUM;
		if (isattr == attrs) {
			put_pending(o, &o->p[i]);
			free(o->p[i].data);
			o->p[i].data = NULL;
		}
	}
}

/* A table or attribute now, or when the file is made. */
static int pend(struct h5out *o, struct pending *p)
{
	if (o->state == 0) {
		o->p = xrealloc(o->p, (size_t)(o->np + 1) * sizeof(*o->p));
		o->p[o->np++] = *p;
		return 0;
	}
	sync_file(o);
	put_pending(o, p);
	free(p->path);
	free(p->name);
	free(p->data);
	return o->failed ? -1 : 0;
}

static int table(struct h5out *o, int kind, const char *path, void *data, long n, size_t w)
{
	struct pending p = { kind, xstrdup(path), NULL, data, n, w, 0, 0, 0 };
	return pend(o, &p);
}

int h5_matrix(struct h5out *o, const char *path, enum h5_type type, const void *v, long n,
	      long d1, long d2)
{
	size_t es = type == H5_INT ? sizeof(int) : sizeof(double);
	size_t bytes = (size_t)n * (size_t)(d1 > 0 ? d1 : 1) * (size_t)(d2 > 0 ? d2 : 1) * es;
	void *c = xmalloc(bytes + 1);
	memcpy(c, v, bytes);
	struct pending p = { P_MATRIX, xstrdup(path), NULL, c, n, type == H5_INT, 0, d1, d2 };
	return pend(o, &p);
}

int h5_text(struct h5out *o, const char *path, const char *text)
{
	return table(o, P_TEXT, path, xstrdup(text), -1, strlen(text) + 1);
}

int h5_names(struct h5out *o, const char *path, const char *const *names, int n)
{
	size_t w = 1;
	for (int i = 0; i < n; i++)
		if (strlen(names[i]) + 1 > w)
			w = strlen(names[i]) + 1;
	char *all = xcalloc((size_t)n * w + 1, 1);
	for (int i = 0; i < n; i++)
		memcpy(all + (size_t)i * w, names[i], strlen(names[i]));
	return table(o, P_STRINGS, path, all, n, w);
}

int h5_ints(struct h5out *o, const char *path, const int *v, int n)
{
	return h5_matrix(o, path, H5_INT, v, n, 0, 0);
}

/* Chunk shape of a series with rows of dims[1..rank) (see H5_CHUNK_BYTES). */
static void chunk_shape(const struct series *s, long rows, size_t bytes, hsize_t *c)
{
	size_t rowb = s->width * sizeof(double);
	for (int i = 1; i < s->rank; i++)
		c[i] = s->dims[i];
	if (s->chunk_rows > 0 && rowb <= H5_ROW_MAX) {
		c[0] = (hsize_t)s->chunk_rows;
		return;
	}
	if (rowb > H5_ROW_MAX) {
		size_t inner = (s->rank == 3 ? (size_t)s->dims[2] : 1) * sizeof(double);
		c[0] = 1;
		c[1] = H5_SPLIT_BYTES / inner;
		return;
	}
	hsize_t n = bytes / rowb;
	if (rows > 0 && (hsize_t)rows < n)
		n = (hsize_t)rows;
	c[0] = n > 0 ? n : 1;
}

/* The dataset of s, extendible from 0 rows. */
static void make_series(struct h5out *o, struct series *s)
{
	if (o->failed || s->dset >= 0)
		return;
	hsize_t maxd[3] = { H5S_UNLIMITED, s->dims[1], s->dims[2] }, chunk[3];
	hsize_t dims[3] = { 0, s->dims[1], s->dims[2] };
	chunk_shape(s, o->opt.rows, o->full_chunks ? H5_CHUNK_BYTES : H5_CHUNK_FIRST, chunk);
	make_groups(o, s->path);
	hid_t sp = H5Screate_simple(s->rank, dims, maxd);
	/* one property list for all series, its chunk shape set for each
	 * (a list made and closed a series cost as much as a fifth of
	 * H5Dcreate2) */
	if (o->dcpl <= 0) {
		o->dcpl = H5Pcreate(H5P_DATASET_CREATE);
		if (o->opt.compression > 0)
			H5Pset_deflate(o->dcpl, (unsigned)o->opt.compression);
	}
	H5Pset_chunk(o->dcpl, s->rank, chunk);
	hid_t ft = s->type == H5_INT ? H5T_NATIVE_INT : H5T_NATIVE_DOUBLE;
	/* a row split into chunks of its own (one sample a chunk) is
	 * written in whole chunks: HDF5's chunk cache (1 MB a dataset)
	 * would only hold copies of them, some 65 bytes a body of a
	 * pendulum array at N = 1e5 */
	hid_t apl = H5P_DEFAULT;
	if (s->width * sizeof(double) > H5_ROW_MAX) {
		apl = H5Pcreate(H5P_DATASET_ACCESS);
		H5Pset_chunk_cache(apl, 0, 0, 1.0);
	}
	s->dset = H5Dcreate2(o->file, s->path, ft, sp, H5P_DEFAULT, o->dcpl, apl);
	if (apl != H5P_DEFAULT)
		H5Pclose(apl);
	H5Sclose(sp);
	if (s->dset < 0) {
		fail(o, "creating a dataset in");
		return;
	}
	if (s->units)
		attr_str(o, s->dset, "units", s->units, 1);
	if (s->desc)
		attr_str(o, s->dset, "description", s->desc, 1);
}

int h5_series(struct h5out *o, const char *path, long d1, long d2, enum h5_type type,
	      const char *units, const char *desc)
{
	return h5_series_chunk(o, path, d1, d2, type, units, desc, 0);
}

int h5_series_chunk(struct h5out *o, const char *path, long d1, long d2, enum h5_type type,
		    const char *units, const char *desc, long chunk_rows)
{
	if (o->state == 1)
		sync_file(o);	/* o->s is the thread's until joined */
	o->s = xrealloc(o->s, (size_t)(o->ns + 1) * sizeof(*o->s));
	struct series *s = &o->s[o->ns];
	memset(s, 0, sizeof(*s));
	s->chunk_rows = chunk_rows;
	s->dset = -1;
	s->path = xstrdup(path);
	s->units = units ? xstrdup(units) : NULL;
	s->desc = desc ? xstrdup(desc) : NULL;
	s->type = type;
	s->rank = d1 <= 0 ? 1 : d2 <= 0 ? 2 : 3;
	s->dims[1] = (hsize_t)(d1 > 0 ? d1 : 1);
	s->dims[2] = (hsize_t)(d2 > 0 ? d2 : 1);
	s->width = s->rank == 1 ? 1 : (size_t)s->dims[1] * (s->rank == 3 ? (size_t)s->dims[2] : 1);
	s->cap = 16;
	s->buf = xmalloc((size_t)s->cap * s->width * sizeof(double));
	if (o->state == 2)
		make_series(o, s);	/* a failure shows at the next flush */
	return o->ns++;
}

double *h5_row_next(struct h5out *o, int id)
{
	if (id < 0)
		return NULL;
	struct series *s = &o->s[id];
	if (s->nbuf == s->cap) {
		s->cap *= 2;
		s->buf = xrealloc(s->buf, (size_t)s->cap * s->width * sizeof(double));
	}
	o->kept += s->width * sizeof(double);
	if (o->kept > o->kept_max)
		o->kept_max = o->kept;
	return s->buf + (size_t)s->nbuf++ * s->width;
}

void h5_row(struct h5out *o, int id, const double *row)
{
	double *r = h5_row_next(o, id);
	if (r)
		memcpy(r, row, o->s[id].width * sizeof(double));
}

/* An attribute read back, to be written again (reshape). */
struct attr_copy {
	char *name;
	hid_t type, space;
	void *data;
};

struct attr_list {
	struct attr_copy *a;
	int n;
};

static herr_t collect_attr(hid_t obj, const char *name, const H5A_info_t *info, void *arg)
{
	struct attr_list *L = arg;
	hid_t a = H5Aopen(obj, name, H5P_DEFAULT);
	if (a < 0)
		return -1;
	hid_t t = H5Aget_type(a), sp = H5Aget_space(a);
	hssize_t np = sp >= 0 ? H5Sget_simple_extent_npoints(sp) : -1;
	size_t ts = t >= 0 ? H5Tget_size(t) : 0;
	void *buf = np >= 0 && ts > 0 ? xcalloc((size_t)np + 1, ts) : NULL;
	if (!buf || H5Aread(a, t, buf) < 0) {
		free(buf);
		if (t >= 0)
			H5Tclose(t);
		if (sp >= 0)
			H5Sclose(sp);
		H5Aclose(a);
		return -1;
	}
	H5Aclose(a);
	L->a = xrealloc(L->a, (size_t)(L->n + 1) * sizeof(*L->a));
	L->a[L->n++] = (struct attr_copy){ xstrdup(name), t, sp, buf };
	return 0;
}

static void free_attrs(struct attr_list *L)
{
	for (int i = 0; i < L->n; i++) {
		free(L->a[i].name);
		if (H5Tis_variable_str(L->a[i].type) > 0)	/* a string H5Aread allocated */
			H5free_memory(*(char **)L->a[i].data);
		free(L->a[i].data);
		H5Tclose(L->a[i].type);
		H5Sclose(L->a[i].space);
	}
	free(L->a);
	L->a = NULL;
	L->n = 0;
}

/* s, which has no rows in the file yet, made again with chunks of the full
 * size (see H5_CHUNK_FIRST), with the attributes it had. */
static int reshape(struct h5out *o, struct series *s)
{
	struct attr_list L = { NULL, 0 };
	int rc = 0;
	if (H5Aiterate2(s->dset, H5_INDEX_CRT_ORDER, H5_ITER_NATIVE, NULL, collect_attr, &L) < 0) {
		/* (creation order not tracked: by name, from scratch) */
		free_attrs(&L);
		if (H5Aiterate2(s->dset, H5_INDEX_NAME, H5_ITER_NATIVE, NULL, collect_attr, &L) < 0)
			rc = -1;
	}
	H5Dclose(s->dset);
	s->dset = -1;
	if (rc == 0 && H5Ldelete(o->file, s->path, H5P_DEFAULT) < 0)
		rc = -1;
	char *units = s->units, *desc = s->desc;
	s->units = s->desc = NULL;	/* they are among the attributes */
	if (rc == 0)
		make_series(o, s);
	s->units = units;
	s->desc = desc;
	for (int i = 0; i < L.n && rc == 0 && s->dset >= 0; i++) {
		struct attr_copy *c = &L.a[i];
		hid_t a = H5Acreate2(s->dset, c->name, c->type, c->space, H5P_DEFAULT, H5P_DEFAULT);
		if (a < 0 || H5Awrite(a, c->type, c->data) < 0)
			rc = -1;
		if (a >= 0)
			H5Aclose(a);
	}
	free_attrs(&L);
	return rc == 0 && s->dset >= 0 ? 0 : -1;
}

/* Append the rows kept of s to its dataset. */
static int put_rows(struct h5out *o, struct series *s)
{
	if (s->nbuf == 0 || s->dset < 0)
		return 0;
	hsize_t start[3] = { s->dims[0], 0, 0 }, count[3] = { (hsize_t)s->nbuf, s->dims[1], s->dims[2] };
	hsize_t dims[3] = { s->dims[0] + (hsize_t)s->nbuf, s->dims[1], s->dims[2] };
	if (H5Dset_extent(s->dset, dims) < 0)
		return -1;
	hid_t fs = H5Dget_space(s->dset);
	hid_t ms = H5Screate_simple(s->rank, count, NULL);
	/* an integer series' rows are made ints here: written as doubles,
	 * HDF5 converts them through a buffer of 1 MB that it allocates
	 * zeroed at every H5Dwrite, some 0.5 ms of CPU a write of each such
	 * series (bench/README.md "Fixed cost of a run").  The values are
	 * counts and flags, whole numbers; out of range is clipped as
	 * HDF5's conversion clips, and a NaN (never written) becomes 0.  They
	 * go into the front of the rows' own buffer (int i lies below double
	 * i, so nothing is overwritten before it is read; the buffer holds
	 * doubles again from the next row on). */
	void *data = s->buf;
	hid_t mt = H5T_NATIVE_DOUBLE;
	if (s->type == H5_INT) {
		size_t n = (size_t)s->nbuf * s->width;
		int *iv = (int *)(void *)s->buf;
		for (size_t i = 0; i < n; i++) {
			double v = s->buf[i];
			iv[i] = v >= (double)INT_MAX ? INT_MAX : v <= (double)INT_MIN ? INT_MIN :
				v == v ? (int)v : 0;
		}
		data = iv;
		mt = H5T_NATIVE_INT;
	}
	int rc = fs >= 0 && ms >= 0 &&
		 H5Sselect_hyperslab(fs, H5S_SELECT_SET, start, NULL, count, NULL) >= 0 &&
		 H5Dwrite(s->dset, mt, ms, fs, H5P_DEFAULT, data) >= 0 ? 0 : -1;
	H5Sclose(ms);
	H5Sclose(fs);
	s->dims[0] = dims[0];
	return rc;
}

/* Append the rows kept of series [i0, i1) and flush the file. */
static int flush_range(struct h5out *o, int i0, int i1)
{
	for (int i = i0; i < i1; i++) {
		struct series *s = &o->s[i];
		int rc = put_rows(o, s);
		s->nbuf = 0;
		if (rc)
			return fail(o, "writing HDF5 file");
	}
	if (H5Fflush(o->file, H5F_SCOPE_LOCAL) < 0)
		return fail(o, "writing HDF5 file");
	return 0;
}

static int flush(struct h5out *o, int last)
{
	sync_file(o);
	if (o->failed)
		return -1;
	errno = 0;
	if (!last && !o->full_chunks) {
		/* every series but the index (/time, 512 samples a chunk of
		 * 4 kB): HDF5 writes a flush's metadata in an order of its
		 * own, and a process killed inside this first flush, which
		 * deletes and makes datasets, may leave one unreadable (as one
		 * killed inside any flush may leave a dataset it extends; at
		 * 16 to 18 of the 215 writes of a double pendulum's run
		 * flushing every sample, killed at each write in turn); the
		 * index, not made again and written in a flush of its own
		 * after the others, stays readable */
		o->full_chunks = 1;
		for (int i = 1; i < o->ns; i++) {
			struct series *s = &o->s[i];
			hsize_t c0[3], c1[3];
			chunk_shape(s, 0, H5_CHUNK_FIRST, c0);
			chunk_shape(s, 0, H5_CHUNK_BYTES, c1);
			if (s->dset < 0 || s->dims[0] != 0 || memcmp(c0, c1, (size_t)s->rank * sizeof *c0) == 0)
				continue;	/* (rows of 64 kB or more: one a chunk either way) */
			if (reshape(o, s))
				return fail(o, "writing HDF5 file");
		}
	}
	/* the others first, then series 0 (the index, /time) in a flush of
	 * its own: a process killed during the first flush leaves them with
	 * some of the new rows and series 0 without, so the first len(0)
	 * rows of every series are always on disk (HDF5 writes the datasets'
	 * headers in an order of its own within one flush; killed while
	 * flushing every sample, 3 of 20 files had series of unequal
	 * length) */
	if (flush_range(o, 1, o->ns) || (o->ns > 0 && flush_range(o, 0, 1)))
		return -1;
	o->kept = 0;
	o->last = wall();
	return 0;
}

int h5_flush(struct h5out *o)
{
	return flush(o, 0);
}

int h5_flush_due(const struct h5out *o)
{
	return o->kept >= H5_KEEP_MAX || !(o->opt.flush_interval > 0) ||
	       wall() - o->last >= o->opt.flush_interval;
}

int h5_commit(struct h5out *o)
{
	if (o->state == 2 && o->failed)
		return -1;	/* o->failed is the thread's while state is 1 */
	if (!h5_flush_due(o))
		return 0;
	return h5_flush(o);
}

int h5_close(struct h5out **po, const char *status, char *err, size_t errlen)
{
	struct h5out *o = *po;
	if (!o)
		return 0;
	int rc = flush(o, 1);
	if (!o->failed && attr_str(o, o->file, "status", status, 0))
		rc = fail(o, "writing HDF5 file");
	if (o->failed && o->file >= 0) {
		/* never "complete": the reason if it can still be written */
		char st[400];
		snprintf(st, sizeof st, "failed: %s", o->err);
		attr_str(o, o->file, "status", st, 0);
	}
	rc = o->failed ? -1 : rc;
	for (int i = 0; i < o->ns; i++) {
		struct series *s = &o->s[i];
		if (s->dset >= 0)
			H5Dclose(s->dset);
		free(s->buf);
		free(s->path);
		free(s->units);
		free(s->desc);
	}
	for (int i = 0; i < o->np; i++) {
		free(o->p[i].path);
		free(o->p[i].name);
		free(o->p[i].data);
	}
	if (o->dcpl > 0)
		H5Pclose(o->dcpl);
	if (o->scalar > 0)
		H5Sclose(o->scalar);
	if (o->stype > 0)
		H5Tclose(o->stype);
	if (o->file >= 0 && H5Fclose(o->file) < 0 && !o->failed)
		rc = fail(o, "closing HDF5 file");
	/* a file that failed before it was renamed still takes the output's
	 * name, saying "failed: ..." (or as much of it as could be written) */
	if (o->tmp && o->file >= 0 && publish(o) && !o->failed)
		rc = fail(o, "renaming the new HDF5 file onto");
	if (o->tmp) {
		unlink(o->tmp);	/* never made: nothing to show */
		if (o->skeleton)
			unlink(o->path);
		free(o->tmp);
	}
	if (rc && err)
		snprintf(err, errlen, "%s", o->err[0] ? o->err : "writing HDF5 file failed");
	free(o->s);
	free(o->p);
	free(o->path);
	free(o);
	*po = NULL;
	return rc;
}
