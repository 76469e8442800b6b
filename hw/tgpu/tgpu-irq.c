/*
 * tgpu interrupts: top-level status, MSI-X vector per unit, INTx fallback
 *
 * Copyright (c) 2026 The tgpu authors
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */

#include "qemu/osdep.h"
#include "hw/pci/msix.h"
#include "tgpu.h"
#include "trace.h"

/* PMC_INTR: each unit's bit is the OR of its (status & enable). */
uint32_t tgpu_intr_status(TGPUState *s)
{
    uint32_t st = 0;

    if (tgpu_fifo_intr_status(s) & s->fifo_intr_en) {
        st |= TGPU_INTR_FIFO;
    }
    if (s->nonstall_intr & s->nonstall_intr_en) {
        st |= TGPU_INTR_NONSTALL;
    }
    if (s->mmu_intr & s->mmu_intr_en) {
        st |= TGPU_INTR_MMU;
    }
    if (s->ecc_intr & s->ecc_intr_en) {
        st |= TGPU_INTR_ECC;
    }
    if (s->therm_intr & s->therm_intr_en) {
        st |= TGPU_INTR_THERMAL;
    }
    return st;
}

void tgpu_irq_update(TGPUState *s)
{
    PCIDevice *pdev = PCI_DEVICE(s);
    bool level = false;

    /* off the bus the line stays low too */
    if (!msix_enabled(pdev) && !qatomic_read(&s->bus_lost)) {
        level = (tgpu_intr_status(s) & s->pmc_intr_en) != 0;
    }
    pci_set_irq(pdev, level);
}

/*
 * An event set a status bit of @unit: MSI-X is edge-triggered, so each
 * event of an enabled unit sends its vector's message.
 */
void tgpu_irq_raise(TGPUState *s, unsigned int unit)
{
    PCIDevice *pdev = PCI_DEVICE(s);
    uint32_t bit = 1u << unit;
    bool sends = tgpu_intr_status(s) & s->pmc_intr_en & bit;

    if (qatomic_read(&s->bus_lost)) {
        trace_tgpu_irq_lost(unit);
        tgpu_irq_update(s);
        return;
    }
    if (msix_enabled(pdev) && sends) {
        /* an injected loss drops this message; INTx is a level */
        if (tgpu_fault_hits(s, TGPU_FAULT_ACTIVE_IRQ, unit)) {
            trace_tgpu_irq_lost(unit);
            return;
        }
        trace_tgpu_irq_msix(unit);
        msix_notify(pdev, unit);
    }
    tgpu_irq_update(s);
}
