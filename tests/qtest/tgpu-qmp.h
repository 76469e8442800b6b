/*
 * QTest helpers for tgpu's monitor commands (qapi/tgpu.json): a command
 * with its arguments as JSON members, one that must succeed or fail,
 * and query-tgpu's only device.
 *
 * Copyright (c) 2026 The tgpu authors
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */

#ifndef TGPU_QMP_H
#define TGPU_QMP_H

#include "qapi/error.h"
#include "qobject/qjson.h"
#include "qobject/qlist.h"
#include "tgpu-qtest.h"

/* CMD with ARGS, the members of a JSON object; the reply. */
static inline QDict *cmd(T *t, const char *name, const char *args)
{
    g_autofree char *json = g_strdup_printf("{%s}", args);
    QObject *a = qobject_from_json(json, &error_abort);

    return qtest_qmp(t->qts, "{'execute': %s, 'arguments': %p}", name, a);
}

/* A command that must succeed; its injection's number, or 0. */
static inline uint64_t cmd_ok(T *t, const char *name, const char *args)
{
    QDict *r = cmd(t, name, args);
    QDict *ret;
    uint64_t n = 0;

    if (!qdict_haskey(r, "return")) {
        g_test_message("%s: %s", name,
                       qdict_get_str(qdict_get_qdict(r, "error"), "desc"));
    }
    g_assert_true(qdict_haskey(r, "return"));
    ret = qdict_get_qdict(r, "return");
    if (ret && qdict_haskey(ret, "number")) {
        n = qdict_get_int(ret, "number");
    }
    qobject_unref(r);
    return n;
}

/* A command that must fail with a GenericError, with WHY in its message. */
static inline void expect_qmp_error(T *t, const char *name,
                                    const char *args, const char *why)
{
    QDict *r = cmd(t, name, args);
    QDict *err = qdict_get_qdict(r, "error");

    g_assert_nonnull(err);
    g_assert_cmpstr(qdict_get_str(err, "class"), ==, "GenericError");
    g_test_message("%s: %s", name, qdict_get_str(err, "desc"));
    g_assert_nonnull(strstr(qdict_get_str(err, "desc"), why));
    qobject_unref(r);
}

/* query-tgpu's only device. */
static inline QDict *query(T *t)
{
    QDict *r = qtest_qmp(t->qts, "{'execute': 'query-tgpu'}");
    QList *l = qdict_get_qlist(r, "return");
    QDict *d;

    g_assert_cmpuint(qlist_size(l), ==, 1);
    d = qobject_to(QDict, qlist_peek(l));
    qobject_ref(d);
    qobject_unref(r);
    return d;
}

#endif /* TGPU_QMP_H */
