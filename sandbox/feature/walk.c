/* The feature table's walkers: each calls one hook of every feature in
 * order.  The table is sb->features, handed down by main: this folder
 * sits below the stages that call it, and names no feature. */
#include <string.h>

#include "feature.h"
#include "sandbox.h"

typedef int (*step_hook)(struct sandbox *sb);
typedef void (*event_hook)(struct sandbox *sb);

static step_hook hook_for_step(const struct feature *f, enum feature_step step)
{
	switch (step) {
	case FEATURE_PREPARE:
		return f->prepare;
	case FEATURE_ATTACH:
		return f->attach;
	case FEATURE_START:
		return f->start;
	}
	return NULL;
}

static event_hook hook_for_event(const struct feature *f, enum feature_event event)
{
	switch (event) {
	case FEATURE_RELEASE_READY:
		return f->release_ready;
	case FEATURE_COMMAND_STOPPED:
		return f->command_stopped;
	case FEATURE_FINISH:
		return f->finish;
	case FEATURE_RELEASE:
		return f->release;
	}
	return NULL;
}

int feature_run(struct sandbox *sb, enum feature_step step)
{
	for (int i = 0; sb->features && i < sb->features->count; i++) {
		step_hook hook = hook_for_step(&sb->features->rows[i], step);

		if (hook && hook(sb) < 0)
			return -1;
	}
	return 0;
}

void feature_notify(struct sandbox *sb, enum feature_event event)
{
	for (int i = 0; sb->features && i < sb->features->count; i++) {
		event_hook hook = hook_for_event(&sb->features->rows[i], event);

		if (hook)
			hook(sb);
	}
}

bool feature_is_name(const struct feature_table *table, const char *name, size_t len)
{
	for (int i = 0; table && i < table->count; i++)
		if (strlen(table->rows[i].name) == len && strncmp(table->rows[i].name, name, len) == 0)
			return true;
	return false;
}
