// SPDX-License-Identifier: MIT
/*
 * In-guest test of the per-file GPU VM, queues and submission:
 * DRM_IOCTL_TGPU_VM_BIND/UNBIND, QUEUE_CREATE/DESTROY and SUBMIT through
 * raw ioctls.  Pushbuffers use host methods only (semaphore release and
 * acquire), so every engine's queue can run them, plus copy-engine
 * copies between VRAM and system-memory objects.  Meant for a guest
 * booted with --device-opts vram-size=1G:
 *
 *   test-submit [--node=PATH] [--no-timeout | --timeout-ms=MS]
 *   test-submit --unplug     (unbinds and rebinds the device through sysfs)
 *   test-submit --mmu        (2 MiB pages, reading BAR0 through sysfs:
 *                             iomem=relaxed; privileged pages)
 *
 * Output is TAP; the exit status is non-zero if any check failed.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <poll.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#include <linux/sync_file.h>

#include <tgpu_drm.h>
#include <tgpu/channel.h>
#include <tgpu/copy.h>
#include <tgpu/mmu.h>
#include <tgpu/regs.h>

#include "guest-tap.h"
#include "guest-sysfs.h"
#include "tgpu-raw.h"

static const char *node = "/dev/dri/renderD128";
static unsigned int expect_timeout_ms;

/* ---- raw uAPI ------------------------------------------------------------- */

static uint32_t gem_create(int fd, uint64_t size)
{
	return gem_create_flags(fd, size, 0);
}

static uint32_t gem_create_sysmem(int fd, uint64_t size)
{
	return gem_create_flags(fd, size, DRM_TGPU_GEM_CREATE_SYSMEM);
}

/* ---- pushbuffers ------------------------------------------------------- */

/* A pushbuffer under construction: a mapped BO bound at @va. */
struct pb {
	uint32_t *cpu;
	uint64_t va;
	uint32_t start, len;
};

static void pb_begin(struct pb *pb)
{
	pb->start = pb->len;
}

static void pb_sem(struct pb *pb, uint64_t addr, uint32_t payload, uint32_t op)
{
	pb->len += pb_sem_op(pb->cpu + pb->len, addr, payload, op);
}

static void pb_sem_release(struct pb *pb, uint64_t addr, uint32_t payload)
{
	pb_sem(pb, addr, payload, TGPU_SEM_OP_RELEASE);
}

static void pb_acquire_geq(struct pb *pb, uint64_t addr, uint32_t payload)
{
	pb_sem(pb, addr, payload, TGPU_SEM_OP_ACQ_GEQ);
}

static void pb_dword(struct pb *pb, uint32_t v)
{
	pb->cpu[pb->len++] = v;
}

/* A copy-engine copy of @len bytes (one line), on subchannel 0. */
static void pb_copy(struct pb *pb, uint64_t dst, uint64_t src, uint32_t len)
{
	pb->len += pb_ce_copy(pb->cpu + pb->len, dst, src, len);
}

/* The range from the last pb_begin() to here. */
static struct drm_tgpu_submit_range pb_range(const struct pb *pb)
{
	struct drm_tgpu_submit_range r = {
		.va = pb->va + 4ull * pb->start,
		.dwords = pb->len - pb->start,
	};

	return r;
}

/* ---- fixture: one file with a pushbuffer BO and a data BO ----------------- */

#define PB_VA		0x0000100000ull		/* 1 MiB */
#define PB_SIZE		(1u << 20)
#define DATA_VA		0x0040000000ull		/* 1 GiB */
#define DATA_SIZE	(4u << 20)

struct ctx {
	int fd;
	uint32_t pb_bo, data_bo;
	struct pb pb;
	volatile uint32_t *data;
};

static void ctx_open(struct ctx *c)
{
	c->fd = open(node, O_RDWR | O_CLOEXEC);
	if (c->fd < 0)
		bail("cannot open the render node");
	c->pb_bo = gem_create(c->fd, PB_SIZE);
	c->data_bo = gem_create(c->fd, DATA_SIZE);
	c->pb.cpu = gem_mmap(c->fd, c->pb_bo, PB_SIZE);
	c->pb.va = PB_VA;
	c->pb.len = 0;
	c->data = gem_mmap(c->fd, c->data_bo, DATA_SIZE);
	if (vm_bind(c->fd, c->pb_bo, 0, PB_VA, PB_SIZE, 0) ||
	    vm_bind(c->fd, c->data_bo, 0, DATA_VA, DATA_SIZE, 0))
		bail("VM_BIND of the fixture failed");
}

static void ctx_close(struct ctx *c)
{
	munmap(c->pb.cpu, PB_SIZE);
	munmap((void *)c->data, DATA_SIZE);
	close(c->fd);
}

/* Submit one range and wait for its fence; the fence's status. */
static int run(struct ctx *c, uint32_t q, struct drm_tgpu_submit_range r)
{
	return run_job(c->fd, q, r.va, r.dwords);
}

static uint32_t pattern(uint32_t i)
{
	uint32_t x = i * 0x9e3779b9u + 0x7f4a7c15u;

	x ^= x >> 15;
	x *= 0x2c1b3c6du;
	return x ^ (x >> 12);
}

/* ---- tests ---------------------------------------------------------------- */

/* GPU writes through a bound mapping land byte-exact, and only there. */
static void test_bind_write(struct ctx *c)
{
	/* dwords spread over the 4 MiB object, both 2 MiB halves */
	static const uint32_t idx[] = {
		0, 1, 2, 1023, 1024, 4095, 262143, 262144, 524288, 524289,
		786431, 1048575,
	};
	const unsigned int n = sizeof(idx) / sizeof(idx[0]);
	struct drm_tgpu_submit_range r;
	unsigned int i, bad = 0;
	uint32_t q;
	int status;

	memset((void *)c->data, 0, DATA_SIZE);
	if (!ok(queue_create(c->fd, TGPU_RUNLIST_COMPUTE, 0, &q) == 0,
		"QUEUE_CREATE compute, priority 0"))
		return;
	pb_begin(&c->pb);
	for (i = 0; i < n; i++)
		pb_sem_release(&c->pb, DATA_VA + 4ull * idx[i], pattern(i));
	r = pb_range(&c->pb);
	status = run(c, q, r);
	ok(status == 1, "SUBMIT of %u semaphore releases: the out-syncobj signals without error (status %d)",
	   n, status);
	for (i = 0; i < n; i++)
		if (c->data[idx[i]] != pattern(i))
			bad++;
	ok(bad == 0, "the GPU wrote each payload at its address (%u wrong)",
	   bad);
	for (i = 0, bad = 0; i < DATA_SIZE / 4; i++) {
		unsigned int j;
		bool hit = false;

		for (j = 0; j < n; j++)
			hit |= idx[j] == i;
		if (!hit && c->data[i])
			bad++;
	}
	ok(bad == 0, "and nothing else in the object changed (%u dwords)",
	   bad);

	/* Two ranges in one submit, executed in order. */
	{
		struct drm_tgpu_submit_range rr[2];
		uint32_t s = syncobj_create(c->fd);

		pb_begin(&c->pb);
		pb_sem_release(&c->pb, DATA_VA + 64, 0x11111111);
		rr[0] = pb_range(&c->pb);
		pb_begin(&c->pb);
		pb_sem_release(&c->pb, DATA_VA + 64, 0x22222222);
		pb_sem_release(&c->pb, DATA_VA + 68, 0x33333333);
		rr[1] = pb_range(&c->pb);
		ok(submit(c->fd, q, rr, 2, NULL, 0, s) == 0 &&
		   syncobj_wait(c->fd, s, 10000) == 0 &&
		   c->data[16] == 0x22222222 && c->data[17] == 0x33333333,
		   "two ranges in one SUBMIT run in order");
		syncobj_destroy(c->fd, s);
	}

	/* Many jobs in a row: the ring wraps (512 entries, 2 per job). */
	{
		uint32_t s = syncobj_create(c->fd);
		int err = 0;

		for (i = 0; i < 600 && !err; i++) {
			pb_begin(&c->pb);
			pb_sem_release(&c->pb, DATA_VA + 128, i + 1);
			r = pb_range(&c->pb);
			err = submit(c->fd, q, &r, 1, NULL, 0, s);
		}
		ok(!err && syncobj_wait(c->fd, s, 30000) == 0 &&
		   c->data[32] == 600 && syncobj_status(c->fd, s) == 1,
		   "600 jobs on one queue (the GPFIFO ring wraps) all complete in order");
		syncobj_destroy(c->fd, s);
	}
	c->pb.len = 0;
	ok(queue_destroy(c->fd, q) == 0, "QUEUE_DESTROY");
}

