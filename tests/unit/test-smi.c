// SPDX-License-Identifier: MIT
/*
 * Unit tests of the tgpu-smi core (guest-umd/tools/smi-*.c): argument
 * parsing, the --query-gpu field table, CSV, -L, the summary table and
 * the -q report, rendered from made-up device info.
 */
#include <stdlib.h>
#include <time.h>

#include <tgpu/regs.h>

#include "smi.h"
#include "tap.h"

#define GiB (1024ull * 1024 * 1024)

static struct tgpu_device_info devs[2];

static void make_devices(void)
{
	struct tgpu_device_info *p = &devs[0], *m = &devs[1];

	memset(devs, 0, sizeof(devs));
	p->ordinal = 0;
	strcpy(p->name, "TGPU Tesla P100");
	strcpy(p->chip, "GP100");
	strcpy(p->arch_name, "Pascal");
	p->chip_id = 0x130000a1;
	p->arch = 0x13;
	p->rev = 0xa1;
	p->iface_version = 1u << 16;
	strcpy(p->pci_bus_id, "0000:01:00.0");
	p->pci_bus = 1;
	p->pci_vendor_id = 0x1234;
	p->pci_device_id = 0x15f8;
	p->vram_size = 16 * GiB;
	p->bar0_size = 16 << 20;
	p->bar1_size = 16 * GiB;
	p->sm_count = 56;
	p->engines = 7;
	p->clk_sm_base_mhz = 1189;
	p->clk_sm_boost_mhz = 1328;
	p->clk_mem_mhz = 715;
	p->power_limit_mw = 250000;
	p->msix_vectors = 5;
	p->ecc_enabled = 1;
	p->retired_pages_sbe = 2;
	p->retired_pages_dbe = 1;
	strcpy(p->render_node, "/dev/dri/renderD128");
	strcpy(p->driver_name, "tgpu");
	strcpy(p->driver_version, "1.0.0");

	*m = *p;
	m->ordinal = 1;
	strcpy(m->name, "TGPU Tesla M40");
	strcpy(m->chip, "GM200");
	strcpy(m->arch_name, "Maxwell");
	m->chip_id = 0x12000000;
	m->arch = 0x12;
	strcpy(m->pci_bus_id, "0000:02:00.0");
	m->pci_bus = 2;
	m->pci_device_id = 0x17fd;
	m->ecc_enabled = 0;         /* ecc=off, or enabling failed */
	m->retired_pages_sbe = 0;
	m->retired_pages_dbe = 0;
	m->vram_size = 12 * GiB;
	m->sm_count = 24;
	m->clk_sm_base_mhz = 948;
	m->clk_sm_boost_mhz = 1112;
	m->clk_mem_mhz = 3004;
	strcpy(m->render_node, "/dev/dri/renderD129");
}

static struct smi_snapshot snapshot(int count)
{
	struct smi_snapshot s = {
		.devs = devs,
		.count = count,
		.attached = count,
		.driver_version = "1.0.0",
		.lib_version = "9.8.7",
		/* Sun Nov 29 16:36:20.123 2026 UTC */
		.now = { .tv_sec = 1795970180, .tv_nsec = 123456789 },
	};
	return s;
}

/* Render with fn into a malloc'ed string. */
#define RENDER(out, call)                                               \
	do {                                                            \
		size_t len_;                                            \
		FILE *f = open_memstream(&(out), &len_);                \
		call;                                                   \
		fclose(f);                                              \
	} while (0)

static int parse(struct smi_args *a, char *err, const char *const *argv)
{
	int argc = 0;

	while (argv[argc])
		argc++;
	return smi_parse_args(argc, (char *const *)argv, a, err, 256);
}

#define ARGV(...) ((const char *const[]){ "tgpu-smi", __VA_ARGS__, NULL })

/* ---- fields -------------------------------------------------------------- */

static void test_fields(void)
{
	static const char *const required[] = {
		"name", "pci.bus_id", "memory.total", "clocks.max.sm",
		"clocks.max.memory", "power.limit", "temperature.gpu", "clocks.sm",
		"clocks_throttle_reasons.active", "ecc.mode.current",
		"ecc.errors.corrected.volatile.total",
		"ecc.errors.uncorrected.volatile.total", "retired_pages.pending",
		"power.draw", "utilization.gpu", "memory.used",
	};
	const struct smi_field *f;
	size_t i;

	for (i = 0; i < sizeof(required) / sizeof(required[0]); i++)
		ok(smi_field_lookup(required[i]) != NULL, "field %s exists", required[i]);

	f = smi_field_lookup("clocks_throttle_reasons.active");
	is_str(f ? smi_field_name(f) : NULL, "clocks_event_reasons.active",
	       "throttle reasons alias maps to the clocks event reasons name");
	f = smi_field_lookup("clocks.sm");
	is_str(f ? smi_field_name(f) : NULL, "clocks.current.sm", "clocks.sm alias");
	f = smi_field_lookup("gpu_name");
	is_str(f ? smi_field_name(f) : NULL, "name", "gpu_name alias");
	f = smi_field_lookup("clocks.max.mem");
	is_str(f ? smi_field_name(f) : NULL, "clocks.max.memory", "clocks.max.mem alias");
	f = smi_field_lookup("memory.total");
	is_str(f ? smi_field_unit(f) : NULL, "MiB", "memory.total is in MiB");
	f = smi_field_lookup("power.limit");
	is_str(f ? smi_field_unit(f) : NULL, "W", "power.limit is in W");
	f = smi_field_lookup("temperature.gpu");
	ok(f && smi_field_unit(f) == NULL, "temperature.gpu has no unit, as in nvidia-smi");
	ok(smi_field_lookup("memory.totally") == NULL, "memory.totally is unknown");
	ok(smi_field_lookup("") == NULL, "the empty field is unknown");
	ok(smi_field_lookup("NAME") == NULL, "field names are case-sensitive");
}

/* ---- arguments ----------------------------------------------------------- */

static void test_args(void)
{
	struct smi_args a;
	char err[256];

	is_int(parse(&a, err, ARGV(NULL)), 0, "no arguments parse");
	is_int(a.mode, SMI_MODE_SUMMARY, "no arguments: summary");
	parse(&a, err, ARGV("-q"));
	is_int(a.mode, SMI_MODE_QUERY, "-q: query");
	parse(&a, err, ARGV("--list-gpus"));
	is_int(a.mode, SMI_MODE_LIST, "--list-gpus: list");
	is_int(parse(&a, err, ARGV("-q", "-h")), 0, "-h wins over the rest");
	is_int(a.mode, SMI_MODE_HELP, "-h: help");
	is_int(parse(&a, err, ARGV("--help-query-gpu")), 0, "--help-query-gpu parses");
	is_int(a.mode, SMI_MODE_HELP_QUERY_GPU, "--help-query-gpu mode");

	is_int(parse(&a, err, ARGV("--query-gpu=name,memory.total", "--format=csv")), 0,
	       "--query-gpu=... --format=csv parses");
	is_int(a.mode, SMI_MODE_QUERY_GPU, "query-gpu mode");
	is_int(a.nfields, 2, "two fields");
	ok(!a.noheader && !a.nounits, "plain csv: header and units");
	is_int(parse(&a, err, ARGV("--query-gpu", "name, pci.bus_id ,power.limit",
				   "--format", "nounits,csv,noheader")), 0,
	       "space-separated values, blanks around fields, options in any order");
	is_int(a.nfields, 3, "three fields");
	ok(a.noheader && a.nounits, "noheader and nounits set");
	is_str(smi_field_name(a.fields[1]), "pci.bus_id", "blanks trimmed");
	is_int(parse(&a, err, ARGV("--query-gpu=name,name", "--format=csv")), 0,
	       "a field may repeat");

	is_int(parse(&a, err, ARGV("--query-gpu=name,bogus.field", "--format=csv")),
	       SMI_EXIT_INVALID_ARG, "unknown field is exit status 2");
	is_str(err, "Field \"bogus.field\" is not a valid field to query.",
	       "... with nvidia-smi's message naming the field");
	is_int(parse(&a, err, ARGV("--query-gpu=", "--format=csv")), 2, "empty field list");
	is_str(err, "Field \"\" is not a valid field to query.", "... names the empty field");
	is_int(parse(&a, err, ARGV("--query-gpu=name,", "--format=csv")), 2,
	       "trailing comma is an empty field");
	is_int(parse(&a, err, ARGV("--query-gpu=name")), 2, "--query-gpu without --format");
	has_str(err, "--format", "... says --format is needed");
	is_int(parse(&a, err, ARGV("--query-gpu=name", "--format=json")), 2, "--format=json");
	has_str(err, "\"json\"", "... names the bad format");
	is_int(parse(&a, err, ARGV("--query-gpu=name", "--format=noheader")), 2,
	       "--format without csv");
	is_int(parse(&a, err, ARGV("--format=csv")), 2, "--format without --query-gpu");
	is_int(parse(&a, err, ARGV("--query-gpu")), 2, "--query-gpu without a value");
	is_int(parse(&a, err, ARGV("--query-gpu=name", "--format")), 2,
	       "--format without a value");
	is_int(parse(&a, err, ARGV("-q", "-L")), 2, "-q with -L");
	has_str(err, "Invalid combination of input arguments", "... nvidia-smi's wording");
	is_int(parse(&a, err, ARGV("-q", "--query-gpu=name", "--format=csv")), 2,
	       "-q with --query-gpu");
	is_int(parse(&a, err, ARGV("--bogus")), 2, "unknown option");
	has_str(err, "\"--bogus\"", "... names the option");
	is_int(parse(&a, err, ARGV("-q", "extra")), 2, "stray argument");

	is_int(parse(&a, err, ARGV("-i", "0", "-q")), 0, "-i 0");
	is_str(a.id, "0", "-i value kept");
	is_int(parse(&a, err, ARGV("--id=0000:02:00.0", "-L")), 0, "--id=bus id");
	is_str(a.id, "0000:02:00.0", "--id value kept");
	is_int(parse(&a, err, ARGV("-i1")), 0, "-i1 (attached value)");
	is_str(a.id, "1", "-i1 value");
	is_int(parse(&a, err, ARGV("-i", "gpu0")), 2, "-i with a bad id");
	has_str(err, "\"gpu0\"", "... names the id");
	is_int(parse(&a, err, ARGV("-i")), 2, "-i without a value");

	/* getopt_long: clusters, GNU abbreviations, one parse after another */
	is_int(parse(&a, err, ARGV("-L", "-xq")), 2, "an unknown option in a cluster");
	has_str(err, "\"-x\"", "... names that letter");
	is_int(parse(&a, err, ARGV("--list")), 0, "--list: an abbreviation of --list-gpus");
	is_int(a.mode, SMI_MODE_LIST, "... is -L");
	is_int(parse(&a, err, ARGV("--help-query")), 2, "--help-query is ambiguous");
	is_int(parse(&a, err, ARGV("-q", "--query-gpu")), 2,
	       "after a failed parse, the next one starts afresh");
	is_int(parse(&a, err, ARGV("-i0", "-q")), 0, "... and so does this one");
	is_str(a.id, "0", "... -i0 kept");
}

