/* cli.h - subcommands and what they share. Exit statuses: */
#ifndef MBSIM_CLI_H
#define MBSIM_CLI_H

#include <pthread.h>
#include <signal.h>
#include <stdio.h>

#include "../model/model.h"
#include "../model/options.h"
#include "../util/diag.h"

enum {
	EXIT_OK = 0,		/* success */
	EXIT_SIM = 1,		/* simulation failed or was interrupted */
	EXIT_DECK = 2,		/* invalid deck */
	EXIT_USAGE = 64,	/* bad command line */
};

struct deck;

int cmd_run(int argc, char **argv);
int cmd_check(int argc, char **argv);
int cmd_list(int argc, char **argv);
int cmd_help(int argc, char **argv);
int cmd_converge(int argc, char **argv);
int cmd_compare(int argc, char **argv);
int cmd_spectral(int argc, char **argv);
int cmd_static(int argc, char **argv);
int cmd_modes(int argc, char **argv);
int cmd_summary(int argc, char **argv);
int cmd_export(int argc, char **argv);
int cmd_linearize(int argc, char **argv);
/* export --csv (cmd_export_csv.c), which cmd_export hands its arguments to */
int cmd_export_csv(int argc, char **argv);

/* Parse static's command line and load the deck: 0, or 1 with the exit
 * status in *status (cmd_static.c; modes parses its own, which adds -o,
 * --force and --at). */
int cli_static_open(int argc, char **argv, const char *usage, struct deck **dk,
		    struct model **m, struct sim_options *o, double *t, int *json, int *status);
struct ra;
struct ra_state;
struct statics_result;
/* static: DECK, --set, --time (NAN when absent), --json.  0, 1 after
 * --help, -1 after a usage error; *sets malloc'd either way. */
int cli_static_parse(int argc, char **argv, const char *usage, const char **deck, char ***sets,
		     int *nsets, double *time, int *json);
/* Static equilibrium of s at t0 from the model's initial state into x
 * (res may be NULL).  0, or -1 after the report (stderr; stdout too with
 * json). */
struct statics_options;
/* --time T or --at T at argv[*i] (modes, linearize): 1 when one is taken
 * (T in *t; *at or *time set, the other refused), 0 when neither is
 * there, -1 after a usage error. */
int cli_time_opt(int argc, char **argv, int *i, const char *usage, double *t, int *at,
		 int *time);
/* Run the deck from time.start to t with its integrator, writing nothing
 * (at_start: set-up only, the assembled initial state at time.start),
 * and call at(ctx, system, state reached) at the end.  0, or EXIT_SIM
 * after a message (stderr; with json a JSON failure object on stdout). */
int cli_run_to(struct model *m, struct sim_options o, double t, int at_start,
	       void (*at)(void *ctx, struct ra *s, const struct ra_state *x), void *ctx,
	       int json, const char *cmdline);
int cli_static_solve(struct ra *s, struct ra_state *x, double t0, int json,
		     const struct statics_options *so,
		     struct statics_result *res);
/* run --from-static: the model's initial positions and orientations
 * replaced by the static equilibrium at t0, velocities by 0, or, with
 * mode > 0 (--excite-mode), by those that start the free vibration of
 * that mode of the linearized system at amplitude amp.  0, or -1 after
 * the report (with json, the JSON object of mbsim static's failure on
 * stdout too). */
int cli_static_model(struct model *m, double t0, int json, int mode, double amp);

/* run --restart FILE.h5[@T] (restart.c): the checkpoint row at T (the
 * last without @T) of FILE, checked against the model m and options o
 * (the same model structure and scheme, T before time.end): 0, or
 * EXIT_DECK after the reason on stderr. */
struct model;
struct sim_options;
struct cli_restart {
	char *file;
	double t;
	double *v;
	long n;
};
int cli_restart_read(const char *arg, const struct model *m, const struct sim_options *o,
		     struct cli_restart *rs);
void cli_restart_free(struct cli_restart *rs);

/* Print every record of d to stderr; returns d->nerr. */
int cli_print_diag(const struct diag *d);
/* Load DECK, apply the --set list, build. Returns 0, EXIT_DECK (errors
 * printed), or EXIT_SIM when a signal caught by cli_catch_signals stopped
 * the loading (message printed). On success *dk and *m are owned by the
 * caller. */
int cli_load(const char *path, char **sets, int nsets, struct deck **dk,
	     struct model **m, struct sim_options *o);
/* cli_load for static and modes: no integrator or formulation checks
 * (they integrate nothing; a deck needs no integrator for them). */
int cli_load_statics(const char *path, char **sets, int nsets, struct deck **dk,
		     struct model **m, struct sim_options *o);
/* A model with contact for modes --at or linearize: the error (static,
 * modes and linearize take no contact) and EXIT_DECK; 0 without contact. */
int cli_refuse_contact(const struct model *m);
/* EXIT_DECK with a message at the first motor whose effort has an
 * integral term (its state is not a coordinate of linearize's system),
 * else 0. */
int cli_refuse_integral(const struct model *m);
/* cli_load, and the first error's message (without FILE:LINE:COL) in why:
 * what `run` records in the file it leaves when interrupted while loading. */
