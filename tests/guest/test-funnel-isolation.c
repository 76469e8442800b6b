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
 * sysfs: iomem=relaxed).
 *
 * Then the engines shared (--hog-lines=L, default 512; 0: not run): a
 * hostile process streams on copy engine 0 -- one LAUNCH_DMA of L
 * repeats (pitch 0) of a 16 MiB line, 8 GiB by default -- while an
 * innocent process makes 4 KiB copies on the same engine.  Each of them
 * must end while the hostile launch still runs (the engine gives way,
 * docs/hw/copy.md "Time slicing"; CE_PREEMPTS counts it), and the long
 * launch must still land byte-exact.  Output is TAP; the exit status is
 * non-zero if any check failed.
 */
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <libtgpu.h>
#include <tgpu/channel.h>
#include <tgpu/copy.h>
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
enum { CHILD_OK, CHILD_CORRUPT, CHILD_NO_FAULT, CHILD_LEAK, CHILD_ERROR, CHILD_STARVED };

#define HOG_LINE        (16u << 20)
#define HOG_WORD        0x6d6f6368u
#define INNOCENT_COPIES 16
#define SMALL           4096

/* between the hog and the innocent, in memory both children share */
struct hog_shared {
	volatile int started;           /* the hog's launch is submitted */
	volatile int done;              /* ... and has ended */
	volatile int copies;            /* innocent copies that ended first */
	volatile uint32_t preempts;     /* CE_PREEMPTS over those copies */
	volatile long worst_us;         /* the slowest of them */
};


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

static long now_us(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000L + ts.tv_nsec / 1000;
}

/* The hostile process: one long launch on copy engine 0, raw methods. */
static int hog(int lines, struct hog_shared *sh)
{
	tgpu_deviceptr a, b;
	tgpu_context *ctx;
	tgpu_device *dev;
	tgpu_stream *s;
	uint32_t cmd[32], got[2];
	int n = 0;

	if (tgpu_init(0) || tgpu_device_get(&dev, 0) || tgpu_ctx_create(&ctx, dev, 0) ||
	    tgpu_mem_alloc(ctx, &a, HOG_LINE) || tgpu_mem_alloc(ctx, &b, HOG_LINE) ||
	    tgpu_memset_d32(ctx, a, HOG_WORD, HOG_LINE / 4) ||
	    tgpu_stream_create(ctx, &s, 0, TGPU_STREAM_PRIORITY_LOWEST)) {
		fprintf(stderr, "hog: %s\n", tgpu_get_last_error_message());
		return CHILD_ERROR;
	}
	cmd[n++] = TGPU_PB_HDR(TGPU_PB_OP_INC, 4, TGPU_M_SET_OBJECT, 1);
	cmd[n++] = TGPU_CLASS_COPY;
	cmd[n++] = TGPU_PB_HDR(TGPU_PB_OP_INC, 4, TGPU_CE_M_OFFSET_IN_UPPER, 8);
	cmd[n++] = a >> 32;
	cmd[n++] = (uint32_t)a;
	cmd[n++] = b >> 32;
	cmd[n++] = (uint32_t)b;
	cmd[n++] = 0;                   /* PITCH_IN, PITCH_OUT: the same line again */
	cmd[n++] = 0;
	cmd[n++] = HOG_LINE;
	cmd[n++] = (uint32_t)lines;
	cmd[n++] = TGPU_PB_HDR(TGPU_PB_OP_INC, 4, TGPU_CE_M_LAUNCH_DMA, 1);
	cmd[n++] = TGPU_CE_LAUNCH(TGPU_CE_TRANSFER_NON_PIPELINED, TGPU_CE_SEM_NONE,
				  TGPU_CE_INTR_NONE) | TGPU_CE_LAUNCH_MULTI_LINE;
	if (tgpu_stream_submit_commands(s, TGPU_ENGINE_KIND_COPY0, cmd, n)) {
		fprintf(stderr, "hog: %s\n", tgpu_get_last_error_message());
		return CHILD_ERROR;
	}
	sh->started = 1;
	if (tgpu_stream_synchronize(s)) {
		fprintf(stderr, "hog: %s\n", tgpu_get_last_error_message());
		return CHILD_ERROR;
	}
	sh->done = 1;
	if (tgpu_memcpy_dtoh(ctx, &got[0], b, 4) ||
	    tgpu_memcpy_dtoh(ctx, &got[1], b + HOG_LINE - 4, 4))
		return CHILD_ERROR;
	tgpu_ctx_destroy(ctx);
	return got[0] == HOG_WORD && got[1] == HOG_WORD ? CHILD_OK : CHILD_CORRUPT;
}

