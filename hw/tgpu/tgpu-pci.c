/*
 * tgpu: emulated Tesla-class compute GPU, PCI Express glue
 *
 * BAR0 holds the registers (one block per hardware unit) and the MSI-X
 * table; BAR1 is the VRAM aperture.  docs/hw/registers.md is the manual.
 *
 * Copyright (c) 2026 The tgpu authors
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */

#include "qemu/osdep.h"
#include "qemu/error-report.h"
#include "qemu/log.h"
#include "qemu/module.h"
#include "qemu/units.h"
#include "qapi/error.h"
#include "hw/pci/msix.h"
#include "hw/pci/pcie.h"
#include "hw/pci/pcie_aer.h"
#include "hw/qdev-properties.h"
#include "migration/vmstate.h"
#include "tgpu.h"
#include "trace.h"

#define TGPU_VRAM_MIN       (64 * MiB)
#define TGPU_VRAM_MAX       (64 * GiB)
#define TGPU_SM_MAX         256

#define TGPU_PM_CAP_OFFSET      0x60
#define TGPU_PCIE_CAP_OFFSET    0x80
#define TGPU_AER_CAP_OFFSET     0x100

static const TGPUModel tgpu_models[] = {
    {
        .name = "p100", .device_id = TGPU_PCI_DEVICE_ID_P100,
        .arch = TGPU_ARCH_PASCAL, .impl = TGPU_IMPL_GP100,
        .vram_size = 16 * GiB, .sm_count = 56,
        .clk_sm_base_mhz = 1189, .clk_sm_boost_mhz = 1328,
        .clk_mem_mhz = 715, .power_limit_mw = 250000,
        .clk_sm_slowdown_mhz = 810, .clk_sm_min_mhz = 544,
        .power_cap_min_mw = 125000, .therm_slowdown_mc = 85000,
        .therm_shutdown_mc = 90000, .therm_tau_ms = 20000,
        .f64_cost = 2,                  /* GP100: FP64 at half the FP32 rate */
    }, {
        .name = "p40", .device_id = TGPU_PCI_DEVICE_ID_P40,
        .arch = TGPU_ARCH_PASCAL, .impl = TGPU_IMPL_GP102,
        .vram_size = 24 * GiB, .sm_count = 30,
        .clk_sm_base_mhz = 1303, .clk_sm_boost_mhz = 1531,
        .clk_mem_mhz = 3615, .power_limit_mw = 250000,
        .clk_sm_slowdown_mhz = 900, .clk_sm_min_mhz = 544,
        .power_cap_min_mw = 125000, .therm_slowdown_mc = 83000,
        .therm_shutdown_mc = 88000, .therm_tau_ms = 25000,
        .f64_cost = 32,                 /* GP102: FP64 at 1/32 */
    }, {
        .name = "m40", .device_id = TGPU_PCI_DEVICE_ID_M40,
        .arch = TGPU_ARCH_MAXWELL, .impl = TGPU_IMPL_GM200,
        .vram_size = 12 * GiB, .sm_count = 24,
        .clk_sm_base_mhz = 948, .clk_sm_boost_mhz = 1112,
        .clk_mem_mhz = 3004, .power_limit_mw = 250000,
        .clk_sm_slowdown_mhz = 700, .clk_sm_min_mhz = 405,
        .power_cap_min_mw = 180000, .therm_slowdown_mc = 87000,
        .therm_shutdown_mc = 92000, .therm_tau_ms = 30000,
        .f64_cost = 32,                 /* GM200: FP64 at 1/32 */
    },
};

/*
 * Registers take aligned 32-bit accesses; a 64-bit one arrives as two.
 * Anything else is refused, visibly: a read returns all ones, a write is
 * ignored.
 */
