/*
 * tgpu compute engine: the compute class, kernels, and the SIMT
 * interpreter that runs them on a thread of its own
 *
 * docs/hw/isa.md is the manual.  A LAUNCH makes a TGPUKernel that its
 * channel owns until the kernel ends.  The engine's thread fetches and
 * decodes the program once, then runs CTAs one after another, the warps
 * of a CTA in turn (a warp runs until it exits, waits at a barrier or
 * sleeps).  Each warp instruction works on all 32 lanes at once, as
 * arrays the host compiler can vectorise, under an execution mask.
 *
 * A kernel runs for one timeslice of modelled GPU time at a time: one
 * warp instruction per SM clock cycle.  Then the engine hands it back to
 * the host unit, which may run another channel's kernel first; a kernel
 * that never ends keeps coming back until the driver kills its channel
 * or resets the engine, as a hung GPU does.  Everything the thread
 * touches is the kernel's, VRAM or guest RAM: it never needs the BQL.
 *
 * Copyright (c) 2026 The tgpu authors
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */

#include "qemu/osdep.h"
#include <math.h>
#include "qemu/bswap.h"
#include "qemu/host-utils.h"
#include "qemu/log.h"
#include "qemu/lockable.h"
#include "qemu/main-loop.h"
#include "qemu/rcu.h"
#include "qemu/units.h"
#include "tgpu.h"
#include "trace.h"

#define W                   TGPU_WARP_SIZE
#define ALL_LANES           0xffffffffu
/* register rows: R0..R63, then RZ as a zero pair */
#define ROW_RZ              TGPU_NR_REGS
#define NR_ROWS             (TGPU_NR_REGS + 2)
/* warp instructions between two looks at cancel and VM stop */
#define GR_CHECK_EVERY      65536

enum { WARP_RUN, WARP_BAR, WARP_SLEEP, WARP_EXITED };
enum { SIMT_SSY, SIMT_DIV };

/* A decoded instruction: fields checked once, at decode. */
typedef struct GrInsn {
    uint8_t op;             /* TGPU_OP_*, or 0xff: illegal */
    uint8_t pg, pgneg;
    uint8_t rd, ra, rb, rc; /* register rows (RZ: ROW_RZ) */
    uint8_t sub;
    bool bimm;              /* B is imm32 (not: an address offset, ...) */
    int16_t imm16;
    uint32_t imm32;
} GrInsn;

#define OP_ILLEGAL          0xff

typedef struct GrWarp {
    uint32_t pc;
    uint32_t active;        /* lanes on the current path */
    uint32_t live;          /* lanes that have not exited */
    uint32_t exists;        /* lanes that are threads of the CTA */
    int state;
    uint32_t bar;
    uint32_t sp;
    struct {
        uint32_t pc, mask, type;
    } stack[TGPU_SIMT_STACK_DEPTH];
    uint32_t p[TGPU_NR_PREDS + 1];      /* per-lane masks; PT = all */
    uint32_t r[NR_ROWS][W];
    /*
     * How the lanes of each row lie as addresses (row_shape()): 0 when
     * not known; every write to a row sets it to 0.
     */
    uint8_t shape[NR_ROWS];
} GrWarp;

struct TGPUKernel {
    TGPUVmCtx vm;
    uint32_t launch;
    uint64_t prog_va;
    uint32_t ninsns;
    GrInsn *code;           /* NULL until the engine fetched it */
    uint32_t rows;          /* register rows the code may write: 0..rows-1 */
    uint32_t grid[3], block[3];
    uint32_t shared_size;
    uint8_t param[TGPU_GR_PARAM_MAX];
    uint32_t param_size;
    uint64_t sem_addr;
    uint32_t sem_payload;

    /* where it is: the CTA in progress and its state */
    uint64_t ncta, cta;
    uint32_t nwarps, cur_warp;
    GrWarp *warps;
    uint8_t *shared;
    uint64_t cycles;

    /* how it ended */
    uint32_t error;
    uint32_t err_pc, err_warp, err_lane, err_info;
    uint64_t err_cta, err_va;
    int fault_type;
    bool fault_write;
};

typedef struct TGPUComputeEngine TGPUComputeEngine;

/* A kernel's run on the thread, with what it counts. */
typedef struct GrRun {
    TGPUComputeEngine *gr;
    TGPUKernel *k;
    uint64_t budget;
    uint64_t warp_insns, lane_ops;
    uint8_t *vram;          /* VRAM's host memory */
    /* the last VRAM page a lane reached, for the others */
    uint64_t tlb_vpn;
    uint8_t *tlb_host;
    bool tlb_write, tlb_valid;
    /*
     * Per-instruction scratch, here rather than on the stack, which QEMU
     * builds zero at every instruction (-ftrivial-auto-var-init=zero).
     */
    uint32_t res[W], hi[W], bsplat[W], addr[W];
    uint64_t v64[W];
} GrRun;

/* The compute engine: the engine object, its kernel, its registers. */
struct TGPUComputeEngine {
    TGPUEngine e;
    TGPUKernel *k;          /* the kernel queued or on the thread */
    uint64_t slice_insns;   /* warp instructions per timeslice */
    GrRun run;              /* the thread's own, while it runs */
    bool run_finished;      /* the thread's: the kernel ended */
    bool finished;          /* ... as published: else its slice did */
    /* registers, under e.lock */
    uint32_t chid, launches, preempts;
    uint64_t warp_insns, lane_ops;
    uint32_t error, err_pc, err_warp, err_lane, err_info;
    uint64_t err_cta, err_va;
};

static TGPUComputeEngine *gr_of(TGPUEngine *e)
{
    return container_of(e, TGPUComputeEngine, e);
}

/* ---- decoding ------------------------------------------------------------ */

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

/* Decode one instruction; an invalid one decodes as OP_ILLEGAL. */
static GrInsn gr_decode(uint64_t i)
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
    case TGPU_FMT_RAB:
        ok = ok && reg_ok(rd, rd_is_pair(op, sub)) && reg_ok(ra, a64);
        regs_b = true;
        break;
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
        ok = ok && (bimm || (reg_ok(rb, a64 && op == TGPU_OP_IADD64) &&
                             !rc && !d.imm16));
    }
    ok = ok && sub <= max_sub && !(need_imm && !bimm) && !(no_imm && bimm);
    if (!ok) {
        d.op = OP_ILLEGAL;
        return d;
    }
    d.rd = gr_ops[op].fmt == TGPU_FMT_SETP || gr_ops[op].fmt == TGPU_FMT_PLOP
           ? rd : row(rd);
    d.ra = gr_ops[op].fmt == TGPU_FMT_PLOP ? ra : row(ra);
    d.rb = gr_ops[op].fmt == TGPU_FMT_PLOP ? rb : row(rb);
    d.rc = row(rc);
    if (bimm) {
        /* no rb or rc: their bits are the immediate's */
        d.rb = d.rc = ROW_RZ;
        d.bimm = regs_b;
    }
    return d;
}

/* ---- memory -------------------------------------------------------------- */

static bool gr_error(GrRun *r, GrWarp *w, uint32_t err, uint32_t lanes,
                     uint64_t va, uint32_t info)
{
    TGPUKernel *k = r->k;

    k->error = err;
    k->err_pc = w ? w->pc : 0;
    k->err_cta = k->cta;
    k->err_warp = w ? w - k->warps : 0;
    k->err_lane = lanes ? ctz32(lanes) : 0;
    k->err_va = va;
    k->err_info = info;
    return false;
}

/*
 * LEN (at most 8, naturally aligned) bytes at global address VA: copy to
 * or from BUF, or apply an atomic with fn.  Faults are recorded in the
 * kernel; returns false then.
 */
typedef void GrAtomicFn(uint32_t *p, uint32_t *io, uint32_t b, uint32_t c,
                        unsigned int op);

static void gr_atomic32(uint32_t *p, uint32_t *io, uint32_t b, uint32_t c,
                        unsigned int op)
{
    uint32_t old, want;

    switch (op) {
    case TGPU_ATOM_ADD:
        *io = qatomic_fetch_add(p, b);
        return;
    case TGPU_ATOM_AND:
        *io = qatomic_fetch_and(p, b);
        return;
    case TGPU_ATOM_OR:
        *io = qatomic_fetch_or(p, b);
        return;
    case TGPU_ATOM_XOR:
        *io = qatomic_fetch_xor(p, b);
        return;
    case TGPU_ATOM_EXCH:
        *io = qatomic_xchg(p, cpu_to_le32(b));
        *io = le32_to_cpu(*io);
        return;
    case TGPU_ATOM_CAS:
        *io = le32_to_cpu(qatomic_cmpxchg(p, cpu_to_le32(b),
                                          cpu_to_le32(c)));
        return;
    }
    /* MIN, MAX (signed) */
    old = qatomic_read(p);
    for (;;) {
        int32_t o = le32_to_cpu(old);

        want = op == TGPU_ATOM_MIN ? MIN(o, (int32_t)b) : MAX(o, (int32_t)b);
        want = qatomic_cmpxchg(p, old, cpu_to_le32(want));
        if (want == old) {
            break;
        }
        old = want;
    }
    *io = le32_to_cpu(old);
}

