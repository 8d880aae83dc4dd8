/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Progress of a run, for people and for harnesses.  People get a line on
 * stderr per suite.  A harness that sets PTECHECK_STATUS to the path of a
 * file (guest/init: its status port) gets records appended to it, one
 * write() each, in a format documented in docs/vmtest.md ("Status
 * records") and read by guest/vmtest to tell which suite a dying kernel
 * was in:
 *
 *	suites NAME...		the suites the run will run, in order
 *	suite NAME begin	a suite starts
 *	scenario NAME		a scenario of the suite begun starts
 *	scenario-time NAME S	it ended after S seconds (wall clock)
 *	suite NAME end		its scenarios are done
 */
#ifndef PTECHECK_STATUS_H
#define PTECHECK_STATUS_H

/* Opens $PTECHECK_STATUS (append, never created); a warning when set but
   unusable.  Call once at the start of a run. */
void pc_status_open(void);
void pc_status_close(void);
void pc_status_suites(const char *const *names, int n);
void pc_status_begin(const char *suite, int i, int n);
void pc_status_scenario(const char *scenario);
void pc_status_scenario_time(const char *scenario, double seconds);
void pc_status_end(const char *suite);

#endif
