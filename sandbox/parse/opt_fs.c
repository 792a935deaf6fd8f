/* The options that build the sandbox's file system: binds, new file
 * systems, files and directories, overlays, and what --perms and --size
 * leave pending for the option after them.  Each adds fs operations to
 * the plan, in order; mounts.c carries them out. */
#define _GNU_SOURCE
#include <ctype.h>
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>

#include "options.h"
#include "lib/lib.h"

static int add_bind(struct apply_ctx *a, unsigned flags)
{
	opt_add_op(a, FS_BIND, flags, a->rec->args[0], a->rec->args[1]);
	return 0;
}

int opt_bind(struct apply_ctx *a) { return add_bind(a, 0); }
int opt_bind_try(struct apply_ctx *a) { return add_bind(a, FS_TRY); }
int opt_dev_bind(struct apply_ctx *a) { return add_bind(a, FS_DEVICES); }
int opt_dev_bind_try(struct apply_ctx *a) { return add_bind(a, FS_DEVICES | FS_TRY); }
int opt_ro_bind(struct apply_ctx *a) { return add_bind(a, FS_READONLY); }
int opt_ro_bind_try(struct apply_ctx *a) { return add_bind(a, FS_READONLY | FS_TRY); }

/* An operation on DEST alone: --remount-ro, --proc, --tmpfs ... */
static int add_at_dest(struct apply_ctx *a, enum fs_kind kind)
{
	opt_add_op(a, kind, 0, NULL, a->rec->args[0]);
	return 0;
}

int opt_remount_ro(struct apply_ctx *a) { return add_at_dest(a, FS_REMOUNT_RO); }
int opt_proc(struct apply_ctx *a) { return add_at_dest(a, FS_PROC); }
int opt_dev(struct apply_ctx *a) { return add_at_dest(a, FS_DEV); }
int opt_tmpfs(struct apply_ctx *a) { return add_at_dest(a, FS_TMPFS); }
int opt_mqueue(struct apply_ctx *a) { return add_at_dest(a, FS_MQUEUE); }
int opt_dir(struct apply_ctx *a) { return add_at_dest(a, FS_DIR); }

int opt_symlink(struct apply_ctx *a)
{
	opt_add_op(a, FS_SYMLINK, 0, a->rec->args[0], a->rec->args[1]);
	return 0;
}

int opt_mirror(struct apply_ctx *a)
{
	opt_add_op(a, FS_MIRROR, FS_READONLY | FS_TRY, a->rec->args[0], a->rec->args[0]);
	return 0;
}

/* The directory is resolved and checked when the plan is final
 * (resolve_cwd_binds in parse.c), so that an explain shows the real path. */
static int add_cwd_bind(struct apply_ctx *a, unsigned flags)
{
	opt_add_op(a, FS_BIND, flags | FS_CWD, ".", ".");
	return 0;
}

int opt_bind_cwd(struct apply_ctx *a) { return add_cwd_bind(a, 0); }
int opt_ro_bind_cwd(struct apply_ctx *a) { return add_cwd_bind(a, FS_READONLY); }

/* FD DEST: --file, --bind-data, --bind-fd and their read-only forms. */
static int add_fd_op(struct apply_ctx *a, enum fs_kind kind, unsigned flags)
{
	struct fs_op *op;
	int fd = -1;

	if (opt_parse_fd(a, a->rec->args[0], &fd) < 0)
		return -1;
	op = opt_add_op(a, kind, flags, NULL, a->rec->args[1]);
	op->fd = fd;
	return 0;
}

int opt_file(struct apply_ctx *a) { return add_fd_op(a, FS_FILE, 0); }
int opt_bind_data(struct apply_ctx *a) { return add_fd_op(a, FS_BIND_DATA, 0); }
int opt_ro_bind_data(struct apply_ctx *a) { return add_fd_op(a, FS_BIND_DATA, FS_READONLY); }
int opt_bind_fd(struct apply_ctx *a) { return add_fd_op(a, FS_BIND_FD, 0); }
int opt_ro_bind_fd(struct apply_ctx *a) { return add_fd_op(a, FS_BIND_FD, FS_READONLY); }

static int parse_octal(struct apply_ctx *a, const char *s, mode_t *mode)
{
	char *end;
	unsigned long v;

	errno = 0;
	v = strtoul(s, &end, 8);
	if (!*s || *end || errno || v > 07777)
		return opt_fail(a, "--%s takes an octal argument <= 07777", a->rec->spec->name);
	*mode = (mode_t)v;
	return 0;
}

int opt_perms(struct apply_ctx *a)
{
	struct parse_ctx *p = a->p;
	int r;

	if (p->have_next_perms)
		return opt_fail(a, "--perms given twice for the same action");
	r = parse_octal(a, a->rec->args[0], &p->next_perms);
	p->have_next_perms = r == 0;
	return r;
}

/* bwrap's rules: any base strtoull reads, a digit first, not 0, at most
 * half the address space. */
