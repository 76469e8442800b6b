// SPDX-License-Identifier: MIT
/*
 * In-guest benchmark of the whole stack (libtgpu, tgpu.ko, the device),
 * run by scripts/bench.  Prints "bench: NAME VALUE UNIT" lines and, for
 * rows judged against a peer or limit measured in the same run,
 * "ref: NAME VALUE UNIT" (docs/performance.md explains each).
 *
 *   bench-stack [--nvme=/dev/nvme0n1] [--quick]
 *   bench-stack --repeat=h2d|d2h|d2d,N[,BYTES]   (one copy N times, to profile)
 *   bench-stack --repeat=launch,N   (N empty launches, each synchronized)
 *   bench-stack --ctxsw=TAG    1,000 switches between two processes; the
 *                              rows are named stack.ctxsw_*_TAG (make bench
 *                              runs it with tlb-tagging=on and =off)
 *
 * The NVMe peer is QEMU's own NVMe emulation on a null-co backend,
 * attached by scripts/bench: 4 KiB O_DIRECT reads at queue depth 1 go
 * through the same kind of path as a null job (submission, doorbell,
 * completion interrupt, wake-up).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <math.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#include <libtgpu.h>
#include <tgpu/channel.h>
#include <tgpu/mmu.h>
#include <tgpu/regs.h>

static tgpu_device *dev;
static bool quick;

static void die(const char *what, tgpu_status st)
{
	fprintf(stderr, "bench-stack: %s: %s: %s\n", what, tgpu_get_error_name(st),
		tgpu_get_last_error_message());
	exit(1);
}

#define CHECK(call) do { tgpu_status st_ = (call); if (st_) die(#call, st_); } while (0)

static double now_us(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return t.tv_sec * 1e6 + t.tv_nsec / 1e3;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

static double pct(double *v, size_t n, double p)
{
	qsort(v, n, sizeof(*v), cmp_double);
	return v[(size_t)(p * (double)(n - 1) + 0.5)];
}

/* ---- null jobs ------------------------------------------------------------ */

/* A NOP method: the smallest command buffer there is. */
static const uint32_t nop[2] = { TGPU_PB_HDR(TGPU_PB_OP_INC, 0, TGPU_M_NOP, 1), 0 };

/*
 * The submission rows run on both paths, each in a context of its own:
 * PATH "user" (streams write their rings, the default) and "kernel"
 * (TGPU_SUBMIT=kernel: DRM_IOCTL_TGPU_SUBMIT).  The rows without a path
 * are the default's, under their old names.
 */
static tgpu_context *path_ctx(const char *path)
{
	tgpu_context *ctx;

	if (!strcmp(path, "kernel"))
		setenv("TGPU_SUBMIT", "kernel", 1);
	else
		unsetenv("TGPU_SUBMIT");
	CHECK(tgpu_ctx_create(&ctx, dev, 0));
	return ctx;
}

static void null_roundtrip(tgpu_context *ctx, const char *path)
{
	size_t n = quick ? 1000 : 10000, i;
	double *lat = malloc(n * sizeof(*lat));
	tgpu_stream *s;

	CHECK(tgpu_stream_create(ctx, &s, 0, 0));
	for (i = 0; i < 100; i++) {
		CHECK(tgpu_stream_submit_commands(s, TGPU_ENGINE_KIND_COMPUTE, nop, 2));
		CHECK(tgpu_stream_synchronize(s));
	}
	for (i = 0; i < n; i++) {
		double t0 = now_us();

		CHECK(tgpu_stream_submit_commands(s, TGPU_ENGINE_KIND_COMPUTE, nop, 2));
		CHECK(tgpu_stream_synchronize(s));
		lat[i] = now_us() - t0;
	}
	printf("bench: job.null_roundtrip_%s_p50_us %.2f us\n", path, pct(lat, n, 0.5));
	printf("bench: job.null_roundtrip_%s_p99_us %.2f us\n", path, pct(lat, n, 0.99));
	if (!strcmp(path, "user")) {
		printf("bench: job.null_roundtrip_p50_us %.2f us\n", pct(lat, n, 0.5));
		printf("bench: job.null_roundtrip_p99_us %.2f us\n", pct(lat, n, 0.99));
	}
	CHECK(tgpu_stream_destroy(s));
	free(lat);
}

