// SPDX-License-Identifier: MIT
/*
 * Allocation failures injected with fail_function, as IGT's
 * xe_fault_injection does: each function tgpu.ko marks with
 * ALLOW_ERROR_INJECTION fails once with -ENOMEM at the moment the test
 * chooses, and the path that called it must unwind cleanly.
 *
 *   - ioctls (VM_BIND's page tables, QUEUE_CREATE's VRAM, a user queue's
 *     ring, SUBMIT's ranges and its in-fence dependencies): the ioctl
 *     answers ENOMEM, the injection fired (fail_function's "times" went
 *     to 0), the same call then works, and afterwards everything the
 *     driver accounts is back at the baseline (guest-baseline.h);
 *   - probe, at each of its steps: the device is unbound, the step
 *     armed, and bind fails with "probe with driver tgpu failed with
 *     error -12" in the log; disarmed, bind works and runs a job.
 *
 * Needs a kernel with CONFIG_FAIL_FUNCTION (make check-debug-kernel);
 * on another it says so and fails.  Any splat fails the run
 * (tests/guest/run's clean_run).  Meant for vram-size=1G:
 *
 *   test-fail-function [--node=PATH]
 *
 * Output is TAP; the exit status is non-zero if any check failed.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "guest-tap.h"
#include "guest-sysfs.h"
#include "tgpu-raw.h"
#include "guest-baseline.h"

#define FF "/sys/kernel/debug/fail_function"
#define DRV "/sys/bus/pci/drivers/tgpu"

static char node[64] = "/dev/dri/renderD128";

/* Fail FN's next call, once, with -ENOMEM. */
static bool arm(const char *fn)
{
	char path[128];

	snprintf(path, sizeof(path), FF "/%s/retval", fn);
	return !write_file(FF "/inject", fn) &&
	       !write_file(path, "0xfffffffffffffff4") &&	/* -ENOMEM */
	       !write_file(FF "/probability", "100") &&
	       !write_file(FF "/interval", "1") &&
	       !write_file(FF "/times", "1") &&
	       !write_file(FF "/space", "0") &&
	       !write_file(FF "/verbose", "1");
}

/* Did the armed failure happen?  Then disarm everything. */
static bool fired(void)
{
	long long left = read_number(FF, "times");

	write_file(FF "/inject", "\n");
	return left == 0;
}

/* ---- ioctls ------------------------------------------------------------- */

#define VA	0x200000ull
#define SZ	0x10000ull

static int bind_once(int fd)
{
	uint32_t bo = gem_create_flags(fd, SZ, 0);
	int err = vm_bind(fd, bo, 0, VA, SZ, 0);

	if (!err)
		vm_unbind(fd, VA, SZ);
	gem_close(fd, bo);
	return err;
}

static int queue_once(int fd, uint32_t flags)
{
	struct drm_tgpu_queue_create c = {
		.engine = TGPU_RUNLIST_COMPUTE, .flags = flags,
	};
	int err = xioctl(fd, DRM_IOCTL_TGPU_QUEUE_CREATE, &c);

	if (!err)
		queue_destroy(fd, c.id);
	return err;
}

/* A job that releases a semaphore; with IN, after a signalled syncobj */
static int submit_once(int fd, bool in)
{
	struct drm_syncobj_create sc = { .flags = DRM_SYNCOBJ_CREATE_SIGNALED };
	struct drm_tgpu_submit_range r = { .va = VA, .dwords = 6 };
	uint32_t bo = gem_create_flags(fd, 0x1000, 0), q, out = syncobj_create(fd);
	uint32_t *pb = gem_mmap(fd, bo, 0x1000);
	int err;

	pb_release(pb, VA + 0x800, 1);
	if (vm_bind(fd, bo, 0, VA, 0x1000, 0) || queue_create(fd, 0, 0, &q))
		bail("cannot set up a job");
	if (xioctl(fd, DRM_IOCTL_SYNCOBJ_CREATE, &sc))
		bail("SYNCOBJ_CREATE failed");
	err = submit(fd, q, &r, 1, in ? &sc.handle : NULL, in, out);
	if (!err && (syncobj_wait(fd, out, 10000) || syncobj_status(fd, out) != 1))
		err = -1;
	queue_destroy(fd, q);
	syncobj_destroy(fd, sc.handle);
	syncobj_destroy(fd, out);
	munmap(pb, 0x1000);
	vm_unbind(fd, VA, 0x1000);
	gem_close(fd, bo);
	return err;
}

static int run_op(int fd, int op)
{
	switch (op) {
	case 0: return bind_once(fd);
	case 1: return queue_once(fd, 0);
	case 2: return queue_once(fd, DRM_TGPU_QUEUE_USER_SUBMIT);
	case 3: return submit_once(fd, false);
	default: return submit_once(fd, true);
	}
}

