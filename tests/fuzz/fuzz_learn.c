/* --learn's records: the input is one message as the supervisor reads it
 * from the observer's socket, whose end is in the sandbox (anything may
 * come).  The check must never read past it (ASan), and what it takes
 * must hold: a kind it knows, a clean command name, a path that passes
 * learn_path_valid; and the profile written from it must propose it only
 * on lines of the known forms, the path as one word, nothing the sandbox
 * chose starting a line.  The input is also a path the observer
 * normalizes: the result stays absolute and free of "." and ".." and
 * empty components.  And it is a /proc/PID/status text, whose NSpid the
 * observer and the supervisor read: never past its NUL, never a pid
 * below 1. */
#include "fuzz.h"

#include "learn/learn_record.h"
#include "learn/learn_text.h"

static void must_normalize(const uint8_t *data, size_t size)
{
	char buf[LEARN_PATH_MAX];
	size_t n = size < sizeof(buf) - 2 ? size : sizeof(buf) - 2;

	buf[0] = '/';
	memcpy(buf + 1, data, n);
	buf[n + 1] = '\0';
	learn_path_normalize(buf);
	if (buf[0] != '/' || strstr(buf, "//") || strstr(buf, "/./") || strstr(buf, "/../"))
		abort();
	n = strlen(buf);
	if (n > 1 && (buf[n - 1] == '/' || (n >= 2 && strcmp(buf + n - 2, "/.") == 0) ||
		      (n >= 3 && strcmp(buf + n - 3, "/..") == 0)))
		abort();
}

/* Every line of TEXT: a comment, the include, or OPT PATH PATH and a
 * comment. */
static void must_be_safe_text(const char *text, const char *path)
{
	char *copy = strdup(text), *save = NULL;
	char want[3][LEARN_PATH_MAX * 2 + 32];

	snprintf(want[0], sizeof(want[0]), "ro-bind-try %s %s    # ", path, path);
	snprintf(want[1], sizeof(want[1]), "bind %s %s    # ", path, path);
	snprintf(want[2], sizeof(want[2]), "include default");
	for (char *l = strtok_r(copy, "\n", &save); l; l = strtok_r(NULL, "\n", &save)) {
		if (l[0] == '#' || l[0] == ' ')
			continue;
		if (strncmp(l, want[0], strlen(want[0])) && strncmp(l, want[1], strlen(want[1])) &&
		    strcmp(l, want[2]))
			abort();
	}
	free(copy);
}

static void must_write(const struct learn_event *ev)
{
	static char *const includes[] = { "default" };
	struct learn_entry e = { .kind = ev->kind, .path = (char *)ev->path, .count = 1,
				 .host = LEARN_HOST_DIR, .parent_host = LEARN_HOST_DIR };
	struct learn_facts f = { .home = "/home/u", .includes = includes, .n_includes = 1,
				 .entries = &e, .n_entries = 1 };
	char *text = NULL;
	size_t len = 0;
	FILE *out = open_memstream(&text, &len);

	if (!out)
		return;
	memcpy(e.comm, ev->comm, sizeof(e.comm));
	learn_write_profile(&f, out);
	fclose(out);
	must_be_safe_text(text, ev->path);
	free(text);
}

static void must_parse_nspid(const uint8_t *data, size_t size)
{
	char *text = malloc(size + 1);

	if (!text)
		return;
	memcpy(text, data, size);
	text[size] = '\0';
	if (learn_nspid_last(text) < 0)
		abort();
	free(text);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct learn_event ev;
	void *copy = malloc(size ? size : 1);

	/* exactly SIZE bytes: ASan sees a read past them */
	memcpy(copy, data, size);
	if (learn_record_check(copy, size, &ev)) {
		if (ev.kind < LEARN_READ || ev.kind >= LEARN_KIND_END ||
		    !learn_path_valid(ev.path, strlen(ev.path)) ||
		    strspn(ev.comm, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789._+-?") !=
		    strlen(ev.comm))
			abort();
		must_write(&ev);
	}
	free(copy);
	must_normalize(data, size);
	must_parse_nspid(data, size);
	return 0;
}
