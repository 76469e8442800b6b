/*
 * tgpu SIMT executor: a warp's instructions
 *
 * Each warp instruction works on all 32 lanes at once, as arrays the
 * host compiler can vectorise, under an execution mask; divergence goes
 * through the SIMT stack (SSY, BRA, SYNC).  The loop is compiled twice,
 * for any host and for hosts with AVX2 and FMA (tgpu_simt_select()).
 * Whole-warp accesses to shared memory, the parameters and a VRAM page
 * have fast paths here; the rest is in tgpu-simt.c.
 *
 * Copyright (c) 2026 The tgpu authors
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */

/* Builds without QEMU (see tgpu-simt.h): no qemu/osdep.h. */
#include <math.h>
#include "tgpu-simt.h"


/* V in every lane */
static inline SIMT_ALWAYS_INLINE
GrVec8 vec8_splat(uint32_t v)
{
    return (GrVec8){ 0 } + v;
}

/* Is any lane of V not zero?  (By halves: GCC would go lane by lane.) */
typedef uint64_t GrVec2q __attribute__((vector_size(16)));

static inline SIMT_ALWAYS_INLINE
bool vec8_any(GrVec8 v)
{
    GrVec2q h[2];

    memcpy(h, &v, sizeof(h));
    h[0] |= h[1];
    return h[0][0] | h[0][1];
}

/* The lanes whose bit is set in E (bit 0: the first), as all ones */
static inline SIMT_ALWAYS_INLINE
GrVec8 vec8_lanes(uint32_t e)
{
    const GrVec8 bit = { 1, 2, 4, 8, 16, 32, 64, 128 };

    return (GrVec8)((bit & e) != 0);
}

/* X on the lanes where M is all ones, Y on the others */
static inline SIMT_ALWAYS_INLINE
GrVec8 vec8_sel(GrVec8 m, GrVec8 x, GrVec8 y)
{
    return (x & m) | (y & ~m);
}

typedef float GrVec8f __attribute__((vector_size(32)));

#define is_nan32 simt_is_nan32
#define nan_first simt_nan_first

/*
 * IEEE-754 single arithmetic on the lanes, each rounded once (their NaN
 * results: see FLANES)
 */
static inline SIMT_ALWAYS_INLINE
GrVec8 vec8_fadd(GrVec8 a, GrVec8 b)
{
    return (GrVec8)((GrVec8f)a + (GrVec8f)b);
}

static inline SIMT_ALWAYS_INLINE
GrVec8 vec8_fsub(GrVec8 a, GrVec8 b)
{
    return (GrVec8)((GrVec8f)a - (GrVec8f)b);
}

static inline SIMT_ALWAYS_INLINE
GrVec8 vec8_fmul(GrVec8 a, GrVec8 b)
{
    return (GrVec8)((GrVec8f)a * (GrVec8f)b);
}

static inline SIMT_ALWAYS_INLINE
GrVec8 vec8_ffma(GrVec8 a, GrVec8 b, GrVec8 c)
{
    GrVec8f x = (GrVec8f)a, y = (GrVec8f)b, z = (GrVec8f)c, d;

    for (int i = 0; i < 8; i++) {
        d[i] = fmaf(x[i], y[i], z[i]);
    }
    return (GrVec8)d;
}

/* Its NaN lanes, all ones */
static inline SIMT_ALWAYS_INLINE
GrVec8 vec8_nans(GrVec8 v)
{
    return (GrVec8)((GrVec8f)v != (GrVec8f)v);
}

/* One lane of FADD, FSUB, FMUL or FFMA, its NaNs as nan_first() gives */
static uint32_t float_lane(unsigned int op, uint32_t a, uint32_t b,
                           uint32_t c)
{
    float x = simt_flt(a), y = simt_flt(b), z = simt_flt(c);

    switch (op) {
    case TGPU_OP_FADD:
        return nan_first(simt_flt_bits(x + y), b, a, a);
    case TGPU_OP_FSUB:
        return nan_first(simt_flt_bits(x - y), a, b, b);
    case TGPU_OP_FMUL:
        return nan_first(simt_flt_bits(x * y), b, a, a);
    }
    return nan_first(simt_flt_bits(fmaf(x, y, z)), a, b, c);
}

