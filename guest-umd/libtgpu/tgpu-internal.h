/* SPDX-License-Identifier: MIT */
/*
 * Interfaces between libtgpu's own source files.  Hidden inside
 * libtgpu.so; not part of the installed API.
 */
#ifndef TGPU_INTERNAL_H
#define TGPU_INTERNAL_H

#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "libtgpu.h"

/* ---- tgpu.c: errors and devices ------------------------------------------ */

/* Set this thread's tgpu_get_last_error_message(). */
void tu_set_last_error(const char *msg);
/* Set the message from a format and return st. */
__attribute__((format(printf, 2, 3)))
tgpu_status tu_fail(tgpu_status st, const char *fmt, ...);
/* The same, then ": " and the message that was there before. */
__attribute__((format(printf, 2, 3)))
tgpu_status tu_fail_wrap(tgpu_status st, const char *fmt, ...);
tgpu_status tu_status_from_errno(int err);
const char *tu_errno_hint(int err);
tgpu_status tu_check_ready(void);
tgpu_status tu_check_device(const tgpu_device *dev, const char *fn);
const struct tgpu_device_info *tu_device_info(const tgpu_device *dev);

/* ---- tgpu-handle.c: live handles ------------------------------------------ */

enum tu_handle_type {
	TU_H_CONTEXT = 1,
	TU_H_STREAM,
	TU_H_EVENT,
	TU_H_MODULE,
	TU_H_FUNCTION,
};

/* Register a new object; false when out of memory. */
bool tu_handle_add(const void *p, enum tu_handle_type type);
void tu_handle_remove(const void *p);
/* Is p a live object of this type? */
bool tu_handle_valid(const void *p, enum tu_handle_type type);

/* ---- tgpu-context.c: contexts, VA space, memory --------------------------- */

/* A buffer object of the context, bound at va. */
struct tu_bo {
	uint32_t handle;
	bool sysmem;
	uint64_t size;          /* bytes, a multiple of the GPU page */
	uint64_t user_size;     /* bytes the caller asked for */
	uint64_t va;
	void *cpu;              /* CPU mapping or NULL */
};

/* A hole of the VA allocator: [start, end). */
struct tu_va_hole {
	uint64_t start, end;
};

/* A growable array of object pointers. */
struct tu_ptr_list {
	void **v;
	size_t n, cap;
};

bool tu_list_add(struct tu_ptr_list *l, void *p);
void tu_list_remove(struct tu_ptr_list *l, void *p);

struct tgpu_context {
	tgpu_device *dev;
	int fd;
	char node[64];

	/* Guards everything below except what has its own lock. */
	pthread_mutex_t lock;
	tgpu_status sticky;
	char sticky_msg[512];
	/* TGPU_LIMIT_JOB_TIMEOUT_MS, for the queues made from now on */
	uint32_t job_timeout_ms;

	struct tu_va_hole *holes;       /* sorted, disjoint */
	size_t nholes, holes_cap;

	struct tu_bo **blocks;          /* tgpu_mem_alloc/_host, sorted by va */
	size_t nblocks, blocks_cap;

	struct tu_ptr_list streams;     /* every stream, default included */
	struct tu_ptr_list events;
	struct tu_ptr_list modules;
	tgpu_stream *default_stream;

	/* Held shared while streams are waited for, exclusively to free one. */
	pthread_rwlock_t streams_rw;
	/* tgpu_mem_host_map(): one mapping per block. */
	pthread_mutex_t map_lock;

	/* Pinned staging buffers for pageable copies, one user at a time. */
	pthread_mutex_t staging_lock;
	struct tu_bo *staging[2];
	uint32_t staging_sync[2];       /* last GPU use of each */
	int staging_next;               /* the one to fill first */

	/* user-mode submission: -1 not asked yet, 0 no, 1 yes (tgpu-uq.c) */
	int user_submit;
	/* its streams' semaphores: pool pages, and the words free (ctx->lock) */
	struct tu_ptr_list sem_pages;
	struct tu_sem *sem_free;
	size_t nsem_free, sem_free_cap;
};

/*
 * A user-submitting stream's semaphore: a 64-bit word of one of the
 * context's system-memory pool pages (tgpu-uq.c).  Its value only ever
 * grows, from one stream to the next that gets the word, so that an
 * acquire of (va, value) another stream queued stays right after the
 * stream that released it is gone.
 */
struct tu_sem {
	struct tu_bo *page;
	uint32_t off;
	uint64_t va;
	volatile uint64_t *cpu;
	uint64_t base;                  /* the value when the stream got it */
};

/* A user-submit queue, mapped (tgpu-uq.c). */
struct tu_uq {
	uint32_t id;                    /* the kernel queue; 0: none */
	void *ring, *bell_page;
	volatile uint64_t *gpfifo;
	volatile uint32_t *gp_put;      /* in USERD */
	volatile uint32_t *doorbell;
	uint32_t token;
	uint32_t entries;
	uint32_t put;
};

struct drm_tgpu_queue_create;

