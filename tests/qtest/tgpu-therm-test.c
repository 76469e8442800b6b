/*
 * QTest testcase for the tgpu thermal, power and clock unit, as
 * docs/hw/thermal.md specifies: the model's time constant on the virtual
 * clock, heating under a kernel and cooling at idle, alerts, hardware
 * slowdown, shutdown and the reset that ends it, the clocks and their
 * throttle reasons, the power cap, clock gating, and every bad write.
 *
 * Copyright (c) 2026 The tgpu authors
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */

#include "qemu/osdep.h"
#include <math.h>
#include "tgpu-mmu.h"
#include "tgpu-kernel.h"
#include "tgpu/therm.h"

/* p100, the default model (docs/hw/thermal.md) */
#define TAU_NS              20000000000ull  /* 20 s */
#define BOOST_MHZ           1328
#define IDLE_W              120.0
#define IDLE_GATED_W        22.0
#define GR_BUSY_W           110.0
#define R_C_PER_W           0.24
#define CH_GR               1

static void therm_start(T *t, const char *opts)
{
    mmu_mem_start(t, opts);
    runlists_std(t);
    msix_setup(t, true);
    wr(t, TGPU_PMC_INTR_EN, TGPU_INTR_FIFO | TGPU_INTR_THERMAL);
    wr(t, TGPU_FIFO_INTR_EN, TGPU_FIFO_INTR_CHAN_ERROR);
}

static double temp_c(T *t)
{
    return (int32_t)rd(t, TGPU_THERM_TEMP) / 1000.0;
}

/* The model: from T0, DT_NS at constant power P_W, ambient AMB. */
static double model_c(double t0, double p_w, uint64_t dt_ns, double amb)
{
    double tss = amb + p_w * R_C_PER_W;

    return tss + (t0 - tss) * exp(-(double)dt_ns / TAU_NS);
}

/* Step the virtual clock by NS in ticks of the model. */
static void run_for(T *t, uint64_t ns)
{
    step(t, ns);
}

/* The temperature is within 10% of the model's rise (or fall) from T0. */
static void expect_temp(T *t, double t0, double want)
{
    double got = temp_c(t);

    g_test_message("temperature %.3f C, model %.3f C (from %.3f)", got,
                   want, t0);
    g_assert_cmpfloat(fabs(got - want), <=, 0.1 * fabs(want - t0) + 0.01);
}

/* A compute channel with TS_US slices running a kernel that never ends. */
static Chan *spin_up_ts(T *t, uint32_t ts_us)
{
    static const uint64_t spin[] = { BRA(0), EXIT };
    Kernel k = { spin, 2, { 1 }, { 32 }, 0, NULL, 0 };
    g_autofree PB *pb = pb_new();
    Chan *c;

    c = chan_init(t, CH_GR, vram_page(t), vram_page(t), vram_page(t),
                  TGPU_PAGE_SIZE);
    c->ts_us = ts_us;
    c = chan_up_class(t, c, SC, TGPU_CLASS_COMPUTE);
    pb_kernel_at(t, pb, &k, vram_page(t), vram_page(t), vram_page(t), 1);
    submit(t, c, pb);
    /* launched: it runs, or waits for its next slice */
    while (!rd(t, TGPU_GR_LAUNCHES)) {
        g_assert_cmpuint(chan_state(t, c->id), !=, TGPU_CHAN_STATE_ERROR);
    }
    return c;
}

static Chan *spin_up(T *t)
{
    return spin_up_ts(t, 0);
}

static uint64_t warp_insns(T *t)
{
    uint32_t lo = rd(t, TGPU_GR_WARP_INSNS_LO);

    return (uint64_t)rd(t, TGPU_GR_WARP_INSNS_HI) << 32 | lo;
}

static void wait_engine_idle(T *t)
{
    gint64 end = g_get_monotonic_time() + WAIT_US;

    while (rd(t, TGPU_GR_STATUS) & TGPU_GR_STATUS_BUSY) {
        g_assert_cmpint(g_get_monotonic_time(), <, end);
    }
}

/*
 * Warp instructions per second of virtual time of the spinner, over
 * WINDOW_NS: the clock moves only while the engine waits for its next
 * slice, as it would if the executor ran at the modelled clock.
 */
static double throughput(T *t, uint64_t window_ns)
{
    const uint64_t tick = 10000;
    uint64_t start;

    wait_engine_idle(t);
    start = warp_insns(t);
    for (uint64_t done = 0; done < window_ns; done += tick) {
        wait_engine_idle(t);
        step(t, tick);
    }
    wait_engine_idle(t);
    return (warp_insns(t) - start) * 1e9 / window_ns;
}

