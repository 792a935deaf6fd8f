# --learn against a hostile COMMAND, a second adversarial review: variations
# on the first review's fixes (t_learn_attack.sh).  Each test names the
# promise of docs/learn.md it checks.  The helpers are lib.sh's.

# "secrets ... /etc/shadow: password hashes": the same hashes in the
# backup shadow-utils keeps next to it (/etc/shadow-, /etc/gshadow-, mode
# 0640 root:shadow) are as secret.  As root, who can read them.
check_shadow_backup() {
	local file out
	learn_project
	learn_home
	file=$(learn_out shadow.profile)
	learn_run "$file" "$LH" -- sh -c 'stat /etc/shadow- /etc/gshadow-' >/dev/null 2>&1 || true
	assert_match "^include default$" "$(cat "$file")" "a profile was learned"
	assert_no_match "^ro-bind-try /etc/g?shadow-" "$(cat "$file")" "a shadow backup proposed readable"
	out=$(in_project env HOME="$LH" "$H" --profile "$file" -- cat /etc/shadow- 2>/dev/null) || true
	assert_eq "" "$out" "the second run read the password hashes"
}
test_learn_attack2_shadow_backup() {
	[ -e /etc/shadow- ] || skip "no /etc/shadow- on this host"
	AS=as_root run_check check_shadow_backup
}

# "every home in /etc/passwd ... never proposed whole": also a home passwd
# names through a symbolic link (/home -> /data/home) or with a "/./"
# (the paths learned are canonical).  A private /etc/passwd, bound in a
# mount namespace of the test's own.
as_root_passwd() {
	(cd "$T/work" && unshare -m --propagation private sh -c \
		'mount --bind "$0" /etc/passwd && exec "$@"' "$T/passwd" \
		env -i PATH=/usr/bin:/bin:/usr/sbin:/sbin HOME=/root USER=root $(sanitizer_env) "$@")
}
check_passwd_home_spelled() {
	local file out
	needs_root_unshare -m
	learn_project
	learn_home
	mkdir -p "$T/data/bob/.ssh" "$T/data/carol"
	for f in a b c; do echo "$f" > "$T/data/bob/$f"; echo "$f" > "$T/data/carol/$f"; done
	echo 'BOB-KEY-learned' > "$T/data/bob/.ssh/id_ed25519"
	ln -sfn data "$T/homes"
	cp /etc/passwd "$T/passwd"
	echo "bob:x:1002:1002::$T/homes/bob:/bin/sh" >> "$T/passwd"
	echo "carol:x:1003:1003::$T/./data/carol:/bin/sh" >> "$T/passwd"
	file=$(learn_out passwd.profile)
	learn_run "$file" "$LH" -- cat "$T/data/bob/a" "$T/data/bob/b" "$T/data/bob/c" \
		"$T/data/carol/a" "$T/data/carol/b" "$T/data/carol/c" >/dev/null 2>&1 || true
	assert_match "^include default$" "$(cat "$file")" "a profile was learned"
	assert_no_match "^ro-bind-try $T/data/bob " "$(cat "$file")" \
		"a home passwd names through a link proposed whole"
	assert_no_match "^ro-bind-try $T/data/carol " "$(cat "$file")" \
		"a home passwd names with /./ proposed whole"
	out=$(in_project env HOME="$LH" "$H" --profile "$file" -- cat "$T/data/bob/.ssh/id_ed25519" \
		2>/dev/null) || true
	assert_no_match "BOB-KEY" "$out" "the second run read another user's key"
}
test_learn_attack2_passwd_home_spelled() { AS=as_root_passwd run_check check_passwd_home_spelled; }

# "A directory is proposed readable for what was read in it. One that
# holds a secret ... is only a comment": a directory that holds .ssh or
# .aws right in it (a dotfiles checkout, a backup of a home) as much as
# ~/.config holds ~/.config/gh.
check_dir_holding_secret_dir() {
	local file out
	learn_project
	learn_home
	rm -rf "$T/dotfiles"
	mkdir -p "$T/dotfiles/.ssh" "$T/dotfiles/.aws"
	echo 'KEY-learned' > "$T/dotfiles/.ssh/id_ed25519"
	echo 'aws_secret_access_key = learned' > "$T/dotfiles/.aws/credentials"
	for f in a b c; do echo "$f" > "$T/dotfiles/$f"; done
	chmod -R a+rX "$T/dotfiles"
	file=$(learn_out dotfiles.profile)
	learn_run "$file" "$LH" -- cat "$T/dotfiles/a" "$T/dotfiles/b" "$T/dotfiles/c" \
		>/dev/null 2>&1 || true
	assert_match "^include default$" "$(cat "$file")" "a profile was learned"
	assert_no_match "^ro-bind-try $T/dotfiles " "$(cat "$file")" \
		"a directory holding .ssh and .aws proposed whole"
	out=$(in_project env HOME="$LH" "$H" --profile "$file" -- cat "$T/dotfiles/.ssh/id_ed25519" \
		"$T/dotfiles/.aws/credentials" 2>/dev/null) || true
	assert_no_match "learned" "$out" "the second run read a secret"
}
test_learn_attack2_dir_holding_secret_dir() { for_each_caller check_dir_holding_secret_dir; }

