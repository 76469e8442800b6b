// SPDX-License-Identifier: MIT
/*
 * libtgpu: streams and events.
 *
 * A stream owns a 1 MiB command ring in VRAM (write-combined CPU mapping)
 * where each submission's commands and data (kernel parameters) are
 * written, and up to three kernel queues, one per engine.  Each
 * submission gets one of SLOTS binary syncobjs as its out-fence; a
 * submission on another engine than the previous one waits for that
 * previous fence, so the whole stream is ordered and the newest fence
 * covers everything before it.  Ring space and slots come back when
 * their submission is retired (waited for), oldest first.
 *
 * User-mode submission (tgpu-uq.c, unless TGPU_SUBMIT=kernel): the
 * queues are user-submit ones, and the stream writes their GPFIFO
 * entries itself.  Submission n (from 1) ends with a segment that
 * releases base + n to the stream's semaphore, a system-memory word of
 * the context's pool, and raises the non-stall interrupt; one on another
 * engine than the previous one starts with a segment that acquires
 * base + n - 1.  Waiting is on that word; syncobjs (events, fence_to)
 * get DRM_IOCTL_TGPU_USER_FENCE fences of it.  An event remembers the
 * (word, value) of its newest record, and a stream that waits for it
 * acquires that on the GPU before its next submission: the caller does
 * not wait, and recording the event again does not change the wait.
 *
 * Failures: a failed job kills its queue in the kernel, so later jobs of
 * that queue fail too.  Checking the newest job of each engine when the
 * stream is retired is therefore enough to see every failure; that is
 * what retire() does, and it makes the failure sticky for the context.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#include <linux/sync_file.h>
#include <xf86drm.h>

#include <tgpu/channel.h>
#include <tgpu/copy.h>
#include <tgpu/ecc.h>
#include <tgpu/isa.h>
#include <tgpu/mmu.h>
#include <tgpu_drm.h>

#include "tgpu-cmdbuf.h"
#include "tgpu-internal.h"

#define RING_SIZE       (1u << 20)
#define RING_ALIGN      256u
#define SLOTS           32
#define NR_ENGINES      3
/* user-mode submission: the acquire and the release segments */
#define UQ_RELEASE      32u     /* the release segment, first */
#define UQ_ACQUIRE      (TGPU_SEM_DWORDS * 4u)  /* then the acquires, each */
/* other streams' semaphores acquired before one submission, at most */
#define UQ_MAX_WAITS    16
/* how often a user-mode wait behind events looks at the events' queues */
#define DEP_CHECK_NS    (100 * 1000 * 1000)
_Static_assert((TGPU_SEM_DWORDS + 1) * 4 <= UQ_RELEASE, "release segment");

struct slot {
	uint32_t syncobj;
	uint32_t start, end;    /* ring bytes of the submission */
	int engine;
};

struct tgpu_stream {
	tgpu_context *ctx;
	int priority;
	pthread_mutex_t lock;
	uint32_t queue[NR_ENGINES];     /* kernel queue IDs, 0: none yet */
	struct tu_bo *ring;
	uint32_t head;                  /* next free ring byte */
	uint32_t res_start, res_end;    /* the pending reservation */
	struct slot slot[SLOTS];        /* in flight: tail .. head_seq - 1 */
	uint64_t tail, head_seq;
	int last_engine;                /* engine of the newest submission */
	/* newest submission per engine, and whether its fence was checked */
	uint64_t engine_seq[NR_ENGINES];
	bool engine_unchecked[NR_ENGINES];
	struct tu_ptr_list waits;       /* syncobjs for the next submission */
	/* user-mode submission: semaphores to acquire before it, one per word */
	struct { uint64_t va, value; } gwait[UQ_MAX_WAITS];
	unsigned int ngwait;
	/*
	 * Queues of other streams whose work the waited-for events followed
	 * and whose failures no one had looked at: a failure there is this
	 * stream's too, reported when it is next drained.
	 */
	struct tu_ptr_list dep_q;
	/* subchannel bindings of each queue, for tu_cb_validate() */
	uint32_t subch_class[NR_ENGINES][8];
	/* user-mode submission: its queues and semaphore (base + seq + 1) */
	bool user;
	struct tu_uq uq[NR_ENGINES];
	struct tu_sem sem;
};

/* The bytes a user-mode submission adds to its commands: its segments. */
static uint32_t uq_tail(const tgpu_stream *s)
{
	return UQ_RELEASE + UQ_ACQUIRE * (1 + s->ngwait);
}

static const char *const engine_names[NR_ENGINES] = {
	"compute", "copy engine 0", "copy engine 1",
};

/*
 * libdrm's drmSyncobj*() return -1 with errno set, or (drmSyncobjWait)
 * the negative errno: the positive errno either way, or 0.
 */
static int drm_errno(int ret)
{
	return !ret ? 0 : ret == -1 ? errno : -ret;
}

int tu_syncobj_create(int fd, uint32_t *h, bool signaled)
{
	*h = 0;
	return drm_errno(drmSyncobjCreate(fd, signaled ? DRM_SYNCOBJ_CREATE_SIGNALED : 0, h));
}

void tu_syncobj_destroy(int fd, uint32_t h)
{
	drmSyncobjDestroy(fd, h);
}

/* Wait for a syncobj's fence; timeout_ns 0 polls.  0, ETIME or errno. */
int tu_syncobj_wait(int fd, uint32_t h, int64_t timeout_ns)
{
	struct timespec now;
	int64_t deadline = INT64_MAX;

	if (timeout_ns >= 0) {
		clock_gettime(CLOCK_MONOTONIC, &now);
		deadline = (int64_t)now.tv_sec * 1000000000 + now.tv_nsec + timeout_ns;
	}
	return drm_errno(drmSyncobjWait(fd, &h, 1, deadline,
					DRM_SYNCOBJ_WAIT_FLAGS_WAIT_FOR_SUBMIT, NULL));
}

/* The status of a signalled fence: 0, or the negative errno it failed with. */
int tu_syncobj_status(int fd, uint32_t h)
{
	struct sync_file_info info;
	int err, sync_fd = -1;

	err = drm_errno(drmSyncobjExportSyncFile(fd, h, &sync_fd));
	if (err)
		return -err;
	memset(&info, 0, sizeof(info));
	err = ioctl(sync_fd, SYNC_IOC_FILE_INFO, &info) ? -errno :
	      info.status < 0 ? info.status : 0;
	close(sync_fd);
	return err;
}

int tu_syncobj_transfer(int fd, uint32_t dst, uint32_t src)
{
	return drm_errno(drmSyncobjTransfer(fd, dst, 0, src, 0, 0));
}