static void nvme_peer(const char *path)
{
	size_t n = quick ? 1000 : 10000, i;
	double *lat;
	void *buf;
	int fd;

	fd = open(path, O_RDONLY | O_DIRECT);
	if (fd < 0) {
		fprintf(stderr, "bench-stack: cannot open %s: %s (attach QEMU's nvme with a null-co drive)\n",
			path, strerror(errno));
		exit(1);
	}
	lat = malloc(n * sizeof(*lat));
	if (posix_memalign(&buf, 4096, 4096))
		exit(1);
	for (i = 0; i < n + 100; i++) {
		off_t off = (off_t)((i * 7919) % 65536) * 4096;
		double t0 = now_us();

		if (pread(fd, buf, 4096, off) != 4096) {
			fprintf(stderr, "bench-stack: read of %s: %s\n", path, strerror(errno));
			exit(1);
		}
		if (i >= 100)
			lat[i - 100] = now_us() - t0;
	}
	close(fd);
	printf("bench: peer.nvme_qd1_4k_read_p50_us %.2f us\n", pct(lat, n, 0.5));
	printf("bench: peer.nvme_qd1_4k_read_p99_us %.2f us\n", pct(lat, n, 0.99));
	/* the goal: a null job no slower than an NVMe read */
	printf("ref: job.null_roundtrip_p50_us %.2f us\n", pct(lat, n, 0.5));
	free(lat);
	free(buf);
}

/* ---- submission throughput ------------------------------------------------ */

struct thr {
	tgpu_stream *s;
	size_t jobs;
	tgpu_status st;
};

static void *submitter(void *arg)
{
	struct thr *t = arg;
	size_t i;

	for (i = 0; i < t->jobs && !t->st; i++)
		t->st = tgpu_stream_submit_commands(t->s, TGPU_ENGINE_KIND_COMPUTE, nop, 2);
	if (!t->st)
		t->st = tgpu_stream_synchronize(t->s);
	return NULL;
}

static void submit_throughput(tgpu_context *ctx, int nthreads, const char *path)
{
	size_t per = (quick ? 4000 : 20000) / (size_t)nthreads;
	struct thr t[16];
	pthread_t th[16];
	double t0, dt;
	int i;

	for (i = 0; i < nthreads; i++) {
		t[i] = (struct thr){ .jobs = per };
		CHECK(tgpu_stream_create(ctx, &t[i].s, 0, 0));
	}
	t0 = now_us();
	for (i = 0; i < nthreads; i++)
		pthread_create(&th[i], NULL, submitter, &t[i]);
	for (i = 0; i < nthreads; i++) {
		pthread_join(th[i], NULL);
		if (t[i].st)
			die("a submitting thread", t[i].st);
	}
	dt = now_us() - t0;
	printf("bench: job.submit_per_s_%dt %.0f jobs/s\n", nthreads,
	       (double)per * nthreads / (dt / 1e6));
	if (path)
		printf("bench: job.submit_per_s_%dt_%s %.0f jobs/s\n", nthreads, path,
		       (double)per * nthreads / (dt / 1e6));
	for (i = 0; i < nthreads; i++)
		CHECK(tgpu_stream_destroy(t[i].s));
}

/* ---- kernels ---------------------------------------------------------------- */

/* An empty kernel, its module and a stream to launch it on. */
static tgpu_function *empty_kernel(tgpu_context *ctx, tgpu_module **m, tgpu_stream **s)
{
	tgpu_function *fn;

	CHECK(tgpu_module_load_data(ctx, m, ".entry empty\n\texit\n", 0));
	CHECK(tgpu_module_get_function(&fn, *m, "empty"));
	CHECK(tgpu_stream_create(ctx, s, 0, 0));
	return fn;
}

/* N empty launches, each synchronized, after WARM untimed: lat[N] in µs. */
static void launch_sync_lat(tgpu_function *fn, tgpu_stream *s, double *lat,
			    size_t n, size_t warm)
{
	double t0;
	size_t i;

	for (i = 0; i < n + warm; i++) {
		t0 = now_us();
		CHECK(tgpu_launch_kernel(fn, 1, 1, 1, 32, 1, 1, 0, s, NULL, 0));
		CHECK(tgpu_stream_synchronize(s));
		if (i >= warm)
			lat[i - warm] = now_us() - t0;
	}
}

static void empty_launch(tgpu_context *ctx, const char *path)
{
	size_t n = quick ? 300 : 2000, i;
	double *lat = malloc(n * sizeof(*lat)), t0;
	tgpu_module *m;
	tgpu_stream *s;
	tgpu_function *fn = empty_kernel(ctx, &m, &s);

	launch_sync_lat(fn, s, lat, n, 50);
	printf("bench: kernel.empty_launch_sync_%s_p50_us %.2f us\n", path, pct(lat, n, 0.5));
	if (strcmp(path, "user")) {
		/* the second path: the rest was measured on the first */
		CHECK(tgpu_stream_destroy(s));
		CHECK(tgpu_module_unload(m));
		free(lat);
		return;
	}
	printf("bench: kernel.empty_launch_sync_p50_us %.2f us\n", pct(lat, n, 0.5));
	/* launch overhead alone: many launches, one sync */
	t0 = now_us();
	for (i = 0; i < n; i++)
		CHECK(tgpu_launch_kernel(fn, 1, 1, 1, 32, 1, 1, 0, s, NULL, 0));
	CHECK(tgpu_stream_synchronize(s));
	printf("bench: kernel.empty_launch_us %.2f us\n", (now_us() - t0) / (double)n);
	CHECK(tgpu_stream_destroy(s));
	CHECK(tgpu_module_unload(m));
	free(lat);
}

