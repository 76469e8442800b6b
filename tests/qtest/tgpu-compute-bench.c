/*
 * tgpu compute benchmark: interpreter throughput in lane operations per
 * second of host time on SAXPY (memory-bound), a 256x256 SGEMM and DGEMM
 * with shared-memory tiling (compute-bound), a warp-shuffle reduction
 * and a divergent kernel, beside the GEMMs and the reduction in native C
 * on this host, measured in the same run.
 *
 * A lane operation is one instruction on one active lane (GR_LANE_OPS);
 * time is the wall clock from the doorbell to the launch's semaphore.
 * The engine runs on one host thread, so the figures are per host core.
 * Every result is checked (SGEMM bit-exactly against the native run,
 * which uses fmaf in the same order).  Run normally (make check) it is a
 * smoke test of the same kernels; with -m perf (make bench) it takes the
 * median of 5 runs and prints "bench:"/"ref:" lines.
 *
 * Copyright (c) 2026 The tgpu authors
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */

#include "qemu/osdep.h"
#include <math.h>
#include "tgpu-kernel.h"
#include "tgpu-bench.h"

#define PB_SIZE             0x8000u
#define CH                  1

/* VRAM, allocated at the start (bench_start) */
static struct {
    ChanMem ch[NR_TEST_CHANNELS];
    KernelMem k;
    uint64_t a, b, c;           /* 8 MiB each */
} L;

/* ---- kernels ------------------------------------------------------------ */

/* y[i] = a * x[i] + y[i]; parameters: x, y, a */
static const uint64_t saxpy[] = {
    S2R(0, TID_X), S2R(1, CTAID_X), S2R(10, NTID_X),
    OPR(IMAD, 0, 1, 10, 0, 0, 0),
    LD(LDC, 64, 2, RZ, 0), LD(LDC, 64, 4, RZ, 8), LD(LDC, 32, 6, RZ, 16),
    MOVI(10, 4),
    OPR(IMADW, 12, 0, 10, 2, 0, 0),
    OPR(IMADW, 14, 0, 10, 4, 0, 0),
    LD(LDG, 32, 8, 12, 0), LD(LDG, 32, 9, 14, 0),
    OPR(FFMA, 9, 6, 8, 9, 0, 0),
    ST(STG, 32, 14, 0, 9),
    EXIT,
};

/*
 * C = A x B, 256 x 256 row-major, 16 x 16 tiles: CTA (bx, by) of 16 x 16
 * threads computes C's tile (by, bx); parameters: A, B, C.
 * Shared: As[16][16] at 0, Bs[16][16] at 1024.
 */
#define SGEMM_N             256
#define TILE                16
#define SGEMM_LOOP          23      /* index of the tile loop */

