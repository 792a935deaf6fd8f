/* Unit tests of --learn's pure parts: the records the observer sends and
 * the supervisor's check of them (learn_record.c), and the profile
 * written from what was learned: judged, reduced, in hutch's grammar
 * (learn_text.c). */
#define _GNU_SOURCE
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "learn/learn_record.h"
#include "learn/learn_text.h"
#include "run_suite.h"

/* ---- records ---- */

START_TEST(test_record_round_trip)
{
	struct learn_record rec;
	struct learn_event ev;
	size_t n = learn_record_make(&rec, LEARN_READ, "python3", "/opt/mods/x.py");

	ck_assert_uint_eq(n, LEARN_RECORD_HEAD + strlen("/opt/mods/x.py"));
	ck_assert(learn_record_check(&rec, n, &ev));
	ck_assert_int_eq(ev.kind, LEARN_READ);
	ck_assert_str_eq(ev.comm, "python3");
	ck_assert_str_eq(ev.path, "/opt/mods/x.py");
}
END_TEST

START_TEST(test_record_refused_when_not_whole)
{
	struct learn_record rec;
	struct learn_event ev;
	size_t n = learn_record_make(&rec, LEARN_WRITE, "sh", "/proj");

	ck_assert(!learn_record_check(&rec, n - 1, &ev));	/* cut short */
	ck_assert(!learn_record_check(&rec, n + 1, &ev));	/* a byte more */
	ck_assert(!learn_record_check(&rec, 3, &ev));
	rec.magic ^= 1;
	ck_assert(!learn_record_check(&rec, n, &ev));
	rec.magic ^= 1;
	rec.kind = LEARN_KIND_END;
	ck_assert(!learn_record_check(&rec, n, &ev));
	rec.kind = LEARN_WRITE;
	rec.comm_len = LEARN_COMM_MAX + 1;
	ck_assert(!learn_record_check(&rec, n, &ev));
}
END_TEST

/* Nothing the sandbox sends may end a line, quote or comment in the
 * profile. */
START_TEST(test_path_check)
{
	static const char *const bad[] = {
		"", "relative", "/a/", "//a", "/a//b", "/a/./b", "/a/../b", "/..", "/.",
		"/a\nallow-net *:*", "/a b", "/a#b", "/a\"b", "/a'b", "/a\\b", "/a$b", "/a\tb",
	};
	static const char *const good[] = { "/", "/a", "/a/b.c", "/a/.hidden", "/a/..b", "/é" };

	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		ck_assert_msg(!learn_path_valid(bad[i], strlen(bad[i])), "%s taken", bad[i]);
	for (size_t i = 0; i < sizeof(good) / sizeof(good[0]); i++)
		ck_assert_msg(learn_path_valid(good[i], strlen(good[i])), "%s refused", good[i]);
}
END_TEST

START_TEST(test_comm_cleaned)
{
	char out[LEARN_COMM_MAX + 1];

	learn_comm_clean("a\nb c#d", 7, out);
	ck_assert_str_eq(out, "a?b?c?d");
	learn_comm_clean("", 0, out);
	ck_assert_str_eq(out, "?");
}
END_TEST

START_TEST(test_normalize)
{
	static const char *const cases[][2] = {
		{ "/a/./b//c/", "/a/b/c" }, { "/a/b/../c", "/a/c" }, { "/../..", "/" },
		{ "/", "/" }, { "/a/..", "/" }, { "/a/b/../../c/./d", "/c/d" },
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		char buf[64];

		snprintf(buf, sizeof(buf), "%s", cases[i][0]);
		learn_path_normalize(buf);
		ck_assert_str_eq(buf, cases[i][1]);
	}
}
END_TEST

START_TEST(test_nspid_last)
{
	ck_assert_int_eq(learn_nspid_last("Name:\tsh\nNSpid:\t4711\t12\t2\nNSsid:\t1\n"), 2);
	ck_assert_int_eq(learn_nspid_last("NSpid:\t33\n"), 33);
	ck_assert_int_eq(learn_nspid_last("Name:\tsh\nNSpid:\t9"), 9);
	ck_assert_int_eq(learn_nspid_last("Name:\tsh\nPid:\t9\n"), 0);
	ck_assert_int_eq(learn_nspid_last("Name:\tsh\nNSpid:\t\nNSsid:\t7\n"), 0);
	ck_assert_int_eq(learn_nspid_last("NSpid:\t99999999999\n"), 0);
	ck_assert_int_eq(learn_nspid_last("NSpid:\t-4\n"), 0);
}
END_TEST