/* ---- SGEMM through the stack ------------------------------------------------ */

/*
 * The 256 x 256 SGEMM of tests/qtest/tgpu-compute-bench.c, instruction
 * for instruction (its words through tgpu-dis): the stack's time beside
 * the interpreter's own, measured by that benchmark in the same make
 * bench, is the overhead of libtgpu, tgpu.ko and the channel.  CTA
 * (bx, by) of 16 x 16 threads computes C's 16 x 16 tile (by, bx).
 */
#define SGEMM_N 256

static const char sgemm_src[] =
	".entry sgemm\n"
	".param 24\n"
	".shared 2048\n"
	"	s2r r0, tid.x\n"
	"	s2r r1, tid.y\n"
	"	s2r r2, ctaid.x\n"
	"	s2r r3, ctaid.y\n"
	"	ldc.64 r4, c[rz]\n"
	"	ldc.64 r6, c[rz + 0x8]\n"
	"	ldc.64 r8, c[rz + 0x10]\n"
	"	mov r24, 0x10\n"
	"	mov r25, 0x100\n"
	"	mov r26, 0x4\n"
	"	imad r10, r3, r24, r1\n"
	"	imad r11, r2, r24, r0\n"
	"	imad r23, r10, r25, r0\n"
	"	imad.wide r12, r23, r26, r4\n"
	"	imad r23, r1, r25, r11\n"
	"	imad.wide r14, r23, r26, r6\n"
	"	imad r16, r1, r24, r0\n"
	"	shl r16, r16, 0x2\n"
	"	shl r17, r1, 0x6\n"
	"	shl r18, r0, 0x2\n"
	"	iadd r18, r18, 0x400\n"
	"	mov r19, 0x0\n"
	"	mov r20, 0x0\n"
	"L23:	ldg.32 r23, [r12]\n"
	"	sts.32 [r16], r23\n"
	"	ldg.32 r23, [r14]\n"
	"	sts.32 [r16 + 0x400], r23\n"
	"	bar 0x0\n"
	"	lds.32 r21, [r17]\n"
	"	lds.32 r22, [r18]\n"
	"	ffma r20, r21, r22, r20\n"
	"	lds.32 r21, [r17 + 0x4]\n"
	"	lds.32 r22, [r18 + 0x40]\n"
	"	ffma r20, r21, r22, r20\n"
	"	lds.32 r21, [r17 + 0x8]\n"
	"	lds.32 r22, [r18 + 0x80]\n"
	"	ffma r20, r21, r22, r20\n"
	"	lds.32 r21, [r17 + 0xc]\n"
	"	lds.32 r22, [r18 + 0xc0]\n"
	"	ffma r20, r21, r22, r20\n"
	"	lds.32 r21, [r17 + 0x10]\n"
	"	lds.32 r22, [r18 + 0x100]\n"
	"	ffma r20, r21, r22, r20\n"
	"	lds.32 r21, [r17 + 0x14]\n"
	"	lds.32 r22, [r18 + 0x140]\n"
	"	ffma r20, r21, r22, r20\n"
	"	lds.32 r21, [r17 + 0x18]\n"
	"	lds.32 r22, [r18 + 0x180]\n"
	"	ffma r20, r21, r22, r20\n"
	"	lds.32 r21, [r17 + 0x1c]\n"
	"	lds.32 r22, [r18 + 0x1c0]\n"
	"	ffma r20, r21, r22, r20\n"
	"	lds.32 r21, [r17 + 0x20]\n"
	"	lds.32 r22, [r18 + 0x200]\n"
	"	ffma r20, r21, r22, r20\n"
	"	lds.32 r21, [r17 + 0x24]\n"
	"	lds.32 r22, [r18 + 0x240]\n"
	"	ffma r20, r21, r22, r20\n"
	"	lds.32 r21, [r17 + 0x28]\n"
	"	lds.32 r22, [r18 + 0x280]\n"
	"	ffma r20, r21, r22, r20\n"
	"	lds.32 r21, [r17 + 0x2c]\n"
	"	lds.32 r22, [r18 + 0x2c0]\n"
	"	ffma r20, r21, r22, r20\n"
	"	lds.32 r21, [r17 + 0x30]\n"
	"	lds.32 r22, [r18 + 0x300]\n"
	"	ffma r20, r21, r22, r20\n"
	"	lds.32 r21, [r17 + 0x34]\n"
	"	lds.32 r22, [r18 + 0x340]\n"
	"	ffma r20, r21, r22, r20\n"
	"	lds.32 r21, [r17 + 0x38]\n"
	"	lds.32 r22, [r18 + 0x380]\n"
	"	ffma r20, r21, r22, r20\n"
	"	lds.32 r21, [r17 + 0x3c]\n"
	"	lds.32 r22, [r18 + 0x3c0]\n"
	"	ffma r20, r21, r22, r20\n"
	"	bar 0x0\n"
	"	iadd64 r12, r12, 0x40\n"
	"	iadd64 r14, r14, 0x4000\n"
	"	iadd r19, r19, 0x1\n"
	"	isetp.lt p0, r19, 0x10\n"
	"	@p0 bra L23\n"
	"	imad r23, r10, r25, r11\n"
	"	imad.wide r12, r23, r26, r8\n"
	"	stg.32 [r12], r20\n"
	"	exit\n";

