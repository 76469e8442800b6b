// SPDX-License-Identifier: MIT
/*
 * tgpu-smi core: see smi.h.  Output follows nvidia-smi's conventions
 * (layouts, field names, units, "[N/A]"), so that people who read
 * nvidia-smi every day can read it.  What the driver cannot report yet
 * prints N/A rather than a made-up zero.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include <tgpu/regs.h>

#include "smi.h"
#include "tgpu-util.h"

#ifndef TGPU_VERSION
#error "TGPU_VERSION must come from the build system (meson project version)"
#endif

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))
#define NA "N/A"

/* ---- --query-gpu fields --------------------------------------------------- */

/*
 * Writes the value without unit; false: not known (prints "[N/A]").  p is
 * the process of a --query-compute-apps row, NULL for --query-gpu.
 */
typedef bool (*smi_get_fn)(const struct smi_snapshot *s,
			   const struct tgpu_device_info *d,
			   const struct tgpu_process_info *p, char *buf,
			   size_t len);

struct smi_field {
	const char *name;       /* canonical, echoed in the CSV header */
	const char *alias;      /* older or short name nvidia-smi accepts */
	const char *unit;       /* "[unit]" in the header, " unit" after values */
	smi_get_fn get;         /* NULL: the driver cannot report it yet */
	const char *help;
};

#define GETTER_ARGS                                                           \
	const struct smi_snapshot *s, const struct tgpu_device_info *d,       \
	const struct tgpu_process_info *p, char *buf, size_t len

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
/* The driver enables ECC at every load: pending is current. */
GETTER(get_ecc_mode, "%s", d->ecc_enabled ? "Enabled" : "Disabled")
GETTER(get_retired_sbe, "%" PRIu32, d->retired_pages_sbe)
GETTER(get_retired_dbe, "%" PRIu32, d->retired_pages_dbe)

/* Pages are retired from the InfoROM at load: none waits for a reset. */
static bool get_retired_pending(GETTER_ARGS)
{
	(void)s;
	(void)d;
	(void)p;
	snprintf(buf, len, "No");
	return true;
}

static bool get_power_limit(GETTER_ARGS)
{
	(void)s;
	(void)p;
	tu_fmt_watts(buf, len, d->power_limit_mw, false);
	return true;
}

/* The state of device d of snapshot s, NULL when nothing is known. */
static const struct smi_state *state_of(const struct smi_snapshot *s,
					const struct tgpu_device_info *d)
{
	if (!s->state || d < s->devs || d >= s->devs + s->count)
		return NULL;
	return &s->state[d - s->devs];
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

/* ---- --query-compute-apps fields ------------------------------------------ */

static bool get_app_pid(GETTER_ARGS)
{
	(void)s;
	(void)d;
	snprintf(buf, len, "%d", p->pid);
	return true;
}

static bool get_app_name(GETTER_ARGS)
{
	(void)s;
	(void)d;
	if (!p->name[0])
		return false;
	snprintf(buf, len, "%s", p->name);
	return true;
}

static bool get_app_memory(GETTER_ARGS)
{
	(void)s;
	(void)d;
	if (p->used_memory == TGPU_MEMORY_UNKNOWN)
		return false;
	snprintf(buf, len, "%" PRIu64, tu_bytes_to_mib(p->used_memory));
	return true;
}

static const struct smi_field fields[] = {
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
	{ "pstate", NULL, NULL, NULL, "Performance state (not reported yet)." },
	{ "memory.total", NULL, "MiB", get_memory_total, "Total VRAM." },
	{ "memory.reserved", NULL, "MiB", NULL,
	  "VRAM reserved by the driver (not reported: memory.used includes it)." },
	{ "memory.used", NULL, "MiB", get_memory_used,
	  "VRAM allocated now, by every process and the driver itself (page tables, queues)." },
	{ "memory.free", NULL, "MiB", get_memory_free, "VRAM free now: memory.total - memory.used." },
	{ "utilization.gpu", NULL, "%", NULL, "Percent of time a kernel ran (not reported yet)." },
	{ "utilization.memory", NULL, "%", NULL, "Percent of time memory was accessed (not reported yet)." },
	{ "temperature.gpu", NULL, NULL, NULL, "Core temperature, degrees C (not reported yet)." },
	{ "power.draw", NULL, "W", NULL, "Board power draw (not reported yet)." },
	{ "power.limit", "gpu.power.requested_limit", "W", get_power_limit,
	  "Board power limit." },
	{ "enforced.power.limit", "gpu.power.current_limit", "W", get_power_limit,
	  "Power limit the board enforces." },
	{ "power.default_limit", "gpu.power.default_limit", "W", get_power_limit,
	  "Default board power limit (TDP)." },
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
	  NULL, "Bitmask of supported clock event reasons (not reported yet)." },
	{ "clocks_event_reasons.active", "clocks_throttle_reasons.active", NULL, NULL,
	  "Bitmask of active clock event reasons (not reported yet)." },
	{ "ecc.mode.current", NULL, NULL, get_ecc_mode, "ECC mode: Enabled or Disabled." },
	{ "ecc.mode.pending", NULL, NULL, get_ecc_mode,
	  "ECC mode after the driver reloads (it enables ECC when the board has it)." },
	{ "ecc.errors.corrected.volatile.total", NULL, NULL, NULL,
	  "Corrected ECC errors since driver load (not reported yet)." },
	{ "ecc.errors.uncorrected.volatile.total", NULL, NULL, NULL,
	  "Uncorrected ECC errors since driver load (not reported yet)." },
	{ "ecc.errors.corrected.aggregate.total", NULL, NULL, NULL,
	  "Corrected ECC errors, lifetime (not reported yet)." },
	{ "ecc.errors.uncorrected.aggregate.total", NULL, NULL, NULL,
	  "Uncorrected ECC errors, lifetime (not reported yet)." },
	{ "retired_pages.single_bit_ecc.count", "retired_pages.sbe", NULL, get_retired_sbe,
	  "Pages retired for multiple single-bit errors (from the InfoROM)." },
	{ "retired_pages.double_bit.count", "retired_pages.dbe", NULL, get_retired_dbe,
	  "Pages retired for a double-bit error (from the InfoROM)." },
	{ "retired_pages.pending", NULL, NULL, get_retired_pending,
	  "Whether a page retirement waits for a reset." },
	/* tgpu extensions: what a test harness needs to tell models apart. */
	{ "tgpu.chip", NULL, NULL, get_chip, "Chip name, e.g. GP100." },
	{ "tgpu.arch", NULL, NULL, get_arch, "Architecture, e.g. Pascal." },
	{ "tgpu.sm_count", NULL, NULL, get_sm_count, "Number of SMs." },
};

