// SPDX-License-Identifier: MIT
/*
 * In-guest test of the driver's ECC error handling, with errors armed
 * through debugfs ecc_inject (the monitor's injection, from inside):
 *
 *   test-ras --sbe=N    N corrected errors in a buffer that copies keep
 *                       reading: all counted (sysfs ecc_errors), the data
 *                       never changed; then two on one page retire it
 *                       (SBE, pending: it is in use), one does not
 *   test-ras --dbe      an uncorrectable error in a page of a process's
 *                       buffer: that process's copy fails with
 *                       ECC_UNCORRECTABLE, its CPU mapping of the page
 *                       gets SIGBUS (the rest of the buffer still maps),
 *                       Xid 48, the page retired (DBE, pending), and an
 *                       innocent process copying beside it finishes
 *                       byte-exact.  Prints "# retired-page ADDR" for the
 *                       host, which boots again with the same InfoROM
 *   test-ras --limit=L  with tgpu.ecc_retire_limit=L, L + 1 retirements
 *                       mark the device degraded (sysfs degraded, dmesg)
 *
 * A page's VRAM address comes from debugfs "files" (the mapping's
 * buffer blocks).  Root only.  Output is TAP; the exit status is non-zero
 * if any check failed.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <poll.h>
#include <setjmp.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include <libtgpu.h>

#include "guest-tap.h"
#include "guest-sysfs.h"

#define S(x) tgpu_get_error_name(x)

enum { PAGE = 4096, BUF_PAGES = 16, BUF = BUF_PAGES * PAGE };

static const char *node = "/dev/dri/renderD128";
static tgpu_device *dev;

static uint32_t pattern(unsigned int i)
{
	return 0x9e3779b9u * (i + 1);
}

/* A file under the render node's PCI device, as a number; -1 if none. */
static long long device_value(const char *file)
{
	char dir[160];

	node_device_path(node, "", dir, sizeof(dir));
	dir[strlen(dir) - 1] = 0;	/* no trailing slash */
	return read_number(dir, file);
}

static char *device_text(const char *file)
{
	char path[160];

	node_device_path(node, file, path, sizeof(path));
	return read_text(path);
}

/* The VRAM address of byte @off of this process's device memory @d. */
static uint64_t vram_of(tgpu_deviceptr d, uint64_t off)
{
	uint64_t addr = node_vram_of(node, getpid(), d + off);

	if (!addr)
		bail("debugfs files does not place the buffer in VRAM");
	return addr;
}

/* Arm an error at a VRAM word through debugfs ecc_inject. */
static int inject(uint64_t addr, const char *kind)
{
	char dir[64], path[128], line[64];
	int fd, n, err = 0;

	node_debugfs_dir(node, dir, sizeof(dir));
	snprintf(path, sizeof(path), "%s/ecc_inject", dir);
	fd = open(path, O_WRONLY | O_CLOEXEC);
	if (fd < 0)
		return errno;
	n = snprintf(line, sizeof(line), "0x%" PRIx64 " %s\n", addr, kind);
	if (write(fd, line, n) != n)
		err = errno;
	close(fd);
	return err;
}

/* A context with a BUF-byte buffer holding the pattern, mapped. */
static void buffer_context(tgpu_context **ctx, tgpu_deviceptr *d,
			   volatile uint32_t **map)
{
	static uint32_t in[BUF / 4];
	unsigned int i;

	for (i = 0; i < BUF / 4; i++)
		in[i] = pattern(i);
	if (tgpu_ctx_create(ctx, dev, 0) || tgpu_mem_alloc(*ctx, d, BUF) ||
	    tgpu_memcpy_htod(*ctx, *d, in, BUF) ||
	    tgpu_mem_host_map(*ctx, (void **)map, *d))
		bail(tgpu_get_last_error_message());
}

static unsigned int check_pattern(const uint32_t *out)
{
	unsigned int i, bad = 0;

	for (i = 0; i < BUF / 4; i++)
		bad += out[i] != pattern(i);
	return bad;
}

/* tgpu-smi --query-gpu=@fields, its one line without the newline. */
static char *smi(const char *fields)
{
	static char line[256];
	char cmd[320];
	FILE *f;

	snprintf(cmd, sizeof(cmd), "tgpu-smi --query-gpu=%s --format=csv,noheader", fields);
	line[0] = 0;
	f = popen(cmd, "r");
	if (f && fgets(line, sizeof(line), f))
		line[strcspn(line, "\n")] = 0;
	if (f)
		pclose(f);
	return line;
}

/* ---- corrected errors ---------------------------------------------------- */

