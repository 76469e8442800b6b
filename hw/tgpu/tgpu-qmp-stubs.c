/*
 * tgpu's QMP commands when QEMU is built without the device.
 *
 * Copyright (c) 2026 The tgpu authors
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */

#include "qemu/osdep.h"
#include "qapi/error.h"
#include "qapi/qapi-commands-tgpu.h"

TgpuInjection *qmp_tgpu_inject_ecc(const char *id, uint64_t address,
                                  bool has_type, TgpuEccErrorType type,
                                  bool has_bits, uint64_t bits,
                                  bool has_mode, TgpuInjectionMode mode,
                                  Error **errp)
{
    error_setg(errp, "this QEMU is built without the tgpu device");
    return NULL;
}

void qmp_tgpu_clear_injections(const char *id, Error **errp)
{
    error_setg(errp, "this QEMU is built without the tgpu device");
}

void qmp_tgpu_set_thermal(const char *id, bool has_ambient, double ambient,
                          bool has_sensor, double sensor,
                          TgpuThermalRamp *ramp, bool has_release,
                          bool release, Error **errp)
{
    error_setg(errp, "this QEMU is built without the tgpu device");
}

TgpuInfoList *qmp_query_tgpu(Error **errp)
{
    return NULL;
}
