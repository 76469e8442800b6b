/* SPDX-License-Identifier: MIT */
/*
 * tgpu hardware contract: the thermal, power and clock unit.
 *
 * docs/hw/thermal.md is the manual.  Like regs.h this compiles in the
 * device model, the kernel driver, the user-mode tools and the tests: no
 * libc, only the fixed-width integer types each user provides.
 */
#ifndef TGPU_THERM_H
#define TGPU_THERM_H

#define TGPU_THERM_BASE             0x00e000u
#define TGPU_THERM_SIZE             0x1000u

/* ---- temperature -------------------------------------------------------- */

/* The sensor, in milli-degrees Celsius (signed). */
#define TGPU_THERM_TEMP             0x00e000u   /* RO */
/*
 * Alert thresholds, milli-degrees Celsius, TGPU_THERM_ALERT_MIN_MC to
 * TGPU_THERM_ALERT_MAX_MC.  Crossing HIGH upwards sets INTR.HIGH,
 * crossing LOW downwards INTR.LOW.
 */
#define TGPU_THERM_ALERT_HIGH       0x00e004u   /* RW */
#define TGPU_THERM_ALERT_LOW        0x00e008u   /* RW */
#define   TGPU_THERM_ALERT_MIN_MC   0
#define   TGPU_THERM_ALERT_MAX_MC   150000
#define TGPU_THERM_STATUS           0x00e00cu   /* RO; ERR_VALUE W1C */
#define   TGPU_THERM_STATUS_HIGH    (1u << 0)   /* at or above ALERT_HIGH */
#define   TGPU_THERM_STATUS_LOW     (1u << 1)   /* at or below ALERT_LOW */
#define   TGPU_THERM_STATUS_SLOWDOWN (1u << 2)  /* hardware slowdown on */
#define   TGPU_THERM_STATUS_SHUTDOWN (1u << 3)  /* the GPU is stopped */
#define   TGPU_THERM_STATUS_ERR_VALUE (1u << 16) /* a write was refused */
#define TGPU_THERM_INTR             0x00e010u   /* R/W1C */
#define   TGPU_THERM_INTR_HIGH      (1u << 0)
#define   TGPU_THERM_INTR_LOW       (1u << 1)
#define   TGPU_THERM_INTR_SLOWDOWN  (1u << 2)   /* slowdown began */
#define   TGPU_THERM_INTR_SHUTDOWN  (1u << 3)
#define   TGPU_THERM_INTR_MASK      0xfu
#define TGPU_THERM_INTR_EN          0x00e014u   /* RW; PMC_INTR bit 4 */
#define TGPU_THERM_SLOWDOWN_TEMP    0x00e018u   /* RO, milli-degrees C */
#define TGPU_THERM_SHUTDOWN_TEMP    0x00e01cu   /* RO, milli-degrees C */
/* The first-order model's time constant, in ms (docs/hw/thermal.md). */
#define TGPU_THERM_TAU_MS           0x00e020u   /* RO */
/* Slowdown ends this far below the slowdown temperature. */
#define TGPU_THERM_HYSTERESIS_MC    3000

/* ---- clocks ------------------------------------------------------------- */

/* The SM clock the driver asks for, TGPU_THERM_CLK_MIN to boost MHz. */
#define TGPU_THERM_CLK_REQUEST      0x00e040u   /* RW, MHz */
/* The clock the SMs run at: min(request, thermal, power cap). */
#define TGPU_THERM_CLK_EFFECTIVE    0x00e044u   /* RO, MHz */
#define TGPU_THERM_CLK_BASE         0x00e048u   /* RO, MHz */
#define TGPU_THERM_CLK_BOOST        0x00e04cu   /* RO, MHz */
#define TGPU_THERM_CLK_SLOWDOWN     0x00e050u   /* RO, MHz: when throttled */
#define TGPU_THERM_CLK_MIN          0x00e054u   /* RO, MHz: the lowest */
/*
 * Why the clock is below boost: NVML's clocks event reason bits, with
 * nvidia-smi's names.  SW_THERMAL is the driver's, through SW_THERMAL.
 */