/* nvidia-smi --help-query-compute-apps, what tgpu can say of it. */
static const struct smi_field app_fields[] = {
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
	return lookup(fields, ARRAY_SIZE(fields), name);
}

const struct smi_field *smi_app_field_lookup(const char *name)
{
	return lookup(app_fields, ARRAY_SIZE(app_fields), name);
}

const char *smi_field_name(const struct smi_field *f)
{
	return f->name;
}

const char *smi_field_unit(const struct smi_field *f)
{
	return f->unit;
}

/* ---- arguments ------------------------------------------------------------ */

__attribute__((format(printf, 3, 4)))
static int arg_error(char *err, size_t len, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(err, len, fmt, ap);
	va_end(ap);
	return SMI_EXIT_INVALID_ARG;
}

/* Next comma-separated item of *p, blanks trimmed, into item. */
static bool next_item(const char **p, char *item, size_t len)
{
	const char *s = *p, *e;
	size_t n;

	if (!s)
		return false;
	e = strchr(s, ',');
	n = e ? (size_t)(e - s) : strlen(s);
	*p = e ? e + 1 : NULL;
	while (n && (*s == ' ' || *s == '\t')) {
		s++;
		n--;
	}
	while (n && (s[n - 1] == ' ' || s[n - 1] == '\t'))
		n--;
	if (n >= len)
		n = len - 1;
	memcpy(item, s, n);
	item[n] = '\0';
	return true;
}

static int parse_fields(const char *list, const char *opt,
			const struct smi_field *(*find)(const char *),
			struct smi_args *a, char *err, size_t errlen)
{
	const char *p = list;
	char item[128];

	a->nfields = 0;
	while (next_item(&p, item, sizeof(item))) {
		const struct smi_field *f = find(item);

		if (!f)
			return arg_error(err, errlen,
					 "Field \"%s\" is not a valid field to query.", item);
		if (a->nfields == SMI_MAX_FIELDS)
			return arg_error(err, errlen, "Too many fields in %s (at most %d).",
					 opt, SMI_MAX_FIELDS);
		a->fields[a->nfields++] = f;
	}
	return SMI_EXIT_OK;
}

static int parse_format(const char *fmt, struct smi_args *a, char *err,
			size_t errlen)
{
	const char *p = fmt;
	bool csv = false;
	char item[64];

	while (next_item(&p, item, sizeof(item))) {
		if (strcmp(item, "csv") == 0)
			csv = true;
		else if (strcmp(item, "noheader") == 0)
			a->noheader = true;
		else if (strcmp(item, "nounits") == 0)
			a->nounits = true;
		else
			return arg_error(err, errlen,
					 "\"%s\" is not a valid format option: use --format=csv[,noheader][,nounits].",
					 item);
	}
	if (!csv)
		return arg_error(err, errlen,
				 "--format must include csv: use --format=csv[,noheader][,nounits].");
	return SMI_EXIT_OK;
}

static bool valid_id(const char *id)
{
	struct tu_pci_addr addr;
	size_t n = strlen(id);

	if (n > 0 && n < 10 && strspn(id, "0123456789") == n)
		return true;
	return tu_parse_pci_bus_id(id, &addr);
}

/*
 * "--opt=value" or "--opt value"; also "-i value" and "-ivalue" for short
 * options.  Returns the value or NULL if arg is not this option; sets
 * *missing when the option is there but its value is not.
 */
static const char *opt_value(int argc, char *const argv[], int *i,
			     const char *lng, const char *shrt, bool *missing)
{
	const char *arg = argv[*i];
	size_t n = strlen(lng);

	*missing = false;
	if (strncmp(arg, lng, n) == 0 && arg[n] == '=')
		return arg + n + 1;
	if (strcmp(arg, lng) == 0 || (shrt && strcmp(arg, shrt) == 0)) {
		if (*i + 1 >= argc) {
			*missing = true;
			return NULL;
		}
		return argv[++*i];
	}
	if (shrt && strncmp(arg, shrt, strlen(shrt)) == 0 && arg[strlen(shrt)])
		return arg + strlen(shrt);
	return NULL;
}

