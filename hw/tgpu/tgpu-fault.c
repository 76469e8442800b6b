/*
 * tgpu fault injection: the injections of tgpu-inject-ecc, -hang and
 * -fault, their deterministic triggers and the faults they cause
 * (tgpu-fault-plan.c lists them and loads fault-plan files)
 *
 * docs/fault-injection.md is the manual.  An injection waits for its
 * trigger (a number of events the device counts, or a time of the
 * virtual clock), then fires once, under the BQL.  A fault with a count
 * (illegal methods, lost interrupts, dropped doorbells, DMA errors)
 * stays after it fired until its count is used up; the data paths look
 * for it through tgpu_fault_hits().
 *
 * Copyright (c) 2026 The tgpu authors
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */

#include "qemu/osdep.h"
#include "qemu/error-report.h"
#include "qemu/lockable.h"
#include "qemu/main-loop.h"
#include "qapi/error.h"
#include "qapi/clone-visitor.h"
#include "qapi/qapi-visit-tgpu.h"
#include "qapi/qapi-events-tgpu.h"
#include "migration/misc.h"
#include "tgpu.h"
#include "trace.h"

/* QAPI's engine names are the fault records' engine numbers. */
QEMU_BUILD_BUG_ON((int)TGPU_ENGINE_NAME_HOST != TGPU_FAULT_ENGINE_HOST);
QEMU_BUILD_BUG_ON((int)TGPU_ENGINE_NAME_COMPUTE != TGPU_FAULT_ENGINE_COMPUTE);
QEMU_BUILD_BUG_ON((int)TGPU_ENGINE_NAME_CE0 != TGPU_FAULT_ENGINE_CE0);
QEMU_BUILD_BUG_ON((int)TGPU_ENGINE_NAME_CE1 != TGPU_FAULT_ENGINE_CE1);
/* ... and its vectors the interrupt units */
QEMU_BUILD_BUG_ON((int)TGPU_INTERRUPT_VECTOR_FIFO != TGPU_UNIT_FIFO);
QEMU_BUILD_BUG_ON((int)TGPU_INTERRUPT_VECTOR_NONSTALL != TGPU_UNIT_NONSTALL);
QEMU_BUILD_BUG_ON((int)TGPU_INTERRUPT_VECTOR_MMU != TGPU_UNIT_MMU);
QEMU_BUILD_BUG_ON((int)TGPU_INTERRUPT_VECTOR_ECC != TGPU_UNIT_ECC);
QEMU_BUILD_BUG_ON((int)TGPU_INTERRUPT_VECTOR_THERMAL != TGPU_UNIT_THERMAL);

/* The active bit of a fired fault with a count, or 0. */
static uint32_t fault_active_bit(TgpuInjectionKind kind)
{
    switch (kind) {
    case TGPU_INJECTION_KIND_ILLEGAL_METHOD:
        return TGPU_FAULT_ACTIVE_ILLEGAL;
    case TGPU_INJECTION_KIND_LOST_INTERRUPT:
        return TGPU_FAULT_ACTIVE_IRQ;
    case TGPU_INJECTION_KIND_DOORBELL_DROP:
        return TGPU_FAULT_ACTIVE_DOORBELL;
    case TGPU_INJECTION_KIND_DMA_ERROR:
        return TGPU_FAULT_ACTIVE_DMA;
    default:
        return 0;
    }
}

static void fault_inj_free(TGPUFaultInj *j)
{
    qapi_free_TgpuInjectEcc(j->ecc);
    qapi_free_TgpuInjectHang(j->hang);
    qapi_free_TgpuInjectFault(j->fault);
    g_free(j);
}

/* Under fault_lock: the active bits of what is left. */
static void fault_update_active(TGPUState *s)
{
    uint32_t active = 0;

    for (uint32_t i = 0; i < s->fault_inj_nr; i++) {
        if (s->fault_inj[i]->fired) {
            active |= fault_active_bit(s->fault_inj[i]->kind);
        }
    }
    qatomic_set(&s->fault_active, active);
}

