// SPDX-License-Identifier: GPL-2.0-only OR MIT
/* Copyright (c) 2026 The tgpu authors */

/*
 * Page-table writes, batched per VM update.  While the kernel channel
 * runs, the CPU composes the entries in the channel's system-memory
 * staging buffer and copy engine 0 copies them into the tables, a run of
 * consecutive entries per descriptor (runs of zeros are fills and stage
 * nothing), in the order they were added.  There are two batches: when
 * one is full it is submitted and the CPU goes on with the other, after
 * waiting for that one's previous submission; the commit waits for the
 * last.  Otherwise the CPU writes the entries through the driver's BAR1
 * mapping, as it does for every batch not known to be done when the
 * channel fails.  Either way every entry is in VRAM when
 * tgpu_pt_update_commit() returns.  A TLB invalidation the update asks
 * for is the channel's last method after its last copy; when the CPU
 * wrote entries, or the channel failed, it is made by register instead.
 *
 * Also the tree those writes go to: a VM's PD1, its PD0s and PTs,
 * allocated in VRAM as mappings need them (tgpu_pt_tree_*()).
 */

#include <linux/bitmap.h>
#include <linux/err.h>
#include <linux/error-injection.h>
#include <linux/io.h>
#include <linux/minmax.h>
#include <linux/slab.h>

#include <drm/drm_drv.h>

#include <tgpu/mmu.h>

#include "tgpu_device.h"
#include "tgpu_kchan.h"
#include "tgpu_pt.h"
#include "tgpu_vm.h"

enum {
	TGPU_PT_IDLE,
	TGPU_PT_CHANNEL,
	TGPU_PT_CPU,
};

/**
 * tgpu_pt_update_begin() - start a batch of page-table writes
 * @u: the update
 * @tdev: the device
 *
 * Takes nothing yet: the kernel channel is taken at the first write.
 */
void tgpu_pt_update_begin(struct tgpu_pt_update *u, struct tgpu_device *tdev)
{
	u->tdev = tdev;
	u->mode = TGPU_PT_IDLE;
	u->cur = 0;
	u->cpu_entries = 0;
	u->invalidate = false;
}

/* Decide at the first write who does them. */
static void tgpu_pt_start(struct tgpu_pt_update *u)
{
	if (u->mode == TGPU_PT_IDLE)
		u->mode = tgpu_kchan_pt_get(u->tdev) ? TGPU_PT_CHANNEL :
						       TGPU_PT_CPU;
}

static struct tgpu_kchan_pt_batch *tgpu_pt_batch(struct tgpu_pt_update *u,
						 unsigned int which)
{
	return &u->tdev->kchan.pt[which];
}

static void tgpu_pt_batch_reset(struct tgpu_kchan_pt_batch *b)
{
	b->staged = 0;
	b->nseg = 0;
	b->seqno = 0;
}

/* Write a batch's runs with the CPU. */
static void tgpu_pt_replay(struct tgpu_pt_update *u,
			   struct tgpu_kchan_pt_batch *b)
{
	void __iomem *map = u->tdev->vram.map;
	const struct tgpu_kchan_pt_seg *seg;
	unsigned int i;
	int bars;

	bars = tgpu_bars_enter(u->tdev);
	for (i = 0; i < b->nseg; i++) {
		seg = &b->segs[i];
		if (seg->first == TGPU_KCHAN_PT_ZERO)
			memset_io(map + seg->dst, 0, seg->count * sizeof(u64));
		else
			memcpy_toio(map + seg->dst, &b->entries[seg->first],
				    seg->count * sizeof(u64));
		u->cpu_entries += seg->count;
	}
	tgpu_bars_exit(u->tdev, bars);
	tgpu_pt_batch_reset(b);
}

/*
 * The channel failed (it is stopped: nothing of it lands later).  The
 * CPU writes the batches it may not have, @older first, and the rest of
 * the update.
 */
static void tgpu_pt_fail(struct tgpu_pt_update *u,
			 struct tgpu_kchan_pt_batch *older,
			 struct tgpu_kchan_pt_batch *newer)
{
	if (older->seqno)
		tgpu_pt_replay(u, older);
	tgpu_pt_replay(u, newer);
	tgpu_kchan_pt_put(u->tdev);
	u->mode = TGPU_PT_CPU;
}

/* A batch the channel has written. */
static void tgpu_pt_done(struct tgpu_pt_update *u,
			 struct tgpu_kchan_pt_batch *b)
{
	struct tgpu_kchan *k = &u->tdev->kchan;

