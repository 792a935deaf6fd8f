/* The option table: every option of bwrap and of hutch, read from the
 * command line and from profiles alike (one grammar, not two). */
#define _GNU_SOURCE
#include <argp.h>
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdint.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/resource.h>
#include <unistd.h>

#include "cli.h"
#include "fds.h"
#include "log.h"
#include "netrule.h"
#include "policy.h"
#include "seccomp_policy.h"
#include "util.h"

enum opt_key {
	OPT_HELP = 0x100, OPT_VERSION,
	OPT_UNSHARE_USER, OPT_UNSHARE_USER_TRY, OPT_UNSHARE_PID, OPT_UNSHARE_IPC,
	OPT_UNSHARE_UTS, OPT_UNSHARE_NET, OPT_UNSHARE_CGROUP,
	OPT_UNSHARE_CGROUP_TRY, OPT_UNSHARE_ALL, OPT_SHARE_NET,
	OPT_UID, OPT_GID, OPT_HOSTNAME, OPT_CHDIR, OPT_SETENV, OPT_UNSETENV,
	OPT_CLEARENV, OPT_ARGV0,
	OPT_BIND, OPT_BIND_TRY, OPT_DEV_BIND, OPT_DEV_BIND_TRY, OPT_RO_BIND,
	OPT_RO_BIND_TRY, OPT_REMOUNT_RO, OPT_PROC, OPT_DEV, OPT_TMPFS,
	OPT_PERMS, OPT_SIZE, OPT_MQUEUE, OPT_DIR, OPT_SYMLINK, OPT_CHMOD,
	OPT_FILE, OPT_BIND_DATA, OPT_RO_BIND_DATA,
	OPT_DIE_WITH_PARENT, OPT_NEW_SESSION, OPT_AS_PID_1,
	OPT_CAP_ADD, OPT_CAP_DROP,
	/* hutch's own */
	OPT_PROFILE, OPT_MIRROR, OPT_BIND_CWD, OPT_RO_BIND_CWD, OPT_KEEP_ENV,
	OPT_TIMEOUT, OPT_KILL_AFTER, OPT_TEARDOWN_DEADLINE,
	OPT_SECCOMP_POLICY, OPT_SECCOMP_DENY, OPT_SECCOMP_ALLOW, OPT_PASS_FD,
	OPT_EXPLAIN,
	/* bwrap's helper protocol */
	OPT_ARGS, OPT_JSON_STATUS_FD, OPT_INFO_FD, OPT_SYNC_FD, OPT_BLOCK_FD,
	OPT_USERNS_BLOCK_FD, OPT_LOCK_FILE, OPT_USERNS, OPT_USERNS2, OPT_PIDNS,
	OPT_BIND_FD, OPT_RO_BIND_FD, OPT_SECCOMP, OPT_ADD_SECCOMP_FD,
	OPT_OVERLAY_SRC, OPT_OVERLAY, OPT_TMP_OVERLAY, OPT_RO_OVERLAY,
	OPT_LEVEL_PREFIX, OPT_EXEC_LABEL, OPT_FILE_LABEL, OPT_DISABLE_USERNS,
	OPT_ASSERT_USERNS_DISABLED,
	/* hutch: reports, limits, interaction */
	OPT_REPORT, OPT_REPORT_FD, OPT_SECCOMP_LOG, OPT_RLIMIT, OPT_PIDS,
	OPT_MEMORY, OPT_MEMORY_SWAP, OPT_CPU, OPT_PTY, OPT_NO_PTY, OPT_FALLBACK,
	OPT_DOCTOR, OPT_LISTEN_FDS,
	/* hutch: network allow-list, protected paths */
	OPT_ALLOW_NET, OPT_PROTECT,
};

#define BOTH	0x1u	/* bwrap's option: both modes */
#define HUTCH	0x2u	/* hutch's own: hutch mode only */
#define NOPROF	0x4u	/* not allowed in a profile */
#define OPTARG	0x8u	/* the one argument is optional (--explain=json) */

struct opt_spec {
	const char *name;
	int key;
	int nargs;
	const char *argnames;
	unsigned flags;
	const char *doc;
};

