/*
 * QTest testcase for the tgpu compute engine: kernels that cover every
 * opcode group against a model computed here, divergence (nested
 * if/else, loops with per-lane trip counts), shared memory with barriers,
 * atomics under contention (exact totals), every kernel error code, and
 * a kernel that never ends: preempted so that another channel runs, then
 * stopped by an engine reset, and the bound on a step's translations.
 * docs/hw/isa.md is the specification.
 *
 * Kernels are written with the encoders of include/tgpu/isa.h; branch
 * targets are instruction indices, noted beside each kernel.
 *
 * Copyright (c) 2026 The tgpu authors
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */

#include "qemu/osdep.h"
#include <math.h>
#include "tgpu-qtest.h"
#include "tgpu/copy.h"
#include "tgpu/isa.h"
#include "tgpu-kernel.h"

#define PB_SIZE             0x8000u
#define FAULTBUF_SIZE       KERNEL_FAULTBUF_SIZE

/* VRAM, allocated at every start (gr_mem_start) */
static struct {
    ChanMem ch[NR_TEST_CHANNELS];
    KernelMem k;                /* 1 MiB of kernels */
    uint64_t in, out;           /* 8 MiB each */
} L;

#define CH_A                1               /* compute channels */
#define CH_B                2

static uint32_t seq;

/* ---- the device ---------------------------------------------------------- */

static Chan *gr_chan_up(T *t, int ch)
{
    return chan_up_class(t, chan_init_mem(t, ch, L.ch), SC,
                         TGPU_CLASS_COMPUTE);
}

static void gr_mem_start(T *t, const char *opts)
{
    tgpu_start(t, opts);
    chan_mem_alloc(t, L.ch, PB_SIZE);
    kernel_mem_alloc(t, &L.k, 1 * MiB);
    L.in = vram_alloc(t, 8 * MiB);
    L.out = vram_alloc(t, 8 * MiB);
}

static void gr_start(T *t)
{
    gr_mem_start(t, NULL);
    runlists_std(t);
    wr(t, TGPU_MMU_FAULT_BUF_LO, L.k.faultbuf);
    wr(t, TGPU_MMU_FAULT_BUF_HI, 0);
    wr(t, TGPU_MMU_FAULT_BUF_SIZE, FAULTBUF_SIZE);
    pa_zero(t, L.k.faultbuf, FAULTBUF_SIZE * TGPU_FAULT_RECORD_SIZE);
    gr_chan_up(t, CH_A);
}

/* Methods that launch K, releasing the next sequence number at L.k.sem. */
static uint32_t pb_kernel(T *t, PB *pb, const Kernel *k, uint64_t code_at)
{
    pb_kernel_at(t, pb, k, code_at, L.k.param, L.k.sem, ++seq);
    return seq;
}

/* Run K on channel C; it must end well. */
static void run_kernel(T *t, Chan *c, const Kernel *k)
{
    g_autofree PB *pb = pb_new();
    uint32_t sem = pb_kernel(t, pb, k, L.k.code);

    run(t, c, pb);
    g_assert_cmpuint(rd(t, TGPU_GR_ERROR), ==, 0);
    g_assert_cmphex(pa_rd32(t, L.k.sem), ==, sem);
    g_assert_cmphex(rd(t, TGPU_GR_STATUS), ==, 0);
}

/* Parameters: out base, in base, and up to two more words. */
typedef struct Params {
    uint64_t out, in;
    uint32_t x, y;
} Params;

static Params params(void)
{
    return (Params) {
        cpu_to_le64(L.out), cpu_to_le64(L.in), 0, 0,
    };
}

/*
 * Every kernel starts with the same 6 instructions: r0 = global thread
 * index, r2:r3 = out, r4:r5 = in (the first two parameters).
 */
#define PROLOGUE_LEN 6

static void words_read(T *t, uint64_t pa, uint32_t *w, size_t n)
{
    pa_read(t, pa, w, 4 * n);
    for (size_t i = 0; i < n; i++) {
        w[i] = le32_to_cpu(w[i]);
    }
}

static void words_write(T *t, uint64_t pa, const uint32_t *w, size_t n)
{
    g_autofree uint32_t *le = g_new(uint32_t, n);

    for (size_t i = 0; i < n; i++) {
        le[i] = cpu_to_le32(w[i]);
    }
    pa_write(t, pa, le, 4 * n);
}

static uint32_t rnd(uint32_t *x)
{
    *x ^= *x << 13;
    *x ^= *x >> 17;
    *x ^= *x << 5;
    return *x;
}

static float uf(uint32_t v)
{
    float f;

    memcpy(&f, &v, 4);
    return f;
}

static uint32_t fu(float f)
{
    uint32_t v;

    memcpy(&v, &f, 4);
    return v;
}

/* The documented conversions: truncate, saturate, NaN is 0. */
static uint32_t model_f2i(float f, bool u)
{
    if (isnan(f)) {
        return 0;
    }
    f = truncf(f);
    if (u) {
        return f <= 0 ? 0 : f >= 4294967296.0f ? 0xffffffffu : (uint32_t)f;
    }
    return f < -2147483648.0f ? 0x80000000u :
           f >= 2147483648.0f ? 0x7fffffffu : (uint32_t)(int32_t)f;
}

/* ---- every ALU group ----------------------------------------------------- */

enum { NRES = 40 };

