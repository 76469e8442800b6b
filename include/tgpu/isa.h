/* SPDX-License-Identifier: MIT */
/*
 * tgpu hardware contract: the SIMT instruction set of the compute engine.
 *
 * One opcode table (TGPU_ISA_OPCODES, an X-macro) serves the device's
 * decoder, the UMD's assembler and disassembler, and docs/hw/isa.md,
 * which is the manual.  Same rules as regs.h: no libc.
 *
 * Instructions are 64 bits, little-endian in memory:
 *
 *   [7:0]    opcode
 *   [10:8]   guard predicate P0..P6, 7 = PT (always true)
 *   [11]     guard negated
 *   [19:12]  rd: destination (or store data, or predicate destination)
 *   [27:20]  ra: first source
 *   [28]     B is an immediate
 *   [31:29]  sub: a 3-bit modifier (compare, width, atomic op, ...)
 *   B register form ([28] = 0):
 *   [39:32]  rb
 *   [47:40]  rc
 *   [63:48]  imm16: a signed offset (memory), or more modifiers
 *   B immediate form ([28] = 1):
 *   [63:32]  imm32
 *
 * Registers are R0..R63 (32 bits each; an even/odd pair R2n:R2n+1 holds a
 * 64-bit value, low word in the even register) and RZ (255), which reads
 * as 0 and discards writes.  Any other register number is an illegal
 * instruction.  Predicates are P0..P6 and PT (7, always true).
 */
#ifndef TGPU_ISA_H
#define TGPU_ISA_H

/* ---- geometry ------------------------------------------------------------ */

#define TGPU_WARP_SIZE              32
#define TGPU_NR_REGS                64
#define TGPU_REG_RZ                 255
#define TGPU_NR_PREDS               7
#define TGPU_PRED_PT                7
#define TGPU_INSN_SIZE              8
#define TGPU_SIMT_STACK_DEPTH       64      /* SSY/divergence entries */
#define TGPU_NR_BARRIERS            16

/* ---- fields -------------------------------------------------------------- */

#define TGPU_INSN_OP(i)             ((unsigned int)((i) & 0xff))
#define TGPU_INSN_PG(i)             ((unsigned int)(((i) >> 8) & 0x7))
#define TGPU_INSN_PG_NEG(i)         ((unsigned int)(((i) >> 11) & 0x1))
#define TGPU_INSN_RD(i)             ((unsigned int)(((i) >> 12) & 0xff))
#define TGPU_INSN_RA(i)             ((unsigned int)(((i) >> 20) & 0xff))
#define TGPU_INSN_BIMM(i)           ((unsigned int)(((i) >> 28) & 0x1))
#define TGPU_INSN_SUB(i)            ((unsigned int)(((i) >> 29) & 0x7))
#define TGPU_INSN_RB(i)             ((unsigned int)(((i) >> 32) & 0xff))
#define TGPU_INSN_RC(i)             ((unsigned int)(((i) >> 40) & 0xff))
#define TGPU_INSN_IMM16(i)          ((int)(short)(((i) >> 48) & 0xffff))
#define TGPU_INSN_IMM32(i)          ((unsigned int)((i) >> 32))

/* An instruction from its fields (every argument already in range). */
#define TGPU_INSN(op, pg, pgneg, rd, ra, sub) \
    ((unsigned long long)(op) | (unsigned long long)(pg) << 8 | \
     (unsigned long long)(pgneg) << 11 | (unsigned long long)(rd) << 12 | \
     (unsigned long long)(ra) << 20 | (unsigned long long)(sub) << 29)
/* ... with B in registers: rb, rc and imm16 */
#define TGPU_INSN_R(op, pg, pgneg, rd, ra, sub, rb, rc, imm16) \
    (TGPU_INSN(op, pg, pgneg, rd, ra, sub) | \
     (unsigned long long)(rb) << 32 | (unsigned long long)(rc) << 40 | \
     (unsigned long long)((imm16) & 0xffff) << 48)
/* ... with B an immediate */
#define TGPU_INSN_I(op, pg, pgneg, rd, ra, sub, imm32) \
    (TGPU_INSN(op, pg, pgneg, rd, ra, sub) | 1ull << 28 | \
     (unsigned long long)((imm32) & 0xffffffffu) << 32)

/* ---- operand shapes: what the assembler reads and the decoder checks --- */

