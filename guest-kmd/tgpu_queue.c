// SPDX-License-Identifier: GPL-2.0-only OR MIT
/* Copyright (c) 2026 The tgpu authors */

#include <linux/dma-fence.h>
#include <linux/idr.h>
#include <linux/io.h>
#include <linux/jiffies.h>
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

#include "tgpu_device.h"
#include "tgpu_file.h"
#include "tgpu_queue.h"
#include "tgpu_vm.h"

static_assert(TGPU_Q_GPFIFO_ENTRIES * TGPU_GP_ENTRY_SIZE <= SZ_4K);
static_assert(TGPU_Q_FENCE_PB + TGPU_Q_GPFIFO_ENTRIES * TGPU_Q_FENCE_SLOT ==
	      TGPU_Q_SIZE);
static_assert(TGPU_Q_FENCE_DWORDS * 4 <= TGPU_Q_FENCE_SLOT);
static_assert(TGPU_Q_VA(TGPU_CHANNELS_MAX) <= DRM_TGPU_VA_LIMIT);
static_assert(DRM_TGPU_SUBMIT_MAX_RANGES + 1 < TGPU_Q_GPFIFO_ENTRIES);

/* A job that has not finished after this long is killed; 0: never. */
static unsigned int tgpu_job_timeout_ms = 5000;
module_param_named(job_timeout_ms, tgpu_job_timeout_ms, uint, 0444);
MODULE_PARM_DESC(job_timeout_ms,
		 "kill a job not finished after this many ms, 0 for never (default 5000)");

static const char * const tgpu_engine_names[TGPU_NR_RUNLISTS] = {
	[TGPU_RUNLIST_COMPUTE] = "compute",
	[TGPU_RUNLIST_CE0] = "ce0",
	[TGPU_RUNLIST_CE1] = "ce1",
};

/**
 * tgpu_engine_name() - the name of a runlist / queue engine
 * @engine: TGPU_RUNLIST_*
 *
 * Return: "compute", "ce0", "ce1", or "unknown".
 */
const char *tgpu_engine_name(u32 engine)
{
	return engine < TGPU_NR_RUNLISTS ? tgpu_engine_names[engine] :
					   "unknown";
}

/**
 * struct tgpu_fence - a hardware fence: the queue's semaphore reaching
 *	the fence's seqno
 * @base: the fence
 * @lock: its own lock, so that it may outlive the queue
 * @link: in &tgpu_queue.fences until signalled
 */
struct tgpu_fence {
	struct dma_fence base;
	spinlock_t lock; /* the fence's */
	struct list_head link;
};

/**
 * struct tgpu_job - one DRM_IOCTL_TGPU_SUBMIT
 * @base: the scheduler job
 * @q: the queue
 * @hw_fence: allocated at submit, handed to the scheduler by run_job
 * @count: number of @ranges
 * @ranges: the pushbuffer segments
 */
struct tgpu_job {
	struct drm_sched_job base;
	struct tgpu_queue *q;
	struct tgpu_fence *hw_fence;
	u32 count;
	struct drm_tgpu_submit_range *ranges;
};

static inline struct tgpu_job *to_tgpu_job(struct drm_sched_job *sjob)
{
	return container_of(sjob, struct tgpu_job, base);
}

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

static void tgpu_queue_fail(struct tgpu_queue *q, int error);

/* ---- runlists ------------------------------------------------------------ */

/* Write @engine's runlist and hand it to the device.  With rl_lock held. */
static void tgpu_runlist_submit(struct tgpu_device *tdev, u32 engine)
{
	struct tgpu_runlist *rl = &tdev->rl[engine];
	struct tgpu_queue *q;
	u32 n = 0, status;
	int idx;

	if (!drm_dev_enter(&tdev->base, &idx))
		return;

	if (engine == TGPU_RUNLIST_CE0 && tgpu_kchan_running(tdev))
		writel(TGPU_KCHAN_CHID, rl->mem.cpu + TGPU_RUNLIST_ENTRY_SIZE * n++);
	list_for_each_entry(q, &rl->queues, rl_link)
		writel(q->chid, rl->mem.cpu + TGPU_RUNLIST_ENTRY_SIZE * n++);
	wmb(); /* the list, before the device copies it */
	tgpu_wr32(tdev, TGPU_FIFO_RUNLIST_BASE_LO(engine),
		  lower_32_bits(rl->mem.addr));
	tgpu_wr32(tdev, TGPU_FIFO_RUNLIST_BASE_HI(engine),
		  upper_32_bits(rl->mem.addr));
	tgpu_wr32(tdev, TGPU_FIFO_RUNLIST_SUBMIT(engine), n);

	status = tgpu_rd32(tdev, TGPU_FIFO_RUNLIST_STATUS(engine));
	if (status & TGPU_RUNLIST_STATUS_ERROR)
		drm_err(&tdev->base, "runlist %u: %u entries refused\n",
			engine, n);
	drm_dev_exit(idx);
}