/* Under fault_lock: take entry I off the list. */
static TGPUFaultInj *fault_remove(TGPUState *s, uint32_t i)
{
    TGPUFaultInj *j = s->fault_inj[i];

    memmove(&s->fault_inj[i], &s->fault_inj[i + 1],
            (s->fault_inj_nr - i - 1) * sizeof(s->fault_inj[0]));
    s->fault_inj_nr--;
    if (j->has_trigger && !j->timed && !j->fired) {
        qatomic_set(&s->fault_watch[j->event],
                    s->fault_watch[j->event] - 1);
    }
    fault_update_active(s);
    return j;
}

/* The next at-ns trigger, if any.  Under the BQL. */
static void fault_timer_update(TGPUState *s)
{
    int64_t next = INT64_MAX;

    WITH_QEMU_LOCK_GUARD(&s->fault_lock) {
        for (uint32_t i = 0; i < s->fault_inj_nr; i++) {
            const TGPUFaultInj *j = s->fault_inj[i];

            if (j->timed && !j->fired && !j->due) {
                next = MIN(next, j->at_ns);
            }
        }
    }
    if (next == INT64_MAX) {
        timer_del(s->fault_timer);
    } else {
        timer_mod(s->fault_timer, next);
    }
}

/* ---- the faults ------------------------------------------------------- */

static TGPUEngine *fault_engine_of(TGPUState *s, TgpuEngineName name)
{
    for (unsigned int r = 0; r < TGPU_NR_RUNLISTS; r++) {
        if (s->engine[r] && s->engine[r]->fault_engine == name) {
            return s->engine[r];
        }
    }
    return NULL;
}

static void fault_event_hang(TGPUState *s, uint64_t number,
                             TgpuEngineName engine, TgpuHangKind kind,
                             int64_t chid)
{
    g_autofree char *path = object_get_canonical_path(OBJECT(s));

    trace_tgpu_fault_hang(number, TgpuEngineName_str(engine),
                          TgpuHangKind_str(kind), chid);
    qapi_event_send_tgpu_engine_hang(path, number, engine, kind, chid >= 0,
                                     chid >= 0 ? chid : 0);
}

static TgpuHangKind fault_hang_kind(TGPUHang hang)
{
    return hang == TGPU_HANG_WEDGE ? TGPU_HANG_KIND_WEDGE
                                   : TGPU_HANG_KIND_STALL;
}

/*
 * Under the BQL: the engine of CH's runlist is given CH's work; a hang
 * injected for the channel takes effect on it now.
 */
void tgpu_fault_chan_queued(TGPUState *s, TGPUChannel *ch, TGPUEngine *e)
{
    if (!ch->hang) {
        return;
    }
    tgpu_engine_hang(e, ch->hang, ch->id);
    fault_event_hang(s, ch->hang_number, e->fault_engine,
                     fault_hang_kind(ch->hang), ch->id);
    ch->hang = TGPU_HANG_NONE;
}

/* Under the BQL: the hang takes effect. */
static void fault_fire_hang(TGPUState *s, const TGPUFaultInj *j)
{
    const TgpuInjectHang *h = j->hang;
    TGPUHang hang = h->kind == TGPU_HANG_KIND_WEDGE ? TGPU_HANG_WEDGE
                                                    : TGPU_HANG_STALL;
    TGPUEngine *e;

    if (h->has_channel) {
        TGPUChannel *ch = &s->chan[h->channel];

        if (h->kind == TGPU_HANG_KIND_FETCH) {
            ch->fetch_hung = true;
            fault_event_hang(s, j->number, TGPU_ENGINE_NAME_HOST, h->kind,
                             ch->id);
            return;
        }
        /* on the engine now if it is the channel's; else at its next work */
        ch->hang = hang;
        ch->hang_number = j->number;
        e = ch->enabled ? tgpu_chan_engine(s, ch) : NULL;
        if (e) {
            tgpu_fault_chan_queued(s, ch, e);
        }
        return;
    }
    if (h->engine == TGPU_ENGINE_NAME_HOST) {
        s->host_hung = true;
        s->host_hang = h->kind;
    } else {
        e = fault_engine_of(s, h->engine);
        if (h->kind == TGPU_HANG_KIND_FETCH) {
            s->runlist_fetch_hung[e->runlist] = true;
        } else {
            tgpu_engine_hang(e, hang, -1);
        }
    }
    fault_event_hang(s, j->number, h->engine, h->kind, -1);
}