static void test_alu(void)
{
    /*
     * Each thread loads a, b (int) and fa, fb (float) from in[4 * i] and
     * stores NRES results at out[NRES * i + j].
     */
    static const uint64_t code[] = {
        S2R(0, TID_X), S2R(1, CTAID_X), S2R(10, NTID_X),
        OPR(IMAD, 0, 1, 10, 0, 0, 0),
        LD(LDC, 64, 2, RZ, 0), LD(LDC, 64, 4, RZ, 8),
        MOVI(10, 16),
        OPR(IMADW, 6, 0, 10, 4, 0, 0),          /* r6:r7 = in + 16 i */
        LD(LDG, 32, 8, 6, 0), LD(LDG, 32, 9, 6, 4),
        LD(LDG, 32, 16, 6, 8), LD(LDG, 32, 17, 6, 12),
        MOVI(10, NRES * 4),
        OPR(IMADW, 12, 0, 10, 2, 0, 0),         /* r12:r13 = out + ... */
        MOVI(20, 1),
        RI(AND, 21, 9, 63),                     /* shift amount 0..63 */
        RR(IADD, 14, 8, 9), ST(STG, 32, 12, 4 * 0, 14),
        RR(ISUB, 14, 8, 9), ST(STG, 32, 12, 4 * 1, 14),
        RR(IMUL, 14, 8, 9), ST(STG, 32, 12, 4 * 2, 14),
        OPR(IMAD, 14, 8, 9, 8, 0, 0), ST(STG, 32, 12, 4 * 3, 14),
        RR(IMIN, 14, 8, 9), ST(STG, 32, 12, 4 * 4, 14),
        RR(IMAX, 14, 8, 9), ST(STG, 32, 12, 4 * 5, 14),
        RR(UMIN, 14, 8, 9), ST(STG, 32, 12, 4 * 6, 14),
        RR(UMAX, 14, 8, 9), ST(STG, 32, 12, 4 * 7, 14),
        RR(SHL, 14, 8, 21), ST(STG, 32, 12, 4 * 8, 14),
        RR(SHR, 14, 8, 21), ST(STG, 32, 12, 4 * 9, 14),
        RR(SAR, 14, 8, 21), ST(STG, 32, 12, 4 * 10, 14),
        RR(AND, 14, 8, 9), ST(STG, 32, 12, 4 * 11, 14),
        RR(OR, 14, 8, 9), ST(STG, 32, 12, 4 * 12, 14),
        RR(XOR, 14, 8, 9), ST(STG, 32, 12, 4 * 13, 14),
        OPR(NOT, 14, 8, 0, 0, 0, 0), ST(STG, 32, 12, 4 * 14, 14),
        RI(IADD, 14, 8, 0x12345), ST(STG, 32, 12, 4 * 15, 14),
        RI(SHL, 14, 8, 5), ST(STG, 32, 12, 4 * 16, 14),
        SETP(ISETP, LT, 1, 8, 9), OPR(SEL, 14, 20, RZ, 0, 1, 0),
        ST(STG, 32, 12, 4 * 17, 14),
        SETP(USETP, LT, 1, 8, 9), OPR(SEL, 14, 20, RZ, 0, 1, 0),
        ST(STG, 32, 12, 4 * 18, 14),
        SETPI(ISETP, GE, 2, 8, 0), OPR(SEL, 14, 8, 9, 0, 2, 0),
        ST(STG, 32, 12, 4 * 19, 14),
        SETP(FSETP, LT, 3, 16, 17), OPR(SEL, 14, 20, RZ, 0, 3, 0),
        ST(STG, 32, 12, 4 * 20, 14),
        SETP(FSETP, NE, 3, 16, 16), OPR(SEL, 14, 20, RZ, 0, 3, 0),
        ST(STG, 32, 12, 4 * 21, 14),
        RR(FADD, 14, 16, 17), ST(STG, 32, 12, 4 * 22, 14),
        RR(FSUB, 14, 16, 17), ST(STG, 32, 12, 4 * 23, 14),
        RR(FMUL, 14, 16, 17), ST(STG, 32, 12, 4 * 24, 14),
        OPR(FFMA, 14, 16, 17, 16, 0, 0), ST(STG, 32, 12, 4 * 25, 14),
        RR(FMIN, 14, 16, 17), ST(STG, 32, 12, 4 * 26, 14),
        RR(FMAX, 14, 16, 17), ST(STG, 32, 12, 4 * 27, 14),
        OPR(FABS, 14, 16, 0, 0, 0, 0), ST(STG, 32, 12, 4 * 28, 14),
        OPR(FNEG, 14, 16, 0, 0, 0, 0), ST(STG, 32, 12, 4 * 29, 14),
        OPR(I2F, 14, 8, 0, 0, 0, 0), ST(STG, 32, 12, 4 * 30, 14),
        OPR(U2F, 14, 8, 0, 0, 0, 0), ST(STG, 32, 12, 4 * 31, 14),
        OPR(F2I, 14, 16, 0, 0, 0, 0), ST(STG, 32, 12, 4 * 32, 14),
        OPR(F2U, 14, 16, 0, 0, 0, 0), ST(STG, 32, 12, 4 * 33, 14),
        /* 64-bit: a:b + sext(-3), a * b + (a:b) */
        OPI(IADD64, 14, 8, 0, (uint32_t)-3),
        ST(STG, 64, 12, 4 * 34, 14),
        OPR(IMADW, 14, 8, 9, 8, 0, 0),
        ST(STG, 64, 12, 4 * 36, 14),
        /* predicates: (a < b) xor !(a >= 0) */
        OPR(PLOP, 4, 1, 2, 0, TGPU_PLOP_XOR, TGPU_PLOP_NEG_B),
        OPR(SEL, 14, 20, RZ, 0, 4, 0), ST(STG, 32, 12, 4 * 38, 14),
        MOVI(14, 0xfeedbeef), ST(STG, 32, 12, 4 * 39, 14),
        EXIT,
    };
    enum { THREADS = 96, CTAS = 3, N = THREADS * CTAS };
    Params p;
    Kernel k = {
        code, ARRAY_SIZE(code), { CTAS }, { THREADS }, 0, &p, sizeof(p),
    };
    g_autofree uint32_t *in = g_new(uint32_t, 4 * N);
    g_autofree uint32_t *out = g_new(uint32_t, NRES * N);
    uint32_t x = 12345;
    T t;

    for (int i = 0; i < N; i++) {
        in[4 * i] = rnd(&x);
        in[4 * i + 1] = i % 7 ? rnd(&x) : in[4 * i];
        in[4 * i + 2] = fu((int32_t)rnd(&x) / 65536.0f);
        in[4 * i + 3] = i % 5 ? fu((int32_t)rnd(&x) / 1e6f) :
                        i % 2 ? 0x7fc00000u : fu(-0.0f);
    }
    in[2] = fu(NAN);
    in[6] = fu(3e9f);
    in[10] = fu(-3e9f);
    gr_start(&t);
    p = params();
    words_write(&t, L.in, in, 4 * N);
    run_kernel(&t, &t.ch[CH_A], &k);
    words_read(&t, L.out, out, NRES * N);

    for (int i = 0; i < N; i++) {
        uint32_t a = in[4 * i], b = in[4 * i + 1], s = b & 63;
        float fa = uf(in[4 * i + 2]), fb = uf(in[4 * i + 3]);
        uint64_t ab = (uint64_t)b << 32 | a;
        uint32_t want[NRES] = {
            a + b, a - b, a * b, a * b + a,
            MIN((int32_t)a, (int32_t)b), MAX((int32_t)a, (int32_t)b),
            MIN(a, b), MAX(a, b),
            s >= 32 ? 0 : a << s, s >= 32 ? 0 : a >> s,
            (uint32_t)((int32_t)a >> MIN(s, 31u)),
            a & b, a | b, a ^ b, ~a, a + 0x12345, a << 5,
            (int32_t)a < (int32_t)b, a < b, (int32_t)a >= 0 ? a : b,
            fa < fb, fa != fa,
            fu(fa + fb), fu(fa - fb), fu(fa * fb), fu(fmaf(fa, fb, fa)),
            fu(fminf(fa, fb)), fu(fmaxf(fa, fb)), fu(fabsf(fa)), fu(-fa),
            fu((float)(int32_t)a), fu((float)a),
            model_f2i(fa, false), model_f2i(fa, true),
            (uint32_t)(ab - 3), (uint32_t)((ab - 3) >> 32),
            (uint32_t)((uint64_t)a * b + ab),
            (uint32_t)(((uint64_t)a * b + ab) >> 32),
            (a < b) ^ ((int32_t)a < 0), 0xfeedbeef,
        };

        for (int j = 0; j < NRES; j++) {
            if (out[NRES * i + j] != want[j]) {
                g_test_message("thread %d result %d: a %08x b %08x fa %g "
                               "fb %g", i, j, a, b, fa, fb);
            }
            g_assert_cmphex(out[NRES * i + j], ==, want[j]);
        }
    }
    g_assert_cmpuint(rd(&t, TGPU_GR_LAUNCHES), ==, 1);
    g_assert_cmpuint(rd(&t, TGPU_GR_WARP_INSNS_LO), ==,
                     ARRAY_SIZE(code) * CTAS * THREADS / 32);
    tgpu_stop(&t);
}

/* Loads and stores of every width, global, shared and constant. */
static void test_memory_widths(void)
{
    static const uint64_t code[] = {
        S2R(0, TID_X), S2R(1, CTAID_X), S2R(10, NTID_X), /* one thread */
        OPR(IMAD, 0, 1, 10, 0, 0, 0),
        LD(LDC, 64, 2, RZ, 0), LD(LDC, 64, 4, RZ, 8),
        LD(LDG, U8, 8, 4, 1), ST(STG, 32, 2, 0, 8),
        LD(LDG, S8, 8, 4, 1), ST(STG, 32, 2, 4, 8),
        LD(LDG, U16, 8, 4, 2), ST(STG, 32, 2, 8, 8),
        LD(LDG, S16, 8, 4, 2), ST(STG, 32, 2, 12, 8),
        LD(LDG, 64, 8, 4, 8), ST(STG, 64, 2, 16, 8),
        ST(STG, U8, 2, 24, 8), ST(STG, S16, 2, 26, 8),
        /* shared: store 64, load back as bytes and words */
        ST(STS, 64, RZ, 8, 8), LD(LDS, S8, 10, RZ, 15),
        ST(STG, 32, 2, 32, 10), LD(LDS, 32, 10, RZ, 12),
        ST(STG, 32, 2, 36, 10),
        /* constants: the extra parameter words */
        LD(LDC, 32, 10, RZ, 16), ST(STG, 32, 2, 40, 10),
        LD(LDC, U16, 10, RZ, 22), ST(STG, 32, 2, 44, 10),
        EXIT,
    };
    Params p;
    Kernel k = { code, ARRAY_SIZE(code), { 1 }, { 1 }, 64, &p, sizeof(p) };
    static const uint8_t in[16] = {
        0x00, 0xf1, 0x82, 0x93, 0, 0, 0, 0,
        0x11, 0x22, 0x33, 0x44, 0x55, 0x66, 0x77, 0x88,
    };
    uint32_t out[12];
    T t;

    gr_start(&t);
    p = params();
    p.x = cpu_to_le32(0xcafef00d);
    p.y = cpu_to_le32(0xa5a5fedc);
    pa_write(&t, L.in, in, sizeof(in));
    pa_zero(&t, L.out, sizeof(out));
    run_kernel(&t, &t.ch[CH_A], &k);
    words_read(&t, L.out, out, 12);
    g_assert_cmphex(out[0], ==, 0xf1);
    g_assert_cmphex(out[1], ==, 0xfffffff1);
    g_assert_cmphex(out[2], ==, 0x9382);
    g_assert_cmphex(out[3], ==, 0xffff9382);
    g_assert_cmphex(out[4], ==, 0x44332211);
    g_assert_cmphex(out[5], ==, 0x88776655);
    g_assert_cmphex(out[6], ==, 0x22110011);     /* u8, then s16 at +26 */
    g_assert_cmphex(out[8], ==, 0xffffff88);     /* byte 15 of 0x88.. */
    g_assert_cmphex(out[9], ==, 0x88776655);
    g_assert_cmphex(out[10], ==, 0xcafef00d);
    g_assert_cmphex(out[11], ==, 0xa5a5);
    tgpu_stop(&t);
}

