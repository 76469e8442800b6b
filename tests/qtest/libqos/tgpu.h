/*
 * libqos driver for the tgpu emulated GPU: the "tgpu" qgraph node and
 * the device's memory, allocated as libqos allocates guest RAM.
 *
 * Copyright (c) 2026 The tgpu authors
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */

#ifndef QOS_TGPU_H
#define QOS_TGPU_H

#include "qemu/units.h"
#include "pci.h"
#include "libqos-malloc.h"
#include "qgraph.h"

/*
 * VRAM as the qtests size it: 64 MiB, so that BAR1 fits the 32-bit MMIO
 * window libqos maps BARs in.
 */
#define QTGPU_VRAM_SIZE         (64 * MiB)

/*
 * The first 64 KiB of VRAM are never allocated: no allocation is at 0
 * (which libqos allocators keep for "none"), and a test that needs a
 * VRAM address nothing else uses has one.
 */
#define QTGPU_VRAM_RESERVED     (64 * KiB)

typedef struct QTgpu {
    QOSGraphObject obj;
    QPCIDevice dev;
    QPCIBar bar0;               /* registers, the doorbell page */
    QPCIBar bar1;               /* the VRAM aperture */
    QGuestAllocator *ram;       /* guest RAM: the machine's allocator */
    QGuestAllocator vram;       /* device-local memory, VRAM offsets */
} QTgpu;

/*
 * An allocator of VRAM offsets: 4 KiB pages of [QTGPU_VRAM_RESERVED,
 * VRAM_SIZE).  The device sees its VRAM at offset 0 (bypass and page
 * table addresses), the test through BAR1 at the same offset.
 */
void qtgpu_vram_alloc_init(QGuestAllocator *vram, uint64_t vram_size);

/*
 * SIZE bytes at an ALIGN-aligned address (a power of two, at least the
 * allocator's page) from A: a 2 MiB page, a page-table root.  Unlike
 * guest_alloc(), it is not freed on its own: alloc_destroy() takes it.
 */
uint64_t qtgpu_alloc_aligned(QGuestAllocator *a, uint64_t size,
                             uint64_t align);

#endif
