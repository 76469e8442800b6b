/*
 * tgpu SIMT executor: CTAs one after another, the run loop, and the
 * slow paths of memory access
 *
 * A run executes the CTA in progress, its warps in turn (a warp runs
 * until it exits, waits at a barrier or sleeps; tgpu-simt-warp.c runs
 * it), for a budget of warp instructions, one per modelled SM clock
 * cycle.  Global memory goes through GrMemOps; shared memory and the
 * parameters are the kernel's own.  See tgpu-simt.h.
 *
 * Copyright (c) 2026 The tgpu authors
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */

/* Builds without QEMU (see tgpu-simt.h): no qemu/osdep.h. */
#include <fenv.h>
#include <math.h>
#include "tgpu-simt.h"

/* ---- memory -------------------------------------------------------------- */

bool simt_error(GrRun *r, GrWarp *w, uint32_t err, uint32_t lanes,
                uint64_t va, uint32_t info)
{
    GrKernel *k = r->k;

    k->error = err;
    k->err_pc = w ? w->pc : 0;
    k->err_cta = k->cta;
    k->err_warp = w ? w - k->warps : 0;
    k->err_lane = lanes ? __builtin_ctz(lanes) : 0;
    k->err_va = va;
    k->err_info = info;
    return false;
}

/* QEMU's qatomic_cmpxchg(): the old value */
static uint32_t cmpxchg32(uint32_t *p, uint32_t old, uint32_t new)
{
    __atomic_compare_exchange_n(p, &old, new, false, __ATOMIC_SEQ_CST,
                                __ATOMIC_SEQ_CST);
    return old;
}

void simt_atomic32(uint32_t *p, uint32_t *io, uint32_t b, uint32_t c,
                   unsigned int op)
{
    uint32_t old, want;

    switch (op) {
    case TGPU_ATOM_ADD:
        *io = __atomic_fetch_add(p, b, __ATOMIC_SEQ_CST);
        return;
    case TGPU_ATOM_AND:
        *io = __atomic_fetch_and(p, b, __ATOMIC_SEQ_CST);
        return;
    case TGPU_ATOM_OR:
        *io = __atomic_fetch_or(p, b, __ATOMIC_SEQ_CST);
        return;
    case TGPU_ATOM_XOR:
        *io = __atomic_fetch_xor(p, b, __ATOMIC_SEQ_CST);
        return;
    case TGPU_ATOM_EXCH:
        *io = __atomic_exchange_n(p, GUINT32_TO_LE(b), __ATOMIC_SEQ_CST);
        *io = GUINT32_FROM_LE(*io);
        return;
    case TGPU_ATOM_CAS:
        *io = GUINT32_FROM_LE(cmpxchg32(p, GUINT32_TO_LE(b),
                                        GUINT32_TO_LE(c)));
        return;
    }
    /* MIN, MAX (signed) */
    old = __atomic_load_n(p, __ATOMIC_RELAXED);
    for (;;) {
        int32_t o = GUINT32_FROM_LE(old);

        want = op == TGPU_ATOM_MIN ? MIN(o, (int32_t)b) : MAX(o, (int32_t)b);
        want = cmpxchg32(p, old, GUINT32_TO_LE(want));
        if (want == old) {
            break;
        }
        old = want;
    }
    *io = GUINT32_FROM_LE(old);
}

/*
 * LEN (at most 8, naturally aligned) bytes at global address VA: copy to
 * or from BUF, or apply an atomic with fn.  Faults are recorded in the
 * kernel; returns false then.
 */
