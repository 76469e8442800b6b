/*
 * tgpu's monitor interface: the QMP commands of qapi/tgpu.json
 * (injection, query-tgpu) and its events.  docs/fault-injection.md is
 * the manual.
 *
 * Copyright (c) 2026 The tgpu authors
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */

#include "qemu/osdep.h"
#include "qapi/error.h"
#include "qapi/qapi-commands-tgpu.h"
#include "qapi/qapi-events-tgpu.h"
#include "qom/object.h"
#include "tgpu.h"
#include "tgpu-engine.h"

/*
 * The device ID names: its id, or a QOM path.  An empty id is neither,
 * though QOM resolves "" as a partial path to the only object of the
 * type: it is refused as any unknown id is.
 */
static TGPUState *tgpu_find(const char *id, Error **errp)
{
    bool ambiguous = false;
    Object *obj = NULL;

    if (*id) {
        obj = object_resolve_path_type(id, TYPE_TGPU, &ambiguous);
    }
    if (obj) {
        return TGPU(obj);
    }
    if (ambiguous) {
        error_setg(errp, "id '%s' names more than one tgpu device: give "
                   "its QOM path", id);
    } else if (*id && object_resolve_path(id, NULL)) {
        error_setg(errp, "id '%s' is not a tgpu device", id);
    } else {
        error_setg(errp, "id '%s': no tgpu device of that id or QOM path",
                   id);
    }
    return NULL;
}

static TgpuInjection *tgpu_qmp_injection(uint64_t number)
{
    TgpuInjection *inj;

    if (!number) {
        return NULL;
    }
    inj = g_new0(TgpuInjection, 1);
    inj->number = number;
    return inj;
}

TgpuInjection *qmp_tgpu_inject_ecc(TgpuInjectEcc *arg, Error **errp)
{
    TGPUState *s = tgpu_find(arg->id, errp);

    return s ? tgpu_qmp_injection(tgpu_fault_add_ecc(s, arg, false, errp))
             : NULL;
}

TgpuInjection *qmp_tgpu_inject_hang(TgpuInjectHang *arg, Error **errp)
{
    TGPUState *s = tgpu_find(arg->id, errp);

    return s ? tgpu_qmp_injection(tgpu_fault_add_hang(s, arg, false, errp))
             : NULL;
}

TgpuInjection *qmp_tgpu_inject_fault(TgpuInjectFault *arg, Error **errp)
{
    TGPUState *s = tgpu_find(arg->id, errp);

    return s ? tgpu_qmp_injection(tgpu_fault_add_fault(s, arg, false, errp))
             : NULL;
}

void qmp_tgpu_restore_bus(const char *id, Error **errp)
{
    TGPUState *s = tgpu_find(id, errp);

    if (s) {
        tgpu_fault_set_bus_lost(s, false);
    }
}

void qmp_tgpu_clear_injections(const char *id, Error **errp)
{
    TGPUState *s = tgpu_find(id, errp);

    if (s) {
        tgpu_fault_clear(s);
    }
}

static const TgpuEccReader tgpu_qmp_readers[] = {
    [TGPU_ECC_ENGINE_HOST] = TGPU_ECC_READER_HOST,
    [TGPU_ECC_ENGINE_COMPUTE] = TGPU_ECC_READER_COMPUTE,
    [TGPU_ECC_ENGINE_CE0] = TGPU_ECC_READER_CE0,
    [TGPU_ECC_ENGINE_CE1] = TGPU_ECC_READER_CE1,
    [TGPU_ECC_ENGINE_MMU] = TGPU_ECC_READER_MMU,
    [TGPU_ECC_ENGINE_BAR1] = TGPU_ECC_READER_BAR1,
};

void tgpu_qmp_ecc_event(const char *path, bool dbe, uint64_t addr,
                        unsigned int engine, uint32_t chid)
{
    qapi_event_send_tgpu_ecc_error(path, dbe ? TGPU_ECC_ERROR_TYPE_DOUBLE
                                             : TGPU_ECC_ERROR_TYPE_SINGLE,
                                   addr, tgpu_qmp_readers[engine],
                                   chid != TGPU_ECC_NO_CHID, chid);
}

