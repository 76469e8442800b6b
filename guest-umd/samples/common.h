/* SPDX-License-Identifier: MIT */
/*
 * What the sample workloads share: option parsing of sizes, a context on
 * device 0, failure reports that name the call, its status and libtgpu's
 * message, GPU timing with events, and a reproducible input generator.
 *
 * Only <libtgpu.h> is used: the samples are what an application of the
 * library looks like.
 */
#ifndef TGPU_SAMPLES_COMMON_H
#define TGPU_SAMPLES_COMMON_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <libtgpu.h>

struct sample {
	const char *name;       /* program name, for messages */
	bool quiet;             /* -q: only the result and PASSED/FAILED */
	tgpu_device *dev;
	tgpu_context *ctx;
	struct tgpu_device_info info;
};

/*
 * Report a failed libtgpu call: "NAME: WHAT failed: TGPU_ERROR_...:
 * message" on stderr, then "FAILED" on stdout, and exit 1.
 */
__attribute__((noreturn))
void sample_fail(struct sample *s, const char *what, tgpu_status st);

/* Run a libtgpu call; on failure report it (the call's text) and exit. */
#define CHECK(s, call)							\
	do {								\
		tgpu_status check_st_ = (call);				\
		if (check_st_ != TGPU_SUCCESS)				\
			sample_fail((s), #call, check_st_);		\
	} while (0)

/* A failure that is not a libtgpu call: message on stderr, FAILED, exit 1. */
__attribute__((noreturn, format(printf, 2, 3)))
void sample_die(struct sample *s, const char *fmt, ...);

/* malloc that reports failure and exits. */
void *sample_malloc(struct sample *s, size_t n);

/*
 * Parse a size: decimal, with an optional binary suffix k/K (2^10), m/M
 * (2^20), g/G (2^30), e.g. "4M" = 4194304.  Between min and max; false
 * (and a message on stderr) otherwise.
 */
bool sample_parse_size(const char *name, const char *opt, const char *arg,
		       uint64_t min, uint64_t max, uint64_t *out);

/*
 * The options of the compute samples: [-n SIZE] [-q] [-h].  -n between
 * min and max into *n, -q sets *quiet, -h prints usage to stdout.
 * Returns -1 to go on, or the exit status (0 after -h, 2 for a bad
 * command line, with usage on stderr).
 */
int sample_parse_args(int argc, char **argv, const char *name,
		      void (*usage)(FILE *f), uint64_t min, uint64_t max,
		      uint64_t *n, bool *quiet);

/*
 * tgpu_init, device 0, a context; unless quiet, print "NAME: DEVICE
 * (SMs, VRAM, SM clock)".  Exits with FAILED if any step fails.
 */
void sample_open(struct sample *s, const char *name, bool quiet);

/* Load the assembly source src (NUL-terminated) and get kernel entry. */
tgpu_function *sample_kernel(struct sample *s, tgpu_module **mod,
			     const char *src, const char *entry);

/* Destroy the context; print PASSED or FAILED; the exit status. */
int sample_finish(struct sample *s, bool passed);

/* Events around GPU work: start on a stream, stop, then elapsed ms. */
struct sample_timer {
	tgpu_event *start, *stop;
};

void sample_timer_init(struct sample *s, struct sample_timer *t);
void sample_timer_start(struct sample *s, struct sample_timer *t,
			tgpu_stream *stream);
/* Record the stop event on stream, wait for it; GPU milliseconds. */
double sample_timer_stop(struct sample *s, struct sample_timer *t,
			 tgpu_stream *stream);
void sample_timer_destroy(struct sample_timer *t);

/* A reproducible pseudo-random word for index i of stream seed. */
static inline uint32_t sample_rand(uint64_t i, uint32_t seed)
{
	uint64_t z = i * 0x9e3779b97f4a7c15ull + seed * 0xbf58476d1ce4e5b9ull +
		     0x94d049bb133111ebull;

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return (uint32_t)(z ^ (z >> 31));
}

/* A float in [-1, 1) with 24 significant bits, from sample_rand. */
static inline float sample_rand_float(uint64_t i, uint32_t seed)
{
	return (float)((int32_t)(sample_rand(i, seed) >> 8) - (1 << 23)) /
	       (float)(1 << 23);
}

/* Blocks of block threads to cover n items, at most max_blocks. */
static inline unsigned int sample_grid(uint64_t n, unsigned int block,
				       unsigned int max_blocks)
{
	uint64_t g = (n + block - 1) / block;

	return g == 0 ? 1 : g > max_blocks ? max_blocks : (unsigned int)g;
}

#endif /* TGPU_SAMPLES_COMMON_H */
