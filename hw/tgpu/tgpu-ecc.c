/*
 * tgpu ECC: control, the VRAM scrub that enabling starts, error injection
 * and what an error does to its reader (correction, containment, the
 * counters and the address log).  The InfoROM, where the aggregate
 * counts persist, is tgpu-inforom.c.  docs/hw/ecc.md is the manual.
 *
 * Copyright (c) 2026 The tgpu authors
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */

#include "qemu/osdep.h"
#include "qemu/error-report.h"
#include "qemu/log.h"
#include "qemu/units.h"
#include "qapi/error.h"
#include "hw/pci/pcie_aer.h"
#include "system/system.h"
#include "migration/vmstate.h"
#include "tgpu.h"
#include "trace.h"

/* ---- errors: what a read of an armed word does -------------------------- */

static const char *const ecc_engine_names[] = {
    [TGPU_ECC_ENGINE_HOST] = "host",
    [TGPU_ECC_ENGINE_COMPUTE] = "compute",
    [TGPU_ECC_ENGINE_CE0] = "CE0",
    [TGPU_ECC_ENGINE_CE1] = "CE1",
    [TGPU_ECC_ENGINE_MMU] = "MMU",
    [TGPU_ECC_ENGINE_BAR1] = "BAR1",
};

static uint32_t sat_inc(uint32_t v)
{
    return v == UINT32_MAX ? v : v + 1;
}

/* Under ecc_lock: the bottom half sends a TGPU_ECC_ERROR for it. */
static void ecc_event_add(TGPUState *s, uint64_t addr, uint8_t type,
                          unsigned int engine, uint32_t chid)
{
    if (s->ecc_events_nr < TGPU_ECC_EVENTS) {
        s->ecc_events[s->ecc_events_nr++] = (TGPUEccEvent) {
            .addr = addr, .type = type, .engine = engine,
            .chid = chid < TGPU_ECC_NO_CHID ? chid : TGPU_ECC_NO_CHID,
        };
    }
}

/* Under ecc_lock: one more entry, dropping the oldest from a full log. */
static void ecc_log_add(TGPUState *s, uint64_t addr, uint8_t type,
                        unsigned int engine, uint32_t chid)
{
    TGPUEccLog *e;

    if (s->ecc_log_nr == TGPU_ECC_LOG_ENTRIES) {
        s->ecc_log_head = (s->ecc_log_head + 1) % TGPU_ECC_LOG_ENTRIES;
        s->ecc_log_nr--;
        s->ecc_log_overflow = true;
    }
    e = &s->ecc_log[(s->ecc_log_head + s->ecc_log_nr++) %
                    TGPU_ECC_LOG_ENTRIES];
    *e = (TGPUEccLog) {
        .addr = addr, .time = tgpu_ptimer_now(s), .type = type,
        .engine = engine,
        .chid = chid < TGPU_ECC_NO_CHID ? chid : TGPU_ECC_NO_CHID,
    };
}

/* Under ecc_lock: injection I is gone (it happened, or was written). */
static void ecc_inj_drop(TGPUState *s, uint32_t i)
{
    memmove(&s->ecc_inj[i], &s->ecc_inj[i + 1],
            (s->ecc_inj_nr - i - 1) * sizeof(s->ecc_inj[0]));
    qatomic_set(&s->ecc_inj_nr, s->ecc_inj_nr - 1);
}

bool tgpu_ecc_vram_read_slow(TGPUState *s, uint64_t addr, uint64_t len,
                             unsigned int engine, uint32_t chid,
                             uint64_t *bad)
{
    bool on = qatomic_read(&s->ecc_state) == TGPU_ECC_STATE_ENABLED;
    uint32_t raised = 0, before;
    bool ok = true, changed;

    *bad = UINT64_MAX;
    qemu_mutex_lock(&s->ecc_lock);
    before = s->ecc_inj_nr;
    /* the read stops at the lowest poisoned word: nothing behind happens */
    for (uint32_t i = 0; on && i < s->ecc_inj_nr; i++) {
        const TGPUEccInj *j = &s->ecc_inj[i];

        if (j->addr + 8 > addr && j->addr < addr + len &&
            ctpop64(j->mask) == 2) {
            *bad = MIN(*bad, j->addr);
        }
    }
    for (uint32_t i = 0; i < s->ecc_inj_nr;) {
        TGPUEccInj *j = &s->ecc_inj[i];
        bool dbe = ctpop64(j->mask) == 2;

        if (j->addr + 8 <= addr || j->addr >= addr + len || j->addr > *bad) {
            i++;
            continue;
        }
        if (!on) {
            /* no check bits: the cell just holds the flipped bits now */
            stq_le_p(s->vram_ptr + j->addr,
                     ldq_le_p(s->vram_ptr + j->addr) ^ j->mask);
            memory_region_set_dirty(&s->vram, j->addr, 8);
            trace_tgpu_ecc_flip(j->addr, j->mask, ecc_engine_names[engine],
                                chid);
            ecc_inj_drop(s, i);
            continue;
        }
        if (dbe) {
            s->ecc_dbe_vol = sat_inc(s->ecc_dbe_vol);
            s->ecc_dbe_agg = sat_inc(s->ecc_dbe_agg);
            ecc_log_add(s, j->addr, TGPU_ECC_TYPE_DBE, engine, chid);
            ecc_event_add(s, j->addr, TGPU_ECC_TYPE_DBE, engine, chid);
            raised |= TGPU_ECC_INTR_DBE;
            ok = false;
            trace_tgpu_ecc_dbe(j->addr, ecc_engine_names[engine], chid);
        } else {
            s->ecc_sbe_vol = sat_inc(s->ecc_sbe_vol);
            s->ecc_sbe_agg = sat_inc(s->ecc_sbe_agg);
            ecc_log_add(s, j->addr, TGPU_ECC_TYPE_SBE, engine, chid);
            ecc_event_add(s, j->addr, TGPU_ECC_TYPE_SBE, engine, chid);
            raised |= TGPU_ECC_INTR_SBE;
            trace_tgpu_ecc_sbe(j->addr, ecc_engine_names[engine], chid);
        }
        if (j->sticky) {
            i++;
        } else {
            ecc_inj_drop(s, i);
        }
    }
    changed = raised || s->ecc_inj_nr != before;
    qemu_mutex_unlock(&s->ecc_lock);
    if (raised) {
        qatomic_store_release(&s->ecc_agg_dirty, true);
        qatomic_or(&s->ecc_intr, raised);
        qatomic_set(&s->ecc_raise, true);
    }
    /* the same way from every thread: MSI-X and BAR1 need the BQL */
    if (changed) {
        tgpu_defer_schedule(&s->ecc_defer);
    }
    return ok;
}

