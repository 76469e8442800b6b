// SPDX-License-Identifier: MIT
/*
 * libtgpu: contexts (one render-node file, so one GPU VM each), their
 * sticky errors, the VA allocator and memory blocks.
 *
 * The kernel driver leaves the user part of the VM to us: VM_BIND puts a
 * buffer object wherever we say.  We hand out VAs from 4 GiB up (so that
 * small integers are never valid device pointers), first fit, aligned so
 * that big blocks can use the driver's 2 MiB pages.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include <xf86drm.h>

#include <tgpu_drm.h>

#include "tgpu-internal.h"

#define VA_START        (1ull << 32)
#define VA_END          DRM_TGPU_VA_KERNEL_START
#define PAGE            DRM_TGPU_VM_PAGE_SIZE
#define BIG_PAGE        (2ull << 20)

static uint64_t align_up(uint64_t v, uint64_t a)
{
	return (v + a - 1) & ~(a - 1);
}

/* ---- lists ---------------------------------------------------------------- */

bool tu_list_add(struct tu_ptr_list *l, void *p)
{
	if (l->n == l->cap) {
		size_t ncap = l->cap ? 2 * l->cap : 8;
		void **v = realloc(l->v, ncap * sizeof(*v));

		if (!v)
			return false;
		l->v = v;
		l->cap = ncap;
	}
	l->v[l->n++] = p;
	return true;
}

void tu_list_remove(struct tu_ptr_list *l, void *p)
{
	size_t i;

	for (i = 0; i < l->n; i++) {
		if (l->v[i] == p) {
			l->v[i] = l->v[--l->n];
			return;
		}
	}
}

/* ---- sticky errors -------------------------------------------------------- */

tgpu_status tu_ctx_set_sticky(tgpu_context *ctx, tgpu_status st,
			      const char *fmt, ...)
{
	char msg[sizeof(ctx->sticky_msg)];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	pthread_mutex_lock(&ctx->lock);
	if (!ctx->sticky) {
		ctx->sticky = st;
		snprintf(ctx->sticky_msg, sizeof(ctx->sticky_msg), "%s", msg);
	}
	pthread_mutex_unlock(&ctx->lock);
	tu_set_last_error(msg);
	return st;
}

tgpu_status tu_ctx_enter(tgpu_context *ctx, const char *fn)
{
	tgpu_status st;
	char msg[sizeof(ctx->sticky_msg)];

	if (!tu_handle_valid(ctx, TU_H_CONTEXT))
		return tu_fail(TGPU_ERROR_INVALID_CONTEXT,
			       "%s: %p is not a live context: it was destroyed, or never came from tgpu_ctx_create()",
			       fn, (void *)ctx);
	pthread_mutex_lock(&ctx->lock);
	st = ctx->sticky;
	if (st)
		memcpy(msg, ctx->sticky_msg, sizeof(msg));
	pthread_mutex_unlock(&ctx->lock);
	if (st)
		return tu_fail(st, "%s: the context is unusable after an earlier failure (%s): %s; destroy it and create a new one",
			       fn, tgpu_get_error_name(st), msg);
	return TGPU_SUCCESS;
}

tgpu_status tu_ctx_ioctl_error(tgpu_context *ctx, const char *what, int err)
{
	switch (err) {
	case ENODEV:
		return tu_ctx_set_sticky(ctx, TGPU_ERROR_DEVICE_LOST,
					 "%s on %s: the device is gone (unbound, or lost from the bus): check dmesg",
					 what, ctx->node);
	case EIO:
		return tu_ctx_set_sticky(ctx, TGPU_ERROR_LAUNCH_FAILED,
					 "%s on %s: the queue is dead after a GPU error (dmesg names the channel error)",
					 what, ctx->node);
	case ECANCELED:
		return tu_ctx_set_sticky(ctx, TGPU_ERROR_LAUNCH_TIMEOUT,
					 "%s on %s: the context is banned: its work hung the GPU and was reset (an \"Xid 8\" or \"Xid 109\" line in dmesg names the channel); destroy it and create another",
					 what, ctx->node);
	case ENOSPC:
	case E2BIG:
		return tu_fail(TGPU_ERROR_OUT_OF_DEVICE_MEMORY,
			       "%s: out of device memory (%s); free some, or see tgpu_mem_get_info()",
			       what, strerror(err));
	case EBUSY:
		return tu_fail(TGPU_ERROR_OUT_OF_DEVICE_MEMORY,
			       "%s: every hardware channel is in use; destroy streams or contexts",
			       what);
	case ENOMEM:
		return tu_fail(TGPU_ERROR_OUT_OF_MEMORY,
			       "%s: the kernel is out of memory", what);
	case EINVAL:
		return tu_fail(TGPU_ERROR_INVALID_VALUE,
			       "%s: the kernel driver refused the arguments (EINVAL): a libtgpu bug or a libtgpu/tgpu.ko mismatch",
			       what);
	}
	return tu_fail(tu_status_from_errno(err), "%s on %s failed: %s: %s",
		       what, ctx->node, strerror(err), tu_errno_hint(err));
}

