// SPDX-License-Identifier: GPL-2.0-only OR MIT
/* Copyright (c) 2026 The tgpu authors */

/*
 * Recovery.  A job that outlives its timeout is checked, as etnaviv and
 * v3d do, before anything is reset: its fence may be done with the
 * interrupt lost (signal it, count a missed interrupt), or its channel
 * or engine may still be moving (re-arm, a bounded number of times).
 * Otherwise it hung:
 *
 *   1. the schedulers of every queue on its engine stop;
 *   2. its channel is killed.  The kill takes unless the engine is
 *      wedged: then the device is reset (FLR, below);
 *   3. the engine is reset (PMC_ENGINE_RESET), which clears a stall or
 *      a fetch hang; a channel of another file that the reset took down
 *      (ENGINE_RESET) gets its unfinished jobs again;
 *   4. the hung queue's fences fail with -ETIME and its file is guilty:
 *      every later submit fails with -ECANCELED;
 *   5. the schedulers start again.
 *
 * A device reset goes through the PCI core (pci_try_reset_function()),
 * so that an FLR from sysfs ("reset") takes the same path: reset_prepare
 * stops every scheduler, reset_done sets the device up again (interrupts,
 * ECC and its scrub, runlists) and hands every live channel its
 * unfinished jobs.  The model keeps VRAM across an FLR, a board does not:
 * each file learns that VRAM is to be treated as lost.
 *
 * A device whose identity registers read all ones has fallen off the
 * bus (Xid 79): every fence fails with -ENODEV, the DRM device is
 * unplugged, and ioctls answer -ENODEV.  Timeouts and a periodic health
 * check look for it.
 *
 * Timeouts and the health check run on one ordered workqueue, so that
 * one recovery runs at a time; the reset lock also keeps out a device
 * reset from sysfs.
 */

#include <linux/dma-fence.h>
#include <linux/error-injection.h>
#include <linux/jiffies.h>
#include <linux/ktime.h>
#include <linux/math64.h>
#include <linux/mm.h>
#include <linux/moduleparam.h>
#include <linux/pci.h>
#include <linux/sched.h>
#include <linux/seq_file.h>
#include <linux/spinlock.h>
#include <linux/workqueue.h>

#include <drm/drm_drv.h>
#include <drm/drm_managed.h>
#include <drm/drm_print.h>
#include <drm/gpu_scheduler.h>
#include <drm/tgpu_drm.h>

#include <tgpu/channel.h>
#include <tgpu/mmu.h>
#include <tgpu/regs.h>

#include "tgpu_coredump.h"
#include "tgpu_device.h"
#include "tgpu_ecc.h"
#include "tgpu_file.h"
#include "tgpu_irq.h"
#include "tgpu_kchan.h"
#include "tgpu_queue.h"
#include "tgpu_reset.h"
#include "tgpu_sched.h"
#include "tgpu_uq.h"

/* A job whose work keeps moving has this many more timeouts. */
static unsigned int tgpu_hang_rearms = 10;
module_param_named(hang_rearm_max, tgpu_hang_rearms, uint, 0644);
MODULE_PARM_DESC(hang_rearm_max,
		 "timeouts a job may outlive while its channel or engine still makes progress (default 10)");

static unsigned int tgpu_health_ms = 1000;
module_param_named(health_check_ms, tgpu_health_ms, uint, 0444);
MODULE_PARM_DESC(health_check_ms,
		 "look for a device that fell off the bus every this many ms, 0 for never (default 1000)");

static u32 tgpu_chan_rd(struct tgpu_device *tdev, u32 chid, u32 reg)
{
	return tgpu_rd32(tdev, TGPU_CHAN_REG(chid, reg));
}

static void tgpu_chan_wr(struct tgpu_device *tdev, u32 chid, u32 reg, u32 val)
{
	tgpu_wr32(tdev, TGPU_CHAN_REG(chid, reg), val);
}

/* ---- bus loss ------------------------------------------------------------ */

static void tgpu_reset_unplug(struct work_struct *work)
{
	struct tgpu_device *tdev = container_of(work, struct tgpu_device,
						reset.unplug);

	tgpu_reset_unplug_once(tdev);
}

/**
 * tgpu_reset_unplug_once() - drm_dev_unplug(), unless done already
 * @tdev: the device
 *
 * A lost bus and an unbind may both want it.  Outside drm_dev_enter().
 */
void tgpu_reset_unplug_once(struct tgpu_device *tdev)
{
	mutex_lock(&tdev->reset.unplug_lock);
	if (!drm_dev_is_unplugged(&tdev->base))
		drm_dev_unplug(&tdev->base);
	mutex_unlock(&tdev->reset.unplug_lock);
}

/**
 * tgpu_reset_check_bus() - has the device fallen off the bus
 * @tdev: the device
 *
 * The identity registers read all ones once the device is gone (a PCIe
 * read that completes with an error does).  The first time: Xid 79,
 * every queue's fences fail with -ENODEV, and the DRM device is
 * unplugged (from a work item: the caller may be inside drm_dev_enter()).
 *
 * Return: true when the device is lost.
 */
bool tgpu_reset_check_bus(struct tgpu_device *tdev)
{
	if (READ_ONCE(tdev->reset.lost))
		return true;
	/* AER has the link down for a recovery: that is its to judge */
	if (pci_channel_offline(tdev->pdev))
		return false;
	if (tgpu_rd32(tdev, TGPU_PMC_MAGIC) != U32_MAX ||
	    tgpu_rd32(tdev, TGPU_PMC_BOOT_0) != U32_MAX)
		return false;

	WRITE_ONCE(tdev->reset.lost, true);
	tgpu_xid(tdev, TGPU_XID_BUS,
		 "GPU has fallen off the bus: its registers read 0xffffffff; unfinished work fails with -ENODEV, the device is unplugged (reset the slot, or remove and rescan the PCI device, to bring it back)\n");
	tgpu_queues_fail_all(tdev, -ENODEV);
	queue_work(system_wq, &tdev->reset.unplug);
	return true;
}

static void tgpu_reset_health(struct work_struct *work)
{
	struct tgpu_device *tdev = container_of(to_delayed_work(work),
						struct tgpu_device,
						reset.health);
	bool lost = true;
	int idx, bars;

	if (drm_dev_enter(&tdev->base, &idx)) {
		/* all ones is what a device being reset reads, too */
		lost = false;
		if (tgpu_bars_tryenter(tdev, &bars)) {
			lost = tgpu_reset_check_bus(tdev);
			tgpu_bars_exit(tdev, bars);
		}
		drm_dev_exit(idx);
	}
	if (!lost && tgpu_health_ms)
		queue_delayed_work(tdev->reset.wq, &tdev->reset.health,
				   msecs_to_jiffies(tgpu_health_ms));
}

/**
 * tgpu_reset_check_bus_soon() - run the bus check now
 * @tdev: the device
 *
 * For the interrupt handler, which read all ones: it cannot fail fences
 * itself.  Any context.
 */
