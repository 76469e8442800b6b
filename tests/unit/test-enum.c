// SPDX-License-Identifier: MIT
/*
 * libtgpu enumeration against a fake libdrm.  This executable compiles
 * guest-umd/libtgpu/tgpu.c itself and does not link libdrm: the drm*
 * functions below stand in for it, describing DRM devices whose render
 * nodes are plain files in a temporary directory.  That covers what the
 * host cannot otherwise reach: filtering by driver name, bus-id ordering,
 * info decoding, GET_PARAM error mapping and the init failure paths.
 *
 * libtgpu initializes once per process, so every scenario runs in a
 * forked child; the child's TAP lines continue the parent's numbering
 * and it sends its counters back through a pipe.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <xf86drm.h>

#include <tgpu/regs.h>
#include <tgpu_drm.h>

#include "libtgpu.h"
#include "tap.h"

#define GiB (1024ull * 1024 * 1024)

/* ---- the fake libdrm ------------------------------------------------------ */

struct fake {
	char node[256];
	const char *driver;         /* NULL: DRM_IOCTL_VERSION fails with EIO */
	bool no_render;             /* primary node only */
	drmPciBusInfo bus;
	drmPciDeviceInfo pci;
	uint64_t params[DRM_TGPU_PARAM_COUNT];
	uint32_t bad_param;         /* GET_PARAM(bad_param) fails ... */
	int bad_errno;              /* ... with this errno, if non-zero */
};

static struct fake fakes[8];
static int nfakes;
static int devices_error;       /* drmGetDevices2 result when non-zero */
static char dir[] = "/tmp/tgpu-test-enum-XXXXXX";

static struct fake *fake_of_fd(int fd)
{
	char link[64], path[256];
	ssize_t n;
	int i;

	snprintf(link, sizeof(link), "/proc/self/fd/%d", fd);
	n = readlink(link, path, sizeof(path) - 1);
	if (n < 0)
		return NULL;
	path[n] = '\0';
	for (i = 0; i < nfakes; i++)
		if (strcmp(fakes[i].node, path) == 0)
			return &fakes[i];
	return NULL;
}

int drmGetDevices2(uint32_t flags, drmDevicePtr devices[], int max)
{
	int i;

	(void)flags;
	if (devices_error)
		return devices_error;
	if (!devices)
		return nfakes;
	for (i = 0; i < nfakes && i < max; i++) {
		drmDevicePtr d = calloc(1, sizeof(*d));

		d->nodes = calloc(DRM_NODE_MAX, sizeof(char *));
		d->nodes[DRM_NODE_RENDER] = fakes[i].node;
		d->available_nodes = 1 << (fakes[i].no_render ? DRM_NODE_PRIMARY : DRM_NODE_RENDER);
		d->bustype = DRM_BUS_PCI;
		d->businfo.pci = &fakes[i].bus;
		d->deviceinfo.pci = &fakes[i].pci;
		devices[i] = d;
	}
	return i;
}

void drmFreeDevices(drmDevicePtr devices[], int count)
{
	int i;

	for (i = 0; i < count; i++) {
		free(devices[i]->nodes);
		free(devices[i]);
	}
}

drmVersionPtr drmGetVersion(int fd)
{
	struct fake *f = fake_of_fd(fd);
	drmVersionPtr v;

	if (!f || !f->driver) {
		errno = EIO;
		return NULL;
	}
	v = calloc(1, sizeof(*v));
	v->version_major = 1;
	v->version_minor = 2;
	v->version_patchlevel = 3;
	v->name = strdup(f->driver);
	v->name_len = (int)strlen(v->name);
	v->date = strdup("20261129");
	v->desc = strdup("fake");
	return v;
}

void drmFreeVersion(drmVersionPtr v)
{
	if (!v)
		return;
	free(v->name);
	free(v->date);
	free(v->desc);
	free(v);
}

/*
 * libtgpu's syncobj calls: enumeration never reaches them, and nothing
 * here backs them, so they fail as a kernel without syncobjs would.
 */
int drmSyncobjCreate(int fd, uint32_t flags, uint32_t *handle)
{
	(void)fd, (void)flags, (void)handle;
	errno = ENOTTY;
	return -1;
}

int drmSyncobjDestroy(int fd, uint32_t handle)
{
	(void)fd, (void)handle;
	errno = ENOTTY;
	return -1;
}