/* Under the BQL: records in the fault buffer, as an engine's faults. */
static void fault_fire_mmu(TGPUState *s, const TgpuInjectFault *f)
{
    const TgpuFaultMmu *m = &f->u.mmu_fault;
    uint32_t chid = m->has_channel ? m->channel : 0;
    TGPUVmCtx ctx = {
        .chid = chid,
        .asid = m->has_asid ? m->asid : s->chan[chid].asid,
    };
    unsigned int engine = m->has_engine ? m->engine
                                        : TGPU_ENGINE_NAME_COMPUTE;
    uint32_t count = f->has_count ? f->count : 1;

    for (uint32_t i = 0; i < count; i++) {
        tgpu_mmu_report_fault(s, &ctx, engine, m->va,
                              m->has_access &&
                              m->access == TGPU_ACCESS_WRITE,
                              TGPU_FAULT_NOT_PRESENT);
    }
}

/* Under the BQL: J's trigger was reached. */
static void fault_fired_event(TGPUState *s, uint64_t number,
                              TgpuInjectionKind kind)
{
    g_autofree char *path = object_get_canonical_path(OBJECT(s));

    trace_tgpu_fault_fired(number, TgpuInjectionKind_str(kind),
                           qemu_clock_get_ns(QEMU_CLOCK_VIRTUAL));
    qapi_event_send_tgpu_injection_fired(path, number, kind);
}

/*
 * Under the BQL: J's trigger was reached, and J does what it does once.
 * Only the BQL side takes such an injection off the list, so J stays
 * valid until this takes it off.
 */
static void fault_fire(TGPUState *s, TGPUFaultInj *j)
{
    uint64_t number = j->number;
    TgpuInjectionKind kind = j->kind;

    switch (kind) {
    case TGPU_INJECTION_KIND_ECC: {
        const TgpuInjectEcc *a = j->ecc;
        uint64_t bits = a->has_bits ? a->bits :
                        a->type == TGPU_ECC_ERROR_TYPE_DOUBLE ? 3 : 1;
        uint64_t armed = number;
        uint32_t err = tgpu_ecc_arm(s, a->address & ~7ull, bits,
                                    a->has_mode &&
                                    a->mode == TGPU_INJECTION_MODE_STICKY,
                                    &armed);

        if (err) {
            warn_report("tgpu: injection %" PRIu64 ": the ECC error at "
                        "0x%" PRIx64 " could not be armed (INJ_STATUS "
                        "0x%x): %d are armed already", number,
                        a->address, err, TGPU_ECC_INJ_MAX);
        }
        break;
    }
    case TGPU_INJECTION_KIND_HANG:
        fault_fire_hang(s, j);
        break;
    case TGPU_INJECTION_KIND_MMU_FAULT:
        fault_fire_mmu(s, j->fault);
        break;
    default:
        assert(kind == TGPU_INJECTION_KIND_BUS_LOSS);
        tgpu_fault_set_bus_lost(s, true);
        break;
    }
    WITH_QEMU_LOCK_GUARD(&s->fault_lock) {
        for (uint32_t i = 0; i < s->fault_inj_nr; i++) {
            if (s->fault_inj[i] == j) {
                fault_inj_free(fault_remove(s, i));
                break;
            }
        }
    }
    fault_fired_event(s, number, kind);
}

