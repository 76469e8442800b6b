// SPDX-License-Identifier: GPL-2.0-only OR MIT
/* Copyright (c) 2026 The tgpu authors */

#include <linux/bitmap.h>
#include <linux/dma-resv.h>
#include <linux/gpu_buddy.h>
#include <linux/idr.h>
#include <linux/io.h>
#include <linux/highmem.h>
#include <linux/scatterlist.h>
#include <linux/seq_file.h>
#include <linux/slab.h>

#include <drm/drm_drv.h>
#include <drm/drm_file.h>
#include <drm/drm_gem.h>
#include <drm/drm_gem_shmem_helper.h>
#include <drm/drm_gpuvm.h>
#include <drm/drm_print.h>
#include <drm/tgpu_drm.h>

#include <tgpu/channel.h>
#include <tgpu/mmu.h>

#include "tgpu_device.h"
#include "tgpu_file.h"
#include "tgpu_gem.h"
#include "tgpu_pt.h"
#include "tgpu_queue.h"
#include "tgpu_vm.h"

#define TGPU_ASID_MIN	1
#define TGPU_ASID_MAX	65535

static_assert(DRM_TGPU_VA_LIMIT == TGPU_VA_LIMIT);
static_assert(DRM_TGPU_VM_PAGE_SIZE == TGPU_PAGE_SIZE);

/* &drm_gpuva.flags: the mapping was made with DRM_TGPU_VM_BIND_READ_ONLY */
#define TGPU_VA_READ_ONLY	DRM_GPUVA_USERBITS

/**
 * struct tgpu_mapping - a user mapping made by VM_BIND
 * @base: its range in &tgpu_vm.base, the object and the offset in it;
 *	while in the tree it is linked to the object's &drm_gpuvm_bo for
 *	this VM, which holds the object
 * @deferred: in &tgpu_vm.deferred once unmapped, when the wait for the
 *	file's work was interrupted; an unmapped mapping holds a reference
 *	to its object of its own (tgpu_mapping_unlink())
 */
struct tgpu_mapping {
	struct drm_gpuva base;
	struct list_head deferred;
};

static struct tgpu_mapping *to_tgpu_mapping(struct drm_gpuva *va)
{
	return container_of(va, struct tgpu_mapping, base);
}

/* The VM is part of struct tgpu_file, which postclose frees. */
static void tgpu_gpuvm_free(struct drm_gpuvm *gpuvm)
{
}

/* Binding is synchronous and never splits a mapping: no sm_map steps. */
static const struct drm_gpuvm_ops tgpu_gpuvm_ops = {
	.vm_free = tgpu_gpuvm_free,
};

/**
 * tgpu_vm_init() - set up an empty VM with its own ASID
 * @tdev: the device
 * @vm: the VM, zeroed
 *
 * The page tables come with the first mapping.
 *
 * Return: 0 on success, -EBUSY when every ASID is in use, -ENOMEM.
 */
int tgpu_vm_init(struct tgpu_device *tdev, struct tgpu_vm *vm)
{
	struct drm_gem_object *r_obj;
	int asid;

	asid = ida_alloc_range(&tdev->asid_ida, TGPU_ASID_MIN, TGPU_ASID_MAX,
			       GFP_KERNEL);
	if (asid < 0)
		return asid == -ENOSPC ? -EBUSY : asid;

	/*
	 * The VM's own dma_resv only collects the fences of the file's jobs
	 * (tgpu_ioctl_submit()); vm->lock protects the tree, each object's
	 * resv its list of VMs.  No object shares this resv, so every
	 * mapped object is one of drm_gpuvm's external objects.
	 */
	r_obj = drm_gpuvm_resv_object_alloc(&tdev->base);
	if (!r_obj) {
		ida_free(&tdev->asid_ida, asid);
		return -ENOMEM;
	}
	/* The kernel's range is drm_gpuvm's reserved node: VM_BIND never
	 * gets there.
	 */
	drm_gpuvm_init(&vm->base, "tgpu", 0, &tdev->base, r_obj,
		       0, TGPU_VA_LIMIT, DRM_TGPU_VA_KERNEL_START,
		       TGPU_VA_LIMIT - DRM_TGPU_VA_KERNEL_START,
		       &tgpu_gpuvm_ops);
	drm_gem_object_put(r_obj);	/* the VM holds it */

	vm->tdev = tdev;
	vm->asid = asid;
	mutex_init(&vm->lock);
	INIT_LIST_HEAD(&vm->deferred);
	vm->pd1 = NULL;
	return 0;
}