enum {
    TGPU_FMT_NONE,      /* OP */
    TGPU_FMT_RB,        /* OP rd, b            b: register or immediate */
    TGPU_FMT_RA,        /* OP rd, ra */
    TGPU_FMT_RAB,       /* OP rd, ra, b */
    TGPU_FMT_RABC,      /* OP rd, ra, rb, rc   registers only */
    TGPU_FMT_SETP,      /* OP.cmp pd, ra, b */
    TGPU_FMT_SEL,       /* OP rd, ra, b, ps    ps in sub */
    TGPU_FMT_PLOP,      /* OP.op pd, pa, pb    pa in ra, pb in rb */
    TGPU_FMT_LD,        /* OP.w rd, [ra + imm] */
    TGPU_FMT_ST,        /* OP.w [ra + imm], rd */
    TGPU_FMT_ATOM,      /* OP.op rd, [ra + imm16], rb, rc */
    TGPU_FMT_TARGET,    /* OP target           imm32: instruction index */
    TGPU_FMT_IMM,       /* OP imm */
    TGPU_FMT_S2R,       /* OP rd, SR_*         imm32: special register */
    TGPU_FMT_RABS,      /* OP.sign rd, ra, b   sub: TGPU_SIGN_* */
    TGPU_FMT_PRMT,      /* OP.mode rd, ra, rb, rc  sub: TGPU_PRMT_* */
    TGPU_FMT_FSH,       /* OP.mode rd, ra, rb, rc  sub: TGPU_FSH_* */
    TGPU_FMT_B,         /* OP b                b: register or immediate */
    TGPU_FMT_VOTE,      /* OP.mode pd, [!]pa   pa in ra, imm16 bit 0: ! */
    TGPU_FMT_BALLOT,    /* OP rd, [!]pa        pa in ra, imm16 bit 0: ! */
    TGPU_FMT_SHFL,      /* OP.mode rd, ra, b, c  b, c: rb, rc; or imm32 */
    /* float64: every operand a pair; [.rnd] optional, TGPU_RND_* */
    TGPU_FMT_F64,       /* OP[.rnd] rd, ra, rb */
    TGPU_FMT_F64FMA,    /* OP[.rnd] rd, ra, rb, rc */
    TGPU_FMT_PAIRS,     /* OP rd, ra, rb */
    TGPU_FMT_PAIR1,     /* OP rd, ra */
    TGPU_FMT_DSETP,     /* OP.cmp pd, ra, rb */
    TGPU_FMT_CVT,       /* OP[.rnd] rd, ra     pairs: by the opcode */
    TGPU_FMT_MUFU,      /* OP.fn rd, ra        sub: TGPU_MUFU_* */
    TGPU_FMT_RABR,      /* OP[.rnd] rd, ra, b  sub: TGPU_RND_* */
    TGPU_FMT_RABCR,     /* OP[.rnd] rd, ra, rb, rc */
    TGPU_FMT_CVTZ,      /* OP[.rnd] rd, ra     sub: TGPU_F2I_* (rz first) */
};

/* Operand kinds of the first source register (how wide ra is read). */
enum {
    TGPU_A32,           /* ra is a 32-bit register */
    TGPU_A64,           /* ra is a 64-bit pair (addresses, 64-bit ops) */
};

/*
 * The opcode table: X(NAME, opcode, format, A-kind, mnemonic).
 * Opcodes not in the table are illegal instructions.
 */
