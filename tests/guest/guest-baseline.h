/* SPDX-License-Identifier: MIT */
/*
 * What the driver accounts, before and after a test that must leave
 * nothing behind (test-leak, tgpu-ioctl-fuzz): VRAM_USED, debugfs'
 * files and channels, the ASID and channel allocators, this process's
 * file descriptors, Shmem, MemAvailable and unreclaimable slab.  Include
 * after guest-tap.h, guest-sysfs.h and tgpu-raw.h.
 */
#ifndef TGPU_GUEST_BASELINE_H
#define TGPU_GUEST_BASELINE_H

#include <dirent.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static char baseline_dir[128];	/* the node's debugfs directory */

static char *debugfs(const char *name)
{
	char path[256];

	snprintf(path, sizeof(path), "%s/%s", baseline_dir, name);
	return read_text(path);
}

/* The number after "key " on the first line with it, or -1. */
static long long field(const char *s, const char *key)
{
	char k[64];
	const char *p;

	snprintf(k, sizeof(k), "%s ", key);
	p = s ? strstr(s, k) : NULL;
	return p ? strtoll(p + strlen(k), NULL, 0) : -1;
}

static long long meminfo_kib(const char *key)
{
	char *s = read_text("/proc/meminfo");
	char k[64];
	const char *p;
	long long v = -1;

	snprintf(k, sizeof(k), "\n%s:", key);
	p = s ? strstr(s, k) : NULL;
	if (p)
		v = strtoll(p + strlen(k), NULL, 10);
	free(s);
	return v;
}

/*
 * Every slab cache gives back its empty slabs and, on a KASAN kernel, the
 * objects in its quarantine: generic KASAN holds freed objects, up to
 * 1/32 of RAM, before the slab may reuse them (mm/kasan/quarantine.c), so
 * they still count in SUnreclaim.  kmem_cache_shrink(), which
 * /sys/kernel/slab/NAME/shrink calls, frees both.  Merged caches are
 * symlinks to the one they share.
 */
static void shrink_slabs(void)
{
	DIR *d = opendir("/sys/kernel/slab");
	struct dirent *e;
	char path[320];
	int fd;

	if (!d)
		return;
	while ((e = readdir(d))) {
		if (e->d_name[0] == '.' || e->d_type == DT_LNK)
			continue;
		snprintf(path, sizeof(path), "/sys/kernel/slab/%s/shrink", e->d_name);
		fd = open(path, O_WRONLY | O_CLOEXEC);
		if (fd < 0)
			continue;
		if (write(fd, "1", 1) < 0)
			perror(path);
		close(fd);
	}
	closedir(d);
}

static void settle(void)
{
	int fd;

	sync();
	fd = open("/proc/sys/vm/drop_caches", O_WRONLY | O_CLOEXEC);
	if (fd >= 0) {
		if (write(fd, "3", 1) < 0)
			perror("drop_caches");
		close(fd);
	}
	shrink_slabs();
	fd = open("/proc/sys/vm/stat_refresh", O_WRONLY | O_CLOEXEC);
	if (fd >= 0) {
		if (write(fd, "1", 1) < 0)
			perror("stat_refresh");
		close(fd);
	}
}

/*
 * Unreclaimable slab once what the kernel frees later has been freed:
 * RCU-deferred frees (kfree_rcu(), dma-fences, scheduler jobs) land a few
 * grace periods after the last file closed, which a slow QEMU (make
 * check-sanitize's) stretches.  Read until it stops falling for three
 * reads in a row, 200 ms apart (at most 5 s): a leak stays.
 */
static long long settled_slab_kib(void)
{
	long long v, low = meminfo_kib("SUnreclaim");
	int still = 0;

	for (int i = 0; i < 25 && still < 3; i++) {
		usleep(200 * 1000);
		settle();
		v = meminfo_kib("SUnreclaim");
		if (v >= 0 && v + 8 < low) {
			low = v;
			still = 0;
		} else {
			still++;
		}
	}
	return low;
}

static int count_fds(void)
{
	DIR *d = opendir("/proc/self/fd");
	struct dirent *e;
	int n = 0;

	if (!d)
		return -1;
	while ((e = readdir(d)))
		if (e->d_name[0] != '.')
			n++;
	closedir(d);
	return n - 1;	/* the directory's own */
}

struct snapshot {
	uint64_t vram_used;
	int fds;
	long long shmem_kib, avail_kib, slab_kib;
	long long files, queues, mappings, objects, syncobjs, asid, chid;
};