void tgpu_ecc_vram_write_slow(TGPUState *s, uint64_t addr, uint64_t len)
{
    QEMU_LOCK_GUARD(&s->ecc_lock);
    for (uint32_t i = 0; i < s->ecc_inj_nr;) {
        const TGPUEccInj *j = &s->ecc_inj[i];

        if (j->addr + 8 <= addr || j->addr >= addr + len) {
            i++;
            continue;
        }
        /* new data, new check bits: the error is gone */
        trace_tgpu_ecc_rewritten(j->addr);
        ecc_inj_drop(s, i);
        tgpu_defer_schedule(&s->ecc_defer);
    }
}

/* ---- BAR1: the CPU's reads of armed pages ------------------------------- */

/*
 * BAR1 is VRAM's RAM region, which the CPU reads without the device.  A
 * page with an armed error gets an MMIO overlay, so that its reads are
 * checked like the engines' (and its writes clear the error); the rest of
 * BAR1 stays RAM.
 */
static uint64_t ecc_poison_read(void *opaque, hwaddr addr, unsigned size)
{
    TGPUEccPoison *o = opaque;
    TGPUState *s = o->s;
    PCIDevice *pdev = PCI_DEVICE(s);
    uint64_t pa = o->page + addr, bad;

    if (!tgpu_ecc_vram_read(s, pa, size, TGPU_ECC_ENGINE_BAR1,
                            TGPU_ECC_NO_CHID, &bad)) {
        /* poisoned data: all ones, and a non-fatal error through AER */
        PCIEAERErr err = {
            .status = PCI_ERR_UNC_POISON_TLP,
            .source_id = pci_requester_id(pdev),
        };

        trace_tgpu_ecc_bar1_poison(pa);
        if (pci_is_express(pdev)) {
            pcie_aer_inject_error(pdev, &err);
        }
        return MAKE_64BIT_MASK(0, size * 8);
    }
    return ldn_le_p(s->vram_ptr + pa, size);
}

static void ecc_poison_write(void *opaque, hwaddr addr, uint64_t val,
                             unsigned size)
{
    TGPUEccPoison *o = opaque;
    TGPUState *s = o->s;
    uint64_t pa = o->page + addr;

    stn_le_p(s->vram_ptr + pa, size, val);
    memory_region_set_dirty(&s->vram, pa, size);
    tgpu_ecc_vram_write(s, pa, size);
}

static const MemoryRegionOps ecc_poison_ops = {
    .read = ecc_poison_read,
    .write = ecc_poison_write,
    .endianness = DEVICE_LITTLE_ENDIAN,
    .valid = { .min_access_size = 1, .max_access_size = 8 },
    .impl = { .min_access_size = 1, .max_access_size = 8 },
};

static bool ecc_page_armed(TGPUState *s, uint64_t page)
{
    for (uint32_t i = 0; i < s->ecc_inj_nr; i++) {
        if ((s->ecc_inj[i].addr & ~(uint64_t)(TGPU_PAGE_SIZE - 1)) == page) {
            return true;
        }
    }
    return false;
}

static bool ecc_page_overlaid(TGPUState *s, uint64_t page)
{
    for (int i = 0; i < TGPU_ECC_INJ_MAX; i++) {
        if (s->ecc_poison[i].mapped && s->ecc_poison[i].page == page) {
            return true;
        }
    }
    return false;
}

