/* The limits' pure part, unit-tested (tests/unit/test_limits.c): the
 * names and units of rlimits, amounts in words, and what cgroup v2's
 * files say (/proc/self/cgroup, mountinfo, cgroup.controllers, *.events,
 * uid_map).  Nothing here touches the system. */
#define _GNU_SOURCE
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/types.h>

#include "limits_text.h"

#define CPU_PERIOD_US 100000LL
#define CPU_MIN_QUOTA_US 1000LL

const struct limits_controller limits_controllers[N_LIMITS_CONTROLLERS] = {
	{ CTL_MEMORY, "memory" }, { CTL_CPU, "cpu" }, { CTL_PIDS, "pids" },
};

enum unit { UNIT_COUNT, UNIT_BYTES, UNIT_SECONDS, UNIT_MICROSECONDS };

static const struct rlimit_info {
	int resource;
	enum unit unit;
	const char *name;
} rlimit_info[] = {
	{ RLIMIT_AS, UNIT_BYTES, "as" }, { RLIMIT_CORE, UNIT_BYTES, "core" },
	{ RLIMIT_CPU, UNIT_SECONDS, "cpu" }, { RLIMIT_DATA, UNIT_BYTES, "data" },
	{ RLIMIT_FSIZE, UNIT_BYTES, "fsize" }, { RLIMIT_LOCKS, UNIT_COUNT, "locks" },
	{ RLIMIT_MEMLOCK, UNIT_BYTES, "memlock" }, { RLIMIT_MSGQUEUE, UNIT_BYTES, "msgqueue" },
	{ RLIMIT_NICE, UNIT_COUNT, "nice" }, { RLIMIT_NOFILE, UNIT_COUNT, "nofile" },
	{ RLIMIT_NPROC, UNIT_COUNT, "nproc" }, { RLIMIT_RSS, UNIT_BYTES, "rss" },
	{ RLIMIT_RTPRIO, UNIT_COUNT, "rtprio" }, { RLIMIT_RTTIME, UNIT_MICROSECONDS, "rttime" },
	{ RLIMIT_SIGPENDING, UNIT_COUNT, "sigpending" }, { RLIMIT_STACK, UNIT_BYTES, "stack" },
};

static const struct rlimit_info *rlimit_by_resource(int resource)
{
	for (size_t i = 0; i < sizeof(rlimit_info) / sizeof(rlimit_info[0]); i++)
		if (rlimit_info[i].resource == resource)
			return &rlimit_info[i];
	return NULL;
}

const char *limits_rlimit_name(int resource)
{
	const struct rlimit_info *info = rlimit_by_resource(resource);

	return info ? info->name : "?";
}

/* 536870912 -> "512M"; RLIM_INFINITY -> "unlimited". */
void limits_format_bytes(unsigned long long v, char *buf, size_t len)
{
	static const char suffix[] = "KMGT";
	int i = -1;

	if (v == RLIM_INFINITY) {
		snprintf(buf, len, "unlimited");
		return;
	}
	while (v != 0 && i < 3 && v % 1024 == 0) {
		v /= 1024;
		i++;
	}
	if (i < 0)
		snprintf(buf, len, "%llu", v);
	else
		snprintf(buf, len, "%llu%c", v, suffix[i]);
}

/* A value of RESOURCE in its unit: "512M", "10s", "1024", "unlimited". */
void limits_format_rlimit(int resource, unsigned long long v, char *buf, size_t len)
{
	const struct rlimit_info *info = rlimit_by_resource(resource);
	enum unit unit = info ? info->unit : UNIT_COUNT;

	if (v == RLIM_INFINITY || unit == UNIT_BYTES)
		limits_format_bytes(v, buf, len);
	else
		snprintf(buf, len, "%llu%s", v, unit == UNIT_SECONDS ? "s" :
			 unit == UNIT_MICROSECONDS ? "us" : "");
}

static const char *next_line(const char *s)
{
	const char *nl = strchr(s, '\n');

	return nl ? nl + 1 : NULL;
}

static size_t line_len(const char *s)
{
	return strcspn(s, "\n");
}

/* The cgroup v2 path ("0::/PATH") in /proc/self/cgroup TEXT. */
int limits_cgroup2_path(const char *text, char *path, size_t len)
{
	for (const char *line = text; line && *line; line = next_line(line)) {
		size_t n = line_len(line);

		if (n < 4 || strncmp(line, "0::/", 4) != 0 || n - 3 >= len)
			continue;
		memcpy(path, line + 3, n - 3);
		path[n - 3] = '\0';
		return 0;
	}
	return -1;
}

/* Undo mountinfo's octal escapes ("\040" for a space) in place. */
static void unescape_octal(char *s)
{
	char *out = s;

	for (; *s; s++) {
		if (s[0] == '\\' && s[1] >= '0' && s[1] <= '3' && s[2] >= '0' && s[2] <= '7' &&
		    s[3] >= '0' && s[3] <= '7') {
			*out++ = (char)(((s[1] - '0') << 6) | ((s[2] - '0') << 3) | (s[3] - '0'));
			s += 3;
		} else {
			*out++ = *s;
		}
	}
	*out = '\0';
}

