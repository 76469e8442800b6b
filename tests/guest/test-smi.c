// SPDX-License-Identifier: MIT
/*
 * In-guest test of tgpu-smi's live state against the real device: VRAM
 * in use (memory.used, DRM_TGPU_PARAM_VRAM_USED), the processes using
 * the GPU (DRM fdinfo: --query-compute-apps, the summary's Processes box,
 * -q) and dmon.  A child process holds buffer objects while tgpu-smi
 * (from $PATH) is asked about it:
 *
 *   test-smi [--smi=PATH]
 *
 * The child ("smi-holder") opens the render node twice, dup()s the first
 * file (the same DRM client) and creates 64 MiB on the first file and
 * 16 MiB on the second: one process, two clients, 80 MiB.  Output is TAP;
 * the exit status is non-zero if any check failed.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <xf86drm.h>

#include <tgpu_drm.h>

#include "libtgpu.h"

#include "guest-tap.h"

#define MiB ((uint64_t)1024 * 1024)
#define HOLD_A (64 * MiB)
#define HOLD_B (16 * MiB)
#define HOLDER_NAME "smi-holder"

static const char *smi = "tgpu-smi";

/* ---- running tgpu-smi ----------------------------------------------------- */

struct run {
	int status;             /* exit status, -1 if it did not exit */
	char out[32768];
	double secs;            /* how long it ran */
};

static void run(struct run *r, const char *args)
{
	struct timespec t0, t1;
	char cmd[512];
	size_t n = 0, got;
	FILE *p;
	int st;

	snprintf(cmd, sizeof(cmd), "%s %s 2>&1", smi, args);
	clock_gettime(CLOCK_MONOTONIC, &t0);
	r->status = -1;
	r->out[0] = '\0';
	p = popen(cmd, "r");
	if (!p) {
		printf("# popen(%s): %s\n", cmd, strerror(errno));
		return;
	}
	while (n < sizeof(r->out) - 1 &&
	       (got = fread(r->out + n, 1, sizeof(r->out) - 1 - n, p)) > 0)
		n += got;
	r->out[n] = '\0';
	st = pclose(p);
	clock_gettime(CLOCK_MONOTONIC, &t1);
	r->secs = (double)(t1.tv_sec - t0.tv_sec) + (t1.tv_nsec - t0.tv_nsec) / 1e9;
	if (st != -1 && WIFEXITED(st))
		r->status = WEXITSTATUS(st);
	if (r->status != 0)
		printf("# %s exited %d:\n%s", cmd, r->status, r->out);
}

/* Print output as diagnostics, for a failed check. */
static void show(const struct run *r)
{
	const char *p = r->out, *nl;

	while (*p) {
		nl = strchr(p, '\n');
		printf("#   %.*s\n", (int)(nl ? nl - p : (long)strlen(p)), p);
		if (!nl)
			break;
		p = nl + 1;
	}
}

/* memory.used in MiB, as tgpu-smi prints it; -1 if it did not. */
static long smi_memory_used(void)
{
	struct run r;
	char *end;
	long v;

	run(&r, "--query-gpu=memory.used --format=csv,noheader,nounits");
	v = strtol(r.out, &end, 10);
	if (r.status != 0 || end == r.out || strcmp(end, "\n") != 0) {
		show(&r);
		return -1;
	}
	return v;
}

/* ---- the holder ----------------------------------------------------------- */

static int gem_create(int fd, uint64_t size)
{
	struct drm_tgpu_gem_create c = { .size = size };

	return drmIoctl(fd, DRM_IOCTL_TGPU_GEM_CREATE, &c) ? -errno : 0;
}

/*
 * A forked child shares its parent's open files, and so its DRM clients
 * (libtgpu's file of the device): the holder drops them to be only itself.
 */
static void close_drm_files(void)
{
	char link[64], target[64];
	ssize_t n;
	int fd;

	for (fd = 3; fd < 1024; fd++) {
		snprintf(link, sizeof(link), "/proc/self/fd/%d", fd);
		n = readlink(link, target, sizeof(target) - 1);
		if (n <= 0)
			continue;
		target[n] = '\0';
		if (strncmp(target, "/dev/dri/", 9) == 0)
			close(fd);
	}
}

