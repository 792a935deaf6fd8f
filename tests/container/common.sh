# shellcheck shell=bash
# Sourced by tests/container/check and tests/container/run-in-container:
# the image (a debootstrap tree imported into rootful podman, cached) and
# one container run with the checkout copied in.  Not run on its own.
#
# Settings (environment):
#   HUTCH_CONTAINER_TIMEOUT  total seconds for everything, image build
#                            included (default 3600); never hangs past it
#   HUTCH_CONTAINER_MIRROR   Debian mirror for debootstrap (default: the
#                            first bookworm "deb" source of this machine's
#                            /etc/apt/sources.list.d/*.sources or *.list)
#   HUTCH_CONTAINER_RUNTIME  OCI runtime for podman (default: podman's own
#                            if it can start a container here, else runc)
#   HUTCH_CONTAINER_CACHE    tree cache (default /var/cache/hutch/container)
#   HUTCH_CONTAINER_SECCOMP  the container's seccomp profile: empty for the
#                            engine's default; docker-default for Docker's
#                            (tests/container/seccomp-docker-default.json,
#                            which refuses user namespaces: make
#                            check-container-docker); or a profile's path

set -euo pipefail

CTR_TOP=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
CTR_SUITE=bookworm
CTR_CACHE=${HUTCH_CONTAINER_CACHE:-/var/cache/hutch/container}
CTR_REPO=localhost/hutch-test
CTR_USER=hutchuser
CTR_UID=1001
# Bump when the way the tree is made changes (part of the cache key).
CTR_RECIPE=1
# Besides the Makefile's DEB_PACKAGES, what tests/ use: strace
# (t_doctor.sh), python3, jq (t_report.sh), ps (procps), git (for
# debugging in the container), and what a minbase tree lacks.
CTR_EXTRA_PACKAGES="python3 strace git jq procps file less"
# crun 1.8 refuses this kind of machine's hybrid cgroup layout; runc
# starts containers on it (see pick_runtime).
CTR_HOST_PACKAGES="podman runc debootstrap debian-archive-keyring git"
CTR_TIMEOUT=${HUTCH_CONTAINER_TIMEOUT:-3600}
CTR_DEADLINE=$(($(date +%s) + CTR_TIMEOUT))
CTR_NAME=""
CTR_BUILD_DIR=""
CTR_JOB=""
# The profile's name and file (empty: podman's default).
CTR_SECCOMP=${HUTCH_CONTAINER_SECCOMP:-}
case $CTR_SECCOMP in
"") CTR_SECCOMP_FILE="" ;;
docker-default) CTR_SECCOMP_FILE="$CTR_TOP/tests/container/seccomp-docker-default.json" ;;
*) CTR_SECCOMP_FILE=$(realpath -e "$CTR_SECCOMP") || { echo "no seccomp profile $CTR_SECCOMP" >&2; exit 1; } ;;
esac

# in_background CMD...: CMD, waited for in a way that lets this script's
# traps run at once on a signal (bash runs a trap only after the
# foreground command ends; timeout(1) puts CMD in a process group of its
# own, which a ^C on the terminal does not reach).
in_background() {
	local rc
	"$@" &
	CTR_JOB=$!
	wait "$CTR_JOB" && rc=0 || rc=$?
	CTR_JOB=""
	return "$rc"
}

say() { printf 'check-container: %s\n' "$*" >&2; }
die() { say "$*"; exit 1; }

# Seconds left before the total timeout, at least 1.
remaining() {
	local left=$((CTR_DEADLINE - $(date +%s)))
	[ "$left" -gt 0 ] || left=1
	echo "$left"
}

# Root and the host tools: installs what is missing with apt-get when
# root, otherwise prints the command and stops.
ensure_host() {
	local missing="" p
	for p in $CTR_HOST_PACKAGES; do
		dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' ||
			missing="$missing $p"
	done
	if [ "$(id -u)" != 0 ]; then
		[ -z "$missing" ] || say "missing packages; run: sudo apt-get install -y$missing"
		die "must run as root: the container is started by rootful podman"
	fi
	if [ -n "$missing" ]; then
		say "installing:$missing"
		apt-get update -qq
		# shellcheck disable=SC2086 # a list of packages
		DEBIAN_FRONTEND=noninteractive apt-get install -y -qq $missing
	fi
}