#define TGPU_ISA_OPCODES(X) \
    /* control */ \
    X(NOP,       0x00, TGPU_FMT_NONE,   TGPU_A32, "nop") \
    X(EXIT,      0x01, TGPU_FMT_NONE,   TGPU_A32, "exit") \
    X(TRAP,      0x02, TGPU_FMT_IMM,    TGPU_A32, "trap") \
    X(BRA,       0x03, TGPU_FMT_TARGET, TGPU_A32, "bra") \
    X(SSY,       0x04, TGPU_FMT_TARGET, TGPU_A32, "ssy") \
    X(SYNC,      0x05, TGPU_FMT_NONE,   TGPU_A32, "sync") \
    X(BAR,       0x06, TGPU_FMT_IMM,    TGPU_A32, "bar") \
    X(NANOSLEEP, 0x07, TGPU_FMT_IMM,    TGPU_A32, "nanosleep") \
    X(S2R,       0x08, TGPU_FMT_S2R,    TGPU_A32, "s2r") \
    /* moves and integer */ \
    X(MOV,       0x10, TGPU_FMT_RB,     TGPU_A32, "mov") \
    X(IADD,      0x11, TGPU_FMT_RAB,    TGPU_A32, "iadd") \
    X(ISUB,      0x12, TGPU_FMT_RAB,    TGPU_A32, "isub") \
    X(IMUL,      0x13, TGPU_FMT_RAB,    TGPU_A32, "imul") \
    X(IMAD,      0x14, TGPU_FMT_RABC,   TGPU_A32, "imad") \
    X(IMADW,     0x15, TGPU_FMT_RABC,   TGPU_A32, "imad.wide") \
    X(IADD64,    0x16, TGPU_FMT_RAB,    TGPU_A64, "iadd64") \
    X(IMIN,      0x17, TGPU_FMT_RAB,    TGPU_A32, "imin") \
    X(IMAX,      0x18, TGPU_FMT_RAB,    TGPU_A32, "imax") \
    X(UMIN,      0x19, TGPU_FMT_RAB,    TGPU_A32, "umin") \
    X(UMAX,      0x1a, TGPU_FMT_RAB,    TGPU_A32, "umax") \
    X(SHL,       0x1b, TGPU_FMT_RAB,    TGPU_A32, "shl") \
    X(SHR,       0x1c, TGPU_FMT_RAB,    TGPU_A32, "shr") \
    X(SAR,       0x1d, TGPU_FMT_RAB,    TGPU_A32, "sar") \
    X(AND,       0x1e, TGPU_FMT_RAB,    TGPU_A32, "and") \
    X(OR,        0x1f, TGPU_FMT_RAB,    TGPU_A32, "or") \
    X(XOR,       0x20, TGPU_FMT_RAB,    TGPU_A32, "xor") \
    X(NOT,       0x21, TGPU_FMT_RA,     TGPU_A32, "not") \
    X(ISETP,     0x22, TGPU_FMT_SETP,   TGPU_A32, "isetp") \
    X(USETP,     0x23, TGPU_FMT_SETP,   TGPU_A32, "usetp") \
    X(SEL,       0x24, TGPU_FMT_SEL,    TGPU_A32, "sel") \
    X(PLOP,      0x25, TGPU_FMT_PLOP,   TGPU_A32, "plop") \
    /* integer bit operations (PTX mul.hi, popc, clz, brev, bfe, bfi, */ \
    /* prmt, shf) */ \
    X(IMULHI,    0x26, TGPU_FMT_RABS,   TGPU_A32, "imulhi") \
    X(POPC,      0x27, TGPU_FMT_RA,     TGPU_A32, "popc") \
    X(CLZ,       0x28, TGPU_FMT_RA,     TGPU_A32, "clz") \
    X(BREV,      0x29, TGPU_FMT_RA,     TGPU_A32, "brev") \
    X(BFE,       0x2a, TGPU_FMT_RABS,   TGPU_A32, "bfe") \
    X(BFI,       0x2b, TGPU_FMT_RABC,   TGPU_A32, "bfi") \
    X(PRMT,      0x2c, TGPU_FMT_PRMT,   TGPU_A32, "prmt") \
    X(FSHL,      0x2d, TGPU_FMT_FSH,    TGPU_A32, "fshl") \
    X(FSHR,      0x2e, TGPU_FMT_FSH,    TGPU_A32, "fshr") \
    /* float32 */ \
    X(FADD,      0x30, TGPU_FMT_RABR,   TGPU_A32, "fadd") \
    X(FSUB,      0x31, TGPU_FMT_RABR,   TGPU_A32, "fsub") \
    X(FMUL,      0x32, TGPU_FMT_RABR,   TGPU_A32, "fmul") \
    X(FFMA,      0x33, TGPU_FMT_RABCR,  TGPU_A32, "ffma") \
    X(FMIN,      0x34, TGPU_FMT_RAB,    TGPU_A32, "fmin") \
    X(FMAX,      0x35, TGPU_FMT_RAB,    TGPU_A32, "fmax") \
    X(FABS,      0x36, TGPU_FMT_RA,     TGPU_A32, "fabs") \
    X(FNEG,      0x37, TGPU_FMT_RA,     TGPU_A32, "fneg") \
    X(FSETP,     0x38, TGPU_FMT_SETP,   TGPU_A32, "fsetp") \
    X(I2F,       0x39, TGPU_FMT_CVT,    TGPU_A32, "i2f") \
    X(U2F,       0x3a, TGPU_FMT_CVT,    TGPU_A32, "u2f") \
    X(F2I,       0x3b, TGPU_FMT_CVTZ,   TGPU_A32, "f2i") \
    X(F2U,       0x3c, TGPU_FMT_CVTZ,   TGPU_A32, "f2u") \
    /* special functions (PTX rcp, rsqrt, sqrt, ex2, lg2, sin, cos .f32) */ \
    X(MUFU,      0x3d, TGPU_FMT_MUFU,   TGPU_A32, "mufu") \
    /* float64 (PTX add/sub/mul/fma/min/max/abs/neg/setp.f64) */ \
    X(DADD,      0x58, TGPU_FMT_F64,    TGPU_A64, "dadd") \
    X(DSUB,      0x59, TGPU_FMT_F64,    TGPU_A64, "dsub") \
    X(DMUL,      0x5a, TGPU_FMT_F64,    TGPU_A64, "dmul") \
    X(DFMA,      0x5b, TGPU_FMT_F64FMA, TGPU_A64, "dfma") \
    X(DMIN,      0x5c, TGPU_FMT_PAIRS,  TGPU_A64, "dmin") \
    X(DMAX,      0x5d, TGPU_FMT_PAIRS,  TGPU_A64, "dmax") \
    X(DABS,      0x5e, TGPU_FMT_PAIR1,  TGPU_A64, "dabs") \
    X(DNEG,      0x5f, TGPU_FMT_PAIR1,  TGPU_A64, "dneg") \
    X(DSETP,     0x60, TGPU_FMT_DSETP,  TGPU_A64, "dsetp") \
    /* conversions (PTX cvt): l = s64, ul = u64, d = f64 */ \
    X(F2D,       0x61, TGPU_FMT_CVT,    TGPU_A32, "f2d") \
    X(D2F,       0x62, TGPU_FMT_CVT,    TGPU_A64, "d2f") \
    X(I2D,       0x63, TGPU_FMT_CVT,    TGPU_A32, "i2d") \
    X(U2D,       0x64, TGPU_FMT_CVT,    TGPU_A32, "u2d") \
    X(L2D,       0x65, TGPU_FMT_CVT,    TGPU_A64, "l2d") \
    X(UL2D,      0x66, TGPU_FMT_CVT,    TGPU_A64, "ul2d") \
    X(D2I,       0x67, TGPU_FMT_CVT,    TGPU_A64, "d2i") \
    X(D2U,       0x68, TGPU_FMT_CVT,    TGPU_A64, "d2u") \
    X(D2L,       0x69, TGPU_FMT_CVT,    TGPU_A64, "d2l") \
    X(D2UL,      0x6a, TGPU_FMT_CVT,    TGPU_A64, "d2ul") \
    X(L2F,       0x6b, TGPU_FMT_CVT,    TGPU_A64, "l2f") \
    X(UL2F,      0x6c, TGPU_FMT_CVT,    TGPU_A64, "ul2f") \
    X(F2L,       0x6d, TGPU_FMT_CVT,    TGPU_A32, "f2l") \
    X(F2UL,      0x6e, TGPU_FMT_CVT,    TGPU_A32, "f2ul") \
    /* 64-bit integer (PTX sub/mul.lo/mul.hi/shl/shr/setp .s64 .u64) */ \
    X(ISUB64,    0x70, TGPU_FMT_RAB,    TGPU_A64, "isub64") \
    X(IMUL64,    0x71, TGPU_FMT_PAIRS,  TGPU_A64, "imul64") \
    X(IMULHI_S64, 0x72, TGPU_FMT_PAIRS, TGPU_A64, "imulhi.s64") \
    X(IMULHI_U64, 0x73, TGPU_FMT_PAIRS, TGPU_A64, "imulhi.u64") \
    X(SHL64,     0x74, TGPU_FMT_RAB,    TGPU_A64, "shl64") \
    X(SHR64,     0x75, TGPU_FMT_RAB,    TGPU_A64, "shr64") \
    X(SAR64,     0x76, TGPU_FMT_RAB,    TGPU_A64, "sar64") \
    X(ISETP64,   0x77, TGPU_FMT_DSETP,  TGPU_A64, "isetp64") \
    X(USETP64,   0x78, TGPU_FMT_DSETP,  TGPU_A64, "usetp64") \
    /* carries (PTX add.cc/addc/sub.cc/subc): the carry is predicate p */ \
    X(IADD_CO,   0x79, TGPU_FMT_SEL,    TGPU_A32, "iadd.co") \
    X(IADD_CIO,  0x7a, TGPU_FMT_SEL,    TGPU_A32, "iadd.cio") \
    X(IADD_CI,   0x7b, TGPU_FMT_SEL,    TGPU_A32, "iadd.ci") \
    X(ISUB_CO,   0x7c, TGPU_FMT_SEL,    TGPU_A32, "isub.co") \
    X(ISUB_CIO,  0x7d, TGPU_FMT_SEL,    TGPU_A32, "isub.cio") \
    X(ISUB_CI,   0x7e, TGPU_FMT_SEL,    TGPU_A32, "isub.ci") \
    /* memory */ \
    X(LDG,       0x40, TGPU_FMT_LD,     TGPU_A64, "ldg") \
    X(STG,       0x41, TGPU_FMT_ST,     TGPU_A64, "stg") \
    X(LDS,       0x42, TGPU_FMT_LD,     TGPU_A32, "lds") \
    X(STS,       0x43, TGPU_FMT_ST,     TGPU_A32, "sts") \
    X(LDC,       0x44, TGPU_FMT_LD,     TGPU_A32, "ldc") \
    X(ATOMG,     0x45, TGPU_FMT_ATOM,   TGPU_A64, "atomg") \
    X(ATOMS,     0x46, TGPU_FMT_ATOM,   TGPU_A32, "atoms") \
    /* warp-level (PTX bar.warp.sync, vote, shfl; with .sync, wsync first) */ \
    X(WSYNC,     0x50, TGPU_FMT_B,      TGPU_A32, "wsync") \
    X(VOTE,      0x51, TGPU_FMT_VOTE,   TGPU_A32, "vote") \
    X(BALLOT,    0x52, TGPU_FMT_BALLOT, TGPU_A32, "ballot") \
    X(SHFL,      0x53, TGPU_FMT_SHFL,   TGPU_A32, "shfl")

