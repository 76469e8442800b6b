// SPDX-License-Identifier: GPL-2.0-only OR MIT
/* Copyright (c) 2026 The tgpu authors */

/*
 * The driver's own channel: channel 0 on copy engine 0, privileged and
 * unpaged (bypass: GPU addresses are VRAM offsets, system memory from
 * TGPU_BYPASS_SYSMEM_BASE up), at the highest priority.  The driver
 * clears VRAM with it (a copy-engine fill moves gigabytes per second,
 * where the CPU writing through BAR1 manages a few hundred megabytes)
 * and writes page tables with it (tgpu_pt.c: entries staged in system
 * memory, copied into the tables).  One submission at a time, waited
 * for; if the channel fails or hangs it is reset and left broken, and
 * the work goes back to the CPU.
 */

#include <linux/device.h>
#include <linux/dma-mapping.h>
#include <linux/error-injection.h>
#include <linux/gpu_buddy.h>
#include <linux/io.h>
#include <linux/jiffies.h>
#include <linux/lockdep.h>
#include <linux/moduleparam.h>
#include <linux/sched/signal.h>
#include <linux/sizes.h>

#include <drm/drm_drv.h>
#include <drm/drm_managed.h>
#include <drm/drm_print.h>

#include <tgpu/channel.h>
#include <tgpu/copy.h>
#include <tgpu/mmu.h>
#include <tgpu/regs.h>

#include "tgpu_device.h"
#include "tgpu_kchan.h"
#include "tgpu_queue.h"

/*
 * Its memory, 64 KiB of VRAM:
 *
 *   0x0000  instance block
 *   0x1000  GPFIFO ring, 512 entries
 *   0x2000  USERD
 *   0x3000  semaphore (u64)
 *   0x4000  pushbuffer, 48 KiB
 */
#define KC_INST		0x0000
#define KC_GPFIFO	0x1000
#define KC_USERD	0x2000
#define KC_SEM		0x3000
#define KC_PB		0x4000
#define KC_SIZE		0x10000
#define KC_GPFIFO_LOG2	9
#define KC_PB_DWORDS	((KC_SIZE - KC_PB) / 4)
/* a fill launch (11 dwords) and the closing release (8) must still fit */
#define KC_PB_ROOM	(11 + 8)
/* bytes per submission, so that a wait is bounded */
#define KC_BATCH_BYTES	SZ_1G
/*
 * Generous: the copy engine fills several GB/s, but a user copy on the
 * same engine is not preempted and may run until the job timeout.
 */
#define KC_TIMEOUT	(30 * HZ)

#define KC_RUNNING	1

/*
 * The page-table staging buffer, in system memory: each batch's
 * entries, then each batch's copy-engine descriptors, one per run.
 * Each batch has a small pushbuffer of its own at the start of the
 * pushbuffer area (clears, which use all of it, never run meanwhile).
 */
#define KC_PT_ENTRIES_SIZE	(TGPU_KCHAN_PT_BATCH * sizeof(u64))
#define KC_PT_DESC_SIZE		(TGPU_KCHAN_PT_SEGS * TGPU_CE_DESC_SIZE)
#define KC_PT_DESC		(2 * KC_PT_ENTRIES_SIZE)
#define KC_PT_STAGING_SIZE	(KC_PT_DESC + 2 * KC_PT_DESC_SIZE)
#define KC_PT_PB_DWORDS		64

/* A linked-list descriptor (copy.md), little-endian. */
struct kc_desc {
	__le64 src;
	__le64 dst;
	__le64 next;
	__le32 length;
	__le32 flags;
};

static_assert(sizeof(struct kc_desc) == TGPU_CE_DESC_SIZE);
static_assert(offsetof(struct kc_desc, next) == TGPU_CE_DESC_NEXT);
static_assert(offsetof(struct kc_desc, flags) == TGPU_CE_DESC_FLAGS);
static_assert(TGPU_KCHAN_PT_SEGS <= TGPU_CE_CHAIN_MAX);
/* object, constant, components, descriptor list, launch, MEM_OP; release, interrupt */
static_assert(2 + 2 + 2 + 3 + 2 + 5 + 6 + 1 <= KC_PT_PB_DWORDS);

static bool tgpu_kchan_enable = true;
module_param_named(kchan, tgpu_kchan_enable, bool, 0444);
MODULE_PARM_DESC(kchan, "Clear VRAM and write page tables with the driver's own channel on copy engine 0 (default: true); false: with the CPU, through BAR1");