bool simt_global(GrRun *r, GrWarp *w, uint32_t lane, uint64_t va,
                 void *buf, unsigned int len, bool is_write,
                 int atomic, uint32_t b, uint32_t c)
{
    uint64_t vpn = va >> TGPU_PAGE_SHIFT;
    uint8_t *page, *p;
    int fault;

    if (va % len) {
        return simt_error(r, w, TGPU_KERR_MISALIGNED, 1u << lane, va, 0);
    }
    if (!(r->tlb_valid && r->tlb_vpn == vpn && (r->tlb_write || !is_write))) {
        r->translations++;
        fault = r->ops->global(r->opaque, va, len, is_write, &page, buf,
                               atomic, b, c);
        if (fault == GR_MEM_ECC) {
            return simt_error(r, w, TGPU_KERR_ECC, 1u << lane, va, 0);
        }
        if (fault) {
            r->k->fault_type = fault;
            r->k->fault_write = is_write;
            return simt_error(r, w, TGPU_KERR_MMU_FAULT, 1u << lane, va, 0);
        }
        if (!page) {
            /* done by global(): not a page to keep (system memory) */
            r->tlb_valid = false;
            return true;
        }
        r->tlb_valid = true;
        r->tlb_vpn = vpn;
        r->tlb_write = is_write;
        r->tlb_host = page;
    }
    p = r->tlb_host + (va & (TGPU_PAGE_SIZE - 1));
    tgpu_simt_access(p, buf, len, is_write, atomic, b, c);
    return true;
}

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
        return simt_lduw(p);
    case TGPU_W_S16:
        return (uint32_t)(int16_t)simt_lduw(p);
    case TGPU_W_32:
        return simt_ldl(p);
    }
    return simt_ldq(p);
}

/* ---- float64 (docs/hw/isa.md, "Float64") --------------------------------- */

static const int rnd_modes[TGPU_RND_COUNT] = {
    FE_TONEAREST, FE_TOWARDZERO, FE_DOWNWARD, FE_UPWARD,
};

/*
 * The compiler assumes the default rounding: V goes through memory here,
 * so that an operation on it is neither done before the mode is set nor
 * after it is restored.
 */
#define FP_FENCE(v) __asm__ volatile("" : "+m"(v))

static bool is_nan64(uint64_t v)
{
    return (v & INT64_MAX) > 0x7ff0000000000000ull;
}

#define QNAN64      (1ull << 51)

/* As nan_first() for float32: the first NaN operand, quieted, else R. */
static uint64_t nan_first64(uint64_t r, uint64_t x, uint64_t y, uint64_t z)
{
    if (is_nan64(x)) {
        return x | QNAN64;
    }
    if (is_nan64(y)) {
        return y | QNAN64;
    }
    return is_nan64(z) ? z | QNAN64 : r;
}

/* dmin, dmax: IEEE minNum/maxNum, as fminmax() does for float32 */
static uint64_t dminmax(uint64_t a, uint64_t b, bool is_max)
{
    double x = simt_dbl(b), y = simt_dbl(a);

    if (!is_nan64(a) && !is_nan64(b)) {
        return (is_max ? x > y : x < y) ? b : a;
    }
    if (is_nan64(a) && is_nan64(b)) {
        return nan_first64(0, b, a, a);
    }
    if (is_nan64(b)) {
        return b & QNAN64 ? a : b | QNAN64;
    }
    return a & QNAN64 ? b : a | QNAN64;
}

/* A lane's pair at ROW (row + 1 the high word) */
static uint64_t pair(GrWarp *w, unsigned int row, int l)
{
    return (uint64_t)w->r[row + 1][l] << 32 | w->r[row][l];
}

static void wr_pair(GrRun *r, GrWarp *w, unsigned int rd, uint32_t exec)
{
    wr32(w, rd, r->res, exec);
    wr32(w, rd + 1, r->hi, exec);
}

/* The result D of OP on A, B, C; a NaN as the float32 rule picks it */
static inline uint64_t f64_nan(unsigned int op, double d, uint64_t a,
                               uint64_t b, uint64_t c)
{
    if (G_LIKELY(!isnan(d))) {
        return simt_dbl_bits(d);
    }
    /* the operand order of the float32 NaN rule (simt_nan_first) */
    switch (op) {
    case TGPU_OP_DADD:
    case TGPU_OP_DMUL:
        return nan_first64(simt_dbl_bits(d), b, a, a);
    case TGPU_OP_DSUB:
        return nan_first64(simt_dbl_bits(d), a, b, b);
    }
    return nan_first64(simt_dbl_bits(d), a, b, c);
}