/* ---- VA allocator (ctx->lock held) ---------------------------------------- */

static bool va_alloc(tgpu_context *ctx, uint64_t size, uint64_t *va)
{
	uint64_t align = size >= BIG_PAGE ? BIG_PAGE :
			 size >= (64 << 10) ? (64 << 10) : PAGE;
	size_t i;

	for (i = 0; i < ctx->nholes; i++) {
		struct tu_va_hole *h = &ctx->holes[i];
		uint64_t s = align_up(h->start, align);

		if (s < h->start || s >= h->end || h->end - s < size)
			continue;
		*va = s;
		if (s == h->start && s + size == h->end) {
			memmove(h, h + 1, (ctx->nholes - i - 1) * sizeof(*h));
			ctx->nholes--;
		} else if (s == h->start) {
			h->start += size;
		} else if (s + size == h->end) {
			h->end = s;
		} else {
			/* split: needs one more hole */
			if (ctx->nholes == ctx->holes_cap) {
				size_t ncap = 2 * ctx->holes_cap;
				struct tu_va_hole *n =
					realloc(ctx->holes, ncap * sizeof(*n));

				if (!n)
					return false;
				ctx->holes = n;
				ctx->holes_cap = ncap;
				h = &ctx->holes[i];
			}
			memmove(h + 2, h + 1, (ctx->nholes - i - 1) * sizeof(*h));
			ctx->nholes++;
			h[1].start = s + size;
			h[1].end = h->end;
			h->end = s;
		}
		return true;
	}
	return false;
}

/* Give [va, va + size) back; false only when out of host memory. */
static bool va_free(tgpu_context *ctx, uint64_t va, uint64_t size)
{
	size_t i = 0;
	struct tu_va_hole *h;

	while (i < ctx->nholes && ctx->holes[i].start < va)
		i++;
	h = ctx->holes;
	if (i > 0 && h[i - 1].end == va) {
		h[i - 1].end += size;
		if (i < ctx->nholes && h[i].start == h[i - 1].end) {
			h[i - 1].end = h[i].end;
			memmove(&h[i], &h[i + 1],
				(ctx->nholes - i - 1) * sizeof(*h));
			ctx->nholes--;
		}
		return true;
	}
	if (i < ctx->nholes && h[i].start == va + size) {
		h[i].start = va;
		return true;
	}
	if (ctx->nholes == ctx->holes_cap) {
		size_t ncap = 2 * ctx->holes_cap;

		h = realloc(ctx->holes, ncap * sizeof(*h));
		if (!h)
			return false;
		ctx->holes = h;
		ctx->holes_cap = ncap;
	}
	memmove(&h[i + 1], &h[i], (ctx->nholes - i) * sizeof(*h));
	h[i].start = va;
	h[i].end = va + size;
	ctx->nholes++;
	return true;
}

/* ---- buffer objects ------------------------------------------------------- */

int tu_ioctl(int fd, unsigned long req, void *arg)
{
	return drmIoctl(fd, req, arg) ? errno : 0;
}

