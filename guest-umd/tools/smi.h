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
	SMI_MODE_DMON,          /* dmon [-i N] [-c COUNT] [-d SECS] [-s GROUPS] */
	SMI_MODE_HELP,          /* -h */
	SMI_MODE_HELP_QUERY_GPU,
	SMI_MODE_HELP_QUERY_APPS,
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
/* The same for --query-compute-apps fields. */
const struct smi_field *smi_app_field_lookup(const char *name);
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
void smi_print_query(FILE *f, const struct smi_snapshot *s);
void smi_print_csv_apps(FILE *f, const struct smi_args *a,
			const struct smi_snapshot *s);
void smi_print_help(FILE *f);
void smi_print_help_query_gpu(FILE *f);
void smi_print_help_query_apps(FILE *f);

/*
 * dmon: the two header lines (names, units), then one line per device
 * and sample.  The state's memory is used by -s m; everything the
 * hardware does not report prints "-", as nvidia-smi dmon does.
 */
void smi_dmon_header(FILE *f, const struct smi_args *a);
void smi_dmon_line(FILE *f, const struct smi_args *a,
		   const struct tgpu_device_info *d, const struct smi_state *st);

#endif /* TGPU_SMI_H */