static bool tgpu_mmio_access_ok(hwaddr addr, unsigned size, bool is_write)
{
    if (size == 4 && !(addr & 3)) {
        return true;
    }
    qemu_log_mask(LOG_GUEST_ERROR,
                  "tgpu: %s %u-byte %s at BAR0 0x%06" HWADDR_PRIx
                  " refused: registers take aligned 32- and 64-bit "
                  "accesses; %s\n", size < 4 ? "narrow" : "unaligned",
                  size, is_write ? "write" : "read", addr,
                  is_write ? "ignored" : "reads all ones");
    trace_tgpu_mmio_bad_access(addr, size, is_write);
    return false;
}

/*
 * BAR0's registers: one region per unit (tgpu_reg_blocks), laid over
 * tgpu-regs, whose own ops answer every offset no unit decodes.  A
 * unit's read says with *ok whether it has the register; these shared
 * ops check the access, trace it, and log what no unit takes.
 */
static const TGPURegBlock tgpu_reg_blocks[TGPU_NR_REG_BLOCKS] = {
    { "tgpu-pmc", TGPU_PMC_BASE, TGPU_PMC_SIZE,
      tgpu_pmc_read, tgpu_pmc_write },
    { "tgpu-fifo", TGPU_FIFO_BASE, TGPU_FIFO_SIZE,
      tgpu_host_read, tgpu_host_write },
    { "tgpu-ptimer", TGPU_PTIMER_BASE, TGPU_PTIMER_SIZE,
      tgpu_ptimer_read, NULL },
    { "tgpu-mmu", TGPU_MMU_BASE, TGPU_MMU_SIZE,
      tgpu_mmu_read, tgpu_mmu_write },
    { "tgpu-ce", TGPU_CE_BASE, TGPU_CE_SIZE, tgpu_ce_read, NULL },
    { "tgpu-compute", TGPU_GR_BASE, TGPU_GR_SIZE, tgpu_gr_read, NULL },
    { "tgpu-ecc", TGPU_ECC_BASE, TGPU_ECC_SIZE,
      tgpu_ecc_read, tgpu_ecc_write },
    { "tgpu-therm", TGPU_THERM_BASE, TGPU_THERM_SIZE,
      tgpu_therm_read, tgpu_therm_write },
    { "tgpu-channels", TGPU_CHAN_BASE, TGPU_CHANNELS_MAX * TGPU_CHAN_STRIDE,
      tgpu_host_read, tgpu_host_write },
    /* the user-mappable page: the timer reads, the doorbell writes */
    { "tgpu-usermode", TGPU_USERMODE_BASE, TGPU_USERMODE_SIZE,
      tgpu_ptimer_read, tgpu_host_write },
};

static uint64_t tgpu_reg_read(TGPUState *s, const TGPURegBlock *b,
                              hwaddr addr, unsigned size)
{
    uint32_t val = TGPU_REG_BADF;
    bool ok = false;

    if (!tgpu_mmio_access_ok(addr, size, false)) {
        return MAKE_64BIT_MASK(0, size * 8);
    }
    if (b) {
        val = b->read(s, addr, &ok);
    }
    if (!ok) {
        qemu_log_mask(LOG_GUEST_ERROR,
                      "tgpu: read of unimplemented register 0x%06"
                      HWADDR_PRIx "\n", addr);
        trace_tgpu_mmio_bad_access(addr, size, 0);
        return TGPU_REG_BADF;
    }
    trace_tgpu_mmio_read(addr, size, val);
    return val;
}

static void tgpu_reg_write(TGPUState *s, const TGPURegBlock *b, hwaddr addr,
                           uint64_t val, unsigned size)
{
    if (!tgpu_mmio_access_ok(addr, size, true)) {
        return;
    }
    trace_tgpu_mmio_write(addr, size, val);
    if (!b || !b->write || !b->write(s, addr, val)) {
        qemu_log_mask(LOG_GUEST_ERROR,
                      "tgpu: write 0x%08" PRIx64 " to read-only or "
                      "unimplemented register 0x%06" HWADDR_PRIx
                      ", ignored\n", val, addr);
        trace_tgpu_mmio_bad_access(addr, size, 1);
    }
}

