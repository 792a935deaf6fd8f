#!/bin/bash
# What the Landlock fallback really blocks: docs/guarantees.md's table "What
# each mode guarantees", row by row, with the escape programs of tests/escape (and
# tests/integration/tool_fallback_util.c for sockets).  Each check runs as
# root and as uid 65534 under the fallback and prints one line:
#   blocked                    the attack fails under the fallback
#   not provided in this mode  the attack succeeds, as the table says
#   holds                      the row's fact (when it runs, what it says)
# then its name (fallback_*, the name the table gives) and the row.
# A check whose outcome differs from its mark is FAILED: the fallback lets
# through what the table says it blocks, or the table is wrong.
#
# Where user namespaces are refused (Docker's default seccomp profile:
# make check-container-docker) hutch falls back by itself.  Where they
# work, --fallback=landlock does not force the fallback (it only chooses
# what happens on a refusal), so the run goes through tool_fallback_util's
# "docker" filter, which refuses clone3, clone with namespace flags and
# unshare as Docker's profile does.  Either way each run must print the
# fallback's notice, or the check fails.
#
# Usage: tests/escape/fallback.sh [HUTCH]   as root (default: ./hutch of
# the checkout).  Exits non-zero if any check failed.
# With HUTCH the fault build (build/hutch-fault) and
# HUTCH_FAULT=landlock-abi:N, hutch uses Landlock as a kernel of ABI N
# would have it (N below this kernel's): the rows of an older kernel.
set -u
top=$(cd "$(dirname "$0")/../.." && pwd)
HUTCH=$(realpath "${1:-$top/hutch}")
export HUTCH
# shellcheck source=../integration/lib.sh
. "$top/tests/integration/lib.sh"
[ "$(id -u)" = 0 ] || { echo "fallback.sh runs as root (it drops to uid $NOBODY itself)" >&2; exit 2; }
[ -x "$HUTCH" ] || { echo "no hutch binary at $HUTCH (make first)" >&2; exit 2; }

setup_scratch
VPIDS=()
finish() {
	local pid
	# The listener ends at EOF on its stdin; the victims by their pids.
	[ -z "${LISTENER[1]:-}" ] || eval "exec ${LISTENER[1]}>&-"
	[ -z "${LISTENER_PID:-}" ] || wait "$LISTENER_PID" 2>/dev/null
	for pid in "${VPIDS[@]}"; do kill "$pid" 2>/dev/null; wait "$pid" 2>/dev/null; done
	cleanup_scratch
}
trap finish EXIT

mkdir -p "$T/bin" "$T/ro" "$T/hidden" "$T/other"
for p in file peer abstract fdcheck whoami module userns mountattack; do
	gcc -O2 -Wall -o "$T/bin/$p" "$top/tests/escape/$p.c" || { echo "cannot build $p.c" >&2; exit 2; }
done
gcc -O2 -Wall -o "$T/bin/tool" "$top/tests/integration/tool_fallback_util.c" -lseccomp ||
	{ echo "cannot build tool_fallback_util.c (gcc, libseccomp-dev)" >&2; exit 2; }
