/* SPDX-License-Identifier: MIT */
/*
 * tgpu-smi core: argument parsing, the --query-gpu field table and every
 * output format, all working on a snapshot of device info so that the
 * unit tests can drive them without a device.  tgpu-smi.c only gathers
 * the snapshot from libtgpu and picks the renderer.
 */
#ifndef TGPU_SMI_H
#define TGPU_SMI_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <time.h>

#include "libtgpu.h"

/* nvidia-smi's exit codes (nvidia-smi(1), RETURN VALUE). */
enum smi_exit {
	SMI_EXIT_OK = 0,
	SMI_EXIT_INVALID_ARG = 2,
	SMI_EXIT_NO_PERMISSION = 4,
	SMI_EXIT_NOT_FOUND = 6,
	SMI_EXIT_NO_DRIVER = 9,
	SMI_EXIT_GPU_LOST = 15,
	SMI_EXIT_OTHER = 255,
};

enum smi_mode {
	SMI_MODE_SUMMARY,       /* no arguments: the table */
	SMI_MODE_QUERY,         /* -q */
	SMI_MODE_LIST,          /* -L */
	SMI_MODE_QUERY_GPU,     /* --query-gpu=... --format=csv */
	SMI_MODE_QUERY_APPS,    /* --query-compute-apps=... --format=csv */
	SMI_MODE_QUERY_RETIRED_PAGES, /* --query-retired-pages=... --format=csv */
	SMI_MODE_DMON,          /* dmon [-i N] [-c COUNT] [-d SECS] [-s GROUPS] [-o DT] */
	SMI_MODE_HELP,          /* -h */
	SMI_MODE_HELP_QUERY_GPU,
	SMI_MODE_HELP_QUERY_APPS,
	SMI_MODE_HELP_QUERY_RETIRED_PAGES,
	SMI_MODE_VERSION,
};

/* dmon -s metric groups, nvidia-smi's letters; printed in this order. */
enum smi_dmon_group {
	SMI_DMON_POWER = 1 << 0,        /* p: pwr gtemp mtemp */
	SMI_DMON_UTIL = 1 << 1,         /* u: sm mem enc dec */
	SMI_DMON_CLOCKS = 1 << 2,       /* c: mclk pclk */
	SMI_DMON_VIOL = 1 << 3,         /* v: pviol tviol */
	SMI_DMON_MEM = 1 << 4,          /* m: fb bar1 */
	SMI_DMON_ECC = 1 << 5,          /* e: sbecc dbecc pci */
	SMI_DMON_PCIE = 1 << 6,         /* t: rxpci txpci */
};
#define SMI_DMON_DEFAULT (SMI_DMON_POWER | SMI_DMON_UTIL | SMI_DMON_CLOCKS)

/* -q -d sections, nvidia-smi's display types; -q prints them in its order. */
enum smi_display {
	SMI_DISPLAY_MEMORY = 1 << 0,            /* FB and BAR1 Memory Usage */
	SMI_DISPLAY_UTILIZATION = 1 << 1,       /* Utilization */
	SMI_DISPLAY_ECC = 1 << 2,               /* ECC Mode, ECC Errors */
	SMI_DISPLAY_TEMPERATURE = 1 << 3,       /* Temperature */
	SMI_DISPLAY_POWER = 1 << 4,             /* GPU Power Readings */
	SMI_DISPLAY_CLOCK = 1 << 5,             /* Clocks, Default Applications and Max Clocks */
	SMI_DISPLAY_COMPUTE = 1 << 6,           /* Compute Mode */
	SMI_DISPLAY_PIDS = 1 << 7,              /* Processes */
	SMI_DISPLAY_PERFORMANCE = 1 << 8,       /* Performance State, Clocks Event Reasons (Counters) */
	SMI_DISPLAY_PAGE_RETIREMENT = 1 << 9,   /* Retired Pages */
	/* one of nvidia-smi's types a tgpu has nothing for: prints no section */
	SMI_DISPLAY_NOTHING = 1 << 30,
};

#define SMI_MAX_FIELDS 64

struct smi_field;

struct smi_args {
	enum smi_mode mode;
	const struct smi_field *fields[SMI_MAX_FIELDS];
	int nfields;
	bool noheader;
	bool nounits;
	const char *id;         /* -i: GPU index or PCI bus id; NULL = all */
	int dmon_count;         /* dmon -c: samples, 0 = until interrupted */
	int dmon_delay;         /* dmon -d: seconds between samples, >= 1 */
	unsigned int dmon_groups; /* dmon -s: enum smi_dmon_group bits */
	bool dmon_date;         /* dmon -o D: a Date column, YYYYMMDD */
	bool dmon_time;         /* dmon -o T: a Time column, HH:MM:SS */
	bool dmon_csv;          /* dmon --format csv: ", " between columns */
	unsigned int display;   /* -q -d: enum smi_display bits; 0: every section */
};