static void expect_thermal_msi(T *t)
{
    g_assert_true(qpci_msix_pending(t->dev, TGPU_MSIX_VEC_THERMAL));
    msix_mask(t, TGPU_MSIX_VEC_THERMAL, false);
    wait_msi(t, TGPU_MSIX_VEC_THERMAL);
    msix_mask(t, TGPU_MSIX_VEC_THERMAL, true);
    qtest_writel(t->qts, t->msi + 16 * TGPU_MSIX_VEC_THERMAL, 0);
}

/* ---- registers ---------------------------------------------------------- */

static void test_defaults(void)
{
    T t;

    therm_start(&t, NULL);
    g_assert_cmpint((int32_t)rd(&t, TGPU_THERM_TEMP), ==, 35000);
    g_assert_cmpuint(rd(&t, TGPU_THERM_SLOWDOWN_TEMP), ==, 85000);
    g_assert_cmpuint(rd(&t, TGPU_THERM_SHUTDOWN_TEMP), ==, 90000);
    g_assert_cmpuint(rd(&t, TGPU_THERM_TAU_MS), ==, 20000);
    g_assert_cmpuint(rd(&t, TGPU_THERM_ALERT_HIGH), ==, 85000);
    g_assert_cmpuint(rd(&t, TGPU_THERM_ALERT_LOW), ==, 0);
    g_assert_cmphex(rd(&t, TGPU_THERM_INTR), ==, 0);
    g_assert_cmpuint(rd(&t, TGPU_THERM_CLK_REQUEST), ==, BOOST_MHZ);
    g_assert_cmpuint(rd(&t, TGPU_THERM_CLK_EFFECTIVE), ==, BOOST_MHZ);
    g_assert_cmpuint(rd(&t, TGPU_THERM_CLK_BOOST), ==, BOOST_MHZ);
    g_assert_cmpuint(rd(&t, TGPU_THERM_CLK_BASE), ==, 1189);
    g_assert_cmpuint(rd(&t, TGPU_THERM_CLK_SLOWDOWN), ==, 810);
    g_assert_cmpuint(rd(&t, TGPU_THERM_CLK_MIN), ==, 544);
    g_assert_cmpuint(rd(&t, TGPU_GR_CLOCK_KHZ), ==, BOOST_MHZ * 1000);
    g_assert_cmphex(rd(&t, TGPU_THERM_REASONS), ==,
                    TGPU_THERM_REASON_GPU_IDLE);
    g_assert_cmpuint(rd(&t, TGPU_THERM_POWER_MW), ==, IDLE_W * 1000);
    g_assert_cmpuint(rd(&t, TGPU_THERM_POWER_CAP_MW), ==,
                     rd(&t, TGPU_PMC_POWER_LIMIT_MW));
    g_assert_cmpuint(rd(&t, TGPU_THERM_POWER_CAP_MIN_MW), ==, 125000);
    g_assert_cmphex(rd(&t, TGPU_THERM_CLOCK_GATING), ==, 0);
    g_assert_cmphex(rd(&t, TGPU_THERM_STATUS), ==, 0);
    g_assert_cmphex(rd(&t, TGPU_THERM_CLOCK_GATING + 4), ==, TGPU_REG_BADF);
    tgpu_stop(&t);

    /* every model has its own limits */
    therm_start(&t, "model=p40");
    g_assert_cmpuint(rd(&t, TGPU_THERM_SLOWDOWN_TEMP), ==, 83000);
    g_assert_cmpuint(rd(&t, TGPU_THERM_CLK_SLOWDOWN), ==, 900);
    g_assert_cmpuint(rd(&t, TGPU_THERM_CLK_BOOST), ==, 1531);
    tgpu_stop(&t);
}