static bool gr_global(GrRun *r, GrWarp *w, uint32_t lane, uint64_t va,
                      void *buf, unsigned int len, bool is_write,
                      int atomic, uint32_t b, uint32_t c)
{
    TGPUState *s = r->gr->e.s;
    uint64_t vpn = va >> TGPU_PAGE_SHIFT, pa, n;
    uint8_t *p;
    bool sysmem;
    int fault;

    if (va % len) {
        return gr_error(r, w, TGPU_KERR_MISALIGNED, 1u << lane, va, 0);
    }
    if (!(r->tlb_valid && r->tlb_vpn == vpn && (r->tlb_write || !is_write))) {
        fault = tgpu_mmu_translate_run(s, &r->k->vm, TGPU_ACC_COMPUTE, va,
                                       len, is_write, &pa, &sysmem, &n);
        if (fault) {
            r->k->fault_type = fault;
            r->k->fault_write = is_write;
            return gr_error(r, w, TGPU_KERR_MMU_FAULT, 1u << lane, va, 0);
        }
        if (sysmem) {
            TGPUSysmemMap sm;
            uint64_t l = len;
            void *m;

            r->tlb_valid = false;
            m = tgpu_sysmem_map(s, pa, &l, is_write, &sm);
            if (!m || l < len) {
                tgpu_sysmem_unmap(&sm, 0);
                tgpu_mmu_forget(s, &r->k->vm, va);
                r->k->fault_type = TGPU_FAULT_BAD_APERTURE;
                r->k->fault_write = is_write;
                return gr_error(r, w, TGPU_KERR_MMU_FAULT, 1u << lane, va, 0);
            }
            if (atomic >= 0) {
                gr_atomic32(m, buf, b, c, atomic);
            } else if (is_write) {
                memcpy(m, buf, len);
            } else {
                memcpy(buf, m, len);
            }
            tgpu_sysmem_unmap(&sm, len);
            return true;
        }
        r->tlb_valid = true;
        r->tlb_vpn = vpn;
        r->tlb_write = is_write;
        r->tlb_host = r->vram + (pa & ~(TGPU_PAGE_SIZE - 1));
    }
    p = r->tlb_host + (va & (TGPU_PAGE_SIZE - 1));
    if (atomic >= 0) {
        gr_atomic32((uint32_t *)p, buf, b, c, atomic);
    } else if (is_write) {
        memcpy(p, buf, len);
    } else {
        memcpy(buf, p, len);
    }
    return true;
}

/* ---- executing ----------------------------------------------------------- */

static unsigned int width_bytes(unsigned int w)
{
    static const uint8_t bytes[TGPU_W_COUNT] = { 1, 1, 2, 2, 4, 8 };

    return bytes[w];
}

static uint64_t load_extend(const uint8_t *p, unsigned int w)
{
    switch (w) {
    case TGPU_W_U8:
        return p[0];
    case TGPU_W_S8:
        return (uint32_t)(int8_t)p[0];
    case TGPU_W_U16:
        return lduw_le_p(p);
    case TGPU_W_S16:
        return (uint32_t)(int16_t)lduw_le_p(p);
    case TGPU_W_32:
        return ldl_le_p(p);
    }
    return ldq_le_p(p);
}

static float f32(uint32_t v)
{
    float f;

    memcpy(&f, &v, 4);
    return f;
}

static uint32_t u32f(float f)
{
    uint32_t v;

    memcpy(&v, &f, 4);
    return v;
}

/*
 * Eight lanes as one vector (host byte order), for the loops over lanes
 * that GCC does not vectorise well by itself: one AVX2 register, or two
 * of SSE2.
 */
typedef uint32_t GrVec8 __attribute__((vector_size(32)));

static inline QEMU_ALWAYS_INLINE
GrVec8 vec8_load(const void *p)
{
    GrVec8 v;

    memcpy(&v, p, sizeof(v));
    return v;
}

static inline QEMU_ALWAYS_INLINE
void vec8_store(void *p, GrVec8 v)
{
    memcpy(p, &v, sizeof(v));
}

/* V in every lane */
static inline QEMU_ALWAYS_INLINE
GrVec8 vec8_splat(uint32_t v)
{
    return (GrVec8){ 0 } + v;
}

/* Is any lane of V not zero?  (By halves: GCC would go lane by lane.) */
typedef uint64_t GrVec2q __attribute__((vector_size(16)));

static inline QEMU_ALWAYS_INLINE
bool vec8_any(GrVec8 v)
{
    GrVec2q h[2];

    memcpy(h, &v, sizeof(h));
    h[0] |= h[1];
    return h[0][0] | h[0][1];
}

/* The lanes whose bit is set in E (bit 0: the first), as all ones */
static inline QEMU_ALWAYS_INLINE
GrVec8 vec8_lanes(uint32_t e)
{
    const GrVec8 bit = { 1, 2, 4, 8, 16, 32, 64, 128 };

    return (GrVec8)((bit & e) != 0);
}

/* X on the lanes where M is all ones, Y on the others */
static inline QEMU_ALWAYS_INLINE
GrVec8 vec8_sel(GrVec8 m, GrVec8 x, GrVec8 y)
{
    return (x & m) | (y & ~m);
}

typedef float GrVec8f __attribute__((vector_size(32)));

static bool is_nan32(uint32_t v)
{
    return (v & 0x7fffffffu) > 0x7f800000u;
}

/*
 * Which NaN a float operation gives, as the interpreter has always
 * given it (the x86 scalar SSE and FMA units it was built for): the
 * first NaN operand in the order X, Y, Z, quieted; with none, the NaN
 * the operation made (R).  Vector units and compilers may pick another.
 */
static uint32_t nan_first(uint32_t r, uint32_t x, uint32_t y, uint32_t z)
{
    if (is_nan32(x)) {
        return x | 0x400000u;
    }
    if (is_nan32(y)) {
        return y | 0x400000u;
    }
    return is_nan32(z) ? z | 0x400000u : r;
}

/*
 * IEEE-754 single arithmetic on the lanes, each rounded once (their NaN
 * results: see FLANES)
 */
static inline QEMU_ALWAYS_INLINE
GrVec8 vec8_fadd(GrVec8 a, GrVec8 b)
{
    return (GrVec8)((GrVec8f)a + (GrVec8f)b);
}

static inline QEMU_ALWAYS_INLINE
GrVec8 vec8_fsub(GrVec8 a, GrVec8 b)
{
    return (GrVec8)((GrVec8f)a - (GrVec8f)b);
}

static inline QEMU_ALWAYS_INLINE
GrVec8 vec8_fmul(GrVec8 a, GrVec8 b)
{
    return (GrVec8)((GrVec8f)a * (GrVec8f)b);
}

static inline QEMU_ALWAYS_INLINE
GrVec8 vec8_ffma(GrVec8 a, GrVec8 b, GrVec8 c)
{
    GrVec8f x = (GrVec8f)a, y = (GrVec8f)b, z = (GrVec8f)c, d;

    for (int i = 0; i < 8; i++) {
        d[i] = fmaf(x[i], y[i], z[i]);
    }
    return (GrVec8)d;
}

/* Its NaN lanes, all ones */
static inline QEMU_ALWAYS_INLINE
GrVec8 vec8_nans(GrVec8 v)
{
    return (GrVec8)((GrVec8f)v != (GrVec8f)v);
}

/* One lane of FADD, FSUB, FMUL or FFMA, its NaNs as nan_first() gives */
static uint32_t float_lane(unsigned int op, uint32_t a, uint32_t b,
                           uint32_t c)
{
    float x = f32(a), y = f32(b), z = f32(c);

    switch (op) {
    case TGPU_OP_FADD:
        return nan_first(u32f(x + y), b, a, a);
    case TGPU_OP_FSUB:
        return nan_first(u32f(x - y), a, b, b);
    case TGPU_OP_FMUL:
        return nan_first(u32f(x * y), b, a, a);
    }
    return nan_first(u32f(fmaf(x, y, z)), a, b, c);
}

/*
 * FMIN, FMAX: IEEE minNum/maxNum as the interpreter has always computed
 * them (glibc's fminf/fmaxf with b first): equal operands (+0 and -0)
 * give a, a quiet NaN gives the other operand, a signaling NaN or two
 * NaNs give nan_first(b, a).
 */
static uint32_t fminmax(uint32_t a, uint32_t b, bool is_max)
{
    float x = f32(b), y = f32(a);

    if (!is_nan32(a) && !is_nan32(b)) {
        return (is_max ? x > y : x < y) ? b : a;
    }
    if (is_nan32(a) && is_nan32(b)) {
        return nan_first(0, b, a, a);
    }
    if (is_nan32(b)) {
        return b & 0x400000u ? a : b | 0x400000u;
    }
    return a & 0x400000u ? b : a | 0x400000u;
}

static void wr32(GrWarp *w, unsigned int rd, const uint32_t *v,
                 uint32_t exec)
{
    uint32_t *d = w->r[rd];

    if (rd >= TGPU_NR_REGS) {
        return;
    }
    w->shape[rd] = 0;
    if (exec == ALL_LANES) {
        for (int i = 0; i < W; i += 8) {
            vec8_store(d + i, vec8_load(v + i));
        }
        return;
    }
    for (int l = 0; l < W; l++) {
        d[l] = exec & (1u << l) ? v[l] : d[l];
    }
}

