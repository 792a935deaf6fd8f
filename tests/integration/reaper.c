/* Test driver: run a command as a child subreaper and reap every process
 * it leaves behind (pid 1 of these machines does not), then exit with
 * the command's status. */
#include <errno.h>
#include <stdio.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	pid_t pid, w;
	int status, result = 1;

	if (argc < 2) {
		fprintf(stderr, "usage: test-reaper COMMAND [ARGS...]\n");
		return 2;
	}
	if (prctl(PR_SET_CHILD_SUBREAPER, 1) < 0) {
		perror("test-reaper: PR_SET_CHILD_SUBREAPER");
		return 2;
	}
	pid = fork();
	if (pid < 0) {
		perror("test-reaper: fork");
		return 2;
	}
	if (pid == 0) {
		execvp(argv[1], argv + 1);
		perror("test-reaper: exec");
		_exit(127);
	}
	while ((w = wait(&status)) > 0 || errno == EINTR)
		if (w == pid)
			result = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
	return result;
}
