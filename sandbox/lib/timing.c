/* --timing and HUTCH_TIMING: the marks of one launch, their transport
 * from the sandbox's processes to the supervisor, and the steps between
 * them as a table or a JSON line (see timing.h). */
#define _GNU_SOURCE
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "json.h"
#include "timing.h"

static const struct {
	const char *name;
	enum timing_side side;
} marks[TM_COUNT] = {
	[TM_START] = { "start", TS_SUPERVISOR },
	[TM_PARSED] = { "parsed", TS_SUPERVISOR },
	[TM_PREP_FEATURES] = { "prepare_features", TS_SUPERVISOR },
	[TM_PREPARED] = { "prepared", TS_SUPERVISOR },
	[TM_CLONED] = { "cloned", TS_SUPERVISOR },
	[TM_CHILD_START] = { "pid1_start", TS_PID1 },
	[TM_MAPS] = { "maps_written", TS_SUPERVISOR },
	[TM_RELEASED] = { "released", TS_SUPERVISOR },
	[TM_CHILD_RELEASED] = { "pid1_released", TS_PID1 },
	[TM_NETWORK] = { "network", TS_PID1 },
	[TM_HOSTNAME] = { "hostname", TS_PID1 },
	[TM_MNT_BEGIN] = { "mounts_begin", TS_PID1 },
	[TM_MNT_PRIVATE] = { "mounts_private", TS_PID1 },
	[TM_MNT_SOURCES] = { "mounts_sources", TS_PID1 },
	[TM_MNT_ROOT] = { "mounts_root", TS_PID1 },
	[TM_MNT_OPS] = { "mounts_operations", TS_PID1 },
	[TM_MNT_PROTECT] = { "mounts_protect", TS_PID1 },
	[TM_MNT_PIVOT] = { "mounts_pivot", TS_PID1 },
	[TM_MOUNTED] = { "mounted", TS_PID1 },
	[TM_NESTED] = { "nested_userns", TS_PID1 },
	[TM_FORKING] = { "command_fork", TS_PID1 },
	[TM_CMD_START] = { "command_start", TS_COMMAND },
	[TM_PRE_FILTER] = { "before_filter", TS_COMMAND },
	[TM_POLICY] = { "filter_loaded", TS_COMMAND },
	[TM_GO] = { "go", TS_COMMAND },
	[TM_EXEC] = { "execve", TS_COMMAND },
	[TM_LOOP] = { "loop", TS_SUPERVISOR },
	[TM_WAKE] = { "first_wakeup", TS_SUPERVISOR },
	[TM_EXEC_SEEN] = { "exec_seen", TS_SUPERVISOR },
	[TM_ENDED] = { "command_ended", TS_SUPERVISOR },
	[TM_REAPED] = { "pid1_reaped", TS_SUPERVISOR },
	[TM_END] = { "end", TS_SUPERVISOR },
	[TM_FB_ENTER] = { "fallback_enter", TS_SUPERVISOR },
	[TM_FB_READY] = { "fallback_ready", TS_SUPERVISOR },
	[TM_FB_RELEASED] = { "fallback_released", TS_SUPERVISOR },
	[TM_FB_CMD_START] = { "fallback_command_start", TS_COMMAND },
	[TM_FB_CMD_RELEASED] = { "fallback_command_released", TS_COMMAND },
	[TM_FB_CONFINED] = { "confined", TS_COMMAND },
	[TM_FB_REAPED] = { "fallback_command_reaped", TS_SUPERVISOR },
};

/* The steps, in the stage tables' order.  A step whose marks were not
 * both passed (no init with --as-pid-1, a failed launch, the other
 * table's) is left out. */
