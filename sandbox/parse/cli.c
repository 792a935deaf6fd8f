/* The option table: every option of bwrap and of hutch, one row each
 * (name, arguments, modes, apply function, help), read from the command
 * line and from profiles alike (one grammar, not two).  Here too: the
 * recording of option words (argp, --args fds), --help from the table,
 * and cli_apply, which hands a record to its row's apply function
 * (opt_fs.c, opt_process.c, opt_policy.c). */
#define _GNU_SOURCE
#include <argp.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"
#include "plan/plan.h"
#include "options.h"
#include "lib/lib.h"

/* One row per option, in --help's order: name, number of arguments,
 * their names, modes (BOTH: bwrap's, in both modes; HUTCH: hutch mode
 * only) and NOPROF/OPTARG, the apply function (options.h), help text.
 * A new option is a row here and its apply function; nothing else in
 * the parser names it.  --args has none: it is read while recording. */
static const struct opt_spec specs[] = {
	{ "help", 0, NULL, BOTH | NOPROF, opt_help, "Show this text and exit" },
	{ "version", 0, NULL, BOTH | NOPROF, opt_version, "Show the version and exit" },
	{ "unshare-all", 0, NULL, BOTH, opt_unshare_all, "New namespaces of every kind (user and cgroup where possible)" },
	{ "share-net", 0, NULL, BOTH, opt_share_net, "Keep the caller's network namespace (after --unshare-all)" },
	{ "unshare-user", 0, NULL, BOTH, opt_unshare_user, "Make a new user namespace" },
	{ "unshare-user-try", 0, NULL, BOTH, opt_unshare_user_try, "Make a new user namespace where the kernel allows it, else go on without" },
	{ "unshare-ipc", 0, NULL, BOTH, opt_unshare_ipc, "Make a new IPC namespace" },
	{ "unshare-pid", 0, NULL, BOTH, opt_unshare_pid, "Make a new pid namespace" },
	{ "unshare-net", 0, NULL, BOTH, opt_unshare_net, "Make a new network namespace (only lo, up)" },
	{ "unshare-uts", 0, NULL, BOTH, opt_unshare_uts, "Make a new UTS namespace (host and domain name)" },
	{ "unshare-cgroup", 0, NULL, BOTH, opt_unshare_cgroup, "Make a new cgroup namespace" },
	{ "unshare-cgroup-try", 0, NULL, BOTH, opt_unshare_cgroup_try, "Make a new cgroup namespace where the kernel allows it, else go on without" },
	{ "uid", 1, "UID", BOTH, opt_uid, "User id inside the sandbox (needs --unshare-user or --userns)" },
	{ "gid", 1, "GID", BOTH, opt_gid, "Group id inside the sandbox (needs --unshare-user or --userns)" },
	{ "hostname", 1, "NAME", BOTH, opt_hostname, "Host name inside the sandbox (needs --unshare-uts)" },
	{ "chdir", 1, "DIR", BOTH, opt_chdir, "Start COMMAND in directory DIR" },
	{ "clearenv", 0, NULL, BOTH, opt_clearenv, "Start COMMAND with an empty environment (but PWD)" },
	{ "setenv", 2, "VAR VALUE", BOTH, opt_setenv, "Set VAR to VALUE in COMMAND's environment" },
	{ "unsetenv", 1, "VAR", BOTH, opt_unsetenv, "Remove VAR from COMMAND's environment" },
	{ "argv0", 1, "VALUE", BOTH, opt_argv0, "Run COMMAND with VALUE as its argv[0]" },
	{ "bind", 2, "SRC DEST", BOTH, opt_bind, "Mount the host path SRC at DEST, writable" },
	{ "bind-try", 2, "SRC DEST", BOTH, opt_bind_try, "As --bind; nothing happens when SRC is missing" },
	{ "dev-bind", 2, "SRC DEST", BOTH, opt_dev_bind, "As --bind, with device nodes usable" },
	{ "dev-bind-try", 2, "SRC DEST", BOTH, opt_dev_bind_try, "As --dev-bind; nothing happens when SRC is missing" },
	{ "ro-bind", 2, "SRC DEST", BOTH, opt_ro_bind, "Mount the host path SRC at DEST, read-only" },
	{ "ro-bind-try", 2, "SRC DEST", BOTH, opt_ro_bind_try, "As --ro-bind; nothing happens when SRC is missing" },
	{ "remount-ro", 1, "DEST", BOTH, opt_remount_ro, "Make the mount at DEST read-only (not the mounts below it)" },
	{ "proc", 1, "DEST", BOTH, opt_proc, "Mount a new proc file system at DEST" },
	{ "dev", 1, "DEST", BOTH, opt_dev, "Mount a new, minimal /dev at DEST" },
	{ "tmpfs", 1, "DEST", BOTH, opt_tmpfs, "Mount a new, empty tmpfs at DEST" },
	{ "mqueue", 1, "DEST", BOTH, opt_mqueue, "Mount a new POSIX message queue file system at DEST" },
	{ "dir", 1, "DEST", BOTH, opt_dir, "Create the directory DEST" },
	{ "file", 2, "FD DEST", BOTH | NOPROF, opt_file, "Create the file DEST holding what FD reads" },
	{ "bind-data", 2, "FD DEST", BOTH | NOPROF, opt_bind_data, "Mount at DEST a file holding what FD reads" },
	{ "ro-bind-data", 2, "FD DEST", BOTH | NOPROF, opt_ro_bind_data, "Mount at DEST a read-only file holding what FD reads" },
	{ "symlink", 2, "SRC DEST", BOTH, opt_symlink, "Create at DEST a symbolic link to SRC" },
	{ "perms", 1, "OCTAL", BOTH, opt_perms, "Mode of what the next option creates (--dir, --file, --tmpfs...)" },
	{ "size", 1, "BYTES", BOTH, opt_size, "Size in bytes of the tmpfs that the next --tmpfs mounts" },
	{ "chmod", 2, "OCTAL PATH", BOTH, opt_chmod, "Change the mode of PATH, which exists already" },
	{ "new-session", 0, NULL, BOTH, opt_new_session, "Run COMMAND in a session of its own (setsid)" },
	{ "die-with-parent", 0, NULL, BOTH, opt_die_with_parent, "End the sandbox with SIGKILL when the process that started it dies" },
	{ "as-pid-1", 0, NULL, BOTH, opt_as_pid_1, "Run COMMAND as pid 1, with no init to reap orphans" },
	{ "cap-add", 1, "CAP", BOTH, opt_cap_add, "Keep capability CAP (ALL: every one)" },
	{ "cap-drop", 1, "CAP", BOTH, opt_cap_drop, "Drop capability CAP (ALL: every one)" },
	{ "profile", 1, "NAME", HUTCH | NOPROF, opt_profile, "Apply profile NAME (a path if it has a slash; none: no profile)" },
	{ "mirror", 1, "PATH", HUTCH, opt_mirror, "Reproduce host PATH read-only: a symlink as a symlink, else a read-only bind; absent: skipped" },
	{ "bind-cwd", 0, NULL, HUTCH, opt_bind_cwd, "Bind the current directory writable at its path and start there" },
	{ "ro-bind-cwd", 0, NULL, HUTCH, opt_ro_bind_cwd, "Bind the current directory read-only at its path and start there" },
	{ "keep-env", 1, "VAR", HUTCH, opt_keep_env, "Keep VAR from the caller's environment (after --clearenv)" },
	{ "timeout", 1, "DURATION", HUTCH, opt_timeout, "Stop COMMAND after DURATION (seconds, or 5m, 1h; exit status 124)" },
	{ "kill-after", 1, "DURATION", HUTCH, opt_kill_after, "Grace between SIGTERM and SIGKILL (default 5)" },
	{ "teardown-deadline", 1, "DURATION", HUTCH, opt_teardown_deadline, "Longest wait for teardown before reporting what is stuck (default 10)" },
	{ "seccomp-policy", 1, "NAME", HUTCH, opt_seccomp_policy, "Seccomp policy: default, strict, none, or a file" },
	{ "seccomp-deny", 1, "SYSCALL[:ERRNO]", HUTCH, opt_seccomp_deny, "Also refuse SYSCALL (with EPERM unless ERRNO is given)" },
	{ "seccomp-allow", 1, "SYSCALL", HUTCH, opt_seccomp_allow, "Allow SYSCALL whatever the policy says" },
	{ "allow-nested", 0, NULL, HUTCH, opt_allow_nested, "Let COMMAND start a sandbox of its own (hutch, bwrap): allow the mount calls, in its own user namespaces only (a root caller adds --uid N)" },
	{ "pass-fd", 1, "FD", HUTCH | NOPROF, opt_pass_fd, "Leave FD open for COMMAND (all others are closed)" },
	{ "explain", 1, "FORMAT", HUTCH | NOPROF | OPTARG, opt_explain, "Print the resolved plan (FORMAT text or json) and exit without running" },
	{ "listen-fds", 0, NULL, HUTCH | NOPROF, opt_listen_fds, "Pass on socket activation: the fds LISTEN_FDS names, with LISTEN_PID set to COMMAND's pid" },
	{ "doctor", 0, NULL, HUTCH | NOPROF, opt_doctor, "Check whether this machine can run hutch, and say how to fix what is missing" },
	{ "args", 1, "FD", BOTH | NOPROF, NULL, "Read more options, NUL-separated, from FD" },
	{ "json-status-fd", 1, "FD", BOTH | NOPROF, opt_json_status_fd, "Write the sandbox's status to FD, as JSON objects" },
	{ "info-fd", 1, "FD", BOTH | NOPROF, opt_info_fd, "Write the sandbox's pid and namespaces to FD, as JSON" },
	{ "sync-fd", 1, "FD", BOTH | NOPROF, opt_sync_fd, "Hold FD open for as long as the sandbox runs" },
	{ "block-fd", 1, "FD", BOTH | NOPROF, opt_block_fd, "Wait until FD can be read before running COMMAND" },
	{ "userns-block-fd", 1, "FD", BOTH | NOPROF, opt_userns_block_fd, "Wait until FD can be read before using the new user namespace" },
	{ "lock-file", 1, "DEST", BOTH, opt_lock_file, "Hold a lock on DEST for as long as the sandbox runs" },
	{ "userns", 1, "FD", BOTH | NOPROF, opt_userns, "Join the user namespace that FD names instead of making one" },
	{ "userns2", 1, "FD", BOTH | NOPROF, opt_userns2, "Move into the user namespace that FD names once set-up is over (with --userns)" },
	{ "pidns", 1, "FD", BOTH | NOPROF, opt_pidns, "Join the pid namespace that FD names (the new one's parent with --unshare-pid)" },
	{ "bind-fd", 2, "FD DEST", BOTH | NOPROF, opt_bind_fd, "Mount the directory (or O_PATH file) that FD names at DEST" },
	{ "ro-bind-fd", 2, "FD DEST", BOTH | NOPROF, opt_ro_bind_fd, "As --bind-fd, read-only" },
	{ "seccomp", 1, "FD", BOTH | NOPROF, opt_seccomp, "Load the seccomp BPF program that FD holds (once)" },
	{ "add-seccomp-fd", 1, "FD", BOTH | NOPROF, opt_add_seccomp_fd, "Load the seccomp BPF program that FD holds (repeatable, loaded in order)" },
	{ "overlay-src", 1, "SRC", BOTH, opt_overlay_src, "A lower layer of the next overlay (the last one given is on top)" },
	{ "overlay", 3, "RWSRC WORKDIR DEST", BOTH, opt_overlay, "Mount an overlay at DEST; writes go to the host directory RWSRC, WORKDIR is overlayfs's empty scratch directory on RWSRC's file system" },
	{ "tmp-overlay", 1, "DEST", BOTH, opt_tmp_overlay, "Mount an overlay at DEST whose writes go to a tmpfs that vanishes with the sandbox" },
	{ "ro-overlay", 1, "DEST", BOTH, opt_ro_overlay, "Mount a read-only overlay at DEST (at least two --overlay-src)" },
	{ "level-prefix", 0, NULL, BOTH, opt_level_prefix, "Start each message with its syslog level (<3> error, <4> warning)" },
	{ "exec-label", 1, "LABEL", BOTH, opt_exec_label, "SELinux label that COMMAND runs with" },
	{ "file-label", 1, "LABEL", BOTH, opt_file_label, "SELinux label of the files the sandbox creates" },
	{ "disable-userns", 0, NULL, BOTH, opt_disable_userns, "Let nothing inside the sandbox make another user namespace" },
	{ "assert-userns-disabled", 0, NULL, BOTH, opt_assert_userns_disabled, "Fail unless making a user namespace inside the sandbox is refused" },
	{ "timing", 1, "FORMAT", HUTCH | NOPROF | OPTARG, opt_timing, "After the run, print on stderr where the launch spent its time (FORMAT text or json)" },
	{ "report", 1, "FILE", HUTCH | NOPROF, opt_report, "Write one JSON line per refused action to FILE" },
	{ "report-fd", 1, "FD", HUTCH | NOPROF, opt_report_fd, "Write one JSON line per refused action to FD" },
	{ "learn", 1, "FILE", HUTCH | NOPROF, opt_learn, "Record what COMMAND was refused or lacked and write FILE, a profile that allows it (hutch --profile FILE)" },
	{ "seccomp-log", 0, NULL, HUTCH, opt_seccomp_log, "Also let the kernel log refused calls (SECCOMP_RET_LOG)" },
	{ "rlimit", 1, "NAME=SOFT[:HARD]", HUTCH, opt_rlimit, "Set a resource limit of COMMAND (as, core, cpu, data, fsize, memlock, nofile, nproc, stack, ...; unlimited)" },
	{ "pids", 1, "N", HUTCH, opt_pids, "At most N processes in the sandbox (RLIMIT_NPROC in its user namespace; pids.max with a cgroup); 0: no limit" },
	{ "memory", 1, "BYTES", HUTCH, opt_memory, "Memory limit (cgroup v2 memory.max; K, M, G suffixes)" },
	{ "memory-swap", 1, "BYTES", HUTCH, opt_memory_swap, "Swap limit (cgroup v2 memory.swap.max)" },
	{ "cpu", 1, "FRACTION", HUTCH, opt_cpu, "CPU limit as a fraction of one CPU (cgroup v2 cpu.max)" },
	{ "pty", 0, NULL, HUTCH, opt_pty, "Run COMMAND on a new pseudo-terminal relayed to hutch's own" },
	{ "no-pty", 0, NULL, HUTCH, opt_no_pty, "Never use a pseudo-terminal" },
	{ "fallback", 1, "MODE", HUTCH, opt_fallback, "Where namespaces are refused: landlock (confine with Landlock and seccomp) or none (fail)" },
	{ "allow-net", 1, "RULE", HUTCH, opt_allow_net, "Let COMMAND reach HOST[:PORT] (a name, *.suffix, an address or CIDR; port 443 unless given, * for any) through hutch's proxy, in a network namespace of its own" },
	{ "protect", 1, "PATH", HUTCH, opt_protect, "Make PATH read-only after every other mount; where it is missing, put an empty read-only file there (PATH/: a directory)" },
	{ "protect-git", 1, "DIR", HUTCH, opt_protect_git, "--protect what git reads configuration or commands from in the git directory DIR (.git): config, config.worktree, commondir, hooks/, worktrees/, modules/" },
};