/*
 * DADD, DSUB, DMUL, DFMA rounding to nearest (the default mode, the
 * thread's own): one loop an operation, nothing to fence
 */
#define F64_RN_LANES(expr) \
    for (int l = 0; l < W; l++) { \
        uint64_t a = pair(w, in->ra, l), b = pair(w, in->rb, l); \
        uint64_t c = in->op == TGPU_OP_DFMA ? pair(w, in->rc, l) : 0, v; \
        double x = simt_dbl(a), y = simt_dbl(b), z = simt_dbl(c); \
        \
        (void)z; \
        v = f64_nan(in->op, (expr), a, b, c); \
        r->res[l] = v; \
        r->hi[l] = v >> 32; \
    }

static bool f64_rn(GrRun *r, GrWarp *w, const GrInsn *in)
{
    switch (in->op) {
    case TGPU_OP_DADD:
        F64_RN_LANES(x + y);
        return true;
    case TGPU_OP_DSUB:
        F64_RN_LANES(x - y);
        return true;
    case TGPU_OP_DMUL:
        F64_RN_LANES(x * y);
        return true;
    case TGPU_OP_DFMA:
        F64_RN_LANES(fma(x, y, z));
        return true;
    }
    return false;
}

/* One lane of DADD, DSUB, DMUL, DFMA in the rounding mode in force */
static uint64_t f64_lane(unsigned int op, uint64_t a, uint64_t b, uint64_t c)
{
    double x = simt_dbl(a), y = simt_dbl(b), z = simt_dbl(c), d;

    FP_FENCE(x);
    FP_FENCE(y);
    FP_FENCE(z);
    switch (op) {
    case TGPU_OP_DADD:
        d = x + y;
        break;
    case TGPU_OP_DSUB:
        d = x - y;
        break;
    case TGPU_OP_DMUL:
        d = x * y;
        break;
    default:
        d = fma(x, y, z);
        break;
    }
    FP_FENCE(d);
    return f64_nan(op, d, a, b, c);
}

void simt_f64(GrRun *r, GrWarp *w, const GrInsn *in, uint32_t exec)
{
    int mode = in->sub && (in->op == TGPU_OP_DADD || in->op == TGPU_OP_DSUB ||
                           in->op == TGPU_OP_DMUL || in->op == TGPU_OP_DFMA)
               ? rnd_modes[in->sub] : -1;

    if (!in->sub && f64_rn(r, w, in)) {
        wr_pair(r, w, in->rd, exec);
        return;
    }
    if (mode >= 0) {
        fesetround(mode);
    }
    for (int l = 0; l < W; l++) {
        uint64_t a = pair(w, in->ra, l), b = pair(w, in->rb, l), v;

        switch (in->op) {
        case TGPU_OP_DMIN:
        case TGPU_OP_DMAX:
            v = dminmax(a, b, in->op == TGPU_OP_DMAX);
            break;
        case TGPU_OP_DABS:
            v = a & INT64_MAX;
            break;
        case TGPU_OP_DNEG:
            v = a ^ (1ull << 63);
            break;
        default:
            v = f64_lane(in->op, a, b, pair(w, in->rc, l));
            break;
        }
        r->res[l] = v;
        r->hi[l] = v >> 32;
    }
    if (mode >= 0) {
        fesetround(FE_TONEAREST);
    }
    wr_pair(r, w, in->rd, exec);
}