/* A second mapping of the same object at another VA, at an offset. */
static void test_bind_offset(struct ctx *c)
{
	const uint64_t va = 0x0080000000ull;
	uint32_t q;
	int status;

	memset((void *)c->data, 0, DATA_SIZE);
	if (!ok(vm_bind(c->fd, c->data_bo, 0x3000, va, 0x2000, 0) == 0,
		"VM_BIND 8 KiB of the data object from offset 12 KiB elsewhere"))
		return;
	queue_create(c->fd, TGPU_RUNLIST_CE0, 1, &q);
	pb_begin(&c->pb);
	pb_sem_release(&c->pb, va + 0x10, 0xcafe0001);
	pb_sem_release(&c->pb, va + 0x1ffc, 0xcafe0002);
	status = run(c, q, pb_range(&c->pb));
	ok(status == 1 && c->data[(0x3000 + 0x10) / 4] == 0xcafe0001 &&
	   c->data[(0x3000 + 0x1ffc) / 4] == 0xcafe0002,
	   "GPU writes through the offset mapping land at the object offset");
	ok(vm_unbind(c->fd, va, 0x2000) == 0, "VM_UNBIND of it");
	queue_destroy(c->fd, q);
	c->pb.len = 0;
}

/* After VM_UNBIND the GPU cannot reach the object: the job faults. */
static void test_unbind_effect(struct ctx *c)
{
	const uint64_t va = 0x00c0000000ull;
	uint32_t bo = gem_create(c->fd, 65536), q, q2;
	volatile uint32_t *p = gem_mmap(c->fd, bo, 65536);
	int status;

	ok(vm_bind(c->fd, bo, 0, va, 65536, 0) == 0, "VM_BIND a 64 KiB object");
	queue_create(c->fd, TGPU_RUNLIST_CE1, 2, &q);
	pb_begin(&c->pb);
	pb_sem_release(&c->pb, va + 8, 0x5a5a5a5a);
	status = run(c, q, pb_range(&c->pb));
	ok(status == 1 && p[2] == 0x5a5a5a5a, "a GPU write through it lands");
	ok(vm_unbind(c->fd, va, 65536) == 0, "VM_UNBIND it");
	p[2] = 0;
	pb_begin(&c->pb);
	pb_sem_release(&c->pb, va + 8, 0xa5a5a5a5);
	status = run(c, q, pb_range(&c->pb));
	ok(status == -EIO, "a GPU write to the unbound range fails the job with -EIO (status %d)",
	   status);
	ok(p[2] == 0, "and the object is untouched");

	/* The queue is dead now; another queue works. */
	{
		struct drm_tgpu_submit_range r = pb_range(&c->pb);
		int err = submit(c->fd, q, &r, 1, NULL, 0, 0);

		ok(err == EIO, "SUBMIT to the dead queue: %s (want %s)",
		   strerror(err), strerror(EIO));
	}
	{
		struct drm_tgpu_queue_query qq = { .id = q };
		int err = xioctl(c->fd, DRM_IOCTL_TGPU_QUEUE_QUERY, &qq);

		ok(!err && qq.state == DRM_TGPU_QUEUE_STATE_DEAD && qq.error == -EIO &&
		   qq.chan_error == TGPU_ERR_SEM_FAULT,
		   "QUEUE_QUERY: dead, -EIO, SEM_FAULT (err %d, state %u, error %d, chan_error %u)",
		   err, qq.state, qq.error, qq.chan_error);
	}
	queue_destroy(c->fd, q);

	/* A read-only mapping refuses GPU writes. */
	ok(vm_bind(c->fd, bo, 0, va, 65536, DRM_TGPU_VM_BIND_READ_ONLY) == 0,
	   "VM_BIND it again, READ_ONLY");
	queue_create(c->fd, TGPU_RUNLIST_CE1, 2, &q2);
	pb_begin(&c->pb);
	pb_sem_release(&c->pb, va + 8, 0xa5a5a5a5);
	status = run(c, q2, pb_range(&c->pb));
	ok(status == -EIO && p[2] == 0,
	   "a GPU write to a READ_ONLY mapping fails the job (status %d), nothing written",
	   status);
	queue_destroy(c->fd, q2);
	vm_unbind(c->fd, va, 65536);
	munmap((void *)p, 65536);
	gem_close(c->fd, bo);
	c->pb.len = 0;
}

static void test_bind_errors(struct ctx *c)
{
	const uint64_t ks = DRM_TGPU_VA_KERNEL_START, va = 0x1000000000ull;
	struct drm_tgpu_vm_bind b;
	uint32_t bo = gem_create(c->fd, 65536);
	int err;

	static const struct {
		const char *what;
		uint64_t off, va, size;
		uint32_t flags;
		int err;
	} cases[] = {
		{ "size 0", 0, 0x1000000000ull, 0, 0, EINVAL },
		{ "unaligned size", 0, 0x1000000000ull, 4097, 0, EINVAL },
		{ "unaligned va", 0, 0x1000000800ull, 4096, 0, EINVAL },
		{ "unaligned bo_offset", 100, 0x1000000000ull, 4096, 0, EINVAL },
		{ "bo_offset + size beyond the object", 4096, 0x1000000000ull, 65536, 0, EINVAL },
		{ "bo_offset beyond the object", 1 << 20, 0x1000000000ull, 4096, 0, EINVAL },
		{ "va at the kernel range", 0, DRM_TGPU_VA_KERNEL_START, 4096, 0, EINVAL },
		{ "range into the kernel range", 0, DRM_TGPU_VA_KERNEL_START - 4096, 8192, 0, EINVAL },
		{ "va beyond 40 bits", 0, 1ull << 40, 4096, 0, EINVAL },
		{ "va + size wraps", 0, 0xfffffffffffff000ull, 8192, 0, EINVAL },
		{ "unknown flag", 0, 0x1000000000ull, 4096, 2, EINVAL },
	};
	size_t i;

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		err = vm_bind(c->fd, bo, cases[i].off, cases[i].va,
			      cases[i].size, cases[i].flags);
		ok(err == cases[i].err, "VM_BIND %s: %s (want %s)",
		   cases[i].what, strerror(err), strerror(cases[i].err));
		if (!err)
			vm_unbind(c->fd, cases[i].va, cases[i].size);
	}
	b = (struct drm_tgpu_vm_bind){ .handle = bo, .va = va, .size = 4096, .pad = 1 };
	err = xioctl(c->fd, DRM_IOCTL_TGPU_VM_BIND, &b);
	ok(err == EINVAL, "VM_BIND pad 1: %s (want %s)", strerror(err),
	   strerror(EINVAL));
	b = (struct drm_tgpu_vm_bind){ .handle = bo, .va = va, .size = 4096, .pad2 = 1 };
	err = xioctl(c->fd, DRM_IOCTL_TGPU_VM_BIND, &b);
	ok(err == EINVAL, "VM_BIND pad2 1: %s (want %s)", strerror(err),
	   strerror(EINVAL));
	err = vm_bind(c->fd, 0x7fffffff, 0, va, 4096, 0);
	ok(err == ENOENT, "VM_BIND of an unknown handle: %s (want %s)",
	   strerror(err), strerror(ENOENT));

	/* The last page below the kernel range is fine. */
	err = vm_bind(c->fd, bo, 0, ks - 65536, 65536, 0);
	ok(err == 0, "VM_BIND of the last 64 KiB below the kernel range: %s",
	   strerror(err));
	ok(vm_unbind(c->fd, ks - 65536, 65536) == 0, "VM_UNBIND of it");

	/* Overlaps. */
	ok(vm_bind(c->fd, bo, 0, va, 65536, 0) == 0, "VM_BIND 64 KiB at 64 GiB");
	err = vm_bind(c->fd, bo, 0, va, 65536, 0);
	ok(err == EEXIST, "VM_BIND of the same range again: %s (want %s)",
	   strerror(err), strerror(EEXIST));
	err = vm_bind(c->fd, bo, 0, va + 65536 - 4096, 8192, 0);
	ok(err == EEXIST, "VM_BIND overlapping its last page: %s (want %s)",
	   strerror(err), strerror(EEXIST));
	err = vm_bind(c->fd, bo, 0, va - 4096, 8192, 0);
	ok(err == EEXIST, "VM_BIND overlapping its first page: %s (want %s)",
	   strerror(err), strerror(EEXIST));
	err = vm_bind(c->fd, bo, 0, va + 4096, 4096, 0);
	ok(err == EEXIST, "VM_BIND inside it: %s (want %s)", strerror(err),
	   strerror(EEXIST));
	err = vm_bind(c->fd, bo, 0, va + 65536, 4096, 0);
	ok(err == 0, "VM_BIND right after it: %s", strerror(err));

	/* Unbind must name exactly one mapping. */
	err = vm_unbind(c->fd, va, 4096);
	ok(err == ENOENT, "VM_UNBIND of part of a mapping: %s (want %s)",
	   strerror(err), strerror(ENOENT));
	err = vm_unbind(c->fd, va, 65536 + 4096);
	ok(err == ENOENT, "VM_UNBIND of two mappings at once: %s (want %s)",
	   strerror(err), strerror(ENOENT));
	err = vm_unbind(c->fd, va + 4096, 65536);
	ok(err == ENOENT, "VM_UNBIND at a shifted address: %s (want %s)",
	   strerror(err), strerror(ENOENT));
	err = vm_unbind(c->fd, 0x2000000000ull, 4096);
	ok(err == ENOENT, "VM_UNBIND of an unmapped range: %s (want %s)",
	   strerror(err), strerror(ENOENT));
	err = vm_unbind(c->fd, va, 0);
	ok(err == ENOENT, "VM_UNBIND of size 0: %s (want %s)", strerror(err),
	   strerror(ENOENT));
	err = vm_unbind(c->fd, DRM_TGPU_VA_KERNEL_START + 0x8000, 0x1000);
	ok(err == ENOENT, "VM_UNBIND in the kernel range: %s (want %s)",
	   strerror(err), strerror(ENOENT));
	ok(vm_unbind(c->fd, va, 65536) == 0 && vm_unbind(c->fd, va + 65536, 4096) == 0,
	   "VM_UNBIND of both mappings");
	err = vm_unbind(c->fd, va, 65536);
	ok(err == ENOENT, "VM_UNBIND twice: %s (want %s)", strerror(err),
	   strerror(ENOENT));

	/* A mapping keeps its object: close the handle, the VRAM stays. */
	{
		uint64_t before = get_param(c->fd, DRM_TGPU_PARAM_VRAM_USED);

		ok(vm_bind(c->fd, bo, 0, va, 65536, 0) == 0, "VM_BIND, then GEM_CLOSE");
		gem_close(c->fd, bo);
		ok(get_param(c->fd, DRM_TGPU_PARAM_VRAM_USED) == before,
		   "the mapping keeps the object's VRAM after GEM_CLOSE");
		ok(vm_unbind(c->fd, va, 65536) == 0 &&
		   get_param(c->fd, DRM_TGPU_PARAM_VRAM_USED) == before - 65536,
		   "VM_UNBIND frees it");
	}
}

