/*
 * QTest testcase for the tgpu emulated compute GPU: PCI identity, BARs,
 * capabilities, identity registers per model, and reset.
 *
 * Copyright (c) 2026 The tgpu authors
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */

#include "qemu/osdep.h"
#include "qemu/units.h"
#include "libqtest.h"
#include "libqos/pci.h"
#include "libqos/pci-pc.h"
#include "qobject/qdict.h"
#include "hw/pci/pci_regs.h"
#include "tgpu/regs.h"

#define TGPU_DEVFN QPCI_DEVFN(4, 0)

typedef struct TGPUTestModel {
    const char *name;
    uint16_t device_id;
    uint32_t boot_0;
    uint64_t vram_size;
    uint32_t sm_count;
    uint32_t clk_base, clk_boost, clk_mem;
} TGPUTestModel;

/* The presets as docs/hw/registers.md lists them. */
static const TGPUTestModel models[] = {
    { "p100", TGPU_PCI_DEVICE_ID_P100, 0x130000a1, 16 * GiB, 56,
      1189, 1328, 715 },
    { "p40", TGPU_PCI_DEVICE_ID_P40, 0x130200a1, 24 * GiB, 30,
      1303, 1531, 3615 },
    { "m40", TGPU_PCI_DEVICE_ID_M40, 0x120000a1, 12 * GiB, 24,
      948, 1112, 3004 },
};

static uint64_t bar_size_of(uint64_t vram)
{
    uint64_t size = 1;

    while (size < vram) {
        size <<= 1;
    }
    return size;
}

typedef struct TGPUTest {
    QTestState *qts;
    QPCIBus *bus;
    QPCIDevice *dev;
    QPCIBar bar0;
} TGPUTest;

static void tgpu_start(TGPUTest *t, const char *opts)
{
    t->qts = qtest_initf("-M q35 -nodefaults -device tgpu,addr=04.0%s%s",
                         opts ? "," : "", opts ? opts : "");
    t->bus = qpci_new_pc(t->qts, NULL);
    t->dev = qpci_device_find(t->bus, TGPU_DEVFN);
    g_assert_nonnull(t->dev);
    qpci_device_enable(t->dev);
    t->bar0 = qpci_iomap(t->dev, TGPU_BAR0, NULL);
}

static void tgpu_stop(TGPUTest *t)
{
    g_free(t->dev);
    qpci_free_pc(t->bus);
    qtest_quit(t->qts);
}

static uint32_t rd(TGPUTest *t, uint32_t reg)
{
    return qpci_io_readl(t->dev, t->bar0, reg);
}

static void wr(TGPUTest *t, uint32_t reg, uint32_t val)
{
    qpci_io_writel(t->dev, t->bar0, reg, val);
}

/* Size a 64-bit memory BAR the way firmware does; returns its flags too. */
static uint64_t bar64_size(QPCIDevice *dev, int bar_reg, uint32_t *flags)
{
    uint32_t lo, hi;

    qpci_config_writel(dev, bar_reg, 0xffffffff);
    qpci_config_writel(dev, bar_reg + 4, 0xffffffff);
    lo = qpci_config_readl(dev, bar_reg);
    hi = qpci_config_readl(dev, bar_reg + 4);
    *flags = lo & ~PCI_BASE_ADDRESS_MEM_MASK;
    return ~((uint64_t)hi << 32 | (lo & PCI_BASE_ADDRESS_MEM_MASK)) + 1;
}

static void test_pci_ids(const void *data)
{
    const TGPUTestModel *m = data;
    g_autofree char *opts = g_strdup_printf("model=%s", m->name);
    TGPUTest t;

    tgpu_start(&t, opts);
    g_assert_cmphex(qpci_config_readw(t.dev, PCI_VENDOR_ID), ==,
                    TGPU_PCI_VENDOR_ID);
    g_assert_cmphex(qpci_config_readw(t.dev, PCI_DEVICE_ID), ==,
                    m->device_id);
    g_assert_cmphex(qpci_config_readw(t.dev, PCI_CLASS_DEVICE), ==,
                    TGPU_PCI_CLASS);
    g_assert_cmphex(qpci_config_readb(t.dev, PCI_REVISION_ID), ==,
                    TGPU_PCI_REVISION);
    g_assert_cmphex(qpci_config_readb(t.dev, PCI_INTERRUPT_PIN), ==, 1);
    tgpu_stop(&t);
}

