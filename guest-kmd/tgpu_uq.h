/* SPDX-License-Identifier: GPL-2.0-only OR MIT */
/* Copyright (c) 2026 The tgpu authors */

/*
 * User-mode submission (tgpu_uq.c): a user-submit queue's ring object,
 * the doorbell mapping, DRM_IOCTL_TGPU_WAIT, DRM_IOCTL_TGPU_USER_FENCE
 * and the hang check of channels the driver does not feed.
 */
#ifndef __TGPU_UQ_H__
#define __TGPU_UQ_H__

#include <linux/types.h>

struct drm_device;
struct drm_file;
struct drm_tgpu_queue_create;
struct file;
struct tgpu_queue;
struct vm_area_struct;

int tgpu_uq_init(struct tgpu_queue *q, struct drm_file *file, u64 *phys);
void tgpu_uq_args(struct tgpu_queue *q, struct drm_tgpu_queue_create *args);
void tgpu_uq_start(struct tgpu_queue *q);
void tgpu_uq_stop(struct tgpu_queue *q);
void tgpu_uq_forget(struct tgpu_queue *q);
void tgpu_uq_fini(struct tgpu_queue *q, struct drm_file *file);
void tgpu_uq_signal(struct tgpu_queue *q, int error);

int tgpu_mmap(struct file *filp, struct vm_area_struct *vma);

int tgpu_ioctl_wait(struct drm_device *ddev, void *data,
		    struct drm_file *file);
int tgpu_ioctl_user_fence(struct drm_device *ddev, void *data,
			  struct drm_file *file);

#endif /* __TGPU_UQ_H__ */