/* Under the BQL: fire every injection whose trigger was reached. */
static void fault_fire_due(TGPUState *s)
{
    for (;;) {
        TGPUFaultInj *j = NULL;
        uint64_t number = 0;
        TgpuInjectionKind kind = 0;

        WITH_QEMU_LOCK_GUARD(&s->fault_lock) {
            for (uint32_t i = 0; i < s->fault_inj_nr; i++) {
                TGPUFaultInj *c = s->fault_inj[i];

                if (!c->due || c->fired) {
                    continue;
                }
                if (c->has_trigger && !c->timed) {
                    qatomic_set(&s->fault_watch[c->event],
                                s->fault_watch[c->event] - 1);
                }
                c->fired = true;
                number = c->number;
                kind = c->kind;
                if (fault_active_bit(kind)) {
                    /*
                     * A count the data paths use up, from now on: an
                     * engine thread may take it, and free it, as soon as
                     * the lock is dropped.
                     */
                    c->remaining = c->fault->has_count ? c->fault->count : 1;
                    fault_update_active(s);
                } else {
                    j = c;
                }
                break;
            }
        }
        if (!number) {
            break;
        }
        if (j) {
            fault_fire(s, j);
        } else {
            fault_fired_event(s, number, kind);
        }
    }
}

static void fault_bh(void *opaque)
{
    fault_fire_due(opaque);
}

static void fault_timer_cb(void *opaque)
{
    TGPUState *s = opaque;
    int64_t now = qemu_clock_get_ns(QEMU_CLOCK_VIRTUAL);

    WITH_QEMU_LOCK_GUARD(&s->fault_lock) {
        for (uint32_t i = 0; i < s->fault_inj_nr; i++) {
            TGPUFaultInj *j = s->fault_inj[i];

            if (j->timed && !j->fired && j->at_ns <= now) {
                j->due = true;
            }
        }
    }
    fault_fire_due(s);
    fault_timer_update(s);
}

/* ---- what the data paths call ------------------------------------------ */

void tgpu_fault_count_slow(TGPUState *s, TgpuTriggerEvent ev, uint32_t chid)
{
    bool due = false;

    WITH_QEMU_LOCK_GUARD(&s->fault_lock) {
        for (uint32_t i = 0; i < s->fault_inj_nr; i++) {
            TGPUFaultInj *j = s->fault_inj[i];

            if (!j->has_trigger || j->timed || j->fired || j->due ||
                j->event != ev ||
                (j->trig_chid >= 0 && j->trig_chid != chid)) {
                continue;
            }
            if (++j->seen >= j->after) {
                j->due = due = true;
            }
        }
    }
    if (!due) {
        return;
    }
    /*
     * The host unit and the launches count under the BQL: the fault
     * follows the event at once.  Engine threads read VRAM without it.
     */
    if (ev != TGPU_TRIGGER_EVENT_VRAM_READS && bql_locked()) {
        fault_fire_due(s);
    } else {
        tgpu_defer_schedule(&s->fault_defer);
    }
}

/* Does J's fault, fired, apply to CHID (a channel or a vector)? */
static bool fault_applies(const TGPUFaultInj *j, int64_t chid)
{
    const TgpuInjectFault *f = j->fault;

    switch (j->kind) {
    case TGPU_INJECTION_KIND_ILLEGAL_METHOD:
        return f->u.illegal_method.channel == chid;
    case TGPU_INJECTION_KIND_LOST_INTERRUPT:
        return f->u.lost_interrupt.vector == chid;
    case TGPU_INJECTION_KIND_DOORBELL_DROP:
        return !f->u.doorbell_drop.has_channel ||
               f->u.doorbell_drop.channel == chid;
    default:
        return true;
    }
}

bool tgpu_fault_take(TGPUState *s, uint32_t active, int64_t chid)
{
    QEMU_LOCK_GUARD(&s->fault_lock);
    for (uint32_t i = 0; i < s->fault_inj_nr; i++) {
        TGPUFaultInj *j = s->fault_inj[i];

        if (!j->fired || fault_active_bit(j->kind) != active ||
            !fault_applies(j, chid)) {
            continue;
        }
        trace_tgpu_fault_hit(j->number, TgpuInjectionKind_str(j->kind),
                             chid, j->remaining - 1);
        if (!--j->remaining) {
            fault_inj_free(fault_remove(s, i));
        }
        return true;
    }
    return false;
}

