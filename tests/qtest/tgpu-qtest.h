/*
 * Helpers shared by the tgpu qtests: starting the device and mapping its
 * BARs, registers, VRAM and guest memory, the pushbuffer builder,
 * channels (instance block, USERD, GPFIFO), runlists, doorbells, waits,
 * channel errors and MSI-X.
 *
 * The device works in a bottom half: after a doorbell a test polls a
 * register or memory (every qtest command lets QEMU's main loop run),
 * bounded by a wall-clock limit that only a hang reaches.  The virtual
 * clock moves only when a test steps it.
 *
 * Everything here is static inline: each qtest is built from its own .c
 * file, and uses only part of this.
 *
 * Copyright (c) 2026 The tgpu authors
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */

#ifndef TGPU_QTEST_H
#define TGPU_QTEST_H

#include "qemu/bswap.h"
#include "qemu/units.h"
#include "libqtest.h"
#include "libqos/pci.h"
#include "libqos/pci-pc.h"
#include "libqos/malloc-pc.h"
#include "libqos/tgpu.h"
#include "qobject/qdict.h"
#include "hw/pci/pci_regs.h"
#include "tgpu/regs.h"
#include "tgpu/channel.h"
#include "tgpu/mmu.h"

#define TGPU_DEVFN          QPCI_DEVFN(4, 0)

/* How long a test waits for the device before it calls it a hang. */
#define WAIT_US             (10 * G_USEC_PER_SEC)

/*
 * Physical addresses, as bypass addresses write them: a VRAM offset, or
 * SYS(guest physical address) for system memory.  VRAM is 64 MiB so that
 * BAR1 fits the 32-bit MMIO window of libqos; guest RAM is q35's default
 * 128 MiB.  A test takes its memory from the allocators (vram_alloc(),
 * ram_alloc()); the addresses below are the ones that must be nowhere.
 */
#define VRAM_SIZE           QTGPU_VRAM_SIZE
#define VRAM_GAP            0x10000000ull   /* past VRAM: faults */
#define GUEST_RAM_SIZE      (128 * MiB)
#define SYS(gpa)            (TGPU_BYPASS_SYSMEM_BASE + (gpa))
#define G_UNMAPPED          0x7f12345000ull /* no guest memory there */

#define GP_LOG2_DEFAULT     10              /* 1024 entries: 0x2000 bytes */

#define MSI_DATA(v)         (0x7a00u + (v))

#define NR_TEST_CHANNELS    64

/* An address space: a PD1 table and the ASID it is tagged with. */
typedef struct Ctx {
    uint64_t pdb;
    uint32_t asid;
} Ctx;

typedef struct Chan {
    int id;
    Ctx *ctx;               /* NULL: bypass */
    /* instance block fields */
    uint64_t inst;
    uint32_t flags;
    uint32_t asid;
    uint64_t pdb;
    uint64_t gpfifo;
    uint32_t log2;
    uint32_t engine;
    uint64_t userd;
    uint32_t prio;
    uint32_t ts_us;
    uint32_t acq_to_us;
    /* software state */
    uint64_t pb;            /* pushbuffer area (GPU address) */
    uint32_t pb_size;
    uint32_t pb_used;
    uint32_t put;           /* GP_PUT as software keeps it */
} Chan;

typedef struct T {
    QTestState *qts;
    char *cmd;              /* its command line (tgpu_migrate()) */
    QPCIBus *bus;
    QPCIDevice *dev;
    int devfn;              /* 0: TGPU_DEVFN on the root bus */
    QPCIDevice *port;       /* the root port it is behind, if any */
    QPCIBar bar0, bar1;
    QGuestAllocator *ram;   /* guest RAM: guest physical addresses */
    QGuestAllocator *vram;  /* device-local memory: VRAM offsets */
    QGuestAllocator own_ram, own_vram;  /* tgpu_start()'s */
    uint32_t nch;           /* PMC_CHANNELS */
    uint64_t runlist[TGPU_NR_RUNLISTS];
    uint64_t inst;          /* the test channels' instance blocks */
    uint64_t msi;           /* where MSI-X messages land (guest RAM) */
    Chan ch[NR_TEST_CHANNELS];
    /* the MMU tests: the fault buffer */
    uint64_t fb;            /* the fault buffer, as programmed */
    uint32_t fb_size;
    uint32_t fb_put;        /* PUT as the test expects it */
    uint32_t faults;        /* MMU_FAULT_COUNT as the test expects it */
} T;

#define PB_MAX_DW           16384

typedef struct PB {
    uint32_t n;
    uint32_t dw[PB_MAX_DW];
} PB;

/* ---- device, registers ------------------------------------------------ */

/* Where tgpu_start_port() puts the root port, and its windows. */
#define PORT_DEVFN          QPCI_DEVFN(5, 0)
#define PORT_BUS            1
#define PORT_MEM_BASE       0xe0000000u     /* libqos allocates BARs here */
#define PORT_MEM_LIMIT      0xefffffffu

/*
 * Program the root port as firmware would: bus numbers, one memory
 * window over libqos' MMIO allocations (a 64-bit BAR in it is reached
 * too: QEMU's windows alias one secondary address space), no
 * prefetchable window, and memory decoding plus bus mastering on.
 */
static inline void port_setup(T *t)
{
    t->port = qpci_device_find(t->bus, PORT_DEVFN);
    g_assert_nonnull(t->port);
    qpci_config_writeb(t->port, PCI_PRIMARY_BUS, 0);
    qpci_config_writeb(t->port, PCI_SECONDARY_BUS, PORT_BUS);
    qpci_config_writeb(t->port, PCI_SUBORDINATE_BUS, PORT_BUS);
    qpci_config_writew(t->port, PCI_MEMORY_BASE, PORT_MEM_BASE >> 16);
    qpci_config_writew(t->port, PCI_MEMORY_LIMIT, PORT_MEM_LIMIT >> 16);
    qpci_config_writew(t->port, PCI_PREF_MEMORY_BASE, 0xfff0);
    qpci_config_writew(t->port, PCI_PREF_MEMORY_LIMIT, 0);
    qpci_config_writew(t->port, PCI_COMMAND,
                       PCI_COMMAND_MEMORY | PCI_COMMAND_MASTER);
}