struct kc_pb {
	u32 __iomem *p;
	u32 n;
};

static void kc_emit(struct kc_pb *pb, u32 method, u32 count, const u32 *data)
{
	u32 i;

	writel(TGPU_PB_HDR(TGPU_PB_OP_INC, 0, method, count), pb->p + pb->n++);
	for (i = 0; i < count; i++)
		writel(data[i], pb->p + pb->n++);
}

static void kc_emit1(struct kc_pb *pb, u32 method, u32 value)
{
	kc_emit(pb, method, 1, &value);
}

/* A pushbuffer from dword @at of the area, on the copy class. */
static void kc_begin(struct tgpu_kchan *k, struct kc_pb *pb, u32 at)
{
	const u32 a = TGPU_CE_REMAP_CONST_A;

	pb->p = k->mem.cpu + KC_PB + at * sizeof(u32);
	pb->n = 0;
	kc_emit1(pb, TGPU_M_SET_OBJECT, TGPU_CLASS_COPY);
	kc_emit1(pb, TGPU_CE_M_SET_REMAP_CONST_A, 0);
	/* elements of four 4-byte constants: 16 bytes of zeros */
	kc_emit1(pb, TGPU_CE_M_SET_REMAP_COMPONENTS,
		 TGPU_CE_REMAP(a, a, a, a, 4, 1, 4));
}

static void kc_fill(struct kc_pb *pb, u64 vram, u64 len)
{
	const u32 out[2] = { upper_32_bits(vram), lower_32_bits(vram) };

	kc_emit(pb, TGPU_CE_M_OFFSET_OUT_UPPER, 2, out);
	kc_emit1(pb, TGPU_CE_M_LINE_LENGTH_IN, (u32)(len / 16));
	kc_emit1(pb, TGPU_CE_M_LAUNCH_DMA,
		 TGPU_CE_LAUNCH(TGPU_CE_TRANSFER_PIPELINED, TGPU_CE_SEM_NONE,
				TGPU_CE_INTR_NONE) | TGPU_CE_LAUNCH_REMAP);
}

/* Mark the channel broken (the first error stays) and wake the waiter. */
static void kc_break(struct tgpu_device *tdev, int error)
{
	struct tgpu_kchan *k = &tdev->kchan;

	cmpxchg(&k->state, KC_RUNNING, error);
	wake_up_all(&k->wq);
}

/*
 * Has the semaphore reached @seqno?  Not after unplug: the unplug marks
 * the channel broken, which ends the wait.  Nor while a device reset has
 * BAR1 off (the load would read all ones): the reset breaks the channel.
 */
static bool kc_reached(struct tgpu_device *tdev, u64 seqno)
{
	bool done = false;
	int idx, bars;

	if (drm_dev_enter(&tdev->base, &idx)) {
		if (tgpu_bars_tryenter(tdev, &bars)) {
			done = readq(tdev->kchan.mem.cpu + KC_SEM) >= seqno;
			tgpu_bars_exit(tdev, bars);
		}
		drm_dev_exit(idx);
	}
	return done;
}

/* Stop channel 0 for good: nothing it was doing runs on after this. */
static void kc_stop(struct tgpu_device *tdev)
{
	tgpu_wr32(tdev, TGPU_CHAN_REG(TGPU_KCHAN_CHID, TGPU_CHAN_CTRL), 0);
	tgpu_wr32(tdev, TGPU_CHAN_REG(TGPU_KCHAN_CHID, TGPU_CHAN_CTRL),
		  TGPU_CHAN_CTRL_RESET);
}

/*
 * Close the pushbuffer with a semaphore release and a non-stall
 * interrupt and hand it to the channel; @seqno: the semaphore value that
 * says it is done.  With @k->lock.
 */