int drmSyncobjWait(int fd, uint32_t *handles, unsigned num_handles, int64_t timeout_nsec,
		   unsigned flags, uint32_t *first_signaled)
{
	(void)fd, (void)handles, (void)num_handles, (void)timeout_nsec, (void)flags;
	(void)first_signaled;
	return -ENOTTY;
}

int drmSyncobjExportSyncFile(int fd, uint32_t handle, int *sync_file_fd)
{
	(void)fd, (void)handle, (void)sync_file_fd;
	errno = ENOTTY;
	return -1;
}

int drmSyncobjTransfer(int fd, uint32_t dst_handle, uint64_t dst_point, uint32_t src_handle,
		       uint64_t src_point, uint32_t flags)
{
	(void)fd, (void)dst_handle, (void)dst_point, (void)src_handle, (void)src_point;
	(void)flags;
	errno = ENOTTY;
	return -1;
}

/* The uAPI as tgpu_drm.h specifies it. */
int drmIoctl(int fd, unsigned long request, void *arg)
{
	struct fake *f = fake_of_fd(fd);
	struct drm_tgpu_get_param *gp = arg;

	if (!f || request != DRM_IOCTL_TGPU_GET_PARAM) {
		errno = f ? EINVAL : EBADF;
		return -1;
	}
	if (gp->pad || gp->param >= DRM_TGPU_PARAM_COUNT) {
		errno = EINVAL;
		return -1;
	}
	if (f->bad_errno && gp->param == f->bad_param) {
		errno = f->bad_errno;
		return -1;
	}
	gp->value = f->params[gp->param];
	return 0;
}

/* ---- scenarios ------------------------------------------------------------ */

static struct fake *add(const char *driver, uint8_t bus, uint16_t vendor,
			uint16_t device, bool create_node)
{
	struct fake *f = &fakes[nfakes];
	int fd;

	memset(f, 0, sizeof(*f));
	snprintf(f->node, sizeof(f->node), "%s/renderD%d", dir, 128 + nfakes);
	nfakes++;
	f->driver = driver;
	f->bus.bus = bus;
	f->pci.vendor_id = vendor;
	f->pci.device_id = device;
	if (create_node) {
		fd = open(f->node, O_CREAT | O_RDWR | O_CLOEXEC, 0600);
		if (fd >= 0)
			close(fd);
	}
	return f;
}

static struct fake *add_tgpu(uint8_t bus, uint32_t boot0, uint16_t device,
			     uint64_t vram, uint32_t sms)
{
	struct fake *f = add("tgpu", bus, TGPU_PCI_VENDOR_ID, device, true);

	f->params[DRM_TGPU_PARAM_CHIP_ID] = boot0;
	f->params[DRM_TGPU_PARAM_IFACE_VERSION] = 1u << 16;
	f->params[DRM_TGPU_PARAM_PCI_ID] = (uint32_t)TGPU_PCI_VENDOR_ID << 16 | device;
	f->params[DRM_TGPU_PARAM_VRAM_SIZE] = vram;
	f->params[DRM_TGPU_PARAM_BAR0_SIZE] = 16u << 20;
	f->params[DRM_TGPU_PARAM_BAR1_SIZE] = vram;
	f->params[DRM_TGPU_PARAM_SM_COUNT] = sms;
	f->params[DRM_TGPU_PARAM_ENGINES] = 7;
	f->params[DRM_TGPU_PARAM_CLK_SM_BASE_MHZ] = 1189;
	f->params[DRM_TGPU_PARAM_CLK_SM_BOOST_MHZ] = 1328;
	f->params[DRM_TGPU_PARAM_CLK_MEM_MHZ] = 715;
	f->params[DRM_TGPU_PARAM_POWER_LIMIT_MW] = 250000;
	f->params[DRM_TGPU_PARAM_MSIX_VECTORS] = 5;
	return f;
}

static void reset(void)
{
	int i;

	for (i = 0; i < nfakes; i++)
		unlink(fakes[i].node);
	nfakes = 0;
	devices_error = 0;
}

