/*
 * tgpu's human monitor commands: "info tgpu" and "tgpu_inject", the
 * HMP side of qapi/tgpu.json, as pcie_aer_inject_error is for AER.
 * They build the QMP commands' arguments and call them, so that both
 * check the same way; docs/fault-injection.md has the syntax.
 *
 * Copyright (c) 2026 The tgpu authors
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */

#include "qemu/osdep.h"
#include "qemu/cutils.h"
#include "monitor/hmp.h"
#include "monitor/monitor.h"
#include "qapi/error.h"
#include "qapi/qapi-commands-tgpu.h"
#include "qobject/qdict.h"

/* ---- info tgpu ---------------------------------------------------------- */

static void hmp_tgpu_trigger(Monitor *mon, const TgpuTrigger *t)
{
    if (!t) {
        return;
    }
    if (t->has_at_ns) {
        monitor_printf(mon, " at %" PRIu64 " ns", t->at_ns);
        return;
    }
    monitor_printf(mon, " after %" PRIu64 " %s", t->after,
                   TgpuTriggerEvent_str(t->event));
    if (t->has_channel) {
        monitor_printf(mon, " of channel %u", t->channel);
    }
}

static void hmp_tgpu_one(Monitor *mon, const TgpuInfo *d)
{
    const TgpuThermalInfo *th = d->thermal;
    const TgpuEccInfo *ecc = d->ecc;
    const TgpuMmuInfo *mmu = d->mmu;
    const strList *reason;

    monitor_printf(mon, "%s (%s), %s%s\n", d->id ? d->id : "-", d->qom_path,
                   d->model, d->bus_lost ? ", FALLEN OFF THE BUS" : "");
    for (TgpuEngineInfoList *l = d->engines; l; l = l->next) {
        const TgpuEngineInfo *e = l->value;

        monitor_printf(mon, "  %-8s %-5s progress %" PRIu64, e->name,
                       e->busy ? "busy" : "idle", e->progress);
        if (e->has_channel) {
            monitor_printf(mon, ", channel %u", e->channel);
        }
        if (e->has_hang) {
            monitor_printf(mon, ", HUNG (%s)", TgpuHangKind_str(e->hang));
        }
        monitor_printf(mon, "\n");
    }
    for (TgpuChannelInfoList *l = d->channels; l; l = l->next) {
        const TgpuChannelInfo *c = l->value;

        monitor_printf(mon, "  channel %u: %s, runlist %u, ASID %u, "
                       "GP_GET %u GP_PUT %u", c->id, c->state, c->runlist,
                       c->asid, c->gp_get, c->gp_put);
        if (c->error) {
            monitor_printf(mon, ", error %s info 0x%x", c->error,
                           c->error_info);
        }
        monitor_printf(mon, "%s\n", c->fetch_hung ? ", fetch hung" : "");
    }
    monitor_printf(mon, "  %d.%03d C, %u MHz, %u.%03u W%s%s",
                   th->temperature / 1000, abs(th->temperature % 1000),
                   th->clock_mhz, th->power_mw / 1000, th->power_mw % 1000,
                   th->slowdown ? ", slowdown" : "",
                   th->shutdown ? ", SHUT DOWN" : "");
    reason = th->reasons;
    for (; reason; reason = reason->next) {
        monitor_printf(mon, "%s%s",
                       reason == th->reasons ? ", reasons " : " ",
                       reason->value);
    }
    monitor_printf(mon, "\n  ECC %s: SBE %u (aggregate %u), DBE %u "
                   "(aggregate %u), %u retired pages\n",
                   ecc->enabled ? "on" : "off", ecc->sbe_volatile,
                   ecc->sbe_aggregate, ecc->dbe_volatile, ecc->dbe_aggregate,
                   ecc->retired_pages);
    monitor_printf(mon, "  MMU: TLB hits %u misses %u fills %u flushes %u "
                   "evictions %u, walks %u, faults %u, context switches "
                   "%u\n", mmu->tlb_hits, mmu->tlb_misses, mmu->tlb_fills,
                   mmu->tlb_flushes, mmu->tlb_evictions, mmu->walks,
                   mmu->faults, mmu->context_switches);
    for (TgpuInjectionInfoList *l = ecc->pending; l; l = l->next) {
        const TgpuInjectionInfo *i = l->value;

        monitor_printf(mon, "  #%" PRIu64 " ecc armed: %s at 0x%" PRIx64
                       " bits 0x%" PRIx64 ", %s\n", i->number,
                       TgpuEccErrorType_str(i->type), i->address, i->bits,
                       TgpuInjectionMode_str(i->mode));
    }
    for (TgpuPendingInjectionList *l = d->injections; l; l = l->next) {
        const TgpuPendingInjection *i = l->value;

        monitor_printf(mon, "  #%" PRIu64 " %s at %s", i->number,
                       TgpuInjectionKind_str(i->kind), i->target);
        if (i->fired) {
            monitor_printf(mon, ": fired, %u left\n", i->remaining);
            continue;
        }
        hmp_tgpu_trigger(mon, i->trigger);
        if (i->trigger && !i->trigger->has_at_ns) {
            monitor_printf(mon, " (%" PRIu64 " seen)", i->seen);
        }
        monitor_printf(mon, "\n");
    }
}