static inline void tgpu_map(T *t)
{
    uint64_t size;

    t->bus = qpci_new_pc(t->qts, NULL);
    if (t->devfn) {
        port_setup(t);
    }
    t->dev = qpci_device_find(t->bus, t->devfn ? t->devfn : TGPU_DEVFN);
    g_assert_nonnull(t->dev);
    qpci_device_enable(t->dev);
    t->bar0 = qpci_iomap(t->dev, TGPU_BAR0, NULL);
    t->bar1 = qpci_iomap(t->dev, TGPU_BAR1, &size);
    g_assert_cmpuint(size, ==, VRAM_SIZE);
}

static inline void tgpu_unmap(T *t)
{
    g_free(t->dev);
    g_free(t->port);
    t->port = NULL;
    qpci_free_pc(t->bus);
}

/* ---- memory: the allocators of VRAM and of guest RAM ------------------ */

/* SIZE bytes of VRAM; returns their VRAM offset. */
static inline uint64_t vram_alloc(T *t, uint64_t size)
{
    return guest_alloc(t->vram, size);
}

/* The same at an ALIGN-aligned offset (a 2 MiB page, a PD1 table). */
static inline uint64_t vram_alloc_aligned(T *t, uint64_t size, uint64_t align)
{
    return qtgpu_alloc_aligned(t->vram, size, align);
}

/* SIZE bytes of guest RAM; returns their guest physical address. */
static inline uint64_t ram_alloc(T *t, uint64_t size)
{
    return guest_alloc(t->ram, size);
}

static inline uint64_t ram_alloc_aligned(T *t, uint64_t size, uint64_t align)
{
    return qtgpu_alloc_aligned(t->ram, size, align);
}

/* What every test lays out the same way: runlists, instance blocks. */
static inline void tgpu_mem_init(T *t)
{
    for (int r = 0; r < TGPU_NR_RUNLISTS; r++) {
        t->runlist[r] = vram_alloc(t, 4 * KiB);
    }
    t->inst = vram_alloc(t, TGPU_INST_SIZE * NR_TEST_CHANNELS);
    t->nch = qpci_io_readl(t->dev, t->bar0, TGPU_PMC_CHANNELS);
}

/*
 * Start QEMU with the device at DEVFN (0: 00:04.0) and take memory as
 * the libqos q35 machine and tgpu node do (libqos/tgpu.h): guest RAM
 * above 1 MiB, VRAM past QTGPU_VRAM_RESERVED.
 */
static inline void tgpu_start_cmd(T *t, int devfn, const char *cmd)
{
    memset(t, 0, sizeof(*t));
    t->devfn = devfn;
    t->cmd = g_strdup(cmd);
    t->qts = qtest_init(cmd);
    tgpu_map(t);
    pc_alloc_init(&t->own_ram, t->qts, ALLOC_NO_FLAGS);
    qtgpu_vram_alloc_init(&t->own_vram, VRAM_SIZE);
    t->ram = &t->own_ram;
    t->vram = &t->own_vram;
    tgpu_mem_init(t);
}

static inline void tgpu_start(T *t, const char *opts)
{
    g_autofree char *cmd = g_strdup_printf(
        "-M q35 -nodefaults -device tgpu,addr=04.0,vram-size=64M%s%s",
        opts ? "," : "", opts ? opts : "");

    tgpu_start_cmd(t, 0, cmd);
}

/*
 * A QTgpu of the libqos graph as a T, for the harness: the node's
 * mapping and allocators.  Nothing to stop: the graph does that.
 */
static inline void tgpu_attach(T *t, QTgpu *gpu)
{
    memset(t, 0, sizeof(*t));
    t->qts = gpu->dev.bus->qts;
    t->dev = &gpu->dev;
    t->bar0 = gpu->bar0;
    t->bar1 = gpu->bar1;
    t->ram = gpu->ram;
    t->vram = &gpu->vram;
    tgpu_mem_init(t);
}

/* The device behind a PCIe root port with a power controller. */
static inline void tgpu_start_port(T *t, const char *opts)
{
    g_autofree char *cmd = g_strdup_printf(
        "-M q35 -nodefaults "
        "-device pcie-root-port,id=rp0,addr=05.0,slot=1,chassis=1 "
        "-device tgpu,bus=rp0,vram-size=64M%s%s",
        opts ? "," : "", opts ? opts : "");

    tgpu_start_cmd(t, QPCI_DEVFN(0, 0) | PORT_BUS << 8, cmd);
}

/*
 * After a reset of the function (FLR, slot power cycle), which clears
 * its BARs and COMMAND: put them back where tgpu_map() had them.
 */
static inline void tgpu_restore_bars(T *t)
{
    qpci_config_writel(t->dev, PCI_BASE_ADDRESS_0, t->bar0.addr);
    qpci_config_writel(t->dev, PCI_BASE_ADDRESS_1, (uint32_t)t->bar1.addr);
    qpci_config_writel(t->dev, PCI_BASE_ADDRESS_2, t->bar1.addr >> 32);
    qpci_device_enable(t->dev);
}

static inline void tgpu_stop(T *t)
{
    g_free(t->cmd);
    t->cmd = NULL;
    tgpu_unmap(t);
    if (t->vram == &t->own_vram) {
        alloc_destroy(&t->own_vram);
        alloc_destroy(&t->own_ram);
    }
    qtest_quit(t->qts);
}

/*
 * Wait for QMP's migration (out or in) to end: query-migrate's last
 * answer, status completed, failed or cancelled (the caller unrefs).
 */
static inline QDict *migrate_end(QTestState *qts)
{
    gint64 end = g_get_monotonic_time() + 60 * G_USEC_PER_SEC;

    for (;;) {
        QDict *r = qtest_qmp_assert_success_ref(
            qts, "{'execute': 'query-migrate'}");
        const char *st = qdict_get_try_str(r, "status");

        if (st && (!strcmp(st, "completed") || !strcmp(st, "failed") ||
                   !strcmp(st, "cancelled"))) {
            return r;
        }
        qobject_unref(r);
        g_assert_cmpint(g_get_monotonic_time(), <, end);
        g_usleep(1000);
    }
}

