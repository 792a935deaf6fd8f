/* The seal stage: pid 1 runs from a sealed anonymous copy of the static
 * init, so nothing inside can reach a writable hutch binary through
 * /proc/PID/exe (runc's CVE-2019-5736), and no mount is made anywhere. */
#ifndef HUTCH_SEAL_H
#define HUTCH_SEAL_H

#include <stddef.h>
#include "child.h"

struct sandbox;

/* pid 1, seal stage: execveat the sealed image; returns only on error. */
int seal_exec_init(struct sandbox *sb);

#endif
