# Violation reports (--report, --report-fd, the summary line, --seccomp-log),
# the policy in words (--explain) and hutch-seccomp with Debian's bwrap.

NONE="--profile none --ro-bind / /"
POLICY=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)/profiles/seccomp/default

# A program that makes refused calls.  calls: bpf, keyctl, ioctl TIOCSTI,
# each result on a line, then its pid; flood N [CALL]: N refused calls of
# CALL, one of those (bpf by default; N = 0: forever, on 4 threads), then
# the time it ended; handover: sendmsg and seccomp, the calls that carry
# the listener to hutch; reaches CALL: whether CALL reaches a seccomp
# filter of its own that notifies a listener ("CALL reaches"), or a
# filter before it refuses the call ("CALL refused before").
build_refuse() {
	cat > "$T/refuse.c" <<'EOF'
#define _GNU_SOURCE
#include <errno.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static void show(const char *name, long rc)
{
	printf("%s %ld %s\n", name, rc, rc < 0 ? strerrorname_np(errno) : "-");
}

static const char *flood_call = "bpf";

/* One refused call: bpf, keyctl or ioctl TIOCSTI. */
static long call(const char *name)
{
	char c = 'x';

	if (strcmp(name, "keyctl") == 0)
		return syscall(SYS_keyctl, 0, 0, 0);
	if (strcmp(name, "ioctl") == 0)
		return ioctl(0, TIOCSTI, &c);
	return syscall(SYS_bpf, 0, 0, 0);
}

static void *flood_forever(void *arg)
{
	for (;;)
		call(arg);
	return NULL;
}

static int reaches(const char *name)
{
	long nr = strcmp(name, "keyctl") == 0 ? SYS_keyctl :
		  strcmp(name, "ioctl") == 0 ? SYS_ioctl : SYS_bpf;
	struct sock_filter f[] = {
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, nr)),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, (unsigned)nr, 0, 1),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_USER_NOTIF),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
	};
	struct sock_fprog prog = { sizeof f / sizeof f[0], f };
	struct pollfd p[2];
	int listener, child;
	pid_t pid;

	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) < 0 ||
	    (listener = syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER,
				SECCOMP_FILTER_FLAG_NEW_LISTENER, &prog)) < 0)
		return perror("seccomp"), 2;
	pid = fork();
	if (pid == 0) {
		call(name);
		_exit(0);
	}
	/* Notified, the child waits for an answer; refused, it exits. */
	child = syscall(SYS_pidfd_open, pid, 0);
	p[0] = (struct pollfd){ .fd = listener, .events = POLLIN };
	p[1] = (struct pollfd){ .fd = child, .events = POLLIN };
	if (child < 0 || poll(p, 2, 10000) <= 0)
		return perror("poll"), 2;
	printf("%s %s\n", name, p[0].revents & POLLIN ? "reaches" : "refused before");
	kill(pid, SIGKILL);
	waitpid(pid, NULL, 0);
	return 0;
}

int main(int argc, char **argv)
{
	const char *mode = argc > 1 ? argv[1] : "calls";
	char c = 'x';

	if (strcmp(mode, "reaches") == 0)
		return reaches(argv[2]);
	if (strcmp(mode, "flood") == 0 && argc > 3)
		flood_call = argv[3];
	if (strcmp(mode, "flood") == 0 && atol(argv[2]) == 0) {
		pthread_t t;
		for (int i = 0; i < 3; i++)
			pthread_create(&t, NULL, flood_forever, (void *)flood_call);
		flood_forever((void *)flood_call);
	}
	if (strcmp(mode, "flood") == 0) {
		struct timespec done;
		for (long i = atol(argv[2]); i > 0; i--)
			call(flood_call);
		clock_gettime(CLOCK_REALTIME, &done);
		printf("%lld.%09ld\n", (long long)done.tv_sec, done.tv_nsec);
		return 0;
	}
	if (strcmp(mode, "handover") == 0) {
		show("sendmsg", syscall(SYS_sendmsg, -1, NULL, 0));
		show("seccomp", syscall(SYS_seccomp, 0xbad, 0, NULL));
	}
	show("bpf", syscall(SYS_bpf, 0, 0, 0));
	show("keyctl", syscall(SYS_keyctl, 0, 0, 0));
	show("ioctl", ioctl(0, TIOCSTI, &c));
	printf("pid %d\n", (int)getpid());
	return 0;
}
EOF
	gcc -std=gnu11 -O2 -Wall -Wextra -Werror -pthread -o "$T/refuse" "$T/refuse.c"
	mkdir -m 0777 "$T/out"
}