const struct timing_step timing_steps[] = {
	{ "parse", TS_SUPERVISOR, "argv and profiles into the plan", TM_START, TM_PARSED },
	{ "prepare", TS_SUPERVISOR, "each feature's prepare, the seccomp program", TM_PARSED, TM_PREP_FEATURES },
	{ "prepare", TS_SUPERVISOR, "set-up pipes, init image", TM_PREP_FEATURES, TM_PREPARED },
	{ "clone", TS_SUPERVISOR, "clone3, as the supervisor sees it", TM_PREPARED, TM_CLONED },
	{ "clone", TS_PID1, "clone3 until pid 1 runs", TM_PREPARED, TM_CHILD_START },
	{ "idmap", TS_SUPERVISOR, "uid_map, setgroups, gid_map", TM_CLONED, TM_MAPS },
	{ "idmap", TS_SUPERVISOR, "first mount's word, not dumpable, release", TM_MAPS, TM_RELEASED },
	/* the Landlock fallback's table, once clone or idmap gave up */
	{ "fallback", TS_SUPERVISOR, "namespaces tried and given up", TM_PREPARED, TM_FB_ENTER },
	{ "fallback", TS_SUPERVISOR, "Landlock rules, per-run dirs, notice", TM_FB_ENTER, TM_FB_READY },
	{ "fork", TS_SUPERVISOR, "fork, attach, release", TM_FB_READY, TM_FB_RELEASED },
	{ "fork", TS_COMMAND, "fork until COMMAND's process runs", TM_FB_READY, TM_FB_CMD_START },
	{ "deathsig", TS_COMMAND, "wake-up: release to COMMAND's process", TM_FB_RELEASED, TM_FB_CMD_RELEASED },
	{ "confine", TS_COMMAND, "Landlock ruleset, network filter", TM_FB_CMD_RELEASED, TM_FB_CONFINED },
	/* the namespace sandbox's table, on */
	{ "deathsig", TS_PID1, "wake-up: release to pid 1", TM_RELEASED, TM_CHILD_RELEASED },
	{ "network", TS_PID1, "loopback up, the proxy's listener", TM_CHILD_RELEASED, TM_NETWORK },
	{ "hostname", TS_PID1, "sethostname", TM_NETWORK, TM_HOSTNAME },
	{ "handles", TS_PID1, "/proc/self, userns limit, file label", TM_HOSTNAME, TM_MNT_BEGIN },
	{ "mounts", TS_PID1, "propagation slave (bwrap; hutch: earlier)", TM_MNT_BEGIN, TM_MNT_PRIVATE },
	{ "mounts", TS_PID1, "clone host sources (open_tree)", TM_MNT_PRIVATE, TM_MNT_SOURCES },
	{ "mounts", TS_PID1, "new root tmpfs attached", TM_MNT_SOURCES, TM_MNT_ROOT },
	{ "mounts", TS_PID1, "the operations in order", TM_MNT_ROOT, TM_MNT_OPS },
	{ "mounts", TS_PID1, "private /proc, --protect", TM_MNT_OPS, TM_MNT_PROTECT },
	{ "mounts", TS_PID1, "pivot_root, old root detached", TM_MNT_PROTECT, TM_MNT_PIVOT },
	{ "mounts", TS_PID1, "working directory", TM_MNT_PIVOT, TM_MOUNTED },
	{ "seal", TS_PID1, "locks, nested user namespace, its maps", TM_MOUNTED, TM_NESTED },
	{ "seal", TS_PID1, "go pipe, signals blocked", TM_NESTED, TM_FORKING },
	{ "seal", TS_PID1, "fork, init exec, its go (wake-up)", TM_FORKING, TM_GO },
	{ "policy", TS_COMMAND, "fork until COMMAND's process runs", TM_FORKING, TM_CMD_START },
	{ "policy", TS_COMMAND, "old mount ns dropped, ids, fds, limits", TM_CMD_START, TM_PRE_FILTER },
	{ "policy", TS_COMMAND, "caps, no_new_privs, filter load", TM_PRE_FILTER, TM_POLICY },
	{ "exec", TS_COMMAND, "environment, exec marker", TM_GO, TM_EXEC },
	{ "exec", TS_SUPERVISOR, "execve until the supervisor sees it", TM_EXEC, TM_EXEC_SEEN },
	{ "run", TS_SUPERVISOR, "supervisor asleep until its first wake-up", TM_LOOP, TM_WAKE },
	{ "run", TS_SUPERVISOR, "COMMAND runs, init reports its end", TM_EXEC_SEEN, TM_ENDED },
	{ "run", TS_SUPERVISOR, "COMMAND runs until its process is reaped", TM_EXEC_SEEN, TM_FB_REAPED },
	{ "teardown", TS_SUPERVISOR, "init's teardown until pid 1 is reaped", TM_ENDED, TM_REAPED },
	{ "teardown", TS_SUPERVISOR, "supervisor's finish and exit", TM_REAPED, TM_END },
	{ "teardown", TS_SUPERVISOR, "what is left killed, run dirs gone, exit", TM_FB_REAPED, TM_END },
};