/* Runs fn in a child; its TAP lines continue our numbering. */
static void scenario(const char *name, void (*fn)(void))
{
	int p[2], st, counts[2];
	pid_t pid;

	diag("scenario: %s", name);
	fflush(stdout);
	if (pipe(p)) {
		ok(0, "pipe: %s", strerror(errno));
		return;
	}
	pid = fork();
	if (pid == 0) {
		close(p[0]);
		fn();
		reset();        /* the fakes live in the child */
		counts[0] = tap_n;
		counts[1] = tap_failed;
		fflush(stdout);
		_exit(write(p[1], counts, sizeof(counts)) == sizeof(counts) ? 0 : 1);
	}
	close(p[1]);
	if (read(p[0], counts, sizeof(counts)) == sizeof(counts)) {
		tap_n = counts[0];
		tap_failed = counts[1];
	}
	close(p[0]);
	waitpid(pid, &st, 0);
	ok(WIFEXITED(st) && WEXITSTATUS(st) == 0, "%s: scenario process exited cleanly", name);
}

/* Without a tgpu the status depends on whether this host loaded tgpu.ko. */
static tgpu_status absent_status(void)
{
	struct stat st;

	return stat("/sys/module/tgpu", &st) == 0 ? TGPU_ERROR_NO_DEVICE : TGPU_ERROR_NO_DRIVER;
}

static void two_gpus(void)
{
	struct tgpu_device_info info;
	tgpu_device *d0, *d1, *d;
	uint64_t v = 0;
	char want[64];
	int count = 0;

	is_int(tgpu_init(0), TGPU_SUCCESS, "tgpu_init(0) finds the fake devices");
	is_int(tgpu_device_get_count(&count), TGPU_SUCCESS, "get_count");
	is_int(count, 2, "two tgpu devices; virtio_gpu and the card-only node are skipped");

	is_int(tgpu_device_get(&d0, 0), TGPU_SUCCESS, "device 0");
	is_int(tgpu_device_get_info(d0, &info), TGPU_SUCCESS, "device 0 info");
	is_str(info.pci_bus_id, "0000:01:00.0", "ordinal 0 is the lowest bus id");
	is_int(info.ordinal, 0, "info.ordinal 0");
	is_str(info.name, "TGPU Tesla P100", "name decoded from BOOT_0");
	is_str(info.chip, "GP100", "chip");
	is_str(info.arch_name, "Pascal", "architecture");
	is_int(info.chip_id, 0x130000a1, "chip_id is raw BOOT_0");
	is_int(info.arch, 0x13, "arch");
	is_int(info.impl, 0x00, "impl");
	is_int(info.rev, 0xa1, "rev");
	is_int(info.pci_vendor_id, 0x1234, "vendor id from PCI_ID");
	is_int(info.pci_device_id, 0x15f8, "device id from PCI_ID");
	is_int(info.pci_bus, 1, "pci_bus");
	is_int((long long)info.vram_size, (long long)(16 * GiB), "vram_size");
	is_int(info.bar0_size, 16 << 20, "bar0_size");
	is_int(info.sm_count, 56, "sm_count");
	is_int(info.engines, 7, "engines");
	is_int(info.clk_sm_base_mhz, 1189, "base clock");
	is_int(info.clk_sm_boost_mhz, 1328, "boost clock");
	is_int(info.clk_mem_mhz, 715, "memory clock");
	is_int(info.power_limit_mw, 250000, "power limit");
	is_int(info.msix_vectors, 5, "MSI-X vectors");
	is_int(info.iface_version, 0x10000, "iface version");
	is_str(info.driver_name, "tgpu", "driver name");
	is_str(info.driver_version, "1.2.3", "driver version from drmGetVersion");
	is_str(info.driver_date, "20261129", "driver date");
	ok(strstr(info.render_node, "/renderD") != NULL, "render node path %s", info.render_node);

	is_int(tgpu_device_get(&d1, 1), TGPU_SUCCESS, "device 1");
	tgpu_device_get_info(d1, &info);
	is_str(info.pci_bus_id, "0000:02:00.0", "ordinal 1 is the next bus id");
	is_str(info.name, "TGPU Tesla M40", "second device name");
	is_int(info.ordinal, 1, "info.ordinal 1");

	is_int(tgpu_device_get_by_pci_bus_id(&d, "0000:02:00.0"), TGPU_SUCCESS, "by bus id");
	ok(d == d1, "bus id finds device 1");
	is_int(tgpu_device_get_by_pci_bus_id(&d, "00000000:01:00.0"), TGPU_SUCCESS,
	       "by nvidia-smi style bus id");
	ok(d == d0, "... finds device 0");
	is_int(tgpu_device_get_by_pci_bus_id(&d, "0000:00:05.0"), TGPU_ERROR_INVALID_DEVICE,
	       "the virtio_gpu's bus id is not a tgpu");
	is_int(tgpu_device_get_by_pci_bus_id(&d, "gpu0"), TGPU_ERROR_INVALID_VALUE,
	       "a malformed bus id is INVALID_VALUE");
	has_str(tgpu_get_last_error_message(), "\"gpu0\"", "... naming it");

	is_int(tgpu_device_get_param(d0, DRM_TGPU_PARAM_SM_COUNT, &v), TGPU_SUCCESS,
	       "get_param(SM_COUNT)");
	is_int((long long)v, 56, "... reads the driver");
	is_int(tgpu_device_get_param(d0, DRM_TGPU_PARAM_COUNT, &v), TGPU_ERROR_NOT_SUPPORTED,
	       "get_param(PARAM_COUNT) is NOT_SUPPORTED");
	snprintf(want, sizeof(want), "does not know parameter %d", DRM_TGPU_PARAM_COUNT);
	has_str(tgpu_get_last_error_message(), want, "... and says which parameter");
	is_int(tgpu_device_get_param(d0, 0xffffffffu, &v), TGPU_ERROR_NOT_SUPPORTED,
	       "get_param(0xffffffff) is NOT_SUPPORTED");

	is_int(tgpu_device_get(&d, 2), TGPU_ERROR_INVALID_DEVICE, "ordinal 2 is out of range");
	has_str(tgpu_get_last_error_message(), "valid ordinals 0..1", "... and says the range");
	is_int(tgpu_device_get(&d, -1), TGPU_ERROR_INVALID_DEVICE, "ordinal -1");
	is_int(tgpu_device_get_info((tgpu_device *)&info, &info), TGPU_ERROR_INVALID_DEVICE,
	       "a forged handle is INVALID_DEVICE");
	is_int(tgpu_device_get_info((tgpu_device *)((char *)d1 + 4), &info),
	       TGPU_ERROR_INVALID_DEVICE, "a pointer into a device is INVALID_DEVICE");
	is_int(tgpu_device_get_param(NULL, 0, &v), TGPU_ERROR_INVALID_VALUE,
	       "a NULL handle is INVALID_VALUE");
}

