/* SPDX-License-Identifier: MIT */
/*
 * Raw tgpu ioctls for the in-guest tests that want the kernel's errno as
 * is (no libdrm retry logic, no libtgpu): test-debugfs, test-ioctl,
 * test-leak, test-prime, test-pt, test-submit.  Include after guest-tap.h.  Helpers that cannot fail in a
 * working setup bail() instead of returning an error.
 */
#ifndef TGPU_GUEST_RAW_H
#define TGPU_GUEST_RAW_H

#include <errno.h>
#include <stdint.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#include <linux/sync_file.h>

#include <tgpu_drm.h>
#include <tgpu/channel.h>
#include <tgpu/copy.h>
#include <tgpu/regs.h>

/* 0, or the errno; EINTR and EAGAIN are retried. */
static inline int xioctl(int fd, unsigned long req, void *arg)
{
	int r;

	do {
		r = ioctl(fd, req, arg);
	} while (r < 0 && (errno == EINTR || errno == EAGAIN));
	return r < 0 ? errno : 0;
}

static inline uint64_t get_param(int fd, uint32_t param)
{
	struct drm_tgpu_get_param p = { .param = param };

	if (xioctl(fd, DRM_IOCTL_TGPU_GET_PARAM, &p))
		bail("GET_PARAM failed");
	return p.value;
}

static inline int gem_create_err(int fd, uint64_t size, uint32_t flags,
				 uint32_t *handle)
{
	struct drm_tgpu_gem_create c = { .size = size, .flags = flags };
	int err = xioctl(fd, DRM_IOCTL_TGPU_GEM_CREATE, &c);

	if (!err && handle)
		*handle = c.handle;
	return err;
}

static inline uint32_t gem_create_flags(int fd, uint64_t size, uint32_t flags)
{
	uint32_t h = 0;

	if (gem_create_err(fd, size, flags, &h))
		bail("GEM_CREATE failed");
	return h;
}

static inline int gem_close(int fd, uint32_t handle)
{
	struct drm_gem_close c = { .handle = handle };

	return xioctl(fd, DRM_IOCTL_GEM_CLOSE, &c);
}

static inline void *gem_mmap(int fd, uint32_t handle, size_t size)
{
	struct drm_tgpu_gem_mmap_offset m = { .handle = handle };
	void *p;

	if (xioctl(fd, DRM_IOCTL_TGPU_GEM_MMAP_OFFSET, &m))
		bail("GEM_MMAP_OFFSET failed");
	p = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_SHARED, fd,
		 (off_t)m.offset);
	if (p == MAP_FAILED)
		bail("mmap failed");
	return p;
}

static inline int vm_bind(int fd, uint32_t handle, uint64_t bo_offset,
			  uint64_t va, uint64_t size, uint32_t flags)
{
	struct drm_tgpu_vm_bind b = {
		.handle = handle, .bo_offset = bo_offset, .va = va,
		.size = size, .flags = flags,
	};

	return xioctl(fd, DRM_IOCTL_TGPU_VM_BIND, &b);
}

static inline int vm_unbind(int fd, uint64_t va, uint64_t size)
{
	struct drm_tgpu_vm_unbind u = { .va = va, .size = size };

	return xioctl(fd, DRM_IOCTL_TGPU_VM_UNBIND, &u);
}

/* PRIME: a handle to a dma-buf fd and back; 0 or the errno. */
static inline int prime_export(int fd, uint32_t handle, uint32_t flags,
			       int *out)
{
	struct drm_prime_handle p = { .handle = handle, .flags = flags, .fd = -1 };
	int err = xioctl(fd, DRM_IOCTL_PRIME_HANDLE_TO_FD, &p);

	*out = p.fd;
	return err;
}

static inline int prime_import(int fd, int buf, uint32_t *handle)
{
	struct drm_prime_handle p = { .fd = buf };
	int err = xioctl(fd, DRM_IOCTL_PRIME_FD_TO_HANDLE, &p);

	*handle = p.handle;
	return err;
}

static inline int queue_create(int fd, uint32_t engine, uint32_t priority,
			       uint32_t *id)
{
	struct drm_tgpu_queue_create c = {
		.engine = engine, .priority = priority,
	};
	int err = xioctl(fd, DRM_IOCTL_TGPU_QUEUE_CREATE, &c);

	if (!err)
		*id = c.id;
	return err;
}

static inline int queue_destroy(int fd, uint32_t id)
{
	struct drm_tgpu_queue_destroy d = { .id = id };

	return xioctl(fd, DRM_IOCTL_TGPU_QUEUE_DESTROY, &d);
}

/* DRM_IOCTL_TGPU_RESET_STATUS: 0 or the errno. */
static inline int reset_status(int fd, struct drm_tgpu_reset_status *rs)
{
	memset(rs, 0, sizeof(*rs));
	return xioctl(fd, DRM_IOCTL_TGPU_RESET_STATUS, rs);
}

static inline uint32_t syncobj_create(int fd)
{
	struct drm_syncobj_create c = { 0 };

	if (xioctl(fd, DRM_IOCTL_SYNCOBJ_CREATE, &c))
		bail("SYNCOBJ_CREATE failed");
	return c.handle;
}

static inline void syncobj_destroy(int fd, uint32_t h)
{
	struct drm_syncobj_destroy d = { .handle = h };

	xioctl(fd, DRM_IOCTL_SYNCOBJ_DESTROY, &d);
}

