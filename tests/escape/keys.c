/* The caller's keys, from inside.
 *   keys with-key DATA CMD ARGS...  outside: join a fresh session keyring,
 *       add a "user" key holding DATA to it (possessor: all; its user: view
 *       only), run CMD with each argument "KEYID" replaced by the key's id and
 *       "OUTER" by the session keyring's id; then invalidate the key.  Exits
 *       with CMD's status.
 *   keys probe KEYID OUTER  inside: "read:ok:DATA" or "read:ERRNO" (KEYCTL_READ),
 *       then "session:same", "session:other" or "session:ERRNO" (@s vs OUTER). */
#include "attack.h"
#include <linux/keyctl.h>
#include <stdlib.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

static long keyctl(long op, long a, long b, long c)
{
	return syscall(SYS_keyctl, op, a, b, c, 0L);
}

static void substitute(char **args, long key, long outer)
{
	static char key_s[24], outer_s[24];

	snprintf(key_s, sizeof key_s, "%ld", key);
	snprintf(outer_s, sizeof outer_s, "%ld", outer);
	for (; *args; args++)
		if (strcmp(*args, "KEYID") == 0)
			*args = key_s;
		else if (strcmp(*args, "OUTER") == 0)
			*args = outer_s;
}

static int with_key(const char *data, char **cmd)
{
	long key, outer;
	int status;
	pid_t pid;

	if (keyctl(KEYCTL_JOIN_SESSION_KEYRING, 0, 0, 0) < 0)
		return perror("join session keyring"), 2;
	key = syscall(SYS_add_key, "user", "hutch-escape-test", data,
		      strlen(data), KEY_SPEC_SESSION_KEYRING);
	outer = keyctl(KEYCTL_GET_KEYRING_ID, KEY_SPEC_SESSION_KEYRING, 0, 0);
	if (key < 0 || outer < 0)
		return perror("add_key"), 2;
	substitute(cmd, key, outer);
	pid = fork();
	if (pid == 0) {
		execvp(cmd[0], cmd);
		_exit(127);
	}
	if (pid < 0 || waitpid(pid, &status, 0) < 0)
		return perror("fork"), 2;
	keyctl(KEYCTL_INVALIDATE, key, 0, 0);
	return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

static int probe(long key, long outer)
{
	char buf[256];
	long n = keyctl(KEYCTL_READ, key, (long)buf, sizeof buf - 1);
	long inner = keyctl(KEYCTL_GET_KEYRING_ID, KEY_SPEC_SESSION_KEYRING, 0, 0);

	if (n >= 0) {
		buf[n < (long)sizeof buf ? n : (long)sizeof buf - 1] = '\0';
		printf("read:ok:%s\n", buf);
	} else
		report("read", -1);
	if (inner < 0)
		report("session", -1);
	else
		printf("session:%s\n", inner == outer ? "same" : "other");
	return 0;
}

int main(int argc, char **argv)
{
	if (argc >= 4 && strcmp(argv[1], "with-key") == 0)
		return with_key(argv[2], argv + 3);
	if (argc == 4 && strcmp(argv[1], "probe") == 0)
		return probe(atol(argv[2]), atol(argv[3]));
	return usage("keys with-key DATA CMD ARGS... | keys probe KEYID OUTER");
}