/* Each write out of range sets ERR_VALUE and changes nothing. */
static void test_bad_writes(void)
{
    static const struct {
        uint32_t reg, val;
    } bad[] = {
        { TGPU_THERM_ALERT_HIGH, 150001 },
        { TGPU_THERM_ALERT_LOW, 0x80000000 },
        { TGPU_THERM_INTR_EN, 0x10 },
        { TGPU_THERM_CLK_REQUEST, 543 },
        { TGPU_THERM_CLK_REQUEST, BOOST_MHZ + 1 },
        { TGPU_THERM_SW_THERMAL, 2 },
        { TGPU_THERM_POWER_CAP_MW, 124999 },
        { TGPU_THERM_POWER_CAP_MW, 250001 },
        { TGPU_THERM_CLOCK_GATING, 0x8 },
    };
    T t;

    therm_start(&t, NULL);
    for (size_t i = 0; i < ARRAY_SIZE(bad); i++) {
        uint32_t before = rd(&t, bad[i].reg);

        wr(&t, bad[i].reg, bad[i].val);
        g_assert_cmphex(rd(&t, bad[i].reg), ==, before);
        g_assert_cmphex(rd(&t, TGPU_THERM_STATUS) &
                        TGPU_THERM_STATUS_ERR_VALUE, ==,
                        TGPU_THERM_STATUS_ERR_VALUE);
        wr(&t, TGPU_THERM_STATUS, TGPU_THERM_STATUS_ERR_VALUE);
        g_assert_cmphex(rd(&t, TGPU_THERM_STATUS), ==, 0);
    }
    /* the ends of the ranges are taken */
    wr(&t, TGPU_THERM_ALERT_HIGH, 150000);
    g_assert_cmpuint(rd(&t, TGPU_THERM_ALERT_HIGH), ==, 150000);
    wr(&t, TGPU_THERM_CLK_REQUEST, 544);
    g_assert_cmpuint(rd(&t, TGPU_THERM_CLK_REQUEST), ==, 544);
    wr(&t, TGPU_THERM_POWER_CAP_MW, 125000);
    g_assert_cmpuint(rd(&t, TGPU_THERM_POWER_CAP_MW), ==, 125000);
    g_assert_cmphex(rd(&t, TGPU_THERM_STATUS), ==, 0);
    tgpu_stop(&t);
}

/* ---- the model ---------------------------------------------------------- */

/*
 * Idle, ungated: 120 W heats the board from 35 C towards 63.8 C with the
 * time constant; gated, 22 W, it cools towards 40.3 C.
 */
static void test_time_constant(void)
{
    double t0;
    T t;

    therm_start(&t, NULL);
    run_for(&t, TAU_NS / 2);
    expect_temp(&t, 35, model_c(35, IDLE_W, TAU_NS / 2, 35));
    run_for(&t, TAU_NS / 2);
    expect_temp(&t, 35, model_c(35, IDLE_W, TAU_NS, 35));
    /* 63.2% of the way after one time constant */
    g_assert_cmpfloat(fabs((temp_c(&t) - 35) / (IDLE_W * R_C_PER_W) -
                           (1 - exp(-1))), <, 0.1 * (1 - exp(-1)));

    wr(&t, TGPU_THERM_CLOCK_GATING, TGPU_ENGINE_ALL);
    step(&t, TGPU_THERM_TICK_NS);
    g_assert_cmpuint(rd(&t, TGPU_THERM_POWER_MW), ==, IDLE_GATED_W * 1000);
    t0 = temp_c(&t);
    run_for(&t, TAU_NS);
    expect_temp(&t, t0, model_c(t0, IDLE_GATED_W, TAU_NS, 35));
    g_assert_cmpfloat(temp_c(&t), <, t0);
    tgpu_stop(&t);
}

/* A kernel that never ends heats the board; once killed it cools. */
static void test_kernel_heats(void)
{
    double busy_w = IDLE_W + GR_BUSY_W, t0;
    Chan *c;
    T t;

    therm_start(&t, NULL);
    c = spin_up(&t);
    step(&t, TGPU_THERM_TICK_NS);
    g_assert_cmpuint(rd(&t, TGPU_THERM_POWER_MW), ==, busy_w * 1000);
    g_assert_cmphex(rd(&t, TGPU_THERM_REASONS), ==, 0);
    t0 = temp_c(&t);
    run_for(&t, TAU_NS);
    expect_temp(&t, t0, model_c(t0, busy_w, TAU_NS, 35));
    g_assert_cmpfloat(temp_c(&t), >, 65);

    chan_kill(&t, c->id);
    step(&t, TGPU_THERM_TICK_NS);
    g_assert_cmpuint(rd(&t, TGPU_THERM_POWER_MW), ==, IDLE_W * 1000);
    t0 = temp_c(&t);
    run_for(&t, TAU_NS);
    expect_temp(&t, t0, model_c(t0, IDLE_W, TAU_NS, 35));
    g_assert_cmpfloat(temp_c(&t), <, t0);
    tgpu_stop(&t);
}

