// SPDX-License-Identifier: GPL-2.0-only OR MIT
/* Copyright (c) 2026 The tgpu authors */

/*
 * Page-table writes, batched per VM update.  While the kernel channel
 * runs, the CPU composes the entries in the channel's system-memory
 * staging buffer and copy engine 0 copies them into the tables, a run of
 * consecutive entries per copy (runs of zeros are fills and stage
 * nothing), in the order they were added, one submission per full
 * staging buffer; the update waits for each.  Otherwise the CPU writes
 * them through the driver's BAR1 mapping, as it does for the runs of a
 * submission that failed.  Either way every entry is in VRAM when
 * tgpu_pt_update_commit() returns.
 */

#include <linux/io.h>
#include <linux/minmax.h>

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
	u->staged = 0;
	u->nseg = 0;
	u->cpu_entries = 0;
}

/* Decide at the first write who does them. */
static void tgpu_pt_start(struct tgpu_pt_update *u)
{
	if (u->mode == TGPU_PT_IDLE)
		u->mode = tgpu_kchan_pt_get(u->tdev) ? TGPU_PT_CHANNEL :
						       TGPU_PT_CPU;
}

/*
 * Hand the staged runs to the channel.  If it fails, write them with the
 * CPU (the channel is stopped by then: nothing of it lands later), and
 * the rest of the update too.
 */
static void tgpu_pt_flush(struct tgpu_pt_update *u)
{
	struct tgpu_device *tdev = u->tdev;
	struct tgpu_kchan *k = &tdev->kchan;
	const struct tgpu_kchan_pt_seg *seg;
	void __iomem *dst;
	unsigned int i;

	if (u->nseg && tgpu_kchan_pt_flush(tdev, u->nseg)) {
		for (i = 0; i < u->nseg; i++) {
			seg = &k->pt_segs[i];
			dst = tdev->vram.map + seg->dst;
			if (seg->first == TGPU_KCHAN_PT_ZERO)
				memset_io(dst, 0, seg->count * sizeof(u64));
			else
				memcpy_toio(dst, &k->pt_staging[seg->first],
					    seg->count * sizeof(u64));
			u->cpu_entries += seg->count;
		}
		tgpu_kchan_pt_put(tdev);
		u->mode = TGPU_PT_CPU;
	}
	u->staged = 0;
	u->nseg = 0;
}

/*
 * The run that entry @dst extends: the last one if it ends just before
 * @dst and is of the same kind (staged or zeros), else a new one.  Flushes
 * first when the staging buffer or the run array is full; NULL when the
 * CPU writes (now) instead.
 */
static struct tgpu_kchan_pt_seg *tgpu_pt_seg(struct tgpu_pt_update *u,
					     u64 dst, bool zero)
{
	struct tgpu_kchan *k = &u->tdev->kchan;
	struct tgpu_kchan_pt_seg *seg;
	bool seg_zero;

	if (!zero && u->staged == TGPU_KCHAN_PT_STAGING)
		tgpu_pt_flush(u);
	if (u->mode != TGPU_PT_CHANNEL)
		return NULL;
	if (u->nseg) {
		seg = &k->pt_segs[u->nseg - 1];
		seg_zero = seg->first == TGPU_KCHAN_PT_ZERO;
		if (seg->dst + seg->count * sizeof(u64) == dst &&
		    seg_zero == zero)
			return seg;
	}
	if (u->nseg == TGPU_KCHAN_PT_SEGS) {
		tgpu_pt_flush(u);
		if (u->mode != TGPU_PT_CHANNEL)
			return NULL;
	}
	seg = &k->pt_segs[u->nseg++];
	seg->dst = dst;
	seg->first = zero ? TGPU_KCHAN_PT_ZERO : u->staged;
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
	struct tgpu_kchan *k = &u->tdev->kchan;
	u64 dst = pt->mem.addr + idx * sizeof(u64);
	struct tgpu_kchan_pt_seg *seg;
	unsigned int n;

	tgpu_pt_start(u);
	while (count) {
		seg = tgpu_pt_seg(u, dst, false);
		if (!seg)
			break;
		n = min(count, TGPU_KCHAN_PT_STAGING - u->staged);
		seg->count += n;
		count -= n;
		dst += n * sizeof(u64);
		idx += n;
		for (; n; n--, pte += step)
			k->pt_staging[u->staged++] = cpu_to_le64(pte);
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
		memset_io(pt->mem.cpu + idx * sizeof(u64), 0,
			  count * sizeof(u64));
		u->cpu_entries += count;
		return;
	}
	seg->count += count;
}

/**
 * tgpu_pt_update_commit() - finish the update
 * @u: the update; it may be used again, from tgpu_pt_update_begin()
 *
 * Returns when every entry is in VRAM, for the page walker to see: the
 * channel's last submission has finished, or the CPU's write-combined
 * writes are drained.
 */
void tgpu_pt_update_commit(struct tgpu_pt_update *u)
{
	struct tgpu_kchan *k = &u->tdev->kchan;

	if (u->mode == TGPU_PT_CHANNEL) {
		tgpu_pt_flush(u);
		if (u->mode == TGPU_PT_CHANNEL)
			tgpu_kchan_pt_put(u->tdev);
	}
	if (u->mode == TGPU_PT_CPU) {
		wmb(); /* the WC buffers, before the GPU may walk */
		atomic64_add(u->cpu_entries, &k->pt_cpu_entries);
	}
	u->mode = TGPU_PT_IDLE;
	u->staged = 0;
	u->nseg = 0;
	u->cpu_entries = 0;
}
