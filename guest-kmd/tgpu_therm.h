/* SPDX-License-Identifier: GPL-2.0-only OR MIT */
/* Copyright (c) 2026 The tgpu authors */

#ifndef __TGPU_THERM_H__
#define __TGPU_THERM_H__

struct tgpu_device;

int tgpu_therm_init(struct tgpu_device *tdev);

#endif /* __TGPU_THERM_H__ */
