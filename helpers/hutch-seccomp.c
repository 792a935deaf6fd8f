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
 * answer them) and kills a syscall of another ABI.
 *
 * --variant notify or late writes instead one of the two programs that
 * hutch mode loads (see enum seccomp_variant); the build embeds them for
 * the shipped policies.  A late program that is not needed is empty. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <linux/filter.h>
#include <seccomp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "seccomp/seccomp_policy.h"

#define ERRLEN 512

static const char usage[] =
	"usage: hutch-seccomp [--variant plain|notify|late] [--allow SYSCALL]... "
	"[--deny SYSCALL[:ERRNO]]... POLICY [OUTPUT]\n"
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

static int parse_variant(const char *word, enum seccomp_variant *variant,
			 char *err, size_t errlen)
{
	static const char *const names[] = { "plain", "notify", "late" };

	for (int v = SECCOMP_PLAIN; v <= SECCOMP_LATE; v++)
		if (strcmp(word, names[v]) == 0) {
			*variant = (enum seccomp_variant)v;
			return 0;
		}
	snprintf(err, errlen, "--variant %s: expected plain, notify or late", word);
	return -1;
}

/* Options first, then POLICY and OUTPUT; returns the index of POLICY.
 * With POL, the rules are added to it. */
static int parse_options(int argc, char **argv, struct seccomp_policy *pol,
			 enum seccomp_variant *variant, char *err, size_t errlen)
{
	int i = 1;

	for (; i + 1 < argc && (strcmp(argv[i], "--allow") == 0 ||
				strcmp(argv[i], "--deny") == 0 ||
				strcmp(argv[i], "--variant") == 0); i += 2) {
		if (strcmp(argv[i], "--variant") == 0) {
			if (parse_variant(argv[i + 1], variant, err, errlen) < 0)
				return -1;
		} else if (pol && add_rule(pol, argv[i], argv[i + 1], err, errlen) < 0) {
			return -1;
		}
	}
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

static int write_all(int fd, const void *buf, size_t len)
{
	const char *p = buf;

	while (len > 0) {
		ssize_t n = write(fd, p, len);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return -1;
		p += n;
		len -= (size_t)n;
	}
	return 0;
}

static int write_program(const struct seccomp_policy *pol, enum seccomp_variant variant,
			 const char *path)
{
	const char *where = path ? path : "standard output";
	char err[ERRLEN] = "";
	struct sock_filter *prog;
	size_t n;
	int fd, rc;

	if (seccomp_policy_export(pol, variant, &prog, &n, err, sizeof(err)) < 0)
		return fail_line(err);
	fd = open_output(path);
	if (fd < 0) {
		free(prog);
		return fail(where, errno == ENOTTY ?
			    "a terminal; redirect it or name an OUTPUT file" :
			    strerror(errno));
	}
	rc = write_all(fd, prog, n * sizeof(*prog));
	free(prog);
	if (rc == 0 && fd != STDOUT_FILENO && close(fd) < 0)
		rc = -1;
	return rc < 0 ? fail(where, strerror(errno)) : 0;
}

int main(int argc, char **argv)
{
	enum seccomp_variant variant = SECCOMP_PLAIN;
	struct seccomp_policy *pol = NULL;
	char err[ERRLEN] = "";
	int first = parse_options(argc, argv, NULL, &variant, err, sizeof(err));
	int status;

	if (first < 0)
		return fail_line(err);
	if (first >= argc || argc - first > 2 || argv[first][0] == '-') {
		fputs(usage, first < argc && strcmp(argv[first], "--help") == 0 ?
		      stdout : stderr);
		return first < argc && strcmp(argv[first], "--help") == 0 ? 0 : 2;
	}
	if (seccomp_policy_load(argv[first], &pol, err, sizeof(err)) < 0)
		return fail_line(err);
	if (parse_options(argc, argv, pol, &variant, err, sizeof(err)) < 0) {
		seccomp_policy_free(pol);
		return fail_line(err);
	}
	status = write_program(pol, variant, argc - first == 2 ? argv[first + 1] : NULL);
	seccomp_policy_free(pol);
	return status;
}
