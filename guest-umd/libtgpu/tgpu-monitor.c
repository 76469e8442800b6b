// SPDX-License-Identifier: MIT
/*
 * libtgpu: monitoring, the device's state now (the "Monitoring" block of
 * libtgpu.h).  Everything is asked of the kernel at each call: VRAM use
 * through DRM_TGPU_PARAM_VRAM_USED, the processes through DRM fdinfo
 * (tgpu-fdinfo.c parses it).  Only public calls of tgpu.c are used, so
 * device handles are checked there, with their messages.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include <tgpu_drm.h>

#include "libtgpu.h"
#include "tgpu-fdinfo.h"
#include "tgpu-internal.h"
#include "tgpu-util.h"

#define TGPU_DRIVER_NAME "tgpu"

__attribute__((format(printf, 2, 3)))
static tgpu_status fail(tgpu_status st, const char *fmt, ...)
{
	char msg[512];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	tu_set_last_error(msg);
	return st;
}

tgpu_status tgpu_device_get_memory_info(const tgpu_device *dev,
					uint64_t *free_bytes,
					uint64_t *total_bytes)
{
	struct tgpu_device_info info;
	tgpu_status st;
	uint64_t used;

	if (!free_bytes || !total_bytes)
		return fail(TGPU_ERROR_INVALID_VALUE,
			    "tgpu_device_get_memory_info: %s is NULL",
			    free_bytes ? "total_bytes" : "free_bytes");
	st = tgpu_device_get_info(dev, &info);
	if (st)
		return st;
	st = tgpu_device_get_param(dev, DRM_TGPU_PARAM_VRAM_USED, &used);
	if (st)
		return st;
	*total_bytes = info.vram_size;
	/* The driver's allocator never hands out more than there is. */
	*free_bytes = used < info.vram_size ? info.vram_size - used : 0;
	return TGPU_SUCCESS;
}

tgpu_status tgpu_device_get_processes(const tgpu_device *dev,
				      struct tgpu_process_info *procs,
				      int max, int *count)
{
	struct tgpu_device_info info;
	struct tu_pci_addr addr;
	tgpu_status st;
	int err;

	if (!count)
		return fail(TGPU_ERROR_INVALID_VALUE,
			    "tgpu_device_get_processes: count is NULL");
	if (max < 0 || (max > 0 && !procs))
		return fail(TGPU_ERROR_INVALID_VALUE,
			    "tgpu_device_get_processes: max is %d with procs %s: "
			    "pass an array of max entries, or NULL and 0 to count",
			    max, procs ? "set" : "NULL");
	st = tgpu_device_get_info(dev, &info);
	if (st)
		return st;
	if (!tu_parse_pci_bus_id(info.pci_bus_id, &addr))
		return fail(TGPU_ERROR_NOT_SUPPORTED,
			    "%s has no PCI bus id, which DRM fdinfo names devices by",
			    info.render_node);

	err = -tu_proc_scan_drm("/proc", TGPU_DRIVER_NAME, &addr, procs, max, count);
	if (err == ENOMEM)
		return fail(TGPU_ERROR_OUT_OF_MEMORY,
			    "out of memory listing the processes of %s", info.pci_bus_id);
	if (err)
		return fail(TGPU_ERROR_NOT_SUPPORTED,
			    "cannot read /proc: %s: mount procfs (mount -t proc proc /proc)",
			    strerror(err));
	return TGPU_SUCCESS;
}
