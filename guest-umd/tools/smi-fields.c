// SPDX-License-Identifier: MIT
/*
 * tgpu-smi core: the --query-gpu, --query-compute-apps and
 * --query-retired-pages fields, with
 * nvidia-smi's names, aliases and units, and how each value is read from
 * a snapshot.  What the driver cannot report yet has no getter and
 * prints [N/A] rather than a made-up zero.
 */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include <tgpu/regs.h>

#include "smi.h"
#include "smi-field.h"
#include "tgpu-util.h"

/* ---- --query-gpu fields --------------------------------------------------- */

static bool get_timestamp(GETTER_ARGS)
{
	struct tm tm;
	char t[32];

	(void)d;
	(void)p;
	localtime_r(&s->now.tv_sec, &tm);
	strftime(t, sizeof(t), "%Y/%m/%d %H:%M:%S", &tm);
	snprintf(buf, len, "%s.%03ld", t, s->now.tv_nsec / 1000000);
	return true;
}

static bool get_driver_version(GETTER_ARGS)
{
	(void)s;
	(void)p;
	snprintf(buf, len, "%s", d->driver_version);
	return true;
}

static bool get_count(GETTER_ARGS)
{
	(void)d;
	(void)p;
	snprintf(buf, len, "%d", s->attached);
	return true;
}

/* Getters of one struct member, generated to keep the table readable. */
#define GETTER(fn, fmt, ...)                                                  \
	static bool fn(GETTER_ARGS)                                           \
	{                                                                     \
		(void)s;                                                      \
		(void)p;                                                      \
		snprintf(buf, len, fmt, __VA_ARGS__);                         \
		return true;                                                  \
	}

GETTER(get_name, "%s", d->name)
GETTER(get_index, "%d", d->ordinal)
GETTER(get_bus_id, "%s", d->pci_bus_id)
GETTER(get_pci_domain, "0x%04" PRIX32, d->pci_domain)
GETTER(get_pci_bus, "0x%02X", (unsigned int)d->pci_bus)
GETTER(get_pci_device, "0x%02X", (unsigned int)d->pci_dev)
/* nvidia-smi prints device << 16 | vendor, e.g. 0x15F810DE. */
GETTER(get_pci_device_id, "0x%04X%04X", (unsigned int)d->pci_device_id,
       (unsigned int)d->pci_vendor_id)
GETTER(get_memory_total, "%" PRIu64, tu_bytes_to_mib(d->vram_size))
GETTER(get_clk_base, "%" PRIu32, d->clk_sm_base_mhz)
GETTER(get_clk_boost, "%" PRIu32, d->clk_sm_boost_mhz)
GETTER(get_clk_mem, "%" PRIu32, d->clk_mem_mhz)
GETTER(get_chip, "%s", d->chip)
GETTER(get_arch, "%s", d->arch_name)
GETTER(get_sm_count, "%" PRIu32, d->sm_count)
/* ECC as the driver reports it now; a driver without it: N/A. */
static const struct tgpu_ecc_info *ecc_of(const struct smi_snapshot *s,
					  const struct tgpu_device_info *d)
{
	const struct smi_state *st = state_of(s, d);

	return st && st->ecc_known ? &st->ecc : NULL;
}

/* Getters of one member of the ECC state, N/A when it is not known. */
#define ECC_GETTER(fn, fmt, ...)                                              \
	static bool fn(GETTER_ARGS)                                           \
	{                                                                     \
		const struct tgpu_ecc_info *e = ecc_of(s, d);                 \
									      \
		(void)p;                                                      \
		if (!e)                                                       \
			return false;                                         \
		snprintf(buf, len, fmt, __VA_ARGS__);                         \
		return true;                                                  \
	}

/*
 * Without the driver's ECC files (an older tgpu.ko) the mode and the
 * retired pages are what it found at load (GET_PARAM); the rest is N/A.
 */
static bool get_ecc_mode(GETTER_ARGS)
{
	const struct tgpu_ecc_info *e = ecc_of(s, d);

	(void)p;
	snprintf(buf, len, "%s", (e ? e->mode_current : d->ecc_enabled) ?
		 "Enabled" : "Disabled");
	return true;
}

