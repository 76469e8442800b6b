/* SPDX-License-Identifier: MIT */
/*
 * tgpu DRM uAPI: the ioctl ABI between tgpu.ko and libtgpu.
 *
 * Every struct is 64-bit aligned with explicit padding; padding and
 * reserved fields must be zero (the driver answers -EINVAL otherwise),
 * so they can be given a meaning later without breaking old binaries.
 */
#ifndef TGPU_DRM_H
#define TGPU_DRM_H

#include "drm.h"

#if defined(__cplusplus)
extern "C" {
#endif

#define DRM_TGPU_GET_PARAM          0x00

/* Parameters for DRM_IOCTL_TGPU_GET_PARAM. */
enum drm_tgpu_param {
	DRM_TGPU_PARAM_CHIP_ID = 0,     /* BOOT_0 register, raw */
	DRM_TGPU_PARAM_IFACE_VERSION,   /* hardware interface, major << 16 | minor */
	DRM_TGPU_PARAM_PCI_ID,          /* vendor << 16 | device */
	DRM_TGPU_PARAM_VRAM_SIZE,       /* bytes */
	DRM_TGPU_PARAM_BAR0_SIZE,       /* bytes */
	DRM_TGPU_PARAM_BAR1_SIZE,       /* bytes */
	DRM_TGPU_PARAM_SM_COUNT,
	DRM_TGPU_PARAM_ENGINES,         /* TGPU_ENGINE_* bitmask */
	DRM_TGPU_PARAM_CLK_SM_BASE_MHZ,
	DRM_TGPU_PARAM_CLK_SM_BOOST_MHZ,
	DRM_TGPU_PARAM_CLK_MEM_MHZ,
	DRM_TGPU_PARAM_POWER_LIMIT_MW,
	DRM_TGPU_PARAM_MSIX_VECTORS,    /* MSI-X vectors the driver enabled */
	DRM_TGPU_PARAM_COUNT,           /* not a parameter: the number of them */
};

/**
 * struct drm_tgpu_get_param - read one device parameter
 * @param: one of enum drm_tgpu_param (in)
 * @pad: must be zero
 * @value: the parameter's value (out)
 *
 * Unknown parameters fail with -EINVAL.
 */
struct drm_tgpu_get_param {
	__u32 param;
	__u32 pad;
	__u64 value;
};

#define DRM_IOCTL_TGPU_GET_PARAM \
	DRM_IOWR(DRM_COMMAND_BASE + DRM_TGPU_GET_PARAM, struct drm_tgpu_get_param)

#if defined(__cplusplus)
}
#endif

#endif /* TGPU_DRM_H */
