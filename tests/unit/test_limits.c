/* Unit tests of the pure parts of the limits (limits_text.c): where the sandbox's
 * cgroup goes (from /proc/self/cgroup and mountinfo texts), controller
 * lists, memory.events / pids.events, the names of left-over cgroups,
 * cpu.max, uid maps and how limits are written in messages. */
#define _GNU_SOURCE
#include <check.h>

#include "run_suite.h"
#include <limits.h>
#include <stdio.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/types.h>

#include "limits/limits.h"
#include "limits/limits_text.h"

/* This machine's layout: v1 controllers and cgroup2 beside them. */
static const char hybrid_mountinfo[] =
	"30 22 0:27 / /sys/fs/cgroup rw,relatime - tmpfs tmpfs rw,mode=755\n"
	"34 30 0:31 / /sys/fs/cgroup/memory rw,relatime - cgroup cgroup rw,memory\n"
	"38 30 0:35 / /sys/fs/cgroup/pids rw,relatime - cgroup cgroup rw,pids\n"
	"40 30 0:37 / /sys/fs/cgroup/unified rw,relatime - cgroup2 cgroup2 rw\n";

/* A systemd machine, seen from a container whose cgroup2 mount root is
 * its own delegated subtree; a space in a path is escaped. */
static const char nested_mountinfo[] =
	"21 1 0:19 / / rw shared:1 - ext4 /dev/sda1 rw\n"
	"25 21 0:22 /user.slice/user-1000.slice/user@1000.service /sys/fs/cgroup "
	"rw,nosuid shared:4 - cgroup2 cgroup2 rw,nsdelegate\n";

static const char escaped_mountinfo[] =
	"25 21 0:22 / /mnt/my\\040cgroups rw shared:4 - cgroup2 none rw\n";

START_TEST(cgroup2_path_from_proc)
{
	char path[PATH_MAX];

	ck_assert_int_eq(limits_cgroup2_path("9:name=systemd:/\n4:memory:/x\n0::/\n", path,
					     sizeof(path)), 0);
	ck_assert_str_eq(path, "/");
	ck_assert_int_eq(limits_cgroup2_path("0::/user.slice/a b.scope\n", path, sizeof(path)), 0);
	ck_assert_str_eq(path, "/user.slice/a b.scope");
	/* cgroup v1 only: no "0::" line. */
	ck_assert_int_eq(limits_cgroup2_path("4:memory:/x\n1:cpu:/\n", path, sizeof(path)), -1);
	ck_assert_int_eq(limits_cgroup2_path("", path, sizeof(path)), -1);
	/* Too long for the buffer: refused, not cut. */
	ck_assert_int_eq(limits_cgroup2_path("0::/abcdefgh\n", path, 8), -1);
}
END_TEST

static char mnt[PATH_MAX];

/* limits_cgroup_dir's directory (its mount point in mnt), or "error N". */
static const char *dir_of(const char *mountinfo, const char *path)
{
	static char dir[PATH_MAX], err[32];
	int r = limits_cgroup_dir(mountinfo, path, dir, sizeof(dir), mnt, sizeof(mnt));

	if (r == 0)
		return dir;
	snprintf(err, sizeof(err), "error %d", r);
	return err;
}

START_TEST(cgroup_dir_hybrid)
{
	ck_assert_str_eq(dir_of(hybrid_mountinfo, "/"), "/sys/fs/cgroup/unified");
	ck_assert_str_eq(mnt, "/sys/fs/cgroup/unified");
	ck_assert_str_eq(dir_of(hybrid_mountinfo, "/a/b"), "/sys/fs/cgroup/unified/a/b");
}
END_TEST

START_TEST(cgroup_dir_below_mount_root)
{
	const char *home = "/user.slice/user-1000.slice/user@1000.service";

	ck_assert_str_eq(dir_of(nested_mountinfo, "/user.slice/user-1000.slice/user@1000.service"
				"/app.slice/x.scope"), "/sys/fs/cgroup/app.slice/x.scope");
	ck_assert_str_eq(mnt, "/sys/fs/cgroup");
	ck_assert_str_eq(dir_of(nested_mountinfo, home), "/sys/fs/cgroup");
	/* Outside the mount's root, and a mere prefix of a name: not shown. */
	ck_assert_str_eq(dir_of(nested_mountinfo, "/system.slice"), "error -2");
	ck_assert_str_eq(dir_of(nested_mountinfo, "/user.slice/user-1000.slice/user@1000.services"),
			 "error -2");
}
END_TEST

START_TEST(cgroup_dir_no_cgroup2)
{
	const char v1_only[] =
		"34 30 0:31 / /sys/fs/cgroup/memory rw - cgroup cgroup rw,memory\n"
		"41 30 0:38 / /mnt/cgroup2ish rw - tmpfs cgroup2 rw\n";

	ck_assert_str_eq(dir_of(v1_only, "/"), "error -1");
	ck_assert_str_eq(dir_of("", "/"), "error -1");
}
END_TEST

START_TEST(cgroup_dir_unescapes)
{
	ck_assert_str_eq(dir_of(escaped_mountinfo, "/x"), "/mnt/my cgroups/x");
}
END_TEST

START_TEST(controller_lists)
{
	unsigned memory = limits_controller_bits("memory");
	unsigned cpu = limits_controller_bits("cpu");
	unsigned pids = limits_controller_bits("pids");

	ck_assert_uint_ne(memory, 0);
	ck_assert_uint_ne(cpu, 0);
	ck_assert_uint_ne(pids, 0);
	ck_assert_uint_eq(limits_controller_bits("hugetlb\n"), 0);
	ck_assert_uint_eq(limits_controller_bits(""), 0);
	ck_assert_uint_eq(limits_controller_bits("cpuset cpu io memory hugetlb pids rdma misc\n"),
			  memory | cpu | pids);
	/* Whole words only: cpuset is not cpu. */
	ck_assert_uint_eq(limits_controller_bits("cpuset memory_x\n"), 0);
}
END_TEST