static void sgemm(tgpu_context *ctx)
{
	const size_t nn = SGEMM_N * SGEMM_N, bytes = nn * 4;
	float *a = malloc(bytes), *b = malloc(bytes), *c = malloc(bytes);
	size_t runs = quick ? 1 : 5, i, r, bad = 0;
	struct { uint64_t a, b, c; } __attribute__((packed)) prm;
	tgpu_event *e0, *e1;
	double best = 1e30, best_wall = 1e30;
	tgpu_function *fn;
	tgpu_deviceptr d;
	tgpu_module *m;

	for (i = 0; i < nn; i++) {
		a[i] = (float)((i * 7) % 13) / 8.0f - 0.75f;
		b[i] = (float)((i * 5) % 11) / 4.0f - 1.25f;
	}
	CHECK(tgpu_module_load_data(ctx, &m, sgemm_src, 0));
	CHECK(tgpu_module_get_function(&fn, m, "sgemm"));
	CHECK(tgpu_mem_alloc(ctx, &d, 3 * bytes));
	CHECK(tgpu_memcpy_htod(ctx, d, a, bytes));
	CHECK(tgpu_memcpy_htod(ctx, d + bytes, b, bytes));
	CHECK(tgpu_event_create(ctx, &e0, 0));
	CHECK(tgpu_event_create(ctx, &e1, 0));
	prm.a = d;
	prm.b = d + bytes;
	prm.c = d + 2 * bytes;
	for (r = 0; r < runs; r++) {
		double t0 = now_us(), wall;
		float ms;

		CHECK(tgpu_event_record(e0, NULL));
		CHECK(tgpu_launch_kernel(fn, SGEMM_N / 16, SGEMM_N / 16, 1, 16, 16, 1, 0,
					 NULL, &prm, sizeof(prm)));
		CHECK(tgpu_event_record(e1, NULL));
		CHECK(tgpu_event_synchronize(e1));
		wall = (now_us() - t0) / 1e3;
		CHECK(tgpu_event_elapsed_time(&ms, e0, e1));
		if (ms < best)
			best = ms;
		if (wall < best_wall)
			best_wall = wall;
	}
	CHECK(tgpu_memcpy_dtoh(ctx, c, d + 2 * bytes, bytes));
	/* bit-exact: the kernel's FFMAs in k order, as fmaf here */
	for (i = 0; i < nn; i++) {
		size_t row = i / SGEMM_N, col = i % SGEMM_N, k;
		float acc = 0.0f;

		for (k = 0; k < SGEMM_N; k++)
			acc = fmaf(a[row * SGEMM_N + k], b[k * SGEMM_N + col], acc);
		bad += memcmp(&acc, &c[i], 4) != 0;
	}
	if (bad) {
		fprintf(stderr, "bench-stack: sgemm: %zu of %zu elements differ from the CPU's\n",
			bad, nn);
		exit(1);
	}
	printf("bench: stack.sgemm_ms %.3f ms\n", best);
	printf("bench: stack.sgemm_launch_sync_ms %.3f ms\n", best_wall);
	printf("bench: stack.sgemm_gflops %.4f GFLOP/s\n",
	       2.0 * SGEMM_N * SGEMM_N * SGEMM_N / (best * 1e6));
	CHECK(tgpu_event_destroy(e0));
	CHECK(tgpu_event_destroy(e1));
	CHECK(tgpu_mem_free(ctx, d));
	CHECK(tgpu_module_unload(m));
	free(a);
	free(b);
	free(c);
}

/*
 * SAXPY y = a * x + y over 1 Mi floats: tgpu-compute-bench's kernel too,
 * instruction for instruction; judged against its compute.saxpy_gbps.
 */
#define SAXPY_N (1 << 20)

static const char saxpy_src[] =
	".entry saxpy\n"
	".param 20\n"
	"	s2r r0, tid.x\n"
	"	s2r r1, ctaid.x\n"
	"	s2r r10, ntid.x\n"
	"	imad r0, r1, r10, r0\n"
	"	ldc.64 r2, c[rz]\n"
	"	ldc.64 r4, c[rz + 0x8]\n"
	"	ldc.32 r6, c[rz + 0x10]\n"
	"	mov r10, 0x4\n"
	"	imad.wide r12, r0, r10, r2\n"
	"	imad.wide r14, r0, r10, r4\n"
	"	ldg.32 r8, [r12]\n"
	"	ldg.32 r9, [r14]\n"
	"	ffma r9, r6, r8, r9\n"
	"	stg.32 [r14], r9\n"
	"	exit\n";