static void test_queue_errors(struct ctx *c)
{
	struct drm_tgpu_queue_create qc;
	struct drm_tgpu_queue_destroy qd;
	struct drm_tgpu_submit_range r = { .va = PB_VA, .dwords = 1 };
	struct drm_tgpu_submit s;
	uint32_t q, h = 1234567;
	int err;

	err = queue_create(c->fd, 3, 0, &q);
	ok(err == EINVAL, "QUEUE_CREATE engine 3: %s (want %s)", strerror(err),
	   strerror(EINVAL));
	err = queue_create(c->fd, 0, 4, &q);
	ok(err == EINVAL, "QUEUE_CREATE priority 4: %s (want %s)", strerror(err),
	   strerror(EINVAL));
	qc = (struct drm_tgpu_queue_create){ .flags = 2 };
	err = xioctl(c->fd, DRM_IOCTL_TGPU_QUEUE_CREATE, &qc);
	ok(err == EINVAL, "QUEUE_CREATE flags 2 (unknown): %s (want %s)",
	   strerror(err), strerror(EINVAL));
	err = queue_destroy(c->fd, 999);
	ok(err == ENOENT, "QUEUE_DESTROY of an unknown ID: %s (want %s)",
	   strerror(err), strerror(ENOENT));

	if (queue_create(c->fd, 0, 0, &q))
		return;
	{
		struct drm_tgpu_queue_query qq = { .id = q };

		err = xioctl(c->fd, DRM_IOCTL_TGPU_QUEUE_QUERY, &qq);
		ok(!err && qq.state == DRM_TGPU_QUEUE_STATE_ALIVE && qq.error == 0 &&
		   qq.chan_error == 0, "QUEUE_QUERY of a live queue: alive, no error");
		qq = (struct drm_tgpu_queue_query){ .id = q, .flags = 1 };
		err = xioctl(c->fd, DRM_IOCTL_TGPU_QUEUE_QUERY, &qq);
		ok(err == EINVAL, "QUEUE_QUERY flags 1: %s (want %s)", strerror(err),
		   strerror(EINVAL));
		qq = (struct drm_tgpu_queue_query){ .id = 999 };
		err = xioctl(c->fd, DRM_IOCTL_TGPU_QUEUE_QUERY, &qq);
		ok(err == ENOENT, "QUEUE_QUERY of an unknown ID: %s (want %s)",
		   strerror(err), strerror(ENOENT));
	}
	qd = (struct drm_tgpu_queue_destroy){ .id = q, .pad = 1 };
	err = xioctl(c->fd, DRM_IOCTL_TGPU_QUEUE_DESTROY, &qd);
	ok(err == EINVAL, "QUEUE_DESTROY pad 1: %s (want %s)", strerror(err),
	   strerror(EINVAL));

#define SUBMIT_CASE(what, want, ...) do { \
		s = (struct drm_tgpu_submit){ .queue = q, .count = 1, \
					      .ranges = (uintptr_t)&r }; \
		__VA_ARGS__; \
		err = xioctl(c->fd, DRM_IOCTL_TGPU_SUBMIT, &s); \
		ok(err == (want), "SUBMIT %s: %s (want %s)", what, \
		   strerror(err), strerror(want)); \
		r = (struct drm_tgpu_submit_range){ .va = PB_VA, .dwords = 1 }; \
	} while (0)

	SUBMIT_CASE("to an unknown queue", ENOENT, s.queue = 999);
	SUBMIT_CASE("flags 1", EINVAL, s.flags = 1);
	SUBMIT_CASE("pad 1", EINVAL, s.pad = 1);
	SUBMIT_CASE("count 0", EINVAL, s.count = 0);
	SUBMIT_CASE("count 65", EINVAL, s.count = 65);
	SUBMIT_CASE("a range with pad 1", EINVAL, r.pad = 1);
	SUBMIT_CASE("an unaligned range", EINVAL, r.va = PB_VA + 2);
	SUBMIT_CASE("a range of 0 dwords", EINVAL, r.dwords = 0);
	SUBMIT_CASE("a range of 2^21 dwords", EINVAL, r.dwords = 1u << 21);
	SUBMIT_CASE("a range in the kernel part of the VM", EINVAL,
		    r.va = DRM_TGPU_VA_KERNEL_START + 0x1000);
	SUBMIT_CASE("a range running into the kernel part", EINVAL,
		    r.va = DRM_TGPU_VA_KERNEL_START - 4; r.dwords = 2);
	SUBMIT_CASE("an unreadable ranges pointer", EFAULT, s.ranges = 8);
	SUBMIT_CASE("65 in-syncobjs", EINVAL, s.in_syncobj_count = 65);
	SUBMIT_CASE("an unreadable in-syncobjs pointer", EFAULT,
		    s.in_syncobj_count = 1; s.in_syncobjs = 8);
	SUBMIT_CASE("an unknown in-syncobj", ENOENT,
		    s.in_syncobj_count = 1; s.in_syncobjs = (uintptr_t)&h);
	SUBMIT_CASE("an unknown out-syncobj", ENOENT, s.out_syncobj = h);
	queue_destroy(c->fd, q);
}

/* A job waits for its in-syncobjs, also from another queue. */
static void test_in_syncobj(struct ctx *c)
{
	struct drm_tgpu_submit_range ra, rb;
	uint32_t qa, qb, sa, sb;
	int err, status;

	memset((void *)c->data, 0, DATA_SIZE);
	if (!ok(queue_create(c->fd, TGPU_RUNLIST_COMPUTE, 1, &qa) == 0 &&
		queue_create(c->fd, TGPU_RUNLIST_CE0, 3, &qb) == 0,
		"two queues, compute and CE0"))
		return;
	sa = syncobj_create(c->fd);
	sb = syncobj_create(c->fd);

	/* A blocks on a semaphore the CPU releases later, then writes. */
	pb_begin(&c->pb);
	pb_acquire_geq(&c->pb, DATA_VA + 0x1000, 1);
	pb_sem_release(&c->pb, DATA_VA + 0x1004, 0xaaaa);
	ra = pb_range(&c->pb);
	/* B writes, after A's fence. */
	pb_begin(&c->pb);
	pb_sem_release(&c->pb, DATA_VA + 0x1008, 0xbbbb);
	rb = pb_range(&c->pb);

	ok(submit(c->fd, qa, &ra, 1, NULL, 0, sa) == 0,
	   "SUBMIT on queue A: blocks on a semaphore");
	ok(submit(c->fd, qb, &rb, 1, &sa, 1, sb) == 0,
	   "SUBMIT on queue B with A's out-syncobj as its in-syncobj");
	err = syncobj_wait(c->fd, sb, 300);
	ok(err == ETIME && c->data[0x1008 / 4] == 0 && c->data[0x1004 / 4] == 0,
	   "B does not run while A is blocked (wait: %s)", strerror(err));
	c->data[0x1000 / 4] = 1;
	err = syncobj_wait(c->fd, sb, 10000);
	status = syncobj_status(c->fd, sb);
	ok(!err && status == 1 && c->data[0x1004 / 4] == 0xaaaa &&
	   c->data[0x1008 / 4] == 0xbbbb,
	   "once the CPU releases A's semaphore, A then B run (B's status %d)",
	   status);
	ok(syncobj_status(c->fd, sa) == 1, "A's fence signalled without error");

	/* An in-syncobj without a fence is refused. */
	{
		uint32_t empty = syncobj_create(c->fd);

		err = submit(c->fd, qb, &rb, 1, &empty, 1, 0);
		ok(err == EINVAL, "SUBMIT with an in-syncobj that has no fence: %s (want %s)",
		   strerror(err), strerror(EINVAL));
		syncobj_destroy(c->fd, empty);
	}
	syncobj_destroy(c->fd, sa);
	syncobj_destroy(c->fd, sb);
	queue_destroy(c->fd, qa);
	queue_destroy(c->fd, qb);
	c->pb.len = 0;
}