# The line of the default policy that holds PATTERN, as FILE:LINE.
policy_line() {
	echo "default:$(grep -n -- "$1" "$POLICY" | head -1 | cut -d: -f1)"
}

# One report line: the refusal of SYSCALL with ERRNO by RULE, from PID.
assert_event() {
	local line=$1 syscall=$2 errno=$3 rule=$4 pid=$5 what=$6
	assert_match '^\{"time":"[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}\.[0-9]{6}Z","pid_inside":'"$pid"',"pid_outside":[1-9][0-9]*,"command":"refuse","syscall":"'"$syscall"'","nr":[0-9]+,"args":\["0x[0-9a-f]+"(,"0x[0-9a-f]+"){5}\],"errno":"'"$errno"'","rule":"'"$rule"'"\}$' \
		"$line" "$what"
	if command -v jq >/dev/null; then
		printf '%s\n' "$line" | jq -e . >/dev/null || fail "$what: not JSON: $line"
	fi
}

# ---- what reaches hutch's filter here ----

# A filter of the machine's (a container engine's seccomp profile) may
# refuse a call before hutch's does: a refusal with an errno outranks the
# notification hutch's filter asks for, so hutch never sees the call and
# writes no event.  derive_reach, as $AS: REACH, the calls of "refuse
# calls" that reach a notifying filter (refuse reaches); N of them, the
# FIRST; SAW, what "refuse calls" prints under hutch: the default
# policy's errno for those, for the others what they give outside hutch;
# SAW_STRICT, the same under the strict policy (EPERM).
derive_reach() {
	local c outside
	REACH="" SAW="" SAW_STRICT=""
	outside=$($AS "$T/refuse" calls </dev/null)
	for c in bpf keyctl ioctl; do
		if [ "$($AS "$T/refuse" reaches $c </dev/null)" = "$c reaches" ]; then
			REACH="$REACH $c"
			SAW+="$c -1 $(rule_of $c errno)"$'\n'
			SAW_STRICT+="$c -1 EPERM"$'\n'
		else
			SAW+="$(grep "^$c " <<<"$outside")"$'\n'
			SAW_STRICT+="$(grep "^$c " <<<"$outside")"$'\n'
		fi
	done
	REACH=${REACH# }
	N=$(wc -w <<<"$REACH")
	[ "$N" -gt 0 ] || skip "none of bpf, keyctl and ioctl TIOCSTI reaches a filter of its own" \
		"here: a filter of the machine's refuses each first"
	FIRST=${REACH%% *}
	[ "$N" = 3 ] || echo "    note: only $REACH reach hutch's filter here ($AS): a filter" \
		"of the machine's refuses the others first" >&2
}

# rule_of CALL errno|rule: the default policy's errno for CALL, or a
# pattern of its line.
rule_of() {
	case $1:$2 in
	bpf:errno | ioctl:errno) echo EPERM ;;
	keyctl:errno) echo ENOSYS ;;
	bpf:rule) echo 'deny bpf' ;;
	keyctl:rule) echo 'deny keyctl' ;;
	ioctl:rule) echo '== TIOCSTI' ;;
	esac
}

# refused N: hutch's words for N refusals.
refused() { if [ "$1" = 1 ]; then echo "1 action refused"; else echo "$1 actions refused"; fi; }

