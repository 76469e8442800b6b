// SPDX-License-Identifier: GPL-2.0-only OR MIT
/* Copyright (c) 2026 The tgpu authors */

#include <linux/dma-buf.h>
#include <linux/dma-mapping.h>
#include <linux/dma-resv.h>
#include <linux/gpu_buddy.h>
#include <linux/idr.h>
#include <linux/minmax.h>
#include <linux/mm.h>
#include <linux/pfn.h>
#include <linux/scatterlist.h>
#include <linux/slab.h>

#include <drm/drm_drv.h>
#include <drm/drm_file.h>
#include <drm/drm_gem.h>
#include <drm/drm_gem_shmem_helper.h>
#include <drm/drm_managed.h>
#include <drm/drm_print.h>
#include <drm/drm_vma_manager.h>
#include <drm/tgpu_drm.h>

#include "tgpu_device.h"
#include "tgpu_ecc.h"
#include "tgpu_gem.h"
#include "tgpu_vram.h"

/* Pages mapped ahead of the faulting one, within its block, as TTM does. */
#define TGPU_BO_FAULT_AROUND	16

static void tgpu_bo_free(struct drm_gem_object *obj)
{
	struct tgpu_device *tdev = to_tgpu_device(obj->dev);
	struct tgpu_bo *bo = to_tgpu_bo(obj);

	tgpu_vram_free(tdev, &bo->blocks);
	drm_gem_object_release(obj);
	kfree(bo);
}

/*
 * CPU faults map BAR1 pages.  The object's blocks need not be contiguous,
 * so find the one that holds the faulting page, then map it and a few
 * pages after it that lie in the same block.
 */
static void tgpu_bo_free_dummy(struct drm_device *ddev, void *page)
{
	__free_page(page);
}

/**
 * tgpu_fault_unplugged() - a CPU fault on a BAR mapping after unplug
 * @ddev: the DRM device
 * @vmf: the fault
 *
 * After unplug the BARs are no longer ours.  Rather than SIGBUS, which
 * would kill a process for touching a mapping it made while the device
 * was there, the whole mapping gets a zeroed page of its own (as TTM
 * does): the process carries on until its next ioctl answers -ENODEV.
 * One page per mapping, so nothing written there reaches anyone else.
 *
 * Return: VM_FAULT_NOPAGE, or the error.
 */
vm_fault_t tgpu_fault_unplugged(struct drm_device *ddev, struct vm_fault *vmf)
{
	struct vm_area_struct *vma = vmf->vma;
	unsigned long addr, pfn;
	struct page *page;
	vm_fault_t ret;

	page = alloc_page(GFP_KERNEL | __GFP_ZERO);
	if (!page)
		return VM_FAULT_OOM;
	if (drmm_add_action_or_reset(ddev, tgpu_bo_free_dummy, page))
		return VM_FAULT_OOM;
	pfn = page_to_pfn(page);
	for (addr = vma->vm_start; addr < vma->vm_end; addr += PAGE_SIZE) {
		ret = vmf_insert_pfn_prot(vma, addr, pfn, vma->vm_page_prot);
		if (ret & VM_FAULT_ERROR)
			return ret;
	}
	return VM_FAULT_NOPAGE;
}

