/*
 * tgpu SIMT executor: what the compute class, the decoder and the
 * executor share
 *
 * The executor runs a decoded kernel's CTAs, warp by warp, for a budget
 * of warp instructions.  It needs neither QEMU nor the device: global
 * memory is reached through GrMemOps, which the compute engine backs
 * with the GPU MMU and a host unit test with an array.  So these files
 * include only the C library, GLib, <tgpu/...> and config-host.h (for
 * HOST_<arch>), never qemu/osdep.h; tests/unit/test-simt.c builds them on
 * their own, with a config-host.h of its own.
 *
 * tgpu-simt-decode.c   the instruction decoder
 * tgpu-simt.c          CTAs, the run loop, slow paths of memory access
 * tgpu-simt-warp.c     a warp's instructions (the hot loop)
 *
 * Copyright (c) 2026 The tgpu authors
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */

#ifndef HW_TGPU_SIMT_H
#define HW_TGPU_SIMT_H

#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <glib.h>
#include "config-host.h"
#include "tgpu/isa.h"
#include "tgpu/mmu.h"

#define W                   TGPU_WARP_SIZE
/*
 * The executor's lane arrays start on a cache line, so that a row is
 * two whole 64-byte lines for the AVX2 paths whatever the allocator
 * returns: without it throughput moved by a quarter with the layout of
 * unrelated allocations.  Whatever holds them is allocated so aligned
 * (tgpu_simt_alloc0(), or qemu_memalign() in QEMU's code).
 */
#define SIMT_ALIGN          64
#define SIMT_ALIGNED        __attribute__((aligned(SIMT_ALIGN)))
#define ALL_LANES           0xffffffffu
/* register rows: R0..R63, then RZ as a zero pair */
#define ROW_RZ              TGPU_NR_REGS
#define NR_ROWS             (TGPU_NR_REGS + 2)
#define OP_ILLEGAL          0xff

#define SIMT_ALWAYS_INLINE  __attribute__((always_inline))

enum { WARP_RUN, WARP_BAR, WARP_SLEEP, WARP_EXITED };
enum { SIMT_SSY, SIMT_DIV };

/* A decoded instruction: fields checked once, at decode. */
typedef struct GrInsn {
    uint8_t op;             /* TGPU_OP_*, or OP_ILLEGAL */
    uint8_t pg, pgneg;
    uint8_t rd, ra, rb, rc; /* register rows (RZ: ROW_RZ) */
    uint8_t sub;
    bool bimm;              /* B is imm32 (not: an address offset, ...) */
    int16_t imm16;
    uint32_t imm32;
} GrInsn;

/* An SSY or divergence entry of a warp's reconvergence stack. */
typedef struct GrFrame {
    uint32_t pc, mask, type;
} GrFrame;

typedef struct GrWarp {
    uint32_t pc;
    uint32_t active;        /* lanes on the current path */
    uint32_t live;          /* lanes that have not exited */
    uint32_t exists;        /* lanes that are threads of the CTA */
    int state;
    uint32_t bar;
    uint32_t sp;
    GrFrame stack[TGPU_SIMT_STACK_DEPTH];
    uint32_t p[TGPU_NR_PREDS + 1];      /* per-lane masks; PT = all */
    uint32_t r[NR_ROWS][W] SIMT_ALIGNED;
    /*
     * How the lanes of each row lie as addresses (row_shape()): 0 when
     * not known; every write to a row sets it to 0.
     */
    uint8_t shape[NR_ROWS];
} GrWarp;