/* A queue on every engine and priority, all at once. */
static void test_engines(struct ctx *c)
{
	uint32_t engines = get_param(c->fd, DRM_TGPU_PARAM_ENGINES);
	uint32_t q[TGPU_NR_RUNLISTS][4], s[TGPU_NR_RUNLISTS][4];
	struct drm_tgpu_submit_range r;
	unsigned int e, p, made = 0, good = 0;
	int err;

	memset((void *)c->data, 0, DATA_SIZE);
	for (e = 0; e < TGPU_NR_RUNLISTS; e++) {
		if (!(engines & (1u << e)))
			continue;
		for (p = 0; p < 4; p++) {
			err = queue_create(c->fd, e, p, &q[e][p]);
			if (!ok(!err, "QUEUE_CREATE engine %u priority %u: %s",
				e, p, strerror(err)))
				continue;
			made++;
			s[e][p] = syncobj_create(c->fd);
			pb_begin(&c->pb);
			pb_sem_release(&c->pb, DATA_VA + 0x2000 + 16 * e + 4 * p,
				   0x100 * (e + 1) + p);
			r = pb_range(&c->pb);
			submit(c->fd, q[e][p], &r, 1, NULL, 0, s[e][p]);
		}
	}
	for (e = 0; e < TGPU_NR_RUNLISTS; e++) {
		if (!(engines & (1u << e)))
			continue;
		for (p = 0; p < 4; p++) {
			if (syncobj_wait(c->fd, s[e][p], 10000) == 0 &&
			    syncobj_status(c->fd, s[e][p]) == 1 &&
			    c->data[(0x2000 + 16 * e + 4 * p) / 4] ==
			    0x100 * (e + 1) + p)
				good++;
			syncobj_destroy(c->fd, s[e][p]);
			queue_destroy(c->fd, q[e][p]);
		}
	}
	ok(made == 12 && good == made,
	   "a job on each of %u queues (3 engines x 4 priorities) completes (%u good)",
	   made, good);
	c->pb.len = 0;
}

/*
 * A queue on every free channel, so in more than one 32-channel word of
 * FIFO_NONSTALL_PENDING: each fence signals, whichever word its
 * channel's bit is in.
 */
#define MANY_QUEUES	TGPU_CHANNELS_MAX

static void test_many_queues(struct ctx *c)
{
	static uint32_t q[MANY_QUEUES], s[MANY_QUEUES];
	unsigned int want = get_param(c->fd, DRM_TGPU_PARAM_CHANNELS) - 1;
	struct timespec t0;
	struct drm_tgpu_submit_range r;
	unsigned int i, made = 0, good = 0;

	if (want > MANY_QUEUES)
		want = MANY_QUEUES;
	memset((void *)c->data, 0, DATA_SIZE);
	for (i = 0; i < want; i++) {
		if (queue_create(c->fd, TGPU_RUNLIST_COMPUTE, i % 4, &q[i]))
			break;
		made++;
		s[i] = syncobj_create(c->fd);
		pb_begin(&c->pb);
		pb_sem_release(&c->pb, DATA_VA + 0x3000 + 4 * i, 0x7000 + i);
		r = pb_range(&c->pb);
		submit(c->fd, q[i], &r, 1, NULL, 0, s[i]);
	}
	/*
	 * The last first: its channel is in the highest word.  All within 3 s
	 * of the submissions, less than the job timeout, whose handler would
	 * signal a finished job's fence on its own.
	 */
	clock_gettime(CLOCK_MONOTONIC, &t0);
	while (i-- > 0) {
		struct timespec t1;
		long left;

		clock_gettime(CLOCK_MONOTONIC, &t1);
		left = 3000 - ((t1.tv_sec - t0.tv_sec) * 1000 +
			       (t1.tv_nsec - t0.tv_nsec) / 1000000);
		if (i < made && syncobj_wait(c->fd, s[i], left > 1 ? left : 1) == 0 &&
		    syncobj_status(c->fd, s[i]) == 1 &&
		    c->data[0x3000 / 4 + i] == 0x7000 + i)
			good++;
	}
	for (i = 0; i < made; i++) {
		syncobj_destroy(c->fd, s[i]);
		queue_destroy(c->fd, q[i]);
	}
	ok(want > 32 && made == want && good == made,
	   "%u queues at once, one on every free channel (%u words of NONSTALL_PENDING): every fence signals (%u good)",
	   made, (want + 32) / 32, good);
	c->pb.len = 0;
}

/* An illegal method fails that queue's job; another queue goes on. */
static void test_illegal_method(struct ctx *c)
{
	struct drm_tgpu_submit_range r;
	uint32_t bad, good;
	int status;

	memset((void *)c->data, 0, DATA_SIZE);
	if (queue_create(c->fd, TGPU_RUNLIST_COMPUTE, 2, &bad) ||
	    queue_create(c->fd, TGPU_RUNLIST_COMPUTE, 2, &good))
		bail("QUEUE_CREATE failed");

	pb_begin(&c->pb);
	pb_dword(&c->pb, TGPU_PB_HDR(TGPU_PB_OP_INC, 0, 0x0fc, 1));
	pb_dword(&c->pb, 0);
	pb_sem_release(&c->pb, DATA_VA + 0x3000, 0xdead);
	r = pb_range(&c->pb);
	status = run(c, bad, r);
	ok(status == -EIO, "a pushbuffer with an illegal method: the fence fails with -EIO (status %d)",
	   status);
	ok(c->data[0x3000 / 4] == 0, "nothing after the illegal method ran");

	pb_begin(&c->pb);
	pb_sem_release(&c->pb, DATA_VA + 0x3004, 0x600d);
	status = run(c, good, pb_range(&c->pb));
	ok(status == 1 && c->data[0x3004 / 4] == 0x600d,
	   "another queue on the same engine still runs (status %d)", status);
	queue_destroy(c->fd, bad);
	queue_destroy(c->fd, good);
	c->pb.len = 0;
}

/*
 * A job that never finishes (blocked on an acquire: no progress) hangs:
 * its fences fail with -ETIME, the file is guilty and banned, and the
 * driver logs an Xid 8 line naming the channel and the process.
 */
static void test_timeout(struct ctx *c)
{
	struct drm_tgpu_reset_status rs;
	struct timespec t0, t1;
	uint32_t q, q2, s, s2;
	struct drm_tgpu_submit_range r;
	int err, status;
	char cmd[160];
	double dt;

	err = reset_status(c->fd, &rs);
	ok(!err && rs.status == DRM_TGPU_RESET_NONE &&
	   !rs.flags, "RESET_STATUS before: none (%u, flags %u, %u resets)",
	   rs.status, rs.flags, rs.resets);
	rs.pad = 1;
	ok(xioctl(c->fd, DRM_IOCTL_TGPU_RESET_STATUS, &rs) == EINVAL,
	   "RESET_STATUS with padding set: EINVAL");

	memset((void *)c->data, 0, DATA_SIZE);
	queue_create(c->fd, TGPU_RUNLIST_CE1, 0, &q);
	s = syncobj_create(c->fd);
	s2 = syncobj_create(c->fd);
	pb_begin(&c->pb);
	pb_acquire_geq(&c->pb, DATA_VA + 0x4000, 1);
	r = pb_range(&c->pb);
	clock_gettime(CLOCK_MONOTONIC, &t0);
	ok(submit(c->fd, q, &r, 1, NULL, 0, s) == 0 &&
	   submit(c->fd, q, &r, 1, NULL, 0, s2) == 0,
	   "SUBMIT two jobs that block forever");
	err = syncobj_wait(c->fd, s2, 30000);
	clock_gettime(CLOCK_MONOTONIC, &t1);
	dt = (t1.tv_sec - t0.tv_sec) + (t1.tv_nsec - t0.tv_nsec) / 1e9;
	status = syncobj_status(c->fd, s);
	ok(!err && status == -ETIME,
	   "the first fails with -ETIME after %.1f s (status %d)", dt, status);
	if (expect_timeout_ms)
		ok(dt >= expect_timeout_ms / 1000.0 &&
		   dt < expect_timeout_ms / 1000.0 + 2.0,
		   "that is the job timeout, %u ms", expect_timeout_ms);
	status = syncobj_status(c->fd, s2);
	ok(status < 0, "the second fails too (status %d)", status);
	err = reset_status(c->fd, &rs);
	ok(!err && rs.status == DRM_TGPU_RESET_GUILTY &&
	   rs.resets >= 1 && !(rs.flags & DRM_TGPU_RESET_VRAM_LOST),
	   "RESET_STATUS: guilty, %u resets, VRAM kept (an engine reset)",
	   rs.resets);
	ok(queue_create(c->fd, TGPU_RUNLIST_CE0, 0, &q2) == 0 &&
	   submit(c->fd, q2, &r, 1, NULL, 0, 0) == ECANCELED,
	   "the guilty file's next submit, on a new queue: ECANCELED");
	snprintf(cmd, sizeof(cmd),
		 "dmesg | grep -q 'Xid 8: channel [0-9]* (pid %d, test-submit) stopped processing.*engine ce1 reset'",
		 (int)getpid());
	ok(system(cmd) == 0, "dmesg: \"Xid 8: channel N (pid %d, test-submit) stopped processing ..., engine ce1 reset\"",
	   (int)getpid());
	queue_destroy(c->fd, q2);
	syncobj_destroy(c->fd, s);
	syncobj_destroy(c->fd, s2);
	queue_destroy(c->fd, q);
	c->pb.len = 0;
}

