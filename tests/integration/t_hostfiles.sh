# The files hutch opens on the host by a path the caller gave (issue 25:
# points 1, 2 and 6; issue 26: the profile's message): a sandbox that
# writes the project replaces such a path, between two runs, with a
# symbolic link, a FIFO, a directory or a socket, and hutch neither
# follows, nor blocks, nor writes anywhere but a new file of its own.
# Every run is bounded by timeout(1): a hang is a failure with its own
# exit code, never a stuck suite.

NONE="--profile none --ro-bind / /"
BOUND="timeout -s KILL 8"

# project: a directory the caller owns, which the sandbox writes: $P.
project() {
	P=$T/proj-$AS
	rm -rf "$P"
	mkdir "$P"
	[ "$AS" = as_root ] || chown $NOBODY:$NOBODY "$P"
}

# plant KIND NAME: the sandbox, in a first run, puts a KIND (symlink
# TARGET, fifo, dir, socket) at $P/NAME, where a file stood or none did.
plant() {
	local kind=$1 name=$2 target=${3:-}
	$AS $BOUND "$H" $NONE --bind "$P" "$P" sh -c '
		cd "$0" && rm -rf "$2" || exit 1
		case $1 in
		symlink) ln -s "$3" "$2" ;;
		fifo) mkfifo "$2" ;;
		dir) mkdir "$2" ;;
		socket) python3 -c "import socket, sys; socket.socket(socket.AF_UNIX).bind(sys.argv[1])" "$2" ;;
		esac' "$P" "$kind" "$name" "$target" || fail "the sandbox could not plant a $kind"
}


# The architecture's number of bpf(2), refused by the default policy.
bpf_nr() {
	case $(uname -m) in
	x86_64) echo 321 ;;
	aarch64) echo 280 ;;
	*) echo 0 ;;
	esac
}

# ---- --report FILE ----

# Point 1: agent.jsonl, a link to a start-up file of the caller's; the
# next run with --report agent.jsonl must neither truncate it nor write
# into it, even a line with a command the sandbox named "$(id>~/PWNED)".
check_report_symlink_not_followed() {
	local victim rc=0 line nr
	nr=$(bpf_nr)
	[ "$nr" != 0 ] || { skip_part "no bpf(2) number for $(uname -m)"; return 0; }
	project
	victim=$T/victim-$AS
	echo 'echo precious' >"$victim"
	[ "$AS" = as_root ] || chown $NOBODY:$NOBODY "$victim"
	plant symlink agent.jsonl "$victim"
	from "$P" $BOUND "$H" $NONE --report agent.jsonl true 2>"$T/err" || rc=$?
	assert_eq "0 " "$rc $(cat "$T/err")" "second run, the link in place"
	assert_eq "echo precious" "$(cat "$victim")" "the link's target (truncated?)"
	[ -f "$P/agent.jsonl" ] && [ ! -L "$P/agent.jsonl" ] || fail "agent.jsonl is not a new regular file"
	assert_eq 600 "$(stat -c %a "$P/agent.jsonl")" "the report's mode"
	# A run with a refusal: its line goes to the new file, escaped.
	plant symlink agent.jsonl "$victim"
	rc=0
	from "$P" $BOUND "$H" $NONE --report agent.jsonl python3 -c '
import ctypes
libc = ctypes.CDLL(None)
libc.prctl(15, b"$(id>~/PWNED)", 0, 0, 0)
libc.syscall('"$nr"', 0, 0, 0)' 2>"$T/err" || rc=$?
	assert_eq 0 "$rc" "the run with a refusal"
	assert_eq "echo precious" "$(cat "$victim")" "the link's target after a refusal"
	line=$(cat "$P/agent.jsonl")
	# A filter of the machine's (a container engine's) refuses bpf with
	# an errno before hutch's filter is asked: no notification, no line.
	if [ -z "$line" ] && grep -Eq '^Seccomp:[[:space:]]+2' /proc/self/status; then
		skip_part "bpf(2) never reaches hutch's filter here (a seccomp filter of the machine's refuses it first)"
		return 0
	fi
	assert_match '"command":"\\u0024\(id>~/PWNED\)"' "$line" "the command name, escaped"
	assert_no_match '[$`]' "$line" "no shell expansion in the line"
}
test_report_symlink_not_followed() { for_each_caller check_report_symlink_not_followed; }

