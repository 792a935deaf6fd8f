/* The persistence guard: whatever profiles and options say, no plan may
 * make writable, inside the sandbox, what runs or configures things
 * outside it later: hutch's own configuration, its own binary, or what a
 * shell, the session or a daily tool runs from $HOME (the table below).
 * A sandboxed program that could write those would plant code that runs
 * unsandboxed at the next login or the next launch. */
#define _GNU_SOURCE
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "guard.h"
#include "lib/lib.h"

/* What the guard protects: one row each, with the reason.  HOME rows are
 * relative to $HOME; the rest are absolute.  Derived from what runs
 * without being asked: a login or interactive shell, the desktop session
 * and the user's service manager at login, and the tools a user runs
 * every day that take commands from a configuration file or a directory
 * on PATH. */
struct protected_path {
	bool in_home;
	const char *path;
	const char *why;
};

static const struct protected_path protected_paths[] = {
	{ false, "/etc/hutch", "hutch's configuration: it decides the next sandbox" },
	{ true, ".config/hutch", "hutch's configuration: it decides the next sandbox" },
	{ true, ".bashrc", "bash runs it in every interactive shell" },
	{ true, ".bash_aliases", "Debian's .bashrc runs it" },
	{ true, ".bash_profile", "bash runs it at login" },
	{ true, ".bash_login", "bash runs it at login" },
	{ true, ".bash_logout", "bash runs it at logout" },
	{ true, ".profile", "sh and bash run it at login; Debian's puts ~/bin and ~/.local/bin on PATH" },
	{ true, ".zshrc", "zsh runs it in every interactive shell" },
	{ true, ".zshenv", "zsh runs it in every shell" },
	{ true, ".zprofile", "zsh runs it at login" },
	{ true, ".zlogin", "zsh runs it at login" },
	{ true, ".zlogout", "zsh runs it at logout" },
	{ true, ".cshrc", "csh and tcsh run it in every shell" },
	{ true, ".tcshrc", "tcsh runs it in every shell" },
	{ true, ".login", "csh and tcsh run it at login" },
	{ true, ".kshrc", "ksh runs it in every interactive shell" },
	{ true, ".mkshrc", "mksh runs it in every interactive shell" },
	{ true, ".config/fish", "fish runs its files in every shell" },
	{ true, ".inputrc", "readline's key bindings type commands into your shell" },
	{ true, "bin", "on PATH through Debian's ~/.profile: its programs run in place of the system's" },
	{ true, ".local/bin", "on PATH through Debian's ~/.profile: its programs run in place of the system's" },
	{ true, ".local/lib", "Python runs the .pth files of the user site-packages at every start" },
	{ true, ".xprofile", "the display manager runs it at login" },
	{ true, ".xsessionrc", "the X session runs it at login" },
	{ true, ".xsession", "the X session runs it at login" },
	{ true, ".xinitrc", "startx runs it" },
	{ true, ".pam_environment", "PAM sets its variables (LD_PRELOAD) at login" },
	{ true, ".config/environment.d", "the user's service manager sets its variables" },
	{ true, ".config/autostart", "the desktop session runs its entries at login" },
	{ true, ".config/systemd/user", "the user's service manager runs its units" },
	{ true, ".local/share/systemd/user", "the user's service manager runs its units" },
	{ true, ".local/share/applications", "desktop entries: their Exec= runs when a file or an application is opened" },
	{ true, ".local/share/dbus-1/services", "the session bus starts their Exec= on demand" },
	{ true, ".ssh", "authorized_keys lets others in; config runs ProxyCommand and LocalCommand; rc runs at login" },
	{ true, ".gnupg", "gpg-agent.conf names the pinentry program gpg runs" },
	{ true, ".gitconfig", "git runs core.fsmonitor, core.pager, hooks and aliases from it" },
	{ true, ".config/git", "git's XDG configuration: the same as ~/.gitconfig" },
	{ true, ".hgrc", "Mercurial runs its hooks" },
	{ true, ".docker/config.json", "docker runs its credential helpers" },
	{ true, ".docker/cli-plugins", "docker runs its programs as subcommands" },
	{ true, ".npmrc", "npm runs node-options and script-shell from it" },
	{ true, ".yarnrc", "yarn runs its yarn-path" },
	{ true, ".yarnrc.yml", "yarn runs its yarnPath" },
	{ true, ".cargo/config.toml", "cargo runs its rustc-wrapper and runners" },
	{ true, ".cargo/config", "cargo runs its rustc-wrapper and runners" },
	{ true, ".cargo/bin", "on PATH through rustup's ~/.profile line" },
	{ true, ".config/pip", "pip installs from the index it names, and runs what it installs" },
	{ true, ".pip", "pip installs from the index it names, and runs what it installs" },
	{ true, ".pydistutils.cfg", "setuptools takes commands and indexes from it" },
	{ true, ".config/direnv", "direnv runs direnvrc in every shell" },
	{ true, ".tmux.conf", "tmux runs its run-shell and if-shell lines" },
	{ true, ".config/tmux", "tmux runs its run-shell and if-shell lines" },
	{ true, ".screenrc", "screen runs its commands" },
	{ true, ".vimrc", "vim runs it" },
	{ true, ".vim", "vim runs its plugins" },
	{ true, ".config/nvim", "neovim runs it" },
	{ true, ".emacs", "emacs runs it" },
	{ true, ".emacs.d", "emacs runs it" },
	{ true, ".config/emacs", "emacs runs it" },
	{ true, ".gdbinit", "gdb runs its commands" },
	{ true, ".config/gdb", "gdb runs its commands" },
	{ true, ".local/share/nvim", "neovim runs the plugins in its site directory" },
	{ true, ".vscode", "VS Code loads the extensions there as code" },
	{ true, ".config/Code", "VS Code's settings name programs it runs (tasks, terminals)" },
	{ true, ".ipython", "IPython runs its profiles' startup scripts" },
	{ true, ".gradle/init.d", "Gradle runs its init scripts in every build" },
	{ true, ".gradle/init.gradle", "Gradle runs it in every build" },
	{ true, "go/bin", "go install puts programs there, and it is on PATH by convention" },
	{ true, ".pyenv/shims", "pyenv's shims are on PATH" },
	{ true, ".pyenv/bin", "pyenv's own commands are on PATH" },
	{ true, ".pyenv/plugins", "pyenv runs its plugins' hooks" },
	{ true, ".npm-global/bin", "npm's user prefix that npm's docs put on PATH" },
	{ true, ".config/mise", "mise runs its tasks and environment hooks" },
	{ true, ".config/gh", "gh runs shell aliases from it" },
	{ true, ".kube/config", "kubectl runs the exec credential plugins it names" },
	{ true, ".aws/config", "the AWS CLI runs the credential_process it names" },
	{ true, ".config/plasma-workspace", "KDE sources its env scripts at login" },
	{ true, ".config/i3", "i3 runs its exec lines at login" },
	{ true, ".config/sway", "sway runs its exec lines at login" },
	{ true, ".config/hypr", "Hyprland runs its exec lines at login" },
	{ true, ".bashrc.d", "Fedora's .bashrc runs its files in every interactive shell" },
	{ true, ".nvm", "the shell runs nvm.sh from it, and its node versions are on PATH" },
	{ true, ".oh-my-zsh", "zsh runs it in every interactive shell" },
	{ true, ".sdkman", "the shell runs sdkman-init.sh from it, and its tools are on PATH" },
	{ true, ".rbenv", "the shell runs rbenv init from it, and its shims are on PATH" },
	{ true, ".rustup", "its toolchains are what cargo and rustc on PATH run" },
	{ true, ".asdf", "the shell runs asdf.sh from it, and its shims are on PATH" },
	{ true, ".volta", "its bin is on PATH" },
	{ true, ".bun/bin", "on PATH through bun's installer" },
	{ true, ".deno/bin", "on PATH through deno's installer" },
	{ true, "miniconda3", "the shell runs conda's hook from it, and its bin is on PATH" },
	{ true, "anaconda3", "the shell runs conda's hook from it, and its bin is on PATH" },
	{ true, ".conda", "conda runs its environments' activation scripts" },
	{ true, ".Rprofile", "R runs it at every start" },
	{ true, ".psqlrc", "psql runs its commands, \\! shell escapes among them" },
	{ false, "/home/linuxbrew/.linuxbrew/bin", "Homebrew's programs, on PATH through brew shellenv" },
};

