/* --learn's profile, from what was learned (pure; see learn_text.h).
 *
 * Safe by default, whatever COMMAND asked for:
 *  - a secret (keys, tokens, the host's service sockets: the table
 *    below) is proposed readable only as a comment with the reason, and
 *    never writable;
 *  - what the persistence guard protects (plan/guard.c), a .git
 *    directory, the host's system (/usr, /etc, /var...), / and $HOME (or
 *    a directory holding it) are never proposed writable; / and $HOME
 *    are never proposed whole at all;
 *  - a path the host reaches through a symbolic link is proposed only
 *    as a comment: its target is not what the line names (a checkout
 *    could hold data -> ~/.ssh);
 *  - a secret is matched as path components anywhere (/.ssh/ under any
 *    home); every home (the caller's canonical and as given, /home,
 *    /etc/passwd's) counts as $HOME;
 *  - a directory (a group of files read in it, or one looked up) is
 *    proposed only when it holds no secret and is neither / nor a home
 *    nor above one, and holds no FIFO or socket; one where a file was
 *    only made is never proposed;
 *  - a directory proposed writable that holds .git is followed by a
 *    read-only bind of its .git;
 *  - network rules name the host and port asked for, never a wildcard;
 *  - a call the seccomp policy refused is proposed only commented out:
 *    every rule of a shipped policy has its reason.
 * Every path here passed learn_path_valid: nothing in it can quote,
 * end a word or start a comment in the profile. */
#define _GNU_SOURCE
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "learn_text.h"
#include "lib/lib.h"
#include "plan/plan.h"

#define GROUP_MIN 3		/* files read under a directory that make it one line */

struct secret {
	bool in_home;		/* a home's: matched as components anywhere */
	const char *path;
	const char *why;
	bool whole;		/* only the directory whole, not what is below */
};

/* What a home holds is matched as path components anywhere (/.ssh/,
 * /.config/gh/): under the caller's home, another user's (hutch run as
 * root), a home reached through a link, a checkout's copy. */
static const struct secret secrets[] = {
	{ true, ".ssh", "ssh keys and agent sockets", false },
	{ true, ".gnupg", "gpg keys and the agent's sockets", false },
	{ true, ".aws", "AWS credentials", false },
	{ true, ".azure", "Azure credentials", false },
	{ true, ".config/gcloud", "Google Cloud credentials", false },
	{ true, ".kube", "Kubernetes credentials", false },
	{ true, ".docker", "registry credentials", false },
	{ true, ".config/containers/auth.json", "registry credentials", false },
	{ true, ".netrc", "passwords for hosts", false },
	{ true, ".git-credentials", "git's stored passwords", false },
	{ true, ".config/gh", "GitHub tokens", false },
	{ true, ".npmrc", "npm tokens", false },
	{ true, ".pypirc", "PyPI tokens", false },
	{ true, ".cargo/credentials", "crates.io tokens", false },
	{ true, ".cargo/credentials.toml", "crates.io tokens", false },
	{ true, ".vault-token", "a Vault token", false },
	{ true, ".password-store", "passwords", false },
	{ true, ".pgpass", "PostgreSQL passwords", false },
	{ true, ".my.cnf", "MySQL passwords", false },
	{ true, ".config/rclone", "cloud storage tokens", false },
	{ true, ".local/share/keyrings", "the desktop keyring", false },
	{ true, ".mozilla", "browser cookies and passwords", false },
	{ true, ".thunderbird", "mail and its passwords", false },
	{ true, ".var/app", "flatpak applications' data: browsers' cookies and passwords", false },
	{ true, ".config/google-chrome", "browser cookies and passwords", false },
	{ true, ".config/chromium", "browser cookies and passwords", false },
	{ true, ".config/BraveSoftware", "browser cookies and passwords", false },
	{ true, ".config/microsoft-edge", "browser cookies and passwords", false },
	{ true, ".config/vivaldi", "browser cookies and passwords", false },
	{ true, ".Xauthority", "the X server's key", false },
	{ true, ".bash_history", "commands typed, passwords among them", false },
	{ true, ".zsh_history", "commands typed, passwords among them", false },
	{ true, ".local/share/fish/fish_history", "commands typed, passwords among them", false },
	{ true, ".config/git/credentials", "git's stored passwords", false },
	{ false, "/proc", "the sandbox has its own", false },
	{ false, "/sys", "the sandbox has its own", false },
	{ false, "/dev", "the sandbox has its own", false },
	{ false, "/etc/shadow", "password hashes", false },
	{ false, "/etc/gshadow", "password hashes", false },
	{ false, "/etc/shadow-", "password hashes", false },
	{ false, "/etc/gshadow-", "password hashes", false },
	{ false, "/etc/security/opasswd", "old password hashes", false },
	{ false, "/etc/ssl/private", "the host's TLS keys", false },
	{ false, "/etc/letsencrypt", "the host's TLS keys", false },
	{ false, "/etc/wireguard", "the host's VPN keys", false },
	{ false, "/etc/krb5.keytab", "the host's Kerberos keys", false },
	{ false, "/etc/NetworkManager/system-connections", "Wi-Fi and VPN passwords", false },
	{ false, "/etc/ssh", "the host's ssh keys", false },
	{ false, "/root", "root's home", false },
	{ false, "/var/run/docker.sock", "docker's socket: root on the host", false },
	{ false, "/run", "the sockets of the system's services (D-Bus, docker.sock)", false },
	{ false, "/var/run", "the sockets of the system's services (D-Bus, docker.sock)", false },
	{ false, "/tmp/.X11-unix", "the X servers' sockets", false },
	{ false, "/tmp", "the sockets of programs outside the sandbox (tmux, X11, ssh-agent)", true },
	{ false, "/var/tmp", "the files and sockets of programs outside the sandbox", true },
	{ false, "/dev/shm", "the shared memory of programs outside the sandbox", false },
};

