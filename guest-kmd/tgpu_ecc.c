// SPDX-License-Identifier: GPL-2.0-only OR MIT
/* Copyright (c) 2026 The tgpu authors */

#include <linux/error-injection.h>
#include <linux/iopoll.h>
#include <linux/kstrtox.h>
#include <linux/mm.h>
#include <linux/moduleparam.h>
#include <linux/pci.h>
#include <linux/sched.h>
#include <linux/seq_file.h>
#include <linux/sizes.h>

#include <drm/drm_drv.h>
#include <drm/drm_managed.h>
#include <drm/drm_print.h>

#include <tgpu/channel.h>

#include "tgpu_device.h"
#include "tgpu_ecc.h"
#include "tgpu_queue.h"
#include "tgpu_reset.h"
#include "tgpu_sched.h"
#include "tgpu_vm.h"
#include "tgpu_vram.h"

static unsigned int tgpu_retire_limit = TGPU_INFOROM_MAX_RETIRED;
module_param_named(ecc_retire_limit, tgpu_retire_limit, uint, 0644);
MODULE_PARM_DESC(ecc_retire_limit,
		 "retired VRAM pages beyond which the device counts as degraded (default 64, the InfoROM's capacity)");

/* Poll interval while the scrub runs, and slack on top of its duration. */
#define TGPU_ECC_POLL_US	1000
#define TGPU_ECC_SLACK_US	(2 * USEC_PER_SEC)

static u32 tgpu_ecc_state(struct tgpu_device *tdev)
{
	return tgpu_rd32(tdev, TGPU_ECC_STATUS) & TGPU_ECC_STATE_MASK;
}

/*
 * ECC comes up disabled and can only be switched while no channel is
 * enabled: the kernel channel comes later in the probe.  The scrub is
 * modelled at TGPU_ECC_SCRUB_NS_PER_MIB; under emulation the virtual
 * clock may run slow, hence four times that plus slack.
 */
static void tgpu_ecc_enable(struct tgpu_device *tdev)
{
	struct drm_device *ddev = &tdev->base;
	struct tgpu_ecc *ecc = &tdev->ecc;
	u64 timeout_us;
	u32 status;
	int ret;

	if (tgpu_ecc_state(tdev) != TGPU_ECC_STATE_ENABLED) {
		/* no stale refusal (the probe stopped every channel before) */
		tgpu_wr32(tdev, TGPU_ECC_STATUS, TGPU_ECC_STATUS_ERR_MASK);
		tgpu_wr32(tdev, TGPU_ECC_CTRL, TGPU_ECC_CTRL_ENABLE);
		status = tgpu_rd32(tdev, TGPU_ECC_STATUS);
		if (status & TGPU_ECC_STATUS_ERR_MASK) {
			tgpu_wr32(tdev, TGPU_ECC_STATUS,
				  status & TGPU_ECC_STATUS_ERR_MASK);
			drm_err(ddev, "ECC: enable refused (ECC_STATUS 0x%08x%s): running with ECC disabled\n",
				status, status & TGPU_ECC_STATUS_ERR_BUSY ?
				", a channel is enabled" : "");
			return;
		}
		timeout_us = div_u64(tdev->id.vram_size, SZ_1M) *
			     TGPU_ECC_SCRUB_NS_PER_MIB * 4 / NSEC_PER_USEC +
			     TGPU_ECC_SLACK_US;
		ret = read_poll_timeout(tgpu_ecc_state, status,
					status == TGPU_ECC_STATE_ENABLED,
					TGPU_ECC_POLL_US, timeout_us, false, tdev);
		if (ret) {
			tgpu_wr32(tdev, TGPU_ECC_CTRL, 0);
			drm_err(ddev, "ECC: the VRAM scrub did not finish in %llu ms (state %u): running with ECC disabled\n",
				div_u64(timeout_us, USEC_PER_MSEC), status);
			return;
		}
	}
	/* polled, not an interrupt: drop the scrub-done bit */
	tgpu_wr32(tdev, TGPU_ECC_INTR, TGPU_ECC_INTR_SCRUB_DONE);
	/* errors interrupt (vector 3); the interrupt setup enables the unit */
	tgpu_wr32(tdev, TGPU_ECC_INTR_EN,
		  TGPU_ECC_INTR_SBE | TGPU_ECC_INTR_DBE);
	ecc->scrub_ns = (u64)tgpu_rd32(tdev, TGPU_ECC_SCRUB_NS_HI) << 32 |
			tgpu_rd32(tdev, TGPU_ECC_SCRUB_NS_LO);
	ecc->enabled = true;
	drm_info(ddev, "ECC enabled (VRAM scrub %llu us)\n",
		 div_u64(ecc->scrub_ns, NSEC_PER_USEC));
}