const size_t timing_n_steps = sizeof(timing_steps) / sizeof(timing_steps[0]);

const char *timing_mark_name(enum timing_mark id)
{
	return id < TM_COUNT ? marks[id].name : "?";
}

enum timing_side timing_mark_side(enum timing_mark id)
{
	return id < TM_COUNT ? marks[id].side : TS_SUPERVISOR;
}

const char *timing_side_name(enum timing_side side)
{
	return side == TS_PID1 ? "pid 1" : side == TS_COMMAND ? "COMMAND" : "supervisor";
}

void timing_set(struct timing *t, enum timing_mark id, uint64_t ns)
{
	if (id < TM_COUNT && t->at[id] == 0)
		t->at[id] = ns;
}

uint64_t timing_now(void)
{
	struct timespec ts;

	if (clock_gettime(CLOCK_MONOTONIC, &ts) < 0)
		return 0;
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

void timing_start(struct timing *t, uint64_t start)
{
	memset(t, 0, sizeof(*t));
	t->on = start != 0;
	t->at[TM_START] = start;
}

void timing_mark(struct timing *t, enum timing_mark id)
{
	if (t && t->on)
		timing_set(t, id, timing_now());
}

size_t timing_format_lines(const struct timing *t, char *buf, size_t size)
{
	size_t len = 0;

	if (!t || !t->on)
		return 0;
	for (int id = 0; id < TM_COUNT; id++) {
		int n;

		if (marks[id].side == TS_SUPERVISOR || !t->at[id])
			continue;
		n = snprintf(buf + len, size - len, "@t %d %llu\n", id,
			     (unsigned long long)t->at[id]);
		if (n < 0 || (size_t)n >= size - len)
			break;	/* whole lines only */
		len += (size_t)n;
	}
	return len;
}

/* One "@t ID NS" line into T; false if it is not one.  The log's writers
 * are hutch's own set-up code, before COMMAND runs (the write end closes
 * at its execve); even so a line is taken only as a known mark of the
 * sandbox's side and a number, and nothing of it is printed but that
 * number: bytes from the sandbox's side never reach the terminal. */
static bool take_line(struct timing *t, const char *line)
{
	char *end;
	unsigned long id;
	unsigned long long ns;

	if (strncmp(line, "@t ", 3) != 0 || line[3] < '0' || line[3] > '9')
		return false;
	errno = 0;
	id = strtoul(line + 3, &end, 10);
	if (*end != ' ' || end[1] < '0' || end[1] > '9' || id >= TM_COUNT)
		return false;
	ns = strtoull(end + 1, &end, 10);
	if (*end != '\n' || errno || marks[id].side == TS_SUPERVISOR)
		return *end == '\n';
	timing_set(t, (enum timing_mark)id, ns);
	return true;
}

size_t timing_take_lines(struct timing *t, char *log, size_t len)
{
	size_t at = 0;

	while (at < len) {
		char *nl = memchr(log + at, '\n', len - at);
		size_t line_len;

		if (!nl)
			break;	/* an incomplete line waits for the rest */
		line_len = (size_t)(nl - (log + at)) + 1;
		if (take_line(t, log + at)) {
			memmove(log + at, log + at + line_len, len - at - line_len);
			len -= line_len;
			continue;
		}
		at += line_len;
	}
	return len;
}

/* ---- output ---- */

static bool step_passed(const struct timing *t, const struct timing_step *s)
{
	return t->at[s->from] && t->at[s->to] && t->at[TM_START];
}

static double ms_since(const struct timing *t, uint64_t ns)
{
	return (double)(int64_t)(ns - t->at[TM_START]) / 1e6;
}

void timing_print_table(const struct timing *t, FILE *out)
{
	fprintf(out, "hutch: timing of this launch (CLOCK_MONOTONIC; ms from hutch's start)\n");
	fprintf(out, "  %-9s %-10s %-44s %9s %9s\n", "stage", "who", "step", "at ms", "took ms");
	for (size_t i = 0; i < timing_n_steps; i++) {
		const struct timing_step *s = &timing_steps[i];

		if (!step_passed(t, s))
			continue;
		fprintf(out, "  %-9s %-10s %-44s %9.3f %9.3f\n", s->stage, timing_side_name(s->who),
			s->name, ms_since(t, t->at[s->from]),
			(double)(int64_t)(t->at[s->to] - t->at[s->from]) / 1e6);
	}
	if (t->at[TM_START] && t->at[TM_END])
		fprintf(out, "  %-9s %-10s %-44s %9.3f %9.3f\n", "total", "", "main until exit",
			0.0, ms_since(t, t->at[TM_END]));
}

void timing_print_json(const struct timing *t, FILE *out)
{
	struct json_writer w;

	json_init(&w, out, 0);
	json_begin_object(&w, JSON_COMPACT);
	json_key(&w, "clock");
	json_string(&w, "CLOCK_MONOTONIC");
	json_key(&w, "start_ns");
	json_uint(&w, t->at[TM_START]);
	json_key(&w, "total_ns");
	json_int(&w, t->at[TM_START] && t->at[TM_END] ?
		 (long long)(t->at[TM_END] - t->at[TM_START]) : -1);
	json_key(&w, "marks");
	json_begin_object(&w, JSON_COMPACT);
	for (int id = 0; id < TM_COUNT; id++)
		if (t->at[id] && t->at[TM_START]) {
			json_key(&w, marks[id].name);
			json_int(&w, (long long)(t->at[id] - t->at[TM_START]));
		}
	json_end_object(&w);
	json_key(&w, "steps");
	json_begin_array(&w, JSON_COMPACT);
	for (size_t i = 0; i < timing_n_steps; i++) {
		const struct timing_step *s = &timing_steps[i];

		if (!step_passed(t, s))
			continue;
		json_begin_object(&w, JSON_COMPACT);
		json_key(&w, "stage");
		json_string(&w, s->stage);
		json_key(&w, "who");
		json_string(&w, timing_side_name(s->who));
		json_key(&w, "step");
		json_string(&w, s->name);
		json_key(&w, "from");
		json_string(&w, marks[s->from].name);
		json_key(&w, "to");
		json_string(&w, marks[s->to].name);
		json_key(&w, "ns");
		json_int(&w, (long long)(t->at[s->to] - t->at[s->from]));
		json_end_object(&w);
	}
	json_end_array(&w);
	json_end_object(&w);
	fputc('\n', out);
}

/* What PRINT writes, in one write to FD: launches that share a FILE
 * (O_APPEND) or a terminal keep their lines whole. */
static void write_once(const struct timing *t, int fd,
		       void (*print)(const struct timing *t, FILE *out))
{
	char *text = NULL;
	size_t len = 0;
	FILE *mem = open_memstream(&text, &len);

	if (!mem)
		return;
	print(t, mem);
	if (fclose(mem) == 0 && write(fd, text, len) < 0)
		len = 0;	/* nothing else to do: the run's outcome stands */
	free(text);
}

void timing_report(const struct timing *t, unsigned want, int fd)
{
	if (want & TIMING_TEXT)
		write_once(t, STDERR_FILENO, timing_print_table);
	if (want & TIMING_JSON)
		write_once(t, STDERR_FILENO, timing_print_json);
	if (fd >= 0)
		write_once(t, fd, timing_print_json);
}
