# --learn against a hostile COMMAND (an adversarial review of issue 29):
# what a learned profile may never grant, whatever COMMAND asked for, and
# what --learn may never do to hutch or to COMMAND.  Each test names the
# promise of docs/learn.md or hutch(1) it checks.  The helpers are
# lib.sh's.

# "nor a directory holding a secret": one lookup of ~/.config, one file
# made in ~/.local/share, one directory made in ~/.cargo (each missing in
# the sandbox) must not propose the directory whole, and the second run
# must read none of the secrets below.
check_dir_holding_secret() {
	local file out
	learn_project
	learn_home
	mkdir -p "$LH/.config/gh" "$LH/.local/share/keyrings" "$LH/.cargo"
	echo 'oauth_token: gho_learned' > "$LH/.config/gh/hosts.yml"
	echo 'KEYRING-learned' > "$LH/.local/share/keyrings/login.keyring"
	echo 'token = "cargo-learned"' > "$LH/.cargo/credentials.toml"
	chown -R "$(caller_uid):$(caller_uid)" "$LH"
	file=$(learn_out holds.profile)
	learn_run "$file" "$LH" -- sh -c 'ls ~/.config; touch ~/.local/share/new; mkdir ~/.cargo/new' \
		>/dev/null 2>&1 || true
	assert_match "^include default$" "$(cat "$file")" "a profile was learned"
	assert_no_match "^ro-bind-try $LH/(\.config|\.local/share|\.cargo) " "$(cat "$file")" \
		"a directory holding a secret proposed whole"
	out=$(in_project env HOME="$LH" "$H" --profile "$file" -- cat "$LH/.config/gh/hosts.yml" \
		"$LH/.local/share/keyrings/login.keyring" "$LH/.cargo/credentials.toml" 2>/dev/null) || true
	assert_no_match "learned" "$out" "the second run read a secret"
}
test_learn_attack_dir_holding_secret() { for_each_caller check_dir_holding_secret; }

# "a secret (~/.ssh ...) proposed readable only as a comment": as root,
# another user's ssh key is as secret as root's own, and /home (every
# user's home) is never proposed whole.
check_other_users_secret() {
	local file out
	learn_project
	learn_home
	mkdir -p "$T/users/bob/.ssh"
	echo 'BOB-KEY-learned' > "$T/users/bob/.ssh/id_ed25519"
	chmod 0600 "$T/users/bob/.ssh/id_ed25519"
	chown -R "$NOBODY:$NOBODY" "$T/users/bob"
	file=$(learn_out others.profile)
	learn_run "$file" "$LH" -- cat "$T/users/bob/.ssh/id_ed25519" >/dev/null 2>&1 || true
	assert_match "^include default$" "$(cat "$file")" "a profile was learned"
	assert_no_match "^[^#].*/\.ssh" "$(cat "$file")" "another user's ssh key proposed readable"
	out=$(in_project env HOME="$LH" "$H" --profile "$file" -- cat "$T/users/bob/.ssh/id_ed25519" \
		2>/dev/null) || true
	assert_no_match "BOB-KEY" "$out" "the second run read another user's key"
	[ -d /home ] || return 0
	file=$(learn_out home.profile)
	in_project env HOME=/root "$H" --learn "$file" -- ls /home >/dev/null 2>&1 || true
	assert_no_match "^ro-bind-try /home " "$(cat "$file")" "/home, every user's home, proposed whole"
}
test_learn_attack_other_users_secret() { AS=as_root run_check check_other_users_secret; }