#define N_SECRETS (sizeof(secrets) / sizeof(secrets[0]))

/* Is REL (".config/gh") a run of PATH's components, PATH's own or one
 * of a directory in it? */
bool learn_components_hold(const char *path, const char *rel)
{
	size_t n = strlen(rel);

	for (const char *c = strchr(path, '/'); c; c = strchr(c + 1, '/'))
		if (strncmp(c + 1, rel, n) == 0 && (c[1 + n] == '\0' || c[1 + n] == '/'))
			return true;
	return false;
}

/* Does PATH end with a leading part of REL (".local" or ".local/share"
 * of ".local/share/keyrings"), so that REL would be below it? */
static bool ends_with_start_of(const char *path, const char *rel)
{
	size_t plen = strlen(path);

	for (const char *c = strchr(rel, '/'); c; c = strchr(c + 1, '/')) {
		size_t n = (size_t)(c - rel);

		if (plen > n && path[plen - n - 1] == '/' && strncmp(path + plen - n, rel, n) == 0)
			return true;
	}
	return false;
}

void learn_home_trim(char *home)
{
	size_t n = strlen(home);

	while (n > 1 && home[n - 1] == '/')
		home[--n] = '\0';
}

/* Is the caller root, whose home /root is then its own? */
static bool home_is_root(const char *home)
{
	return home && path_within(home, "/root");
}

const char *learn_secret_reason(const char *path, const char *home)
{
	if (strncmp(path, "/tmp/tmux-", 10) == 0 || strncmp(path, "/tmp/ssh-", 9) == 0)
		return "the sockets of your tmux servers and ssh agents";

	for (size_t i = 0; i < N_SECRETS; i++) {
		const struct secret *s = &secrets[i];

		if (s->in_home && learn_components_hold(path, s->path))
			return s->why;
		if (s->in_home)
			continue;
		/* root's home is the caller's own when the caller is root */
		if (strcmp(s->path, "/root") == 0 && home_is_root(home))
			continue;
		if (s->whole ? strcmp(path, s->path) == 0 : path_within(path, s->path))
			return s->why;
	}
	return NULL;
}