static tgpu_status bo_map(tgpu_context *ctx, struct tu_bo *bo)
{
	struct drm_tgpu_gem_mmap_offset m = { .handle = bo->handle };
	void *p;
	int err;

	err = tu_ioctl(ctx->fd, DRM_IOCTL_TGPU_GEM_MMAP_OFFSET, &m);
	if (err)
		return tu_ctx_ioctl_error(ctx, "DRM_IOCTL_TGPU_GEM_MMAP_OFFSET", err);
	p = mmap(NULL, bo->size, PROT_READ | PROT_WRITE, MAP_SHARED, ctx->fd,
		 (off_t)m.offset);
	if (p == MAP_FAILED)
		return tu_ctx_ioctl_error(ctx, "mmap of a buffer object", errno);
	bo->cpu = p;
	return TGPU_SUCCESS;
}

tgpu_status tu_bo_create(tgpu_context *ctx, uint64_t size, bool sysmem,
			 bool map, struct tu_bo **out)
{
	struct drm_tgpu_gem_create c = {
		.size = align_up(size, PAGE),
		.flags = sysmem ? DRM_TGPU_GEM_CREATE_SYSMEM : 0,
	};
	struct drm_gem_close cl = { 0 };
	struct drm_tgpu_vm_bind b = { 0 };
	struct tu_bo *bo;
	tgpu_status st;
	bool have_va;
	int err;

	if (!size || c.size < size)
		return tu_fail(TGPU_ERROR_INVALID_VALUE,
			       "size %" PRIu64 " cannot be allocated", size);
	bo = calloc(1, sizeof(*bo));
	if (!bo)
		return tu_fail(TGPU_ERROR_OUT_OF_MEMORY, "out of host memory");
	err = tu_ioctl(ctx->fd, DRM_IOCTL_TGPU_GEM_CREATE, &c);
	if (err) {
		free(bo);
		return tu_ctx_ioctl_error(ctx, sysmem ?
					  "allocating pinned host memory (DRM_IOCTL_TGPU_GEM_CREATE)" :
					  "allocating device memory (DRM_IOCTL_TGPU_GEM_CREATE)",
					  err);
	}
	bo->handle = c.handle;
	bo->size = c.size;
	bo->user_size = size;
	bo->sysmem = sysmem;
	cl.handle = c.handle;

	pthread_mutex_lock(&ctx->lock);
	have_va = va_alloc(ctx, bo->size, &bo->va);
	pthread_mutex_unlock(&ctx->lock);
	if (!have_va) {
		st = tu_fail(TGPU_ERROR_OUT_OF_DEVICE_MEMORY,
			     "no room for %" PRIu64 " bytes in the context's GPU address space (%" PRIu64 " GiB)",
			     bo->size, (uint64_t)(VA_END - VA_START) >> 30);
		goto err_close;
	}
	b.handle = bo->handle;
	b.va = bo->va;
	b.size = bo->size;
	err = tu_ioctl(ctx->fd, DRM_IOCTL_TGPU_VM_BIND, &b);
	if (err) {
		st = tu_ctx_ioctl_error(ctx, "mapping memory into the GPU VM (DRM_IOCTL_TGPU_VM_BIND)", err);
		goto err_va;
	}
	if (map || sysmem) {
		st = bo_map(ctx, bo);
		if (st)
			goto err_unbind;
	}
	*out = bo;
	return TGPU_SUCCESS;

err_unbind: {
		struct drm_tgpu_vm_unbind u = { .va = bo->va, .size = bo->size };

		/* a range the driver may still map is never handed out again */
		if (tu_ioctl(ctx->fd, DRM_IOCTL_TGPU_VM_UNBIND, &u))
			goto err_close;
	}
err_va:
	pthread_mutex_lock(&ctx->lock);
	va_free(ctx, bo->va, bo->size);
	pthread_mutex_unlock(&ctx->lock);
err_close:
	tu_ioctl(ctx->fd, DRM_IOCTL_GEM_CLOSE, &cl);
	free(bo);
	return st;
}

/*
 * Unbind (the driver waits for the file's work that may use it), unmap,
 * close.  The VA goes back only when the unbind worked: a range the
 * driver still maps must never be handed out again.
 */
void tu_bo_destroy(tgpu_context *ctx, struct tu_bo *bo)
{
	struct drm_tgpu_vm_unbind u = { .va = bo->va, .size = bo->size };
	struct drm_gem_close cl = { .handle = bo->handle };
	bool unbound;

	unbound = !tu_ioctl(ctx->fd, DRM_IOCTL_TGPU_VM_UNBIND, &u);
	if (bo->cpu)
		munmap(bo->cpu, bo->size);
	tu_ioctl(ctx->fd, DRM_IOCTL_GEM_CLOSE, &cl);
	if (unbound) {
		pthread_mutex_lock(&ctx->lock);
		va_free(ctx, bo->va, bo->size);
		pthread_mutex_unlock(&ctx->lock);
	}
	free(bo);
}

