/* The set-up log: both ends of the channel on which set-up processes
 * report their failures (and the exec stage its marker) to the
 * supervisor. */
#ifndef HUTCH_SETUP_LOG_H
#define HUTCH_SETUP_LOG_H

#include <stdbool.h>
#include "loop.h"

struct sandbox;

/* The supervisor: read what the log holds now into sb->run, never
 * waiting for more; true when this read found its end (and closed it). */
bool setup_log_read(struct sandbox *sb);

#endif