/**
 * tgpu_vm_pdb() - the VRAM address of the VM's root table
 * @vm: the VM
 * @pdb: the address (out)
 *
 * Allocates the root table if the VM has none yet.
 *
 * Return: 0 on success, a negative errno otherwise.
 */
int tgpu_vm_pdb(struct tgpu_vm *vm, u64 *pdb)
{
	int ret;

	mutex_lock(&vm->lock);
	ret = tgpu_pt_tree_root(vm);
	if (!ret)
		*pdb = vm->pd1->mem.addr;
	mutex_unlock(&vm->lock);
	return ret;
}

/**
 * tgpu_vm_map_kernel() - map driver memory into the kernel part of a VM
 * @vm: the VM
 * @va: where, page aligned, at or above DRM_TGPU_VA_KERNEL_START
 * @phys: VRAM address of a contiguous run, page aligned
 * @size: bytes, page aligned
 * @pte_flags: TGPU_PTE_PRIV and/or TGPU_PTE_READ_ONLY
 *
 * Return: 0 on success, a negative errno otherwise (nothing is mapped).
 */
int tgpu_vm_map_kernel(struct tgpu_vm *vm, u64 va, u64 phys, u64 size,
		       u64 pte_flags)
{
	struct tgpu_pt_update u;
	int ret;

	mutex_lock(&vm->lock);
	tgpu_pt_update_begin(&u, vm->tdev);
	ret = tgpu_pt_tree_root(vm);
	if (!ret)
		ret = tgpu_pt_tree_map(vm, &u, va, phys, size, pte_flags);
	if (ret) {
		tgpu_pt_tree_clear(vm, &u, va, size);
		tgpu_pt_update_invalidate(&u, vm->asid, va, size);
	}
	tgpu_pt_update_commit(&u);
	mutex_unlock(&vm->lock);
	return ret;
}

/**
 * tgpu_vm_unmap_kernel() - undo tgpu_vm_map_kernel()
 * @vm: the VM
 * @va: the mapping's address
 * @size: its size
 *
 * The TLB is invalidated for the range before this returns.
 */
void tgpu_vm_unmap_kernel(struct tgpu_vm *vm, u64 va, u64 size)
{
	struct tgpu_pt_update u;

	mutex_lock(&vm->lock);
	tgpu_pt_update_begin(&u, vm->tdev);
	tgpu_pt_tree_clear(vm, &u, va, size);
	tgpu_pt_update_invalidate(&u, vm->asid, va, size);
	tgpu_pt_update_commit(&u);
	mutex_unlock(&vm->lock);
}

/* Map @size bytes of @bo from @offset at @va, block by block, into @u. */
static int tgpu_vm_map_bo(struct tgpu_vm *vm, struct tgpu_pt_update *u,
			  struct tgpu_bo *bo, u64 offset, u64 va, u64 size,
			  u64 flags)
{
	struct gpu_buddy *mm = &vm->tdev->vram.mm;
	struct gpu_buddy_block *block;
	u64 bsize, len;
	int ret;

	list_for_each_entry(block, &bo->blocks, link) {
		if (!size)
			break;
		bsize = gpu_buddy_block_size(mm, block);
		if (offset >= bsize) {
			offset -= bsize;
			continue;
		}
		len = min(bsize - offset, size);
		ret = tgpu_pt_tree_map(vm, u, va,
				       gpu_buddy_block_offset(block) + offset,
				       len, flags);
		if (ret)
			return ret;
		va += len;
		size -= len;
		offset = 0;
	}
	return 0;
}

