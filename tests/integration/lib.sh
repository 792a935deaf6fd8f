# Helpers for the integration tests.  Each t_*.sh file defines functions
# named test_*; `run` calls each in a subshell with set -e (and
# inherit_errexit) and counts the results.  A test fails by a failed
# step, a non-zero status or fail, and skips by calling skip with the
# reason.  A test runs its checks (check_*, once per caller) through
# for_each_caller or run_check, on lines of their own: see run_check for
# why never inside ||, && or if.

NOBODY=65534
INTEGRATION_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
HUTCH=${HUTCH:?HUTCH must name the hutch binary}
HUTCH_FAULT_BIN=${HUTCH_FAULT_BIN:-}

fail() { echo "    FAIL: $*" >&2; exit 1; }
skip() { echo "    SKIP: $*" >&2; exit 77; }

# assert_eq EXPECTED ACTUAL WHAT
assert_eq() {
	[ "$1" = "$2" ] || fail "$3: expected [$1], got [$2]"
}
# assert_match REGEX TEXT WHAT
assert_match() {
	printf '%s' "$2" | grep -Eq -- "$1" || fail "$3: [$2] does not match /$1/"
}
assert_no_match() {
	! printf '%s' "$2" | grep -Eq -- "$1" || fail "$3: [$2] matches /$1/"
}

# A scratch directory readable by the unprivileged uid, with a copy of
# the binaries it can execute.  Everything a test makes goes in $T.  It
# lasts as long as the test's shell: a check's EXIT trap (run_check runs
# checks in subshells) cleans up after the check, not the scratch.
setup_scratch() {
	T=$(mktemp -d /tmp/hutch-test.XXXXXX)
	SCRATCH_OWNER=$BASHPID
	chmod 0755 "$T"
	cp "$HUTCH" "$T/hutch"
	chmod 0755 "$T/hutch"
	ln -s hutch "$T/bwrap"
	if [ -n "$HUTCH_FAULT_BIN" ]; then
		cp "$HUTCH_FAULT_BIN" "$T/hutch-fault"
		chmod 0755 "$T/hutch-fault"
	fi
	mkdir "$T/work"
	chmod 0755 "$T/work"
	H="$T/hutch"
}

need_fault_build() {
	[ -x "$T/hutch-fault" ] ||
		skip "no fault-injection build (set HUTCH_FAULT_BIN to build/hutch-fault)"
}

cleanup_scratch() {
	[ "$BASHPID" = "${SCRATCH_OWNER:-}" ] || return 0
	[ -n "${T:-}" ] && rm -rf "$T"
}

# as_user CMD...: run CMD as the unprivileged uid, from $T/work.
as_user() { user_argv; (cd "$T/work" && "${USER_ARGV[@]}" "$@"); }
# user_argv: as_user's command line before CMD, in USER_ARGV.
user_argv() {
	USER_ARGV=(setpriv --reuid=$NOBODY --regid=$NOBODY --clear-groups
		env -i PATH=/usr/bin:/bin HOME=/nonexistent USER=nobody $(sanitizer_env))
}
# as_root CMD...: the same as root, from $T/work.
as_root() {
	(cd "$T/work" && env -i PATH=/usr/bin:/bin:/usr/sbin:/sbin HOME=/root USER=root $(sanitizer_env) "$@")
}

# from DIR CMD...: CMD as $AS, started in DIR.
from() { $AS sh -c 'cd "$0" && exec "$@"' "$@"; }

# caller_uid: the uid $AS runs as.
caller_uid() { if [ "${AS:-}" = as_user ]; then echo $NOBODY; else echo 0; fi; }

# shared_dir: an empty $T/s, owned by $AS's uid, for fifos, sockets and
# files both sides use (bound at /s).
shared_dir() {
	rm -rf "$T/s"
	mkdir -m 0755 "$T/s"
	chown "$(caller_uid):$(caller_uid)" "$T/s"
}

# build_tool NAME [GCC ARGS...]: tests/integration/tool_NAME.c, compiled
# into $T/NAME (once per test).
build_tool() {
	local name=$1
	shift
	[ -x "$T/$name" ] ||
		gcc -std=gnu11 -O2 -Wall -Wextra -Werror -o "$T/$name" "$INTEGRATION_DIR/tool_$name.c" "$@" ||
		fail "cannot build tool_$name.c"
}

