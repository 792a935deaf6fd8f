/* A set-up stage's failure, in sb->err, named after the stage the walker
 * is running (sb->stage): stages do not type their own names. */
#ifndef HUTCH_STAGE_FAIL_H
#define HUTCH_STAGE_FAIL_H

#include "bwrap_text.h"

struct sandbox;

/* -1, with "STAGE: WHAT OBJ: strerror(errno)". */
int stage_fail(struct sandbox *sb, const char *what, const char *obj);
/* -1, as stage_fail, but in bwrap mode in bwrap's words (ID with A). */
int stage_fail_as(struct sandbox *sb, const char *what, const char *obj,
		  enum bwrap_text id, const char *a);
/* -1, in bwrap's words (ID with A) in both modes. */
int stage_fail_bwrap(struct sandbox *sb, enum bwrap_text id, const char *a);
/* -1, with "STAGE: " and the message FMT formats. */
int stage_fail_msg(struct sandbox *sb, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

#endif