/* Read the InfoROM's list and keep those pages out of the allocator. */
static void tgpu_ecc_retire_pages(struct tgpu_device *tdev)
{
	struct drm_device *ddev = &tdev->base;
	struct tgpu_ecc *ecc = &tdev->ecc;
	struct tgpu_retired_page *rp;
	u32 count, i;
	int ret;

	count = tgpu_rd32(tdev, TGPU_ECC_RETIRED_COUNT);
	/* more than the store holds: not a store (TGPU_REG_BADF, a dead bus) */
	if (count > TGPU_INFOROM_MAX_RETIRED) {
		drm_warn(ddev, "ECC: ECC_RETIRED_COUNT reads 0x%08x, more than the InfoROM holds (%u): no retired pages reserved\n",
			 count, TGPU_INFOROM_MAX_RETIRED);
		return;
	}
	for (i = 0; i < count; i++) {
		rp = &ecc->retired[ecc->nr_retired];
		tgpu_wr32(tdev, TGPU_ECC_RETIRED_SELECT, i);
		rp->addr = (u64)tgpu_rd32(tdev, TGPU_ECC_RETIRED_ADDR_HI) << 32 |
			   tgpu_rd32(tdev, TGPU_ECC_RETIRED_ADDR_LO);
		rp->cause = tgpu_rd32(tdev, TGPU_ECC_RETIRED_CAUSE);
		rp->time = (u64)tgpu_rd32(tdev, TGPU_ECC_RETIRED_TIME_HI) << 32 |
			   tgpu_rd32(tdev, TGPU_ECC_RETIRED_TIME_LO);
		if (!IS_ALIGNED(rp->addr, SZ_4K) ||
		    rp->addr >= tdev->vram.size) {
			drm_warn(ddev, "ECC: retired page %u at 0x%llx is not a page of VRAM, ignored\n",
				 i, rp->addr);
			continue;
		}
		/* CPU faults read the list without the lock */
		smp_store_release(&ecc->nr_retired, ecc->nr_retired + 1);
		ret = tgpu_vram_reserve(tdev, rp->addr, SZ_4K);
		if (ret) {
			atomic_inc(&ecc->nr_pending);
			drm_err(ddev, "ECC: cannot reserve retired page 0x%llx (%d): it may be handed out\n",
				rp->addr, ret);
			continue;
		}
		rp->reserved = true;
	}
	if (ecc->nr_retired)
		drm_info(ddev, "ECC: %u retired pages reserved\n",
			 ecc->nr_retired);
}

static void tgpu_ecc_work(struct work_struct *work);

static void tgpu_ecc_fini(struct drm_device *ddev, void *data)
{
	destroy_workqueue(to_tgpu_device(ddev)->ecc.wq);
}

/**
 * tgpu_ecc_init() - enable ECC and reserve the retired pages
 * @tdev: the device, with the VRAM allocator and nothing allocated yet
 *
 * Must run before any channel is enabled (ECC cannot change under one)
 * and before anything allocates VRAM (a retired page must never be
 * handed out).  A board without ECC, a refused enable or a scrub that
 * does not finish leave ECC disabled: logged, not a probe failure.
 *
 * Return: 0, or a negative errno when the driver's state cannot be set up.
 */
