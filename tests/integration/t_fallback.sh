# The fallback where user namespaces are refused (issue 10).
#
# Refusals are simulated as real systems cause them:
# - Docker's default seccomp profile: tool_fallback_util's "docker" verb
#   loads a filter that answers clone3 with ENOSYS, clone with a namespace
#   flag and unshare with EPERM, sets no_new_privs and executes hutch;
# - user.max_user_namespaces = 0: as root, in a user namespace of our own
#   (the sysctl is per user namespace), so the host is left alone.
# Under --fallback landlock, COMMAND must be confined (files, exec, TCP,
# sockets), leave no per-run directory or process behind, and say so;
# --fallback none and bwrap mode fail closed.

FB_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
FB_HOME=/home/hutch-fallback-test
DOCKER_REFUSAL="a seccomp filter refuses clone and unshare with CLONE_NEWUSER, as Docker's default profile does"
DOCKER_FIX="run the container with --security-opt seccomp=unconfined, or a seccomp profile that allows clone, clone3, unshare and mount in user namespaces"

# $T/bin: the tool; $T/ro: read-only; $T/rw: writable; $T/hidden and
# $T/noexec: outside the plan.  Modes let DAC allow everything, so that
# every refusal seen is Landlock's.
setup_fallback() {
	mkdir -p "$T/bin" "$T/ro" "$T/rw" "$T/hidden" "$T/noexec"
	gcc -O2 -Wall -o "$T/bin/tool" "$FB_DIR/tool_fallback_util.c" -lseccomp ||
		skip "cannot build tool_fallback_util.c (gcc, libseccomp-dev)"
	echo secret > "$T/hidden/secret"
	echo data > "$T/ro/file"
	cp /bin/true "$T/ro/true"
	cp /bin/true "$T/noexec/true"
	chmod 0755 "$T/bin" "$T/ro" "$T/hidden" "$T/noexec" "$T/ro/true" "$T/noexec/true"
	chmod 0666 "$T/ro/file" "$T/hidden/secret"
	chmod 0777 "$T/rw"
}

# A plan that runs anywhere: /tmp and a HOME become per-run directories.
fb_opts() {
	echo "--profile none --fallback landlock --unshare-all --tmpfs /tmp" \
		"--mirror /usr --mirror /bin --mirror /lib --mirror /lib64 --mirror /etc/ld.so.cache" \
		"--proc /proc --dev /dev --setenv HOME $FB_HOME --tmpfs $FB_HOME" \
		"--ro-bind $T/bin $T/bin --ro-bind $T/ro $T/ro --bind $T/rw $T/rw"
}

# in_docker ARGS...: hutch ARGS under Docker's seccomp profile, as $AS.
in_docker() {
	$AS "$T/bin/tool" docker "$H" "$@"
}

# The per-run directories of this machine's pid namespace.
run_dirs() {
	ls -d /tmp/hutch-fallback-* 2>/dev/null || true
}

check_fails_closed() {
	local rc=0 err
	in_docker $(fb_opts) --fallback none touch "$T/rw/ran" 2>"$T/err" || rc=$?
	err=$(cat "$T/err")
	assert_eq 125 "$rc" "--fallback none exit status"
	assert_eq "hutch: clone: new user namespace refused: $DOCKER_REFUSAL; fix: $DOCKER_FIX; or --fallback landlock to run confined by Landlock instead" \
		"$err" "the one line naming what refused and the fix"
	[ ! -e "$T/rw/ran" ] || fail "COMMAND ran although namespaces were refused"
}
test_fallback_none_fails_closed() { setup_fallback; for_each_caller check_fails_closed; }

check_notice() {
	local err
	in_docker $(fb_opts) true 2>"$T/err" || fail "the fallback did not run COMMAND: $(cat "$T/err")"
	err=$(cat "$T/err")
	assert_eq 1 "$(printf '%s\n' "$err" | wc -l)" "one stderr line"
	assert_match "^hutch: fallback: user namespaces refused \\($DOCKER_REFUSAL\\); running under Landlock ABI [1-9][0-9]* \\+ seccomp; approximations: private /tmp and HOME are per-run directories; no pid namespace \\(a subreaper instead\\); pathname unix sockets \\(e\\.g\\. a readable docker\\.sock\\) and UDP are not mediated" \
		"$err" "the notice"
}
test_fallback_says_what_stays_open() { setup_fallback; for_each_caller check_notice; }