/* The page of @vram is in sysfs retired_pages as "@cause @state TIME". */
static bool listed(uint64_t vram, const char *cause, const char *state)
{
	char want[64], *pages = device_text("retired_pages");
	bool r;

	/* then the time it was retired */
	snprintf(want, sizeof(want), "0x%010" PRIx64 " %s %s ", vram, cause, state);
	r = pages && strstr(pages, want);
	free(pages);
	return r;
}

/*
 * N corrected errors spread over a buffer that copies keep reading, 50
 * armed before each read: all corrected and counted.  (The 16-entry
 * address log overflows at that rate, as on a board: the counters are
 * exact, the addresses are not all kept.)  Then, on a second buffer, two
 * on one page retire it, one on another does not.
 */
static void test_sbe(unsigned int total)
{
	static uint32_t out[BUF / 4];
	long long before = device_value("ecc_errors/sbe_volatile");
	long long agg = device_value("ecc_errors/sbe_aggregate");
	unsigned int done = 0, bad = 0, refused = 0, i, n, round = 0, retired;
	uint64_t vram[BUF_PAGES], p0, p1;
	volatile uint32_t *map, *map2;
	tgpu_context *ctx, *ctx2;
	tgpu_deviceptr d, d2;

	buffer_context(&ctx, &d, &map);
	for (i = 0; i < BUF_PAGES; i++)
		vram[i] = vram_of(d, (uint64_t)i * PAGE) & ~(uint64_t)(PAGE - 1);
	ok(before >= 0, "sysfs ecc_errors/sbe_volatile reads %lld", before);
	while (done < total) {
		n = total - done < 50 ? total - done : 50;
		for (i = 0; i < n; i++) {
			/* a different word each time, all over the buffer */
			unsigned int w = (done + i) * 131 % (BUF / 8);

			refused += inject(vram[w * 8 / PAGE] + w * 8 % PAGE, "sbe") != 0;
		}
		if (tgpu_memcpy_dtoh(ctx, out, d, BUF))
			bail(tgpu_get_last_error_message());
		bad += check_pattern(out);
		done += n;
		round++;
	}
	ok(refused == 0, "%u SBEs armed through debugfs ecc_inject (%u refused)", total,
	   refused);
	ok(bad == 0, "%u rounds of reads: every word right, corrected (%u wrong)", round, bad);
	ok(device_value("ecc_errors/sbe_volatile") - before == total,
	   "sysfs ecc_errors/sbe_volatile counted all %u (%lld)", total,
	   device_value("ecc_errors/sbe_volatile") - before);
	ok(device_value("ecc_errors/sbe_aggregate") - agg == total,
	   "sysfs ecc_errors/sbe_aggregate too");
	ok(device_value("ecc_errors/dbe_volatile") == 0, "no uncorrectable error");
	ok(device_value("degraded") == 0, "sysfs degraded: 0");
	/* the pages it retired, pending while the buffer lives, then out */
	usleep(300000);	/* the storm's last error work */
	n = device_value("retired_pages_pending");
	ok(n >= 1, "sysfs retired_pages_pending: %u of the storm's pages", n);
	tgpu_ctx_destroy(ctx);
	usleep(300000);
	ok(device_value("retired_pages_pending") == 0,
	   "the buffer freed, none is pending (%lld)", device_value("retired_pages_pending"));
	for (i = 0, retired = 0; i < BUF_PAGES; i++)
		retired += listed(vram[i], "sbe", "retired");
	ok(retired == n, "sysfs retired_pages: those %u of the buffer's pages, sbe, retired (%u)",
	   n, retired);

	/* two on one page retire it (pending: in use); one does not */
	buffer_context(&ctx2, &d2, &map2);
	p0 = vram_of(d2, 0) & ~(uint64_t)(PAGE - 1);
	p1 = vram_of(d2, PAGE) & ~(uint64_t)(PAGE - 1);
	if (inject(p0 + 64, "sbe") || inject(p0 + 128, "sbe") || inject(p1, "sbe"))
		bail("inject");
	if (tgpu_memcpy_dtoh(ctx2, out, d2, BUF))
		bail(tgpu_get_last_error_message());
	ok(check_pattern(out) == 0, "a second buffer, three SBEs: read right");
	usleep(300000);	/* the error work runs after the interrupt */
	ok(listed(p0, "sbe", "pending"),
	   "sysfs retired_pages: 0x%" PRIx64 " (two SBEs), sbe, pending", p0);
	ok(!listed(p1, "sbe", "pending"), "not 0x%" PRIx64 " (one SBE)", p1);
	ok(device_value("retired_pages_pending") == 1, "sysfs retired_pages_pending: 1 (%lld)",
	   device_value("retired_pages_pending"));
	ok(!strcmp(smi("ecc.errors.corrected.volatile.total,ecc.errors.uncorrected.volatile.device_memory,retired_pages.pending"),
		   "1003, 0, Yes"),
	   "tgpu-smi: 1003 corrected, 0 uncorrected, a page pending (%s)",
	   smi("ecc.errors.corrected.volatile.total,ecc.errors.uncorrected.volatile.device_memory,retired_pages.pending"));
	ok(klog_has("Xid 63: ECC page retirement recorded"), "dmesg: Xid 63");
	tgpu_ctx_destroy(ctx2);
}

