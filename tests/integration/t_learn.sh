# --learn FILE: what COMMAND was refused or lacked, written as a profile
# that includes the one used; the second run with --profile FILE gets
# further.  Real programs: python3 importing a module from outside the
# bound tree, git reading ~/.gitconfig, make and touch writing into the
# read-only current directory, curl refused by the proxy, cat reading an
# ssh key (proposed only as a comment).  Every learned file is also
# checked for a secret or start-up file proposed writable.

# Nothing secret, no start-up file, no .git, neither / nor a home proposed
# writable; no network wildcard.
assert_safe() {
	local text
	text=$(cat "$1")
	assert_no_match "^(bind|bind-try|dev-bind|dev-bind-try) [^ ]*(\.ssh|\.gnupg|\.aws|\.git(/| |$)|\.gitconfig|\.bashrc|\.profile)" "$text" "a secret or start-up file proposed writable"
	assert_no_match "^(bind|bind-try) (/|/home|$LH) " "$text" "/ or a home proposed writable"
	assert_no_match "^allow-net .*(\*|0\.0\.0\.0)" "$text" "a network wildcard proposed"
}

check_python_import() {
	local file out rc=0
	command -v python3 >/dev/null || skip "no python3"
	learn_project
	learn_home
	mkdir -p "$T/mods"
	echo 'X = "imported"' > "$T/mods/extmod.py"
	chmod -R a+rX "$T/mods"
	file=$(learn_out py.profile)
	learn_run "$file" "$LH" --setenv PYTHONPATH "$T/mods" -- \
		python3 -c 'import extmod; print(extmod.X)' >/dev/null 2>"$T/err" || rc=$?
	assert_eq 1 "$rc" "the import fails in the default sandbox, --learn or not"
	assert_match "hutch: learn: [1-9][0-9]* lines? proposed in $file" "$(cat "$T/err")" "said on stderr"
	assert_match "^include default$" "$(cat "$file")" "the profile used is included"
	assert_match "^ro-bind-try $T/mods $T/mods +# python3 read it [0-9]+ times?$" \
		"$(cat "$file")" "the module's directory, with who read it how often"
	assert_safe "$file"
	out=$(in_project env HOME="$LH" "$H" --profile "$file" --setenv PYTHONPATH "$T/mods" -- \
		python3 -c 'import extmod; print(extmod.X)')
	assert_eq imported "$out" "the second run imports it"
}
test_learn_python_import() { for_each_caller check_python_import; }

check_git_config() {
	local file out rc=0
	command -v git >/dev/null || skip "no git"
	learn_project
	learn_home
	printf '[user]\n\tname = Learned Name\n' > "$LH/.gitconfig"
	chown "$(caller_uid):$(caller_uid)" "$LH/.gitconfig"
	file=$(learn_out git.profile)
	learn_run "$file" "$LH" -- git config --global user.name >/dev/null 2>"$T/err" || rc=$?
	assert_eq 1 "$rc" "no ~/.gitconfig in the default sandbox"
	assert_match "^ro-bind-try $LH/\.gitconfig $LH/\.gitconfig +# git read it [0-9]+ times?$" \
		"$(cat "$file")" "~/.gitconfig proposed read-only"
	assert_safe "$file"
	out=$(in_project env HOME="$LH" "$H" --profile "$file" -- git config --global user.name)
	assert_eq "Learned Name" "$out" "the second run reads it"
	out=$(in_project env HOME="$LH" "$H" --profile "$file" -- sh -c 'echo x >> ~/.gitconfig' 2>&1) || true
	assert_match "Read-only file system" "$out" "and cannot write it"
}
test_learn_git_config() { for_each_caller check_git_config; }