/* DSETP (as FSETP, ordered except NE), ISETP64, USETP64 on pairs */
void simt_dsetp(GrWarp *w, const GrInsn *in, uint32_t exec)
{
    uint32_t lt = 0, eq = 0, un = 0, m;

    for (int l = 0; l < W; l++) {
        uint64_t a = pair(w, in->ra, l), b = pair(w, in->rb, l);
        double x = simt_dbl(a), y = simt_dbl(b);

        if (in->op == TGPU_OP_DSETP) {
            lt |= (uint32_t)(x < y) << l;
            eq |= (uint32_t)(x == y) << l;
            un |= (uint32_t)isunordered(x, y) << l;
        } else {
            lt |= (uint32_t)(in->op == TGPU_OP_ISETP64 ? (int64_t)a < (int64_t)b
                                                        : a < b) << l;
            eq |= (uint32_t)(a == b) << l;
        }
    }
    m = simt_cmp_mask(in->sub, lt, eq, un);
    if (in->rd < TGPU_PRED_PT) {
        w->p[in->rd] = (w->p[in->rd] & ~exec) | (m & exec);
    }
}

/*
 * MUFU: computed in double and rounded once to float, which is within
 * half an ulp and a hair of the exact value (docs/hw/isa.md gives the
 * bounds the tests hold it to); NaN operands come back quieted.
 */
void simt_mufu(GrRun *r, GrWarp *w, const GrInsn *in, uint32_t exec)
{
    const uint32_t *A = w->r[in->ra];

    for (int l = 0; l < W; l++) {
        double x = simt_flt(A[l]), d;

        switch (in->sub) {
        case TGPU_MUFU_RCP:
            d = 1 / x;
            break;
        case TGPU_MUFU_RSQ:
            d = 1 / sqrt(x);
            break;
        case TGPU_MUFU_SQRT:
            d = sqrt(x);
            break;
        case TGPU_MUFU_EX2:
            d = exp2(x);
            break;
        case TGPU_MUFU_LG2:
            d = log2(x);
            break;
        case TGPU_MUFU_SIN:
            d = sin(x);
            break;
        default:
            d = cos(x);
            break;
        }
        r->res[l] = (A[l] & 0x7fffffffu) > 0x7f800000u ? A[l] | 0x400000u
                                                       : simt_flt_bits(d);
    }
    wr32(w, in->rd, r->res, exec);
}

/* ---- 64-bit integers and carries ------------------------------------- */

/* ISUB64, IMUL64, IMULHI.S64/U64, SHL64, SHR64, SAR64 */
void simt_int64(GrRun *r, GrWarp *w, const GrInsn *in, uint32_t exec)
{
    for (int l = 0; l < W; l++) {
        uint64_t a = pair(w, in->ra, l), b, v;
        uint32_t n = w->r[in->rb][l];

        if (in->bimm) {
            /* an immediate: sign-extended (ISUB64), or the shift count */
            n = in->imm32;
            b = (uint64_t)(int64_t)(int32_t)in->imm32;
        } else {
            b = pair(w, in->rb, l);
        }
        switch (in->op) {
        case TGPU_OP_ISUB64:
            v = a - b;
            break;
        case TGPU_OP_IMUL64:
            v = a * b;
            break;
        case TGPU_OP_IMULHI_S64:
            v = (uint64_t)(((__int128)(int64_t)a * (int64_t)b) >> 64);
            break;
        case TGPU_OP_IMULHI_U64:
            v = (uint64_t)(((unsigned __int128)a * b) >> 64);
            break;
        case TGPU_OP_SHL64:
            v = n >= 64 ? 0 : a << n;
            break;
        case TGPU_OP_SHR64:
            v = n >= 64 ? 0 : a >> n;
            break;
        default:                        /* SAR64 */
            v = (uint64_t)((int64_t)a >> MIN(n, 63u));
            break;
        }
        r->res[l] = v;
        r->hi[l] = v >> 32;
    }
    wr_pair(r, w, in->rd, exec);
}

/*
 * IADD.CO/CIO/CI, ISUB.CO/CIO/CI rd, ra, b, p: the carry (of a sum) or
 * the borrow (of a difference) in predicate p, as PTX's CC.CF
 */