static vm_fault_t tgpu_bo_fault(struct vm_fault *vmf)
{
	struct vm_area_struct *vma = vmf->vma;
	struct drm_gem_object *obj = vma->vm_private_data;
	struct tgpu_device *tdev = to_tgpu_device(obj->dev);
	struct tgpu_bo *bo = to_tgpu_bo(obj);
	struct gpu_buddy_block *block;
	unsigned long addr = vmf->address & PAGE_MASK;
	unsigned long pfn, i, n;
	vm_fault_t ret = VM_FAULT_SIGBUS, r;
	u64 offset, vram, bsize = 0;
	int idx, bars;

	offset = ((u64)(addr - vma->vm_start) >> PAGE_SHIFT) + vma->vm_pgoff -
		 drm_vma_node_start(&obj->vma_node);
	offset <<= PAGE_SHIFT;

	if (!drm_dev_enter(obj->dev, &idx))
		return tgpu_fault_unplugged(obj->dev, vmf);
	/* not while a device reset has BAR1 off: it zapped the mapping */
	if (tgpu_bars_enter_killable(tdev, &bars)) {
		drm_dev_exit(idx);
		return VM_FAULT_NOPAGE;	/* killed: the access never resumes */
	}

	list_for_each_entry(block, &bo->blocks, link) {
		bsize = gpu_buddy_block_size(&tdev->vram.mm, block);
		if (offset < bsize)
			break;
		offset -= bsize;
	}
	if (list_entry_is_head(block, &bo->blocks, link))
		goto out;

	vram = gpu_buddy_block_offset(block) + offset;
	pfn = PHYS_PFN(tdev->vram_bar.start + vram);
	n = min3((unsigned long)((bsize - offset) >> PAGE_SHIFT),
		 (vma->vm_end - addr) >> PAGE_SHIFT,
		 (unsigned long)TGPU_BO_FAULT_AROUND);
	for (i = 0; i < n; i++) {
		/*
		 * A page with an uncorrectable ECC error: SIGBUS for
		 * whoever touches it (the faulting page), and no
		 * fault-around onto it.  The ECC work zaps mappings after
		 * it publishes the page and waits for this section
		 * (SRCU), so a fault cannot map it after the zap.
		 */
		if (tgpu_ecc_page_poisoned(tdev, vram + i * PAGE_SIZE))
			break;
		r = vmf_insert_pfn_prot(vma, addr + i * PAGE_SIZE, pfn + i,
					vma->vm_page_prot);
		/* Only the faulting page must succeed; the rest is a bonus. */
		if (!i)
			ret = r;
		if (r & VM_FAULT_ERROR)
			break;
	}

out:
	tgpu_bars_exit(tdev, bars);
	drm_dev_exit(idx);
	return ret;
}

static const struct vm_operations_struct tgpu_bo_vm_ops = {
	.fault = tgpu_bo_fault,
	.open = drm_gem_vm_open,
	.close = drm_gem_vm_close,
};

static int tgpu_bo_mmap(struct drm_gem_object *obj, struct vm_area_struct *vma)
{
	/* A private writable PFN mapping cannot copy on write. */
	if (is_cow_mapping(vma->vm_flags))
		return -EINVAL;

	vm_flags_set(vma, VM_PFNMAP | VM_IO | VM_DONTEXPAND | VM_DONTDUMP);
	vma->vm_page_prot =
		pgprot_decrypted(pgprot_writecombine(vm_get_page_prot(vma->vm_flags)));
	return 0;
}

/*
 * A VRAM object can be shared through PRIME with another file of this
 * device (the importer gets the same object), but another device cannot
 * map it: that would be peer-to-peer DMA into BAR1, which tgpu does not
 * offer.  Attaching works; mapping fails here.
 */
static struct sg_table *tgpu_bo_get_sg_table(struct drm_gem_object *obj)
{
	return ERR_PTR(-EOPNOTSUPP);
}

static const struct drm_gem_object_funcs tgpu_bo_funcs = {
	.free = tgpu_bo_free,
	.get_sg_table = tgpu_bo_get_sg_table,
	.mmap = tgpu_bo_mmap,
	.vm_ops = &tgpu_bo_vm_ops,
};

static struct tgpu_bo *tgpu_bo_create(struct tgpu_device *tdev, u64 size,
				      u64 min_block)
{
	struct tgpu_bo *bo;
	int ret;

	bo = kzalloc(sizeof(*bo), GFP_KERNEL);
	if (!bo)
		return ERR_PTR(-ENOMEM);

	INIT_LIST_HEAD(&bo->blocks);
	bo->base.funcs = &tgpu_bo_funcs;
	drm_gem_private_object_init(&tdev->base, &bo->base, size);

	/* From here on the last put frees the blocks and the object. */
	ret = tgpu_vram_alloc(tdev, size, min_block, tdev->vram.visible, 0,
			      &bo->blocks);
	if (!ret)
		ret = tgpu_vram_clear(tdev, &bo->blocks);
	if (ret) {
		drm_gem_object_put(&bo->base);
		return ERR_PTR(ret);
	}
	return bo;
}

/**
 * tgpu_bo_create_contiguous() - a VRAM object in one block, for the driver
 * @tdev: the device
 * @size: its size, a power of two, at least a page
 * @addr: its VRAM address (out)
 *
 * A user-submit queue's ring: the driver maps it into the GPU VM as one
 * piece, the process maps it through its mmap offset.
 *
 * Return: the object, or an ERR_PTR() on failure.
 */
