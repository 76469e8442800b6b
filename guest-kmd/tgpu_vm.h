/* SPDX-License-Identifier: GPL-2.0-only OR MIT */
/* Copyright (c) 2026 The tgpu authors */

#ifndef __TGPU_VM_H__
#define __TGPU_VM_H__

#include <linux/io.h>
#include <linux/list.h>
#include <linux/mutex.h>
#include <linux/types.h>

#include <drm/drm_gpuvm.h>

#include "tgpu_vram.h"

struct drm_device;
struct drm_file;
struct seq_file;
struct tgpu_device;

/**
 * struct tgpu_pt - one page table (PD1, PD0 or PT) in VRAM
 * @mem: the table
 * @children: the next level's tables, by index; NULL for a PT
 * @large: PD0 only: entries that map a 2 MiB page
 */
struct tgpu_pt {
	struct tgpu_vram_obj mem;
	struct tgpu_pt **children;
	unsigned long *large;
};

/**
 * struct tgpu_vm - a file's GPU virtual address space
 * @base: the VA space: user mappings (struct tgpu_mapping) below
 *	DRM_TGPU_VA_KERNEL_START, the driver's range above it as drm_gpuvm's
 *	kernel node; each object lists the VMs it is mapped in
 * @tdev: the device
 * @asid: its address-space ID, 1 to 65535
 * @lock: protects @base's VA tree, the page tables and @deferred
 * @pd1: the root table; allocated on first use
 * @deferred: unmapped mappings whose objects are released at close
 *	(struct tgpu_mapping, by @deferred)
 *
 * Tables are allocated as mappings need them and kept until the VM is
 * destroyed.
 */
struct tgpu_vm {
	struct drm_gpuvm base;
	struct tgpu_device *tdev;
	u32 asid;
	struct mutex lock; /* protects the VA tree, tables and deferred */
	struct tgpu_pt *pd1;
	struct list_head deferred;
};

/**
 * struct tgpu_vm_word - a 64-bit word of a VM the CPU reads
 * @obj: the object that holds it (a reference)
 * @ptr: its kernel address, for system memory
 * @io: its address in the driver's VRAM mapping, for VRAM
 */
struct tgpu_vm_word {
	struct drm_gem_object *obj;
	u64 *ptr;
	void __iomem *io;
};

/* The word's value; the caller is inside drm_dev_enter() for VRAM. */
static inline u64 tgpu_vm_word_read(const struct tgpu_vm_word *w)
{
	return w->ptr ? READ_ONCE(*w->ptr) : readq(w->io);
}

int tgpu_vm_init(struct tgpu_device *tdev, struct tgpu_vm *vm);
void tgpu_vm_fini(struct tgpu_vm *vm);
int tgpu_vm_pdb(struct tgpu_vm *vm, u64 *pdb);
int tgpu_vm_map_kernel(struct tgpu_vm *vm, u64 va, u64 phys, u64 size,
		       u64 pte_flags);
void tgpu_vm_unmap_kernel(struct tgpu_vm *vm, u64 va, u64 size);
int tgpu_vm_read(struct tgpu_vm *vm, u64 va, u32 *buf, unsigned int n,
		 bool nowait);
int tgpu_vm_word(struct tgpu_vm *vm, u64 va, struct tgpu_vm_word *w);
void tgpu_vm_word_put(struct tgpu_vm_word *w);
bool tgpu_vm_maps_vram(struct tgpu_vm *vm, u64 page);
unsigned int tgpu_vm_show(struct tgpu_vm *vm, struct seq_file *m);

int tgpu_ioctl_vm_bind(struct drm_device *ddev, void *data,
		       struct drm_file *file);
int tgpu_ioctl_vm_unbind(struct drm_device *ddev, void *data,
			 struct drm_file *file);

#endif /* __TGPU_VM_H__ */
