# --timing and HUTCH_TIMING (issue 30): the stages of one launch, from
# both sides of the sandbox on one clock.  No check here bounds a
# duration: each checks rows, shape and the order of the marks.

PY=/usr/bin/python3
[ -x "$PY" ] || PY=python3

# Every stage of the namespace table has a row of its own, and so have
# parse and teardown, before and after the table (COMMAND ran to its end).
STAGES="parse prepare clone idmap deathsig network hostname handles mounts seal policy exec run
teardown total"

check_table() {
	local out stage
	out=$($AS "$H" --timing /bin/true 2>&1) || fail "$AS: hutch --timing /bin/true: $out"
	assert_match '^hutch: timing of this launch \(CLOCK_MONOTONIC' "$out" "$AS: the table's title"
	for stage in $STAGES; do
		assert_match "^  $stage +(supervisor|pid 1|COMMAND| ) " "$out" "$AS: a row of stage $stage"
	done
	# Each row: stage, who, step, at ms, took ms; no negative time.
	printf '%s\n' "$out" | sed 1,2d | awk '
		NF < 3 || $(NF - 1) !~ /^[0-9]+\.[0-9][0-9][0-9]$/ || $NF !~ /^[0-9]+\.[0-9][0-9][0-9]$/ {
			print "bad row: " $0; bad = 1 }
		END { exit bad }' || fail "$AS: the table's rows: $out"
}
test_timing_table_has_every_stage() { for_each_caller check_table; }

# The Landlock fallback's launch (here: the fault build's refused first
# mount, after which the pid 1 made is abandoned) shows its own table's
# stages, and none of the namespace sandbox's that never ran.
FALLBACK_STAGES="parse prepare fallback fork deathsig confine policy exec run teardown total"
check_fallback_table() {
	local out stage
	need_fault_build
	[ "$(landlock_abi)" -ge 1 ] || skip "no Landlock here: no fallback to time"
	out=$($AS env HUTCH_FAULT=refuse:first-mount:EPERM "$T/hutch-fault" --timing /bin/true 2>&1) ||
		fail "$AS: the fault build --timing /bin/true: $out"
	assert_match "^hutch: fallback: " "$out" "$AS: the fallback ran"
	for stage in $FALLBACK_STAGES; do
		assert_match "^  $stage +(supervisor|COMMAND| ) " "$out" "$AS: a row of stage $stage"
	done
	assert_no_match "^  (network|hostname|handles|mounts|seal) " "$out" \
		"$AS: a row of the namespace sandbox's stages after the first mount"
	assert_match "^  run +supervisor +COMMAND runs until its process is reaped " "$out" \
		"$AS: COMMAND's run, until the supervisor reaped it"
}
test_timing_fallback_table() { for_each_caller check_fallback_table; }

# The JSON line: its keys, its steps, and marks in the order of causes,
# across processes (a cross-process pair holds only on one clock).
JSON_CHECK='import json, sys
lines = [l for l in sys.stdin.read().splitlines() if l.startswith("{")]
assert len(lines) == 1, "one JSON line, got %d" % len(lines)
d = json.loads(lines[0])
assert d["clock"] == "CLOCK_MONOTONIC" and d["start_ns"] > 0, d
m = d["marks"]
assert d["total_ns"] == m["end"] > 0, (d["total_ns"], m["end"])
chains = [
    # the supervisor
    "start parsed prepare_features prepared cloned maps_written released loop",
    "loop first_wakeup", "exec_seen command_ended pid1_reaped end",
    # pid 1, after the supervisor released it
    "prepared pid1_start pid1_released network hostname mounts_begin mounts_private mounts_sources mounts_root"
    " mounts_operations mounts_protect mounts_pivot mounted nested_userns command_fork",
    "released pid1_released",
    # COMMAND'\''s process, until the supervisor saw its execve
    "command_fork command_start before_filter filter_loaded go execve exec_seen",
]
for chain in chains:
    names = chain.split()
    for a, b in zip(names, names[1:]):
        assert a in m and b in m, ("missing", a, b, sorted(m))
        assert m[a] <= m[b], ("out of order", a, m[a], b, m[b])
stages = set()
for s in d["steps"]:
    assert set(s) == {"stage", "who", "step", "from", "to", "ns"}, s
    assert s["who"] in ("supervisor", "pid 1", "COMMAND"), s
    assert s["ns"] == m[s["to"]] - m[s["from"]] >= 0, s
    stages.add(s["stage"])
