/* h5.h - the HDF5 writer: time series of fixed shape, appended row by row.
 *
 * Knows nothing of mechanics.  A series is a dataset whose first dimension
 * is the sample: n, n x d1 or n x d1 x d2, extendible and chunked.  The
 * caller declares the series, tables and attributes, then h5_start makes
 * the file with all of them (status "running") under the name
 * PATH.partial, flushes it and renames it onto PATH, in a second
 * thread on another processor while the caller computes (HDF5 is not
 * called from the caller's thread until it is joined, at the next h5_*
 * call that needs HDF5).  Rows are kept in memory and written only at
 * flush points (h5_commit: every flush interval of wall time, or when the
 * rows kept pass a size cap; h5_flush; h5_close), each followed by H5Fflush:
 * between two flush points HDF5 is not called, so a process killed there
 * leaves the file as of the last flush, with every series of equal length
 * (the caller commits whole samples).  The first series declared is the
 * index (the sample times): it is written after all others, in a flush
 * of its own, so that a process killed during a flush leaves every series
 * at least as long as the index, whose length is the file's samples.
 * Inside a flush HDF5 orders its own writes: a kill at the wrong one can
 * leave a dataset (rarely the index) unreadable in a file that opens (12
 * of the 215 writes of a double pendulum's short run flushing every
 * sample, in its first and last flushes; man mbsim-output(5)).
 * So PATH, once it exists, always names a file that opens; a process
 * killed before the rename leaves no PATH (h5_create removes an earlier
 * file there at once) and perhaps PATH.partial, which the next
 * h5_create of PATH replaces.  A PATH that is not a regular file (a
 * symbolic link, a device) is written in place.
 *
 * A failed write (a full file system) is remembered: nothing more is
 * written, h5_commit, h5_flush and h5_close return -1, and h5_close
 * writes status "failed: ..." rather than the status it was given (or
 * leaves "running" when even that cannot be written).
 */
#ifndef MBSIM_H5_H
#define MBSIM_H5_H

#include <stddef.h>

struct h5out;

enum h5_type { H5_DOUBLE, H5_INT };

/* How h5_create sets up the file; zero (all fields) is a valid default:
 * flush at every h5_commit, no compression, rows unknown. */
struct h5_opts {
	double flush_interval;	/* s of wall time between flushes; 0: every commit */
	int compression;	/* deflate level 0-9 of every series (0: none) */
	long rows;		/* samples the caller expects (0: unknown), for chunk shapes */
	size_t root_attr_bytes;	/* bytes of root string attributes still to come
				 * (the command line): beyond 32 kB the root keeps
				 * its attributes in dense storage (h5.c) */
};

/* Start a file at path (removing a regular file there now, replacing it
 * at the rename); NULL with a message in err when path cannot be written. */
struct h5out *h5_create(const char *path, const struct h5_opts *opt, char *err, size_t errlen);
/* Make the file with everything declared so far, root attribute status =
 * "running", and flush (see above).  Without h5_start, the first call that
 * needs the file makes it. */
void h5_start(struct h5out *o);
/* String / numeric attribute on the object at path ("/" for root).
 * Before h5_start these and the tables below are kept and written when
 * the file is made (0 returned; a failure shows at the next flush). */
int h5_attr_str(struct h5out *o, const char *path, const char *name, const char *value);
int h5_attr_num(struct h5out *o, const char *path, const char *name, double value);
/* An integer attribute (64 bits; counts, |value| < 2^53) */
int h5_attr_int(struct h5out *o, const char *path, const char *name, long long value);
/* Scalar string dataset at path holding text whole (any length). */
int h5_text(struct h5out *o, const char *path, const char *text);
/* 1-D dataset of n fixed-length strings (a names table). */
int h5_names(struct h5out *o, const char *path, const char *const *names, int n);
/* 1-D dataset of n integers. */
int h5_ints(struct h5out *o, const char *path, const int *v, int n);
/* Dataset of n (d1 = 0), n x d1 or n x d1 x d2 (d2 > 0) values of type,
 * copied from v (row-major). */
int h5_matrix(struct h5out *o, const char *path, enum h5_type type, const void *v, long n,
	      long d1, long d2);
/* New series at path (groups created as needed), rows of d1 (d1 > 0) or
 * d1 x d2 (d2 > 0) values, or of one value (d1 = d2 = 0); returns its id
 * (a dataset that cannot be made fails the next flush).  units and desc become attributes
 * (may be NULL). */
int h5_series(struct h5out *o, const char *path, long d1, long d2, enum h5_type type,
	      const char *units, const char *desc);
/* h5_series with chunks of chunk_rows rows (0: the rule of h5.c, sized
 * by the samples expected): a series that gets a row only now and then
 * (the restart checkpoint, one at each flush) is not a chunk of 64 kB
 * made for the samples. */
int h5_series_chunk(struct h5out *o, const char *path, long d1, long d2, enum h5_type type,
		    const char *units, const char *desc, long chunk_rows);
/* Append one row (d1 d2, d1 or 1 values) to series id, in memory. */
void h5_row(struct h5out *o, int id, const double *row);
/* The same without a copy: the place of series id's next row (NULL for
 * id < 0), for the caller to fill before the next h5_commit or h5_flush;
 * it moves at the next h5_row or h5_row_next of the same series.  A
 * writer of a large sample computes its rows there rather than in
 * buffers of its own (sim/output.c: some 200 bytes a body). */
double *h5_row_next(struct h5out *o, int id);
/* A sample's rows are all in: flush when the interval has passed or the
 * rows kept are many.  0, or -1 when a write has failed (now or before). */
int h5_commit(struct h5out *o);
/* 1 when the next h5_commit will flush (the interval has passed or the
 * rows kept are many): a caller with rows that only a flush should carry
 * (the restart checkpoint, sim/checkpoint.c) adds them first. */
int h5_flush_due(const struct h5out *o);
/* Write the rows kept and H5Fflush.  0 or -1 as h5_commit. */
int h5_flush(struct h5out *o);
/* Why the first failed write failed ("" when none has). */
const char *h5_error(const struct h5out *o);
/* The most bytes of rows kept in memory at once so far: the output
 * buffer of issue 17's memory goal (the buffers keep their pages after
 * a flush and take the next rows there). */
size_t h5_kept_max(const struct h5out *o);
/* Write the rows kept, set root attribute status, close, free.  -1 when
 * anything could not be written, with h5_error's message in err (if not
 * NULL). */
int h5_close(struct h5out **o, const char *status, char *err, size_t errlen);

#endif