static tgpu_status fence_status(int err, const char **why)
{
	switch (err) {
	case -ETIME:
		*why = "it stopped making progress for its job timeout (TGPU_LIMIT_JOB_TIMEOUT_MS, else tgpu.job_timeout_ms), or ran tgpu.hang_rearm_max + 1 of them: its engine was reset and the context banned (an \"Xid 8\" or \"Xid 109\" line in dmesg names the channel)";
		return TGPU_ERROR_LAUNCH_TIMEOUT;
	case -ENODEV:
		*why = "the device is gone (unbound, or fallen off the bus: dmesg says which)";
		return TGPU_ERROR_DEVICE_LOST;
	case -ECANCELED:
		*why = "its queue was destroyed under it";
		return TGPU_ERROR_LAUNCH_FAILED;
	}
	*why = "its channel took an error (a kernel error or memory fault; dmesg names the channel error and the faulting address)";
	return TGPU_ERROR_LAUNCH_FAILED;
}

tgpu_status tu_ctx_fence_failed(tgpu_context *ctx, int err, const char *what)
{
	const char *why;
	tgpu_status st = fence_status(err, &why);

	return tu_ctx_set_sticky(ctx, st, "%s failed with %s: %s", what,
				 strerror(-err), why);
}

/*
 * A channel error (-EIO): ask the driver which one, to tell a memory
 * fault (ILLEGAL_ADDRESS) from other failures and say where.
 */
static tgpu_status chan_error_status(tgpu_context *ctx, uint32_t qid,
				     char *why, size_t len)
{
	struct drm_tgpu_queue_query q = { .id = qid };
	bool fault;

	if (tu_ioctl(ctx->fd, DRM_IOCTL_TGPU_QUEUE_QUERY, &q) || q.error != -EIO) {
		snprintf(why, len, "its channel took an error (dmesg names it)");
		return TGPU_ERROR_LAUNCH_FAILED;
	}
	switch (q.chan_error) {
	case TGPU_ERR_ECC_UNCORRECTABLE:
		snprintf(why, len, "uncorrectable ECC error in VRAM read by the %s (Xid 48; the ECC address log has where)",
			 tgpu_ecc_engine_name(q.chan_error_info));
		return TGPU_ERROR_ECC_UNCORRECTABLE;
	case TGPU_ERR_COMPUTE:
		fault = q.chan_error_info == TGPU_KERR_MMU_FAULT;
		snprintf(why, len, "kernel error: %s%s", tgpu_kerr_meaning(q.chan_error_info),
			 fault ? "" : " (dmesg gives the instruction, CTA, warp and lane)");
		break;
	case TGPU_ERR_COPY:
		fault = TGPU_CE_ERR_INFO_ERR(q.chan_error_info) == TGPU_CE_ERR_FAULT ||
			TGPU_CE_ERR_INFO_ERR(q.chan_error_info) == TGPU_CE_ERR_DESC_FAULT;
		snprintf(why, len, "copy engine error: %s",
			 tgpu_ce_error_meaning(TGPU_CE_ERR_INFO_ERR(q.chan_error_info)));
		break;
	default:
		fault = q.chan_error == TGPU_ERR_PB_FAULT ||
			q.chan_error == TGPU_ERR_SEM_FAULT ||
			q.chan_error == TGPU_ERR_GPFIFO_FAULT;
		snprintf(why, len, "channel error %s: %s", tgpu_chan_error_name(q.chan_error),
			 tgpu_chan_error_meaning(q.chan_error));
		break;
	}
	if (fault && q.fault_va) {
		size_t n = strlen(why);

		snprintf(why + n, len - n, " at GPU address 0x%010" PRIx64
			 " (not mapped, or not writable, in this context)", (uint64_t)q.fault_va);
	}
	return fault ? TGPU_ERROR_ILLEGAL_ADDRESS : TGPU_ERROR_LAUNCH_FAILED;
}

/* A queue's failure (errno err) as a status, and why in words. */
static tgpu_status queue_failure(tgpu_context *ctx, uint32_t qid, int err,
				 char *why, size_t len)
{
	tgpu_status st;
	const char *w;

	if (err == -EIO)
		return chan_error_status(ctx, qid, why, len);
	st = fence_status(err, &w);
	snprintf(why, len, "%s", w);
	return st;
}

/* The errno of the first queue the stream depends on that failed (its ID in *id), or 0. */
static int dep_error(tgpu_stream *s, uint32_t *id)
{
	size_t i;

	for (i = 0; i < s->dep_q.n; i++) {
		struct drm_tgpu_queue_query q = { .id = (uint32_t)(uintptr_t)s->dep_q.v[i] };

		/* a queue gone is no news (as for an event) */
		if (!tu_ioctl(s->ctx->fd, DRM_IOCTL_TGPU_QUEUE_QUERY, &q) && q.error) {
			*id = q.id;
			return q.error;
		}
	}
	return 0;
}

/*
 * Did work this stream waited for (through events) fail?  Then that is
 * its failure: on the kernel path its work ran anyway, on the user path
 * its channel stayed blocked on the acquire until the driver took it
 * down as hung, or the wait gave up (uq_wait()).  false, or true with
 * *st and why set.
 */
static bool dep_failed(tgpu_stream *s, char *why, size_t len, tgpu_status *st)
{
	char cause[256];
	uint32_t id;
	int err = s->dep_q.n ? dep_error(s, &id) : 0;

	s->dep_q.n = 0;
	if (!err)
		return false;
	*st = queue_failure(s->ctx, id, err, cause, sizeof(cause));
	snprintf(why, len, "it waited for an event after work of queue %" PRIu32
		 ", which failed: %s", id, cause);
	return true;
}

/* A failed fence of an engine's job: the context's sticky error. */
static tgpu_status job_failed(tgpu_stream *s, int engine, int err)
{
	char buf[512];
	tgpu_status st;

	if (err == -ETIME && dep_failed(s, buf, sizeof(buf), &st))
		return tu_ctx_set_sticky(s->ctx, st,
					 "work on stream %p (%s queue %" PRIu32 ") cannot finish: %s",
					 (void *)s, engine_names[engine], s->queue[engine], buf);
	st = queue_failure(s->ctx, s->queue[engine], err, buf, sizeof(buf));
	return tu_ctx_set_sticky(s->ctx, st,
				 "work on stream %p (%s queue %" PRIu32 ") failed with %s: %s",
				 (void *)s, engine_names[engine], s->queue[engine],
				 strerror(-err), buf);
}

/*
 * Did the queue's work fail?  0, or the errno its fences fail with.  A
 * failure marks the queue dead before it fails any fence, so once a fence
 * has signalled, a live queue means that fence (and every earlier one of
 * the queue) succeeded: one ioctl instead of exporting a sync_file.
 */