/* Under the BQL: an overlay on exactly the pages with armed errors. */
static void ecc_poison_sync(TGPUState *s)
{
    memory_region_transaction_begin();
    WITH_QEMU_LOCK_GUARD(&s->ecc_lock) {
        for (int i = 0; i < TGPU_ECC_INJ_MAX; i++) {
            TGPUEccPoison *o = &s->ecc_poison[i];

            if (o->mapped && !ecc_page_armed(s, o->page)) {
                memory_region_del_subregion(&s->bar1, &o->mr);
                o->mapped = false;
            }
        }
        for (uint32_t i = 0; i < s->ecc_inj_nr; i++) {
            uint64_t page = s->ecc_inj[i].addr &
                            ~(uint64_t)(TGPU_PAGE_SIZE - 1);
            int f = 0;

            if (ecc_page_overlaid(s, page)) {
                continue;
            }
            /* pages <= injections <= overlays: there is a free one */
            while (s->ecc_poison[f].mapped) {
                f++;
            }
            s->ecc_poison[f].page = page;
            s->ecc_poison[f].mapped = true;
            memory_region_add_subregion_overlap(&s->bar1, page,
                                                &s->ecc_poison[f].mr, 1);
        }
    }
    /* the memory map changes outside the lock the engines take */
    memory_region_transaction_commit();
}

/* Under the BQL: the aggregate counts changed; the InfoROM keeps them. */
static void ecc_agg_write(TGPUState *s)
{
    Error *err = NULL;

    /* nothing of a load that did not pass its checks reaches the file */
    if (s->mig_loading) {
        return;
    }
    if (qatomic_read(&s->ecc_agg_dirty) && !tgpu_inforom_persist(s, &err)) {
        /* keep it due: the next change, or the exit, tries again */
        qatomic_set(&s->ecc_agg_dirty, true);
        error_report_once("%s", error_get_pretty(err));
        error_free(err);
    }
}

static void ecc_persist_timer_cb(void *opaque)
{
    ecc_agg_write(opaque);
}

/* QEMU exits without unrealizing devices: the last counts still go. */
static void ecc_exit_notify(Notifier *n, void *data)
{
    ecc_agg_write(container_of(n, TGPUState, ecc_exit_notifier));
}

/*
 * The file is written (a temporary file, fsync, rename) at most once a
 * second of host time, however often the guest makes errors or clears
 * the counts: the guest must not drive the host's disk.
 */
static void ecc_agg_persist(TGPUState *s)
{
    if (qatomic_read(&s->ecc_agg_dirty) &&
        !timer_pending(s->ecc_persist_timer)) {
        timer_mod(s->ecc_persist_timer,
                  qemu_clock_get_ms(QEMU_CLOCK_REALTIME) +
                  TGPU_ECC_PERSIST_MS);
    }
}

/* Under the BQL: the errors since the last run, as QMP events. */
static void ecc_send_events(TGPUState *s)
{
    TGPUEccEvent ev[TGPU_ECC_EVENTS];
    g_autofree char *path = NULL;
    uint32_t n;

    WITH_QEMU_LOCK_GUARD(&s->ecc_lock) {
        n = s->ecc_events_nr;
        memcpy(ev, s->ecc_events, n * sizeof(ev[0]));
        s->ecc_events_nr = 0;
    }
    if (n) {
        path = object_get_canonical_path(OBJECT(s));
    }
    for (uint32_t i = 0; i < n; i++) {
        tgpu_qmp_ecc_event(path, ev[i].type == TGPU_ECC_TYPE_DBE,
                           ev[i].addr, ev[i].engine, ev[i].chid);
    }
}

static void ecc_bh(void *opaque)
{
    TGPUState *s = opaque;

    ecc_poison_sync(s);
    ecc_agg_persist(s);
    ecc_send_events(s);
    if (qatomic_xchg(&s->ecc_raise, false)) {
        tgpu_irq_raise(s, TGPU_UNIT_ECC);
    }
}

/* ---- injection registers ------------------------------------------------ */

static void ecc_inj_refuse(TGPUState *s, uint32_t err, const char *why)
{
    s->ecc_inj_err |= err;
    qemu_log_mask(LOG_GUEST_ERROR, "tgpu: ECC injection at 0x%" PRIx64
                  " (mask 0x%016" PRIx64 ") refused: %s\n",
                  s->ecc_inj_addr, s->ecc_inj_mask, why);
    trace_tgpu_ecc_inject_refused(s->ecc_inj_addr, s->ecc_inj_mask, why);
}

/*
 * Arm MASK at the 64-bit word ADDR, as INJ_ARM and QMP do: 0 and its
 * *NUMBER (a new one, unless *NUMBER is given), or the TGPU_ECC_INJ_ERR_*
 * bit that refuses it.  Under the BQL.
 */
uint32_t tgpu_ecc_arm(TGPUState *s, uint64_t addr, uint64_t mask,
                      bool sticky, uint64_t *number)
{
    uint32_t i;

    if (addr % 8) {
        return TGPU_ECC_INJ_ERR_ALIGN;
    }
    if (addr >= s->vram_size) {
        return TGPU_ECC_INJ_ERR_RANGE;
    }
    if (ctpop64(mask) != 1 && ctpop64(mask) != 2) {
        return TGPU_ECC_INJ_ERR_MASK;
    }
    WITH_QEMU_LOCK_GUARD(&s->ecc_lock) {
        for (i = 0; i < s->ecc_inj_nr && s->ecc_inj[i].addr != addr; i++) {
            continue;
        }
        if (i == TGPU_ECC_INJ_MAX) {
            return TGPU_ECC_INJ_ERR_FULL;
        }
        s->ecc_inj[i] = (TGPUEccInj) {
            .addr = addr, .mask = mask, .sticky = sticky,
            .number = *number ? *number : ++s->inj_seq,
        };
        *number = s->ecc_inj[i].number;
        if (i == s->ecc_inj_nr) {
            qatomic_set(&s->ecc_inj_nr, i + 1);
        }
    }
    trace_tgpu_ecc_inject(addr, mask, sticky);
    /* the CPU's next read through BAR1 is checked too */
    ecc_poison_sync(s);
    return 0;
}

