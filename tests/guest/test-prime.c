// SPDX-License-Identifier: MIT
/*
 * In-guest test of PRIME (dma-buf) sharing between processes: a VRAM
 * and a system-memory object exported by one process, imported by
 * another (its own file, so its own VM), read through its mappings and
 * used by its GPU work; export and import errors.  Then one object
 * mapped twice in one file's VM and once in another's: unmapping one
 * mapping leaves the others on the same memory, byte for byte.  Last,
 * implicit sync: a job blocked on a semaphore keeps every dma-buf
 * mapped in its VM busy, for poll() and DMA_BUF_IOCTL_EXPORT_SYNC_FILE,
 * until the CPU releases it.  Output is TAP.
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <linux/dma-buf.h>
#include <linux/sync_file.h>

#include <tgpu_drm.h>
#include <tgpu/channel.h>
#include <tgpu/copy.h>

#include "guest-tap.h"
#include "tgpu-raw.h"

#define SIZE    65536u
#define SYS_VA  0x100000000ull
#define VRAM_VA 0x200000000ull
#define PB_VA   0x300000000ull
#define A1_VA   0x400000000ull
#define A2_VA   0x500000000ull
#define B_VA    0x600000000ull
#define Z_VA    0x700000000ull
#define QUARTER (SIZE / 4)
#define QW      (QUARTER / 4)	/* words in a quarter */

static const char *node = "/dev/dri/renderD128";

static uint32_t pattern(uint32_t i, uint32_t seed)
{
	uint32_t x = i * 0x9e3779b9u + seed;

	x ^= x >> 15;
	x *= 0x2c1b3c6du;
	return x ^ (x >> 12);
}

static bool check_pattern(const volatile uint32_t *p, uint32_t n, uint32_t seed)
{
	uint32_t i;

	for (i = 0; i < n; i++)
		if (p[i] != pattern(i, seed))
			return false;
	return true;
}

/* Copy n bytes from src to dst on copy engine 0 of fd's VM and wait. */
static int gpu_copy(int fd, uint32_t *pb, uint64_t dst, uint64_t src, uint32_t n)
{
	struct drm_tgpu_queue_create qc = { .engine = TGPU_RUNLIST_CE0 };
	struct drm_syncobj_create sc = { 0 };
	struct drm_tgpu_submit_range r = { .va = PB_VA };
	struct drm_tgpu_submit s = { .count = 1, .ranges = (uintptr_t)&r };
	struct drm_syncobj_wait w = { .count_handles = 1, .timeout_nsec = INT64_MAX };
	struct drm_tgpu_queue_query qq = { 0 };

	r.dwords = pb_ce_copy(pb, dst, src, n);
	if (xioctl(fd, DRM_IOCTL_TGPU_QUEUE_CREATE, &qc) ||
	    xioctl(fd, DRM_IOCTL_SYNCOBJ_CREATE, &sc))
		return -1;
	s.queue = qc.id;
	s.out_syncobj = sc.handle;
	w.handles = (uintptr_t)&sc.handle;
	w.flags = DRM_SYNCOBJ_WAIT_FLAGS_WAIT_FOR_SUBMIT;
	if (xioctl(fd, DRM_IOCTL_TGPU_SUBMIT, &s) || xioctl(fd, DRM_IOCTL_SYNCOBJ_WAIT, &w))
		return -1;
	qq.id = qc.id;
	if (xioctl(fd, DRM_IOCTL_TGPU_QUEUE_QUERY, &qq))
		return -1;
	return qq.error;
}

/*
 * The importing process.  Returns a bit mask of failed checks (the
 * parent turns each bit into a TAP line).
 */
enum {
	C_IMPORT_SYS = 1, C_IMPORT_VRAM = 2, C_READ_SYS = 4, C_READ_VRAM = 8,
	C_BIND = 16, C_GPU = 32,
};

