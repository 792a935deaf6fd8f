/* messages/: how failures are worded: "STAGE: OBJECT: reason" lines
 * (log.c), a stage's failure in sb->err (stage_fail.c), and bwrap's own
 * words in bwrap mode (bwrap_text.c).
 *
 * The folder's public header: files outside messages/ include this one only. */
#ifndef HUTCH_MESSAGES_PUBLIC_H
#define HUTCH_MESSAGES_PUBLIC_H

#include "bwrap_text.h"
#include "log.h"
#include "stage_fail.h"

#endif