static void saxpy(tgpu_context *ctx)
{
	const size_t bytes = SAXPY_N * 4;
	float *x = malloc(bytes), *y = malloc(bytes), *out = malloc(bytes);
	struct { uint64_t x, y; float a; } __attribute__((packed)) prm;
	size_t runs = quick ? 1 : 5, i, r, bad = 0;
	tgpu_event *e0, *e1;
	double best = 1e30;
	tgpu_function *fn;
	tgpu_deviceptr d;
	tgpu_module *m;

	for (i = 0; i < SAXPY_N; i++) {
		x[i] = (float)(i % 1000) / 7.0f;
		y[i] = (float)(i % 333) / 3.0f;
	}
	CHECK(tgpu_module_load_data(ctx, &m, saxpy_src, 0));
	CHECK(tgpu_module_get_function(&fn, m, "saxpy"));
	CHECK(tgpu_mem_alloc(ctx, &d, 2 * bytes));
	CHECK(tgpu_memcpy_htod(ctx, d, x, bytes));
	CHECK(tgpu_event_create(ctx, &e0, 0));
	CHECK(tgpu_event_create(ctx, &e1, 0));
	prm.x = d;
	prm.y = d + bytes;
	prm.a = 1.5f;
	for (r = 0; r < runs; r++) {
		float ms;

		/* y afresh each run, so the result is one SAXPY */
		CHECK(tgpu_memcpy_htod(ctx, d + bytes, y, bytes));
		CHECK(tgpu_event_record(e0, NULL));
		CHECK(tgpu_launch_kernel(fn, SAXPY_N / 256, 1, 1, 256, 1, 1, 0, NULL,
					 &prm, sizeof(prm)));
		CHECK(tgpu_event_record(e1, NULL));
		CHECK(tgpu_event_synchronize(e1));
		CHECK(tgpu_event_elapsed_time(&ms, e0, e1));
		if (ms < best)
			best = ms;
	}
	CHECK(tgpu_memcpy_dtoh(ctx, out, d + bytes, bytes));
	for (i = 0; i < SAXPY_N; i++) {
		float want = fmaf(prm.a, x[i], y[i]);

		bad += memcmp(&want, &out[i], 4) != 0;
	}
	if (bad) {
		fprintf(stderr, "bench-stack: saxpy: %zu of %d elements differ from the CPU's\n",
			bad, SAXPY_N);
		exit(1);
	}
	printf("bench: stack.saxpy_ms %.3f ms\n", best);
	printf("bench: stack.saxpy_gbps %.3f GB/s\n", 12.0 * SAXPY_N / (best * 1e6));
	CHECK(tgpu_event_destroy(e0));
	CHECK(tgpu_event_destroy(e1));
	CHECK(tgpu_mem_free(ctx, d));
	CHECK(tgpu_module_unload(m));
	free(x);
	free(y);
	free(out);
}

/* ---- allocation --------------------------------------------------------------- */

/* tgpu_mem_alloc (GEM_CREATE, the clear, VM_BIND) and free of 256 MiB. */
static void alloc_cost(tgpu_context *ctx)
{
	const size_t size = 256 << 20;
	double best = 1e30, best_host = 1e30, t0, dt;
	tgpu_deviceptr d;
	void *h;
	int r;

	for (r = 0; r < (quick ? 1 : 3); r++) {
		t0 = now_us();
		CHECK(tgpu_mem_alloc(ctx, &d, size));
		dt = now_us() - t0;
		CHECK(tgpu_mem_free(ctx, d));
		if (dt < best)
			best = dt;
		t0 = now_us();
		CHECK(tgpu_mem_alloc_host(ctx, &h, size / 4));
		dt = now_us() - t0;
		CHECK(tgpu_mem_free_host(ctx, h));
		if (dt < best_host)
			best_host = dt;
	}
	printf("bench: stack.alloc_vram_256m_ms %.2f ms\n", best / 1e3);
	printf("bench: stack.alloc_pinned_64m_ms %.2f ms\n", best_host / 1e3);
}

/* ---- copies ------------------------------------------------------------------- */

static double gbps(size_t bytes, double us)
{
	return (double)bytes / (us * 1e3);
}

/* Best of reps: these machines are noisy. */
static double time_copy(tgpu_context *ctx, int kind, tgpu_deviceptr d,
			void *h, size_t n, int reps)
{
	double best = 1e30;
	int r;

	for (r = 0; r < reps; r++) {
		double t0 = now_us(), dt;

		if (kind == 0)
			CHECK(tgpu_memcpy_htod(ctx, d, h, n));
		else if (kind == 1)
			CHECK(tgpu_memcpy_dtoh(ctx, h, d, n));
		else
			CHECK(tgpu_memcpy_dtod(ctx, d + n, d, n));
		dt = now_us() - t0;
		if (dt < best)
			best = dt;
	}
	return best;
}