/* ---- an uncorrectable error ------------------------------------------------ */

static sigjmp_buf bus_jmp;

static void on_sigbus(int sig)
{
	(void)sig;
	siglongjmp(bus_jmp, 1);
}

/* 0 when the CPU access of @p gets SIGBUS, 1 when it reads. */
static int touch(volatile uint32_t *p, uint32_t *val)
{
	struct sigaction sa = { .sa_handler = on_sigbus }, old;
	int r;

	sigaction(SIGBUS, &sa, &old);
	if (sigsetjmp(bus_jmp, 1)) {
		r = 0;
	} else {
		*val = *p;
		r = 1;
	}
	sigaction(SIGBUS, &old, NULL);
	return r;
}

/*
 * This process's queues in debugfs "channels", and how many of them are
 * dead with ECC_UNCORRECTABLE.
 */
static void my_queues(unsigned int *queues, unsigned int *dead_ecc)
{
	char *txt = node_debugfs(node, "channels"), *line, *save = NULL;
	bool mine = false;
	int pid;

	*queues = *dead_ecc = 0;
	for (line = txt ? strtok_r(txt, "\n", &save) : NULL; line;
	     line = strtok_r(NULL, "\n", &save)) {
		if (sscanf(line, "queue %*u pid %d", &pid) == 1) {
			mine = pid == (int)getpid();
			*queues += mine;
		} else if (mine && strstr(line, "dead -5 chan_error ECC_UNCORRECTABLE")) {
			(*dead_ecc)++;
		}
	}
	free(txt);
}

/*
 * The victim: its buffer's page 3 takes a DBE.  Exit status: 0 when all
 * went as it should, else which step failed.
 */
static int victim_main(int out_fd)
{
	static uint32_t out[BUF / 4];
	unsigned int queues, dead;
	volatile uint32_t *map;
	tgpu_deviceptr d, e;
	tgpu_context *ctx;
	tgpu_status st;
	uint64_t page;
	uint32_t v;

	if (tgpu_init(0) || tgpu_device_get(&dev, 0))
		return 10;
	buffer_context(&ctx, &d, &map);
	/* work on another engine too: a queue that did not read the page */
	if (tgpu_mem_alloc(ctx, &e, PAGE) || tgpu_memset_d32(ctx, e, 7, PAGE / 4))
		return 18;
	page = vram_of(d, 3 * PAGE) & ~(uint64_t)(PAGE - 1);
	if (write(out_fd, &page, sizeof(page)) != sizeof(page))
		return 11;
	if (inject(page + 0x100, "dbe"))
		return 12;
	st = tgpu_memcpy_dtoh(ctx, out, d, BUF);
	if (st != TGPU_ERROR_ECC_UNCORRECTABLE) {
		fprintf(stderr, "victim: the copy gave %s (%s)\n", S(st),
			tgpu_get_last_error_message());
		return 13;
	}
	if (!strstr(tgpu_get_last_error_message(), "ECC")) {
		fprintf(stderr, "victim: the message: %s\n", tgpu_get_last_error_message());
		return 14;
	}
	/* the error work zaps and refuses the page: a moment after the error */
	usleep(300000);
	if (touch(map + 3 * PAGE / 4 + 7, &v)) {
		fprintf(stderr, "victim: page 3 still reads (0x%08x), no SIGBUS\n", v);
		return 15;
	}
	if (!touch(map + 2 * PAGE / 4 + 5, &v) || v != pattern(2 * PAGE / 4 + 5)) {
		fprintf(stderr, "victim: page 2 does not read right (0x%08x)\n", v);
		return 16;
	}
	tgpu_ctx_get_reset_status(ctx, &st);
	if (st != TGPU_ERROR_ECC_UNCORRECTABLE)
		return 17;
	/* the reader's queue, and the driver stopped the others of its VM */
	my_queues(&queues, &dead);
	if (queues < 2 || dead != queues) {
		fprintf(stderr, "victim: %u queues, %u dead with ECC_UNCORRECTABLE\n",
			queues, dead);
		return 19;
	}
	tgpu_ctx_destroy(ctx);
	return 0;
}

