// SPDX-License-Identifier: GPL-2.0-only OR MIT
/* Copyright (c) 2026 The tgpu authors */

/*
 * Runlists: the device's list of channels per engine, written from the
 * queues on it (and the kernel channel on CE0); the state all queues and
 * VMs share; stopping every channel at probe and unbind.
 */

#include <linux/dma-fence.h>
#include <linux/error-injection.h>
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
#include "tgpu_vm.h"

/* ---- runlists ------------------------------------------------------------ */

/**
 * tgpu_runlist_submit() - write an engine's runlist and hand it to the device
 * @tdev: the device
 * @engine: TGPU_RUNLIST_*
 *
 * With rl_lock held.
 */
void tgpu_runlist_submit(struct tgpu_device *tdev, u32 engine)
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
/**
 * tgpu_queues_fail_all() - fail every queue's unfinished fences
 * @tdev: the device
 * @error: the negative errno they carry
 *
 * For a device that is gone (unbind, a lost bus).
 */
void tgpu_queues_fail_all(struct tgpu_device *tdev, int error)
{
	struct tgpu_queue *q;
	unsigned long flags;

	spin_lock_irqsave(&tdev->queues_lock, flags);
	list_for_each_entry(q, &tdev->queues, dev_link)
		tgpu_queue_fail(q, error);
	spin_unlock_irqrestore(&tdev->queues_lock, flags);
}

static void tgpu_queues_unplug(void *data)
{
	struct tgpu_device *tdev = data;

	tgpu_channels_stop(tdev);
	tgpu_queues_fail_all(tdev, -ENODEV);
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
	xa_destroy(&tdev->chan_queues);
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
	/*
	 * Stored to and erased from under queues_lock, which the interrupt
	 * handler takes: its own lock must never be taken with interrupts
	 * on (lockdep), so the slot is reserved with xa_reserve_irq().
	 */
	xa_init_flags(&tdev->chan_queues, XA_FLAGS_LOCK_IRQ);
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
ALLOW_ERROR_INJECTION(tgpu_queues_init, ERRNO);