static bool get_retired(GETTER_ARGS, bool dbe)
{
	const struct tgpu_ecc_info *e = ecc_of(s, d);

	(void)p;
	if (e)
		snprintf(buf, len, "%" PRIu32, dbe ? e->retired_dbe : e->retired_sbe);
	else
		snprintf(buf, len, "%" PRIu32,
			 dbe ? d->retired_pages_dbe : d->retired_pages_sbe);
	return true;
}

static bool get_retired_sbe(GETTER_ARGS)
{
	return get_retired(s, d, p, buf, len, false);
}

static bool get_retired_dbe(GETTER_ARGS)
{
	return get_retired(s, d, p, buf, len, true);
}

ECC_GETTER(get_ecc_pending, "%s", e->mode_pending ? "Enabled" : "Disabled")
ECC_GETTER(get_ecc_sbe_vol, "%" PRIu64, e->sbe_volatile)
ECC_GETTER(get_ecc_dbe_vol, "%" PRIu64, e->dbe_volatile)
ECC_GETTER(get_ecc_sbe_agg, "%" PRIu64, e->sbe_aggregate)
ECC_GETTER(get_ecc_dbe_agg, "%" PRIu64, e->dbe_aggregate)
/* nvidia-smi's "Pending Page Blacklist": Yes or No */
ECC_GETTER(get_retired_pending, "%s", e->retired_pending ? "Yes" : "No")

/* Temperature, power and clock reasons as the driver reports them now. */
static const struct tgpu_thermal_info *therm_of(const struct smi_snapshot *s,
						const struct tgpu_device_info *d)
{
	const struct smi_state *st = state_of(s, d);

	return st && st->therm_known ? &st->therm : NULL;
}

#define THERM_GETTER(fn, ...)                                                 \
	static bool fn(GETTER_ARGS)                                           \
	{                                                                     \
		const struct tgpu_thermal_info *t = therm_of(s, d);           \
									      \
		(void)p;                                                      \
		if (!t)                                                       \
			return false;                                         \
		__VA_ARGS__;                                                  \
		return true;                                                  \
	}

THERM_GETTER(get_temperature, snprintf(buf, len, "%d", round_c(t->temperature_mc)))
THERM_GETTER(get_power_draw, tu_fmt_watts(buf, len, t->power_mw, false))
THERM_GETTER(get_power_min_limit, tu_fmt_watts(buf, len, t->power_cap_min_mw, false))
THERM_GETTER(get_power_max_limit, tu_fmt_watts(buf, len, t->power_cap_max_mw, false))
THERM_GETTER(get_reasons_supported, snprintf(buf, len, "0x%016x", TGPU_CLOCKS_EVENT_SUPPORTED))
THERM_GETTER(get_reasons_active, snprintf(buf, len, "0x%016" PRIx32, t->reasons))

/* "Active" or "Not Active", for one TGPU_CLOCKS_EVENT_* bit */
#define REASON_GETTER(fn, bit)                                                \
	THERM_GETTER(fn, snprintf(buf, len, "%s", t->reasons & (bit) ? "Active" : "Not Active"))

REASON_GETTER(get_reason_idle, TGPU_CLOCKS_EVENT_GPU_IDLE)
REASON_GETTER(get_reason_app, TGPU_CLOCKS_EVENT_APPLICATIONS_CLOCKS)
REASON_GETTER(get_reason_sw_power, TGPU_CLOCKS_EVENT_SW_POWER_CAP)
REASON_GETTER(get_reason_hw_slowdown, TGPU_CLOCKS_EVENT_HW_SLOWDOWN)
REASON_GETTER(get_reason_hw_thermal, TGPU_CLOCKS_EVENT_HW_THERMAL_SLOWDOWN)
REASON_GETTER(get_reason_sw_thermal, TGPU_CLOCKS_EVENT_SW_THERMAL_SLOWDOWN)

