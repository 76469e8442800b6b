// SPDX-License-Identifier: MIT
/*
 * In-guest bad-argument tables: one table per tgpu ioctl, a row per
 * documented error of docs/driver/kmd.md's Errors table (padding, flags,
 * sizes and overflow, ranges, unknown handles and IDs, another file's
 * handles and IDs), each with the errno the driver must answer, plus a
 * valid row per table so that the table also proves the arguments it
 * breaks are otherwise good.  Then the device is unbound: every ioctl
 * with good arguments answers ENODEV; it is rebound at the end.
 * Meant for a guest booted with --device-opts vram-size=1G:
 *
 *   test-ioctl [--node=PATH] [--no-unplug]
 *
 * Output is TAP; the exit status is non-zero if any check failed.
 */
#include <fcntl.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "guest-tap.h"
#include "guest-sysfs.h"
#include "tgpu-raw.h"

static const char *node = "/dev/dri/renderD128";

#define KSTART	DRM_TGPU_VA_KERNEL_START
#define PG	4096ull
#define BO_SIZE	(64 * 1024ull)
#define PB_VA	0x0000100000ull
#define MAP_VA	0x0010000000ull		/* a mapping the VM tables break */

/*
 * Placeholders the tables use for what exists only at run time; the
 * runner swaps them for the real values.
 */
enum {
	H_MINE = 0x7fff0001,	/* an object of this file */
	H_OTHER,		/* a handle only the other file has */
	Q_MINE,			/* a queue of this file */
	Q_OTHER,		/* a queue ID only the other file has */
	Q_DEAD,			/* a queue of this file, dead */
	S_DONE,			/* a syncobj of this file with a fence */
	S_EMPTY,		/* a syncobj of this file without a fence */
	S_OTHER,		/* a syncobj handle only the other file has */
};

static struct {
	int fd, other;
	uint32_t bo, other_bo, q, other_q, dead_q;
	uint32_t s_done, s_empty, other_s;
	uint32_t *pb;
} t;

static uint32_t fix(uint32_t v)
{
	switch (v) {
	case H_MINE: return t.bo;
	case H_OTHER: return t.other_bo;
	case Q_MINE: return t.q;
	case Q_OTHER: return t.other_q;
	case Q_DEAD: return t.dead_q;
	case S_DONE: return t.s_done;
	case S_EMPTY: return t.s_empty;
	case S_OTHER: return t.other_s;
	}
	return v;
}

static void check(const char *ioctl_name, const char *desc, int err, int want)
{
	ok(err == want, "%s %s: %s (want %s)", ioctl_name, desc, errname(err),
	   errname(want));
}

/* ---- GET_PARAM ------------------------------------------------------------ */

static void table_get_param(void)
{
	static const struct {
		const char *desc;
		struct drm_tgpu_get_param a;
		int err;
	} rows[] = {
		{ "CHIP_ID (valid)", { .param = DRM_TGPU_PARAM_CHIP_ID }, 0 },
		{ "last parameter (valid)", { .param = DRM_TGPU_PARAM_COUNT - 1 }, 0 },
		{ "pad 1", { .param = DRM_TGPU_PARAM_CHIP_ID, .pad = 1 }, EINVAL },
		{ "pad 0x80000000", { .pad = 0x80000000u }, EINVAL },
		{ "param COUNT", { .param = DRM_TGPU_PARAM_COUNT }, EINVAL },
		{ "param COUNT + 1", { .param = DRM_TGPU_PARAM_COUNT + 1 }, EINVAL },
		{ "param 0x80000000", { .param = 0x80000000u }, EINVAL },
		{ "param 0xffffffff", { .param = 0xffffffffu }, EINVAL },
	};
	size_t i;

	for (i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
		struct drm_tgpu_get_param a = rows[i].a;

		check("GET_PARAM", rows[i].desc,
		      xioctl(t.fd, DRM_IOCTL_TGPU_GET_PARAM, &a), rows[i].err);
	}
}

/* ---- GEM_CREATE, GEM_MMAP_OFFSET, GEM_CLOSE ------------------------------- */