/*
 * Map @size bytes of a system-memory object from @offset at @va: its DMA
 * segments, 4 KiB PTEs of the system-memory aperture.  A segment can be
 * longer than a page (an IOMMU merges them); tgpu_pt_tree_map() splits it.
 * The table was made and the pages pinned when the object was created.
 */
static int tgpu_vm_map_sysmem(struct tgpu_vm *vm, struct tgpu_pt_update *u,
			      struct drm_gem_object *obj, u64 offset, u64 va,
			      u64 size, u64 flags)
{
	struct sg_table *sgt = to_drm_gem_shmem_obj(obj)->sgt;
	struct scatterlist *sg;
	dma_addr_t addr;
	u64 len, run;
	unsigned int i;
	int ret;

	if (drm_WARN_ON_ONCE(obj->dev, !sgt))
		return -EINVAL;

	for_each_sgtable_dma_sg(sgt, sg, i) {
		if (!size)
			break;
		addr = sg_dma_address(sg);
		len = sg_dma_len(sg);
		/*
		 * The PTE takes a 4 KiB aligned address below 2^52.  Our own
		 * objects always are; another driver's dma-buf may not be,
		 * and that is the user's input, not a driver bug: no WARN.
		 */
		if (!IS_ALIGNED(addr | len, TGPU_PAGE_SIZE) ||
		    (addr + len - 1) & ~(TGPU_PTE_ADDR_MASK | (TGPU_PAGE_SIZE - 1)))
			return -EINVAL;
		if (offset >= len) {
			offset -= len;
			continue;
		}
		run = min(len - offset, size);
		ret = tgpu_pt_tree_map(vm, u, va, addr + offset, run,
				       flags | TGPU_PTE_SYSMEM);
		if (ret)
			return ret;
		va += run;
		size -= run;
		offset = 0;
	}
	/* The range is in the object; an imported table may be short. */
	if (size)
		return -EINVAL;
	return 0;
}

/*
 * Link a new mapping to its object through @vm_bo, allocated beforehand
 * so that nothing fails once the entries are written; an existing one
 * is used instead when the VM maps the object already.  The caller
 * holds a reference to the object.
 */
static void tgpu_mapping_link(struct tgpu_mapping *map,
			      struct drm_gpuvm_bo *vm_bo)
{
	struct drm_gem_object *obj = map->base.gem.obj;

	dma_resv_lock(obj->resv, NULL);
	vm_bo = drm_gpuvm_bo_obtain_prealloc(vm_bo);
	/* The file's jobs add their fences to it from now on. */
	drm_gpuvm_bo_extobj_add(vm_bo);
	drm_gpuva_link(&map->base, vm_bo);
	drm_gpuvm_bo_put(vm_bo);	/* the mapping holds its own */
	dma_resv_unlock(obj->resv);
}

/*
 * Unlink a mapping taken out of the tree from its object.  The GPU may
 * still use the pages until the file's work is done: the mapping keeps
 * a reference to the object until tgpu_mapping_free().
 */
static void tgpu_mapping_unlink(struct tgpu_mapping *map)
{
	struct drm_gem_object *obj = map->base.gem.obj;

	drm_gem_object_get(obj);
	dma_resv_lock(obj->resv, NULL);
	drm_gpuva_unlink(&map->base);
	dma_resv_unlock(obj->resv);
}

static void tgpu_mapping_free(struct tgpu_mapping *map)
{
	drm_gem_object_put(map->base.gem.obj);
	kfree(map);
}

/* Drop a &drm_gpuvm_bo never linked; the caller holds the object. */
static void tgpu_vm_bo_put(struct drm_gpuvm_bo *vm_bo)
{
	struct drm_gem_object *obj = vm_bo->obj;

	dma_resv_lock(obj->resv, NULL);
	drm_gpuvm_bo_put(vm_bo);
	dma_resv_unlock(obj->resv);
}