static int child(int sys_fd, int vram_fd)
{
	uint32_t hs, hv, pbh;
	volatile uint32_t *ps, *pv;
	uint32_t *pb;
	int fd, fails = 0;

	fd = open(node, O_RDWR | O_CLOEXEC);
	if (fd < 0)
		return 0xff;
	if (prime_import(fd, sys_fd, &hs))
		fails |= C_IMPORT_SYS;
	if (prime_import(fd, vram_fd, &hv))
		fails |= C_IMPORT_VRAM;
	if (fails)
		return fails;
	ps = gem_mmap(fd, hs, SIZE);
	pv = gem_mmap(fd, hv, SIZE);
	if (!ps || !check_pattern(ps, SIZE / 4, 1))
		fails |= C_READ_SYS;
	if (!pv || !check_pattern(pv, SIZE / 4, 2))
		fails |= C_READ_VRAM;
	/* this process's VM: both objects and a pushbuffer */
	pbh = gem_create_flags(fd, 4096, 0);
	pb = gem_mmap(fd, pbh, 4096);
	if (vm_bind(fd, hs, 0, SYS_VA, SIZE, 0) || vm_bind(fd, hv, 0, VRAM_VA, SIZE, 0) ||
	    !pb || vm_bind(fd, pbh, 0, PB_VA, 4096, 0))
		fails |= C_BIND;
	/* the GPU copies the shared sysmem object's first half over the
	 * shared VRAM object's second half */
	if (!(fails & C_BIND) && gpu_copy(fd, pb, VRAM_VA + SIZE / 2, SYS_VA, SIZE / 2))
		fails |= C_GPU;
	close(fd);
	return fails;
}

/*
 * A VRAM object X in file A's VM twice, whole (A1) and its second half
 * (A2), and through PRIME once in file B's VM, whole (B); its quarters
 * start as pattern 3.  Copies through each mapping, with A1 unbound
 * half-way, must all land in X.
 */
static void shared_mappings(void)
{
	uint32_t x, xb, z, pbh_a, pbh_b, i;
	volatile uint32_t *px, *pz;
	uint32_t *pba, *pbb;
	int fa, fb, buf;
	bool good;

	fa = open(node, O_RDWR | O_CLOEXEC);
	fb = open(node, O_RDWR | O_CLOEXEC);
	if (fa < 0 || fb < 0)
		bail("cannot open the render node twice");
	x = gem_create_flags(fa, SIZE, 0);
	z = gem_create_flags(fa, QUARTER, DRM_TGPU_GEM_CREATE_SYSMEM);
	pbh_a = gem_create_flags(fa, 4096, 0);
	pbh_b = gem_create_flags(fb, 4096, 0);
	px = gem_mmap(fa, x, SIZE);
	pz = gem_mmap(fa, z, QUARTER);
	pba = gem_mmap(fa, pbh_a, 4096);
	pbb = gem_mmap(fb, pbh_b, 4096);
	for (i = 0; i < SIZE / 4; i++)
		px[i] = pattern(i, 3);
	if (prime_export(fa, x, DRM_CLOEXEC, &buf) || prime_import(fb, buf, &xb))
		bail("PRIME between two files failed");
	close(buf);
	if (vm_bind(fa, pbh_a, 0, PB_VA, 4096, 0) || vm_bind(fb, pbh_b, 0, PB_VA, 4096, 0) ||
	    vm_bind(fa, z, 0, Z_VA, QUARTER, 0))
		bail("VM_BIND of the pushbuffers failed");

	ok(vm_bind(fa, x, 0, A1_VA, SIZE, 0) == 0 &&
	   vm_bind(fa, x, SIZE / 2, A2_VA, SIZE / 2, 0) == 0 &&
	   vm_bind(fb, xb, 0, B_VA, SIZE, 0) == 0,
	   "one VRAM object bound twice in one VM (whole, second half) and once in another");
	/* quarter 0 over quarter 2, through A1 into A2 */
	ok(gpu_copy(fa, pba, A2_VA, A1_VA, QUARTER) == 0,
	   "A copies through its first mapping into its second");
	ok(vm_unbind(fa, A1_VA, SIZE) == 0, "A unbinds its first mapping");
	ok(gpu_copy(fa, pba, Z_VA, A1_VA, QUARTER) != 0,
	   "a copy through the unbound mapping fails its queue");
	/* quarter 1 over quarter 3, in B */
	ok(gpu_copy(fb, pbb, B_VA + 3 * QUARTER, B_VA + QUARTER, QUARTER) == 0,
	   "B copies through its mapping of the object");
	/* quarter 3 out through A2 */
	ok(gpu_copy(fa, pba, Z_VA, A2_VA + QUARTER, QUARTER) == 0,
	   "A copies out through its remaining mapping");
	good = true;
	for (i = 0; i < QW; i++)
		good &= pz[i] == pattern(QW + i, 3);
	ok(good, "A's remaining mapping reads B's write, byte for byte");
	good = true;
	for (i = 0; i < QW; i++)
		good &= px[i] == pattern(i, 3) && px[QW + i] == pattern(QW + i, 3) &&
			px[2 * QW + i] == pattern(i, 3) && px[3 * QW + i] == pattern(QW + i, 3);
	ok(good, "the object holds exactly the two copies (CPU)");

	/* A goes with its second mapping (its CPU mappings first: they hold
	 * the file); B's mapping keeps the object and still reaches it */
	munmap((void *)px, SIZE);
	munmap((void *)pz, QUARTER);
	munmap(pba, 4096);
	close(fa);
	/* quarter 3 over quarter 0, in B */
	ok(gpu_copy(fb, pbb, B_VA, B_VA + 3 * QUARTER, QUARTER) == 0,
	   "after A's close, B copies through its mapping");
	px = gem_mmap(fb, xb, SIZE);
	good = true;
	for (i = 0; i < QW; i++)
		good &= px[i] == pattern(QW + i, 3) && px[QW + i] == pattern(QW + i, 3) &&
			px[2 * QW + i] == pattern(i, 3) && px[3 * QW + i] == pattern(QW + i, 3);
	ok(good, "the object is intact and B's copy landed (CPU, through B)");
	munmap((void *)px, SIZE);
	munmap(pbb, 4096);
	close(fb);
}