static void table_gem_create(void)
{
	const uint64_t bar1 = get_param(t.fd, DRM_TGPU_PARAM_BAR1_SIZE);
	const uint64_t vram = get_param(t.fd, DRM_TGPU_PARAM_VRAM_SIZE);
	const uint64_t visible = bar1 < vram ? bar1 : vram;
	const struct {
		const char *desc;
		struct drm_tgpu_gem_create a;
		int err;
	} rows[] = {
		{ "4 KiB VRAM (valid)", { .size = PG }, 0 },
		{ "4 KiB SYSMEM (valid)", { .size = PG, .flags = DRM_TGPU_GEM_CREATE_SYSMEM }, 0 },
		{ "1 byte, rounded up (valid)", { .size = 1 }, 0 },
		{ "flags 1 << 1", { .size = PG, .flags = 1u << 1 }, EINVAL },
		{ "flags SYSMEM | 1 << 1",
		  { .size = PG, .flags = DRM_TGPU_GEM_CREATE_SYSMEM | 1u << 1 }, EINVAL },
		{ "flags 0x80000000", { .size = PG, .flags = 0x80000000u }, EINVAL },
		{ "flags ~0", { .size = PG, .flags = ~0u }, EINVAL },
		{ "size 0", { .size = 0 }, EINVAL },
		{ "size 0 SYSMEM", { .size = 0, .flags = DRM_TGPU_GEM_CREATE_SYSMEM }, EINVAL },
		{ "size 2^64 - 1 (wraps when rounded up)", { .size = ~0ull }, EINVAL },
		{ "size 2^64 - 4095 (wraps when rounded up)", { .size = ~0ull - 4094 }, EINVAL },
		{ "size 2^64 - 1 SYSMEM",
		  { .size = ~0ull, .flags = DRM_TGPU_GEM_CREATE_SYSMEM }, EINVAL },
		{ "size CPU-visible VRAM + 4 KiB", { .size = visible + PG }, E2BIG },
		{ "size 2^63", { .size = 1ull << 63 }, E2BIG },
		{ "size 2^50 SYSMEM (more than RAM)",
		  { .size = 1ull << 50, .flags = DRM_TGPU_GEM_CREATE_SYSMEM }, E2BIG },
	};
	size_t i;

	for (i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
		struct drm_tgpu_gem_create a = rows[i].a;
		int err = xioctl(t.fd, DRM_IOCTL_TGPU_GEM_CREATE, &a);

		check("GEM_CREATE", rows[i].desc, err, rows[i].err);
		if (!err)
			gem_close(t.fd, a.handle);
	}
}

static void table_gem_mmap_offset(void)
{
	static const struct {
		const char *desc;
		struct drm_tgpu_gem_mmap_offset a;
		int err;
	} rows[] = {
		{ "of an object of this file (valid)", { .handle = H_MINE }, 0 },
		{ "pad 1", { .handle = H_MINE, .pad = 1 }, EINVAL },
		{ "pad 0x80000000", { .handle = H_MINE, .pad = 0x80000000u }, EINVAL },
		{ "handle 0", { .handle = 0 }, ENOENT },
		{ "unknown handle 0x7ffffff", { .handle = 0x7ffffff }, ENOENT },
		{ "another file's handle", { .handle = H_OTHER }, ENOENT },
	};
	size_t i;

	for (i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
		struct drm_tgpu_gem_mmap_offset a = rows[i].a;

		a.handle = fix(a.handle);
		check("GEM_MMAP_OFFSET", rows[i].desc,
		      xioctl(t.fd, DRM_IOCTL_TGPU_GEM_MMAP_OFFSET, &a), rows[i].err);
	}
	{
		struct drm_gem_close c = { .handle = t.other_bo };

		check("GEM_CLOSE (core)", "of another file's handle",
		      xioctl(t.fd, DRM_IOCTL_GEM_CLOSE, &c), EINVAL);
		c.handle = 0x7ffffff;
		check("GEM_CLOSE (core)", "of an unknown handle",
		      xioctl(t.fd, DRM_IOCTL_GEM_CLOSE, &c), EINVAL);
	}
}

/* ---- VM_BIND, VM_UNBIND ----------------------------------------------------- */