void tgpu_reset_check_bus_soon(struct tgpu_device *tdev)
{
	if (!READ_ONCE(tdev->reset.lost))
		mod_delayed_work(tdev->reset.wq, &tdev->reset.health, 0);
}

/* ---- errors the device reported ----------------------------------------- */

/* @chid's queue, while it is on its runlist; with rl_lock. */
static struct tgpu_queue *tgpu_rl_find(struct tgpu_device *tdev, u32 chid)
{
	struct tgpu_queue *q;
	unsigned int r;

	for (r = 0; r < TGPU_NR_RUNLISTS; r++)
		list_for_each_entry(q, &tdev->rl[r].queues, rl_link)
			if (q->chid == chid)
				return q;
	return NULL;
}

/*
 * The devcoredump of a channel the device stopped with an error (an
 * MMU fault, an illegal method, an ECC error in its data...).  Its
 * fences failed already; the channel keeps its state until the queue
 * goes, which the runlist lock holds off.
 */
static void tgpu_reset_chan_dump(struct work_struct *work)
{
	struct tgpu_device *tdev = container_of(work, struct tgpu_device,
						reset.chan_dump);
	u32 chid = atomic_read(&tdev->reset.dump_chid);
	char reason[192];
	struct tgpu_queue *q;
	int idx, bars;
	u32 code;

	/*
	 * An uncorrectable error in the channel's data: its page retired
	 * first, so that the dump does not read it (and raise it again).
	 */
	flush_work(&tdev->ecc.work);
	if (!drm_dev_enter(&tdev->base, &idx))
		goto out;
	mutex_lock(&tdev->reset.lock);
	/* an AER recovery keeps the BARs off between its callbacks */
	if (READ_ONCE(tdev->reset.device) || !tgpu_bars_tryenter(tdev, &bars)) {
		mutex_unlock(&tdev->reset.lock);
		drm_dev_exit(idx);
		goto out;
	}
	mutex_lock(&tdev->rl_lock);
	q = READ_ONCE(tdev->reset.lost) ? NULL : tgpu_rl_find(tdev, chid);
	code = q ? READ_ONCE(q->chan_error) : TGPU_ERR_NONE;
	/* a device reset since cleared the channel: nothing left to show */
	if (code != TGPU_ERR_NONE &&
	    tgpu_chan_rd(tdev, chid, TGPU_CHAN_ERROR) != code)
		code = TGPU_ERR_NONE;
	if (code != TGPU_ERR_NONE) {
		snprintf(reason, sizeof(reason),
			 "channel %u (pid %d, %s) stopped by the device: %s (%s), engine %s",
			 q->chid, pid_nr(q->pid), q->comm,
			 tgpu_chan_error_name(code),
			 tgpu_chan_error_meaning(code),
			 tgpu_engine_name(q->engine));
		tgpu_coredump_capture(tdev, q, NULL, reason);
	}
	mutex_unlock(&tdev->rl_lock);
	tgpu_bars_exit(tdev, bars);
	mutex_unlock(&tdev->reset.lock);
	drm_dev_exit(idx);
out:
	atomic_set(&tdev->reset.dump_chid, -1);
}

/**
 * tgpu_reset_chan_dump_soon() - a devcoredump of a channel in error
 * @tdev: the device
 * @chid: the channel, which the device stopped with an error
 *
 * For the interrupt handler.  One at a time: while one is queued, the
 * next error takes none (as devcoredump keeps one dump per device).
 */
void tgpu_reset_chan_dump_soon(struct tgpu_device *tdev, u32 chid)
{
	if (atomic_cmpxchg(&tdev->reset.dump_chid, -1, chid) == -1)
		queue_work(tdev->reset.wq, &tdev->reset.chan_dump);
}

/* ---- the schedulers of a recovery ---------------------------------------- */

/* The job goes back on the pending list drm_sched took it off. */
static void tgpu_job_requeue(struct drm_sched_job *sjob)
{
	struct drm_gpu_scheduler *sched = sjob->sched;

	spin_lock(&sched->job_list_lock);
	list_add(&sjob->list, &sched->pending_list);
	spin_unlock(&sched->job_list_lock);
}

static void tgpu_queue_stop(struct tgpu_queue *q, struct drm_sched_job *bad)
{
	if (q->stopped)
		return;
	drm_sched_stop(&q->sched, bad);
	q->stopped = true;
}

/*
 * drm_sched_stop() took the hardware fences off the jobs it kept: give
 * them back (a replayed job's fence is the same fence, a failed one
 * carries its error to the job's), then start the scheduler.
 */
static void tgpu_queue_restart(struct tgpu_queue *q)
{
	struct drm_sched_job *sjob;
	struct tgpu_job *job;

	if (!q->stopped)
		return;
	list_for_each_entry(sjob, &q->sched.pending_list, list) {
		job = to_tgpu_job(sjob);
		if (!sjob->s_fence->parent && job->fence)
			sjob->s_fence->parent = dma_fence_get(&job->fence->base);
	}
	q->stopped = false;
	drm_sched_start(&q->sched);
}

/*
 * Where a device reset is to start user-submit queue @q's channel again,
 * read before the reset, with the BARs off (no doorbell comes): an idle
 * channel finished every entry it fetched, so it starts at GP_GET; any
 * other was under way with the last one.  The process may reuse what a
 * finished entry pointed at, so running that one again would run
 * whatever is there now (make soak saw PB_HEADER errors and corrupted
 * data in innocent processes from it).
 */
static void tgpu_queue_replay_point(struct tgpu_queue *q)
{
	struct tgpu_device *tdev = q->tdev;
	u32 status, get;

	status = tgpu_rd32(tdev, TGPU_CHAN_REG(q->chid, TGPU_CHAN_STATUS));
	get = tgpu_rd32(tdev, TGPU_CHAN_REG(q->chid, TGPU_CHAN_GP_GET));
	q->uq.replay_valid = status != U32_MAX;
	if ((status & TGPU_CHAN_STATE_MASK) == TGPU_CHAN_STATE_IDLE)
		q->uq.replay_get = get;
	else
		q->uq.replay_get = get - 1;
}

/*
 * A user-submit queue has no jobs the driver knows: its channel starts
 * again at the entry it fetched last (from before a device reset,
 * tgpu_queue_replay_point(); after an engine reset that took it down,
 * USERD's GP_GET, which the device wrote, less one), which was under
 * way, so it runs again from its start, as a kernel queue's unfinished
 * jobs do; then the rest of the process's ring, up to its GP_PUT.
 * Return: the entries handed back.
 */