/* ---- the profile ---- */

static char *profile_of(const struct learn_facts *f, size_t *proposed)
{
	char *text = NULL;
	size_t len = 0;
	FILE *out = open_memstream(&text, &len);

	ck_assert_ptr_nonnull(out);
	*proposed = learn_write_profile(f, out);
	fclose(out);
	return text;
}

static struct learn_entry entry(enum learn_kind kind, const char *path, const char *comm,
				unsigned long long count, enum learn_host host,
				enum learn_host parent)
{
	struct learn_entry e = { .kind = kind, .path = (char *)path, .count = count,
				 .host = host, .parent_host = parent };

	snprintf(e.comm, sizeof(e.comm), "%s", comm);
	return e;
}

static char *const includes[] = { "default" };

START_TEST(test_profile_includes_and_one_line_per_need)
{
	struct learn_entry e[] = {
		entry(LEARN_READ, "/opt/mods", "python3", 14, LEARN_HOST_DIR, LEARN_HOST_DIR),
		entry(LEARN_READ, "/opt/none", "python3", 3, LEARN_HOST_MISSING, LEARN_HOST_DIR),
		entry(LEARN_WRITE, "/src/proj", "make", 2, LEARN_HOST_DIR, LEARN_HOST_DIR),
	};
	struct learn_facts f = { .home = "/home/u", .includes = includes, .n_includes = 1,
				 .entries = e, .n_entries = 3 };
	size_t proposed;
	char *text = profile_of(&f, &proposed);

	ck_assert_uint_eq(proposed, 2);
	ck_assert_ptr_nonnull(strstr(text, "\ninclude default\n"));
	ck_assert_ptr_nonnull(strstr(text, "\nro-bind-try /opt/mods /opt/mods    # python3 read it 14 times\n"));
	ck_assert_ptr_nonnull(strstr(text, "\nbind /src/proj /src/proj    # make wrote there 2 times\n"));
	ck_assert_ptr_null(strstr(text, "/opt/none"));	/* not on the host either */
	free(text);
}
END_TEST

START_TEST(test_profile_groups_a_directory)
{
	struct learn_entry e[] = {
		entry(LEARN_READ, "/opt/lib/a.py", "python3", 2, LEARN_HOST_FILE, LEARN_HOST_DIR),
		entry(LEARN_READ, "/opt/lib/b.py", "python3", 3, LEARN_HOST_FILE, LEARN_HOST_DIR),
		entry(LEARN_READ, "/opt/lib/c.py", "python3", 4, LEARN_HOST_FILE, LEARN_HOST_DIR),
		entry(LEARN_READ, "/opt/lib/c.py/x", "python3", 1, LEARN_HOST_MISSING, LEARN_HOST_FILE),
	};
	struct learn_facts f = { .includes = includes, .n_includes = 1, .entries = e,
				 .n_entries = 4 };
	size_t proposed;
	char *text = profile_of(&f, &proposed);

	ck_assert_uint_eq(proposed, 1);
	ck_assert_ptr_nonnull(strstr(text, "\nro-bind-try /opt/lib /opt/lib    # python3 read 3 files under it, 9 times\n"));
	free(text);
}
END_TEST

/* Never / or $HOME whole; never a directory holding a secret. */
/* ~/lib looked up on the way to ~/lib/python: the deeper one only. */
START_TEST(test_profile_drops_a_lookup_on_the_way)
{
	struct learn_entry e[] = {
		entry(LEARN_READ, "/home/u/lib/python", "python3", 2, LEARN_HOST_DIR, LEARN_HOST_DIR),
		entry(LEARN_READ, "/home/u/lib", "python3", 1, LEARN_HOST_DIR, LEARN_HOST_DIR),
	};
	struct learn_facts f = { .home = "/home/u", .includes = includes, .n_includes = 1,
				 .entries = e, .n_entries = 2 };
	size_t proposed;
	char *text = profile_of(&f, &proposed);

	ck_assert_uint_eq(proposed, 1);
	ck_assert_ptr_nonnull(strstr(text, "\nro-bind-try /home/u/lib/python /home/u/lib/python "));
	ck_assert_ptr_null(strstr(text, "\nro-bind-try /home/u/lib /home/u/lib "));
	free(text);
}
END_TEST

