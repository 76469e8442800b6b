// SPDX-License-Identifier: GPL-2.0-only OR MIT
/* Copyright (c) 2026 The tgpu authors */

#include <linux/module.h>
#include <linux/pci.h>
#include <linux/slab.h>
#include <linux/sizes.h>

#include <drm/drm.h>
#include <drm/drm_drv.h>
#include <drm/drm_file.h>
#include <drm/drm_gem.h>
#include <drm/drm_gem_shmem_helper.h>
#include <drm/drm_ioctl.h>
#include <drm/drm_print.h>
#include <drm/tgpu_drm.h>

#include <tgpu/channel.h>
#include <tgpu/copy.h>
#include <tgpu/isa.h>

#include "tgpu_debugfs.h"
#include "tgpu_device.h"
#include "tgpu_ecc.h"
#include "tgpu_file.h"
#include "tgpu_gem.h"
#include "tgpu_irq.h"
#include "tgpu_queue.h"
#include "tgpu_reset.h"
#include "tgpu_therm.h"
#include "tgpu_uq.h"
#include "tgpu_vm.h"
#include "tgpu_vram.h"

static int tgpu_ioctl_get_param(struct drm_device *ddev, void *data,
				struct drm_file *file)
{
	struct tgpu_device *tdev = to_tgpu_device(ddev);
	const struct tgpu_identity *id = &tdev->id;
	struct pci_dev *pdev = tdev->pdev;
	struct drm_tgpu_get_param *args = data;
	int idx;

	if (args->pad || args->param >= DRM_TGPU_PARAM_COUNT)
		return -EINVAL;

	/*
	 * No default: the compiler warns (-Wswitch) when the uAPI grows a
	 * parameter this switch does not answer.
	 */
	switch ((enum drm_tgpu_param)args->param) {
	case DRM_TGPU_PARAM_CHIP_ID:
		args->value = id->boot0;
		break;
	case DRM_TGPU_PARAM_IFACE_VERSION:
		args->value = id->iface_version;
		break;
	case DRM_TGPU_PARAM_PCI_ID:
		args->value = (u32)pdev->vendor << 16 | pdev->device;
		break;
	case DRM_TGPU_PARAM_VRAM_SIZE:
		args->value = id->vram_size;
		break;
	case DRM_TGPU_PARAM_BAR0_SIZE:
		args->value = pci_resource_len(pdev, TGPU_BAR0);
		break;
	case DRM_TGPU_PARAM_BAR1_SIZE:
		args->value = tdev->vram_bar.size;
		break;
	case DRM_TGPU_PARAM_SM_COUNT:
		args->value = id->sm_count;
		break;
	case DRM_TGPU_PARAM_ENGINES:
		args->value = id->engines;
		break;
	case DRM_TGPU_PARAM_CLK_SM_BASE_MHZ:
		args->value = id->clk_sm_base_mhz;
		break;
	case DRM_TGPU_PARAM_CLK_SM_BOOST_MHZ:
		args->value = id->clk_sm_boost_mhz;
		break;
	case DRM_TGPU_PARAM_CLK_MEM_MHZ:
		args->value = id->clk_mem_mhz;
		break;
	case DRM_TGPU_PARAM_POWER_LIMIT_MW:
		args->value = id->power_limit_mw;
		break;
	case DRM_TGPU_PARAM_MSIX_VECTORS:
		args->value = tgpu_irq_msix_vectors(tdev);
		break;
	case DRM_TGPU_PARAM_VRAM_USED:
		args->value = tgpu_vram_used(tdev);
		break;
	case DRM_TGPU_PARAM_CHANNELS:
		args->value = id->channels;
		break;
	case DRM_TGPU_PARAM_QUEUE_PRIORITIES:
		args->value = TGPU_PRIORITY_MAX + 1;
		break;
	case DRM_TGPU_PARAM_VA_BITS:
		args->value = TGPU_VA_BITS;
		break;
	case DRM_TGPU_PARAM_VA_USER_LIMIT:
		args->value = DRM_TGPU_VA_KERNEL_START;
		break;
	case DRM_TGPU_PARAM_COMPUTE_CLASS:
		args->value = TGPU_CLASS_COMPUTE;
		break;
	case DRM_TGPU_PARAM_COPY_CLASS:
		args->value = TGPU_CLASS_COPY;
		break;
	case DRM_TGPU_PARAM_GR_GRID_MAX:
		args->value = TGPU_GR_GRID_MAX;
		break;
	case DRM_TGPU_PARAM_GR_BLOCK_MAX:
		args->value = TGPU_GR_BLOCK_MAX;
		break;
	case DRM_TGPU_PARAM_GR_SHARED_MAX:
		args->value = TGPU_GR_SHARED_MAX;
		break;
	case DRM_TGPU_PARAM_GR_PARAM_MAX:
		args->value = TGPU_GR_PARAM_MAX;
		break;
	case DRM_TGPU_PARAM_GR_PROGRAM_MAX:
		args->value = TGPU_GR_PROGRAM_MAX;
		break;
	case DRM_TGPU_PARAM_CLK_SM_KHZ:
		/* The clock changes as the board throttles: read it now. */
		if (!drm_dev_enter(ddev, &idx))
			return -ENODEV;
		args->value = tgpu_rd32(tdev, TGPU_GR_CLOCK_KHZ);
		drm_dev_exit(idx);
		break;
	case DRM_TGPU_PARAM_TIMESTAMP_FREQ:
		args->value = TGPU_PTIMER_FREQ_HZ;
		break;
	case DRM_TGPU_PARAM_ECC_ENABLED:
		args->value = tdev->ecc.enabled;
		break;
	case DRM_TGPU_PARAM_RETIRED_PAGES_SBE:
		args->value = tgpu_ecc_retired_count(tdev, TGPU_RETIRED_CAUSE_SBE);
		break;
	case DRM_TGPU_PARAM_RETIRED_PAGES_DBE:
		args->value = tgpu_ecc_retired_count(tdev, TGPU_RETIRED_CAUSE_DBE);
		break;
	case DRM_TGPU_PARAM_COUNT:
		return -EINVAL;
	}