void hmp_info_tgpu(Monitor *mon, const QDict *qdict)
{
    Error *err = NULL;
    TgpuInfoList *list = qmp_query_tgpu(false, false, &err);

    if (hmp_handle_error(mon, err)) {
        return;
    }
    if (!list) {
        monitor_printf(mon, "no tgpu device\n");
    }
    for (TgpuInfoList *l = list; l; l = l->next) {
        hmp_tgpu_one(mon, l->value);
    }
    qapi_free_TgpuInfoList(list);
}

/* ---- tgpu_inject -------------------------------------------------------- */

/* The words of a command line, and where the parser is in them. */
typedef struct HmpWords {
    char **w;
    int i;
} HmpWords;

static const char *hmp_word(HmpWords *w)
{
    return w->w[w->i] ? w->w[w->i++] : NULL;
}

static bool hmp_number(HmpWords *w, const char *what, uint64_t *v,
                       Error **errp)
{
    const char *s = hmp_word(w);

    if (!s || qemu_strtou64(s, NULL, 0, v)) {
        error_setg(errp, "%s: a number expected, got '%s'", what,
                   s ? s : "nothing");
        return false;
    }
    return true;
}

/* A time of the virtual clock: a number with ns, us, ms or s. */
static bool hmp_time(HmpWords *w, uint64_t *ns, Error **errp)
{
    static const struct {
        const char *suffix;
        uint64_t mul;
    } units[] = {
        { "ns", 1 }, { "us", 1000 }, { "ms", 1000000 }, { "s", 1000000000 },
    };
    const char *s = hmp_word(w), *end;
    uint64_t v;

    if (!s || qemu_strtou64(s, &end, 10, &v)) {
        error_setg(errp, "'at': a time expected (150ms, 2s), got '%s'",
                   s ? s : "nothing");
        return false;
    }
    for (size_t i = 0; i < ARRAY_SIZE(units); i++) {
        if (!strcmp(end, units[i].suffix) || (!*end && units[i].mul == 1)) {
            if (v > INT64_MAX / units[i].mul) {
                error_setg(errp, "'at': %s is too far", s);
                return false;
            }
            *ns = v * units[i].mul;
            return true;
        }
    }
    error_setg(errp, "'at': unknown unit in '%s' (ns, us, ms, s)", s);
    return false;
}

static bool hmp_enum(HmpWords *w, const char *what, const QEnumLookup *l,
                     int *v, Error **errp)
{
    const char *s = hmp_word(w);

    g_autoptr(GString) known = NULL;

    *v = s ? qapi_enum_parse(l, s, -1, NULL) : -1;
    if (*v >= 0) {
        return true;
    }
    known = g_string_new("");
    for (int i = 0; i < l->size; i++) {
        g_string_append_printf(known, "%s%s", i ? ", " : "", l->array[i]);
    }
    error_setg(errp, "%s: '%s' is none of %s", what, s ? s : "nothing",
               known->str);
    return false;
}

/* The tail every kind takes: [count N] [after N EVENT [channel C] | at T]. */
static bool hmp_tail(HmpWords *w, bool *has_count, uint32_t *count,
                     TgpuTrigger **trigger, Error **errp)
{
    const char *s;
    uint64_t v;

    while ((s = hmp_word(w))) {
        if (!strcmp(s, "count")) {
            if (!hmp_number(w, "count", &v, errp)) {
                return false;
            }
            *has_count = true;
            *count = MIN(v, UINT32_MAX);
        } else if (!strcmp(s, "after") && !*trigger) {
            TgpuTrigger *t = g_new0(TgpuTrigger, 1);
            int ev;

            *trigger = t;
            t->has_after = t->has_event = true;
            if (!hmp_number(w, "after", &t->after, errp) ||
                !hmp_enum(w, "event", &TgpuTriggerEvent_lookup, &ev, errp)) {
                return false;
            }
            t->event = ev;
            if (w->w[w->i] && !strcmp(w->w[w->i], "channel")) {
                w->i++;
                if (!hmp_number(w, "channel", &v, errp)) {
                    return false;
                }
                t->has_channel = true;
                t->channel = MIN(v, UINT32_MAX);
            }
        } else if (!strcmp(s, "at") && !*trigger) {
            *trigger = g_new0(TgpuTrigger, 1);
            (*trigger)->has_at_ns = true;
            if (!hmp_time(w, &(*trigger)->at_ns, errp)) {
                return false;
            }
        } else {
            error_setg(errp, "'%s' unexpected: give [count N] "
                       "[after N EVENT [channel C] | at TIME]", s);
            return false;
        }
    }
    return true;
}