/* The same, for a migration that must complete. */
static inline void migrate_wait(QTestState *qts)
{
    QDict *r = migrate_end(qts);
    const char *st = qdict_get_str(r, "status");

    if (strcmp(st, "completed")) {
        g_error("migration %s: %s", st, qdict_get_try_str(r, "error-desc"));
    }
    qobject_unref(r);
}

/*
 * Save the VM with QMP's migrate to a file and restore it into a new
 * QEMU of the same command line, which then runs; T goes on with it.
 * The BARs come back where they were, and the virtual clock at 0 (the
 * qtest accelerator's is not migrated).
 */
static inline void tgpu_migrate(T *t)
{
    g_autofree char *path = g_strdup_printf("%s/tgpu-qtest-%d.vmstate",
                                            g_get_tmp_dir(), getpid());
    g_autofree char *uri = g_strdup_printf("file:%s", path);
    g_autofree char *cmd = g_strdup_printf("%s -incoming defer", t->cmd);

    qtest_qmp_assert_success(t->qts, "{'execute': 'migrate', 'arguments': "
                             "{'uri': %s}}", uri);
    migrate_wait(t->qts);
    tgpu_unmap(t);
    qtest_quit(t->qts);
    t->qts = qtest_init(cmd);
    qtest_qmp_assert_success(t->qts, "{'execute': 'migrate-incoming', "
                             "'arguments': {'uri': %s}}", uri);
    migrate_wait(t->qts);
    unlink(path);
    tgpu_map(t);
}

/*
 * Save the VM with migrate to the file PATH and end this QEMU; returns
 * the command line that loads it (-incoming defer).
 */
static inline char *tgpu_save(T *t, const char *path)
{
    g_autofree char *uri = g_strdup_printf("file:%s", path);
    char *cmd = g_strdup_printf("%s -incoming defer", t->cmd);

    qtest_qmp_assert_success(t->qts, "{'execute': 'migrate', 'arguments': "
                             "{'uri': %s}}", uri);
    migrate_wait(t->qts);
    tgpu_stop(t);
    return cmd;
}

/*
 * Start CMD and load the file PATH into it, a load that may fail (the
 * QEMU stays up to be asked): *LOADED tells which.
 */
static inline QTestState *tgpu_load(const char *cmd, const char *path,
                                    bool *loaded)
{
    g_autofree char *uri = g_strdup_printf("file:%s", path);
    QTestState *dst = qtest_init(cmd);
    QDict *r;
    const char *st;

    qtest_qmp_assert_success(dst, "{'execute': 'migrate-incoming', "
                             "'arguments': {'uri': %s, "
                             "'exit-on-error': false}}", uri);
    r = migrate_end(dst);
    st = qdict_get_str(r, "status");
    *loaded = !strcmp(st, "completed");
    if (!*loaded) {
        g_assert_cmpstr(st, ==, "failed");
    }
    qobject_unref(r);
    return dst;
}

/*
 * Where the tgpu section's own state is in a saved stream: from its first
 * subsection's name to its section footer (QEMU_VM_SECTION_FOOTER, 0x7e,
 * and the section id of the QEMU_VM_SECTION_FULL header that names
 * "0000:00:04.0/tgpu").  Fills SUB with where each subsection
 * (QEMU_VM_SUBSECTION, 0x05, a length, "tgpu/...") starts; returns how
 * many there are.
 */
static inline int mig_tgpu_subsections(const uint8_t *d, size_t len,
                                       size_t *sub, int max, size_t *hi)
{
    static const char id[] = "\x11" "0000:00:04.0/tgpu";
    const uint8_t *at = memmem(d, len, id, sizeof(id) - 1);
    const uint8_t *end;
    uint8_t footer[5] = { 0x7e };
    int n = 0;

    g_assert_nonnull(at);
    g_assert_cmpuint(at - d, >=, 5);
    g_assert_cmpuint(at[-5], ==, 0x04);
    memcpy(footer + 1, at - 4, 4);
    end = memmem(at, len - (at - d), footer, sizeof(footer));
    g_assert_nonnull(end);
    *hi = end - d;
    for (const uint8_t *p = at; p + 7 < end; p++) {
        if (p[0] == 0x05 && p[1] > 5 && p + 2 + p[1] < end &&
            !memcmp(p + 2, "tgpu/", 5)) {
            g_assert_cmpint(n, <, max);
            sub[n++] = p - d;
        }
    }
    return n;
}

/*
 * Of the NSUB subsections at SUB (mig_tgpu_subsections()), the one named
 * NAME: the offset of its first field, after its version.
 */
static inline size_t mig_subsection_fields(const uint8_t *d, const size_t *sub,
                                           int nsub, const char *name)
{
    size_t n = strlen(name);

    for (int k = 0; k < nsub; k++) {
        if (d[sub[k] + 1] == n && !memcmp(d + sub[k] + 2, name, n)) {
            return sub[k] + 2 + n + 4;
        }
    }
    g_error("no subsection %s in the stream", name);
}

/* A system reset, which clears the BARs too: map them again. */
static inline void tgpu_system_reset(T *t)
{
    QDict *resp = qtest_qmp(t->qts, "{'execute': 'system_reset'}");

    g_assert(qdict_haskey(resp, "return"));
    qobject_unref(resp);
    qtest_qmp_eventwait(t->qts, "RESET");
    tgpu_unmap(t);
    tgpu_map(t);
}

/*
 * Open q35's ECAM window as firmware does (PCIEXBAR, 256 MiB): the
 * device's extended configuration space (AER at 0x100) is MMIO at
 * ECAM_TGPU.
 */
#define Q35_PCIEXBAR        0x60
#define ECAM_BASE           0xb0000000u
#define ECAM_TGPU           (ECAM_BASE + (4u << 15))    /* 00:04.0 */

