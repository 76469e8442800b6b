// SPDX-License-Identifier: MIT
/*
 * In-guest test of libtgpu's context, memory, stream, event, module and
 * launch calls against the real device, error paths included.  Meant for
 * a guest booted with --device-opts vram-size=1G:
 *
 *   test-umd                   every call, error paths included
 *   test-umd --timeout-ms=MS   a kernel longer than tgpu.ko's job timeout
 *                              (MS, its job_timeout_ms) is LAUNCH_TIMEOUT
 *   test-umd --unplug          the device unbound under a context is
 *                              DEVICE_LOST (rebinds it afterwards)
 *   test-umd --reset=KIND      recovery from a fault that the host's
 *                              fault plan injects at the first kernel
 *                              launch (tests/guest/run): stall, wedge,
 *                              fetch, lost-irq, lost-error-irq (a
 *                              faulting kernel's channel error),
 *                              doorbell-drop (at the second launch),
 *                              bus-loss; flr resets the
 *                              device from sysfs; cancel is an endless
 *                              kernel on a queue with a 50 ms job
 *                              timeout (no fault injected)
 *   test-umd --host-faults     faults the host injects when asked (a
 *                              "# host:" line; tests/guest/host-relay):
 *                              MMU fault, illegal method, close-fd, BAR1
 *                              poison and AER (iomem=relaxed)
 *
 * Output is TAP; the exit status is non-zero if any check failed.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <poll.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <libtgpu.h>
#include <tgpu/channel.h>
#include <tgpu/copy.h>

#include "guest-tap.h"
#include "guest-kernels.h"
#include "guest-sysfs.h"

#define S(x) tgpu_get_error_name(x)

static tgpu_device *dev;

static bool is(tgpu_status got, tgpu_status want, const char *what)
{
	if (got != want)
		printf("#   got %s (%s), expected %s\n", S(got),
		       tgpu_get_last_error_message(), S(want));
	return ok(got == want, "%s: %s", what, S(want));
}

static const char kernels[] =
	"; two kernels in one source\n"
	".entry vadd\n"
	".param 28                  ; a, b, c (u64), n (u32)\n"
	"	s2r r0, ctaid.x\n"
	"	s2r r1, ntid.x\n"
	"	s2r r2, tid.x\n"
	"	imad r3, r0, r1, r2\n"
	"	ldc.32 r4, c[rz + 24]\n"
	"	isetp.ge p0, r3, r4\n"
	"	@p0 exit\n"
	"	mov r5, 4\n"
	"	ldc.64 r6, c[rz + 0]\n"
	"	imad.wide r8, r3, r5, r6\n"
	"	ldc.64 r6, c[rz + 8]\n"
	"	imad.wide r10, r3, r5, r6\n"
	"	ldc.64 r6, c[rz + 16]\n"
	"	imad.wide r12, r3, r5, r6\n"
	"	ldg.32 r14, [r8]\n"
	"	ldg.32 r15, [r10]\n"
	"	fadd r14, r14, r15\n"
	"	stg.32 [r12], r14\n"
	"	exit\n"
	GUEST_SPIN_KERNEL
	".entry fault\n"
	"	mov r0, 0\n"
	"	mov r1, 0x10                ; 64 GiB: nothing is mapped there\n"
	"	stg.32 [r0], r0\n"
	"	exit\n"
	".entry trap\n"
	"	trap 7\n";

struct vadd_params {
	uint64_t a, b, c;
	uint32_t n;
} __attribute__((packed));

static uint32_t pattern(uint64_t i)
{
	uint32_t x = (uint32_t)i * 0x9e3779b9u + 0x7f4a7c15u;

	x ^= x >> 15;
	x *= 0x2c1b3c6du;
	return x ^ (x >> 12);
}

/* ---- contexts and memory --------------------------------------------------- */

static void test_memory(void)
{
	tgpu_context *ctx, *ctx_bad;
	tgpu_deviceptr a, b;
	tgpu_device *d2;
	size_t fr, tot, fr2;
	uint8_t *p, *q = NULL;
	uint32_t *w;
	bool good;
	size_t i;

	if (!is(tgpu_ctx_create(&ctx, dev, 0), TGPU_SUCCESS, "tgpu_ctx_create"))
		bail("no context");
	is(tgpu_ctx_create(&ctx_bad, dev, 1), TGPU_ERROR_INVALID_VALUE, "ctx_create with flags 1");
	is(tgpu_ctx_get_device(ctx, &d2), TGPU_SUCCESS, "tgpu_ctx_get_device");
	ok(d2 == dev, "the context's device is the one it was made on");

	is(tgpu_mem_get_info(ctx, &fr, &tot), TGPU_SUCCESS, "tgpu_mem_get_info");
	is(tgpu_mem_alloc(ctx, &a, 3 << 20), TGPU_SUCCESS, "tgpu_mem_alloc 3 MiB");
	tgpu_mem_get_info(ctx, &fr2, &tot);
	ok(fr - fr2 >= (3 << 20), "free VRAM drops by the allocation (%zu -> %zu)", fr, fr2);
	ok(a >= (1ull << 32), "device pointers start at 4 GiB (0x%" PRIx64 ")", a);
	is(tgpu_mem_alloc(ctx, &b, 4097), TGPU_SUCCESS, "tgpu_mem_alloc 4097 bytes");
	ok(b + 8192 <= a || b >= a + (3 << 20), "blocks do not overlap");
	is(tgpu_mem_alloc(ctx, &b, 0), TGPU_ERROR_INVALID_VALUE, "tgpu_mem_alloc of 0 bytes");
	is(tgpu_mem_alloc(ctx, &b, 1ull << 40), TGPU_ERROR_OUT_OF_DEVICE_MEMORY,
	   "tgpu_mem_alloc of 1 TiB");
	is(tgpu_mem_alloc(ctx, NULL, 16), TGPU_ERROR_INVALID_VALUE, "tgpu_mem_alloc with NULL");
	is(tgpu_mem_free(ctx, a + 4096), TGPU_ERROR_INVALID_VALUE, "free of a pointer inside a block");

	/* fills, checked through the BAR mapping */
	is(tgpu_mem_host_map(ctx, (void **)&p, a), TGPU_SUCCESS, "tgpu_mem_host_map");
	is(tgpu_memset_d32(ctx, a, 0xdeadbeef, (3 << 20) / 4), TGPU_SUCCESS, "memset_d32 3 MiB");
	w = (uint32_t *)p;
	good = true;
	for (i = 0; i < (3 << 20) / 4; i += 997)
		good &= w[i] == 0xdeadbeef;
	ok(good && w[(3 << 20) / 4 - 1] == 0xdeadbeef, "memset_d32 wrote every word");
	is(tgpu_memset_d8(ctx, a + 3, 0x5a, 1000003), TGPU_SUCCESS, "memset_d8 unaligned, odd size");
	good = p[0] == 0xef && p[1] == 0xbe && p[2] == 0xad &&
	       p[3] == 0x5a && p[3 + 1000002] == 0x5a;
	for (i = 3; i < 3 + 1000003; i += 101)
		good &= p[i] == 0x5a;
	ok(good && p[3 + 1000003] == 0xad, "memset_d8 wrote exactly its bytes");
	is(tgpu_memset_d32(ctx, a + 2, 1, 4), TGPU_ERROR_INVALID_VALUE, "memset_d32 unaligned");
	is(tgpu_memset_d8(ctx, a + (3 << 20) - 10, 1, 11), TGPU_ERROR_INVALID_VALUE,
	   "memset_d8 past the block's end");
	is(tgpu_memset_d8(ctx, 0x1000, 1, 1), TGPU_ERROR_INVALID_VALUE, "memset_d8 of unallocated memory");

	/* device to device, unaligned */
	for (i = 0; i < (1 << 20); i++)
		p[i] = (uint8_t)pattern(i);
	is(tgpu_memcpy_dtod(ctx, a + (2 << 20) + 1, a + 5, 777777), TGPU_SUCCESS,
	   "memcpy_dtod unaligned");
	good = true;
	for (i = 0; i < 777777 && good; i++)
		good = p[(2 << 20) + 1 + i] == (uint8_t)pattern(i + 5);
	ok(good, "memcpy_dtod: byte-exact");

	/* pinned memory: zeroed, a device pointer, copies both ways */
	is(tgpu_mem_alloc_host(ctx, (void **)&q, (5 << 20) + 3), TGPU_SUCCESS, "tgpu_mem_alloc_host");
	if (q) {
		tgpu_deviceptr hq;

		good = true;
		for (i = 0; i < (5 << 20) + 3; i += 4093)
			good &= q[i] == 0;
		ok(good, "pinned memory starts zeroed");
		is(tgpu_mem_host_get_device_pointer(ctx, &hq, q + 100), TGPU_SUCCESS,
		   "tgpu_mem_host_get_device_pointer");
		for (i = 0; i < (3 << 20); i++)
			q[i] = (uint8_t)pattern(i * 7);
		is(tgpu_memcpy_htod(ctx, a + 1, q + 2, (3 << 20) - 2), TGPU_SUCCESS,
		   "memcpy_htod from pinned memory");
		good = true;
		for (i = 0; i < (3 << 20) - 2 && good; i++)
			good = p[1 + i] == (uint8_t)pattern((i + 2) * 7);
		ok(good, "memcpy_htod pinned: byte-exact");
		memset(q, 0, 5 << 20);
		is(tgpu_memcpy_dtoh(ctx, q + 7, a + 1, (3 << 20) - 2), TGPU_SUCCESS,
		   "memcpy_dtoh to pinned memory");
		good = q[6] == 0 && q[7 + (3 << 20) - 2] == 0;
		for (i = 0; i < (3 << 20) - 2 && good; i++)
			good = q[7 + i] == (uint8_t)pattern((i + 2) * 7);
		ok(good, "memcpy_dtoh pinned: byte-exact, nothing outside");
		is(tgpu_memcpy_dtod(ctx, hq, a, 4096), TGPU_SUCCESS,
		   "memcpy_dtod to a pinned block's device pointer");
		is(tgpu_mem_free_host(ctx, q + 1), TGPU_ERROR_INVALID_VALUE,
		   "free_host of a pointer inside the block");
		is(tgpu_mem_free_host(ctx, q), TGPU_SUCCESS, "tgpu_mem_free_host");
	}

	/* pageable memory through the staging buffers: several chunks */
	{
		size_t n = (21 << 20) + 13;
		tgpu_deviceptr big;
		uint8_t *h = malloc(n), *back = malloc(n);

		if (!h || !back)
			bail("out of memory");
		for (i = 0; i < n; i++)
			h[i] = (uint8_t)pattern(i ^ 0x55);
		is(tgpu_mem_alloc(ctx, &big, n), TGPU_SUCCESS, "tgpu_mem_alloc 21 MiB");
		is(tgpu_memcpy_htod(ctx, big, h, n), TGPU_SUCCESS, "memcpy_htod pageable, 21 MiB");
		memset(back, 0, n);
		is(tgpu_memcpy_dtoh(ctx, back, big, n), TGPU_SUCCESS, "memcpy_dtoh pageable, 21 MiB");
		ok(!memcmp(h, back, n), "pageable round trip: byte-exact");
		is(tgpu_memcpy_dtoh(ctx, back, big + 1, n), TGPU_ERROR_INVALID_VALUE,
		   "memcpy_dtoh past the block's end");
		is(tgpu_mem_free(ctx, big), TGPU_SUCCESS, "tgpu_mem_free 21 MiB");
		is(tgpu_mem_free(ctx, big), TGPU_ERROR_INVALID_VALUE, "double free");
		free(h);
		free(back);
	}
	is(tgpu_mem_free(ctx, a), TGPU_SUCCESS, "tgpu_mem_free");
	is(tgpu_ctx_destroy(ctx), TGPU_SUCCESS, "tgpu_ctx_destroy");
	is(tgpu_mem_alloc(ctx, &a, 16), TGPU_ERROR_INVALID_CONTEXT, "a destroyed context");
	is(tgpu_ctx_destroy(ctx), TGPU_ERROR_INVALID_CONTEXT, "destroying it twice");
}

/* ---- modules and launches -------------------------------------------------- */

