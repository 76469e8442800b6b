// SPDX-License-Identifier: MIT
/*
 * In-guest test of user-mode submission (DRM_TGPU_QUEUE_USER_SUBMIT):
 * the ring and doorbell mappings, DRM_IOCTL_TGPU_WAIT and
 * DRM_IOCTL_TGPU_USER_FENCE, bad input from the ring (each ends the
 * queue with its channel error, for that process only), isolation
 * between processes, and the watchdog.  Raw ioctls; pushbuffers use host
 * methods only.  Meant for a guest booted with --device-opts
 * vram-size=1G:
 *
 *   test-uq [--node=PATH]
 *
 * Output is TAP; the exit status is non-zero if any check failed.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <linux/sync_file.h>

#include <tgpu_drm.h>
#include <tgpu/channel.h>
#include <tgpu/regs.h>

#include "guest-tap.h"
#include "tgpu-raw.h"

static const char *node = "/dev/dri/renderD128";

/* One system-memory object per file: semaphores, then pushbuffers. */
#define MEM_VA          0x100000000ull
#define MEM_SIZE        0x10000u
#define SEM(i)          (8u * (i))              /* u64 semaphores */
#define PB(i)           (0x1000u + 0x100u * (i))
#define FOREIGN_VA      0x200000000ull          /* mapped by the child only */
#define WATCHDOG_MS     500u

struct file {
	int fd;
	uint32_t bo;
	volatile uint64_t *mem;
};

struct uq {
	struct drm_tgpu_queue_create c;
	void *ring, *bell_page;
	volatile uint64_t *gpfifo;
	volatile uint32_t *gp_put, *gp_get, *doorbell;
	uint32_t put;
};

static int64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

static void file_open(struct file *f)
{
	f->fd = open(node, O_RDWR | O_CLOEXEC);
	if (f->fd < 0)
		bail("cannot open the render node");
	f->bo = gem_create_flags(f->fd, MEM_SIZE, DRM_TGPU_GEM_CREATE_SYSMEM);
	f->mem = gem_mmap(f->fd, f->bo, MEM_SIZE);
	if (vm_bind(f->fd, f->bo, 0, MEM_VA, MEM_SIZE, 0))
		bail("VM_BIND failed");
}

static int uq_open(struct file *f, uint32_t timeout_ms, struct uq *q)
{
	int err;

	memset(q, 0, sizeof(*q));
	q->c.engine = TGPU_RUNLIST_CE0;
	q->c.flags = DRM_TGPU_QUEUE_USER_SUBMIT;
	q->c.timeout_ms = timeout_ms;
	err = xioctl(f->fd, DRM_IOCTL_TGPU_QUEUE_CREATE, &q->c);
	if (err)
		return err;
	q->ring = mmap(NULL, DRM_TGPU_USER_RING_SIZE, PROT_READ | PROT_WRITE,
		       MAP_SHARED, f->fd, (off_t)q->c.ring_offset);
	q->bell_page = mmap(NULL, DRM_TGPU_DOORBELL_PAGE_SIZE, PROT_WRITE,
			    MAP_SHARED, f->fd, (off_t)q->c.doorbell_offset);
	if (q->ring == MAP_FAILED || q->bell_page == MAP_FAILED)
		bail("cannot map a user queue");
	q->gpfifo = (volatile uint64_t *)((char *)q->ring + DRM_TGPU_USER_RING_GPFIFO);
	q->gp_put = (volatile uint32_t *)((char *)q->ring + DRM_TGPU_USER_RING_USERD +
					  TGPU_USERD_GP_PUT);
	q->gp_get = (volatile uint32_t *)((char *)q->ring + DRM_TGPU_USER_RING_USERD +
					  TGPU_USERD_GP_GET);
	q->doorbell = (volatile uint32_t *)((char *)q->bell_page +
					    DRM_TGPU_DOORBELL_OFFSET);
	return 0;
}

static void uq_close(struct file *f, struct uq *q)
{
	queue_destroy(f->fd, q->c.id);
	munmap(q->ring, DRM_TGPU_USER_RING_SIZE);
	munmap(q->bell_page, DRM_TGPU_DOORBELL_PAGE_SIZE);
}

