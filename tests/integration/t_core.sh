# The core launcher: namespaces, ids, exit statuses, the default profile.

NONE="--profile none --ro-bind / / --proc /proc --dev /dev"

check_namespaces_new() {
	local ns inside outside
	for ns in user mnt pid ipc uts net cgroup; do
		outside=$($AS readlink /proc/self/ns/$ns)
		inside=$($AS "$H" $NONE --unshare-all readlink /proc/self/ns/$ns)
		[ -n "$inside" ] || fail "$ns: no namespace link inside"
		[ "$inside" != "$outside" ] || fail "$ns namespace shared: $inside"
	done
}
test_each_namespace_is_new() { for_each_caller check_namespaces_new; }

check_share_net() {
	local inside outside
	outside=$($AS readlink /proc/self/ns/net)
	inside=$($AS "$H" $NONE --unshare-all --share-net readlink /proc/self/ns/net)
	assert_eq "$outside" "$inside" "--share-net keeps the network namespace"
}
test_share_net() { for_each_caller check_share_net; }

check_ids() {
	assert_eq "1234:567" "$($AS "$H" $NONE --uid 1234 --gid 567 sh -c 'echo $(id -u):$(id -g)')" "--uid/--gid"
	assert_eq "$($AS id -u)" "$($AS "$H" $NONE id -u)" "default uid is the caller's"
}
test_ids_inside() { for_each_caller check_ids; }

check_hostname() {
	assert_eq "box" "$($AS "$H" $NONE --unshare-uts --hostname box hostname)" "--hostname"
}
test_hostname() { needs_hostname_in_userns; for_each_caller check_hostname; }

# COMMAND's parent, as /proc/self/stat names it: 1 in a procfs of the
# sandbox's own, its number outside where /proc is the caller's.
check_pid_one() {
	local out
	assert_eq 2 "$($AS "$H" $NONE sh -c 'echo $$')" "COMMAND is pid 2"
	out=$($AS "$H" $NONE sh -c 'read -r _ _ _ ppid _ </proc/self/stat; tr "\0" " " < /proc/$ppid/cmdline')
	assert_match "^hutch-init --command-pidfd" "$out" "pid 1 is hutch's init"
	if have_fresh_procfs; then
		assert_eq 1 "$($AS "$H" $NONE sh -c 'read -r _ _ _ ppid _ </proc/self/stat; echo $ppid')" \
			"COMMAND's parent in the sandbox's /proc"
	fi
	assert_eq "1" "$($AS "$H" $NONE --as-pid-1 sh -c 'echo $$')" "--as-pid-1"
}
test_pid_one() { for_each_caller check_pid_one; }

check_exit_statuses() {
	local rc code
	for code in 0 1 42 255; do
		rc=0; $AS "$H" $NONE sh -c "exit $code" || rc=$?
		assert_eq "$code" "$rc" "exit $code"
	done
	rc=0; $AS "$H" $NONE sh -c 'kill -SEGV $$' 2>/dev/null || rc=$?
	assert_eq 139 "$rc" "SIGSEGV"
	rc=0; $AS "$H" $NONE /no/such/program 2>"$T/err" || rc=$?
	assert_eq 127 "$rc" "not found"
	assert_match "^hutch: exec: /no/such/program: No such file or directory in the sandbox$" "$(cat "$T/err")" "not-found message"
	rc=0; $AS "$H" $NONE /etc/passwd 2>"$T/err" || rc=$?
	assert_eq 126 "$rc" "cannot execute"
	rc=0; $AS "$H" --profile none --ro-bind /no/such/dir /x true 2>"$T/err" || rc=$?
	assert_eq 125 "$rc" "bad bind source"
	assert_match "^hutch: mounts: bind source /no/such/dir: No such file or directory$" "$(cat "$T/err")" "bad source message"
}
test_exit_statuses() { for_each_caller check_exit_statuses; }

check_default_profile() {
	local out rc
	out=$($AS "$H" sh -c 'ls /; touch /usr/x 2>&1; touch /tmp/x && echo tmp-ok; touch ~/x && echo home-ok; touch ./x 2>&1 | grep -c Read-only')
	assert_match "usr" "$out" "/usr is there"
	assert_match "Read-only file system" "$out" "/usr read-only"
	assert_match "tmp-ok" "$out" "/tmp writable"
	assert_match "home-ok" "$out" "home writable"
	# Nothing of the host home or root directory.
	rc=0; $AS "$H" ls /root /home >/dev/null 2>&1 || rc=$?
	[ "$rc" != 0 ] || fail "/root or /home visible"
}
test_default_profile() { for_each_caller check_default_profile; }

test_default_profile_refuses_home() {
	local rc=0
	(cd / && env -i PATH=/usr/bin:/bin HOME=/root "$H" true) 2>"$T/err" || rc=$?
	assert_eq 125 "$rc" "run from /"
	assert_match "current directory /: holds your home directory /root" "$(cat "$T/err")" "message"
	rc=0
	(cd /root && env -i PATH=/usr/bin:/bin HOME=/root "$H" true) 2>"$T/err" || rc=$?
	assert_eq 125 "$rc" "run from home"
	assert_match "current directory /root: is your home directory" "$(cat "$T/err")" "message"
}

