# AppArmor steps shared by `make install`/`make uninstall` and the Debian
# package's maintainer scripts (make deb copies this file into them).
# POSIX sh; each function does one step and says what it skipped.

# aa_enabled: AppArmor enforces in this kernel.
aa_enabled() {
	[ -d /sys/kernel/security/apparmor ] &&
		[ "$(cat /sys/module/apparmor/parameters/enabled 2>/dev/null)" = Y ]
}

# aa_readable FILE: no apparmor_parser here, or this system's reads FILE.
# Debian 12's (3.0) does not know abi 4.0 or the userns rule: installed
# there, the profile would make the apparmor service fail at boot, for a
# kernel that restricts no user namespace anyway.
aa_readable() {
	command -v apparmor_parser >/dev/null 2>&1 || return 0
	apparmor_parser -Q -K "$1" >/dev/null 2>&1
}

# aa_loaded NAME: a profile NAME is loaded.
aa_loaded() {
	grep -q "^$1 (" /sys/kernel/security/apparmor/profiles 2>/dev/null
}

# aa_load FILE: load (or replace) FILE's profiles where that can be done.
aa_load() {
	if [ "$(id -u)" != 0 ] || ! aa_enabled || ! command -v apparmor_parser >/dev/null 2>&1; then
		echo "hutch: apparmor: $1: installed, not loaded (not root, AppArmor off, or no apparmor_parser)"
		return 0
	fi
	apparmor_parser -r "$1"
}

# aa_unload FILE NAME: unload FILE's profiles if NAME is loaded.
aa_unload() {
	if [ "$(id -u)" = 0 ] && aa_loaded "$2" && command -v apparmor_parser >/dev/null 2>&1; then
		apparmor_parser -R "$1"
	fi
	return 0
}