static inline void ecam_open(T *t)
{
    QPCIDevice *mch = qpci_device_find(t->bus, QPCI_DEVFN(0, 0));

    g_assert_nonnull(mch);
    qpci_config_writel(mch, Q35_PCIEXBAR + 4, 0);
    qpci_config_writel(mch, Q35_PCIEXBAR, ECAM_BASE | 1);
    g_free(mch);
}

static inline uint32_t rd(T *t, uint32_t reg)
{
    return qpci_io_readl(t->dev, t->bar0, reg);
}

static inline void wr(T *t, uint32_t reg, uint32_t val)
{
    qpci_io_writel(t->dev, t->bar0, reg, val);
}

static inline uint32_t crd(T *t, int ch, uint32_t reg)
{
    return rd(t, TGPU_CHAN_REG(ch, reg));
}

static inline void cwr(T *t, int ch, uint32_t reg, uint32_t val)
{
    wr(t, TGPU_CHAN_REG(ch, reg), val);
}

/* Let QEMU's main loop run the device's bottom halves a few times. */
static inline void settle(T *t)
{
    for (int i = 0; i < 32; i++) {
        rd(t, TGPU_PMC_MAGIC);
    }
}

/* The virtual clock, which only moves when the test steps it. */
static inline int64_t vclock(T *t)
{
    return qtest_clock_set(t->qts, 0);
}

static inline void step(T *t, int64_t ns)
{
    qtest_clock_step(t->qts, ns);
    settle(t);
}

static inline uint64_t ptimer(T *t)
{
    uint32_t lo = rd(t, TGPU_PTIMER_TIME_0);

    return (uint64_t)rd(t, TGPU_PTIMER_TIME_1) << 32 | lo;
}

/* ---- physical memory: VRAM through BAR1, guest RAM directly ----------- */

static inline bool pa_is_sys(uint64_t pa)
{
    return pa >= TGPU_BYPASS_SYSMEM_BASE;
}

/* Whether LEN bytes at PA are VRAM or guest RAM. */
static inline bool pa_reachable(uint64_t pa, uint64_t len)
{
    if (pa_is_sys(pa)) {
        return pa - TGPU_BYPASS_SYSMEM_BASE + len <= GUEST_RAM_SIZE;
    }
    return pa + len <= VRAM_SIZE;
}

/*
 * Base64 through the qtest protocol (b64write, b64read), not hex: a few
 * MiB of test data move in a fraction of the time.  BAR1 is VRAM as
 * RAM, so its bytes go the same way, at the BAR's address.
 */
static inline void pa_write(T *t, uint64_t pa, const void *buf, size_t len)
{
    if (pa_is_sys(pa)) {
        qtest_bufwrite(t->qts, pa - TGPU_BYPASS_SYSMEM_BASE, buf, len);
    } else {
        g_assert_cmpuint(pa + len, <=, VRAM_SIZE);
        g_assert_false(t->bar1.is_io);
        qtest_bufwrite(t->qts, t->bar1.addr + pa, buf, len);
    }
}

static inline void pa_read(T *t, uint64_t pa, void *buf, size_t len)
{
    if (pa_is_sys(pa)) {
        qtest_bufread(t->qts, pa - TGPU_BYPASS_SYSMEM_BASE, buf, len);
    } else {
        g_assert_cmpuint(pa + len, <=, VRAM_SIZE);
        g_assert_false(t->bar1.is_io);
        qtest_bufread(t->qts, t->bar1.addr + pa, buf, len);
    }
}

static inline void pa_zero(T *t, uint64_t pa, size_t len)
{
    if (pa_is_sys(pa)) {
        qtest_memset(t->qts, pa - TGPU_BYPASS_SYSMEM_BASE, 0, len);
    } else {
        g_assert_cmpuint(pa + len, <=, VRAM_SIZE);
        qtest_memset(t->qts, t->bar1.addr + pa, 0, len);
    }
}

static inline void pa_wr32(T *t, uint64_t pa, uint32_t val)
{
    uint32_t le = cpu_to_le32(val);

    pa_write(t, pa, &le, sizeof(le));
}

static inline void pa_wr64(T *t, uint64_t pa, uint64_t val)
{
    uint64_t le = cpu_to_le64(val);

    pa_write(t, pa, &le, sizeof(le));
}

static inline uint32_t pa_rd32(T *t, uint64_t pa)
{
    uint32_t le;

    pa_read(t, pa, &le, sizeof(le));
    return le32_to_cpu(le);
}

static inline uint64_t pa_rd64(T *t, uint64_t pa)
{
    uint64_t le;

    pa_read(t, pa, &le, sizeof(le));
    return le64_to_cpu(le);
}

static inline void pa_write_dw(T *t, uint64_t pa, const uint32_t *dw,
                               uint32_t n)
{
    g_autofree uint32_t *le = g_new(uint32_t, n ? n : 1);

    for (uint32_t i = 0; i < n; i++) {
        le[i] = cpu_to_le32(dw[i]);
    }
    pa_write(t, pa, le, 4 * n);
}

/* ---- a channel's memory: through its page tables, or bypass ----------- */

/* The VRAM address of the PD1 entry of VA. */
static inline uint64_t pd1e_of(Ctx *x, uint64_t va)
{
    return x->pdb + 8 * TGPU_PD1_INDEX(va);
}

/*
 * The test's own walk, for its writes to what it mapped sanely: false
 * where VA is not mapped.
 */
static inline bool xlate(T *t, Ctx *x, uint64_t va, uint64_t *pa)
{
    uint64_t e = pa_rd64(t, pd1e_of(x, va)), base;

    if (!(e & TGPU_PTE_VALID)) {
        return false;
    }
    e = pa_rd64(t, (e & TGPU_PTE_ADDR_MASK) + 8 * TGPU_PD0_INDEX(va));
    if (!(e & TGPU_PTE_VALID)) {
        return false;
    }
    if (e & TGPU_PTE_LARGE) {
        base = (e & TGPU_PTE_ADDR_MASK) +
               (va & (TGPU_LARGE_PAGE_SIZE - 1) & ~(TGPU_PAGE_SIZE - 1));
    } else {
        e = pa_rd64(t, (e & TGPU_PTE_ADDR_MASK) + 8 * TGPU_PT_INDEX(va));
        if (!(e & TGPU_PTE_VALID)) {
            return false;
        }
        base = e & TGPU_PTE_ADDR_MASK;
    }
    if (base >= VRAM_SIZE && !(e & TGPU_PTE_SYSMEM)) {
        return false;
    }
    *pa = base + (va & (TGPU_PAGE_SIZE - 1)) +
          ((e & TGPU_PTE_SYSMEM) ? TGPU_BYPASS_SYSMEM_BASE : 0);
    return true;
}