static const struct opt_spec specs[] = {
	{ "help", OPT_HELP, 0, NULL, BOTH | NOPROF, "Show this text and exit" },
	{ "version", OPT_VERSION, 0, NULL, BOTH | NOPROF, "Show the version and exit" },
	{ "unshare-all", OPT_UNSHARE_ALL, 0, NULL, BOTH, "New namespaces of every kind (user and cgroup where possible)" },
	{ "share-net", OPT_SHARE_NET, 0, NULL, BOTH, "Keep the caller's network namespace (after --unshare-all)" },
	{ "unshare-user", OPT_UNSHARE_USER, 0, NULL, BOTH, "Make a new user namespace" },
	{ "unshare-user-try", OPT_UNSHARE_USER_TRY, 0, NULL, BOTH, "Make a new user namespace where the kernel allows it, else go on without" },
	{ "unshare-ipc", OPT_UNSHARE_IPC, 0, NULL, BOTH, "Make a new IPC namespace" },
	{ "unshare-pid", OPT_UNSHARE_PID, 0, NULL, BOTH, "Make a new pid namespace" },
	{ "unshare-net", OPT_UNSHARE_NET, 0, NULL, BOTH, "Make a new network namespace (only lo, up)" },
	{ "unshare-uts", OPT_UNSHARE_UTS, 0, NULL, BOTH, "Make a new UTS namespace (host and domain name)" },
	{ "unshare-cgroup", OPT_UNSHARE_CGROUP, 0, NULL, BOTH, "Make a new cgroup namespace" },
	{ "unshare-cgroup-try", OPT_UNSHARE_CGROUP_TRY, 0, NULL, BOTH, "Make a new cgroup namespace where the kernel allows it, else go on without" },
	{ "uid", OPT_UID, 1, "UID", BOTH, "User id inside the sandbox (needs --unshare-user or --userns)" },
	{ "gid", OPT_GID, 1, "GID", BOTH, "Group id inside the sandbox (needs --unshare-user or --userns)" },
	{ "hostname", OPT_HOSTNAME, 1, "NAME", BOTH, "Host name inside the sandbox (needs --unshare-uts)" },
	{ "chdir", OPT_CHDIR, 1, "DIR", BOTH, "Start COMMAND in directory DIR" },
	{ "clearenv", OPT_CLEARENV, 0, NULL, BOTH, "Start COMMAND with an empty environment (but PWD)" },
	{ "setenv", OPT_SETENV, 2, "VAR VALUE", BOTH, "Set VAR to VALUE in COMMAND's environment" },
	{ "unsetenv", OPT_UNSETENV, 1, "VAR", BOTH, "Remove VAR from COMMAND's environment" },
	{ "argv0", OPT_ARGV0, 1, "VALUE", BOTH, "Run COMMAND with VALUE as its argv[0]" },
	{ "bind", OPT_BIND, 2, "SRC DEST", BOTH, "Mount the host path SRC at DEST, writable" },
	{ "bind-try", OPT_BIND_TRY, 2, "SRC DEST", BOTH, "As --bind; nothing happens when SRC is missing" },
	{ "dev-bind", OPT_DEV_BIND, 2, "SRC DEST", BOTH, "As --bind, with device nodes usable" },
	{ "dev-bind-try", OPT_DEV_BIND_TRY, 2, "SRC DEST", BOTH, "As --dev-bind; nothing happens when SRC is missing" },
	{ "ro-bind", OPT_RO_BIND, 2, "SRC DEST", BOTH, "Mount the host path SRC at DEST, read-only" },
	{ "ro-bind-try", OPT_RO_BIND_TRY, 2, "SRC DEST", BOTH, "As --ro-bind; nothing happens when SRC is missing" },
	{ "remount-ro", OPT_REMOUNT_RO, 1, "DEST", BOTH, "Make the mount at DEST read-only (not the mounts below it)" },
	{ "proc", OPT_PROC, 1, "DEST", BOTH, "Mount a new proc file system at DEST" },
	{ "dev", OPT_DEV, 1, "DEST", BOTH, "Mount a new, minimal /dev at DEST" },
	{ "tmpfs", OPT_TMPFS, 1, "DEST", BOTH, "Mount a new, empty tmpfs at DEST" },
	{ "mqueue", OPT_MQUEUE, 1, "DEST", BOTH, "Mount a new POSIX message queue file system at DEST" },
	{ "dir", OPT_DIR, 1, "DEST", BOTH, "Create the directory DEST" },
	{ "file", OPT_FILE, 2, "FD DEST", BOTH | NOPROF, "Create the file DEST holding what FD reads" },
	{ "bind-data", OPT_BIND_DATA, 2, "FD DEST", BOTH | NOPROF, "Mount at DEST a file holding what FD reads" },
	{ "ro-bind-data", OPT_RO_BIND_DATA, 2, "FD DEST", BOTH | NOPROF, "Mount at DEST a read-only file holding what FD reads" },
	{ "symlink", OPT_SYMLINK, 2, "SRC DEST", BOTH, "Create at DEST a symbolic link to SRC" },
	{ "perms", OPT_PERMS, 1, "OCTAL", BOTH, "Mode of what the next option creates (--dir, --file, --tmpfs...)" },
	{ "size", OPT_SIZE, 1, "BYTES", BOTH, "Size in bytes of the tmpfs that the next --tmpfs mounts" },
	{ "chmod", OPT_CHMOD, 2, "OCTAL PATH", BOTH, "Change the mode of PATH, which exists already" },
	{ "new-session", OPT_NEW_SESSION, 0, NULL, BOTH, "Run COMMAND in a session of its own (setsid)" },
	{ "die-with-parent", OPT_DIE_WITH_PARENT, 0, NULL, BOTH, "End the sandbox with SIGKILL when the process that started it dies" },
	{ "as-pid-1", OPT_AS_PID_1, 0, NULL, BOTH, "Run COMMAND as pid 1, with no init to reap orphans" },
	{ "cap-add", OPT_CAP_ADD, 1, "CAP", BOTH, "Keep capability CAP (ALL: every one)" },
	{ "cap-drop", OPT_CAP_DROP, 1, "CAP", BOTH, "Drop capability CAP (ALL: every one)" },
	{ "profile", OPT_PROFILE, 1, "NAME", HUTCH | NOPROF, "Apply profile NAME (a path if it has a slash; none: no profile)" },
	{ "mirror", OPT_MIRROR, 1, "PATH", HUTCH, "Reproduce host PATH read-only: a symlink as a symlink, else a read-only bind; absent: skipped" },
	{ "bind-cwd", OPT_BIND_CWD, 0, NULL, HUTCH, "Bind the current directory writable at its path and start there" },
	{ "ro-bind-cwd", OPT_RO_BIND_CWD, 0, NULL, HUTCH, "Bind the current directory read-only at its path and start there" },
	{ "keep-env", OPT_KEEP_ENV, 1, "VAR", HUTCH, "Keep VAR from the caller's environment (after --clearenv)" },
	{ "timeout", OPT_TIMEOUT, 1, "DURATION", HUTCH, "Stop COMMAND after DURATION (seconds, or 5m, 1h; exit status 124)" },
	{ "kill-after", OPT_KILL_AFTER, 1, "DURATION", HUTCH, "Grace between SIGTERM and SIGKILL (default 5)" },
	{ "teardown-deadline", OPT_TEARDOWN_DEADLINE, 1, "DURATION", HUTCH, "Longest wait for teardown before reporting what is stuck (default 10)" },
	{ "seccomp-policy", OPT_SECCOMP_POLICY, 1, "NAME", HUTCH, "Seccomp policy: default, strict, none, or a file" },
	{ "seccomp-deny", OPT_SECCOMP_DENY, 1, "SYSCALL[:ERRNO]", HUTCH, "Also refuse SYSCALL (with EPERM unless ERRNO is given)" },
	{ "seccomp-allow", OPT_SECCOMP_ALLOW, 1, "SYSCALL", HUTCH, "Allow SYSCALL whatever the policy says" },
	{ "pass-fd", OPT_PASS_FD, 1, "FD", HUTCH | NOPROF, "Leave FD open for COMMAND (all others are closed)" },
	{ "explain", OPT_EXPLAIN, 1, "FORMAT", HUTCH | NOPROF | OPTARG, "Print the resolved plan (FORMAT text or json) and exit without running" },
	{ "listen-fds", OPT_LISTEN_FDS, 0, NULL, HUTCH | NOPROF, "Pass on socket activation: the fds LISTEN_FDS names, with LISTEN_PID set to COMMAND's pid" },
	{ "doctor", OPT_DOCTOR, 0, NULL, HUTCH | NOPROF, "Check whether this machine can run hutch, and say how to fix what is missing" },
	{ "args", OPT_ARGS, 1, "FD", BOTH | NOPROF, "Read more options, NUL-separated, from FD" },
	{ "json-status-fd", OPT_JSON_STATUS_FD, 1, "FD", BOTH | NOPROF, "Write the sandbox's status to FD, as JSON objects" },
	{ "info-fd", OPT_INFO_FD, 1, "FD", BOTH | NOPROF, "Write the sandbox's pid and namespaces to FD, as JSON" },
	{ "sync-fd", OPT_SYNC_FD, 1, "FD", BOTH | NOPROF, "Hold FD open for as long as the sandbox runs" },
	{ "block-fd", OPT_BLOCK_FD, 1, "FD", BOTH | NOPROF, "Wait until FD can be read before running COMMAND" },
	{ "userns-block-fd", OPT_USERNS_BLOCK_FD, 1, "FD", BOTH | NOPROF, "Wait until FD can be read before using the new user namespace" },
	{ "lock-file", OPT_LOCK_FILE, 1, "DEST", BOTH, "Hold a lock on DEST for as long as the sandbox runs" },
	{ "userns", OPT_USERNS, 1, "FD", BOTH | NOPROF, "Join the user namespace that FD names instead of making one" },
	{ "userns2", OPT_USERNS2, 1, "FD", BOTH | NOPROF, "Move into the user namespace that FD names once set-up is over (with --userns)" },
	{ "pidns", OPT_PIDNS, 1, "FD", BOTH | NOPROF, "Join the pid namespace that FD names (the new one's parent with --unshare-pid)" },
	{ "bind-fd", OPT_BIND_FD, 2, "FD DEST", BOTH | NOPROF, "Mount the directory (or O_PATH file) that FD names at DEST" },
	{ "ro-bind-fd", OPT_RO_BIND_FD, 2, "FD DEST", BOTH | NOPROF, "As --bind-fd, read-only" },
	{ "seccomp", OPT_SECCOMP, 1, "FD", BOTH | NOPROF, "Load the seccomp BPF program that FD holds (once)" },
	{ "add-seccomp-fd", OPT_ADD_SECCOMP_FD, 1, "FD", BOTH | NOPROF, "Load the seccomp BPF program that FD holds (repeatable, loaded in order)" },
	{ "overlay-src", OPT_OVERLAY_SRC, 1, "SRC", BOTH, "A lower layer of the next overlay (the last one given is on top)" },
	{ "overlay", OPT_OVERLAY, 3, "RWSRC WORKDIR DEST", BOTH, "Mount an overlay at DEST; writes go to the host directory RWSRC, WORKDIR is overlayfs's empty scratch directory on RWSRC's file system" },
	{ "tmp-overlay", OPT_TMP_OVERLAY, 1, "DEST", BOTH, "Mount an overlay at DEST whose writes go to a tmpfs that vanishes with the sandbox" },
	{ "ro-overlay", OPT_RO_OVERLAY, 1, "DEST", BOTH, "Mount a read-only overlay at DEST (at least two --overlay-src)" },
	{ "level-prefix", OPT_LEVEL_PREFIX, 0, NULL, BOTH, "Start each message with its syslog level (<3> error, <4> warning)" },
	{ "exec-label", OPT_EXEC_LABEL, 1, "LABEL", BOTH, "SELinux label that COMMAND runs with" },
	{ "file-label", OPT_FILE_LABEL, 1, "LABEL", BOTH, "SELinux label of the files the sandbox creates" },
	{ "disable-userns", OPT_DISABLE_USERNS, 0, NULL, BOTH, "Let nothing inside the sandbox make another user namespace" },
	{ "assert-userns-disabled", OPT_ASSERT_USERNS_DISABLED, 0, NULL, BOTH, "Fail unless making a user namespace inside the sandbox is refused" },
	{ "report", OPT_REPORT, 1, "FILE", HUTCH | NOPROF, "Write one JSON line per refused action to FILE" },
	{ "report-fd", OPT_REPORT_FD, 1, "FD", HUTCH | NOPROF, "Write one JSON line per refused action to FD" },
	{ "seccomp-log", OPT_SECCOMP_LOG, 0, NULL, HUTCH, "Also let the kernel log refused calls (SECCOMP_RET_LOG)" },
	{ "rlimit", OPT_RLIMIT, 1, "NAME=SOFT[:HARD]", HUTCH, "Set a resource limit of COMMAND (as, core, cpu, data, fsize, memlock, nofile, nproc, stack, ...; unlimited)" },
	{ "pids", OPT_PIDS, 1, "N", HUTCH, "At most N processes in the sandbox (RLIMIT_NPROC in its user namespace; pids.max with a cgroup); 0: no limit" },
	{ "memory", OPT_MEMORY, 1, "BYTES", HUTCH, "Memory limit (cgroup v2 memory.max; K, M, G suffixes)" },
	{ "memory-swap", OPT_MEMORY_SWAP, 1, "BYTES", HUTCH, "Swap limit (cgroup v2 memory.swap.max)" },
	{ "cpu", OPT_CPU, 1, "FRACTION", HUTCH, "CPU limit as a fraction of one CPU (cgroup v2 cpu.max)" },
	{ "pty", OPT_PTY, 0, NULL, HUTCH, "Run COMMAND on a new pseudo-terminal relayed to hutch's own" },
	{ "no-pty", OPT_NO_PTY, 0, NULL, HUTCH, "Never use a pseudo-terminal" },
	{ "fallback", OPT_FALLBACK, 1, "MODE", HUTCH, "Where namespaces are refused: landlock (confine with Landlock and seccomp) or none (fail)" },
	{ "allow-net", OPT_ALLOW_NET, 1, "RULE", HUTCH, "Let COMMAND reach HOST[:PORT] (a name, *.suffix, an address or CIDR; port 443 unless given, * for any) through hutch's proxy, in a network namespace of its own" },
	{ "protect", OPT_PROTECT, 1, "PATH", HUTCH, "Make PATH read-only after every other mount; where it is missing, put an empty read-only file there (PATH/: a directory)" },
};

