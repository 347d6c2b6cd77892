/* spawn.h - a helper thread on another processor, and its join.
 *
 * Used where a piece of work can overlap the main thread's: the HDF5
 * file's layout (io/h5.c, h5_start) and the check of an existing output
 * (cli/common.c).  A new thread often starts on its parent's processor,
 * and sharing it costs the run as much time as it saves (measured, 2
 * processors).  The first spawn sets M_ARENA_MAX to 1: the threads
 * allocate from the main thread's heap (in an arena of its own glibc grew
 * the arena a page at a time, 176 mprotect calls for the layout of a
 * pendulum's file, where the main heap grows by M_TOP_PAD, 128 kB, a
 * time; an earlier thread's arena would be reused by the later ones).
 */
#ifndef MBSIM_SPAWN_H
#define MBSIM_SPAWN_H

#include <pthread.h>

/* A thread running fn(arg) on another processor than this thread's (0),
 * or none (-1: one processor, or no thread to be had). */
int spawn_elsewhere(pthread_t *th, void *(*fn)(void *), void *arg);
/* Wait for th, which may run on this thread's processor from now on:
 * kept off it, it could wait for a processor busy with another process
 * while this one idles. */
void join_here(pthread_t th);

#endif