# A project directory, $T/work/proj, writable by both callers.
make_project() {
	mkdir -p "$T/work/proj"
	chmod -R a+rwX "$T/work/proj"
}
# in_project CMD...: CMD as $AS, started in the project directory.
in_project() { from "$T/work/proj" "$@"; }

# Every option that takes an fd but --listen-fds (which takes LISTEN_FDS),
# with a number for it and its other argument: the numbers the issue saw
# reach one of hutch's own fds when the caller never opened them (the log
# pipe was 7, an O_PATH of the host's root 9).  Both modes, then hutch's.
FD_OPTIONS=(
	"bind-fd 9 /x" "ro-bind-fd 9 /x" "block-fd 4" "sync-fd 7" "file 7 /x"
	"bind-data 6 /x" "ro-bind-data 8 /x" "seccomp 12" "add-seccomp-fd 13" "args 20"
	"userns 9" "userns2 9" "pidns 9" "info-fd 6" "json-status-fd 8" "userns-block-fd 4"
)
HUTCH_FD_OPTIONS=("pass-fd 7" "pass-fd 20" "report-fd 8")

# without_fds CMD...: CMD with every fd from 3 to 63 closed, so that the
# numbers an option names are ones the caller never opened.  Run it in a
# subshell.
without_fds() {
	local fd
	for fd in $(seq 3 63); do { eval "exec $fd>&-"; } 2>/dev/null; done
	"$@"
}

# The sanitizer settings of `make asan` survive env -i.
sanitizer_env() {
	[ -n "${ASAN_OPTIONS:-}" ] && printf 'ASAN_OPTIONS=%s ' "$ASAN_OPTIONS"
	[ -n "${UBSAN_OPTIONS:-}" ] && printf 'UBSAN_OPTIONS=%s ' "$UBSAN_OPTIONS"
	return 0
}

# ---- running a check ----
# A check is a function of steps, any of which may fail.  Bash ignores
# set -e in a function called as part of `||`, `&&`, `!`, `if` or `while`,
# and in everything that function calls, subshells included: a check
# called as `check || return 1` runs on past a failed step and can pass.
# run_check CHECK [ARGS...] refuses to run there, runs CHECK in a subshell
# of its own with set -e in force, names the step that failed, and turns a
# non-zero status into a failure of the test (a skip stays a skip).
# Call it, and what calls it, on a line of its own.  (run sets
# inherit_errexit too: a failed step inside $(...) ends it, and the
# assignment of its output fails.  A status meant to be non-zero is
# taken with `|| rc=$?` or `|| true`.)
run_check() {
	local ignored rc
	[[ $- == *e* ]] || fail "$1: run_check needs set -e on"
	# (a run_check inside a check: the outer check's ERR trap is off
	# here, where a status is meant to be non-zero)
	trap - ERR
	# Where bash ignores set -e, it ignores it in this subshell too.
	ignored=$(set +e; (set -e; false; echo yes); true)
	[ -z "$ignored" ] || fail "$1: called inside ||, &&, !, if or while, where bash ignores set -e and a failed step would pass unseen; call it on a line of its own"
	if [ "${AS:-as_root}" != as_root ] && [ -n "${USER_SANDBOX_WHY:-}" ] && [ "${NEEDS_USER_SANDBOX:-no}" = yes ]; then
		skip_part "$USER_SANDBOX_WHY"
		return 0
	fi
	set +e
	(
		set -e -E
		CHECK_SUBSHELL=$BASH_SUBSHELL
		trap 'report_failed_step $? "$BASH_COMMAND" "$LINENO"' ERR
		"$@"
	)
	rc=$?
	set -e
	[ -z "${CHECK_SUBSHELL:-}" ] ||
		trap 'report_failed_step $? "$BASH_COMMAND" "$LINENO"' ERR
	case $rc in
	0) ;;
	77) exit 77 ;;
	*) fail "$1${AS:+ ($AS)} failed (status $rc)" ;;
	esac
}