/* fdinfo has the drm-*-vram keys: the objects this file has handles to. */
static bool fdinfo_has(int fd, const char *line)
{
	char path[64], buf[4096];
	ssize_t n;
	int f;

	snprintf(path, sizeof(path), "/proc/self/fdinfo/%d", fd);
	f = open(path, O_RDONLY | O_CLOEXEC);
	if (f < 0)
		return false;
	n = read(f, buf, sizeof(buf) - 1);
	close(f);
	if (n < 0)
		return false;
	buf[n] = 0;
	return strstr(buf, line) != NULL;
}

static void test_fdinfo(struct ctx *c)
{
	uint32_t h;

	ok(fdinfo_has(c->fd, "drm-driver:\ttgpu\n") &&
	   fdinfo_has(c->fd, "drm-total-vram:\t5 MiB\n") &&
	   fdinfo_has(c->fd, "drm-resident-vram:\t5 MiB\n") &&
	   fdinfo_has(c->fd, "drm-shared-vram:\t0\n"),
	   "fdinfo: drm-total-vram and drm-resident-vram are 5 MiB (1 + 4 MiB objects)");
	h = gem_create(c->fd, 12288);
	ok(fdinfo_has(c->fd, "drm-total-vram:\t5132 KiB\n"),
	   "fdinfo: a 12 KiB object more is 5132 KiB");
	gem_close(c->fd, h);
	ok(fdinfo_has(c->fd, "drm-total-vram:\t5 MiB\n"),
	   "fdinfo: back to 5 MiB after GEM_CLOSE");

	ok(fdinfo_has(c->fd, "drm-total-system:\t0\n") &&
	   fdinfo_has(c->fd, "drm-resident-system:\t0\n"),
	   "fdinfo: drm-total-system and drm-resident-system are 0 without SYSMEM objects");
	h = gem_create_sysmem(c->fd, 12288);
	ok(fdinfo_has(c->fd, "drm-total-system:\t12 KiB\n") &&
	   fdinfo_has(c->fd, "drm-resident-system:\t12 KiB\n") &&
	   fdinfo_has(c->fd, "drm-shared-system:\t0\n") &&
	   fdinfo_has(c->fd, "drm-total-vram:\t5 MiB\n"),
	   "fdinfo: a 12 KiB SYSMEM object counts in drm-*-system, not in vram");
	gem_close(c->fd, h);
	ok(fdinfo_has(c->fd, "drm-total-system:\t0\n"),
	   "fdinfo: drm-total-system back to 0 after GEM_CLOSE");
}

/* Threads submitting at once, to one queue and to their own queues. */
#define STRESS_THREADS	4
#define STRESS_JOBS	150

struct stress {
	struct ctx *c;
	uint32_t queue;
	unsigned int t;
	int err;
};

static void *stress_thread(void *arg)
{
	struct stress *st = arg;
	struct ctx *c = st->c;
	/* each thread its own 64 KiB of the pushbuffer object */
	uint32_t *pb = c->pb.cpu + (st->t + 1) * 16384;
	uint64_t pb_va = PB_VA + (st->t + 1) * 65536ull;
	struct drm_tgpu_submit_range r;
	uint32_t s = syncobj_create(c->fd);
	unsigned int i;

	for (i = 0; i < STRESS_JOBS && !st->err; i++) {
		uint32_t *p = pb + (i % 256) * 6;
		uint64_t a = DATA_VA + 0x6000 + 4 * st->t;

		pb_release(p, a, i + 1);
		r = (struct drm_tgpu_submit_range){
			.va = pb_va + (i % 256) * 24, .dwords = 6,
		};
		st->err = submit(c->fd, st->queue, &r, 1, NULL, 0, s);
	}
	if (!st->err)
		st->err = syncobj_wait(c->fd, s, 60000);
	if (!st->err && syncobj_status(c->fd, s) != 1)
		st->err = EIO;
	syncobj_destroy(c->fd, s);
	return NULL;
}

static void test_stress(struct ctx *c)
{
	struct stress st[STRESS_THREADS];
	pthread_t th[STRESS_THREADS];
	uint32_t shared, own[STRESS_THREADS];
	unsigned int t, pass, good;

	for (pass = 0; pass < 2; pass++) {
		memset((void *)c->data, 0, DATA_SIZE);
		if (queue_create(c->fd, TGPU_RUNLIST_COMPUTE, 0, &shared))
			bail("QUEUE_CREATE failed");
		for (t = 0; t < STRESS_THREADS; t++) {
			if (pass && queue_create(c->fd, t % TGPU_NR_RUNLISTS,
						 t % 4, &own[t]))
				bail("QUEUE_CREATE failed");
			st[t] = (struct stress){
				.c = c, .t = t,
				.queue = pass ? own[t] : shared,
			};
			pthread_create(&th[t], NULL, stress_thread, &st[t]);
		}
		for (t = 0, good = 0; t < STRESS_THREADS; t++) {
			pthread_join(th[t], NULL);
			if (!st[t].err &&
			    c->data[0x6000 / 4 + t] == STRESS_JOBS)
				good++;
			if (pass)
				queue_destroy(c->fd, own[t]);
		}
		queue_destroy(c->fd, shared);
		ok(good == STRESS_THREADS,
		   "%u threads x %u submits to %s: all complete, in order per thread (%u good)",
		   STRESS_THREADS, STRESS_JOBS,
		   pass ? "a queue each" : "one queue", good);
	}
}

/* The copy engine reads and writes through the file's VM. */
static void test_copy(struct ctx *c)
{
	const uint64_t dst_va = 0x0200000000ull + 0x1000;
	const uint32_t len = (1u << 20) + 12;
	uint32_t dst = gem_create(c->fd, 2u << 20), q, i, bad = 0;
	volatile uint32_t *d = gem_mmap(c->fd, dst, 2u << 20);
	int status;

	for (i = 0; i < DATA_SIZE / 4; i++)
		c->data[i] = pattern(i);
	/* into the second object, 4 KiB in, through a 4 KiB-page mapping */
	if (vm_bind(c->fd, dst, 0, dst_va - 0x1000, 2u << 20, 0) ||
	    queue_create(c->fd, TGPU_RUNLIST_CE0, 0, &q))
		bail("VM_BIND/QUEUE_CREATE failed");
	pb_begin(&c->pb);
	pb_copy(&c->pb, dst_va, DATA_VA + 0x100, len);
	status = run(c, q, pb_range(&c->pb));
	ok(status == 1, "a CE0 copy of 1 MiB + 12 bytes between two bound objects (status %d)",
	   status);
	for (i = 0; i < len / 4; i++)
		if (d[0x1000 / 4 + i] != pattern(0x100 / 4 + i))
			bad++;
	ok(bad == 0 && d[0x3ff] == 0 && d[0x1000 / 4 + len / 4] == 0,
	   "the destination is byte-exact (%u dwords wrong), nothing written around it",
	   bad);

	/* a copy into a READ_ONLY mapping faults */
	ok(vm_bind(c->fd, dst, 0, 0x0300000000ull, 65536,
		   DRM_TGPU_VM_BIND_READ_ONLY) == 0, "VM_BIND the destination READ_ONLY elsewhere");
	d[0] = 0;
	pb_begin(&c->pb);
	pb_copy(&c->pb, 0x0300000000ull, DATA_VA, 4096);
	status = run(c, q, pb_range(&c->pb));
	ok(status == -EIO && d[0] == 0,
	   "a CE0 copy into it fails the job with -EIO (status %d), nothing written",
	   status);
	queue_destroy(c->fd, q);
	vm_unbind(c->fd, 0x0300000000ull, 65536);
	vm_unbind(c->fd, dst_va - 0x1000, 2u << 20);
	munmap((void *)d, 2u << 20);
	gem_close(c->fd, dst);
	c->pb.len = 0;
}

/*
 * System-memory objects in the VM: the host unit's semaphore writes and
 * CE0 copies between them and VRAM, through the system-memory aperture.
 */
#define SYS_VA		0x0500000000ull		/* 20 GiB */
#define SYS_SIZE	(4u << 20)