static const uint64_t sgemm[] = {
    S2R(0, TID_X), S2R(1, TID_Y), S2R(2, CTAID_X), S2R(3, CTAID_Y),  /* 0 */
    LD(LDC, 64, 4, RZ, 0), LD(LDC, 64, 6, RZ, 8),                    /* 4 */
    LD(LDC, 64, 8, RZ, 16),                                          /* 6 */
    MOVI(24, TILE), MOVI(25, SGEMM_N), MOVI(26, 4),                  /* 7 */
    OPR(IMAD, 10, 3, 24, 1, 0, 0),              /* 10: row */
    OPR(IMAD, 11, 2, 24, 0, 0, 0),              /* 11: col */
    OPR(IMAD, 23, 10, 25, 0, 0, 0),             /* 12: row * N + tx */
    OPR(IMADW, 12, 23, 26, 4, 0, 0),            /* 13: pA */
    OPR(IMAD, 23, 1, 25, 11, 0, 0),             /* 14: ty * N + col */
    OPR(IMADW, 14, 23, 26, 6, 0, 0),            /* 15: pB */
    OPR(IMAD, 16, 1, 24, 0, 0, 0),              /* 16: ty * 16 + tx */
    RI(SHL, 16, 16, 2),                         /* 17 */
    RI(SHL, 17, 1, 6),                          /* 18: &As[ty][0] */
    RI(SHL, 18, 0, 2),                          /* 19 */
    RI(IADD, 18, 18, 1024),                     /* 20: &Bs[0][tx] */
    MOVI(19, 0), MOVI(20, 0),                   /* 21, 22 */
    /* 23: the tile loop */
    LD(LDG, 32, 23, 12, 0), ST(STS, 32, 16, 0, 23),
    LD(LDG, 32, 23, 14, 0), ST(STS, 32, 16, 1024, 23),
    BAR(0),
    /* acc += As[ty][k] * Bs[k][tx], k = 0..15 */
    LD(LDS, 32, 21, 17, 0), LD(LDS, 32, 22, 18, 0),
    OPR(FFMA, 20, 21, 22, 20, 0, 0),
    LD(LDS, 32, 21, 17, 4), LD(LDS, 32, 22, 18, 64),
    OPR(FFMA, 20, 21, 22, 20, 0, 0),
    LD(LDS, 32, 21, 17, 8), LD(LDS, 32, 22, 18, 128),
    OPR(FFMA, 20, 21, 22, 20, 0, 0),
    LD(LDS, 32, 21, 17, 12), LD(LDS, 32, 22, 18, 192),
    OPR(FFMA, 20, 21, 22, 20, 0, 0),
    LD(LDS, 32, 21, 17, 16), LD(LDS, 32, 22, 18, 256),
    OPR(FFMA, 20, 21, 22, 20, 0, 0),
    LD(LDS, 32, 21, 17, 20), LD(LDS, 32, 22, 18, 320),
    OPR(FFMA, 20, 21, 22, 20, 0, 0),
    LD(LDS, 32, 21, 17, 24), LD(LDS, 32, 22, 18, 384),
    OPR(FFMA, 20, 21, 22, 20, 0, 0),
    LD(LDS, 32, 21, 17, 28), LD(LDS, 32, 22, 18, 448),
    OPR(FFMA, 20, 21, 22, 20, 0, 0),
    LD(LDS, 32, 21, 17, 32), LD(LDS, 32, 22, 18, 512),
    OPR(FFMA, 20, 21, 22, 20, 0, 0),
    LD(LDS, 32, 21, 17, 36), LD(LDS, 32, 22, 18, 576),
    OPR(FFMA, 20, 21, 22, 20, 0, 0),
    LD(LDS, 32, 21, 17, 40), LD(LDS, 32, 22, 18, 640),
    OPR(FFMA, 20, 21, 22, 20, 0, 0),
    LD(LDS, 32, 21, 17, 44), LD(LDS, 32, 22, 18, 704),
    OPR(FFMA, 20, 21, 22, 20, 0, 0),
    LD(LDS, 32, 21, 17, 48), LD(LDS, 32, 22, 18, 768),
    OPR(FFMA, 20, 21, 22, 20, 0, 0),
    LD(LDS, 32, 21, 17, 52), LD(LDS, 32, 22, 18, 832),
    OPR(FFMA, 20, 21, 22, 20, 0, 0),
    LD(LDS, 32, 21, 17, 56), LD(LDS, 32, 22, 18, 896),
    OPR(FFMA, 20, 21, 22, 20, 0, 0),
    LD(LDS, 32, 21, 17, 60), LD(LDS, 32, 22, 18, 960),
    OPR(FFMA, 20, 21, 22, 20, 0, 0),
    BAR(0),
    RI(IADD64, 12, 12, 4 * TILE),
    RI(IADD64, 14, 14, 4 * TILE * SGEMM_N),
    RI(IADD, 19, 19, 1),
    SETPI(ISETP, LT, 0, 19, SGEMM_N / TILE),
    IF(0, BRA(SGEMM_LOOP)),
    OPR(IMAD, 23, 10, 25, 11, 0, 0),            /* row * N + col */
    OPR(IMADW, 12, 23, 26, 8, 0, 0),
    ST(STG, 32, 12, 0, 20),
    EXIT,
};