# The Debian mirror debootstrap fetches from: read from this machine's apt
# sources at run time, never a fixed host.
mirror() {
	if [ -n "${HUTCH_CONTAINER_MIRROR:-}" ]; then
		echo "$HUTCH_CONTAINER_MIRROR"
		return
	fi
	local uri f
	# deb822 (*.sources): the first enabled "deb" stanza whose Suites
	# name the suite and whose Components have main.
	for f in /etc/apt/sources.list.d/*.sources; do
		[ -r "$f" ] || continue
		uri=$(awk -v suite="$CTR_SUITE" '
			function has(list, word,   n, a, i) { n = split(list, a, /[ \t]+/); for (i = 1; i <= n; i++) if (a[i] == word) return 1; return 0 }
			BEGIN { RS = ""; FS = "\n" }
			{
				types = suites = comps = uris = ""; enabled = "yes"
				for (i = 1; i <= NF; i++) {
					if ($i ~ /^#/) continue
					line = $i; key = tolower(line); sub(/:.*/, "", key); sub(/^[^:]*:[ \t]*/, "", line)
					if (key == "types") types = line
					else if (key == "suites") suites = line
					else if (key == "components") comps = line
					else if (key == "uris") uris = line
					else if (key == "enabled") enabled = tolower(line)
				}
				if (enabled != "no" && has(types, "deb") && has(suites, suite) && has(comps, "main") && uris != "") {
					split(uris, u, /[ \t]+/); print u[1]; exit
				}
			}' "$f")
		[ -n "$uri" ] && { echo "${uri%/}"; return; }
	done
	# One-line style (sources.list, *.list): deb [options] URI SUITE main...
	for f in /etc/apt/sources.list /etc/apt/sources.list.d/*.list; do
		[ -r "$f" ] || continue
		uri=$(awk -v suite="$CTR_SUITE" '
			$1 == "deb" {
				i = 2; if ($2 ~ /^\[/) { while (i <= NF && $i !~ /\]$/) i++; i++ }
				if ($(i + 1) == suite) { print $i; exit }
			}' "$f")
		[ -n "$uri" ] && { echo "${uri%/}"; return; }
	done
	die "no '$CTR_SUITE' Debian source in /etc/apt; set HUTCH_CONTAINER_MIRROR=URL"
}

# Everything the image holds, one package a line, sorted: the Makefile's
# DEB_PACKAGES and the extras above.
image_packages() {
	{
		make -s --no-print-directory -C "$CTR_TOP" deb-packages
		echo "$CTR_EXTRA_PACKAGES"
	} | tr ' \t' '\n\n' | sed '/^$/d' | sort -u
}

# The cache key: a hash of the package list, the suite, the user and the
# recipe version.
image_key() {
	{
		echo "suite=$CTR_SUITE recipe=$CTR_RECIPE user=$CTR_USER:$CTR_UID"
		image_packages
	} | sha256sum | cut -c1-16
}

# Unmount whatever an interrupted debootstrap left mounted under $1.
unmount_under() {
	local m
	[ -n "$1" ] || return 0
	findmnt -rn -o TARGET | awk -v d="$1/" 'index($0, d) == 1' | sort -r |
		while read -r m; do umount -l "$m" 2>/dev/null || true; done
}

# build_tree DIR: debootstrap the tree into DIR/rootfs.
build_tree() {
	local dir=$1 url packages log
	url=$(mirror)
	packages=$(image_packages | paste -sd, -)
	log="$dir/debootstrap.log"
	say "debootstrap --variant=minbase $CTR_SUITE from $url, with: $packages"
	if ! in_background timeout -k 10 "$(remaining)" debootstrap --variant=minbase \
		--include="$packages" "$CTR_SUITE" "$dir/rootfs" "$url" >"$log" 2>&1; then
		[ -f "$dir/rootfs/debootstrap/debootstrap.log" ] &&
			cat "$dir/rootfs/debootstrap/debootstrap.log" >>"$log"
		tail -n 30 "$log" >&2
		cp "$log" "$CTR_CACHE/debootstrap-failed.log"
		die "debootstrap failed (whole log in $CTR_CACHE/debootstrap-failed.log)"
	fi
	unmount_under "$dir/rootfs"
	chroot "$dir/rootfs" useradd -m -u "$CTR_UID" -U -s /bin/bash "$CTR_USER"
	chroot "$dir/rootfs" apt-get clean
	rm -rf "$dir/rootfs/var/lib/apt/lists/"*
	image_packages >"$dir/packages"
}

# Sets CTR_IMAGE to the tag of an image built from the current package
# list, building and importing it if needed; older ones are removed.
ensure_image() {
	local key dir t d
	key=$(image_key)
	CTR_IMAGE="$CTR_REPO:$CTR_SUITE-$key"
	podman image exists "$CTR_IMAGE" && return 0
	mkdir -p "$CTR_CACHE"
	exec 9>"$CTR_CACHE/.lock"
	flock -w "$(remaining)" 9 || die "timed out waiting for $CTR_CACHE/.lock"
	if ! podman image exists "$CTR_IMAGE"; then
		dir="$CTR_CACHE/$key"
		if [ ! -f "$dir/complete" ]; then
			local start=$SECONDS
			CTR_BUILD_DIR="$dir.tmp"
			unmount_under "$CTR_BUILD_DIR"
			rm -rf --one-file-system "$CTR_BUILD_DIR"
			mkdir -p "$CTR_BUILD_DIR"
			build_tree "$CTR_BUILD_DIR"
			touch "$CTR_BUILD_DIR/complete"
			rm -rf --one-file-system "$dir"
			mv "$CTR_BUILD_DIR" "$dir"
			CTR_BUILD_DIR=""
			say "tree built in $((SECONDS - start))s: $dir/rootfs"
		fi
		say "importing $dir/rootfs as $CTR_IMAGE"
		tar -C "$dir/rootfs" --numeric-owner -c . |
			podman import --quiet \
				--change 'ENV PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin' \
				--change 'CMD ["/bin/bash"]' \
				--message "hutch test image, key $key" - "$CTR_IMAGE" >/dev/null
		podman tag "$CTR_IMAGE" "$CTR_REPO:$CTR_SUITE"
		# Older keys: their images and trees.
		for t in $(podman images --format '{{.Repository}}:{{.Tag}}' | grep "^$CTR_REPO:$CTR_SUITE-" || true); do
			[ "$t" = "$CTR_IMAGE" ] || podman rmi "$t" >/dev/null 2>&1 || true
		done
		for d in "$CTR_CACHE"/*/; do
			d=${d%/}
			[ "$d" = "$dir" ] || [ ! -d "$d" ] || { unmount_under "$d"; rm -rf --one-file-system "$d"; }
		done
	fi
	flock -u 9
	exec 9>&-
}

