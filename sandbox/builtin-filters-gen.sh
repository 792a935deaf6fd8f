#!/bin/sh
# Generate the assembly that embeds the shipped policies' seccomp programs
# (written by build/hutch-seccomp --variant) into hutch:
#   builtin-filters-gen.sh DIR POLICY... > filters.S
# DIR holds POLICY.notify and POLICY.late; an empty .late means the policy
# needs no late filter.  1 and 2 are enum seccomp_variant's NOTIFY, LATE.
set -eu
dir=$1
shift
n=0
echo '	.section .rodata'
for p in "$@"; do
	echo '	.balign 8'
	echo "notify_$n: .incbin \"$dir/$p.notify\""
	echo "notify_${n}_end:"
	echo '	.balign 8'
	echo "late_$n: .incbin \"$dir/$p.late\""
	echo "late_${n}_end:"
	echo "policy_$n: .asciz \"$p\""
	n=$((n + 1))
done
echo '	.section .data.rel.ro'
echo '	.balign 8'
echo '	.globl hutch_filter_table'
echo 'hutch_filter_table:'
i=0
while [ $i -lt $n ]; do
	echo "	.quad policy_$i, 1, notify_$i, notify_${i}_end"
	echo "	.quad policy_$i, 2, late_$i, late_${i}_end"
	i=$((i + 1))
done
echo '	.quad 0, 0, 0, 0'
echo '	.section .note.GNU-stack,"",@progbits'
