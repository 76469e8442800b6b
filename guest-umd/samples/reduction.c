// SPDX-License-Identifier: MIT
/*
 * reduction: the sum of n 32-bit integers on the GPU, checked against
 * the CPU.
 *
 *   reduction [-n ELEMENTS] [-q]
 *
 * Each thread sums a grid-stride share of the input, each CTA adds its
 * threads' sums in a shared-memory tree, and thread 0 of each CTA adds
 * the CTA's partial to the result with a global atomic (atomg.add).
 * Prints the kernel's GPU time (tgpu events) and its read bandwidth
 * (4 bytes per element), then PASSED or FAILED; exits 0 only when the
 * sum is exact.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>

#include "common.h"

#define BLOCK           256     /* a power of two: the tree halves it */
#define MAX_BLOCKS      1024

/*
 * The accumulation loop is divergent (lanes run out of elements at
 * different times), so it reconverges with ssy/sync before the first
 * barrier.  The tree loop is uniform: every warp goes round it the same
 * number of times and reaches every bar 0; "tid < s" is a guard.
 */
static const char kernel_src[] =
	".entry reduction\n"
	".param 20                      ; in, out (u64), n (u32)\n"
	".shared 1024                   ; one sum per thread\n"
	"	s2r	r0, tid.x\n"
	"	s2r	r1, ntid.x\n"
	"	s2r	r2, ctaid.x\n"
	"	imad	r3, r2, r1, r0          ; i = ctaid.x * ntid.x + tid.x\n"
	"	s2r	r4, nctaid.x\n"
	"	imul	r4, r4, r1              ; stride\n"
	"	ldc.64	r6, c[rz + 0]           ; in\n"
	"	ldc.32	r5, c[rz + 16]          ; n\n"
	"	mov	r12, 4\n"
	"	mov	r15, 0                  ; this thread's sum\n"
	"	ssy	reduce\n"
	"acc:	usetp.ge p0, r3, r5\n"
	"	@p0 bra	accdone                 ; done lanes wait at sync\n"
	"	imad.wide r8, r3, r12, r6\n"
	"	ldg.32	r10, [r8]\n"
	"	iadd	r15, r15, r10\n"
	"	iadd	r3, r3, r4\n"
	"	bra	acc\n"
	"accdone: sync\n"
	"reduce:	shl	r14, r0, 2              ; &sum[tid]\n"
	"	sts.32	[r14], r15\n"
	"	bar	0\n"
	"	shr	r16, r1, 1              ; s = ntid.x / 2\n"
	"tree:	usetp.lt p1, r0, r16            ; tid < s: sum[tid] += sum[tid + s]\n"
	"	shl	r17, r16, 2\n"
	"	iadd	r17, r17, r14\n"
	"	@p1 lds.32 r18, [r17]\n"
	"	@p1 lds.32 r19, [r14]\n"
	"	@p1 iadd r19, r19, r18\n"
	"	@p1 sts.32 [r14], r19\n"
	"	bar	0\n"
	"	shr	r16, r16, 1\n"
	"	usetp.ne p0, r16, 0\n"
	"	@p0 bra	tree\n"
	"	usetp.ne p1, r0, 0\n"
	"	@p1 exit\n"
	"	lds.32	r18, [rz]               ; the CTA's partial sum\n"
	"	ldc.64	r20, c[rz + 8]\n"
	"	atomg.add rz, [r20], r18, rz\n"
	"	exit\n";

struct params {
	uint64_t in, out;
	uint32_t n;
} __attribute__((packed));

static void usage(FILE *f)
{
	fprintf(f,
		"usage: reduction [-n ELEMENTS] [-q]\n"
		"The sum of ELEMENTS 32-bit integers (default 8M; k, M, G suffixes\n"
		"are x1024^n) on the GPU, checked against the CPU.  -q prints only the\n"
		"result line and PASSED/FAILED.  Exit status 0 when the check passed.\n");
}

int main(int argc, char **argv)
{
	uint64_t n = 8 << 20, i;
	uint32_t *in, want = 0, got = 0;
	struct sample_timer t;
	struct params p;
	struct sample s;
	tgpu_deviceptr din, dout;
	tgpu_function *fn;
	tgpu_module *mod;
	bool quiet = false;
	double ms;
	int opt;

	opt = sample_parse_args(argc, argv, "reduction", usage, 1, 1u << 28, &n, &quiet);
	if (opt >= 0)
		return opt;

	sample_open(&s, "reduction", quiet);
	fn = sample_kernel(&s, &mod, kernel_src, "reduction");

	/*
	 * Integer addition is exact and associative modulo 2^32, so the GPU's
	 * order (per thread, per tree, per atomic) must give exactly the CPU's
	 * sum; the values are full 32-bit words and the sum wraps around on
	 * both sides.
	 */
	in = sample_malloc(&s, n * 4);
	for (i = 0; i < n; i++) {
		in[i] = sample_rand(i, 7);
		want += in[i];
	}
	CHECK(&s, tgpu_mem_alloc(s.ctx, &din, n * 4));
	CHECK(&s, tgpu_mem_alloc(s.ctx, &dout, 4));
	CHECK(&s, tgpu_memcpy_htod(s.ctx, din, in, n * 4));
	CHECK(&s, tgpu_memset_d32(s.ctx, dout, 0, 1));

	p = (struct params){ .in = din, .out = dout, .n = (uint32_t)n };
	sample_timer_init(&s, &t);
	sample_timer_start(&s, &t, NULL);
	CHECK(&s, tgpu_launch_kernel(fn, sample_grid(n, BLOCK, MAX_BLOCKS), 1, 1,
				     BLOCK, 1, 1, 0, NULL, &p, sizeof(p)));
	ms = sample_timer_stop(&s, &t, NULL);
	CHECK(&s, tgpu_memcpy_dtoh(s.ctx, &got, dout, 4));

	if (got != want)
		fprintf(stderr, "reduction: the GPU's sum is 0x%08x, the CPU's 0x%08x\n",
			got, want);
	else if (!quiet)
		printf("reduction: sum 0x%08x (mod 2^32), as the CPU's\n", got);

	printf("reduction: %" PRIu64 " integers, kernel %.3f ms (GPU), %.3f GB/s\n",
	       n, ms, 4.0 * n / (ms * 1e6));
	sample_timer_destroy(&t);
	free(in);
	return sample_finish(&s, got == want);
}