bool learn_holds_secret(const char *dir)
{
	for (size_t i = 0; i < N_SECRETS; i++) {
		const struct secret *s = &secrets[i];

		if (s->in_home ? ends_with_start_of(dir, s->path) :
		    !s->whole && path_within(s->path, dir) && strcmp(s->path, dir) != 0)
			return true;
	}
	return false;
}

const char *learn_home_secret(size_t i)
{
	for (size_t k = 0; k < N_SECRETS; k++)
		if (secrets[k].in_home && i-- == 0)
			return secrets[k].path;
	return NULL;
}

/* Mount points of other disks and of removable media: one lookup there
 * (stat /mnt) never proposes the whole of what is mounted below. */
static bool mount_root(const char *path)
{
	static const char *const roots[] = { "/mnt", "/srv", "/media", "/boot", "/run/media" };

	for (size_t i = 0; i < sizeof(roots) / sizeof(roots[0]); i++)
		if (strcmp(path, roots[i]) == 0)
			return true;
	return false;
}

/* PATH is / or a home, or holds one: every home holds secrets. */
static bool holds_home(const char *path, const struct learn_facts *f)
{
	if (strcmp(path, "/") == 0 || (f->home && path_within(f->home, path)))
		return true;
	for (size_t i = 0; i < f->n_homes; i++)
		if (path_within(f->homes[i], path))
			return true;
	return false;
}

/* Does DIR hold a secret, so that it may not be proposed whole? */
static bool holds_secret(const char *dir, const struct learn_facts *f)
{
	return holds_home(dir, f) || learn_holds_secret(dir);
}

/* / or $HOME, or a directory holding $HOME: never proposed whole. */
static bool too_wide(const char *path, const char *home)
{
	return strcmp(path, "/") == 0 || (home && path_within(home, path));
}

#define WHOLE_HOME "/, a home directory or a directory holding one, whole"

static bool in_git_dir(const char *path)
{
	const char *c = strstr(path, "/.git");

	return c && (c[5] == '\0' || c[5] == '/');
}

/* The host's system: what runs outside the sandbox, its configuration,
 * its services' state.  Never proposed writable, whatever asked. */
static const char *const system_dirs[] = {
	"/usr", "/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32", "/etc", "/boot",
	"/opt", "/srv", "/var", "/snap", "/nix",
};

static bool in_system(const char *path)
{
	for (size_t i = 0; i < sizeof(system_dirs) / sizeof(system_dirs[0]); i++)
		if (path_within(path, system_dirs[i]))
			return true;
	return false;
}

const char *learn_unwritable_reason(const char *path, const char *home)
{
	const char *why;

	if (too_wide(path, home))
		return WHOLE_HOME;
	if ((why = learn_secret_reason(path, home)))
		return why;
	if ((why = guard_path_reason(path, home)))
		return why;
	if (in_git_dir(path))
		return "git runs hooks and configuration from .git";
	if (in_system(path))
		return "the host's system: what it holds runs or configures things outside the sandbox";
	return NULL;
}

/* Does PATH hold FILE or a profile the run used (given by its path)?
 * Writable, the next run could rewrite what the one after it includes
 * and grant itself anything. */
static bool holds_profile(const char *path, const struct learn_facts *f)
{
	if (f->file && path_within(f->file, path))
		return true;
	for (size_t i = 0; i < f->n_includes; i++)
		if (f->includes[i][0] == '/' && path_within(f->includes[i], path))
			return true;
	return false;
}

/* learn_unwritable_reason under every home the facts know. */
static const char *unwritable(const char *path, const struct learn_facts *f)
{
	const char *why;

	if (holds_home(path, f))
		return WHOLE_HOME;
	if (holds_profile(path, f))
		return "it holds this profile or one the run used: a later run could rewrite "
		       "what the next one includes";
	if ((why = learn_unwritable_reason(path, f->home)))
		return why;
	/* only the homes on PATH's way, or below it: a line is judged
	 * against a handful, not every user of a big /etc/passwd */
	for (size_t i = 0; i < f->n_homes; i++)
		if ((path_within(path, f->homes[i]) || path_within(f->homes[i], path)) &&
		    (why = guard_path_reason(path, f->homes[i])))
			return why;
	return NULL;
}