int tgpu_ecc_init(struct tgpu_device *tdev)
{
	struct tgpu_ecc *ecc = &tdev->ecc;
	int ret;

	ret = drmm_mutex_init(&tdev->base, &ecc->lock);
	if (ret)
		return ret;
	/* the reset workqueue waits for it (a dump of an ECC error) */
	ecc->wq = alloc_ordered_workqueue("tgpu-ecc", WQ_MEM_RECLAIM);
	if (!ecc->wq)
		return -ENOMEM;
	ret = drmm_add_action_or_reset(&tdev->base, tgpu_ecc_fini, NULL);
	if (ret)
		return ret;
	INIT_WORK(&ecc->work, tgpu_ecc_work);
	ecc->capable = tgpu_rd32(tdev, TGPU_ECC_CAPS) & TGPU_ECC_CAPS_ECC;
	if (ecc->capable)
		tgpu_ecc_enable(tdev);
	else
		drm_info(&tdev->base, "ECC: not supported by this board\n");
	ecc->pending = ecc->enabled;
	tgpu_ecc_retire_pages(tdev);
	return 0;
}
ALLOW_ERROR_INJECTION(tgpu_ecc_init, ERRNO);

/**
 * tgpu_ecc_resume() - ECC after a device reset
 * @tdev: the device, with every channel disabled (as a reset leaves it)
 *
 * A reset turns ECC off; it comes back on as at probe, after its scrub,
 * unless sysfs ecc_mode asked for it off (pending: this is when a mode
 * change takes effect).
 */
void tgpu_ecc_resume(struct tgpu_device *tdev)
{
	tdev->ecc.enabled = false;
	if (tdev->ecc.capable && READ_ONCE(tdev->ecc.pending))
		tgpu_ecc_enable(tdev);
	else if (tdev->ecc.capable)
		drm_info(&tdev->base, "ECC disabled (ecc_mode)\n");
}

/* ---- errors -------------------------------------------------------------- */

/* The retired page holding @addr, or NULL.  Any context. */
static struct tgpu_retired_page *tgpu_ecc_find(struct tgpu_device *tdev,
					       u64 addr)
{
	struct tgpu_ecc *ecc = &tdev->ecc;
	u32 i, n;

	/* pairs with the release that publishes an entry: it is written */
	n = smp_load_acquire(&ecc->nr_retired);
	addr &= ~(u64)(SZ_4K - 1);
	for (i = 0; i < n; i++)
		if (ecc->retired[i].addr == addr)
			return &ecc->retired[i];
	return NULL;
}

/**
 * tgpu_ecc_page_poisoned() - does a VRAM page hold an uncorrectable error
 * @tdev: the device
 * @addr: a VRAM address
 *
 * A page retired for a DBE: CPU faults do not map it (SIGBUS), and the
 * driver's own CPU reads (devcoredump, debugfs) skip it, which would
 * only raise the error again.  A page retired for corrected errors still
 * reads right: it is only kept out of new allocations.  Any context.
 *
 * Return: true when the page holding @addr was retired for a DBE.
 */
bool tgpu_ecc_page_poisoned(struct tgpu_device *tdev, u64 addr)
{
	struct tgpu_retired_page *rp = tgpu_ecc_find(tdev, addr);

	return rp && rp->cause == TGPU_RETIRED_CAUSE_DBE;
}

/*
 * Retire @page (with the ECC lock): into the InfoROM through the
 * device (Xid 63), and out of the allocator now if it is free; else
 * pending, until the driver's next load (NVIDIA's dynamic page
 * retirement).  A page the store cannot take marks the device degraded
 * (Xid 64), as does going past the retirement limit.
 */
