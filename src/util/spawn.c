/* spawn.c - see spawn.h */
#define _GNU_SOURCE	/* sched_getcpu, pthread_attr_setaffinity_np */
#include "spawn.h"

#include <malloc.h>
#include <sched.h>

int spawn_elsewhere(pthread_t *th, void *(*fn)(void *), void *arg)
{
	cpu_set_t set;
	int here = sched_getcpu(), rc = -1;
	pthread_attr_t at;
	if (here >= 0 && sched_getaffinity(0, sizeof set, &set) == 0 && CPU_ISSET(here, &set)) {
		CPU_CLR(here, &set);
		if (CPU_COUNT(&set) > 0 && pthread_attr_init(&at) == 0) {
			/* a process-wide setting, made only when a thread is
			 * to be had (spawn.h) */
			mallopt(M_ARENA_MAX, 1);
			if (pthread_attr_setaffinity_np(&at, sizeof set, &set) == 0 &&
			    pthread_create(th, &at, fn, arg) == 0)
				rc = 0;
			pthread_attr_destroy(&at);
		}
	}
	return rc;
}

void join_here(pthread_t th)
{
	cpu_set_t set;
	if (sched_getaffinity(0, sizeof set, &set) == 0)
		pthread_setaffinity_np(th, sizeof set, &set);
	pthread_join(th, NULL);
}