/* Entries for [va, va + 4 * dwords), GP_PUT, doorbell. */
static void uq_push(struct uq *q, uint64_t va, uint32_t dwords)
{
	q->gpfifo[q->put] = TGPU_GP_ENTRY(va, dwords, 0);
	q->put = (q->put + 1) % q->c.ring_entries;
	__atomic_thread_fence(__ATOMIC_SEQ_CST);
	*q->gp_put = q->put;
	__atomic_thread_fence(__ATOMIC_SEQ_CST);
	*q->doorbell = q->c.doorbell_token;
}

/* A pushbuffer at PB(slot): op on SEM(sem) with value, then the interrupt. */
static uint32_t pb_sem(struct file *f, unsigned int slot, unsigned int sem,
		       uint64_t value, uint32_t op)
{
	uint32_t *p = (uint32_t *)((char *)f->mem + PB(slot));
	uint32_t n = tgpu_pb_sem(p, MEM_VA + SEM(sem), value,
				 op | TGPU_SEM_PAYLOAD_64);

	p[n++] = TGPU_PB_HDR(TGPU_PB_OP_IMMD, 0, TGPU_M_NON_STALL_INTERRUPT, 0);
	return n;
}

static void uq_release(struct file *f, struct uq *q, unsigned int slot,
		       unsigned int sem, uint64_t value)
{
	uq_push(q, MEM_VA + PB(slot), pb_sem(f, slot, sem, value,
					     TGPU_SEM_OP_RELEASE));
}

static int uq_wait(struct file *f, struct uq *q, uint64_t va, uint64_t value,
		   int64_t timeout_abs)
{
	struct drm_tgpu_wait w = {
		.queue = q->c.id, .va = va, .value = value,
		.timeout_nsec = timeout_abs,
	};

	return xioctl(f->fd, DRM_IOCTL_TGPU_WAIT, &w);
}

static struct drm_tgpu_queue_query query(struct file *f, struct uq *q)
{
	struct drm_tgpu_queue_query qq = { .id = q->c.id };

	if (xioctl(f->fd, DRM_IOCTL_TGPU_QUEUE_QUERY, &qq))
		bail("QUEUE_QUERY failed");
	return qq;
}

/* ---- the ABI ----------------------------------------------------------- */

static void test_create(struct file *f)
{
	struct drm_tgpu_queue_create c = {
		.engine = TGPU_RUNLIST_CE0, .flags = 2,
	};
	struct drm_tgpu_submit_range r = { .va = MEM_VA + PB(0), .dwords = 1 };
	struct drm_tgpu_submit s = { .count = 1, .ranges = (uintptr_t)&r };
	struct drm_tgpu_wait w = { .va = MEM_VA };
	uint32_t kq;
	struct uq q;
	void *p;
	int err;

	ok(xioctl(f->fd, DRM_IOCTL_TGPU_QUEUE_CREATE, &c) == EINVAL,
	   "QUEUE_CREATE with an unknown flag: EINVAL");
	err = uq_open(f, 0, &q);
	ok(!err, "QUEUE_CREATE USER_SUBMIT: %s", strerror(err));
	ok(q.c.ring_entries == 512 && q.c.doorbell_token && q.c.ring_offset &&
	   q.c.doorbell_offset && q.c.ring_gpu_va >= DRM_TGPU_VA_KERNEL_START,
	   "it returns the ring (%u entries at GPU 0x%" PRIx64 "), the mmap offsets and the doorbell token %u",
	   q.c.ring_entries, (uint64_t)q.c.ring_gpu_va, q.c.doorbell_token);
	ok(*q.gp_put == 0 && *q.gp_get == 0 && q.gpfifo[0] == 0,
	   "the mapped ring and USERD start zeroed");
	s.queue = q.c.id;
	ok(xioctl(f->fd, DRM_IOCTL_TGPU_SUBMIT, &s) == EINVAL,
	   "SUBMIT to a user-submit queue: EINVAL");
	if (queue_create(f->fd, TGPU_RUNLIST_CE0, 0, &kq))
		bail("QUEUE_CREATE failed");
	w.queue = kq;
	ok(xioctl(f->fd, DRM_IOCTL_TGPU_WAIT, &w) == EINVAL,
	   "WAIT on a kernel-submit queue: EINVAL");
	queue_destroy(f->fd, kq);
	w.queue = 9999;
	ok(xioctl(f->fd, DRM_IOCTL_TGPU_WAIT, &w) == ENOENT,
	   "WAIT on an unknown queue: ENOENT");

	p = mmap(NULL, 2 * DRM_TGPU_DOORBELL_PAGE_SIZE, PROT_WRITE, MAP_SHARED,
		 f->fd, (off_t)q.c.doorbell_offset);
	ok(p == MAP_FAILED && errno == EINVAL, "mmap of two doorbell pages: EINVAL");
	p = mmap(NULL, DRM_TGPU_DOORBELL_PAGE_SIZE, PROT_WRITE, MAP_PRIVATE,
		 f->fd, (off_t)q.c.doorbell_offset);
	ok(p == MAP_FAILED && errno == EINVAL, "a private doorbell mapping: EINVAL");
	p = mmap(NULL, DRM_TGPU_DOORBELL_PAGE_SIZE, PROT_WRITE | PROT_EXEC,
		 MAP_SHARED, f->fd, (off_t)q.c.doorbell_offset);
	ok(p == MAP_FAILED && errno == EPERM, "an executable doorbell mapping: EPERM");
	uq_close(f, &q);
}

