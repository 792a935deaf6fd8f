/* The Landlock fallback's rule builder: the plan's fs operations as
 * Landlock rules (path, rights, the option that asked), per-run
 * directories for a private /tmp and HOME, and what is made in those.
 * It only looks: at the plan, and at what the host has at the plan's
 * paths (stat, readlink); it makes nothing and runs nothing, so it is
 * unit-tested alone (tests/unit/test_landlock_rules.c).
 *
 * What it defends against: a plan the kernel cannot enforce without a
 * mount namespace running with less confinement than it says.  Landlock
 * only adds rights, so a rule beneath another that grants more, a bind
 * whose source and destination differ, --proc or --dev elsewhere, and
 * the operations that need a mount namespace are refused here, before
 * anything runs.
 *
 * The fs operations, in order (a later one at PATH replaces what earlier
 * ones gave at and beneath PATH, as a mount on top would):
 *   --ro-bind, --mirror, --ro-bind-try SRC SRC   read and execute on SRC
 *   --bind D D                                   read, write, execute on D
 *   --dev-bind D D                               the same, and devices
 *   --proc /proc                                 read (the host's /proc)
 *   --dev /dev                                   read-write on null, zero,
 *                                                full, random, urandom, tty
 *   --tmpfs /tmp, --tmpfs $HOME                  a per-run directory,
 *                                                named by TMPDIR and HOME
 *   --tmpfs elsewhere                            no access (the host's stays
 *                                                hidden, nothing is writable)
 *   --remount-ro P                               write rights taken away at
 *                                                and beneath P
 *   --dir D, --symlink T D                       kept when the host has the
 *                                                same already; otherwise refused
 * Inside a per-run directory --dir, --tmpfs, --symlink and --chmod are
 * carried out there, and a bind becomes a symlink to the host path plus
 * its rule.  Refused: binds whose source and destination differ, --proc
 * or --dev elsewhere, a rule beneath another that grants more (Landlock
 * only adds rights: it cannot hide what a rule above grants), --file,
 * --bind-data, --bind-fd, overlays, --mqueue, --uid/--gid other than the
 * caller's, --hostname. */
#define _GNU_SOURCE
#include <errno.h>
#include <limits.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "landlock_rules.h"
#include "lib/lib.h"

const char *const landlock_area_leaf[N_AREAS] = { "tmp", "home" };

static const char *const dev_nodes[] = {
	"/dev/null", "/dev/zero", "/dev/full", "/dev/random", "/dev/urandom", "/dev/tty",
};

/* "--ro-bind /usr /usr": the operation as the caller wrote it. */
void landlock_describe_op(const struct fs_op *op, char *buf, size_t len)
{
	const char *name = plan_op_name(op->kind);
	bool show_src = op->src && op->kind != FS_MIRROR;

	if (op->kind == FS_BIND)
		name = (op->flags & FS_DEVICES) ? "dev-bind" :
		       (op->flags & FS_READONLY) ? "ro-bind" : "bind";
	snprintf(buf, len, "--%s%s%s%s %s", name,
		 op->kind == FS_BIND && (op->flags & FS_TRY) ? "-try" : "",
		 show_src ? " " : "", show_src ? op->src : "", op->dest);
}

static int refuse(struct fallback *fb, const struct fs_op *op, const char *why)
{
	char what[PATH_MAX * 2 + 32];

	landlock_describe_op(op, what, sizeof(what));
	snprintf(fb->err, fb->errlen, "fallback: %s: %s", what, why);
	return -1;
}

/* PATH made canonical without the file system: absolute, no repeated or
 * trailing '/'; "." and ".." are refused (-1), never resolved. */
