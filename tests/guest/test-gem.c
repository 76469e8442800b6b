// SPDX-License-Identifier: MIT
/*
 * In-guest test of buffer objects: DRM_IOCTL_TGPU_GEM_CREATE and
 * DRM_IOCTL_TGPU_GEM_MMAP_OFFSET through raw ioctls, CPU mappings of BAR1
 * (VRAM objects) and of shmem pages (DRM_TGPU_GEM_CREATE_SYSMEM), the
 * error cases of both ioctls, and VRAM accounting (PARAM_VRAM_USED).
 * Meant for a guest booted with --device-opts vram-size=1G:
 *
 *   test-gem [--node=PATH]
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
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <unistd.h>

#include <tgpu_drm.h>

#include "guest-tap.h"

/* ---- raw uAPI ------------------------------------------------------------- */

static const char *node = "/dev/dri/renderD128";

/* Raw ioctl: the test wants errno as the kernel set it (0 on success). */
static int xioctl(int fd, unsigned long req, void *arg)
{
	int r;

	do {
		r = ioctl(fd, req, arg);
	} while (r < 0 && (errno == EINTR || errno == EAGAIN));
	return r < 0 ? errno : 0;
}

static int gem_create_flags(int fd, uint64_t size, uint32_t flags,
			    uint32_t *handle)
{
	struct drm_tgpu_gem_create c = { .size = size, .flags = flags };
	int err = xioctl(fd, DRM_IOCTL_TGPU_GEM_CREATE, &c);

	if (!err)
		*handle = c.handle;
	return err;
}

static int gem_create(int fd, uint64_t size, uint32_t *handle)
{
	return gem_create_flags(fd, size, 0, handle);
}

static int gem_close(int fd, uint32_t handle)
{
	struct drm_gem_close c = { .handle = handle };

	return xioctl(fd, DRM_IOCTL_GEM_CLOSE, &c);
}

static int gem_mmap_offset(int fd, uint32_t handle, uint64_t *offset)
{
	struct drm_tgpu_gem_mmap_offset m = { .handle = handle };
	int err = xioctl(fd, DRM_IOCTL_TGPU_GEM_MMAP_OFFSET, &m);

	if (!err)
		*offset = m.offset;
	return err;
}

static void *gem_mmap(int fd, uint32_t handle, size_t size)
{
	uint64_t offset;
	void *p;

	if (gem_mmap_offset(fd, handle, &offset))
		return NULL;
	p = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_SHARED, fd,
		 (off_t)offset);
	return p == MAP_FAILED ? NULL : p;
}

static uint64_t vram_used(int fd)
{
	struct drm_tgpu_get_param p = { .param = DRM_TGPU_PARAM_VRAM_USED };

	if (xioctl(fd, DRM_IOCTL_TGPU_GET_PARAM, &p))
		bail("GET_PARAM(VRAM_USED) failed");
	return p.value;
}

static uint64_t vram_size(int fd)
{
	struct drm_tgpu_get_param p = { .param = DRM_TGPU_PARAM_VRAM_SIZE };

	if (xioctl(fd, DRM_IOCTL_TGPU_GET_PARAM, &p))
		bail("GET_PARAM(VRAM_SIZE) failed");
	return p.value;
}

/* ---- data patterns -------------------------------------------------------- */

static uint64_t pattern(uint64_t seed, size_t i)
{
	uint64_t x = seed ^ (i * 0x9e3779b97f4a7c15ull);

	x ^= x >> 31;
	x *= 0xbf58476d1ce4e5b9ull;
	return x ^ (x >> 29);
}

static void fill(volatile uint64_t *p, size_t size, uint64_t seed)
{
	size_t i;

	for (i = 0; i < size / 8; i++)
		p[i] = pattern(seed, i);
}

/* Index of the first word that differs, or SIZE_MAX. */
static size_t check(const volatile uint64_t *p, size_t size, uint64_t seed)
{
	size_t i;

	for (i = 0; i < size / 8; i++)
		if (p[i] != pattern(seed, i))
			return i;
	return SIZE_MAX;
}

static bool all_zero(const volatile uint64_t *p, size_t size)
{
	size_t i;

	for (i = 0; i < size / 8; i++)
		if (p[i])
			return false;
	return true;
}

/* ---- tests ---------------------------------------------------------------- */