check_report_lists_each_refusal() {
	local out report=$T/out/report.json i=0 c
	rm -f "$report"
	derive_reach
	out=$($AS "$H" $NONE --report "$report" "$T/refuse" calls </dev/null 2>"$T/err")
	assert_eq "${SAW}pid 2" "$out" "what the program saw"
	assert_eq "$N" "$(wc -l < "$report")" "one event for each of $REACH"
	for c in $REACH; do
		i=$((i + 1))
		assert_event "$(sed -n ${i}p "$report")" $c "$(rule_of $c errno)" \
			"$(policy_line "$(rule_of $c rule)")" 2 "$c"
		[ $c != ioctl ] || assert_match '"args":\["0x0","0x5412",' "$(sed -n ${i}p "$report")" \
			"TIOCSTI in the arguments"
	done
	assert_match "^hutch: $(refused $N) \(see $report\)$" "$(cat "$T/err")" "summary"
}
test_report_lists_each_refusal() { build_refuse; for_each_caller check_report_lists_each_refusal; }

# With --as-pid-1, COMMAND is pid 1 inside and --info-fd names its pid
# outside: both pids of the report can be checked.
check_report_pids() {
	local report=$T/out/pids.json child
	rm -f "$report"
	$AS "$H" $NONE --as-pid-1 --info-fd 3 --report "$report" "$T/refuse" calls \
		</dev/null 3>"$T/out/info.json" >/dev/null 2>&1
	child=$(grep -o '"child-pid": *[0-9]*' "$T/out/info.json" | grep -o '[0-9]*$')
	[ -n "$child" ] || fail "no child-pid in --info-fd"
	derive_reach
	assert_eq $N "$(grep -c "\"pid_inside\":1,\"pid_outside\":$child," "$report")" "pids inside and outside"
}
test_report_pids() { build_refuse; for_each_caller check_report_pids; }

check_report_fd() {
	local out
	derive_reach
	out=$($AS "$H" $NONE --report-fd 3 "$T/refuse" calls 3>&1 >/dev/null </dev/null 2>"$T/err" | cat)
	assert_eq $N "$(printf '%s\n' "$out" | grep -c '"command":"refuse"')" "$N events through a pipe"
	assert_match "^hutch: $(refused $N) \(see fd 3\)$" "$(cat "$T/err")" "summary"
}
test_report_fd() { build_refuse; for_each_caller check_report_fd; }

check_summary_without_report() {
	local rc=0
	derive_reach
	$AS "$H" $NONE "$T/refuse" calls </dev/null >/dev/null 2>"$T/err" || rc=$?
	assert_eq 0 "$rc" "exit status"
	assert_eq "hutch: $(refused $N) by the seccomp policy (first: $FIRST, $(policy_line "$(rule_of $FIRST rule)")); use --report FILE for details" \
		"$(cat "$T/err")" "summary"
	$AS "$H" $NONE "$T/refuse" flood 1 $FIRST </dev/null >/dev/null 2>"$T/err"
	assert_eq "hutch: 1 action refused by the seccomp policy (first: $FIRST, $(policy_line "$(rule_of $FIRST rule)")); use --report FILE for details" \
		"$(cat "$T/err")" "one refusal"
	$AS "$H" $NONE true 2>"$T/err"
	assert_eq "" "$(cat "$T/err")" "nothing refused, nothing said"
}
test_summary_without_report() { build_refuse; for_each_caller check_summary_without_report; }

check_report_file_errors() {
	local rc=0
	$AS "$H" $NONE --report /nonexistent/report.json true 2>"$T/err" || rc=$?
	assert_eq 125 "$rc" "exit status"
	assert_eq "hutch: report: /nonexistent/report.json: No such file or directory" "$(cat "$T/err")" "message"
	rc=0
	$AS "$H" $NONE --report-fd 7 true 2>"$T/err" 7</dev/null || rc=$?
	assert_eq 125 "$rc" "read-only fd"
	assert_eq "hutch: report: fd 7: Bad file descriptor" "$(cat "$T/err")" "message"
}
test_report_file_errors() { for_each_caller check_report_file_errors; }

