// SPDX-License-Identifier: MIT
/*
 * In-guest test of device identity: the tgpu render node, the
 * DRM_IOCTL_TGPU_GET_PARAM ABI (raw ioctls, including the error cases)
 * and libtgpu's view of the same device.  Expected values come from the
 * command line, because the host harness boots guests with different
 * device models:
 *
 *   test-device-info --expect-model=p100 [--expect-vram-mib=16384]
 *                    [--expect-sms=56] [--expect-msix=5] [--node=PATH]
 *                    [--expect-channels=64] [--bar0]
 *
 * --expect-model implies the model's VRAM, SM count, clocks and power
 * limit; --expect-vram-mib / --expect-sms override (for vram-size=...).
 * The engine, queue, VM and compute limits (uAPI 1.5) are checked against
 * the <tgpu/...> headers and by using them (a queue per engine and priority, every
 * channel taken, binds at the end of the user VA range); with BAR0
 * reachable through sysfs (kernel iomem=relaxed) also against the
 * registers (PMC_CHANNELS, PMC_ENGINES, GR_CLOCK_KHZ, the PTIMER rate).
 * --bar0 makes BAR0 a requirement instead of a skip.
 * Output is TAP; the exit status is non-zero if any check failed.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <xf86drm.h>

#include <tgpu/channel.h>
#include <tgpu/isa.h>
#include <tgpu/regs.h>
#include <tgpu_drm.h>

#include "libtgpu.h"
#include "tgpu-util.h"

#include "guest-tap.h"

/* ---- TAP ------------------------------------------------------------------ */

#define is_u64(got, exp, ...)                                                 \
	({                                                                    \
		uint64_t g_ = (got), e_ = (exp);                              \
		bool r_ = ok(g_ == e_, __VA_ARGS__);                          \
		if (!r_)                                                      \
			printf("#      got: %" PRIu64 " (0x%" PRIx64 ")\n"       \
			       "# expected: %" PRIu64 " (0x%" PRIx64 ")\n",      \
			       g_, g_, e_, e_);                               \
		r_;                                                           \
	})

#define is_str(got, exp, ...)                                                 \
	({                                                                    \
		const char *g_ = (got), *e_ = (exp);                          \
		bool r_ = ok(g_ && e_ && strcmp(g_, e_) == 0, __VA_ARGS__);   \
		if (!r_)                                                      \
			printf("#      got: \"%s\"\n# expected: \"%s\"\n",       \
			       g_ ? g_ : "(null)", e_ ? e_ : "(null)");       \
		r_;                                                           \
	})


/* ---- models --------------------------------------------------------------- */

/* The device's model= presets, as the expectations of this test. */
struct model {
	const char *name;
	unsigned int arch, impl;
	uint16_t pci_device;
	const char *product, *chip;
	uint64_t vram_mib;
	uint32_t sms, clk_base, clk_boost, clk_mem, power_mw;
};

static const struct model models[] = {
	{ "p100", TGPU_ARCH_PASCAL, TGPU_IMPL_GP100, TGPU_PCI_DEVICE_ID_P100,
	  "TGPU Tesla P100", "GP100", 16384, 56, 1189, 1328, 715, 250000 },
	{ "p40", TGPU_ARCH_PASCAL, TGPU_IMPL_GP102, TGPU_PCI_DEVICE_ID_P40,
	  "TGPU Tesla P40", "GP102", 24576, 30, 1303, 1531, 3615, 250000 },
	{ "m40", TGPU_ARCH_MAXWELL, TGPU_IMPL_GM200, TGPU_PCI_DEVICE_ID_M40,
	  "TGPU Tesla M40", "GM200", 12288, 24, 948, 1112, 3004, 250000 },
};
#define NR_MODELS (sizeof(models) / sizeof(models[0]))

static const struct model *model_by_name(const char *name)
{
	size_t i;

	for (i = 0; i < NR_MODELS; i++)
		if (strcmp(models[i].name, name) == 0)
			return &models[i];
	return NULL;
}

static const struct model *model_by_chip(unsigned int arch, unsigned int impl)
{
	size_t i;

	for (i = 0; i < NR_MODELS; i++)
		if (models[i].arch == arch && models[i].impl == impl)
			return &models[i];
	return NULL;
}