static void tgpu_ecc_retire(struct tgpu_device *tdev, u64 page, u32 cause)
{
	struct tgpu_ecc *ecc = &tdev->ecc;
	struct tgpu_retired_page *rp;
	u32 status;

	if (tgpu_ecc_find(tdev, page))
		return;
	tgpu_wr32(tdev, TGPU_ECC_RETIRE_ADDR_LO, lower_32_bits(page));
	tgpu_wr32(tdev, TGPU_ECC_RETIRE_ADDR_HI, upper_32_bits(page));
	tgpu_wr32(tdev, TGPU_ECC_RETIRE_CAUSE, cause);
	tgpu_wr32(tdev, TGPU_ECC_RETIRE, 1);
	status = tgpu_rd32(tdev, TGPU_ECC_RETIRE_STATUS);
	if (status != TGPU_ECC_RETIRE_DONE ||
	    ecc->nr_retired >= TGPU_INFOROM_MAX_RETIRED) {
		ecc->degraded = true;
		tgpu_xid(tdev, TGPU_XID_RETIRE_FAILED,
			 "ECC page retirement failed: page 0x%llx (%s), RETIRE_STATUS 0x%08x%s: the device is degraded; replace the board\n",
			 page, tgpu_retired_cause_name(cause), status,
			 status & TGPU_ECC_RETIRE_ERR_FULL ?
			 " (the InfoROM is full)" : "");
		return;
	}
	rp = &ecc->retired[ecc->nr_retired];
	rp->addr = page;
	rp->cause = cause;
	rp->time = ktime_get_real_seconds();
	rp->reserved = !tgpu_vram_reserve(tdev, page, SZ_4K);
	if (!rp->reserved)
		atomic_inc(&ecc->nr_pending);
	/* the entry, then the count: lockless readers see it whole */
	smp_store_release(&ecc->nr_retired, ecc->nr_retired + 1);
	tgpu_xid(tdev, TGPU_XID_RETIRED,
		 "ECC page retirement recorded: page 0x%llx (%s), %s\n", page,
		 tgpu_retired_cause_name(cause), rp->reserved ?
		 "out of use now" :
		 "pending: in use, out of use from the next driver load");
	if (ecc->nr_retired > READ_ONCE(tgpu_retire_limit) && !ecc->degraded) {
		ecc->degraded = true;
		drm_err(&tdev->base, "ECC: device degraded: %u retired pages, more than the limit of %u (tgpu.ecc_retire_limit): replace the board\n",
			ecc->nr_retired, READ_ONCE(tgpu_retire_limit));
	}
}

/**
 * tgpu_ecc_take_pending() - keep out pending pages that are free now
 * @tdev: the device, with the VRAM allocator's lock
 *
 * Called by tgpu_vram_free() after it gave blocks back, before anyone
 * else can allocate: a retired page still in use when it was retired
 * goes out of use once its owner lets go of it, not only at the next
 * driver load.
 */
void tgpu_ecc_take_pending(struct tgpu_device *tdev)
{
	struct tgpu_ecc *ecc = &tdev->ecc;
	struct tgpu_retired_page *rp;
	u32 i, n;

	if (!atomic_read(&ecc->nr_pending))
		return;
	/* entries are published before they count; only this flips them */
	n = smp_load_acquire(&ecc->nr_retired);
	for (i = 0; i < n; i++) {
		rp = &ecc->retired[i];
		if (READ_ONCE(rp->reserved) ||
		    tgpu_vram_reserve_locked(tdev, rp->addr, SZ_4K))
			continue;
		WRITE_ONCE(rp->reserved, true);
		atomic_dec(&ecc->nr_pending);
		drm_info(&tdev->base, "ECC: retired page 0x%llx (%s) is free: out of use from now\n",
			 rp->addr, tgpu_retired_cause_name(rp->cause));
	}
}

/* A corrected error at @page: the second on one page retires it. */
static void tgpu_ecc_sbe(struct tgpu_device *tdev, u64 page)
{
	struct tgpu_ecc *ecc = &tdev->ecc;
	u32 i;

	for (i = 0; i < TGPU_ECC_SBE_PAGES; i++)
		if (ecc->sbe_page[i].count && ecc->sbe_page[i].page == page)
			break;
	if (i == TGPU_ECC_SBE_PAGES) {
		i = ecc->sbe_next;
		ecc->sbe_next = (i + 1) % TGPU_ECC_SBE_PAGES;
		ecc->sbe_page[i].page = page;
		ecc->sbe_page[i].count = 0;
	}
	if (++ecc->sbe_page[i].count == 2)
		tgpu_ecc_retire(tdev, page, TGPU_RETIRED_CAUSE_SBE);
}

