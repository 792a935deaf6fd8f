/* The signals hutch passes on, as one list for the supervisor, pid 1's
 * set-up and helpers/hutch-init.c.  It includes nothing: hutch-init may
 * be built without a libc, and its includer brings the SIG* names. */
#ifndef HUTCH_SIGNAL_LIST_H
#define HUTCH_SIGNAL_LIST_H

/* hutch mode: what the supervisor takes and passes on to pid 1. */
#define FORWARDED_SIGNALS SIGTERM, SIGINT, SIGHUP, SIGQUIT, SIGUSR1, SIGUSR2

/* What init passes on to COMMAND: those, and the terminal's. */
#define INIT_FORWARDED_SIGNALS FORWARDED_SIGNALS, SIGWINCH, SIGCONT

#endif