static void table_vm_bind(void)
{
	static const struct {
		const char *desc;
		struct drm_tgpu_vm_bind a;
		int err;
	} rows[] = {
		{ "64 KiB at 4 GiB (valid)",
		  { .handle = H_MINE, .va = 1ull << 32, .size = BO_SIZE }, 0 },
		{ "read-only, at an object offset (valid)",
		  { .handle = H_MINE, .bo_offset = PG, .va = 2ull << 32, .size = PG,
		    .flags = DRM_TGPU_VM_BIND_READ_ONLY }, 0 },
		{ "pad 1", { .handle = H_MINE, .pad = 1, .va = 3ull << 32, .size = PG }, EINVAL },
		{ "pad2 1", { .handle = H_MINE, .pad2 = 1, .va = 3ull << 32, .size = PG }, EINVAL },
		{ "flags 1 << 1", { .handle = H_MINE, .va = 3ull << 32, .size = PG, .flags = 2 },
		  EINVAL },
		{ "flags 0x80000000",
		  { .handle = H_MINE, .va = 3ull << 32, .size = PG, .flags = 0x80000000u }, EINVAL },
		{ "size 0", { .handle = H_MINE, .va = 3ull << 32, .size = 0 }, EINVAL },
		{ "size 4095", { .handle = H_MINE, .va = 3ull << 32, .size = PG - 1 }, EINVAL },
		{ "size 4097", { .handle = H_MINE, .va = 3ull << 32, .size = PG + 1 }, EINVAL },
		{ "va not 4 KiB aligned",
		  { .handle = H_MINE, .va = (3ull << 32) + 512, .size = PG }, EINVAL },
		{ "bo_offset not 4 KiB aligned",
		  { .handle = H_MINE, .bo_offset = 8, .va = 3ull << 32, .size = PG }, EINVAL },
		{ "va at DRM_TGPU_VA_KERNEL_START",
		  { .handle = H_MINE, .va = KSTART, .size = PG }, EINVAL },
		{ "range reaching DRM_TGPU_VA_KERNEL_START",
		  { .handle = H_MINE, .va = KSTART - PG, .size = 2 * PG }, EINVAL },
		{ "va at DRM_TGPU_VA_LIMIT",
		  { .handle = H_MINE, .va = DRM_TGPU_VA_LIMIT, .size = PG }, EINVAL },
		{ "va + size wrapping 2^64",
		  { .handle = H_MINE, .va = ~0ull - PG + 1, .size = 2 * PG }, EINVAL },
		{ "size 2^63", { .handle = H_MINE, .va = 0, .size = 1ull << 63 }, EINVAL },
		{ "bo_offset + size beyond the object",
		  { .handle = H_MINE, .bo_offset = BO_SIZE - PG, .va = 3ull << 32, .size = 2 * PG },
		  EINVAL },
		{ "bo_offset at the object's end",
		  { .handle = H_MINE, .bo_offset = BO_SIZE, .va = 3ull << 32, .size = PG }, EINVAL },
		{ "bo_offset + size wrapping 2^64",
		  { .handle = H_MINE, .bo_offset = ~0ull - PG + 1, .va = 3ull << 32, .size = 2 * PG },
		  EINVAL },
		{ "size larger than the object",
		  { .handle = H_MINE, .va = 3ull << 32, .size = 2 * BO_SIZE }, EINVAL },
		{ "handle 0", { .handle = 0, .va = 3ull << 32, .size = PG }, ENOENT },
		{ "unknown handle", { .handle = 0x7ffffff, .va = 3ull << 32, .size = PG }, ENOENT },
		{ "another file's handle", { .handle = H_OTHER, .va = 3ull << 32, .size = PG }, ENOENT },
		{ "the same range again", { .handle = H_MINE, .va = MAP_VA, .size = BO_SIZE }, EEXIST },
		{ "overlapping the mapping's first page",
		  { .handle = H_MINE, .va = MAP_VA - PG, .size = 2 * PG }, EEXIST },
		{ "overlapping the mapping's last page",
		  { .handle = H_MINE, .va = MAP_VA + BO_SIZE - PG, .size = 2 * PG }, EEXIST },
		{ "inside the mapping", { .handle = H_MINE, .va = MAP_VA + PG, .size = PG }, EEXIST },
		{ "around the mapping",
		  { .handle = H_MINE, .va = MAP_VA - PG, .size = BO_SIZE + 2 * PG }, EINVAL },
	};
	size_t i;

	for (i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
		struct drm_tgpu_vm_bind a = rows[i].a;
		int err;

		a.handle = fix(a.handle);
		err = xioctl(t.fd, DRM_IOCTL_TGPU_VM_BIND, &a);
		check("VM_BIND", rows[i].desc, err, rows[i].err);
		if (!err)
			vm_unbind(t.fd, a.va, a.size);
	}
	/* a mapping around another one is EEXIST when the object is big enough */
	{
		uint32_t big = gem_create_flags(t.fd, 4 * BO_SIZE, 0);

		check("VM_BIND", "of a larger object around the mapping",
		      vm_bind(t.fd, big, 0, MAP_VA - PG, BO_SIZE + 2 * PG, 0), EEXIST);
		gem_close(t.fd, big);
	}
}

