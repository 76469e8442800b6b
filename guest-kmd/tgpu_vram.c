// SPDX-License-Identifier: GPL-2.0-only OR MIT
/* Copyright (c) 2026 The tgpu authors */

#include <linux/error-injection.h>
#include <linux/io.h>
#include <linux/log2.h>
#include <linux/minmax.h>
#include <linux/sched.h>
#include <linux/sched/signal.h>
#include <linux/sizes.h>

#include <drm/drm_managed.h>

#include "tgpu_device.h"
#include "tgpu_ecc.h"
#include "tgpu_vram.h"

/* VRAM cleared per mapping, between two chances to reschedule. */
#define TGPU_VRAM_CLEAR_CHUNK	SZ_8M

static void tgpu_vram_fini(struct drm_device *ddev, void *data)
{
	struct tgpu_vram *vram = data;

	gpu_buddy_free_list(&vram->mm, &vram->reserved, 0);
	gpu_buddy_fini(&vram->mm);
}

/**
 * tgpu_vram_init() - set up the VRAM allocator
 * @tdev: the device, identified, with BAR1 recorded
 *
 * The allocator is DRM-managed: it is torn down when the DRM device is
 * released, after the last buffer object is gone.
 *
 * Return: 0 on success, a negative errno otherwise.
 */
int tgpu_vram_init(struct tgpu_device *tdev)
{
	struct tgpu_vram *vram = &tdev->vram;
	struct drm_device *ddev = &tdev->base;
	int ret;

	ret = drmm_mutex_init(ddev, &vram->lock);
	if (ret)
		return ret;
	INIT_LIST_HEAD(&vram->reserved);

	vram->size = round_down(tdev->id.vram_size, SZ_4K);
	if (!vram->size) {
		drm_err(ddev, "the device reports no VRAM\n");
		return -ENODEV;
	}
	vram->visible = min_t(u64, vram->size,
			      round_down(tdev->vram_bar.size, SZ_4K));

	ret = gpu_buddy_init(&vram->mm, vram->size, SZ_4K);
	if (ret)
		return ret;

	return drmm_add_action_or_reset(ddev, tgpu_vram_fini, vram);
}
ALLOW_ERROR_INJECTION(tgpu_vram_init, ERRNO);

/**
 * tgpu_vram_alloc() - allocate VRAM
 * @tdev: the device
 * @size: bytes, a multiple of @min_block
 * @min_block: smallest block (and alignment), a power of two >= 4 KiB
 * @end: allocate below this VRAM offset
 * @flags: GPU_BUDDY_* allocation flags
 * @blocks: list the blocks are added to, linked by their @link
 *
 * Return: 0 on success, -ENOSPC when VRAM has no room, another negative
 * errno otherwise.
 */
int tgpu_vram_alloc(struct tgpu_device *tdev, u64 size, u64 min_block,
		    u64 end, unsigned long flags, struct list_head *blocks)
{
	struct tgpu_vram *vram = &tdev->vram;
	int ret;

	mutex_lock(&vram->lock);
	ret = gpu_buddy_alloc_blocks(&vram->mm, 0, end, size, min_block,
				     blocks, flags);
	mutex_unlock(&vram->lock);
	return ret;
}

/**
 * tgpu_vram_reserve() - take a range of VRAM out of use for good
 * @tdev: the device
 * @addr: VRAM address, 4 KiB aligned
 * @size: bytes, a multiple of 4 KiB
 *
 * For retired pages: the blocks stay allocated until the allocator is
 * torn down.
 *
 * Return: 0 on success, -ENOSPC when part of the range is in use, another
 * negative errno otherwise.
 */
int tgpu_vram_reserve(struct tgpu_device *tdev, u64 addr, u64 size)
{
	struct tgpu_vram *vram = &tdev->vram;
	int ret;

	mutex_lock(&vram->lock);
	ret = tgpu_vram_reserve_locked(tdev, addr, size);
	mutex_unlock(&vram->lock);
	return ret;
}

/**
 * tgpu_vram_reserve_locked() - tgpu_vram_reserve(), with the VRAM lock
 * @tdev: the device
 * @addr: VRAM address, 4 KiB aligned
 * @size: bytes, a multiple of 4 KiB
 *
 * Return: as tgpu_vram_reserve().
 */
int tgpu_vram_reserve_locked(struct tgpu_device *tdev, u64 addr, u64 size)
{
	struct tgpu_vram *vram = &tdev->vram;
	LIST_HEAD(blocks);
	int ret;

	lockdep_assert_held(&vram->lock);
	if (!IS_ALIGNED(addr | size, SZ_4K) || !size || addr >= vram->size ||
	    size > vram->size - addr)
		return -EINVAL;
	ret = gpu_buddy_alloc_blocks(&vram->mm, addr, addr + size, size,
				     SZ_4K, &blocks,
				     GPU_BUDDY_RANGE_ALLOCATION);
	if (!ret)
		list_splice_tail(&blocks, &vram->reserved);
	return ret;
}

/**
 * tgpu_vram_free() - give blocks back to the allocator
 * @tdev: the device
 * @blocks: blocks from tgpu_vram_alloc(); the list is left empty
 */
