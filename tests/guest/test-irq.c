// SPDX-License-Identifier: MIT
/*
 * In-guest test of the driver's interrupt handling: with tgpu.ko bound,
 * provoke a channel error (INVALID_INSTANCE), a refused runlist and an MMU
 * fault (a bypass channel whose GPFIFO lies outside VRAM) by poking BAR0
 * (sysfs resource0), then check that the driver's handlers logged and
 * acknowledged them.  Also checks what the driver programmed at probe
 * (interrupt enables, MMU fault buffer).  The channel's instance block,
 * USERD and runlist live in a GEM object the test allocates.
 *
 * The driver holds BAR0, so the kernel must run with iomem=relaxed for
 * resource0 to be mappable (tgpu-vm: TGPU_VM_APPEND=iomem=relaxed).
 *
 *   test-irq [--sysfs=/sys/class/drm/renderD128/device]
 *            [--node=/dev/dri/renderD128]
 *
 * Output is TAP; the exit status is non-zero if any check failed.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/klog.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#include <sys/ioctl.h>

#include <tgpu_drm.h>
#include <tgpu/regs.h>
#include <tgpu/channel.h>
#include <tgpu/ecc.h>
#include <tgpu/mmu.h>
#include <tgpu/therm.h>

#include "guest-tap.h"


static volatile uint32_t *bar0;

static uint32_t rd(uint32_t reg)
{
	return bar0[reg / 4];
}

static void wr(uint32_t reg, uint32_t v)
{
	bar0[reg / 4] = v;
}

/* Poll until (reg & mask) == want, for up to a second. */
static bool wait_reg(uint32_t reg, uint32_t mask, uint32_t want)
{
	int i;

	for (i = 0; i < 1000; i++) {
		if ((rd(reg) & mask) == want)
			return true;
		usleep(1000);
	}
	return false;
}

/* Whether the kernel log has NEEDLE, waiting up to a second for it. */
static bool dmesg_has(const char *needle)
{
	static char buf[1 << 20];
	int i, n;

	for (i = 0; i < 1000; i++) {
		n = klogctl(3 /* SYSLOG_ACTION_READ_ALL */, buf, sizeof(buf) - 1);
		if (n < 0)
			return false;
		buf[n] = '\0';
		if (strstr(buf, needle))
			return true;
		usleep(1000);
	}
	return false;
}

/* Total of the /proc/interrupts row whose name starts with NAME. */
static long long irq_count(const char *name)
{
	char line[512], *p, *end;
	long long total = -1, v;
	FILE *f = fopen("/proc/interrupts", "r");

	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f)) {
		if (!strstr(line, name))
			continue;
		p = strchr(line, ':');
		if (!p)
			continue;
		total = 0;
		for (p++;; p = end) {
			v = strtoll(p, &end, 10);
			if (end == p)
				break;
			total += v;
		}
	}
	fclose(f);
	return total;
}

/*
 * Find the VRAM offset of a mapped object: it holds a nonce at its start,
 * and objects are at least page aligned.  Scans BAR1 (resource1).
 */
static int64_t find_in_vram(const char *sysfs, uint64_t nonce, uint64_t vram)
{
	char path[512];
	volatile uint64_t *bar1;
	uint64_t off;
	int64_t found = -1;
	int fd;

	snprintf(path, sizeof(path), "%s/resource1", sysfs);
	fd = open(path, O_RDWR | O_SYNC | O_CLOEXEC);
	if (fd < 0)
		return -1;
	bar1 = mmap(NULL, vram, PROT_READ, MAP_SHARED, fd, 0);
	close(fd);
	if (bar1 == MAP_FAILED)
		return -1;
	for (off = 0; off < vram; off += 4096) {
		if (bar1[off / 8] == nonce && bar1[off / 8 + 1] == ~nonce) {
			found = (int64_t)off;
			break;
		}
	}
	munmap((void *)bar1, vram);
	return found;
}

static void put32(volatile void *base, size_t off, uint32_t v)
{
	*(volatile uint32_t *)((volatile char *)base + off) = v;
}

static void put64(volatile void *base, size_t off, uint64_t v)
{
	*(volatile uint64_t *)((volatile char *)base + off) = v;
}

