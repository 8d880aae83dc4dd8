/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What the start of every ptecheck command shares: reading its options
 * (--help, a bad option, a stray argument answered the same way everywhere)
 * and the one lock per machine that runs, benches and restores take.
 */
#ifndef PTECHECK_COMMAND_H
#define PTECHECK_COMMAND_H

#include <getopt.h>
#include <stdio.h>

struct pc_cmd_opts {
	const char *name;	       /* "bench": prefixes the messages; NULL: none */
	const char *shortopts;	       /* getopt_long()'s; it must hold 'h' */
	const struct option *longopts; /* with {"help", no_argument, NULL, 'h'} */
	void (*usage)(FILE *f);
	int exit_code; /* once pc_cmd_getopt() returned -1: -1 go on, else return it */
};

/*
 * getopt_long() that answers what every command answers alike: -h/--help
 * prints the usage on stdout (exit 0), an unknown option or a missing
 * value (getopt_long() has named it) the usage on stderr (exit 2), and an
 * argument left after the options "unexpected argument 'X'" (exit 2).
 * Returns the caller's next option, or -1 when the options are over or
 * answered: o->exit_code then says whether to go on.
 */
int pc_cmd_getopt(struct pc_cmd_opts *o, int argc, char **argv);

#define PC_MACHINE_LOCK "/run/ptecheck.lock"

/*
 * Takes PC_MACHINE_LOCK: one run, bench or restore per machine, as two
 * would each record the other's mTHP settings as the originals.  With
 * waiting NULL a held lock is -EWOULDBLOCK at once; otherwise waiting is
 * printed on stderr and the lock waited for, and SIGINT, SIGTERM or SIGHUP
 * ends the wait with -EINTR after the caller's own disposition of that
 * signal has run (a default one ends the process, as it would have).
 * The descriptor (the lock goes with it, or with the process; a forked
 * child does not keep it), or -errno.
 */
int pc_machine_lock(const char *waiting);
/* Gives the lock of pc_machine_lock() back (fd < 0: nothing). */
void pc_machine_unlock(int fd);

#endif
