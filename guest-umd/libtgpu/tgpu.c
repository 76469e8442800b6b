// SPDX-License-Identifier: MIT
/*
 * libtgpu: initialization, device enumeration and device queries.
 *
 * Lifetime and threading are described in libtgpu.h.  In short: one
 * pthread_once() init builds an immutable, bus-id-sorted device table
 * whose render nodes stay open until exit; every failure writes a
 * thread-local message.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <xf86drm.h>

#include <tgpu/regs.h>
#include <tgpu_drm.h>

#include "libtgpu.h"
#include "tgpu-internal.h"
#include "tgpu-util.h"

#ifndef TGPU_VERSION
#error "TGPU_VERSION must come from the build system (meson project version)"
#endif

#define MSG_LEN 512
#define TGPU_DRIVER_NAME "tgpu"

struct tgpu_device {
	int fd;
	struct tu_pci_addr addr;    /* sort key */
	struct tgpu_device_info info;
};

static __thread char tls_msg[MSG_LEN];

static pthread_once_t init_once = PTHREAD_ONCE_INIT;
static int init_done;           /* atomic; set last by do_init() */
static tgpu_status init_status;
static char init_msg[MSG_LEN];  /* why init failed; written once */
static struct tgpu_device *devices;
static int device_count;

__attribute__((format(printf, 3, 4)))
static tgpu_status fail_to(char *buf, tgpu_status st, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(buf, MSG_LEN, fmt, ap);
	va_end(ap);
	return st;
}

#define fail(st, ...) fail_to(tls_msg, (st), __VA_ARGS__)
#define init_fail(st, ...) fail_to(init_msg, (st), __VA_ARGS__)

/* ---- status strings ------------------------------------------------------ */

const char *tgpu_get_version_string(void)
{
	return TGPU_VERSION;
}

#define UNRECOGNIZED "unrecognized tgpu status code"

const char *tgpu_get_error_string(tgpu_status status)
{
	switch (status) {
	case TGPU_SUCCESS:
		return "no error";
	case TGPU_ERROR_INVALID_VALUE:
		return "invalid argument";
	case TGPU_ERROR_OUT_OF_MEMORY:
		return "out of host memory";
	case TGPU_ERROR_NOT_INITIALIZED:
		return "libtgpu is not initialized (call tgpu_init(0) first)";
	case TGPU_ERROR_NO_DEVICE:
		return "no tgpu device found";
	case TGPU_ERROR_INVALID_DEVICE:
		return "invalid device ordinal, handle or bus id";
	case TGPU_ERROR_NO_DRIVER:
		return "the tgpu kernel driver (tgpu.ko) is not loaded";
	case TGPU_ERROR_DEVICE_UNAVAILABLE:
		return "device unavailable (gone, reset or broken)";
	case TGPU_ERROR_INVALID_COMMANDS:
		return "malformed command buffer (refused before submission)";
	case TGPU_ERROR_DEVICE_LOST:
		return "the device was lost (unbound, reset or bus loss); destroy the context";
	case TGPU_ERROR_DEVICE_RESET:
		return "the device was reset and device memory is to be treated as lost; destroy the context";
	case TGPU_ERROR_DEVICE_DEGRADED:
		return "the device retired more memory pages than its limit: it runs with less memory; replace the board";
	case TGPU_ERROR_OUT_OF_DEVICE_MEMORY:
		return "out of device memory or hardware channels";
	case TGPU_ERROR_INVALID_IMAGE:
		return "not a valid kernel image or assembly source";
	case TGPU_ERROR_INVALID_CONTEXT:
		return "invalid or destroyed context";
	case TGPU_ERROR_ECC_UNCORRECTABLE:
		return "uncorrectable ECC error; destroy the context";
	case TGPU_ERROR_INVALID_HANDLE:
		return "invalid stream, event, module or function handle";
	case TGPU_ERROR_NOT_FOUND:
		return "no kernel of that name in the module";
	case TGPU_ERROR_NOT_READY:
		return "work not finished yet";
	case TGPU_ERROR_ILLEGAL_ADDRESS:
		return "GPU memory access fault; destroy the context";
	case TGPU_ERROR_LAUNCH_TIMEOUT:
		return "GPU work stopped making progress and its engine was reset; destroy the context";
	case TGPU_ERROR_LAUNCH_FAILED:
		return "GPU work failed (kernel or engine error); destroy the context";
	case TGPU_ERROR_NOT_SUPPORTED:
		return "operation not supported by the kernel driver";
	case TGPU_ERROR_PERMISSION_DENIED:
		return "permission denied";
	case TGPU_ERROR_OS:
		return "operating system call failed";
	case TGPU_ERROR_UNKNOWN:
		return "unknown error";
	}
	return UNRECOGNIZED;
}

