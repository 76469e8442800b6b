// SPDX-License-Identifier: GPL-2.0-only OR MIT
/* Copyright (c) 2026 The tgpu authors */

/*
 * User-mode submission.  A queue created with DRM_TGPU_QUEUE_USER_SUBMIT
 * gets its GPFIFO ring and USERD as a GEM object of their own, which the
 * process maps along with the device's doorbell page, and feeds without
 * the kernel: entries, GP_PUT, doorbell.  The channel stays the
 * driver's (unprivileged, in the file's VM); what the driver keeps doing
 * for it is here:
 *
 * - the waits: DRM_IOCTL_TGPU_WAIT sleeps until a semaphore the queue's
 *   work releases reaches a value; DRM_IOCTL_TGPU_USER_FENCE makes a
 *   syncobj fence of the same.  The non-stall interrupt of the channel
 *   wakes both (tgpu_uq_signal()); nothing polls;
 * - the watchdog: every timeout_ms it rings a lost doorbell, ends the
 *   fences a channel that went idle can no longer signal, and hands a
 *   channel that stopped moving to the recovery (tgpu_reset.c).
 *
 * The doorbell page holds nothing but the doorbell and a read-only copy
 * of the timer (docs/hw/registers.md), so any file may map it: a
 * doorbell for a channel only makes the device read that channel's
 * GP_PUT, which its owner publishes before it rings.
 */

#include <linux/dma-fence.h>
#include <linux/error-injection.h>
#include <linux/hrtimer.h>
#include <linux/io.h>
#include <linux/jiffies.h>
#include <linux/ktime.h>
#include <linux/mm.h>
#include <linux/pci.h>
#include <linux/pfn.h>
#include <linux/sched.h>
#include <linux/slab.h>
#include <linux/wait.h>
#include <linux/workqueue.h>

#include <drm/drm_drv.h>
#include <drm/drm_file.h>
#include <drm/drm_gem.h>
#include <drm/drm_managed.h>
#include <drm/drm_syncobj.h>
#include <drm/drm_vma_manager.h>
#include <drm/tgpu_drm.h>

#include <tgpu/channel.h>
#include <tgpu/regs.h>

#include "tgpu_device.h"
#include "tgpu_file.h"
#include "tgpu_gem.h"
#include "tgpu_irq.h"
#include "tgpu_queue.h"
#include "tgpu_reset.h"
#include "tgpu_sched.h"
#include "tgpu_uq.h"
#include "tgpu_vm.h"

/*
 * The doorbell page's mmap offset, in pages: below
 * DRM_FILE_PAGE_OFFSET_START, where GEM objects' offsets start.
 */
#define TGPU_DOORBELL_PGOFF	0x1000ul

static_assert(TGPU_DOORBELL_PGOFF < DRM_FILE_PAGE_OFFSET_START);
/* the ring object is the queue's GPFIFO..USERD range, as it is mapped */
static_assert(TGPU_Q_GPFIFO + DRM_TGPU_USER_RING_GPFIFO == TGPU_Q_GPFIFO);
static_assert(TGPU_Q_GPFIFO + DRM_TGPU_USER_RING_USERD == TGPU_Q_USERD);
static_assert(TGPU_Q_GPFIFO + DRM_TGPU_USER_RING_SIZE == TGPU_Q_SEM);
static_assert(DRM_TGPU_DOORBELL_PAGE_SIZE == TGPU_USERMODE_SIZE);
static_assert(DRM_TGPU_DOORBELL_OFFSET ==
	      TGPU_USERMODE_DOORBELL - TGPU_USERMODE_BASE);

static void tgpu_uq_watchdog(struct work_struct *work);

/* ---- the queue's ring ---------------------------------------------------- */

/**
 * tgpu_uq_init() - make a queue user-submit: its own ring object
 * @q: the queue, being created
 * @file: the DRM file that may map the ring
 * @phys: VRAM address of the ring's GPFIFO, then USERD (out)
 *
 * Return: 0, or a negative errno (-ENOSPC when VRAM is full).
 */