static void wr64(GrWarp *w, unsigned int rd, const uint64_t *v,
                 uint32_t exec)
{
    uint32_t *lo = w->r[rd], *hi = w->r[rd + 1];

    if (rd >= TGPU_NR_REGS) {
        return;
    }
    w->shape[rd] = w->shape[rd + 1] = 0;
    for (int l = 0; l < W; l++) {
        lo[l] = exec & (1u << l) ? v[l] : lo[l];
        hi[l] = exec & (1u << l) ? v[l] >> 32 : hi[l];
    }
}

static uint64_t rd64(GrWarp *w, unsigned int ra, int l)
{
    return (uint64_t)w->r[ra + 1][l] << 32 | w->r[ra][l];
}

static uint32_t f2i(float f, bool is_unsigned)
{
    if (isnan(f)) {
        return 0;
    }
    if (is_unsigned) {
        return f <= 0 ? 0 : f >= 4294967296.0f ? UINT32_MAX : (uint32_t)f;
    }
    return f <= -2147483648.0f ? (uint32_t)INT32_MIN :
           f >= 2147483648.0f ? INT32_MAX : (uint32_t)(int32_t)f;
}

/* S2R: special register SR of every lane into V; CYCLES: the clock now */
static void gr_s2r(GrRun *r, GrWarp *w, unsigned int sr, uint64_t cycles,
                   uint32_t *v)
{
    TGPUKernel *k = r->k;
    uint32_t warp = w - k->warps, t = warp * W;
    uint32_t bx = k->block[0], by = k->block[1], x, y, z, u;
    uint64_t cta = k->cta;

    switch (sr) {
    case TGPU_SR_TID_X:
    case TGPU_SR_TID_Y:
    case TGPU_SR_TID_Z:
        /* thread t = x + bx * (y + by * z): divide for lane 0 only */
        x = t % bx;
        y = t / bx % by;
        z = t / (bx * by);
        for (int l = 0; l < W; l++) {
            v[l] = sr == TGPU_SR_TID_X ? x : sr == TGPU_SR_TID_Y ? y : z;
            if (++x == bx) {
                x = 0;
                if (++y == by) {
                    y = 0;
                    z++;
                }
            }
        }
        return;
    case TGPU_SR_LANEID:
        for (int l = 0; l < W; l++) {
            v[l] = l;
        }
        return;
    case TGPU_SR_NTID_X:
    case TGPU_SR_NTID_Y:
    case TGPU_SR_NTID_Z:
        u = k->block[sr - TGPU_SR_NTID_X];
        break;
    case TGPU_SR_CTAID_X:
        u = cta % k->grid[0];
        break;
    case TGPU_SR_CTAID_Y:
        u = cta / k->grid[0] % k->grid[1];
        break;
    case TGPU_SR_CTAID_Z:
        u = cta / ((uint64_t)k->grid[0] * k->grid[1]);
        break;
    case TGPU_SR_NCTAID_X:
    case TGPU_SR_NCTAID_Y:
    case TGPU_SR_NCTAID_Z:
        u = k->grid[sr - TGPU_SR_NCTAID_X];
        break;
    case TGPU_SR_WARPID:
        u = warp;
        break;
    case TGPU_SR_SMID:
        u = cta % r->gr->e.s->sm_count;
        break;
    case TGPU_SR_CLOCK_LO:
        u = cycles;
        break;
    default:
        u = cycles >> 32;
        break;
    }
    for (int l = 0; l < W; l++) {
        v[l] = u;
    }
}

/*
 * The current path is done (SYNC, or every lane of it exited): take the
 * next one from the SIMT stack.  false when the stack runs out with
 * lanes still alive, an error.
 */
static bool simt_pop(GrRun *r, GrWarp *w)
{
    while (w->live) {
        if (!w->sp) {
            return gr_error(r, w, TGPU_KERR_STACK, w->live, 0, 0);
        }
        w->sp--;
        w->active = w->stack[w->sp].mask & w->live;
        w->pc = w->stack[w->sp].pc;
        if (w->active) {
            return true;
        }
    }
    w->state = WARP_EXITED;
    return true;
}

static bool simt_push(GrRun *r, GrWarp *w, uint32_t pc, uint32_t mask,
                      uint32_t type)
{
    if (w->sp == TGPU_SIMT_STACK_DEPTH) {
        return gr_error(r, w, TGPU_KERR_STACK, w->active, 0, 0);
    }
    w->stack[w->sp].pc = pc;
    w->stack[w->sp].mask = mask;
    w->stack[w->sp].type = type;
    w->sp++;
    return true;
}

/*
 * Whole-warp 32-bit accesses go by groups of GROUP lanes: a group whose
 * addresses are all one word (a broadcast) or consecutive words moves
 * one word or one run.
 */
#define GROUP               16
#define NGROUPS             (W / GROUP)

enum { GROUP_SCATTERED, GROUP_SAME, GROUP_SEQ };

/*
 * How the GROUP words at A[0..] lie, A their addresses, or registers
 * that hold them less a common displacement.
 */
static inline QEMU_ALWAYS_INLINE int group_kind(const uint32_t *a)
{
    GrVec8 a0 = vec8_load(a), a1 = vec8_load(a + 8);
    GrVec8 same = vec8_splat(a[0]);
    GrVec8 seq = same + (GrVec8){ 0, 4, 8, 12, 16, 20, 24, 28 };

    if (!vec8_any((a0 ^ same) | (a1 ^ same))) {
        return GROUP_SAME;
    }
    return vec8_any((a0 ^ seq) | (a1 ^ (seq + 32))) ? GROUP_SCATTERED
                                                      : GROUP_SEQ;
}

/* A row's shape: SHAPE_KNOWN and the kind of each group of its lanes */
#define SHAPE_KNOWN         1
#define SHAPE_KIND(s, g)    (((s) >> (1 + 2 * (g))) & 3)

static uint8_t row_shape_find(GrWarp *w, unsigned int row)
{
    uint8_t s = SHAPE_KNOWN;

    for (int g = 0; g < NGROUPS; g++) {
        s |= group_kind(w->r[row] + g * GROUP) << (1 + 2 * g);
    }
    w->shape[row] = s;
    return s;
}

static inline uint8_t row_shape(GrWarp *w, unsigned int row)
{
    return w->shape[row] ? w->shape[row] : row_shape_find(w, row);
}

/* A group of KIND (SAME or SEQ) loads its words at P into D[0..] */
static inline QEMU_ALWAYS_INLINE
void load32_group(uint32_t *d, const uint8_t *p, int kind)
{
    uint32_t v;

    if (kind == GROUP_SAME) {
        v = ldl_le_p(p);
        vec8_store(d, vec8_splat(v));
        vec8_store(d + 8, vec8_splat(v));
    } else if (HOST_BIG_ENDIAN) {
        for (int i = 0; i < GROUP; i++) {
            d[i] = ldl_le_p(p + 4 * i);
        }
    } else {
        vec8_store(d, vec8_load(p));
        vec8_store(d + 8, vec8_load(p + 32));
    }
}

/* A group of KIND (SAME or SEQ) stores V[0..] at P: the last lane wins */
static inline QEMU_ALWAYS_INLINE
void store32_group(uint8_t *p, const uint32_t *v, int kind)
{
    if (kind == GROUP_SAME) {
        stl_le_p(p, v[GROUP - 1]);
    } else if (HOST_BIG_ENDIAN) {
        for (int i = 0; i < GROUP; i++) {
            stl_le_p(p + 4 * i, v[i]);
        }
    } else {
        vec8_store(p, vec8_load(v));
        vec8_store(p + 32, vec8_load(v + 8));
    }
}

/*
 * 32-bit shared and constant accesses on every lane, the bulk of tiled
 * kernels: true when done, every group a broadcast or a run inside the
 * memory; false (nothing done) when not so.
 */
static inline QEMU_ALWAYS_INLINE
bool gr_mem32_groups(GrRun *r, GrWarp *w, const GrInsn *in)
{
    TGPUKernel *k = r->k;
    uint8_t *mem = in->op == TGPU_OP_LDC ? k->param : k->shared;
    uint64_t size = in->op == TGPU_OP_LDC ? k->param_size : k->shared_size;
    const uint32_t *ra = w->r[in->ra];
    uint8_t shape = row_shape(w, in->ra);
    uint32_t base[NGROUPS];
    int kind[NGROUPS];

    /* a displacement common to the lanes keeps the shape */
    for (int g = 0; g < NGROUPS; g++) {
        base[g] = ra[g * GROUP] + in->imm32;
        kind[g] = SHAPE_KIND(shape, g);
        if (kind[g] == GROUP_SCATTERED || (base[g] & 3) ||
            (uint64_t)base[g] + (kind[g] == GROUP_SEQ ? 4 * GROUP : 4) >
            size) {
            return false;
        }
    }
    if (in->op == TGPU_OP_STS) {
        for (int g = 0; g < NGROUPS; g++) {
            store32_group(mem + base[g], w->r[in->rd] + g * GROUP, kind[g]);
        }
    } else if (in->rd < TGPU_NR_REGS) {
        w->shape[in->rd] = 0;
        for (int g = 0; g < NGROUPS; g++) {
            load32_group(w->r[in->rd] + g * GROUP, mem + base[g], kind[g]);
        }
    }
    return true;
}

/*
 * 64-bit shared and constant loads on every lane from one address (its
 * register is uniform, or RZ: the parameters): true when done.
 */
