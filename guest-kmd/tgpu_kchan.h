/* SPDX-License-Identifier: GPL-2.0-only OR MIT */
/* Copyright (c) 2026 The tgpu authors */

#ifndef __TGPU_KCHAN_H__
#define __TGPU_KCHAN_H__

#include <linux/list.h>
#include <linux/mutex.h>
#include <linux/types.h>
#include <linux/wait.h>

#include "tgpu_vram.h"

struct tgpu_device;

/* The driver's own channel: channel 0, never given to a queue. */
#define TGPU_KCHAN_CHID		0

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
 */
struct tgpu_kchan {
	struct tgpu_vram_obj mem;
	struct mutex lock; /* submissions */
	wait_queue_head_t wq;
	u32 put;
	u64 seqno;
	int state;
	u64 submits;
};

int tgpu_kchan_early_init(struct tgpu_device *tdev);
int tgpu_kchan_init(struct tgpu_device *tdev);
bool tgpu_kchan_running(struct tgpu_device *tdev);
int tgpu_kchan_clear(struct tgpu_device *tdev, struct list_head *blocks);
void tgpu_kchan_signal(struct tgpu_device *tdev);
void tgpu_kchan_error(struct tgpu_device *tdev, u32 code, u32 info);

#endif /* __TGPU_KCHAN_H__ */
