// SPDX-License-Identifier: MIT
/*
 * In-guest leak test: N create/destroy cycles of everything a client
 * does, then everything the driver accounts is back at the baseline.
 * One full cycle:
 *
 *   open the render node; GEM_CREATE a VRAM object (the pushbuffer) and
 *   a SYSMEM object (the target); mmap both, write the pushbuffer;
 *   VM_BIND both; QUEUE_CREATE (compute, ce0, ce1 in turn, priority
 *   cycle % 4); SYNCOBJ_CREATE; SUBMIT a semaphore release into the
 *   SYSMEM object and wait for it; check the value through the mapping;
 *   munmap both; QUEUE_DESTROY; VM_UNBIND both; SYNCOBJ_DESTROY;
 *   GEM_CLOSE both; close the file.
 *
 * The cycles are split over --procs processes (default 2: the guest has
 * two CPUs, and while one process waits for its job the other works).
 * Compared with the baseline afterwards:
 *
 *   - DRM_TGPU_PARAM_VRAM_USED: exactly (objects, page tables, queue
 *     memory all come from VRAM);
 *   - debugfs "files": one file (ours), no queue, mapping, object or
 *     syncobj; "channels": no queue;
 *   - the ASID and channel allocators: a new file gets an ASID, and a
 *     new queue a channel, at most the baseline's (a leak of either
 *     would have moved them up by thousands);
 *   - open file descriptors of this process: exactly;
 *   - Shmem (SYSMEM objects' pages) within 1 MiB and MemAvailable within
 *     16 MiB, after dropping caches: one leaked 4 KiB page per cycle
 *     would be 40 MiB over 10,000 cycles, and a leaked SYSMEM object
 *     4 KiB of Shmem each.  The tolerance absorbs the page cache of the
 *     kernel itself;
 *   - SUnreclaim (unreclaimable slab: what kmalloc() holds) within
 *     512 KiB: one leaked object of 64 bytes per cycle would be 640 KiB;
 *     the kernel's own drift over 10,000 cycles was 24 KiB.
 *
 * Budget: 2 minutes in the guest.  Measured under TCG on a 2-core host
 * with the schedulers on the driver's shared workqueue: 1,000 full
 * cycles in 2.5 s, so the default 10,000 take about 25 s.
 * --queue-every=K leaves the queue, the job and its wait to every K-th
 * cycle, for quick runs.  Meant for a
 * guest booted with --device-opts vram-size=1G:
 *
 *   test-leak [--node=PATH] [--cycles=N] [--procs=P] [--queue-every=K]
 *
 * Output is TAP; the exit status is non-zero if any check failed.
 */
#include <dirent.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/wait.h>

#include "guest-tap.h"
#include "guest-sysfs.h"
#include "tgpu-raw.h"
#include "guest-baseline.h"

static const char *node = "/dev/dri/renderD128";
static unsigned int queue_every = 1;

#define PB_VA		0x0000100000ull
#define PB_SIZE		0x1000u
#define SYS_VA		0x0000200000ull
#define SYS_SIZE	0x1000u

/* ---- the cycle -------------------------------------------------------------- */