/* A bypass channel whose GPFIFO is outside VRAM: GPFIFO_FAULT + MMU fault. */
static void test_mmu_fault(const char *sysfs, const char *node)
{
	const unsigned int ch = 6;
	const uint64_t size = 64 << 10, bad_va = 3ull << 30;	/* > vram-size=1G */
	struct drm_tgpu_gem_create c = { .size = size };
	struct drm_tgpu_gem_mmap_offset m = { 0 };
	struct drm_tgpu_get_param vp = { .param = DRM_TGPU_PARAM_VRAM_SIZE };
	uint64_t nonce = 0x5447505549525121ull ^ (uint64_t)time(NULL);
	long long mmu0, mmu1;
	uint32_t err, get = 0, put = 0;
	bool failed;
	uint8_t blk[TGPU_INST_FIELDS_SIZE];
	char needle[160];
	int i;
	void *bo;
	int64_t off;
	int fd;

	fd = open(node, O_RDWR | O_CLOEXEC);
	if (!ok(fd >= 0 && ioctl(fd, DRM_IOCTL_TGPU_GET_PARAM, &vp) == 0 &&
		ioctl(fd, DRM_IOCTL_TGPU_GEM_CREATE, &c) == 0,
		"a GEM object for the channel's instance block and USERD"))
		return;
	m.handle = c.handle;
	bo = MAP_FAILED;
	if (ioctl(fd, DRM_IOCTL_TGPU_GEM_MMAP_OFFSET, &m) == 0)
		bo = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_SHARED, fd,
			  (off_t)m.offset);
	if (!ok(bo != MAP_FAILED, "map it"))
		return;
	memset(bo, 0, size);
	put64(bo, 0, nonce);
	put64(bo, 8, ~nonce);
	off = find_in_vram(sysfs, nonce, vp.value);
	if (!ok(off >= 0, "find it in VRAM through BAR1 (offset 0x%llx)",
		(long long)off))
		return;
	memset(bo, 0, 16);

	/* instance block at +0, USERD at +4 KiB, runlist at +8 KiB */
	tgpu_inst_encode(blk, &(struct tgpu_inst) {
		.flags = TGPU_INST_FLAGS_PRIV, .asid = 0x42,
		.gpfifo_base = bad_va, .gpfifo_log2 = 1,
		.engine = TGPU_RUNLIST_COMPUTE, .userd = (uint64_t)off + 4096,
	});
	memcpy(bo, blk, sizeof(blk));
	put32(bo, 8192, ch);

	mmu0 = irq_count("tgpu-mmu@");
	wr(TGPU_CHAN_REG(ch, TGPU_CHAN_INST), (uint32_t)((uint64_t)off >> 12));
	wr(TGPU_CHAN_REG(ch, TGPU_CHAN_CTRL), TGPU_CHAN_CTRL_ENABLE);
	wr(TGPU_FIFO_RUNLIST_BASE_LO(TGPU_RUNLIST_COMPUTE), (uint32_t)off + 8192);
	wr(TGPU_FIFO_RUNLIST_BASE_HI(TGPU_RUNLIST_COMPUTE), (uint32_t)((uint64_t)off >> 32));
	wr(TGPU_FIFO_RUNLIST_SUBMIT(TGPU_RUNLIST_COMPUTE), 1);
	ok(rd(TGPU_CHAN_REG(ch, TGPU_CHAN_STATUS)) & TGPU_CHAN_STATUS_ON_RUNLIST,
	   "channel %u enabled and on the compute runlist (status 0x%x)", ch,
	   rd(TGPU_CHAN_REG(ch, TGPU_CHAN_STATUS)));
	put32(bo, 4096 + TGPU_USERD_GP_PUT, 1);
	wr(TGPU_USERMODE_DOORBELL, ch);

	failed = wait_reg(TGPU_CHAN_REG(ch, TGPU_CHAN_STATUS),
			  TGPU_CHAN_STATE_MASK, TGPU_CHAN_STATE_ERROR);
	err = rd(TGPU_CHAN_REG(ch, TGPU_CHAN_ERROR));
	ok(failed && err == TGPU_ERR_GPFIFO_FAULT,
	   "the channel fails with GPFIFO_FAULT (error %u)", err);
	/* The handler acknowledges MMU_INTR, then drains, then writes GET. */
	for (i = 0; i < 1000; i++) {
		get = rd(TGPU_MMU_FAULT_BUF_GET);
		put = rd(TGPU_MMU_FAULT_BUF_PUT);
		if (put > 0 && get == put)
			break;
		usleep(1000);
	}
	ok(put > 0 && get == put,
	   "the driver drained the fault buffer (GET %u, PUT %u)", get, put);
	ok(!(rd(TGPU_MMU_INTR) & TGPU_MMU_INTR_FAULT),
	   "the driver acknowledged MMU_INTR.FAULT");
	snprintf(needle, sizeof(needle),
		 "MMU fault: BAD_APERTURE on read at 0x%010llx, asid 66, channel %u (no queue), engine host",
		 (unsigned long long)bad_va, ch);
	ok(dmesg_has(needle), "the driver logged \"%s\"", needle);
	ok(wait_reg(TGPU_FIFO_ERR_PENDING(0), 1u << ch, 0),
	   "and acknowledged the channel error");
	mmu1 = irq_count("tgpu-mmu@");
	ok(mmu0 >= 0 && mmu1 > mmu0, "the MMU vector fired (%lld -> %lld)", mmu0, mmu1);

	wr(TGPU_FIFO_RUNLIST_SUBMIT(TGPU_RUNLIST_COMPUTE), 0);
	wr(TGPU_CHAN_REG(ch, TGPU_CHAN_CTRL), TGPU_CHAN_CTRL_RESET);
	munmap(bo, size);
	close(fd);
}

