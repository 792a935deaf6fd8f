/* The bind of the current directory (--bind-cwd, --ro-bind-cwd: the
 * profiles default, ci, build and net-client).
 *
 * Defends against that bind handing the sandbox what its private tmpfs
 * were meant to hide: the home directory, or a live socket of a server
 * outside.  A read-only bind does not stop connect() on a unix socket,
 * and /tmp, /var/tmp, /dev/shm, /run and $XDG_RUNTIME_DIR hold those of
 * tmux, X11, ssh-agent, D-Bus and docker: a program started from /tmp
 * could have tmux run a command outside the sandbox.  Such a starting
 * directory, or one holding such a place, is refused; so is one inside
 * a runtime directory (/run, /dev/shm, $XDG_RUNTIME_DIR), which holds
 * nothing but what running programs keep there.  Below /tmp, /var/tmp
 * and $HOME the current directory is bound: what it holds, sockets
 * included, is what the sandbox gets. */
#define _GNU_SOURCE
#include <errno.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cwd.h"
#include "lib/lib.h"

enum place_base { ABSOLUTE, XDG_RUNTIME, IN_HOME, PER_UID };

struct socket_place {
	enum place_base base;
	const char *path;	/* IN_HOME: relative to $HOME; PER_UID: the uid follows */
	bool runtime;		/* nothing but running programs' state inside */
	const char *holds;
};

/* Defence in depth: the connect broker (connect_broker.c) keeps COMMAND
 * from connecting to a socket of the host wherever it starts; these
 * places are refused as starting directories too, and with them the
 * directories inside the runtime ones, where a program keeps its sockets
 * (tmux, gpg-agent, ssh-agent). */
static const struct socket_place socket_places[] = {
	{ ABSOLUTE, "/tmp", false, "the sockets of programs outside the sandbox (tmux, X11, ssh-agent)" },
	{ ABSOLUTE, "/var/tmp", false, "the sockets and files of programs outside the sandbox" },
	{ ABSOLUTE, "/dev/shm", true, "the shared memory and sockets of programs outside the sandbox" },
	{ XDG_RUNTIME, NULL, true, "the sockets of your session (D-Bus, Wayland, ssh-agent)" },
	{ ABSOLUTE, "/run", true, "the sockets of the system's services (D-Bus, docker.sock)" },
	{ PER_UID, "/tmp/tmux-", true, "the sockets of your tmux servers" },
	{ ABSOLUTE, "/tmp/.X11-unix", true, "the sockets of the X servers" },
	{ IN_HOME, ".gnupg", true, "the sockets of gpg-agent" },
	{ IN_HOME, ".ssh", true, "your keys and the sockets of ssh's shared connections" },
};

/* How DIR stands to PLACE: "is", "holds", "is inside", or NULL. */
static const char *relation(const char *dir, const char *place, bool inside_too)
{
	if (strcmp(dir, place) == 0)
		return "is";
	if (path_within(place, dir))
		return "holds";
	if (inside_too && path_within(dir, place))
		return "is inside";
	return NULL;
}

static int check_home(const char *cwd, const char *home, char *err, size_t errlen)
{
	char *real = realpath(home, NULL);
	const char *rel = relation(cwd, real ? real : home, false);

	if (rel)
		snprintf(err, errlen,
			 "parse: current directory %s: %s your home directory%s%s, so binding it "
			 "would expose ~/.ssh and the rest; cd into the project's own directory "
			 "(cd ~/src/PROJECT) and run hutch there: the profile binds only that "
			 "(hutch --explain shows the plan)", cwd, strcmp(rel, "is") ? "holds" : "is",
			 strcmp(rel, "is") ? " " : "", strcmp(rel, "is") ? (real ? real : home) : "");
	free(real);
	return rel ? -1 : 0;
}

static int check_place(const char *cwd, const struct socket_place *p, const char *path,
		       char *err, size_t errlen)
{
	char *real = realpath(path, NULL);
	const char *place = real ? real : path;
	const char *rel = relation(cwd, place, p->runtime);
	int r = 0;

	if (rel) {
		snprintf(err, errlen,
			 "parse: current directory %s: %s %s%s, which holds %s: bound, even "
			 "read-only, they let COMMAND connect() to those programs; run from a "
			 "project directory, or use --profile none and bind what COMMAND needs", cwd, rel,
			 p->base == XDG_RUNTIME ? "your runtime directory " : "", place, p->holds);
		r = -1;
	}
	free(real);
	return r;
}

