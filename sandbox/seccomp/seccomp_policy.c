/* Text seccomp policies: see seccomp_policy.h for the grammar. */
#define _GNU_SOURCE
#include "seccomp_policy.h"
#include "lib/lib.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/personality.h>
#include <sys/stat.h>
#include <unistd.h>

#define MAX_LINE 1024
#define MAX_WORDS 16
#define MAX_ERRNO 4095
#define MAX_ARG 5

struct constant {
	const char *name;
	uint64_t value;
};

/* The constants a condition may name. */
static const struct constant constants[] = {
	{ "TIOCSTI", TIOCSTI },
	{ "TIOCLINUX", TIOCLINUX },
	{ "TCGETS", TCGETS },
	{ "CLONE_VM", CLONE_VM },
	{ "CLONE_FS", CLONE_FS },
	{ "CLONE_FILES", CLONE_FILES },
	{ "CLONE_SIGHAND", CLONE_SIGHAND },
	{ "CLONE_PIDFD", CLONE_PIDFD },
	{ "CLONE_PTRACE", CLONE_PTRACE },
	{ "CLONE_VFORK", CLONE_VFORK },
	{ "CLONE_PARENT", CLONE_PARENT },
	{ "CLONE_THREAD", CLONE_THREAD },
	{ "CLONE_NEWNS", CLONE_NEWNS },
	{ "CLONE_SYSVSEM", CLONE_SYSVSEM },
	{ "CLONE_SETTLS", CLONE_SETTLS },
	{ "CLONE_PARENT_SETTID", CLONE_PARENT_SETTID },
	{ "CLONE_CHILD_CLEARTID", CLONE_CHILD_CLEARTID },
	{ "CLONE_CHILD_SETTID", CLONE_CHILD_SETTID },
	{ "CLONE_NEWCGROUP", CLONE_NEWCGROUP },
	{ "CLONE_NEWUTS", CLONE_NEWUTS },
	{ "CLONE_NEWIPC", CLONE_NEWIPC },
	{ "CLONE_NEWUSER", CLONE_NEWUSER },
	{ "CLONE_NEWPID", CLONE_NEWPID },
	{ "CLONE_NEWNET", CLONE_NEWNET },
	{ "CLONE_IO", CLONE_IO },
	{ "PER_LINUX", PER_LINUX },
	{ "PER_LINUX32", PER_LINUX32 },
	{ "ADDR_NO_RANDOMIZE", ADDR_NO_RANDOMIZE },
	{ "O_RDONLY", O_RDONLY },
	{ "O_WRONLY", O_WRONLY },
	{ "O_RDWR", O_RDWR },
	{ "O_ACCMODE", O_ACCMODE },
	{ "O_CREAT", O_CREAT },
	{ "O_TRUNC", O_TRUNC },
};

/* Where a statement stands, for sources and messages. */
struct where {
	const char *file;
	unsigned line;
};

struct parser {
	struct seccomp_policy *pol;
	seccomp_include_fn find;	/* resolves `include` */
	const char *files[SECCOMP_INCLUDE_DEPTH]; /* being read, outermost first */
	size_t depth;
	char *err;
	size_t errlen;
};

static int parse_text(struct parser *p, const char *file, const char *text,
		      size_t len);

static int fail(const struct parser *p, const struct where *w,
		const char *word, const char *reason)
{
	snprintf(p->err, p->errlen, "seccomp: %s:%u: %s: %s", w->file, w->line,
		 word, reason);
	return -1;
}

int seccomp_errno_from_name(const char *name)
{
	for (int e = 1; e <= MAX_ERRNO; e++) {
		const char *known = strerrorname_np(e);
		if (known && strcmp(known, name) == 0)
			return e;
	}
	return -1;
}

bool seccomp_syscall_name_valid(const char *syscall)
{
	return strcmp(syscall, SECCOMP_NEWER) == 0 ||
	       seccomp_syscall_resolve_name(syscall) != __NR_SCMP_ERROR;
}

