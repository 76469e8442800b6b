// SPDX-License-Identifier: GPL-2.0-only OR MIT
/* Copyright (c) 2026 The tgpu authors */

/*
 * The drm_sched backend of a queue: its hardware fences (the queue's
 * semaphore reaching a job's seqno, signalled from the non-stall
 * interrupt), run_job writing the job's GPFIFO entries and fence
 * segment, the timeout, and failing a dead queue's fences.
 */

#include <linux/dma-fence.h>
#include <linux/idr.h>
#include <linux/io.h>
#include <linux/jiffies.h>
#include <linux/ktime.h>
#include <linux/math64.h>
#include <linux/moduleparam.h>
#include <linux/sched.h>
#include <linux/sizes.h>
#include <linux/slab.h>
#include <linux/uaccess.h>
#include <linux/workqueue.h>
#include <linux/xarray.h>

#include <drm/drm_drv.h>
#include <drm/drm_file.h>
#include <drm/drm_managed.h>
#include <drm/drm_print.h>
#include <drm/drm_syncobj.h>
#include <drm/gpu_scheduler.h>
#include <drm/tgpu_drm.h>

#include <tgpu/channel.h>
#include <tgpu/copy.h>
#include <tgpu/isa.h>
#include <tgpu/mmu.h>
#include <tgpu/regs.h>

#include "tgpu_device.h"
#include "tgpu_file.h"
#include "tgpu_queue.h"
#include "tgpu_reset.h"
#include "tgpu_sched.h"
#include "tgpu_uq.h"
#include "tgpu_vm.h"

static const char *tgpu_fence_driver_name(struct dma_fence *fence)
{
	return TGPU_DRIVER_NAME;
}

static const char *tgpu_fence_timeline_name(struct dma_fence *fence)
{
	return "queue";
}

static const struct dma_fence_ops tgpu_fence_ops = {
	.get_driver_name = tgpu_fence_driver_name,
	.get_timeline_name = tgpu_fence_timeline_name,
};

/* ---- fences -------------------------------------------------------------- */

/* @ns more of @q's engine time, for its file's fdinfo */
static void tgpu_queue_add_busy(struct tgpu_queue *q, u64 ns)
{
	struct tgpu_file *tfile = tgpu_vm_file(q->vm);

	if (q->engine == TGPU_RUNLIST_COMPUTE) {
		atomic64_add(ns, &tfile->busy_ns[TGPU_FILE_ENGINE_COMPUTE]);
		atomic64_add(div_u64(ns * READ_ONCE(q->tdev->therm.request),
				     1000), &tfile->cycles);
	} else {
		atomic64_add(ns, &tfile->busy_ns[TGPU_FILE_ENGINE_COPY]);
	}
}

/* CHAN_BUSY_NS: reading LO latches HI, so under @q's fence_lock */
static u64 tgpu_queue_busy_locked(struct tgpu_queue *q)
{
	struct tgpu_device *tdev = q->tdev;
	u64 ns;

	lockdep_assert_held(&q->fence_lock);
	ns = tgpu_rd32(tdev, TGPU_CHAN_REG(q->chid, TGPU_CHAN_BUSY_NS_LO));
	return ns | (u64)tgpu_rd32(tdev, TGPU_CHAN_REG(q->chid,
						       TGPU_CHAN_BUSY_NS_HI)) << 32;
}

/*
 * CHAN_BUSY_NS (channels.md): the time the channel's work had its engine,
 * not the time it waited behind the engine's other channels.  With
 * @account, what it counted since the last look goes to the file, so the
 * files' shares of an engine add up to at most all of it; a channel reset
 * starts the count again.  The read and busy_seen's update are one reader
 * at a time.  U64_MAX when the device is gone (or reads all ones).
 */
static u64 tgpu_queue_busy(struct tgpu_queue *q, bool account)
{
	struct tgpu_device *tdev = q->tdev;
	unsigned long flags;
	u64 ns;
	int idx;

	if (READ_ONCE(tdev->reset.lost) || !drm_dev_enter(&tdev->base, &idx))
		return U64_MAX;
	spin_lock_irqsave(&q->fence_lock, flags);
	ns = tgpu_queue_busy_locked(q);
	if (account) {
		if (ns < q->busy_seen)
			q->busy_seen = 0;
		if (ns != U64_MAX && ns > q->busy_seen) {
			tgpu_queue_add_busy(q, ns - q->busy_seen);
			q->busy_seen = ns;
		}
	}
	spin_unlock_irqrestore(&q->fence_lock, flags);
	drm_dev_exit(idx);
	return ns;
}

