// SPDX-License-Identifier: MIT
/*
 * multistream: a copy -> compute -> copy pipeline over several streams.
 *
 *   multistream [-n ELEMENTS] [-s STREAMS] [-c CHUNKS] [-q]
 *
 * The array (pinned host memory) is cut into chunks; chunk i goes to the
 * device (copy engine 0), through a kernel y = a * x + b (the compute
 * engine) and back (copy engine 1), all on stream i % STREAMS.  With one
 * stream the three steps of every chunk run one after another; with
 * several, one chunk's copies can run while another's kernel does.  The
 * whole pipeline is timed with tgpu events (GPU time) once on 1 stream
 * and once on STREAMS streams, after an untimed warm-up run, and each
 * run's output is checked against the CPU.  Prints both times and their ratio (the overlap), then PASSED
 * or FAILED; exits 0 only when both outputs are exact.  The ratio is a
 * measurement, not part of the check.
 */
#include <getopt.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common.h"

#define BLOCK           256
#define MAX_BLOCKS      1024
#define MAX_STREAMS     16

static const char kernel_src[] =
	".entry axpb\n"
	".param 28                      ; x, y (u64), a, b (f32), n (u32)\n"
	"	s2r	r0, ctaid.x\n"
	"	s2r	r1, ntid.x\n"
	"	s2r	r2, tid.x\n"
	"	imad	r3, r0, r1, r2          ; i = ctaid.x * ntid.x + tid.x\n"
	"	s2r	r4, nctaid.x\n"
	"	imul	r4, r4, r1              ; stride\n"
	"	ldc.64	r6, c[rz + 0]           ; x\n"
	"	ldc.64	r8, c[rz + 8]           ; y\n"
	"	ldc.32	r10, c[rz + 16]         ; a\n"
	"	ldc.32	r11, c[rz + 20]         ; b\n"
	"	ldc.32	r5, c[rz + 24]          ; n\n"
	"	mov	r12, 4\n"
	"loop:	usetp.ge p0, r3, r5\n"
	"	@p0 exit\n"
	"	imad.wide r14, r3, r12, r6\n"
	"	imad.wide r16, r3, r12, r8\n"
	"	ldg.32	r18, [r14]\n"
	"	ffma	r18, r18, r10, r11      ; y[i] = x[i] * a + b\n"
	"	stg.32	[r16], r18\n"
	"	iadd	r3, r3, r4\n"
	"	bra	loop\n";

struct params {
	uint64_t x, y;
	float a, b;
	uint32_t n;
} __attribute__((packed));

struct pipe {
	struct sample s;
	tgpu_function *fn;
	uint64_t n, chunks;
	float *in, *out;                /* pinned */
	tgpu_deviceptr din, dout;
	tgpu_stream *stream[MAX_STREAMS];
	tgpu_event *start[MAX_STREAMS], *stop[MAX_STREAMS];
};

static const float alpha = 1.75f, beta = -0.5f;

/* Run the pipeline on nstreams streams; GPU ms; *ok: the output exact. */
static double run(struct pipe *p, unsigned int nstreams, bool *ok)
{
	tgpu_context *ctx = p->s.ctx;
	uint64_t per = (p->n + p->chunks - 1) / p->chunks, c, i, bad = 0;
	float t, first = 0, last = 0;
	unsigned int k;

	memset(p->out, 0, p->n * 4);
	/* an element no chunk writes stays NaN and fails the check */
	CHECK(&p->s, tgpu_memset_d32(ctx, p->dout, 0x7fc00000, p->n));

	/*
	 * Each stream records its own start and stop; the time is from the
	 * first start to the last stop.  No stream waits for another: that
	 * would time the dependency too.
	 */
	for (k = 0; k < nstreams; k++)
		CHECK(&p->s, tgpu_event_record(p->start[k], p->stream[k]));
	for (c = 0; c * per < p->n; c++) {
		uint64_t off = c * per, len = p->n - off < per ? p->n - off : per;
		tgpu_stream *st = p->stream[c % nstreams];
		struct params prm = {
			.x = p->din + off * 4, .y = p->dout + off * 4,
			.a = alpha, .b = beta, .n = (uint32_t)len,
		};

		CHECK(&p->s, tgpu_memcpy_htod_async(ctx, prm.x, p->in + off, len * 4, st));
		CHECK(&p->s, tgpu_launch_kernel(p->fn, sample_grid(len, BLOCK, MAX_BLOCKS),
						1, 1, BLOCK, 1, 1, 0, st, &prm, sizeof(prm)));
		CHECK(&p->s, tgpu_memcpy_dtoh_async(ctx, p->out + off, prm.y, len * 4, st));
	}
	for (k = 0; k < nstreams; k++)
		CHECK(&p->s, tgpu_event_record(p->stop[k], p->stream[k]));
	for (k = 0; k < nstreams; k++) {
		CHECK(&p->s, tgpu_event_synchronize(p->stop[k]));
		/* relative to stream 0's start */
		CHECK(&p->s, tgpu_event_elapsed_time(&t, p->start[0], p->start[k]));
		if (t < first)
			first = t;
		CHECK(&p->s, tgpu_event_elapsed_time(&t, p->start[0], p->stop[k]));
		if (t > last)
			last = t;
	}

	/*
	 * ffma rounds x * a + b once, as fmaf() does, and no input is
	 * subnormal: every element must be identical, bit for bit.
	 */
	for (i = 0; i < p->n; i++) {
		float want = fmaf(p->in[i], alpha, beta);

		if (memcmp(&p->out[i], &want, 4) && bad++ < 5)
			fprintf(stderr, "multistream: %u stream(s): y[%" PRIu64 "] = %.9g, expected %.9g\n",
				nstreams, i, p->out[i], want);
	}
	if (bad)
		fprintf(stderr, "multistream: %u stream(s): %" PRIu64 " of %" PRIu64 " elements differ\n",
			nstreams, bad, p->n);
	*ok = bad == 0;
	return last - first;
}