void qmp_tgpu_set_thermal(TgpuSetThermal *arg, Error **errp)
{
    TGPUState *s = tgpu_find(arg->id, errp);
    bool has_ambient = arg->has_ambient, has_sensor = arg->has_sensor;
    double ambient = arg->ambient, sensor = arg->sensor;
    TgpuThermalRamp *ramp = arg->ramp;
    bool release = arg->has_release && arg->release;
    int forcing = has_sensor + !!ramp + release;

    if (!s) {
        return;
    }
    if (forcing > 1 || (!forcing && !has_ambient)) {
        error_setg(errp, "give one of 'sensor', 'ramp' and 'release' "
                   "(with 'ambient' or not), or 'ambient' alone");
        return;
    }
    if (has_ambient && !(ambient >= -40 && ambient <= 100)) {
        error_setg(errp, "'ambient' %g is out of range (-40 to 100)",
                   ambient);
        return;
    }
    if (has_sensor && !(sensor >= -40 && sensor <= 150)) {
        error_setg(errp, "'sensor' %g is out of range (-40 to 150)", sensor);
        return;
    }
    if (ramp && (!(ramp->from >= -40 && ramp->from <= 150) ||
                 !(ramp->to >= -40 && ramp->to <= 150))) {
        error_setg(errp, "'ramp' goes outside -40 to 150");
        return;
    }
    if (ramp && !(ramp->seconds > 0 && ramp->seconds <= 3600)) {
        error_setg(errp, "'ramp' 'seconds' %g is out of range (more than 0, "
                   "at most 3600)", ramp->seconds);
        return;
    }
    if (has_ambient) {
        tgpu_therm_set_ambient(s, ambient);
    }
    if (has_sensor) {
        tgpu_therm_force(s, sensor, sensor, 0);
    } else if (ramp) {
        tgpu_therm_force(s, ramp->from, ramp->to,
                         (int64_t)(ramp->seconds * 1e9));
    } else if (release) {
        tgpu_therm_release(s);
    }
}

void tgpu_qmp_thermal_event(TGPUState *s, uint32_t intr_bit, bool on,
                            int32_t temp_mc)
{
    g_autofree char *path = object_get_canonical_path(OBJECT(s));
    TgpuThermalEventKind kind;

    switch (intr_bit) {
    case TGPU_THERM_INTR_HIGH:
        kind = TGPU_THERMAL_EVENT_KIND_ALERT_HIGH;
        break;
    case TGPU_THERM_INTR_LOW:
        kind = TGPU_THERMAL_EVENT_KIND_ALERT_LOW;
        break;
    case TGPU_THERM_INTR_SLOWDOWN:
        kind = on ? TGPU_THERMAL_EVENT_KIND_SLOWDOWN_ON
                  : TGPU_THERMAL_EVENT_KIND_SLOWDOWN_OFF;
        break;
    default:
        kind = TGPU_THERMAL_EVENT_KIND_SHUTDOWN;
        break;
    }
    qapi_event_send_tgpu_thermal(path, kind, temp_mc);
}

/* A channel stopped in error (tgpu-host.c). */
void tgpu_qmp_chan_error_event(TGPUState *s, uint32_t chid, uint32_t code,
                               uint32_t info)
{
    g_autofree char *path = object_get_canonical_path(OBJECT(s));

    qapi_event_send_tgpu_channel_error(path, chid, code,
                                       tgpu_chan_error_name(code), info);
}

/* The MMU reported a fault (tgpu-mmu.c). */
void tgpu_qmp_mmu_fault_event(TGPUState *s, const TGPUVmCtx *ctx,
                              unsigned int engine, uint64_t va,
                              bool is_write, const char *type)
{
    g_autofree char *path = object_get_canonical_path(OBJECT(s));

    /* TGPU_FAULT_ENGINE_* are TgpuEngineName's (tgpu-fault.c) */
    qapi_event_send_tgpu_mmu_fault(path, va, ctx->asid, ctx->chid, engine,
                                   is_write ? TGPU_ACCESS_WRITE
                                            : TGPU_ACCESS_READ, type);
}