/* ---- options -------------------------------------------------------------- */

static const char *node = "/dev/dri/renderD128";
static const struct model *expect_model;
static long long expect_vram_mib = -1, expect_sms = -1, expect_msix = -1;
static long long expect_channels = TGPU_CHANNELS_DEFAULT;
static bool need_bar0;

static void usage(FILE *f)
{
	fprintf(f,
		"usage: test-device-info [--node=PATH] [--expect-model=p100|p40|m40]\n"
		"                        [--expect-vram-mib=N] [--expect-sms=N] [--expect-msix=N]\n"
		"                        [--expect-channels=N] [--bar0]\n");
}

static long long number(const char *opt, const char *v)
{
	char *end;
	long long n;

	errno = 0;
	n = strtoll(v, &end, 0);
	if (errno || end == v || *end || n < 0) {
		fprintf(stderr, "test-device-info: %s needs a number, got \"%s\"\n", opt, v);
		exit(2);
	}
	return n;
}

static void parse_args(int argc, char **argv)
{
	int i;

	for (i = 1; i < argc; i++) {
		const char *a = argv[i], *v = strchr(a, '=');

		v = v ? v + 1 : "";
		if (strcmp(a, "-h") == 0 || strcmp(a, "--help") == 0) {
			usage(stdout);
			exit(0);
		} else if (strncmp(a, "--node=", 7) == 0) {
			node = v;
		} else if (strncmp(a, "--expect-model=", 15) == 0) {
			expect_model = model_by_name(v);
			if (!expect_model) {
				fprintf(stderr, "test-device-info: unknown model \"%s\" (p100, p40, m40)\n", v);
				exit(2);
			}
		} else if (strncmp(a, "--expect-vram-mib=", 18) == 0) {
			expect_vram_mib = number("--expect-vram-mib", v);
		} else if (strncmp(a, "--expect-sms=", 13) == 0) {
			expect_sms = number("--expect-sms", v);
		} else if (strncmp(a, "--expect-msix=", 14) == 0) {
			expect_msix = number("--expect-msix", v);
		} else if (strncmp(a, "--expect-channels=", 18) == 0) {
			expect_channels = number("--expect-channels", v);
		} else if (strcmp(a, "--bar0") == 0) {
			need_bar0 = true;
		} else {
			fprintf(stderr, "test-device-info: unknown option \"%s\"\n", a);
			usage(stderr);
			exit(2);
		}
	}
	if (expect_model && expect_vram_mib < 0)
		expect_vram_mib = (long long)expect_model->vram_mib;
	if (expect_model && expect_sms < 0)
		expect_sms = expect_model->sms;
}

/* ---- raw uAPI ------------------------------------------------------------- */

static uint64_t param[DRM_TGPU_PARAM_COUNT];

/* Raw ioctl (no drmIoctl: the test wants to see errno as the kernel set it). */
static int get_param_raw(int fd, uint32_t p, uint32_t pad, uint64_t *value)
{
	struct drm_tgpu_get_param gp = { .param = p, .pad = pad };
	int r;

	do {
		r = ioctl(fd, DRM_IOCTL_TGPU_GET_PARAM, &gp);
	} while (r == -1 && errno == EINTR);
	if (r == 0 && value)
		*value = gp.value;
	return r == 0 ? 0 : errno;
}

static void test_node(int *fdp, drmVersionPtr *verp)
{
	struct stat st;
	drmVersionPtr ver;
	int fd;

	if (!ok(stat(node, &st) == 0 && S_ISCHR(st.st_mode), "%s exists and is a character device", node))
		bail("no render node: is tgpu.ko loaded? (ls /dev/dri; dmesg | grep tgpu)");
	fd = open(node, O_RDWR | O_CLOEXEC);
	if (!ok(fd >= 0, "open(%s, O_RDWR) %s", node, fd >= 0 ? "" : strerror(errno)))
		bail("cannot open the render node");
	ok(drmGetNodeTypeFromFd(fd) == DRM_NODE_RENDER, "%s is a render node", node);
	ver = drmGetVersion(fd);
	if (!ok(ver != NULL, "DRM_IOCTL_VERSION works"))
		bail("DRM_IOCTL_VERSION failed");
	if (!is_str(ver->name, "tgpu", "driver name is tgpu"))
		bail("not a tgpu node");
	printf("# driver %s %d.%d.%d (%s) %s\n", ver->name, ver->version_major,
	       ver->version_minor, ver->version_patchlevel, ver->date, ver->desc);
	*fdp = fd;
	*verp = ver;
}