int tgpu_uq_init(struct tgpu_queue *q, struct drm_file *file, u64 *phys)
{
	struct tgpu_device *tdev = q->tdev;
	struct tgpu_bo *ring;
	int ret;

	ring = tgpu_bo_create_contiguous(tdev, DRM_TGPU_USER_RING_SIZE, phys);
	if (IS_ERR(ring))
		return PTR_ERR(ring);
	ret = drm_gem_create_mmap_offset(&ring->base);
	if (!ret)
		ret = drm_vma_node_allow(&ring->base.vma_node, file);
	if (ret) {
		drm_gem_object_put(&ring->base);
		return ret;
	}
	q->uq.ring = ring;
	q->gpfifo = tdev->vram.map + *phys + DRM_TGPU_USER_RING_GPFIFO;
	q->userd = tdev->vram.map + *phys + DRM_TGPU_USER_RING_USERD;
	init_waitqueue_head(&q->uq.wait);
	INIT_LIST_HEAD(&q->uq.fences);
	INIT_DELAYED_WORK(&q->uq.watchdog, tgpu_uq_watchdog);
	q->user = true;
	return 0;
}
ALLOW_ERROR_INJECTION(tgpu_uq_init, ERRNO);

/**
 * tgpu_uq_args() - what QUEUE_CREATE tells the process of its ring
 * @q: the new user-submit queue
 * @args: the ioctl's arguments
 */
void tgpu_uq_args(struct tgpu_queue *q, struct drm_tgpu_queue_create *args)
{
	args->ring_offset = drm_vma_node_offset_addr(&q->uq.ring->base.vma_node);
	args->doorbell_offset = TGPU_DOORBELL_PGOFF << PAGE_SHIFT;
	args->ring_gpu_va = q->va + TGPU_Q_GPFIFO;
	args->ring_entries = TGPU_Q_GPFIFO_ENTRIES;
	args->doorbell_token = q->chid;
}

/**
 * tgpu_uq_fini() - let go of a destroyed user-submit queue's ring
 * @q: the queue; its channel is reset and the ring unmapped from the GPU
 * @file: its DRM file
 *
 * A process mapping of the ring keeps the object (and its VRAM) until
 * munmap; no new mapping can be made.
 */
void tgpu_uq_fini(struct tgpu_queue *q, struct drm_file *file)
{
	drm_vma_node_revoke(&q->uq.ring->base.vma_node, file);
	drm_gem_object_put(&q->uq.ring->base);
	q->uq.ring = NULL;
}

/* ---- fences and waits ---------------------------------------------------- */

/**
 * struct tgpu_ufence - a DRM_IOCTL_TGPU_USER_FENCE fence
 * @base: the fence, on a context of its own (semaphores signal in any
 *	order)
 * @lock: its lock
 * @link: in &tgpu_uq.fences until signalled
 * @sem: the semaphore
 * @value: the value it waits for
 * @seq: its place among the queue's fences (&tgpu_uq.fence_seq)
 * @free_work: the object reference goes in process context
 */
struct tgpu_ufence {
	struct dma_fence base;
	spinlock_t lock; /* the fence's */
	struct list_head link;
	struct tgpu_vm_word sem;
	u64 value;
	u64 seq;
	struct work_struct free_work;
};

static const char *tgpu_ufence_driver_name(struct dma_fence *fence)
{
	return TGPU_DRIVER_NAME;
}

static const char *tgpu_ufence_timeline_name(struct dma_fence *fence)
{
	return "user-queue";
}

static void tgpu_ufence_free(struct work_struct *work)
{
	struct tgpu_ufence *f = container_of(work, struct tgpu_ufence,
					     free_work);

	tgpu_vm_word_put(&f->sem);
	dma_fence_free(&f->base);
}

/* The last put may come from an interrupt; the object put may sleep. */
static void tgpu_ufence_release(struct dma_fence *fence)
{
	struct tgpu_ufence *f = container_of(fence, struct tgpu_ufence, base);

	INIT_WORK(&f->free_work, tgpu_ufence_free);
	schedule_work(&f->free_work);
}

static const struct dma_fence_ops tgpu_ufence_ops = {
	.get_driver_name = tgpu_ufence_driver_name,
	.get_timeline_name = tgpu_ufence_timeline_name,
	.release = tgpu_ufence_release,
};