/* A whole decimal number from min to max, else false. */
static bool parse_int(const char *s, int min, int max, int *v)
{
	char *end;
	long x;

	if (!s || !*s || !strchr("0123456789", s[0]))
		return false;
	errno = 0;
	x = strtol(s, &end, 10);
	if (errno || *end || x < min || x > max)
		return false;
	*v = (int)x;
	return true;
}

/* "tgpu-smi dmon [-i ID] [-c COUNT] [-d SECS] [-s GROUPS]" */
static int parse_dmon(int argc, char *const argv[], struct smi_args *a,
		      char *err, size_t errlen)
{
	static const char letters[] = "pucvmet";   /* enum smi_dmon_group order */
	const char *v, *c;
	bool missing;
	int i;

	a->mode = SMI_MODE_DMON;
	a->dmon_delay = 1;
	a->dmon_groups = SMI_DMON_DEFAULT;
	for (i = 2; i < argc; i++) {
		const char *arg = argv[i];

		if (strcmp(arg, "-h") == 0 || strcmp(arg, "--help") == 0) {
			a->mode = SMI_MODE_HELP;
			return SMI_EXIT_OK;
		} else if ((v = opt_value(argc, argv, &i, "--id", "-i", &missing)) ||
			   missing) {
			if (missing || !valid_id(v))
				return arg_error(err, errlen,
						 "Invalid GPU id \"%s\": use an index (0, 1, ...) or a PCI bus id (0000:01:00.0).",
						 missing ? "" : v);
			a->id = v;
		} else if ((v = opt_value(argc, argv, &i, "--count", "-c", &missing)) ||
			   missing) {
			if (missing || !parse_int(v, 1, INT32_MAX, &a->dmon_count))
				return arg_error(err, errlen,
						 "Invalid sample count \"%s\" for dmon -c: give a whole number of at least 1.",
						 missing ? "" : v);
		} else if ((v = opt_value(argc, argv, &i, "--delay", "-d", &missing)) ||
			   missing) {
			if (missing || !parse_int(v, 1, 86400, &a->dmon_delay))
				return arg_error(err, errlen,
						 "Invalid delay \"%s\" for dmon -d: give whole seconds, 1 to 86400.",
						 missing ? "" : v);
		} else if ((v = opt_value(argc, argv, &i, "--select", "-s", &missing)) ||
			   missing) {
			if (missing || !*v)
				return arg_error(err, errlen,
						 "dmon -s needs metric groups: any of p, u, c, v, m, e, t (default puc).");
			a->dmon_groups = 0;
			for (c = v; *c; c++) {
				const char *l = strchr(letters, *c);

				if (!l)
					return arg_error(err, errlen,
							 "Invalid metric group '%c' in dmon -s %s: use any of p, u, c, v, m, e, t.",
							 *c, v);
				a->dmon_groups |= 1u << (l - letters);
			}
		} else {
			return arg_error(err, errlen,
					 "Unknown dmon option \"%s\". Please run 'tgpu-smi -h' for help.",
					 arg);
		}
	}
	return SMI_EXIT_OK;
}

int smi_parse_args(int argc, char *const argv[], struct smi_args *a,
		   char *err, size_t errlen)
{
	const char *query_gpu = NULL, *query_apps = NULL, *format = NULL, *v;
	int modes = 0, i, rc;
	bool missing;

	memset(a, 0, sizeof(*a));
	a->mode = SMI_MODE_SUMMARY;
	if (errlen)
		err[0] = '\0';

	/* A subcommand, as in nvidia-smi, comes first. */
	if (argc > 1 && strcmp(argv[1], "dmon") == 0)
		return parse_dmon(argc, argv, a, err, errlen);

	for (i = 1; i < argc; i++) {
		const char *arg = argv[i];

		if (strcmp(arg, "-h") == 0 || strcmp(arg, "--help") == 0) {
			a->mode = SMI_MODE_HELP;
			return SMI_EXIT_OK;
		}
		if (strcmp(arg, "--help-query-gpu") == 0) {
			a->mode = SMI_MODE_HELP_QUERY_GPU;
			return SMI_EXIT_OK;
		}
		if (strcmp(arg, "--help-query-compute-apps") == 0) {
			a->mode = SMI_MODE_HELP_QUERY_APPS;
			return SMI_EXIT_OK;
		}
		if (strcmp(arg, "--version") == 0) {
			a->mode = SMI_MODE_VERSION;
			modes++;
		} else if (strcmp(arg, "-q") == 0 || strcmp(arg, "--query") == 0) {
			a->mode = SMI_MODE_QUERY;
			modes++;
		} else if (strcmp(arg, "-L") == 0 || strcmp(arg, "--list-gpus") == 0) {
			a->mode = SMI_MODE_LIST;
			modes++;
		} else if ((v = opt_value(argc, argv, &i, "--query-gpu", NULL, &missing)) ||
			   missing) {
			if (missing)
				return arg_error(err, errlen, "Option --query-gpu needs a list of fields.");
			query_gpu = v;
			a->mode = SMI_MODE_QUERY_GPU;
			modes++;
		} else if ((v = opt_value(argc, argv, &i, "--query-compute-apps", NULL,
					  &missing)) || missing) {
			if (missing)
				return arg_error(err, errlen,
						 "Option --query-compute-apps needs a list of fields.");
			query_apps = v;
			a->mode = SMI_MODE_QUERY_APPS;
			modes++;
		} else if ((v = opt_value(argc, argv, &i, "--format", NULL, &missing)) ||
			   missing) {
			if (missing)
				return arg_error(err, errlen, "Option --format needs a value, e.g. csv.");
			format = v;
		} else if ((v = opt_value(argc, argv, &i, "--id", "-i", &missing)) ||
			   missing) {
			if (missing || !valid_id(v))
				return arg_error(err, errlen,
						 "Invalid GPU id \"%s\": use an index (0, 1, ...) or a PCI bus id (0000:01:00.0).",
						 missing ? "" : v);
			a->id = v;
		} else {
			return arg_error(err, errlen,
					 "Unknown option \"%s\". Please run 'tgpu-smi -h' for help.",
					 arg);
		}
	}

	if (modes > 1)
		return arg_error(err, errlen,
				 "Invalid combination of input arguments. Please run 'tgpu-smi -h' for help.");
	if (format && !query_gpu && !query_apps)
		return arg_error(err, errlen,
				 "--format is only valid with --query-gpu or --query-compute-apps.");
	if (query_gpu || query_apps) {
		const char *opt = query_gpu ? "--query-gpu" : "--query-compute-apps";

		if (!format)
			return arg_error(err, errlen, "%s needs --format=csv[,noheader][,nounits].",
					 opt);
		rc = parse_fields(query_gpu ? query_gpu : query_apps, opt,
				  query_gpu ? smi_field_lookup : smi_app_field_lookup,
				  a, err, errlen);
		if (rc)
			return rc;
		rc = parse_format(format, a, err, errlen);
		if (rc)
			return rc;
	}
	return SMI_EXIT_OK;
}