/* ---- divergence ---------------------------------------------------------- */

static void test_divergence(void)
{
    /*
     * out[i] = i % 3 == 0 ? (i % 2 ? 100 : 200) : 300 + sum(1..i), the
     * sum in a loop of i trips whose exit block counts the lanes through
     * it (each must pass once: 100000); + 1000 after reconvergence.
     */
    static const uint64_t code[] = {
        S2R(0, TID_X), S2R(1, CTAID_X), S2R(10, NTID_X), /* 0..5 */
        OPR(IMAD, 0, 1, 10, 0, 0, 0),
        LD(LDC, 64, 2, RZ, 0), LD(LDC, 64, 4, RZ, 8),
        MOVI(10, 4),                                /* 6 */
        OPR(IMADW, 12, 0, 10, 2, 0, 0),             /* 7 */
        /* r8 = i % 3 via i - 3 * (i * 0xaaab >> 17), i < 2^15 */
        RI(IMUL, 8, 0, 0xaaab), RI(SHR, 8, 8, 17),  /* 8, 9 */
        RI(IMUL, 8, 8, 3), RR(ISUB, 8, 0, 8),       /* 10, 11 */
        SSY(33),                                    /* 12 */
        SETPI(ISETP, NE, 0, 8, 0),                  /* 13 */
        IF(0, BRA(21)),                             /* 14 */
        /* then: nested if on i % 2 */
        SSY(21),                                    /* 15 */
        RI(AND, 9, 0, 1), SETPI(ISETP, EQ, 1, 9, 0),  /* 16, 17 */
        MOVI(14, 100),                              /* 18 */
        IF(1, MOVI(14, 200)),                       /* 19 */
        SYNC,                                       /* 20 */
        IFN(0, BRA(32)),                            /* 21: then-lanes out */
        /* else: r9 = i, a loop of i trips with unguarded arithmetic */
        OPR(MOV, 9, 0, RZ, 0, 0, 0),                /* 22 */
        RR(IADD, 9, 0, RZ),                         /* 23 */
        MOVI(14, 300),                              /* 24 */
        SETPI(ISETP, GT, 2, 9, 0),                  /* 25 */
        IFN(2, BRA(30)),                            /* 26 */
        RR(IADD, 14, 14, 9),                        /* 27 */
        RI(IADD, 9, 9, (uint32_t)-1),               /* 28 */
        BRA(25),                                    /* 29 */
        RI(IADD, 16, 16, 1),                        /* 30: loop exit */
        MOVI(17, 100000),                           /* 31 */
        SYNC,                                       /* 32 */
        OPR(IMAD, 14, 16, 17, 14, 0, 0),            /* 33 */
        RI(IADD, 14, 14, 1000),                     /* 34 */
        ST(STG, 32, 12, 0, 14),                     /* 35 */
        EXIT,                                       /* 36 */
    };
    enum { THREADS = 160, CTAS = 2, N = THREADS * CTAS };
    Params p;
    Kernel k = {
        code, ARRAY_SIZE(code), { CTAS }, { THREADS }, 0, &p, sizeof(p),
    };
    uint32_t out[N];
    T t;

    gr_start(&t);
    p = params();
    run_kernel(&t, &t.ch[CH_A], &k);
    words_read(&t, L.out, out, N);
    for (int i = 0; i < N; i++) {
        uint32_t want;

        if (i % 3 == 0) {
            want = i % 2 ? 100 : 200;
        } else {
            want = 300 + i * (i + 1) / 2 + 100000;
        }
        g_assert_cmpuint(out[i], ==, want + 1000);
    }
    tgpu_stop(&t);
}

/* ---- shared memory, barriers, atomics ------------------------------------ */

static void test_shared_barrier(void)
{
    /* each CTA reverses its 256 words through shared memory */
    static const uint64_t code[] = {
        S2R(0, TID_X), S2R(1, CTAID_X), S2R(10, NTID_X),
        OPR(IMAD, 0, 1, 10, 0, 0, 0),
        LD(LDC, 64, 2, RZ, 0), LD(LDC, 64, 4, RZ, 8),
        S2R(6, TID_X),
        MOVI(10, 4),
        OPR(IMADW, 12, 0, 10, 4, 0, 0),         /* in + 4 i */
        LD(LDG, 32, 8, 12, 0),
        RI(SHL, 7, 6, 2),
        ST(STS, 32, 7, 0, 8),                   /* shared[t] = in[i] */
        BAR(3),
        MOVI(9, 255), RR(ISUB, 9, 9, 6),
        RI(SHL, 9, 9, 2),
        LD(LDS, 32, 8, 9, 0),                   /* shared[255 - t] */
        OPR(IMADW, 12, 0, 10, 2, 0, 0),
        ST(STG, 32, 12, 0, 8),
        EXIT,
    };
    enum { THREADS = 256, CTAS = 4, N = THREADS * CTAS };
    Params p;
    Kernel k = {
        code, ARRAY_SIZE(code), { CTAS }, { THREADS }, 1024, &p, sizeof(p),
    };
    uint32_t in[N], out[N], x = 99;
    T t;

    for (int i = 0; i < N; i++) {
        in[i] = rnd(&x);
    }
    gr_start(&t);
    p = params();
    words_write(&t, L.in, in, N);
    run_kernel(&t, &t.ch[CH_A], &k);
    words_read(&t, L.out, out, N);
    for (int i = 0; i < N; i++) {
        int c = i / THREADS, j = i % THREADS;

        g_assert_cmphex(out[i], ==, in[c * THREADS + THREADS - 1 - j]);
    }
    tgpu_stop(&t);
}

static void test_atomics(void)
{
    /*
     * 64 CTAs of 256 threads: global add of 1 and of i, max of i, a CAS
     * loop adding 3; per CTA a shared-memory sum, then one global add.
     */
    static const uint64_t code[] = {
        S2R(0, TID_X), S2R(1, CTAID_X), S2R(10, NTID_X), /* 0..5 */
        OPR(IMAD, 0, 1, 10, 0, 0, 0),
        LD(LDC, 64, 2, RZ, 0), LD(LDC, 64, 4, RZ, 8),
        MOVI(8, 1),                              /* 6 */
        OPR(ATOMG, 9, 2, 8, RZ, TGPU_ATOM_ADD, 0),      /* 7: out[0] += 1 */
        OPR(ATOMG, 9, 2, 0, RZ, TGPU_ATOM_ADD, 4),      /* 8: out[1] += i */
        OPR(ATOMG, 9, 2, 0, RZ, TGPU_ATOM_MAX, 8),      /* 9: max */
        OPR(ATOMG, 9, 2, 0, RZ, TGPU_ATOM_MIN, 12),     /* 10: min */
        /* CAS loop: do { old = out[4]; } while (cas(old, old + 3) fails) */
        SSY(18),                                        /* 11 */
        LD(LDG, 32, 10, 2, 16),                         /* 12 */
        RI(IADD, 11, 10, 3),                            /* 13 */
        OPR(ATOMG, 9, 2, 10, 11, TGPU_ATOM_CAS, 16),    /* 14 */
        SETP(ISETP, NE, 0, 9, 10),                      /* 15 */
        IF(0, BRA(12)),                                 /* 16 */
        SYNC,                                           /* 17 */
        /* shared: s[0] += tid; barrier; thread 0 adds it to out[5] */
        S2R(6, TID_X),                                  /* 18 */
        OPR(ATOMS, 9, RZ, 6, RZ, TGPU_ATOM_ADD, 0),     /* 19 */
        BAR(0),                                         /* 20 */
        SETPI(ISETP, NE, 1, 6, 0),                      /* 21 */
        IF(1, EXIT),                                    /* 22 */
        LD(LDS, 32, 10, RZ, 0),                         /* 23 */
        OPR(ATOMG, 9, 2, 10, RZ, TGPU_ATOM_ADD, 20),    /* 24 */
        EXIT,                                           /* 25 */
    };
    enum { THREADS = 256, CTAS = 64, N = THREADS * CTAS };
    Params p;
    Kernel k = {
        code, ARRAY_SIZE(code), { CTAS }, { THREADS }, 4, &p, sizeof(p),
    };
    uint32_t out[6] = { 0, 0, 0, 0x7fffffff, 0, 0 };
    T t;

    gr_start(&t);
    p = params();
    words_write(&t, L.out, out, 6);
    run_kernel(&t, &t.ch[CH_A], &k);
    words_read(&t, L.out, out, 6);
    g_assert_cmpuint(out[0], ==, N);
    g_assert_cmpuint(out[1], ==, (uint32_t)((uint64_t)N * (N - 1) / 2));
    g_assert_cmpuint(out[2], ==, N - 1);
    g_assert_cmpuint(out[3], ==, 0);
    g_assert_cmpuint(out[4], ==, 3 * N);
    g_assert_cmpuint(out[5], ==, CTAS * (THREADS * (THREADS - 1) / 2));
    tgpu_stop(&t);
}