cp "$T/bin/whoami" "$T/bin/suid"
chmod 4755 "$T/bin/suid"
echo data >"$T/ro/data"
echo host-secret >"$T/hidden/secret"
echo host-secret >"$T/other/secret"
chmod 0755 "$T/bin" "$T/ro" "$T/hidden" "$T/other"
chmod 0666 "$T/ro/data" "$T/hidden/secret" "$T/other/secret"
ABI=$(landlock_abi)
# HUTCH_FAULT=landlock-abi:N (the fault build): hutch's ABI, and the rows', is N.
FAULT_ENV=()
if [[ ${HUTCH_FAULT:-} == landlock-abi:* ]]; then
	FAULT_ENV=(env "HUTCH_FAULT=$HUTCH_FAULT")
	[ "${HUTCH_FAULT#landlock-abi:}" -ge "$ABI" ] || ABI=${HUTCH_FAULT#landlock-abi:}
fi
FB_HOME=/home/hutch-fallback-test
BOX="--profile none --fallback landlock --unshare-all --tmpfs /tmp --mirror /usr --mirror /bin"
BOX+=" --mirror /lib --mirror /lib64 --mirror /etc/ld.so.cache --proc /proc --dev /dev"
BOX+=" --setenv HOME $FB_HOME --tmpfs $FB_HOME --ro-bind $T/bin $T/bin --ro-bind $T/ro $T/ro"

# How $AS gets the fallback: FORCE, a prefix (empty where the machine
# refuses user namespaces itself).
how_forced() {
	if $AS unshare -U true 2>/dev/null; then
		FORCE=("$T/bin/tool" docker "${FAULT_ENV[@]}")
		echo "$AS: user namespaces work here: the fallback forced by tool_fallback_util's Docker-like filter"
	else
		FORCE=("${FAULT_ENV[@]}")
		echo "$AS: user namespaces are refused here ($($AS unshare -U true 2>&1 | head -n 1)): hutch falls back by itself"
	fi
}

# forced CHECK: CHECK with FORCE set for $AS.
forced() {
	how_forced >/dev/null
	"$@"
}

# fb OPTIONS... -- CMD...: hutch $BOX OPTIONS CMD as $AS under the
# fallback; prints CMD's stdout on one line.  Fails unless stderr's first
# line is the fallback's notice.
fb() {
	local out notice
	out=$($AS "${FORCE[@]}" "$HUTCH" $BOX "$@" 2>"$T/err" | tr '\n' ' ')
	notice=$(head -n 1 "$T/err")
	[[ $notice == "hutch: fallback: user namespaces refused ("* ]] ||
		fail "not the fallback: stderr [$(cat "$T/err")]"
	printf '%s\n' "${out% }"
}

# --- the checks, one or more a row --------------------------------------

# when: the notice names what refused user namespaces.
fallback_when() {
	fb true >/dev/null
	assert_match "^hutch: fallback: user namespaces refused \(.+\); running under Landlock ABI $ABI \+ seccomp; approximations: " \
		"$(head -n 1 "$T/err")" "the notice"
}
# files: outside the plan nothing; a read-only bind is not writable.
fallback_files() {
	assert_eq "read:EACCES" "$(fb "$T/bin/file" read "$T/hidden/secret")" "a host file outside the plan"
	assert_eq "read:EACCES" "$(fb "$T/bin/file" read /etc/passwd)" "/etc, not bound"
	assert_eq "write:EACCES" "$(fb "$T/bin/file" write "$T/ro/data" escaped)" "a read-only bind"
	assert_eq "read:ok:data" "$(fb "$T/bin/file" read "$T/ro/data")" "control: the read-only bind reads"
	assert_eq data "$(cat "$T/ro/data")" "the file under the read-only bind"
}
# moved binds, --file: refused before COMMAND runs (exit 125).
fallback_moved_bind() {
	local out rc=0
	out=$($AS "${FORCE[@]}" "$HUTCH" $BOX --ro-bind "$T/hidden" /opt/moved "$T/bin/file" read /opt/moved/secret 2>"$T/err") || rc=$?
	assert_eq 125 "$rc" "a bind whose destination differs: $(cat "$T/err")"
	assert_eq "" "$out" "COMMAND did not run"
}
# --tmpfs /tmp: a per-run directory; the host's /tmp stays out of reach.
fallback_private_tmp() {
	assert_eq "read:EACCES" "$(fb "$T/bin/file" read "$T/hidden/secret")" "the host's /tmp (the scratch directory in it)"
	assert_match "^/tmp/hutch-fallback-[0-9-]+/tmp$" "$(fb sh -c 'echo "$TMPDIR"')" "TMPDIR, a per-run directory"
}
# Any other --tmpfs: no access at all.
fallback_other_tmpfs() {
	assert_eq "read:EACCES" "$(fb --tmpfs "$T/other" "$T/bin/file" read "$T/other/secret")" "under --tmpfs $T/other"
}
# /proc is the host's, read-only; /dev holds only the harmless devices.
fallback_proc_dev() {
	# A file of its own that only Landlock refuses (a sysctl would be
	# refused first by a container's read-only /proc/sys, or by its mode).
	assert_eq "write:EACCES" "$(fb "$T/bin/file" write /proc/self/oom_score_adj 500)" "a file of /proc/self"
	assert_match "^read:E" "$(fb "$T/bin/file" read /dev/kmsg)" "/dev/kmsg"
	assert_eq "read:ok:" "$(fb "$T/bin/file" read /dev/zero)" "control: /dev/zero reads"
}
# processes: no pid namespace, the host's processes are visible...
fallback_host_process_visible() {
	assert_match "^proc:ok " "$(fb "$T/bin/peer" "$(victim)")" "a host process in /proc"
}
# ... but not traceable (Landlock's domain refuses ptrace outside it).
fallback_ptrace_host_process() {
	assert_match " ptrace:EPERM$" "$(fb "$T/bin/peer" "$(victim)")" "ptrace of a host process"
}
# no network: socket() fails for every family but AF_UNIX.
fallback_network() {
	local out
	out=$(fb sh -c "for f in inet inet6 packet netlink unix; do $T/bin/tool socket \$f; done")
	assert_eq "socket inet: Address family not supported by protocol socket inet6: Address family not supported by protocol socket packet: Address family not supported by protocol socket netlink: Address family not supported by protocol socket unix: ok" \
		"$out" "socket() by family"
}
# Landlock scoping (ABI 6+): signals and abstract sockets outside.  The
# victim is the caller's own uid's, which COMMAND (no capabilities, so
# root's cannot signal another uid's: no CAP_KILL) could signal but for
# Landlock; the control shows that, outside the sandbox and without
# capabilities.
fallback_signal_host_process() {
	local want="kill:EPERM"
	[ "$ABI" -ge 6 ] || want="kill:ok"
	assert_match " kill:ok " "$(without_caps "$T/bin/peer" "$(victim)" | tr '\n' ' ')" \
		"control: a signal to the same process outside the sandbox, without capabilities"
	assert_match " $want " "$(fb "$T/bin/peer" "$(victim)")" "a signal to a host process (Landlock ABI $ABI)"
}
fallback_abstract_socket() {
	local want="connect:EPERM"
	[ "$ABI" -ge 6 ] || want="connect:ok"
	assert_eq "$want" "$(fb "$T/bin/abstract" "$ABSTRACT")" "an abstract socket outside (Landlock ABI $ABI)"
}
# pathname unix sockets: not mediated, even outside the plan.
fallback_pathname_socket() {
	assert_eq "connected" "$(fb python3 -c 'import socket, sys
s = socket.socket(socket.AF_UNIX)
s.connect(sys.argv[1])
print("connected")' "$PATHNAME")" "a pathname socket outside the plan"
}
# SysV IPC: the host's.
fallback_sysv_ipc() {
	local id out
	id=$($AS ipcmk -Q | grep -o '[0-9]*$')
	out=$(fb sh -c "ipcs -q | awk '\$2 == $id { print \"seen\" }'")
	$AS ipcrm -q "$id"
	assert_eq seen "$out" "the caller's message queue $id"
}
# uid, gid, hostname: the caller's and the host's; asking is refused.
fallback_uid_hostname() {
	local rc=0
	assert_eq "$(hostname) $($AS id -u)" "$(fb sh -c 'echo $(hostname) $(id -u)')" "host name and uid"
	$AS "${FORCE[@]}" "$HUTCH" $BOX --hostname other true 2>/dev/null || rc=$?
	assert_eq 125 "$rc" "--hostname refused"
}
# capabilities: none, no setuid gain (no_new_privs).
fallback_capabilities() {
	assert_eq "euid:$($AS id -u) capeff:0000000000000000" "$(fb "$T/bin/whoami")" "capabilities"
	assert_eq "euid:$($AS id -u) capeff:0000000000000000" "$(fb "$T/bin/suid")" "a setuid-root binary"
}
# seccomp: the policy of namespace mode, the same code.
fallback_seccomp() {
	assert_eq "finit_module:EPERM" "$(fb "$T/bin/module")" "finit_module"
	assert_match "^unshare:E" "$(fb "$T/bin/userns")" "a user namespace"
	assert_match "^remount:EPERM" "$(fb "$T/bin/mountattack" remount "$T/ro" data)" "a remount"
}
# fds: all but 0, 1, 2 and the passed ones closed.
fallback_inherited_fd() {
	assert_eq "fstat:EBADF link:ENOENT openat:EBADF" "$(fb "$T/bin/fdcheck" 5 secret 5<"$T/hidden")" "an inherited fd 5"
}
# says so: --json-status-fd's mode.
fallback_says_so() {
	assert_match '"mode": "landlock", "approximations": \[' "$(fb --json-status-fd 3 true 3>&1)" "--json-status-fd"
}

# victim: the pid of the host process of $AS's uid (VPIDS: root's, uid
# 65534's).
victim() { if caller_is_root; then echo "${VPIDS[0]}"; else echo "${VPIDS[1]}"; fi; }
caller_is_root() { [ "$AS" = as_root ]; }

# without_caps CMD...: CMD as $AS outside any sandbox, with no capability
# (as COMMAND has none under the fallback).
without_caps() {
	if caller_is_root; then
		$AS setpriv --inh-caps=-all --bounding-set=-all "$@"
	else
		$AS "$@"
	fi
}

# --- the table --------------------------------------------------------------

failed=0
# row MARK NAME TEXT: NAME as root and as uid 65534; one line.
row() {
	local mark=$1 name=$2 text=$3 rc
	(set -e; for_each_caller forced "$name") 2>"$T/fail"
	rc=$?
	if [ "$rc" = 0 ]; then
		printf '%-26s %-31s %s\n' "$mark" "$name" "$text"
	else
		failed=$((failed + 1))
		printf '%-26s %-31s %s\n' "FAILED ($mark)" "$name" "$text"
		grep -v '^hutch: ' "$T/fail" | sed 's/^/    /'
	fi
}

# The victims, outside: one of each caller's uid (root's COMMAND, with no
# capability under the fallback, could not signal or trace another uid's
# process anyway: a refusal there would not be Landlock's).  The
# listeners as uid 65534; the pathname socket in a directory outside the
# plan.
sleep 1000 &
VPIDS+=("$!")
# (uid 65534's says its pid once it is that uid's: no check sees it root's)
exec {VICTIM}< <(exec setpriv --reuid=$NOBODY --regid=$NOBODY --clear-groups \
	sh -c 'echo $$; exec sleep 1000 >/dev/null')
read -r pid <&"$VICTIM"
VPIDS+=("$pid")
ABSTRACT="hutch-fallback-$$"
mkdir -m 0777 "$T/sockets"
PATHNAME="$T/sockets/sock"
coproc LISTENER { as_user python3 -c 'import socket, sys
a, b = socket.socket(socket.AF_UNIX), socket.socket(socket.AF_UNIX)
a.bind("\0" + sys.argv[1]); b.bind(sys.argv[2])
a.listen(8); b.listen(8)
print("ready", flush=True)
sys.stdin.read()' "$ABSTRACT" "$PATHNAME"; }
read -r _ <&"${LISTENER[0]}"
chmod 0777 "$PATHNAME"

echo "# hutch $HUTCH, Landlock ABI $ABI; as root and as uid $NOBODY"
for AS in as_root as_user; do how_forced | sed 's/^/# /'; done
row holds fallback_when "when: it runs, and its notice names what refused user namespaces"
row blocked fallback_files "files: outside the plan, and writing a read-only bind"
row blocked fallback_moved_bind "moved binds, overlays, --file: refused before COMMAND runs"
row blocked fallback_private_tmp "--tmpfs /tmp, \$HOME: per-run directories, the host's /tmp out of reach"
row blocked fallback_other_tmpfs "other --tmpfs: no access"
row blocked fallback_proc_dev "/proc and /dev: /proc read-only, /dev only the harmless devices"
row "not provided in this mode" fallback_host_process_visible "processes: no pid namespace, host processes visible"
row blocked fallback_ptrace_host_process "processes: ptrace of a host process"
row blocked fallback_network "no network: socket() for every family but AF_UNIX"
if [ "$ABI" -ge 6 ]; then
	row blocked fallback_signal_host_process "signals: to a process outside (Landlock ABI $ABI)"
	row blocked fallback_abstract_socket "abstract unix sockets: one outside (Landlock ABI $ABI)"
else
	row "not provided in this mode" fallback_signal_host_process "signals: to a process outside (Landlock ABI $ABI < 6)"
	row "not provided in this mode" fallback_abstract_socket "abstract unix sockets: one outside (Landlock ABI $ABI < 6)"
fi
row "not provided in this mode" fallback_pathname_socket "pathname unix sockets: one outside the plan"
row "not provided in this mode" fallback_sysv_ipc "SysV IPC: the host's message queues"
row "not provided in this mode" fallback_uid_hostname "uid, gid, hostname: the caller's and the host's"
row blocked fallback_capabilities "capabilities, no_new_privs: none, and a setuid binary gains none"
row blocked fallback_seccomp "seccomp: the policy (finit_module, unshare, mount)"
row blocked fallback_inherited_fd "fds: an inherited fd closed"
row holds fallback_says_so "says so: \"mode\": \"landlock\" in --json-status-fd"
if [ "$failed" = 0 ]; then echo "fallback: every row as docs/guarantees.md says"; else echo "fallback: $failed FAILED"; fi
[ "$failed" = 0 ]