# The OCI runtime to pass to podman (sets CTR_RUNTIME, empty for podman's
# default).  Probed rather than fixed: podman's default runtime is what a
# user of this engine gets, but crun 1.8 (Debian 12) fails on a host with
# the hybrid cgroup layout ("cgroups in hybrid mode not supported"), where
# runc works; then runc, and the reason is printed.
pick_runtime() {
	CTR_RUNTIME=${HUTCH_CONTAINER_RUNTIME:-}
	local err
	[ -n "$CTR_RUNTIME" ] && return 0
	CTR_NAME="hutch-ctr-probe-$$"
	if err=$(timeout -k 5 120 podman run --rm --name "$CTR_NAME" --network none \
		"${CTR_ULIMITS[@]}" "$CTR_IMAGE" true 2>&1); then
		CTR_NAME=""
		return 0
	fi
	remove_container
	CTR_NAME=""
	CTR_RUNTIME=runc
	say "podman's default runtime ($(podman info --format '{{.Host.OCIRuntime.Name}}' 2>/dev/null)) cannot start a container here ($(printf '%s' "$err" | tail -n 1)); using --runtime runc"
}

# Without these, podman asks for RLIMIT_NOFILE 1048576 (its default for
# root), and on a host whose own hard limit is lower (20000 on this
# project's VM) runc fails: "error setting rlimit type 7: operation not
# permitted".  These are a login session's usual limits.
CTR_ULIMITS=(--ulimit nofile=1024:1024 --ulimit nproc=4096:4096)