static inline QEMU_ALWAYS_INLINE
bool gr_ld64_same(GrRun *r, GrWarp *w, const GrInsn *in)
{
    TGPUKernel *k = r->k;
    uint8_t *mem = in->op == TGPU_OP_LDC ? k->param : k->shared;
    uint64_t size = in->op == TGPU_OP_LDC ? k->param_size : k->shared_size;
    const uint32_t *ra = w->r[in->ra];
    uint8_t shape = row_shape(w, in->ra);
    uint32_t a = ra[0] + in->imm32;
    uint64_t v;

    for (int g = 0; g < NGROUPS; g++) {
        if (SHAPE_KIND(shape, g) != GROUP_SAME || ra[g * GROUP] != ra[0]) {
            return false;
        }
    }
    if ((a & 7) || (uint64_t)a + 8 > size) {
        return false;
    }
    if (in->rd < TGPU_NR_REGS) {
        uint32_t lo, hi;

        v = ldq_le_p(mem + a);
        lo = v;
        hi = v >> 32;
        w->shape[in->rd] = w->shape[in->rd + 1] = 0;
        for (int i = 0; i < W; i += 8) {
            vec8_store(w->r[in->rd] + i, vec8_splat(lo));
            vec8_store(w->r[in->rd + 1] + i, vec8_splat(hi));
        }
    }
    return true;
}

/*
 * The other 32-bit shared and constant accesses: the addresses of all
 * lanes at once; false (nothing done) when any active lane is misaligned
 * or out of range, for gr_mem to report.
 */
static bool gr_mem32_local(GrRun *r, GrWarp *w, const GrInsn *in,
                           uint32_t exec)
{
    TGPUKernel *k = r->k;
    uint8_t *mem = in->op == TGPU_OP_LDC ? k->param : k->shared;
    uint32_t size = in->op == TGPU_OP_LDC ? k->param_size : k->shared_size;
    const uint32_t *ra = w->r[in->ra], *v = w->r[in->rd];
    uint32_t *addr = r->addr, bad = 0;

    for (int l = 0; l < W; l++) {
        addr[l] = ra[l] + in->imm32;
        bad |= ((addr[l] & 3) | (addr[l] > size - 4)) && (exec & (1u << l));
    }
    if (bad || size < 4) {
        return false;
    }
    if (in->op == TGPU_OP_STS) {
        for (int l = 0; l < W; l++) {
            if (exec & (1u << l)) {
                stl_le_p(mem + addr[l], v[l]);
            }
        }
        return true;
    }
    for (int l = 0; l < W; l++) {
        r->res[l] = exec & (1u << l) ? ldl_le_p(mem + addr[l]) : 0;
    }
    wr32(w, in->rd, r->res, exec);
    return true;
}

/*
 * Loads and stores lane by lane from lane FIRST on (lanes before it done,
 * the values they loaded in r->v64)
 */
static bool gr_mem(GrRun *r, GrWarp *w, const GrInsn *in, uint32_t exec,
                   int first)
{
    TGPUKernel *k = r->k;
    unsigned int len = width_bytes(in->sub);
    bool is_st = in->op == TGPU_OP_STG || in->op == TGPU_OP_STS;
    bool is_global = in->op == TGPU_OP_LDG || in->op == TGPU_OP_STG;
    uint64_t *v = r->v64;
    uint8_t buf[8];

    for (int l = first; l < W; l++) {
        uint64_t a;

        if (!((exec >> l) & 1)) {
            continue;
        }
        if (is_global) {
            a = rd64(w, in->ra, l) + (int64_t)(int32_t)in->imm32;
            /* the page the previous lane used: no translation needed */
            if (len == 4 && !(a & 3) && r->tlb_valid &&
                r->tlb_vpn == a >> TGPU_PAGE_SHIFT &&
                (r->tlb_write || !is_st)) {
                uint8_t *p = r->tlb_host + (a & (TGPU_PAGE_SIZE - 1));

                if (is_st) {
                    stl_le_p(p, w->r[in->rd][l]);
                } else {
                    v[l] = ldl_le_p(p);
                }
                continue;
            }
            if (is_st) {
                stq_le_p(buf, rd64(w, in->rd, l));
            }
            if (!gr_global(r, w, l, a, buf, len, is_st, -1, 0, 0)) {
                return false;
            }
        } else {
            uint8_t *mem = in->op == TGPU_OP_LDC ? k->param : k->shared;
            uint32_t size = in->op == TGPU_OP_LDC ? k->param_size
                                                   : k->shared_size;

            a = (uint32_t)(w->r[in->ra][l] + in->imm32);
            if (a % len) {
                return gr_error(r, w, TGPU_KERR_MISALIGNED, 1u << l, a, 0);
            }
            if (a + len > size) {
                return gr_error(r, w, in->op == TGPU_OP_LDC ?
                                TGPU_KERR_CONST : TGPU_KERR_SHARED,
                                1u << l, a, 0);
            }
            if (is_st) {
                stq_le_p(buf, rd64(w, in->rd, l));
                memcpy(mem + a, buf, len);
                continue;
            }
            memcpy(buf, mem + a, len);
        }
        if (!is_st) {
            v[l] = load_extend(buf, in->sub);
        }
    }
    if (!is_st) {
        if (len == 8) {
            wr64(w, in->rd, v, exec);
        } else {
            for (int l = 0; l < W; l++) {
                r->res[l] = v[l];
            }
            wr32(w, in->rd, r->res, exec);
        }
    }
    return true;
}

/*
 * 32-bit LDG and STG on every lane, all addresses aligned and in the page
 * of lane 0's: lane 0 translates, the others use the page it reached
 * (VRAM), or go lane by lane (system memory), as lane by lane would.
 * false (nothing done) when the lanes do not qualify; else *ok is false
 * when a lane faulted.
 */
static inline QEMU_ALWAYS_INLINE
bool gr_global32(GrRun *r, GrWarp *w, const GrInsn *in, bool *ok)
{
    const uint32_t *lo = w->r[in->ra], *hi = w->r[in->ra + 1];
    const uint32_t *v = w->r[in->rd];
    bool is_st = in->op == TGPU_OP_STG;
    int64_t imm = (int32_t)in->imm32;
    uint64_t page = ((uint64_t)hi[0] << 32 | lo[0]) + imm, bad = 0;
    uint32_t *off = r->addr, *d = w->r[in->rd];
    uint8_t buf[4];

    page &= ~(TGPU_PAGE_SIZE - 1);
    for (int l = 0; l < W; l++) {
        uint64_t o = ((uint64_t)hi[l] << 32 | lo[l]) + imm - page;

        off[l] = o;
        bad |= (o & 3) | (o >= TGPU_PAGE_SIZE);
    }
    if (bad) {
        return false;
    }
    stl_le_p(buf, v[0]);
    if (!gr_global(r, w, 0, page + off[0], buf, 4, is_st, -1, 0, 0)) {
        *ok = false;
        return true;
    }
    if (!r->tlb_valid) {
        /* system memory: the other lanes one by one */
        r->v64[0] = ldl_le_p(buf);
        *ok = gr_mem(r, w, in, ALL_LANES, 1);
        return true;
    }
    if (!is_st) {
        if (in->rd >= TGPU_NR_REGS) {
            return true;
        }
        w->shape[in->rd] = 0;
    }
    for (int h = 0; h < W; h += GROUP) {
        int kind = group_kind(off + h);
        uint8_t *p = r->tlb_host;

        if (kind != GROUP_SCATTERED) {
            if (is_st) {
                store32_group(p + off[h], v + h, kind);
            } else {
                load32_group(d + h, p + off[h], kind);
            }
            continue;
        }
        for (int l = h; l < h + GROUP; l++) {
            if (is_st) {
                stl_le_p(p + off[l], v[l]);
            } else {
                d[l] = ldl_le_p(p + off[l]);
            }
        }
    }
    return true;
}

/* LDG, STG, LDS, STS, LDC: the fast paths that apply, else lane by lane */
static inline QEMU_ALWAYS_INLINE
bool gr_ld_st(GrRun *r, GrWarp *w, const GrInsn *in, uint32_t exec)
{
    bool global = in->op == TGPU_OP_LDG || in->op == TGPU_OP_STG, ok = true;

    r->tlb_valid = false;
    if (in->sub == TGPU_W_32 && exec == ALL_LANES &&
        (global ? gr_global32(r, w, in, &ok) : gr_mem32_groups(r, w, in))) {
        return ok;
    }
    if (in->sub == TGPU_W_32 && !global && exec &&
        gr_mem32_local(r, w, in, exec)) {
        return true;
    }
    if (in->sub == TGPU_W_64 && exec == ALL_LANES && !global &&
        in->op != TGPU_OP_STS && gr_ld64_same(r, w, in)) {
        return true;
    }
    return !exec || gr_mem(r, w, in, exec, 0);
}

