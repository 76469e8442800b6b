// SPDX-License-Identifier: MIT
/*
 * Reliability funnel, layer 1: submission atomicity.  Threads submit
 * checksummed payloads through libtgpu, some on a stream of their own,
 * the others on one stream they share, and every payload must land
 * intact and in order per thread:
 *
 *   test-funnel-submit [--threads=T] [--submissions=N] [--seed=S]
 *
 * N submissions in all (default 10000, the short variant; 100000 is the
 * long one), T threads (default 4, half of them on the shared stream).
 * Submission k of a thread is three operations on its stream:
 *
 *   1. the 64-byte payload k (thread, k, 52 seeded bytes, FNV-1a of
 *      them) from host memory to slot k of the thread's VRAM buffer;
 *   2. the thread's tail word to order[k] (device to device);
 *   3. the k in slot k to the tail word (device to device).
 *
 * In order, order[k] is k - 1 (the tail starts at all ones): a payload
 * torn, lost or written twice shows in its checksum, an operation run
 * out of order in order[].  Output is TAP ("# funnel-submit:" gives the
 * counts); the exit status is non-zero if any check failed.
 */
#include <inttypes.h>
#include <pthread.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <libtgpu.h>

#include "guest-tap.h"

#define PAYLOAD 64

struct payload {
	uint32_t thread, k;
	uint8_t bytes[52];
	uint32_t sum;           /* FNV-1a of everything before it */
} __attribute__((packed));

_Static_assert(sizeof(struct payload) == PAYLOAD, "a payload is 64 bytes");

struct worker {
	pthread_t th;
	unsigned int id, n;
	tgpu_stream *stream;    /* its own, or the shared one */
	tgpu_deviceptr slots, order, tail;
	struct payload *sent;
	tgpu_status st;
	char msg[256];
};

static tgpu_context *ctx;
static unsigned int seed = 1;

static uint32_t fnv1a(const void *p, size_t n)
{
	const uint8_t *b = p;
	uint32_t h = 2166136261u;

	while (n--)
		h = (h ^ *b++) * 16777619u;
	return h;
}

/* xorshift32, per thread and submission: the same bytes for a seed */
static uint32_t rnd(uint32_t *s)
{
	*s ^= *s << 13;
	*s ^= *s >> 17;
	*s ^= *s << 5;
	return *s;
}

static void *submit_all(void *arg)
{
	struct worker *w = arg;
	unsigned int k, i;

	for (k = 0; k < w->n && !w->st; k++) {
		struct payload *p = &w->sent[k];
		uint32_t s = seed * 2654435761u ^ (w->id << 20) ^ k ^ 0x9e3779b9u;

		p->thread = w->id;
		p->k = k;
		for (i = 0; i < sizeof(p->bytes); i++)
			p->bytes[i] = (uint8_t)rnd(&s);
		p->sum = fnv1a(p, offsetof(struct payload, sum));
		w->st = tgpu_memcpy_htod_async(ctx, w->slots + (uint64_t)k * PAYLOAD, p, PAYLOAD,
					       w->stream);
		if (!w->st)
			w->st = tgpu_memcpy_dtod_async(ctx, w->order + 4ull * k, w->tail, 4,
						       w->stream);
		if (!w->st)
			w->st = tgpu_memcpy_dtod_async(ctx, w->tail,
						       w->slots + (uint64_t)k * PAYLOAD + 4, 4,
						       w->stream);
	}
	if (w->st)
		snprintf(w->msg, sizeof(w->msg), "thread %u, submission %u: %s", w->id, k - 1,
			 tgpu_get_last_error_message());
	return NULL;
}

