// SPDX-License-Identifier: MIT
/*
 * Reliability funnel, layer 3: fence reliability.  Threads loop: make an
 * event (a fence), submit work before it, wait for it, destroy it.  The
 * wait alternates between the event's own wait (a syncobj wait in the
 * driver) and epoll on the sync_file the event exports:
 *
 *   test-funnel-fence [--threads=T] [--waits=N] [--timeout-ms=MS]
 *
 * N waits in all (default 10000, the short variant; 1000000 is the long
 * one), T threads (default 4).  The work is a fill of the thread's word
 * of pinned host memory with the wait's number, so that after the wake
 * the CPU sees whether the work is done:
 *
 *   lost wake-up      the wait timed out (MS, default 5000) though the
 *                     work was done
 *   spurious wake-up  the wait returned, the work not done
 *   timeout           the wait timed out with the work not done
 *
 * All three must be 0.  Output is TAP ("# funnel-fence:" gives the
 * counts and the wake-up latency); the exit status is non-zero if any
 * check failed.
 */
#include <errno.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <time.h>
#include <unistd.h>

#include <libtgpu.h>

#include "guest-tap.h"

struct worker {
	pthread_t th;
	unsigned int id, n;
	tgpu_stream *stream;
	volatile uint32_t *word;        /* pinned host memory */
	tgpu_deviceptr word_dev;
	unsigned int lost, spurious, timeouts, errors;
	double wait_s;
	char msg[256];
};

static tgpu_context *ctx;
static int timeout_ms = 5000;

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

/* Wait for @ev through epoll on its sync_file: 1 woken, 0 timed out, -1 error. */
static int epoll_wait_event(tgpu_event *ev)
{
	struct epoll_event e = { .events = EPOLLIN }, got;
	int fd, ep, r;

	if (tgpu_event_export_fd(ev, &fd))
		return -1;
	ep = epoll_create1(EPOLL_CLOEXEC);
	if (ep < 0 || epoll_ctl(ep, EPOLL_CTL_ADD, fd, &e)) {
		close(fd);
		if (ep >= 0)
			close(ep);
		return -1;
	}
	do {
		r = epoll_wait(ep, &got, 1, timeout_ms);
	} while (r < 0 && errno == EINTR);
	close(ep);
	close(fd);
	return r < 0 ? -1 : r > 0;
}

static void *wait_loop(void *arg)
{
	struct worker *w = arg;
	unsigned int i;

	for (i = 1; i <= w->n; i++) {
		tgpu_event *ev;
		double t;
		int woke;

		if (tgpu_event_create(ctx, &ev, 0) ||
		    tgpu_memset_d32_async(ctx, w->word_dev, i, 1, w->stream) ||
		    tgpu_event_record(ev, w->stream)) {
			w->errors++;
			snprintf(w->msg, sizeof(w->msg), "thread %u wait %u: %s", w->id, i,
				 tgpu_get_last_error_message());
			break;
		}
		t = now_s();
		if (i % 2) {
			woke = epoll_wait_event(ev);
		} else {
			/* the event's own wait: the driver's syncobj wait */
			woke = tgpu_event_synchronize(ev) == TGPU_SUCCESS ? 1 : -1;
		}
		w->wait_s += now_s() - t;
		if (woke < 0) {
			w->errors++;
			snprintf(w->msg, sizeof(w->msg), "thread %u wait %u: %s", w->id, i,
				 tgpu_get_last_error_message());
		} else if (woke && *w->word != i) {
			w->spurious++;
		} else if (!woke && tgpu_event_query(ev) == TGPU_SUCCESS && *w->word == i) {
			w->lost++;
		} else if (!woke) {
			w->timeouts++;
		}
		tgpu_event_destroy(ev);
		if (w->errors)
			break;
	}
	return NULL;
}

int main(int argc, char **argv)
{
	unsigned int threads = 4, total = 10000, t, lost = 0, spurious = 0, timeouts = 0;
	unsigned int errors = 0;
	struct worker *w;
	tgpu_device *dev;
	double t0, secs, wait_s = 0;
	uint32_t *words;
	int i;

	for (i = 1; i < argc; i++) {
		if (!strncmp(argv[i], "--threads=", 10))
			threads = (unsigned int)atoi(argv[i] + 10);
		else if (!strncmp(argv[i], "--waits=", 8))
			total = (unsigned int)atoi(argv[i] + 8);
		else if (!strncmp(argv[i], "--timeout-ms=", 13))
			timeout_ms = atoi(argv[i] + 13);
	}
	if (threads < 1 || threads > 64 || total < threads || timeout_ms < 1) {
		fprintf(stderr, "usage: test-funnel-fence [--threads=1..64] [--waits=N] [--timeout-ms=MS]\n");
		return 2;
	}
	if (tgpu_init(0) || tgpu_device_get(&dev, 0) || tgpu_ctx_create(&ctx, dev, 0) ||
	    tgpu_mem_alloc_host(ctx, (void **)&words, 4096))
		bail(tgpu_get_last_error_message());
	w = calloc(threads, sizeof(*w));
	if (!w)
		bail("out of memory");
	for (t = 0; t < threads; t++) {
		w[t].id = t;
		w[t].n = total / threads + (t < total % threads);
		/* a cache line each */
		w[t].word = &words[t * 16];
		if (tgpu_mem_host_get_device_pointer(ctx, &w[t].word_dev, (void *)w[t].word) ||
		    tgpu_stream_create(ctx, &w[t].stream, 0, 0))
			bail(tgpu_get_last_error_message());
	}
	t0 = now_s();
	for (t = 0; t < threads; t++)
		pthread_create(&w[t].th, NULL, wait_loop, &w[t]);
	for (t = 0; t < threads; t++) {
		pthread_join(w[t].th, NULL);
		lost += w[t].lost;
		spurious += w[t].spurious;
		timeouts += w[t].timeouts;
		errors += w[t].errors;
		wait_s += w[t].wait_s;
		if (w[t].errors)
			printf("# %s\n", w[t].msg);
	}
	secs = now_s() - t0;
	printf("# funnel-fence: %u waits (half epoll on a sync_file, half syncobj) by %u threads in %.2f s, mean wait %.0f us: %u lost, %u spurious, %u timed out\n",
	       total, threads, secs, total ? wait_s / total * 1e6 : 0, lost, spurious, timeouts);
	ok(errors == 0, "every fence made, submitted and waited for (%u errors)", errors);
	ok(lost == 0, "no lost wake-up in %u waits (%u)", total, lost);
	ok(spurious == 0, "no spurious wake-up: the work was done at every wake (%u)", spurious);
	ok(timeouts == 0, "no wait timed out (%d ms) (%u)", timeout_ms, timeouts);
	for (t = 0; t < threads; t++)
		tgpu_stream_destroy(w[t].stream);
	tgpu_mem_free_host(ctx, words);
	tgpu_ctx_destroy(ctx);
	return tap_done();
}