static bool gr_atom(GrRun *r, GrWarp *w, const GrInsn *in, uint32_t exec)
{
    TGPUKernel *k = r->k;
    uint32_t *v = r->res;

    for (int l = 0; l < W; l++) {
        uint32_t b = w->r[in->rb][l], c = w->r[in->rc][l];

        if (!((exec >> l) & 1)) {
            continue;
        }
        if (in->op == TGPU_OP_ATOMG) {
            uint64_t a = rd64(w, in->ra, l) + in->imm16;

            if (!gr_global(r, w, l, a, &v[l], 4, true, in->sub, b, c)) {
                return false;
            }
        } else {
            uint32_t a = w->r[in->ra][l] + in->imm16;

            if (a % 4) {
                return gr_error(r, w, TGPU_KERR_MISALIGNED, 1u << l, a, 0);
            }
            if ((uint64_t)a + 4 > k->shared_size) {
                return gr_error(r, w, TGPU_KERR_SHARED, 1u << l, a, 0);
            }
            /* shared memory is the CTA's own: lanes in turn are atomic */
            gr_atomic32((uint32_t *)(k->shared + a), &v[l], b, c, in->sub);
        }
    }
    wr32(w, in->rd, v, exec);
    return true;
}

/* res = EXPR, for each lane l; then rd = res on the lanes of exec */
#define LANES(expr) \
    do { \
        for (int l = 0; l < W; l++) { \
            res[l] = (expr); \
        } \
        wr32(w, in->rd, res, exec); \
    } while (0)

/*
 * rd = EXPR on the lanes of exec, EXPR a GrVec8 of a, b and c, eight
 * lanes of A, B and C: all lanes are computed before any is written, so
 * rd may be a source.
 */
#define VLANES(expr) \
    do { \
        GrVec8 v_[W / 8]; \
        \
        if (in->rd >= TGPU_NR_REGS) { \
            break; \
        } \
        for (int i_ = 0; i_ < W / 8; i_++) { \
            GrVec8 a = vec8_load(A + 8 * i_), b = vec8_load(B + 8 * i_); \
            GrVec8 c = vec8_load(C + 8 * i_); \
            \
            (void)a, (void)b, (void)c; \
            v_[i_] = (expr); \
        } \
        STORE8(v_); \
    } while (0)

/* The same for FADD, FSUB, FMUL, FFMA: with a NaN, lane by lane */
#define FLANES(expr) \
    do { \
        GrVec8 v_[W / 8], nan_ = { 0 }; \
        \
        for (int i_ = 0; i_ < W / 8; i_++) { \
            GrVec8 a = vec8_load(A + 8 * i_), b = vec8_load(B + 8 * i_); \
            GrVec8 c = vec8_load(C + 8 * i_); \
            \
            (void)a, (void)b, (void)c; \
            v_[i_] = (expr); \
            nan_ |= vec8_nans(v_[i_]); \
        } \
        if (unlikely(vec8_any(nan_))) { \
            LANES(float_lane(in->op, A[l], B[l], C[l])); \
        } else if (in->rd < TGPU_NR_REGS) { \
            STORE8(v_); \
        } \
    } while (0)

/* rd = the vectors V on the lanes of exec */
#define STORE8(v) \
    do { \
        uint32_t *d_ = w->r[in->rd]; \
        \
        w->shape[in->rd] = 0; \
        for (int i_ = 0; i_ < W / 8; i_++) { \
            GrVec8 s_ = (v)[i_]; \
            \
            if (exec != ALL_LANES) { \
                s_ = vec8_sel(vec8_lanes(exec >> (8 * i_)), s_, \
                              vec8_load(d_ + 8 * i_)); \
            } \
            vec8_store(d_ + 8 * i_, s_); \
        } \
    } while (0)

/*
 * ISETP, USETP, FSETP: pd = a cmp b on the lanes of exec (pd 7, PT,
 * discards), every comparison from three masks: a < b, a == b and
 * unordered (FSETP: a NaN, where only NE is true)
 */
static inline QEMU_ALWAYS_INLINE
void gr_setp(GrWarp *w, const GrInsn *in, uint32_t exec, const uint32_t *a,
             const uint32_t *b)
{
    uint32_t lt = 0, eq = 0, un = 0, m;

    if (in->op == TGPU_OP_FSETP) {
        for (int l = 0; l < W; l++) {
            lt |= (uint32_t)(f32(a[l]) < f32(b[l])) << l;
            eq |= (uint32_t)(f32(a[l]) == f32(b[l])) << l;
            un |= (uint32_t)isunordered(f32(a[l]), f32(b[l])) << l;
        }
    } else {
        for (int l = 0; l < W; l++) {
            lt |= (uint32_t)(in->op == TGPU_OP_ISETP
                             ? (int32_t)a[l] < (int32_t)b[l]
                             : a[l] < b[l]) << l;
            eq |= (uint32_t)(a[l] == b[l]) << l;
        }
    }
    switch (in->sub) {
    case TGPU_CMP_EQ:
        m = eq;
        break;
    case TGPU_CMP_NE:
        m = ~eq;
        break;
    case TGPU_CMP_LT:
        m = lt;
        break;
    case TGPU_CMP_LE:
        m = lt | eq;
        break;
    case TGPU_CMP_GT:
        m = ~(lt | eq | un);
        break;
    default:
        m = ~(lt | un);
        break;
    }
    if (in->rd < TGPU_PRED_PT) {
        w->p[in->rd] = (w->p[in->rd] & ~exec) | (m & exec);
    }
}

/*
 * Run warp W until it exits, waits, sleeps, or the budget ends.  This is
 * compiled twice, for any host and for hosts with AVX2 and FMA (see
 * gr_warp), so that the lane loops use the widest vectors there are; the
 * counters and the PC live in locals (w->pc is stored for each
 * instruction, for the errors) until it returns.
 */