/*
 * The same in float64: 8-byte elements in pairs, As[16][16] at 0 and
 * Bs[16][16] at 2048, the accumulator r20:r21.
 */
#define DGEMM_LOOP          24      /* index of the tile loop */

static const uint64_t dgemm[] = {
    S2R(0, TID_X), S2R(1, TID_Y), S2R(2, CTAID_X), S2R(3, CTAID_Y),  /* 0 */
    LD(LDC, 64, 4, RZ, 0), LD(LDC, 64, 6, RZ, 8),                    /* 4 */
    LD(LDC, 64, 8, RZ, 16),                                          /* 6 */
    MOVI(24, TILE), MOVI(25, SGEMM_N), MOVI(26, 8),                  /* 7 */
    OPR(IMAD, 10, 3, 24, 1, 0, 0),              /* 10: row */
    OPR(IMAD, 11, 2, 24, 0, 0, 0),              /* 11: col */
    OPR(IMAD, 23, 10, 25, 0, 0, 0),             /* 12: row * N + tx */
    OPR(IMADW, 12, 23, 26, 4, 0, 0),            /* 13: pA */
    OPR(IMAD, 23, 1, 25, 11, 0, 0),             /* 14: ty * N + col */
    OPR(IMADW, 14, 23, 26, 6, 0, 0),            /* 15: pB */
    OPR(IMAD, 16, 1, 24, 0, 0, 0),              /* 16: ty * 16 + tx */
    RI(SHL, 16, 16, 3),                         /* 17 */
    RI(SHL, 17, 1, 7),                          /* 18: &As[ty][0] */
    RI(SHL, 18, 0, 3),                          /* 19 */
    RI(IADD, 18, 18, 2048),                     /* 20: &Bs[0][tx] */
    MOVI(19, 0), MOVI(20, 0), MOVI(21, 0),      /* 21-23 */
    /* 24: the tile loop */
    LD(LDG, 64, 22, 12, 0), ST(STS, 64, 16, 0, 22),
    LD(LDG, 64, 22, 14, 0), ST(STS, 64, 16, 2048, 22),
    BAR(0),
    /* acc += As[ty][k] * Bs[k][tx], k = 0..15 */
    LD(LDS, 64, 28, 17, 0), LD(LDS, 64, 30, 18, 0),
    OPR(DFMA, 20, 28, 30, 20, 0, 0),
    LD(LDS, 64, 28, 17, 8), LD(LDS, 64, 30, 18, 128),
    OPR(DFMA, 20, 28, 30, 20, 0, 0),
    LD(LDS, 64, 28, 17, 16), LD(LDS, 64, 30, 18, 256),
    OPR(DFMA, 20, 28, 30, 20, 0, 0),
    LD(LDS, 64, 28, 17, 24), LD(LDS, 64, 30, 18, 384),
    OPR(DFMA, 20, 28, 30, 20, 0, 0),
    LD(LDS, 64, 28, 17, 32), LD(LDS, 64, 30, 18, 512),
    OPR(DFMA, 20, 28, 30, 20, 0, 0),
    LD(LDS, 64, 28, 17, 40), LD(LDS, 64, 30, 18, 640),
    OPR(DFMA, 20, 28, 30, 20, 0, 0),
    LD(LDS, 64, 28, 17, 48), LD(LDS, 64, 30, 18, 768),
    OPR(DFMA, 20, 28, 30, 20, 0, 0),
    LD(LDS, 64, 28, 17, 56), LD(LDS, 64, 30, 18, 896),
    OPR(DFMA, 20, 28, 30, 20, 0, 0),
    LD(LDS, 64, 28, 17, 64), LD(LDS, 64, 30, 18, 1024),
    OPR(DFMA, 20, 28, 30, 20, 0, 0),
    LD(LDS, 64, 28, 17, 72), LD(LDS, 64, 30, 18, 1152),
    OPR(DFMA, 20, 28, 30, 20, 0, 0),
    LD(LDS, 64, 28, 17, 80), LD(LDS, 64, 30, 18, 1280),
    OPR(DFMA, 20, 28, 30, 20, 0, 0),
    LD(LDS, 64, 28, 17, 88), LD(LDS, 64, 30, 18, 1408),
    OPR(DFMA, 20, 28, 30, 20, 0, 0),
    LD(LDS, 64, 28, 17, 96), LD(LDS, 64, 30, 18, 1536),
    OPR(DFMA, 20, 28, 30, 20, 0, 0),
    LD(LDS, 64, 28, 17, 104), LD(LDS, 64, 30, 18, 1664),
    OPR(DFMA, 20, 28, 30, 20, 0, 0),
    LD(LDS, 64, 28, 17, 112), LD(LDS, 64, 30, 18, 1792),
    OPR(DFMA, 20, 28, 30, 20, 0, 0),
    LD(LDS, 64, 28, 17, 120), LD(LDS, 64, 30, 18, 1920),
    OPR(DFMA, 20, 28, 30, 20, 0, 0),
    BAR(0),
    RI(IADD64, 12, 12, 8 * TILE),
    RI(IADD64, 14, 14, 8 * TILE * SGEMM_N),
    RI(IADD, 19, 19, 1),
    SETPI(ISETP, LT, 0, 19, SGEMM_N / TILE),
    IF(0, BRA(DGEMM_LOOP)),
    OPR(IMAD, 23, 10, 25, 11, 0, 0),            /* row * N + col */
    OPR(IMADW, 12, 23, 26, 8, 0, 0),
    ST(STG, 64, 12, 0, 20),
    EXIT,
};