	k->pt_batches++;
	k->pt_entries += b->count;
	tgpu_pt_batch_reset(b);
}

/*
 * Submit the batch being filled, and go on with the other one once its
 * previous submission is done.
 */
static void tgpu_pt_flush(struct tgpu_pt_update *u)
{
	struct tgpu_kchan_pt_batch *b = tgpu_pt_batch(u, u->cur);
	struct tgpu_kchan_pt_batch *o = tgpu_pt_batch(u, !u->cur);

	lockdep_assert_held(&u->tdev->kchan.lock);

	if (!b->nseg)
		return;
	if (tgpu_kchan_pt_kick(u->tdev, b, NULL)) {
		tgpu_pt_fail(u, o, b);
		return;
	}
	if (o->seqno) {
		if (tgpu_kchan_pt_wait(u->tdev, o->seqno)) {
			tgpu_pt_fail(u, o, b);
			return;
		}
		tgpu_pt_done(u, o);
	}
	u->cur = !u->cur;
}

/*
 * The run that entry @dst extends: the last one if it ends just before
 * @dst and is of the same kind (staged or zeros), else a new one.  Flushes
 * first when the batch's entries or runs are full; NULL when the CPU
 * writes (now) instead.
 */
static struct tgpu_kchan_pt_seg *tgpu_pt_seg(struct tgpu_pt_update *u,
					     u64 dst, bool zero)
{
	struct tgpu_kchan_pt_batch *b;
	struct tgpu_kchan_pt_seg *seg;
	bool seg_zero;

	/* the batches are the channel holder's: a CPU update must not touch them */
	if (u->mode != TGPU_PT_CHANNEL)
		return NULL;
	b = tgpu_pt_batch(u, u->cur);
	if (!zero && b->staged == TGPU_KCHAN_PT_BATCH) {
		tgpu_pt_flush(u);
		b = tgpu_pt_batch(u, u->cur);
	}
	if (u->mode != TGPU_PT_CHANNEL)
		return NULL;
	if (b->nseg) {
		seg = &b->segs[b->nseg - 1];
		seg_zero = seg->first == TGPU_KCHAN_PT_ZERO;
		if (seg->dst + seg->count * sizeof(u64) == dst &&
		    seg_zero == zero)
			return seg;
	}
	if (b->nseg == TGPU_KCHAN_PT_SEGS) {
		tgpu_pt_flush(u);
		if (u->mode != TGPU_PT_CHANNEL)
			return NULL;
		b = tgpu_pt_batch(u, u->cur);
	}
	seg = &b->segs[b->nseg++];
	seg->dst = dst;
	seg->first = zero ? TGPU_KCHAN_PT_ZERO : b->staged;
	seg->count = 0;
	return seg;
}

/**
 * tgpu_pt_update_add() - write consecutive page-table entries
 * @u: the update
 * @pt: the table
 * @idx: the first entry's index in it
 * @count: entries, within the table
 * @pte: the first entry's value
 * @step: added to the value from one entry to the next (the page size
 *	for a run of pages, 0 for a single entry)
 */
void tgpu_pt_update_add(struct tgpu_pt_update *u, struct tgpu_pt *pt,
			unsigned int idx, unsigned int count, u64 pte, u64 step)
{
	u64 dst = pt->mem.addr + idx * sizeof(u64);
	struct tgpu_kchan_pt_batch *b;
	struct tgpu_kchan_pt_seg *seg;
	unsigned int n;

	tgpu_pt_start(u);
	while (count) {
		seg = tgpu_pt_seg(u, dst, false);
		if (!seg)
			break;
		b = tgpu_pt_batch(u, u->cur);
		n = min(count, TGPU_KCHAN_PT_BATCH - b->staged);
		seg->count += n;
		count -= n;
		dst += n * sizeof(u64);
		idx += n;
		for (; n; n--, pte += step)
			b->entries[b->staged++] = cpu_to_le64(pte);
	}
	u->cpu_entries += count;
	for (; count; count--, idx++, pte += step)
		writeq(pte, pt->mem.cpu + idx * sizeof(u64));
}

/**
 * tgpu_pt_update_zero() - clear consecutive page-table entries
 * @u: the update
 * @pt: the table
 * @idx: the first entry's index in it
 * @count: entries, within the table
 */
