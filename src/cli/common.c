/* common.c - what the subcommands share: deck loading, options, signals,
 * messages, JSON. */
#include "cli.h"
#include "../deck/deck.h"
#include "../form/ra.h"
#include "../form/tree.h"
#include "../integ/integ.h"
#include "../integ/newmark.h"
#include "../io/h5read.h"
#include "../model/contact.h"
#include "../sim/check_t0.h"
#include "../sim/choose.h"
#include "../sim/sim.h"
#include "../util/file.h"
#include "../util/suggest.h"
#include "../util/interrupt.h"
#include "../util/spawn.h"
#include "../util/xalloc.h"

#include <ctype.h>
#include <math.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

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

char *cli_join_sets(char *const *sets, int n)
{
	size_t len = 1;
	for (int i = 0; i < n; i++)
		len += 2 * strlen(sets[i]) + 1;
	char *s = xcalloc(len, 1), *p = s;
	for (int i = 0; i < n; i++) {
		for (const char *c = sets[i]; *c; c++) {
			if (*c == '\\' || *c == '\n')
				*p++ = '\\';
			*p++ = *c == '\n' ? 'n' : *c;
		}
		*p++ = '\n';
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

int cli_setopt(int argc, char **argv, int *i, const char *usage, int *err, char **sets,
	       int *nsets)
{
	const char *v;
	if ((v = cli_optval(argc, argv, i, "--set", usage, err))) {
		sets[(*nsets)++] = (char *)v;
		return 1;
	}
	if (*err || !(v = cli_optval(argc, argv, i, "--unset", usage, err)))
		return 0;
	sets[(*nsets)++] = xasprintf("%s%s", DECK_UNSET_MARK, v);
	return 1;
}

void cli_sets_free(char **sets, int nsets)
{
	for (int k = 0; k < nsets; k++)
		if (strncmp(sets[k], DECK_UNSET_MARK, strlen(DECK_UNSET_MARK)) == 0)
			free(sets[k]);
	free(sets);
}

int cli_is_quat(const char *path, int cols)
{
	size_t n = strlen(path);
	return cols > 0 && cols % 4 == 0 && n >= 12 && strcmp(path + n - 12, "/orientation") == 0;
}

double cli_newmark_hmax(double omega, double beta, double gamma)
{
	return nm_hmax(omega, beta, gamma);
}

int cli_comp_col(const char *c, const char *path, int ncols)
{
	if (!c)
		return -1;
	int quat = ncols == 4 && cli_is_quat(path, ncols), off = quat ? 1 : 0, k = -2;
	if (strcmp(c, "x") == 0 || strcmp(c, "y") == 0 || strcmp(c, "z") == 0) {
		k = off + (c[0] - 'x');
	} else if (strcmp(c, "w") == 0) {
		k = quat ? 0 : -2;
	} else if (isdigit((unsigned char)c[0])) {	/* no sign, no blank */
		char *end;
		long i = strtol(c, &end, 10);
		/* compared as long: an index beyond ncols, not a wrapped int */
		k = *end || i >= ncols ? -2 : (int)i;
	}
	return k < ncols ? k : -2;
}

char *cli_comp_split(char *path)
{
	char *colon = strrchr(path, ':');
	if (!colon || strchr(colon, '/'))
		return NULL;
	*colon = 0;
	return colon + 1;
}

double cli_quat_sign(const double *a, const double *b)
{
	return a[0] * b[0] + a[1] * b[1] + a[2] * b[2] + a[3] * b[3] < 0 ? -1.0 : 1.0;
}

char *cli_abs_path(const char *p)
{
	return xasprintf("%s%s", p[0] == '/' ? "" : "/", p);
}

char *cli_quant_path(const char *spec, const char **comp)
{
	char *path = cli_abs_path(spec);
	*comp = cli_comp_split(path);
	return path;
}

void cli_csv_field(FILE *out, const char *s, int first)
{
	if (!first)
		fputc(',', out);
	if (!s)
		return;
	if (!strpbrk(s, ",\"\n\r")) {
		fputs(s, out);
		return;
	}
	fputc('"', out);
	for (; *s; s++) {
		if (*s == '"')
			fputc('"', out);
		fputc(*s, out);
	}
	fputc('"', out);
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

static int load(const char *path, char **sets, int nsets, struct deck **pdk,
		struct model **m, struct sim_options *o, char *why, size_t whylen, int stepped);

int cli_load(const char *path, char **sets, int nsets, struct deck **pdk,
	     struct model **m, struct sim_options *o)
{
	return load(path, sets, nsets, pdk, m, o, NULL, 0, 1);
}

int cli_load_statics(const char *path, char **sets, int nsets, struct deck **pdk,
		     struct model **m, struct sim_options *o)
{
	return load(path, sets, nsets, pdk, m, o, NULL, 0, 0);
}

int cli_load_why(const char *path, char **sets, int nsets, struct deck **pdk,
		 struct model **m, struct sim_options *o, char *why, size_t whylen)
{
	return load(path, sets, nsets, pdk, m, o, why, whylen, 1);
}

/* A model with contact for static, modes or linearize: refused at its first
 * contact material or plane (contact forces come and go with the
 * configuration, and their friction holds a state of the motion). */
static void refuse_contact(const struct model *m, struct diag *d)
{
	const struct model_contact *mc = m->contact;
	const struct srcpos *pos = mc->nmat ? &mc->mat[0].pos :
				   mc->nplanes ? &mc->planes[0].pos : NULL;
	diag_error(d, pos, "mbsim static, modes and linearize do not take contact: the deck's "
		   "contact forces depend on the motion (friction states, impacts); run the "
		   "deck instead");
}

int cli_refuse_contact(const struct model *m)
{
	if (!m->contact)
		return 0;
	struct diag d;
	diag_init(&d);
	refuse_contact(m, &d);
	cli_print_diag(&d);
	diag_release(&d);
	return EXIT_DECK;
}

int cli_refuse_integral(const struct model *m)
{
	int i = ra_ctrl_first(m);
	if (i < 0)
		return 0;
	struct diag d;
	diag_init(&d);
	diag_error(&d, &m->forces[i].pos, "mbsim linearize does not take motor '%s': the integral "
		   "of its control error (ki) is a state of the motion that its A, B, C, D, in the "
		   "coordinates and their rates, do not have; linearize without it (--set its ki to 0) "
		   "and add the integrator to the controller", m->forces[i].name);
	cli_print_diag(&d);
	diag_release(&d);
	return EXIT_DECK;
}

/* stepped: the model is for an integrator (run, check, converge), whose
 * formulation and scheme must take it; static and modes step nothing. */
static int load(const char *path, char **sets, int nsets, struct deck **pdk,
		struct model **m, struct sim_options *o, char *why, size_t whylen, int stepped)
{
	if (why && whylen)
		why[0] = 0;
	struct diag d;
	diag_init(&d);
	*m = NULL;
	struct deck *dk = deck_load(path, &d);
	if (dk) {
		for (int i = 0; i < nsets; i++)
			deck_apply(dk, sets[i], &d);
		if (d.nerr == 0)
			deck_build(dk, m, o, &d);
		if (d.nerr == 0 && *m && sim_choose_scheme(*m, o, &d) == 0 && o->method_auto)
			diag_note(&d, &o->method_pos, "integrator.method: auto chose %s%s%s%s: %s",
				  o->method, o->formulation == FORM_AUTO ? "" : " on ",
				  o->formulation == FORM_TREE ? "tree" : o->formulation == FORM_RP ?
				  "rp" : "", o->adaptive ? ", adaptive" : "", o->method_why);
		/* a model the formulation cannot take is a deck error (exit 2),
		 * reported at its elements */
		if (stepped && d.nerr == 0 && *m && sim_formulation_is_tree(o))
			tree_check(*m, &d);
		if (stepped && d.nerr == 0 && *m) {
			integ_check(*m, integ_find(o->method), o, &d);
		}
		if (!stepped && d.nerr == 0 && *m && (*m)->contact)
			refuse_contact(*m, &d);
		if (d.nerr == 0 && *m)
			sim_check_t0(*m, o->t0, &d);
	}
	int nerr = cli_print_diag(&d);
	if (nerr && why && whylen) {
		/* the first error's message, without FILE:LINE:COL */
		for (int i = 0; i < d.n; i++)
			if (!d.rec[i].is_note) {
				snprintf(why, whylen, "%s", d.rec[i].msg);
				break;
			}
	}
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

const char *cli_suggest(const char *word, const char *const *cands)
{
	static char buf[160];
	/* one letter after the dashes is no typo of another option: "-o"
	 * is not a misspelt "-h" */
	if (strlen(word + strspn(word, "-")) <= 1)
		return "";
	struct suggest sg;
	suggest_init(&sg, word);
	for (; *cands; cands++)
		suggest_add(&sg, *cands);
	return suggest_text(&sg, buf, sizeof buf);
}

/* Length of the well-formed UTF-8 sequence at s (RFC 3629: no overlong
 * forms, no surrogates, at most U+10FFFF), 0 when there is none. */
static int utf8_len(const unsigned char *s)
{
	int n;
	unsigned c = s[0], min;
	if (c < 0x80)
		return 1;
	if (c >= 0xc2 && c <= 0xdf)
		n = 2, c &= 0x1f, min = 0x80;
	else if (c >= 0xe0 && c <= 0xef)
		n = 3, c &= 0x0f, min = 0x800;
	else if (c >= 0xf0 && c <= 0xf4)
		n = 4, c &= 0x07, min = 0x10000;
	else
		return 0;
	for (int i = 1; i < n; i++) {
		if ((s[i] & 0xc0) != 0x80)
			return 0;
		c = (c << 6) | (s[i] & 0x3f);
	}
	if (c < min || c > 0x10ffff || (c >= 0xd800 && c <= 0xdfff))
		return 0;
	return n;
}

/* JSON text is UTF-8 with control characters escaped (RFC 8259 §7):
 * a byte that starts no valid sequence (a file name in another encoding)
 * becomes U+FFFD. */
void cli_json_str(const char *str)
{
	const unsigned char *s = (const unsigned char *)str;
	putchar('"');
	while (*s) {
		int n = utf8_len(s);
		if (*s == '"' || *s == '\\')
			printf("\\%c", *s);
		else if (*s == '\n')
			printf("\\n");
		else if (*s == '\t')
			printf("\\t");
		else if (*s < 0x20 || *s == 0x7f)
			printf("\\u%04x", *s);
		else if (n == 0)
			printf("\\ufffd");
		else
			fwrite(s, 1, (size_t)n, stdout);
		s += n ? n : 1;
	}
	putchar('"');
}

/* The shortest %.Ng that reads back as x (1e300, not 1.0000000000000001e+300). */
void cli_json_num(double x)
{
	if (!isfinite(x)) {
		printf("null");
		return;
	}
	char buf[32];
	for (int p = 15; p <= 17; p++) {
		snprintf(buf, sizeof buf, "%.*g", p, x);
		if (strtod(buf, NULL) == x)
			break;
	}
	printf("%s", buf);
}

const char *cli_nonfinite_reason(double x)
{
	return isnan(x) ? "not a number (NaN)" : x > 0 ? "+infinity" : "-infinity";
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

/* 1 when path is an HDF5 file with the root attribute "status" that
 * every mbsim output carries from its creation (man/mbsim-output.5) */
static int is_mbsim_output(const char *path)
{
	char err[256], status[64];
	struct h5in *f = h5r_open(path, err, sizeof err);
	if (!f)
		return 0;
	int ok = h5r_attr_str(f, "/", "status", status, sizeof status) == 0;
	h5r_close(&f);
	return ok;
}

static void *check_thread(void *arg)
{
	struct cli_out_check *c = arg;
	c->ok = is_mbsim_output(c->out);
	return NULL;
}

/* Refuse an output path that would destroy an input or a file that is
 * not an earlier result (issue 16: '-o copy.yaml' overwrote the deck).
 * The checks by stat(2) are made here; whether an existing regular file
 * is an mbsim output is asked of HDF5 in a thread of its own (the
 * library's start and the file's opening, ~1 ms, while the caller reads
 * the deck; no HDF5 call is made elsewhere until cli_check_output_end).
 * 0, or -1 after the message. */
int cli_check_output_begin(const char *usage, const char *deck, const char *out, int force,
			   struct cli_out_check *c)
{
	struct stat so, sd;
	memset(c, 0, sizeof(*c));
	c->usage = usage;
	c->out = out;
	if (lstat(out, &so) == 0 && S_ISLNK(so.st_mode) && stat(out, &sd) != 0) {
		/* the writer would create the file the link names, wherever
		 * that is (even with --force: there is nothing to overwrite) */
		char to[1024];
		ssize_t n = readlink(out, to, sizeof to - 1);
		to[n > 0 ? n : 0] = 0;
		cli_usage_error(usage, "output '%s' is a symbolic link to '%s', which does not "
				"exist: refusing to create a file through it (remove the link or "
				"name the file)", out, to);
		return -1;
	}
	if (force || stat(out, &so) != 0)
		return 0;	/* nothing there yet: the writer reports other errors */
	if (stat(deck, &sd) == 0 && so.st_dev == sd.st_dev && so.st_ino == sd.st_ino) {
		cli_usage_error(usage, "output '%s' is the deck '%s': refusing to overwrite "
				"it (--force to write it anyway)", out, deck);
		return -1;
	}
	if (S_ISDIR(so.st_mode)) {
		cli_usage_error(usage, "output '%s' is a directory", out);
		return -1;
	}
	if (S_ISCHR(so.st_mode))
		return 0;	/* /dev/null, /dev/full: no contents to lose */
	if (file_not_regular(&so)) {
		/* a FIFO would block the reading below until a writer came */
		cli_usage_error(usage, "output '%s' exists and is not a regular file (%s): "
				"refusing to write to it (--force to write it anyway)", out,
				file_not_regular(&so));
		return -1;
	}
	c->asked = 1;
	if (spawn_elsewhere(&c->th, check_thread, c) == 0)
		c->started = 1;
	else
		c->ok = is_mbsim_output(out);
	return 0;
}

int cli_check_output_end(struct cli_out_check *c)
{
	if (c->started)
		join_here(c->th);
	int refused = c->asked && !c->ok;
	c->started = c->asked = 0;
	if (refused)
		cli_usage_error(c->usage, "output '%s' exists and is not an mbsim output file "
				"(no HDF5 root attribute 'status'): refusing to overwrite it "
				"(--force to write it anyway)", c->out);
	return refused ? -1 : 0;
}

int cli_check_output(const char *usage, const char *deck, const char *out, int force)
{
	struct cli_out_check c;
	if (cli_check_output_begin(usage, deck, out, force, &c))
		return -1;
	return cli_check_output_end(&c);
}

int cli_run_to(struct model *m, struct sim_options o, double t, int at_start,
	       void (*at)(void *ctx, struct ra *s, const struct ra_state *x), void *ctx,
	       int json, const char *cmdline)
{
	if (!at_start)
		o.t_end = t;
	o.times = NULL;		/* the samples do not matter: nothing is written */
	o.ntimes = 0;
	struct sim_args a = { m, &o, NULL, NULL, cmdline, 0, cli_catch_signals(), at, ctx, NULL,
			      at_start, NULL, 0, NULL, 0, NULL, NULL };
	struct sim_result r;
	struct diag d;
	diag_init(&d);
	enum sim_status st = sim_run(&a, &r, &d);
	cli_print_diag(&d);
	diag_release(&d);
	if (st == SIM_COMPLETE)
		return 0;
	const char *why = r.message[0] ? r.message : "the run did not complete";
	if (json) {
		printf("{\"status\": \"failed\", \"message\": ");
		cli_json_str(why);
		printf("}\n");
	}
	if (at_start)
		fprintf(stderr, "mbsim: error: the initial state: %s\n", why);
	else
		fprintf(stderr, "mbsim: error: the run to t = %g: %s\n", t, why);
	return EXIT_SIM;
}

int cli_time_opt(int argc, char **argv, int *i, const char *usage, double *t, int *at,
		 int *time)
{
	int err = 0, isat = 0;
	const char *v;
	if (!(v = cli_optval(argc, argv, i, "--time", usage, &err)) && !err &&
	    !(isat = 1, v = cli_optval(argc, argv, i, "--at", usage, &err)))
		return err ? -1 : 0;
	if (err)
		return -1;
	char *end;
	*t = strtod(v, &end);
	if (!*v || *end || !isfinite(*t)) {
		cli_usage_error(usage, "%s must be a finite number of seconds, got '%s'",
				isat ? "--at" : "--time", v);
		return -1;
	}
	if (isat ? *time : *at) {
		cli_usage_error(usage, "--at and --time exclude each other");
		return -1;
	}
	*at |= isat;
	*time |= !isat;
	return 1;
}