const char *tgpu_get_error_name(tgpu_status status)
{
#define NAME(s) case s: return #s
	switch (status) {
	NAME(TGPU_SUCCESS);
	NAME(TGPU_ERROR_INVALID_VALUE);
	NAME(TGPU_ERROR_OUT_OF_MEMORY);
	NAME(TGPU_ERROR_NOT_INITIALIZED);
	NAME(TGPU_ERROR_NO_DEVICE);
	NAME(TGPU_ERROR_INVALID_DEVICE);
	NAME(TGPU_ERROR_NO_DRIVER);
	NAME(TGPU_ERROR_DEVICE_UNAVAILABLE);
	NAME(TGPU_ERROR_INVALID_COMMANDS);
	NAME(TGPU_ERROR_DEVICE_LOST);
	NAME(TGPU_ERROR_DEVICE_RESET);
	NAME(TGPU_ERROR_DEVICE_DEGRADED);
	NAME(TGPU_ERROR_OUT_OF_DEVICE_MEMORY);
	NAME(TGPU_ERROR_INVALID_IMAGE);
	NAME(TGPU_ERROR_INVALID_CONTEXT);
	NAME(TGPU_ERROR_ECC_UNCORRECTABLE);
	NAME(TGPU_ERROR_INVALID_HANDLE);
	NAME(TGPU_ERROR_NOT_FOUND);
	NAME(TGPU_ERROR_NOT_READY);
	NAME(TGPU_ERROR_ILLEGAL_ADDRESS);
	NAME(TGPU_ERROR_LAUNCH_TIMEOUT);
	NAME(TGPU_ERROR_LAUNCH_FAILED);
	NAME(TGPU_ERROR_NOT_SUPPORTED);
	NAME(TGPU_ERROR_PERMISSION_DENIED);
	NAME(TGPU_ERROR_OS);
	NAME(TGPU_ERROR_UNKNOWN);
	}
#undef NAME
	return UNRECOGNIZED;
}

const char *tgpu_get_last_error_message(void)
{
	return tls_msg[0] ? tls_msg : "no error recorded on this thread";
}

void tu_set_last_error(const char *msg)
{
	snprintf(tls_msg, MSG_LEN, "%s", msg);
}

tgpu_status tu_fail_wrap(tgpu_status st, const char *fmt, ...)
{
	char prev[MSG_LEN];
	size_t n;
	va_list ap;

	memcpy(prev, tls_msg, MSG_LEN);
	va_start(ap, fmt);
	vsnprintf(tls_msg, MSG_LEN, fmt, ap);
	va_end(ap);
	n = strlen(tls_msg);
	snprintf(tls_msg + n, MSG_LEN - n, ": %s", prev);
	return st;
}

tgpu_status tu_fail(tgpu_status st, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(tls_msg, MSG_LEN, fmt, ap);
	va_end(ap);
	return st;
}

/* ---- errno mapping -------------------------------------------------------- */

tgpu_status tu_status_from_errno(int err)
{
	switch (err) {
	case EACCES:
	case EPERM:
		return TGPU_ERROR_PERMISSION_DENIED;
	case ENOMEM:
		return TGPU_ERROR_OUT_OF_MEMORY;
	case ENODEV:
	case ENXIO:
	case ENOENT:
	case EIO:
		return TGPU_ERROR_DEVICE_UNAVAILABLE;
	case EINVAL:
	case ENOTTY:
		return TGPU_ERROR_NOT_SUPPORTED;
	}
	return TGPU_ERROR_OS;
}