int landlock_clean_path(const char *in, char *out, size_t len)
{
	size_t o = 0;

	if (!in || in[0] != '/')
		return -1;
	for (const char *p = in; *p;) {
		const char *end;
		size_t n;

		while (*p == '/')
			p++;
		end = strchrnul(p, '/');
		n = (size_t)(end - p);
		if ((n == 1 && p[0] == '.') || (n == 2 && p[0] == '.' && p[1] == '.'))
			return -1;
		if (n > 0 && o + n + 2 > len)
			return -1;
		if (n > 0) {
			out[o++] = '/';
			memcpy(out + o, p, n);
			o += n;
		}
		p = end;
	}
	if (o == 0)
		out[o++] = '/';
	out[o] = '\0';
	return 0;
}

/* Is PATH strictly beneath DIR? */
static bool beneath(const char *path, const char *dir)
{
	size_t len = strlen(dir);

	if (strcmp(dir, "/") == 0)
		return strcmp(path, "/") != 0;
	return strncmp(path, dir, len) == 0 && path[len] == '/';
}

bool landlock_at_or_beneath(const char *path, const char *dir)
{
	return strcmp(path, dir) == 0 || beneath(path, dir);
}

/* A later operation at PATH hides what a rule above PATH grants there;
 * Landlock only adds rights, so it cannot: refuse instead of exposing. */
static int check_covered(struct fallback *fb, const struct fs_op *op, const char *path,
			 uint64_t access)
{
	char other[PATH_MAX * 2 + 32], why[sizeof(other) + 128];

	for (size_t i = 0; i < fb->n_rules; i++) {
		const struct rule *r = &fb->rules[i];

		if (!beneath(path, r->path) || !(r->access & ~access))
			continue;
		landlock_describe_op(r->op, other, sizeof(other));
		snprintf(why, sizeof(why), "Landlock cannot take away beneath %s what it "
			 "grants; drop one of them", other);
		return refuse(fb, op, why);
	}
	return 0;
}

static void free_make(struct make *m)
{
	free(m->rel);
	free(m->target);
}

static void drop_area(struct fallback *fb, int area)
{
	size_t kept = 0;

	for (size_t i = 0; i < fb->n_makes; i++) {
		if (fb->makes[i].area == area) {
			free_make(&fb->makes[i]);
		} else {
			fb->makes[kept++] = fb->makes[i];
		}
	}
	fb->n_makes = kept;
	free(fb->areas[area].dest);
	fb->areas[area].dest = NULL;
}

/* What earlier operations gave at and beneath PATH is covered. */
static void drop_covered(struct fallback *fb, const char *path)
{
	size_t kept = 0;

	for (size_t i = 0; i < fb->n_rules; i++) {
		if (landlock_at_or_beneath(fb->rules[i].path, path))
			free(fb->rules[i].path);
		else
			fb->rules[kept++] = fb->rules[i];
	}
	fb->n_rules = kept;
	for (int a = 0; a < N_AREAS; a++)
		if (fb->areas[a].dest && landlock_at_or_beneath(fb->areas[a].dest, path))
			drop_area(fb, a);
}

static int add_rule(struct fallback *fb, const struct fs_op *op, const char *path,
		    uint64_t access)
{
	if (check_covered(fb, op, path, access) < 0)
		return -1;
	drop_covered(fb, path);
	fb->rules = xreallocarray(fb->rules, fb->n_rules + 1, sizeof(*fb->rules));
	fb->rules[fb->n_rules++] = (struct rule){ xstrdup(path), access, op };
	return 0;
}

/* What earlier operations made at and beneath REL in AREA is covered. */
static void drop_covered_makes(struct fallback *fb, int area, const char *rel)
{
	size_t kept = 0, len = strlen(rel);

	for (size_t i = 0; i < fb->n_makes; i++) {
		struct make *m = &fb->makes[i];

		if (m->area == area && strncmp(m->rel, rel, len) == 0 &&
		    (m->rel[len] == '\0' || m->rel[len] == '/'))
			free_make(m);
		else
			fb->makes[kept++] = *m;
	}
	fb->n_makes = kept;
}