/*
 * A warp-shuffle reduction: thread i of n sums x[i], x[i + n], ... (its
 * REDUCE_PER terms), the warp adds its 32 sums with shfl.down in five
 * steps (CUDA's __shfl_down_sync tree), and lane 0 stores the warp's
 * total at out[i / 32].  Parameters: x, out, n.
 */
#define REDUCE_PER          64
#define REDUCE_LOOP         13

static const uint64_t shfl_reduce[] = {
    S2R(0, TID_X), S2R(1, CTAID_X), S2R(10, NTID_X),         /* 0 */
    OPR(IMAD, 0, 1, 10, 0, 0, 0),                            /* 3: i */
    LD(LDC, 64, 2, RZ, 0), LD(LDC, 64, 4, RZ, 8),            /* 4, 5 */
    LD(LDC, 32, 6, RZ, 16),                                  /* 6: n */
    MOVI(10, 4), OPR(IMADW, 12, 0, 10, 2, 0, 0),             /* 7, 8: &x[i] */
    RI(SHL, 20, 6, 2), MOVI(21, 0),                          /* 9, 10: 4n */
    MOVI(8, 0), MOVI(9, 0),                                  /* 11, 12 */
    /* 13: sum += x[j], j += n */
    LD(LDG, 32, 22, 12, 0),
    RR(FADD, 8, 8, 22),
    RR(IADD64, 12, 12, 20),
    RI(IADD, 9, 9, 1),
    SETPI(ISETP, LT, 0, 9, REDUCE_PER),
    IF(0, BRA(REDUCE_LOOP)),
    /* the warp's tree: v += v of lane + 16, 8, 4, 2, 1 */
    OPI(SHFL, 15, 8, TGPU_SHFL_DOWN, TGPU_SHFL_IMM(16, 0x1f)),
    RR(FADD, 8, 8, 15),
    OPI(SHFL, 15, 8, TGPU_SHFL_DOWN, TGPU_SHFL_IMM(8, 0x1f)),
    RR(FADD, 8, 8, 15),
    OPI(SHFL, 15, 8, TGPU_SHFL_DOWN, TGPU_SHFL_IMM(4, 0x1f)),
    RR(FADD, 8, 8, 15),
    OPI(SHFL, 15, 8, TGPU_SHFL_DOWN, TGPU_SHFL_IMM(2, 0x1f)),
    RR(FADD, 8, 8, 15),
    OPI(SHFL, 15, 8, TGPU_SHFL_DOWN, TGPU_SHFL_IMM(1, 0x1f)),
    RR(FADD, 8, 8, 15),
    S2R(16, LANEID),
    SETPI(ISETP, NE, 1, 16, 0),
    IF(1, EXIT),
    RI(SHR, 17, 0, 5), MOVI(18, 4),
    OPR(IMADW, 12, 17, 18, 4, 0, 0),
    ST(STG, 32, 12, 0, 8),
    EXIT,
};