static void test_get_param(int fd)
{
	uint32_t p;
	uint64_t v = 0;
	int err;

	for (p = 0; p < DRM_TGPU_PARAM_COUNT; p++) {
		err = get_param_raw(fd, p, 0, &param[p]);
		ok(err == 0, "GET_PARAM(%s) = %" PRIu64 " (0x%" PRIx64 ")%s%s",
		   tu_param_name(p), param[p], param[p], err ? ": " : "",
		   err ? strerror(err) : "");
	}

	err = get_param_raw(fd, DRM_TGPU_PARAM_CHIP_ID, 1, &v);
	ok(err == EINVAL, "GET_PARAM with pad = 1 fails with EINVAL (got %s)",
	   err ? strerror(err) : "success");
	err = get_param_raw(fd, DRM_TGPU_PARAM_CHIP_ID, 0x80000000u, &v);
	ok(err == EINVAL, "GET_PARAM with pad = 0x80000000 fails with EINVAL (got %s)",
	   err ? strerror(err) : "success");
	err = get_param_raw(fd, DRM_TGPU_PARAM_COUNT, 0, &v);
	ok(err == EINVAL, "GET_PARAM(PARAM_COUNT) fails with EINVAL (got %s)",
	   err ? strerror(err) : "success");
	err = get_param_raw(fd, 0xffffffffu, 0, &v);
	ok(err == EINVAL, "GET_PARAM(0xffffffff) fails with EINVAL (got %s)",
	   err ? strerror(err) : "success");

	/*
	 * A driver ioctl number past the driver's table: 6.12's drm_ioctl()
	 * takes "index >= num_ioctls" to its error path with retcode still
	 * -EINVAL (not -ENOTTY).
	 */
	{
		struct drm_tgpu_get_param gp = { 0 };
		int r = ioctl(fd, DRM_IOWR(DRM_COMMAND_BASE + 0x3f, struct drm_tgpu_get_param), &gp);

		err = r ? errno : 0;
		ok(r == -1 && err == EINVAL,
		   "unknown driver ioctl DRM_COMMAND_BASE + 0x3f fails with EINVAL (got %s)",
		   err ? strerror(err) : "success");
	}
}