/**
 * tgpu_queue_busy_ns() - the engine time a queue's channel's work has had
 * @q: the queue
 *
 * Return: nanoseconds since the channel's last reset; U64_MAX when the
 * device is gone (or reads all ones).
 */
u64 tgpu_queue_busy_ns(struct tgpu_queue *q)
{
	return tgpu_queue_busy(q, false);
}

/**
 * tgpu_queue_account() - a queue's engine time, for its file's fdinfo
 * @q: the queue
 */
void tgpu_queue_account(struct tgpu_queue *q)
{
	tgpu_queue_busy(q, true);
}

/*
 * Signal @q's fences up to the value its semaphore holds; with @error,
 * fail the rest with it.  The semaphore is read only while the device is
 * there.
 */
void tgpu_queue_signal(struct tgpu_queue *q, int error)
{
	struct tgpu_fence *f, *next;
	unsigned long flags;
	u64 done = 0;
	int idx;

	/* before a waiter wakes up to read fdinfo */
	tgpu_queue_account(q);
	/* all ones: a lost bus (or an uncorrectable ECC error), not done */
	if (!READ_ONCE(q->tdev->reset.lost) &&
	    drm_dev_enter(&q->tdev->base, &idx)) {
		done = readq(q->mem.cpu + TGPU_Q_SEM);
		if (done == U64_MAX)
			done = 0;
		drm_dev_exit(idx);
	}

	spin_lock_irqsave(&q->fence_lock, flags);
	list_for_each_entry_safe(f, next, &q->fences, link) {
		if (f->base.seqno > done) {
			if (!error)
				break;
			dma_fence_set_error(&f->base, error);
		}
		list_del(&f->link);
		dma_fence_signal(&f->base);
		dma_fence_put(&f->base);
	}
	spin_unlock_irqrestore(&q->fence_lock, flags);
	if (q->user)
		tgpu_uq_signal(q, error);
}

/* Mark @q dead with @error and fail its unfinished fences. */
void tgpu_queue_fail(struct tgpu_queue *q, int error)
{
	unsigned long flags;

	spin_lock_irqsave(&q->fence_lock, flags);
	if (!q->error)
		q->error = error;
	spin_unlock_irqrestore(&q->fence_lock, flags);
	tgpu_queue_signal(q, error);
}

/* 0, or why @q is dead (negative errno). */
int tgpu_queue_error(struct tgpu_queue *q)
{
	unsigned long flags;
	int error;

	spin_lock_irqsave(&q->fence_lock, flags);
	error = q->error;
	spin_unlock_irqrestore(&q->fence_lock, flags);
	return error;
}

/**
 * tgpu_queues_signal() - signal the fences the device says queues reached
 * @tdev: the device
 *
 * Called by the non-stall interrupt handler, after acknowledging it.
 * The device sets a channel's bit in FIFO_NONSTALL_PENDING for each of
 * its non-stall events; the bits of each word that has a queue are read
 * and cleared, and only those queues' semaphores are looked at.  An
 * event after the clear sets its bit and the interrupt again
 * (channels.md, "Interrupts").
 */
void tgpu_queues_signal(struct tgpu_device *tdev)
{
	unsigned int w, words = DIV_ROUND_UP(tdev->id.channels, 32);
	struct tgpu_queue *q;
	unsigned long flags, first;
	u32 bits;

	spin_lock_irqsave(&tdev->queues_lock, flags);
	for (w = 0; w < words; w++) {
		/* no MMIO read for a word without a queue */
		first = w * 32;
		if (!xa_find(&tdev->chan_queues, &first, w * 32 + 31,
			     XA_PRESENT))
			continue;
		bits = tgpu_rd32(tdev, TGPU_FIFO_NONSTALL_PENDING(w));
		if (!bits)
			continue;
		tgpu_wr32(tdev, TGPU_FIFO_NONSTALL_PENDING(w), bits);
		while (bits) {
			q = xa_load(&tdev->chan_queues, w * 32 + __ffs(bits));
			if (q)
				tgpu_queue_signal(q, 0);
			bits &= bits - 1;
		}
	}
	spin_unlock_irqrestore(&tdev->queues_lock, flags);
}

