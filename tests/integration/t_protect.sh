# --protect PATH: read-only after every other mount, with a read-only
# placeholder where PATH is missing, removed by the last run using it;
# --protect-git; and the profile agent, which protects a checkout's
# hooks and configuration and every way git is sent to others.

# A project that looks like a checkout: .git with hooks and config, a
# source file; writable by both callers.  No .envrc, no .vscode.
make_checkout() {
	rm -rf "$T/work/proj"
	mkdir -p "$T/work/proj/.git/hooks" "$T/work/proj/src"
	printf '[core]\n\tbare = false\n' >"$T/work/proj/.git/config"
	printf 'echo sample\n' >"$T/work/proj/.git/hooks/pre-commit.sample"
	printf 'int main(void) { return 0; }\n' >"$T/work/proj/src/main.c"
	chmod -R a+rwX "$T/work/proj"
}

# Every way to write or create a protected path, from inside: each line
# "ok NAME" when refused, "ESCAPED NAME" when it worked.
ATTACKS='
try() { name=$1; shift; if "$@" 2>/dev/null; then echo "ESCAPED $name"; else echo "ok $name"; fi; }
try write-config sh -c "echo x >> .git/config"
try truncate-config sh -c ": > .git/config"
try create-hook sh -c "echo evil > .git/hooks/pre-commit"
try remove-config rm -f .git/config
try rename-over-config sh -c "echo evil > evil && mv -f evil .git/config"
try rename-git sh -c "mv .git .git.old"
try remove-hooks rm -rf .git/hooks
try rename-hooks mv .git/hooks .git/hooks.old
try symlink-hooks sh -c "rm -rf .git/hooks; ln -s /tmp .git/hooks"
try create-envrc sh -c "echo evil > .envrc"
try symlink-envrc ln -s /tmp/evil .envrc
try create-vscode mkdir .vscode/tasks
try remove-vscode rmdir .vscode
try symlink-around-vscode sh -c "mv .vscode .vscode.old && ln -s /tmp .vscode"
try chmod-hooks chmod u+w .git/hooks
'
SUMMARY='ok write-config
ok truncate-config
ok create-hook
ok remove-config
ok rename-over-config
ok rename-git
ok remove-hooks
ok rename-hooks
ok symlink-hooks
ok create-envrc
ok symlink-envrc
ok create-vscode
ok remove-vscode
ok symlink-around-vscode
ok chmod-hooks'

# The host's view after a run: nothing of the attacks, no placeholder.
assert_checkout_intact() {
	assert_eq "$(printf '[core]\n\tbare = false')" "$(cat "$T/work/proj/.git/config")" \
		".git/config unchanged"
	[ ! -e "$T/work/proj/.git/hooks/pre-commit" ] || fail "a hook was planted"
	[ ! -e "$T/work/proj/.envrc" ] && [ ! -L "$T/work/proj/.envrc" ] ||
		fail ".envrc left behind: $(ls -la "$T/work/proj")"
	[ ! -e "$T/work/proj/.vscode" ] || fail "the .vscode placeholder was left behind"
	[ -d "$T/work/proj/.git/hooks" ] || fail ".git/hooks is gone"
}