#define N_SPECS (sizeof(specs) / sizeof(specs[0]))

/* hutch mode's one-letter forms (bwrap knows none). */
static const struct { int key, letter; } short_names[] = {
	{ OPT_HELP, 'h' }, { OPT_VERSION, 'V' },
};

static int short_name(const struct opt_spec *s)
{
	for (size_t i = 0; i < sizeof(short_names) / sizeof(short_names[0]); i++)
		if (short_names[i].key == s->key)
			return short_names[i].letter;
	return 0;
}

static const struct opt_spec *spec_by_key(int key)
{
	for (size_t i = 0; i < N_SPECS; i++)
		if (specs[i].key == key)
			return &specs[i];
	return NULL;
}

const char *cli_option_name(int key)
{
	const struct opt_spec *s = spec_by_key(key);

	return s ? s->name : NULL;
}

static bool spec_in_mode(const struct opt_spec *s, const struct plan *plan)
{
	return (s->flags & BOTH) || plan->mode == MODE_HUTCH;
}

bool cli_option_exists(const struct plan *plan, const char *name)
{
	for (size_t i = 0; i < N_SPECS; i++)
		if (strcmp(specs[i].name, name) == 0)
			return spec_in_mode(&specs[i], plan) &&
			       !(specs[i].flags & NOPROF);
	return false;
}

/* The first word of ARGNAMES is what argp shows and reads; the others
 * are taken from argv by on_option. */
static char *first_argname(const char *argnames)
{
	size_t len = strcspn(argnames, " ");
	char *s = xstrdup(argnames);

	s[len] = '\0';
	return s;
}

static struct argp_option *build_argp_options(const struct plan *plan)
{
	struct argp_option *o = xreallocarray(NULL, 2 * N_SPECS + 1, sizeof(*o));
	size_t n = 0;

	for (size_t i = 0; i < N_SPECS; i++) {
		if (!spec_in_mode(&specs[i], plan))
			continue;
		memset(&o[n], 0, sizeof(o[n]));
		o[n].name = specs[i].name;
		o[n].key = specs[i].key;
		o[n].arg = specs[i].argnames ? first_argname(specs[i].argnames) : NULL;
		o[n].doc = specs[i].doc;
		if (specs[i].flags & OPTARG)
			o[n].flags = OPTION_ARG_OPTIONAL;
		n++;
		/* bwrap knows no -h or -V. */
		if (short_name(&specs[i]) && plan->mode == MODE_HUTCH) {
			memset(&o[n], 0, sizeof(o[n]));
			o[n].key = short_name(&specs[i]);
			o[n].flags = OPTION_ALIAS;
			n++;
		}
	}
	memset(&o[n], 0, sizeof(o[n]));
	return o;
}

static void free_argp_options(struct argp_option *o)
{
	/* An alias (-h, -V) has no name; the end has no key either. */
	for (size_t i = 0; o[i].name || o[i].key; i++)
		free((char *)o[i].arg);
	free(o);
}

struct record_ctx {
	struct plan *plan;
	struct record_list *out;
	const char *origin;
	bool in_profile;
	char *err;
	size_t errlen;
	bool failed;
};

static const char *count_word(int n)
{
	return n == 2 ? "two arguments" : n == 3 ? "three arguments" : "an argument";
}

static error_t record_option(struct record_ctx *ctx, const struct opt_spec *s,
			     char *arg, struct argp_state *state)
{
	struct option_record rec = { .key = s->key };

	if (ctx->in_profile && (s->flags & NOPROF)) {
		snprintf(ctx->err, ctx->errlen, "%s: %s: not allowed in a profile",
			 ctx->origin, s->name);
		ctx->failed = true;
		return EINVAL;
	}
	if (arg)
		rec.args[0] = xstrdup(arg);
	for (int i = 1; i < s->nargs; i++) {
		if (state->next >= state->argc) {
			snprintf(ctx->err, ctx->errlen, "--%s takes %s",
				 s->name, count_word(s->nargs));
			ctx->failed = true;
			for (int j = 0; j < i; j++)
				free(rec.args[j]);
			return EINVAL;
		}
		rec.args[i] = xstrdup(state->argv[state->next++]);
	}
	rec.origin = xstrdup(ctx->origin);
	ctx->out->recs = xreallocarray(ctx->out->recs, ctx->out->n + 1,
				       sizeof(rec));
	ctx->out->recs[ctx->out->n++] = rec;
	return 0;
}

static void take_command(struct record_ctx *ctx, struct argp_state *state)
{
	int first = state->next - 1;
	int n = state->argc - first;
	char **cmd = xreallocarray(NULL, (size_t)n + 1, sizeof(char *));

	for (int i = 0; i < n; i++)
		cmd[i] = xstrdup(state->argv[first + i]);
	cmd[n] = NULL;
	ctx->out->command = cmd;
	state->next = state->argc;
}

#define MAX_ARGS_DEPTH 16
#define MAX_ARGS_SIZE (16 << 20)

