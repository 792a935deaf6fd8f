# The caller's environment as hutch reads it (issue 26): a HOME or
# XDG_CONFIG_HOME it cannot read, a HOME that is no home, and a root
# caller's checkout that another uid owns.  (The signal rule, the
# caller's ignored signals, is tested in t_process.sh.)

# A HOME (or XDG_CONFIG_HOME) that names another uid's directory (su -m,
# sudo -E, a CI step that keeps root's HOME) holds no override the caller
# can read: the shipped profile runs, and --explain and --doctor say that
# the user's directory was skipped.  750d270 refused the run:
# "hutch: parse: profile default: ...: Permission denied", exit 125.
test_unreadable_user_profiles_skipped() {
	local private="$T/private" var out rc
	mkdir -p "$private/.config/hutch/profiles"
	printf 'include ci\nsetenv FROM_PRIVATE yes\n' >"$private/.config/hutch/profiles/default"
	chmod 0700 "$private"
	make_project
	AS=as_user
	for var in HOME="$private" XDG_CONFIG_HOME="$private/.config"; do
		rc=0; out=$(in_project env "$var" "$T/hutch" sh -c 'echo "${FROM_PRIVATE:-shipped}"' 2>&1) || rc=$?
		out=$(quiet_but_for_the_machine "$out")
		assert_eq "0 shipped" "$rc $out" "uid $NOBODY, $var (root's, 0700): the shipped default, quietly"
		out=$(in_project env "$var" "$T/hutch" --explain true 2>&1)
		assert_match "^note: user profiles $private/.config/hutch/profiles: Permission denied: skipped, the search went on" \
			"$out" "--explain says the user's profiles were skipped ($var)"
	done
	out=$(in_project env HOME="$private" "$T/hutch" --doctor 2>&1)
	assert_match "^WARN profiles: user profiles $private/.config/hutch/profiles: Permission denied: skipped.*; fix: " \
		"$out" "--doctor says so"
	# A profile of one's own that cannot be read: skipped too, named.
	mkdir -p "$T/work/mine/hutch/profiles"
	printf 'include ci\nsetenv FROM_MINE yes\n' >"$T/work/mine/hutch/profiles/default"
	chmod 0755 "$T/work/mine" "$T/work/mine/hutch" "$T/work/mine/hutch/profiles"
	chmod 0600 "$T/work/mine/hutch/profiles/default"
	rc=0; out=$(in_project env XDG_CONFIG_HOME="$T/work/mine" "$T/hutch" --explain true 2>&1) || rc=$?
	assert_match "^note: user profile $T/work/mine/hutch/profiles/default: Permission denied: skipped" \
		"$out" "an unreadable profile file is named ($rc)"
	# Root can read both: its override applies, as before.
	AS=as_root
	assert_eq yes "$(in_project env HOME="$private" "$T/hutch" sh -c 'echo "$FROM_PRIVATE"')" \
		"root: the profile of \$HOME/.config/hutch/profiles"
	assert_eq yes "$(in_project env XDG_CONFIG_HOME="$T/work/mine" "$T/hutch" sh -c 'echo "$FROM_MINE"')" \
		"root: the profile of \$XDG_CONFIG_HOME/hutch/profiles"
}

# sudo -E: root with HOME naming a user's directory.  That user's
# profile is no override of root's (hostfile.h refuses another user's
# file): it is skipped with a note, and the shipped profile runs.  The
# merge of the two changes first failed such a run ("owned by another
# user"), exit 125.
test_other_users_profile_skipped_for_root() {
	local home="$T/alice" out rc
	mkdir -p "$home/.config/hutch/profiles"
	printf 'include ci\nsetenv FROM_ALICE yes\n' >"$home/.config/hutch/profiles/default"
	chown -R "$NOBODY:$NOBODY" "$home"
	make_project
	AS=as_root
	rc=0; out=$(in_project env HOME="$home" "$T/hutch" sh -c 'echo "${FROM_ALICE:-shipped}"' 2>&1) || rc=$?
	assert_eq "0 shipped" "$rc $out" "root, HOME of uid $NOBODY: the shipped default, quietly"
	out=$(in_project env HOME="$home" "$T/hutch" --explain true 2>&1)
	assert_match "^note: user profile $home/.config/hutch/profiles/default: owned by another user.*skipped" \
		"$out" "--explain names the skipped profile"
}

