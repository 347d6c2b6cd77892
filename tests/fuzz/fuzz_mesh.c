/* fuzz_mesh.c - libFuzzer target: the input is a mesh file, parsed by
 * mesh_parse (deck/mesh.h) as OBJ when its first byte is even, else as
 * STL (ASCII or binary by its size), the first byte dropped.  An
 * accepted mesh has triangles, finite vertices and indices in range;
 * a text format holds no NUL byte (the text would end there);
 * run.sh gives it -rss_limit_mb, so a file whose parse needs far more
 * memory than its size is a finding. */
#include "deck/mesh.h"
#include "util/xalloc.h"

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size < 1)
		return 0;
	const char *name = data[0] % 2 ? "fuzz.stl" : "fuzz.obj";
	long len = (long)size - 1;
	char *buf = xmalloc((size_t)len + 1), err[256];
	memcpy(buf, data + 1, (size_t)len);
	buf[len] = 0;
	struct shape_mesh m;
	if (mesh_parse(buf, len, name, &m, err, sizeof err) == 0) {
		if (m.nt < 1 || m.nv < 1)	/* degenerate triangles may repeat a vertex */
			abort();
		for (long i = 0; i < 3L * m.nv; i++)
			if (!isfinite(m.v[i]))
				abort();
		for (long i = 0; i < 3L * m.nt; i++)
			if (m.t[i] < 0 || m.t[i] >= m.nv)
				abort();
		free(m.file);
		free(m.v);
		free(m.t);
		if (name[5] == 'o' && memchr(data + 1, 0, (size_t)len))
			abort();
	} else if (!memchr(err, 0, sizeof err) || !err[0]) {
		abort();	/* a refusal without a reason */
	}
	free(buf);
	return 0;
}
