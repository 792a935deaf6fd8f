/* The parser's inside: one row per option (struct opt_spec, the table
 * in cli.c), the context an option is applied in, the helpers the apply
 * functions share (opt_common.c), and the apply functions themselves,
 * one per option, by area: opt_fs.c, opt_process.c, opt_policy.c.
 * Only the parser includes this header. */
#ifndef HUTCH_OPTIONS_H
#define HUTCH_OPTIONS_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

#include "cli.h"
#include "plan/plan.h"

/* Where an option is known. */
#define BOTH	0x1u	/* bwrap's option: both modes */
#define HUTCH	0x2u	/* hutch's own: hutch mode only */
#define NOPROF	0x4u	/* not allowed in a profile */
#define OPTARG	0x8u	/* the one argument is optional (--explain=json) */

/* One option being applied: the record, the plan it goes into, and the
 * parser's scratch (pending --perms, --size, --overlay-src). */
struct apply_ctx {
	struct parse_ctx *p;
	struct plan *plan;
	const struct option_record *rec;
	char *err;
	size_t errlen;
};

/* One option: its name, how many arguments it takes (and their names
 * for --help), where it is known, the function that applies it to the
 * plan (NULL for --args, which is read while recording), and its help. */
struct opt_spec {
	const char *name;
	int nargs;
	const char *argnames;
	unsigned flags;
	int (*apply)(struct apply_ctx *a);
	const char *doc;
};

/* Is S the option NAME (without dashes)? */
bool opt_is(const struct opt_spec *s, const char *name);

/* ---- helpers shared by the apply functions (opt_common.c) ---- */