/**
 * tgpu_ioctl_vm_bind() - DRM_IOCTL_TGPU_VM_BIND
 * @ddev: the DRM device
 * @data: struct drm_tgpu_vm_bind
 * @file: the DRM file whose VM gets the mapping
 *
 * Return: 0 on success, a negative errno otherwise (see the uAPI header).
 */
int tgpu_ioctl_vm_bind(struct drm_device *ddev, void *data,
		       struct drm_file *file)
{
	struct tgpu_vm *vm = &to_tgpu_file(file)->vm;
	struct drm_tgpu_vm_bind *args = data;
	struct drm_gpuvm_bo *vm_bo;
	struct tgpu_pt_update u;
	struct tgpu_mapping *map;
	struct drm_gem_object *obj;
	u64 flags = 0;
	int idx, ret;

	if (args->pad || args->pad2 || (args->flags & ~DRM_TGPU_VM_BIND_FLAGS))
		return -EINVAL;
	if (!args->size || !IS_ALIGNED(args->size | args->va | args->bo_offset,
				       TGPU_PAGE_SIZE))
		return -EINVAL;
	if (args->va >= DRM_TGPU_VA_KERNEL_START ||
	    args->size > DRM_TGPU_VA_KERNEL_START - args->va)
		return -EINVAL;
	if (args->flags & DRM_TGPU_VM_BIND_READ_ONLY)
		flags |= TGPU_PTE_READ_ONLY;

	obj = drm_gem_object_lookup(file, args->handle);
	if (!obj)
		return -ENOENT;
	if (args->bo_offset > obj->size ||
	    args->size > obj->size - args->bo_offset) {
		ret = -EINVAL;
		goto err_put;
	}

	map = kzalloc(sizeof(*map), GFP_KERNEL);
	if (!map) {
		ret = -ENOMEM;
		goto err_put;
	}
	drm_gpuva_init(&map->base, args->va, args->size, obj, args->bo_offset);
	if (args->flags & DRM_TGPU_VM_BIND_READ_ONLY)
		map->base.flags |= TGPU_VA_READ_ONLY;
	vm_bo = drm_gpuvm_bo_create(&vm->base, obj);
	if (!vm_bo) {
		ret = -ENOMEM;
		goto err_free;
	}

	if (!drm_dev_enter(ddev, &idx)) {
		ret = -ENODEV;
		goto err_vm_bo;
	}
	mutex_lock(&vm->lock);
	/*
	 * An overlap is an error, not a remap (hence no drm_gpuvm_sm_map()):
	 * drm_gpuva_insert() says -EEXIST.
	 */
	ret = drm_gpuva_insert(&vm->base, &map->base);
	if (ret)
		goto err_unlock;
	tgpu_pt_update_begin(&u, vm->tdev);
	ret = tgpu_pt_tree_root(vm);
	if (!ret && tgpu_gem_is_sysmem(obj))
		ret = tgpu_vm_map_sysmem(vm, &u, obj, args->bo_offset,
					 args->va, args->size, flags);
	else if (!ret)
		ret = tgpu_vm_map_bo(vm, &u, to_tgpu_bo(obj), args->bo_offset,
				     args->va, args->size, flags);
	if (ret) {
		tgpu_pt_tree_clear(vm, &u, args->va, args->size);
		tgpu_pt_update_invalidate(&u, vm->asid, args->va, args->size);
	}
	/* The entries are in VRAM when this returns: the bind is done. */
	tgpu_pt_update_commit(&u);
	if (ret) {
		drm_gpuva_remove(&map->base);
		goto err_unlock;
	}
	tgpu_mapping_link(map, vm_bo);
	mutex_unlock(&vm->lock);
	drm_dev_exit(idx);
	/* The mapping holds the object through its &drm_gpuvm_bo. */
	drm_gem_object_put(obj);
	return 0;

err_unlock:
	mutex_unlock(&vm->lock);
	drm_dev_exit(idx);
err_vm_bo:
	tgpu_vm_bo_put(vm_bo);
err_free:
	kfree(map);
err_put:
	drm_gem_object_put(obj);
	return ret;
}

