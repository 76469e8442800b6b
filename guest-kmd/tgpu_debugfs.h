/* SPDX-License-Identifier: GPL-2.0-only OR MIT */
/* Copyright (c) 2026 The tgpu authors */

#ifndef __TGPU_DEBUGFS_H__
#define __TGPU_DEBUGFS_H__

struct tgpu_device;

#if IS_ENABLED(CONFIG_DEBUG_FS)
void tgpu_debugfs_init(struct tgpu_device *tdev);
#else
static inline void tgpu_debugfs_init(struct tgpu_device *tdev)
{
}
#endif

#endif /* __TGPU_DEBUGFS_H__ */