/* Drop every pending injection.  Under the BQL. */
void tgpu_ecc_clear_injections(TGPUState *s)
{
    WITH_QEMU_LOCK_GUARD(&s->ecc_lock) {
        qatomic_set(&s->ecc_inj_nr, 0);
    }
    ecc_poison_sync(s);
}

static void ecc_inj_arm(TGPUState *s)
{
    static const char *const why[] = {
        [16] = "64 injections are pending already",
        [17] = "the address is beyond VRAM",
        [18] = "the mask must have one bit (SBE) or two (DBE)",
        [19] = "the address is not that of a 64-bit word",
    };
    uint64_t number = 0;
    uint32_t err = tgpu_ecc_arm(s, s->ecc_inj_addr, s->ecc_inj_mask,
                                s->ecc_inj_mode == TGPU_ECC_INJ_STICKY,
                                &number);

    if (err) {
        ecc_inj_refuse(s, err, why[ctz32(err)]);
    }
}

/* INJ_MODE and INJ_ARM take only their documented values. */
static void ecc_inj_bad_value(TGPUState *s, hwaddr reg, uint32_t val)
{
    s->ecc_inj_err |= TGPU_ECC_INJ_ERR_VALUE;
    qemu_log_mask(LOG_GUEST_ERROR, "tgpu: ECC register 0x%05" HWADDR_PRIx
                  ": value 0x%08x out of range, ignored\n", reg, val);
    trace_tgpu_ecc_bad_value(reg, val);
}

static uint32_t ecc_inj_pending_read(TGPUState *s, hwaddr addr)
{
    const TGPUEccInj *j = NULL;

    QEMU_LOCK_GUARD(&s->ecc_lock);
    if (s->ecc_inj_select < s->ecc_inj_nr) {
        j = &s->ecc_inj[s->ecc_inj_select];
    }
    switch (addr) {
    case TGPU_ECC_INJ_PEND_ADDR_LO:
        return j ? (uint32_t)j->addr : UINT32_MAX;
    case TGPU_ECC_INJ_PEND_ADDR_HI:
        return j ? j->addr >> 32 : UINT32_MAX;
    case TGPU_ECC_INJ_PEND_MASK_LO:
        return j ? (uint32_t)j->mask : 0;
    case TGPU_ECC_INJ_PEND_MASK_HI:
        return j ? j->mask >> 32 : 0;
    default: /* TGPU_ECC_INJ_PEND_MODE */
        return j && j->sticky ? TGPU_ECC_INJ_STICKY : TGPU_ECC_INJ_ONCE;
    }
}

static uint32_t ecc_log_read(TGPUState *s, hwaddr addr)
{
    const TGPUEccLog *e = NULL;

    QEMU_LOCK_GUARD(&s->ecc_lock);
    if (s->ecc_log_select < s->ecc_log_nr) {
        e = &s->ecc_log[(s->ecc_log_head + s->ecc_log_select) %
                        TGPU_ECC_LOG_ENTRIES];
    }
    if (!e) {
        return 0;
    }
    switch (addr) {
    case TGPU_ECC_LOG_ADDR_LO:
        return (uint32_t)e->addr;
    case TGPU_ECC_LOG_ADDR_HI:
        return e->addr >> 32;
    case TGPU_ECC_LOG_INFO:
        return e->type | e->engine << TGPU_ECC_LOG_ENGINE_SHIFT |
               (uint32_t)e->chid << TGPU_ECC_LOG_CHID_SHIFT;
    case TGPU_ECC_LOG_TIME_LO:
        return (uint32_t)e->time;
    default: /* TGPU_ECC_LOG_TIME_HI */
        return e->time >> 32;
    }
}

/* Under ecc_lock (or with no engine running). */
static void ecc_log_clear(TGPUState *s)
{
    s->ecc_log_head = 0;
    s->ecc_log_nr = 0;
    s->ecc_log_overflow = false;
}

static void ecc_counters_clear(TGPUState *s, uint32_t val)
{
    if (val & ~TGPU_ECC_CLEAR_MASK) {
        ecc_inj_bad_value(s, TGPU_ECC_COUNTERS_CLEAR, val);
        return;
    }
    QEMU_LOCK_GUARD(&s->ecc_lock);
    if (val & TGPU_ECC_CLEAR_VOLATILE) {
        s->ecc_sbe_vol = 0;
        s->ecc_dbe_vol = 0;
    }
    if (val & TGPU_ECC_CLEAR_AGGREGATE) {
        s->ecc_sbe_agg = 0;
        s->ecc_dbe_agg = 0;
        qatomic_store_release(&s->ecc_agg_dirty, true);
        tgpu_defer_schedule(&s->ecc_defer);
    }
}

/* ---- control ------------------------------------------------------------ */