/* A 4 KiB copy from pinned memory, synchronous: p50 of 500. */
static void h2d_4k(tgpu_context *ctx, const char *path)
{
	size_t n = quick ? 100 : 500, i;
	double *lat = malloc(n * sizeof(*lat));
	tgpu_deviceptr d;
	void *h;

	CHECK(tgpu_mem_alloc(ctx, &d, 4096));
	CHECK(tgpu_mem_alloc_host(ctx, &h, 4096));
	memset(h, 3, 4096);
	for (i = 0; i < n + 20; i++) {
		double t0 = now_us();

		CHECK(tgpu_memcpy_htod(ctx, d, h, 4096));
		if (i >= 20)
			lat[i - 20] = now_us() - t0;
	}
	printf("bench: stack.h2d_pinned_4k_%s_us %.2f us\n", path, pct(lat, n, 0.5));
	CHECK(tgpu_mem_free_host(ctx, h));
	CHECK(tgpu_mem_free(ctx, d));
	free(lat);
}

static void copies(tgpu_context *ctx)
{
	static const size_t sizes[] = { 4096, 256 << 10, 4 << 20, 64 << 20 };
	static const char *const sname[] = { "4k", "256k", "4m", "64m" };
	static const char *const kname[] = { "h2d", "d2h", "d2d" };
	size_t big = 64 << 20, i;
	void *pinned, *pageable, *src;
	tgpu_deviceptr d;
	double best = 1e30;
	int k, r;

	CHECK(tgpu_mem_alloc(ctx, &d, 2 * big));
	CHECK(tgpu_mem_alloc_host(ctx, &pinned, big));
	pageable = malloc(big);
	src = malloc(big);
	memset(pageable, 1, big);
	memset(src, 2, big);
	for (i = 0; i < 4; i++) {
		int reps = sizes[i] >= (4 << 20) ? 5 : 20;
		double mbest = 1e30;

		/* the guest's memcpy of the same size: a pageable copy's ceiling */
		for (r = 0; r < reps; r++) {
			double t0 = now_us(), dt;

			memcpy(pageable, src, sizes[i]);
			dt = now_us() - t0;
			if (dt < mbest)
				mbest = dt;
		}
		printf("bench: guest.memcpy_%s_gbps %.3f GB/s\n", sname[i],
		       gbps(sizes[i], mbest));
		if (sizes[i] == big)
			best = mbest;

		for (k = 0; k < 3; k++) {
			double us = time_copy(ctx, k, d, pinned, sizes[i], reps);

			printf("bench: stack.%s_pinned_%s_gbps %.3f GB/s\n", kname[k],
			       sname[i], gbps(sizes[i], us));
			if (sizes[i] == big && k < 2) {
				printf("bench: stack.%s_64m_gbps %.3f GB/s\n", kname[k],
				       gbps(big, us));
				printf("ref: stack.%s_64m_gbps %.3f GB/s\n", kname[k],
				       gbps(big, best));
			}
			if (k == 2)
				continue;
			us = time_copy(ctx, k, d, pageable, sizes[i], reps);
			printf("bench: stack.%s_pageable_%s_gbps %.3f GB/s\n", kname[k],
			       sname[i], gbps(sizes[i], us));
		}
	}
	/* both engines at once: H2D on one stream, D2H on another */
	{
		tgpu_stream *s1, *s2;
		void *pinned2;
		double t0, one, both = 1e30;

		CHECK(tgpu_mem_alloc_host(ctx, &pinned2, big));
		CHECK(tgpu_stream_create(ctx, &s1, 0, 0));
		CHECK(tgpu_stream_create(ctx, &s2, 0, 0));
		one = time_copy(ctx, 0, d, pinned, big, 3);
		for (r = 0; r < 3; r++) {
			double dt;

			t0 = now_us();
			CHECK(tgpu_memcpy_htod_async(ctx, d, pinned, big, s1));
			CHECK(tgpu_memcpy_dtoh_async(ctx, pinned2, d + big, big, s2));
			CHECK(tgpu_stream_synchronize(s1));
			CHECK(tgpu_stream_synchronize(s2));
			dt = now_us() - t0;
			if (dt < both)
				both = dt;
		}
		printf("bench: stack.h2d_d2h_concurrent_gbps %.3f GB/s\n", gbps(2 * big, both));
		printf("ref: stack.h2d_d2h_concurrent_gbps %.3f GB/s\n", gbps(big, one));
		CHECK(tgpu_stream_destroy(s1));
		CHECK(tgpu_stream_destroy(s2));
		CHECK(tgpu_mem_free_host(ctx, pinned2));
	}
	CHECK(tgpu_mem_free_host(ctx, pinned));
	CHECK(tgpu_mem_free(ctx, d));
	free(pageable);
	free(src);
}

