/* SPDX-License-Identifier: GPL-2.0-only OR MIT */
/* Copyright (c) 2026 The tgpu authors */

#ifndef __TGPU_GEM_H__
#define __TGPU_GEM_H__

#include <linux/list.h>
#include <linux/mm_types.h>

#include <drm/drm_gem.h>

struct dma_buf_attachment;
struct drm_device;
struct drm_file;
struct drm_printer;
struct sg_table;
struct vm_fault;
struct tgpu_device;

/**
 * struct tgpu_bo - a buffer object in VRAM
 * @base: the GEM object
 * @blocks: its VRAM, buddy blocks linked by their @link, in object order;
 *	not necessarily contiguous, fixed for the object's lifetime
 */
struct tgpu_bo {
	struct drm_gem_object base;
	struct list_head blocks;
};

static inline struct tgpu_bo *to_tgpu_bo(struct drm_gem_object *obj)
{
	return container_of(obj, struct tgpu_bo, base);
}

struct drm_gem_object *tgpu_gem_create_object(struct drm_device *ddev,
					      size_t size);
struct drm_gem_object *
tgpu_gem_prime_import_sg_table(struct drm_device *ddev,
			       struct dma_buf_attachment *attach,
			       struct sg_table *sgt);
void tgpu_gem_unplug(struct tgpu_device *tdev);
bool tgpu_gem_is_sysmem(const struct drm_gem_object *obj);
vm_fault_t tgpu_fault_unplugged(struct drm_device *ddev, struct vm_fault *vmf);
struct tgpu_bo *tgpu_bo_create_contiguous(struct tgpu_device *tdev, u64 size,
					  u64 *addr);

int tgpu_ioctl_gem_create(struct drm_device *ddev, void *data,
			  struct drm_file *file);
int tgpu_ioctl_gem_mmap_offset(struct drm_device *ddev, void *data,
			       struct drm_file *file);
void tgpu_gem_show_fdinfo(struct drm_printer *p, struct drm_file *file);

#endif /* __TGPU_GEM_H__ */