	return 0;
}

/**
 * tgpu_ioctl_reset_status() - DRM_IOCTL_TGPU_RESET_STATUS
 * @ddev: the DRM device
 * @data: struct drm_tgpu_reset_status
 * @file: the DRM file asking
 *
 * It touches no hardware.  After an unplug the DRM core answers -ENODEV
 * before it gets here; libtgpu reports that as DEVICE_LOST.
 *
 * Return: 0 on success, -EINVAL for non-zero padding.
 */
static int tgpu_ioctl_reset_status(struct drm_device *ddev, void *data,
				   struct drm_file *file)
{
	struct tgpu_device *tdev = to_tgpu_device(ddev);
	struct tgpu_file *tfile = to_tgpu_file(file);
	struct drm_tgpu_reset_status *args = data;

	if (args->pad)
		return -EINVAL;
	args->status = READ_ONCE(tfile->reset_status);
	args->flags = atomic_read(&tdev->reset.vram_lost) !=
		      tfile->vram_lost_at_open ? DRM_TGPU_RESET_VRAM_LOST : 0;
	args->resets = atomic_read(&tdev->reset.count) - tfile->resets_at_open;
	return 0;
}

static const struct drm_ioctl_desc tgpu_drm_ioctls[] = {
	DRM_IOCTL_DEF_DRV(TGPU_GET_PARAM, tgpu_ioctl_get_param,
			  DRM_RENDER_ALLOW),
	DRM_IOCTL_DEF_DRV(TGPU_GEM_CREATE, tgpu_ioctl_gem_create,
			  DRM_RENDER_ALLOW),
	DRM_IOCTL_DEF_DRV(TGPU_GEM_MMAP_OFFSET, tgpu_ioctl_gem_mmap_offset,
			  DRM_RENDER_ALLOW),
	DRM_IOCTL_DEF_DRV(TGPU_VM_BIND, tgpu_ioctl_vm_bind, DRM_RENDER_ALLOW),
	DRM_IOCTL_DEF_DRV(TGPU_VM_UNBIND, tgpu_ioctl_vm_unbind,
			  DRM_RENDER_ALLOW),
	DRM_IOCTL_DEF_DRV(TGPU_QUEUE_CREATE, tgpu_ioctl_queue_create,
			  DRM_RENDER_ALLOW),
	DRM_IOCTL_DEF_DRV(TGPU_QUEUE_DESTROY, tgpu_ioctl_queue_destroy,
			  DRM_RENDER_ALLOW),
	DRM_IOCTL_DEF_DRV(TGPU_SUBMIT, tgpu_ioctl_submit, DRM_RENDER_ALLOW),
	DRM_IOCTL_DEF_DRV(TGPU_QUEUE_QUERY, tgpu_ioctl_queue_query,
			  DRM_RENDER_ALLOW),
	DRM_IOCTL_DEF_DRV(TGPU_RESET_STATUS, tgpu_ioctl_reset_status,
			  DRM_RENDER_ALLOW),
	DRM_IOCTL_DEF_DRV(TGPU_WAIT, tgpu_ioctl_wait, DRM_RENDER_ALLOW),
	DRM_IOCTL_DEF_DRV(TGPU_USER_FENCE, tgpu_ioctl_user_fence,
			  DRM_RENDER_ALLOW),
};