/*
 * Whether the test can write LEN bytes at VA for channel C: VA is mapped
 * (paged), or the LEN bytes are memory (bypass).
 */
static inline bool chan_reachable(T *t, Chan *c, uint64_t va, uint64_t len)
{
    uint64_t pa;

    if (!c->ctx) {
        return pa_reachable(va, len);
    }
    return xlate(t, c->ctx, va, &pa);
}

static inline void chan_mem_write(T *t, Chan *c, uint64_t va,
                                  const void *buf, size_t len)
{
    const uint8_t *p = buf;

    if (!c->ctx) {
        pa_write(t, va, buf, len);
        return;
    }
    while (len) {
        size_t n = MIN(len, TGPU_PAGE_SIZE - (va & (TGPU_PAGE_SIZE - 1)));
        uint64_t pa = 0;

        g_assert_true(xlate(t, c->ctx, va, &pa));
        pa_write(t, pa, p, n);
        va += n;
        p += n;
        len -= n;
    }
}

static inline uint32_t chan_mem_rd32(T *t, Chan *c, uint64_t va)
{
    uint64_t pa = va;

    if (c->ctx) {
        g_assert_true(xlate(t, c->ctx, va, &pa));
    }
    return pa_rd32(t, pa);
}

static inline void chan_mem_wr32(T *t, Chan *c, uint64_t va, uint32_t val)
{
    uint32_t le = cpu_to_le32(val);

    chan_mem_write(t, c, va, &le, sizeof(le));
}

static inline void chan_mem_wr64(T *t, Chan *c, uint64_t va, uint64_t val)
{
    uint64_t le = cpu_to_le64(val);

    chan_mem_write(t, c, va, &le, sizeof(le));
}

static inline void chan_write_dw(T *t, Chan *c, uint64_t va,
                                 const uint32_t *dw, uint32_t n)
{
    g_autofree uint32_t *le = g_new(uint32_t, n ? n : 1);

    for (uint32_t i = 0; i < n; i++) {
        le[i] = cpu_to_le32(dw[i]);
    }
    chan_mem_write(t, c, va, le, 4 * n);
}

/* ---- pushbuffer builder ----------------------------------------------- */

static inline PB *pb_new(void)
{
    return g_new0(PB, 1);
}

static inline void pb_dw(PB *pb, uint32_t v)
{
    g_assert_cmpuint(pb->n, <, PB_MAX_DW);
    pb->dw[pb->n++] = v;
}

static inline void pb_hdr(PB *pb, uint32_t op, uint32_t subch,
                          uint32_t method, uint32_t count)
{
    pb_dw(pb, TGPU_PB_HDR(op, subch, method, count));
}

/* One method with one data dword. */
static inline void pb_m(PB *pb, uint32_t subch, uint32_t method,
                        uint32_t data)
{
    pb_hdr(pb, TGPU_PB_OP_INC, subch, method, 1);
    pb_dw(pb, data);
}

static inline void pb_immd(PB *pb, uint32_t method, uint32_t data)
{
    pb_hdr(pb, TGPU_PB_OP_IMMD, 0, method, data);
}

static inline void pb_nops(PB *pb, int n)
{
    for (int i = 0; i < n; i++) {
        pb_immd(pb, TGPU_M_NOP, 0);
    }
}

/* A semaphore operation: 6 dwords (INC header + ADDR_LO..EXECUTE). */
static inline void pb_sem(PB *pb, uint64_t addr, uint64_t payload,
                          uint32_t exec)
{
    g_assert_cmpuint(pb->n + TGPU_SEM_DWORDS, <=, PB_MAX_DW);
    pb->n += tgpu_pb_sem(pb->dw + pb->n, addr, payload, exec);
}

static inline void pb_release(PB *pb, uint64_t addr, uint32_t payload)
{
    pb_sem(pb, addr, payload, TGPU_SEM_OP_RELEASE);
}

static inline void pb_acquire(PB *pb, uint64_t addr, uint32_t payload)
{
    pb_sem(pb, addr, payload, TGPU_SEM_OP_ACQUIRE);
}

static inline void pb_acq_geq(PB *pb, uint64_t addr, uint32_t payload)
{
    pb_sem(pb, addr, payload, TGPU_SEM_OP_ACQ_GEQ);
}

static inline void pb_mem_op_c(PB *pb, uint32_t a, uint32_t b, uint32_t c,
                               uint32_t op)
{
    pb_hdr(pb, TGPU_PB_OP_INC, 0, TGPU_M_MEM_OP_A, 4);
    pb_dw(pb, a);
    pb_dw(pb, b);
    pb_dw(pb, c);
    pb_dw(pb, op << TGPU_MEM_OP_SHIFT);
}

static inline void pb_mem_op(PB *pb, uint32_t a, uint32_t b, uint32_t op)
{
    pb_mem_op_c(pb, a, b, 0, op);
}

/* ---- page tables: built in VRAM from the allocator ------------------- */

/* A zeroed table of SIZE bytes, aligned to its size. */
static inline uint64_t table_alloc(T *t, uint64_t size)
{
    uint64_t pa = vram_alloc_aligned(t, size, size);

    pa_zero(t, pa, size);
    return pa;
}

static inline void ctx_init(T *t, Ctx *x, uint32_t asid)
{
    x->pdb = table_alloc(t, TGPU_PDB_ALIGN);
    x->asid = asid;
}