static void test_kernels(void)
{
	const unsigned int n = 100003;
	struct tgpu_function_info fi;
	struct vadd_params vp;
	tgpu_function *vadd, *f, *f2;
	tgpu_context *ctx;
	tgpu_module *m, *m2;
	tgpu_deviceptr a, b, c;
	float *ha, *hb, *hc;
	bool good = true;
	unsigned int i;

	if (tgpu_ctx_create(&ctx, dev, 0))
		bail("no context");
	is(tgpu_module_load_data(ctx, &m, kernels, 0), TGPU_SUCCESS, "module from assembly text");
	is(tgpu_module_get_function(&vadd, m, "vadd"), TGPU_SUCCESS, "get_function vadd");
	is(tgpu_module_get_function(&f, m, "spin"), TGPU_SUCCESS, "get_function spin");
	is(tgpu_module_get_function(&f, m, "main"), TGPU_ERROR_NOT_FOUND, "get_function of a missing name");
	is(tgpu_function_get_info(vadd, &fi), TGPU_SUCCESS, "tgpu_function_get_info");
	ok(fi.param_size == 28 && fi.ninsns == 19, "vadd: .param 28, 19 instructions (%u, %u)",
	   fi.param_size, fi.ninsns);
	is(tgpu_module_load_data(ctx, &m2, "\tiadd r1, r2\n", 0), TGPU_ERROR_INVALID_IMAGE,
	   "module with an assembly error");
	ok(strstr(tgpu_get_last_error_message(), "1:") != NULL,
	   "the message gives the line (%s)", tgpu_get_last_error_message());
	is(tgpu_module_load_data(ctx, &m2, ".entry k\n.entry k\nexit\n", 0),
	   TGPU_ERROR_INVALID_IMAGE, "two kernels with one name");
	is(tgpu_module_load_data(ctx, &m2, "exit\n.entry k\nexit\n", 0),
	   TGPU_ERROR_INVALID_IMAGE, "code before the first .entry");
	is(tgpu_module_load_data(ctx, &m2, "exit\n", 0), TGPU_SUCCESS, "a source without .entry");
	is(tgpu_module_get_function(&f, m2, "main"), TGPU_SUCCESS, "its kernel is \"main\"");
	is(tgpu_module_unload(m2), TGPU_SUCCESS, "tgpu_module_unload");
	is(tgpu_module_unload(m2), TGPU_ERROR_INVALID_HANDLE, "unloading it twice");
	is(tgpu_function_get_info(f, &fi), TGPU_ERROR_INVALID_HANDLE, "a function of an unloaded module");

	ha = malloc(n * 4);
	hb = malloc(n * 4);
	hc = malloc(n * 4);
	for (i = 0; i < n; i++) {
		ha[i] = (float)i * 0.5f;
		hb[i] = (float)(pattern(i) % 1000) - 500.0f;
	}
	tgpu_mem_alloc(ctx, &a, n * 4);
	tgpu_mem_alloc(ctx, &b, n * 4);
	tgpu_mem_alloc(ctx, &c, n * 4);
	tgpu_memcpy_htod(ctx, a, ha, n * 4);
	tgpu_memcpy_htod(ctx, b, hb, n * 4);
	vp.a = a;
	vp.b = b;
	vp.c = c;
	vp.n = n;
	is(tgpu_launch_kernel(vadd, (n + 255) / 256, 1, 1, 256, 1, 1, 0, NULL, &vp, sizeof(vp)),
	   TGPU_SUCCESS, "launch vadd over 100003 elements");
	is(tgpu_memcpy_dtoh(ctx, hc, c, n * 4), TGPU_SUCCESS, "copy the result back");
	for (i = 0; i < n && good; i++)
		good = hc[i] == ha[i] + hb[i];
	ok(good, "vadd: every element equals the CPU's a + b%s", good ? "" : " (mismatch)");

	is(tgpu_launch_kernel(vadd, 0, 1, 1, 256, 1, 1, 0, NULL, &vp, sizeof(vp)),
	   TGPU_ERROR_INVALID_VALUE, "launch with grid x 0");
	is(tgpu_launch_kernel(vadd, 65536, 1, 1, 256, 1, 1, 0, NULL, &vp, sizeof(vp)),
	   TGPU_ERROR_INVALID_VALUE, "launch with grid x 65536");
	is(tgpu_launch_kernel(vadd, 1, 1, 1, 32, 33, 1, 0, NULL, &vp, sizeof(vp)),
	   TGPU_ERROR_INVALID_VALUE, "launch with 1056 threads per block");
	is(tgpu_launch_kernel(vadd, 1, 1, 1, 0, 1, 1, 0, NULL, &vp, sizeof(vp)),
	   TGPU_ERROR_INVALID_VALUE, "launch with block x 0");
	is(tgpu_launch_kernel(vadd, 1, 1, 1, 32, 1, 1, 49153, NULL, &vp, sizeof(vp)),
	   TGPU_ERROR_INVALID_VALUE, "launch with 48 KiB + 1 of shared memory");
	is(tgpu_launch_kernel(vadd, 1, 1, 1, 32, 1, 1, 0, NULL, &vp, 24),
	   TGPU_ERROR_INVALID_VALUE, "launch with 24 parameter bytes for .param 28");
	is(tgpu_launch_kernel(vadd, 1, 1, 1, 32, 1, 1, 0, NULL, NULL, 28),
	   TGPU_ERROR_INVALID_VALUE, "launch with NULL parameters");
	is(tgpu_launch_kernel((tgpu_function *)&vp, 1, 1, 1, 32, 1, 1, 0, NULL, &vp, 28),
	   TGPU_ERROR_INVALID_HANDLE, "launch of a made-up function");
	is(tgpu_ctx_synchronize(ctx), TGPU_SUCCESS, "refused launches leave the context usable");

	/* a module from a file, and a file that is not there */
	{
		FILE *fp = fopen("/tmp/test-umd-kernels.s", "w");
		tgpu_module *mf;

		if (!fp || fputs(kernels, fp) < 0 || fclose(fp))
			bail("cannot write /tmp/test-umd-kernels.s");
		is(tgpu_module_load(ctx, &mf, "/tmp/test-umd-kernels.s"), TGPU_SUCCESS,
		   "tgpu_module_load of an assembly file");
		is(tgpu_module_get_function(&f2, mf, "spin"), TGPU_SUCCESS,
		   "a kernel of the file module");
		is(tgpu_module_unload(mf), TGPU_SUCCESS, "unload it");
		is(tgpu_module_load(ctx, &mf, "/tmp/no-such-file.s"), TGPU_ERROR_NOT_FOUND,
		   "tgpu_module_load of a missing file");
		ok(strstr(tgpu_get_last_error_message(), "/tmp/no-such-file.s") != NULL,
		   "the message names the file (%s)", tgpu_get_last_error_message());
	}
	free(ha);
	free(hb);
	free(hc);
	is(tgpu_ctx_destroy(ctx), TGPU_SUCCESS, "destroy with modules and memory left");
}

/* ---- streams and events ----------------------------------------------------- */

static void test_streams(void)
{
	tgpu_stream *s1, *s2, *s3, *bad;
	tgpu_event *e0, *e1, *e2, *e3;
	tgpu_function *spin;
	struct spin_params sp;
	tgpu_context *ctx;
	tgpu_module *m;
	tgpu_deviceptr out;
	uint32_t *po, v = 0;
	struct epoll_event ee = { .events = EPOLLIN };
	float ms = -1;
	int fd = -1, ep, r;
	tgpu_status st;

	if (tgpu_ctx_create(&ctx, dev, 0) || tgpu_module_load_data(ctx, &m, kernels, 0) ||
	    tgpu_module_get_function(&spin, m, "spin"))
		bail("no context or module");
	is(tgpu_stream_create(ctx, &s1, 0, 4), TGPU_ERROR_INVALID_VALUE, "stream priority 4");
	is(tgpu_stream_create(ctx, &s1, 0, -1), TGPU_ERROR_INVALID_VALUE, "stream priority -1");
	is(tgpu_stream_create(ctx, &s1, 2, 0), TGPU_ERROR_INVALID_VALUE, "stream flags 2");
	is(tgpu_stream_create(ctx, &s1, 0, TGPU_STREAM_PRIORITY_HIGHEST), TGPU_SUCCESS,
	   "stream at the highest priority");
	is(tgpu_stream_create(ctx, &s2, 0, TGPU_STREAM_PRIORITY_LOWEST), TGPU_SUCCESS,
	   "stream at the lowest priority");
	is(tgpu_event_create(ctx, &e0, 0), TGPU_SUCCESS, "tgpu_event_create");
	tgpu_event_create(ctx, &e1, 0);
	if (tgpu_event_create(ctx, &e2, 0) || tgpu_event_create(ctx, &e3, 0) ||
	    tgpu_stream_create(ctx, &s3, 0, 0))
		bail("no event or stream");
	is(tgpu_event_elapsed_time(&ms, e0, e1), TGPU_ERROR_INVALID_HANDLE,
	   "elapsed time of events never recorded");
	is(tgpu_event_synchronize(e0), TGPU_SUCCESS, "synchronize of an event never recorded");
	is(tgpu_event_export_fd(e0, &fd), TGPU_ERROR_INVALID_HANDLE, "export of an event never recorded");

	tgpu_mem_alloc(ctx, &out, 4096);
	tgpu_memset_d32(ctx, out, 0, 1024);
	tgpu_mem_host_map(ctx, (void **)&po, out);
	sp.iters = 3000000;
	sp.out = out;
	is(tgpu_event_record(e0, s1), TGPU_SUCCESS, "tgpu_event_record");
	is(tgpu_launch_kernel(spin, 1, 1, 1, 1, 1, 1, 0, s1, &sp, sizeof(sp)), TGPU_SUCCESS,
	   "launch a kernel of 9 million instructions");
	tgpu_event_record(e1, s1);
	tgpu_event_record(e3, s1);
	is(tgpu_stream_query(s1), TGPU_ERROR_NOT_READY, "stream_query while it runs");
	is(tgpu_event_query(e1), TGPU_ERROR_NOT_READY, "event_query while it runs");
	is(tgpu_event_export_fd(e1, &fd), TGPU_SUCCESS, "tgpu_event_export_fd");
	ep = epoll_create1(0);
	epoll_ctl(ep, EPOLL_CTL_ADD, fd, &ee);
	ok(epoll_wait(ep, &ee, 1, 0) == 0, "epoll: the sync_file is not readable yet");
	/*
	 * s2 waits for the kernel through the event, then copies its
	 * output.  The event is recorded again at once on an idle stream:
	 * the wait is for the record it saw.  Neither call waits.
	 */
	is(tgpu_stream_wait_event(s2, e3), TGPU_SUCCESS, "tgpu_stream_wait_event");
	is(tgpu_event_record(e3, s3), TGPU_SUCCESS, "record the event again, on an idle stream");
	is(tgpu_memcpy_dtod_async(ctx, out + 64, out, 4, s2), TGPU_SUCCESS,
	   "a copy on the other stream after the wait");
	is(tgpu_event_query(e1), TGPU_ERROR_NOT_READY,
	   "the wait and the copy were queued while the kernel runs (the wait is the GPU's)");
	tgpu_event_record(e2, s2);
	r = epoll_wait(ep, &ee, 1, 20000);
	ok(r == 1 && (ee.events & EPOLLIN), "epoll: readable when the kernel is done");
	close(ep);
	close(fd);
	is(tgpu_event_synchronize(e2), TGPU_SUCCESS, "synchronize the other stream's event");
	v = po[16];
	ok(v == sp.iters, "the waiting stream saw the kernel's result (%u), not the second record's", v);
	/* a wait for the record of a stream destroyed since */
	po[32] = 0;
	is(tgpu_memset_d32_async(ctx, out + 4, 0x5eed, 1, s3), TGPU_SUCCESS, "work on a third stream");
	tgpu_event_record(e3, s3);
	is(tgpu_stream_destroy(s3), TGPU_SUCCESS, "destroy it");
	is(tgpu_stream_create(ctx, &s3, 0, 0), TGPU_SUCCESS,
	   "a new stream (on the user path it gets the destroyed one's semaphore word)");
	is(tgpu_stream_wait_event(s2, e3), TGPU_SUCCESS, "wait for the destroyed stream's event");
	is(tgpu_memcpy_dtod_async(ctx, out + 128, out + 4, 4, s2), TGPU_SUCCESS, "copy after it");
	is(tgpu_stream_synchronize(s2), TGPU_SUCCESS, "the wait is met at once (no fault)");
	ok(po[32] == 0x5eed, "the copy saw the destroyed stream's work (0x%x)", po[32]);
	/*
	 * The new stream's values go on from the word's: a wait for its
	 * record after a long kernel is not met by the old stream's values.
	 */
	po[64] = po[80] = 0;
	sp.out = out + 256;
	is(tgpu_launch_kernel(spin, 1, 1, 1, 1, 1, 1, 0, s3, &sp, sizeof(sp)), TGPU_SUCCESS,
	   "the new stream runs the long kernel");
	tgpu_event_record(e3, s3);
	is(tgpu_stream_wait_event(s2, e3), TGPU_SUCCESS, "wait for its record");
	tgpu_memcpy_dtod_async(ctx, out + 320, out + 256, 4, s2);
	is(tgpu_event_query(e3), TGPU_ERROR_NOT_READY, "the kernel still runs");
	is(tgpu_stream_synchronize(s2), TGPU_SUCCESS, "synchronize the waiting stream");
	ok(po[80] == sp.iters, "the copy ran after the new stream's kernel (%u)", po[80]);
	/*
	 * An event of a stream made with TGPU_SUBMIT=kernel, waited for by
	 * one that submits by itself (when the default is that).
	 */
	{
		const char *was = getenv("TGPU_SUBMIT");
		tgpu_stream *sk;

		setenv("TGPU_SUBMIT", "kernel", 1);
		st = tgpu_stream_create(ctx, &sk, 0, 0);
		if (was)
			setenv("TGPU_SUBMIT", was, 1);
		else
			unsetenv("TGPU_SUBMIT");
		is(st, TGPU_SUCCESS, "a kernel-path stream in the same context");
		po[96] = po[112] = 0;
		sp.out = out + 384;
		tgpu_launch_kernel(spin, 1, 1, 1, 1, 1, 1, 0, sk, &sp, sizeof(sp));
		tgpu_event_record(e3, sk);
		is(tgpu_stream_wait_event(s2, e3), TGPU_SUCCESS, "wait for its event");
		is(tgpu_memcpy_dtod_async(ctx, out + 448, out + 384, 4, s2), TGPU_SUCCESS,
		   "copy after the wait");
		is(tgpu_stream_synchronize(s2), TGPU_SUCCESS, "synchronize the waiting stream");
		ok(po[112] == sp.iters, "the copy ran after the kernel-path stream's kernel (%u)",
		   po[112]);
		is(tgpu_stream_destroy(sk), TGPU_SUCCESS, "destroy the kernel-path stream");
	}
	/* a wait with no work after it is the stream's too, as in CUDA */
	po[128] = 0;
	sp.out = out + 512;
	tgpu_launch_kernel(spin, 1, 1, 1, 1, 1, 1, 0, s1, &sp, sizeof(sp));
	tgpu_event_record(e3, s1);
	is(tgpu_stream_wait_event(s2, e3), TGPU_SUCCESS, "wait for an event, nothing after it");
	is(tgpu_stream_query(s2), TGPU_ERROR_NOT_READY, "the stream is not done while the event is not");
	is(tgpu_stream_synchronize(s2), TGPU_SUCCESS, "synchronize it");
	is(tgpu_event_query(e3), TGPU_SUCCESS, "then the event is done");
	ok(po[128] == sp.iters, "and its kernel's result is there (%u)", po[128]);
	is(tgpu_event_destroy(e3), TGPU_SUCCESS, "destroy that event");
	is(tgpu_event_elapsed_time(&ms, e0, e1), TGPU_SUCCESS, "tgpu_event_elapsed_time");
	ok(ms > 0.0f && ms < 20000.0f, "the kernel took %.3f ms of GPU time", ms);
	is(tgpu_stream_query(s1), TGPU_SUCCESS, "stream_query when done");
	/* async copies through pinned memory and async fills, in stream order */
	{
		uint32_t *hp;
		size_t i;
		bool good = true;

		is(tgpu_mem_alloc_host(ctx, (void **)&hp, 8192), TGPU_SUCCESS, "pinned buffer");
		for (i = 0; i < 1024; i++)
			hp[i] = (uint32_t)pattern(i);
		is(tgpu_memcpy_htod_async(ctx, out, hp, 4096, s2), TGPU_SUCCESS,
		   "memcpy_htod_async from pinned memory");
		is(tgpu_memset_d32_async(ctx, out + 16, 0xabcdef01, 4, s2), TGPU_SUCCESS,
		   "memset_d32_async");
		is(tgpu_memset_d8_async(ctx, out + 100, 0x3c, 3, s2), TGPU_SUCCESS,
		   "memset_d8_async");
		is(tgpu_memcpy_dtoh_async(ctx, hp + 1024, out, 4096, s2), TGPU_SUCCESS,
		   "memcpy_dtoh_async to pinned memory");
		is(tgpu_stream_synchronize(s2), TGPU_SUCCESS, "synchronize the stream");
		for (i = 0; i < 1024; i++) {
			uint32_t want = (uint32_t)pattern(i);

			if (i >= 4 && i < 8)
				want = 0xabcdef01;
			if (i == 25)
				want = (want & 0xff000000) | 0x3c3c3c;
			good &= hp[1024 + i] == want;
		}
		ok(good, "the four operations ran in order, byte-exact");
		is(tgpu_mem_free_host(ctx, hp), TGPU_SUCCESS, "free the pinned buffer");
	}
	is(tgpu_stream_destroy(s2), TGPU_SUCCESS, "tgpu_stream_destroy");
	is(tgpu_stream_synchronize(s2), TGPU_ERROR_INVALID_HANDLE, "a destroyed stream");
	bad = (tgpu_stream *)&sp;
	is(tgpu_memcpy_dtod_async(ctx, out, out + 8, 4, bad), TGPU_ERROR_INVALID_HANDLE,
	   "a made-up stream");
	is(tgpu_event_destroy(e2), TGPU_SUCCESS, "tgpu_event_destroy");
	is(tgpu_event_query(e2), TGPU_ERROR_INVALID_HANDLE, "a destroyed event");
	is(tgpu_ctx_destroy(ctx), TGPU_SUCCESS, "destroy with streams and events left");
}

