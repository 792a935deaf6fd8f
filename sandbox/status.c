/* --info-fd and --json-status-fd.  bwrap's objects exactly (child-pid and
 * the ids of the namespaces created, then exit-code); in hutch mode also
 * COMMAND's own pid (bwrap#553), a separate event once set-up is over
 * and COMMAND executed (bwrap#634), and a richer final object. */
#define _GNU_SOURCE
#include <fcntl.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "fds.h"
#include "landlock_approx.h"
#include "process.h"
#include "resource_limits.h"
#include "sandbox.h"
#include "status.h"

static const struct { int flag; const char *name; } status_namespaces[] = {
	{ CLONE_NEWCGROUP, "cgroup" }, { CLONE_NEWIPC, "ipc" }, { CLONE_NEWNS, "mnt" },
	{ CLONE_NEWNET, "net" }, { CLONE_NEWPID, "pid" }, { CLONE_NEWUTS, "uts" },
};

static void write_text(int fd, const char *text)
{
	size_t len = strlen(text);

	while (len > 0) {
		ssize_t n = write(fd, text, len);

		if (n <= 0)
			return;
		text += n;
		len -= (size_t)n;
	}
}

int status_prepare(struct sandbox *sb)
{
	/* The fds were found open while parsing (fds.c). */
	sb->started_at = monotonic_now();
	return 0;
}

/* The info and status fds are the supervisor's alone.  Closed in the
 * sandbox right after clone, as bwrap's child does, so that a caller
 * reading the info fd to its end gets EOF as soon as the supervisor has
 * written it, before it releases --userns-block-fd or --block-fd. */
void status_leave(struct sandbox *sb)
{
	struct plan *plan = sb->plan;

	fds_retire(plan->info_fd);
	fds_retire(plan->json_status_fd);
	plan->info_fd = plan->json_status_fd = -1;
}

/* "child-pid": N, "cgroup-namespace": N, ... with SEP between items. */
static void format_ids(struct sandbox *sb, char *buf, size_t len, const char *sep)
{
	size_t off = (size_t)snprintf(buf, len, "%s\"child-pid\": %d", sep + 1, sb->pid1);

	for (size_t i = 0; i < sizeof(status_namespaces) / sizeof(status_namespaces[0]); i++) {
		char path[64];
		struct stat st;

		/* Under the Landlock fallback no namespace was made. */
		if (!(sb->plan->clone_flags & status_namespaces[i].flag) || sb->fallback)
			continue;
		snprintf(path, sizeof(path), "/proc/%d/ns/%s", sb->pid1, status_namespaces[i].name);
		if (stat(path, &st) == 0 && off < len)
			off += (size_t)snprintf(buf + off, len - off, ",%s\"%s-namespace\": %lu", sep,
						status_namespaces[i].name, (unsigned long)st.st_ino);
	}
}

/* hutch mode: ", "mode": "namespaces"", or under the Landlock fallback
 * "landlock" and the list of its approximations (plain constant texts). */
static void status_mode(struct sandbox *sb, char *buf, size_t len)
{
	const char *text;
	size_t off;

	buf[0] = '\0';
	if (sb->plan->mode != MODE_HUTCH)
		return;
	if (!sb->fallback) {
		snprintf(buf, len, ", \"mode\": \"namespaces\"");
		return;
	}
	off = (size_t)snprintf(buf, len, ", \"mode\": \"landlock\", \"approximations\": [");
	for (int i = 0; (text = landlock_approximation(&sb->found, i)) && off < len; i++)
		off += (size_t)snprintf(buf + off, len - off, "%s\"%s\"", i ? ", " : "", text);
	if (off < len)
		snprintf(buf + off, len - off, "]");
}

void status_started(struct sandbox *sb)
{
	struct plan *plan = sb->plan;
	char ids[1024], mode[1024], line[2100];

	if (plan->info_fd >= 0) {
		format_ids(sb, ids, sizeof(ids), "\n    ");
		snprintf(line, sizeof(line), "{\n%s\n}\n", ids);
		write_text(plan->info_fd, line);
		fds_retire(plan->info_fd);
		plan->info_fd = -1;
	}
	if (plan->json_status_fd >= 0) {
		format_ids(sb, ids, sizeof(ids), " ");
		status_mode(sb, mode, sizeof(mode));
		snprintf(line, sizeof(line), "{ %s%s }\n", ids, mode);
		write_text(plan->json_status_fd, line);
	}
}

void status_executed(struct sandbox *sb)
{
	char line[256];

	if (sb->plan->json_status_fd < 0 || sb->plan->mode != MODE_HUTCH)
		return;
	snprintf(line, sizeof(line),
		 "{ \"setup-finished\": true, \"command-pid\": %d, \"setup-time\": %.6f }\n",
		 sb->run.command_host_pid, monotonic_now() - sb->started_at);
	write_text(sb->plan->json_status_fd, line);
}

void status_exited(struct sandbox *sb, int status)
{
	struct run_state *rs = &sb->run;
	struct rusage ru;
	char mode[1024], line[1600], limit[32];
	const char *ended_by = limits_ended_by(sb);

	if (sb->plan->json_status_fd < 0)
		return;
	if (sb->plan->mode == MODE_BWRAP) {
		/* bwrap reports an exit code only once COMMAND was started:
		 * a message after the exec marker is execvp's failure. */
		if (!rs->exec_seen || rs->log_len > 0)
			return;
		snprintf(line, sizeof(line), "{ \"exit-code\": %d }\n", status);
	} else {
		getrusage(RUSAGE_CHILDREN, &ru);
		status_mode(sb, mode, sizeof(mode));
		snprintf(limit, sizeof(limit), ended_by ? "\"%s\"" : "null", ended_by);
		snprintf(line, sizeof(line),
			 "{ \"exit-code\": %d, \"signal\": %d, \"timed-out\": %s, \"stuck\": %s, "
			 "\"run-time\": %.6f, \"user-time\": %.6f, \"system-time\": %.6f, "
			 "\"max-rss-kib\": %ld, \"limit\": %s%s }\n",
			 status, rs->command_signal ? rs->command_signal :
			 rs->reaped && rs->code != CLD_EXITED ? rs->status : 0,
			 rs->timed_out ? "true" : "false", rs->stuck ? "true" : "false",
			 monotonic_now() - sb->started_at,
			 (double)ru.ru_utime.tv_sec + (double)ru.ru_utime.tv_usec / 1e6,
			 (double)ru.ru_stime.tv_sec + (double)ru.ru_stime.tv_usec / 1e6,
			 ru.ru_maxrss, limit, mode);
	}
	write_text(sb->plan->json_status_fd, line);
}