/* ---- the block table (ctx->lock held) ------------------------------------- */

static size_t block_index(tgpu_context *ctx, uint64_t va)
{
	size_t lo = 0, hi = ctx->nblocks;

	while (lo < hi) {
		size_t mid = (lo + hi) / 2;

		if (ctx->blocks[mid]->va <= va)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;      /* first block above va */
}

static bool block_insert(tgpu_context *ctx, struct tu_bo *bo)
{
	size_t i;

	if (ctx->nblocks == ctx->blocks_cap) {
		size_t ncap = ctx->blocks_cap ? 2 * ctx->blocks_cap : 16;
		struct tu_bo **n = realloc(ctx->blocks, ncap * sizeof(*n));

		if (!n)
			return false;
		ctx->blocks = n;
		ctx->blocks_cap = ncap;
	}
	i = block_index(ctx, bo->va);
	memmove(&ctx->blocks[i + 1], &ctx->blocks[i],
		(ctx->nblocks - i) * sizeof(*ctx->blocks));
	ctx->blocks[i] = bo;
	ctx->nblocks++;
	return true;
}

static void block_remove_at(tgpu_context *ctx, size_t i)
{
	memmove(&ctx->blocks[i], &ctx->blocks[i + 1],
		(ctx->nblocks - i - 1) * sizeof(*ctx->blocks));
	ctx->nblocks--;
}

struct tu_bo *tu_ctx_find_block(tgpu_context *ctx, uint64_t va, uint64_t n)
{
	struct tu_bo *bo = NULL;
	size_t i;

	pthread_mutex_lock(&ctx->lock);
	i = block_index(ctx, va);
	if (i > 0) {
		bo = ctx->blocks[i - 1];
		if (va - bo->va >= bo->user_size || n > bo->user_size - (va - bo->va))
			bo = NULL;
	}
	pthread_mutex_unlock(&ctx->lock);
	return bo;
}

struct tu_bo *tu_ctx_find_host(tgpu_context *ctx, const void *p, size_t n)
{
	uintptr_t a = (uintptr_t)p;
	struct tu_bo *bo = NULL;
	size_t i;

	pthread_mutex_lock(&ctx->lock);
	for (i = 0; i < ctx->nblocks; i++) {
		struct tu_bo *b = ctx->blocks[i];
		uintptr_t c = (uintptr_t)b->cpu;

		if (b->sysmem && a >= c && a - c < b->user_size &&
		    n <= b->user_size - (a - c)) {
			bo = b;
			break;
		}
	}
	pthread_mutex_unlock(&ctx->lock);
	return bo;
}

/* ---- contexts ------------------------------------------------------------- */

tgpu_status tgpu_ctx_create(tgpu_context **out, tgpu_device *dev,
			    unsigned int flags)
{
	const struct tgpu_device_info *info;
	tgpu_context *ctx;
	tgpu_status st;
	int err;

	if (!out)
		return tu_fail(TGPU_ERROR_INVALID_VALUE, "tgpu_ctx_create: ctx is NULL");
	*out = NULL;
	st = tu_check_ready();
	if (st)
		return st;
	st = tu_check_device(dev, "tgpu_ctx_create");
	if (st)
		return st;
	if (flags)
		return tu_fail(TGPU_ERROR_INVALID_VALUE,
			       "tgpu_ctx_create: flags must be 0, got 0x%x", flags);
	info = tu_device_info(dev);
	ctx = calloc(1, sizeof(*ctx));
	if (!ctx)
		return tu_fail(TGPU_ERROR_OUT_OF_MEMORY, "tgpu_ctx_create: out of host memory");
	ctx->dev = dev;
	snprintf(ctx->node, sizeof(ctx->node), "%s", info->render_node);
	pthread_mutex_init(&ctx->lock, NULL);
	ctx->user_submit = -1;
	pthread_mutex_init(&ctx->staging_lock, NULL);
	pthread_mutex_init(&ctx->map_lock, NULL);
	pthread_rwlock_init(&ctx->streams_rw, NULL);
	ctx->holes_cap = 16;
	ctx->holes = malloc(ctx->holes_cap * sizeof(*ctx->holes));
	if (!ctx->holes) {
		st = tu_fail(TGPU_ERROR_OUT_OF_MEMORY, "tgpu_ctx_create: out of host memory");
		goto err_free;
	}
	ctx->holes[0].start = VA_START;
	ctx->holes[0].end = VA_END;
	ctx->nholes = 1;

	/* A file of our own: its own VM. */
	ctx->fd = open(ctx->node, O_RDWR | O_CLOEXEC);
	if (ctx->fd < 0) {
		err = errno;
		st = tu_fail(tu_status_from_errno(err), "tgpu_ctx_create: cannot open %s: %s: %s",
			     ctx->node, strerror(err), tu_errno_hint(err));
		goto err_free;
	}
	if (!tu_handle_add(ctx, TU_H_CONTEXT)) {
		st = tu_fail(TGPU_ERROR_OUT_OF_MEMORY, "tgpu_ctx_create: out of host memory");
		goto err_close;
	}
	st = tu_stream_create(ctx, TGPU_STREAM_PRIORITY_LOWEST, &ctx->default_stream);
	if (st)
		goto err_handle;
	*out = ctx;
	return TGPU_SUCCESS;

err_handle:
	tu_handle_remove(ctx);
	tu_sem_pool_free(ctx);
err_close:
	close(ctx->fd);
err_free:
	free(ctx->streams.v);
	free(ctx->holes);
	free(ctx);
	return st;
}

tgpu_status tgpu_ctx_destroy(tgpu_context *ctx)
{
	size_t i;

	if (!tu_handle_valid(ctx, TU_H_CONTEXT))
		return tu_fail(TGPU_ERROR_INVALID_CONTEXT,
			       "tgpu_ctx_destroy: %p is not a live context", (void *)ctx);
	tu_handle_remove(ctx);
	/* Streams wait for their work; their memory goes with them. */
	while (ctx->streams.n)
		tu_stream_free(ctx->streams.v[ctx->streams.n - 1]);
	while (ctx->events.n)
		tu_event_free(ctx->events.v[ctx->events.n - 1]);
	while (ctx->modules.n)
		tu_module_free(ctx->modules.v[ctx->modules.n - 1]);
	tu_sem_pool_free(ctx);
	for (i = 0; i < ctx->nblocks; i++) {
		if (ctx->blocks[i]->cpu)
			munmap(ctx->blocks[i]->cpu, ctx->blocks[i]->size);
		free(ctx->blocks[i]);
	}
	for (i = 0; i < 2; i++) {
		if (ctx->staging[i]) {
			munmap(ctx->staging[i]->cpu, ctx->staging[i]->size);
			free(ctx->staging[i]);
		}
	}
	/* Closing the file frees every buffer object, mapping and queue. */
	close(ctx->fd);
	free(ctx->blocks);
	free(ctx->holes);
	free(ctx->streams.v);
	free(ctx->events.v);
	free(ctx->modules.v);
	pthread_mutex_destroy(&ctx->lock);
	pthread_mutex_destroy(&ctx->staging_lock);
	pthread_mutex_destroy(&ctx->map_lock);
	pthread_rwlock_destroy(&ctx->streams_rw);
	free(ctx);
	return TGPU_SUCCESS;
}

tgpu_status tgpu_ctx_get_device(tgpu_context *ctx, tgpu_device **dev)
{
	if (!dev)
		return tu_fail(TGPU_ERROR_INVALID_VALUE, "tgpu_ctx_get_device: dev is NULL");
	if (!tu_handle_valid(ctx, TU_H_CONTEXT))
		return tu_fail(TGPU_ERROR_INVALID_CONTEXT,
			       "tgpu_ctx_get_device: %p is not a live context", (void *)ctx);
	*dev = ctx->dev;
	return TGPU_SUCCESS;
}

tgpu_status tgpu_ctx_synchronize(tgpu_context *ctx)
{
	tgpu_stream **v;
	tgpu_status st;
	size_t i, n;

	st = tu_ctx_enter(ctx, "tgpu_ctx_synchronize");
	if (st)
		return st;
	/* no stream is freed while we wait for it */
	pthread_rwlock_rdlock(&ctx->streams_rw);
	pthread_mutex_lock(&ctx->lock);
	n = ctx->streams.n;
	v = malloc((n ? n : 1) * sizeof(*v));
	if (v)
		memcpy(v, ctx->streams.v, n * sizeof(*v));
	pthread_mutex_unlock(&ctx->lock);
	for (i = 0; v && i < n && !st; i++)
		st = tu_stream_sync(v[i]);
	pthread_rwlock_unlock(&ctx->streams_rw);
	if (!v)
		return tu_fail(TGPU_ERROR_OUT_OF_MEMORY, "tgpu_ctx_synchronize: out of host memory");
	free(v);
	return st;
}

tgpu_status tgpu_ctx_get_reset_status(tgpu_context *ctx, tgpu_status *status)
{
	if (!status)
		return tu_fail(TGPU_ERROR_INVALID_VALUE,
			       "tgpu_ctx_get_reset_status: status is NULL");
	if (!tu_handle_valid(ctx, TU_H_CONTEXT))
		return tu_fail(TGPU_ERROR_INVALID_CONTEXT,
			       "tgpu_ctx_get_reset_status: %p is not a live context",
			       (void *)ctx);
	/* what the driver knows that no call of this context has seen yet */
	if (!ctx->sticky) {
		struct drm_tgpu_reset_status rs = { 0 };

		if (drmIoctl(ctx->fd, DRM_IOCTL_TGPU_RESET_STATUS, &rs) == 0) {
			if (rs.status == DRM_TGPU_RESET_GUILTY)
				tu_ctx_set_sticky(ctx, TGPU_ERROR_LAUNCH_TIMEOUT,
						  "the context's work hung the GPU and was reset (an \"Xid 8\" or \"Xid 109\" line in dmesg names the channel): it is banned; destroy it and create another");
			else if (rs.flags & DRM_TGPU_RESET_VRAM_LOST)
				tu_ctx_set_sticky(ctx, TGPU_ERROR_DEVICE_RESET,
						  "the device was reset (%u resets since the context was made): device memory is to be treated as lost; destroy the context and create another",
						  rs.resets);
		} else if (errno == ENODEV) {
			tu_ctx_set_sticky(ctx, TGPU_ERROR_DEVICE_LOST,
					  "the device is gone (unbound, or lost from the bus): check dmesg");
		}
	}
	pthread_mutex_lock(&ctx->lock);
	*status = ctx->sticky;
	if (ctx->sticky)
		tu_set_last_error(ctx->sticky_msg);
	pthread_mutex_unlock(&ctx->lock);
	return TGPU_SUCCESS;
}

static tgpu_status limit_check(tgpu_context *ctx, tgpu_limit limit, const char *fn)
{
	if (!tu_handle_valid(ctx, TU_H_CONTEXT))
		return tu_fail(TGPU_ERROR_INVALID_CONTEXT, "%s: %p is not a live context", fn,
			       (void *)ctx);
	if (limit != TGPU_LIMIT_JOB_TIMEOUT_MS)
		return tu_fail(TGPU_ERROR_INVALID_VALUE, "%s: unknown limit %d", fn, (int)limit);
	return TGPU_SUCCESS;
}

tgpu_status tgpu_ctx_set_limit(tgpu_context *ctx, tgpu_limit limit, uint64_t value)
{
	drmVersionPtr ver;
	tgpu_status st;
	bool new_enough;

	st = limit_check(ctx, limit, "tgpu_ctx_set_limit");
	if (st)
		return st;
	if (value > DRM_TGPU_QUEUE_TIMEOUT_MAX_MS)
		return tu_fail(TGPU_ERROR_INVALID_VALUE,
			       "tgpu_ctx_set_limit: a job timeout of %" PRIu64 " ms is longer than the %u ms the driver takes",
			       value, DRM_TGPU_QUEUE_TIMEOUT_MAX_MS);
	/* a 1.7 driver takes the 16-byte QUEUE_CREATE and drops the timeout */
	ver = drmGetVersion(ctx->fd);
	new_enough = ver && (ver->version_major > 1 ||
			     (ver->version_major == 1 && ver->version_minor >= 8));
	drmFreeVersion(ver);
	if (!new_enough)
		return tu_fail(TGPU_ERROR_NOT_SUPPORTED,
			       "tgpu_ctx_set_limit: tgpu.ko on %s is older than 1.8 and has no job timeout per queue",
			       ctx->node);
	pthread_mutex_lock(&ctx->lock);
	ctx->job_timeout_ms = (uint32_t)value;
	pthread_mutex_unlock(&ctx->lock);
	return TGPU_SUCCESS;
}

tgpu_status tgpu_ctx_get_limit(tgpu_context *ctx, tgpu_limit limit, uint64_t *value)
{
	tgpu_status st;

	if (!value)
		return tu_fail(TGPU_ERROR_INVALID_VALUE, "tgpu_ctx_get_limit: value is NULL");
	st = limit_check(ctx, limit, "tgpu_ctx_get_limit");
	if (st)
		return st;
	pthread_mutex_lock(&ctx->lock);
	*value = ctx->job_timeout_ms;
	pthread_mutex_unlock(&ctx->lock);
	return TGPU_SUCCESS;
}

/* ---- memory --------------------------------------------------------------- */

static tgpu_status mem_alloc(tgpu_context *ctx, size_t size, bool sysmem,
			     struct tu_bo **out, const char *fn)
{
	struct tu_bo *bo;
	tgpu_status st;
	bool ok;

	st = tu_ctx_enter(ctx, fn);
	if (st)
		return st;
	if (!size)
		return tu_fail(TGPU_ERROR_INVALID_VALUE, "%s: size is 0", fn);
	if (size > VA_END - VA_START)
		return tu_fail(TGPU_ERROR_OUT_OF_DEVICE_MEMORY,
			       "%s: %zu bytes is more than the GPU address space holds", fn, size);
	st = tu_bo_create(ctx, size, sysmem, false, &bo);
	if (st)
		return tu_fail_wrap(st, "%s(%zu bytes)", fn, size);
	pthread_mutex_lock(&ctx->lock);
	ok = block_insert(ctx, bo);
	pthread_mutex_unlock(&ctx->lock);
	if (!ok) {
		tu_bo_destroy(ctx, bo);
		return tu_fail(TGPU_ERROR_OUT_OF_MEMORY, "%s: out of host memory", fn);
	}
	*out = bo;
	return TGPU_SUCCESS;
}

tgpu_status tgpu_mem_alloc(tgpu_context *ctx, tgpu_deviceptr *dptr, size_t size)
{
	struct tu_bo *bo;
	tgpu_status st;

	if (!dptr)
		return tu_fail(TGPU_ERROR_INVALID_VALUE, "tgpu_mem_alloc: dptr is NULL");
	st = mem_alloc(ctx, size, false, &bo, "tgpu_mem_alloc");
	if (!st)
		*dptr = bo->va;
	return st;
}

tgpu_status tgpu_mem_alloc_host(tgpu_context *ctx, void **p, size_t size)
{
	struct tu_bo *bo;
	tgpu_status st;

	if (!p)
		return tu_fail(TGPU_ERROR_INVALID_VALUE, "tgpu_mem_alloc_host: p is NULL");
	st = mem_alloc(ctx, size, true, &bo, "tgpu_mem_alloc_host");
	if (!st)
		*p = bo->cpu;
	return st;
}

/* Remove the block that starts exactly at va (or host pointer p). */
static tgpu_status mem_free(tgpu_context *ctx, uint64_t va, const void *p,
			    const char *fn)
{
	struct tu_bo *bo = NULL;
	tgpu_status st;
	size_t i;

	st = tu_ctx_enter(ctx, fn);
	if (st && st != TGPU_ERROR_INVALID_CONTEXT)
		st = TGPU_SUCCESS;      /* freeing stays possible in error */
	if (st)
		return st;
	pthread_mutex_lock(&ctx->lock);
	for (i = 0; i < ctx->nblocks; i++) {
		struct tu_bo *b = ctx->blocks[i];

		if (p ? (b->sysmem && b->cpu == p) : (!b->sysmem && b->va == va)) {
			bo = b;
			block_remove_at(ctx, i);
			break;
		}
	}
	pthread_mutex_unlock(&ctx->lock);
	if (!bo) {
		if (p)
			return tu_fail(TGPU_ERROR_INVALID_VALUE,
				       "%s: %p is not the start of a block from tgpu_mem_alloc_host() in this context",
				       fn, p);
		return tu_fail(TGPU_ERROR_INVALID_VALUE,
			       "%s: 0x%" PRIx64 " is not the start of a block from tgpu_mem_alloc() in this context",
			       fn, va);
	}
	tu_bo_destroy(ctx, bo);
	return TGPU_SUCCESS;
}

tgpu_status tgpu_mem_free(tgpu_context *ctx, tgpu_deviceptr dptr)
{
	return mem_free(ctx, dptr, NULL, "tgpu_mem_free");
}

tgpu_status tgpu_mem_free_host(tgpu_context *ctx, void *p)
{
	if (!p)
		return tu_fail(TGPU_ERROR_INVALID_VALUE, "tgpu_mem_free_host: p is NULL");
	return mem_free(ctx, 0, p, "tgpu_mem_free_host");
}

tgpu_status tgpu_mem_get_info(tgpu_context *ctx, size_t *free_bytes,
			      size_t *total_bytes)
{
	struct drm_tgpu_get_param p = { .param = DRM_TGPU_PARAM_VRAM_USED };
	uint64_t total;
	tgpu_status st;
	int err;

	if (!free_bytes || !total_bytes)
		return tu_fail(TGPU_ERROR_INVALID_VALUE,
			       "tgpu_mem_get_info: %s is NULL", free_bytes ? "total" : "free");
	st = tu_ctx_enter(ctx, "tgpu_mem_get_info");
	if (st)
		return st;
	err = tu_ioctl(ctx->fd, DRM_IOCTL_TGPU_GET_PARAM, &p);
	if (err)
		return tu_ctx_ioctl_error(ctx, "DRM_IOCTL_TGPU_GET_PARAM(VRAM_USED)", err);
	total = tu_device_info(ctx->dev)->vram_size;
	*total_bytes = total;
	*free_bytes = p.value < total ? total - p.value : 0;
	return TGPU_SUCCESS;
}

tgpu_status tgpu_mem_host_get_device_pointer(tgpu_context *ctx,
					     tgpu_deviceptr *dptr, void *p)
{
	struct tu_bo *bo;
	tgpu_status st;

	if (!dptr || !p)
		return tu_fail(TGPU_ERROR_INVALID_VALUE,
			       "tgpu_mem_host_get_device_pointer: %s is NULL", dptr ? "p" : "dptr");
	st = tu_ctx_enter(ctx, "tgpu_mem_host_get_device_pointer");
	if (st)
		return st;
	bo = tu_ctx_find_host(ctx, p, 1);
	if (!bo)
		return tu_fail(TGPU_ERROR_INVALID_VALUE,
			       "tgpu_mem_host_get_device_pointer: %p is not inside a block from tgpu_mem_alloc_host() in this context",
			       p);
	*dptr = bo->va + ((uintptr_t)p - (uintptr_t)bo->cpu);
	return TGPU_SUCCESS;
}

tgpu_status tgpu_mem_host_map(tgpu_context *ctx, void **p, tgpu_deviceptr dptr)
{
	struct tu_bo *bo;
	tgpu_status st = TGPU_SUCCESS;

	if (!p)
		return tu_fail(TGPU_ERROR_INVALID_VALUE, "tgpu_mem_host_map: p is NULL");
	st = tu_ctx_enter(ctx, "tgpu_mem_host_map");
	if (st)
		return st;
	bo = tu_ctx_find_block(ctx, dptr, 1);
	if (!bo)
		return tu_fail(TGPU_ERROR_INVALID_VALUE,
			       "tgpu_mem_host_map: 0x%" PRIx64 " is not inside a block of this context",
			       dptr);
	/* Serialized so that two threads do not both map the block. */
	pthread_mutex_lock(&ctx->map_lock);
	if (!bo->cpu)
		st = bo_map(ctx, bo);
	pthread_mutex_unlock(&ctx->map_lock);
	if (st)
		return st;
	*p = (char *)bo->cpu + (dptr - bo->va);
	return TGPU_SUCCESS;
}
