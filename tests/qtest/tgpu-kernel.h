/*
 * QTest helpers for tgpu kernels: instructions written with the encoders
 * of include/tgpu/isa.h, and the compute-class methods that launch them.
 *
 * Copyright (c) 2026 The tgpu authors
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */

#ifndef TGPU_KERNEL_H
#define TGPU_KERNEL_H

#include "tgpu-qtest.h"
#include "tgpu/copy.h"
#include "tgpu/isa.h"

#define SC                  1               /* the compute subchannel */

#define PT                  TGPU_PRED_PT
#define RZ                  TGPU_REG_RZ

/* Unguarded instructions: register form, immediate form. */
#define OPR(op, rd, ra, rb, rc, sub, i16) \
    TGPU_INSN_R(TGPU_OP_##op, PT, 0, rd, ra, sub, rb, rc, i16)
#define OPI(op, rd, ra, sub, imm) \
    TGPU_INSN_I(TGPU_OP_##op, PT, 0, rd, ra, sub, imm)
#define RR(op, rd, ra, rb)  OPR(op, rd, ra, rb, 0, 0, 0)
#define MOVI(rd, imm)       OPI(MOV, rd, 0, 0, imm)
#define RI(op, rd, ra, imm) OPI(op, rd, ra, 0, imm)
/* @[!]pP insn */
#define IF(p, insn)         (((insn) & ~0xf00ull) | (uint64_t)(p) << 8)
#define IFN(p, insn)        (IF(p, insn) | 1ull << 11)
#define LD(op, w, rd, ra, off)  OPI(op, rd, ra, TGPU_W_##w, off)
#define ST(op, w, ra, off, rs)  OPI(op, rs, ra, TGPU_W_##w, off)
#define S2R(rd, sr)         OPI(S2R, rd, 0, 0, TGPU_SR_##sr)
#define BRA(t)              OPI(BRA, 0, 0, 0, t)
#define SSY(t)              OPI(SSY, 0, 0, 0, t)
#define SYNC                OPR(SYNC, 0, 0, 0, 0, 0, 0)
#define EXIT                OPR(EXIT, 0, 0, 0, 0, 0, 0)
#define BAR(id)             OPI(BAR, 0, 0, 0, id)
#define SETP(op, cmp, pd, ra, rb) OPR(op, pd, ra, rb, 0, TGPU_CMP_##cmp, 0)
#define SETPI(op, cmp, pd, ra, imm) OPI(op, pd, ra, TGPU_CMP_##cmp, imm)

typedef struct Kernel {
    const uint64_t *code;
    uint32_t ninsns;
    uint32_t grid[3], block[3];
    uint32_t shared;
    const void *param;
    uint32_t param_size;
} Kernel;

static inline void put_code(T *t, uint64_t at, const uint64_t *code,
                            uint32_t n)
{
    g_autofree uint64_t *le = g_new(uint64_t, n);

    for (uint32_t i = 0; i < n; i++) {
        le[i] = cpu_to_le64(code[i]);
    }
    pa_write(t, at, le, 8 * n);
}

/*
 * Write K's code at CODE_AT and its parameters at PARAM_AT, and the
 * methods that launch it and then release PAYLOAD at SEM_AT.
 */
static inline void pb_kernel_at(T *t, PB *pb, const Kernel *k,
                                uint64_t code_at, uint64_t param_at,
                                uint64_t sem_at, uint32_t payload)
{
    put_code(t, code_at, k->code, k->ninsns);
    if (k->param_size) {
        pa_write(t, param_at, k->param, k->param_size);
    }
    pb_hdr(pb, TGPU_PB_OP_INC, SC, TGPU_GR_M_SET_PROGRAM_UPPER, 3);
    pb_dw(pb, code_at >> 32);
    pb_dw(pb, (uint32_t)code_at);
    pb_dw(pb, k->ninsns * TGPU_INSN_SIZE);
    pb_hdr(pb, TGPU_PB_OP_INC, SC, TGPU_GR_M_SET_GRID_X, 10);
    for (int i = 0; i < 3; i++) {
        pb_dw(pb, k->grid[i] ? k->grid[i] : 1);
    }
    for (int i = 0; i < 3; i++) {
        pb_dw(pb, k->block[i] ? k->block[i] : 1);
    }
    pb_dw(pb, k->shared);
    pb_dw(pb, param_at >> 32);
    pb_dw(pb, (uint32_t)param_at);
    pb_dw(pb, k->param_size);
    pb_hdr(pb, TGPU_PB_OP_INC, SC, TGPU_GR_M_SET_SEMAPHORE_A, 3);
    pb_dw(pb, sem_at >> 32);
    pb_dw(pb, (uint32_t)sem_at);
    pb_dw(pb, payload);
    pb_m(pb, SC, TGPU_GR_M_LAUNCH,
         TGPU_CE_SEM_ONE_WORD << TGPU_CE_LAUNCH_SEM_SHIFT);
}

/*
 * Where a kernel test's launches live in VRAM: the semaphore each launch
 * releases, a fault buffer of KERNEL_FAULTBUF_SIZE records, parameters
 * and code.
 */
#define KERNEL_FAULTBUF_SIZE 64

typedef struct KernelMem {
    uint64_t sem;
    uint64_t faultbuf;
    uint64_t param;
    uint64_t code;
} KernelMem;

static inline void kernel_mem_alloc(T *t, KernelMem *m, uint64_t code_size)
{
    m->sem = vram_alloc(t, 4 * KiB);
    m->faultbuf = vram_alloc(t, KERNEL_FAULTBUF_SIZE *
                                TGPU_FAULT_RECORD_SIZE);
    m->param = vram_alloc(t, 64 * KiB);
    m->code = vram_alloc(t, code_size);
}

#endif /* TGPU_KERNEL_H */
