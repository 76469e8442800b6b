/* SPDX-License-Identifier: GPL-2.0-only OR MIT */
/* Copyright (c) 2026 The tgpu authors */

#ifndef __TGPU_IRQ_H__
#define __TGPU_IRQ_H__

#include <linux/atomic.h>

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
 * struct tgpu_irq - interrupt delivery state
 * @mode: how interrupts are delivered
 * @nr_vectors: number of vectors allocated, either TGPU_MSIX_NR_VECTORS
 *	(one per source class, indexed by TGPU_MSIX_VEC_*) or 1 (combined)
 * @count: interrupts handled per TGPU_MSIX_VEC_* vector
 * @combined: interrupts handled on the combined vector, when there is
 *	only one
 */
struct tgpu_irq {
	enum tgpu_irq_mode mode;
	unsigned int nr_vectors;
	atomic64_t count[TGPU_MSIX_NR_VECTORS];
	atomic64_t combined;
};

int tgpu_irq_init(struct tgpu_device *tdev);
unsigned int tgpu_irq_msix_vectors(const struct tgpu_device *tdev);

#endif /* __TGPU_IRQ_H__ */