/* --repeat=KIND,N[,BYTES]: one pinned copy N times, for profiling the host */
static void repeat_copy(tgpu_context *ctx, const char *spec)
{
	static const char *const kname[] = { "h2d", "d2h", "d2d" };
	size_t big = 64 << 20, size = big;
	tgpu_deviceptr d;
	void *pinned;
	int k, n = 0;

	for (k = 0; k < 3; k++) {
		if (!strncmp(spec, kname[k], 3) && spec[3] == ',') {
			const char *c = strchr(spec + 4, ',');

			n = atoi(spec + 4);
			if (c)
				size = strtoull(c + 1, NULL, 0);
		}
	}
	for (k = 0; k < 3 && strncmp(spec, kname[k], 3); k++)
		;
	if (k == 3 || n <= 0 || !size || size > big) {
		fprintf(stderr, "bench-stack: --repeat=h2d|d2h|d2d,N[,BYTES]\n");
		exit(2);
	}
	CHECK(tgpu_mem_alloc(ctx, &d, 2 * big));
	CHECK(tgpu_mem_alloc_host(ctx, &pinned, big));
	printf("%s %zu bytes: %.3f GB/s best of %d\n", kname[k], size,
	       gbps(size, time_copy(ctx, k, d, pinned, size, n)), n);
}

/* N empty kernel launches, each synchronized: a steady load to profile. */
static void repeat_launch(tgpu_context *ctx, long n)
{
	double *lat = malloc((size_t)n * sizeof(*lat));
	tgpu_module *m;
	tgpu_stream *s;
	tgpu_function *fn;

	if (!lat)
		die("malloc", TGPU_ERROR_OUT_OF_MEMORY);
	fn = empty_kernel(ctx, &m, &s);
	launch_sync_lat(fn, s, lat, (size_t)n, 0);
	printf("launch+sync x %ld: p50 %.2f us, p99 %.2f us\n", n, pct(lat, (size_t)n, 0.5),
	       pct(lat, (size_t)n, 0.99));
	CHECK(tgpu_stream_destroy(s));
	CHECK(tgpu_module_unload(m));
	free(lat);
}

/* ---- context switches between processes --------------------------------- */

#define CTXSW_SWITCHES  1000
#define CTXSW_PAGES     16      /* working set: fits the 512-entry TLB */

/*
 * One of two processes taking turns: wait for the token, run a job that
 * writes one semaphore into each page of its working set (so the engine
 * must translate every page after the switch), wait for it, pass the
 * token on.  Both warm up, then wait for the parent's start signal.
 */
static void ctxsw_player(int in, int out, int ready, int start, int turns,
			 bool first, double *lat)
{
	uint32_t cmds[CTXSW_PAGES * 6];
	tgpu_context *ctx;
	tgpu_stream *s;
	tgpu_deviceptr ws;
	double tok = 0;
	int i, p;

	CHECK(tgpu_init(0));
	CHECK(tgpu_device_get(&dev, 0));
	CHECK(tgpu_ctx_create(&ctx, dev, 0));
	CHECK(tgpu_stream_create(ctx, &s, 0, 0));
	CHECK(tgpu_mem_alloc(ctx, &ws, CTXSW_PAGES * 4096));
	for (p = 0; p < CTXSW_PAGES; p++) {
		uint64_t a = ws + 4096ull * p;
		uint32_t *c = cmds + 6 * p;

		tgpu_pb_sem(c, a, (uint32_t)p, TGPU_SEM_OP_RELEASE);
	}
	CHECK(tgpu_stream_submit_commands(s, TGPU_ENGINE_KIND_COMPUTE, cmds, CTXSW_PAGES * 6));
	CHECK(tgpu_stream_synchronize(s));
	if (write(ready, "r", 1) != 1 || read(start, &tok, 1) != 1)
		exit(1);
	/* the token carries when it was sent: a turn is the other's wake-up
	 * and its job */
	for (i = 0; i < turns; i++) {
		if (!first || i) {
			if (read(in, &tok, sizeof(tok)) != sizeof(tok))
				exit(1);
		} else {
			tok = now_us();
		}
		CHECK(tgpu_stream_submit_commands(s, TGPU_ENGINE_KIND_COMPUTE, cmds,
						  CTXSW_PAGES * 6));
		CHECK(tgpu_stream_synchronize(s));
		lat[i] = now_us() - tok;
		tok = now_us();
		if (write(out, &tok, sizeof(tok)) != sizeof(tok))
			exit(1);
	}
	CHECK(tgpu_ctx_destroy(ctx));
	exit(0);
}