/* ---- command buffers --------------------------------------------------------- */

#define HDR(op, sc, m, n) TGPU_PB_HDR(op, sc, m, n)
/* header opcodes that do not exist: the checker must refuse them */
#define PB_OP_BAD 2

static void test_commands(void)
{
	tgpu_context *ctx;
	tgpu_stream *s;
	tgpu_deviceptr sem;
	volatile uint32_t *ps;
	uint32_t cmd[16];

	if (tgpu_ctx_create(&ctx, dev, 0) || tgpu_stream_create(ctx, &s, 0, 1))
		bail("no context");
	tgpu_mem_alloc(ctx, &sem, 4096);
	tgpu_memset_d32(ctx, sem, 0, 1024);
	tgpu_mem_host_map(ctx, (void **)&ps, sem);

	/* a semaphore release: SEM_ADDR_LO .. SEM_EXECUTE */
	tgpu_pb_sem(cmd, sem, 0x1234, TGPU_SEM_OP_RELEASE);
	is(tgpu_stream_submit_commands(s, TGPU_ENGINE_KIND_COPY1, cmd, 6), TGPU_SUCCESS,
	   "submit_commands: a semaphore release");
	tgpu_stream_synchronize(s);
	ok(ps[0] == 0x1234, "the release reached memory (0x%x)", ps[0]);

	cmd[0] = HDR(PB_OP_BAD, 0, TGPU_M_NOP, 1);
	is(tgpu_stream_submit_commands(s, TGPU_ENGINE_KIND_COPY1, cmd, 2),
	   TGPU_ERROR_INVALID_COMMANDS, "header opcode 2 is refused");
	cmd[0] = HDR(TGPU_PB_OP_INC, 0, TGPU_M_SEM_ADDR_LO, 5);
	is(tgpu_stream_submit_commands(s, TGPU_ENGINE_KIND_COPY1, cmd, 4),
	   TGPU_ERROR_INVALID_COMMANDS, "a count beyond the buffer is refused");
	cmd[0] = HDR(TGPU_PB_OP_INC, 0, 0x00c, 1);
	is(tgpu_stream_submit_commands(s, TGPU_ENGINE_KIND_COPY1, cmd, 2),
	   TGPU_ERROR_INVALID_COMMANDS, "an unknown host method is refused");
	cmd[0] = HDR(TGPU_PB_OP_INC, 3, TGPU_CE_M_OFFSET_IN_UPPER, 1);
	is(tgpu_stream_submit_commands(s, TGPU_ENGINE_KIND_COPY1, cmd, 2),
	   TGPU_ERROR_INVALID_COMMANDS, "an engine method on an unbound subchannel is refused");
	ok(strstr(tgpu_get_last_error_message(), "dword 1") != NULL,
	   "the message names the dword (%s)", tgpu_get_last_error_message());
	cmd[0] = HDR(TGPU_PB_OP_IMMD, 0, TGPU_M_SET_OBJECT, TGPU_CLASS_COMPUTE & TGPU_PB_COUNT_MASK);     /* SET_OBJECT compute, immediate */
	is(tgpu_stream_submit_commands(s, TGPU_ENGINE_KIND_COPY1, cmd, 1),
	   TGPU_ERROR_INVALID_COMMANDS, "the compute class on a copy engine is refused");
	cmd[0] = HDR(TGPU_PB_OP_INC, 2, TGPU_M_SET_OBJECT, 1);
	cmd[1] = TGPU_CLASS_COPY;
	cmd[2] = HDR(TGPU_PB_OP_INC, 2, TGPU_CE_M_LAUNCH_DMA, 1);
	cmd[3] = 1u << 30;                      /* outside TGPU_CE_LAUNCH_VALID_MASK */
	is(tgpu_stream_submit_commands(s, TGPU_ENGINE_KIND_COPY1, cmd, 4),
	   TGPU_ERROR_INVALID_COMMANDS, "a LAUNCH_DMA with unknown bits is refused");
	cmd[0] = HDR(TGPU_PB_OP_NON_INC, 0, TGPU_M_SEM_ADDR_LO, 3);           /* NON_INC: SEM_ADDR_LO 3 times */
	cmd[1] = cmd[2] = cmd[3] = 0;
	is(tgpu_stream_submit_commands(s, TGPU_ENGINE_KIND_COPY1, cmd, 4), TGPU_SUCCESS,
	   "a NON_INC run is accepted");
	is(tgpu_stream_submit_commands(s, TGPU_ENGINE_KIND_COPY1, cmd, 0),
	   TGPU_ERROR_INVALID_COMMANDS, "an empty buffer is refused");
	is(tgpu_stream_submit_commands(s, 3, cmd, 4), TGPU_ERROR_INVALID_VALUE, "engine 3");
	is(tgpu_stream_synchronize(s), TGPU_SUCCESS, "refused buffers never reached the GPU");
	tgpu_ctx_destroy(ctx);
}

/* ---- threads ------------------------------------------------------------------ */

#define THREADS 8
#define PER_THREAD 300

struct thr {
	tgpu_stream *s;
	tgpu_deviceptr sem;
	int id;
	tgpu_status st;
};

static void *thread_main(void *arg)
{
	struct thr *t = arg;
	uint64_t a = t->sem + 4 * (uint64_t)t->id;
	int i;

	for (i = 1; i <= PER_THREAD && !t->st; i++) {
		uint32_t cmd[TGPU_SEM_DWORDS];

		tgpu_pb_sem(cmd, a, (uint32_t)i, TGPU_SEM_OP_RELEASE);
		t->st = tgpu_stream_submit_commands(t->s, TGPU_ENGINE_KIND_COMPUTE, cmd, 6);
	}
	return NULL;
}

static void test_threads(void)
{
	struct thr t[THREADS];
	pthread_t th[THREADS];
	tgpu_context *ctx;
	tgpu_stream *s;
	tgpu_deviceptr sem;
	uint32_t *ps;
	bool good = true;
	int i;

	if (tgpu_ctx_create(&ctx, dev, 0) || tgpu_stream_create(ctx, &s, 0, 0))
		bail("no context");
	tgpu_mem_alloc(ctx, &sem, 4096);
	tgpu_memset_d32(ctx, sem, 0, 1024);
	tgpu_mem_host_map(ctx, (void **)&ps, sem);
	for (i = 0; i < THREADS; i++) {
		t[i] = (struct thr){ .s = s, .sem = sem, .id = i };
		pthread_create(&th[i], NULL, thread_main, &t[i]);
	}
	for (i = 0; i < THREADS; i++) {
		pthread_join(th[i], NULL);
		good &= t[i].st == TGPU_SUCCESS;
	}
	ok(good, "%d threads x %d submissions on one stream all succeed", THREADS, PER_THREAD);
	is(tgpu_stream_synchronize(s), TGPU_SUCCESS, "the stream completes");
	good = true;
	for (i = 0; i < THREADS; i++)
		good &= ps[i] == PER_THREAD;
	ok(good, "each thread's last release is the last value in its slot (in order)");
	tgpu_ctx_destroy(ctx);
}

/* A new context with the test kernels loaded, and the one called @name. */
static void kernel_context(tgpu_context **ctx, const char *name, tgpu_function **fn)
{
	tgpu_module *m;

	if (tgpu_ctx_create(ctx, dev, 0) || tgpu_module_load_data(*ctx, &m, kernels, 0) ||
	    tgpu_module_get_function(fn, m, name))
		bail("no context or module");
}

/* A new context with the "spin" kernel and a 4 KiB buffer for its output. */
static void spin_context(tgpu_context **ctx, tgpu_function **spin,
			 tgpu_deviceptr *out)
{
	kernel_context(ctx, "spin", spin);
	if (tgpu_mem_alloc(*ctx, out, 4096))
		bail("no memory");
}

/* ---- sticky errors ------------------------------------------------------------- */

