/*
 * tgpu thermal, power and clocks: a first-order thermal model on the
 * virtual clock, heated by the engines' power, with alerts, hardware
 * slowdown and shutdown, the SM clock the driver asks for and the one it
 * gets, throttle reasons, a power cap and clock gating.
 * docs/hw/thermal.md is the manual.
 *
 * Copyright (c) 2026 The tgpu authors
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */

#include "qemu/osdep.h"
#include <math.h>
#include "qemu/log.h"
#include "qemu/timer.h"
#include "qemu/error-report.h"
#include "migration/vmstate.h"
#include "tgpu.h"
#include "tgpu-engine.h"
#include "trace.h"

/*
 * Power, in mW (docs/hw/thermal.md): an always-on floor, each engine's
 * idle share unless it is clock-gated, and its dynamic power while it
 * has work, the compute engine's scaled by the SM clock.  Every model
 * shares it: 120 W idle ungated, 22 W gated, 250 W all busy at boost.
 */
#define THERM_FLOOR_MW          22000
static const struct {
    uint32_t bit, idle_mw, busy_mw;
} therm_engine_power[] = {
    { TGPU_ENGINE_COMPUTE, 80000, 110000 },
    { TGPU_ENGINE_CE0, 9000, 10000 },
    { TGPU_ENGINE_CE1, 9000, 10000 },
};
/* Board to air: degrees C per W; 250 W over a 35 C inlet is 95 C. */
#define THERM_R_C_PER_W         0.24

static uint32_t therm_mc(double c)
{
    return (uint32_t)(int32_t)lround(c * 1000.0);
}

/* Which engines have work: a launch in flight, or a kernel held. */
static uint32_t therm_busy(TGPUState *s)
{
    uint32_t busy = 0;

    for (int r = 0; r < TGPU_NR_RUNLISTS; r++) {
        TGPUEngine *e = s->engine[r];
        bool b;

        if (!e) {
            continue;
        }
        b = tgpu_engine_busy(e);
        for (uint32_t i = 0; !b && e->ops->holds && i < s->num_channels;
             i++) {
            b = s->chan[i].enabled && e->ops->holds(e, &s->chan[i]);
        }
        busy |= b ? e->engine_bit : 0;
    }
    return busy;
}

/* What the engines draw, in mW, at SM clock CLK. */
static double therm_power(TGPUState *s, uint32_t busy, double clk)
{
    double p = THERM_FLOOR_MW;

    for (size_t i = 0; i < ARRAY_SIZE(therm_engine_power); i++) {
        uint32_t bit = therm_engine_power[i].bit;
        double dyn = therm_engine_power[i].busy_mw;

        if ((busy & bit) || !(s->therm_gating & bit)) {
            p += therm_engine_power[i].idle_mw;
        }
        if (bit == TGPU_ENGINE_COMPUTE) {
            dyn *= clk / s->model->clk_sm_boost_mhz;
        }
        p += (busy & bit) ? dyn : 0;
    }
    return p;
}

/* The clock, power and reasons for this tick; under the BQL. */
static void therm_clocks(TGPUState *s, uint32_t busy)
{
    const TGPUModel *m = s->model;
    double clk = s->therm_clk_request, p, over, gr;
    uint32_t reasons = 0;

    if (!busy) {
        reasons |= TGPU_THERM_REASON_GPU_IDLE;
    }
    if (s->therm_clk_request < m->clk_sm_boost_mhz) {
        reasons |= TGPU_THERM_REASON_APP_CLOCKS;
    }
    if (s->therm_slowdown) {
        reasons |= TGPU_THERM_REASON_HW_SLOWDOWN |
                   TGPU_THERM_REASON_HW_THERMAL;
        clk = MIN(clk, m->clk_sm_slowdown_mhz);
    }
    if (s->therm_sw_thermal) {
        reasons |= TGPU_THERM_REASON_SW_THERMAL;
        clk = MIN(clk, m->clk_sm_slowdown_mhz);
    }
    p = therm_power(s, busy, clk);
    if (p > s->therm_cap_mw && (busy & TGPU_ENGINE_COMPUTE)) {
        /* the SMs' dynamic power is linear in the clock: slow to fit */
        gr = therm_engine_power[0].busy_mw / (double)m->clk_sm_boost_mhz;
        over = p - s->therm_cap_mw;
        clk = MAX(clk - over / gr, m->clk_sm_min_mhz);
        clk = floor(clk);
        reasons |= TGPU_THERM_REASON_SW_POWER_CAP;
        p = therm_power(s, busy, clk);
    }
    s->therm_clk = (uint32_t)clk;
    s->therm_power_mw = (uint32_t)lround(p);
    s->therm_reasons = reasons;
}

