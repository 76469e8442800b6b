/* SPDX-License-Identifier: GPL-2.0-only OR MIT */
/* Copyright (c) 2026 The tgpu authors */

#ifndef __TGPU_ECC_H__
#define __TGPU_ECC_H__

#include <linux/types.h>

#include <tgpu/ecc.h>

struct seq_file;
struct tgpu_device;

/**
 * struct tgpu_retired_page - a VRAM page the InfoROM lists as retired
 * @addr: VRAM address, 4 KiB aligned
 * @cause: TGPU_RETIRED_CAUSE_SBE or TGPU_RETIRED_CAUSE_DBE
 * @time: when it was retired, Unix seconds
 * @reserved: kept out of the VRAM allocator
 */
struct tgpu_retired_page {
	u64 addr;
	u32 cause;
	u64 time;
	bool reserved;
};

/**
 * struct tgpu_ecc - ECC state, read once at probe
 * @capable: the board has ECC (ECC_CAPS)
 * @enabled: ECC is on: the driver enabled it and the scrub finished
 * @scrub_ns: the scrub's duration as the device reports it
 * @nr_retired: entries of @retired the device listed
 * @retired: the InfoROM's retired pages
 */
struct tgpu_ecc {
	bool capable;
	bool enabled;
	u64 scrub_ns;
	u32 nr_retired;
	struct tgpu_retired_page retired[TGPU_INFOROM_MAX_RETIRED];
};

void tgpu_ecc_init(struct tgpu_device *tdev);
void tgpu_ecc_resume(struct tgpu_device *tdev);
u32 tgpu_ecc_retired_count(struct tgpu_device *tdev, u32 cause);
void tgpu_ecc_show(struct tgpu_device *tdev, struct seq_file *m);

#endif /* __TGPU_ECC_H__ */