static void test_bars(const void *data)
{
    const TGPUTestModel *m = data;
    g_autofree char *opts = g_strdup_printf("model=%s", m->name);
    uint32_t lo, flags;
    uint64_t size;
    TGPUTest t;

    t.qts = qtest_initf("-M q35 -nodefaults -device tgpu,addr=04.0,%s",
                        opts);
    t.bus = qpci_new_pc(t.qts, NULL);
    t.dev = qpci_device_find(t.bus, TGPU_DEVFN);

    /* BAR0: 16 MiB, 32-bit, non-prefetchable memory */
    qpci_config_writel(t.dev, PCI_BASE_ADDRESS_0, 0xffffffff);
    lo = qpci_config_readl(t.dev, PCI_BASE_ADDRESS_0);
    g_assert_cmphex(lo & ~PCI_BASE_ADDRESS_MEM_MASK, ==,
                    PCI_BASE_ADDRESS_SPACE_MEMORY |
                    PCI_BASE_ADDRESS_MEM_TYPE_32);
    g_assert_cmphex((uint32_t)~(lo & PCI_BASE_ADDRESS_MEM_MASK) + 1, ==,
                    TGPU_BAR0_SIZE);

    /* BAR1: all of VRAM, 64-bit prefetchable, rounded up to 2^n */
    size = bar64_size(t.dev, PCI_BASE_ADDRESS_0 + 4 * TGPU_BAR1, &flags);
    g_assert_cmphex(flags, ==, PCI_BASE_ADDRESS_SPACE_MEMORY |
                    PCI_BASE_ADDRESS_MEM_TYPE_64 |
                    PCI_BASE_ADDRESS_MEM_PREFETCH);
    g_assert_cmpuint(size, ==, bar_size_of(m->vram_size));

    /* nothing else */
    for (int reg = PCI_BASE_ADDRESS_3; reg <= PCI_BASE_ADDRESS_5; reg += 4) {
        qpci_config_writel(t.dev, reg, 0xffffffff);
        g_assert_cmphex(qpci_config_readl(t.dev, reg), ==, 0);
    }
    tgpu_stop(&t);
}

static void test_identity(const void *data)
{
    const TGPUTestModel *m = data;
    g_autofree char *opts = g_strdup_printf("model=%s", m->name);
    TGPUTest t;

    tgpu_start(&t, opts);
    g_assert_cmphex(rd(&t, TGPU_PMC_BOOT_0), ==, m->boot_0);
    g_assert_cmphex(rd(&t, TGPU_PMC_MAGIC), ==, TGPU_MAGIC);
    g_assert_cmphex(rd(&t, TGPU_PMC_IFACE_VERSION), ==,
                    TGPU_IFACE_VERSION_MAJOR << 16 |
                    TGPU_IFACE_VERSION_MINOR);
    g_assert_cmphex(rd(&t, TGPU_PMC_VRAM_SIZE_LO), ==,
                    (uint32_t)m->vram_size);
    g_assert_cmphex(rd(&t, TGPU_PMC_VRAM_SIZE_HI), ==, m->vram_size >> 32);
    g_assert_cmpuint(rd(&t, TGPU_PMC_SM_COUNT), ==, m->sm_count);
    g_assert_cmphex(rd(&t, TGPU_PMC_ENGINES), ==,
                    TGPU_ENGINE_COMPUTE | TGPU_ENGINE_CE0 | TGPU_ENGINE_CE1);
    g_assert_cmpuint(rd(&t, TGPU_PMC_CLK_SM_BASE_MHZ), ==, m->clk_base);
    g_assert_cmpuint(rd(&t, TGPU_PMC_CLK_SM_BOOST_MHZ), ==, m->clk_boost);
    g_assert_cmpuint(rd(&t, TGPU_PMC_CLK_MEM_MHZ), ==, m->clk_mem);
    g_assert_cmpuint(rd(&t, TGPU_PMC_POWER_LIMIT_MW), ==, 250000);
    /* the names the drivers print come from the same BOOT_0 */
    g_assert_nonnull(tgpu_product_name(TGPU_BOOT_0_ARCH(m->boot_0),
                                       TGPU_BOOT_0_IMPL(m->boot_0)));
    tgpu_stop(&t);
}

