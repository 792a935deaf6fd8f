/* The stand-in's loader (TEST-ONLY): loads standin.bpf.c, attaches it,
 * and holds it for as long as it lives.  Nothing is pinned: the links
 * die with this process, which dies with its parent (PR_SET_PDEATHSIG)
 * or when its standard input ends.
 *
 * Commands, one a line on standard input, each answered by one line on
 * standard output ("ok ..." or "error: ..."):
 *   restrict UID      namespaces owned by UID, and below, are restricted
 *   attach PATTERN    a file executed from a path matching PATTERN (a path,
 *                     or one * matching within a component) keeps its
 *                     capabilities there (the stand-in for an AppArmor
 *                     profile with `userns,` attached to PATTERN)
 *   detach PATTERN    no longer, for the files executed through it too
 *   allow, disallow   the same as attach and detach
 *   counters          "ok denied N allowed N": capability checks so far
 * "ready" is printed once the program is attached. */
#define _GNU_SOURCE
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <unistd.h>

#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "standin.skel.h"

/* standin.bpf.c's struct pattern. */
#define HEAD_MAX 128
#define TAIL_MAX 64
#define PATTERNS 8
struct pattern {
	char head[HEAD_MAX];
	char tail[TAIL_MAX];
	__u32 star;
	__u32 pad;
};
struct program_id {
	__u64 dev;
	__u64 ino;
	__u32 gen;
	__u32 pad;
};

/* TEXT as a pattern: a path, or HEAD*TAIL (one star). */
static int parse_pattern(const char *text, struct pattern *p)
{
	const char *star = strchr(text, '*');
	size_t head = star ? (size_t)(star - text) : strlen(text);

	memset(p, 0, sizeof(*p));
	if (text[0] != '/' || head >= HEAD_MAX || (star && strchr(star + 1, '*')) ||
	    (star && strlen(star + 1) >= TAIL_MAX))
		return -EINVAL;
	memcpy(p->head, text, head);
	if (star) {
		p->star = 1;
		strcpy(p->tail, star + 1);
	}
	return 0;
}

/* The slot holding WANT (or, WANT NULL, the first free one), or -1. */
static int find_slot(struct standin_bpf *skel, const struct pattern *want)
{
	struct pattern p;

	for (__u32 k = 0; k < PATTERNS; k++) {
		if (bpf_map__lookup_elem(skel->maps.patterns, &k, sizeof(k), &p, sizeof(p), 0) < 0)
			return -1;
		if (want ? memcmp(&p, want, sizeof(p)) == 0 : p.head[0] == '\0')
			return (int)k;
	}
	return -1;
}

/* Forget the files executed through slot K's pattern. */
static void forget_programs(struct standin_bpf *skel, __u32 k)
{
	struct program_id key, next;
	__u32 slot;
	void *prev = NULL;

	while (bpf_map__get_next_key(skel->maps.allowed_programs, prev, &next, sizeof(next)) == 0) {
		key = next;
		prev = &key;
		if (bpf_map__lookup_elem(skel->maps.allowed_programs, &key, sizeof(key),
					 &slot, sizeof(slot), 0) == 0 && slot == k + 1) {
			bpf_map__delete_elem(skel->maps.allowed_programs, &key, sizeof(key), 0);
			prev = NULL;	/* the walk starts again without it */
		}
	}
}

static int cmd_attach(struct standin_bpf *skel, const char *text, bool attach)
{
	struct pattern p, empty;
	int k;

	if (parse_pattern(text, &p) < 0)
		return -EINVAL;
	k = find_slot(skel, &p);
	if (attach) {
		if (k >= 0)
			return 0;
		k = find_slot(skel, NULL);
		if (k < 0)
			return -ENOSPC;
		return bpf_map__update_elem(skel->maps.patterns, &k, sizeof(k), &p, sizeof(p), BPF_ANY);
	}
	if (k < 0)
		return -ENOENT;
	memset(&empty, 0, sizeof(empty));
	if (bpf_map__update_elem(skel->maps.patterns, &k, sizeof(k), &empty, sizeof(empty), BPF_ANY) < 0)
		return -errno;
	forget_programs(skel, (__u32)k);
	return 0;
}

static int cmd_restrict(struct standin_bpf *skel, const char *arg)
{
	__u32 uid = (__u32)strtoul(arg, NULL, 10);
	__u8 one = 1;

	return bpf_map__update_elem(skel->maps.restricted_uids, &uid, sizeof(uid),
				    &one, sizeof(one), BPF_ANY);
}

static int cmd_counters(struct standin_bpf *skel)
{
	__u64 n[2] = { 0, 0 };

	for (__u32 i = 0; i < 2; i++)
		if (bpf_map__lookup_elem(skel->maps.counters, &i, sizeof(i),
					 &n[i], sizeof(n[i]), 0) < 0)
			return -errno;
	printf("ok denied %llu allowed %llu\n", (unsigned long long)n[0],
	       (unsigned long long)n[1]);
	return 1;	/* answered */
}

static int command(struct standin_bpf *skel, char *line)
{
	char *arg = strchr(line, ' ');

	line[strcspn(line, "\n")] = '\0';
	if (arg)
		*arg++ = '\0';
	if (strcmp(line, "counters") == 0)
		return cmd_counters(skel);
	if (!arg)
		return -EINVAL;
	if (strcmp(line, "restrict") == 0)
		return cmd_restrict(skel, arg);
	if (strcmp(line, "attach") == 0 || strcmp(line, "allow") == 0)
		return cmd_attach(skel, arg, true);
	if (strcmp(line, "detach") == 0 || strcmp(line, "disallow") == 0)
		return cmd_attach(skel, arg, false);
	return -EINVAL;
}

int main(void)
{
	struct standin_bpf *skel;
	char line[4096];
	int r;

	if (prctl(PR_SET_PDEATHSIG, SIGKILL) < 0 || getppid() == 1)
		return 1;	/* the parent is already gone */
	setvbuf(stdout, NULL, _IOLBF, 0);
	skel = standin_bpf__open_and_load();
	if (!skel) {
		fprintf(stderr, "standin: load: %s\n", strerror(errno));
		return 1;
	}
	r = standin_bpf__attach(skel);
	if (r < 0) {
		fprintf(stderr, "standin: attach: %s\n", strerror(-r));
		standin_bpf__destroy(skel);
		return 1;
	}
	printf("ready\n");
	while (fgets(line, sizeof(line), stdin)) {
		r = command(skel, line);
		if (r < 0)
			printf("error: %s\n", strerror(-r));
		else if (r == 0)
			printf("ok\n");
	}
	standin_bpf__destroy(skel);
	return 0;
}
