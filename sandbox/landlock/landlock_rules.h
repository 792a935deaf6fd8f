/* The Landlock fallback's model of a plan, shared by its files: the
 * rules (landlock_rules.c builds them from the plan, without running
 * anything), the per-run directories (landlock_rundir.c), the ruleset
 * and network filter (landlock_confine.c), the runner (landlock_run.c)
 * and --explain (landlock_explain.c). */
#ifndef HUTCH_LANDLOCK_RULES_H
#define HUTCH_LANDLOCK_RULES_H

#include <limits.h>
#include <seccomp.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "landlock_approx.h"
#include "plan/plan.h"

/* ---- Landlock's interface as of ABI 7 (Debian 12's headers stop at 2) ---- */

#define LL_RULE_PATH_BENEATH	1
#define LL_FS_EXECUTE		(1ULL << 0)
#define LL_FS_WRITE_FILE	(1ULL << 1)
#define LL_FS_READ_FILE		(1ULL << 2)
#define LL_FS_READ_DIR		(1ULL << 3)
#define LL_FS_REMOVE_DIR	(1ULL << 4)
#define LL_FS_REMOVE_FILE	(1ULL << 5)
#define LL_FS_MAKE_CHAR		(1ULL << 6)
#define LL_FS_MAKE_DIR		(1ULL << 7)
#define LL_FS_MAKE_REG		(1ULL << 8)
#define LL_FS_MAKE_SOCK		(1ULL << 9)
#define LL_FS_MAKE_FIFO		(1ULL << 10)
#define LL_FS_MAKE_BLOCK	(1ULL << 11)
#define LL_FS_MAKE_SYM		(1ULL << 12)
#define LL_FS_REFER		(1ULL << 13)	/* ABI 2 */
#define LL_FS_TRUNCATE		(1ULL << 14)	/* ABI 3 */
#define LL_FS_IOCTL_DEV		(1ULL << 15)	/* ABI 5 */
#define LL_NET_BIND_TCP		(1ULL << 0)	/* ABI 4 */
#define LL_NET_CONNECT_TCP	(1ULL << 1)
#define LL_SCOPE_ABSTRACT_UNIX	(1ULL << 0)	/* ABI 6 */
#define LL_SCOPE_SIGNAL		(1ULL << 1)

struct ll_ruleset_attr {
	uint64_t handled_access_fs;
	uint64_t handled_access_net;
	uint64_t scoped;
};

struct ll_path_beneath {
	uint64_t allowed_access;
	int32_t parent_fd;
} __attribute__((packed));

/* The rights a plan gives. */
#define R_READ	 (LL_FS_READ_FILE | LL_FS_READ_DIR)
#define R_RX	 (R_READ | LL_FS_EXECUTE)
#define R_WRITE	 (LL_FS_WRITE_FILE | LL_FS_REMOVE_DIR | LL_FS_REMOVE_FILE | \
		  LL_FS_MAKE_DIR | LL_FS_MAKE_REG | LL_FS_MAKE_SOCK | LL_FS_MAKE_FIFO | \
		  LL_FS_MAKE_SYM | LL_FS_REFER | LL_FS_TRUNCATE)
#define R_RW	 (R_RX | R_WRITE)
#define R_DEVICES (LL_FS_MAKE_CHAR | LL_FS_MAKE_BLOCK | LL_FS_IOCTL_DEV)
#define R_NODE	 (LL_FS_READ_FILE | LL_FS_WRITE_FILE | LL_FS_TRUNCATE | LL_FS_IOCTL_DEV)
/* The only rights a rule on a file (not a directory) may carry. */
#define R_FILE	 (LL_FS_EXECUTE | LL_FS_WRITE_FILE | LL_FS_READ_FILE | \
		  LL_FS_TRUNCATE | LL_FS_IOCTL_DEV)

/* The leaf names of the per-run directories, by area. */
extern const char *const landlock_area_leaf[];

enum { AREA_TMP, AREA_HOME, N_AREAS };

/* A tmpfs that becomes a per-run directory. */
struct area {
	char *dest;		/* its path in the plan; NULL: none */
	uint64_t access;
	int fd;			/* O_PATH, once made */
	char host[PATH_MAX];	/* the per-run directory */
};

struct rule {
	char *path;
	uint64_t access;	/* 0: nothing there (a tmpfs elsewhere) */
	const struct fs_op *op;
};

enum make_kind { MAKE_DIR, MAKE_LINK, MAKE_CHMOD };

/* Set-up inside a per-run directory, done by hutch before COMMAND runs. */
struct make {
	enum make_kind kind;
	int area;
	char *rel;		/* path inside the area */
	char *target;		/* MAKE_LINK */
	mode_t mode;
	const struct fs_op *op;
};

struct fallback {
	const struct plan *plan;
	char *err;
	size_t errlen;
	struct rule *rules;
	size_t n_rules;
	struct make *makes;
	size_t n_makes;
	struct area areas[N_AREAS];
	char *home;		/* the HOME whose tmpfs becomes per-run */
	char *workdir;		/* where COMMAND starts, mapped; NULL: stay */
	bool deny_net;
	char base[PATH_MAX];	/* where per-run directories live */
	char run_name[128];	/* this run's, in base; "" until made */
	int base_fd;
	int run_fd;
	int ruleset;
	scmp_filter_ctx net_filter;
	struct fallback_facts *found;	/* the ABI in, /proc and network out */
};

/* FB empty, for PLAN; failures are written to ERR.  FOUND gets what the
 * rules show (the host's /proc, no network). */
void landlock_rules_init(struct fallback *fb, const struct plan *plan, struct fallback_facts *found,
			 char *err, size_t errlen);
/* The plan's fs operations as rules, per-run areas and makes; -1 with
 * the refusal in fb->err when the plan cannot run under the fallback. */
int landlock_translate(struct fallback *fb);
void landlock_rules_free(struct fallback *fb);

/* fb->err: "fallback: WHAT PATH: strerror(errno)"; -1. */
int landlock_fail_path(struct fallback *fb, const char *what, const char *path);
/* "--ro-bind /usr /usr": the operation as the caller wrote it. */
void landlock_describe_op(const struct fs_op *op, char *buf, size_t len);
/* PATH made canonical without the file system: absolute, no repeated or
 * trailing '/'; "." and ".." are refused (-1), never resolved. */
int landlock_clean_path(const char *in, char *out, size_t len);
/* Is PATH DIR, or beneath it? */
bool landlock_at_or_beneath(const char *path, const char *dir);

#endif