void tgpu_pt_update_zero(struct tgpu_pt_update *u, struct tgpu_pt *pt,
			 unsigned int idx, unsigned int count)
{
	u64 dst = pt->mem.addr + idx * sizeof(u64);
	struct tgpu_kchan_pt_seg *seg;

	if (!count)
		return;
	tgpu_pt_start(u);
	seg = tgpu_pt_seg(u, dst, true);
	if (!seg) {
		int bars = tgpu_bars_enter(u->tdev);

		memset_io(pt->mem.cpu + idx * sizeof(u64), 0,
			  count * sizeof(u64));
		tgpu_bars_exit(u->tdev, bars);
		u->cpu_entries += count;
		return;
	}
	seg->count += count;
}

/**
 * tgpu_pt_update_invalidate() - end the update with a TLB invalidation
 * @u: the update
 * @asid: the VM's address space
 * @va: the first address, page aligned
 * @size: bytes, page aligned; 0 for the whole address space
 *
 * The invalidation is made once the update's entries are in VRAM, and is
 * complete (no engine uses a dropped translation) when
 * tgpu_pt_update_commit() returns.
 */
void tgpu_pt_update_invalidate(struct tgpu_pt_update *u, u32 asid, u64 va,
			       u64 size)
{
	u->inval = (struct tgpu_tlb_inval){
		.asid = asid, .va = va, .size = size,
	};
	u->invalidate = true;
}

/* By register: after the CPU's writes, or when the channel failed. */
static void tgpu_pt_invalidate_mmio(struct tgpu_device *tdev,
				    const struct tgpu_tlb_inval *inv)
{
	int idx;

	wmb(); /* page-table writes before the invalidation */
	if (!drm_dev_enter(&tdev->base, &idx))
		return;
	mutex_lock(&tdev->mmu_lock);
	tgpu_wr32(tdev, TGPU_MMU_INVALIDATE_ASID, inv->asid);
	if (inv->size) {
		tgpu_wr32(tdev, TGPU_MMU_INVALIDATE_VA_LO,
			  lower_32_bits(inv->va));
		tgpu_wr32(tdev, TGPU_MMU_INVALIDATE_VA_HI,
			  upper_32_bits(inv->va));
		tgpu_wr32(tdev, TGPU_MMU_INVALIDATE_PAGES,
			  inv->size >> TGPU_PAGE_SHIFT);
	}
	tgpu_wr32(tdev, TGPU_MMU_INVALIDATE,
		  inv->size ? TGPU_MMU_INV_RANGE : TGPU_MMU_INV_ASID);
	mutex_unlock(&tdev->mmu_lock);
	drm_dev_exit(idx);
}

/**
 * tgpu_pt_update_commit() - finish the update
 * @u: the update; it may be used again, from tgpu_pt_update_begin()
 *
 * Returns when every entry is in VRAM, for the page walker to see: the
 * channel's last submission has finished, or the CPU's write-combined
 * writes are drained; and the invalidation asked for is complete.
 */
void tgpu_pt_update_commit(struct tgpu_pt_update *u)
{
	struct tgpu_kchan *k = &u->tdev->kchan;
	const struct tgpu_tlb_inval *inval = NULL;
	struct tgpu_kchan_pt_batch *b, *o;
	bool invalidated = false;
	u64 last;

	if (u->mode == TGPU_PT_CHANNEL) {
		b = tgpu_pt_batch(u, u->cur);
		o = tgpu_pt_batch(u, !u->cur);
		if (u->invalidate && b->nseg)
			inval = &u->inval;
		if (b->nseg && tgpu_kchan_pt_kick(u->tdev, b, inval)) {
			tgpu_pt_fail(u, o, b);
		} else {
			/* the last submission ends after the one before */
			last = b->seqno ?: o->seqno;
			if (last && tgpu_kchan_pt_wait(u->tdev, last)) {
				tgpu_pt_fail(u, o, b);
			} else {
				if (o->seqno)
					tgpu_pt_done(u, o);
				if (b->seqno)
					tgpu_pt_done(u, b);
				if (inval) {
					k->pt_invalidations++;
					invalidated = true;
				}
				tgpu_kchan_pt_put(u->tdev);
			}
		}
	}
	if (u->mode == TGPU_PT_CPU) {
		wmb(); /* the WC buffers, before the GPU may walk */
		atomic64_add(u->cpu_entries, &k->pt_cpu_entries);
	}
	if (u->invalidate && !invalidated)
		tgpu_pt_invalidate_mmio(u->tdev, &u->inval);
	u->mode = TGPU_PT_IDLE;
	u->cur = 0;
	u->cpu_entries = 0;
	u->invalidate = false;
}

/* ---- the page-table tree ------------------------------------------------- */

