/* --learn's profile: what was learned, judged safe or not, reduced and
 * written as a profile in hutch's grammar (learn_text.c; pure, every
 * input already checked: unit-tested). */
#ifndef HUTCH_LEARN_TEXT_H
#define HUTCH_LEARN_TEXT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "learn_record.h"

/* How the host has a path (the lookup child's answer). */
enum learn_host {
	LEARN_HOST_UNKNOWN = '?',	/* not looked up, or the lookup timed out */
	LEARN_HOST_MISSING = 'm',
	LEARN_HOST_DIR = 'd',		/* a directory, its path canonical */
	LEARN_HOST_FILE = 'f',		/* anything else, its path canonical */
	LEARN_HOST_LINK = 'l',		/* there, but through a symbolic link */
	LEARN_HOST_SOCKET = 's',	/* a socket, FIFO or device: a channel to the host */
};

/* What a directory on the host holds, as the lookup child says it (one
 * byte, LEARN_FLAGS_BASE plus these bits). */
#define LEARN_FLAGS_BASE '0'
#define LEARN_HOLDS_GIT 1	/* DIR/.git, a directory or a file */
#define LEARN_HOLDS_GIT_ODD 2	/* DIR/.git, a link or something else */
#define LEARN_HOLDS_CHANNEL 4	/* a FIFO, socket or device right in it */
#define LEARN_HOLDS_BARE 8	/* it is a git directory itself (HEAD, and
				   objects/ or refs/): a bare repository */
#define LEARN_HOLDS_GITDIR_IN 16	/* DIR/.git is a file whose gitdir: lies
					   in DIR, or cannot be read */
#define LEARN_HOLDS_SECRET 32	/* a home's secret below an entry right in
				   it (.ssh, .aws, .config/gh) */
#define LEARN_HOLDS_ALL 63

/* One path learned: what happened there how often, first by whom. */
struct learn_entry {
	enum learn_kind kind;
	char *path;
	char comm[LEARN_COMM_MAX + 1];
	unsigned long long count;
	enum learn_host host;		/* the path on the host */
	enum learn_host parent_host;	/* its directory on the host */
	unsigned host_flags;		/* LEARN_HOLDS_*, when a directory */
	unsigned parent_flags;		/* its directory's */
};

/* A call the seccomp policy refused. */
struct learn_call {
	char *name;
	char *rule;		/* the deciding line, or NULL */
	char comm[LEARN_COMM_MAX + 1];
	unsigned long long count;
	bool nested;		/* a mount call: --allow-nested's */
};

/* A network request the proxy refused. */
struct learn_net {
	char *host;
	int port;
	unsigned long long count;
};

struct learn_facts {
	const char *home;		/* the caller's, canonical, or NULL */
	const char *const *homes;	/* every home else: $HOME as given,
					   /home, every user's (passwd) */
	size_t n_homes;
	char *const *includes;		/* the profiles the run used */
	size_t n_includes;
	const char *file;		/* FILE, canonical, or NULL */
	const char *command;		/* COMMAND's argv[0], for the header */
	const struct learn_entry *entries;
	size_t n_entries;
	const struct learn_call *calls;
	size_t n_calls;
	const struct learn_net *nets;
	size_t n_nets;
	const char *limit_hit;		/* "pids", "memory", ... or NULL */
	unsigned long long pids;	/* the run's --pids (0: none) */
	unsigned long long memory;	/* its --memory in bytes (0: none) */
	double timeout;			/* its --timeout when it ended it, else 0 */
	unsigned long long dropped;	/* records lost (the observer fell behind) */
	bool slow;			/* calls stopped waiting for the observer */
};

/* Why PATH must never be readable in a sandbox unless the user says so
 * (keys, tokens, the sockets of the host's services), or NULL. */
const char *learn_secret_reason(const char *path, const char *home);

/* HOME without its trailing slashes ("/" stays). */
void learn_home_trim(char *home);

/* Is REL (".config/gh") a run of PATH's components? */
bool learn_components_hold(const char *path, const char *rel);

/* Does DIR hold a secret of the table (a .config holds .config/gh)? */
bool learn_holds_secret(const char *dir);

/* The I-th secret of a home's table (".ssh", ".config/gh"), or NULL
 * past the last. */
const char *learn_home_secret(size_t i);

/* Why PATH must never be proposed writable, or NULL. */
const char *learn_unwritable_reason(const char *path, const char *home);

/* The profile, to OUT; the number of lines it proposes (comments not
 * counted). */
size_t learn_write_profile(const struct learn_facts *f, FILE *out);

/* Is HOST a name or an address allow-net may take as it is (no
 * wildcard, no network)? */
bool learn_host_valid(const char *host);

#endif
