// SPDX-License-Identifier: GPL-2.0-only OR MIT
/* Copyright (c) 2026 The tgpu authors */

#include <linux/dma-mapping.h>
#include <linux/err.h>
#include <linux/ioport.h>
#include <linux/minmax.h>
#include <linux/pci.h>

#include <drm/drm_drv.h>
#include <drm/drm_managed.h>

#include "tgpu_coredump.h"
#include "tgpu_device.h"
#include "tgpu_gem.h"
#include "tgpu_irq.h"
#include "tgpu_queue.h"
#include "tgpu_therm.h"

/*
 * BAR0 holds the registers and the MSI-X table; map all of it uncached.
 * BAR1 is the VRAM aperture, which can be tens of GiB: claim it so no one
 * else maps it, but leave mapping pieces of it (write-combined) to the
 * code that needs them.
 */
static int tgpu_device_map_bars(struct tgpu_device *tdev)
{
	struct pci_dev *pdev = tdev->pdev;
	struct device *dev = &pdev->dev;
	int ret;

	if (!(pci_resource_flags(pdev, TGPU_BAR0) & IORESOURCE_MEM) ||
	    pci_resource_len(pdev, TGPU_BAR0) < TGPU_BAR0_SIZE) {
		dev_err(dev, "BAR0 is %pR, expected %u MiB of memory space\n",
			pci_resource_n(pdev, TGPU_BAR0), TGPU_BAR0_SIZE / SZ_1M);
		return -ENODEV;
	}

	tdev->regs = pcim_iomap_region(pdev, TGPU_BAR0, TGPU_DRIVER_NAME);
	if (IS_ERR(tdev->regs))
		return dev_err_probe(dev, PTR_ERR(tdev->regs),
				     "cannot map BAR0 (registers)\n");

	if (!(pci_resource_flags(pdev, TGPU_BAR1) & IORESOURCE_MEM) ||
	    (pci_resource_flags(pdev, TGPU_BAR1) & IORESOURCE_UNSET) ||
	    !pci_resource_len(pdev, TGPU_BAR1)) {
		dev_warn(dev, "BAR1 (VRAM aperture) is not assigned, the CPU cannot reach VRAM\n");
		return 0;
	}

	ret = pcim_request_region(pdev, TGPU_BAR1, TGPU_DRIVER_NAME);
	if (ret)
		return dev_err_probe(dev, ret,
				     "cannot reserve BAR1 (VRAM aperture)\n");

	/*
	 * Buffer objects map BAR1 write-combined into user space: mark the
	 * range so, or PAT would make those mappings uncached.
	 */
	ret = devm_arch_io_reserve_memtype_wc(dev, pci_resource_start(pdev, TGPU_BAR1),
					      pci_resource_len(pdev, TGPU_BAR1));
	if (ret)
		return dev_err_probe(dev, ret,
				     "cannot reserve BAR1 as write-combined\n");
	devm_arch_phys_wc_add(dev, pci_resource_start(pdev, TGPU_BAR1),
			      pci_resource_len(pdev, TGPU_BAR1));

	tdev->vram_bar.start = pci_resource_start(pdev, TGPU_BAR1);
	tdev->vram_bar.size = pci_resource_len(pdev, TGPU_BAR1);
	return 0;
}

/* Read and check the PMC identity registers. */
static int tgpu_device_identify(struct tgpu_device *tdev)
{
	struct tgpu_identity *id = &tdev->id;
	struct device *dev = tdev->base.dev;
	unsigned int arch, impl;
	u32 magic;

	magic = tgpu_rd32(tdev, TGPU_PMC_MAGIC);
	if (magic != TGPU_MAGIC) {
		dev_err(dev, "PMC_MAGIC reads 0x%08x, expected 0x%08x: not a tgpu, or the bus is dead\n",
			magic, TGPU_MAGIC);
		return -ENODEV;
	}

	id->iface_version = tgpu_rd32(tdev, TGPU_PMC_IFACE_VERSION);
	if (TGPU_IFACE_MAJOR(id->iface_version) != TGPU_IFACE_VERSION_MAJOR) {
		dev_err(dev, "hardware interface version %u.%u is not supported, this driver speaks %u.x\n",
			TGPU_IFACE_MAJOR(id->iface_version),
			TGPU_IFACE_MINOR(id->iface_version),
			TGPU_IFACE_VERSION_MAJOR);
		return -ENODEV;
	}

	id->boot0 = tgpu_rd32(tdev, TGPU_PMC_BOOT_0);
	id->vram_size = (u64)tgpu_rd32(tdev, TGPU_PMC_VRAM_SIZE_HI) << 32 |
			tgpu_rd32(tdev, TGPU_PMC_VRAM_SIZE_LO);
	id->sm_count = tgpu_rd32(tdev, TGPU_PMC_SM_COUNT);
	id->engines = tgpu_rd32(tdev, TGPU_PMC_ENGINES);
	id->clk_sm_base_mhz = tgpu_rd32(tdev, TGPU_PMC_CLK_SM_BASE_MHZ);
	id->clk_sm_boost_mhz = tgpu_rd32(tdev, TGPU_PMC_CLK_SM_BOOST_MHZ);
	id->clk_mem_mhz = tgpu_rd32(tdev, TGPU_PMC_CLK_MEM_MHZ);
	id->power_limit_mw = tgpu_rd32(tdev, TGPU_PMC_POWER_LIMIT_MW);
	id->channels = min_t(u32, tgpu_rd32(tdev, TGPU_PMC_CHANNELS),
			     TGPU_CHANNELS_MAX);

	arch = TGPU_BOOT_0_ARCH(id->boot0);
	impl = TGPU_BOOT_0_IMPL(id->boot0);
	id->chip_name = tgpu_chip_name(arch, impl);
	id->product_name = tgpu_product_name(arch, impl);
	if (!id->chip_name || !id->product_name) {
		dev_warn(dev, "unknown chip: BOOT_0 0x%08x (arch 0x%02x, impl 0x%02x)\n",
			 id->boot0, arch, impl);
		id->chip_name = "unknown chip";
		id->product_name = "TGPU";
	}

	if (tdev->vram_bar.size && tdev->vram_bar.size < id->vram_size)
		dev_warn(dev, "BAR1 (%llu MiB) is smaller than VRAM (%llu MiB), the CPU reaches only part of it\n",
			 (u64)tdev->vram_bar.size / SZ_1M, id->vram_size / SZ_1M);

	return 0;
}