static void test_overrides(void)
{
    uint32_t flags;
    TGPUTest t;

    tgpu_start(&t, "model=p40,vram-size=96M,sm-count=7");
    g_assert_cmphex(rd(&t, TGPU_PMC_VRAM_SIZE_LO), ==, 96 * MiB);
    g_assert_cmphex(rd(&t, TGPU_PMC_VRAM_SIZE_HI), ==, 0);
    g_assert_cmpuint(rd(&t, TGPU_PMC_SM_COUNT), ==, 7);
    g_assert_cmphex(rd(&t, TGPU_PMC_BOOT_0), ==, models[1].boot_0);
    g_assert_cmpuint(bar64_size(t.dev, PCI_BASE_ADDRESS_0 + 4 * TGPU_BAR1,
                                &flags), ==, 128 * MiB);
    tgpu_stop(&t);
}

static void test_vram_aperture(void)
{
    QPCIBar bar1;
    uint64_t size;
    TGPUTest t;

    tgpu_start(&t, "vram-size=64M");
    bar1 = qpci_iomap(t.dev, TGPU_BAR1, &size);
    g_assert_cmpuint(size, ==, 64 * MiB);
    qpci_io_writel(t.dev, bar1, 0, 0xdeadbeef);
    qpci_io_writeq(t.dev, bar1, 64 * MiB - 8, 0x0123456789abcdefULL);
    g_assert_cmphex(qpci_io_readl(t.dev, bar1, 0), ==, 0xdeadbeef);
    g_assert_cmphex(qpci_io_readq(t.dev, bar1, 64 * MiB - 8), ==,
                    0x0123456789abcdefULL);
    /* VRAM starts zeroed */
    g_assert_cmphex(qpci_io_readl(t.dev, bar1, 4096), ==, 0);
    tgpu_stop(&t);
}

static void test_bad_properties(void)
{
    static const struct {
        const char *prop;
        const char *str;        /* string value, or NULL for num */
        int64_t num;
        const char *error;
    } cases[] = {
        { "model", "gtx480", 0, "unknown model 'gtx480'" },
        { "vram-size", NULL, 1048575, "vram-size 1048575 is invalid" },
        { "vram-size", NULL, 32 * MiB, "vram-size 33554432 is invalid" },
        { "vram-size", NULL, 128 * GiB, "is invalid" },
        { "sm-count", NULL, 100000, "sm-count 100000 is invalid" },
        { "ce0-thread-context", "nosuch", 0, "'nosuch' not found" },
        { "ce1-thread-context", "io0", 0, "expected: thread-context" },
    };
    QTestState *qts = qtest_init("-M q35 -nodefaults -object iothread,id=io0 "
                                 "-device pcie-root-port,id=rp0,slot=1");

    for (size_t i = 0; i < ARRAY_SIZE(cases); i++) {
        QDict *args = qdict_new();
        QDict *resp, *err;

        qdict_put_str(args, "driver", "tgpu");
        qdict_put_str(args, "bus", "rp0");
        if (cases[i].str) {
            qdict_put_str(args, cases[i].prop, cases[i].str);
        } else {
            qdict_put_int(args, cases[i].prop, cases[i].num);
        }
        resp = qtest_qmp(qts, "{'execute': 'device_add', 'arguments': %p}",
                         args);
        err = qdict_get_qdict(resp, "error");
        g_assert_nonnull(err);
        g_assert_nonnull(strstr(qdict_get_str(err, "desc"), cases[i].error));
        qobject_unref(resp);
    }
    qtest_quit(qts);
}

static void test_registers_rw(void)
{
    TGPUTest t;

    tgpu_start(&t, NULL);
    g_assert_cmphex(rd(&t, TGPU_PMC_SCRATCH), ==, 0);
    wr(&t, TGPU_PMC_SCRATCH, 0xa5a5f00d);
    g_assert_cmphex(rd(&t, TGPU_PMC_SCRATCH), ==, 0xa5a5f00d);

    /* identity registers ignore writes */
    wr(&t, TGPU_PMC_BOOT_0, 0);
    wr(&t, TGPU_PMC_SM_COUNT, 1);
    g_assert_cmphex(rd(&t, TGPU_PMC_BOOT_0), ==, models[0].boot_0);
    g_assert_cmpuint(rd(&t, TGPU_PMC_SM_COUNT), ==, 56);

    /* unimplemented registers read as the documented pattern */
    g_assert_cmphex(rd(&t, 0x000ffc), ==, TGPU_REG_BADF);
    g_assert_cmphex(rd(&t, 0x123450), ==, TGPU_REG_BADF);
    wr(&t, 0x123450, 1);
    g_assert_cmphex(rd(&t, 0x123450), ==, TGPU_REG_BADF);

    /* a 64-bit access is two 32-bit register accesses */
    g_assert_cmphex(qpci_io_readq(t.dev, t.bar0, TGPU_PMC_VRAM_SIZE_LO), ==,
                    16 * GiB);
    tgpu_stop(&t);
}