/* 0 when signalled within @ms, else the errno (ETIME on timeout). */
static inline int syncobj_wait(int fd, uint32_t h, int ms)
{
	struct timespec now;
	struct drm_syncobj_wait w = {
		.handles = (uintptr_t)&h,
		.count_handles = 1,
	};

	clock_gettime(CLOCK_MONOTONIC, &now);
	w.timeout_nsec = now.tv_sec * 1000000000ll + now.tv_nsec +
			 ms * 1000000ll;
	return xioctl(fd, DRM_IOCTL_SYNCOBJ_WAIT, &w);
}

/* The fence's status: 1 signalled, 0 pending, negative the error. */
static inline int syncobj_status(int fd, uint32_t h)
{
	struct drm_syncobj_handle e = {
		.handle = h,
		.flags = DRM_SYNCOBJ_HANDLE_TO_FD_FLAGS_EXPORT_SYNC_FILE,
		.fd = -1,
	};
	struct sync_file_info info;
	int status;

	if (xioctl(fd, DRM_IOCTL_SYNCOBJ_HANDLE_TO_FD, &e))
		return -1000;
	memset(&info, 0, sizeof(info));
	status = ioctl(e.fd, SYNC_IOC_FILE_INFO, &info) ? -1001 : info.status;
	close(e.fd);
	return status;
}

static inline int submit(int fd, uint32_t queue,
			 const struct drm_tgpu_submit_range *r, uint32_t count,
			 const uint32_t *in, uint32_t nin, uint32_t out)
{
	struct drm_tgpu_submit s = {
		.queue = queue, .count = count, .ranges = (uintptr_t)r,
		.in_syncobjs = (uintptr_t)in, .in_syncobj_count = nin,
		.out_syncobj = out,
	};

	return xioctl(fd, DRM_IOCTL_TGPU_SUBMIT, &s);
}

/* Write semaphore operation @op, 32-bit @payload at @addr, at @p: 6 dwords. */
static inline unsigned int pb_sem_op(uint32_t *p, uint64_t addr,
				     uint32_t payload, uint32_t op)
{
	return tgpu_pb_sem(p, addr, payload, op);
}

/* Write a 32-bit semaphore release of @payload to @addr at @p: 6 dwords. */
static inline unsigned int pb_release(uint32_t *p, uint64_t addr,
				      uint32_t payload)
{
	return pb_sem_op(p, addr, payload, TGPU_SEM_OP_RELEASE);
}

/* Submit one range on a fresh syncobj and wait; the fence's status. */
static inline int run_job(int fd, uint32_t q, uint64_t va, uint32_t dwords)
{
	struct drm_tgpu_submit_range r = { .va = va, .dwords = dwords };
	uint32_t s = syncobj_create(fd);
	int err, status;

	err = submit(fd, q, &r, 1, NULL, 0, s);
	if (err) {
		syncobj_destroy(fd, s);
		return -10000 - err;
	}
	err = syncobj_wait(fd, s, 10000);
	status = err ? -20000 - err : syncobj_status(fd, s);
	syncobj_destroy(fd, s);
	return status;
}

/* Write a one-line copy-engine copy on subchannel 0 at @p: 11 dwords. */
static inline unsigned int pb_ce_copy(uint32_t *p, uint64_t dst, uint64_t src,
				      uint32_t len)
{
	p[0] = TGPU_PB_HDR(TGPU_PB_OP_INC, 0, TGPU_M_SET_OBJECT, 1);
	p[1] = TGPU_CLASS_COPY;
	p[2] = TGPU_PB_HDR(TGPU_PB_OP_INC, 0, TGPU_CE_M_OFFSET_IN_UPPER, 4);
	p[3] = (uint32_t)(src >> 32);
	p[4] = (uint32_t)src;
	p[5] = (uint32_t)(dst >> 32);
	p[6] = (uint32_t)dst;
	p[7] = TGPU_PB_HDR(TGPU_PB_OP_INC, 0, TGPU_CE_M_LINE_LENGTH_IN, 1);
	p[8] = len;
	p[9] = TGPU_PB_HDR(TGPU_PB_OP_INC, 0, TGPU_CE_M_LAUNCH_DMA, 1);
	p[10] = TGPU_CE_LAUNCH(TGPU_CE_TRANSFER_PIPELINED, TGPU_CE_SEM_NONE,
			       TGPU_CE_INTR_NONE);
	return 11;
}

/*
 * A semaphore release through a new compute queue on @fd lands: 0, or
 * the step that failed (GPU VA 0x100000 must be free)
 */
static inline int job_works(int fd)
{
	uint32_t bo = gem_create_flags(fd, 0x1000, 0), q = 0;
	uint32_t *pb = gem_mmap(fd, bo, 0x1000);
	int err = 0;

	pb_release(pb, 0x100000 + 0x800, 0x5eed);
	if (vm_bind(fd, bo, 0, 0x100000, 0x1000, 0))
		err = 1;
	else if (queue_create(fd, TGPU_RUNLIST_COMPUTE, 0, &q))
		err = 2;
	else if (run_job(fd, q, 0x100000, 6) != 1)
		err = 3;
	else if (((volatile uint32_t *)pb)[0x800 / 4] != 0x5eed)
		err = 4;
	if (q)
		queue_destroy(fd, q);
	munmap(pb, 0x1000);
	vm_unbind(fd, 0x100000, 0x1000);
	gem_close(fd, bo);
	return err;
}

static inline const char *errname(int err)
{
	return err ? strerror(err) : "success";
}

#endif /* TGPU_GUEST_RAW_H */