/*
 * Fork the holder: it reports 0 or an errno on ready, then holds its
 * buffers until release closes.  Returns its pid, or -1.
 */
static pid_t start_holder(const char *node, int *release)
{
	int ready[2], hold[2], err = 0, a, a2, b;
	pid_t pid;
	char c;

	if (pipe(ready) || pipe(hold))
		return -1;
	pid = fork();
	if (pid < 0)
		return -1;
	if (pid == 0) {
		close(ready[0]);
		close(hold[1]);
		prctl(PR_SET_NAME, HOLDER_NAME);
		close_drm_files();
		a = open(node, O_RDWR);
		a2 = a >= 0 ? dup(a) : -1;     /* the same client as a */
		b = open(node, O_RDWR);
		if (a < 0 || a2 < 0 || b < 0)
			err = errno;
		if (!err)
			err = -gem_create(a, HOLD_A);
		if (!err)
			err = -gem_create(b, HOLD_B);
		if (write(ready[1], &err, sizeof(err)) != sizeof(err))
			_exit(2);
		/* Hold until the parent closes its end (or dies). */
		while (read(hold[0], &c, 1) < 0 && errno == EINTR)
			;
		_exit(0);
	}
	close(ready[1]);
	close(hold[0]);
	if (read(ready[0], &err, sizeof(err)) != sizeof(err) || err) {
		printf("# holder failed: %s\n", err ? strerror(err) : "died");
		close(ready[0]);
		close(hold[1]);
		waitpid(pid, NULL, 0);
		return -1;
	}
	close(ready[0]);
	*release = hold[1];
	return pid;
}

static void stop_holder(pid_t pid, int release)
{
	int st;

	close(release);
	waitpid(pid, &st, 0);
}

/* ---- checks --------------------------------------------------------------- */

/* "pid, N MiB" lines of --query-compute-apps=pid,used_memory, noheader. */
struct app {
	long pid, mib;
};

static int parse_apps(const char *out, struct app *apps, int max)
{
	const char *p = out;
	int n = 0;

	while (*p && n < max) {
		long pid, mib;
		int used = 0;

		if (sscanf(p, "%ld, %ld MiB\n%n", &pid, &mib, &used) != 2 || !used)
			return -1;
		apps[n].pid = pid;
		apps[n].mib = mib;
		n++;
		p += used;
	}
	return *p ? -1 : n;
}

/* a dmon percentage: a whole number, 0 to 100 */
static bool pct(const char *s)
{
	char *end;
	unsigned long v = strtoul(s, &end, 10);

	return end != s && !*end && v <= 100;
}