/* PATH relative to a mount's ROOT, or NULL if the mount does not show it. */
static const char *below_root(const char *root, const char *path)
{
	size_t n = strlen(root);

	if (strcmp(root, "/") == 0)
		return strcmp(path, "/") == 0 ? "" : path;
	if (strncmp(path, root, n) != 0 || (path[n] != '\0' && path[n] != '/'))
		return NULL;
	return path + n;
}

/* One mountinfo LINE: root and mount point, when it is a cgroup2 mount. */
static bool cgroup2_line(const char *line, char *root, char *mnt)
{
	char *copy = strndup(line, line_len(line));
	char *sep = copy ? strstr(copy, " - ") : NULL;
	char fstype[32];
	bool ok;

	ok = sep && sscanf(sep, " - %31s", fstype) == 1 && strcmp(fstype, "cgroup2") == 0 &&
	     sscanf(copy, "%*s %*s %*s %4095s %4095s", root, mnt) == 2;
	free(copy);
	if (ok) {
		unescape_octal(root);
		unescape_octal(mnt);
	}
	return ok;
}

/* The directory of cgroup PATH under the first cgroup2 mount in
 * MOUNTINFO that shows it, and that mount point.  Returns 0, -1 when
 * no cgroup2 is mounted, -2 when no cgroup2 mount shows PATH. */
int limits_cgroup_dir(const char *mountinfo, const char *path, char *dir, size_t dirlen,
		      char *mnt, size_t mntlen)
{
	int found = -1;

	for (const char *line = mountinfo; line && *line; line = next_line(line)) {
		char root[PATH_MAX], point[PATH_MAX];
		const char *rel;

		if (!cgroup2_line(line, root, point))
			continue;
		found = -2;
		rel = below_root(root, path);
		if (!rel || (size_t)snprintf(dir, dirlen, "%s%s", point, rel) >= dirlen ||
		    (size_t)snprintf(mnt, mntlen, "%s", point) >= mntlen)
			continue;
		return 0;
	}
	return found;
}

/* Bits of the controllers named in LIST ("cpu memory pids"). */
unsigned limits_controller_bits(const char *list)
{
	unsigned bits = 0;

	while (list && *list) {
		size_t n;

		list += strspn(list, " \n");
		n = strcspn(list, " \n");
		for (size_t i = 0; i < N_LIMITS_CONTROLLERS; i++)
			if (n == strlen(limits_controllers[i].name) &&
			    strncmp(list, limits_controllers[i].name, n) == 0)
				bits |= limits_controllers[i].bit;
		list += n;
	}
	return bits;
}

/* The count after KEY in a memory.events or pids.events TEXT, or -1. */
long long limits_event_count(const char *text, const char *key)
{
	size_t n = strlen(key);

	for (const char *line = text; line && *line; line = next_line(line))
		if (strncmp(line, key, n) == 0 && line[n] == ' ')
			return strtoll(line + n + 1, NULL, 10);
	return -1;
}

/* The supervisor's pid in a name hutch gives its cgroups
 * ("hutch-PID-XXXX", or "hutch-PID-self" for the supervisor's own
 * leaf), or 0 when NAME is not one. */
pid_t limits_cgroup_owner(const char *name)
{
	char *end;
	long pid;

	if (strncmp(name, "hutch-", 6) != 0 || name[6] < '1' || name[6] > '9')
		return 0;
	pid = strtol(name + 6, &end, 10);
	if (pid <= 0 || pid > INT_MAX || *end != '-' || strlen(end + 1) != 4)
		return 0;
	if (strcmp(end + 1, "self") != 0 && strspn(end + 1, "0123456789abcdef") != 4)
		return 0;
	return (pid_t)pid;
}

/* cpu.max for FRACTION of one CPU: "50000 100000" for 0.5. */
void limits_cpu_max(double fraction, char *buf, size_t len)
{
	long long quota = (long long)(fraction * (double)CPU_PERIOD_US + 0.5);

	if (quota < CPU_MIN_QUOTA_US)
		quota = CPU_MIN_QUOTA_US;
	snprintf(buf, len, "%lld %lld", quota, CPU_PERIOD_US);
}

/* UID in the parent user namespace, through a uid_map TEXT; -1 if unmapped. */
long long limits_map_uid(const char *text, unsigned long long uid)
{
	for (const char *line = text; line && *line; line = next_line(line)) {
		unsigned long long inside, outside, count;

		if (sscanf(line, "%llu %llu %llu", &inside, &outside, &count) == 3 &&
		    uid >= inside && uid - inside < count)
			return (long long)(outside + (uid - inside));
	}
	return -1;
}
