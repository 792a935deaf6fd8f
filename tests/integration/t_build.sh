# The hardened build (issue 25), read back from the binary under test:
# position-independent, relocated data read-only (RELRO) with every
# symbol bound at start (BIND_NOW), stack canaries and stack-clash probes
# in hutch's own code, and on x86_64 an endbr64 at each function an
# indirect call can reach (-fcf-protection).  Needs binutils (readelf,
# objdump, nm), which gcc brings.

needs_binutils() {
	local tool
	for tool in readelf objdump nm; do
		command -v "$tool" >/dev/null || skip "no $tool (binutils) to read the binary with"
	done
}

# Functions that are hutch's own: the names no library linked in uses.
OWN_FUNCTIONS='^(main|plan_[a-z_]+|seccomp_policy_[a-z_]+|landlock_[a-z_]+|supervise_[a-z_]+|profile_[a-z_]+)$'

# The code checks need the symbol table to tell hutch's functions.
needs_symbols() {
	nm --defined-only "$HUTCH" 2>/dev/null | grep -q ' T main$' ||
		skip "$HUTCH has no symbol table (stripped): its own functions cannot be told from libc's"
}

# gcc leaves out canaries and probes where ASan lays out the frame.
needs_no_sanitizer() {
	! nm "$HUTCH" 2>/dev/null | grep -q ' __asan_init$' ||
		skip "$HUTCH is a sanitizer build, without canaries and probes: make check checks the release build"
}

# own_functions_that PATTERN: the names of hutch's own functions with an
# instruction that matches PATTERN (an awk regex), one per line.
own_functions_that() {
	objdump -d --no-show-raw-insn "$HUTCH" |
		awk -v pat="$1" '/^[0-9a-f]+ <[^>]+>:$/ { fn = substr($2, 2, length($2) - 3); next }
			$0 ~ pat { print fn }' | sort -u | grep -E "$OWN_FUNCTIONS" || true
}

test_build_is_pie_with_relro_and_bind_now() {
	local header dynamic segments
	needs_binutils
	header=$(readelf -h "$HUTCH")
	dynamic=$(readelf -d "$HUTCH")
	segments=$(readelf -lW "$HUTCH")
	# A static-pie (no INTERP) and a dynamic PIE are both ET_DYN.
	assert_match 'Type: +DYN ' "$header" "ELF type of $HUTCH (a PIE is DYN, not EXEC)"
	assert_match 'FLAGS_1\) +Flags:.* PIE' "$dynamic" "$HUTCH's FLAGS_1"
	assert_match 'GNU_RELRO' "$segments" "$HUTCH's program headers (RELRO segment)"
	assert_match '\(FLAGS\) +.*BIND_NOW' "$dynamic" "$HUTCH's FLAGS (-z now)"
	assert_match 'FLAGS_1\) +Flags:.* NOW' "$dynamic" "$HUTCH's FLAGS_1 (-z now)"
	assert_no_match 'TEXTREL' "$dynamic" "$HUTCH's dynamic section (text relocations)"
	assert_no_match 'GNU_STACK.* RWE ' "$segments" "$HUTCH's stack (executable)"
}

# -fstack-protector-strong: a function with an array or an address taken
# on its stack checks its canary before returning.
test_build_has_stack_canaries() {
	local fns
	needs_binutils
	needs_symbols
	needs_no_sanitizer
	fns=$(own_functions_that 'call.*__stack_chk_fail')
	[ -n "$fns" ] || fail "none of hutch's own functions calls __stack_chk_fail (no -fstack-protector-strong)"
	assert_match '^main$' "$fns" "hutch's functions with a canary (main has buffers on its stack)"
}

# -fstack-clash-protection: a frame larger than a page is grown one page
# at a time, each touched, so that it cannot jump over the guard page.
test_build_probes_stack_pages() {
	local fns
	needs_binutils
	needs_symbols
	needs_no_sanitizer
	case $(uname -m) in
	x86_64) ;;
	*) skip "the probe instruction is looked for on x86_64 only, this is $(uname -m)" ;;
	esac
	# A page taken off the stack pointer, then a store to it: gcc writes
	# orq $0x0,(%rsp), clang movq $0x0,(%rsp).
	fns=$(objdump -d --no-show-raw-insn "$HUTCH" |
		awk '/^[0-9a-f]+ <[^>]+>:$/ { fn = substr($2, 2, length($2) - 3); grown = 0; next }
			grown && /(or|mov)q? +\$0x0,\(%rsp\)/ { print fn }
			{ grown = /sub +\$0x1000,%rsp$/ }' | sort -u | grep -E "$OWN_FUNCTIONS" || true)
	[ -n "$fns" ] || fail "no stack probe in hutch's own functions (no -fstack-clash-protection)"
}

# -fcf-protection: the binary is marked IBT and SHSTK when every object
# linked in is (Debian 12's static glibc is not, which takes the mark off
# the whole binary); hutch's own global functions begin with endbr64.
test_build_marks_indirect_branch_targets() {
	local notes first missing
	needs_binutils
	case $(readelf -h "$HUTCH") in
	*X86-64*) ;;
	*) skip "-fcf-protection is an x86 feature; $HUTCH is for $(readelf -h "$HUTCH" | sed -n 's/^ *Machine: *//p')" ;;
	esac
	needs_symbols
	notes=$(readelf -n "$HUTCH")
	if printf '%s' "$notes" | grep -q 'x86 feature:.*IBT'; then
		assert_match 'x86 feature:.*SHSTK' "$notes" "$HUTCH's x86 feature property"
	fi
	# The first instruction of each of hutch's own global functions.
	first=$(objdump -d --no-show-raw-insn "$HUTCH" |
		awk '/^[0-9a-f]+ <[^>]+>:$/ { fn = substr($2, 2, length($2) - 3); want = 1; next }
			want && /^ +[0-9a-f]+:/ { sub(/^ +[0-9a-f]+:[ \t]+/, ""); print fn, $1; want = 0 }')
	missing=$(awk 'NR == FNR { own[$1] = 1; next } ($1 in own) && $2 != "endbr64" { print $1 }' \
		<(nm --defined-only "$HUTCH" | awk '$2 == "T" { print $3 }' | grep -E "$OWN_FUNCTIONS") \
		<(printf '%s\n' "$first"))
	printf '%s\n' "$first" | grep -q '^main endbr64$' ||
		fail "main does not begin with endbr64 (no -fcf-protection)"
	[ -z "$missing" ] || fail "global functions without endbr64 at their entry: $(echo $missing)"
}
