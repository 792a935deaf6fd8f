/* hutch-seccomp: a hutch seccomp policy compiled to the classic BPF program
 * that bwrap-style callers pass with --seccomp FD, so that any bwrap can
 * run a program under hutch's policies:
 *
 *   hutch-seccomp default > default.bpf
 *   bwrap --ro-bind / / --seccomp 3 COMMAND 3< default.bpf
 *
 * POLICY is a shipped policy's name (default, strict, none) or, with a
 * '/', a policy file; --allow and --deny add rules on top, as hutch's
 * --seccomp-allow and --seccomp-deny do.  The program refuses with the
 * policy's errnos (no user notification: bwrap has no supervisor to
 * answer them) and kills a syscall of another ABI. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <seccomp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "seccomp_policy.h"

#define ERRLEN 512

static const char usage[] =
	"usage: hutch-seccomp [--allow SYSCALL]... [--deny SYSCALL[:ERRNO]]... "
	"POLICY [OUTPUT]\n"
	"Write POLICY (a shipped name or a file path) as the BPF program that "
	"bwrap --seccomp FD takes, to OUTPUT or standard output.\n";

static int fail(const char *object, const char *reason)
{
	fprintf(stderr, "hutch-seccomp: %s: %s\n", object, reason);
	return 1;
}

/* ERR is already "seccomp: WHERE: WORD: reason". */
static int fail_line(const char *err)
{
	fprintf(stderr, "hutch-seccomp: %s\n", err);
	return 1;
}

/* --deny SYSCALL[:ERRNO] or --allow SYSCALL, as a rule on top of POL. */
static int add_rule(struct seccomp_policy *pol, const char *option,
		    const char *arg, char *err, size_t errlen)
{
	struct seccomp_action action = { .allow = strcmp(option, "--allow") == 0,
					 .errnum = EPERM };
	char name[128];
	const char *colon = strchr(arg, ':');

	snprintf(name, sizeof(name), "%.*s",
		 (int)(colon ? (size_t)(colon - arg) : strlen(arg)), arg);
	if (colon && (action.allow ||
		      (action.errnum = seccomp_errno_from_name(colon + 1)) < 0)) {
		snprintf(err, errlen, "%s %s: expected SYSCALL%s", option, arg,
			 action.allow ? "" : " or SYSCALL:ERRNO (an errno name)");
		return -1;
	}
	return seccomp_policy_append(pol, name, action, "command line", err,
				     errlen);
}

/* Options first, then POLICY and OUTPUT; returns the index of POLICY. */
static int parse_rules(int argc, char **argv, struct seccomp_policy *pol,
		       char *err, size_t errlen)
{
	int i = 1;

	for (; i + 1 < argc && (strcmp(argv[i], "--allow") == 0 ||
				strcmp(argv[i], "--deny") == 0); i += 2)
		if (pol && add_rule(pol, argv[i], argv[i + 1], err, errlen) < 0)
			return -1;
	return i;
}

/* Where the program goes: OUTPUT (created 0644), or standard output if it
 * is not a terminal, which a binary program would only garble. */
static int open_output(const char *path)
{
	if (path)
		return open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (isatty(STDOUT_FILENO)) {
		errno = ENOTTY;
		return -1;
	}
	return STDOUT_FILENO;
}

static int write_program(const struct seccomp_policy *pol, const char *path)
{
	char err[ERRLEN] = "";
	scmp_filter_ctx ctx;
	int fd, rc;

	if (seccomp_policy_build(pol, &ctx, err, sizeof(err)) < 0)
		return fail_line(err);
	fd = open_output(path);
	if (fd < 0) {
		seccomp_release(ctx);
		return fail(path ? path : "standard output", errno == ENOTTY ?
			    "a terminal; redirect it or name an OUTPUT file" :
			    strerror(errno));
	}
	rc = seccomp_export_bpf(ctx, fd);
	seccomp_release(ctx);
	if (rc == 0 && fd != STDOUT_FILENO && close(fd) < 0)
		rc = -errno;
	if (rc < 0)
		return fail(path ? path : "standard output", strerror(-rc));
	return 0;
}

int main(int argc, char **argv)
{
	struct seccomp_policy *pol = NULL;
	char err[ERRLEN] = "";
	int first = parse_rules(argc, argv, NULL, err, sizeof(err));
	int status;

	if (first >= argc || argc - first > 2 || argv[first][0] == '-') {
		fputs(usage, first < argc && strcmp(argv[first], "--help") == 0 ?
		      stdout : stderr);
		return first < argc && strcmp(argv[first], "--help") == 0 ? 0 : 2;
	}
	if (seccomp_policy_load(argv[first], &pol, err, sizeof(err)) < 0)
		return fail_line(err);
	if (parse_rules(argc, argv, pol, err, sizeof(err)) < 0) {
		seccomp_policy_free(pol);
		return fail_line(err);
	}
	status = write_program(pol, argc - first == 2 ? argv[first + 1] : NULL);
	seccomp_policy_free(pol);
	return status;
}