/* ---- jobs and waits ----------------------------------------------------- */

static void test_null_job(struct file *f)
{
	struct uq q;
	int64_t t0;
	int err;

	if (uq_open(f, 0, &q))
		bail("no user queue");
	f->mem[0] = 0;
	t0 = now_ns();
	uq_release(f, &q, 0, 0, 1);
	err = uq_wait(f, &q, MEM_VA + SEM(0), 1, now_ns() + 5000000000ll);
	ok(!err && f->mem[0] == 1,
	   "a null job: WAIT returns 0 once the semaphore is 1 (%s, %.1f us)",
	   strerror(err), (now_ns() - t0) / 1e3);
	ok(*q.gp_get == 1, "the device moved USERD's GP_GET to 1 (%u)", *q.gp_get);
	uq_release(f, &q, 1, 0, 2);
	err = uq_wait(f, &q, MEM_VA + SEM(0), 2, INT64_MAX);
	ok(!err && f->mem[0] == 2, "a wait with no timeout (INT64_MAX) ends: %s",
	   strerror(err));
	uq_close(f, &q);
}

static void test_wait_args(struct file *f)
{
	struct drm_tgpu_wait w = { 0 };
	struct uq q;
	int64_t t0;
	int err;

	if (uq_open(f, 0, &q))
		bail("no user queue");
	f->mem[1] = 0;
	w.queue = q.c.id;
	w.va = MEM_VA + SEM(1) + 4;
	ok(xioctl(f->fd, DRM_IOCTL_TGPU_WAIT, &w) == EINVAL, "WAIT on an unaligned address: EINVAL");
	w.va = MEM_VA + SEM(1);
	w.flags = 1;
	ok(xioctl(f->fd, DRM_IOCTL_TGPU_WAIT, &w) == EINVAL, "WAIT with flags: EINVAL");
	w.flags = 0;
	w.va = 0x300000000ull;
	ok(xioctl(f->fd, DRM_IOCTL_TGPU_WAIT, &w) == ENOENT, "WAIT on an unmapped address: ENOENT");
	w.va = MEM_VA + SEM(1);
	w.value = 1;
	w.timeout_nsec = 0;
	t0 = now_ns();
	err = xioctl(f->fd, DRM_IOCTL_TGPU_WAIT, &w);
	ok(err == ETIME && now_ns() - t0 < 100000000,
	   "WAIT with a timeout of 0 on a semaphore not there: ETIME at once (%s, %.1f ms)",
	   strerror(err), (now_ns() - t0) / 1e6);
	w.timeout_nsec = now_ns() + 200000000;
	t0 = now_ns();
	err = xioctl(f->fd, DRM_IOCTL_TGPU_WAIT, &w);
	ok(err == ETIME && now_ns() - t0 >= 190000000,
	   "WAIT for 200 ms on a semaphore nobody releases: ETIME after %.0f ms",
	   (now_ns() - t0) / 1e6);
	f->mem[1] = 1;
	w.timeout_nsec = 0;
	ok(!xioctl(f->fd, DRM_IOCTL_TGPU_WAIT, &w), "a semaphore already there: 0 at once");
	uq_close(f, &q);
}

static volatile sig_atomic_t alarms;

