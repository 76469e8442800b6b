/*
 * tgpu SIMT executor: the instruction decoder
 *
 * docs/hw/isa.md is the manual; TGPU_ISA_OPCODES in <tgpu/isa.h> says
 * which opcodes exist and their format.  Every field of an instruction
 * is checked here, once per kernel, so the executor never meets a
 * register, predicate or sub value out of range: an instruction that
 * breaks a rule decodes as OP_ILLEGAL and fails when a warp reaches it.
 *
 * Copyright (c) 2026 The tgpu authors
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */

/* Builds without QEMU (see tgpu-simt.h): no qemu/osdep.h. */
#include "tgpu-simt.h"

typedef struct GrOpInfo {
    uint8_t fmt, akind;
    bool known;
} GrOpInfo;

static const GrOpInfo gr_ops[256] = {
#define GR_OPINFO(name, op, fmt, akind, mnem) \
    [op] = { fmt, akind, true },
    TGPU_ISA_OPCODES(GR_OPINFO)
#undef GR_OPINFO
};

static bool reg_ok(unsigned int r, bool pair)
{
    if (r == TGPU_REG_RZ) {
        return true;
    }
    return r < TGPU_NR_REGS && (!pair || !(r & 1));
}

static uint8_t row(unsigned int r)
{
    return r == TGPU_REG_RZ ? ROW_RZ : r;
}

/* Does the instruction write a 64-bit pair at rd? */
static bool rd_is_pair(unsigned int op, unsigned int sub)
{
    if (tgpu_isa_rd_pair(op)) {
        return true;
    }
    switch (op) {
    case TGPU_OP_IADD64:
    case TGPU_OP_IMADW:
        return true;
    case TGPU_OP_LDG:
    case TGPU_OP_LDS:
    case TGPU_OP_LDC:
    case TGPU_OP_STG:
    case TGPU_OP_STS:
        return sub == TGPU_W_64;
    }
    return false;
}