/*
 * An uncorrectable error at @addr, read by @reader for channel @chid:
 * the device contained it (the reader's channel failed).  Every queue
 * whose VM maps the page stops too, its fences failing with -EIO and
 * its error ECC_UNCORRECTABLE; CPU mappings of VRAM objects are zapped,
 * and faults refuse the page from here on (SIGBUS).  With the reset
 * lock, the runlist lock and the ECC lock.
 */
static void tgpu_ecc_dbe(struct tgpu_device *tdev, u64 addr, u32 reader,
			 u32 chid)
{
	u64 page = addr & ~(u64)(SZ_4K - 1);
	unsigned int r, stopped = 0;
	char who[TASK_COMM_LEN + 24] = "";
	struct tgpu_queue *q;
	unsigned long flags;

	for (r = 0; r < TGPU_NR_RUNLISTS; r++) {
		list_for_each_entry(q, &tdev->rl[r].queues, rl_link) {
			/* the Xid line names the reader's process */
			if (q->chid == chid)
				snprintf(who, sizeof(who), " (pid %d, %s)",
					 pid_nr(q->pid), q->comm);
			if (tgpu_queue_error(q) ||
			    !tgpu_vm_maps_vram(q->vm, page))
				continue;
			spin_lock_irqsave(&q->fence_lock, flags);
			if (!q->error) {
				q->chan_error = TGPU_ERR_ECC_UNCORRECTABLE;
				q->chan_error_info = reader;
				q->fault_va = 0;
				q->error = -EIO;
			}
			spin_unlock_irqrestore(&q->fence_lock, flags);
			/* stopped before its fences fail: it may be writing */
			tgpu_wr32(tdev, TGPU_CHAN_REG(q->chid, TGPU_CHAN_CTRL),
				  TGPU_CHAN_CTRL_KILL);
			tgpu_queue_signal(q, -EIO);
			dev_err_ratelimited(tdev->base.dev,
					    "ECC: channel %u (pid %d, %s) maps page 0x%llx: stopped, its unfinished jobs fail with -EIO\n",
					    q->chid, pid_nr(q->pid), q->comm, page);
			stopped++;
		}
	}
	tgpu_xid(tdev, TGPU_XID_DBE,
		 "uncorrectable ECC error at 0x%llx (page 0x%llx), read by the %s, channel %d%s: %u more channels mapping the page stopped; the page is retired\n",
		 addr, page, tgpu_ecc_engine_name(reader),
		 chid == TGPU_ECC_NO_CHID ? -1 : (int)chid, who, stopped);
	tgpu_ecc_retire(tdev, page, TGPU_RETIRED_CAUSE_DBE);
}

/*
 * The error work (its own workqueue, not the reset one: it may wait for
 * a VM's lock and allocate): the address log, oldest first, then
 * emptied.  An error logged between the read and the clear is counted
 * by the device's counters, but its address is lost, as with an
 * overflow.
 */
