# Themis: build/themis (the emulator and checker), the guest it boots, the
# guest-side test programs, and the tests. `make` builds what the main job
# needs; `make test` runs the fast tier of the tests, `make test-full` all
# of them (tests/run, tests/README.md); `make all` builds everything.
CC       ?= gcc
CFLAGS   ?= -O2 -g
WFLAGS   := -std=c17 -Wall -Wextra -Werror -D_GNU_SOURCE
CFLAGS   += $(WFLAGS)
LDLIBS   := -lfdt -lxxhash -lhiredis -lext2fs -lcom_err -ljansson -lm
# The sanitizer build's flags, spelled once: every asan/ program uses them.
SANFLAGS := $(WFLAGS) -O1 -g -fsanitize=address,undefined -fno-omit-frame-pointer \
            -fno-sanitize-recover=all
# Each object's header dependencies, written by the compiler beside it.
DEPFLAGS := -MMD -MP

RVCC     := riscv64-linux-gnu-gcc
RVFLAGS  := -march=rv64gc -mabi=lp64d -mcmodel=medany -nostdlib -nostartfiles -static \
            -fno-pie -no-pie -Wl,--build-id=none

SRCS := $(wildcard src/cpu/*.c src/mem/*.c src/dev/*.c src/disk/*.c src/fs/*.c src/format/*.c src/machine/*.c src/check/*.c src/lens/*.c src/tools/*.c src/report/*.c)
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

.PHONY: FORCE main all programs guest guest-6.12 kernels test test-full fuzz bench format clean

# `make` (main): what the README's main job needs, the emulator and the
# guest it boots. `make all`: every program and every kernel there is.
.DEFAULT_GOAL := main
main: build/themis guest
all: programs guest guest-6.12 kernels


# The guest side. Each script is incremental and returns at once when its
# output is up to date. guest: the default kernel (Linux 6.1 for riscv64),
# the agent's initramfs and the base disk images; guest-6.12: Linux 6.12.
guest: build/themis build/lib/mkfs-fixed.so
	scripts/build-kernel.sh build
	scripts/build-initramfs.sh build
	scripts/mkimages.sh build

# The mkfs tools' clock and randomness made constants (preloaded by
# scripts/mkimages.sh), so an image is the same bytes on every machine.
build/lib/mkfs-fixed.so: src/mkfs/fixed_host.c
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) -shared -fPIC -o $@ $< -ldl
guest-6.12:
	scripts/build-kernel.sh --version 6.12 build

# kernels: every kernel variant (each planted bug and fix, on 6.1, on 6.12
# where the fix has a port, and for x86_64, the reproducers' architecture).
# The tests build the ones they boot on first use (tests/lib.sh's
# need_kernel); a variant of a built base takes seconds.
kernels: guest guest-6.12
	for d in guest/bugs/*/ guest/fixes/*/; do scripts/build-kernel.sh --patch $$d build || exit 1; done
	for d in guest/fixes/*/6.12/; do scripts/build-kernel.sh --version 6.12 --patch $${d%6.12/} build || exit 1; done
	scripts/build-kernel.sh --arch x86_64 build
	for d in guest/bugs/*/ guest/fixes/*/; do scripts/build-kernel.sh --arch x86_64 --patch $$d build || exit 1; done

build/obj/%.o: src/%.c
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) $(DEPFLAGS) -c $< -o $@

build/asan/obj/%.o: src/%.c
	@mkdir -p $(dir $@)
	$(CC) $(SANFLAGS) $(DEPFLAGS) -c $< -o $@

-include $(OBJS:.o=.d) $(SAN_OBJS:.o=.d)

# The checkers' libaio done at once (src/fsck/checker_aio.c), a library
# preloaded into each checker; built into corrupt_fsck.o (.incbin).
build/lib/checker-aio.so: src/fsck/checker_aio.c
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) -shared -fPIC -o $@ $<
build/obj/lens/corrupt_fsck.o build/asan/obj/lens/corrupt_fsck.o: build/lib/checker-aio.so

# The reproducer's fixed parts are built into repro.o (.incbin).
build/obj/check/repro.o build/asan/obj/check/repro.o: src/mkfs/fixed_host.c src/check/repro_prog.inc src/check/repro_sh.inc \
	src/check/repro_sh_setup.inc src/check/repro_crash_sh.inc src/proto/op_table.h \
	src/proto/op_grammar.h src/proto/op_run.h

build/version: FORCE
	@mkdir -p $(dir $@)
	@echo '$(THEMIS_VERSION)' | cmp -s - $@ || echo '$(THEMIS_VERSION)' >$@

