#!/bin/sh
# Generate the assembly that embeds shipped files into hutch:
#   builtin-gen.sh INIT_IMAGE PROFILE... > builtin.S
# Profiles under profiles/seccomp/ are kind "seccomp", the rest "profiles".
set -eu
init=$1
shift
n=0
# The x86 IBT/SHSTK property note when the build has -fcf-protection.
echo '#ifdef __CET__'
echo '#include <cet.h>'
echo '#endif'
echo '	.section .rodata'
echo '	.balign 16'
echo 'hutch_init_start:'
echo "	.incbin \"$init\""
echo 'hutch_init_end:'
for f in "$@"; do
	echo "file_$n: .incbin \"$f\""
	echo "file_${n}_end: .byte 0"
	case $f in
	*/seccomp/*) kind=seccomp ;;
	*) kind=profiles ;;
	esac
	echo "kind_$n: .asciz \"$kind\""
	echo "name_$n: .asciz \"$(basename "$f")\""
	n=$((n + 1))
done
echo '	.section .data.rel.ro'
echo '	.balign 8'
echo '	.globl hutch_builtin_table'
echo 'hutch_builtin_table:'
i=0
while [ $i -lt $n ]; do
	echo "	.quad kind_$i, name_$i, file_$i, file_${i}_end"
	i=$((i + 1))
done
echo '	.quad 0, 0, 0, 0'
echo '	.globl hutch_init_image'
echo 'hutch_init_image:'
echo '	.quad hutch_init_start, hutch_init_end'
echo '	.section .note.GNU-stack,"",@progbits'