/* Read FD to its end: NUL-separated arguments (bwrap's --args). */
static char *read_args_fd(int fd, size_t *len)
{
	size_t cap = 4096;
	char *buf = xreallocarray(NULL, cap, 1);
	ssize_t n;

	*len = 0;
	while ((n = read(fd, buf + *len, cap - *len - 1)) > 0) {
		*len += (size_t)n;
		if (*len + 1 == cap) {
			if (cap >= MAX_ARGS_SIZE)
				break;
			cap *= 2;
			buf = xreallocarray(buf, cap, 1);
		}
	}
	if (n < 0) {
		free(buf);
		return NULL;
	}
	buf[*len] = '\0';
	return buf;
}

/* --args FD: its arguments are read as if they stood here. */
static error_t record_args_fd(struct record_ctx *ctx, const char *arg,
			      struct argp_state *state)
{
	long long fd = parse_uint(arg, 1 << 30);
	char **argv;
	char *buf;
	size_t len, argc = 1;
	int r;

	if (fd < 0 || ctx->out->args_depth >= MAX_ARGS_DEPTH) {
		snprintf(ctx->err, ctx->errlen, fd < 0 ? "Invalid fd: %s" :
			 "--args %s: nested too deep", arg);
		ctx->failed = true;
		return EINVAL;
	}
	if (fds_check_open(ctx->plan, "args", (int)fd, NULL, ctx->err, ctx->errlen) < 0) {
		ctx->failed = true;
		return EINVAL;
	}
	buf = read_args_fd((int)fd, &len);
	/* Read: the fd is not COMMAND's (bwrap closes it). */
	if (buf)
		(void)fcntl((int)fd, F_SETFD, FD_CLOEXEC);
	if (!buf) {
		snprintf(ctx->err, ctx->errlen, "Can't read --args data: %s",
			 strerror(errno));
		ctx->failed = true;
		return EINVAL;
	}
	argv = xreallocarray(NULL, len + 2, sizeof(char *));
	argv[0] = state->argv[0];
	for (size_t off = 0; off < len; off += strlen(buf + off) + 1)
		argv[argc++] = buf + off;
	argv[argc] = NULL;
	ctx->out->args_depth++;
	r = cli_record(ctx->plan, (int)argc, argv, ctx->origin, ctx->in_profile,
		       ctx->out, ctx->err, ctx->errlen);
	ctx->out->args_depth--;
	free(argv);
	free(buf);
	if (r < 0) {
		ctx->failed = true;
		return EINVAL;
	}
	if (ctx->out->command)
		state->next = state->argc;
	return 0;
}

static error_t on_option(int key, char *arg, struct argp_state *state)
{
	struct record_ctx *ctx = state->input;
	const struct opt_spec *s;

	if (key == ARGP_KEY_ARG) {
		if (ctx->in_profile) {
			snprintf(ctx->err, ctx->errlen, "%s: %s: unexpected word",
				 ctx->origin, arg);
			ctx->failed = true;
			return EINVAL;
		}
		/* COMMAND: everything from here on belongs to it. */
		take_command(ctx, state);
		return 0;
	}
	if (key == OPT_ARGS)
		return record_args_fd(ctx, arg, state);
	s = spec_by_key(key);
	for (size_t i = 0; !s && key > 0 && key < 0x100 && i < N_SPECS; i++)
		if (short_name(&specs[i]) == key)
			s = &specs[i];
	if (!s)
		return ARGP_ERR_UNKNOWN;
	return record_option(ctx, s, arg, state);
}

/* --level-prefix (bwrap 0.11): messages carry a syslog level, <3> for
 * errors (a warning turns it into <4>). */
static void take_level_prefix(struct plan *plan)
{
	plan->level_prefix = true;
	plan->prog = plan->mode == MODE_BWRAP ? "<3>bwrap" : "<3>hutch";
}

static const struct opt_spec *spec_by_name(const struct plan *plan, const char *arg)
{
	size_t len = strcspn(arg + 2, "=");

	for (size_t i = 0; i < N_SPECS; i++)
		if (strncmp(specs[i].name, arg + 2, len) == 0 && specs[i].name[len] == '\0')
			return spec_in_mode(&specs[i], plan) ? &specs[i] : NULL;
	return NULL;
}

/* Check the options before argp reads them, so that an unknown option
 * or a missing argument gets bwrap's own words, and no abbreviation of
 * a long option is taken for another. */
/* "-h" and "-V" in hutch mode. */
static const struct opt_spec *spec_by_letter(const struct plan *plan, const char *arg)
{
	for (size_t i = 0; plan->mode == MODE_HUTCH && arg[1] && !arg[2] && i < N_SPECS; i++)
		if (short_name(&specs[i]) == arg[1])
			return &specs[i];
	return NULL;
}

/* Check the option words before argp sees them, in bwrap's words.  On
 * an error, *GOOD is how many words of ARGV came before the bad one. */
static int check_words(struct plan *plan, int argc, char **argv, int *good,
		       char *err, size_t errlen)
{
	for (int i = 1; i < argc; i++) {
		const struct opt_spec *s;

		*good = i;
		if (strcmp(argv[i], "--") == 0 || argv[i][0] != '-')
			return 0;
		s = strncmp(argv[i], "--", 2) == 0 ? spec_by_name(plan, argv[i]) :
		    spec_by_letter(plan, argv[i]);
		if (!s) {
			snprintf(err, errlen, "Unknown option %s", argv[i]);
			return -1;
		}
		if (strchr(argv[i], '=') && !(s->flags & OPTARG) && s->nargs != 1) {
			snprintf(err, errlen, "Unknown option %s", argv[i]);
			return -1;
		}
		/* As bwrap reads its options in order: messages about the
		 * options after --level-prefix carry the level already. */
		if (s->key == OPT_LEVEL_PREFIX)
			take_level_prefix(plan);
		if (strchr(argv[i], '=') || (s->flags & OPTARG))
			continue;
		if (i + s->nargs >= argc) {
			snprintf(err, errlen, "--%s takes %s", s->name, count_word(s->nargs));
			return -1;
		}
		i += s->nargs;
	}
	return 0;
}

int cli_record(struct plan *plan, int argc, char **argv, const char *origin,
	       bool in_profile, struct record_list *out, char *err, size_t errlen)
{
	struct argp_option *options;
	struct argp argp = { .parser = on_option, .args_doc = "[--] COMMAND [ARGS...]" };
	struct record_ctx ctx = { plan, out, origin, in_profile, err, errlen, false };
	unsigned flags = ARGP_IN_ORDER | ARGP_NO_HELP | ARGP_NO_EXIT;
	char bad[4096] = "";
	int good = argc;
	error_t r;

	if (!in_profile && check_words(plan, argc, argv, &good, bad, sizeof(bad)) < 0) {
		if (good <= 1) {
			snprintf(err, errlen, "%s", bad);
			return -1;
		}
		argc = good;	/* record the options before the bad word */
	}
	options = build_argp_options(plan);
	argp.options = options;
	/* Errors are reported here, in bwrap's words, or by profiles with
	 * file and line. */
	flags |= ARGP_NO_ERRS;
	if (out->args_depth == 0)
		err[0] = '\0';
	r = argp_parse(&argp, argc, argv, flags, NULL, &ctx);
	free_argp_options(options);
	if (r == 0 && !ctx.failed && bad[0]) {
		snprintf(err, errlen, "%s", bad);
		return -1;
	}
	if (r == 0 && !ctx.failed)
		return 0;
	if (!err[0])
		snprintf(err, errlen, "%s: invalid option", origin);
	return -1;
}

void records_free(struct record_list *list)
{
	for (size_t i = 0; i < list->n; i++) {
		for (int j = 0; j < 3; j++)
			free(list->recs[i].args[j]);
		free(list->recs[i].origin);
	}
	free(list->recs);
	list->recs = NULL;
	list->n = 0;
	for (char **c = list->command; c && *c; c++)
		free(*c);
	free(list->command);
	list->command = NULL;
}

/* ---- applying options to the plan ---- */

