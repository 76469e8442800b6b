/* SPDX-License-Identifier: GPL-2.0-only OR MIT */
/* Copyright (c) 2026 The tgpu authors */

#ifndef __TGPU_QUEUE_H__
#define __TGPU_QUEUE_H__

#include <linux/atomic.h>
#include <linux/bits.h>
#include <linux/kref.h>
#include <linux/list.h>
#include <linux/mutex.h>
#include <linux/pid.h>
#include <linux/sched.h>
#include <linux/spinlock.h>
#include <linux/types.h>
#include <linux/wait.h>
#include <linux/workqueue.h>

#include <drm/gpu_scheduler.h>

#include "tgpu_reset.h"
#include "tgpu_vram.h"

/*
 * A queue's memory, one contiguous 32 KiB piece of VRAM, mapped into the
 * kernel part of its VM at TGPU_Q_VA(chid) (all but the instance block):
 *
 *   0x0000  instance block (read by physical address, not mapped)
 *   0x1000  GPFIFO ring, 512 entries             PRIV
 *   0x2000  USERD                                PRIV
 *   0x3000  fence semaphore (u64 at offset 0)    user, writable
 *   0x4000  fence pushbuffers, 32 bytes for each GPFIFO slot   PRIV
 *
 * A user-submit queue's GPFIFO and USERD are a GEM object of their own
 * instead (struct tgpu_uq), mapped at the same GPU addresses, which the
 * process maps too; the object outlives the queue while it is mapped.
 */
#define TGPU_Q_INST		0x0000
#define TGPU_Q_GPFIFO		0x1000
#define TGPU_Q_USERD		0x2000
#define TGPU_Q_SEM		0x3000
#define TGPU_Q_FENCE_PB		0x4000
#define TGPU_Q_SIZE		0x8000
#define TGPU_Q_GPFIFO_LOG2	9
#define TGPU_Q_GPFIFO_ENTRIES	BIT(TGPU_Q_GPFIFO_LOG2)
#define TGPU_Q_FENCE_SLOT	32
#define TGPU_Q_FENCE_DWORDS	7
#define TGPU_Q_VA(chid)		(DRM_TGPU_VA_KERNEL_START + \
				 (u64)(chid) * TGPU_Q_SIZE)

struct drm_device;
struct drm_file;
struct tgpu_device;
struct tgpu_bo;
struct tgpu_file;
struct tgpu_vm;

/**
 * struct tgpu_uq - what a user-submit queue has more (tgpu_uq.c)
 * @ring: its GPFIFO and USERD, DRM_TGPU_USER_RING_SIZE bytes of VRAM in
 *	one block, which the process maps
 * @wait: DRM_IOCTL_TGPU_WAIT sleeps here; the non-stall interrupt, a
 *	failure and the queue's end wake it
 * @fences: its DRM_IOCTL_TGPU_USER_FENCE fences not signalled yet, under
 *	the queue's fence_lock
 * @watchdog: the hang check, every timeout_ms
 * @snap: its channel and engine at the last check
 * @rearms: checks in a row that found progress but GP_GET still
 * @signals: non-stall events handled for it (a watchdog's poll that
 *	handles one found a lost interrupt)
 * @snap_signals: @signals at the last check
 * @progress_ns: when a check last saw it move, or its start: a hang's
 *	detection time counts from there
 * @fence_seq: @fences made so far, under the queue's fence_lock (an idle
 *	channel fails only those made before it was looked at)
 * @irq_signals: @signals when a check found its interrupt pending
 * @irq_check: the next check, a jiffy later, only looks whether it still
 *	is with no interrupt handled since (a lost interrupt)
 * @bell_put: the USERD GP_PUT a check found unseen by the idle channel
 * @bell_check: the next check, a jiffy later, only looks whether
 *	@bell_put is still unseen (a lost doorbell)
 * @err_check: the next check, a jiffy later, only looks whether the
 *	channel's error is still pending with the queue not failed (its
 *	interrupt lost), and is the last
 * @replay_get: where a device reset starts the channel again, read before
 *	it (tgpu_reset.c); valid when @replay_valid
 * @replay_valid: @replay_get was read
 */
struct tgpu_uq {
	struct tgpu_bo *ring;
	wait_queue_head_t wait;
	struct list_head fences;
	struct delayed_work watchdog;
	struct tgpu_snap snap;
	unsigned int rearms;
	atomic_t signals;
	int snap_signals;
	u64 progress_ns;
	u64 fence_seq;
	int irq_signals;
	bool irq_check;
	u32 bell_put;
	bool bell_check;
	bool err_check;
	u32 replay_get;
	bool replay_valid;
};