static void test_sizes(int fd)
{
	static const uint64_t sizes[] = {
		4096, 8192, 12288, 65536, 1 << 20, (1 << 20) + 4096,
		3 << 20, 16 << 20, 64 << 20,
	};
	size_t i, bad;

	for (i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++) {
		uint64_t size = sizes[i], base = vram_used(fd);
		uint32_t h = 0;
		void *p;
		int err;

		err = gem_create(fd, size, &h);
		if (!ok(!err, "GEM_CREATE %" PRIu64 " KiB: %s", size >> 10,
			strerror(err)))
			continue;
		ok(vram_used(fd) == base + size,
		   "%" PRIu64 " KiB: VRAM_USED grows by the size", size >> 10);
		p = gem_mmap(fd, h, size);
		if (ok(p != NULL, "%" PRIu64 " KiB: mmap", size >> 10)) {
			ok(all_zero(p, size), "%" PRIu64 " KiB: a new object reads as zeros",
			   size >> 10);
			fill(p, size, size);
			bad = check(p, size, size);
			ok(bad == SIZE_MAX, "%" PRIu64 " KiB: write, read back byte-exact%s",
			   size >> 10, bad == SIZE_MAX ? "" : " (mismatch)");
			munmap(p, size);
		}
		/* A second mapping of the same object sees the same bytes. */
		p = gem_mmap(fd, h, size);
		if (p) {
			ok(check(p, size, size) == SIZE_MAX,
			   "%" PRIu64 " KiB: a new mapping sees the data", size >> 10);
			munmap(p, size);
		}
		ok(gem_close(fd, h) == 0, "%" PRIu64 " KiB: GEM_CLOSE", size >> 10);
		ok(vram_used(fd) == base, "%" PRIu64 " KiB: VRAM_USED back after close",
		   size >> 10);
	}
}

static void test_size_rounding(int fd)
{
	struct drm_tgpu_gem_create c = { .size = 1 };

	ok(xioctl(fd, DRM_IOCTL_TGPU_GEM_CREATE, &c) == 0 && c.size == 4096,
	   "GEM_CREATE of 1 byte gives a 4096-byte object (size is in/out)");
	if (c.handle)
		gem_close(fd, c.handle);
}

static void test_no_alias(int fd)
{
	const size_t size = 1 << 20;
	uint32_t a = 0, b = 0;
	uint64_t oa = 0, ob = 0;
	void *pa, *pb;

	if (!ok(gem_create(fd, size, &a) == 0 && gem_create(fd, size, &b) == 0 && a != b,
		"two objects get distinct handles"))
		return;
	ok(gem_mmap_offset(fd, a, &oa) == 0 && gem_mmap_offset(fd, b, &ob) == 0 &&
	   oa != ob, "two objects get distinct mmap offsets");
	pa = gem_mmap(fd, a, size);
	pb = gem_mmap(fd, b, size);
	if (ok(pa && pb, "both objects map")) {
		fill(pa, size, 0xaaaa);
		fill(pb, size, 0xbbbb);
		ok(check(pa, size, 0xaaaa) == SIZE_MAX &&
		   check(pb, size, 0xbbbb) == SIZE_MAX,
		   "writing one object does not change the other");
	}
	if (pa)
		munmap(pa, size);
	if (pb)
		munmap(pb, size);
	gem_close(fd, a);
	gem_close(fd, b);
}