static int queue_error(tgpu_stream *s, int engine)
{
	struct drm_tgpu_queue_query q = { .id = s->queue[engine] };
	int err = tu_ioctl(s->ctx->fd, DRM_IOCTL_TGPU_QUEUE_QUERY, &q);

	return err ? -err : q.error;
}

/*
 * User-mode submission: wait for submission seq - 1 (the stream's
 * semaphore to reach base + seq), released by engine's queue.  0; a
 * tgpu_status (positive) when the wait itself failed; the queue's error
 * (negative errno) when its work failed.
 */
static int uq_wait(tgpu_stream *s, int engine, uint64_t seq, int64_t timeout_ns)
{
	int64_t left = timeout_ns, slice;
	uint32_t id;
	int err;

	/*
	 * Blocked behind an event whose work failed, the channel may wait
	 * for the driver's watchdog, which spares it while other work of
	 * the process runs: look at the events' queues every DEP_CHECK_NS.
	 */
	for (;;) {
		slice = !s->dep_q.n || (left >= 0 && left <= DEP_CHECK_NS) ? left : DEP_CHECK_NS;
		err = tu_uq_wait(s->ctx, &s->uq[engine], s->sem.cpu, s->sem.va,
				 s->sem.base + seq, slice);
		if (err != ETIME || !s->dep_q.n)
			break;
		if (dep_error(s, &id))
			return -ETIME;          /* job_failed() says whose */
		/* its own queue failed: the wait ends (below) */
		if (slice == left || queue_error(s, engine))
			break;
		if (left > 0)
			left -= slice;
	}

	switch (err) {
	case 0:
		return 0;
	case EIO:
	case ECANCELED:
	case ENODEV:
		return -err;
	case ETIME:
		/* a timed wait ran out, or the queue hung: ask which */
		if (timeout_ns >= 0 && !queue_error(s, engine))
			return TGPU_ERROR_NOT_READY;
		return -ETIME;
	}
	return tu_ctx_ioctl_error(s->ctx, "waiting for a stream's work (DRM_IOCTL_TGPU_WAIT)", err);
}

/* Retire the oldest submission; check its fence if no newer job of its
 * engine will be checked later. */
static tgpu_status retire_oldest(tgpu_stream *s)
{
	uint64_t seq = s->tail;
	struct slot *sl = &s->slot[seq % SLOTS];
	int fd = s->ctx->fd, err;

	if (s->user) {
		err = uq_wait(s, sl->engine, seq + 1, -1);
		if (err)
			return err > 0 ? (tgpu_status)err : job_failed(s, sl->engine, err);
		s->tail++;
		return TGPU_SUCCESS;
	}
	err = tu_syncobj_wait(fd, sl->syncobj, -1);
	if (err)
		return tu_ctx_ioctl_error(s->ctx, "waiting for a stream's work (DRM_IOCTL_SYNCOBJ_WAIT)", err);
	s->tail++;
	if (s->engine_seq[sl->engine] == seq && s->engine_unchecked[sl->engine]) {
		s->engine_unchecked[sl->engine] = false;
		err = queue_error(s, sl->engine);
		if (err)
			return job_failed(s, sl->engine, err);
	}
	return TGPU_SUCCESS;
}

/* The stream's work is done: the work it waited for too?  (Lock held.) */
static tgpu_status drain_deps(tgpu_stream *s)
{
	tgpu_status st;
	char why[512];

	if (!s->dep_q.n || !dep_failed(s, why, sizeof(why), &st))
		return TGPU_SUCCESS;
	return tu_ctx_set_sticky(s->ctx, st, "work on stream %p failed: %s", (void *)s, why);
}

/* Wait for everything in flight (stream lock held). */
static tgpu_status drain(tgpu_stream *s)
{
	int fd = s->ctx->fd, e, err;
	tgpu_status st = TGPU_SUCCESS;

	if (s->tail == s->head_seq)
		return drain_deps(s);
	if (s->user) {
		/* the newest release comes after every earlier one */
		err = uq_wait(s, s->last_engine, s->head_seq, -1);
		if (err)
			return err > 0 ? (tgpu_status)err : job_failed(s, s->last_engine, err);
		s->tail = s->head_seq;
		s->head = 0;
		return drain_deps(s);
	}
	/* the newest fence covers every earlier one */
	err = tu_syncobj_wait(fd, s->slot[(s->head_seq - 1) % SLOTS].syncobj, -1);
	if (err)
		return tu_ctx_ioctl_error(s->ctx, "waiting for a stream's work (DRM_IOCTL_SYNCOBJ_WAIT)", err);
	for (e = 0; e < NR_ENGINES; e++) {
		if (!s->engine_unchecked[e] || s->engine_seq[e] < s->tail)
			continue;
		s->engine_unchecked[e] = false;
		err = queue_error(s, e);
		if (err && !st)
			st = job_failed(s, e, err);
	}
	s->tail = s->head_seq;
	s->head = 0;
	return st ? st : drain_deps(s);
}

void tu_stream_lock(tgpu_stream *s)
{
	pthread_mutex_lock(&s->lock);
}

void tu_stream_unlock(tgpu_stream *s)
{
	pthread_mutex_unlock(&s->lock);
}

tgpu_status tu_stream_fence_to(tgpu_stream *s, uint32_t dst)
{
	int err;

	if (s->tail == s->head_seq)
		return TGPU_SUCCESS;
	if (s->user) {
		err = tu_uq_fence(s->ctx, &s->uq[s->last_engine], dst, s->sem.va,
				  s->sem.base + s->head_seq);
		return err ? tu_ctx_ioctl_error(s->ctx, "DRM_IOCTL_TGPU_USER_FENCE", err) :
			     TGPU_SUCCESS;
	}
	err = tu_syncobj_transfer(s->ctx->fd, dst,
				  s->slot[(s->head_seq - 1) % SLOTS].syncobj);
	return err ? tu_ctx_ioctl_error(s->ctx, "DRM_IOCTL_SYNCOBJ_TRANSFER", err) :
		     TGPU_SUCCESS;
}

tgpu_context *tu_stream_ctx(tgpu_stream *s)
{
	return s->ctx;
}