static void therm_raise(TGPUState *s, uint32_t bits)
{
    s->therm_intr |= bits;
    trace_tgpu_therm_intr(bits, therm_mc(s->therm_temp));
    for (uint32_t b = bits; b; b &= b - 1) {
        tgpu_qmp_thermal_event(s, b & -b, true, therm_mc(s->therm_temp));
    }
    tgpu_irq_raise(s, TGPU_UNIT_THERMAL);
}

/* Over the shutdown temperature: everything stops until a reset. */
static void therm_shutdown(TGPUState *s)
{
    s->therm_halted = true;
    qemu_log_mask(LOG_GUEST_ERROR, "tgpu: thermal shutdown at %.1f C "
                  "(limit %u.%03u C): every channel fails; reset the GPU "
                  "once it is below the limit\n", s->therm_temp,
                  s->model->therm_shutdown_mc / 1000,
                  s->model->therm_shutdown_mc % 1000);
    trace_tgpu_therm_shutdown(therm_mc(s->therm_temp));
    for (uint32_t i = 0; i < s->num_channels; i++) {
        TGPUChannel *ch = &s->chan[i];

        if (ch->enabled && !ch->error) {
            tgpu_chan_fail(s, ch, TGPU_ERR_THERMAL_SHUTDOWN, 0);
        }
    }
    therm_raise(s, TGPU_THERM_INTR_SHUTDOWN);
}

/* Thresholds, alerts and the state they set, at the temperature now. */
static void therm_check(TGPUState *s)
{
    const TGPUModel *m = s->model;
    int32_t t = (int32_t)therm_mc(s->therm_temp);
    uint32_t raise = 0;
    bool high = t >= (int32_t)s->therm_alert_high;
    bool low = t <= (int32_t)s->therm_alert_low;

    if (high && !s->therm_was_high) {
        raise |= TGPU_THERM_INTR_HIGH;
    }
    if (low && !s->therm_was_low) {
        raise |= TGPU_THERM_INTR_LOW;
    }
    s->therm_was_high = high;
    s->therm_was_low = low;
    if (!s->therm_slowdown && t >= (int32_t)m->therm_slowdown_mc) {
        s->therm_slowdown = true;
        raise |= TGPU_THERM_INTR_SLOWDOWN;
        trace_tgpu_therm_slowdown(true, t);
    } else if (s->therm_slowdown &&
               t < (int32_t)m->therm_slowdown_mc - TGPU_THERM_HYSTERESIS_MC) {
        s->therm_slowdown = false;
        trace_tgpu_therm_slowdown(false, t);
        tgpu_qmp_thermal_event(s, TGPU_THERM_INTR_SLOWDOWN, false, t);
    }
    if (raise) {
        therm_raise(s, raise);
    }
    if (!s->therm_halted && t >= (int32_t)m->therm_shutdown_mc) {
        therm_shutdown(s);
    }
}

/*
 * The tick's sample: the engines busy now and the reasons in force had
 * the DT_NS since the last tick, as the temperature has its power.
 */
static void therm_account(TGPUState *s, uint32_t busy, int64_t dt_ns)
{
    if (dt_ns > 0) {
        for (unsigned n = 0; n < TGPU_THERM_BUSY_ANY; n++) {
            s->therm_busy_ns[n] += (busy >> n) & 1 ? dt_ns : 0;
        }
        s->therm_busy_ns[TGPU_THERM_BUSY_ANY] += busy ? dt_ns : 0;
        for (unsigned b = 0; b < TGPU_THERM_REASON_BITS; b++) {
            s->therm_reason_ns[b] += (s->therm_reasons >> b) & 1 ? dt_ns : 0;
        }
    }
    s->therm_window[s->therm_window_pos] = busy;
    s->therm_window_pos = (s->therm_window_pos + 1) %
                          ARRAY_SIZE(s->therm_window);
    s->therm_window_n = MIN(s->therm_window_n + 1,
                            ARRAY_SIZE(s->therm_window));
}

