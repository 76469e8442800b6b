// SPDX-License-Identifier: MIT
/*
 * saxpy: y = a * x + y over n floats on the GPU, checked against the CPU.
 *
 *   saxpy [-n ELEMENTS] [-q]
 *
 * Prints the kernel's GPU time (tgpu events), GFLOP/s (2 per element) and
 * memory bandwidth (12 bytes per element: two loads, one store), then
 * PASSED or FAILED; exits 0 only when every element matches.
 */
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common.h"

#define BLOCK           256
#define MAX_BLOCKS      4096

/* A grid-stride loop, as in vector_add; one ffma per element. */
static const char kernel_src[] =
	".entry saxpy\n"
	".param 24                      ; x, y (u64), a (f32), n (u32)\n"
	"	s2r	r0, ctaid.x\n"
	"	s2r	r1, ntid.x\n"
	"	s2r	r2, tid.x\n"
	"	imad	r3, r0, r1, r2          ; i = ctaid.x * ntid.x + tid.x\n"
	"	s2r	r4, nctaid.x\n"
	"	imul	r4, r4, r1              ; stride = nctaid.x * ntid.x\n"
	"	ldc.64	r6, c[rz + 0]           ; x\n"
	"	ldc.64	r8, c[rz + 8]           ; y\n"
	"	ldc.32	r5, c[rz + 16]          ; a\n"
	"	ldc.32	r10, c[rz + 20]         ; n\n"
	"	mov	r11, 4\n"
	"loop:	usetp.ge p0, r3, r10\n"
	"	@p0 exit\n"
	"	imad.wide r12, r3, r11, r6      ; &x[i]\n"
	"	imad.wide r14, r3, r11, r8      ; &y[i]\n"
	"	ldg.32	r16, [r12]\n"
	"	ldg.32	r17, [r14]\n"
	"	ffma	r17, r5, r16, r17       ; a * x[i] + y[i], rounded once\n"
	"	stg.32	[r14], r17\n"
	"	iadd	r3, r3, r4\n"
	"	bra	loop\n";

struct params {
	uint64_t x, y;
	float a;
	uint32_t n;
} __attribute__((packed));

static void usage(FILE *f)
{
	fprintf(f,
		"usage: saxpy [-n ELEMENTS] [-q]\n"
		"y = a * x + y over ELEMENTS floats (default 4M; k, M, G suffixes are\n"
		"x1024^n) on the GPU, checked against the CPU.  -q prints only the\n"
		"result line and PASSED/FAILED.  Exit status 0 when the check passed.\n");
}

int main(int argc, char **argv)
{
	const float alpha = 2.5f;
	uint64_t n = 4 << 20, bad = 0, i;
	struct sample_timer t;
	struct params p;
	struct sample s;
	tgpu_deviceptr dx, dy;
	tgpu_function *fn;
	tgpu_module *mod;
	float *x, *y, *out;
	bool quiet = false;
	double ms;
	int opt;

	opt = sample_parse_args(argc, argv, "saxpy", usage, 1, 1u << 28, &n, &quiet);
	if (opt >= 0)
		return opt;

	sample_open(&s, "saxpy", quiet);
	fn = sample_kernel(&s, &mod, kernel_src, "saxpy");

	x = sample_malloc(&s, n * 4);
	y = sample_malloc(&s, n * 4);
	out = sample_malloc(&s, n * 4);
	for (i = 0; i < n; i++) {
		x[i] = sample_rand_float(i, 3) * 100.0f;
		y[i] = sample_rand_float(i, 4) * 100.0f;
	}
	CHECK(&s, tgpu_mem_alloc(s.ctx, &dx, n * 4));
	CHECK(&s, tgpu_mem_alloc(s.ctx, &dy, n * 4));
	CHECK(&s, tgpu_memcpy_htod(s.ctx, dx, x, n * 4));
	CHECK(&s, tgpu_memcpy_htod(s.ctx, dy, y, n * 4));

	p = (struct params){ .x = dx, .y = dy, .a = alpha, .n = (uint32_t)n };
	sample_timer_init(&s, &t);
	sample_timer_start(&s, &t, NULL);
	CHECK(&s, tgpu_launch_kernel(fn, sample_grid(n, BLOCK, MAX_BLOCKS), 1, 1,
				     BLOCK, 1, 1, 0, NULL, &p, sizeof(p)));
	ms = sample_timer_stop(&s, &t, NULL);
	CHECK(&s, tgpu_memcpy_dtoh(s.ctx, out, dy, n * 4));

	/*
	 * ffma computes a * x + y exactly and rounds once (IEEE-754
	 * fusedMultiplyAdd, to nearest even), as C's fmaf() does, and no
	 * input is subnormal: every element must be identical, bit for bit.
	 * (a * x + y written as two C operations would round twice and could
	 * differ in the last place: that is not the reference.)
	 */
	for (i = 0; i < n; i++) {
		float want = fmaf(alpha, x[i], y[i]);

		if (memcmp(&out[i], &want, 4)) {
			if (bad++ < 5)
				fprintf(stderr, "saxpy: y[%" PRIu64 "] = %.9g, expected %.9g * %.9g + %.9g = %.9g\n",
					i, out[i], alpha, x[i], y[i], want);
		}
	}
	if (bad)
		fprintf(stderr, "saxpy: %" PRIu64 " of %" PRIu64 " elements differ\n", bad, n);

	printf("saxpy: %" PRIu64 " floats, kernel %.3f ms (GPU), %.3f GFLOP/s, %.3f GB/s\n",
	       n, ms, 2.0 * n / (ms * 1e6), 12.0 * n / (ms * 1e6));
	sample_timer_destroy(&t);
	free(x);
	free(y);
	free(out);
	return sample_finish(&s, bad == 0);
}