static void table_vm_unbind(void)
{
	static const struct {
		const char *desc;
		struct drm_tgpu_vm_unbind a;
		int err;
	} rows[] = {
		{ "size 0", { .va = MAP_VA, .size = 0 }, ENOENT },
		{ "size not 4 KiB aligned", { .va = MAP_VA, .size = BO_SIZE - 1 }, ENOENT },
		{ "va not 4 KiB aligned", { .va = MAP_VA + 8, .size = BO_SIZE }, ENOENT },
		{ "part of the mapping (head)", { .va = MAP_VA, .size = PG }, ENOENT },
		{ "part of the mapping (tail)", { .va = MAP_VA + PG, .size = BO_SIZE - PG }, ENOENT },
		{ "more than the mapping", { .va = MAP_VA, .size = 2 * BO_SIZE }, ENOENT },
		{ "shifted by a page", { .va = MAP_VA + PG, .size = BO_SIZE }, ENOENT },
		{ "the mapping and its neighbour", { .va = MAP_VA, .size = 2 * BO_SIZE + PG }, ENOENT },
		{ "a range never mapped", { .va = 5ull << 32, .size = PG }, ENOENT },
		{ "in the kernel range (the queue's GPFIFO)", { .va = KSTART + 0x9000, .size = PG },
		  ENOENT },
		{ "another file's mapping", { .va = 6ull << 32, .size = BO_SIZE }, ENOENT },
		{ "va + size wrapping 2^64", { .va = ~0ull - PG + 1, .size = 2 * PG }, ENOENT },
		{ "the mapping (valid)", { .va = MAP_VA, .size = BO_SIZE }, 0 },
		{ "the same mapping twice", { .va = MAP_VA, .size = BO_SIZE }, ENOENT },
	};
	size_t i;

	/* the neighbour, a page after the mapping */
	if (vm_bind(t.fd, t.bo, 0, MAP_VA + BO_SIZE + PG, BO_SIZE, 0))
		bail("VM_BIND of the neighbour failed");
	for (i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
		struct drm_tgpu_vm_unbind a = rows[i].a;

		check("VM_UNBIND", rows[i].desc, xioctl(t.fd, DRM_IOCTL_TGPU_VM_UNBIND, &a),
		      rows[i].err);
	}
	vm_unbind(t.fd, MAP_VA + BO_SIZE + PG, BO_SIZE);
	if (vm_bind(t.fd, t.bo, 0, MAP_VA, BO_SIZE, 0))
		bail("VM_BIND failed");
}

/* ---- QUEUE_CREATE, QUEUE_DESTROY, QUEUE_QUERY -------------------------------- */

static void table_queue_create(void)
{
	static const struct {
		const char *desc;
		struct drm_tgpu_queue_create a;
		int err;
	} rows[] = {
		{ "compute, priority 3 (valid)", { .engine = TGPU_RUNLIST_COMPUTE, .priority = 3 }, 0 },
		{ "ce1, priority 0 (valid)", { .engine = TGPU_RUNLIST_CE1 }, 0 },
		{ "id set on input (output only: valid)", { .engine = TGPU_RUNLIST_CE0, .id = 77 }, 0 },
		{ "flags USER_SUBMIT (valid)", { .flags = DRM_TGPU_QUEUE_USER_SUBMIT }, 0 },
		{ "flags 2 (unknown)", { .flags = 2 }, EINVAL },
		{ "flags 0x80000000", { .flags = 0x80000000u }, EINVAL },
		{ "engine 3", { .engine = 3 }, EINVAL },
		{ "engine 0xffffffff", { .engine = 0xffffffffu }, EINVAL },
		{ "priority 4", { .priority = 4 }, EINVAL },
		{ "priority 0xffffffff", { .priority = 0xffffffffu }, EINVAL },
		{ "pad 1", { .pad = 1 }, EINVAL },
		{ "its own job timeout of 1 ms (valid)", { .timeout_ms = 1 }, 0 },
		{ "a job timeout of 60000 ms, as root (valid)",
		  { .timeout_ms = DRM_TGPU_QUEUE_TIMEOUT_MAX_MS }, 0 },
		{ "a job timeout of 60001 ms", { .timeout_ms = DRM_TGPU_QUEUE_TIMEOUT_MAX_MS + 1 },
		  EINVAL },
		{ "a job timeout of 0xffffffff ms", { .timeout_ms = 0xffffffffu }, EINVAL },
	};
	size_t i;

	for (i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
		struct drm_tgpu_queue_create a = rows[i].a;
		int err = xioctl(t.fd, DRM_IOCTL_TGPU_QUEUE_CREATE, &a);

		check("QUEUE_CREATE", rows[i].desc, err, rows[i].err);
		if (!err) {
			ok(a.id != 0 && a.id != 77, "QUEUE_CREATE returned a new ID (%u)", a.id);
			queue_destroy(t.fd, a.id);
		}
	}
}

/*
 * Without CAP_SYS_NICE a queue may shorten its job timeout but not make
 * it longer than the driver's: a child that gave up root asks for both.
 */
