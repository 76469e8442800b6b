/*
 * libqos driver for the tgpu emulated GPU: the "tgpu" qgraph node, which
 * a "pci-bus" consumes, and its memory: the machine's allocator for
 * guest RAM and one of VRAM offsets for device-local memory.
 *
 * Copyright (c) 2026 The tgpu authors
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */

#include "qemu/osdep.h"
#include "qemu/host-utils.h"
#include "tgpu.h"
#include "tgpu/regs.h"
#include "qemu/module.h"

void qtgpu_vram_alloc_init(QGuestAllocator *vram, uint64_t vram_size)
{
    alloc_init(vram, ALLOC_NO_FLAGS, QTGPU_VRAM_RESERVED, vram_size, 4 * KiB);
}

uint64_t qtgpu_alloc_aligned(QGuestAllocator *a, uint64_t size,
                             uint64_t align)
{
    uint64_t addr, head, pad = 0;

    g_assert(is_power_of_2(align) && align >= a->page_size);
    /* where guest_alloc() finds room for SIZE at an aligned address */
    addr = guest_alloc(a, size + align - a->page_size);
    guest_free(a, addr);
    /* take the head off that block, then SIZE from the aligned address */
    head = ROUND_UP(addr, align) - addr;
    if (head) {
        pad = guest_alloc(a, head);
    }
    addr = guest_alloc(a, size);
    if (!(addr & (align - 1))) {
        guest_free(a, pad);
        return addr;
    }
    /* an earlier hole took part of it: round up in a larger block */
    guest_free(a, addr);
    return ROUND_UP(guest_alloc(a, size + align - a->page_size), align);
}

/* ---- the qgraph node --------------------------------------------------- */

static void *tgpu_get_driver(void *obj, const char *interface)
{
    QTgpu *gpu = obj;

    if (!g_strcmp0(interface, "tgpu")) {
        return gpu;
    }
    if (!g_strcmp0(interface, "pci-device")) {
        return &gpu->dev;
    }
    fprintf(stderr, "%s not present in tgpu\n", interface);
    g_assert_not_reached();
}

static void tgpu_start_hw(QOSGraphObject *obj)
{
    QTgpu *gpu = (QTgpu *)obj;
    uint64_t size;

    qpci_device_enable(&gpu->dev);
    gpu->bar0 = qpci_iomap(&gpu->dev, TGPU_BAR0, NULL);
    gpu->bar1 = qpci_iomap(&gpu->dev, TGPU_BAR1, &size);
    g_assert_cmpuint(size, ==, QTGPU_VRAM_SIZE);
}

static void tgpu_destructor(QOSGraphObject *obj)
{
    QTgpu *gpu = (QTgpu *)obj;

    alloc_destroy(&gpu->vram);
}

static void *tgpu_create(void *pci_bus, QGuestAllocator *alloc, void *addr)
{
    QTgpu *gpu = g_new0(QTgpu, 1);

    qpci_device_init(&gpu->dev, pci_bus, addr);
    gpu->ram = alloc;
    qtgpu_vram_alloc_init(&gpu->vram, QTGPU_VRAM_SIZE);
    gpu->obj.get_driver = tgpu_get_driver;
    gpu->obj.start_hw = tgpu_start_hw;
    gpu->obj.destructor = tgpu_destructor;
    return &gpu->obj;
}

static void tgpu_register_nodes(void)
{
    QPCIAddress addr = {
        .devfn = QPCI_DEVFN(4, 0),
        .vendor_id = TGPU_PCI_VENDOR_ID,
        .device_id = TGPU_PCI_DEVICE_ID_P100,
    };
    QOSGraphEdgeOptions opts = {
        .extra_device_opts = "addr=04.0,vram-size=64M",
    };

    add_qpci_address(&opts, &addr);
    qos_node_create_driver("tgpu", tgpu_create);
    qos_node_consumes("tgpu", "pci-bus", &opts);
    qos_node_produces("tgpu", "pci-device");
}

libqos_init(tgpu_register_nodes);