static bool ecc_any_channel_enabled(TGPUState *s)
{
    for (uint32_t i = 0; i < s->num_channels; i++) {
        if (s->chan[i].enabled) {
            return true;
        }
    }
    return false;
}

static void ecc_scrub_done(void *opaque)
{
    TGPUState *s = opaque;

    if (s->ecc_state != TGPU_ECC_STATE_SCRUBBING) {
        return;
    }
    qatomic_set(&s->ecc_state, TGPU_ECC_STATE_ENABLED);
    qatomic_or(&s->ecc_intr, TGPU_ECC_INTR_SCRUB_DONE);
    trace_tgpu_ecc_state(s->ecc_state);
    tgpu_irq_raise(s, TGPU_UNIT_ECC);
}

static void ecc_refuse(TGPUState *s, uint32_t err, uint32_t val,
                       const char *why)
{
    s->ecc_status_err |= err;
    qemu_log_mask(LOG_GUEST_ERROR, "tgpu: ECC_CTRL write 0x%08x refused: "
                  "%s\n", val, why);
    trace_tgpu_ecc_refused(val, why);
}

static void ecc_ctrl_write(TGPUState *s, uint32_t val)
{
    bool on = val & TGPU_ECC_CTRL_ENABLE;

    if (on == s->ecc_ctrl) {
        return;
    }
    if (!s->ecc_cap) {
        ecc_refuse(s, TGPU_ECC_STATUS_ERR_NOCAP, val,
                   "the board has no ECC (ecc=off)");
        return;
    }
    /* Check bits change under live data: no channel may run meanwhile. */
    if (ecc_any_channel_enabled(s)) {
        ecc_refuse(s, TGPU_ECC_STATUS_ERR_BUSY, val,
                   "a channel is enabled; disable every channel first");
        return;
    }
    s->ecc_ctrl = on;
    if (on) {
        /*
         * The scrub writes check bits for all of VRAM; it is only timed,
         * VRAM on the host is not touched (it is sparse) and keeps its data.
         */
        s->ecc_scrub_ns = s->vram_size / MiB * TGPU_ECC_SCRUB_NS_PER_MIB;
        qatomic_set(&s->ecc_state, TGPU_ECC_STATE_SCRUBBING);
        timer_mod(s->ecc_scrub_timer,
                  qemu_clock_get_ns(QEMU_CLOCK_VIRTUAL) + s->ecc_scrub_ns);
    } else {
        timer_del(s->ecc_scrub_timer);
        qatomic_set(&s->ecc_state, TGPU_ECC_STATE_DISABLED);
    }
    trace_tgpu_ecc_state(s->ecc_state);
}

uint32_t tgpu_ecc_read(TGPUState *s, hwaddr addr, bool *ok)
{
    *ok = true;
    switch (addr) {
    case TGPU_ECC_CAPS:
        return s->ecc_cap ? TGPU_ECC_CAPS_ECC : 0;
    case TGPU_ECC_CTRL:
        return s->ecc_ctrl ? TGPU_ECC_CTRL_ENABLE : 0;
    case TGPU_ECC_STATUS:
        return s->ecc_state | s->ecc_status_err;
    case TGPU_ECC_INTR:
        return s->ecc_intr;
    case TGPU_ECC_INTR_EN:
        return s->ecc_intr_en;
    case TGPU_ECC_SCRUB_NS_LO:
        return (uint32_t)s->ecc_scrub_ns;
    case TGPU_ECC_SCRUB_NS_HI:
        return s->ecc_scrub_ns >> 32;
    case TGPU_ECC_SBE_VOLATILE:
        return qatomic_read(&s->ecc_sbe_vol);
    case TGPU_ECC_DBE_VOLATILE:
        return qatomic_read(&s->ecc_dbe_vol);
    case TGPU_ECC_SBE_AGGREGATE:
        return qatomic_read(&s->ecc_sbe_agg);
    case TGPU_ECC_DBE_AGGREGATE:
        return qatomic_read(&s->ecc_dbe_agg);
    case TGPU_ECC_LOG_COUNT:
        return qatomic_read(&s->ecc_log_nr);
    case TGPU_ECC_LOG_STATUS:
        return qatomic_read(&s->ecc_log_overflow) ? TGPU_ECC_LOG_OVERFLOW : 0;
    case TGPU_ECC_LOG_SELECT:
        return s->ecc_log_select;
    case TGPU_ECC_LOG_ADDR_LO:
    case TGPU_ECC_LOG_ADDR_HI:
    case TGPU_ECC_LOG_INFO:
    case TGPU_ECC_LOG_TIME_LO:
    case TGPU_ECC_LOG_TIME_HI:
        return ecc_log_read(s, addr);
    case TGPU_ECC_INJ_ADDR_LO:
        return (uint32_t)s->ecc_inj_addr;
    case TGPU_ECC_INJ_ADDR_HI:
        return s->ecc_inj_addr >> 32;
    case TGPU_ECC_INJ_MASK_LO:
        return (uint32_t)s->ecc_inj_mask;
    case TGPU_ECC_INJ_MASK_HI:
        return s->ecc_inj_mask >> 32;
    case TGPU_ECC_INJ_MODE:
        return s->ecc_inj_mode;
    case TGPU_ECC_INJ_STATUS:
        return qatomic_read(&s->ecc_inj_nr) | s->ecc_inj_err;
    case TGPU_ECC_INJ_MAX_REG:
        return TGPU_ECC_INJ_MAX;
    case TGPU_ECC_INJ_SELECT:
        return s->ecc_inj_select;
    case TGPU_ECC_INJ_PEND_ADDR_LO:
    case TGPU_ECC_INJ_PEND_ADDR_HI:
    case TGPU_ECC_INJ_PEND_MASK_LO:
    case TGPU_ECC_INJ_PEND_MASK_HI:
    case TGPU_ECC_INJ_PEND_MODE:
        return ecc_inj_pending_read(s, addr);
    }
    /* the retired-page list and retirement: the InfoROM's */
    return tgpu_inforom_read(s, addr, ok);
}