static void setup_two_gpus(void)
{
	/* Listed out of bus order, with other drivers' devices in between. */
	add_tgpu(0x02, 0x12000000, TGPU_PCI_DEVICE_ID_M40, 12 * GiB, 24);
	add("virtio_gpu", 0x00, 0x1af4, 0x1050, true)->bus.dev = 5;
	add_tgpu(0x01, 0x130000a1, TGPU_PCI_DEVICE_ID_P100, 16 * GiB, 56);
	add_tgpu(0x03, 0x130000a1, TGPU_PCI_DEVICE_ID_P100, 16 * GiB, 56)->no_render = true;
	two_gpus();
}

static void only_other_drivers(void)
{
	tgpu_status want = absent_status();

	add("virtio_gpu", 0x00, 0x1af4, 0x1050, true);
	/* QEMU's vendor id alone is not tgpu (bochs-display is 1234:1111). */
	add("bochs-drm", 0x04, 0x1234, 0x1111, false);
	is_int(tgpu_init(0), want, "no tgpu among other DRM devices: %s", tgpu_get_error_name(want));
	has_str(tgpu_get_last_error_message(), "no tgpu render node", "message");
}

static void no_dri(void)
{
	devices_error = -ENOENT;
	is_int(tgpu_init(0), absent_status(), "no /dev/dri at all is the no-device case");
}

static void drm_error(void)
{
	devices_error = -EMFILE;
	is_int(tgpu_init(0), TGPU_ERROR_OS, "drmGetDevices2 failing otherwise is an OS error");
	has_str(tgpu_get_last_error_message(), strerror(EMFILE), "... with the reason");
}

static void unopenable(void)
{
	int count = -1;

	add("tgpu", 0x01, TGPU_PCI_VENDOR_ID, TGPU_PCI_DEVICE_ID_P40, false);
	is_int(tgpu_init(0), TGPU_ERROR_DEVICE_UNAVAILABLE,
	       "a tgpu (by PCI id) whose node cannot be opened is DEVICE_UNAVAILABLE");
	has_str(tgpu_get_last_error_message(), "cannot open ", "message says open failed");
	has_str(tgpu_get_last_error_message(), fakes[0].node, "... names the node");
	is_int(tgpu_device_get_count(&count), TGPU_ERROR_DEVICE_UNAVAILABLE,
	       "later calls repeat the init status");
}

