# Themis: build/themis (the emulator and checker), the guest-side test
# programs, and the tests. `make` builds; `make test` runs every test.
CC       ?= gcc
CFLAGS   ?= -O2 -g
CFLAGS   += -std=c17 -Wall -Wextra -Werror -D_GNU_SOURCE
LDLIBS   := -lfdt -lxxhash -lhiredis -lext2fs -lcom_err -ljansson -lm
SANFLAGS := -O1 -g -fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=all

RVCC     := riscv64-linux-gnu-gcc
RVFLAGS  := -march=rv64gc -mabi=lp64d -mcmodel=medany -nostdlib -nostartfiles -static \
            -fno-pie -no-pie -Wl,--build-id=none

SRCS := $(wildcard src/cpu/*.c src/mem/*.c src/dev/*.c src/disk/*.c src/machine/*.c src/check/*.c src/lens/*.c src/report/*.c)
MAIN := $(wildcard src/cli/*.c)
HDRS := $(wildcard src/*/*.h)
OBJS := $(SRCS:src/%.c=build/obj/%.o)
SAN_OBJS := $(SRCS:src/%.c=build/asan/obj/%.o)

# `themis --version`: the commit the build is from. Only the command's own
# sources (src/cli, compiled at link time; main.c prints it) get the flag,
# so a new commit relinks build/themis and rebuilds nothing else;
# build/version is rewritten only when the string changes.
THEMIS_VERSION := $(shell git describe --always --dirty 2>/dev/null || echo unknown)
VERSION_FLAG   := -DTHEMIS_VERSION='"$(THEMIS_VERSION)"'