/* A unit's region: the offset is the block's own. */
static uint64_t tgpu_unit_read(void *opaque, hwaddr addr, unsigned size)
{
    TGPURegRegion *r = opaque;

    return tgpu_reg_read(r->s, r->block, r->block->base + addr, size);
}

static void tgpu_unit_write(void *opaque, hwaddr addr, uint64_t val,
                            unsigned size)
{
    TGPURegRegion *r = opaque;

    tgpu_reg_write(r->s, r->block, r->block->base + addr, val, size);
}

/* tgpu-regs itself: what lies between the units. */
static uint64_t tgpu_mmio_read(void *opaque, hwaddr addr, unsigned size)
{
    return tgpu_reg_read(opaque, NULL, addr, size);
}

static void tgpu_mmio_write(void *opaque, hwaddr addr, uint64_t val,
                            unsigned size)
{
    tgpu_reg_write(opaque, NULL, addr, val, size);
}

/*
 * Every size and alignment reaches tgpu_mmio_access_ok(), which logs
 * what it refuses; 64-bit accesses are split into two 32-bit ones.
 */
#define TGPU_REG_ACCESS                 \
    .endianness = DEVICE_LITTLE_ENDIAN, \
    .valid = {                          \
        .min_access_size = 1,           \
        .max_access_size = 8,           \
        .unaligned = true,              \
    },                                  \
    .impl = {                           \
        .min_access_size = 1,           \
        .max_access_size = 4,           \
        .unaligned = true,              \
    }

static const MemoryRegionOps tgpu_unit_ops = {
    .read = tgpu_unit_read,
    .write = tgpu_unit_write,
    TGPU_REG_ACCESS,
};

static const MemoryRegionOps tgpu_mmio_ops = {
    .read = tgpu_mmio_read,
    .write = tgpu_mmio_write,
    TGPU_REG_ACCESS,
};

static const TGPUModel *tgpu_find_model(const char *name)
{
    for (size_t i = 0; i < ARRAY_SIZE(tgpu_models); i++) {
        if (!strcmp(tgpu_models[i].name, name)) {
            return &tgpu_models[i];
        }
    }
    return NULL;
}

static bool tgpu_apply_model(TGPUState *s, Error **errp)
{
    s->model = tgpu_find_model(s->model_name ? s->model_name : "p100");
    if (!s->model) {
        error_setg(errp, "tgpu: unknown model '%s'", s->model_name);
        error_append_hint(errp, "Valid models are p100, p40 and m40.\n");
        return false;
    }

    if (!s->vram_size) {
        s->vram_size = s->model->vram_size;
    }
    if (s->vram_size < TGPU_VRAM_MIN || s->vram_size > TGPU_VRAM_MAX ||
        !QEMU_IS_ALIGNED(s->vram_size, MiB)) {
        error_setg(errp, "tgpu: vram-size %" PRIu64 " is invalid",
                   s->vram_size);
        error_append_hint(errp, "It must be a multiple of 1 MiB between "
                          "64 MiB and 64 GiB.\n");
        return false;
    }

    if (!s->sm_count) {
        s->sm_count = s->model->sm_count;
    }
    if (s->num_channels < 1 || s->num_channels > TGPU_CHANNELS_MAX) {
        error_setg(errp, "tgpu: channels %u is invalid (1 to %u)",
                   s->num_channels, TGPU_CHANNELS_MAX);
        return false;
    }
    if (s->sm_count > TGPU_SM_MAX) {
        error_setg(errp, "tgpu: sm-count %u is invalid (1 to %u)",
                   s->sm_count, TGPU_SM_MAX);
        return false;
    }
    return true;
}

static void tgpu_exit(PCIDevice *pdev);
static void tgpu_vm_state_change(void *opaque, bool running, RunState state);

