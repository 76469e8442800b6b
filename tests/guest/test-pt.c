// SPDX-License-Identifier: MIT
/*
 * In-guest test of how the driver writes page tables: with the kernel
 * channel (channel 0, copy engine 0) the entries of a VM_BIND/VM_UNBIND
 * are copied into the tables by the engine from a system-memory staging
 * buffer; without it (module parameter kchan=0) the CPU writes them.
 * Either way a freshly bound mapping must carry data byte-exact, and an
 * unbind must leave no stale translation behind: a copy the TLB had
 * translated before fails afterwards, and a new object bound at the same
 * VA gets the data, not the old one.  The counters in debugfs (channels,
 * the "channel 0" line) say which path was taken.  Meant for a guest
 * booted with --device-opts vram-size=1G:
 *
 *   test-pt [--node=PATH] [--fallback | --broken] [--bench=N]
 *
 * --fallback expects the CPU path (tgpu loaded with kchan=0).  --broken
 * resets channel 0 through BAR0 (sysfs resource0: the kernel needs
 * iomem=relaxed) just before the first VM_BIND, whose first submission
 * then times out (30 s): the CPU must write that submission's entries
 * again, and every later update, with the channel "broken".  --bench=N
 * only times N VM_BIND/VM_UNBIND pairs of a 256 MiB VRAM object at a VA
 * that is 4 KiB but not 2 MiB aligned (65,536 4 KiB entries), as TAP
 * comments.  Output is TAP; the exit status is non-zero if any check
 * failed.
 */
#include <dirent.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>

#include "guest-tap.h"
#include "guest-sysfs.h"
#include "tgpu-raw.h"

static const char *node = "/dev/dri/renderD128";

#define PB_VA		0x0000100000ull		/* 1 MiB */
#define PB_SIZE		0x10000u
#define SRC_VA		0x0040000000ull		/* 1 GiB */
#define SRC_SIZE	(2u << 20)
/* 4 KiB aligned, not 2 MiB aligned: 4 KiB entries only */
#define DST_VA		(0x0080000000ull + 0x1000)
#define DST_SIZE	(4u << 20)
#define BIG_VA		(0x0100000000ull + 0x1000)
#define BIG_SIZE	(256u << 20)
#define SYS_VA		0x0200000000ull
#define SYS_SIZE	(1u << 20)

/* ---- the kernel channel's counters in debugfs ---------------------------- */

struct kc_counters {
	bool found;
	char state[16];
	uint64_t pt_batches, pt_entries, pt_cpu_entries, pt_invalidations;
};

static char channels_path[128];

static uint64_t key_value(const char *line, const char *key)
{
	char pat[48];
	const char *p;

	snprintf(pat, sizeof(pat), " %s ", key);
	p = strstr(line, pat);
	return p ? strtoull(p + strlen(pat), NULL, 10) : UINT64_MAX;
}

static struct kc_counters kc_read(void)
{
	struct kc_counters c = { 0 };
	char line[512];
	FILE *f = fopen(channels_path, "r");
	const char *p;

	if (!f)
		return c;
	while (fgets(line, sizeof(line), f)) {
		if (strncmp(line, "channel 0 kernel ", 17))
			continue;
		p = strstr(line, " state ");
		if (p)
			sscanf(p + 7, "%15s", c.state);
		c.pt_batches = key_value(line, "pt_batches");
		c.pt_entries = key_value(line, "pt_entries");
		c.pt_cpu_entries = key_value(line, "pt_cpu_entries");
		c.pt_invalidations = key_value(line, "pt_invalidations");
		c.found = c.pt_batches != UINT64_MAX &&
			  c.pt_entries != UINT64_MAX &&
			  c.pt_cpu_entries != UINT64_MAX &&
			  c.pt_invalidations != UINT64_MAX;
	}
	fclose(f);
	return c;
}