static void add_make(struct fallback *fb, const struct fs_op *op, enum make_kind kind,
		     int area, const char *rel, const char *target)
{
	mode_t mode = op->has_perms ? op->perms : 0755;

	if (kind == MAKE_CHMOD)
		mode = op->perms;
	else
		drop_covered_makes(fb, area, rel);
	fb->makes = xreallocarray(fb->makes, fb->n_makes + 1, sizeof(*fb->makes));
	fb->makes[fb->n_makes++] = (struct make){ kind, area, xstrdup(rel),
						 target ? xstrdup(target) : NULL, mode, op };
}

static uint64_t bind_access(const struct fs_op *op)
{
	if (op->flags & FS_READONLY)
		return R_RX;
	return (op->flags & FS_DEVICES) ? R_RW | R_DEVICES : R_RW;
}

/* The host path a bind or mirror grants, in PATH; 0 with PATH "" when a
 * -try or --mirror source is absent. */
static int bind_source(struct fallback *fb, const struct fs_op *op, const char *dest,
		       char *path, size_t len)
{
	struct stat st;
	char why[256];

	if (landlock_clean_path(op->src, path, len) < 0 || strcmp(path, dest) != 0)
		return refuse(fb, op, "Landlock cannot move paths; use the same path "
			      "inside and out");
	if (stat(path, &st) == 0)
		return 0;
	path[0] = '\0';
	if (errno == ENOENT && ((op->flags & FS_TRY) || op->kind == FS_MIRROR))
		return 0;
	snprintf(why, sizeof(why), "%s", strerror(errno));
	return refuse(fb, op, why);
}

static bool is_symlink(const char *path)
{
	struct stat st;

	return lstat(path, &st) == 0 && S_ISLNK(st.st_mode);
}

/* --mirror keeps a host symlink a symlink: no rule, its target decides. */
static int add_bind(struct fallback *fb, const struct fs_op *op, const char *dest)
{
	char src[PATH_MAX];

	if (bind_source(fb, op, dest, src, sizeof(src)) < 0)
		return -1;
	if (!src[0] || (op->kind == FS_MIRROR && is_symlink(src)))
		return 0;
	return add_rule(fb, op, src, op->kind == FS_MIRROR ? R_RX : bind_access(op));
}

static int remount_ro(struct fallback *fb, const struct fs_op *op, const char *path)
{
	if (check_covered(fb, op, path, R_RW & ~R_WRITE) < 0)
		return -1;
	for (size_t i = 0; i < fb->n_rules; i++)
		if (landlock_at_or_beneath(fb->rules[i].path, path))
			fb->rules[i].access &= ~R_WRITE;
	for (int a = 0; a < N_AREAS; a++)
		if (fb->areas[a].dest && landlock_at_or_beneath(fb->areas[a].dest, path))
			fb->areas[a].access &= ~R_WRITE;
	return 0;
}

/* --proc and --dev bring the host's: only at the same path. */
static int check_host_path(struct fallback *fb, const struct fs_op *op, const char *dest,
			   const char *host)
{
	char why[128];

	if (strcmp(dest, host) == 0)
		return 0;
	snprintf(why, sizeof(why), "Landlock cannot move paths: the host's %s is at %s",
		 host, host);
	return refuse(fb, op, why);
}

static int add_proc(struct fallback *fb, const struct fs_op *op, const char *dest)
{
	if (check_host_path(fb, op, dest, "/proc") < 0)
		return -1;
	fb->found->host_proc = true;
	return add_rule(fb, op, dest, R_READ);
}

static int add_dev(struct fallback *fb, const struct fs_op *op, const char *dest)
{
	struct stat st;

	if (check_host_path(fb, op, dest, "/dev") < 0 || add_rule(fb, op, dest, 0) < 0)
		return -1;
	for (size_t i = 0; i < sizeof(dev_nodes) / sizeof(dev_nodes[0]); i++)
		if (stat(dev_nodes[i], &st) == 0 && add_rule(fb, op, dev_nodes[i], R_NODE) < 0)
			return -1;
	return 0;
}

