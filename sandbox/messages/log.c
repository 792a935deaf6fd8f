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

/* Is the byte at MSG a control character: C0, DEL, or the two bytes of
 * a C1 control in UTF-8 (U+0080 to U+009F: CSI is U+009B)? */
static size_t control_length(const unsigned char *msg)
{
	if (msg[0] < 0x20 || msg[0] == 0x7f)
		return 1;
	return msg[0] == 0xc2 && msg[1] >= 0x80 && msg[1] <= 0x9f ? 2 : 0;
}

/* MSG into LINE with control characters as \xNN: a file name that holds
 * a terminal's escape sequence must not reach the caller's terminal as
 * one (recolouring it, or worse). */
static size_t escape_controls(char *line, size_t len, const char *msg)
{
	const unsigned char *m = (const unsigned char *)msg;
	size_t o = 0;

	while (*m && o + 9 < len) {
		size_t n = control_length(m);

		if (n == 0)
			line[o++] = (char)*m++;
		for (; n > 0; n--)
			o += (size_t)snprintf(line + o, len - o, "\\x%02x", *m++);
	}
	line[o] = '\0';
	return o;
}

void log_line(const char *prog, const char *msg)
{
	char line[4200];
	int n = snprintf(line, sizeof(line), "%s: ", prog);

	if (n > (int)sizeof(line) - 2)
		n = (int)sizeof(line) - 2;
	n += (int)escape_controls(line + n, sizeof(line) - 1 - (size_t)n, msg);
	line[n++] = '\n';
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