/* One term of a value: a number or a constant's name. */
static int parse_term(const char *term, uint64_t *out)
{
	char *end;

	if (term[0] >= '0' && term[0] <= '9') {
		errno = 0;
		*out = strtoull(term, &end, 0);
		return (errno || *end) ? -1 : 0;
	}
	for (size_t i = 0; i < sizeof constants / sizeof constants[0]; i++) {
		if (strcmp(constants[i].name, term) == 0) {
			*out = constants[i].value;
			return 0;
		}
	}
	return -1;
}

/* TERM|TERM|...: the terms or'ed together. */
static int parse_value(const struct parser *p, const struct where *w,
		       const char *word, uint64_t *out)
{
	char buf[MAX_LINE];
	char *save = NULL;
	uint64_t term_value;

	if (word[0] == '|' || word[strlen(word) - 1] == '|' ||
	    strstr(word, "||"))
		return fail(p, w, word, "empty term in value");
	snprintf(buf, sizeof buf, "%s", word);
	*out = 0;
	for (char *t = strtok_r(buf, "|", &save); t;
	     t = strtok_r(NULL, "|", &save)) {
		if (parse_term(t, &term_value) < 0)
			return fail(p, w, t, "not a number or a known constant");
		*out |= term_value;
	}
	return 0;
}

static int parse_arg(const struct parser *p, const struct where *w,
		     const char *word, unsigned *arg)
{
	if (strncmp(word, "arg", 3) != 0 || word[3] < '0' ||
	    word[3] > '0' + MAX_ARG || word[4] != '\0')
		return fail(p, w, word, "expected arg0 to arg5");
	*arg = (unsigned)(word[3] - '0');
	return 0;
}

/* "if argN == VALUE" or "if argN & MASK == VALUE" (N words from WORDS). */
static int parse_cond(const struct parser *p, const struct where *w,
		      char **words, int n, struct seccomp_cond *cond)
{
	static const char usage[] =
		"expected 'if argN == VALUE' or 'if argN & MASK == VALUE'";
	bool masked = n == 6 && strcmp(words[2], "&") == 0;

	memset(cond, 0, sizeof *cond);
	if (n == 0)
		return 0;
	if (strcmp(words[0], "if") != 0 || !(n == 4 || masked) ||
	    strcmp(words[n - 2], "==") != 0)
		return fail(p, w, words[0], usage);
	cond->present = true;
	cond->mask = UINT64_MAX;
	if (parse_arg(p, w, words[1], &cond->arg) < 0 ||
	    (masked && parse_value(p, w, words[3], &cond->mask) < 0) ||
	    parse_value(p, w, words[n - 1], &cond->value) < 0)
		return -1;
	if (cond->mask == 0)
		return fail(p, w, words[3], "a mask of 0 matches everything");
	if (cond->value & ~cond->mask)
		return fail(p, w, words[n - 1],
			    "has bits outside the mask, so it never matches");
	return 0;
}

static int parse_errno(const struct parser *p, const struct where *w,
		       const char *word, int *errnum)
{
	*errnum = seccomp_errno_from_name(word);
	return *errnum < 0 ? fail(p, w, word, "unknown errno name") : 0;
}

static int add_rule(struct seccomp_policy *pol, const char *syscall,
		    struct seccomp_action action,
		    const struct seccomp_cond *cond, char *source)
{
	struct seccomp_rule *rules;
	struct seccomp_rule *rule;

	rules = realloc(pol->rules, (pol->n_rules + 1) * sizeof *rules);
	if (!rules)
		return -1;
	pol->rules = rules;
	rule = &rules[pol->n_rules];
	rule->syscall = strdup(syscall);
	if (!rule->syscall)
		return -1;
	rule->action = action;
	rule->cond = *cond;
	rule->source = source;
	pol->n_rules++;
	return 0;
}