static int kc_kick(struct tgpu_device *tdev, struct kc_pb *pb, u64 *seqno_out)
{
	struct tgpu_kchan *k = &tdev->kchan;
	const u64 seqno = ++k->seqno;
	u32 rel[TGPU_SEM_DWORDS];
	unsigned int i;
	u64 entry;
	int idx;

	tgpu_pb_sem(rel, k->mem.addr + KC_SEM, seqno,
		    TGPU_SEM_OP_RELEASE | TGPU_SEM_PAYLOAD_64);
	for (i = 0; i < TGPU_SEM_DWORDS; i++)
		writel(rel[i], pb->p + pb->n++);
	writel(TGPU_PB_HDR(TGPU_PB_OP_IMMD, 0, TGPU_M_NON_STALL_INTERRUPT, 0),
	       pb->p + pb->n++);

	if (!drm_dev_enter(&tdev->base, &idx))
		return -ENODEV;
	entry = TGPU_GP_ENTRY(k->mem.addr + ((void __iomem *)pb->p - k->mem.cpu),
			      pb->n, 0);
	writeq(entry, k->mem.cpu + KC_GPFIFO + k->put * TGPU_GP_ENTRY_SIZE);
	k->put = (k->put + 1) & (BIT(KC_GPFIFO_LOG2) - 1);
	wmb(); /* the pushbuffer and entry, then GP_PUT */
	writel(k->put, k->mem.cpu + KC_USERD + TGPU_USERD_GP_PUT);
	wmb(); /* GP_PUT, then the doorbell */
	tgpu_wr32(tdev, TGPU_USERMODE_DOORBELL, TGPU_KCHAN_CHID);
	k->submits++;
	drm_dev_exit(idx);
	*seqno_out = seqno;
	return 0;
}

/*
 * Wait until the semaphore reaches @seqno: every submission up to it is
 * done.  If the channel fails or times out instead, it is stopped (none
 * of its work lands later) and left broken.  With @k->lock.
 */
static int kc_wait(struct tgpu_device *tdev, u64 seqno)
{
	struct tgpu_kchan *k = &tdev->kchan;
	long left = 0, slices;
	u32 put;
	int idx;

	/*
	 * Not interruptible: the blocks may be handed out again as soon as
	 * this returns, so the engine must be done with them (or stopped).
	 * A second at a time: the condition is checked again after each (a
	 * lost interrupt), and a doorbell the channel did not see (its
	 * GP_PUT is behind) is rung again.
	 */
	for (slices = 0; slices < KC_TIMEOUT / HZ && !left; slices++) {
		left = wait_event_timeout(k->wq, kc_reached(tdev, seqno) ||
					  READ_ONCE(k->state) != KC_RUNNING,
					  HZ);
		if (left || !drm_dev_enter(&tdev->base, &idx))
			continue;
		put = tgpu_rd32(tdev, TGPU_CHAN_REG(TGPU_KCHAN_CHID,
						    TGPU_CHAN_GP_PUT));
		/* only an idle channel did not see it; a busy one reads it */
		if ((tgpu_rd32(tdev, TGPU_CHAN_REG(TGPU_KCHAN_CHID,
						   TGPU_CHAN_STATUS)) &
		     TGPU_CHAN_STATE_MASK) == TGPU_CHAN_STATE_IDLE &&
		    put != k->put) {
			dev_warn_ratelimited(tdev->base.dev,
					     "kernel channel: the device has GP_PUT %u, not %u: doorbell lost, rung again\n",
					     put, k->put);
			tgpu_wr32(tdev, TGPU_USERMODE_DOORBELL, TGPU_KCHAN_CHID);
		}
		drm_dev_exit(idx);
	}
	if (READ_ONCE(k->state) == KC_RUNNING && kc_reached(tdev, seqno))
		return 0;
	if (!left) {
		drm_err(&tdev->base, "kernel channel: a submission did not finish in %u s: channel stopped, VRAM clears and page-table writes go back to the CPU\n",
			KC_TIMEOUT / HZ);
		kc_break(tdev, -ETIMEDOUT);
	}
	if (drm_dev_enter(&tdev->base, &idx)) {
		kc_stop(tdev);
		drm_dev_exit(idx);
	}
	return READ_ONCE(k->state) < 0 ? READ_ONCE(k->state) : -EIO;
}

/* kc_kick(), then kc_wait(). */
static int kc_submit(struct tgpu_device *tdev, struct kc_pb *pb)
{
	u64 seqno;
	int ret;

	ret = kc_kick(tdev, pb, &seqno);
	return ret ? ret : kc_wait(tdev, seqno);
}

/* Take the kernel channel's lock if it runs; false (unlocked) if not. */
static bool kc_lock_running(struct tgpu_device *tdev)
{
	struct tgpu_kchan *k = &tdev->kchan;

	if (!tgpu_kchan_running(tdev))
		return false;
	mutex_lock(&k->lock);
	if (k->state == KC_RUNNING)
		return true;
	mutex_unlock(&k->lock);
	return false;
}

