# make install, make uninstall and make deb: what they put where, that
# the installed hutch runs with its built-in profiles, that the
# completions load, that the AppArmor profile parses, and that
# uninstall leaves nothing behind.

INSTALL_TOP=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
INSTALL_UID=1001

# install_into ROOT VAR=VALUE...: make install into DESTDIR ROOT.
install_into() {
	local root=$1; shift
	make -s --no-print-directory -C "$INSTALL_TOP" install DESTDIR="$root" "$@"
}

# tree_copy: a copy of the source tree and its build in $T/src, for a
# make that builds for another PREFIX (DATADIR is compiled in): the tree
# the other tests run from stays as it is.
tree_copy() {
	mkdir -p "$T/src"
	(cd "$INSTALL_TOP" && cp -a Makefile LICENSE README.md docs sandbox helpers man profiles packaging \
		tests build "$T/src/")
	export DEBFULLNAME=${DEBFULLNAME:-$(git -C "$INSTALL_TOP" log -1 --format=%an)}
	export DEBEMAIL=${DEBEMAIL:-$(git -C "$INSTALL_TOP" log -1 --format=%ae)}
}

# installed_files ROOT: every file and link under ROOT, relative.
installed_files() {
	(cd "$1" && find . ! -type d | sed 's|^\./|/|' | sort)
}

# as_installer CMD...: CMD as $INSTALL_UID from $T/work.
as_installer() {
	(cd "$T/work" && setpriv --reuid=$INSTALL_UID --regid=$INSTALL_UID --clear-groups \
		env -i PATH=/usr/bin:/bin HOME=/nonexistent "$@")
}

