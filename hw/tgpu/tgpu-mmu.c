/*
 * tgpu MMU: the GPU address space that engines and the host unit use
 *
 * For now every channel runs in bypass mode (docs/hw/channels.md): low
 * addresses are VRAM, addresses from TGPU_BYPASS_SYSMEM_BASE up are guest
 * physical memory reached by PCI DMA.  Page tables and the TLB come with
 * the MMU; this file is where they go.
 *
 * Copyright (c) 2026 The tgpu authors
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */

#include "qemu/osdep.h"
#include "hw/pci/pci_device.h"
#include "system/dma.h"
#include "tgpu.h"
#include "trace.h"

/* Copy to or from VRAM; false when [addr, addr + len) is not all VRAM. */
bool tgpu_vram_rw(TGPUState *s, uint64_t addr, void *buf, uint64_t len,
                  bool is_write)
{
    uint8_t *vram = memory_region_get_ram_ptr(&s->vram);

    if (addr > s->vram_size || len > s->vram_size - addr) {
        return false;
    }
    if (is_write) {
        memcpy(vram + addr, buf, len);
    } else {
        memcpy(buf, vram + addr, len);
    }
    return true;
}

MemTxResult tgpu_gpu_rw(TGPUState *s, TGPUChannel *ch, uint64_t va,
                        void *buf, uint64_t len, bool is_write)
{
    if (va >= TGPU_VA_LIMIT || len > TGPU_VA_LIMIT - va) {
        return MEMTX_DECODE_ERROR;
    }
    if (va < TGPU_BYPASS_SYSMEM_BASE) {
        return tgpu_vram_rw(s, va, buf, len, is_write) ?
               MEMTX_OK : MEMTX_DECODE_ERROR;
    }
    if (va + len > TGPU_BYPASS_SYSMEM_BASE + TGPU_BYPASS_SYSMEM_BASE) {
        return MEMTX_DECODE_ERROR;
    }
    return pci_dma_rw(PCI_DEVICE(s), va - TGPU_BYPASS_SYSMEM_BASE, buf, len,
                      is_write ? DMA_DIRECTION_FROM_DEVICE :
                                 DMA_DIRECTION_TO_DEVICE,
                      MEMTXATTRS_UNSPECIFIED);
}

/* MEM_OP TLB invalidation: there is no TLB before the MMU lands. */
void tgpu_mmu_invalidate(TGPUState *s, uint32_t asid, uint64_t va,
                         uint64_t pages)
{
    trace_tgpu_mmu_invalidate(asid, va, pages);
}