/* Percent of the last second's samples with one of BITS busy. */
static uint32_t therm_util(TGPUState *s, uint32_t bits)
{
    uint32_t hits = 0;

    if (!s->therm_window_n) {
        return 0;
    }
    for (uint32_t i = 0; i < s->therm_window_n; i++) {
        hits += (s->therm_window[i] & bits) != 0;
    }
    return hits * 100 / s->therm_window_n;
}

/* A LO half of a 64-bit counter, latching its HI half. */
static uint32_t therm_read_lo(TGPUState *s, uint64_t v)
{
    s->therm_latch_hi = v >> 32;
    return (uint32_t)v;
}

/* One tick of the model: power over the last tick heats the board. */
static void therm_tick(void *opaque)
{
    TGPUState *s = opaque;
    int64_t now = qemu_clock_get_ns(QEMU_CLOCK_VIRTUAL);
    double dt = (now - s->therm_last_ns) / 1e9, tss;
    uint32_t busy = s->therm_halted ? 0 : therm_busy(s);

    therm_clocks(s, busy);
    therm_account(s, busy, now - s->therm_last_ns);
    if (s->therm_forced) {
        /* QMP's heat gun: along the ramp, then held at its end */
        int64_t in = now - s->therm_ramp_start_ns;

        s->therm_temp = in >= s->therm_ramp_ns ? s->therm_ramp_to :
            s->therm_ramp_from + (s->therm_ramp_to - s->therm_ramp_from) *
            in / s->therm_ramp_ns;
    } else if (dt > 0) {
        /* exact for the tick's constant power: T -> Tss with tau */
        tss = s->therm_ambient + s->therm_power_mw / 1000.0 *
              THERM_R_C_PER_W;
        s->therm_temp = tss + (s->therm_temp - tss) *
                        exp(-dt * 1000.0 / s->model->therm_tau_ms);
    }
    s->therm_last_ns = now;
    trace_tgpu_therm_tick(therm_mc(s->therm_temp), s->therm_power_mw,
                          s->therm_clk, busy);
    therm_check(s);
    timer_mod(s->therm_timer, now + TGPU_THERM_TICK_NS);
}

/*
 * QMP: hold the board at FROM (NS 0), or ramp it from FROM to TO over
 * NS of virtual time and hold it there, until tgpu_therm_release().
 */
void tgpu_therm_force(TGPUState *s, double from, double to, int64_t ns)
{
    s->therm_forced = true;
    s->therm_ramp_from = from;
    s->therm_ramp_to = ns ? to : from;
    s->therm_ramp_start_ns = qemu_clock_get_ns(QEMU_CLOCK_VIRTUAL);
    s->therm_ramp_ns = ns;
    s->therm_temp = from;
    trace_tgpu_therm_force(therm_mc(from), therm_mc(s->therm_ramp_to), ns);
    therm_check(s);
}

/* QMP: the model takes over again, from the temperature there is. */
void tgpu_therm_release(TGPUState *s)
{
    s->therm_forced = false;
    trace_tgpu_therm_force(therm_mc(s->therm_temp), therm_mc(s->therm_temp),
                           -1);
}

void tgpu_therm_set_ambient(TGPUState *s, double c)
{
    s->therm_ambient = c;
}

/* Whether the GPU is stopped by a thermal shutdown (nothing may run). */
bool tgpu_therm_halted(TGPUState *s)
{
    return s->therm_halted;
}

/*
 * After a load, once every section is in (tgpu_post_load()): a shutdown
 * failed every enabled channel, and enabling one since fails it at once
 * (chan_enable()), so a halted GPU has no channel that could run.
 */