static void queue_timeout_unprivileged(void)
{
	char *param = read_text("/sys/module/tgpu/parameters/job_timeout_ms");
	unsigned int dflt = param ? (unsigned int)strtoul(param, NULL, 10) : 0;
	int status = 0;
	pid_t pid;

	free(param);
	if (!dflt || dflt >= DRM_TGPU_QUEUE_TIMEOUT_MAX_MS)
		bail("tgpu.job_timeout_ms must be 1 to 59999 for this check");
	fflush(stdout);
	pid = fork();
	if (pid == 0) {
		struct drm_tgpu_queue_create at = { .timeout_ms = dflt };
		struct drm_tgpu_queue_create over = { .timeout_ms = dflt + 1 };
		int e1, e2;

		/* root's setuid() sets all three IDs: every capability goes */
		if (setuid(65534))
			_exit(3);
		e1 = xioctl(t.fd, DRM_IOCTL_TGPU_QUEUE_CREATE, &at);
		e2 = xioctl(t.fd, DRM_IOCTL_TGPU_QUEUE_CREATE, &over);
		if (!e1)
			queue_destroy(t.fd, at.id);
		if (!e2)
			queue_destroy(t.fd, over.id);
		_exit(e1 ? 1 : e2 == EPERM ? 0 : 2);
	}
	if (pid < 0 || waitpid(pid, &status, 0) != pid)
		bail("fork failed");
	ok(WIFEXITED(status) && WEXITSTATUS(status) != 3, "a child gave up root");
	ok(WIFEXITED(status) && WEXITSTATUS(status) != 1,
	   "QUEUE_CREATE unprivileged, the driver's job timeout (%u ms): valid", dflt);
	ok(WIFEXITED(status) && WEXITSTATUS(status) == 0,
	   "QUEUE_CREATE unprivileged, %u ms, longer than the driver's: EPERM", dflt + 1);
}

static void table_queue_query(void)
{
	static const struct {
		const char *desc;
		struct drm_tgpu_queue_query a;
		int err;
	} rows[] = {
		{ "of a queue of this file (valid)", { .id = Q_MINE }, 0 },
		{ "of a dead queue (valid)", { .id = Q_DEAD }, 0 },
		{ "flags 1", { .id = Q_MINE, .flags = 1 }, EINVAL },
		{ "flags 0x80000000", { .id = Q_MINE, .flags = 0x80000000u }, EINVAL },
		{ "id 0", { .id = 0 }, ENOENT },
		{ "unknown id", { .id = 0x7ffffff }, ENOENT },
		{ "another file's queue id", { .id = Q_OTHER }, ENOENT },
	};
	size_t i;

	for (i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
		struct drm_tgpu_queue_query a = rows[i].a;

		a.id = fix(a.id);
		check("QUEUE_QUERY", rows[i].desc,
		      xioctl(t.fd, DRM_IOCTL_TGPU_QUEUE_QUERY, &a), rows[i].err);
	}
}

static void table_queue_destroy(void)
{
	static const struct {
		const char *desc;
		struct drm_tgpu_queue_destroy a;
		int err;
	} rows[] = {
		{ "pad 1", { .id = Q_MINE, .pad = 1 }, EINVAL },
		{ "pad 0x80000000", { .id = Q_MINE, .pad = 0x80000000u }, EINVAL },
		{ "id 0", { .id = 0 }, ENOENT },
		{ "unknown id", { .id = 0x7ffffff }, ENOENT },
		{ "another file's queue id", { .id = Q_OTHER }, ENOENT },
		{ "of a dead queue (valid)", { .id = Q_DEAD }, 0 },
		{ "of the dead queue again", { .id = Q_DEAD }, ENOENT },
	};
	size_t i;

	for (i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
		struct drm_tgpu_queue_destroy a = rows[i].a;

		a.id = fix(a.id);
		check("QUEUE_DESTROY", rows[i].desc,
		      xioctl(t.fd, DRM_IOCTL_TGPU_QUEUE_DESTROY, &a), rows[i].err);
	}
}

/* ---- SUBMIT ------------------------------------------------------------------ */

enum { R_GOOD, R_ROW, R_NULL, R_BAD };
enum { I_NONE, I_ROW, I_BAD };

