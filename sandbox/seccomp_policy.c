/* Text seccomp policies: see seccomp_policy.h for the grammar. */
#define _GNU_SOURCE
#include "seccomp_policy.h"
#include "builtin.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <linux/filter.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/personality.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#define MAX_LINE 1024
#define MAX_WORDS 16
#define MAX_ERRNO 4095
#define MAX_POLICY_FILE (1024 * 1024)
#define MAX_EXCEPTIONS 64	/* conditional rules per syscall (a bit mask) */
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

/* Up to SIZE bytes from FD (fewer if the file shrank); -1 on error. */
static ssize_t read_all(int fd, char *buf, size_t size)
{
	size_t done = 0;

	while (done < size) {
		ssize_t got = read(fd, buf + done, size - done);

		if (got < 0)
			return -1;
		if (got == 0)
			break;
		done += (size_t)got;
	}
	return (ssize_t)done;
}

/* The regular file at PATH, of at most MAX_POLICY_FILE bytes. */
static char *read_policy_file(const char *path, size_t *len, char *err,
			      size_t errlen)
{
	const char *problem = NULL;
	char *text = NULL;
	ssize_t got = 0;
	struct stat st;
	int fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY);

	if (fd < 0 || fstat(fd, &st) < 0)
		problem = strerror(errno);
	else if (!S_ISREG(st.st_mode) || st.st_size > MAX_POLICY_FILE)
		problem = "not a regular file of at most 1 MiB";
	else if (!(text = malloc((size_t)st.st_size + 1)))
		problem = strerror(errno);
	else if ((got = read_all(fd, text, (size_t)st.st_size)) < 0)
		problem = strerror(errno);
	if (fd >= 0)
		close(fd);
	if (!problem) {
		*len = (size_t)got;
		return text;
	}
	snprintf(err, errlen, "seccomp: %s: %s", path, problem);
	free(text);
	return NULL;
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
	if (!action.allow && (action.errnum < 1 || action.errnum > MAX_ERRNO)) {
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

/* ---- what the rules decide for one syscall ---- */

/* For one syscall: the action when no exception matches, and the
 * exceptions (conditional rules after the last unconditional one). */
struct decision {
	struct seccomp_action base;
	const char *base_source;
	const struct seccomp_rule *exceptions[MAX_EXCEPTIONS];
	size_t n_exceptions;
	bool too_many;
};

static bool same_action(struct seccomp_action a, struct seccomp_action b)
{
	return a.allow == b.allow && (a.allow || a.errnum == b.errnum);
}

static void decide(const struct seccomp_policy *pol, const char *syscall,
		   struct decision *d)
{
	d->base = pol->default_action;
	d->base_source = pol->default_source;
	d->n_exceptions = 0;
	d->too_many = false;
	for (size_t i = 0; i < pol->n_rules; i++) {
		const struct seccomp_rule *rule = &pol->rules[i];

		if (strcmp(rule->syscall, syscall) != 0)
			continue;
		if (!rule->cond.present) {
			d->base = rule->action;
			d->base_source = rule->source;
			d->n_exceptions = 0;
		} else if (d->n_exceptions == MAX_EXCEPTIONS) {
			d->too_many = true;
		} else {
			d->exceptions[d->n_exceptions++] = rule;
		}
	}
}

/* Do the exceptions change anything, i.e. is their action not the base's? */
static bool exceptions_matter(const struct decision *d)
{
	return d->n_exceptions > 0 &&
	       !same_action(d->exceptions[0]->action, d->base);
}

bool seccomp_policy_refuses(const struct seccomp_policy *pol,
			    const char *syscall)
{
	struct decision d;

	decide(pol, syscall, &d);
	if (d.base.allow || d.too_many)
		return false;
	for (size_t i = 0; i < d.n_exceptions; i++)
		if (d.exceptions[i]->action.allow)
			return false;
	return true;
}

const char *seccomp_policy_source(const struct seccomp_policy *pol,
				  const char *syscall)
{
	struct decision d;

	decide(pol, syscall, &d);
	return d.base_source;
}

bool seccomp_policy_always_allows(const struct seccomp_policy *pol,
				  const char *syscall)
{
	struct decision d;

	decide(pol, syscall, &d);
	return d.base.allow && !exceptions_matter(&d) && !d.too_many;
}

static bool cond_matches(const struct seccomp_cond *cond,
			 const uint64_t args[SECCOMP_ARGS])
{
	return (args[cond->arg] & cond->mask) == cond->value;
}

/* The name rules use for native syscall NR: its own, @newer or NULL. */
static char *rule_name(int nr)
{
	char *name = seccomp_syscall_resolve_num_arch(SCMP_ARCH_NATIVE, nr);

	if (!name && nr >= seccomp_newer_first() && nr <= SECCOMP_NEWER_LAST)
		name = strdup(SECCOMP_NEWER);
	return name;
}

struct seccomp_action seccomp_policy_decide(const struct seccomp_policy *pol,
					    int nr,
					    const uint64_t args[SECCOMP_ARGS],
					    const char **source)
{
	char *name = rule_name(nr);
	struct decision d;

	if (!name) {
		*source = pol->default_source;
		return pol->default_action;
	}
	decide(pol, name, &d);
	free(name);
	*source = d.base_source;
	if (!exceptions_matter(&d))
		return d.base;
	for (size_t i = 0; i < d.n_exceptions; i++) {
		if (cond_matches(&d.exceptions[i]->cond, args)) {
			*source = d.exceptions[i]->source;
			return d.exceptions[i]->action;
		}
	}
	return d.base;
}

/* Is rule I the first one naming its syscall? */
static bool first_for_syscall(const struct seccomp_policy *pol, size_t i)
{
	for (size_t j = 0; j < i; j++)
		if (strcmp(pol->rules[j].syscall, pol->rules[i].syscall) == 0)
			return false;
	return true;
}

/* Does the decision for SYSCALL add nothing to the default action? */
static bool decides_default(const struct seccomp_policy *pol,
			    const char *syscall)
{
	struct decision d;

	decide(pol, syscall, &d);
	if (exceptions_matter(&d) || d.too_many)
		return false;
	return same_action(d.base, pol->default_action);
}

bool seccomp_policy_is_empty(const struct seccomp_policy *pol)
{
	if (!pol->default_action.allow)
		return false;
	for (size_t i = 0; i < pol->n_rules; i++)
		if (first_for_syscall(pol, i) &&
		    !decides_default(pol, pol->rules[i].syscall))
			return false;
	return true;
}

/* ---- building the libseccomp filter ---- */

/* Rules with ACTION on syscall NR that match every value of argument ARG
 * that none of the CONDS (the exceptions) matches. */
struct cover {
	scmp_filter_ctx ctx;
	int nr;
	uint32_t action;
	unsigned arg;
	const struct seccomp_cond *conds[MAX_EXCEPTIONS];
	size_t n;
};

static uint32_t scmp_action(struct seccomp_action action)
{
	if (action.allow)
		return SCMP_ACT_ALLOW;
	if (action.errnum == SECCOMP_ERRNO_NOTIFY)
		return SCMP_ACT_NOTIFY;
	return SCMP_ACT_ERRNO((uint32_t)action.errnum);
}

static int add_masked(scmp_filter_ctx ctx, uint32_t action, int nr,
		      unsigned arg, uint64_t mask, uint64_t value)
{
	return seccomp_rule_add(ctx, action, nr, 1,
				SCMP_CMP(arg, SCMP_CMP_MASKED_EQ, mask, value));
}

static uint64_t highest_bit(uint64_t bits)
{
	return 1ULL << (63 - __builtin_clzll(bits));
}

/* Of the exceptions in ACTIVE, those that allow BIT to be VALUE_BIT. */
static uint64_t still_matching(const struct cover *c, uint64_t active,
			       uint64_t bit, uint64_t value_bit)
{
	uint64_t next = 0;

	for (size_t i = 0; i < c->n; i++) {
		const struct seccomp_cond *cond = c->conds[i];

		if ((active & (1ULL << i)) &&
		    (!(cond->mask & bit) || (cond->value & bit) == value_bit))
			next |= 1ULL << i;
	}
	return next;
}

/* The values with (arg & MASK) == VALUE, of which the exceptions in ACTIVE
 * may match some: split them on the highest bit an exception still tests
 * until each part lies inside an exception (skip it) or outside all of
 * them (add a rule for it).  Exact, and at most 64 rules per exception. */
static int cover_rest(const struct cover *c, uint64_t active, uint64_t mask,
		      uint64_t value)
{
	uint64_t untested = 0;
	uint64_t bit;
	int rc;

	if (active == 0)
		return add_masked(c->ctx, c->action, c->nr, c->arg, mask, value);
	for (size_t i = 0; i < c->n; i++) {
		uint64_t left = c->conds[i]->mask & ~mask;

		if (!(active & (1ULL << i)))
			continue;
		if (left == 0)
			return 0;	/* exception i matches all of these */
		untested |= left;
	}
	bit = highest_bit(untested);
	rc = cover_rest(c, still_matching(c, active, bit, 0), mask | bit,
			value);
	if (rc == 0)
		rc = cover_rest(c, still_matching(c, active, bit, bit),
				mask | bit, value | bit);
	return rc;
}

static int add_complement(scmp_filter_ctx ctx, int nr,
			  const struct decision *d)
{
	struct cover c = {
		.ctx = ctx,
		.nr = nr,
		.action = scmp_action(d->base),
		.arg = d->exceptions[0]->cond.arg,
		.n = d->n_exceptions,
	};

	for (size_t i = 0; i < d->n_exceptions; i++)
		c.conds[i] = &d->exceptions[i]->cond;
	return cover_rest(&c, UINT64_MAX >> (64 - c.n), 0, 0);
}

static int add_exceptions(scmp_filter_ctx ctx, int nr,
			  const struct decision *d)
{
	uint32_t action = scmp_action(d->exceptions[0]->action);

	for (size_t i = 0; i < d->n_exceptions; i++) {
		const struct seccomp_cond *cond = &d->exceptions[i]->cond;
		int rc = add_masked(ctx, action, nr, cond->arg, cond->mask,
				    cond->value);
		if (rc < 0)
			return rc;
	}
	return 0;
}

/* The rules for syscall NR; libseccomp accepts no rule whose action is the
 * default action, so those are left out (the default covers them). */
static int add_decision(scmp_filter_ctx ctx, int nr, const struct decision *d,
			struct seccomp_action dflt)
{
	int rc = 0;

	if (!exceptions_matter(d))
		return same_action(d->base, dflt) ? 0 :
		       seccomp_rule_add(ctx, scmp_action(d->base), nr, 0);
	if (!same_action(d->exceptions[0]->action, dflt))
		rc = add_exceptions(ctx, nr, d);
	if (rc == 0 && !same_action(d->base, dflt))
		rc = add_complement(ctx, nr, d);
	return rc;
}

/* Can the decision be expressed: one action for all exceptions, and one
 * argument when the rest must be covered? NULL if so, else the reason. */
static const char *inexpressible(const struct decision *d,
				 struct seccomp_action dflt,
				 const char **source)
{
	bool need_complement = exceptions_matter(d) &&
			       !same_action(d->base, dflt);

	*source = d->base_source;
	if (d->too_many)
		return "more than 64 conditional rules";
	for (size_t i = 1; i < d->n_exceptions; i++) {
		*source = d->exceptions[i]->source;
		if (!same_action(d->exceptions[i]->action,
				 d->exceptions[0]->action))
			return "conditional rules with different actions";
		if (need_complement &&
		    d->exceptions[i]->cond.arg != d->exceptions[0]->cond.arg)
			return "conditional exceptions test different arguments";
	}
	return NULL;
}

int seccomp_newer_first(void)
{
	static int first = -1;	/* libseccomp's table never changes */

	if (first >= 0)
		return first;
	first = 0;
	for (int nr = 0; nr <= SECCOMP_NEWER_LAST; nr++) {
		char *name = seccomp_syscall_resolve_num_arch(SCMP_ARCH_NATIVE,
							      nr);
		if (name)
			first = nr + 1;
		free(name);
	}
	return first;
}

/* @newer: the same rules for every number from seccomp_newer_first() on. */
static int add_newer(scmp_filter_ctx ctx, const struct decision *d,
		     struct seccomp_action dflt)
{
	int rc = 0;

	for (int nr = seccomp_newer_first();
	     nr <= SECCOMP_NEWER_LAST && rc == 0; nr++)
		rc = add_decision(ctx, nr, d, dflt);
	return rc;
}

static int add_syscall(scmp_filter_ctx ctx, const struct seccomp_policy *pol,
		       const char *syscall, char *err, size_t errlen)
{
	struct decision d;
	const char *source;
	const char *reason;
	int rc;

	decide(pol, syscall, &d);
	reason = inexpressible(&d, pol->default_action, &source);
	if (reason) {
		snprintf(err, errlen, "seccomp: %s: %s: %s", source, syscall,
			 reason);
		return -1;
	}
	if (strcmp(syscall, SECCOMP_NEWER) == 0)
		rc = add_newer(ctx, &d, pol->default_action);
	else
		rc = add_decision(ctx, seccomp_syscall_resolve_name(syscall),
				  &d, pol->default_action);
	if (rc < 0)
		snprintf(err, errlen, "seccomp: %s: %s: libseccomp: %s",
			 d.base_source, syscall, strerror(-rc));
	return rc < 0 ? -1 : 0;
}

/* Filter-wide settings. */
static int set_filter_attrs(scmp_filter_ctx ctx)
{
	/* Another ABI (i386 int 0x80, x32) would reach syscalls this filter
	 * never looked at: kill the process rather than let it through. */
	int rc = seccomp_attr_set(ctx, SCMP_FLTATR_ACT_BADARCH,
				  SCMP_ACT_KILL_PROCESS);

	/* A binary tree keeps long deny lists cheap; only speed is at stake. */
	if (rc == 0)
		(void)seccomp_attr_set(ctx, SCMP_FLTATR_CTL_OPTIMIZE, 2);
	return rc;
}

int seccomp_policy_build(const struct seccomp_policy *pol,
			 scmp_filter_ctx *out, char *err, size_t errlen)
{
	scmp_filter_ctx ctx = seccomp_init(scmp_action(pol->default_action));
	int rc;

	if (!ctx) {
		snprintf(err, errlen, "seccomp: %s: libseccomp: cannot start "
			 "a filter", pol->default_source);
		return -1;
	}
	rc = set_filter_attrs(ctx);
	if (rc < 0) {
		snprintf(err, errlen, "seccomp: filter: libseccomp: %s",
			 strerror(-rc));
		seccomp_release(ctx);
		return -1;
	}
	for (size_t i = 0; i < pol->n_rules; i++) {
		if (first_for_syscall(pol, i) &&
		    add_syscall(ctx, pol, pol->rules[i].syscall, err,
				errlen) < 0) {
			seccomp_release(ctx);
			return -1;
		}
	}
	*out = ctx;
	return 0;
}

/* ---- the programs, as kernel BPF ---- */

/* CTX's program, generated by libseccomp: *PROG (malloc'd), *N
 * instructions. */
static int export_bpf(scmp_filter_ctx ctx, struct sock_filter **prog, size_t *n,
		      char *err, size_t errlen)
{
	const off_t insn = (off_t)sizeof(**prog);
	const char *problem = NULL;
	int fd = memfd_create("hutch-seccomp", MFD_CLOEXEC);
	off_t size = 0;
	int rc = 0;

	*prog = NULL;
	if (fd < 0)
		problem = strerror(errno);
	else if ((rc = seccomp_export_bpf(ctx, fd)) < 0)
		problem = strerror(-rc);
	else if ((size = lseek(fd, 0, SEEK_END)) <= 0 || size % insn != 0)
		problem = "libseccomp exported no program";
	else if (size > BPF_MAXINSNS * insn)
		problem = "longer than the kernel's 4096 instructions";
	else if (!(*prog = malloc((size_t)size)) ||
		 pread(fd, *prog, (size_t)size, 0) != size)
		problem = "cannot read the program back";
	if (fd >= 0)
		close(fd);
	if (problem) {
		free(*prog);
		*prog = NULL;
		snprintf(err, errlen, "seccomp: filter: %s", problem);
		return -1;
	}
	*n = (size_t)(size / insn);
	return 0;
}

static int export_policy(const struct seccomp_policy *pol, struct sock_filter **prog,
			 size_t *n, char *err, size_t errlen)
{
	scmp_filter_ctx ctx;
	int rc;

	if (seccomp_policy_build(pol, &ctx, err, errlen) < 0)
		return -1;
	rc = export_bpf(ctx, prog, n, err, errlen);
	seccomp_release(ctx);
	return rc;
}

const char *const seccomp_hand_over_calls[SECCOMP_N_HAND_OVER] = { "sendmsg", "seccomp" };

bool seccomp_hand_over_allowed(const struct seccomp_policy *pol)
{
	for (size_t i = 0; i < SECCOMP_N_HAND_OVER; i++)
		if (!seccomp_policy_always_allows(pol, seccomp_hand_over_calls[i]))
			return false;
	return true;
}

/* NOTIFY: every refusal a notification, the hand-over calls allowed. */
static struct seccomp_policy *notify_variant(const struct seccomp_policy *pol,
					     char *err, size_t errlen)
{
	struct seccomp_policy *copy = seccomp_policy_copy(pol, true);
	struct seccomp_action allow = { .allow = true };

	if (!copy) {
		snprintf(err, errlen, "seccomp: filter: out of memory");
		return NULL;
	}
	for (size_t i = 0; i < SECCOMP_N_HAND_OVER; i++)
		if (seccomp_policy_append(copy, seccomp_hand_over_calls[i], allow,
					  "the listener's hand-over", err, errlen) < 0) {
			seccomp_policy_free(copy);
			return NULL;
		}
	return copy;
}

int seccomp_policy_export(const struct seccomp_policy *pol, enum seccomp_variant variant,
			  struct sock_filter **prog, size_t *n, char *err, size_t errlen)
{
	struct seccomp_policy *var = NULL;
	int rc;

	*prog = NULL;
	*n = 0;
	if (variant == SECCOMP_PLAIN)
		return export_policy(pol, prog, n, err, errlen);
	if (variant == SECCOMP_LATE && seccomp_hand_over_allowed(pol))
		return 0;
	if (variant == SECCOMP_NOTIFY)
		var = notify_variant(pol, err, errlen);
	else if (!(var = seccomp_policy_only(pol, seccomp_hand_over_calls, SECCOMP_N_HAND_OVER)))
		snprintf(err, errlen, "seccomp: filter: out of memory");
	if (!var)
		return -1;
	rc = export_policy(var, prog, n, err, errlen);
	seccomp_policy_free(var);
	return rc;
}

/* ---- the policy in words, for --explain ---- */

static void describe_action(struct seccomp_action action, FILE *out)
{
	const char *name;

	if (action.allow) {
		fputs("allowed", out);
		return;
	}
	name = strerrorname_np(action.errnum);
	if (name)
		fprintf(out, "refused with %s (%s)", name,
			strerror(action.errnum));
	else
		fprintf(out, "refused with errno %d", action.errnum);
}

static void describe_cond(const struct seccomp_cond *cond, FILE *out)
{
	if (cond->mask == UINT64_MAX)
		fprintf(out, "arg%u == 0x%" PRIx64, cond->arg, cond->value);
	else
		fprintf(out, "arg%u & 0x%" PRIx64 " == 0x%" PRIx64, cond->arg,
			cond->mask, cond->value);
}

/* What the name stands for, when it is not a syscall of this machine. */
static const char *name_note(const char *syscall, char *buf, size_t len)
{
	if (strcmp(syscall, SECCOMP_NEWER) == 0) {
		snprintf(buf, len, " (syscalls %d to %d, newer than this "
			 "build)", seccomp_newer_first(), SECCOMP_NEWER_LAST);
		return buf;
	}
	if (seccomp_syscall_resolve_name(syscall) < 0)
		return " (not on this architecture: no effect)";
	return "";
}

void seccomp_policy_summarize(const struct seccomp_policy *pol, seccomp_summary_fn fn,
			      void *arg)
{
	struct seccomp_summary sum;
	char note[96];
	struct decision d;

	for (size_t i = 0; i < pol->n_rules; i++) {
		const char *syscall = pol->rules[i].syscall;

		if (!first_for_syscall(pol, i) || decides_default(pol, syscall))
			continue;
		decide(pol, syscall, &d);
		sum = (struct seccomp_summary){
			.syscall = syscall,
			.note = name_note(syscall, note, sizeof note),
			.action = d.base,
			.source = d.base_source,
			.exceptions = exceptions_matter(&d) ? d.exceptions : NULL,
			.n_exceptions = exceptions_matter(&d) ? d.n_exceptions : 0,
		};
		fn(&sum, arg);
	}
}

/* "  NAME: ACTION (SOURCE), but ACTION when COND (SOURCE) or when ..." */
static void describe_syscall(const struct seccomp_summary *sum, void *arg)
{
	FILE *out = arg;

	fprintf(out, "  %s%s: ", sum->syscall, sum->note);
	describe_action(sum->action, out);
	fprintf(out, " (%s)", sum->source);
	for (size_t i = 0; i < sum->n_exceptions; i++) {
		if (i == 0) {
			fputs(", but ", out);
			describe_action(sum->exceptions[0]->action, out);
		}
		fputs(i == 0 ? " when " : " or when ", out);
		describe_cond(&sum->exceptions[i]->cond, out);
		fprintf(out, " (%s)", sum->exceptions[i]->source);
	}
	fputc('\n', out);
}

void seccomp_policy_describe(const struct seccomp_policy *pol, FILE *out)
{
	if (seccomp_policy_is_empty(pol)) {
		fprintf(out, "  every syscall: allowed, no filter is loaded "
			"(%s)\n", pol->default_source);
		return;
	}
	fputs("  any syscall not named below: ", out);
	describe_action(pol->default_action, out);
	fprintf(out, " (%s)\n", pol->default_source);
	seccomp_policy_summarize(pol, describe_syscall, out);
	fputs("  a syscall of another ABI (i386 int 0x80, x32): kills the "
	      "process\n", out);
}