int smi_exit_code(tgpu_status st)
{
	switch (st) {
	case TGPU_SUCCESS:
		return SMI_EXIT_OK;
	case TGPU_ERROR_INVALID_VALUE:
		return SMI_EXIT_INVALID_ARG;
	case TGPU_ERROR_NO_DRIVER:
		return SMI_EXIT_NO_DRIVER;
	case TGPU_ERROR_NO_DEVICE:
	case TGPU_ERROR_INVALID_DEVICE:
		return SMI_EXIT_NOT_FOUND;
	case TGPU_ERROR_PERMISSION_DENIED:
		return SMI_EXIT_NO_PERMISSION;
	case TGPU_ERROR_DEVICE_UNAVAILABLE:
		return SMI_EXIT_GPU_LOST;
	default:
		return SMI_EXIT_OTHER;
	}
}

int smi_select(const char *id, const struct tgpu_device_info *devs, int n)
{
	struct tu_pci_addr addr;
	int i;

	if (id[0] && strspn(id, "0123456789") == strlen(id)) {
		long idx = strtol(id, NULL, 10);

		for (i = 0; i < n; i++)
			if (devs[i].ordinal == idx)
				return i;
		return -1;
	}
	if (!tu_parse_pci_bus_id(id, &addr))
		return -1;
	for (i = 0; i < n; i++) {
		if (devs[i].pci_domain == addr.domain && devs[i].pci_bus == addr.bus &&
		    devs[i].pci_dev == addr.dev && devs[i].pci_func == addr.func)
			return i;
	}
	return -1;
}

/* ---- CSV and list --------------------------------------------------------- */

static void csv_header(FILE *f, const struct smi_args *a)
{
	int i;

	if (a->noheader)
		return;
	for (i = 0; i < a->nfields; i++) {
		const struct smi_field *fl = a->fields[i];

		/* The header keeps its [unit] even with nounits, as nvidia-smi. */
		fprintf(f, "%s%s", i ? ", " : "", fl->name);
		if (fl->unit)
			fprintf(f, " [%s]", fl->unit);
	}
	fputc('\n', f);
}

static void csv_row(FILE *f, const struct smi_args *a,
		    const struct smi_snapshot *s, const struct tgpu_device_info *d,
		    const struct tgpu_process_info *p)
{
	char buf[256];
	int i;

	for (i = 0; i < a->nfields; i++) {
		const struct smi_field *fl = a->fields[i];

		fputs(i ? ", " : "", f);
		if (!fl->get || !fl->get(s, d, p, buf, sizeof(buf))) {
			fputs("[N/A]", f);
			continue;
		}
		fputs(buf, f);
		if (fl->unit && !a->nounits)
			fprintf(f, " %s", fl->unit);
	}
	fputc('\n', f);
}

void smi_print_csv(FILE *f, const struct smi_args *a,
		   const struct smi_snapshot *s)
{
	int d;

	csv_header(f, a);
	for (d = 0; d < s->count; d++)
		csv_row(f, a, s, &s->devs[d], NULL);
}

/* One row per process and GPU; only the header when there is none. */
void smi_print_csv_apps(FILE *f, const struct smi_args *a,
			const struct smi_snapshot *s)
{
	int d, i;

	csv_header(f, a);
	for (d = 0; d < s->count; d++) {
		const struct smi_state *st = s->state ? &s->state[d] : NULL;

		if (!st || !st->procs_known)
			continue;
		for (i = 0; i < st->nprocs; i++)
			csv_row(f, a, s, &s->devs[d], &st->procs[i]);
	}
}

void smi_print_list(FILE *f, const struct smi_snapshot *s)
{
	int d;

	/* nvidia-smi appends "(UUID: GPU-...)": tgpu has no UUID yet. */
	for (d = 0; d < s->count; d++)
		fprintf(f, "GPU %d: %s\n", s->devs[d].ordinal, s->devs[d].name);
}

/* ---- summary table -------------------------------------------------------- */

/*
 * nvidia-smi's box: 91 columns, three cells of 41, 24 and 22 between the
 * bars; cell text is inset by one blank on each side.
 */