bool tgpu_therm_loaded_valid(TGPUState *s)
{
    for (uint32_t i = 0; s->therm_halted && i < s->num_channels; i++) {
        if (s->chan[i].enabled && !s->chan[i].error) {
            error_report("tgpu: migrated thermal shutdown with channel %u "
                         "still running", i);
            return false;
        }
    }
    return true;
}

/* The SM clock the engines run at, in MHz. */
uint32_t tgpu_therm_clock_mhz(TGPUState *s)
{
    return s->therm_clk;
}

static uint32_t therm_status(TGPUState *s)
{
    return (s->therm_was_high ? TGPU_THERM_STATUS_HIGH : 0) |
           (s->therm_was_low ? TGPU_THERM_STATUS_LOW : 0) |
           (s->therm_slowdown ? TGPU_THERM_STATUS_SLOWDOWN : 0) |
           (s->therm_halted ? TGPU_THERM_STATUS_SHUTDOWN : 0) |
           s->therm_err;
}

uint32_t tgpu_therm_read(TGPUState *s, hwaddr addr, bool *ok)
{
    const TGPUModel *m = s->model;
    unsigned i;

    *ok = true;
    switch (addr) {
    case TGPU_THERM_TEMP:
        return therm_mc(s->therm_temp);
    case TGPU_THERM_ALERT_HIGH:
        return s->therm_alert_high;
    case TGPU_THERM_ALERT_LOW:
        return s->therm_alert_low;
    case TGPU_THERM_STATUS:
        return therm_status(s);
    case TGPU_THERM_INTR:
        return s->therm_intr;
    case TGPU_THERM_INTR_EN:
        return s->therm_intr_en;
    case TGPU_THERM_SLOWDOWN_TEMP:
        return m->therm_slowdown_mc;
    case TGPU_THERM_SHUTDOWN_TEMP:
        return m->therm_shutdown_mc;
    case TGPU_THERM_TAU_MS:
        return m->therm_tau_ms;
    case TGPU_THERM_CLK_REQUEST:
        return s->therm_clk_request;
    case TGPU_THERM_CLK_EFFECTIVE:
        return s->therm_clk;
    case TGPU_THERM_CLK_BASE:
        return m->clk_sm_base_mhz;
    case TGPU_THERM_CLK_BOOST:
        return m->clk_sm_boost_mhz;
    case TGPU_THERM_CLK_SLOWDOWN:
        return m->clk_sm_slowdown_mhz;
    case TGPU_THERM_CLK_MIN:
        return m->clk_sm_min_mhz;
    case TGPU_THERM_REASONS:
        return s->therm_reasons;
    case TGPU_THERM_SW_THERMAL:
        return s->therm_sw_thermal;
    case TGPU_THERM_POWER_MW:
        return s->therm_power_mw;
    case TGPU_THERM_POWER_CAP_MW:
        return s->therm_cap_mw;
    case TGPU_THERM_POWER_CAP_MIN_MW:
        return m->power_cap_min_mw;
    case TGPU_THERM_CLOCK_GATING:
        return s->therm_gating;
    case TGPU_THERM_UTIL_GPU:
        return therm_util(s, TGPU_ENGINE_COMPUTE);
    case TGPU_THERM_UTIL_MEM:
        return therm_util(s, TGPU_ENGINE_ALL);
    case TGPU_THERM_BUSY_NS_LO(0) ...
         TGPU_THERM_BUSY_NS_HI(TGPU_THERM_BUSY_ANY):
        i = (addr - TGPU_THERM_BUSY_NS_LO(0)) / 8;
        return addr & 4 ? s->therm_latch_hi :
               therm_read_lo(s, s->therm_busy_ns[i]);
    case TGPU_THERM_REASON_NS_LO(0) ...
         TGPU_THERM_REASON_NS_HI(TGPU_THERM_REASON_BITS - 1):
        i = (addr - TGPU_THERM_REASON_NS_LO(0)) / 8;
        return addr & 4 ? s->therm_latch_hi :
               therm_read_lo(s, s->therm_reason_ns[i]);
    }
    *ok = false;
    return TGPU_REG_BADF;
}