/*
 * Divergent: thread i sums (i % 32) terms in a loop of its own trip
 * count; out[i] = sum.  Parameters: out.
 */
static const uint64_t divergent[] = {
    S2R(0, TID_X), S2R(1, CTAID_X), S2R(10, NTID_X),         /* 0 */
    OPR(IMAD, 0, 1, 10, 0, 0, 0),                            /* 3 */
    LD(LDC, 64, 2, RZ, 0),                                   /* 4 */
    RI(AND, 9, 0, 31), MOVI(14, 0),                          /* 5, 6 */
    SSY(14),                                                 /* 7 */
    SETPI(ISETP, GT, 0, 9, 0),                               /* 8 */
    IFN(0, BRA(13)),                                         /* 9 */
    RR(IADD, 14, 14, 9),                                     /* 10 */
    RI(IADD, 9, 9, (uint32_t)-1),                            /* 11 */
    BRA(8),                                                  /* 12 */
    SYNC,                                                    /* 13 */
    MOVI(10, 4),                                             /* 14 */
    OPR(IMADW, 12, 0, 10, 2, 0, 0),
    ST(STG, 32, 12, 0, 14),
    EXIT,
};

/* ---- running them ------------------------------------------------------ */

static uint32_t seq;

static void bench_start(T *t)
{
    g_autofree PB *pb = pb_new();
    Chan *c;

    tgpu_start(t, NULL);
    chan_mem_alloc(t, L.ch, PB_SIZE);
    kernel_mem_alloc(t, &L.k, 64 * KiB);
    L.a = vram_alloc(t, 8 * MiB);
    L.b = vram_alloc(t, 8 * MiB);
    L.c = vram_alloc(t, 8 * MiB);
    runlists_std(t);
    c = chan_init_mem(t, CH, L.ch);
    /*
     * One slice for the whole kernel: a slice is a timeslice of modelled
     * time, and the virtual clock stands while the executor runs
     */
    c->ts_us = TGPU_TIMESLICE_MAX_US;
    chan_up_cfg(t, c);
    pb_m(pb, SC, TGPU_M_SET_OBJECT, TGPU_CLASS_COMPUTE);
    run(t, c, pb);
}

/* Run K once: seconds from doorbell to semaphore, and its lane ops. */
static double time_kernel(T *t, const Kernel *k, uint64_t *lane_ops)
{
    g_autofree PB *pb = pb_new();
    Chan *c = &t->ch[CH];
    uint64_t before = rd(t, TGPU_GR_LANE_OPS_LO) |
                      (uint64_t)rd(t, TGPU_GR_LANE_OPS_HI) << 32;
    gint64 t0, now;

    pb_kernel_at(t, pb, k, L.k.code, L.k.param, L.k.sem, ++seq);
    chan_push(t, c, pb);
    t0 = g_get_monotonic_time();
    chan_kick(t, c);
    while (pa_rd32(t, L.k.sem) != seq) {
        g_assert_cmpuint(rd(t, TGPU_GR_ERROR), ==, 0);
        bench_poll_pause(t0, 120);
    }
    now = g_get_monotonic_time();
    wait_done(t, c);
    *lane_ops = (rd(t, TGPU_GR_LANE_OPS_LO) |
                 (uint64_t)rd(t, TGPU_GR_LANE_OPS_HI) << 32) - before;
    return (now - t0) / 1e6;
}

