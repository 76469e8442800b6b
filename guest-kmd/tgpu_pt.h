/* SPDX-License-Identifier: GPL-2.0-only OR MIT */
/* Copyright (c) 2026 The tgpu authors */

#ifndef __TGPU_PT_H__
#define __TGPU_PT_H__

#include <linux/types.h>

#include "tgpu_kchan.h"

struct tgpu_device;
struct tgpu_pt;

/**
 * struct tgpu_pt_update - the page-table writes of one VM update
 * @tdev: the device
 * @mode: TGPU_PT_IDLE until the first write, then TGPU_PT_CHANNEL (the
 *	kernel channel is held and the writes are staged) or TGPU_PT_CPU
 * @cur: the kernel channel's batch being filled (&tgpu_kchan.pt)
 * @cpu_entries: entries the CPU wrote
 * @inval: the TLB invalidation that ends the update, when @invalidate
 * @invalidate: tgpu_pt_update_invalidate() asked for one
 *
 * tgpu_pt_update_begin(), then tgpu_pt_update_add()/_zero() in the order
 * the entries must land (a directory entry before the entries of its
 * table), tgpu_pt_update_invalidate() if translations go away, then
 * tgpu_pt_update_commit(), all under the VM's lock.
 */
struct tgpu_pt_update {
	struct tgpu_device *tdev;
	int mode;
	unsigned int cur;
	u64 cpu_entries;
	struct tgpu_tlb_inval inval;
	bool invalidate;
};

void tgpu_pt_update_begin(struct tgpu_pt_update *u, struct tgpu_device *tdev);
void tgpu_pt_update_add(struct tgpu_pt_update *u, struct tgpu_pt *pt,
			unsigned int idx, unsigned int count, u64 pte, u64 step);
void tgpu_pt_update_zero(struct tgpu_pt_update *u, struct tgpu_pt *pt,
			 unsigned int idx, unsigned int count);
void tgpu_pt_update_invalidate(struct tgpu_pt_update *u, u32 asid, u64 va,
			       u64 size);
void tgpu_pt_update_commit(struct tgpu_pt_update *u);

struct tgpu_vm;

int tgpu_pt_tree_root(struct tgpu_vm *vm);
int tgpu_pt_tree_map(struct tgpu_vm *vm, struct tgpu_pt_update *u,
		     u64 va, u64 phys, u64 size, u64 flags);
void tgpu_pt_tree_clear(struct tgpu_vm *vm, struct tgpu_pt_update *u,
			u64 va, u64 size);
void tgpu_pt_tree_free(struct tgpu_vm *vm);

#endif /* __TGPU_PT_H__ */
