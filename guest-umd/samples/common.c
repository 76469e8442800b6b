// SPDX-License-Identifier: MIT
/*
 * The sample workloads' shared helpers (common.h).
 */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common.h"

void sample_fail(struct sample *s, const char *what, tgpu_status st)
{
	/* read the message first: nothing else may run in between */
	const char *msg = tgpu_get_last_error_message();

	fprintf(stderr, "%s: %s failed: %s: %s\n", s->name, what,
		tgpu_get_error_name(st), msg && *msg ? msg : tgpu_get_error_string(st));
	printf("FAILED\n");
	fflush(stdout);
	exit(1);
}

void sample_die(struct sample *s, const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "%s: ", s->name);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	printf("FAILED\n");
	fflush(stdout);
	exit(1);
}

void *sample_malloc(struct sample *s, size_t n)
{
	void *p = malloc(n ? n : 1);

	if (!p)
		sample_die(s, "out of host memory (%zu bytes)", n);
	return p;
}

bool sample_parse_size(const char *name, const char *opt, const char *arg,
		       uint64_t min, uint64_t max, uint64_t *out)
{
	unsigned long long v;
	char *end;
	int shift = 0;

	errno = 0;
	if (*arg < '0' || *arg > '9')
		goto bad;
	v = strtoull(arg, &end, 10);
	if (errno || end == arg)
		goto bad;
	switch (*end) {
	case 'k': case 'K': shift = 10; end++; break;
	case 'm': case 'M': shift = 20; end++; break;
	case 'g': case 'G': shift = 30; end++; break;
	}
	if (*end || v > (UINT64_MAX >> shift))
		goto bad;
	v <<= shift;
	if (v < min || v > max) {
		fprintf(stderr, "%s: %s %s: must be between %" PRIu64 " and %" PRIu64 "\n",
			name, opt, arg, min, max);
		return false;
	}
	*out = v;
	return true;
bad:
	fprintf(stderr, "%s: %s '%s': expected a number, optionally with k, M or G (x1024^n)\n",
		name, opt, arg);
	return false;
}

void sample_open(struct sample *s, const char *name, bool quiet)
{
	memset(s, 0, sizeof(*s));
	s->name = name;
	s->quiet = quiet;
	CHECK(s, tgpu_init(0));
	CHECK(s, tgpu_device_get(&s->dev, 0));
	CHECK(s, tgpu_device_get_info(s->dev, &s->info));
	CHECK(s, tgpu_ctx_create(&s->ctx, s->dev, 0));
	if (!quiet)
		printf("%s: %s (%s), %u SMs, %" PRIu64 " MiB VRAM, SM clock %u MHz\n",
		       name, s->info.name, s->info.pci_bus_id, s->info.sm_count,
		       s->info.vram_size >> 20, s->info.clk_sm_boost_mhz);
}

tgpu_function *sample_kernel(struct sample *s, tgpu_module **mod,
			     const char *src, const char *entry)
{
	tgpu_function *fn;

	CHECK(s, tgpu_module_load_data(s->ctx, mod, src, strlen(src) + 1));
	CHECK(s, tgpu_module_get_function(&fn, *mod, entry));
	return fn;
}

int sample_finish(struct sample *s, bool passed)
{
	CHECK(s, tgpu_ctx_destroy(s->ctx));
	s->ctx = NULL;
	printf("%s\n", passed ? "PASSED" : "FAILED");
	fflush(stdout);
	return passed ? 0 : 1;
}

void sample_timer_init(struct sample *s, struct sample_timer *t)
{
	CHECK(s, tgpu_event_create(s->ctx, &t->start, 0));
	CHECK(s, tgpu_event_create(s->ctx, &t->stop, 0));
}

void sample_timer_start(struct sample *s, struct sample_timer *t,
			tgpu_stream *stream)
{
	CHECK(s, tgpu_event_record(t->start, stream));
}

double sample_timer_stop(struct sample *s, struct sample_timer *t,
			 tgpu_stream *stream)
{
	float ms;

	CHECK(s, tgpu_event_record(t->stop, stream));
	CHECK(s, tgpu_event_synchronize(t->stop));
	CHECK(s, tgpu_event_elapsed_time(&ms, t->start, t->stop));
	return ms;
}

void sample_timer_destroy(struct sample_timer *t)
{
	tgpu_event_destroy(t->start);
	tgpu_event_destroy(t->stop);
}

int sample_parse_args(int argc, char **argv, const char *name,
		      void (*usage)(FILE *f), uint64_t min, uint64_t max,
		      uint64_t *n, bool *quiet)
{
	int opt;

	while ((opt = getopt(argc, argv, "n:qh")) != -1) {
		switch (opt) {
		case 'n':
			if (!sample_parse_size(name, "-n", optarg, min, max, n))
				return 2;
			break;
		case 'q':
			*quiet = true;
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
	return -1;
}
