/* A set-up stage's failure, named after the stage the walker is running
 * (stages.c sets sb->stage before each): one place composes the
 * messages of the stages, so that none names another stage by mistake. */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>

#include "log.h"
#include "sandbox.h"
#include "stage_fail.h"

static const char *current(const struct sandbox *sb)
{
	return sb->stage ? sb->stage : "prepare";
}

int stage_fail(struct sandbox *sb, const char *what, const char *obj)
{
	return log_fail(sb->err, sizeof(sb->err), current(sb), what, obj, errno);
}

int stage_fail_as(struct sandbox *sb, const char *what, const char *obj,
		  enum bwrap_text id, const char *a)
{
	return messages_bwrap_fail(sb->err, sizeof(sb->err), sb->plan->mode,
				   &(struct failure){ current(sb), what, obj, id, a, NULL }, errno);
}

int stage_fail_bwrap(struct sandbox *sb, enum bwrap_text id, const char *a)
{
	return messages_bwrap_fail(sb->err, sizeof(sb->err), MODE_BWRAP,
				   &(struct failure){ current(sb), "", "", id, a, NULL }, errno);
}

int stage_fail_msg(struct sandbox *sb, const char *fmt, ...)
{
	int n = snprintf(sb->err, sizeof(sb->err), "%s: ", current(sb));
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(sb->err + n, sizeof(sb->err) - (size_t)n, fmt, ap);
	va_end(ap);
	return -1;
}
