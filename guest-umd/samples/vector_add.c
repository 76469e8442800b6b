// SPDX-License-Identifier: MIT
/*
 * vector_add: c = a + b over n floats on the GPU, checked against the CPU.
 *
 *   vector_add [-n ELEMENTS] [-q]
 *
 * Prints the kernel's GPU time (tgpu events) and its memory bandwidth
 * (12 bytes per element: two loads, one store), then PASSED or FAILED;
 * exits 0 only when every element matches.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common.h"

#define BLOCK           256
#define MAX_BLOCKS      4096

/*
 * A grid-stride loop: thread i adds elements i, i + stride, ... where
 * stride is the number of threads in the grid.  A lane whose index has
 * passed n leaves with exit; the others go on.
 */
static const char kernel_src[] =
	".entry vector_add\n"
	".param 28                      ; a, b, c (u64), n (u32)\n"
	"	s2r	r0, ctaid.x\n"
	"	s2r	r1, ntid.x\n"
	"	s2r	r2, tid.x\n"
	"	imad	r3, r0, r1, r2          ; i = ctaid.x * ntid.x + tid.x\n"
	"	s2r	r4, nctaid.x\n"
	"	imul	r4, r4, r1              ; stride = nctaid.x * ntid.x\n"
	"	ldc.32	r5, c[rz + 24]          ; n\n"
	"	ldc.64	r6, c[rz + 0]           ; a\n"
	"	ldc.64	r8, c[rz + 8]           ; b\n"
	"	ldc.64	r10, c[rz + 16]         ; c\n"
	"	mov	r12, 4\n"
	"loop:	usetp.ge p0, r3, r5\n"
	"	@p0 exit\n"
	"	imad.wide r14, r3, r12, r6      ; &a[i]\n"
	"	imad.wide r16, r3, r12, r8      ; &b[i]\n"
	"	imad.wide r18, r3, r12, r10     ; &c[i]\n"
	"	ldg.32	r20, [r14]\n"
	"	ldg.32	r21, [r16]\n"
	"	fadd	r20, r20, r21\n"
	"	stg.32	[r18], r20\n"
	"	iadd	r3, r3, r4\n"
	"	bra	loop\n";

struct params {
	uint64_t a, b, c;
	uint32_t n;
} __attribute__((packed));

static void usage(FILE *f)
{
	fprintf(f,
		"usage: vector_add [-n ELEMENTS] [-q]\n"
		"c = a + b over ELEMENTS floats (default 4M; k, M, G suffixes are\n"
		"x1024^n) on the GPU, checked against the CPU.  -q prints only the\n"
		"result line and PASSED/FAILED.  Exit status 0 when the check passed.\n");
}

int main(int argc, char **argv)
{
	uint64_t n = 4 << 20, bad = 0, i;
	struct sample_timer t;
	struct params p;
	struct sample s;
	tgpu_deviceptr da, db, dc;
	tgpu_function *fn;
	tgpu_module *mod;
	float *a, *b, *c;
	bool quiet = false;
	double ms;
	int opt;

	opt = sample_parse_args(argc, argv, "vector_add", usage, 1, 1u << 28, &n, &quiet);
	if (opt >= 0)
		return opt;

	sample_open(&s, "vector_add", quiet);
	fn = sample_kernel(&s, &mod, kernel_src, "vector_add");

	a = sample_malloc(&s, n * 4);
	b = sample_malloc(&s, n * 4);
	c = sample_malloc(&s, n * 4);
	for (i = 0; i < n; i++) {
		a[i] = sample_rand_float(i, 1) * 1000.0f;
		b[i] = sample_rand_float(i, 2) * 1000.0f;
	}
	CHECK(&s, tgpu_mem_alloc(s.ctx, &da, n * 4));
	CHECK(&s, tgpu_mem_alloc(s.ctx, &db, n * 4));
	CHECK(&s, tgpu_mem_alloc(s.ctx, &dc, n * 4));
	CHECK(&s, tgpu_memcpy_htod(s.ctx, da, a, n * 4));
	CHECK(&s, tgpu_memcpy_htod(s.ctx, db, b, n * 4));
	/* a result that is not written stays NaN and fails the check */
	CHECK(&s, tgpu_memset_d32(s.ctx, dc, 0x7fc00000, n));

	p = (struct params){ .a = da, .b = db, .c = dc, .n = (uint32_t)n };
	sample_timer_init(&s, &t);
	sample_timer_start(&s, &t, NULL);
	CHECK(&s, tgpu_launch_kernel(fn, sample_grid(n, BLOCK, MAX_BLOCKS), 1, 1,
				     BLOCK, 1, 1, 0, NULL, &p, sizeof(p)));
	ms = sample_timer_stop(&s, &t, NULL);
	CHECK(&s, tgpu_memcpy_dtoh(s.ctx, c, dc, n * 4));

	/*
	 * fadd is an IEEE-754 single addition rounded to nearest even, as the
	 * CPU's float addition is (SSE, no excess precision on x86-64), and
	 * no input is subnormal: every sum must be identical, bit for bit.
	 */
	for (i = 0; i < n; i++) {
		float want = a[i] + b[i];

		if (memcmp(&c[i], &want, 4)) {
			if (bad++ < 5)
				fprintf(stderr, "vector_add: c[%" PRIu64 "] = %.9g, expected %.9g + %.9g = %.9g\n",
					i, c[i], a[i], b[i], want);
		}
	}
	if (bad)
		fprintf(stderr, "vector_add: %" PRIu64 " of %" PRIu64 " elements differ\n", bad, n);

	printf("vector_add: %" PRIu64 " floats, kernel %.3f ms (GPU), %.3f GB/s\n",
	       n, ms, 12.0 * n / (ms * 1e6));
	sample_timer_destroy(&t);
	free(a);
	free(b);
	free(c);
	return sample_finish(&s, bad == 0);
}
