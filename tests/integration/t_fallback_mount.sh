# A user namespace made but left without capabilities (Ubuntu 24.04's
# kernel.apparmor_restrict_unprivileged_userns=1, a BPF LSM doing the
# same), seen by the launch itself: the sandbox's first mount (/ made
# private, before anything of the sandbox is built) refused with EPERM or
# EACCES.  The fault build stands in for the security module:
# HUTCH_FAULT=refuse:first-mount:ERRNO makes that mount fail with ERRNO
# (refuse:later-mount:ERRNO the new root's tmpfs, a later mount).
# Where the profile has the fallback, COMMAND runs under Landlock with the
# fallback's one-line notice; without it, exit 125 and the cause's line;
# any other errno, or a later mount, is a plain failure; bwrap mode fails
# as bwrap does.  Nothing is left behind: no process, no per-run
# directory.

FM_SYSCTL=/proc/sys/kernel/apparmor_restrict_unprivileged_userns

# as_uid1001 CMD...: as as_user, as uid 1001 (the other unprivileged uid
# the project's tests use).
as_uid1001() {
	(cd "$T/work" && setpriv --reuid=1001 --regid=1001 --clear-groups \
		env -i PATH=/usr/bin:/bin HOME=/nonexistent USER=tester $(sanitizer_env) "$@")
}

# Root, $NOBODY and uid 1001.
for_each_fm_caller() {
	for_each_caller "$@"
	AS=as_uid1001 run_check "$@"
}

is_root_caller() { [ "$AS" = as_root ]; }
# Does this test (and so hutch) run under a seccomp filter already?
under_seccomp() { grep -q '^Seccomp:[[:space:]]*2' /proc/self/status; }

# The cause the line names, as a regex, for $AS and errno text $1, as
# userns_powerless() decides: Ubuntu's words where the sysctl is 1; for
# root, or under a filter already (a container engine's), whose refusal
# hutch cannot tell from a security module's, the failed step itself;
# otherwise a security module's doing.
fm_reason() {
	if [ "$(cat $FM_SYSCTL 2>/dev/null)" = 1 ]; then
		echo "kernel\\.apparmor_restrict_unprivileged_userns=1 leaves the new user namespace without capabilities"
	elif is_root_caller || under_seccomp; then
		echo "the first mount fails: $1"
	else
		echo "a security module refuses capabilities in new user namespaces, as Ubuntu's kernel\\.apparmor_restrict_unprivileged_userns=1 does"
	fi
}

fm_errtext() {
	case $1 in
	EPERM) echo "Operation not permitted" ;;
	EACCES) echo "Permission denied" ;;
	EINVAL) echo "Invalid argument" ;;
	esac
}

# fm_run SPEC ARGS...: the fault build ($FM_BIN, or $T/hutch-fault) as $AS with HUTCH_FAULT=SPEC, a
# tag in its environment and its per-run directories under $T/rundirs;
# RC, $T/out, $T/err, and PROBLEMS (what it left behind).
fm_run() {
	local spec=$1 left
	shift
	TAG=hutch-fm-$$-$RANDOM$RANDOM
	mkdir -p "$T/rundirs"
	chmod 1777 "$T/rundirs"
	RC=0
	$AS env HUTCH_FAULT="$spec" HUTCH_TEST_TAG="$TAG" TMPDIR="$T/rundirs" \
		"${FM_BIN:-$T/hutch-fault}" "$@" >"$T/out" 2>"$T/err" || RC=$?
	PROBLEMS=
	left=$(grep -l -a -- "[${TAG:0:1}]${TAG:1}" /proc/[0-9]*/environ 2>/dev/null || true)
	[ -z "$left" ] || PROBLEMS+="processes left: $left; "
	[ -z "$(ls -A "$T/rundirs")" ] || PROBLEMS+="per-run directories left: $(ls -A "$T/rundirs"); "
}

setup_fm() {
	need_fault_build
}

# ---- the default profile falls back ----

check_falls_back() {
	local e reason
	for e in EACCES EPERM; do
		reason=$(fm_reason "$(fm_errtext $e)")
		fm_run refuse:first-mount:$e --json-status-fd 3 sh -c 'echo ran; grep ^NoNewPrivs: /proc/self/status; exit 3' \
			3>"$T/status"
		assert_eq 3 "$RC" "$AS $e: COMMAND's exit status (stderr: $(cat "$T/err"))"
		assert_match "^ran" "$(cat "$T/out")" "$AS $e: COMMAND ran"
		assert_match "NoNewPrivs:[[:space:]]+1" "$(cat "$T/out")" "$AS $e: no_new_privs"
		assert_eq 1 "$(wc -l <"$T/err")" "$AS $e: one stderr line: $(cat "$T/err")"
		assert_match "^hutch: fallback: user namespaces refused \\($reason\\); running under Landlock ABI [1-9][0-9]* \\+ seccomp; approximations: " \
			"$(cat "$T/err")" "$AS $e: the fallback's notice"
		# The status fd tells the fallback alone: no line for the
		# namespace child that was ended.
		assert_eq 1 "$(grep -c '"child-pid"' "$T/status")" "$AS $e: one child-pid line: $(cat "$T/status")"
		assert_match '"mode": "landlock"' "$(head -1 "$T/status")" "$AS $e: mode landlock"
		assert_eq "" "$PROBLEMS" "$AS $e: nothing left behind"
	done
}
test_first_mount_refused_falls_back() { setup_fm; for_each_fm_caller check_falls_back; }