/* Special registers of a 3D grid of 3D blocks. */
static void test_special_registers(void)
{
    static const uint32_t srs[] = {
        TGPU_SR_TID_X, TGPU_SR_TID_Y, TGPU_SR_TID_Z, TGPU_SR_NTID_X,
        TGPU_SR_NTID_Y, TGPU_SR_NTID_Z, TGPU_SR_CTAID_X, TGPU_SR_CTAID_Y,
        TGPU_SR_CTAID_Z, TGPU_SR_NCTAID_X, TGPU_SR_NCTAID_Y,
        TGPU_SR_NCTAID_Z, TGPU_SR_LANEID, TGPU_SR_WARPID, TGPU_SR_SMID,
    };
    enum { NS = ARRAY_SIZE(srs), BX = 5, BY = 3, BZ = 4, GX = 3, GY = 2,
           GZ = 2, T_PER = BX * BY * BZ, N = T_PER * GX * GY * GZ };
    uint64_t code[64];
    uint32_t n = 0;
    Params p;
    g_autofree uint32_t *out = g_new(uint32_t, (NS + 1) * N);
    Kernel k;
    T t;

    /* r0 = linear thread index within the grid, by hand */
    code[n++] = S2R(20, TID_X);
    code[n++] = S2R(21, TID_Y);
    code[n++] = S2R(22, TID_Z);
    code[n++] = S2R(23, CTAID_X);
    code[n++] = S2R(24, CTAID_Y);
    code[n++] = S2R(25, CTAID_Z);
    code[n++] = RI(IMUL, 0, 25, GY);            /* cta = (z*GY+y)*GX+x */
    code[n++] = RR(IADD, 0, 0, 24);
    code[n++] = RI(IMUL, 0, 0, GX);
    code[n++] = RR(IADD, 0, 0, 23);
    code[n++] = RI(IMUL, 0, 0, BZ);             /* then the thread */
    code[n++] = RR(IADD, 0, 0, 22);
    code[n++] = RI(IMUL, 0, 0, BY);
    code[n++] = RR(IADD, 0, 0, 21);
    code[n++] = RI(IMUL, 0, 0, BX);
    code[n++] = RR(IADD, 0, 0, 20);
    code[n++] = LD(LDC, 64, 2, RZ, 0);
    code[n++] = MOVI(10, 4 * (NS + 1));
    code[n++] = OPR(IMADW, 12, 0, 10, 2, 0, 0);
    for (uint32_t i = 0; i < NS; i++) {
        code[n++] = OPI(S2R, 14, 0, 0, srs[i]);
        code[n++] = ST(STG, 32, 12, 4 * i, 14);
    }
    code[n++] = S2R(14, CLOCK_LO);
    code[n++] = ST(STG, 32, 12, 4 * NS, 14);
    code[n++] = EXIT;
    k = (Kernel) { code, n, { GX, GY, GZ }, { BX, BY, BZ }, 0, &p,
                   sizeof(p) };
    gr_start(&t);
    p = params();
    run_kernel(&t, &t.ch[CH_A], &k);
    words_read(&t, L.out, out, (NS + 1) * N);
    for (uint32_t i = 0; i < N; i++) {
        uint32_t cta = i / T_PER, th = i % T_PER;
        uint32_t want[NS] = {
            th % BX, th / BX % BY, th / (BX * BY), BX, BY, BZ,
            cta % GX, cta / GX % GY, cta / (GX * GY), GX, GY, GZ,
            th % 32, th / 32, 0,
        };
        uint32_t *o = out + (NS + 1) * i;

        for (uint32_t j = 0; j < NS - 1; j++) {
            g_assert_cmpuint(o[j], ==, want[j]);
        }
        g_assert_cmpuint(o[NS - 1], <, 256);    /* SMID: some SM */
        g_assert_cmpuint(o[NS], >, 0);          /* the clock runs */
    }
    tgpu_stop(&t);
}

/* ---- errors -------------------------------------------------------------- */

static void expect_kernel_err(T *t, Chan *c, uint32_t kerr)
{
    wait_state(t, c->id, TGPU_CHAN_STATE_ERROR);
    g_assert_cmpuint(crd(t, c->id, TGPU_CHAN_ERROR), ==, TGPU_ERR_COMPUTE);
    g_assert_cmpuint(crd(t, c->id, TGPU_CHAN_ERROR_INFO), ==, kerr);
    g_assert_cmpuint(rd(t, TGPU_GR_ERROR), ==, kerr);
    g_assert_cmphex(rd(t, TGPU_GR_STATUS), ==, 0);
    err_ack(t, c->id);
    chan_reset(t, c->id);
}

/* In the static table below, AT_OUT + offset stands for L.out + offset. */
#define AT_OUT              (1ull << 56)

