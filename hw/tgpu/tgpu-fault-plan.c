/*
 * tgpu fault injection as plans: the pending injections query-tgpu
 * lists, the plan text that re-creates them, and the fault-plan files
 * the fault-plan property loads at realize
 *
 * docs/fault-injection.md is the manual; tgpu-fault.c arms and fires
 * the injections.
 *
 * Copyright (c) 2026 The tgpu authors
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */

#include "qemu/osdep.h"
#include "qemu/lockable.h"
#include "qapi/error.h"
#include "qapi/clone-visitor.h"
#include "qapi/qobject-input-visitor.h"
#include "qapi/qobject-output-visitor.h"
#include "qapi/qapi-visit-tgpu.h"
#include "qobject/qdict.h"
#include "qobject/qjson.h"
#include "tgpu.h"

static const char *fault_cmd(const TGPUFaultInj *j)
{
    return j->ecc ? "tgpu-inject-ecc" :
           j->hang ? "tgpu-inject-hang" : "tgpu-inject-fault";
}

static TgpuTrigger *fault_trigger_arg(const TGPUFaultInj *j)
{
    return j->ecc ? j->ecc->trigger :
           j->hang ? j->hang->trigger : j->fault->trigger;
}

/* ---- query-tgpu ------------------------------------------------------- */

static char *fault_target(TGPUState *s, const TGPUFaultInj *j)
{
    const TgpuInjectFault *f = j->fault;

    switch (j->kind) {
    case TGPU_INJECTION_KIND_ECC:
        return g_strdup_printf("VRAM 0x%" PRIx64,
                               j->ecc->address & ~(uint64_t)7);
    case TGPU_INJECTION_KIND_HANG:
        return j->hang->has_channel ?
               g_strdup_printf("channel %u", j->hang->channel) :
               g_strdup(TgpuEngineName_str(j->hang->engine));
    case TGPU_INJECTION_KIND_MMU_FAULT:
        return g_strdup_printf("VA 0x%" PRIx64, f->u.mmu_fault.va);
    case TGPU_INJECTION_KIND_ILLEGAL_METHOD:
        return g_strdup_printf("channel %u", f->u.illegal_method.channel);
    case TGPU_INJECTION_KIND_LOST_INTERRUPT:
        return g_strdup_printf("vector %s", TgpuInterruptVector_str(
                               f->u.lost_interrupt.vector));
    case TGPU_INJECTION_KIND_DOORBELL_DROP:
        return f->u.doorbell_drop.has_channel ?
               g_strdup_printf("channel %u", f->u.doorbell_drop.channel) :
               g_strdup("any channel");
    case TGPU_INJECTION_KIND_DMA_ERROR:
        return g_strdup("guest memory");
    default:
        return g_strdup("the bus");
    }
}

TgpuPendingInjectionList *tgpu_fault_query(TGPUState *s)
{
    TgpuPendingInjectionList *list = NULL, **tail = &list;

    QEMU_LOCK_GUARD(&s->fault_lock);
    for (uint32_t i = 0; i < s->fault_inj_nr; i++) {
        const TGPUFaultInj *j = s->fault_inj[i];
        TgpuPendingInjection *p = g_new0(TgpuPendingInjection, 1);
        TgpuTrigger *t = fault_trigger_arg(j);

        p->number = j->number;
        p->kind = j->kind;
        p->target = fault_target(s, j);
        p->trigger = t ? QAPI_CLONE(TgpuTrigger, t) : NULL;
        p->seen = j->seen;
        p->fired = j->fired;
        p->remaining = j->remaining;
        QAPI_LIST_APPEND(tail, p);
    }
    return list;
}