/* The innocent: copies of its own, byte-exact, until told to stop. */
static int innocent_main(int ready, int done)
{
	static uint32_t in[BUF / 4], out[BUF / 4];
	struct pollfd pfd = { .fd = done, .events = POLLIN };
	unsigned int rounds = 0, i;
	tgpu_context *ctx;
	tgpu_deviceptr d;

	if (tgpu_init(0) || tgpu_device_get(&dev, 0) || tgpu_ctx_create(&ctx, dev, 0) ||
	    tgpu_mem_alloc(ctx, &d, BUF))
		return 20;
	do {
		for (i = 0; i < BUF / 4; i++)
			in[i] = pattern(i) ^ rounds;
		if (tgpu_memcpy_htod(ctx, d, in, BUF) || tgpu_memcpy_dtoh(ctx, out, d, BUF)) {
			fprintf(stderr, "innocent: round %u: %s\n", rounds,
				tgpu_get_last_error_message());
			return 21;
		}
		if (memcmp(in, out, BUF))
			return 22;
		if (!rounds++ && write(ready, "r", 1) != 1)
			return 23;
	} while (rounds < 10 || poll(&pfd, 1, 0) == 0);
	tgpu_ctx_destroy(ctx);
	return 0;
}

static void test_dbe(void)
{
	int ready[2], done[2], pg[2], st_v, st_i;
	pid_t victim, innocent;
	uint64_t page = 0;
	char want[96], *pages, c;

	if (pipe(ready) || pipe(done) || pipe(pg))
		bail("pipe");
	innocent = fork();
	if (innocent == 0) {
		close(pg[0]);
		close(pg[1]);
		_exit(innocent_main(ready[1], done[0]));
	}
	close(ready[1]);
	close(done[0]);
	if (read(ready[0], &c, 1) != 1)
		bail("the innocent process did not start");
	victim = fork();
	if (victim == 0)
		_exit(victim_main(pg[1]));
	/* the victim's end only: a victim that fails leaves none open */
	close(pg[1]);
	if (read(pg[0], &page, sizeof(page)) != sizeof(page)) {
		kill(innocent, SIGKILL);
		bail("the victim did not start");
	}
	waitpid(victim, &st_v, 0);
	ok(WIFEXITED(st_v) && WEXITSTATUS(st_v) == 0,
	   "the victim: ECC_UNCORRECTABLE, all its queues stopped, SIGBUS on the page, the rest maps (exit %d)",
	   WIFEXITED(st_v) ? WEXITSTATUS(st_v) : -1);
	if (write(done[1], "d", 1) != 1)
		bail("pipe");
	waitpid(innocent, &st_i, 0);
	ok(WIFEXITED(st_i) && WEXITSTATUS(st_i) == 0,
	   "the innocent process: every copy byte-exact through it (exit %d)",
	   WIFEXITED(st_i) ? WEXITSTATUS(st_i) : -1);

	snprintf(want, sizeof(want), "Xid 48: uncorrectable ECC error at 0x%" PRIx64, page + 0x100);
	ok(klog_has(want), "dmesg: %s", want);
	ok(klog_has("Xid 63: ECC page retirement recorded"), "dmesg: Xid 63");
	ok(device_value("ecc_errors/dbe_volatile") == 1, "sysfs ecc_errors/dbe_volatile: 1");
	ok(device_value("ecc_errors/dbe_aggregate") >= 1, "sysfs ecc_errors/dbe_aggregate");
	pages = device_text("retired_pages");
	snprintf(want, sizeof(want), "0x%010" PRIx64 " dbe ", page);
	ok(pages && strstr(pages, want), "sysfs retired_pages lists 0x%" PRIx64 " (dbe)", page);
	free(pages);
	ok(device_value("degraded") == 0, "sysfs degraded: 0");
	/* the victim's buffer is freed: the page is out of use, not pending */
	ok(!strcmp(smi("ecc.mode.current,ecc.mode.pending,ecc.errors.uncorrected.volatile.total,ecc.errors.uncorrected.aggregate.total,retired_pages.dbe,retired_pages.pending"),
		   "Enabled, Enabled, 1, 1, 1, No"),
	   "tgpu-smi: ECC on, 1 uncorrected, 1 page retired, none pending (%s)",
	   smi("ecc.mode.current,ecc.mode.pending,ecc.errors.uncorrected.volatile.total,ecc.errors.uncorrected.aggregate.total,retired_pages.dbe,retired_pages.pending"));
	/* the page as --query-retired-pages and libtgpu list it */
	{
		struct tgpu_retired_page rp[64];
		char cmd[160], line[256] = "";
		int n = 0, i, found = -1;
		FILE *f;

		tgpu_status st = tgpu_device_get_retired_pages(dev, rp, 64, &n);

		ok(st == TGPU_SUCCESS && n >= 1, "tgpu_device_get_retired_pages: %d page(s)", n);
		for (i = 0; i < n && i < 64; i++)
			if (rp[i].address == page)
				found = i;
		ok(found >= 0 && rp[found].cause == TGPU_RETIRED_CAUSE_DBE && !rp[found].pending &&
		   rp[found].timestamp > 1700000000ull,
		   "  0x%" PRIx64 ": dbe, not pending, retired at %" PRIu64, page,
		   found >= 0 ? rp[found].timestamp : 0);
		snprintf(cmd, sizeof(cmd),
			 "tgpu-smi --query-retired-pages=retired_pages.address,retired_pages.cause,retired_pages.pending --format=csv,noheader | grep -i %" PRIx64,
			 page);
		f = popen(cmd, "r");
		if (f && fgets(line, sizeof(line), f))
			line[strcspn(line, "\n")] = 0;
		if (f)
			pclose(f);
		ok(strstr(line, "Double Bit ECC") && strstr(line, ", No"),
		   "tgpu-smi --query-retired-pages: %s", line);
	}
	ok(tgpu_device_get_health(dev) == TGPU_SUCCESS, "tgpu_device_get_health: fit for service");
	printf("# retired-page 0x%" PRIx64 "\n", page);
}

