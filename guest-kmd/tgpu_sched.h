/* SPDX-License-Identifier: GPL-2.0-only OR MIT */
/* Copyright (c) 2026 The tgpu authors */

/*
 * Between the queue files: a queue's hardware fences and jobs
 * (tgpu_sched.c, the drm_sched backend), which queue creation
 * (tgpu_queue.c) and SUBMIT (tgpu_submit.c) make.
 */
#ifndef __TGPU_SCHED_H__
#define __TGPU_SCHED_H__

#include <linux/dma-fence.h>
#include <linux/list.h>
#include <linux/spinlock.h>
#include <linux/types.h>

#include <drm/gpu_scheduler.h>
#include <drm/tgpu_drm.h>

#include "tgpu_reset.h"

struct tgpu_queue;

/**
 * struct tgpu_fence - a hardware fence: the queue's semaphore reaching
 *	the fence's seqno
 * @base: the fence
 * @lock: its own lock, so that it may outlive the queue
 * @link: in &tgpu_queue.fences until signalled
 */
struct tgpu_fence {
	struct dma_fence base;
	spinlock_t lock; /* the fence's */
	struct list_head link;
};

/**
 * struct tgpu_job - one DRM_IOCTL_TGPU_SUBMIT
 * @base: the scheduler job
 * @q: the queue
 * @hw_fence: allocated at submit, handed to the scheduler by run_job
 * @fence: the hardware fence once run_job made it (a reference)
 * @snap: its channel and engine at the last hang check (or run_job)
 * @rearms: timeouts the hang check let pass because work moved
 * @run_ns: when run_job handed it to the hardware (ktime_get_ns())
 * @gp_slot: the GPFIFO slot of its first entry
 * @count: number of @ranges
 * @ranges: the pushbuffer segments
 */
struct tgpu_job {
	struct drm_sched_job base;
	struct tgpu_queue *q;
	struct tgpu_fence *hw_fence;
	struct tgpu_fence *fence;
	struct tgpu_snap snap;
	u32 rearms;
	u64 run_ns;
	u32 gp_slot;
	u32 count;
	struct drm_tgpu_submit_range *ranges;
};

static inline struct tgpu_job *to_tgpu_job(struct drm_sched_job *sjob)
{
	return container_of(sjob, struct tgpu_job, base);
}

extern const struct drm_sched_backend_ops tgpu_sched_ops;

void tgpu_queue_signal(struct tgpu_queue *q, int error);
void tgpu_queue_fail(struct tgpu_queue *q, int error);
u64 tgpu_queue_busy_ns(struct tgpu_queue *q);
void tgpu_queue_account(struct tgpu_queue *q);
void tgpu_job_write(struct tgpu_queue *q, struct tgpu_job *job);
void tgpu_queue_kick(struct tgpu_queue *q);
int tgpu_queue_error(struct tgpu_queue *q);
void tgpu_job_free(struct drm_sched_job *sjob);

#endif /* __TGPU_SCHED_H__ */
