/* Profiles.  A line is an option as on the command line without its
 * leading dashes ("ro-bind /usr /usr"), with '#' comments, quoting with
 * '...' or "..." and backslash, ${VAR} for a fixed set of variables, and
 * "include NAME".  Errors name FILE:LINE and the word at fault. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pwd.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "lib/lib.h"
#include "profile.h"

#define MAX_WORDS 8
#define MAX_DEPTH 16

/* Where make install puts the shipped profiles; the same texts are also
 * built into the binary, the last place searched. */
#ifndef HUTCH_DATADIR
#define HUTCH_DATADIR "/usr/local/share/hutch"
#endif

struct profile_ctx {
	struct plan *plan;
	char *const *envp;
	struct record_list *out;
	char *err;
	size_t errlen;
	struct profile_seen {
		const char *path;
		dev_t dev;
		ino_t ino;
	} stack[MAX_DEPTH];	/* the files being read, for loops */
	int depth;
};

struct line_ctx {
	struct profile_ctx *p;
	const char *file;
	int lineno;
};

/* The directories where the sandbox has the host's system (the profile
 * system's mirrors) or file systems of its own.  A HOME in one of them
 * is a system user's (sync's /bin, daemon's /usr/sbin) or a mistake: a
 * per-run home there would hide what COMMAND needs to start. */
static const char *const system_dirs[] = {
	"/usr", "/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32", "/etc",
	"/proc", "/dev", "/sys", "/boot",
};

/* A path's "." or ".." component: a tmpfs there would land elsewhere
 * than the text says. */
static bool has_dot_component(const char *path)
{
	for (const char *c = path; c; c = strchr(c, '/')) {
		size_t len;

		c += *c == '/';
		len = strcspn(c, "/");
		if ((len == 1 && c[0] == '.') || (len == 2 && c[0] == '.' && c[1] == '.'))
			return true;
		c += len;
		if (!*c)
			break;
	}
	return false;
}

/* PATH with runs of slashes made one and no slash at the end ("/" stays). */
static char *squeeze_slashes(const char *path)
{
	char *out = xstrdup(path);
	size_t n = 0;

	for (const char *c = path; *c; c++)
		if (*c != '/' || n == 0 || out[n - 1] != '/')
			out[n++] = *c;
	if (n > 1 && out[n - 1] == '/')
		n--;
	out[n] = '\0';
	return out;
}

/* Why HOME is no home for a profile (into WHY), or false when it is one. */
static bool home_unusable(const char *home, char *why, size_t size)
{
	char *norm;

	if (home[0] != '/') {
		snprintf(why, size, "is not an absolute path");
		return true;
	}
	if (has_dot_component(home)) {
		snprintf(why, size, "has a . or .. component");
		return true;
	}
	norm = squeeze_slashes(home);
	if (strcmp(norm, "/") == 0)
		snprintf(why, size, "is /");
	for (size_t i = 0; !*why && i < sizeof(system_dirs) / sizeof(system_dirs[0]); i++)
		if (path_within(norm, system_dirs[i]))
			snprintf(why, size, "is in %s, which the sandbox takes from the host or "
				 "mounts itself", system_dirs[i]);
	free(norm);
	return *why != '\0';
}

/* ${HOME}: the caller's home, unless it is no home (home_unusable): then
 * /nonexistent, as for Debian's users without a home, so that a
 * profile's per-run home (tmpfs ${HOME}) neither covers the whole
 * sandbox, the system's programs or its /proc, nor lands at a path
 * relative to nothing.  --explain and --doctor say so. */
static char *profile_home(struct profile_ctx *p)
{
	char *home = caller_home(p->envp);
	char why[128] = "", note[PATH_MAX + 256];

	if (!home_unusable(home, why, sizeof(why)))
		return home;
	snprintf(note, sizeof(note), "HOME %s %s: profiles see ${HOME} as /nonexistent "
		 "(a per-run home there, and COMMAND's HOME where the profile sets it)", home, why);
	plan_note(p->plan, note);
	free(home);
	return xstrdup("/nonexistent");
}