# 100000 refusals: hutch answers each, writes a rate-limited share of them
# and counts the rest, and exits no later than a second after the program
# ended, beyond what the same run without --report takes: the program
# says when it ended, and the delay to hutch's exit is measured from there
# (the run itself, the same work with or without --report, can take longer
# when other work keeps the machine busy).
flood_exit_delay() {
	local ended exited
	ended=$($AS "$H" $NONE "$@" "$T/refuse" flood 100000 $FIRST </dev/null 2>"$T/flood-err") ||
		fail "flood run failed"
	exited=$(now)
	awk -v a="$ended" -v b="$exited" 'BEGIN { print b - a }'
}

check_flood() {
	local report=$T/out/flood.json plain with events last dropped start took
	rm -f "$report"
	derive_reach
	plain=$(flood_exit_delay)
	start=$(now)
	with=$(flood_exit_delay --report "$report")
	took=$(awk -v a="$start" -v b="$(now)" 'BEGIN { print b - a }')
	less_than "$with" "$(awk -v p="$plain" 'BEGIN { print p + 1 }')" ||
		fail "exit ${with}s after the flood with --report, ${plain}s without"
	assert_match "^hutch: 100000 actions refused \(see $report\)$" "$(cat "$T/flood-err")" "summary"
	events=$(grep -c "\"syscall\":\"$FIRST\"" "$report")
	last=$(tail -1 "$report")
	assert_match '^\{"time":"[^"]*","refused":100000,"dropped":[0-9]+,"reason":"more than 100 lines a second"\}$' "$last" "final count"
	dropped=$(printf '%s' "$last" | grep -o '"dropped":[0-9]*' | cut -d: -f2)
	assert_eq 100000 "$((events + dropped))" "events written and dropped"
	[ "$events" -ge 100 ] || fail "only $events events written"
	less_than "$events" "$(awk -v w="$took" 'BEGIN { print 100 + 100 * w + 1 }')" ||
		fail "$events lines in ${took}s: not rate-limited"
}
test_flood() { build_refuse; for_each_caller check_flood; }

# Four threads refusing calls as fast as they can must not hold up the
# timeout or the teardown that follows it.
check_flood_teardown() {
	local rc=0 start took
	rm -f "$T/out/forever.json"
	derive_reach
	start=$(now)
	$AS "$H" $NONE --report "$T/out/forever.json" --timeout 0.5 --kill-after 0.5 \
		"$T/refuse" flood 0 $FIRST </dev/null 2>"$T/err" || rc=$?
	took=$(seconds_since "$start")
	assert_eq 124 "$rc" "stopped by the timeout ($(cat "$T/err"))"
	less_than "$took" 3 || fail "exit took ${took}s"
	assert_match "^hutch: [0-9]+ actions refused \(see $T/out/forever.json\)" "$(cat "$T/err")" "summary"
}
test_flood_teardown() { build_refuse; for_each_caller check_flood_teardown; }

# Only one listener per filter chain: a hutch inside hutch warns and lets
# the kernel log its refusals.  The outer sandbox allows the mount calls
# (see "Nesting" in the default policy); for root it runs as uid 1000,
# since mapping uid 0 in the inner user namespace needs CAP_SETFCAP.
NEST="--seccomp-allow mount --seccomp-allow umount2 --seccomp-allow pivot_root
 --seccomp-allow chroot --seccomp-allow fsopen --seccomp-allow fsconfig
 --seccomp-allow fsmount --seccomp-allow fspick --seccomp-allow open_tree
 --seccomp-allow move_mount --seccomp-allow mount_setattr"

