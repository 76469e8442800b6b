/*
 * Helpers shared by the tgpu qtest benchmarks: medians, and waits that
 * leave QEMU's main thread alone while the device works (every poll is a
 * round trip through it, and on a 2-CPU host it takes CPU from the work).
 *
 * Copyright (c) 2026 The tgpu authors
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */

#ifndef TGPU_BENCH_H
#define TGPU_BENCH_H

/* Runs each figure is the median of, with -m perf (1 without). */
#define BENCH_RUNS          5

static inline int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;

    return x < y ? -1 : x > y;
}

/* The median of V[0..N), which it sorts. */
static inline double median(double *v, int n)
{
    qsort(v, n, sizeof(v[0]), cmp_double);
    return v[n / 2];
}

/*
 * When to poll first for work that took BEST_SECS at best before: at 3/4
 * of that (a time the hint itself stretched is never the best).
 */
static inline gint64 bench_hint_us(double best_secs)
{
    return best_secs * G_USEC_PER_SEC * 3 / 4;
}

/* Sleep until US microseconds after T0 (at once if that has passed). */
static inline void bench_sleep_from(gint64 t0, gint64 us)
{
    g_usleep(MAX(t0 + us - g_get_monotonic_time(), 0));
}

/*
 * Between two polls of work started at T0: 2% of the time waited so far
 * (20 us to 2 ms), so few polls and a small error; fail after LIMIT_S s.
 */
static inline void bench_poll_pause(gint64 t0, int limit_s)
{
    gint64 waited = g_get_monotonic_time() - t0;

    g_assert_cmpint(waited, <, limit_s * G_USEC_PER_SEC);
    g_usleep(MIN(MAX(waited / 50, 20), 2000));
}

#endif
