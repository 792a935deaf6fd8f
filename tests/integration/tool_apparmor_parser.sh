#!/bin/sh
# tool_apparmor_parser.sh ARGS...: an apparmor_parser that reads abi 4.0
# (the userns rule), run with ARGS and the base directory of its own
# abi and tunables.  This system's when it is one; else, as root,
# Debian 13's apparmor and its libc, downloaded once with apt-get (a
# sources list of their own: the system's stays as it is) into
# /var/cache/hutch/apparmor4 and run through that libc's loader.  Exit
# 77 with the reason when neither can be had.
set -eu
if command -v apparmor_parser >/dev/null 2>&1 && [ -e /etc/apparmor.d/abi/4.0 ]; then
	exec apparmor_parser "$@"
fi
cache=/var/cache/hutch/apparmor4
root=$cache/root
if [ ! -x "$root/usr/sbin/apparmor_parser" ]; then
	if [ "$(id -u)" != 0 ]; then
		echo "no apparmor_parser for abi 4.0 here, and not root to fetch Debian 13's" >&2
		exit 77
	fi
	mkdir -p "$cache/lists/partial" "$cache/archives/partial"
	echo 'deb http://deb.debian.org/debian trixie main' > "$cache/sources.list"
	apt_opts="-o Dir::Etc::sourcelist=$cache/sources.list -o Dir::Etc::sourceparts=- -o Dir::State::Lists=$cache/lists -o Dir::Cache=$cache"
	# shellcheck disable=SC2086
	if ! (apt-get $apt_opts update -qq && cd "$cache" && apt-get $apt_opts download apparmor libc6) \
		>"$cache/fetch.log" 2>&1; then
		echo "could not fetch Debian 13's apparmor (see $cache/fetch.log)" >&2
		exit 77
	fi
	for deb in "$cache"/apparmor_*.deb "$cache"/libc6_*.deb; do dpkg-deb -x "$deb" "$root"; done
fi
exec "$root/usr/lib64/ld-linux-x86-64.so.2" --library-path "$root/usr/lib/x86_64-linux-gnu" \
	"$root/usr/sbin/apparmor_parser" -b "$root/etc/apparmor.d" "$@"
