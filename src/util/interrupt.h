/* interrupt.h - the one piece of process-wide state: a stop request.
 *
 * Set asynchronously by the SIGINT/SIGTERM handler that cli_catch_signals
 * (src/cli/common.c) installs; polled by every loop that can run long on
 * a large model - the YAML reader, the builder's element loops,
 * model_finalize, the assembly of initial conditions, the run loop and
 * every Newton iteration inside a step (INTEG_INTERRUPTED) - so
 * that a signal ends a run within a second, set-up included (issue 17: a
 * 1e4-link chain ignored SIGTERM for 27 minutes of set-up).  A loop that
 * sees it stops, reports where, and unwinds like any failure; the command
 * then exits 1.
 */
#ifndef MBSIM_INTERRUPT_H
#define MBSIM_INTERRUPT_H

#include <signal.h>

extern volatile sig_atomic_t interrupt_flag;

static inline int interrupted(void)
{
	return interrupt_flag != 0;
}

#endif
