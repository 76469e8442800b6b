/* SPDX-License-Identifier: GPL-2.0-only OR MIT */
/* Copyright (c) 2026 The tgpu authors */

#ifndef __TGPU_DEVICE_H__
#define __TGPU_DEVICE_H__

#include <linux/idr.h>
#include <linux/io.h>
#include <linux/list.h>
#include <linux/mutex.h>
#include <linux/spinlock.h>
#include <linux/types.h>
#include <linux/xarray.h>

#include <drm/drm_device.h>

#include <tgpu/channel.h>
#include <tgpu/regs.h>

#include "tgpu_ecc.h"
#include "tgpu_irq.h"
#include "tgpu_kchan.h"
#include "tgpu_reset.h"
#include "tgpu_therm.h"
#include "tgpu_vram.h"

struct pci_dev;
struct workqueue_struct;

#define TGPU_DRIVER_NAME	"tgpu"

/**
 * struct tgpu_identity - what the PMC registers say the board is
 * @boot0: PMC_BOOT_0, raw (architecture, implementation, revision)
 * @iface_version: PMC_IFACE_VERSION, raw (major << 16 | minor)
 * @vram_size: VRAM size in bytes
 * @sm_count: number of streaming multiprocessors
 * @engines: TGPU_ENGINE_* bitmask
 * @clk_sm_base_mhz: SM base clock
 * @clk_sm_boost_mhz: SM boost clock
 * @clk_mem_mhz: memory clock
 * @power_limit_mw: board power limit (TDP)
 * @channels: number of channels (PMC_CHANNELS, at most TGPU_CHANNELS_MAX)
 * @chip_name: chip name, e.g. "GP100"
 * @product_name: product name, e.g. "TGPU Tesla P100"
 */
struct tgpu_identity {
	u32 boot0;
	u32 iface_version;
	u64 vram_size;
	u32 sm_count;
	u32 engines;
	u32 clk_sm_base_mhz;
	u32 clk_sm_boost_mhz;
	u32 clk_mem_mhz;
	u32 power_limit_mw;
	u32 channels;
	const char *chip_name;
	const char *product_name;
};

/**
 * struct tgpu_runlist - one engine's runlist
 * @mem: the list in VRAM, TGPU_CHANNELS_MAX channel IDs
 * @queues: the queues on it (struct tgpu_queue, by @rl_link)
 */
struct tgpu_runlist {
	struct tgpu_vram_obj mem;
	struct list_head queues;
};

/**
 * struct tgpu_device - a tgpu board
 * @base: the DRM device; its lifetime is this structure's lifetime
 * @pdev: the PCI function
 * @regs: BAR0, the register space, mapped uncached
 * @vram_bar: BAR1, the VRAM aperture; reserved but not mapped
 * @vram_bar.start: bus address of the aperture, 0 when not assigned
 * @vram_bar.size: size of the aperture in bytes, 0 when not assigned
 * @id: identity read from the PMC at probe
 * @irq: interrupt state
 * @vram: the VRAM allocator; unlike the rest, valid until the DRM device
 *	is released
 * @ecc: ECC state and the retired pages, read at probe
 * @asid_ida: ASIDs of the files' VMs
 * @chid_ida: channels of the queues (channel 0 is the driver's)
 * @mmu_lock: serialises the TLB invalidation register sequences
 * @rl_lock: protects @rl and every queue's @rl_link
 * @rl: the runlists, one per engine
 * @sched_wq: the workqueue of every queue's scheduler
 * @queues_lock: protects @queues; taken in interrupt handlers
 * @queues: every queue of every file (struct tgpu_queue, by @dev_link),
 *	for the interrupt handlers
 * @reset: recovery: hang checks, engine and device resets, bus loss
 * @chan_queues: the same queues by channel ID, changed under
 *	@queues_lock: the non-stall handler looks up the channels the
 *	device's FIFO_NONSTALL_PENDING bitmap names
 *
 * Everything but @base is valid only while the PCI driver is bound: after
 * unplug the structure lives on until the last DRM file is closed, and
 * hardware access must be guarded with drm_dev_enter()/drm_dev_exit().
 */
struct tgpu_device {
	struct drm_device base;
	struct pci_dev *pdev;
	void __iomem *regs;
	struct {
		resource_size_t start;
		resource_size_t size;
	} vram_bar;
	struct tgpu_identity id;
	struct tgpu_irq irq;
	struct tgpu_vram vram;
	struct tgpu_ecc ecc;
	struct ida asid_ida;
	struct ida chid_ida;
	struct mutex mmu_lock; /* TLB invalidation sequences */
	struct mutex rl_lock; /* runlists */
	struct tgpu_runlist rl[TGPU_NR_RUNLISTS];
	struct workqueue_struct *sched_wq;
	spinlock_t queues_lock; /* the queues list, from IRQ handlers */
	struct list_head queues;
	struct xarray chan_queues;
	struct mutex sysmem_lock; /* sysmem_bos */
	struct list_head sysmem_bos; /* system-memory objects, for unplug */
	struct tgpu_kchan kchan;
	struct tgpu_reset reset;
	struct tgpu_coredump_buf *coredump; /* the devcoredump's memory */
	struct tgpu_therm therm;
};

static inline struct tgpu_device *to_tgpu_device(struct drm_device *ddev)
{
	return container_of(ddev, struct tgpu_device, base);
}

static inline u32 tgpu_rd32(const struct tgpu_device *tdev, u32 reg)
{
	return readl(tdev->regs + reg);
}

static inline void tgpu_wr32(const struct tgpu_device *tdev, u32 reg, u32 val)
{
	writel(val, tdev->regs + reg);
}

int tgpu_device_init(struct tgpu_device *tdev);
void tgpu_device_unplug(struct tgpu_device *tdev);

#endif /* __TGPU_DEVICE_H__ */