/* MMU_WALKS through BAR0 (sysfs resource0; the guest needs iomem=relaxed). */
static volatile uint32_t *map_bar0(void)
{
	void *p;
	int fd = open("/sys/class/drm/renderD128/device/resource0", O_RDONLY | O_CLOEXEC);

	if (fd < 0)
		return NULL;
	p = mmap(NULL, TGPU_BAR0_SIZE, PROT_READ, MAP_SHARED, fd, 0);
	close(fd);
	return p == MAP_FAILED ? NULL : p;
}

static void ctxsw(const char *tag)
{
	volatile uint32_t *bar0 = map_bar0();
	int ab[2], ba[2], ready[2], start[2], st, ok1, ok2;
	uint32_t w0 = 0, w1 = 0;
	char tok[2] = { 's', 's' };

	pid_t pa, pb;
	double t0, dt;

	/* each turn's time, written by the players */
	double *lat = mmap(NULL, CTXSW_SWITCHES * sizeof(double), PROT_READ | PROT_WRITE,
			   MAP_SHARED | MAP_ANONYMOUS, -1, 0);

	if (lat == MAP_FAILED || pipe(ab) || pipe(ba) || pipe(ready) || pipe(start))
		exit(1);
	pa = fork();
	if (!pa)
		ctxsw_player(ba[0], ab[1], ready[1], start[0], CTXSW_SWITCHES / 2, true, lat);
	pb = fork();
	if (!pb)
		ctxsw_player(ab[0], ba[1], ready[1], start[0], CTXSW_SWITCHES / 2, false,
			     lat + CTXSW_SWITCHES / 2);
	if (read(ready[0], tok, 1) != 1 || read(ready[0], tok + 1, 1) != 1)
		exit(1);
	if (bar0)
		w0 = bar0[TGPU_MMU_WALKS / 4];
	t0 = now_us();
	if (write(start[1], tok, 2) != 2)
		exit(1);
	ok1 = waitpid(pa, &st, 0) == pa && WIFEXITED(st) && !WEXITSTATUS(st);
	ok2 = waitpid(pb, &st, 0) == pb && WIFEXITED(st) && !WEXITSTATUS(st);
	dt = now_us() - t0;
	if (!ok1 || !ok2) {
		fprintf(stderr, "bench-stack: a context-switch process failed\n");
		exit(1);
	}
	if (bar0)
		w1 = bar0[TGPU_MMU_WALKS / 4];
	printf("bench: stack.ctxsw_us_%s %.2f us\n", tag, pct(lat, CTXSW_SWITCHES, 0.5));
	printf("bench: stack.ctxsw_mean_us_%s %.2f us\n", tag, dt / CTXSW_SWITCHES);
	if (bar0)
		printf("bench: stack.ctxsw_walks_%s %u walks\n", tag, w1 - w0);
}

int main(int argc, char **argv)
{
	const char *nvme = NULL, *repeat = NULL, *ctxsw_tag = NULL;
	tgpu_context *ctx;
	int i;

	for (i = 1; i < argc; i++) {
		if (!strncmp(argv[i], "--nvme=", 7))
			nvme = argv[i] + 7;
		else if (!strcmp(argv[i], "--quick"))
			quick = true;
		else if (!strncmp(argv[i], "--repeat=", 9))
			repeat = argv[i] + 9;
		else if (!strncmp(argv[i], "--ctxsw=", 8))
			ctxsw_tag = argv[i] + 8;
		else {
			fprintf(stderr, "usage: bench-stack [--nvme=DEV] [--quick] [--repeat=h2d|d2h|d2d,N[,BYTES]|launch,N] [--ctxsw=TAG]\n");
			return 2;
		}
	}
	if (ctxsw_tag) {
		/* the players open the device themselves, after the fork */
		ctxsw(ctxsw_tag);
		return 0;
	}
	CHECK(tgpu_init(0));
	CHECK(tgpu_device_get(&dev, 0));
	if (repeat) {
		CHECK(tgpu_ctx_create(&ctx, dev, 0));
		if (!strncmp(repeat, "launch,", 7) && atol(repeat + 7) > 0)
			repeat_launch(ctx, atol(repeat + 7));
		else
			repeat_copy(ctx, repeat);
		return 0;
	}
	/* the kernel path first, then the default (user), which goes on */
	ctx = path_ctx("kernel");
	null_roundtrip(ctx, "kernel");
	empty_launch(ctx, "kernel");
	h2d_4k(ctx, "kernel");
	CHECK(tgpu_ctx_destroy(ctx));
	ctx = path_ctx("user");
	null_roundtrip(ctx, "user");
	if (nvme)
		nvme_peer(nvme);
	submit_throughput(ctx, 1, "user");
	submit_throughput(ctx, 4, NULL);
	submit_throughput(ctx, 16, "user");
	empty_launch(ctx, "user");
	h2d_4k(ctx, "user");
	alloc_cost(ctx);
	sgemm(ctx);
	saxpy(ctx);
	copies(ctx);
	CHECK(tgpu_ctx_destroy(ctx));
	return 0;
}