/* TGPU_OP_<NAME>: the opcodes, each an enumeration constant */
#define TGPU_ISA_ENUM(name, op, fmt, akind, mnem) \
    enum { TGPU_OP_##name = (op) };
TGPU_ISA_OPCODES(TGPU_ISA_ENUM)
#undef TGPU_ISA_ENUM

/* ---- sub-field values ------------------------------------------------- */

/* ISETP, USETP, FSETP: the comparison (FSETP: ordered, except NE) */
#define TGPU_CMP_EQ                 0
#define TGPU_CMP_NE                 1
#define TGPU_CMP_LT                 2
#define TGPU_CMP_LE                 3
#define TGPU_CMP_GT                 4
#define TGPU_CMP_GE                 5
#define TGPU_CMP_NAMES              { "eq", "ne", "lt", "le", "gt", "ge" }
#define TGPU_CMP_COUNT              6

/* PLOP: pd = pa OP pb; imm16 bit 0 negates pa, bit 1 negates pb */
#define TGPU_PLOP_AND               0
#define TGPU_PLOP_OR                1
#define TGPU_PLOP_XOR               2
#define TGPU_PLOP_NAMES             { "and", "or", "xor" }
#define TGPU_PLOP_COUNT             3
#define TGPU_PLOP_NEG_A             1
#define TGPU_PLOP_NEG_B             2

/*
 * float64 arithmetic and conversions: IEEE rounding (PTX .rn .rz .rm
 * .rp; to integer: .rni .rzi .rmi .rpi).  RN is the default: no suffix.
 */
#define TGPU_RND_RN                 0
#define TGPU_RND_RZ                 1
#define TGPU_RND_RM                 2
#define TGPU_RND_RP                 3
#define TGPU_RND_NAMES              { "rn", "rz", "rm", "rp" }
#define TGPU_RND_COUNT              4

/*
 * F2I, F2U: float32 to int32/uint32, truncating by default as they
 * always have: sub 0 is rz, then rn, rm, rp (PTX .rzi .rni .rmi .rpi)
 */
#define TGPU_F2I_RZ                 0
#define TGPU_F2I_RN                 1
#define TGPU_F2I_RM                 2
#define TGPU_F2I_RP                 3
#define TGPU_F2I_NAMES              { "rz", "rn", "rm", "rp" }
#define TGPU_F2I_COUNT              4

/* Does opcode OP write a 64-bit pair at rd (beyond iadd64, imad.wide)? */
static inline int tgpu_isa_rd_pair(unsigned int op)
{
    switch (op) {
    case TGPU_OP_DADD: case TGPU_OP_DSUB: case TGPU_OP_DMUL:
    case TGPU_OP_DFMA: case TGPU_OP_DMIN: case TGPU_OP_DMAX:
    case TGPU_OP_DABS: case TGPU_OP_DNEG: case TGPU_OP_F2D:
    case TGPU_OP_I2D: case TGPU_OP_U2D: case TGPU_OP_L2D:
    case TGPU_OP_UL2D: case TGPU_OP_D2L: case TGPU_OP_D2UL:
    case TGPU_OP_F2L: case TGPU_OP_F2UL: case TGPU_OP_ISUB64:
    case TGPU_OP_IMUL64: case TGPU_OP_IMULHI_S64: case TGPU_OP_IMULHI_U64:
    case TGPU_OP_SHL64: case TGPU_OP_SHR64: case TGPU_OP_SAR64:
        return 1;
    }
    return 0;
}

/*
 * The cost of a warp instruction in the engine's cycle model: 1, or
 * F64 (the model's float64 rate: 2 on a P100, 32 on a P40 or M40) for
 * the float64 arithmetic, or 4 for the special functions (MUFU).
 * Conversions cost 1.
 */
static inline unsigned int tgpu_isa_cost(unsigned int op, unsigned int f64)
{
    switch (op) {
    case TGPU_OP_DADD: case TGPU_OP_DSUB: case TGPU_OP_DMUL:
    case TGPU_OP_DFMA: case TGPU_OP_DMIN: case TGPU_OP_DMAX:
    case TGPU_OP_DSETP:
        return f64;
    case TGPU_OP_MUFU:
        return 4;               /* the SFU: a quarter of the FP32 rate */
    }
    return 1;
}

/*
 * MUFU.fn rd, ra: float32 special functions, each within the error
 * bound docs/hw/isa.md states (PTX's .approx bounds or better)
 */
#define TGPU_MUFU_RCP               0
#define TGPU_MUFU_RSQ               1
#define TGPU_MUFU_SQRT              2
#define TGPU_MUFU_EX2               3
#define TGPU_MUFU_LG2               4
#define TGPU_MUFU_SIN               5
#define TGPU_MUFU_COS               6
#define TGPU_MUFU_NAMES \
    { "rcp", "rsq", "sqrt", "ex2", "lg2", "sin", "cos" }
#define TGPU_MUFU_COUNT             7

/* IMULHI, BFE: how the operands are read */
#define TGPU_SIGN_S32               0
#define TGPU_SIGN_U32               1
#define TGPU_SIGN_NAMES             { "s32", "u32" }
#define TGPU_SIGN_COUNT             2

/*
 * BFE rd, ra, b and BFI rd, ra, rb, rc: the field's position in bits
 * [7:0] and its length in bits [15:8] of b (BFE) or rb (BFI), as
 * NVIDIA's SASS packs them; the other bits are ignored
 */
#define TGPU_BF_POS(v)              ((unsigned int)(v) & 0xffu)
#define TGPU_BF_LEN(v)              (((unsigned int)(v) >> 8) & 0xffu)
#define TGPU_BF(pos, len)           ((unsigned int)(pos) | (unsigned int)(len) << 8)

/* PRMT: PTX prmt's modes; SEL is its default (four byte selectors in rc) */
#define TGPU_PRMT_SEL               0
#define TGPU_PRMT_F4E               1
#define TGPU_PRMT_B4E               2
#define TGPU_PRMT_RC8               3
#define TGPU_PRMT_ECL               4
#define TGPU_PRMT_ECR               5
#define TGPU_PRMT_RC16              6
#define TGPU_PRMT_NAMES \
    { "sel", "f4e", "b4e", "rc8", "ecl", "ecr", "rc16" }
#define TGPU_PRMT_COUNT             7

/* FSHL, FSHR: the shift count rc clamped to 32, or taken modulo 32 */
#define TGPU_FSH_CLAMP              0
#define TGPU_FSH_WRAP               1
#define TGPU_FSH_NAMES              { "clamp", "wrap" }
#define TGPU_FSH_COUNT              2

/* VOTE pd, [!]pa: over the executing lanes; BALLOT, VOTE: imm16 bit 0 */
#define TGPU_VOTE_ALL               0
#define TGPU_VOTE_ANY               1
#define TGPU_VOTE_UNI               2
#define TGPU_VOTE_NAMES             { "all", "any", "uni" }
#define TGPU_VOTE_COUNT             3
#define TGPU_VOTE_NEG               1

/*
 * SHFL rd, ra, b, c: PTX shfl's modes.  b: the lane or offset (bits 4:0),
 * c: the clamp (bits 4:0) and the segment mask (bits 12:8); in the
 * immediate form imm32 = TGPU_SHFL_IMM(b, c)
 */
#define TGPU_SHFL_IDX               0
#define TGPU_SHFL_UP                1
#define TGPU_SHFL_DOWN              2
#define TGPU_SHFL_BFLY              3
#define TGPU_SHFL_NAMES             { "idx", "up", "down", "bfly" }
#define TGPU_SHFL_COUNT             4
#define TGPU_SHFL_IMM(b, c) \
    (((unsigned int)(b) & 0x1fu) | ((unsigned int)(c) & 0x1fffu) << 8)
#define TGPU_SHFL_IMM_VALID         0x001fff1fu
#define TGPU_SHFL_IMM_B(imm)        ((unsigned int)(imm) & 0x1fu)
#define TGPU_SHFL_IMM_C(imm)        (((unsigned int)(imm) >> 8) & 0x1fffu)

/* LDG, STG, LDS, STS, LDC: the access width (loads of 8/16 extend) */
#define TGPU_W_U8                   0
#define TGPU_W_S8                   1
#define TGPU_W_U16                  2
#define TGPU_W_S16                  3
#define TGPU_W_32                   4
#define TGPU_W_64                   5   /* rd is a pair */
#define TGPU_W_NAMES                { "u8", "s8", "u16", "s16", "32", "64" }
#define TGPU_W_COUNT                6

/* ATOMG, ATOMS: 32-bit operations; rd gets the old value */
#define TGPU_ATOM_ADD               0
#define TGPU_ATOM_MIN               1   /* signed */
#define TGPU_ATOM_MAX               2   /* signed */
#define TGPU_ATOM_EXCH              3
#define TGPU_ATOM_CAS               4   /* if old == rb: rc */
#define TGPU_ATOM_AND               5
#define TGPU_ATOM_OR                6
#define TGPU_ATOM_XOR               7
#define TGPU_ATOM_NAMES \
    { "add", "min", "max", "exch", "cas", "and", "or", "xor" }
#define TGPU_ATOM_COUNT             8

/* S2R: special registers (imm32) */
#define TGPU_SR_TID_X               0
#define TGPU_SR_TID_Y               1
#define TGPU_SR_TID_Z               2
#define TGPU_SR_NTID_X              3
#define TGPU_SR_NTID_Y              4
#define TGPU_SR_NTID_Z              5
#define TGPU_SR_CTAID_X             6
#define TGPU_SR_CTAID_Y             7
#define TGPU_SR_CTAID_Z             8
#define TGPU_SR_NCTAID_X            9
#define TGPU_SR_NCTAID_Y            10
#define TGPU_SR_NCTAID_Z            11
#define TGPU_SR_LANEID              12
#define TGPU_SR_WARPID              13
#define TGPU_SR_SMID                14
#define TGPU_SR_CLOCK_LO            15  /* SM clock cycles */
#define TGPU_SR_CLOCK_HI            16
#define TGPU_SR_ACTIVEMASK          17  /* the lanes on the current path */
#define TGPU_SR_LANEMASK_EQ         18  /* lanes = this lane, <, <=, >, >= */
#define TGPU_SR_LANEMASK_LT         19
#define TGPU_SR_LANEMASK_LE         20
#define TGPU_SR_LANEMASK_GT         21
#define TGPU_SR_LANEMASK_GE         22
#define TGPU_SR_NSMID               23  /* SMs: smid is below it */
#define TGPU_SR_WARPSIZE            24
#define TGPU_SR_SMEM_TOTAL          25  /* the CTA's shared bytes */
#define TGPU_SR_GLOBALTIMER_LO      26  /* PTIMER ns, in modelled time */
#define TGPU_SR_GLOBALTIMER_HI      27
#define TGPU_SR_NAMES \
    { "tid.x", "tid.y", "tid.z", "ntid.x", "ntid.y", "ntid.z", \
      "ctaid.x", "ctaid.y", "ctaid.z", "nctaid.x", "nctaid.y", "nctaid.z", \
      "laneid", "warpid", "smid", "clock.lo", "clock.hi", "activemask", \
      "lanemask.eq", "lanemask.lt", "lanemask.le", "lanemask.gt", \
      "lanemask.ge", "nsmid", "warpsize", "smem.total", "globaltimer.lo", \
      "globaltimer.hi" }
#define TGPU_SR_COUNT               28

/* ---- the compute class (TGPU_CLASS_COMPUTE) ---------------------------- */

/*
 * The compute class methods, X(NAME, method): TGPU_GR_M_<NAME>; the
 * one list of them (see TGPU_HOST_METHODS in channel.h)
 */
#define TGPU_GR_METHODS(X) \
    X(NOP,                    0x0100) \
    X(SET_PROGRAM_UPPER,      0x0200) /* code GPU VA [48:32] */ \
    X(SET_PROGRAM_LOWER,      0x0204) /* 8-byte aligned */ \
    X(SET_PROGRAM_SIZE,       0x0208) /* bytes */ \
    X(SET_GRID_X,             0x0210) /* CTAs */ \
    X(SET_GRID_Y,             0x0214) \
    X(SET_GRID_Z,             0x0218) \
    X(SET_BLOCK_X,            0x021c) /* threads per CTA */ \
    X(SET_BLOCK_Y,            0x0220) \
    X(SET_BLOCK_Z,            0x0224) \
    X(SET_SHARED_SIZE,        0x0228) /* bytes per CTA */ \
    X(SET_PARAM_UPPER,        0x022c) /* constant bank GPU VA */ \
    X(SET_PARAM_LOWER,        0x0230) \
    X(SET_PARAM_SIZE,         0x0234) /* bytes, read at launch */ \
    X(SET_SEMAPHORE_A,        0x0240) /* as the copy class */ \
    X(SET_SEMAPHORE_B,        0x0244) \
    X(SET_SEMAPHORE_PAYLOAD,  0x0248) \
    X(LAUNCH,                 0x0300) /* semaphore, interrupt */

enum {
#define TGPU_GR_M_ENUM_(name, mthd) TGPU_GR_M_##name = (mthd),
    TGPU_GR_METHODS(TGPU_GR_M_ENUM_)
#undef TGPU_GR_M_ENUM_
};

/* The name of compute class method MTHD, or 0 (NULL) if there is none. */
static inline const char *tgpu_gr_method_name(unsigned int mthd)
{
    switch (mthd) {
#define TGPU_GR_M_NAME_(name, m) case (m): return #name;
    TGPU_GR_METHODS(TGPU_GR_M_NAME_)
#undef TGPU_GR_M_NAME_
    }
    return 0;
}
/* LAUNCH data: TGPU_CE_LAUNCH_SEM_* and _INTR_* fields as LAUNCH_DMA */
#define TGPU_GR_LAUNCH_VALID_MASK       0x7fu

#define TGPU_GR_PROGRAM_MAX             (1u << 20)  /* 131072 insns */
#define TGPU_GR_GRID_MAX                65535
#define TGPU_GR_BLOCK_MAX               1024
#define TGPU_GR_SHARED_MAX              (48u << 10)
#define TGPU_GR_PARAM_MAX               4096

/*
 * A step of the engine, between two of the points where it stops for a
 * reset, kill or VM stop and publishes ENGINE_PROGRESS: this many warp
 * instructions, or fewer when this many lane accesses have missed the
 * executor's one-page cache (each an MMU translation, and in system
 * memory a mapping of guest RAM: the cost of dozens of instructions).
 */
#define TGPU_GR_STEP_INSNS              65536
#define TGPU_GR_STEP_TRANSLATIONS       2048

/* ---- compute engine registers (BAR0) ------------------------------------- */

#define TGPU_GR_BASE                    0x00c000u
#define TGPU_GR_SIZE                    0x1000u
#define TGPU_GR_STATUS                  0x00c000u   /* RO */
#define   TGPU_GR_STATUS_BUSY           (1u << 0)
#define TGPU_GR_CHID                    0x00c004u   /* RO, current/last */
#define TGPU_GR_LAUNCHES                0x00c008u   /* RO */
#define TGPU_GR_ERROR                   0x00c00cu   /* RO, TGPU_KERR_* */
#define TGPU_GR_ERROR_PC                0x00c010u   /* instruction index */
#define TGPU_GR_ERROR_CTA               0x00c014u   /* linear CTA index */
#define TGPU_GR_ERROR_WARP              0x00c018u   /* warp in the CTA */
#define TGPU_GR_ERROR_LANE              0x00c01cu   /* first failing lane */
#define TGPU_GR_ERROR_VA_LO             0x00c020u   /* faulting address */
#define TGPU_GR_ERROR_VA_HI             0x00c024u
#define TGPU_GR_ERROR_INFO              0x00c028u   /* TRAP code, etc. */
#define TGPU_GR_WARP_INSNS_LO           0x00c030u   /* counters since reset */
#define TGPU_GR_WARP_INSNS_HI           0x00c034u
#define TGPU_GR_LANE_OPS_LO             0x00c038u
#define TGPU_GR_LANE_OPS_HI             0x00c03cu
#define TGPU_GR_PREEMPTS                0x00c040u   /* slices that ended */
#define TGPU_GR_CLOCK_KHZ               0x00c044u   /* effective SM clock */

/* Why a kernel ended badly (TGPU_GR_ERROR, CHAN_ERROR_INFO of COMPUTE). */
#define TGPU_KERR_NONE                  0
#define TGPU_KERR_LAUNCH                1   /* bad dimensions, sizes */
#define TGPU_KERR_ILLEGAL_INSN          2
#define TGPU_KERR_PC                    3   /* PC left the program */
#define TGPU_KERR_MISALIGNED            4
#define TGPU_KERR_MMU_FAULT             5   /* see the fault buffer */
#define TGPU_KERR_SHARED                6   /* outside shared memory */
#define TGPU_KERR_CONST                 7   /* outside the parameters */
#define TGPU_KERR_TRAP                  8   /* TRAP; info: its immediate */
#define TGPU_KERR_BARRIER               9   /* barrier deadlock */
#define TGPU_KERR_STACK                 10  /* SIMT stack over/underflow */
#define TGPU_KERR_PROGRAM_FAULT         11  /* code unreachable */
/*
 * An uncorrectable ECC error in VRAM it read (code, a load, an atomic):
 * the channel fails with TGPU_ERR_ECC_UNCORRECTABLE, not TGPU_ERR_COMPUTE.
 */
#define TGPU_KERR_ECC                   12
/*
 * A warp-synchronous instruction (WSYNC) whose member mask leaves out a
 * lane that executes it, or names a live lane that does not (diverged,
 * or its guard false); info: the mask
 */
#define TGPU_KERR_MEMBER_MASK           13

static inline const char *tgpu_kerr_meaning(unsigned int e)
{
    switch (e) {
    case TGPU_KERR_NONE:
        return "no error";
    case TGPU_KERR_LAUNCH:
        return "launch parameters out of range";
    case TGPU_KERR_ILLEGAL_INSN:
        return "illegal instruction";
    case TGPU_KERR_PC:
        return "program counter outside the program";
    case TGPU_KERR_MISALIGNED:
        return "misaligned memory address";
    case TGPU_KERR_MMU_FAULT:
        return "MMU fault";
    case TGPU_KERR_SHARED:
        return "shared-memory access out of range";
    case TGPU_KERR_CONST:
        return "constant-bank access out of range";
    case TGPU_KERR_TRAP:
        return "TRAP instruction";
    case TGPU_KERR_BARRIER:
        return "barrier deadlock";
    case TGPU_KERR_STACK:
        return "SIMT stack overflow or underflow";
    case TGPU_KERR_PROGRAM_FAULT:
        return "program unreachable";
    case TGPU_KERR_ECC:
        return "uncorrectable ECC error in memory the kernel read";
    case TGPU_KERR_MEMBER_MASK:
        return "warp-synchronous member mask does not match the executing "
               "lanes";
    }
    return "unknown kernel error";
}

#endif /* TGPU_ISA_H */