static void test_errors(void)
{
    static const uint64_t illegal[] = { MOVI(1, 1), 0xfeull, EXIT };
    static const uint64_t bad_reg[] = { MOVI(64, 1), EXIT };
    static const uint64_t misaligned[] = {
        S2R(0, TID_X), S2R(1, CTAID_X), S2R(10, NTID_X),
        OPR(IMAD, 0, 1, 10, 0, 0, 0),
        LD(LDC, 64, 2, RZ, 0), LD(LDC, 64, 4, RZ, 8),
        LD(LDG, 32, 8, 2, 2), EXIT,
    };
    static const uint64_t fault[] = {
        S2R(0, TID_X), S2R(1, CTAID_X), S2R(10, NTID_X),
        OPR(IMAD, 0, 1, 10, 0, 0, 0),
        LD(LDC, 64, 2, RZ, 0), LD(LDC, 64, 4, RZ, 8),
        MOVI(8, 0x1000), MOVI(9, 0x1),
        ST(STG, 32, 8, 0x20, 8), EXIT,         /* VRAM past its end */
    };
    static const uint64_t shared_oob[] = {
        S2R(0, TID_X), RI(SHL, 0, 0, 2), ST(STS, 32, 0, 0, 0), EXIT,
    };
    static const uint64_t const_oob[] = { LD(LDC, 32, 1, RZ, 24), EXIT };
    static const uint64_t trap[] = {
        S2R(0, LANEID), SETPI(ISETP, EQ, 0, 0, 7),
        IF(0, OPI(TRAP, 0, 0, 0, 0x77)), EXIT,
    };
    static const uint64_t deadlock[] = {
        S2R(0, WARPID), SETPI(ISETP, EQ, 0, 0, 0),
        IF(0, BAR(1)), IFN(0, BAR(2)), EXIT,
    };
    static const uint64_t stack[] = { SSY(2), BRA(0), EXIT };
    static const uint64_t pc[] = { BRA(1000) };
    static const uint64_t sync_empty[] = { SYNC, EXIT };
    static const struct {
        const char *name;
        const uint64_t *code;
        uint32_t n, threads, shared, kerr, pc, lane, warp;
        uint64_t va;
        uint32_t info;
    } cases[] = {
        { "illegal", illegal, 3, 32, 0, TGPU_KERR_ILLEGAL_INSN, 1, 0, 0,
          0, 1 },
        { "bad register", bad_reg, 2, 32, 0, TGPU_KERR_ILLEGAL_INSN, 0, 0, 0,
          0, 0 },
        { "misaligned", misaligned, PROLOGUE_LEN + 2, 32, 0,
          TGPU_KERR_MISALIGNED, PROLOGUE_LEN, 0, 0, AT_OUT + 2, 0 },
        { "mmu fault", fault, PROLOGUE_LEN + 4, 32, 0,
          TGPU_KERR_MMU_FAULT, PROLOGUE_LEN + 2, 0, 0,
          0x100001020ull, 0 },
        { "shared", shared_oob, 4, 64, 128, TGPU_KERR_SHARED, 2, 0, 1,
          128, 0 },
        { "const", const_oob, 2, 32, 0, TGPU_KERR_CONST, 0, 0, 0, 24, 0 },
        { "trap", trap, 4, 64, 0, TGPU_KERR_TRAP, 2, 7, 0, 0, 0x77 },
        { "barrier", deadlock, 5, 64, 0, TGPU_KERR_BARRIER, 2, 0, 0, 0, 1 },
        { "stack", stack, 3, 32, 0, TGPU_KERR_STACK, 0, 0, 0, 0, 0 },
        { "pc", pc, 1, 32, 0, TGPU_KERR_PC, 1000, 0, 0, 0, 1000 },
        { "sync", sync_empty, 2, 32, 0, TGPU_KERR_STACK, 0, 0, 0, 0, 0 },
    };
    Params p;
    T t;

    gr_start(&t);
    p = params();
    for (size_t i = 0; i < ARRAY_SIZE(cases); i++) {
        Kernel k = {
            cases[i].code, cases[i].n, { 1 }, { cases[i].threads },
            cases[i].shared, &p, sizeof(Params) - 8,
        };
        Chan *c = &t.ch[CH_A];
        g_autofree PB *pb = pb_new();
        uint64_t va = cases[i].va;

        if (va & AT_OUT) {
            va = L.out + (va & ~AT_OUT);
        }
        g_test_message("kernel error: %s", cases[i].name);
        if (chan_state(&t, CH_A) != TGPU_CHAN_STATE_IDLE) {
            c = gr_chan_up(&t, CH_A);
        }
        pb_kernel(&t, pb, &k, L.k.code);
        submit(&t, c, pb);
        expect_kernel_err(&t, c, cases[i].kerr);
        if (cases[i].kerr != TGPU_KERR_STACK) {
            g_assert_cmpuint(rd(&t, TGPU_GR_ERROR_PC), ==, cases[i].pc);
        }
        g_assert_cmpuint(rd(&t, TGPU_GR_ERROR_LANE), ==, cases[i].lane);
        g_assert_cmpuint(rd(&t, TGPU_GR_ERROR_WARP), ==, cases[i].warp);
        g_assert_cmphex(rd(&t, TGPU_GR_ERROR_VA_LO), ==, (uint32_t)va);
        g_assert_cmphex(rd(&t, TGPU_GR_ERROR_VA_HI), ==, va >> 32);
        g_assert_cmphex(rd(&t, TGPU_GR_ERROR_INFO), ==, cases[i].info);
        gr_chan_up(&t, CH_A);
    }
    /* the MMU fault is in the fault buffer, engine compute */
    g_assert_cmpuint(rd(&t, TGPU_MMU_FAULT_BUF_PUT), ==, 1);
    g_assert_cmpuint(pa_rd32(&t, L.k.faultbuf + TGPU_FAULT_REC_CHID), ==,
                     CH_A);
    g_assert_cmpuint(pa_rd32(&t, L.k.faultbuf + 0x18) & 0xff, ==,
                     TGPU_FAULT_ENGINE_COMPUTE);

    /* launch errors: no threads, too many, a misaligned program */
    for (int i = 0; i < 3; i++) {
        Kernel k = { illegal, 3, { 1 }, { i == 1 ? 1025 : 32 }, 0, &p, 0 };
        g_autofree PB *pb = pb_new();

        pb_kernel(&t, pb, &k, L.k.code + (i == 2 ? 4 : 0));
        if (i == 0) {
            pb->dw[pb->n - 13] = 0;             /* BLOCK_X = 0 */
        }
        submit(&t, &t.ch[CH_A], pb);
        expect_kernel_err(&t, &t.ch[CH_A], TGPU_KERR_LAUNCH);
        gr_chan_up(&t, CH_A);
    }

    /* the program, then the parameters, where nothing answers */
    for (int i = 0; i < 2; i++) {
        Kernel k = { illegal, 3, { 1 }, { 32 }, 0, &p, 16 };
        g_autofree PB *pb = pb_new();

        pb_kernel(&t, pb, &k, L.k.code);
        pb->dw[i ? pb->n - 8 : 2] = VRAM_GAP;   /* PROGRAM/PARAM_LOWER */
        submit(&t, &t.ch[CH_A], pb);
        expect_kernel_err(&t, &t.ch[CH_A],
                          i ? TGPU_KERR_CONST : TGPU_KERR_PROGRAM_FAULT);
        if (!i) {
            g_assert_cmphex(rd(&t, TGPU_GR_ERROR_VA_LO), ==, VRAM_GAP);
        }
        gr_chan_up(&t, CH_A);
    }
    /* each was an MMU fault too: the compute engine's, the host's */
    g_assert_cmpuint(rd(&t, TGPU_MMU_FAULT_BUF_PUT), ==, 3);
    g_assert_cmpuint(pa_rd32(&t, L.k.faultbuf + TGPU_FAULT_RECORD_SIZE + 0x18)
                     & 0xff, ==, TGPU_FAULT_ENGINE_COMPUTE);
    g_assert_cmpuint(pa_rd32(&t, L.k.faultbuf + 2 * TGPU_FAULT_RECORD_SIZE +
                             0x18) & 0xff, ==, TGPU_FAULT_ENGINE_HOST);
    tgpu_stop(&t);
}

/* ---- a kernel that never ends -------------------------------------------- */

/*
 * Wait until a submitted spinner's kernel is under way: its channel on
 * the engine, or between two of its slices (a doorbell now starts the
 * kernel during the write, so its first slice can be over before the
 * first look), with the engine's progress moved.
 */
static void wait_kernel_started(T *t, int ch)
{
    const uint32_t reg = TGPU_PMC_ENGINE_PROGRESS(TGPU_RUNLIST_COMPUTE);
    gint64 end = g_get_monotonic_time() + WAIT_US;
    uint32_t s;

    for (;;) {
        s = chan_state(t, ch);
        if (s == TGPU_CHAN_STATE_RUNNING ||
            (s == TGPU_CHAN_STATE_PENDING && rd(t, reg) != 0) ||
            g_get_monotonic_time() > end) {
            break;
        }
    }
    if (s != TGPU_CHAN_STATE_RUNNING && s != TGPU_CHAN_STATE_PENDING) {
        note_error(t, ch);
    }
    g_assert_true(s == TGPU_CHAN_STATE_RUNNING ||
                  s == TGPU_CHAN_STATE_PENDING);
}

static void test_hang(void)
{
    static const uint64_t spin[] = { RI(IADD, 1, 1, 1), BRA(0) };
    static const uint64_t quick[] = {
        S2R(0, TID_X), S2R(1, CTAID_X), S2R(10, NTID_X),
        OPR(IMAD, 0, 1, 10, 0, 0, 0),
        LD(LDC, 64, 2, RZ, 0), LD(LDC, 64, 4, RZ, 8),
        MOVI(8, 0x600d), ST(STG, 32, 2, 0, 8), EXIT,
    };
    Params p;
    Kernel hang = { spin, 2, { 4 }, { 256 }, 0, NULL, 0 };
    Kernel ok = { quick, ARRAY_SIZE(quick), { 1 }, { 32 }, 0, &p,
                  sizeof(p) };
    g_autofree PB *pb = pb_new();
    uint32_t pre;
    Chan *b;
    T t;

    gr_start(&t);
    p = params();
    b = gr_chan_up(&t, CH_B);
    pb_kernel(&t, pb, &hang, L.k.code);
    submit(&t, &t.ch[CH_A], pb);
    wait_kernel_started(&t, CH_A);

    /* another channel's kernel still runs: the spinner is preempted */
    pb->n = 0;
    pa_wr32(&t, L.out, 0);
    pb_kernel(&t, pb, &ok, L.k.code + 0x1000);
    run(&t, b, pb);
    g_assert_cmphex(pa_rd32(&t, L.out), ==, 0x600d);
    pre = rd(&t, TGPU_GR_PREEMPTS);
    g_assert_cmpuint(pre, >, 0);
    g_assert_cmpuint(chan_state(&t, CH_A), !=, TGPU_CHAN_STATE_ERROR);
    g_assert_cmpuint(chan_state(&t, CH_A), !=, TGPU_CHAN_STATE_IDLE);

    /*
     * it goes on by itself, slice after slice, as modelled time passes
     * (a slice is a timeslice of it), until the engine reset
     */
    while (rd(&t, TGPU_GR_PREEMPTS) < pre + 2) {
        step(&t, TGPU_TIMESLICE_DEFAULT_US * 1000);
    }
    wr(&t, TGPU_PMC_ENGINE_RESET, TGPU_ENGINE_COMPUTE);
    wait_state(&t, CH_A, TGPU_CHAN_STATE_ERROR);
    g_assert_cmpuint(crd(&t, CH_A, TGPU_CHAN_ERROR), ==,
                     TGPU_ERR_ENGINE_RESET);
    g_assert_cmphex(rd(&t, TGPU_GR_STATUS), ==, 0);
    err_ack(&t, CH_A);
    chan_reset(&t, CH_A);

    /* a kill stops it as well; then the engine runs kernels again */
    gr_chan_up(&t, CH_A);
    pb->n = 0;
    pb_kernel(&t, pb, &hang, L.k.code);
    submit(&t, &t.ch[CH_A], pb);
    wait_kernel_started(&t, CH_A);
    chan_kill(&t, CH_A);
    g_assert_cmpuint(crd(&t, CH_A, TGPU_CHAN_ERROR), ==, TGPU_ERR_KILLED);
    g_assert_cmphex(rd(&t, TGPU_GR_STATUS), ==, 0);
    pa_wr32(&t, L.out, 0);
    pb->n = 0;
    pb_kernel(&t, pb, &ok, L.k.code + 0x1000);
    run(&t, b, pb);
    g_assert_cmphex(pa_rd32(&t, L.out), ==, 0x600d);
    tgpu_stop(&t);
}