/*
 * Has the semaphore reached @value?  A VRAM one is read only while the
 * device is there; all ones is what a lost bus or a reset reads, not a
 * value.
 */
static bool tgpu_uq_reached(struct tgpu_queue *q, const struct tgpu_vm_word *w,
			    u64 value)
{
	bool done = false;
	u64 v;
	int idx;

	if (w->ptr)
		return READ_ONCE(*w->ptr) >= value;
	if (READ_ONCE(q->tdev->reset.lost) ||
	    !drm_dev_enter(&q->tdev->base, &idx))
		return false;
	v = readq(w->io);
	done = v != U64_MAX && v >= value;
	drm_dev_exit(idx);
	return done;
}

/*
 * Signal @q's user fences that are done; with @error, fail the rest of
 * those up to @last (the queue's fence_seq when the caller looked).
 */
static void tgpu_uq_fences(struct tgpu_queue *q, int error, u64 last)
{
	struct tgpu_ufence *f, *next;
	unsigned long flags;

	spin_lock_irqsave(&q->fence_lock, flags);
	list_for_each_entry_safe(f, next, &q->uq.fences, link) {
		if (!tgpu_uq_reached(q, &f->sem, f->value)) {
			if (!error || f->seq > last)
				continue;
			dma_fence_set_error(&f->base, error);
		}
		list_del(&f->link);
		dma_fence_signal(&f->base);
		dma_fence_put(&f->base);
	}
	spin_unlock_irqrestore(&q->fence_lock, flags);
}

/**
 * tgpu_uq_signal() - a user-submit queue's semaphores may have moved
 * @q: the queue
 * @error: 0 from the non-stall interrupt; the queue's error when it died
 *
 * Signals the fences that are done (with @error, fails the rest) and
 * wakes every DRM_IOCTL_TGPU_WAIT on the queue to look again.
 */
void tgpu_uq_signal(struct tgpu_queue *q, int error)
{
	atomic_inc(&q->uq.signals);
	tgpu_uq_fences(q, error, U64_MAX);
	wake_up_all(&q->uq.wait);
}

/* A user-submit queue of @file, referenced. */
static int tgpu_uq_get(struct drm_file *file, u32 id, struct tgpu_queue **out)
{
	struct tgpu_queue *q = tgpu_file_queue_get(to_tgpu_file(file), id);

	if (!q)
		return -ENOENT;
	if (!q->user) {
		tgpu_queue_put(q);
		return -EINVAL;
	}
	*out = q;
	return 0;
}

/* 1 once the semaphore is there, the queue's error once it died, else 0. */
static int tgpu_uq_wait_state(struct tgpu_queue *q,
			      const struct tgpu_vm_word *w, u64 value)
{
	if (tgpu_uq_reached(q, w, value))
		return 1;
	return tgpu_queue_error(q);
}

/**
 * tgpu_ioctl_wait() - DRM_IOCTL_TGPU_WAIT
 * @ddev: the DRM device
 * @data: struct drm_tgpu_wait
 * @file: the DRM file that owns the queue
 *
 * Return: 0 on success, a negative errno otherwise (see the uAPI header).
 */
int tgpu_ioctl_wait(struct drm_device *ddev, void *data,
		    struct drm_file *file)
{
	struct drm_tgpu_wait *args = data;
	struct tgpu_vm_word w;
	struct tgpu_queue *q;
	s64 left;
	int ret, st = 0;

	if ((args->flags & ~DRM_TGPU_WAIT_FLAGS) || (args->va & 7))
		return -EINVAL;
	ret = tgpu_uq_get(file, args->queue, &q);
	if (ret)
		return ret;
	ret = tgpu_vm_word(q->vm, args->va, &w);
	if (ret)
		goto out;

	/* absolute, so that a restart after a signal waits no longer */
	left = args->timeout_nsec - (s64)ktime_get_ns();
	ret = wait_event_interruptible_hrtimeout(q->uq.wait,
						 (st = tgpu_uq_wait_state(q, &w, args->value)),
						 ns_to_ktime(max_t(s64, left, 0)));
	if (!ret)
		ret = st > 0 ? 0 : st;
	tgpu_vm_word_put(&w);
out:
	tgpu_queue_put(q);
	return ret;
}

