// SPDX-License-Identifier: MIT
/*
 * bandwidth: copy bandwidth between host and device memory, for sizes
 * from 4 KiB up to 64 MiB.
 *
 *   bandwidth [-n MAXSIZE] [-q] [--csv]
 *
 * For each size: H2D, D2H and D2D copies, the host side pinned
 * (tgpu_mem_alloc_host: the copy engine reaches it directly) and pageable
 * (malloc: libtgpu stages it through pinned buffers); and H2D and D2H at
 * once on two streams (pinned), which libtgpu puts on copy engines 0 and
 * 1, against one engine alone.  Each row repeats its copy until 64 MiB
 * have moved (at most 256 times) and is timed with tgpu events (GPU
 * time: for pageable copies that includes the staging).  Each row's
 * result is checked byte for byte once.  Prints a table (or CSV), a
 * summary line for the largest size, then PASSED or FAILED; exits 0 only
 * when every check passed.
 */
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common.h"

#define MIN_SIZE        4096u
#define ROW_BYTES       (64u << 20)     /* bytes a row moves, in at most MAX_REPS copies */
#define MAX_REPS        256

enum dir { H2D, D2H, D2D, BIDIR };

static const char *const dir_name[] = {
	[H2D] = "H2D", [D2H] = "D2H", [D2D] = "D2D", [BIDIR] = "H2D+D2H",
};

struct bw {
	struct sample s;
	bool csv;
	tgpu_stream *s1, *s2;
	tgpu_event *e_start, *e_stop, *e_start2, *e_stop2;
	tgpu_deviceptr dev[2];
	uint8_t *pinned[2];     /* tgpu_mem_alloc_host */
	uint8_t *pageable[2];   /* malloc */
	uint8_t *check;         /* malloc: device data read back */
	uint32_t seed;
	bool all_ok;
	/* the largest size's pinned figures, for the summary */
	double last_gbps[4];
};

/* A different pattern for each seed, so stale data never passes. */
static void fill(uint8_t *p, size_t n, uint32_t seed)
{
	uint32_t x = seed * 0x9e3779b9u | 1, w;
	size_t i;

	for (i = 0; i + 4 <= n; i += 4) {
		x ^= x << 13;
		x ^= x >> 17;
		x ^= x << 5;
		memcpy(p + i, &x, 4);
	}
	for (w = x; i < n; i++, w >>= 8)
		p[i] = (uint8_t)w;
}

/* Elapsed GPU ms between two recorded events, after the second is done. */
static double elapsed(struct bw *b, tgpu_event *start, tgpu_event *stop)
{
	float ms;

	CHECK(&b->s, tgpu_event_synchronize(stop));
	CHECK(&b->s, tgpu_event_elapsed_time(&ms, start, stop));
	return ms;
}

/* From the earlier start to the later stop of the two streams, in ms. */
static double span(struct bw *b)
{
	float start2, stop1, stop2;

	CHECK(&b->s, tgpu_event_synchronize(b->e_stop));
	CHECK(&b->s, tgpu_event_synchronize(b->e_stop2));
	/* all relative to s1's start */
	CHECK(&b->s, tgpu_event_elapsed_time(&start2, b->e_start, b->e_start2));
	CHECK(&b->s, tgpu_event_elapsed_time(&stop1, b->e_start, b->e_stop));
	CHECK(&b->s, tgpu_event_elapsed_time(&stop2, b->e_start, b->e_stop2));
	return (stop1 > stop2 ? stop1 : stop2) - (start2 < 0 ? start2 : 0);
}

/* Compare n bytes; on a difference say where, and return false. */
static bool same(struct bw *b, const char *what, const uint8_t *got,
		 const uint8_t *want, size_t n)
{
	size_t i;

	if (!memcmp(got, want, n))
		return true;
	for (i = 0; got[i] == want[i]; i++)
		;
	fprintf(stderr, "%s: %s: byte %zu of %zu is 0x%02x, expected 0x%02x\n",
		b->s.name, what, i, n, got[i], want[i]);
	return false;
}

static void human(char *buf, size_t len, size_t n)
{
	if (n >= (1u << 20) && n % (1u << 20) == 0)
		snprintf(buf, len, "%zu MiB", n >> 20);
	else if (n >= 1024 && n % 1024 == 0)
		snprintf(buf, len, "%zu KiB", n >> 10);
	else
		snprintf(buf, len, "%zu B", n);
}