int opt_size(struct apply_ctx *a)
{
	const char *s = a->rec->args[0];
	unsigned long long v;
	char *end;

	if (a->p->next_size)
		return opt_fail(a, "--size given twice for the same action");
	/* hutch mode takes sizes as --memory does (64M); bwrap bytes only. */
	errno = 0;
	v = strtoull(s, &end, 0);
	if (a->plan->mode == MODE_HUTCH && *end && parse_amount(s, &v) == 0 && v != RLIM_INFINITY)
		end = (char *)"";
	if (errno || !isdigit((unsigned char)s[0]) || *end || v == 0)
		return opt_fail(a, a->plan->mode == MODE_HUTCH ?
				"--size takes a non-zero size (bytes, or with K, M, G)" :
				"--size takes a non-zero number of bytes");
	if (v > SIZE_MAX / 2)
		return opt_fail(a, "--size (for tmpfs) is limited to %zu", SIZE_MAX / 2);
	a->p->next_size = v;
	return 0;
}

int opt_chmod(struct apply_ctx *a)
{
	mode_t mode;
	struct fs_op *op;

	if (parse_octal(a, a->rec->args[0], &mode) < 0)
		return -1;
	op = opt_add_op(a, FS_CHMOD, 0, NULL, a->rec->args[1]);
	op->perms = mode;
	op->has_perms = true;
	return 0;
}

int opt_overlay_src(struct apply_ctx *a)
{
	opt_push_str(&a->p->overlay_srcs, &a->p->n_overlay_srcs, a->rec->args[0]);
	return 0;
}

/* An overlay takes the --overlay-src options given since the last one. */
static int add_overlay(struct apply_ctx *a, enum fs_kind kind)
{
	struct parse_ctx *p = a->p;
	char *const *args = a->rec->args;
	const char *dest = kind == FS_OVERLAY ? args[2] : args[0];
	const char *name = a->rec->spec->name;
	struct fs_op *op;

	if (kind == FS_RO_OVERLAY && p->n_overlay_srcs < 2)
		return opt_fail(a, "--%s requires at least two --overlay-src", name);
	if (p->n_overlay_srcs == 0)
		return opt_fail(a, "--%s requires at least one --overlay-src", name);
	op = opt_add_op(a, kind, kind == FS_RO_OVERLAY ? FS_READONLY : 0,
			kind == FS_OVERLAY ? args[0] : NULL, dest);
	op->lower = p->overlay_srcs;
	op->n_lower = p->n_overlay_srcs;
	p->overlay_srcs = NULL;
	p->n_overlay_srcs = 0;
	if (kind == FS_OVERLAY)
		op->workdir = xstrdup(args[1]);
	return 0;
}

int opt_overlay(struct apply_ctx *a) { return add_overlay(a, FS_OVERLAY); }
int opt_tmp_overlay(struct apply_ctx *a) { return add_overlay(a, FS_TMP_OVERLAY); }
int opt_ro_overlay(struct apply_ctx *a) { return add_overlay(a, FS_RO_OVERLAY); }

int opt_lock_file(struct apply_ctx *a)
{
	opt_push_str(&a->plan->lock_files, &a->plan->n_lock_files, a->rec->args[0]);
	return 0;
}

static void add_protect(struct apply_ctx *a, char *path, const char *text)
{
	struct plan *plan = a->plan;

	plan->protect = xreallocarray(plan->protect, plan->n_protect + 1,
				      sizeof(*plan->protect));
	plan->protect[plan->n_protect++] = (struct protect_path){
		path, xstrdup(a->rec->origin), text
	};
}

int opt_protect(struct apply_ctx *a)
{
	if (!a->rec->args[0][0])
		return opt_fail(a, "--protect: an empty path");
	add_protect(a, xstrdup(a->rec->args[0]), NULL);
	return 0;
}

/* Everything in a git directory that git reads configuration or commands
 * from, or that sends it to another directory for them.  commondir names
 * the directory git takes config and hooks from; where it is missing,
 * its placeholder holds "." (this directory), since git refuses an empty
 * one.  config.worktree is read with extensions.worktreeConfig; the
 * directories of linked worktrees (worktrees/NAME: their own commondir,
 * config.worktree) and of submodules (modules/NAME: whole repositories,
 * which `git status` enters) hold the same for other checkouts. */
static const struct { const char *name; const char *text; } git_paths[] = {
	{ "config", NULL }, { "config.worktree", NULL }, { "commondir", ".\n" },
	{ "hooks/", NULL }, { "worktrees/", NULL }, { "modules/", NULL },
};

int opt_protect_git(struct apply_ctx *a)
{
	const char *dir = a->rec->args[0];
	size_t len = strlen(dir);

	while (len > 1 && dir[len - 1] == '/')
		len--;
	if (len == 0)
		return opt_fail(a, "--protect-git: an empty path");
	for (size_t i = 0; i < sizeof(git_paths) / sizeof(git_paths[0]); i++)
		add_protect(a, xasprintf("%.*s%s%s", (int)len, dir, strcmp(dir, "/") ? "/" : "",
					 git_paths[i].name), git_paths[i].text);
	return 0;
}