/* A value out of range: a documented error, and nothing else changes. */
static void therm_refuse(TGPUState *s, hwaddr addr, uint32_t val,
                         const char *range)
{
    s->therm_err |= TGPU_THERM_STATUS_ERR_VALUE;
    qemu_log_mask(LOG_GUEST_ERROR, "tgpu: thermal register 0x%05"
                  HWADDR_PRIx ": value %u (0x%x) refused: %s\n", addr, val,
                  val, range);
    trace_tgpu_therm_refused(addr, val);
}

static bool therm_in(uint32_t v, uint32_t lo, uint32_t hi)
{
    return v >= lo && v <= hi;
}

/* Take a write of VAL to *REG only when it is within [LO, HI]. */
static void therm_set(TGPUState *s, hwaddr addr, uint32_t val, uint32_t lo,
                      uint32_t hi, uint32_t *reg)
{
    g_autofree char *range = NULL;

    if (!therm_in(val, lo, hi)) {
        range = g_strdup_printf("the range is %u to %u", lo, hi);
        therm_refuse(s, addr, val, range);
        return;
    }
    *reg = val;
}

bool tgpu_therm_write(TGPUState *s, hwaddr addr, uint32_t val)
{
    const TGPUModel *m = s->model;

    switch (addr) {
    case TGPU_THERM_ALERT_HIGH:
        therm_set(s, addr, val, TGPU_THERM_ALERT_MIN_MC,
                  TGPU_THERM_ALERT_MAX_MC, &s->therm_alert_high);
        break;
    case TGPU_THERM_ALERT_LOW:
        therm_set(s, addr, val, TGPU_THERM_ALERT_MIN_MC,
                  TGPU_THERM_ALERT_MAX_MC, &s->therm_alert_low);
        break;
    case TGPU_THERM_STATUS:
        s->therm_err &= ~(val & TGPU_THERM_STATUS_ERR_VALUE);
        return true;
    case TGPU_THERM_INTR:
        s->therm_intr &= ~val;
        tgpu_irq_update(s);
        return true;
    case TGPU_THERM_INTR_EN:
        if (val & ~TGPU_THERM_INTR_MASK) {
            therm_refuse(s, addr, val, "bits 3:0 only");
            return true;
        }
        s->therm_intr_en = val;
        tgpu_irq_update(s);
        return true;
    case TGPU_THERM_CLK_REQUEST:
        therm_set(s, addr, val, m->clk_sm_min_mhz, m->clk_sm_boost_mhz,
                  &s->therm_clk_request);
        break;
    case TGPU_THERM_SW_THERMAL:
        therm_set(s, addr, val, 0, 1, &s->therm_sw_thermal);
        break;
    case TGPU_THERM_POWER_CAP_MW:
        therm_set(s, addr, val, m->power_cap_min_mw, m->power_limit_mw,
                  &s->therm_cap_mw);
        break;
    case TGPU_THERM_CLOCK_GATING:
        if (val & ~TGPU_ENGINE_ALL) {
            therm_refuse(s, addr, val, "engine bits 2:0 only");
            return true;
        }
        s->therm_gating = val;
        break;
    default:
        return false;
    }
    /* a new threshold is no crossing: the next one counts */
    s->therm_was_high = (int32_t)therm_mc(s->therm_temp) >=
                        (int32_t)s->therm_alert_high;
    s->therm_was_low = (int32_t)therm_mc(s->therm_temp) <=
                       (int32_t)s->therm_alert_low;
    /* a new clock or power setting takes effect at once */
    therm_clocks(s, s->therm_halted ? 0 : therm_busy(s));
    return true;
}

/*
 * Registers to their reset values.  The temperature is physics: a reset
 * leaves it, and a shutdown ends only with a reset below the limit.
 */
/* ---- migration ---------------------------------------------------------- */

/* The model's temperatures are doubles: moved as their bits. */
static int therm_pre_save(void *opaque)
{
    TGPUState *s = opaque;

    memcpy(&s->therm_mig[0], &s->therm_ambient, sizeof(double));
    memcpy(&s->therm_mig[1], &s->therm_temp, sizeof(double));
    memcpy(&s->therm_mig[2], &s->therm_ramp_from, sizeof(double));
    memcpy(&s->therm_mig[3], &s->therm_ramp_to, sizeof(double));
    return 0;
}