# The checkout as a tarball: the working tree's files (tracked and
# untracked, not ignored), as they are now, owned by root.
checkout_tar() {
	git -C "$CTR_TOP" ls-files -co --exclude-standard -z |
		while IFS= read -r -d '' f; do
			if [ -e "$CTR_TOP/$f" ] || [ -L "$CTR_TOP/$f" ]; then printf '%s\0' "$f"; fi
		done |
		tar -C "$CTR_TOP" --null --no-recursion -T - --owner=0 --group=0 --numeric-owner -c
}

remove_container() {
	if [ -n "$CTR_NAME" ] && podman container exists "$CTR_NAME" 2>/dev/null; then
		podman rm -f -t 0 "$CTR_NAME" >/dev/null 2>&1 || true
	fi
}

cleanup() {
	# The container first: its client (podman run) then ends by itself.
	remove_container
	if [ -n "$CTR_JOB" ]; then
		kill "$CTR_JOB" 2>/dev/null || true
		wait "$CTR_JOB" 2>/dev/null || true
	fi
	if [ -n "$CTR_BUILD_DIR" ]; then
		unmount_under "$CTR_BUILD_DIR"
		rm -rf --one-file-system "$CTR_BUILD_DIR"
	fi
}
trap cleanup EXIT
trap 'say "interrupted"; cleanup; exit 130' INT
trap 'say "terminated"; cleanup; exit 143' TERM HUP

# in_container SCRIPT [ARG...]: runs the bash SCRIPT in a fresh container,
# as its root, in /src, a copy of the checkout; ARGs are its $1...  Sets
# CTR_RC to its exit status.  The container has no network, is removed
# after (--rm, and cleanup on interrupt), and is killed at the total
# timeout (podman's --timeout, and timeout(1) around the client).
in_container() {
	local script=$1 left
	shift
	left=$(remaining)
	CTR_NAME="hutch-ctr-$$-$RANDOM"
	local runtime=() seccomp=()
	[ -z "$CTR_RUNTIME" ] || runtime=(--runtime "$CTR_RUNTIME")
	[ -z "$CTR_SECCOMP_FILE" ] || seccomp=(--security-opt "seccomp=$CTR_SECCOMP_FILE")
	# The client runs in the background so that a signal to this script
	# is handled at once (bash runs traps only between commands).
	set +e
	checkout_tar | timeout -k 10 "$((left + 5))" podman "${runtime[@]}" run --rm -i \
		--name "$CTR_NAME" --network none "${CTR_ULIMITS[@]}" "${seccomp[@]}" --timeout "$left" \
		-e "HUTCH_CTR_DEADLINE=$CTR_DEADLINE" \
		-e "HUTCH_CTR_SECCOMP=$CTR_SECCOMP" \
		-e "HUTCH_CTR_HOST_CGROUPNS=$(readlink /proc/self/ns/cgroup)" \
		-e "HUTCH_CTR_USER=$CTR_USER" \
		"$CTR_IMAGE" /bin/bash -c '
			set -e
			mkdir -p /src && cd /src && tar -x --no-same-owner -f -
			exec /bin/bash -c "$0" in-container "$@" </dev/null' "$script" "$@" &
	CTR_JOB=$!
	wait "$CTR_JOB"
	CTR_RC=$?
	CTR_JOB=""
	set -e
	remove_container
	CTR_NAME=""
}