/**
 * tgpu_kchan_clear() - zero VRAM blocks with the kernel channel
 * @tdev: the device
 * @blocks: buddy blocks, linked by their link
 *
 * Return: 0 when the blocks are zero; -ENODEV when the channel is not
 * there or broken, -EIO/-ETIMEDOUT when it just failed (the caller then
 * clears with the CPU), -EINTR when the task is being killed (between
 * submissions: nothing is left running).
 */
int tgpu_kchan_clear(struct tgpu_device *tdev, struct list_head *blocks)
{
	struct tgpu_kchan *k = &tdev->kchan;
	struct gpu_buddy_block *block;
	struct kc_pb pb;
	u64 batch = 0;
	int ret = 0;

	if (!kc_lock_running(tdev))
		return -ENODEV;
	kc_begin(k, &pb, 0);
	list_for_each_entry(block, blocks, link) {
		u64 start = gpu_buddy_block_offset(block);
		u64 end = start + gpu_buddy_block_size(&tdev->vram.mm, block);

		while (start < end) {
			u64 len = min_t(u64, end - start, KC_BATCH_BYTES - batch);

			kc_fill(&pb, start, len);
			start += len;
			batch += len;
			if (batch < KC_BATCH_BYTES &&
			    pb.n + KC_PB_ROOM <= KC_PB_DWORDS)
				continue;
			ret = kc_submit(tdev, &pb);
			if (ret)
				goto out;
			if (fatal_signal_pending(current)) {
				ret = -EINTR;
				goto out;
			}
			batch = 0;
			kc_begin(k, &pb, 0);
		}
	}
	if (batch)
		ret = kc_submit(tdev, &pb);
out:
	mutex_unlock(&k->lock);
	return ret;
}

/**
 * tgpu_kchan_pt_get() - take the kernel channel for a page-table update
 * @tdev: the device
 *
 * On success the caller has the two batches (empty) to itself until
 * tgpu_kchan_pt_put().
 *
 * Return: true when the channel runs and has a staging buffer (with
 * @tdev->kchan.lock held), false when page tables are for the CPU.
 */
bool tgpu_kchan_pt_get(struct tgpu_device *tdev)
{
	return tdev->kchan.pt_staging && kc_lock_running(tdev);
}

/**
 * tgpu_kchan_pt_put() - give the kernel channel back
 * @tdev: the device; neither batch may be in flight
 */
void tgpu_kchan_pt_put(struct tgpu_device *tdev)
{
	mutex_unlock(&tdev->kchan.lock);
}

/* A privileged MEM_OP: the TLB entries of another channel's ASID. */
static void kc_invalidate(struct kc_pb *pb, const struct tgpu_tlb_inval *inv)
{
	const u32 op[4] = {
		(u32)(inv->va >> TGPU_PAGE_SHIFT),
		(u32)(inv->size >> TGPU_PAGE_SHIFT),
		inv->asid,
		(inv->size ? TGPU_MEM_OP_TLB_INVALIDATE_ASID_RANGE :
			     TGPU_MEM_OP_TLB_INVALIDATE_ASID) << TGPU_MEM_OP_SHIFT,
	};

	kc_emit(pb, TGPU_M_MEM_OP_A, 4, op);
}

/**
 * tgpu_kchan_pt_kick() - submit a page-table batch to CE0
 * @tdev: the device, taken with tgpu_kchan_pt_get()
 * @b: one of its batches, with at least one run
 * @inval: a TLB invalidation to make once the entries are written, or
 *	NULL
 *
 * One submission, one launch: a chain of copy-engine descriptors, a
 * copy from the staged entries (by their bypass address in system
 * memory) or a fill of zeros per run, which the engine runs in order;
 * then @inval as a privileged MEM_OP (complete only when no engine uses
 * a dropped translation, mmu.md), then the semaphore release.  Does not
 * wait: see tgpu_kchan_pt_wait() with @b->seqno.  Sets @b->count.
 *
 * Return: 0, or -ENODEV when the channel is broken or gone.
 */