/* The cap in force (hwmon power1_cap); the board limit without it. */
static bool get_power_limit(GETTER_ARGS)
{
	const struct tgpu_thermal_info *t = therm_of(s, d);

	(void)p;
	tu_fmt_watts(buf, len, t ? t->power_cap_mw : d->power_limit_mw, false);
	return true;
}

static bool get_power_default_limit(GETTER_ARGS)
{
	(void)s;
	(void)p;
	tu_fmt_watts(buf, len, d->power_limit_mw, false);
	return true;
}

static bool get_memory_used(GETTER_ARGS)
{
	const struct smi_state *st = state_of(s, d);

	(void)p;
	if (!st || !st->mem_known)
		return false;
	snprintf(buf, len, "%" PRIu64, tu_bytes_to_mib(st->mem_used));
	return true;
}

/* Total minus used, each rounded down, so that used + free = total. */
static bool get_clk_sm_now(GETTER_ARGS)
{
	const struct smi_state *st = state_of(s, d);

	(void)p;
	if (!st || !st->clk_sm_known)
		return false;
	snprintf(buf, len, "%" PRIu32, st->clk_sm_mhz);
	return true;
}

static bool get_memory_free(GETTER_ARGS)
{
	const struct smi_state *st = state_of(s, d);

	(void)p;
	if (!st || !st->mem_known)
		return false;
	snprintf(buf, len, "%" PRIu64,
		 tu_bytes_to_mib(st->mem_total) - tu_bytes_to_mib(st->mem_used));
	return true;
}

/* Busy shares and the P-state, from the driver's sysfs. */
static const struct tgpu_utilization *util_of(const struct smi_snapshot *s,
					      const struct tgpu_device_info *d)
{
	const struct smi_state *st = state_of(s, d);

	return st && st->util_known ? &st->util : NULL;
}

#define UTIL_GETTER(fn, fmt, ...)                                             \
	static bool fn(GETTER_ARGS)                                           \
	{                                                                     \
		const struct tgpu_utilization *u = util_of(s, d);             \
									      \
		(void)p;                                                      \
		if (!u)                                                       \
			return false;                                         \
		snprintf(buf, len, fmt, __VA_ARGS__);                         \
		return true;                                                  \
	}

UTIL_GETTER(get_pstate, "P%" PRIu32, u->performance_state)
UTIL_GETTER(get_util_gpu, "%" PRIu32, u->gpu)
UTIL_GETTER(get_util_memory, "%" PRIu32, u->memory)

/* Microseconds in each clocks event reason since the driver loaded. */
#define COUNTER_GETTER(fn, member)                                            \
	static bool fn(GETTER_ARGS)                                           \
	{                                                                     \
		const struct smi_state *st = state_of(s, d);                  \
									      \
		(void)p;                                                      \
		if (!st || !st->counters_known)                               \
			return false;                                         \
		snprintf(buf, len, "%" PRIu64, st->counters.member);          \
		return true;                                                  \
	}

COUNTER_GETTER(get_counter_sw_power, sw_power_cap_us)
COUNTER_GETTER(get_counter_sw_thermal, sw_thermal_slowdown_us)
COUNTER_GETTER(get_counter_hw_thermal, hw_thermal_slowdown_us)

/* ---- --query-compute-apps fields ------------------------------------------ */

static bool get_app_pid(GETTER_ARGS)
{
	const struct tgpu_process_info *proc = p;

	(void)s;
	(void)d;
	snprintf(buf, len, "%d", proc->pid);
	return true;
}

static bool get_app_name(GETTER_ARGS)
{
	const struct tgpu_process_info *proc = p;

	(void)s;
	(void)d;
	if (!proc->name[0])
		return false;
	snprintf(buf, len, "%s", proc->name);
	return true;
}

static bool get_app_memory(GETTER_ARGS)
{
	const struct tgpu_process_info *proc = p;

	(void)s;
	(void)d;
	if (proc->used_memory == TGPU_MEMORY_UNKNOWN)
		return false;
	snprintf(buf, len, "%" PRIu64, tu_bytes_to_mib(proc->used_memory));
	return true;
}

/* ---- --query-retired-pages fields ----------------------------------------- */

