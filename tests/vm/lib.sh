# Host-side helpers of tests/vm (sourced by build-image, check-vm and
# run-in-vm).  See tests/vm/README.

VM_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
VM_REPO=$(cd "$VM_DIR/../.." && pwd)
VM_CACHE=${HUTCH_VM_CACHE:-/var/cache/hutch/vm}
# The guest's Debian release: bookworm (12, the default) or trixie (13).
VM_SUITE=${VM_DIST:-bookworm}
case $VM_SUITE in
bookworm | trixie) ;;
*) printf 'tests/vm: VM_DIST=%s: use bookworm or trixie\n' "$VM_SUITE" >&2; exit 125 ;;
esac
VM_START=${VM_START:-$(date +%s)}
export VM_START

vm_log() { printf '[vm %4ss] %s\n' "$(($(date +%s) - VM_START))" "$*" >&2; }
vm_die() { printf 'tests/vm: %s\n' "$*" >&2; exit "${VM_DIE_STATUS:-125}"; }

# The host tools this needs, by Debian package.  As root the missing ones
# are installed with apt-get; otherwise the command to run is printed.
vm_need_tools() {
	local missing="" pair cmd pkg
	for pair in qemu-system-x86_64:qemu-system-x86 qemu-img:qemu-utils \
		debootstrap:debootstrap mkfs.ext4:e2fsprogs debugfs:e2fsprogs \
		flock:util-linux unshare:util-linux tar:tar sha256sum:coreutils; do
		cmd=${pair%%:*} pkg=${pair#*:}
		command -v "$cmd" >/dev/null 2>&1 || PATH=$PATH:/usr/sbin:/sbin command -v "$cmd" >/dev/null 2>&1 ||
			case " $missing " in *" $pkg "*) ;; *) missing="$missing $pkg" ;; esac
	done
	[ -z "$missing" ] && return 0
	if [ "$(id -u)" = 0 ]; then
		vm_log "installing:$missing"
		apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq $missing >&2 ||
			vm_die "could not install:$missing"
	else
		vm_die "missing packages; run: sudo apt-get install -y$missing"
	fi
}

vm_need_root() {
	[ "$(id -u)" = 0 ] || vm_die "$1 needs root (debootstrap, and the image cache in $VM_CACHE); run it with sudo"
}

# The Debian mirror this machine's apt uses, read from its sources at run
# time (deb822 files first, then one-line sources.list entries).  Prints
# the URI of the first "deb" entry for SUITE (default: the main suite).
# A suite this machine's apt does not list (trixie or sid on a bookworm
# host) is taken from the mirror of the host's own release: the entry for
# HOST_CODENAME, or HOST_CODENAME-security for a -security suite.
vm_mirror_for() {
	local suite=${1:-$VM_SUITE} host
	if [ -n "${HUTCH_VM_MIRROR:-}" ] && [ "$suite" = "$VM_SUITE" ]; then
		echo "$HUTCH_VM_MIRROR"; return 0
	fi
	vm_host_mirror_for "$suite" && return 0
	host=$(. /etc/os-release 2>/dev/null && echo "${VERSION_CODENAME:-}")
	[ -n "$host" ] || return 1
	case $suite in
	*-security) vm_host_mirror_for "$host-security" ;;
	*) vm_host_mirror_for "$host" ;;
	esac
}