static void test_identity(void)
{
	uint32_t boot0 = (uint32_t)param[DRM_TGPU_PARAM_CHIP_ID];
	unsigned int arch = TGPU_BOOT_0_ARCH(boot0), impl = TGPU_BOOT_0_IMPL(boot0);
	const struct model *chip_model = model_by_chip(arch, impl);
	uint64_t vram = param[DRM_TGPU_PARAM_VRAM_SIZE];
	uint32_t engines = (uint32_t)param[DRM_TGPU_PARAM_ENGINES];
	uint32_t msix = (uint32_t)param[DRM_TGPU_PARAM_MSIX_VECTORS];
	const uint32_t need = TGPU_ENGINE_COMPUTE | TGPU_ENGINE_CE0 | TGPU_ENGINE_CE1;

	ok(chip_model != NULL, "CHIP_ID 0x%08" PRIx32 " is a known chip (arch 0x%02x impl 0x%02x)",
	   boot0, arch, impl);
	is_u64(TGPU_IFACE_MAJOR(param[DRM_TGPU_PARAM_IFACE_VERSION]), TGPU_IFACE_VERSION_MAJOR,
	       "hardware interface major version is %d", TGPU_IFACE_VERSION_MAJOR);
	is_u64(param[DRM_TGPU_PARAM_PCI_ID] >> 16, TGPU_PCI_VENDOR_ID, "PCI vendor id");
	if (chip_model)
		is_u64(param[DRM_TGPU_PARAM_PCI_ID] & 0xffff, chip_model->pci_device,
		       "PCI device id matches the chip (%s)", chip_model->chip);
	is_u64(param[DRM_TGPU_PARAM_BAR0_SIZE], TGPU_BAR0_SIZE, "BAR0 is 16 MiB");
	is_u64(param[DRM_TGPU_PARAM_BAR1_SIZE], tu_roundup_pow2(vram),
	       "BAR1 is VRAM rounded up to a power of two");
	ok(vram > 0 && vram % (1u << 20) == 0, "VRAM size is a non-zero whole number of MiB");
	ok((engines & need) == need, "engines 0x%" PRIx32 " include compute, CE0 and CE1", engines);
	ok(param[DRM_TGPU_PARAM_SM_COUNT] > 0, "at least one SM");
	ok(msix >= 1 && msix <= TGPU_MSIX_NR_VECTORS, "MSI-X vectors %" PRIu32 " within 1..%d",
	   msix, TGPU_MSIX_NR_VECTORS);
	if (expect_msix >= 0)
		is_u64(msix, (uint64_t)expect_msix, "MSI-X vectors as expected");
	ok(param[DRM_TGPU_PARAM_CLK_SM_BASE_MHZ] <= param[DRM_TGPU_PARAM_CLK_SM_BOOST_MHZ],
	   "SM base clock <= boost clock");

	if (expect_vram_mib >= 0)
		is_u64(vram >> 20, (uint64_t)expect_vram_mib, "VRAM is %lld MiB", expect_vram_mib);
	if (expect_sms >= 0)
		is_u64(param[DRM_TGPU_PARAM_SM_COUNT], (uint64_t)expect_sms, "%lld SMs", expect_sms);
	if (!expect_model)
		return;

	is_u64(arch, expect_model->arch, "%s: BOOT_0 arch", expect_model->name);
	is_u64(impl, expect_model->impl, "%s: BOOT_0 impl", expect_model->name);
	is_u64(param[DRM_TGPU_PARAM_PCI_ID] & 0xffff, expect_model->pci_device,
	       "%s: PCI device id", expect_model->name);
	is_u64(param[DRM_TGPU_PARAM_CLK_SM_BASE_MHZ], expect_model->clk_base,
	       "%s: SM base clock", expect_model->name);
	is_u64(param[DRM_TGPU_PARAM_CLK_SM_BOOST_MHZ], expect_model->clk_boost,
	       "%s: SM boost clock", expect_model->name);
	is_u64(param[DRM_TGPU_PARAM_CLK_MEM_MHZ], expect_model->clk_mem,
	       "%s: memory clock", expect_model->name);
	is_u64(param[DRM_TGPU_PARAM_POWER_LIMIT_MW], expect_model->power_mw,
	       "%s: power limit", expect_model->name);
}

/* ---- engines, queues, VM and compute limits (uAPI 1.5) ------------------- */

/* BAR0 through sysfs, read-only: NULL unless the kernel has iomem=relaxed. */
static const volatile uint32_t *bar0_map(void)
{
	const volatile uint32_t *bar0;
	char path[128];
	const char *n = strrchr(node, '/');
	int fd;

	snprintf(path, sizeof(path), "/sys/class/drm/%s/device/resource0",
		 n ? n + 1 : node);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return NULL;
	bar0 = mmap(NULL, TGPU_BAR0_SIZE, PROT_READ, MAP_SHARED, fd, 0);
	close(fd);
	return bar0 == MAP_FAILED ? NULL : bar0;
}

static uint32_t rd32(const volatile uint32_t *bar0, uint32_t reg)
{
	return bar0[reg / 4];
}

static uint64_t ptimer(const volatile uint32_t *bar0)
{
	uint32_t lo = rd32(bar0, TGPU_PTIMER_TIME_0);	/* latches TIME_1 */

	return (uint64_t)rd32(bar0, TGPU_PTIMER_TIME_1) << 32 | lo;
}

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + ts.tv_nsec;
}

static int raw_ioctl(int fd, unsigned long req, void *arg)
{
	int r;

	do {
		r = ioctl(fd, req, arg);
	} while (r == -1 && (errno == EINTR || errno == EAGAIN));
	return r == 0 ? 0 : errno;
}

