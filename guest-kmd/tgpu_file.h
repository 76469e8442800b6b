/* SPDX-License-Identifier: GPL-2.0-only OR MIT */
/* Copyright (c) 2026 The tgpu authors */

#ifndef __TGPU_FILE_H__
#define __TGPU_FILE_H__

#include <linux/rwsem.h>
#include <linux/xarray.h>

#include <drm/drm_file.h>

#include "tgpu_vm.h"

/**
 * struct tgpu_file - what one open file of the render node owns
 * @vm: its GPU address space
 * @queues: its queues (struct tgpu_queue), by ID
 * @queues_lock: held for reading while a queue is used by an ioctl, for
 *	writing to take one out of @queues
 */
struct tgpu_file {
	struct tgpu_vm vm;
	struct xarray queues;
	struct rw_semaphore queues_lock;
};

static inline struct tgpu_file *to_tgpu_file(struct drm_file *file)
{
	return file->driver_priv;
}

#endif /* __TGPU_FILE_H__ */