static void test_sticky(void)
{
	tgpu_context *ctx, *ctx2;
	tgpu_function *fault;
	tgpu_module *m;
	tgpu_deviceptr a;
	tgpu_status st = TGPU_ERROR_UNKNOWN;

	if (tgpu_ctx_create(&ctx, dev, 0) || tgpu_ctx_create(&ctx2, dev, 0) ||
	    tgpu_module_load_data(ctx, &m, kernels, 0) ||
	    tgpu_module_get_function(&fault, m, "fault"))
		bail("no context or module");
	is(tgpu_ctx_get_reset_status(ctx, &st), TGPU_SUCCESS, "tgpu_ctx_get_reset_status");
	ok(st == TGPU_SUCCESS, "a new context is not in error");
	is(tgpu_launch_kernel(fault, 1, 1, 1, 32, 1, 1, 0, NULL, NULL, 0), TGPU_SUCCESS,
	   "launch a kernel that stores to an unmapped address");
	is(tgpu_ctx_synchronize(ctx), TGPU_ERROR_ILLEGAL_ADDRESS, "synchronize reports the fault");
	ok(strstr(tgpu_get_last_error_message(), "compute") != NULL &&
	   strstr(tgpu_get_last_error_message(), "0x1000000000") != NULL,
	   "the message names the engine and the address (%s)", tgpu_get_last_error_message());
	is(tgpu_mem_alloc(ctx, &a, 4096), TGPU_ERROR_ILLEGAL_ADDRESS, "later calls fail: sticky");
	tgpu_ctx_get_reset_status(ctx, &st);
	ok(st == TGPU_ERROR_ILLEGAL_ADDRESS, "get_reset_status returns it (%s)", S(st));
	is(tgpu_mem_alloc(ctx2, &a, 4096), TGPU_SUCCESS, "another context is not affected");
	is(tgpu_ctx_destroy(ctx), TGPU_SUCCESS, "a broken context can be destroyed");

	/*
	 * An event recorded after the failure, on another engine of the
	 * stream (the copy engine of a D2H copy), still reports it.
	 */
	{
		tgpu_context *c3;
		tgpu_module *m3;
		tgpu_function *f3;
		tgpu_event *ev;
		tgpu_deviceptr d;
		void *h;

		if (tgpu_ctx_create(&c3, dev, 0) || tgpu_module_load_data(c3, &m3, kernels, 0) ||
		    tgpu_module_get_function(&f3, m3, "fault") || tgpu_event_create(c3, &ev, 0) ||
		    tgpu_mem_alloc(c3, &d, 4096) || tgpu_mem_alloc_host(c3, &h, 4096))
			bail("no context");
		tgpu_launch_kernel(f3, 1, 1, 1, 32, 1, 1, 0, NULL, NULL, 0);
		tgpu_memcpy_dtoh_async(c3, h, d, 4096, NULL);
		tgpu_event_record(ev, NULL);
		is(tgpu_event_synchronize(ev), TGPU_ERROR_ILLEGAL_ADDRESS,
		   "an event recorded on the copy engine after a faulting kernel reports the fault");
		tgpu_ctx_destroy(c3);
	}
	/*
	 * A stream that waits for an event of a stream whose kernel faults:
	 * its wait is never met.  The driver's watchdog would take it down
	 * only once no other work of the process runs, and a third stream's
	 * long kernel runs; the synchronize ends before that, naming the
	 * fault.
	 */
	{
		tgpu_context *c4;
		tgpu_module *m4;
		tgpu_function *f4, *spin4;
		tgpu_stream *sa, *sb, *sc;
		tgpu_event *ev;
		tgpu_deviceptr d;
		struct spin_params sp4;
		volatile uint32_t *pd;

		if (tgpu_ctx_create(&c4, dev, 0) || tgpu_module_load_data(c4, &m4, kernels, 0) ||
		    tgpu_module_get_function(&f4, m4, "fault") ||
		    tgpu_module_get_function(&spin4, m4, "spin") || tgpu_event_create(c4, &ev, 0) ||
		    tgpu_ctx_set_limit(c4, TGPU_LIMIT_JOB_TIMEOUT_MS, 300) ||
		    tgpu_stream_create(c4, &sa, 0, 0) || tgpu_stream_create(c4, &sb, 0, 0) ||
		    tgpu_stream_create(c4, &sc, 0, 0) || tgpu_mem_alloc(c4, &d, 4096) ||
		    tgpu_mem_host_map(c4, (void **)&pd, d))
			bail("no context");
		tgpu_launch_kernel(f4, 1, 1, 1, 32, 1, 1, 0, sa, NULL, 0);
		tgpu_event_record(ev, sa);
		/* over a second of work behind the fault, on the same engine */
		sp4.out = d + 64;
		sp4.iters = 40000000;
		tgpu_launch_kernel(spin4, 1, 1, 1, 1, 1, 1, 0, sc, &sp4, sizeof(sp4));
		/* the fault may already be known (the context's sticky error) */
		st = tgpu_stream_wait_event(sb, ev);
		ok(st == TGPU_SUCCESS || st == TGPU_ERROR_ILLEGAL_ADDRESS,
		   "wait for an event after a faulting kernel: %s", tgpu_get_error_name(st));
		st = tgpu_memset_d32_async(c4, d, 1, 4, sb);
		ok(st == TGPU_SUCCESS || st == TGPU_ERROR_ILLEGAL_ADDRESS,
		   "work after the wait: %s", tgpu_get_error_name(st));
		st = tgpu_stream_synchronize(sb);
		is(st, TGPU_ERROR_ILLEGAL_ADDRESS, "the waiting stream's synchronize reports the fault it waited behind");
		ok(strstr(tgpu_get_last_error_message(), "0x1000000000") != NULL,
		   "its message names the faulting address (%s)", tgpu_get_last_error_message());
		ok(pd[16] == 0, "it did so while the third stream's kernel still ran (%u)", pd[16]);
		is(tgpu_ctx_destroy(c4), TGPU_SUCCESS, "the context can be destroyed");
	}
	/*
	 * Work queued after a fault has landed and nothing has asked: on the
	 * kernel path its SUBMIT finds the queue dead.  That call, or the
	 * synchronize after it, reports the fault and its address, not only
	 * that the queue is dead.
	 */
	{
		tgpu_context *c6;
		tgpu_function *f6;
		tgpu_stream *s6;

		kernel_context(&c6, "fault", &f6);
		if (tgpu_stream_create(c6, &s6, 0, 0))
			bail("no stream");
		tgpu_launch_kernel(f6, 1, 1, 1, 32, 1, 1, 0, s6, NULL, 0);
		sleep(1);	/* the fault lands meanwhile */
		st = tgpu_launch_kernel(f6, 1, 1, 1, 32, 1, 1, 0, s6, NULL, 0);
		if (st == TGPU_SUCCESS)
			st = tgpu_stream_synchronize(s6);
		is(st, TGPU_ERROR_ILLEGAL_ADDRESS, "work queued after an unnoticed fault reports the fault");
		ok(strstr(tgpu_get_last_error_message(), "0x1000000000") != NULL,
		   "its message names the faulting address (%s)", tgpu_get_last_error_message());
		is(tgpu_ctx_destroy(c6), TGPU_SUCCESS, "the context can be destroyed");
	}
	/*
	 * A stream that waited for a healthy event, whose own kernel then
	 * runs past the job timeout: its synchronize ends with the timeout.
	 */
	{
		tgpu_context *c5;
		tgpu_function *spin5;
		tgpu_stream *sa, *sb;
		tgpu_event *ev;
		tgpu_deviceptr d;
		struct spin_params sp5;

		spin_context(&c5, &spin5, &d);
		if (tgpu_event_create(c5, &ev, 0) ||
		    tgpu_ctx_set_limit(c5, TGPU_LIMIT_JOB_TIMEOUT_MS, 200) ||
		    tgpu_stream_create(c5, &sa, 0, 0) || tgpu_stream_create(c5, &sb, 0, 0))
			bail("no context");
		tgpu_memset_d32_async(c5, d, 1, 4, sa);
		tgpu_event_record(ev, sa);
		is(tgpu_stream_wait_event(sb, ev), TGPU_SUCCESS, "wait for a healthy event");
		sp5.out = d + 64;
		sp5.iters = 0x7fffffff;
		is(tgpu_launch_kernel(spin5, 1, 1, 1, 1, 1, 1, 0, sb, &sp5, sizeof(sp5)), TGPU_SUCCESS,
		   "then a kernel that runs for minutes");
		is(tgpu_stream_synchronize(sb), TGPU_ERROR_LAUNCH_TIMEOUT,
		   "the synchronize ends with the stream's own timeout");
		tgpu_ctx_destroy(c5);
	}
	/* a kernel error that is not a fault */
	if (tgpu_module_load_data(ctx2, &m, kernels, 0) ||
	    tgpu_module_get_function(&fault, m, "trap"))
		bail("no module");
	tgpu_launch_kernel(fault, 1, 1, 1, 1, 1, 1, 0, NULL, NULL, 0);
	is(tgpu_ctx_synchronize(ctx2), TGPU_ERROR_LAUNCH_FAILED, "a TRAP is LAUNCH_FAILED");
	ok(strstr(tgpu_get_last_error_message(), "trap") != NULL ||
	   strstr(tgpu_get_last_error_message(), "TRAP") != NULL,
	   "the message says it was a trap (%s)", tgpu_get_last_error_message());
	is(tgpu_ctx_destroy(ctx2), TGPU_SUCCESS, "destroy the other");
}

/* ---- the job timeout ------------------------------------------------------------ */

/* tgpu_ctx_set_limit()/get_limit(): the job timeout's range and errors */
static void test_limits(void)
{
	tgpu_context *ctx;
	tgpu_deviceptr d;
	tgpu_status st;
	uint64_t v = 1;
	int status = 0;
	pid_t child;

	if (tgpu_ctx_create(&ctx, dev, 0) || tgpu_mem_alloc(ctx, &d, 4096))
		bail("no context");
	is(tgpu_ctx_get_limit(ctx, TGPU_LIMIT_JOB_TIMEOUT_MS, &v), TGPU_SUCCESS,
	   "get_limit JOB_TIMEOUT_MS");
	ok(v == 0, "a new context has the driver's job timeout (0, got %" PRIu64 ")", v);
	is(tgpu_ctx_set_limit(ctx, TGPU_LIMIT_JOB_TIMEOUT_MS, 60001), TGPU_ERROR_INVALID_VALUE,
	   "set_limit JOB_TIMEOUT_MS 60001 ms");
	is(tgpu_ctx_set_limit(ctx, (tgpu_limit)1, 5), TGPU_ERROR_INVALID_VALUE,
	   "set_limit of an unknown limit");
	is(tgpu_ctx_get_limit(ctx, TGPU_LIMIT_JOB_TIMEOUT_MS, NULL), TGPU_ERROR_INVALID_VALUE,
	   "get_limit into NULL");
	is(tgpu_ctx_set_limit(ctx, TGPU_LIMIT_JOB_TIMEOUT_MS, 250), TGPU_SUCCESS,
	   "set_limit JOB_TIMEOUT_MS 250 ms");
	tgpu_ctx_get_limit(ctx, TGPU_LIMIT_JOB_TIMEOUT_MS, &v);
	ok(v == 250, "get_limit reads it back (%" PRIu64 ")", v);
	/* a queue made with it: the driver took the timeout */
	is(tgpu_memset_d32(ctx, d, 0, 1024), TGPU_SUCCESS, "work on a 250 ms queue");
	ok(system("grep -qs 'timeout_ms 250' /sys/kernel/debug/dri/*/channels") == 0,
	   "debugfs channels: the queue's job timeout is 250 ms");
	/* longer than the driver's without CAP_SYS_NICE: a child gave up root */
	fflush(stdout);
	child = fork();
	if (child == 0) {
		tgpu_stream *s;

		if (setuid(65534) || tgpu_ctx_set_limit(ctx, TGPU_LIMIT_JOB_TIMEOUT_MS, 60000) ||
		    tgpu_stream_create(ctx, &s, 0, 0))
			_exit(100);
		st = tgpu_memset_d32_async(ctx, d, 0, 1024, s);
		fprintf(stderr, "limit child: %s: %s\n", S(st), tgpu_get_last_error_message());
		_exit(st == TGPU_ERROR_PERMISSION_DENIED &&
		      strstr(tgpu_get_last_error_message(), "CAP_SYS_NICE") ? 0 : 1);
	}
	ok(child > 0 && waitpid(child, &status, 0) == child && WIFEXITED(status) &&
	   WEXITSTATUS(status) == 0,
	   "unprivileged, a 60000 ms job timeout: the first work fails with PERMISSION_DENIED, naming CAP_SYS_NICE");
	tgpu_ctx_destroy(ctx);
	is(tgpu_ctx_set_limit(ctx, TGPU_LIMIT_JOB_TIMEOUT_MS, 5), TGPU_ERROR_INVALID_CONTEXT,
	   "set_limit on a destroyed context");
}

static void test_timeout(unsigned int timeout_ms)
{
	struct spin_params sp;
	struct timespec t0, t1;
	tgpu_function *spin;
	tgpu_context *ctx;
	tgpu_deviceptr out;
	tgpu_status st;
	double dt;

	spin_context(&ctx, &spin, &out);
	/* far longer than the timeout: 2^31 iterations */
	sp.out = out;
	sp.iters = 0x7fffffff;
	is(tgpu_launch_kernel(spin, 1, 1, 1, 1, 1, 1, 0, NULL, &sp, sizeof(sp)), TGPU_SUCCESS,
	   "launch a kernel that runs for minutes");
	clock_gettime(CLOCK_MONOTONIC, &t0);
	is(tgpu_ctx_synchronize(ctx), TGPU_ERROR_LAUNCH_TIMEOUT,
	   "synchronize reports the job timeout");
	clock_gettime(CLOCK_MONOTONIC, &t1);
	dt = (double)(t1.tv_sec - t0.tv_sec) + (t1.tv_nsec - t0.tv_nsec) / 1e9;
	ok(dt >= timeout_ms / 1000.0 - 0.2 && dt < timeout_ms / 1000.0 + 3.0,
	   "after about the job timeout (%.2f s for %u ms)", dt, timeout_ms);
	ok(strstr(tgpu_get_last_error_message(), "timeout") != NULL,
	   "the message says so (%s)", tgpu_get_last_error_message());
	tgpu_ctx_get_reset_status(ctx, &st);
	ok(st == TGPU_ERROR_LAUNCH_TIMEOUT, "sticky: get_reset_status says %s", S(st));
	is(tgpu_ctx_destroy(ctx), TGPU_SUCCESS, "destroy the timed-out context");
	if (tgpu_ctx_create(&ctx, dev, 0))
		bail("no context");
	is(tgpu_memset_d32(ctx, 0, 0, 0), TGPU_SUCCESS, "a new context works");
	tgpu_ctx_destroy(ctx);
}

/*
 * A kernel that runs for several job timeouts but keeps making progress
 * is not a hang: the driver's progress check lets it finish.
 */
