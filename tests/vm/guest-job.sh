#!/bin/bash
# Runs inside the guest, as root, from hutch-vm-job.service at boot; not
# part of the image (tests/vm copies it onto the job disk at every run).
#
# The job disk, mounted at /work:
#   /work/hutch/      the checkout
#   /work/job/steps   bash, written by the host: `step NAME USER TIMEOUT CMD` lines
#   /work/job/out/    NAME.log, NAME.rc, NAME.session per step; job.done at
#                     the end; files/ ($HUTCH_VM_OUT) for anything a command
#                     wants brought back to the host
#
# Each step runs CMD in /work/hutch as USER in a new logind session,
# opened with `su -l USER -c CMD`: su's PAM stack (common-session) runs
# pam_systemd, which has logind create session-N.scope under
# user.slice/user-UID.slice and start the user's manager (user@UID.service)
# if it is not running, exactly as for a login on a terminal.  runuser -l
# would not do (Debian's runuser stacks have no pam_systemd).
# XDG_SESSION_CLASS=user, which pam_systemd reads, makes it a session of
# class "user" as a login's or ssh's is (without it, with no tty, it would
# be "background").
# Output goes to stdout (the host's stream) and to out/NAME.log.
set -u
out=/work/job/out
mkdir -p "$out/files"
chmod 1777 "$out" "$out/files"
mark() { echo "=== hutch-vm: $*"; }

read -r up _ < /proc/uptime
echo "$up" > "$out/boot.uptime"
mark "job started (Linux $(uname -r), up ${up}s)"
{
	echo "kernel: $(uname -rv)"
	echo "debian: $(. /etc/os-release && echo "$PRETTY_NAME") ($(cat /etc/debian_version)), $(systemctl --version | head -n 1)"
	echo "image: $(head -n 1 /etc/hutch-vm-release 2>/dev/null)"
	echo "cgroup2 controllers: $(cat /sys/fs/cgroup/cgroup.controllers 2>/dev/null)"
} > "$out/guest.info"

# alice lingers, so logind starts user@1001.service at boot; wait for it
# (her first session would start it too, but then the first step's time
# would include it).
for _ in $(seq 1 240); do
	systemctl is-active -q user@1001.service && break
	sleep 0.5
done
echo "user@1001.service: $(systemctl is-active user@1001.service)," \
	"delegated: $(cat /sys/fs/cgroup/user.slice/user-1001.slice/user@1001.service/cgroup.controllers 2>/dev/null)" \
	>> "$out/guest.info"
sed 's/^/=== hutch-vm: /' "$out/guest.info"

# step NAME USER TIMEOUT CMD: CMD in a login session of USER (0: no timeout)
step() {
	local name=$1 user=$2 limit=$3 cmd=$4 start rc
	local prologue="
		{ echo \"cgroup \$(cat /proc/self/cgroup)\"
		  echo \"session \${XDG_SESSION_ID:-none} \$(loginctl show-session \"\${XDG_SESSION_ID:-x}\" -p Class -p Type -p Scope 2>/dev/null | paste -sd ' ')\"
		  echo \"runtime-dir \${XDG_RUNTIME_DIR:-none}\"
		} > $out/$name.session 2>&1
		export HUTCH_VM_OUT=$out/files
		cd /work/hutch || exit 125"
	mark "step $name as $user: $cmd"
	start=$(date +%s)
	if [ "$limit" = 0 ]; then
		XDG_SESSION_CLASS=user su -l "$user" -c "$prologue
$cmd" </dev/null 2>&1 | tee "$out/$name.log"
	else
		XDG_SESSION_CLASS=user timeout --kill-after=30 "$limit" su -l "$user" -c "$prologue
$cmd" </dev/null 2>&1 | tee "$out/$name.log"
	fi
	rc=${PIPESTATUS[0]}
	[ "$limit" != 0 ] && [ "$rc" = 124 ] && echo "hutch-vm: step $name: stopped after its timeout of ${limit}s" | tee -a "$out/$name.log"
	echo "$rc" > "$out/$name.rc"
	echo "$(($(date +%s) - start))" > "$out/$name.seconds"
	sync
	mark "step $name exit $rc ($(($(date +%s) - start))s)"
	return 0
}

# shellcheck source=/dev/null
. /work/job/steps
touch "$out/job.done"
sync
mark "job done"
