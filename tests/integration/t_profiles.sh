# The shipped profiles: a representative program under each, and one
# thing each must forbid.  Run from a project directory in $T/work.

# A small C project (lib.sh's make_project), writable by both callers.
make_c_project() {
	make_project
	printf '#include <stdio.h>\nint main(void) { puts("built"); return 0; }\n' >"$T/work/proj/hello.c"
	printf 'hello: hello.c\n\tcc -o hello hello.c\n' >"$T/work/proj/Makefile"
	chmod a+rw "$T/work/proj/hello.c" "$T/work/proj/Makefile"
}

# A TCP listener on the host's loopback, accepting once: PORT is its
# port; stop_listener ends it whether or not anyone connected.
start_listener() {
	exec {LFD}< <(exec python3 -c '
import socket
s = socket.socket(); s.bind(("127.0.0.1", 0)); s.listen(1)
print(s.getsockname()[1], flush=True)
c, _ = s.accept(); c.sendall(b"hello from the host\n"); c.close()')
	LISTENER=$!
	read -r PORT <&"$LFD"
}
stop_listener() {
	kill "$LISTENER" 2>/dev/null || true
	exec {LFD}<&-
}

CONNECT='import socket, sys
s = socket.socket()
try:
    s.connect(("127.0.0.1", int(sys.argv[1]))); print(s.recv(100).decode().strip())
except OSError as e:
    print("refused:", e.errno)'

check_ci_builds_and_has_no_network() {
	make_c_project
	local out
	out=$(in_project "$T/hutch" --profile ci make 2>&1)
	[ -x "$T/work/proj/hello" ] || fail "ci: make did not build into the current directory: $out"
	assert_eq "built" "$("$T/work/proj/hello")" "ci: the build runs on the host"
	start_listener
	out=$(in_project "$T/hutch" --profile ci python3 -c "$CONNECT" "$PORT")
	stop_listener
	assert_match "^refused: " "$out" "ci: no network"
	rm -f "$T/work/proj/hello"
}
test_profile_ci() { for_each_caller check_ci_builds_and_has_no_network; }

check_build_writes_cwd_not_system() {
	make_c_project
	in_project "$T/hutch" --profile build make >/dev/null 2>&1
	[ -x "$T/work/proj/hello" ] || fail "build: make did not build"
	assert_match "Read-only file system" "$(in_project "$T/hutch" --profile build touch /usr/x 2>&1)" \
		"build: /usr is read-only"
	rm -f "$T/work/proj/hello"
}
test_profile_build() { for_each_caller check_build_writes_cwd_not_system; }

check_default_python_readonly_cwd() {
	make_c_project
	assert_eq "3" "$(in_project "$T/hutch" python3 -c 'print(1 + 2)')" "default: python3 runs"
	assert_match "Read-only file system" \
		"$(in_project "$T/hutch" python3 -c 'open("x", "w")' 2>&1)" "default: the cwd is read-only"
	[ ! -e "$T/work/proj/x" ] || fail "default: a file appeared in the cwd"
}
test_profile_default() { for_each_caller check_default_python_readonly_cwd; }

# A decoder: base64 input bound read-only, output through fd 3.
check_desktop_helper() {
	make_c_project
	printf 'aHV0Y2gK' >"$T/work/proj/in.b64"
	chmod a+r "$T/work/proj/in.b64"
	in_project sh -c '"$0" --profile desktop-helper --ro-bind "$1" /input \
		--pass-fd 3 -- python3 -c "$3" 3>"$2"' "$T/hutch" "$T/work/proj/in.b64" "$T/out" \
		'import base64, os; os.write(3, base64.b64decode(open("/input").read()))' 2>"$T/err"
	assert_eq "hutch" "$(cat "$T/out")" "desktop-helper: decodes to the fd"
	assert_match "PermissionError|Operation not permitted|errno 1" \
		"$(in_project "$T/hutch" --profile desktop-helper python3 -c 'import socket; socket.socket()' 2>&1)" \
		"desktop-helper: no sockets under the strict policy"
}
test_profile_desktop_helper() {
	touch "$T/out"
	chmod a+rw "$T/out"
	for_each_caller check_desktop_helper
}

check_net_client() {
	make_c_project
	local out
	start_listener
	out=$(in_project "$T/hutch" --profile net-client python3 -c "$CONNECT" "$PORT")
	stop_listener
	assert_eq "hello from the host" "$out" "net-client: reaches a host listener"
	assert_match "Read-only file system" "$(in_project "$T/hutch" --profile net-client touch x 2>&1)" \
		"net-client: the cwd is read-only"
}
test_profile_net_client() { for_each_caller check_net_client; }

test_profile_errors_name_file_and_line() {
	local rc=0
	printf 'ro-bind /usr /usr\nfrobnicate /x\n' >"$T/bad"
	(cd "$T/work" && "$T/hutch" --profile "$T/bad" true) 2>"$T/err" || rc=$?
	assert_eq 125 "$rc" "unknown option in a profile"
	assert_eq "hutch: parse: $T/bad:2: frobnicate: unknown option or not allowed in a profile" \
		"$(cat "$T/err")" "message"
	printf 'include %s\n' "$T/loop" >"$T/loop"
	rc=0
	(cd "$T/work" && "$T/hutch" --profile "$T/loop" true) 2>"$T/err" || rc=$?
	assert_eq 125 "$rc" "include loop"
	assert_match "includes itself" "$(cat "$T/err")" "include loop message"
}

test_persistence_guard() {
	local rc=0
	(cd "$T/work" && env HOME="$T/work" "$T/hutch" --profile none --bind "$T/work" "$T/work" true) 2>"$T/err" || rc=$?
	assert_eq 125 "$rc" "a writable home"
	assert_match "^hutch: parse: --bind $T/work \(command line\): would make $T/work/.config/hutch writable" \
		"$(cat "$T/err")" "message names the option and the path"
	rc=0
	(cd "$T/work" && "$T/hutch" --bind "$T" /x true) 2>"$T/err" || rc=$?
	assert_eq 125 "$rc" "hutch's own binary"
	assert_match "hutch's own binary" "$(cat "$T/err")" "binary message"
}

# Issue 25: the places a login shell or a daily tool runs code from are
# refused as writable starting directories (--profile ci binds the
# current directory writable): git's XDG configuration (core.fsmonitor
# runs on the next git status), ~/bin and ~/.local/bin (on PATH through
# Debian's ~/.profile), and a few of the table's other rows.  The
# control: a project directory in the same home runs.
check_persistence_places() {
	local home=$T/home.$RANDOM dir out rc uid=0
	[ "$AS" = as_user ] && uid=$NOBODY
	local places=".config/git bin .local/bin .local/share/applications .docker/cli-plugins .cargo/bin
		.vscode/extensions go/bin .pyenv/shims .config/gh .local/share/nvim/site/plugin"
	for dir in $places src/proj; do
		mkdir -p "$home/$dir"
	done
	chown -R "$uid:$uid" "$home"
	for dir in $places; do
		rc=0
		out=$(from "$home/$dir" env HOME="$home" "$T/hutch" --profile ci true 2>&1) || rc=$?
		assert_eq 125 "$rc" "--profile ci from ~/$dir"
		assert_match "^hutch: parse: --bind-cwd $home/$dir \(\(shipped\)/ci:[0-9]+\): would make $home/[^ ]+ writable inside the sandbox \(.+\); a sandboxed program could plant code" \
			"$out" "the message for ~/$dir"
	done
	out=$(from "$home/src/proj" env HOME="$home" "$T/hutch" --profile ci pwd 2>&1 | grep -v '^hutch: limits: --pids')
	assert_eq "$home/src/proj" "$out" "control: a project directory in the same home"
	# An fd names no path while parsing: the guard judges it at the bind.
	rc=0
	out=$(from "$home/src/proj" sh -c 'exec 7<"$0" && exec "$@"' "$home/.local/bin" \
		env HOME="$home" "$T/hutch" --profile ci --bind-fd 7 /mnt true 2>&1) || rc=$?
	assert_eq 125 "$rc" "--bind-fd of ~/.local/bin"
	assert_match "^hutch: mounts: --bind-fd $home/.local/bin \(command line\): would make $home/.local/bin writable" \
		"$out" "the message for --bind-fd"
}
test_persistence_guard_login_and_tool_places() { for_each_caller check_persistence_places; }

# The guard judges the object that is bound, not a path judged earlier.
# A sandbox that writes a tree a bind's path passes through (a checkout)
# can swap a directory of it for a symbolic link to $HOME between the
# parse and the bind: the adversarial review's RENAME_EXCHANGE loop got
# $HOME bound writable in 16 of 60 runs.  The fault build holds set-up
# just before the mounts stage (HUTCH_FAULT=mounts:hold) so that the
# swap happens exactly there: --bind of the swapped path is refused now,
# and the current directory is bound as the directory hutch runs in,
# whatever its path names by then.
# swapped_run DIR PATH TARGET ARGS...: the fault build from DIR with ARGS,
# held just before the mounts stage while PATH (a directory) is moved to
# PATH.away and replaced by a link to TARGET; its output in $out, its
# status in $rc.
swapped_run() {
	local dir=$1 path=$2 target=$3 pid fifo="$T/hold.$$"
	shift 3
	mkfifo -m 0666 "$fifo"
	(set +e; from "$dir" env HOME="$target" HUTCH_FAULT=mounts:hold HUTCH_FAULT_HOLD="$fifo" \
		"$T/hutch-fault" "$@" >"$T/out.$$" 2>&1; echo $? >"$T/rc.$$") &
	pid=$!
	exec 9>"$fifo"	# returns once set-up holds (the reader is there)
	mv "$path" "$path.away" && ln -s "$target" "$path"
	echo go >&9
	exec 9>&-
	wait "$pid"
	rm -f "$fifo"
	out=$(cat "$T/out.$$"); rc=$(cat "$T/rc.$$")
}

check_guard_sees_the_bound_object() {
	local home=$T/home.$RANDOM proj=$T/work/race.$RANDOM uid=0 out rc
	[ "$AS" = as_user ] && uid=$NOBODY
	mkdir -p "$home" "$proj/d"
	echo original >"$home/.bashrc"
	chown -R "$uid:$uid" "$home" "$proj"
	# --bind of a path that becomes a link to $HOME while set-up waits.
	swapped_run "$proj" "$proj/d" "$home" --profile ci --bind "$proj/d" /mnt -- \
		sh -c 'echo planted >>/mnt/.bashrc'
	assert_eq original "$(cat "$home/.bashrc")" "~/.bashrc after --bind of a swapped path ($rc: $out)"
	assert_eq 125 "$rc" "--bind of a path swapped for a link to \$HOME"
	assert_match "^hutch: mounts: --bind $proj/d \(command line\): would make $home/[^ ]+ writable inside the sandbox" \
		"$out" "the refusal names the stage and what the path led to"
	# The current directory, swapped the same way: the directory hutch
	# runs in is what COMMAND writes in.
	rm "$proj/d" && mv "$proj/d.away" "$proj/d"
	swapped_run "$proj/d" "$proj/d" "$home" --profile ci -- sh -c 'echo planted >>.bashrc'
	assert_eq original "$(cat "$home/.bashrc")" "~/.bashrc after a run from a swapped directory ($rc: $out)"
	assert_eq planted "$(cat "$proj/d.away/.bashrc" 2>&1)" "COMMAND wrote in the directory hutch runs in"
}
test_guard_sees_the_bound_object() { need_fault_build; for_each_caller check_guard_sees_the_bound_object; }

# A successful run of any shipped profile prints nothing of hutch's own,
# for root too, whatever this machine can enforce of its limits.
check_profiles_quiet() {
	local p err names
	make_c_project
	names=$(ls "$here/../../profiles" | grep -v '^seccomp$')
	[ "$(printf '%s\n' "$names" | wc -l)" -ge 6 ] || fail "shipped profiles not found: [$names]"
	for p in $names; do
		err=$(in_project "$T/hutch" --profile "$p" true 2>&1 >/dev/null) ||
			fail "--profile $p true failed: $err"
		assert_eq "" "$err" "--profile $p true: stderr"
	done
}
test_profiles_run_quietly() { for_each_caller check_profiles_quiet; }

# --share-net resolves names under every shipped profile: the files name
# resolution reads are there, with the host's contents.
check_share_net_resolves() {
	local p out names
	make_c_project
	names=$(ls "$here/../../profiles" | grep -vx -e seccomp -e system)
	for p in $names; do
		# (one program a run: desktop-helper's policy allows no fork)
		out=$(in_project "$T/hutch" --profile "$p" --share-net getent hosts localhost 2>&1) ||
			fail "--profile $p --share-net: getent hosts localhost: $out"
		[ ! -e /etc/resolv.conf ] || assert_eq "$(cat /etc/resolv.conf)" \
			"$(in_project "$T/hutch" --profile "$p" --share-net cat /etc/resolv.conf 2>/dev/null)" \
			"--profile $p --share-net: /etc/resolv.conf"
	done
}
test_share_net_resolves_names() { for_each_caller check_share_net_resolves; }

# Profiles are found under $XDG_CONFIG_HOME; one that is there but not
# readable as a profile says why; one not found says where hutch looked.
check_profile_lookup() {
	local x="$T/work/xdg" err rc
	mkdir -p "$x/hutch/profiles/adir"
	printf 'include default\nsetenv FROM_XDG yes\n' >"$x/hutch/profiles/mine"
	head -c 1100000 /dev/zero | tr '\0' '#' >"$x/hutch/profiles/huge"
	chmod -R a+rX "$x"
	make_c_project
	assert_eq yes "$(in_project env XDG_CONFIG_HOME="$x" "$T/hutch" --profile mine printenv FROM_XDG)" \
		"a profile of \$XDG_CONFIG_HOME/hutch/profiles"
	rc=0; err=$($AS env XDG_CONFIG_HOME="$x" "$T/hutch" --profile adir true 2>&1) || rc=$?
	assert_eq "125 hutch: parse: profile adir: $x/hutch/profiles/adir: not a regular file (a directory)" "$rc $err" "a directory"
	rc=0; err=$($AS env XDG_CONFIG_HOME="$x" "$T/hutch" --profile huge true 2>&1) || rc=$?
	assert_eq "125 hutch: parse: profile huge: $x/hutch/profiles/huge: larger than 1 MiB" "$rc $err" "too large"
	rc=0; err=$($AS env XDG_CONFIG_HOME="$x" "$T/hutch" --profile nosuch true 2>&1) || rc=$?
	assert_match "^125 hutch: parse: profile nosuch: not found in $x/hutch/profiles, /etc/hutch/profiles or .*/profiles, nor among the shipped profiles$" \
		"$rc $err" "not found, and where hutch looked"
}
test_profile_lookup() { for_each_caller check_profile_lookup; }

# Every error from a profile line names FILE:LINE and the option; bad
# bytes in a profile are errors, never silently cut.
test_profile_errors_find_the_line() {
	local line want rc err p="$T/work/bad"
	while IFS='|' read -r line want; do
		printf 'include default\n%s\n' "$line" >"$p"
		chmod 0644 "$p"
		rc=0; err=$(as_user "$H" --profile "$p" true 2>&1) || rc=$?
		assert_eq "125 hutch: parse: $p:2: $want" "$rc $err" "profile line [$line]"
	done <<-'EOF2'
	pids abc|--pids: not a count: abc
	uid abc|--uid: Invalid uid: abc
	timeout abc|--timeout: not a duration (seconds, or with s, m, h or d): abc
	kill-after -3|--kill-after: not a duration (seconds, or with s, m, h or d): -3
	cap-add CAP_BOGUS|--cap-add: unknown cap: CAP_BOGUS
	seccomp-deny nosuchcall|--seccomp-deny: unknown syscall nosuchcall
	fallback bogus|--fallback: unknown mode bogus (landlock or none)
	setenv A=B x|--setenv: not a variable name: "A=B"
	setenv A b\|b: a backslash ends the line
	seccomp-policy /no/such/policy|--seccomp-policy: /no/such/policy: No such file or directory
	EOF2
	printf 'include default\nsetenv A b\0c\n' >"$p"
	rc=0; err=$(as_user "$H" --profile "$p" true 2>&1) || rc=$?
	assert_eq "125 hutch: parse: profile $p: holds a NUL byte" "$rc $err" "a NUL byte"
	printf 'include default\nro-bind /no/such/source /x\n' >"$p"
	# (a set-up failure: only where uid $NOBODY gets the namespace sandbox)
	if user_sandbox_offered; then
		rc=0; err=$(as_user "$H" --profile "$p" true 2>&1) || rc=$?
		assert_eq "125 hutch: mounts: bind source /no/such/source: No such file or directory ($p:2)" \
			"$rc $err" "a set-up failure of a profile's line names it too"
	fi
	rc=0; err=$(as_user "$H" --setenv "" x true 2>&1) || rc=$?
	assert_eq '125 hutch: parse: --setenv: not a variable name: ""' "$rc $err" "--setenv with no name"
	rc=0; err=$(as_user "$T/bwrap" --ro-bind / / --unsetenv "" true 2>&1) || rc=$?
	assert_eq '1 bwrap: unsetenv failed' "$rc $err" "bwrap mode: bwrap's text"
}

# A caller run without HOME and USER: ${HOME} and ${USER} come from its
# line of /etc/passwd, never from NSS (the static build would crash
# loading a module such as libnss_systemd for a uid files do not know);
# a uid without a line gets "user" and /nonexistent, as does HOME=/ (a
# container's user without a line): never a per-run home over all of /.
# check_passwd_fallback UID WANTED [VAR=VALUE]: ${USER}:${HOME} is WANTED.
check_passwd_fallback() {
	local uid=$1 out x="$T/work/xdg-passwd"
	mkdir -p "$x/hutch/profiles"
	printf 'include default\nsetenv WHO ${USER}:${HOME}\n' >"$x/hutch/profiles/who"
	chmod -R a+rX "$x"
	make_c_project
	out=$(cd "$T/work/proj" && setpriv --reuid="$uid" --regid="$uid" --clear-groups \
		env -i PATH=/usr/bin:/bin XDG_CONFIG_HOME="$x" ${3:-} $(sanitizer_env) \
		"$T/hutch" --profile who printenv WHO 2>&1) || fail "uid $uid ${3:-without HOME} and USER: $out"
	out=$(quiet_but_for_the_machine "$out")
	assert_eq "$2" "$out" "uid $uid ${3:-without HOME} and USER: \${USER}:\${HOME}"
}
test_passwd_fallback() {
	local unknown=54321
	! grep -q "^[^:]*:[^:]*:$unknown:" /etc/passwd || skip "uid $unknown has a line in /etc/passwd"
	check_passwd_fallback "$NOBODY" "$(getent passwd "$NOBODY" | awk -F: '{ print $1 ":" $6 }')"
	check_passwd_fallback "$unknown" "user:/nonexistent"
	check_passwd_fallback "$unknown" "user:/nonexistent" HOME=/
}