/* devres: what unbind leaves of the objects' DMA mappings (tgpu_gem.c) */
static void tgpu_device_gem_unplug(void *data)
{
	tgpu_gem_unplug(data);
}

/**
 * tgpu_device_init() - bring up a tgpu board
 * @tdev: the device, freshly allocated, with @tdev->pdev set
 *
 * Enables the PCI function, maps its BARs, checks the identity registers,
 * sets up the VRAM allocator, ECC (enabled, retired pages reserved) and
 * interrupts.  Every resource is device-managed and released
 * when the PCI driver unbinds, so there is no matching fini.
 *
 * Return: 0 on success, a negative errno otherwise.
 */
int tgpu_device_init(struct tgpu_device *tdev)
{
	struct pci_dev *pdev = tdev->pdev;
	struct device *dev = &pdev->dev;
	int ret;

	ret = pcim_enable_device(pdev);
	if (ret)
		return dev_err_probe(dev, ret, "cannot enable the PCI device\n");

	ret = tgpu_device_map_bars(tdev);
	if (ret)
		return ret;

	ret = tgpu_device_identify(tdev);
	if (ret)
		return ret;

	/* A PTE holds a system-memory page address of 52 bits ([51:12]). */
	ret = dma_set_mask_and_coherent(dev, DMA_BIT_MASK(52));
	if (ret)
		return dev_err_probe(dev, ret, "cannot set a 52-bit DMA mask\n");
	/*
	 * The GPU's page tables map each 4 KiB page on its own: a mapped
	 * scatterlist's segments may be any length (the PCI default of
	 * 64 KiB made DMA_API_DEBUG warn at every larger shmem object).
	 */
	dma_set_max_seg_size(dev, UINT_MAX);
	/* after the channels stop at an unbind (devres runs backwards) */
	INIT_LIST_HEAD(&tdev->sysmem_bos);
	ret = drmm_mutex_init(&tdev->base, &tdev->sysmem_lock);
	if (!ret)
		ret = devm_add_action(dev, tgpu_device_gem_unplug, tdev);
	if (ret)
		return ret;

	pci_set_master(pdev);

	ret = tgpu_vram_init(tdev);
	if (ret)
		return dev_err_probe(dev, ret, "cannot set up the VRAM allocator\n");

	/* what an earlier driver left running stops, then ECC can change */
	tgpu_channels_stop(tdev);
	/* before any channel is enabled and anything allocates VRAM */
	ret = tgpu_ecc_init(tdev);
	if (ret)
		return ret;

	ret = tgpu_vram_map_init(tdev);
	if (ret)
		return ret;

	ret = tgpu_coredump_init(tdev);
	if (ret)
		return ret;
	ret = tgpu_reset_init(tdev);
	if (ret)
		return ret;

	ret = tgpu_queues_init(tdev);
	if (ret)
		return dev_err_probe(dev, ret, "cannot set up the runlists\n");

	ret = tgpu_kchan_early_init(tdev);
	if (ret)
		return ret;
	/* its interrupts may come before the handlers: they wait for them */
	ret = tgpu_therm_init(tdev);
	if (ret)
		return dev_err_probe(dev, ret, "cannot start the thermal governor and hwmon\n");
	ret = tgpu_irq_init(tdev);
	if (ret)
		return ret;

	ret = tgpu_kchan_init(tdev);
	if (ret)
		return ret;
	/*
	 * What an AER slot reset restores: the PCI core's own copy was taken
	 * at enumeration, before the device was enabled as a bus master.
	 */
	pci_save_state(pdev);
	return 0;
}

/**
 * tgpu_device_unplug() - disconnect a tgpu board from userspace
 * @tdev: the device
 *
 * Called when the PCI driver unbinds.  Userspace may still hold the render
 * node open; from here on every ioctl fails with -ENODEV and the structure
 * is freed when the last file is closed.  The hardware resources are
 * released by devres after this returns.
 */
void tgpu_device_unplug(struct tgpu_device *tdev)
{
	/* the health check may unplug it too (a lost bus) */
	cancel_delayed_work_sync(&tdev->reset.health);
	tgpu_reset_unplug_once(tdev);
}