static inline QEMU_ALWAYS_INLINE bool gr_warp_body(GrRun *r, GrWarp *w)
{
    TGPUKernel *k = r->k;
    const GrInsn *code = k->code;
    uint32_t ninsns = k->ninsns, pc = w->pc, *res = r->res, *hi = r->hi;
    uint64_t budget = r->budget, lane_ops = 0, n;
    bool ok = true;

    while (budget) {
        const GrInsn *in;
        const uint32_t *A, *B, *C;
        uint32_t exec;

        w->pc = pc;
        if (unlikely(pc >= ninsns)) {
            ok = gr_error(r, w, TGPU_KERR_PC, w->active, 0, pc);
            goto out;
        }
        in = &code[pc];
        exec = w->active & (w->p[in->pg] ^ -(uint32_t)in->pgneg);
        budget--;
        lane_ops += exec == ALL_LANES ? W : ctpop32(exec);
        A = w->r[in->ra];
        B = w->r[in->rb];
        C = w->r[in->rc];
        if (in->bimm) {
            uint32_t imm = in->imm32;

            if (r->bsplat[0] != imm || r->bsplat[W - 1] != imm) {
                for (int l = 0; l < W; l++) {
                    r->bsplat[l] = imm;
                }
            }
            B = r->bsplat;
        }

        switch (in->op) {
        case TGPU_OP_NOP:
            break;
        case TGPU_OP_EXIT:
            w->live &= ~exec;
            w->active &= ~exec;
            if (w->active) {
                break;
            }
            /* fall through: no lane left on this path */
        case TGPU_OP_SYNC:
            ok = simt_pop(r, w);
            if (!ok || w->state != WARP_RUN) {
                goto out;
            }
            pc = w->pc;
            continue;
        case TGPU_OP_TRAP:
            if (exec) {
                ok = gr_error(r, w, TGPU_KERR_TRAP, exec, 0, in->imm32);
                goto out;
            }
            break;
        case TGPU_OP_BRA:
            if (exec == w->active) {
                pc = in->imm32;
                continue;
            }
            if (exec) {
                ok = simt_push(r, w, pc + 1, w->active & ~exec, SIMT_DIV);
                if (!ok) {
                    goto out;
                }
                w->active = exec;
                pc = in->imm32;
                continue;
            }
            break;
        case TGPU_OP_SSY:
            ok = simt_push(r, w, in->imm32, w->active, SIMT_SSY);
            if (!ok) {
                goto out;
            }
            break;
        case TGPU_OP_BAR:
            if (!exec) {
                break;
            }
            w->pc = pc + 1;
            w->state = WARP_BAR;
            w->bar = in->imm32;
            goto out;
        case TGPU_OP_NANOSLEEP:
            if (!exec) {
                break;
            }
            w->pc = pc + 1;
            w->state = WARP_SLEEP;
            goto out;
        case TGPU_OP_S2R:
            gr_s2r(r, w, in->imm32, k->cycles + r->budget - budget, res);
            wr32(w, in->rd, res, exec);
            break;
        case TGPU_OP_MOV:
            VLANES(b);
            break;
        case TGPU_OP_IADD:
            VLANES(a + b);
            break;
        case TGPU_OP_ISUB:
            VLANES(a - b);
            break;
        case TGPU_OP_IMUL:
            VLANES(a * b);
            break;
        case TGPU_OP_IMIN:
            LANES(MIN((int32_t)A[l], (int32_t)B[l]));
            break;
        case TGPU_OP_IMAX:
            LANES(MAX((int32_t)A[l], (int32_t)B[l]));
            break;
        case TGPU_OP_UMIN:
            LANES(MIN(A[l], B[l]));
            break;
        case TGPU_OP_UMAX:
            LANES(MAX(A[l], B[l]));
            break;
        case TGPU_OP_SHL:
            LANES(B[l] >= 32 ? 0 : A[l] << B[l]);
            break;
        case TGPU_OP_SHR:
            LANES(B[l] >= 32 ? 0 : A[l] >> B[l]);
            break;
        case TGPU_OP_SAR:
            LANES((int32_t)A[l] >> MIN(B[l], 31u));
            break;
        case TGPU_OP_AND:
            VLANES(a & b);
            break;
        case TGPU_OP_OR:
            VLANES(a | b);
            break;
        case TGPU_OP_XOR:
            VLANES(a ^ b);
            break;
        case TGPU_OP_NOT:
            VLANES(~a);
            break;
        case TGPU_OP_IMAD:
            VLANES(a * b + c);
            break;
        case TGPU_OP_IMADW: {
            /* 64-bit pairs as halves: a * b + c.lo fits in 64 bits */
            const uint32_t *ch = w->r[in->rc + 1];

            for (int l = 0; l < W; l++) {
                uint64_t p = (uint64_t)A[l] * B[l] + C[l];

                res[l] = p;
                hi[l] = (p >> 32) + ch[l];
            }
            wr32(w, in->rd, res, exec);
            wr32(w, in->rd + 1, hi, exec);
            break;
        }
        case TGPU_OP_IADD64: {
            /* B's high half: rb's (RZ's with an immediate), its sign */
            const uint32_t *ah = w->r[in->ra + 1], *bh = w->r[in->rb + 1];
            uint32_t sx = in->bimm ? -(in->imm32 >> 31) : 0;

            for (int l = 0; l < W; l++) {
                res[l] = A[l] + B[l];
                hi[l] = ah[l] + bh[l] + sx + (res[l] < A[l]);
            }
            wr32(w, in->rd, res, exec);
            wr32(w, in->rd + 1, hi, exec);
            break;
        }
        case TGPU_OP_ISETP:
        case TGPU_OP_USETP:
        case TGPU_OP_FSETP:
            gr_setp(w, in, exec, A, B);
            break;
        case TGPU_OP_SEL:
            LANES(w->p[in->sub] & (1u << l) ? A[l] : B[l]);
            break;
        case TGPU_OP_PLOP: {
            uint32_t a = w->p[in->ra], b = w->p[in->rb], m;

            a = in->imm16 & TGPU_PLOP_NEG_A ? ~a : a;
            b = in->imm16 & TGPU_PLOP_NEG_B ? ~b : b;
            m = in->sub == TGPU_PLOP_AND ? a & b :
                in->sub == TGPU_PLOP_OR ? a | b : a ^ b;
            if (in->rd < TGPU_PRED_PT) {
                w->p[in->rd] = (w->p[in->rd] & ~exec) | (m & exec);
            }
            break;
        }
        case TGPU_OP_FADD:
            FLANES(vec8_fadd(a, b));
            break;
        case TGPU_OP_FSUB:
            FLANES(vec8_fsub(a, b));
            break;
        case TGPU_OP_FMUL:
            FLANES(vec8_fmul(a, b));
            break;
        case TGPU_OP_FMIN:
            LANES(fminmax(A[l], B[l], false));
            break;
        case TGPU_OP_FMAX:
            LANES(fminmax(A[l], B[l], true));
            break;
        case TGPU_OP_FFMA:
            FLANES(vec8_ffma(a, b, c));
            break;
        case TGPU_OP_FABS:
            VLANES(a & 0x7fffffffu);
            break;
        case TGPU_OP_FNEG:
            VLANES(a ^ 0x80000000u);
            break;
        case TGPU_OP_I2F:
            LANES(u32f((float)(int32_t)A[l]));
            break;
        case TGPU_OP_U2F:
            LANES(u32f((float)A[l]));
            break;
        case TGPU_OP_F2I:
            LANES(f2i(f32(A[l]), false));
            break;
        case TGPU_OP_F2U:
            LANES(f2i(f32(A[l]), true));
            break;
        case TGPU_OP_LDG:
        case TGPU_OP_STG:
            /* an invalidation waits for this instruction's accesses */
            qemu_mutex_lock(&r->gr->e.run_lock);
            ok = gr_ld_st(r, w, in, exec);
            qemu_mutex_unlock(&r->gr->e.run_lock);
            if (!ok) {
                goto out;
            }
            break;
        case TGPU_OP_LDS:
        case TGPU_OP_STS:
        case TGPU_OP_LDC:
            ok = gr_ld_st(r, w, in, exec);
            if (!ok) {
                goto out;
            }
            break;
        case TGPU_OP_ATOMG:
        case TGPU_OP_ATOMS:
            r->tlb_valid = false;
            if (in->op == TGPU_OP_ATOMG) {
                qemu_mutex_lock(&r->gr->e.run_lock);
            }
            ok = !exec || gr_atom(r, w, in, exec);
            if (in->op == TGPU_OP_ATOMG) {
                qemu_mutex_unlock(&r->gr->e.run_lock);
            }
            if (!ok) {
                goto out;
            }
            break;
        default:
            ok = gr_error(r, w, TGPU_KERR_ILLEGAL_INSN, w->active, 0, pc);
            goto out;
        }
        pc++;
    }
    w->pc = pc;
out:
    n = r->budget - budget;
    r->budget = budget;
    r->warp_insns += n;
    r->lane_ops += lane_ops;
    k->cycles += n;
    return ok;
}

#undef LANES
#undef VLANES
#undef FLANES
#undef STORE8

/* fp-contract=off: the host must round each operation as the ISA does */
__attribute__((optimize("O3", "fp-contract=off")))
static bool gr_warp_generic(GrRun *r, GrWarp *w)
{
    return gr_warp_body(r, w);
}

#ifdef HOST_X86_64
__attribute__((optimize("O3", "fp-contract=off")))
__attribute__((target("avx2,fma,popcnt")))
static bool gr_warp_avx2(GrRun *r, GrWarp *w)
{
    return gr_warp_body(r, w);
}
#endif

/* gr_warp_generic, or the build of the host's best vector unit */
static bool (*gr_warp)(GrRun *r, GrWarp *w) = gr_warp_generic;

/* ---- CTAs and the kernel ------------------------------------------------- */

static uint32_t cta_threads(TGPUKernel *k)
{
    return k->block[0] * k->block[1] * k->block[2];
}

static void cta_start(TGPUKernel *k)
{
    uint32_t threads = cta_threads(k);

    k->nwarps = DIV_ROUND_UP(threads, W);
    k->cur_warp = 0;
    memset(k->shared, 0, k->shared_size);
    for (uint32_t i = 0; i < k->nwarps; i++) {
        GrWarp *w = &k->warps[i];
        uint32_t n = MIN(threads - i * W, W);

        /* the rows no instruction writes are still zero */
        memset(w, 0, offsetof(GrWarp, r));
        memset(w->r, 0, k->rows * sizeof(w->r[0]));
        memset(w->shape, 0, sizeof(w->shape));
        w->exists = n == W ? ALL_LANES : (1u << n) - 1;
        w->live = w->active = w->exists;
        w->p[TGPU_PRED_PT] = ALL_LANES;
        w->state = WARP_RUN;
    }
}

/*
 * Run the CTA in progress until it ends, fails or the budget is spent.
 * Returns false on an error; *done when the CTA finished.
 */
static bool cta_run(GrRun *r, bool *done)
{
    TGPUKernel *k = r->k;

    *done = false;
    while (r->budget) {
        uint32_t alive = 0, at_bar = 0;
        GrWarp *first = NULL;
        bool same = true;

        for (uint32_t n = 0; n < k->nwarps && r->budget; n++) {
            GrWarp *w = &k->warps[k->cur_warp];

            if (w->state == WARP_SLEEP) {
                w->state = WARP_RUN;
            }
            if (w->state == WARP_RUN && !gr_warp(r, w)) {
                return false;
            }
            if (w->state == WARP_RUN) {
                return true;    /* the budget ended inside this warp */
            }
            k->cur_warp = (k->cur_warp + 1) % k->nwarps;
        }
        for (uint32_t i = 0; i < k->nwarps; i++) {
            GrWarp *w = &k->warps[i];

            if (w->state == WARP_EXITED) {
                continue;
            }
            alive++;
            if (w->state == WARP_BAR) {
                first = first ? first : w;
                same = same && w->bar == first->bar;
                at_bar++;
            }
        }
        if (!alive) {
            *done = true;
            return true;
        }
        if (at_bar == alive) {
            if (!same) {
                /* every warp waits, not all at one barrier: none goes on */
                gr_error(r, first, TGPU_KERR_BARRIER, first->active, 0,
                         first->bar);
                k->err_pc = first->pc - 1;
                return false;
            }
            for (uint32_t i = 0; i < k->nwarps; i++) {
                if (k->warps[i].state == WARP_BAR) {
                    k->warps[i].state = WARP_RUN;
                }
            }
        }
    }
    return true;
}