/*
 * FMIN, FMAX: IEEE minNum/maxNum as the interpreter has always computed
 * them (glibc's fminf/fmaxf with b first): equal operands (+0 and -0)
 * give a, a quiet NaN gives the other operand, a signaling NaN or two
 * NaNs give nan_first(b, a).
 */
static uint32_t fminmax(uint32_t a, uint32_t b, bool is_max)
{
    float x = simt_flt(b), y = simt_flt(a);

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

/* ---- integer bit operations: PTX's definitions (docs/hw/isa.md) ------ */

static uint32_t bit_mulhi(uint32_t a, uint32_t b, unsigned int sign)
{
    if (sign == TGPU_SIGN_S32) {
        return (uint64_t)((int64_t)(int32_t)a * (int32_t)b) >> 32;
    }
    return ((uint64_t)a * b) >> 32;
}

static uint32_t bit_brev(uint32_t v)
{
    v = (v >> 1 & 0x55555555u) | (v & 0x55555555u) << 1;
    v = (v >> 2 & 0x33333333u) | (v & 0x33333333u) << 2;
    v = (v >> 4 & 0x0f0f0f0fu) | (v & 0x0f0f0f0fu) << 4;
    return __builtin_bswap32(v);
}

/* The N low bits set (N at most 32). */
static uint32_t low_bits(unsigned int n)
{
    return n >= 32 ? UINT32_MAX : (1u << n) - 1;
}

/*
 * bfe: bits [pos, pos + len) of A, the rest of the result the sign bit:
 * 0 unsigned, else the field's top bit (or bit 31, when the field runs
 * past it).  A length of 0 gives 0.
 */
static uint32_t bit_bfe(uint32_t a, uint32_t b, unsigned int sign)
{
    unsigned int pos = TGPU_BF_POS(b), len = TGPU_BF_LEN(b), top, n;
    uint32_t fill;

    if (!len) {
        return 0;
    }
    top = MIN(pos + len - 1, 31u);
    fill = sign == TGPU_SIGN_S32 && (a >> top & 1) ? UINT32_MAX : 0;
    if (pos > 31) {
        return fill;
    }
    n = top - pos + 1;
    return (a >> pos & low_bits(n)) | (fill & ~low_bits(n));
}

/* bfi: BASE with bits [pos, pos + len) (those below 32) from INS's low. */
static uint32_t bit_bfi(uint32_t ins, uint32_t b, uint32_t base)
{
    unsigned int pos = TGPU_BF_POS(b), len = TGPU_BF_LEN(b);
    uint32_t m;

    if (!len || pos > 31) {
        return base;
    }
    m = low_bits(MIN(len, 32 - pos)) << pos;
    return (base & ~m) | (ins << pos & m);
}

/* prmt: four bytes picked from the eight of B:A, by C and the mode. */
static uint32_t bit_prmt(uint32_t a, uint32_t b, uint32_t c,
                         unsigned int mode)
{
    uint64_t x = (uint64_t)b << 32 | a;
    unsigned int s = c & 3;
    uint32_t d = 0;

    for (unsigned int i = 0; i < 4; i++) {
        unsigned int sel = c >> 4 * i & 0xf, idx;
        uint32_t byte;

        switch (mode) {
        case TGPU_PRMT_F4E:
            idx = (s + i) & 7;
            break;
        case TGPU_PRMT_B4E:
            idx = (s - i) & 7;
            break;
        case TGPU_PRMT_RC8:
            idx = s;
            break;
        case TGPU_PRMT_ECL:
            idx = MAX(i, s);
            break;
        case TGPU_PRMT_ECR:
            idx = MIN(i, s);
            break;
        case TGPU_PRMT_RC16:
            idx = (i & 1) | (s & 1) << 1;
            break;
        default:                        /* SEL: bit 3 replicates the sign */
            idx = sel & 7;
            break;
        }
        byte = x >> 8 * idx & 0xff;
        if (mode == TGPU_PRMT_SEL && (sel & 8)) {
            byte = byte & 0x80 ? 0xff : 0;
        }
        d |= byte << 8 * i;
    }
    return d;
}

/* shf: the high (left) or low (right) word of B:A shifted by C. */
static uint32_t bit_fsh(uint32_t a, uint32_t b, uint32_t c, bool right,
                        unsigned int mode)
{
    unsigned int n = mode == TGPU_FSH_CLAMP ? MIN(c, 32u) : c & 31;
    uint64_t x = (uint64_t)b << 32 | a;

    return right ? (uint32_t)(x >> n) : (uint32_t)(x << n >> 32);
}

/* ---- warp-level operations (docs/hw/isa.md, "Warp-level") ----------- */

/*
 * WSYNC: every executing lane (EXEC, not empty) gives the same member
 * mask in B, and the mask (its exited and absent lanes ignored) is
 * exactly the lanes that execute it.  false: MEMBER_MASK.
 */
static bool warp_sync(GrRun *r, GrWarp *w, uint32_t exec, const uint32_t *B)
{
    uint32_t mask = B[__builtin_ctz(exec)];
    uint32_t bad = (exec & ~mask) | (mask & w->live & ~exec);

    for (int l = 0; l < W; l++) {
        if ((exec >> l & 1) && B[l] != mask) {
            bad |= 1u << l;
        }
    }
    if (!bad) {
        return true;
    }
    return simt_error(r, w, TGPU_KERR_MEMBER_MASK, bad, 0, mask);
}

/* VOTE.mode over the executing lanes EXEC of predicate mask P */
static bool warp_vote(uint32_t p, uint32_t exec, unsigned int mode)
{
    p &= exec;
    switch (mode) {
    case TGPU_VOTE_ALL:
        return p == exec;
    case TGPU_VOTE_ANY:
        return p != 0;
    }
    return p == 0 || p == exec;         /* UNI */
}

/*
 * SHFL: PTX's source lane of lane L for b and c; when the lane computed
 * is outside its segment (beyond the clamp), L itself.  The value read
 * is that lane's register as it stands, active or not.
 */
static unsigned int warp_shfl_src(unsigned int mode, unsigned int l,
                                  uint32_t b, uint32_t c)
{
    int lane = l, bval = b & 0x1f, cval = c & 0x1f, seg = c >> 8 & 0x1f;
    int max = (lane & seg) | (cval & ~seg), min = lane & seg, j;
    bool in;

    switch (mode) {
    case TGPU_SHFL_UP:
        j = lane - bval;
        in = j >= max;
        break;
    case TGPU_SHFL_DOWN:
        j = lane + bval;
        in = j <= max;
        break;
    case TGPU_SHFL_BFLY:
        j = lane ^ bval;
        in = j <= max;
        break;
    default:                            /* IDX */
        j = min | (bval & ~seg);
        in = j <= max;
        break;
    }
    return in ? (unsigned int)j : l;
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
            return simt_error(r, w, TGPU_KERR_STACK, w->live, 0, 0);
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
        return simt_error(r, w, TGPU_KERR_STACK, w->active, 0, 0);
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
static inline SIMT_ALWAYS_INLINE int group_kind(const uint32_t *a)
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
static inline SIMT_ALWAYS_INLINE
void load32_group(uint32_t *d, const uint8_t *p, int kind)
{
    uint32_t v;

    if (kind == GROUP_SAME) {
        v = simt_ldl(p);
        vec8_store(d, vec8_splat(v));
        vec8_store(d + 8, vec8_splat(v));
    } else if (G_BYTE_ORDER == G_BIG_ENDIAN) {
        for (int i = 0; i < GROUP; i++) {
            d[i] = simt_ldl(p + 4 * i);
        }
    } else {
        vec8_store(d, vec8_load(p));
        vec8_store(d + 8, vec8_load(p + 32));
    }
}

/* A group of KIND (SAME or SEQ) stores V[0..] at P: the last lane wins */
static inline SIMT_ALWAYS_INLINE
void store32_group(uint8_t *p, const uint32_t *v, int kind)
{
    if (kind == GROUP_SAME) {
        simt_stl(p, v[GROUP - 1]);
    } else if (G_BYTE_ORDER == G_BIG_ENDIAN) {
        for (int i = 0; i < GROUP; i++) {
            simt_stl(p + 4 * i, v[i]);
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
static inline SIMT_ALWAYS_INLINE
bool gr_mem32_groups(GrRun *r, GrWarp *w, const GrInsn *in)
{
    GrKernel *k = r->k;
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
static inline SIMT_ALWAYS_INLINE
bool gr_ld64_same(GrRun *r, GrWarp *w, const GrInsn *in)
{
    GrKernel *k = r->k;
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

        v = simt_ldq(mem + a);
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
    GrKernel *k = r->k;
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
                simt_stl(mem + addr[l], v[l]);
            }
        }
        return true;
    }
    for (int l = 0; l < W; l++) {
        r->res[l] = exec & (1u << l) ? simt_ldl(mem + addr[l]) : 0;
    }
    wr32(w, in->rd, r->res, exec);
    return true;
}

/*
 * 32-bit LDG and STG on every lane, all addresses aligned and in the page
 * of lane 0's: lane 0 translates, the others use the page it reached
 * (VRAM), or go lane by lane (system memory), as lane by lane would.
 * false (nothing done) when the lanes do not qualify; else *ok is false
 * when a lane faulted.
 */
static inline SIMT_ALWAYS_INLINE
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
    simt_stl(buf, v[0]);
    if (!simt_global(r, w, 0, page + off[0], buf, 4, is_st, -1, 0, 0)) {
        *ok = false;
        return true;
    }
    if (!r->tlb_valid) {
        /* system memory: the other lanes one by one */
        r->v64[0] = simt_ldl(buf);
        *ok = simt_mem(r, w, in, ALL_LANES, 1);
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
                simt_stl(p + off[l], v[l]);
            } else {
                d[l] = simt_ldl(p + off[l]);
            }
        }
    }
    return true;
}