# Point 2: a FIFO at the report's name: hutch does not block in open();
# it replaces the FIFO and exits 0 at once.
check_report_fifo_no_hang() {
	local rc=0
	project
	plant fifo agent.jsonl
	from "$P" $BOUND "$H" $NONE --timeout 5 --report agent.jsonl true 2>"$T/err" || rc=$?
	assert_eq "0 " "$rc $(cat "$T/err")" "exit status and message (137: hung, killed)"
	[ -f "$P/agent.jsonl" ] && [ ! -p "$P/agent.jsonl" ] || fail "the FIFO is still there"
}
test_report_fifo_no_hang() { for_each_caller check_report_fifo_no_hang; }

# A socket at the name is replaced too (open() on it would fail ENXIO).
check_report_socket_replaced() {
	local rc=0
	project
	plant socket agent.jsonl
	from "$P" $BOUND "$H" $NONE --report agent.jsonl true 2>"$T/err" || rc=$?
	assert_eq "0 " "$rc $(cat "$T/err")" "exit status and message"
	[ -f "$P/agent.jsonl" ] && [ ! -S "$P/agent.jsonl" ] || fail "the socket is still there"
}
test_report_socket_replaced() { for_each_caller check_report_socket_replaced; }

# A directory at the name: refused, said so, and left as it is.
check_report_directory_refused() {
	local rc=0
	project
	plant dir agent.jsonl
	from "$P" $BOUND "$H" $NONE --report agent.jsonl true 2>"$T/err" || rc=$?
	assert_eq "125 hutch: report: agent.jsonl: a directory stands there" "$rc $(cat "$T/err")" \
		"exit status and message"
	[ -d "$P/agent.jsonl" ] || fail "the directory is gone"
	assert_eq "" "$(ls -A "$P" | grep -v '^agent.jsonl$' || true)" "no temporary file left"
}
test_report_directory_refused() { for_each_caller check_report_directory_refused; }

# A directory on the way replaced by a link to one outside: refused,
# nothing written outside.
check_report_parent_symlink_refused() {
	local rc=0 outside=$T/outside-$AS
	project
	rm -rf "$outside"
	mkdir "$outside"
	[ "$AS" = as_root ] || chown $NOBODY:$NOBODY "$outside"
	plant symlink out "$outside"
	from "$P" $BOUND "$H" $NONE --report out/agent.jsonl true 2>"$T/err" || rc=$?
	assert_eq "125 hutch: report: out/agent.jsonl: a symbolic link on the way to its directory (refused: links are not followed)" \
		"$rc $(cat "$T/err")" "exit status and message"
	assert_eq "" "$(ls -A "$outside")" "nothing written outside"
}
test_report_parent_symlink_refused() { for_each_caller check_report_parent_symlink_refused; }

# Each run's report is a new file: an old report's inode, which a
# sandbox may hold open or have linked elsewhere, is never written again.
# The report is opened before the namespaces are made: where they are
# refused, or powerless for this caller (the profile none has no
# fallback), the run fails after it.
run_reporting() {
	local rc=0
	from "$P" $BOUND "$H" $NONE --report agent.jsonl true 2>"$T/err" || rc=$?
	[ "$rc" = 0 ] || { [ "$rc" = 125 ] && ! have_sandbox_for_caller; } ||
		fail "exit status $rc ($(cat "$T/err"))"
}
check_report_fresh_each_run() {
	local first
	project
	run_reporting
	ln "$P/agent.jsonl" "$P/held"
	first=$(stat -c %i "$P/agent.jsonl")
	echo kept >"$P/held"
	run_reporting
	[ "$(stat -c %i "$P/agent.jsonl")" != "$first" ] || fail "the same inode was reused"
	assert_eq kept "$(cat "$P/held")" "the old report's inode (truncated?)"
}
test_report_fresh_each_run() { for_each_caller check_report_fresh_each_run; }

# ---- --profile FILE and --seccomp-policy FILE ----

# profile_refused KIND WHY: a profile path the sandbox replaced with KIND
# is refused with WHY, at once.
profile_refused() {
	local kind=$1 why=$2 rc=0
	project
	case $kind in
	fifo-link) plant fifo real; plant symlink p real ;;
	*) plant "$kind" p ;;
	esac
	from "$P" $BOUND "$H" --profile ./p true 2>"$T/err" || rc=$?
	assert_eq "125 hutch: parse: profile ./p: $why" "$rc $(cat "$T/err")" \
		"--profile ./p, a $kind (137: hung, killed)"
}
check_profile_not_regular_refused() {
	profile_refused fifo "not a regular file (a FIFO)"
	profile_refused fifo-link "not a regular file (a FIFO)"
	profile_refused dir "not a regular file (a directory)"
	profile_refused socket "not a regular file (a socket)"
}
test_profile_not_regular_refused() { for_each_caller check_profile_not_regular_refused; }