/* ---- the retirement limit ---------------------------------------------------- */

static void test_limit(int limit)
{
	static uint32_t out[BUF / 4];
	tgpu_status st;
	volatile uint32_t *map;
	tgpu_context *ctx;
	tgpu_deviceptr d;
	uint64_t p;
	int i;

	ok(device_value("degraded") == 0, "sysfs degraded: 0 before");
	buffer_context(&ctx, &d, &map);
	/* two SBEs on each of limit + 1 pages: as many retirements */
	for (i = 0; i <= limit; i++) {
		p = vram_of(d, (uint64_t)i * PAGE) & ~(uint64_t)(PAGE - 1);
		if (inject(p, "sbe") || inject(p + 8, "sbe"))
			bail("inject");
	}
	if (tgpu_memcpy_dtoh(ctx, out, d, BUF))
		bail(tgpu_get_last_error_message());
	ok(check_pattern(out) == 0, "the data read right");
	usleep(300000);
	ok(device_value("retired_pages_pending") == limit + 1,
	   "%d pages retired (%lld)", limit + 1, device_value("retired_pages_pending"));
	ok(device_value("degraded") == 1, "sysfs degraded: 1 past a limit of %d", limit);
	ok(klog_has("device degraded"), "dmesg: the device is degraded");
	st = tgpu_device_get_health(dev);
	ok(st == TGPU_ERROR_DEVICE_DEGRADED &&
	   strstr(tgpu_get_last_error_message(), "replace the board"),
	   "tgpu_device_get_health: %s (%s)", tgpu_get_error_name(st),
	   tgpu_get_last_error_message());
	tgpu_ctx_destroy(ctx);
}

int main(int argc, char **argv)
{
	int i, sbe = 0, dbe = 0, limit = -1;
	char *mode;

	for (i = 1; i < argc; i++) {
		if (!strncmp(argv[i], "--sbe=", 6))
			sbe = atoi(argv[i] + 6);
		else if (!strcmp(argv[i], "--dbe"))
			dbe = 1;
		else if (!strncmp(argv[i], "--limit=", 8))
			limit = atoi(argv[i] + 8);
		else if (!strncmp(argv[i], "--node=", 7))
			node = argv[i] + 7;
		else
			sbe = -1;
	}
	if (sbe < 0 || (!sbe && !dbe && limit < 0)) {
		fprintf(stderr, "usage: test-ras --sbe=N | --dbe | --limit=L [--node=PATH]\n");
		return 2;
	}
	if (tgpu_init(0) || tgpu_device_get(&dev, 0))
		bail(tgpu_get_last_error_message());
	mode = device_text("ecc_mode");
	ok(mode && !strcmp(mode, "1 1\n"), "sysfs ecc_mode: \"1 1\", enabled and enabled pending");
	free(mode);
	if (sbe)
		test_sbe(sbe);
	if (dbe)
		test_dbe();
	if (limit >= 0)
		test_limit(limit);
	return tap_done();
}