static bool gr_fetch(GrRun *r)
{
    TGPUKernel *k = r->k;
    TGPUState *s = r->gr->e.s;
    g_autofree uint64_t *raw = g_new(uint64_t, k->ninsns);
    uint64_t done = 0, len = (uint64_t)k->ninsns * TGPU_INSN_SIZE;

    while (done < len) {
        uint64_t pa, n;
        bool sysmem;
        int fault;

        QEMU_LOCK_GUARD(&r->gr->e.run_lock);
        fault = tgpu_mmu_translate_run(s, &k->vm, TGPU_ACC_COMPUTE,
                                       k->prog_va + done, len - done, false,
                                       &pa, &sysmem, &n);
        if (!fault && sysmem &&
            !tgpu_sysmem_rw(s, pa, (uint8_t *)raw + done, n, false)) {
            fault = TGPU_FAULT_BAD_APERTURE;
        }
        if (fault) {
            k->fault_type = fault;
            k->fault_write = false;
            return gr_error(r, NULL, TGPU_KERR_PROGRAM_FAULT, 0,
                            k->prog_va + done, 0);
        }
        if (!sysmem) {
            memcpy((uint8_t *)raw + done,
                   s->vram_ptr + pa, n);
        }
        done += n;
    }
    k->code = g_new(GrInsn, k->ninsns);
    for (uint32_t i = 0; i < k->ninsns; i++) {
        GrInsn *d = &k->code[i];
        unsigned int fmt;

        *d = gr_decode(le64_to_cpu(raw[i]));
        fmt = gr_ops[d->op].fmt;
        if (d->op != OP_ILLEGAL && fmt != TGPU_FMT_SETP &&
            fmt != TGPU_FMT_PLOP && d->rd < TGPU_NR_REGS) {
            k->rows = MAX(k->rows, d->rd + 2u);     /* a pair, perhaps */
        }
    }
    k->warps = g_new0(GrWarp, DIV_ROUND_UP(cta_threads(k), W));
    k->shared = g_malloc0(MAX(k->shared_size, 1));
    cta_start(k);
    return true;
}

/* Between steps (see tgpu_engine_checkpoint); false: cancelled. */
static bool gr_checkpoint(GrRun *r)
{
    return tgpu_engine_checkpoint(&r->gr->e);
}

/* Run K for one slice.  Returns true when the kernel ended (or failed). */
static bool gr_run(GrRun *r)
{
    TGPUKernel *k = r->k;

    if (!k->code && !gr_fetch(r)) {
        return true;
    }
    while (r->budget) {
        /* run a step of the slice, then look at cancel and VM stop */
        uint64_t rest = r->budget - MIN(r->budget, GR_CHECK_EVERY);
        bool ok, done;

        r->budget -= rest;
        ok = cta_run(r, &done);
        r->budget += rest;
        if (!ok) {
            return true;
        }
        if (done) {
            if (++k->cta == k->ncta) {
                return true;
            }
            cta_start(k);
        }
        if (!gr_checkpoint(r)) {
            return false;
        }
    }
    return false;
}

/* The engine's thread: run the queued kernel for a slice. */
static void gr_engine_run(TGPUEngine *e)
{
    TGPUComputeEngine *gr = gr_of(e);
    GrRun *r = &gr->run;

    memset(r, 0, sizeof(*r));
    r->gr = gr;
    r->k = gr->k;
    r->budget = gr->slice_insns;
    r->vram = memory_region_get_ram_ptr(&e->s->vram);
    trace_tgpu_gr_slice(r->k->vm.chid, r->k->cta, r->budget);
    gr->run_finished = gr_run(r);
}

/* Under e->lock, on the thread: the counters, at the end how it ended. */
static void gr_engine_publish(TGPUEngine *e, bool end, bool cancelled)
{
    TGPUComputeEngine *gr = gr_of(e);
    GrRun *r = &gr->run;

    gr->warp_insns += r->warp_insns;
    gr->lane_ops += r->lane_ops;
    r->warp_insns = 0;
    r->lane_ops = 0;
    if (end && !cancelled) {
        gr->finished = gr->run_finished;
    }
}

/* ---- under the BQL ------------------------------------------------------- */

static void gr_kernel_free(TGPUKernel *k)
{
    if (k) {
        g_free(k->code);
        g_free(k->warps);
        g_free(k->shared);
        g_free(k);
    }
}

/* Under the BQL: the slice ended, and perhaps the kernel. */
static void gr_engine_done(TGPUEngine *e)
{
    TGPUComputeEngine *gr = gr_of(e);
    TGPUState *s = e->s;
    TGPUChannel *ch;
    TGPUKernel *k;
    bool finished;

    WITH_QEMU_LOCK_GUARD(&e->lock) {
        k = gr->k;
        gr->k = NULL;
        finished = gr->finished;
        if (finished) {
            gr->error = k->error;
            gr->err_pc = k->err_pc;
            gr->err_cta = k->err_cta;
            gr->err_warp = k->err_warp;
            gr->err_lane = k->err_lane;
            gr->err_va = k->err_va;
            gr->err_info = k->err_info;
        } else {
            gr->preempts++;
        }
    }
    ch = &s->chan[k->vm.chid];
    if (!finished) {
        /* the slice is over: the host unit resumes it in its turn */
        tgpu_host_kick(s);
        return;
    }
    ch->gr_kernel = NULL;
    if (k->error) {
        if (k->error == TGPU_KERR_MMU_FAULT ||
            (k->error == TGPU_KERR_PROGRAM_FAULT && k->fault_type)) {
            tgpu_mmu_report_fault(s, &k->vm, e->fault_engine,
                                  k->err_va, k->fault_write, k->fault_type);
        }
        qemu_log_mask(LOG_GUEST_ERROR,
                      "tgpu: compute: channel %u: kernel failed: %s at PC "
                      "%u, CTA %" PRIu64 ", warp %u, lane %u, address 0x%"
                      PRIx64 ", info 0x%x\n", k->vm.chid,
                      tgpu_kerr_meaning(k->error), k->err_pc, k->err_cta,
                      k->err_warp, k->err_lane, k->err_va, k->err_info);
        tgpu_chan_fail(s, ch, TGPU_ERR_COMPUTE, k->error);
    } else {
        tgpu_launch_done(s, ch, k->launch, k->sem_addr, k->sem_payload);
    }
    gr_kernel_free(k);
    tgpu_host_kick(s);
}

/* Hand CH's kernel to the engine for a slice.  The engine must be idle. */
static void gr_start(TGPUState *s, TGPUChannel *ch)
{
    TGPUComputeEngine *gr = s->gr;
    /* modelled time: one warp instruction per SM clock cycle */
    uint64_t khz = (uint64_t)s->model->clk_sm_boost_mhz * 1000;

    WITH_QEMU_LOCK_GUARD(&gr->e.lock) {
        gr->k = ch->gr_kernel;
        gr->chid = ch->id;
        gr->slice_insns = MAX(ch->timeslice_ns * khz / 1000000, 1);
    }
    tgpu_engine_queue(&gr->e, ch->id);
}

/* A kernel whose slice ended goes on before anything after it. */
static bool gr_engine_resume(TGPUEngine *e, TGPUChannel *ch)
{
    if (!ch->gr_kernel || ch->engine_wait) {
        return false;
    }
    gr_start(e->s, ch);
    return true;
}

static bool gr_engine_holds(TGPUEngine *e, TGPUChannel *ch)
{
    return ch->gr_kernel;
}

static uint32_t gr_launch_check(TGPUChannel *ch, uint32_t launch)
{
    uint64_t threads = (uint64_t)ch->gr_block[0] * ch->gr_block[1] *
                       ch->gr_block[2];

    if ((launch & ~TGPU_GR_LAUNCH_VALID_MASK) ||
        ((launch >> TGPU_CE_LAUNCH_SEM_SHIFT) &
         TGPU_CE_LAUNCH_SEM_MASK) == 3 ||
        ((launch >> TGPU_CE_LAUNCH_INTR_SHIFT) &
         TGPU_CE_LAUNCH_INTR_MASK) == 3 || (launch & 7)) {
        return TGPU_KERR_LAUNCH;
    }
    for (int i = 0; i < 3; i++) {
        if (!ch->gr_grid[i] || ch->gr_grid[i] > TGPU_GR_GRID_MAX ||
            !ch->gr_block[i]) {
            return TGPU_KERR_LAUNCH;
        }
    }
    if (threads > TGPU_GR_BLOCK_MAX || !ch->gr_prog_size ||
        ch->gr_prog_size % TGPU_INSN_SIZE ||
        ch->gr_prog_size > TGPU_GR_PROGRAM_MAX || ch->gr_prog_lower % 8 ||
        ch->gr_shared > TGPU_GR_SHARED_MAX ||
        ch->gr_param_size > TGPU_GR_PARAM_MAX || ch->gr_param_size % 4) {
        return TGPU_KERR_LAUNCH;
    }
    return TGPU_KERR_NONE;
}