int cli_load_why(const char *path, char **sets, int nsets, struct deck **dk,
		 struct model **m, struct sim_options *o, char *why, size_t whylen);
/* JSON on stdout: a quoted, escaped string; a number or null; an array
 * of n numbers. */
void cli_json_str(const char *s);
void cli_json_num(double x);
/* What a non-finite x was, for the reason that goes with its null. */
const char *cli_nonfinite_reason(double x);
/* " (did you mean 'x'?)" for word among the NULL-terminated cands, or ""
 * (static storage; util/suggest.h says what is close). */
const char *cli_suggest(const char *word, const char *const *cands);
void cli_json_array(const double *v, int n);
void cli_usage_error(const char *usage, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
/* The value of option argv[*i] when it is name: "--name VALUE" (advances
 * *i) or "--name=VALUE".  NULL when argv[*i] is another option, or when
 * the value is missing: then *err = 1 and the usage error is printed. */
const char *cli_optval(int argc, char **argv, int *i, const char *name, const char *usage,
		       int *err);

/* --set KEY=VALUE or --unset KEY at argv[*i]: appended to sets (an
 * unset as DECK_UNSET_MARK KEY, allocated), in order.  1 when consumed, 0
 * when argv[*i] is neither; *err = 1 when the value is missing. */
int cli_setopt(int argc, char **argv, int *i, const char *usage, int *err, char **sets,
	       int *nsets);
/* Free sets of cli_setopt (the unset entries it allocated) and the array. */
void cli_sets_free(char **sets, int nsets);

/* Catch SIGINT and SIGTERM for the runs of a command: returns the flag
 * they set (util/interrupt.h), for sim_args.stop (the run loop polls it
 * once per step and ends with status "interrupted"; the loader, builder
 * and assembly poll it too).  Call it before cli_load. */
volatile sig_atomic_t *cli_catch_signals(void);
/* Refuse an output path that is the deck, a directory, a FIFO, or an
 * existing file that is not an mbsim output (no root attribute status),
 * unless force (run -o, modes -o).  0, or -1 after a usage message. */
int cli_check_output(const char *usage, const char *deck, const char *out, int force);
/* cli_check_output in two halves, for a caller that reads its deck
 * meanwhile and makes no HDF5 call before the end: begin makes the checks
 * by stat(2) (-1 after the message) and starts the one that opens an
 * existing file; end waits for it (-1 after the message).  end is called
 * whenever begin returned 0, before anything is written. */
struct cli_out_check {
	const char *usage, *out;
	pthread_t th;
	int asked, started, ok;
};
int cli_check_output_begin(const char *usage, const char *deck, const char *out, int force,
			   struct cli_out_check *c);
int cli_check_output_end(struct cli_out_check *c);
/* "mbsim ARG..." for the files' command_line attribute (malloc'd). */
char *cli_join_args(int argc, char **argv);
/* The --set arguments KEY=VALUE for the files' "settings" attribute
 * (malloc'd): each followed by a newline, a backslash or a newline inside
 * one written as \\ or \n (sim.h, struct sim_args). */
char *cli_join_sets(char *const *sets, int n);

/* 1 when a dataset of cols columns at path holds orientation quaternions,
 * one (bodies/NAME/orientation) or one per body (/bodies/orientation,
 * cols = 4 nb), whose q and -q are the same rotation (compare each up to
 * sign: cli_quat_sign on its 4 columns). */
int cli_is_quat(const char *path, int cols);
/* Seed 002 eq. 11: the largest step at which Newmark(gamma, beta) is
 * stable on a linear system of largest natural frequency omega (rad/s),
 * (1 / omega) / sqrt(gamma / 2 - beta); infinite when beta >= gamma / 2
 * (unconditionally stable) or omega <= 0.  run's summary, modes' table. */
double cli_newmark_hmax(double omega, double beta, double gamma);
/* Column of the component word c (a --quantity's PATH:COMP) in a dataset
 * of ncols columns at path: x, y, z (after w in a quaternion (w,x,y,z):
 * an orientation, not any dataset of 4 columns such as a universal
 * joint's multipliers, cli_is_quat) or a 0-based index; -1 when c is
 * NULL (no component named), -2 when there is no such column. */
int cli_comp_col(const char *c, const char *path, int ncols);
/* Cut path at its last ':' when the word after it holds no '/' and return
 * that word (the component), else NULL: a ':' in a body or joint name
 * ("bodies/b:1/position") is part of the path. */
char *cli_comp_split(char *path);
/* -1 when the quaternions a and b (4 each) point to opposite hemispheres
 * (a.b < 0), else 1: -a is then compared with b. */
double cli_quat_sign(const double *a, const double *b);
/* p with a leading '/' (malloc'd): a dataset path as given on the command line. */
char *cli_abs_path(const char *p);
/* A --quantity PATH[:COMP] (summary's without its @TIME): the absolute
 * dataset path without the component (malloc'd), *comp the component
 * word in it (cli_comp_split) or NULL. */
char *cli_quant_path(const char *spec, const char **comp);
/* One CSV field on out (RFC 4180: quoted when it holds a comma, quote or
 * line break, quotes doubled), after a comma unless first; NULL is an
 * empty field. */
void cli_csv_field(FILE *out, const char *s, int first);

#endif