/**
 * tgpu_queues_chan_error() - a channel took an error
 * @tdev: the device
 * @chid: the channel
 * @code: the TGPU_ERR_* code
 * @info: the channel's CHAN_ERROR_INFO
 * @fault_va: the faulting address of an engine fault, or 0
 *
 * Called by the stall interrupt handler.  The queue on @chid, if any,
 * is dead: its finished work signals, the rest fails with -EIO.  The
 * error is kept for DRM_IOCTL_TGPU_QUEUE_QUERY.
 */
void tgpu_queues_chan_error(struct tgpu_device *tdev, u32 chid, u32 code,
			    u32 info, u64 fault_va)
{
	struct tgpu_queue *q;
	unsigned long flags;
	char pre[16] = "";
	unsigned int xid;

	/* a recovery's own engine reset: the recovery runs the work again */
	if (code == TGPU_ERR_ENGINE_RESET && tdev->reset.active)
		return;

	spin_lock_irqsave(&tdev->queues_lock, flags);
	list_for_each_entry(q, &tdev->queues, dev_link) {
		if (q->chid != chid)
			continue;
		/* the host unit's faults: the MMU fault record had the address */
		if (!fault_va && (code == TGPU_ERR_PB_FAULT ||
				  code == TGPU_ERR_SEM_FAULT ||
				  code == TGPU_ERR_GPFIFO_FAULT ||
				  code == TGPU_ERR_USERD_FAULT))
			fault_va = READ_ONCE(q->mmu_fault_va);
		spin_lock(&q->fence_lock);
		if (!q->error) {
			q->chan_error = code;
			q->chan_error_info = info;
			q->fault_va = fault_va;
		}
		spin_unlock(&q->fence_lock);
		/* a kind with no Xid (a thermal shutdown) goes without one */
		xid = tgpu_chan_error_xid(code, info);
		if (xid)
			snprintf(pre, sizeof(pre), "Xid %u: ", xid);
		dev_err_ratelimited(tdev->base.dev,
				    "%schannel %u (pid %d, %s) %s (%s), engine %s: queue %u dead, its unfinished jobs fail with -EIO\n",
				    pre, chid, pid_nr(q->pid), q->comm,
				    tgpu_chan_error_meaning(code),
				    tgpu_chan_error_name(code),
				    tgpu_engine_name(q->engine), q->id);
		tgpu_queue_fail(q, -EIO);
		/* the driver's own kill or reset is dumped by its recovery */
		if (code != TGPU_ERR_KILLED && code != TGPU_ERR_ENGINE_RESET)
			tgpu_reset_chan_dump_soon(tdev, chid);
		break;
	}
	spin_unlock_irqrestore(&tdev->queues_lock, flags);
}

/* ---- scheduler backend --------------------------------------------------- */

static void tgpu_queue_write_gp(struct tgpu_queue *q, u32 slot, u64 entry)
{
	writeq(entry, q->gpfifo + slot * TGPU_GP_ENTRY_SIZE);
}

/*
 * The kernel's segment after each job: release the job's seqno to the
 * fence semaphore (64-bit), then raise the non-stall interrupt.
 */
static u64 tgpu_queue_write_fence_pb(struct tgpu_queue *q, u32 slot,
				     u64 seqno)
{
	void __iomem *pb = q->mem.cpu + TGPU_Q_FENCE_PB +
			   slot * TGPU_Q_FENCE_SLOT;
	u32 dw[TGPU_SEM_DWORDS + 1];
	unsigned int i, n;

	n = tgpu_pb_sem(dw, q->va + TGPU_Q_SEM, seqno,
			TGPU_SEM_OP_RELEASE | TGPU_SEM_PAYLOAD_64);
	dw[n++] = TGPU_PB_HDR(TGPU_PB_OP_IMMD, 0, TGPU_M_NON_STALL_INTERRUPT, 0);
	for (i = 0; i < n; i++)
		writel(dw[i], pb + 4 * i);
	return q->va + TGPU_Q_FENCE_PB + slot * TGPU_Q_FENCE_SLOT;
}