static TgpuEccInfo *tgpu_qmp_ecc(TGPUState *s)
{
    TgpuEccInfo *e = g_new0(TgpuEccInfo, 1);
    TgpuInjectionInfoList **tail = &e->pending;
    TgpuRetiredPageList **rtail = &e->retired;
    TgpuEccLogEntryList **ltail = &e->log;

    e->enabled = qatomic_read(&s->ecc_state) == TGPU_ECC_STATE_ENABLED;
    e->retired_pages = s->retired_nr;
    for (uint32_t i = 0; i < s->retired_nr; i++) {
        const struct tgpu_inforom_entry *r =
            &s->inforom.ent[s->retired_idx[i]];
        TgpuRetiredPage *p = g_new0(TgpuRetiredPage, 1);

        p->address = r->addr;
        p->cause = g_strdup(tgpu_retired_cause_name(r->cause));
        p->time = r->time;
        QAPI_LIST_APPEND(rtail, p);
    }
    QEMU_LOCK_GUARD(&s->ecc_lock);
    e->log_overflow = s->ecc_log_overflow;
    for (uint32_t i = 0; i < s->ecc_log_nr; i++) {
        const TGPUEccLog *l =
            &s->ecc_log[(s->ecc_log_head + i) % TGPU_ECC_LOG_ENTRIES];
        TgpuEccLogEntry *p = g_new0(TgpuEccLogEntry, 1);

        p->address = l->addr;
        p->type = l->type == TGPU_ECC_TYPE_DBE ? TGPU_ECC_ERROR_TYPE_DOUBLE
                                               : TGPU_ECC_ERROR_TYPE_SINGLE;
        p->engine = tgpu_qmp_readers[l->engine];
        p->has_channel = l->chid != TGPU_ECC_NO_CHID;
        p->channel = l->chid;
        p->time_ns = l->time;
        QAPI_LIST_APPEND(ltail, p);
    }
    e->sbe_volatile = s->ecc_sbe_vol;
    e->dbe_volatile = s->ecc_dbe_vol;
    e->sbe_aggregate = s->ecc_sbe_agg;
    e->dbe_aggregate = s->ecc_dbe_agg;
    for (uint32_t i = 0; i < s->ecc_inj_nr; i++) {
        const TGPUEccInj *j = &s->ecc_inj[i];
        TgpuInjectionInfo *p = g_new0(TgpuInjectionInfo, 1);

        p->number = j->number;
        p->address = j->addr;
        p->bits = j->mask;
        p->type = ctpop64(j->mask) == 2 ? TGPU_ECC_ERROR_TYPE_DOUBLE
                                        : TGPU_ECC_ERROR_TYPE_SINGLE;
        p->mode = j->sticky ? TGPU_INJECTION_MODE_STICKY
                            : TGPU_INJECTION_MODE_ONCE;
        QAPI_LIST_APPEND(tail, p);
    }
    return e;
}

static TgpuThermalInfo *tgpu_qmp_thermal(TGPUState *s)
{
    TgpuThermalInfo *t = g_new0(TgpuThermalInfo, 1);
    strList **tail = &t->reasons;
    bool ok;

    t->temperature = (int32_t)tgpu_therm_read(s, TGPU_THERM_TEMP, &ok);
    t->clock_mhz = tgpu_therm_clock_mhz(s);
    t->power_mw = tgpu_therm_read(s, TGPU_THERM_POWER_MW, &ok);
    t->slowdown = s->therm_slowdown;
    t->shutdown = s->therm_halted;
    for (unsigned int i = 0; i < 32; i++) {
        const char *name = tgpu_therm_reason_name(1u << i);

        if ((s->therm_reasons & (1u << i)) && name) {
            QAPI_LIST_APPEND(tail, g_strdup(name));
        }
    }
    return t;
}

static TgpuChannelInfoList *tgpu_qmp_channels(TGPUState *s, bool *host_busy)
{
    TgpuChannelInfoList *list = NULL, **tail = &list;

    *host_busy = false;
    for (uint32_t i = 0; i < s->num_channels; i++) {
        TGPUChannel *ch = &s->chan[i];
        uint32_t state = tgpu_chan_state(s, ch);
        TgpuChannelInfo *c;

        if (state == TGPU_CHAN_STATE_DISABLED ||
            state == TGPU_CHAN_STATE_IDLE) {
            continue;
        }
        *host_busy |= state == TGPU_CHAN_STATE_PENDING ||
                      state == TGPU_CHAN_STATE_RUNNING;
        c = g_new0(TgpuChannelInfo, 1);
        c->id = i;
        /* QMP spells its values in lower case */
        c->state = g_ascii_strdown(tgpu_chan_state_name(state), -1);
        c->runlist = ch->engine;
        c->asid = ch->asid;
        c->gp_get = ch->gp_get;
        c->gp_put = ch->gp_put;
        if (ch->error) {
            c->error = g_strdup(tgpu_chan_error_name(ch->error));
            c->has_error_info = true;
            c->error_info = ch->error_info;
        }
        c->fetch_hung = ch->fetch_hung;
        QAPI_LIST_APPEND(tail, c);
    }
    return list;
}