tgpu_status tu_stream_reserve(tgpu_stream *s, size_t bytes, void **cpu,
			      uint64_t *va)
{
	tgpu_status st;
	uint32_t at;

	if (!bytes || bytes > RING_SIZE / 2)
		goto too_big;
	/* user-mode submission: room after it for the stream's own segments */
	if (s->user)
		bytes += uq_tail(s);
	bytes = (bytes + RING_ALIGN - 1) & ~(size_t)(RING_ALIGN - 1);
	if (bytes > RING_SIZE / 2)
too_big:
		return tu_fail(TGPU_ERROR_INVALID_VALUE,
			       "a submission of %zu bytes does not fit the stream's command ring (%u bytes)",
			       bytes, RING_SIZE / 2);
	for (;;) {
		uint64_t inflight = s->head_seq - s->tail;
		uint32_t tail_off = s->slot[s->tail % SLOTS].start;

		if (!inflight) {
			s->head = 0;
			at = 0;
			break;
		}
		if (inflight < SLOTS) {
			if (s->head > tail_off) {
				if (RING_SIZE - s->head >= bytes) {
					at = s->head;
					break;
				}
				if (tail_off >= bytes) {
					at = 0;
					break;
				}
			} else if (s->head < tail_off && tail_off - s->head >= bytes) {
				at = s->head;
				break;
			}
		}
		st = retire_oldest(s);
		if (st)
			return st;
	}
	s->res_start = at;
	s->res_end = at + (uint32_t)bytes;
	*cpu = (char *)s->ring->cpu + at;
	*va = s->ring->va + at;
	return TGPU_SUCCESS;
}

static tgpu_status ensure_queue(tgpu_stream *s, int engine)
{
	struct drm_tgpu_queue_create c = {
		.engine = (uint32_t)engine,
		.priority = (uint32_t)s->priority,
	};
	int err;

	if (s->queue[engine])
		return TGPU_SUCCESS;
	pthread_mutex_lock(&s->ctx->lock);
	c.timeout_ms = s->ctx->job_timeout_ms;
	pthread_mutex_unlock(&s->ctx->lock);
	if (s->user)
		err = tu_uq_open(s->ctx, &s->uq[engine], &c);
	else
		err = tu_ioctl(s->ctx->fd, DRM_IOCTL_TGPU_QUEUE_CREATE, &c);
	if (err == EPERM)
		return tu_fail(TGPU_ERROR_PERMISSION_DENIED,
			       "creating a queue (DRM_IOCTL_TGPU_QUEUE_CREATE): a job timeout of %u ms (TGPU_LIMIT_JOB_TIMEOUT_MS) is longer than the driver's and needs CAP_SYS_NICE; lower it or raise tgpu.job_timeout_ms",
			       c.timeout_ms);
	if (err)
		return tu_ctx_ioctl_error(s->ctx, "creating a queue (DRM_IOCTL_TGPU_QUEUE_CREATE)", err);
	s->queue[engine] = c.id;
	return TGPU_SUCCESS;
}

/*
 * User-mode submission of the commands at va, in up to three GPFIFO
 * entries: the acquires (of the previous submission when it was on
 * another engine, and of the events waited for), the commands, the
 * release of this submission's value with the non-stall interrupt.  The
 * segments are at the end of the reservation: the release, then the
 * acquires.
 */
static void uq_commit(tgpu_stream *s, enum tgpu_engine engine, uint64_t va,
		      uint32_t ndwords)
{
	uint32_t tail = s->res_end - uq_tail(s), *p, *acq;
	uint64_t value = s->sem.base + s->head_seq + 1, seg = s->ring->va + tail;
	uint64_t entry[3];
	unsigned int n = 0, k, i, nacq = 0;

	p = (uint32_t *)((char *)s->ring->cpu + tail);
	acq = p + UQ_RELEASE / 4;
	if (s->tail != s->head_seq && s->last_engine != (int)engine) {
		acq += tgpu_pb_sem(acq, s->sem.va, value - 1,
				   TGPU_SEM_OP_ACQ_GEQ | TGPU_SEM_PAYLOAD_64);
		nacq++;
	}
	for (i = 0; i < s->ngwait; i++, nacq++)
		acq += tgpu_pb_sem(acq, s->gwait[i].va, s->gwait[i].value,
				   TGPU_SEM_OP_ACQ_GEQ | TGPU_SEM_PAYLOAD_64);
	s->ngwait = 0;
	if (nacq)
		entry[n++] = TGPU_GP_ENTRY(seg + UQ_RELEASE, nacq * TGPU_SEM_DWORDS, 0);
	entry[n++] = TGPU_GP_ENTRY(va, ndwords, 0);
	k = tgpu_pb_sem(p, s->sem.va, value, TGPU_SEM_OP_RELEASE | TGPU_SEM_PAYLOAD_64);
	p[k++] = TGPU_PB_HDR(TGPU_PB_OP_IMMD, 0, TGPU_M_NON_STALL_INTERRUPT, 0);
	entry[n++] = TGPU_GP_ENTRY(seg, k, 0);
	tu_uq_push(&s->uq[engine], entry, n);
}

tgpu_status tu_stream_commit(tgpu_stream *s, enum tgpu_engine engine,
			     uint64_t va, uint32_t ndwords, bool binds)
{
	struct drm_tgpu_submit_range r = { .va = va, .dwords = ndwords };
	uint32_t in[DRM_TGPU_SUBMIT_MAX_IN_SYNCOBJS];
	uint32_t nin = 0, i;
	struct drm_tgpu_submit sub = { 0 };
	struct slot *sl = &s->slot[s->head_seq % SLOTS];
	tgpu_status st;
	int err;

	st = ensure_queue(s, engine);
	if (st)
		return st;
	if (s->user) {
		/*
		 * Events of kernel-path streams (TGPU_SUBMIT=kernel when they
		 * were made) have no semaphore word: those are waited for on
		 * the host, before the submission is written.
		 */
		for (i = 0; i < s->waits.n; i++) {
			err = tu_syncobj_wait(s->ctx->fd, (uint32_t)(uintptr_t)s->waits.v[i], -1);
			if (err)
				return tu_ctx_ioctl_error(s->ctx, "waiting for an event (DRM_IOCTL_SYNCOBJ_WAIT)", err);
		}
		uq_commit(s, engine, va, ndwords);
		goto waited;
	}
	if (s->tail != s->head_seq && s->last_engine != (int)engine)
		in[nin++] = s->slot[(s->head_seq - 1) % SLOTS].syncobj;
	for (i = 0; i < s->waits.n && nin < DRM_TGPU_SUBMIT_MAX_IN_SYNCOBJS; i++)
		in[nin++] = (uint32_t)(uintptr_t)s->waits.v[i];
	sub.queue = s->queue[engine];
	sub.count = 1;
	sub.ranges = (uintptr_t)&r;
	sub.in_syncobjs = (uintptr_t)in;
	sub.in_syncobj_count = nin;
	sub.out_syncobj = sl->syncobj;
	/* the commands went through a write-combined mapping: drain it */
	__atomic_thread_fence(__ATOMIC_SEQ_CST);
	err = tu_ioctl(s->ctx->fd, DRM_IOCTL_TGPU_SUBMIT, &sub);
	/* the queue died of its earlier work's error: report that error */
	if (err == EIO)
		return job_failed(s, engine, -EIO);
	if (err)
		return tu_ctx_ioctl_error(s->ctx, "submitting work (DRM_IOCTL_TGPU_SUBMIT)", err);
waited:
	for (i = 0; i < s->waits.n; i++)
		tu_syncobj_destroy(s->ctx->fd, (uint32_t)(uintptr_t)s->waits.v[i]);
	s->waits.n = 0;
	sl->start = s->res_start;
	sl->end = s->res_end;
	sl->engine = engine;
	s->engine_seq[engine] = s->head_seq;
	s->engine_unchecked[engine] = true;
	s->last_engine = engine;
	if (binds)
		s->subch_class[engine][0] = engine == TGPU_ENGINE_KIND_COMPUTE ?
					    TGPU_CLASS_COMPUTE : TGPU_CLASS_COPY;
	s->head_seq++;
	s->head = s->res_end;
	return TGPU_SUCCESS;
}