#define BOX_INNER 89
static const int cell_w[3] = { 41, 24, 22 };

/* A horizontal rule, with '+' or '|' where the cells meet when split. */
static void rule(FILE *f, char edge, char fill, bool split)
{
	int c, i;

	fputc(edge, f);
	for (c = 0; c < (split ? 3 : 1); c++) {
		int w = split ? cell_w[c] : BOX_INNER;

		for (i = 0; i < w; i++)
			fputc(fill, f);
		fputc(edge, f);
	}
	fputc('\n', f);
}

/*
 * left, blanks, right in exactly w columns (buf holds w + 1): right is
 * kept whole, left is cut to fit.  Done by hand because truncation is the
 * point here, and snprintf would make the compiler warn about it.
 */
static void lr(char *buf, int w, const char *left, const char *right)
{
	int rl = (int)strlen(right), ll = (int)strlen(left);
	int room;

	if (rl > w)
		rl = w;
	room = w - rl - (rl ? 1 : 0);
	if (ll > room)
		ll = room > 0 ? room : 0;
	memset(buf, ' ', w);
	memcpy(buf, left, ll);
	memcpy(buf + w - rl, right, rl);
	buf[w] = '\0';
}

static void full_line(FILE *f, const char *text)
{
	fprintf(f, "| %-*.*s |\n", BOX_INNER - 2, BOX_INNER - 2, text);
}

static void cells(FILE *f, const char *c1, const char *c2, const char *c3)
{
	fprintf(f, "| %-*.*s | %-*.*s | %-*.*s |\n", cell_w[0] - 2, cell_w[0] - 2,
		c1, cell_w[1] - 2, cell_w[1] - 2, c2, cell_w[2] - 2, cell_w[2] - 2, c3);
}

/*
 * The rows of the Processes box, aligned under its header: GPU, PID,
 * Type (always C: tgpu has compute only), name, and memory at the right.
 */
static void print_processes(FILE *f, const struct smi_snapshot *s)
{
	bool all_known = true;
	char row[BOX_INNER], x[96], m[32];
	int d, i, rows = 0;

	for (d = 0; d < s->count; d++) {
		const struct smi_state *st = s->state ? &s->state[d] : NULL;

		if (!st || !st->procs_known) {
			all_known = false;
			continue;
		}
		for (i = 0; i < st->nprocs; i++) {
			const struct tgpu_process_info *p = &st->procs[i];

			snprintf(x, sizeof(x), "%4d%11d%6s    %s", s->devs[d].ordinal,
				 p->pid, "C", p->name[0] ? p->name : NA);
			if (p->used_memory == TGPU_MEMORY_UNKNOWN)
				snprintf(m, sizeof(m), "%s", NA);
			else
				snprintf(m, sizeof(m), "%" PRIu64 "MiB",
					 tu_bytes_to_mib(p->used_memory));
			lr(row, BOX_INNER - 2, x, m);
			full_line(f, row);
			rows++;
		}
	}
	if (rows)
		return;
	/* "None" only when every GPU could be asked. */
	full_line(f, all_known ? " No running processes found" : " " NA);
}

static void ctime_str(const struct smi_snapshot *s, char *buf, size_t len)
{
	struct tm tm;

	localtime_r(&s->now.tv_sec, &tm);
	strftime(buf, len, "%a %b %e %H:%M:%S %Y", &tm);
}

void smi_print_summary(FILE *f, const struct smi_snapshot *s)
{
	char t[64], head[256], a[64], b[64], c[64], x[96], y[64];
	const int w1 = cell_w[0] - 2, w2 = cell_w[1] - 2, w3 = cell_w[2] - 2;
	const struct smi_state *st;
	int d;

	ctime_str(s, t, sizeof(t));
	fprintf(f, "%s\n", t);
	rule(f, '+', '-', false);
	snprintf(a, sizeof(a), "TGPU-SMI %s", TGPU_VERSION);
	snprintf(b, sizeof(b), "Driver Version: %s", s->driver_version);
	snprintf(c, sizeof(c), "libtgpu Version: %s", s->lib_version);
	snprintf(head, sizeof(head), "%-30s %-30s %s", a, b, c);
	full_line(f, head);
	rule(f, '+', '-', true);

	lr(a, w1, "GPU  Name", "Persistence-M");
	lr(b, w2, "Bus-Id", "Disp.A");
	lr(c, w3, "", "Volatile Uncorr. ECC");
	cells(f, a, b, c);
	lr(a, w1, "Fan  Temp   Perf", "Pwr:Usage/Cap");
	lr(b, w2, "", "Memory-Usage");
	lr(c, w3, "GPU-Util", "Compute M.");
	cells(f, a, b, c);
	rule(f, '|', '=', true);

	for (d = 0; d < s->count; d++) {
		const struct tgpu_device_info *g = &s->devs[d];

		/* Persistence mode, ECC, fan, temperature, P-state, usage: N/A for now. */
		snprintf(x, sizeof(x), "%3d  %s", g->ordinal, g->name);
		lr(a, w1, x, NA);
		snprintf(x, sizeof(x), "  %s", g->pci_bus_id);
		lr(b, w2, x, "Off");    /* a 3D controller: no display */
		lr(c, w3, "", NA);
		cells(f, a, b, c);

		snprintf(x, sizeof(x), "%-4s %4s   %-4s", NA, NA, NA);
		snprintf(y, sizeof(y), "%s / %4" PRIu32 "W", NA,
			 (g->power_limit_mw + 500) / 1000);
		lr(a, w1, x, y);
		st = state_of(s, g);
		if (st && st->mem_known)
			snprintf(y, sizeof(y), "%" PRIu64 "MiB / %" PRIu64 "MiB",
				 tu_bytes_to_mib(st->mem_used), tu_bytes_to_mib(g->vram_size));
		else
			snprintf(y, sizeof(y), "%s / %" PRIu64 "MiB", NA,
				 tu_bytes_to_mib(g->vram_size));
		lr(b, w2, "", y);
		lr(c, w3, "     " NA, NA);
		cells(f, a, b, c);
		rule(f, '+', '-', true);
	}

	fputc('\n', f);
	rule(f, '+', '-', false);
	full_line(f, "Processes:");
	lr(head, BOX_INNER - 2, " GPU        PID   Type   Process name", "GPU Memory");
	full_line(f, head);
	lr(head, BOX_INNER - 2, "", "Usage     ");
	full_line(f, head);
	rule(f, '|', '=', false);
	print_processes(f, s);
	rule(f, '+', '-', false);
}

