/* SPDX-License-Identifier: GPL-2.0-only OR MIT */
/* Copyright (c) 2026 The tgpu authors */

/*
 * Recovery: hang checks, engine and device reset, guilty contexts, a
 * lost bus, and the lines that carry an NVIDIA Xid (tgpu_reset.c).
 */
#ifndef __TGPU_RESET_H__
#define __TGPU_RESET_H__

#include <linux/atomic.h>
#include <linux/device.h>
#include <linux/mutex.h>
#include <linux/srcu.h>
#include <linux/wait.h>
#include <linux/types.h>
#include <linux/workqueue.h>

#include <drm/gpu_scheduler.h>

struct pci_dev;
struct seq_file;
struct tgpu_device;
struct tgpu_queue;

/*
 * One line per fault the driver handles, with the Xid of its kind, e.g.
 * "tgpu 0000:00:02.0: Xid 8: channel 5 (pid 123, sgemm) stopped
 * processing, engine compute reset" (docs/driver/kmd.md, "Xid lines").
 */
#define tgpu_xid(tdev, xid, fmt, ...) \
	dev_err_ratelimited((tdev)->base.dev, "Xid %u: " fmt, (xid), \
			    ##__VA_ARGS__)

/**
 * struct tgpu_reset - recovery state of a device
 * @wq: ordered: every queue's timeout handler, and the health check, run
 *	on it one at a time
 * @lock: held through a recovery and a device reset
 * @frozen: from the start of a device reset to its end the BARs do not
 *	decode (the PCI core turns memory decoding off, then the FLR; AER
 *	resets the link): a CPU store through BAR1 would be dropped and a
 *	load read all ones.  CPU faults on VRAM objects and the driver's own
 *	VRAM writers outside a recovery wait (tgpu_bars_enter())
 * @bars: the SRCU read sections of those accesses, which a freeze waits
 *	for; around the access only, never across a wait for the GPU
 * @thaw: woken when the BARs decode again
 * @aer_watchdog: ends an AER recovery that the PCI core gave up on (it
 *	tells the driver nothing then): the device is lost
 * @aer_deadline: when (jiffies) the AER recovery under way counts as
 *	given up
 * @owner: the task holding @lock, so that the PCI core's reset_prepare,
 *	called from a device reset the driver started, does not take it
 *	again
 * @count: resets of an engine or the device since probe
 * @vram_lost: device resets since probe: VRAM is assumed lost at each
 * @missed_irqs: fences found signalled by a timeout check: the
 *	interrupt that should have signalled them was lost
 * @health: the periodic check for a lost bus
 * @unplug: drm_dev_unplug() once the bus is lost, outside the section
 *	that found it
 * @unplug_lock: one drm_dev_unplug(), from @unplug or the unbind
 * @active: a recovery is under way: an ENGINE_RESET error it causes is
 *	its to handle, not the interrupt handler's (under the irq lock)
 * @recovering: the driver itself started the device reset under way
 * @aer: AER's error_detected began a device reset; resume ends it
 * @device: a device reset from sysfs or AER is under way: timeouts wait
 * @lost: the device fell off the bus; nothing touches it any more
 * @detect_ns: the last hang: from its job's run_job to the hang check
 *	that found it (debugfs "recovery", make bench)
 * @engine_ns: the last engine recovery: from the hang check to the
 *	schedulers running again, the innocent work handed back
 * @device_ns: the last device reset: from its start to the device
 *	serving again
 * @fail_at_ns: when (CLOCK_MONOTONIC) the last recovery failed the
 *	guilty fences, for waiters to time their wake-up against
 * @chan_dump: the devcoredump of a channel error the device reported,
 *	taken on @wq (the interrupt handler cannot)
 * @dump_chid: the channel @chan_dump is for, -1 when none is queued
 */
struct tgpu_reset {
	struct workqueue_struct *wq;
	struct mutex lock; /* recovery, device reset */
	bool frozen;
	struct srcu_struct bars;
	wait_queue_head_t thaw;
	struct delayed_work aer_watchdog;
	unsigned long aer_deadline;
	struct task_struct *owner;
	atomic_t count;
	atomic_t vram_lost;
	atomic64_t missed_irqs;
	struct delayed_work health;
	struct work_struct unplug;
	struct mutex unplug_lock; /* drm_dev_unplug() once */
	bool active;
	bool recovering;
	bool aer;
	bool device;
	bool lost;
	u64 detect_ns, engine_ns, device_ns, fail_at_ns;
	struct work_struct chan_dump;
	atomic_t dump_chid;
};

/**
 * struct tgpu_snap - where a channel and its engine were at a hang check
 * @gp: the channel's GP_GET
 * @pb: its pushbuffer position (low 32 bits)
 * @progress: its engine's ENGINE_PROGRESS (or at run_job)
 * @busy: its CHAN_BUSY_NS, the engine time its work has had
 * @ran_ns: what the checks since the budget started charged it: its own
 *	engine time, not the wall clock (tgpu_reset_moved())
 * @last_ns: what the last check charged it
 * @valid: @gp and @pb were read (a check happened)
 * @busy_valid: @busy was read
 */
struct tgpu_snap {
	u32 gp, pb, progress;
	u64 busy, ran_ns, last_ns;
	bool valid, busy_valid;
};

int tgpu_reset_init(struct tgpu_device *tdev);
bool tgpu_reset_moved(struct tgpu_queue *q, struct tgpu_snap *snap,
		      u32 *state);
bool tgpu_reset_budget_left(const struct tgpu_queue *q,
			    const struct tgpu_snap *snap);
void tgpu_reset_missed_irq(struct tgpu_queue *q, const char *what);
void tgpu_reset_user_hang(struct tgpu_device *tdev, struct tgpu_queue *q,
			  u32 state, bool moved);
enum drm_gpu_sched_stat tgpu_reset_timedout(struct drm_sched_job *sjob);
bool tgpu_reset_check_bus(struct tgpu_device *tdev);
void tgpu_reset_check_bus_soon(struct tgpu_device *tdev);
void tgpu_reset_chan_dump_soon(struct tgpu_device *tdev, u32 chid);
int tgpu_bars_enter(struct tgpu_device *tdev);
int tgpu_bars_enter_killable(struct tgpu_device *tdev, int *idx);
bool tgpu_bars_tryenter(struct tgpu_device *tdev, int *idx);
void tgpu_bars_exit(struct tgpu_device *tdev, int idx);
int tgpu_reg_read(struct tgpu_device *tdev, u32 reg, u32 *val);
void tgpu_reset_unplug_once(struct tgpu_device *tdev);
void tgpu_reset_prepare(struct pci_dev *pdev);
void tgpu_reset_done(struct pci_dev *pdev);
void tgpu_reset_show(struct tgpu_device *tdev, struct seq_file *m);
extern const struct pci_error_handlers tgpu_pci_err_handlers;

#endif /* __TGPU_RESET_H__ */
