/* bwrap's --info-fd and --json-status-fd, with hutch's own keys. */
#ifndef HUTCH_STATUS_H
#define HUTCH_STATUS_H

#include "loop.h"

struct sandbox;

/* hutch mode: set-up finished and COMMAND was executed. */
void status_executed(struct sandbox *sb);

#endif