static unsigned int tgpu_queue_replay_user(struct tgpu_queue *q)
{
	struct tgpu_device *tdev = q->tdev;
	const u32 mask = TGPU_Q_GPFIFO_ENTRIES - 1;
	u32 get, put;

	if (q->uq.replay_valid)
		get = q->uq.replay_get & mask;
	else
		get = (readl(q->userd + TGPU_USERD_GP_GET) - 1) & mask;
	q->uq.replay_valid = false;
	put = readl(q->userd + TGPU_USERD_GP_PUT) & mask;
	tgpu_chan_wr(tdev, q->chid, TGPU_CHAN_CTRL, TGPU_CHAN_CTRL_RESET);
	tgpu_chan_wr(tdev, q->chid, TGPU_CHAN_INST,
		     q->mem.addr >> TGPU_PAGE_SHIFT);
	tgpu_chan_wr(tdev, q->chid, TGPU_CHAN_GP_GET, get);
	tgpu_uq_forget(q);
	tgpu_chan_wr(tdev, q->chid, TGPU_CHAN_CTRL, TGPU_CHAN_CTRL_ENABLE);
	/* the device reads USERD's GP_PUT, the process's */
	tgpu_wr32(tdev, TGPU_USERMODE_DOORBELL, q->chid);
	return (put - get) & mask;
}

/*
 * Reset @q's channel and hand it its unfinished jobs again, from GPFIFO
 * slot 0.  Each one runs from its start: what a job did before the reset
 * it does again.  Return: how many.
 */
static unsigned int tgpu_queue_replay(struct tgpu_queue *q)
{
	struct tgpu_device *tdev = q->tdev;
	struct drm_sched_job *sjob;
	struct tgpu_job *job;
	unsigned int n = 0;

	tgpu_queue_signal(q, 0);
	if (q->user)
		return tgpu_queue_replay_user(q);
	tgpu_chan_wr(tdev, q->chid, TGPU_CHAN_CTRL, TGPU_CHAN_CTRL_RESET);
	writel(0, q->userd + TGPU_USERD_GP_PUT);
	q->gp_put = 0;
	list_for_each_entry(sjob, &q->sched.pending_list, list) {
		job = to_tgpu_job(sjob);
		if (!job->fence || dma_fence_is_signaled(&job->fence->base))
			continue;
		tgpu_job_write(q, job);
		/* RESET cleared CHAN_BUSY_NS: the budget starts again */
		job->snap.valid = false;
		job->snap.busy = 0;
		job->snap.busy_valid = true;
		job->snap.ran_ns = 0;
		job->rearms = 0;
		n++;
	}
	wmb(); /* the entries, then the enable */
	tgpu_chan_wr(tdev, q->chid, TGPU_CHAN_INST,
		     q->mem.addr >> TGPU_PAGE_SHIFT);
	tgpu_chan_wr(tdev, q->chid, TGPU_CHAN_CTRL, TGPU_CHAN_CTRL_ENABLE);
	if (n)
		tgpu_queue_kick(q);
	return n;
}

static void tgpu_queue_innocent(struct tgpu_queue *q, unsigned int jobs,
				const char *why)
{
	struct tgpu_file *tfile = tgpu_vm_file(q->vm);

	if (READ_ONCE(tfile->reset_status) == DRM_TGPU_RESET_NONE)
		WRITE_ONCE(tfile->reset_status, DRM_TGPU_RESET_INNOCENT);
	if (q->user) {
		tgpu_xid(q->tdev, TGPU_XID_CLEANUP,
			 "channel %u (pid %d, %s) taken down by %s: its user-submitted ring runs again from its last fetched entry (%u entries)\n",
			 q->chid, pid_nr(q->pid), q->comm, why, jobs);
		return;
	}
	tgpu_xid(q->tdev, TGPU_XID_CLEANUP,
		 "channel %u (pid %d, %s) taken down by %s: its %u unfinished jobs run again\n",
		 q->chid, pid_nr(q->pid), q->comm, why, jobs);
}

/* Fail @q's unfinished fences with @error and ban its file. */
static void tgpu_queue_guilty(struct tgpu_queue *q, int error)
{
	WRITE_ONCE(tgpu_vm_file(q->vm)->reset_status, DRM_TGPU_RESET_GUILTY);
	tgpu_queue_fail(q, error);
}

static void tgpu_reset_begin(struct tgpu_device *tdev)
{
	unsigned long flags;

	mutex_lock(&tdev->reset.lock);
	tdev->reset.owner = current;
	spin_lock_irqsave(&tdev->irq.lock, flags);
	tdev->reset.active = true;
	spin_unlock_irqrestore(&tdev->irq.lock, flags);
}

static void tgpu_reset_end(struct tgpu_device *tdev)
{
	unsigned long flags;

	spin_lock_irqsave(&tdev->irq.lock, flags);
	tdev->reset.active = false;
	spin_unlock_irqrestore(&tdev->irq.lock, flags);
	tdev->reset.owner = NULL;
	mutex_unlock(&tdev->reset.lock);
}

/* ---- the BARs during a device reset ------------------------------------- */

/*
 * Wait while a device reset has the BARs off, then enter the SRCU
 * section; a freeze that began since waits for it.  -EINTR (nothing
 * entered) when @killable and a fatal signal came.
 */
static int tgpu_bars_wait_enter(struct tgpu_device *tdev, bool killable,
				int *idx)
{
	struct tgpu_reset *rst = &tdev->reset;

	for (;;) {
		if (!killable)
			wait_event(rst->thaw, !READ_ONCE(rst->frozen));
		else if (wait_event_killable(rst->thaw, !READ_ONCE(rst->frozen)))
			return -EINTR;
		*idx = srcu_read_lock(&rst->bars);
		if (!READ_ONCE(rst->frozen))
			return 0;
		srcu_read_unlock(&rst->bars, *idx);
	}
}

/**
 * tgpu_bars_enter() - begin a CPU access to the BARs outside a recovery
 * @tdev: the device
 *
 * Waits while a device reset has them off.  Around the access only: not
 * across a wait for the GPU, which the reset may be waiting for.
 *
 * Return: the cookie for tgpu_bars_exit().
 */
int tgpu_bars_enter(struct tgpu_device *tdev)
{
	int idx;

	tgpu_bars_wait_enter(tdev, false, &idx);
	return idx;
}

/**
 * tgpu_bars_enter_killable() - tgpu_bars_enter(), unless the task is killed
 * @tdev: the device
 * @idx: the cookie for tgpu_bars_exit()
 *
 * For a CPU fault, which a reset (up to a minute under AER) would
 * otherwise hold unkillable.
 *
 * Return: 0, or -EINTR (with nothing to exit) when a fatal signal came.
 */
int tgpu_bars_enter_killable(struct tgpu_device *tdev, int *idx)
{
	return tgpu_bars_wait_enter(tdev, true, idx);
}

/**
 * tgpu_bars_tryenter() - tgpu_bars_enter(), without waiting
 * @tdev: the device
 * @idx: the cookie for tgpu_bars_exit()
 *
 * Return: false, with nothing to exit, while the BARs are off.
 */
