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

/* Page-table entries staged per submission: 64 KiB of system memory. */
#define TGPU_KCHAN_PT_STAGING	8192
/* Runs per submission (they must fit the pushbuffer). */
#define TGPU_KCHAN_PT_SEGS	1024
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
 * struct tgpu_kchan - the driver's privileged channel on copy engine 0
 * @mem: its instance block, GPFIFO, USERD, semaphore and pushbuffer
 * @lock: one submission at a time
 * @wq: woken by the non-stall interrupt and by errors
 * @put: next GPFIFO slot
 * @seqno: the last submission's semaphore value
 * @state: 0 not set up, 1 running, negative errno: broken (work falls
 *	back to the CPU)
 * @submits: submissions so far (debug)
 * @pt_staging: page-table entries for the next submission, composed by
 *	the CPU (DMA-coherent, TGPU_KCHAN_PT_STAGING entries); NULL when
 *	page tables are the CPU's
 * @pt_staging_dma: its DMA address
 * @pt_segs: the runs of the next submission (TGPU_KCHAN_PT_SEGS)
 * @pt_batches: submissions that wrote page tables (debug)
 * @pt_entries: page-table entries they wrote (debug)
 * @pt_cpu_entries: page-table entries the CPU wrote instead (debug)
 *
 * @pt_staging and @pt_segs belong to whoever holds @lock.
 */
struct tgpu_kchan {
	struct tgpu_vram_obj mem;
	struct mutex lock; /* submissions */
	wait_queue_head_t wq;
	u32 put;
	u64 seqno;
	int state;
	u64 submits;
	__le64 *pt_staging;
	dma_addr_t pt_staging_dma;
	struct tgpu_kchan_pt_seg *pt_segs;
	u64 pt_batches;
	u64 pt_entries;
	atomic64_t pt_cpu_entries;
};

int tgpu_kchan_early_init(struct tgpu_device *tdev);
int tgpu_kchan_init(struct tgpu_device *tdev);
bool tgpu_kchan_running(struct tgpu_device *tdev);
int tgpu_kchan_clear(struct tgpu_device *tdev, struct list_head *blocks);
bool tgpu_kchan_pt_get(struct tgpu_device *tdev);
void tgpu_kchan_pt_put(struct tgpu_device *tdev);
int tgpu_kchan_pt_flush(struct tgpu_device *tdev, unsigned int nseg);
void tgpu_kchan_signal(struct tgpu_device *tdev);
void tgpu_kchan_error(struct tgpu_device *tdev, u32 code, u32 info);

#endif /* __TGPU_KCHAN_H__ */