static void test_bad_args(int fd)
{
	static const struct {
		const char *what;
		struct drm_tgpu_gem_create c;
		int err;
	} creates[] = {
		{ "size 0", { .size = 0 }, EINVAL },
		{ "flags 2", { .size = 4096, .flags = 2 }, EINVAL },
		{ "flags SYSMEM | 2",
		  { .size = 4096, .flags = DRM_TGPU_GEM_CREATE_SYSMEM | 2 }, EINVAL },
		{ "flags 0x80000000", { .size = 4096, .flags = 0x80000000u }, EINVAL },
		{ "size UINT64_MAX (not page-representable)", { .size = UINT64_MAX }, EINVAL },
		{ "size UINT64_MAX - 4094 (not page-representable)",
		  { .size = UINT64_MAX - 4094 }, EINVAL },
		{ "size UINT64_MAX - 4095 (page-aligned, more than VRAM)",
		  { .size = UINT64_MAX - 4095 }, E2BIG },
		{ "size 1 TiB (more than VRAM)", { .size = 1ull << 40 }, E2BIG },
		{ "size 2^63", { .size = 1ull << 63 }, E2BIG },
	};
	static const struct {
		const char *what;
		struct drm_tgpu_gem_mmap_offset m;
		int err;
	} offsets[] = {
		{ "handle 0", { .handle = 0 }, ENOENT },
		{ "unknown handle", { .handle = 0x7fffffff }, ENOENT },
		{ "pad 1", { .handle = 1, .pad = 1 }, EINVAL },
	};
	struct drm_tgpu_gem_create c;
	struct drm_tgpu_gem_mmap_offset m;
	uint64_t base = vram_used(fd), size = vram_size(fd), big;
	uint32_t h = 0, h2 = 0;
	int fd2, err;
	size_t i;

	for (i = 0; i < sizeof(creates) / sizeof(creates[0]); i++) {
		c = creates[i].c;
		err = xioctl(fd, DRM_IOCTL_TGPU_GEM_CREATE, &c);
		ok(err == creates[i].err, "GEM_CREATE %s: %s (want %s)",
		   creates[i].what, strerror(err), strerror(creates[i].err));
	}
	for (i = 0; i < sizeof(offsets) / sizeof(offsets[0]); i++) {
		m = offsets[i].m;
		err = xioctl(fd, DRM_IOCTL_TGPU_GEM_MMAP_OFFSET, &m);
		ok(err == offsets[i].err, "GEM_MMAP_OFFSET %s: %s (want %s)",
		   offsets[i].what, strerror(err), strerror(offsets[i].err));
	}
	ok(vram_used(fd) == base, "failed creates leave VRAM_USED unchanged");

	/* Out of VRAM now (but not too big for VRAM): -ENOSPC. */
	big = size / 2;
	if (ok(gem_create(fd, big, &h) == 0, "GEM_CREATE half of VRAM")) {
		err = gem_create(fd, big, &h2);
		ok(err == ENOSPC, "a second half of VRAM does not fit: %s (want %s)",
		   strerror(err), strerror(ENOSPC));
		if (!err)
			gem_close(fd, h2);
		gem_close(fd, h);
	}
	ok(vram_used(fd) == base, "VRAM_USED back to the baseline");

	/* Handles are per file: another open file does not see ours. */
	fd2 = open(node, O_RDWR | O_CLOEXEC);
	if (!ok(fd2 >= 0, "open %s a second time", node))
		return;
	if (gem_create(fd, 4096, &h) == 0) {
		uint64_t off = 0;
		void *p;

		m = (struct drm_tgpu_gem_mmap_offset){ .handle = h };
		err = xioctl(fd2, DRM_IOCTL_TGPU_GEM_MMAP_OFFSET, &m);
		ok(err == ENOENT, "GEM_MMAP_OFFSET of another file's handle: %s (want %s)",
		   strerror(err), strerror(ENOENT));
		err = gem_close(fd2, h);
		ok(err == EINVAL, "GEM_CLOSE of another file's handle: %s (want %s)",
		   strerror(err), strerror(EINVAL));
		/* The fake offset is only good on a file that has the object. */
		if (gem_mmap_offset(fd, h, &off) == 0) {
			p = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_SHARED,
				 fd2, (off_t)off);
			err = p == MAP_FAILED ? errno : 0;
			ok(err == EACCES, "mmap of another file's offset: %s (want %s)",
			   strerror(err), strerror(EACCES));
			if (p != MAP_FAILED)
				munmap(p, 4096);
			p = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE,
				 fd, (off_t)off);
			err = p == MAP_FAILED ? errno : 0;
			ok(err == EINVAL, "MAP_PRIVATE mapping is refused: %s (want %s)",
			   strerror(err), strerror(EINVAL));
			if (p != MAP_FAILED)
				munmap(p, 4096);
			p = mmap(NULL, 8192, PROT_READ | PROT_WRITE, MAP_SHARED,
				 fd, (off_t)off);
			err = p == MAP_FAILED ? errno : 0;
			ok(err == EINVAL, "mapping past the object's end is refused: %s (want %s)",
			   strerror(err), strerror(EINVAL));
			if (p != MAP_FAILED)
				munmap(p, 8192);
		}
		gem_close(fd, h);
	}
	close(fd2);
}