check_write_read_only_tree() {
	local file rc=0
	command -v make >/dev/null || skip "no make"
	learn_project
	learn_home
	printf 'all: out.txt\nout.txt:\n\techo built > out.txt\n' > "$T/work/proj/Makefile"
	chmod a+r "$T/work/proj/Makefile"
	file=$(learn_out make.profile)
	learn_run "$file" "$LH" -- make >/dev/null 2>"$T/err" || rc=$?
	assert_eq 2 "$rc" "make cannot write into the read-only current directory"
	assert_match "^bind $T/work/proj $T/work/proj +# sh wrote there 1 time$" "$(cat "$file")" \
		"the directory written into, proposed writable"
	assert_safe "$file"
	in_project env HOME="$LH" "$H" --profile "$file" -- make >/dev/null
	assert_eq built "$(cat "$T/work/proj/out.txt")" "the second run builds"
	file=$(learn_out touch.profile)
	mkdir -m 0777 "$T/work/proj/sub"
	rc=0
	learn_run "$file" "$LH" -- touch sub/new >/dev/null 2>&1 || rc=$?
	assert_eq 1 "$rc" "touch is refused"
	assert_match "^bind $T/work/proj/sub $T/work/proj/sub +# touch wrote there 1 time$" \
		"$(cat "$file")" "touch's directory"
	in_project env HOME="$LH" "$H" --profile "$file" -- touch sub/new
	[ -f "$T/work/proj/sub/new" ] || fail "the second run's touch left no file"
	# a hook planted in .git: never proposed writable, only as a comment
	mkdir -p "$T/work/proj/.git/hooks"
	chmod -R a+rwX "$T/work/proj/.git"
	file=$(learn_out hooks.profile)
	learn_run "$file" "$LH" -- sh -c 'echo evil > .git/hooks/pre-commit' >/dev/null 2>&1 || true
	assert_match "^# not proposed \(git runs hooks and configuration from \.git\): bind $T/work/proj/\.git/hooks " \
		"$(cat "$file")" "the hooks directory, only as a comment with the reason"
	assert_safe "$file"
}
test_learn_write_read_only_tree() { for_each_caller check_write_read_only_tree; }

check_ssh_key_only_commented() {
	local file rc=0
	learn_project
	learn_home
	mkdir -m 0700 "$LH/.ssh"
	echo "PRIVATE KEY" > "$LH/.ssh/id_ed25519"
	chmod 0600 "$LH/.ssh/id_ed25519"
	chown -R "$(caller_uid):$(caller_uid)" "$LH/.ssh"
	file=$(learn_out ssh.profile)
	learn_run "$file" "$LH" -- cat "$LH/.ssh/id_ed25519" >/dev/null 2>&1 || rc=$?
	assert_eq 1 "$rc" "the key is not there in the default sandbox"
	assert_match "^# not proposed \(ssh keys and agent sockets\): ro-bind-try $LH/\.ssh/id_ed25519 " \
		"$(cat "$file")" "the key, only as a comment with the reason"
	assert_no_match "^[^#].*\.ssh" "$(cat "$file")" "no line of the file names .ssh"
	assert_safe "$file"
	rc=0
	in_project env HOME="$LH" "$H" --profile "$file" -- cat "$LH/.ssh/id_ed25519" >/dev/null 2>&1 || rc=$?
	assert_eq 1 "$rc" "the learned profile still hides the key"
}
test_learn_ssh_key_only_commented() { for_each_caller check_ssh_key_only_commented; }

check_curl_refused() {
	local file out
	learn_project
	learn_home
	file=$(learn_out net.profile)
	out=$(learn_run "$file" "$LH" --allow-net "localhost:$ECHO_PORT" -- \
		curl -sS --noproxy "" -o /dev/null -w "%{http_code}\n" "http://localhost:$HTTP_PORT/hello" 2>"$T/err")
	assert_eq 403 "$out" "refused by the proxy"
	assert_match "^allow-net localhost:$HTTP_PORT +# asked 1 time$" "$(cat "$file")" \
		"the host and port asked for, as asked"
	assert_safe "$file"
	out=$(in_project env HOME="$LH" "$H" --profile "$file" -- \
		curl -sS --noproxy "" "http://localhost:$HTTP_PORT/hello")
	assert_eq "hello from port $HTTP_PORT" "$out" "the second run reaches it"
	# a name the sandbox's resolver refused: the name, as asked
	file=$(learn_out dns.profile)
	learn_run "$file" "$LH" --allow-net "localhost:$ECHO_PORT" -- python3 -c '
import socket
try: socket.getaddrinfo("learned.example.org", 443)
except OSError: pass' 2>/dev/null
	assert_match "^allow-net learned\.example\.org +# looked up [0-9]+ times?" "$(cat "$file")" \
		"the name looked up"
	assert_safe "$file"
}
test_learn_curl_refused() {
	command -v curl >/dev/null || skip "no curl"
	start_servers
	for_each_caller check_curl_refused
}