static void tgpu_realize(PCIDevice *pdev, Error **errp)
{
    TGPUState *s = TGPU(pdev);
    uint8_t *conf = pdev->config;
    int ret;

    if (!tgpu_apply_model(s, errp)) {
        return;
    }
    /* First: a bad InfoROM file must fail before anything needs undoing. */
    if (!tgpu_therm_check(s, errp) || !tgpu_inforom_load(s, errp)) {
        return;
    }

    pci_config_set_device_id(conf, s->model->device_id);
    pci_config_set_interrupt_pin(conf, 1);

    memory_region_init(&s->bar0, OBJECT(s), "tgpu-bar0", TGPU_BAR0_SIZE);
    memory_region_init_io(&s->mmio, OBJECT(s), &tgpu_mmio_ops, s,
                          "tgpu-regs", TGPU_MSIX_TABLE_OFFSET);
    for (int i = 0; i < TGPU_NR_REG_BLOCKS; i++) {
        TGPURegRegion *r = &s->regs[i];

        r->s = s;
        r->block = &tgpu_reg_blocks[i];
        memory_region_init_io(&r->mr, OBJECT(s), &tgpu_unit_ops, r,
                              r->block->name, r->block->size);
        memory_region_add_subregion(&s->mmio, r->block->base, &r->mr);
    }
    memory_region_add_subregion(&s->bar0, 0, &s->mmio);
    pci_register_bar(pdev, TGPU_BAR0, PCI_BASE_ADDRESS_SPACE_MEMORY,
                     &s->bar0);

    /* VRAM is sparse until touched: a 16 GiB board must not cost 16 GiB. */
    if (!memory_region_init_ram_flags_nomigrate(&s->vram, OBJECT(s),
                                                "tgpu-vram", s->vram_size,
                                                RAM_NORESERVE, errp)) {
        return;
    }
    /* migrated as RAM, under the device's name */
    vmstate_register_ram(&s->vram, DEVICE(s));
    s->vram_ptr = memory_region_get_ram_ptr(&s->vram);
    /* A BAR is a power of two; past the end of VRAM it decodes nothing. */
    memory_region_init(&s->bar1, OBJECT(s), "tgpu-bar1",
                       pow2ceil(s->vram_size));
    memory_region_add_subregion(&s->bar1, 0, &s->vram);
    pci_register_bar(pdev, TGPU_BAR1,
                     PCI_BASE_ADDRESS_SPACE_MEMORY |
                     PCI_BASE_ADDRESS_MEM_TYPE_64 |
                     PCI_BASE_ADDRESS_MEM_PREFETCH, &s->bar1);

    ret = pci_pm_init(pdev, TGPU_PM_CAP_OFFSET, errp);
    if (ret < 0) {
        return;
    }
    pci_set_word(conf + TGPU_PM_CAP_OFFSET + PCI_PM_PMC, PCI_PM_CAP_VER_1_2);
    pci_set_word(conf + TGPU_PM_CAP_OFFSET + PCI_PM_CTRL,
                 PCI_PM_CTRL_NO_SOFT_RESET);
    pci_set_word(pdev->wmask + TGPU_PM_CAP_OFFSET + PCI_PM_CTRL,
                 PCI_PM_CTRL_STATE_MASK);

    ret = pcie_endpoint_cap_init(pdev, TGPU_PCIE_CAP_OFFSET);
    if (ret < 0) {
        error_setg(errp, "tgpu: cannot add the PCIe capability");
        return;
    }
    pcie_cap_flr_init(pdev);
    pcie_cap_deverr_init(pdev);

    ret = msix_init(pdev, TGPU_MSIX_NR_VECTORS,
                    &s->bar0, TGPU_BAR0, TGPU_MSIX_TABLE_OFFSET,
                    &s->bar0, TGPU_BAR0, TGPU_MSIX_PBA_OFFSET, 0, errp);
    if (ret < 0) {
        return;
    }
    for (int v = 0; v < TGPU_MSIX_NR_VECTORS; v++) {
        msix_vector_use(pdev, v);
    }

    if (pci_is_express(pdev) && pcie_aer_init(pdev, PCI_ERR_VER,
                                              TGPU_AER_CAP_OFFSET,
                                              PCI_ERR_SIZEOF, errp) < 0) {
        return;
    }

    tgpu_ecc_init(s);
    tgpu_mmu_init(s);
    tgpu_host_init(s);
    tgpu_ce_init(s);
    tgpu_gr_init(s);
    tgpu_therm_init(s);
    tgpu_fault_init(s);
    /* last: a plan is checked against the device as it is */
    if (!tgpu_fault_load_plan(s, errp)) {
        tgpu_exit(pdev);
        return;
    }
    s->mig_vmstate = qemu_add_vm_change_state_handler(tgpu_vm_state_change,
                                                      s);
}