static bool get_page_address(GETTER_ARGS)
{
	const struct tgpu_retired_page *pg = p;

	(void)s;
	(void)d;
	snprintf(buf, len, "0x%016llx", (unsigned long long)pg->address);
	return true;
}

static bool get_page_cause(GETTER_ARGS)
{
	const struct tgpu_retired_page *pg = p;

	(void)s;
	(void)d;
	switch (pg->cause) {
	case TGPU_RETIRED_CAUSE_SBE:
		snprintf(buf, len, "Single Bit ECC");
		return true;
	case TGPU_RETIRED_CAUSE_DBE:
		snprintf(buf, len, "Double Bit ECC");
		return true;
	default:
		return false;
	}
}

/* Local time, as the timestamp field; 0 is a page retired at no known time. */
static bool get_page_timestamp(GETTER_ARGS)
{
	const struct tgpu_retired_page *pg = p;
	time_t t = (time_t)pg->timestamp;
	struct tm tm;

	(void)s;
	(void)d;
	if (!pg->timestamp || !localtime_r(&t, &tm))
		return false;
	strftime(buf, len, "%Y/%m/%d %H:%M:%S", &tm);
	return true;
}

static bool get_page_pending(GETTER_ARGS)
{
	const struct tgpu_retired_page *pg = p;

	(void)s;
	(void)d;
	snprintf(buf, len, "%s", pg->pending ? "Yes" : "No");
	return true;
}