static void on_alarm(int sig)
{
	(void)sig;
	alarms++;
}

/*
 * A signal during the sleep: without SA_RESTART the ioctl returns EINTR
 * and the same call again finishes the wait (the timeout is absolute);
 * with SA_RESTART the kernel restarts it by itself.
 */
static void test_wait_signal(struct file *f)
{
	struct itimerval it = { .it_value.tv_usec = 100000 };
	struct sigaction sa = { .sa_handler = on_alarm };
	struct drm_tgpu_wait w = { 0 };
	int64_t deadline;
	struct uq q;
	int r, err;

	if (uq_open(f, 0, &q))
		bail("no user queue");
	for (int restart = 0; restart < 2; restart++) {
		f->mem[2] = 0;
		f->mem[3] = 0;
		/* the release waits on the CPU's write of SEM(2) */
		uq_push(&q, MEM_VA + PB(2 + 2 * restart),
			pb_sem(f, 2 + 2 * restart, 2, 1, TGPU_SEM_OP_ACQ_GEQ) - 1);
		uq_release(f, &q, 3 + 2 * restart, 3, 1);
		sa.sa_flags = restart ? SA_RESTART : 0;
		sigaction(SIGALRM, &sa, NULL);
		alarms = 0;
		setitimer(ITIMER_REAL, &it, NULL);
		w.queue = q.c.id;
		w.va = MEM_VA + SEM(3);
		w.value = 1;
		deadline = now_ns() + 10000000000ll;
		w.timeout_nsec = deadline;
		if (fork() == 0) {
			usleep(300000);
			f->mem[2] = 1;	/* shared memory: the child lets it go */
			_exit(0);
		}
		r = ioctl(f->fd, DRM_IOCTL_TGPU_WAIT, &w);
		err = r ? errno : 0;
		if (!restart) {
			ok(err == EINTR && alarms == 1 && f->mem[3] == 0,
			   "a signal without SA_RESTART ends the sleep with EINTR (%s)",
			   strerror(err));
			err = xioctl(f->fd, DRM_IOCTL_TGPU_WAIT, &w);
			ok(!err && f->mem[3] == 1 && w.timeout_nsec == deadline,
			   "the same call again waits for the release: %s", strerror(err));
		} else {
			ok(!err && alarms == 1 && f->mem[3] == 1,
			   "with SA_RESTART the signal's handler runs and the wait restarts and ends: %s",
			   strerror(err));
		}
		wait(NULL);
	}
	signal(SIGALRM, SIG_DFL);
	uq_close(f, &q);
}

/* The sync_file of a syncobj: its status once signalled, or 0 if not. */
static int fence_status(int fd, uint32_t h, int timeout_ms)
{
	struct drm_syncobj_handle e = { .handle = h, .flags = DRM_SYNCOBJ_HANDLE_TO_FD_FLAGS_EXPORT_SYNC_FILE, .fd = -1 };
	struct sync_file_info info = { 0 };
	struct pollfd p;

	if (xioctl(fd, DRM_IOCTL_SYNCOBJ_HANDLE_TO_FD, &e))
		return -1000;
	p.fd = e.fd;
	p.events = POLLIN;
	if (poll(&p, 1, timeout_ms) != 1) {
		close(e.fd);
		return 0;
	}
	ioctl(e.fd, SYNC_IOC_FILE_INFO, &info);
	close(e.fd);
	return info.status;
}

