/* The poll-source registry: the fds that modules (the pty relay,
 * seccomp reports, the --allow-net proxy, init's status pipe) add to the
 * supervision loop, with what to do when each is ready.  Below those
 * modules and below the loop, so that neither depends on the other. */
#include "loop.h"
#include "sandbox.h"

int loop_add_source(struct sandbox *sb, int fd, short events,
		    void (*on_ready)(struct sandbox *sb, short revents))
{
	if (sb->n_sources == MAX_POLL_SOURCES)
		return -1;
	sb->sources[sb->n_sources++] = (struct poll_source){ fd, events, on_ready };
	return 0;
}

void loop_remove_source(struct sandbox *sb, int fd)
{
	for (int i = 0; i < sb->n_sources; i++)
		if (sb->sources[i].fd == fd) {
			sb->sources[i] = sb->sources[--sb->n_sources];
			return;
		}
}