static void table_submit(void)
{
	static const struct {
		const char *desc;
		struct drm_tgpu_submit a;	/* ranges, in_syncobjs: below */
		int ranges, in;
		struct drm_tgpu_submit_range r;	/* for R_ROW */
		uint32_t in_handle;		/* for I_ROW */
		int err;
	} rows[] = {
		{ "one range (valid)", { .queue = Q_MINE, .count = 1 }, R_GOOD, I_NONE, {}, 0, 0 },
		{ "with an in-syncobj and an out-syncobj (valid)",
		  { .queue = Q_MINE, .count = 1, .in_syncobj_count = 1, .out_syncobj = S_EMPTY },
		  R_GOOD, I_ROW, {}, S_DONE, 0 },
		{ "flags 1", { .queue = Q_MINE, .count = 1, .flags = 1 }, R_GOOD, I_NONE, {}, 0,
		  EINVAL },
		{ "pad 1", { .queue = Q_MINE, .count = 1, .pad = 1 }, R_GOOD, I_NONE, {}, 0, EINVAL },
		{ "count 0", { .queue = Q_MINE, .count = 0 }, R_GOOD, I_NONE, {}, 0, EINVAL },
		{ "count 65", { .queue = Q_MINE, .count = DRM_TGPU_SUBMIT_MAX_RANGES + 1 }, R_GOOD,
		  I_NONE, {}, 0, EINVAL },
		{ "count 0xffffffff", { .queue = Q_MINE, .count = 0xffffffffu }, R_GOOD, I_NONE, {},
		  0, EINVAL },
		{ "65 in-syncobjs",
		  { .queue = Q_MINE, .count = 1,
		    .in_syncobj_count = DRM_TGPU_SUBMIT_MAX_IN_SYNCOBJS + 1 },
		  R_GOOD, I_ROW, {}, S_DONE, EINVAL },
		{ "a range with pad 1", { .queue = Q_MINE, .count = 1 }, R_ROW, I_NONE,
		  { .va = PB_VA, .dwords = 6, .pad = 1 }, 0, EINVAL },
		{ "a range with va not 4-byte aligned", { .queue = Q_MINE, .count = 1 }, R_ROW,
		  I_NONE, { .va = PB_VA + 2, .dwords = 6 }, 0, EINVAL },
		{ "a range of 0 dwords", { .queue = Q_MINE, .count = 1 }, R_ROW, I_NONE,
		  { .va = PB_VA, .dwords = 0 }, 0, EINVAL },
		{ "a range of 2^21 dwords", { .queue = Q_MINE, .count = 1 }, R_ROW, I_NONE,
		  { .va = PB_VA, .dwords = 1u << 21 }, 0, EINVAL },
		{ "a range at DRM_TGPU_VA_KERNEL_START", { .queue = Q_MINE, .count = 1 }, R_ROW,
		  I_NONE, { .va = KSTART, .dwords = 1 }, 0, EINVAL },
		{ "a range reaching DRM_TGPU_VA_KERNEL_START", { .queue = Q_MINE, .count = 1 },
		  R_ROW, I_NONE, { .va = KSTART - 4, .dwords = 2 }, 0, EINVAL },
		{ "a range at 2^64 - 4", { .queue = Q_MINE, .count = 1 }, R_ROW, I_NONE,
		  { .va = ~0ull - 3, .dwords = 2 }, 0, EINVAL },
		{ "ranges NULL", { .queue = Q_MINE, .count = 1 }, R_NULL, I_NONE, {}, 0, EFAULT },
		{ "ranges unmapped", { .queue = Q_MINE, .count = 1 }, R_BAD, I_NONE, {}, 0, EFAULT },
		{ "in_syncobjs unmapped", { .queue = Q_MINE, .count = 1, .in_syncobj_count = 1 },
		  R_GOOD, I_BAD, {}, 0, EFAULT },
		{ "queue 0", { .queue = 0, .count = 1 }, R_GOOD, I_NONE, {}, 0, ENOENT },
		{ "unknown queue", { .queue = 0x7ffffff, .count = 1 }, R_GOOD, I_NONE, {}, 0, ENOENT },
		{ "another file's queue id", { .queue = Q_OTHER, .count = 1 }, R_GOOD, I_NONE, {},
		  0, ENOENT },
		{ "unknown out-syncobj", { .queue = Q_MINE, .count = 1, .out_syncobj = 0x7ffffff },
		  R_GOOD, I_NONE, {}, 0, ENOENT },
		{ "another file's out-syncobj",
		  { .queue = Q_MINE, .count = 1, .out_syncobj = S_OTHER }, R_GOOD, I_NONE, {}, 0,
		  ENOENT },
		{ "unknown in-syncobj", { .queue = Q_MINE, .count = 1, .in_syncobj_count = 1 },
		  R_GOOD, I_ROW, {}, 0x7ffffff, ENOENT },
		{ "in-syncobj 0", { .queue = Q_MINE, .count = 1, .in_syncobj_count = 1 },
		  R_GOOD, I_ROW, {}, 0, ENOENT },
		{ "another file's in-syncobj", { .queue = Q_MINE, .count = 1, .in_syncobj_count = 1 },
		  R_GOOD, I_ROW, {}, S_OTHER, ENOENT },
		{ "an in-syncobj without a fence",
		  { .queue = Q_MINE, .count = 1, .in_syncobj_count = 1 }, R_GOOD, I_ROW, {},
		  S_EMPTY, EINVAL },
		{ "a dead queue", { .queue = Q_DEAD, .count = 1 }, R_GOOD, I_NONE, {}, 0, EIO },
	};
	struct drm_tgpu_submit_range good[DRM_TGPU_SUBMIT_MAX_RANGES + 1];
	uint32_t in[DRM_TGPU_SUBMIT_MAX_IN_SYNCOBJS + 1];
	void *hole;
	size_t i, j;

	/* an address that is surely not mapped */
	hole = mmap(NULL, 4096, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (hole == MAP_FAILED)
		bail("mmap failed");
	munmap(hole, 4096);

	for (j = 0; j < sizeof(good) / sizeof(good[0]); j++)
		good[j] = (struct drm_tgpu_submit_range){ .va = PB_VA, .dwords = 6 };

	for (i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
		struct drm_tgpu_submit a = rows[i].a;
		struct drm_tgpu_submit_range r = rows[i].r;
		int err;

		a.queue = fix(a.queue);
		a.out_syncobj = fix(a.out_syncobj);
		switch (rows[i].ranges) {
		case R_GOOD: a.ranges = (uintptr_t)good; break;
		case R_ROW: a.ranges = (uintptr_t)&r; break;
		case R_NULL: a.ranges = 0; break;
		case R_BAD: a.ranges = (uintptr_t)hole; break;
		}
		for (j = 0; j < sizeof(in) / sizeof(in[0]); j++)
			in[j] = fix(rows[i].in_handle);
		if (rows[i].in == I_ROW)
			a.in_syncobjs = (uintptr_t)in;
		else if (rows[i].in == I_BAD)
			a.in_syncobjs = (uintptr_t)hole;
		err = xioctl(t.fd, DRM_IOCTL_TGPU_SUBMIT, &a);
		check("SUBMIT", rows[i].desc, err, rows[i].err);
		if (!err && a.out_syncobj) {
			/* the out-syncobj got the job's fence: wait, then empty it again */
			ok(syncobj_wait(t.fd, a.out_syncobj, 10000) == 0 &&
			   syncobj_status(t.fd, a.out_syncobj) == 1,
			   "SUBMIT's out-syncobj signals");
			syncobj_destroy(t.fd, t.s_empty);
			t.s_empty = syncobj_create(t.fd);
		}
	}
}

/* ---- after unplug: every ioctl with good arguments is ENODEV ---------------- */

static void table_unplugged(void)
{
	struct drm_tgpu_get_param gp = { .param = DRM_TGPU_PARAM_CHIP_ID };
	struct drm_tgpu_gem_create gc = { .size = PG };
	struct drm_tgpu_gem_mmap_offset mo = { .handle = t.bo };
	struct drm_tgpu_vm_bind vb = { .handle = t.bo, .va = 7ull << 32, .size = PG };
	struct drm_tgpu_vm_unbind vu = { .va = MAP_VA, .size = BO_SIZE };
	struct drm_tgpu_queue_create qc = { .engine = TGPU_RUNLIST_COMPUTE };
	struct drm_tgpu_queue_destroy qd = { .id = t.q };
	struct drm_tgpu_queue_query qq = { .id = t.q };
	struct drm_tgpu_submit_range r = { .va = PB_VA, .dwords = 6 };
	struct drm_tgpu_submit s = { .queue = t.q, .count = 1, .ranges = (uintptr_t)&r };
	const struct {
		const char *name;
		unsigned long req;
		void *arg;
	} rows[] = {
		{ "GET_PARAM", DRM_IOCTL_TGPU_GET_PARAM, &gp },
		{ "GEM_CREATE", DRM_IOCTL_TGPU_GEM_CREATE, &gc },
		{ "GEM_MMAP_OFFSET", DRM_IOCTL_TGPU_GEM_MMAP_OFFSET, &mo },
		{ "VM_BIND", DRM_IOCTL_TGPU_VM_BIND, &vb },
		{ "VM_UNBIND", DRM_IOCTL_TGPU_VM_UNBIND, &vu },
		{ "QUEUE_CREATE", DRM_IOCTL_TGPU_QUEUE_CREATE, &qc },
		{ "SUBMIT", DRM_IOCTL_TGPU_SUBMIT, &s },
		{ "QUEUE_QUERY", DRM_IOCTL_TGPU_QUEUE_QUERY, &qq },
		{ "QUEUE_DESTROY", DRM_IOCTL_TGPU_QUEUE_DESTROY, &qd },
	};
	char bdf[256];
	size_t i;
	int fd;

	bdf_of_node("/dev/dri/renderD128", bdf, sizeof(bdf));

	if (!ok(write_file("/sys/bus/pci/drivers/tgpu/unbind", bdf) == 0, "unbind %s", bdf))
		return;
	for (i = 0; i < sizeof(rows) / sizeof(rows[0]); i++)
		check(rows[i].name, "after unplug (good arguments)",
		      xioctl(t.fd, rows[i].req, rows[i].arg), ENODEV);
	/* the mapping keeps the old device (and its minor) until unmapped */
	munmap(t.pb, BO_SIZE);
	close(t.fd);
	close(t.other);
	ok(write_file("/sys/bus/pci/drivers/tgpu/bind", bdf) == 0, "rebind %s", bdf);
	for (i = 0; i < 50 && (fd = open(node, O_RDWR | O_CLOEXEC)) < 0; i++)
		usleep(100000);
	ok(fd >= 0 && xioctl(fd, DRM_IOCTL_TGPU_GET_PARAM, &gp) == 0,
	   "after rebind GET_PARAM answers again");
	if (fd >= 0)
		close(fd);
}

/* ---- fixture ------------------------------------------------------------------ */

static void setup(void)
{
	uint32_t id, s;
	int i;

	t.fd = open(node, O_RDWR | O_CLOEXEC);
	t.other = open(node, O_RDWR | O_CLOEXEC);
	if (t.fd < 0 || t.other < 0)
		bail("cannot open the render node twice");

	/* this file: one object (handle 1), bound at PB_VA and MAP_VA */
	t.bo = gem_create_flags(t.fd, BO_SIZE, 0);
	t.pb = gem_mmap(t.fd, t.bo, BO_SIZE);
	if (vm_bind(t.fd, t.bo, 0, PB_VA, BO_SIZE, 0) ||
	    vm_bind(t.fd, t.bo, 0, MAP_VA, BO_SIZE, 0))
		bail("VM_BIND failed");
	pb_release(t.pb, PB_VA + 0x8000, 1);
	t.pb[64] = TGPU_PB_HDR(TGPU_PB_OP_IMMD, 0, 0x0fc, 0);	/* illegal */

	/* the other file: more objects, queues and syncobjs than this one */
	for (i = 0; i < 3; i++)
		t.other_bo = gem_create_flags(t.other, PG, 0);
	for (i = 0; i < 3; i++)
		if (queue_create(t.other, TGPU_RUNLIST_CE0, 0, &t.other_q))
			bail("QUEUE_CREATE failed");
	for (i = 0; i < 4; i++)
		t.other_s = syncobj_create(t.other);
	if (vm_bind(t.other, t.other_bo, 0, 6ull << 32, PG, 0))
		bail("VM_BIND failed");
	{
		/* the other file's mapping at 6 GiB is BO_SIZE long in this test */
		uint32_t big = gem_create_flags(t.other, BO_SIZE, 0);

		vm_unbind(t.other, 6ull << 32, PG);
		if (vm_bind(t.other, big, 0, 6ull << 32, BO_SIZE, 0))
			bail("VM_BIND failed");
	}

	/* this file: a live queue, a dead queue, a signalled and an empty syncobj */
	if (queue_create(t.fd, TGPU_RUNLIST_COMPUTE, 0, &t.q) ||
	    queue_create(t.fd, TGPU_RUNLIST_COMPUTE, 0, &t.dead_q))
		bail("QUEUE_CREATE failed");
	t.s_done = syncobj_create(t.fd);
	t.s_empty = syncobj_create(t.fd);
	{
		struct drm_tgpu_submit_range r = { .va = PB_VA, .dwords = 6 };

		if (submit(t.fd, t.q, &r, 1, NULL, 0, t.s_done) ||
		    syncobj_wait(t.fd, t.s_done, 10000))
			bail("a valid job did not run");
		r.va = PB_VA + 256;
		r.dwords = 1;
		s = syncobj_create(t.fd);
		if (submit(t.fd, t.dead_q, &r, 1, NULL, 0, s) || syncobj_wait(t.fd, s, 10000))
			bail("the illegal job did not finish");
		ok(syncobj_status(t.fd, s) == -EIO, "fixture: an illegal method kills queue %u",
		   t.dead_q);
		syncobj_destroy(t.fd, s);
	}
	/* the placeholders must not collide with real values */
	id = t.other_q;
	ok(t.other_bo > t.bo && id > t.dead_q && t.other_s > t.s_empty,
	   "fixture: the other file's handle %u, queue %u and syncobj %u do not exist here",
	   t.other_bo, id, t.other_s);
}

int main(int argc, char **argv)
{
	bool unplug = true;
	int i;

	for (i = 1; i < argc; i++) {
		if (strncmp(argv[i], "--node=", 7) == 0) {
			node = argv[i] + 7;
		} else if (strcmp(argv[i], "--no-unplug") == 0) {
			unplug = false;
		} else {
			fprintf(stderr, "usage: test-ioctl [--node=PATH] [--no-unplug]\n");
			return 2;
		}
	}

	setup();
	table_get_param();
	table_gem_create();
	table_gem_mmap_offset();
	table_vm_bind();
	table_vm_unbind();
	table_queue_create();
	queue_timeout_unprivileged();
	table_queue_query();
	table_submit();
	table_queue_destroy();
	if (unplug)
		table_unplugged();
	return tap_done();
}