bool learn_host_valid(const char *host)
{
	size_t n = strlen(host);

	if (n == 0 || n > 253 || host[0] == '.' || host[0] == '-' || host[n - 1] == '.')
		return false;
	for (const char *c = host; *c; c++)
		if (!((*c >= 'a' && *c <= 'z') || (*c >= 'A' && *c <= 'Z') ||
		      (*c >= '0' && *c <= '9') || *c == '.' || *c == '-'))
			return false;
	return strcmp(host, "0.0.0.0") != 0;
}

/* ---- the file system's lines ---- */

enum line_kind { LINE_READ, LINE_WRITE };

/* One proposed line: the path, what it is for, and its comment. */
struct line {
	enum line_kind kind;
	const char *path;	/* an entry's, or a group's (GROUP) */
	char *group;		/* owned: a directory made of several entries */
	const struct learn_entry *first;
	size_t files;		/* entries it stands for */
	unsigned long long count;
	bool exec;
};

struct lines {
	struct line *v;
	size_t n;
};

static struct line *add_line(struct lines *ls, enum line_kind kind, const struct learn_entry *e)
{
	struct line *l;

	ls->v = xreallocarray(ls->v, ls->n + 1, sizeof(*ls->v));
	l = &ls->v[ls->n++];
	memset(l, 0, sizeof(*l));
	l->kind = kind;
	l->path = e->path;
	l->first = e;
	l->files = 1;
	l->count = e->count;
	l->exec = e->kind == LEARN_EXEC;
	return l;
}

static bool host_has(enum learn_host h)
{
	return h == LEARN_HOST_DIR || h == LEARN_HOST_FILE || h == LEARN_HOST_LINK ||
	       h == LEARN_HOST_SOCKET;
}

static char *parent_dir(const char *path)
{
	const char *slash = strrchr(path, '/');

	return slash && slash != path ? strndup(path, (size_t)(slash - path)) : xstrdup("/");
}

/* May the reads under DIR become DIR? */
static bool group_ok(const char *dir, enum learn_host dir_host, const struct learn_facts *f)
{
	return dir_host == LEARN_HOST_DIR && !learn_secret_reason(dir, f->home) &&
	       !holds_secret(dir, f);
}

/* A read a group may stand for: a file read, not a directory where a
 * file was made (LEARN_MADE_IN). */
static bool groupable(const struct learn_entry *e)
{
	return (e->kind == LEARN_READ || e->kind == LEARN_EXEC) && host_has(e->host);
}

/* The reads, grouped: a directory stands for its entries where at least
 * GROUP_MIN of them were read and it may (group_ok). */
static void read_lines(const struct learn_facts *f, struct lines *ls)
{
	bool *taken = calloc(f->n_entries ? f->n_entries : 1, sizeof(bool));

	for (size_t i = 0; taken && i < f->n_entries; i++) {
		const struct learn_entry *e = &f->entries[i];
		char *dir;
		size_t same = 0;

		if (taken[i] || e->kind == LEARN_WRITE || !host_has(e->host))
			continue;
		if (!groupable(e)) {
			add_line(ls, LINE_READ, e);
			taken[i] = true;
			continue;
		}
		dir = parent_dir(e->path);
		for (size_t k = i; k < f->n_entries; k++) {
			const struct learn_entry *o = &f->entries[k];
			char *odir;

			if (!groupable(o) || taken[k])
				continue;
			odir = parent_dir(o->path);
			same += strcmp(odir, dir) == 0;
			free(odir);
		}
		if (same < GROUP_MIN || !group_ok(dir, e->parent_host, f)) {
			add_line(ls, LINE_READ, e);
			taken[i] = true;
			free(dir);
			continue;
		}
		struct line *l = add_line(ls, LINE_READ, e);

		l->group = dir;
		l->path = dir;
		l->files = 0;
		l->count = 0;
		for (size_t k = i; k < f->n_entries; k++) {
			const struct learn_entry *o = &f->entries[k];
			char *odir;

			if (!groupable(o) || taken[k])
				continue;
			odir = parent_dir(o->path);
			if (strcmp(odir, dir) == 0) {
				taken[k] = true;
				l->files++;
				l->count += o->count;
				l->exec |= o->kind == LEARN_EXEC;
			}
			free(odir);
		}
	}
	free(taken);
}

