// SPDX-License-Identifier: MIT
/*
 * libtgpu: monitoring, the device's state now (the "Monitoring" block of
 * libtgpu.h).  Everything is asked of the kernel at each call: VRAM use
 * through DRM_TGPU_PARAM_VRAM_USED, the processes through DRM fdinfo
 * (tgpu-fdinfo.c parses it), ECC through the driver's sysfs files.  Only public calls of tgpu.c are used, so
 * device handles are checked there, with their messages.
 */
#include <dirent.h>
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <tgpu_drm.h>
#include <tgpu/therm.h>

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

/* The sysfs directory of dev's PCI device, through its render node. */
static void device_sysfs(const struct tgpu_device_info *info, char *dir, size_t len)
{
	const char *n = strrchr(info->render_node, '/');

	snprintf(dir, len, "/sys/class/drm/%s/device", n ? n + 1 : info->render_node);
}

/* dir/file, whole and NUL-terminated, in buf; false if unreadable. */
static bool read_sysfs(const char *dir, const char *file, char *buf, size_t len)
{
	char path[320];
	size_t n;
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", dir, file);
	f = fopen(path, "re");
	if (!f)
		return false;
	n = fread(buf, 1, len - 1, f);
	buf[n] = 0;
	fclose(f);
	return n > 0;
}

/* dir/file as a decimal number (sysfs: one a file); false if not. */
static bool read_sysfs_num(const char *dir, const char *file, int64_t *v)
{
	char buf[32], *end;

	if (!read_sysfs(dir, file, buf, sizeof(buf)))
		return false;
	errno = 0;
	*v = strtoll(buf, &end, 10);
	return !errno && end != buf;
}

/*
 * dir/files[i], each a decimal number, into the uint64_t at base + to[i];
 * the index of the first that is not readable, or -1.
 */
static int read_sysfs_u64s(const char *dir, const char *const *files, const size_t *to,
			   unsigned int n, void *base)
{
	unsigned int i;
	int64_t v;

	for (i = 0; i < n; i++) {
		if (!read_sysfs_num(dir, files[i], &v))
			return (int)i;
		*(uint64_t *)((char *)base + to[i]) = (uint64_t)v;
	}
	return -1;
}