bool tgpu_bars_tryenter(struct tgpu_device *tdev, int *idx)
{
	struct tgpu_reset *rst = &tdev->reset;

	*idx = srcu_read_lock(&rst->bars);
	if (!READ_ONCE(rst->frozen))
		return true;
	srcu_read_unlock(&rst->bars, *idx);
	return false;
}

/**
 * tgpu_bars_exit() - end a tgpu_bars_enter() access
 * @tdev: the device
 * @idx: its cookie
 */
void tgpu_bars_exit(struct tgpu_device *tdev, int idx)
{
	srcu_read_unlock(&tdev->reset.bars, idx);
}

/**
 * tgpu_reg_read() - read a register for sysfs, hwmon and the like
 * @tdev: the device
 * @reg: the register
 * @val: its value
 *
 * Outside a device reset, which has the BARs off (it waits for the end
 * of one), and only while the device is there.
 *
 * Return: 0, -ENODEV once the device is unplugged, -EINTR when the task
 * is killed while it waits.
 */
int tgpu_reg_read(struct tgpu_device *tdev, u32 reg, u32 *val)
{
	int idx, bars;

	if (!drm_dev_enter(&tdev->base, &idx))
		return -ENODEV;
	if (tgpu_bars_enter_killable(tdev, &bars)) {
		drm_dev_exit(idx);
		return -EINTR;
	}
	*val = tgpu_rd32(tdev, reg);
	tgpu_bars_exit(tdev, bars);
	drm_dev_exit(idx);
	return 0;
}

/*
 * The BARs go off: wait for the accesses under way, and zap every CPU
 * mapping of the device's objects (a fault then waits in tgpu_bars_enter()).
 */
static void tgpu_bars_freeze(struct tgpu_device *tdev)
{
	WRITE_ONCE(tdev->reset.frozen, true);
	synchronize_srcu(&tdev->reset.bars);
	unmap_mapping_range(tdev->base.anon_inode->i_mapping, 0, 0, 1);
}

static void tgpu_bars_thaw(struct tgpu_device *tdev)
{
	WRITE_ONCE(tdev->reset.frozen, false);
	wake_up_all(&tdev->reset.thaw);
}

/* ---- device reset -------------------------------------------------------- */

/* With the reset lock: the BARs go off, every scheduler stops. */
static void tgpu_reset_quiesce(struct tgpu_device *tdev)
{
	struct tgpu_queue *q;
	unsigned int r;
	int idx;

	tgpu_bars_freeze(tdev);
	/* after the freeze: no reader is between two of its reads */
	if (drm_dev_enter(&tdev->base, &idx)) {
		tgpu_therm_suspend(tdev);
		drm_dev_exit(idx);
	}
	mutex_lock(&tdev->rl_lock);
	for (r = 0; r < TGPU_NR_RUNLISTS; r++)
		list_for_each_entry(q, &tdev->rl[r].queues, rl_link) {
			if (q->user && drm_dev_enter(&tdev->base, &idx)) {
				tgpu_queue_replay_point(q);
				drm_dev_exit(idx);
			}
			tgpu_queue_stop(q, NULL);
		}
	mutex_unlock(&tdev->rl_lock);
}

/*
 * With the reset lock, the device reset done: set the device up as after
 * power-on and hand every live queue's channel its unfinished jobs.
 */
static void tgpu_reset_reinit(struct tgpu_device *tdev)
{
	struct tgpu_queue *q;
	unsigned int r, n;
	int idx;

	if (drm_dev_enter(&tdev->base, &idx)) {
		tgpu_kchan_reset(tdev);
		tgpu_ecc_resume(tdev);
		tgpu_therm_resume(tdev);
		tgpu_irq_restore(tdev);
		tgpu_wr32(tdev, TGPU_MMU_INVALIDATE, TGPU_MMU_INV_ALL);
		drm_dev_exit(idx);
	}
	atomic_inc(&tdev->reset.vram_lost);
	atomic_inc(&tdev->reset.count);

	mutex_lock(&tdev->rl_lock);
	for (r = 0; r < TGPU_NR_RUNLISTS; r++) {
		tgpu_runlist_submit(tdev, r);
		list_for_each_entry(q, &tdev->rl[r].queues, rl_link) {
			if (drm_dev_enter(&tdev->base, &idx)) {
				if (!tgpu_queue_error(q)) {
					n = tgpu_queue_replay(q);
					if (n)
						tgpu_queue_innocent(q, n,
								    "a device reset");
				}
				drm_dev_exit(idx);
			}
			tgpu_queue_restart(q);
		}
	}
	mutex_unlock(&tdev->rl_lock);
	tgpu_bars_thaw(tdev);
	/* after the thaw: the waiters the reset broke write with the CPU */
	tgpu_kchan_restart(tdev);
	/* ECC errors the work skipped while the BARs were off */
	queue_work(tdev->ecc.wq, &tdev->ecc.work);
	drm_info(&tdev->base, "device reset done: ECC %s, VRAM to be treated as lost\n",
		 tdev->ecc.enabled ? "enabled" : "disabled");
}

/*
 * With the reset lock: a device reset that began ends without the
 * device.  It is lost: every fence fails with -ENODEV, the kernel
 * channel's waiters give up, the schedulers start (to hand the errors
 * on), the BARs count as on again (until the unplug work has run,
 * accesses reach a device that is gone; then faults get a page of their
 * own), and the DRM device is unplugged.
 */
static void tgpu_reset_abandon(struct tgpu_device *tdev, const char *why)
{
	struct tgpu_queue *q;
	unsigned int r;

	WRITE_ONCE(tdev->reset.lost, true);
	tgpu_xid(tdev, TGPU_XID_BUS,
		 "GPU has fallen off the bus: %s; unfinished work fails with -ENODEV, the device is unplugged (remove and rescan the PCI device to bring it back)\n",
		 why);
	tgpu_queues_fail_all(tdev, -ENODEV);
	tgpu_kchan_reset(tdev);
	mutex_lock(&tdev->rl_lock);
	for (r = 0; r < TGPU_NR_RUNLISTS; r++)
		list_for_each_entry(q, &tdev->rl[r].queues, rl_link)
			tgpu_queue_restart(q);
	mutex_unlock(&tdev->rl_lock);
	queue_work(system_wq, &tdev->reset.unplug);
	tgpu_bars_thaw(tdev);
	WRITE_ONCE(tdev->reset.device, false);
}

/*
 * From sysfs or AER: a timeout handler running now finishes first, later
 * ones put their job back and wait (the device reset hands it to the
 * hardware again).
 */
static void tgpu_reset_begin_device(struct tgpu_device *tdev)
{
	WRITE_ONCE(tdev->reset.device, true);
	flush_workqueue(tdev->reset.wq);
	tgpu_reset_begin(tdev);
}