bool tgpu_ecc_write(TGPUState *s, hwaddr addr, uint32_t val)
{
    switch (addr) {
    case TGPU_ECC_CTRL:
        ecc_ctrl_write(s, val);
        return true;
    case TGPU_ECC_STATUS:
        s->ecc_status_err &= ~(val & TGPU_ECC_STATUS_ERR_MASK);
        return true;
    case TGPU_ECC_INTR:
        qatomic_and(&s->ecc_intr, ~val);
        tgpu_irq_update(s);
        return true;
    case TGPU_ECC_INTR_EN:
        s->ecc_intr_en = val & TGPU_ECC_INTR_MASK;
        tgpu_irq_update(s);
        return true;
    case TGPU_ECC_COUNTERS_CLEAR:
        ecc_counters_clear(s, val);
        return true;
    case TGPU_ECC_LOG_STATUS:
        if (val & TGPU_ECC_LOG_OVERFLOW) {
            QEMU_LOCK_GUARD(&s->ecc_lock);
            s->ecc_log_overflow = false;
        }
        return true;
    case TGPU_ECC_LOG_SELECT:
        s->ecc_log_select = val;        /* past the end reads zeroes */
        return true;
    case TGPU_ECC_LOG_CLEAR:
        if (val != 1) {
            ecc_inj_bad_value(s, addr, val);
        } else {
            QEMU_LOCK_GUARD(&s->ecc_lock);
            ecc_log_clear(s);
        }
        return true;
    case TGPU_ECC_INJ_ADDR_LO:
        s->ecc_inj_addr = deposit64(s->ecc_inj_addr, 0, 32, val);
        return true;
    case TGPU_ECC_INJ_ADDR_HI:
        s->ecc_inj_addr = deposit64(s->ecc_inj_addr, 32, 32, val);
        return true;
    case TGPU_ECC_INJ_MASK_LO:
        s->ecc_inj_mask = deposit64(s->ecc_inj_mask, 0, 32, val);
        return true;
    case TGPU_ECC_INJ_MASK_HI:
        s->ecc_inj_mask = deposit64(s->ecc_inj_mask, 32, 32, val);
        return true;
    case TGPU_ECC_INJ_MODE:
        if (val != TGPU_ECC_INJ_ONCE && val != TGPU_ECC_INJ_STICKY) {
            ecc_inj_bad_value(s, addr, val);
        } else {
            s->ecc_inj_mode = val;
        }
        return true;
    case TGPU_ECC_INJ_ARM:
        if (val != 1) {
            ecc_inj_bad_value(s, addr, val);
        } else {
            ecc_inj_arm(s);
        }
        return true;
    case TGPU_ECC_INJ_CLEAR:
        if (val != 1) {
            ecc_inj_bad_value(s, addr, val);
        } else {
            tgpu_ecc_clear_injections(s);
        }
        return true;
    case TGPU_ECC_INJ_STATUS:
        s->ecc_inj_err &= ~(val & TGPU_ECC_INJ_ERR_ALL);
        return true;
    case TGPU_ECC_INJ_SELECT:
        s->ecc_inj_select = val;        /* past the end reads "none" */
        return true;
    }
    return tgpu_inforom_write(s, addr, val);
}

/*
 * ECC starts disabled after every reset, with no injection pending, the
 * volatile counters and the log empty; the aggregate counters and the
 * InfoROM's pages stay.
 */
/* ---- migration ---------------------------------------------------------- */

static const VMStateDescription vmstate_ecc_inj = {
    .name = "tgpu/ecc/injection",
    .version_id = 1,
    .minimum_version_id = 1,
    .fields = (const VMStateField[]) {
        VMSTATE_UINT64(addr, TGPUEccInj),
        VMSTATE_UINT64(mask, TGPUEccInj),
        VMSTATE_BOOL(sticky, TGPUEccInj),
        VMSTATE_UINT64(number, TGPUEccInj),
        VMSTATE_END_OF_LIST()
    },
};

static const VMStateDescription vmstate_ecc_event = {
    .name = "tgpu/ecc/event",
    .version_id = 1,
    .minimum_version_id = 1,
    .fields = (const VMStateField[]) {
        VMSTATE_UINT64(addr, TGPUEccEvent),
        VMSTATE_UINT8(type, TGPUEccEvent),
        VMSTATE_UINT8(engine, TGPUEccEvent),
        VMSTATE_UINT16(chid, TGPUEccEvent),
        VMSTATE_END_OF_LIST()
    },
};

