/* fuzz_curve.c - libFuzzer target: the input is a curve's CSV file, read
 * by curve_read_csv (model/curve.h) as `mbsim check` reads the file of a
 * curves: item, then prepared as linear and cubic curves and evaluated
 * at and between its knots.  An accepted curve must have finite knots
 * (the reader refuses nan and inf) with the line and column of a
 * refusal. */
#include "model/curve.h"

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	FILE *f = fmemopen((void *)data, size ? size : 1, "r");
	if (!f)
		return 0;
	struct curve c = { 0 };
	long line, col;
	char err[128];
	int rc = size ? curve_read_csv(f, &c, &line, &col, err, sizeof err) : 0;
	fclose(f);
	if (rc != 0 && (line < 1 || col < 0))
		abort();	/* a fault without its place */
	for (int k = 0; rc == 0 && k < c.n; k++)
		if (!isfinite(c.x[k]) || !isfinite(c.y[k]))
			abort();	/* a non-finite knot accepted */
	int bad;
	for (int cubic = 0; rc == 0 && c.n >= 2 && cubic < 2; cubic++) {
		c.interp = cubic ? CURVE_CUBIC : CURVE_LINEAR;
		if (curve_prepare(&c, &bad))
			break;
		for (int k = 0; k < c.n; k++) {
			double dy;
			curve_eval(&c, c.x[k], &dy);
			if (k + 1 < c.n)
				curve_eval(&c, 0.5 * (c.x[k] + c.x[k + 1]), &dy);
		}
		curve_eval(&c, -INFINITY, NULL);
		curve_eval(&c, NAN, NULL);
	}
	curve_release(&c);
	return 0;
}