/* ---- streams -------------------------------------------------------------- */

tgpu_status tu_stream_create(tgpu_context *ctx, int priority, tgpu_stream **out)
{
	tgpu_stream *s;
	tgpu_status st;
	int i, err;

	s = calloc(1, sizeof(*s));
	if (!s)
		return tu_fail(TGPU_ERROR_OUT_OF_MEMORY, "out of host memory");
	s->ctx = ctx;
	s->priority = priority;
	s->last_engine = -1;
	s->user = tu_uq_wanted(ctx);
	pthread_mutex_init(&s->lock, NULL);
	for (i = 0; i < SLOTS; i++) {
		err = tu_syncobj_create(ctx->fd, &s->slot[i].syncobj, false);
		if (err) {
			st = tu_ctx_ioctl_error(ctx, "DRM_IOCTL_SYNCOBJ_CREATE", err);
			goto err;
		}
	}
	st = tu_bo_create(ctx, RING_SIZE, false, true, &s->ring);
	if (st)
		goto err;
	if (s->user) {
		st = tu_sem_get(ctx, &s->sem);
		if (st)
			goto err_ring;
	}
	pthread_mutex_lock(&ctx->lock);
	if (!tu_list_add(&ctx->streams, s)) {
		pthread_mutex_unlock(&ctx->lock);
		st = tu_fail(TGPU_ERROR_OUT_OF_MEMORY, "out of host memory");
		goto err_ring;
	}
	pthread_mutex_unlock(&ctx->lock);
	if (!tu_handle_add(s, TU_H_STREAM)) {
		pthread_mutex_lock(&ctx->lock);
		tu_list_remove(&ctx->streams, s);
		pthread_mutex_unlock(&ctx->lock);
		st = tu_fail(TGPU_ERROR_OUT_OF_MEMORY, "out of host memory");
		goto err_ring;
	}
	*out = s;
	return TGPU_SUCCESS;

err_ring:
	tu_sem_put(ctx, &s->sem, true);
	tu_bo_destroy(ctx, s->ring);
err:
	for (i = 0; i < SLOTS; i++)
		if (s->slot[i].syncobj)
			tu_syncobj_destroy(ctx->fd, s->slot[i].syncobj);
	free(s);
	return st;
}

void tu_stream_free(tgpu_stream *s)
{
	tgpu_context *ctx = s->ctx;
	bool drained;
	int i;

	tu_handle_remove(s);
	pthread_mutex_lock(&ctx->lock);
	tu_list_remove(&ctx->streams, s);
	if (ctx->default_stream == s)
		ctx->default_stream = NULL;
	pthread_mutex_unlock(&ctx->lock);
	pthread_mutex_lock(&s->lock);
	drain(s);
	drained = s->tail == s->head_seq;
	pthread_mutex_unlock(&s->lock);
	for (i = 0; i < NR_ENGINES; i++) {
		struct drm_tgpu_queue_destroy d = { .id = s->queue[i] };

		if (s->user)
			tu_uq_close(ctx, &s->uq[i]);
		else if (s->queue[i])
			tu_ioctl(ctx->fd, DRM_IOCTL_TGPU_QUEUE_DESTROY, &d);
	}
	for (i = 0; i < SLOTS; i++)
		tu_syncobj_destroy(ctx->fd, s->slot[i].syncobj);
	for (i = 0; i < (int)s->waits.n; i++)
		tu_syncobj_destroy(ctx->fd, (uint32_t)(uintptr_t)s->waits.v[i]);
	free(s->waits.v);
	free(s->dep_q.v);
	/* work that failed released less than it was given: never again */
	tu_sem_put(ctx, &s->sem, drained);
	tu_bo_destroy(ctx, s->ring);
	pthread_mutex_destroy(&s->lock);
	free(s);
}

/*
 * Event waits with no work after them yet are part of the stream too (as
 * in CUDA): give them a submission of their own, one WFI, so that what
 * waits for the stream waits for them (stream lock held).
 */
static tgpu_status flush_waits(tgpu_stream *s)
{
	tgpu_status st;
	uint32_t *p;
	uint64_t va;

	if (!s->ngwait && !s->waits.n)
		return TGPU_SUCCESS;
	st = tu_stream_reserve(s, 4, (void **)&p, &va);
	if (st)
		return st;
	p[0] = TGPU_PB_HDR(TGPU_PB_OP_IMMD, 0, TGPU_M_WFI, 0);
	return tu_stream_commit(s, s->last_engine >= 0 ? s->last_engine : TGPU_ENGINE_KIND_COMPUTE,
				va, 1, false);
}

tgpu_status tu_stream_sync(tgpu_stream *s)
{
	tgpu_status st;

	pthread_mutex_lock(&s->lock);
	st = flush_waits(s);
	if (!st)
		st = drain(s);
	pthread_mutex_unlock(&s->lock);
	return st;
}

tgpu_status tu_stream_resolve(tgpu_context *ctx, tgpu_stream *in,
			      tgpu_stream **out, const char *fn)
{
	if (!in) {
		*out = ctx->default_stream;
		return TGPU_SUCCESS;
	}
	if (!tu_handle_valid(in, TU_H_STREAM))
		return tu_fail(TGPU_ERROR_INVALID_HANDLE,
			       "%s: %p is not a live stream", fn, (void *)in);
	if (in->ctx != ctx)
		return tu_fail(TGPU_ERROR_INVALID_HANDLE,
			       "%s: stream %p belongs to another context", fn, (void *)in);
	*out = in;
	return TGPU_SUCCESS;
}

/* A stream handle from the API, with its context checked. */
static tgpu_status stream_enter(tgpu_stream *s, const char *fn)
{
	if (!s)
		return tu_fail(TGPU_ERROR_INVALID_HANDLE,
			       "%s: stream is NULL (the default stream is only implied by NULL in calls that take a context)",
			       fn);
	if (!tu_handle_valid(s, TU_H_STREAM))
		return tu_fail(TGPU_ERROR_INVALID_HANDLE, "%s: %p is not a live stream",
			       fn, (void *)s);
	return tu_ctx_enter(s->ctx, fn);
}

