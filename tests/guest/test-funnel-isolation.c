// SPDX-License-Identifier: MIT
/*
 * Reliability funnel, layer 2: context isolation under switching.  N
 * processes, each with a context of its own (its own GPU VM and ASID),
 * are alive at once and make the engines switch between them constantly;
 * every eighth also reads outside its mappings on purpose:
 *
 *   test-funnel-isolation [--contexts=N] [--rounds=R] [--bad-every=B]
 *
 * (default 64 contexts, 8 rounds, one in 8 hostile; the device needs
 * channels enough for 3 a context: channels=512 allows 160).  Each round
 * a process copies its seeded 64 KiB buffer to a second one, runs a
 * kernel that moves one word of it to pinned host memory, and checks
 * both byte-exact.  A hostile process's kernel reads a VA it never
 * mapped: its context must fail with TGPU_ERROR_ILLEGAL_ADDRESS and
 * its host word keep the sentinel, not a byte of anyone's memory.  The
 * parent reports the TLB and context-switch counters (BAR0 through
 * sysfs: iomem=relaxed).  Output is TAP; the exit status is non-zero if
 * any check failed.
 */
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#include <libtgpu.h>
#include <tgpu/mmu.h>
#include <tgpu/regs.h>

#include "guest-kernels.h"
#include "guest-tap.h"
#include "guest-sysfs.h"

#define BUF     (64 * 1024)
#define SENTINEL 0xa5a5a5a5u
/* far above anything libtgpu maps, below the 40-bit VA limit */
#define UNMAPPED_VA 0xf000000000ull

/* a child's exit status */
enum { CHILD_OK, CHILD_CORRUPT, CHILD_NO_FAULT, CHILD_LEAK, CHILD_ERROR };


static volatile uint32_t *bar0;

static uint32_t reg(uint32_t off)
{
	return bar0[off / 4];
}

static int child(unsigned int idx, int rounds, bool hostile, int go)
{
	struct peek_params args;
	uint8_t *want, *got;
	tgpu_deviceptr a, b, word_dev;
	volatile uint32_t *word;
	tgpu_function *fn;
	tgpu_context *ctx;
	tgpu_device *dev;
	tgpu_module *m;
	tgpu_status st;
	char c;
	int r, i;

	want = malloc(BUF);
	got = malloc(BUF);
	if (!want || !got || tgpu_init(0) || tgpu_device_get(&dev, 0) ||
	    tgpu_ctx_create(&ctx, dev, 0) || tgpu_mem_alloc(ctx, &a, BUF) ||
	    tgpu_mem_alloc(ctx, &b, BUF) || tgpu_mem_alloc_host(ctx, (void **)&word, 4096) ||
	    tgpu_mem_host_get_device_pointer(ctx, &word_dev, (void *)word) ||
	    tgpu_module_load_data(ctx, &m, GUEST_PEEK_KERNEL, 0) ||
	    tgpu_module_get_function(&fn, m, "peek")) {
		fprintf(stderr, "context %u: %s\n", idx, tgpu_get_last_error_message());
		return CHILD_ERROR;
	}
	for (i = 0; i < BUF; i++)
		want[i] = (uint8_t)(idx * 131 + i * 7 + (i >> 8));
	if (tgpu_memcpy_htod(ctx, a, want, BUF))
		return CHILD_ERROR;
	/* everyone set up: now all at once */
	if (read(go, &c, 1) != 0)
		return CHILD_ERROR;
	for (r = 0; r < rounds; r++) {
		word[0] = SENTINEL;
		args.src = hostile && r == rounds / 2 ? UNMAPPED_VA : a + 4u * r;
		args.dst = word_dev;
		st = copy_and_peek(ctx, fn, b, a, BUF, &args);
		if (args.src == UNMAPPED_VA) {
			if (st != TGPU_ERROR_ILLEGAL_ADDRESS) {
				fprintf(stderr, "context %u: a read of 0x%llx gave %s\n", idx,
					(unsigned long long)UNMAPPED_VA, tgpu_get_error_name(st));
				return CHILD_NO_FAULT;
			}
			return word[0] == SENTINEL ? CHILD_OK : CHILD_LEAK;
		}
		if (st) {
			fprintf(stderr, "context %u round %d: %s\n", idx, r,
				tgpu_get_last_error_message());
			return CHILD_ERROR;
		}
		if (tgpu_memcpy_dtoh(ctx, got, b, BUF) || memcmp(got, want, BUF) ||
		    word[0] != ((uint32_t *)want)[r])
			return CHILD_CORRUPT;
	}
	tgpu_ctx_destroy(ctx);
	return CHILD_OK;
}