START_TEST(test_profile_never_groups_home_or_secrets)
{
	struct learn_entry e[] = {
		entry(LEARN_READ, "/home/u/.a", "sh", 1, LEARN_HOST_FILE, LEARN_HOST_DIR),
		entry(LEARN_READ, "/home/u/.b", "sh", 1, LEARN_HOST_FILE, LEARN_HOST_DIR),
		entry(LEARN_READ, "/home/u/.c", "sh", 1, LEARN_HOST_FILE, LEARN_HOST_DIR),
		entry(LEARN_READ, "/a", "sh", 1, LEARN_HOST_FILE, LEARN_HOST_DIR),
		entry(LEARN_READ, "/b", "sh", 1, LEARN_HOST_FILE, LEARN_HOST_DIR),
		entry(LEARN_READ, "/c", "sh", 1, LEARN_HOST_FILE, LEARN_HOST_DIR),
	};
	struct learn_facts f = { .home = "/home/u", .includes = includes, .n_includes = 1,
				 .entries = e, .n_entries = 6 };
	size_t proposed;
	char *text = profile_of(&f, &proposed);

	ck_assert_uint_eq(proposed, 6);
	ck_assert_ptr_null(strstr(text, "ro-bind-try /home/u /home/u"));
	ck_assert_ptr_null(strstr(text, "ro-bind-try / /"));
	ck_assert_ptr_nonnull(strstr(text, "\nro-bind-try /home/u/.a /home/u/.a "));
	free(text);
}
END_TEST

START_TEST(test_profile_secret_only_as_comment)
{
	struct learn_entry e[] = {
		entry(LEARN_READ, "/home/u/.ssh/id_ed25519", "cat", 1, LEARN_HOST_FILE, LEARN_HOST_DIR),
		entry(LEARN_WRITE, "/home/u/.ssh", "cat", 1, LEARN_HOST_DIR, LEARN_HOST_DIR),
		entry(LEARN_WRITE, "/home/u/.config/fish", "fish", 1, LEARN_HOST_DIR, LEARN_HOST_DIR),
		entry(LEARN_WRITE, "/home/u", "sh", 1, LEARN_HOST_DIR, LEARN_HOST_DIR),
		entry(LEARN_WRITE, "/src/p/.git/hooks", "sh", 1, LEARN_HOST_DIR, LEARN_HOST_DIR),
		entry(LEARN_READ, "/var/run/docker.sock", "docker", 1, LEARN_HOST_SOCKET, LEARN_HOST_DIR),
		entry(LEARN_READ, "/src/p/data", "cat", 1, LEARN_HOST_LINK, LEARN_HOST_DIR),
	};
	struct learn_facts f = { .home = "/home/u", .includes = includes, .n_includes = 1,
				 .entries = e, .n_entries = 7 };
	size_t proposed;
	char *text = profile_of(&f, &proposed);
	char *line, *save = NULL;

	ck_assert_uint_eq(proposed, 0);
	ck_assert_ptr_nonnull(strstr(text, "# not proposed (ssh keys and agent sockets): ro-bind-try /home/u/.ssh/id_ed25519 /home/u/.ssh/id_ed25519\n"));
	for (line = strtok_r(text, "\n", &save); line; line = strtok_r(NULL, "\n", &save))
		ck_assert_msg(line[0] == '#' || line[0] == ' ' || strncmp(line, "include ", 8) == 0,
			      "proposed: %s", line);
	free(text);
}
END_TEST