/* poll() on @fd for @events: 1 ready, 0 not within @ms, -1 error. */
static int poll_fd(int fd, short events, int ms)
{
	struct pollfd p = { .fd = fd, .events = events };
	int n;

	do
		n = poll(&p, 1, ms);
	while (n < 0 && errno == EINTR);
	return n < 0 ? -1 : n == 1 && (p.revents & events) == events;
}

/* The dma-buf's fences for @flags as a sync file, or -1. */
static int dmabuf_sync_file(int buf, uint32_t flags)
{
	struct dma_buf_export_sync_file e = { .flags = flags, .fd = -1 };

	return xioctl(buf, DMA_BUF_IOCTL_EXPORT_SYNC_FILE, &e) ? -1 : e.fd;
}

/* A sync file's status: 1 signalled, 0 pending, negative the error. */
static int sync_file_status(int sf, uint32_t *fences)
{
	struct sync_file_info info;

	memset(&info, 0, sizeof(info));
	if (ioctl(sf, SYNC_IOC_FILE_INFO, &info))
		return -1000;
	*fences = info.num_fences;
	return info.status;
}

/*
 * File A's job blocks on a semaphore in its pushbuffer object, then
 * writes a word of a system-memory object X that A exported and B
 * imported.  While it is blocked, implicit sync on X's dma-buf waits
 * (poll for reading and for writing, a sync file of its fences), while
 * a VRAM object Y exported by B and mapped only in B's VM stays idle.
 * The CPU's release of the semaphore lets both the job and X go, and
 * the importer then reads the job's write.
 */
