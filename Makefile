# hutch: a rootless sandbox launcher.
# make            build ./hutch
# make deps       install missing build dependencies (as root), or say which
# make check      make deps, build, run all tests
# make check-container  make demo and make check in a podman container (as root)
# make check-container-docker  the same under Docker's default seccomp profile
#                 (user namespaces refused: the Landlock fallback; tests/container/check)
# make demo       build, then run a short command in the default sandbox
# make asan       the whole test suite on an AddressSanitizer + UBSan build
# make bench      benchmarks against bwrap and unshare; the pty relay; the --allow-net proxy; --learn
# make fuzz       libFuzzer on the parsers, FUZZ_SECONDS (60) each
# make valgrind   memcheck on the supervisor for a few launches
# make check-vm   make demo, make check and rootless checks in a Debian qemu guest
#                 (VM_DIST=bookworm|trixie, VM_KERNEL=stable|backports|newest|all;
#                 tests/vm/README)
# make install    PREFIX=/usr/local DESTDIR= (make uninstall: the same list)
# make check-ubuntu  hutch on a BPF LSM stand-in for Ubuntu's user namespace
#                 restriction (as root; tests/standin/run)
# make deb        a Debian package, build/deb/hutch_VERSION_ARCH.deb

PREFIX ?= /usr/local
BINDIR = $(PREFIX)/bin
LIBEXECDIR = $(PREFIX)/libexec
DATAROOTDIR = $(PREFIX)/share
DATADIR = $(DATAROOTDIR)/hutch
MANDIR = $(DATAROOTDIR)/man
# Where each shell looks for completions under PREFIX (Debian's zsh also
# reads /usr/share/zsh/vendor-completions, which make deb uses).
BASHCOMPDIR = $(DATAROOTDIR)/bash-completion/completions
ZSHCOMPDIR = $(DATAROOTDIR)/zsh/site-functions
FISHCOMPDIR = $(DATAROOTDIR)/fish/vendor_completions.d
# gcc unless the command line or the environment names a compiler (make's
# own default, cc, is not a choice: CC ?= would keep it).
ifeq ($(origin CC),default)
CC = gcc
endif
CFLAGS ?= -O2 -g
# Every function defined outside a header is static or declared first (in
# the header of its file): -Wmissing-prototypes, -Wmissing-declarations.
WARN = -std=gnu11 -Wall -Wextra -Werror -Wshadow -Wformat=2 \
	-Wmissing-prototypes -Wmissing-declarations
# Hardening (tests/integration/t_build.sh reads it back from the binary):
# a canary in every function with an array or an address taken on its
# stack; stack pages probed one by one as a frame grows, so that no frame
# jumps over the guard page into another mapping; glibc's checked string
# and memory calls with sizes known at run time too (level 3: gcc 12,
# clang 9; older compilers give level 2); on x86 an endbr64 at each
# indirect-branch target and the object marked for shadow stacks; code
# position-independent.
# A flag the compiler does not know for this target is left out.
cc_accepts = $(shell $(CC) -Werror $(1) -x c -c -o /dev/null /dev/null 2>/dev/null && echo $(1))
# Fortify only where CFLAGS optimise (glibc refuses it otherwise).
FORTIFY = $(if $(filter -O -O1 -O2 -O3 -Os -Oz -Og -Ofast,$(CFLAGS)),-U_FORTIFY_SOURCE -D_FORTIFY_SOURCE=3)
HARDEN_CFLAGS := -fPIE -fstack-protector-strong $(FORTIFY) \
	$(call cc_accepts,-fstack-clash-protection) $(call cc_accepts,-fcf-protection)
# The GOT and the rest that relocation writes read-only once relocated
# (RELRO), every symbol bound at start (BIND_NOW) so that it all is.
HARDEN_LDFLAGS = -Wl,-z,relro,-z,now
PKGS = libseccomp libcap
# Everything the build and every test need (the tests use python3 for
# servers and probes, strace and jq for checks that skip without them).
DEB_PACKAGES = gcc make pkg-config libc6-dev libseccomp-dev libcap-dev check bubblewrap util-linux \
	python3 strace jq procps curl iproute2 git