/*
 * 1- and 2-byte and unaligned BAR0 accesses are refused, visibly: a read
 * returns all ones, a write changes nothing, and each logs a
 * LOG_GUEST_ERROR line (QEMU's -d guest_errors).
 */
static void test_narrow_access(void)
{
    g_autofree char *dir = g_dir_make_tmp("tgpu-narrow-XXXXXX", NULL);
    g_autofree char *log = g_build_filename(dir, "qemu.log", NULL);
    g_autofree char *text = NULL;
    static const char *const lines[] = {
        "narrow 1-byte read at BAR0 0x00000c refused",
        "narrow 2-byte read at BAR0 0x00000e refused",
        "narrow 1-byte write at BAR0 0x00000d refused",
        "narrow 2-byte write at BAR0 0x00000c refused",
        "unaligned 4-byte read at BAR0 0x00000e refused",
        "unaligned 4-byte write at BAR0 0x000009 refused",
    };
    uint64_t scratch;
    TGPUTest t;

    g_assert_nonnull(dir);
    t.qts = qtest_initf("-M q35 -nodefaults -d guest_errors -D %s "
                        "-device tgpu,addr=04.0", log);
    t.bus = qpci_new_pc(t.qts, NULL);
    t.dev = qpci_device_find(t.bus, TGPU_DEVFN);
    g_assert_nonnull(t.dev);
    qpci_device_enable(t.dev);
    t.bar0 = qpci_iomap(t.dev, TGPU_BAR0, NULL);
    scratch = t.bar0.addr + TGPU_PMC_SCRATCH;

    wr(&t, TGPU_PMC_SCRATCH, 0x11223344);
    g_assert_cmphex(qtest_readb(t.qts, scratch), ==, 0xff);
    g_assert_cmphex(qtest_readw(t.qts, scratch + 2), ==, 0xffff);
    qtest_writeb(t.qts, scratch + 1, 0x55);
    qtest_writew(t.qts, scratch, 0x5555);
    g_assert_cmphex(qtest_readl(t.qts, scratch + 2), ==, 0xffffffff);
    qtest_writel(t.qts, scratch - 3, 0);
    g_assert_cmphex(rd(&t, TGPU_PMC_SCRATCH), ==, 0x11223344);
    /* an aligned 64-bit access still works */
    g_assert_cmphex(qtest_readq(t.qts, t.bar0.addr + TGPU_PMC_BOOT_0) >> 32,
                    ==, TGPU_MAGIC);
    tgpu_stop(&t);

    g_assert_true(g_file_get_contents(log, &text, NULL, NULL));
    for (size_t i = 0; i < ARRAY_SIZE(lines); i++) {
        g_test_message("expect: %s", lines[i]);
        g_assert_nonnull(strstr(text, lines[i]));
    }
    unlink(log);
    rmdir(dir);
}

static void test_reset(void)
{
    QDict *resp;
    TGPUTest t;

    tgpu_start(&t, NULL);
    wr(&t, TGPU_PMC_SCRATCH, 0x12345678);
    resp = qtest_qmp(t.qts, "{'execute': 'system_reset'}");
    g_assert(qdict_haskey(resp, "return"));
    qobject_unref(resp);
    qtest_qmp_eventwait(t.qts, "RESET");

    /* reset cleared the BAR too: map it again */
    qpci_free_pc(t.bus);
    g_free(t.dev);
    t.bus = qpci_new_pc(t.qts, NULL);
    t.dev = qpci_device_find(t.bus, TGPU_DEVFN);
    qpci_device_enable(t.dev);
    t.bar0 = qpci_iomap(t.dev, TGPU_BAR0, NULL);
    g_assert_cmphex(rd(&t, TGPU_PMC_SCRATCH), ==, 0);
    g_assert_cmphex(rd(&t, TGPU_PMC_MAGIC), ==, TGPU_MAGIC);
    tgpu_stop(&t);
}