#define N_SPECS (sizeof(specs) / sizeof(specs[0]))

/* hutch mode's one-letter forms (bwrap knows none). */
static const struct { const char *name; int letter; } short_names[] = {
	{ "help", 'h' }, { "version", 'V' },
};

static int short_name(const struct opt_spec *s)
{
	for (size_t i = 0; i < sizeof(short_names) / sizeof(short_names[0]); i++)
		if (opt_is(s, short_names[i].name))
			return short_names[i].letter;
	return 0;
}

/* argp's key of a row: its index above the one-letter keys. */
#define KEY_BASE 0x100

static const struct opt_spec *spec_by_key(int key)
{
	if (key >= KEY_BASE && key < KEY_BASE + (int)N_SPECS)
		return &specs[key - KEY_BASE];
	for (size_t i = 0; key > 0 && key < KEY_BASE && i < N_SPECS; i++)
		if (short_name(&specs[i]) == key)
			return &specs[i];
	return NULL;
}

const char *cli_option_name(const struct option_record *rec)
{
	return rec->spec->name;
}

static bool spec_in_mode(const struct opt_spec *s, const struct plan *plan)
{
	return (s->flags & BOTH) || plan->mode == MODE_HUTCH;
}

/* The row of option NAME (no "--") in PLAN's mode, or NULL. */
static const struct opt_spec *spec_named(const struct plan *plan, const char *name)
{
	for (size_t i = 0; i < N_SPECS; i++)
		if (strcmp(specs[i].name, name) == 0)
			return spec_in_mode(&specs[i], plan) ? &specs[i] : NULL;
	return NULL;
}

