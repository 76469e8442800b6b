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

/* The device ID names: its id, or a QOM path. */
static TGPUState *tgpu_find(const char *id, Error **errp)
{
    bool ambiguous = false;
    Object *obj = object_resolve_path_type(id, TYPE_TGPU, &ambiguous);

    if (obj) {
        return TGPU(obj);
    }
    if (ambiguous) {
        error_setg(errp, "id '%s' names more than one tgpu device: give "
                   "its QOM path", id);
    } else if (object_resolve_path(id, NULL)) {
        error_setg(errp, "id '%s' is not a tgpu device", id);
    } else {
        error_setg(errp, "id '%s': no tgpu device of that id or QOM path",
                   id);
    }
    return NULL;
}

TgpuInjection *qmp_tgpu_inject_ecc(const char *id, uint64_t address,
                                  bool has_type, TgpuEccErrorType type,
                                  bool has_bits, uint64_t bits,
                                  bool has_mode, TgpuInjectionMode mode,
                                  Error **errp)
{
    TGPUState *s = tgpu_find(id, errp);
    TgpuInjection *inj;
    uint64_t number = 0;
    uint32_t err;

    if (!s) {
        return NULL;
    }
    if (has_type == has_bits) {
        error_setg(errp, "give either 'type' or 'bits'");
        return NULL;
    }
    if (address >= s->vram_size) {
        error_setg(errp, "'address' 0x%" PRIx64 " is beyond VRAM (%" PRIu64
                   " MiB)", address, s->vram_size >> 20);
        return NULL;
    }
    if (has_type) {
        bits = type == TGPU_ECC_ERROR_TYPE_DOUBLE ? 3 : 1;
    }
    err = tgpu_ecc_arm(s, address & ~7ull, bits,
                       has_mode && mode == TGPU_INJECTION_MODE_STICKY,
                       &number);
    switch (err) {
    case 0:
        inj = g_new0(TgpuInjection, 1);
        inj->number = number;
        return inj;
    case TGPU_ECC_INJ_ERR_MASK:
        error_setg(errp, "'bits' 0x%" PRIx64 " must have one bit set (a "
                   "single-bit error) or two (a double-bit error)", bits);
        break;
    case TGPU_ECC_INJ_ERR_FULL:
        error_setg(errp, "%d injections are pending already: clear them "
                   "with tgpu-clear-injections", TGPU_ECC_INJ_MAX);
        break;
    default:
        error_setg(errp, "the injection was refused (INJ_STATUS 0x%x)", err);
        break;
    }
    return NULL;
}

void qmp_tgpu_clear_injections(const char *id, Error **errp)
{
    TGPUState *s = tgpu_find(id, errp);

    if (s) {
        tgpu_ecc_clear_injections(s);
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

void qmp_tgpu_set_thermal(const char *id, bool has_ambient, double ambient,
                          bool has_sensor, double sensor,
                          TgpuThermalRamp *ramp, bool has_release,
                          bool release, Error **errp)
{
    TGPUState *s = tgpu_find(id, errp);
    int forcing = has_sensor + !!ramp + (has_release && release);

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
    } else if (has_release && release) {
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

static TgpuEccInfo *tgpu_qmp_ecc(TGPUState *s)
{
    TgpuEccInfo *e = g_new0(TgpuEccInfo, 1);
    TgpuInjectionInfoList **tail = &e->pending;

    e->enabled = qatomic_read(&s->ecc_state) == TGPU_ECC_STATE_ENABLED;
    e->retired_pages = s->retired_nr;
    QEMU_LOCK_GUARD(&s->ecc_lock);
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
    static const struct {
        uint32_t bit;
        const char *name;
    } reasons[] = {
        { TGPU_THERM_REASON_GPU_IDLE, "gpu_idle" },
        { TGPU_THERM_REASON_APP_CLOCKS, "applications_clocks_setting" },
        { TGPU_THERM_REASON_SW_POWER_CAP, "sw_power_cap" },
        { TGPU_THERM_REASON_HW_SLOWDOWN, "hw_slowdown" },
        { TGPU_THERM_REASON_SW_THERMAL, "sw_thermal_slowdown" },
        { TGPU_THERM_REASON_HW_THERMAL, "hw_thermal_slowdown" },
    };
    TgpuThermalInfo *t = g_new0(TgpuThermalInfo, 1);
    strList **tail = &t->reasons;
    bool ok;

    t->temperature = (int32_t)tgpu_therm_read(s, TGPU_THERM_TEMP, &ok);
    t->clock_mhz = tgpu_therm_clock_mhz(s);
    t->power_mw = tgpu_therm_read(s, TGPU_THERM_POWER_MW, &ok);
    t->slowdown = s->therm_slowdown;
    t->shutdown = s->therm_halted;
    for (size_t i = 0; i < ARRAY_SIZE(reasons); i++) {
        if (s->therm_reasons & reasons[i].bit) {
            QAPI_LIST_APPEND(tail, g_strdup(reasons[i].name));
        }
    }
    return t;
}

static TgpuEngineInfoList *tgpu_qmp_engines(TGPUState *s)
{
    TgpuEngineInfoList *list = NULL, **tail = &list;

    for (int r = 0; r < TGPU_NR_RUNLISTS; r++) {
        TGPUEngine *e = s->engine[r];
        TgpuEngineInfo *i;

        if (!e) {
            continue;
        }
        i = g_new0(TgpuEngineInfo, 1);
        i->name = g_strdup(e->name);
        i->busy = tgpu_engine_busy(e);
        i->progress = tgpu_engine_progress(e);
        if (i->busy) {
            i->has_channel = true;
            i->channel = e->chid;
        }
        QAPI_LIST_APPEND(tail, i);
    }
    return list;
}

static int tgpu_qmp_one(Object *obj, void *opaque)
{
    TgpuInfoList ***tail = opaque;
    TGPUState *s;
    TgpuInfo *info;

    if (!object_dynamic_cast(obj, TYPE_TGPU)) {
        return 0;
    }
    s = TGPU(obj);
    info = g_new0(TgpuInfo, 1);
    info->qom_path = object_get_canonical_path(obj);
    if (DEVICE(s)->id) {
        info->id = g_strdup(DEVICE(s)->id);
    }
    info->model = g_strdup(s->model->name);
    info->engines = tgpu_qmp_engines(s);
    info->ecc = tgpu_qmp_ecc(s);
    info->thermal = tgpu_qmp_thermal(s);
    QAPI_LIST_APPEND(*tail, info);
    return 0;
}

static int tgpu_qmp_walk(Object *obj, void *opaque)
{
    tgpu_qmp_one(obj, opaque);
    return object_child_foreach(obj, tgpu_qmp_walk, opaque);
}

TgpuInfoList *qmp_query_tgpu(Error **errp)
{
    TgpuInfoList *list = NULL, **tail = &list;

    object_child_foreach(object_get_root(), tgpu_qmp_walk, &tail);
    return list;
}