# report_failed_step STATUS COMMAND LINE: run_check's ERR trap, in the
# function where the step failed; silent in the subshells of a step (a
# command substitution), where set -e is off and a status may be meant.
report_failed_step() {
	[ "$BASH_SUBSHELL" = "$CHECK_SUBSHELL" ] || return 0
	echo "    FAIL: step \`$2\` returned $1 (${FUNCNAME[1]:-?}, ${BASH_SOURCE[1]##*/}:$3)" >&2
}

# Both callers, one after the other: for_each_caller CHECK runs CHECK with
# $AS set to as_root, then as_user.
for_each_caller() {
	AS=as_root run_check "$@"
	AS=as_user run_check "$@"
}

# start_servers: the host's test servers on loopback (tool_netserver.py:
# HTTP on HTTP_PORT, echo on ECHO_PORT), ended by stop_servers when the
# test's shell exits; $T/out, writable by both callers, for results.
start_servers() {
	exec {SRV}< <(exec python3 "$INTEGRATION_DIR/tool_netserver.py")
	SERVER_PID=$!
	trap 'stop_servers; cleanup_scratch' EXIT
	read -r -t 20 HTTP_PORT ECHO_PORT <&"$SRV" || fail "the test servers did not start"
	mkdir -m 0777 -p "$T/out"
}

# stop_servers: end the test servers a test started (SERVER_PID), by pid.
stop_servers() {
	if [ -n "${SERVER_PID:-}" ]; then
		kill "$SERVER_PID" 2>/dev/null || true
		wait "$SERVER_PID" 2>/dev/null || true
	fi
	SERVER_PID=
}

# ---- time ----
# now: the wall clock in seconds, with nanoseconds.
now() { date +%s.%N; }
# seconds_since START [FORMAT]: the seconds from START (a now) to now,
# printed with awk's FORMAT (default %g: as precise as awk's numbers).
seconds_since() { awk -v s="$1" -v e="$(now)" -v f="${2:-%g}" 'BEGIN { printf f "\n", e - s }'; }
# less_than A B: is the number A less than B?
less_than() { awk -v a="$1" -v b="$2" 'BEGIN { exit !(a < b) }'; }

# LISTEN: a server on each path given (TYPE stream or dgram first), as
# the caller; "ready", then on EOF of stdin the number of connections
# (or datagrams) it took.
LISTEN='import select, socket, sys
kind = socket.SOCK_DGRAM if sys.argv[1] == "dgram" else socket.SOCK_STREAM
socks = []
for path in sys.argv[2:]:
    s = socket.socket(socket.AF_UNIX, kind)
    s.bind(path.encode().replace(b"@", b"\0", 1) if path.startswith("@") else path)
    if kind == socket.SOCK_STREAM:
        s.listen(16)
    s.setblocking(False)
    socks.append(s)
print("ready", flush=True)
taken = 0
def take(s):
    global taken
    while True:
        try:
            if kind == socket.SOCK_STREAM:
                s.accept()[0].close()
            else:
                s.recv(100)
        except BlockingIOError:
            return
        taken += 1
while True:
    ready, _, _ = select.select(socks + [sys.stdin], [], [])
    for s in socks:
        take(s)
    if sys.stdin in ready and not sys.stdin.readline():
        break
print(taken, flush=True)'

# start_listeners TYPE PATH...: LISTEN on each PATH (@NAME: abstract), as
# $AS; stop_listeners removes the files.
start_listeners() {
	local line
	LISTENING=("${@:2}")
	coproc LISTENERS { $AS python3 -c "$LISTEN" "$@"; }
	read -r line <&"${LISTENERS[0]}"
	assert_eq ready "$line" "the listeners"
}

# stop_listeners: TAKEN, the connections they took.
stop_listeners() {
	local pid=$LISTENERS_PID sock
	eval "exec ${LISTENERS[1]}>&-"
	read -r TAKEN <&"${LISTENERS[0]}" || TAKEN=?
	wait "$pid" || true
	for sock in "${LISTENING[@]}"; do
		case $sock in /*) rm -f "$sock" ;; esac
	done
}

# Count this machine's mount events: the caller's mountinfo, hashed.
mountinfo_hash() {
	sed 's/^[0-9]* [0-9]* //' /proc/self/mountinfo | sort | md5sum
}

# Processes whose environment or command line holds TAG (the bracket
# keeps grep's own command line from matching).  Searched as root and as
# the unprivileged uid: a root without CAP_SYS_PTRACE (a container's)
# cannot read the environment of another uid's processes.
processes_tagged() {
	local pattern="[${1:0:1}]${1:1}"
	{
		grep -l -a -- "$pattern" /proc/[0-9]*/cmdline /proc/[0-9]*/environ
		setpriv --reuid=$NOBODY --regid=$NOBODY --clear-groups \
			grep -l -a -- "$pattern" /proc/[0-9]*/cmdline /proc/[0-9]*/environ
	} 2>/dev/null | sed 's#/proc/\([0-9]*\)/.*#\1#' | sort -u | grep -v "^$$\$" || true
}