int tgpu_kchan_pt_kick(struct tgpu_device *tdev, struct tgpu_kchan_pt_batch *b,
		       const struct tgpu_tlb_inval *inval)
{
	struct tgpu_kchan *k = &tdev->kchan;
	const unsigned int i = b - k->pt;
	const u64 base = TGPU_BYPASS_SYSMEM_BASE + k->pt_staging_dma;
	const u64 src = base + i * KC_PT_ENTRIES_SIZE;
	const u64 chain = base + KC_PT_DESC + i * KC_PT_DESC_SIZE;
	const u32 list[2] = { upper_32_bits(chain), lower_32_bits(chain) };
	struct kc_desc *desc = k->pt_staging + KC_PT_DESC + i * KC_PT_DESC_SIZE;
	const struct tgpu_kchan_pt_seg *seg;
	struct kc_pb pb;
	unsigned int n;

	lockdep_assert_held(&k->lock);
	if (k->state != KC_RUNNING)
		return -ENODEV;
	if (drm_WARN_ON(&tdev->base, !b->nseg || b->nseg > TGPU_KCHAN_PT_SEGS))
		return -ENODEV;
	b->count = 0;
	for (n = 0; n < b->nseg; n++) {
		seg = &b->segs[n];
		if (seg->first == TGPU_KCHAN_PT_ZERO) {
			desc[n].src = 0;
			desc[n].flags = cpu_to_le32(TGPU_CE_DESC_FILL);
		} else {
			desc[n].src = cpu_to_le64(src + seg->first * sizeof(u64));
			desc[n].flags = 0;
		}
		desc[n].dst = cpu_to_le64(seg->dst);
		desc[n].next = cpu_to_le64(n + 1 < b->nseg ?
					   chain + (n + 1) * sizeof(*desc) : 0);
		desc[n].length = cpu_to_le32(seg->count * sizeof(u64));
		b->count += seg->count;
	}
	/* fills write CONST_A: zero */
	kc_begin(k, &pb, i * KC_PT_PB_DWORDS);
	kc_emit(&pb, TGPU_CE_M_DESC_LIST_UPPER, 2, list);
	kc_emit1(&pb, TGPU_CE_M_LAUNCH_DMA,
		 TGPU_CE_LAUNCH(TGPU_CE_TRANSFER_PIPELINED, TGPU_CE_SEM_NONE,
				TGPU_CE_INTR_NONE) | TGPU_CE_LAUNCH_LINKED_LIST);
	/* the channel's methods wait for its launch: after the writes */
	if (inval)
		kc_invalidate(&pb, inval);
	/* the entries and descriptors before GP_PUT: kc_kick()'s wmb() */
	return kc_kick(tdev, &pb, &b->seqno);
}

/**
 * tgpu_kchan_pt_wait() - wait for page-table submissions
 * @tdev: the device, taken with tgpu_kchan_pt_get()
 * @seqno: a batch's &tgpu_kchan_pt_batch.seqno: it and every
 *	submission before it are waited for
 *
 * Return: 0 when they are done; a negative errno when the channel failed
 * or timed out instead: then it is stopped and broken, nothing of it
 * lands later, and the caller writes the batches with the CPU.
 */
int tgpu_kchan_pt_wait(struct tgpu_device *tdev, u64 seqno)
{
	lockdep_assert_held(&tdev->kchan.lock);
	return kc_wait(tdev, seqno);
}

/**
 * tgpu_kchan_running() - whether the kernel channel takes work
 * @tdev: the device
 *
 * Return: true while it is set up and has not failed.
 */
bool tgpu_kchan_running(struct tgpu_device *tdev)
{
	return READ_ONCE(tdev->kchan.state) == KC_RUNNING;
}

/**
 * tgpu_kchan_signal() - the non-stall interrupt: wake the waiter
 * @tdev: the device
 */
void tgpu_kchan_signal(struct tgpu_device *tdev)
{
	wake_up_all(&tdev->kchan.wq);
}

/**
 * tgpu_kchan_error() - channel 0 took an error
 * @tdev: the device
 * @code: TGPU_ERR_*
 * @info: CHAN_ERROR_INFO
 *
 * Called by the stall interrupt handler.  The channel stays broken;
 * clears go back to the CPU.
 */
void tgpu_kchan_error(struct tgpu_device *tdev, u32 code, u32 info)
{
	dev_err_ratelimited(tdev->base.dev,
			    "kernel channel: error %s (info 0x%x): VRAM clears and page-table writes go back to the CPU\n",
			    tgpu_chan_error_name(code), info);
	kc_break(tdev, -EIO);
}

