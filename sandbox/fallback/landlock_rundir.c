/* The Landlock fallback's per-run directories: a private /tmp and HOME
 * are directories made for one run in $TMPDIR (or /tmp), named
 * hutch-fallback-PIDNS-PID-START after the supervisor that made them, and
 * removed at exit; a run killed before its cleanup leaves one, which the
 * next run removes once its supervisor is gone.
 *
 * What it defends against: another user's files or links taking the
 * place of the run's (each is made 0700 and never reused; nothing is
 * followed through a symlink when made or removed), and the removal of a
 * live run's directory (a stale one is named by its supervisor's pid and
 * start time, which a recycled pid does not match). */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "child/child.h"
#include "sandbox.h"
#include "landlock_rundir.h"
#include "messages/messages.h"
#include "lib/lib.h"

#define RUN_PREFIX "hutch-fallback-"
#define MAX_TREE_DEPTH 256

#define RUN_PREFIX "hutch-fallback-"

/* Remove NAME in PARENT and all it holds, never following a symlink. */
static int remove_tree(int parent, const char *name, int depth)
{
	struct stat st;
	struct dirent *e;
	DIR *dir;
	int fd, rc = 0;

	if (fstatat(parent, name, &st, AT_SYMLINK_NOFOLLOW) < 0)
		return errno == ENOENT ? 0 : -1;
	if (!S_ISDIR(st.st_mode))
		return unlinkat(parent, name, 0);
	if (depth > MAX_TREE_DEPTH) {
		errno = ELOOP;
		return -1;
	}
	/* COMMAND may have left a directory it made unreadable; a stale
	 * run's survivors may swap it for a symlink: never follow one. */
	if ((st.st_mode & 0700) != 0700 &&
	    fchmodat(parent, name, 0700, AT_SYMLINK_NOFOLLOW) < 0)
		return -1;
	fd = openat(parent, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	dir = fd < 0 ? NULL : fdopendir(fd);
	if (!dir) {
		if (fd >= 0)
			close(fd);
		return -1;
	}
	while ((e = readdir(dir)))
		if (strcmp(e->d_name, ".") != 0 && strcmp(e->d_name, "..") != 0 &&
		    remove_tree(dirfd(dir), e->d_name, depth + 1) < 0)
			rc = -1;
	closedir(dir);
	return rc < 0 ? -1 : unlinkat(parent, name, AT_REMOVEDIR);
}

static unsigned long pidns_id(void)
{
	struct stat st;

	return stat("/proc/self/ns/pid", &st) == 0 ? (unsigned long)st.st_ino : 0;
}

/* hutch-fallback-PIDNS-PID-START: the supervisor that made it, for good. */
static bool run_dir_is_stale(int base, const char *name)
{
	unsigned long ns;
	unsigned long long start;
	int pid, end = 0;
	struct stat st;

	if (sscanf(name, RUN_PREFIX "%lu-%d-%llu%n", &ns, &pid, &start, &end) != 3 ||
	    name[end] != '\0' || ns != pidns_id())
		return false;
	if (fstatat(base, name, &st, AT_SYMLINK_NOFOLLOW) < 0 || !S_ISDIR(st.st_mode) ||
	    st.st_uid != geteuid())
		return false;
	return proc_start_time(pid) != start;
}

/* A run killed before its cleanup leaves its directory: remove those
 * whose supervisor is gone. */
static void remove_stale_run_dirs(struct fallback *fb)
{
	int fd = openat(fb->base_fd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	DIR *dir = fd < 0 ? NULL : fdopendir(fd);
	struct dirent *e;
	char msg[PATH_MAX + 512];

	if (!dir) {
		if (fd >= 0)
			close(fd);
		return;
	}
	while ((e = readdir(dir)))
		if (strncmp(e->d_name, RUN_PREFIX, strlen(RUN_PREFIX)) == 0 &&
		    run_dir_is_stale(fb->base_fd, e->d_name) &&
		    remove_tree(fb->base_fd, e->d_name, 0) < 0) {
			snprintf(msg, sizeof(msg), "fallback: stale per-run directory %s/%s: "
				 "not removed: %s", fb->base, e->d_name, strerror(errno));
			log_warning(fb->plan->prog, msg);
		}
	closedir(dir);
}

/* The directory REL's parent in AREA, made as needed, never through a
 * symlink (COMMAND's files cannot exist yet, but --symlink's can). */
static int make_parents(struct fallback *fb, const struct make *m, const char **leaf)
{
	char path[PATH_MAX], *save = NULL, *next;
	int fd = dup(fb->areas[m->area].fd);

	snprintf(path, sizeof(path), "%s", m->rel);
	*leaf = strrchr(m->rel, '/') ? strrchr(m->rel, '/') + 1 : m->rel;
	for (char *c = strtok_r(path, "/", &save); c && fd >= 0; c = next) {
		int sub;

		next = strtok_r(NULL, "/", &save);
		if (!next)
			break;
		if (mkdirat(fd, c, 0755) < 0 && errno != EEXIST)
			sub = -1;
		else
			sub = openat(fd, c, O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
		close(fd);
		fd = sub;
	}
	return fd;
}

static int apply_make(struct fallback *fb, const struct make *m)
{
	char what[PATH_MAX * 2 + 32];
	const char *leaf;
	int dir = make_parents(fb, m, &leaf), rc = -1;

	if (dir >= 0 && m->kind == MAKE_DIR)
		rc = mkdirat(dir, leaf, m->mode) == 0 || errno == EEXIST ? 0 : -1;
	else if (dir >= 0 && m->kind == MAKE_LINK)
		rc = symlinkat(m->target, dir, leaf);
	else if (dir >= 0)	/* --chmod never follows a symlink out */
		rc = fchmodat(dir, leaf, m->mode, AT_SYMLINK_NOFOLLOW);
	if (dir >= 0)
		close(dir);
	if (rc == 0)
		return 0;
	landlock_describe_op(m->op, what, sizeof(what));
	return landlock_fail_path(fb, "in the per-run directory:", what);
}

static bool any_area(const struct fallback *fb)
{
	return fb->areas[AREA_TMP].dest || fb->areas[AREA_HOME].dest;
}

static int open_base(struct fallback *fb)
{
	const char *tmpdir = getenv("TMPDIR");

	snprintf(fb->base, sizeof(fb->base), "%s",
		 tmpdir && tmpdir[0] == '/' ? tmpdir : "/tmp");
	fb->base_fd = open(fb->base, O_PATH | O_DIRECTORY | O_CLOEXEC);
	if (fb->base_fd < 0 && any_area(fb))
		return landlock_fail_path(fb, "per-run directories in", fb->base);
	return 0;
}

static int make_area(struct fallback *fb, int a)
{
	struct area *area = &fb->areas[a];

	if (!area->dest)
		return 0;
	if (snprintf(area->host, sizeof(area->host), "%s/%s/%s", fb->base, fb->run_name,
		     landlock_area_leaf[a]) >= (int)sizeof(area->host)) {
		errno = ENAMETOOLONG;
		return landlock_fail_path(fb, "per-run directory in", fb->base);
	}
	if (mkdirat(fb->run_fd, landlock_area_leaf[a], 0700) < 0)
		return landlock_fail_path(fb, "per-run directory", area->host);
	area->fd = openat(fb->run_fd, landlock_area_leaf[a], O_PATH | O_DIRECTORY | O_NOFOLLOW |
			  O_CLOEXEC);
	return area->fd < 0 ? landlock_fail_path(fb, "per-run directory", area->host) : 0;
}

int fallback_make_run_dirs(struct fallback *fb)
{
	char path[PATH_MAX + 160];

	if (open_base(fb) < 0)
		return -1;
	if (fb->base_fd >= 0)
		remove_stale_run_dirs(fb);
	if (!any_area(fb))
		return 0;
	snprintf(fb->run_name, sizeof(fb->run_name), RUN_PREFIX "%lu-%d-%llu", pidns_id(),
		 getpid(), proc_start_time(getpid()));
	snprintf(path, sizeof(path), "%s/%s", fb->base, fb->run_name);
	/* 0700, and never one that exists already: no one else's files. */
	if (mkdirat(fb->base_fd, fb->run_name, 0700) < 0) {
		landlock_fail_path(fb, "per-run directory", path);
		fb->run_name[0] = '\0';
		return -1;
	}
	fb->run_fd = openat(fb->base_fd, fb->run_name, O_PATH | O_DIRECTORY | O_NOFOLLOW |
			    O_CLOEXEC);
	if (fb->run_fd < 0)
		return landlock_fail_path(fb, "per-run directory", path);
	for (int a = 0; a < N_AREAS; a++)
		if (make_area(fb, a) < 0)
			return -1;
	for (size_t i = 0; i < fb->n_makes; i++)
		if (apply_make(fb, &fb->makes[i]) < 0)
			return -1;
	return 0;
}

void fallback_remove_run_dirs(struct fallback *fb)
{
	char msg[PATH_MAX + 256];

	if (!fb->run_name[0] || remove_tree(fb->base_fd, fb->run_name, 0) == 0)
		return;
	snprintf(msg, sizeof(msg), "teardown: per-run directory %s/%s: not removed: %s "
		 "(the next run removes it)", fb->base, fb->run_name, strerror(errno));
	log_warning(fb->plan->prog, msg);
}

/* PATH as COMMAND reaches it: inside a per-run directory, or itself. */
static char *map_path(const struct fallback *fb, const char *path)
{
	char clean[PATH_MAX];
	int best = -1;

	if (landlock_clean_path(path, clean, sizeof(clean)) < 0)
		return xstrdup(path);
	for (int a = 0; a < N_AREAS; a++)
		if (fb->areas[a].dest && landlock_at_or_beneath(clean, fb->areas[a].dest) &&
		    (best < 0 || strlen(fb->areas[a].dest) > strlen(fb->areas[best].dest)))
			best = a;
	if (best < 0)
		return xstrdup(clean);
	return xasprintf("%s%s", fb->areas[best].host,
			 clean + (strcmp(fb->areas[best].dest, "/") == 0 ? 0 :
				  strlen(fb->areas[best].dest)));
}

/* TMPDIR and HOME name the per-run directories; the working directory
 * follows its path into them. */
void fallback_point_env(struct fallback *fb, struct sandbox *sb)
{
	const struct plan *plan = sb->plan;
	char *home;

	if (fb->areas[AREA_TMP].dest)
		command_env_set(sb, "TMPDIR", fb->areas[AREA_TMP].host);
	if (fb->home) {
		home = map_path(fb, fb->home);
		if (strcmp(home, fb->home) != 0)
			command_env_set(sb, "HOME", home);
		free(home);
	}
	if (plan->chdir)
		fb->workdir = map_path(fb, plan->chdir);
}
