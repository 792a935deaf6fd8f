/* The stand-in's loader (TEST-ONLY): loads standin.bpf.c, attaches it,
 * and holds it for as long as it lives.  Nothing is pinned: the links
 * die with this process, which dies with its parent (PR_SET_PDEATHSIG)
 * or when its standard input ends.
 *
 * Commands, one a line on standard input, each answered by one line on
 * standard output ("ok ..." or "error: ..."):
 *   restrict UID      namespaces owned by UID, and below, are restricted
 *   allow PATH        PATH's program keeps its capabilities there
 *                     (the stand-in for an AppArmor profile with `userns,`)
 *   disallow PATH     no longer
 *   counters          "ok denied N allowed N": capability checks so far
 * "ready" is printed once the program is attached. */
#define _GNU_SOURCE
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "standin.skel.h"

struct program_id {
	__u64 dev;
	__u64 ino;
};

/* PATH's program as the kernel names it: its dev_t is major << 20 | minor. */
static int program_id(const char *path, struct program_id *id)
{
	struct stat st;

	if (stat(path, &st) < 0)
		return -1;
	id->dev = ((__u64)major(st.st_dev) << 20) | minor(st.st_dev);
	id->ino = st.st_ino;
	return 0;
}

static int cmd_restrict(struct standin_bpf *skel, const char *arg)
{
	__u32 uid = (__u32)strtoul(arg, NULL, 10);
	__u8 one = 1;

	return bpf_map__update_elem(skel->maps.restricted_uids, &uid, sizeof(uid),
				    &one, sizeof(one), BPF_ANY);
}

static int cmd_allow(struct standin_bpf *skel, const char *path, bool allow)
{
	struct program_id id;
	__u8 one = 1;

	if (program_id(path, &id) < 0)
		return -errno;
	if (!allow)
		return bpf_map__delete_elem(skel->maps.allowed_programs, &id, sizeof(id), 0);
	return bpf_map__update_elem(skel->maps.allowed_programs, &id, sizeof(id),
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
	if (strcmp(line, "allow") == 0 || strcmp(line, "disallow") == 0)
		return cmd_allow(skel, arg, line[0] == 'a');
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