/**
 * tgpu_job_write() - write a job's GPFIFO entries and fence segment
 * @q: its queue
 * @job: the job, with its hardware fence
 *
 * At the queue's GP_PUT, which moves past them; the caller then writes
 * GP_PUT to USERD and rings the doorbell.  Run by run_job, and by the
 * recovery when it hands a reset channel its unfinished jobs again.
 */
void tgpu_job_write(struct tgpu_queue *q, struct tgpu_job *job)
{
	const u32 mask = TGPU_Q_GPFIFO_ENTRIES - 1;
	u32 put = q->gp_put, i;
	u64 pb;

	job->gp_slot = put;
	for (i = 0; i < job->count; i++) {
		tgpu_queue_write_gp(q, put, TGPU_GP_ENTRY(job->ranges[i].va,
							  job->ranges[i].dwords,
							  0));
		put = (put + 1) & mask;
	}
	pb = tgpu_queue_write_fence_pb(q, put, job->fence->base.seqno);
	tgpu_queue_write_gp(q, put, TGPU_GP_ENTRY(pb, TGPU_Q_FENCE_DWORDS, 0));
	q->gp_put = (put + 1) & mask;
}

/* Tell the device that @q's GP_PUT moved. */
void tgpu_queue_kick(struct tgpu_queue *q)
{
	wmb(); /* the entries and segments, then GP_PUT */
	writel(q->gp_put, q->userd + TGPU_USERD_GP_PUT);
	wmb(); /* GP_PUT, then the doorbell */
	tgpu_wr32(q->tdev, TGPU_USERMODE_DOORBELL, q->chid);
}

static struct dma_fence *tgpu_job_run(struct drm_sched_job *sjob)
{
	struct tgpu_job *job = to_tgpu_job(sjob);
	struct tgpu_queue *q = job->q;
	struct tgpu_device *tdev = q->tdev;
	struct tgpu_fence *fence;
	unsigned long flags;
	int idx, error;

	/* A dependency failed, or the job was cancelled. */
	if (unlikely(sjob->s_fence->finished.error))
		return NULL;
	error = tgpu_queue_error(q);
	if (error)
		return ERR_PTR(error);
	if (!drm_dev_enter(&tdev->base, &idx))
		return ERR_PTR(-ENODEV);

	fence = job->hw_fence;
	job->hw_fence = NULL;
	dma_fence_init(&fence->base, &tgpu_fence_ops, &fence->lock,
		       q->fence_ctx, ++q->seqno);
	/* the job's, for a replay after a reset */
	job->fence = fence;
	dma_fence_get(&fence->base);
	/* where the hang check starts from (tgpu_reset.c) */
	job->snap.progress = tgpu_rd32(tdev, TGPU_PMC_ENGINE_PROGRESS(q->engine));
	job->snap.busy = tgpu_queue_busy_ns(q);
	job->snap.busy_valid = job->snap.busy != U64_MAX;
	job->snap.ran_ns = 0;
	job->snap.valid = false;
	job->rearms = 0;
	job->run_ns = ktime_get_ns();

	tgpu_job_write(q, job);

	/*
	 * In the list before the device can signal it (the list's ref),
	 * unless the queue died since the check above: then it fails now.
	 */
	spin_lock_irqsave(&q->fence_lock, flags);
	error = q->error;
	if (!error) {
		list_add_tail(&fence->link, &q->fences);
		dma_fence_get(&fence->base);
	}
	spin_unlock_irqrestore(&q->fence_lock, flags);
	if (error) {
		dma_fence_set_error(&fence->base, error);
		dma_fence_signal(&fence->base);
		drm_dev_exit(idx);
		return &fence->base;
	}

	tgpu_queue_kick(q);
	drm_dev_exit(idx);

	return &fence->base;
}

void tgpu_job_free(struct drm_sched_job *sjob)
{
	struct tgpu_job *job = to_tgpu_job(sjob);

	drm_sched_job_cleanup(sjob);
	if (job->fence)
		dma_fence_put(&job->fence->base);
	/* Still here when run_job never took it. */
	kfree(job->hw_fence);
	kvfree(job->ranges);
	kfree(job);
}

const struct drm_sched_backend_ops tgpu_sched_ops = {
	.run_job = tgpu_job_run,
	.timedout_job = tgpu_reset_timedout,
	.free_job = tgpu_job_free,
};