want = set(sys.argv[1].split()) - {"total"}
assert stages == want, (sorted(stages), sorted(want))
'

check_json() {
	local out
	out=$($AS "$H" --timing=json /bin/true 2>&1) || fail "$AS: --timing=json: $out"
	printf '%s\n' "$out" | $PY -c "$JSON_CHECK" "$STAGES" || fail "$AS: the JSON line: $out"
}
test_timing_json_marks_in_order() { for_each_caller check_json; }

# HUTCH_TIMING=FILE: one JSON line appended per launch, in both modes; a
# new file is the caller's, mode 0600; nothing on stderr.
check_file() {
	local f=$T/work/trace-$AS out
	out=$($AS env HUTCH_TIMING="$f" "$H" /bin/true 2>&1) || fail "$AS: HUTCH_TIMING: $out"
	assert_eq "" "$out" "$AS: what a launch with HUTCH_TIMING prints"
	out=$($AS env HUTCH_TIMING="$f" "$T/bwrap" --unshare-all --ro-bind / / /bin/true 2>&1) ||
		fail "$AS: bwrap mode with HUTCH_TIMING: $out"
	assert_eq 2 "$(wc -l <"$f")" "$AS: lines in $f after two launches"
	assert_eq "600 $($AS id -u)" "$(stat -c '%a %u' "$f")" "$AS: mode and owner of $f"
	$PY -c 'import json, sys
for l in open(sys.argv[1]):
    d = json.loads(l)
    assert d["marks"]["execve"] < d["marks"]["exec_seen"] <= d["total_ns"], d' "$f" ||
		fail "$AS: $f: $(cat "$f")"
}
test_timing_file_appends_a_line() {
	chmod 1777 "$T/work"
	for_each_caller check_file
}

# The file is on the host, where the sandbox may write: a symbolic link
# or a FIFO at its name is refused before anything runs, never followed
# or waited on; nor is another user's file appended to.
test_timing_file_refuses_links_and_fifos() {
	local out rc
	AS=as_user
	chmod 1777 "$T/work"
	echo keep >"$T/victim"
	chmod 0666 "$T/victim"
	as_user ln -s "$T/victim" "$T/work/link"
	as_user mkfifo "$T/work/fifo"
	echo root >"$T/work/roots"
	chmod 0666 "$T/work/roots"
	for name in link fifo roots; do
		rc=0
		out=$(as_user env HUTCH_TIMING="$T/work/$name" timeout 20 "$H" /bin/true 2>&1) || rc=$?
		assert_eq 125 "$rc" "exit status with HUTCH_TIMING at a $name ($out)"
		assert_match "^hutch: prepare: HUTCH_TIMING $T/work/$name: " "$out" "the message for a $name"
	done
	assert_eq keep "$(cat "$T/victim")" "the link's target"
	assert_eq root "$(cat "$T/work/roots")" "another user's file"
}

# A launch that fails in the sandbox still reports how far it came: the
# marks travel with the failure's message.  (pid 1's rows are the
# namespace sandbox's: where uid $NOBODY gets only the fallback, its part
# skips, saying why.)
check_timing_after_a_failure() {
	local out rc=0
	out=$($AS "$H" --timing /nonexistent-command 2>&1) || rc=$?
	assert_eq 127 "$rc" "$AS: exit status ($out)"
	assert_match "hutch: exec: /nonexistent-command: No such file" "$out" "$AS: the failure"
	assert_match "^  mounts +pid 1 +the operations in order " "$out" "$AS: pid 1's rows"
	assert_match "^  policy +COMMAND +caps, no_new_privs, filter load " "$out" "$AS: COMMAND's rows"
	assert_no_match "execve until the supervisor sees it" "$out" "$AS: an exec that never was"
}
test_timing_after_a_failure() { for_each_caller check_timing_after_a_failure; }

# Without --timing or HUTCH_TIMING a launch prints nothing of hutch's
# (but for the fallback's notice where the machine gives uid $NOBODY
# only the fallback: then this is the fallback's launch, which prints no
# table either).
test_timing_off_prints_nothing() {
	local out
	out=$(as_user "$H" /bin/true 2>&1) || fail "hutch /bin/true: $out"
	assert_eq "" "$(quiet_but_for_the_machine "$out")" "what a launch without --timing prints"
}