/* The canonical form of PATH where it exists; else PATH itself. */
static char *canonical(const char *path)
{
	char *real = realpath(path, NULL);

	return real ? real : xstrdup(path);
}

/* Does a writable view of DIR expose PROTECTED: is one inside the other? */
static bool overlaps(const char *dir, const char *protected)
{
	return path_within(protected, dir) || path_within(dir, protected);
}

bool guard_op_writable(const struct fs_op *op)
{
	switch (op->kind) {
	case FS_BIND:
	case FS_BIND_FD:	/* judged at the bind only: its path is the fd's */
		return !(op->flags & FS_READONLY);
	case FS_OVERLAY:
		return true;	/* its upper layer is a host directory */
	default:
		return false;
	}
}

static const char *option_name(const struct fs_op *op)
{
	if (op->kind == FS_OVERLAY)
		return "--overlay";
	if (op->flags & FS_CWD)
		return "--bind-cwd";
	if (op->kind == FS_BIND_FD)
		return "--bind-fd";
	return op->flags & FS_DEVICES ? "--dev-bind" : "--bind";
}

/* EXPOSED_BY: the source as found, for an option that names none (an fd). */
static int refuse(const struct fs_op *op, const char *stage, const char *exposed_by,
		  const char *exposed, const char *why, char *err, size_t errlen)
{
	snprintf(err, errlen,
		 "%s: %s %s (%s): would make %s writable inside the sandbox (%s); a "
		 "sandboxed program could plant code there that runs outside it later",
		 stage, option_name(op), op->src ? op->src : exposed_by, op->origin, exposed, why);
	return -1;
}