/* A kernel as the executor sees it: the launch, where it is, its end. */
typedef struct GrKernel {
    uint32_t ninsns;
    GrInsn *code;           /* NULL until tgpu_simt_load() */
    uint32_t rows;          /* register rows the code may write: 0..rows-1 */
    uint32_t grid[3], block[3];
    uint32_t shared_size;
    uint8_t param[TGPU_GR_PARAM_MAX];
    uint32_t param_size;
    uint32_t sm_count;      /* for SR_SMID */
    /*
     * SR_GLOBALTIMER: PTIMER ns at TIME_CYCLES of the kernel's cycles,
     * and the SM clock that turns cycles into ns (0: the time stands)
     */
    uint64_t time_ns, time_cycles;
    uint32_t clock_khz;
    uint32_t f64_cost;      /* a float64 instruction's cycles (0: 1) */

    /* where it is: the CTA in progress and its state */
    uint64_t ncta, cta;
    uint32_t nwarps, cur_warp;
    GrWarp *warps;
    uint8_t *shared;
    uint64_t cycles;

    /* how it ended */
    uint32_t error;         /* TGPU_KERR_* */
    uint32_t err_pc, err_warp, err_lane, err_info;
    uint64_t err_cta, err_va;
    int fault_type;         /* TGPU_FAULT_*, for the MMU errors */
    bool fault_write;
} GrKernel;

/*
 * How the executor reaches global memory.  global() translates the LEN
 * bytes at VA (naturally aligned, LEN at most 8) and returns 0 or a
 * TGPU_FAULT_*.  On 0 it either sets *page to the host address of VA's
 * page, which the executor then uses for the page until unlock(), or
 * does the access itself (tgpu_simt_access() on BUF, ATOMIC, B and C) and
 * sets *page to NULL.  lock() and unlock() bracket an instruction's
 * global accesses; checkpoint() is called between steps of a run, and
 * false ends the run there.
 */
/*
 * global(): 0 (done, or *page is the page's host memory to use), a
 * TGPU_FAULT_* for an MMU fault, or GR_MEM_ECC for an uncorrectable
 * error in the data.
 */
#define GR_MEM_ECC          (-1)

typedef struct GrMemOps {
    int (*global)(void *opaque, uint64_t va, unsigned int len,
                  bool is_write, uint8_t **page, void *buf, int atomic,
                  uint32_t b, uint32_t c);
    void (*lock)(void *opaque);
    void (*unlock)(void *opaque);
    bool (*checkpoint)(void *opaque);
} GrMemOps;

/* A kernel's run for one budget, with what it counts. */
typedef struct GrRun {
    GrKernel *k;
    const GrMemOps *ops;
    void *opaque;
    uint64_t budget;        /* warp instructions left */
    uint64_t warp_insns, lane_ops;
    uint32_t translations;  /* global() calls in this step */
    /* the last page a lane reached, for the others */
    uint64_t tlb_vpn;
    uint8_t *tlb_host;
    bool tlb_write, tlb_valid;
    /*
     * Per-instruction scratch, here rather than on the stack, which QEMU
     * builds zero at every instruction (-ftrivial-auto-var-init=zero).
     */
    uint32_t res[W] SIMT_ALIGNED, hi[W] SIMT_ALIGNED;
    uint32_t bsplat[W] SIMT_ALIGNED, addr[W] SIMT_ALIGNED;
    uint64_t v64[W] SIMT_ALIGNED;
} GrRun;

/* The float whose bits are V, and a float's bits (float32, float64). */
static inline float simt_flt(uint32_t v)
{
    float f;

    memcpy(&f, &v, 4);
    return f;
}

static inline uint32_t simt_flt_bits(float f)
{
    uint32_t v;

    memcpy(&v, &f, 4);
    return v;
}

static inline double simt_dbl(uint64_t v)
{
    double d;

    memcpy(&d, &v, 8);
    return d;
}

static inline uint64_t simt_dbl_bits(double d)
{
    uint64_t v;

    memcpy(&v, &d, 8);
    return v;
}

static inline bool simt_is_nan32(uint32_t v)
{
    return (v & 0x7fffffffu) > 0x7f800000u;
}

/*
 * Which NaN a float operation gives, as the interpreter has always
 * given it (the x86 scalar SSE and FMA units it was built for): the
 * first NaN operand in the order X, Y, Z, quieted; with none, the NaN
 * the operation made (R).  Vector units and compilers may pick another.
 */