# ---- what the machine allows, probed the way --doctor probes it ----
# A test that needs a facility some machines lack (a container's root has
# no CAP_SYS_ADMIN; an engine's seccomp profile refuses sethostname and
# add_key; /proc/sys may be read-only; a fresh procfs may be refused)
# probes exactly that facility.  have_X answers, leaving the reason in
# WHY when the answer is no; needs_X skips the test with that reason.

# skip_part REASON: in a test that checks both callers, this caller's part
# (or one step of it) cannot run here: say why, and count the test as
# partly skipped.  The caller then returns 0 from its check.
skip_part() {
	echo "    SKIP (part, ${AS:-as_root}): $*" >&2
	# (not seen inside a private /tmp: then only the SKIP line tells)
	{ [ -z "${HUTCH_PART_SKIPS:-}" ] || echo "$*" >>"$HUTCH_PART_SKIPS"; } 2>/dev/null || true
}

# have_root_unshare [FLAGS...]: can root make namespaces without a user
# namespace (unshare FLAGS, -m by default)?  bwrap as root does, and so
# does bwrap mode: it needs CAP_SYS_ADMIN, which a container's root lacks.
have_root_unshare() {
	WHY=$(cd / && unshare "${@:--m}" true 2>&1) && return 0
	WHY="root cannot make namespaces without a user namespace here (unshare ${*:--m}: ${WHY:-failed})"
	return 1
}
needs_root_unshare() { have_root_unshare "$@" || skip "$WHY"; }

# have_powerful_userns: does a user namespace that $AS makes with a
# program of its own (unshare, a test's helper) hold its capabilities?
# Not for an unprivileged caller under Ubuntu's restriction, or its
# stand-in, where only a program with a profile (hutch registered) does.
have_powerful_userns() {
	WHY=$(${AS:-as_root} unshare -Ur true 2>&1) && return 0
	WHY="a user namespace made by a program without a profile has no privilege here (unshare -Ur as this caller: ${WHY:-failed}): the test's own namespaces cannot be made"
	return 1
}

# prober CALLER: who runs a control made with unshare for CALLER: CALLER,
# or root where CALLER's own programs get powerless user namespaces
# (Ubuntu's restriction, the stand-in): the kernel's checks these
# controls ask about (a procfs "too revealing", sethostname) are the
# mount or uts namespace's, the same for every caller in it.
prober() {
	if [ "$1" = as_root ] || AS=$1 have_powerful_userns; then echo "$1"; else echo as_root; fi
}

# command_caps_withheld: does what hutch executes for $AS hold no
# capability, whatever --cap-add asks (hutch's profile under Ubuntu's
# restriction, or its stand-in)?  A check whose control needs COMMAND to
# hold a capability, or that tells one layer from another by granting
# them all, is skipped there saying so; what it guards is refused all
# the same, by the capability check.
command_caps_withheld() {
	[ "$AS" = as_user ] && ! have_powerful_userns || return 1
	WHY="what a sandbox executes holds no capability for this caller, --cap-add or not, as under Ubuntu's profiles ($WHY)"
}

# Where what a sandbox executes holds no capability (a security module's
# profile for hutch or bwrap, as Ubuntu's; the stand-in with hutch
# registered), an unprivileged caller's sandbox inside another gets a
# powerless user namespace: nothing nests, and an inner hutch names that
# cause (POWERLESS_RE).  Told as the suite's other controls tell it: this
# caller's own unshare gets no privilege either.
POWERLESS_RE="(a security module refuses capabilities in new user namespaces|kernel\.apparmor_restrict_unprivileged_userns=1 leaves)"
no_nesting_here() {
	command_caps_withheld || return 1
	WHY="nothing nests for this caller here: $WHY"
}

