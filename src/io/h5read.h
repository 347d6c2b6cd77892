/* h5read.h - a small HDF5 reader: numeric datasets and string attributes.
 *
 * Knows nothing of mechanics.  Reads 1-D to 3-D datasets of any numeric
 * type as doubles (converted by the HDF5 library) and lists the series
 * under a group.  The counterpart of h5.h; together they cover the layout
 * of man/mbsim-output.5.
 *
 * Logical names.  A dataset /G/QTY whose string attribute "names" is the
 * path of a table of fixed-length strings (/G/names) has one entry per
 * name along its second axis; /G/NAME/QTY then means NAME's slice:
 * /G/QTY[:, k] (1-D) or /G/QTY[:, k, :] (2-D), k the
 * index of NAME in the table.  When /G/QTY also has a string attribute
 * "offsets", the path of an integer table o, NAME's slice is the columns
 * o[k] .. o[k+1]-1 of the 2-D /G/QTY.  A file of the first layout, whose
 * datasets have those paths, reads the same.
 */
#ifndef MBSIM_H5READ_H
#define MBSIM_H5READ_H

#include <stddef.h>

struct h5in;

/* A dataset read into memory: rows x cols values, row-major.  A 1-D
 * dataset has cols = 1 and ndims = 1. */
struct h5r_data {
	double *v;
	long rows;
	int cols, ndims;
};

/* Open path read-only; NULL with a message in err on failure (also for a
 * path that is not a regular file: a FIFO would block the opening). */
struct h5in *h5r_open(const char *path, char *err, size_t errlen);
void h5r_close(struct h5in **f);

/* Read the dataset at path, or the slice its logical name means, into d
 * (d->v malloc'd; free with h5r_data_release): rows x cols, a 3-D dataset
 * as rows x (d1 d2).  0, or -1 with a message in err (missing, not
 * numeric, more than 3-D, name not in the table). */
int h5r_read(struct h5in *f, const char *path, struct h5r_data *d, char *err, size_t errlen);
void h5r_data_release(struct h5r_data *d);

/* /time: h5r_read of "/time", which must hold one value per sample (a
 * (N, 0) dataset has N rows and no values: read as N times it sent
 * h5r_match_times past the buffer), every one finite and none below the
 * one before.  0, or -1 with a message in err. */
int h5r_read_time(struct h5in *f, struct h5r_data *d, char *err, size_t errlen);

/* The samples of t[nf - 1] (the reference) that every t[i] has, as
 * h5r_match_times pairs them: idx[i] (malloc'd, for each i < nf) gets
 * their rows in t[i].  Returns their number.  The t[i] as h5r_read_time
 * returns them. */
long h5r_common_samples(const struct h5r_data *t, int nf, long **idx);

/* The order in which to read the datasets paths[0..n) of f: series by
 * series, the slices of one in the order of its names table (the blocks
 * h5r_read keeps are then each read once), other datasets by path.
 * order[i] is the index into paths of the i-th to read. */
void h5r_read_order(struct h5in *f, char *const *paths, int n, int *order);

/* Every series below group (recursively: the datasets but the tables
 * GROUP/names, GROUP/X_names and GROUP/X_offsets), as absolute paths sorted by name, a series
 * with a names table as the logical names of its slices; *names is a malloc'd array of
 * malloc'd strings.  Returns the count (0 when the group is missing or
 * empty). */
int h5r_list(struct h5in *f, const char *group, char ***names);
void h5r_list_free(char ***names, int n);

/* String attribute name of the object at path ("/" for root) into buf;
 * 0, or -1 when missing or not a string. */
int h5r_attr_str(struct h5in *f, const char *path, const char *name, char *buf, size_t n);

/* The string attribute "units" of the dataset at path or, for a logical
 * name /GROUP/NAME/QTY, of its series /GROUP/QTY, into buf; 0, or -1
 * when there is none. */
int h5r_units(struct h5in *f, const char *path, char *buf, size_t n);

/* Numeric scalar attribute name of the object at path into *v (converted
 * to double by the HDF5 library); 0, or -1 when missing or not a number. */
int h5r_attr_num(struct h5in *f, const char *path, const char *name, double *v);

/* Common samples of two ascending time series: pairs (ia[k], ib[k]) with
 * |ta[ia] - tb[ib]| <= 1e-9 max(1, |ta[ia]|).  ia, ib need min(na, nb)
 * entries.  Returns the number of pairs. */
long h5r_match_times(const double *ta, long na, const double *tb, long nb, long *ia, long *ib);

#endif