bool cli_option_exists(const struct plan *plan, const char *name)
{
	const struct opt_spec *s = spec_named(plan, name);

	return s && !(s->flags & NOPROF);
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
		o[n].key = KEY_BASE + (int)i;
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

/* Record option S with ARG (its first argument, or NULL) and the rest of
 * its arguments from ARGV[*NEXT...ARGC). */
static error_t record_option(struct record_ctx *ctx, const struct opt_spec *s,
			     char *arg, char **argv, int argc, int *next)
{
	struct option_record rec = { .spec = s };

	if (ctx->in_profile && (s->flags & NOPROF)) {
		snprintf(ctx->err, ctx->errlen, "%s: %s: not allowed in a profile",
			 ctx->origin, s->name);
		ctx->failed = true;
		return EINVAL;
	}
	if (arg)
		rec.args[0] = xstrdup(arg);
	for (int i = 1; i < s->nargs; i++) {
		if (*next >= argc) {
			snprintf(ctx->err, ctx->errlen, "--%s takes %s",
				 s->name, count_word(s->nargs));
			ctx->failed = true;
			for (int j = 0; j < i; j++)
				free(rec.args[j]);
			return EINVAL;
		}
		rec.args[i] = xstrdup(argv[(*next)++]);
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
	/* Read: the fd is not COMMAND's, and no later option's (bwrap
	 * closes it). */
	if (buf) {
		(void)fcntl((int)fd, F_SETFD, FD_CLOEXEC);
		fds_read_by_args(ctx->plan, (int)fd);
	}
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
	s = spec_by_key(key);
	if (!s)
		return ARGP_ERR_UNKNOWN;
	if (opt_is(s, "args"))
		return record_args_fd(ctx, arg, state);
	return record_option(ctx, s, arg, state->argv, state->argc, &state->next);
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
		if (opt_is(s, "level-prefix"))
			opt_take_level_prefix(plan);
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

/* A profile's option line, recorded as "--NAME WORDS..." would be on a
 * command line, but without argp: a profile holds one option a line, and
 * the shipped ones are read at every launch. */
int cli_record_line(struct plan *plan, const char *name, char **words, int n,
		    const char *origin, struct record_list *out, char *err, size_t errlen)
{
	struct record_ctx ctx = { plan, out, origin, true, err, errlen, false };
	const struct opt_spec *s = spec_named(plan, name);
	int next = 0;

	err[0] = '\0';
	if (!s) {
		snprintf(err, errlen, "%s: --%s: invalid option", origin, name);
		return -1;
	}
	/* An optional argument is written --NAME=VALUE, as getopt takes it. */
	if (s->nargs > 0 && !(s->flags & OPTARG) && n == 0) {
		snprintf(err, errlen, "--%s takes %s", s->name, count_word(s->nargs));
		return -1;
	}
	if (record_option(&ctx, s, s->nargs > 0 && !(s->flags & OPTARG) ? words[next++] : NULL,
			  words, n, &next) != 0)
		return -1;
	if (next < n) {
		snprintf(err, errlen, "%s: %s: unexpected word", origin, words[next]);
		return -1;
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

void cli_records_free(struct record_list *list)
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

/* ---- applying a record to the plan ---- */

/* As bwrap: what --perms, --size and --overlay-src set must be taken by
 * the option that follows them. */
static int check_pending(struct apply_ctx *a)
{
	const struct opt_spec *s = a->rec->spec;
	struct parse_ctx *p = a->p;

	if (opt_is(s, "perms") || opt_is(s, "size"))
		return 0;
	if (p->have_next_perms)
		return opt_fail(a, "--perms must be followed by an option that creates a file");
	if (p->next_size)
		return opt_fail(a, "--size must be followed by --tmpfs");
	if (!opt_is(s, "overlay-src") && p->n_overlay_srcs > 0)
		return opt_fail(a, "--overlay-src must be followed by another --overlay-src "
				"or one of --overlay, --tmp-overlay, or --ro-overlay");
	return 0;
}

int cli_apply(struct parse_ctx *p, const struct option_record *rec,
	      char *err, size_t errlen)
{
	struct apply_ctx a = { p, p->plan, rec, err, errlen };

	if (!rec->spec->apply)
		return opt_fail(&a, "internal error: option %s has no meaning", rec->origin);
	return rec->spec->apply(&a) < 0 ? -1 : check_pending(&a);
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
	return opt_is(rec->spec, "profile");
}

bool cli_wants_info(const struct record_list *list)
{
	for (size_t i = 0; i < list->n; i++)
		if (opt_is(list->recs[i].spec, "help") || opt_is(list->recs[i].spec, "version"))
			return true;
	return false;
}

/* The whole table and its one-letter forms, for build-time generators
 * (helpers/hutch-completions.c), so that what they write follows the
 * table. */
const struct opt_spec *cli_option_table(size_t *n)
{
	*n = N_SPECS;
	return specs;
}

int cli_option_letter(const struct opt_spec *s)
{
	return short_name(s);
}
