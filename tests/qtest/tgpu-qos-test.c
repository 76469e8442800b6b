/*
 * QTest testcase for tgpu through the libqos graph (qos-test): the
 * "tgpu" node on q35's PCI bus, its identity, and a bypass channel whose
 * memory comes from the node's allocators -- VRAM for the channel,
 * guest RAM for the semaphore it releases.
 *
 * Copyright (c) 2026 The tgpu authors
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */

#include "qemu/osdep.h"
#include "libqos/qgraph.h"
#include "tgpu-qtest.h"

static void test_id(void *obj, void *data, QGuestAllocator *alloc)
{
    QTgpu *gpu = obj;
    T t;

    tgpu_attach(&t, gpu);
    g_assert_cmphex(qpci_config_readw(t.dev, PCI_VENDOR_ID), ==,
                    TGPU_PCI_VENDOR_ID);
    g_assert_cmphex(qpci_config_readw(t.dev, PCI_DEVICE_ID), ==,
                    TGPU_PCI_DEVICE_ID_P100);
    g_assert_cmphex(rd(&t, TGPU_PMC_MAGIC), ==, TGPU_MAGIC);
    g_assert_cmpuint(rd(&t, TGPU_PMC_VRAM_SIZE_LO), ==, QTGPU_VRAM_SIZE);
    g_assert_cmpuint(rd(&t, TGPU_PMC_VRAM_SIZE_HI), ==, 0);
    g_assert_cmpuint(t.nch, >, 0);
}

/*
 * Channel 0 in bypass mode, everything it fetches in VRAM from the
 * node's allocator, releases a semaphore in guest RAM from the
 * machine's; then one in VRAM, read back through BAR1.
 */
static void test_release(void *obj, void *data, QGuestAllocator *alloc)
{
    QTgpu *gpu = obj;
    uint64_t sem = guest_alloc(alloc, 4 * KiB);
    uint64_t vsem;
    T t;
    Chan *c;

    tgpu_attach(&t, gpu);
    g_assert(t.ram == alloc);
    vsem = vram_alloc(&t, 4 * KiB);
    runlist_set(&t, TGPU_RUNLIST_COMPUTE, (uint32_t[]){ 0 }, 1);
    c = chan_init(&t, 0, vram_alloc(&t, TGPU_GP_ENTRY_SIZE << GP_LOG2_DEFAULT),
                  vram_alloc(&t, TGPU_USERD_SIZE), vram_alloc(&t, 4 * KiB),
                  4 * KiB);
    chan_up_cfg(&t, c);

    qtest_writel(t.qts, sem, 0);
    run_release(&t, c, SYS(sem), 0x7a5e0001);
    g_assert_cmphex(qtest_readl(t.qts, sem), ==, 0x7a5e0001);
    run_release(&t, c, vsem, 0x7a5e0002);
    g_assert_cmphex(qpci_io_readl(t.dev, t.bar1, vsem), ==, 0x7a5e0002);
    assert_no_error_pending(&t);
    guest_free(alloc, sem);
}

static void register_tgpu_test(void)
{
    QOSGraphTestOptions opts = {
        .edge.before_cmd_line = "-nodefaults",
    };

    qos_add_test("id", "tgpu", test_id, &opts);
    qos_add_test("semaphore-release", "tgpu", test_release, &opts);
}

libqos_init(register_tgpu_test);
