/* loop/: the supervisor's loop and what it serves: the poll loop and its
 * deadlines, the poll-source registry, the set-up log from pid 1, the
 * --json-status-fd and --info-fd messages, the --pty relay.
 *
 * The folder's public header: files outside loop/ include this one only. */
#ifndef HUTCH_LOOP_PUBLIC_H
#define HUTCH_LOOP_PUBLIC_H

#include "pty.h"
#include "setup_log.h"
#include "status.h"
#include "supervise_loop.h"

#endif
