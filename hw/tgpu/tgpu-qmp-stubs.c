/*
 * tgpu's QMP and HMP commands when QEMU is built without the device.
 *
 * Copyright (c) 2026 The tgpu authors
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */

#include "qemu/osdep.h"
#include "qapi/error.h"
#include "qapi/qapi-commands-tgpu.h"
#include "monitor/hmp.h"
#include "monitor/monitor.h"

#define TGPU_ABSENT "this QEMU is built without the tgpu device"

TgpuInjection *qmp_tgpu_inject_ecc(TgpuInjectEcc *arg, Error **errp)
{
    error_setg(errp, TGPU_ABSENT);
    return NULL;
}

TgpuInjection *qmp_tgpu_inject_hang(TgpuInjectHang *arg, Error **errp)
{
    error_setg(errp, TGPU_ABSENT);
    return NULL;
}

TgpuInjection *qmp_tgpu_inject_fault(TgpuInjectFault *arg, Error **errp)
{
    error_setg(errp, TGPU_ABSENT);
    return NULL;
}

void qmp_tgpu_restore_bus(const char *id, Error **errp)
{
    error_setg(errp, TGPU_ABSENT);
}

void qmp_tgpu_clear_injections(const char *id, Error **errp)
{
    error_setg(errp, TGPU_ABSENT);
}

void qmp_tgpu_set_thermal(TgpuSetThermal *arg, Error **errp)
{
    error_setg(errp, TGPU_ABSENT);
}

TgpuInfoList *qmp_query_tgpu(bool has_as_plan, bool as_plan, Error **errp)
{
    return NULL;
}

void hmp_info_tgpu(Monitor *mon, const QDict *qdict)
{
    monitor_printf(mon, "%s\n", TGPU_ABSENT);
}

void hmp_tgpu_inject(Monitor *mon, const QDict *qdict)
{
    monitor_printf(mon, "%s\n", TGPU_ABSENT);
}