# hutch(1), FILES and hutch-profile(5), VARIABLES: a HOME that is not
# absolute, has a . or .. component, is /, or lies in a directory the
# sandbox takes from the host or mounts itself (/usr, /bin, /sbin, /lib*,
# /etc, /proc, /dev, /sys, /boot) is no home: profiles see ${HOME} as
# /nonexistent, a per-run home that COMMAND's HOME names.  750d270 hid
# /bin under a tmpfs for HOME=/bin (user sync; exit 127), and made a
# tmpfs at /foo for HOME=foo while COMMAND's HOME stayed foo.
check_home_that_is_no_home() {
	local h out
	make_project
	for h in /bin /usr/sbin /proc foo //usr/ /home/../bin; do
		out=$(in_project env HOME="$h" "$T/hutch" sh -c 'echo "$HOME"; touch "$HOME/x" && echo written' 2>&1) ||
			fail "HOME=$h: $out"
		assert_eq "/nonexistent written" "$(echo $out)" "HOME=$h: COMMAND's HOME is a per-run /nonexistent"
	done
	out=$(in_project env HOME=/home/someone "$T/hutch" sh -c 'echo "$HOME"; touch "$HOME/x" && echo written' 2>&1)
	assert_eq "/home/someone written" "$(echo $out)" "HOME=/home/someone: the per-run home is there"
	out=$(in_project env HOME=/usr/sbin "$T/hutch" --explain true 2>&1)
	assert_match '^note: HOME /usr/sbin is in /usr, which the sandbox takes from the host or mounts itself: profiles see \$\{HOME\} as /nonexistent' \
		"$out" "--explain says why"
	out=$(in_project env HOME=foo "$T/hutch" --explain true 2>&1)
	assert_match '^note: HOME foo is not an absolute path: no user profiles are looked for' "$out" \
		"HOME=foo: no user profiles relative to the current directory"
}
test_home_that_is_no_home() { for_each_caller check_home_that_is_no_home; }

# hutch(1), --bind-cwd: root runs COMMAND as root without
# capabilities, which has no CAP_DAC_OVERRIDE over a checkout another uid
# owns (and --cap-add cannot give it one: that uid is not mapped).  The
# write fails with COMMAND's own EACCES; --explain says why and how: run
# hutch as the owner, whose writes land as the owner's.  750d270 said
# nothing.
test_ci_root_foreign_checkout() {
	local out rc
	make_project
	chown -R $NOBODY:$NOBODY "$T/work/proj"
	chmod 0755 "$T/work/proj"
	AS=as_root
	rc=0; out=$(in_project "$T/hutch" --profile ci touch by-root 2>&1) || rc=$?
	assert_eq 1 "$rc" "root writing a checkout uid $NOBODY owns fails ($out)"
	[ ! -e "$T/work/proj/by-root" ] || fail "root wrote into uid $NOBODY's checkout"
	out=$(in_project "$T/hutch" --profile ci --explain true)
	assert_match "the current directory belongs to uid $NOBODY; COMMAND is root without capabilities, .*run hutch as uid $NOBODY" \
		"$out" "--explain says why and how"
	out=$(in_project "$T/hutch" --profile ci --explain=json true)
	assert_match "\"owner-note\": \"belongs to uid $NOBODY;" "$out" "--explain=json too"
	AS=as_user
	in_project "$T/hutch" --profile ci touch by-owner || fail "uid $NOBODY cannot write its checkout"
	assert_eq "$NOBODY" "$(stat -c %u "$T/work/proj/by-owner")" "as the owner, files are the owner's"
	assert_no_match "belongs to uid" "$(in_project "$T/hutch" --profile ci --explain true)" \
		"no note for the owner"
	AS=as_root
	assert_no_match "belongs to uid" "$(in_project "$T/hutch" --explain true)" \
		"no note where the current directory is bound read-only (default)"
	chown -R 0:0 "$T/work/proj"
	assert_no_match "belongs to uid" "$(in_project "$T/hutch" --profile ci --explain true)" \
		"no note for root's own checkout"
}