static void tgpu_ecc_work(struct work_struct *work)
{
	struct tgpu_device *tdev = container_of(work, struct tgpu_device,
						ecc.work);
	struct tgpu_ecc *ecc = &tdev->ecc;
	u32 count, i, info, type;
	bool dbe = false;
	int idx, bars;
	u64 addr;

	if (!drm_dev_enter(&tdev->base, &idx))
		return;
	/* a device reset under way queues the work again at its end */
	if (READ_ONCE(tdev->reset.lost) || !tgpu_bars_tryenter(tdev, &bars))
		goto out;
	/* the runlists stay as they are: a recovery holds this lock too */
	mutex_lock(&tdev->rl_lock);
	mutex_lock(&ecc->lock);
	count = min_t(u32, tgpu_rd32(tdev, TGPU_ECC_LOG_COUNT),
		      TGPU_ECC_LOG_ENTRIES);
	if (tgpu_rd32(tdev, TGPU_ECC_LOG_STATUS) & TGPU_ECC_LOG_OVERFLOW) {
		ecc->log_overflows++;
		dev_warn_ratelimited(tdev->base.dev, "ECC: the address log overflowed: the addresses of some errors are lost (the counters have them)\n");
	}
	for (i = 0; i < count; i++) {
		tgpu_wr32(tdev, TGPU_ECC_LOG_SELECT, i);
		addr = (u64)tgpu_rd32(tdev, TGPU_ECC_LOG_ADDR_HI) << 32 |
		       tgpu_rd32(tdev, TGPU_ECC_LOG_ADDR_LO);
		info = tgpu_rd32(tdev, TGPU_ECC_LOG_INFO);
		type = info & TGPU_ECC_LOG_TYPE_MASK;
		if (addr >= tdev->vram.size)
			continue;
		if (type == TGPU_ECC_TYPE_SBE) {
			tgpu_ecc_sbe(tdev, addr & ~(u64)(SZ_4K - 1));
		} else if (type == TGPU_ECC_TYPE_DBE) {
			tgpu_ecc_dbe(tdev, addr,
				     (info >> TGPU_ECC_LOG_ENGINE_SHIFT) &
				     TGPU_ECC_LOG_ENGINE_MASK,
				     (info >> TGPU_ECC_LOG_CHID_SHIFT) &
				     TGPU_ECC_LOG_CHID_MASK);
			dbe = true;
		}
	}
	tgpu_wr32(tdev, TGPU_ECC_LOG_CLEAR, 1);
	mutex_unlock(&ecc->lock);
	mutex_unlock(&tdev->rl_lock);
	tgpu_bars_exit(tdev, bars);
	if (dbe) {
		/*
		 * A fault that checked the page before it was published
		 * may still be mapping it: wait for such faults (they are
		 * in the SRCU section), then zap.  Refaults map everything
		 * but the poisoned page.
		 */
		synchronize_srcu(&tdev->reset.bars);
		unmap_mapping_range(tdev->base.anon_inode->i_mapping, 0, 0, 1);
	}
out:
	drm_dev_exit(idx);
}

/**
 * tgpu_ecc_irq() - the ECC unit's interrupt
 * @tdev: the device
 *
 * Acknowledges SBE and DBE and leaves the rest to the error work.  With
 * the interrupt lock.
 */
void tgpu_ecc_irq(struct tgpu_device *tdev)
{
	u32 intr = tgpu_rd32(tdev, TGPU_ECC_INTR);

	if (intr == U32_MAX) {
		tgpu_reset_check_bus_soon(tdev);
		return;
	}
	intr &= TGPU_ECC_INTR_SBE | TGPU_ECC_INTR_DBE;
	if (!intr)
		return;
	tgpu_wr32(tdev, TGPU_ECC_INTR, intr);
	atomic64_inc(&tdev->irq.ecc);
	queue_work(tdev->ecc.wq, &tdev->ecc.work);
}

/**
 * tgpu_ecc_inject() - arm an ECC error, as the monitor's tgpu-inject-ecc
 * @tdev: the device
 * @addr: VRAM address of the 64-bit word, 8-aligned
 * @dbe: a double-bit error, else a single-bit one
 * @sticky: every read until the word is written, else the next one
 *
 * For debugfs ecc_inject: tests that run entirely in the guest.
 *
 * Return: 0, -EINVAL for a bad address, -ENOSPC with 64 pending, -ENODEV.
 */
