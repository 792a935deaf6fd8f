/* tool_proto_bpf SYSCALL ERRNO [SYSCALL ERRNO...]: write to stdout a
 * classic-BPF seccomp program, as bwrap's --seccomp and --add-seccomp-fd
 * read it, that allows everything but each SYSCALL, which fails with its
 * ERRNO. */
#include <seccomp.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	scmp_filter_ctx ctx = seccomp_init(SCMP_ACT_ALLOW);

	if (argc < 3 || argc % 2 == 0 || !ctx) {
		fprintf(stderr, "usage: %s SYSCALL ERRNO [SYSCALL ERRNO...]\n", argv[0]);
		return 2;
	}
	for (int i = 1; i + 1 < argc; i += 2) {
		int nr = seccomp_syscall_resolve_name(argv[i]);

		if (nr == __NR_SCMP_ERROR ||
		    seccomp_rule_add(ctx, SCMP_ACT_ERRNO((unsigned)atoi(argv[i + 1])), nr, 0) < 0) {
			fprintf(stderr, "%s: cannot refuse %s\n", argv[0], argv[i]);
			return 1;
		}
	}
	if (seccomp_export_bpf(ctx, STDOUT_FILENO) < 0) {
		fprintf(stderr, "%s: cannot export the filter\n", argv[0]);
		return 1;
	}
	seccomp_release(ctx);
	return 0;
}