static struct tgpu_pt *tgpu_pt_alloc(struct tgpu_device *tdev, u64 size,
				     unsigned int children, bool pd0)
{
	struct tgpu_pt *pt;
	int ret;

	pt = kzalloc(sizeof(*pt), GFP_KERNEL);
	if (!pt)
		return ERR_PTR(-ENOMEM);
	if (children) {
		pt->children = kcalloc(children, sizeof(*pt->children),
				       GFP_KERNEL);
		if (!pt->children)
			goto err_nomem;
	}
	if (pd0) {
		pt->large = bitmap_zalloc(TGPU_PD0_ENTRIES, GFP_KERNEL);
		if (!pt->large)
			goto err_nomem;
	}
	ret = tgpu_vram_obj_alloc(tdev, &pt->mem, size);
	if (ret) {
		bitmap_free(pt->large);
		kfree(pt->children);
		kfree(pt);
		return ERR_PTR(ret);
	}
	return pt;

err_nomem:
	kfree(pt->children);
	kfree(pt);
	return ERR_PTR(-ENOMEM);
}

static void tgpu_pt_free(struct tgpu_device *tdev, struct tgpu_pt *pt,
			 unsigned int children)
{
	unsigned int i;

	if (!pt)
		return;
	for (i = 0; pt->children && i < children; i++)
		tgpu_pt_free(tdev, pt->children[i],
			     children == TGPU_PD1_ENTRIES ? TGPU_PT_ENTRIES : 0);
	tgpu_vram_obj_free(tdev, &pt->mem);
	bitmap_free(pt->large);
	kfree(pt->children);
	kfree(pt);
}

/**
 * tgpu_pt_tree_root() - make sure @vm has its root table (PD1)
 * @vm: the VM, with its lock held
 *
 * Return: 0, or -ENOMEM and friends.
 */
int tgpu_pt_tree_root(struct tgpu_vm *vm)
{
	struct tgpu_pt *pd1;

	if (vm->pd1)
		return 0;
	pd1 = tgpu_pt_alloc(vm->tdev, TGPU_PD1_ENTRIES * sizeof(u64),
			    TGPU_PD1_ENTRIES, false);
	if (IS_ERR(pd1))
		return PTR_ERR(pd1);
	vm->pd1 = pd1;
	return 0;
}

/*
 * The PD0 table for @va; allocated if @u, its directory entry written
 * through @u.  With vm->lock held.
 */
static struct tgpu_pt *tgpu_pt_pd0(struct tgpu_vm *vm,
				   struct tgpu_pt_update *u, u64 va)
{
	unsigned int i = TGPU_PD1_INDEX(va);
	struct tgpu_pt *pd0;

	pd0 = vm->pd1->children[i];
	if (pd0 || !u)
		return pd0;
	pd0 = tgpu_pt_alloc(vm->tdev, TGPU_PD0_ENTRIES * sizeof(u64),
			    TGPU_PT_ENTRIES, true);
	if (IS_ERR(pd0))
		return pd0;
	vm->pd1->children[i] = pd0;
	tgpu_pt_update_add(u, vm->pd1, i, 1, pd0->mem.addr | TGPU_PTE_VALID,
			   0);
	return pd0;
}

/*
 * The PT for @va, allocated with the directories above it (new tables
 * are zeroed by tgpu_vram_obj_alloc() before their entries go into @u).
 * With vm->lock held.
 */
static struct tgpu_pt *tgpu_pt_leaf(struct tgpu_vm *vm,
				    struct tgpu_pt_update *u, u64 va)
{
	unsigned int i = TGPU_PD0_INDEX(va);
	struct tgpu_pt *pd0, *pt;

	pd0 = tgpu_pt_pd0(vm, u, va);
	if (IS_ERR(pd0))
		return pd0;
	pt = pd0->children[i];
	if (pt)
		return pt;
	/* A 2 MiB page covers the whole range the PT would. */
	if (WARN_ON(test_bit(i, pd0->large)))
		return ERR_PTR(-EEXIST);
	pt = tgpu_pt_alloc(vm->tdev, TGPU_PT_ENTRIES * sizeof(u64), 0, false);
	if (IS_ERR(pt))
		return pt;
	pd0->children[i] = pt;
	tgpu_pt_update_add(u, pd0, i, 1, pt->mem.addr | TGPU_PTE_VALID, 0);
	return pt;
}

/**
 * tgpu_pt_tree_clear() - clear [@va, @va + @size) of @vm's tables
 * @vm: the VM, with its lock held
 * @u: the update the writes go through, a run per table
 * @va: start
 * @size: bytes
 *
 * 2 MiB entries are cleared whole: a mapping only uses one when it
 * covers all of it.
 */