/* The variables a profile may use; nothing else of the environment. */
static char *variable_value(struct line_ctx *l, const char *name)
{
	char *const *envp = l->p->envp;
	char buf[PATH_MAX];

	if (strcmp(name, "HOME") == 0)
		return profile_home(l->p);
	if (strcmp(name, "PWD") == 0)
		return xstrdup(getcwd(buf, sizeof(buf)) ? buf : "/");
	if (strcmp(name, "UID") == 0)
		return xasprintf("%u", (unsigned)getuid());
	if (strcmp(name, "GID") == 0)
		return xasprintf("%u", (unsigned)getgid());
	if (strcmp(name, "USER") == 0) {
		const char *u = env_value(envp, "USER");
		struct passwd *pw;

		if (u)
			return xstrdup(u);
		pw = caller_passwd();
		return xstrdup(pw ? pw->pw_name : "user");
	}
	if (strcmp(name, "XDG_RUNTIME_DIR") == 0) {
		const char *x = env_value(envp, "XDG_RUNTIME_DIR");

		return x ? xstrdup(x) : xasprintf("/run/user/%u", (unsigned)getuid());
	}
	return NULL;
}

static int line_error(struct line_ctx *l, const char *word, const char *why)
{
	snprintf(l->p->err, l->p->errlen, "parse: %s:%d: %s: %s", l->file,
		 l->lineno, word, why);
	return -1;
}

struct word_buf {
	char *s;
	size_t len, cap;
};

static void word_put(struct word_buf *w, const char *s, size_t n)
{
	if (w->len + n + 1 > w->cap) {
		w->cap = (w->len + n + 1) * 2;
		w->s = xreallocarray(w->s, w->cap, 1);
	}
	memcpy(w->s + w->len, s, n);
	w->len += n;
	w->s[w->len] = '\0';
}

/* Expand ${NAME} at *P (pointing at '$'). */
static int expand_variable(struct line_ctx *l, const char **p, struct word_buf *w)
{
	const char *end = strchr(*p, '}');
	char name[64];
	char *value;

	if ((*p)[1] != '{' || !end || (size_t)(end - *p - 2) >= sizeof(name))
		return line_error(l, *p, "variables are written ${NAME}");
	memcpy(name, *p + 2, (size_t)(end - *p - 2));
	name[end - *p - 2] = '\0';
	value = variable_value(l, name);
	if (!value)
		return line_error(l, name, "unknown variable (HOME PWD USER UID GID XDG_RUNTIME_DIR)");
	word_put(w, value, strlen(value));
	free(value);
	*p = end + 1;
	return 0;
}

/* Read one word starting at *P; quotes group, backslash escapes,
 * variables expand except inside single quotes. */
static int read_word(struct line_ctx *l, const char **p, char **word)
{
	struct word_buf w = { 0 };
	char quote = 0;

	word_put(&w, "", 0);
	while (**p && (quote || (**p != ' ' && **p != '\t'))) {
		char c = **p;

		if (quote && c == quote) {
			quote = 0;
			(*p)++;
		} else if (!quote && (c == '\'' || c == '"')) {
			quote = c;
			(*p)++;
		} else if (c == '\\' && quote != '\'' && !(*p)[1]) {
			/* Lines do not continue: a lone backslash is a mistake. */
			line_error(l, w.s, "a backslash ends the line");
			goto fail;
		} else if (c == '\\' && quote != '\'') {
			word_put(&w, *p + 1, 1);
			*p += 2;
		} else if (c == '$' && quote != '\'') {
			if (expand_variable(l, p, &w) < 0)
				goto fail;
		} else {
			word_put(&w, *p, 1);
			(*p)++;
		}
	}
	if (quote) {
		line_error(l, w.s, "unterminated quote");
		goto fail;
	}
	*word = w.s;
	return 0;
fail:
	free(w.s);
	return -1;
}

static int split_line(struct line_ctx *l, const char *line, char **words, int *n)
{
	const char *p = line;

	*n = 0;
	for (;;) {
		while (*p == ' ' || *p == '\t')
			p++;
		if (!*p || *p == '#')
			return 0;
		if (*n == MAX_WORDS)
			return line_error(l, p, "too many words");
		if (read_word(l, &p, &words[*n]) < 0)
			return -1;
		(*n)++;
	}
}

static int record_profile(struct profile_ctx *p, const char *name, const char *from);

static int record_words(struct line_ctx *l, char **words, int n)
{
	struct profile_ctx *p = l->p;
	char *origin;
	int r;

	if (strcmp(words[0], "include") == 0) {
		if (n != 2)
			return line_error(l, words[0], "takes one profile name");
		return record_profile(p, words[1], l->file);
	}
	if (!cli_option_exists(p->plan, words[0]))
		return line_error(l, words[0], "unknown option or not allowed in a profile");
	origin = xasprintf("%s:%d", l->file, l->lineno);
	r = cli_record_line(p->plan, words[0], words + 1, n - 1, origin, p->out, p->err,
			    p->errlen);
	if (r < 0 && strncmp(p->err, origin, strlen(origin)) != 0) {
		char why[256];

		snprintf(why, sizeof(why), "%s", p->err);
		line_error(l, words[0], why);
	} else if (r < 0) {
		char why[512];

		snprintf(why, sizeof(why), "parse: %s", p->err);
		snprintf(p->err, p->errlen, "%s", why);
	}
	free(origin);
	return r;
}

