/* h5.h - the HDF5 writer: time series of fixed width, appended row by row.
 *
 * Knows nothing of mechanics.  A series is a 2-D dataset n x ncols (1-D
 * when ncols == 0) that grows by one row per h5_row call.  Rows stay in
 * memory up to a few thousand per series; a series that ends within that
 * is written at h5_close as one contiguous dataset, a longer one becomes an
 * extendible chunked dataset and is appended chunk by chunk.  h5_close
 * writes every row and the root attribute "status" and leaves a valid file
 * whatever happened before.
 */
#ifndef MBSIM_H5_H
#define MBSIM_H5_H

#include <stddef.h>

struct h5out;

enum h5_type { H5_DOUBLE, H5_INT };

/* Create (truncate) path; NULL with a message in err when it cannot be
 * written. */
struct h5out *h5_create(const char *path, char *err, size_t errlen);
/* String / numeric attribute on the object at path ("/" for root). */
int h5_attr_str(struct h5out *o, const char *path, const char *name, const char *value);
int h5_attr_num(struct h5out *o, const char *path, const char *name, double value);
/* New series at path (groups created as needed); returns its id.
 * units and desc become attributes (may be NULL). */
int h5_series(struct h5out *o, const char *path, int ncols, enum h5_type type,
	      const char *units, const char *desc);
/* Begin the file's HDF5 layout in a second thread: every series declared
 * so far as a dataset of rows rows (the caller's expectation; a series
 * that ends with another number is made again at h5_close).  HDF5 is not
 * called from the caller's thread until the next h5_* call that needs it
 * (attributes, h5_close, or a series outgrowing its memory). */
void h5_start(struct h5out *o, long rows);
/* Append one row (ncols values, or 1 for a 1-D series). */
void h5_row(struct h5out *o, int id, const double *row);
/* Write the buffered rows, set root attribute status, close, free.  -1
 * when anything could not be written (rows of h5_row included). */
int h5_close(struct h5out **o, const char *status);

#endif