/* The tail of a kind that has no count (WHAT). */
static bool hmp_tail_no_count(HmpWords *w, const char *what,
                              TgpuTrigger **trigger, Error **errp)
{
    bool has_count = false;
    uint32_t count;

    if (!hmp_tail(w, &has_count, &count, trigger, errp)) {
        return false;
    }
    if (has_count) {
        error_setg(errp, "'count': %s has none", what);
        return false;
    }
    return true;
}

/* What a QMP command returned: the injection's number, or 0. */
static uint64_t hmp_injected(TgpuInjection *r)
{
    uint64_t n = r ? r->number : 0;

    qapi_free_TgpuInjection(r);
    return n;
}

static uint64_t hmp_inject_ecc(const char *id, bool dbe, HmpWords *w,
                               Error **errp)
{
    g_autoptr(TgpuInjectEcc) a = g_new0(TgpuInjectEcc, 1);

    a->id = g_strdup(id);
    a->has_type = true;
    a->type = dbe ? TGPU_ECC_ERROR_TYPE_DOUBLE : TGPU_ECC_ERROR_TYPE_SINGLE;
    if (!hmp_number(w, "address", &a->address, errp)) {
        return 0;
    }
    if (w->w[w->i] && !strcmp(w->w[w->i], "sticky")) {
        w->i++;
        a->has_mode = true;
        a->mode = TGPU_INJECTION_MODE_STICKY;
    }
    if (!hmp_tail_no_count(w, "an ECC error", &a->trigger, errp)) {
        return 0;
    }
    return hmp_injected(qmp_tgpu_inject_ecc(a, errp));
}

static uint64_t hmp_inject_hang(const char *id, TgpuHangKind kind,
                                HmpWords *w, Error **errp)
{
    g_autoptr(TgpuInjectHang) a = g_new0(TgpuInjectHang, 1);
    const char *target = hmp_word(w);
    uint64_t ch;

    a->id = g_strdup(id);
    a->kind = kind;
    if (target && g_str_has_prefix(target, "ch") &&
        !qemu_strtou64(target + 2, NULL, 10, &ch)) {
        a->has_channel = true;
        a->channel = MIN(ch, UINT32_MAX);
    } else {
        int e = target ? qapi_enum_parse(&TgpuEngineName_lookup, target, -1,
                                         NULL) : -1;

        if (e < 0) {
            error_setg(errp, "'%s': give an engine (host, compute, ce0, "
                       "ce1) or a channel (ch3)", target ? target : "");
            return 0;
        }
        a->has_engine = true;
        a->engine = e;
    }
    if (!hmp_tail_no_count(w, "a hang", &a->trigger, errp)) {
        return 0;
    }
    return hmp_injected(qmp_tgpu_inject_hang(a, errp));
}

static uint64_t hmp_inject_fault(const char *id, TgpuFaultKind kind,
                                 HmpWords *w, Error **errp)
{
    g_autoptr(TgpuInjectFault) a = g_new0(TgpuInjectFault, 1);
    uint64_t v;
    int e;

    a->id = g_strdup(id);
    a->kind = kind;
    switch (kind) {
    case TGPU_FAULT_KIND_MMU_FAULT:
        if (!hmp_number(w, "va", &a->u.mmu_fault.va, errp)) {
            return 0;
        }
        if (w->w[w->i] && g_ascii_isdigit(w->w[w->i][0])) {
            if (!hmp_number(w, "asid", &v, errp)) {
                return 0;
            }
            a->u.mmu_fault.has_asid = true;
            a->u.mmu_fault.asid = MIN(v, UINT32_MAX);
        }
        break;
    case TGPU_FAULT_KIND_ILLEGAL_METHOD:
        if (!hmp_number(w, "channel", &v, errp)) {
            return 0;
        }
        a->u.illegal_method.channel = MIN(v, UINT32_MAX);
        break;
    case TGPU_FAULT_KIND_LOST_INTERRUPT:
        if (!hmp_enum(w, "vector", &TgpuInterruptVector_lookup, &e, errp)) {
            return 0;
        }
        a->u.lost_interrupt.vector = e;
        break;
    case TGPU_FAULT_KIND_DOORBELL_DROP:
        if (w->w[w->i] && g_ascii_isdigit(w->w[w->i][0])) {
            if (!hmp_number(w, "channel", &v, errp)) {
                return 0;
            }
            a->u.doorbell_drop.has_channel = true;
            a->u.doorbell_drop.channel = MIN(v, UINT32_MAX);
        }
        break;
    default:
        break;
    }
    if (!hmp_tail(w, &a->has_count, &a->count, &a->trigger, errp)) {
        return 0;
    }
    return hmp_injected(qmp_tgpu_inject_fault(a, errp));
}