int main(int argc, char **argv)
{
	const char *node = "/dev/dri/renderD128";
	const char *sysfs = "/sys/class/drm/renderD128/device";
	const unsigned int ch = 5;
	char path[512], needle[128];
	long long stall0, stall1;
	void *map;
	int fd, i;

	for (i = 1; i < argc; i++) {
		if (strncmp(argv[i], "--sysfs=", 8) == 0) {
			sysfs = argv[i] + 8;
		} else if (strncmp(argv[i], "--node=", 7) == 0) {
			node = argv[i] + 7;
		} else {
			fprintf(stderr, "usage: test-irq [--sysfs=PATH] [--node=PATH]\n");
			return 2;
		}
	}

	snprintf(path, sizeof(path), "%s/resource0", sysfs);
	fd = open(path, O_RDWR | O_SYNC | O_CLOEXEC);
	if (!ok(fd >= 0, "open %s", path)) {
		printf("Bail out! %s\n", strerror(errno));
		return 1;
	}
	map = mmap(NULL, TGPU_BAR0_SIZE, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	if (!ok(map != MAP_FAILED, "mmap BAR0")) {
		printf("Bail out! %s\n", strerror(errno));
		return 1;
	}
	bar0 = map;

	/* What the driver programmed at probe. */
	ok(rd(TGPU_PMC_INTR_EN) == (TGPU_INTR_FIFO | TGPU_INTR_NONSTALL | TGPU_INTR_MMU |
				    TGPU_INTR_ECC | TGPU_INTR_THERMAL),
	   "PMC_INTR_EN: FIFO, NONSTALL, MMU, ECC, THERMAL (0x%x)", rd(TGPU_PMC_INTR_EN));
	ok(rd(TGPU_THERM_INTR_EN) == TGPU_THERM_INTR_MASK,
	   "THERM_INTR_EN: HIGH, LOW, SLOWDOWN, SHUTDOWN (0x%x)", rd(TGPU_THERM_INTR_EN));
	ok(rd(TGPU_ECC_INTR_EN) == (TGPU_ECC_INTR_SBE | TGPU_ECC_INTR_DBE),
	   "ECC_INTR_EN: SBE, DBE (0x%x)", rd(TGPU_ECC_INTR_EN));
	ok(rd(TGPU_FIFO_INTR_EN) == (TGPU_FIFO_INTR_CHAN_ERROR | TGPU_FIFO_INTR_RUNLIST),
	   "FIFO_INTR_EN: CHAN_ERROR, RUNLIST");
	ok(rd(TGPU_FIFO_NONSTALL_INTR_EN) == 1, "FIFO_NONSTALL_INTR_EN");
	ok(rd(TGPU_MMU_INTR_EN) == (TGPU_MMU_INTR_FAULT | TGPU_MMU_INTR_OVERFLOW),
	   "MMU_INTR_EN: FAULT, OVERFLOW");
	ok(rd(TGPU_MMU_FAULT_BUF_SIZE) == 256, "MMU fault buffer: 256 records");
	ok(!(rd(TGPU_MMU_FAULT_BUF_LO) & TGPU_FAULT_BUF_SYSMEM) &&
	   !(rd(TGPU_MMU_FAULT_BUF_LO) & 0xfff),
	   "MMU fault buffer in VRAM, 4 KiB aligned (LO 0x%08x HI 0x%08x)",
	   rd(TGPU_MMU_FAULT_BUF_LO), rd(TGPU_MMU_FAULT_BUF_HI));

	stall0 = irq_count("tgpu-stall@");

	/* A channel error: an instance block far outside VRAM. */
	wr(TGPU_CHAN_REG(ch, TGPU_CHAN_INST), 0xfffff);
	wr(TGPU_CHAN_REG(ch, TGPU_CHAN_CTRL), TGPU_CHAN_CTRL_ENABLE);
	ok(wait_reg(TGPU_CHAN_REG(ch, TGPU_CHAN_STATUS), TGPU_CHAN_STATE_MASK,
		    TGPU_CHAN_STATE_ERROR), "channel %u is in ERROR", ch);
	ok(rd(TGPU_CHAN_REG(ch, TGPU_CHAN_ERROR)) == TGPU_ERR_INVALID_INSTANCE,
	   "... with INVALID_INSTANCE");
	ok(wait_reg(TGPU_FIFO_ERR_PENDING(0), 1u << ch, 0),
	   "the driver acknowledged FIFO_ERR_PENDING");
	ok(wait_reg(TGPU_FIFO_INTR, TGPU_FIFO_INTR_CHAN_ERROR, 0),
	   "FIFO_INTR.CHAN_ERROR is clear");
	snprintf(needle, sizeof(needle), "channel %u: error INVALID_INSTANCE (1, ", ch);
	ok(dmesg_has(needle) && dmesg_has("info 0xffffffff"),
	   "the driver logged \"%s...\", info 0xffffffff", needle);
	wr(TGPU_CHAN_REG(ch, TGPU_CHAN_CTRL), TGPU_CHAN_CTRL_RESET);
	ok(wait_reg(TGPU_CHAN_REG(ch, TGPU_CHAN_STATUS), TGPU_CHAN_STATE_MASK,
		    TGPU_CHAN_STATE_DISABLED), "channel %u reset", ch);

	/* A refused runlist: its base is outside VRAM. */
	wr(TGPU_FIFO_RUNLIST_BASE_LO(TGPU_RUNLIST_CE1), 0xfffff000);
	wr(TGPU_FIFO_RUNLIST_BASE_HI(TGPU_RUNLIST_CE1), 0xff);
	wr(TGPU_FIFO_RUNLIST_SUBMIT(TGPU_RUNLIST_CE1), 1);
	ok(rd(TGPU_FIFO_RUNLIST_STATUS(TGPU_RUNLIST_CE1)) & TGPU_RUNLIST_STATUS_ERROR,
	   "runlist %d refused", TGPU_RUNLIST_CE1);
	ok(wait_reg(TGPU_FIFO_INTR, TGPU_FIFO_INTR_RUNLIST, 0),
	   "the driver acknowledged FIFO_INTR.RUNLIST");
	snprintf(needle, sizeof(needle), "runlist %d: submission refused",
		 TGPU_RUNLIST_CE1);
	ok(dmesg_has(needle), "the driver logged \"%s\"", needle);

	stall1 = irq_count("tgpu-stall@");
	ok(stall0 >= 0 && stall1 >= stall0 + 2,
	   "the stall vector fired (%lld -> %lld)", stall0, stall1);

	test_mmu_fault(sysfs, node);

	ok(rd(TGPU_PMC_INTR) == 0, "nothing left pending in PMC_INTR (0x%x)",
	   rd(TGPU_PMC_INTR));

	munmap(map, TGPU_BAR0_SIZE);
	close(fd);
	return tap_done();
}