# No cost without --learn: no observer in the sandbox.  With it, one, and
# COMMAND's exit status is its own.
check_observer_only_when_asked() {
	local out file rc=0
	learn_project
	learn_home
	out=$(in_project env HOME="$LH" "$H" -- sh -c 'cat /proc/[0-9]*/comm')
	assert_no_match "hutch-learn" "$out" "no observer without --learn"
	file=$(learn_out status.profile)
	out=$(learn_run "$file" "$LH" -- sh -c 'cat /proc/[0-9]*/comm; exit 7' 2>/dev/null) || rc=$?
	assert_match "hutch-learn" "$out" "the observer with --learn"
	assert_eq 7 "$rc" "COMMAND's exit status"
	assert_no_match "^(ro-bind-try|bind) " "$(cat "$file")" "nothing it lacked"
}
test_learn_observer_only_when_asked() { for_each_caller check_observer_only_when_asked; }

# Under the Landlock fallback nothing is observed, and FILE says so
# (Docker's refusal of user namespaces, as t_fallback.sh simulates it).
check_fallback_says_so() {
	local file rc=0
	learn_project
	learn_home
	file=$(learn_out fallback.profile)
	in_project env HOME="$LH" "$T/fbtool" docker "$H" --learn "$file" -- true 2>"$T/err" || rc=$?
	[ "$rc" != 125 ] || skip "no Landlock fallback here: $(cat "$T/err")"
	assert_eq 0 "$rc" "COMMAND's status under the fallback"
	assert_match "^# Under the Landlock fallback hutch sees no file or network refusal" \
		"$(cat "$file")" "FILE says what the fallback cannot see"
}
test_learn_fallback_says_so() {
	gcc -O2 -o "$T/fbtool" "$INTEGRATION_DIR/tool_fallback_util.c" -lseccomp 2>/dev/null ||
		skip "cannot build tool_fallback_util.c (gcc, libseccomp-dev)"
	chmod 0755 "$T/fbtool"
	for_each_caller check_fallback_says_so
}

# A limit that ended COMMAND is proposed doubled: --timeout 1 stops a
# command of 1.5 s; the learned profile's timeout 2 lets it finish.
check_timeout_doubled() {
	local file rc=0
	learn_project
	learn_home
	file=$(learn_out timeout.profile)
	learn_run "$file" "$LH" --timeout 1 -- sleep 1.5 2>/dev/null || rc=$?
	assert_eq 124 "$rc" "stopped by the timeout"
	assert_match "^timeout 2 +# COMMAND was stopped after 1s$" "$(cat "$file")" "the timeout, doubled"
	in_project env HOME="$LH" "$H" --profile "$file" -- sleep 1.5
}
test_learn_timeout_doubled() { for_each_caller check_timeout_doubled; }

# Where the kernel refuses a fresh procfs (a container engine masked the
# outer /proc) the sandbox's /proc is the caller's, which names COMMAND
# by its outer pid: the observer must read COMMAND's memory by that pid,
# and only COMMAND's.  Here, a mask on a machine that mounts a fresh
# procfs otherwise; in such a container, as it is.
check_proc_substitute() {
	local file out rc=0 run=()
	if have_fresh_procfs; then
		[ -e /proc/keys ] || skip "no /proc/keys to mask on this kernel"
		needs_root_unshare -m
		run=(in_masked_proc "$AS")
	else
		run=("$AS")
	fi
	learn_home
	printf 'seen through the outer /proc\n' > "$LH/notes"
	chown "$(caller_uid):$(caller_uid)" "$LH/notes"
	file=$(learn_out proc.profile)
	"${run[@]}" env -C "$T/work" HOME="$LH" "$H" --learn "$file" -- \
		sh -c 'cat "$0"; [ "$(readlink /proc/self)" != "$$" ] && echo outer-proc' \
		"$LH/notes" >"$T/stdout" 2>"$T/err" || rc=$?
	assert_eq "outer-proc" "$(cat "$T/stdout")" "the sandbox's /proc names COMMAND by another pid (the control): $(cat "$T/err")"
	assert_eq 0 "$rc" "cat's failure is not sh's status"
	assert_match "^ro-bind-try $LH/notes $LH/notes +# cat read it 1 time$" "$(cat "$file")" \
		"learned through the substitute /proc"
	out=$("${run[@]}" env -C "$T/work" HOME="$LH" "$H" --profile "$file" -- cat "$LH/notes")
	assert_eq "seen through the outer /proc" "$out" "the second run reads it"
}
test_learn_where_proc_is_a_substitute() { for_each_caller check_proc_substitute; }