struct tgpu_bo *tgpu_bo_create_contiguous(struct tgpu_device *tdev, u64 size,
					  u64 *addr)
{
	struct tgpu_bo *bo = tgpu_bo_create(tdev, size, size);
	struct gpu_buddy_block *block;

	if (IS_ERR(bo))
		return bo;
	block = list_first_entry(&bo->blocks, struct gpu_buddy_block, link);
	*addr = gpu_buddy_block_offset(block);
	return bo;
}

/*
 * A system-memory object, made or imported: the shmem helpers' object
 * (first: they free it), on its device's list while its pages are mapped
 * for the device, so that an unbind can unmap them (tgpu_gem_unplug()).
 */
struct tgpu_sysmem_bo {
	struct drm_gem_shmem_object shmem;
	struct list_head link;
};

static struct tgpu_sysmem_bo *to_sysmem_bo(struct drm_gem_object *obj)
{
	return container_of(to_drm_gem_shmem_obj(obj), struct tgpu_sysmem_bo,
			    shmem);
}

static void tgpu_sysmem_listed(struct drm_gem_object *obj)
{
	struct tgpu_device *tdev = to_tgpu_device(obj->dev);

	mutex_lock(&tdev->sysmem_lock);
	list_add_tail(&to_sysmem_bo(obj)->link, &tdev->sysmem_bos);
	mutex_unlock(&tdev->sysmem_lock);
}

static void tgpu_sysmem_free(struct drm_gem_object *obj)
{
	struct tgpu_device *tdev = to_tgpu_device(obj->dev);

	mutex_lock(&tdev->sysmem_lock);
	list_del_init(&to_sysmem_bo(obj)->link);
	mutex_unlock(&tdev->sysmem_lock);
	drm_gem_shmem_object_free(obj);
}

/*
 * System-memory objects: drm_gem_shmem objects with the helpers' own
 * functions.  This table also tells them from VRAM objects.
 */
static const struct drm_gem_object_funcs tgpu_sysmem_funcs = {
	.free = tgpu_sysmem_free,
	.print_info = drm_gem_shmem_object_print_info,
	.pin = drm_gem_shmem_object_pin,
	.unpin = drm_gem_shmem_object_unpin,
	.get_sg_table = drm_gem_shmem_object_get_sg_table,
	.vmap = drm_gem_shmem_object_vmap,
	.vunmap = drm_gem_shmem_object_vunmap,
	.mmap = drm_gem_shmem_object_mmap,
	.vm_ops = &drm_gem_shmem_vm_ops,
};

/**
 * tgpu_gem_create_object() - &drm_driver.gem_create_object
 * @ddev: the DRM device
 * @size: the object's size
 *
 * Only the shmem helpers call this: the object they make is a
 * system-memory object with tgpu's functions.
 *
 * Return: the new object, or an ERR_PTR() on failure.
 */
struct drm_gem_object *tgpu_gem_create_object(struct drm_device *ddev,
					      size_t size)
{
	struct tgpu_sysmem_bo *bo;

	bo = kzalloc(sizeof(*bo), GFP_KERNEL);
	if (!bo)
		return ERR_PTR(-ENOMEM);
	/* listed once made: the helpers kfree() one they fail to make */
	INIT_LIST_HEAD(&bo->link);
	bo->shmem.base.funcs = &tgpu_sysmem_funcs;
	return &bo->shmem.base;
}

/**
 * tgpu_gem_prime_import_sg_table() - &drm_driver.gem_prime_import_sg_table
 * @ddev: the DRM device
 * @attach: the attachment to another driver's dma-buf
 * @sgt: its pages, mapped for this device
 *
 * Return: the new object, or an ERR_PTR() on failure.
 */
struct drm_gem_object *
tgpu_gem_prime_import_sg_table(struct drm_device *ddev,
			       struct dma_buf_attachment *attach,
			       struct sg_table *sgt)
{
	struct drm_gem_object *obj;

	obj = drm_gem_shmem_prime_import_sg_table(ddev, attach, sgt);
	if (!IS_ERR(obj))
		tgpu_sysmem_listed(obj);
	return obj;
}