/* One plan line: CMD with the arguments ARGS (a QDict), less its id. */
static void plan_line(GString *out, const char *cmd, QObject *args)
{
    g_autoptr(QDict) line = qdict_new();
    g_autoptr(GString) json = NULL;
    QDict *a = qobject_to(QDict, args);

    qdict_del(a, "id");
    qdict_put_str(line, "execute", cmd);
    qdict_put_obj(line, "arguments", args);
    json = qobject_to_json(QOBJECT(line));
    g_string_append_printf(out, "%s\n", json->str);
}

#define PLAN_VISIT(type, ptr) ({                                        \
    QObject *obj_ = NULL;                                               \
    Visitor *v_ = qobject_output_visitor_new(&obj_);                    \
    visit_type_##type(v_, NULL, &(ptr), &error_abort);                  \
    visit_complete(v_, &obj_);                                          \
    visit_free(v_);                                                     \
    obj_;                                                               \
})

/*
 * The injections as a plan: the pending ones as given; a fired one with
 * a count left, and each armed ECC error, as one to fire at once.
 */
char *tgpu_fault_plan_text(TGPUState *s)
{
    GString *out = g_string_new("");

    WITH_QEMU_LOCK_GUARD(&s->fault_lock) {
        for (uint32_t i = 0; i < s->fault_inj_nr; i++) {
            const TGPUFaultInj *j = s->fault_inj[i];

            if (j->ecc) {
                TgpuInjectEcc *a = QAPI_CLONE(TgpuInjectEcc, j->ecc);

                plan_line(out, fault_cmd(j), PLAN_VISIT(TgpuInjectEcc, a));
                qapi_free_TgpuInjectEcc(a);
            } else if (j->hang) {
                TgpuInjectHang *a = QAPI_CLONE(TgpuInjectHang, j->hang);

                plan_line(out, fault_cmd(j), PLAN_VISIT(TgpuInjectHang, a));
                qapi_free_TgpuInjectHang(a);
            } else {
                TgpuInjectFault *a = QAPI_CLONE(TgpuInjectFault, j->fault);

                if (j->fired) {
                    qapi_free_TgpuTrigger(a->trigger);
                    a->trigger = NULL;
                    a->has_count = true;
                    a->count = j->remaining;
                }
                plan_line(out, fault_cmd(j), PLAN_VISIT(TgpuInjectFault, a));
                qapi_free_TgpuInjectFault(a);
            }
        }
    }
    WITH_QEMU_LOCK_GUARD(&s->ecc_lock) {
        for (uint32_t i = 0; i < s->ecc_inj_nr; i++) {
            const TGPUEccInj *e = &s->ecc_inj[i];
            TgpuInjectEcc a = {
                .id = (char *)"", .address = e->addr,
                .has_bits = true, .bits = e->mask,
                .has_mode = e->sticky, .mode = TGPU_INJECTION_MODE_STICKY,
            };
            TgpuInjectEcc *p = &a;

            plan_line(out, "tgpu-inject-ecc", PLAN_VISIT(TgpuInjectEcc, p));
        }
    }
    return g_string_free(out, false);
}

/* ---- fault plans ------------------------------------------------------ */

/* A line without its comment: '#' outside a JSON string starts one. */
static void plan_strip_comment(char *line)
{
    bool in_str = false;

    for (char *p = line; *p; p++) {
        if (in_str && *p == '\\' && p[1]) {
            p++;
        } else if (*p == '"') {
            in_str = !in_str;
        } else if (*p == '#' && !in_str) {
            *p = '\0';
            return;
        }
    }
}