/* What to do about errno err on a render node. */
const char *tu_errno_hint(int err)
{
	switch (err) {
	case EACCES:
	case EPERM:
		return "add the user to the group owning the node (usually 'render') or run as root";
	case ENODEV:
	case ENXIO:
	case ENOENT:
	case EIO:
		return "the device is gone or broken (bus loss, failed reset?): check dmesg";
	case EINVAL:
	case ENOTTY:
		return "libtgpu and tgpu.ko disagree on the uAPI: build both from the same tree";
	case ENOMEM:
		return "the system is out of memory";
	}
	return "check dmesg";
}

/* ---- enumeration ---------------------------------------------------------- */

static int get_param(int fd, uint32_t param, uint64_t *value)
{
	struct drm_tgpu_get_param gp = { .param = param };

	/* drmIoctl restarts on EINTR/EAGAIN. */
	if (drmIoctl(fd, DRM_IOCTL_TGPU_GET_PARAM, &gp))
		return -errno;
	*value = gp.value;
	return 0;
}

/* The PCI ids regs.h assigns: used only when the node can't be asked. */
static bool is_tgpu_pci_id(const drmDevice *d)
{
	if (d->bustype != DRM_BUS_PCI || !d->deviceinfo.pci)
		return false;
	if (d->deviceinfo.pci->vendor_id != TGPU_PCI_VENDOR_ID)
		return false;
	switch (d->deviceinfo.pci->device_id) {
	case TGPU_PCI_DEVICE_ID_P100:
	case TGPU_PCI_DEVICE_ID_P40:
	case TGPU_PCI_DEVICE_ID_M40:
		return true;
	}
	return false;
}

static void fill_info(struct tgpu_device *td, const drmDevice *d,
		      const uint64_t *v)
{
	struct tgpu_device_info *info = &td->info;
	struct tu_chip ci;

	tu_chip_decode((uint32_t)v[DRM_TGPU_PARAM_CHIP_ID], &ci);
	snprintf(info->name, sizeof(info->name), "%s", ci.product);
	snprintf(info->chip, sizeof(info->chip), "%s", ci.chip);
	snprintf(info->arch_name, sizeof(info->arch_name), "%s", ci.arch_name);
	info->chip_id = ci.boot0;
	info->arch = ci.arch;
	info->impl = ci.impl;
	info->rev = ci.rev;
	info->iface_version = (uint32_t)v[DRM_TGPU_PARAM_IFACE_VERSION];

	if (d->bustype == DRM_BUS_PCI && d->businfo.pci) {
		td->addr.domain = d->businfo.pci->domain;
		td->addr.bus = d->businfo.pci->bus;
		td->addr.dev = d->businfo.pci->dev;
		td->addr.func = d->businfo.pci->func;
	}
	tu_fmt_pci_bus_id(info->pci_bus_id, sizeof(info->pci_bus_id), &td->addr);
	info->pci_domain = td->addr.domain;
	info->pci_bus = td->addr.bus;
	info->pci_dev = td->addr.dev;
	info->pci_func = td->addr.func;
	info->pci_vendor_id = (uint16_t)(v[DRM_TGPU_PARAM_PCI_ID] >> 16);
	info->pci_device_id = (uint16_t)v[DRM_TGPU_PARAM_PCI_ID];

	info->vram_size = v[DRM_TGPU_PARAM_VRAM_SIZE];
	info->bar0_size = v[DRM_TGPU_PARAM_BAR0_SIZE];
	info->bar1_size = v[DRM_TGPU_PARAM_BAR1_SIZE];
	info->sm_count = (uint32_t)v[DRM_TGPU_PARAM_SM_COUNT];
	info->engines = (uint32_t)v[DRM_TGPU_PARAM_ENGINES];
	info->clk_sm_base_mhz = (uint32_t)v[DRM_TGPU_PARAM_CLK_SM_BASE_MHZ];
	info->clk_sm_boost_mhz = (uint32_t)v[DRM_TGPU_PARAM_CLK_SM_BOOST_MHZ];
	info->clk_mem_mhz = (uint32_t)v[DRM_TGPU_PARAM_CLK_MEM_MHZ];
	info->power_limit_mw = (uint32_t)v[DRM_TGPU_PARAM_POWER_LIMIT_MW];
	info->msix_vectors = (uint32_t)v[DRM_TGPU_PARAM_MSIX_VECTORS];
	info->ecc_enabled = v[DRM_TGPU_PARAM_ECC_ENABLED] != 0;
	info->retired_pages_sbe = (uint32_t)v[DRM_TGPU_PARAM_RETIRED_PAGES_SBE];
	info->retired_pages_dbe = (uint32_t)v[DRM_TGPU_PARAM_RETIRED_PAGES_DBE];
}

