/* SPDX-License-Identifier: GPL-2.0-only OR MIT */
/* Copyright (c) 2026 The tgpu authors */

#ifndef __TGPU_ECC_H__
#define __TGPU_ECC_H__

#include <linux/atomic.h>
#include <linux/mutex.h>
#include <linux/sysfs.h>
#include <linux/types.h>
#include <linux/workqueue.h>

#include <tgpu/ecc.h>

struct seq_file;
struct tgpu_device;

/**
 * struct tgpu_retired_page - a VRAM page the InfoROM lists as retired
 * @addr: VRAM address, 4 KiB aligned
 * @cause: TGPU_RETIRED_CAUSE_SBE or TGPU_RETIRED_CAUSE_DBE
 * @time: when it was retired, Unix seconds
 * @reserved: kept out of the VRAM allocator: retired.  Else pending: in
 *	use when it was retired; kept out once its owner frees it, or from
 *	the driver's next load (CPU faults on it get SIGBUS until then)
 */
struct tgpu_retired_page {
	u64 addr;
	u32 cause;
	u64 time;
	bool reserved;
};

/* Pages with a corrected error that the driver keeps count of. */
#define TGPU_ECC_SBE_PAGES	32

/**
 * struct tgpu_ecc - ECC state
 * @capable: the board has ECC (ECC_CAPS)
 * @enabled: ECC is on: the driver enabled it and the scrub finished
 * @pending: the mode asked for through sysfs ecc_mode, applied at the
 *	next device reset (as nvidia-smi -e)
 * @degraded: more pages retired than the retirement limit, or a page
 *	that could not be retired
 * @scrub_ns: the scrub's duration as the device reports it
 * @lock: @retired, @nr_retired, @sbe_page, @degraded (the error work,
 *	sysfs); CPU faults read @retired without it (@nr_retired is
 *	published after its entry)
 * @nr_retired: entries of @retired
 * @nr_pending: those not reserved yet (tgpu_ecc_take_pending() makes
 *	them reserved, under the VRAM allocator's lock)
 * @retired: the InfoROM's retired pages, and those retired since probe
 * @sbe_page: pages with corrected errors, and how many (a second one
 *	retires the page); the oldest is forgotten for a new one
 * @sbe_next: the slot of @sbe_page a new page takes
 * @wq: the error work's workqueue (ordered; WQ_MEM_RECLAIM, since the
 *	reset workqueue's channel-error dump waits for it)
 * @work: the error work: the interrupt handler only acknowledges
 * @log_overflows: address-log overflows seen (errors whose address the
 *	driver never learnt)
 */
struct tgpu_ecc {
	bool capable;
	bool enabled;
	bool pending;
	bool degraded;
	u64 scrub_ns;
	struct mutex lock; /* retired pages, SBE pages */
	u32 nr_retired;
	atomic_t nr_pending;
	struct tgpu_retired_page retired[TGPU_INFOROM_MAX_RETIRED];
	struct {
		u64 page;
		u32 count;
	} sbe_page[TGPU_ECC_SBE_PAGES];
	u32 sbe_next;
	struct workqueue_struct *wq;
	struct work_struct work;
	u64 log_overflows;
};

int tgpu_ecc_init(struct tgpu_device *tdev);
void tgpu_ecc_resume(struct tgpu_device *tdev);
void tgpu_ecc_irq(struct tgpu_device *tdev);
bool tgpu_ecc_page_poisoned(struct tgpu_device *tdev, u64 addr);
void tgpu_ecc_take_pending(struct tgpu_device *tdev);
u32 tgpu_ecc_retired_count(struct tgpu_device *tdev, u32 cause);
void tgpu_ecc_show(struct tgpu_device *tdev, struct seq_file *m);
int tgpu_ecc_inject(struct tgpu_device *tdev, u64 addr, bool dbe,
		    bool sticky);
/* sysfs under the PCI device (the PCI driver's dev_groups) */
extern const struct attribute_group tgpu_ecc_group, tgpu_ecc_error_group;

#endif /* __TGPU_ECC_H__ */