static int record_text(struct profile_ctx *p, const char *file, char *text)
{
	struct line_ctx l = { p, file, 0 };
	char *save = NULL;
	int r = 0;

	for (char *line = text; line && r == 0; line = save) {
		char *words[MAX_WORDS];
		int n = 0;

		save = strchr(line, '\n');
		if (save)
			*save++ = '\0';
		l.lineno++;
		r = split_line(&l, line, words, &n);
		if (r == 0 && n > 0)
			r = record_words(&l, words, n);
		for (int i = 0; i < n; i++)
			free(words[i]);
	}
	return r;
}

/* The user's profile directory: $XDG_CONFIG_HOME/hutch/profiles, or
 * ~/.config/hutch/profiles when that is unset or not absolute (the XDG
 * Base Directory rule); none (NULL) when HOME is not absolute either,
 * which would name a directory relative to wherever hutch starts. */
static char *user_profile_dir(struct profile_ctx *p)
{
	const char *xdg = env_value(p->envp, "XDG_CONFIG_HOME");
	char *home, *dir = NULL;

	if (xdg && xdg[0] == '/')
		return xasprintf("%s/hutch/profiles", xdg);
	home = caller_home(p->envp);
	if (home[0] == '/') {
		dir = xasprintf("%s/.config/hutch/profiles", home);
	} else {
		char note[PATH_MAX + 128];

		snprintf(note, sizeof(note), "HOME %s is not an absolute path: no user profiles "
			 "are looked for", home);
		plan_note(p->plan, note);
	}
	free(home);
	return dir;
}

/* HOME and XDG_CONFIG_HOME are the caller's environment's word, and may
 * name another uid's directory (su -m, sudo -E, a CI step that keeps
 * root's HOME).  An override there that the caller cannot open, or that
 * another user owns (hostfile.h would refuse it), is none of its own:
 * the search goes on past it, and --explain and --doctor say so.
 * Returns the errno to go on with (ENOENT: look further). */
static int skip_unusable_user_profile(struct profile_ctx *p, const char *dir,
				      const char *path, int errnum)
{
	char note[PATH_MAX + 256];
	const char *why = strerror(errnum);
	bool whole_dir = false;

	if (errnum == EOWNERDEAD) {
		why = "owned by another user (neither you nor root)";
	} else if (errnum == EACCES || errnum == EPERM || errnum == ENOTDIR) {
		/* The directory itself, or only this file? */
		whole_dir = access(dir, X_OK) < 0;
		if (whole_dir)
			why = strerror(errno);
	} else {
		return errnum;
	}
	snprintf(note, sizeof(note), "user profile%s %s: %s: skipped, the search went on "
		 "(/etc/hutch/profiles, " HUTCH_DATADIR "/profiles, the shipped profiles)",
		 whole_dir ? "s" : "", whole_dir ? dir : path, why);
	plan_note(p->plan, note);
	return ENOENT;
}

static char *shipped_profile(const char *name, char **path)
{
	size_t len;
	const char *t = builtin_file("profiles", name, &len);
	char *text;

	if (!t)
		return NULL;
	text = xreallocarray(NULL, len + 1, 1);
	memcpy(text, t, len);
	text[len] = '\0';
	*path = xasprintf("(shipped)/%s", name);
	return text;
}

/* 0 when there is something at PATH, even a dangling link or a FIFO,
 * else why not (ENOENT: nothing).  In the user's directory (USER), also
 * EACCES for a file the caller cannot read and EOWNERDEAD for another
 * user's, both of which the caller may skip. */
static int presence(const char *path, bool user)
{
	struct stat st;

	if (fstatat(AT_FDCWD, path, &st, AT_SYMLINK_NOFOLLOW) < 0)
		return errno;
	if (!user)
		return 0;
	if (access(path, R_OK) < 0 && (errno == EACCES || errno == EPERM))
		return errno;
	if (stat(path, &st) == 0 && st.st_uid != geteuid() && st.st_uid != 0)
		return EOWNERDEAD;
	return 0;
}

/* The profile file PATH (NAME in messages), read as hostfile.h reads a
 * file the sandbox may have planted: a FIFO never blocks, a directory,
 * a socket or another user's file is refused. */
static char *read_profile_file(struct profile_ctx *p, const char *name, const char *path,
			       struct stat *st)
{
	const char *why = NULL;
	size_t len;
	char *text = hostfile_read_small(path, &len, st, &why);