/**
 * tgpu_runlists_update() - hand an engine's runlist to the device again
 * @tdev: the device
 * @engine: TGPU_RUNLIST_*
 *
 * For channels that are not queues (the kernel channel).
 */
void tgpu_runlists_update(struct tgpu_device *tdev, u32 engine)
{
	mutex_lock(&tdev->rl_lock);
	tgpu_runlist_submit(tdev, engine);
	mutex_unlock(&tdev->rl_lock);
}

static void tgpu_channels_reset(struct tgpu_device *tdev)
{
	unsigned int ch;

	for (ch = 0; ch < tdev->id.channels; ch++) {
		tgpu_wr32(tdev, TGPU_CHAN_REG(ch, TGPU_CHAN_CTRL), 0);
		tgpu_wr32(tdev, TGPU_CHAN_REG(ch, TGPU_CHAN_CTRL),
			  TGPU_CHAN_CTRL_RESET);
	}
}

/**
 * tgpu_channels_stop() - stop every hardware channel
 * @tdev: the device
 *
 * Empty runlists, then each channel disabled and reset, then the whole
 * TLB invalidated.  At probe (before ECC is switched on, which the
 * device refuses while a channel is enabled) this clears what an earlier
 * driver instance may have left running: an enabled channel would not
 * re-read its instance block.  At unbind it stops the device before its
 * memory is reused.
 */
void tgpu_channels_stop(struct tgpu_device *tdev)
{
	unsigned int r;

	for (r = 0; r < TGPU_NR_RUNLISTS; r++) {
		tgpu_wr32(tdev, TGPU_FIFO_RUNLIST_BASE_LO(r),
			  lower_32_bits(tdev->rl[r].mem.addr));
		tgpu_wr32(tdev, TGPU_FIFO_RUNLIST_BASE_HI(r),
			  upper_32_bits(tdev->rl[r].mem.addr));
		tgpu_wr32(tdev, TGPU_FIFO_RUNLIST_SUBMIT(r), 0);
	}
	tgpu_channels_reset(tdev);
	/* ASIDs start again from 1 with other page tables: no stale entry. */
	tgpu_wr32(tdev, TGPU_MMU_INVALIDATE, TGPU_MMU_INV_ALL);
}

/*
 * Unbind (devres, after drm_dev_unplug()): stop the channels, and fail
 * every queue's unfinished fences with -ENODEV so that nobody waits for
 * a device that is gone.  The queues themselves go when their files are
 * closed.
 */
static void tgpu_queues_unplug(void *data)
{
	struct tgpu_device *tdev = data;
	struct tgpu_queue *q;
	unsigned long flags;

	tgpu_channels_stop(tdev);

	spin_lock_irqsave(&tdev->queues_lock, flags);
	list_for_each_entry(q, &tdev->queues, dev_link)
		tgpu_queue_fail(q, -ENODEV);
	spin_unlock_irqrestore(&tdev->queues_lock, flags);
}

static void tgpu_queues_fini(struct drm_device *ddev, void *data)
{
	struct tgpu_device *tdev = to_tgpu_device(ddev);
	unsigned int r;

	for (r = 0; r < TGPU_NR_RUNLISTS; r++)
		tgpu_vram_obj_free(tdev, &tdev->rl[r].mem);
	if (tdev->sched_wq)
		destroy_workqueue(tdev->sched_wq);
	ida_destroy(&tdev->chid_ida);
	ida_destroy(&tdev->asid_ida);
}

/**
 * tgpu_queues_init() - set up the state queues and VMs share
 * @tdev: the device, with the VRAM allocator and mapping
 *
 * Allocates the three runlists in VRAM (4 KiB each) for the life of
 * the DRM device (without CPU-visible VRAM there are none, and queue
 * creation fails with -ENODEV), and arranges for the channels to be
 * stopped and the queues failed at unbind.  The channels were stopped
 * earlier in the probe (tgpu_channels_stop()).
 *
 * Return: 0 on success, a negative errno otherwise.
 */