static int queue_create(int fd, uint32_t engine, uint32_t prio, uint32_t *id)
{
	struct drm_tgpu_queue_create qc = { .engine = engine, .priority = prio };
	int err = raw_ioctl(fd, DRM_IOCTL_TGPU_QUEUE_CREATE, &qc);

	if (!err && id)
		*id = qc.id;
	return err;
}

static void queue_destroy(int fd, uint32_t id)
{
	struct drm_tgpu_queue_destroy qd = { .id = id };

	raw_ioctl(fd, DRM_IOCTL_TGPU_QUEUE_DESTROY, &qd);
}

static const char *errname(int err)
{
	return err ? strerror(err) : "success";
}

static void test_limits_queues(int fd)
{
	uint32_t engines = (uint32_t)param[DRM_TGPU_PARAM_ENGINES];
	uint64_t prios = param[DRM_TGPU_PARAM_QUEUE_PRIORITIES];
	uint64_t chans = param[DRM_TGPU_PARAM_CHANNELS];
	uint32_t e, p, id, *ids;
	int fd2, err = 0, made = 0, i;

	/* ENGINES bit n is the QUEUE_CREATE engine n: each one set works */
	for (e = 0; e < 32; e++) {
		err = queue_create(fd, e, 0, &id);
		if (engines & (1u << e)) {
			ok(err == 0, "ENGINES bit %u set: QUEUE_CREATE(engine %u) works (%s)",
			   e, e, errname(err));
			if (!err)
				queue_destroy(fd, id);
		} else if (e < 4 || e == 31) {
			ok(err == EINVAL, "ENGINES bit %u clear: QUEUE_CREATE(engine %u) is EINVAL (%s)",
			   e, e, errname(err));
		}
	}

	/* priorities 0 .. QUEUE_PRIORITIES - 1 */
	for (p = 0; p < prios && p < 64; p++) {
		err = queue_create(fd, TGPU_RUNLIST_COMPUTE, p, &id);
		if (!err)
			queue_destroy(fd, id);
		else
			break;
	}
	ok(p == prios, "QUEUE_CREATE works at priorities 0..%" PRIu64 " (%s at %u)",
	   prios - 1, errname(err), p);
	err = queue_create(fd, TGPU_RUNLIST_COMPUTE, (uint32_t)prios, &id);
	ok(err == EINVAL, "QUEUE_CREATE at priority QUEUE_PRIORITIES (%" PRIu64 ") is EINVAL (%s)",
	   prios, errname(err));

	/* CHANNELS - 1 queues over two files, then EBUSY; channel 0 is the driver's */
	fd2 = open(node, O_RDWR | O_CLOEXEC);
	ids = calloc(chans + 1, sizeof(*ids));
	if (!ok(fd2 >= 0 && ids, "a second file for the channel count"))
		return;
	for (i = 0; i < (int)chans; i++) {
		err = queue_create(i % 2 ? fd2 : fd, (uint32_t)(i % 3), 0, &ids[i]);
		if (err)
			break;
		made++;
	}
	ok(made == (int)chans - 1 && err == EBUSY,
	   "CHANNELS - 1 = %" PRIu64 " queues exist at once, the next is EBUSY (%d made, then %s)",
	   chans - 1, made, errname(err));
	for (i = 0; i < made; i++)
		queue_destroy(i % 2 ? fd2 : fd, ids[i]);
	err = queue_create(fd, TGPU_RUNLIST_COMPUTE, 0, &id);
	ok(err == 0, "after destroying them a queue can be created again (%s)", errname(err));
	if (!err)
		queue_destroy(fd, id);
	free(ids);
	close(fd2);
}