/**
 * struct tgpu_queue - a submission queue: one hardware channel
 * @tdev: the device
 * @vm: the VM of the file that owns it
 * @id: its ID in the file
 * @chid: its channel
 * @engine: TGPU_RUNLIST_*
 * @priority: 0 to 3
 * @timeout_ms: its jobs' timeout (its own, from QUEUE_CREATE, or the
 *	job_timeout_ms parameter when it was created), 0 for none
 * @mem: instance block, GPFIFO, USERD, fence semaphore, fence pushbuffers
 * @va: GPU address of @mem in the kernel part of @vm
 * @gpfifo: CPU address of its GPFIFO ring
 * @userd: CPU address of its USERD
 * @mmu_fault_va: the address of its channel's last MMU fault record
 * @user: a user-submit queue (DRM_TGPU_QUEUE_USER_SUBMIT)
 * @uq: with @user, the rest of it
 * @ref: the file's reference, and a DRM_IOCTL_TGPU_WAIT's
 * @sched: its scheduler: one per queue, one entity on it
 * @entity: the scheduler entity jobs are pushed to
 * @submit_lock: makes arming and pushing a job one step
 * @gp_put: the next GPFIFO entry to write (scheduler context only)
 * @seqno: the last fence sequence number given to a job
 * @fence_ctx: dma_fence context of the hardware fences
 * @fence_lock: protects @fences and @error
 * @fences: hardware fences not signalled yet (struct tgpu_fence), in
 *	@seqno order
 * @error: 0, or why the queue is dead (negative errno)
 * @dev_link: in &tgpu_device.queues, under its queues_lock
 * @rl_link: in its engine's &tgpu_runlist.queues, under rl_lock
 * @stopped: a recovery stopped its scheduler (under the reset lock)
 * @busy_seen: the channel's CHAN_BUSY_NS already counted for fdinfo
 * @pid: the process that created it, for the logs
 * @comm: its name
 */
struct tgpu_queue {
	struct tgpu_device *tdev;
	struct tgpu_vm *vm;
	u32 id;
	u32 chid;
	u32 engine;
	u32 priority;
	unsigned int timeout_ms;
	struct tgpu_vram_obj mem;
	u64 va;
	void __iomem *gpfifo;
	void __iomem *userd;
	bool user;
	struct tgpu_uq uq;
	struct kref ref;
	struct drm_gpu_scheduler sched;
	struct drm_sched_entity entity;
	struct mutex submit_lock; /* job arm + push */
	u32 gp_put;
	u64 seqno;
	u64 fence_ctx;
	spinlock_t fence_lock; /* fences, error */
	struct list_head fences;
	int error;
	u32 chan_error, chan_error_info;
	u64 fault_va;
	u64 mmu_fault_va;
	struct list_head dev_link;
	struct list_head rl_link;
	bool stopped;
	u64 busy_seen;
	struct pid *pid;
	char comm[TASK_COMM_LEN];
};

const char *tgpu_engine_name(u32 engine);
int tgpu_queues_init(struct tgpu_device *tdev);
void tgpu_channels_stop(struct tgpu_device *tdev);
void tgpu_runlists_update(struct tgpu_device *tdev, u32 engine);
void tgpu_runlist_submit(struct tgpu_device *tdev, u32 engine);
void tgpu_queues_signal(struct tgpu_device *tdev);
void tgpu_queues_fail_all(struct tgpu_device *tdev, int error);
void tgpu_queues_chan_error(struct tgpu_device *tdev, u32 chid, u32 code,
			    u32 info, u64 fault_va);
int tgpu_file_queues_wait(struct tgpu_file *tfile);
struct tgpu_queue *tgpu_file_queue_get(struct tgpu_file *tfile, u32 id);
void tgpu_queue_put(struct tgpu_queue *q);
void tgpu_file_queues_fini(struct tgpu_file *tfile, struct drm_file *file);

int tgpu_ioctl_queue_create(struct drm_device *ddev, void *data,
			    struct drm_file *file);
int tgpu_ioctl_queue_query(struct drm_device *ddev, void *data,
			   struct drm_file *file);
int tgpu_ioctl_queue_destroy(struct drm_device *ddev, void *data,
			     struct drm_file *file);
int tgpu_ioctl_submit(struct drm_device *ddev, void *data,
		      struct drm_file *file);

#endif /* __TGPU_QUEUE_H__ */