static inline uint32_t simt_nan_first(uint32_t r, uint32_t x, uint32_t y,
                                      uint32_t z)
{
    if (simt_is_nan32(x)) {
        return x | 0x400000u;
    }
    if (simt_is_nan32(y)) {
        return y | 0x400000u;
    }
    return simt_is_nan32(z) ? z | 0x400000u : r;
}

/*
 * The lanes where comparison SUB (TGPU_CMP_*) holds, from the lanes
 * where a < b (LT), a == b (EQ) and the two are unordered (UN, NaNs):
 * ordered, except NE
 */
static inline uint32_t simt_cmp_mask(unsigned int sub, uint32_t lt,
                                     uint32_t eq, uint32_t un)
{
    switch (sub) {
    case TGPU_CMP_EQ:
        return eq;
    case TGPU_CMP_NE:
        return ~eq;
    case TGPU_CMP_LT:
        return lt;
    case TGPU_CMP_LE:
        return lt | eq;
    case TGPU_CMP_GT:
        return ~(lt | eq | un);
    }
    return ~(lt | un);          /* GE */
}

/* ---- the interface ------------------------------------------------------- */

/* N zeroed objects of SIZE bytes, SIMT_ALIGN aligned; free() frees them. */
static inline void *tgpu_simt_alloc0(size_t n, size_t size)
{
    void *p;

    if (posix_memalign(&p, SIMT_ALIGN, n * size)) {
        abort();
    }
    return memset(p, 0, n * size);
}

/* Decode one instruction; an invalid one decodes as OP_ILLEGAL. */
GrInsn tgpu_simt_decode(uint64_t insn);
/* The register rows IN may write: 0..n-1 (n 0: none) */
unsigned int tgpu_simt_rows(const GrInsn *in);

/*
 * Decode the program RAW (K->ninsns little-endian words) and make the
 * first CTA ready.  K's launch fields must be set and checked.
 */
void tgpu_simt_load(GrKernel *k, const uint64_t *raw);
/*
 * A kernel a migration stream brought: K's fields, and its warps and
 * shared memory loaded where tgpu_simt_load() would have allocated
 * them; RAW its program, or NULL when it was not fetched.  Checks that
 * the executor could have left it so and decodes the program: false
 * when it is out of range (tgpu_simt_free() still frees it).
 */
bool tgpu_simt_restore(GrKernel *k, const uint64_t *raw);
/* Run R->k for R->budget; true when the kernel ended (or failed). */
bool tgpu_simt_run(GrRun *r);
/* Free what tgpu_simt_load() allocated. */
void tgpu_simt_free(GrKernel *k);
/* Record error ERR (TGPU_KERR_*) at VA, outside any warp: false. */
bool tgpu_simt_fail(GrKernel *k, uint32_t err, uint64_t va);
/*
 * Run warps on the host's vector unit (AVX2 and FMA) if it has one, or
 * (VECTOR false) on the generic build; true when the vector build runs.
 */
bool tgpu_simt_select(bool vector);

/* ---- between the executor's files ---------------------------------------- */

bool simt_error(GrRun *r, GrWarp *w, uint32_t err, uint32_t lanes,
                uint64_t va, uint32_t info);
bool simt_global(GrRun *r, GrWarp *w, uint32_t lane, uint64_t va,
                 void *buf, unsigned int len, bool is_write,
                 int atomic, uint32_t b, uint32_t c);
bool simt_mem(GrRun *r, GrWarp *w, const GrInsn *in, uint32_t exec,
              int first);
void simt_atomic32(uint32_t *p, uint32_t *io, uint32_t b, uint32_t c,
                   unsigned int op);