static void implicit_sync(void)
{
	uint32_t x, xb, y, pbh, q, s, n, fences = 0;
	volatile uint32_t *pb, *pxb;
	struct drm_tgpu_submit_range r = { .va = PB_VA };
	int fa, fb, xbuf, ybuf, sf, err, status;
	const uint64_t sem = PB_VA + 4092;

	fa = open(node, O_RDWR | O_CLOEXEC);
	fb = open(node, O_RDWR | O_CLOEXEC);
	if (fa < 0 || fb < 0)
		bail("cannot open the render node twice");
	x = gem_create_flags(fa, SIZE, DRM_TGPU_GEM_CREATE_SYSMEM);
	y = gem_create_flags(fb, SIZE, 0);
	pbh = gem_create_flags(fa, 4096, 0);
	pb = gem_mmap(fa, pbh, 4096);
	if (!pb || prime_export(fa, x, DRM_CLOEXEC | DRM_RDWR, &xbuf) ||
	    prime_import(fb, xbuf, &xb) ||
	    prime_export(fb, y, DRM_CLOEXEC | DRM_RDWR, &ybuf))
		bail("PRIME between two files failed");
	pxb = gem_mmap(fb, xb, SIZE);
	if (!pxb || vm_bind(fa, pbh, 0, PB_VA, 4096, 0) ||
	    vm_bind(fa, x, 0, SYS_VA, SIZE, 0) ||
	    vm_bind(fb, y, 0, VRAM_VA, SIZE, 0) ||
	    queue_create(fa, TGPU_RUNLIST_CE0, 0, &q))
		bail("VM_BIND or QUEUE_CREATE failed");
	pxb[0] = 0;
	pb[sem / 4 - PB_VA / 4] = 0;
	n = pb_sem_op((uint32_t *)pb, sem, 1, TGPU_SEM_OP_ACQ_GEQ);
	n += pb_release((uint32_t *)pb + n, SYS_VA, 0x5eed);
	r.dwords = n;
	s = syncobj_create(fa);

	ok(poll_fd(xbuf, POLLIN | POLLOUT, 0) == 1,
	   "before any job, X's dma-buf is idle for reading and writing");
	ok(submit(fa, q, &r, 1, NULL, 0, s) == 0 && syncobj_wait(fa, s, 200) == ETIME,
	   "A's job blocks on its semaphore");
	ok(poll_fd(xbuf, POLLIN, 300) == 0,
	   "poll(POLLIN) on X's dma-buf waits: the job is a writer of every object in its VM");
	ok(poll_fd(xbuf, POLLOUT, 0) == 0, "poll(POLLOUT) on X's dma-buf waits too");
	sf = dmabuf_sync_file(xbuf, DMA_BUF_SYNC_READ);
	status = sf < 0 ? -2000 : sync_file_status(sf, &fences);
	ok(status == 0 && fences >= 1,
	   "EXPORT_SYNC_FILE (read) on X's dma-buf: a sync file of %u fence(s), pending (status %d)",
	   fences, status);
	ok(poll_fd(ybuf, POLLIN | POLLOUT, 0) == 1,
	   "Y, mapped only in B's VM, stays idle");
	ok(pxb[0] == 0, "the importer reads no write yet");

	pb[sem / 4 - PB_VA / 4] = 1;
	ok(poll_fd(xbuf, POLLIN, 10000) == 1,
	   "once the CPU releases the semaphore, poll(POLLIN) on X's dma-buf returns");
	ok(pxb[0] == 0x5eed, "the importer then reads the job's write (0x%x)", pxb[0]);
	ok(sf >= 0 && poll_fd(sf, POLLIN, 0) == 1 &&
	   sync_file_status(sf, &fences) == 1,
	   "the sync file taken while the job was blocked has signalled");
	err = syncobj_wait(fa, s, 0);
	ok(!err && syncobj_status(fa, s) == 1, "A's fence signalled without error");
	if (sf >= 0)
		close(sf);
	munmap((void *)pb, 4096);
	munmap((void *)pxb, SIZE);
	close(xbuf);
	close(ybuf);
	close(fa);
	close(fb);
}