/* Crossing ALERT_HIGH upwards and ALERT_LOW downwards interrupt. */
static void test_alerts(void)
{
    T t;

    therm_start(&t, NULL);
    wr(&t, TGPU_THERM_ALERT_HIGH, 50000);
    wr(&t, TGPU_THERM_ALERT_LOW, 45000);
    wr(&t, TGPU_THERM_INTR_EN, TGPU_THERM_INTR_HIGH | TGPU_THERM_INTR_LOW);
    /* 35 C is below LOW already: that is no crossing */
    step(&t, TGPU_THERM_TICK_NS);
    g_assert_cmphex(rd(&t, TGPU_THERM_STATUS), ==, TGPU_THERM_STATUS_LOW);
    g_assert_cmphex(rd(&t, TGPU_THERM_INTR), ==, 0);

    while (temp_c(&t) < 50) {
        g_assert_cmphex(rd(&t, TGPU_THERM_INTR), ==, 0);
        step(&t, 100 * TGPU_THERM_TICK_NS);
    }
    g_assert_cmphex(rd(&t, TGPU_THERM_INTR), ==, TGPU_THERM_INTR_HIGH);
    g_assert_cmphex(rd(&t, TGPU_THERM_STATUS), ==, TGPU_THERM_STATUS_HIGH);
    g_assert_cmphex(rd(&t, TGPU_PMC_INTR) & TGPU_INTR_THERMAL, ==,
                    TGPU_INTR_THERMAL);
    expect_thermal_msi(&t);
    wr(&t, TGPU_THERM_INTR, TGPU_THERM_INTR_HIGH);
    g_assert_cmphex(rd(&t, TGPU_PMC_INTR) & TGPU_INTR_THERMAL, ==, 0);

    wr(&t, TGPU_THERM_CLOCK_GATING, TGPU_ENGINE_ALL);
    while (temp_c(&t) > 45) {
        step(&t, 100 * TGPU_THERM_TICK_NS);
    }
    g_assert_cmphex(rd(&t, TGPU_THERM_INTR), ==, TGPU_THERM_INTR_LOW);
    g_assert_cmphex(rd(&t, TGPU_THERM_STATUS), ==, TGPU_THERM_STATUS_LOW);
    expect_thermal_msi(&t);
    tgpu_stop(&t);
}

/*
 * Hot air (60 C): at idle the board passes 85 C, the clock drops to the
 * slowdown clock with both hardware reasons; gated it cools 3 C below
 * the limit and the clock comes back.
 */
static void test_slowdown(void)
{
    T t;

    therm_start(&t, "ambient-temp=60");
    wr(&t, TGPU_THERM_INTR_EN, TGPU_THERM_INTR_SLOWDOWN);
    while (temp_c(&t) < 85) {
        g_assert_cmpuint(rd(&t, TGPU_THERM_CLK_EFFECTIVE), ==, BOOST_MHZ);
        step(&t, 100 * TGPU_THERM_TICK_NS);
    }
    step(&t, TGPU_THERM_TICK_NS);
    g_assert_cmphex(rd(&t, TGPU_THERM_STATUS) & TGPU_THERM_STATUS_SLOWDOWN,
                    ==, TGPU_THERM_STATUS_SLOWDOWN);
    /* ALERT_HIGH starts at the slowdown temperature: crossed too */
    g_assert_cmphex(rd(&t, TGPU_THERM_INTR), ==,
                    TGPU_THERM_INTR_SLOWDOWN | TGPU_THERM_INTR_HIGH);
    g_assert_cmpuint(rd(&t, TGPU_THERM_CLK_EFFECTIVE), ==, 810);
    g_assert_cmpuint(rd(&t, TGPU_GR_CLOCK_KHZ), ==, 810000);
    g_assert_cmphex(rd(&t, TGPU_THERM_REASONS), ==,
                    TGPU_THERM_REASON_GPU_IDLE | TGPU_THERM_REASON_HW_SLOWDOWN |
                    TGPU_THERM_REASON_HW_THERMAL);
    expect_thermal_msi(&t);

    wr(&t, TGPU_THERM_CLOCK_GATING, TGPU_ENGINE_ALL);
    while (temp_c(&t) >= 82) {
        g_assert_cmpuint(rd(&t, TGPU_THERM_CLK_EFFECTIVE), ==, 810);
        step(&t, 10 * TGPU_THERM_TICK_NS);
    }
    step(&t, TGPU_THERM_TICK_NS);
    g_assert_cmphex(rd(&t, TGPU_THERM_STATUS) & TGPU_THERM_STATUS_SLOWDOWN,
                    ==, 0);
    g_assert_cmpuint(rd(&t, TGPU_THERM_CLK_EFFECTIVE), ==, BOOST_MHZ);
    g_assert_cmphex(rd(&t, TGPU_THERM_REASONS), ==,
                    TGPU_THERM_REASON_GPU_IDLE);
    tgpu_stop(&t);
}

/*
 * Hot air and a kernel: past 90 C the GPU stops.  The channel fails with
 * THERMAL_SHUTDOWN, an interrupt comes, no channel can start; a reset
 * while still hot changes nothing, one below the limit ends it.
 */