/* Run one CE0 copy of @len bytes on @q; the fence's status. */
static int copy(int fd, uint32_t q, uint32_t *pb, uint64_t dst, uint64_t src,
		uint32_t len)
{
	return run_job(fd, q, PB_VA, pb_ce_copy(pb, dst, src, len));
}

static uint32_t pattern(uint32_t i, uint32_t seed)
{
	uint32_t x = (i + seed) * 0x9e3779b9u + 0x7f4a7c15u;

	return x ^ (x >> 15);
}

/* dwords of @p[0, n) that differ from pattern(from + i, seed) */
static uint32_t mismatches(const volatile uint32_t *p, uint32_t n,
			   uint32_t from, uint32_t seed)
{
	uint32_t i, bad = 0;

	for (i = 0; i < n; i++)
		if (p[i] != pattern(from + i, seed))
			bad++;
	return bad;
}

static bool all_zero(const volatile uint32_t *p, uint32_t n)
{
	uint32_t i;

	for (i = 0; i < n; i++)
		if (p[i])
			return false;
	return true;
}

static double now_ms(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return t.tv_sec * 1e3 + t.tv_nsec / 1e6;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

/* ---- the checks ----------------------------------------------------------- */

struct ctx {
	int fd;
	uint32_t q, pb_bo, src_bo;
	uint32_t *pb;
	volatile uint32_t *src;
	bool fallback, broken;
};

/*
 * Reset channel 0 behind the driver's back: it is disabled, so the
 * driver's next submission is never fetched and times out.
 */
static void break_kchan(void)
{
	volatile uint32_t *bar0;
	char path[128];
	int fd;

	node_device_path(node, "resource0", path, sizeof(path));
	fd = open(path, O_RDWR | O_SYNC | O_CLOEXEC);
	if (fd < 0)
		bail("cannot open BAR0 (resource0): is the kernel booted with iomem=relaxed?");
	bar0 = mmap(NULL, TGPU_BAR0_SIZE, PROT_READ | PROT_WRITE, MAP_SHARED,
		    fd, 0);
	close(fd);
	if (bar0 == MAP_FAILED)
		bail("cannot map BAR0");
	bar0[TGPU_CHAN_REG(0, TGPU_CHAN_CTRL) / 4] = TGPU_CHAN_CTRL_RESET;
	munmap((void *)bar0, TGPU_BAR0_SIZE);
}

/* A copy that must fault: it kills the queue, so make a new one. */
static int copy_faulting(struct ctx *c, uint64_t dst, uint32_t len)
{
	int status = copy(c->fd, c->q, c->pb, dst, SRC_VA, len);

	queue_destroy(c->fd, c->q);
	if (queue_create(c->fd, TGPU_RUNLIST_CE0, 0, &c->q))
		bail("QUEUE_CREATE failed");
	return status;
}

/* Did the entries of an operation go the way the mode says? */
static void check_path(const struct ctx *c, const struct kc_counters *a,
		       const struct kc_counters *b, uint64_t min_entries,
		       const char *what)
{
	uint64_t gpu = b->pt_entries - a->pt_entries;
	uint64_t cpu = b->pt_cpu_entries - a->pt_cpu_entries;
	uint64_t batches = b->pt_batches - a->pt_batches;

	if (c->fallback)
		ok(gpu == 0 && batches == 0 && cpu >= min_entries,
		   "%s: the CPU wrote the entries (cpu %" PRIu64 ", channel %" PRIu64 " in %" PRIu64 " batches, want >= %" PRIu64 " by the CPU)",
		   what, cpu, gpu, batches, min_entries);
	else
		ok(cpu == 0 && batches >= 1 && gpu >= min_entries,
		   "%s: the kernel channel wrote the entries (channel %" PRIu64 " in %" PRIu64 " batches, cpu %" PRIu64 ", want >= %" PRIu64 " by the channel)",
		   what, gpu, batches, cpu, min_entries);
}

/*
 * Bind a fresh object at a 4 KiB-page VA, copy into it, read it back;
 * unbind; the same copy must fault now (the TLB had its translation);
 * a second object bound at the same VA gets the next copy.
 */
static void test_round_trip(struct ctx *c)
{
	const uint32_t n = DST_SIZE / 4, len = (1u << 20) + 12;
	const uint64_t at = DST_VA + (2u << 20) - 0x3000;
	uint32_t a, b, off = (uint32_t)(at - DST_VA) / 4;
	volatile uint32_t *pa, *pb;
	struct kc_counters k0, k1, k2;
	int status, err;

	a = gem_create_flags(c->fd, DST_SIZE, 0);
	b = gem_create_flags(c->fd, DST_SIZE, 0);
	pa = gem_mmap(c->fd, a, DST_SIZE);
	pb = gem_mmap(c->fd, b, DST_SIZE);

	if (c->broken) {
		break_kchan();
		c->fallback = true;
	}
	k0 = kc_read();
	err = vm_bind(c->fd, a, 0, DST_VA, DST_SIZE, 0);
	k1 = kc_read();
	ok(err == 0, "VM_BIND 4 MiB at a 4 KiB-aligned VA (%s)", errname(err));
	if (c->broken)
		ok(strcmp(k1.state, "broken") == 0,
		   "its submission timed out: the kernel channel is broken (state %s)",
		   k1.state);
	/* 1024 PTEs, plus the directory entries of new tables */
	check_path(c, &k0, &k1, DST_SIZE / 4096, "VM_BIND of 4 MiB");

	status = copy(c->fd, c->q, c->pb, at, SRC_VA, len);
	ok(status == 1, "a CE0 copy of 1 MiB + 12 bytes into the fresh mapping, across a table boundary (status %d)",
	   status);
	ok(mismatches(pa + off, len / 4, 0, 1) == 0 && all_zero(pa, off) &&
	   all_zero(pa + off + len / 4, n - off - len / 4),
	   "the object holds it byte-exact, nothing written around it (%u dwords wrong)",
	   mismatches(pa + off, len / 4, 0, 1));

	k1 = kc_read();
	err = vm_unbind(c->fd, DST_VA, DST_SIZE);
	k2 = kc_read();
	ok(err == 0, "VM_UNBIND it (%s)", errname(err));
	check_path(c, &k1, &k2, DST_SIZE / 4096, "VM_UNBIND of 4 MiB");
	ok(k1.pt_invalidations == k0.pt_invalidations &&
	   k2.pt_invalidations - k1.pt_invalidations == !c->fallback,
	   "%s (bind %" PRIu64 ", unbind %" PRIu64 ")",
	   c->fallback ? "no TLB invalidation by the channel: by register" :
	   "the unbind's TLB invalidation is the channel's, after its fills; the bind has none",
	   k1.pt_invalidations - k0.pt_invalidations,
	   k2.pt_invalidations - k1.pt_invalidations);

	memset((void *)pa, 0, DST_SIZE);
	status = copy_faulting(c, at, len);
	ok(status == -EIO && all_zero(pa, n),
	   "the same copy after VM_UNBIND fails with -EIO (status %d), nothing reaches the old object",
	   status);

	err = vm_bind(c->fd, b, 0, DST_VA, DST_SIZE, 0);
	ok(err == 0, "VM_BIND another object at the same VA (%s)", errname(err));
	status = copy(c->fd, c->q, c->pb, at, SRC_VA, len);
	ok(status == 1 && mismatches(pb + off, len / 4, 0, 1) == 0 &&
	   all_zero(pa, n),
	   "a copy lands in the new object byte-exact, not in the old one (status %d)",
	   status);
	vm_unbind(c->fd, DST_VA, DST_SIZE);
	munmap((void *)pa, DST_SIZE);
	munmap((void *)pb, DST_SIZE);
	gem_close(c->fd, a);
	gem_close(c->fd, b);
}

/* A system-memory object: 4 KiB entries of the system-memory aperture. */
static void test_sysmem(struct ctx *c)
{
	uint32_t s = gem_create_flags(c->fd, SYS_SIZE,
				      DRM_TGPU_GEM_CREATE_SYSMEM);
	volatile uint32_t *p = gem_mmap(c->fd, s, SYS_SIZE);
	struct kc_counters k0, k1;
	int err, status;

	k0 = kc_read();
	err = vm_bind(c->fd, s, 0, SYS_VA, SYS_SIZE, 0);
	k1 = kc_read();
	ok(err == 0, "VM_BIND a 1 MiB SYSMEM object (%s)", errname(err));
	check_path(c, &k0, &k1, SYS_SIZE / 4096, "VM_BIND of SYSMEM");
	status = copy(c->fd, c->q, c->pb, SYS_VA + 4, SRC_VA, SYS_SIZE - 8);
	ok(status == 1 && mismatches(p + 1, SYS_SIZE / 4 - 2, 0, 1) == 0 &&
	   p[0] == 0 && p[SYS_SIZE / 4 - 1] == 0,
	   "a CE0 copy into it is byte-exact (status %d)", status);
	vm_unbind(c->fd, SYS_VA, SYS_SIZE);
	munmap((void *)p, SYS_SIZE);
	gem_close(c->fd, s);
}

/*
 * 256 MiB at a 4 KiB-page VA: 65,536 entries, 16 staging batches of
 * 4,096 and more.  Copies at its start, on both sides of a batch
 * boundary (16 MiB) and at its end must land.
 */
static void test_big(struct ctx *c)
{
	static const uint32_t at[] = {
		0, (16u << 20) - 0x800, BIG_SIZE - 0x1000,
	};
	uint32_t bo = gem_create_flags(c->fd, BIG_SIZE, 0), i, bad = 0;
	volatile uint32_t *p = gem_mmap(c->fd, bo, BIG_SIZE);
	struct kc_counters k0, k1;
	int err, status = 1;

	k0 = kc_read();
	err = vm_bind(c->fd, bo, 0, BIG_VA, BIG_SIZE, 0);
	k1 = kc_read();
	ok(err == 0, "VM_BIND 256 MiB at a 4 KiB-aligned VA (%s)", errname(err));
	check_path(c, &k0, &k1, BIG_SIZE / 4096, "VM_BIND of 256 MiB");
	if (!c->fallback)
		ok(k1.pt_batches - k0.pt_batches >= BIG_SIZE / 4096 / 4096,
		   "it took at least 16 batches of the staging buffer (%" PRIu64 ")",
		   k1.pt_batches - k0.pt_batches);
	for (i = 0; i < 3 && status == 1; i++) {
		status = copy(c->fd, c->q, c->pb, BIG_VA + at[i], SRC_VA,
			      0x1000);
		bad += mismatches(p + at[i] / 4, 0x400, 0, 1);
	}
	ok(status == 1 && bad == 0,
	   "copies at its start, across 16 MiB and at its end are byte-exact (status %d, %u dwords wrong)",
	   status, bad);
	k0 = kc_read();
	err = vm_unbind(c->fd, BIG_VA, BIG_SIZE);
	k1 = kc_read();
	ok(err == 0, "VM_UNBIND 256 MiB (%s)", errname(err));
	check_path(c, &k0, &k1, BIG_SIZE / 4096, "VM_UNBIND of 256 MiB");
	status = copy_faulting(c, BIG_VA + BIG_SIZE - 0x1000, 0x1000);
	ok(status == -EIO, "a copy to its last page afterwards fails with -EIO (status %d)",
	   status);
	munmap((void *)p, BIG_SIZE);
	gem_close(c->fd, bo);
}

static int bench(int fd, unsigned int n)
{
	uint32_t bo = gem_create_flags(fd, BIG_SIZE, 0);
	double bind[64], unbind[64], t;
	unsigned int i;
	int err = 0;

	if (n > 64)
		n = 64;
	for (i = 0; i < n && !err; i++) {
		t = now_ms();
		err = vm_bind(fd, bo, 0, BIG_VA, BIG_SIZE, 0);
		bind[i] = now_ms() - t;
		t = now_ms();
		err = err ? err : vm_unbind(fd, BIG_VA, BIG_SIZE);
		unbind[i] = now_ms() - t;
	}
	if (!ok(err == 0, "%u VM_BIND/VM_UNBIND pairs of 256 MiB at a 4 KiB-aligned VA (%s)",
		n, errname(err)))
		return tap_done();
	for (i = 0; i < n; i++)
		printf("# run %u: bind %.1f ms, unbind %.1f ms\n", i,
		       bind[i], unbind[i]);
	qsort(bind, n, sizeof(bind[0]), cmp_double);
	qsort(unbind, n, sizeof(unbind[0]), cmp_double);
	printf("# pt.bind_256m_4k_ms %.1f (median of %u; min %.1f max %.1f)\n",
	       bind[n / 2], n, bind[0], bind[n - 1]);
	printf("# pt.unbind_256m_4k_ms %.1f (median of %u; min %.1f max %.1f)\n",
	       unbind[n / 2], n, unbind[0], unbind[n - 1]);
	gem_close(fd, bo);
	return tap_done();
}

int main(int argc, char **argv)
{
	struct kc_counters k;
	unsigned int nbench = 0;
	struct ctx c = { 0 };
	struct stat st;
	char dir[64];
	int i, err;

	for (i = 1; i < argc; i++) {
		if (strncmp(argv[i], "--node=", 7) == 0) {
			node = argv[i] + 7;
		} else if (strcmp(argv[i], "--fallback") == 0) {
			c.fallback = true;
		} else if (strcmp(argv[i], "--broken") == 0) {
			c.broken = true;
		} else if (strncmp(argv[i], "--bench=", 8) == 0) {
			nbench = strtoul(argv[i] + 8, NULL, 0);
		} else {
			fprintf(stderr, "usage: test-pt [--node=PATH] [--fallback | --broken] [--bench=N]\n");
			return 2;
		}
	}

	c.fd = open(node, O_RDWR | O_CLOEXEC);
	if (c.fd < 0 || fstat(c.fd, &st))
		bail("cannot open the render node");
	if (nbench)
		return bench(c.fd, nbench);
	node_debugfs_dir(node, dir, sizeof(dir));
	snprintf(channels_path, sizeof(channels_path), "%s/channels", dir);

	k = kc_read();
	if (!ok(k.found, "debugfs channels has the kernel channel's pt_batches, pt_entries, pt_cpu_entries, pt_invalidations"))
		bail("no counters in debugfs: is debugfs mounted?");
	if (c.fallback)
		ok(strcmp(k.state, "none") == 0,
		   "with kchan=0 there is no kernel channel (state %s)", k.state);
	else
		ok(strcmp(k.state, "running") == 0,
		   "the kernel channel is running (state %s)", k.state);

	c.pb_bo = gem_create_flags(c.fd, PB_SIZE, 0);
	c.src_bo = gem_create_flags(c.fd, SRC_SIZE, 0);
	c.pb = gem_mmap(c.fd, c.pb_bo, PB_SIZE);
	c.src = gem_mmap(c.fd, c.src_bo, SRC_SIZE);
	for (i = 0; i < (int)(SRC_SIZE / 4); i++)
		c.src[i] = pattern(i, 1);
	err = vm_bind(c.fd, c.pb_bo, 0, PB_VA, PB_SIZE, 0);
	err = err ? err : vm_bind(c.fd, c.src_bo, 0, SRC_VA, SRC_SIZE, 0);
	err = err ? err : queue_create(c.fd, TGPU_RUNLIST_CE0, 0, &c.q);
	if (err)
		bail("VM_BIND/QUEUE_CREATE of the fixture failed");

	test_round_trip(&c);
	test_sysmem(&c);
	test_big(&c);

	queue_destroy(c.fd, c.q);
	close(c.fd);
	return tap_done();
}