static const VMStateDescription vmstate_ecc_log = {
    .name = "tgpu/ecc/log",
    .version_id = 1,
    .minimum_version_id = 1,
    .fields = (const VMStateField[]) {
        VMSTATE_UINT64(addr, TGPUEccLog),
        VMSTATE_UINT64(time, TGPUEccLog),
        VMSTATE_UINT8(type, TGPUEccLog),
        VMSTATE_UINT8(engine, TGPUEccLog),
        VMSTATE_UINT16(chid, TGPUEccLog),
        VMSTATE_END_OF_LIST()
    },
};

static const VMStateDescription vmstate_inforom_entry = {
    .name = "tgpu/inforom/entry",
    .version_id = 1,
    .minimum_version_id = 1,
    .fields = (const VMStateField[]) {
        VMSTATE_UINT64(addr, struct tgpu_inforom_entry),
        VMSTATE_UINT32(cause, struct tgpu_inforom_entry),
        VMSTATE_UINT64(time, struct tgpu_inforom_entry),
        VMSTATE_END_OF_LIST()
    },
};

static bool ecc_record_valid(uint8_t type, uint8_t engine)
{
    return (type == TGPU_ECC_TYPE_SBE || type == TGPU_ECC_TYPE_DBE) &&
           engine <= TGPU_ECC_ENGINE_BAR1;
}

/* When the loaded VM first runs: events and an interrupt it owed. */
void tgpu_ecc_restore(TGPUState *s)
{
    if (s->ecc_events_nr || s->ecc_raise || s->ecc_agg_dirty) {
        tgpu_defer_schedule(&s->ecc_defer);
    }
}

static int ecc_post_load(void *opaque, int version_id)
{
    TGPUState *s = opaque;
    uint32_t i;

    if (s->ecc_inj_nr > TGPU_ECC_INJ_MAX ||
        s->ecc_events_nr > TGPU_ECC_EVENTS ||
        s->ecc_log_head >= TGPU_ECC_LOG_ENTRIES ||
        s->ecc_log_nr > TGPU_ECC_LOG_ENTRIES ||
        s->ecc_state > TGPU_ECC_STATE_ENABLED ||
        (!s->ecc_cap && (s->ecc_ctrl || s->ecc_state)) ||
        s->inforom.count > TGPU_INFOROM_MAX_RETIRED ||
        s->retired_nr > s->inforom.count) {
        goto bad;
    }
    for (i = 0; i < s->ecc_inj_nr; i++) {
        const TGPUEccInj *j = &s->ecc_inj[i];

        /* what tgpu_ecc_arm() accepts: a word of VRAM, one or two bits */
        if (j->addr % 8 || j->addr >= s->vram_size ||
            !j->mask || ctpop64(j->mask) > 2) {
            goto bad;
        }
    }
    /* the scrub's timer runs exactly while the state says it scrubs */
    if (s->ecc_ctrl != (s->ecc_state != TGPU_ECC_STATE_DISABLED) ||
        (s->ecc_state == TGPU_ECC_STATE_SCRUBBING) !=
        timer_pending(s->ecc_scrub_timer)) {
        goto bad;
    }
    /*
     * The InfoROM's entries go to the inforom= file as they are: only
     * what tgpu-inforom would read back (aligned pages, known causes).
     * The registers' list of them is rebuilt, not taken.
     */
    if (!tgpu_inforom_loaded_valid(s)) {
        goto bad;
    }
    /* what the event and query-tgpu name: an SBE or a DBE, by a reader */
    for (i = 0; i < s->ecc_events_nr; i++) {
        if (!ecc_record_valid(s->ecc_events[i].type,
                              s->ecc_events[i].engine)) {
            goto bad;
        }
    }
    for (i = 0; i < s->ecc_log_nr; i++) {
        const TGPUEccLog *l =
            &s->ecc_log[(s->ecc_log_head + i) % TGPU_ECC_LOG_ENTRIES];

        if (!ecc_record_valid(l->type, l->engine)) {
            goto bad;
        }
    }
    ecc_poison_sync(s);
    return 0;

bad:
    error_report("tgpu: migrated ECC state is out of range");
    return -EINVAL;
}

