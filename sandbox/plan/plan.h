/* plan/: the plan, one description of the sandbox, built by parsing (argv,
 * --args fds and profiles) and then carried out stage by stage.  Parsing
 * has no side effects; everything that touches the system happens in
 * the stages, which get the plan read-only (const, in struct sandbox):
 * what they learn at run time (the namespaces clone got, the fds used
 * up, COMMAND's added environment) lives on struct sandbox. */
#ifndef HUTCH_PLAN_H
#define HUTCH_PLAN_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

enum mode {
	MODE_HUTCH,	/* invoked as hutch: profile and safe defaults */
	MODE_BWRAP,	/* invoked as bwrap: bubblewrap's behaviour exactly */
};

/* COMMAND "/proc/self/exe" in a bwrap-mode sandbox runs hutch again, as
 * it runs bwrap again under bwrap: the exec stage marks that run with
 * this variable, which the new hutch takes out of its environment. */
#define PLAN_REEXEC_ENV "HUTCH_REEXEC_AS_BWRAP"
#define PLAN_SELF_EXE "/proc/self/exe"

enum fs_kind {
	FS_BIND,	/* --bind, --ro-bind, --dev-bind and their -try forms */
	FS_REMOUNT_RO,	/* --remount-ro */
	FS_PROC,	/* --proc */
	FS_DEV,		/* --dev */
	FS_TMPFS,	/* --tmpfs */
	FS_MQUEUE,	/* --mqueue */
	FS_DIR,		/* --dir */
	FS_SYMLINK,	/* --symlink TARGET DEST */
	FS_CHMOD,	/* --chmod OCTAL PATH */
	FS_FILE,	/* --file FD DEST: copy FD's contents into a new file */
	FS_BIND_DATA,	/* --bind-data / --ro-bind-data FD DEST */
	FS_MIRROR,	/* --mirror PATH: a host symlink stays a symlink, a
			   directory or file is bound read-only, absent is skipped */
	FS_BIND_FD,	/* --bind-fd / --ro-bind-fd FD DEST */
	FS_OVERLAY,	/* --overlay RWSRC WORKDIR DEST (lower: --overlay-src) */
	FS_TMP_OVERLAY,	/* --tmp-overlay DEST: upper layer on a tmpfs */
	FS_RO_OVERLAY,	/* --ro-overlay DEST: no upper layer */
};

/* Flags of an fs operation. */
#define FS_READONLY	0x01u	/* recursively read-only */
#define FS_DEVICES	0x02u	/* device nodes allowed (--dev-bind) */
#define FS_TRY		0x04u	/* a missing source is skipped */
#define FS_CWD		0x08u	/* the caller's current directory, guarded */

struct fs_op {
	enum fs_kind kind;
	unsigned flags;
	char *src;		/* host path; for FS_SYMLINK the link target */
	char *dest;		/* path as the sandbox sees it */
	int fd;			/* FS_FILE, FS_BIND_DATA; -1 otherwise */
	mode_t perms;		/* from --perms, or the kind's default */
	bool has_perms;
	unsigned long long size; /* from --size, tmpfs only; 0 = default */
	char *origin;		/* "command line" or "FILE:LINE" */
	char **lower;		/* overlays: --overlay-src paths, in order */
	size_t n_lower;
	char *workdir;		/* FS_OVERLAY */
};

/* --rlimit NAME=SOFT[:HARD] */
struct rlimit_setting {
	int resource;
	unsigned long long soft, hard;	/* RLIM_INFINITY for unlimited */
	char *origin;
};

enum explain_format { EXPLAIN_NONE, EXPLAIN_TEXT, EXPLAIN_JSON };
enum pty_mode { PTY_AUTO, PTY_ON, PTY_OFF };
enum fallback_mode { FALLBACK_NONE, FALLBACK_LANDLOCK };

/* Seccomp rules added on top of the named policy. */
struct syscall_rule {
	char *name;		/* syscall name as libseccomp spells it */
	int errnum;		/* errno for a deny; 0 for an allow */
	bool allow;
};

/* --protect PATH (and each path of --protect-git DIR): read-only after
 * every other mount. */
struct protect_path {
	char *path;		/* as given; absolute once the plan is final */
	char *origin;
	const char *text;	/* a placeholder file's contents (static), or NULL */
};

struct net_rule;

struct plan {
	enum mode mode;
	const char *prog;	/* "hutch" or "bwrap", prefix of messages */
	const char *invoked_as;	/* argv[0] as given: bwrap's usage line names it */

	/* namespaces */
	int clone_flags;	/* CLONE_NEW* to create */
	bool userns_try;	/* --unshare-user-try: a missing userns is fine */
	bool unshare_user_given;	/* --unshare-user itself, which bwrap's
					 * option checks are about */
	bool cgroupns_try;	/* --unshare-cgroup-try */
	bool share_net;		/* --share-net after --unshare-all */

	/* identity */
	uid_t uid;		/* uid inside; caller's unless --uid */
	gid_t gid;
	uid_t caller_uid;	/* real ids of the caller */
	gid_t caller_gid;
	char *hostname;

	/* filesystem, in order */
	struct fs_op *ops;
	size_t n_ops;