/* ---- bus loss --------------------------------------------------------- */

static uint64_t bus_lost_read(void *opaque, hwaddr addr, unsigned size)
{
    trace_tgpu_fault_bus_lost_access(addr, size, 0);
    return MAKE_64BIT_MASK(0, size * 8);
}

static void bus_lost_write(void *opaque, hwaddr addr, uint64_t val,
                           unsigned size)
{
    trace_tgpu_fault_bus_lost_access(addr, size, 1);
}

static const MemoryRegionOps bus_lost_ops = {
    .read = bus_lost_read,
    .write = bus_lost_write,
    .endianness = DEVICE_LITTLE_ENDIAN,
    /* anything the CPU sends reads all ones, as a link that is down */
    .valid = { .min_access_size = 1, .max_access_size = 8,
               .unaligned = true },
    .impl = { .min_access_size = 1, .max_access_size = 8,
              .unaligned = true },
};

/*
 * Under the BQL: the device falls off the bus, or comes back.  Over
 * both BARs, a region that reads all ones and drops writes; the device
 * sends no interrupt and makes no DMA access meanwhile.
 */
void tgpu_fault_set_bus_lost(TGPUState *s, bool lost)
{
    if (s->bus_lost == lost) {
        return;
    }
    trace_tgpu_fault_bus(lost);
    qatomic_set(&s->bus_lost, lost);
    memory_region_transaction_begin();
    memory_region_set_enabled(&s->bus_lost_bar0, lost);
    memory_region_set_enabled(&s->bus_lost_bar1, lost);
    memory_region_transaction_commit();
    tgpu_irq_update(s);
    if (!lost) {
        tgpu_host_kick(s);
    }
}

/* ---- adding injections -------------------------------------------------- */

static bool fault_check_trigger(TGPUState *s, const TgpuTrigger *t,
                                Error **errp)
{
    if (!t) {
        return true;
    }
    if (t->has_at_ns) {
        if (t->has_after || t->has_event || t->has_channel) {
            error_setg(errp, "'trigger': give 'at-ns' alone, or 'after' "
                       "and 'event' (and 'channel')");
            return false;
        }
        if (t->at_ns > INT64_MAX) {
            error_setg(errp, "'trigger' 'at-ns' %" PRIu64 " is out of "
                       "range", t->at_ns);
            return false;
        }
        return true;
    }
    if (!t->has_after || !t->has_event) {
        error_setg(errp, "'trigger': give 'after' and 'event' together, or "
                   "'at-ns'");
        return false;
    }
    if (!t->after) {
        error_setg(errp, "'trigger' 'after' must be at least 1 (without a "
                   "trigger an injection fires at once)");
        return false;
    }
    if (t->has_channel && t->channel >= s->num_channels) {
        error_setg(errp, "'trigger' 'channel' %u does not exist (the "
                   "device has %u)", t->channel, s->num_channels);
        return false;
    }
    return true;
}

static bool fault_check_channel(TGPUState *s, const char *what,
                                uint32_t chid, Error **errp)
{
    if (chid >= s->num_channels) {
        error_setg(errp, "'%s' %u does not exist (the device has %u "
                   "channels)", what, chid, s->num_channels);
        return false;
    }
    return true;
}

static bool fault_room(TGPUState *s, Error **errp)
{
    if (s->fault_inj_nr >= TGPU_FAULT_INJ_MAX) {
        error_setg(errp, "%d injections are pending already: clear them "
                   "with tgpu-clear-injections", TGPU_FAULT_INJ_MAX);
        return false;
    }
    return true;
}

/*
 * Under the BQL: J joins the list and waits for its trigger (T, or none:
 * it fires at once).  A plan's injection without a trigger waits for the
 * virtual clock to start (at-ns 0), after the first reset.
 */