# A profile of another user (through a link the sandbox planted, or
# not) is refused: root does not read a file the unprivileged uid wrote.
test_profile_of_another_user_refused() {
	local rc=0
	AS=as_root project
	printf 'setenv X y\n' >"$T/theirs"
	chown $NOBODY:$NOBODY "$T/theirs"
	ln -s "$T/theirs" "$P/p"
	AS=as_root from "$P" $BOUND "$H" --profile ./p true 2>"$T/err" || rc=$?
	assert_eq "125 hutch: parse: profile ./p: owned by another user (neither you nor root)" \
		"$rc $(cat "$T/err")" "root, a profile of uid $NOBODY"
}

# Issue 26, point 5: /proc/self/environ is small and holds NUL bytes.
check_profile_proc_environ() {
	local rc=0
	$AS $BOUND "$H" --profile /proc/self/environ true 2>"$T/err" || rc=$?
	assert_eq "125 hutch: parse: profile /proc/self/environ: holds a NUL byte" \
		"$rc $(cat "$T/err")" "exit status and message"
}
test_profile_proc_environ() { for_each_caller check_profile_proc_environ; }

# A seccomp policy file the sandbox made a FIFO: refused at once.
check_policy_fifo_refused() {
	local rc=0
	project
	plant fifo pol
	from "$P" $BOUND "$H" $NONE --seccomp-policy ./pol true 2>"$T/err" || rc=$?
	assert_eq 125 "$rc" "exit status (137: hung, killed)"
	assert_match "pol: not a regular file \(a FIFO\)$" "$(cat "$T/err")" "message"
}
test_policy_fifo_refused() { for_each_caller check_policy_fifo_refused; }

# ---- include ----

# Point 6: "include ./base" in a user profile is the profile's neighbour,
# never the project's ./base (which the sandbox wrote).
check_include_beside_the_profile() {
	local x=$T/xdg-$AS out rc=0
	project
	rm -rf "$x"
	mkdir -p "$x/hutch/profiles"
	printf 'include ./base\n' >"$x/hutch/profiles/mine"
	printf 'ro-bind / /\nsetenv FROM beside\n' >"$x/hutch/profiles/base"
	printf 'ro-bind / /\nsetenv FROM project\n' >"$T/planted"
	cp "$T/planted" "$P/base"
	[ "$AS" = as_root ] || chown $NOBODY:$NOBODY "$P/base"
	out=$(from "$P" env XDG_CONFIG_HOME="$x" $BOUND "$H" --profile mine -- \
		sh -c 'echo "$FROM"' 2>"$T/err") || rc=$?
	assert_eq "0 beside" "$rc $out" "the included base"
	# A name without a slash is never looked up in the current directory.
	rc=0
	from "$P" env XDG_CONFIG_HOME="$x" $BOUND "$H" --profile nosuch true 2>"$T/err" || rc=$?
	cp "$T/planted" "$P/nosuch"
	from "$P" env XDG_CONFIG_HOME="$x" $BOUND "$H" --profile nosuch true 2>"$T/err" || rc=$?
	assert_eq 125 "$rc" "--profile nosuch with ./nosuch in the project"
	assert_match "^hutch: parse: profile nosuch: not found in " "$(cat "$T/err")" "message"
}
test_include_beside_the_profile() { for_each_caller check_include_beside_the_profile; }

# ---- set-up's files in a bound host directory ----

# --file FD DEST where a FIFO stands at DEST in a directory bound from the
# host (left there by an earlier run): set-up fails at once instead of
# blocking in open() past --timeout.
check_file_dest_fifo_no_hang() {
	local rc=0
	project
	plant fifo f
	$AS $BOUND "$H" $NONE --timeout 3 --bind "$P" "$P" --file 3 "$P/f" true 3<<<data \
		2>"$T/err" || rc=$?
	assert_eq 125 "$rc" "exit status (137: hung, killed)"
	assert_eq "hutch: mounts: Can't write data to file $P/f: No such device or address" \
		"$(cat "$T/err")" "message"
	[ -p "$P/f" ] || fail "the FIFO was replaced"
}
test_file_dest_fifo_no_hang() { for_each_caller check_file_dest_fifo_no_hang; }