/**
 * tgpu_ioctl_user_fence() - DRM_IOCTL_TGPU_USER_FENCE
 * @ddev: the DRM device
 * @data: struct drm_tgpu_user_fence
 * @file: the DRM file that owns the queue and the syncobj
 *
 * Return: 0 on success, a negative errno otherwise (see the uAPI header).
 */
int tgpu_ioctl_user_fence(struct drm_device *ddev, void *data,
			  struct drm_file *file)
{
	struct drm_tgpu_user_fence *args = data;
	struct drm_syncobj *syncobj;
	struct tgpu_ufence *f;
	struct tgpu_queue *q;
	unsigned long flags;
	int ret, error;

	if (args->flags || args->pad || (args->va & 7))
		return -EINVAL;
	ret = tgpu_uq_get(file, args->queue, &q);
	if (ret)
		return ret;
	syncobj = drm_syncobj_find(file, args->syncobj);
	if (!syncobj) {
		ret = -ENOENT;
		goto out;
	}
	f = kzalloc(sizeof(*f), GFP_KERNEL);
	if (!f) {
		ret = -ENOMEM;
		goto out_syncobj;
	}
	ret = tgpu_vm_word(q->vm, args->va, &f->sem);
	if (ret) {
		kfree(f);
		goto out_syncobj;
	}
	f->value = args->value;
	spin_lock_init(&f->lock);
	dma_fence_init(&f->base, &tgpu_ufence_ops, &f->lock,
		       dma_fence_context_alloc(1), 1);

	/*
	 * On the list, then the check: an interrupt before the list saw
	 * nothing, but its release is visible here.
	 */
	spin_lock_irqsave(&q->fence_lock, flags);
	error = q->error;
	if (!error) {
		f->seq = ++q->uq.fence_seq;
		list_add_tail(&f->link, &q->uq.fences);
		dma_fence_get(&f->base);
	}
	spin_unlock_irqrestore(&q->fence_lock, flags);
	if (error) {
		dma_fence_set_error(&f->base, error);
		dma_fence_signal(&f->base);
	} else {
		tgpu_uq_fences(q, 0, 0);
	}
	drm_syncobj_replace_fence(syncobj, &f->base);
	dma_fence_put(&f->base);
out_syncobj:
	drm_syncobj_put(syncobj);
out:
	tgpu_queue_put(q);
	return ret;
}

/* ---- the watchdog -------------------------------------------------------- */

/*
 * A jiffy after a check that found something the process or the device
 * may just be in the middle of:
 * - @q's non-stall interrupt pending, and still pending with none of
 *   its interrupts handled since: the message was lost;
 * - the channel idle short of the GP_PUT in USERD, and the same GP_PUT
 *   still unseen: the doorbell was lost, and is rung again;
 * - the channel in error, its error still pending and the queue still
 *   not failed: the error's interrupt was lost, and the poll handles it.
 *   Without it nothing would ever fail the queue's fences: its process
 *   would wait for ever (make soak found it).
 */
