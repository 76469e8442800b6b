// SPDX-License-Identifier: MIT
/*
 * sgemm: C = A x B for n x n row-major float matrices on the GPU, tiled
 * through shared memory, checked against a CPU reference.
 *
 *   sgemm [-n N] [-q]
 *
 * Prints the kernel's GPU time (tgpu events) and GFLOP/s (2 n^3 flops),
 * then PASSED or FAILED; exits 0 only when every element is within the
 * error bound of the reference (below).
 */
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common.h"

#define TILE 16

/*
 * One 16 x 16 CTA computes a 16 x 16 tile of C.  For each 16-wide slice
 * of k, every thread loads one element of A's and one of B's tile into
 * shared memory (As at byte 0, Bs at byte 1024, 64 bytes a row; elements
 * outside the matrix load as 0), bar 0, then accumulates its row of As
 * times its column of Bs (16 ffma, unrolled), bar 0 before the next slice
 * overwrites the tiles.  The slice loop is uniform over the CTA, so every
 * warp reaches every barrier; bounds are guards, not branches.
 */
#define STEP(as, bs)							\
	"	lds.32	r23, [r12 + " #as "]     ; As[ty][k]\n"		\
	"	lds.32	r24, [r13 + " #bs "]     ; Bs[k][tx]\n"		\
	"	ffma	r15, r23, r24, r15\n"

static const char kernel_src[] =
	".entry sgemm\n"
	".param 28                      ; A, B, C (u64), n (u32)\n"
	".shared 2048                   ; As[16][16], Bs[16][16]\n"
	"	s2r	r0, tid.x               ; tx\n"
	"	s2r	r1, tid.y               ; ty\n"
	"	s2r	r2, ctaid.x\n"
	"	s2r	r3, ctaid.y\n"
	"	ldc.32	r4, c[rz + 24]          ; n\n"
	"	shl	r5, r3, 4\n"
	"	iadd	r5, r5, r1              ; row = ctaid.y * 16 + ty\n"
	"	shl	r6, r2, 4\n"
	"	iadd	r6, r6, r0              ; col = ctaid.x * 16 + tx\n"
	"	ldc.64	r8, c[rz + 0]           ; A\n"
	"	ldc.64	r10, c[rz + 8]          ; B\n"
	"	shl	r12, r1, 6              ; ty * 64: row ty of As\n"
	"	shl	r13, r0, 2              ; tx * 4: column tx of Bs (+ 1024)\n"
	"	iadd	r14, r12, r13           ; this thread's element of a tile\n"
	"	mov	r15, 0                  ; acc = 0.0f\n"
	"	mov	r16, 0                  ; k0: the slice\n"
	"	mov	r30, 4\n"
	"	usetp.lt p1, r5, r4             ; row < n\n"
	"	usetp.lt p2, r6, r4             ; col < n\n"
	"slice:	iadd	r17, r16, r0            ; A[row][k0 + tx]\n"
	"	usetp.lt p3, r17, r4\n"
	"	plop.and p3, p3, p1\n"
	"	imad	r18, r5, r4, r17\n"
	"	imad.wide r20, r18, r30, r8\n"
	"	mov	r22, 0\n"
	"	@p3 ldg.32 r22, [r20]\n"
	"	sts.32	[r14], r22\n"
	"	iadd	r17, r16, r1            ; B[k0 + ty][col]\n"
	"	usetp.lt p3, r17, r4\n"
	"	plop.and p3, p3, p2\n"
	"	imad	r18, r17, r4, r6\n"
	"	imad.wide r20, r18, r30, r10\n"
	"	mov	r22, 0\n"
	"	@p3 ldg.32 r22, [r20]\n"
	"	sts.32	[r14 + 1024], r22\n"
	"	bar	0\n"
	STEP(0, 1024) STEP(4, 1088) STEP(8, 1152) STEP(12, 1216)
	STEP(16, 1280) STEP(20, 1344) STEP(24, 1408) STEP(28, 1472)
	STEP(32, 1536) STEP(36, 1600) STEP(40, 1664) STEP(44, 1728)
	STEP(48, 1792) STEP(52, 1856) STEP(56, 1920) STEP(60, 1984)
	"	bar	0\n"
	"	iadd	r16, r16, 16\n"
	"	usetp.lt p0, r16, r4\n"
	"	@p0 bra	slice\n"
	"	plop.and p3, p1, p2\n"
	"	@!p3 exit\n"
	"	ldc.64	r8, c[rz + 16]          ; C[row][col] = acc\n"
	"	imad	r18, r5, r4, r6\n"
	"	imad.wide r20, r18, r30, r8\n"
	"	stg.32	[r20], r15\n"
	"	exit\n";

struct params {
	uint64_t a, b, c;
	uint32_t n;
} __attribute__((packed));

static void usage(FILE *f)
{
	fprintf(f,
		"usage: sgemm [-n N] [-q]\n"
		"C = A x B for N x N floats (default 256) on the GPU, in 16 x 16\n"
		"shared-memory tiles, checked against the CPU.  -q prints only the\n"
		"result line and PASSED/FAILED.  Exit status 0 when the check passed.\n");
}