# vm_host_mirror_for SUITE: the URI of the first "deb" entry for SUITE in
# this machine's apt sources, or status 1.
vm_host_mirror_for() {
	local suite=$1 f uri=""
	for f in /etc/apt/sources.list.d/*.sources; do
		[ -r "$f" ] || continue
		uri=$(awk -v suite="$suite" '
			function flush() {
				if (types ~ /(^| )deb( |$)/ && (" " suites " ") ~ (" " suite " ") && enabled != "no" && uris != "") {
					split(uris, u, " "); print u[1]; found = 1; exit
				}
				types = suites = uris = ""; enabled = ""
			}
			/^[ \t]*#/ { next }
			/^[ \t]*$/ { flush(); next }
			{ key = tolower($1); sub(/:$/, "", key); $1 = ""; sub(/^ +/, "")
			  if (key == "types") types = $0; else if (key == "suites") suites = $0
			  else if (key == "uris") uris = $0; else if (key == "enabled") enabled = tolower($0) }
			END { if (!found) flush() }' "$f")
		[ -n "$uri" ] && { echo "${uri%/}"; return 0; }
	done
	for f in /etc/apt/sources.list /etc/apt/sources.list.d/*.list; do
		[ -r "$f" ] || continue
		uri=$(awk -v suite="$suite" '$1 == "deb" {
				i = 2; if ($2 ~ /^\[/) { while (i <= NF && $i !~ /\]$/) i++; i++ }
				if ($(i + 1) == suite) { print $i; exit } }' "$f")
		[ -n "$uri" ] && { echo "${uri%/}"; return 0; }
	done
	return 1
}

# The packages of the image: tests/vm/packages and the Makefile's
# DEB_PACKAGES (what `make deps` would install), sorted, one a line.
vm_packages() {
	{
		sed 's/#.*//' "$VM_DIR/packages"
		make -s --no-print-directory -C "$VM_REPO" deb-packages
	} | tr ' \t' '\n\n' | sed '/^$/d' | sort -u
}