/*
 * Unmap, invalidate and take the mapping out of the tree and off its
 * object.  With vm->lock held.  Once the device is gone there is nothing
 * to unmap: VRAM is no longer ours.
 */
static void tgpu_vm_unmap_locked(struct tgpu_vm *vm, struct tgpu_mapping *map)
{
	struct drm_gpuva *va = &map->base;
	struct tgpu_pt_update u;
	int idx;

	if (drm_dev_enter(&vm->tdev->base, &idx)) {
		tgpu_pt_update_begin(&u, vm->tdev);
		tgpu_pt_tree_clear(vm, &u, va->va.addr, va->va.range);
		tgpu_pt_update_invalidate(&u, vm->asid, va->va.addr,
					  va->va.range);
		tgpu_pt_update_commit(&u);
		drm_dev_exit(idx);
	}
	drm_gpuva_remove(va);
	tgpu_mapping_unlink(map);
}

/**
 * tgpu_ioctl_vm_unbind() - DRM_IOCTL_TGPU_VM_UNBIND
 * @ddev: the DRM device
 * @data: struct drm_tgpu_vm_unbind
 * @file: the DRM file whose VM has the mapping
 *
 * Return: 0 on success, a negative errno otherwise (see the uAPI header).
 */
int tgpu_ioctl_vm_unbind(struct drm_device *ddev, void *data,
			 struct drm_file *file)
{
	struct tgpu_file *tfile = to_tgpu_file(file);
	struct tgpu_vm *vm = &tfile->vm;
	struct drm_tgpu_vm_unbind *args = data;
	struct tgpu_mapping *map = NULL;
	struct drm_gpuva *va;

	/* Also keeps drm_gpuva_find() off the kernel's node. */
	if (!args->size || args->va >= DRM_TGPU_VA_KERNEL_START ||
	    args->size > DRM_TGPU_VA_KERNEL_START - args->va)
		return -ENOENT;

	mutex_lock(&vm->lock);
	va = drm_gpuva_find(&vm->base, args->va, args->size);
	if (va) {
		map = to_tgpu_mapping(va);
		tgpu_vm_unmap_locked(vm, map);
	}
	mutex_unlock(&vm->lock);
	if (!map)
		return -ENOENT;

	/*
	 * An engine stops using old translations only at the end of its
	 * current run of pages (mmu.md): the object may be freed once the
	 * file's work on the hardware has finished.  If the wait is
	 * interrupted, the object is released when the file is closed.
	 */
	if (tgpu_file_queues_wait(tfile)) {
		mutex_lock(&vm->lock);
		list_add_tail(&map->deferred, &vm->deferred);
		mutex_unlock(&vm->lock);
		return 0;
	}
	tgpu_mapping_free(map);
	return 0;
}

/**
 * tgpu_vm_fini() - tear a VM down
 * @vm: the VM, with no queue left on it
 *
 * Removes every mapping, invalidates the ASID's TLB entries, frees the
 * page tables and releases the ASID.
 */
void tgpu_vm_fini(struct tgpu_vm *vm)
{
	struct tgpu_device *tdev = vm->tdev;
	struct tgpu_mapping *map, *tmp;
	struct drm_gpuva *va, *next;
	struct tgpu_pt_update u;
	int idx;

	mutex_lock(&vm->lock);
	if (drm_dev_enter(&tdev->base, &idx)) {
		tgpu_pt_update_begin(&u, tdev);
		drm_gpuvm_for_each_va(va, &vm->base)
			if (va->gem.obj)	/* not the kernel's node */
				tgpu_pt_tree_clear(vm, &u, va->va.addr, va->va.range);
		/* The objects may go only once the GPU cannot reach them. */
		tgpu_pt_update_invalidate(&u, vm->asid, 0, 0);
		tgpu_pt_update_commit(&u);
		drm_dev_exit(idx);
	}
	drm_gpuvm_for_each_va_safe(va, next, &vm->base) {
		if (!va->gem.obj)
			continue;
		map = to_tgpu_mapping(va);
		drm_gpuva_remove(va);
		tgpu_mapping_unlink(map);
		tgpu_mapping_free(map);
	}
	list_for_each_entry_safe(map, tmp, &vm->deferred, deferred) {
		list_del(&map->deferred);
		tgpu_mapping_free(map);
	}
	tgpu_pt_tree_free(vm);
	mutex_unlock(&vm->lock);

	mutex_destroy(&vm->lock);
	/* Mappings and their &drm_gpuvm_bo hold the VM; none is left. */
	drm_WARN_ON(&tdev->base, kref_read(&vm->base.kref) != 1);
	drm_gpuvm_put(&vm->base);
	ida_free(&tdev->asid_ida, vm->asid);
}

