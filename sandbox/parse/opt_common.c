/* What the apply functions of opt_fs.c, opt_process.c and opt_policy.c
 * share: the error, a new fs operation with the pending --perms and
 * --size, fd arguments, and bwrap's rules for options given twice. */
#define _GNU_SOURCE
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "plan/plan.h"
#include "options.h"
#include "lib/lib.h"

bool opt_is(const struct opt_spec *s, const char *name)
{
	return strcmp(s->name, name) == 0;
}

int opt_fail(struct apply_ctx *a, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(a->err, a->errlen, fmt, ap);
	va_end(ap);
	return -1;
}

struct fs_op *opt_add_op(struct apply_ctx *a, enum fs_kind kind, unsigned flags,
			 const char *src, const char *dest)
{
	struct parse_ctx *p = a->p;
	struct fs_op *op = plan_add_op(a->plan, kind);

	if (p->have_next_perms && plan_kind_takes_perms(kind)) {
		op->perms = p->next_perms;
		op->has_perms = true;
		p->have_next_perms = false;
	}
	if (kind == FS_TMPFS) {
		op->size = p->next_size;
		p->next_size = 0;
	}
	op->flags = flags;
	op->src = src ? xstrdup(src) : NULL;
	op->dest = dest ? xstrdup(dest) : NULL;
	op->origin = xstrdup(a->rec->origin);
	return op;
}

int opt_parse_fd(struct apply_ctx *a, const char *s, int *fd)
{
	long long v = parse_uint(s, 1 << 30);

	if (v < 0)
		return opt_fail(a, "Invalid fd: %s", s);
	/* Now, before hutch has opened any fd of its own (see fds.c). */
	if (fds_check_open(a->plan, a->rec->spec->name, (int)v,
			   a->rec->args[1], a->err, a->errlen) < 0)
		return -1;
	*fd = (int)v;
	return 0;
}

void opt_replace_str(char **field, const char *value)
{
	free(*field);
	*field = xstrdup(value);
}

void opt_push_str(char ***v, size_t *n, const char *s)
{
	*v = xreallocarray(*v, *n + 1, sizeof(char *));
	(*v)[(*n)++] = xstrdup(s);
}

/* bwrap warns when an option that holds one value comes again. */
void opt_warn_if_again(struct apply_ctx *a, bool again)
{
	char msg[96];

	if (!again || a->plan->mode != MODE_BWRAP)
		return;
	snprintf(msg, sizeof(msg), "Only the last --%s option will take effect",
		 a->rec->spec->name);
	plan_warn(a->plan, msg);
}

int opt_set_fd(struct apply_ctx *a, int *field)
{
	opt_warn_if_again(a, *field >= 0);
	return opt_parse_fd(a, a->rec->args[0], field);
}

int opt_set_once_str(struct apply_ctx *a, char **field)
{
	opt_warn_if_again(a, *field != NULL);
	opt_replace_str(field, a->rec->args[0]);
	return 0;
}

/* --level-prefix (bwrap 0.11): messages carry a syslog level, <3> for
 * errors (a warning turns it into <4>). */
void opt_take_level_prefix(struct plan *plan)
{
	plan->prog = plan->mode == MODE_BWRAP ? "<3>bwrap" : "<3>hutch";
}