static int cycle(unsigned int i)
{
	uint32_t vram, sys, q, s;
	volatile uint32_t *target;
	uint32_t *pb;
	int fd, err = 0, status;
	struct drm_tgpu_submit_range r = { .va = PB_VA, .dwords = 6 };

	fd = open(node, O_RDWR | O_CLOEXEC);
	if (fd < 0)
		return 1;
	vram = gem_create_flags(fd, PB_SIZE, 0);
	sys = gem_create_flags(fd, SYS_SIZE, DRM_TGPU_GEM_CREATE_SYSMEM);
	pb = gem_mmap(fd, vram, PB_SIZE);
	target = gem_mmap(fd, sys, SYS_SIZE);
	pb_release(pb, SYS_VA + 4, i + 1);
	if (vm_bind(fd, vram, 0, PB_VA, PB_SIZE, 0) ||
	    vm_bind(fd, sys, 0, SYS_VA, SYS_SIZE, 0))
		err = 2;
	s = syncobj_create(fd);
	if (err || i % queue_every) {
		/* the cheap part only: no queue, no job */
	} else if (queue_create(fd, i % 3, i % 4, &q)) {
		err = 3;
	} else {
		if (submit(fd, q, &r, 1, NULL, 0, s) || syncobj_wait(fd, s, 10000))
			err = 4;
		status = err ? 0 : syncobj_status(fd, s);
		if (!err && (status != 1 || target[1] != i + 1))
			err = 5;
		if (queue_destroy(fd, q))
			err = 6;
	}
	syncobj_destroy(fd, s);
	munmap(pb, PB_SIZE);
	munmap((void *)target, SYS_SIZE);
	if (!err && (vm_unbind(fd, PB_VA, PB_SIZE) || vm_unbind(fd, SYS_VA, SYS_SIZE)))
		err = 7;
	if (gem_close(fd, vram) || gem_close(fd, sys))
		err = err ? err : 8;
	close(fd);
	return err;
}

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

int main(int argc, char **argv)
{
	unsigned int cycles = 10000, procs = 2, p, i;
	struct snapshot a, b;
	struct stat st;
	double t0, t;
	int fd, failed = 0, status;

	for (i = 1; i < (unsigned int)argc; i++) {
		if (strncmp(argv[i], "--node=", 7) == 0)
			node = argv[i] + 7;
		else if (strncmp(argv[i], "--cycles=", 9) == 0)
			cycles = (unsigned int)strtoul(argv[i] + 9, NULL, 0);
		else if (strncmp(argv[i], "--procs=", 8) == 0)
			procs = (unsigned int)strtoul(argv[i] + 8, NULL, 0);
		else if (strncmp(argv[i], "--queue-every=", 14) == 0)
			queue_every = (unsigned int)strtoul(argv[i] + 14, NULL, 0);
		else {
			fprintf(stderr, "usage: test-leak [--node=PATH] [--cycles=N] [--procs=P] [--queue-every=K]\n");
			return 2;
		}
	}
	if (!procs)
		procs = 1;
	if (!queue_every)
		queue_every = 1;

	fd = open(node, O_RDWR | O_CLOEXEC);
	if (fd < 0 || fstat(fd, &st))
		bail("cannot open the render node");
	node_debugfs_dir(node, baseline_dir, sizeof(baseline_dir));

	/* one cycle first, so that one-time allocations are in the baseline */
	ok(cycle(0) == 0, "a warm-up cycle works");
	snap(node, fd, &a);
	baseline_ok(&a);

	t0 = now();
	for (p = 0; p < procs; p++) {
		pid_t pid = fork();

		if (pid < 0)
			bail("fork failed");
		if (pid == 0) {
			unsigned int bad = 0, first = 0;

			close(fd);
			for (i = p; i < cycles; i += procs) {
				int e = cycle(i);

				if (e && !bad++)
					first = (unsigned int)e << 16 | i;
			}
			if (bad)
				fprintf(stderr, "test-leak: %u cycles failed, the first (%u) at step %u\n",
					bad, first & 0xffff, first >> 16);
			_exit(bad ? 1 : 0);
		}
	}
	for (p = 0; p < procs; p++) {
		if (wait(&status) < 0 || !WIFEXITED(status) || WEXITSTATUS(status))
			failed++;
	}
	t = now() - t0;
	ok(!failed, "%u cycles (%u with a queue and a job) in %u processes all worked", cycles,
	   (cycles + queue_every - 1) / queue_every, procs);
	/* a figure, not a test: on a shared 2-core host it varies 4-fold */
	printf("# %u cycles took %.1f s (%.2f ms each)\n", cycles, t, t * 1000 / cycles);

	snap(node, fd, &b);
	baseline_back(&a, &b);
	close(fd);
	return tap_done();
}