/* The entry that maps PA with FLAGS (a test's physical address form). */
static inline uint64_t pte(uint64_t pa, uint64_t flags)
{
    if (pa_is_sys(pa)) {
        return (pa - TGPU_BYPASS_SYSMEM_BASE) | TGPU_PTE_SYSMEM |
               TGPU_PTE_VALID | flags;
    }
    return pa | TGPU_PTE_VALID | flags;
}

/* The next table below directory entry EA, made if it does not exist. */
static inline uint64_t next_table(T *t, uint64_t ea)
{
    uint64_t e = pa_rd64(t, ea);

    if (!(e & TGPU_PTE_VALID)) {
        uint64_t tbl = table_alloc(t, TGPU_PT_ALIGN);

        pa_wr64(t, ea, tbl | TGPU_PTE_VALID);
        return tbl;
    }
    g_assert_cmphex(e & ~(TGPU_PTE_ADDR_MASK | TGPU_PTE_VALID), ==, 0);
    return e & TGPU_PTE_ADDR_MASK;
}

/* VRAM addresses of the PD0 entry and the PTE of VA (see also pd1e_of). */
static inline uint64_t pd0e_of(T *t, Ctx *x, uint64_t va)
{
    return next_table(t, pd1e_of(x, va)) + 8 * TGPU_PD0_INDEX(va);
}

static inline uint64_t ptee_of(T *t, Ctx *x, uint64_t va)
{
    return next_table(t, pd0e_of(t, x, va)) + 8 * TGPU_PT_INDEX(va);
}

static inline void map4k(T *t, Ctx *x, uint64_t va, uint64_t pa,
                         uint64_t flags)
{
    pa_wr64(t, ptee_of(t, x, va), pte(pa, flags));
}

static inline void map2m(T *t, Ctx *x, uint64_t va, uint64_t pa,
                         uint64_t flags)
{
    pa_wr64(t, pd0e_of(t, x, va), pte(pa, flags | TGPU_PTE_LARGE));
}

/* ---- channels ---------------------------------------------------------- */

/* The engine, and so the runlist, of test channel CH. */
static inline uint32_t engine_of(int ch)
{
    if (ch >= 16 && ch < 24) {
        return TGPU_RUNLIST_CE0;
    }
    if (ch >= 24 && ch < 32) {
        return TGPU_RUNLIST_CE1;
    }
    return TGPU_RUNLIST_COMPUTE;
}

/*
 * Channel CH in bypass mode, which docs/hw/mmu.md allows only to a
 * privileged channel, with its instance block in t->inst, a GPFIFO
 * ring of 1 << GP_LOG2_DEFAULT entries at GPFIFO, its USERD at USERD and
 * a pushbuffer area of PB_SIZE bytes at PB.
 */
static inline Chan *chan_init(T *t, int ch, uint64_t gpfifo, uint64_t userd,
                              uint64_t pb, uint32_t pb_size)
{
    Chan *c = &t->ch[ch];

    g_assert_cmpint(ch, <, NR_TEST_CHANNELS);
    memset(c, 0, sizeof(*c));
    c->id = ch;
    c->flags = TGPU_INST_FLAGS_PRIV;
    c->inst = t->inst + TGPU_INST_SIZE * ch;
    c->gpfifo = gpfifo;
    c->log2 = GP_LOG2_DEFAULT;
    c->engine = engine_of(ch);
    c->userd = userd;
    c->pb = pb;
    c->pb_size = pb_size;
    return c;
}

/*
 * Where a test channel's work lives when the test does not say: USERD,
 * a ring of 1 << GP_LOG2_DEFAULT entries and a pushbuffer area, in VRAM.
 */
typedef struct ChanMem {
    uint64_t userd;
    uint64_t gpfifo;
    uint64_t pb;
    uint32_t pb_size;
} ChanMem;

/* Allocate M[ch] for every test channel, with PB_SIZE-byte pushbuffers. */
static inline void chan_mem_alloc(T *t, ChanMem *m, uint32_t pb_size)
{
    for (int ch = 0; ch < NR_TEST_CHANNELS; ch++) {
        m[ch].userd = vram_alloc(t, TGPU_USERD_SIZE);
        m[ch].gpfifo = vram_alloc(t, TGPU_GP_ENTRY_SIZE << GP_LOG2_DEFAULT);
        m[ch].pb = vram_alloc(t, pb_size);
        m[ch].pb_size = pb_size;
    }
}

/* Channel CH, bypass (as chan_init), on M[ch]. */
static inline Chan *chan_init_mem(T *t, int ch, const ChanMem *m)
{
    return chan_init(t, ch, m[ch].gpfifo, m[ch].userd, m[ch].pb,
                     m[ch].pb_size);
}

/*
 * Write the instance block, clear USERD and point CHAN_INST at it.  What
 * the test cannot reach (a test of bad addresses) it leaves alone.
 */
static inline void chan_write(T *t, Chan *c)
{
    const struct tgpu_inst in = {
        .flags = c->flags, .asid = c->asid, .pdb = c->pdb,
        .gpfifo_base = c->gpfifo, .gpfifo_log2 = c->log2,
        .engine = c->engine, .userd = c->userd, .priority = c->prio,
        .timeslice_us = c->ts_us, .acq_timeout_us = c->acq_to_us,
    };
    uint8_t blk[TGPU_INST_FIELDS_SIZE];
    uint8_t zero[TGPU_USERD_SIZE];

    tgpu_inst_encode(blk, &in);
    if (pa_reachable(c->inst, TGPU_INST_SIZE)) {
        pa_zero(t, c->inst, TGPU_INST_SIZE);
        pa_write(t, c->inst, blk, sizeof(blk));
    }
    memset(zero, 0, sizeof(zero));
    if (chan_reachable(t, c, c->userd, sizeof(zero))) {
        chan_mem_write(t, c, c->userd, zero, sizeof(zero));
    }
    c->put = 0;
    c->pb_used = 0;
    cwr(t, c->id, TGPU_CHAN_INST, c->inst >> 12);
}

static inline void chan_enable(T *t, Chan *c)
{
    cwr(t, c->id, TGPU_CHAN_CTRL, TGPU_CHAN_CTRL_ENABLE);
}

