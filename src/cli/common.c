/* common.c - what the subcommands share: deck loading, options, signals,
 * messages, JSON. */
#include "cli.h"
#include "../deck/deck.h"
#include "../util/interrupt.h"
#include "../util/xalloc.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The one piece of process-wide state lives in util/interrupt.h, where
 * the loader, the builder and the assembly can poll it too. */
static void on_signal(int sig)
{
	(void)sig;
	interrupt_flag = 1;
}

volatile sig_atomic_t *cli_catch_signals(void)
{
	struct sigaction sa;
	memset(&sa, 0, sizeof sa);
	sa.sa_handler = on_signal;
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	return &interrupt_flag;
}

char *cli_join_args(int argc, char **argv)
{
	size_t n = 8;
	for (int i = 0; i < argc; i++)
		n += strlen(argv[i]) + 1;
	char *s = xcalloc(n, 1);
	strcat(s, "mbsim");
	for (int i = 0; i < argc; i++) {
		strcat(s, " ");
		strcat(s, argv[i]);
	}
	return s;
}

const char *cli_optval(int argc, char **argv, int *i, const char *name, const char *usage,
		       int *err)
{
	const char *a = argv[*i];
	size_t n = strlen(name);
	if (strncmp(a, name, n) != 0)
		return NULL;
	if (a[n] == '=')
		return a + n + 1;
	if (a[n])
		return NULL;
	if (*i + 1 >= argc) {
		cli_usage_error(usage, "%s needs a value", name);
		*err = 1;
		return NULL;
	}
	return argv[++*i];
}

int cli_is_quat(const char *path, int cols)
{
	size_t n = strlen(path);
	return cols == 4 && n >= 12 && strcmp(path + n - 12, "/orientation") == 0;
}

double cli_quat_sign(const double *a, const double *b)
{
	return a[0] * b[0] + a[1] * b[1] + a[2] * b[2] + a[3] * b[3] < 0 ? -1.0 : 1.0;
}

char *cli_abs_path(const char *p)
{
	return xasprintf("%s%s", p[0] == '/' ? "" : "/", p);
}

int cli_print_diag(const struct diag *d)
{
	for (int i = 0; i < d->n; i++) {
		char *s = diag_format(d, i);
		fprintf(stderr, "%s\n", s);
		free(s);
	}
	return d->nerr;
}

void cli_usage_error(const char *usage, const char *fmt, ...)
{
	va_list ap;
	fprintf(stderr, "mbsim: error: ");
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fprintf(stderr, "\nusage: %s", usage);
}

int cli_load(const char *path, char **sets, int nsets, struct deck **pdk,
	     struct model **m, struct sim_options *o)
{
	struct diag d;
	diag_init(&d);
	*m = NULL;
	struct deck *dk = deck_load(path, &d);
	if (dk) {
		for (int i = 0; i < nsets; i++)
			deck_set(dk, sets[i], &d);
		if (d.nerr == 0)
			deck_build(dk, m, o, &d);
	}
	int nerr = cli_print_diag(&d);
	diag_release(&d);
	if (nerr || !*m) {
		if (*m)
			model_free(m);
		deck_free(&dk);
		return interrupted() ? EXIT_SIM : EXIT_DECK;
	}
	*pdk = dk;
	return EXIT_OK;
}

void cli_json_str(const char *s)
{
	putchar('"');
	for (; *s; s++)
		if (*s == '"' || *s == '\\')
			printf("\\%c", *s);
		else
			putchar(*s);
	putchar('"');
}

void cli_json_num(double x)
{
	if (isfinite(x))
		printf("%.17g", x);
	else
		printf("null");
}

void cli_json_array(const double *v, int n)
{
	putchar('[');
	for (int i = 0; i < n; i++) {
		if (i)
			printf(", ");
		cli_json_num(v[i]);
	}
	putchar(']');
}