static void write_lines(const struct learn_facts *f, struct lines *ls)
{
	for (size_t i = 0; i < f->n_entries; i++) {
		const struct learn_entry *e = &f->entries[i];

		if (e->kind == LEARN_WRITE && host_has(e->host))
			add_line(ls, LINE_WRITE, e);
	}
}

/* Does another line make L's unneeded?  A group covers what is under
 * it, a writable directory what is under it; and a path only looked up
 * on the way to one below it (python3 stats ~/lib, then ~/lib/python)
 * exists once that one is bound, which makes the directories above it. */
static bool covered(const struct lines *ls, size_t i)
{
	const struct line *l = &ls->v[i];

	for (size_t k = 0; k < ls->n; k++) {
		const struct line *o = &ls->v[k];
		bool same = strcmp(l->path, o->path) == 0;

		if (k == i || o->kind != l->kind)
			continue;
		if (same && k < i)
			return true;
		if (same)
			continue;
		if (path_within(l->path, o->path) && (o->group || l->kind == LINE_WRITE))
			return true;
		if (l->kind == LINE_READ && !l->group && path_within(o->path, l->path))
			return true;
	}
	return false;
}

static const char *times(unsigned long long n)
{
	return n == 1 ? "time" : "times";
}

static void why_comment(const struct line *l, FILE *out)
{
	const char *verb = l->kind == LINE_WRITE ? "wrote there" : l->exec ? "ran it" :
			   l->first->kind == LEARN_MADE_IN ? "made or removed a file in it" :
			   "read it";

	if (l->files > 1)
		fprintf(out, "# %s read %zu files under it, %llu %s", l->first->comm, l->files,
			l->count, times(l->count));
	else
		fprintf(out, "# %s %s %llu %s", l->first->comm, verb, l->count, times(l->count));
}

/* What the host has at L's path, and what that directory holds. */
static enum learn_host line_host(const struct line *l)
{
	return l->group ? LEARN_HOST_DIR : l->first->host;
}

static unsigned line_holds(const struct line *l)
{
	return l->group ? l->first->parent_flags : l->first->host_flags;
}

/* Why L may not be proposed, or NULL. */
static const char *refusal(const struct learn_facts *f, const struct line *l)
{
	enum learn_host host = line_host(l);
	unsigned holds = line_holds(l);
	const char *why;

	if (l->kind == LINE_WRITE)
		why = unwritable(l->path, f);
	else if (holds_home(l->path, f))
		why = WHOLE_HOME;
	else
		why = learn_secret_reason(l->path, f->home);
	if (why)
		return why;
	/* a directory is proposed for the files read in it: one lookup or
	 * one file made there never makes it readable whole when it holds
	 * a secret, and a file made never proposes it at all */
	if (host == LEARN_HOST_DIR && (holds_secret(l->path, f) || (holds & LEARN_HOLDS_SECRET)))
		return "a directory holding secrets: bind what COMMAND needs in it";
	if (l->kind == LINE_READ && mount_root(l->path))
		return "where other disks and removable media are mounted: bind the one COMMAND "
		       "needs";
	if (!l->group && l->first->kind == LEARN_MADE_IN)
		return "COMMAND only made or removed something in it: bind the directory "
		       "yourself if COMMAND is to keep what it makes";
	if (host == LEARN_HOST_SOCKET)
		return "a socket, FIFO or device of the host: the sandbox would talk to what is behind it";
	if (host == LEARN_HOST_LINK)
		return "the host reaches it through a symbolic link: bind its target if you mean it";
	if (host == LEARN_HOST_DIR && (holds & LEARN_HOLDS_CHANNEL))
		return "it holds a FIFO, socket or device of the host: the sandbox would talk to "
		       "what is behind it";
	if (l->kind == LINE_WRITE && (holds & LEARN_HOLDS_GIT_ODD))
		return "its .git is a link or a special file: git runs hooks from it";
	if (l->kind == LINE_WRITE && (holds & LEARN_HOLDS_BARE))
		return "a git repository itself (HEAD, objects, refs): git runs hooks from it";
	if (l->kind == LINE_WRITE && (holds & LEARN_HOLDS_GITDIR_IN))
		return "its .git file names a git directory inside it: git runs hooks from it";
	return NULL;
}