# "no .git ... is ever proposed writable" (git runs hooks outside the
# sandbox): a bare repository is a git directory without the name .git;
# its hooks run at the next push to it.
check_bare_repo() {
	local file
	learn_project
	learn_home
	git init -q --bare "$T/work/proj"
	chmod -R a+rwX "$T/work/proj"
	file=$(learn_out bare.profile)
	learn_run "$file" "$LH" -- sh -c 'echo x > new' >/dev/null 2>&1 || true
	assert_match "^include default$" "$(cat "$file")" "a profile was learned"
	in_project env HOME="$LH" "$H" --profile "$file" -- \
		sh -c 'echo "echo planted" > hooks/post-receive' >/dev/null 2>&1 || true
	[ ! -e "$T/work/proj/hooks/post-receive" ] ||
		fail "the learned profile let the sandbox plant a hook in a bare repository: $(grep -v '^#' "$file")"
}
test_learn_attack2_bare_repo() {
	command -v git >/dev/null || skip "no git"
	for_each_caller check_bare_repo
}

# "A directory proposed writable (bind DIR DIR) that holds a .git is
# followed by ro-bind-try DIR/.git": also when COMMAND wrote into the
# checkout and into the directory holding it, whose bind covers the
# checkout's line.
check_nested_checkout() {
	local file
	learn_project
	learn_home
	mkdir -p "$T/work/proj/sub/.git/hooks"
	chmod -R a+rwX "$T/work/proj"
	file=$(learn_out nested.profile)
	learn_run "$file" "$LH" -- sh -c 'echo x > new; echo y > sub/new' >/dev/null 2>&1 || true
	assert_match "^include default$" "$(cat "$file")" "a profile was learned"
	in_project env HOME="$LH" "$H" --profile "$file" -- \
		sh -c 'echo "echo planted" > sub/.git/hooks/pre-commit' >/dev/null 2>&1 || true
	[ ! -e "$T/work/proj/sub/.git/hooks/pre-commit" ] ||
		fail "the learned profile let the sandbox plant a git hook: $(grep -v '^#' "$file")"
}
test_learn_attack2_nested_checkout() { for_each_caller check_nested_checkout; }

# "bind: the directory written into where the sandbox was read-only": a
# link COMMAND made in its own tmpfs, named as a host directory it never
# saw and pointing at a read-only one, must not propose that host
# directory writable.
check_planted_link_write() {
	local file
	learn_project
	learn_home
	rm -rf "$T/hidden"
	mkdir -m 0777 "$T/hidden"
	file=$(learn_out link.profile)
	learn_run "$file" "$LH" -- sh -c 'mkdir -p "$0" && ln -s "$PWD" "$0/hidden" && touch "$0/hidden/x"' \
		"$T" >/dev/null 2>&1 || true
	assert_match "^include default$" "$(cat "$file")" "a profile was learned"
	assert_no_match "^bind $T/hidden " "$(cat "$file")" \
		"a host directory the sandbox never saw proposed writable"
}
test_learn_attack2_planted_link_write() { for_each_caller check_planted_link_write; }

# "include default: the profile the first run used (a profile given as a
# file is included by its absolute path)": a profile in the project
# (--profile ./NAME) must not end up in a directory the learned profile
# binds writable, or the second run rewrites what the third includes.
check_included_profile_writable() {
	local file out
	learn_project
	learn_home
	rm -rf "$T/secret"
	mkdir -m 0755 "$T/secret"
	echo 'SECRET-learned' > "$T/secret/data"
	chmod a+r "$T/secret/data"
	echo 'include default' > "$T/work/proj/local.profile"
	chmod a+rw "$T/work/proj/local.profile"
	file=$(learn_out include.profile)
	learn_run "$file" "$LH" --profile ./local.profile -- sh -c 'echo x > new' >/dev/null 2>&1 || true
	assert_match "^include $T/work/proj/local.profile$" "$(cat "$file")" "a profile was learned"
	in_project env HOME="$LH" "$H" --profile "$file" -- \
		sh -c 'echo "ro-bind $0 $0" >> local.profile' "$T/secret" >/dev/null 2>&1 || true
	out=$(in_project env HOME="$LH" "$H" --profile "$file" -- cat "$T/secret/data" 2>/dev/null) || true
	assert_no_match "SECRET-learned" "$out" \
		"the second run rewrote a profile the learned one includes: $(grep -v '^#' "$file")"
}
test_learn_attack2_included_profile_writable() { for_each_caller check_included_profile_writable; }