static bool hmp_degrees(HmpWords *w, const char *what, double *v,
                        Error **errp)
{
    const char *s = hmp_word(w);

    if (!s || qemu_strtod_finite(s, NULL, v)) {
        error_setg(errp, "%s: a temperature expected, got '%s'", what,
                   s ? s : "nothing");
        return false;
    }
    return true;
}

/* thermal ambient C | sensor C | ramp FROM TO SECONDS | release */
static void hmp_set_thermal(const char *id, HmpWords *w, Error **errp)
{
    g_autoptr(TgpuSetThermal) a = g_new0(TgpuSetThermal, 1);
    const char *what = hmp_word(w);
    bool ok;

    a->id = g_strdup(id);
    if (!what) {
        ok = false;
    } else if (!strcmp(what, "ambient")) {
        a->has_ambient = true;
        ok = hmp_degrees(w, "ambient", &a->ambient, errp);
    } else if (!strcmp(what, "sensor")) {
        a->has_sensor = true;
        ok = hmp_degrees(w, "sensor", &a->sensor, errp);
    } else if (!strcmp(what, "ramp")) {
        a->ramp = g_new0(TgpuThermalRamp, 1);
        ok = hmp_degrees(w, "ramp from", &a->ramp->from, errp) &&
             hmp_degrees(w, "ramp to", &a->ramp->to, errp) &&
             hmp_degrees(w, "ramp seconds", &a->ramp->seconds, errp);
    } else if (!strcmp(what, "release")) {
        a->has_release = a->release = true;
        ok = true;
    } else {
        ok = false;
    }
    if (!ok) {
        if (errp && !*errp) {
            error_setg(errp, "thermal: give ambient C, sensor C, ramp FROM "
                       "TO SECONDS or release");
        }
        return;
    }
    if (hmp_word(w)) {
        error_setg(errp, "thermal: unexpected words after '%s'", what);
        return;
    }
    qmp_tgpu_set_thermal(a, errp);
}

void hmp_tgpu_inject(Monitor *mon, const QDict *qdict)
{
    const char *id = qdict_get_str(qdict, "id");
    const char *kind = qdict_get_str(qdict, "kind");
    g_auto(GStrv) words = g_strsplit_set(qdict_get_try_str(qdict, "args") ?:
                                         "", " \t", -1);
    HmpWords w = { .w = NULL };
    g_autoptr(GPtrArray) kept = g_ptr_array_new();
    Error *err = NULL;
    uint64_t n = 0;
    int hang = qapi_enum_parse(&TgpuHangKind_lookup, kind, -1, NULL);
    int fault = qapi_enum_parse(&TgpuFaultKind_lookup, kind, -1, NULL);

    /* the words, without the empty ones runs of blanks leave */
    for (int i = 0; words[i]; i++) {
        if (*words[i]) {
            g_ptr_array_add(kept, words[i]);
        }
    }
    g_ptr_array_add(kept, NULL);
    w.w = (char **)kept->pdata;

    if (!strcmp(kind, "ecc-single") || !strcmp(kind, "ecc-double")) {
        n = hmp_inject_ecc(id, !strcmp(kind, "ecc-double"), &w, &err);
    } else if (hang >= 0) {
        n = hmp_inject_hang(id, hang, &w, &err);
    } else if (fault >= 0) {
        n = hmp_inject_fault(id, fault, &w, &err);
    } else if (!strcmp(kind, "thermal")) {
        hmp_set_thermal(id, &w, &err);
    } else if (!strcmp(kind, "restore-bus")) {
        qmp_tgpu_restore_bus(id, &err);
    } else if (!strcmp(kind, "clear")) {
        qmp_tgpu_clear_injections(id, &err);
    } else {
        error_setg(&err, "unknown kind '%s': see 'help tgpu_inject'", kind);
    }
    if (hmp_handle_error(mon, err)) {
        return;
    }
    if (n) {
        monitor_printf(mon, "injection %" PRIu64 "\n", n);
    }
}