/* One line, or its commented form with the reason it is not proposed. */
static size_t print_line(const struct learn_facts *f, const struct line *l, FILE *out)
{
	const char *opt = l->kind == LINE_WRITE ? "bind" : "ro-bind-try";
	const char *why = refusal(f, l);

	if (why) {
		fprintf(out, "# not proposed (%s): %s %s %s\n", why, opt, l->path, l->path);
		fprintf(out, "  ");
		why_comment(l, out);
		fputc('\n', out);
		return 0;
	}
	fprintf(out, "%s %s %s    ", opt, l->path, l->path);
	why_comment(l, out);
	fputc('\n', out);
	/* a checkout proposed writable keeps its .git read-only: git runs
	 * hooks and configuration from it outside the sandbox */
	if (l->kind == LINE_WRITE && (line_holds(l) & LEARN_HOLDS_GIT))
		fprintf(out, "ro-bind-try %s/.git %s/.git    # read-only: git runs hooks and "
			"configuration from .git outside the sandbox\n", l->path, l->path);
	return 1;
}

static int by_kind_then_path(const void *a, const void *b)
{
	const struct line *x = a, *y = b;

	if (x->kind != y->kind)
		return (int)x->kind - (int)y->kind;
	return strcmp(x->path, y->path);
}

/* Is write line I under another write line that is proposed? */
static bool under_proposed_write(const struct learn_facts *f, const struct lines *ls, size_t i)
{
	const struct line *l = &ls->v[i];

	for (size_t k = 0; k < ls->n; k++) {
		const struct line *o = &ls->v[k];

		if (k != i && o->kind == LINE_WRITE && strcmp(o->path, l->path) != 0 &&
		    path_within(l->path, o->path) && !covered(ls, k) && !refusal(f, o))
			return true;
	}
	return false;
}

/* A writable line covered by a wider one keeps what protects its git
 * directory: a checkout's .git, or the whole of a git directory (a bare
 * repository, a .git file's gitdir: inside it, a .git that is a link),
 * read-only, after the wider bind (the later line wins).  Else the wider
 * bind would make its hooks writable. */
static size_t covered_git_line(const struct learn_facts *f, const struct lines *ls, size_t i,
			       FILE *out)
{
	const struct line *l = &ls->v[i];
	unsigned holds = line_holds(l);

	if (l->kind != LINE_WRITE || line_host(l) != LEARN_HOST_DIR ||
	    !(holds & (LEARN_HOLDS_GIT | LEARN_HOLDS_GIT_ODD | LEARN_HOLDS_BARE |
		       LEARN_HOLDS_GITDIR_IN)) ||
	    !under_proposed_write(f, ls, i))
		return 0;
	if (holds & (LEARN_HOLDS_GIT_ODD | LEARN_HOLDS_BARE | LEARN_HOLDS_GITDIR_IN))
		fprintf(out, "ro-bind-try %s %s    # read-only: it holds a git directory, whose "
			"hooks git runs outside the sandbox\n", l->path, l->path);
	else
		fprintf(out, "ro-bind-try %s/.git %s/.git    # read-only: git runs hooks and "
			"configuration from .git outside the sandbox\n", l->path, l->path);
	return 1;
}

