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
#define DRM_TGPU_GEM_CREATE         0x01
#define DRM_TGPU_GEM_MMAP_OFFSET    0x02

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
	DRM_TGPU_PARAM_VRAM_USED,       /* bytes allocated, driver's own included */
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

/**
 * struct drm_tgpu_gem_create - allocate a buffer object in VRAM
 * @size: size in bytes (in); rounded up to the CPU page size (out)
 * @flags: must be zero: the object is in VRAM, CPU-mappable
 * @handle: GEM handle of the new object, local to this file (out)
 *
 * The object's memory is zeroed.  Errors: -EINVAL for a zero size, a size
 * that cannot be rounded up to a page, or non-zero @flags; -E2BIG for a
 * size larger than the CPU-visible VRAM; -ENOSPC when VRAM has no room
 * for it now; -ENOMEM when kernel memory runs out; -EINTR when the caller
 * is killed while the memory is being cleared.
 */
struct drm_tgpu_gem_create {
	__u64 size;
	__u32 flags;
	__u32 handle;
};

/**
 * struct drm_tgpu_gem_mmap_offset - get the fake offset to mmap an object
 * @handle: GEM handle (in)
 * @pad: must be zero
 * @offset: pass this to mmap() on the same DRM file (out)
 *
 * The mapping is write-combined and shared (MAP_PRIVATE is refused with
 * -EINVAL by mmap).  It stays valid after the handle is closed, until it
 * is unmapped.  Errors: -EINVAL for non-zero @pad, -ENOENT for a handle
 * this file does not have.
 */
struct drm_tgpu_gem_mmap_offset {
	__u32 handle;
	__u32 pad;
	__u64 offset;
};

#define DRM_IOCTL_TGPU_GET_PARAM \
	DRM_IOWR(DRM_COMMAND_BASE + DRM_TGPU_GET_PARAM, struct drm_tgpu_get_param)
#define DRM_IOCTL_TGPU_GEM_CREATE \
	DRM_IOWR(DRM_COMMAND_BASE + DRM_TGPU_GEM_CREATE, struct drm_tgpu_gem_create)
#define DRM_IOCTL_TGPU_GEM_MMAP_OFFSET \
	DRM_IOWR(DRM_COMMAND_BASE + DRM_TGPU_GEM_MMAP_OFFSET, \
		 struct drm_tgpu_gem_mmap_offset)

#if defined(__cplusplus)
}
#endif

#endif /* TGPU_DRM_H */