static void run_row(struct bw *b, enum dir d, bool pinned, size_t size,
		    bool last)
{
	tgpu_context *ctx = b->s.ctx;
	unsigned int reps = ROW_BYTES / size, r;
	uint8_t *host, *src;
	uint32_t seed = ++b->seed;
	const char *mem = d == D2D ? "device" : pinned ? "pinned" : "pageable";
	char what[64], sz[32];
	double ms, bytes, gbps;
	bool ok = true;

	if (reps < 1)
		reps = 1;
	if (reps > MAX_REPS)
		reps = MAX_REPS;
	human(sz, sizeof(sz), size);
	snprintf(what, sizeof(what), "%s %s %s", dir_name[d], mem, sz);

	switch (d) {
	case H2D:
		host = pinned ? b->pinned[0] : b->pageable[0];
		fill(host, size, seed);
		CHECK(&b->s, tgpu_memset_d8_async(ctx, b->dev[0], 0, size, b->s1));
		CHECK(&b->s, tgpu_event_record(b->e_start, b->s1));
		for (r = 0; r < reps; r++)
			CHECK(&b->s, tgpu_memcpy_htod_async(ctx, b->dev[0], host, size, b->s1));
		CHECK(&b->s, tgpu_event_record(b->e_stop, b->s1));
		ms = elapsed(b, b->e_start, b->e_stop);
		CHECK(&b->s, tgpu_memcpy_dtoh(ctx, b->check, b->dev[0], size));
		ok = same(b, what, b->check, host, size);
		bytes = (double)size * reps;
		break;
	case D2H:
		src = b->pageable[0];
		fill(src, size, seed);
		CHECK(&b->s, tgpu_memcpy_htod(ctx, b->dev[0], src, size));
		host = pinned ? b->pinned[1] : b->pageable[1];
		memset(host, 0, size);
		CHECK(&b->s, tgpu_event_record(b->e_start, b->s1));
		for (r = 0; r < reps; r++)
			CHECK(&b->s, tgpu_memcpy_dtoh_async(ctx, host, b->dev[0], size, b->s1));
		CHECK(&b->s, tgpu_event_record(b->e_stop, b->s1));
		ms = elapsed(b, b->e_start, b->e_stop);
		ok = same(b, what, host, src, size);
		bytes = (double)size * reps;
		break;
	case D2D:
		src = b->pageable[0];
		fill(src, size, seed);
		CHECK(&b->s, tgpu_memcpy_htod(ctx, b->dev[0], src, size));
		CHECK(&b->s, tgpu_memset_d8_async(ctx, b->dev[1], 0, size, b->s1));
		CHECK(&b->s, tgpu_event_record(b->e_start, b->s1));
		for (r = 0; r < reps; r++)
			CHECK(&b->s, tgpu_memcpy_dtod_async(ctx, b->dev[1], b->dev[0], size, b->s1));
		CHECK(&b->s, tgpu_event_record(b->e_stop, b->s1));
		ms = elapsed(b, b->e_start, b->e_stop);
		CHECK(&b->s, tgpu_memcpy_dtoh(ctx, b->check, b->dev[1], size));
		ok = same(b, what, b->check, src, size);
		/*
		 * bytes copied; the engine reads and writes each one (CUDA's
		 * bandwidthTest counts both, so its D2D figures are twice these)
		 */
		bytes = (double)size * reps;
		break;
	case BIDIR:
		/*
		 * H2D pinned[0] -> dev[1] on s1 (copy engine 0) while D2H
		 * dev[0] -> pinned[1] runs on s2 (copy engine 1).  Each stream
		 * records its own start and stop: the time is from the first
		 * start to the last stop (no stream waits for the other, so
		 * no cross-queue dependency is timed).
		 */
		src = b->pageable[0];
		fill(src, size, seed);
		CHECK(&b->s, tgpu_memcpy_htod(ctx, b->dev[0], src, size));
		fill(b->pinned[0], size, seed + 0x10000);
		memset(b->pinned[1], 0, size);
		CHECK(&b->s, tgpu_memset_d8(ctx, b->dev[1], 0, size));
		CHECK(&b->s, tgpu_event_record(b->e_start, b->s1));
		CHECK(&b->s, tgpu_event_record(b->e_start2, b->s2));
		for (r = 0; r < reps; r++) {
			CHECK(&b->s, tgpu_memcpy_htod_async(ctx, b->dev[1], b->pinned[0], size, b->s1));
			CHECK(&b->s, tgpu_memcpy_dtoh_async(ctx, b->pinned[1], b->dev[0], size, b->s2));
		}
		CHECK(&b->s, tgpu_event_record(b->e_stop, b->s1));
		CHECK(&b->s, tgpu_event_record(b->e_stop2, b->s2));
		ms = span(b);
		ok = same(b, "H2D+D2H pinned: the D2H", b->pinned[1], src, size);
		CHECK(&b->s, tgpu_memcpy_dtoh(ctx, b->check, b->dev[1], size));
		ok &= same(b, "H2D+D2H pinned: the H2D", b->check, b->pinned[0], size);
		bytes = 2.0 * size * reps;
		break;
	default:
		abort();
	}

	gbps = ms > 0 ? bytes / (ms * 1e6) : 0;
	b->all_ok &= ok;
	if (last && pinned)
		b->last_gbps[d] = gbps;
	if (b->csv)
		printf("%s,%s,%d,%zu,%u,%.4f,%.4f,%s\n", dir_name[d], mem,
		       d == BIDIR ? 2 : 1, size,
		       reps, ms, gbps, ok ? "ok" : "FAILED");
	else
		printf("%-8s %-9s %7d %8s %5u %10.3f %8.3f  %s\n", dir_name[d], mem,
		       d == BIDIR ? 2 : 1, sz,
		       reps, ms, gbps, ok ? "ok" : "FAILED");
	fflush(stdout);
}