static void test_progress(unsigned int timeout_ms)
{
	struct spin_params sp;
	struct timespec t0, t1;
	tgpu_function *spin;
	tgpu_context *ctx;
	tgpu_deviceptr out;
	tgpu_status st = TGPU_SUCCESS;
	uint32_t iters;
	double dt = 0;

	spin_context(&ctx, &spin, &out);
	/* longer each time, until one run outlasts three timeouts */
	for (iters = 1u << 16; iters < 1u << 30 && !st &&
	     dt < 3.0 * timeout_ms / 1000.0; iters *= 2) {
		sp.out = out;
		sp.iters = iters;
		clock_gettime(CLOCK_MONOTONIC, &t0);
		st = tgpu_launch_kernel(spin, 1, 1, 1, 1, 1, 1, 0, NULL, &sp, sizeof(sp));
		if (!st)
			st = tgpu_ctx_synchronize(ctx);
		clock_gettime(CLOCK_MONOTONIC, &t1);
		dt = (double)(t1.tv_sec - t0.tv_sec) + (t1.tv_nsec - t0.tv_nsec) / 1e9;
	}
	is(st, TGPU_SUCCESS, "a kernel that keeps making progress finishes");
	ok(dt >= 3.0 * timeout_ms / 1000.0,
	   "it ran %.2f s, past three job timeouts of %u ms (%u iterations)",
	   dt, timeout_ms, iters / 2);
	tgpu_ctx_get_reset_status(ctx, &st);
	is(st, TGPU_SUCCESS, "the context is not in error");
	tgpu_ctx_destroy(ctx);
}

/* ---- recovery ----------------------------------------------------------------------- */

/* CLOCK_MONOTONIC, the clock of the kernel's ktime_get_ns() */
static uint64_t now_ns(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (uint64_t)t.tv_sec * 1000000000u + (uint64_t)t.tv_nsec;
}

static double now_s(void)
{
	return now_ns() / 1e9;
}

static bool dmesg_match(const char *pattern)
{
	return dmesg_count(pattern) > 0;
}

/* libtgpu's streams write their rings themselves unless TGPU_SUBMIT=kernel */
static bool user_submit(void)
{
	const char *e = getenv("TGPU_SUBMIT");

	return !e || strcmp(e, "kernel");
}

/* What an Xid 8 line calls the hung work: a job, or a user queue's ring */
#define HUNG_WORK "(job [0-9]+|user-submitted work \\(GP_GET [0-9]+, GP_PUT [0-9]+\\))"

/* Wait up to @seconds for the @n-th kernel log line matching @pattern. */
static bool dmesg_wait(const char *pattern, int n, double seconds)
{
	double end = now_s() + seconds;

	while (dmesg_count(pattern) < n) {
		if (now_s() > end)
			return false;
		usleep(50 * 1000);
	}
	return true;
}

/*
 * The innocent process: copies through the copy engine, byte for byte,
 * until the guilty one says it is done (a byte on @done), at least
 * @min_rounds of them; then a kernel on the compute engine.  Exits with
 * the number of failures, and reports on stderr.  It says it is copying
 * with a byte on @ready.
 */
static int innocent_main(int ready, int done, unsigned int min_rounds,
			 tgpu_status want_kernel, tgpu_status want_reset)
{
	enum { N = 64 * 1024 };
	static uint32_t out[N], in[N];
	struct vadd_params vp;
	tgpu_context *ctx;
	tgpu_deviceptr d, a, c;
	tgpu_function *vadd;
	tgpu_module *m;
	unsigned int rounds = 0, bad = 0, i;
	float *fa, fc[256];
	struct pollfd pfd = { .fd = done, .events = POLLIN };
	tgpu_status st;

	if (tgpu_init(0) || tgpu_device_get(&dev, 0) ||
	    tgpu_ctx_create(&ctx, dev, 0) || tgpu_mem_alloc(ctx, &d, sizeof(in)) ||
	    tgpu_module_load_data(ctx, &m, kernels, 0) ||
	    tgpu_module_get_function(&vadd, m, "vadd")) {
		fprintf(stderr, "innocent: no context: %s\n", tgpu_get_last_error_message());
		return 100;
	}
	do {
		for (i = 0; i < N; i++)
			in[i] = pattern(i) ^ rounds;
		st = tgpu_memcpy_htod(ctx, d, in, sizeof(in));
		if (!st)
			st = tgpu_memcpy_dtoh(ctx, out, d, sizeof(out));
		/* a lost bus ends the copies as it ends everything */
		if (st && st == want_kernel) {
			fprintf(stderr, "innocent: round %u: %s, as expected\n",
				rounds, S(st));
			return bad ? 105 : 0;
		}
		if (st) {
			fprintf(stderr, "innocent: round %u: %s: %s\n", rounds, S(st),
				tgpu_get_last_error_message());
			return 101;
		}
		if (memcmp(in, out, sizeof(in))) {
			for (i = 0; in[i] == out[i]; i++)
				;
			fprintf(stderr, "innocent: round %u: word %u of %u is 0x%08x, not 0x%08x\n",
				rounds, i, N, out[i], in[i]);
			/* which copy lost it: read the device memory again */
			if (!tgpu_memcpy_dtoh(ctx, out, d, sizeof(out)))
				fprintf(stderr, "innocent: read again, the device memory %s\n",
					memcmp(in, out, sizeof(in)) ? "has the old data: the copy to it was lost" :
					"is right: the copy from it was lost");
			bad++;
		}
		if (!rounds++ && write(ready, "r", 1) != 1)
			return 102;
	} while (rounds < min_rounds || poll(&pfd, 1, 0) == 0);
	fprintf(stderr, "innocent: %u rounds of 256 KiB copies, %u with wrong data\n",
		rounds, bad);

	/* the engine the guilty one hung serves again */
	if (tgpu_mem_alloc(ctx, &a, 4096) || tgpu_mem_alloc(ctx, &c, 4096) ||
	    tgpu_mem_host_map(ctx, (void **)&fa, a))
		return 103;
	for (i = 0; i < 256; i++)
		fa[i] = (float)i;
	vp = (struct vadd_params){ .a = a, .b = a, .c = c, .n = 256 };
	st = tgpu_launch_kernel(vadd, 1, 1, 1, 256, 1, 1, 0, NULL, &vp, sizeof(vp));
	if (!st)
		st = tgpu_ctx_synchronize(ctx);
	if (st == want_kernel && !st)
		st = tgpu_memcpy_dtoh(ctx, fc, c, sizeof(fc));
	if (st != want_kernel) {
		fprintf(stderr, "innocent: the kernel after the reset: %s (%s), not %s\n",
			S(st), tgpu_get_last_error_message(), S(want_kernel));
		return 104;
	}
	for (i = 0; !st && i < 256; i++)
		bad += fc[i] != 2.0f * i;
	if (bad)
		return 105;
	/*
	 * What the context learns last (the query makes it sticky): a
	 * device reset while it lived means its VRAM is to be treated as
	 * lost; an engine reset of another's work is nothing to it.
	 */
	tgpu_ctx_get_reset_status(ctx, &st);
	if (st != want_reset) {
		fprintf(stderr, "innocent: its reset status is %s, not %s\n",
			S(st), S(want_reset));
		return 106;
	}
	return 0;
}

static const char *bus_id(void)
{
	static struct tgpu_device_info info;

	if (tgpu_device_get_info(dev, &info))
		bail("no device info");
	return info.pci_bus_id;
}

/*
 * The hang or the channel error left a devcoredump that tgpu-coredump
 * decodes: the guilty channel is this process, its pushbuffer has the
 * launch, and the kernel's fence segment its semaphore release.  Then
 * it is dismissed.  A channel error's dump is taken a moment after the
 * error is reported: it is waited for, 10 s at most.
 */
static void check_coredump(void)
{
	char cmd[512], want[96];
	double end = now_s() + 10;
	int found;

	do {
		found = system("cat /sys/class/devcoredump/devcd*/data >/tmp/tgpu.dump 2>/dev/null && test -s /tmp/tgpu.dump") == 0;
	} while (!found && now_s() < end && !usleep(50000));
	ok(found, "a devcoredump is in /sys/class/devcoredump");
	ok(system("tgpu-coredump /tmp/tgpu.dump >/tmp/tgpu.dump.txt") == 0,
	   "tgpu-coredump decodes it (exit 0)");
	snprintf(want, sizeof(want), "guilty: channel [0-9]+ \\(pid %d, test-umd\\)", (int)getpid());
	snprintf(cmd, sizeof(cmd), "head -n 1 /tmp/tgpu.dump.txt | grep -qE '^%s'", want);
	ok(system(cmd) == 0, "it names the guilty channel: %s", want);
	ok(system("grep -q 'LAUNCH (0x300)' /tmp/tgpu.dump.txt") == 0,
	   "the guilty pushbuffer decodes to the kernel's LAUNCH");
	ok(system("grep -q 'SEM_EXECUTE (0x06c)' /tmp/tgpu.dump.txt") == 0,
	   "the fence segment decodes to its SEM_EXECUTE");
	ok(system("grep -q 'flags 0x1 PAGED, asid' /tmp/tgpu.dump.txt") == 0,
	   "the instance block decodes, paged, with its ASID");
	if (system("for d in /sys/class/devcoredump/devcd*/data; do echo 1 >$d; done 2>/dev/null"))
		printf("# could not dismiss the devcoredump\n");
}

/* After a device reset the driver's own channel serves again. */
static void check_kchan_back(void)
{
	ok(dmesg_match("kernel channel: set up again after the device reset"),
	   "dmesg: the kernel channel is set up again");
	ok(system("grep -qs 'kernel engine ce0 state running' /sys/kernel/debug/dri/*/channels") == 0,
	   "debugfs channels: the kernel channel is running");
}

/* The kernel's output buffer, for more work in the same context. */
static tgpu_deviceptr guilty_out;

/* Waiters on the guilty work, as gem_eio's: each on an event of its own. */
enum { WAITERS = 8 };

struct waiter {
	pthread_t thread;
	tgpu_event *ev;
	tgpu_status st;
	uint64_t woke_ns;
};