/*
 * Open one DRM device's render node and, if its driver is tgpu, fill td.
 * *ours tells whether the device is a tgpu at all: failures on other
 * drivers' devices are none of our business.
 */
static tgpu_status probe(const drmDevice *d, struct tgpu_device *td, bool *ours)
{
	const char *node = d->nodes[DRM_NODE_RENDER];
	uint64_t v[DRM_TGPU_PARAM_COUNT];
	drmVersionPtr ver;
	uint32_t p;
	int fd, err;

	*ours = false;
	fd = open(node, O_RDWR | O_CLOEXEC);
	if (fd < 0) {
		err = errno;
		if (!is_tgpu_pci_id(d))
			return TGPU_SUCCESS;
		*ours = true;
		return init_fail(tu_status_from_errno(err), "cannot open %s: %s: %s",
				 node, strerror(err), tu_errno_hint(err));
	}

	ver = drmGetVersion(fd);
	if (!ver || !ver->name || strcmp(ver->name, TGPU_DRIVER_NAME) != 0) {
		err = errno;
		drmFreeVersion(ver);
		close(fd);
		if (ver || !is_tgpu_pci_id(d))
			return TGPU_SUCCESS;
		*ours = true;
		return init_fail(tu_status_from_errno(err),
				 "DRM_IOCTL_VERSION on %s failed: %s: %s", node,
				 strerror(err), tu_errno_hint(err));
	}
	*ours = true;

	memset(td, 0, sizeof(*td));
	snprintf(td->info.render_node, sizeof(td->info.render_node), "%s", node);
	snprintf(td->info.driver_name, sizeof(td->info.driver_name), "%s", ver->name);
	snprintf(td->info.driver_version, sizeof(td->info.driver_version),
		 "%d.%d.%d", ver->version_major, ver->version_minor,
		 ver->version_patchlevel);
	snprintf(td->info.driver_date, sizeof(td->info.driver_date), "%s",
		 ver->date ? ver->date : "");
	drmFreeVersion(ver);

	/* Static properties, read once: the driver must know all of them. */
	for (p = 0; p < DRM_TGPU_PARAM_COUNT; p++) {
		err = -get_param(fd, p, &v[p]);
		if (err) {
			close(fd);
			return init_fail(tu_status_from_errno(err),
					 "DRM_IOCTL_TGPU_GET_PARAM(%s) on %s failed: %s: %s",
					 tu_param_name(p), node, strerror(err),
					 tu_errno_hint(err));
		}
	}

	td->fd = fd;
	fill_info(td, d, v);
	return TGPU_SUCCESS;
}

static int cmp_device(const void *a, const void *b)
{
	const struct tgpu_device *da = a, *db = b;

	return tu_pci_addr_cmp(&da->addr, &db->addr);
}

static bool driver_loaded(void)
{
	struct stat st;

	return stat("/sys/module/" TGPU_DRIVER_NAME, &st) == 0;
}