static void test_exit_codes(void)
{
	is_int(smi_exit_code(TGPU_SUCCESS), 0, "success exits 0");
	is_int(smi_exit_code(TGPU_ERROR_NO_DRIVER), 9, "driver not loaded exits 9");
	is_int(smi_exit_code(TGPU_ERROR_NO_DEVICE), 6, "no device exits 6");
	is_int(smi_exit_code(TGPU_ERROR_PERMISSION_DENIED), 4, "permission exits 4");
	is_int(smi_exit_code(TGPU_ERROR_DEVICE_UNAVAILABLE), 15, "GPU lost exits 15");
	is_int(smi_exit_code(TGPU_ERROR_OS), 255, "other errors exit 255");
}

static void test_select(void)
{
	is_int(smi_select("0", devs, 2), 0, "-i 0");
	is_int(smi_select("1", devs, 2), 1, "-i 1");
	is_int(smi_select("2", devs, 2), -1, "-i 2 matches nothing");
	is_int(smi_select("0000:02:00.0", devs, 2), 1, "-i by bus id");
	is_int(smi_select("02:00.0", devs, 2), 1, "-i by short bus id");
	is_int(smi_select("00000000:01:00.0", devs, 2), 0, "-i by nvidia-smi bus id");
	is_int(smi_select("0000:03:00.0", devs, 2), -1, "-i by absent bus id");
}

/* ---- CSV and list -------------------------------------------------------- */

static char *csv(const char *query, const char *format, int ndev)
{
	struct smi_snapshot s = snapshot(ndev);
	struct smi_args a;
	char err[256], *out = NULL;

	if (parse(&a, err, ARGV(query, format))) {
		diag("parse failed: %s", err);
		return strdup("");
	}
	RENDER(out, smi_print_csv(f, &a, &s));
	return out;
}

static void test_csv(void)
{
	char *out;

	out = csv("--query-gpu=name,pci.bus_id,memory.total,clocks.max.sm,clocks.max.memory,power.limit",
		  "--format=csv", 2);
	is_str(out,
	       "name, pci.bus_id, memory.total [MiB], clocks.max.sm [MHz], clocks.max.memory [MHz], power.limit [W]\n"
	       "TGPU Tesla P100, 0000:01:00.0, 16384 MiB, 1328 MHz, 715 MHz, 250.00 W\n"
	       "TGPU Tesla M40, 0000:02:00.0, 12288 MiB, 1112 MHz, 3004 MHz, 250.00 W\n",
	       "csv: header with units, one row per GPU in order");
	free(out);

	out = csv("--query-gpu=name,memory.total,power.limit", "--format=csv,nounits", 1);
	is_str(out,
	       "name, memory.total [MiB], power.limit [W]\n"
	       "TGPU Tesla P100, 16384, 250.00\n",
	       "csv,nounits: bare values, header keeps the units");
	free(out);

	out = csv("--query-gpu=memory.total", "--format=csv,noheader", 2);
	is_str(out, "16384 MiB\n12288 MiB\n", "csv,noheader");
	free(out);

	out = csv("--query-gpu=temperature.gpu,clocks.sm,clocks_throttle_reasons.active,"
		  "ecc.errors.corrected.volatile.total,"
		  "ecc.errors.uncorrected.volatile.total,power.draw,"
		  "utilization.gpu,memory.used", "--format=csv", 1);
	is_str(out,
	       "temperature.gpu, clocks.current.sm [MHz], clocks_event_reasons.active, "
	       "ecc.errors.corrected.volatile.total, "
	       "ecc.errors.uncorrected.volatile.total, power.draw [W], "
	       "utilization.gpu [%], memory.used [MiB]\n"
	       "[N/A], [N/A], [N/A], [N/A], [N/A], [N/A], [N/A], [N/A]\n",
	       "unknowable fields print [N/A] and the header uses canonical names");
	free(out);

	out = csv("--query-gpu=ecc.mode.current,ecc.mode.pending,retired_pages.sbe,"
		  "retired_pages.double_bit.count,retired_pages.pending", "--format=csv", 2);
	is_str(out,
	       "ecc.mode.current, ecc.mode.pending, retired_pages.single_bit_ecc.count, "
	       "retired_pages.double_bit.count, retired_pages.pending\n"
	       "Enabled, [N/A], 2, 1, [N/A]\n"
	       "Disabled, [N/A], 0, 0, [N/A]\n",
	       "without the driver's ECC files: the mode and pages found at load, the rest N/A");
	free(out);

	out = csv("--query-gpu=power.draw,memory.used", "--format=csv,nounits,noheader", 1);
	is_str(out, "[N/A], [N/A]\n", "[N/A] carries no unit");
	free(out);

	out = csv("--query-gpu=index,count,pci.domain,pci.bus,pci.device,pci.device_id",
		  "--format=csv,noheader", 2);
	is_str(out, "0, 2, 0x0000, 0x01, 0x00, 0x15F81234\n1, 2, 0x0000, 0x02, 0x00, 0x17FD1234\n",
	       "index, count and PCI fields in nvidia-smi's hex style");
	free(out);

	out = csv("--query-gpu=timestamp,driver_version,tgpu.chip,tgpu.sm_count",
		  "--format=csv,noheader", 1);
	is_str(out, "2026/11/29 16:36:20.123, 1.0.0, GP100, 56\n",
	       "timestamp (local time), driver version and tgpu fields");
	free(out);

	out = csv("--query-gpu=clocks.default_applications.graphics,clocks.max.graphics",
		  "--format=csv,noheader", 1);
	is_str(out, "1189 MHz, 1328 MHz\n", "base clock is the default application clock");
	free(out);
}

static void test_list(void)
{
	struct smi_snapshot s = snapshot(2);
	char *out = NULL;

	RENDER(out, smi_print_list(f, &s));
	is_str(out, "GPU 0: TGPU Tesla P100\nGPU 1: TGPU Tesla M40\n", "-L lists GPUs");
	free(out);
}

/* ---- summary and -q -------------------------------------------------------- */

static void test_summary(void)
{
	struct smi_snapshot s = snapshot(2);
	char *out = NULL, *line, *save = NULL, *copy;
	bool widths = true;
	int boxlines = 0, n;

	RENDER(out, smi_print_summary(f, &s));
	diag("summary:\n%s", out);

	copy = strdup(out);
	line = strtok_r(copy, "\n", &save);
	is_str(line, "Sun Nov 29 16:36:20 2026", "first line is the time");
	for (; line; line = strtok_r(NULL, "\n", &save)) {
		if (line[0] != '+' && line[0] != '|')
			continue;
		boxlines++;
		n = (int)strlen(line);
		if (n != 91 || line[n - 1] != line[0]) {
			widths = false;
			diag("bad box line (%d columns): \"%s\"", n, line);
		}
	}
	free(copy);
	ok(widths, "all %d box lines are 91 columns and closed", boxlines);
	has_str(out, "| TGPU-SMI " TGPU_VERSION " ", "TGPU-SMI version in the header");
	has_str(out, "Driver Version: 1.0.0", "driver version in the header");
	has_str(out, "libtgpu Version: 9.8.7", "library version in the header");
	has_str(out, "|   0  TGPU Tesla P100 ", "GPU 0 row");
	has_str(out, "|   1  TGPU Tesla M40 ", "GPU 1 row");
	has_str(out, "0000:01:00.0 ", "bus id of GPU 0");
	has_str(out, "N/A / 16384MiB |", "memory usage: used unknown, total known");
	has_str(out, "N/A / 12288MiB |", "memory usage of GPU 1");
	has_str(out, "N/A /  250W |", "power usage/cap");
	ok(!strstr(out, " 0MiB /"), "used memory is not invented as 0MiB");
	ok(!strstr(out, "No running processes found"), "processes are not claimed to be none");
	has_str(out, "Volatile Uncorr. ECC |", "ECC column header");
	free(out);
}

