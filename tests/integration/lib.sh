# Helpers for the integration tests.  Each t_*.sh file defines functions
# named test_*; `run` calls each in a subshell and counts the results.
# A test fails by returning non-zero (or calling fail), skips by calling
# skip with the reason.

NOBODY=65534
HUTCH=${HUTCH:?HUTCH must name the hutch binary}
HUTCH_FAULT_BIN=${HUTCH_FAULT_BIN:-}

fail() { echo "    FAIL: $*" >&2; exit 1; }
skip() { echo "    SKIP: $*" >&2; exit 77; }

# assert_eq EXPECTED ACTUAL WHAT
assert_eq() {
	[ "$1" = "$2" ] || fail "$3: expected [$1], got [$2]"
}
# assert_match REGEX TEXT WHAT
assert_match() {
	printf '%s' "$2" | grep -Eq -- "$1" || fail "$3: [$2] does not match /$1/"
}
assert_no_match() {
	! printf '%s' "$2" | grep -Eq -- "$1" || fail "$3: [$2] matches /$1/"
}

# A scratch directory readable by the unprivileged uid, with a copy of
# the binaries it can execute.  Everything a test makes goes in $T.
setup_scratch() {
	T=$(mktemp -d /tmp/hutch-test.XXXXXX)
	chmod 0755 "$T"
	cp "$HUTCH" "$T/hutch"
	chmod 0755 "$T/hutch"
	ln -s hutch "$T/bwrap"
	if [ -n "$HUTCH_FAULT_BIN" ]; then
		cp "$HUTCH_FAULT_BIN" "$T/hutch-fault"
		chmod 0755 "$T/hutch-fault"
	fi
	mkdir "$T/work"
	chmod 0755 "$T/work"
	H="$T/hutch"
}

cleanup_scratch() {
	[ -n "${T:-}" ] && rm -rf "$T"
}

# as_user CMD...: run CMD as the unprivileged uid, from $T/work.
as_user() {
	(cd "$T/work" && setpriv --reuid=$NOBODY --regid=$NOBODY --clear-groups \
		env -i PATH=/usr/bin:/bin HOME=/nonexistent USER=nobody $(sanitizer_env) "$@")
}
# as_root CMD...: the same as root, from $T/work.
as_root() {
	(cd "$T/work" && env -i PATH=/usr/bin:/bin:/usr/sbin:/sbin HOME=/root USER=root $(sanitizer_env) "$@")
}

# from DIR CMD...: CMD as $AS, started in DIR.
from() { $AS sh -c 'cd "$0" && exec "$@"' "$@"; }

# Every option that takes an fd but --listen-fds (which takes LISTEN_FDS),
# with a number for it and its other argument: the numbers the issue saw
# reach one of hutch's own fds when the caller never opened them (the log
# pipe was 7, an O_PATH of the host's root 9).  Both modes, then hutch's.
FD_OPTIONS=(
	"bind-fd 9 /x" "ro-bind-fd 9 /x" "block-fd 4" "sync-fd 7" "file 7 /x"
	"bind-data 6 /x" "ro-bind-data 8 /x" "seccomp 12" "add-seccomp-fd 13" "args 20"
	"userns 9" "userns2 9" "pidns 9" "info-fd 6" "json-status-fd 8" "userns-block-fd 4"
)
HUTCH_FD_OPTIONS=("pass-fd 7" "pass-fd 20" "report-fd 8")

# without_fds CMD...: CMD with every fd from 3 to 63 closed, so that the
# numbers an option names are ones the caller never opened.  Run it in a
# subshell.
without_fds() {
	local fd
	for fd in $(seq 3 63); do { eval "exec $fd>&-"; } 2>/dev/null; done
	"$@"
}

# The sanitizer settings of `make asan` survive env -i.
sanitizer_env() {
	[ -n "${ASAN_OPTIONS:-}" ] && printf 'ASAN_OPTIONS=%s ' "$ASAN_OPTIONS"
	[ -n "${UBSAN_OPTIONS:-}" ] && printf 'UBSAN_OPTIONS=%s ' "$UBSAN_OPTIONS"
	return 0
}

# Both callers, one after the other: for_each_caller FUNC runs FUNC with
# $AS set to as_root, then as_user.
for_each_caller() {
	AS=as_root "$@" || return 1
	AS=as_user "$@" || return 1
}

# Count this machine's mount events: the caller's mountinfo, hashed.
mountinfo_hash() {
	sed 's/^[0-9]* [0-9]* //' /proc/self/mountinfo | sort | md5sum
}

# Processes whose environment or command line holds TAG (the bracket
# keeps grep's own command line from matching).
processes_tagged() {
	local pattern="[${1:0:1}]${1:1}"
	grep -l -a -- "$pattern" /proc/[0-9]*/cmdline /proc/[0-9]*/environ 2>/dev/null |
		sed 's#/proc/\([0-9]*\)/.*#\1#' | sort -u | grep -v "^$$\$" || true
}
