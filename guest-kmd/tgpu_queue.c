// SPDX-License-Identifier: GPL-2.0-only OR MIT
/* Copyright (c) 2026 The tgpu authors */

/*
 * Queues: DRM_IOCTL_TGPU_QUEUE_CREATE, _DESTROY and _QUERY, each queue one
 * hardware channel with its own scheduler (tgpu_sched.c) on its engine's
 * runlist (tgpu_runlist.c); SUBMIT is tgpu_submit.c.
 */

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
#include "tgpu_sched.h"
#include "tgpu_uq.h"
#include "tgpu_vm.h"

static_assert(TGPU_Q_GPFIFO_ENTRIES * TGPU_GP_ENTRY_SIZE <= SZ_4K);
static_assert(TGPU_Q_FENCE_PB + TGPU_Q_GPFIFO_ENTRIES * TGPU_Q_FENCE_SLOT ==
	      TGPU_Q_SIZE);
static_assert(TGPU_Q_FENCE_DWORDS * 4 <= TGPU_Q_FENCE_SLOT);
static_assert(TGPU_Q_VA(TGPU_CHANNELS_MAX) <= DRM_TGPU_VA_LIMIT);
static_assert(DRM_TGPU_SUBMIT_MAX_RANGES + 1 < TGPU_Q_GPFIFO_ENTRIES);

/*
 * A job not finished after this long is checked for progress, and
 * reset when it made none (tgpu_reset.c); 0: never.
 */
static unsigned int tgpu_job_timeout_ms = 2000;
module_param_named(job_timeout_ms, tgpu_job_timeout_ms, uint, 0444);
MODULE_PARM_DESC(job_timeout_ms,
		 "check a job not finished after this many ms for progress, reset it when it made none; 0 for never (default 2000)");

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
	int bars;

	tgpu_inst_encode(blk, &in);
	bars = tgpu_bars_enter(q->tdev);
	memcpy_toio(q->mem.cpu + TGPU_Q_INST, blk, sizeof(blk));
	tgpu_bars_exit(q->tdev, bars);
}

/*
 * Map the queue's memory into the kernel part of its VM; the GPFIFO and
 * USERD from @ring (a user-submit queue's own object).
 */
static int tgpu_queue_map(struct tgpu_queue *q, u64 ring)
{
	u64 phys = q->mem.addr;
	int ret;

	ret = tgpu_vm_map_kernel(q->vm, q->va + TGPU_Q_GPFIFO, ring,
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
	int ret, bars;

	/* the slot now, so that the store under the spinlock cannot fail */
	ret = xa_reserve_irq(&tdev->chan_queues, q->chid, GFP_KERNEL);
	if (ret)
		return ret;
	spin_lock_irqsave(&tdev->queues_lock, flags);
	list_add_tail(&q->dev_link, &tdev->queues);
	xa_store(&tdev->chan_queues, q->chid, q, GFP_ATOMIC);
	spin_unlock_irqrestore(&tdev->queues_lock, flags);

	/*
	 * Not while a device reset has the BARs off: it would find the
	 * channel in ERROR (all ones).  One that starts after this hands
	 * the channel its jobs again, as every queue on a runlist.
	 */
	bars = tgpu_bars_enter(tdev);
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
		xa_erase(&tdev->chan_queues, q->chid);
		spin_unlock_irqrestore(&tdev->queues_lock, flags);
		tgpu_bars_exit(tdev, bars);
		return -EIO;
	}

	mutex_lock(&tdev->rl_lock);
	list_add_tail(&q->rl_link, &tdev->rl[q->engine].queues);
	tgpu_runlist_submit(tdev, q->engine);
	mutex_unlock(&tdev->rl_lock);
	tgpu_bars_exit(tdev, bars);
	return 0;
}

static void tgpu_queue_release(struct kref *ref)
{
	struct tgpu_queue *q = container_of(ref, struct tgpu_queue, ref);

	put_pid(q->pid);
	mutex_destroy(&q->submit_lock);
	kfree(q);
}

/**
 * tgpu_queue_put() - drop a reference to a queue
 * @q: the queue
 *
 * The last one frees the structure; its hardware and memory went when
 * it was destroyed.
 */
void tgpu_queue_put(struct tgpu_queue *q)
{
	kref_put(&q->ref, tgpu_queue_release);
}

/**
 * tgpu_file_queue_get() - a file's queue, referenced
 * @tfile: the file
 * @id: the queue's ID
 *
 * For an ioctl that sleeps on the queue (DRM_IOCTL_TGPU_WAIT): a
 * destroy meanwhile fails it and wakes the sleeper, the structure stays.
 *
 * Return: the queue (tgpu_queue_put() it), or NULL.
 */
struct tgpu_queue *tgpu_file_queue_get(struct tgpu_file *tfile, u32 id)
{
	struct tgpu_queue *q;