/* The mapping that holds @va, or NULL.  With vm->lock held. */
static struct drm_gpuva *tgpu_vm_find(struct tgpu_vm *vm, u64 va)
{
	struct drm_gpuva *gpuva = drm_gpuva_find_first(&vm->base, va, 1);

	/* The kernel's node has no object: not a mapping. */
	return gpuva && gpuva->gem.obj ? gpuva : NULL;
}

/*
 * Where @va lives: the object mapped there (@obj), and in it a
 * system-memory page (@page, with the byte's offset in the object in
 * @off), or a VRAM address (@vram).  With vm->lock held.  Return: 0,
 * -ENOENT when nothing is mapped there, -EFAULT when the memory is not
 * CPU-visible, -EIO for a page that holds an uncorrectable ECC error.
 */
static int tgpu_vm_locate(struct tgpu_vm *vm, u64 va,
			  struct drm_gem_object **obj, u64 *off,
			  struct page **page, u64 *vram)
{
	struct tgpu_device *tdev = vm->tdev;
	struct gpu_buddy_block *block;
	struct drm_gpuva *map;
	u64 bsize;

	*page = NULL;
	map = tgpu_vm_find(vm, va);
	if (!map)
		return -ENOENT;
	*obj = map->gem.obj;
	*off = map->gem.offset + (va - map->va.addr);
	if (tgpu_gem_is_sysmem(map->gem.obj)) {
		struct drm_gem_shmem_object *shmem =
			to_drm_gem_shmem_obj(map->gem.obj);

		if (!shmem->pages)
			return -EFAULT;
		*page = shmem->pages[*off >> PAGE_SHIFT];
		return 0;
	}
	*vram = *off;
	list_for_each_entry(block, &to_tgpu_bo(map->gem.obj)->blocks, link) {
		bsize = gpu_buddy_block_size(&tdev->vram.mm, block);
		if (*vram >= bsize) {
			*vram -= bsize;
			continue;
		}
		*vram += gpu_buddy_block_offset(block);
		/* a read would only raise its uncorrectable error again */
		if (tgpu_ecc_page_poisoned(tdev, *vram))
			return -EIO;
		if (!tdev->vram.map || *vram + 8 > tdev->vram.visible)
			return -EFAULT;
		return 0;
	}
	return -EFAULT;
}

/**
 * tgpu_vm_read() - read user memory of a VM through the CPU, for debugfs
 * @vm: the VM
 * @va: GPU virtual address, 4-byte aligned
 * @buf: where the dwords go
 * @n: dwords wanted; fewer are read when the 4 KiB page ends first
 * @nowait: give up rather than wait for the VM's lock: the hang path's
 *	devcoredump must not, since VM_BIND allocates memory under it
 *
 * Finds the mapping that holds @va and reads its object: a VRAM object
 * through the driver's VRAM mapping, a system-memory object through its
 * pinned pages.  The caller must be inside drm_dev_enter().
 *
 * Return: dwords read, -ENOENT when nothing is mapped at @va, -EFAULT
 * when the memory is not CPU-visible, -EBUSY when @nowait and the VM is
 * being changed, -EIO when the page holds an uncorrectable ECC error.
 */
