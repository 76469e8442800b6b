// SPDX-License-Identifier: MIT
/*
 * libtgpu: memcpy and memset on the copy engines.
 *
 * Host memory the GPU can reach is pinned memory from
 * tgpu_mem_alloc_host(); any other host pointer is "pageable" and goes
 * through the context's two pinned staging buffers, double-buffered so
 * that the CPU copy of one chunk overlaps the engine's copy of the other.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include <tgpu/channel.h>
#include <tgpu/copy.h>

#include "tgpu-cmdbuf.h"
#include "tgpu-internal.h"

/* Bytes per LAUNCH_DMA: LINE_LENGTH_IN is 32 bits. */
#define LAUNCH_MAX      (1ull << 30)
#define STAGING_SIZE    (8u << 20)
/* dwords of one copy launch: OFFSETs (5), LINE_LENGTH_IN (2), LAUNCH (2) */
#define COPY_DWORDS     9

enum dir { H2D, D2H, D2D };

static const enum tgpu_engine dir_engine[] = {
	[H2D] = TGPU_ENGINE_KIND_COPY0,
	[D2H] = TGPU_ENGINE_KIND_COPY1,
	[D2D] = TGPU_ENGINE_KIND_COPY0,
};

static const char *const dir_fn[2][3] = {
	{ "tgpu_memcpy_htod", "tgpu_memcpy_dtoh", "tgpu_memcpy_dtod" },
	{ "tgpu_memcpy_htod_async", "tgpu_memcpy_dtoh_async",
	  "tgpu_memcpy_dtod_async" },
};

/* Queue a GPU-VA to GPU-VA copy of n bytes on s (s locked by the caller). */
static tgpu_status gpu_copy(tgpu_stream *s, enum tgpu_engine engine,
			    uint64_t dst, uint64_t src, uint64_t n)
{
	uint64_t launches = (n + LAUNCH_MAX - 1) / LAUNCH_MAX;
	const uint32_t cls = TGPU_CLASS_COPY;
	struct tu_cb cb;
	tgpu_status st;
	uint64_t va, off;

	cb.cap = 2 + (uint32_t)launches * COPY_DWORDS;
	st = tu_stream_reserve(s, cb.cap * 4, (void **)&cb.p, &va);
	if (st)
		return st;
	cb.n = 0;
	tu_cb_method1(&cb, TGPU_M_SET_OBJECT, cls);
	for (off = 0; off < n; off += LAUNCH_MAX) {
		uint64_t len = n - off < LAUNCH_MAX ? n - off : LAUNCH_MAX;
		uint64_t a = src + off, b = dst + off;
		const uint32_t offs[4] = {
			(uint32_t)(a >> 32), (uint32_t)a,
			(uint32_t)(b >> 32), (uint32_t)b,
		};

		tu_cb_method(&cb, TGPU_CE_M_OFFSET_IN_UPPER, 4, offs);
		tu_cb_method1(&cb, TGPU_CE_M_LINE_LENGTH_IN, (uint32_t)len);
		tu_cb_method1(&cb, TGPU_CE_M_LAUNCH_DMA,
			      TGPU_CE_LAUNCH(TGPU_CE_TRANSFER_PIPELINED,
					     TGPU_CE_SEM_NONE, TGPU_CE_INTR_NONE));
	}
	return tu_stream_commit(s, engine, va, cb.n, true);
}

/* Check that [va, va + n) lies in one block of the context. */
static tgpu_status check_dev_range(tgpu_context *ctx, uint64_t va, uint64_t n,
				   const char *fn, const char *which)
{
	if (va + n < va || !tu_ctx_find_block(ctx, va, n))
		return tu_fail(TGPU_ERROR_INVALID_VALUE,
			       "%s: the %s range 0x%" PRIx64 "..0x%" PRIx64 " is not inside one block of this context (tgpu_mem_alloc or tgpu_mem_alloc_host)",
			       fn, which, va, va + n);
	return TGPU_SUCCESS;
}