	down_read(&tfile->queues_lock);
	q = xa_load(&tfile->queues, id);
	if (q)
		kref_get(&q->ref);
	up_read(&tfile->queues_lock);
	return q;
}

/* Free what tgpu_queue_create() set up before the scheduler. */
static void tgpu_queue_free(struct tgpu_queue *q, struct drm_file *file)
{
	struct tgpu_device *tdev = q->tdev;

	if (q->user)
		tgpu_uq_fini(q, file);
	tgpu_vram_obj_free(tdev, &q->mem);
	if (q->chid)
		ida_free(&tdev->chid_ida, q->chid);
	tgpu_queue_put(q);
}

static void tgpu_queue_destroy(struct tgpu_queue *q, struct drm_file *file)
{
	struct tgpu_device *tdev = q->tdev;
	struct drm_sched_job *sjob, *next;
	unsigned long flags;
	int idx;

	/* Jobs not yet handed to the hardware run first, or are killed. */
	drm_sched_entity_destroy(&q->entity);

	mutex_lock(&tdev->rl_lock);
	/* off the runlist: a recovery leaves the queue alone from here */
	list_del_init(&q->rl_link);
	tgpu_runlist_submit(tdev, q->engine);
	mutex_unlock(&tdev->rl_lock);
	/* what the channel's work had of its engine, before the reset */
	tgpu_queue_account(q);
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
	xa_erase(&tdev->chan_queues, q->chid);
	spin_unlock_irqrestore(&tdev->queues_lock, flags);

	/* Finished work signals; what the reset dropped is cancelled. */
	tgpu_queue_fail(q, -ECANCELED);
	if (q->user)
		tgpu_uq_stop(q);

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
	tgpu_queue_free(q, file);
}

static int tgpu_queue_create(struct tgpu_device *tdev, struct drm_file *file,
			     const struct drm_tgpu_queue_create *args,
			     struct tgpu_queue **out)
{
	struct tgpu_file *tfile = to_tgpu_file(file);
	const unsigned int timeout_ms = args->timeout_ms ?:
					READ_ONCE(tgpu_job_timeout_ms);
	const struct drm_sched_init_args sched_args = {
		.ops = &tgpu_sched_ops,
		.submit_wq = tdev->sched_wq,
		/* one recovery at a time, across every queue */
		.timeout_wq = tdev->reset.wq,
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
	u64 pdb, ring;

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
	kref_init(&q->ref);

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
	q->gpfifo = q->mem.cpu + TGPU_Q_GPFIFO;
	q->userd = q->mem.cpu + TGPU_Q_USERD;
	ring = q->mem.addr + TGPU_Q_GPFIFO;
	if (args->flags & DRM_TGPU_QUEUE_USER_SUBMIT) {
		ret = tgpu_uq_init(q, file, &ring);
		if (ret)
			goto err_free;
	}
	ret = tgpu_vm_pdb(q->vm, &pdb);
	if (ret)
		goto err_free;
	ret = tgpu_queue_map(q, ring);
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
	if (q->user)
		tgpu_uq_start(q);

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
	tgpu_queue_free(q, file);
	return ret;
}

/*
 * A queue may shorten its job timeout; holding the engine longer than the
 * driver's timeout lets (0: never) takes CAP_SYS_NICE, as it does in xe.
 */
static bool tgpu_queue_timeout_allowed(unsigned int timeout_ms)
{
	const unsigned int dflt = READ_ONCE(tgpu_job_timeout_ms);

	if (!timeout_ms || (dflt && timeout_ms <= dflt))
		return true;
	return capable(CAP_SYS_NICE);
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

	if ((args->flags & ~DRM_TGPU_QUEUE_CREATE_FLAGS) || args->pad ||
	    args->engine >= TGPU_NR_RUNLISTS ||
	    !(tdev->id.engines & BIT(args->engine)) ||
	    args->priority > TGPU_PRIORITY_MAX ||
	    args->timeout_ms > DRM_TGPU_QUEUE_TIMEOUT_MAX_MS)
		return -EINVAL;
	if (!tgpu_queue_timeout_allowed(args->timeout_ms))
		return -EPERM;
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
		tgpu_queue_destroy(q, file);
		goto out;
	}
	args->id = id;
	if (q->user)
		tgpu_uq_args(q, args);
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
	tgpu_queue_destroy(q, file);
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
 * @file: its DRM file
 */
void tgpu_file_queues_fini(struct tgpu_file *tfile, struct drm_file *file)
{
	struct tgpu_queue *q;
	unsigned long id;

	xa_for_each(&tfile->queues, id, q) {
		xa_erase(&tfile->queues, id);
		tgpu_queue_destroy(q, file);
	}
	xa_destroy(&tfile->queues);
}
