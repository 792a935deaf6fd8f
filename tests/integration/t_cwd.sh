# The bind of the current directory (issue 16): the profiles that bind it
# (default, ci, build, net-client) never hand COMMAND a live socket of a
# server outside, nor cover a private tmpfs.  Real listeners, as root and
# as the unprivileged uid, in each place that holds such sockets: /tmp,
# /var/tmp, /dev/shm, /run, $XDG_RUNTIME_DIR and $HOME.  Each defence is
# tested on its own, with its control:
#   the starting-directory guard: from each place, hutch refuses to start
#     (control: the same place bound by hand, read-only, is connectable);
#   the private tmpfs and the mount view: from a project directory, no
#     socket of those places is in the sandbox (control: bound by hand).

CWD_PROFILES="default ci build net-client"

# CONNECT: "connect:ok" or "connect:ERRNO" for each path.
CONNECT='import errno, socket, sys
for path in sys.argv[1:]:
    s = socket.socket(socket.AF_UNIX)
    try:
        s.connect(path)
        print("connect:ok")
    except OSError as e:
        print("connect:" + errno.errorcode[e.errno])'

# places: for $AS, a directory of the caller's in each place, with the
# place's socket in it.  PLACES (starting directories, the place itself
# where the caller may create a socket there), SOCKS, HOME_DIR, XDG_DIR.
make_start_places() {
	local owner=0 tag=hutch-cwd-$$-$RANDOM
	[ "$AS" = as_user ] && owner=$NOBODY
	# $HOME outside /tmp, so that the /tmp rule is seen on its own.
	HOME_DIR=/home/$tag XDG_DIR=$T/xdg.$AS RUN_DIR=/run/$tag
	trap 'remove_start_places; cleanup_scratch' EXIT
	mkdir -p "$HOME_DIR" "$XDG_DIR" "$RUN_DIR" "$T/work/proj"
	chmod 0700 "$XDG_DIR"
	chown "$owner:$owner" "$HOME_DIR" "$XDG_DIR" "$RUN_DIR"
	chmod 0777 "$T/work/proj"
	SOCKS="/tmp/$tag.sock /var/tmp/$tag.sock /dev/shm/$tag.sock $RUN_DIR/sock $XDG_DIR/sock $HOME_DIR/sock"
	PLACES="/tmp /var/tmp /dev/shm /run $RUN_DIR $XDG_DIR $HOME_DIR"
}

remove_start_places() { rm -rf "$RUN_DIR" "$HOME_DIR" "$XDG_DIR"; }

# connect_all_from DIR ARGS...: hutch ARGS from DIR, as $AS, with HOME and
# XDG_RUNTIME_DIR set; COMMAND connects to every socket.  Its output on
# one line, without the warning a root caller gets about --pids.
connect_all_from() {
	local dir=$1
	shift
	from "$dir" env HOME="$HOME_DIR" XDG_RUNTIME_DIR="$XDG_DIR" \
		timeout 20 "$H" "$@" python3 -c "$CONNECT" $SOCKS 2>&1 |
		grep -v '^hutch: limits: --pids' | paste -sd' ' -
}

# The reason given for refusing to start in DIR.
refusal() {
	case $1 in
	"$HOME_DIR") echo "is your home directory, so binding it would expose ~/.ssh" ;;
	"$XDG_DIR") echo "is your runtime directory $1, which holds the sockets of your session" ;;
	"$RUN_DIR") echo "is inside /run, which holds the sockets of the system's services" ;;
	*) echo "is $1, which holds the " ;;
	esac
}

# The guard alone: from each place, every profile that binds the current
# directory is refused, with the reason; nothing connects.
check_guard() {
	local dir profile out bound=""
	make_start_places
	start_listeners stream $SOCKS
	for dir in $PLACES; do
		for profile in $CWD_PROFILES; do
			out=$(connect_all_from "$dir" --profile "$profile")
			assert_match "^hutch: parse: current directory $dir: $(refusal "$dir").*; (run from a project directory|cd into the project)" \
				"$out" "--profile $profile from $dir"
		done
	done
	stop_listeners
	assert_eq 0 "$TAKEN" "connections the listeners took"
	# The control: those places bound by hand, read-only, without a
	# seccomp policy (so without the connect broker, t_sockets.sh), hand
	# out their sockets; only the guard stands in the way.
	for dir in /tmp /var/tmp /dev/shm $RUN_DIR $XDG_DIR $HOME_DIR; do
		bound="$bound --ro-bind $dir $dir"
	done
	start_listeners stream $SOCKS
	out=$(connect_all_from "$T/work/proj" --profile none --seccomp-policy none --mirror /usr --mirror /lib --mirror /lib64 \
		--mirror /bin $bound --chdir /)
	stop_listeners
	assert_eq "connect:ok connect:ok connect:ok connect:ok connect:ok connect:ok" \
		"$out" "control: the places bound read-only"
	assert_eq 6 "$TAKEN" "control: connections taken"
	remove_start_places
}
test_cwd_guard_refuses_socket_places() { for_each_caller check_guard; }