static void test_shutdown(void)
{
    Chan *c;
    T t;

    therm_start(&t, "ambient-temp=60");
    wr(&t, TGPU_THERM_INTR_EN, TGPU_THERM_INTR_SHUTDOWN);
    c = spin_up(&t);
    while (!(rd(&t, TGPU_THERM_STATUS) & TGPU_THERM_STATUS_SHUTDOWN)) {
        g_assert_cmpuint(chan_state(&t, c->id), !=, TGPU_CHAN_STATE_ERROR);
        step(&t, 10 * TGPU_THERM_TICK_NS);
    }
    g_assert_cmpfloat(temp_c(&t), >=, 90);
    wait_state(&t, c->id, TGPU_CHAN_STATE_ERROR);
    g_assert_cmpuint(crd(&t, c->id, TGPU_CHAN_ERROR), ==,
                     TGPU_ERR_THERMAL_SHUTDOWN);
    g_assert_cmphex(rd(&t, TGPU_THERM_INTR) & TGPU_THERM_INTR_SHUTDOWN, ==,
                    TGPU_THERM_INTR_SHUTDOWN);
    expect_thermal_msi(&t);
    /* halted: the engines draw idle power only */
    step(&t, TGPU_THERM_TICK_NS);
    g_assert_cmpuint(rd(&t, TGPU_THERM_POWER_MW), ==, IDLE_W * 1000);

    /* nothing starts */
    err_ack(&t, c->id);
    chan_reset(&t, c->id);
    chan_write(&t, c);
    chan_enable(&t, c);
    wait_state(&t, c->id, TGPU_CHAN_STATE_ERROR);
    g_assert_cmpuint(crd(&t, c->id, TGPU_CHAN_ERROR), ==,
                     TGPU_ERR_THERMAL_SHUTDOWN);
    err_ack(&t, c->id);

    /* a reset at or above the limit: still stopped */
    g_assert_cmpfloat(temp_c(&t), >=, 90);
    tgpu_system_reset(&t);
    runlists_std(&t);
    g_assert_cmphex(rd(&t, TGPU_THERM_STATUS) & TGPU_THERM_STATUS_SHUTDOWN,
                    ==, TGPU_THERM_STATUS_SHUTDOWN);

    /* idle at 60 C air the board settles at 88.8 C: below the limit */
    while (temp_c(&t) >= 90) {
        step(&t, 10 * TGPU_THERM_TICK_NS);
    }
    g_assert_cmphex(rd(&t, TGPU_THERM_STATUS) & TGPU_THERM_STATUS_SHUTDOWN,
                    ==, TGPU_THERM_STATUS_SHUTDOWN);
    tgpu_system_reset(&t);
    runlists_std(&t);
    g_assert_cmphex(rd(&t, TGPU_THERM_STATUS) & TGPU_THERM_STATUS_SHUTDOWN,
                    ==, 0);
    c = chan_up_cfg(&t, chan_cfg(&t, 0));
    run_release(&t, c, L.alive, 0x7007);
    tgpu_stop(&t);
}

/*
 * Kernel throughput per second of virtual time follows the effective
 * clock: a slice is a timeslice of modelled time at one warp
 * instruction per cycle.  At boost, then under the driver's slowdown
 * (810 MHz), then under the hardware's.
 */
static void test_throughput(void)
{
    const uint64_t window = 4000000;   /* 40 slices of 100 us */
    double boost, slow, hw;
    T t;

    therm_start(&t, "ambient-temp=60");
    spin_up_ts(&t, 100);
    boost = throughput(&t, window);
    g_test_message("boost: %.4g warp instructions per virtual second",
                   boost);
    g_assert_cmpfloat(fabs(boost / (BOOST_MHZ * 1e6) - 1), <, 0.1);

    wr(&t, TGPU_THERM_SW_THERMAL, 1);
    slow = throughput(&t, window);
    g_test_message("sw_thermal_slowdown: %.4g", slow);
    g_assert_cmpfloat(fabs(slow / boost - 810.0 / BOOST_MHZ), <,
                      0.1 * 810.0 / BOOST_MHZ);
    wr(&t, TGPU_THERM_SW_THERMAL, 0);

    /* busy in 60 C air: past 85 C the hardware slows it the same way */
    while (!(rd(&t, TGPU_THERM_STATUS) & TGPU_THERM_STATUS_SLOWDOWN)) {
        wait_engine_idle(&t);
        step(&t, 100 * TGPU_THERM_TICK_NS);
    }
    hw = throughput(&t, window);
    g_test_message("hw_thermal_slowdown: %.4g", hw);
    g_assert_cmphex(rd(&t, TGPU_THERM_REASONS), ==,
                    TGPU_THERM_REASON_HW_SLOWDOWN |
                    TGPU_THERM_REASON_HW_THERMAL);
    g_assert_cmpfloat(fabs(hw / boost - 810.0 / BOOST_MHZ), <,
                      0.1 * 810.0 / BOOST_MHZ);
    tgpu_stop(&t);
}