START_TEST(events)
{
	const char mem[] = "low 0\nhigh 0\nmax 12\noom 2\noom_kill 1\noom_group_kill 0\n";

	ck_assert_int_eq(limits_event_count(mem, "oom_kill"), 1);
	ck_assert_int_eq(limits_event_count(mem, "oom"), 2);
	ck_assert_int_eq(limits_event_count(mem, "max"), 12);
	ck_assert_int_eq(limits_event_count("max 0\n", "max"), 0);
	ck_assert_int_eq(limits_event_count("max 7", "max"), 7);
	ck_assert_int_eq(limits_event_count(mem, "oom_kil"), -1);
	ck_assert_int_eq(limits_event_count("", "max"), -1);
}
END_TEST

START_TEST(owner_of_left_over_cgroups)
{
	ck_assert_int_eq(limits_cgroup_owner("hutch-1234-00af"), 1234);
	ck_assert_int_eq(limits_cgroup_owner("hutch-2147483647-0000"), 2147483647);
	ck_assert_int_eq(limits_cgroup_owner("hutch-2147483648-0000"), 0);
	ck_assert_int_eq(limits_cgroup_owner("hutch-0-0000"), 0);
	ck_assert_int_eq(limits_cgroup_owner("hutch-12-00AF"), 0);
	ck_assert_int_eq(limits_cgroup_owner("hutch-12-000"), 0);
	ck_assert_int_eq(limits_cgroup_owner("hutch-12-00000"), 0);
	ck_assert_int_eq(limits_cgroup_owner("hutch--12-0000"), 0);
	ck_assert_int_eq(limits_cgroup_owner("user.slice"), 0);
	ck_assert_int_eq(limits_cgroup_owner("hutch-12"), 0);
	/* the supervisor's own leaf in a delegated scope */
	ck_assert_int_eq(limits_cgroup_owner("hutch-1234-self"), 1234);
	ck_assert_int_eq(limits_cgroup_owner("hutch-1234-selfx"), 0);
}
END_TEST

START_TEST(cpu_max)
{
	char buf[64];

	limits_cpu_max(0.5, buf, sizeof(buf));
	ck_assert_str_eq(buf, "50000 100000");
	limits_cpu_max(2, buf, sizeof(buf));
	ck_assert_str_eq(buf, "200000 100000");
	/* The kernel refuses a quota under 1ms. */
	limits_cpu_max(0.001, buf, sizeof(buf));
	ck_assert_str_eq(buf, "1000 100000");
}
END_TEST

START_TEST(uid_maps)
{
	const char init[] = "         0          0 4294967295\n";
	const char container[] = "0 100000 65536\n";
	const char two[] = "0 1000 1\n1 100000 65535\n";

	ck_assert_int_eq(limits_map_uid(init, 0), 0);
	ck_assert_int_eq(limits_map_uid(init, 65534), 65534);
	ck_assert_int_eq(limits_map_uid(container, 0), 100000);
	ck_assert_int_eq(limits_map_uid(container, 65536), -1);
	ck_assert_int_eq(limits_map_uid(two, 0), 1000);
	ck_assert_int_eq(limits_map_uid(two, 2), 100001);
	ck_assert_int_eq(limits_map_uid("", 0), -1);
}
END_TEST

START_TEST(formats)
{
	char buf[32];

	limits_format_bytes(512ULL << 20, buf, sizeof(buf));
	ck_assert_str_eq(buf, "512M");
	limits_format_bytes(3ULL << 30, buf, sizeof(buf));
	ck_assert_str_eq(buf, "3G");
	limits_format_bytes(1536, buf, sizeof(buf));
	ck_assert_str_eq(buf, "1536");
	limits_format_bytes(0, buf, sizeof(buf));
	ck_assert_str_eq(buf, "0");
	limits_format_bytes(RLIM_INFINITY, buf, sizeof(buf));
	ck_assert_str_eq(buf, "unlimited");
	limits_format_rlimit(RLIMIT_CPU, 10, buf, sizeof(buf));
	ck_assert_str_eq(buf, "10s");
	limits_format_rlimit(RLIMIT_NOFILE, 1024, buf, sizeof(buf));
	ck_assert_str_eq(buf, "1024");
	limits_format_rlimit(RLIMIT_FSIZE, 4096, buf, sizeof(buf));
	ck_assert_str_eq(buf, "4K");
	ck_assert_str_eq(limits_rlimit_name(RLIMIT_NOFILE), "nofile");
	ck_assert_str_eq(limits_rlimit_name(RLIMIT_AS), "as");
}
END_TEST

static Suite *limits_suite(void)
{
	Suite *s = suite_create("limits");
	TCase *tc = tcase_create("pure");

	tcase_add_test(tc, cgroup2_path_from_proc);
	tcase_add_test(tc, cgroup_dir_hybrid);
	tcase_add_test(tc, cgroup_dir_below_mount_root);
	tcase_add_test(tc, cgroup_dir_no_cgroup2);
	tcase_add_test(tc, cgroup_dir_unescapes);
	tcase_add_test(tc, controller_lists);
	tcase_add_test(tc, events);
	tcase_add_test(tc, owner_of_left_over_cgroups);
	tcase_add_test(tc, cpu_max);
	tcase_add_test(tc, uid_maps);
	tcase_add_test(tc, formats);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	return run_suite(limits_suite());
}