/* Write the error to A->err; returns -1. */
int opt_fail(struct apply_ctx *a, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
/* Append an fs operation from this option; it takes the pending --perms
 * (where its kind takes a mode) and a tmpfs the pending --size. */
struct fs_op *opt_add_op(struct apply_ctx *a, enum fs_kind kind, unsigned flags,
			 const char *src, const char *dest);
/* An fd argument: a number, open now (bwrap's "Invalid fd" otherwise). */
int opt_parse_fd(struct apply_ctx *a, const char *s, int *fd);
/* An option that holds one fd: bwrap warns when it comes again. */
int opt_set_fd(struct apply_ctx *a, int *field);
/* An option that holds one string: bwrap warns when it comes again. */
int opt_set_once_str(struct apply_ctx *a, char **field);
/* bwrap mode's "Only the last --NAME option will take effect". */
void opt_warn_if_again(struct apply_ctx *a, bool again);
void opt_replace_str(char **field, const char *value);
void opt_push_str(char ***v, size_t *n, const char *s);
/* --level-prefix: messages from here on carry a syslog level. */
void opt_take_level_prefix(struct plan *plan);

/* ---- mounts and files (opt_fs.c) ---- */
int opt_bind(struct apply_ctx *a);
int opt_bind_try(struct apply_ctx *a);
int opt_dev_bind(struct apply_ctx *a);
int opt_dev_bind_try(struct apply_ctx *a);
int opt_ro_bind(struct apply_ctx *a);
int opt_ro_bind_try(struct apply_ctx *a);
int opt_remount_ro(struct apply_ctx *a);
int opt_proc(struct apply_ctx *a);
int opt_dev(struct apply_ctx *a);
int opt_tmpfs(struct apply_ctx *a);
int opt_mqueue(struct apply_ctx *a);
int opt_dir(struct apply_ctx *a);
int opt_file(struct apply_ctx *a);
int opt_bind_data(struct apply_ctx *a);
int opt_ro_bind_data(struct apply_ctx *a);
int opt_symlink(struct apply_ctx *a);
int opt_perms(struct apply_ctx *a);
int opt_size(struct apply_ctx *a);
int opt_chmod(struct apply_ctx *a);
int opt_mirror(struct apply_ctx *a);
int opt_bind_cwd(struct apply_ctx *a);
int opt_ro_bind_cwd(struct apply_ctx *a);
int opt_bind_fd(struct apply_ctx *a);
int opt_ro_bind_fd(struct apply_ctx *a);
int opt_overlay_src(struct apply_ctx *a);
int opt_overlay(struct apply_ctx *a);
int opt_tmp_overlay(struct apply_ctx *a);
int opt_ro_overlay(struct apply_ctx *a);
int opt_lock_file(struct apply_ctx *a);
int opt_protect(struct apply_ctx *a);
int opt_protect_git(struct apply_ctx *a);

/* ---- namespaces, identity, environment, the process, helper fds,
 * what the caller asks for instead of a run (opt_process.c) ---- */
int opt_unshare_all(struct apply_ctx *a);
int opt_share_net(struct apply_ctx *a);
int opt_unshare_user(struct apply_ctx *a);
int opt_unshare_user_try(struct apply_ctx *a);
int opt_unshare_ipc(struct apply_ctx *a);
int opt_unshare_pid(struct apply_ctx *a);
int opt_unshare_net(struct apply_ctx *a);
int opt_unshare_uts(struct apply_ctx *a);
int opt_unshare_cgroup(struct apply_ctx *a);
int opt_unshare_cgroup_try(struct apply_ctx *a);
int opt_userns(struct apply_ctx *a);
int opt_userns2(struct apply_ctx *a);
int opt_pidns(struct apply_ctx *a);
int opt_disable_userns(struct apply_ctx *a);
int opt_assert_userns_disabled(struct apply_ctx *a);
int opt_uid(struct apply_ctx *a);
int opt_gid(struct apply_ctx *a);
int opt_hostname(struct apply_ctx *a);
int opt_chdir(struct apply_ctx *a);
int opt_clearenv(struct apply_ctx *a);
int opt_setenv(struct apply_ctx *a);
int opt_unsetenv(struct apply_ctx *a);
int opt_keep_env(struct apply_ctx *a);
int opt_argv0(struct apply_ctx *a);
int opt_new_session(struct apply_ctx *a);
int opt_die_with_parent(struct apply_ctx *a);
int opt_as_pid_1(struct apply_ctx *a);
int opt_pass_fd(struct apply_ctx *a);
int opt_listen_fds(struct apply_ctx *a);
int opt_json_status_fd(struct apply_ctx *a);
int opt_info_fd(struct apply_ctx *a);
int opt_sync_fd(struct apply_ctx *a);
int opt_block_fd(struct apply_ctx *a);
int opt_userns_block_fd(struct apply_ctx *a);
int opt_level_prefix(struct apply_ctx *a);
int opt_help(struct apply_ctx *a);
int opt_version(struct apply_ctx *a);
int opt_profile(struct apply_ctx *a);
int opt_explain(struct apply_ctx *a);
int opt_timing(struct apply_ctx *a);
int opt_doctor(struct apply_ctx *a);
int opt_pty(struct apply_ctx *a);
int opt_no_pty(struct apply_ctx *a);

/* ---- capabilities, seccomp, labels, limits, supervision, reports,
 * network, fallback (opt_policy.c) ---- */
int opt_cap_add(struct apply_ctx *a);
int opt_cap_drop(struct apply_ctx *a);
int opt_seccomp_policy(struct apply_ctx *a);
int opt_seccomp_deny(struct apply_ctx *a);
int opt_seccomp_allow(struct apply_ctx *a);
int opt_allow_nested(struct apply_ctx *a);
int opt_seccomp(struct apply_ctx *a);
int opt_add_seccomp_fd(struct apply_ctx *a);
int opt_seccomp_log(struct apply_ctx *a);
int opt_exec_label(struct apply_ctx *a);
int opt_file_label(struct apply_ctx *a);
int opt_rlimit(struct apply_ctx *a);
int opt_pids(struct apply_ctx *a);
int opt_memory(struct apply_ctx *a);
int opt_memory_swap(struct apply_ctx *a);
int opt_cpu(struct apply_ctx *a);
int opt_timeout(struct apply_ctx *a);
int opt_kill_after(struct apply_ctx *a);
int opt_teardown_deadline(struct apply_ctx *a);
int opt_report(struct apply_ctx *a);
int opt_report_fd(struct apply_ctx *a);
int opt_learn(struct apply_ctx *a);
int opt_fallback(struct apply_ctx *a);
int opt_allow_net(struct apply_ctx *a);

#endif