/* ---- clocks and power --------------------------------------------------- */

static void test_clocks(void)
{
    Chan *c;
    T t;

    therm_start(&t, NULL);
    c = spin_up(&t);
    step(&t, TGPU_THERM_TICK_NS);

    /* the driver's request, and the reason it gives */
    wr(&t, TGPU_THERM_CLK_REQUEST, 1000);
    g_assert_cmpuint(rd(&t, TGPU_THERM_CLK_EFFECTIVE), ==, 1000);
    g_assert_cmpuint(rd(&t, TGPU_GR_CLOCK_KHZ), ==, 1000000);
    g_assert_cmphex(rd(&t, TGPU_THERM_REASONS), ==,
                    TGPU_THERM_REASON_APP_CLOCKS);
    g_assert_cmpuint(rd(&t, TGPU_THERM_POWER_MW), ==,
                     lround((IDLE_W + GR_BUSY_W * 1000 / BOOST_MHZ) * 1000));

    /* the driver's thermal slowdown */
    wr(&t, TGPU_THERM_SW_THERMAL, 1);
    g_assert_cmpuint(rd(&t, TGPU_THERM_CLK_EFFECTIVE), ==, 810);
    g_assert_cmphex(rd(&t, TGPU_THERM_REASONS), ==,
                    TGPU_THERM_REASON_APP_CLOCKS |
                    TGPU_THERM_REASON_SW_THERMAL);
    wr(&t, TGPU_THERM_SW_THERMAL, 0);
    wr(&t, TGPU_THERM_CLK_REQUEST, BOOST_MHZ);
    g_assert_cmpuint(rd(&t, TGPU_THERM_CLK_EFFECTIVE), ==, BOOST_MHZ);
    g_assert_cmphex(rd(&t, TGPU_THERM_REASONS), ==, 0);

    /* a 200 W cap: the clock drops until the draw fits */
    wr(&t, TGPU_THERM_POWER_CAP_MW, 200000);
    g_assert_cmpuint(rd(&t, TGPU_THERM_CLK_EFFECTIVE), <, BOOST_MHZ);
    g_assert_cmpuint(rd(&t, TGPU_THERM_CLK_EFFECTIVE), >, 810);
    g_assert_cmpuint(rd(&t, TGPU_THERM_POWER_MW), <=, 200000);
    g_assert_cmpuint(rd(&t, TGPU_THERM_POWER_MW), >, 199000);
    g_assert_cmphex(rd(&t, TGPU_THERM_REASONS), ==,
                    TGPU_THERM_REASON_SW_POWER_CAP);
    /* 125 W cannot be met: the clock stops at its minimum */
    wr(&t, TGPU_THERM_POWER_CAP_MW, 125000);
    g_assert_cmpuint(rd(&t, TGPU_THERM_CLK_EFFECTIVE), ==, 544);
    g_assert_cmpuint(rd(&t, TGPU_THERM_POWER_MW), >, 125000);
    g_assert_cmphex(rd(&t, TGPU_THERM_REASONS), ==,
                    TGPU_THERM_REASON_SW_POWER_CAP);

    /* idle, the cap binds no more */
    chan_kill(&t, c->id);
    step(&t, TGPU_THERM_TICK_NS);
    g_assert_cmpuint(rd(&t, TGPU_THERM_CLK_EFFECTIVE), ==, BOOST_MHZ);
    g_assert_cmphex(rd(&t, TGPU_THERM_REASONS), ==,
                    TGPU_THERM_REASON_GPU_IDLE);
    /* gating each engine takes its idle share off */
    wr(&t, TGPU_THERM_CLOCK_GATING, TGPU_ENGINE_CE0 | TGPU_ENGINE_CE1);
    g_assert_cmpuint(rd(&t, TGPU_THERM_POWER_MW), ==, 102000);
    wr(&t, TGPU_THERM_CLOCK_GATING, TGPU_ENGINE_ALL);
    g_assert_cmpuint(rd(&t, TGPU_THERM_POWER_MW), ==, IDLE_GATED_W * 1000);
    /* a reset turns gating off and the cap back to the limit */
    tgpu_system_reset(&t);
    g_assert_cmphex(rd(&t, TGPU_THERM_CLOCK_GATING), ==, 0);
    g_assert_cmpuint(rd(&t, TGPU_THERM_POWER_CAP_MW), ==, 250000);
    g_assert_cmpuint(rd(&t, TGPU_THERM_POWER_MW), ==, IDLE_W * 1000);
    tgpu_stop(&t);
}