int main(int argc, char **argv)
{
	int contexts = 64, rounds = 8, bad_every = 8, i, fd, go[2], status;
	int good = 0, faulted = 0, corrupt = 0, no_fault = 0, leak = 0, errors = 0, hostile = 0;
	uint32_t hits, misses, flushes, ctxsw;
	char path[160];
	pid_t *pids;

	for (i = 1; i < argc; i++) {
		if (!strncmp(argv[i], "--contexts=", 11))
			contexts = atoi(argv[i] + 11);
		else if (!strncmp(argv[i], "--rounds=", 9))
			rounds = atoi(argv[i] + 9);
		else if (!strncmp(argv[i], "--bad-every=", 12))
			bad_every = atoi(argv[i] + 12);
	}
	if (contexts < 2 || contexts > 4096 || rounds < 2 || rounds > BUF / 4 || bad_every < 2) {
		fprintf(stderr, "usage: test-funnel-isolation [--contexts=N] [--rounds=R] [--bad-every=B]\n");
		return 2;
	}
	node_device_path("/dev/dri/renderD128", "resource0", path, sizeof(path));
	fd = open(path, O_RDONLY | O_SYNC | O_CLOEXEC);
	bar0 = fd < 0 ? MAP_FAILED : mmap(NULL, 16 << 20, PROT_READ, MAP_SHARED, fd, 0);
	if (bar0 == MAP_FAILED)
		bail("cannot map BAR0 (iomem=relaxed?)");
	pids = calloc(contexts, sizeof(*pids));
	if (!pids || pipe(go))
		bail("out of memory");
	hits = reg(TGPU_MMU_TLB_HITS);
	misses = reg(TGPU_MMU_TLB_MISSES);
	flushes = reg(TGPU_MMU_TLB_FLUSHES);
	ctxsw = reg(TGPU_FIFO_CTXSW_COUNT);
	for (i = 0; i < contexts; i++) {
		pids[i] = fork();
		if (pids[i] < 0)
			bail("fork");
		if (!pids[i]) {
			close(go[1]);
			_exit(child((unsigned int)i, rounds, i % bad_every == bad_every - 1, go[0]));
		}
		hostile += i % bad_every == bad_every - 1;
	}
	/* every child waits for the pipe's end: all alive at once */
	close(go[0]);
	usleep(200000);
	close(go[1]);
	for (i = 0; i < contexts; i++) {
		int code;

		waitpid(pids[i], &status, 0);
		code = WIFEXITED(status) ? WEXITSTATUS(status) : CHILD_ERROR;
		if (code == CHILD_OK && i % bad_every == bad_every - 1)
			faulted++;
		else if (code == CHILD_OK)
			good++;
		corrupt += code == CHILD_CORRUPT;
		no_fault += code == CHILD_NO_FAULT;
		leak += code == CHILD_LEAK;
		errors += code == CHILD_ERROR;
	}
	printf("# funnel-isolation: %d contexts (%d hostile), %d rounds: TLB %u hits, %u misses, %u flushes; %u context switches\n",
	       contexts, hostile, rounds, reg(TGPU_MMU_TLB_HITS) - hits,
	       reg(TGPU_MMU_TLB_MISSES) - misses, reg(TGPU_MMU_TLB_FLUSHES) - flushes,
	       reg(TGPU_FIFO_CTXSW_COUNT) - ctxsw);
	ok(errors == 0, "%d contexts alive at once, each set up and run (%d failed)", contexts, errors);
	ok(good == contexts - hostile && corrupt == 0,
	   "%d innocent contexts' data byte-exact through every round (%d corrupted)", good, corrupt);
	ok(faulted == hostile && no_fault == 0,
	   "%d hostile contexts' reads outside their mappings faulted (ILLEGAL_ADDRESS) (%d did not)",
	   faulted, no_fault);
	ok(leak == 0, "no byte leaked to a hostile context (%d)", leak);
	ok(reg(TGPU_FIFO_CTXSW_COUNT) - ctxsw >= (uint32_t)contexts,
	   "the engines switched contexts (%u switches)", reg(TGPU_FIFO_CTXSW_COUNT) - ctxsw);
	return tap_done();
}
