/*
 * tgpu: emulated Tesla-class compute GPU, device state shared by its units
 *
 * Copyright (c) 2026 The tgpu authors
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */

#ifndef HW_TGPU_TGPU_H
#define HW_TGPU_TGPU_H

#include "hw/pci/pci_device.h"
#include "qom/object.h"
#include "tgpu/regs.h"

#define TYPE_TGPU "tgpu"
OBJECT_DECLARE_SIMPLE_TYPE(TGPUState, TGPU)

/* A board configuration: what model=p100|p40|m40 selects. */
typedef struct TGPUModel {
    const char *name;
    uint16_t device_id;
    uint8_t arch;
    uint8_t impl;
    uint64_t vram_size;
    uint32_t sm_count;
    uint32_t clk_sm_base_mhz;
    uint32_t clk_sm_boost_mhz;
    uint32_t clk_mem_mhz;
    uint32_t power_limit_mw;
} TGPUModel;

struct TGPUState {
    PCIDevice parent_obj;

    /* properties */
    char *model_name;
    uint64_t vram_size;         /* 0: the model's own */
    uint32_t sm_count;          /* 0: the model's own */

    const TGPUModel *model;

    MemoryRegion bar0;          /* container: registers + MSI-X */
    MemoryRegion mmio;          /* register blocks */
    MemoryRegion bar1;          /* container: VRAM, then nothing */
    MemoryRegion vram;

    /* PMC */
    uint32_t pmc_scratch;
};

/* tgpu-pmc.c: identity and master control */
uint32_t tgpu_pmc_read(TGPUState *s, hwaddr addr, bool *ok);
bool tgpu_pmc_write(TGPUState *s, hwaddr addr, uint32_t val);
void tgpu_pmc_reset(TGPUState *s);

#endif /* HW_TGPU_TGPU_H */