/* One line of a plan: a command, checked as QMP checks it. */
static bool plan_run_line(TGPUState *s, const char *line, Error **errp)
{
    QObject *obj = qobject_from_json(line, errp);
    g_autoptr(QDict) cmd = qobject_to(QDict, obj);
    const QDictEntry *e;
    const char *name;
    QDict *args;
    Visitor *v;
    bool ok = false;

    if (!obj) {
        return false;
    }
    if (!cmd) {
        error_setg(errp, "not a JSON object");
        qobject_unref(obj);
        return false;
    }
    for (e = qdict_first(cmd); e; e = qdict_next(cmd, e)) {
        if (strcmp(e->key, "execute") && strcmp(e->key, "arguments")) {
            error_setg(errp, "member '%s' is unexpected (a line has "
                       "'execute' and 'arguments')", e->key);
            return false;
        }
    }
    name = qdict_get_try_str(cmd, "execute");
    if (!name) {
        error_setg(errp, "'execute' is missing, or not a string");
        return false;
    }
    if (qdict_haskey(cmd, "arguments") && !qdict_get_qdict(cmd, "arguments")) {
        error_setg(errp, "'arguments' is not an object");
        return false;
    }
    args = qdict_haskey(cmd, "arguments") ?
           qdict_clone_shallow(qdict_get_qdict(cmd, "arguments")) :
           qdict_new();
    if (qdict_haskey(args, "id")) {
        error_setg(errp, "'arguments' has 'id': a plan is for the device "
                   "that loads it");
        qobject_unref(args);
        return false;
    }
    qdict_put_str(args, "id", "");
    v = qobject_input_visitor_new(QOBJECT(args));
    if (!strcmp(name, "tgpu-inject-ecc")) {
        TgpuInjectEcc *a = NULL;

        ok = visit_type_TgpuInjectEcc(v, NULL, &a, errp) &&
             tgpu_fault_add_ecc(s, a, true, errp);
        qapi_free_TgpuInjectEcc(a);
    } else if (!strcmp(name, "tgpu-inject-hang")) {
        TgpuInjectHang *a = NULL;

        ok = visit_type_TgpuInjectHang(v, NULL, &a, errp) &&
             tgpu_fault_add_hang(s, a, true, errp);
        qapi_free_TgpuInjectHang(a);
    } else if (!strcmp(name, "tgpu-inject-fault")) {
        TgpuInjectFault *a = NULL;

        ok = visit_type_TgpuInjectFault(v, NULL, &a, errp) &&
             tgpu_fault_add_fault(s, a, true, errp);
        qapi_free_TgpuInjectFault(a);
    } else {
        error_setg(errp, "'execute' %s: a plan has tgpu-inject-ecc, "
                   "tgpu-inject-hang and tgpu-inject-fault", name);
    }
    visit_free(v);
    qobject_unref(args);
    return ok;
}

/* At realize: the property fault-plan's injections, or the first error. */
bool tgpu_fault_load_plan(TGPUState *s, Error **errp)
{
    g_autofree uint8_t *text = NULL;
    g_auto(GStrv) lines = NULL;
    const uint8_t *nul;
    size_t len;

    if (!s->fault_plan) {
        return true;
    }
    if (tgpu_file_read(s->fault_plan, "fault-plan", TGPU_FAULT_PLAN_MAX_SIZE,
                       &text, &len, errp) <= 0) {
        return false;
    }
    if (len > TGPU_FAULT_PLAN_MAX_SIZE) {
        error_setg(errp, "tgpu: fault-plan %s is larger than a plan may be "
                   "(%u bytes)", s->fault_plan, TGPU_FAULT_PLAN_MAX_SIZE);
        return false;
    }
    /* a NUL would end the text early, dropping the lines after it */
    nul = memchr(text, 0, len);
    if (nul) {
        error_setg(errp, "tgpu: fault-plan %s is not a text file (a NUL "
                   "byte at offset %td)", s->fault_plan, nul - text);
        return false;
    }
    lines = g_strsplit((char *)text, "\n", -1);
    for (unsigned int i = 0; lines[i]; i++) {
        Error *err = NULL;

        plan_strip_comment(lines[i]);
        if (!*g_strstrip(lines[i])) {
            continue;
        }
        if (!plan_run_line(s, lines[i], &err)) {
            error_propagate_prepend(errp, err, "tgpu: fault-plan %s:%u: ",
                                    s->fault_plan, i + 1);
            return false;
        }
    }
    return true;
}