/* ECC control, counters, log, armed errors, and the InfoROM's entries */
const VMStateDescription tgpu_vmstate_ecc = {
    .name = "tgpu/ecc",
    .version_id = 1,
    .minimum_version_id = 1,
    .post_load = ecc_post_load,
    .fields = (const VMStateField[]) {
        VMSTATE_BOOL(ecc_ctrl, TGPUState),
        VMSTATE_UINT32(ecc_state, TGPUState),
        VMSTATE_UINT32(ecc_status_err, TGPUState),
        VMSTATE_UINT32(ecc_intr, TGPUState),
        VMSTATE_UINT32(ecc_intr_en, TGPUState),
        VMSTATE_UINT64(ecc_scrub_ns, TGPUState),
        VMSTATE_TIMER_PTR(ecc_scrub_timer, TGPUState),
        VMSTATE_UINT32(ecc_inj_nr, TGPUState),
        VMSTATE_STRUCT_ARRAY(ecc_inj, TGPUState, TGPU_ECC_INJ_MAX, 1,
                             vmstate_ecc_inj, TGPUEccInj),
        VMSTATE_STRUCT_ARRAY(ecc_events, TGPUState, TGPU_ECC_EVENTS, 1,
                             vmstate_ecc_event, TGPUEccEvent),
        VMSTATE_UINT32(ecc_events_nr, TGPUState),
        VMSTATE_UINT64(ecc_inj_addr, TGPUState),
        VMSTATE_UINT64(ecc_inj_mask, TGPUState),
        VMSTATE_UINT32(ecc_inj_mode, TGPUState),
        VMSTATE_UINT32(ecc_inj_err, TGPUState),
        VMSTATE_UINT32(ecc_inj_select, TGPUState),
        VMSTATE_UINT32(ecc_sbe_vol, TGPUState),
        VMSTATE_UINT32(ecc_dbe_vol, TGPUState),
        VMSTATE_UINT32(ecc_sbe_agg, TGPUState),
        VMSTATE_UINT32(ecc_dbe_agg, TGPUState),
        VMSTATE_BOOL(ecc_agg_dirty, TGPUState),
        VMSTATE_STRUCT_ARRAY(ecc_log, TGPUState, TGPU_ECC_LOG_ENTRIES, 1,
                             vmstate_ecc_log, TGPUEccLog),
        VMSTATE_UINT32(ecc_log_head, TGPUState),
        VMSTATE_UINT32(ecc_log_nr, TGPUState),
        VMSTATE_BOOL(ecc_log_overflow, TGPUState),
        VMSTATE_UINT32(ecc_log_select, TGPUState),
        VMSTATE_BOOL(ecc_raise, TGPUState),
        VMSTATE_UINT32(inforom.version, TGPUState),
        VMSTATE_UINT64(inforom.sbe_aggregate, TGPUState),
        VMSTATE_UINT64(inforom.dbe_aggregate, TGPUState),
        VMSTATE_UINT32(inforom.count, TGPUState),
        VMSTATE_STRUCT_ARRAY(inforom.ent, TGPUState,
                             TGPU_INFOROM_MAX_RETIRED, 1,
                             vmstate_inforom_entry,
                             struct tgpu_inforom_entry),
        VMSTATE_UINT8_ARRAY(retired_idx, TGPUState, TGPU_INFOROM_MAX_RETIRED),
        VMSTATE_UINT32(retired_nr, TGPUState),
        VMSTATE_UINT32(retired_select, TGPUState),
        VMSTATE_UINT64(retire_addr, TGPUState),
        VMSTATE_UINT32(retire_cause, TGPUState),
        VMSTATE_UINT32(retire_status, TGPUState),
        VMSTATE_END_OF_LIST()
    },
};

void tgpu_ecc_reset(TGPUState *s)
{
    timer_del(s->ecc_scrub_timer);
    WITH_QEMU_LOCK_GUARD(&s->ecc_lock) {
        qatomic_set(&s->ecc_inj_nr, 0);
        s->ecc_sbe_vol = 0;
        s->ecc_dbe_vol = 0;
        ecc_log_clear(s);
    }
    s->ecc_inj_addr = 0;
    s->ecc_inj_mask = 0;
    s->ecc_inj_mode = TGPU_ECC_INJ_ONCE;
    s->ecc_inj_err = 0;
    s->ecc_inj_select = 0;
    s->ecc_log_select = 0;
    ecc_poison_sync(s);
    s->ecc_ctrl = false;
    qatomic_set(&s->ecc_state, TGPU_ECC_STATE_DISABLED);
    s->ecc_status_err = 0;
    s->ecc_intr = 0;
    s->ecc_intr_en = 0;
    s->ecc_scrub_ns = 0;
    tgpu_inforom_reset(s);
}

void tgpu_ecc_init(TGPUState *s)
{
    qemu_mutex_init(&s->ecc_lock);
    for (int i = 0; i < TGPU_ECC_INJ_MAX; i++) {
        s->ecc_poison[i].s = s;
        memory_region_init_io(&s->ecc_poison[i].mr, OBJECT(s),
                              &ecc_poison_ops, &s->ecc_poison[i],
                              "tgpu-ecc-poison", TGPU_PAGE_SIZE);
    }
    tgpu_defer_init(s, &s->ecc_defer, ecc_bh, s);
    s->ecc_scrub_timer = timer_new_ns(QEMU_CLOCK_VIRTUAL, ecc_scrub_done, s);
    s->ecc_persist_timer = timer_new_ms(QEMU_CLOCK_REALTIME,
                                        ecc_persist_timer_cb, s);
    s->ecc_exit_notifier.notify = ecc_exit_notify;
    qemu_add_exit_notifier(&s->ecc_exit_notifier);
    tgpu_ecc_reset(s);
}

void tgpu_ecc_exit(TGPUState *s)
{
    qemu_remove_exit_notifier(&s->ecc_exit_notifier);
    timer_free(s->ecc_persist_timer);
    ecc_agg_write(s);       /* what the timer had still to write */
    timer_free(s->ecc_scrub_timer);
    s->ecc_scrub_timer = NULL;
    tgpu_defer_exit(&s->ecc_defer);
    for (int i = 0; i < TGPU_ECC_INJ_MAX; i++) {
        if (s->ecc_poison[i].mapped) {
            memory_region_del_subregion(&s->bar1, &s->ecc_poison[i].mr);
            s->ecc_poison[i].mapped = false;
        }
    }
    qemu_mutex_destroy(&s->ecc_lock);
}
