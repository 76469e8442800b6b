/* SPDX-License-Identifier: GPL-2.0-only OR MIT */
/* Copyright (c) 2026 The tgpu authors */

#ifndef __TGPU_KCHAN_H__
#define __TGPU_KCHAN_H__

#include <linux/atomic.h>
#include <linux/dma-mapping.h>
#include <linux/list.h>
#include <linux/mutex.h>
#include <linux/types.h>
#include <linux/wait.h>

#include "tgpu_vram.h"

struct tgpu_device;

/* The driver's own channel: channel 0, never given to a queue. */
#define TGPU_KCHAN_CHID		0

/*
 * Page-table entries staged per submission: 32 KiB of system memory.
 * Two batches, so that the CPU fills one while the engine copies the
 * other: 64 KiB in all.
 */
#define TGPU_KCHAN_PT_BATCH	4096
/* Runs per submission: a copy-engine descriptor each. */
#define TGPU_KCHAN_PT_SEGS	512
/* &tgpu_kchan_pt_seg.first of a run of zeros: a fill, nothing staged */
#define TGPU_KCHAN_PT_ZERO	U32_MAX

/**
 * struct tgpu_kchan_pt_seg - consecutive page-table entries to write
 * @dst: VRAM address of the first
 * @first: index of the first value in the staging buffer, or
 *	TGPU_KCHAN_PT_ZERO
 * @count: entries
 */
struct tgpu_kchan_pt_seg {
	u64 dst;
	u32 first;
	u32 count;
};

/**
 * struct tgpu_tlb_inval - a TLB invalidation
 * @asid: the address space
 * @va: the first address of the range, page aligned
 * @size: bytes, page aligned; 0 for all of @asid
 */
struct tgpu_tlb_inval {
	u32 asid;
	u64 va;
	u64 size;
};

/**
 * struct tgpu_kchan_pt_batch - the page-table writes of one submission
 * @entries: the staged values, TGPU_KCHAN_PT_BATCH (DMA-coherent)
 * @segs: the runs, in the order they must land, TGPU_KCHAN_PT_SEGS
 * @staged: values in @entries
 * @nseg: runs in @segs
 * @count: entries the runs write (set when submitted)
 * @seqno: while its submission may still run, the semaphore value that
 *	ends it; else 0
 */
struct tgpu_kchan_pt_batch {
	__le64 *entries;
	struct tgpu_kchan_pt_seg *segs;
	u32 staged;
	u32 nseg;
	u64 count;
	u64 seqno;
};

/**
 * struct tgpu_kchan - the driver's privileged channel on copy engine 0
 * @mem: its instance block, GPFIFO, USERD, semaphore and pushbuffer
 * @lock: one submission at a time
 * @wq: woken by the non-stall interrupt and by errors
 * @put: next GPFIFO slot
 * @seqno: the last submission's semaphore value
 * @state: 0 not set up, 1 running, negative errno: broken (work falls
 *	back to the CPU)
 * @submits: submissions so far (debug)
 * @pt_staging: the page-table staging buffer, system memory the channel
 *	reads (DMA-coherent): both batches' entries, then their
 *	descriptors; NULL when page tables are the CPU's
 * @pt_staging_dma: its DMA address
 * @pt: the two page-table batches, in @pt_staging
 * @pt_batches: submissions that wrote page tables (debug)
 * @pt_entries: page-table entries they wrote (debug)
 * @pt_cpu_entries: page-table entries the CPU wrote instead (debug)
 * @pt_invalidations: TLB invalidations the channel made after its
 *	page-table writes (debug)
 *
 * @pt belongs to whoever holds @lock (tgpu_kchan_pt_get()).
 */
struct tgpu_kchan {
	struct tgpu_vram_obj mem;
	struct mutex lock; /* submissions */
	wait_queue_head_t wq;
	u32 put;
	u64 seqno;
	int state;
	u64 submits;
	void *pt_staging;
	dma_addr_t pt_staging_dma;
	struct tgpu_kchan_pt_batch pt[2];
	u64 pt_batches;
	u64 pt_entries;
	atomic64_t pt_cpu_entries;
	u64 pt_invalidations;
};

int tgpu_kchan_early_init(struct tgpu_device *tdev);
int tgpu_kchan_init(struct tgpu_device *tdev);
bool tgpu_kchan_running(struct tgpu_device *tdev);
int tgpu_kchan_clear(struct tgpu_device *tdev, struct list_head *blocks);
bool tgpu_kchan_pt_get(struct tgpu_device *tdev);
void tgpu_kchan_pt_put(struct tgpu_device *tdev);
int tgpu_kchan_pt_kick(struct tgpu_device *tdev,
		       struct tgpu_kchan_pt_batch *b,
		       const struct tgpu_tlb_inval *inval);
int tgpu_kchan_pt_wait(struct tgpu_device *tdev, u64 seqno);
void tgpu_kchan_signal(struct tgpu_device *tdev);
void tgpu_kchan_error(struct tgpu_device *tdev, u32 code, u32 info);

void tgpu_kchan_reset(struct tgpu_device *tdev);
void tgpu_kchan_restart(struct tgpu_device *tdev);

#endif /* __TGPU_KCHAN_H__ */