static inline uint32_t chan_state(T *t, int ch)
{
    return crd(t, ch, TGPU_CHAN_STATUS) & TGPU_CHAN_STATE_MASK;
}

static inline void chan_reset(T *t, int ch)
{
    cwr(t, ch, TGPU_CHAN_CTRL, TGPU_CHAN_CTRL_RESET);
}

static inline void chan_kill(T *t, int ch)
{
    cwr(t, ch, TGPU_CHAN_CTRL,
        crd(t, ch, TGPU_CHAN_CTRL) | TGPU_CHAN_CTRL_KILL);
}

static inline void note_error(T *t, int ch)
{
    g_test_message("channel %d: state %u error %u info 0x%x", ch,
                   chan_state(t, ch), crd(t, ch, TGPU_CHAN_ERROR),
                   crd(t, ch, TGPU_CHAN_ERROR_INFO));
}

static inline void wait_state(T *t, int ch, uint32_t want)
{
    gint64 end = g_get_monotonic_time() + WAIT_US;
    uint32_t s;

    for (;;) {
        s = chan_state(t, ch);
        if (s == want || g_get_monotonic_time() > end) {
            break;
        }
    }
    if (s != want) {
        note_error(t, ch);
    }
    g_assert_cmpuint(s, ==, want);
}

/* Wait until the channel fetched everything up to GP_PUT and is idle. */
static inline void wait_done(T *t, Chan *c)
{
    gint64 end = g_get_monotonic_time() + WAIT_US;
    uint32_t s, get;

    for (;;) {
        s = chan_state(t, c->id);
        get = crd(t, c->id, TGPU_CHAN_GP_GET);
        if ((s == TGPU_CHAN_STATE_IDLE && get == c->put) ||
            s == TGPU_CHAN_STATE_ERROR || g_get_monotonic_time() > end) {
            break;
        }
    }
    if (s != TGPU_CHAN_STATE_IDLE) {
        note_error(t, c->id);
    }
    g_assert_cmpuint(s, ==, TGPU_CHAN_STATE_IDLE);
    g_assert_cmpuint(get, ==, c->put);
}

/* Write and enable a configured channel; it must come up IDLE. */
static inline Chan *chan_up_cfg(T *t, Chan *c)
{
    chan_write(t, c);
    chan_enable(t, c);
    wait_state(t, c->id, TGPU_CHAN_STATE_IDLE);
    return c;
}

/* Copy a segment into the channel's pushbuffer area; returns its address. */
static inline uint64_t chan_seg(T *t, Chan *c, const uint32_t *dw,
                                uint32_t n)
{
    uint64_t va = c->pb + c->pb_used;

    g_assert_cmpuint(c->pb_used + 4 * n, <=, c->pb_size);
    chan_write_dw(t, c, va, dw, n);
    c->pb_used += ROUND_UP(4 * n, 16);
    return va;
}

/* Write one raw GPFIFO entry at GP_PUT and advance the software GP_PUT. */
static inline void chan_gp(T *t, Chan *c, uint64_t entry)
{
    chan_mem_wr64(t, c, c->gpfifo + TGPU_GP_ENTRY_SIZE * (uint64_t)c->put,
                  entry);
    c->put = (c->put + 1) & ((1u << c->log2) - 1);
}

static inline uint64_t chan_push(T *t, Chan *c, const PB *pb)
{
    uint64_t va = chan_seg(t, c, pb->dw, pb->n);

    chan_gp(t, c, TGPU_GP_ENTRY(va, pb->n, 0));
    return va;
}

static inline void doorbell(T *t, uint32_t id)
{
    wr(t, TGPU_USERMODE_DOORBELL, id);
}

/* Publish GP_PUT in USERD and ring the doorbell. */
static inline void chan_kick(T *t, Chan *c)
{
    chan_mem_wr32(t, c, c->userd + TGPU_USERD_GP_PUT, c->put);
    doorbell(t, c->id);
}

static inline void submit(T *t, Chan *c, const PB *pb)
{
    chan_push(t, c, pb);
    chan_kick(t, c);
}

/* Submit a pushbuffer that must block the channel (on an acquire). */
static inline void submit_blocked(T *t, Chan *c, const PB *pb)
{
    submit(t, c, pb);
    wait_state(t, c->id, TGPU_CHAN_STATE_BLOCKED);
}

/* Submit a pushbuffer and wait for the channel to finish it. */
static inline void run(T *t, Chan *c, const PB *pb)
{
    submit(t, c, pb);
    wait_done(t, c);
}

/* Write and enable a configured channel, and bind CLS on SUBCH. */
static inline Chan *chan_up_class(T *t, Chan *c, uint32_t subch,
                                  uint32_t cls)
{
    g_autofree PB *pb = pb_new();

    chan_up_cfg(t, c);
    pb_m(pb, subch, TGPU_M_SET_OBJECT, cls);
    run(t, c, pb);
    return c;
}

/*
 * A quick job: release VAL at VA on channel C and wait for it.  For a
 * bypass channel, check that it landed; for a paged one the caller
 * checks, in the page it expects the device to reach.
 */
static inline void run_release(T *t, Chan *c, uint64_t va, uint32_t val)
{
    g_autofree PB *pb = pb_new();

    pb_release(pb, va, val);
    run(t, c, pb);
    if (!c->ctx) {
        g_assert_cmphex(pa_rd32(t, va), ==, val);
    }
}

/* An acquire poll (virtual time) passes: channel C is still blocked. */
static inline void poll_blocked(T *t, Chan *c)
{
    step(t, TGPU_ACQUIRE_POLL_NS);
    g_assert_cmpuint(chan_state(t, c->id), ==, TGPU_CHAN_STATE_BLOCKED);
}

/* An acquire poll passes: channel C finishes its work. */
static inline void poll_done(T *t, Chan *c)
{
    step(t, TGPU_ACQUIRE_POLL_NS);
    wait_done(t, c);
}

/* ---- QEMU's main thread ------------------------------------------------ */

