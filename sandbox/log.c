#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "log.h"

int log_fail(char *err, size_t errlen, const char *stage, const char *what,
	     const char *object, int errnum)
{
	snprintf(err, errlen, "%s: %s %s: %s", stage, what, object, strerror(errnum));
	return -1;
}

void log_line(const char *prog, const char *msg)
{
	char line[4200];
	int n = snprintf(line, sizeof(line), "%s: %s\n", prog, msg);

	if (n > (int)sizeof(line) - 1)
		n = (int)sizeof(line) - 1;
	/* One write, so that lines from several processes never interleave. */
	if (write(STDERR_FILENO, line, (size_t)n) < 0)
		return;
}

void log_warning(const char *prog, const char *msg)
{
	char level_prog[64];

	/* Under --level-prefix PROG starts "<3>", an error's level. */
	snprintf(level_prog, sizeof(level_prog), "%s", prog);
	if (strncmp(level_prog, "<3>", 3) == 0)
		level_prog[1] = '4';
	log_line(level_prog, msg);
}