int tgpu_ecc_inject(struct tgpu_device *tdev, u64 addr, bool dbe, bool sticky)
{
	u64 mask = dbe ? 0x3 : 0x1;
	int idx, bars;
	u32 status;

	if (!drm_dev_enter(&tdev->base, &idx))
		return -ENODEV;
	if (tgpu_bars_enter_killable(tdev, &bars)) {
		drm_dev_exit(idx);
		return -EINTR;
	}
	/* one writer's ADDR, MASK, MODE and ARM at a time */
	mutex_lock(&tdev->ecc.lock);
	tgpu_wr32(tdev, TGPU_ECC_INJ_STATUS, TGPU_ECC_INJ_ERR_ALL);
	tgpu_wr32(tdev, TGPU_ECC_INJ_ADDR_LO, lower_32_bits(addr));
	tgpu_wr32(tdev, TGPU_ECC_INJ_ADDR_HI, upper_32_bits(addr));
	tgpu_wr32(tdev, TGPU_ECC_INJ_MASK_LO, lower_32_bits(mask));
	tgpu_wr32(tdev, TGPU_ECC_INJ_MASK_HI, upper_32_bits(mask));
	tgpu_wr32(tdev, TGPU_ECC_INJ_MODE,
		  sticky ? TGPU_ECC_INJ_STICKY : TGPU_ECC_INJ_ONCE);
	tgpu_wr32(tdev, TGPU_ECC_INJ_ARM, 1);
	status = tgpu_rd32(tdev, TGPU_ECC_INJ_STATUS);
	mutex_unlock(&tdev->ecc.lock);
	tgpu_bars_exit(tdev, bars);
	drm_dev_exit(idx);
	if (status & TGPU_ECC_INJ_ERR_FULL)
		return -ENOSPC;
	if (status & TGPU_ECC_INJ_ERR_ALL)
		return -EINVAL;
	return 0;
}

/**
 * tgpu_ecc_retired_count() - retired pages of one cause
 * @tdev: the device
 * @cause: TGPU_RETIRED_CAUSE_SBE or TGPU_RETIRED_CAUSE_DBE
 *
 * Return: how many of the InfoROM's pages were retired for @cause.
 */
u32 tgpu_ecc_retired_count(struct tgpu_device *tdev, u32 cause)
{
	u32 i, n = 0;

	for (i = 0; i < tdev->ecc.nr_retired; i++)
		n += tdev->ecc.retired[i].cause == cause;
	return n;
}

/**
 * tgpu_ecc_show() - the ECC state, for debugfs
 * @tdev: the device
 * @m: where to print
 */
void tgpu_ecc_show(struct tgpu_device *tdev, struct seq_file *m)
{
	struct tgpu_ecc *ecc = &tdev->ecc;
	u32 i;

	mutex_lock(&ecc->lock);
	seq_printf(m, "capable %u\nenabled %u\npending %u\nscrub_ns %llu\n",
		   ecc->capable, ecc->enabled, ecc->pending, ecc->scrub_ns);
	seq_printf(m, "degraded %u\nlog_overflows %llu\n", ecc->degraded,
		   ecc->log_overflows);
	seq_printf(m, "retired_pages %u\n", ecc->nr_retired);
	for (i = 0; i < ecc->nr_retired; i++)
		seq_printf(m, "page 0x%llx cause %s time %llu %s\n",
			   ecc->retired[i].addr,
			   tgpu_retired_cause_name(ecc->retired[i].cause),
			   ecc->retired[i].time,
			   READ_ONCE(ecc->retired[i].reserved) ? "reserved" :
			   "pending");
	for (i = 0; i < TGPU_ECC_SBE_PAGES; i++)
		if (ecc->sbe_page[i].count)
			seq_printf(m, "sbe_page 0x%llx count %u\n",
				   ecc->sbe_page[i].page,
				   ecc->sbe_page[i].count);
	mutex_unlock(&ecc->lock);
}

/* ---- sysfs, under the PCI device ------------------------------------------ */

static struct tgpu_device *tgpu_ecc_tdev(struct device *dev)
{
	return pci_get_drvdata(to_pci_dev(dev));
}

/* ecc_mode: the mode now, then the one asked for (the next device reset) */
static ssize_t ecc_mode_show(struct device *dev, struct device_attribute *attr,
			     char *buf)
{
	struct tgpu_device *tdev = tgpu_ecc_tdev(dev);

	return sysfs_emit(buf, "%u %u\n", tdev->ecc.enabled,
			  READ_ONCE(tdev->ecc.pending));
}

