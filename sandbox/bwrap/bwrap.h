/* bwrap/: bubblewrap's helper protocol (protocol.c): namespaces given as
 * fds, blocking fds, lock files, the sync fd, extra seccomp programs,
 * labels, and disabling user namespaces inside.
 *
 * The folder's public header: files outside bwrap/ include this one only. */
#ifndef HUTCH_BWRAP_PUBLIC_H
#define HUTCH_BWRAP_PUBLIC_H

struct sandbox;

/* Where pid 1 gathers the fds it holds for the sandbox's life: the
 * first free range from here on. */
#define HOLD_BASE 512
#define HOLD_MAX 64

/* A classic BPF program from --seccomp or --add-seccomp-fd. */
struct extra_filter {
	void *insns;
	unsigned short len;
};

int protocol_prepare(struct sandbox *sb);		/* supervisor */
int protocol_userns_block(struct sandbox *sb);		/* child, after release */
int protocol_open_userns_limit(struct sandbox *sb);	/* child, before the mounts */
int protocol_disable_userns(struct sandbox *sb);	/* pid 1, before the nested userns */
int protocol_enter_userns2(struct sandbox *sb);		/* pid 1, after set-up */
int protocol_take_locks(struct sandbox *sb);		/* pid 1, after set-up */
void protocol_hide_fds(struct sandbox *sb);		/* COMMAND, before execve */
int protocol_before_exec(struct sandbox *sb);		/* COMMAND, after the policy */
int protocol_block(struct sandbox *sb);			/* COMMAND, just before execve */
int protocol_load_filters(struct sandbox *sb);		/* COMMAND, last before execve */
int protocol_set_file_label(struct sandbox *sb);	/* pid 1, before the mounts */
void protocol_release(struct sandbox *sb);

#endif