const struct smi_field smi_gpu_fields[] = {
	{ "timestamp", NULL, NULL, get_timestamp,
	  "The time of the query, \"YYYY/MM/DD HH:MM:SS.msec\"." },
	{ "driver_version", NULL, NULL, get_driver_version,
	  "Version of the tgpu kernel driver (DRM_IOCTL_VERSION)." },
	{ "count", NULL, NULL, get_count, "Number of tgpu GPUs in the system." },
	{ "name", "gpu_name", NULL, get_name, "Product name of the GPU." },
	{ "index", NULL, NULL, get_index,
	  "Zero based index of the GPU, in PCI bus id order." },
	{ "uuid", "gpu_uuid", NULL, NULL, "Globally unique id (not implemented yet)." },
	{ "pci.bus_id", "gpu_bus_id", NULL, get_bus_id,
	  "PCI bus id as \"domain:bus:device.function\", in hex." },
	{ "pci.domain", NULL, NULL, get_pci_domain, "PCI domain number, in hex." },
	{ "pci.bus", NULL, NULL, get_pci_bus, "PCI bus number, in hex." },
	{ "pci.device", NULL, NULL, get_pci_device, "PCI device number, in hex." },
	{ "pci.device_id", NULL, NULL, get_pci_device_id,
	  "PCI device id << 16 | vendor id, in hex." },
	{ "pstate", NULL, NULL, get_pstate,
	  "Performance state: P0 while an engine has work, P8 while none has "
	  "(sysfs throttle_reasons' gpu_idle)." },
	{ "memory.total", NULL, "MiB", get_memory_total, "Total VRAM." },
	{ "memory.reserved", NULL, "MiB", NULL,
	  "VRAM reserved by the driver (not reported: memory.used includes it)." },
	{ "memory.used", NULL, "MiB", get_memory_used,
	  "VRAM allocated now, by every process and the driver itself (page tables, queues)." },
	{ "memory.free", NULL, "MiB", get_memory_free, "VRAM free now: memory.total - memory.used." },
	{ "utilization.gpu", NULL, "%", get_util_gpu,
	  "Percent of the last second a kernel ran on the compute engine "
	  "(sysfs gpu_busy_percent, sampled every 10 ms)." },
	{ "utilization.memory", NULL, "%", get_util_memory,
	  "Percent of the last second device memory was read or written: any engine at work "
	  "(sysfs mem_busy_percent, sampled every 10 ms)." },
	{ "temperature.gpu", NULL, NULL, get_temperature,
	  "Core temperature, degrees C (hwmon temp1_input)." },
	{ "power.draw", NULL, "W", get_power_draw, "Board power draw (hwmon power1_input)." },
	{ "power.limit", "gpu.power.requested_limit", "W", get_power_limit,
	  "The power cap in force (hwmon power1_cap)." },
	{ "enforced.power.limit", "gpu.power.current_limit", "W", get_power_limit,
	  "Power limit the board enforces (hwmon power1_cap)." },
	{ "power.default_limit", "gpu.power.default_limit", "W", get_power_default_limit,
	  "Default board power limit (TDP)." },
	{ "power.min_limit", "gpu.power.min_limit", "W", get_power_min_limit,
	  "The lowest cap the board takes (hwmon power1_cap_min)." },
	{ "power.max_limit", "gpu.power.max_limit", "W", get_power_max_limit,
	  "The highest cap the board takes (hwmon power1_cap_max)." },
	{ "clocks.current.graphics", "clocks.gr", "MHz", get_clk_sm_now,
	  "Current graphics clock (the SM clock in use, as the compute engine runs it)." },
	{ "clocks.current.sm", "clocks.sm", "MHz", get_clk_sm_now,
	  "Current SM clock (what the compute engine runs at now, throttling included)." },
	{ "clocks.current.memory", "clocks.mem", "MHz", get_clk_mem,
	  "Current memory clock (the board's fixed memory clock)." },
	{ "clocks.default_applications.graphics", "clocks.default_applications.gr",
	  "MHz", get_clk_base, "Default graphics clock (the SM base clock)." },
	{ "clocks.default_applications.memory", "clocks.default_applications.mem",
	  "MHz", get_clk_mem, "Default memory clock." },
	{ "clocks.max.graphics", "clocks.max.gr", "MHz", get_clk_boost,
	  "Maximum graphics clock (the SM boost clock)." },
	{ "clocks.max.sm", NULL, "MHz", get_clk_boost, "Maximum SM clock." },
	{ "clocks.max.memory", "clocks.max.mem", "MHz", get_clk_mem, "Maximum memory clock." },
	{ "clocks_event_reasons.supported", "clocks_throttle_reasons.supported", NULL,
	  get_reasons_supported, "Bitmask of supported clock event reasons (NVML's bits)." },
	{ "clocks_event_reasons.active", "clocks_throttle_reasons.active", NULL,
	  get_reasons_active, "Bitmask of active clock event reasons (sysfs throttle_reasons)." },
	{ "clocks_event_reasons.gpu_idle", "clocks_throttle_reasons.gpu_idle", NULL,
	  get_reason_idle, "Nothing runs on the GPU." },
	{ "clocks_event_reasons.applications_clocks_setting",
	  "clocks_throttle_reasons.applications_clocks_setting", NULL, get_reason_app,
	  "The requested clock is below boost." },
	{ "clocks_event_reasons.sw_power_cap", "clocks_throttle_reasons.sw_power_cap", NULL,
	  get_reason_sw_power, "The power cap lowers the clock." },
	{ "clocks_event_reasons.hw_slowdown", "clocks_throttle_reasons.hw_slowdown", NULL,
	  get_reason_hw_slowdown, "The hardware slowdown is on." },
	{ "clocks_event_reasons.hw_thermal_slowdown",
	  "clocks_throttle_reasons.hw_thermal_slowdown", NULL, get_reason_hw_thermal,
	  "The hardware slowdown is on for temperature." },
	{ "clocks_event_reasons.hw_power_brake_slowdown",
	  "clocks_throttle_reasons.hw_power_brake_slowdown", NULL, NULL,
	  "External power brake (a tgpu board has none)." },
	{ "clocks_event_reasons.sw_thermal_slowdown",
	  "clocks_throttle_reasons.sw_thermal_slowdown", NULL, get_reason_sw_thermal,
	  "The driver's thermal governor lowers the clock." },
	{ "clocks_event_reasons.sync_boost", "clocks_throttle_reasons.sync_boost", NULL, NULL,
	  "Sync boost (a tgpu board has none)." },
	{ "clocks_event_reasons_counters.sw_power_cap", NULL, "us", get_counter_sw_power,
	  "Time the power cap lowered the clock, since the driver loaded "
	  "(sysfs clocks_event_reasons_counters/sw_power_cap)." },
	{ "clocks_event_reasons_counters.sync_boost", NULL, "us", NULL,
	  "Time in sync boost (a tgpu board has none)." },
	{ "clocks_event_reasons_counters.sw_thermal_slowdown", NULL, "us", get_counter_sw_thermal,
	  "Time the driver's thermal governor lowered the clock, since the driver loaded "
	  "(sysfs clocks_event_reasons_counters/sw_thermal_slowdown)." },
	{ "clocks_event_reasons_counters.hw_thermal_slowdown", NULL, "us", get_counter_hw_thermal,
	  "Time the hardware slowdown was on for temperature, since the driver loaded "
	  "(sysfs clocks_event_reasons_counters/hw_thermal_slowdown)." },
	{ "clocks_event_reasons_counters.hw_power_brake_slowdown", NULL, "us", NULL,
	  "Time the external power brake was on (a tgpu board has none)." },
	{ "ecc.mode.current", NULL, NULL, get_ecc_mode,
	  "ECC mode now: Enabled or Disabled." },
	{ "ecc.mode.pending", NULL, NULL, get_ecc_pending,
	  "ECC mode after the next device reset (sysfs ecc_mode)." },
	/* VRAM is the only memory with ECC: device_memory, dram and total agree */
	{ "ecc.errors.corrected.volatile.device_memory", NULL, NULL, get_ecc_sbe_vol,
	  "Corrected errors in device memory since the device's last reset." },
	{ "ecc.errors.corrected.volatile.dram", NULL, NULL, get_ecc_sbe_vol,
	  "Corrected errors in device memory since the device's last reset." },
	{ "ecc.errors.corrected.volatile.total", NULL, NULL, get_ecc_sbe_vol,
	  "Corrected errors since the device's last reset." },
	{ "ecc.errors.corrected.aggregate.device_memory", NULL, NULL, get_ecc_sbe_agg,
	  "Corrected errors in device memory, lifetime (the InfoROM)." },
	{ "ecc.errors.corrected.aggregate.dram", NULL, NULL, get_ecc_sbe_agg,
	  "Corrected errors in device memory, lifetime (the InfoROM)." },
	{ "ecc.errors.corrected.aggregate.total", NULL, NULL, get_ecc_sbe_agg,
	  "Corrected errors, lifetime (the InfoROM)." },
	{ "ecc.errors.uncorrected.volatile.device_memory", NULL, NULL, get_ecc_dbe_vol,
	  "Uncorrectable errors in device memory since the device's last reset." },
	{ "ecc.errors.uncorrected.volatile.dram", NULL, NULL, get_ecc_dbe_vol,
	  "Uncorrectable errors in device memory since the device's last reset." },
	{ "ecc.errors.uncorrected.volatile.total", NULL, NULL, get_ecc_dbe_vol,
	  "Uncorrectable errors since the device's last reset." },
	{ "ecc.errors.uncorrected.aggregate.device_memory", NULL, NULL, get_ecc_dbe_agg,
	  "Uncorrectable errors in device memory, lifetime (the InfoROM)." },
	{ "ecc.errors.uncorrected.aggregate.dram", NULL, NULL, get_ecc_dbe_agg,
	  "Uncorrectable errors in device memory, lifetime (the InfoROM)." },
	{ "ecc.errors.uncorrected.aggregate.total", NULL, NULL, get_ecc_dbe_agg,
	  "Uncorrectable errors, lifetime (the InfoROM)." },
	{ "retired_pages.single_bit_ecc.count", "retired_pages.sbe", NULL, get_retired_sbe,
	  "Pages retired for multiple single-bit errors." },
	{ "retired_pages.double_bit.count", "retired_pages.dbe", NULL, get_retired_dbe,
	  "Pages retired for a double-bit error." },
	{ "retired_pages.pending", NULL, NULL, get_retired_pending,
	  "Yes when a retired page is still in use: it goes out of use when "
	  "freed, or at the next driver load." },
	/* tgpu extensions: what a test harness needs to tell models apart. */
	{ "tgpu.chip", NULL, NULL, get_chip, "Chip name, e.g. GP100." },
	{ "tgpu.arch", NULL, NULL, get_arch, "Architecture, e.g. Pascal." },
	{ "tgpu.sm_count", NULL, NULL, get_sm_count, "Number of SMs." },
};