int main(int argc, char **argv)
{
	uint64_t n = 256, bad = 0, i, j, k;
	double *ref, *mag, worst = 0;
	struct sample_timer t;
	struct params p;
	struct sample s;
	tgpu_deviceptr da, db, dc;
	tgpu_function *fn;
	tgpu_module *mod;
	float *a, *b, *c;
	bool quiet = false;
	double ms, gamma;
	unsigned int grid;
	int opt;

	opt = sample_parse_args(argc, argv, "sgemm", usage, 1, 4096, &n, &quiet);
	if (opt >= 0)
		return opt;

	sample_open(&s, "sgemm", quiet);
	fn = sample_kernel(&s, &mod, kernel_src, "sgemm");

	a = sample_malloc(&s, n * n * 4);
	b = sample_malloc(&s, n * n * 4);
	c = sample_malloc(&s, n * n * 4);
	for (i = 0; i < n * n; i++) {
		a[i] = sample_rand_float(i, 5);
		b[i] = sample_rand_float(i, 6);
	}
	CHECK(&s, tgpu_mem_alloc(s.ctx, &da, n * n * 4));
	CHECK(&s, tgpu_mem_alloc(s.ctx, &db, n * n * 4));
	CHECK(&s, tgpu_mem_alloc(s.ctx, &dc, n * n * 4));
	CHECK(&s, tgpu_memcpy_htod(s.ctx, da, a, n * n * 4));
	CHECK(&s, tgpu_memcpy_htod(s.ctx, db, b, n * n * 4));
	/* an element that is not written stays NaN and fails the check */
	CHECK(&s, tgpu_memset_d32(s.ctx, dc, 0x7fc00000, n * n));

	p = (struct params){ .a = da, .b = db, .c = dc, .n = (uint32_t)n };
	grid = (unsigned int)((n + TILE - 1) / TILE);
	sample_timer_init(&s, &t);
	sample_timer_start(&s, &t, NULL);
	CHECK(&s, tgpu_launch_kernel(fn, grid, grid, 1, TILE, TILE, 1, 0, NULL,
				     &p, sizeof(p)));
	ms = sample_timer_stop(&s, &t, NULL);
	CHECK(&s, tgpu_memcpy_dtoh(s.ctx, c, dc, n * n * 4));

	/*
	 * The reference, in double: each product of two floats is exact in
	 * double, and the sum's own error (at most n * 2^-53 * sum |a b|) is
	 * negligible next to the float one.  The GPU sums its n terms in
	 * order with ffma, one rounding per step (the tiles' zero padding
	 * adds exact zeros), so by the standard bound for recursive
	 * summation (Higham, Accuracy and Stability of Numerical Algorithms,
	 * 3.1) its error is at most gamma_n * sum_k |a_ik b_kj|, with
	 * gamma_n = n u / (1 - n u), u = 2^-24.  Every element must be within
	 * that plus the reference's own bound.  A wrong index or a lost tile
	 * is off by the size of whole terms, far above it.
	 */
	gamma = n * 0x1p-24 / (1 - n * 0x1p-24) + n * 0x1p-52;
	ref = sample_malloc(&s, n * sizeof(double));
	mag = sample_malloc(&s, n * sizeof(double));
	for (i = 0; i < n; i++) {
		memset(ref, 0, n * sizeof(double));
		memset(mag, 0, n * sizeof(double));
		for (k = 0; k < n; k++) {
			double aik = a[i * n + k];
			const float *brow = &b[k * n];

			for (j = 0; j < n; j++) {
				ref[j] += aik * brow[j];
				mag[j] += fabs(aik * brow[j]);
			}
		}
		for (j = 0; j < n; j++) {
			double got = c[i * n + j], err = fabs(got - ref[j]);
			double tol = gamma * mag[j];

			if (!(err <= tol)) {
				if (bad++ < 5)
					fprintf(stderr, "sgemm: C[%" PRIu64 "][%" PRIu64 "] = %.9g, expected %.9g (error %.3g, bound %.3g)\n",
						i, j, got, ref[j], err, tol);
			} else if (tol > 0 && err / tol > worst) {
				worst = err / tol;
			}
		}
	}
	if (bad)
		fprintf(stderr, "sgemm: %" PRIu64 " of %" PRIu64 " elements outside the error bound\n",
			bad, n * n);
	else if (!quiet)
		printf("sgemm: largest error %.1f%% of its bound\n", worst * 100);

	printf("sgemm: %" PRIu64 " x %" PRIu64 ", kernel %.3f ms (GPU), %.3f GFLOP/s\n",
	       n, n, ms, 2.0 * n * n * n / (ms * 1e6));
	sample_timer_destroy(&t);
	free(ref);
	free(mag);
	free(a);
	free(b);
	free(c);
	return sample_finish(&s, bad == 0);
}