START_TEST(test_profile_calls_commented_nets_exact)
{
	struct learn_call c[] = {
		{ .name = "bpf", .rule = "default:46", .comm = "python3", .count = 2 },
		{ .name = "mount", .rule = "default:14", .comm = "bwrap", .count = 1, .nested = true },
	};
	struct learn_net n[] = {
		{ .host = "example.org", .port = 443, .count = 3 },
		{ .host = "*.example.org", .port = 443, .count = 1 },
		{ .host = "0.0.0.0", .port = 80, .count = 1 },
		{ .host = "example.org", .port = 0, .count = 1 },
		{ .host = "pypi.org", .port = 0, .count = 2 },
	};
	struct learn_facts f = { .includes = includes, .n_includes = 1, .calls = c, .n_calls = 2,
				 .nets = n, .n_nets = 5 };
	size_t proposed;
	char *text = profile_of(&f, &proposed);

	ck_assert_uint_eq(proposed, 2);
	ck_assert_ptr_nonnull(strstr(text, "\nallow-net pypi.org    # looked up 2 times"));
	ck_assert_ptr_null(strstr(text, "\nallow-net example.org    #"));
	ck_assert_ptr_nonnull(strstr(text, "\n# seccomp-allow bpf    # python3 was refused it 2 times (default:46)\n"));
	ck_assert_ptr_nonnull(strstr(text, "\n# allow-nested    # bwrap was refused mount"));
	ck_assert_ptr_nonnull(strstr(text, "\nallow-net example.org:443    # asked 3 times\n"));
	ck_assert_ptr_null(strstr(text, "*"));
	ck_assert_ptr_null(strstr(text, "0.0.0.0"));
	free(text);
}
END_TEST

START_TEST(test_profile_limits)
{
	struct learn_facts f = { .includes = includes, .n_includes = 1, .limit_hit = "pids",
				 .pids = 64 };
	size_t proposed;
	char *text = profile_of(&f, &proposed);

	ck_assert_uint_eq(proposed, 1);
	ck_assert_ptr_nonnull(strstr(text, "\npids 128    # COMMAND hit the limit of 64\n"));
	free(text);
}
END_TEST

START_TEST(test_unwritable_reasons)
{
	ck_assert_ptr_nonnull(learn_unwritable_reason("/", "/home/u"));
	ck_assert_ptr_nonnull(learn_unwritable_reason("/home", "/home/u"));
	ck_assert_ptr_nonnull(learn_unwritable_reason("/home/u/.bashrc", "/home/u"));
	ck_assert_ptr_nonnull(learn_unwritable_reason("/home/u/.local", "/home/u"));
	ck_assert_ptr_nonnull(learn_unwritable_reason("/home/u/.aws/credentials", "/home/u"));
	ck_assert_ptr_null(learn_unwritable_reason("/home/u/src/proj", "/home/u"));
	ck_assert_ptr_nonnull(learn_unwritable_reason("/usr/lib/python3/__pycache__", "/home/u"));
	ck_assert_ptr_nonnull(learn_unwritable_reason("/etc", "/home/u"));
	ck_assert_ptr_null(learn_unwritable_reason("/srcdir", "/home/u"));
	ck_assert_ptr_null(learn_secret_reason("/tmp/proj", "/home/u"));
	ck_assert_ptr_nonnull(learn_secret_reason("/tmp", "/home/u"));
	ck_assert_ptr_nonnull(learn_secret_reason("/tmp/tmux-1000/default", "/home/u"));
	ck_assert_ptr_nonnull(learn_secret_reason("/dev/sda", "/home/u"));
	ck_assert_ptr_nonnull(learn_secret_reason("/proc/1/root", "/home/u"));
	ck_assert_ptr_nonnull(learn_secret_reason("/run/docker.sock", "/home/u"));
}
END_TEST

/* Secrets by path components anywhere: another user's home, a home
 * reached through a link, a directory that holds one. */
START_TEST(test_secrets_by_component)
{
	ck_assert_ptr_nonnull(learn_secret_reason("/home/bob/.ssh/id_ed25519", "/root"));
	ck_assert_ptr_nonnull(learn_secret_reason("/var/home/u/.config/gh/hosts.yml", "/home/u"));
	ck_assert_ptr_nonnull(learn_secret_reason("/home/u/snap/firefox/common/.mozilla/x", "/home/u"));
	ck_assert_ptr_nonnull(learn_secret_reason("/home/u/.docker", "/home/u"));
	ck_assert_ptr_nonnull(learn_secret_reason("/home/u/.var/app/org.x/y", "/home/u"));
	ck_assert_ptr_nonnull(learn_secret_reason("/home/u/.config/BraveSoftware/a", "/home/u"));
	ck_assert_ptr_nonnull(learn_secret_reason("/home/u/.pgpass", "/home/u"));
	ck_assert_ptr_nonnull(learn_secret_reason("/root/.ssh/id_rsa", "/root"));
	ck_assert_ptr_null(learn_secret_reason("/root/src", "/root"));
	ck_assert_ptr_null(learn_secret_reason("/home/u/.sshx", "/home/u"));
	ck_assert_ptr_null(learn_secret_reason("/home/u/.config/fish", "/home/u"));
	ck_assert(learn_components_hold("/a/.config/gh", ".config/gh"));
	ck_assert(!learn_components_hold("/a/x.config/gh", ".config/gh"));
	ck_assert(learn_holds_secret("/home/u/.config"));
	ck_assert(learn_holds_secret("/home/u/.local/share"));
	ck_assert(learn_holds_secret("/home/u/.local"));
	ck_assert(learn_holds_secret("/home/u/.cargo"));
	ck_assert(learn_holds_secret("/home/u/.config/containers"));
	ck_assert(learn_holds_secret("/etc"));
	ck_assert(!learn_holds_secret("/home/u/.config/fish"));
	ck_assert(!learn_holds_secret("/opt/lib"));
}
END_TEST