static void usage(FILE *f)
{
	fprintf(f,
		"usage: bandwidth [-n MAXSIZE] [-q] [--csv]\n"
		"Copy bandwidth H2D, D2H, D2D, pinned and pageable, one engine and\n"
		"H2D + D2H on both at once, for 4 KiB, 64 KiB, 1 MiB, 16 MiB, 64 MiB up\n"
		"to MAXSIZE (default 64M; k, M, G suffixes are x1024^n).  --csv prints\n"
		"CSV rows instead of the table; -q leaves out the device line and the\n"
		"header.  Exit status 0 when every copy was byte-exact.\n");
}

int main(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "csv", no_argument, NULL, 'c' },
		{ "help", no_argument, NULL, 'h' },
		{ 0 },
	};
	static const size_t sizes[] = { 4u << 10, 64u << 10, 1u << 20, 16u << 20, 64u << 20 };
	size_t list[8], nsizes = 0, i;
	uint64_t max = 64u << 20;
	bool quiet = false;
	struct bw b;
	int opt;

	memset(&b, 0, sizeof(b));
	while ((opt = getopt_long(argc, argv, "n:qh", longopts, NULL)) != -1) {
		switch (opt) {
		case 'n':
			if (!sample_parse_size("bandwidth", "-n", optarg, MIN_SIZE, 1u << 30, &max))
				return 2;
			break;
		case 'q':
			quiet = true;
			break;
		case 'c':
			b.csv = true;
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
	for (i = 0; i < sizeof(sizes) / sizeof(sizes[0]) && sizes[i] < max; i++)
		list[nsizes++] = sizes[i];
	list[nsizes++] = max;

	sample_open(&b.s, "bandwidth", quiet || b.csv);
	b.all_ok = true;
	CHECK(&b.s, tgpu_stream_create(b.s.ctx, &b.s1, 0, 0));
	CHECK(&b.s, tgpu_stream_create(b.s.ctx, &b.s2, 0, 0));
	CHECK(&b.s, tgpu_event_create(b.s.ctx, &b.e_start, 0));
	CHECK(&b.s, tgpu_event_create(b.s.ctx, &b.e_stop, 0));
	CHECK(&b.s, tgpu_event_create(b.s.ctx, &b.e_start2, 0));
	CHECK(&b.s, tgpu_event_create(b.s.ctx, &b.e_stop2, 0));
	for (i = 0; i < 2; i++) {
		CHECK(&b.s, tgpu_mem_alloc(b.s.ctx, &b.dev[i], max));
		CHECK(&b.s, tgpu_mem_alloc_host(b.s.ctx, (void **)&b.pinned[i], max));
		b.pageable[i] = sample_malloc(&b.s, max);
	}
	b.check = sample_malloc(&b.s, max);

	if (b.csv)
		printf("direction,memory,engines,bytes,reps,ms,gbps,check\n");
	else if (!quiet)
		printf("%-8s %-9s %7s %8s %5s %10s %8s  %s\n", "copy", "memory",
		       "engines", "size", "reps", "GPU ms", "GB/s", "check");
	for (i = 0; i < nsizes; i++) {
		bool last = i == nsizes - 1;

		run_row(&b, H2D, true, list[i], last);
		run_row(&b, H2D, false, list[i], last);
		run_row(&b, D2H, true, list[i], last);
		run_row(&b, D2H, false, list[i], last);
		run_row(&b, D2D, true, list[i], last);
		run_row(&b, BIDIR, true, list[i], last);
	}
	if (!b.csv) {
		char sz[32];
		double one = (b.last_gbps[H2D] + b.last_gbps[D2H]) / 2;

		human(sz, sizeof(sz), max);
		printf("bandwidth: %s pinned: H2D %.3f GB/s, D2H %.3f GB/s, D2D %.3f GB/s, "
		       "H2D+D2H %.3f GB/s (%.2fx one engine)\n", sz,
		       b.last_gbps[H2D], b.last_gbps[D2H], b.last_gbps[D2D],
		       b.last_gbps[BIDIR], one > 0 ? b.last_gbps[BIDIR] / one : 0);
	}
	for (i = 0; i < 2; i++)
		free(b.pageable[i]);
	free(b.check);
	return sample_finish(&b.s, b.all_ok);
}