static void test_flr(void)
{
    uint8_t exp;
    uint32_t devcap;
    uint32_t bar0;
    TGPUTest t;

    tgpu_start(&t, NULL);
    exp = qpci_find_capability(t.dev, PCI_CAP_ID_EXP, 0);
    g_assert_cmpuint(exp, !=, 0);
    devcap = qpci_config_readl(t.dev, exp + PCI_EXP_DEVCAP);
    g_assert_true(devcap & PCI_EXP_DEVCAP_FLR);

    wr(&t, TGPU_PMC_SCRATCH, 0x55aa55aa);
    bar0 = qpci_config_readl(t.dev, PCI_BASE_ADDRESS_0);
    qpci_config_writew(t.dev, exp + PCI_EXP_DEVCTL,
                       qpci_config_readw(t.dev, exp + PCI_EXP_DEVCTL) |
                       PCI_EXP_DEVCTL_BCR_FLR);
    /* FLR resets the function's config space too */
    g_assert_cmphex(qpci_config_readw(t.dev, PCI_COMMAND) &
                    PCI_COMMAND_MEMORY, ==, 0);
    qpci_config_writel(t.dev, PCI_BASE_ADDRESS_0, bar0);
    qpci_device_enable(t.dev);
    g_assert_cmphex(rd(&t, TGPU_PMC_SCRATCH), ==, 0);
    tgpu_stop(&t);
}

/*
 * Extended config space needs ECAM, which firmware would enable: program
 * q35's PCIEXBAR (MCH 0:0.0, offset 0x60) and read through it.
 */
#define Q35_PCIEXBAR        0x60
#define Q35_ECAM_BASE       0xb0000000u

static uint32_t ext_config_readl(TGPUTest *t, uint16_t offset)
{
    QPCIDevice *mch = qpci_device_find(t->bus, QPCI_DEVFN(0, 0));
    uint32_t val;

    qpci_config_writel(mch, Q35_PCIEXBAR + 4, 0);
    qpci_config_writel(mch, Q35_PCIEXBAR, Q35_ECAM_BASE | 1);
    val = qtest_readl(t->qts, Q35_ECAM_BASE + (TGPU_DEVFN << 12) + offset);
    g_free(mch);
    return val;
}

static void test_capabilities(void)
{
    uint8_t msix;
    uint16_t ctrl;
    uint32_t table, pba;
    TGPUTest t;

    tgpu_start(&t, NULL);
    g_assert_cmpuint(qpci_find_capability(t.dev, PCI_CAP_ID_PM, 0), !=, 0);
    g_assert_cmpuint(qpci_find_capability(t.dev, PCI_CAP_ID_EXP, 0), !=, 0);

    msix = qpci_find_capability(t.dev, PCI_CAP_ID_MSIX, 0);
    g_assert_cmpuint(msix, !=, 0);
    ctrl = qpci_config_readw(t.dev, msix + PCI_MSIX_FLAGS);
    g_assert_cmpuint((ctrl & PCI_MSIX_FLAGS_QSIZE) + 1, ==,
                     TGPU_MSIX_NR_VECTORS);
    g_assert_cmpuint(qpci_msix_table_size(t.dev), ==, TGPU_MSIX_NR_VECTORS);
    table = qpci_config_readl(t.dev, msix + PCI_MSIX_TABLE);
    pba = qpci_config_readl(t.dev, msix + PCI_MSIX_PBA);
    g_assert_cmphex(table & PCI_MSIX_TABLE_BIR, ==, TGPU_BAR0);
    g_assert_cmphex(table & PCI_MSIX_TABLE_OFFSET, ==,
                    TGPU_MSIX_TABLE_OFFSET);
    g_assert_cmphex(pba & PCI_MSIX_PBA_BIR, ==, TGPU_BAR0);
    g_assert_cmphex(pba & PCI_MSIX_PBA_OFFSET, ==, TGPU_MSIX_PBA_OFFSET);

    /* the MSI-X table answers at the documented offset, vectors masked */
    qpci_msix_enable(t.dev);
    for (int v = 0; v < TGPU_MSIX_NR_VECTORS; v++) {
        g_assert_true(qpci_msix_masked(t.dev, v));
    }
    qpci_msix_disable(t.dev);

    /* AER is the first extended capability */
    g_assert_cmphex(ext_config_readl(&t, 0x100) & 0xffff, ==,
                    PCI_EXT_CAP_ID_ERR);
    tgpu_stop(&t);
}

static void add_model_test(const char *what, const TGPUTestModel *m,
                           void (*fn)(const void *))
{
    g_autofree char *path = g_strdup_printf("/tgpu/%s/%s", what, m->name);

    qtest_add_data_func(path, m, fn);
}