/**
 * tgpu_reset_prepare() - pci_error_handlers.reset_prepare: an FLR is coming
 * @pdev: the PCI function
 *
 * Every scheduler stops.  From sysfs this takes the reset lock, which
 * tgpu_reset_done() releases; from the driver's own device reset the
 * recovery holds it already.  Until tgpu_reset_done() the BARs do not
 * decode: CPU mappings of VRAM objects are zapped (a store through one
 * would be dropped, a load read all ones) and faults wait, as do the
 * driver's own VRAM writers.
 */
void tgpu_reset_prepare(struct pci_dev *pdev)
{
	struct tgpu_device *tdev = pci_get_drvdata(pdev);

	if (tdev->reset.owner != current)
		tgpu_reset_begin_device(tdev);
	tgpu_reset_quiesce(tdev);
}

/**
 * tgpu_reset_done() - pci_error_handlers.reset_done: the FLR happened
 * @pdev: the PCI function, its config space restored
 *
 * The device is as after power-on: the kernel channel's work in flight
 * fails (its waiters redo it with the CPU), interrupts, ECC (with its
 * scrub), the TLB and the runlists are set up again, every live queue's
 * channel gets its unfinished jobs again, the schedulers start, and the
 * kernel channel starts again.  VRAM counts as lost.
 */
void tgpu_reset_done(struct pci_dev *pdev)
{
	struct tgpu_device *tdev = pci_get_drvdata(pdev);

	tgpu_reset_reinit(tdev);
	if (!tdev->reset.recovering) {
		WRITE_ONCE(tdev->reset.device, false);
		tgpu_reset_end(tdev);
	}
}

/*
 * Reset the whole device through the PCI core, which calls
 * tgpu_reset_prepare() and tgpu_reset_done() around the FLR.  With the
 * reset lock.  The trylock fails while the PCI device is locked
 * (an unbind under way): then nothing is reset.
 */
static int tgpu_reset_device(struct tgpu_device *tdev)
{
	int ret;

	tdev->reset.recovering = true;
	ret = pci_try_reset_function(tdev->pdev);
	tdev->reset.recovering = false;
	if (ret)
		drm_err(&tdev->base, "device reset failed (%d)\n", ret);
	return ret;
}

/* ---- engine recovery ----------------------------------------------------- */

/*
 * An engine reset fails the channel whose context was on the engine
 * (ENGINE_RESET): if it is not @guilty's, it is innocent and gets its
 * unfinished jobs again.  With rl_lock.
 */
static void tgpu_reset_replay_engine(struct tgpu_device *tdev,
				     struct tgpu_queue *guilty, const char *why)
{
	struct tgpu_queue *other;
	u32 status, n;

	list_for_each_entry(other, &tdev->rl[guilty->engine].queues, rl_link) {
		if (other == guilty || tgpu_queue_error(other))
			continue;
		status = tgpu_chan_rd(tdev, other->chid, TGPU_CHAN_STATUS);
		if ((status & TGPU_CHAN_STATE_MASK) != TGPU_CHAN_STATE_ERROR ||
		    tgpu_chan_rd(tdev, other->chid, TGPU_CHAN_ERROR) !=
		    TGPU_ERR_ENGINE_RESET)
			continue;
		n = tgpu_queue_replay(other);
		tgpu_queue_innocent(other, n, why);
	}
}

/*
 * @q's job @bad hung (the hang check said so).  With drm_dev_enter().
 * See the top of the file for the steps.
 */
static void tgpu_reset_engine(struct tgpu_device *tdev, struct tgpu_queue *q,
			      struct drm_sched_job *bad, u32 state, bool moved)
{
	const char *engine = tgpu_engine_name(q->engine);
	u64 t0 = ktime_get_ns();
	struct tgpu_queue *other;
	char why[32], how[96], what[64], reason[256];
	bool fallback, engine_reset;
	u32 status;

	snprintf(why, sizeof(why), "the reset of engine %s", engine);
	if (bad) {
		tdev->reset.detect_ns = t0 - to_tgpu_job(bad)->run_ns;
		snprintf(what, sizeof(what), "job %llu",
			 bad->s_fence->finished.seqno);
	} else {
		tdev->reset.detect_ns = t0 - q->uq.progress_ns;
		snprintf(what, sizeof(what), "user-submitted work (GP_GET %u, GP_PUT %u)",
			 tgpu_chan_rd(tdev, q->chid, TGPU_CHAN_GP_GET),
			 tgpu_chan_rd(tdev, q->chid, TGPU_CHAN_GP_PUT));
	}
	tgpu_reset_begin(tdev);
	mutex_lock(&tdev->rl_lock);
	/*
	 * A queue off its runlist is being destroyed, which stops its
	 * channel: its scheduler must not be started again under
	 * drm_sched_fini().
	 */
	if (list_empty(&q->rl_link)) {
		mutex_unlock(&tdev->rl_lock);
		tgpu_reset_end(tdev);
		if (bad)
			tgpu_job_requeue(bad);
		return;
	}
	list_for_each_entry(other, &tdev->rl[q->engine].queues, rl_link)
		tgpu_queue_stop(other, other == q ? bad : NULL);

	/* a job still moving when its re-arms ran out outlived its budget */
	if (moved)
		snprintf(how, sizeof(how), "%s, still moving after %u timeouts of %u ms, %llu ms on the engine",
			 tgpu_chan_state_name(state),
			 (bad ? to_tgpu_job(bad)->rearms : q->uq.rearms) + 1,
			 q->timeout_ms,
			 div_u64(bad ? to_tgpu_job(bad)->snap.ran_ns :
				 q->uq.snap.ran_ns, NSEC_PER_MSEC));
	else
		snprintf(how, sizeof(how), "%s, no progress for %u ms",
			 tgpu_chan_state_name(state), q->timeout_ms);
	snprintf(reason, sizeof(reason),
		 "channel %u (pid %d, %s) %s hung (%s), engine %s",
		 q->chid, pid_nr(q->pid), q->comm, what, how, engine);
	tgpu_coredump_capture(tdev, q, bad ? to_tgpu_job(bad) : NULL, reason);