static void test_mmap_outlives_handle(int fd)
{
	const size_t size = 256 << 10;
	uint64_t base = vram_used(fd);
	uint32_t h = 0;
	void *p;

	if (gem_create(fd, size, &h))
		return;
	p = gem_mmap(fd, h, size);
	if (!ok(p != NULL, "map an object, then close its handle")) {
		gem_close(fd, h);
		return;
	}
	fill(p, size / 2, 7);	/* half faulted in before the close */
	ok(gem_close(fd, h) == 0, "GEM_CLOSE with the object mapped");
	ok(vram_used(fd) == base + size, "the mapping keeps the object's VRAM");
	fill((uint64_t *)p + size / 16, size / 2, 8);	/* the rest after */
	ok(check(p, size / 2, 7) == SIZE_MAX &&
	   check((uint64_t *)p + size / 16, size / 2, 8) == SIZE_MAX,
	   "the mapping stays usable after the handle is closed");
	munmap(p, size);
	ok(vram_used(fd) == base, "munmap frees the object: VRAM_USED back");
}

static void test_cycles(int fd)
{
	const unsigned int cycles = 10000;
	uint64_t base = vram_used(fd);
	unsigned int i, failed = 0;
	uint32_t h;

	for (i = 0; i < cycles; i++) {
		if (gem_create(fd, 4096u << (i % 8), &h) || gem_close(fd, h))
			failed++;
	}
	ok(failed == 0, "%u create/close cycles (4 KiB to 512 KiB), %u failed",
	   cycles, failed);
	ok(vram_used(fd) == base, "VRAM_USED back to the baseline after %u cycles",
	   cycles);
}

/* ---- system-memory objects ------------------------------------------------ */

/*
 * A /proc/meminfo field, in KiB (0 if missing).  The per-CPU counters are
 * folded in first (vm/stat_refresh, root only), so small changes show.
 */
static uint64_t meminfo_kib(const char *field)
{
	char line[256];
	size_t n = strlen(field);
	uint64_t v = 0;
	FILE *f = fopen("/proc/sys/vm/stat_refresh", "w");

	if (f) {
		fputs("1\n", f);
		fclose(f);
	}
	f = fopen("/proc/meminfo", "r");
	if (!f)
		return 0;
	while (fgets(line, sizeof(line), f)) {
		if (strncmp(line, field, n) == 0 && line[n] == ':') {
			v = strtoull(line + n + 1, NULL, 10);
			break;
		}
	}
	fclose(f);
	return v;
}

static void test_sysmem_sizes(int fd)
{
	static const uint64_t sizes[] = {
		4096, 12288, 65536, (1 << 20) + 4096, 3 << 20, 16 << 20,
		64 << 20,
	};
	size_t i, bad;

	for (i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++) {
		uint64_t size = sizes[i], base = vram_used(fd);
		uint64_t shmem0 = meminfo_kib("Shmem"), shmem1;
		uint32_t h = 0;
		void *p;
		int err;

		err = gem_create_flags(fd, size, DRM_TGPU_GEM_CREATE_SYSMEM, &h);
		if (!ok(!err, "GEM_CREATE SYSMEM %" PRIu64 " KiB: %s", size >> 10,
			strerror(err)))
			continue;
		shmem1 = meminfo_kib("Shmem");
		ok(vram_used(fd) == base && shmem1 >= shmem0 + (size >> 10),
		   "SYSMEM %" PRIu64 " KiB: VRAM_USED unchanged, Shmem grows by at least the size (%" PRIu64 " KiB)",
		   size >> 10, shmem1 - shmem0);
		p = gem_mmap(fd, h, size);
		if (ok(p != NULL, "SYSMEM %" PRIu64 " KiB: mmap", size >> 10)) {
			ok(all_zero(p, size), "SYSMEM %" PRIu64 " KiB: a new object reads as zeros",
			   size >> 10);
			fill(p, size, ~size);
			bad = check(p, size, ~size);
			ok(bad == SIZE_MAX, "SYSMEM %" PRIu64 " KiB: write, read back byte-exact%s",
			   size >> 10, bad == SIZE_MAX ? "" : " (mismatch)");
			munmap(p, size);
		}
		p = gem_mmap(fd, h, size);
		if (p) {
			ok(check(p, size, ~size) == SIZE_MAX,
			   "SYSMEM %" PRIu64 " KiB: a new mapping sees the data", size >> 10);
			munmap(p, size);
		}
		ok(gem_close(fd, h) == 0, "SYSMEM %" PRIu64 " KiB: GEM_CLOSE", size >> 10);
		shmem1 = meminfo_kib("Shmem");
		ok(shmem1 <= shmem0 + 64,
		   "SYSMEM %" PRIu64 " KiB: Shmem back after close (%" PRIu64 " -> %" PRIu64 " KiB)",
		   size >> 10, shmem0, shmem1);
	}
}

