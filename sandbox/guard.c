/* The persistence guard: whatever profiles and options say, no plan may
 * make writable, inside the sandbox, what runs or configures things
 * outside it later: hutch's own configuration, its own binary, or the
 * shell start-up files in $HOME.  A sandboxed program that could write
 * those would plant code that runs unsandboxed at the next login or the
 * next launch. */
#define _GNU_SOURCE
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "guard.h"
#include "util.h"

/* Relative to $HOME. */
static const char *const home_files[] = {
	".config/hutch", ".bashrc", ".bash_profile", ".bash_login", ".bash_logout",
	".profile", ".zshrc", ".zshenv", ".zprofile", ".zlogin", ".zlogout",
	".cshrc", ".tcshrc", ".login", ".kshrc", ".mkshrc", ".config/fish",
	".xprofile", ".xsessionrc", ".xinitrc", ".pam_environment",
	".config/autostart", ".config/systemd/user", ".config/environment.d",
	".ssh",
};

static const char *const system_paths[] = { "/etc/hutch" };

/* The canonical form of PATH where it exists; else PATH itself. */
static char *canonical(const char *path)
{
	char *real = realpath(path, NULL);

	return real ? real : xstrdup(path);
}

/* Does a writable view of DIR expose PROTECTED: is one inside the other? */
static bool overlaps(const char *dir, const char *protected)
{
	return path_within(protected, dir) || path_within(dir, protected);
}

static bool op_is_writable(const struct fs_op *op)
{
	switch (op->kind) {
	case FS_BIND:
		return !(op->flags & FS_READONLY);
	case FS_OVERLAY:
		return true;	/* its upper layer is a host directory */
	default:
		return false;
	}
}

static const char *option_name(const struct fs_op *op)
{
	if (op->kind == FS_OVERLAY)
		return "--overlay";
	if (op->flags & FS_CWD)
		return "--bind-cwd";
	return op->flags & FS_DEVICES ? "--dev-bind" : "--bind";
}

static int refuse(const struct fs_op *op, const char *exposed, const char *why,
		  char *err, size_t errlen)
{
	snprintf(err, errlen,
		 "parse: %s %s (%s): would make %s writable inside the sandbox (%s); a "
		 "sandboxed program could plant code there that runs outside it later",
		 option_name(op), op->src, op->origin, exposed, why);
	return -1;
}

static int check_path(const struct fs_op *op, const char *protected, const char *why,
		      char *err, size_t errlen)
{
	char *src = canonical(op->src);
	char *prot = canonical(protected);
	int r = overlaps(src, prot) ? refuse(op, prot, why, err, errlen) : 0;

	free(src);
	free(prot);
	return r;
}

static int check_op(const struct fs_op *op, const char *home, char *err, size_t errlen)
{
	char path[PATH_MAX];
	char *self = realpath("/proc/self/exe", NULL);
	int r = 0;

	if (self)
		r = check_path(op, self, "hutch's own binary", err, errlen);
	free(self);
	for (size_t i = 0; r == 0 && i < sizeof(system_paths) / sizeof(system_paths[0]); i++)
		r = check_path(op, system_paths[i], "hutch's configuration", err, errlen);
	for (size_t i = 0; r == 0 && home && i < sizeof(home_files) / sizeof(home_files[0]); i++) {
		snprintf(path, sizeof(path), "%s/%s", home, home_files[i]);
		r = check_path(op, path, "a start-up or configuration file of your account",
			       err, errlen);
	}
	return r;
}

int guard_check(const struct plan *plan, const char *home, char *err, size_t errlen)
{
	if (plan->mode != MODE_HUTCH)
		return 0;	/* bwrap mode: bwrap's behaviour */
	for (size_t i = 0; i < plan->n_ops; i++) {
		const struct fs_op *op = &plan->ops[i];

		if (op_is_writable(op) && op->src && check_op(op, home, err, errlen) < 0)
			return -1;
	}
	return 0;
}
