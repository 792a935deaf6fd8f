#!/bin/bash
# The rootless part of make check-container, run inside the container as
# an unprivileged user (tests/container/inside.sh does; it also works on
# any machine): hutch sh -c 'echo in-sandbox', hutch ./tool (a script of
# the working directory that tries to write /usr), then each shipped
# profile of profiles/ with `true`.  Where this machine refuses user
# namespaces (unshare -U fails: Docker's default seccomp profile), hutch
# ./tool must run under the Landlock fallback and say so in exactly one
# line ("hutch: fallback: ..."); elsewhere stderr must be empty.  One line per case with its exit status and
# hutch's stderr, then "N passed, N failed"; exits non-zero if any failed.
# Usage: tests/container/rootless.sh [HUTCH]   (default: ./hutch of the checkout)
set -u
top=$(cd "$(dirname "$0")/../.." && pwd)
H=${1:-$top/hutch}
[ "$(id -u)" != 0 ] || echo "note: running as root, not as an unprivileged user" >&2
[ -x "$H" ] || { echo "no hutch binary at $H (make first)" >&2; echo "0 passed, 1 failed"; exit 1; }

# From a directory of the user's own: the default profile binds the
# current directory and refuses the home directory.
work=$(mktemp -d /tmp/hutch-rootless.XXXXXX)
trap 'rm -rf "$work"' EXIT
cd "$work" || exit 1

passed=0 failed=0
# try WANT_STDOUT DESCRIPTION CMD...: CMD must exit 0 (or $want_rc) and
# print WANT_STDOUT.
want_rc=0
try() {
	local want=$1 what=$2 out rc err
	shift 2
	out=$(timeout -k 5 60 "$@" 2>"$work/.err")
	rc=$?
	err=$(cat "$work/.err")
	if [ "$rc" = "$want_rc" ] && [ "$out" = "$want" ]; then
		passed=$((passed + 1))
		echo "ok      $what (exit $rc)"
	else
		failed=$((failed + 1))
		echo "FAILED  $what (exit $rc, want $want_rc${want:+, stdout [$out], want [$want]})"
	fi
	[ -z "$err" ] || printf '%s\n' "$err" | sed 's/^/    stderr: /'
}

# tool_stderr ERR: hutch ./tool's stderr, as this machine calls for.
tool_stderr() {
	local err=$1 why
	if why=$(unshare -U true 2>&1); then
		[ -z "$err" ] && return 0
		echo "FAILED  hutch ./tool: stderr where user namespaces work"
	elif [ "$(printf '%s\n' "$err" | wc -l)" = 1 ] && [[ $err == "hutch: fallback: user namespaces refused ("* ]]; then
		echo "ok      hutch ./tool: the fallback's one-line notice (unshare -U: $why)"
		return 0
	else
		echo "FAILED  hutch ./tool: user namespaces refused here (unshare -U: $why), but no one-line fallback notice"
	fi
	return 1
}

echo "# as $(id -un 2>/dev/null || id -u) (uid $(id -u)), $H"
try in-sandbox "hutch sh -c 'echo in-sandbox'" "$H" sh -c 'echo in-sandbox'
printf '#!/bin/sh\nif touch /usr/hutch-rootless 2>/dev/null; then echo usr-writable; else echo usr-refused; fi\n' >"$work/tool"
chmod 0755 "$work/tool"
try usr-refused "hutch ./tool (confined: /usr not writable)" "$H" ./tool
if tool_stderr "$(cat "$work/.err")"; then passed=$((passed + 1)); else failed=$((failed + 1)); fi
for p in "$top"/profiles/*; do
	[ -f "$p" ] || continue
	name=${p##*/}
	case $name in *~) continue ;; esac
	# Where user namespaces are refused, a profile without the fallback
	# fails closed: exit 125 with the one line naming the refusal.
	want_rc=0
	if ! unshare -U true 2>/dev/null &&
		"$H" --profile "$name" --explain=json true 2>/dev/null | grep -q '"fallback": "none"'; then
		want_rc=125
		try "" "hutch --profile $name true (no fallback in it: fails closed)" "$H" --profile "$name" true
		grep -q '^hutch: clone: new user namespace refused: ' "$work/.err" ||
			{ echo "FAILED  hutch --profile $name: not the refusal's line"; failed=$((failed + 1)); }
		continue
	fi
	try "" "hutch --profile $name true" "$H" --profile "$name" true
done
echo "$passed passed, $failed failed"
[ "$failed" = 0 ]
