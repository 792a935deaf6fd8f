# --protect PATH: read-only after every other mount, with an empty
# read-only placeholder where PATH is missing, removed at exit; and the
# profile agent, which protects a checkout's hooks and configuration.

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

in_project() {
	$AS sh -c 'cd "$0" && exec "$@"' "$T/work/proj" timeout 60 "$@"
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
	out=$(in_project "$H" --profile ci --protect .git/hooks/ --protect .git/config \
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
	out=$(in_project "$H" --profile agent -- sh -c "$ATTACKS"'
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
	out=$(in_project "$H" --profile agent -- sh -c 'grep -c : /proc/net/dev; env | grep -c PROXY')
	assert_eq "1
0" "$out" "agent: a network namespace of its own with lo only, no proxy"
	out=$(in_project "$H" --profile agent --allow-net registry.npmjs.org -- sh -c '
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
	out=$(in_project "$H" --profile ci --protect .vscode/ -- sh -c '
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
	out=$(in_project "$H" --profile ci --protect .git/hooks/ -- sh -c '
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
	out=$(in_project "$H" --profile ci --protect .git/hooks/ -- sh -c '
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
