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

#endif