static void test_sysmem(struct ctx *c)
{
	const uint32_t len = (1u << 20) + 12;
	const uint64_t off_va = 0x0600000000ull, ro_va = 0x0700000000ull;
	uint32_t sys = gem_create_sysmem(c->fd, SYS_SIZE), q, i, bad;
	volatile uint32_t *sp = gem_mmap(c->fd, sys, SYS_SIZE);
	uint64_t vram = get_param(c->fd, DRM_TGPU_PARAM_VRAM_USED);
	int err, status;

	/* the bind checks are the same as for VRAM objects */
	err = vm_bind(c->fd, sys, SYS_SIZE, SYS_VA, 4096, 0);
	ok(err == EINVAL, "SYSMEM: VM_BIND with bo_offset at the object's end: %s (want %s)",
	   strerror(err), strerror(EINVAL));
	err = vm_bind(c->fd, sys, 4096, SYS_VA, SYS_SIZE, 0);
	ok(err == EINVAL, "SYSMEM: VM_BIND with bo_offset + size beyond the object: %s (want %s)",
	   strerror(err), strerror(EINVAL));
	err = vm_bind(c->fd, sys, 0, SYS_VA, SYS_SIZE, 0);
	ok(err == 0, "SYSMEM: VM_BIND of a 4 MiB object at a 2 MiB aligned VA: %s",
	   strerror(err));
	err = vm_bind(c->fd, sys, 0, SYS_VA + 4096, 4096, 0);
	ok(err == EEXIST, "SYSMEM: VM_BIND overlapping it: %s (want %s)",
	   strerror(err), strerror(EEXIST));
	/* a second mapping of a part of it, at an object offset */
	err = vm_bind(c->fd, sys, 0x203000, off_va, 0x3000, 0);
	ok(err == 0, "SYSMEM: VM_BIND of 12 KiB at object offset 0x203000: %s",
	   strerror(err));
	ok(get_param(c->fd, DRM_TGPU_PARAM_VRAM_USED) - vram <= 3 * 8192,
	   "SYSMEM: binding takes no VRAM but page tables");

	/* the host unit's semaphore releases land in system memory */
	memset((void *)sp, 0, SYS_SIZE);
	if (queue_create(c->fd, TGPU_RUNLIST_CE0, 1, &q))
		bail("QUEUE_CREATE failed");
	pb_begin(&c->pb);
	pb_sem_release(&c->pb, SYS_VA + 8, 0x51515151);
	pb_sem_release(&c->pb, SYS_VA + (2u << 20) + 4, 0x52525252);
	pb_sem_release(&c->pb, SYS_VA + SYS_SIZE - 4, 0x53535353);
	pb_sem_release(&c->pb, off_va + 0x1ffc, 0x54545454);
	status = run(c, q, pb_range(&c->pb));
	ok(status == 1 && sp[2] == 0x51515151 &&
	   sp[(2u << 20) / 4 + 1] == 0x52525252 &&
	   sp[SYS_SIZE / 4 - 1] == 0x53535353 &&
	   sp[(0x203000 + 0x1ffc) / 4] == 0x54545454,
	   "SYSMEM: semaphore releases land where the CPU mapping sees them, also through the offset mapping (status %d)",
	   status);
	for (i = 0, bad = 0; i < SYS_SIZE / 4; i++)
		if (sp[i] && i != 2 && i != (2u << 20) / 4 + 1 &&
		    i != SYS_SIZE / 4 - 1 && i != (0x203000 + 0x1ffc) / 4)
			bad++;
	ok(bad == 0, "SYSMEM: nothing else in the object changed (%u dwords)",
	   bad);

	/* CE0: system memory -> VRAM */
	for (i = 0; i < SYS_SIZE / 4; i++)
		sp[i] = pattern(i ^ 0x5a5a);
	memset((void *)c->data, 0, DATA_SIZE);
	pb_begin(&c->pb);
	pb_copy(&c->pb, DATA_VA + 0x1000, SYS_VA + 0x1ff000 + 0x40, len);
	status = run(c, q, pb_range(&c->pb));
	ok(status == 1, "SYSMEM: a CE0 copy of 1 MiB + 12 bytes from system memory to VRAM (status %d)",
	   status);
	for (i = 0, bad = 0; i < len / 4; i++)
		if (c->data[0x1000 / 4 + i] != pattern(((0x1ff040 / 4) + i) ^ 0x5a5a))
			bad++;
	ok(bad == 0 && c->data[0x3ff] == 0 && c->data[0x1000 / 4 + len / 4] == 0,
	   "SYSMEM: the VRAM destination is byte-exact (%u dwords wrong), nothing written around it",
	   bad);

	/* CE0: VRAM -> system memory, across the 2 MiB boundary */
	for (i = 0; i < DATA_SIZE / 4; i++)
		c->data[i] = pattern(i + 77);
	memset((void *)sp, 0, SYS_SIZE);
	pb_begin(&c->pb);
	pb_copy(&c->pb, SYS_VA + 0x180000 + 4, DATA_VA + 0x2000, len);
	status = run(c, q, pb_range(&c->pb));
	ok(status == 1, "SYSMEM: a CE0 copy of 1 MiB + 12 bytes from VRAM to system memory (status %d)",
	   status);
	for (i = 0, bad = 0; i < len / 4; i++)
		if (sp[0x180004 / 4 + i] != pattern(0x2000 / 4 + i + 77))
			bad++;
	ok(bad == 0 && sp[0x180000 / 4] == 0 && sp[0x180004 / 4 + len / 4] == 0,
	   "SYSMEM: the system-memory destination is byte-exact (%u dwords wrong), nothing written around it",
	   bad);

	/* CE0: system memory -> system memory, into the offset mapping */
	pb_begin(&c->pb);
	pb_copy(&c->pb, off_va + 0x10, SYS_VA + 0x180004, 0x2000);
	status = run(c, q, pb_range(&c->pb));
	for (i = 0, bad = 0; i < 0x2000 / 4; i++)
		if (sp[(0x203010) / 4 + i] != pattern(0x2000 / 4 + i + 77))
			bad++;
	ok(status == 1 && bad == 0,
	   "SYSMEM: a copy within system memory through the offset mapping is byte-exact (status %d, %u wrong)",
	   status, bad);

	/* READ_ONLY: copies out work, copies in fault */
	ok(vm_bind(c->fd, sys, 0, ro_va, 65536, DRM_TGPU_VM_BIND_READ_ONLY) == 0,
	   "SYSMEM: VM_BIND READ_ONLY elsewhere");
	sp[0] = 0x0f0f0f0f;
	memset((void *)c->data, 0, 4096);
	pb_begin(&c->pb);
	pb_copy(&c->pb, DATA_VA, ro_va, 4096);
	status = run(c, q, pb_range(&c->pb));
	ok(status == 1 && c->data[0] == 0x0f0f0f0f,
	   "SYSMEM: a copy out of the READ_ONLY mapping works (status %d)", status);
	pb_begin(&c->pb);
	pb_copy(&c->pb, ro_va, DATA_VA + 4096, 4096);
	status = run(c, q, pb_range(&c->pb));
	ok(status == -EIO && sp[0] == 0x0f0f0f0f,
	   "SYSMEM: a copy into the READ_ONLY mapping fails the job with -EIO (status %d), nothing written",
	   status);
	queue_destroy(c->fd, q);
	vm_unbind(c->fd, ro_va, 65536);

	/* after VM_UNBIND the copy engine faults, the object stays as it was */
	if (queue_create(c->fd, TGPU_RUNLIST_CE0, 1, &q))
		bail("QUEUE_CREATE failed");
	ok(vm_unbind(c->fd, SYS_VA, SYS_SIZE) == 0, "SYSMEM: VM_UNBIND of the 4 MiB mapping");
	memset((void *)sp, 0, 8192);
	pb_begin(&c->pb);
	pb_copy(&c->pb, SYS_VA, DATA_VA, 8192);
	status = run(c, q, pb_range(&c->pb));
	for (i = 0, bad = 0; i < 8192 / 4; i++)
		bad += sp[i] != 0;
	ok(status == -EIO && bad == 0,
	   "SYSMEM: a CE0 copy into the unbound range fails the job with -EIO (status %d), the object untouched",
	   status);
	queue_destroy(c->fd, q);
	if (queue_create(c->fd, TGPU_RUNLIST_CE0, 1, &q))
		bail("QUEUE_CREATE failed");
	pb_begin(&c->pb);
	pb_copy(&c->pb, DATA_VA, SYS_VA, 4096);
	status = run(c, q, pb_range(&c->pb));
	ok(status == -EIO, "SYSMEM: a CE0 copy out of the unbound range fails the job with -EIO (status %d)",
	   status);
	queue_destroy(c->fd, q);

	/* the remaining mapping keeps the object after GEM_CLOSE */
	gem_close(c->fd, sys);
	if (queue_create(c->fd, TGPU_RUNLIST_CE1, 0, &q))
		bail("QUEUE_CREATE failed");
	pb_begin(&c->pb);
	pb_sem_release(&c->pb, off_va, 0x600dcafe);
	status = run(c, q, pb_range(&c->pb));
	ok(status == 1 && sp[0x203000 / 4] == 0x600dcafe,
	   "SYSMEM: after GEM_CLOSE the mapping still reaches the object (status %d)",
	   status);
	queue_destroy(c->fd, q);
	ok(vm_unbind(c->fd, off_va, 0x3000) == 0, "SYSMEM: VM_UNBIND of the offset mapping");
	munmap((void *)sp, SYS_SIZE);
	c->pb.len = 0;
}

/*
 * Two files are two address spaces: the same VA reaches each file's own
 * object, and a VA only the other file mapped faults.
 */