/* LDG, STG, LDS, STS, LDC: the fast paths that apply, else lane by lane */
static inline SIMT_ALWAYS_INLINE
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
    return !exec || simt_mem(r, w, in, exec, 0);
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
        if (G_UNLIKELY(vec8_any(nan_))) { \
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
static inline SIMT_ALWAYS_INLINE
void gr_setp(GrWarp *w, const GrInsn *in, uint32_t exec, const uint32_t *a,
             const uint32_t *b)
{
    uint32_t lt = 0, eq = 0, un = 0, m;

    if (in->op == TGPU_OP_FSETP) {
        for (int l = 0; l < W; l++) {
            lt |= (uint32_t)(simt_flt(a[l]) < simt_flt(b[l])) << l;
            eq |= (uint32_t)(simt_flt(a[l]) == simt_flt(b[l])) << l;
            un |= (uint32_t)isunordered(simt_flt(a[l]), simt_flt(b[l])) << l;
        }
    } else {
        for (int l = 0; l < W; l++) {
            lt |= (uint32_t)(in->op == TGPU_OP_ISETP
                             ? (int32_t)a[l] < (int32_t)b[l]
                             : a[l] < b[l]) << l;
            eq |= (uint32_t)(a[l] == b[l]) << l;
        }
    }
    m = simt_cmp_mask(in->sub, lt, eq, un);
    if (in->rd < TGPU_PRED_PT) {
        w->p[in->rd] = (w->p[in->rd] & ~exec) | (m & exec);
    }
}

/*
 * Run warp W until it exits, waits, sleeps, or the budget or the step
 * (TGPU_GR_STEP_TRANSLATIONS) ends.  This is compiled twice, for any host
 * and for hosts with AVX2 and FMA (see simt_warp), so that the lane loops
 * use the widest vectors there are; the counters and the PC live in
 * locals (w->pc is stored for each instruction, for the errors) until it
 * returns.
 */
static inline SIMT_ALWAYS_INLINE bool gr_warp_body(GrRun *r, GrWarp *w)
{
    GrKernel *k = r->k;
    const GrInsn *code = k->code;
    uint32_t ninsns = k->ninsns, pc = w->pc, *res = r->res, *hi = r->hi;
    uint64_t budget = r->budget, lane_ops = 0, n, extra = 0;
    bool ok = true;

    while (budget && r->translations < TGPU_GR_STEP_TRANSLATIONS) {
        const GrInsn *in;
        const uint32_t *A, *B, *C;
        uint32_t exec;

        w->pc = pc;
        if (G_UNLIKELY(pc >= ninsns)) {
            ok = simt_error(r, w, TGPU_KERR_PC, w->active, 0, pc);
            goto out;
        }
        in = &code[pc];
        exec = w->active & (w->p[in->pg] ^ -(uint32_t)in->pgneg);
        budget--;
        lane_ops += exec == ALL_LANES ? W : __builtin_popcount(exec);
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
            /* no lane left on this path */
            /* fall through */
        case TGPU_OP_SYNC:
            ok = simt_pop(r, w);
            if (!ok || w->state != WARP_RUN) {
                goto out;
            }
            pc = w->pc;
            continue;
        case TGPU_OP_TRAP:
            if (exec) {
                ok = simt_error(r, w, TGPU_KERR_TRAP, exec, 0, in->imm32);
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
            simt_s2r(r, w, in->imm32, k->cycles + r->budget - budget, res);
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
        case TGPU_OP_IMULHI:
            LANES(bit_mulhi(A[l], B[l], in->sub));
            break;
        case TGPU_OP_POPC:
            LANES(__builtin_popcount(A[l]));
            break;
        case TGPU_OP_CLZ:
            LANES(A[l] ? __builtin_clz(A[l]) : 32);
            break;
        case TGPU_OP_BREV:
            LANES(bit_brev(A[l]));
            break;
        case TGPU_OP_BFE:
            LANES(bit_bfe(A[l], B[l], in->sub));
            break;
        case TGPU_OP_BFI:
            LANES(bit_bfi(A[l], B[l], C[l]));
            break;
        case TGPU_OP_PRMT:
            LANES(bit_prmt(A[l], B[l], C[l], in->sub));
            break;
        case TGPU_OP_FSHL:
        case TGPU_OP_FSHR:
            LANES(bit_fsh(A[l], B[l], C[l], in->op == TGPU_OP_FSHR, in->sub));
            break;
        case TGPU_OP_MUFU: {
            /* the SFU's rate: the rest of the instruction's cycles */
            uint64_t more = MIN(tgpu_isa_cost(in->op, 1) - 1, budget);

            simt_mufu(r, w, in, exec);
            budget -= more;
            extra += more;
            break;
        }
        case TGPU_OP_DADD:
        case TGPU_OP_DSUB:
        case TGPU_OP_DMUL:
        case TGPU_OP_DFMA:
        case TGPU_OP_DMIN:
        case TGPU_OP_DMAX:
        case TGPU_OP_DABS:
        case TGPU_OP_DNEG:
        case TGPU_OP_DSETP: {
            /* the float64 rate: the rest of the instruction's cycles */
            uint64_t more = tgpu_isa_cost(in->op, MAX(k->f64_cost, 1)) - 1;

            if (in->op == TGPU_OP_DSETP) {
                simt_dsetp(w, in, exec);
            } else {
                simt_f64(r, w, in, exec);
            }
            more = MIN(more, budget);
            budget -= more;
            extra += more;
            break;
        }
        case TGPU_OP_ISETP64:
        case TGPU_OP_USETP64:
            simt_dsetp(w, in, exec);
            break;
        case TGPU_OP_ISUB64:
        case TGPU_OP_IMUL64:
        case TGPU_OP_IMULHI_S64:
        case TGPU_OP_IMULHI_U64:
        case TGPU_OP_SHL64:
        case TGPU_OP_SHR64:
        case TGPU_OP_SAR64:
            simt_int64(r, w, in, exec);
            break;
        case TGPU_OP_IADD_CO:
        case TGPU_OP_IADD_CIO:
        case TGPU_OP_IADD_CI:
        case TGPU_OP_ISUB_CO:
        case TGPU_OP_ISUB_CIO:
        case TGPU_OP_ISUB_CI:
            simt_carry(w, in, exec, B, res);
            break;
        case TGPU_OP_F2D:
        case TGPU_OP_D2F:
        case TGPU_OP_I2D:
        case TGPU_OP_U2D:
        case TGPU_OP_L2D:
        case TGPU_OP_UL2D:
        case TGPU_OP_D2I:
        case TGPU_OP_D2U:
        case TGPU_OP_D2L:
        case TGPU_OP_D2UL:
        case TGPU_OP_L2F:
        case TGPU_OP_UL2F:
        case TGPU_OP_F2L:
        case TGPU_OP_F2UL:
            simt_cvt(r, w, in, exec);
            break;
        case TGPU_OP_WSYNC:
            if (exec && !warp_sync(r, w, exec, B)) {
                ok = false;
                goto out;
            }
            break;
        case TGPU_OP_VOTE:
        case TGPU_OP_BALLOT: {
            uint32_t p = w->p[in->ra] ^ -(uint32_t)(in->imm16 & 1);

            if (in->op == TGPU_OP_BALLOT) {
                LANES(p & exec);
            } else if (in->rd < TGPU_PRED_PT) {
                uint32_t v = warp_vote(p, exec, in->sub) ? exec : 0;

                w->p[in->rd] = (w->p[in->rd] & ~exec) | v;
            }
            break;
        }
        case TGPU_OP_SHFL:
            if (in->bimm) {
                uint32_t sb = TGPU_SHFL_IMM_B(in->imm32);
                uint32_t sc = TGPU_SHFL_IMM_C(in->imm32);

                LANES(A[warp_shfl_src(in->sub, l, sb, sc)]);
            } else {
                LANES(A[warp_shfl_src(in->sub, l, B[l], C[l])]);
            }
            break;
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
            if (in->sub) {
                simt_f32_rounded(r, w, in, exec, B);
                break;
            }
            FLANES(vec8_fadd(a, b));
            break;
        case TGPU_OP_FSUB:
            if (in->sub) {
                simt_f32_rounded(r, w, in, exec, B);
                break;
            }
            FLANES(vec8_fsub(a, b));
            break;
        case TGPU_OP_FMUL:
            if (in->sub) {
                simt_f32_rounded(r, w, in, exec, B);
                break;
            }
            FLANES(vec8_fmul(a, b));
            break;
        case TGPU_OP_FMIN:
            LANES(fminmax(A[l], B[l], false));
            break;
        case TGPU_OP_FMAX:
            LANES(fminmax(A[l], B[l], true));
            break;
        case TGPU_OP_FFMA:
            if (in->sub) {
                simt_f32_rounded(r, w, in, exec, B);
                break;
            }
            FLANES(vec8_ffma(a, b, c));
            break;
        case TGPU_OP_FABS:
            VLANES(a & 0x7fffffffu);
            break;
        case TGPU_OP_FNEG:
            VLANES(a ^ 0x80000000u);
            break;
        case TGPU_OP_I2F:
        case TGPU_OP_U2F:
        case TGPU_OP_F2I:
        case TGPU_OP_F2U:
            /* the default: i2f, u2f round to nearest; f2i, f2u truncate */
            if (in->sub) {
                simt_f32_rounded(r, w, in, exec, B);
            } else if (in->op == TGPU_OP_I2F) {
                LANES(simt_flt_bits((float)(int32_t)A[l]));
            } else if (in->op == TGPU_OP_U2F) {
                LANES(simt_flt_bits((float)A[l]));
            } else {
                LANES(f2i(simt_flt(A[l]), in->op == TGPU_OP_F2U));
            }
            break;
        case TGPU_OP_LDG:
        case TGPU_OP_STG:
            /* an invalidation waits for this instruction's accesses */
            r->ops->lock(r->opaque);
            ok = gr_ld_st(r, w, in, exec);
            r->ops->unlock(r->opaque);
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
                r->ops->lock(r->opaque);
            }
            ok = !exec || simt_atom(r, w, in, exec);
            if (in->op == TGPU_OP_ATOMG) {
                r->ops->unlock(r->opaque);
            }
            if (!ok) {
                goto out;
            }
            break;
        default:
            ok = simt_error(r, w, TGPU_KERR_ILLEGAL_INSN, w->active, 0, pc);
            goto out;
        }
        pc++;
    }
    w->pc = pc;
out:
    /* N cycles: the instructions, and what float64 ones cost more */
    n = r->budget - budget;
    r->budget = budget;
    r->warp_insns += n - extra;
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
bool (*simt_warp)(GrRun *r, GrWarp *w) = gr_warp_generic;

bool tgpu_simt_select(bool vector)
{
    simt_warp = gr_warp_generic;
#ifdef HOST_X86_64
    if (vector && __builtin_cpu_supports("avx2") &&
        __builtin_cpu_supports("fma") && __builtin_cpu_supports("popcnt")) {
        simt_warp = gr_warp_avx2;
    }
#endif
    return simt_warp != gr_warp_generic;
}