# copy_makes_sandbox COPY: does a copy of hutch at the path COPY make the
# namespace sandbox as $AS?  Not where a security module gives the
# caller's own user namespaces no privilege and hutch's profile attaches
# to the installed paths only (Ubuntu's restriction; the stand-in with
# hutch registered): a copy elsewhere, which an attack on the binary by
# its owner needs, is refused there with the module named, and the check
# is skipped saying so.  Any other failure is the check's to see.
copy_makes_sandbox() {
	local err
	err=$(cd / && $AS "$1" --profile none --ro-bind / / true 2>&1) && return 0
	[[ $err =~ $POWERLESS_RE ]] || return 0
	WHY="a copy of hutch at $1 gets no profile here, and its user namespace no privilege ($err): the sandbox to attack is not made"
	return 1
}

# bwrap_as_caller: for a check that runs bwrap mode (the link, or
# /usr/bin/bwrap) without --unshare-user as $AS: true unless $AS is root
# and root cannot make namespaces of its own, when it says that this part
# is skipped (`bwrap_as_caller || return 0`).
bwrap_as_caller() {
	[ "${AS:-}" = as_root ] || return 0
	have_root_unshare && return 0
	skip_part "bwrap mode as root: $WHY"
	return 1
}

# for_each_bwrap_caller FUNC: for_each_caller for a check whose every
# step runs bwrap mode without --unshare-user (see bwrap_as_caller).
for_each_bwrap_caller() {
	if AS=as_root bwrap_as_caller; then
		AS=as_root run_check "$@"
	fi
	AS=as_user run_check "$@"
}

# have_debian_bwrap: is there a /usr/bin/bwrap (Debian's bubblewrap)
# that makes its sandbox as $AS, for a control that compares hutch with
# it?  Where there is none, or it cannot (root without CAP_SYS_ADMIN in
# a container; a security module that leaves an unprivileged user
# namespace powerless where hutch's binary has a profile and bwrap none,
# as on the Ubuntu stand-in with hutch registered), a check says so with
# skip_part rather than passing without its control.
have_debian_bwrap() {
	local err
	if [ ! -x /usr/bin/bwrap ]; then
		WHY="no /usr/bin/bwrap (Debian's bubblewrap): the control with it is not run"
		return 1
	fi
	err=$(${AS:-as_root} /usr/bin/bwrap --ro-bind / / true 2>&1) && return 0
	WHY="/usr/bin/bwrap makes no sandbox as this caller here (${err:-failed}): the control with it is not run"
	return 1
}

# have_fresh_procfs: can $AS mount a procfs of its own in new user, mount
# and pid namespaces?  Where it cannot (the engine's masks over a
# container's /proc), hutch mode's --proc shows the caller's /proc,
# read-only, behind a Landlock fence (--doctor's procfs line).  (Asked
# of root where the caller's own unshare cannot tell: see prober.)
have_fresh_procfs() {
	WHY=$($(prober "${AS:-as_root}") unshare -Urmpf --mount-proc true 2>&1) && return 0
	WHY="a fresh procfs is refused here (unshare -Urmpf --mount-proc: ${WHY:-failed}; see --doctor procfs)"
	return 1
}
needs_fresh_procfs() { have_fresh_procfs || skip "$WHY"; }

# unprivileged_sandbox_callers: as_user, unless only root gets the
# namespace sandbox here (USER_SANDBOX_WHY: then the gate in run_check
# skips as_user's parts, and a probe of its namespaces would blame them
# for what is the machine's restriction).
unprivileged_sandbox_callers() {
	[ -n "${USER_SANDBOX_WHY:-}" ] || echo as_user
}

# have_hostname_in_userns: can both callers set the host name in user and
# uts namespaces of their own (an engine's seccomp may refuse sethostname)?
have_hostname_in_userns() {
	local as
	for as in as_root $(unprivileged_sandbox_callers); do
		WHY=$($(prober $as) unshare -Uru hostname hutch-probe 2>&1) && continue
		WHY="sethostname in a user namespace is refused here ($as: unshare -Uru hostname: ${WHY:-failed})"
		return 1
	done
}
needs_hostname_in_userns() { have_hostname_in_userns || skip "$WHY"; }