static const struct {
	const char *fn, *what;
	int op;
} ioctl_points[] = {
	{ "tgpu_pt_tree_map", "VM_BIND: its page tables", 0 },
	{ "tgpu_vram_obj_alloc", "QUEUE_CREATE: the queue's VRAM", 1 },
	{ "tgpu_uq_init", "QUEUE_CREATE (user submit): the ring and doorbell", 2 },
	{ "tgpu_submit_copy_ranges", "SUBMIT: its ranges", 3 },
	{ "tgpu_submit_deps", "SUBMIT: its in-fence dependencies", 4 },
};

/* ---- probe -------------------------------------------------------------- */

static const char *const probe_points[] = {
	"tgpu_vram_init", "tgpu_ecc_init", "tgpu_vram_map_init",
	"tgpu_coredump_init", "tgpu_reset_init", "tgpu_queues_init",
	"tgpu_kchan_early_init", "tgpu_therm_init", "tgpu_irq_init",
	"tgpu_kchan_init",
};

/* The render node of the device at BDF, once bound: 0, or -1 */
static int find_node(const char *bdf)
{
	char path[128];
	struct dirent *e;
	DIR *d;

	snprintf(path, sizeof(path), "/sys/bus/pci/devices/%s/drm", bdf);
	d = opendir(path);
	if (!d)
		return -1;
	while ((e = readdir(d))) {
		if (!strncmp(e->d_name, "renderD", 7)) {
			snprintf(node, sizeof(node), "/dev/dri/%.40s", e->d_name);
			closedir(d);
			return 0;
		}
	}
	closedir(d);
	return -1;
}

static bool bound(const char *bdf)
{
	char path[128];

	snprintf(path, sizeof(path), "/sys/bus/pci/devices/%s/driver", bdf);
	return access(path, F_OK) == 0;
}

int main(int argc, char **argv)
{
	struct snapshot a, b;
	char bdf[256], want[96];
	size_t i;
	int fd;

	for (int k = 1; k < argc; k++) {
		if (strncmp(argv[k], "--node=", 7) == 0) {
			snprintf(node, sizeof(node), "%.60s", argv[k] + 7);
		} else {
			fprintf(stderr, "usage: test-fail-function [--node=PATH]\n");
			return 2;
		}
	}
	if (access(FF "/inject", W_OK))
		bail("no " FF ": this kernel has no CONFIG_FAIL_FUNCTION (run make check-debug-kernel)");
	bdf_of_node(node, bdf, sizeof(bdf));

	fd = open(node, O_RDWR | O_CLOEXEC);
	if (fd < 0)
		bail("cannot open the render node");
	node_debugfs_dir(node, baseline_dir, sizeof(baseline_dir));
	/* one of each first, so that one-time allocations are in the baseline */
	for (i = 0; i < sizeof(ioctl_points) / sizeof(ioctl_points[0]); i++)
		if (run_op(fd, ioctl_points[i].op))
			bail("an operation fails without an injected failure");
	snap(node, fd, &a);
	baseline_ok(&a);
	for (i = 0; i < sizeof(ioctl_points) / sizeof(ioctl_points[0]); i++) {
		int err;

		ok(arm(ioctl_points[i].fn), "%s armed", ioctl_points[i].fn);
		err = run_op(fd, ioctl_points[i].op);
		ok(fired() && err == ENOMEM, "%s fails: %s answers ENOMEM (%s)",
		   ioctl_points[i].fn, ioctl_points[i].what, errname(err));
		err = run_op(fd, ioctl_points[i].op);
		ok(err == 0, "%s: then the same call works (%s)", ioctl_points[i].what,
		   errname(err));
	}
	snap(node, fd, &b);
	baseline_back(&a, &b);
	close(fd);

	for (i = 0; i < sizeof(probe_points) / sizeof(probe_points[0]); i++) {
		const char *fn = probe_points[i];
		int before, err, q = -1;

		ok(write_file(DRV "/unbind", bdf) == 0 && !bound(bdf), "%s: unbound", bdf);
		before = dmesg_count("probe with driver tgpu failed with error -12");
		ok(arm(fn), "%s armed", fn);
		err = write_file(DRV "/bind", bdf);
		ok(fired() && err && !bound(bdf), "%s fails: bind answers %s, the device stays unbound",
		   fn, errname(err));
		snprintf(want, sizeof(want), "probe with driver tgpu failed with error -12");
		ok(dmesg_count(want) == before + 1, "the log says: %s", want);
		err = write_file(DRV "/bind", bdf);
		ok(err == 0 && bound(bdf) && find_node(bdf) == 0, "then bind works (%s): %s",
		   errname(err), node);
		fd = open(node, O_RDWR | O_CLOEXEC);
		if (fd >= 0)
			q = job_works(fd);
		ok(q == 0, "and runs a job (%d)", q);
		if (fd >= 0)
			close(fd);
	}
	return tap_done();
}