int tgpu_vm_read(struct tgpu_vm *vm, u64 va, u32 *buf, unsigned int n,
		 bool nowait)
{
	struct tgpu_device *tdev = vm->tdev;
	struct drm_gem_object *obj;
	struct page *page;
	void *vaddr;
	u64 off, vram;
	int ret;

	n = min_t(u64, n, (TGPU_PAGE_SIZE - (va & (TGPU_PAGE_SIZE - 1))) / 4);
	if (!nowait)
		mutex_lock(&vm->lock);
	else if (!mutex_trylock(&vm->lock))
		return -EBUSY;
	ret = tgpu_vm_locate(vm, va, &obj, &off, &page, &vram);
	if (ret)
		goto out;
	if (page) {
		vaddr = kmap_local_page(page);
		memcpy(buf, vaddr + offset_in_page(off), n * 4);
		kunmap_local(vaddr);
	} else if (vram + n * 4 <= tdev->vram.visible) {
		memcpy_fromio(buf, tdev->vram.map + vram, n * 4);
	} else {
		ret = -EFAULT;
		goto out;
	}
	ret = n;
out:
	mutex_unlock(&vm->lock);
	return ret;
}

/**
 * tgpu_vm_word() - find a 64-bit word of a VM for the CPU to read
 * @vm: the VM
 * @va: GPU virtual address, 8-byte aligned
 * @w: where it is, with a reference to its object (tgpu_vm_word_put())
 *
 * For semaphores the CPU waits on (DRM_IOCTL_TGPU_WAIT): the object
 * stays, and so does the word's place, while the reference is held,
 * even once the process unmaps it (a system-memory object's pages are
 * pinned for its life, VRAM objects do not move).
 *
 * Return: 0, -EINVAL for an unaligned @va, -ENOENT when nothing is
 * mapped there, -EFAULT when the memory is not CPU-visible, -EIO for a
 * page with an uncorrectable ECC error.
 */
int tgpu_vm_word(struct tgpu_vm *vm, u64 va, struct tgpu_vm_word *w)
{
	struct drm_gem_object *obj;
	struct page *page;
	u64 off, vram;
	int ret;

	if (va & 7)
		return -EINVAL;
	memset(w, 0, sizeof(*w));
	mutex_lock(&vm->lock);
	ret = tgpu_vm_locate(vm, va, &obj, &off, &page, &vram);
	if (ret)
		goto out;
	if (page) {
		/* 64-bit only: system-memory pages are in the linear map */
		if (PageHighMem(page)) {
			ret = -EFAULT;
			goto out;
		}
		w->ptr = page_address(page) + offset_in_page(off);
	} else {
		w->io = vm->tdev->vram.map + vram;
	}
	w->obj = obj;
	drm_gem_object_get(obj);
out:
	mutex_unlock(&vm->lock);
	return ret;
}

/**
 * tgpu_vm_word_put() - drop what tgpu_vm_word() took
 * @w: the word; may be one tgpu_vm_word() failed to fill
 */
void tgpu_vm_word_put(struct tgpu_vm_word *w)
{
	if (w->obj)
		drm_gem_object_put(w->obj);
	w->obj = NULL;
}

/**
 * tgpu_vm_maps_vram() - does a VM map a VRAM page
 * @vm: the VM
 * @page: VRAM address of a 4 KiB page
 *
 * For an uncorrectable ECC error: whose work can read the page.
 *
 * Return: true when a VRAM object mapped in @vm holds @page.
 */
bool tgpu_vm_maps_vram(struct tgpu_vm *vm, u64 page)
{
	struct tgpu_device *tdev = vm->tdev;
	struct gpu_buddy_block *block;
	struct drm_gpuva *va;
	bool found = false;
	u64 start;

	mutex_lock(&vm->lock);
	drm_gpuvm_for_each_va(va, &vm->base) {
		if (!va->gem.obj || tgpu_gem_is_sysmem(va->gem.obj))
			continue;
		list_for_each_entry(block, &to_tgpu_bo(va->gem.obj)->blocks,
				    link) {
			start = gpu_buddy_block_offset(block);
			if (page >= start &&
			    page < start + gpu_buddy_block_size(&tdev->vram.mm,
								block)) {
				found = true;
				goto out;
			}
		}
	}
out:
	mutex_unlock(&vm->lock);
	return found;
}