build/themis: $(OBJS) $(MAIN) $(HDRS) build/version
	$(CC) $(CFLAGS) $(VERSION_FLAG) $(OBJS) $(MAIN) $(LDLIBS) -o $@

build/asan/themis: $(SAN_OBJS) $(MAIN) $(HDRS) build/version
	$(CC) $(SANFLAGS) $(VERSION_FLAG) $(SAN_OBJS) $(MAIN) $(LDLIBS) -o $@

build/isa/%.elf: tests/isa/%.S $(wildcard tests/isa/*.h) tests/isa/link.ld
	@mkdir -p $(dir $@)
	$(RVCC) $(RVFLAGS) -I tests/isa -T tests/isa/link.ld $< -o $@

format:
	clang-format -i $(wildcard src/*/*.c src/*/*.h tests/*/*.c bench/*/*.c guest/agent/*.[ch] guest/bugs/*.c)

clean:
	rm -rf build

# The fuzzers, one file each, linked with the sanitizer build of every
# module. FUZZERS is the one list of what is built: tests/fuzz/test_fuzz.sh
# runs each a little (its slice in the fast tier, ten times that in the
# full one), fuzz (not part of the tests) FUZZ_ROUNDS times, a million by
# default.
FUZZERS := cpu virtio layout trace snapshot agent rules
FUZZ_BINS := $(FUZZERS:%=build/asan/fuzz_%)
FUZZ_ROUNDS ?= 1000000

build/asan/fuzz_%: tests/fuzz/fuzz_%.c tests/fuzz/fuzz.h $(SAN_OBJS) $(HDRS)
	$(CC) $(SANFLAGS) -Isrc $< $(SAN_OBJS) $(LDLIBS) -o $@

# Seeds start past the ones the tests cover; `make -j2 fuzz` runs two
# fuzzers at a time.
fuzz: $(FUZZERS:%=fuzz-%)
fuzz-%: build/asan/fuzz_%
	@t0=$$(date +%s); build/asan/fuzz_$* $(FUZZ_ROUNDS) 1000001 && \
	  echo "fuzz_$*: $(FUZZ_ROUNDS) rounds in $$(( $$(date +%s) - t0 )) s"

UNIT_TESTS := $(patsubst tests/unit/%.c,build/asan/%,$(wildcard tests/unit/test_*.c))

# Unit tests link the sanitizer build of every module.
build/asan/test_%: tests/unit/test_%.c tests/unit/unit.h $(SAN_OBJS) $(HDRS)
	$(CC) $(SANFLAGS) -Isrc $< $(SAN_OBJS) $(LDLIBS) -o $@

build/test_fork: tests/fork/test_fork.c $(OBJS) $(HDRS)
	$(CC) $(CFLAGS) -Isrc $< $(OBJS) $(LDLIBS) -o $@

build/test_crash: tests/check/test_crash.c $(OBJS) $(HDRS)
	$(CC) $(CFLAGS) -Isrc $< $(OBJS) $(LDLIBS) -o $@

# The tests' programs: themis and its sanitizer twin, the ISA programs,
# the unit tests, the fuzzers and the C test drivers.
programs: build/themis build/asan/themis $(ISA_ELFS) $(UNIT_TESTS) $(FUZZ_BINS) \
	  build/test_fork build/test_crash

# The tests: tests/run finds every test file by glob and runs a tier, two
# at a time (tests/README.md lists them). `make test`, the README's test
# command: the fast tier, every property once on Linux 6.1 and the
# kernel-dependent ones on 6.12 too. `make test-full`: everything (the
# whole 6.12 pass, the x86_64 reproducers, every QEMU pair, the long fuzz
# slices). One test: tests/run --tier full NAME.
test: programs guest guest-6.12
	tests/run --tier fast

test-full: programs guest guest-6.12
	tests/run --tier full

build/bench_fork: bench/fork/bench_fork.c $(OBJS) $(HDRS)
	$(CC) $(CFLAGS) -Isrc $< $(OBJS) $(LDLIBS) -o $@

build/bench_crash: bench/crash/bench_crash.c $(OBJS) $(HDRS)
	$(CC) $(CFLAGS) -Isrc $< $(OBJS) $(LDLIBS) -o $@

bench: build/themis build/bench_fork build/bench_crash guest
	bench/cpu/run.sh --themis build/themis
	bench/boot/run.sh --build build
	bench/boot/run.sh --build build --work 3000
	build/bench_fork build
	build/bench_crash build
	bench/check/run.sh --build build
	bench/check/replay.sh --build build
	bench/lens/run.sh --build build
	bench/kernel/variant.sh build
