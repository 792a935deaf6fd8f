/* peer PID: can this process see, signal and trace process PID?
 * Prints "proc:X", "kill:X" (signal 0) and "ptrace:X" (PTRACE_SEIZE, which
 * does not stop the tracee; the trace ends when this program exits). */
#include "attack.h"
#include <signal.h>
#include <stdlib.h>
#include <sys/ptrace.h>
#include <sys/stat.h>

int main(int argc, char **argv)
{
	char path[64];
	struct stat st;
	pid_t pid;

	if (argc != 2)
		return usage("peer PID");
	pid = (pid_t)atoi(argv[1]);
	snprintf(path, sizeof path, "/proc/%d", pid);
	report("proc", stat(path, &st));
	report("kill", kill(pid, 0));
	report("ptrace", ptrace(PTRACE_SEIZE, pid, 0, 0));
	return 0;
}