static tgpu_status staging_get(tgpu_context *ctx, int i)
{
	tgpu_status st;
	int err;

	if (ctx->staging[i])
		return TGPU_SUCCESS;
	/* signalled: the first wait for the unused buffer returns at once */
	err = tu_syncobj_create(ctx->fd, &ctx->staging_sync[i], true);
	if (err)
		return tu_ctx_ioctl_error(ctx, "DRM_IOCTL_SYNCOBJ_CREATE", err);
	st = tu_bo_create(ctx, STAGING_SIZE, true, true, &ctx->staging[i]);
	if (st) {
		tu_syncobj_destroy(ctx->fd, ctx->staging_sync[i]);
		ctx->staging[i] = NULL;
	}
	return st;
}

/*
 * Wait until the GPU is done with staging buffer i.  Whether that copy
 * worked is the stream's business: its failure is found where the
 * stream is waited for (the end of a synchronous copy, at the latest).
 */
static tgpu_status staging_wait(tgpu_context *ctx, int i)
{
	int err = tu_syncobj_wait(ctx->fd, ctx->staging_sync[i], -1);

	return err ? tu_ctx_ioctl_error(ctx, "DRM_IOCTL_SYNCOBJ_WAIT", err) :
		     TGPU_SUCCESS;
}

/*
 * Pageable copies, one staging chunk at a time (ctx->staging_lock held).
 * H2D: fill a buffer, queue its copy, go on with the other buffer.  D2H:
 * queue the copy of chunk k, then copy chunk k - 1 out while the engine
 * works on chunk k.
 */
static tgpu_status staged_copy(tgpu_context *ctx, tgpu_stream *s, enum dir d,
			       void *host, uint64_t dev, uint64_t n)
{
	uint64_t done, len, pend_off = 0, pend_len = 0;
	tgpu_status st;
	int i = ctx->staging_next, pend = -1;

	st = staging_get(ctx, 0);
	if (!st)
		st = staging_get(ctx, 1);
	for (done = 0; !st && done < n; done += len, i ^= 1) {
		struct tu_bo *b = ctx->staging[i];

		len = n - done < STAGING_SIZE ? n - done : STAGING_SIZE;
		st = staging_wait(ctx, i);
		if (st)
			break;
		if (d == H2D)
			memcpy(b->cpu, (const char *)host + done, len);
		tu_stream_lock(s);
		st = d == H2D ? gpu_copy(s, dir_engine[d], dev + done, b->va, len) :
				gpu_copy(s, dir_engine[d], b->va, dev + done, len);
		if (!st)
			st = tu_stream_fence_to(s, ctx->staging_sync[i]);
		tu_stream_unlock(s);
		if (st || d == H2D)
			continue;
		if (pend >= 0) {
			st = staging_wait(ctx, pend);
			if (!st)
				memcpy((char *)host + pend_off,
				       ctx->staging[pend]->cpu, pend_len);
		}
		pend = i;
		pend_off = done;
		pend_len = len;
	}
	if (!st && pend >= 0) {
		/* the whole stream: its failures show up here */
		st = tu_stream_sync(s);
		if (!st)
			memcpy((char *)host + pend_off, ctx->staging[pend]->cpu,
			       pend_len);
	}
	/* the next copy starts with the buffer used longest ago */
	ctx->staging_next = i;
	return st;
}