static TgpuMmuInfo *tgpu_qmp_mmu(TGPUState *s)
{
    TgpuMmuInfo *m = g_new0(TgpuMmuInfo, 1);

    m->context_switches = s->ctxsw_count;
    m->faults = s->fault_count;
    QEMU_LOCK_GUARD(&s->mmu_lock);
    m->tlb_hits = s->tlb_hits;
    m->tlb_misses = s->tlb_misses;
    m->tlb_fills = s->tlb_fills;
    m->tlb_flushes = s->tlb_flushes;
    m->tlb_evictions = s->tlb_evictions;
    m->walks = s->mmu_walks;
    return m;
}

static const char *const tgpu_qmp_engine_states[] = {
    [TGPU_ENGINE_IDLE] = "idle",
    [TGPU_ENGINE_QUEUED] = "queued",
    [TGPU_ENGINE_RUNNING] = "running",
    [TGPU_ENGINE_DONE] = "done",
};

static TgpuEngineInfoList *tgpu_qmp_engines(TGPUState *s, bool host_busy)
{
    TgpuEngineInfoList *list = NULL, **tail = &list;
    TgpuEngineInfo *host = g_new0(TgpuEngineInfo, 1);

    host->name = g_strdup("host");
    host->state = g_strdup(host_busy ? "running" : "idle");
    host->busy = host_busy;
    host->progress = s->host_progress;
    if (s->host_hung) {
        host->has_hang = true;
        host->hang = s->host_hang;
    }
    QAPI_LIST_APPEND(tail, host);

    for (int r = 0; r < TGPU_NR_RUNLISTS; r++) {
        TGPUEngine *e = s->engine[r];
        TgpuEngineInfo *i;

        if (!e) {
            continue;
        }
        i = g_new0(TgpuEngineInfo, 1);
        i->name = g_strdup(e->name);
        i->state = g_strdup(tgpu_qmp_engine_states[tgpu_engine_state(e)]);
        i->busy = tgpu_engine_busy(e);
        i->progress = tgpu_engine_progress(e);
        if (i->busy) {
            i->has_channel = true;
            i->channel = e->chid;
        }
        switch (tgpu_engine_hang_state(e)) {
        case TGPU_HANG_STALL:
            i->has_hang = true;
            i->hang = TGPU_HANG_KIND_STALL;
            break;
        case TGPU_HANG_WEDGE:
            i->has_hang = true;
            i->hang = TGPU_HANG_KIND_WEDGE;
            break;
        default:
            if (s->runlist_fetch_hung[r]) {
                i->has_hang = true;
                i->hang = TGPU_HANG_KIND_FETCH;
            }
            break;
        }
        QAPI_LIST_APPEND(tail, i);
    }
    return list;
}

typedef struct TgpuQmpWalk {
    TgpuInfoList **tail;
    bool as_plan;
} TgpuQmpWalk;

static int tgpu_qmp_one(Object *obj, void *opaque)
{
    TgpuQmpWalk *w = opaque;
    TGPUState *s;
    TgpuInfo *info;
    bool host_busy;

    if (!object_dynamic_cast(obj, TYPE_TGPU)) {
        return 0;
    }
    s = TGPU(obj);
    /* a load in progress, or one that failed: nothing there to show */
    if (s->mig_loading) {
        return 0;
    }
    info = g_new0(TgpuInfo, 1);
    info->qom_path = object_get_canonical_path(obj);
    if (DEVICE(s)->id) {
        info->id = g_strdup(DEVICE(s)->id);
    }
    info->model = g_strdup(s->model->name);
    info->channels = tgpu_qmp_channels(s, &host_busy);
    info->engines = tgpu_qmp_engines(s, host_busy);
    info->ecc = tgpu_qmp_ecc(s);
    info->thermal = tgpu_qmp_thermal(s);
    info->mmu = tgpu_qmp_mmu(s);
    info->injections = tgpu_fault_query(s);
    info->bus_lost = s->bus_lost;
    if (w->as_plan) {
        info->plan = tgpu_fault_plan_text(s);
    }
    QAPI_LIST_APPEND(w->tail, info);
    return 0;
}

static int tgpu_qmp_walk(Object *obj, void *opaque)
{
    tgpu_qmp_one(obj, opaque);
    return object_child_foreach(obj, tgpu_qmp_walk, opaque);
}

TgpuInfoList *qmp_query_tgpu(bool has_as_plan, bool as_plan, Error **errp)
{
    TgpuInfoList *list = NULL;
    TgpuQmpWalk w = { .tail = &list, .as_plan = has_as_plan && as_plan };

    object_child_foreach(object_get_root(), tgpu_qmp_walk, &w);
    return list;
}