static void test_user_fence(struct file *f)
{
	struct drm_syncobj_create sc = { 0 };
	struct drm_tgpu_user_fence uf = { 0 };
	struct uq q;
	int st;

	if (uq_open(f, WATCHDOG_MS, &q))
		bail("no user queue");
	if (xioctl(f->fd, DRM_IOCTL_SYNCOBJ_CREATE, &sc))
		bail("SYNCOBJ_CREATE failed");
	f->mem[4] = 0;
	uf.queue = q.c.id;
	uf.syncobj = sc.handle;
	uf.va = MEM_VA + SEM(4);
	uf.value = 1;
	uf.pad = 1;
	ok(xioctl(f->fd, DRM_IOCTL_TGPU_USER_FENCE, &uf) == EINVAL, "USER_FENCE with pad: EINVAL");
	uf.pad = 0;
	uf.syncobj = 12345;
	ok(xioctl(f->fd, DRM_IOCTL_TGPU_USER_FENCE, &uf) == ENOENT, "USER_FENCE to an unknown syncobj: ENOENT");
	uf.syncobj = sc.handle;
	/* work that waits for the CPU, so that the fence is attached first */
	uq_push(&q, MEM_VA + PB(10), pb_sem(f, 10, 5, 1, TGPU_SEM_OP_ACQ_GEQ) - 1);
	uq_release(f, &q, 11, 4, 1);
	ok(!xioctl(f->fd, DRM_IOCTL_TGPU_USER_FENCE, &uf), "USER_FENCE on queued work");
	ok(fence_status(f->fd, sc.handle, 0) == 0, "its sync_file is not signalled yet");
	f->mem[5] = 1;
	st = fence_status(f->fd, sc.handle, 5000);
	ok(st == 1 && f->mem[4] == 1, "poll() on the sync_file wakes once the work released it (status %d)", st);

	/* a value the idle channel will never release */
	uf.value = 7;
	ok(!xioctl(f->fd, DRM_IOCTL_TGPU_USER_FENCE, &uf), "USER_FENCE on a value no work will release");
	st = fence_status(f->fd, sc.handle, 4 * WATCHDOG_MS + 1000);
	ok(st == -ETIME, "the idle channel's watchdog fails it with -ETIME within a few checks (status %d)", st);
	uq_close(f, &q);
	ok(!xioctl(f->fd, DRM_IOCTL_SYNCOBJ_DESTROY, &sc), "SYNCOBJ_DESTROY");
}

/* ---- bad input from the ring ------------------------------------------ */

static void expect_dead(struct file *f, struct uq *q, uint32_t code,
			const char *what)
{
	struct drm_tgpu_queue_query qq;
	int err = uq_wait(f, q, MEM_VA + SEM(6), 1, now_ns() + 5000000000ll);

	qq = query(f, q);
	ok(err == EIO && qq.state == DRM_TGPU_QUEUE_STATE_DEAD && qq.chan_error == code,
	   "%s: WAIT answers EIO, the queue is dead with %s (%s, chan_error %u)",
	   what, tgpu_chan_error_name(code), strerror(err), qq.chan_error);
}

static void test_bad_ring(struct file *f)
{
	struct drm_tgpu_queue_query qq;
	uint32_t *p = (uint32_t *)((char *)f->mem + PB(20));
	struct uq q;
	int err;

	f->mem[6] = 0;
	if (uq_open(f, 0, &q))
		bail("no user queue");
	uq_push(&q, 0x300000000ull, 4);	/* nothing mapped there */
	uq_release(f, &q, 21, 6, 1);
	expect_dead(f, &q, TGPU_ERR_PB_FAULT, "an entry for an unmapped pushbuffer");
	uq_close(f, &q);

	if (uq_open(f, 0, &q))
		bail("no user queue");
	pb_sem(f, 22, 6, 1, TGPU_SEM_OP_RELEASE);
	q.gpfifo[0] = TGPU_GP_ENTRY(MEM_VA + PB(22), TGPU_SEM_DWORDS + 1, 0);
	__atomic_thread_fence(__ATOMIC_SEQ_CST);
	*q.gp_put = q.c.ring_entries + 88;
	__atomic_thread_fence(__ATOMIC_SEQ_CST);
	*q.doorbell = q.c.doorbell_token;
	expect_dead(f, &q, TGPU_ERR_GP_PUT_INVALID, "GP_PUT beyond the ring");
	uq_close(f, &q);

	if (uq_open(f, 0, &q))
		bail("no user queue");
	p[0] = TGPU_PB_HDR(TGPU_PB_OP_INC, 0, TGPU_M_MEM_OP_C, 2);
	p[1] = 1;	/* ASID 1: another VM's, the KMD's own */
	p[2] = TGPU_MEM_OP_TLB_INVALIDATE_ASID << TGPU_MEM_OP_SHIFT;
	uq_push(&q, MEM_VA + PB(20), 3);
	uq_release(f, &q, 21, 6, 1);
	expect_dead(f, &q, TGPU_ERR_MEM_OP, "a privileged MEM_OP (invalidate another ASID)");
	uq_close(f, &q);

	/* another process's memory: its address is nothing in this VM */
	if (uq_open(f, 0, &q))
		bail("no user queue");
	p = (uint32_t *)((char *)f->mem + PB(23));
	tgpu_pb_sem(p, FOREIGN_VA, 0xbad, TGPU_SEM_OP_RELEASE | TGPU_SEM_PAYLOAD_64);
	uq_push(&q, MEM_VA + PB(23), TGPU_SEM_DWORDS);
	uq_release(f, &q, 21, 6, 1);
	err = uq_wait(f, &q, MEM_VA + SEM(6), 1, now_ns() + 5000000000ll);
	qq = query(f, &q);
	ok(err == EIO && qq.chan_error == TGPU_ERR_SEM_FAULT && qq.fault_va == FOREIGN_VA,
	   "a release to an address only another process maps faults at 0x%" PRIx64 " (%s)",
	   (uint64_t)qq.fault_va, tgpu_chan_error_name(qq.chan_error));
	uq_close(f, &q);
}