static int therm_post_load(void *opaque, int version_id)
{
    TGPUState *s = opaque;
    const TGPUModel *m = s->model;
    int64_t now;
    double t[4];

    memcpy(t, s->therm_mig, sizeof(t));
    /* what QMP and the model could have set: the ranges they check */
    for (int i = 0; i < 4; i++) {
        if (!isfinite(t[i]) || t[i] < -273.0 || t[i] > 1000.0) {
            error_report("tgpu: migrated temperature is out of range");
            return -EINVAL;
        }
    }
    /*
     * The registers in the ranges tgpu_therm_write() takes, and the
     * times in tgpu_mig_time_valid()'s: a clock beyond the boost clock
     * would size the compute engine's slices (gr_start), a ramp of no
     * length between two temperatures divides by zero in therm_tick().
     */
    if (s->therm_window_pos >= ARRAY_SIZE(s->therm_window) ||
        s->therm_window_n > ARRAY_SIZE(s->therm_window) ||
        !therm_in(s->therm_alert_high, TGPU_THERM_ALERT_MIN_MC,
                  TGPU_THERM_ALERT_MAX_MC) ||
        !therm_in(s->therm_alert_low, TGPU_THERM_ALERT_MIN_MC,
                  TGPU_THERM_ALERT_MAX_MC) ||
        (s->therm_intr_en & ~TGPU_THERM_INTR_MASK) ||
        !therm_in(s->therm_clk_request, m->clk_sm_min_mhz,
                  m->clk_sm_boost_mhz) ||
        s->therm_clk > m->clk_sm_boost_mhz ||
        s->therm_sw_thermal > 1 ||
        !therm_in(s->therm_cap_mw, m->power_cap_min_mw, m->power_limit_mw) ||
        (s->therm_gating & ~TGPU_ENGINE_ALL) ||
        !tgpu_mig_time_valid(s->therm_last_ns) ||
        !tgpu_mig_time_valid(s->therm_ramp_start_ns) ||
        !tgpu_mig_time_valid(s->therm_ramp_ns) ||
        (!s->therm_ramp_ns && t[2] != t[3])) {
        error_report("tgpu: migrated thermal state is out of range");
        return -EINVAL;
    }
    s->therm_ambient = t[0];
    s->therm_temp = t[1];
    s->therm_ramp_from = t[2];
    s->therm_ramp_to = t[3];
    /*
     * The tick re-arms only itself: a stream without it, or with it far
     * ahead, would stop the model.
     */
    now = qemu_clock_get_ns(QEMU_CLOCK_VIRTUAL);
    if (!timer_pending(s->therm_timer) ||
        timer_expire_time_ns(s->therm_timer) > now + TGPU_THERM_TICK_NS) {
        timer_mod(s->therm_timer, now + TGPU_THERM_TICK_NS);
    }
    return 0;
}

