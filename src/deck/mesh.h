/* mesh.h - reading triangle meshes for body shapes.  Internal to deck/. */
#ifndef MBSIM_DECK_MESH_H
#define MBSIM_DECK_MESH_H

#include "../model/shape.h"

/* Read the STL (ASCII or binary, told apart by size: a binary file is
 * 84 + 50 x triangles bytes) or OBJ file at path (by its extension,
 * .stl or .obj, any case) into out (malloc'd arrays).  0, or -1 with why
 * in err (strerror for a file that cannot be opened, "line N: ..." for a
 * malformed one). */
int mesh_read(const char *path, struct shape_mesh *out, char *err, int n);
/* The same for the text buf of len bytes, NUL-terminated at len (changed
 * in place), of a file named name; out->file = name. */
int mesh_parse(char *buf, long len, const char *name, struct shape_mesh *out, char *err,
	       int n);

/* At most this many vertices (an STL triangle has three of its own) and
 * triangles: counted before they are stored, so that memory stays near
 * the file's size plus 24 bytes a vertex and 12 a triangle. */
#define MESH_MAX_ELEMS 10000000L

#endif
