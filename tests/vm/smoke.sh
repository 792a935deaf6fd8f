#!/bin/bash
# tests/vm/smoke.sh [HUTCH]: hutch as its users start it on a systemd
# machine, in one of two places (make check-vm runs both in the guest):
#   a normal user in a real logind session, with her user manager running
#     (alice, uid 1001);
#   root from a system service (systemd-run, a transient unit of
#     system.slice, no login session).
# It runs anywhere else too.  HUTCH defaults to ./hutch.  One line per
# check, "ok" or "FAILED", then the exit code and, indented, the check's
# stderr (and stdout, if any); at the end "N passed, N failed".  To add a
# check: one more `check` line below.
set -u
here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/../.." && pwd)
H=${1:-./hutch}
case $H in /*) ;; *) H=$PWD/$H ;; esac
passed=0 failed=0 failures=""
tmp=$(mktemp -d /tmp/hutch-smoke.XXXXXX)
chmod 0755 "$tmp"
trap 'rm -rf "$tmp"' EXIT

if [ "$(id -u)" = 0 ]; then
	place=service
	if [ -n "${XDG_SESSION_ID:-}" ]; then
		echo "smoke.sh: as root, run this from a system service (systemd-run --wait --pipe), not a login session" >&2
		exit 2
	fi
else
	place=login
fi

indent() { sed -n "1,${2:-40}s/^/    $1/p"; }

# check NAME WANT_RC STDOUT_REGEX CMD...: pass when CMD exits WANT_RC and,
# if STDOUT_REGEX is not empty, its stdout matches it.
check() {
	local name=$1 want=$2 pat=$3 rc took start
	shift 3
	start=$(date +%s.%N)
	# bash -c: CMD may be one of the functions below (exported).
	timeout --kill-after=10 "${ROOTLESS_TIMEOUT:-120}" bash -c '"$@"' check "$@" \
		>"$tmp/out" 2>"$tmp/err" </dev/null
	rc=$?
	took=$(awk -v s="$start" -v e="$(date +%s.%N)" 'BEGIN { printf "%.1f", e - s }')
	if [ "$rc" = "$want" ] && { [ -z "$pat" ] || grep -Eq -- "$pat" "$tmp/out"; }; then
		passed=$((passed + 1))
		echo "ok      $name (exit $rc, ${took}s)"
	else
		failed=$((failed + 1))
		failures="$failures $name"
		echo "FAILED  $name (exit $rc, want $want${pat:+ and stdout matching /$pat/}, ${took}s)"
	fi
	echo "    \$ $*"
	indent "stderr: " < "$tmp/err"
	indent "stdout: " < "$tmp/out"
}

# The session itself: what a login gives, or the checks below mean little.
session_is_logind() {
	local cg
	cg=$(cat /proc/self/cgroup)
	echo "$cg"
	echo "XDG_SESSION_ID=${XDG_SESSION_ID:-} XDG_RUNTIME_DIR=${XDG_RUNTIME_DIR:-}"
	[[ $cg =~ ^0::/user\.slice/user-$(id -u)\.slice/session-[^/]+\.scope$ ]]
}
user_manager_runs() {
	local state
	state=$(systemctl --user is-system-running 2>&1)
	echo "$state"
	[ "$state" = running ] || [ "$state" = degraded ]
}
# In a delegated scope the limits hold through the cgroup: no "not
# enforced" warning.
delegated_scope_enforces() {
	local rc
	systemd-run --user --scope -p Delegate=yes -q "$H" --memory 64M --pids 100 true 2>"$tmp/err2"
	rc=$?
	cat "$tmp/err2" >&2
	[ "$rc" = 0 ] && ! grep -q 'not enforced' "$tmp/err2"
}

# Without a delegated cgroup, --memory is refused (exit 125) and says why.
memory_refused_undelegated() {
	local rc
	"$H" --memory 64M true 2>"$tmp/err3"
	rc=$?
	cat "$tmp/err3" >&2
	[ "$rc" = 125 ] && grep -q '^hutch: limits: --memory: no usable cgroup v2 memory controller' "$tmp/err3"
}
# Root from a system service: a transient unit of system.slice.
in_system_service() {
	local cg
	cg=$(cat /proc/self/cgroup)
	echo "$cg"
	[[ $cg =~ ^0::/system\.slice/[^/]+\.service$ ]]
}
# A service with Delegate=yes: the limits hold through its cgroup.
delegated_service_enforces() {
	local rc
	systemd-run --wait --pipe --quiet --collect -p Delegate=yes \
		-p WorkingDirectory="$PWD" "$H" --memory 64M --pids 100 true 2>"$tmp/err2"
	rc=$?
	cat "$tmp/err2" >&2
	[ "$rc" = 0 ] && ! grep -q 'not enforced' "$tmp/err2"
}

export -f session_is_logind user_manager_runs delegated_scope_enforces \
	in_system_service delegated_service_enforces memory_refused_undelegated
export H tmp

# From a project directory of the user's own, as a developer would run
# hutch: not the checkout, whose ./hutch the profiles that make the
# current directory writable rightly refuse to expose.
if [ $place = login ]; then project=$HOME/src/smoke-project; else project=$tmp/project; fi
mkdir -p "$project"
cd "$project" || exit 2
echo "smoke checks as $(id -un) (uid $(id -u)) from a $place on Linux $(uname -r), hutch $H, in $PWD"
if [ $place = login ]; then
	check session-is-logind 0 '' session_is_logind
	check user-manager-runs 0 '' user_manager_runs
else
	check in-system-service 0 '' in_system_service
fi
check doctor 0 '' "$H" --doctor
check default-echo 0 '^in-sandbox$' "$H" sh -c 'echo in-sandbox'
check none-unshare-all-proc 0 '' "$H" --profile none --unshare-all --ro-bind / / --proc /proc true
for p in "$repo"/profiles/*; do
	[ -f "$p" ] || continue
	check "profile-$(basename "$p")" 0 '' "$H" --profile "$(basename "$p")" true
done
if [ $place = login ]; then
	# Her session's scope is not delegated: --memory has no cgroup, and
	# the run is refused with the reason, never run without the limit.
	check memory-refused-undelegated 0 '' memory_refused_undelegated
	check delegated-scope 0 '' systemd-run --user --scope -p Delegate=yes "$H" --memory 64M --pids 100 true
	check delegated-scope-enforces 0 '' delegated_scope_enforces
else
	check memory-pids 0 '' "$H" --memory 64M --pids 100 true
	check delegated-service-enforces 0 '' delegated_service_enforces
fi

[ -n "$failures" ] && echo "failed:$failures"
echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