static void test_limits_vm(int fd)
{
	uint64_t limit = param[DRM_TGPU_PARAM_VA_USER_LIMIT];
	struct drm_tgpu_gem_create gc = { .size = 8192 };
	struct drm_tgpu_vm_bind b = { .size = 4096 };
	struct drm_tgpu_vm_unbind u = { .size = 4096 };
	struct drm_gem_close cl = { 0 };
	int err;

	is_u64(param[DRM_TGPU_PARAM_VA_BITS], TGPU_VA_BITS, "VA_BITS is TGPU_VA_BITS (40)");
	is_u64(1ull << param[DRM_TGPU_PARAM_VA_BITS], DRM_TGPU_VA_LIMIT,
	       "1 << VA_BITS is DRM_TGPU_VA_LIMIT");
	is_u64(limit, DRM_TGPU_VA_KERNEL_START, "VA_USER_LIMIT is DRM_TGPU_VA_KERNEL_START");
	ok(limit < DRM_TGPU_VA_LIMIT && limit % DRM_TGPU_VM_PAGE_SIZE == 0,
	   "VA_USER_LIMIT is page-aligned, below the VA limit");

	if (!ok(raw_ioctl(fd, DRM_IOCTL_TGPU_GEM_CREATE, &gc) == 0, "GEM_CREATE 8 KiB"))
		return;
	b.handle = gc.handle;
	b.va = limit - 4096;
	err = raw_ioctl(fd, DRM_IOCTL_TGPU_VM_BIND, &b);
	ok(err == 0, "VM_BIND of the last page below VA_USER_LIMIT works (%s)", errname(err));
	u.va = b.va;
	if (!err)
		ok(raw_ioctl(fd, DRM_IOCTL_TGPU_VM_UNBIND, &u) == 0, "and VM_UNBIND of it");
	b.va = limit;
	err = raw_ioctl(fd, DRM_IOCTL_TGPU_VM_BIND, &b);
	ok(err == EINVAL, "VM_BIND at VA_USER_LIMIT is EINVAL (%s)", errname(err));
	b.va = limit - 4096;
	b.size = 8192;
	err = raw_ioctl(fd, DRM_IOCTL_TGPU_VM_BIND, &b);
	ok(err == EINVAL, "VM_BIND across VA_USER_LIMIT is EINVAL (%s)", errname(err));
	cl.handle = gc.handle;
	ioctl(fd, DRM_IOCTL_GEM_CLOSE, &cl);
}

