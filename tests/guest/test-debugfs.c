// SPDX-License-Identifier: MIT
/*
 * In-guest test of tgpu.ko's debugfs files (/sys/kernel/debug/dri/<minor>/
 * channels, runlists, rings, files, interrupts): a file binds memory,
 * creates queues and submits jobs, and each debugfs file must show them
 * (its pid, its VAs, its queue's channel, the decoded pushbuffers, a
 * dead queue's error, the interrupt counts).  Then the device is unbound
 * through sysfs with the files open: reading them is clean (no oops:
 * the harness checks dmesg), and after a rebind they are back, empty.
 * Meant for a guest booted with --device-opts vram-size=1G:
 *
 *   test-debugfs [--node=PATH] [--verbose]   (--verbose: print the files)
 *
 * Output is TAP; the exit status is non-zero if any check failed.
 */
#include <dirent.h>
#include <fcntl.h>
#include <inttypes.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/time.h>

#include "guest-tap.h"
#include "guest-sysfs.h"
#include "tgpu-raw.h"

static const char *node = "/dev/dri/renderD128";
static bool verbose;

static const char *const files[] = {
	"channels", "runlists", "rings", "files", "interrupts",
};
#define NR_FILES (sizeof(files) / sizeof(files[0]))

#define PB_VA		0x0012340000ull
#define PB_SIZE		0x10000u
#define DATA_OFF	0x8000u
#define SYS_VA		0x0056780000ull
#define SYS_SIZE	0x2000u
#define PB_VA2		0x0090000000ull
#define DEF_VA		0x00a0000000ull
#define DEF_SIZE	0x30000u
#define SEM_VA		0x00b0000000ull

static char dir[128];

/* All of an open file from offset 0; NULL (errno set) on a read error. */
static char *read_fd(int fd)
{
	size_t len = 0, cap = 4096;
	char *buf = malloc(cap);
	ssize_t n;

	if (!buf)
		return NULL;
	for (;;) {
		if (len + 1 >= cap) {
			char *nb = realloc(buf, cap *= 2);

			if (!nb) {
				free(buf);
				return NULL;
			}
			buf = nb;
		}
		n = pread(fd, buf + len, cap - len - 1, (off_t)len);
		if (n < 0) {
			int e = errno;

			free(buf);
			errno = e;
			return NULL;
		}
		if (n == 0)
			break;
		len += (size_t)n;
	}
	buf[len] = 0;
	return buf;
}

static char *read_debugfs(const char *name)
{
	char path[256];

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	return read_text(path);
}

/* Print a file as TAP comments, for failures. */
static void dump(const char *name, const char *s)
{
	const char *p = s, *nl;

	printf("# --- %s ---\n", name);
	while (p && *p) {
		nl = strchr(p, '\n');
		printf("# %.*s\n", (int)(nl ? nl - p : (long)strlen(p)), p);
		p = nl ? nl + 1 : NULL;
	}
}

static bool has(const char *s, const char *needle)
{
	return s && strstr(s, needle);
}

/* The line of @s that contains @needle, copied to @out; false if none. */
static bool line_with(const char *s, const char *needle, char *out,
		      size_t len)
{
	const char *p = s ? strstr(s, needle) : NULL, *b, *e;

	if (!p)
		return false;
	if (*p == '\n')	/* a needle anchored at a line's start */
		p++;
	for (b = p; b > s && b[-1] != '\n'; b--)
		;
	e = strchr(p, '\n');
	if (!e)
		e = p + strlen(p);
	snprintf(out, len, "%.*s", (int)(e - b), b);
	return true;
}

/* The @k-th file's part of `files` (0 the oldest), copied to @out. */
static void file_section(const char *s, int k, char *out, size_t len)
{
	const char *p = s && strncmp(s, "file ", 5) == 0 ? s : NULL, *e;

	while (p && k--) {
		p = strstr(p, "\nfile ");
		p = p ? p + 1 : NULL;
	}
	if (!p) {
		*out = 0;
		return;
	}
	e = strstr(p, "\nfile ");
	if (!e)
		e = strstr(p, "\ntotal ");
	if (!e)
		e = p + strlen(p);
	snprintf(out, len, "%.*s", (int)(e - p), p);
}

static long long field(const char *line, const char *key)
{
	char k[64];
	const char *p;

	snprintf(k, sizeof(k), "%s ", key);
	p = strstr(line, k);
	return p ? strtoll(p + strlen(k), NULL, 0) : -1;
}

static void on_alarm(int sig)
{
	(void)sig;
}