static char *source_of(const struct where *w)
{
	char *source;

	return asprintf(&source, "%s:%u", w->file, w->line) < 0 ? NULL : source;
}

/* A rule's syscall, action and condition, in that order from WORDS[1]. */
static int parse_rule(struct parser *p, const struct where *w, char **words,
		      int n, struct seccomp_action action)
{
	int cond_at = action.allow ? 2 : 3;
	struct seccomp_cond cond;
	char *source;

	if (n < cond_at)
		return fail(p, w, words[0], action.allow ?
			    "expected 'allow SYSCALL [if COND]'" :
			    "expected 'deny SYSCALL ERRNO [if COND]'");
	if (!seccomp_syscall_name_valid(words[1]))
		return fail(p, w, words[1], "unknown syscall");
	if (!action.allow && parse_errno(p, w, words[2], &action.errnum) < 0)
		return -1;
	if (parse_cond(p, w, words + cond_at, n - cond_at, &cond) < 0)
		return -1;
	source = source_of(w);
	if (!source || add_rule(p->pol, words[1], action, &cond, source) < 0) {
		free(source);
		return fail(p, w, words[1], "out of memory");
	}
	return 0;
}

static int parse_allow(struct parser *p, const struct where *w, char **words,
		       int n)
{
	struct seccomp_action action = { .allow = true, .errnum = 0 };

	return parse_rule(p, w, words, n, action);
}

static int parse_deny(struct parser *p, const struct where *w, char **words,
		      int n)
{
	struct seccomp_action action = { .allow = false, .errnum = 0 };

	return parse_rule(p, w, words, n, action);
}

static int parse_default(struct parser *p, const struct where *w,
			 char **words, int n)
{
	struct seccomp_action action = { .allow = true, .errnum = 0 };
	char *source;

	if (n == 3 && strcmp(words[1], "deny") == 0) {
		action.allow = false;
		if (parse_errno(p, w, words[2], &action.errnum) < 0)
			return -1;
	} else if (n != 2 || strcmp(words[1], "allow") != 0) {
		return fail(p, w, words[0],
			    "expected 'default allow' or 'default deny ERRNO'");
	}
	source = source_of(w);
	if (!source)
		return fail(p, w, words[0], "out of memory");
	free(p->pol->default_source);
	p->pol->default_source = source;
	p->pol->default_action = action;
	return 0;
}

static bool being_read(const struct parser *p, const char *name)
{
	for (size_t i = 0; i < p->depth; i++)
		if (strcmp(p->files[i], name) == 0)
			return true;
	return false;
}

static int parse_include(struct parser *p, const struct where *w,
			 char **words, int n)
{
	const char *text;
	size_t len;

	if (n != 2)
		return fail(p, w, words[0], "expected 'include NAME'");
	/* A policy that includes itself would never end. */
	if (being_read(p, words[1]))
		return fail(p, w, words[1], "include loop");
	if (p->depth == SECCOMP_INCLUDE_DEPTH)
		return fail(p, w, words[1], "includes nested too deep");
	text = p->find("seccomp", words[1], &len);
	if (!text)
		return fail(p, w, words[1], "no such shipped policy");
	return parse_text(p, words[1], text, len);
}

struct statement {
	const char *word;
	int (*parse)(struct parser *p, const struct where *w, char **words,
		     int n);
};

static const struct statement statements[] = {
	{ "default", parse_default },
	{ "allow", parse_allow },
	{ "deny", parse_deny },
	{ "include", parse_include },
};

static int parse_statement(struct parser *p, const struct where *w,
			   char **words, int n)
{
	for (size_t i = 0; i < sizeof statements / sizeof statements[0]; i++)
		if (strcmp(statements[i].word, words[0]) == 0)
			return statements[i].parse(p, w, words, n);
	return fail(p, w, words[0], "unknown statement");
}