/* Each open file gets its own GPU address space and queues. */
static int tgpu_open(struct drm_device *ddev, struct drm_file *file)
{
	struct tgpu_device *tdev = to_tgpu_device(ddev);
	struct tgpu_file *tfile;
	int ret;

	tfile = kzalloc(sizeof(*tfile), GFP_KERNEL);
	if (!tfile)
		return -ENOMEM;

	ret = tgpu_vm_init(tdev, &tfile->vm);
	if (ret) {
		kfree(tfile);
		return ret;
	}
	xa_init_flags(&tfile->queues, XA_FLAGS_ALLOC1);
	init_rwsem(&tfile->queues_lock);
	/* resets before the file was opened are not its business */
	tfile->resets_at_open = atomic_read(&tdev->reset.count);
	tfile->vram_lost_at_open = atomic_read(&tdev->reset.vram_lost);
	file->driver_priv = tfile;
	return 0;
}

/* Queues first (they run in the VM), then the VM. */
static void tgpu_postclose(struct drm_device *ddev, struct drm_file *file)
{
	struct tgpu_file *tfile = to_tgpu_file(file);

	tgpu_file_queues_fini(tfile, file);
	tgpu_vm_fini(&tfile->vm);
	kfree(tfile);
}

/*
 * fdinfo: the memory keys (tgpu_gem.c), then the fences of this file
 * whose interrupt was lost and a timeout found done.
 */
static void tgpu_show_fdinfo(struct drm_printer *p, struct drm_file *file)
{
	struct tgpu_device *tdev = to_tgpu_device(file->minor->dev);
	struct tgpu_file *tfile = to_tgpu_file(file);

	/* Documentation/gpu/drm-usage-stats.rst */
	drm_printf(p, "drm-engine-compute:\t%lld ns\n",
		   atomic64_read(&tfile->busy_ns[TGPU_FILE_ENGINE_COMPUTE]));
	drm_printf(p, "drm-engine-copy:\t%lld ns\n",
		   atomic64_read(&tfile->busy_ns[TGPU_FILE_ENGINE_COPY]));
	drm_printf(p, "drm-engine-capacity-copy:\t%u\n", TGPU_CE_COUNT);
	drm_printf(p, "drm-cycles-compute:\t%lld\n",
		   atomic64_read(&tfile->cycles));
	drm_printf(p, "drm-maxfreq-compute:\t%u MHz\n",
		   READ_ONCE(tdev->therm.boost));
	tgpu_gem_show_fdinfo(p, file);
	drm_printf(p, "tgpu-missed-irqs:\t%lld\n",
		   atomic64_read(&to_tgpu_file(file)->missed_irqs));
}

/* DRM_GEM_FOPS, with an mmap that knows the doorbell page (tgpu_uq.c) */
static const struct file_operations tgpu_drm_fops = {
	.owner = THIS_MODULE,
	.open = drm_open,
	.release = drm_release,
	.unlocked_ioctl = drm_ioctl,
	.compat_ioctl = drm_compat_ioctl,
	.poll = drm_poll,
	.read = drm_read,
	.llseek = noop_llseek,
	.mmap = tgpu_mmap,
	.fop_flags = FOP_UNSIGNED_OFFSET,
	.show_fdinfo = drm_show_fdinfo,
};

/*
 * tgpu DRM driver version:
 * - 1.0.0 - initial interface: DRM_IOCTL_TGPU_GET_PARAM
 * - 1.1.0 - VRAM buffer objects: DRM_IOCTL_TGPU_GEM_CREATE,
 *           DRM_IOCTL_TGPU_GEM_MMAP_OFFSET, DRM_TGPU_PARAM_VRAM_USED
 * - 1.2.0 - per-file GPU VM, queues and submission:
 *           DRM_IOCTL_TGPU_VM_BIND, DRM_IOCTL_TGPU_VM_UNBIND,
 *           DRM_IOCTL_TGPU_QUEUE_CREATE, DRM_IOCTL_TGPU_QUEUE_DESTROY,
 *           DRM_IOCTL_TGPU_SUBMIT
 * - 1.3.0 - system-memory buffer objects: DRM_TGPU_GEM_CREATE_SYSMEM
 * - 1.4.0 - why a queue died: DRM_IOCTL_TGPU_QUEUE_QUERY
 * - 1.5.0 - engine list and limits: DRM_TGPU_PARAM_CHANNELS to
 *           DRM_TGPU_PARAM_TIMESTAMP_FREQ
 * - 1.6.0 - ECC: DRM_TGPU_PARAM_ECC_ENABLED,
 *           DRM_TGPU_PARAM_RETIRED_PAGES_SBE, DRM_TGPU_PARAM_RETIRED_PAGES_DBE
 * - 1.7.0 - recovery: DRM_IOCTL_TGPU_RESET_STATUS; a hung job's fences
 *           fail with -ETIME (was -ETIMEDOUT) and its file's later
 *           submits with -ECANCELED
 * - 1.8.0 - a job timeout per queue: drm_tgpu_queue_create.timeout_ms
 * - 1.9.0 - user-mode submission: DRM_TGPU_QUEUE_USER_SUBMIT,
 *           DRM_IOCTL_TGPU_WAIT, DRM_IOCTL_TGPU_USER_FENCE
 */