# "$HOME is never proposed whole", "a secret only as a comment": also when
# $HOME names the home through a symbolic link (/home -> /var/home...),
# and the paths learned are the canonical ones.
check_home_through_link() {
	local file
	learn_project
	learn_home
	ln -sfn "$T" "$T/link"
	mkdir -m 0700 "$LH/.ssh"
	echo 'KEY-learned' > "$LH/.ssh/id_ed25519"
	for f in a b c; do echo "$f" > "$LH/$f"; done
	chown -R "$(caller_uid):$(caller_uid)" "$LH"
	file=$(learn_out link.profile)
	learn_run "$file" "$T/link/${LH##*/}" -- cat "$LH/a" "$LH/b" "$LH/c" "$LH/.ssh/id_ed25519" \
		>/dev/null 2>&1 || true
	assert_match "^include default$" "$(cat "$file")" "a profile was learned"
	assert_no_match "^ro-bind-try $LH " "$(cat "$file")" "the home proposed whole"
	assert_no_match "^[^#].*/\.ssh" "$(cat "$file")" "the ssh key proposed readable"
}
test_learn_attack_home_through_link() { for_each_caller check_home_through_link; }

# "no .git ... is ever proposed writable": a write into a read-only
# checkout proposes it writable, but never its .git (hooks run outside
# the sandbox at the next commit).
check_cwd_with_git() {
	local file
	learn_project
	learn_home
	mkdir -p "$T/work/proj/.git/hooks"
	chmod -R a+rwX "$T/work/proj"
	file=$(learn_out gitcwd.profile)
	learn_run "$file" "$LH" -- sh -c 'echo done > result.txt' >/dev/null 2>&1 || true
	assert_match "^include default$" "$(cat "$file")" "a profile was learned"
	in_project env HOME="$LH" "$H" --profile "$file" -- true
	in_project env HOME="$LH" "$H" --profile "$file" -- \
		sh -c 'echo "echo planted" > .git/hooks/pre-commit' >/dev/null 2>&1 || true
	[ ! -e "$T/work/proj/.git/hooks/pre-commit" ] ||
		fail "the learned profile let the sandbox plant a git hook: $(grep -v '^#' "$file")"
}
test_learn_attack_cwd_with_git() { for_each_caller check_cwd_with_git; }

# "an automount or a FUSE server that never answers cannot hang hutch":
# a path under a FUSE mount whose server took the lookup and never
# answers (a stuck sshfs); hutch must end within the lookups' 3 s
# deadline and a margin, with COMMAND's status.
stop_fuse() {
	if [ -n "${FUSE_PID:-}" ]; then
		kill "$FUSE_PID" 2>/dev/null || true
		wait "$FUSE_PID" 2>/dev/null || true
	fi
	umount -l "$T/fuse" 2>/dev/null || true
}
test_learn_attack_fuse_lookup_bounded() {
	local line rc=0 start took file
	[ -c /dev/fuse ] || skip "no /dev/fuse"
	command -v python3 >/dev/null || skip "no python3"
	mkdir "$T/fuse"
	exec {FS}< <(exec python3 "$INTEGRATION_DIR/tool_fuse_hang.py" "$T/fuse" 2>&1)
	FUSE_PID=$!
	trap 'stop_fuse; cleanup_scratch' EXIT
	read -r -t 10 line <&"$FS" || line="no answer"
	[ "$line" = mounted ] || skip "cannot mount a FUSE file system here: $line"
	AS=as_root
	learn_project
	learn_home
	file=$(learn_out fuse.profile)
	start=$(now)
	in_project env HOME="$LH" timeout -s KILL 30 "$H" --learn "$file" -- \
		sh -c "stat $T/fuse/hang/x; exit 5" >/dev/null 2>&1 || rc=$?
	took=$(seconds_since "$start" %.1f)
	assert_eq 5 "$rc" "COMMAND's status, hutch not killed"
	less_than "$took" 8 || fail "hutch took ${took}s: it waited on the host lookup"
	assert_match "^#   $T/fuse/hang/x$" "$(cat "$file")" "FILE written, naming the path not looked up"
}