/*
 * Parse argv.  Returns SMI_EXIT_OK, or SMI_EXIT_INVALID_ARG with the
 * message (nvidia-smi's wording where it has one) in err.
 */
int smi_parse_args(int argc, char *const argv[], struct smi_args *a,
		   char *err, size_t errlen);

/* Exit code for a libtgpu failure, as nvidia-smi maps NVML errors. */
int smi_exit_code(tgpu_status st);

/* Field lookup by canonical name or alias; NULL when unknown. */
const struct smi_field *smi_field_lookup(const char *name);
/* The same for --query-compute-apps and --query-retired-pages fields. */
const struct smi_field *smi_app_field_lookup(const char *name);
const struct smi_field *smi_retired_field_lookup(const char *name);
const char *smi_field_name(const struct smi_field *f);   /* canonical */
const char *smi_field_unit(const struct smi_field *f);   /* NULL if none */

/* Index into devs[] that -i ID selects, -1 if none. */
int smi_select(const char *id, const struct tgpu_device_info *devs, int n);

/*
 * A device's state now.  The *_known flags say whether it could be read:
 * what is not known prints N/A, never a made-up value.
 */
struct smi_state {
	bool clk_sm_known;
	uint32_t clk_sm_mhz;    /* the SM clock in use now */
	bool mem_known;
	uint64_t mem_used;      /* bytes of VRAM allocated */
	uint64_t mem_total;     /* bytes of VRAM */
	bool procs_known;
	const struct tgpu_process_info *procs;  /* sorted by pid */
	int nprocs;
	bool ecc_known;
	struct tgpu_ecc_info ecc;       /* the driver's ECC counts and pages */
	bool therm_known;
	struct tgpu_thermal_info therm; /* temperature, power, clock reasons */
	bool util_known;
	struct tgpu_utilization util;   /* busy shares of the last second, P-state */
	bool counters_known;
	struct tgpu_clocks_event_counters counters; /* time in each reason */
	bool retired_known;
	const struct tgpu_retired_page *retired;    /* in retirement order */
	int nretired;
};

/* What the renderers print: gathered once, so output is consistent. */
struct smi_snapshot {
	const struct tgpu_device_info *devs;
	const struct smi_state *state;  /* parallel to devs; NULL: none known */
	int count;              /* devices to print */
	int attached;           /* all tgpu devices in the system */
	const char *driver_version;
	const char *lib_version;
	struct timespec now;    /* CLOCK_REALTIME, shown in local time */
};

void smi_print_csv(FILE *f, const struct smi_args *a,
		   const struct smi_snapshot *s);
void smi_print_list(FILE *f, const struct smi_snapshot *s);
void smi_print_summary(FILE *f, const struct smi_snapshot *s);
/* -q; a->display picks the sections (a NULL a: all of them). */
void smi_print_query(FILE *f, const struct smi_args *a,
		     const struct smi_snapshot *s);
void smi_print_csv_apps(FILE *f, const struct smi_args *a,
			const struct smi_snapshot *s);
void smi_print_csv_retired(FILE *f, const struct smi_args *a,
			   const struct smi_snapshot *s);
void smi_print_help(FILE *f);
void smi_print_help_query_gpu(FILE *f);
void smi_print_help_query_apps(FILE *f);
void smi_print_help_query_retired_pages(FILE *f);

/* One dmon sample of a device: its state, and when it was read. */
struct smi_dmon_sample {
	struct smi_state st;
	struct timespec wall;   /* CLOCK_REALTIME: -o D and T, in local time */
	struct timespec mono;   /* CLOCK_MONOTONIC: the time between samples */
};

/*
 * dmon: the two header lines (names, units), then one line per device
 * and sample.  prev is the device's previous sample, NULL on the first:
 * the violation columns are what happened in between.  Everything the
 * hardware does not report prints "-", as nvidia-smi dmon does.
 */
void smi_dmon_header(FILE *f, const struct smi_args *a);
void smi_dmon_line(FILE *f, const struct smi_args *a, const struct tgpu_device_info *d,
		   const struct smi_dmon_sample *cur, const struct smi_dmon_sample *prev);

#endif /* TGPU_SMI_H */