static tgpu_status enumerate(void)
{
	tgpu_status first_err = TGPU_SUCCESS, st;
	char first_msg[MSG_LEN] = "";
	drmDevicePtr *drm = NULL;
	int n, max, i, kept = 0;
	bool ours;

	/* First call counts, second fills; the count may shrink in between. */
	n = drmGetDevices2(0, NULL, 0);
	if (n == -ENOENT)
		n = 0;  /* no /dev/dri at all */
	if (n < 0)
		return init_fail(TGPU_ERROR_OS,
				 "drmGetDevices2 failed: %s: is /dev/dri readable?",
				 strerror(-n));
	if (n > 0) {
		max = n;
		drm = calloc(max, sizeof(*drm));
		devices = calloc(max, sizeof(*devices));
		if (!drm || !devices) {
			free(drm);
			free(devices);
			devices = NULL;
			return init_fail(TGPU_ERROR_OUT_OF_MEMORY,
					 "out of memory enumerating %d DRM devices", n);
		}
		n = drmGetDevices2(0, drm, max);
		if (n < 0)
			n = 0;
	}

	for (i = 0; i < n; i++) {
		if (!(drm[i]->available_nodes & (1 << DRM_NODE_RENDER)))
			continue;
		st = probe(drm[i], &devices[kept], &ours);
		if (st == TGPU_SUCCESS && ours)
			kept++;
		else if (st != TGPU_SUCCESS && first_err == TGPU_SUCCESS) {
			/* Report the first broken device, not the last. */
			first_err = st;
			memcpy(first_msg, init_msg, MSG_LEN);
		}
	}
	if (drm)
		drmFreeDevices(drm, n);
	free(drm);

	/* Broken tgpu devices are skipped when others work. */
	if (kept > 0) {
		qsort(devices, kept, sizeof(*devices), cmp_device);
		for (i = 0; i < kept; i++)
			devices[i].info.ordinal = i;
		device_count = kept;
		init_msg[0] = '\0';
		return TGPU_SUCCESS;
	}
	free(devices);
	devices = NULL;
	if (first_err != TGPU_SUCCESS) {
		memcpy(init_msg, first_msg, MSG_LEN);
		return first_err;
	}
	if (!driver_loaded())
		return init_fail(TGPU_ERROR_NO_DRIVER,
				 "no tgpu render node found and tgpu.ko is not loaded: "
				 "load it (insmod tgpu.ko or modprobe tgpu), then check ls /dev/dri");
	return init_fail(TGPU_ERROR_NO_DEVICE,
			 "tgpu.ko is loaded but no tgpu render node was found: "
			 "check 'lspci -nn -d %04x:' for the device and dmesg for probe errors",
			 TGPU_PCI_VENDOR_ID);
}

static void do_init(void)
{
	init_status = enumerate();
	/* Publishes init_status, init_msg and the device table. */
	__atomic_store_n(&init_done, 1, __ATOMIC_RELEASE);
}

/* ---- public entry points -------------------------------------------------- */

tgpu_status tu_check_ready(void)
{
	if (!__atomic_load_n(&init_done, __ATOMIC_ACQUIRE))
		return fail(TGPU_ERROR_NOT_INITIALIZED,
			    "libtgpu is not initialized: call tgpu_init(0) first");
	if (init_status != TGPU_SUCCESS)
		return fail(init_status, "tgpu_init() failed: %s", init_msg);
	return TGPU_SUCCESS;
}

tgpu_status tu_check_device(const tgpu_device *dev, const char *fn)
{
	uintptr_t p = (uintptr_t)dev, lo = (uintptr_t)devices;

	if (!dev)
		return fail(TGPU_ERROR_INVALID_VALUE, "%s: device handle is NULL", fn);
	if (p < lo || p >= lo + (uintptr_t)device_count * sizeof(*devices) ||
	    (p - lo) % sizeof(*devices))
		return fail(TGPU_ERROR_INVALID_DEVICE,
			    "%s: %p is not a tgpu_device handle: get one from tgpu_device_get()",
			    fn, (const void *)dev);
	return TGPU_SUCCESS;
}

tgpu_status tgpu_init(unsigned int flags)
{
	int err;

	if (flags != 0)
		return fail(TGPU_ERROR_INVALID_VALUE,
			    "tgpu_init: flags must be 0, got 0x%x (no flags are defined yet)",
			    flags);
	err = pthread_once(&init_once, do_init);
	if (err)
		return fail(TGPU_ERROR_OS, "tgpu_init: pthread_once: %s", strerror(err));
	if (init_status != TGPU_SUCCESS)
		return fail(init_status, "%s", init_msg);
	return TGPU_SUCCESS;
}