int main(void)
{
	uint32_t hs, hv, h2, i;
	volatile uint32_t *ps, *pv;
	int fd, sys_fd, vram_fd, dn, err, st;
	bool good;
	pid_t pid;

	fd = open(node, O_RDWR | O_CLOEXEC);
	if (fd < 0)
		bail("cannot open the render node");
	hs = gem_create_flags(fd, SIZE, DRM_TGPU_GEM_CREATE_SYSMEM);
	hv = gem_create_flags(fd, SIZE, 0);
	ps = gem_mmap(fd, hs, SIZE);
	pv = gem_mmap(fd, hv, SIZE);
	if (!ps || !pv)
		bail("mmap failed");
	for (i = 0; i < SIZE / 4; i++) {
		ps[i] = pattern(i, 1);
		pv[i] = pattern(i, 2);
	}

	ok(prime_export(fd, hs, DRM_CLOEXEC | DRM_RDWR, &sys_fd) == 0 && sys_fd >= 0,
	   "export a system-memory object as a dma-buf");
	ok(prime_export(fd, hv, DRM_CLOEXEC | DRM_RDWR, &vram_fd) == 0 && vram_fd >= 0,
	   "export a VRAM object as a dma-buf");
	err = prime_import(fd, sys_fd, &h2);
	ok(!err && h2 == hs, "importing it into the same file gives the same handle");
	{
		/* both dma-bufs map, as the objects do */
		void *m = mmap(NULL, SIZE, PROT_READ, MAP_SHARED, sys_fd, 0);

		ok(m != MAP_FAILED && ((volatile uint32_t *)m)[1] == pattern(1, 1),
		   "mmap of the system-memory dma-buf reads its data");
		if (m != MAP_FAILED)
			munmap(m, SIZE);
		/* DRM points a dma-buf's file at the device's address space:
		 * the unplug zaps these mappings too */
		m = mmap(NULL, SIZE, PROT_READ, MAP_SHARED, vram_fd, 0);
		ok(m != MAP_FAILED && ((volatile uint32_t *)m)[1] == pattern(1, 2),
		   "mmap of the VRAM dma-buf reads its data");
		if (m != MAP_FAILED)
			munmap(m, SIZE);
	}
	err = prime_export(fd, 0x7777, DRM_CLOEXEC, &dn);
	ok(err == ENOENT, "export of an unknown handle: %s (want %s)", strerror(err),
	   strerror(ENOENT));
	err = prime_export(fd, hs, 0x4, &dn);
	ok(err == EINVAL, "export with unknown flags: %s (want %s)", strerror(err),
	   strerror(EINVAL));
	err = prime_import(fd, -1, &h2);
	ok(err == EBADF, "import of fd -1: %s (want %s)", strerror(err), strerror(EBADF));
	dn = open("/dev/null", O_RDONLY | O_CLOEXEC);
	err = prime_import(fd, dn, &h2);
	ok(err == EINVAL, "import of a file that is not a dma-buf: %s (want %s)",
	   strerror(err), strerror(EINVAL));
	close(dn);

	/* The exporter's handles go; the dma-bufs keep the objects alive. */
	gem_close(fd, hs);
	gem_close(fd, hv);

	pid = fork();
	if (pid == 0)
		_exit(child(sys_fd, vram_fd));
	if (pid < 0 || waitpid(pid, &st, 0) != pid || !WIFEXITED(st))
		bail("the importing process did not run");
	st = WEXITSTATUS(st);
	if (st == 0xff)
		bail("the importing process cannot open the render node");
	ok(!(st & C_IMPORT_SYS), "another process imports the system-memory dma-buf");
	ok(!(st & C_IMPORT_VRAM), "another process imports the VRAM dma-buf");
	ok(!(st & C_READ_SYS), "it reads the exporter's data through its own mapping (sysmem)");
	ok(!(st & C_READ_VRAM), "it reads the exporter's data through its own mapping (VRAM)");
	ok(!(st & C_BIND), "it binds both into its own GPU VM");
	ok(!(st & C_GPU), "its copy engine copies from one shared object to the other");
	good = true;
	for (i = 0; i < SIZE / 8; i++)
		good &= pv[SIZE / 8 + i] == pattern(i, 1) && pv[i] == pattern(i, 2);
	ok(good, "the exporter sees the other process's GPU writes, and only them");
	close(sys_fd);
	close(vram_fd);
	close(fd);
	shared_mappings();
	implicit_sync();
	return tap_done();
}