check_files() {
	local out
	out=$(in_docker $(fb_opts) sh -c "
		cat $T/hidden/secret 2>&1; echo read-hidden=\$?
		cat /etc/shadow 2>&1 >/dev/null; echo read-shadow=\$?
		ls /root 2>&1 >/dev/null; echo list-root=\$?
		cat $T/ro/file; echo x 2>&1 > $T/ro/file; echo write-ro=\$?
		touch /usr/hutch-fallback 2>&1; echo write-usr=\$?
		$T/noexec/true 2>&1; echo exec-noexec=\$?
		$T/ro/true; echo exec-ro=\$?
		echo ok > $T/rw/made; echo write-rw=\$?" 2>/dev/null)
	assert_match "secret: Permission denied" "$out" "a host file outside the plan"
	assert_match "read-hidden=1" "$out" "read outside the plan"
	assert_match "read-shadow=1" "$out" "/etc/shadow (root owns it: no DAC refusal for root)"
	assert_match "list-root=2" "$out" "/root"
	assert_match "data" "$out" "a read-only path is readable"
	assert_match "file: Permission denied" "$out" "a read-only path cannot be written"
	assert_match "write-ro=[12]" "$out" "write to a read-only path"
	assert_match "write-usr=1" "$out" "write to /usr"
	assert_match "exec-noexec=126" "$out" "a path without execute cannot be executed"
	assert_match "exec-ro=0" "$out" "a read-only bind can be executed"
	assert_match "write-rw=0" "$out" "a writable bind"
	assert_eq ok "$(cat "$T/rw/made")" "written through --bind"
	rm -f "$T/rw/made"
	assert_eq data "$(cat "$T/ro/file")" "the read-only file is unchanged"
}
test_fallback_confines_files() { setup_fallback; for_each_caller check_files; }

test_fallback_drops_capabilities_of_root() {
	local out
	setup_fallback
	out=$(AS=as_root in_docker $(fb_opts) sh -c 'grep -E "^(CapEff|CapPrm|CapBnd|NoNewPrivs)" /proc/self/status' 2>/dev/null)
	assert_match "CapEff:[[:space:]]+0+$" "$(echo "$out" | grep CapEff)" "no effective capability"
	assert_match "CapBnd:[[:space:]]+0+$" "$(echo "$out" | grep CapBnd)" "empty bounding set"
	assert_match "NoNewPrivs:[[:space:]]+1" "$out" "no_new_privs"
}

# The listener's stdin is a pipe: closing it ends the listener.
check_network() {
	local port out
	coproc LISTENER { "$T/bin/tool" listen; }
	read -r port <&"${LISTENER[0]}"
	out=$(in_docker $(fb_opts) sh -c "$T/bin/tool connect $port; for f in inet inet6 packet netlink unix; do $T/bin/tool socket \$f; done" 2>/dev/null || true)
	assert_match "^socket: Address family not supported by protocol" "$out" "socket(AF_INET) without network"
	for f in inet6 packet netlink; do
		assert_match "socket $f: Address family not supported by protocol" "$out" "socket($f)"
	done
	assert_match "socket unix: ok" "$out" "AF_UNIX stays"
	# A TCP socket made outside and passed in: Landlock refuses connect
	# from ABI 4 (Linux 6.7); below it that is an approximation --explain
	# states, and the socket connects.
	out=$($AS "$T/bin/tool" inet-fd 5 "$T/bin/tool" docker "$H" $(fb_opts) --pass-fd 5 \
		"$T/bin/tool" connect "$port" 5 2>/dev/null || true)
	if [ "$(landlock_abi)" -ge 4 ]; then
		assert_eq "connect: Permission denied" "$out" "TCP connect to a loopback listener"
	else
		assert_eq "connected" "$out" "TCP connect of a passed socket (Landlock ABI $(landlock_abi) < 4)"
	fi
	out=$(in_docker $(fb_opts) --share-net "$T/bin/tool" connect "$port" 2>/dev/null || true)
	assert_eq "connected" "$out" "--share-net keeps the network"
	eval "exec ${LISTENER[1]}>&-"
	wait "$LISTENER_PID"
}
test_fallback_without_network() { setup_fallback; for_each_caller check_network; }

check_per_run_dirs() {
	local out tmp home
	out=$(in_docker $(fb_opts) sh -c 'echo "$TMPDIR"; echo "$HOME"; echo t > "$TMPDIR/t" && echo h > "$HOME/h" && mkdir "$HOME/d" && chmod 0 "$HOME/d"' 2>/dev/null)
	tmp=$(echo "$out" | sed -n 1p)
	home=$(echo "$out" | sed -n 2p)
	assert_match "^/tmp/hutch-fallback-[0-9]+-[0-9]+-[0-9]+/tmp$" "$tmp" "TMPDIR"
	assert_match "^/tmp/hutch-fallback-[0-9]+-[0-9]+-[0-9]+/home$" "$home" "HOME"
	[ ! -e "$tmp" ] && [ ! -e "$(dirname "$tmp")" ] || fail "per-run TMPDIR $tmp left behind"
	[ ! -e "$home" ] || fail "per-run HOME $home left behind"
}
test_fallback_per_run_dirs_are_removed() { setup_fallback; for_each_caller check_per_run_dirs; }

# Making the per-run directory fails halfway (an option applied in it
# names nothing): the failure is said and the directory goes anyway (it
# stayed, once its removal waited for the whole to be made).
check_per_run_dir_failure() {
	local rc=0 before
	before=$(run_dirs)
	in_docker $(fb_opts) --chmod 0700 /tmp/hutch-no-such-thing true 2>"$T/err" || rc=$?
	assert_eq 125 "$rc" "a per-run directory that cannot be made: 125"
	assert_match "^hutch: fallback: in the per-run directory: --chmod /tmp/hutch-no-such-thing: " \
		"$(tail -n 1 "$T/err")" "the failure names the stage and the object"
	assert_eq "$before" "$(run_dirs)" "no per-run directory left behind"
}
test_fallback_per_run_dir_failure_leaves_nothing() {
	setup_fallback
	for_each_caller check_per_run_dir_failure
}

# A run whose supervisor is SIGKILLed leaves its directory; the next
# start removes it (its supervisor's pid and start time say it is gone).
check_stale_dirs() {
	local dir run pid
	coproc RUN { in_docker $(fb_opts) sh -c 'echo "$TMPDIR"; exec sleep 1000' 2>/dev/null; }
	read -r dir <&"${RUN[0]}"
	run=$(dirname "$dir")
	pid=$(basename "$run" | cut -d- -f4)
	[ -d "$run" ] || fail "no per-run directory $run while running"
	kill -KILL "$pid"
	wait "$RUN_PID" || true
	[ -d "$run" ] || fail "$run gone without a next run"
	in_docker $(fb_opts) true 2>/dev/null
	[ ! -e "$run" ] || fail "the next run left the stale $run"
}
test_fallback_stale_dirs_removed_at_next_start() { setup_fallback; for_each_caller check_stale_dirs; }

# The subreaper: what COMMAND leaves running (even double-forked into a
# new session) is killed when COMMAND ends.
check_subreaper() {
	local pids p
	pids=$(in_docker $(fb_opts) sh -c '(setsid sleep 1000 & echo $! > "$TMPDIR/p"; sleep 1000 &); sleep 1000 & echo $!; cat "$TMPDIR/p"' 2>/dev/null)
	[ "$(echo "$pids" | wc -w)" = 2 ] || fail "no pids from COMMAND: [$pids]"
	for p in $pids; do
		! kill -0 "$p" 2>/dev/null || fail "process $p left behind"
	done
}
test_fallback_kills_every_descendant() { setup_fallback; for_each_caller check_subreaper; }

check_status_fd() {
	local out
	out=$(in_docker $(fb_opts) --json-status-fd 3 true 3>&1 2>/dev/null)
	assert_match '"mode": "landlock", "approximations": \["private /tmp and HOME are per-run directories"' \
		"$(echo "$out" | head -1)" "the first object"
	assert_match '"exit-code": 0, .*"mode": "landlock"' "$(echo "$out" | tail -1)" "the last object"
	assert_no_match '-namespace"' "$out" "no namespace ids under the fallback"
	# Without the filter: namespaces, where this machine allows them.
	have_sandbox_for_caller || { skip_part "the run without refusal: $WHY"; return 0; }
	out=$($AS "$H" $(fb_opts) --json-status-fd 3 true 3>&1 2>/dev/null)
	assert_match '"mode": "namespaces"' "$(echo "$out" | tail -1)" "without refusal"
}
test_fallback_status_fd_reports_mode() { setup_fallback; for_each_caller check_status_fd; }

# A policy allowing keyctl (--seccomp-policy none) under Docker's profile,
# which refuses keyctl: hutch did fail ("policy: session keyring:
# Operation not permitted", make check-container-docker).  Now COMMAND
# runs; the container's filter keeps it from every key all the same.
check_policy_none_keyctl_refused() {
	local out rc=0
	out=$(in_docker $(fb_opts) --seccomp-policy none python3 -c 'import ctypes
libc = ctypes.CDLL(None, use_errno=True)
print(libc.syscall(250, 0, -3, 0), ctypes.get_errno())' 2>"$T/err") || rc=$?
	assert_eq 0 "$rc" "exit status: $(tail -n 1 "$T/err")"
	assert_eq "-1 1" "$out" "keyctl(KEYCTL_GET_KEYRING_ID, the session keyring) in COMMAND: EPERM"
}
test_fallback_policy_none_where_keyctl_is_refused() { setup_fallback; for_each_caller check_policy_none_keyctl_refused; }

check_exit_statuses() {
	local rc
	rc=0; in_docker $(fb_opts) sh -c 'exit 42' 2>/dev/null || rc=$?
	assert_eq 42 "$rc" "exit 42"
	rc=0; in_docker $(fb_opts) sh -c 'kill -TERM $$' 2>/dev/null || rc=$?
	assert_eq 143 "$rc" "SIGTERM"
	rc=0; in_docker $(fb_opts) /no/such/program 2>"$T/err" || rc=$?
	assert_eq 127 "$rc" "not found"
	assert_eq "hutch: exec: /no/such/program: No such file or directory in the sandbox" "$(tail -1 "$T/err")" "not-found message"
	rc=0; in_docker $(fb_opts) --timeout 0.3 sleep 30 2>/dev/null || rc=$?
	assert_eq 124 "$rc" "--timeout"
}
test_fallback_exit_statuses() { setup_fallback; for_each_caller check_exit_statuses; }

test_fallback_refuses_what_landlock_cannot_express() {
	local rc
	setup_fallback
	AS=as_user
	rc=0; in_docker $(fb_opts) --bind "$T/rw" /srv/x true 2>"$T/err" || rc=$?
	assert_eq 125 "$rc" "moved bind"
	assert_eq "hutch: fallback: --bind $T/rw /srv/x: Landlock cannot move paths; use the same path inside and out" \
		"$(cat "$T/err")" "moved bind message"
	rc=0; in_docker --profile none --fallback landlock --ro-bind / / --tmpfs /tmp true 2>"$T/err" || rc=$?
	assert_eq 125 "$rc" "a tmpfs beneath a readable root"
	assert_eq "hutch: fallback: --tmpfs /tmp: Landlock cannot take away beneath --ro-bind / / what it grants; drop one of them" \
		"$(cat "$T/err")" "hidden-beneath message"
	rc=0; in_docker $(fb_opts) --dir /srv/hutch-fallback-dir true 2>"$T/err" || rc=$?
	assert_eq 125 "$rc" "--dir on the host"
	assert_match "Landlock cannot create paths on the host" "$(cat "$T/err")" "--dir message"
	[ ! -e /srv/hutch-fallback-dir ] || fail "--dir created a host path"
}

test_max_user_namespaces_zero() {
	local rc=0 out
	setup_fallback
	unshare -U -r sh -c 'echo 0 > /proc/sys/user/max_user_namespaces && ! unshare -U true 2>/dev/null' ||
		skip "cannot set user.max_user_namespaces in a user namespace here"
	as_root unshare -U -r sh -c 'echo 0 > /proc/sys/user/max_user_namespaces && exec "$@"' sh \
		"$H" $(fb_opts) --fallback none true 2>"$T/err" || rc=$?
	assert_eq 125 "$rc" "--fallback none"
	assert_eq "hutch: clone: new user namespace refused: user.max_user_namespaces is 0; fix: sysctl -w user.max_user_namespaces=15000; or --fallback landlock to run confined by Landlock instead" \
		"$(cat "$T/err")" "ENOSPC message"
	out=$(as_root unshare -U -r sh -c 'echo 0 > /proc/sys/user/max_user_namespaces && exec "$@"' sh \
		"$H" $(fb_opts) sh -c "cat $T/hidden/secret 2>&1; cat $T/ro/file" 2>"$T/err")
	assert_match "secret: Permission denied" "$out" "confined under the fallback"
	assert_match "data" "$out" "the plan's paths readable"
	assert_match "^hutch: fallback: user namespaces refused \\(user.max_user_namespaces is 0\\); running under Landlock ABI" \
		"$(cat "$T/err")" "notice"
}

# bwrap never falls back: bwrap 0.8.0's status, and bubblewrap 0.11.1's
# message (Debian's bwrap has a text of its own for EPERM).
BWRAP_EPERM="bwrap: No permissions to create a new namespace, likely because the kernel does not allow non-privileged user namespaces. On e.g. debian this can be enabled with 'sysctl kernel.unprivileged_userns_clone=1'."
check_bwrap_mode() {
	local got rc_want=0 rc_got=0
	$AS "$T/bin/tool" docker /usr/bin/bwrap --unshare-user --ro-bind / / true 2>/dev/null || rc_want=$?
	got=$($AS "$T/bin/tool" docker "$T/bwrap" --unshare-user --ro-bind / / true 2>&1) || rc_got=$?
	assert_eq "$rc_want" "$rc_got" "bwrap mode's exit status"
	assert_eq "$BWRAP_EPERM" "$got" "bwrap mode's message"
}
test_bwrap_mode_fails_closed() {
	[ -x /usr/bin/bwrap ] || skip "no /usr/bin/bwrap to compare with"
	setup_fallback
	for_each_caller check_bwrap_mode
}

# The default profile chooses the fallback, and it runs there.
check_default_profile() {
	local out
	out=$(in_docker sh -c 'cat /etc/shadow 2>&1; echo "$TMPDIR"; touch "$HOME/x" && echo home-ok' 2>"$T/err")
	assert_match "shadow: Permission denied" "$out" "/etc/shadow"
	assert_match "^/tmp/hutch-fallback-" "$(echo "$out" | sed -n 2p)" "TMPDIR"
	assert_match "home-ok" "$out" "HOME writable"
	assert_match "hutch: fallback: user namespaces refused" "$(cat "$T/err")" "notice"
}
test_default_profile_falls_back() { setup_fallback; for_each_caller check_default_profile; }

test_explain_shows_the_fallback() {
	local out
	setup_fallback
	out=$(as_user "$H" --explain true)
	assert_match "fallback: landlock \\(ABI [0-9]+ here\\)" "$out" "default profile"
	assert_match "read-write +/tmp: a per-run directory instead, named by \\\$TMPDIR" "$out" "per-run /tmp"
	out=$(as_user "$H" $(fb_opts) --bind "$T/rw" /srv/x --explain true)
	assert_match "fallback: landlock, but this plan cannot run under it: --bind $T/rw /srv/x: Landlock cannot move paths" \
		"$out" "an inexpressible plan"
	out=$(as_user "$H" --profile none --ro-bind / / --explain true)
	assert_match "^fallback: none" "$out" "--profile none"
}

# fallback_json OPTIONS...: --explain=json's fallback plan, in short.
fallback_json() {
	as_user "$H" "$@" --explain=json true | python3 -c '
import json, sys
f = json.load(sys.stdin)["fallback-plan"]
if f["mode"] != "landlock":
    print(f["mode"])
elif not f["usable"]:
    print("unusable:", f["reason"])
else:
    tmp = [a for a in f["per-run"] if a["dest"] == "/tmp"][0]
    usr = [r for r in f["rules"] if r["path"] == "/usr"][0]
    print(f["network"], tmp["access"], tmp["variable"], usr["access"], usr["origin"],
          len(f["approximations"]) > 0)'
}
test_explain_json_shows_the_fallback() {
	setup_fallback
	assert_match "^none read-write TMPDIR read, execute \(shipped\)/system:[0-9]+ True$" \
		"$(fallback_json)" "default profile"
	assert_match "^unusable: --bind $T/rw /srv/x: Landlock cannot move paths" \
		"$(fallback_json $(fb_opts) --bind "$T/rw" /srv/x)" "an inexpressible plan"
	assert_eq "none" "$(fallback_json --profile none --ro-bind / /)" "--profile none"
}