void tgpu_vram_free(struct tgpu_device *tdev, struct list_head *blocks)
{
	struct tgpu_vram *vram = &tdev->vram;

	mutex_lock(&vram->lock);
	gpu_buddy_free_list(&vram->mm, blocks, 0);
	/* a retired page they held goes out of use before anyone takes it */
	tgpu_ecc_take_pending(tdev);
	mutex_unlock(&vram->lock);
}

/**
 * tgpu_vram_used() - bytes of VRAM allocated
 * @tdev: the device
 *
 * Return: bytes allocated, the driver's own reservations included.
 */
u64 tgpu_vram_used(struct tgpu_device *tdev)
{
	struct tgpu_vram *vram = &tdev->vram;
	u64 used;

	mutex_lock(&vram->lock);
	used = vram->mm.size - vram->mm.avail;
	mutex_unlock(&vram->lock);
	return used;
}

/**
 * tgpu_vram_clear() - zero blocks of VRAM
 * @tdev: the device
 * @blocks: blocks below @tdev->vram.visible
 *
 * With the kernel channel's copy engine (tgpu_kchan.c) when it runs;
 * else, or if it fails, with the CPU through BAR1, TGPU_VRAM_CLEAR_CHUNK
 * bytes at a time, rescheduling in between: objects can be gigabytes.
 *
 * Return: 0 on success, -ENOMEM when VRAM cannot be mapped, -EINTR when
 * the task is being killed.
 */
int tgpu_vram_clear(struct tgpu_device *tdev, struct list_head *blocks)
{
	struct gpu_buddy_block *block;
	void __iomem *map;
	u64 start, end, len;
	int ret, bars;

	ret = tgpu_kchan_clear(tdev, blocks);
	if (ret != -ENODEV && ret != -EIO && ret != -ETIMEDOUT)
		return ret;

	list_for_each_entry(block, blocks, link) {
		start = gpu_buddy_block_offset(block);
		end = start + gpu_buddy_block_size(&tdev->vram.mm, block);
		for (; start < end; start += len) {
			len = min_t(u64, end - start, TGPU_VRAM_CLEAR_CHUNK);
			map = ioremap_wc(tdev->vram_bar.start + start, len);
			if (!map)
				return -ENOMEM;
			bars = tgpu_bars_enter(tdev);
			memset_io(map, 0, len);
			tgpu_bars_exit(tdev, bars);
			iounmap(map);

			if (fatal_signal_pending(current))
				return -EINTR;
			cond_resched();
		}
	}
	return 0;
}

/**
 * tgpu_vram_map_init() - map the CPU-visible VRAM for the driver
 * @tdev: the device, with the allocator set up
 *
 * One write-combined mapping of BAR1 (up to the end of VRAM), made once:
 * page tables, channel memory and runlists are written through it.
 * Without BAR1 there is no mapping, and no VM or queue can be created.
 *
 * Return: 0 on success (also without BAR1), -ENOMEM otherwise.
 */
int tgpu_vram_map_init(struct tgpu_device *tdev)
{
	struct device *dev = tdev->base.dev;

	if (!tdev->vram.visible)
		return 0;
	tdev->vram.map = devm_ioremap_wc(dev, tdev->vram_bar.start,
					 tdev->vram.visible);
	if (!tdev->vram.map)
		return dev_err_probe(dev, -ENOMEM, "cannot map VRAM through BAR1\n");
	return 0;
}
ALLOW_ERROR_INJECTION(tgpu_vram_map_init, ERRNO);

/**
 * tgpu_vram_obj_alloc() - allocate zeroed, contiguous, CPU-visible VRAM
 * @tdev: the device, with the VRAM mapping
 * @obj: filled in
 * @size: bytes, a multiple of 4 KiB; the block is naturally aligned to
 *	@size rounded up to a power of two
 *
 * Return: 0 on success, -ENODEV without BAR1, -ENOSPC when VRAM has no
 * room, another negative errno otherwise.
 */
int tgpu_vram_obj_alloc(struct tgpu_device *tdev, struct tgpu_vram_obj *obj,
			u64 size)
{
	struct gpu_buddy_block *block;
	u64 align = roundup_pow_of_two(max_t(u64, size, SZ_4K));
	int ret, bars;

	INIT_LIST_HEAD(&obj->blocks);
	if (!tdev->vram.map)
		return -ENODEV;

	ret = tgpu_vram_alloc(tdev, align, align, tdev->vram.visible, 0,
			      &obj->blocks);
	if (ret)
		return ret;

	block = list_first_entry(&obj->blocks, struct gpu_buddy_block, link);
	obj->addr = gpu_buddy_block_offset(block);
	obj->size = align;
	obj->cpu = tdev->vram.map + obj->addr;
	bars = tgpu_bars_enter(tdev);
	memset_io(obj->cpu, 0, align);
	tgpu_bars_exit(tdev, bars);
	return 0;
}
ALLOW_ERROR_INJECTION(tgpu_vram_obj_alloc, ERRNO);

/**
 * tgpu_vram_obj_free() - give a tgpu_vram_obj_alloc() object back
 * @tdev: the device
 * @obj: the object; freeing an object that was never allocated, or
 *	twice, does nothing
 */
void tgpu_vram_obj_free(struct tgpu_device *tdev, struct tgpu_vram_obj *obj)
{
	if (!obj->cpu)
		return;
	tgpu_vram_free(tdev, &obj->blocks);
	obj->cpu = NULL;
}