const VMStateDescription tgpu_vmstate_therm = {
    .name = "tgpu/therm",
    .version_id = 1,
    .minimum_version_id = 1,
    .pre_save = therm_pre_save,
    .post_load = therm_post_load,
    .fields = (const VMStateField[]) {
        VMSTATE_UINT64_ARRAY(therm_mig, TGPUState, 4),
        VMSTATE_INT64(therm_last_ns, TGPUState),
        VMSTATE_TIMER_PTR(therm_timer, TGPUState),
        VMSTATE_UINT32(therm_alert_high, TGPUState),
        VMSTATE_UINT32(therm_alert_low, TGPUState),
        VMSTATE_BOOL(therm_was_high, TGPUState),
        VMSTATE_BOOL(therm_was_low, TGPUState),
        VMSTATE_BOOL(therm_slowdown, TGPUState),
        VMSTATE_BOOL(therm_halted, TGPUState),
        VMSTATE_UINT32(therm_intr, TGPUState),
        VMSTATE_UINT32(therm_intr_en, TGPUState),
        VMSTATE_UINT32(therm_err, TGPUState),
        VMSTATE_UINT32(therm_clk_request, TGPUState),
        VMSTATE_UINT32(therm_clk, TGPUState),
        VMSTATE_UINT32(therm_sw_thermal, TGPUState),
        VMSTATE_UINT32(therm_reasons, TGPUState),
        VMSTATE_UINT32(therm_power_mw, TGPUState),
        VMSTATE_UINT32(therm_cap_mw, TGPUState),
        VMSTATE_UINT32(therm_gating, TGPUState),
        VMSTATE_UINT64_ARRAY(therm_busy_ns, TGPUState,
                             TGPU_THERM_BUSY_ANY + 1),
        VMSTATE_UINT64_ARRAY(therm_reason_ns, TGPUState,
                             TGPU_THERM_REASON_BITS),
        VMSTATE_UINT8_ARRAY(therm_window, TGPUState,
                            TGPU_THERM_UTIL_WINDOW_MS * 1000000ull /
                            TGPU_THERM_TICK_NS),
        VMSTATE_UINT32(therm_window_pos, TGPUState),
        VMSTATE_UINT32(therm_window_n, TGPUState),
        VMSTATE_UINT32(therm_latch_hi, TGPUState),
        VMSTATE_BOOL(therm_forced, TGPUState),
        VMSTATE_INT64(therm_ramp_start_ns, TGPUState),
        VMSTATE_INT64(therm_ramp_ns, TGPUState),
        VMSTATE_END_OF_LIST()
    },
};

void tgpu_therm_reset(TGPUState *s)
{
    const TGPUModel *m = s->model;

    s->therm_alert_high = m->therm_slowdown_mc;
    s->therm_alert_low = 0;
    s->therm_intr = 0;
    s->therm_intr_en = 0;
    s->therm_err = 0;
    s->therm_clk_request = m->clk_sm_boost_mhz;
    s->therm_sw_thermal = 0;
    s->therm_cap_mw = m->power_limit_mw;
    s->therm_gating = 0;
    memset(s->therm_busy_ns, 0, sizeof(s->therm_busy_ns));
    memset(s->therm_reason_ns, 0, sizeof(s->therm_reason_ns));
    s->therm_window_pos = s->therm_window_n = 0;
    s->therm_latch_hi = 0;
    if (s->therm_halted &&
        (int32_t)therm_mc(s->therm_temp) < (int32_t)m->therm_shutdown_mc) {
        s->therm_halted = false;
        trace_tgpu_therm_restart(therm_mc(s->therm_temp));
    }
    s->therm_was_high = (int32_t)therm_mc(s->therm_temp) >=
                        (int32_t)s->therm_alert_high;
    s->therm_was_low = (int32_t)therm_mc(s->therm_temp) <=
                       (int32_t)s->therm_alert_low;
    therm_clocks(s, 0);
}

/* At realize, before anything that would need undoing. */
bool tgpu_therm_check(TGPUState *s, Error **errp)
{
    if (s->therm_ambient_c < -40 || s->therm_ambient_c > 100) {
        error_setg(errp, "tgpu: ambient-temp %d is out of range "
                   "(-40 to 100 degrees C)", s->therm_ambient_c);
        return false;
    }
    if (s->sm_clock_divider < 1 ||
        s->sm_clock_divider > TGPU_SM_CLOCK_DIVIDER_MAX) {
        error_setg(errp, "tgpu: sm-clock-divider %u is out of range "
                   "(1 to %u)", s->sm_clock_divider,
                   TGPU_SM_CLOCK_DIVIDER_MAX);
        return false;
    }
    return true;
}

/* The board starts at the ambient temperature. */
void tgpu_therm_init(TGPUState *s)
{
    s->therm_ambient = s->therm_ambient_c;
    s->therm_temp = s->therm_ambient;
    s->therm_last_ns = qemu_clock_get_ns(QEMU_CLOCK_VIRTUAL);
    s->therm_timer = timer_new_ns(QEMU_CLOCK_VIRTUAL, therm_tick, s);
    tgpu_therm_reset(s);
    timer_mod(s->therm_timer, s->therm_last_ns + TGPU_THERM_TICK_NS);
}

void tgpu_therm_exit(TGPUState *s)
{
    timer_free(s->therm_timer);
    s->therm_timer = NULL;
}