/**
 * tgpu_kchan_reset() - the device was reset under the kernel channel
 * @tdev: the device
 *
 * What it was doing is gone: its waiter gets -EIO and does the work with
 * the CPU.  tgpu_kchan_restart() sets it up again.
 */
void tgpu_kchan_reset(struct tgpu_device *tdev)
{
	kc_break(tdev, -EIO);
}

static void tgpu_kchan_unplug(void *data)
{
	struct tgpu_device *tdev = data;

	kc_break(tdev, -ENODEV);
}

static void tgpu_kchan_fini(struct drm_device *ddev, void *data)
{
	struct tgpu_device *tdev = to_tgpu_device(ddev);

	tgpu_vram_obj_free(tdev, &tdev->kchan.mem);
}

static void kc_write_inst(struct tgpu_kchan *k)
{
	/* unpaged: GPU addresses are VRAM offsets */
	const struct tgpu_inst in = {
		.flags = TGPU_INST_FLAGS_PRIV,
		.gpfifo_base = k->mem.addr + KC_GPFIFO,
		.gpfifo_log2 = KC_GPFIFO_LOG2,
		.engine = TGPU_RUNLIST_CE0,
		.userd = k->mem.addr + KC_USERD,
		.priority = TGPU_PRIORITY_MAX,
	};
	u8 blk[TGPU_INST_FIELDS_SIZE];

	tgpu_inst_encode(blk, &in);
	memcpy_toio(k->mem.cpu + KC_INST, blk, sizeof(blk));
}

/*
 * Program channel 0 from a clean state with an empty GPFIFO and its
 * semaphore at the last submission.  Return: false (the channel
 * stopped) when the device refuses the instance block.
 */
static bool kc_start(struct tgpu_device *tdev)
{
	struct tgpu_kchan *k = &tdev->kchan;
	u32 status;

	kc_write_inst(k);
	k->put = 0;
	writel(0, k->mem.cpu + KC_USERD + TGPU_USERD_GP_PUT);
	writeq(k->seqno, k->mem.cpu + KC_SEM);
	wmb(); /* the instance block, then the enable */
	tgpu_wr32(tdev, TGPU_CHAN_REG(TGPU_KCHAN_CHID, TGPU_CHAN_CTRL),
		  TGPU_CHAN_CTRL_RESET);
	tgpu_wr32(tdev, TGPU_CHAN_REG(TGPU_KCHAN_CHID, TGPU_CHAN_INST),
		  k->mem.addr >> TGPU_PAGE_SHIFT);
	tgpu_wr32(tdev, TGPU_CHAN_REG(TGPU_KCHAN_CHID, TGPU_CHAN_CTRL),
		  TGPU_CHAN_CTRL_ENABLE);
	status = tgpu_rd32(tdev, TGPU_CHAN_REG(TGPU_KCHAN_CHID,
					       TGPU_CHAN_STATUS));
	if ((status & TGPU_CHAN_STATE_MASK) == TGPU_CHAN_STATE_ERROR) {
		drm_warn(&tdev->base, "kernel channel: instance block refused (error %u): VRAM is cleared and page tables written by the CPU\n",
			 tgpu_rd32(tdev, TGPU_CHAN_REG(TGPU_KCHAN_CHID,
						       TGPU_CHAN_ERROR)));
		kc_stop(tdev);
		return false;
	}
	return true;
}

/**
 * tgpu_kchan_early_init() - what interrupt handlers may touch
 * @tdev: the device
 *
 * Before interrupts are enabled: a non-stall interrupt left pending by
 * an earlier driver instance wakes the wait queue at once.
 *
 * Return: 0 or a negative errno.
 */
int tgpu_kchan_early_init(struct tgpu_device *tdev)
{
	struct tgpu_kchan *k = &tdev->kchan;

	init_waitqueue_head(&k->wq);
	INIT_LIST_HEAD(&k->mem.blocks);
	return drmm_mutex_init(&tdev->base, &k->lock);
}
ALLOW_ERROR_INJECTION(tgpu_kchan_early_init, ERRNO);

/*
 * The page-table staging buffer: DMA-coherent system memory the channel
 * reads through its bypass window, which ends at 2^40.  Without it page
 * tables are written by the CPU; clears still use the channel.
 */