tgpu_status tgpu_stream_create(tgpu_context *ctx, tgpu_stream **stream,
			       unsigned int flags, int priority)
{
	tgpu_status st;

	if (!stream)
		return tu_fail(TGPU_ERROR_INVALID_VALUE, "tgpu_stream_create: stream is NULL");
	st = tu_ctx_enter(ctx, "tgpu_stream_create");
	if (st)
		return st;
	if (flags)
		return tu_fail(TGPU_ERROR_INVALID_VALUE,
			       "tgpu_stream_create: flags must be 0, got 0x%x", flags);
	if (priority < TGPU_STREAM_PRIORITY_LOWEST ||
	    priority > TGPU_STREAM_PRIORITY_HIGHEST)
		return tu_fail(TGPU_ERROR_INVALID_VALUE,
			       "tgpu_stream_create: priority %d is outside %d (lowest) .. %d (highest)",
			       priority, TGPU_STREAM_PRIORITY_LOWEST,
			       TGPU_STREAM_PRIORITY_HIGHEST);
	return tu_stream_create(ctx, priority, stream);
}

tgpu_status tgpu_stream_destroy(tgpu_stream *stream)
{
	if (!tu_handle_valid(stream, TU_H_STREAM))
		return tu_fail(TGPU_ERROR_INVALID_HANDLE,
			       "tgpu_stream_destroy: %p is not a live stream", (void *)stream);
	tgpu_context *ctx;

	if (stream == stream->ctx->default_stream)
		return tu_fail(TGPU_ERROR_INVALID_HANDLE,
			       "tgpu_stream_destroy: the default stream goes with its context");
	ctx = stream->ctx;
	/* not while tgpu_ctx_synchronize() may be waiting for it */
	pthread_rwlock_wrlock(&ctx->streams_rw);
	tu_stream_free(stream);
	pthread_rwlock_unlock(&ctx->streams_rw);
	return TGPU_SUCCESS;
}

tgpu_status tgpu_stream_synchronize(tgpu_stream *stream)
{
	tgpu_status st = stream_enter(stream, "tgpu_stream_synchronize");

	return st ? st : tu_stream_sync(stream);
}

tgpu_status tgpu_stream_query(tgpu_stream *stream)
{
	tgpu_status st = stream_enter(stream, "tgpu_stream_query");
	int err = 0;

	if (st)
		return st;
	pthread_mutex_lock(&stream->lock);
	st = flush_waits(stream);
	if (st) {
		pthread_mutex_unlock(&stream->lock);
		return st;
	}
	if (stream->user) {
		err = stream->tail == stream->head_seq ? 0 :
		      uq_wait(stream, stream->last_engine, stream->head_seq, 0);
		if (!err)
			st = drain(stream);
		else
			st = err > 0 ? (tgpu_status)err : job_failed(stream, stream->last_engine, err);
		pthread_mutex_unlock(&stream->lock);
		return st;
	}
	if (stream->tail != stream->head_seq)
		err = tu_syncobj_wait(stream->ctx->fd,
				   stream->slot[(stream->head_seq - 1) % SLOTS].syncobj, 0);
	if (!err)
		st = drain(stream);
	else if (err == ETIME)
		st = TGPU_ERROR_NOT_READY;
	else
		st = tu_ctx_ioctl_error(stream->ctx, "DRM_IOCTL_SYNCOBJ_WAIT", err);
	pthread_mutex_unlock(&stream->lock);
	return st;
}

/* ---- events --------------------------------------------------------------- */

struct tgpu_event {
	tgpu_context *ctx;
	pthread_mutex_t lock;   /* records from several threads */
	uint32_t syncobj;       /* fence of the last record */
	struct tu_bo *ts;       /* semaphore payload at 0, ns at 8 */
	uint32_t records;
	bool recorded;
	/* user-mode submission: the last record is done at *sem_va >= sem_value */
	uint64_t sem_va, sem_value;
	/*
	 * The queues whose work the last record follows and whose failures
	 * no one has looked at yet: a failed job kills its queue, so asking
	 * them covers every engine of the stream, not only the record's.
	 */
	uint32_t check_q[NR_ENGINES];
	int check_engine[NR_ENGINES];
	int ncheck;
};

static tgpu_status event_enter(tgpu_event *ev, const char *fn)
{
	if (!tu_handle_valid(ev, TU_H_EVENT))
		return tu_fail(TGPU_ERROR_INVALID_HANDLE, "%s: %p is not a live event",
			       fn, (void *)ev);
	return tu_ctx_enter(ev->ctx, fn);
}

tgpu_status tgpu_event_create(tgpu_context *ctx, tgpu_event **event,
			      unsigned int flags)
{
	tgpu_event *ev;
	tgpu_status st;
	int err;

	if (!event)
		return tu_fail(TGPU_ERROR_INVALID_VALUE, "tgpu_event_create: event is NULL");
	st = tu_ctx_enter(ctx, "tgpu_event_create");
	if (st)
		return st;
	if (flags)
		return tu_fail(TGPU_ERROR_INVALID_VALUE,
			       "tgpu_event_create: flags must be 0, got 0x%x", flags);
	ev = calloc(1, sizeof(*ev));
	if (!ev)
		return tu_fail(TGPU_ERROR_OUT_OF_MEMORY, "tgpu_event_create: out of host memory");
	ev->ctx = ctx;
	pthread_mutex_init(&ev->lock, NULL);
	err = tu_syncobj_create(ctx->fd, &ev->syncobj, false);
	if (err) {
		free(ev);
		return tu_ctx_ioctl_error(ctx, "DRM_IOCTL_SYNCOBJ_CREATE", err);
	}
	st = tu_bo_create(ctx, 4096, false, true, &ev->ts);
	if (st)
		goto err_sync;
	pthread_mutex_lock(&ctx->lock);
	if (!tu_list_add(&ctx->events, ev)) {
		pthread_mutex_unlock(&ctx->lock);
		st = tu_fail(TGPU_ERROR_OUT_OF_MEMORY, "tgpu_event_create: out of host memory");
		goto err_bo;
	}
	pthread_mutex_unlock(&ctx->lock);
	if (!tu_handle_add(ev, TU_H_EVENT)) {
		tu_event_free(ev);
		return tu_fail(TGPU_ERROR_OUT_OF_MEMORY, "tgpu_event_create: out of host memory");
	}
	*event = ev;
	return TGPU_SUCCESS;

err_bo:
	tu_bo_destroy(ctx, ev->ts);
err_sync:
	tu_syncobj_destroy(ctx->fd, ev->syncobj);
	free(ev);
	return st;
}

