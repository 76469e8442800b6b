// SPDX-License-Identifier: MIT
/*
 * The soak's target (make soak, tests/soak/tgpu-soak): a process whose
 * work the host's faults are aimed at, while the funnel's layers run
 * beside it as the innocent work.
 *
 *   soak-target --ready=FILE --stop=FILE
 *
 * It makes a context with a seeded 64 KiB buffer, then writes FILE with
 * one line, "pid P asid A vram ADDR channels C:ENGINE,...", where ADDR
 * is the VRAM address of the buffer's second page (debugfs "files") and
 * the channels are its own (debugfs "channels"): the host aims a fault
 * at them.  Then, until the stop file appears, each round copies the
 * buffer to a second one, runs a kernel that moves one word of it to
 * pinned host memory, and checks both byte-exact.
 *
 * Exit status: 0 stopped with every round right; 3 a round failed with
 * an error libtgpu reported (what a fault aimed at it should cause; the
 * error is printed); 1 a round's data was wrong with no error reported
 * (silent corruption, never right); 2 it could not start.  Root only
 * (debugfs).
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <libtgpu.h>

#include "guest-kernels.h"
#include "guest-tap.h"
#include "guest-sysfs.h"

#define BUF (64 * 1024)

static const char *node = "/dev/dri/renderD128";


/* "C:ENGINE,..." of this process's channels, from debugfs "channels" */
static void my_channels(char *out, size_t len)
{
	char *text = node_debugfs(node, "channels"), *line, *save = NULL;
	char comm[32], eng[16];
	unsigned int q, ch;
	size_t n = 0;
	int pid;

	out[0] = '\0';
	for (line = text ? strtok_r(text, "\n", &save) : NULL; line;
	     line = strtok_r(NULL, "\n", &save))
		if (sscanf(line, "queue %u pid %d comm %31s channel %u engine %15s",
			   &q, &pid, comm, &ch, eng) == 5 && pid == (int)getpid() &&
		    n + 24 < len)
			n += (size_t)snprintf(out + n, len - n, "%s%u:%s", n ? "," : "", ch, eng);
	free(text);
}

/* this process's ASID, from debugfs "files"; -1 if not found */
static int my_asid(void)
{
	char *text = node_debugfs(node, "files"), *line, *save = NULL, *a;
	char me[32];
	int asid = -1;

	snprintf(me, sizeof(me), " pid %d comm ", (int)getpid());
	for (line = text ? strtok_r(text, "\n", &save) : NULL; line;
	     line = strtok_r(NULL, "\n", &save))
		if (!strncmp(line, "file ", 5) && strstr(line, me) &&
		    (a = strstr(line, " asid ")))
			asid = atoi(a + 6);
	free(text);
	return asid;
}

static tgpu_context *ctx;
static tgpu_function *fn;
static tgpu_deviceptr a, b, word_dev;
static volatile uint32_t *word;
static uint8_t *want, *got;

/*
 * One round: copy, a kernel, back to the host, checked.  0 right, 3 an
 * error libtgpu reported, 1 wrong data with no error.
 */
static int one_round(unsigned long n, int r)
{
	struct peek_params args;
	tgpu_status st;

	word[0] = 0xa5a5a5a5u;
	args.src = a + 4u * (unsigned int)r;
	args.dst = word_dev;
	st = copy_and_peek(ctx, fn, b, a, BUF, &args);
	if (!st)
		st = tgpu_memcpy_dtoh(ctx, got, b, BUF);
	if (st) {
		printf("soak-target: round %lu failed: %s: %s\n", n,
		       tgpu_get_error_name(st), tgpu_get_last_error_message());
		return 3;
	}
	if (memcmp(got, want, BUF) || word[0] != ((uint32_t *)want)[r]) {
		printf("soak-target: round %lu: the data is wrong and nothing said so\n", n);
		return 1;
	}
	return 0;
}

int main(int argc, char **argv)
{
	const char *ready = NULL, *stop = NULL;
	char chans[256], tmp[300];
	tgpu_device *dev;
	tgpu_module *m;
	unsigned long rounds = 1;
	uint64_t vram;
	FILE *f;
	int i, r, rc;

	for (i = 1; i < argc; i++) {
		if (!strncmp(argv[i], "--ready=", 8))
			ready = argv[i] + 8;
		else if (!strncmp(argv[i], "--stop=", 7))
			stop = argv[i] + 7;
	}
	if (!ready || !stop) {
		fprintf(stderr, "usage: soak-target --ready=FILE --stop=FILE\n");
		return 2;
	}
	want = malloc(BUF);
	got = malloc(BUF);
	if (!want || !got || tgpu_init(0) || tgpu_device_get(&dev, 0) ||
	    tgpu_ctx_create(&ctx, dev, 0) || tgpu_mem_alloc(ctx, &a, BUF) ||
	    tgpu_mem_alloc(ctx, &b, BUF) ||
	    tgpu_mem_alloc_host(ctx, (void **)&word, 4096) ||
	    tgpu_mem_host_get_device_pointer(ctx, &word_dev, (void *)word) ||
	    tgpu_module_load_data(ctx, &m, GUEST_PEEK_KERNEL, 0) ||
	    tgpu_module_get_function(&fn, m, "peek")) {
		fprintf(stderr, "soak-target: %s\n", tgpu_get_last_error_message());
		return 2;
	}
	for (i = 0; i < BUF; i++)
		want[i] = (uint8_t)(getpid() * 131 + i * 7 + (i >> 8));
	/* one round first, so that every channel exists when it is named */
	if (tgpu_memcpy_htod(ctx, a, want, BUF) || one_round(0, 0)) {
		fprintf(stderr, "soak-target: %s\n", tgpu_get_last_error_message());
		return 2;
	}
	vram = node_vram_of(node, getpid(), a + 4096);
	my_channels(chans, sizeof(chans));
	snprintf(tmp, sizeof(tmp), "%s.tmp", ready);
	f = fopen(tmp, "w");
	if (!f || !vram || !chans[0] ||
	    fprintf(f, "pid %d asid %d vram 0x%" PRIx64 " channels %s\n", (int)getpid(),
		    my_asid(), vram, chans) < 0 || fclose(f) || rename(tmp, ready)) {
		fprintf(stderr, "soak-target: cannot say where it is (vram 0x%" PRIx64 ", channels '%s')\n",
			vram, chans);
		return 2;
	}
	for (r = 1; access(stop, F_OK); r = (r + 1) % (BUF / 4), rounds++) {
		rc = one_round(rounds, r);
		if (rc)
			return rc;
	}
	printf("soak-target: stopped after %lu rounds, every one right\n", rounds);
	tgpu_ctx_destroy(ctx);
	return 0;
}