/* Drop an object's DMA mapping for the device; its resv is held. */
static void tgpu_sysmem_unmap(struct tgpu_device *tdev,
			      struct drm_gem_shmem_object *shmem)
{
	dma_resv_assert_held(shmem->base.resv);
	if (shmem->sgt && shmem->base.import_attach) {
		dma_buf_unmap_attachment(shmem->base.import_attach, shmem->sgt,
					 DMA_BIDIRECTIONAL);
		shmem->sgt = NULL;
	} else if (shmem->sgt) {
		dma_unmap_sgtable(tdev->base.dev, shmem->sgt, DMA_BIDIRECTIONAL,
				  0);
		sg_free_table(shmem->sgt);
		kfree(shmem->sgt);
		shmem->sgt = NULL;
	}
}

/**
 * tgpu_gem_unplug() - unmap every system-memory object from the device
 * @tdev: the device, unbound, its channels stopped
 *
 * Objects outlive an unbind while files or dma-bufs hold them, but their
 * DMA mappings are the device's and must not (DMA_API_DEBUG: "device
 * driver has pending DMA allocations while released from device").  The
 * shmem helpers skip a table that is gone when the object is freed.  No
 * ioctl maps one again: they all fail once the device is unplugged.
 *
 * An object's last put can come with other objects' reservations held
 * (drm_exec unlocks and puts them one at a time), and its free takes
 * sysmem_lock.  So no reservation is waited for under sysmem_lock: a live
 * object is unmapped outside it, held by a reference.  A dying one (no
 * reference left) stays on the list until its free gets sysmem_lock, so
 * it is unmapped in place if its reservation is free, as it is unless an
 * exporter's object shares it; if not, its free, under way, unmaps it.
 *
 * Each object seen moves to a private list, so that a walk dropped for a
 * live one goes on where it left off: one pass over the objects, not one
 * per live object.  A free meanwhile unlinks its object from either list,
 * under sysmem_lock.
 */
void tgpu_gem_unplug(struct tgpu_device *tdev)
{
	struct drm_gem_shmem_object *shmem, *live;
	struct tgpu_sysmem_bo *bo;
	LIST_HEAD(seen);

	do {
		live = NULL;
		mutex_lock(&tdev->sysmem_lock);
		while ((bo = list_first_entry_or_null(&tdev->sysmem_bos,
						      struct tgpu_sysmem_bo,
						      link))) {
			list_move_tail(&bo->link, &seen);
			shmem = &bo->shmem;
			if (!READ_ONCE(shmem->sgt))
				continue;
			if (kref_get_unless_zero(&shmem->base.refcount)) {
				live = shmem;
				break;
			}
			if (dma_resv_trylock(shmem->base.resv)) {
				tgpu_sysmem_unmap(tdev, shmem);
				dma_resv_unlock(shmem->base.resv);
			}
		}
		if (!live)
			list_splice(&seen, &tdev->sysmem_bos);
		mutex_unlock(&tdev->sysmem_lock);
		if (live) {
			dma_resv_lock(live->base.resv, NULL);
			tgpu_sysmem_unmap(tdev, live);
			dma_resv_unlock(live->base.resv);
			drm_gem_object_put(&live->base);
		}
	} while (live);
}

/**
 * tgpu_gem_is_sysmem() - whether an object is in system memory
 * @obj: a tgpu GEM object
 *
 * Return: true for a system-memory (shmem) object, false for VRAM.
 */
bool tgpu_gem_is_sysmem(const struct drm_gem_object *obj)
{
	return obj->funcs == &tgpu_sysmem_funcs;
}

/*
 * A system-memory object: shmem pages (zeroed by shmem), cached CPU
 * mappings, DMA-mapped and pinned here for the object's whole life, so
 * VM_BIND only walks the table.
 */
static struct drm_gem_object *tgpu_sysmem_create(struct tgpu_device *tdev,
						 u64 size)
{
	struct drm_gem_shmem_object *shmem;
	struct sg_table *sgt;

	shmem = drm_gem_shmem_create(&tdev->base, size);
	if (IS_ERR(shmem))
		return ERR_CAST(shmem);

	sgt = drm_gem_shmem_get_pages_sgt(shmem);
	if (IS_ERR(sgt)) {
		drm_gem_object_put(&shmem->base);
		return ERR_CAST(sgt);
	}
	tgpu_sysmem_listed(&shmem->base);
	return &shmem->base;
}