static void *waiter_main(void *arg)
{
	struct waiter *w = arg;

	w->st = tgpu_event_synchronize(w->ev);
	w->woke_ns = now_ns();
	return NULL;
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

/* A "key value" line of debugfs "recovery"; 0 when there is none. */
static uint64_t recovery_value(const char *key)
{
	char cmd[160];
	uint64_t v = 0;
	FILE *f;

	snprintf(cmd, sizeof(cmd),
		 "cat /sys/kernel/debug/dri/*/recovery 2>/dev/null | sed -n 's/^%s //p' | head -n 1",
		 key);
	f = popen(cmd, "r");
	if (!f || fscanf(f, "%" SCNu64, &v) != 1)
		v = 0;
	if (f)
		pclose(f);
	return v;
}

/*
 * The waiters all wake with the guilty error, as gem_eio's do: their
 * median wake-up after the recovery failed the guilty fences (debugfs
 * last_fail_at_ns, the same clock) under its 250 ms, counted from the
 * end of the device reset when there was one (@device_reset: the
 * schedulers stay stopped through it, and its time is make bench's
 * recovery.device_reset_ms).  That bound is about a wake-up path, not
 * speed: a waiter the recovery forgot wakes only at its own timeout,
 * seconds later.  The figure itself is make bench's
 * recovery.waiter_wake_ms.
 */
static void check_waiters(struct waiter *w, bool device_reset)
{
	uint64_t fail_at = 0, lat[WAITERS];
	unsigned int i, good = 0;
	double median, reset_ms = 0;

	for (i = 0; i < WAITERS; i++) {
		pthread_join(w[i].thread, NULL);
		good += w[i].st == TGPU_ERROR_LAUNCH_TIMEOUT;
	}
	ok(good == WAITERS, "all %d waiters on the guilty work woke with LAUNCH_TIMEOUT (%u did)",
	   WAITERS, good);
	fail_at = recovery_value("last_fail_at_ns");
	ok(fail_at > 0, "debugfs recovery: last_fail_at_ns %" PRIu64, fail_at);
	/*
	 * The waiters wake when the guilty fences fail, before the device
	 * reset that follows: its time is there once it is done.
	 */
	if (device_reset && dmesg_wait("device reset done", 1, 10.0))
		reset_ms = recovery_value("last_device_reset_us") / 1e3;
	for (i = 0; i < WAITERS; i++)
		lat[i] = w[i].woke_ns > fail_at ? w[i].woke_ns - fail_at : 0;
	qsort(lat, WAITERS, sizeof(lat[0]), cmp_u64);
	median = (lat[WAITERS / 2 - 1] + lat[WAITERS / 2]) / 2e6;
	printf("# waiter wake-up after the reset: median %.3f ms, max %.3f ms (%d waiters)\n",
	       median, lat[WAITERS - 1] / 1e6, WAITERS);
	if (device_reset)
		ok(fail_at > 0 && reset_ms > 0 && median - reset_ms < 250.0,
		   "the waiters woke %.3f ms (median) after the guilty fences failed: %.3f ms after the %.3f ms device reset (gem_eio's bound: 250 ms)",
		   median, median - reset_ms, reset_ms);
	else
		ok(fail_at > 0 && median < 250.0,
		   "the waiters woke %.3f ms (median) after the guilty fences failed (gem_eio's bound: 250 ms)",
		   median);
}

/* cancel's queue job timeout, as xe_exec_reset's cancel sets its own */
#define CANCEL_TIMEOUT_MS 50

/* tgpu.hang_rearm_max: how many timeouts a moving job may outlive */
static unsigned int rearm_max(void)
{
	char *v = read_text("/sys/module/tgpu/parameters/hang_rearm_max");
	unsigned int n = v ? (unsigned int)strtoul(v, NULL, 10) : 0;

	free(v);
	return n;
}

/*
 * Waiting is not hanging: a lowest-priority kernel queued behind
 * highest-priority kernels that keep the engine for about three times its
 * whole re-arm budget ((hang_rearm_max + 1) job timeouts) finishes.  The
 * hang check charges work its own engine time (CHAN_BUSY_NS), not the
 * wall clock it spent waiting (make check-sanitize's slower QEMU had the
 * driver reset such work as hung).  Each higher-priority kernel is well
 * inside its own budget.
 */
static void test_wait_turn(void)
{
	const unsigned int timeout_ms = 100;
	unsigned int budget_ms = (rearm_max() + 1) * timeout_ms, i, n;
	struct spin_params sp;
	tgpu_stream *hi, *lo;
	tgpu_function *spin;
	tgpu_context *ctx;
	tgpu_deviceptr out;
	tgpu_status st = TGPU_SUCCESS;
	char pat[160];
	double t0, dt = 0;
	int xids;

	snprintf(pat, sizeof(pat), "Xid 8: channel [0-9]+ \\(pid %d, test-umd\\)", (int)getpid());
	xids = dmesg_count(pat);
	spin_context(&ctx, &spin, &out);
	if (tgpu_ctx_set_limit(ctx, TGPU_LIMIT_JOB_TIMEOUT_MS, timeout_ms) ||
	    tgpu_stream_create(ctx, &hi, 0, TGPU_STREAM_PRIORITY_HIGHEST) ||
	    tgpu_stream_create(ctx, &lo, 0, TGPU_STREAM_PRIORITY_LOWEST))
		bail(tgpu_get_last_error_message());
	sp.out = out;
	/* a kernel of half a job timeout or a little more */
	for (sp.iters = 1u << 10; sp.iters < 1u << 30 && !st &&
	     dt < timeout_ms / 2000.0; sp.iters *= 2) {
		t0 = now_s();
		st = tgpu_launch_kernel(spin, 1, 1, 1, 1, 1, 1, 0, hi, &sp, sizeof(sp));
		if (!st)
			st = tgpu_stream_synchronize(hi);
		dt = now_s() - t0;
	}
	sp.iters /= 2;
	ok(st == TGPU_SUCCESS, "wait-turn: one higher-priority kernel takes %.0f ms (%s)",
	   dt * 1000, tgpu_get_error_name(st));
	n = (unsigned int)(3.0 * budget_ms / 1000.0 / dt) + 1;
	t0 = now_s();
	for (i = 0; i < n && !st; i++)
		st = tgpu_launch_kernel(spin, 1, 1, 1, 1, 1, 1, 0, hi, &sp, sizeof(sp));
	sp.iters = 1;
	if (!st)
		st = tgpu_launch_kernel(spin, 1, 1, 1, 1, 1, 1, 0, lo, &sp, sizeof(sp));
	if (!st)
		st = tgpu_stream_synchronize(lo);
	dt = now_s() - t0;
	ok(st == TGPU_SUCCESS,
	   "wait-turn: a lowest-priority kernel behind %u higher-priority ones finishes (%s)",
	   n, tgpu_get_error_name(st));
	ok(dt * 1000 >= 2 * budget_ms,
	   "wait-turn: it waited %.2f s for the engine, over twice its budget of %u timeouts of %u ms",
	   dt, rearm_max() + 1, timeout_ms);
	is(tgpu_stream_synchronize(hi), TGPU_SUCCESS, "wait-turn: the higher-priority kernels finish");
	tgpu_ctx_get_reset_status(ctx, &st);
	is(st, TGPU_SUCCESS, "wait-turn: the context is not in error");
	ok(dmesg_count(pat) == xids, "wait-turn: no new Xid 8 for this process in dmesg (%d before, %d now)",
	   xids, dmesg_count(pat));
	tgpu_stream_destroy(hi);
	tgpu_stream_destroy(lo);
	tgpu_ctx_destroy(ctx);
}

/*
 * The guilty kernel: the plan hangs the first launch of the device; or,
 * with a queue job timeout @cancel_ms, it never ends by itself (the
 * spin of 2^31 iterations runs for minutes, making progress all along).
 * With @w, WAITERS threads wait on events recorded after it.
 */
static tgpu_status guilty_launch(tgpu_context **ctx, struct waiter *w,
				 unsigned int cancel_ms)
{
	struct spin_params sp;
	tgpu_function *spin;
	tgpu_deviceptr out;
	unsigned int i;

	spin_context(ctx, &spin, &out);
	if (cancel_ms && tgpu_ctx_set_limit(*ctx, TGPU_LIMIT_JOB_TIMEOUT_MS, cancel_ms))
		bail(tgpu_get_last_error_message());
	sp.out = guilty_out = out;
	sp.iters = cancel_ms ? 0x7fffffff : 1000;
	if (tgpu_launch_kernel(spin, 1, 1, 1, 1, 1, 1, 0, NULL, &sp, sizeof(sp)))
		bail("no launch");
	for (i = 0; w && i < WAITERS; i++)
		if (tgpu_event_create(*ctx, &w[i].ev, 0) || tgpu_event_record(w[i].ev, NULL) ||
		    pthread_create(&w[i].thread, NULL, waiter_main, &w[i]))
			bail("no waiter");
	return tgpu_ctx_synchronize(*ctx);
}

/* A context's first kernel stores to an unmapped address: ILLEGAL_ADDRESS */
static tgpu_status fault_launch(tgpu_context **ctx)
{
	tgpu_function *spin, *fault;
	tgpu_deviceptr out;
	tgpu_module *m;

	spin_context(ctx, &spin, &out);
	if (tgpu_module_load_data(*ctx, &m, kernels, 0) ||
	    tgpu_module_get_function(&fault, m, "fault"))
		bail("no module");
	if (tgpu_launch_kernel(fault, 1, 1, 1, 32, 1, 1, 0, NULL, NULL, 0))
		bail("no launch");
	return tgpu_ctx_synchronize(*ctx);
}

/*
 * The cancelled kernel's Xid 8 line: it ran out of its budget of its own
 * engine time, (hang_rearm_max + 1) timeouts less the check's half-period
 * slack (in fewer checks when they come late: drm_sched's timer is not
 * the device's clock)
 */
static void check_cancel_budget(void)
{
	unsigned int checks = rearm_max() + 1, n = 0, ms = 0;
	char line[512];
	const char *at;
	FILE *f;

	f = popen("dmesg | grep -E 'Xid 8: .*still moving after' | tail -n 1", "r");
	if (!f || !fgets(line, sizeof(line), f))
		line[0] = 0;
	if (f)
		pclose(f);
	at = strstr(line, "still moving after ");
	if (at)
		sscanf(at, "still moving after %u timeouts of %*u ms, %u ms on the engine", &n, &ms);
	ok(n > 0 && ms + CANCEL_TIMEOUT_MS / 2 + 1 >= checks * CANCEL_TIMEOUT_MS,
	   "its budget spent: %u ms of its own engine time (%u timeouts of %u ms, less half of one), in %u checks",
	   ms, checks, CANCEL_TIMEOUT_MS, n);
}

static void test_reset(const char *kind, unsigned int timeout_ms)
{
	bool wedge = !strcmp(kind, "wedge"), flr = !strcmp(kind, "flr");
	bool bus = !strcmp(kind, "bus-loss"), lost_irq = !strcmp(kind, "lost-irq");
	bool doorbell = !strcmp(kind, "doorbell-drop"), cancel = !strcmp(kind, "cancel");
	bool lost_err = !strcmp(kind, "lost-error-irq");
	bool hang = !strcmp(kind, "stall") || wedge || !strcmp(kind, "fetch") || cancel;
	struct waiter waiters[WAITERS];
	int ready[2], done[2], status;
	tgpu_context *ctx = NULL;
	char pat[320], path[128];
	tgpu_status st;
	pid_t child = -1;
	double t0, dt;

	/*
	 * The innocent copies through the reset (not beside a lost interrupt
	 * or doorbell: its interrupts and doorbells would make up for them).
	 */
	if (!lost_irq && !lost_err && !doorbell) {
		if (pipe(ready) || pipe(done))
			bail("pipe");
		child = fork();
		if (child == 0)
			_exit(innocent_main(ready[1], done[0], 20,
					    bus ? TGPU_ERROR_DEVICE_LOST : TGPU_SUCCESS,
					    wedge || flr ? TGPU_ERROR_DEVICE_RESET :
					    TGPU_SUCCESS));
		if (read(ready[0], pat, 1) != 1)
			bail("the innocent process did not start");
	}
	if (tgpu_init(0) || tgpu_device_get(&dev, 0))
		bail(tgpu_get_last_error_message());

	t0 = now_s();
	if (flr) {
		snprintf(path, sizeof(path), "/sys/bus/pci/devices/%s/reset", bus_id());
		/* the innocent copies through it */
		ok(!write_file(path, "1"), "FLR through %s", path);
		/* gem_eio: the reset, then a health check (a kernel), in 2 s */
		st = guilty_launch(&ctx, NULL, 0);
		dt = now_s() - t0;
		is(st, TGPU_SUCCESS, "a new context's kernel after the FLR");
		ok(dt < 2.0, "the reset and that kernel took %.3f s (gem_eio's bound: 2 s)", dt);
		/* the guest boots with ECC on (ecc=on), so it must be on again */
		ok(dmesg_match("device reset done: ECC enabled"),
		   "dmesg: device reset done, ECC enabled again (after its scrub)");
		check_kchan_back();
		tgpu_ctx_get_reset_status(ctx, &st);
		is(st, TGPU_SUCCESS, "it was made after the reset: no reset status");
	} else if (lost_err) {
		/*
		 * Nothing but a timeout check's poll fails the queue: a user
		 * queue's watchdog, or the kernel path's job timeout.
		 */
		st = fault_launch(&ctx);
		dt = now_s() - t0;
		is(st, TGPU_ERROR_ILLEGAL_ADDRESS,
		   "the kernel whose channel error interrupt was lost: ILLEGAL_ADDRESS");
		ok(dt < timeout_ms / 1000.0 + 2.0,
		   "by the timeout check at the latest (%.2f s, timeout %u ms)", dt, timeout_ms);
		snprintf(pat, sizeof(pat),
			 "channel [0-9]+ \\(pid %d, test-umd\\): the interrupt of its channel error never came \\(missed interrupt [1-9]",
			 (int)getpid());
		ok(dmesg_wait(pat, 1, 2.0), "dmesg: %s", pat);
		snprintf(pat, sizeof(pat),
			 "Xid 31: channel [0-9]+ \\(pid %d, test-umd\\) .*queue [0-9]+ dead",
			 (int)getpid());
		ok(dmesg_match(pat), "dmesg: %s", pat);
		ok(system("grep -qs 'tgpu-missed-irqs:.*[1-9]' /proc/$PPID/fdinfo/*") == 0,
		   "fdinfo: tgpu-missed-irqs counts it");
	} else {
		st = guilty_launch(&ctx, hang ? waiters : NULL, cancel ? CANCEL_TIMEOUT_MS : 0);
		dt = now_s() - t0;
		if (doorbell) {
			/*
			 * The plan drops the next doorbell after the first
			 * launch: the memset's, in the same context (nothing
			 * else rings one in between).
			 */
			is(st, TGPU_SUCCESS, "the first kernel");
			t0 = now_s();
			st = tgpu_memset_d32(ctx, guilty_out, 7, 1024);
			dt = now_s() - t0;
			is(st, TGPU_SUCCESS, "the memset whose doorbell was dropped completes");
			ok(dt >= timeout_ms / 1000.0 - 0.2 && dt < timeout_ms / 1000.0 + 2.0,
			   "at the job timeout's check (%.2f s, timeout %u ms)", dt, timeout_ms);
			ok(dmesg_match("doorbell lost, rung again"),
			   "dmesg: the doorbell was lost and rung again");
			if (!st) {
				uint32_t back[1024];

				st = tgpu_memcpy_dtoh(ctx, back, guilty_out, sizeof(back));
				ok(!st && back[0] == 7 && back[1023] == 7,
				   "and wrote what it should (%s, 0x%x)", S(st), back[0]);
			}
		} else if (lost_irq && user_submit()) {
			/*
			 * A stream that submits by itself sees its semaphore
			 * without the interrupt when its spin is still on;
			 * the queue's watchdog finds the interrupt missing at
			 * its next check either way.
			 */
			is(st, TGPU_SUCCESS, "the job whose interrupt was lost completes");
			ok(dt < timeout_ms / 1000.0 + 2.0,
			   "by the watchdog's check at the latest (%.2f s, timeout %u ms)", dt,
			   timeout_ms);
			ok(dmesg_wait("was done, its interrupt never came \\(missed interrupt [1-9]",
				      1, timeout_ms / 1000.0 + 2.0),
			   "dmesg: the work was done, its interrupt never came");
			ok(system("grep -qs 'tgpu-missed-irqs:.*[1-9]' /proc/$PPID/fdinfo/*") == 0,
			   "fdinfo: tgpu-missed-irqs counts it");
		} else if (lost_irq) {
			is(st, TGPU_SUCCESS, "the job whose interrupt was lost completes");
			ok(dt >= timeout_ms / 1000.0 - 0.2 && dt < timeout_ms / 1000.0 + 2.0,
			   "at the job timeout's check (%.2f s, timeout %u ms)", dt, timeout_ms);
			ok(dmesg_match("was done, its interrupt never came \\(missed interrupt [1-9]"),
			   "dmesg: the job was done, its interrupt never came");
			ok(system("grep -qs 'tgpu-missed-irqs:.*[1-9]' /proc/$PPID/fdinfo/*") == 0,
			   "fdinfo: tgpu-missed-irqs counts it");
		} else if (bus) {
			is(st, TGPU_ERROR_DEVICE_LOST, "the guilty job: DEVICE_LOST");
			ok(dmesg_match("Xid 79: GPU has fallen off the bus"),
			   "dmesg: Xid 79, fallen off the bus");
			ok(access("/dev/dri/renderD128", F_OK) != 0,
			   "the render node is gone (drm_dev_unplug)");
		} else {
			is(st, TGPU_ERROR_LAUNCH_TIMEOUT, "the guilty kernel: LAUNCH_TIMEOUT");
			if (cancel) {
				unsigned int checks = rearm_max() + 1;

				/* its own timeout, not the driver's, ended it */
				ok(dt >= checks * CANCEL_TIMEOUT_MS / 1000.0 - 0.05 &&
				   dt < timeout_ms / 1000.0,
				   "cancelled after %.2f s: %u timeouts of %u ms, before the driver's %u ms",
				   dt, checks, CANCEL_TIMEOUT_MS, timeout_ms);
			} else {
				ok(dt < 2.0 * timeout_ms / 1000.0 + 1.5,
				   "found hung after %.2f s (timeout %u ms)", dt, timeout_ms);
			}
			ok(strstr(tgpu_get_last_error_message(), "Xid") != NULL,
			   "the message points at the Xid line (%s)", tgpu_get_last_error_message());
			tgpu_ctx_get_reset_status(ctx, &st);
			is(st, TGPU_ERROR_LAUNCH_TIMEOUT, "its reset status: guilty");
			if (wedge)
				snprintf(pat, sizeof(pat),
					 "Xid 109: channel [0-9]+ \\(pid %d, test-umd\\) did not stop when killed.*wedged, device reset",
					 (int)getpid());
			else if (cancel)
				snprintf(pat, sizeof(pat),
					 "Xid 8: channel [0-9]+ \\(pid %d, test-umd\\) stopped processing \\(%s, RUNNING, still moving after [0-9]+ timeouts of %u ms, [0-9]+ ms on the engine\\), engine compute reset",
					 (int)getpid(), HUNG_WORK, CANCEL_TIMEOUT_MS);
			else
				snprintf(pat, sizeof(pat),
					 "Xid 8: channel [0-9]+ \\(pid %d, test-umd\\) stopped processing \\(%s, [A-Z]+, no progress for %u ms\\), engine compute reset",
					 (int)getpid(), HUNG_WORK, timeout_ms);
			/* the fences may fail on the kill's interrupt, before the line */
			ok(dmesg_wait(pat, 1, 2.0), "dmesg: %s", pat);
			if (cancel)
				check_cancel_budget();
			if (hang)
				check_waiters(waiters, wedge);
			if (wedge) {
				ok(dmesg_match("device reset done"), "dmesg: the device reset is done");
				check_kchan_back();
			}
			check_coredump();
		}
	}
	if (ctx)
		tgpu_ctx_destroy(ctx);
	if (child > 0) {
		if (write(done[1], "d", 1) != 1)
			bail("pipe");
		waitpid(child, &status, 0);
		ok(WIFEXITED(status) && WEXITSTATUS(status) == 0,
		   "the innocent process: every copy byte-exact through the %s, then %s (exit %d)",
		   kind, bus ? "DEVICE_LOST" : wedge || flr ?
		   "a correct kernel on the compute engine, and its reset status: VRAM lost" :
		   "a correct kernel on the compute engine, and no reset status",
		   WIFEXITED(status) ? WEXITSTATUS(status) : -1);
	}
	if (bus)
		ok(!write_file("/sys/bus/pci/drivers/tgpu/unbind", bus_id()),
		   "unbind after the bus loss");
}

/* ---- faults the host injects when the guest asks ---------------------------------- */

/*
 * A monitor command for this guest's QEMU: tests/guest/run's
 * guest_tap_host carries out a "# host: HMP" or "# host-qmp: JSON" line
 * of the console as it comes (tests/guest/host-relay).  Nothing answers:
 * the caller waits for the effect.
 */
__attribute__((format(printf, 2, 3)))
static void host_request(const char *how, const char *fmt, ...)
{
	va_list ap;

	printf("# %s: ", how);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	putchar('\n');
	fflush(stdout);
}

/* This process's channel on @engine, from debugfs "channels"; or -1. */
static int my_channel(const char *engine)
{
	FILE *f = popen("cat /sys/kernel/debug/dri/*/channels 2>/dev/null", "r");
	char line[256], comm[32], eng[16];
	unsigned int q, ch;
	int pid, found = -1;

	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "queue %u pid %d comm %31s channel %u engine %15s",
			   &q, &pid, comm, &ch, eng) == 5 &&
		    pid == (int)getpid() && !strcmp(eng, engine))
			found = (int)ch;
	pclose(f);
	return found;
}

