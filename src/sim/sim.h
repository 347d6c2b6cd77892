/* sim.h - the run loop: assembly, time stepping, monitors, output.  The
 * loop knows a scheme by its registry row and ops (integ.h) alone. */
#ifndef MBSIM_SIM_H
#define MBSIM_SIM_H

#include <signal.h>

#include "../integ/integ.h"
#include "../model/model.h"
#include "../model/options.h"

struct ra;
struct ra_state;

struct sim_args {
	const struct model *m;
	const struct sim_options *o;
	const char *out_path;		/* HDF5 file to write, or NULL for none */
	const char *deck_text;		/* stored as dataset /deck */
	const char *command_line;	/* stored as attribute "command_line" */
	int progress;			/* draw a progress bar on stderr */
	volatile sig_atomic_t *stop;	/* set asynchronously to interrupt */
	/* when not NULL, called once with the system and the final state of a
	 * complete run, before they are freed (mbsim modes --at) */
	void (*at_end)(void *ctx, struct ra *s, const struct ra_state *x);
	void *at_end_ctx;
	/* the --set arguments KEY=VALUE as data: each followed by a newline,
	 * a backslash and a newline inside one written \\ and \n (stored as
	 * attribute "settings"; NULL: none written) */
	const char *settings;
	/* 1: stop after set-up, and call at_end with the assembled initial
	 * state, its accelerations and multipliers taken (mbsim linearize) */
	int at_start;
	/* --restart: the checkpoint row to continue from (NULL: a run from
	 * the deck's initial state), its length, and the file and the time
	 * it came from (root attributes restart_file, restart_time) */
	const double *restart;
	long nrestart;
	const char *restart_file;
	double restart_t;
	/* when not NULL, called with each sample's state (written or not:
	 * the second run of the global error assessment has no file) */
	void (*on_sample)(void *ctx, const struct ra *s, const struct ra_state *x);
	void *on_sample_ctx;
};

/* The checkpoint row's header (man mbsim-output(5), CHECKPOINT), read by
 * mbsim run --restart before the run: layout version, the model's
 * structure hash (model_structure_hash: high and low 32 bits), the scheme
 * (sim_ckpt_scheme_id of its name), the row's length, its time, the
 * steps taken to it, 1 when the scheme comes back bit for bit. */
enum {
	SIM_CK_VERSION, SIM_CK_HASH_HI, SIM_CK_HASH_LO, SIM_CK_SCHEME, SIM_CK_SIZE, SIM_CK_TIME,
	SIM_CK_STEPS, SIM_CK_EXACT, SIM_CK_HEAD
};
#define SIM_CK_LAYOUT 1.0
unsigned long sim_ckpt_scheme_id(const char *name);

enum sim_status { SIM_COMPLETE = 0, SIM_FAILED = 1, SIM_INTERRUPTED = 2 };

struct sim_result {
	enum sim_status status;
	char message[1024];		/* failure reason ("" when complete), or the
					 * event that stopped a complete run */
	int refused;			/* --restart: the checkpoint does not fit the
					 * run (message), nothing computed */
	int stopped;			/* 1: a stop event ended the run (status
					 * SIM_COMPLETE, message "event NAME at t = T") */
	long steps;
	long samples;
	double t_reached;
	double wall;			/* seconds, run loop only */
	double max_pos_res, max_vel_res, max_acc_res;	/* 2-norms over samples */
	double max_abs_drift;		/* max |total - total(t0)| */
	double max_kinetic;
	/* the energy balance (sim/balance.h): the energy the run held or
	 * exchanged, the round-off below which a drift says nothing, the
	 * largest drift a run that is right can show, J; and the warning when
	 * the drift passed it ("" otherwise) */
	double energy_scale, energy_floor, energy_bound;
	char warning[512];
	double mean_iterations;
	long factorizations;
	long rejected;			/* steps rejected by the step control */
	double moved_pos, moved_vel;	/* initial-condition corrections (max per body) */
	char moved_pos_body[64], moved_vel_body[64];
	char solver[16];		/* linear solver used */
	double output_buffer;		/* bytes of samples kept in memory at once */
	int redundant;			/* constraint rows dropped as redundant at set-up */
	long singular_steps;		/* steps taken again near a singular position */
	long road_cuts;			/* adaptive steps cut short by an element's step
					 * limit (a tire's road look-ahead) */
	char redundant_rows[1024];	/* their names, "joint 'r5' row 5 (DP1), ..." */
	/* the scheme's own statistics (integ.h, integ_ops.stat_keys): the
	 * first nstats keys of stat_keys and their values */
	const struct integ_stat_key *stat_keys;
	double stats[INTEG_STATS_MAX];
	int nstats;
	char notes[512];		/* the scheme's lines for the summary, or "" */
	const char *iter_unit;		/* of mean_iterations: "Newton it", "f evaluations" */
	/* integrator.assess_error (assess.h): 1 when assessed; the largest
	 * differences from the run at a tenth of atol and rtol at the
	 * samples, of the bodies' centroid positions (m, at gerr_t in body
	 * gerr_body) and velocities (m/s); the first in units of atol + rtol
	 * gerr_scale (the largest |position coordinate| of the run); the
	 * second run's wall time, s */
	int gerr_done;
	double gerr_pos, gerr_vel, gerr_factor, gerr_scale, gerr_t, gerr_wall;
	char gerr_body[64];
};

/* Run the simulation. Returns the status; details in r.  Set-up errors
 * (cannot create output) are reported in d and give SIM_FAILED. */
enum sim_status sim_run(const struct sim_args *a, struct sim_result *r, struct diag *d);

/* The formulation a run of o steps: "tree" or "rp" when
 * integrator.formulation says so, else the scheme's registry formulation
 * ("ra", "rp"). */
const char *sim_formulation_name(const struct sim_options *o);
/* 1 when the run's formulation is tree (integrator.formulation, or bdf's
 * own) */
int sim_formulation_is_tree(const struct sim_options *o);

#endif