# A name holding a terminal escape reaches the caller's stderr escaped,
# and --explain=json stays valid JSON for a path that is not UTF-8.
check_messages_escaped() {
	local err dir
	err=$($AS "$H" "$(printf 'esc\033[31mRED')" 2>&1 >/dev/null || true)
	assert_eq 'hutch: exec: esc\x1b[31mRED: No such file or directory in the sandbox (nor in its PATH)' "$err" "the escape, escaped"
	# C1 controls in UTF-8 (U+009B is CSI to a terminal that reads them).
	err=$($AS "$H" "$(printf 'c1\302\23331mRED')" 2>&1 >/dev/null || true)
	assert_eq 'hutch: exec: c1\xc2\x9b31mRED: No such file or directory in the sandbox (nor in its PATH)' "$err" "a C1 control, escaped"
	dir="$T/work/$(printf 'bad\377name')"
	mkdir -p "$dir" && chmod 0755 "$dir"
	$AS sh -c 'cd "$0" && exec "$1" --profile none --ro-bind-cwd --explain=json true' "$dir" "$H" |
		python3 -c 'import json, sys; json.loads(sys.stdin.buffer.read().decode("utf-8"))' || fail "--explain=json of a non-UTF-8 path"
}
test_messages_escaped() { for_each_caller check_messages_escaped; }

# An exec failure says what is missing, and that the sandbox lacks it.
check_exec_errors_name_what_is_missing() {
	local err
	printf '#!/nonexistent/interp\necho hi\n' >"$T/work/script"
	chmod 0755 "$T/work/script"
	err=$($AS "$H" --ro-bind "$T/work" "$T/work" ./script 2>&1 >/dev/null || true)
	assert_eq "hutch: exec: ./script: its interpreter /nonexistent/interp: No such file or directory in the sandbox" \
		"$err" "a script whose interpreter is missing"
	err=$($AS "$H" "$T/hutch" 2>&1 >/dev/null || true)
	assert_eq "hutch: exec: $T/hutch: No such file or directory in the sandbox" "$err" \
		"a host file the sandbox does not have"
	err=$($AS "$H" no-such-command-here 2>&1 >/dev/null || true)
	assert_eq "hutch: exec: no-such-command-here: No such file or directory in the sandbox (nor in its PATH)" \
		"$err" "a name not in PATH"
	local rc=0
	err=$($AS "$H" "" 2>&1) || rc=$?
	assert_eq "125 hutch: parse: COMMAND is an empty word" "$rc $err" "an empty COMMAND"
}
test_exec_errors_name_what_is_missing() { for_each_caller check_exec_errors_name_what_is_missing; }

# hutch's own --help: from the option table (every option the parser
# takes is listed, each in the man page), the default profile, the exit
# statuses, the pointer to hutch(1); -h and -V.
test_hutch_help() {
	local help opt man="$here/../../man/hutch.1" missing=""
	help=$(as_user "$H" --help)
	assert_eq "$help" "$(as_user "$H" -h)" "-h is --help"
	assert_match '^usage: hutch \[OPTIONS\.\.\.\] \[--\] COMMAND \[ARGS\.\.\.\]$' "$(printf '%s\n' "$help" | head -n 1)" "usage"
	assert_match '"default" unless --profile' "$help" "the default profile"
	assert_match 'Exit status: .*124' "$(printf '%s\n' "$help" | tr '\n' ' ')" "exit statuses"
	assert_match 'See hutch\(1\)' "$help" "the man page"
	assert_match '^    --explain\[=FORMAT\] ' "$(printf '%s\n' "$help" | grep -e '--explain')" "--explain[=FORMAT]"
	for opt in $(printf '%s\n' "$help" | grep -Eo '^    (-[a-zA-Z], )?--[a-z0-9-]+' | grep -Eo -- '--[a-z0-9-]+'); do
		grep -qF -- "\\-\\-$(printf '%s' "${opt#--}" | sed 's/-/\\-/g')" "$man" ||
			missing="$missing $opt"
	done
	assert_eq "" "$missing" "options of --help missing from hutch(1)"
	assert_match '^hutch [0-9]' "$(as_user "$H" -V)" "-V"
	assert_eq "bwrap: Unknown option -h" "$(as_user "$T/bwrap" -h 2>&1)" "bwrap mode knows no -h"
}

# hutch mode refuses a network capability that would act on nothing;
# bwrap mode gives it, and it works there (loopback goes down).
test_net_capability_refused_in_hutch_mode() {
	local rc=0 err
	err=$(as_user "$H" --cap-add CAP_NET_ADMIN true 2>&1) || rc=$?
	assert_eq 125 "$rc" "hutch mode: --cap-add CAP_NET_ADMIN"
	assert_match "^hutch: parse: --cap-add CAP_NET_ADMIN: in hutch mode COMMAND runs in a user namespace of its own" \
		"$err" "the reason"
	user_sandbox_offered || return 0
	assert_eq 0 "$(as_user "$H" --cap-add ALL true; echo $?)" "--cap-add ALL still works"
	command -v ip >/dev/null || skip "no ip(8) for the bwrap-mode half"
	# Where a security module gives no capability to what a launcher
	# executes (Ubuntu's profiles for bwrap and hutch, and the stand-in
	# with hutch registered), --cap-add cannot act: there unshare's
	# namespace has none either.
	AS=as_user have_powerful_userns || { AS=as_user skip_part "bwrap mode's capability: $WHY"; return 0; }
	assert_eq ok "$(as_user "$T/bwrap" --ro-bind / / --unshare-user --unshare-net --cap-add CAP_NET_ADMIN \
		sh -c 'ip link set lo down && echo ok' 2>&1)" "bwrap mode: the capability acts"
}