# Where the outer /proc is the caller's (a fresh procfs refused), it is
# read-only, and the inner hutch cannot write its child's id maps.
check_nested() {
	local out ids=""
	have_fresh_procfs || skip "$WHY: the outer sandbox's /proc is then read-only, and the inner" \
		"hutch cannot write its child's id maps there"
	no_nesting_here && { skip_part "$WHY"; return 0; }
	[ "$AS" = as_root ] && ids="--uid 1000 --gid 1000"
	rm -f "$T/out/inner.json"
	derive_reach
	out=$($AS "$H" $NONE $ids --proc /proc --tmpfs /tmp --ro-bind "$T" "$T" --bind "$T/out" "$T/out" $NEST \
		"$H" $NONE --report "$T/out/inner.json" "$T/refuse" calls </dev/null 2>"$T/err")
	assert_eq "${SAW}pid 2" "$out" "the inner policy still refuses"
	assert_eq "hutch: report: a seccomp listener already exists (nested sandbox?): refused calls are logged by the kernel instead" \
		"$(grep -v '^hutch: limits' "$T/err")" "warning"
	assert_eq 0 "$(wc -c < "$T/out/inner.json")" "no events without a listener"
}
test_nested_hutch_warns() { build_refuse; for_each_caller check_nested; }

# The kernel's log (root only: dmesg is restricted) has the refusal of a
# program with a name of its own with --seccomp-log, and none of another
# without it, logged first: the log is in order, so once the second line
# is there, the first would be too.  dmesg --follow waits for it.
test_seccomp_log() {
	local follower found=0
	dmesg >/dev/null 2>&1 || skip "no kernel log to read"
	build_refuse
	cp "$T/refuse" "$T/rnolog$$"
	cp "$T/refuse" "$T/rlog$$"
	"$H" $NONE "$T/rnolog$$" flood 1 >/dev/null 2>&1
	"$H" $NONE --seccomp-log "$T/rlog$$" flood 1 >/dev/null 2>&1
	exec 9< <(exec timeout 10 dmesg --follow)
	follower=$!
	grep -m1 -q "comm=\"rlog$$\".* syscall=321 " <&9 && found=1
	exec 9<&-
	kill "$follower" 2>/dev/null || true
	wait "$follower" 2>/dev/null || true
	[ "$found" = 1 ] || fail "bpf refusal not logged with --seccomp-log"
	! dmesg | grep -q "comm=\"rnolog$$\"" || fail "logged without --seccomp-log"
}

# sendmsg and seccomp carry the listener to hutch: refused by a policy,
# they are refused by the kernel directly (not reported), and never wait.
check_handover_calls() {
	local out
	rm -f "$T/out/strict.json"
	derive_reach
	out=$($AS "$H" $NONE --seccomp-policy strict --report "$T/out/strict.json" "$T/refuse" handover </dev/null 2>"$T/err")
	assert_eq "sendmsg -1 EPERM
seccomp -1 EPERM
${SAW_STRICT}pid 2" "$out" "strict refuses them all"
	assert_eq $N "$(grep -c '"command":"refuse","syscall":"[a-z]*",.*"rule":"strict:' "$T/out/strict.json")" "events"
	assert_no_match '"syscall":"(sendmsg|seccomp)"' "$(cat "$T/out/strict.json")" "hand-over calls"
}
test_handover_calls() { build_refuse; for_each_caller check_handover_calls; }

test_explain_lists_rules() {
	local out
	out=$("$H" --seccomp-policy default --seccomp-allow keyctl --seccomp-deny chmod:EACCES --explain true)
	assert_match "^  any syscall not named below: allowed \(default:[0-9]+\)$" "$out" "default"
	assert_match "^  bpf: refused with EPERM \(Operation not permitted\) \($(policy_line 'deny bpf')\)$" "$out" "bpf"
	assert_match "^  ioctl: allowed \(default:[0-9]+\), but refused with EPERM \(Operation not permitted\) when arg1 & 0xffffffff == 0x5412 \($(policy_line '== TIOCSTI')\)" "$out" "ioctl"
	assert_match "^  chmod: refused with EACCES \(Permission denied\) \(command line\)$" "$out" "command line"
	assert_no_match "^  keyctl" "$out" "allowed on the command line"
	out=$("$H" --seccomp-policy none --explain true)
	assert_match "^  every syscall: allowed, no filter is loaded" "$out" "none"
}