/* Streams submit by themselves unless TGPU_SUBMIT=kernel or tgpu.ko < 1.9. */
bool tu_uq_wanted(tgpu_context *ctx);
/* Create a user-submit queue as *c asks and map it: 0 or the errno. */
int tu_uq_open(tgpu_context *ctx, struct tu_uq *uq, struct drm_tgpu_queue_create *c);
void tu_uq_close(tgpu_context *ctx, struct tu_uq *uq);
/* Write GPFIFO entries, publish GP_PUT, ring the doorbell. */
void tu_uq_push(struct tu_uq *uq, const uint64_t *entries, unsigned int n);
/*
 * Wait until *sem >= value (spin, then DRM_IOCTL_TGPU_WAIT); timeout_ns
 * relative, negative for ever, 0 to check.  0, or the errno: ETIME, or
 * the queue's error (EIO, ETIME, ECANCELED, ENODEV).
 */
int tu_uq_wait(tgpu_context *ctx, const struct tu_uq *uq, const volatile uint64_t *sem,
	       uint64_t sem_va, uint64_t value, int64_t timeout_ns);
/* Make a syncobj's fence *sem_va >= value (DRM_IOCTL_TGPU_USER_FENCE). */
int tu_uq_fence(tgpu_context *ctx, const struct tu_uq *uq, uint32_t syncobj,
		uint64_t sem_va, uint64_t value);
/* A semaphore word for a new stream; the message set on failure. */
tgpu_status tu_sem_get(tgpu_context *ctx, struct tu_sem *sem);
/*
 * Give it back.  reusable: every value the stream gave out was released,
 * so *cpu is the highest; else the word is never handed out again.
 */
void tu_sem_put(tgpu_context *ctx, struct tu_sem *sem, bool reusable);
/* Free the pool (context teardown, after every stream). */
void tu_sem_pool_free(tgpu_context *ctx);

/*
 * Check a context handle and its sticky error; fn names the API call
 * for messages.
 */
tgpu_status tu_ctx_enter(tgpu_context *ctx, const char *fn);
/* Make a failure sticky (first one wins) and return it. */
tgpu_status tu_ctx_set_sticky(tgpu_context *ctx, tgpu_status st,
			      const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
/* A failed ioctl: sticky when the device is gone. */
tgpu_status tu_ctx_ioctl_error(tgpu_context *ctx, const char *what, int err);

/* A DRM ioctl (drmIoctl restarts on EINTR/EAGAIN): 0 or the errno. */
int tu_ioctl(int fd, unsigned long req, void *arg);

/* Create, map and bind a buffer object; NULL with the message set. */
tgpu_status tu_bo_create(tgpu_context *ctx, uint64_t size, bool sysmem,
			 bool map, struct tu_bo **out);
void tu_bo_destroy(tgpu_context *ctx, struct tu_bo *bo);

/* The block containing [va, va + n), or NULL. */
struct tu_bo *tu_ctx_find_block(tgpu_context *ctx, uint64_t va, uint64_t n);
/* The pinned block containing host range [p, p + n), or NULL. */
struct tu_bo *tu_ctx_find_host(tgpu_context *ctx, const void *p, size_t n);

/* ---- tgpu-event.c, tgpu-module.c: teardown ------------------------------- */

void tu_event_free(tgpu_event *ev);
void tu_module_free(tgpu_module *m);

/* ---- tgpu-stream.c: streams, submission, events --------------------------- */

/* Syncobj helpers: 0 or an errno (ETIME: not signalled in time). */
int tu_syncobj_create(int fd, uint32_t *h, bool signaled);
void tu_syncobj_destroy(int fd, uint32_t h);
int tu_syncobj_wait(int fd, uint32_t h, int64_t timeout_ns); /* <0: forever */
/* 0, or the negative errno a signalled fence failed with. */
int tu_syncobj_status(int fd, uint32_t h);
int tu_syncobj_transfer(int fd, uint32_t dst, uint32_t src);
/* Copy the fence of the stream's newest submission into syncobj dst. */
tgpu_status tu_stream_fence_to(tgpu_stream *s, uint32_t dst);
/* Fence of a finished job failed: the context's sticky error. */
tgpu_status tu_ctx_fence_failed(tgpu_context *ctx, int err, const char *what);

/* The stream to use for a public call's stream argument (NULL: default). */
tgpu_status tu_stream_resolve(tgpu_context *ctx, tgpu_stream *in,
			      tgpu_stream **out, const char *fn);
tgpu_status tu_stream_create(tgpu_context *ctx, int priority,
			     tgpu_stream **out);
/* Wait for the stream, then free it (context teardown). */
void tu_stream_free(tgpu_stream *s);
tgpu_status tu_stream_sync(tgpu_stream *s);

/*
 * Building one submission under the stream lock: reserve bytes in the
 * stream's command ring (cpu pointer and GPU address out), write commands
 * and data there, then commit the commands' dwords to an engine.
 */
void tu_stream_lock(tgpu_stream *s);
void tu_stream_unlock(tgpu_stream *s);
tgpu_status tu_stream_reserve(tgpu_stream *s, size_t bytes, void **cpu,
			      uint64_t *va);
/* binds: the commands bind subchannel 0 to the engine's class. */
tgpu_status tu_stream_commit(tgpu_stream *s, enum tgpu_engine engine,
			     uint64_t va, uint32_t ndwords, bool binds);
tgpu_context *tu_stream_ctx(tgpu_stream *s);

#endif /* TGPU_INTERNAL_H */