static ssize_t ecc_mode_store(struct device *dev,
			      struct device_attribute *attr, const char *buf,
			      size_t count)
{
	struct tgpu_device *tdev = tgpu_ecc_tdev(dev);
	bool on;
	int ret;

	ret = kstrtobool(buf, &on);
	if (ret)
		return ret;
	if (!tdev->ecc.capable)
		return -EOPNOTSUPP;
	WRITE_ONCE(tdev->ecc.pending, on);
	return count;
}
static DEVICE_ATTR_RW(ecc_mode);

/* A counter register, read outside a device reset. */
static ssize_t tgpu_ecc_counter_show(struct device *dev, char *buf, u32 reg)
{
	u32 v;
	int ret = tgpu_reg_read(tgpu_ecc_tdev(dev), reg, &v);

	return ret ? ret : sysfs_emit(buf, "%u\n", v);
}

#define TGPU_ECC_COUNTER(name, reg)					\
static ssize_t name##_show(struct device *dev,				\
			   struct device_attribute *attr, char *buf)	\
{									\
	return tgpu_ecc_counter_show(dev, buf, reg);			\
}									\
static DEVICE_ATTR_RO(name)

TGPU_ECC_COUNTER(sbe_volatile, TGPU_ECC_SBE_VOLATILE);
TGPU_ECC_COUNTER(dbe_volatile, TGPU_ECC_DBE_VOLATILE);
TGPU_ECC_COUNTER(sbe_aggregate, TGPU_ECC_SBE_AGGREGATE);
TGPU_ECC_COUNTER(dbe_aggregate, TGPU_ECC_DBE_AGGREGATE);

/* retired_pages: "ADDRESS CAUSE retired|pending", one page a line */
static ssize_t retired_pages_show(struct device *dev,
				  struct device_attribute *attr, char *buf)
{
	struct tgpu_ecc *ecc = &tgpu_ecc_tdev(dev)->ecc;
	ssize_t len = 0;
	u32 i;

	mutex_lock(&ecc->lock);
	for (i = 0; i < ecc->nr_retired; i++)
		len += sysfs_emit_at(buf, len, "0x%010llx %s %s %llu\n",
				     ecc->retired[i].addr,
				     tgpu_retired_cause_name(ecc->retired[i].cause),
				     READ_ONCE(ecc->retired[i].reserved) ?
				     "retired" : "pending",
				     ecc->retired[i].time);
	mutex_unlock(&ecc->lock);
	return len;
}
static DEVICE_ATTR_RO(retired_pages);

static ssize_t retired_pages_pending_show(struct device *dev,
					  struct device_attribute *attr,
					  char *buf)
{
	struct tgpu_ecc *ecc = &tgpu_ecc_tdev(dev)->ecc;
	u32 i, n = 0;

	mutex_lock(&ecc->lock);
	for (i = 0; i < ecc->nr_retired; i++)
		n += !READ_ONCE(ecc->retired[i].reserved);
	mutex_unlock(&ecc->lock);
	return sysfs_emit(buf, "%u\n", n);
}
static DEVICE_ATTR_RO(retired_pages_pending);

/* degraded: 1 past the retirement limit, or a page the store refused */
static ssize_t degraded_show(struct device *dev, struct device_attribute *attr,
			     char *buf)
{
	return sysfs_emit(buf, "%u\n", READ_ONCE(tgpu_ecc_tdev(dev)->ecc.degraded));
}
static DEVICE_ATTR_RO(degraded);

static struct attribute *tgpu_ecc_attrs[] = {
	&dev_attr_ecc_mode.attr,
	&dev_attr_retired_pages.attr,
	&dev_attr_retired_pages_pending.attr,
	&dev_attr_degraded.attr,
	NULL
};

const struct attribute_group tgpu_ecc_group = {
	.attrs = tgpu_ecc_attrs,
};

static struct attribute *tgpu_ecc_error_attrs[] = {
	&dev_attr_sbe_volatile.attr,
	&dev_attr_dbe_volatile.attr,
	&dev_attr_sbe_aggregate.attr,
	&dev_attr_dbe_aggregate.attr,
	NULL
};

const struct attribute_group tgpu_ecc_error_group = {
	.name = "ecc_errors",
	.attrs = tgpu_ecc_error_attrs,
};