int main(int argc, char **argv)
{
	unsigned int threads = 4, total = 10000, t, k, torn = 0, misordered = 0, failed = 0;
	struct worker *w;
	tgpu_stream *shared;
	tgpu_device *dev;
	double t0, secs;
	struct timespec ts;
	int i;

	for (i = 1; i < argc; i++) {
		if (!strncmp(argv[i], "--threads=", 10))
			threads = (unsigned int)atoi(argv[i] + 10);
		else if (!strncmp(argv[i], "--submissions=", 14))
			total = (unsigned int)atoi(argv[i] + 14);
		else if (!strncmp(argv[i], "--seed=", 7))
			seed = (unsigned int)strtoul(argv[i] + 7, NULL, 0);
	}
	if (threads < 2 || threads > 64 || total < threads) {
		fprintf(stderr, "usage: test-funnel-submit [--threads=2..64] [--submissions=N] [--seed=S]\n");
		return 2;
	}
	printf("# funnel-submit: %u threads, %u submissions, seed %u\n", threads, total, seed);
	if (tgpu_init(0) || tgpu_device_get(&dev, 0) || tgpu_ctx_create(&ctx, dev, 0) ||
	    tgpu_stream_create(ctx, &shared, 0, 0))
		bail(tgpu_get_last_error_message());
	w = calloc(threads, sizeof(*w));
	if (!w)
		bail("out of memory");
	for (t = 0; t < threads; t++) {
		w[t].id = t;
		w[t].n = total / threads + (t < total % threads);
		w[t].sent = calloc(w[t].n, sizeof(struct payload));
		if (!w[t].sent ||
		    tgpu_mem_alloc(ctx, &w[t].slots, (size_t)w[t].n * PAYLOAD) ||
		    tgpu_mem_alloc(ctx, &w[t].order, (size_t)w[t].n * 4) ||
		    tgpu_mem_alloc(ctx, &w[t].tail, 4) ||
		    tgpu_memset_d32(ctx, w[t].tail, 0xffffffffu, 1) ||
		    tgpu_memset_d32(ctx, w[t].order, 0xdeadbeefu, w[t].n))
			bail(tgpu_get_last_error_message());
		/* odd threads share one stream, even ones have their own */
		if (t % 2)
			w[t].stream = shared;
		else if (tgpu_stream_create(ctx, &w[t].stream, 0, 0))
			bail(tgpu_get_last_error_message());
	}
	clock_gettime(CLOCK_MONOTONIC, &ts);
	t0 = ts.tv_sec + ts.tv_nsec / 1e9;
	for (t = 0; t < threads; t++)
		pthread_create(&w[t].th, NULL, submit_all, &w[t]);
	for (t = 0; t < threads; t++) {
		pthread_join(w[t].th, NULL);
		if (w[t].st) {
			failed++;
			printf("# %s\n", w[t].msg);
		}
	}
	if (tgpu_ctx_synchronize(ctx))
		bail(tgpu_get_last_error_message());
	clock_gettime(CLOCK_MONOTONIC, &ts);
	secs = ts.tv_sec + ts.tv_nsec / 1e9 - t0;
	ok(failed == 0, "every thread submitted all its work (%u failed)", failed);

	for (t = 0; t < threads; t++) {
		struct payload *got = malloc((size_t)w[t].n * PAYLOAD);
		uint32_t *order = malloc((size_t)w[t].n * 4);

		if (!got || !order || tgpu_memcpy_dtoh(ctx, got, w[t].slots, (size_t)w[t].n * PAYLOAD) ||
		    tgpu_memcpy_dtoh(ctx, order, w[t].order, (size_t)w[t].n * 4))
			bail(tgpu_get_last_error_message());
		for (k = 0; k < w[t].n; k++) {
			if (memcmp(&got[k], &w[t].sent[k], PAYLOAD) ||
			    got[k].sum != fnv1a(&got[k], offsetof(struct payload, sum))) {
				if (torn++ < 5)
					printf("# thread %u payload %u: thread %u k %u sum 0x%08x\n", t, k,
					     got[k].thread, got[k].k, got[k].sum);
			}
			if (order[k] != k - 1) {
				if (misordered++ < 5)
					printf("# thread %u: order[%u] = 0x%08x, not %u\n", t, k, order[k],
					     k - 1);
			}
		}
		free(got);
		free(order);
	}
	printf("# funnel-submit: %u submissions (%u operations) in %.2f s: %u corrupted, %u out of order\n",
	       total, 3 * total, secs, torn, misordered);
	ok(torn == 0, "%u payloads landed intact (%u corrupted)", total, torn);
	ok(misordered == 0, "each thread's submissions ran in its order, on its own stream or the shared one (%u not)",
	   misordered);
	for (t = 0; t < threads; t++)
		if (w[t].stream != shared)
			tgpu_stream_destroy(w[t].stream);
	tgpu_stream_destroy(shared);
	tgpu_ctx_destroy(ctx);
	return tap_done();
}