/*
 * Engine threads start with the CPU affinity of the user's thread-context
 * object, as QEMU's memory preallocation threads do; otherwise they
 * inherit QEMU's.
 */
/* ---- deferred work ------------------------------------------------------ */

static void tgpu_defer_timer_cb(void *opaque)
{
    TGPUDefer *d = opaque;

    /* the bottom half's function, from the timer */
    aio_bh_call(d->bh);
}

void tgpu_defer_init(TGPUState *s, TGPUDefer *d, QEMUBHFunc *cb,
                     void *opaque)
{
    d->bh = qemu_bh_new_guarded(cb, opaque,
                                &DEVICE(s)->mem_reentrancy_guard);
    d->timer = s->deterministic ?
               timer_new_ns(QEMU_CLOCK_VIRTUAL, tgpu_defer_timer_cb, d) :
               NULL;
}

/* Run the work soon, from the main loop.  Any thread. */
void tgpu_defer_schedule(TGPUDefer *d)
{
    if (d->timer) {
        timer_mod_anticipate(d->timer, qemu_clock_get_ns(QEMU_CLOCK_VIRTUAL));
    } else {
        qemu_bh_schedule(d->bh);
    }
}

void tgpu_defer_cancel(TGPUDefer *d)
{
    if (d->timer) {
        timer_del(d->timer);
    }
    qemu_bh_cancel(d->bh);
}

void tgpu_defer_exit(TGPUDefer *d)
{
    if (d->timer) {
        timer_free(d->timer);
        d->timer = NULL;
    }
    qemu_bh_delete(d->bh);
    d->bh = NULL;
}

void tgpu_engine_thread_create(ThreadContext *tc, QemuThread *thread,
                               const char *name, void *(*fn)(void *),
                               void *opaque)
{
    if (tc) {
        thread_context_create_thread(tc, thread, name, fn, opaque,
                                     QEMU_THREAD_JOINABLE);
    } else {
        qemu_thread_create(thread, name, fn, opaque, QEMU_THREAD_JOINABLE);
    }
}

static void tgpu_config_write(PCIDevice *pdev, uint32_t addr, uint32_t val,
                              int len)
{
    pci_default_write_config(pdev, addr, val, len);
    pcie_cap_flr_write_config(pdev, addr, val, len);
}

static void tgpu_exit(PCIDevice *pdev)
{
    TGPUState *s = TGPU(pdev);

    if (s->mig_vmstate) {
        qemu_del_vm_change_state_handler(s->mig_vmstate);
        s->mig_vmstate = NULL;
    }
    tgpu_gr_exit(s);
    tgpu_ce_exit(s);
    /* after the engines' threads, which use up faults and count reads */
    tgpu_fault_exit(s);
    tgpu_ecc_exit(s);
    tgpu_therm_exit(s);
    tgpu_host_exit(s);
    tgpu_mmu_exit(s);
    pcie_aer_exit(pdev);
    msix_uninit(pdev, &s->bar0, &s->bar0);
    pcie_cap_exit(pdev);
    /*
     * A subregion holds a reference on its owner, even when the container
     * has the same owner (QEMU 10.0): unless they are taken apart here,
     * the device keeps itself alive after an unplug, and its VRAM too.
     */
    memory_region_del_subregion(&s->bar1, &s->vram);
    vmstate_unregister_ram(&s->vram, DEVICE(s));
    for (int i = 0; i < TGPU_NR_REG_BLOCKS; i++) {
        memory_region_del_subregion(&s->mmio, &s->regs[i].mr);
    }
    memory_region_del_subregion(&s->bar0, &s->mmio);
}