START_TEST(test_home_trimmed)
{
	char a[] = "/home/u//", b[] = "/", c[] = "/home/u";

	learn_home_trim(a);
	learn_home_trim(b);
	learn_home_trim(c);
	ck_assert_str_eq(a, "/home/u");
	ck_assert_str_eq(b, "/");
	ck_assert_str_eq(c, "/home/u");
}
END_TEST

/* A directory holding a secret, looked up once or where a file was
 * made, is a comment; so are other homes and /home. */
START_TEST(test_profile_dir_holding_secret_commented)
{
	static const char *const homes[] = { "/home", "/home/bob" };
	struct learn_entry e[] = {
		entry(LEARN_READ, "/home/u/.config", "ls", 1, LEARN_HOST_DIR, LEARN_HOST_DIR),
		entry(LEARN_MADE_IN, "/home/u/.local/share", "touch", 1, LEARN_HOST_DIR, LEARN_HOST_DIR),
		entry(LEARN_MADE_IN, "/home/u/proj/out", "touch", 1, LEARN_HOST_DIR, LEARN_HOST_DIR),
		entry(LEARN_READ, "/home", "ls", 1, LEARN_HOST_DIR, LEARN_HOST_DIR),
		entry(LEARN_READ, "/home/bob", "ls", 1, LEARN_HOST_DIR, LEARN_HOST_DIR),
		entry(LEARN_READ, "/opt/mods", "python3", 1, LEARN_HOST_DIR, LEARN_HOST_DIR),
	};
	struct learn_facts f = { .home = "/home/u", .homes = homes, .n_homes = 2,
				 .includes = includes, .n_includes = 1, .entries = e, .n_entries = 6 };
	size_t proposed;
	char *text = profile_of(&f, &proposed);

	ck_assert_uint_eq(proposed, 1);
	ck_assert_ptr_nonnull(strstr(text, "\nro-bind-try /opt/mods /opt/mods "));
	ck_assert_ptr_nonnull(strstr(text, "# not proposed (a directory holding secrets: bind what COMMAND needs in it): ro-bind-try /home/u/.config "));
	ck_assert_ptr_nonnull(strstr(text, "): ro-bind-try /home/u/.local/share "));
	ck_assert_ptr_nonnull(strstr(text, "# not proposed (COMMAND only made or removed"));
	ck_assert_ptr_nonnull(strstr(text, "): ro-bind-try /home/bob /home/bob"));
	free(text);
}
END_TEST

/* The header stays when the first line of its kind is left out. */
START_TEST(test_profile_header_after_covered_line)
{
	struct learn_entry e[] = {
		entry(LEARN_READ, "/opt/a", "sh", 1, LEARN_HOST_DIR, LEARN_HOST_DIR),
		entry(LEARN_READ, "/opt/a/b", "sh", 1, LEARN_HOST_FILE, LEARN_HOST_DIR),
	};
	struct learn_facts f = { .includes = includes, .n_includes = 1, .entries = e,
				 .n_entries = 2 };
	size_t proposed;
	char *text = profile_of(&f, &proposed);

	ck_assert_uint_eq(proposed, 1);
	ck_assert_ptr_nonnull(strstr(text, "\n# missing in the sandbox, there on the host\nro-bind-try /opt/a/b "));
	free(text);
}
END_TEST