static void tgpu_uq_recheck(struct tgpu_queue *q)
{
	struct tgpu_device *tdev = q->tdev;
	u32 state, put, userd_put;
	int signals;

	if (q->uq.err_check) {
		q->uq.err_check = false;
		if (!tgpu_queue_error(q) && tgpu_irq_chan_pending(tdev, q->chid, true)) {
			tgpu_irq_poll(tdev);
			if (tgpu_queue_error(q))
				tgpu_reset_missed_irq(q, "the interrupt of its channel error");
		}
	}
	if (q->uq.irq_check) {
		q->uq.irq_check = false;
		signals = atomic_read(&q->uq.signals);
		if (signals == q->uq.irq_signals &&
		    tgpu_irq_chan_pending(tdev, q->chid, false)) {
			tgpu_irq_poll(tdev);
			if (atomic_read(&q->uq.signals) != signals)
				tgpu_reset_missed_irq(q,
						      "user-submitted work was done, its interrupt");
		}
	}
	if (!q->uq.bell_check)
		return;
	q->uq.bell_check = false;
	state = tgpu_rd32(tdev, TGPU_CHAN_REG(q->chid, TGPU_CHAN_STATUS)) &
		TGPU_CHAN_STATE_MASK;
	put = tgpu_rd32(tdev, TGPU_CHAN_REG(q->chid, TGPU_CHAN_GP_PUT));
	userd_put = readl(q->userd + TGPU_USERD_GP_PUT);
	if (state != TGPU_CHAN_STATE_IDLE || put == userd_put ||
	    userd_put != q->uq.bell_put)
		return;
	dev_warn_ratelimited(tdev->base.dev,
			     "channel %u (pid %d, %s): the device has GP_PUT %u, USERD %u: doorbell lost, rung again\n",
			     q->chid, pid_nr(q->pid), q->comm, put, userd_put);
	tgpu_wr32(tdev, TGPU_USERMODE_DOORBELL, q->chid);
}

/**
 * tgpu_uq_forget() - a device reset started @q's channel again: what
 *	the watchdog saw of it before is gone
 * @q: the queue
 */
void tgpu_uq_forget(struct tgpu_queue *q)
{
	q->uq.snap.valid = false;
	q->uq.snap.busy_valid = false;
	q->uq.snap.ran_ns = 0;
	q->uq.rearms = 0;
	q->uq.irq_check = false;
	q->uq.bell_check = false;
	q->uq.err_check = false;
}

/*
 * Has another queue of @q's process work on the device (PENDING or
 * RUNNING)?  A channel blocked on an acquire may be waiting for it: a
 * stream's copy for its kernel, which higher priorities keep off the
 * engine.  That queue's own check judges whether it hangs.
 */
static bool tgpu_uq_vm_busy(struct tgpu_queue *q)
{
	struct tgpu_device *tdev = q->tdev;
	struct tgpu_queue *other;
	unsigned long flags;
	bool busy = false;
	u32 st;

	spin_lock_irqsave(&tdev->queues_lock, flags);
	list_for_each_entry(other, &tdev->queues, dev_link) {
		if (other == q || other->vm != q->vm || READ_ONCE(other->error))
			continue;
		st = tgpu_rd32(tdev, TGPU_CHAN_REG(other->chid,
						   TGPU_CHAN_STATUS)) &
		     TGPU_CHAN_STATE_MASK;
		if (st == TGPU_CHAN_STATE_PENDING ||
		    st == TGPU_CHAN_STATE_RUNNING) {
			busy = true;
			break;
		}
	}
	spin_unlock_irqrestore(&tdev->queues_lock, flags);
	return busy;
}