/*
 * MMU fault, injected: a fault-buffer record names the guilty channel
 * (nothing stops: the record alone is a report).  Then a real one: the
 * guilty kernel stores where nothing is mapped, and its queue dies.
 */
static void host_mmu_fault(void)
{
	struct spin_params sp;
	tgpu_function *spin, *fault;
	tgpu_context *ctx;
	tgpu_deviceptr out;
	tgpu_module *m;
	tgpu_status st;
	char pat[256];
	int ch;

	spin_context(&ctx, &spin, &out);
	if (tgpu_module_load_data(ctx, &m, kernels, 0) ||
	    tgpu_module_get_function(&fault, m, "fault"))
		bail("no module");
	sp = (struct spin_params){ .out = out, .iters = 1000 };
	tgpu_launch_kernel(spin, 1, 1, 1, 1, 1, 1, 0, NULL, &sp, sizeof(sp));
	is(tgpu_ctx_synchronize(ctx), TGPU_SUCCESS, "mmu-fault: a first kernel");
	ch = my_channel("compute");
	ok(ch > 0, "mmu-fault: debugfs names this process's compute channel (%d)", ch);

	host_request("host-qmp", "{\"execute\": \"tgpu-inject-fault\", \"arguments\": {\"id\": \"gpu0\", \"kind\": \"mmu-fault\", \"va\": %llu, \"channel\": %d, \"access\": \"write\"}}",
		     0x7654321000ull, ch);
	snprintf(pat, sizeof(pat),
		 "Xid 31: MMU fault: [A-Z_]+ on write at 0x7654321000, asid [0-9]+, channel %d \\(pid %d, test-umd\\), engine compute",
		 ch, (int)getpid());
	ok(dmesg_wait(pat, 1, 20), "mmu-fault: the injected record: dmesg %s", pat);
	tgpu_launch_kernel(spin, 1, 1, 1, 1, 1, 1, 0, NULL, &sp, sizeof(sp));
	is(tgpu_ctx_synchronize(ctx), TGPU_SUCCESS,
	   "mmu-fault: a record alone stops nothing, the next kernel runs");

	tgpu_launch_kernel(fault, 1, 1, 1, 32, 1, 1, 0, NULL, NULL, 0);
	is(tgpu_ctx_synchronize(ctx), TGPU_ERROR_ILLEGAL_ADDRESS,
	   "mmu-fault: a kernel's store to an unmapped address");
	ok(strstr(tgpu_get_last_error_message(), "0x1000000000") != NULL,
	   "mmu-fault: the message names the address (%s)", tgpu_get_last_error_message());
	snprintf(pat, sizeof(pat),
		 "Xid 31: MMU fault: [A-Z_]+ on write at 0x1000000000, asid [0-9]+, channel %d \\(pid %d, test-umd\\)",
		 ch, (int)getpid());
	ok(dmesg_match(pat), "mmu-fault: dmesg %s", pat);
	snprintf(pat, sizeof(pat),
		 "Xid [0-9]+: channel %d \\(pid %d, test-umd\\) .*queue [0-9]+ dead",
		 ch, (int)getpid());
	ok(dmesg_match(pat), "mmu-fault: dmesg %s", pat);
	tgpu_ctx_get_reset_status(ctx, &st);
	is(st, TGPU_ERROR_ILLEGAL_ADDRESS, "mmu-fault: the context stays in error");
	check_coredump();
	tgpu_ctx_destroy(ctx);
}

/*
 * Illegal method: the guilty channel's next method is refused.  Its
 * kernels run until the injection lands; that job fails.
 */
static void host_illegal_method(void)
{
	struct spin_params sp;
	tgpu_function *spin;
	tgpu_context *ctx;
	tgpu_deviceptr out;
	tgpu_status st = TGPU_SUCCESS;
	unsigned int n = 0;
	char pat[256];
	double end;
	int ch;

	spin_context(&ctx, &spin, &out);
	sp = (struct spin_params){ .out = out, .iters = 1000 };
	tgpu_launch_kernel(spin, 1, 1, 1, 1, 1, 1, 0, NULL, &sp, sizeof(sp));
	is(tgpu_ctx_synchronize(ctx), TGPU_SUCCESS, "illegal-method: a first kernel");
	ch = my_channel("compute");
	host_request("host", "tgpu_inject gpu0 illegal-method %d", ch);
	for (end = now_s() + 20; !st && now_s() < end; n++) {
		st = tgpu_launch_kernel(spin, 1, 1, 1, 1, 1, 1, 0, NULL, &sp, sizeof(sp));
		if (!st)
			st = tgpu_ctx_synchronize(ctx);
	}
	is(st, TGPU_ERROR_LAUNCH_FAILED, "illegal-method: the job it lands on fails");
	ok(strstr(tgpu_get_last_error_message(), "ILLEGAL_METHOD") != NULL,
	   "illegal-method: the message says so (%s; after %u kernels)",
	   tgpu_get_last_error_message(), n);
	snprintf(pat, sizeof(pat),
		 "Xid (13|32): channel %d \\(pid %d, test-umd\\) .*ILLEGAL_METHOD.*queue [0-9]+ dead",
		 ch, (int)getpid());
	ok(dmesg_match(pat), "illegal-method: dmesg %s", pat);
	check_coredump();
	tgpu_ctx_destroy(ctx);
}

/*
 * close-fd (IGT xe_exec_reset): a process exits with a kernel running
 * that would take minutes.  Its queue goes with its file; the engine
 * serves the next process at once, and no hang is reported.
 */
static void host_close_fd(void)
{
	int ready[2], status, xid8 = dmesg_count("Xid 8:");
	struct spin_params sp;
	tgpu_function *spin;
	tgpu_context *ctx;
	tgpu_deviceptr out;
	pid_t pid;
	double t0;
	char c;

	if (pipe(ready))
		bail("pipe");
	pid = fork();
	if (pid == 0) {
		spin_context(&ctx, &spin, &out);
		sp = (struct spin_params){ .out = out, .iters = 0x7fffffff };
		if (tgpu_launch_kernel(spin, 1, 1, 1, 1, 1, 1, 0, NULL, &sp, sizeof(sp)))
			_exit(1);
		/* running: GP_GET moved past it */
		usleep(200 * 1000);
		if (write(ready[1], "r", 1) != 1)
			_exit(1);
		_exit(0);	/* no synchronize, no destroy: the fd closes */
	}
	if (read(ready[0], &c, 1) != 1)
		bail("the close-fd child did not start");
	waitpid(pid, &status, 0);
	ok(WIFEXITED(status) && WEXITSTATUS(status) == 0,
	   "close-fd: a process exits with a minutes-long kernel running");
	t0 = now_s();
	spin_context(&ctx, &spin, &out);
	sp = (struct spin_params){ .out = out, .iters = 1000 };
	tgpu_launch_kernel(spin, 1, 1, 1, 1, 1, 1, 0, NULL, &sp, sizeof(sp));
	is(tgpu_ctx_synchronize(ctx), TGPU_SUCCESS,
	   "close-fd: the next process's kernel on the engine");
	ok(now_s() - t0 < 5.0, "close-fd: without waiting for the abandoned kernel (%.2f s)",
	   now_s() - t0);
	ok(dmesg_count("Xid 8:") == xid8, "close-fd: no hang reported (Xid 8 lines: %d)", xid8);
	tgpu_ctx_destroy(ctx);
}

/* A kernel in a new context, checked. */
static tgpu_status kernel_runs(void)
{
	struct spin_params sp;
	tgpu_function *spin;
	tgpu_context *ctx;
	tgpu_deviceptr out;
	uint32_t got = 0;
	tgpu_status st;

	spin_context(&ctx, &spin, &out);
	sp = (struct spin_params){ .out = out, .iters = 777 };
	st = tgpu_launch_kernel(spin, 1, 1, 1, 1, 1, 1, 0, NULL, &sp, sizeof(sp));
	if (!st)
		st = tgpu_ctx_synchronize(ctx);
	if (!st)
		st = tgpu_memcpy_dtoh(ctx, &got, out, sizeof(got));
	if (!st && got != 777)
		st = TGPU_ERROR_UNKNOWN;
	tgpu_ctx_destroy(ctx);
	return st;
}

/*
 * AER, through QEMU's pcie_aer_inject_error: a non-fatal error (a
 * poisoned TLP, what the device's own BAR1 poison report sends) is
 * recovered without a reset; a fatal one (a malformed TLP) resets the
 * link, and the driver sets the device up again as after an FLR.
 */