#ifdef CONFIG_LINUX
/* CPU time QEMU's main thread has used so far, in ns. */
static inline uint64_t main_thread_cpu_ns(T *t)
{
    pid_t pid = qtest_pid(t->qts);
    g_autofree char *path = g_strdup_printf("/proc/%d/task/%d/schedstat",
                                            (int)pid, (int)pid);
    g_autofree char *st = NULL;

    g_assert_true(g_file_get_contents(path, &st, NULL, NULL));
    return g_ascii_strtoull(st, NULL, 10);
}

/*
 * QEMU's main thread idles for MS milliseconds: a sixth of a CPU at most
 * (a timer that keeps waking the main loop takes more than half).
 */
static inline void assert_main_thread_idle(T *t, unsigned int ms)
{
    uint64_t ns = main_thread_cpu_ns(t);

    g_usleep(ms * 1000);
    g_assert_cmpuint(main_thread_cpu_ns(t) - ns, <=, ms * 1000000ull / 6);
}
#endif

/* ---- runlists ---------------------------------------------------------- */

/* Submit runlist R of the N channels IDS; returns RUNLIST_STATUS. */
static inline uint32_t runlist_submit(T *t, int r, const uint32_t *ids,
                                      uint32_t n)
{
    if (n) {
        pa_write_dw(t, t->runlist[r], ids, n);
    }
    wr(t, TGPU_FIFO_RUNLIST_BASE_LO(r), t->runlist[r]);
    wr(t, TGPU_FIFO_RUNLIST_BASE_HI(r), 0);
    wr(t, TGPU_FIFO_RUNLIST_SUBMIT(r), n);
    return rd(t, TGPU_FIFO_RUNLIST_STATUS(r));
}

/* The same, for a list that must be accepted. */
static inline void runlist_set(T *t, int r, const uint32_t *ids, uint32_t n)
{
    g_assert_cmphex(runlist_submit(t, r, ids, n), ==, n);
}

/* Every test channel on the runlist of its engine (see engine_of). */
static inline void runlists_std(T *t)
{
    uint32_t n[TGPU_NR_RUNLISTS] = { 0 };
    uint32_t lists[TGPU_NR_RUNLISTS][NR_TEST_CHANNELS];

    for (int ch = 0; ch < NR_TEST_CHANNELS && ch < t->nch; ch++) {
        uint32_t r = engine_of(ch);

        lists[r][n[r]++] = ch;
    }
    for (int r = 0; r < TGPU_NR_RUNLISTS; r++) {
        runlist_set(t, r, lists[r], n[r]);
    }
}

/* ---- channel errors ---------------------------------------------------- */

static inline bool err_pending(T *t, int ch)
{
    return rd(t, TGPU_FIFO_ERR_PENDING(ch / 32)) & (1u << (ch % 32));
}

static inline void err_ack(T *t, int ch)
{
    wr(t, TGPU_FIFO_ERR_PENDING(ch / 32), 1u << (ch % 32));
}

static inline void assert_no_error_pending(T *t)
{
    for (uint32_t i = 0; i < DIV_ROUND_UP(t->nch, 32); i++) {
        g_assert_cmphex(rd(t, TGPU_FIFO_ERR_PENDING(i)), ==, 0);
    }
    g_assert_cmphex(rd(t, TGPU_FIFO_INTR) & TGPU_FIFO_INTR_CHAN_ERROR,
                    ==, 0);
    g_assert_cmphex(rd(t, TGPU_FIFO_ERR_CHID), ==, 0xffffffff);
    g_assert_cmphex(rd(t, TGPU_FIFO_ERR_CODE), ==, 0);
    g_assert_cmphex(rd(t, TGPU_FIFO_ERR_INFO), ==, 0);
}

/* ---- MSI-X ------------------------------------------------------------- */

/*
 * Program every MSI-X vector V to write MSI_DATA(v) to guest RAM at
 * t->msi + 16 * V (allocated the first time), masked or not.
 */
static inline void msix_setup(T *t, bool masked)
{
    qpci_msix_enable(t->dev);
    /* libqos mapped BAR0 again to reach the table: follow it */
    t->bar0 = t->dev->msix_table_bar;
    if (!t->msi) {
        t->msi = ram_alloc(t, 16 * TGPU_MSIX_NR_VECTORS);
    }
    qtest_memset(t->qts, t->msi, 0, 16 * TGPU_MSIX_NR_VECTORS);
    for (int v = 0; v < TGPU_MSIX_NR_VECTORS; v++) {
        uint32_t e = t->dev->msix_table_off + v * PCI_MSIX_ENTRY_SIZE;

        wr(t, e + PCI_MSIX_ENTRY_LOWER_ADDR, t->msi + 16 * v);
        wr(t, e + PCI_MSIX_ENTRY_UPPER_ADDR, 0);
        wr(t, e + PCI_MSIX_ENTRY_DATA, MSI_DATA(v));
        wr(t, e + PCI_MSIX_ENTRY_VECTOR_CTRL,
           masked ? PCI_MSIX_ENTRY_CTRL_MASKBIT : 0);
    }
}

static inline void msix_mask(T *t, int v, bool masked)
{
    uint32_t e = t->dev->msix_table_off + v * PCI_MSIX_ENTRY_SIZE;

    wr(t, e + PCI_MSIX_ENTRY_VECTOR_CTRL,
       masked ? PCI_MSIX_ENTRY_CTRL_MASKBIT : 0);
}

static inline bool msi_seen(T *t, int v)
{
    return qtest_readl(t->qts, t->msi + 16 * v) == MSI_DATA(v);
}

static inline void msi_clear(T *t)
{
    qtest_memset(t->qts, t->msi, 0, 16 * TGPU_MSIX_NR_VECTORS);
}

static inline void wait_msi(T *t, int v)
{
    gint64 end = g_get_monotonic_time() + WAIT_US;

    while (!msi_seen(t, v) && g_get_monotonic_time() < end) {
        rd(t, TGPU_PMC_MAGIC);
    }
    g_assert_true(msi_seen(t, v));
}

#endif /* TGPU_QTEST_H */