#define TGPU_THERM_REASONS          0x00e058u   /* RO */
#define   TGPU_THERM_REASON_GPU_IDLE        (1u << 0)
#define   TGPU_THERM_REASON_APP_CLOCKS      (1u << 1)
#define   TGPU_THERM_REASON_SW_POWER_CAP    (1u << 2)
#define   TGPU_THERM_REASON_HW_SLOWDOWN     (1u << 3)
#define   TGPU_THERM_REASON_SW_THERMAL      (1u << 5)
#define   TGPU_THERM_REASON_HW_THERMAL      (1u << 6)
/* X(bit, name): the reason bits with nvidia-smi's names. */
#define TGPU_THERM_REASON_NAMES(X) \
    X(TGPU_THERM_REASON_GPU_IDLE, "gpu_idle") \
    X(TGPU_THERM_REASON_APP_CLOCKS, "applications_clocks_setting") \
    X(TGPU_THERM_REASON_SW_POWER_CAP, "sw_power_cap") \
    X(TGPU_THERM_REASON_HW_SLOWDOWN, "hw_slowdown") \
    X(TGPU_THERM_REASON_SW_THERMAL, "sw_thermal_slowdown") \
    X(TGPU_THERM_REASON_HW_THERMAL, "hw_thermal_slowdown")

/* The name of one reason bit (a single bit), or NULL for none. */
static inline const char *tgpu_therm_reason_name(unsigned int bit)
{
    switch (bit) {
#define TGPU_THERM_REASON_CASE_(b, name) case (b): return name;
    TGPU_THERM_REASON_NAMES(TGPU_THERM_REASON_CASE_)
#undef TGPU_THERM_REASON_CASE_
    }
    return 0;
}

/* 1: the driver slows the clock for temperature (to CLK_SLOWDOWN). */
#define TGPU_THERM_SW_THERMAL       0x00e05cu   /* RW, 0 or 1 */

/* ---- power -------------------------------------------------------------- */

#define TGPU_THERM_POWER_MW         0x00e080u   /* RO, the model's draw */
/* The power cap, CAP_MIN to the board's limit (PMC_POWER_LIMIT_MW). */
#define TGPU_THERM_POWER_CAP_MW     0x00e084u   /* RW */
#define TGPU_THERM_POWER_CAP_MIN_MW 0x00e088u   /* RO */
/* Clock gating per engine: TGPU_ENGINE_* bits (regs.h); off at reset. */
#define TGPU_THERM_CLOCK_GATING     0x00e08cu   /* RW */

/* ---- activity and reason time ------------------------------------------- */

/*
 * What the unit samples at each tick (TGPU_THERM_TICK_NS of virtual
 * time), as NVIDIA's PMU samples engine activity: 64-bit counters of
 * nanoseconds since reset, and shares of the last second.  Reading a LO
 * register latches the HI half of the same counter: read LO, then HI.
 *
 * BUSY_NS(n): time engine n had work (a launch in flight or a kernel
 * held; n as in PMC_ENGINE_PROGRESS: 0 compute, 1 CE0, 2 CE1), and
 * n = TGPU_THERM_BUSY_ANY: time any engine had work, which is when
 * device memory is read or written.
 */
#define TGPU_THERM_BUSY_ANY         3u
#define TGPU_THERM_BUSY_NS_LO(n)    (0x00e0c0u + 8u * (n))     /* RO */
#define TGPU_THERM_BUSY_NS_HI(n)    (0x00e0c4u + 8u * (n))     /* RO */
/*
 * Percent of the samples of the last TGPU_THERM_UTIL_WINDOW_MS in which
 * the compute engine had work (nvidia-smi's utilization.gpu), and in
 * which any engine had (utilization.memory).
 */
#define TGPU_THERM_UTIL_GPU         0x00e0e0u   /* RO, 0 to 100 */
#define TGPU_THERM_UTIL_MEM         0x00e0e4u   /* RO, 0 to 100 */
#define   TGPU_THERM_UTIL_WINDOW_MS 1000u
/* REASON_NS(b): time REASONS bit b (0 to 6) was set, ns since reset. */
#define TGPU_THERM_REASON_BITS      7u
#define TGPU_THERM_REASON_NS_LO(b)  (0x00e100u + 8u * (b))     /* RO */
#define TGPU_THERM_REASON_NS_HI(b)  (0x00e104u + 8u * (b))     /* RO */

/* The unit's model advances this often, in virtual time. */
#define TGPU_THERM_TICK_NS          10000000u

#endif /* TGPU_THERM_H */