void simt_carry(GrWarp *w, const GrInsn *in, uint32_t exec,
                const uint32_t *B, uint32_t *res)
{
    const uint32_t *A = w->r[in->ra];
    bool sub = in->op >= TGPU_OP_ISUB_CO;
    unsigned int kind = (in->op - TGPU_OP_IADD_CO) % 3;  /* CO, CIO, CI */
    uint32_t p = w->p[in->sub], out = 0;

    for (int l = 0; l < W; l++) {
        uint64_t cin = kind != 0 && (p >> l & 1), v;

        if (sub) {
            v = (uint64_t)A[l] - B[l] - cin;
            out |= (uint32_t)(v >> 32 & 1) << l;       /* the borrow */
        } else {
            v = (uint64_t)A[l] + B[l] + cin;
            out |= (uint32_t)(v >> 32) << l;
        }
        res[l] = v;
    }
    wr32(w, in->rd, res, exec);
    if (kind != 2 && in->sub < TGPU_PRED_PT) {
        w->p[in->sub] = (w->p[in->sub] & ~exec) | (out & exec);
    }
}

/* X rounded to an integer value in mode SUB, without the environment */
static double round_int(double x, unsigned int sub)
{
    switch (sub) {
    case TGPU_RND_RZ:
        return trunc(x);
    case TGPU_RND_RM:
        return floor(x);
    case TGPU_RND_RP:
        return ceil(x);
    }
    return rint(x);             /* the thread's mode is always RN here */
}

/* Float to integer (PTX cvt.rni and friends): saturating, NaN gives 0 */
static uint64_t to_int(double x, unsigned int sub, bool is_signed,
                       unsigned int bits)
{
    double lo = is_signed ? -ldexp(1, bits - 1) : 0;
    double hi = ldexp(1, bits - (is_signed ? 1 : 0));

    if (isnan(x)) {
        return 0;
    }
    x = round_int(x, sub);
    if (x <= lo) {
        return is_signed ? (uint64_t)(int64_t)lo : 0;
    }
    if (x >= hi) {
        return is_signed ? (uint64_t)hi - 1 : (bits == 64 ? UINT64_MAX
                                                          : (uint64_t)hi - 1);
    }
    return is_signed ? (uint64_t)(int64_t)x : (uint64_t)x;
}

/* F2I, F2U's modes: sub 0 is RZ (truncation), then RN, RM, RP */
static const unsigned int f2i_rnd[TGPU_RND_COUNT] = {
    TGPU_RND_RZ, TGPU_RND_RN, TGPU_RND_RM, TGPU_RND_RP,
};

void simt_f32_rounded(GrRun *r, GrWarp *w, const GrInsn *in, uint32_t exec,
                      const uint32_t *B)
{
    const uint32_t *A = w->r[in->ra], *C = w->r[in->rc];
    bool is_to_int = in->op == TGPU_OP_F2I || in->op == TGPU_OP_F2U;

    if (!is_to_int) {
        fesetround(rnd_modes[in->sub]);
    }
    for (int l = 0; l < W; l++) {
        float x = simt_flt(A[l]), y = simt_flt(B[l]), z = simt_flt(C[l]), d;
        uint32_t v;

        FP_FENCE(x);
        FP_FENCE(y);
        FP_FENCE(z);
        switch (in->op) {
        case TGPU_OP_FADD:
            d = x + y;
            break;
        case TGPU_OP_FSUB:
            d = x - y;
            break;
        case TGPU_OP_FMUL:
            d = x * y;
            break;
        case TGPU_OP_FFMA:
            d = fmaf(x, y, z);
            break;
        case TGPU_OP_I2F:
            d = (float)(int32_t)A[l];
            break;
        case TGPU_OP_U2F:
            d = (float)A[l];
            break;
        default:
            d = 0;
            break;
        }
        FP_FENCE(d);
        if (is_to_int) {
            v = to_int(x, f2i_rnd[in->sub], in->op == TGPU_OP_F2I, 32);
        } else if (in->op == TGPU_OP_I2F || in->op == TGPU_OP_U2F) {
            v = simt_flt_bits(d);
        } else if (in->op == TGPU_OP_FADD || in->op == TGPU_OP_FMUL) {
            /* float_lane()'s order: b's NaN first for the commutative */
            v = simt_nan_first(simt_flt_bits(d), B[l], A[l], A[l]);
        } else {
            v = simt_nan_first(simt_flt_bits(d), A[l], B[l],
                               in->op == TGPU_OP_FFMA ? C[l] : B[l]);
        }
        r->res[l] = v;
    }
    if (!is_to_int) {
        fesetround(FE_TONEAREST);
    }
    wr32(w, in->rd, r->res, exec);
}

