# The caller's fds (issue 16): every option that takes an fd is checked
# while parsing, before hutch opens anything, and hutch's own fds never
# take the number of one.  In both modes, as root and as the unprivileged
# uid.  Every run is bounded by `timeout`: a number that reached one of
# hutch's own fds used to hang (--block-fd 4 read hutch's pipe).

R="--ro-bind / /"
NONE="--profile none"

# status_and_stderr CMD...: "STATUS STDERR" of CMD as $AS, at most 10 seconds.
status_and_stderr() {
	local rc=0 err
	err=$($AS timeout 10 "$@" 2>&1 >/dev/null) || rc=$?
	echo "$rc $err"
}

# outcome_without_fds PROG ARGS...: the outcome of PROG ARGS true with no fd but 0, 1
# and 2 open.
outcome_without_fds() { (without_fds status_and_stderr "$@" true); }

check_unopened_hutch() {
	local o words
	for o in "${FD_OPTIONS[@]}" "${HUTCH_FD_OPTIONS[@]}" "pass-fd 6" "pass-fd 9" "pass-fd 12"; do
		read -ra words <<<"$o"
		assert_eq "125 hutch: parse: --${words[0]} ${words[1]}: Bad file descriptor" \
			"$(outcome_without_fds "$H" $NONE $R "--${words[0]}" "${words[@]:1}")" "hutch mode: --$o, never opened"
	done
	assert_eq "125 hutch: parse: --listen-fds: fd 3 of LISTEN_FDS=2: Bad file descriptor" \
		"$(outcome_without_fds env LISTEN_FDS=2 "$H" $NONE $R --listen-fds)" "hutch mode: --listen-fds"
	# The default profile too, and the text given the issue's example.
	assert_eq "125 hutch: parse: --bind-fd 9: Bad file descriptor" \
		"$(outcome_without_fds "$H" --bind-fd 9 /x sh -c 'touch /x/PLANTED')" "the default profile: --bind-fd 9"
}
test_fds_unopened_refused_hutch_mode() { for_each_caller check_unopened_hutch; }

# bwrap 0.11.1's own words for each (it finds out when it uses the fd);
# where it has none, as it ignores the fd (--sync-fd, --block-fd,
# --userns-block-fd), hutch fails the same way all the same.
bwrap_text() {
	case $1 in
	bind-fd | ro-bind-fd) echo "Can't find source path /proc/self/fd/$2: No such file or directory" ;;
	file | bind-data | ro-bind-data) echo "Can't write data to file $3: Bad file descriptor" ;;
	seccomp | add-seccomp-fd) echo "Can't read seccomp data: Bad file descriptor" ;;
	args) echo "Can't read --args data: Bad file descriptor" ;;
	info-fd | json-status-fd) echo "Write to info_fd: Bad file descriptor" ;;
	userns) echo "Joining specified user namespace failed: Bad file descriptor" ;;
	userns2) echo "Setting userns2 failed: Bad file descriptor" ;;
	pidns) echo "Setting pidns failed: Bad file descriptor" ;;
	*) echo "--$1 $2: Bad file descriptor" ;;
	esac
}

check_unopened_bwrap() {
	local o words opts
	for o in "${FD_OPTIONS[@]}"; do
		read -ra words <<<"$o"
		opts=()
		[ "${words[0]}" = userns-block-fd ] && opts=(--unshare-user --info-fd 1)
		assert_eq "1 bwrap: $(bwrap_text "${words[@]}")" \
			"$(outcome_without_fds "$T/bwrap" $R "${opts[@]}" "--${words[0]}" "${words[@]:1}")" \
			"bwrap mode: --$o, never opened"
	done
}
test_fds_unopened_refused_bwrap_mode() { for_each_caller check_unopened_bwrap; }

# COMMAND writes forged hutch lines and status objects into every fd from
# 3 to 64: none reaches the caller's stderr, the status stream, the info
# or the report.  The caller gives every kind of fd option, and one fd on
# purpose (--pass-fd), which is COMMAND's to write.
# (bash: dash takes no fd above 9 after >&.)
FORGE='for fd in $(seq 3 64); do
	(printf "hutch: mounts: forged\n{ \"exit-code\": 99, \"forged\": true }\n" >&$fd) 2>/dev/null
done; echo done'

forge_run() {
	local d=$1
	shift
	$AS timeout 20 "$@" bash -c "$FORGE" 4>"$d/status" 5>"$d/info" 6>"$d/sync" \
		7<<<release 8<<<filedata 9<"$d" 10>"$d/passed" 11>"$d/report" \
		>"$d/out" 2>"$d/err"
}