/*
 * sm-clock-divider=1000: a thousandth of the work per slice, so the
 * throughput is the clock over 1000, at boost and slowed, and a bad
 * divider is refused at realize.
 */
static void test_clock_divider(void)
{
    const uint64_t window = 4000000;
    double boost, slow;
    T t;

    therm_start(&t, "sm-clock-divider=1000");
    spin_up_ts(&t, 100);
    boost = throughput(&t, window);
    g_test_message("boost / 1000: %.4g warp instructions per virtual second",
                   boost);
    g_assert_cmpfloat(fabs(boost / (BOOST_MHZ * 1e3) - 1), <, 0.1);
    g_assert_cmpuint(rd(&t, TGPU_GR_CLOCK_KHZ), ==, BOOST_MHZ * 1000);
    wr(&t, TGPU_THERM_SW_THERMAL, 1);
    slow = throughput(&t, window);
    g_assert_cmpfloat(fabs(slow / (810 * 1e3) - 1), <, 0.1);
    tgpu_stop(&t);

    for (int i = 0; i < 2; i++) {
        unsigned div = i ? 100001 : 0;
        g_autofree char *dev = g_strdup_printf("tgpu,sm-clock-divider=%u",
                                               div);
        g_autofree char *want = g_strdup_printf(
            "sm-clock-divider %u is out of range (1 to 100000)", div);
        g_autofree char *err = NULL;
        const char *argv[] = {
            g_getenv("QTEST_QEMU_BINARY"), "-M", "q35", "-nodefaults",
            "-display", "none", "-device", dev, NULL,
        };
        int status;

        g_assert_true(g_spawn_sync(NULL, (char **)argv, NULL,
                                   G_SPAWN_STDOUT_TO_DEV_NULL, NULL, NULL,
                                   NULL, &err, &status, NULL));
        g_test_message("%s", err);
        g_assert_true(WIFEXITED(status) && WEXITSTATUS(status) == 1);
        g_assert_nonnull(strstr(err, want));
    }
}

/* ---- activity and reason time ------------------------------------------ */

static uint64_t rd64(T *t, uint32_t lo)
{
    uint32_t l = rd(t, lo);

    return (uint64_t)rd(t, lo + 4) << 32 | l;
}

#define TICK        ((uint64_t)TGPU_THERM_TICK_NS)
#define BUSY(n)     rd64(&t, TGPU_THERM_BUSY_NS_LO(n))
#define REASON(b)   rd64(&t, TGPU_THERM_REASON_NS_LO(b))

/*
 * Each tick's sample counts: a busy compute engine's time in BUSY_NS(0)
 * and BUSY_NS(ANY), none in the copy engines'; the shares of the last
 * second follow; reason time is counted per reason; a reset clears it.
 */
/* CHAN_BUSY_NS of channel ch: LO latches HI */
static uint64_t chan_busy(T *t, uint32_t ch)
{
    uint64_t lo = crd(t, ch, TGPU_CHAN_BUSY_NS_LO);

    return lo | (uint64_t)crd(t, ch, TGPU_CHAN_BUSY_NS_HI) << 32;
}