/* ASID of a new file, and channel of a new queue on it: the allocators. */
static void probe_allocators(const char *node, struct snapshot *s)
{
	char *f, *c, want[64];
	const char *p;
	uint32_t q;
	int fd = open(node, O_RDWR | O_CLOEXEC);

	s->asid = s->chid = -1;
	if (fd < 0)
		return;
	if (queue_create(fd, TGPU_RUNLIST_COMPUTE, 0, &q) == 0) {
		snprintf(want, sizeof(want), "pid %d comm", getpid());
		f = debugfs("files");
		c = debugfs("channels");
		/* the newest file is listed last */
		p = f;
		while (p && strstr(p, want) && strstr(strstr(p, want) + 1, want))
			p = strstr(p, want) + 1;
		p = p ? strstr(p, want) : NULL;
		s->asid = p ? field(p, "asid") : -1;
		snprintf(want, sizeof(want), "queue %u pid %d", q, getpid());
		p = c ? strstr(c, want) : NULL;
		s->chid = p ? field(p, "channel") : -1;
		free(f);
		free(c);
		queue_destroy(fd, q);
	}
	close(fd);
}

/* What is accounted now; FD is this process's own open render node. */
static void snap(const char *node, int fd, struct snapshot *s)
{
	char *f;

	settle();
	s->vram_used = get_param(fd, DRM_TGPU_PARAM_VRAM_USED);
	s->fds = count_fds();
	s->shmem_kib = meminfo_kib("Shmem");
	s->avail_kib = meminfo_kib("MemAvailable");
	s->slab_kib = settled_slab_kib();
	f = debugfs("files");
	{
		const char *t = f ? strstr(f, "total files") : NULL;

		s->files = t ? field(t, "files") : -1;
		s->queues = t ? field(t, "queues") : -1;
		s->mappings = t ? field(t, "mappings") : -1;
		s->objects = t ? field(t, "objects") : -1;
		s->syncobjs = t ? field(t, "syncobjs") : -1;
	}
	free(f);
	probe_allocators(node, s);
}

static void snap_print(const char *when, const struct snapshot *s)
{
	printf("# %s: VRAM_USED %" PRIu64 ", %d fds, Shmem %lld KiB, MemAvailable %lld KiB, "
	       "SUnreclaim %lld KiB, files %lld, ASID %lld, channel %lld\n", when, s->vram_used,
	       s->fds, s->shmem_kib, s->avail_kib, s->slab_kib, s->files, s->asid, s->chid);
}

/* The baseline A: this file only, empty, and the allocators answer. */
static void baseline_ok(const struct snapshot *a)
{
	snap_print("baseline", a);
	ok(a->files == 1 && a->queues == 0 && a->mappings == 0 && a->objects == 0 &&
	   a->syncobjs == 0, "baseline: debugfs shows only this file, empty");
	ok(a->asid > 0 && a->chid > 0, "baseline: a new file gets ASID %lld, a new queue channel %lld",
	   a->asid, a->chid);
}

/*
 * B, taken after the test, is back at the baseline A.  The tolerances:
 * one leaked 4 KiB page per cycle would be 40 MiB over 10,000 cycles, a
 * leaked SYSMEM object 4 KiB of Shmem, one leaked 64-byte kmalloc() per
 * cycle 640 KiB of slab; the kernel's own drift over 10,000 cycles was
 * 24 KiB of slab, and its page cache moves MemAvailable.
 */
static void baseline_back(const struct snapshot *a, const struct snapshot *b)
{
	char *c;

	snap_print("after", b);
	ok(b->vram_used == a->vram_used, "VRAM_USED back to the baseline exactly (%" PRIu64
	   " vs %" PRIu64 ")", b->vram_used, a->vram_used);
	ok(b->files == 1 && b->queues == 0 && b->mappings == 0 && b->objects == 0 &&
	   b->syncobjs == 0,
	   "debugfs files: %lld files, %lld queues, %lld mappings, %lld objects, %lld syncobjs",
	   b->files, b->queues, b->mappings, b->objects, b->syncobjs);
	c = debugfs("channels");
	ok(field(c, "queues") == 0, "debugfs channels: no queue left");
	free(c);
	ok(b->asid > 0 && b->asid <= a->asid, "a new file's ASID is %lld again (baseline %lld)",
	   b->asid, a->asid);
	ok(b->chid > 0 && b->chid <= a->chid, "a new queue's channel is %lld again (baseline %lld)",
	   b->chid, a->chid);
	ok(b->fds == a->fds, "open file descriptors back to %d (%d)", a->fds, b->fds);
	ok(llabs(b->shmem_kib - a->shmem_kib) <= 1024,
	   "Shmem within 1 MiB of the baseline (%+lld KiB)", b->shmem_kib - a->shmem_kib);
	ok(a->avail_kib - b->avail_kib <= 16384,
	   "MemAvailable within 16 MiB of the baseline (%+lld KiB)", b->avail_kib - a->avail_kib);
	ok(a->slab_kib >= 0 && b->slab_kib - a->slab_kib <= 512,
	   "unreclaimable slab within 512 KiB of the baseline (%lld -> %lld KiB)",
	   a->slab_kib, b->slab_kib);
}

#endif /* TGPU_GUEST_BASELINE_H */