ISA_SRCS := $(wildcard tests/isa/*.S)
ISA_ELFS := $(ISA_SRCS:tests/isa/%.S=build/isa/%.elf)

.PHONY: FORCE all guest test test-unit test-isa test-diff test-fuzz fuzz test-cli test-boot test-fork test-check test-lens test-repro test-612 bench format clean

all: build/themis build/asan/themis $(ISA_ELFS) guest

# The planted bugs tests/repro/test_repro.sh proves its reproducers on:
# only these get x86_64 kernels (each is built in a copy of the 1.5 GB tree).
X86_BUGS := ext4-link3 ext4-tail

# The guest side: kernels (riscv64 for the machine, Linux 6.1 and 6.12;
# x86_64 for the reproducers under QEMU), agent + initramfs, base disk
# images. Each script is incremental and returns at once when its output
# is up to date.
guest:
	scripts/build-kernel.sh build
	scripts/build-kernel.sh --version 6.12 build
	for bug in guest/bugs/*/; do scripts/build-kernel.sh --patch $$bug build || exit 1; done
	scripts/build-kernel.sh --arch x86_64 build
	for bug in $(X86_BUGS); do scripts/build-kernel.sh --arch x86_64 --patch guest/bugs/$$bug build || exit 1; done
	for fix in guest/fixes/*/; do scripts/build-kernel.sh --patch $$fix build || exit 1; done
	for fix in guest/fixes/*/6.12/; do scripts/build-kernel.sh --version 6.12 --patch $${fix%6.12/} build || exit 1; done
	for fix in guest/fixes/*/; do scripts/build-kernel.sh --arch x86_64 --patch $$fix build || exit 1; done
	scripts/build-initramfs.sh build
	scripts/mkimages.sh build

build/obj/%.o: src/%.c $(HDRS)
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) -c $< -o $@

build/asan/obj/%.o: src/%.c $(HDRS)
	@mkdir -p $(dir $@)
	$(CC) -std=c17 -Wall -Wextra -Werror -D_GNU_SOURCE $(SANFLAGS) -c $< -o $@

# The reproducer's fixed parts are built into repro.o (.incbin).
build/obj/check/repro.o build/asan/obj/check/repro.o: src/check/repro_prog.inc src/check/repro_sh.inc

build/version: FORCE
	@mkdir -p $(dir $@)
	@echo '$(THEMIS_VERSION)' | cmp -s - $@ || echo '$(THEMIS_VERSION)' >$@

build/themis: $(OBJS) $(MAIN) $(HDRS) build/version
	$(CC) $(CFLAGS) $(VERSION_FLAG) $(OBJS) $(MAIN) $(LDLIBS) -o $@

build/asan/themis: $(SAN_OBJS) $(MAIN) $(HDRS) build/version
	$(CC) -std=c17 -Wall -Wextra -Werror -D_GNU_SOURCE $(SANFLAGS) $(VERSION_FLAG) $(SAN_OBJS) $(MAIN) $(LDLIBS) -o $@

build/isa/%.elf: tests/isa/%.S $(wildcard tests/isa/*.h) tests/isa/link.ld
	@mkdir -p $(dir $@)
	$(RVCC) $(RVFLAGS) -I tests/isa -T tests/isa/link.ld $< -o $@

format:
	clang-format -i $(wildcard src/*/*.c src/*/*.h tests/*/*.c bench/*/*.c guest/agent/*.[ch] guest/bugs/*.c)

clean:
	rm -rf build

# The fuzzers, one file each, linked with the sanitizer build of every
# module. FUZZERS is the one list: test-fuzz runs each a little, fuzz
# (not part of test) FUZZ_ROUNDS times, a million by default.
FUZZERS := cpu virtio layout trace snapshot agent rules
FUZZ_BINS := $(FUZZERS:%=build/asan/fuzz_%)
FUZZ_ROUNDS ?= 1000000

build/asan/fuzz_%: tests/fuzz/fuzz_%.c tests/fuzz/fuzz.h $(SAN_OBJS) $(HDRS)
	$(CC) -std=c17 -Wall -Wextra -Werror -D_GNU_SOURCE $(SANFLAGS) -Isrc $< $(SAN_OBJS) $(LDLIBS) -o $@

test-fuzz: $(FUZZ_BINS)
	build/asan/fuzz_cpu 3000 1
	build/asan/fuzz_virtio 20000 1
	build/asan/fuzz_layout 1500 1
	build/asan/fuzz_trace 20000 1
	build/asan/fuzz_snapshot 1000 1
	build/asan/fuzz_agent 20000 1
	build/asan/fuzz_rules 20000 1

# Seeds start past the ones test-fuzz covers; `make -j2 fuzz` runs two
# fuzzers at a time.
fuzz: $(FUZZERS:%=fuzz-%)
fuzz-%: build/asan/fuzz_%
	@t0=$$(date +%s); build/asan/fuzz_$* $(FUZZ_ROUNDS) 1000001 && \
	  echo "fuzz_$*: $(FUZZ_ROUNDS) rounds in $$(( $$(date +%s) - t0 )) s"

UNIT_TESTS := $(patsubst tests/unit/%.c,build/asan/%,$(wildcard tests/unit/test_*.c))

# Unit tests link the sanitizer build of every module.
build/asan/test_%: tests/unit/test_%.c tests/unit/unit.h $(SAN_OBJS) $(HDRS)
	$(CC) -std=c17 -Wall -Wextra -Werror -D_GNU_SOURCE $(SANFLAGS) -Isrc $< $(SAN_OBJS) $(LDLIBS) -o $@

# test_share needs a Redis server: its script starts a throwaway one.
test-unit: $(UNIT_TESTS)
	@for t in $(filter-out build/asan/test_share,$(UNIT_TESTS)); do echo "== $$t"; $$t || exit 1; done
	@echo "== tests/unit/test_share.sh" && tests/unit/test_share.sh build/asan/test_share

test-cli: build/themis build/asan/themis
	tests/cli/test_cli.sh build/themis
	tests/cli/test_cli.sh build/asan/themis

test-isa: build/themis build/asan/themis $(ISA_ELFS)
	tests/isa/run.sh build/isa -- build/themis bare
	tests/isa/run.sh build/isa -- build/asan/themis bare

test-diff: build/themis
	tests/diff/run.sh --themis build/themis --no-qemu-quirks

build/test_fork: tests/fork/test_fork.c $(OBJS) $(HDRS)
	$(CC) $(CFLAGS) -Isrc $< $(OBJS) $(LDLIBS) -o $@

test-fork: build/test_fork guest
	build/test_fork build 1000
	build/test_fork build 200 1 build/guest/Image-6.12

build/test_crash: tests/check/test_crash.c $(OBJS) $(HDRS)
	$(CC) $(CFLAGS) -Isrc $< $(OBJS) $(LDLIBS) -o $@

test-check: build/themis build/test_crash guest
	build/test_crash build
	tests/check/test_crash.sh build
	tests/check/test_explore.sh build
	tests/check/test_time.sh build
	tests/check/test_replay.sh build
	tests/check/test_report.sh build
	tests/check/test_group.sh build
	tests/check/test_fsck.sh build
	tests/check/test_rules.sh build
	tests/check/test_scope.sh build
	tests/check/test_campaign.sh
	tests/check/test_kpair.sh build

# The lenses: every tests/lens/test_*.sh, each given the build folder.
test-lens: build/themis build/asan/themis guest
	@for t in tests/lens/test_*.sh; do [ -e "$$t" ] || continue; echo "== $$t"; $$t build || exit 1; done

# The reproducers, under qemu-system-x86_64 on the x86_64 kernels.
test-repro: build/themis guest
	tests/repro/test_repro.sh build

test-boot: build/themis build/asan/themis guest
	tests/boot/test_boot.sh build
	tests/boot/test_snapshot.sh build
	tests/boot/qemu_compare.sh build
	tests/boot/test_linux612.sh build

# The checker's and the lenses' tests again on Linux 6.12: themis and the
# C drivers boot $THEMIS_KERNEL when no --kernel is given. (test-boot
# boots 6.12 itself, test_linux612.sh; test-fork proves the fork on it.)
test-612: build/themis build/asan/themis build/test_crash guest
	THEMIS_KERNEL="$(CURDIR)/build/guest/Image-6.12" $(MAKE) --no-print-directory test-check test-lens

test: test-unit test-cli test-isa test-fuzz test-diff test-boot test-fork test-check test-lens test-repro test-612
	@echo "make test: all passed"

build/bench_fork: bench/fork/bench_fork.c $(OBJS) $(HDRS)
	$(CC) $(CFLAGS) -Isrc $< $(OBJS) $(LDLIBS) -o $@

build/bench_crash: bench/crash/bench_crash.c $(OBJS) $(HDRS)
	$(CC) $(CFLAGS) -Isrc $< $(OBJS) $(LDLIBS) -o $@

bench: build/themis build/bench_fork build/bench_crash guest
	bench/cpu/run.sh --themis build/themis
	bench/boot/run.sh --build build
	build/bench_fork build
	build/bench_crash build
	bench/check/run.sh --build build
	bench/check/replay.sh --build build
	bench/lens/run.sh --build build
