// SPDX-License-Identifier: MIT
/*
 * libtgpu: user-mode submission (DRM_TGPU_QUEUE_USER_SUBMIT).
 *
 * A user queue's GPFIFO ring and USERD are mapped into the process with
 * the device's doorbell page.  Submitting is three stores: the GPFIFO
 * entries, GP_PUT in USERD, the channel's token to the doorbell, with a
 * full barrier before each of the last two (the ring is write-combined
 * and the doorbell uncached: docs/hw/channels.md, "User-mode
 * submission").  Completion is the stream's semaphore, which the work
 * releases itself: a waiter spins on it for a little while, then sleeps
 * in DRM_IOCTL_TGPU_WAIT until the non-stall interrupt.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>

#include <xf86drm.h>

#include <tgpu/channel.h>
#include <tgpu/mmu.h>
#include <tgpu_drm.h>

#include "tgpu-internal.h"

/* How long a waiter spins on the semaphore before it sleeps. */
#define SPIN_NS         20000

bool tu_uq_wanted(tgpu_context *ctx)
{
	const char *env = getenv("TGPU_SUBMIT");
	drmVersionPtr ver;
	bool ok;

	if (env && !strcmp(env, "kernel"))
		return false;
	pthread_mutex_lock(&ctx->lock);
	if (ctx->user_submit < 0) {
		ver = drmGetVersion(ctx->fd);
		ok = ver && (ver->version_major > 1 ||
			     (ver->version_major == 1 && ver->version_minor >= 9));
		drmFreeVersion(ver);
		ctx->user_submit = ok;
	}
	ok = ctx->user_submit > 0;
	pthread_mutex_unlock(&ctx->lock);
	return ok;
}

int tu_uq_open(tgpu_context *ctx, struct tu_uq *uq, struct drm_tgpu_queue_create *c)
{
	struct drm_tgpu_queue_destroy d = { 0 };
	void *ring, *bell;
	int err;

	c->flags = DRM_TGPU_QUEUE_USER_SUBMIT;
	err = tu_ioctl(ctx->fd, DRM_IOCTL_TGPU_QUEUE_CREATE, c);
	if (err)
		return err;
	ring = mmap(NULL, DRM_TGPU_USER_RING_SIZE, PROT_READ | PROT_WRITE,
		    MAP_SHARED, ctx->fd, (off_t)c->ring_offset);
	if (ring == MAP_FAILED)
		goto err_queue;
	bell = mmap(NULL, DRM_TGPU_DOORBELL_PAGE_SIZE, PROT_WRITE, MAP_SHARED,
		    ctx->fd, (off_t)c->doorbell_offset);
	if (bell == MAP_FAILED) {
		err = errno;
		munmap(ring, DRM_TGPU_USER_RING_SIZE);
		errno = err;
		goto err_queue;
	}
	uq->id = c->id;
	uq->ring = ring;
	uq->gpfifo = (volatile uint64_t *)((char *)ring + DRM_TGPU_USER_RING_GPFIFO);
	uq->gp_put = (volatile uint32_t *)((char *)ring + DRM_TGPU_USER_RING_USERD +
					   TGPU_USERD_GP_PUT);
	uq->bell_page = bell;
	uq->doorbell = (volatile uint32_t *)((char *)bell + DRM_TGPU_DOORBELL_OFFSET);
	uq->token = c->doorbell_token;
	uq->entries = c->ring_entries;
	uq->put = 0;
	return 0;

err_queue:
	err = errno;
	d.id = c->id;
	tu_ioctl(ctx->fd, DRM_IOCTL_TGPU_QUEUE_DESTROY, &d);
	return err;
}

void tu_uq_close(tgpu_context *ctx, struct tu_uq *uq)
{
	struct drm_tgpu_queue_destroy d = { .id = uq->id };

	if (!uq->id)
		return;
	tu_ioctl(ctx->fd, DRM_IOCTL_TGPU_QUEUE_DESTROY, &d);
	munmap(uq->ring, DRM_TGPU_USER_RING_SIZE);
	munmap(uq->bell_page, DRM_TGPU_DOORBELL_PAGE_SIZE);
	memset(uq, 0, sizeof(*uq));
}

void tu_uq_push(struct tu_uq *uq, const uint64_t *entries, unsigned int n)
{
	unsigned int i;

	for (i = 0; i < n; i++) {
		uq->gpfifo[uq->put] = entries[i];
		uq->put = (uq->put + 1) & (uq->entries - 1);
	}
	/* the pushbuffers and entries (write-combined), then GP_PUT */
	__atomic_thread_fence(__ATOMIC_SEQ_CST);
	*uq->gp_put = uq->put;
	/* GP_PUT, then the doorbell (uncached) that makes the device read it */
	__atomic_thread_fence(__ATOMIC_SEQ_CST);
	*uq->doorbell = uq->token;
}