static void tgpu_reset_hold(Object *obj, ResetType type)
{
    TGPUState *s = TGPU(obj);

    trace_tgpu_reset(s->model->name);
    s->mig_restore = false;
    tgpu_pmc_reset(s);
    tgpu_ce_reset(s);
    tgpu_gr_reset(s);
    tgpu_host_reset(s);
    tgpu_mmu_reset(s);
    tgpu_ecc_reset(s);
    tgpu_therm_reset(s);
    tgpu_fault_reset(s);
    tgpu_irq_update(s);
}

static const Property tgpu_properties[] = {
    DEFINE_PROP_STRING("model", TGPUState, model_name),
    DEFINE_PROP_SIZE("vram-size", TGPUState, vram_size, 0),
    DEFINE_PROP_UINT32("sm-count", TGPUState, sm_count, 0),
    DEFINE_PROP_UINT32("channels", TGPUState, num_channels,
                       TGPU_CHANNELS_DEFAULT),
    DEFINE_PROP_BOOL("tlb-tagging", TGPUState, tlb_tagging, true),
    DEFINE_PROP_BOOL("deterministic", TGPUState, deterministic, false),
    DEFINE_PROP_INT32("ambient-temp", TGPUState, therm_ambient_c, 35),
    DEFINE_PROP_UINT32("sm-clock-divider", TGPUState, sm_clock_divider, 1),
    DEFINE_PROP_BOOL("ecc", TGPUState, ecc_cap, true),
    DEFINE_PROP_STRING("inforom", TGPUState, inforom_path),
    DEFINE_PROP_STRING("fault-plan", TGPUState, fault_plan),
    /* one per copy engine (TGPU_CE_COUNT, checked in tgpu_class_init) */
    DEFINE_PROP_LINK("ce0-thread-context", TGPUState, ce_thread_ctx[0],
                     TYPE_THREAD_CONTEXT, ThreadContext *),
    DEFINE_PROP_LINK("ce1-thread-context", TGPUState, ce_thread_ctx[1],
                     TYPE_THREAD_CONTEXT, ThreadContext *),
    DEFINE_PROP_LINK("compute-thread-context", TGPUState, gr_thread_ctx,
                     TYPE_THREAD_CONTEXT, ThreadContext *),
};

/*
 * Migration: the VM is stopped, so every engine's thread holds at a
 * checkpoint or at either end of its work (tgpu-engine.c), and each
 * unit's section says how its work goes on from there.  VRAM moves as
 * RAM; the TLB does not (it starts empty).  docs/hw/migration.md.
 */
static int tgpu_pre_save(void *opaque)
{
    TGPUState *s = opaque;
    Error *err = NULL;

    /* a fault injected after the setup's check: refuse at the end */
    if (!tgpu_fault_migratable(s, &err)) {
        error_report_err(err);
        return -EBUSY;
    }
    return 0;
}

/*
 * Until the last check passed, what was loaded is not the device's: a
 * load that fails (or a stream that ends) half way leaves it in place.
 */
static int tgpu_pre_load(void *opaque)
{
    TGPUState *s = opaque;

    s->mig_loading = true;
    return 0;
}

/*
 * Once, after every subsection (the stream may bring them in any order,
 * or twice): the checks across units.  Nothing is started here.
 */
static int tgpu_post_load(void *opaque, int version_id)
{
    TGPUState *s = opaque;

    if (!tgpu_ce_loaded(s) || !tgpu_gr_loaded_valid(s) ||
        !tgpu_therm_loaded_valid(s)) {
        return -EINVAL;
    }
    s->mig_loading = false;
    s->mig_restore = true;
    return 0;
}

/*
 * The loaded VM runs: the units take their work up.  Not in post_load:
 * a load that yields (from a socket) would run the bottom halves of
 * work half loaded.
 */
