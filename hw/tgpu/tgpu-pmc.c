/*
 * tgpu PMC: chip identity and master control registers
 *
 * Copyright (c) 2026 The tgpu authors
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */

#include "qemu/osdep.h"
#include "tgpu.h"

uint32_t tgpu_pmc_read(TGPUState *s, hwaddr addr, bool *ok)
{
    const TGPUModel *m = s->model;

    *ok = true;
    switch (addr) {
    case TGPU_PMC_BOOT_0:
        return (uint32_t)m->arch << TGPU_BOOT_0_ARCH_SHIFT |
               (uint32_t)m->impl << TGPU_BOOT_0_IMPL_SHIFT |
               (uint32_t)TGPU_PCI_REVISION << TGPU_BOOT_0_REV_SHIFT;
    case TGPU_PMC_MAGIC:
        return TGPU_MAGIC;
    case TGPU_PMC_IFACE_VERSION:
        return TGPU_IFACE_VERSION_MAJOR << 16 | TGPU_IFACE_VERSION_MINOR;
    case TGPU_PMC_SCRATCH:
        return s->pmc_scratch;
    case TGPU_PMC_VRAM_SIZE_LO:
        return (uint32_t)s->vram_size;
    case TGPU_PMC_VRAM_SIZE_HI:
        return (uint32_t)(s->vram_size >> 32);
    case TGPU_PMC_SM_COUNT:
        return s->sm_count;
    case TGPU_PMC_ENGINES:
        return TGPU_ENGINE_COMPUTE | TGPU_ENGINE_CE0 | TGPU_ENGINE_CE1;
    case TGPU_PMC_CLK_SM_BASE_MHZ:
        return m->clk_sm_base_mhz;
    case TGPU_PMC_CLK_SM_BOOST_MHZ:
        return m->clk_sm_boost_mhz;
    case TGPU_PMC_CLK_MEM_MHZ:
        return m->clk_mem_mhz;
    case TGPU_PMC_POWER_LIMIT_MW:
        return m->power_limit_mw;
    case TGPU_PMC_CHANNELS:
        return s->num_channels;
    case TGPU_PMC_INTR:
        return tgpu_intr_status(s);
    case TGPU_PMC_INTR_EN:
        return s->pmc_intr_en;
    case TGPU_PMC_ENGINE_RESET:
        return 0;
    case TGPU_PMC_ENGINE_PROGRESS(0) ...
         TGPU_PMC_ENGINE_PROGRESS(TGPU_NR_RUNLISTS - 1):
        return tgpu_engine_progress(
            s->engine[(addr - TGPU_PMC_ENGINE_PROGRESS(0)) / 4]);
    }
    *ok = false;
    return TGPU_REG_BADF;
}

bool tgpu_pmc_write(TGPUState *s, hwaddr addr, uint32_t val)
{
    switch (addr) {
    case TGPU_PMC_SCRATCH:
        s->pmc_scratch = val;
        return true;
    case TGPU_PMC_INTR_EN:
        s->pmc_intr_en = val & (TGPU_INTR_FIFO | TGPU_INTR_NONSTALL |
                                TGPU_INTR_MMU | TGPU_INTR_ECC |
                                TGPU_INTR_THERMAL);
        tgpu_irq_update(s);
        return true;
    case TGPU_PMC_ENGINE_RESET:
        tgpu_host_engine_reset(s, val & (TGPU_ENGINE_COMPUTE |
                                         TGPU_ENGINE_CE0 | TGPU_ENGINE_CE1));
        return true;
    }
    return false;
}

void tgpu_pmc_reset(TGPUState *s)
{
    s->pmc_scratch = 0;
    s->pmc_intr_en = 0;
}