	/* KILL returns once the engine let go of the channel, or is ignored */
	tgpu_chan_wr(tdev, q->chid, TGPU_CHAN_CTRL, TGPU_CHAN_CTRL_KILL);
	status = tgpu_chan_rd(tdev, q->chid, TGPU_CHAN_STATUS);
	if ((status & TGPU_CHAN_STATE_MASK) != TGPU_CHAN_STATE_ERROR) {
		tgpu_xid(tdev, TGPU_XID_CTXSW_TIMEOUT,
			 "channel %u (pid %d, %s) did not stop when killed (%s): engine %s wedged, device reset\n",
			 q->chid, pid_nr(q->pid), q->comm,
			 tgpu_chan_state_name(status & TGPU_CHAN_STATE_MASK),
			 engine);
		tgpu_queue_guilty(q, -ETIME);
		tdev->reset.fail_at_ns = ktime_get_ns();
		mutex_unlock(&tdev->rl_lock);
		/*
		 * No device reset at all (an unbind has the device locked:
		 * the PCI core called nothing): an engine reset still clears
		 * a wedge, and the work it takes down runs again.
		 */
		fallback = tgpu_reset_device(tdev) == -EAGAIN;
		tdev->reset.device_ns = ktime_get_ns() - t0;
		mutex_lock(&tdev->rl_lock);
		if (fallback) {
			tgpu_wr32(tdev, TGPU_PMC_ENGINE_RESET, BIT(q->engine));
			atomic_inc(&tdev->reset.count);
			drm_err(&tdev->base, "engine %s reset instead\n",
				engine);
			tgpu_reset_replay_engine(tdev, q, why);
		}
		/* what the reset did not start (it failed) */
		list_for_each_entry(other, &tdev->rl[q->engine].queues, rl_link)
			tgpu_queue_restart(other);
		mutex_unlock(&tdev->rl_lock);
		tgpu_reset_end(tdev);
		return;
	}

	/*
	 * A user-submit channel blocked on an acquire held nothing on its
	 * engine: the kill was enough, and the other channels of the engine
	 * lose nothing.  One waiting for its engine may be behind a fetch
	 * hang of the runlist, which only an engine reset clears.
	 */
	engine_reset = bad || state != TGPU_CHAN_STATE_BLOCKED;
	if (engine_reset) {
		tgpu_wr32(tdev, TGPU_PMC_ENGINE_RESET, BIT(q->engine));
		atomic_inc(&tdev->reset.count);
	}
	tgpu_xid(tdev, TGPU_XID_STOPPED,
		 "channel %u (pid %d, %s) stopped processing (%s, %s), %s%s%s\n",
		 q->chid, pid_nr(q->pid), q->comm, what, how,
		 engine_reset ? "engine " : "killed off engine ", engine,
		 engine_reset ? " reset" : "");
	tgpu_queue_guilty(q, -ETIME);
	tdev->reset.fail_at_ns = ktime_get_ns();

	if (engine_reset)
		tgpu_reset_replay_engine(tdev, q, why);
	list_for_each_entry(other, &tdev->rl[q->engine].queues, rl_link)
		tgpu_queue_restart(other);
	mutex_unlock(&tdev->rl_lock);
	tdev->reset.engine_ns = ktime_get_ns() - t0;
	tgpu_reset_end(tdev);
}

/**
 * tgpu_reset_user_hang() - a user-submit queue's hang check found it hung
 * @tdev: the device
 * @q: the queue
 * @state: its channel's state
 * @moved: it was still moving when its re-arms ran out
 *
 * The recovery of a hung job, without a job: the channel is killed, its
 * engine reset, the queue fails with -ETIME and its file is guilty.
 * With drm_dev_enter(), from the queue's watchdog on the recovery
 * workqueue.
 */
void tgpu_reset_user_hang(struct tgpu_device *tdev, struct tgpu_queue *q,
			  u32 state, bool moved)
{
	tgpu_reset_engine(tdev, q, NULL, state, moved);
}

/**
 * tgpu_reset_show() - debugfs "recovery": counters and the last timings
 * @tdev: the device
 * @m: the file
 */
void tgpu_reset_show(struct tgpu_device *tdev, struct seq_file *m)
{
	struct tgpu_reset *rst = &tdev->reset;

	seq_printf(m, "resets %d\ndevice_resets %d\nmissed_irqs %lld\nlost %u\n",
		   atomic_read(&rst->count), atomic_read(&rst->vram_lost),
		   atomic64_read(&rst->missed_irqs), READ_ONCE(rst->lost));
	seq_printf(m, "last_detect_us %llu\nlast_engine_reset_us %llu\nlast_device_reset_us %llu\nlast_fail_at_ns %llu\n",
		   div_u64(rst->detect_ns, NSEC_PER_USEC),
		   div_u64(rst->engine_ns, NSEC_PER_USEC),
		   div_u64(rst->device_ns, NSEC_PER_USEC), rst->fail_at_ns);
}

/**
 * tgpu_reset_moved() - did a channel or its engine move since the last check
 * @q: the queue whose channel it is
 * @snap: the last check's snapshot, replaced by this one's
 * @state: the channel's state now (out)
 *
 * Progress: the channel fetched a GPFIFO entry, or moved through its
 * pushbuffer while it ran (a channel retrying an acquire goes back and
 * forth over the same method), or the engine took a step while the
 * channel was on it or waiting for it.
 *
 * The period since the last check is charged to @snap->ran_ns, which
 * tgpu_reset_budget_left() holds against the re-arm budget: the engine
 * time the channel's work had in it (CHAN_BUSY_NS), not the wall clock,
 * as xe holds a job's own run time against its timeout.  Work waiting its
 * turn behind other channels' (a lower priority behind higher ones, more
 * so on a slow host) is late, not hung, and pays nothing for the wait.
 * A channel that ran with no engine time (its pushbuffer's methods), or
 * whose count is unknown (the first check after a reset), pays the whole
 * period, as before the count existed.
 *
 * Return: true when it moved.
 */
bool tgpu_reset_moved(struct tgpu_queue *q, struct tgpu_snap *snap,
		      u32 *state)
{
	struct tgpu_device *tdev = q->tdev;
	u64 busy, ran, period = (u64)q->timeout_ms * NSEC_PER_MSEC;
	u32 st, gp, pb, progress;
	bool moved;

	st = tgpu_chan_rd(tdev, q->chid, TGPU_CHAN_STATUS) &
	     TGPU_CHAN_STATE_MASK;
	gp = tgpu_chan_rd(tdev, q->chid, TGPU_CHAN_GP_GET);
	pb = tgpu_chan_rd(tdev, q->chid, TGPU_CHAN_PB_LO);
	progress = tgpu_rd32(tdev, TGPU_PMC_ENGINE_PROGRESS(q->engine));
	busy = tgpu_queue_busy_ns(q);
	moved = (snap->valid &&
		 (gp != snap->gp ||
		  (pb != snap->pb && st == TGPU_CHAN_STATE_RUNNING))) ||
		((st == TGPU_CHAN_STATE_RUNNING ||
		  st == TGPU_CHAN_STATE_PENDING) &&
		 progress != snap->progress);

	if (busy == U64_MAX || !snap->busy_valid)
		ran = period;
	else	/* a channel reset clears the count */
		ran = busy >= snap->busy ? busy - snap->busy : busy;
	if (!ran && st == TGPU_CHAN_STATE_RUNNING)
		ran = period;
	snap->last_ns = ran;
	snap->ran_ns += ran;

	snap->gp = gp;
	snap->pb = pb;
	snap->progress = progress;
	snap->busy = busy;
	snap->busy_valid = busy != U64_MAX;
	snap->valid = true;
	*state = st;
	return moved;
}