/* ENGINE_PROGRESS moves while a kernel spins; an engine reset zeroes it. */
static void test_progress(void)
{
    static const uint64_t spin[] = { RI(IADD, 1, 1, 1), BRA(0) };
    const uint32_t reg = TGPU_PMC_ENGINE_PROGRESS(TGPU_RUNLIST_COMPUTE);
    Kernel hang = { spin, 2, { 4 }, { 256 }, 0, NULL, 0 };
    g_autofree PB *pb = pb_new();
    uint32_t p, q;
    T t;

    gr_start(&t);
    p = rd(&t, reg);
    g_usleep(20000);
    g_assert_cmpuint(rd(&t, reg), ==, p);
    pb_kernel(&t, pb, &hang, L.k.code);
    submit(&t, &t.ch[CH_A], pb);
    wait_kernel_started(&t, CH_A);
    q = p;
    for (int i = 0; i < 1000 && q - p < 2; i++) {
        step(&t, TGPU_TIMESLICE_DEFAULT_US * 1000);
        q = rd(&t, reg);
    }
    g_assert_cmpuint(q - p, >=, 2);
    wr(&t, TGPU_PMC_ENGINE_RESET, TGPU_ENGINE_COMPUTE);
    g_assert_cmpuint(rd(&t, reg), ==, 0);
    wait_state(&t, CH_A, TGPU_CHAN_STATE_ERROR);
    g_usleep(20000);
    g_assert_cmpuint(rd(&t, reg), ==, 0);
    tgpu_stop(&t);
}

/* A loop of TRIPS turns: 2 + 3 * TRIPS warp instructions for one warp. */
#define LOOP_KERNEL(trips) {                                              \
        MOVI(1, 0),                             /* 0 */                   \
        RI(IADD, 1, 1, 1),                      /* 1 */                   \
        SETPI(ISETP, LT, 0, 1, trips),          /* 2 */                   \
        IF(0, BRA(1)),                          /* 3 */                   \
        EXIT,                                   /* 4 */                   \
    }

/*
 * Throughput follows the SM clock: a slice is the channel's timeslice of
 * modelled time at one warp instruction per cycle.  A kernel of about
 * 120,000 warp instructions fits a 100 us slice at P100's 1328 MHz
 * (132,800) but not at M40's 1112 MHz (111,200).
 */
static void test_clock(void)
{
    enum { TRIPS = 40000 };
    static const uint64_t code[] = LOOP_KERNEL(TRIPS);
    static const char *const models[] = { "model=p100", "model=m40" };
    Kernel k = { code, ARRAY_SIZE(code), { 1 }, { 32 }, 0, NULL, 0 };
    uint32_t preempts[2];

    for (int m = 0; m < 2; m++) {
        g_autofree PB *pb = pb_new();
        uint64_t insns, slice;
        Chan *c;
        T t;

        gr_mem_start(&t, models[m]);
        runlists_std(&t);
        c = chan_init_mem(&t, CH_A, L.ch);
        c->ts_us = 100;
        chan_up_cfg(&t, c);
        pb_m(pb, SC, TGPU_M_SET_OBJECT, TGPU_CLASS_COMPUTE);
        run(&t, c, pb);
        /* a second slice starts once the first's 100 us have passed */
        pb->n = 0;
        pb_kernel(&t, pb, &k, L.k.code);
        submit(&t, c, pb);
        while (chan_state(&t, c->id) != TGPU_CHAN_STATE_IDLE &&
               chan_state(&t, c->id) != TGPU_CHAN_STATE_ERROR) {
            step(&t, 100000);
        }
        wait_done(&t, c);
        g_assert_cmpuint(rd(&t, TGPU_GR_ERROR), ==, 0);

        insns = rd(&t, TGPU_GR_WARP_INSNS_LO);
        slice = 100 * (uint64_t)rd(&t, TGPU_GR_CLOCK_KHZ) / 1000;
        g_assert_cmpuint(insns, ==, 2 + 3 * TRIPS);
        preempts[m] = rd(&t, TGPU_GR_PREEMPTS);
        g_assert_cmpuint(preempts[m], ==, DIV_ROUND_UP(insns, slice) - 1);
        tgpu_stop(&t);
    }
    g_assert_cmpuint(preempts[0], ==, 0);
    g_assert_cmpuint(preempts[1], ==, 1);
}

/*
 * A kernel that ends within its first 1,024 warp instructions ends in the
 * doorbell's own write (docs/hw/registers.md, "Engines and the big
 * lock"): its semaphore is released when the write returns.  One that
 * runs longer goes on on the engine's thread, in the same slice: no
 * preemption, every instruction counted once.  Under deterministic=on
 * the virtual clock runs both: nothing is done before it steps.
 */
static void test_run_here(void)
{
    enum { TRIPS = 1000 };
    static const uint64_t empty[] = { EXIT };
    static const uint64_t loop[] = LOOP_KERNEL(TRIPS);
    Kernel k[] = {
        { empty, ARRAY_SIZE(empty), { 1 }, { 32 }, 0, NULL, 0 },
        { loop, ARRAY_SIZE(loop), { 1 }, { 32 }, 0, NULL, 0 },
    };

    for (int det = 0; det < 2; det++) {
        T t;

        gr_mem_start(&t, det ? "deterministic=on" : NULL);
        runlists_std(&t);
        gr_chan_up(&t, CH_A);
        for (size_t i = 0; i < ARRAY_SIZE(k); i++) {
            g_autofree PB *pb = pb_new();
            Chan *c = &t.ch[CH_A];
            uint64_t insns = rd(&t, TGPU_GR_WARP_INSNS_LO);
            uint32_t sem;

            g_test_message("%s kernel, deterministic=%s",
                           i ? "a 3,002-instruction" : "an empty",
                           det ? "on" : "off");
            sem = pb_kernel(&t, pb, &k[i], L.k.code + 0x1000 * i);
            submit(&t, c, pb);
            if (!det && !i) {
                g_assert_cmphex(pa_rd32(&t, L.k.sem), ==, sem);
                g_assert_cmpuint(chan_state(&t, CH_A), ==,
                                 TGPU_CHAN_STATE_IDLE);
            } else if (det) {
                g_assert_cmphex(pa_rd32(&t, L.k.sem), !=, sem);
            }
            while (chan_state(&t, CH_A) != TGPU_CHAN_STATE_IDLE &&
                   chan_state(&t, CH_A) != TGPU_CHAN_STATE_ERROR) {
                step(&t, 100000);
            }
            wait_done(&t, c);
            g_assert_cmphex(pa_rd32(&t, L.k.sem), ==, sem);
            g_assert_cmpuint(rd(&t, TGPU_GR_ERROR), ==, 0);
            g_assert_cmpuint(rd(&t, TGPU_GR_WARP_INSNS_LO) - insns, ==,
                             i ? 2 + 3 * TRIPS : 1);
        }
        g_assert_cmpuint(rd(&t, TGPU_GR_PREEMPTS), ==, 0);
        tgpu_stop(&t);
    }
}

/*
 * A step ends after TGPU_GR_STEP_TRANSLATIONS lane accesses that miss the
 * executor's one-page cache, not only after TGPU_GR_STEP_INSNS warp
 * instructions.  Under deterministic=on a tick of the virtual clock lets
 * the engine take one step, so a warp whose every lane updates a page of
 * its own moves by at most that many accesses a tick.  (A fuzzer's input
 * once held the main loop for 77 s in such steps of 64 Ki instructions,
 * every lane's atomic a translation and a mapping of guest RAM.)
 */