static size_t fs_lines(const struct learn_facts *f, FILE *out)
{
	struct lines ls = { 0 };
	size_t proposed = 0;
	enum line_kind last = LINE_READ;

	read_lines(f, &ls);
	write_lines(f, &ls);
	if (ls.n)
		qsort(ls.v, ls.n, sizeof(*ls.v), by_kind_then_path);
	for (size_t i = 0, printed = 0; i < ls.n; i++) {
		if (covered(&ls, i)) {
			proposed += covered_git_line(f, &ls, i, out);
			continue;
		}
		/* a header before the first line printed of each kind (the
		 * line before may have been covered) */
		if (printed++ == 0 || ls.v[i].kind != last)
			fprintf(out, "\n# %s\n", ls.v[i].kind == LINE_WRITE ?
				"written where the sandbox is read-only" :
				"missing in the sandbox, there on the host");
		last = ls.v[i].kind;
		proposed += print_line(f, &ls.v[i], out);
	}
	for (size_t i = 0; i < ls.n; i++)
		free(ls.v[i].group);
	free(ls.v);
	return proposed;
}

#define UNKNOWN_LISTED 20	/* paths not looked up, named one by one */

/* The paths the host lookup gave no answer for (on a FUSE or autofs
 * mount, never walked into, or past the lookup's deadline): said, so
 * that a profile missing them is not taken for complete. */
static void unknown_lines(const struct learn_facts *f, FILE *out)
{
	size_t n = 0;

	for (size_t i = 0; i < f->n_entries; i++)
		n += f->entries[i].host == LEARN_HOST_UNKNOWN;
	if (!n)
		return;
	fprintf(out, "\n# %zu path%s not looked up on the host (on a FUSE or automount file "
		"system, or past the lookup's deadline): this profile may lack %s\n", n,
		n == 1 ? " was" : "s were", n == 1 ? "it" : "them");
	for (size_t i = 0, listed = 0; i < f->n_entries && listed < UNKNOWN_LISTED; i++)
		if (f->entries[i].host == LEARN_HOST_UNKNOWN) {
			fprintf(out, "#   %s\n", f->entries[i].path);
			listed++;
		}
}

/* ---- seccomp, network, limits ---- */

/* Every call a shipped policy refuses is refused for a reason its line
 * gives (kernel attack surface, the host's clock, escapes): proposed only
 * commented out, with the rule to read first. */
static void call_lines(const struct learn_facts *f, FILE *out)
{
	if (f->n_calls)
		fprintf(out, "\n# refused by the seccomp policy: each rule says why; uncomment a line\n"
			"# only if COMMAND needs the call and you trust it with it\n");
	for (size_t i = 0; i < f->n_calls; i++) {
		const struct learn_call *c = &f->calls[i];

		if (c->nested)
			fprintf(out, "# allow-nested    # %s was refused %s %llu %s (%s): a mount "
				"call, a sandbox inside needs allow-nested\n", c->comm, c->name,
				c->count, times(c->count), c->rule ? c->rule : "the policy");
		else
			fprintf(out, "# seccomp-allow %s    # %s was refused it %llu %s (%s)\n",
				c->name, c->comm, c->count, times(c->count),
				c->rule ? c->rule : "the policy");
	}
}

/* Is HOST asked for with a port too (its name-only line is not needed)? */
static bool asked_with_port(const struct learn_facts *f, const char *host)
{
	for (size_t i = 0; i < f->n_nets; i++)
		if (f->nets[i].port > 0 && strcmp(f->nets[i].host, host) == 0)
			return true;
	return false;
}

/* localhost and its kin: the host's loopback, where its own services
 * listen. */
static bool is_loopback_name(const char *host)
{
	size_t n = strlen(host);

	return strcasecmp(host, "localhost") == 0 || strcasecmp(host, "ip6-localhost") == 0 ||
	       strcasecmp(host, "localhost.localdomain") == 0 ||
	       (n > 10 && strcasecmp(host + n - 10, ".localhost") == 0);
}