bool simt_atom(GrRun *r, GrWarp *w, const GrInsn *in, uint32_t exec);
/* float64 arithmetic, DSETP and the conversions (sub: TGPU_RND_*) */
void simt_f64(GrRun *r, GrWarp *w, const GrInsn *in, uint32_t exec);
void simt_dsetp(GrWarp *w, const GrInsn *in, uint32_t exec);
void simt_cvt(GrRun *r, GrWarp *w, const GrInsn *in, uint32_t exec);
/*
 * FADD, FSUB, FMUL, FFMA, I2F, U2F, F2I, F2U in a rounding mode other
 * than their default (sub not 0); B as the warp loop found it
 */
void simt_f32_rounded(GrRun *r, GrWarp *w, const GrInsn *in, uint32_t exec,
                      const uint32_t *B);
/* MUFU: the float32 special functions (sub: TGPU_MUFU_*) */
void simt_mufu(GrRun *r, GrWarp *w, const GrInsn *in, uint32_t exec);
/* 64-bit integers (pairs), and the carries in a predicate */
void simt_int64(GrRun *r, GrWarp *w, const GrInsn *in, uint32_t exec);
void simt_carry(GrWarp *w, const GrInsn *in, uint32_t exec,
                const uint32_t *B, uint32_t *res);
void simt_s2r(GrRun *r, GrWarp *w, unsigned int sr, uint64_t cycles,
              uint32_t *v);
/*
 * Run warp W until it exits, waits, sleeps, or the budget or the step
 * (TGPU_GR_STEP_TRANSLATIONS) ends: the generic build or the vector one
 * (tgpu_simt_select())
 */
extern bool (*simt_warp)(GrRun *r, GrWarp *w);

/* Little-endian memory, as VRAM and guest RAM hold it */
static inline uint16_t simt_lduw(const void *p)
{
    uint16_t v;

    memcpy(&v, p, sizeof(v));
    return GUINT16_FROM_LE(v);
}

static inline uint32_t simt_ldl(const void *p)
{
    uint32_t v;

    memcpy(&v, p, sizeof(v));
    return GUINT32_FROM_LE(v);
}

static inline uint64_t simt_ldq(const void *p)
{
    uint64_t v;

    memcpy(&v, p, sizeof(v));
    return GUINT64_FROM_LE(v);
}

static inline void simt_stl(void *p, uint32_t v)
{
    v = GUINT32_TO_LE(v);
    memcpy(p, &v, sizeof(v));
}

static inline void simt_stq(void *p, uint64_t v)
{
    v = GUINT64_TO_LE(v);
    memcpy(p, &v, sizeof(v));
}

/*
 * Eight lanes as one vector (host byte order), for the loops over lanes
 * that GCC does not vectorise well by itself: one AVX2 register, or two
 * of SSE2.
 */
typedef uint32_t GrVec8 __attribute__((vector_size(32)));

static inline SIMT_ALWAYS_INLINE GrVec8 vec8_load(const void *p)
{
    GrVec8 v;

    memcpy(&v, p, sizeof(v));
    return v;
}

static inline SIMT_ALWAYS_INLINE void vec8_store(void *p, GrVec8 v)
{
    memcpy(p, &v, sizeof(v));
}

/* rd = V on the lanes of exec (rd RZ: discarded) */
static inline void wr32(GrWarp *w, unsigned int rd, const uint32_t *v,
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

static inline void wr64(GrWarp *w, unsigned int rd, const uint64_t *v,
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

static inline uint64_t rd64(GrWarp *w, unsigned int ra, int l)
{
    return (uint64_t)w->r[ra + 1][l] << 32 | w->r[ra][l];
}

/*
 * The access of GrMemOps.global() on host memory P: LEN bytes to or from
 * BUF, or with ATOMIC >= 0 the 32-bit atomic TGPU_ATOM_* ATOMIC with
 * operands B and C, the old value to BUF
 */
static inline void tgpu_simt_access(void *p, void *buf, unsigned int len,
                                    bool is_write, int atomic, uint32_t b,
                                    uint32_t c)
{
    if (atomic >= 0) {
        simt_atomic32(p, buf, b, c, atomic);
    } else if (is_write) {
        memcpy(p, buf, len);
    } else {
        memcpy(buf, p, len);
    }
}

#endif