/* ---- two processes ------------------------------------------------------ */

/*
 * The child maps FOREIGN_VA and its own queue; the parent tries its
 * ring's mmap offset, rings its doorbell token and writes to that address
 * from its own ring.  The child's memory and queue come through.
 */
static void test_isolation(struct file *f)
{
	int to_parent[2], to_child[2], status;
	struct drm_tgpu_queue_create cc;
	struct file child;
	uint64_t offset;
	struct uq q;
	pid_t pid;
	void *p;
	char c;

	if (pipe(to_parent) || pipe(to_child))
		bail("pipe");
	pid = fork();
	if (pid == 0) {
		int bad = 0;

		file_open(&child);
		if (vm_bind(child.fd, child.bo, 0, FOREIGN_VA, MEM_SIZE, 0))
			_exit(2);
		child.mem[0] = 42;
		child.mem[1] = 0;
		if (uq_open(&child, 0, &q))
			_exit(3);
		cc = q.c;
		if (write(to_parent[1], &cc, sizeof(cc)) != sizeof(cc) ||
		    read(to_child[0], &c, 1) != 1)
			_exit(4);
		/* its own work still runs */
		uq_release(&child, &q, 0, 1, 1);
		if (uq_wait(&child, &q, MEM_VA + SEM(1), 1, now_ns() + 5000000000ll) ||
		    query(&child, &q).state != DRM_TGPU_QUEUE_STATE_ALIVE)
			bad |= 1;
		if (child.mem[0] != 42 || *q.gp_get != 1)
			bad |= 2;
		_exit(bad ? 10 + bad : 0);
	}
	if (read(to_parent[0], &cc, sizeof(cc)) != sizeof(cc))
		bail("no child");
	offset = cc.ring_offset;
	p = mmap(NULL, DRM_TGPU_USER_RING_SIZE, PROT_READ | PROT_WRITE, MAP_SHARED,
		 f->fd, (off_t)offset);
	ok(p == MAP_FAILED && errno == EACCES,
	   "mmap of another file's ring offset: EACCES (%s)", strerror(errno));
	if (uq_open(f, 0, &q))
		bail("no user queue");
	/* its token on the doorbell: the device reads its GP_PUT, 0 */
	*q.doorbell = cc.doorbell_token;
	f->mem[6] = 0;
	uq_push(&q, MEM_VA + PB(23), tgpu_pb_sem((uint32_t *)((char *)f->mem + PB(23)),
						  FOREIGN_VA, 7, TGPU_SEM_OP_RELEASE |
						  TGPU_SEM_PAYLOAD_64));
	uq_release(f, &q, 21, 6, 1);
	ok(uq_wait(f, &q, MEM_VA + SEM(6), 1, now_ns() + 5000000000ll) == EIO,
	   "a release to the other process's address kills only this queue");
	if (write(to_child[1], "g", 1) != 1)
		bail("pipe");
	waitpid(pid, &status, 0);
	ok(WIFEXITED(status) && WEXITSTATUS(status) == 0,
	   "the other process: its doorbell rung by us changed nothing, its memory kept 42, its work ran (exit %d)",
	   WIFEXITED(status) ? WEXITSTATUS(status) : -1);
	uq_close(f, &q);
}

/* ---- the watchdog ------------------------------------------------------- */

static void *destroy_later(void *arg)
{
	struct file *f = arg;

	usleep(200000);
	queue_destroy(f->fd, (uint32_t)f->mem[15]);
	return NULL;
}

