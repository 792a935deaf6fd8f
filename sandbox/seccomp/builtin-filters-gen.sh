#!/bin/sh
# Generate the assembly that embeds the shipped policies' seccomp programs
# (written by build/hutch-seccomp --variant) into hutch:
#   builtin-filters-gen.sh DIR POLICY... > filters.S
# DIR holds POLICY.plain, POLICY.notify and POLICY.late; an empty .late
# means the policy needs no late filter.  0, 1 and 2 are enum
# seccomp_variant's PLAIN, NOTIFY and LATE.
set -eu
dir=$1
shift
variants="plain notify late"
n=0
# The x86 IBT/SHSTK property note when the build has -fcf-protection.
echo '#ifdef __CET__'
echo '#include <cet.h>'
echo '#endif'
echo '	.section .rodata'
for p in "$@"; do
	for v in $variants; do
		echo '	.balign 8'
		echo "${v}_$n: .incbin \"$dir/$p.$v\""
		echo "${v}_${n}_end:"
	done
	echo "policy_$n: .asciz \"$p\""
	n=$((n + 1))
done
echo '	.section .data.rel.ro'
echo '	.balign 8'
echo '	.globl hutch_filter_table'
echo 'hutch_filter_table:'
i=0
while [ $i -lt $n ]; do
	k=0
	for v in $variants; do
		echo "	.quad policy_$i, $k, ${v}_$i, ${v}_${i}_end"
		k=$((k + 1))
	done
	i=$((i + 1))
done
echo '	.quad 0, 0, 0, 0'
echo '	.section .note.GNU-stack,"",@progbits'