/* Median seconds of BENCH_RUNS (1 in a smoke test) runs of K. */
static double median_run(T *t, const Kernel *k, uint64_t *lane_ops)
{
    int runs = g_test_perf() ? BENCH_RUNS : 1;
    double secs[BENCH_RUNS];

    for (int i = 0; i < runs; i++) {
        secs[i] = time_kernel(t, k, lane_ops);
    }
    return median(secs, runs);
}

static void words(T *t, uint64_t pa, float *f, size_t n, bool put)
{
    g_autofree uint32_t *le = g_new(uint32_t, n);

    if (put) {
        for (size_t i = 0; i < n; i++) {
            uint32_t v;

            memcpy(&v, &f[i], 4);
            le[i] = cpu_to_le32(v);
        }
        pa_write(t, pa, le, 4 * n);
        return;
    }
    pa_read(t, pa, le, 4 * n);
    for (size_t i = 0; i < n; i++) {
        uint32_t v = le32_to_cpu(le[i]);

        memcpy(&f[i], &v, 4);
    }
}

static void native_sgemm(float *c, const float *a, const float *b)
{
    for (int i = 0; i < SGEMM_N; i++) {
        for (int j = 0; j < SGEMM_N; j++) {
            float acc = 0;

            for (int k = 0; k < SGEMM_N; k++) {
                acc = fmaf(a[i * SGEMM_N + k], b[k * SGEMM_N + j], acc);
            }
            c[i * SGEMM_N + j] = acc;
        }
    }
}

static void native_dgemm(double *c, const double *a, const double *b)
{
    for (int i = 0; i < SGEMM_N; i++) {
        for (int j = 0; j < SGEMM_N; j++) {
            double acc = 0;

            for (int k = 0; k < SGEMM_N; k++) {
                acc = fma(a[i * SGEMM_N + k], b[k * SGEMM_N + j], acc);
            }
            c[i * SGEMM_N + j] = acc;
        }
    }
}

/* The reduction as the kernel does it, in its order: OUT[w], warp w. */
static void native_reduce(float *out, const float *x, uint32_t n)
{
    float s[32];

    for (uint32_t w = 0; w < n / 32; w++) {
        for (int l = 0; l < 32; l++) {
            uint32_t i = w * 32 + l;

            s[l] = 0;
            for (int k = 0; k < REDUCE_PER; k++) {
                s[l] += x[i + (size_t)k * n];
            }
        }
        for (int off = 16; off; off /= 2) {
            for (int l = 0; l < 32; l++) {
                /* lanes whose source is past the clamp add themselves */
                s[l] += s[l + off < 32 ? l + off : l];
            }
        }
        out[w] = s[0];
    }
}

