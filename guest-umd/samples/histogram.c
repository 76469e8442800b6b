// SPDX-License-Identifier: MIT
/*
 * histogram: a 256-bin histogram of n bytes on the GPU, checked against
 * the CPU.
 *
 *   histogram [-n BYTES] [-q]
 *
 * Each CTA counts its grid-stride share of the bytes into 256 bins in
 * shared memory (atoms.add), then adds its non-zero bins to the global
 * histogram (atomg.add).  Prints the kernel's GPU time (tgpu events) and
 * its read bandwidth (1 byte per element), then PASSED or FAILED; exits 0
 * only when every bin is exact.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>

#include "common.h"

#define BINS            256
#define BLOCK           BINS    /* thread t clears and merges bin t */
#define MAX_BLOCKS      1024

static const char kernel_src[] =
	".entry histogram\n"
	".param 20                      ; in, hist (u64), n (u32)\n"
	".shared 1024                   ; 256 bins\n"
	"	s2r	r0, tid.x\n"
	"	s2r	r1, ntid.x\n"
	"	s2r	r2, ctaid.x\n"
	"	imad	r3, r2, r1, r0          ; i = ctaid.x * ntid.x + tid.x\n"
	"	s2r	r4, nctaid.x\n"
	"	imul	r4, r4, r1              ; stride\n"
	"	ldc.64	r6, c[rz + 0]           ; in\n"
	"	ldc.32	r5, c[rz + 16]          ; n\n"
	"	shl	r14, r0, 2              ; &bin[tid]\n"
	"	sts.32	[r14], rz               ; clear the CTA's bins\n"
	"	bar	0\n"
	"	mov	r12, 1\n"
	"	ssy	merge\n"
	"loop:	usetp.ge p0, r3, r5\n"
	"	@p0 bra	done                    ; done lanes wait at sync\n"
	"	imad.wide r8, r3, r12, r6       ; &in[i]\n"
	"	ldg.u8	r10, [r8]\n"
	"	shl	r10, r10, 2\n"
	"	atoms.add rz, [r10], r12, rz    ; bin[in[i]] += 1\n"
	"	iadd	r3, r3, r4\n"
	"	bra	loop\n"
	"done:	sync\n"
	"merge:	bar	0\n"
	"	lds.32	r11, [r14]\n"
	"	usetp.eq p1, r11, 0\n"
	"	@p1 exit                        ; nothing to add\n"
	"	ldc.64	r8, c[rz + 8]\n"
	"	mov	r12, 4\n"
	"	imad.wide r8, r0, r12, r8       ; &hist[tid]\n"
	"	atomg.add rz, [r8], r11, rz\n"
	"	exit\n";

struct params {
	uint64_t in, hist;
	uint32_t n;
} __attribute__((packed));

static void usage(FILE *f)
{
	fprintf(f,
		"usage: histogram [-n BYTES] [-q]\n"
		"A 256-bin histogram of BYTES bytes (default 16M; k, M, G suffixes\n"
		"are x1024^n) on the GPU, checked against the CPU.  -q prints only the\n"
		"result line and PASSED/FAILED.  Exit status 0 when the check passed.\n");
}

int main(int argc, char **argv)
{
	uint32_t want[BINS] = { 0 }, got[BINS];
	uint64_t n = 16 << 20, i, total = 0;
	unsigned int bad = 0, b, peak = 0;
	struct sample_timer t;
	struct params p;
	struct sample s;
	tgpu_deviceptr din, dhist;
	tgpu_function *fn;
	tgpu_module *mod;
	bool quiet = false;
	uint8_t *in;
	double ms;
	int opt;

	opt = sample_parse_args(argc, argv, "histogram", usage, 1, 1u << 30, &n, &quiet);
	if (opt >= 0)
		return opt;

	sample_open(&s, "histogram", quiet);
	fn = sample_kernel(&s, &mod, kernel_src, "histogram");

	/* not uniform: the mean of two random bytes, a triangle over 0..255 */
	in = sample_malloc(&s, n);
	for (i = 0; i < n; i++) {
		uint32_t r = sample_rand(i, 8);

		in[i] = (uint8_t)(((r & 0xff) + ((r >> 8) & 0xff)) / 2);
		want[in[i]]++;
	}
	CHECK(&s, tgpu_mem_alloc(s.ctx, &din, n));
	CHECK(&s, tgpu_mem_alloc(s.ctx, &dhist, sizeof(got)));
	CHECK(&s, tgpu_memcpy_htod(s.ctx, din, in, n));
	CHECK(&s, tgpu_memset_d32(s.ctx, dhist, 0, BINS));

	p = (struct params){ .in = din, .hist = dhist, .n = (uint32_t)n };
	sample_timer_init(&s, &t);
	sample_timer_start(&s, &t, NULL);
	CHECK(&s, tgpu_launch_kernel(fn, sample_grid(n, BLOCK, MAX_BLOCKS), 1, 1,
				     BLOCK, 1, 1, 0, NULL, &p, sizeof(p)));
	ms = sample_timer_stop(&s, &t, NULL);
	CHECK(&s, tgpu_memcpy_dtoh(s.ctx, got, dhist, sizeof(got)));

	/* counting is integer work: every bin must be exact */
	for (b = 0; b < BINS; b++) {
		total += got[b];
		if (got[b] > got[peak])
			peak = b;
		if (got[b] != want[b] && bad++ < 5)
			fprintf(stderr, "histogram: bin %u has %u, expected %u\n",
				b, got[b], want[b]);
	}
	if (bad)
		fprintf(stderr, "histogram: %u of %u bins differ (%" PRIu64 " bytes counted of %" PRIu64 ")\n",
			bad, BINS, total, n);
	else if (!quiet)
		printf("histogram: %" PRIu64 " bytes counted, fullest bin %u (%u)\n",
		       total, peak, got[peak]);

	printf("histogram: %" PRIu64 " bytes, 256 bins, kernel %.3f ms (GPU), %.3f GB/s\n",
	       n, ms, (double)n / (ms * 1e6));
	sample_timer_destroy(&t);
	free(in);
	return sample_finish(&s, bad == 0);
}