static void test_query(void)
{
	struct smi_snapshot s = snapshot(1);
	char *out = NULL, *line, *save = NULL, *copy;
	bool aligned = true;
	int kvlines = 0;

	s.attached = 2;     /* -i picked one of two */
	RENDER(out, smi_print_query(f, NULL, &s));
	diag("query:\n%s", out);

	copy = strdup(out);
	for (line = strtok_r(copy, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		char *colon = strstr(line, ": ");

		if (!colon)
			continue;
		kvlines++;
		if (colon - line != 55) {
			aligned = false;
			diag("misaligned: \"%s\"", line);
		}
	}
	free(copy);
	ok(aligned && kvlines > 40, "all %d key/value lines have the colon at column 55", kvlines);
	has_str(out, "==============TGPU-SMI LOG==============", "log banner");
	has_str(out, "Timestamp                                              : Sun Nov 29 16:36:20 2026\n",
		"timestamp");
	has_str(out, "Driver Version                                         : 1.0.0\n",
		"driver version");
	has_str(out, "Attached GPUs                                          : 2\n",
		"attached GPUs counts all GPUs, not just the selected");
	has_str(out, "\nGPU 0000:01:00.0\n", "GPU section header");
	has_str(out, "    Product Name                                       : TGPU Tesla P100\n",
		"product name");
	has_str(out, "    Product Architecture                               : Pascal\n",
		"architecture");
	has_str(out, "    Multiprocessor Count                               : 56\n", "SM count");
	has_str(out, "        Device Id                                      : 0x15F81234\n",
		"PCI device id");
	has_str(out, "        Bus Id                                         : 0000:01:00.0\n",
		"PCI bus id");
	has_str(out, "        Bus Type                                       : PCIe\n", "bus type");
	has_str(out, "    FB Memory Usage\n        Total                                          : 16384 MiB\n"
		"        Reserved                                       : N/A\n",
		"FB memory total, reserved N/A");
	has_str(out, "    BAR1 Memory Usage\n        Total                                          : 16384 MiB\n",
		"BAR1 total");
	has_str(out, "    ECC Mode\n        Current                                        : Enabled\n"
		"        Pending                                        : N/A\n",
		"ECC mode enabled; pending N/A without the driver's ECC files");
	has_str(out, "    Temperature\n        GPU Current Temp                               : N/A\n",
		"temperature N/A");
	has_str(out, "    ECC Errors\n        Volatile\n"
		"            DRAM Correctable                           : N/A\n",
		"ECC error counters stay N/A");
	has_str(out, "    Retired Pages\n        Single Bit ECC                                 : 2\n"
		"        Double Bit ECC                                 : 1\n"
		"        Pending Page Blacklist                         : N/A\n",
		"retired pages by cause from the load, pending N/A");
	has_str(out, "    Clocks Event Reasons\n        Idle                                           : N/A\n",
		"clocks event reasons N/A");
	has_str(out, "        Current Power Limit                            : 250.00 W\n",
		"power limit");
	has_str(out, "    Max Clocks\n        Graphics                                       : 1328 MHz\n"
		"        SM                                             : 1328 MHz\n"
		"        Memory                                         : 715 MHz\n",
		"max clocks");
	ok(!strstr(out, "0000:02:00.0"), "the unselected GPU is not printed");
	free(out);
}

/* ---- live state: memory and processes ------------------------------------- */

#define MiB (1024ull * 1024)

static struct tgpu_process_info procs0[3], procs1[1];
static struct smi_state states[2];

/* GPU 0: 1 GiB + 4 KiB used, three processes; GPU 1: 0 used, none. */
static void make_states(void)
{
	memset(states, 0, sizeof(states));
	memset(procs0, 0, sizeof(procs0));
	procs0[0] = (struct tgpu_process_info){ .pid = 42, .used_memory = 80 * MiB, .clients = 2 };
	strcpy(procs0[0].name, "holder");
	procs0[1] = (struct tgpu_process_info){ .pid = 4321, .used_memory = 0, .clients = 1 };
	strcpy(procs0[1].name, "a-rather-long-process-name-that-goes-on");
	procs0[2] = (struct tgpu_process_info){ .pid = 99999,
						.used_memory = TGPU_MEMORY_UNKNOWN,
						.clients = 1 };
	states[0].mem_known = true;
	states[0].mem_used = 1024 * MiB + 4096;
	states[0].mem_total = devs[0].vram_size;
	states[0].procs_known = true;
	states[0].procs = procs0;
	states[0].nprocs = 3;
	states[1].mem_known = true;
	states[1].mem_used = 0;
	states[1].mem_total = devs[1].vram_size;
	states[1].procs_known = true;
	states[1].procs = procs1;
	states[1].nprocs = 0;
}

static struct smi_snapshot live_snapshot(int count)
{
	struct smi_snapshot s = snapshot(count);

	s.state = states;
	return s;
}

static char *csv_live(const char *query, const char *format, int ndev)
{
	struct smi_snapshot s = live_snapshot(ndev);
	struct smi_args a;
	char err[256], *out = NULL;

	if (parse(&a, err, ARGV(query, format))) {
		diag("parse failed: %s", err);
		return strdup("");
	}
	if (a.mode == SMI_MODE_QUERY_APPS)
		RENDER(out, smi_print_csv_apps(f, &a, &s));
	else if (a.mode == SMI_MODE_QUERY_RETIRED_PAGES)
		RENDER(out, smi_print_csv_retired(f, &a, &s));
	else
		RENDER(out, smi_print_csv(f, &a, &s));
	return out;
}

/* ECC from the driver's sysfs: GPU 0 with errors and a pending page, GPU 1 off. */
static void test_ecc_live(void)
{
	struct smi_snapshot s;
	char *out;

	make_states();
	states[0].ecc_known = true;
	states[0].ecc = (struct tgpu_ecc_info){
		.mode_current = 1, .mode_pending = 0,
		.sbe_volatile = 1003, .dbe_volatile = 1,
		.sbe_aggregate = 4000000000ull, .dbe_aggregate = 2,
		.retired_sbe = 3, .retired_dbe = 1, .retired_pending = 1,
	};
	states[1].ecc_known = true;
	out = csv_live("--query-gpu=ecc.mode.current,ecc.mode.pending,"
		       "ecc.errors.corrected.volatile.total,ecc.errors.uncorrected.volatile.dram,"
		       "ecc.errors.corrected.aggregate.device_memory,"
		       "ecc.errors.uncorrected.aggregate.total,retired_pages.sbe,"
		       "retired_pages.double_bit.count,retired_pages.pending",
		       "--format=csv,noheader", 2);
	is_str(out,
	       "Enabled, Disabled, 1003, 1, 4000000000, 2, 3, 1, Yes\n"
	       "Disabled, Disabled, 0, 0, 0, 0, 0, 0, No\n",
	       "ECC fields from the driver's counts and pages, per GPU");
	free(out);

	s = live_snapshot(1);
	RENDER(out, smi_print_query(f, NULL, &s));
	has_str(out, "    ECC Mode\n        Current                                        : Enabled\n"
		"        Pending                                        : Disabled\n",
		"-q: ECC mode current and pending");
	has_str(out, "    ECC Errors\n        Volatile\n"
		"            DRAM Correctable                           : 1003\n"
		"            DRAM Uncorrectable                         : 1\n"
		"        Aggregate\n"
		"            DRAM Correctable                           : 4000000000\n"
		"            DRAM Uncorrectable                         : 2\n",
		"-q: ECC errors, volatile and aggregate");
	has_str(out, "        Pending Page Blacklist                         : Yes\n",
		"-q: a page pending");
	free(out);

	s = live_snapshot(2);
	RENDER(out, smi_print_summary(f, &s));
	has_str(out, "                   1 |", "summary: Volatile Uncorr. ECC 1 on GPU 0");
	has_str(out, "                 Off |", "summary: Off on the GPU without ECC");
	free(out);
	memset(states, 0, sizeof(states));
}

/* Temperature, power and reasons from the driver: GPU 0 throttled. */
static void test_thermal_live(void)
{
	struct smi_snapshot s;
	char *out;

	make_states();
	states[0].therm_known = true;
	states[0].therm = (struct tgpu_thermal_info){
		.temperature_mc = 77499, .max_operating_mc = 75000,
		.slowdown_mc = 85000, .shutdown_mc = 90000,
		.power_mw = 231500, .power_cap_mw = 200000,
		.power_cap_min_mw = 125000, .power_cap_max_mw = 250000,
		.clock_mhz = 1318,
		.reasons = TGPU_CLOCKS_EVENT_SW_THERMAL_SLOWDOWN | TGPU_CLOCKS_EVENT_SW_POWER_CAP,
	};
	out = csv_live("--query-gpu=temperature.gpu,power.draw,power.limit,power.default_limit,"
		       "power.min_limit,power.max_limit,clocks_event_reasons.supported,"
		       "clocks_throttle_reasons.active,clocks_event_reasons.sw_thermal_slowdown,"
		       "clocks_event_reasons.gpu_idle,clocks_event_reasons.sync_boost",
		       "--format=csv,noheader,nounits", 2);
	is_str(out,
	       "77, 231.50, 200.00, 250.00, 125.00, 250.00, 0x000000000000006f, "
	       "0x0000000000000024, Active, Not Active, [N/A]\n"
	       "[N/A], [N/A], 250.00, 250.00, [N/A], [N/A], [N/A], [N/A], [N/A], [N/A], [N/A]\n",
	       "thermal fields from the driver; without it N/A, the limit the board's");
	free(out);

	s = live_snapshot(1);
	RENDER(out, smi_print_query(f, NULL, &s));
	has_str(out, "        SW Power Cap                                   : Active\n"
		"        HW Slowdown                                    : Not Active\n"
		"            HW Thermal Slowdown                        : Not Active\n"
		"            HW Power Brake Slowdown                    : N/A\n",
		"-q: clocks event reasons, active or not, N/A what a tgpu cannot have");
	has_str(out, "        SW Thermal Slowdown                            : Active\n",
		"-q: SW thermal slowdown active");
	has_str(out, "    Temperature\n        GPU Current Temp                               : 77 C\n"
		"        GPU Shutdown Temp                              : 90 C\n"
		"        GPU Slowdown Temp                              : 85 C\n"
		"        GPU Max Operating Temp                         : 75 C\n",
		"-q: temperatures");
	has_str(out, "        Power Draw                                     : 231.50 W\n"
		"        Current Power Limit                            : 200.00 W\n",
		"-q: power draw and the cap in force");
	free(out);

	s = live_snapshot(1);
	RENDER(out, smi_print_summary(f, &s));
	has_str(out, " 77C ", "summary: the temperature");
	has_str(out, " 232W /  200W ", "summary: Pwr:Usage/Cap");
	free(out);
	memset(states, 0, sizeof(states));
}

static void test_memory(void)
{
	struct smi_snapshot s;
	char *out;

	make_states();
	out = csv_live("--query-gpu=memory.total,memory.used,memory.free,memory.reserved",
		       "--format=csv", 2);
	is_str(out,
	       "memory.total [MiB], memory.used [MiB], memory.free [MiB], memory.reserved [MiB]\n"
	       "16384 MiB, 1024 MiB, 15360 MiB, [N/A]\n"
	       "12288 MiB, 0 MiB, 12288 MiB, [N/A]\n",
	       "memory.used rounds down to MiB; free = total - used; reserved stays N/A");
	free(out);

	states[1].mem_known = false;
	out = csv_live("--query-gpu=memory.used,memory.free", "--format=csv,noheader,nounits", 2);
	is_str(out, "1024, 15360\n[N/A], [N/A]\n", "a GPU whose memory is unknown prints [N/A]");
	free(out);

	/* The state belongs to the selected device (-i 1 picks devs + 1). */
	make_states();
	s = live_snapshot(1);
	s.devs = &devs[1];
	s.state = &states[1];
	{
		struct smi_args a;
		char err[256];

		parse(&a, err, ARGV("--query-gpu=name,memory.used", "--format=csv,noheader"));
		RENDER(out, smi_print_csv(f, &a, &s));
	}
	is_str(out, "TGPU Tesla M40, 0 MiB\n", "-i: the selected device's own state");
	free(out);

	out = csv_live("--query-gpu=clocks.current.memory,clocks.current.sm", "--format=csv", 1);
	is_str(out, "clocks.current.memory [MHz], clocks.current.sm [MHz]\n715 MHz, [N/A]\n",
	       "current memory clock is the fixed one; the SM clock in use is unknown");
	free(out);
}

static void test_apps_csv(void)
{
	struct smi_args a;
	char err[256], *out;

	make_states();
	out = csv_live("--query-compute-apps=pid,process_name,used_memory,gpu_bus_id",
		       "--format=csv", 2);
	is_str(out,
	       "pid, process_name, used_gpu_memory [MiB], gpu_bus_id\n"
	       "42, holder, 80 MiB, 0000:01:00.0\n"
	       "4321, a-rather-long-process-name-that-goes-on, 0 MiB, 0000:01:00.0\n"
	       "99999, [N/A], [N/A], 0000:01:00.0\n",
	       "one row per process, canonical names in the header, unknown values [N/A]");
	free(out);

	out = csv_live("--query-compute-apps=pid,used_memory", "--format=csv,noheader,nounits", 2);
	is_str(out, "42, 80\n4321, 0\n99999, [N/A]\n", "noheader,nounits");
	free(out);

	out = csv_live("--query-compute-apps=pid,name,gpu_name,gpu_uuid,gpu_serial",
		       "--format=csv", 2);
	has_str(out, "pid, process_name, gpu_name, gpu_uuid, gpu_serial\n",
		"the name alias; uuid and serial fields exist");
	has_str(out, "42, holder, TGPU Tesla P100, [N/A], [N/A]\n", "... and print [N/A]");
	free(out);

	states[0].nprocs = 0;
	out = csv_live("--query-compute-apps=pid", "--format=csv", 2);
	is_str(out, "pid\n", "no processes: only the header");
	free(out);
	out = csv_live("--query-compute-apps=pid", "--format=csv,noheader", 2);
	is_str(out, "", "no processes, noheader: nothing");
	free(out);

	is_int(parse(&a, err, ARGV("--query-compute-apps=pid,memory.total", "--format=csv")), 2,
	       "a --query-gpu field is not a compute-apps field");
	is_str(err, "Field \"memory.total\" is not a valid field to query.", "... nvidia-smi's message");
	is_int(parse(&a, err, ARGV("--query-gpu=pid", "--format=csv")), 2,
	       "and a compute-apps field is not a --query-gpu field");
	is_int(parse(&a, err, ARGV("--query-compute-apps=pid")), 2, "--format is required");
	has_str(err, "--query-compute-apps needs --format", "... says so");
	is_int(parse(&a, err, ARGV("--query-compute-apps")), 2, "a value is required");
	is_int(parse(&a, err, ARGV("--query-compute-apps=pid", "--query-gpu=name",
				   "--format=csv")), 2, "not with --query-gpu");
	is_int(parse(&a, err, ARGV("--query-compute-apps", "pid", "--format", "csv", "-i", "1")), 0,
	       "space-separated values and -i");
	ok(a.mode == SMI_MODE_QUERY_APPS && a.nfields == 1 && strcmp(a.id, "1") == 0,
	   "... query-apps mode, one field, id 1");
	is_int(smi_app_field_lookup("used_memory") == smi_app_field_lookup("used_gpu_memory"), 1,
	       "used_memory is an alias of used_gpu_memory");
	is_str(smi_field_unit(smi_app_field_lookup("used_memory")), "MiB", "... in MiB");
}

static void test_summary_live(void)
{
	struct smi_snapshot s;
	char *out = NULL, *line, *save = NULL, *copy;
	bool widths = true;

	make_states();
	s = live_snapshot(2);
	RENDER(out, smi_print_summary(f, &s));
	diag("summary:\n%s", out);
	copy = strdup(out);
	for (line = strtok_r(copy, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		if ((line[0] == '+' || line[0] == '|') && strlen(line) != 91) {
			widths = false;
			diag("bad box line: \"%s\"", line);
		}
	}
	free(copy);
	ok(widths, "box lines stay 91 columns with processes and long names");
	has_str(out, "|     1024MiB / 16384MiB |", "GPU 0 memory usage, right-aligned");
	has_str(out, "|        0MiB / 12288MiB |", "GPU 1 memory usage: a real 0");
	has_str(out, "|    0         42     C    holder", "process row: GPU, PID, type C, name");
	/* Under the header: PID ends under "PID", C under "Type", name under "Process name". */
	has_str(out, "|  GPU        PID   Type   Process name", "process header");
	has_str(out, "C    holder                                                   80MiB |\n",
		"memory right-aligned under GPU Memory");
	has_str(out, "|    0       4321     C    a-rather-long-process-name-that-goes-on",
		"a long name");
	has_str(out, "|    0      99999     C    N/A", "no name: N/A");
	has_str(out, "N/A |\n+---", "unknown memory: N/A at the right");
	ok(!strstr(out, "No running processes found"), "no 'none' line when there are rows");

	states[0].nprocs = 0;
	RENDER(out, smi_print_summary(f, &s));
	has_str(out, "|  No running processes found                 ", "no processes: nvidia-smi's line");
	free(out);

	states[1].procs_known = false;
	RENDER(out, smi_print_summary(f, &s));
	ok(!strstr(out, "No running processes found") && strstr(out, "|  N/A    "),
	   "a GPU whose processes are unknown: N/A, not 'none'");
	free(out);
}

static void test_query_live(void)
{
	struct smi_snapshot s;
	char *out = NULL;

	make_states();
	s = live_snapshot(1);
	RENDER(out, smi_print_query(f, NULL, &s));
	has_str(out, "    FB Memory Usage\n"
		"        Total                                          : 16384 MiB\n"
		"        Reserved                                       : N/A\n"
		"        Used                                           : 1024 MiB\n"
		"        Free                                           : 15360 MiB\n",
		"FB memory usage: total, used, free");
	has_str(out, "    Processes\n"
		"        Process ID                                     : 42\n"
		"            Type                                       : C\n"
		"            Name                                       : holder\n"
		"            Used GPU Memory                            : 80 MiB\n"
		"        Process ID                                     : 4321\n",
		"processes, nvidia-smi's layout");
	has_str(out, "        Process ID                                     : 99999\n"
		"            Type                                       : C\n"
		"            Name                                       : N/A\n"
		"            Used GPU Memory                            : N/A\n",
		"unknown name and memory: N/A");
	has_str(out, "    Clocks\n        Graphics                                       : N/A\n"
		"        SM                                             : N/A\n"
		"        Memory                                         : 715 MHz\n",
		"current clocks: memory known, SM not");
	free(out);

	states[0].nprocs = 0;
	RENDER(out, smi_print_query(f, NULL, &s));
	has_str(out, "    Processes                                          : None\n",
		"no processes: None");
	free(out);
	states[0].procs_known = false;
	states[0].mem_known = false;
	RENDER(out, smi_print_query(f, NULL, &s));
	has_str(out, "    Processes                                          : N/A\n",
		"processes unknown: N/A");
	has_str(out, "        Used                                           : N/A\n",
		"memory unknown: N/A");
	free(out);
}


/* ---- utilization, P-state, clocks event counters --------------------------- */

/* GPU 0 busy (P0, 37 % / 12 %) and throttled before; GPU 1 idle, no counters. */
static void make_util_states(void)
{
	make_states();
	states[0].util_known = true;
	states[0].util = (struct tgpu_utilization){ .gpu = 37, .memory = 12,
						    .performance_state = 0 };
	states[0].counters_known = true;
	states[0].counters = (struct tgpu_clocks_event_counters){
		.gpu_idle_us = 9000000, .sw_power_cap_us = 1500000,
		.sw_thermal_slowdown_us = 250, .hw_thermal_slowdown_us = 0,
	};
	states[1].util_known = true;
	states[1].util = (struct tgpu_utilization){ .gpu = 0, .memory = 0,
						    .performance_state = 8 };
}

/* Column of needle in the first line of text containing it, -1 if none. */
static int column_of(const char *text, const char *needle)
{
	const char *hit = strstr(text, needle), *bol;

	if (!hit)
		return -1;
	for (bol = hit; bol > text && bol[-1] != '\n'; bol--)
		;
	return (int)(hit - bol);
}

static void test_util_fields(void)
{
	static const char *const counters[] = {
		"clocks_event_reasons_counters.sw_power_cap",
		"clocks_event_reasons_counters.sync_boost",
		"clocks_event_reasons_counters.sw_thermal_slowdown",
		"clocks_event_reasons_counters.hw_thermal_slowdown",
		"clocks_event_reasons_counters.hw_power_brake_slowdown",
	};
	struct smi_snapshot s;
	char *out;
	size_t i;

	for (i = 0; i < sizeof(counters) / sizeof(counters[0]); i++)
		is_str(smi_field_lookup(counters[i]) ? smi_field_unit(smi_field_lookup(counters[i])) :
		       NULL, "us", "%s exists, in us", counters[i]);
	is_str(smi_field_unit(smi_field_lookup("utilization.memory")), "%",
	       "utilization.memory is in %%");
	ok(smi_field_lookup("pstate") && !smi_field_unit(smi_field_lookup("pstate")),
	   "pstate has no unit");

	make_util_states();
	out = csv_live("--query-gpu=pstate,utilization.gpu,utilization.memory,"
		       "clocks_event_reasons_counters.sw_power_cap,"
		       "clocks_event_reasons_counters.sync_boost,"
		       "clocks_event_reasons_counters.sw_thermal_slowdown,"
		       "clocks_event_reasons_counters.hw_thermal_slowdown,"
		       "clocks_event_reasons_counters.hw_power_brake_slowdown", "--format=csv", 2);
	is_str(out,
	       "pstate, utilization.gpu [%], utilization.memory [%], "
	       "clocks_event_reasons_counters.sw_power_cap [us], "
	       "clocks_event_reasons_counters.sync_boost [us], "
	       "clocks_event_reasons_counters.sw_thermal_slowdown [us], "
	       "clocks_event_reasons_counters.hw_thermal_slowdown [us], "
	       "clocks_event_reasons_counters.hw_power_brake_slowdown [us]\n"
	       "P0, 37 %, 12 %, 1500000 us, [N/A], 250 us, 0 us, [N/A]\n"
	       "P8, 0 %, 0 %, [N/A], [N/A], [N/A], [N/A], [N/A]\n",
	       "P-state, utilization and counters from the driver; sync boost and power brake N/A");
	free(out);
	out = csv_live("--query-gpu=utilization.gpu,pstate,clocks_event_reasons_counters.sw_power_cap",
		       "--format=csv,noheader,nounits", 1);
	is_str(out, "37, P0, 1500000\n", "nounits: bare numbers");
	free(out);

	/* the same fields of a driver without them */
	states[0].util_known = false;
	states[0].counters_known = false;
	out = csv_live("--query-gpu=pstate,utilization.gpu,utilization.memory,"
		       "clocks_event_reasons_counters.sw_thermal_slowdown", "--format=csv,noheader", 1);
	is_str(out, "[N/A], [N/A], [N/A], [N/A]\n", "unknown utilization and counters: [N/A]");
	free(out);

	/* summary: Perf and GPU-Util where nvidia-smi puts them */
	make_util_states();
	s = live_snapshot(2);
	RENDER(out, smi_print_summary(f, &s));
	diag("summary with utilization:\n%s", out);
	has_str(out, "| N/A   N/A    P0 ", "summary: P0 on the busy GPU");
	has_str(out, "| N/A   N/A    P8 ", "summary: P8 on the idle GPU");
	has_str(out, "|     37%          N/A |\n", "summary: GPU-Util 37%%, Compute M. N/A");
	has_str(out, "|      0%          N/A |\n", "summary: GPU-Util 0%% is a real 0");
	is_int(column_of(out, "P0 "), column_of(out, "Perf") + 1,
	       "P-state one column right of Perf, as nvidia-smi");
	is_int(column_of(out, "37%") + 2, column_of(out, "GPU-Util") + 6,
	       "GPU-Util's %% one column left of the header's end, as nvidia-smi");
	free(out);
	states[0].util_known = false;
	states[0].therm_known = true;
	states[0].therm.temperature_mc = 36000;
	RENDER(out, smi_print_summary(f, &s));
	has_str(out, "| N/A   36C    N/A ", "summary: no utilization: Perf N/A");
	has_str(out, "|      N/A         N/A |\n", "summary: no utilization: GPU-Util N/A");
	free(out);

	/* -q */
	make_util_states();
	s = live_snapshot(1);
	RENDER(out, smi_print_query(f, NULL, &s));
	has_str(out, "    Fan Speed                                          : N/A\n"
		"    Performance State                                  : P0\n"
		"    Clocks Event Reasons\n",
		"-q: performance state after the fan, before the reasons");
	has_str(out, "        Display Clock Setting                          : N/A\n"
		"    Clocks Event Reasons Counters\n"
		"        SW Power Capping                               : 1500000 us\n"
		"        Sync Boost                                     : N/A\n"
		"        SW Thermal Slowdown                            : 250 us\n"
		"        HW Thermal Slowdown                            : 0 us\n"
		"        HW Power Braking                               : N/A\n"
		"    FB Memory Usage\n",
		"-q: clocks event reasons counters in us, after the reasons, before FB memory");
	has_str(out, "    Utilization\n"
		"        Gpu                                            : 37 %\n"
		"        Memory                                         : 12 %\n",
		"-q: utilization as nvidia-smi prints it");
	free(out);
	states[0].util_known = false;
	states[0].counters_known = false;
	RENDER(out, smi_print_query(f, NULL, &s));
	has_str(out, "    Performance State                                  : N/A\n",
		"-q: unknown P-state N/A");
	has_str(out, "    Clocks Event Reasons Counters\n"
		"        SW Power Capping                               : N/A\n"
		"        Sync Boost                                     : N/A\n"
		"        SW Thermal Slowdown                            : N/A\n"
		"        HW Thermal Slowdown                            : N/A\n"
		"        HW Power Braking                               : N/A\n",
		"-q: unknown counters N/A");
	has_str(out, "    Utilization\n"
		"        Gpu                                            : N/A\n"
		"        Memory                                         : N/A\n",
		"-q: unknown utilization N/A");
	free(out);

	RENDER(out, smi_print_help_query_gpu(f));
	has_str(out, "\"clocks_event_reasons_counters.sw_power_cap\"\n", "--help-query-gpu: counters");
	has_str(out, "clocks_event_reasons_counters/sw_power_cap). Unit: us.\n",
		"... with their sysfs source and unit");
	has_str(out, "\"utilization.gpu\"\nPercent of the last second", "... utilization.gpu");
	has_str(out, "\"pstate\"\nPerformance state: P0", "... pstate");
	free(out);
	memset(states, 0, sizeof(states));
}

/* ---- -q -d ------------------------------------------------------------------ */

static char *query_display(const char *list, int ndev)
{
	struct smi_snapshot s = live_snapshot(ndev);
	struct smi_args a;
	char err[256], *out = NULL;

	if (parse(&a, err, ARGV("-q", "-d", list))) {
		diag("parse failed: %s", err);
		return strdup("");
	}
	RENDER(out, smi_print_query(f, &a, &s));
	return out;
}

static void test_display(void)
{
	static const struct {
		const char *type, *want, *not;
	} one[] = {
		{ "MEMORY", "    FB Memory Usage\n", "    Utilization\n" },
		{ "MEMORY", "    BAR1 Memory Usage\n", "    Compute Mode" },
		{ "UTILIZATION", "    Utilization\n        Gpu ", "    FB Memory Usage" },
		{ "ECC", "    ECC Errors\n        Volatile\n", "    Retired Pages" },
		{ "TEMPERATURE", "    Temperature\n        GPU Current Temp", "    GPU Power Readings" },
		{ "POWER", "    GPU Power Readings\n        Power Draw", "    Temperature" },
		{ "CLOCK", "    Clocks\n        Graphics", "    Clocks Event Reasons" },
		{ "CLOCK", "    Default Applications Clocks\n", "    Processes" },
		{ "CLOCK", "    Max Clocks\n", "Performance State" },
		{ "COMPUTE", "    Compute Mode                                       : N/A\n",
		  "    BAR1" },
		{ "PIDS", "    Processes\n        Process ID                                     : 42\n",
		  "    Clocks\n" },
		{ "PERFORMANCE", "    Clocks Event Reasons Counters\n", "    ECC Mode" },
		{ "PAGE_RETIREMENT", "    Retired Pages\n        Single Bit ECC", "    ECC Errors" },
	};
	struct smi_args a;
	char err[256], *out;
	size_t i;

	/* parsing */
	is_int(parse(&a, err, ARGV("-q", "-d", "ECC,POWER")), 0, "-q -d ECC,POWER");
	is_int(a.display, SMI_DISPLAY_ECC | SMI_DISPLAY_POWER, "... two sections");
	is_int(parse(&a, err, ARGV("--display=PERFORMANCE, page_retirement", "-q")), 0,
	       "--display= before -q, blanks and lower case");
	is_int(a.display, SMI_DISPLAY_PERFORMANCE | SMI_DISPLAY_PAGE_RETIREMENT, "... kept");
	is_int(parse(&a, err, ARGV("-q")), 0, "-q alone");
	is_int(a.display, 0, "... every section");
	is_int(parse(&a, err, ARGV("-q", "-d", "ROW_REMAPPER,VOLTAGE")), 0,
	       "nvidia-smi's types a tgpu lacks are accepted");
	ok(a.display && !(a.display & (SMI_DISPLAY_ECC | SMI_DISPLAY_MEMORY)), "... and select none of ours");
	is_int(parse(&a, err, ARGV("-q", "-d", "ECC,BOGUS")), SMI_EXIT_INVALID_ARG,
	       "an unknown display type exits 2");
	has_str(err, "\"BOGUS\" is not a valid display type", "... naming it");
	has_str(err, "PAGE_RETIREMENT", "... and listing the valid ones");
	is_int(parse(&a, err, ARGV("-q", "-d", "ECC,")), 2, "an empty display type");
	is_int(parse(&a, err, ARGV("-d", "ECC")), 2, "-d without -q");
	has_str(err, "only valid with -q", "... says so");
	is_int(parse(&a, err, ARGV("-L", "-d", "ECC")), 2, "-d with -L");
	is_int(parse(&a, err, ARGV("--query-gpu=name", "--format=csv", "-d", "ECC")), 2,
	       "-d with --query-gpu");
	is_int(parse(&a, err, ARGV("-q", "-d")), 2, "-d without a value");
	has_str(err, "needs a list of display types", "... says what it takes");

	/* each section alone */
	make_util_states();
	for (i = 0; i < sizeof(one) / sizeof(one[0]); i++) {
		out = query_display(one[i].type, 1);
		ok(strstr(out, one[i].want) && !strstr(out, one[i].not) &&
		   !strstr(out, "Product Name") && strstr(out, "\nGPU 0000:01:00.0\n"),
		   "-d %s: its section, not \"%s\", no identity, the GPU line", one[i].type,
		   one[i].not);
		free(out);
	}

	/* nvidia-smi -q's order, whatever the order of the list */
	out = query_display("UTILIZATION,MEMORY", 1);
	ok(strstr(out, "FB Memory Usage") && strstr(out, "Utilization\n") &&
	   strstr(out, "FB Memory Usage") < strstr(out, "Utilization\n"),
	   "-d UTILIZATION,MEMORY prints memory first, as -q");
	free(out);

	out = query_display("ECC", 2);
	has_str(out, "Attached GPUs                                          : 2\n"
		"GPU 0000:01:00.0\n    ECC Mode\n", "-d ECC: header, GPU line, ECC Mode");
	has_str(out, "GPU 0000:02:00.0\n    ECC Mode\n", "... for every GPU");
	ok(!strstr(out, "Temperature") && !strstr(out, "Processes"),
	   "-d ECC: no Temperature, no Processes");
	free(out);

	out = query_display("ROW_REMAPPER", 1);
	is_str(out,
	       "\n==============TGPU-SMI LOG==============\n\n"
	       "Timestamp                                              : Sun Nov 29 16:36:20 2026\n"
	       "Driver Version                                         : 1.0.0\n"
	       "libtgpu Version                                        : 9.8.7\n"
	       "\n"
	       "Attached GPUs                                          : 1\n"
	       "GPU 0000:01:00.0\n"
	       "\n",
	       "-d ROW_REMAPPER: the header and the GPU line, nothing made up");
	free(out);

	states[0].ecc_known = true;
	states[0].ecc = (struct tgpu_ecc_info){ .mode_current = 1, .mode_pending = 1,
						.retired_sbe = 2, .retired_dbe = 1,
						.retired_pending = 1 };
	states[0].therm_known = true;
	states[0].therm.reasons = TGPU_CLOCKS_EVENT_SW_POWER_CAP;
	out = query_display("PERFORMANCE,PAGE_RETIREMENT", 1);
	diag("-q -d PERFORMANCE,PAGE_RETIREMENT:\n%s", out);
	is_str(out,
	       "\n==============TGPU-SMI LOG==============\n\n"
	       "Timestamp                                              : Sun Nov 29 16:36:20 2026\n"
	       "Driver Version                                         : 1.0.0\n"
	       "libtgpu Version                                        : 9.8.7\n"
	       "\n"
	       "Attached GPUs                                          : 1\n"
	       "GPU 0000:01:00.0\n"
	       "    Performance State                                  : P0\n"
	       "    Clocks Event Reasons\n"
	       "        Idle                                           : Not Active\n"
	       "        Applications Clocks Setting                    : Not Active\n"
	       "        SW Power Cap                                   : Active\n"
	       "        HW Slowdown                                    : Not Active\n"
	       "            HW Thermal Slowdown                        : Not Active\n"
	       "            HW Power Brake Slowdown                    : N/A\n"
	       "        Sync Boost                                     : N/A\n"
	       "        SW Thermal Slowdown                            : Not Active\n"
	       "        Display Clock Setting                          : N/A\n"
	       "    Clocks Event Reasons Counters\n"
	       "        SW Power Capping                               : 1500000 us\n"
	       "        Sync Boost                                     : N/A\n"
	       "        SW Thermal Slowdown                            : 250 us\n"
	       "        HW Thermal Slowdown                            : 0 us\n"
	       "        HW Power Braking                               : N/A\n"
	       "    Retired Pages\n"
	       "        Single Bit ECC                                 : 2\n"
	       "        Double Bit ECC                                 : 1\n"
	       "        Pending Page Blacklist                         : Yes\n"
	       "\n",
	       "-q -d PERFORMANCE,PAGE_RETIREMENT: nvidia-smi's layout, sections in its order");
	free(out);
	memset(states, 0, sizeof(states));
}

/* ---- --query-retired-pages ------------------------------------------------------ */

static struct tgpu_retired_page pages0[2], pages1[1];

static void test_retired_csv(void)
{
	struct smi_args a;
	char err[256], *out;

	make_states();
	/* one an hour before the snapshot, one at no known time, one on GPU 1 */
	pages0[0] = (struct tgpu_retired_page){ .address = 0x12345000,
						.cause = TGPU_RETIRED_CAUSE_SBE,
						.timestamp = 1795970180 - 3600 };
	pages0[1] = (struct tgpu_retired_page){ .address = 0x2ffff000,
						.cause = TGPU_RETIRED_CAUSE_DBE, .pending = 1 };
	pages1[0] = (struct tgpu_retired_page){ .address = 0xabc000,
						.cause = TGPU_RETIRED_CAUSE_DBE,
						.timestamp = 1795970180 };
	states[0].retired_known = true;
	states[0].retired = pages0;
	states[0].nretired = 2;
	states[1].retired_known = true;
	states[1].retired = pages1;
	states[1].nretired = 1;

	out = csv_live("--query-retired-pages=gpu_bus_id,retired_pages.address,retired_pages.cause,"
		       "retired_pages.timestamp,retired_pages.pending", "--format=csv", 2);
	is_str(out,
	       "gpu_bus_id, retired_pages.address, retired_pages.cause, retired_pages.timestamp, "
	       "retired_pages.pending\n"
	       "0000:01:00.0, 0x0000000012345000, Single Bit ECC, 2026/11/29 15:36:20, No\n"
	       "0000:01:00.0, 0x000000002ffff000, Double Bit ECC, [N/A], Yes\n"
	       "0000:02:00.0, 0x0000000000abc000, Double Bit ECC, 2026/11/29 16:36:20, No\n",
	       "one row per retired page and GPU, nvidia-smi's address and cause, local time");
	free(out);

	out = csv_live("--query-retired-pages=gpu_name,gpu_serial,gpu_uuid,retired_pages.address",
		       "--format=csv,noheader", 1);
	is_str(out,
	       "TGPU Tesla P100, [N/A], [N/A], 0x0000000012345000\n"
	       "TGPU Tesla P100, [N/A], [N/A], 0x000000002ffff000\n",
	       "noheader; serial and uuid [N/A]; only the selected GPU");
	free(out);

	states[0].nretired = 0;
	states[1].retired_known = false;
	out = csv_live("--query-retired-pages=retired_pages.address", "--format=csv", 2);
	is_str(out, "retired_pages.address\n", "no pages, or unknown: only the header");
	free(out);

	is_int(parse(&a, err, ARGV("--query-retired-pages", "retired_pages.cause,gpu_uuid",
				   "--format", "csv,nounits", "-i", "1")), 0,
	       "--query-retired-pages FIELDS --format csv,nounits -i 1");
	ok(a.mode == SMI_MODE_QUERY_RETIRED_PAGES && a.nfields == 2 && a.nounits &&
	   strcmp(a.id, "1") == 0, "... retired-pages mode, two fields, nounits, id 1");
	is_int(parse(&a, err, ARGV("--query-retired-pages=retired_pages.bogus", "--format=csv")), 2,
	       "an unknown retired-pages field exits 2");
	is_str(err, "Field \"retired_pages.bogus\" is not a valid field to query.",
	       "... nvidia-smi's message");
	is_int(parse(&a, err, ARGV("--query-retired-pages=pid", "--format=csv")), 2,
	       "a compute-apps field is not a retired-pages field");
	is_int(parse(&a, err, ARGV("--query-retired-pages=retired_pages.address")), 2,
	       "--format is required");
	has_str(err, "--query-retired-pages needs --format", "... says so");
	is_int(parse(&a, err, ARGV("--query-retired-pages")), 2, "a value is required");
	has_str(err, "--query-retired-pages needs a list of fields", "... says so");
	is_int(parse(&a, err, ARGV("--query-retired-pages=gpu_name", "-q", "--format=csv")), 2,
	       "not with -q");
	is_int(parse(&a, err, ARGV("--help-query-retired-pages")), 0, "--help-query-retired-pages");
	is_int(a.mode, SMI_MODE_HELP_QUERY_RETIRED_PAGES, "... its mode");
	ok(smi_retired_field_lookup("retired_pages.timestamp") &&
	   !smi_retired_field_lookup("retired_pages.sbe"),
	   "retired-pages fields are their own table");

	RENDER(out, smi_print_help_query_retired_pages(f));
	has_str(out, "List of valid properties to query for the switch \"--query-retired-pages\":",
		"--help-query-retired-pages heading");
	has_str(out, "\"retired_pages.cause\"\nWhy the page was retired", "... lists the cause");
	has_str(out, "\"retired_pages.pending\"\n", "... and the tgpu extension");
	free(out);
	memset(states, 0, sizeof(states));
}

/* ---- dmon ------------------------------------------------------------------ */

/* A first sample (no previous one) of state st. */
static void dmon_line(FILE *f, const struct smi_args *a, const struct tgpu_device_info *d,
		      const struct smi_state *st)
{
	struct smi_dmon_sample cur = { .st = *st };

	smi_dmon_line(f, a, d, &cur, NULL);
}

static void test_dmon(void)
{
	struct smi_args a;
	struct smi_state st = { 0 };
	char err[256], *out = NULL;

	is_int(parse(&a, err, ARGV("dmon")), 0, "dmon parses");
	ok(a.mode == SMI_MODE_DMON && a.dmon_count == 0 && a.dmon_delay == 1 &&
	   a.dmon_groups == SMI_DMON_DEFAULT && !a.id,
	   "defaults: forever, every second, groups puc, all GPUs");
	is_int(parse(&a, err, ARGV("dmon", "-c", "2", "-d", "3", "-i", "1", "-s", "mc")), 0,
	       "dmon -c 2 -d 3 -i 1 -s mc");
	ok(a.dmon_count == 2 && a.dmon_delay == 3 && strcmp(a.id, "1") == 0 &&
	   a.dmon_groups == (SMI_DMON_MEM | SMI_DMON_CLOCKS), "... all kept");
	is_int(parse(&a, err, ARGV("dmon", "--count=5", "--delay=2", "-s", "pucvmet")), 0,
	       "long options, every group");
	ok(a.dmon_count == 5 && a.dmon_delay == 2 && a.dmon_groups == 0x7f, "... kept");
	is_int(parse(&a, err, ARGV("dmon", "-c3")), 0, "-c3 attached");
	is_int(a.dmon_count, 3, "... 3");

	is_int(parse(&a, err, ARGV("dmon", "-c", "0")), 2, "-c 0 is refused");
	has_str(err, "at least 1", "... says what is allowed");
	is_int(parse(&a, err, ARGV("dmon", "-c", "2x")), 2, "-c 2x is refused");
	is_int(parse(&a, err, ARGV("dmon", "-c", "-1")), 2, "-c -1 is refused");
	is_int(parse(&a, err, ARGV("dmon", "-c", "99999999999")), 2, "-c beyond int is refused");
	is_int(parse(&a, err, ARGV("dmon", "-c")), 2, "-c without a value");
	is_int(parse(&a, err, ARGV("dmon", "-d", "0")), 2, "-d 0 is refused");
	has_str(err, "1 to 86400", "... says the range");
	is_int(parse(&a, err, ARGV("dmon", "-s", "px")), 2, "-s with an unknown group");
	has_str(err, "'x'", "... names it");
	is_int(parse(&a, err, ARGV("dmon", "-s", "")), 2, "-s empty");
	is_int(parse(&a, err, ARGV("dmon", "-i", "gpu")), 2, "dmon -i with a bad id");
	is_int(parse(&a, err, ARGV("dmon", "-q")), 2, "an option dmon does not know");
	has_str(err, "\"-q\"", "... named");
	is_int(parse(&a, err, ARGV("-q", "dmon")), 2, "dmon only as the first argument");
	is_int(parse(&a, err, ARGV("dmon", "-h")), 0, "dmon -h");
	is_int(a.mode, SMI_MODE_HELP, "... is help");

	parse(&a, err, ARGV("dmon"));
	RENDER(out, smi_dmon_header(f, &a); dmon_line(f, &a, &devs[0], &st);
	       dmon_line(f, &a, &devs[1], &st));
	is_str(out,
	       "# gpu   pwr gtemp mtemp    sm   mem   enc   dec  mclk  pclk\n"
	       "# Idx     W     C     C     %     %     %     %   MHz   MHz\n"
	       "    0     -     -     -     -     -     -     -   715     -\n"
	       "    1     -     -     -     -     -     -     -  3004     -\n",
	       "default dmon: nvidia-smi's layout, '-' for what is not reported");
	free(out);

	parse(&a, err, ARGV("dmon", "-s", "mp"));
	st.mem_known = true;
	st.mem_used = 80 * MiB + 5;
	RENDER(out, smi_dmon_header(f, &a); dmon_line(f, &a, &devs[0], &st));
	is_str(out,
	       "# gpu   pwr gtemp mtemp    fb  bar1\n"
	       "# Idx     W     C     C    MB    MB\n"
	       "    0     -     -     -    80     -\n",
	       "-s mp: groups in nvidia-smi's order, fb is the memory used");
	free(out);
	st.mem_known = false;
	RENDER(out, dmon_line(f, &a, &devs[0], &st));
	is_str(out, "    0     -     -     -     -     -\n", "unknown memory: fb is '-'");
	free(out);

	parse(&a, err, ARGV("dmon", "-s", "vet"));
	RENDER(out, smi_dmon_header(f, &a));
	is_str(out,
	       "# gpu pviol tviol sbecc dbecc   pci rxpci txpci\n"
	       "# Idx     %  bool  errs  errs  errs  MB/s  MB/s\n",
	       "-s vet: violations, errors, PCIe columns");
	free(out);
}

/* dmon -o, --format csv, utilization and the violation columns */
static void test_dmon_more(void)
{
	struct smi_dmon_sample s0 = { 0 }, s1, s2;
	struct smi_args a;
	char err[256], *out = NULL;

	is_int(parse(&a, err, ARGV("dmon", "-o", "DT")), 0, "dmon -o DT");
	ok(a.dmon_date && a.dmon_time && !a.dmon_csv, "... date and time");
	is_int(parse(&a, err, ARGV("dmon", "--options=T", "--format", "csv")), 0,
	       "dmon --options=T --format csv");
	ok(!a.dmon_date && a.dmon_time && a.dmon_csv, "... time, csv");
	is_int(parse(&a, err, ARGV("dmon", "-o", "TD", "--format=csv", "-c", "1")), 0,
	       "-o TD, --format=csv");
	ok(a.dmon_date && a.dmon_time && a.dmon_csv && a.dmon_count == 1, "... all kept");
	is_int(parse(&a, err, ARGV("dmon", "-oD")), 0, "-oD attached");
	ok(a.dmon_date && !a.dmon_time, "... date only");
	is_int(parse(&a, err, ARGV("dmon", "-o", "DX")), SMI_EXIT_INVALID_ARG,
	       "dmon -o with an unknown letter exits 2");
	has_str(err, "'X'", "... names it");
	is_int(parse(&a, err, ARGV("dmon", "-o", "dt")), 2, "-o letters are nvidia-smi's capitals");
	is_int(parse(&a, err, ARGV("dmon", "-o", "")), 2, "-o empty");
	is_int(parse(&a, err, ARGV("dmon", "-o")), 2, "-o without a value");
	has_str(err, "D (date), T (time)", "... says what it takes");
	is_int(parse(&a, err, ARGV("dmon", "--format", "xml")), 2, "dmon --format xml exits 2");
	has_str(err, "\"xml\"", "... names it");
	is_int(parse(&a, err, ARGV("dmon", "--format")), 2, "dmon --format without a value");
	is_int(parse(&a, err, ARGV("-q", "--format=csv")), 2, "--format is not -q's either");

	/* Sun Nov 29 16:36:20 2026 UTC, 37 % and 12 % busy */
	s0.wall.tv_sec = 1795970180;
	s0.mono.tv_sec = 100;
	s0.st.util_known = true;
	s0.st.util = (struct tgpu_utilization){ .gpu = 37, .memory = 12 };

	parse(&a, err, ARGV("dmon", "-o", "DT"));
	RENDER(out, smi_dmon_header(f, &a); smi_dmon_line(f, &a, &devs[0], &s0, NULL));
	diag("dmon -o DT:\n%s", out);
	is_str(out,
	       "#Date     Time       gpu   pwr gtemp mtemp    sm   mem   enc   dec  mclk  pclk\n"
	       "#YYYYMMDD HH:MM:SS   Idx     W     C     C     %     %     %     %   MHz   MHz\n"
	       " 20261129 16:36:20     0     -     -     -    37    12     -     -   715     -\n",
	       "dmon -o DT: Date and Time first, sm and mem from the utilization");
	free(out);

	parse(&a, err, ARGV("dmon", "-o", "T", "-s", "u"));
	RENDER(out, smi_dmon_header(f, &a); smi_dmon_line(f, &a, &devs[1], &s0, NULL));
	is_str(out,
	       "#Time       gpu    sm   mem   enc   dec\n"
	       "#HH:MM:SS   Idx     %     %     %     %\n"
	       " 16:36:20     1    37    12     -     -\n",
	       "dmon -o T -s u: only the time");
	free(out);

	parse(&a, err, ARGV("dmon", "-o", "D", "-s", "c"));
	RENDER(out, smi_dmon_header(f, &a); smi_dmon_line(f, &a, &devs[0], &s0, NULL));
	is_str(out,
	       "#Date       gpu  mclk  pclk\n"
	       "#YYYYMMDD   Idx   MHz   MHz\n"
	       " 20261129     0   715     -\n",
	       "dmon -o D -s c: only the date");
	free(out);

	parse(&a, err, ARGV("dmon", "--format", "csv"));
	RENDER(out, smi_dmon_header(f, &a); smi_dmon_line(f, &a, &devs[0], &s0, NULL);
	       smi_dmon_line(f, &a, &devs[1], &s0, NULL));
	is_str(out,
	       "#gpu, pwr, gtemp, mtemp, sm, mem, enc, dec, mclk, pclk\n"
	       "#Idx, W, C, C, %, %, %, %, MHz, MHz\n"
	       "0, -, -, -, 37, 12, -, -, 715, -\n"
	       "1, -, -, -, 37, 12, -, -, 3004, -\n",
	       "dmon --format csv: \", \" between columns, '#' before the header lines");
	free(out);

	parse(&a, err, ARGV("dmon", "--format=csv", "-o", "DT", "-s", "m"));
	RENDER(out, smi_dmon_header(f, &a); smi_dmon_line(f, &a, &devs[0], &s0, NULL));
	is_str(out,
	       "#Date, Time, gpu, fb, bar1\n"
	       "#YYYYMMDD, HH:MM:SS, Idx, MB, MB\n"
	       "20261129, 16:36:20, 0, -, -\n",
	       "dmon --format csv -o DT");
	free(out);

	/*
	 * Violations: 2 s between s0 and s1, 0.5 s of it power capped and
	 * the SW thermal slowdown on a while; none of either up to s2.
	 */
	s0.st.counters_known = true;
	s0.st.counters = (struct tgpu_clocks_event_counters){
		.sw_power_cap_us = 1000000, .sw_thermal_slowdown_us = 7,
		.hw_thermal_slowdown_us = 5,
	};
	s1 = s0;
	s1.mono = (struct timespec){ .tv_sec = 102 };
	s1.st.counters.sw_power_cap_us = 1500000;
	s1.st.counters.sw_thermal_slowdown_us = 8;
	s2 = s1;
	s2.mono = (struct timespec){ .tv_sec = 103, .tv_nsec = 500000000 };

	parse(&a, err, ARGV("dmon", "-s", "v"));
	RENDER(out, smi_dmon_header(f, &a); smi_dmon_line(f, &a, &devs[0], &s0, NULL);
	       smi_dmon_line(f, &a, &devs[0], &s1, &s0); smi_dmon_line(f, &a, &devs[0], &s2, &s1));
	is_str(out,
	       "# gpu pviol tviol\n"
	       "# Idx     %  bool\n"
	       "    0     -     -\n"
	       "    0    25     1\n"
	       "    0     0     0\n",
	       "pviol: 0.5 s capped of 2 s is 25 %%; tviol 1 while a thermal counter grows; "
	       "'-' on the first sample");
	free(out);

	s1.st.counters.sw_power_cap_us = 1000000 + 1010000;    /* 50.5 % */
	s1.st.counters.sw_thermal_slowdown_us = 7;
	s1.st.counters.hw_thermal_slowdown_us = 6;
	RENDER(out, smi_dmon_line(f, &a, &devs[0], &s1, &s0));
	is_str(out, "    0    51     1\n", "pviol rounds; a HW thermal slowdown is a tviol too");
	free(out);

	s1.st.counters.sw_power_cap_us = 1000000 + 2030000;    /* a tick over 2 s */
	RENDER(out, smi_dmon_line(f, &a, &devs[0], &s1, &s0));
	is_str(out, "    0   100     1\n", "pviol never above 100");
	free(out);

	s1.st.counters.sw_power_cap_us = 10;    /* the driver was reloaded */
	s1.st.counters.hw_thermal_slowdown_us = 0;
	RENDER(out, smi_dmon_line(f, &a, &devs[0], &s1, &s0));
	is_str(out, "    0     -     -\n", "counters that went back: '-'");
	free(out);

	s1 = s0;
	s1.mono.tv_sec = 101;
	s1.st.counters_known = false;
	RENDER(out, smi_dmon_line(f, &a, &devs[0], &s1, &s0));
	is_str(out, "    0     -     -\n", "counters unknown now: '-'");
	free(out);
	RENDER(out, smi_dmon_line(f, &a, &devs[0], &s0, &s1));
	is_str(out, "    0     -     -\n", "counters unknown before: '-'");
	free(out);
	s1 = s0;
	RENDER(out, smi_dmon_line(f, &a, &devs[0], &s1, &s0));
	is_str(out, "    0     -     0\n", "no time between the samples: pviol '-', tviol 0");
	free(out);

	/* help */
	RENDER(out, smi_print_help(f));
	has_str(out, "-o,   --options=DT", "-h documents dmon -o");
	has_str(out, "--format=csv          Columns separated by", "-h documents dmon --format csv");
	has_str(out, "-d,   --display=LIST", "-h documents -q -d");
	has_str(out, "PAGE_RETIREMENT", "... with its types");
	has_str(out, "--query-retired-pages=FIELDS", "-h documents --query-retired-pages");
	has_str(out, "--help-query-retired-pages", "-h documents --help-query-retired-pages");
	has_str(out, "gpu_busy_percent", "-h names the utilization's sysfs source");
	has_str(out, "clocks_event_reasons_counters/", "-h names the counters' sysfs source");
	has_str(out, "sysfs retired_pages", "-h names the retired pages' source");
	free(out);
}

static void test_help(void)
{
	char *out = NULL;

	RENDER(out, smi_print_help_query_gpu(f));
	has_str(out, "\"clocks_event_reasons.active\" or \"clocks_throttle_reasons.active\"",
		"--help-query-gpu lists aliases");
	has_str(out, "\"memory.total\"\nTotal VRAM. Unit: MiB.", "--help-query-gpu shows units");
	free(out);
	RENDER(out, smi_print_help(f));
	has_str(out, "--query-gpu=FIELDS", "-h documents --query-gpu");
	has_str(out, "--query-compute-apps=FIELDS", "-h documents --query-compute-apps");
	has_str(out, "tgpu-smi dmon", "-h documents dmon");
	free(out);
	RENDER(out, smi_print_help_query_apps(f));
	has_str(out, "\"used_gpu_memory\" or \"used_memory\"\n", "--help-query-compute-apps");
	free(out);
}

int main(void)
{
	/* Renderers print local time: pin it. */
	setenv("TZ", "UTC", 1);
	tzset();
	make_devices();

	test_fields();
	test_args();
	test_exit_codes();
	test_select();
	test_csv();
	test_list();
	test_summary();
	test_query();
	test_ecc_live();
	test_thermal_live();
	test_memory();
	test_apps_csv();
	test_summary_live();
	test_query_live();
	test_util_fields();
	test_display();
	test_retired_csv();
	test_dmon();
	test_dmon_more();
	test_help();
	return tap_done();
}