static void test_limits(int fd)
{
	const volatile uint32_t *bar0 = bar0_map();
	uint64_t boost_khz = param[DRM_TGPU_PARAM_CLK_SM_BOOST_MHZ] * 1000;
	uint64_t khz, freq = param[DRM_TGPU_PARAM_TIMESTAMP_FREQ];

	is_u64(param[DRM_TGPU_PARAM_CHANNELS], (uint64_t)expect_channels,
	       "CHANNELS is %lld", expect_channels);
	is_u64(param[DRM_TGPU_PARAM_QUEUE_PRIORITIES], TGPU_PRIORITY_MAX + 1,
	       "QUEUE_PRIORITIES is TGPU_PRIORITY_MAX + 1");
	is_u64(param[DRM_TGPU_PARAM_COMPUTE_CLASS], TGPU_CLASS_COMPUTE, "COMPUTE_CLASS");
	is_u64(param[DRM_TGPU_PARAM_COPY_CLASS], TGPU_CLASS_COPY, "COPY_CLASS");
	is_u64(param[DRM_TGPU_PARAM_GR_GRID_MAX], TGPU_GR_GRID_MAX, "GR_GRID_MAX");
	is_u64(param[DRM_TGPU_PARAM_GR_BLOCK_MAX], TGPU_GR_BLOCK_MAX, "GR_BLOCK_MAX");
	is_u64(param[DRM_TGPU_PARAM_GR_SHARED_MAX], TGPU_GR_SHARED_MAX, "GR_SHARED_MAX");
	is_u64(param[DRM_TGPU_PARAM_GR_PARAM_MAX], TGPU_GR_PARAM_MAX, "GR_PARAM_MAX");
	is_u64(param[DRM_TGPU_PARAM_GR_PROGRAM_MAX], TGPU_GR_PROGRAM_MAX, "GR_PROGRAM_MAX");
	is_u64(freq, TGPU_PTIMER_FREQ_HZ, "TIMESTAMP_FREQ is PTIMER's 1 GHz");
	khz = param[DRM_TGPU_PARAM_CLK_SM_KHZ];
	ok(khz > 0 && khz <= boost_khz, "CLK_SM_KHZ %" PRIu64 " within (0, boost %" PRIu64 "]",
	   khz, boost_khz);

	test_limits_queues(fd);
	test_limits_vm(fd);

	if (!bar0) {
		if (need_bar0)
			ok(false, "BAR0 readable through sysfs (boot with iomem=relaxed)");
		else
			printf("# BAR0 not readable through sysfs (no iomem=relaxed): register checks skipped\n");
		return;
	}
	{
		uint32_t before = rd32(bar0, TGPU_GR_CLOCK_KHZ), after;
		uint64_t t0, g0, t1, g1, v = 0;
		double rate;

		ok(get_param_raw(fd, DRM_TGPU_PARAM_CLK_SM_KHZ, 0, &v) == 0,
		   "GET_PARAM(CLK_SM_KHZ) again");
		after = rd32(bar0, TGPU_GR_CLOCK_KHZ);
		ok(v == before || v == after,
		   "CLK_SM_KHZ %" PRIu64 " is the GR_CLOCK_KHZ register (%u, %u)", v, before, after);
		is_u64(param[DRM_TGPU_PARAM_CHANNELS],
		       rd32(bar0, TGPU_PMC_CHANNELS) < TGPU_CHANNELS_MAX ?
		       rd32(bar0, TGPU_PMC_CHANNELS) : TGPU_CHANNELS_MAX,
		       "CHANNELS is PMC_CHANNELS (at most %d)", TGPU_CHANNELS_MAX);
		is_u64(param[DRM_TGPU_PARAM_ENGINES], rd32(bar0, TGPU_PMC_ENGINES),
		       "ENGINES is PMC_ENGINES");

		/* the timer runs at TIMESTAMP_FREQ: compare with the guest's clock */
		t0 = now_ns();
		g0 = ptimer(bar0);
		usleep(200000);
		t1 = now_ns();
		g1 = ptimer(bar0);
		rate = (double)(g1 - g0) / ((double)(t1 - t0) / 1e9);
		ok(rate > 0.9 * freq && rate < 1.1 * freq,
		   "PTIMER advances at TIMESTAMP_FREQ: %.0f ticks/s measured over %.0f ms",
		   rate, (t1 - t0) / 1e6);
	}
	munmap((void *)bar0, TGPU_BAR0_SIZE);
}

/* ---- libtgpu ---------------------------------------------------------------- */