static void test_isolation(struct ctx *a)
{
	const uint64_t only_b = 0x0100000000ull;
	struct ctx b;
	uint32_t qa, qb, sa, sb, extra;
	struct drm_tgpu_submit_range ra, rb;
	volatile uint32_t *pe;
	int status;

	ctx_open(&b);
	memset((void *)a->data, 0, DATA_SIZE);
	extra = gem_create(b.fd, 4096);
	pe = gem_mmap(b.fd, extra, 4096);
	vm_bind(b.fd, extra, 0, only_b, 4096, 0);
	if (queue_create(a->fd, TGPU_RUNLIST_CE0, 1, &qa) ||
	    queue_create(b.fd, TGPU_RUNLIST_CE0, 1, &qb))
		bail("QUEUE_CREATE failed");
	sa = syncobj_create(a->fd);
	sb = syncobj_create(b.fd);
	pb_begin(&a->pb);
	pb_sem_release(&a->pb, DATA_VA + 0x5000, 0xaaaa0001);
	ra = pb_range(&a->pb);
	pb_begin(&b.pb);
	pb_sem_release(&b.pb, DATA_VA + 0x5000, 0xbbbb0001);
	rb = pb_range(&b.pb);
	ok(submit(a->fd, qa, &ra, 1, NULL, 0, sa) == 0 &&
	   submit(b.fd, qb, &rb, 1, NULL, 0, sb) == 0 &&
	   syncobj_wait(a->fd, sa, 10000) == 0 &&
	   syncobj_wait(b.fd, sb, 10000) == 0,
	   "two files write the same VA from their queues");
	ok(a->data[0x5000 / 4] == 0xaaaa0001 && b.data[0x5000 / 4] == 0xbbbb0001,
	   "each write lands in its own file's object (0x%08x, 0x%08x)",
	   a->data[0x5000 / 4], b.data[0x5000 / 4]);

	pb_begin(&a->pb);
	pb_sem_release(&a->pb, only_b, 0x0badbad0);
	status = run(a, qa, pb_range(&a->pb));
	ok(status == -EIO && pe[0] == 0,
	   "a VA only the other file mapped faults (status %d), its object untouched",
	   status);
	syncobj_destroy(a->fd, sa);
	queue_destroy(a->fd, qa);
	a->pb.len = 0;
	munmap((void *)pe, 4096);
	ctx_close(&b);
}

/* Closing a file tears down its queues and VM, even with work pending. */
static void test_close(int fd, uint64_t base)
{
	struct ctx c;
	uint32_t q[3], s;
	struct drm_tgpu_submit_range r;
	int i;

	ctx_open(&c);
	for (i = 0; i < 3; i++)
		queue_create(c.fd, i, i, &q[i]);
	s = syncobj_create(c.fd);
	pb_begin(&c.pb);
	pb_sem_release(&c.pb, DATA_VA, 1);
	r = pb_range(&c.pb);
	submit(c.fd, q[0], &r, 1, NULL, 0, s);
	ok(syncobj_wait(c.fd, s, 10000) == 0, "a file with queues and mappings ran a job");
	/* one blocked job left in flight */
	pb_begin(&c.pb);
	pb_acquire_geq(&c.pb, DATA_VA + 4, 1);
	r = pb_range(&c.pb);
	submit(c.fd, q[1], &r, 1, NULL, 0, 0);
	gem_close(c.fd, c.pb_bo);
	gem_close(c.fd, c.data_bo);
	ctx_close(&c);
	usleep(100000);
	ok(get_param(fd, DRM_TGPU_PARAM_VRAM_USED) == base,
	   "closing it (a job still blocked) frees its queues, page tables and objects: VRAM_USED back to the baseline");
}

/*
 * The device goes away (sysfs unbind) under a file with mappings, queues
 * and a blocked job: ioctls fail with -ENODEV, the job's fence fails,
 * closing the file is clean, and a rebound device works again.
 */
#define UNPLUG_SYSMEM_BOS	4

static int test_unplug(void)
{
	char bdf[256];
	struct drm_tgpu_submit_range r;
	uint32_t q, s, sys[UNPLUG_SYSMEM_BOS], i, k, bad, bound = 0;
	volatile uint32_t *sp[UNPLUG_SYSMEM_BOS];
	struct ctx c;
	int err, status, sync_fd;

	bdf_of_node(node, bdf, sizeof(bdf));

	ctx_open(&c);
	/*
	 * System-memory objects, bound and mapped, across the unplug: the
	 * unbind unmaps each for the device (under DMA_API_DEBUG one it
	 * misses is a splat), and their CPU mappings keep their data.
	 */
	for (k = 0; k < UNPLUG_SYSMEM_BOS; k++) {
		sys[k] = gem_create_sysmem(c.fd, 65536);
		sp[k] = gem_mmap(c.fd, sys[k], 65536);
		for (i = 0; i < 65536 / 4; i++)
			sp[k][i] = pattern(i + k);
		bound += vm_bind(c.fd, sys[k], 0, SYS_VA + k * 65536ull,
				 65536, 0) == 0;
	}
	ok(bound == UNPLUG_SYSMEM_BOS,
	   "%u of %u SYSMEM objects bound and mapped before the unplug", bound,
	   UNPLUG_SYSMEM_BOS);
	if (queue_create(c.fd, TGPU_RUNLIST_COMPUTE, 0, &q))
		bail("QUEUE_CREATE failed");
	s = syncobj_create(c.fd);
	pb_begin(&c.pb);
	pb_acquire_geq(&c.pb, DATA_VA, 1);
	r = pb_range(&c.pb);
	ok(submit(c.fd, q, &r, 1, NULL, 0, s) == 0, "SUBMIT a job that blocks");
	ok(syncobj_wait(c.fd, s, 200) == ETIME, "it is blocked");
	/* after unplug every DRM ioctl fails: keep the fence as a sync file */
	{
		struct drm_syncobj_handle e = {
			.handle = s,
			.flags = DRM_SYNCOBJ_HANDLE_TO_FD_FLAGS_EXPORT_SYNC_FILE,
			.fd = -1,
		};

		if (xioctl(c.fd, DRM_IOCTL_SYNCOBJ_HANDLE_TO_FD, &e))
			bail("cannot export the fence");
		sync_fd = e.fd;
	}

	err = write_file("/sys/bus/pci/drivers/tgpu/unbind", bdf);
	ok(!err, "unbind %s from tgpu with the file open: %s", bdf,
	   strerror(err));
	err = submit(c.fd, q, &r, 1, NULL, 0, 0);
	ok(err == ENODEV, "SUBMIT after unplug: %s (want %s)", strerror(err),
	   strerror(ENODEV));
	err = vm_bind(c.fd, c.data_bo, 0, 0x7000000000ull, 4096, 0);
	ok(err == ENODEV, "VM_BIND after unplug: %s (want %s)", strerror(err),
	   strerror(ENODEV));
	{
		struct pollfd pfd = { .fd = sync_fd, .events = POLLIN };
		struct sync_file_info info;

		memset(&info, 0, sizeof(info));
		err = poll(&pfd, 1, 1000) == 1 ? 0 : ETIME;
		status = ioctl(sync_fd, SYNC_IOC_FILE_INFO, &info) ? -1001 :
			 info.status;
		ok(!err && status == -ENODEV,
		   "the blocked job's fence fails at once with -ENODEV (status %d)",
		   status);
		close(sync_fd);
	}
	err = queue_destroy(c.fd, q);
	ok(err == ENODEV, "QUEUE_DESTROY after unplug: %s (want %s)",
	   strerror(err), strerror(ENODEV));
	{
		struct drm_tgpu_gem_create gc = {
			.size = 4096, .flags = DRM_TGPU_GEM_CREATE_SYSMEM,
		};

		err = xioctl(c.fd, DRM_IOCTL_TGPU_GEM_CREATE, &gc);
		ok(err == ENODEV, "GEM_CREATE SYSMEM after unplug: %s (want %s)",
		   strerror(err), strerror(ENODEV));
	}
	for (k = 0, bad = 0; k < UNPLUG_SYSMEM_BOS; k++)
		for (i = 0; i < 65536 / 4; i++)
			bad += sp[k][i] != pattern(i + k);
	ok(bad == 0, "the SYSMEM objects' CPU mappings still have their data after unplug (%u wrong)",
	   bad);
	ctx_close(&c);
	ok(true, "closing the file after unplug returns");
	for (k = 0; k < UNPLUG_SYSMEM_BOS; k++) {
		sp[k][0] = 1;
		munmap((void *)sp[k], 65536);
	}
	ok(true, "the SYSMEM mappings outlive the file; munmap frees the objects");

	err = write_file("/sys/bus/pci/drivers/tgpu/bind", bdf);
	ok(!err, "bind %s again: %s", bdf, strerror(err));
	ctx_open(&c);
	if (!ok(queue_create(c.fd, TGPU_RUNLIST_CE0, 0, &q) == 0,
		"QUEUE_CREATE on the rebound device"))
		return tap_done();
	pb_begin(&c.pb);
	pb_sem_release(&c.pb, DATA_VA + 4, 0x12345678);
	status = run(&c, q, pb_range(&c.pb));
	ok(status == 1 && c.data[1] == 0x12345678,
	   "a job runs on the rebound device (status %d)", status);
	ctx_close(&c);
	return tap_done();
}

/*
 * 2 MiB pages: GPU writes to 256 pages of one 2 MiB-aligned mapping miss
 * the TLB a handful of times (one large entry), the same writes through
 * a mapping that cannot use large pages miss once per page.  Reads the
 * TLB counters in BAR0 (sysfs resource0: the kernel needs iomem=relaxed).
 */