/* nvidia-smi --help-query-compute-apps, what tgpu can say of it. */
const struct smi_field smi_app_fields[] = {
	{ "timestamp", NULL, NULL, get_timestamp,
	  "The time of the query, \"YYYY/MM/DD HH:MM:SS.msec\"." },
	{ "gpu_name", NULL, NULL, get_name, "Product name of the GPU." },
	{ "gpu_bus_id", NULL, NULL, get_bus_id,
	  "PCI bus id of the GPU, as \"domain:bus:device.function\", in hex." },
	{ "gpu_serial", NULL, NULL, NULL, "Serial number of the GPU (tgpu has none)." },
	{ "gpu_uuid", NULL, NULL, NULL, "UUID of the GPU (not implemented yet)." },
	{ "pid", NULL, NULL, get_app_pid, "Process id of the process using the GPU." },
	{ "process_name", "name", NULL, get_app_name,
	  "Name of the process (/proc/PID/comm)." },
	{ "used_gpu_memory", "used_memory", "MiB", get_app_memory,
	  "VRAM of the process's buffer objects (DRM fdinfo drm-resident-vram), "
	  "summed over its clients of the GPU." },
};

/* nvidia-smi --help-query-retired-pages, plus whether a page is still in use. */
const struct smi_field smi_retired_fields[] = {
	{ "gpu_name", NULL, NULL, get_name, "Product name of the GPU." },
	{ "gpu_bus_id", NULL, NULL, get_bus_id,
	  "PCI bus id of the GPU, as \"domain:bus:device.function\", in hex." },
	{ "gpu_serial", NULL, NULL, NULL, "Serial number of the GPU (tgpu has none)." },
	{ "gpu_uuid", NULL, NULL, NULL, "UUID of the GPU (not implemented yet)." },
	{ "retired_pages.address", NULL, NULL, get_page_address,
	  "VRAM address of the retired 4 KiB page, in hex (sysfs retired_pages)." },
	{ "retired_pages.timestamp", NULL, NULL, get_page_timestamp,
	  "When the page was retired, \"YYYY/MM/DD HH:MM:SS\" in local time." },
	{ "retired_pages.cause", NULL, NULL, get_page_cause,
	  "Why the page was retired: \"Single Bit ECC\" (repeated single-bit errors) or "
	  "\"Double Bit ECC\" (a double-bit error)." },
	/* tgpu extension: nvidia-smi only says whether any page is pending */
	{ "retired_pages.pending", NULL, NULL, get_page_pending,
	  "Yes while the page is still in use: it goes out of use when freed, "
	  "or at the next driver load." },
};

const size_t smi_n_gpu_fields = ARRAY_SIZE(smi_gpu_fields);
const size_t smi_n_app_fields = ARRAY_SIZE(smi_app_fields);
const size_t smi_n_retired_fields = ARRAY_SIZE(smi_retired_fields);

static const struct smi_field *lookup(const struct smi_field *table, size_t n,
				      const char *name)
{
	size_t i;

	for (i = 0; i < n; i++) {
		if (strcmp(name, table[i].name) == 0 ||
		    (table[i].alias && strcmp(name, table[i].alias) == 0))
			return &table[i];
	}
	return NULL;
}

const struct smi_field *smi_field_lookup(const char *name)
{
	return lookup(smi_gpu_fields, smi_n_gpu_fields, name);
}

const struct smi_field *smi_app_field_lookup(const char *name)
{
	return lookup(smi_app_fields, smi_n_app_fields, name);
}

const struct smi_field *smi_retired_field_lookup(const char *name)
{
	return lookup(smi_retired_fields, smi_n_retired_fields, name);
}

const char *smi_field_name(const struct smi_field *f)
{
	return f->name;
}

const char *smi_field_unit(const struct smi_field *f)
{
	return f->unit;
}