static void test_watchdog(struct file *f)
{
	struct drm_tgpu_reset_status rs;
	struct drm_tgpu_queue_query qq;
	struct uq q, other;
	struct file g;
	char pattern[128];
	pthread_t t;
	int64_t t0;
	pid_t pid;
	int err, status, n;

	/* a waiter while the queue is destroyed: ECANCELED */
	if (uq_open(f, 0, &q))
		bail("no user queue");
	f->mem[15] = q.c.id;
	f->mem[7] = 0;
	pthread_create(&t, NULL, destroy_later, f);
	err = uq_wait(f, &q, MEM_VA + SEM(7), 1, now_ns() + 5000000000ll);
	pthread_join(t, NULL);
	ok(err == ECANCELED, "a WAIT while its queue is destroyed: ECANCELED (%s)", strerror(err));
	ok(*q.gp_put == 0, "the destroyed queue's ring mapping stays readable");
	munmap(q.ring, DRM_TGPU_USER_RING_SIZE);
	munmap(q.bell_page, DRM_TGPU_DOORBELL_PAGE_SIZE);

	/* another process keeps submitting meanwhile */
	pid = fork();
	if (pid == 0) {
		int64_t end = now_ns() + 4ll * WATCHDOG_MS * 1000000 + 2000000000ll;
		uint64_t v = 0;

		file_open(&g);
		if (uq_open(&g, WATCHDOG_MS, &other))
			_exit(2);
		while (now_ns() < end) {
			uq_release(&g, &other, (unsigned int)(v % 8), 0, v + 1);
			if (uq_wait(&g, &other, MEM_VA + SEM(0), v + 1, now_ns() + 5000000000ll))
				_exit(3);
			v++;
		}
		_exit(query(&g, &other).state == DRM_TGPU_QUEUE_STATE_ALIVE ? 0 : 4);
	}

	if (uq_open(f, WATCHDOG_MS, &q))
		bail("no user queue");
	f->mem[8] = 0;
	f->mem[9] = 0;
	/* an acquire nobody satisfies, with more behind it: GP_GET != GP_PUT */
	uq_push(&q, MEM_VA + PB(30), pb_sem(f, 30, 8, 1, TGPU_SEM_OP_ACQ_GEQ) - 1);
	uq_release(f, &q, 31, 9, 1);
	t0 = now_ns();
	err = uq_wait(f, &q, MEM_VA + SEM(9), 1, now_ns() + 20000000000ll);
	qq = query(f, &q);
	ok(err == ETIME && qq.error == -ETIME,
	   "a channel stuck on an acquire with work behind it is found hung: WAIT answers ETIME after %.2f s, the queue's error -ETIME (%d)",
	   (now_ns() - t0) / 1e9, qq.error);
	ok((now_ns() - t0) / 1000000 <= 4 * WATCHDOG_MS + 1000,
	   "within a few checks of its %u ms timeout", WATCHDOG_MS);
	reset_status(f->fd, &rs);
	ok(rs.status == DRM_TGPU_RESET_GUILTY, "its file is guilty (%u)", rs.status);
	uq_close(f, &q);
	waitpid(pid, &status, 0);
	ok(WIFEXITED(status) && WEXITSTATUS(status) == 0,
	   "another process's user queue kept running through the recovery (exit %d)",
	   WIFEXITED(status) ? WEXITSTATUS(status) : -1);
	/*
	 * Its watchdog looked at it a few times while it was between its
	 * GP_PUT and its doorbell, or its interrupt was on the way: neither
	 * is a loss.
	 */
	snprintf(pattern, sizeof(pattern), "\\(pid %d, .*(interrupt never came|doorbell lost)", pid);
	n = dmesg_count(pattern);
	ok(n == 0, "no lost interrupt or doorbell reported for the busy process (%d lines)", n);
}

int main(int argc, char **argv)
{
	struct file f;

	for (int i = 1; i < argc; i++)
		if (!strncmp(argv[i], "--node=", 7))
			node = argv[i] + 7;
	file_open(&f);
	test_create(&f);
	test_null_job(&f);
	test_wait_args(&f);
	test_wait_signal(&f);
	test_user_fence(&f);
	test_bad_ring(&f);
	test_isolation(&f);
	/* last: it makes the file guilty */
	test_watchdog(&f);
	return tap_done();
}