/**
 * tgpu_reset_budget_left() - may work that still moves go on
 * @q: its queue
 * @snap: its checks' snapshot, @snap->ran_ns charged
 *
 * Work that keeps moving is hung once it has had its engine for
 * job_timeout_ms × (hang_rearm_max + 1).  Half a period of slack: the
 * engine takes the work a little after the timer starts, so a kernel
 * running since run_job has a little under one period at the first check
 * (hang_rearm_max=0 must still reset it there).
 *
 * Return: true while the budget lasts.
 */
bool tgpu_reset_budget_left(const struct tgpu_queue *q,
			    const struct tgpu_snap *snap)
{
	u64 period = (u64)q->timeout_ms * NSEC_PER_MSEC;

	return snap->ran_ns + period / 2 <
	       period * (READ_ONCE(tgpu_hang_rearms) + 1ull);
}

/**
 * tgpu_reset_missed_irq() - a timeout check's poll handled an interrupt
 *	for @q that never came: count it, say it
 * @q: the queue
 * @what: what it was, as in "job 12 was done, its interrupt"
 */
void tgpu_reset_missed_irq(struct tgpu_queue *q, const char *what)
{
	struct tgpu_device *tdev = q->tdev;

	atomic64_inc(&tdev->reset.missed_irqs);
	atomic64_inc(&tgpu_vm_file(q->vm)->missed_irqs);
	dev_warn_ratelimited(tdev->base.dev,
			     "channel %u (pid %d, %s): %s never came (missed interrupt %lld)\n",
			     q->chid, pid_nr(q->pid), q->comm, what,
			     atomic64_read(&tdev->reset.missed_irqs));
}

/**
 * tgpu_reset_timedout() - drm_sched's timedout_job
 * @sjob: the oldest unfinished job of a queue, past its timeout
 *
 * Return: DRM_GPU_SCHED_STAT_ENODEV when the device is gone, else
 * DRM_GPU_SCHED_STAT_NOMINAL.
 */
enum drm_gpu_sched_stat tgpu_reset_timedout(struct drm_sched_job *sjob)
{
	struct tgpu_job *job = to_tgpu_job(sjob);
	struct tgpu_queue *q = job->q;
	struct tgpu_device *tdev = q->tdev;
	u32 status, state, gp;
	bool moved, err;
	char what[48];
	int idx;

	if (!drm_dev_enter(&tdev->base, &idx)) {
		tgpu_job_requeue(sjob);
		return DRM_GPU_SCHED_STAT_ENODEV;
	}
	/* a device reset from sysfs or AER is under way: it replays the job */
	if (READ_ONCE(tdev->reset.device)) {
		drm_dev_exit(idx);
		tgpu_job_requeue(sjob);
		return DRM_GPU_SCHED_STAT_NOMINAL;
	}
	if (tgpu_reset_check_bus(tdev)) {
		drm_dev_exit(idx);
		tgpu_job_requeue(sjob);
		return DRM_GPU_SCHED_STAT_ENODEV;
	}

	/*
	 * A lost interrupt is not a hang: the status bits are set anyway.
	 * The job's channel error too: the poll fails its fence.
	 */
	err = job->fence && !dma_fence_is_signaled(&job->fence->base) &&
	      tgpu_irq_chan_pending(tdev, q->chid, true);
	tgpu_irq_poll(tdev);
	if (job->fence && dma_fence_is_signaled(&job->fence->base)) {
		/*
		 * A fence failed meanwhile (queue destroyed, lost bus) is
		 * not, unless its channel's pending error did it.
		 */
		if (!job->fence->base.error) {
			snprintf(what, sizeof(what), "job %llu was done, its interrupt",
				 sjob->s_fence->finished.seqno);
			tgpu_reset_missed_irq(q, what);
		} else if (err && READ_ONCE(q->chan_error)) {
			tgpu_reset_missed_irq(q, "the interrupt of its channel error");
		}
		drm_dev_exit(idx);
		/*
		 * Done: off the pending list it is ours to free (put back,
		 * it would wait there for the next completion, and time out
		 * again meanwhile), once drm_sched's callback, which may be
		 * running on another CPU, has signalled its finished fence.
		 */
		if (dma_fence_wait_timeout(&sjob->s_fence->finished, false,
					   HZ) > 0)
			tgpu_job_free(sjob);
		else
			tgpu_job_requeue(sjob);
		return DRM_GPU_SCHED_STAT_NOMINAL;
	}

	/*
	 * A lost doorbell is not a hang either: the channel sits idle, never
	 * having seen the GP_PUT its work is behind (a busy or blocked one
	 * reads GP_PUT again by itself).  Ring again.
	 */
	status = tgpu_chan_rd(tdev, q->chid, TGPU_CHAN_STATUS);
	gp = tgpu_chan_rd(tdev, q->chid, TGPU_CHAN_GP_PUT);
	if ((status & TGPU_CHAN_STATE_MASK) == TGPU_CHAN_STATE_IDLE &&
	    gp != READ_ONCE(q->gp_put) &&
	    job->rearms < READ_ONCE(tgpu_hang_rearms)) {
		job->rearms++;
		dev_warn_ratelimited(tdev->base.dev,
				     "channel %u (pid %d, %s): the device has GP_PUT %u, not %u: doorbell lost, rung again\n",
				     q->chid, pid_nr(q->pid), q->comm, gp,
				     READ_ONCE(q->gp_put));
		tgpu_wr32(tdev, TGPU_USERMODE_DOORBELL, q->chid);
		drm_dev_exit(idx);
		tgpu_job_requeue(sjob);
		return DRM_GPU_SCHED_STAT_NOMINAL;
	}

	moved = tgpu_reset_moved(q, &job->snap, &state);
	if (moved && tgpu_reset_budget_left(q, &job->snap)) {
		job->rearms++;
		drm_dev_exit(idx);
		tgpu_job_requeue(sjob);
		return DRM_GPU_SCHED_STAT_NOMINAL;
	}

	tgpu_reset_engine(tdev, q, sjob, state, moved);
	drm_dev_exit(idx);
	return DRM_GPU_SCHED_STAT_NOMINAL;
}

/* ---- PCI error recovery (AER) -------------------------------------------- */

/*
 * A fatal error: error_detected stops everything, the PCI core resets
 * the link, slot_reset checks that the device answers, resume sets it up
 * again.  The reset lock is held within each callback only, so that a
 * recovery the PCI core gives up on (it calls nothing more: "device
 * recovery failed") leaves nothing locked; the watchdog then ends it.
 */
/* longer than the PCI core waits for a device after a link reset (60 s) */
#define TGPU_AER_TIMEOUT_MS	90000