int tgpu_queues_init(struct tgpu_device *tdev)
{
	struct drm_device *ddev = &tdev->base;
	unsigned int r;
	int ret;

	ida_init(&tdev->asid_ida);
	ida_init(&tdev->chid_ida);
	spin_lock_init(&tdev->queues_lock);
	INIT_LIST_HEAD(&tdev->queues);
	for (r = 0; r < TGPU_NR_RUNLISTS; r++)
		INIT_LIST_HEAD(&tdev->rl[r].queues);

	ret = drmm_mutex_init(ddev, &tdev->mmu_lock);
	if (!ret)
		ret = drmm_mutex_init(ddev, &tdev->rl_lock);
	if (!ret)
		ret = drmm_add_action_or_reset(ddev, tgpu_queues_fini, NULL);
	if (ret)
		return ret;

	/*
	 * One workqueue for every queue's scheduler, as panthor has: a
	 * scheduler left to allocate its own makes a rescuer thread per
	 * queue, started and stopped with each QUEUE_CREATE/DESTROY.
	 */
	tdev->sched_wq = alloc_workqueue("tgpu-sched",
					 WQ_MEM_RECLAIM | WQ_UNBOUND, 0);
	if (!tdev->sched_wq)
		return -ENOMEM;

	for (r = 0; tdev->vram.map && r < TGPU_NR_RUNLISTS; r++) {
		ret = tgpu_vram_obj_alloc(tdev, &tdev->rl[r].mem,
					  TGPU_CHANNELS_MAX *
					  TGPU_RUNLIST_ENTRY_SIZE);
		if (ret)
			return ret;
	}

	return devm_add_action_or_reset(ddev->dev, tgpu_queues_unplug, tdev);
}

/* ---- fences -------------------------------------------------------------- */

/*
 * Signal @q's fences up to the value its semaphore holds; with @error,
 * fail the rest with it.  The semaphore is read only while the device is
 * there.
 */