GrInsn tgpu_simt_decode(uint64_t i)
{
    unsigned int op = TGPU_INSN_OP(i), sub = TGPU_INSN_SUB(i);
    unsigned int rd = TGPU_INSN_RD(i), ra = TGPU_INSN_RA(i);
    unsigned int rb = TGPU_INSN_RB(i), rc = TGPU_INSN_RC(i);
    bool bimm = TGPU_INSN_BIMM(i), ok = gr_ops[op].known;
    GrInsn d = {
        .op = op, .pg = TGPU_INSN_PG(i), .pgneg = TGPU_INSN_PG_NEG(i),
        .sub = sub, .bimm = bimm, .imm16 = TGPU_INSN_IMM16(i),
        .imm32 = TGPU_INSN_IMM32(i),
    };
    bool a64 = gr_ops[op].akind == TGPU_A64;
    unsigned int max_sub = 0;
    bool need_imm = false, no_imm = false, regs_b = false;

    switch (gr_ops[op].fmt) {
    case TGPU_FMT_NONE:
        ok = ok && !rd && !ra && !bimm && !rb && !rc && !d.imm16;
        break;
    case TGPU_FMT_IMM:
    case TGPU_FMT_TARGET:
    case TGPU_FMT_S2R:
        need_imm = true;
        ok = ok && !ra && (gr_ops[op].fmt == TGPU_FMT_S2R ? reg_ok(rd, false)
                                                          : !rd);
        if (op == TGPU_OP_BAR) {
            ok = ok && d.imm32 < TGPU_NR_BARRIERS;
        }
        if (op == TGPU_OP_S2R) {
            ok = ok && d.imm32 < TGPU_SR_COUNT;
        }
        break;
    case TGPU_FMT_RB:
        ok = ok && reg_ok(rd, false) && !ra;
        regs_b = true;
        break;
    case TGPU_FMT_RA:
        ok = ok && reg_ok(rd, false) && reg_ok(ra, false) && !bimm && !rb &&
             !rc && !d.imm16;
        break;
    case TGPU_FMT_RABS:
    case TGPU_FMT_RABR:
        max_sub = gr_ops[op].fmt == TGPU_FMT_RABS ? TGPU_SIGN_COUNT - 1
                                                   : TGPU_RND_COUNT - 1;
        /* fall through */
    case TGPU_FMT_RAB:
        ok = ok && reg_ok(rd, rd_is_pair(op, sub)) && reg_ok(ra, a64);
        regs_b = true;
        break;
    case TGPU_FMT_PRMT:
    case TGPU_FMT_FSH:
    case TGPU_FMT_RABCR:
        max_sub = gr_ops[op].fmt == TGPU_FMT_PRMT ? TGPU_PRMT_COUNT - 1 :
                  gr_ops[op].fmt == TGPU_FMT_FSH ? TGPU_FSH_COUNT - 1
                                                 : TGPU_RND_COUNT - 1;
        /* fall through */
    case TGPU_FMT_RABC:
        no_imm = true;
        ok = ok && reg_ok(rd, rd_is_pair(op, sub)) && reg_ok(ra, false) &&
             reg_ok(rb, false) &&
             reg_ok(rc, op == TGPU_OP_IMADW) && !d.imm16;
        break;
    case TGPU_FMT_SETP:
        max_sub = TGPU_CMP_COUNT - 1;
        ok = ok && rd <= TGPU_PRED_PT && reg_ok(ra, false);
        regs_b = true;
        break;
    case TGPU_FMT_SEL:
        max_sub = TGPU_PRED_PT;
        ok = ok && reg_ok(rd, false) && reg_ok(ra, false);
        regs_b = true;
        break;
    case TGPU_FMT_B:
        ok = ok && !rd && !ra;
        regs_b = true;
        break;
    case TGPU_FMT_VOTE:
    case TGPU_FMT_BALLOT:
        no_imm = true;
        if (gr_ops[op].fmt == TGPU_FMT_VOTE) {
            max_sub = TGPU_VOTE_COUNT - 1;
            ok = ok && rd <= TGPU_PRED_PT;
        } else {
            ok = ok && reg_ok(rd, false);
        }
        ok = ok && ra <= TGPU_PRED_PT && !rb && !rc &&
             !(d.imm16 & ~TGPU_VOTE_NEG);
        break;
    case TGPU_FMT_SHFL:
        max_sub = TGPU_SHFL_COUNT - 1;
        ok = ok && reg_ok(rd, false) && reg_ok(ra, false) &&
             (bimm ? !(d.imm32 & ~TGPU_SHFL_IMM_VALID)
                   : reg_ok(rb, false) && reg_ok(rc, false) && !d.imm16);
        break;
    case TGPU_FMT_F64:
    case TGPU_FMT_F64FMA:
    case TGPU_FMT_PAIRS:
    case TGPU_FMT_DSETP:
        /* pairs, registers only; rc only with F64FMA */
        no_imm = true;
        max_sub = gr_ops[op].fmt == TGPU_FMT_PAIRS ? 0 :
                  gr_ops[op].fmt == TGPU_FMT_DSETP ? TGPU_CMP_COUNT - 1
                                                   : TGPU_RND_COUNT - 1;
        ok = ok && (gr_ops[op].fmt == TGPU_FMT_DSETP ? rd <= TGPU_PRED_PT
                                                      : reg_ok(rd, true)) &&
             reg_ok(ra, true) && reg_ok(rb, true) && !d.imm16 &&
             (gr_ops[op].fmt == TGPU_FMT_F64FMA ? reg_ok(rc, true) : !rc);
        break;
    case TGPU_FMT_MUFU:
        max_sub = TGPU_MUFU_COUNT - 1;
        ok = ok && reg_ok(rd, false) && reg_ok(ra, false) && !bimm && !rb &&
             !rc && !d.imm16;
        break;
    case TGPU_FMT_PAIR1:
    case TGPU_FMT_CVT:
    case TGPU_FMT_CVTZ:
        /* F2D is exact: no rounding to choose */
        max_sub = gr_ops[op].fmt == TGPU_FMT_PAIR1 || op == TGPU_OP_F2D ? 0
                  : TGPU_RND_COUNT - 1;
        ok = ok && reg_ok(rd, rd_is_pair(op, sub)) && reg_ok(ra, a64) &&
             !bimm && !rb && !rc && !d.imm16;
        break;
    case TGPU_FMT_PLOP:
        no_imm = true;
        max_sub = TGPU_PLOP_COUNT - 1;
        ok = ok && rd <= TGPU_PRED_PT && ra <= TGPU_PRED_PT &&
             rb <= TGPU_PRED_PT && !rc &&
             !(d.imm16 & ~(TGPU_PLOP_NEG_A | TGPU_PLOP_NEG_B));
        break;
    case TGPU_FMT_LD:
    case TGPU_FMT_ST:
        need_imm = true;
        max_sub = TGPU_W_COUNT - 1;
        ok = ok && reg_ok(rd, rd_is_pair(op, sub)) && reg_ok(ra, a64);
        break;
    case TGPU_FMT_ATOM:
        no_imm = true;
        max_sub = TGPU_ATOM_COUNT - 1;
        ok = ok && reg_ok(rd, false) && reg_ok(ra, a64) &&
             reg_ok(rb, false) && reg_ok(rc, false);
        break;
    default:
        ok = false;
    }
    if (regs_b) {
        ok = ok && (bimm || (reg_ok(rb, a64 && (op == TGPU_OP_IADD64 ||
                                                op == TGPU_OP_ISUB64)) &&
                             !rc && !d.imm16));
    }
    ok = ok && sub <= max_sub && !(need_imm && !bimm) && !(no_imm && bimm);
    if (!ok) {
        d.op = OP_ILLEGAL;
        return d;
    }
    /* predicates stay numbers; registers become rows */
    d.rd = gr_ops[op].fmt == TGPU_FMT_SETP || gr_ops[op].fmt == TGPU_FMT_PLOP ||
           gr_ops[op].fmt == TGPU_FMT_VOTE || gr_ops[op].fmt == TGPU_FMT_DSETP
           ? rd : row(rd);
    d.ra = gr_ops[op].fmt == TGPU_FMT_PLOP || gr_ops[op].fmt == TGPU_FMT_VOTE ||
           gr_ops[op].fmt == TGPU_FMT_BALLOT ? ra : row(ra);
    d.rb = gr_ops[op].fmt == TGPU_FMT_PLOP ? rb : row(rb);
    d.rc = row(rc);
    if (bimm) {
        /* no rb or rc: their bits are the immediate's */
        d.rb = d.rc = ROW_RZ;
        /* SHFL's immediate packs b and c: the executor unpacks it */
        d.bimm = regs_b || gr_ops[op].fmt == TGPU_FMT_SHFL;
    }
    return d;
}

unsigned int tgpu_simt_rows(const GrInsn *in)
{
    unsigned int fmt = gr_ops[in->op].fmt;

    if (in->op == OP_ILLEGAL || fmt == TGPU_FMT_SETP ||
        fmt == TGPU_FMT_PLOP || fmt == TGPU_FMT_VOTE || fmt == TGPU_FMT_B ||
        fmt == TGPU_FMT_DSETP ||
        in->rd >= TGPU_NR_REGS) {
        return 0;
    }
    return in->rd + 2u;     /* a pair, perhaps */
}
