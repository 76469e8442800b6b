/* SPDX-License-Identifier: MIT */
/*
 * tgpu-smi core, inside: a --query-gpu, --query-compute-apps or
 * --query-retired-pages field, and the tables of them (smi-fields.c),
 * which the parser (smi-args.c) looks names up in and the printers
 * (smi-print.c) fill.
 */
#ifndef TGPU_SMI_FIELD_H
#define TGPU_SMI_FIELD_H

#include <stdbool.h>
#include <stddef.h>

#include "smi.h"

#define NA "N/A"

/*
 * Writes the value without unit; false: not known (prints "[N/A]").  p is
 * the row: the struct tgpu_process_info of a --query-compute-apps row, the
 * struct tgpu_retired_page of a --query-retired-pages row, NULL for
 * --query-gpu.
 */
typedef bool (*smi_get_fn)(const struct smi_snapshot *s,
			   const struct tgpu_device_info *d,
			   const void *p, char *buf, size_t len);

struct smi_field {
	const char *name;       /* canonical, echoed in the CSV header */
	const char *alias;      /* older or short name nvidia-smi accepts */
	const char *unit;       /* "[unit]" in the header, " unit" after values */
	smi_get_fn get;         /* NULL: the driver cannot report it yet */
	const char *help;
};

#define GETTER_ARGS                                                           \
	const struct smi_snapshot *s, const struct tgpu_device_info *d,       \
	const void *p, char *buf, size_t len

/* The state of device d of snapshot s, NULL when nothing is known. */
/* Degrees C from milli-degrees, rounded, as nvidia-smi prints them. */
static inline int round_c(int32_t mc)
{
	return mc >= 0 ? (mc + 500) / 1000 : -((-mc + 500) / 1000);
}

static inline const struct smi_state *state_of(const struct smi_snapshot *s,
					const struct tgpu_device_info *d)
{
	if (!s->state || d < s->devs || d >= s->devs + s->count)
		return NULL;
	return &s->state[d - s->devs];
}

extern const struct smi_field smi_gpu_fields[];
extern const size_t smi_n_gpu_fields;
extern const struct smi_field smi_app_fields[];
extern const size_t smi_n_app_fields;
extern const struct smi_field smi_retired_fields[];
extern const size_t smi_n_retired_fields;

#endif /* TGPU_SMI_FIELD_H */