static void test_sysmem_mixed(int fd)
{
	const size_t size = 1 << 20;
	uint32_t v = 0, s = 0;
	struct drm_tgpu_gem_create c = {
		.size = 5, .flags = DRM_TGPU_GEM_CREATE_SYSMEM,
	};
	void *pv, *ps;

	ok(xioctl(fd, DRM_IOCTL_TGPU_GEM_CREATE, &c) == 0 && c.size == 4096,
	   "GEM_CREATE SYSMEM of 5 bytes gives a 4096-byte object");
	if (c.handle)
		gem_close(fd, c.handle);

	if (!ok(gem_create(fd, size, &v) == 0 &&
		gem_create_flags(fd, size, DRM_TGPU_GEM_CREATE_SYSMEM, &s) == 0,
		"a VRAM and a SYSMEM object side by side"))
		return;
	pv = gem_mmap(fd, v, size);
	ps = gem_mmap(fd, s, size);
	if (ok(pv && ps, "both map")) {
		fill(pv, size, 0x1111);
		fill(ps, size, 0x2222);
		ok(check(pv, size, 0x1111) == SIZE_MAX &&
		   check(ps, size, 0x2222) == SIZE_MAX,
		   "writing one does not change the other");
		memcpy(pv, ps, size);
		ok(check(pv, size, 0x2222) == SIZE_MAX,
		   "memcpy from the SYSMEM mapping into the VRAM one is byte-exact");
	}
	if (pv)
		munmap(pv, size);
	if (ps)
		munmap(ps, size);
	gem_close(fd, v);
	gem_close(fd, s);
}

static void test_sysmem_bad_args(int fd)
{
	static const struct {
		const char *what;
		uint64_t size;
		int err;
	} creates[] = {
		{ "size 0", 0, EINVAL },
		{ "size UINT64_MAX (not page-representable)", UINT64_MAX, EINVAL },
		{ "size UINT64_MAX - 4095 (more than RAM)", UINT64_MAX - 4095, E2BIG },
		{ "size 1 TiB (more than RAM)", 1ull << 40, E2BIG },
	};
	uint64_t base = vram_used(fd), shmem0 = meminfo_kib("Shmem");
	uint32_t h = 0;
	size_t i;
	int fd2, err;

	for (i = 0; i < sizeof(creates) / sizeof(creates[0]); i++) {
		err = gem_create_flags(fd, creates[i].size,
				       DRM_TGPU_GEM_CREATE_SYSMEM, &h);
		ok(err == creates[i].err, "GEM_CREATE SYSMEM %s: %s (want %s)",
		   creates[i].what, strerror(err), strerror(creates[i].err));
	}
	ok(vram_used(fd) == base && meminfo_kib("Shmem") <= shmem0 + 64,
	   "failed SYSMEM creates leave VRAM_USED and Shmem unchanged");

	fd2 = open(node, O_RDWR | O_CLOEXEC);
	if (!ok(fd2 >= 0, "open %s a second time", node))
		return;
	if (gem_create_flags(fd, 8192, DRM_TGPU_GEM_CREATE_SYSMEM, &h) == 0) {
		struct drm_tgpu_gem_mmap_offset m = { .handle = h };
		uint64_t off = 0;
		void *p;

		err = xioctl(fd2, DRM_IOCTL_TGPU_GEM_MMAP_OFFSET, &m);
		ok(err == ENOENT, "SYSMEM: GEM_MMAP_OFFSET of another file's handle: %s (want %s)",
		   strerror(err), strerror(ENOENT));
		if (gem_mmap_offset(fd, h, &off) == 0) {
			p = mmap(NULL, 8192, PROT_READ | PROT_WRITE, MAP_SHARED,
				 fd2, (off_t)off);
			err = p == MAP_FAILED ? errno : 0;
			ok(err == EACCES, "SYSMEM: mmap of another file's offset: %s (want %s)",
			   strerror(err), strerror(EACCES));
			if (p != MAP_FAILED)
				munmap(p, 8192);
			p = mmap(NULL, 8192, PROT_READ, MAP_SHARED, fd2,
				 (off_t)off);
			err = p == MAP_FAILED ? errno : 0;
			ok(err == EACCES, "SYSMEM: read-only mmap of another file's offset: %s (want %s)",
			   strerror(err), strerror(EACCES));
			if (p != MAP_FAILED)
				munmap(p, 8192);
			p = mmap(NULL, 8192, PROT_READ | PROT_WRITE, MAP_PRIVATE,
				 fd, (off_t)off);
			err = p == MAP_FAILED ? errno : 0;
			ok(err == EINVAL, "SYSMEM: MAP_PRIVATE mapping is refused: %s (want %s)",
			   strerror(err), strerror(EINVAL));
			if (p != MAP_FAILED)
				munmap(p, 8192);
			p = mmap(NULL, 12288, PROT_READ | PROT_WRITE, MAP_SHARED,
				 fd, (off_t)off);
			err = p == MAP_FAILED ? errno : 0;
			ok(err == EINVAL, "SYSMEM: mapping past the object's end is refused: %s (want %s)",
			   strerror(err), strerror(EINVAL));
			if (p != MAP_FAILED)
				munmap(p, 12288);
		}
		gem_close(fd, h);
	}
	close(fd2);
}