struct apply_ctx {
	struct parse_ctx *p;
	struct plan *plan;
	const struct option_record *rec;
	char *err;
	size_t errlen;
};

static int fail(struct apply_ctx *a, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

static int fail(struct apply_ctx *a, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(a->err, a->errlen, fmt, ap);
	va_end(ap);
	return -1;
}

static struct fs_op *add_op(struct apply_ctx *a, enum fs_kind kind,
			    unsigned flags, const char *src, const char *dest)
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

static int parse_fd(struct apply_ctx *a, const char *s, int *fd)
{
	long long v = parse_uint(s, 1 << 30);

	if (v < 0)
		return fail(a, "Invalid fd: %s", s);
	/* Now, before hutch has opened any fd of its own (see fds.c). */
	if (fds_check_open(a->plan, spec_by_key(a->rec->key)->name, (int)v,
			   a->rec->args[1], a->err, a->errlen) < 0)
		return -1;
	*fd = (int)v;
	return 0;
}

static int apply_fd_op(struct apply_ctx *a, enum fs_kind kind, unsigned flags)
{
	struct fs_op *op;
	int fd = -1;

	if (parse_fd(a, a->rec->args[0], &fd) < 0)
		return -1;
	op = add_op(a, kind, flags, NULL, a->rec->args[1]);
	op->fd = fd;
	return 0;
}

static int apply_id(struct apply_ctx *a, unsigned *id)
{
	long long v = parse_uint(a->rec->args[0], 0xfffffffeLL);

	if (v < 0)
		return fail(a, "Invalid %s: %s", a->rec->key == OPT_UID ? "uid" : "gid",
			    a->rec->args[0]);
	*id = (unsigned)v;
	return 0;
}

static int apply_octal(struct apply_ctx *a, const char *s, mode_t *mode)
{
	char *end;
	unsigned long v;

	errno = 0;
	v = strtoul(s, &end, 8);
	if (!*s || *end || errno || v > 07777)
		return fail(a, "--%s takes an octal argument <= 07777",
			    spec_by_key(a->rec->key)->name);
	*mode = (mode_t)v;
	return 0;
}

/* bwrap's rules: any base strtoull reads, a digit first, not 0, at most
 * half the address space. */
static int apply_size(struct apply_ctx *a)
{
	const char *s = a->rec->args[0];
	unsigned long long v;
	char *end;

	if (a->p->next_size)
		return fail(a, "--size given twice for the same action");
	/* hutch mode takes sizes as --memory does (64M); bwrap bytes only. */
	errno = 0;
	v = strtoull(s, &end, 0);
	if (a->plan->mode == MODE_HUTCH && *end && parse_amount(s, &v) == 0 && v != RLIM_INFINITY)
		end = (char *)"";
	if (errno || !isdigit((unsigned char)s[0]) || *end || v == 0)
		return fail(a, a->plan->mode == MODE_HUTCH ?
			    "--size takes a non-zero size (bytes, or with K, M, G)" :
			    "--size takes a non-zero number of bytes");
	if (v > SIZE_MAX / 2)
		return fail(a, "--size (for tmpfs) is limited to %zu", SIZE_MAX / 2);
	a->p->next_size = v;
	return 0;
}

static int apply_perms(struct apply_ctx *a)
{
	struct parse_ctx *p = a->p;
	int r;

	if (p->have_next_perms)
		return fail(a, "--perms given twice for the same action");
	r = apply_octal(a, a->rec->args[0], &p->next_perms);
	p->have_next_perms = r == 0;
	return r;
}

static int apply_chmod(struct apply_ctx *a)
{
	mode_t mode;
	struct fs_op *op;

	if (apply_octal(a, a->rec->args[0], &mode) < 0)
		return -1;
	op = add_op(a, FS_CHMOD, 0, NULL, a->rec->args[1]);
	op->perms = mode;
	op->has_perms = true;
	return 0;
}

static int apply_cap(struct apply_ctx *a, bool add)
{
	int cap = policy_cap_from_name(a->rec->args[0]);
	unsigned long long bits;

	if (cap == -1)
		return fail(a, "unknown cap: %s", a->rec->args[0]);
	bits = cap == -2 ? ~0ULL : 1ULL << cap;
	a->plan->caps_given = true;
	if (add) {
		a->plan->caps_add |= bits;
		a->plan->caps_drop &= ~bits;
	} else {
		a->plan->caps_drop |= bits;
		a->plan->caps_add &= ~bits;
	}
	return 0;
}

/* --timeout, --kill-after, --teardown-deadline (POSITIVE: more than 0). */
static int apply_seconds(struct apply_ctx *a, const char *option, bool positive, double *out)
{
	double v = parse_duration(a->rec->args[0]);

	if (v < 0 || (positive && v == 0))
		return fail(a, "%s: not a duration%s (seconds, or with s, m, h or d): %s", option,
			    positive ? " above 0" : "", a->rec->args[0]);
	*out = v;
	return 0;
}

static int apply_syscall_rule(struct apply_ctx *a, bool allow)
{
	struct plan *plan = a->plan;
	char *name = xstrdup(a->rec->args[0]);
	char *colon = strchr(name, ':');
	struct syscall_rule *r;
	int errnum = EPERM;

	if (colon) {
		*colon = '\0';
		errnum = allow ? -1 : seccomp_errno_from_name(colon + 1);
		if (errnum < 0) {
			free(name);
			return fail(a, "--seccomp-deny: unknown errno %s",
				    a->rec->args[0]);
		}
	}
	if (!policy_syscall_known(name)) {
		fail(a, "unknown syscall %s", name);
		free(name);
		return -1;
	}
	plan->syscall_rules = xreallocarray(plan->syscall_rules,
					    plan->n_syscall_rules + 1,
					    sizeof(*plan->syscall_rules));
	r = &plan->syscall_rules[plan->n_syscall_rules++];
	r->name = name;
	r->allow = allow;
	r->errnum = allow ? 0 : errnum;
	return 0;
}

static int apply_pass_fd(struct apply_ctx *a)
{
	struct plan *plan = a->plan;
	int fd = -1;

	if (parse_fd(a, a->rec->args[0], &fd) < 0)
		return -1;
	plan->pass_fds = xreallocarray(plan->pass_fds, plan->n_pass_fds + 1,
				       sizeof(int));
	plan->pass_fds[plan->n_pass_fds++] = fd;
	return 0;
}

static int apply_keep_env(struct apply_ctx *a)
{
	const char *name = a->rec->args[0];
	size_t len = strlen(name);

	for (char *const *e = a->p->envp; e && *e; e++)
		if (strncmp(*e, name, len) == 0 && (*e)[len] == '=')
			return plan_setenv(a->plan, name, *e + len + 1);
	return 0;
}

static void replace_str(char **field, const char *value)
{
	free(*field);
	*field = xstrdup(value);
}

/* bwrap warns when an option that holds one value comes again. */
static void warn_if_again(struct apply_ctx *a, bool again)
{
	char msg[96];

	if (!again || a->plan->mode != MODE_BWRAP)
		return;
	snprintf(msg, sizeof(msg), "Only the last --%s option will take effect",
		 spec_by_key(a->rec->key)->name);
	plan_warn(a->plan, msg);
}

static int apply_once_str(struct apply_ctx *a, char **field)
{
	warn_if_again(a, *field != NULL);
	replace_str(field, a->rec->args[0]);
	return 0;
}

static int apply_argv0(struct apply_ctx *a)
{
	if (a->plan->argv0 && a->plan->mode == MODE_BWRAP)
		return fail(a, "--argv0 used multiple times");
	replace_str(&a->plan->argv0, a->rec->args[0]);
	return 0;
}

static int apply_namespace(struct plan *plan, int key)
{
	switch (key) {
	case OPT_UNSHARE_USER: plan->clone_flags |= CLONE_NEWUSER;
		plan->unshare_user_given = true; break;
	case OPT_UNSHARE_USER_TRY: plan->clone_flags |= CLONE_NEWUSER;
		plan->userns_try = true; break;
	case OPT_UNSHARE_PID: plan->clone_flags |= CLONE_NEWPID; break;
	case OPT_UNSHARE_IPC: plan->clone_flags |= CLONE_NEWIPC; break;
	case OPT_UNSHARE_UTS: plan->clone_flags |= CLONE_NEWUTS; break;
	case OPT_UNSHARE_NET: plan->clone_flags |= CLONE_NEWNET; break;
	case OPT_UNSHARE_CGROUP: plan->clone_flags |= CLONE_NEWCGROUP; break;
	case OPT_UNSHARE_CGROUP_TRY: plan->clone_flags |= CLONE_NEWCGROUP;
		plan->cgroupns_try = true; break;
	case OPT_UNSHARE_ALL:
		/* bwrap's --unshare-all: user and cgroup only where possible. */
		plan->clone_flags |= CLONE_NEWUSER | CLONE_NEWPID | CLONE_NEWIPC |
			CLONE_NEWUTS | CLONE_NEWNET | CLONE_NEWCGROUP;
		plan->userns_try = plan->cgroupns_try = true;
		plan->share_net = false;
		break;
	case OPT_SHARE_NET: plan->share_net = true; break;
	default: return -1;
	}
	return 0;
}

static unsigned bind_flags(int key)
{
	switch (key) {
	case OPT_BIND_TRY: return FS_TRY;
	case OPT_DEV_BIND: return FS_DEVICES;
	case OPT_DEV_BIND_TRY: return FS_DEVICES | FS_TRY;
	case OPT_RO_BIND: return FS_READONLY;
	case OPT_RO_BIND_TRY: return FS_READONLY | FS_TRY;
	default: return 0;
	}
}

static int apply_fs(struct apply_ctx *a)
{
	char *const *args = a->rec->args;

	switch (a->rec->key) {
	case OPT_BIND: case OPT_BIND_TRY: case OPT_DEV_BIND:
	case OPT_DEV_BIND_TRY: case OPT_RO_BIND: case OPT_RO_BIND_TRY:
		add_op(a, FS_BIND, bind_flags(a->rec->key), args[0], args[1]);
		return 0;
	case OPT_MIRROR: add_op(a, FS_MIRROR, FS_READONLY | FS_TRY, args[0], args[0]); return 0;
	case OPT_REMOUNT_RO: add_op(a, FS_REMOUNT_RO, 0, NULL, args[0]); return 0;
	case OPT_PROC: add_op(a, FS_PROC, 0, NULL, args[0]); return 0;
	case OPT_DEV: add_op(a, FS_DEV, 0, NULL, args[0]); return 0;
	case OPT_TMPFS: add_op(a, FS_TMPFS, 0, NULL, args[0]); return 0;
	case OPT_MQUEUE: add_op(a, FS_MQUEUE, 0, NULL, args[0]); return 0;
	case OPT_DIR: add_op(a, FS_DIR, 0, NULL, args[0]); return 0;
	case OPT_SYMLINK: add_op(a, FS_SYMLINK, 0, args[0], args[1]); return 0;
	case OPT_CHMOD: return apply_chmod(a);
	case OPT_FILE: return apply_fd_op(a, FS_FILE, 0);
	case OPT_BIND_DATA: return apply_fd_op(a, FS_BIND_DATA, 0);
	case OPT_RO_BIND_DATA: return apply_fd_op(a, FS_BIND_DATA, FS_READONLY);
	default: return 1;
	}
}

static int apply_cwd_bind(struct apply_ctx *a, unsigned flags)
{
	/* The directory is resolved and checked when the plan is final
	 * (plan_check_cwd), so that an explain shows the real path. */
	add_op(a, FS_BIND, flags | FS_CWD, ".", ".");
	return 0;
}

static int apply_process(struct apply_ctx *a)
{
	struct plan *plan = a->plan;
	char *const *args = a->rec->args;

	switch (a->rec->key) {
	case OPT_UID: warn_if_again(a, a->p->uid_set); a->p->uid_set = true;
		return apply_id(a, &plan->uid);
	case OPT_GID: warn_if_again(a, a->p->gid_set); a->p->gid_set = true;
		return apply_id(a, &plan->gid);
	case OPT_HOSTNAME: return apply_once_str(a, &plan->hostname);
	case OPT_CHDIR: return apply_once_str(a, &plan->chdir);
	/* setenv(3)'s rule, as bwrap applies it: no empty name, no '='. */
	case OPT_SETENV:
		if (!*args[0] || strchr(args[0], '='))
			return fail(a, plan->mode == MODE_BWRAP ? "setenv failed" :
				    "not a variable name: \"%s\"", args[0]);
		return plan_setenv(plan, args[0], args[1]);
	case OPT_UNSETENV:
		if (!*args[0] || strchr(args[0], '='))
			return fail(a, plan->mode == MODE_BWRAP ? "unsetenv failed" :
				    "not a variable name: \"%s\"", args[0]);
		plan_unsetenv(plan, args[0]);
		return 0;
	case OPT_CLEARENV: plan_clearenv(plan); return 0;
	case OPT_KEEP_ENV: return apply_keep_env(a);
	case OPT_ARGV0: return apply_argv0(a);
	case OPT_DIE_WITH_PARENT: plan->die_with_parent = true; return 0;
	case OPT_NEW_SESSION: plan->new_session = true; return 0;
	case OPT_AS_PID_1: plan->as_pid_1 = true; return 0;
	case OPT_CAP_ADD: return apply_cap(a, true);
	case OPT_CAP_DROP: return apply_cap(a, false);
	case OPT_PASS_FD: return apply_pass_fd(a);
	default: return 1;
	}
}

static int apply_allow_net(struct apply_ctx *a)
{
	struct plan *plan = a->plan;
	struct net_rule rule;
	char why[256];

	if (net_rule_parse(a->rec->args[0], a->rec->origin, &rule, why, sizeof(why)) < 0)
		return fail(a, "--allow-net %s: %s", a->rec->args[0], why);
	plan->net_rules = xreallocarray(plan->net_rules, plan->n_net_rules + 1, sizeof(rule));
	plan->net_rules[plan->n_net_rules++] = rule;
	return 0;
}

static int apply_protect(struct apply_ctx *a)
{
	struct plan *plan = a->plan;

	if (!a->rec->args[0][0])
		return fail(a, "--protect: an empty path");
	plan->protect = xreallocarray(plan->protect, plan->n_protect + 1,
				      sizeof(*plan->protect));
	plan->protect[plan->n_protect++] = (struct protect_path){
		xstrdup(a->rec->args[0]), xstrdup(a->rec->origin)
	};
	return 0;
}

static int apply_hutch(struct apply_ctx *a)
{
	struct plan *plan = a->plan;

	switch (a->rec->key) {
	case OPT_BIND_CWD: return apply_cwd_bind(a, 0);
	case OPT_RO_BIND_CWD: return apply_cwd_bind(a, FS_READONLY);
	case OPT_TIMEOUT: return apply_seconds(a, "--timeout", false, &plan->timeout);
	case OPT_KILL_AFTER: return apply_seconds(a, "--kill-after", false, &plan->kill_after);
	/* 0 would end every run in "did not exit" at once. */
	case OPT_TEARDOWN_DEADLINE:
		return apply_seconds(a, "--teardown-deadline", true, &plan->teardown_deadline);
	case OPT_SECCOMP_POLICY:
		/* A policy file that is not there fails here, where the line
		 * that named it is known. */
		if (strchr(a->rec->args[0], '/') && access(a->rec->args[0], R_OK) < 0)
			return fail(a, "%s: %s", a->rec->args[0], strerror(errno));
		replace_str(&plan->seccomp_policy, a->rec->args[0]);
		return 0;
	case OPT_SECCOMP_DENY: return apply_syscall_rule(a, false);
	case OPT_SECCOMP_ALLOW: return apply_syscall_rule(a, true);
	case OPT_HELP: plan->show_help = true; return 0;
	case OPT_VERSION: plan->show_version = true; return 0;
	case OPT_PROFILE: return 0;	/* applied before the others */
	case OPT_PERMS: return apply_perms(a);
	case OPT_SIZE: return apply_size(a);
	case OPT_ALLOW_NET: return apply_allow_net(a);
	case OPT_PROTECT: return apply_protect(a);
	default: return 1;
	}
}

static int apply_int_fd(struct apply_ctx *a, int *field)
{
	warn_if_again(a, *field >= 0);
	return parse_fd(a, a->rec->args[0], field);
}

static void push_str(char ***v, size_t *n, const char *s)
{
	*v = xreallocarray(*v, *n + 1, sizeof(char *));
	(*v)[(*n)++] = xstrdup(s);
}

static int apply_seccomp_fd(struct apply_ctx *a, bool once)
{
	struct plan *plan = a->plan;
	int fd = -1;

	if (once && !plan->seccomp_fd_given && plan->n_seccomp_fds > 0)
		return fail(a, "--seccomp cannot be combined with --add-seccomp-fd");
	if (!once && plan->seccomp_fd_given)
		return fail(a, "--add-seccomp-fd cannot be combined with --seccomp");
	if (parse_fd(a, a->rec->args[0], &fd) < 0)
		return -1;
	if (once && plan->seccomp_fd_given) {
		/* bwrap: a later --seccomp replaces the earlier one */
		plan_warn(plan, "Only the last --seccomp option will take effect");
		plan->seccomp_fds[0] = fd;
		return 0;
	}
	plan->seccomp_fd_given |= once;
	plan->seccomp_fds = xreallocarray(plan->seccomp_fds, plan->n_seccomp_fds + 1,
					  sizeof(int));
	plan->seccomp_fds[plan->n_seccomp_fds++] = fd;
	return 0;
}

/* An overlay takes the --overlay-src options given since the last one. */
static int apply_overlay(struct apply_ctx *a, enum fs_kind kind)
{
	struct parse_ctx *p = a->p;
	char *const *args = a->rec->args;
	const char *dest = kind == FS_OVERLAY ? args[2] : args[0];
	struct fs_op *op;

	const char *name = kind == FS_OVERLAY ? "--overlay" :
			   kind == FS_TMP_OVERLAY ? "--tmp-overlay" : "--ro-overlay";

	if (kind == FS_RO_OVERLAY && p->n_overlay_srcs < 2)
		return fail(a, "%s requires at least two --overlay-src", name);
	if (p->n_overlay_srcs == 0)
		return fail(a, "%s requires at least one --overlay-src", name);
	op = add_op(a, kind, kind == FS_RO_OVERLAY ? FS_READONLY : 0,
		    kind == FS_OVERLAY ? args[0] : NULL, dest);
	op->lower = p->overlay_srcs;
	op->n_lower = p->n_overlay_srcs;
	p->overlay_srcs = NULL;
	p->n_overlay_srcs = 0;
	if (kind == FS_OVERLAY)
		op->workdir = xstrdup(args[1]);
	return 0;
}

static int apply_protocol(struct apply_ctx *a)
{
	struct plan *plan = a->plan;
	char *const *args = a->rec->args;

	switch (a->rec->key) {
	case OPT_JSON_STATUS_FD: return apply_int_fd(a, &plan->json_status_fd);
	case OPT_INFO_FD: return apply_int_fd(a, &plan->info_fd);
	case OPT_SYNC_FD: return apply_int_fd(a, &plan->sync_fd);
	case OPT_BLOCK_FD: return apply_int_fd(a, &plan->block_fd);
	case OPT_USERNS_BLOCK_FD: return apply_int_fd(a, &plan->userns_block_fd);
	case OPT_USERNS: return apply_int_fd(a, &plan->userns_fd);
	case OPT_USERNS2: return apply_int_fd(a, &plan->userns2_fd);
	case OPT_PIDNS: return apply_int_fd(a, &plan->pidns_fd);
	case OPT_LOCK_FILE: push_str(&plan->lock_files, &plan->n_lock_files, args[0]); return 0;
	case OPT_BIND_FD: return apply_fd_op(a, FS_BIND_FD, 0);
	case OPT_RO_BIND_FD: return apply_fd_op(a, FS_BIND_FD, FS_READONLY);
	case OPT_SECCOMP: return apply_seccomp_fd(a, true);
	case OPT_ADD_SECCOMP_FD: return apply_seccomp_fd(a, false);
	case OPT_OVERLAY_SRC:
		push_str(&a->p->overlay_srcs, &a->p->n_overlay_srcs, args[0]);
		return 0;
	case OPT_OVERLAY: return apply_overlay(a, FS_OVERLAY);
	case OPT_TMP_OVERLAY: return apply_overlay(a, FS_TMP_OVERLAY);
	case OPT_RO_OVERLAY: return apply_overlay(a, FS_RO_OVERLAY);
	case OPT_LEVEL_PREFIX: take_level_prefix(plan); return 0;
	case OPT_EXEC_LABEL: return apply_once_str(a, &plan->exec_label);
	case OPT_FILE_LABEL: return apply_once_str(a, &plan->file_label);
	case OPT_DISABLE_USERNS: plan->disable_userns = true; return 0;
	case OPT_ASSERT_USERNS_DISABLED: plan->assert_userns_disabled = true; return 0;
	default: return 1;
	}
}

static const struct { const char *name; int resource; } rlimit_names[] = {
	{ "as", RLIMIT_AS }, { "core", RLIMIT_CORE }, { "cpu", RLIMIT_CPU },
	{ "data", RLIMIT_DATA }, { "fsize", RLIMIT_FSIZE },
	{ "locks", RLIMIT_LOCKS }, { "memlock", RLIMIT_MEMLOCK },
	{ "msgqueue", RLIMIT_MSGQUEUE }, { "nice", RLIMIT_NICE },
	{ "nofile", RLIMIT_NOFILE }, { "nproc", RLIMIT_NPROC },
	{ "rss", RLIMIT_RSS }, { "rtprio", RLIMIT_RTPRIO },
	{ "rttime", RLIMIT_RTTIME }, { "sigpending", RLIMIT_SIGPENDING },
	{ "stack", RLIMIT_STACK },
};

static int apply_rlimit(struct apply_ctx *a)
{
	struct plan *plan = a->plan;
	char *spec = xstrdup(a->rec->args[0]);
	char *eq = strchr(spec, '='), *colon;
	struct rlimit_setting r = { .resource = -1 };

	if (eq) {
		*eq = '\0';
		colon = strchr(eq + 1, ':');
		if (colon)
			*colon = '\0';
		for (size_t i = 0; i < sizeof(rlimit_names) / sizeof(rlimit_names[0]); i++)
			if (strcasecmp(rlimit_names[i].name, spec) == 0)
				r.resource = rlimit_names[i].resource;
		if (r.resource >= 0 && parse_amount(eq + 1, &r.soft) == 0 &&
		    parse_amount(colon ? colon + 1 : eq + 1, &r.hard) == 0 && r.soft <= r.hard) {
			r.origin = xstrdup(a->rec->origin);
			plan->rlimits = xreallocarray(plan->rlimits, plan->n_rlimits + 1, sizeof(r));
			plan->rlimits[plan->n_rlimits++] = r;
			free(spec);
			return 0;
		}
	}
	free(spec);
	return fail(a, "--rlimit %s: expected NAME=SOFT[:HARD] with a known NAME "
		    "(as core cpu data fsize locks memlock msgqueue nice nofile nproc rss "
		    "rtprio rttime sigpending stack) and SOFT <= HARD", a->rec->args[0]);
}

static int apply_bytes(struct apply_ctx *a, unsigned long long *field)
{
	if (parse_amount(a->rec->args[0], field) < 0)
		return fail(a, "--%s: not an amount of bytes: %s",
			    spec_by_key(a->rec->key)->name, a->rec->args[0]);
	return 0;
}

static int apply_limits(struct apply_ctx *a)
{
	struct plan *plan = a->plan;
	char *const *args = a->rec->args;
	double v;

	switch (a->rec->key) {
	case OPT_RLIMIT: return apply_rlimit(a);
	case OPT_PIDS:
		replace_str(&plan->pids_origin, a->rec->origin);
		/* 0 is no limit, so that a later option can undo a profile's. */
		plan->pids = parse_uint(args[0], 1 << 22);
		return plan->pids >= 0 ? 0 : fail(a, "--pids: not a count: %s", args[0]);
	case OPT_MEMORY: return apply_bytes(a, &plan->memory);
	case OPT_MEMORY_SWAP: return apply_bytes(a, &plan->memory_swap);
	case OPT_CPU:
		v = parse_seconds(args[0]);
		if (v <= 0)
			return fail(a, "--cpu: not a fraction of a CPU: %s", args[0]);
		plan->cpu = v;
		return 0;
	default: return 1;
	}
}

static const char *caller_env(struct apply_ctx *a, const char *name)
{
	return env_value(a->p->envp, name);
}

/* systemd socket activation: LISTEN_FDS fds from 3 on, meant for hutch
 * (LISTEN_PID), are COMMAND's; LISTEN_PID is set again before execve. */
static int apply_listen_fds(struct apply_ctx *a)
{
	struct plan *plan = a->plan;
	const char *fds = caller_env(a, "LISTEN_FDS");
	const char *pid = caller_env(a, "LISTEN_PID");
	const char *names = caller_env(a, "LISTEN_FDNAMES");
	long long n = parse_uint(fds, 4096);

	if (n < 0)
		return fail(a, "--listen-fds: LISTEN_FDS is not set to a count of fds");
	if (pid && parse_uint(pid, 1 << 30) != (long long)getpid())
		return fail(a, "--listen-fds: LISTEN_PID %s is not hutch's pid: the fds are not meant for it", pid);
	for (long long fd = 3; fd < 3 + n; fd++) {
		if (!fds_is_open((int)fd))
			return fail(a, "--listen-fds: fd %lld of LISTEN_FDS=%s: %s", fd, fds,
				    strerror(EBADF));
		plan->pass_fds = xreallocarray(plan->pass_fds, plan->n_pass_fds + 1, sizeof(int));
		plan->pass_fds[plan->n_pass_fds++] = (int)fd;
	}
	plan->listen_fds = (int)n;
	plan_setenv(plan, "LISTEN_FDS", fds);
	if (names)
		plan_setenv(plan, "LISTEN_FDNAMES", names);
	return 0;
}

static int apply_interaction(struct apply_ctx *a)
{
	struct plan *plan = a->plan;
	const char *arg = a->rec->args[0];

	switch (a->rec->key) {
	case OPT_REPORT: replace_str(&plan->report_path, arg); return 0;
	case OPT_REPORT_FD: return apply_int_fd(a, &plan->report_fd);
	case OPT_SECCOMP_LOG: plan->seccomp_log = true; return 0;
	case OPT_PTY: plan->pty = PTY_ON; return 0;
	case OPT_NO_PTY: plan->pty = PTY_OFF; return 0;
	case OPT_DOCTOR: plan->doctor = true; return 0;
	case OPT_LISTEN_FDS: return apply_listen_fds(a);
	case OPT_EXPLAIN:
		if (arg && strcmp(arg, "json") != 0 && strcmp(arg, "text") != 0)
			return fail(a, "--explain: unknown format %s (text or json)", arg);
		plan->explain = arg && strcmp(arg, "json") == 0 ? EXPLAIN_JSON : EXPLAIN_TEXT;
		return 0;
	case OPT_FALLBACK:
		if (strcmp(arg, "landlock") == 0)
			plan->fallback = FALLBACK_LANDLOCK;
		else if (strcmp(arg, "none") == 0)
			plan->fallback = FALLBACK_NONE;
		else
			return fail(a, "--fallback: unknown mode %s (landlock or none)", arg);
		return 0;
	default: return 1;
	}
}

/* As bwrap: what --perms, --size and --overlay-src set must be taken by
 * the option that follows them. */
static int check_pending(struct apply_ctx *a)
{
	struct parse_ctx *p = a->p;
	int key = a->rec->key;

	if (key == OPT_PERMS || key == OPT_SIZE)
		return 0;
	if (p->have_next_perms)
		return fail(a, "--perms must be followed by an option that creates a file");
	if (p->next_size)
		return fail(a, "--size must be followed by --tmpfs");
	if (key != OPT_OVERLAY_SRC && p->n_overlay_srcs > 0)
		return fail(a, "--overlay-src must be followed by another --overlay-src "
			    "or one of --overlay, --tmp-overlay, or --ro-overlay");
	return 0;
}

static int apply_option(struct apply_ctx *a)
{
	struct plan *plan = a->plan;
	const struct option_record *rec = a->rec;
	int r;

	if (apply_namespace(plan, rec->key) == 0)
		return 0;
	r = apply_fs(a);
	if (r <= 0)
		return r;
	r = apply_process(a);
	if (r <= 0)
		return r;
	r = apply_hutch(a);
	if (r <= 0)
		return r;
	r = apply_protocol(a);
	if (r <= 0)
		return r;
	r = apply_limits(a);
	if (r <= 0)
		return r;
	r = apply_interaction(a);
	if (r <= 0)
		return r;
	return fail(a, "internal error: option %s has no meaning", rec->origin);
}

int cli_apply(struct parse_ctx *p, const struct option_record *rec,
	      char *err, size_t errlen)
{
	struct apply_ctx a = { p, p->plan, rec, err, errlen };

	return apply_option(&a) < 0 ? -1 : check_pending(&a);
}

static void help_option(const struct opt_spec *s, bool hutch, FILE *out)
{
	char left[80], letter[8] = "";

	if (hutch && short_name(s))
		snprintf(letter, sizeof(letter), "-%c, ", short_name(s));
	if (s->flags & OPTARG)
		snprintf(left, sizeof(left), "--%s[=%s]", s->name, s->argnames);
	else
		snprintf(left, sizeof(left), "%s--%s%s%s", letter, s->name, s->argnames ? " " : "",
			 s->argnames ? s->argnames : "");
	fprintf(out, "    %-28s %s\n", left, s->doc);
}

/* The option table, as the mode has it: bwrap mode's is bwrap's list. */
void cli_help(const struct plan *plan, FILE *out)
{
	bool hutch = plan->mode == MODE_HUTCH;

	/* bwrap names the program as it was invoked. */
	fprintf(out, "usage: %s [OPTIONS...] [--] COMMAND [ARGS...]\n", hutch ? "hutch" :
		plan->invoked_as);
	if (hutch)
		fprintf(out, "       hutch --explain[=FORMAT] [OPTIONS...] [[--] COMMAND [ARGS...]]\n"
			"       hutch --doctor [OPTIONS...]\n\n"
			"Runs COMMAND in new user, mount and pid namespaces, under the profile\n"
			"\"default\" unless --profile names others (--profile none: none).\n");
	fputc('\n', out);
	for (size_t i = 0; i < N_SPECS; i++)
		if (spec_in_mode(&specs[i], plan))
			help_option(&specs[i], hutch, out);
	if (hutch)
		fprintf(out, "\nExit status: COMMAND's; 128+N when signal N ended it; 124 after\n"
			"--timeout; 125 when hutch failed; 126 when COMMAND could not be run;\n"
			"127 when it was not found.  See hutch(1) and hutch-profile(5).\n");
}

bool cli_is_profile(const struct option_record *rec)
{
	return rec->key == OPT_PROFILE;
}

bool cli_wants_info(const struct record_list *list)
{
	for (size_t i = 0; i < list->n; i++)
		if (list->recs[i].key == OPT_HELP || list->recs[i].key == OPT_VERSION)
			return true;
	return false;
}