static void check_dmon(const struct tgpu_device_info *info)
{
	int lines = 0, headers = 0, data = 0, fields, good = 0;
	char *copy, *line, *save = NULL;
	char mclk[32];
	struct run r;

	run(&r, "dmon -c 2");
	ok(r.status == 0, "tgpu-smi dmon -c 2 exits 0");
	copy = strdup(r.out);
	snprintf(mclk, sizeof(mclk), " %5" PRIu32 " ", info->clk_mem_mhz);
	for (line = strtok_r(copy, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		char f[12][16];

		lines++;
		if (line[0] == '#') {
			headers++;
			continue;
		}
		data++;
		fields = sscanf(line, "%15s %15s %15s %15s %15s %15s %15s %15s %15s %15s %15s",
				f[0], f[1], f[2], f[3], f[4], f[5], f[6], f[7], f[8], f[9],
				f[10]);
		/* gpu, then pwr gtemp mtemp sm mem enc dec mclk pclk */
		/* an idle board runs at its boost clock, draws 22 W to its limit */
		if (fields == 10 && strcmp(f[0], "0") == 0 &&
		    strtoul(f[8], NULL, 10) == info->clk_mem_mhz &&
		    strtoul(f[9], NULL, 10) == info->clk_sm_boost_mhz &&
		    strtoul(f[1], NULL, 10) >= 22 &&
		    strtoul(f[1], NULL, 10) * 1000 <= info->power_limit_mw &&
		    strtoul(f[2], NULL, 10) > 0 && strcmp(f[3], "-") == 0 &&
		    pct(f[4]) && pct(f[5]) && strcmp(f[6], "-") == 0 &&
		    strcmp(f[7], "-") == 0)
			good++;
	}
	free(copy);
	if (!ok(headers == 2 && data == 2 && lines == 4,
		"dmon -c 2: two header lines and 2 data lines (%d and %d)", headers, data))
		show(&r);
	if (!ok(good == 2, "dmon lines: GPU 0, pwr and gtemp, sm and mem in percent, mclk %" PRIu32 " MHz, pclk the SM clock, unreported ones '-'",
		info->clk_mem_mhz))
		show(&r);
	ok(r.secs >= 0.9, "dmon -c 2 -d 1 waited a second between samples (%.2f s)", r.secs);
}

int main(int argc, char **argv)
{
	struct tgpu_process_info procs[32], *holder = NULL, *self = NULL;
	uint64_t free0, total, free1, free2;
	long m0, m1, m2, fb = -1;
	struct tgpu_device_info info;
	struct app apps[32];
	int i, n, count, release;
	char want[512];
	tgpu_device *dev;
	struct run r;
	pid_t pid;

	for (i = 1; i < argc; i++) {
		if (strncmp(argv[i], "--smi=", 6) == 0) {
			smi = argv[i] + 6;
		} else {
			fprintf(stderr, "usage: %s [--smi=PATH]\n", argv[0]);
			return 2;
		}
	}
	if (tgpu_init(0) || tgpu_device_get(&dev, 0) || tgpu_device_get_info(dev, &info))
		bail(tgpu_get_last_error_message());

	check_dmon(&info);

	/* Nothing held yet. */
	ok(tgpu_device_get_memory_info(dev, &free0, &total) == TGPU_SUCCESS,
	   "tgpu_device_get_memory_info");
	ok(total == info.vram_size, "total is the VRAM size (%" PRIu64 " MiB)", total / MiB);
	m0 = smi_memory_used();
	ok(m0 >= 0 && (uint64_t)m0 == (total - free0) / MiB,
	   "memory.used (%ld MiB) is VRAM_USED in MiB", m0);

	pid = start_holder(info.render_node, &release);
	if (pid < 0)
		bail("cannot start the holder process");

	/* Its buffers: 80 MiB more, plus the driver's page tables of 2 files. */
	ok(tgpu_device_get_memory_info(dev, &free1, &total) == TGPU_SUCCESS,
	   "tgpu_device_get_memory_info with the holder");
	ok(free0 - free1 >= HOLD_A + HOLD_B && free0 - free1 < HOLD_A + HOLD_B + MiB,
	   "free VRAM shrank by the holder's 80 MiB (%" PRIu64 " KiB)", (free0 - free1) >> 10);
	m1 = smi_memory_used();
	ok(m1 - m0 >= 80 && m1 - m0 <= 81,
	   "memory.used grew by the buffers' 80 MiB (%ld -> %ld MiB)", m0, m1);

	/* libtgpu: the holder, and this process (libtgpu's own file, empty) */
	ok(tgpu_device_get_processes(dev, procs, 32, &count) == TGPU_SUCCESS,
	   "tgpu_device_get_processes");
	for (i = 0; i < count && i < 32; i++) {
		if (procs[i].pid == pid)
			holder = &procs[i];
		else if (procs[i].pid == getpid())
			self = &procs[i];
	}
	ok(count == 2 && holder && self, "two processes use the GPU: the holder and this test (%d)",
	   count);
	ok(holder && holder->used_memory == HOLD_A + HOLD_B,
	   "the holder's memory is 80 MiB: its dup()ed file counted once (%" PRIu64 " KiB)",
	   holder ? holder->used_memory >> 10 : 0);
	ok(holder && holder->clients == 2, "the holder has 2 clients (%u)",
	   holder ? holder->clients : 0);
	ok(holder && strcmp(holder->name, HOLDER_NAME) == 0, "its name is its comm (%s)",
	   holder ? holder->name : "");
	ok(self && self->used_memory == 0 && self->clients == 1,
	   "this test: 1 client, no memory");
	ok(tgpu_device_get_processes(dev, NULL, 0, &count) == TGPU_SUCCESS && count == 2,
	   "counting only (NULL, 0) gives the same count");
	ok(tgpu_device_get_processes(dev, procs, 1, &count) == TGPU_SUCCESS && count == 2 &&
	   procs[0].pid == (getpid() < pid ? getpid() : pid),
	   "a short array gets the first by pid, and the full count");

	/* tgpu-smi --query-compute-apps */
	run(&r, "--query-compute-apps=pid,used_memory --format=csv,noheader");
	n = parse_apps(r.out, apps, 32);
	if (!ok(r.status == 0 && n == 2, "--query-compute-apps lists 2 processes (%d)", n))
		show(&r);
	for (i = 0; i < n; i++) {
		if (apps[i].pid == pid)
			ok(apps[i].mib >= 64 && apps[i].mib == 80,
			   "... the holder (pid %d) with 80 MiB (%ld)", (int)pid, apps[i].mib);
		else
			ok(apps[i].pid == getpid() && apps[i].mib == 0,
			   "... and this test with 0 MiB, not tgpu-smi itself (pid %ld)", apps[i].pid);
	}
	run(&r, "--query-compute-apps=pid,process_name,used_memory,gpu_bus_id --format=csv");
	snprintf(want, sizeof(want),
		 "pid, process_name, used_gpu_memory [MiB], gpu_bus_id\n");
	ok(strncmp(r.out, want, strlen(want)) == 0, "header with canonical names and units");
	snprintf(want, sizeof(want), "\n%d, " HOLDER_NAME ", 80 MiB, %s\n", (int)pid,
		 info.pci_bus_id);
	if (!ok(strstr(r.out, want) != NULL, "the holder's row: pid, name, memory, bus id"))
		show(&r);

	/* The summary's Processes box and -q */
	run(&r, "");
	snprintf(want, sizeof(want), "%11d     C    " HOLDER_NAME, (int)pid);
	if (!ok(r.status == 0 && strstr(r.out, want) && strstr(r.out, "80MiB |"),
		"the summary lists the holder with 80MiB"))
		show(&r);
	snprintf(want, sizeof(want), "%ldMiB / %" PRIu64 "MiB", m1, info.vram_size / MiB);
	ok(strstr(r.out, want) != NULL, "the summary's Memory-Usage is %s", want);
	run(&r, "-q");
	snprintf(want, sizeof(want), "        Process ID%*s: %d\n            Type%*s: C\n"
		 "            Name%*s: " HOLDER_NAME "\n            Used GPU Memory%*s: 80 MiB\n",
		 55 - 18, "", (int)pid, 55 - 16, "", 55 - 16, "", 55 - 27, "");
	if (!ok(r.status == 0 && strstr(r.out, want), "-q lists the holder in Processes"))
		show(&r);
	snprintf(want, sizeof(want), "        Used%*s: %ld MiB\n", 55 - 12, "", m1);
	ok(strstr(r.out, want) != NULL, "-q FB Memory Usage: Used %ld MiB", m1);

	/* dmon -s m: the fb column */
	run(&r, "dmon -c 1 -s m");
	n = sscanf(r.out, "# gpu fb bar1\n# Idx MB MB\n 0 %ld -", &fb);
	if (!ok(r.status == 0 && n == 1 && fb == m1, "dmon -s m: fb is memory.used (%ld MiB)", fb))
		show(&r);

	stop_holder(pid, release);
	ok(tgpu_device_get_memory_info(dev, &free2, &total) == TGPU_SUCCESS && free2 == free0,
	   "the holder gone, free VRAM is back to its baseline");
	m2 = smi_memory_used();
	ok(m2 == m0, "... and memory.used too (%ld MiB)", m2);
	run(&r, "--query-compute-apps=pid --format=csv,noheader");
	snprintf(want, sizeof(want), "%d\n", getpid());
	ok(r.status == 0 && strcmp(r.out, want) == 0, "only this test is listed now");
	return tap_done();
}
