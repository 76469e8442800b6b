/* SPDX-License-Identifier: GPL-2.0-only OR MIT */
/* Copyright (c) 2026 The tgpu authors */

#ifndef __TGPU_IRQ_H__
#define __TGPU_IRQ_H__

#include <linux/atomic.h>
#include <linux/list.h>
#include <linux/spinlock.h>
#include <linux/types.h>

#include <tgpu/regs.h>

struct tgpu_device;

/**
 * enum tgpu_irq_mode - how the device delivers its interrupts
 * @TGPU_IRQ_MODE_MSIX: MSI-X, one vector per source class when all of
 *	them could be allocated, else a single combined vector
 * @TGPU_IRQ_MODE_MSI: a single MSI vector
 * @TGPU_IRQ_MODE_INTX: the legacy INTx line, possibly shared
 */
enum tgpu_irq_mode {
	TGPU_IRQ_MODE_MSIX,
	TGPU_IRQ_MODE_MSI,
	TGPU_IRQ_MODE_INTX,
};

/**
 * struct tgpu_fault_buf - the MMU fault buffer, a ring in VRAM
 * @blocks: its VRAM (one buddy block)
 * @addr: VRAM address of the ring
 * @map: the ring, mapped through BAR1
 * @entries: number of records; 0 when there is no ring
 * @get: the next record to read
 */
struct tgpu_fault_buf {
	struct list_head blocks;
	u64 addr;
	void __iomem *map;
	u32 entries;
	u32 get;
};

/**
 * struct tgpu_irq - interrupt delivery state
 * @mode: how interrupts are delivered
 * @nr_vectors: number of vectors allocated, either TGPU_MSIX_NR_VECTORS
 *	(one per source class, indexed by TGPU_MSIX_VEC_*) or 1 (combined)
 * @enabled: TGPU_INTR_* units enabled in PMC_INTR_EN
 * @lock: serialises the unit handlers, which may also run at probe
 * @fault_buf: the MMU fault buffer, under @lock
 * @count: interrupts handled per TGPU_MSIX_VEC_* vector
 * @combined: interrupts handled on the combined vector, when there is
 *	only one
 * @chan_errors: channel errors reported by FIFO_ERR_PENDING
 * @runlist_errors: FIFO_INTR.RUNLIST events (a runlist was refused)
 * @nonstall: non-stall interrupts (fences)
 * @mmu_faults: fault records read from the fault buffer
 * @mmu_overflows: MMU_INTR.OVERFLOW events (faults dropped)
 * @ecc: ECC_INTR SBE/DBE events (the error work reads the address log)
 */
struct tgpu_irq {
	enum tgpu_irq_mode mode;
	unsigned int nr_vectors;
	u32 enabled;
	spinlock_t lock; /* serialises the unit handlers */
	struct tgpu_fault_buf fault_buf;
	atomic64_t count[TGPU_MSIX_NR_VECTORS];
	atomic64_t combined;
	atomic64_t chan_errors;
	atomic64_t runlist_errors;
	atomic64_t nonstall;
	atomic64_t mmu_faults;
	atomic64_t mmu_overflows;
	atomic64_t ecc;
};

int tgpu_irq_init(struct tgpu_device *tdev);
unsigned int tgpu_irq_msix_vectors(const struct tgpu_device *tdev);

void tgpu_irq_poll(struct tgpu_device *tdev);
bool tgpu_irq_chan_pending(struct tgpu_device *tdev, u32 chid, bool error);
void tgpu_irq_restore(struct tgpu_device *tdev);

#endif /* __TGPU_IRQ_H__ */