static uint64_t fault_arm(TGPUState *s, TGPUFaultInj *j, const TgpuTrigger *t,
                          bool plan)
{
    uint64_t number;

    j->number = number = ++s->inj_seq;
    j->trig_chid = -1;
    if (t) {
        j->has_trigger = true;
        j->timed = t->has_at_ns;
        j->at_ns = t->at_ns;
        j->event = t->event;
        j->after = t->after;
        if (t->has_channel) {
            j->trig_chid = t->channel;
        }
    } else if (plan) {
        j->has_trigger = j->timed = true;
        j->at_ns = 0;
    } else {
        j->due = true;
    }
    WITH_QEMU_LOCK_GUARD(&s->fault_lock) {
        s->fault_inj[s->fault_inj_nr++] = j;
        if (j->has_trigger && !j->timed) {
            qatomic_set(&s->fault_watch[j->event],
                        s->fault_watch[j->event] + 1);
        }
    }
    trace_tgpu_fault_armed(number, TgpuInjectionKind_str(j->kind),
                           j->has_trigger);
    if (j->due) {
        fault_fire_due(s);
    } else if (j->timed) {
        fault_timer_update(s);
    }
    return number;
}

uint64_t tgpu_fault_add_ecc(TGPUState *s, const TgpuInjectEcc *a,
                            bool plan, Error **errp)
{
    uint64_t bits = a->has_bits ? a->bits :
                    a->type == TGPU_ECC_ERROR_TYPE_DOUBLE ? 3 : 1;
    TGPUFaultInj *j;

    if (a->has_type == a->has_bits) {
        error_setg(errp, "give either 'type' or 'bits'");
        return 0;
    }
    if (a->address >= s->vram_size) {
        error_setg(errp, "'address' 0x%" PRIx64 " is beyond VRAM (%" PRIu64
                   " MiB)", a->address, s->vram_size >> 20);
        return 0;
    }
    if (ctpop64(bits) != 1 && ctpop64(bits) != 2) {
        error_setg(errp, "'bits' 0x%" PRIx64 " must have one bit set (a "
                   "single-bit error) or two (a double-bit error)", bits);
        return 0;
    }
    if (!fault_check_trigger(s, a->trigger, errp) || !fault_room(s, errp)) {
        return 0;
    }
    /* at once, it is armed here, so that a full list is the caller's error */
    if (!a->trigger && !plan) {
        uint64_t number = ++s->inj_seq;

        if (tgpu_ecc_arm(s, a->address & ~7ull, bits,
                         a->has_mode && a->mode == TGPU_INJECTION_MODE_STICKY,
                         &number)) {
            s->inj_seq--;
            error_setg(errp, "%d ECC errors are armed already: clear them "
                       "with tgpu-clear-injections", TGPU_ECC_INJ_MAX);
            return 0;
        }
        fault_fired_event(s, number, TGPU_INJECTION_KIND_ECC);
        return number;
    }
    j = g_new0(TGPUFaultInj, 1);
    j->kind = TGPU_INJECTION_KIND_ECC;
    j->ecc = QAPI_CLONE(TgpuInjectEcc, a);
    return fault_arm(s, j, a->trigger, plan);
}

uint64_t tgpu_fault_add_hang(TGPUState *s, const TgpuInjectHang *a,
                             bool plan, Error **errp)
{
    TGPUFaultInj *j;

    if (a->has_engine == a->has_channel) {
        error_setg(errp, "give either 'engine' or 'channel'");
        return 0;
    }
    if (a->has_channel &&
        !fault_check_channel(s, "channel", a->channel, errp)) {
        return 0;
    }
    if (a->has_engine && a->engine == TGPU_ENGINE_NAME_HOST &&
        a->kind == TGPU_HANG_KIND_WEDGE) {
        error_setg(errp, "'kind' wedge: the host unit has no engine reset "
                   "to clear a wedge; give stall or fetch");
        return 0;
    }
    if (!fault_check_trigger(s, a->trigger, errp) || !fault_room(s, errp)) {
        return 0;
    }
    j = g_new0(TGPUFaultInj, 1);
    j->kind = TGPU_INJECTION_KIND_HANG;
    j->hang = QAPI_CLONE(TgpuInjectHang, a);
    return fault_arm(s, j, a->trigger, plan);
}