static void tgpu_queue_signal(struct tgpu_queue *q, int error)
{
	struct tgpu_fence *f, *next;
	unsigned long flags;
	u64 done = 0;
	int idx;

	if (drm_dev_enter(&q->tdev->base, &idx)) {
		done = readq(q->mem.cpu + TGPU_Q_SEM);
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
}

/* Mark @q dead with @error and fail its unfinished fences. */
static void tgpu_queue_fail(struct tgpu_queue *q, int error)
{
	unsigned long flags;

	spin_lock_irqsave(&q->fence_lock, flags);
	if (!q->error)
		q->error = error;
	spin_unlock_irqrestore(&q->fence_lock, flags);
	tgpu_queue_signal(q, error);
}

static int tgpu_queue_error(struct tgpu_queue *q)
{
	unsigned long flags;
	int error;

	spin_lock_irqsave(&q->fence_lock, flags);
	error = q->error;
	spin_unlock_irqrestore(&q->fence_lock, flags);
	return error;
}

/**
 * tgpu_queues_signal() - signal the fences every queue has reached
 * @tdev: the device
 *
 * Called by the non-stall interrupt handler, after acknowledging it.
 */
void tgpu_queues_signal(struct tgpu_device *tdev)
{
	struct tgpu_queue *q;
	unsigned long flags;

	spin_lock_irqsave(&tdev->queues_lock, flags);
	list_for_each_entry(q, &tdev->queues, dev_link)
		tgpu_queue_signal(q, 0);
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

	spin_lock_irqsave(&tdev->queues_lock, flags);
	list_for_each_entry(q, &tdev->queues, dev_link) {
		if (q->chid != chid)
			continue;
		spin_lock(&q->fence_lock);
		if (!q->error) {
			q->chan_error = code;
			q->chan_error_info = info;
			q->fault_va = fault_va;
		}
		spin_unlock(&q->fence_lock);
		dev_err_ratelimited(tdev->base.dev,
				    "queue %u of %s[%d] (channel %u, %s): %s, its unfinished jobs fail with -EIO\n",
				    q->id, q->comm, pid_nr(q->pid), chid,
				    tgpu_engine_names[q->engine],
				    tgpu_chan_error_name(code));
		tgpu_queue_fail(q, -EIO);
		break;
	}
	spin_unlock_irqrestore(&tdev->queues_lock, flags);
}

/* ---- scheduler backend --------------------------------------------------- */

static void tgpu_queue_write_gp(struct tgpu_queue *q, u32 slot, u64 entry)
{
	writeq(entry, q->mem.cpu + TGPU_Q_GPFIFO + slot * TGPU_GP_ENTRY_SIZE);
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

static struct dma_fence *tgpu_job_run(struct drm_sched_job *sjob)
{
	struct tgpu_job *job = to_tgpu_job(sjob);
	struct tgpu_queue *q = job->q;
	struct tgpu_device *tdev = q->tdev;
	const u32 mask = TGPU_Q_GPFIFO_ENTRIES - 1;
	struct tgpu_fence *fence;
	unsigned long flags;
	u32 put, i;
	int idx, error;
	u64 pb;

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

	put = q->gp_put;
	for (i = 0; i < job->count; i++) {
		tgpu_queue_write_gp(q, put, TGPU_GP_ENTRY(job->ranges[i].va,
							  job->ranges[i].dwords,
							  0));
		put = (put + 1) & mask;
	}
	pb = tgpu_queue_write_fence_pb(q, put, q->seqno);
	tgpu_queue_write_gp(q, put, TGPU_GP_ENTRY(pb, TGPU_Q_FENCE_DWORDS, 0));
	put = (put + 1) & mask;
	q->gp_put = put;

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

	wmb(); /* the entries and segments, then GP_PUT */
	writel(put, q->mem.cpu + TGPU_Q_USERD + TGPU_USERD_GP_PUT);
	wmb(); /* GP_PUT, then the doorbell */
	tgpu_wr32(tdev, TGPU_USERMODE_DOORBELL, q->chid);
	drm_dev_exit(idx);

	return &fence->base;
}

/*
 * A job did not finish in time: kill the channel and fail the queue's
 * unfinished fences with -ETIMEDOUT.  The scheduler took the job off its
 * pending list for this call; put it back, so that it is freed when its
 * hardware fence (now failed) completes it, as etnaviv does.  The queue
 * is dead: later jobs fail at run_job.
 */
static enum drm_gpu_sched_stat tgpu_job_timedout(struct drm_sched_job *sjob)
{
	struct tgpu_job *job = to_tgpu_job(sjob);
	struct tgpu_queue *q = job->q;
	struct tgpu_device *tdev = q->tdev;
	int idx;

	if (drm_dev_enter(&tdev->base, &idx)) {
		/*
		 * Its fences are about to say "done": the engine must be,
		 * too, and is once the write returns (channels.md).
		 */
		tgpu_wr32(tdev, TGPU_CHAN_REG(q->chid, TGPU_CHAN_CTRL),
			  TGPU_CHAN_CTRL_KILL);
		drm_dev_exit(idx);
	}
	drm_err(&tdev->base,
		"queue %u of %s[%d] (channel %u, %s): job %llu timed out after %u ms, channel killed\n",
		q->id, q->comm, pid_nr(q->pid), q->chid,
		tgpu_engine_names[q->engine],
		sjob->s_fence->finished.seqno, q->timeout_ms);

	spin_lock(&q->sched.job_list_lock);
	list_add(&sjob->list, &q->sched.pending_list);
	spin_unlock(&q->sched.job_list_lock);

	tgpu_queue_fail(q, -ETIMEDOUT);
	return DRM_GPU_SCHED_STAT_NOMINAL;
}

static void tgpu_job_free(struct drm_sched_job *sjob)
{
	struct tgpu_job *job = to_tgpu_job(sjob);

	drm_sched_job_cleanup(sjob);
	/* Still here when run_job never took it. */
	kfree(job->hw_fence);
	kvfree(job->ranges);
	kfree(job);
}

static const struct drm_sched_backend_ops tgpu_sched_ops = {
	.run_job = tgpu_job_run,
	.timedout_job = tgpu_job_timedout,
	.free_job = tgpu_job_free,
};

/* ---- queues -------------------------------------------------------------- */

static void tgpu_queue_write_inst(struct tgpu_queue *q, u64 pdb)
{
	const struct tgpu_inst in = {
		.flags = TGPU_INST_FLAGS_PAGED,
		.asid = q->vm->asid,
		.pdb = pdb,
		.gpfifo_base = q->va + TGPU_Q_GPFIFO,
		.gpfifo_log2 = TGPU_Q_GPFIFO_LOG2,
		.engine = q->engine,
		.userd = q->va + TGPU_Q_USERD,
		.priority = q->priority,
	};
	u8 blk[TGPU_INST_FIELDS_SIZE];

	tgpu_inst_encode(blk, &in);
	memcpy_toio(q->mem.cpu + TGPU_Q_INST, blk, sizeof(blk));
}

/* Map the queue's memory into the kernel part of its VM. */
static int tgpu_queue_map(struct tgpu_queue *q)
{
	u64 phys = q->mem.addr;
	int ret;

	ret = tgpu_vm_map_kernel(q->vm, q->va + TGPU_Q_GPFIFO,
				 phys + TGPU_Q_GPFIFO,
				 TGPU_Q_SEM - TGPU_Q_GPFIFO, TGPU_PTE_PRIV);
	if (ret)
		return ret;
	ret = tgpu_vm_map_kernel(q->vm, q->va + TGPU_Q_SEM, phys + TGPU_Q_SEM,
				 TGPU_Q_FENCE_PB - TGPU_Q_SEM, 0);
	if (ret)
		goto err_unmap;
	ret = tgpu_vm_map_kernel(q->vm, q->va + TGPU_Q_FENCE_PB,
				 phys + TGPU_Q_FENCE_PB,
				 TGPU_Q_SIZE - TGPU_Q_FENCE_PB, TGPU_PTE_PRIV);
	if (ret)
		goto err_unmap;
	return 0;

err_unmap:
	tgpu_vm_unmap_kernel(q->vm, q->va + TGPU_Q_GPFIFO,
			     TGPU_Q_SIZE - TGPU_Q_GPFIFO);
	return ret;
}

/* Enable the channel and put it on its engine's runlist. */
static int tgpu_queue_start(struct tgpu_queue *q)
{
	struct tgpu_device *tdev = q->tdev;
	unsigned long flags;
	u32 status;

	spin_lock_irqsave(&tdev->queues_lock, flags);
	list_add_tail(&q->dev_link, &tdev->queues);
	spin_unlock_irqrestore(&tdev->queues_lock, flags);

	wmb(); /* the instance block and page tables, then the enable */
	/* From a clean state, whatever the channel was left in. */
	tgpu_wr32(tdev, TGPU_CHAN_REG(q->chid, TGPU_CHAN_CTRL),
		  TGPU_CHAN_CTRL_RESET);
	tgpu_wr32(tdev, TGPU_CHAN_REG(q->chid, TGPU_CHAN_INST),
		  q->mem.addr >> TGPU_PAGE_SHIFT);
	tgpu_wr32(tdev, TGPU_CHAN_REG(q->chid, TGPU_CHAN_CTRL),
		  TGPU_CHAN_CTRL_ENABLE);
	status = tgpu_rd32(tdev, TGPU_CHAN_REG(q->chid, TGPU_CHAN_STATUS));
	if ((status & TGPU_CHAN_STATE_MASK) == TGPU_CHAN_STATE_ERROR) {
		drm_err(&tdev->base, "channel %u: instance block refused (error %u, info 0x%x)\n",
			q->chid,
			tgpu_rd32(tdev, TGPU_CHAN_REG(q->chid, TGPU_CHAN_ERROR)),
			tgpu_rd32(tdev, TGPU_CHAN_REG(q->chid,
						      TGPU_CHAN_ERROR_INFO)));
		tgpu_wr32(tdev, TGPU_CHAN_REG(q->chid, TGPU_CHAN_CTRL),
			  TGPU_CHAN_CTRL_RESET);
		spin_lock_irqsave(&tdev->queues_lock, flags);
		list_del(&q->dev_link);
		spin_unlock_irqrestore(&tdev->queues_lock, flags);
		return -EIO;
	}

	mutex_lock(&tdev->rl_lock);
	list_add_tail(&q->rl_link, &tdev->rl[q->engine].queues);
	tgpu_runlist_submit(tdev, q->engine);
	mutex_unlock(&tdev->rl_lock);
	return 0;
}

/* Free what tgpu_queue_create() set up before the scheduler. */
static void tgpu_queue_free(struct tgpu_queue *q)
{
	struct tgpu_device *tdev = q->tdev;

	tgpu_vram_obj_free(tdev, &q->mem);
	if (q->chid)
		ida_free(&tdev->chid_ida, q->chid);
	put_pid(q->pid);
	mutex_destroy(&q->submit_lock);
	kfree(q);
}

static void tgpu_queue_destroy(struct tgpu_queue *q)
{
	struct tgpu_device *tdev = q->tdev;
	struct drm_sched_job *sjob, *next;
	unsigned long flags;
	int idx;

	/* Jobs not yet handed to the hardware run first, or are killed. */
	drm_sched_entity_destroy(&q->entity);

	mutex_lock(&tdev->rl_lock);
	list_del(&q->rl_link);
	tgpu_runlist_submit(tdev, q->engine);
	mutex_unlock(&tdev->rl_lock);
	if (drm_dev_enter(&tdev->base, &idx)) {
		/*
		 * Disable, then reset: when the writes return no engine
		 * works for the channel any more (channels.md).
		 */
		tgpu_wr32(tdev, TGPU_CHAN_REG(q->chid, TGPU_CHAN_CTRL), 0);
		tgpu_wr32(tdev, TGPU_CHAN_REG(q->chid, TGPU_CHAN_CTRL),
			  TGPU_CHAN_CTRL_RESET);
		drm_dev_exit(idx);
	}

	spin_lock_irqsave(&tdev->queues_lock, flags);
	list_del(&q->dev_link);
	spin_unlock_irqrestore(&tdev->queues_lock, flags);

	/* Finished work signals; what the reset dropped is cancelled. */
	tgpu_queue_fail(q, -ECANCELED);

	drm_sched_fini(&q->sched);
	/* The scheduler is stopped: its finished jobs are ours to free. */
	list_for_each_entry_safe(sjob, next, &q->sched.pending_list, list) {
		list_del_init(&sjob->list);
		tgpu_job_free(sjob);
	}

	if (drm_dev_enter(&tdev->base, &idx)) {
		tgpu_vm_unmap_kernel(q->vm, q->va + TGPU_Q_GPFIFO,
				     TGPU_Q_SIZE - TGPU_Q_GPFIFO);
		drm_dev_exit(idx);
	}
	tgpu_queue_free(q);
}

static int tgpu_queue_create(struct tgpu_device *tdev, struct drm_file *file,
			     const struct drm_tgpu_queue_create *args,
			     struct tgpu_queue **out)
{
	struct tgpu_file *tfile = to_tgpu_file(file);
	const unsigned int timeout_ms = READ_ONCE(tgpu_job_timeout_ms);
	const struct drm_sched_init_args sched_args = {
		.ops = &tgpu_sched_ops,
		.submit_wq = tdev->sched_wq,
		.num_rqs = 1,
		.credit_limit = TGPU_Q_GPFIFO_ENTRIES - 1,
		.timeout = timeout_ms ? msecs_to_jiffies(timeout_ms) :
			   MAX_SCHEDULE_TIMEOUT,
		.name = "tgpu-queue",
		.dev = tdev->base.dev,
	};
	struct drm_gpu_scheduler *sched;
	struct tgpu_queue *q;
	int chid, ret;
	u64 pdb;

	q = kzalloc(sizeof(*q), GFP_KERNEL);
	if (!q)
		return -ENOMEM;
	q->tdev = tdev;
	q->vm = &tfile->vm;
	q->engine = args->engine;
	q->priority = args->priority;
	q->timeout_ms = timeout_ms;
	mutex_init(&q->submit_lock);
	spin_lock_init(&q->fence_lock);
	INIT_LIST_HEAD(&q->fences);
	INIT_LIST_HEAD(&q->dev_link);
	INIT_LIST_HEAD(&q->rl_link);
	q->pid = get_pid(task_tgid(current));
	get_task_comm(q->comm, current);
	q->fence_ctx = dma_fence_context_alloc(1);

	chid = ida_alloc_range(&tdev->chid_ida, 1, tdev->id.channels - 1,
			       GFP_KERNEL);
	if (chid < 0) {
		ret = chid == -ENOSPC ? -EBUSY : chid;
		goto err_free;
	}
	q->chid = chid;
	q->va = TGPU_Q_VA(chid);

	ret = tgpu_vram_obj_alloc(tdev, &q->mem, TGPU_Q_SIZE);
	if (ret)
		goto err_free;
	ret = tgpu_vm_pdb(q->vm, &pdb);
	if (ret)
		goto err_free;
	ret = tgpu_queue_map(q);
	if (ret)
		goto err_free;
	tgpu_queue_write_inst(q, pdb);

	ret = drm_sched_init(&q->sched, &sched_args);
	if (ret)
		goto err_unmap;
	sched = &q->sched;
	ret = drm_sched_entity_init(&q->entity, DRM_SCHED_PRIORITY_KERNEL,
				    &sched, 1, NULL);
	if (ret)
		goto err_sched;

	ret = tgpu_queue_start(q);
	if (ret)
		goto err_entity;

	*out = q;
	return 0;

err_entity:
	drm_sched_entity_destroy(&q->entity);
err_sched:
	drm_sched_fini(&q->sched);
err_unmap:
	tgpu_vm_unmap_kernel(q->vm, q->va + TGPU_Q_GPFIFO,
			     TGPU_Q_SIZE - TGPU_Q_GPFIFO);
err_free:
	tgpu_queue_free(q);
	return ret;
}

/**
 * tgpu_ioctl_queue_create() - DRM_IOCTL_TGPU_QUEUE_CREATE
 * @ddev: the DRM device
 * @data: struct drm_tgpu_queue_create
 * @file: the DRM file that owns the queue
 *
 * Return: 0 on success, a negative errno otherwise (see the uAPI header).
 */
int tgpu_ioctl_queue_create(struct drm_device *ddev, void *data,
			    struct drm_file *file)
{
	struct tgpu_device *tdev = to_tgpu_device(ddev);
	struct tgpu_file *tfile = to_tgpu_file(file);
	struct drm_tgpu_queue_create *args = data;
	struct tgpu_queue *q;
	int idx, ret;
	u32 id;

	if (args->flags || args->engine >= TGPU_NR_RUNLISTS ||
	    !(tdev->id.engines & BIT(args->engine)) ||
	    args->priority > TGPU_PRIORITY_MAX)
		return -EINVAL;
	if (!tdev->vram.map)
		return -ENODEV;

	if (!drm_dev_enter(ddev, &idx))
		return -ENODEV;
	ret = tgpu_queue_create(tdev, file, args, &q);
	if (ret)
		goto out;

	down_write(&tfile->queues_lock);
	ret = xa_alloc(&tfile->queues, &id, q, xa_limit_32b, GFP_KERNEL);
	if (!ret)
		q->id = id;
	up_write(&tfile->queues_lock);
	if (ret) {
		tgpu_queue_destroy(q);
		goto out;
	}
	args->id = id;
out:
	drm_dev_exit(idx);
	return ret;
}

/**
 * tgpu_ioctl_queue_destroy() - DRM_IOCTL_TGPU_QUEUE_DESTROY
 * @ddev: the DRM device
 * @data: struct drm_tgpu_queue_destroy
 * @file: the DRM file that owns the queue
 *
 * Return: 0 on success, a negative errno otherwise (see the uAPI header).
 */
int tgpu_ioctl_queue_destroy(struct drm_device *ddev, void *data,
			     struct drm_file *file)
{
	struct tgpu_file *tfile = to_tgpu_file(file);
	struct drm_tgpu_queue_destroy *args = data;
	struct tgpu_queue *q;

	if (args->pad)
		return -EINVAL;

	down_write(&tfile->queues_lock);
	q = xa_erase(&tfile->queues, args->id);
	up_write(&tfile->queues_lock);
	if (!q)
		return -ENOENT;
	tgpu_queue_destroy(q);
	return 0;
}

/**
 * tgpu_ioctl_queue_query() - DRM_IOCTL_TGPU_QUEUE_QUERY
 * @ddev: the DRM device
 * @data: struct drm_tgpu_queue_query
 * @file: the DRM file that owns the queue
 *
 * Return: 0 on success, a negative errno otherwise (see the uAPI header).
 */
int tgpu_ioctl_queue_query(struct drm_device *ddev, void *data,
			   struct drm_file *file)
{
	struct tgpu_file *tfile = to_tgpu_file(file);
	struct drm_tgpu_queue_query *args = data;
	struct tgpu_queue *q;
	unsigned long flags;

	if (args->flags)
		return -EINVAL;

	down_read(&tfile->queues_lock);
	q = xa_load(&tfile->queues, args->id);
	if (!q) {
		up_read(&tfile->queues_lock);
		return -ENOENT;
	}
	spin_lock_irqsave(&q->fence_lock, flags);
	args->state = q->error ? DRM_TGPU_QUEUE_STATE_DEAD :
				 DRM_TGPU_QUEUE_STATE_ALIVE;
	args->error = q->error;
	args->chan_error = q->error == -EIO ? q->chan_error : 0;
	args->chan_error_info = q->error == -EIO ? q->chan_error_info : 0;
	args->fault_va = q->error == -EIO ? q->fault_va : 0;
	spin_unlock_irqrestore(&q->fence_lock, flags);
	up_read(&tfile->queues_lock);
	return 0;
}

/**
 * tgpu_file_queues_wait() - wait for a file's work on the hardware
 * @tfile: the file
 *
 * Waits, queue by queue, for the last hardware fence each queue has
 * now; work handed to the hardware later is not waited for.
 *
 * Return: 0, or -ERESTARTSYS when a signal interrupted the wait.
 */
int tgpu_file_queues_wait(struct tgpu_file *tfile)
{
	struct dma_fence *fence;
	struct tgpu_queue *q;
	unsigned long id = 0, flags;
	long ret = 0;

	for (;;) {
		fence = NULL;
		down_read(&tfile->queues_lock);
		q = xa_find(&tfile->queues, &id, ULONG_MAX, XA_PRESENT);
		if (q) {
			spin_lock_irqsave(&q->fence_lock, flags);
			if (!list_empty(&q->fences))
				fence = dma_fence_get(&list_last_entry(&q->fences,
								       struct tgpu_fence,
								       link)->base);
			spin_unlock_irqrestore(&q->fence_lock, flags);
		}
		up_read(&tfile->queues_lock);
		if (!q)
			return 0;
		if (fence) {
			ret = dma_fence_wait(fence, true);
			dma_fence_put(fence);
			if (ret)
				return ret;
		}
		id++;
	}
}

/**
 * tgpu_file_queues_fini() - destroy every queue of a file
 * @tfile: the file, being closed
 */
void tgpu_file_queues_fini(struct tgpu_file *tfile)
{
	struct tgpu_queue *q;
	unsigned long id;

	xa_for_each(&tfile->queues, id, q) {
		xa_erase(&tfile->queues, id);
		tgpu_queue_destroy(q);
	}
	xa_destroy(&tfile->queues);
}

/* ---- submission ---------------------------------------------------------- */

static int tgpu_submit_copy_ranges(const struct drm_tgpu_submit *args,
				   struct drm_tgpu_submit_range **out)
{
	struct drm_tgpu_submit_range *r;
	u64 len;
	u32 i;

	r = kvmalloc_array(args->count, sizeof(*r), GFP_KERNEL);
	if (!r)
		return -ENOMEM;
	if (copy_from_user(r, u64_to_user_ptr(args->ranges),
			   args->count * sizeof(*r))) {
		kvfree(r);
		return -EFAULT;
	}
	for (i = 0; i < args->count; i++) {
		len = (u64)r[i].dwords * 4;
		if (r[i].pad || !IS_ALIGNED(r[i].va, 4) || !r[i].dwords ||
		    r[i].dwords > TGPU_GP_ENTRY1_LENGTH_MASK ||
		    r[i].va >= DRM_TGPU_VA_KERNEL_START ||
		    len > DRM_TGPU_VA_KERNEL_START - r[i].va) {
			kvfree(r);
			return -EINVAL;
		}
	}
	*out = r;
	return 0;
}

/**
 * tgpu_ioctl_submit() - DRM_IOCTL_TGPU_SUBMIT
 * @ddev: the DRM device
 * @data: struct drm_tgpu_submit
 * @file: the DRM file that owns the queue
 *
 * Return: 0 on success, a negative errno otherwise (see the uAPI header).
 */
int tgpu_ioctl_submit(struct drm_device *ddev, void *data,
		      struct drm_file *file)
{
	struct tgpu_file *tfile = to_tgpu_file(file);
	struct drm_tgpu_submit *args = data;
	struct drm_syncobj *out_syncobj = NULL;
	struct dma_fence *done;
	struct tgpu_queue *q;
	struct tgpu_job *job;
	u32 *in = NULL;
	u32 i;
	int ret;

	if (args->flags || args->pad || !args->count ||
	    args->count > DRM_TGPU_SUBMIT_MAX_RANGES ||
	    args->in_syncobj_count > DRM_TGPU_SUBMIT_MAX_IN_SYNCOBJS)
		return -EINVAL;

	job = kzalloc(sizeof(*job), GFP_KERNEL);
	if (!job)
		return -ENOMEM;
	job->hw_fence = kzalloc(sizeof(*job->hw_fence), GFP_KERNEL);
	if (!job->hw_fence) {
		ret = -ENOMEM;
		goto err_free_job;
	}
	spin_lock_init(&job->hw_fence->lock);
	job->count = args->count;
	ret = tgpu_submit_copy_ranges(args, &job->ranges);
	if (ret)
		goto err_free_job;

	if (args->in_syncobj_count) {
		in = kmalloc_array(args->in_syncobj_count, sizeof(*in),
				   GFP_KERNEL);
		if (!in) {
			ret = -ENOMEM;
			goto err_free_job;
		}
		if (copy_from_user(in, u64_to_user_ptr(args->in_syncobjs),
				   args->in_syncobj_count * sizeof(*in))) {
			ret = -EFAULT;
			goto err_free_job;
		}
	}

	if (args->out_syncobj) {
		out_syncobj = drm_syncobj_find(file, args->out_syncobj);
		if (!out_syncobj) {
			ret = -ENOENT;
			goto err_free_job;
		}
	}

	down_read(&tfile->queues_lock);
	q = xa_load(&tfile->queues, args->queue);
	if (!q) {
		ret = -ENOENT;
		goto err_unlock;
	}
	ret = tgpu_queue_error(q) ? -EIO : 0;
	if (ret)
		goto err_unlock;
	job->q = q;

	ret = drm_sched_job_init(&job->base, &q->entity, job->count + 1, q,
				 file->client_id);
	if (ret)
		goto err_unlock;
	for (i = 0; i < args->in_syncobj_count; i++) {
		ret = drm_sched_job_add_syncobj_dependency(&job->base, file,
							   in[i], 0);
		if (ret)
			goto err_cleanup;
	}

	mutex_lock(&q->submit_lock);
	drm_sched_job_arm(&job->base);
	done = dma_fence_get(&job->base.s_fence->finished);
	drm_sched_entity_push_job(&job->base);
	mutex_unlock(&q->submit_lock);
	up_read(&tfile->queues_lock);

	if (out_syncobj) {
		drm_syncobj_replace_fence(out_syncobj, done);
		drm_syncobj_put(out_syncobj);
	}
	dma_fence_put(done);
	kfree(in);
	return 0;

err_cleanup:
	drm_sched_job_cleanup(&job->base);
err_unlock:
	up_read(&tfile->queues_lock);
err_free_job:
	if (out_syncobj)
		drm_syncobj_put(out_syncobj);
	kfree(in);
	if (job->ranges)
		kvfree(job->ranges);
	kfree(job->hw_fence);
	kfree(job);
	return ret;
}