static int64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

int tu_uq_wait(tgpu_context *ctx, const struct tu_uq *uq, const volatile uint64_t *sem,
	       uint64_t sem_va, uint64_t value, int64_t timeout_ns)
{
	struct drm_tgpu_wait w = {
		.queue = uq->id,
		.va = sem_va,
		.value = value,
	};
	int64_t start = now_ns();

	do {
		if (*sem >= value)
			return 0;
		/* a check: the caller asks the queue whether it died */
		if (!timeout_ns)
			return ETIME;
		__builtin_ia32_pause();
	} while (now_ns() - start < SPIN_NS);
	w.timeout_nsec = timeout_ns < 0 ? INT64_MAX : start + timeout_ns;
	return tu_ioctl(ctx->fd, DRM_IOCTL_TGPU_WAIT, &w);
}

int tu_uq_fence(tgpu_context *ctx, const struct tu_uq *uq, uint32_t syncobj,
		uint64_t sem_va, uint64_t value)
{
	struct drm_tgpu_user_fence f = {
		.queue = uq->id,
		.syncobj = syncobj,
		.va = sem_va,
		.value = value,
	};

	return tu_ioctl(ctx->fd, DRM_IOCTL_TGPU_USER_FENCE, &f);
}

/* ---- the streams' semaphores ---------------------------------------------- */

/* 64-bit words: a page's worth of streams before another page */
#define SEM_WORDS       (TGPU_PAGE_SIZE / 8)

tgpu_status tu_sem_get(tgpu_context *ctx, struct tu_sem *sem)
{
	struct tu_bo *page;
	tgpu_status st;
	size_t i;

	pthread_mutex_lock(&ctx->lock);
	if (ctx->nsem_free) {
		*sem = ctx->sem_free[--ctx->nsem_free];
		pthread_mutex_unlock(&ctx->lock);
		/* the last stream's work all released, or 0 on a new page */
		sem->base = *sem->cpu;
		return TGPU_SUCCESS;
	}
	pthread_mutex_unlock(&ctx->lock);

	/* cached for the host's spin, written by the device through DMA */
	st = tu_bo_create(ctx, TGPU_PAGE_SIZE, true, true, &page);
	if (st)
		return st;
	pthread_mutex_lock(&ctx->lock);
	if (!tu_list_add(&ctx->sem_pages, page))
		goto oom;
	/* room for every word of every page: tu_sem_put() cannot fail */
	if (ctx->sem_free_cap < ctx->sem_pages.n * SEM_WORDS) {
		size_t cap = ctx->sem_pages.n * SEM_WORDS;
		struct tu_sem *v = realloc(ctx->sem_free, cap * sizeof(*v));

		if (!v) {
			tu_list_remove(&ctx->sem_pages, page);
			goto oom;
		}
		ctx->sem_free = v;
		ctx->sem_free_cap = cap;
	}
	/* every word free, word 0 on top; then taken as a reused one is */
	for (i = SEM_WORDS; i-- > 0;) {
		struct tu_sem *f = &ctx->sem_free[ctx->nsem_free++];

		f->page = page;
		f->off = (uint32_t)(i * 8);
		f->va = page->va + f->off;
		f->cpu = (volatile uint64_t *)((char *)page->cpu + f->off);
	}
	pthread_mutex_unlock(&ctx->lock);
	return tu_sem_get(ctx, sem);

oom:
	pthread_mutex_unlock(&ctx->lock);
	tu_bo_destroy(ctx, page);
	return tu_fail(TGPU_ERROR_OUT_OF_MEMORY, "out of host memory");
}

void tu_sem_put(tgpu_context *ctx, struct tu_sem *sem, bool reusable)
{
	if (!sem->page || !reusable)
		return;
	pthread_mutex_lock(&ctx->lock);
	ctx->sem_free[ctx->nsem_free++] = *sem;
	pthread_mutex_unlock(&ctx->lock);
	memset(sem, 0, sizeof(*sem));
}

void tu_sem_pool_free(tgpu_context *ctx)
{
	while (ctx->sem_pages.n)
		tu_bo_destroy(ctx, ctx->sem_pages.v[--ctx->sem_pages.n]);
	free(ctx->sem_pages.v);
	free(ctx->sem_free);
	ctx->sem_pages.v = NULL;
	ctx->sem_free = NULL;
	ctx->nsem_free = ctx->sem_free_cap = 0;
}