static void version_fails(void)
{
	add_tgpu(0x01, 0x130000a1, TGPU_PCI_DEVICE_ID_P100, 16 * GiB, 56)->driver = NULL;
	is_int(tgpu_init(0), TGPU_ERROR_DEVICE_UNAVAILABLE,
	       "DRM_IOCTL_VERSION failing with EIO on a tgpu is DEVICE_UNAVAILABLE");
	has_str(tgpu_get_last_error_message(), "DRM_IOCTL_VERSION", "message names the ioctl");
}

static void param_unknown(void)
{
	struct fake *f = add_tgpu(0x01, 0x130000a1, TGPU_PCI_DEVICE_ID_P100, 16 * GiB, 56);

	f->bad_param = DRM_TGPU_PARAM_CLK_MEM_MHZ;
	f->bad_errno = EINVAL;
	is_int(tgpu_init(0), TGPU_ERROR_NOT_SUPPORTED,
	       "a driver that rejects a parameter is NOT_SUPPORTED");
	has_str(tgpu_get_last_error_message(), "GET_PARAM(CLK_MEM_MHZ)", "message names the param");
	has_str(tgpu_get_last_error_message(), "same tree", "... and says what to do");
}

static void one_broken_one_good(void)
{
	struct fake *f = add_tgpu(0x01, 0x130000a1, TGPU_PCI_DEVICE_ID_P100, 16 * GiB, 56);
	struct tgpu_device_info info;
	tgpu_device *d;
	int count = 0;

	f->bad_param = DRM_TGPU_PARAM_CHIP_ID;
	f->bad_errno = ENODEV;
	add_tgpu(0x02, 0x13020000, TGPU_PCI_DEVICE_ID_P40, 24 * GiB, 30);
	is_int(tgpu_init(0), TGPU_SUCCESS, "a broken tgpu does not hide a working one");
	tgpu_device_get_count(&count);
	is_int(count, 1, "only the working device is enumerated");
	tgpu_device_get(&d, 0);
	tgpu_device_get_info(d, &info);
	is_str(info.name, "TGPU Tesla P40", "... and it is the P40");
	is_int(info.ordinal, 0, "... at ordinal 0");
}

static void two_broken(void)
{
	struct fake *f;

	add("tgpu", 0x01, TGPU_PCI_VENDOR_ID, TGPU_PCI_DEVICE_ID_P40, false);
	f = add_tgpu(0x02, 0x130000a1, TGPU_PCI_DEVICE_ID_P100, 16 * GiB, 56);
	f->bad_param = DRM_TGPU_PARAM_VRAM_SIZE;
	f->bad_errno = EINVAL;
	is_int(tgpu_init(0), TGPU_ERROR_DEVICE_UNAVAILABLE,
	       "with two broken tgpus the first one's status is returned");
	has_str(tgpu_get_last_error_message(), "cannot open", "... with its own message");
	ok(!strstr(tgpu_get_last_error_message(), "VRAM_SIZE"),
	   "... not the second device's");
}

static void unknown_chip(void)
{
	struct tgpu_device_info info;
	tgpu_device *d;

	add_tgpu(0x01, 0x14000000, TGPU_PCI_DEVICE_ID_P100, 1 * GiB, 1);
	is_int(tgpu_init(0), TGPU_SUCCESS, "an unknown chip still enumerates");
	tgpu_device_get(&d, 0);
	tgpu_device_get_info(d, &info);
	is_str(info.name, "TGPU (unknown chip 0x14000000)", "... named by its BOOT_0");
	is_str(info.arch_name, "Unknown", "... unknown architecture");
}