static tgpu_status do_memcpy(tgpu_context *ctx, enum dir d, uint64_t dst_va,
			     void *dst_host, uint64_t src_va,
			     const void *src_host, size_t n,
			     tgpu_stream *stream, bool async)
{
	const char *fn = dir_fn[async][d];
	struct tu_bo *pinned = NULL;
	const void *host = d == H2D ? src_host : dst_host;
	tgpu_stream *s;
	tgpu_status st;

	st = tu_ctx_enter(ctx, fn);
	if (st)
		return st;
	st = tu_stream_resolve(ctx, async ? stream : NULL, &s, fn);
	if (st)
		return st;
	if (!n)
		return TGPU_SUCCESS;
	if (d != D2D && !host)
		return tu_fail(TGPU_ERROR_INVALID_VALUE, "%s: the host pointer is NULL", fn);
	if (d != H2D) {
		st = check_dev_range(ctx, src_va, n, fn, "source");
		if (st)
			return st;
	}
	if (d != D2H) {
		st = check_dev_range(ctx, dst_va, n, fn, "destination");
		if (st)
			return st;
	}
	if (d != D2D)
		pinned = tu_ctx_find_host(ctx, host, n);

	if (d == D2D || pinned) {
		if (pinned) {
			uint64_t hva = pinned->va + ((uintptr_t)host - (uintptr_t)pinned->cpu);

			if (d == H2D)
				src_va = hva;
			else
				dst_va = hva;
		}
		tu_stream_lock(s);
		st = gpu_copy(s, dir_engine[d], dst_va, src_va, n);
		tu_stream_unlock(s);
	} else {
		/* pageable: the earlier work of the stream goes first */
		pthread_mutex_lock(&ctx->staging_lock);
		st = staged_copy(ctx, s, d, (void *)host, d == H2D ? dst_va : src_va, n);
		pthread_mutex_unlock(&ctx->staging_lock);
		if (st)
			return st;
		if (d == D2H)
			return TGPU_SUCCESS;    /* staged_copy waited for it */
	}
	if (st || async)
		return st;
	return tu_stream_sync(s);
}

tgpu_status tgpu_memcpy_htod(tgpu_context *ctx, tgpu_deviceptr dst,
			     const void *src, size_t n)
{
	return do_memcpy(ctx, H2D, dst, NULL, 0, src, n, NULL, false);
}

tgpu_status tgpu_memcpy_dtoh(tgpu_context *ctx, void *dst, tgpu_deviceptr src,
			     size_t n)
{
	return do_memcpy(ctx, D2H, 0, dst, src, NULL, n, NULL, false);
}

tgpu_status tgpu_memcpy_dtod(tgpu_context *ctx, tgpu_deviceptr dst,
			     tgpu_deviceptr src, size_t n)
{
	return do_memcpy(ctx, D2D, dst, NULL, src, NULL, n, NULL, false);
}

tgpu_status tgpu_memcpy_htod_async(tgpu_context *ctx, tgpu_deviceptr dst,
				   const void *src, size_t n, tgpu_stream *stream)
{
	return do_memcpy(ctx, H2D, dst, NULL, 0, src, n, stream, true);
}

tgpu_status tgpu_memcpy_dtoh_async(tgpu_context *ctx, void *dst,
				   tgpu_deviceptr src, size_t n,
				   tgpu_stream *stream)
{
	return do_memcpy(ctx, D2H, 0, dst, src, NULL, n, stream, true);
}

tgpu_status tgpu_memcpy_dtod_async(tgpu_context *ctx, tgpu_deviceptr dst,
				   tgpu_deviceptr src, size_t n,
				   tgpu_stream *stream)
{
	return do_memcpy(ctx, D2D, dst, NULL, src, NULL, n, stream, true);
}

/* ---- fills ------------------------------------------------------------------ */

/*
 * A fill is a remap with only constants: elements of up to four
 * components of 1-4 bytes, all CONST_A.  The bulk goes as 16-byte
 * elements, the rest as elements of the fill's own width.
 */
#define FILL_ELEMS_MAX  0xfffffff0u     /* elements per launch */
#define FILL_DWORDS     11              /* dwords per fill launch */