static void test_sysmem_mmap_outlives_handle(int fd)
{
	const size_t size = 256 << 10;
	uint64_t shmem0 = meminfo_kib("Shmem");
	uint32_t h = 0;
	void *p;

	if (gem_create_flags(fd, size, DRM_TGPU_GEM_CREATE_SYSMEM, &h))
		return;
	p = gem_mmap(fd, h, size);
	if (!ok(p != NULL, "SYSMEM: map an object, then close its handle")) {
		gem_close(fd, h);
		return;
	}
	fill(p, size / 2, 9);
	ok(gem_close(fd, h) == 0, "SYSMEM: GEM_CLOSE with the object mapped");
	fill((uint64_t *)p + size / 16, size / 2, 10);
	ok(check(p, size / 2, 9) == SIZE_MAX &&
	   check((uint64_t *)p + size / 16, size / 2, 10) == SIZE_MAX,
	   "SYSMEM: the mapping stays usable after the handle is closed");
	munmap(p, size);
	ok(meminfo_kib("Shmem") <= shmem0 + 64,
	   "SYSMEM: munmap frees the object: Shmem back");
}

static void test_sysmem_cycles(int fd)
{
	const unsigned int cycles = 2000;
	uint64_t shmem0 = meminfo_kib("Shmem"), shmem1;
	unsigned int i, failed = 0;
	uint32_t h;

	for (i = 0; i < cycles; i++) {
		if (gem_create_flags(fd, 4096u << (i % 8),
				     DRM_TGPU_GEM_CREATE_SYSMEM, &h) ||
		    gem_close(fd, h))
			failed++;
	}
	shmem1 = meminfo_kib("Shmem");
	ok(failed == 0, "%u SYSMEM create/close cycles (4 KiB to 512 KiB), %u failed",
	   cycles, failed);
	ok(shmem1 <= shmem0 + 64,
	   "Shmem back to the baseline after %u cycles (%" PRIu64 " -> %" PRIu64 " KiB)",
	   cycles, shmem0, shmem1);
}

int main(int argc, char **argv)
{
	uint64_t base;
	int i, fd;

	for (i = 1; i < argc; i++) {
		if (strncmp(argv[i], "--node=", 7) == 0) {
			node = argv[i] + 7;
		} else {
			fprintf(stderr, "usage: test-gem [--node=PATH]\n");
			return 2;
		}
	}

	fd = open(node, O_RDWR | O_CLOEXEC);
	if (!ok(fd >= 0, "open(%s, O_RDWR)", node))
		bail("no render node");

	base = vram_used(fd);
	ok(base > 0, "VRAM_USED counts the driver's own reservations (%" PRIu64 " KiB)",
	   base >> 10);

	test_sizes(fd);
	test_size_rounding(fd);
	test_no_alias(fd);
	test_bad_args(fd);
	test_mmap_outlives_handle(fd);
	test_cycles(fd);
	test_sysmem_sizes(fd);
	test_sysmem_mixed(fd);
	test_sysmem_bad_args(fd);
	test_sysmem_mmap_outlives_handle(fd);
	test_sysmem_cycles(fd);

	ok(vram_used(fd) == base, "VRAM_USED at the end equals the baseline");
	close(fd);

	return tap_done();
}