	if (!text && strcmp(name, path) == 0)
		snprintf(p->err, p->errlen, "parse: profile %s: %s", name, why);
	else if (!text)
		snprintf(p->err, p->errlen, "parse: profile %s: %s: %s", name, path, why);
	return text;
}

/* A name without a slash: the user's, the system's, then the shipped;
 * never the current directory.  A file that is there but cannot be read
 * (a directory, a FIFO, too large) is an error, not a reason to look
 * further. */
static char *find_profile(struct profile_ctx *p, const char *name, char **path,
			  struct stat *st)
{
	char *dirs[3] = { user_profile_dir(p), xstrdup("/etc/hutch/profiles"),
			  xstrdup(HUTCH_DATADIR "/profiles") };
	char *text = NULL;
	bool found = false;
	int errnum;

	for (int i = 0; i < 3 && !found; i++) {
		if (!dirs[i])
			continue;
		*path = xasprintf("%s/%s", dirs[i], name);
		errnum = presence(*path, i == 0);
		if (i == 0)
			errnum = skip_unusable_user_profile(p, dirs[0], *path, errnum);
		found = errnum != ENOENT;
		if (found && errnum == 0)
			text = read_profile_file(p, name, *path, st);
		else if (found)
			snprintf(p->err, p->errlen, "parse: profile %s: %s: %s", name, *path,
				 strerror(errnum));
		if (!text) {
			free(*path);
			*path = NULL;
		}
	}
	if (!found) {
		memset(st, 0, sizeof(*st));
		text = shipped_profile(name, path);
		if (!text)
			snprintf(p->err, p->errlen, "parse: profile %s: not found in %s, %s or %s, "
				 "nor among the shipped profiles", name,
				 dirs[0] ? dirs[0] : "(no user directory)", dirs[1], dirs[2]);
	}
	for (int i = 0; i < 3; i++)
		free(dirs[i]);
	return text;
}

/* The file an include of NAME (with a slash) in the profile FROM names:
 * relative to FROM's own directory, never to the current one, which may
 * be the untrusted project; NAME itself at the top (FROM NULL: --profile,
 * which the caller typed).  NULL for a relative include in a shipped
 * profile, which has no directory. */
static char *include_path(const char *name, const char *from)
{
	const char *slash = from ? strrchr(from, '/') : NULL;

	if (name[0] == '/' || !from)
		return xstrdup(name);
	if (strncmp(from, "(shipped)/", 10) == 0 || !slash)
		return NULL;
	while (strncmp(name, "./", 2) == 0)
		name += 2;
	return xasprintf("%.*s/%s", (int)(slash - from), from, name);
}

static char *load_profile(struct profile_ctx *p, const char *name, const char *from,
			  char **path, struct stat *st)
{
	if (!strchr(name, '/'))
		return find_profile(p, name, path, st);
	*path = include_path(name, from);
	if (!*path) {
		snprintf(p->err, p->errlen, "parse: profile %s: a relative include in %s, "
			 "which has no directory", name, from);
		return NULL;
	}
	return read_profile_file(p, name, *path, st);
}

/* Is the profile at PATH (of stat ST) one being read already? */
static bool includes_itself(const struct profile_ctx *p, const char *path,
			    const struct stat *st)
{
	for (int i = 0; i < p->depth; i++)
		if (strcmp(p->stack[i].path, path) == 0 ||
		    (st->st_ino && p->stack[i].dev == st->st_dev && p->stack[i].ino == st->st_ino))
			return true;
	return false;
}

/* NAME, included from the profile file FROM (NULL: from the command line). */
static int record_profile(struct profile_ctx *p, const char *name, const char *from)
{
	struct stat st;
	char *path = NULL;
	char *text;
	int r = -1;

	if (p->depth == MAX_DEPTH) {
		snprintf(p->err, p->errlen, "parse: profile %s: includes nested too deep", name);
		return -1;
	}
	text = load_profile(p, name, from, &path, &st);
	if (text && includes_itself(p, path, &st)) {
		snprintf(p->err, p->errlen, "parse: profile %s: includes itself", name);
	} else if (text) {
		p->stack[p->depth++] = (struct profile_seen){ path, st.st_dev, st.st_ino };
		r = record_text(p, path, text);
		p->depth--;
	}
	free(text);
	free(path);
	return r;
}

int profile_record(struct plan *plan, const char *name, char *const *envp,
		   struct record_list *out, char *err, size_t errlen)
{
	struct profile_ctx p = { .plan = plan, .envp = envp, .out = out,
				 .err = err, .errlen = errlen };

	return record_profile(&p, name, NULL);
}