tgpu_status tgpu_device_get_count(int *count)
{
	tgpu_status st;

	if (!count)
		return fail(TGPU_ERROR_INVALID_VALUE, "tgpu_device_get_count: count is NULL");
	st = tu_check_ready();
	if (st)
		return st;
	*count = device_count;
	return TGPU_SUCCESS;
}

tgpu_status tgpu_device_get(tgpu_device **dev, int ordinal)
{
	tgpu_status st;

	if (!dev)
		return fail(TGPU_ERROR_INVALID_VALUE, "tgpu_device_get: dev is NULL");
	st = tu_check_ready();
	if (st)
		return st;
	if (ordinal < 0 || ordinal >= device_count)
		return fail(TGPU_ERROR_INVALID_DEVICE,
			    "device ordinal %d out of range: %d tgpu device(s), valid ordinals 0..%d",
			    ordinal, device_count, device_count - 1);
	*dev = &devices[ordinal];
	return TGPU_SUCCESS;
}

tgpu_status tgpu_device_get_by_pci_bus_id(tgpu_device **dev, const char *bus_id)
{
	struct tu_pci_addr a;
	tgpu_status st;
	int i;

	if (!dev || !bus_id)
		return fail(TGPU_ERROR_INVALID_VALUE,
			    "tgpu_device_get_by_pci_bus_id: %s is NULL", dev ? "bus_id" : "dev");
	st = tu_check_ready();
	if (st)
		return st;
	if (!tu_parse_pci_bus_id(bus_id, &a))
		return fail(TGPU_ERROR_INVALID_VALUE,
			    "\"%s\" is not a PCI bus id: use DDDD:BB:DD.F as 'lspci -D' prints it",
			    bus_id);
	for (i = 0; i < device_count; i++) {
		if (tu_pci_addr_cmp(&a, &devices[i].addr) == 0) {
			*dev = &devices[i];
			return TGPU_SUCCESS;
		}
	}
	return fail(TGPU_ERROR_INVALID_DEVICE,
		    "no tgpu device at PCI bus id %s: 'tgpu-smi -L' lists them", bus_id);
}

tgpu_status tgpu_device_get_info(const tgpu_device *dev,
				 struct tgpu_device_info *info)
{
	tgpu_status st;

	if (!info)
		return fail(TGPU_ERROR_INVALID_VALUE, "tgpu_device_get_info: info is NULL");
	st = tu_check_ready();
	if (st)
		return st;
	st = tu_check_device(dev, "tgpu_device_get_info");
	if (st)
		return st;
	*info = dev->info;
	return TGPU_SUCCESS;
}

tgpu_status tgpu_device_get_param(const tgpu_device *dev, uint32_t param,
				  uint64_t *value)
{
	const char *name = tu_param_name(param);
	tgpu_status st;
	int err;

	if (!value)
		return fail(TGPU_ERROR_INVALID_VALUE, "tgpu_device_get_param: value is NULL");
	st = tu_check_ready();
	if (st)
		return st;
	st = tu_check_device(dev, "tgpu_device_get_param");
	if (st)
		return st;

	/* Unknown params go to the kernel anyway: a newer tgpu.ko may know them. */
	err = -get_param(dev->fd, param, value);
	if (!err)
		return TGPU_SUCCESS;
	if (err == EINVAL)
		return fail(TGPU_ERROR_NOT_SUPPORTED,
			    "%s does not know parameter %" PRIu32 "%s%s%s (this libtgpu knows 0..%d): "
			    "are libtgpu and tgpu.ko from the same tree?",
			    dev->info.render_node, param, name ? " (" : "",
			    name ? name : "", name ? ")" : "", DRM_TGPU_PARAM_COUNT - 1);
	return fail(tu_status_from_errno(err),
		    "DRM_IOCTL_TGPU_GET_PARAM(%" PRIu32 ") on %s failed: %s: %s", param,
		    dev->info.render_node, strerror(err), tu_errno_hint(err));
}

const struct tgpu_device_info *tu_device_info(const tgpu_device *dev)
{
	return &dev->info;
}