# Where nothing refuses, the same build runs the namespace sandbox: the
# word on the log changes nothing (COMMAND is pid 2 under the init).
check_no_fault_no_fallback() {
	fm_run none sh -c 'echo pid $$; exit 4'
	assert_eq 4 "$RC" "$AS: COMMAND's exit status (stderr: $(cat "$T/err"))"
	assert_eq "pid 2" "$(cat "$T/out")" "$AS: the namespace sandbox"
	assert_eq "" "$(cat "$T/err")" "$AS: nothing on stderr"
	assert_eq "" "$PROBLEMS" "$AS: nothing left behind"
}
test_first_mount_works_no_fallback() { setup_fm; for_each_fm_caller check_no_fault_no_fallback; }

# ---- a profile without the fallback fails closed ----

check_fails_closed() {
	local e reason line
	for e in EACCES EPERM; do
		reason=$(fm_reason "$(fm_errtext $e)")
		fm_run refuse:first-mount:$e --profile agent sh -c 'echo ran; exit 3'
		assert_eq 125 "$RC" "$AS $e: agent's exit status"
		assert_eq "" "$(cat "$T/out")" "$AS $e: COMMAND did not run"
		line=$(cat "$T/err")
		assert_eq 1 "$(wc -l <"$T/err")" "$AS $e: one stderr line: $line"
		assert_match "^hutch: mounts: new user namespace refused: $reason; fix: .+; or --fallback landlock to run confined by Landlock instead$" \
			"$line" "$AS $e: the line naming the cause and the fix"
		if ! is_root_caller && ! under_seccomp && [ "$(cat $FM_SYSCTL 2>/dev/null)" != 1 ]; then
			assert_match "; fix: let hutch make user namespaces in the policy of the security module" \
				"$line" "$AS $e: the security module's fix"
		fi
		assert_eq "" "$PROBLEMS" "$AS $e: nothing left behind"
	done
}
test_first_mount_refused_agent_fails_closed() { setup_fm; for_each_fm_caller check_fails_closed; }

# ---- plain failures: never a fallback ----

check_einval_plain() {
	fm_run refuse:first-mount:EINVAL sh -c 'echo ran; exit 3'
	assert_eq 125 "$RC" "$AS: exit status"
	assert_eq "" "$(cat "$T/out")" "$AS: COMMAND did not run"
	assert_eq "hutch: mounts: make private /: Invalid argument" "$(cat "$T/err")" "$AS: the plain failure"
	assert_eq "" "$PROBLEMS" "$AS: nothing left behind"
}
test_first_mount_einval_is_plain_failure() { setup_fm; for_each_fm_caller check_einval_plain; }

check_later_mount_plain() {
	local e
	for e in EPERM EACCES; do
		fm_run refuse:later-mount:$e sh -c 'echo ran; exit 3'
		assert_eq 125 "$RC" "$AS $e: exit status"
		assert_eq "" "$(cat "$T/out")" "$AS $e: COMMAND did not run"
		assert_eq "hutch: mounts: new root tmpfs /: $(fm_errtext $e)" "$(cat "$T/err")" \
			"$AS $e: the plain failure, no fallback"
		assert_eq "" "$PROBLEMS" "$AS $e: nothing left behind"
	done
}
test_later_mount_refused_is_plain_failure() { setup_fm; for_each_fm_caller check_later_mount_plain; }

# bwrap mode never falls back: bwrap's own message for its first mount.
check_bwrap_no_fallback() {
	fm_run refuse:first-mount:EPERM --unshare-user --ro-bind / / sh -c 'echo ran'
	assert_eq 1 "$RC" "$AS: bwrap's exit status"
	assert_eq "" "$(cat "$T/out")" "$AS: COMMAND did not run"
	assert_eq "bwrap: Failed to make / slave: Operation not permitted" "$(cat "$T/err")" "$AS: bwrap's message"
	assert_eq "" "$PROBLEMS" "$AS: nothing left behind"
}
test_bwrap_mode_first_mount_refused_no_fallback() {
	setup_fm
	mkdir "$T/bw"
	ln -s ../hutch-fault "$T/bw/bwrap"
	FM_BIN="$T/bw/bwrap" for_each_fm_caller check_bwrap_no_fallback
}
