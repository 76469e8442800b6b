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
	SMI_MODE_HELP,          /* -h */
	SMI_MODE_HELP_QUERY_GPU,
	SMI_MODE_VERSION,
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
const char *smi_field_name(const struct smi_field *f);   /* canonical */
const char *smi_field_unit(const struct smi_field *f);   /* NULL if none */

/* Index into devs[] that -i ID selects, -1 if none. */
int smi_select(const char *id, const struct tgpu_device_info *devs, int n);

/* What the renderers print: gathered once, so output is consistent. */
struct smi_snapshot {
	const struct tgpu_device_info *devs;
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
void smi_print_help(FILE *f);
void smi_print_help_query_gpu(FILE *f);

#endif /* TGPU_SMI_H */
