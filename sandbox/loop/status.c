/* --info-fd and --json-status-fd.  bwrap's objects exactly (child-pid and
 * the ids of the namespaces created, then exit-code); in hutch mode also
 * COMMAND's own pid (bwrap#553), a separate event once set-up is over
 * and COMMAND executed (bwrap#634), and a richer final object. */
#define _GNU_SOURCE
#include <fcntl.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "plan/plan.h"
#include "lib/lib.h"
#include "landlock/landlock.h"
#include "limits/limits.h"
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
	fds_retire(sb->info_fd);
	fds_retire(sb->json_status_fd);
	sb->info_fd = sb->json_status_fd = -1;
}

/* One JSON object being written in memory, then written to an fd in one
 * go. */
struct status_line {
	char *text;
	size_t len;
	FILE *mem;
	struct json_writer w;
};

/* An object laid out as LAYOUT (INDENT for one item a line); false when
 * there is no memory for it. */
static bool line_begin(struct status_line *l, enum json_layout layout, int indent)
{
	l->text = NULL;
	l->len = 0;
	l->mem = open_memstream(&l->text, &l->len);
	if (!l->mem)
		return false;
	json_init(&l->w, l->mem, indent);
	json_begin_object(&l->w, layout);
	return true;
}

/* The object closed, a newline, all of it written to FD. */
static void line_end(struct status_line *l, int fd)
{
	json_end_object(&l->w);
	fputc('\n', l->mem);
	if (fclose(l->mem) == 0)
		write_text(fd, l->text);
	free(l->text);
}

/* "child-pid": N, "cgroup-namespace": N, ... */
static void status_ids(struct sandbox *sb, struct json_writer *w)
{
	json_key(w, "child-pid");
	json_int(w, sb->pid1);
	for (size_t i = 0; i < sizeof(status_namespaces) / sizeof(status_namespaces[0]); i++) {
		char path[64], key[32];
		struct stat st;

		/* Under the Landlock fallback no namespace was made. */
		if (!(sb->clone_flags & status_namespaces[i].flag) || sb->fallback)
			continue;
		snprintf(path, sizeof(path), "/proc/%d/ns/%s", sb->pid1, status_namespaces[i].name);
		if (stat(path, &st) == 0) {
			snprintf(key, sizeof(key), "%s-namespace", status_namespaces[i].name);
			json_key(w, key);
			json_uint(w, (unsigned long)st.st_ino);
		}
	}
}

/* hutch mode: "mode": "namespaces", or under the Landlock fallback
 * "landlock" and the list of its approximations. */
static void status_mode(struct sandbox *sb, struct json_writer *w)
{
	const char *text;

	if (sb->plan->mode != MODE_HUTCH)
		return;
	json_key(w, "mode");
	json_string(w, sb->fallback ? "landlock" : "namespaces");
	if (!sb->fallback)
		return;
	json_key(w, "approximations");
	json_begin_array(w, JSON_SPACED);
	for (int i = 0; (text = landlock_approximation(&sb->found, i)); i++)
		json_string(w, text);
	json_end_array(w);
}

void status_started(struct sandbox *sb)
{
	struct status_line l;

	if (sb->info_fd >= 0) {
		if (line_begin(&l, JSON_LINES, 4)) {
			status_ids(sb, &l.w);
			line_end(&l, sb->info_fd);
		}
		fds_retire(sb->info_fd);
		sb->info_fd = -1;
	}
	if (sb->json_status_fd >= 0 && line_begin(&l, JSON_PADDED, 0)) {
		status_ids(sb, &l.w);
		status_mode(sb, &l.w);
		line_end(&l, sb->json_status_fd);
	}
}

void status_executed(struct sandbox *sb)
{
	struct status_line l;

	if (sb->json_status_fd < 0 || sb->plan->mode != MODE_HUTCH ||
	    !line_begin(&l, JSON_PADDED, 0))
		return;
	json_key(&l.w, "setup-finished");
	json_bool(&l.w, true);
	json_key(&l.w, "command-pid");
	json_int(&l.w, sb->run.command_host_pid);
	json_key(&l.w, "setup-time");
	json_number(&l.w, "%.6f", monotonic_now() - sb->started_at);
	line_end(&l, sb->json_status_fd);
}

static double seconds_of(struct timeval tv)
{
	return (double)tv.tv_sec + (double)tv.tv_usec / 1e6;
}

/* hutch mode's final object: how COMMAND ended, its times, and why. */
static void status_final(struct sandbox *sb, int status, struct json_writer *w)
{
	struct run_state *rs = &sb->run;
	struct rusage ru;

	getrusage(RUSAGE_CHILDREN, &ru);
	json_key(w, "exit-code");
	json_int(w, status);
	json_key(w, "signal");
	json_int(w, rs->command_signal ? rs->command_signal :
		 rs->reaped && rs->code != CLD_EXITED ? rs->status : 0);
	json_key(w, "timed-out");
	json_bool(w, rs->timed_out);
	json_key(w, "stuck");
	json_bool(w, rs->stuck);
	json_key(w, "run-time");
	json_number(w, "%.6f", monotonic_now() - sb->started_at);
	json_key(w, "user-time");
	json_number(w, "%.6f", seconds_of(ru.ru_utime));
	json_key(w, "system-time");
	json_number(w, "%.6f", seconds_of(ru.ru_stime));
	json_key(w, "max-rss-kib");
	json_int(w, ru.ru_maxrss);
	json_key(w, "limit");
	json_string(w, limits_ended_by(sb));
	status_mode(sb, w);
}

void status_exited(struct sandbox *sb, int status)
{
	struct run_state *rs = &sb->run;
	struct status_line l;

	if (sb->json_status_fd < 0)
		return;
	/* bwrap reports an exit code only once COMMAND was started: a
	 * message after the exec marker is execvp's failure. */
	if (sb->plan->mode == MODE_BWRAP && (!rs->exec_seen || rs->log_len > 0))
		return;
	if (!line_begin(&l, JSON_PADDED, 0))
		return;
	if (sb->plan->mode == MODE_BWRAP) {
		json_key(&l.w, "exit-code");
		json_int(&l.w, status);
	} else {
		status_final(sb, status, &l.w);
	}
	line_end(&l, sb->json_status_fd);
}