void simt_cvt(GrRun *r, GrWarp *w, const GrInsn *in, uint32_t exec)
{
    unsigned int op = in->op;
    bool env = in->sub && (op == TGPU_OP_D2F || op == TGPU_OP_L2D ||
                           op == TGPU_OP_UL2D || op == TGPU_OP_L2F ||
                           op == TGPU_OP_UL2F);

    if (env) {
        fesetround(rnd_modes[in->sub]);
    }
    for (int l = 0; l < W; l++) {
        uint64_t a = pair(w, in->ra, l), v;
        uint32_t a32 = a;
        double d = simt_dbl(a);
        float f;

        switch (op) {
        case TGPU_OP_F2D:
            v = simt_dbl_bits(simt_flt(a32));
            if (is_nan64(v)) {
                v |= QNAN64;
            }
            break;
        case TGPU_OP_D2F:
            FP_FENCE(d);
            f = d;
            FP_FENCE(f);
            v = simt_flt_bits(f);
            break;
        case TGPU_OP_I2D:
            v = simt_dbl_bits((int32_t)a32);
            break;
        case TGPU_OP_U2D:
            v = simt_dbl_bits(a32);
            break;
        case TGPU_OP_L2D:
        case TGPU_OP_UL2D: {
            double x;

            FP_FENCE(a);
            x = op == TGPU_OP_L2D ? (double)(int64_t)a : (double)a;
            FP_FENCE(x);
            v = simt_dbl_bits(x);
            break;
        }
        case TGPU_OP_L2F:
        case TGPU_OP_UL2F:
            FP_FENCE(a);
            f = op == TGPU_OP_L2F ? (float)(int64_t)a : (float)a;
            FP_FENCE(f);
            v = simt_flt_bits(f);
            break;
        case TGPU_OP_D2I:
        case TGPU_OP_D2U:
            v = (uint32_t)to_int(d, in->sub, op == TGPU_OP_D2I, 32);
            break;
        case TGPU_OP_D2L:
        case TGPU_OP_D2UL:
            v = to_int(d, in->sub, op == TGPU_OP_D2L, 64);
            break;
        default:                        /* F2L, F2UL */
            v = to_int(simt_flt(a32), in->sub, op == TGPU_OP_F2L, 64);
            break;
        }
        r->res[l] = v;
        r->hi[l] = v >> 32;
    }
    if (env) {
        fesetround(FE_TONEAREST);
    }
    if (tgpu_isa_rd_pair(op)) {
        wr_pair(r, w, in->rd, exec);
    } else {
        wr32(w, in->rd, r->res, exec);
    }
}