/* Split LINE in place into at most MAX_WORDS words; -1 when there are more. */
static int split_words(char *line, char **words)
{
	static const char blanks[] = " \t\r\v\f";
	char *save = NULL;
	int n = 0;

	for (char *word = strtok_r(line, blanks, &save); word;
	     word = strtok_r(NULL, blanks, &save)) {
		if (n == MAX_WORDS)
			return -1;
		words[n++] = word;
	}
	return n;
}

static int parse_line(struct parser *p, const struct where *w,
		      const char *line, size_t len)
{
	char buf[MAX_LINE];
	char *words[MAX_WORDS];
	char *hash;
	int n;

	if (len >= sizeof buf)
		return fail(p, w, "line", "longer than 1023 bytes");
	if (memchr(line, '\0', len))
		return fail(p, w, "line", "contains a NUL byte");
	memcpy(buf, line, len);
	buf[len] = '\0';
	hash = strchr(buf, '#');
	if (hash)
		*hash = '\0';
	n = split_words(buf, words);
	if (n < 0)
		return fail(p, w, words[0], "too many words");
	return n == 0 ? 0 : parse_statement(p, w, words, n);
}

static int parse_text(struct parser *p, const char *file, const char *text,
		      size_t len)
{
	struct where w = { .file = file, .line = 0 };
	size_t pos = 0;
	int rc = 0;

	p->files[p->depth++] = file;
	while (pos < len && rc == 0) {
		const char *nl = memchr(text + pos, '\n', len - pos);
		size_t end = nl ? (size_t)(nl - text) : len;

		w.line++;
		rc = parse_line(p, &w, text + pos, end - pos);
		pos = end + 1;
	}
	p->depth--;
	return rc;
}

void seccomp_policy_free(struct seccomp_policy *pol)
{
	if (!pol)
		return;
	for (size_t i = 0; i < pol->n_rules; i++) {
		free(pol->rules[i].syscall);
		free(pol->rules[i].source);
	}
	free(pol->rules);
	free(pol->default_source);
	free(pol);
}

struct seccomp_policy *seccomp_policy_parse(const char *name, const char *text,
					    size_t len, char *err,
					    size_t errlen)
{
	return seccomp_policy_parse_with(name, text, len, builtin_file, err,
					 errlen);
}

struct seccomp_policy *seccomp_policy_parse_with(const char *name,
						 const char *text, size_t len,
						 seccomp_include_fn find,
						 char *err, size_t errlen)
{
	struct parser p = { .find = find, .err = err, .errlen = errlen };

	p.pol = calloc(1, sizeof *p.pol);
	if (!p.pol) {
		snprintf(err, errlen, "seccomp: %s: out of memory", name);
		return NULL;
	}
	if (parse_text(&p, name, text, len) < 0)
		goto fail;
	if (!p.pol->default_source) {
		snprintf(err, errlen, "seccomp: %s: default: missing "
			 "('default allow' or 'default deny ERRNO')", name);
		goto fail;
	}
	return p.pol;
fail:
	seccomp_policy_free(p.pol);
	return NULL;
}

/* The regular file at PATH, of at most 1 MiB, opened as hostfile.h
 * opens a file the sandbox may have planted (no FIFO waited on). */
static char *read_policy_file(const char *path, size_t *len, char *err,
			      size_t errlen)
{
	const char *why = NULL;
	struct stat st;
	char *text = hostfile_read_small(path, len, &st, &why);

	if (!text)
		snprintf(err, errlen, "seccomp: %s: %s", path, why);
	return text;
}