/* SRC: the bind's source, canonical. */
static int check_path(const struct fs_op *op, const char *stage, const char *src,
		      const char *protected, const char *why, char *err, size_t errlen)
{
	char *prot = canonical(protected);
	int r = overlaps(src, prot) ? refuse(op, stage, src, prot, why, err, errlen) : 0;

	free(prot);
	return r;
}

static int check_op(const struct fs_op *op, const char *stage, const char *src,
		    const char *home, char *err, size_t errlen)
{
	char path[PATH_MAX];
	char *self = realpath("/proc/self/exe", NULL);
	int r = 0;

	if (self)
		r = check_path(op, stage, src, self, "hutch's own binary", err, errlen);
	free(self);
	for (size_t i = 0; r == 0 && i < sizeof(protected_paths) / sizeof(protected_paths[0]); i++) {
		const struct protected_path *p = &protected_paths[i];

		if (p->in_home && !home)
			continue;
		snprintf(path, sizeof(path), "%s%s%s", p->in_home ? home : "",
			 p->in_home ? "/" : "", p->path);
		r = check_path(op, stage, src, path, p->why, err, errlen);
	}
	return r;
}

const char *guard_path_reason(const char *path, const char *home)
{
	char prot[PATH_MAX];

	for (size_t i = 0; i < sizeof(protected_paths) / sizeof(protected_paths[0]); i++) {
		const struct protected_path *p = &protected_paths[i];

		if (p->in_home && !home)
			continue;
		snprintf(prot, sizeof(prot), "%s%s%s", p->in_home ? home : "",
			 p->in_home ? "/" : "", p->path);
		if (overlaps(path, prot))
			return p->why;
	}
	return NULL;
}

int guard_check(const struct plan *plan, const char *home, char *err, size_t errlen)
{
	if (plan->mode != MODE_HUTCH)
		return 0;	/* bwrap mode: bwrap's behaviour */
	for (size_t i = 0; i < plan->n_ops; i++) {
		const struct fs_op *op = &plan->ops[i];
		char *src;
		int r;

		if (!guard_op_writable(op) || !op->src)
			continue;
		src = canonical(op->src);
		r = check_op(op, "parse", src, home, err, errlen);
		free(src);
		if (r < 0)
			return -1;
	}
	return 0;
}

int guard_check_bound(const struct plan *plan, const struct fs_op *op, const char *stage,
		      const char *real, char *err, size_t errlen)
{
	if (plan->mode != MODE_HUTCH || !guard_op_writable(op))
		return 0;
	return check_op(op, stage, real, plan->guard_home, err, errlen);
}