static void test_libtgpu(int fd, drmVersionPtr ver)
{
	const struct model *m = expect_model ? expect_model :
		model_by_chip(TGPU_BOOT_0_ARCH(param[DRM_TGPU_PARAM_CHIP_ID]),
			      TGPU_BOOT_0_IMPL(param[DRM_TGPU_PARAM_CHIP_ID]));
	struct tgpu_device_info info;
	tgpu_device *dev = NULL, *d, *by_bus;
	drmDevicePtr drmdev = NULL;
	char bus_id[32] = "", version[32];
	tgpu_status st;
	int count = 0, i;
	uint64_t v;

	st = tgpu_init(0);
	if (!ok(st == TGPU_SUCCESS, "tgpu_init(0) (%s: %s)", tgpu_get_error_name(st),
		st ? tgpu_get_last_error_message() : "ok"))
		return;
	st = tgpu_device_get_count(&count);
	ok(st == TGPU_SUCCESS && count >= 1, "tgpu_device_get_count = %d", count);

	/* The libtgpu device behind the node under test. */
	for (i = 0; i < count; i++) {
		if (tgpu_device_get(&d, i) == TGPU_SUCCESS &&
		    tgpu_device_get_info(d, &info) == TGPU_SUCCESS &&
		    strcmp(info.render_node, node) == 0) {
			dev = d;
			break;
		}
	}
	if (!ok(dev != NULL, "libtgpu enumerates %s", node))
		return;

	/* The name libtgpu derives from BOOT_0 is the model's product. */
	if (m) {
		is_str(info.name, m->product, "libtgpu product name");
		is_str(info.chip, m->chip, "libtgpu chip name");
		is_str(info.arch_name, m->arch == TGPU_ARCH_PASCAL ? "Pascal" : "Maxwell",
		       "libtgpu architecture name");
	}
	is_u64(info.chip_id, param[DRM_TGPU_PARAM_CHIP_ID], "info.chip_id is BOOT_0");
	is_u64(info.vram_size, param[DRM_TGPU_PARAM_VRAM_SIZE], "info.vram_size");
	is_u64(info.bar1_size, param[DRM_TGPU_PARAM_BAR1_SIZE], "info.bar1_size");
	is_u64(info.sm_count, param[DRM_TGPU_PARAM_SM_COUNT], "info.sm_count");
	is_u64(info.clk_sm_boost_mhz, param[DRM_TGPU_PARAM_CLK_SM_BOOST_MHZ],
	       "info.clk_sm_boost_mhz");
	is_u64(info.power_limit_mw, param[DRM_TGPU_PARAM_POWER_LIMIT_MW], "info.power_limit_mw");
	is_u64((uint64_t)info.pci_vendor_id << 16 | info.pci_device_id,
	       param[DRM_TGPU_PARAM_PCI_ID], "info PCI ids");
	is_str(info.driver_name, "tgpu", "info.driver_name");
	snprintf(version, sizeof(version), "%d.%d.%d", ver->version_major,
		 ver->version_minor, ver->version_patchlevel);
	is_str(info.driver_version, version, "info.driver_version is drmGetVersion's");

	if (drmGetDevice2(fd, 0, &drmdev) == 0 && drmdev->bustype == DRM_BUS_PCI) {
		struct tu_pci_addr a = {
			drmdev->businfo.pci->domain, drmdev->businfo.pci->bus,
			drmdev->businfo.pci->dev, drmdev->businfo.pci->func,
		};
		tu_fmt_pci_bus_id(bus_id, sizeof(bus_id), &a);
	}
	drmFreeDevice(&drmdev);
	is_str(info.pci_bus_id, bus_id, "info.pci_bus_id matches the node's PCI address");
	st = tgpu_device_get_by_pci_bus_id(&by_bus, info.pci_bus_id);
	ok(st == TGPU_SUCCESS && by_bus == dev, "tgpu_device_get_by_pci_bus_id(%s)",
	   info.pci_bus_id);

	st = tgpu_device_get_param(dev, DRM_TGPU_PARAM_SM_COUNT, &v);
	ok(st == TGPU_SUCCESS && v == param[DRM_TGPU_PARAM_SM_COUNT],
	   "tgpu_device_get_param(SM_COUNT) = %" PRIu64, v);
	st = tgpu_device_get_param(dev, DRM_TGPU_PARAM_COUNT, &v);
	ok(st == TGPU_ERROR_NOT_SUPPORTED, "tgpu_device_get_param(PARAM_COUNT) is NOT_SUPPORTED (%s)",
	   tgpu_get_error_name(st));
	printf("# message: %s\n", tgpu_get_last_error_message());
	st = tgpu_device_get(&d, count);
	ok(st == TGPU_ERROR_INVALID_DEVICE, "tgpu_device_get(ordinal %d) is INVALID_DEVICE", count);
	st = tgpu_device_get_info(dev, NULL);
	ok(st == TGPU_ERROR_INVALID_VALUE, "tgpu_device_get_info(dev, NULL) is INVALID_VALUE");
	st = tgpu_device_get_info((tgpu_device *)&info, &info);
	ok(st == TGPU_ERROR_INVALID_DEVICE, "a forged handle is INVALID_DEVICE");
	st = tgpu_init(1);
	ok(st == TGPU_ERROR_INVALID_VALUE, "tgpu_init(1) is INVALID_VALUE");
}

int main(int argc, char **argv)
{
	drmVersionPtr ver = NULL;
	int fd = -1;

	parse_args(argc, argv);
	printf("# node %s, model %s, VRAM %lld MiB, %lld SMs\n", node,
	       expect_model ? expect_model->name : "(any)", expect_vram_mib, expect_sms);

	test_node(&fd, &ver);
	test_get_param(fd);
	test_identity();
	test_limits(fd);
	test_libtgpu(fd, ver);

	drmFreeVersion(ver);
	close(fd);
	return tap_done();
}