static const TgpuInjectionKind fault_kinds[TGPU_FAULT_KIND__MAX] = {
    [TGPU_FAULT_KIND_MMU_FAULT] = TGPU_INJECTION_KIND_MMU_FAULT,
    [TGPU_FAULT_KIND_ILLEGAL_METHOD] = TGPU_INJECTION_KIND_ILLEGAL_METHOD,
    [TGPU_FAULT_KIND_LOST_INTERRUPT] = TGPU_INJECTION_KIND_LOST_INTERRUPT,
    [TGPU_FAULT_KIND_DOORBELL_DROP] = TGPU_INJECTION_KIND_DOORBELL_DROP,
    [TGPU_FAULT_KIND_DMA_ERROR] = TGPU_INJECTION_KIND_DMA_ERROR,
    [TGPU_FAULT_KIND_BUS_LOSS] = TGPU_INJECTION_KIND_BUS_LOSS,
};

uint64_t tgpu_fault_add_fault(TGPUState *s, const TgpuInjectFault *a,
                              bool plan, Error **errp)
{
    TGPUFaultInj *j;

    if (a->has_count && (!a->count || a->count > TGPU_FAULT_COUNT_MAX)) {
        error_setg(errp, "'count' %u is out of range (1 to %d)", a->count,
                   TGPU_FAULT_COUNT_MAX);
        return 0;
    }
    switch (a->kind) {
    case TGPU_FAULT_KIND_MMU_FAULT: {
        const TgpuFaultMmu *m = &a->u.mmu_fault;

        if (a->has_count && a->count > TGPU_FAULT_BUF_SIZE_MAX) {
            error_setg(errp, "'count' %u: at most %d records (a full fault "
                       "buffer)", a->count, TGPU_FAULT_BUF_SIZE_MAX);
            return 0;
        }
        if (m->va >> TGPU_VA_BITS) {
            error_setg(errp, "'va' 0x%" PRIx64 " is beyond the %d-bit GPU "
                       "address space", m->va, TGPU_VA_BITS);
            return 0;
        }
        if (m->has_channel &&
            !fault_check_channel(s, "channel", m->channel, errp)) {
            return 0;
        }
        if (m->has_asid && m->asid >= TGPU_ASID_COUNT) {
            error_setg(errp, "'asid' %u is out of range (0 to %u)", m->asid,
                       TGPU_ASID_COUNT - 1);
            return 0;
        }
        break;
    }
    case TGPU_FAULT_KIND_ILLEGAL_METHOD:
        if (!fault_check_channel(s, "channel", a->u.illegal_method.channel,
                                 errp)) {
            return 0;
        }
        break;
    case TGPU_FAULT_KIND_DOORBELL_DROP:
        if (a->u.doorbell_drop.has_channel &&
            !fault_check_channel(s, "channel", a->u.doorbell_drop.channel,
                                 errp)) {
            return 0;
        }
        break;
    case TGPU_FAULT_KIND_BUS_LOSS:
        if (a->has_count && a->count != 1) {
            error_setg(errp, "'count' %u: a bus loss has none (it lasts "
                       "until FLR, a reset or tgpu-restore-bus)", a->count);
            return 0;
        }
        break;
    default:
        break;
    }
    if (!fault_check_trigger(s, a->trigger, errp) || !fault_room(s, errp)) {
        return 0;
    }
    j = g_new0(TGPUFaultInj, 1);
    j->kind = fault_kinds[a->kind];
    j->fault = QAPI_CLONE(TgpuInjectFault, a);
    return fault_arm(s, j, a->trigger, plan);
}

/* Under the BQL: every injection goes, and the armed ECC errors. */
void tgpu_fault_clear(TGPUState *s)
{
    WITH_QEMU_LOCK_GUARD(&s->fault_lock) {
        while (s->fault_inj_nr) {
            fault_inj_free(fault_remove(s, s->fault_inj_nr - 1));
        }
    }
    tgpu_defer_cancel(&s->fault_defer);
    timer_del(s->fault_timer);
    tgpu_ecc_clear_injections(s);
    trace_tgpu_fault_clear();
}

