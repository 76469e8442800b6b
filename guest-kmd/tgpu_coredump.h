/* SPDX-License-Identifier: GPL-2.0-only OR MIT */
/* Copyright (c) 2026 The tgpu authors */

#ifndef __TGPU_COREDUMP_H__
#define __TGPU_COREDUMP_H__

struct tgpu_device;
struct tgpu_job;
struct tgpu_queue;

int tgpu_coredump_init(struct tgpu_device *tdev);
void tgpu_coredump_capture(struct tgpu_device *tdev, struct tgpu_queue *q,
			   struct tgpu_job *job, const char *reason);

#endif /* __TGPU_COREDUMP_H__ */