check_protect_paths() {
	local out
	make_checkout
	out=$(in_project timeout 60 "$H" --profile ci --protect .git/hooks/ --protect .git/config \
		--protect .envrc --protect .vscode/ -- sh -c "$ATTACKS"'
		touch src/new.c && mkdir -p build/obj && echo built > build/obj/x &&
			mv build/obj/x build/obj/y && rm src/main.c && echo "rest writable"' 2>"$T/err")
	assert_eq "$SUMMARY
rest writable" "$out" "every protected path stays as it was; the rest is writable"
	assert_eq "" "$(cat "$T/err")" "quiet"
	assert_checkout_intact
	[ -e "$T/work/proj/src/new.c" ] && [ ! -e "$T/work/proj/src/main.c" ] ||
		fail "writes elsewhere in the tree did not reach the host"
}
test_protect_writing_creating_renaming_symlinking() { for_each_caller check_protect_paths; }

# The profile agent protects the same paths (and .gitmodules, .idea).
check_agent_protects() {
	local out
	make_checkout
	out=$(in_project timeout 60 "$H" --profile agent -- sh -c "$ATTACKS"'
		for p in .gitmodules .idea/x; do
			if touch "$p" 2>/dev/null; then echo "ESCAPED $p"; fi
		done
		touch src/new.c && echo "rest writable"
		ls -A ~ | wc -l' 2>"$T/err")
	assert_eq "$SUMMARY
rest writable
0" "$out" "agent: protected paths, a writable checkout, an empty home"
	assert_eq "" "$(cat "$T/err")" "agent: quiet"
	assert_checkout_intact
	[ ! -e "$T/work/proj/.gitmodules" ] && [ ! -e "$T/work/proj/.idea" ] ||
		fail "agent: placeholders left behind"
	out=$(in_project timeout 60 "$H" --profile agent -- sh -c 'grep -c : /proc/net/dev; env | grep -c PROXY || true')
	assert_eq "1
0" "$out" "agent: a network namespace of its own with lo only, no proxy"
	out=$(in_project timeout 60 "$H" --profile agent --allow-net registry.npmjs.org -- sh -c '
		grep -c : /proc/net/dev; echo "$HTTPS_PROXY"')
	assert_eq "1
http://127.0.0.1:3128" "$out" "agent with --allow-net: the proxy"
}
test_profile_agent_protects_checkout() { for_each_caller check_agent_protects; }

# A link on the way is pinned, and what it leads to is protected.
check_symlinked_component() {
	local out
	make_checkout
	mkdir -m 0777 "$T/work/proj/editor-settings"
	ln -s editor-settings "$T/work/proj/.vscode"
	out=$(in_project timeout 60 "$H" --profile ci --protect .vscode/ -- sh -c '
		if touch editor-settings/tasks.json 2>/dev/null; then echo "ESCAPED target"; fi
		if mv .vscode .vscode.old 2>/dev/null; then echo "ESCAPED link"; fi
		if rm .vscode 2>/dev/null; then echo "ESCAPED unlink"; fi
		readlink .vscode' 2>"$T/err")
	assert_eq "editor-settings" "$out" "the link stays, its target is read-only"
	[ -L "$T/work/proj/.vscode" ] && [ -z "$(ls -A "$T/work/proj/editor-settings")" ] ||
		fail "the link or its target changed"
}
test_protect_through_a_symlink() { for_each_caller check_symlinked_component; }

# A worktree's .git is a file naming the real directory: it decides where
# .git/hooks is, so it is what gets protected.
check_git_file() {
	local out
	make_checkout
	rm -rf "$T/work/proj/.git"
	printf 'gitdir: /elsewhere/.git/worktrees/proj\n' >"$T/work/proj/.git"
	chmod 0666 "$T/work/proj/.git"
	out=$(in_project timeout 60 "$H" --profile ci --protect .git/hooks/ -- sh -c '
		if echo "gitdir: /tmp/evil" > .git 2>/dev/null; then echo ESCAPED; fi
		cat .git' 2>"$T/err")
	assert_eq "gitdir: /elsewhere/.git/worktrees/proj" "$out" "the .git file is read-only"
}
test_protect_git_file_of_a_worktree() { for_each_caller check_git_file; }

# Not a checkout at all: the missing .git itself becomes the placeholder,
# so no repository (hooks, config, fsmonitor) can be planted.
check_missing_parent() {
	local out
	make_checkout
	rm -rf "$T/work/proj/.git"
	out=$(in_project timeout 60 "$H" --profile ci --protect .git/hooks/ -- sh -c '
		if mkdir -p .git/hooks 2>/dev/null || touch .git/config 2>/dev/null; then
			echo ESCAPED
		fi
		ls -ld .git | cut -c1-10' 2>"$T/err")
	assert_eq "dr-xr-xr-x" "$out" ".git is an empty read-only directory"
	[ ! -e "$T/work/proj/.git" ] || fail "the .git placeholder was left behind"
}
test_protect_missing_parent() { for_each_caller check_missing_parent; }

test_protect_explain_and_errors() {
	local out rc=0
	make_checkout
	out=$(cd "$T/work/proj" && "$H" --profile agent --explain true)
	assert_match "protected, read-only after every other mount" "$out" "explain's heading"
	assert_match "  $T/work/proj/.git/hooks/    \(\(shipped\)/agent:[0-9]+\)" "$out" \
		"relative paths against the bound current directory"
	(cd "$T/work/proj" && "$H" --profile none --ro-bind / / --protect .envrc true) \
		2>"$T/err" || rc=$?
	assert_eq 125 "$rc" "a relative path without a bound cwd"
	assert_match "^hutch: parse: --protect .envrc \(command line\): a relative path is taken against the bound current directory" \
		"$(cat "$T/err")" "says why"
	rc=0
	(cd "$T/work/proj" && "$H" --protect / true) 2>"$T/err" || rc=$?
	assert_eq 125 "$rc" "--protect /"
}

# ---- git's ways to another configuration (the profile agent) ----
#
# Each check: a real repository made by the caller ($T/work/g/repo, with
# what the check needs around it), one redirect attempted from inside
# `--profile agent`, then `git status` on the host as the same uid.  The
# planted command writes $PWNED; it must not exist.  The planted config
# is $G/evil.config, in the tree, so that the sandbox can copy it.

git_as() { $AS git -c user.name=t -c user.email=t@t -c protocol.file.allow=always "$@"; }

make_git_repo() {
	G="$T/work/g"
	PWNED="$G/PWNED"
	rm -rf "$G"
	mkdir -m 0777 "$G"
	git_as init -q "$G/repo"
	echo x | $AS tee "$G/repo/f" >/dev/null
	git_as -C "$G/repo" add f
	git_as -C "$G/repo" commit -qm one
	printf '[core]\n\tfsmonitor = "echo planted >%s; false"\n' "$PWNED" |
		$AS tee "$G/repo/evil.config" >/dev/null
}

in_repo() {
	$AS sh -c 'cd "$0" && exec "$@"' "$G/repo" timeout 60 "$@"
}

# agent_attack SCRIPT [DIR]: SCRIPT inside, from the repository, with
# $PWNED as $0; then `git status` on the host in DIR (the repository);
# nothing planted runs.
agent_attack() {
	local rc=0
	in_repo "$H" --profile agent -- sh -c "$1
		true" "$PWNED" >"$T/out" 2>&1 || rc=$?
	assert_eq 0 "$rc" "the sandbox ran: $(cat "$T/out")"
	$AS sh -c 'cd "$0" && git status' "${2:-$G/repo}" >/dev/null 2>&1 || true
	[ ! -e "$PWNED" ] || fail "the planted command ran on the host: $(cat "$T/out")"
}

check_git_config() {
	make_git_repo
	agent_attack 'cat evil.config >> .git/config'
}
test_protect_git_config() { for_each_caller check_git_config; }

# post-index-change runs when `git status` refreshes a stale index.
check_git_hooks() {
	make_git_repo
	agent_attack 'printf "#!/bin/sh\necho planted > $0\n" > .git/hooks/post-index-change
		chmod +x .git/hooks/post-index-change; touch -d 2001-01-01 f' "$G/repo"
	[ ! -e "$G/repo/.git/hooks/post-index-change" ] || fail "a hook was planted"
}
test_protect_git_hooks() { for_each_caller check_git_hooks; }

# The issue's repository: commondir names where config comes from.
check_git_commondir() {
	make_git_repo
	agent_attack 'mkdir evil && cp -r .git/objects .git/refs .git/HEAD evil/ &&
		cp evil.config evil/config && echo ../evil > .git/commondir'
	assert_eq "" "$(ls -A "$G/repo/.git" | grep -x commondir)" "no commondir left"
}
test_protect_git_commondir() { for_each_caller check_git_commondir; }

# Read when the (protected) config enables extensions.worktreeConfig.
check_git_config_worktree() {
	make_git_repo
	git_as -C "$G/repo" config extensions.worktreeConfig true
	agent_attack 'cp evil.config .git/config.worktree'
}
test_protect_git_config_worktree() { for_each_caller check_git_config_worktree; }

# A linked worktree beside the repository: its git directory is
# .git/worktrees/wt, inside the tree the sandbox writes.
check_git_worktrees() {
	make_git_repo
	git_as -C "$G/repo" worktree add -q "$G/wt" 2>/dev/null
	agent_attack 'mkdir evil && cp -r .git/objects .git/refs .git/HEAD evil/ &&
		cp evil.config evil/config && echo "$PWD/evil" > .git/worktrees/wt/commondir
		cp evil.config .git/worktrees/wt/config.worktree' "$G/wt"
}
test_protect_git_worktrees() { for_each_caller check_git_worktrees; }

# A submodule's git directory is .git/modules/NAME: `git status` in the
# superproject runs git in it.
check_git_modules() {
	make_git_repo
	git_as init -q "$G/subsrc"
	git_as -C "$G/subsrc" commit -q --allow-empty -m sub
	git_as -C "$G/repo" submodule add -q "$G/subsrc" sub 2>/dev/null
	git_as -C "$G/repo" commit -qm sub
	echo change | $AS tee "$G/repo/sub/new" >/dev/null
	agent_attack 'cat evil.config >> .git/modules/sub/config'
}
test_protect_git_modules() { for_each_caller check_git_modules; }

# .git itself replaced by a `gitdir:` file or a link to a planted
# repository.
check_git_replaced() {
	make_git_repo
	agent_attack 'cp -r .git planted && chmod -R u+w planted &&
		cat evil.config >> planted/config
		mv .git .git.old; printf "gitdir: planted\n" > .git
		ln -s planted link && mv -T link .git; mv -T planted .git'
	[ -d "$G/repo/.git" ] && [ ! -L "$G/repo/.git" ] || fail ".git was replaced"
}
test_protect_git_dir_replaced() { for_each_caller check_git_replaced; }

# Not a checkout: no repository can be made where there was none.
check_git_created() {
	make_git_repo
	rm -rf "$G/repo/.git"
	agent_attack 'git init -q . 2>/dev/null || mkdir -p .git/objects .git/refs
		printf "ref: refs/heads/main\n" > .git/HEAD; cat evil.config >> .git/config'
	[ ! -e "$G/repo/.git" ] || fail "a .git was left: $(ls -la "$G/repo/.git")"
}
test_protect_git_not_created() { for_each_caller check_git_created; }

# Ordinary git inside still works: add, commit, branch, status, gc.
check_git_works_inside() {
	local out
	make_git_repo
	out=$(in_repo "$H" --profile agent -- sh -c 'echo y >> f && git add f &&
		git -c user.name=t -c user.email=t@t commit -qm two && git branch b2 &&
		git status --porcelain --untracked-files=no && git gc -q && git log --format=%s' 2>&1)
	assert_eq "two
one" "$out" "git works inside"
	assert_eq "b2" "$(git_as -C "$G/repo" branch --list b2 --format='%(refname:short)')" \
		"the branch reached the host"
}
test_protect_git_ordinary_use_inside() { for_each_caller check_git_works_inside; }

# ---- placeholders: per run, never left behind ----

# What a directory holds, modes included, times left out.
listing() { (cd "$1" && find . -printf '%y %m %u %p\n' | LC_ALL=C sort); }

# start_held NAME DIR: hutch --profile agent in DIR, its COMMAND waiting
# for a line on $T/sync/NAME.in once it has said "ready", then trying to
# create two protected paths (on stderr, $T/sync/NAME.err, "ESCAPED" if
# it could); $T/sync/NAME.pid is hutch's pid.  Opens fds to talk to it:
# see release_held.
start_held() {
	local s="$T/sync" name=$1 dir=$2
	mkdir -p -m 0777 "$s"
	mkfifo -m 0666 "$s/$name.in" "$s/$name.out"
	$AS sh -c 'cd "$0" && echo $$ > "$1" && exec "$2" --profile agent -- \
		sh -c "echo ready; read x; for p in .envrc .idea/x; do
			if (echo evil > \$p) 2>/dev/null; then echo ESCAPED \$p >&2; fi; done"' \
		"$dir" "$s/$name.pid" "$H" \
		<"$s/$name.in" >"$s/$name.out" 2>"$s/$name.err" &
	eval "${name}_job=\$!"
	eval "exec {${name}_in}>\"\$s/\$name.in\" {${name}_out}<\"\$s/\$name.out\""
	local fd_out=${name}_out line=
	read -r line <&"${!fd_out}" || true
	assert_eq "ready" "$line" "$name: running ($(cat "$s/$name.err"))"
}

# release_held NAME [killed]: let it end (unless it was killed: no
# reader left, the write would end this shell by SIGPIPE), wait for it.
release_held() {
	local fd_in=${1}_in fd_out=${1}_out job=${1}_job
	[ "${2:-}" = killed ] || echo go >&"${!fd_in}"
	eval "exec {${fd_in}}>&- {${fd_out}}<&-"
	wait "${!job}" || true
}

# Two at once, the first ending while the second runs, in a checkout and
# in a directory that is not one: the host's directory is as before.
check_concurrent_runs() {
	local before
	make_git_repo
	mkdir -m 0777 "$G/plain"
	for d in "$G/repo" "$G/plain"; do
		before=$(listing "$d")
		start_held a "$d"
		start_held b "$d"
		release_held a
		release_held b
		assert_eq "" "$(cat "$T/sync/a.err" "$T/sync/b.err")" \
			"$d: protected while the other run ends"
		assert_eq "$before" "$(listing "$d")" "$d: nothing left behind"
		rm -f "$T/sync/"*
	done
}
test_protect_concurrent_runs_leave_nothing() { for_each_caller check_concurrent_runs; }

# A run killed with SIGKILL leaves its placeholders (marked as such); the
# next run shares them and removes them at its exit.
check_sigkilled_run() {
	local before
	make_git_repo
	mkdir -m 0777 "$G/plain"
	for d in "$G/repo" "$G/plain"; do
		before=$(listing "$d")
		start_held a "$d"
		kill -KILL "$(cat "$T/sync/a.pid")"
		release_held a killed
		$AS sh -c 'cd "$0" && exec "$@"' "$d" timeout 60 "$H" --profile agent -- true ||
			fail "the next run failed"
		assert_eq "$before" "$(listing "$d")" "$d: nothing left after the next run"
		rm -f "$T/sync/"*
	done
}
test_protect_sigkilled_run_cleaned_by_next() { for_each_caller check_sigkilled_run; }