	/* process */
	char **env;		/* COMMAND's environment, NULL-terminated */
	size_t n_env;
	char *chdir;
	char *refused;		/* --explain: why a run of this plan is refused, or NULL */
	char *cwd_cover;	/* the option a later mount over the bound current
				   directory came from, or NULL; chdir is then
				   the current directory's, and "/" where it is gone */
	char *argv0;
	char **argv;		/* COMMAND and its arguments */
	bool die_with_parent;
	bool new_session;
	bool as_pid_1;

	/* policy */
	char *seccomp_policy;	/* name or path; NULL in bwrap mode */
	struct syscall_rule *syscall_rules;
	size_t n_syscall_rules;
	unsigned long long caps_add; /* bit per capability */
	unsigned long long caps_drop;
	bool caps_given;	/* any --cap-add or --cap-drop */
	bool allow_nested;	/* --allow-nested: the mount calls allowed */
	int *pass_fds;		/* fds COMMAND keeps besides 0, 1, 2 */
	size_t n_pass_fds;
	int *args_fds;		/* fds --args read: closed, as bwrap closes them */
	size_t n_args_fds;
	int listen_fds;		/* --listen-fds: how many, from 3 on */

	/* supervision */
	double timeout;		/* seconds; 0 = none */
	double kill_after;	/* grace after SIGTERM */
	double teardown_deadline;

	/* helper protocol (bwrap's fds); -1 when not given */
	int json_status_fd;
	int info_fd;
	int sync_fd;
	int block_fd;
	int userns_block_fd;
	int userns_fd;
	int userns2_fd;
	int pidns_fd;
	char **lock_files;
	size_t n_lock_files;
	int *seccomp_fds;	/* --seccomp and --add-seccomp-fd, in order */
	size_t n_seccomp_fds;
	bool seccomp_fd_given;	/* --seccomp (not repeatable) */
	bool overlay_src_left;	/* an --overlay-src no overlay took: the
				   prepare stage fails, as bwrap's set-up does */
	char *exec_label;
	char *file_label;
	bool disable_userns;
	bool assert_userns_disabled;

	/* reports */
	char *report_path;
	int report_fd;
	bool seccomp_log;
	/* --learn FILE: what COMMAND lacked, as a profile (learn/) */
	char *learn_path;
	char **profiles_used;	/* the profiles applied, as include names them */
	size_t n_profiles_used;

	/* network by allow-list: any --allow-net rule gives the sandbox a
	 * network namespace of its own and hutch's proxy in it */
	struct net_rule *net_rules;
	size_t n_net_rules;
	struct protect_path *protect;
	size_t n_protect;

	/* limits */
	struct rlimit_setting *rlimits;
	size_t n_rlimits;
	long long pids;		/* 0 = none */
	char *pids_origin;	/* "command line" or the profile's FILE:LINE */
	unsigned long long memory, memory_swap;
	double cpu;		/* fraction of one CPU; 0 = none */

	/* interaction */
	enum pty_mode pty;
	enum fallback_mode fallback;

	/* what the caller asked for instead of a run */
	bool show_help;
	bool show_version;
	enum explain_format explain;
	bool doctor;

	/* --timing (TIMING_TEXT or TIMING_JSON, timing.h), 0 without; and
	 * HUTCH_TIMING from the caller's environment, or NULL */
	unsigned timing;
	char *timing_file;

	/* what the parser warned about, in order: main prints these (the
	 * parser itself writes nothing) */
	char **warnings;
	size_t n_warnings;
	/* what the parser made of the caller's environment where it did
	 * not take it as it is (a user profile directory it could not
	 * read, a HOME that is no home): --explain and --doctor say it,
	 * a run stays quiet */
	char **notes;
	size_t n_notes;
	/* the caller's home as the persistence guard judged it while
	 * parsing (guard.c), for its second look at the bind; or NULL */
	char *guard_home;
};

void plan_free(struct plan *plan);

/* The name of an fs operation ("bind", "tmpfs", ...). */
const char *plan_op_name(enum fs_kind kind);

/* Build helpers used by the option table.  plan_kind_takes_perms: does
 * an operation of KIND take a pending --perms (the parser's, cli.c)? */
struct fs_op *plan_add_op(struct plan *plan, enum fs_kind kind);
bool plan_kind_takes_perms(enum fs_kind kind);
int plan_setenv(struct plan *plan, const char *name, const char *value);
void plan_unsetenv(struct plan *plan, const char *name);
void plan_clearenv(struct plan *plan);
const char *plan_getenv(const struct plan *plan, const char *name);
void plan_warn(struct plan *plan, const char *msg);
void plan_note(struct plan *plan, const char *msg);

/* Exit code for hutch's own failure in this mode (125, or bwrap's 1). */
int plan_failure_status(const struct plan *plan);

/* The rest of plan/'s interface: the fds the plan names (fds.c), the
 * persistence guard on its binds (guard.c), its --allow-net rules
 * (netrule.c).  plan.h is the folder's public header: files outside
 * plan/ include this one only. */
#include "fds.h"
#include "guard.h"
#include "netrule.h"

#endif