/* ---- migration ---------------------------------------------------------- */

/*
 * An injection holds QAPI arguments and triggers, and a hang in effect
 * lives in the engines' threads: neither is migrated.  While any is
 * pending or in effect, migration and savevm refuse, saying how to end
 * it; the device's own state, armed ECC errors included, always moves.
 */
bool tgpu_fault_migratable(TGPUState *s, Error **errp)
{
    const char *what = NULL;

    if (s->fault_inj_nr) {
        what = "injections are pending";
    } else if (s->bus_lost) {
        what = "the device is off the bus (tgpu-set-bus-lost)";
    } else if (s->host_hung) {
        what = "the host unit hangs";
    }
    for (unsigned int r = 0; !what && r < TGPU_NR_RUNLISTS; r++) {
        if (s->runlist_fetch_hung[r] ||
            tgpu_engine_hang_state(s->engine[r]) != TGPU_HANG_NONE) {
            what = "an engine hangs";
        }
    }
    for (uint32_t i = 0; !what && i < s->num_channels; i++) {
        if (s->chan[i].hang || s->chan[i].fetch_hung) {
            what = "a channel hangs";
        }
    }
    if (what) {
        error_setg(errp, "tgpu: cannot migrate while %s: injected faults "
                   "are not migrated; run tgpu-clear-injections and let the "
                   "driver recover (or reset the device) first", what);
        return false;
    }
    return true;
}

static int fault_migration_notify(NotifierWithReturn *n, MigrationEvent *e,
                                  Error **errp)
{
    TGPUState *s = container_of(n, TGPUState, fault_mig_notifier);

    if (e->type == MIG_EVENT_PRECOPY_SETUP &&
        !tgpu_fault_migratable(s, errp)) {
        return -EBUSY;
    }
    return 0;
}

/* ---- life cycle ------------------------------------------------------- */

void tgpu_fault_init(TGPUState *s)
{
    qemu_mutex_init(&s->fault_lock);
    tgpu_defer_init(s, &s->fault_defer, fault_bh, s);
    s->fault_timer = timer_new_ns(QEMU_CLOCK_VIRTUAL, fault_timer_cb, s);
    memory_region_init_io(&s->bus_lost_bar0, OBJECT(s), &bus_lost_ops, s,
                          "tgpu-bar0-lost", memory_region_size(&s->bar0));
    memory_region_init_io(&s->bus_lost_bar1, OBJECT(s), &bus_lost_ops, s,
                          "tgpu-bar1-lost", memory_region_size(&s->bar1));
    memory_region_set_enabled(&s->bus_lost_bar0, false);
    memory_region_set_enabled(&s->bus_lost_bar1, false);
    /* above the registers, the MSI-X table, VRAM and the ECC overlays */
    memory_region_add_subregion_overlap(&s->bar0, 0, &s->bus_lost_bar0, 10);
    memory_region_add_subregion_overlap(&s->bar1, 0, &s->bus_lost_bar1, 10);
    migration_add_notifier(&s->fault_mig_notifier, fault_migration_notify);
}

void tgpu_fault_exit(TGPUState *s)
{
    migration_remove_notifier(&s->fault_mig_notifier);
    while (s->fault_inj_nr) {
        fault_inj_free(fault_remove(s, s->fault_inj_nr - 1));
    }
    timer_free(s->fault_timer);
    tgpu_defer_exit(&s->fault_defer);
    memory_region_del_subregion(&s->bar0, &s->bus_lost_bar0);
    memory_region_del_subregion(&s->bar1, &s->bus_lost_bar1);
    qemu_mutex_destroy(&s->fault_lock);
}

/*
 * FLR and system reset: the device is back on the bus.  Injections that
 * wait for their trigger stay: they are the monitor's, not the device's.
 */
void tgpu_fault_reset(TGPUState *s)
{
    tgpu_fault_set_bus_lost(s, false);
}