/* ---- -q report ------------------------------------------------------------ */

/* nvidia-smi -q puts the colon at column 55 whatever the indent. */
#define Q_KEY_W 55

__attribute__((format(printf, 4, 5)))
static void kv(FILE *f, int depth, const char *key, const char *fmt, ...)
{
	va_list ap;

	fprintf(f, "%*s%-*s: ", depth * 4, "", Q_KEY_W - depth * 4, key);
	va_start(ap, fmt);
	vfprintf(f, fmt, ap);
	va_end(ap);
	fputc('\n', f);
}

static void section(FILE *f, int depth, const char *name)
{
	fprintf(f, "%*s%s\n", depth * 4, "", name);
}

static void na(FILE *f, int depth, const char *key)
{
	kv(f, depth, key, "%s", NA);
}

static void print_query_gpu(FILE *f, const struct tgpu_device_info *g,
			    const struct smi_state *st)
{
	static const char *const event_reasons[] = {
		"Idle", "Applications Clocks Setting", "SW Power Cap",
		"HW Slowdown", NULL /* nested */, "Sync Boost",
		"SW Thermal Slowdown", "Display Clock Setting",
	};
	char buf[64];
	size_t i;

	fprintf(f, "GPU %s\n", g->pci_bus_id);
	kv(f, 1, "Product Name", "%s", g->name);
	kv(f, 1, "Product Brand", "Tesla");
	kv(f, 1, "Product Architecture", "%s", g->arch_name);
	kv(f, 1, "Chip", "%s", g->chip);
	kv(f, 1, "Chip Id", "0x%08" PRIx32, g->chip_id);
	kv(f, 1, "Hardware Interface Version", "%s",
	   tu_fmt_iface_version(buf, sizeof(buf), g->iface_version));
	kv(f, 1, "Multiprocessor Count", "%" PRIu32, g->sm_count);
	kv(f, 1, "Engines", "%s", tu_fmt_engines(buf, sizeof(buf), g->engines));
	kv(f, 1, "Render Node", "%s", g->render_node);
	na(f, 1, "Persistence Mode");
	section(f, 1, "PCI");
	kv(f, 2, "Bus", "0x%02X", (unsigned int)g->pci_bus);
	kv(f, 2, "Device", "0x%02X", (unsigned int)g->pci_dev);
	kv(f, 2, "Domain", "0x%04" PRIX32, g->pci_domain);
	kv(f, 2, "Device Id", "0x%04X%04X", (unsigned int)g->pci_device_id,
	   (unsigned int)g->pci_vendor_id);
	kv(f, 2, "Bus Id", "%s", g->pci_bus_id);
	kv(f, 2, "Bus Type", "PCIe");
	kv(f, 2, "MSI-X Vectors", "%" PRIu32, g->msix_vectors);
	na(f, 1, "Fan Speed");
	na(f, 1, "Performance State");
	section(f, 1, "Clocks Event Reasons");
	for (i = 0; i < ARRAY_SIZE(event_reasons); i++) {
		if (event_reasons[i]) {
			na(f, 2, event_reasons[i]);
		} else {
			na(f, 3, "HW Thermal Slowdown");
			na(f, 3, "HW Power Brake Slowdown");
		}
	}
	section(f, 1, "FB Memory Usage");
	kv(f, 2, "Total", "%s", tu_fmt_mib(buf, sizeof(buf), g->vram_size, " "));
	/* The driver's own allocations are in Used: it does not tell them apart. */
	na(f, 2, "Reserved");
	if (st && st->mem_known) {
		kv(f, 2, "Used", "%" PRIu64 " MiB", tu_bytes_to_mib(st->mem_used));
		kv(f, 2, "Free", "%" PRIu64 " MiB",
		   tu_bytes_to_mib(g->vram_size) - tu_bytes_to_mib(st->mem_used));
	} else {
		na(f, 2, "Used");
		na(f, 2, "Free");
	}
	section(f, 1, "BAR1 Memory Usage");
	kv(f, 2, "Total", "%s", tu_fmt_mib(buf, sizeof(buf), g->bar1_size, " "));
	na(f, 2, "Used");
	na(f, 2, "Free");
	na(f, 1, "Compute Mode");
	section(f, 1, "Utilization");
	na(f, 2, "Gpu");
	na(f, 2, "Memory");
	section(f, 1, "ECC Mode");
	kv(f, 2, "Current", "%s", g->ecc_enabled ? "Enabled" : "Disabled");
	kv(f, 2, "Pending", "%s", g->ecc_enabled ? "Enabled" : "Disabled");
	section(f, 1, "ECC Errors");
	section(f, 2, "Volatile");
	na(f, 3, "DRAM Correctable");
	na(f, 3, "DRAM Uncorrectable");
	section(f, 2, "Aggregate");
	na(f, 3, "DRAM Correctable");
	na(f, 3, "DRAM Uncorrectable");
	section(f, 1, "Retired Pages");
	kv(f, 2, "Single Bit ECC", "%" PRIu32, g->retired_pages_sbe);
	kv(f, 2, "Double Bit ECC", "%" PRIu32, g->retired_pages_dbe);
	kv(f, 2, "Pending Page Blacklist", "%s", "No");
	section(f, 1, "Temperature");
	na(f, 2, "GPU Current Temp");
	na(f, 2, "GPU Shutdown Temp");
	na(f, 2, "GPU Slowdown Temp");
	na(f, 2, "GPU Max Operating Temp");
	section(f, 1, "GPU Power Readings");
	na(f, 2, "Power Draw");
	kv(f, 2, "Current Power Limit", "%s",
	   tu_fmt_watts(buf, sizeof(buf), g->power_limit_mw, true));
	kv(f, 2, "Default Power Limit", "%s",
	   tu_fmt_watts(buf, sizeof(buf), g->power_limit_mw, true));
	na(f, 2, "Min Power Limit");
	na(f, 2, "Max Power Limit");
	section(f, 1, "Clocks");
	if (st && st->clk_sm_known) {
		kv(f, 2, "Graphics", "%" PRIu32 " MHz", st->clk_sm_mhz);
		kv(f, 2, "SM", "%" PRIu32 " MHz", st->clk_sm_mhz);
	} else {
		na(f, 2, "Graphics");
		na(f, 2, "SM");
	}
	kv(f, 2, "Memory", "%" PRIu32 " MHz", g->clk_mem_mhz);
	section(f, 1, "Default Applications Clocks");
	kv(f, 2, "Graphics", "%" PRIu32 " MHz", g->clk_sm_base_mhz);
	kv(f, 2, "Memory", "%" PRIu32 " MHz", g->clk_mem_mhz);
	section(f, 1, "Max Clocks");
	kv(f, 2, "Graphics", "%" PRIu32 " MHz", g->clk_sm_boost_mhz);
	kv(f, 2, "SM", "%" PRIu32 " MHz", g->clk_sm_boost_mhz);
	kv(f, 2, "Memory", "%" PRIu32 " MHz", g->clk_mem_mhz);
	if (!st || !st->procs_known) {
		na(f, 1, "Processes");
	} else if (st->nprocs == 0) {
		kv(f, 1, "Processes", "None");
	} else {
		section(f, 1, "Processes");
		for (i = 0; i < (size_t)st->nprocs; i++) {
			const struct tgpu_process_info *p = &st->procs[i];

			kv(f, 2, "Process ID", "%d", p->pid);
			kv(f, 3, "Type", "C");
			kv(f, 3, "Name", "%s", p->name[0] ? p->name : NA);
			if (p->used_memory == TGPU_MEMORY_UNKNOWN)
				na(f, 3, "Used GPU Memory");
			else
				kv(f, 3, "Used GPU Memory", "%" PRIu64 " MiB",
				   tu_bytes_to_mib(p->used_memory));
		}
	}
	fputc('\n', f);
}

