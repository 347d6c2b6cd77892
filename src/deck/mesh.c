/* mesh.c - triangle meshes from STL (ASCII and binary) and Wavefront OBJ
 * files, for body shapes (model/shape.h). */
#include "mesh.h"
#include "../util/file.h"
#include "../util/xalloc.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

/* Files larger than this are refused: a mesh for a viewer, not a scan. */
#define MESH_MAX_BYTES (256L * 1024 * 1024)

static int finite3(const double *x)
{
	return isfinite(x[0]) && isfinite(x[1]) && isfinite(x[2]);
}

/* Binary STL: 80-byte header, uint32 count, per triangle a normal and
 * three vertices as little-endian float32 and a 2-byte attribute. */
static int read_stl_binary(const unsigned char *buf, long len, struct tri_buf *g, char *err, int n)
{
	uint32_t nt = (uint32_t)buf[80] | (uint32_t)buf[81] << 8 | (uint32_t)buf[82] << 16 |
		      (uint32_t)buf[83] << 24;
	if ((long)nt != (len - 84) / 50) {
		snprintf(err, (size_t)n, "binary STL says %lu triangles in %ld bytes", (unsigned long)nt, len);
		return -1;
	}
	for (uint32_t i = 0; i < nt; i++) {
		const unsigned char *p = buf + 84 + 50 * (long)i + 12;
		for (int k = 0; k < 3; k++) {
			double x[3];
			for (int c = 0; c < 3; c++, p += 4) {
				uint32_t u = (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 |
					     (uint32_t)p[3] << 24;
				float f;
				memcpy(&f, &u, 4);
				x[c] = f;
			}
			if (!finite3(x)) {
				snprintf(err, (size_t)n, "triangle %lu has a coordinate that is not finite",
					 (unsigned long)i + 1);
				return -1;
			}
			tri_buf_vertex(g, x[0], x[1], x[2]);
		}
		tri_buf_tri(g, g->nv - 3, g->nv - 2, g->nv - 1);
	}
	return 0;
}

/* The next line of text at *p (NUL-terminated buffer), advancing *p;
 * NULL at the end.  The line is cut at its newline in place. */
static char *next_line(char **p)
{
	if (!**p)
		return NULL;
	char *s = *p, *e = strchr(s, '\n');
	if (e)
		*e = 0, *p = e + 1;
	else
		*p = s + strlen(s);
	return s;
}

static char *skip_ws(char *s)
{
	while (*s && isspace((unsigned char)*s))
		s++;
	return s;
}

/* The three finite numbers at e (after keyword key on line ln) as a new
 * vertex; -1 with why in err. */
static int put_xyz(struct tri_buf *g, char *e, const char *key, int ln, char *err, int n)
{
	double x[3];
	for (int c = 0; c < 3; c++) {
		char *q = e;
		x[c] = strtod(q, &e);
		if (e == q) {
			snprintf(err, (size_t)n, "line %d: expected three numbers after '%s'", ln, key);
			return -1;
		}
	}
	if (!finite3(x)) {
		snprintf(err, (size_t)n, "line %d: a coordinate is not finite", ln);
		return -1;
	}
	tri_buf_vertex(g, x[0], x[1], x[2]);
	return 0;
}

/* ASCII STL: "vertex x y z" lines, three per facet. */
static int read_stl_ascii(char *text, struct tri_buf *g, char *err, int n)
{
	char *p = text, *line;
	int ln = 0, inface = 0;
	while ((line = next_line(&p))) {
		ln++;
		char *s = skip_ws(line);
		if (strncmp(s, "vertex", 6) == 0 && isspace((unsigned char)s[6])) {
			if (put_xyz(g, s + 6, "vertex", ln, err, n))
				return -1;
			if (++inface == 3)
				tri_buf_tri(g, g->nv - 3, g->nv - 2, g->nv - 1);
		} else if (strncmp(s, "endloop", 7) == 0) {
			if (inface != 3) {
				snprintf(err, (size_t)n, "line %d: a facet with %d vertices (STL facets have 3)",
					 ln, inface);
				return -1;
			}
			inface = 0;
		}
	}
	return 0;
}

/* OBJ: "v x y z" vertices, "f i j k ..." faces (i, i/t, i/t/n or i//n,
 * negative i counting back from the last vertex), polygons as fans. */
static int read_obj(char *text, struct tri_buf *g, char *err, int n)
{
	char *p = text, *line;
	int ln = 0;
	while ((line = next_line(&p))) {
		ln++;
		char *s = skip_ws(line);
		if (s[0] == 'v' && isspace((unsigned char)s[1])) {
			if (put_xyz(g, s + 1, "v", ln, err, n))
				return -1;
		} else if (s[0] == 'f' && isspace((unsigned char)s[1])) {
			long idx[3], k = 0;
			char *e = s + 1;
			for (;;) {
				e = skip_ws(e);
				if (!*e || *e == '#')
					break;
				char *q = e;
				long i = strtol(q, &e, 10);
				if (e == q || i == 0 || (*e && !isspace((unsigned char)*e) && *e != '/')) {
					snprintf(err, (size_t)n, "line %d: bad vertex index in a face", ln);
					return -1;
				}
				while (*e && !isspace((unsigned char)*e))	/* /t/n */
					e++;
				i = i > 0 ? i - 1 : g->nv + i;
				if (i < 0 || i >= g->nv) {
					snprintf(err, (size_t)n, "line %d: face names vertex %ld of %ld", ln,
						 i + 1, g->nv);
					return -1;
				}
				if (k < 2)
					idx[k++] = i;
				else {
					idx[2] = i;
					tri_buf_tri(g, idx[0], idx[1], idx[2]);
					idx[1] = i;
					k++;
				}
			}
			if (k < 3) {
				snprintf(err, (size_t)n, "line %d: a face of fewer than 3 vertices", ln);
				return -1;
			}
		}
	}
	return 0;
}

/* Upper bounds of the vertices and triangles of an OBJ (v lines; per f
 * line its indices less 2) or ASCII STL text (vertex lines, a third of
 * them), counted before anything is stored, so that a file over the
 * limits is refused at the size of its text. */
static void count_text(const char *s, int obj, long *nv, long *nt)
{
	*nv = *nt = 0;
	for (; *s; s += *s == '\n') {
		while (*s != '\n' && isspace((unsigned char)*s))
			s++;
		if (obj && s[0] == 'f' && isspace((unsigned char)s[1])) {
			long k = 0;
			for (s++; *s && *s != '\n'; k++) {
				s += strspn(s, " \t\r\v\f");
				if (!*s || *s == '\n')
					break;
				s += strcspn(s, " \t\r\v\f\n");
			}
			*nt += k > 2 ? k - 2 : 0;
		} else if (obj ? s[0] == 'v' && isspace((unsigned char)s[1])
			   : strncmp(s, "vertex", 6) == 0) {
			++*nv;
		}
		s += strcspn(s, "\n");
	}
	if (!obj)
		*nt = *nv / 3;
}

/* Room for nv vertices and nt triangles in g, or -1 with why in err when
 * either is over MESH_MAX_ELEMS. */
static int reserve(struct tri_buf *g, long nv, long nt, char *err, int n)
{
	if (nv > MESH_MAX_ELEMS || nt > MESH_MAX_ELEMS) {
		snprintf(err, (size_t)n, "%ld vertices and %ld triangles, more than %ld", nv, nt,
			 (long)MESH_MAX_ELEMS);
		return -1;
	}
	g->vcap = nv > 0 ? nv : 1;
	g->tcap = nt > 0 ? nt : 1;
	g->v = xmalloc((size_t)g->vcap * 3 * sizeof(double));
	g->t = xmalloc((size_t)g->tcap * 3 * sizeof(int));
	return 0;
}

static int ends_with(const char *s, const char *suf)
{
	size_t a = strlen(s), b = strlen(suf);
	if (a < b)
		return 0;
	for (size_t i = 0; i < b; i++)
		if (tolower((unsigned char)s[a - b + i]) != suf[i])
			return 0;
	return 1;
}

/* The mesh of the NUL-terminated text buf of len bytes (changed in
 * place) of a file named name (its extension tells the format). */
int mesh_parse(char *buf, long len, const char *name, struct shape_mesh *out, char *err,
	       int n)
{
	struct tri_buf g = { 0 };
	long nv, nt;
	int rc;
	int obj = ends_with(name, ".obj");
	int stl = ends_with(name, ".stl");
	memset(out, 0, sizeof(*out));
	if (!obj && !stl) {
		snprintf(err, (size_t)n, "unknown mesh format (the name must end in .stl or .obj)");
		rc = -1;
	} else if (obj && strlen(buf) != (size_t)len) {
		snprintf(err, (size_t)n, "a NUL byte at offset %zu (an OBJ file is text)", strlen(buf));
		rc = -1;
	} else if (obj) {
		count_text(buf, 1, &nv, &nt);
		rc = reserve(&g, nv, nt, err, n) || read_obj(buf, &g, err, n);
	} else if (len >= 84 && 84 + 50 * (((long)(unsigned char)buf[80] |
					   (long)(unsigned char)buf[81] << 8 |
					   (long)(unsigned char)buf[82] << 16 |
					   (long)(unsigned char)buf[83] << 24)) == len) {
		/* a binary STL may begin with "solid" too: its size decides */
		nt = (len - 84) / 50;
		rc = reserve(&g, 3 * nt, nt, err, n) ||
		     read_stl_binary((const unsigned char *)buf, len, &g, err, n);
	} else if (strncmp(skip_ws(buf), "solid", 5) == 0 && strlen(buf) == (size_t)len) {
		count_text(buf, 0, &nv, &nt);
		rc = reserve(&g, nv, nt, err, n) || read_stl_ascii(buf, &g, err, n);
	} else {
		snprintf(err, (size_t)n, "neither ASCII STL (beginning with 'solid') nor binary STL "
			 "(84 + 50 x triangles bytes)");
		rc = -1;
	}
	if (rc == 0 && g.nt == 0) {
		snprintf(err, (size_t)n, "no triangles");
		rc = -1;
	}
	if (rc) {
		free(g.v);
		free(g.t);
		return -1;
	}
	out->file = xstrdup(name);
	out->nv = (int)g.nv, out->nt = (int)g.nt;
	out->v = g.v, out->t = g.t;
	return 0;
}

int mesh_read(const char *path, struct shape_mesh *out, char *err, int n)
{
	memset(out, 0, sizeof(*out));
	struct stat st;
	if (stat(path, &st) != 0) {
		snprintf(err, (size_t)n, "%s", strerror(errno));
		return -1;
	}
	const char *kind = file_not_regular(&st);
	if (kind) {	/* a FIFO or device would block or never end */
		snprintf(err, (size_t)n, "it is %s", kind);
		return -1;
	}
	FILE *f = fopen(path, "rb");
	if (!f) {
		snprintf(err, (size_t)n, "%s", strerror(errno));
		return -1;
	}
	long len = -1;
	if (fseek(f, 0, SEEK_END) == 0)
		len = ftell(f);
	if (len < 0 || fseek(f, 0, SEEK_SET) != 0) {
		snprintf(err, (size_t)n, "not a regular file");
		fclose(f);
		return -1;
	}
	if (len > MESH_MAX_BYTES) {
		snprintf(err, (size_t)n, "larger than %ld MB", MESH_MAX_BYTES >> 20);
		fclose(f);
		return -1;
	}
	char *buf = xmalloc((size_t)len + 1);
	size_t got = fread(buf, 1, (size_t)len, f);
	int rerr = ferror(f);
	fclose(f);
	if (rerr || got != (size_t)len) {
		snprintf(err, (size_t)n, "read error");
		free(buf);
		return -1;
	}
	buf[len] = 0;
	int rc = mesh_parse(buf, len, path, out, err, n);
	free(buf);
	return rc;
}