tgpu_status tgpu_device_get_ecc_info(const tgpu_device *dev, struct tgpu_ecc_info *ecc)
{
	static const char *const counters[] = {
		"ecc_errors/sbe_volatile", "ecc_errors/dbe_volatile",
		"ecc_errors/sbe_aggregate", "ecc_errors/dbe_aggregate",
	};
	/* the members in the order of counters[] */
	static const size_t to[] = {
		offsetof(struct tgpu_ecc_info, sbe_volatile),
		offsetof(struct tgpu_ecc_info, dbe_volatile),
		offsetof(struct tgpu_ecc_info, sbe_aggregate),
		offsetof(struct tgpu_ecc_info, dbe_aggregate),
	};
	struct tgpu_device_info info;
	char dir[256], buf[4096], *line, *save = NULL, cause[8], state[12];
	unsigned int cur, pend;
	int64_t v;
	int bad;
	tgpu_status st;

	if (!ecc)
		return fail(TGPU_ERROR_INVALID_VALUE, "tgpu_device_get_ecc_info: ecc is NULL");
	st = tgpu_device_get_info(dev, &info);
	if (st)
		return st;
	memset(ecc, 0, sizeof(*ecc));
	device_sysfs(&info, dir, sizeof(dir));
	if (!read_sysfs(dir, "ecc_mode", buf, sizeof(buf)))
		return fail(TGPU_ERROR_NOT_SUPPORTED,
			    "%s/ecc_mode is not there: tgpu.ko %s does not report ECC errors",
			    dir, info.driver_version);
	if (sscanf(buf, "%u %u", &cur, &pend) != 2)
		return fail(TGPU_ERROR_UNKNOWN, "%s/ecc_mode reads \"%s\", not \"CURRENT PENDING\"",
			    dir, buf);
	ecc->mode_current = cur;
	ecc->mode_pending = pend;
	bad = read_sysfs_u64s(dir, counters, to, 4, ecc);
	if (bad >= 0)
		return fail(TGPU_ERROR_UNKNOWN, "%s/%s is not readable", dir, counters[bad]);
	if (!read_sysfs_num(dir, "degraded", &v))
		return fail(TGPU_ERROR_UNKNOWN, "%s/degraded is not readable", dir);
	ecc->degraded = (uint32_t)v;
	/* "0xADDRESS sbe|dbe retired|pending", one page a line; may be empty */
	if (!read_sysfs(dir, "retired_pages", buf, sizeof(buf)))
		buf[0] = 0;
	for (line = strtok_r(buf, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		if (sscanf(line, "%*s %7s %11s", cause, state) != 2)
			continue;
		ecc->retired_sbe += !strcmp(cause, "sbe");
		ecc->retired_dbe += !strcmp(cause, "dbe");
		ecc->retired_pending += !strcmp(state, "pending");
	}
	return TGPU_SUCCESS;
}

/* dir/hwmon/hwmonN, the hwmon device of a PCI device; false if none. */
static bool find_hwmon_dir(const char *dir, char *out, size_t len)
{
	char path[300];
	struct dirent *e;
	bool found = false;
	DIR *d;

	snprintf(path, sizeof(path), "%s/hwmon", dir);
	d = opendir(path);
	while (d && (e = readdir(d)) && !found) {
		if (strncmp(e->d_name, "hwmon", 5))
			continue;
		/* a name the kernel makes, "hwmonN": never near the length */
		found = (size_t)snprintf(out, len, "%s/%.16s", path, e->d_name) < len;
	}
	if (d)
		closedir(d);
	return found;
}

/* libtgpu.h's bits are the device's (and NVML's) */
_Static_assert(TGPU_CLOCKS_EVENT_GPU_IDLE == TGPU_THERM_REASON_GPU_IDLE &&
	       TGPU_CLOCKS_EVENT_APPLICATIONS_CLOCKS == TGPU_THERM_REASON_APP_CLOCKS &&
	       TGPU_CLOCKS_EVENT_SW_POWER_CAP == TGPU_THERM_REASON_SW_POWER_CAP &&
	       TGPU_CLOCKS_EVENT_HW_SLOWDOWN == TGPU_THERM_REASON_HW_SLOWDOWN &&
	       TGPU_CLOCKS_EVENT_SW_THERMAL_SLOWDOWN == TGPU_THERM_REASON_SW_THERMAL &&
	       TGPU_CLOCKS_EVENT_HW_THERMAL_SLOWDOWN == TGPU_THERM_REASON_HW_THERMAL,
	       "TGPU_CLOCKS_EVENT_* against <tgpu/therm.h>");

tgpu_status tgpu_device_get_thermal_info(const tgpu_device *dev, struct tgpu_thermal_info *t)
{
	static const struct {
		const char *file;
		int64_t div;
	} files[] = {
		{ "temp1_input", 1 }, { "temp1_crit", 1 }, { "temp1_emergency", 1 },
		{ "power1_input", 1000 }, { "power1_cap", 1000 }, { "power1_cap_min", 1000 },
		{ "power1_cap_max", 1000 }, { "freq1_input", 1000000 },
	};
	struct tgpu_device_info info;
	char dir[256], hw[400], buf[512], *line, *save = NULL;
	int64_t v[8], down;
	unsigned int i, bit;
	tgpu_status st;

	if (!t)
		return fail(TGPU_ERROR_INVALID_VALUE, "tgpu_device_get_thermal_info: t is NULL");
	st = tgpu_device_get_info(dev, &info);
	if (st)
		return st;
	memset(t, 0, sizeof(*t));
	device_sysfs(&info, dir, sizeof(dir));
	if (!find_hwmon_dir(dir, hw, sizeof(hw)))
		return fail(TGPU_ERROR_NOT_SUPPORTED,
			    "%s has no hwmon device: tgpu.ko %s does not report temperature or power",
			    dir, info.driver_version);
	for (i = 0; i < sizeof(files) / sizeof(files[0]); i++) {
		if (!read_sysfs_num(hw, files[i].file, &v[i]))
			return fail(TGPU_ERROR_UNKNOWN, "%s/%s is not readable", hw, files[i].file);
		v[i] /= files[i].div;
	}
	t->temperature_mc = (int32_t)v[0];
	t->slowdown_mc = (int32_t)v[1];
	t->shutdown_mc = (int32_t)v[2];
	t->power_mw = (uint32_t)v[3];
	t->power_cap_mw = (uint32_t)v[4];
	t->power_cap_min_mw = (uint32_t)v[5];
	t->power_cap_max_mw = (uint32_t)v[6];
	t->clock_mhz = (uint32_t)v[7];
	/* the governor's threshold: a module parameter */
	if (read_sysfs_num("/sys/module/tgpu/parameters", "therm_down_c", &down))
		t->max_operating_mc = (int32_t)(down * 1000);
	/* one name a line, nvidia-smi's: back to NVML's bits */
	if (!read_sysfs(dir, "throttle_reasons", buf, sizeof(buf)))
		buf[0] = 0;
	for (line = strtok_r(buf, "\n", &save); line; line = strtok_r(NULL, "\n", &save))
		for (bit = 1; bit; bit <<= 1)
			if (tgpu_therm_reason_name(bit) && !strcmp(line, tgpu_therm_reason_name(bit)))
				t->reasons |= bit;
	return TGPU_SUCCESS;
}

tgpu_status tgpu_device_get_utilization(const tgpu_device *dev, struct tgpu_utilization *u)
{
	struct tgpu_device_info info;
	char dir[256], buf[512];
	int64_t gpu, mem;
	tgpu_status st;

	if (!u)
		return fail(TGPU_ERROR_INVALID_VALUE, "tgpu_device_get_utilization: u is NULL");
	st = tgpu_device_get_info(dev, &info);
	if (st)
		return st;
	memset(u, 0, sizeof(*u));
	device_sysfs(&info, dir, sizeof(dir));
	if (!read_sysfs_num(dir, "gpu_busy_percent", &gpu) ||
	    !read_sysfs_num(dir, "mem_busy_percent", &mem))
		return fail(TGPU_ERROR_NOT_SUPPORTED,
			    "%s/gpu_busy_percent or mem_busy_percent is not readable: tgpu.ko %s does not report utilization",
			    dir, info.driver_version);
	u->gpu = (uint32_t)gpu;
	u->memory = (uint32_t)mem;
	/* P0 under load, P8 at idle: the gpu_idle reason says which (none: empty) */
	if (!read_sysfs(dir, "throttle_reasons", buf, sizeof(buf)))
		buf[0] = 0;
	u->performance_state = strstr(buf, "gpu_idle\n") == buf ||
			       strstr(buf, "\ngpu_idle\n") ? 8 : 0;
	return TGPU_SUCCESS;
}

tgpu_status tgpu_device_get_clocks_event_counters(const tgpu_device *dev,
						  struct tgpu_clocks_event_counters *c)
{
	static const char *const files[] = {
		"gpu_idle", "applications_clocks_setting", "sw_power_cap",
		"hw_slowdown", "sw_thermal_slowdown", "hw_thermal_slowdown",
	};
	/* the members in the order of files[] */
	static const size_t to[] = {
		offsetof(struct tgpu_clocks_event_counters, gpu_idle_us),
		offsetof(struct tgpu_clocks_event_counters, applications_clocks_setting_us),
		offsetof(struct tgpu_clocks_event_counters, sw_power_cap_us),
		offsetof(struct tgpu_clocks_event_counters, hw_slowdown_us),
		offsetof(struct tgpu_clocks_event_counters, sw_thermal_slowdown_us),
		offsetof(struct tgpu_clocks_event_counters, hw_thermal_slowdown_us),
	};
	struct tgpu_device_info info;
	char dir[256], sub[300];
	tgpu_status st;
	int bad;

	if (!c)
		return fail(TGPU_ERROR_INVALID_VALUE,
			    "tgpu_device_get_clocks_event_counters: c is NULL");
	st = tgpu_device_get_info(dev, &info);
	if (st)
		return st;
	memset(c, 0, sizeof(*c));
	device_sysfs(&info, dir, sizeof(dir));
	snprintf(sub, sizeof(sub), "%s/clocks_event_reasons_counters", dir);
	bad = read_sysfs_u64s(sub, files, to, sizeof(files) / sizeof(files[0]), c);
	if (bad >= 0)
		return fail(bad ? TGPU_ERROR_UNKNOWN : TGPU_ERROR_NOT_SUPPORTED,
			    "%s/%s is not readable%s", sub, files[bad],
			    bad ? "" : ": the driver does not count clock event time");
	return TGPU_SUCCESS;
}

tgpu_status tgpu_device_get_health(const tgpu_device *dev)
{
	struct tgpu_ecc_info ecc;
	int64_t limit = -1;
	tgpu_status st;

	st = tgpu_device_get_ecc_info(dev, &ecc);
	if (st)
		return st;
	if (!ecc.degraded)
		return TGPU_SUCCESS;
	read_sysfs_num("/sys/module/tgpu/parameters", "ecc_retire_limit", &limit);
	return fail(TGPU_ERROR_DEVICE_DEGRADED,
		    "the device is degraded: %u VRAM pages retired (%u for repeated single-bit errors, %u for double-bit errors, %u pending), limit %lld (tgpu.ecc_retire_limit): it runs with less memory; replace the board",
		    ecc.retired_sbe + ecc.retired_dbe, ecc.retired_sbe, ecc.retired_dbe,
		    ecc.retired_pending, (long long)limit);
}

tgpu_status tgpu_device_get_retired_pages(const tgpu_device *dev, struct tgpu_retired_page *pages,
					  int max, int *count)
{
	struct tgpu_device_info info;
	char dir[256], buf[8192], *line, *save = NULL, cause[8], state[12];
	unsigned long long addr, when;
	tgpu_status st;
	int n = 0;

	if (!count || max < 0 || (max && !pages))
		return fail(TGPU_ERROR_INVALID_VALUE,
			    "tgpu_device_get_retired_pages: %s", !count ? "count is NULL" :
			    max < 0 ? "max is negative" : "pages is NULL with max > 0");
	st = tgpu_device_get_info(dev, &info);
	if (st)
		return st;
	device_sysfs(&info, dir, sizeof(dir));
	if (!read_sysfs(dir, "retired_pages", buf, sizeof(buf))) {
		if (!read_sysfs(dir, "retired_pages_pending", buf, sizeof(buf)))
			return fail(TGPU_ERROR_NOT_SUPPORTED,
				    "%s/retired_pages is not there: tgpu.ko %s does not list retired pages",
				    dir, info.driver_version);
		buf[0] = 0;     /* there, and empty */
	}
	/* "0xADDRESS sbe|dbe retired|pending TIME", one page a line; no TIME before 1.7 */
	for (line = strtok_r(buf, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		when = 0;
		if (sscanf(line, "%llx %7s %11s %llu", &addr, cause, state, &when) < 3)
			return fail(TGPU_ERROR_UNKNOWN, "%s/retired_pages: \"%s\" is not \"0xADDRESS CAUSE STATE [TIME]\"",
				    dir, line);
		if (n < max) {
			pages[n].address = addr;
			pages[n].cause = !strcmp(cause, "dbe") ? TGPU_RETIRED_CAUSE_DBE :
					 TGPU_RETIRED_CAUSE_SBE;
			pages[n].pending = !strcmp(state, "pending");
			pages[n].timestamp = when;
		}
		n++;
	}
	*count = n;
	return TGPU_SUCCESS;
}