static TGPUMethodResult gr_launch(TGPUState *s, TGPUChannel *ch,
                                  uint32_t launch)
{
    TGPUComputeEngine *gr = s->gr;
    uint32_t err = gr_launch_check(ch, launch);
    uint64_t param_va = (uint64_t)(ch->gr_param_upper & TGPU_CE_UPPER_MASK)
                        << 32 | ch->gr_param_lower;
    TGPUKernel *k;

    WITH_QEMU_LOCK_GUARD(&gr->e.lock) {
        gr->launches++;
        gr->chid = ch->id;
        gr->error = err;
    }
    if (err) {
        qemu_log_mask(LOG_GUEST_ERROR, "tgpu: compute: channel %u: LAUNCH "
                      "0x%08x refused: grid, block, program, shared or "
                      "parameter size out of range\n", ch->id, launch);
        tgpu_chan_fail(s, ch, TGPU_ERR_COMPUTE, err);
        return TGPU_MTHD_ERROR;
    }
    k = g_new0(TGPUKernel, 1);
    k->vm = tgpu_chan_vm(ch);
    k->launch = launch;
    k->prog_va = (uint64_t)(ch->gr_prog_upper & TGPU_CE_UPPER_MASK) << 32 |
                 ch->gr_prog_lower;
    k->ninsns = ch->gr_prog_size / TGPU_INSN_SIZE;
    memcpy(k->grid, ch->gr_grid, sizeof(k->grid));
    memcpy(k->block, ch->gr_block, sizeof(k->block));
    k->ncta = (uint64_t)k->grid[0] * k->grid[1] * k->grid[2];
    k->shared_size = ch->gr_shared;
    k->param_size = ch->gr_param_size;
    k->sem_addr = (uint64_t)(ch->gr_sem_a & TGPU_CE_UPPER_MASK) << 32 |
                  ch->gr_sem_b;
    k->sem_payload = ch->gr_sem_payload;
    /* the parameters are read at launch, as a constant bank upload */
    if (k->param_size &&
        tgpu_gpu_rw(s, ch, TGPU_ACC_FETCH, param_va, k->param,
                    k->param_size, false)) {
        g_free(k);
        WITH_QEMU_LOCK_GUARD(&gr->e.lock) {
            gr->error = TGPU_KERR_CONST;
            gr->err_pc = gr->err_warp = gr->err_lane = gr->err_info = 0;
            gr->err_cta = 0;
            gr->err_va = param_va;
        }
        qemu_log_mask(LOG_GUEST_ERROR, "tgpu: compute: channel %u: "
                      "parameters at 0x%010" PRIx64 " unreachable\n",
                      ch->id, param_va);
        tgpu_chan_fail(s, ch, TGPU_ERR_COMPUTE, TGPU_KERR_CONST);
        return TGPU_MTHD_ERROR;
    }
    trace_tgpu_gr_launch(ch->id, k->prog_va, k->ninsns, k->ncta,
                         k->block[0] * k->block[1] * k->block[2]);
    ch->gr_kernel = k;
    gr_start(s, ch);
    return TGPU_MTHD_LAUNCHED;
}

static TGPUMethodResult gr_engine_method(TGPUEngine *e, TGPUChannel *ch,
                                        uint32_t mthd, uint32_t data)
{
    TGPUState *s = e->s;

    switch (mthd) {
    case TGPU_GR_M_NOP:
        return TGPU_MTHD_OK;
    case TGPU_GR_M_SET_PROGRAM_UPPER:
        ch->gr_prog_upper = data;
        return TGPU_MTHD_OK;
    case TGPU_GR_M_SET_PROGRAM_LOWER:
        ch->gr_prog_lower = data;
        return TGPU_MTHD_OK;
    case TGPU_GR_M_SET_PROGRAM_SIZE:
        ch->gr_prog_size = data;
        return TGPU_MTHD_OK;
    case TGPU_GR_M_SET_GRID_X:
    case TGPU_GR_M_SET_GRID_Y:
    case TGPU_GR_M_SET_GRID_Z:
        ch->gr_grid[(mthd - TGPU_GR_M_SET_GRID_X) / 4] = data;
        return TGPU_MTHD_OK;
    case TGPU_GR_M_SET_BLOCK_X:
    case TGPU_GR_M_SET_BLOCK_Y:
    case TGPU_GR_M_SET_BLOCK_Z:
        ch->gr_block[(mthd - TGPU_GR_M_SET_BLOCK_X) / 4] = data;
        return TGPU_MTHD_OK;
    case TGPU_GR_M_SET_SHARED_SIZE:
        ch->gr_shared = data;
        return TGPU_MTHD_OK;
    case TGPU_GR_M_SET_PARAM_UPPER:
        ch->gr_param_upper = data;
        return TGPU_MTHD_OK;
    case TGPU_GR_M_SET_PARAM_LOWER:
        ch->gr_param_lower = data;
        return TGPU_MTHD_OK;
    case TGPU_GR_M_SET_PARAM_SIZE:
        ch->gr_param_size = data;
        return TGPU_MTHD_OK;
    case TGPU_GR_M_SET_SEMAPHORE_A:
        ch->gr_sem_a = data;
        return TGPU_MTHD_OK;
    case TGPU_GR_M_SET_SEMAPHORE_B:
        ch->gr_sem_b = data;
        return TGPU_MTHD_OK;
    case TGPU_GR_M_SET_SEMAPHORE_PAYLOAD:
        ch->gr_sem_payload = data;
        return TGPU_MTHD_OK;
    case TGPU_GR_M_LAUNCH:
        return gr_launch(s, ch, data);
    }
    tgpu_chan_fail(s, ch, TGPU_ERR_ENGINE,
                   (uint32_t)TGPU_CLASS_COMPUTE << 16 | mthd);
    return TGPU_MTHD_ERROR;
}

/* The kernel on the engine was dropped: it stays the channel's. */
static void gr_engine_cancelled(TGPUEngine *e, int chid)
{
    TGPUComputeEngine *gr = gr_of(e);

    if (gr->k) {
        trace_tgpu_gr_cancel(gr->k->vm.chid);
    }
    gr->k = NULL;
}

/* The channel goes away: its kernel too, run or waiting for a slice. */
static void gr_engine_forget(TGPUEngine *e, TGPUChannel *ch)
{
    gr_kernel_free(ch->gr_kernel);
    ch->gr_kernel = NULL;
}

static const TGPUEngineOps gr_engine_ops = {
    .cls = TGPU_CLASS_COMPUTE,
    .method = gr_engine_method,
    .run = gr_engine_run,
    .publish = gr_engine_publish,
    .done = gr_engine_done,
    .cancelled = gr_engine_cancelled,
    .holds = gr_engine_holds,
    .resume = gr_engine_resume,
    .forget = gr_engine_forget,
};

uint32_t tgpu_gr_read(TGPUState *s, hwaddr addr, bool *ok)
{
    TGPUComputeEngine *gr = s->gr;

    QEMU_LOCK_GUARD(&gr->e.lock);
    *ok = true;
    switch (addr) {
    case TGPU_GR_STATUS:
        return gr->e.state != TGPU_ENGINE_IDLE ? TGPU_GR_STATUS_BUSY : 0;
    case TGPU_GR_CHID:
        return gr->chid;
    case TGPU_GR_LAUNCHES:
        return gr->launches;
    case TGPU_GR_ERROR:
        return gr->error;
    case TGPU_GR_ERROR_PC:
        return gr->err_pc;
    case TGPU_GR_ERROR_CTA:
        return gr->err_cta;
    case TGPU_GR_ERROR_WARP:
        return gr->err_warp;
    case TGPU_GR_ERROR_LANE:
        return gr->err_lane;
    case TGPU_GR_ERROR_VA_LO:
        return gr->err_va;
    case TGPU_GR_ERROR_VA_HI:
        return gr->err_va >> 32;
    case TGPU_GR_ERROR_INFO:
        return gr->err_info;
    case TGPU_GR_WARP_INSNS_LO:
        return gr->warp_insns;
    case TGPU_GR_WARP_INSNS_HI:
        return gr->warp_insns >> 32;
    case TGPU_GR_LANE_OPS_LO:
        return gr->lane_ops;
    case TGPU_GR_LANE_OPS_HI:
        return gr->lane_ops >> 32;
    case TGPU_GR_PREEMPTS:
        return gr->preempts;
    case TGPU_GR_CLOCK_KHZ:
        return s->model->clk_sm_boost_mhz * 1000;
    }
    *ok = false;
    return TGPU_REG_BADF;
}

void tgpu_gr_reset(TGPUState *s)
{
    TGPUComputeEngine *gr = s->gr;

    tgpu_engine_reset(&gr->e);
    for (uint32_t i = 0; i < s->num_channels; i++) {
        gr_kernel_free(s->chan[i].gr_kernel);
        s->chan[i].gr_kernel = NULL;
        s->chan[i].engine_wait = false;
    }
    QEMU_LOCK_GUARD(&gr->e.lock);
    gr->chid = 0xffffffff;
    gr->launches = 0;
    gr->preempts = 0;
    gr->warp_insns = 0;
    gr->lane_ops = 0;
    gr->error = 0;
    gr->err_pc = gr->err_warp = gr->err_lane = gr->err_info = 0;
    gr->err_cta = gr->err_va = 0;
}

void tgpu_gr_init(TGPUState *s)
{
    TGPUComputeEngine *gr = g_new0(TGPUComputeEngine, 1);

#ifdef HOST_X86_64
    if (__builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma") &&
        __builtin_cpu_supports("popcnt")) {
        gr_warp = gr_warp_avx2;
    }
#endif
    s->gr = gr;
    gr->chid = 0xffffffff;
    tgpu_engine_init(&gr->e, s, &gr_engine_ops, "compute", "tgpu-compute",
                     TGPU_RUNLIST_COMPUTE, TGPU_ENGINE_COMPUTE,
                     TGPU_FAULT_ENGINE_COMPUTE, s->gr_thread_ctx);
    s->engine[TGPU_RUNLIST_COMPUTE] = &gr->e;
}

void tgpu_gr_exit(TGPUState *s)
{
    TGPUComputeEngine *gr = s->gr;

    tgpu_engine_exit(&gr->e);
    for (uint32_t i = 0; i < s->num_channels; i++) {
        gr_kernel_free(s->chan[i].gr_kernel);
    }
    g_free(gr);
}