/* The innocent process: 4 KiB copies on copy engine 0 beside the hog. */
static int innocent(struct hog_shared *sh)
{
	uint8_t want[SMALL], got[SMALL];
	tgpu_deviceptr a, b;
	tgpu_context *ctx;
	tgpu_device *dev;
	uint32_t p0;
	long t;
	int i, j;

	if (tgpu_init(0) || tgpu_device_get(&dev, 0) || tgpu_ctx_create(&ctx, dev, 0) ||
	    tgpu_mem_alloc(ctx, &a, SMALL) || tgpu_mem_alloc(ctx, &b, SMALL))
		return CHILD_ERROR;
	/* the hog's launch on the engine: submitted, and CE0 busy */
	for (t = now_us(); !sh->started || !(reg(TGPU_CE_REG(0, TGPU_CE_STATUS)) &
					     TGPU_CE_STATUS_BUSY); usleep(1000))
		if (sh->done || now_us() - t > 60000000L)
			return CHILD_ERROR;
	p0 = reg(TGPU_CE_REG(0, TGPU_CE_PREEMPTS));
	for (i = 0; i < INNOCENT_COPIES; i++) {
		for (j = 0; j < SMALL; j++)
			want[j] = (uint8_t)(i * 37 + j * 11);
		t = now_us();
		/* host to device and device to device: both on copy engine 0 */
		if (tgpu_memcpy_htod(ctx, a, want, SMALL) || tgpu_memcpy_dtod(ctx, b, a, SMALL))
			return CHILD_ERROR;
		t = now_us() - t;
		if (sh->done)
			break;
		sh->copies = i + 1;
		if (t > sh->worst_us)
			sh->worst_us = t;
		if (tgpu_memcpy_dtoh(ctx, got, b, SMALL) || memcmp(got, want, SMALL))
			return CHILD_CORRUPT;
	}
	sh->preempts = reg(TGPU_CE_REG(0, TGPU_CE_PREEMPTS)) - p0;
	tgpu_ctx_destroy(ctx);
	return sh->copies == INNOCENT_COPIES ? CHILD_OK : CHILD_STARVED;
}

/* The hog and the innocent, each a process; two TAP lines. */
static void shared_engine(int lines)
{
	struct hog_shared *sh = mmap(NULL, sizeof(*sh), PROT_READ | PROT_WRITE,
				     MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	int code[2], status, i;
	pid_t pid[2];

	if (sh == MAP_FAILED)
		bail("out of memory");
	memset((void *)sh, 0, sizeof(*sh));
	for (i = 0; i < 2; i++) {
		pid[i] = fork();
		if (pid[i] < 0)
			bail("fork");
		if (!pid[i])
			_exit(i ? innocent(sh) : hog(lines, sh));
	}
	for (i = 0; i < 2; i++) {
		waitpid(pid[i], &status, 0);
		code[i] = WIFEXITED(status) ? WEXITSTATUS(status) : CHILD_ERROR;
	}
	printf("# funnel-isolation: copy engine 0 shared: %d of %d innocent 4 KiB copies ended while a %d MiB launch streamed, the slowest in %ld us; %u turns given way\n",
	       sh->copies, INNOCENT_COPIES, lines * (int)(HOG_LINE >> 20), sh->worst_us,
	       sh->preempts);
	ok(code[1] == CHILD_OK && sh->preempts > 0,
	   "another process's long copy gives way: %d of %d innocent copies on the same engine ended before it, byte-exact (%u turns given way)",
	   sh->copies, INNOCENT_COPIES, sh->preempts);
	ok(code[0] == CHILD_OK,
	   "the long launch that gave way went on and landed byte-exact (status %d)", code[0]);
	munmap((void *)sh, sizeof(*sh));
}

int main(int argc, char **argv)
{
	int contexts = 64, rounds = 8, bad_every = 8, hog_lines = 512, i, fd, go[2], status;
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
		else if (!strncmp(argv[i], "--hog-lines=", 12))
			hog_lines = atoi(argv[i] + 12);
	}
	if (contexts < 2 || contexts > 4096 || rounds < 2 || rounds > BUF / 4 || bad_every < 2 ||
	    hog_lines < 0 || hog_lines > 1 << 20) {
		fprintf(stderr, "usage: test-funnel-isolation [--contexts=N] [--rounds=R] [--bad-every=B] [--hog-lines=L]\n");
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
	if (hog_lines)
		shared_engine(hog_lines);
	return tap_done();
}