check_forgery() {
	local d=$T/forge.$AS status
	mkdir -p "$d"
	chmod 0777 "$d"
	forge_run "$d" "$H" $NONE $R --dev /dev --tmpfs /tmp --json-status-fd 4 --info-fd 5 --sync-fd 6 \
		--block-fd 7 --file 8 /tmp/f --bind-fd 9 /mnt --lock-file /etc/hostname \
		--pass-fd 10 --report-fd 11 || fail "hutch mode: status $? ($(cat "$d/err"))"
	assert_eq done "$(cat "$d/out")" "hutch mode: COMMAND ran"
	assert_eq "" "$(cat "$d/err")" "hutch mode: the caller's stderr"
	status=$(cat "$d/status")
	assert_no_match forged "$status$(cat "$d/info" "$d/report")" "hutch mode: status, info and report"
	assert_eq "3 child-pid setup-finished exit-code" \
		"$(grep -c . <<<"$status") $(grep -o '^{ "[a-z-]*"' <<<"$status" | tr -d '{ "' | paste -sd' ')" \
		"hutch mode: the status objects"
	assert_match '"exit-code": 0,' "$status" "hutch mode: exit-code"
	assert_match "forged" "$(cat "$d/passed")" "control: the fd passed on purpose is COMMAND's"
	bwrap_as_caller || return 0
	forge_run "$d" "$T/bwrap" $R --dev /dev --tmpfs /tmp --json-status-fd 4 --info-fd 5 --sync-fd 6 \
		--block-fd 7 --file 8 /tmp/f --bind-fd 9 /mnt --lock-file /etc/hostname ||
		fail "bwrap mode: status $? ($(cat "$d/err"))"
	assert_eq "" "$(cat "$d/err")" "bwrap mode: the caller's stderr"
	assert_no_match forged "$(cat "$d/status" "$d/info")" "bwrap mode: status and info"
	assert_eq '{ "exit-code": 0 }' "$(sed -n 2p "$d/status")" "bwrap mode: exit-code"
}

# The same with a --pass-fd the caller never opened: it used to hand
# COMMAND one of hutch's own fds (with 7, the log pipe: forged lines on
# the caller's stderr and the status objects lost).
forge_pass() {
	$AS timeout 20 "$H" $NONE $R --dev /dev --json-status-fd 4 --pass-fd "$2" \
		bash -c "$FORGE" 4>"$1/status" >"$1/out" 2>"$1/err"
}
check_forgery_unopened() {
	local d=$T/forge.$AS fd
	mkdir -p "$d"
	for fd in 5 6 7 8 9 12 13 20; do
		(without_fds forge_pass "$d" $fd) || true
		assert_no_match forged "$(cat "$d/err" "$d/status")" "--pass-fd $fd, never opened"
		cp "$d/err" "$d/err.$fd"
	done
	for fd in 5 6 7 8 9 12 13 20; do
		assert_eq "hutch: parse: --pass-fd $fd: Bad file descriptor" "$(cat "$d/err.$fd")" \
			"--pass-fd $fd, never opened: the message"
	done
}
test_fds_command_cannot_forge_hutch_channels() {
	for_each_caller check_forgery
	for_each_caller check_forgery_unopened
}

# pid 1 holds --lock-file and --sync-fd from fd 512 on: never where the
# caller has an fd, which COMMAND would then lose.
check_held_range() {
	echo caller >"$T/f512"
	chmod 0644 "$T/f512"
	assert_eq "$T/f512" "$($AS timeout 10 "$H" $NONE $R --lock-file /etc/hostname --pass-fd 512 \
		readlink /proc/self/fd/512 512<"$T/f512" 2>&1)" "hutch mode: --pass-fd 512 with a lock file"
	bwrap_as_caller || return 0
	assert_eq "$T/f512" "$($AS timeout 10 "$T/bwrap" $R --unshare-pid --sync-fd 3 \
		readlink /proc/self/fd/512 3>/dev/null 512<"$T/f512" 2>&1)" "bwrap mode: fd 512 with --sync-fd"
	have_debian_bwrap || { skip_part "$WHY"; return 0; }
	assert_eq "$T/f512" "$($AS timeout 10 /usr/bin/bwrap $R --unshare-pid --sync-fd 3 \
		readlink /proc/self/fd/512 3>/dev/null 512<"$T/f512" 2>&1)" "control: Debian's bwrap"
}
test_fds_held_range_leaves_caller_fds() { for_each_caller check_held_range; }

# An fd COMMAND keeps may not be one hutch reads, writes or closes.
check_passed_channel() {
	assert_eq "125 hutch: parse: fd 4, passed to COMMAND, is also the fd of --json-status-fd: an fd that hutch reads, writes or closes is never COMMAND's" \
		"$(status_and_stderr "$H" $NONE $R --json-status-fd 4 --pass-fd 4 true 4>/dev/null)" \
		"--pass-fd of the status fd"
	assert_match "^125 hutch: parse: fd 5, passed to COMMAND, is also the fd of --seccomp" \
		"$(status_and_stderr "$H" $NONE $R --seccomp 5 --pass-fd 5 true 5</dev/null)" "--pass-fd of a --seccomp fd"
}
test_fds_passed_fd_is_no_channel() { for_each_caller check_passed_channel; }