static int add_tmpfs(struct fallback *fb, const struct fs_op *op, const char *dest)
{
	int area = strcmp(dest, "/tmp") == 0 ? AREA_TMP :
		   fb->home && strcmp(dest, fb->home) == 0 ? AREA_HOME : -1;

	if (add_rule(fb, op, dest, 0) < 0)
		return -1;
	if (area >= 0) {
		free(fb->areas[area].dest);
		fb->areas[area].dest = xstrdup(dest);
		fb->areas[area].access = R_RW;
	}
	return 0;
}

/* --dir and --symlink outside the per-run directories would write to the
 * host: fine only when the host has the same already. */
static int keep_if_host_has(struct fallback *fb, const struct fs_op *op, const char *dest)
{
	char target[PATH_MAX];
	struct stat st;
	ssize_t n;

	if (op->kind == FS_DIR && stat(dest, &st) == 0 && S_ISDIR(st.st_mode))
		return 0;
	n = op->kind == FS_SYMLINK ? readlink(dest, target, sizeof(target) - 1) : -1;
	if (n >= 0) {
		target[n] = '\0';
		if (strcmp(target, op->src) == 0)
			return 0;
	}
	return refuse(fb, op, "Landlock cannot create paths on the host; only inside "
		      "the per-run /tmp and HOME");
}

/* The deepest per-run directory strictly above DEST, or -1. */
static int area_holding(const struct fallback *fb, const char *dest)
{
	int best = -1;

	for (int a = 0; a < N_AREAS; a++)
		if (fb->areas[a].dest && beneath(dest, fb->areas[a].dest) &&
		    (best < 0 || strlen(fb->areas[a].dest) > strlen(fb->areas[best].dest)))
			best = a;
	return best;
}

/* A bind inside a per-run directory: the host path's rule, and a symlink
 * to it where the sandbox expects it. */
static int bind_in_area(struct fallback *fb, const struct fs_op *op, int area,
			const char *dest, const char *rel)
{
	char src[PATH_MAX], target[PATH_MAX];
	ssize_t n;

	if (bind_source(fb, op, dest, src, sizeof(src)) < 0)
		return -1;
	if (!src[0])
		return 0;
	if (op->kind == FS_MIRROR && is_symlink(src)) {
		n = readlink(src, target, sizeof(target) - 1);
		target[n < 0 ? 0 : n] = '\0';
		add_make(fb, op, MAKE_LINK, area, rel, target);
		return 0;
	}
	add_make(fb, op, MAKE_LINK, area, rel, src);
	return add_rule(fb, op, src, op->kind == FS_MIRROR ? R_RX : bind_access(op));
}

static int translate_in_area(struct fallback *fb, const struct fs_op *op, int area,
			     const char *dest)
{
	const char *rel = dest + strlen(fb->areas[area].dest) + 1;

	if (strcmp(fb->areas[area].dest, "/") == 0)
		rel = dest + 1;
	switch (op->kind) {
	case FS_DIR:
	case FS_TMPFS:
		add_make(fb, op, MAKE_DIR, area, rel, NULL);
		return 0;
	case FS_SYMLINK:
		add_make(fb, op, MAKE_LINK, area, rel, op->src);
		return 0;
	case FS_CHMOD:
		add_make(fb, op, MAKE_CHMOD, area, rel, NULL);
		return 0;
	case FS_BIND:
	case FS_MIRROR:
		return bind_in_area(fb, op, area, dest, rel);
	default:
		return refuse(fb, op, "not possible inside a per-run directory under the "
			      "fallback");
	}
}

