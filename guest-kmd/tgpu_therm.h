/* SPDX-License-Identifier: GPL-2.0-only OR MIT */
/* Copyright (c) 2026 The tgpu authors */

#ifndef __TGPU_THERM_H__
#define __TGPU_THERM_H__

#include <linux/mutex.h>
#include <linux/sysfs.h>
#include <linux/types.h>
#include <linux/workqueue.h>

#include <tgpu/therm.h>

struct tgpu_device;

/**
 * struct tgpu_therm - the software thermal governor
 * @work: runs the governor after a threshold interrupt
 * @lock: the state below
 * @boost: the board's boost clock, MHz
 * @min: its lowest clock, MHz
 * @request: the clock the governor asks for (CLK_REQUEST), MHz
 * @low: the request when the board cooled below the up threshold: the
 *	way back up starts from it
 * @active: the governor holds the clock below boost
 * @since_ns: when (ktime) @active last became true
 * @active_ns: time spent active before @since_ns
 * @steps: requests the governor wrote
 * @slowdowns: hardware slowdowns the device reported
 * @shutdowns: thermal shutdowns the device reported
 * @gating: the engines (TGPU_ENGINE_* bits) clock-gated while idle
 * @reason_base_ns: added to the device's reason time (REASON_NS): what
 *	it counted before each reset, which cleared it, less what it had
 *	counted when the driver loaded (modulo 2^64)
 * @last_ns: the device's reason time at its last good read
 * @saved_ns: the device's reason time as a device reset began
 * @gov_app_ns: of the device's applications_clocks_setting time, what
 *	the governor's requests account for (until @gov_mark_ns)
 * @gov_mark_ns: the device's applications_clocks_setting time when the
 *	governor last became active
 */
struct tgpu_therm {
	struct work_struct work;
	struct mutex lock; /* governor state */
	u32 boost, min;
	u32 request, low;
	bool active;
	u64 since_ns, active_ns;
	u64 steps;
	u32 slowdowns, shutdowns;
	u32 gating;
	u64 reason_base_ns[TGPU_THERM_REASON_BITS];
	u64 last_ns[TGPU_THERM_REASON_BITS];
	u64 saved_ns[TGPU_THERM_REASON_BITS];
	u64 gov_app_ns, gov_mark_ns;
};

int tgpu_therm_init(struct tgpu_device *tdev);
void tgpu_therm_suspend(struct tgpu_device *tdev);
void tgpu_therm_resume(struct tgpu_device *tdev);
void tgpu_therm_irq(struct tgpu_device *tdev);
/* sysfs under the PCI device (the PCI driver's dev_groups) */
extern const struct attribute_group tgpu_therm_group;
extern const struct attribute_group tgpu_therm_counters_group;

#endif /* __TGPU_THERM_H__ */
