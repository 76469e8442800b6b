// SPDX-License-Identifier: MIT
/*
 * The guest side of the migration round trip (tests/guest/migrate-vm):
 * a kernel of several warps that runs for about 13 s, which the host
 * migrates while it runs, and whose every word is then checked against
 * the same computation on the CPU.  It prints "# migrate-now" when the
 * kernel is on the GPU; TAP otherwise.
 *
 *   test-migrate [--iters N]
 */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <libtgpu.h>
#include "guest-tap.h"

#define CTAS		4
#define THREADS		64
#define N		(CTAS * THREADS)

/*
 * Each thread counts itself in the word after the results, then steps a
 * linear congruential generator with an xorshift from its global index,
 * ITERS times, and stores the result: registers and the loop counter
 * live in the warps all along, so a warp's state that a migration lost
 * or mixed up shows in its lanes' words, and a kernel started again
 * rather than continued shows in the count.
 */
static const char lcg_src[] =
	".entry lcg\n"
	".param 12                  ; out (u64), iterations (u32)\n"
	"	s2r r0, tid.x\n"
	"	s2r r1, ctaid.x\n"
	"	s2r r2, ntid.x\n"
	"	imad r3, r1, r2, r0\n"
	"	ldc.64 r10, c[rz]\n"
	"	mov r13, 1\n"
	"	atomg.add rz, [r10 + 1024], r13, rz\n"
	"	ldc.32 r4, c[rz + 8]\n"
	"	mov r5, r3\n"
	"	mov r6, 0\n"
	"	mov r7, 1664525\n"
	"	mov r8, 1013904223\n"
	"loop:	imad r5, r5, r7, r8\n"
	"	shr r9, r5, 13\n"
	"	xor r5, r5, r9\n"
	"	iadd r6, r6, 1\n"
	"	isetp.lt p0, r6, r4\n"
	"	@p0 bra loop\n"
	"	ldc.64 r10, c[rz]\n"
	"	mov r12, 4\n"
	"	imad.wide r10, r3, r12, r10\n"
	"	stg.32 [r10], r5\n"
	"	exit\n";

struct lcg_params {
	uint64_t out;
	uint32_t iters;
} __attribute__((packed));

static uint32_t lcg_cpu(uint32_t x, uint32_t iters)
{
	for (uint32_t i = 0; i < iters; i++) {
		x = x * 1664525u + 1013904223u;
		x ^= x >> 13;
	}
	return x;
}

int main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "iters", required_argument, NULL, 'i' },
		{ 0 }
	};
	uint32_t iters = 100000, *host, bad = 0, first = 0;
	_Static_assert(N * 4 == 1024, "the count's offset in lcg_src");
	struct lcg_params p;
	tgpu_status st;
	tgpu_context *ctx;
	tgpu_module *m;
	tgpu_function *f;
	tgpu_device *dev;
	tgpu_deviceptr out;
	int c;

	while ((c = getopt_long(argc, argv, "", opts, NULL)) != -1) {
		if (c != 'i')
			return 2;
		iters = strtoul(optarg, NULL, 0);
	}
	if (tgpu_init(0) || tgpu_device_get(&dev, 0) || tgpu_ctx_create(&ctx, dev, 0) ||
	    tgpu_module_load_data(ctx, &m, lcg_src, 0) ||
	    tgpu_module_get_function(&f, m, "lcg") || tgpu_mem_alloc(ctx, &out, N * 4 + 4))
		bail("no device, context, module or memory");
	host = calloc(N + 1, 4);
	if (!host)
		bail("no memory");
	tgpu_memset_d32(ctx, out, 0xdeadbeef, N);
	tgpu_memset_d32(ctx, out + N * 4, 0, 1);
	p.out = out;
	p.iters = iters;
	ok(tgpu_launch_kernel(f, CTAS, 1, 1, THREADS, 1, 1, 0, NULL, &p, sizeof(p)) ==
	   TGPU_SUCCESS, "launch %u threads of %u iterations", N, iters);
	/* the host migrates now; the kernel goes on in the new QEMU */
	printf("# migrate-now\n");
	fflush(stdout);
	st = tgpu_ctx_synchronize(ctx);
	if (!ok(st == TGPU_SUCCESS, "the kernel ends well after the migration")) {
		printf("# %s: %s\n", tgpu_get_error_name(st), tgpu_get_last_error_message());
		fflush(stdout);
		if (system("dmesg | tail -n 20 | sed 's/^/# /'"))
			printf("# no dmesg\n");
	}
	tgpu_memcpy_dtoh(ctx, host, out, N * 4 + 4);
	ok(host[N] == N, "every thread ran once: %u of %u counted", host[N], N);
	for (uint32_t i = 0; i < N; i++) {
		if (host[i] != lcg_cpu(i, iters)) {
			if (!bad++)
				first = i;
		}
	}
	ok(!bad, "all %u results byte-exact (%u wrong, the first at thread %u)", N, bad,
	   first);
	tgpu_ctx_destroy(ctx);
	free(host);
	return tap_done();
}