void tgpu_pt_tree_clear(struct tgpu_vm *vm, struct tgpu_pt_update *u,
			u64 va, u64 size)
{
	u64 end = va + size;
	struct tgpu_pt *pd0, *pt;
	unsigned int i, n;

	if (!vm->pd1)
		return;
	while (va < end) {
		pd0 = tgpu_pt_pd0(vm, NULL, va);
		if (!pd0) {
			va = round_down(va, 1ull << TGPU_PD1_SHIFT) +
			     (1ull << TGPU_PD1_SHIFT);
			continue;
		}
		i = TGPU_PD0_INDEX(va);
		if (test_and_clear_bit(i, pd0->large)) {
			tgpu_pt_update_zero(u, pd0, i, 1);
			va = round_down(va, TGPU_LARGE_PAGE_SIZE) +
			     TGPU_LARGE_PAGE_SIZE;
			continue;
		}
		pt = pd0->children[i];
		if (!pt) {
			va = round_down(va, TGPU_LARGE_PAGE_SIZE) +
			     TGPU_LARGE_PAGE_SIZE;
			continue;
		}
		i = TGPU_PT_INDEX(va);
		n = min_t(u64, TGPU_PT_ENTRIES - i,
			  (end - va) >> TGPU_PAGE_SHIFT);
		tgpu_pt_update_zero(u, pt, i, n);
		va += (u64)n << TGPU_PAGE_SHIFT;
	}
}

/**
 * tgpu_pt_tree_map() - map a contiguous run at @va in @vm's tables
 * @vm: the VM, with its lock held and its root (tgpu_pt_tree_root())
 * @u: the update the writes go through
 * @va: where, page aligned
 * @phys: VRAM, or DMA addresses when @flags has TGPU_PTE_SYSMEM
 * @size: bytes, page aligned
 * @flags: TGPU_PTE_* besides VALID and LARGE
 *
 * 2 MiB pages (VRAM only) where @va and @phys are 2 MiB aligned, the
 * run covers the whole 2 MiB and no PT is in the way; tables are
 * allocated as needed.
 *
 * Return: 0, or a negative errno; what was mapped then stays for the
 * caller to clear.
 */
int tgpu_pt_tree_map(struct tgpu_vm *vm, struct tgpu_pt_update *u,
		     u64 va, u64 phys, u64 size, u64 flags)
{
	struct tgpu_pt *pd0, *pt;
	unsigned int i, n;

	while (size) {
		if (!(flags & TGPU_PTE_SYSMEM) &&
		    IS_ALIGNED(va | phys, TGPU_LARGE_PAGE_SIZE) &&
		    size >= TGPU_LARGE_PAGE_SIZE) {
			pd0 = tgpu_pt_pd0(vm, u, va);
			if (IS_ERR(pd0))
				return PTR_ERR(pd0);
			i = TGPU_PD0_INDEX(va);
			if (!pd0->children[i]) {
				set_bit(i, pd0->large);
				tgpu_pt_update_add(u, pd0, i, 1, phys | flags |
						   TGPU_PTE_LARGE |
						   TGPU_PTE_VALID, 0);
				va += TGPU_LARGE_PAGE_SIZE;
				phys += TGPU_LARGE_PAGE_SIZE;
				size -= TGPU_LARGE_PAGE_SIZE;
				continue;
			}
		}
		pt = tgpu_pt_leaf(vm, u, va);
		if (IS_ERR(pt))
			return PTR_ERR(pt);
		/* 4 KiB pages to the end of the PT: a 2 MiB page may follow */
		i = TGPU_PT_INDEX(va);
		n = min_t(u64, TGPU_PT_ENTRIES - i, size >> TGPU_PAGE_SHIFT);
		tgpu_pt_update_add(u, pt, i, n, phys | flags | TGPU_PTE_VALID,
				   TGPU_PAGE_SIZE);
		va += (u64)n << TGPU_PAGE_SHIFT;
		phys += (u64)n << TGPU_PAGE_SHIFT;
		size -= (u64)n << TGPU_PAGE_SHIFT;
	}
	return 0;
}
ALLOW_ERROR_INJECTION(tgpu_pt_tree_map, ERRNO);

/**
 * tgpu_pt_tree_free() - free @vm's tables
 * @vm: the VM, no longer in use by the device
 */
void tgpu_pt_tree_free(struct tgpu_vm *vm)
{
	tgpu_pt_free(vm->tdev, vm->pd1, TGPU_PD1_ENTRIES);
	vm->pd1 = NULL;
}