static void tgpu_uq_watchdog(struct work_struct *work)
{
	struct tgpu_queue *q = container_of(to_delayed_work(work),
					    struct tgpu_queue, uq.watchdog);
	struct tgpu_device *tdev = q->tdev;
	u32 state, get, put, userd_put, last_gp;
	unsigned long flags, delay;
	bool moved, had_snap;
	int idx, signals;
	u64 fences;

	if (tgpu_queue_error(q) || !drm_dev_enter(&tdev->base, &idx))
		return;
	delay = msecs_to_jiffies(q->timeout_ms);
	/*
	 * A device reset is under way: it fails the queue, or it lives on,
	 * and what a check saw before it is gone.  (A reset from sysfs or
	 * AER flushes this work after it sets reset.device; the driver's
	 * own runs on the same ordered workqueue.)
	 */
	if (READ_ONCE(tdev->reset.device) || tgpu_reset_check_bus(tdev)) {
		tgpu_uq_forget(q);
		goto rearm;
	}
	if (q->uq.err_check) {
		tgpu_uq_recheck(q);
		goto out;
	}
	if (q->uq.irq_check || q->uq.bell_check) {
		tgpu_uq_recheck(q);
		delay = delay > 1 ? delay - 1 : 1;
		goto rearm;
	}
	/*
	 * The fences made so far, before the channel is looked at: their
	 * work was published (USER_FENCE comes after the doorbell), so the
	 * GP_PUT read below covers it.  A later one may be for work pushed
	 * after that read, and an idle channel says nothing about it.
	 */
	spin_lock_irqsave(&q->fence_lock, flags);
	fences = q->uq.fence_seq;
	spin_unlock_irqrestore(&q->fence_lock, flags);
	/*
	 * A lost interrupt: the status bits are set anyway.  One pending
	 * now may be on its way, so it is lost when it still is a moment
	 * later.
	 */
	if (tgpu_irq_chan_pending(tdev, q->chid, false)) {
		q->uq.irq_signals = atomic_read(&q->uq.signals);
		q->uq.irq_check = true;
	}

	/*
	 * The GP_PUTs first, then the channel: read after it, a GP_PUT the
	 * process published and rang for in between would be ahead of a
	 * GP_GET from before, with the channel moving on unseen (make soak
	 * saw an idle innocent declared hung that way).
	 */
	userd_put = readl(q->userd + TGPU_USERD_GP_PUT);
	put = tgpu_rd32(tdev, TGPU_CHAN_REG(q->chid, TGPU_CHAN_GP_PUT));
	last_gp = q->uq.snap.gp;
	had_snap = q->uq.snap.valid;
	moved = tgpu_reset_moved(q, &q->uq.snap, &state);
	get = q->uq.snap.gp;
	/*
	 * GP_GET wraps: a busy ring can be back where it was a period ago.
	 * Its work's interrupts since then are progress too.
	 */
	signals = atomic_read(&q->uq.signals);
	if (had_snap && signals != q->uq.snap_signals) {
		moved = true;
		last_gp = get + 1;	/* as a fetch: the budget starts again */
	}
	q->uq.snap_signals = signals;
	if (tgpu_queue_error(q))
		goto out;	/* the interrupt handler had it */
	if (state == TGPU_CHAN_STATE_ERROR) {
		/*
		 * The interrupt handler has it.  Its error still pending a
		 * jiffy from now, the queue not failed: the interrupt was
		 * lost.  Either way that check is the last.
		 */
		if (!tgpu_irq_chan_pending(tdev, q->chid, true))
			goto out;
		q->uq.err_check = true;
		goto rearm;
	}

	if (state == TGPU_CHAN_STATE_IDLE && put != userd_put) {
		/*
		 * The process published a GP_PUT the device has not seen.
		 * It may be between its USERD store and its doorbell: look
		 * again in a jiffy (tgpu_uq_recheck()).
		 */
		q->uq.bell_put = userd_put;
		q->uq.bell_check = true;
		goto rearm;
	}
	/*
	 * Behind the process's GP_PUT (a blocked channel has not read it
	 * yet), or all fetched: once idle, a fence not reached never will be.
	 */
	if (moved || get == (userd_put & (TGPU_Q_GPFIFO_ENTRIES - 1)))
		q->uq.progress_ns = ktime_get_ns();
	if (get == (userd_put & (TGPU_Q_GPFIFO_ENTRIES - 1))) {
		q->uq.rearms = 0;
		q->uq.snap.ran_ns = 0;
		if (state == TGPU_CHAN_STATE_IDLE)
			tgpu_uq_fences(q, -ETIME, fences);
		goto rearm;
	}
	/* a fetch is progress enough: the budget starts again */
	if (had_snap && get != last_gp) {
		/* the period of the fetch counts, as one re-arm */
		q->uq.rearms = 0;
		q->uq.snap.ran_ns = q->uq.snap.last_ns;
	}
	if (moved && tgpu_reset_budget_left(q, &q->uq.snap)) {
		q->uq.rearms++;
		goto rearm;
	}
	/* an idle channel took all it saw: never hung (lost doorbells above) */
	if (state == TGPU_CHAN_STATE_IDLE)
		goto rearm;
	/*
	 * Blocked behind its own process's work that is still on the
	 * device: waiting, not hung (make check's soak saw a stream's copy,
	 * blocked for its kernel behind three priority workers for 2 s,
	 * killed).  With nothing of its process left to release it, it is.
	 */
	if (state == TGPU_CHAN_STATE_BLOCKED && tgpu_uq_vm_busy(q)) {
		q->uq.progress_ns = ktime_get_ns();
		goto rearm;
	}
	tgpu_reset_user_hang(tdev, q, state, moved);
	goto out;

rearm:
	if (q->uq.irq_check || q->uq.bell_check || q->uq.err_check)
		delay = 1;
	if (q->timeout_ms)
		queue_delayed_work(tdev->reset.wq, &q->uq.watchdog, delay);
out:
	drm_dev_exit(idx);
}