# have_writable_proc_sys: can root write a sysctl of a namespace of its
# own (user.max_user_namespaces in a new user namespace, set to what it
# is)?  Not where /proc/sys is read-only, as in containers.
have_writable_proc_sys() {
	WHY=$(as_root unshare -Ur sh -c \
		'cat /proc/sys/user/max_user_namespaces >/proc/sys/user/max_user_namespaces' 2>&1) && return 0
	WHY="the sysctls of a namespace cannot be written here (${WHY:-failed}: /proc/sys is read-only)"
	return 1
}
needs_writable_proc_sys() { have_writable_proc_sys || skip "$WHY"; }

# have_root_ptrace: does root hold CAP_SYS_PTRACE, which looking at the
# fds of a process that is not dumpable (hutch's supervisor) takes?  A
# container's root lacks it.
have_root_ptrace() {
	local eff
	eff=$(sed -n 's/^CapEff:[[:space:]]*//p' /proc/self/status)
	(( (0x$eff >> 19) & 1 )) && return 0
	WHY="root lacks CAP_SYS_PTRACE here (CapEff $eff), which the fds of a process that is not dumpable take"
	return 1
}

# have_userns: can both callers make a user namespace here?  Not under
# Docker's default seccomp profile, kernel.unprivileged_userns_clone = 0,
# user.max_user_namespaces = 0, ...: there hutch runs its Landlock
# fallback, and a test of the namespace sandbox cannot run.
have_userns() {
	local as
	for as in as_root as_user; do
		WHY=$($as unshare -U true 2>&1) && continue
		WHY="user namespaces are refused here ($as: unshare -U: ${WHY:-failed}), so hutch runs its Landlock fallback (tested by t_fallback.sh and tests/escape/fallback.sh)"
		return 1
	done
}
needs_userns() { have_userns || skip "$WHY"; }

# have_sandbox_for_caller: does $AS get hutch's namespace sandbox here,
# not only its fallback?  Not where user namespaces are refused, nor for
# an unprivileged caller where the machine leaves its namespaces
# powerless (USER_SANDBOX_WHY); WHY says which.
have_sandbox_for_caller() {
	have_userns || return 1
	if [ "${AS:-as_root}" != as_root ] && [ -n "${USER_SANDBOX_WHY:-}" ]; then
		WHY=$USER_SANDBOX_WHY
		return 1
	fi
}

# userns_gate TEST: before each test (tests/integration/run).  The tests
# named in tests/integration/without-userns run anywhere (they test the
# fallback, --doctor, the build, parsing, or pass under the fallback as
# well); every other test checks the namespace sandbox and skips, with
# the reason, where user namespaces are refused.
#
# Where user namespaces are made but uid $NOBODY's hold no privilege
# (Ubuntu's kernel.apparmor_restrict_unprivileged_userns=1 without hutch's
# AppArmor profile), root's sandbox still runs: there a test's parts for
# an unprivileged caller (as_user, t_fallback_mount's uid 1001) are
# skipped, with the reason (USER_SANDBOX_WHY, from `run`'s
# user_sandbox_probe), and its as_root part runs.
userns_gate() {
	# Exported: tests that run their checks in a new shell (in_mountns,
	# in_test_net) keep the gate.
	export NEEDS_USER_SANDBOX=no
	grep -qx -- "$1" "$(dirname "${BASH_SOURCE[0]}")/without-userns" && return 0
	NEEDS_USER_SANDBOX=yes
	needs_userns
}

# user_sandbox_offered: for a test that runs as_user's steps itself, not
# through run_check: true, or false after saying (skip_part) that only
# root gets the namespace sandbox here (see userns_gate).
user_sandbox_offered() {
	if [ -z "${USER_SANDBOX_WHY:-}" ] || [ "${NEEDS_USER_SANDBOX:-no}" = no ]; then
		return 0
	fi
	AS=as_user skip_part "$USER_SANDBOX_WHY"
	return 1
}