# The private tmpfs alone: from a project directory every profile runs,
# and no socket of those places is there.
check_project_dir() {
	local profile out
	make_start_places
	start_listeners stream $SOCKS
	for profile in $CWD_PROFILES; do
		out=$(connect_all_from "$T/work/proj" --profile "$profile")
		assert_eq "connect:ENOENT connect:ENOENT connect:ENOENT connect:ENOENT connect:ENOENT connect:ENOENT" \
			"$out" "--profile $profile from a project directory"
	done
	# The control: with the sockets of /tmp, the /run directory and
	# $XDG_DIR (in /tmp here) bound by name, read-only, the same profile
	# reaches them (a bound directory hands over none of its sockets:
	# t_sockets.sh).
	out=$(connect_all_from "$T/work/proj" --ro-bind /tmp /tmp $(for s in $SOCKS; do
		case $s in /tmp/*|"$RUN_DIR"/*) echo "--ro-bind $s $s" ;; esac; done))
	stop_listeners
	assert_eq "connect:ok connect:ENOENT connect:ENOENT connect:ok connect:ok connect:ENOENT" "$out" \
		"control: the sockets of /tmp and the /run directory bound by name"
	assert_eq 3 "$TAKEN" "control: connections taken"
	remove_start_places
}
test_cwd_project_dir_has_no_host_socket() { for_each_caller check_project_dir; }

# A private tmpfs at or below the current directory, made before its
# bind, would be covered by it: refused, whatever the directory.
check_covered_tmpfs() {
	local out
	mkdir -p "$T/work/proj/cache"
	chmod 0777 "$T/work/proj" "$T/work/proj/cache"
	printf 'tmpfs %s\nro-bind-cwd\n' "$T/work/proj/cache" >"$T/covers"
	chmod 0644 "$T/covers"
	out=$(from "$T/work/proj" timeout 20 "$H" --profile "$T/covers" true 2>&1) && fail "ran: $out"
	assert_eq "hutch: parse: current directory $T/work/proj: its bind would cover the tmpfs on $T/work/proj/cache ($T/covers:1) with the host's directory; run from a project directory, or use --profile none" \
		"$out" "a tmpfs below the current directory"
}
test_cwd_never_covers_a_private_tmpfs() { for_each_caller check_covered_tmpfs; }

# --explain says where the bind lands and what it covers.
check_explain_cwd() {
	mkdir -p "$T/work/proj"
	chmod 0777 "$T/work/proj"
	assert_match "^             the current directory: covers $T/work/proj on the tmpfs /tmp \(\(shipped\)/default:18\), and nothing else$" \
		"$(from "$T/work/proj" "$H" --explain true)" "--explain from a project directory in /tmp"
	assert_match "\"current-directory\": \{\"covers\": \"$T/work/proj\", \"on\": \"/tmp\"\}" \
		"$(from "$T/work/proj" "$H" --explain=json true)" "--explain=json"
}
test_cwd_explain_says_what_the_bind_covers() { for_each_caller check_explain_cwd; }

# From the home directory, the refusal says what works instead, and
# --explain shows the refused plan with the reason (exit 125).
check_home_refusal_explained() {
	local out rc=0
	make_start_places
	out=$(from "$HOME_DIR" env HOME="$HOME_DIR" "$H" --explain true) || rc=$?
	assert_eq 125 "$rc" "--explain of a refused plan"
	assert_match "ro-bind +$HOME_DIR" "$out" "the plan is shown"
	assert_match "^refused: hutch would not run this plan: parse: current directory $HOME_DIR: is your home directory, .*cd into the project's own directory" \
		"$(printf '%s\n' "$out" | tail -n 1)" "the refusal, last"
}
test_cwd_home_refusal_explained() { for_each_caller check_home_refusal_explained; }

# A later option that covers the bound current directory: COMMAND starts
# in / and one line says which option it was (hutch(1): "the caller's
# directory if the sandbox has it, else /").
check_covered_cwd_starts_in_root() {
	local out err rc=0
	mkdir -p "$T/work/proj/sub" && chmod -R 0777 "$T/work/proj"
	out=$(from "$T/work/proj/sub" "$H" --tmpfs "$T/work/proj" pwd 2>"$T/err") || rc=$?
	assert_eq "0 /" "$rc $out" "COMMAND runs, in /"
	assert_eq "hutch: mounts: the current directory $T/work/proj/sub is not in the sandbox, covered by --tmpfs $T/work/proj (command line): COMMAND starts in /" \
		"$(cat "$T/err")" "the one line"
	assert_eq "$T/work/proj/sub" "$(from "$T/work/proj/sub" "$H" pwd 2>&1)" "uncovered: the directory itself"
}
test_cwd_covered_starts_in_root() { for_each_caller check_covered_cwd_starts_in_root; }

# A current directory that has no path (issue 26): the line says why,
# deleted or longer than PATH_MAX, not only that it "cannot be named".
check_cwd_without_a_path() {
	local err rc=0 long
	mkdir -p "$T/work/nopath" && chmod 0777 "$T/work/nopath"
	err=$($AS sh -c 'mkdir "$1/gone" && cd "$1/gone" && rmdir "$1/gone" && exec "$2" true' \
		sh "$T/work/nopath" "$H" 2>&1) || rc=$?
	assert_eq 125 "$rc" "deleted: exit status"
	assert_eq "hutch: parse: current directory: it was deleted; cd into a directory that exists" \
		"$err" "deleted: the line"
	rc=0
	long=$(printf 'd%.0s' $(seq 1 200))
	err=$($AS bash -c 'cd "$1" && for i in $(seq 1 22); do mkdir -p "$2" && cd "$2" || exit 9; done
		exec "$3" true' bash "$T/work/nopath" "$long" "$H" 2>&1) || rc=$?
	assert_eq 125 "$rc" "too long: exit status"
	assert_eq "hutch: parse: current directory: its path is longer than PATH_MAX (4096 bytes); cd into a directory with a shorter path" \
		"$err" "too long: the line"
}
test_cwd_without_a_path_says_why() { for_each_caller check_cwd_without_a_path; }