/* The Monitoring calls (tgpu-monitor.c) against the fake's parameters. */
static void monitoring(void)
{
	struct tgpu_process_info procs[4];
	uint64_t free_bytes = 0, total = 0;
	tgpu_device *d, *forged;
	struct fake *f;
	int count = -1;

	f = add_tgpu(0x01, 0x130000a1, TGPU_PCI_DEVICE_ID_P100, 16 * GiB, 56);
	f->params[DRM_TGPU_PARAM_VRAM_USED] = 1 * GiB + 20480;
	is_int(tgpu_init(0), TGPU_SUCCESS, "init");
	tgpu_device_get(&d, 0);
	is_int(tgpu_device_get_memory_info(d, &free_bytes, &total), TGPU_SUCCESS,
	       "tgpu_device_get_memory_info");
	ok(total == 16 * GiB && free_bytes == 15 * GiB - 20480,
	   "total is VRAM_SIZE, free is total - VRAM_USED");
	f->params[DRM_TGPU_PARAM_VRAM_USED] = 2 * GiB;
	tgpu_device_get_memory_info(d, &free_bytes, &total);
	ok(free_bytes == 14 * GiB, "read again at each call, not cached");
	f->params[DRM_TGPU_PARAM_VRAM_USED] = 17 * GiB;
	tgpu_device_get_memory_info(d, &free_bytes, &total);
	ok(free_bytes == 0, "used beyond the total gives 0 free, not a wrapped number");

	f->bad_param = DRM_TGPU_PARAM_VRAM_USED;
	f->bad_errno = EINVAL;
	is_int(tgpu_device_get_memory_info(d, &free_bytes, &total), TGPU_ERROR_NOT_SUPPORTED,
	       "a driver without VRAM_USED: NOT_SUPPORTED");
	has_str(tgpu_get_last_error_message(), "VRAM_USED", "... naming the parameter");
	f->bad_errno = EIO;
	is_int(tgpu_device_get_memory_info(d, &free_bytes, &total), TGPU_ERROR_DEVICE_UNAVAILABLE,
	       "EIO: DEVICE_UNAVAILABLE");
	f->bad_errno = 0;
	is_int(tgpu_device_get_memory_info(d, NULL, &total), TGPU_ERROR_INVALID_VALUE,
	       "free NULL is INVALID_VALUE");
	has_str(tgpu_get_last_error_message(), "free_bytes is NULL", "... and says which");
	is_int(tgpu_device_get_memory_info(d, &free_bytes, NULL), TGPU_ERROR_INVALID_VALUE,
	       "total NULL is INVALID_VALUE");
	forged = (tgpu_device *)((char *)d + 1);
	is_int(tgpu_device_get_memory_info(forged, &free_bytes, &total), TGPU_ERROR_INVALID_DEVICE,
	       "a forged handle is INVALID_DEVICE");

	/* The fake node is no /dev/dri file: nobody uses "the device". */
	is_int(tgpu_device_get_processes(d, procs, 4, &count), TGPU_SUCCESS,
	       "tgpu_device_get_processes scans /proc");
	is_int(count, 0, "... and finds no user of a fake device");
	is_int(tgpu_device_get_processes(d, NULL, 0, &count), TGPU_SUCCESS, "NULL, 0 counts");
	is_int(tgpu_device_get_processes(d, procs, 4, NULL), TGPU_ERROR_INVALID_VALUE,
	       "count NULL is INVALID_VALUE");
	is_int(tgpu_device_get_processes(d, NULL, 4, &count), TGPU_ERROR_INVALID_VALUE,
	       "procs NULL with max 4 is INVALID_VALUE");
	is_int(tgpu_device_get_processes(d, procs, -1, &count), TGPU_ERROR_INVALID_VALUE,
	       "max -1 is INVALID_VALUE");
	is_int(tgpu_device_get_processes(forged, procs, 4, &count), TGPU_ERROR_INVALID_DEVICE,
	       "a forged handle is INVALID_DEVICE");
}

int main(void)
{
	if (!mkdtemp(dir)) {
		printf("Bail out! mkdtemp: %s\n", strerror(errno));
		return 1;
	}
	scenario("two tgpus among other devices", setup_two_gpus);
	scenario("only other drivers", only_other_drivers);
	scenario("no /dev/dri", no_dri);
	scenario("drmGetDevices2 error", drm_error);
	scenario("unopenable tgpu node", unopenable);
	scenario("DRM_IOCTL_VERSION fails", version_fails);
	scenario("driver rejects a parameter", param_unknown);
	scenario("one broken, one good", one_broken_one_good);
	scenario("two broken tgpus", two_broken);
	scenario("unknown chip", unknown_chip);
	scenario("monitoring calls", monitoring);
	/* Whatever a crashed scenario left behind. */
	for (nfakes = 0; nfakes < 8; nfakes++)
		snprintf(fakes[nfakes].node, sizeof(fakes[nfakes].node), "%s/renderD%d",
			 dir, 128 + nfakes);
	reset();
	ok(rmdir(dir) == 0, "temporary directory removed");
	return tap_done();
}