test_install_uninstall_destdir() {
	local r=$T/root p=/usr/local out f
	install_into "$r" PREFIX=$p APPARMOR=yes >"$T/install.log" 2>&1 || { cat "$T/install.log"; fail "make install"; }
	local want="/etc/apparmor.d/usr.local.bin.hutch
$p/bin/hutch
$p/bin/hutch-seccomp
$p/share/bash-completion/completions/hutch
$p/share/fish/vendor_completions.d/hutch.fish
$p/share/man/man1/hutch-seccomp.1
$p/share/man/man1/hutch.1
$p/share/man/man5/hutch-profile.5
$p/share/zsh/site-functions/_hutch"
	assert_eq "$want" "$(installed_files "$r")" "installed files"
	for f in $p/bin/hutch $p/bin/hutch-seccomp; do
		assert_eq 755 "$(stat -c %a "$r$f")" "mode of $f"
	done
	cmp -s "$INSTALL_TOP/man/hutch.1" "$r$p/share/man/man1/hutch.1" || fail "hutch.1 differs"
	# The profile names the installed path, not the build tree's.
	assert_match "^profile usr.local.bin.hutch $p/bin/hutch flags=" \
		"$(grep '^profile' "$r/etc/apparmor.d/usr.local.bin.hutch")" "AppArmor attachment"
	# The shipped profiles are the binary's own: none on disk.
	[ ! -e "$r$p/share/hutch" ] || fail "$p/share/hutch installed: it would shadow the built-in profiles"

	# The installed hutch, as root and as uid $INSTALL_UID, from a project directory.
	chmod 0755 "$r" "$r/usr" "$r$p" "$r$p/bin"
	out=$(as_root "$r$p/bin/hutch" --profile ci -- sh -c 'id -u; touch /usr/x 2>/dev/null || echo ro') ||
		fail "installed hutch as root: $out"
	assert_eq "0
ro" "$out" "installed hutch as root, profile ci"
	out=$(as_installer "$r$p/bin/hutch" --profile ci -- sh -c 'id -u; touch /usr/x 2>/dev/null || echo ro') ||
		fail "installed hutch as uid $INSTALL_UID: $out"
	assert_eq "$INSTALL_UID
ro" "$out" "installed hutch as uid $INSTALL_UID, profile ci"
	out=$(as_installer "$r$p/bin/hutch" --explain --profile ci)
	assert_match "\(shipped\)/ci" "$out" "the profile read is the built-in one"

	# Completions load and complete from the option table.
	out=$(bash -c 'source "$0"; complete -p hutch; COMP_WORDS=(hutch --prof); COMP_CWORD=1; _hutch; echo "${COMPREPLY[*]}"
		COMP_WORDS=(hutch --profile c); COMP_CWORD=2; _hutch; echo "${COMPREPLY[*]}"' \
		"$r$p/share/bash-completion/completions/hutch") || fail "bash completion: $out"
	assert_eq "complete -F _hutch hutch
--profile
ci" "$out" "bash completion"
	if command -v zsh >/dev/null; then
		out=$(zsh -fc 'fpath=("$1" $fpath); autoload -Uz compinit; compinit -u -D; print -r -- ${_comps[hutch]}' \
			zsh "$r$p/share/zsh/site-functions" 2>&1)
		assert_eq _hutch "$out" "zsh: compinit finds _hutch"
	else
		skip_part "zsh completion: zsh not installed (apt-get install zsh)"
	fi
	if command -v fish >/dev/null; then
		out=$(HOME=$T fish -c 'source $argv[1]; complete -C"hutch --seccomp-pol"; complete -C"hutch --profile c"' \
			"$r$p/share/fish/vendor_completions.d/hutch.fish" 2>&1 | cut -f1)
		assert_eq "--seccomp-policy
ci" "$out" "fish completion"
	else
		skip_part "fish completion: fish not installed (apt-get install fish)"
	fi

	make -s --no-print-directory -C "$INSTALL_TOP" uninstall DESTDIR="$r" PREFIX=$p >/dev/null ||
		fail "make uninstall"
	assert_eq "" "$(installed_files "$r")" "left after uninstall"
}

# A copy of a shipped profile that an earlier install put in DATADIR
# would shadow the binary's own: install and uninstall remove it.
test_install_removes_stale_profile_copies() {
	local r=$T/root p=/usr/local
	mkdir -p "$r$p/share/hutch/profiles/seccomp"
	echo "unshare-net" > "$r$p/share/hutch/profiles/ci"
	echo "default allow" > "$r$p/share/hutch/profiles/seccomp/default"
	install_into "$r" PREFIX=$p APPARMOR=no >/dev/null 2>&1 || fail "make install"
	[ ! -e "$r$p/share/hutch" ] || fail "stale copies left: $(find "$r$p/share/hutch")"
	make -s --no-print-directory -C "$INSTALL_TOP" uninstall DESTDIR="$r" PREFIX=$p >/dev/null
	assert_eq "" "$(installed_files "$r")" "left after uninstall"
}

# PREFIX reaches every path: the binary's own search directory too.
test_install_prefix() {
	local r=$T/root
	tree_copy
	INSTALL_TOP=$T/src install_into "$r" PREFIX=/opt/h APPARMOR=yes >/dev/null 2>&1 || fail "make install"
	[ -x "$r/opt/h/bin/hutch" ] || fail "no /opt/h/bin/hutch"
	grep -q "/opt/h/share/hutch/profiles" "$r/opt/h/bin/hutch" ||
		fail "the installed hutch does not search /opt/h/share/hutch/profiles"
	assert_match "^profile opt.h.bin.hutch /opt/h/bin/hutch " \
		"$(grep '^profile' "$r/etc/apparmor.d/opt.h.bin.hutch")" "AppArmor attachment"
	make -s --no-print-directory -C "$T/src" uninstall DESTDIR="$r" PREFIX=/opt/h >/dev/null
	assert_eq "" "$(installed_files "$r")" "left after uninstall"
}

# The bwrap link goes only where no PATH looks: never beside hutch.
test_install_bwrap_link() {
	local r=$T/root p=/usr/local
	make -s --no-print-directory -C "$INSTALL_TOP" install-bwrap-link DESTDIR="$r" PREFIX=$p \
		APPARMOR=no >/dev/null 2>&1 || fail "make install-bwrap-link"
	assert_eq "$p/bin/hutch" "$(readlink "$r$p/libexec/hutch/bwrap")" "the link"
	[ ! -e "$r$p/bin/bwrap" ] && [ ! -e "$r/usr/bin/bwrap" ] || fail "a bwrap in a bin directory"
	make -s --no-print-directory -C "$INSTALL_TOP" uninstall DESTDIR="$r" PREFIX=$p >/dev/null
	assert_eq "" "$(installed_files "$r")" "left after uninstall"
}

# The profile parses with an AppArmor 4 parser (Ubuntu 24.04's grammar),
# and a broken one does not (the check can fail).
test_apparmor_profile_parses() {
	local f=$T/usr.bin.hutch out rc=0
	make -s --no-print-directory -C "$INSTALL_TOP" build/apparmor/usr.bin.hutch BINDIR=/usr/bin >/dev/null
	cp "$INSTALL_TOP/build/apparmor/usr.bin.hutch" "$f"
	out=$("$(dirname "${BASH_SOURCE[0]}")/tool_apparmor_parser.sh" -Q -K "$f" 2>&1) || rc=$?
	[ $rc -eq 77 ] && skip "$out"
	[ $rc -eq 0 ] || fail "apparmor_parser: $out"
	out=$("$(dirname "${BASH_SOURCE[0]}")/tool_apparmor_parser.sh" -N "$f" 2>/dev/null)
	assert_eq "usr.bin.hutch
usr.bin.hutch-command" "$out" "profile names"
	sed 's/^  userns,$/  userns/' "$f" > "$T/broken"
	! "$(dirname "${BASH_SOURCE[0]}")/tool_apparmor_parser.sh" -Q -K "$T/broken" >/dev/null 2>&1 ||
		fail "a broken profile parsed: the check cannot fail"
}

# Where this system's apparmor_parser cannot read abi 4.0 (Debian 12's
# 3.0), APPARMOR=auto leaves /etc/apparmor.d alone.
test_apparmor_auto_skips_old_parser() {
	local r=$T/root out
	command -v apparmor_parser >/dev/null || skip "no apparmor_parser here (apt-get install apparmor)"
	[ -d /etc/apparmor.d ] || skip "no /etc/apparmor.d here"
	[ ! -e /etc/apparmor.d/abi/4.0 ] || skip "this apparmor_parser reads abi 4.0: auto installs the profile"
	out=$(install_into "$r" PREFIX=/usr/local 2>&1) || fail "make install: $out"
	assert_match "does not read abi 4.0" "$out" "the reason given"
	[ ! -e "$r/etc/apparmor.d" ] || fail "profile installed for a parser that cannot read it"
	make -s --no-print-directory -C "$INSTALL_TOP" uninstall DESTDIR="$r" PREFIX=/usr/local >/dev/null
}

# make deb, then install, run and remove it in a Debian 12 container
# (tests/container's image): lintian clean, nothing left after purge.
test_deb_in_container() {
	local image=localhost/hutch-test:bookworm deb out
	command -v dpkg-deb >/dev/null || skip "no dpkg-deb"
	command -v podman >/dev/null || skip "no podman (make check-container installs it)"
	podman image exists $image || skip "no $image (make check-container builds it)"
	tree_copy
	INSTALL_TOP=$T/src
	out=$(make -s --no-print-directory -C "$INSTALL_TOP" deb 2>&1) || fail "make deb: $out"
	deb=$(printf '%s\n' "$out" | grep '^build/deb/hutch_.*\.deb$')
	[ -f "$INSTALL_TOP/$deb" ] || fail "no package: $out"
	if command -v lintian >/dev/null; then
		assert_no_match "^[EW]: " "$out" "lintian"
	else
		skip_part "lintian: not installed (apt-get install lintian)"
	fi
	out=$(timeout 300 podman run --rm --network none --ulimit nofile=1024:1024 --ulimit nproc=4096:4096 \
		-v "$INSTALL_TOP/build/deb:/deb:ro" $image sh -ec '
		dpkg -i /deb/'"${deb##*/}"' >/dev/null
		mkdir -p /srv/p && cd /srv/p
		hutch --profile ci -- sh -c "echo ran"
		grep -q /usr/share/hutch/profiles /usr/bin/hutch && echo "searches /usr/share/hutch/profiles"
		setpriv --reuid=1001 --regid=1001 --clear-groups hutch --profile ci -- id -u
		bash -c ". /usr/share/bash-completion/completions/hutch; complete -p hutch"
		dpkg --purge hutch >/dev/null
		dpkg -S hutch 2>/dev/null | grep -v "^$" || echo "no file of hutch left"
		ls /usr/share/hutch /etc/apparmor.d/usr.bin.hutch 2>&1 | sed "s/.*cannot access.*/gone/"' 2>&1) ||
		fail "in the container: $out"
	assert_eq "ran
searches /usr/share/hutch/profiles
1001
complete -F _hutch hutch
no file of hutch left
gone
gone" "$out" "install, run, remove in $image"
}