static const struct drm_driver tgpu_drm_driver = {
	.driver_features = DRIVER_GEM | DRIVER_RENDER | DRIVER_SYNCOBJ |
			   DRIVER_SYNCOBJ_TIMELINE | DRIVER_GEM_GPUVA,
	.open = tgpu_open,
	.postclose = tgpu_postclose,
	.show_fdinfo = tgpu_show_fdinfo,
	.gem_create_object = tgpu_gem_create_object,
	/* another device's dma-buf becomes a system-memory object */
	.gem_prime_import_sg_table = tgpu_gem_prime_import_sg_table,
	.ioctls = tgpu_drm_ioctls,
	.num_ioctls = ARRAY_SIZE(tgpu_drm_ioctls),
	.fops = &tgpu_drm_fops,
	.name = TGPU_DRIVER_NAME,
	.desc = "tgpu emulated Tesla-class compute GPU",
	.major = 1,
	.minor = 9,
	.patchlevel = 0,
};

static int tgpu_probe(struct pci_dev *pdev, const struct pci_device_id *ent)
{
	struct tgpu_device *tdev;
	struct tgpu_identity *id;
	int ret;

	tdev = devm_drm_dev_alloc(&pdev->dev, &tgpu_drm_driver,
				  struct tgpu_device, base);
	if (IS_ERR(tdev))
		return PTR_ERR(tdev);

	tdev->pdev = pdev;
	pci_set_drvdata(pdev, tdev);

	ret = tgpu_device_init(tdev);
	if (ret)
		return ret;

	tgpu_debugfs_init(tdev);

	ret = drm_dev_register(&tdev->base, 0);
	if (ret)
		return dev_err_probe(&pdev->dev, ret,
				     "cannot register the DRM device\n");

	id = &tdev->id;
	dev_info(&pdev->dev, "%s (%s rev %02x), %llu MiB VRAM, %u SMs, iface %u.%u\n",
		 id->product_name, id->chip_name, TGPU_BOOT_0_REV(id->boot0),
		 id->vram_size / SZ_1M, id->sm_count,
		 TGPU_IFACE_MAJOR(id->iface_version),
		 TGPU_IFACE_MINOR(id->iface_version));
	return 0;
}

static void tgpu_remove(struct pci_dev *pdev)
{
	struct tgpu_device *tdev = pci_get_drvdata(pdev);

	tgpu_device_unplug(tdev);
}

static const struct pci_device_id tgpu_pci_ids[] = {
	{ PCI_DEVICE(TGPU_PCI_VENDOR_ID, TGPU_PCI_DEVICE_ID_P100) },
	{ PCI_DEVICE(TGPU_PCI_VENDOR_ID, TGPU_PCI_DEVICE_ID_P40) },
	{ PCI_DEVICE(TGPU_PCI_VENDOR_ID, TGPU_PCI_DEVICE_ID_M40) },
	{ }
};
MODULE_DEVICE_TABLE(pci, tgpu_pci_ids);

/* Files under the PCI device: made after probe, gone before remove. */
static const struct attribute_group *tgpu_dev_groups[] = {
	&tgpu_ecc_group,
	&tgpu_ecc_error_group,
	&tgpu_therm_group,
	&tgpu_therm_counters_group,
	NULL
};

static struct pci_driver tgpu_pci_driver = {
	.name = TGPU_DRIVER_NAME,
	.id_table = tgpu_pci_ids,
	.probe = tgpu_probe,
	.remove = tgpu_remove,
	.err_handler = &tgpu_pci_err_handlers,
	.dev_groups = tgpu_dev_groups,
};
module_pci_driver(tgpu_pci_driver);

MODULE_AUTHOR("The tgpu authors");
MODULE_DESCRIPTION("DRM driver for the tgpu emulated Tesla-class compute GPU");
MODULE_LICENSE("Dual MIT/GPL");
MODULE_IMPORT_NS(DMA_BUF);
