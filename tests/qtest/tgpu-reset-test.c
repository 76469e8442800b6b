/*
 * QTest testcase for tgpu: a guest resets the device, powers its slot off
 * or invalidates the TLB while an engine moves system memory, just after
 * it turned bus mastering off.  The engine thread's next access to guest
 * memory then finds no RAM there; had it bounced through MMIO it would
 * have waited for the BQL, which the main thread holds while it waits
 * for the engine -- QEMU hung for good (docs/hw/registers.md, "Engines
 * and the big lock").  Each case runs 20 times; each must finish, and
 * the device must answer and run work afterwards.
 *
 * Also hot-unplug: 50 cycles of plug, VRAM touched, unplug, and nothing
 * of the device stays behind.
 *
 * Copyright (c) 2026 The tgpu authors
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */

#include "qemu/osdep.h"
#include "tgpu-qtest.h"
#include "tgpu/copy.h"
#include "tgpu-kernel.h"

#define PB_SIZE             0x8000u

/* allocated at every start (reset_start) */
static struct {                 /* VRAM */
    ChanMem ch[NR_TEST_CHANNELS];
    KernelMem k;
    uint64_t dst;               /* the copy's destination */
} L;

static struct {                 /* guest RAM: what the engines read and write */
    uint64_t data;
} G;

#define SC_COPY             4
#define CH_GR               1               /* bypass, compute runlist */
#define CH_CE0              16              /* bypass, runlist CE0 */
#define CH_INV              24              /* bypass, runlist CE1: MEM_OP */
#define FAULTBUF_SIZE       KERNEL_FAULTBUF_SIZE

#define ITERATIONS          20

typedef enum Engine { ENG_COPY, ENG_COMPUTE } Engine;

typedef enum Trigger {
    TRIG_FLR,           /* COMMAND = 0, then Initiate FLR */
    TRIG_SLOT,          /* COMMAND = 0, then the slot's power off and on */
    TRIG_INV_REG,       /* COMMAND = memory only, then MMU_INVALIDATE */
    TRIG_INV_MEM_OP,    /* COMMAND = memory only, then a MEM_OP invalidate */
} Trigger;

typedef struct Case {
    Engine engine;
    Trigger trigger;
} Case;

static void chan_up_std(T *t, int ch, uint32_t subch, uint32_t cls)
{
    chan_up_class(t, chan_init_mem(t, ch, L.ch), subch, cls);
}

/* The device, behind a root port or not, and the tests' memory. */
static void reset_start(T *t, bool port)
{
    if (port) {
        tgpu_start_port(t, NULL);
    } else {
        tgpu_start(t, NULL);
    }
    chan_mem_alloc(t, L.ch, PB_SIZE);
    kernel_mem_alloc(t, &L.k, 64 * KiB);
    L.dst = vram_alloc(t, 4 * KiB);
    G.data = ram_alloc(t, 4 * KiB);
}

/* Everything a test programs, again after each reset of the function. */
static void setup(T *t)
{
    runlists_std(t);
    wr(t, TGPU_MMU_FAULT_BUF_LO, L.k.faultbuf);
    wr(t, TGPU_MMU_FAULT_BUF_HI, 0);
    wr(t, TGPU_MMU_FAULT_BUF_SIZE, FAULTBUF_SIZE);
    chan_up_std(t, CH_CE0, SC_COPY, TGPU_CLASS_COPY);
    chan_up_std(t, CH_GR, SC, TGPU_CLASS_COMPUTE);
    /* on a runlist of its own: its MEM_OP runs while the engine works */
    chan_up_std(t, CH_INV, SC_COPY, TGPU_CLASS_COPY);
}

static bool engine_busy(T *t, Engine e)
{
    return e == ENG_COPY ?
        rd(t, TGPU_CE_REG(0, TGPU_CE_STATUS)) & TGPU_CE_STATUS_BUSY :
        rd(t, TGPU_GR_STATUS) & TGPU_GR_STATUS_BUSY;
}

/*
 * A launch that moves system memory for seconds: the copy engine reads
 * the same 4 KiB line of guest RAM 2^20 times (each line mapped on its
 * own), or a warp loads, increments and stores a word of guest RAM in an
 * endless loop.  Returns once the engine is under way.
 */