PKG_CFLAGS = $(shell pkg-config --cflags $(PKGS) 2>/dev/null)
PKG_LIBS = $(shell pkg-config --libs $(PKGS) 2>/dev/null || echo -lseccomp -lcap)
ALL_CFLAGS = $(WARN) $(HARDEN_CFLAGS) $(CFLAGS) $(PKG_CFLAGS) -iquote sandbox -DHUTCH_DATADIR='"$(DATADIR)"' \
	-DHUTCH_APPARMOR_PROFILE='"$(APPARMOR_DIR)/$(APPARMOR_NAME)"'
# Each object's own header dependencies, written beside it (build/*.d),
# and a target for each header so that a header removed breaks nothing.
DEPFLAGS = -MMD -MP

# sandbox/: main.c and the stage table at the top, a folder per concern
# below (docs/architecture.md); objects mirror the folders under build/.
SRCS = $(wildcard sandbox/*.c sandbox/*/*.c)
PROFILES = $(filter-out %~,$(wildcard profiles/*[!~] profiles/seccomp/*))
PROFILE_FILES = $(foreach f,$(PROFILES),$(if $(wildcard $(f)/.),,$(f)))
# Parsing and policy code, linked into the unit tests as well.
LIB_SRCS = $(filter-out sandbox/main.c,$(SRCS))

# The shipped policies' seccomp programs, built by libseccomp at build time.
SHIPPED_POLICIES = $(notdir $(filter profiles/seccomp/%,$(PROFILE_FILES)))
FILTER_VARIANTS = plain notify late
FILTER_FILES = $(foreach p,$(SHIPPED_POLICIES),$(foreach v,$(FILTER_VARIANTS),build/filters/$(p).$(v)))
DATA_OBJS = build/builtin_data.o build/filters_data.o

OBJS = $(SRCS:sandbox/%.c=build/%.o) $(DATA_OBJS)
FAULT_OBJS = $(SRCS:sandbox/%.c=build/fault/%.o) $(DATA_OBJS)
ASAN_OBJS = $(SRCS:sandbox/%.c=build/asan/%.o) $(DATA_OBJS)

.PHONY: deb-packages all check check-extras check-container check-container-docker check-vm check-ubuntu unit integration demo asan bench deps \
	install install-bwrap-link uninstall deb completions remove-stale clean fuzz fuzz-deps bench-deps valgrind

all: hutch build/hutch-seccomp completions

# hutch is linked statically (static-pie: still position-independent)
# where the toolchain has the static libraries, as Debian's libc6-dev,
# libseccomp-dev and libcap-dev do: no shared library to map and relocate
# at each launch, a smaller process to fork and to replace by the init,
# 0.8 MB less resident (see docs/benchmarks.md).  A static glibc cannot
# load NSS modules; sandbox/lib/util.h (users) and sandbox/net/netresolve.c
# (names) say what lookups use instead.
# Elsewhere libseccomp and libcap alone are static, every symbol bound at
# start.  build/hutch-seccomp is linked the same way: the programs it
# writes for the build are those hutch's own libseccomp would build.
DYNAMIC_LIBS = -pie $(HARDEN_LDFLAGS) -Wl,-Bstatic $(PKG_LIBS) -Wl,-Bdynamic
STATIC_LINK := $(shell printf 'int main(void){return 0;}' | \
	$(CC) -x c -fPIE -static-pie -o /dev/null - $(PKG_LIBS) 2>/dev/null && echo yes)
HUTCH_LIBS = $(if $(STATIC_LINK),-static-pie $(HARDEN_LDFLAGS) $(PKG_LIBS),$(DYNAMIC_LIBS))

hutch: $(OBJS)
	$(CC) $(ALL_CFLAGS) -o $@ $(OBJS) $(HUTCH_LIBS)

# The same objects linked dynamically: memcheck replaces malloc only in
# a program that takes it from a shared libc (make valgrind).
build/hutch-dynamic: $(OBJS)
	$(CC) $(ALL_CFLAGS) -o $@ $(OBJS) $(DYNAMIC_LIBS)

# The init that pid 1 runs from a sealed memfd: static, so that it starts
# in any sandbox root, even one without a libc; and without a libc itself
# where helpers/init_sys.h has a system call layer (x86_64, aarch64): 10
# kB instead of 690, and no libc start-up on every launch.
INIT_CFLAGS = $(if $(filter x86_64-% aarch64-%,$(shell $(CC) -dumpmachine)),\
	-DHUTCH_INIT_NOLIBC -nostdlib -fno-pie $(INIT_NO_PIE) -fno-stack-protector \
	-fno-asynchronous-unwind-tables -fno-builtin)
# gcc needs -no-pie to link it so; clang does with -static alone, and
# stops at -no-pie as an unused argument.
INIT_NO_PIE = $(if $(findstring clang,$(shell $(CC) --version 2>/dev/null)),,-no-pie)

# The build's hardening but PIE (a static program without a libc has no
# code to relocate itself); INIT_CFLAGS's -fno-stack-protector wins where
# there is no libc: no __stack_chk_fail, and no thread pointer to hold the
# canary.
INIT_HARDEN = $(filter-out -fPIE,$(HARDEN_CFLAGS)) $(HARDEN_LDFLAGS)

build/hutch-init: helpers/hutch-init.c helpers/init_sys.h
	@mkdir -p $(@D)
	$(CC) $(WARN) -Os -static $(INIT_HARDEN) $(INIT_CFLAGS) -o $@ $<
	strip $@

# hutch-seccomp: a policy compiled to the BPF program that bwrap's
# --seccomp FD takes.  Its dependency file adds the headers to $^: they
# are no input of the link (and a header moved since would break it).
build/hutch-seccomp: helpers/hutch-seccomp.c build/seccomp/seccomp_policy.o build/seccomp/seccomp_decide.o \
		build/seccomp/seccomp_build.o build/lib/builtin.o build/builtin_data.o \
		build/lib/hostfile.o build/lib/util.o
	@mkdir -p $(@D)
	$(CC) $(ALL_CFLAGS) $(DEPFLAGS) -o $@ $(filter-out %.h,$^) $(HUTCH_LIBS)

# The embedded data's objects carry the x86 IBT/SHSTK property too (the
# generated assembly includes <cet.h> under __CET__): one object without
# it would take it from the whole binary.
CET_FLAGS = $(filter -fcf-protection,$(HARDEN_CFLAGS))

build/builtin_data.S: sandbox/lib/builtin-gen.sh build/hutch-init $(PROFILE_FILES)
	@mkdir -p $(@D)
	sh sandbox/lib/builtin-gen.sh build/hutch-init $(PROFILE_FILES) > $@

build/builtin_data.o: build/builtin_data.S
	@mkdir -p $(@D)
	$(CC) $(CET_FLAGS) -c -o $@ $<

# A launch under a shipped policy as it ships loads these instead of
# compiling the policy again (see sandbox/seccomp/builtin_filters.c).  In
# build/filters/POLICY.VARIANT the stem's last suffix is the variant.
$(FILTER_FILES): build/filters/%: build/hutch-seccomp
	@mkdir -p $(@D)
	build/hutch-seccomp --variant $(patsubst .%,%,$(suffix $*)) $(basename $*) $@

build/filters_data.S: sandbox/seccomp/builtin-filters-gen.sh $(FILTER_FILES)
	@mkdir -p $(@D)
	sh sandbox/seccomp/builtin-filters-gen.sh build/filters $(SHIPPED_POLICIES) > $@

build/filters_data.o: build/filters_data.S
	@mkdir -p $(@D)
	$(CC) $(CET_FLAGS) -c -o $@ $<

build/%.o: sandbox/%.c build/%.d
	@mkdir -p $(@D)
	$(CC) $(ALL_CFLAGS) $(DEPFLAGS) -c -o $@ $<
	@touch $@

# DATADIR and the AppArmor profile's path (from BINDIR) are compiled in
# (HUTCH_DATADIR, HUTCH_APPARMOR_PROFILE): what reads them is built again
# when make is given another PREFIX (make deb's /usr).  build/datadir
# holds the last ones, rewritten only when they change.
INSTALL_PATHS = $(DATADIR) $(APPARMOR_DIR)/$(APPARMOR_NAME)
build/datadir: FORCE
	@mkdir -p $(@D)
	@printf '%s\n' '$(INSTALL_PATHS)' | cmp -s - $@ || printf '%s\n' '$(INSTALL_PATHS)' > $@
build/parse/profile.o build/fault/parse/profile.o build/asan/parse/profile.o build/hutch-completions: build/datadir
build/host/userns_probe.o build/fault/host/userns_probe.o build/asan/host/userns_probe.o: build/datadir
build/diag/doctor_userns.o build/fault/diag/doctor_userns.o build/asan/diag/doctor_userns.o: build/datadir

# hutch-fault: the same code with fault injection at every stage; built
# for the tests, never installed.
build/fault/%.o: sandbox/%.c build/fault/%.d
	@mkdir -p $(@D)
	$(CC) $(ALL_CFLAGS) $(DEPFLAGS) -DHUTCH_FAULT -c -o $@ $<
	@touch $@

build/hutch-fault: $(FAULT_OBJS)
	$(CC) $(ALL_CFLAGS) -pie $(HARDEN_LDFLAGS) -o $@ $(FAULT_OBJS) $(PKG_LIBS)

ASAN_FLAGS = -fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=all
build/asan/%.o: sandbox/%.c build/asan/%.d
	@mkdir -p $(@D)
	$(CC) $(ALL_CFLAGS) $(DEPFLAGS) $(ASAN_FLAGS) -DHUTCH_FAULT -c -o $@ $<
	@touch $@

build/asan/hutch: $(ASAN_OBJS)
	$(CC) $(ALL_CFLAGS) $(ASAN_FLAGS) -pie $(HARDEN_LDFLAGS) -o $@ $(ASAN_OBJS) $(PKG_LIBS)

# ---- tests ----

UNIT_TESTS = $(patsubst tests/unit/%.c,build/unit/%,$(wildcard tests/unit/test_*.c))
CHECK_LIBS = $(shell pkg-config --libs check 2>/dev/null || echo -lcheck -lsubunit -lm -lrt -lpthread)
LIB_OBJS = $(LIB_SRCS:sandbox/%.c=build/%.o) $(DATA_OBJS)

build/unit/%: tests/unit/%.c $(LIB_OBJS)
	@mkdir -p $(@D)
	$(CC) $(ALL_CFLAGS) $(DEPFLAGS) -o $@ $< $(LIB_OBJS) $(CHECK_LIBS) $(PKG_LIBS)

# No dependency cycle among the files of sandbox/ and no folder using a
# folder above it in docs/architecture.md's order (from nm on build/*.o),
# no file including another folder's private header.
.PHONY: depgraph
depgraph: hutch
	tests/depgraph build

# Every repository path README.md, docs/ and man/ name exists (no build).
.PHONY: docs-paths
docs-paths:
	tests/docs-paths

build/test-reaper: tests/integration/reaper.c
	@mkdir -p $(@D)
	$(CC) $(WARN) -O2 -o $@ $<

unit: $(UNIT_TESTS)
	@set -e; for t in $(UNIT_TESTS); do echo "== $$t"; $$t; done
	@set -e; for t in tests/unit/test_*.sh; do echo "== $$t"; \
		HUTCH_INIT_CFLAGS="$(INIT_HARDEN) $(INIT_CFLAGS)" sh $$t; done

integration: hutch build/hutch-fault build/test-reaper
	HUTCH=$(CURDIR)/hutch HUTCH_FAULT_BIN=$(CURDIR)/build/hutch-fault \
		build/test-reaper tests/integration/run

# check installs what is missing first, as the README promises of its two
# commands (deps runs apt-get only when a package is missing, and only as
# root; otherwise it prints the apt-get line and stops).
check: deps check-extras
	$(MAKE) docs-paths
	$(MAKE) all build/hutch-fault
	$(MAKE) depgraph
	$(MAKE) unit
	$(MAKE) integration

# Tools some test parts use where they can (the completions' shells,
# lintian for make deb): installed as root when apt-get can, else those
# parts skip saying so; never a reason for check to stop (a guest has
# no network).
CHECK_EXTRA_PACKAGES = zsh fish lintian
check-extras:
	@missing=""; for p in $(CHECK_EXTRA_PACKAGES); do \
		dpkg-query -W -f='$${Status}' $$p 2>/dev/null | grep -q 'install ok installed' || missing="$$missing $$p"; \
	done; \
	[ -z "$$missing" ] && exit 0; \
	if [ "$$(id -u)" = 0 ] && { DEBIAN_FRONTEND=noninteractive apt-get install -y -qq $$missing >/dev/null 2>&1 || \
		{ apt-get update -qq >/dev/null 2>&1 && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq $$missing >/dev/null 2>&1; }; }; then \
		echo "check: installed$$missing"; \
	else \
		echo "check: not installed:$$missing (the test parts that use them skip; as root: apt-get install -y$$missing)"; \
	fi

# The suite inside a container of Debian's podman (rootful, default
# security settings), image from a cached debootstrap tree; see
# tests/container/check.  Needs root; installs podman, runc and
# debootstrap when missing.
check-container:
	tests/container/check

# The same under Docker's default seccomp profile
# (tests/container/seccomp-docker-default.json, from moby/profiles), which
# refuses user namespaces: hutch runs under its Landlock fallback there;
# tests needing namespaces skip with the reason, and
# tests/escape/fallback.sh shows what the fallback blocks.
check-container-docker:
	HUTCH_CONTAINER_SECCOMP=docker-default tests/container/check

asan: deps
	$(MAKE) build/asan/hutch build/test-reaper
	ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
	HUTCH=$(CURDIR)/build/asan/hutch HUTCH_FAULT_BIN=$(CURDIR)/build/asan/hutch \
		build/test-reaper tests/integration/run

# Fails when the sandbox does: the command ends with status 0 only if
# every step ran, and /usr stayed read-only.
DEMO_CMD = id; hostname; ls /; ls -la ~; cat /proc/1/cmdline | tr "\0" " "; echo; \
	if touch /usr/x; then echo "/usr is writable"; exit 1; fi
demo: deps
	$(MAKE) all
	@printf '%s\n' '$$ ./hutch sh -c '"'"'$(DEMO_CMD)'"'"
	@./hutch sh -c '$(DEMO_CMD)'; rc=$$?; echo "(exit status $$rc)"; [ $$rc -eq 0 ]

bench: all
	tests/bench/run
	tests/bench/pty.sh ./hutch 3
	tests/bench/net.sh ./hutch 3
	tests/bench/learn.sh ./hutch 1

# valgrind 3.19 lacks the new mount API and seccomp(): set-up inside the
# sandbox fails there, so this covers the supervisor and its failure paths.
valgrind: bench-deps
	$(MAKE) all build/hutch-dynamic
	tests/bench/valgrind $(CURDIR)/build/hutch-dynamic

BENCH_DEB_PACKAGES = valgrind strace
bench-deps:
	@$(MAKE) --no-print-directory deps DEB_PACKAGES="$(DEB_PACKAGES) $(BENCH_DEB_PACKAGES)"

# ---- the tests in a Debian guest on Debian's own kernels (tests/vm) ----
# As root.  The image is cached in /var/cache/hutch/vm.  VM_DIST=bookworm
# (12, the default) or trixie (13); VM_KERNEL=stable (the release's own:
# 6.1, 6.12), backports (bookworm-backports'), newest (trixie: the newer
# of trixie-backports' and sid's) or all (the release's two).
VM_DIST ?= bookworm
VM_KERNEL ?= stable
check-vm:
	VM_DIST=$(VM_DIST) VM_KERNEL=$(VM_KERNEL) tests/vm/check-vm

# ---- Ubuntu's kernel.apparmor_restrict_unprivileged_userns, stood in for ----
# As root; installs its TEST-ONLY tools (clang, bpftool, libbpf-dev), or
# skips saying why (no BPF LSM, no BTF, LSM programs refused).
check-ubuntu: all
	tests/standin/run $(CURDIR)/hutch

# ---- fuzzing: libFuzzer harnesses of the parsers (tests/fuzz) ----
FUZZ_SECONDS ?= 60
# bookworm names the fuzzer's runtime by clang's version; trixie and later do not.
FUZZ_DEB_PACKAGES = clang $(shell apt-cache show libclang-rt-14-dev >/dev/null 2>&1 && \
	echo libclang-rt-14-dev || echo libclang-rt-dev)
# The build's flags less the warnings (gcc checks those) and the hardening:
# fortify's wrappers would bypass the guards of tests/fuzz/fuzz.h.
FUZZ_CFLAGS = -std=gnu11 -w $(filter-out $(WARN) $(HARDEN_CFLAGS),$(ALL_CFLAGS)) -O1 -fno-omit-frame-pointer \
	-fsanitize=address,undefined -fno-sanitize-recover=all
FUZZ_OBJS = $(LIB_SRCS:sandbox/%.c=build/fuzz-obj/%.o) $(DATA_OBJS)
FUZZ_BINS = $(patsubst tests/fuzz/fuzz_%.c,build/fuzz/%,$(wildcard tests/fuzz/fuzz_*.c))

build/fuzz-obj/%.o: sandbox/%.c build/fuzz-obj/%.d
	@mkdir -p $(@D)
	clang $(FUZZ_CFLAGS) $(DEPFLAGS) -fsanitize=fuzzer-no-link -c -o $@ $<
	@touch $@

# The parser's file access goes through the guards of tests/fuzz/fuzz.h.
$(FUZZ_BINS): build/fuzz/%: tests/fuzz/fuzz_%.c $(FUZZ_OBJS)
	@mkdir -p $(@D)
	clang $(FUZZ_CFLAGS) $(DEPFLAGS) -fsanitize=fuzzer -Wl,--wrap=open,--wrap=read,--wrap=write,--wrap=close \
		-o $@ $< $(FUZZ_OBJS) $(PKG_LIBS)

fuzz-deps:
	@$(MAKE) --no-print-directory deps DEB_PACKAGES="$(DEB_PACKAGES) $(FUZZ_DEB_PACKAGES)"

fuzz: fuzz-deps
	$(MAKE) hutch $(FUZZ_BINS)
	tests/fuzz/run $(FUZZ_SECONDS) $(FUZZ_BINS)

# The packages `make deps` installs, for the machine images of
# check-vm and check-container.
deb-packages:
	@echo $(DEB_PACKAGES)

# Install missing Debian packages when root; otherwise say how.
deps:
	@missing=""; for p in $(DEB_PACKAGES); do \
		dpkg-query -W -f='$${Status}' $$p 2>/dev/null | grep -q 'install ok installed' || missing="$$missing $$p"; \
	done; \
	if [ -n "$$missing" ]; then \
		if [ "$$(id -u)" = 0 ]; then \
			echo "installing:$$missing"; \
			apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq $$missing; \
		else \
			echo "missing packages; run: sudo apt-get install -y$$missing"; exit 1; \
		fi; \
	fi

# ---- install, uninstall, make deb ----
# hutch's shipped profiles and seccomp policies are built into the binary
# (sandbox/lib/builtin-gen.sh) and read from there: none is installed, so no
# copy in DATADIR can shadow the binary's own (DATADIR/profiles stays a
# search directory for profiles that others ship).  Earlier installs put
# copies there: install and uninstall remove those.
SHIPPED_PROFILES = $(notdir $(filter-out profiles/seccomp/%,$(PROFILE_FILES)))
COMPLETIONS = build/completions/hutch.bash build/completions/_hutch build/completions/hutch.fish
completions: $(COMPLETIONS)

# Generated from the option table (sandbox/parse/cli.c), to which the generator
# is linked: completions cannot drift from hutch.
build/hutch-completions: helpers/hutch-completions.c $(LIB_OBJS)
	@mkdir -p $(@D)
	$(CC) $(ALL_CFLAGS) $(DEPFLAGS) -o $@ $< $(LIB_OBJS) $(PKG_LIBS)

build/completions/hutch.bash build/completions/_hutch build/completions/hutch.fish: build/hutch-completions
	@mkdir -p $(@D)
	build/hutch-completions $(patsubst .%,%,$(or $(suffix $(@F)),.zsh)) \
		'$(SHIPPED_PROFILES)' '$(SHIPPED_POLICIES)' > $@.tmp && mv $@.tmp $@

# The AppArmor profile for the installed path (packaging/apparmor/hutch.in):
# named after it (usr.local.bin.hutch), so that a package's and a source
# install's do not collide.  APPARMOR=auto installs it where
# /etc/apparmor.d exists and this system's apparmor_parser (if any) reads
# it; yes or no decide instead.  Loaded (apparmor_parser -r) when
# installed as root without DESTDIR where AppArmor is on.
APPARMOR ?= auto
APPARMOR_DIR = /etc/apparmor.d
APPARMOR_NAME = $(subst /,.,$(patsubst /%,%,$(BINDIR))).hutch
APPARMOR_MARK = installed by make install
APPARMOR_FILE = $(DESTDIR)$(APPARMOR_DIR)/$(APPARMOR_NAME)
AA_SH = . packaging/apparmor/apparmor.sh

build/apparmor/$(APPARMOR_NAME): packaging/apparmor/hutch.in FORCE
	@mkdir -p $(@D)
	sed -e 's|@BINDIR@|$(BINDIR)|g; s|@NAME@|$(APPARMOR_NAME)|g; s|@HUTCH_MARK@|$(APPARMOR_MARK)|g' $< > $@

.PHONY: FORCE
FORCE:

# Everything install puts in place, which uninstall removes.
INSTALLED = $(BINDIR)/hutch $(BINDIR)/hutch-seccomp $(MANDIR)/man1/hutch.1 \
	$(MANDIR)/man1/hutch-seccomp.1 $(MANDIR)/man5/hutch-profile.5 $(BASHCOMPDIR)/hutch $(ZSHCOMPDIR)/_hutch \
	$(FISHCOMPDIR)/hutch.fish
STALE = $(SHIPPED_PROFILES:%=$(DATADIR)/profiles/%) $(SHIPPED_POLICIES:%=$(DATADIR)/profiles/seccomp/%)

install: hutch build/hutch-seccomp completions build/apparmor/$(APPARMOR_NAME)
	install -D -m 0755 hutch $(DESTDIR)$(BINDIR)/hutch
	install -D -m 0755 build/hutch-seccomp $(DESTDIR)$(BINDIR)/hutch-seccomp
	install -D -m 0644 man/hutch.1 $(DESTDIR)$(MANDIR)/man1/hutch.1
	install -D -m 0644 man/hutch-seccomp.1 $(DESTDIR)$(MANDIR)/man1/hutch-seccomp.1
	install -D -m 0644 man/hutch-profile.5 $(DESTDIR)$(MANDIR)/man5/hutch-profile.5
	install -D -m 0644 build/completions/hutch.bash $(DESTDIR)$(BASHCOMPDIR)/hutch
	install -D -m 0644 build/completions/_hutch $(DESTDIR)$(ZSHCOMPDIR)/_hutch
	install -D -m 0644 build/completions/hutch.fish $(DESTDIR)$(FISHCOMPDIR)/hutch.fish
	@$(MAKE) --no-print-directory remove-stale
	@$(AA_SH); f=build/apparmor/$(APPARMOR_NAME); \
	case "$(APPARMOR)" in \
	yes) ;; \
	no) echo "apparmor: not installed (APPARMOR=no)"; exit 0 ;; \
	*) if [ ! -d $(APPARMOR_DIR) ]; then echo "apparmor: no $(APPARMOR_DIR): profile not installed"; exit 0; fi; \
	   if ! aa_readable $$f; then echo "apparmor: this apparmor_parser does not read abi 4.0 (userns): profile not installed"; exit 0; fi ;; \
	esac; \
	echo "install -D -m 0644 $$f $(APPARMOR_FILE)"; install -D -m 0644 $$f $(APPARMOR_FILE); \
	if [ -z "$(DESTDIR)" ]; then aa_load $(APPARMOR_FILE); fi

# Copies of the shipped profiles an earlier make install left: they
# would shadow the binary's own.
remove-stale:
	rm -f $(STALE:%=$(DESTDIR)%)
	-rmdir $(DESTDIR)$(DATADIR)/profiles/seccomp $(DESTDIR)$(DATADIR)/profiles $(DESTDIR)$(DATADIR) 2>/dev/null

# bwrap mode is hutch run through a link named bwrap.  Not part of
# install, and never in BINDIR: there, or in /usr/bin, it would shadow
# (or overwrite) the distribution's bubblewrap.  It goes in
# LIBEXECDIR/hutch, which no PATH holds: a caller names it (a PATH of its
# own, FLATPAK_BWRAP=..., a program's bwrap setting).
install-bwrap-link: install
	install -d $(DESTDIR)$(LIBEXECDIR)/hutch
	ln -sfn $(BINDIR)/hutch $(DESTDIR)$(LIBEXECDIR)/hutch/bwrap

uninstall:
	@$(AA_SH); f=$(APPARMOR_FILE); \
	if [ -f $$f ] && grep -q '^# AppArmor profile for $(BINDIR)/hutch ($(APPARMOR_MARK))' $$f; then \
		if [ -z "$(DESTDIR)" ]; then aa_unload $$f $(APPARMOR_NAME); fi; \
		echo "rm -f $$f"; rm -f $$f; \
	fi
	rm -f $(INSTALLED:%=$(DESTDIR)%)
	if [ -L $(DESTDIR)$(LIBEXECDIR)/hutch/bwrap ] && \
	   [ "$$(readlink $(DESTDIR)$(LIBEXECDIR)/hutch/bwrap)" = $(BINDIR)/hutch ]; then \
		rm -f $(DESTDIR)$(LIBEXECDIR)/hutch/bwrap; rmdir $(DESTDIR)$(LIBEXECDIR)/hutch; fi
	@$(MAKE) --no-print-directory remove-stale

# The Debian package (packaging/debian/): built with dpkg-deb from what
# make install puts in a staging root, see packaging/debian/build.
deb: all
	packaging/debian/build

clean:
	rm -rf build hutch

# The header dependencies the compiler wrote (DEPFLAGS); none before the
# first build, which builds everything anyway.  An object without its .d
# (built by an older Makefile, or the .d removed) is built again: its .d
# is then a target with neither prerequisites nor recipe, which make
# takes as just remade (and the object is touched after the compiler
# wrote its .d, so that it is the newer).
DEP_FILES = $(foreach d,build build/fault build/asan build/fuzz-obj,$(SRCS:sandbox/%.c=$(d)/%.d))
-include $(wildcard build/*.d build/*/*.d build/*/*/*.d)
$(DEP_FILES):