# quiet_but_for_the_machine TEXT: TEXT (a run's stderr and stdout) less
# hutch's fallback notice where the machine gives uid $NOBODY only the
# fallback (USER_SANDBOX_WHY): for a test of something else that expects
# a run that says nothing.  Elsewhere TEXT as it is.
quiet_but_for_the_machine() {
	if [ -n "${USER_SANDBOX_WHY:-}" ]; then
		printf '%s\n' "$1" | grep -v '^hutch: fallback: user namespaces refused ' || true
	else
		printf '%s\n' "$1"
	fi
}

# needs_user_sandbox: for a test of as_user alone, run outside run_check:
# skips it, saying why, where only root gets the namespace sandbox.
needs_user_sandbox() {
	[ -z "${USER_SANDBOX_WHY:-}" ] || [ "${NEEDS_USER_SANDBOX:-no}" = no ] || skip "$USER_SANDBOX_WHY"
}

# user_sandbox_probe: nothing where uid $NOBODY gets hutch's namespace
# sandbox; where it gets the Landlock fallback instead, one line saying
# so and why, as hutch's notice and --doctor tell it.  Asked of hutch
# itself, copied as setup_scratch copies it (a profile attached to a path
# covers that copy or not, as it covers the tests').  Anything else (the
# sandbox fails otherwise, or --doctor does not agree that the machine
# withholds it, or unshare -Ur is not refused too) says nothing: the
# tests then fail and show it.
user_sandbox_probe() (
	setup_scratch
	trap cleanup_scratch EXIT
	out=$(as_user "$H" sh -c 'echo $$' 2>"$T/err") || true
	notice=$(head -n 1 "$T/err")
	[ "$out" = 2 ] && [ ! -s "$T/err" ] && exit 0
	case $notice in
	"hutch: fallback: user namespaces refused"*) ;;
	*) exit 0 ;;
	esac
	doctor=$(as_user "$H" --doctor 2>&1 | grep -m 1 -E 'is made but has no privilege|failed with E') || exit 0
	# And a tool other than hutch is refused the same: the machine's
	# doing, not a fault of hutch's that both of its probes share.
	! as_user unshare -Ur true 2>/dev/null || exit 0
	notice=${notice#hutch: }
	echo "uid $NOBODY gets hutch's Landlock fallback here, not its namespace sandbox" \
		"(${notice%%; running under*}; --doctor: $(echo "$doctor" | sed 's/^[[:space:]]*//; s/; fix: .*//'))"
)

# in_masked_proc AS CMD...: run CMD as AS (as_root, as_user) in a mount
# namespace whose /proc has a file masked, as container engines mask
# /proc/keys, /proc/kcore and others: the kernel's "too revealing" check
# then refuses every fresh procfs below it, and hutch gives the sandbox
# the caller's /proc in its place.
in_masked_proc() {
	local as=$1
	shift
	[ "$as" != as_user ] || { user_argv; set -- "${USER_ARGV[@]}" "$@"; }
	as_root unshare -m sh -c 'mount --bind /dev/null /proc/keys && exec "$@"' sh "$@"
}

# ---- --learn's tests (t_learn*.sh) ----

# learn_home: a home for $AS, $T/home-UID, owned by it (the profiles'
# ${HOME} is the caller's $HOME: a tmpfs there inside).
learn_home() {
	LH="$T/home-$(caller_uid)"
	rm -rf "$LH"
	mkdir -m 0755 "$LH"
	chown "$(caller_uid):$(caller_uid)" "$LH"
}

# learn_project: an empty project directory (make_project's), whatever
# the other caller's run left there.
learn_project() {
	rm -rf "$T/work/proj"
	make_project
}

# learn_out NAME: a path for a learned profile, in $T/out (writable by both).
learn_out() {
	mkdir -m 0777 -p "$T/out"
	rm -f "$T/out/$1"
	echo "$T/out/$1"
}

# learn_run FILE HOME ARGS...: hutch as $AS from the project, with HOME.
learn_run() {
	local file=$1 home=$2
	shift 2
	in_project env HOME="$home" "$H" --learn "$file" "$@"
}

# This kernel's Landlock ABI (0 without Landlock), as --doctor reads it.
landlock_abi() {
	python3 -c 'import ctypes, sys
libc = ctypes.CDLL(None, use_errno=True)
v = libc.syscall(444, None, 0, 1)
print(v if v > 0 else 0)'
}
