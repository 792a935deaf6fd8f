/* The teardown report: when pid 1 is not reaped within the deadline,
 * say which processes are stuck and where, instead of hanging. */
#define _GNU_SOURCE
#include <dirent.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "messages/messages.h"
#include "sandbox.h"
#include "supervise.h"
#include "lib/lib.h"

/* The state letter from /proc/PID/stat (after the command's ')'). */
static char process_state(int dir)
{
	char stat[1024];
	char *paren;

	if (read_file_at(dir, "stat", stat, sizeof(stat)) < 0)
		return '?';
	paren = strrchr(stat, ')');
	return paren && paren[1] && paren[2] ? paren[2] : '?';
}

static void describe(const struct plan *plan, const char *pid, int dir)
{
	char wchan[128] = "?", cmd[512] = "", msg[1024];
	ssize_t n = read_file_at(dir, "cmdline", cmd, sizeof(cmd));

	for (ssize_t i = 0; i + 1 < n; i++)
		if (cmd[i] == '\0')
			cmd[i] = ' ';
	if (read_file_at(dir, "wchan", wchan, sizeof(wchan)) <= 0)
		snprintf(wchan, sizeof(wchan), "?");
	snprintf(msg, sizeof(msg), "teardown: pid %s (state %c, wchan %s): %s: still there after %gs",
		 pid, process_state(dir), wchan, cmd[0] ? cmd : "(no command line)",
		 plan->teardown_deadline);
	log_line(plan->prog, msg);
}

static bool same_pidns(int dir, const struct stat *ns)
{
	struct stat st;

	return fstatat(dir, "ns/pid", &st, 0) == 0 && st.st_ino == ns->st_ino &&
	       st.st_dev == ns->st_dev;
}

static int report_pidns_members(struct sandbox *sb, const struct stat *ns)
{
	DIR *proc = opendir("/proc");
	struct dirent *de;
	int count = 0;

	if (!proc)
		return 0;
	while ((de = readdir(proc))) {
		int dir;

		if (de->d_name[0] < '0' || de->d_name[0] > '9')
			continue;
		dir = openat(dirfd(proc), de->d_name, O_PATH | O_DIRECTORY | O_CLOEXEC);
		if (dir < 0)
			continue;
		if (same_pidns(dir, ns)) {
			describe(sb->plan, de->d_name, dir);
			count++;
		}
		close(dir);
	}
	closedir(proc);
	return count;
}

void teardown_report_stuck(struct sandbox *sb)
{
	char path[64], msg[256];
	struct stat ns;
	int count = 0;

	snprintf(path, sizeof(path), "/proc/%d/ns/pid", sb->pid1);
	if (stat(path, &ns) == 0)
		count = report_pidns_members(sb, &ns);
	syscall(SYS_pidfd_send_signal, sb->pid1_fd, SIGKILL, NULL, 0);
	snprintf(msg, sizeof(msg), "teardown: %d process%s did not exit within %gs and remain%s",
		 count, count == 1 ? "" : "es", sb->plan->teardown_deadline,
		 count == 1 ? "s" : "");
	log_line(sb->plan->prog, msg);
}