static int translate_op(struct fallback *fb, const struct fs_op *op)
{
	char dest[PATH_MAX];
	int area;

	if (landlock_clean_path(op->dest, dest, sizeof(dest)) < 0)
		return refuse(fb, op, "the fallback needs an absolute path without . or ..");
	area = area_holding(fb, dest);
	if (area >= 0)
		return translate_in_area(fb, op, area, dest);
	switch (op->kind) {
	case FS_BIND:
	case FS_MIRROR: return add_bind(fb, op, dest);
	case FS_REMOUNT_RO: return remount_ro(fb, op, dest);
	case FS_PROC: return add_proc(fb, op, dest);
	case FS_DEV: return add_dev(fb, op, dest);
	case FS_TMPFS: return add_tmpfs(fb, op, dest);
	case FS_DIR:
	case FS_SYMLINK: return keep_if_host_has(fb, op, dest);
	default: return refuse(fb, op, "needs a mount namespace; not possible under the "
			       "fallback");
	}
}

/* What the plan asks that no process of the caller's can be given
 * without a user namespace. */
static int check_identity(struct fallback *fb)
{
	const struct plan *plan = fb->plan;

	if (plan->uid != plan->caller_uid || plan->gid != plan->caller_gid) {
		snprintf(fb->err, fb->errlen, "fallback: --uid %u --gid %u: ids other than "
			 "the caller's need a user namespace", (unsigned)plan->uid,
			 (unsigned)plan->gid);
		return -1;
	}
	if (plan->hostname) {
		snprintf(fb->err, fb->errlen, "fallback: --hostname %s: needs a UTS namespace",
			 plan->hostname);
		return -1;
	}
	if (plan->n_net_rules || plan->n_protect) {
		snprintf(fb->err, fb->errlen, "fallback: %s: needs namespaces (%s)",
			 plan->n_net_rules ? "--allow-net" : "--protect", plan->n_net_rules ?
			 "its proxy listens in a network namespace of the sandbox's own" :
			 "Landlock cannot take writing away beneath a writable directory");
		return -1;
	}
	return 0;
}

void landlock_rules_init(struct fallback *fb, const struct plan *plan, struct fallback_facts *found,
			 char *err, size_t errlen)
{
	const char *home = plan_getenv(plan, "HOME");
	char clean[PATH_MAX];

	memset(fb, 0, sizeof(*fb));
	fb->plan = plan;
	fb->err = err;
	fb->errlen = errlen;
	fb->base_fd = fb->run_fd = fb->ruleset = -1;
	fb->found = found;
	for (int a = 0; a < N_AREAS; a++)
		fb->areas[a].fd = -1;
	if (!home)
		home = getenv("HOME");
	if (home && landlock_clean_path(home, clean, sizeof(clean)) == 0)
		fb->home = xstrdup(clean);
	fb->deny_net = (plan->clone_flags & CLONE_NEWNET) && !plan->share_net;
	found->deny_net = fb->deny_net;
}

int landlock_translate(struct fallback *fb)
{
	if (check_identity(fb) < 0)
		return -1;
	for (size_t i = 0; i < fb->plan->n_ops; i++)
		if (translate_op(fb, &fb->plan->ops[i]) < 0)
			return -1;
	return 0;
}

void landlock_rules_free(struct fallback *fb)
{
	for (size_t i = 0; i < fb->n_rules; i++)
		free(fb->rules[i].path);
	for (int a = 0; a < N_AREAS; a++) {
		drop_area(fb, a);
		if (fb->areas[a].fd >= 0)
			close(fb->areas[a].fd);
	}
	free(fb->rules);
	free(fb->makes);
	free(fb->home);
	free(fb->workdir);
	close_fd(&fb->base_fd);
	close_fd(&fb->run_fd);
	close_fd(&fb->ruleset);
	if (fb->net_filter)
		seccomp_release(fb->net_filter);
}

int landlock_fail_path(struct fallback *fb, const char *what, const char *path)
{
	snprintf(fb->err, fb->errlen, "fallback: %s %s: %s", what, path, strerror(errno));
	return -1;
}