/*
 * Where a VRAM object is: " at vram ADDR+SIZE,..." for its first blocks
 * (an ECC error's address, a BAR1 offset or a page the InfoROM names
 * can be matched to it).
 */
static void tgpu_vm_show_blocks(struct tgpu_device *tdev, struct tgpu_bo *bo,
				struct seq_file *m)
{
	struct gpu_buddy_block *block;
	unsigned int i = 0;

	list_for_each_entry(block, &bo->blocks, link) {
		if (i++ == 4) {
			seq_puts(m, ",...");
			break;
		}
		seq_printf(m, "%s0x%llx+0x%llx", i == 1 ? " at vram " : ",",
			   gpu_buddy_block_offset(block),
			   gpu_buddy_block_size(&tdev->vram.mm, block));
	}
}

/*
 * One line for the object of @va if @va is its first mapping in the VM:
 * its mappings here and the VMs it is mapped in.  With vm->lock held.
 */
static void tgpu_vm_show_bo(struct drm_gpuva *va, struct seq_file *m)
{
	struct drm_gem_object *obj = va->gem.obj;
	struct drm_gpuvm_bo *vm_bo = va->vm_bo;

	dma_resv_lock(obj->resv, NULL);
	if (list_first_entry(&vm_bo->list.gpuva, struct drm_gpuva,
			     gem.entry) == va)
		seq_printf(m, "    %s size 0x%zx mappings %zu vms %zu\n",
			   tgpu_gem_is_sysmem(obj) ? "sysmem" : "vram",
			   obj->size, list_count_nodes(&vm_bo->list.gpuva),
			   list_count_nodes(&obj->gpuva.list));
	dma_resv_unlock(obj->resv);
}

/**
 * tgpu_vm_show() - print a VM's mappings and objects, for debugfs
 * @vm: the VM
 * @m: where to
 *
 * One line per mapping: its range, size, flags, the object's kind and
 * size, and the offset in it.  Then one line per object mapped: its
 * kind, size, mappings in this VM and the VMs it is mapped in.
 *
 * Return: the number of mappings.
 */
unsigned int tgpu_vm_show(struct tgpu_vm *vm, struct seq_file *m)
{
	struct tgpu_mapping *map;
	struct drm_gpuva *va;
	unsigned int n = 0, deferred = 0;

	mutex_lock(&vm->lock);
	drm_gpuvm_for_each_va(va, &vm->base) {
		if (!va->gem.obj)	/* the kernel's node */
			continue;
		seq_printf(m, "    va 0x%010llx-0x%010llx size 0x%llx %s %s object size 0x%zx offset 0x%llx",
			   va->va.addr, va->va.addr + va->va.range,
			   va->va.range,
			   va->flags & TGPU_VA_READ_ONLY ? "ro" : "rw",
			   tgpu_gem_is_sysmem(va->gem.obj) ? "sysmem" : "vram",
			   va->gem.obj->size, va->gem.offset);
		if (!tgpu_gem_is_sysmem(va->gem.obj))
			tgpu_vm_show_blocks(vm->tdev, to_tgpu_bo(va->gem.obj),
					    m);
		seq_putc(m, '\n');
		n++;
	}
	list_for_each_entry(map, &vm->deferred, deferred)
		deferred++;
	if (deferred)
		seq_printf(m, "    %u unbound mappings waiting for the file's close\n",
			   deferred);
	seq_puts(m, "  mapped objects:\n");
	drm_gpuvm_for_each_va(va, &vm->base)
		if (va->gem.obj)
			tgpu_vm_show_bo(va, m);
	mutex_unlock(&vm->lock);
	return n;
}
