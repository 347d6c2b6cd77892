/* xdmf.h - ParaView's view of an output file: FILE.xdmf beside FILE.h5.
 *
 * XDMF 2, read by ParaView's "XDMF Reader" (its Xdmf3 readers, 5.11, read
 * no HyperSlab items), cannot move a mesh rigidly, so the writer precomputes each body's triangulated
 * shape (/shapes of the output file) in the global frame at every sample
 * and keeps these vertices, the per-vertex scalars to colour by and a
 * copy of the triangles in a file of its own, FILE.xdmf.h5 (float32: 12
 * bytes a vertex-sample for positions, 4 for each scalar), which is all
 * FILE.xdmf reads.  The output file itself is only read, so it stays as
 * its run closed it.  Both files are made under NAME.partial
 * and renamed, the .xdmf last and FILE.xdmf removed first: an .xdmf, once
 * it exists, names samples that are in its files.
 *
 * A file whose /shapes has lines (beams: segments between their nodes'
 * centre vertices) gets a Mixed topology of its triangles and those
 * segments (2-point polylines), in /cells of FILE.xdmf.h5.
 *
 * Knows no dynamics: positions and unit quaternions place the vertices;
 * speed is |v|, angular speed |w|, kinetic energy 1/2 m v.v + 1/2 w.J w
 * (w and J in the body frame, as written).
 */
#ifndef MBSIM_XDMF_H
#define MBSIM_XDMF_H

#include <stddef.h>

/* Frames of an export without --every: at most this many plus one (a
 * long run's 8001 samples of the slider-crank made 76 MB of XDMF; 1001
 * frames are some 10 MB, and more than a viewer plays smoothly). */
#define XDMF_FRAMES 1000

/* Write FILE.xdmf and FILE.xdmf.h5 for the output file h5path (FILE.h5:
 * FILE is h5path without a final ".h5"), every `every`-th sample from
 * the first (every < 1: the smallest that keeps XDMF_FRAMES + 1 frames
 * at most).  info (may be NULL) receives a line saying what was written
 * and its size.  0, or -1 with a message in err. */
int xdmf_export(const char *h5path, long every, char *info, size_t infolen, char *err,
		size_t errlen);

/* The paths xdmf_export writes for h5path (malloc'd). */
char *xdmf_path(const char *h5path);
char *xdmf_data_path(const char *h5path);

#endif
