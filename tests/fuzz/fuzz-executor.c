/*
 * libFuzzer target "executor" (make fuzz FUZZ_TARGET=executor): the
 * device's SIMT executor (hw/tgpu/tgpu-simt*.c) on hostile kernels,
 * built on its own, without QEMU, as tests/unit/test-simt.c builds it.
 *
 * An input is a launch and a program:
 *
 *   0   u8  grid        1 + grid % 4 CTAs
 *   1   u16 block       1 + block % 256 threads (little-endian)
 *   3   u8  shared      (shared % 49) KiB of shared memory
 *   4   u8  param[64]   the parameters, as the kernel reads them (ldc)
 *   68  u64 insns[]     the program, at most FUZZ_MAX_INSNS words
 *
 * Global memory is a 64 KiB array at GPU addresses [0, 64 KiB), its
 * pages handed out directly, and again at [SYS, SYS + 64 KiB) through
 * global() doing the access itself, as system memory is reached in the
 * device; any other address faults.  The run gets at most FUZZ_RUNS
 * budgets of FUZZ_BUDGET warp instructions, so every input ends.
 * libFuzzer's ASan and UBSan find what is out of bounds or undefined;
 * the harness checks that the kernel ended (or is still within its
 * budget) with a defined error code, never the executor's crash.
 *
 * Copyright (c) 2026 The tgpu authors
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "tgpu-simt.h"

#define FUZZ_HEADER         68
#define FUZZ_MAX_INSNS      1024
#define FUZZ_MEM            (64 * 1024)
#define FUZZ_SYS            0x100000000ull
#define FUZZ_BUDGET         20000
#define FUZZ_RUNS           8

static uint8_t mem[FUZZ_MEM];

static int f_global(void *opaque, uint64_t va, unsigned int len,
                    bool is_write, uint8_t **page, void *buf, int atomic,
                    uint32_t b, uint32_t c)
{
    (void)opaque;
    if (va >= FUZZ_SYS && va - FUZZ_SYS + len <= FUZZ_MEM) {
        *page = NULL;
        tgpu_simt_access(mem + (va - FUZZ_SYS), buf, len, is_write, atomic,
                         b, c);
        return 0;
    }
    if (va >= FUZZ_MEM || va + len > FUZZ_MEM) {
        return TGPU_FAULT_NOT_PRESENT;
    }
    *page = mem + (va & ~(uint64_t)(TGPU_PAGE_SIZE - 1));
    return 0;
}

static void f_lock(void *opaque)
{
    (void)opaque;
}

static bool f_checkpoint(void *opaque)
{
    (void)opaque;
    return true;
}

static const GrMemOps f_ops = {
    .global = f_global,
    .lock = f_lock,
    .unlock = f_lock,
    .checkpoint = f_checkpoint,
};

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static const uint64_t exit_only = TGPU_OP_EXIT |
                                      (uint64_t)TGPU_PRED_PT << 8;
    GrKernel *k = tgpu_simt_alloc0(1, sizeof(GrKernel));
    GrRun *r = tgpu_simt_alloc0(1, sizeof(GrRun));
    size_t n = size > FUZZ_HEADER ? (size - FUZZ_HEADER) / 8 : 0;
    uint64_t *code;
    bool ended = false;

    if (size < FUZZ_HEADER) {
        free(k);
        free(r);
        return 0;
    }
    n = n > FUZZ_MAX_INSNS ? FUZZ_MAX_INSNS : n;
    code = malloc((n ? n : 1) * 8);
    if (n) {
        memcpy(code, data + FUZZ_HEADER, n * 8);
    } else {
        code[0] = exit_only;
    }
    /* the launch, within the limits the compute class checks */
    k->ninsns = n ? n : 1;
    k->grid[0] = 1 + data[0] % 4;
    k->grid[1] = k->grid[2] = 1;
    k->block[0] = 1 + (data[1] | data[2] << 8) % 256;
    k->block[1] = k->block[2] = 1;
    k->ncta = k->grid[0];
    k->shared_size = (data[3] % 49) * 1024;
    k->param_size = 64;
    memcpy(k->param, data + 4, 64);
    k->sm_count = 4;
    k->clock_khz = 1000000;
    k->f64_cost = 2;
    memset(mem, 0, sizeof(mem));
    tgpu_simt_load(k, code);

    for (int i = 0; i < FUZZ_RUNS && !ended; i++) {
        memset(r, 0, sizeof(*r));
        r->k = k;
        r->ops = &f_ops;
        r->budget = FUZZ_BUDGET;
        ended = tgpu_simt_run(r);
    }
    /* an error it ended with is one the manual names */
    if (ended && k->error > TGPU_KERR_MEMBER_MASK) {
        abort();
    }
    tgpu_simt_free(k);
    free(code);
    free(k);
    free(r);
    return 0;
}