static void test_compute_bench(void)
{
    enum { NN = SGEMM_N * SGEMM_N, NSAXPY = 1 << 20 };
    g_autofree float *a = g_new(float, NN), *b = g_new(float, NN);
    g_autofree float *c = g_new(float, NN), *ref = g_new(float, NN);
    g_autofree float *x = g_new(float, NSAXPY);
    g_autofree float *y = g_new(float, NSAXPY);
    uint32_t nsaxpy = g_test_perf() ? NSAXPY : 1 << 14;
    uint64_t ops_saxpy, ops_sgemm, ops_div;
    double t_saxpy, t_sgemm, t_div, t_native, secs[BENCH_RUNS];
    struct {
        uint64_t a, b, c;
    } pm;
    struct {
        uint64_t x, y;
        float alpha;
        uint32_t pad;
    } ps = { 0, 0, 1.5f, 0 };
    Kernel kg = { sgemm, ARRAY_SIZE(sgemm), { SGEMM_N / TILE,
                  SGEMM_N / TILE }, { TILE, TILE }, 2048, &pm, sizeof(pm) };
    Kernel ks = { saxpy, ARRAY_SIZE(saxpy), { nsaxpy / 256 }, { 256 }, 0,
                  &ps, sizeof(ps) };
    Kernel kd = { divergent, ARRAY_SIZE(divergent), { 512 }, { 256 }, 0,
                  &pm.c, 8 };
    g_autofree double *da = g_new(double, NN), *db = g_new(double, NN);
    g_autofree double *dc = g_new(double, NN), *dref = g_new(double, NN);
    uint32_t nred = g_test_perf() ? 1 << 14 : 1 << 10;
    g_autofree float *rx = g_new(float, (size_t)nred * REDUCE_PER);
    g_autofree float *rout = g_new(float, nred / 32);
    g_autofree float *rref = g_new(float, nred / 32);
    uint64_t ops_dgemm, ops_red;
    double t_dgemm, t_red, t_dnative, t_rnative;
    struct {
        uint64_t x, out;
        uint32_t n, pad;
    } pr = { 0, 0, 0, 0 };
    Kernel kdg = { dgemm, ARRAY_SIZE(dgemm), { SGEMM_N / TILE,
                   SGEMM_N / TILE }, { TILE, TILE }, 4096, &pm, sizeof(pm) };
    Kernel kr = { shfl_reduce, ARRAY_SIZE(shfl_reduce), { nred / 256 },
                  { 256 }, 0, &pr, sizeof(pr) };
    T t;

    for (int i = 0; i < NN; i++) {
        da[i] = (double)((i * 7919) % 1000) / 1000.0 - 0.5 + i / 1e9;
        db[i] = (double)((i * 104729) % 997) / 997.0 - 0.5 - i / 1e9;
    }
    for (size_t i = 0; i < (size_t)nred * REDUCE_PER; i++) {
        rx[i] = (float)((i * 2654435761u) % 10007) / 10007.0f - 0.25f;
    }
    for (int i = 0; i < NN; i++) {
        a[i] = (float)((i * 7919) % 1000) / 1000.0f - 0.5f;
        b[i] = (float)((i * 104729) % 997) / 997.0f - 0.5f;
    }
    for (uint32_t i = 0; i < nsaxpy; i++) {
        x[i] = i * 0.25f;
        y[i] = 1.0f;
    }
    bench_start(&t);
    pm.a = ps.x = cpu_to_le64(L.a);
    pm.b = ps.y = cpu_to_le64(L.b);
    pm.c = cpu_to_le64(L.c);

    words(&t, L.a, a, NN, true);
    words(&t, L.b, b, NN, true);
    t_sgemm = median_run(&t, &kg, &ops_sgemm);
    words(&t, L.c, c, NN, false);
    native_sgemm(ref, a, b);
    g_assert_cmpmem(c, 4 * NN, ref, 4 * NN);

    /* DGEMM: bit-exact against fma() in the same order */
    words(&t, L.a, (float *)da, 2 * NN, true);
    words(&t, L.b, (float *)db, 2 * NN, true);
    t_dgemm = median_run(&t, &kdg, &ops_dgemm);
    words(&t, L.c, (float *)dc, 2 * NN, false);
    native_dgemm(dref, da, db);
    g_assert_cmpmem(dc, 8 * NN, dref, 8 * NN);

    /* the reduction: bit-exact against the same tree */
    pr.x = cpu_to_le64(L.a);
    pr.out = cpu_to_le64(L.c);
    pr.n = cpu_to_le32(nred);
    words(&t, L.a, rx, (size_t)nred * REDUCE_PER, true);
    t_red = median_run(&t, &kr, &ops_red);
    words(&t, L.c, rout, nred / 32, false);
    native_reduce(rref, rx, nred);
    g_assert_cmpmem(rout, 4 * (nred / 32), rref, 4 * (nred / 32));

    words(&t, L.a, x, nsaxpy, true);
    words(&t, L.b, y, nsaxpy, true);
    ks.grid[0] = nsaxpy / 256;
    t_saxpy = median_run(&t, &ks, &ops_saxpy);
    words(&t, L.b, y, nsaxpy, false);
    for (uint32_t i = 0; i < nsaxpy; i += 997) {
        int runs = g_test_perf() ? BENCH_RUNS : 1;

        /* each run did y += 1.5 x */
        g_assert_cmpfloat(y[i], ==, 1.0f + runs * 1.5f * (i * 0.25f));
    }

    t_div = median_run(&t, &kd, &ops_div);
    words(&t, L.c, c, 512 * 256 < NN ? 512 * 256 : NN, false);
    for (int i = 0; i < 512 * 256 && i < NN; i += 131) {
        uint32_t v, m = i % 32;

        memcpy(&v, &c[i], 4);
        g_assert_cmpuint(v, ==, m * (m + 1) / 2);
    }
    tgpu_stop(&t);

    if (!g_test_perf()) {
        return;
    }
    for (int i = 0; i < BENCH_RUNS; i++) {
        gint64 t0 = g_get_monotonic_time();

        native_sgemm(ref, a, b);
        secs[i] = (g_get_monotonic_time() - t0) / 1e6;
    }
    t_native = median(secs, BENCH_RUNS);
    for (int i = 0; i < BENCH_RUNS; i++) {
        gint64 t0 = g_get_monotonic_time();

        native_dgemm(dref, da, db);
        secs[i] = (g_get_monotonic_time() - t0) / 1e6;
    }
    t_dnative = median(secs, BENCH_RUNS);
    for (int i = 0; i < BENCH_RUNS; i++) {
        gint64 t0 = g_get_monotonic_time();

        native_reduce(rref, rx, nred);
        secs[i] = (g_get_monotonic_time() - t0) / 1e6;
    }
    t_rnative = median(secs, BENCH_RUNS);
    g_print("bench: compute.dgemm_lane_ops_per_s %.4g lane-ops/s\n",
            ops_dgemm / t_dgemm);
    g_print("bench: compute.dgemm_native_ratio %.4g x\n", t_dnative / t_dgemm);
    g_print("bench: compute.dgemm_ms %.2f ms\n", t_dgemm * 1e3);
    g_print("bench: compute.dgemm_native_ms %.2f ms\n", t_dnative * 1e3);
    g_print("bench: compute.shfl_reduce_lane_ops_per_s %.4g lane-ops/s\n",
            ops_red / t_red);
    g_print("bench: compute.shfl_reduce_native_ratio %.4g x\n",
            t_rnative / t_red);
    g_print("bench: compute.shfl_reduce_native_ms %.3f ms\n", t_rnative * 1e3);
    g_print("bench: compute.sgemm_lane_ops_per_s %.4g lane-ops/s\n",
            ops_sgemm / t_sgemm);
    g_print("ref: compute.sgemm_lane_ops_per_s 1e9 lane-ops/s\n");
    g_print("bench: compute.sgemm_native_ratio %.4g x\n", t_native / t_sgemm);
    g_print("bench: compute.sgemm_ms %.2f ms\n", t_sgemm * 1e3);
    g_print("bench: compute.sgemm_native_ms %.2f ms\n", t_native * 1e3);
    g_print("bench: compute.saxpy_lane_ops_per_s %.4g lane-ops/s\n",
            ops_saxpy / t_saxpy);
    g_print("bench: compute.saxpy_gbps %.3f GB/s\n",
            12.0 * nsaxpy / t_saxpy / 1e9);
    g_print("bench: compute.divergent_lane_ops_per_s %.4g lane-ops/s\n",
            ops_div / t_div);
}

int main(int argc, char **argv)
{
    g_test_init(&argc, &argv, NULL);
    qtest_add_func("/tgpu/compute-bench/kernels", test_compute_bench);
    return g_test_run();
}