void smi_print_query(FILE *f, const struct smi_snapshot *s)
{
	char t[64];
	int d;

	ctime_str(s, t, sizeof(t));
	fprintf(f, "\n==============TGPU-SMI LOG==============\n\n");
	kv(f, 0, "Timestamp", "%s", t);
	kv(f, 0, "Driver Version", "%s", s->driver_version);
	kv(f, 0, "libtgpu Version", "%s", s->lib_version);
	fputc('\n', f);
	kv(f, 0, "Attached GPUs", "%d", s->attached);
	for (d = 0; d < s->count; d++)
		print_query_gpu(f, &s->devs[d], s->state ? &s->state[d] : NULL);
}

/* ---- dmon ----------------------------------------------------------------- */

/* nvidia-smi dmon's columns: name, unit; "-" where there is no value. */
struct dmon_col {
	const char *name, *unit;
};

static const struct {
	unsigned int group;
	struct dmon_col cols[4];
} dmon_groups[] = {
	{ SMI_DMON_POWER, { { "pwr", "W" }, { "gtemp", "C" }, { "mtemp", "C" } } },
	{ SMI_DMON_UTIL, { { "sm", "%" }, { "mem", "%" }, { "enc", "%" }, { "dec", "%" } } },
	{ SMI_DMON_CLOCKS, { { "mclk", "MHz" }, { "pclk", "MHz" } } },
	{ SMI_DMON_VIOL, { { "pviol", "%" }, { "tviol", "bool" } } },
	{ SMI_DMON_MEM, { { "fb", "MB" }, { "bar1", "MB" } } },
	{ SMI_DMON_ECC, { { "sbecc", "errs" }, { "dbecc", "errs" }, { "pci", "errs" } } },
	{ SMI_DMON_PCIE, { { "rxpci", "MB/s" }, { "txpci", "MB/s" } } },
};