# "COMMAND's exit status is its own": a program whose timer signal comes
# while an open or stat is held for the observer.  With SA_RESTART the
# call goes on and COMMAND sees nothing.  Without it, a signal that
# comes before the supervisor has taken the call ends it with EINTR
# (the kernel's seccomp_do_user_notification; WAIT_KILLABLE_RECV closes
# the window after that): hutch(1) and docs/learn.md say so, and only
# the control is checked for that handler.
check_no_eintr() {
	local file out rc=0
	learn_project
	learn_home
	cp "$T/eintr" "$T/work/proj/eintr"
	out=$(in_project env HOME="$LH" "$H" -- ./eintr)
	assert_eq "eintr=0" "$out" "control: without --learn, no SA_RESTART"
	file=$(learn_out eintr.profile)
	out=$(learn_run "$file" "$LH" -- ./eintr restart 2>/dev/null) || rc=$?
	assert_eq "eintr=0" "$out" "with --learn and SA_RESTART, open and stat returned EINTR"
	assert_eq 0 "$rc" "COMMAND's exit status with --learn"
}
test_learn_attack_no_eintr() {
	build_tool eintr
	for_each_caller check_no_eintr
}

# "FILE is the learned profile": a COMMAND that may write FILE's
# directory replaces FILE with its own text while it runs; at the end
# FILE holds what was learned, not what was planted.
check_file_planted() {
	local file rc=0
	learn_project
	learn_home
	file="$T/work/proj/planted.profile"
	learn_run "$file" "$LH" --bind "$T/work/proj" "$T/work/proj" -- \
		sh -c "rm -f $file; echo 'bind / /' > $file; cat $LH/nothing-here" >/dev/null 2>&1 || rc=$?
	assert_eq 1 "$rc" "COMMAND's status"
	assert_match "^include default$" "$(cat "$file")" "the learned profile at FILE's name"
	assert_no_match "^bind / /" "$(cat "$file")" "the planted text stayed"
	[ ! -L "$file" ] || fail "FILE is a link"
}
test_learn_attack_file_planted() { for_each_caller check_file_planted; }

# "keep FILE outside what a sandbox sees": FILE in the project (bound
# read-only, so the next run could read which host paths exist from it)
# is said once on stderr; FILE outside is not.
check_file_seen_warned() {
	local err
	learn_project
	learn_home
	err=$(learn_run "$T/work/proj/seen.profile" "$LH" -- true 2>&1 >/dev/null) || true
	assert_match "hutch: learn: $T/work/proj/seen.profile lies in [^ ]*, which the sandbox sees" \
		"$err" "the warning"
	err=$(learn_run "$(learn_out unseen.profile)" "$LH" -- true 2>&1 >/dev/null) || true
	assert_no_match "which the sandbox sees" "$err" "no warning for a FILE outside"
}
test_learn_attack_file_seen_warned() { for_each_caller check_file_seen_warned; }

# "a socket, FIFO or device of the host is only a comment": also when it
# lies in a directory proposed whole (three files read there), which,
# bound even read-only, lets the sandbox write into the FIFO.
check_dir_with_fifo() {
	local file
	learn_project
	learn_home
	rm -rf "$T/fifodir"
	mkdir -m 0755 "$T/fifodir"
	for f in a b c; do echo "$f" > "$T/fifodir/$f"; done
	mkfifo -m 0666 "$T/fifodir/pipe"
	file=$(learn_out fifo.profile)
	learn_run "$file" "$LH" -- cat "$T/fifodir/a" "$T/fifodir/b" "$T/fifodir/c" \
		>/dev/null 2>&1 || true
	assert_match "^include default$" "$(cat "$file")" "a profile was learned"
	assert_match "^# not proposed \(it holds a FIFO.*\): ro-bind-try $T/fifodir " "$(cat "$file")" \
		"the directory only as a comment"
	assert_no_match "^ro-bind-try $T/fifodir" "$(cat "$file")" "a directory holding a FIFO proposed"
}
test_learn_attack_dir_with_fifo() { for_each_caller check_dir_with_fifo; }
