/* The caller's fds (see fds.c). */
#ifndef HUTCH_FDS_H
#define HUTCH_FDS_H

#include <stdbool.h>
#include <stddef.h>
#include "plan.h"

bool fds_is_open(int fd);
/* 0 when FD is open; else -1 and one line in ERR naming OPTION (without
 * its dashes) and FD, or in bwrap mode bwrap's own words, which for the
 * options copying data name DEST, the option's second argument. */
int fds_check_open(const struct plan *plan, const char *option, int fd,
		   const char *dest, char *err, size_t errlen);
/* --args has read FD: from then on it counts as closed (bwrap closes it). */
void fds_read_by_args(struct plan *plan, int fd);

typedef void (*fds_fn)(const char *option, int fd, void *arg);
/* FN for each fd the plan names, but those COMMAND keeps (--pass-fd,
 * --listen-fds) and --args, which is read during parsing. */
void fds_each(const struct plan *plan, fds_fn fn, void *arg);
/* hutch mode: refuse an fd COMMAND keeps that another option names. */
int fds_check_passed(const struct plan *plan, char *err, size_t errlen);

/* hutch is done with the caller's FD: let go of what it refers to, but
 * keep the number taken (close-on-exec) so that no fd hutch opens later
 * gets it.  0, or -1 with errno. */
int fds_retire(int fd);
/* The lowest fd from FROM on such that COUNT fds from it are all free. */
int fds_free_run(int from, int count);

#endif