/* Where place P is for this caller, in BUF; NULL when it has none. */
static const char *place_path(const struct socket_place *p, const struct plan *plan,
			      const char *home, char *const *envp, char *buf, size_t len)
{
	switch (p->base) {
	case XDG_RUNTIME:
		return env_value(envp, "XDG_RUNTIME_DIR");
	case IN_HOME:
		if (!home || home[0] != '/')
			return NULL;
		snprintf(buf, len, "%s/%s", home, p->path);
		return buf;
	case PER_UID:
		snprintf(buf, len, "%s%u", p->path, (unsigned)plan->caller_uid);
		return buf;
	default:
		return p->path;
	}
}

static int check_sockets(const struct plan *plan, const char *cwd, const char *home,
			 char *const *envp, char *err, size_t errlen)
{
	char buf[PATH_MAX];

	for (size_t i = 0; i < sizeof(socket_places) / sizeof(socket_places[0]); i++) {
		const struct socket_place *p = &socket_places[i];
		const char *path = place_path(p, plan, home, envp, buf, sizeof(buf));

		if (path && path[0] == '/' && check_place(cwd, p, path, err, errlen) < 0)
			return -1;
	}
	return 0;
}

static bool makes_mount(enum fs_kind kind)
{
	switch (kind) {
	case FS_REMOUNT_RO: case FS_DIR: case FS_SYMLINK: case FS_CHMOD: case FS_FILE:
		return false;
	default:
		return true;
	}
}

/* A mount made before the bind (a private tmpfs above all), at or below
 * the current directory, would be covered by the host's directory. */
static int check_covered(const struct plan *plan, size_t i, const char *cwd, char *err,
			 size_t errlen)
{
	for (size_t j = 0; j < i; j++) {
		const struct fs_op *op = &plan->ops[j];

		if (makes_mount(op->kind) && path_within(op->dest, cwd)) {
			snprintf(err, errlen,
				 "parse: current directory %s: its bind would cover the %s on %s "
				 "(%s) with the host's directory; run from a project directory, "
				 "or use --profile none", cwd, plan_op_name(op->kind), op->dest,
				 op->origin);
			return -1;
		}
	}
	return 0;
}

int cwd_check(const struct plan *plan, size_t i, const char *cwd, const char *home,
	      char *const *envp, char *err, size_t errlen)
{
	if (check_home(cwd, home, err, errlen) < 0 ||
	    check_sockets(plan, cwd, home, envp, err, errlen) < 0)
		return -1;
	return check_covered(plan, i, cwd, err, errlen);
}

const struct fs_op *cwd_lands_on(const struct plan *plan, size_t i)
{
	const struct fs_op *on = NULL;

	for (size_t j = 0; j < i; j++)
		if (makes_mount(plan->ops[j].kind) && path_within(plan->ops[i].dest, plan->ops[j].dest))
			on = &plan->ops[j];
	return on;
}

const struct fs_op *cwd_covered_by(const struct plan *plan, size_t i)
{
	for (size_t j = plan->n_ops; j-- > i + 1;)
		if (makes_mount(plan->ops[j].kind) && path_within(plan->ops[i].dest, plan->ops[j].dest))
			return &plan->ops[j];
	return NULL;
}

int cwd_name(char *buf, size_t len, char *err, size_t errlen)
{
	struct stat st;

	if (getcwd(buf, len))
		return 0;
	if (errno == ENOENT && stat(".", &st) == 0 && st.st_nlink == 0)
		snprintf(err, errlen, "parse: current directory: it was deleted; "
			 "cd into a directory that exists");
	else if (errno == ENAMETOOLONG || errno == ERANGE)
		snprintf(err, errlen, "parse: current directory: its path is longer than "
			 "PATH_MAX (%d bytes); cd into a directory with a shorter path", PATH_MAX);
	else if (errno == ENOENT)
		snprintf(err, errlen, "parse: current directory: it is outside this "
			 "process's root directory, so it has no path");
	else
		snprintf(err, errlen, "parse: current directory: %s", strerror(errno));
	return -1;
}
