# tgpu: the two commands are `make run` and `make check`.  Everything is
# built under build/; scripts/setup installs what is missing (as root).

BUILD   := $(CURDIR)/build
UMD     := $(BUILD)/umd
VM      := scripts/tgpu-vm

.PHONY: all setup qemu kernel kmd umd image run check checkpatch check-fresh check-sanitize check-debug-kernel fuzz soak bench shell clean distclean help

all: qemu kmd umd image

help:
	@echo "make run     build everything, boot the guest, run the demo"
	@echo "make check   build everything, run every test suite"
	@echo "make checkpatch    QEMU's checkpatch on hw/tgpu and the qtests, Linux's --strict on guest-kmd and tests/debug-kernel"
	@echo "make check-fresh   'make check' in a new minimal bookworm root (FRESH_TARGET=run: 'make run')"
	@echo "make check-sanitize   'make check' on a QEMU built with ASan and UBSan"
	@echo "make check-debug-kernel   the guest suite and the ioctl fuzzer on a lockdep+KASAN+UBSAN kernel"
	@echo "make fuzz    QEMU's generic fuzzer on tgpu for FUZZ_TIME seconds (600; SEED=1; FUZZ_TARGET=executor: the SIMT executor alone)"
	@echo "make soak    the funnel's layers in a loop with seeded faults for DURATION seconds (1800; SEED=1, SHARD=1/1)"
	@echo "make bench   run the benchmarks (build/bench/results.json)"
	@echo "make shell   an interactive guest shell (Ctrl-a c: QEMU monitor)"
	@echo "make qemu | kernel | kmd | umd | image   build one piece"
	@echo "make clean   remove build products (keeps downloads and ccache)"

setup:
	@scripts/setup

qemu: setup
	@scripts/build-qemu

kernel: setup
	@scripts/kernel-fetch

kmd: kernel
	@scripts/build-kmd

umd: setup
	@[ -f $(UMD)/build.ninja ] || meson setup $(UMD) --prefix=/usr \
		--libdir=lib/x86_64-linux-gnu --buildtype=debugoptimized >/dev/null
	@meson compile -C $(UMD) >$(UMD)/compile.log 2>&1 || \
		{ cat $(UMD)/compile.log; exit 1; }
	@DESTDIR=$(BUILD)/umd-install meson install -C $(UMD) --quiet \
		--only-changed >/dev/null

image: kmd umd
	@images/build-image

run: all
	@$(VM) run -- tgpu-demo

shell: all
	@$(VM) shell

check: all
	@scripts/check

# check on a QEMU built with AddressSanitizer and UBSan (build/qemu-sanitize)
check-sanitize: all
	@scripts/check-sanitize

# QEMU's generic fuzzer (libFuzzer, ASan, UBSan; clang-14) on tgpu, one
# core, FUZZ_TIME seconds; corpus, crashes and coverage under build/fuzz
FUZZ_TIME ?= 600
FUZZ_TARGET ?= generic
SEED ?= 1
fuzz:
	@scripts/setup clang-14 libclang-rt-14-dev llvm-14
	@FUZZ_TARGET=$(FUZZ_TARGET) FUZZ_TIME=$(FUZZ_TIME) SEED=$(SEED) scripts/fuzz

# The guest suite and the ioctl fuzzer (IOCTL_FUZZ_TIME, 1800 s) on a 6.12
# kernel built from linux-source-6.12 with lockdep, KASAN, UBSAN and fault
# injection (scripts/debug-kernel.config); not part of check: hours
check-debug-kernel: all
	@scripts/setup linux-source-6.12 libssl-dev
	@scripts/check-debug-kernel

# Layer 7 of the funnel: layers 1-3 and 6 in one guest, a seeded fault of
# every kind in turn aimed at a target process (tests/soak/tgpu-soak);
# SHARD=I/N runs this machine's part of a campaign split N ways
DURATION ?= 1800
SHARD ?= 1/1
KINDS ?=
soak: all
	@tests/soak/tgpu-soak --duration $(DURATION) --seed $(SEED) --shard $(SHARD) \
		$(if $(KINDS),--kinds $(KINDS))

# Each tree's own checker: QEMU's on hw/tgpu and the qtests, Linux's
# --strict on guest-kmd (scripts/checkpatch)
checkpatch: qemu
	@scripts/setup linux-source-6.12
	@scripts/checkpatch

# Needs nothing built here: it starts from a bare Debian root.
check-fresh:
	@scripts/check-fresh

bench: all
	@scripts/bench

clean:
	rm -rf $(BUILD)/qemu $(BUILD)/qemu-sanitize $(BUILD)/qemu-fuzz $(BUILD)/umd $(BUILD)/umd-install $(BUILD)/kmd \
		$(BUILD)/images $(BUILD)/debug

distclean:
	rm -rf $(BUILD)
