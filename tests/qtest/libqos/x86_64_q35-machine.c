/*
 * libqos machine node for x86_64's q35 board: "x86_64/q35", whose
 * PCI host's bus is reached through the PC configuration ports as the
 * pc machine's is.  Its allocator hands out guest RAM above 1 MiB.
 *
 * Copyright (c) 2026 The tgpu authors
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */

#include "qemu/osdep.h"
#include "../libqtest.h"
#include "qgraph.h"
#include "pci-pc.h"
#include "qemu/module.h"
#include "malloc-pc.h"

typedef struct Q35PCIHost {
    QOSGraphObject obj;
    QPCIBusPC pci;
} Q35PCIHost;

typedef struct QX86Q35Machine {
    QOSGraphObject obj;
    QGuestAllocator alloc;
    Q35PCIHost host;
} QX86Q35Machine;

/* OBJ if NAME is CHILD, the one thing OWNER has; else a broken graph. */
static void *q35_only(const char *owner, const char *child, void *obj,
                      const char *name)
{
    if (g_strcmp0(name, child)) {
        fprintf(stderr, "%s not present in %s\n", name, owner);
        g_assert_not_reached();
    }
    return obj;
}

static QOSGraphObject *q35_host_get_device(void *obj, const char *device)
{
    Q35PCIHost *host = obj;

    return q35_only("q35-pcihost", "pci-bus-pc", &host->pci.obj, device);
}

static void q35_destructor(QOSGraphObject *obj)
{
    QX86Q35Machine *machine = (QX86Q35Machine *)obj;

    alloc_destroy(&machine->alloc);
}

static void *q35_get_driver(void *object, const char *interface)
{
    QX86Q35Machine *machine = object;

    return q35_only("x86_64/q35", "memory", &machine->alloc, interface);
}

static QOSGraphObject *q35_get_device(void *obj, const char *device)
{
    QX86Q35Machine *machine = obj;

    return q35_only("x86_64/q35", "q35-pcihost", &machine->host.obj, device);
}

static void *qos_create_machine_q35(QTestState *qts)
{
    QX86Q35Machine *machine = g_new0(QX86Q35Machine, 1);

    machine->obj.get_device = q35_get_device;
    machine->obj.get_driver = q35_get_driver;
    machine->obj.destructor = q35_destructor;
    pc_alloc_init(&machine->alloc, qts, ALLOC_NO_FLAGS);
    machine->host.obj.get_device = q35_host_get_device;
    qpci_init_pc(&machine->host.pci, qts, &machine->alloc);
    return &machine->obj;
}

static void q35_machine_register_nodes(void)
{
    qos_node_create_machine("x86_64/q35", qos_create_machine_q35);
    qos_node_contains("x86_64/q35", "q35-pcihost", NULL);

    qos_node_create_driver("q35-pcihost", NULL);
    qos_node_contains("q35-pcihost", "pci-bus-pc", NULL);
}

libqos_init(q35_machine_register_nodes);