static pci_ers_result_t tgpu_pci_error_detected(struct pci_dev *pdev,
						pci_channel_state_t state)
{
	struct tgpu_device *tdev = pci_get_drvdata(pdev);

	drm_err(&tdev->base, "PCI error reported (channel state %d)%s\n",
		state, state == pci_channel_io_perm_failure ?
		": the device is lost" : state == pci_channel_io_normal ?
		", recovering without a reset" : ", resetting the device");
	if (state == pci_channel_io_perm_failure) {
		WRITE_ONCE(tdev->reset.lost, true);
		tgpu_xid(tdev, TGPU_XID_BUS,
			 "GPU has fallen off the bus: the PCI core reports a permanent failure; unfinished work fails with -ENODEV, the device is unplugged (remove and rescan the PCI device to bring it back)\n");
		tgpu_queues_fail_all(tdev, -ENODEV);
		queue_work(system_wq, &tdev->reset.unplug);
		return PCI_ERS_RESULT_DISCONNECT;
	}
	if (state == pci_channel_io_normal)
		return PCI_ERS_RESULT_CAN_RECOVER;

	tgpu_reset_begin_device(tdev);
	if (!tdev->reset.aer) {
		tgpu_reset_quiesce(tdev);
		tdev->reset.aer = true;
	}
	/*
	 * The deadline, not the work, decides: a watchdog already running
	 * for an earlier recovery finds it in the future and does nothing.
	 */
	tdev->reset.aer_deadline = jiffies +
				   msecs_to_jiffies(TGPU_AER_TIMEOUT_MS);
	mod_delayed_work(system_wq, &tdev->reset.aer_watchdog,
			 msecs_to_jiffies(TGPU_AER_TIMEOUT_MS));
	tgpu_reset_end(tdev);
	return PCI_ERS_RESULT_NEED_RESET;
}

static void tgpu_pci_aer_watchdog(struct work_struct *work)
{
	struct tgpu_device *tdev = container_of(to_delayed_work(work),
						struct tgpu_device,
						reset.aer_watchdog);

	tgpu_reset_begin(tdev);
	if (tdev->reset.aer &&
	    time_after_eq(jiffies, tdev->reset.aer_deadline)) {
		tdev->reset.aer = false;
		tgpu_reset_abandon(tdev, "its PCI error recovery did not finish in 90 s");
	}
	tgpu_reset_end(tdev);
}

static pci_ers_result_t tgpu_pci_mmio_enabled(struct pci_dev *pdev)
{
	struct tgpu_device *tdev = pci_get_drvdata(pdev);

	/* a non-fatal error: the device still answers, or it is lost */
	return tgpu_reset_check_bus(tdev) ? PCI_ERS_RESULT_DISCONNECT :
					    PCI_ERS_RESULT_RECOVERED;
}

static pci_ers_result_t tgpu_pci_slot_reset(struct pci_dev *pdev)
{
	struct tgpu_device *tdev = pci_get_drvdata(pdev);
	pci_ers_result_t ret = PCI_ERS_RESULT_RECOVERED;

	pci_restore_state(pdev);
	pci_save_state(pdev);
	tgpu_reset_begin(tdev);
	if (tgpu_rd32(tdev, TGPU_PMC_MAGIC) != TGPU_MAGIC) {
		drm_err(&tdev->base, "PCI slot reset: the device does not answer\n");
		/* resume is not called: end what error_detected began */
		if (tdev->reset.aer) {
			tdev->reset.aer = false;
			cancel_delayed_work(&tdev->reset.aer_watchdog);
			tgpu_reset_abandon(tdev, "it does not answer after its reset");
		}
		ret = PCI_ERS_RESULT_DISCONNECT;
	}
	tgpu_reset_end(tdev);
	return ret;
}

static void tgpu_pci_resume(struct pci_dev *pdev)
{
	struct tgpu_device *tdev = pci_get_drvdata(pdev);

	tgpu_reset_begin(tdev);
	if (tdev->reset.aer) {
		tdev->reset.aer = false;
		cancel_delayed_work(&tdev->reset.aer_watchdog);
		tgpu_reset_reinit(tdev);
		WRITE_ONCE(tdev->reset.device, false);
	}
	tgpu_reset_end(tdev);
	drm_info(&tdev->base, "PCI error recovery done\n");
}

const struct pci_error_handlers tgpu_pci_err_handlers = {
	.error_detected = tgpu_pci_error_detected,
	.mmio_enabled = tgpu_pci_mmio_enabled,
	.slot_reset = tgpu_pci_slot_reset,
	.resume = tgpu_pci_resume,
	.reset_prepare = tgpu_reset_prepare,
	.reset_done = tgpu_reset_done,
};

/* ---- set-up --------------------------------------------------------------- */

static void tgpu_reset_fini(struct drm_device *ddev, void *data)
{
	struct tgpu_device *tdev = to_tgpu_device(ddev);

	destroy_workqueue(tdev->reset.wq);
	cleanup_srcu_struct(&tdev->reset.bars);
}

static void tgpu_reset_unbind(void *data)
{
	struct tgpu_device *tdev = data;

	cancel_delayed_work_sync(&tdev->reset.health);
	cancel_delayed_work_sync(&tdev->reset.aer_watchdog);
	cancel_work_sync(&tdev->reset.chan_dump);
	cancel_work_sync(&tdev->ecc.work);
	flush_work(&tdev->reset.unplug);
}

/**
 * tgpu_reset_init() - set up recovery
 * @tdev: the device
 *
 * Return: 0 on success, a negative errno otherwise.
 */
int tgpu_reset_init(struct tgpu_device *tdev)
{
	struct tgpu_reset *rst = &tdev->reset;
	int ret;

	init_waitqueue_head(&rst->thaw);
	ret = drmm_mutex_init(&tdev->base, &rst->lock);
	if (!ret)
		ret = drmm_mutex_init(&tdev->base, &rst->unplug_lock);
	if (ret)
		return ret;
	INIT_DELAYED_WORK(&rst->health, tgpu_reset_health);
	INIT_WORK(&rst->unplug, tgpu_reset_unplug);
	INIT_DELAYED_WORK(&rst->aer_watchdog, tgpu_pci_aer_watchdog);
	INIT_WORK(&rst->chan_dump, tgpu_reset_chan_dump);
	atomic_set(&rst->dump_chid, -1);
	rst->wq = alloc_ordered_workqueue("tgpu-reset", WQ_MEM_RECLAIM);
	if (!rst->wq)
		return -ENOMEM;
	ret = init_srcu_struct(&rst->bars);
	if (ret) {
		destroy_workqueue(rst->wq);
		return ret;
	}
	ret = drmm_add_action_or_reset(&tdev->base, tgpu_reset_fini, NULL);
	if (ret)
		return ret;
	ret = devm_add_action_or_reset(tdev->base.dev, tgpu_reset_unbind, tdev);
	if (ret)
		return ret;
	if (tgpu_health_ms)
		queue_delayed_work(rst->wq, &rst->health,
				   msecs_to_jiffies(tgpu_health_ms));
	return 0;
}
ALLOW_ERROR_INJECTION(tgpu_reset_init, ERRNO);