#ifdef CONFIG_LINUX
/* Cpus_allowed_list of a /proc status file: "0-1", "1". */
static char *status_cpus(const char *path)
{
    g_autofree char *status = NULL;
    const char *at;

    g_assert_true(g_file_get_contents(path, &status, NULL, NULL));
    at = strstr(status, "Cpus_allowed_list:");
    g_assert_nonnull(at);
    at += strlen("Cpus_allowed_list:");
    return g_strstrip(g_strndup(at, strcspn(at, "\n")));
}

/* The CPUs QEMU's thread called COMM may run on, or NULL. */
static char *thread_cpus(pid_t pid, const char *comm)
{
    g_autofree char *dir = g_strdup_printf("/proc/%d/task", (int)pid);
    GDir *d = g_dir_open(dir, 0, NULL);
    const char *tid;
    char *cpus = NULL;

    g_assert_nonnull(d);
    while (!cpus && (tid = g_dir_read_name(d))) {
        g_autofree char *path = g_strdup_printf("%s/%s/comm", dir, tid);
        g_autofree char *name = NULL;

        if (g_file_get_contents(path, &name, NULL, NULL) &&
            !strcmp(g_strstrip(name), comm)) {
            g_free(path);
            path = g_strdup_printf("%s/%s/status", dir, tid);
            cpus = status_cpus(path);
        }
    }
    g_dir_close(d);
    return cpus;
}

/* The same, once the thread has named itself (it does so as it starts). */
static char *thread_cpus_wait(pid_t pid, const char *comm)
{
    gint64 end = g_get_monotonic_time() + 10 * G_USEC_PER_SEC;
    char *cpus;

    while (!(cpus = thread_cpus(pid, comm))) {
        g_assert_cmpint(g_get_monotonic_time(), <, end);
        g_usleep(1000);
    }
    return cpus;
}

/* Engine threads start where their thread-context objects say. */
static void test_engine_threads(void)
{
    g_autofree char *want = NULL, *main_cpus = NULL, *path = NULL;
    g_autofree char *ce0 = NULL, *ce1 = NULL, *gr = NULL;
    QTestState *qts;
    cpu_set_t set;
    int last = -1;

    g_assert_cmpint(sched_getaffinity(0, sizeof(set), &set), ==, 0);
    if (CPU_COUNT(&set) < 2) {
        g_test_skip("one CPU: a thread placed on it looks like any other");
        return;
    }
    for (int i = 0; i < CPU_SETSIZE; i++) {
        if (CPU_ISSET(i, &set)) {
            last = i;
        }
    }
    qts = qtest_initf("-M q35 -nodefaults -name debug-threads=on "
                      "-object thread-context,id=tc,cpu-affinity=%d "
                      "-device tgpu,addr=04.0,ce1-thread-context=tc,"
                      "compute-thread-context=tc", last);
    want = g_strdup_printf("%d", last);
    path = g_strdup_printf("/proc/%d/status", (int)qtest_pid(qts));
    main_cpus = status_cpus(path);
    ce0 = thread_cpus_wait(qtest_pid(qts), "tgpu-ce0");
    ce1 = thread_cpus_wait(qtest_pid(qts), "tgpu-ce1");
    gr = thread_cpus_wait(qtest_pid(qts), "tgpu-compute");
    g_assert_cmpstr(ce1, ==, want);
    g_assert_cmpstr(gr, ==, want);
    /* CE0 has no context: it may run wherever QEMU's main thread may */
    g_assert_cmpstr(main_cpus, !=, want);
    g_assert_cmpstr(ce0, ==, main_cpus);
    qtest_quit(qts);
}
#endif

int main(int argc, char **argv)
{
    g_test_init(&argc, &argv, NULL);

    for (size_t i = 0; i < ARRAY_SIZE(models); i++) {
        add_model_test("pci-ids", &models[i], test_pci_ids);
        add_model_test("bars", &models[i], test_bars);
        add_model_test("identity", &models[i], test_identity);
    }
    qtest_add_func("/tgpu/overrides", test_overrides);
    qtest_add_func("/tgpu/bad-properties", test_bad_properties);
    qtest_add_func("/tgpu/vram-aperture", test_vram_aperture);
    qtest_add_func("/tgpu/registers", test_registers_rw);
    qtest_add_func("/tgpu/narrow-access", test_narrow_access);
    qtest_add_func("/tgpu/capabilities", test_capabilities);
    qtest_add_func("/tgpu/reset", test_reset);
    qtest_add_func("/tgpu/flr", test_flr);
#ifdef CONFIG_LINUX
    qtest_add_func("/tgpu/engine-threads", test_engine_threads);
#endif

    return g_test_run();
}