static void test_step_translations(void)
{
    enum { TRIPS = 300, LANES = 32, LOOP = 4 };
    static const uint64_t code[] = {
        S2R(0, TID_X), LD(LDC, 64, 2, RZ, 0),           /* 0, 1 */
        MOVI(10, TGPU_PAGE_SIZE),                       /* 2 */
        OPR(IMADW, 12, 0, 10, 2, 0, 0),                 /* 3: a page each */
        MOVI(8, 1), MOVI(1, 0),                         /* 4, 5 */
        OPR(ATOMG, 9, 12, 8, RZ, TGPU_ATOM_ADD, 0),     /* 6 */
        RI(IADD, 1, 1, 1),                              /* 7 */
        SETPI(ISETP, LT, 0, 1, TRIPS),                  /* 8 */
        IF(0, BRA(6)),                                  /* 9 */
        EXIT,                                           /* 10 */
    };
    /* the instructions a step can run: its atomics' loops, and the rest */
    const uint32_t per_step =
        TGPU_GR_STEP_TRANSLATIONS / LANES * LOOP + ARRAY_SIZE(code);
    Params p;
    Kernel k = { code, ARRAY_SIZE(code), { 1 }, { LANES }, 0, &p,
                 sizeof(p) };
    g_autofree PB *pb = pb_new();
    uint32_t sem, insns = 0, ticks = 0;
    Chan *c;
    T t;

    gr_mem_start(&t, "deterministic=on");
    runlists_std(&t);
    c = gr_chan_up(&t, CH_A);
    p = params();
    pa_zero(&t, L.out, LANES * TGPU_PAGE_SIZE);
    sem = pb_kernel(&t, pb, &k, L.k.code);
    submit(&t, c, pb);
    settle(&t);
    while (pa_rd32(&t, L.k.sem) != sem && ticks < 1000) {
        uint32_t now;

        step(&t, TGPU_DET_TICK_NS);
        ticks++;
        now = rd(&t, TGPU_GR_WARP_INSNS_LO);
        g_assert_cmpuint(now - insns, <=, per_step);
        insns = now;
    }
    wait_done(&t, c);
    g_test_message("%u lane accesses through the MMU: %u ticks",
                   TRIPS * LANES, ticks);
    g_assert_cmpuint(rd(&t, TGPU_GR_ERROR), ==, 0);
    g_assert_cmpuint(insns, ==, ARRAY_SIZE(code) - 4 + LOOP * TRIPS);
    g_assert_cmpuint(ticks, >=,
                     DIV_ROUND_UP(TRIPS * LANES, TGPU_GR_STEP_TRANSLATIONS));
    for (int l = 0; l < LANES; l++) {
        g_assert_cmpuint(pa_rd32(&t, L.out + l * TGPU_PAGE_SIZE), ==, TRIPS);
    }
    tgpu_stop(&t);
}

/*
 * Migration with a kernel in flight: under deterministic=on the engine
 * takes one step a tick, so the kernel can be caught in the middle of
 * its second CTA, saved with migrate to a file and restored into a new
 * QEMU, where it goes on from there.  Each thread counts itself in a
 * global word, steps a generator in registers, then the CTA reverses
 * the results through shared memory after a barrier: a lost or mixed-up
 * warp, register row or shared word shows in the output, which must be
 * the CPU's to the bit, and a kernel that ran anything again shows in
 * the count and the instructions.
 */
/* the kernel test_migrate and test_migrate_mutated save in flight */
enum {
    MIG_THREADS = 96, MIG_CTAS = 3, MIG_N = MIG_THREADS * MIG_CTAS,
    MIG_TRIPS = 20000, MIG_WARPS = MIG_N / 32,
    MIG_PER_WARP = 26 + 6 * MIG_TRIPS,
};

static const uint64_t mig_code[] = {
    S2R(0, TID_X), S2R(1, CTAID_X), S2R(10, NTID_X),
    OPR(IMAD, 0, 1, 10, 0, 0, 0),                   /* i */
    LD(LDC, 64, 2, RZ, 0), LD(LDC, 64, 4, RZ, 8),
    S2R(6, TID_X),
    MOVI(11, 4),
    OPR(IMADW, 12, 0, 11, 4, 0, 0),                 /* in + 4 i */
    LD(LDG, 32, 8, 12, 0),
    MOVI(18, 1),                                    /* once a thread */
    OPR(ATOMG, 19, 4, 18, RZ, TGPU_ATOM_ADD, MIG_N * 4),
    MOVI(14, 1664525), MOVI(15, 1013904223), MOVI(16, 0),
    LD(LDC, 32, 17, RZ, 16),                        /* trips */
    OPR(IMAD, 8, 8, 14, 15, 0, 0),                  /* 16: loop */
    RI(SHR, 9, 8, 13), RR(XOR, 8, 8, 9),
    RI(IADD, 16, 16, 1),
    SETP(ISETP, LT, 0, 16, 17),
    IF(0, BRA(16)),
    RI(SHL, 7, 6, 2),
    ST(STS, 32, 7, 0, 8),                           /* shared[t] */
    BAR(1),
    MOVI(9, 95), RR(ISUB, 9, 9, 6), RI(SHL, 9, 9, 2),
    LD(LDS, 32, 8, 9, 0),                           /* shared[95 - t] */
    OPR(IMADW, 12, 0, 11, 2, 0, 0),
    ST(STG, 32, 12, 0, 8),
    EXIT,
};

/*
 * Start mig_code with input IN on a deterministic=on device and stop it
 * in its second CTA; returns the semaphore value it will release.
 */
static uint32_t mig_kernel_in_flight(T *t, Chan **c, const uint32_t *in)
{
    g_autofree PB *pb = pb_new();
    static Params p;
    Kernel k = {
        mig_code, ARRAY_SIZE(mig_code), { MIG_CTAS }, { MIG_THREADS },
        MIG_THREADS * 4, &p, sizeof(p),
    };
    uint32_t sem, insns = 0;

    gr_mem_start(t, "deterministic=on");
    runlists_std(t);
    *c = gr_chan_up(t, CH_A);
    p = params();
    p.x = cpu_to_le32(MIG_TRIPS);
    words_write(t, L.in, in, MIG_N);
    pa_wr32(t, L.in + MIG_N * 4, 0);
    pa_zero(t, L.out, MIG_N * 4);
    sem = pb_kernel(t, pb, &k, L.k.code);
    submit(t, *c, pb);
    settle(t);
    /* into the second CTA */
    for (int i = 0; i < 1000 && insns < MIG_PER_WARP * 4; i++) {
        step(t, TGPU_DET_TICK_NS);
        insns = rd(t, TGPU_GR_WARP_INSNS_LO);
    }
    g_test_message("kernel in flight at %u warp instructions", insns);
    g_assert_cmpuint(insns, >=, MIG_PER_WARP * 4);
    g_assert_cmphex(pa_rd32(t, L.k.sem), !=, sem);
    return sem;
}

static void test_migrate(void)
{
    enum { N = MIG_N, THREADS = MIG_THREADS, TRIPS = MIG_TRIPS };
    uint32_t in[N], out[N], want[N], x = 77, sem, insns, count;
    Chan *c;
    T t;

    for (int i = 0; i < N; i++) {
        uint32_t v = in[i] = rnd(&x);

        for (int n = 0; n < TRIPS; n++) {
            v = v * 1664525u + 1013904223u;
            v ^= v >> 13;
        }
        want[(i / THREADS) * THREADS + THREADS - 1 - i % THREADS] = v;
    }
    sem = mig_kernel_in_flight(&t, &c, in);
    insns = rd(&t, TGPU_GR_WARP_INSNS_LO);
    tgpu_migrate(&t);
    g_assert_cmpuint(rd(&t, TGPU_GR_WARP_INSNS_LO), ==, insns);
    for (int i = 0; i < 20000 && pa_rd32(&t, L.k.sem) != sem; i++) {
        step(&t, TGPU_DET_TICK_NS);
    }
    g_assert_cmphex(pa_rd32(&t, L.k.sem), ==, sem);
    g_assert_cmpuint(rd(&t, TGPU_GR_ERROR), ==, 0);
    wait_done(&t, c);
    /* not one instruction again: every thread counted itself once */
    count = pa_rd32(&t, L.in + N * 4);
    g_assert_cmpuint(count, ==, N);
    g_assert_cmpuint(rd(&t, TGPU_GR_WARP_INSNS_LO), ==,
                     MIG_WARPS * MIG_PER_WARP);
    words_read(&t, L.out, out, N);
    for (int i = 0; i < N; i++) {
        g_assert_cmphex(out[i], ==, want[i]);
    }
    tgpu_stop(&t);
}