# With --pty (on the outer terminal of t_pty.sh's harness): the same
# learning, COMMAND on a terminal of its own.
check_pty() {
	local file
	learn_home
	printf '[user]\n\tname = On A Pty\n' > "$LH/.gitconfig"
	chown "$(caller_uid):$(caller_uid)" "$LH/.gitconfig"
	file=$(learn_out pty.profile)
	$AS "$T/ptyharness" exit:1 -- env HOME="$LH" "$H" --pty --learn "$file" -- \
		cat "$LH/.gitconfig" || fail "cat on --pty with --learn"
	assert_match "^ro-bind-try $LH/\.gitconfig $LH/\.gitconfig +# cat read it 1 time$" \
		"$(cat "$file")" "learned on a pty"
	$AS "$T/ptyharness" expect:'On A Pty' exit:0 -- env HOME="$LH" "$H" --pty \
		--profile "$file" -- cat "$LH/.gitconfig" || fail "the second run on a pty"
}
test_learn_pty() {
	gcc -std=gnu11 -O2 -Wall -Wextra -Werror -o "$T/ptyharness" \
		"$INTEGRATION_DIR/tool_ptyharness.c" || fail "cannot build tool_ptyharness.c"
	for_each_caller check_pty
}

# Under the strict policy (desktop-helper) the observer still reports:
# it makes only calls that policy allows.  Without /proc (the profile
# system) it can read no path, and FILE says so.
check_other_profiles() {
	local file out
	learn_project
	learn_home
	printf 'strict\n' > "$LH/note.txt"
	chown "$(caller_uid):$(caller_uid)" "$LH/note.txt"
	file=$(learn_out strict.profile)
	learn_run "$file" "$LH" --profile desktop-helper -- cat "$LH/note.txt" >/dev/null 2>&1 || true
	assert_match "^include desktop-helper$" "$(cat "$file")" "the profile used"
	assert_match "^ro-bind-try $LH/note\.txt $LH/note\.txt +# cat read it 1 time$" \
		"$(cat "$file")" "learned under the strict policy"
	out=$(in_project env HOME="$LH" "$H" --profile "$file" -- cat "$LH/note.txt" 2>/dev/null)
	assert_eq strict "$out" "the second run"
	file=$(learn_out system.profile)
	learn_run "$file" "$LH" --profile system -- cat "$LH/note.txt" >/dev/null 2>&1 || true
	assert_match "^# hutch's observer saw no path: it reads them through the sandbox's /proc" \
		"$(cat "$file")" "no /proc: said"
}
test_learn_other_profiles() { for_each_caller check_other_profiles; }

# FILE may not be the profile the run uses (it would include itself):
# refused before anything runs, the profile left as it was.
check_not_its_own_profile() {
	local file rc=0 err
	learn_project
	learn_home
	file=$(learn_out own.profile)
	printf 'include default\n' > "$file"
	chown "$(caller_uid):$(caller_uid)" "$file"
	err=$(in_project env HOME="$LH" "$H" --profile "$file" --learn "$file" -- true 2>&1) || rc=$?
	assert_eq 125 "$rc" "refused"
	assert_match "^hutch: learn: $file: a profile this run uses" "$err" "the reason"
	assert_eq "include default" "$(cat "$file")" "the profile untouched"
}
test_learn_not_its_own_profile() { for_each_caller check_not_its_own_profile; }
