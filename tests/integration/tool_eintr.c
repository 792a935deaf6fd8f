/* A program with a SIGALRM handler installed without SA_RESTART, as
 * programs with interval timers have, that opens and stats files: on
 * Linux neither call returns EINTR for a regular file or a missing one.
 * Prints "eintr=N" and exits 3 when one did.  With the argument
 * "restart" the handler has SA_RESTART.  t_learn_attack.sh. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <unistd.h>

static void on_alarm(int sig)
{
	(void)sig;
}

int main(int argc, char **argv)
{
	struct sigaction sa;
	struct itimerval it = { { 0, 50 }, { 0, 50 } };
	struct stat st;
	int eintr = 0;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_alarm;	/* no SA_RESTART, unless asked */
	if (argc > 1 && strcmp(argv[1], "restart") == 0)
		sa.sa_flags = SA_RESTART;
	if (sigaction(SIGALRM, &sa, NULL) < 0 || setitimer(ITIMER_REAL, &it, NULL) < 0)
		return 2;
	for (int i = 0; i < 20000; i++) {
		int fd = open("/usr/bin/env", O_RDONLY | O_CLOEXEC);

		if (fd >= 0)
			close(fd);
		else if (errno == EINTR)
			eintr++;
		if (stat("/nonexistent-eintr/x", &st) < 0 && errno == EINTR)
			eintr++;
	}
	printf("eintr=%d\n", eintr);
	return eintr ? 3 : 0;
}