static void fill_launch(struct tu_cb *cb, uint64_t dst, uint32_t value,
			uint32_t comp_size, uint32_t ncomp, uint64_t elems)
{
	const uint32_t a = TGPU_CE_REMAP_CONST_A;

	while (elems) {
		uint64_t e = elems < FILL_ELEMS_MAX ? elems : FILL_ELEMS_MAX;
		const uint32_t out[2] = { (uint32_t)(dst >> 32), (uint32_t)dst };

		tu_cb_method1(cb, TGPU_CE_M_SET_REMAP_CONST_A, value);
		tu_cb_method1(cb, TGPU_CE_M_SET_REMAP_COMPONENTS,
			      TGPU_CE_REMAP(a, a, a, a, comp_size, 1, ncomp));
		tu_cb_method(cb, TGPU_CE_M_OFFSET_OUT_UPPER, 2, out);
		tu_cb_method1(cb, TGPU_CE_M_LINE_LENGTH_IN, (uint32_t)e);
		tu_cb_method1(cb, TGPU_CE_M_LAUNCH_DMA,
			      TGPU_CE_LAUNCH(TGPU_CE_TRANSFER_PIPELINED,
					     TGPU_CE_SEM_NONE, TGPU_CE_INTR_NONE) |
			      TGPU_CE_LAUNCH_REMAP);
		dst += e * comp_size * ncomp;
		elems -= e;
	}
}

static tgpu_status do_memset(tgpu_context *ctx, uint64_t dst, uint32_t value,
			     uint32_t width, size_t n, tgpu_stream *stream,
			     const char *fn, bool async)
{
	uint64_t bytes = (uint64_t)n * width, bulk = bytes / 16;
	struct tu_cb cb;
	tgpu_stream *s;
	tgpu_status st;
	uint64_t va;

	st = tu_ctx_enter(ctx, fn);
	if (!st)
		st = tu_stream_resolve(ctx, async ? stream : NULL, &s, fn);
	if (st)
		return st;
	if (!n)
		return TGPU_SUCCESS;
	if (width == 4 && dst % 4)
		return tu_fail(TGPU_ERROR_INVALID_VALUE,
			       "%s: 0x%" PRIx64 " is not 4-byte aligned", fn, dst);
	if (bytes / width != n)
		return tu_fail(TGPU_ERROR_INVALID_VALUE, "%s: %zu words overflow", fn, n);
	st = check_dev_range(ctx, dst, bytes, fn, "destination");
	if (st)
		return st;
	if (width == 1)
		value = (value & 0xff) * 0x01010101u;
	cb.cap = 2 + FILL_DWORDS * (uint32_t)((bulk + FILL_ELEMS_MAX - 1) /
					      FILL_ELEMS_MAX + 1);
	tu_stream_lock(s);
	st = tu_stream_reserve(s, cb.cap * 4, (void **)&cb.p, &va);
	if (st)
		goto out;
	cb.n = 0;
	tu_cb_method1(&cb, TGPU_M_SET_OBJECT, TGPU_CLASS_COPY);
	fill_launch(&cb, dst, value, 4, 4, bulk);
	fill_launch(&cb, dst + bulk * 16, value, width, 1, (bytes - bulk * 16) / width);
	st = tu_stream_commit(s, TGPU_ENGINE_KIND_COPY0, va, cb.n, true);
out:
	tu_stream_unlock(s);
	if (st || async)
		return st;
	return tu_stream_sync(s);
}

tgpu_status tgpu_memset_d8(tgpu_context *ctx, tgpu_deviceptr dst, uint8_t value,
			   size_t n)
{
	return do_memset(ctx, dst, value, 1, n, NULL, "tgpu_memset_d8", false);
}

tgpu_status tgpu_memset_d32(tgpu_context *ctx, tgpu_deviceptr dst,
			    uint32_t value, size_t n)
{
	return do_memset(ctx, dst, value, 4, n, NULL, "tgpu_memset_d32", false);
}

tgpu_status tgpu_memset_d8_async(tgpu_context *ctx, tgpu_deviceptr dst,
				 uint8_t value, size_t n, tgpu_stream *stream)
{
	return do_memset(ctx, dst, value, 1, n, stream, "tgpu_memset_d8_async", true);
}

tgpu_status tgpu_memset_d32_async(tgpu_context *ctx, tgpu_deviceptr dst,
				  uint32_t value, size_t n, tgpu_stream *stream)
{
	return do_memset(ctx, dst, value, 4, n, stream, "tgpu_memset_d32_async", true);
}