static void host_aer(void)
{
	int resets = dmesg_count("device reset done");
	int done = dmesg_count("PCI error recovery done");
	tgpu_context *before;
	tgpu_status st;

	host_request("host", "pcie_aer_inject_error gpu0 POISON_TLP");
	ok(dmesg_wait("PCI error recovery done", done + 1, 20),
	   "aer: a non-fatal error (POISON_TLP) is reported and recovered");
	ok(dmesg_match("PCI error reported \\(channel state 1\\)"),
	   "aer: error_detected saw it as non-fatal (io_normal)");
	ok(dmesg_count("device reset done") == resets,
	   "aer: a non-fatal error resets nothing");
	is(kernel_runs(), TGPU_SUCCESS, "aer: a kernel after the non-fatal error");

	if (tgpu_ctx_create(&before, dev, 0))
		bail("no context");
	host_request("host", "pcie_aer_inject_error gpu0 MALF_TLP");
	ok(dmesg_wait("PCI error recovery done", done + 2, 30),
	   "aer: a fatal error (MALF_TLP) is reported and recovered");
	ok(dmesg_match("PCI error reported \\(channel state 2\\), resetting the device"),
	   "aer: error_detected saw it as fatal (io_frozen): reset");
	ok(dmesg_count("device reset done") == resets + 1,
	   "aer: dmesg: the device reset is done");
	check_kchan_back();
	is(kernel_runs(), TGPU_SUCCESS, "aer: a kernel after the fatal error's reset");
	tgpu_ctx_get_reset_status(before, &st);
	is(st, TGPU_ERROR_DEVICE_RESET, "aer: a context from before it learns VRAM is lost");
	tgpu_ctx_destroy(before);
}

/*
 * The device's own AER report: a CPU read through BAR1 of a page with a
 * double-bit ECC error returns all ones and sends a poisoned TLP, which
 * the driver recovers from without a reset.  The page (768 MiB into
 * VRAM) is mapped through sysfs resource1 (the guest has iomem=relaxed);
 * a write gives it new check bits.
 */
static void host_bar1_poison(void)
{
	const uint64_t pa = 0x30000000;
	int done = dmesg_count("PCI error recovery done"), fd;
	volatile uint32_t *p;
	uint32_t v = 0;
	char path[128];
	double end;

	snprintf(path, sizeof(path), "/sys/bus/pci/devices/%s/resource1", bus_id());
	fd = open(path, O_RDWR | O_SYNC | O_CLOEXEC);
	p = fd < 0 ? MAP_FAILED : mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_SHARED, fd, pa);
	if (!ok(p != MAP_FAILED, "bar1-poison: map VRAM 0x%" PRIx64 " through %s", pa, path))
		return;
	close(fd);
	p[0] = 0x12345678;
	host_request("host", "tgpu_inject gpu0 ecc-double 0x%" PRIx64 " sticky", pa);
	for (end = now_s() + 20; (v = p[0]) != 0xffffffff && now_s() < end;)
		usleep(20 * 1000);
	ok(v == 0xffffffff, "bar1-poison: a CPU read of the page with a double-bit error returns all ones");
	ok(dmesg_wait("PCI error recovery done", done + 1, 20),
	   "bar1-poison: the device's AER report (poisoned TLP) is recovered");
	ok(dmesg_match("Uncorrectable \\(Non-Fatal\\) error message received from"),
	   "bar1-poison: the root port got a non-fatal error message");
	p[0] = 0;
	ok(p[0] == 0, "bar1-poison: a write gives the page new check bits: it reads again");
	munmap((void *)p, 4096);
	is(kernel_runs(), TGPU_SUCCESS, "bar1-poison: a kernel after it");
}

/*
 * Every fault the host injects at the guest's request, in one guest,
 * with an innocent process copying through all of them.
 */
static void test_host_faults(void)
{
	int ready[2], done[2], status;
	pid_t child;
	char c;

	if (pipe(ready) || pipe(done))
		bail("pipe");
	child = fork();
	if (child == 0)
		/* host_aer's fatal error resets the device under it */
		_exit(innocent_main(ready[1], done[0], 20, TGPU_SUCCESS,
				    TGPU_ERROR_DEVICE_RESET));
	if (read(ready[0], &c, 1) != 1)
		bail("the innocent process did not start");
	if (tgpu_init(0) || tgpu_device_get(&dev, 0))
		bail(tgpu_get_last_error_message());

	host_mmu_fault();
	host_illegal_method();
	host_close_fd();
	host_bar1_poison();
	host_aer();

	if (write(done[1], "d", 1) != 1)
		bail("pipe");
	waitpid(child, &status, 0);
	ok(WIFEXITED(status) && WEXITSTATUS(status) == 0,
	   "the innocent process: every copy byte-exact through all of them, then a correct kernel, and its reset status: VRAM lost (exit %d)",
	   WIFEXITED(status) ? WEXITSTATUS(status) : -1);
}

/* ---- device lost ------------------------------------------------------------------ */

static void test_unplug(void)
{
	struct tgpu_device_info info;
	tgpu_context *ctx;
	tgpu_deviceptr a;
	volatile uint32_t *p;
	tgpu_status st;
	char path[128];
	void *h;

	if (tgpu_device_get_info(dev, &info) || tgpu_ctx_create(&ctx, dev, 0) ||
	    tgpu_mem_alloc(ctx, &a, 1 << 20) || tgpu_mem_alloc_host(ctx, &h, 4096))
		bail("no context");
	is(tgpu_memset_d32(ctx, a, 7, 1024), TGPU_SUCCESS, "work before the unplug");
	is(tgpu_mem_host_map(ctx, (void **)&p, a), TGPU_SUCCESS, "map the block");
	ok(p[0] == 7, "it reads what the GPU wrote (%u)", p[0]);
	ok(!write_file("/sys/bus/pci/drivers/tgpu/unbind", info.pci_bus_id),
	   "unbind %s from tgpu with a context open", info.pci_bus_id);
	p[1] = 5;
	ok(p[0] == 0 && p[1] == 5,
	   "the mapping still works after the unplug, on a page of its own (no SIGBUS)");
	is(tgpu_memset_d32(ctx, a, 7, 1024), TGPU_ERROR_DEVICE_LOST, "the next call: DEVICE_LOST");
	ok(strstr(tgpu_get_last_error_message(), "gone") != NULL,
	   "the message says the device is gone (%s)", tgpu_get_last_error_message());
	is(tgpu_mem_alloc(ctx, &a, 4096), TGPU_ERROR_DEVICE_LOST, "sticky");
	tgpu_ctx_get_reset_status(ctx, &st);
	ok(st == TGPU_ERROR_DEVICE_LOST, "get_reset_status says %s", S(st));
	is(tgpu_ctx_destroy(ctx), TGPU_SUCCESS, "destroy after the unplug is clean");
	snprintf(path, sizeof(path), "/sys/bus/pci/drivers/tgpu/bind");
	ok(!write_file(path, info.pci_bus_id), "bind it again");
}

/*
 * DRM fdinfo's usage keys (Documentation/gpu/drm-usage-stats.rst) of
 * this process's tgpu files, summed: drm-engine-compute and -copy (ns),
 * drm-cycles-compute.  drm-maxfreq-compute of the last file in @maxfreq.
 */
static void fdinfo_usage(uint64_t *compute, uint64_t *copy, uint64_t *cycles,
			 unsigned int *maxfreq)
{
	FILE *f = popen("for f in /proc/$PPID/fdinfo/*; do grep -q 'drm-driver:.*tgpu' $f && cat $f; done 2>/dev/null",
			"r");
	char line[256];
	unsigned long long v;

	*compute = *copy = *cycles = 0;
	*maxfreq = 0;
	while (f && fgets(line, sizeof(line), f)) {
		if (sscanf(line, "drm-engine-compute: %llu ns", &v) == 1)
			*compute += v;
		else if (sscanf(line, "drm-engine-copy: %llu ns", &v) == 1)
			*copy += v;
		else if (sscanf(line, "drm-cycles-compute: %llu", &v) == 1)
			*cycles += v;
		else if (sscanf(line, "drm-maxfreq-compute: %llu MHz", &v) == 1)
			*maxfreq = (unsigned int)v;
	}
	if (f)
		pclose(f);
}

/*
 * The usage keys against a workload of known duration: a kernel that
 * spins for a few hundred ms is on the compute engine for about the time
 * the launch and its sync take, and no longer; a 64 MiB copy counts on
 * the copy engines.  (popen's shell reads this process's files as
 * /proc/$PPID.)
 */
static void test_fdinfo(void)
{
	uint64_t c0, k0, y0, c1, k1, y1, dc;
	struct spin_params sp = { 0 };
	unsigned int maxfreq;
	tgpu_function *spin;
	tgpu_context *ctx;
	tgpu_deviceptr out, big;
	tgpu_status st;
	double t0, wall;

	spin_context(&ctx, &spin, &out);
	fdinfo_usage(&c0, &k0, &y0, &maxfreq);
	sp.out = out;
	sp.iters = 8000000;
	t0 = now_s();
	st = tgpu_launch_kernel(spin, 1, 1, 1, 1, 1, 1, 0, NULL, &sp, sizeof(sp));
	if (!st)
		st = tgpu_ctx_synchronize(ctx);
	wall = now_s() - t0;
	fdinfo_usage(&c1, &k1, &y1, &maxfreq);
	is(st, TGPU_SUCCESS, "fdinfo: a spinning kernel");
	dc = c1 - c0;
	ok(dc > 0.8 * wall * 1e9 && dc <= wall * 1e9 + 1e6,
	   "fdinfo drm-engine-compute grew by %.1f ms for a %.1f ms launch and sync",
	   dc / 1e6, wall * 1e3);
	ok(maxfreq == 1328, "fdinfo drm-maxfreq-compute: %u MHz, the p100's boost", maxfreq);
	ok(y1 - y0 >= dc * 1328 / 1000 - 1000 && y1 - y0 <= dc * 1328 / 1000 + 1000,
	   "fdinfo drm-cycles-compute grew by the busy time at 1328 MHz (%" PRIu64 ")", y1 - y0);
	if (tgpu_mem_alloc(ctx, &big, 64 << 20) ||
	    tgpu_memcpy_dtod(ctx, big + (32 << 20), big, 32 << 20))
		bail("no copy");
	fdinfo_usage(&c1, &k1, &y1, &maxfreq);
	ok(k1 > k0, "fdinfo drm-engine-copy grew with a 32 MiB copy (%.2f ms)", (k1 - k0) / 1e6);
	tgpu_ctx_destroy(ctx);
}

static void test_error_strings(void)
{
	static const tgpu_status codes[] = {
		TGPU_ERROR_INVALID_COMMANDS, TGPU_ERROR_DEVICE_LOST,
		TGPU_ERROR_OUT_OF_DEVICE_MEMORY, TGPU_ERROR_INVALID_IMAGE,
		TGPU_ERROR_INVALID_CONTEXT, TGPU_ERROR_ECC_UNCORRECTABLE,
		TGPU_ERROR_INVALID_HANDLE, TGPU_ERROR_NOT_FOUND, TGPU_ERROR_NOT_READY,
		TGPU_ERROR_ILLEGAL_ADDRESS, TGPU_ERROR_LAUNCH_TIMEOUT,
		TGPU_ERROR_LAUNCH_FAILED,
	};
	bool good = true;
	size_t i;

	for (i = 0; i < sizeof(codes) / sizeof(codes[0]); i++)
		good &= strncmp(tgpu_get_error_name(codes[i]), "TGPU_ERROR_", 11) == 0 &&
			strstr(tgpu_get_error_string(codes[i]), "unrecognized") == NULL;
	ok(good, "every context/stream/kernel status has a name and a description");
}

int main(int argc, char **argv)
{
	unsigned int timeout_ms = 0, progress_ms = 0;
	const char *reset = NULL;
	bool unplug = false, host = false;
	int i;

	for (i = 1; i < argc; i++) {
		if (!strncmp(argv[i], "--timeout-ms=", 13))
			timeout_ms = (unsigned int)strtoul(argv[i] + 13, NULL, 10);
		else if (!strncmp(argv[i], "--progress-ms=", 14))
			progress_ms = (unsigned int)strtoul(argv[i] + 14, NULL, 10);
		else if (!strncmp(argv[i], "--reset=", 8))
			reset = argv[i] + 8;
		else if (!strcmp(argv[i], "--unplug"))
			unplug = true;
		else if (!strcmp(argv[i], "--host-faults"))
			host = true;
		else
			bail("usage: test-umd [--timeout-ms=MS | --progress-ms=MS | --reset=KIND [--timeout-ms=MS] | --host-faults | --unplug]");
	}
	if (host) {
		test_host_faults();
		return tap_done();
	}
	if (reset) {
		test_reset(reset, timeout_ms ? timeout_ms : 2000);
		return tap_done();
	}
	if (tgpu_init(0) || tgpu_device_get(&dev, 0))
		bail(tgpu_get_last_error_message());
	if (timeout_ms) {
		test_timeout(timeout_ms);
		return tap_done();
	}
	if (progress_ms) {
		test_progress(progress_ms);
		return tap_done();
	}
	if (unplug) {
		test_unplug();
		return tap_done();
	}
	test_error_strings();
	test_memory();
	test_kernels();
	test_streams();
	test_commands();
	test_threads();
	test_sticky();
	test_limits();
	test_wait_turn();
	test_fdinfo();
	return tap_done();
}