static void tgpu_vm_state_change(void *opaque, bool running, RunState state)
{
    TGPUState *s = opaque;
    Error *err = NULL;

    if (running && s->mig_loading) {
        /*
         * A failed loadvm, then cont: none of the half-loaded state may
         * run.  The device starts again from its reset state and the
         * InfoROM file, as at power-on.
         */
        warn_report("tgpu: %s: the migrated state did not load: the "
                    "device is reset", DEVICE(s)->canonical_path);
        s->mig_loading = false;
        if (!tgpu_inforom_load(s, &err)) {
            error_report_err(err);
        }
        device_cold_reset(DEVICE(s));
        return;
    }
    if (!running || !s->mig_restore) {
        return;
    }
    s->mig_restore = false;
    tgpu_ce_restore(s);
    tgpu_gr_restore(s);
    tgpu_ecc_restore(s);
    /* work goes on where the scheduler's next pass finds it */
    tgpu_host_kick(s);
}

static const VMStateDescription tgpu_vmstate = {
    .name = "tgpu",
    .version_id = 1,
    .minimum_version_id = 1,
    .pre_save = tgpu_pre_save,
    .pre_load = tgpu_pre_load,
    .post_load = tgpu_post_load,
    .fields = (const VMStateField[]) {
        VMSTATE_PCI_DEVICE(parent_obj, TGPUState),
        VMSTATE_MSIX(parent_obj, TGPUState),
        VMSTATE_STRUCT(parent_obj.exp.aer_log, TGPUState, 0,
                       vmstate_pcie_aer_log, PCIEAERLog),
        VMSTATE_UINT64_EQUAL(vram_size, TGPUState,
                             "vram-size and model must match"),
        VMSTATE_UINT32_EQUAL(sm_count, TGPUState,
                             "sm-count and model must match"),
        VMSTATE_UINT32(pmc_scratch, TGPUState),
        VMSTATE_UINT32(pmc_intr_en, TGPUState),
        VMSTATE_UINT32(ptimer_latch, TGPUState),
        VMSTATE_UINT32(ptimer_user_latch, TGPUState),
        VMSTATE_END_OF_LIST()
    },
    .subsections = (const VMStateDescription * const []) {
        &tgpu_vmstate_host,
        &tgpu_vmstate_mmu,
        &tgpu_vmstate_ecc,
        &tgpu_vmstate_therm,
        &tgpu_vmstate_ce,
        &tgpu_vmstate_gr,
        NULL
    },
};

static void tgpu_class_init(ObjectClass *oc, void *data)
{
    DeviceClass *dc = DEVICE_CLASS(oc);
    PCIDeviceClass *pc = PCI_DEVICE_CLASS(oc);
    ResettableClass *rc = RESETTABLE_CLASS(oc);

    QEMU_BUILD_BUG_ON(TGPU_CE_COUNT != 2);
    pc->realize = tgpu_realize;
    pc->exit = tgpu_exit;
    pc->config_write = tgpu_config_write;
    pc->vendor_id = TGPU_PCI_VENDOR_ID;
    pc->device_id = TGPU_PCI_DEVICE_ID_P100;
    pc->revision = TGPU_PCI_REVISION;
    pc->class_id = TGPU_PCI_CLASS;
    rc->phases.hold = tgpu_reset_hold;

    set_bit(DEVICE_CATEGORY_MISC, dc->categories);
    dc->desc = "tgpu emulated Tesla-class compute GPU";
    dc->vmsd = &tgpu_vmstate;
    device_class_set_props(dc, tgpu_properties);
}

static const TypeInfo tgpu_info = {
    .name = TYPE_TGPU,
    .parent = TYPE_PCI_DEVICE,
    .instance_size = sizeof(TGPUState),
    .class_init = tgpu_class_init,
    .interfaces = (InterfaceInfo[]) {
        { INTERFACE_PCIE_DEVICE },
        { }
    },
};

static void tgpu_register_types(void)
{
    type_register_static(&tgpu_info);
}

type_init(tgpu_register_types)
