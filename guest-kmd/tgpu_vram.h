/* SPDX-License-Identifier: GPL-2.0-only OR MIT */
/* Copyright (c) 2026 The tgpu authors */

#ifndef __TGPU_VRAM_H__
#define __TGPU_VRAM_H__

#include <linux/gpu_buddy.h>
#include <linux/list.h>
#include <linux/mutex.h>
#include <linux/types.h>

struct tgpu_device;

/**
 * struct tgpu_vram_obj - a driver-internal piece of VRAM
 * @blocks: its one buddy block
 * @addr: VRAM address, aligned to the size rounded up to a power of two
 * @size: bytes
 * @cpu: the CPU's view of it, inside &tgpu_vram.map
 */
struct tgpu_vram_obj {
	struct list_head blocks;
	u64 addr;
	u64 size;
	void __iomem *cpu;
};

/**
 * struct tgpu_vram - the VRAM allocator
 * @mm: buddy allocator over the managed range, 4 KiB minimum block
 * @lock: protects @mm
 * @size: bytes managed: VRAM rounded down to 4 KiB
 * @visible: bytes of @size the CPU reaches through BAR1
 * @reserved: blocks taken out of use for good (retired pages)
 * @map: all of @visible, mapped write-combined for the driver's own use
 *	(page tables, channel memory, runlists); NULL without BAR1
 *
 * Lives as long as the DRM device: buffer objects may outlive the PCI
 * binding and give their blocks back when the last reference goes.
 */
struct tgpu_vram {
	struct gpu_buddy mm;
	struct mutex lock; /* protects mm */
	u64 size;
	u64 visible;
	struct list_head reserved;
	void __iomem *map;
};

int tgpu_vram_init(struct tgpu_device *tdev);
int tgpu_vram_alloc(struct tgpu_device *tdev, u64 size, u64 min_block,
		    u64 end, unsigned long flags, struct list_head *blocks);
int tgpu_vram_reserve(struct tgpu_device *tdev, u64 addr, u64 size);
int tgpu_vram_reserve_locked(struct tgpu_device *tdev, u64 addr, u64 size);
void tgpu_vram_free(struct tgpu_device *tdev, struct list_head *blocks);
u64 tgpu_vram_used(struct tgpu_device *tdev);
int tgpu_vram_clear(struct tgpu_device *tdev, struct list_head *blocks);
int tgpu_vram_map_init(struct tgpu_device *tdev);
int tgpu_vram_obj_alloc(struct tgpu_device *tdev, struct tgpu_vram_obj *obj,
			u64 size);
void tgpu_vram_obj_free(struct tgpu_device *tdev, struct tgpu_vram_obj *obj);

#endif /* __TGPU_VRAM_H__ */