/* A name looked up alone: localhost is only a comment. */
START_TEST(test_profile_localhost_commented)
{
	struct learn_net n[] = {
		{ .host = "localhost", .port = 0, .count = 1 },
		{ .host = "db.localhost", .port = 0, .count = 1 },
		{ .host = "example.org", .port = 0, .count = 1 },
	};
	struct learn_facts f = { .includes = includes, .n_includes = 1, .nets = n, .n_nets = 3 };
	size_t proposed;
	char *text = profile_of(&f, &proposed);

	ck_assert_uint_eq(proposed, 1);
	ck_assert_ptr_nonnull(strstr(text, "\n# allow-net localhost    # looked up 1 time: not proposed"));
	ck_assert_ptr_nonnull(strstr(text, "\n# allow-net db.localhost "));
	ck_assert_ptr_nonnull(strstr(text, "\nallow-net example.org "));
	free(text);
}
END_TEST

/* A checkout proposed writable keeps its .git read-only; one whose .git
 * is a link is a comment; a directory holding a FIFO is a comment. */
START_TEST(test_profile_git_and_fifo_dirs)
{
	struct learn_entry e[] = {
		entry(LEARN_WRITE, "/src/proj", "sh", 1, LEARN_HOST_DIR, LEARN_HOST_DIR),
		entry(LEARN_WRITE, "/src/linked", "sh", 1, LEARN_HOST_DIR, LEARN_HOST_DIR),
		entry(LEARN_READ, "/opt/fifos", "ls", 1, LEARN_HOST_DIR, LEARN_HOST_DIR),
		entry(LEARN_READ, "/opt/g/a", "cat", 1, LEARN_HOST_FILE, LEARN_HOST_DIR),
		entry(LEARN_READ, "/opt/g/b", "cat", 1, LEARN_HOST_FILE, LEARN_HOST_DIR),
		entry(LEARN_READ, "/opt/g/c", "cat", 1, LEARN_HOST_FILE, LEARN_HOST_DIR),
	};
	struct learn_facts f = { .includes = includes, .n_includes = 1, .entries = e,
				 .n_entries = 6 };
	size_t proposed;
	char *text;

	e[0].host_flags = LEARN_HOLDS_GIT;
	e[1].host_flags = LEARN_HOLDS_GIT_ODD;
	e[2].host_flags = LEARN_HOLDS_CHANNEL;
	for (int i = 3; i < 6; i++)
		e[i].parent_flags = LEARN_HOLDS_CHANNEL;
	text = profile_of(&f, &proposed);
	ck_assert_uint_eq(proposed, 1);
	ck_assert_ptr_nonnull(strstr(text, "\nbind /src/proj /src/proj    # sh wrote there 1 time\n"
				     "ro-bind-try /src/proj/.git /src/proj/.git    # read-only"));
	ck_assert_ptr_nonnull(strstr(text, "\n# not proposed (its .git is a link or a special file"));
	ck_assert_ptr_nonnull(strstr(text, "): ro-bind-try /opt/fifos /opt/fifos"));
	ck_assert_ptr_nonnull(strstr(text, "): ro-bind-try /opt/g /opt/g"));
	free(text);
}
END_TEST

static Suite *learn_suite(void)
{
	Suite *s = suite_create("learn");
	TCase *tc = tcase_create("core");

	tcase_add_test(tc, test_record_round_trip);
	tcase_add_test(tc, test_record_refused_when_not_whole);
	tcase_add_test(tc, test_path_check);
	tcase_add_test(tc, test_comm_cleaned);
	tcase_add_test(tc, test_normalize);
	tcase_add_test(tc, test_nspid_last);
	tcase_add_test(tc, test_profile_includes_and_one_line_per_need);
	tcase_add_test(tc, test_profile_groups_a_directory);
	tcase_add_test(tc, test_profile_drops_a_lookup_on_the_way);
	tcase_add_test(tc, test_profile_never_groups_home_or_secrets);
	tcase_add_test(tc, test_profile_secret_only_as_comment);
	tcase_add_test(tc, test_profile_calls_commented_nets_exact);
	tcase_add_test(tc, test_profile_limits);
	tcase_add_test(tc, test_unwritable_reasons);
	tcase_add_test(tc, test_secrets_by_component);
	tcase_add_test(tc, test_home_trimmed);
	tcase_add_test(tc, test_profile_git_and_fifo_dirs);
	tcase_add_test(tc, test_profile_header_after_covered_line);
	tcase_add_test(tc, test_profile_localhost_commented);
	tcase_add_test(tc, test_profile_dir_holding_secret_commented);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	return run_suite(learn_suite());
}