static void start_dma(T *t, Engine e)
{
    static const uint64_t rmw[] = {
        LD(LDC, 64, 2, RZ, 0),                  /* r2:r3 = the address */
        LD(LDG, 32, 8, 2, 0),
        RI(IADD, 8, 8, 1),
        ST(STG, 32, 2, 0, 8),
        BRA(1),
    };
    g_autofree PB *pb = pb_new();
    uint64_t addr = SYS(G.data);
    gint64 end = g_get_monotonic_time() + WAIT_US;

    pa_wr32(t, SYS(G.data), 0);
    if (e == ENG_COPY) {
        pb_hdr(pb, TGPU_PB_OP_INC, SC_COPY, TGPU_CE_M_OFFSET_IN_UPPER, 4);
        pb_dw(pb, addr >> 32);
        pb_dw(pb, (uint32_t)addr);
        pb_dw(pb, 0);
        pb_dw(pb, L.dst);
        pb_hdr(pb, TGPU_PB_OP_INC, SC_COPY, TGPU_CE_M_PITCH_IN, 4);
        pb_dw(pb, 0);
        pb_dw(pb, 0);
        pb_dw(pb, 4096);
        pb_dw(pb, 1u << 20);
        pb_m(pb, SC_COPY, TGPU_CE_M_LAUNCH_DMA,
             TGPU_CE_LAUNCH(TGPU_CE_TRANSFER_NON_PIPELINED,
                            TGPU_CE_SEM_NONE, TGPU_CE_INTR_NONE) |
             TGPU_CE_LAUNCH_MULTI_LINE);
        submit(t, &t->ch[CH_CE0], pb);
        while (!rd(t, TGPU_CE_REG(0, TGPU_CE_PROGRESS_LO)) &&
               g_get_monotonic_time() < end) {
            g_usleep(100);
        }
        g_assert_cmpuint(rd(t, TGPU_CE_REG(0, TGPU_CE_PROGRESS_LO)), >, 0);
    } else {
        Kernel k = { rmw, ARRAY_SIZE(rmw), { 1 }, { 32 }, 0, &addr,
                     sizeof(addr) };

        pb_kernel_at(t, pb, &k, L.k.code, L.k.param, L.k.sem, 1);
        submit(t, &t->ch[CH_GR], pb);
        while (!pa_rd32(t, SYS(G.data)) && g_get_monotonic_time() < end) {
            g_usleep(100);
        }
        g_assert_cmpuint(pa_rd32(t, SYS(G.data)), >, 0);
    }
    g_assert_true(engine_busy(t, e));
}

static uint16_t exp_cap(QPCIDevice *d)
{
    uint8_t cap = qpci_find_capability(d, PCI_CAP_ID_EXP, 0);

    g_assert_cmpuint(cap, !=, 0);
    return cap;
}

static void trigger(T *t, Trigger trig)
{
    g_autofree PB *pb = pb_new();
    uint16_t cap, ctl;

    switch (trig) {
    case TRIG_FLR:
        cap = exp_cap(t->dev);
        qpci_config_writew(t->dev, PCI_COMMAND, 0);
        ctl = qpci_config_readw(t->dev, cap + PCI_EXP_DEVCTL);
        qpci_config_writew(t->dev, cap + PCI_EXP_DEVCTL,
                           ctl | PCI_EXP_DEVCTL_BCR_FLR);
        break;
    case TRIG_SLOT:
        /* power off with the power indicator on: no unplug, a reset */
        cap = exp_cap(t->port);
        qpci_config_writew(t->dev, PCI_COMMAND, 0);
        ctl = qpci_config_readw(t->port, cap + PCI_EXP_SLTCTL);
        ctl = (ctl & ~PCI_EXP_SLTCTL_PIC) | PCI_EXP_SLTCTL_PWR_IND_ON;
        qpci_config_writew(t->port, cap + PCI_EXP_SLTCTL,
                           ctl | PCI_EXP_SLTCTL_PCC);
        qpci_config_writew(t->port, cap + PCI_EXP_SLTCTL,
                           ctl & ~PCI_EXP_SLTCTL_PCC);
        break;
    case TRIG_INV_REG:
        qpci_config_writew(t->dev, PCI_COMMAND, PCI_COMMAND_MEMORY);
        wr(t, TGPU_MMU_INVALIDATE, TGPU_MMU_INV_ALL);
        break;
    case TRIG_INV_MEM_OP:
        qpci_config_writew(t->dev, PCI_COMMAND, PCI_COMMAND_MEMORY);
        pb_mem_op_c(pb, 0, 0, 0, TGPU_MEM_OP_TLB_INVALIDATE_ASID);
        submit(t, &t->ch[CH_INV], pb);
        /* the host unit runs it under the BQL: let the main loop turn */
        wait_done(t, &t->ch[CH_INV]);
        break;
    }
}

