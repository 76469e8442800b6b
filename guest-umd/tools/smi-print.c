// SPDX-License-Identifier: MIT
/*
 * tgpu-smi core: the outputs -- CSV, -L, the summary table, the -q
 * report, dmon, help -- following nvidia-smi's layouts, field names,
 * units and "N/A", so that people who read nvidia-smi every day can
 * read it.
 */
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <tgpu/regs.h>

#include "smi.h"
#include "smi-field.h"
#include "tgpu-util.h"

#ifndef TGPU_VERSION
#error "TGPU_VERSION must come from the build system (meson project version)"
#endif

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

/* p: the row of a per-process or per-page query, NULL for --query-gpu */
static void csv_row(FILE *f, const struct smi_args *a,
		    const struct smi_snapshot *s, const struct tgpu_device_info *d,
		    const void *p)
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

/* One row per retired page and GPU, in retirement order. */
void smi_print_csv_retired(FILE *f, const struct smi_args *a,
			   const struct smi_snapshot *s)
{
	int d, i;

	csv_header(f, a);
	for (d = 0; d < s->count; d++) {
		const struct smi_state *st = s->state ? &s->state[d] : NULL;

		if (!st || !st->retired_known)
			continue;
		for (i = 0; i < st->nretired; i++)
			csv_row(f, a, s, &s->devs[d], &st->retired[i]);
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
	char t[64], head[256], a[64], b[64], c[64], x[96], y[64], p[16];
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

		st = state_of(s, g);
		/* Persistence mode and fan: N/A, a tgpu board reports neither. */
		snprintf(x, sizeof(x), "%3d  %s", g->ordinal, g->name);
		lr(a, w1, x, NA);
		snprintf(x, sizeof(x), "  %s", g->pci_bus_id);
		lr(b, w2, x, "Off");    /* a 3D controller: no display */
		/* nvidia-smi: the volatile uncorrectable count, or Off */
		if (st && st->ecc_known && st->ecc.mode_current)
			snprintf(x, sizeof(x), "%" PRIu64, st->ecc.dbe_volatile);
		else
			snprintf(x, sizeof(x), "%s", st && st->ecc_known ? "Off" : NA);
		lr(c, w3, "", x);
		cells(f, a, b, c);

		if (st && st->util_known)
			snprintf(p, sizeof(p), "P%" PRIu32, st->util.performance_state);
		else
			snprintf(p, sizeof(p), "%s", NA);
		/* nvidia-smi: the P-state one column right of "Perf" */
		if (st && st->therm_known) {
			snprintf(x, sizeof(x), "%-4s %3dC    %s", NA,
				 round_c(st->therm.temperature_mc), p);
			snprintf(y, sizeof(y), "%4" PRIu32 "W / %4" PRIu32 "W",
				 (st->therm.power_mw + 500) / 1000,
				 (st->therm.power_cap_mw + 500) / 1000);
		} else {
			snprintf(x, sizeof(x), "%-4s %4s    %s", NA, NA, p);
			snprintf(y, sizeof(y), "%s / %4" PRIu32 "W", NA,
				 (g->power_limit_mw + 500) / 1000);
		}
		lr(a, w1, x, y);
		if (st && st->mem_known)
			snprintf(y, sizeof(y), "%" PRIu64 "MiB / %" PRIu64 "MiB",
				 tu_bytes_to_mib(st->mem_used), tu_bytes_to_mib(g->vram_size));
		else
			snprintf(y, sizeof(y), "%s / %" PRIu64 "MiB", NA,
				 tu_bytes_to_mib(g->vram_size));
		lr(b, w2, "", y);
		/* GPU-Util ends one column left of its header, as nvidia-smi's */
		if (st && st->util_known)
			snprintf(x, sizeof(x), "%6" PRIu32 "%%", st->util.gpu);
		else
			snprintf(x, sizeof(x), "     %s", NA);
		lr(c, w3, x, NA);
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

/* -q's ECC Errors, one timescale: the two DRAM counts, or N/A */
static void ecc_counts(FILE *f, const char *when, const struct tgpu_ecc_info *ecc,
		       uint64_t sbe, uint64_t dbe)
{
	section(f, 2, when);
	if (ecc) {
		kv(f, 3, "DRAM Correctable", "%" PRIu64, sbe);
		kv(f, 3, "DRAM Uncorrectable", "%" PRIu64, dbe);
	} else {
		na(f, 3, "DRAM Correctable");
		na(f, 3, "DRAM Uncorrectable");
	}
}

/* nvidia-smi -q's order; the hardware slowdown's two kinds nested */
static const struct {
	int depth;
	const char *name;
	uint32_t bit;
} event_reasons[] = {
	{ 2, "Idle", TGPU_CLOCKS_EVENT_GPU_IDLE },
	{ 2, "Applications Clocks Setting", TGPU_CLOCKS_EVENT_APPLICATIONS_CLOCKS },
	{ 2, "SW Power Cap", TGPU_CLOCKS_EVENT_SW_POWER_CAP },
	{ 2, "HW Slowdown", TGPU_CLOCKS_EVENT_HW_SLOWDOWN },
	{ 3, "HW Thermal Slowdown", TGPU_CLOCKS_EVENT_HW_THERMAL_SLOWDOWN },
	{ 3, "HW Power Brake Slowdown", 0 },
	{ 2, "Sync Boost", 0 },
	{ 2, "SW Thermal Slowdown", TGPU_CLOCKS_EVENT_SW_THERMAL_SLOWDOWN },
	{ 2, "Display Clock Setting", 0 },
};

/* Performance State, Clocks Event Reasons and their counters (-d PERFORMANCE) */
static void q_performance(FILE *f, const struct smi_state *st)
{
	const struct tgpu_thermal_info *th = st && st->therm_known ? &st->therm : NULL;
	const struct tgpu_clocks_event_counters *c =
		st && st->counters_known ? &st->counters : NULL;
	size_t i;

	if (st && st->util_known)
		kv(f, 1, "Performance State", "P%" PRIu32, st->util.performance_state);
	else
		na(f, 1, "Performance State");
	section(f, 1, "Clocks Event Reasons");
	for (i = 0; i < ARRAY_SIZE(event_reasons); i++) {
		/* what a tgpu board cannot have: N/A */
		if (!th || !event_reasons[i].bit)
			na(f, event_reasons[i].depth, event_reasons[i].name);
		else
			kv(f, event_reasons[i].depth, event_reasons[i].name, "%s",
			   th->reasons & event_reasons[i].bit ? "Active" : "Not Active");
	}
	/* nvidia-smi's five; sync boost and the power brake a tgpu has not */
	section(f, 1, "Clocks Event Reasons Counters");
	if (c)
		kv(f, 2, "SW Power Capping", "%" PRIu64 " us", c->sw_power_cap_us);
	else
		na(f, 2, "SW Power Capping");
	na(f, 2, "Sync Boost");
	if (c) {
		kv(f, 2, "SW Thermal Slowdown", "%" PRIu64 " us", c->sw_thermal_slowdown_us);
		kv(f, 2, "HW Thermal Slowdown", "%" PRIu64 " us", c->hw_thermal_slowdown_us);
	} else {
		na(f, 2, "SW Thermal Slowdown");
		na(f, 2, "HW Thermal Slowdown");
	}
	na(f, 2, "HW Power Braking");
}

/* FB and BAR1 Memory Usage (-d MEMORY) */
static void q_memory(FILE *f, const struct tgpu_device_info *g, const struct smi_state *st)
{
	char buf[64];

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
}

/* Utilization (-d UTILIZATION): nvidia-smi -q writes "37 %" */
static void q_utilization(FILE *f, const struct smi_state *st)
{
	section(f, 1, "Utilization");
	if (st && st->util_known) {
		kv(f, 2, "Gpu", "%" PRIu32 " %%", st->util.gpu);
		kv(f, 2, "Memory", "%" PRIu32 " %%", st->util.memory);
	} else {
		na(f, 2, "Gpu");
		na(f, 2, "Memory");
	}
}

/* ECC Mode and ECC Errors (-d ECC) */
static void q_ecc(FILE *f, const struct tgpu_device_info *g, const struct tgpu_ecc_info *ecc)
{
	section(f, 1, "ECC Mode");
	if (ecc) {
		kv(f, 2, "Current", "%s", ecc->mode_current ? "Enabled" : "Disabled");
		kv(f, 2, "Pending", "%s", ecc->mode_pending ? "Enabled" : "Disabled");
	} else {
		kv(f, 2, "Current", "%s", g->ecc_enabled ? "Enabled" : "Disabled");
		na(f, 2, "Pending");
	}
	/* VRAM only: the board has no SRAM ECC to count */
	section(f, 1, "ECC Errors");
	ecc_counts(f, "Volatile", ecc, ecc ? ecc->sbe_volatile : 0,
		   ecc ? ecc->dbe_volatile : 0);
	ecc_counts(f, "Aggregate", ecc, ecc ? ecc->sbe_aggregate : 0,
		   ecc ? ecc->dbe_aggregate : 0);
}

/* Retired Pages (-d PAGE_RETIREMENT) */
static void q_retired(FILE *f, const struct tgpu_device_info *g, const struct tgpu_ecc_info *ecc)
{
	section(f, 1, "Retired Pages");
	if (ecc) {
		kv(f, 2, "Single Bit ECC", "%" PRIu32, ecc->retired_sbe);
		kv(f, 2, "Double Bit ECC", "%" PRIu32, ecc->retired_dbe);
		kv(f, 2, "Pending Page Blacklist", "%s", ecc->retired_pending ? "Yes" : "No");
	} else {
		kv(f, 2, "Single Bit ECC", "%" PRIu32, g->retired_pages_sbe);
		kv(f, 2, "Double Bit ECC", "%" PRIu32, g->retired_pages_dbe);
		na(f, 2, "Pending Page Blacklist");
	}
}

/* Temperature (-d TEMPERATURE) */
static void q_temperature(FILE *f, const struct tgpu_thermal_info *th)
{
	section(f, 1, "Temperature");
	if (th) {
		kv(f, 2, "GPU Current Temp", "%d C", round_c(th->temperature_mc));
		kv(f, 2, "GPU Shutdown Temp", "%d C", round_c(th->shutdown_mc));
		kv(f, 2, "GPU Slowdown Temp", "%d C", round_c(th->slowdown_mc));
		if (th->max_operating_mc)
			kv(f, 2, "GPU Max Operating Temp", "%d C",
			   round_c(th->max_operating_mc));
		else
			na(f, 2, "GPU Max Operating Temp");
	} else {
		na(f, 2, "GPU Current Temp");
		na(f, 2, "GPU Shutdown Temp");
		na(f, 2, "GPU Slowdown Temp");
		na(f, 2, "GPU Max Operating Temp");
	}
}

/* GPU Power Readings (-d POWER) */
static void q_power(FILE *f, const struct tgpu_device_info *g, const struct tgpu_thermal_info *th)
{
	char buf[64];

	section(f, 1, "GPU Power Readings");
	if (th) {
		kv(f, 2, "Power Draw", "%s", tu_fmt_watts(buf, sizeof(buf), th->power_mw, true));
		kv(f, 2, "Current Power Limit", "%s",
		   tu_fmt_watts(buf, sizeof(buf), th->power_cap_mw, true));
	} else {
		na(f, 2, "Power Draw");
		kv(f, 2, "Current Power Limit", "%s",
		   tu_fmt_watts(buf, sizeof(buf), g->power_limit_mw, true));
	}
	kv(f, 2, "Default Power Limit", "%s",
	   tu_fmt_watts(buf, sizeof(buf), g->power_limit_mw, true));
	if (th) {
		kv(f, 2, "Min Power Limit", "%s",
		   tu_fmt_watts(buf, sizeof(buf), th->power_cap_min_mw, true));
		kv(f, 2, "Max Power Limit", "%s",
		   tu_fmt_watts(buf, sizeof(buf), th->power_cap_max_mw, true));
	} else {
		na(f, 2, "Min Power Limit");
		na(f, 2, "Max Power Limit");
	}
}

/* Clocks, Default Applications Clocks and Max Clocks (-d CLOCK) */
static void q_clocks(FILE *f, const struct tgpu_device_info *g, const struct smi_state *st)
{
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
}

/* Processes (-d PIDS) */
static void q_processes(FILE *f, const struct smi_state *st)
{
	int i;

	if (!st || !st->procs_known) {
		na(f, 1, "Processes");
		return;
	}
	if (st->nprocs == 0) {
		kv(f, 1, "Processes", "None");
		return;
	}
	section(f, 1, "Processes");
	for (i = 0; i < st->nprocs; i++) {
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

/* The device's identity and PCI: only without -d, as nvidia-smi. */
static void q_identity(FILE *f, const struct tgpu_device_info *g)
{
	char buf[64];

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
}

/* One GPU of -q: every section (display 0), or those -d picked, in nvidia-smi's order. */
static void print_query_gpu(FILE *f, unsigned int display, const struct tgpu_device_info *g,
			    const struct smi_state *st)
{
	const struct tgpu_thermal_info *th = st && st->therm_known ? &st->therm : NULL;
	const struct tgpu_ecc_info *ecc = st && st->ecc_known ? &st->ecc : NULL;
	bool all = display == 0;

	fprintf(f, "GPU %s\n", g->pci_bus_id);
	if (all)
		q_identity(f, g);
	if (all || (display & SMI_DISPLAY_PERFORMANCE))
		q_performance(f, st);
	if (all || (display & SMI_DISPLAY_MEMORY))
		q_memory(f, g, st);
	if (all || (display & SMI_DISPLAY_COMPUTE))
		na(f, 1, "Compute Mode");
	if (all || (display & SMI_DISPLAY_UTILIZATION))
		q_utilization(f, st);
	if (all || (display & SMI_DISPLAY_ECC))
		q_ecc(f, g, ecc);
	if (all || (display & SMI_DISPLAY_PAGE_RETIREMENT))
		q_retired(f, g, ecc);
	if (all || (display & SMI_DISPLAY_TEMPERATURE))
		q_temperature(f, th);
	if (all || (display & SMI_DISPLAY_POWER))
		q_power(f, g, th);
	if (all || (display & SMI_DISPLAY_CLOCK))
		q_clocks(f, g, st);
	if (all || (display & SMI_DISPLAY_PIDS))
		q_processes(f, st);
	fputc('\n', f);
}

void smi_print_query(FILE *f, const struct smi_args *a, const struct smi_snapshot *s)
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
		print_query_gpu(f, a ? a->display : 0, &s->devs[d],
				s->state ? &s->state[d] : NULL);
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

/* One line of dmon, cell by cell: -o D and T, the GPU index, the groups' columns. */
#define DMON_MAX_COLS 32

struct dmon_row {
	int n;
	char cell[DMON_MAX_COLS][32];
};

static void dmon_add(struct dmon_row *r, const char *v)
{
	if (r->n < DMON_MAX_COLS)
		snprintf(r->cell[r->n++], sizeof(r->cell[0]), "%s", v);
}

/*
 * Aligned, as nvidia-smi dmon: Date and Time 8 wide and left-aligned,
 * the other columns 5 wide and right-aligned, a blank before each but
 * the GPU index when it comes first; a header line's '#' takes the place
 * of the line's first blank.  --format csv: ", " between cells, and '#'
 * still before the header lines, so that a CSV reader can skip them.
 */
static void dmon_emit(FILE *f, const struct smi_args *a, const struct dmon_row *r,
		      bool header)
{
	int text = a->dmon_date + a->dmon_time;     /* the leading Date and Time */
	char line[DMON_MAX_COLS * 36];
	size_t pos = 0;
	int i;

	if (a->dmon_csv) {
		fputs(header ? "#" : "", f);
		for (i = 0; i < r->n; i++)
			fprintf(f, "%s%s", i ? ", " : "", r->cell[i]);
		fputc('\n', f);
		return;
	}
	line[0] = '\0';
	for (i = 0; i < r->n && pos < sizeof(line); i++)
		pos += snprintf(line + pos, sizeof(line) - pos, i < text ? " %-8s" :
				i ? " %5s" : "%5s", r->cell[i]);
	if (header)
		line[0] = '#';
	fprintf(f, "%s\n", line);
}

void smi_dmon_header(FILE *f, const struct smi_args *a)
{
	struct dmon_row names = { 0 }, units = { 0 };
	size_t g, c;

	if (a->dmon_date) {
		dmon_add(&names, "Date");
		dmon_add(&units, "YYYYMMDD");
	}
	if (a->dmon_time) {
		dmon_add(&names, "Time");
		dmon_add(&units, "HH:MM:SS");
	}
	dmon_add(&names, "gpu");
	dmon_add(&units, "Idx");
	for (g = 0; g < ARRAY_SIZE(dmon_groups); g++) {
		for (c = 0; (a->dmon_groups & dmon_groups[g].group) &&
			    c < ARRAY_SIZE(dmon_groups[g].cols) && dmon_groups[g].cols[c].name; c++) {
			dmon_add(&names, dmon_groups[g].cols[c].name);
			dmon_add(&units, dmon_groups[g].cols[c].unit);
		}
	}
	dmon_emit(f, a, &names, true);
	dmon_emit(f, a, &units, true);
}

static int64_t elapsed_us(const struct timespec *from, const struct timespec *to)
{
	return ((int64_t)to->tv_sec - from->tv_sec) * 1000000 +
	       ((int64_t)to->tv_nsec - from->tv_nsec) / 1000;
}

/*
 * The violation columns, from the clocks event counters of two samples:
 * pviol the percent of the time between them the power cap held the
 * clock down, tviol whether a thermal slowdown did at all.  Not known
 * ("-") on the first sample, without counters, or when a counter went
 * back (the driver was reloaded in between).
 */
static bool dmon_viol(bool power, const struct smi_dmon_sample *cur,
		      const struct smi_dmon_sample *prev, char *buf, size_t len)
{
	const struct tgpu_clocks_event_counters *c1, *c0;
	uint64_t pct;
	int64_t dt;

	if (!cur || !prev || !cur->st.counters_known || !prev->st.counters_known)
		return false;
	c1 = &cur->st.counters;
	c0 = &prev->st.counters;
	if (power) {
		dt = elapsed_us(&prev->mono, &cur->mono);
		if (dt <= 0 || c1->sw_power_cap_us < c0->sw_power_cap_us)
			return false;
		pct = ((c1->sw_power_cap_us - c0->sw_power_cap_us) * 100 + (uint64_t)dt / 2) /
		      (uint64_t)dt;
		/* the driver counts in its own ticks: a hair over the interval is all of it */
		snprintf(buf, len, "%" PRIu64, pct > 100 ? 100 : pct);
		return true;
	}
	if (c1->hw_thermal_slowdown_us < c0->hw_thermal_slowdown_us ||
	    c1->sw_thermal_slowdown_us < c0->sw_thermal_slowdown_us)
		return false;
	snprintf(buf, len, "%d", c1->hw_thermal_slowdown_us > c0->hw_thermal_slowdown_us ||
		 c1->sw_thermal_slowdown_us > c0->sw_thermal_slowdown_us);
	return true;
}

/*
 * The value of column name, or false for "-".  Only what the driver
 * reports: the board's fixed memory clock, the SM clock in use, the VRAM
 * in use, the ECC counts, the power, the GPU temperature, the busy shares
 * and the clocks event counters.  Memory temperature, the encoder and
 * decoder (a tgpu has none), BAR1 use and PCIe counters are not reported.
 */
static bool dmon_value(const char *name, const struct tgpu_device_info *d,
		       const struct smi_dmon_sample *cur, const struct smi_dmon_sample *prev,
		       char *buf, size_t len)
{
	const struct smi_state *st = cur ? &cur->st : NULL;

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
	if (strcmp(name, "pwr") == 0 && st && st->therm_known) {
		snprintf(buf, len, "%" PRIu32, (st->therm.power_mw + 500) / 1000);
		return true;
	}
	if (strcmp(name, "gtemp") == 0 && st && st->therm_known) {
		snprintf(buf, len, "%d", round_c(st->therm.temperature_mc));
		return true;
	}
	if (strcmp(name, "sm") == 0 && st && st->util_known) {
		snprintf(buf, len, "%" PRIu32, st->util.gpu);
		return true;
	}
	if (strcmp(name, "mem") == 0 && st && st->util_known) {
		snprintf(buf, len, "%" PRIu32, st->util.memory);
		return true;
	}
	if (strcmp(name, "pviol") == 0)
		return dmon_viol(true, cur, prev, buf, len);
	if (strcmp(name, "tviol") == 0)
		return dmon_viol(false, cur, prev, buf, len);
	/* the volatile counts, as nvidia-smi's dmon shows them */
	if (strcmp(name, "sbecc") == 0 && st && st->ecc_known) {
		snprintf(buf, len, "%" PRIu64, st->ecc.sbe_volatile);
		return true;
	}
	if (strcmp(name, "dbecc") == 0 && st && st->ecc_known) {
		snprintf(buf, len, "%" PRIu64, st->ecc.dbe_volatile);
		return true;
	}
	return false;
}

void smi_dmon_line(FILE *f, const struct smi_args *a, const struct tgpu_device_info *d,
		   const struct smi_dmon_sample *cur, const struct smi_dmon_sample *prev)
{
	struct dmon_row row = { 0 };
	char buf[32];
	struct tm tm;
	size_t g, c;

	if (a->dmon_date || a->dmon_time)
		localtime_r(&cur->wall.tv_sec, &tm);
	if (a->dmon_date) {
		strftime(buf, sizeof(buf), "%Y%m%d", &tm);
		dmon_add(&row, buf);
	}
	if (a->dmon_time) {
		strftime(buf, sizeof(buf), "%H:%M:%S", &tm);
		dmon_add(&row, buf);
	}
	snprintf(buf, sizeof(buf), "%d", d->ordinal);
	dmon_add(&row, buf);
	for (g = 0; g < ARRAY_SIZE(dmon_groups); g++) {
		for (c = 0; (a->dmon_groups & dmon_groups[g].group) &&
			    c < ARRAY_SIZE(dmon_groups[g].cols) && dmon_groups[g].cols[c].name; c++) {
			if (!dmon_value(dmon_groups[g].cols[c].name, d, cur, prev, buf, sizeof(buf)))
				snprintf(buf, sizeof(buf), "-");
			dmon_add(&row, buf);
		}
	}
	dmon_emit(f, a, &row, false);
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
		"    -d,   --display=LIST        With -q: only these sections, comma-separated:\n"
		"                                MEMORY, UTILIZATION, ECC, TEMPERATURE, POWER,\n"
		"                                CLOCK, COMPUTE, PIDS, PERFORMANCE (P-state,\n"
		"                                clocks event reasons and their counters),\n"
		"                                PAGE_RETIREMENT.  nvidia-smi's other types\n"
		"                                (ROW_REMAPPER, VOLTAGE, ...) print nothing.\n"
		"          --query-gpu=FIELDS    Print FIELDS (comma-separated) per GPU.\n"
		"          --format=csv[,noheader][,nounits]\n"
		"                                Output format of --query-* (required).\n"
		"          --help-query-gpu      List the fields --query-gpu knows.\n"
		"          --query-compute-apps=FIELDS\n"
		"                                Print FIELDS per process using a GPU.\n"
		"          --help-query-compute-apps\n"
		"                                List the fields --query-compute-apps knows.\n"
		"          --query-retired-pages=FIELDS\n"
		"                                Print FIELDS per retired VRAM page.\n"
		"          --help-query-retired-pages\n"
		"                                List the fields --query-retired-pages knows.\n"
		"\n"
		"tgpu-smi dmon [OPTION...]       Print one line per GPU and interval:\n"
		"    -i,   --id=ID               Only this GPU.\n"
		"    -c,   --count=COUNT         Stop after COUNT samples (default: never).\n"
		"    -d,   --delay=SECS          Seconds between samples, 1 or more (default 1).\n"
		"    -s,   --select=GROUPS       Metric groups (default puc): p power and\n"
		"                                temperature, u utilization, c clocks,\n"
		"                                v violations, m memory (fb, bar1), e ECC\n"
		"                                and PCIe errors, t PCIe throughput.\n"
		"    -o,   --options=DT          D: a Date column (YYYYMMDD), T: a Time column\n"
		"                                (HH:MM:SS), in local time, before the GPU index.\n"
		"          --format=csv          Columns separated by \", \" instead of aligned;\n"
		"                                the two header lines still start with #.\n"
		"    In dmon, pviol is the percent of the time since the previous sample the\n"
		"    power cap held the clock down, tviol 1 if a thermal slowdown did at all;\n"
		"    both are - on the first sample.\n"
		"\n"
		"With no option, prints a summary table.  Values the driver cannot\n"
		"report yet print N/A ([N/A] in CSV, - in dmon).\n"
		"\n"
		"Sources: utilization (GPU-Util, utilization.*, dmon sm and mem) is the\n"
		"share of the last second the driver saw an engine busy (sysfs\n"
		"gpu_busy_percent and mem_busy_percent, sampled every 10 ms); the\n"
		"performance state is P0 under load and P8 at idle (sysfs\n"
		"throttle_reasons); the clocks event reasons counters are microseconds\n"
		"since the driver loaded (sysfs clocks_event_reasons_counters/); retired\n"
		"pages come from sysfs retired_pages.\n"
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
	help_fields(f, "--query-gpu", smi_gpu_fields, smi_n_gpu_fields);
}

void smi_print_help_query_apps(FILE *f)
{
	help_fields(f, "--query-compute-apps", smi_app_fields, smi_n_app_fields);
}

void smi_print_help_query_retired_pages(FILE *f)
{
	help_fields(f, "--query-retired-pages", smi_retired_fields, smi_n_retired_fields);
}