# --explain=json says the same as the words: each syscall with its
# action, errno, source line and conditional exceptions.
explain_json_seccomp() {
	"$H" --seccomp-policy default --seccomp-allow keyctl --seccomp-deny chmod:EACCES \
		--explain=json true | python3 -c '
import json, sys
sc = json.load(sys.stdin)["seccomp"]
by = {s["syscall"]: s for s in sc["syscalls"]}
ioctl = by["ioctl"]["exceptions"][0]
print(sc["filter"], sc["default"]["action"], sc["other-abis"])
print(by["bpf"]["action"], by["bpf"]["errno"], by["bpf"]["source"])
print(by["chmod"]["errno"], by["chmod"]["source"], "keyctl" in by)
print(ioctl["action"], ioctl["errno"], ioctl["arg"], ioctl["mask"], int(ioctl["value"], 16))'
}
test_explain_json_lists_rules() {
	assert_eq "True allow kill-process
deny EPERM $(policy_line 'deny bpf')
EACCES command line False
deny EPERM 1 0xffffffff $(printf '%d' 0x5412)" "$(explain_json_seccomp)" "--explain=json seccomp"
}

# hutch-seccomp's program, passed to Debian's bwrap with --seccomp, refuses
# what hutch's policy refuses, with the same errnos.
hutch_seccomp_bin() {
	local dir c
	dir=$(dirname "$HUTCH")
	for c in "${HUTCH_SECCOMP:-}" "$dir/build/hutch-seccomp" "$dir/hutch-seccomp" "$dir/../hutch-seccomp"; do
		[ -n "$c" ] && [ -x "$c" ] && { echo "$c"; return; }
	done
}

check_bwrap_seccomp() {
	local out
	have_debian_bwrap || { skip_part "$WHY"; return 0; }
	out=$($AS /usr/bin/bwrap --unshare-user --ro-bind / / --seccomp 3 "$T/refuse" calls 3<"$T/default.bpf" </dev/null)
	assert_eq "bpf -1 EPERM
keyctl -1 ENOSYS
ioctl -1 EPERM" "$(printf '%s\n' "$out" | head -3)" "refused under bwrap"
	out=$($AS /usr/bin/bwrap --unshare-user --ro-bind / / "$T/refuse" calls </dev/null)
	assert_no_match "keyctl -1 ENOSYS|ioctl -1 EPERM" "$out" "not refused without it"
}

test_hutch_seccomp_with_bwrap() {
	local bin
	[ -x /usr/bin/bwrap ] || skip "no /usr/bin/bwrap"
	bin=$(hutch_seccomp_bin)
	[ -n "$bin" ] || skip "no hutch-seccomp beside $HUTCH"
	build_refuse
	"$bin" default "$T/default.bpf" || fail "hutch-seccomp default"
	[ -s "$T/default.bpf" ] && [ $(($(wc -c < "$T/default.bpf") % 8)) = 0 ] || fail "not a BPF program"
	for_each_caller check_bwrap_seccomp
	! "$bin" nosuch "$T/x.bpf" 2>"$T/err" || fail "unknown policy accepted"
	assert_eq "hutch-seccomp: seccomp: nosuch: no such shipped policy" "$(cat "$T/err")" "message"
}

# bwrap mode: no policy, no reports, nothing said.
check_bwrap_mode_unchanged() {
	$AS "$T/bwrap" --unshare-user --ro-bind / / "$T/refuse" calls </dev/null >/dev/null 2>"$T/err"
	assert_eq "" "$(cat "$T/err")" "stderr"
}
test_bwrap_mode_unchanged() { build_refuse; for_each_caller check_bwrap_mode_unchanged; }