/*
 * The second file unbinds an object of its own while its job waits on a
 * semaphore; a signal interrupts the unbind's wait for the job.  The
 * mapping must leave the VM and its object's list at once, the object
 * stay until the close.  Returns the job's syncobj; *sem releases it.
 */
static uint32_t deferred_unbind(int fd2, volatile uint32_t **sem)
{
	struct sigaction sa = { .sa_handler = on_alarm };
	struct itimerval it = { .it_value.tv_usec = 200000 };
	struct drm_tgpu_submit_range r = { .va = SEM_VA + 256, .dwords = 12 };
	struct timespec t0, t1;
	uint32_t def, sb, q, s, *p;
	char *txt, sec[4096];
	double secs;
	int err;

	def = gem_create_flags(fd2, DEF_SIZE, 0);
	sb = gem_create_flags(fd2, 4096, 0);
	p = gem_mmap(fd2, sb, 4096);
	*sem = (volatile uint32_t *)p;
	if (vm_bind(fd2, def, 0, DEF_VA, DEF_SIZE, 0) || gem_close(fd2, def) ||
	    vm_bind(fd2, sb, 0, SEM_VA, 4096, 0) || queue_create(fd2, TGPU_RUNLIST_CE0, 0, &q))
		bail("the second file's objects or queue failed");
	/* "started" at SEM_VA + 8, then wait until *sem == 1 */
	pb_release(p + 64, SEM_VA + 8, 1);
	pb_sem_op(p + 70, SEM_VA, 1, TGPU_SEM_OP_ACQUIRE);
	s = syncobj_create(fd2);
	if (submit(fd2, q, &r, 1, NULL, 0, s))
		bail("SUBMIT of the semaphore wait failed");
	/* on the hardware (else the unbind has nothing to wait for) */
	clock_gettime(CLOCK_MONOTONIC, &t0);
	do {
		clock_gettime(CLOCK_MONOTONIC, &t1);
		if (t1.tv_sec - t0.tv_sec > 10)
			bail("the semaphore wait never started");
	} while (((volatile uint32_t *)p)[2] != 1);

	sigaction(SIGALRM, &sa, NULL);	/* no SA_RESTART */
	setitimer(ITIMER_REAL, &it, NULL);
	clock_gettime(CLOCK_MONOTONIC, &t0);
	err = vm_unbind(fd2, DEF_VA, DEF_SIZE);
	clock_gettime(CLOCK_MONOTONIC, &t1);
	secs = (double)(t1.tv_sec - t0.tv_sec) + (t1.tv_nsec - t0.tv_nsec) / 1e9;
	ok(err == 0 && secs < 2.0 && syncobj_status(fd2, s) == 0,
	   "VM_UNBIND under a waiting job returns when a signal interrupts its wait (%s, %.2f s)",
	   errname(err), secs);
	txt = read_debugfs("files");
	file_section(txt, 1, sec, sizeof(sec));
	if (!ok(has(sec, "    1 unbound mappings waiting for the file's close\n") &&
		!has(sec, "0x00a0000000") && !has(sec, "size 0x30000 mappings"),
		"files: the unbound mapping is waiting for the close, off the VM and its object"))
		dump("second file", sec);
	free(txt);
	return s;
}

/* Read every regular file under every /sys/kernel/debug/dri/ directory. */
static int read_all_dri(void)
{
	DIR *top = opendir("/sys/kernel/debug/dri"), *d;
	struct dirent *a, *b;
	char path[600];
	int n = 0, fd;

	if (!top)
		return 0;
	while ((a = readdir(top))) {
		if (a->d_name[0] == '.')
			continue;
		snprintf(path, sizeof(path), "/sys/kernel/debug/dri/%s", a->d_name);
		d = opendir(path);
		if (!d)
			continue;
		while ((b = readdir(d))) {
			char *s;

			if (b->d_name[0] == '.')
				continue;
			snprintf(path, sizeof(path), "/sys/kernel/debug/dri/%s/%s",
				 a->d_name, b->d_name);
			fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
			if (fd < 0)
				continue;
			s = read_fd(fd);
			free(s);
			close(fd);
			n++;
		}
		closedir(d);
	}
	closedir(top);
	return n;
}