# "nothing the persistence guard protects ... is ever proposed writable":
# a home's directories that the shell sources at every start (Fedora's
# ~/.bashrc sources ~/.bashrc.d/*, nvm's lines ~/.nvm/nvm.sh, oh-my-zsh's
# ~/.oh-my-zsh), bound read-only by the caller's options, where COMMAND
# wrote.
check_shell_sourced_dirs() {
	local file d
	learn_project
	learn_home
	for d in .bashrc.d .nvm .oh-my-zsh; do mkdir -p "$LH/$d"; done
	chown -R "$(caller_uid):$(caller_uid)" "$LH"
	file=$(learn_out sourced.profile)
	learn_run "$file" "$LH" --ro-bind "$LH/.bashrc.d" "$LH/.bashrc.d" --ro-bind "$LH/.nvm" "$LH/.nvm" \
		--ro-bind "$LH/.oh-my-zsh" "$LH/.oh-my-zsh" -- \
		sh -c 'for d in .bashrc.d .nvm .oh-my-zsh; do echo x > "$HOME/$d/planted"; done' \
		>/dev/null 2>&1 || true
	assert_match "^include default$" "$(cat "$file")" "a profile was learned"
	assert_no_match "^bind $LH/" "$(cat "$file")" "a directory the shell sources proposed writable"
}
test_learn_attack2_shell_sourced_dirs() { for_each_caller check_shell_sourced_dirs; }

# "A directory proposed writable (bind DIR DIR) that holds a .git is
# followed by ro-bind-try DIR/.git": a .git that is a file names the git
# directory (gitdir:), here inside DIR (git init --separate-git-dir), and
# its hooks run as much as .git's.
check_gitdir_file_inside() {
	local file
	learn_project
	learn_home
	mkdir -p "$T/work/proj/.repo/hooks"
	echo "gitdir: $T/work/proj/.repo" > "$T/work/proj/.git"
	chmod -R a+rwX "$T/work/proj"
	file=$(learn_out gitdirfile.profile)
	learn_run "$file" "$LH" -- sh -c 'echo x > new' >/dev/null 2>&1 || true
	assert_match "^include default$" "$(cat "$file")" "a profile was learned"
	in_project env HOME="$LH" "$H" --profile "$file" -- \
		sh -c 'echo "echo planted" > .repo/hooks/pre-commit' >/dev/null 2>&1 || true
	[ ! -e "$T/work/proj/.repo/hooks/pre-commit" ] ||
		fail "the learned profile let the sandbox plant a git hook: $(grep -v '^#' "$file")"
}
test_learn_attack2_gitdir_file_inside() { for_each_caller check_gitdir_file_inside; }

# "hutch stays bounded": the profile is judged line by line against
# every home of /etc/passwd; a host with many users (20,000 here, a
# private /etc/passwd) and a COMMAND that writes into 200 read-only
# directories must not keep hutch busy for minutes once COMMAND ended
# (2b8ace0: about 60 s; a line compared only with the homes on its path
# takes a second).
check_many_homes_bounded() {
	local file rc=0
	needs_root_unshare -m
	learn_project
	learn_home
	mkdir -p "$T/work/proj/d"
	(cd "$T/work/proj/d" && seq 1 200 | xargs mkdir)
	chmod -R a+rwX "$T/work/proj"
	cp /etc/passwd "$T/passwd"
	seq 1 20000 | awk '{ printf "u%d:x:%d:%d::/nonexistent/u%d:/bin/sh\n", $1, 30000 + $1, 30000 + $1, $1 }' \
		>> "$T/passwd"
	file=$(learn_out homes.profile)
	in_project env HOME="$LH" timeout 30 "$H" --learn "$file" -- \
		sh -c 'for d in d/*; do (echo x > "$d/x") 2>/dev/null; done' >/dev/null 2>&1 || rc=$?
	[ "$rc" != 124 ] || fail "hutch took more than 30 s to judge 200 lines against 20,000 homes"
	assert_match "^bind $T/work/proj/d/1 " "$(cat "$file")" "the lines were judged"
}
test_learn_attack2_many_homes_bounded() { AS=as_root_passwd run_check check_many_homes_bounded; }