void tu_event_free(tgpu_event *ev)
{
	tgpu_context *ctx = ev->ctx;

	tu_handle_remove(ev);
	pthread_mutex_lock(&ctx->lock);
	tu_list_remove(&ctx->events, ev);
	pthread_mutex_unlock(&ctx->lock);
	/* a record still running writes ts: let it finish first */
	if (ev->recorded)
		tu_syncobj_wait(ctx->fd, ev->syncobj, -1);
	tu_bo_destroy(ctx, ev->ts);
	tu_syncobj_destroy(ctx->fd, ev->syncobj);
	pthread_mutex_destroy(&ev->lock);
	free(ev);
}

tgpu_status tgpu_event_destroy(tgpu_event *event)
{
	if (!tu_handle_valid(event, TU_H_EVENT))
		return tu_fail(TGPU_ERROR_INVALID_HANDLE,
			       "tgpu_event_destroy: %p is not a live event", (void *)event);
	tu_event_free(event);
	return TGPU_SUCCESS;
}

tgpu_status tgpu_event_record(tgpu_event *event, tgpu_stream *stream)
{
	tgpu_stream *s;
	tgpu_status st;
	uint32_t *p;
	uint64_t va, sem;
	int engine;

	st = event_enter(event, "tgpu_event_record");
	if (st)
		return st;
	st = tu_stream_resolve(event->ctx, stream, &s, "tgpu_event_record");
	if (st)
		return st;
	sem = event->ts->va;
	pthread_mutex_lock(&event->lock);
	tu_stream_lock(s);
	st = tu_stream_reserve(s, 6 * 4, (void **)&p, &va);
	if (st)
		goto out;
	tgpu_pb_sem(p, sem, ++event->records,
		    TGPU_SEM_OP_RELEASE | TGPU_SEM_TIMESTAMP | TGPU_SEM_RELEASE_WFI);
	engine = s->last_engine >= 0 ? s->last_engine : TGPU_ENGINE_KIND_COMPUTE;
	st = tu_stream_commit(s, engine, va, 6, false);
	if (st)
		goto out;
	st = tu_stream_fence_to(s, event->syncobj);
	if (!st) {
		int e;

		event->recorded = true;
		event->ncheck = 0;
		/* a kernel-path stream's record has a syncobj only */
		event->sem_va = s->user ? s->sem.va : 0;
		event->sem_value = s->user ? s->sem.base + s->head_seq : 0;
		for (e = 0; e < NR_ENGINES; e++) {
			if (s->queue[e] && s->engine_unchecked[e]) {
				event->check_q[event->ncheck] = s->queue[e];
				event->check_engine[event->ncheck++] = e;
			}
		}
	}
out:
	tu_stream_unlock(s);
	pthread_mutex_unlock(&event->lock);
	return st;
}

static tgpu_status event_wait(tgpu_event *ev, int64_t timeout_ns)
{
	tgpu_context *ctx = ev->ctx;
	tgpu_status st = TGPU_SUCCESS;
	int err, i;

	pthread_mutex_lock(&ev->lock);
	if (!ev->recorded)
		goto out;
	err = tu_syncobj_wait(ctx->fd, ev->syncobj, timeout_ns);
	if (err == ETIME) {
		st = TGPU_ERROR_NOT_READY;
		goto out;
	}
	if (err) {
		st = tu_ctx_ioctl_error(ctx, "DRM_IOCTL_SYNCOBJ_WAIT", err);
		goto out;
	}
	/* every queue the record followed; a queue gone is no news */
	for (i = 0; i < ev->ncheck && !st; i++) {
		struct drm_tgpu_queue_query q = { .id = ev->check_q[i] };
		char why[256];

		if (tu_ioctl(ctx->fd, DRM_IOCTL_TGPU_QUEUE_QUERY, &q) || !q.error)
			continue;
		if (q.error == -EIO)
			st = tu_ctx_set_sticky(ctx, chan_error_status(ctx, q.id, why, sizeof(why)),
					       "work before event %p (%s queue %" PRIu32 ") failed: %s",
					       (void *)ev, engine_names[ev->check_engine[i]], q.id, why);
		else
			st = tu_ctx_fence_failed(ctx, q.error, "work before an event");
	}
	if (!st)
		ev->ncheck = 0;         /* looked at: a later wait need not ask */
out:
	pthread_mutex_unlock(&ev->lock);
	return st;
}

tgpu_status tgpu_event_synchronize(tgpu_event *event)
{
	tgpu_status st = event_enter(event, "tgpu_event_synchronize");

	return st ? st : event_wait(event, -1);
}

tgpu_status tgpu_event_query(tgpu_event *event)
{
	tgpu_status st = event_enter(event, "tgpu_event_query");

	return st ? st : event_wait(event, 0);
}

tgpu_status tgpu_event_elapsed_time(float *ms, tgpu_event *start,
				    tgpu_event *end)
{
	volatile uint64_t *a, *b;
	tgpu_status st;
	uint64_t t0, t1;

	if (!ms)
		return tu_fail(TGPU_ERROR_INVALID_VALUE, "tgpu_event_elapsed_time: ms is NULL");
	st = event_enter(start, "tgpu_event_elapsed_time");
	if (!st)
		st = event_enter(end, "tgpu_event_elapsed_time");
	if (st)
		return st;
	if (start->ctx != end->ctx)
		return tu_fail(TGPU_ERROR_INVALID_HANDLE,
			       "tgpu_event_elapsed_time: the events belong to different contexts");
	if (!start->recorded || !end->recorded)
		return tu_fail(TGPU_ERROR_INVALID_HANDLE,
			       "tgpu_event_elapsed_time: the %s event was never recorded",
			       start->recorded ? "end" : "start");
	st = event_wait(start, 0);
	if (!st)
		st = event_wait(end, 0);
	if (st == TGPU_ERROR_NOT_READY)
		return tu_fail(st, "tgpu_event_elapsed_time: an event's work has not finished: synchronize it first");
	if (st)
		return st;
	a = (volatile uint64_t *)((char *)start->ts->cpu + 8);
	b = (volatile uint64_t *)((char *)end->ts->cpu + 8);
	t0 = *a;
	t1 = *b;
	*ms = (float)((double)(int64_t)(t1 - t0) / 1e6);
	return TGPU_SUCCESS;
}