/**
 * tgpu_uq_start() - a user-submit queue's channel runs: check it
 * @q: the queue
 *
 * Every timeout_ms; a queue with no timeout (CAP_SYS_NICE) is never
 * checked.
 */
void tgpu_uq_start(struct tgpu_queue *q)
{
	q->uq.progress_ns = ktime_get_ns();
	/* the engine time its work has from here on is charged to it */
	q->uq.snap.busy = tgpu_queue_busy_ns(q);
	q->uq.snap.busy_valid = q->uq.snap.busy != U64_MAX;
	if (q->timeout_ms)
		queue_delayed_work(q->tdev->reset.wq, &q->uq.watchdog,
				   msecs_to_jiffies(q->timeout_ms));
}

/**
 * tgpu_uq_stop() - stop checking a queue being destroyed
 * @q: the queue, failed already (so that the check does not re-arm)
 */
void tgpu_uq_stop(struct tgpu_queue *q)
{
	cancel_delayed_work_sync(&q->uq.watchdog);
}

/* ---- the doorbell page --------------------------------------------------- */

/*
 * Faults map the page while the device is there and its BARs decode; a
 * device reset zaps it (tgpu_bars_freeze()), and an access waits for the
 * reset's end.  After unplug the mapping gets a page of its own.
 */
static vm_fault_t tgpu_doorbell_fault(struct vm_fault *vmf)
{
	struct vm_area_struct *vma = vmf->vma;
	struct drm_file *file = vma->vm_file->private_data;
	struct tgpu_device *tdev = to_tgpu_device(file->minor->dev);
	vm_fault_t ret;
	int idx, bars;

	if (!drm_dev_enter(&tdev->base, &idx))
		return tgpu_fault_unplugged(&tdev->base, vmf);
	if (tgpu_bars_enter_killable(tdev, &bars)) {
		drm_dev_exit(idx);
		return VM_FAULT_NOPAGE;	/* killed: the access never resumes */
	}
	ret = vmf_insert_pfn_prot(vma, vmf->address,
				  PHYS_PFN(pci_resource_start(tdev->pdev, 0) +
					   TGPU_USERMODE_BASE),
				  vma->vm_page_prot);
	tgpu_bars_exit(tdev, bars);
	drm_dev_exit(idx);
	return ret;
}

static const struct vm_operations_struct tgpu_doorbell_vm_ops = {
	.fault = tgpu_doorbell_fault,
};

static int tgpu_doorbell_mmap(struct vm_area_struct *vma)
{
	if (vma->vm_end - vma->vm_start != PAGE_SIZE ||
	    !(vma->vm_flags & VM_SHARED))
		return -EINVAL;
	if (vma->vm_flags & VM_EXEC)
		return -EPERM;
	vm_flags_mod(vma, VM_IO | VM_PFNMAP | VM_DONTEXPAND | VM_DONTDUMP |
			  VM_DONTCOPY, VM_MAYEXEC);
	vma->vm_page_prot = pgprot_noncached(vm_get_page_prot(vma->vm_flags));
	vma->vm_ops = &tgpu_doorbell_vm_ops;
	return 0;
}

/**
 * tgpu_mmap() - the DRM file's mmap: the doorbell page, or a GEM object
 * @filp: the file
 * @vma: the new mapping
 *
 * Return: 0, or a negative errno.
 */
int tgpu_mmap(struct file *filp, struct vm_area_struct *vma)
{
	if (vma->vm_pgoff == TGPU_DOORBELL_PGOFF)
		return tgpu_doorbell_mmap(vma);
	return drm_gem_mmap(filp, vma);
}