/*
 * The driver clears new VRAM objects with its own channel (channel 0 on
 * copy engine 0): each GEM_CREATE is at least one CE0 launch, and memory
 * a freed object left dirty comes back zeroed.
 */
static void test_kernel_clears(const volatile uint32_t *bar0)
{
	const uint32_t launches = TGPU_CE_REG(0, TGPU_CE_LAUNCHES) / 4;
	int fd = open(node, O_RDWR | O_CLOEXEC);
	volatile uint32_t *p;
	uint32_t before, bo, i;
	bool zero = true;

	if (fd < 0)
		bail("cannot open the render node");
	/* dirty 64 MiB, free it, then take it again */
	bo = gem_create(fd, 64u << 20);
	p = gem_mmap(fd, bo, 64u << 20);
	for (i = 0; i < (64u << 20) / 4; i += 1024)
		p[i] = 0xdeadbeef;
	munmap((void *)p, 64u << 20);
	gem_close(fd, bo);
	before = bar0[launches];
	bo = gem_create(fd, 64u << 20);
	ok(bar0[launches] - before >= 1,
	   "GEM_CREATE clears with copy engine 0 (%u launches)", bar0[launches] - before);
	p = gem_mmap(fd, bo, 64u << 20);
	for (i = 0; i < (64u << 20) / 4 && zero; i += 1024)
		zero = p[i] == 0;
	ok(zero, "memory a freed object dirtied comes back zeroed");
	munmap((void *)p, 64u << 20);
	close(fd);
}

/*
 * The queue's GPFIFO, USERD and fence pushbuffers are privileged pages:
 * neither a semaphore release nor a copy of the user's reaches them.  In
 * a fresh boot the first queue is on channel 1, so its GPFIFO page is at
 * KERNEL_START + 32 KiB + 4 KiB (tgpu_queue.c); the fault the driver logs
 * must say PRIVILEGE (not NOT_PRESENT) at that address.
 */
static void test_priv(void)
{
	const uint64_t gpfifo = DRM_TGPU_VA_KERNEL_START + 0x8000 + 0x1000;
	uint32_t q, q2;
	struct ctx c;
	int status;

	ctx_open(&c);
	if (queue_create(c.fd, TGPU_RUNLIST_CE0, 0, &q))
		bail("QUEUE_CREATE failed");
	pb_begin(&c.pb);
	pb_sem_release(&c.pb, gpfifo, 0);
	status = run(&c, q, pb_range(&c.pb));
	ok(status == -EIO, "a semaphore release into the queue's own GPFIFO page fails the job (status %d)",
	   status);
	ok(system("dmesg | grep -q 'MMU fault: PRIVILEGE on write at 0xffc0009000'") == 0,
	   "the MMU refused it as PRIVILEGE (the page is mapped, privileged)");
	queue_destroy(c.fd, q);

	if (queue_create(c.fd, TGPU_RUNLIST_CE0, 0, &q2))
		bail("QUEUE_CREATE failed");
	pb_begin(&c.pb);
	pb_copy(&c.pb, gpfifo, DATA_VA, 64);
	status = run(&c, q2, pb_range(&c.pb));
	ok(status == -EIO, "a CE0 copy into the queue's own GPFIFO page fails the job (status %d)",
	   status);
	ok(system("dmesg | grep 'MMU fault: PRIVILEGE on write at 0xffc0009000' | grep -q ce0") == 0,
	   "the MMU refused the copy engine as PRIVILEGE");
	queue_destroy(c.fd, q2);
	ctx_close(&c);
}

static uint32_t tlb_misses(const volatile uint32_t *bar0)
{
	return bar0[TGPU_MMU_TLB_MISSES / 4];
}

static int test_large_pages(void)
{
	const uint64_t va_small = 0x0080001000ull;
	const volatile uint32_t *bar0;
	uint32_t q, before, large, small;
	struct ctx c;
	int fd, i, status;

	fd = open("/sys/class/drm/renderD128/device/resource0",
		  O_RDONLY | O_CLOEXEC);
	if (!ok(fd >= 0, "open BAR0 (resource0)"))
		return tap_done();
	bar0 = mmap(NULL, TGPU_BAR0_SIZE, PROT_READ, MAP_SHARED, fd, 0);
	close(fd);
	if (!ok(bar0 != MAP_FAILED, "mmap BAR0 read-only"))
		return tap_done();

	ctx_open(&c);
	if (queue_create(c.fd, TGPU_RUNLIST_COMPUTE, 0, &q))
		bail("QUEUE_CREATE failed");
	memset((void *)c.data, 0, DATA_SIZE);

	/* the 4 MiB data object at a 2 MiB-aligned VA: large pages */
	pb_begin(&c.pb);
	for (i = 0; i < 256; i++)
		pb_sem_release(&c.pb, DATA_VA + 8192ull * i, i + 1);
	before = tlb_misses(bar0);
	status = run(&c, q, pb_range(&c.pb));
	large = tlb_misses(bar0) - before;
	ok(status == 1 && c.data[0] == 1 && c.data[255 * 2048] == 256,
	   "256 writes, 8 KiB apart, through the 2 MiB-aligned mapping land");

	/* the same object at a VA 4 KiB off 2 MiB alignment: 4 KiB pages */
	if (vm_bind(c.fd, c.data_bo, 0, va_small, 2u << 20, 0))
		bail("VM_BIND failed");
	memset((void *)c.data, 0, DATA_SIZE);
	pb_begin(&c.pb);
	for (i = 0; i < 256; i++)
		pb_sem_release(&c.pb, va_small + 8192ull * i, i + 1);
	before = tlb_misses(bar0);
	status = run(&c, q, pb_range(&c.pb));
	small = tlb_misses(bar0) - before;
	ok(status == 1 && c.data[0] == 1 && c.data[255 * 2048] == 256,
	   "the same writes through a mapping 4 KiB off 2 MiB alignment land");

	ok(large < 32 && small >= 256,
	   "TLB misses: %u with 2 MiB pages, %u with 4 KiB pages", large,
	   small);

	/* system memory at a 2 MiB-aligned VA still gets 4 KiB pages */
	{
		uint32_t sys = gem_create_sysmem(c.fd, 2u << 20), sysm;
		volatile uint32_t *sp = gem_mmap(c.fd, sys, 2u << 20);

		if (vm_bind(c.fd, sys, 0, SYS_VA, 2u << 20, 0))
			bail("VM_BIND failed");
		pb_begin(&c.pb);
		for (i = 0; i < 256; i++)
			pb_sem_release(&c.pb, SYS_VA + 8192ull * i, i + 1);
		before = tlb_misses(bar0);
		status = run(&c, q, pb_range(&c.pb));
		sysm = tlb_misses(bar0) - before;
		ok(status == 1 && sp[0] == 1 && sp[255 * 2048] == 256,
		   "the same writes through a 2 MiB-aligned SYSMEM mapping land");
		ok(sysm >= 256, "TLB misses: %u with SYSMEM (4 KiB pages only)",
		   sysm);
		munmap((void *)sp, 2u << 20);
	}
	queue_destroy(c.fd, q);
	ctx_close(&c);

	test_priv();
	test_kernel_clears(bar0);
	return tap_done();
}

int main(int argc, char **argv)
{
	bool timeout = true;
	struct ctx c;
	uint64_t base;
	int i, fd;

	for (i = 1; i < argc; i++) {
		if (strncmp(argv[i], "--node=", 7) == 0) {
			node = argv[i] + 7;
		} else if (strncmp(argv[i], "--timeout-ms=", 13) == 0) {
			expect_timeout_ms = strtoul(argv[i] + 13, NULL, 0);
		} else if (strcmp(argv[i], "--no-timeout") == 0) {
			timeout = false;
		} else if (strcmp(argv[i], "--unplug") == 0) {
			return test_unplug();
		} else if (strcmp(argv[i], "--mmu") == 0) {
			return test_large_pages();
		} else {
			fprintf(stderr, "usage: test-submit [--node=PATH] [--timeout-ms=MS | --no-timeout | --unplug | --mmu]\n");
			return 2;
		}
	}

	fd = open(node, O_RDWR | O_CLOEXEC);
	if (!ok(fd >= 0, "open(%s, O_RDWR)", node))
		bail("no render node");
	base = get_param(fd, DRM_TGPU_PARAM_VRAM_USED);

	ctx_open(&c);
	test_fdinfo(&c);
	test_bind_errors(&c);
	test_bind_write(&c);
	test_bind_offset(&c);
	test_unbind_effect(&c);
	test_queue_errors(&c);
	test_in_syncobj(&c);
	test_engines(&c);
	test_many_queues(&c);
	test_illegal_method(&c);
	test_isolation(&c);
	test_copy(&c);
	test_sysmem(&c);
	test_stress(&c);
	if (timeout)
		test_timeout(&c);
	gem_close(c.fd, c.pb_bo);
	gem_close(c.fd, c.data_bo);
	ctx_close(&c);
	ok(get_param(fd, DRM_TGPU_PARAM_VRAM_USED) == base,
	   "VRAM_USED back to the baseline after closing the file");

	test_close(fd, base);
	close(fd);
	return tap_done();
}