/* S2R: special register SR of every lane into V; CYCLES: the clock now */
void simt_s2r(GrRun *r, GrWarp *w, unsigned int sr, uint64_t cycles,
              uint32_t *v)
{
    GrKernel *k = r->k;
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
        u = cta % k->sm_count;
        break;
    case TGPU_SR_LANEMASK_EQ:
    case TGPU_SR_LANEMASK_LT:
    case TGPU_SR_LANEMASK_LE:
    case TGPU_SR_LANEMASK_GT:
    case TGPU_SR_LANEMASK_GE:
        for (int l = 0; l < W; l++) {
            uint32_t lt = (1u << l) - 1, le = lt | 1u << l;

            v[l] = sr == TGPU_SR_LANEMASK_EQ ? 1u << l :
                   sr == TGPU_SR_LANEMASK_LT ? lt :
                   sr == TGPU_SR_LANEMASK_LE ? le :
                   sr == TGPU_SR_LANEMASK_GT ? ~le : ~lt;
        }
        return;
    case TGPU_SR_ACTIVEMASK:
        u = w->active;
        break;
    case TGPU_SR_NSMID:
        u = k->sm_count;
        break;
    case TGPU_SR_WARPSIZE:
        u = W;
        break;
    case TGPU_SR_SMEM_TOTAL:
        u = k->shared_size;
        break;
    case TGPU_SR_GLOBALTIMER_LO:
    case TGPU_SR_GLOBALTIMER_HI: {
        /* the modelled time: cycles since the slice began, in ns */
        uint64_t d = cycles - k->time_cycles, ns = k->time_ns;

        if (k->clock_khz) {
            ns += d / k->clock_khz * 1000000 +
                  d % k->clock_khz * 1000000 / k->clock_khz;
        }
        u = sr == TGPU_SR_GLOBALTIMER_LO ? ns : ns >> 32;
        break;
    }
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
 * Loads and stores lane by lane from lane FIRST on (lanes before it done,
 * the values they loaded in r->v64)
 */
bool simt_mem(GrRun *r, GrWarp *w, const GrInsn *in, uint32_t exec,
              int first)
{
    GrKernel *k = r->k;
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
                    simt_stl(p, w->r[in->rd][l]);
                } else {
                    v[l] = simt_ldl(p);
                }
                continue;
            }
            if (is_st) {
                simt_stq(buf, rd64(w, in->rd, l));
            }
            if (!simt_global(r, w, l, a, buf, len, is_st, -1, 0, 0)) {
                return false;
            }
        } else {
            uint8_t *mem = in->op == TGPU_OP_LDC ? k->param : k->shared;
            uint32_t size = in->op == TGPU_OP_LDC ? k->param_size
                                                   : k->shared_size;

            a = (uint32_t)(w->r[in->ra][l] + in->imm32);
            if (a % len) {
                return simt_error(r, w, TGPU_KERR_MISALIGNED, 1u << l, a, 0);
            }
            if (a + len > size) {
                return simt_error(r, w, in->op == TGPU_OP_LDC ?
                                TGPU_KERR_CONST : TGPU_KERR_SHARED,
                                1u << l, a, 0);
            }
            if (is_st) {
                simt_stq(buf, rd64(w, in->rd, l));
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

bool simt_atom(GrRun *r, GrWarp *w, const GrInsn *in, uint32_t exec)
{
    GrKernel *k = r->k;
    uint32_t *v = r->res;

    for (int l = 0; l < W; l++) {
        uint32_t b = w->r[in->rb][l], c = w->r[in->rc][l];

        if (!((exec >> l) & 1)) {
            continue;
        }
        if (in->op == TGPU_OP_ATOMG) {
            uint64_t a = rd64(w, in->ra, l) + in->imm16;

            if (!simt_global(r, w, l, a, &v[l], 4, true, in->sub, b, c)) {
                return false;
            }
        } else {
            uint32_t a = w->r[in->ra][l] + in->imm16;

            if (a % 4) {
                return simt_error(r, w, TGPU_KERR_MISALIGNED, 1u << l, a, 0);
            }
            if ((uint64_t)a + 4 > k->shared_size) {
                return simt_error(r, w, TGPU_KERR_SHARED, 1u << l, a, 0);
            }
            /* shared memory is the CTA's own: lanes in turn are atomic */
            simt_atomic32((uint32_t *)(k->shared + a), &v[l], b, c, in->sub);
        }
    }
    wr32(w, in->rd, v, exec);
    return true;
}

/* ---- CTAs and the kernel ------------------------------------------------- */

static uint32_t cta_threads(GrKernel *k)
{
    return k->block[0] * k->block[1] * k->block[2];
}

static void cta_start(GrKernel *k)
{
    uint32_t threads = cta_threads(k);

    k->nwarps = (threads + W - 1) / W;
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
    GrKernel *k = r->k;

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
            if (w->state == WARP_RUN && !simt_warp(r, w)) {
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
                simt_error(r, first, TGPU_KERR_BARRIER, first->active, 0,
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

bool tgpu_simt_run(GrRun *r)
{
    GrKernel *k = r->k;

    while (r->budget) {
        /* run a step of the budget, then ask whether to go on */
        uint64_t rest = r->budget - MIN(r->budget, TGPU_GR_STEP_INSNS);
        bool ok, done;

        r->budget -= rest;
        r->translations = 0;
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
        /* the page cache ends with the step: see gr_dirty_flush() */
        r->tlb_valid = false;
        if (!r->ops->checkpoint(r->opaque)) {
            return false;
        }
    }
    return false;
}

static void simt_decode_all(GrKernel *k, const uint64_t *raw)
{
    k->code = g_new(GrInsn, k->ninsns);
    k->rows = 0;
    for (uint32_t i = 0; i < k->ninsns; i++) {
        k->code[i] = tgpu_simt_decode(GUINT64_FROM_LE(raw[i]));
        k->rows = MAX(k->rows, tgpu_simt_rows(&k->code[i]));
    }
}

void tgpu_simt_load(GrKernel *k, const uint64_t *raw)
{
    simt_decode_all(k, raw);
    k->warps = tgpu_simt_alloc0((cta_threads(k) + W - 1) / W,
                                sizeof(GrWarp));
    k->shared = g_malloc0(MAX(k->shared_size, 1));
    cta_start(k);
}

void tgpu_simt_free(GrKernel *k)
{
    g_free(k->code);
    free(k->warps);
    g_free(k->shared);
    k->code = NULL;
    k->warps = NULL;
    k->shared = NULL;
}

/* Could the launch checks have let K's launch fields through? */
static bool simt_launch_valid(const GrKernel *k)
{
    uint64_t threads = (uint64_t)k->block[0] * k->block[1] * k->block[2];

    for (int i = 0; i < 3; i++) {
        if (!k->grid[i] || k->grid[i] > TGPU_GR_GRID_MAX || !k->block[i]) {
            return false;
        }
    }
    return k->ninsns && k->ninsns <= TGPU_GR_PROGRAM_MAX / TGPU_INSN_SIZE &&
           threads <= TGPU_GR_BLOCK_MAX &&
           k->ncta == (uint64_t)k->grid[0] * k->grid[1] * k->grid[2] &&
           k->cta <= k->ncta && k->shared_size <= TGPU_GR_SHARED_MAX &&
           k->param_size <= TGPU_GR_PARAM_MAX && !(k->param_size % 4);
}

bool tgpu_simt_restore(GrKernel *k, const uint64_t *raw)
{
    uint32_t nwarps = (cta_threads(k) + W - 1) / W;

    if (!simt_launch_valid(k)) {
        return false;
    }
    if (!raw) {
        /* not fetched yet: the engine's next turn fetches and starts it */
        return !k->warps && !k->shared && !k->nwarps;
    }
    if (!k->warps || !k->shared || k->nwarps != nwarps ||
        k->cur_warp >= nwarps) {
        return false;
    }
    for (uint32_t i = 0; i < nwarps; i++) {
        GrWarp *w = &k->warps[i];

        if (w->state < WARP_RUN || w->state > WARP_EXITED ||
            w->sp > TGPU_SIMT_STACK_DEPTH) {
            return false;
        }
        /* a hint the executor derives again: never taken from outside */
        memset(w->shape, 0, sizeof(w->shape));
    }
    simt_decode_all(k, raw);
    return true;
}

bool tgpu_simt_fail(GrKernel *k, uint32_t err, uint64_t va)
{
    k->error = err;
    k->err_pc = k->err_warp = k->err_lane = k->err_info = 0;
    k->err_cta = k->cta;
    k->err_va = va;
    return false;
}