/* The device answers, its engines stop, and it runs work again. */
static void check_recovered(T *t, Engine e, Trigger trig)
{
    gint64 end = g_get_monotonic_time() + WAIT_US;

    if (trig == TRIG_FLR || trig == TRIG_SLOT) {
        tgpu_restore_bars(t);
        g_assert_cmphex(rd(t, TGPU_PMC_MAGIC), ==, TGPU_MAGIC);
        g_assert_false(engine_busy(t, e));
    } else {
        /* bus mastering off: the engine's next access to guest RAM faults */
        g_assert_cmphex(rd(t, TGPU_PMC_MAGIC), ==, TGPU_MAGIC);
        while (engine_busy(t, e) && g_get_monotonic_time() < end) {
            g_usleep(100);
        }
        qpci_device_enable(t->dev);
        /* a reset of the function, with bus mastering on, to start afresh */
        qpci_config_writew(t->dev, exp_cap(t->dev) + PCI_EXP_DEVCTL,
                           qpci_config_readw(t->dev, exp_cap(t->dev) +
                                             PCI_EXP_DEVCTL) |
                           PCI_EXP_DEVCTL_BCR_FLR);
        tgpu_restore_bars(t);
        g_assert_false(engine_busy(t, e));
    }
    setup(t);
    run_release(t, &t->ch[CH_GR], L.k.sem + 0x40, 0x5eed);
}

static void test_case(const void *opaque)
{
    const Case *c = opaque;
    T t;

    reset_start(&t, c->trigger == TRIG_SLOT);
    setup(&t);
    for (int i = 0; i < ITERATIONS; i++) {
        start_dma(&t, c->engine);
        trigger(&t, c->trigger);
        check_recovered(&t, c->engine, c->trigger);
    }
    tgpu_stop(&t);
}

/*
 * What a second fuzzing campaign hung QEMU with, on no reset at all:
 * bus mastering toggled, D3hot and back, and bursts of MMU_INVALIDATE,
 * in a seeded random order while both engines move system memory.  20
 * rounds of 16 steps, each round ended by an FLR; the device must answer
 * and run work after each.
 */
static void test_mixed(void)
{
    uint32_t seed = 0x7e5e7u;
    uint8_t pm;
    T t;

    reset_start(&t, false);
    pm = qpci_find_capability(t.dev, PCI_CAP_ID_PM, 0);
    g_assert_cmpuint(pm, !=, 0);
    setup(&t);
    for (int round = 0; round < ITERATIONS; round++) {
        start_dma(&t, ENG_COPY);
        start_dma(&t, ENG_COMPUTE);
        for (int i = 0; i < 16; i++) {
            seed = seed * 1103515245u + 12345u;
            switch ((seed >> 16) % 5) {
            case 0:
                qpci_config_writew(t.dev, PCI_COMMAND,
                                   PCI_COMMAND_MEMORY | PCI_COMMAND_MASTER);
                break;
            case 1:
                qpci_config_writew(t.dev, PCI_COMMAND, PCI_COMMAND_MEMORY);
                break;
            case 2:
                qpci_config_writew(t.dev, pm + PCI_PM_CTRL, 3);  /* D3hot */
                break;
            case 3:
                qpci_config_writew(t.dev, pm + PCI_PM_CTRL, 0);  /* D0 */
                break;
            default:
                /* in D3hot or with memory off these go nowhere */
                for (int j = 0; j < 8; j++) {
                    wr(&t, TGPU_MMU_INVALIDATE, TGPU_MMU_INV_ALL);
                }
                break;
            }
        }
        qpci_config_writew(t.dev, pm + PCI_PM_CTRL, 0);
        trigger(&t, TRIG_FLR);
        check_recovered(&t, ENG_COPY, TRIG_FLR);
        g_assert_false(engine_busy(&t, ENG_COMPUTE));
    }
    tgpu_stop(&t);
}

/* ---- hot-unplug ------------------------------------------------------ */

#define UNPLUG_CYCLES       50
#define UNPLUG_TOUCH        (8 * MiB)       /* VRAM written per cycle */

static void slot_power(T *t, bool on)
{
    uint16_t cap = exp_cap(t->port);
    uint16_t ctl = qpci_config_readw(t->port, cap + PCI_EXP_SLTCTL);

    ctl &= ~(PCI_EXP_SLTCTL_PCC | PCI_EXP_SLTCTL_PIC);
    ctl |= on ? PCI_EXP_SLTCTL_PWR_IND_ON :
                PCI_EXP_SLTCTL_PCC | PCI_EXP_SLTCTL_PWR_IND_OFF;
    qpci_config_writew(t->port, cap + PCI_EXP_SLTCTL, ctl);
}

/* RAM blocks, as "info ramblock" lists them (VRAM's has no name). */
static unsigned int ram_blocks(T *t)
{
    g_autofree char *out = qtest_hmp(t->qts, "info ramblock");
    unsigned int n = 0;

    for (const char *p = out; (p = strchr(p, '\n')); p++) {
        n++;
    }
    return n - 1;       /* the heading */
}