/*
 * Save mig_code in flight (random input from SEED) to PATH; return the
 * command line that loads it, the stream in *DATA and *LEN, and where
 * its tgpu subsections are (mig_tgpu_subsections()).
 */
static char *mig_save_in_flight(const char *path, uint32_t seed,
                                gchar **data, gsize *len, size_t *sub,
                                int max, int *nsub, size_t *hi)
{
    uint32_t in[MIG_N];
    char *cmd;
    Chan *c;
    T t;

    for (int i = 0; i < MIG_N; i++) {
        in[i] = rnd(&seed);
    }
    mig_kernel_in_flight(&t, &c, in);
    cmd = tgpu_save(&t, path);
    g_assert_true(g_file_get_contents(path, data, len, NULL));
    *nsub = mig_tgpu_subsections((const uint8_t *)*data, *len, sub, max,
                                 hi);
    return cmd;
}

/*
 * A stream is input (docs/hw/migration.md): saved with a kernel in
 * flight, the stream is loaded again MUTANTS times, each time with one
 * word or bit of the device's own state changed, in turn near the start
 * of each of its subsections, where the counts, indices and states are
 * (seeded: the same mutants every run).  Each load is refused, or it
 * takes and the restored device runs its work, answers query-tgpu and
 * survives a system reset.  Nothing may crash QEMU; under make
 * check-sanitize nothing may read or write out of bounds either.
 */
static void test_migrate_mutated(void)
{
    enum { MUTANTS = 48, NEAR = 256 };
    static const uint32_t edges[] = {
        0, 1, 0x1f, 0x20, 0x200, 0x1000, 0x7fffffff, 0x80000000,
        0xfffffffe, 0xffffffff,
    };
    g_autofree char *path = g_strdup_printf("%s/tgpu-qtest-%d.mutant",
                                            g_get_tmp_dir(), getpid());
    g_autofree char *cmd = NULL;
    g_autofree gchar *data = NULL;
    g_autoptr(GRand) rand = g_rand_new_with_seed(1);
    unsigned refused = 0, taken = 0;
    size_t sub[16], hi;
    gsize len;
    int nsub;

    cmd = mig_save_in_flight(path, 5, &data, &len, sub, ARRAY_SIZE(sub),
                             &nsub, &hi);
    /* host, channel/kernel, mmu, ecc, therm, ce, compute at least */
    g_assert_cmpint(nsub, >=, 7);

    for (int m = 0; m < MUTANTS; m++) {
        g_autofree uint8_t *mut = g_memdup2(data, len);
        int k = m % nsub;
        size_t from = sub[k] + 2 + data[sub[k] + 1];
        size_t to = MIN(MIN(k + 1 < nsub ? sub[k + 1] : hi, from + NEAR),
                        hi) - 4;
        size_t at = from + g_rand_int_range(rand, 0, MAX(to - from, 1));
        uint32_t v = edges[g_rand_int_range(rand, 0, ARRAY_SIZE(edges))];
        QTestState *dst;
        bool loaded;

        if ((m / nsub) % 2) {
            mut[at] ^= 1u << g_rand_int_range(rand, 0, 8);
        } else {
            stl_be_p(mut + at, v);
        }
        g_assert_true(g_file_set_contents(path, (const char *)mut, len,
                                          NULL));
        dst = tgpu_load(cmd, path, &loaded);
        g_test_message("mutant %d: %.*s + %zu: %s", m,
                       data[sub[k] + 1], data + sub[k] + 2, at - from,
                       loaded ? "loaded" : "refused");
        if (!loaded) {
            refused++;
        } else {
            taken++;
            /* the restored work runs as far as 200 ticks take it */
            for (int i = 0; i < 200; i++) {
                qtest_clock_step(dst, TGPU_DET_TICK_NS);
            }
            qobject_unref(qtest_qmp_assert_success_ref(
                dst, "{'execute': 'query-tgpu'}"));
            qtest_qmp_assert_success(dst, "{'execute': 'system_reset'}");
            qtest_qmp_eventwait(dst, "RESET");
            qobject_unref(qtest_qmp_assert_success_ref(
                dst, "{'execute': 'query-tgpu'}"));
        }
        qtest_quit(dst);
    }
    unlink(path);
    g_test_message("%u mutants refused, %u taken", refused, taken);
    /* the seed gives both: each branch above ran */
    g_assert_cmpuint(refused, >, 0);
    g_assert_cmpuint(taken, >, 0);
}

/*
 * The kernel in flight is input too: saved in its second CTA, the stream
 * is loaded again with one field of the channel's kernel changed, each a
 * state the LAUNCH method or the channel would never give it, and each
 * load is refused (kernel_post_load(), gr_kernel_of()).  The offsets are
 * those of vmstate_kernel's fields after the subsection's version:
 * vm.chid, vm.flags, vm.asid, vm.pdb, then the LAUNCH word.
 */
static void test_migrate_crafted_kernel(void)
{
    enum { CHID = 0, ASID = 8, LAUNCH = 20 };
    static const struct {
        unsigned int at;
        uint32_t set, clear;
        const char *what;
    } crafted[] = {
        { LAUNCH, 1, 0, "a LAUNCH word with a reserved low bit" },
        { LAUNCH, 3u << TGPU_CE_LAUNCH_SEM_SHIFT, 0,
          "a LAUNCH word whose semaphore mode is 3 (reserved)" },
        { LAUNCH, 0x80000000u, 0, "a LAUNCH word past its valid bits" },
        { CHID, 2, 0, "the kernel of another channel" },
        { ASID, 0x40, 0, "an address space its channel does not have" },
    };
    g_autofree char *path = g_strdup_printf("%s/tgpu-qtest-%d.kernel",
                                            g_get_tmp_dir(), getpid());
    g_autofree char *cmd = NULL;
    g_autofree gchar *data = NULL;
    QTestState *dst;
    size_t sub[16], hi, k;
    uint32_t launch;
    bool loaded;
    gsize len;
    int nsub;

    cmd = mig_save_in_flight(path, 9, &data, &len, sub, ARRAY_SIZE(sub),
                             &nsub, &hi);
    k = mig_subsection_fields((const uint8_t *)data, sub, nsub,
                              "tgpu/channel/kernel");
    /* the saved word is the one the method took: valid, and loads */
    launch = ldl_be_p(data + k + LAUNCH);
    g_assert_cmphex(launch & ~TGPU_GR_LAUNCH_VALID_MASK, ==, 0);
    g_assert_cmphex(launch & 7, ==, 0);
    g_assert_cmpuint(ldl_be_p(data + k + CHID), ==, CH_A);
    dst = tgpu_load(cmd, path, &loaded);
    g_assert_true(loaded);
    qtest_quit(dst);

    for (size_t i = 0; i < ARRAY_SIZE(crafted); i++) {
        g_autofree gchar *mut = g_memdup2(data, len);
        char *at = mut + k + crafted[i].at;

        g_test_message("tgpu/channel/kernel + %u: %s", crafted[i].at,
                       crafted[i].what);
        stl_be_p(at, (ldl_be_p(at) | crafted[i].set) & ~crafted[i].clear);
        g_assert_cmphex(ldl_be_p(at), !=, ldl_be_p(data + k + crafted[i].at));
        g_assert_true(g_file_set_contents(path, mut, len, NULL));
        dst = tgpu_load(cmd, path, &loaded);
        g_assert_false(loaded);
        qtest_quit(dst);
    }
    unlink(path);
}

int main(int argc, char **argv)
{
    g_test_init(&argc, &argv, NULL);
    qtest_add_func("/tgpu/compute/alu", test_alu);
    qtest_add_func("/tgpu/compute/memory-widths", test_memory_widths);
    qtest_add_func("/tgpu/compute/divergence", test_divergence);
    qtest_add_func("/tgpu/compute/shared-barrier", test_shared_barrier);
    qtest_add_func("/tgpu/compute/atomics", test_atomics);
    qtest_add_func("/tgpu/compute/special-registers",
                   test_special_registers);
    qtest_add_func("/tgpu/compute/errors", test_errors);
    qtest_add_func("/tgpu/compute/hang", test_hang);
    qtest_add_func("/tgpu/compute/progress", test_progress);
    qtest_add_func("/tgpu/compute/clock", test_clock);
    qtest_add_func("/tgpu/compute/run-here", test_run_here);
    qtest_add_func("/tgpu/compute/step-translations",
                   test_step_translations);
    qtest_add_func("/tgpu/compute/migrate", test_migrate);
    qtest_add_func("/tgpu/compute/migrate-mutated", test_migrate_mutated);
    qtest_add_func("/tgpu/compute/migrate-crafted-kernel",
                   test_migrate_crafted_kernel);
    return g_test_run();
}
