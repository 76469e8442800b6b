/* SPDX-License-Identifier: GPL-2.0-only OR MIT */
/* Copyright (c) 2026 The tgpu authors */

#ifndef __TGPU_FILE_H__
#define __TGPU_FILE_H__

#include <linux/rwsem.h>
#include <linux/xarray.h>

#include <drm/drm_file.h>

#include "tgpu_vm.h"

/* Engine classes of DRM fdinfo's drm-engine-<class>: compute, copy */
#define TGPU_FILE_ENGINE_COMPUTE	0
#define TGPU_FILE_ENGINE_COPY		1
#define TGPU_FILE_ENGINES		2

/**
 * struct tgpu_file - what one open file of the render node owns
 * @vm: its GPU address space
 * @queues: its queues (struct tgpu_queue), by ID
 * @queues_lock: held for reading while a queue is used by an ioctl, for
 *	writing to take one out of @queues
 * @reset_status: DRM_TGPU_RESET_*: guilty once its work hung (then every
 *	submit fails with -ECANCELED), innocent once a reset took its work
 *	down (READ_ONCE/WRITE_ONCE: the recovery sets it)
 * @resets_at_open: &tgpu_reset.count when the file was opened
 * @vram_lost_at_open: &tgpu_reset.vram_lost then
 * @missed_irqs: fences of this file a timeout found done, their interrupt
 *	lost (fdinfo: tgpu-missed-irqs)
 * @busy_ns: per engine class (TGPU_FILE_ENGINE_*), the time its jobs were
 *	on the hardware: from run_job, or the end of the queue's previous
 *	job, to the fence (fdinfo drm-engine-*)
 * @cycles: the compute engine's cycles: its busy time at the clock the
 *	driver asked for (fdinfo drm-cycles-compute)
 */
struct tgpu_file {
	struct tgpu_vm vm;
	struct xarray queues;
	struct rw_semaphore queues_lock;
	u32 reset_status;
	int resets_at_open;
	int vram_lost_at_open;
	atomic64_t missed_irqs;
	atomic64_t busy_ns[TGPU_FILE_ENGINES];
	atomic64_t cycles;
};

static inline struct tgpu_file *to_tgpu_file(struct drm_file *file)
{
	return file->driver_priv;
}

/* The file whose VM @vm is. */
static inline struct tgpu_file *tgpu_vm_file(struct tgpu_vm *vm)
{
	return container_of(vm, struct tgpu_file, vm);
}

#endif /* __TGPU_FILE_H__ */