void smi_dmon_header(FILE *f, const struct smi_args *a)
{
	size_t g, c;

	fputs("# gpu", f);
	for (g = 0; g < ARRAY_SIZE(dmon_groups); g++)
		for (c = 0; (a->dmon_groups & dmon_groups[g].group) &&
			    c < ARRAY_SIZE(dmon_groups[g].cols) && dmon_groups[g].cols[c].name; c++)
			fprintf(f, " %5s", dmon_groups[g].cols[c].name);
	fputs("\n# Idx", f);
	for (g = 0; g < ARRAY_SIZE(dmon_groups); g++)
		for (c = 0; (a->dmon_groups & dmon_groups[g].group) &&
			    c < ARRAY_SIZE(dmon_groups[g].cols) && dmon_groups[g].cols[c].name; c++)
			fprintf(f, " %5s", dmon_groups[g].cols[c].unit);
	fputc('\n', f);
}

/*
 * The value of column name, or false for "-".  Only what the driver
 * reports: the board's fixed memory clock, the SM clock in use and the
 * VRAM in use.  Temperatures, power, utilization, ECC and PCIe counters
 * are not reported yet.
 */
static bool dmon_value(const char *name, const struct tgpu_device_info *d,
		       const struct smi_state *st, char *buf, size_t len)
{
	if (strcmp(name, "mclk") == 0) {
		snprintf(buf, len, "%" PRIu32, d->clk_mem_mhz);
		return true;
	}
	if (strcmp(name, "pclk") == 0 && st && st->clk_sm_known) {
		snprintf(buf, len, "%" PRIu32, st->clk_sm_mhz);
		return true;
	}
	if (strcmp(name, "fb") == 0 && st && st->mem_known) {
		snprintf(buf, len, "%" PRIu64, tu_bytes_to_mib(st->mem_used));
		return true;
	}
	return false;
}

void smi_dmon_line(FILE *f, const struct smi_args *a,
		   const struct tgpu_device_info *d, const struct smi_state *st)
{
	char buf[32];
	size_t g, c;

	fprintf(f, "%5d", d->ordinal);
	for (g = 0; g < ARRAY_SIZE(dmon_groups); g++) {
		for (c = 0; (a->dmon_groups & dmon_groups[g].group) &&
			    c < ARRAY_SIZE(dmon_groups[g].cols) && dmon_groups[g].cols[c].name; c++) {
			if (!dmon_value(dmon_groups[g].cols[c].name, d, st, buf, sizeof(buf)))
				snprintf(buf, sizeof(buf), "-");
			fprintf(f, " %5s", buf);
		}
	}
	fputc('\n', f);
}

/* ---- help ----------------------------------------------------------------- */

void smi_print_help(FILE *f)
{
	fprintf(f,
		"TGPU System Management Interface -- v%s\n"
		"\n"
		"Reports the state of tgpu GPUs, in the style of nvidia-smi.\n"
		"\n"
		"tgpu-smi [OPTION...]\n"
		"\n"
		"    -h,   --help                Print this help and exit.\n"
		"          --version             Print the tool, library and driver versions.\n"
		"    -L,   --list-gpus           List the GPUs.\n"
		"    -i,   --id=ID               Only this GPU: an index or a PCI bus id.\n"
		"    -q,   --query               Print the full report.\n"
		"          --query-gpu=FIELDS    Print FIELDS (comma-separated) per GPU.\n"
		"          --format=csv[,noheader][,nounits]\n"
		"                                Output format of --query-gpu (required).\n"
		"          --help-query-gpu      List the fields --query-gpu knows.\n"
		"          --query-compute-apps=FIELDS\n"
		"                                Print FIELDS per process using a GPU.\n"
		"          --help-query-compute-apps\n"
		"                                List the fields --query-compute-apps knows.\n"
		"\n"
		"tgpu-smi dmon [OPTION...]       Print one line per GPU and interval:\n"
		"    -i,   --id=ID               Only this GPU.\n"
		"    -c,   --count=COUNT         Stop after COUNT samples (default: never).\n"
		"    -d,   --delay=SECS          Seconds between samples, 1 or more (default 1).\n"
		"    -s,   --select=GROUPS       Metric groups (default puc): p power and\n"
		"                                temperature, u utilization, c clocks,\n"
		"                                v violations, m memory (fb, bar1), e ECC\n"
		"                                and PCIe errors, t PCIe throughput.\n"
		"\n"
		"With no option, prints a summary table.  Values the driver cannot\n"
		"report yet print N/A ([N/A] in CSV, - in dmon).\n"
		"\n"
		"Exit status: 0 success, 2 invalid argument, 4 no permission,\n"
		"6 GPU not found, 9 tgpu driver not loaded, 15 GPU inaccessible,\n"
		"255 other error.\n",
		TGPU_VERSION);
}

static void help_fields(FILE *f, const char *opt, const struct smi_field *t,
			size_t n)
{
	size_t i;

	fprintf(f, "List of valid properties to query for the switch \"%s\":\n\n", opt);
	for (i = 0; i < n; i++) {
		fprintf(f, "\"%s\"", t[i].name);
		if (t[i].alias)
			fprintf(f, " or \"%s\"", t[i].alias);
		fprintf(f, "\n%s%s%s%s\n\n", t[i].help, t[i].unit ? " Unit: " : "",
			t[i].unit ? t[i].unit : "", t[i].unit ? "." : "");
	}
}

void smi_print_help_query_gpu(FILE *f)
{
	help_fields(f, "--query-gpu", fields, ARRAY_SIZE(fields));
}

void smi_print_help_query_apps(FILE *f)
{
	help_fields(f, "--query-compute-apps", app_fields, ARRAY_SIZE(app_fields));
}