#ifdef CONFIG_LINUX
static uint64_t qemu_rss(T *t)
{
    g_autofree char *path = g_strdup_printf("/proc/%d/status",
                                            qtest_pid(t->qts));
    g_autofree char *text = NULL;
    const char *p;

    g_assert_true(g_file_get_contents(path, &text, NULL, NULL));
    p = strstr(text, "VmRSS:");
    g_assert_nonnull(p);
    return g_ascii_strtoull(p + 6, NULL, 10) * KiB;
}
#endif

/*
 * Plug the device in, touch its VRAM, unplug it as a guest does
 * (device_del, then the slot powered off): 50 times.  What the device
 * owned goes with it: no VRAM block stays behind, and QEMU does not grow
 * by the VRAM it touched.
 */
static void test_unplug_leak(void)
{
    QPCIBar bar0 = { 0 }, bar1 = { 0 };
    uint64_t rss0 = 0;
    unsigned int blocks;
    gint64 end;
    T t;

    memset(&t, 0, sizeof(t));
    /* native PCIe hotplug: q35 uses ACPI's on root ports by default */
    t.qts = qtest_init("-M q35 -nodefaults "
                       "-global ICH9-LPC.acpi-pci-hotplug-with-bridge-support="
                       "off -device pcie-root-port,id=rp0,addr=05.0,slot=1,"
                       "chassis=1");
    t.bus = qpci_new_pc(t.qts, NULL);
    port_setup(&t);
    blocks = ram_blocks(&t);
    for (int i = 0; i < UNPLUG_CYCLES; i++) {
        qtest_qmp_device_add(t.qts, "tgpu", "gpu0",
                             "{'bus': 'rp0', 'vram-size': %d}", 64 << 20);
        slot_power(&t, true);
        t.dev = qpci_device_find(t.bus, QPCI_DEVFN(0, 0) | PORT_BUS << 8);
        g_assert_nonnull(t.dev);
        if (!i) {
            qpci_device_enable(t.dev);
            bar0 = qpci_iomap(t.dev, TGPU_BAR0, NULL);
            bar1 = qpci_iomap(t.dev, TGPU_BAR1, NULL);
        }
        t.bar0 = bar0;
        t.bar1 = bar1;
        tgpu_restore_bars(&t);
        g_assert_cmphex(rd(&t, TGPU_PMC_MAGIC), ==, TGPU_MAGIC);
        qtest_memset(t.qts, bar1.addr, 0x5a, UNPLUG_TOUCH);
        g_assert_cmphex(qtest_readl(t.qts, bar1.addr + UNPLUG_TOUCH - 4), ==,
                        0x5a5a5a5a);
        g_assert_cmpuint(ram_blocks(&t), ==, blocks + 1);

        qtest_qmp_device_del_send(t.qts, "gpu0");
        slot_power(&t, false);
        g_free(t.dev);
        t.dev = NULL;
        /* freed once the last reference goes, after an RCU grace period */
        end = g_get_monotonic_time() + WAIT_US;
        while (ram_blocks(&t) != blocks && g_get_monotonic_time() < end) {
            g_usleep(1000);
        }
        g_assert_cmpuint(ram_blocks(&t), ==, blocks);
        /* QEMU says DEVICE_DELETED when the device is finalized */
        qtest_qmp_eventwait(t.qts, "DEVICE_DELETED");
#ifdef CONFIG_LINUX
        if (i == 1) {
            rss0 = qemu_rss(&t);
        }
#endif
    }
#ifdef CONFIG_LINUX
    /* leaking what it touched would be 8 MiB a cycle: 384 MiB by now */
    g_test_message("RSS after cycle 2: %" PRIu64 " MiB, after %d: %" PRIu64
                   " MiB", rss0 / MiB, UNPLUG_CYCLES, qemu_rss(&t) / MiB);
    g_assert_cmpuint(qemu_rss(&t), <, rss0 + 64 * MiB);
#endif
    tgpu_stop(&t);
}

int main(int argc, char **argv)
{
    static const char *const engines[] = { "copy", "compute" };
    static const char *const triggers[] = {
        "flr", "slot-power-off", "mmu-invalidate", "mem-op-invalidate",
    };
    static Case cases[2 * 4];

    g_test_init(&argc, &argv, NULL);
    for (int e = 0; e < 2; e++) {
        for (int trig = 0; trig < 4; trig++) {
            Case *c = &cases[e * 4 + trig];
            g_autofree char *path = NULL;

            *c = (Case) { e, trig };
            path = g_strdup_printf("/tgpu/reset-during-dma/%s/%s",
                                   engines[e], triggers[trig]);
            qtest_add_data_func(path, c, test_case);
        }
    }
    qtest_add_func("/tgpu/reset-during-dma/mixed", test_mixed);
    qtest_add_func("/tgpu/hotplug/unplug-leak", test_unplug_leak);
    return g_test_run();
}