# The image's cache key: a hash of what goes into the image (the build
# script, the guest files, the package list), not of the checkout.
vm_image_key() {
	{
		echo "suite $VM_SUITE"
		cat "$VM_DIR/build-image"
		cat "$VM_DIR"/guest/*
		vm_packages
	} | sha256sum | cut -c1-16
}

# vm_image: sets VM_IMAGE to the directory of the cached image, building
# it first if there is none for the current key.
vm_image() {
	local key
	key=$(vm_image_key)
	VM_IMAGE=$VM_CACHE/img-$key
	if [ ! -e "$VM_IMAGE/ready" ]; then
		vm_need_root "building the guest image"
		vm_log "no cached image $VM_IMAGE: building it (a few minutes; log in $VM_IMAGE.tmp/build.log)"
		timeout --kill-after=30 "${HUTCH_VM_BUILD_TIMEOUT:-1800}" "$VM_DIR/build-image" ||
			vm_die "building the image failed (exit $?); see $VM_IMAGE.tmp/build.log"
	else
		vm_log "using cached image $VM_IMAGE"
	fi
	touch "$VM_IMAGE/used" 2>/dev/null || true
}

# The kernels of an image, by flavor: its release's own (stable) and a
# newer one, bookworm-backports' (backports) for bookworm, and for trixie
# the newest Debian has, trixie-backports' or sid's, whichever is newer
# when the image is built (newest).
vm_flavors() {
	case $VM_SUITE in
	bookworm) echo "stable backports" ;;
	*) echo "stable newest" ;;
	esac
}

# vm_flavor_about FLAVOR: where that kernel comes from, in a few words.
vm_flavor_about() {
	case $1 in
	stable) echo "$VM_SUITE's own" ;;
	backports) echo "$VM_SUITE-backports'" ;;
	newest) echo "the newest of $VM_SUITE-backports' and sid's" ;;
	esac
}

# vm_kernel FLAVOR: sets VM_KERNEL_IMG, VM_INITRD and VM_KERNEL_VERSION
# for FLAVOR (one of vm_flavors).  Returns 2 when the image has no such
# kernel (the mirror had none when the image was built).
vm_kernel() {
	case " $(vm_flavors) " in
	*" $1 "*) ;;
	*) vm_die "unknown kernel '$1' for $VM_SUITE ($(vm_flavors | sed 's/ / or /'))" ;;
	esac
	[ -e "$VM_IMAGE/vmlinuz-$1" ] || return 2
	VM_KERNEL_IMG=$VM_IMAGE/vmlinuz-$1
	VM_INITRD=$VM_IMAGE/initrd-$1
	VM_KERNEL_VERSION=$(cat "$VM_IMAGE/version-$1")
}

# vm_accel: sets VM_ACCEL_ARGS.  HUTCH_VM_ACCEL=tcg (the default), kvm,
# or auto: auto boots the kernel under KVM for a few seconds and takes KVM
# only if the kernel printed its banner.  This machine's /dev/kvm (a
# nested PVM device) cannot run an unmodified Debian kernel: qemu aborts
# setting an MSR with -cpu host, and with -cpu qemu64 the kernel stalls in
# its decompressor.  The probe's answer is cached per kernel and host
# kernel.  HUTCH_VM_KVM_CPU: the -cpu of a KVM run (host).
vm_accel() {
	local want=${HUTCH_VM_ACCEL:-tcg} kvm="-accel kvm -cpu ${HUTCH_VM_KVM_CPU:-host}"
	VM_ACCEL_ARGS="-accel tcg,thread=multi -cpu max"
	case $want in
	tcg) return 0 ;;
	kvm) VM_ACCEL_ARGS=$kvm; return 0 ;;
	auto) ;;
	*) vm_die "HUTCH_VM_ACCEL=$want: use tcg, kvm or auto" ;;
	esac
	if [ ! -w /dev/kvm ]; then
		vm_log "accel: no usable /dev/kvm, TCG"
		return 0
	fi
	local stamp="$VM_IMAGE/kvm-probe-$(basename "$VM_KERNEL_IMG")-$(uname -r)-${HUTCH_VM_KVM_CPU:-host}"
	[ -e "$stamp" ] || vm_kvm_probe "$kvm" > "$stamp" 2>/dev/null
	if [ "$(cat "$stamp")" = kvm ]; then
		VM_ACCEL_ARGS=$kvm
		vm_log "accel: KVM (the probe boot printed the kernel's banner)"
	else
		vm_log "accel: TCG (under KVM the kernel printed nothing within the probe's time; $stamp)"
	fi
}

# vm_kvm_probe ACCEL_ARGS: prints kvm or tcg.
vm_kvm_probe() {
	local log pid
	log=$(mktemp)
	# shellcheck disable=SC2086
	qemu-system-x86_64 $1 -m 512 -smp 1 -display none -monitor none -no-reboot \
		-serial "file:$log" -kernel "$VM_KERNEL_IMG" \
		-append "console=ttyS0 earlyprintk=ttyS0 panic=-1" </dev/null >/dev/null 2>&1 &
	pid=$!
	for _ in $(seq 1 "${HUTCH_VM_KVM_PROBE_SECONDS:-15}"); do
		grep -q 'Linux version' "$log" && break
		kill -0 "$pid" || break
		sleep 1
	done
	if grep -q 'Linux version' "$log"; then echo kvm; else echo tcg; fi
	kill "$pid"
	wait "$pid"
	rm -f "$log"
	return 0
}

# vm_stage_checkout DIR: the checkout's tracked and untracked-not-ignored
# files (as they are in the working tree) into DIR.
vm_stage_checkout() {
	local dest=$1 src=${HUTCH_VM_CHECKOUT:-$VM_REPO}
	mkdir -p "$dest"
	[ -f "$src/Makefile" ] || vm_die "HUTCH_VM_CHECKOUT=$src: no checkout of hutch there"
	if command -v git >/dev/null && git -C "$src" rev-parse --is-inside-work-tree >/dev/null 2>&1; then
		(cd "$src" && git ls-files -co --exclude-standard -z |
			while IFS= read -r -d '' f; do [ -e "$f" ] || [ -L "$f" ] && printf '%s\0' "$f"; done |
			tar --null -T - -cf -) | tar -C "$dest" -xf -
	else
		(cd "$src" && tar --exclude=./build --exclude=./hutch -cf - .) | tar -C "$dest" -xf -
	fi
}

# vm_run RUNDIR KERNEL: boots the image with RUNDIR/job as the job disk's
# files (hutch/: the checkout, job/steps: what to run) and waits.
# RUNDIR/console.log gets the guest's serial console, RUNDIR/output.log
# the job's output stream (shown live through VM_STREAM_FILTER, a command
# reading it on stdin), RUNDIR/out the job disk's job/out/ directory, read
# back with debugfs after the guest powered off.  Returns 0 when the guest
# finished its job, 124 on a timeout, 1 when it stopped without
# finishing, 2 when the image has no such kernel.  With VM_SHELL=1, the
# console is this terminal and root is logged in on it (no job is run).
vm_run() {
	local run=$1 flavor=$2 shell=${VM_SHELL:-0}
	local timeout=${HUTCH_VM_TIMEOUT:-$(vm_steps_bound "$run")} mem=${HUTCH_VM_MEM:-4G} smp=${HUTCH_VM_SMP:-2}
	vm_kernel "$flavor" || return 2
	vm_accel
	mkdir -p "$run/job/job/out/files"
	cp "$VM_DIR/guest-job.sh" "$run/job/job/job.sh"
	chmod 0755 "$run/job/job/job.sh"
	# The job disk: the staged files, no journal (what the guest synced is
	# there to read even if it never unmounted), and room to build.
	local size
	size=$(( $(du -sm "$run/job" | cut -f1) + ${HUTCH_VM_JOB_DISK_MB:-2048} ))
	mkfs.ext4 -q -F -L hutchjob -O ^has_journal -d "$run/job" "$run/job.img" "${size}M" >/dev/null ||
		vm_die "mkfs.ext4 -d of the job disk failed"
	local append="root=/dev/vda rw console=ttyS0,115200 panic=-1 mitigations=off random.trust_cpu=on"
	append="$append systemd.show_status=1"
	[ "$shell" = 1 ] && append="$append hutch.shell"
	local args=($VM_ACCEL_ARGS -smp "$smp" -m "$mem" -machine q35 -display none -vga none -no-reboot
		-kernel "$VM_KERNEL_IMG" -initrd "$VM_INITRD"
		-drive "file=$VM_IMAGE/root.img,format=raw,if=virtio,snapshot=on,cache=unsafe"
		-drive "file=$run/job.img,format=raw,if=virtio,cache=writeback"
		-device virtio-rng-pci
		-device virtio-serial-pci -chardev "file,id=out,path=$run/output.log"
		-device virtserialport,chardev=out,name=org.hutch.out)
	if [ "${HUTCH_VM_NET:-0}" = 1 ]; then
		args+=(-nic user,model=virtio-net-pci)
		append="$append hutch.net"
	else
		args+=(-nic none)
	fi
	: > "$run/output.log"
	vm_log "booting Linux $VM_KERNEL_VERSION ($flavor) with $VM_ACCEL_ARGS -smp $smp -m $mem"
	if [ "$shell" = 1 ]; then
		vm_log "console on this terminal (Ctrl-A X quits qemu); the checkout is /work/hutch"
		qemu-system-x86_64 "${args[@]}" -append "$append" -serial mon:stdio
		rm -f "$run/job.img"
		return 0
	fi
	vm_log "guest console: $run/console.log"
	qemu-system-x86_64 "${args[@]}" -append "$append" -serial "file:$run/console.log" \
		-monitor none </dev/null >"$run/qemu.err" 2>&1 &
	local qpid=$! tpid rc=0 booted=0 now
	local deadline=$(($(date +%s) + timeout)) boot_deadline=$(($(date +%s) + ${HUTCH_VM_BOOT_TIMEOUT:-600}))
	VM_BOOT_START=$(date +%s)
	echo "$qpid" > "$run/qemu.pid"
	tail -n +1 -F --pid="$qpid" "$run/output.log" 2>/dev/null | ${VM_STREAM_FILTER:-cat} &
	tpid=$!
	while kill -0 "$qpid" 2>/dev/null; do
		now=$(date +%s)
		if [ "$booted" = 0 ] && grep -q '^=== hutch-vm: job started' "$run/output.log" 2>/dev/null; then
			booted=1
			VM_BOOT_SECONDS=$((now - VM_BOOT_START))
			vm_log "guest booted and started its job in ${VM_BOOT_SECONDS}s"
		fi
		if [ "$booted" = 0 ] && [ "$now" -ge "$boot_deadline" ]; then
			vm_log "the guest did not start its job within ${HUTCH_VM_BOOT_TIMEOUT:-600}s; last console lines:"
			tail -n 30 "$run/console.log" >&2
			rc=124; break
		fi
		if [ "$now" -ge "$deadline" ]; then
			vm_log "timeout: ${timeout}s passed (HUTCH_VM_TIMEOUT); killing qemu (pid $qpid)"
			rc=124; break
		fi
		sleep 1
	done
	if kill -0 "$qpid" 2>/dev/null; then
		kill "$qpid" 2>/dev/null
		for _ in 1 2 3 4 5 6 7 8 9 10; do kill -0 "$qpid" 2>/dev/null || break; sleep 1; done
		kill -9 "$qpid" 2>/dev/null
	fi
	wait "$qpid" 2>/dev/null
	wait "$tpid" 2>/dev/null
	VM_RUN_SECONDS=$(($(date +%s) - VM_BOOT_START))
	[ -s "$run/qemu.err" ] && sed 's/^/qemu: /' "$run/qemu.err" >&2
	rm -rf "$run/out"
	debugfs -R "rdump /job/out $run" "$run/job.img" >/dev/null 2>"$run/debugfs.err" ||
		vm_log "could not read the results back from the job disk (see $run/debugfs.err)"
	[ -d "$run/out" ] || mkdir -p "$run/out"
	if [ "$rc" = 0 ] && [ ! -e "$run/out/job.done" ]; then
		vm_log "the guest stopped before finishing its job; last console lines:"
		tail -n 30 "$run/console.log" >&2
		rc=1
	fi
	rm -f "$run/job.img"
	return "$rc"
}

# vm_new_run: sets VM_RUN to a new run directory with the checkout staged
# in it (HUTCH_VM_CHECKOUT, default this one).
vm_new_run() {
	mkdir -p "${HUTCH_VM_RUNS:-/tmp}"
	VM_RUN=$(mktemp -d "${HUTCH_VM_RUNS:-/tmp}/hutch-vm.XXXXXX")
	chmod 0755 "$VM_RUN"
	vm_stage_checkout "$VM_RUN/job/hutch"
	mkdir -p "$VM_RUN/job/job"
	: > "$VM_RUN/job/job/steps"
}

# vm_step NAME USER TIMEOUT CMD: one more step for the guest.
vm_step() {
	printf 'step %q %q %q %q\n' "$@" >> "$VM_RUN/job/job/steps"
}

# vm_steps_bound RUNDIR: the default bound of the whole boot: the boot's
# own and every step's added up, so that a step ending within its bound
# is never cut by the boot's; 3600 s if a step has none (TIMEOUT 0) or
# there is no step (--shell).
vm_steps_bound() {
	awk -v boot="${HUTCH_VM_BOOT_TIMEOUT:-600}" '
		$1 == "step" { steps++; if ($4 == 0) unbounded = 1; sum += $4 }
		END { print (unbounded || !steps) ? 3600 : boot + sum }' "$1/job/job/steps"
}

# Keep the 4 most recently used images; remove older ones.
vm_prune_images() {
	local d n=0
	for d in $(ls -1dt "$VM_CACHE"/img-*/used 2>/dev/null); do
		n=$((n + 1))
		[ "$n" -gt 4 ] && rm -rf "$(dirname "$d")"
	done
	return 0
}