static void kc_pt_init(struct tgpu_device *tdev)
{
	struct tgpu_kchan *k = &tdev->kchan;
	struct drm_device *ddev = &tdev->base;
	struct tgpu_kchan_pt_seg *segs;
	unsigned int i;
	dma_addr_t dma;
	void *cpu;

	segs = drmm_kcalloc(ddev, 2 * TGPU_KCHAN_PT_SEGS, sizeof(*segs),
			    GFP_KERNEL);
	cpu = dmam_alloc_coherent(ddev->dev, KC_PT_STAGING_SIZE, &dma,
				  GFP_KERNEL);
	if (!segs || !cpu) {
		drm_warn(ddev, "kernel channel: no memory for a page-table staging buffer: page tables are written by the CPU\n");
		return;
	}
	if (dma + KC_PT_STAGING_SIZE > TGPU_VA_LIMIT - TGPU_BYPASS_SYSMEM_BASE) {
		drm_warn(ddev, "kernel channel: page-table staging buffer at DMA address %pad, beyond the bypass window: page tables are written by the CPU\n",
			 &dma);
		dmam_free_coherent(ddev->dev, KC_PT_STAGING_SIZE, cpu, dma);
		return;
	}
	for (i = 0; i < ARRAY_SIZE(k->pt); i++) {
		k->pt[i].entries = cpu + i * KC_PT_ENTRIES_SIZE;
		k->pt[i].segs = segs + i * TGPU_KCHAN_PT_SEGS;
	}
	k->pt_staging = cpu;
	k->pt_staging_dma = dma;
}

/**
 * tgpu_kchan_init() - set up and start the kernel channel
 * @tdev: the device, with runlists and interrupts
 *
 * Without CPU-visible VRAM or copy engine 0 there is no kernel channel,
 * and VRAM is cleared and page tables written with the CPU (a warning,
 * not a probe failure); likewise with the module parameter kchan=0.
 *
 * Return: 0, or a negative errno for what must fail the probe.
 */
int tgpu_kchan_init(struct tgpu_device *tdev)
{
	struct tgpu_kchan *k = &tdev->kchan;
	struct drm_device *ddev = &tdev->base;
	int ret;

	if (!tgpu_kchan_enable) {
		drm_info(ddev, "no kernel channel (kchan=0): VRAM is cleared and page tables written by the CPU\n");
		return 0;
	}
	if (!tdev->vram.map || !(tdev->id.engines & TGPU_ENGINE_CE0)) {
		drm_warn(ddev, "no kernel channel (no BAR1 or no copy engine 0): VRAM is cleared and page tables written by the CPU\n");
		return 0;
	}
	ret = tgpu_vram_obj_alloc(tdev, &k->mem, KC_SIZE);
	if (ret)
		return ret;
	ret = drmm_add_action_or_reset(ddev, tgpu_kchan_fini, NULL);
	if (ret)
		return ret;
	if (!kc_start(tdev))
		return 0;
	kc_pt_init(tdev);
	k->state = KC_RUNNING;
	tgpu_runlists_update(tdev, TGPU_RUNLIST_CE0);
	return devm_add_action_or_reset(ddev->dev, tgpu_kchan_unplug, tdev);
}
ALLOW_ERROR_INJECTION(tgpu_kchan_init, ERRNO);

/**
 * tgpu_kchan_restart() - set the kernel channel up again after a device
 *	reset
 * @tdev: the device, serving again (outside the reset's BAR lock: the
 *	waiters it broke take the channel's lock, then write with the CPU)
 *
 * A channel broken before the reset (a timeout, an error) starts again
 * too: the reset cleared what broke it.  Not one that never started (no
 * kchan, or its instance block refused at probe), nor after unplug.
 */
void tgpu_kchan_restart(struct tgpu_device *tdev)
{
	struct tgpu_kchan *k = &tdev->kchan;
	int idx;

	if (!k->mem.cpu || !drm_dev_enter(&tdev->base, &idx))
		return;
	mutex_lock(&k->lock);
	if (READ_ONCE(k->state) < 0 && kc_start(tdev)) {
		WRITE_ONCE(k->state, KC_RUNNING);
		drm_info(&tdev->base, "kernel channel: set up again after the device reset\n");
	}
	mutex_unlock(&k->lock);
	drm_dev_exit(idx);
	tgpu_runlists_update(tdev, TGPU_RUNLIST_CE0);
}