int seccomp_policy_load(const char *name_or_path, struct seccomp_policy **out,
			char *err, size_t errlen)
{
	char *file_text;
	const char *text;
	size_t len = 0;

	if (!strchr(name_or_path, '/')) {
		text = builtin_file("seccomp", name_or_path, &len);
		if (!text) {
			snprintf(err, errlen, "seccomp: %s: no such shipped "
				 "policy", name_or_path);
			return -1;
		}
		*out = seccomp_policy_parse(name_or_path, text, len, err,
					    errlen);
		return *out ? 0 : -1;
	}
	file_text = read_policy_file(name_or_path, &len, err, errlen);
	if (!file_text)
		return -1;
	*out = seccomp_policy_parse(name_or_path, file_text, len, err, errlen);
	free(file_text);
	return *out ? 0 : -1;
}

int seccomp_policy_append(struct seccomp_policy *pol, const char *syscall,
			  struct seccomp_action action, const char *source,
			  char *err, size_t errlen)
{
	struct seccomp_cond none = { .present = false };
	char *copy;

	if (!seccomp_syscall_name_valid(syscall)) {
		snprintf(err, errlen, "seccomp: %s: %s: unknown syscall",
			 source, syscall);
		return -1;
	}
	if (!action.allow && action.errnum != SECCOMP_ERRNO_NOTIFY &&
	    (action.errnum < 1 || action.errnum > MAX_ERRNO)) {
		snprintf(err, errlen, "seccomp: %s: %s: errno %d out of range",
			 source, syscall, action.errnum);
		return -1;
	}
	copy = strdup(source);
	if (!copy || add_rule(pol, syscall, action, &none, copy) < 0) {
		free(copy);
		snprintf(err, errlen, "seccomp: %s: %s: out of memory", source,
			 syscall);
		return -1;
	}
	return 0;
}

/* A copy of RULE into POL, with ACTION. */
static int copy_rule(struct seccomp_policy *pol, const struct seccomp_rule *rule,
		     struct seccomp_action action)
{
	char *source = strdup(rule->source);

	if (!source || add_rule(pol, rule->syscall, action, &rule->cond, source) < 0) {
		free(source);
		return -1;
	}
	return 0;
}

static struct seccomp_action notified(struct seccomp_action action, bool notify)
{
	if (notify && !action.allow)
		action.errnum = SECCOMP_ERRNO_NOTIFY;
	return action;
}

static struct seccomp_policy *empty_policy(struct seccomp_action dflt, const char *source)
{
	struct seccomp_policy *pol = calloc(1, sizeof(*pol));

	if (pol) {
		pol->default_action = dflt;
		pol->default_source = strdup(source);
	}
	if (pol && !pol->default_source) {
		free(pol);
		pol = NULL;
	}
	return pol;
}

struct seccomp_policy *seccomp_policy_copy(const struct seccomp_policy *pol, bool notify)
{
	struct seccomp_policy *copy = empty_policy(notified(pol->default_action, notify),
						   pol->default_source);

	for (size_t i = 0; copy && i < pol->n_rules; i++)
		if (copy_rule(copy, &pol->rules[i], notified(pol->rules[i].action, notify)) < 0) {
			seccomp_policy_free(copy);
			copy = NULL;
		}
	return copy;
}

struct seccomp_policy *seccomp_policy_only(const struct seccomp_policy *pol,
					   const char *const *names, size_t n)
{
	struct seccomp_action allow = { .allow = true };
	struct seccomp_policy *only = empty_policy(allow, pol->default_source);
	struct seccomp_cond none = { .present = false };
	int rc = only ? 0 : -1;

	for (size_t k = 0; rc == 0 && k < n; k++) {
		/* What the default says of NAME, overridden by its rules. */
		char *source = strdup(pol->default_source);

		rc = source ? add_rule(only, names[k], pol->default_action, &none, source) : -1;
		if (rc < 0)
			free(source);
		for (size_t i = 0; rc == 0 && i < pol->n_rules; i++)
			if (strcmp(pol->rules[i].syscall, names[k]) == 0)
				rc = copy_rule(only, &pol->rules[i], pol->rules[i].action);
	}
	if (rc < 0) {
		seccomp_policy_free(only);
		return NULL;
	}
	return only;
}