static size_t net_lines(const struct learn_facts *f, FILE *out)
{
	size_t proposed = 0;

	if (f->n_nets)
		fprintf(out, "\n# refused by the network proxy or the sandbox's resolver\n");
	for (size_t i = 0; i < f->n_nets; i++) {
		const struct learn_net *n = &f->nets[i];

		if (!learn_host_valid(n->host) || n->port < 0 || n->port > 65535)
			continue;
		if (n->port > 0)
			fprintf(out, "allow-net %s:%d    # asked %llu %s\n", n->host, n->port,
				n->count, times(n->count));
		else if (is_loopback_name(n->host) && !asked_with_port(f, n->host)) {
			fprintf(out, "# allow-net %s    # looked up %llu %s: not proposed, the "
				"host's own services listen there; name the port if you mean "
				"one\n", n->host, n->count, times(n->count));
			continue;
		} else if (!asked_with_port(f, n->host))
			fprintf(out, "allow-net %s    # looked up %llu %s (the port is not known: "
				"443, allow-net's default)\n", n->host, n->count, times(n->count));
		else
			continue;
		proposed++;
	}
	return proposed;
}

static size_t limit_lines(const struct learn_facts *f, FILE *out)
{
	if (f->limit_hit && strcmp(f->limit_hit, "pids") == 0 && f->pids) {
		fprintf(out, "\n# limits\npids %llu    # COMMAND hit the limit of %llu\n",
			f->pids * 2, f->pids);
		return 1;
	}
	if (f->limit_hit && strcmp(f->limit_hit, "memory") == 0 && f->memory) {
		fprintf(out, "\n# limits\nmemory %llu    # COMMAND hit the limit of %llu bytes\n",
			f->memory * 2, f->memory);
		return 1;
	}
	if (f->timeout > 0) {
		fprintf(out, "\n# limits\ntimeout %g    # COMMAND was stopped after %gs\n",
			f->timeout * 2, f->timeout);
		return 1;
	}
	return 0;
}

/* A profile's name as include takes it, unquoted. */
static bool include_writable(const char *name)
{
	if (strchr(name, '/'))
		return learn_path_valid(name, strlen(name));
	for (const char *c = name; *c; c++)
		if (!((*c >= 'a' && *c <= 'z') || (*c >= 'A' && *c <= 'Z') ||
		      (*c >= '0' && *c <= '9') || *c == '.' || *c == '_' || *c == '-'))
			return false;
	return *name != '\0';
}

size_t learn_write_profile(const struct learn_facts *f, FILE *out)
{
	size_t proposed = 0;

	fprintf(out, "# Written by hutch --learn%s%s: what it was refused or lacked.\n"
		"# Read every line before you use it: hutch --explain --profile FILE shows\n"
		"# the result.  Options given on the command line are not repeated here.\n",
		f->command ? " for " : "", f->command ? f->command : "");
	for (size_t i = 0; i < f->n_includes; i++)
		if (include_writable(f->includes[i]))
			fprintf(out, "include %s\n", f->includes[i]);
		else
			fprintf(out, "# (a profile whose name holds a space, a quote or a control "
				"character: include it here yourself)\n");
	proposed += fs_lines(f, out);
	unknown_lines(f, out);
	call_lines(f, out);
	proposed += net_lines(f, out);
	proposed += limit_lines(f, out);
	if (f->dropped)
		fprintf(out, "\n# %llu observations were lost (hutch's observer fell behind, or "
			"COMMAND ended it): paths may be missing here\n", f->dropped);
	if (f->slow)
		fprintf(out, "\n# hutch's observer kept calls waiting past the deadline: calls "
			"stopped waiting for it, and paths may be missing here\n");
	if (proposed == 0 && f->n_entries == 0 && f->n_calls == 0 && f->n_nets == 0)
		fprintf(out, "\n# nothing to propose: COMMAND was refused nothing hutch saw\n");
	return proposed;
}