static void test_activity(void)
{
    uint64_t idle0, busy;
    Chan *c;
    T t;

    therm_start(&t, NULL);
    for (unsigned n = 0; n <= TGPU_THERM_BUSY_ANY; n++) {
        g_assert_cmpuint(BUSY(n), ==, 0);
    }
    g_assert_cmpuint(rd(&t, TGPU_THERM_UTIL_GPU), ==, 0);
    g_assert_cmpuint(rd(&t, TGPU_THERM_UTIL_MEM), ==, 0);

    /* idle: time in gpu_idle only, more than 2^32 ns of it */
    step(&t, 500 * TICK);
    idle0 = REASON(0);
    g_assert_cmpuint(idle0, >=, 499 * TICK);
    g_assert_cmpuint(idle0, <=, 501 * TICK);
    g_assert_cmpuint(idle0 >> 32, ==, 1);
    for (unsigned b = 1; b < TGPU_THERM_REASON_BITS; b++) {
        g_assert_cmpuint(REASON(b), ==, 0);
    }
    g_assert_cmpuint(BUSY(TGPU_THERM_BUSY_ANY), ==, 0);

    /* a full second of a kernel: all of it the compute engine's */
    c = spin_up(&t);
    step(&t, 100 * TICK);
    busy = BUSY(0);
    g_assert_cmpuint(busy, >=, 99 * TICK);
    g_assert_cmpuint(busy, <=, 101 * TICK);
    g_assert_cmpuint(BUSY(TGPU_THERM_BUSY_ANY), ==, busy);
    g_assert_cmpuint(BUSY(1), ==, 0);
    g_assert_cmpuint(BUSY(2), ==, 0);
    g_assert_cmpuint(rd(&t, TGPU_THERM_UTIL_GPU), ==, 100);
    g_assert_cmpuint(rd(&t, TGPU_THERM_UTIL_MEM), ==, 100);
    g_assert_cmpuint(REASON(0), <=, idle0 + TICK);
    /* the channel's own engine time, the kernel under way included */
    g_assert_cmpuint(chan_busy(&t, c->id), >=, busy - TICK);
    g_assert_cmpuint(chan_busy(&t, c->id), <=, busy + TICK);

    /* at 1000 MHz for 30 ticks: applications_clocks_setting's time */
    wr(&t, TGPU_THERM_CLK_REQUEST, 1000);
    step(&t, 30 * TICK);
    g_assert_cmpuint(REASON(1), >=, 29 * TICK);
    g_assert_cmpuint(REASON(1), <=, 31 * TICK);
    wr(&t, TGPU_THERM_CLK_REQUEST, BOOST_MHZ);

    /* killed, then idle half of the last second */
    chan_kill(&t, c->id);
    step(&t, 50 * TICK);
    g_assert_cmpuint(rd(&t, TGPU_THERM_UTIL_GPU), >=, 49);
    g_assert_cmpuint(rd(&t, TGPU_THERM_UTIL_GPU), <=, 51);
    busy = BUSY(0);
    g_assert_cmpuint(busy, >=, 129 * TICK);
    g_assert_cmpuint(busy, <=, 131 * TICK);
    step(&t, 50 * TICK);
    g_assert_cmpuint(BUSY(0), ==, busy);
    /* the kill ended the channel's time with the kernel's */
    g_assert_cmpuint(chan_busy(&t, c->id), >=, busy - TICK);
    g_assert_cmpuint(chan_busy(&t, c->id), <=, busy + TICK);
    chan_reset(&t, c->id);
    g_assert_cmpuint(chan_busy(&t, c->id), ==, 0);
    g_assert_cmpuint(rd(&t, TGPU_THERM_UTIL_GPU), ==, 0);
    g_assert_cmpuint(rd(&t, TGPU_THERM_UTIL_MEM), ==, 0);

    /* the writes do not take, and a reset clears it all */
    wr(&t, TGPU_THERM_BUSY_NS_LO(0), 0);
    g_assert_cmpuint(BUSY(0), ==, busy);
    tgpu_system_reset(&t);
    g_assert_cmpuint(BUSY(0), ==, 0);
    g_assert_cmpuint(REASON(0), ==, 0);
    g_assert_cmpuint(rd(&t, TGPU_THERM_UTIL_GPU), ==, 0);
    g_assert_cmphex(rd(&t, TGPU_THERM_REASON_NS_HI(TGPU_THERM_REASON_BITS)),
                    ==, TGPU_REG_BADF);
    tgpu_stop(&t);
}

/*
 * A kernel in 100 µs slices: its channel has the engine for the waits
 * between them too, as the engine's BUSY_NS says, however soon the
 * engine's thread ends each slice.
 */
static void test_activity_slices(void)
{
    uint64_t busy;
    Chan *c;
    T t;

    therm_start(&t, NULL);
    c = spin_up_ts(&t, 100);
    step(&t, 100 * TICK);
    busy = BUSY(0);
    g_assert_cmpuint(busy, >=, 99 * TICK);
    g_assert_cmpuint(chan_busy(&t, c->id), >=, busy - TICK);
    g_assert_cmpuint(chan_busy(&t, c->id), <=, busy + TICK);
    tgpu_stop(&t);
}

int main(int argc, char **argv)
{
    g_test_init(&argc, &argv, NULL);
    qtest_add_func("/tgpu/therm/defaults", test_defaults);
    qtest_add_func("/tgpu/therm/bad-writes", test_bad_writes);
    qtest_add_func("/tgpu/therm/time-constant", test_time_constant);
    qtest_add_func("/tgpu/therm/kernel-heats", test_kernel_heats);
    qtest_add_func("/tgpu/therm/alerts", test_alerts);
    qtest_add_func("/tgpu/therm/slowdown", test_slowdown);
    qtest_add_func("/tgpu/therm/shutdown", test_shutdown);
    qtest_add_func("/tgpu/therm/clocks", test_clocks);
    qtest_add_func("/tgpu/therm/throughput", test_throughput);
    qtest_add_func("/tgpu/therm/activity", test_activity);
    qtest_add_func("/tgpu/therm/activity-slices", test_activity_slices);
    qtest_add_func("/tgpu/therm/clock-divider", test_clock_divider);
    return g_test_run();
}