int main(int argc, char **argv)
{
	char want[256], line[512], bdf[256];
	char *txt[NR_FILES];
	uint32_t pb_bo, sys_bo, q, qbad, *pb;
	volatile uint32_t *data;
	int fd, ofd[NR_FILES], status, i, fd2;
	uint64_t used, now;
	long long chid, chid_bad;
	pid_t pid = getpid();
	struct stat st;
	size_t k;

	for (i = 1; i < argc; i++) {
		if (strncmp(argv[i], "--node=", 7) == 0) {
			node = argv[i] + 7;
		} else if (strcmp(argv[i], "--verbose") == 0) {
			verbose = true;
		} else {
			fprintf(stderr, "usage: test-debugfs [--node=PATH] [--verbose]\n");
			return 2;
		}
	}

	fd = open(node, O_RDWR | O_CLOEXEC);
	if (fd < 0 || fstat(fd, &st))
		bail("cannot open the render node");
	node_debugfs_dir(node, dir, sizeof(dir));
	for (k = 0; k < NR_FILES; k++) {
		char *s = read_debugfs(files[k]);

		ok(s != NULL, "%s/%s reads (%s)", dir, files[k], s ? "ok" : strerror(errno));
		free(s);
	}

	/* a pushbuffer and data in one VRAM object, a read-only SYSMEM one */
	pb_bo = gem_create_flags(fd, PB_SIZE, 0);
	sys_bo = gem_create_flags(fd, SYS_SIZE, DRM_TGPU_GEM_CREATE_SYSMEM);
	pb = gem_mmap(fd, pb_bo, PB_SIZE);
	data = (volatile uint32_t *)pb + DATA_OFF / 4;
	if (vm_bind(fd, pb_bo, 0, PB_VA, PB_SIZE, 0) ||
	    vm_bind(fd, sys_bo, 0, SYS_VA, SYS_SIZE, DRM_TGPU_VM_BIND_READ_ONLY))
		bail("VM_BIND failed");
	if (queue_create(fd, TGPU_RUNLIST_COMPUTE, 2, &q))
		bail("QUEUE_CREATE failed");
	pb_release(pb, PB_VA + DATA_OFF, 0xabc);
	status = run_job(fd, q, PB_VA, 6);
	ok(status == 1 && data[0] == 0xabc, "a job on a compute queue ran (status %d)", status);

	/* a second queue, on CE0, killed by an illegal host method */
	if (queue_create(fd, TGPU_RUNLIST_CE0, 1, &qbad))
		bail("QUEUE_CREATE failed");
	pb[64] = TGPU_PB_HDR(TGPU_PB_OP_IMMD, 0, 0x0fc, 0);
	status = run_job(fd, qbad, PB_VA + 256, 1);
	ok(status == -EIO, "an illegal method fails the CE0 queue's job with -EIO (%d)", status);

	for (k = 0; k < NR_FILES; k++) {
		txt[k] = read_debugfs(files[k]);
		if (verbose)
			dump(files[k], txt[k]);
	}

	/* channels: the queue, its process, its channel, its state */
	snprintf(want, sizeof(want), "queue %u pid %d comm test-debugfs channel", q, pid);
	chid = line_with(txt[0], want, line, sizeof(line)) ? field(line, "channel") : -1;
	if (!ok(chid > 0, "channels: queue %u of pid %d on channel %lld", q, pid, chid))
		dump("channels", txt[0]);
	ok(has(line, "engine compute priority 2"), "channels: engine compute, priority 2");
	snprintf(want, sizeof(want), "queue %u pid %d comm test-debugfs channel", qbad, pid);
	chid_bad = line_with(txt[0], want, line, sizeof(line)) ? field(line, "channel") : -1;
	ok(chid_bad > 0 && chid_bad != chid && has(line, "engine ce0 priority 1"),
	   "channels: the CE0 queue %u on channel %lld", qbad, chid_bad);
	{
		const char *a = strstr(txt[0] ? txt[0] : "", "engine compute priority 2");
		const char *b = a ? strstr(a, "queue ") : NULL;
		char blk[1024];

		snprintf(blk, sizeof(blk), "%.*s", (int)(b ? b - a : (a ? (long)strlen(a) : 0)),
			 a ? a : "");
		ok(has(blk, "seqno 1 semaphore 1 pending 0") && has(blk, "alive") &&
		   has(blk, "on-runlist"),
		   "channels: the compute queue's job is done (seqno 1, semaphore 1), alive, on its runlist");
		line_with(blk, "gp_get", line, sizeof(line));
		ok(field(line, "gp_get") == 2 && field(line, "gp_put") == 2 &&
		   field(line, "userd_gp_put") == 2,
		   "channels: GP_GET = GP_PUT = 2 (one range and the fence entry): %s", line);
	}
	ok(has(txt[0], "dead -5 chan_error ILLEGAL_METHOD"),
	   "channels: the CE0 queue is dead with -EIO, ILLEGAL_METHOD");
	snprintf(want, sizeof(want), "CHAN_ERROR %d ", TGPU_ERR_ILLEGAL_METHOD);
	ok(has(txt[0], want), "channels: its CHAN_ERROR register reads %d", TGPU_ERR_ILLEGAL_METHOD);
	ok(has(txt[0], "queues 2\n"), "channels: two queues in all");

	/* runlists: each queue's channel on its engine's runlist */
	snprintf(want, sizeof(want), "  channel %lld queue %u pid %d comm test-debugfs priority 2",
		 chid, q, pid);
	if (!ok(has(txt[1], want), "runlists: channel %lld (queue %u, pid %d) listed", chid, q, pid))
		dump("runlists", txt[1]);
	{
		const char *c = strstr(txt[1] ? txt[1] : "", "engine compute");
		const char *ce0 = strstr(txt[1] ? txt[1] : "", "engine ce0");
		char in_vram[64];

		ok(c && ce0 && strstr(c, want) && strstr(c, want) < ce0,
		   "runlists: under the compute runlist");
		snprintf(in_vram, sizeof(in_vram), "in VRAM: %lld\n", chid);
		ok(c && strstr(c, in_vram) && strstr(c, in_vram) < ce0 &&
		   has(c, "count 1 base"),
		   "runlists: the device has 1 entry, channel %lld, in the compute runlist", chid);
		snprintf(want, sizeof(want), "  channel %lld queue %u", chid_bad, qbad);
		ok(ce0 && strstr(ce0, want), "runlists: the CE0 queue under the ce0 runlist");
	}

	/* rings: the user segment and the kernel fence segment, decoded */
	snprintf(want, sizeof(want), "queue %u pid %d comm test-debugfs channel %lld engine compute",
		 q, pid, chid);
	if (!ok(has(txt[2], want), "rings: queue %u, channel %lld", q, chid))
		dump("rings", txt[2]);
	snprintf(want, sizeof(want), "va 0x%010" PRIx64 " dwords 6 user\n", (uint64_t)PB_VA);
	ok(has(txt[2], want), "rings: the GPFIFO entry of the job's range (va 0x%" PRIx64 ", 6 dwords)",
	   (uint64_t)PB_VA);
	snprintf(want, sizeof(want),
		 "INC subch 0 method 0x05c SEM_ADDR_LO count 5: %08x %08x 00000abc 00000000 %08x",
		 (uint32_t)(PB_VA + DATA_OFF), (uint32_t)((PB_VA + DATA_OFF) >> 32),
		 TGPU_SEM_OP_RELEASE);
	ok(has(txt[2], want), "rings: the user pushbuffer decoded: %s", want);
	ok(has(txt[2], "kernel fence\n") && has(txt[2], "IMMD subch 0 method 0x020 NON_STALL_INTERRUPT"),
	   "rings: the kernel fence segment decoded (release, NON_STALL_INTERRUPT)");
	snprintf(want, sizeof(want), "count 5: %08x", (uint32_t)get_param(fd, DRM_TGPU_PARAM_VA_USER_LIMIT) +
		 (uint32_t)chid * 0x8000u + 0x3000u);
	ok(has(txt[2], want), "rings: the fence releases the queue's semaphore (%s)", want);
	snprintf(want, sizeof(want), "va 0x%010" PRIx64 " dwords 1 user\n", (uint64_t)PB_VA + 256);
	ok(has(txt[2], want) && has(txt[2], "IMMD subch 0 method 0x0fc host? data 0x0"),
	   "rings: the CE0 queue's bad segment decoded");

	/* files: the process, its mappings and objects */
	snprintf(want, sizeof(want), "pid %d comm test-debugfs asid", pid);
	if (!ok(has(txt[3], want), "files: this process's file (pid %d)", pid))
		dump("files", txt[3]);
	snprintf(want, sizeof(want), "va 0x%010" PRIx64 "-0x%010" PRIx64 " size 0x%x rw vram object size 0x%x offset 0x0",
		 (uint64_t)PB_VA, (uint64_t)PB_VA + PB_SIZE, PB_SIZE, PB_SIZE);
	ok(has(txt[3], want), "files: the VRAM mapping at 0x%" PRIx64, (uint64_t)PB_VA);
	snprintf(want, sizeof(want), "va 0x%010" PRIx64 "-0x%010" PRIx64 " size 0x%x ro sysmem object size 0x%x",
		 (uint64_t)SYS_VA, (uint64_t)SYS_VA + SYS_SIZE, SYS_SIZE, SYS_SIZE);
	ok(has(txt[3], want), "files: the read-only SYSMEM mapping at 0x%" PRIx64, (uint64_t)SYS_VA);
	snprintf(want, sizeof(want), "handle %u vram size 0x%x", pb_bo, PB_SIZE);
	ok(has(txt[3], want), "files: object %u (VRAM, 64 KiB)", pb_bo);
	snprintf(want, sizeof(want), "handle %u sysmem size 0x%x", sys_bo, SYS_SIZE);
	ok(has(txt[3], want), "files: object %u (SYSMEM, 8 KiB)", sys_bo);
	snprintf(want, sizeof(want), "  queue %u channel %lld engine compute priority 2", q, chid);
	ok(has(txt[3], want), "files: its queue %u on channel %lld", q, chid);
	ok(has(txt[3], "2 queues, 2 objects, vram 0x10000, sysmem 0x2000, 0 syncobjs"),
	   "files: the file's totals");
	{
		char tot[160];

		snprintf(tot, sizeof(tot), "total files 1 queues 2 mappings 2 objects 2 syncobjs 0 vram_used %" PRIu64,
			 get_param(fd, DRM_TGPU_PARAM_VRAM_USED));
		ok(has(txt[3], tot), "files: %s", tot);
	}

	/* interrupts: the fences came through the non-stall vector */
	line_with(txt[4], "\nnonstall ", line, sizeof(line));
	if (!ok(strncmp(line, "nonstall ", 9) == 0 && field(line, "nonstall") >= 1,
		"interrupts: %s", line))
		dump("interrupts", txt[4]);
	line_with(txt[4], "chan_errors", line, sizeof(line));
	ok(field(line, "chan_errors") >= 1, "interrupts: %s", line);
	if (get_param(fd, DRM_TGPU_PARAM_MSIX_VECTORS) == TGPU_MSIX_NR_VECTORS) {
		line_with(txt[4], "vector 1 nonstall", line, sizeof(line));
		ok(field(line, "nonstall") >= 1, "interrupts: %s", line);
	}
	ok(has(txt[4], "PMC_INTR_EN 0x0000001f"), "interrupts: PMC_INTR_EN has FIFO, non-stall, MMU, ECC, thermal");

	/*
	 * A second file is listed on its own, without queues.  The VRAM
	 * object, mapped a second time here (from DATA_OFF), is mapped in
	 * its VM too through PRIME, and its handle there closed: each VM
	 * lists the objects mapped in it, with the mappings in it and the
	 * number of VMs.
	 */
	fd2 = open(node, O_RDWR | O_CLOEXEC);
	{
		volatile uint32_t *sem;
		char *s, sec[4096];
		uint32_t h2, job;
		int buf, err;

		if (fd2 < 0 || prime_export(fd, pb_bo, DRM_CLOEXEC, &buf) ||
		    prime_import(fd2, buf, &h2))
			bail("PRIME of the VRAM object into a second file failed");
		close(buf);
		err = vm_bind(fd, pb_bo, DATA_OFF, PB_VA2, PB_SIZE - DATA_OFF, 0);
		/* with this VM's tables for PB_VA2, which stay */
		used = get_param(fd, DRM_TGPU_PARAM_VRAM_USED);
		ok(!err && vm_bind(fd2, h2, 0, PB_VA, PB_SIZE, 0) == 0 && gem_close(fd2, h2) == 0,
		   "the VRAM object bound again here and in a second file, whose handle goes");
		s = read_debugfs("files");
		if (verbose)
			dump("files", s);
		ok(has(s, "total files 2 queues 2 mappings 4 objects 2"),
		   "files: a second open file is counted, with its mapping");
		file_section(s, 0, sec, sizeof(sec));
		snprintf(want, sizeof(want), "va 0x%010" PRIx64 "-0x%010" PRIx64 " size 0x%x rw vram object size 0x%x offset 0x%x",
			 (uint64_t)PB_VA2, (uint64_t)PB_VA2 + PB_SIZE - DATA_OFF,
			 PB_SIZE - DATA_OFF, PB_SIZE, DATA_OFF);
		ok(has(sec, want), "files: the second mapping, at offset 0x%x of the object", DATA_OFF);
		ok(has(sec, "  mapped objects:\n    vram size 0x10000 mappings 2 vms 2\n    sysmem size 0x2000 mappings 1 vms 1\n"),
		   "files: this VM maps the VRAM object twice (it is in 2 VMs), the SYSMEM one once");
		file_section(s, 1, sec, sizeof(sec));
		if (!ok(has(sec, "  mapped objects:\n    vram size 0x10000 mappings 1 vms 2\n  objects:\n  0 queues, 0 objects"),
			"files: the second VM maps it once, without a handle to it"))
			dump("second file", sec);
		free(s);

		ok(vm_unbind(fd, PB_VA2, PB_SIZE - DATA_OFF) == 0, "VM_UNBIND of the second mapping");
		s = read_debugfs("files");
		file_section(s, 0, sec, sizeof(sec));
		ok(has(sec, "    vram size 0x10000 mappings 1 vms 2\n") && !has(sec, "mappings 2"),
		   "files: the other mapping stays, the object still in 2 VMs");
		free(s);

		job = deferred_unbind(fd2, &sem);
		ok(get_param(fd, DRM_TGPU_PARAM_VRAM_USED) >= used + DEF_SIZE,
		   "the object of the interrupted unbind keeps its VRAM");
		*sem = 1;
		ok(syncobj_wait(fd2, job, 5000) == 0 && syncobj_status(fd2, job) == 1,
		   "the job finishes once the CPU releases its semaphore");
		munmap((void *)sem, 4096);	/* it holds the file */
		close(fd2);
		s = read_debugfs("files");
		ok(has(s, "    vram size 0x10000 mappings 1 vms 1\n") &&
		   has(s, "total files 1 queues 2 mappings 2 objects 2"),
		   "files: the second file's close takes its VM off the object");
		free(s);
		now = get_param(fd, DRM_TGPU_PARAM_VRAM_USED);
		ok(now == used,
		   "VRAM_USED is back where it was before the second file, %" PRIu64 " (the close released the unbound object): %" PRIu64,
		   used, now);
	}

	for (k = 0; k < NR_FILES; k++)
		free(txt[k]);

	/* unplug with the debugfs files open */
	bdf_of_node(node, bdf, sizeof(bdf));
	for (k = 0; k < NR_FILES; k++) {
		char path[256];

		snprintf(path, sizeof(path), "%s/%s", dir, files[k]);
		ofd[k] = open(path, O_RDONLY | O_CLOEXEC);
	}
	ok(write_file("/sys/bus/pci/drivers/tgpu/unbind", bdf) == 0, "unbind %s", bdf);
	for (k = 0; k < NR_FILES; k++) {
		char *s = read_fd(ofd[k]);
		int e = s ? 0 : errno;

		ok(ofd[k] >= 0 && (s || e == EIO || e == ENODEV),
		   "after unplug, %s opened before reads cleanly (%s)", files[k],
		   s ? (has(s, "device unplugged") ? "\"device unplugged\"" : "text") : strerror(e));
		free(s);
		close(ofd[k]);
	}
	ok(stat(dir, &st) != 0, "after unplug %s is gone", dir);
	printf("# read %d files under /sys/kernel/debug/dri after unplug\n", read_all_dri());
	{
		struct drm_tgpu_get_param gp = { .param = DRM_TGPU_PARAM_CLK_SM_KHZ };
		int err = xioctl(fd, DRM_IOCTL_TGPU_GET_PARAM, &gp);

		ok(err == ENODEV, "GET_PARAM(CLK_SM_KHZ) after unplug is ENODEV (%s)", errname(err));
	}
	munmap(pb, PB_SIZE);
	close(fd);

	/* rebind: the files come back, empty */
	ok(write_file("/sys/bus/pci/drivers/tgpu/bind", bdf) == 0, "rebind %s", bdf);
	for (i = 0; i < 50 && (fd = open(node, O_RDWR | O_CLOEXEC)) < 0; i++)
		usleep(100000);
	if (!ok(fd >= 0, "the render node is back"))
		return tap_done();
	node_debugfs_dir(node, dir, sizeof(dir));
	txt[0] = read_debugfs("channels");
	txt[3] = read_debugfs("files");
	ok(has(txt[0], "queues 0\n"), "after rebind, channels lists no queue");
	snprintf(want, sizeof(want), "pid %d comm test-debugfs asid", pid);
	ok(has(txt[3], want) && has(txt[3], "total files 1 queues 0 mappings 0 objects 0"),
	   "after rebind, files lists only the new file, empty");
	free(txt[0]);
	free(txt[3]);
	close(fd);
	return tap_done();
}