tgpu_status tgpu_event_export_fd(tgpu_event *event, int *fd)
{
	tgpu_status st;
	int err, sync_fd = -1;

	if (!fd)
		return tu_fail(TGPU_ERROR_INVALID_VALUE, "tgpu_event_export_fd: fd is NULL");
	st = event_enter(event, "tgpu_event_export_fd");
	if (st)
		return st;
	if (!event->recorded)
		return tu_fail(TGPU_ERROR_INVALID_HANDLE,
			       "tgpu_event_export_fd: event %p was never recorded: record it first",
			       (void *)event);
	err = drm_errno(drmSyncobjExportSyncFile(event->ctx->fd, event->syncobj, &sync_fd));
	if (err)
		return tu_ctx_ioctl_error(event->ctx, "DRM_IOCTL_SYNCOBJ_HANDLE_TO_FD", err);
	*fd = sync_fd;
	return TGPU_SUCCESS;
}

/*
 * User-mode submission: the stream's next submission acquires the
 * event's (word, value) first.  One acquire per word, of the highest
 * value asked: a stream's word only grows.  None for the stream's own
 * word: its work is in order anyway.
 */
static tgpu_status uq_wait_event(tgpu_stream *s, uint64_t va, uint64_t value)
{
	unsigned int i;

	if (va == s->sem.va)
		return TGPU_SUCCESS;
	for (i = 0; i < s->ngwait; i++) {
		if (s->gwait[i].va == va) {
			if (s->gwait[i].value < value)
				s->gwait[i].value = value;
			return TGPU_SUCCESS;
		}
	}
	if (s->ngwait == UQ_MAX_WAITS)
		return tu_fail(TGPU_ERROR_INVALID_VALUE,
			       "tgpu_stream_wait_event: events of more than %d other streams waited for before one submission: submit work in between",
			       UQ_MAX_WAITS);
	s->gwait[s->ngwait].va = va;
	s->gwait[s->ngwait++].value = value;
	return TGPU_SUCCESS;
}

/* Is queue qid one the stream already looks at when it drains? */
static bool dep_known(const tgpu_stream *s, uint32_t qid)
{
	size_t j;
	int e;

	/* its own: its drain checks them anyway */
	for (e = 0; e < NR_ENGINES; e++)
		if (s->queue[e] == qid)
			return true;
	for (j = 0; j < s->dep_q.n; j++)
		if ((uint32_t)(uintptr_t)s->dep_q.v[j] == qid)
			return true;
	return false;
}

/* Remember the queues whose failure would be this stream's, once each. */
static tgpu_status add_deps(tgpu_stream *s, const uint32_t *dep, int ndep)
{
	int i;

	for (i = 0; i < ndep; i++)
		if (!dep_known(s, dep[i]) && !tu_list_add(&s->dep_q, (void *)(uintptr_t)dep[i]))
			return tu_fail(TGPU_ERROR_OUT_OF_MEMORY, "out of host memory");
	return TGPU_SUCCESS;
}

tgpu_status tgpu_stream_wait_event(tgpu_stream *stream, tgpu_event *event)
{
	uint32_t dep[NR_ENGINES], h = 0;
	uint64_t va, value;
	tgpu_status st;
	int err, ndep;

	st = stream_enter(stream, "tgpu_stream_wait_event");
	if (!st)
		st = event_enter(event, "tgpu_stream_wait_event");
	if (st)
		return st;
	if (event->ctx != stream->ctx)
		return tu_fail(TGPU_ERROR_INVALID_HANDLE,
			       "tgpu_stream_wait_event: the event belongs to another context");
	pthread_mutex_lock(&event->lock);
	if (!event->recorded) {
		pthread_mutex_unlock(&event->lock);
		return TGPU_SUCCESS;
	}
	va = event->sem_va;
	value = event->sem_value;
	ndep = event->ncheck;
	memcpy(dep, event->check_q, sizeof(dep));
	/* a copy: recording the event again must not change this wait */
	if (!stream->user || !va) {
		err = tu_syncobj_create(stream->ctx->fd, &h, false);
		if (!err) {
			err = tu_syncobj_transfer(stream->ctx->fd, h, event->syncobj);
			if (err)
				tu_syncobj_destroy(stream->ctx->fd, h);
		}
		if (err) {
			pthread_mutex_unlock(&event->lock);
			return tu_ctx_ioctl_error(stream->ctx, "waiting for an event (DRM_IOCTL_SYNCOBJ_*)", err);
		}
	}
	pthread_mutex_unlock(&event->lock);

	tu_stream_lock(stream);
	/* first what can fail, so that a failed call leaves no wait behind */
	st = add_deps(stream, dep, ndep);
	if (!st && !h) {
		st = uq_wait_event(stream, va, value);
	} else if (!st && (stream->waits.n >= DRM_TGPU_SUBMIT_MAX_IN_SYNCOBJS - 1 ||
			   !tu_list_add(&stream->waits, (void *)(uintptr_t)h))) {
		st = tu_fail(TGPU_ERROR_INVALID_VALUE,
			     "tgpu_stream_wait_event: more than %d pending event waits on one stream: submit work in between",
			     DRM_TGPU_SUBMIT_MAX_IN_SYNCOBJS - 1);
	}
	if (st && h)
		tu_syncobj_destroy(stream->ctx->fd, h);
	tu_stream_unlock(stream);
	return st;
}

tgpu_status tgpu_stream_submit_commands(tgpu_stream *stream,
					enum tgpu_engine engine,
					const uint32_t *cmds, size_t ndwords)
{
	uint32_t cls[8];
	tgpu_status st;
	void *cpu;
	uint64_t va;

	st = stream_enter(stream, "tgpu_stream_submit_commands");
	if (st)
		return st;
	if (!cmds)
		return tu_fail(TGPU_ERROR_INVALID_VALUE, "tgpu_stream_submit_commands: cmds is NULL");
	if ((unsigned int)engine >= NR_ENGINES)
		return tu_fail(TGPU_ERROR_INVALID_VALUE,
			       "tgpu_stream_submit_commands: engine %d does not exist (0 compute, 1 copy 0, 2 copy 1)",
			       (int)engine);
	if (ndwords > TGPU_COMMANDS_MAX)
		return tu_fail(TGPU_ERROR_INVALID_VALUE,
			       "tgpu_stream_submit_commands: %zu dwords, at most %d in one submission",
			       ndwords, TGPU_COMMANDS_MAX);
	tu_stream_lock(stream);
	memcpy(cls, stream->subch_class[engine], sizeof(cls));
	st = tu_cb_validate(cmds, ndwords, engine, cls);
	if (st)
		goto out;
	st = tu_stream_reserve(stream, ndwords * 4, &cpu, &va);
	if (st)
		goto out;
	memcpy(cpu, cmds, ndwords * 4);
	st = tu_stream_commit(stream, engine, va, (uint32_t)ndwords, false);
	if (!st)
		memcpy(stream->subch_class[engine], cls, sizeof(cls));
out:
	tu_stream_unlock(stream);
	return st;
}