/**
 * tgpu_ioctl_gem_create() - DRM_IOCTL_TGPU_GEM_CREATE
 * @ddev: the DRM device
 * @data: struct drm_tgpu_gem_create
 * @file: the DRM file that gets the handle
 *
 * Return: 0 on success, a negative errno otherwise (see the uAPI header).
 */
int tgpu_ioctl_gem_create(struct drm_device *ddev, void *data,
			  struct drm_file *file)
{
	struct tgpu_device *tdev = to_tgpu_device(ddev);
	struct drm_tgpu_gem_create *args = data;
	bool sysmem = args->flags & DRM_TGPU_GEM_CREATE_SYSMEM;
	struct drm_gem_object *obj;
	struct tgpu_bo *bo;
	u64 size;
	int idx, ret;

	if (args->flags & ~DRM_TGPU_GEM_CREATE_FLAGS)
		return -EINVAL;

	size = PAGE_ALIGN(args->size);
	if (!args->size || size < args->size)
		return -EINVAL;
	if (sysmem ? size >> PAGE_SHIFT > totalram_pages() :
		     size > tdev->vram.visible)
		return -E2BIG;

	if (!drm_dev_enter(ddev, &idx))
		return -ENODEV;
	if (sysmem) {
		obj = tgpu_sysmem_create(tdev, size);
	} else {
		bo = tgpu_bo_create(tdev, size, PAGE_SIZE);
		obj = IS_ERR(bo) ? ERR_CAST(bo) : &bo->base;
	}
	drm_dev_exit(idx);
	if (IS_ERR(obj)) {
		ret = PTR_ERR(obj);
		/* -ENOSPC says "out of VRAM" in this uAPI; shmem is memory. */
		return sysmem && ret == -ENOSPC ? -ENOMEM : ret;
	}

	ret = drm_gem_handle_create(file, obj, &args->handle);
	/* The handle, if any, holds the object now. */
	drm_gem_object_put(obj);
	if (ret)
		return ret;

	args->size = size;
	return 0;
}

/**
 * tgpu_ioctl_gem_mmap_offset() - DRM_IOCTL_TGPU_GEM_MMAP_OFFSET
 * @ddev: the DRM device
 * @data: struct drm_tgpu_gem_mmap_offset
 * @file: the DRM file that holds the handle
 *
 * Return: 0 on success, a negative errno otherwise (see the uAPI header).
 */
int tgpu_ioctl_gem_mmap_offset(struct drm_device *ddev, void *data,
			       struct drm_file *file)
{
	struct drm_tgpu_gem_mmap_offset *args = data;
	struct drm_gem_object *obj;
	int ret;

	if (args->pad)
		return -EINVAL;

	obj = drm_gem_object_lookup(file, args->handle);
	if (!obj)
		return -ENOENT;

	ret = drm_gem_create_mmap_offset(obj);
	if (!ret)
		args->offset = drm_vma_node_offset_addr(&obj->vma_node);

	drm_gem_object_put(obj);
	return ret;
}

/**
 * tgpu_gem_show_fdinfo() - the file's objects, for fdinfo
 * @p: the printer
 * @file: the DRM file
 *
 * The standard drm-{total,shared,active,resident}-<region> keys for the
 * regions "vram" and "system", counting the objects the file has a handle
 * to (as drm_show_memory_stats(), whose region name is fixed to
 * "memory").  VRAM objects live in VRAM from creation to free, and
 * system-memory objects are pinned from creation to free, so they are
 * all resident; fences are not tracked per object, so active stays 0.
 */
void tgpu_gem_show_fdinfo(struct drm_printer *p, struct drm_file *file)
{
	struct drm_memory_stats vram = {}, sys = {}, *stats;
	struct drm_gem_object *obj;
	int id;

	spin_lock(&file->table_lock);
	idr_for_each_entry(&file->object_idr, obj, id) {
		stats = tgpu_gem_is_sysmem(obj) ? &sys : &vram;
		if (drm_gem_object_is_shared_for_memory_stats(obj))
			stats->shared += obj->size;
		else
			stats->private += obj->size;
		stats->resident += obj->size;
	}
	spin_unlock(&file->table_lock);

	drm_print_memory_stats(p, &vram, DRM_GEM_OBJECT_RESIDENT, "vram");
	drm_print_memory_stats(p, &sys, DRM_GEM_OBJECT_RESIDENT, "system");
}