static void usage(FILE *f)
{
	fprintf(f,
		"usage: multistream [-n ELEMENTS] [-s STREAMS] [-c CHUNKS] [-q]\n"
		"Copy in, compute, copy out ELEMENTS floats (default 4M; k, M, G\n"
		"suffixes are x1024^n) in CHUNKS chunks (default 16), chunk i on\n"
		"stream i %% STREAMS (default 4, at most %d); timed on 1 stream, then on\n"
		"STREAMS streams, each run checked against the CPU.  -q prints only the\n"
		"result line and PASSED/FAILED.  Exit status 0 when both checks passed.\n",
		MAX_STREAMS);
}

int main(int argc, char **argv)
{
	uint64_t nstreams = 4, i;
	double ms1, msn;
	bool quiet = false, ok0, ok1, okn;
	struct pipe p;
	tgpu_module *mod;
	int opt;

	memset(&p, 0, sizeof(p));
	p.n = 4 << 20;
	p.chunks = 16;
	while ((opt = getopt(argc, argv, "n:s:c:qh")) != -1) {
		switch (opt) {
		case 'n':
			if (!sample_parse_size("multistream", "-n", optarg, 1, 1u << 28, &p.n))
				return 2;
			break;
		case 's':
			if (!sample_parse_size("multistream", "-s", optarg, 1, MAX_STREAMS, &nstreams))
				return 2;
			break;
		case 'c':
			if (!sample_parse_size("multistream", "-c", optarg, 1, 4096, &p.chunks))
				return 2;
			break;
		case 'q':
			quiet = true;
			break;
		case 'h':
			usage(stdout);
			return 0;
		default:
			usage(stderr);
			return 2;
		}
	}
	if (optind != argc) {
		usage(stderr);
		return 2;
	}
	if (p.chunks > p.n)
		p.chunks = p.n;

	sample_open(&p.s, "multistream", quiet);
	p.fn = sample_kernel(&p.s, &mod, kernel_src, "axpb");
	for (i = 0; i < nstreams; i++) {
		CHECK(&p.s, tgpu_stream_create(p.s.ctx, &p.stream[i], 0, 0));
		CHECK(&p.s, tgpu_event_create(p.s.ctx, &p.start[i], 0));
		CHECK(&p.s, tgpu_event_create(p.s.ctx, &p.stop[i], 0));
	}
	/* asynchronous copies overlap only from pinned memory */
	CHECK(&p.s, tgpu_mem_alloc_host(p.s.ctx, (void **)&p.in, p.n * 4));
	CHECK(&p.s, tgpu_mem_alloc_host(p.s.ctx, (void **)&p.out, p.n * 4));
	CHECK(&p.s, tgpu_mem_alloc(p.s.ctx, &p.din, p.n * 4));
	CHECK(&p.s, tgpu_mem_alloc(p.s.ctx, &p.dout, p.n * 4));
	for (i = 0; i < p.n; i++)
		p.in[i] = sample_rand_float(i, 9) * 10.0f;

	/*
	 * A warm-up run, not timed: it makes every stream's kernel queues
	 * (libtgpu creates them at a stream's first use of each engine), so
	 * neither timed run pays for that.  Its output is checked too.
	 */
	run(&p, (unsigned int)nstreams, &ok0);
	ms1 = run(&p, 1, &ok1);
	if (!quiet)
		printf("multistream: 1 stream:  %.3f ms (GPU), %.3f GB/s through the pipeline\n",
		       ms1, 8.0 * p.n / (ms1 * 1e6));
	msn = run(&p, (unsigned int)nstreams, &okn);
	if (!quiet)
		printf("multistream: %" PRIu64 " streams: %.3f ms (GPU), %.3f GB/s through the pipeline\n",
		       nstreams, msn, 8.0 * p.n / (msn * 1e6));

	printf("multistream: %" PRIu64 " floats in %" PRIu64 " chunks: 1 stream %.3f ms, %" PRIu64
	       " streams %.3f ms (GPU), overlap speed-up %.2fx\n",
	       p.n, p.chunks, ms1, nstreams, msn, msn > 0 ? ms1 / msn : 0);
	return sample_finish(&p.s, ok0 && ok1 && okn);
}
