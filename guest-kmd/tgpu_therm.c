// SPDX-License-Identifier: GPL-2.0-only OR MIT
/* Copyright (c) 2026 The tgpu authors */

/*
 * Thermal, power and clocks (docs/hw/thermal.md): the software thermal
 * governor, the hwmon device that lm-sensors shows, and the throttle
 * reasons.
 *
 * The governor runs on the device's threshold interrupts only, never on
 * a timer: it keeps ALERT_HIGH one degree above the temperature while
 * the board is above its down threshold (75 °C), and ALERT_LOW one
 * degree below while it is below its up threshold (65 °C) with the clock
 * still lowered.  At each crossing it looks the clock up in a table with
 * hysteresis: above 75 °C the request falls by down_mhz per degree over
 * 75 (and never rises there); below 65 °C it climbs back by up_mhz per
 * degree under 65 from where it was; in between it holds.  So it cannot
 * oscillate: a clock only falls above 75 °C and only rises below 65 °C.
 *
 * hwmon:
 *   temp1_input       the sensor (TEMP)
 *   temp1_max         the high alert (ALERT_HIGH)
 *   temp1_crit        where the hardware slows the clock (SLOWDOWN_TEMP)
 *   temp1_emergency   where the GPU stops (SHUTDOWN_TEMP)
 *   power1_input      the draw (POWER_MW)
 *   power1_cap        the power cap (POWER_CAP_MW), writable within
 *                     power1_cap_min and power1_cap_max (the board limit)
 *   freq1_input       the SM clock in use (CLK_EFFECTIVE), with its label
 */

#include <linux/device.h>
#include <linux/error-injection.h>
#include <linux/hwmon.h>
#include <linux/hwmon-sysfs.h>
#include <linux/ktime.h>
#include <linux/moduleparam.h>
#include <linux/pci.h>
#include <linux/sysfs.h>

#include <drm/drm_drv.h>
#include <drm/drm_managed.h>
#include <drm/drm_print.h>

#include <tgpu/regs.h>
#include <tgpu/therm.h>

#include "tgpu_device.h"
#include "tgpu_reset.h"
#include "tgpu_therm.h"

static unsigned int tgpu_therm_down_c = 75;
module_param_named(therm_down_c, tgpu_therm_down_c, uint, 0644);
MODULE_PARM_DESC(therm_down_c,
		 "above this temperature (C) the thermal governor lowers the SM clock (default 75)");

static unsigned int tgpu_therm_up_c = 65;
module_param_named(therm_up_c, tgpu_therm_up_c, uint, 0644);
MODULE_PARM_DESC(therm_up_c,
		 "below this temperature (C) it raises the clock again (default 65)");

static unsigned int tgpu_therm_down_mhz = 5;
module_param_named(therm_down_mhz, tgpu_therm_down_mhz, uint, 0644);
MODULE_PARM_DESC(therm_down_mhz,
		 "MHz the clock falls per degree above therm_down_c (default 5)");

static unsigned int tgpu_therm_up_mhz = 10;
module_param_named(therm_up_mhz, tgpu_therm_up_mhz, uint, 0644);
MODULE_PARM_DESC(therm_up_mhz,
		 "MHz the clock climbs per degree below therm_up_c (default 10)");

static unsigned int tgpu_clock_gating = TGPU_ENGINE_ALL;
module_param_named(clock_gating, tgpu_clock_gating, uint, 0444);
MODULE_PARM_DESC(clock_gating,
		 "engines clock-gated while idle at probe, TGPU_ENGINE_* bits: 1 compute, 2 CE0, 4 CE1 (default 7, all; sysfs clock_gating changes it)");

/*
 * A 64-bit activity counter of the thermal unit: LO latches HI, and the
 * latch is the unit's one, hence the lock.  With therm.lock, the BARs
 * on.  False when the device answers all ones (gone).
 */
static bool tgpu_therm_rd64(struct tgpu_device *tdev, u32 lo, u64 *v)
{
	u32 l, h;

	lockdep_assert_held(&tdev->therm.lock);
	l = tgpu_rd32(tdev, lo);
	h = tgpu_rd32(tdev, lo + 4);
	if (l == U32_MAX && h == U32_MAX)
		return false;
	*v = (u64)h << 32 | l;
	return true;
}

/*
 * For sysfs and hwmon: the device there, its BARs on (after a device
 * reset under way), and the thermal lock.  -ENODEV once unplugged,
 * -EINTR when the task is killed while it waits.
 */
static int tgpu_therm_lock(struct tgpu_device *tdev, int *idx, int *bars)
{
	if (!drm_dev_enter(&tdev->base, idx))
		return -ENODEV;
	if (tgpu_bars_enter_killable(tdev, bars)) {
		drm_dev_exit(*idx);
		return -EINTR;
	}
	mutex_lock(&tdev->therm.lock);
	return 0;
}

static void tgpu_therm_unlock(struct tgpu_device *tdev, int idx, int bars)
{
	mutex_unlock(&tdev->therm.lock);
	tgpu_bars_exit(tdev, bars);
	drm_dev_exit(idx);
}

/*
 * The device's time in reason @b (REASON_NS), or the last good read when
 * it answers all ones.  With therm.lock, the BARs on.
 */
static u64 tgpu_therm_reason_dev(struct tgpu_device *tdev, unsigned int b)
{
	struct tgpu_therm *th = &tdev->therm;
	u64 v;

	if (tgpu_therm_rd64(tdev, TGPU_THERM_REASON_NS_LO(b), &v))
		th->last_ns[b] = v;
	return th->last_ns[b];
}

static u64 tgpu_therm_app_ns(struct tgpu_device *tdev)
{
	return tgpu_therm_reason_dev(tdev, ilog2(TGPU_THERM_REASON_APP_CLOCKS));
}

/*
 * The governor lowers the clock through CLK_REQUEST, which the device
 * counts as applications_clocks_setting: the time it does so is the
 * governor's, sw_thermal_slowdown.  @on: it becomes active (or not).
 * With therm.lock, the BARs on.
 */
static void tgpu_therm_gov_account(struct tgpu_device *tdev, bool on)
{
	struct tgpu_therm *th = &tdev->therm;
	u64 app = tgpu_therm_app_ns(tdev);

	if (on)
		th->gov_mark_ns = app;
	else if (app > th->gov_mark_ns)
		th->gov_app_ns += app - th->gov_mark_ns;
}

/* The thresholds, within what the alert registers take (1 to 149 C). */
static void tgpu_therm_thresholds(int *down, int *up)
{
	*down = clamp_t(int, READ_ONCE(tgpu_therm_down_c), 2, 149);
	*up = clamp_t(int, READ_ONCE(tgpu_therm_up_c), 1, *down);
}

/* The table: the clock for temperature @t (°C) and the clock @cur now. */
static u32 tgpu_therm_lookup(struct tgpu_therm *th, int t, u32 cur)
{
	s64 clk;
	int down, up;

	tgpu_therm_thresholds(&down, &up);

	if (t > down) {
		clk = (s64)th->boost - (s64)READ_ONCE(tgpu_therm_down_mhz) *
		      (t - down);
		return clamp_t(s64, min_t(s64, clk, cur), th->min, th->boost);
	}
	if (t < up && cur < th->boost) {
		clk = (s64)th->low + (s64)READ_ONCE(tgpu_therm_up_mhz) *
		      (up - t);
		return clamp_t(s64, max_t(s64, clk, cur), th->min, th->boost);
	}
	return cur;
}

/*
 * One step of the governor, with its lock, outside a device reset: the
 * clock for the temperature now, and the thresholds around it.  The
 * temperature may move while they are written: then once more.
 */
static void tgpu_therm_govern(struct tgpu_device *tdev)
{
	struct tgpu_therm *th = &tdev->therm;
	unsigned int tries;
	int down, up;
	u32 req, high, low;
	s32 mc;
	int t;

	tgpu_therm_thresholds(&down, &up);
	for (tries = 0; tries < 4; tries++) {
		mc = tgpu_rd32(tdev, TGPU_THERM_TEMP);
		t = mc >= 0 ? mc / 1000 : -((-mc + 999) / 1000);
		/* where the way back up starts: the clock when it cooled */
		if (t >= up || th->request == th->boost)
			th->low = th->request;
		req = tgpu_therm_lookup(th, t, th->request);
		if (req != th->request) {
			tgpu_wr32(tdev, TGPU_THERM_CLK_REQUEST, req);
			th->request = req;
			th->steps++;
		}
		if (req < th->boost && !th->active) {
			tgpu_therm_gov_account(tdev, true);
			th->active = true;
			th->since_ns = ktime_get_ns();
			drm_info(&tdev->base, "thermal: %d C, above %d C: SM clock lowered to %u MHz (sw_thermal_slowdown)\n",
				 t, down, req);
		} else if (req == th->boost && th->active) {
			tgpu_therm_gov_account(tdev, false);
			th->active = false;
			th->active_ns += ktime_get_ns() - th->since_ns;
			drm_info(&tdev->base, "thermal: %d C, below %d C: SM clock back at boost (%u MHz)\n",
				 t, up, req);
		}
		/* the next degree either way that could change the clock */
		high = (max(t, down) + 1) * 1000;
		low = th->active && t < up + 1 ? max(t - 1, 0) * 1000 :
		      th->active ? (up - 1) * 1000 : 0;
		tgpu_wr32(tdev, TGPU_THERM_ALERT_HIGH,
			  min_t(u32, high, TGPU_THERM_ALERT_MAX_MC));
		tgpu_wr32(tdev, TGPU_THERM_ALERT_LOW, low);
		/* a crossing while they were written raised nothing */
		mc = tgpu_rd32(tdev, TGPU_THERM_TEMP);
		if (mc < (s32)high && (!low || mc > (s32)low))
			break;
	}
}

static void tgpu_therm_work(struct work_struct *work)
{
	struct tgpu_device *tdev = container_of(work, struct tgpu_device,
						therm.work);
	int idx, bars;

	if (!drm_dev_enter(&tdev->base, &idx))
		return;
	/* a device reset under way sets the governor up again after it */
	if (tgpu_bars_tryenter(tdev, &bars)) {
		mutex_lock(&tdev->therm.lock);
		tgpu_therm_govern(tdev);
		mutex_unlock(&tdev->therm.lock);
		tgpu_bars_exit(tdev, bars);
	}
	drm_dev_exit(idx);
}

/**
 * tgpu_therm_irq() - the thermal unit's interrupt
 * @tdev: the device
 *
 * A threshold crossing runs the governor (from a work item); a hardware
 * slowdown and a shutdown are logged.  With the interrupt lock.
 */
void tgpu_therm_irq(struct tgpu_device *tdev)
{
	u32 intr = tgpu_rd32(tdev, TGPU_THERM_INTR);

	if (intr == U32_MAX) {
		tgpu_reset_check_bus_soon(tdev);
		return;
	}
	intr &= TGPU_THERM_INTR_MASK;
	if (!intr)
		return;
	tgpu_wr32(tdev, TGPU_THERM_INTR, intr);
	if (intr & TGPU_THERM_INTR_SLOWDOWN) {
		tdev->therm.slowdowns++;
		dev_warn_ratelimited(tdev->base.dev, "thermal: hardware slowdown at %d mC (hw_thermal_slowdown): the SM clock is at its slowdown clock until the board cools 3 C below\n",
				     (s32)tgpu_rd32(tdev, TGPU_THERM_TEMP));
	}
	if (intr & TGPU_THERM_INTR_SHUTDOWN) {
		tdev->therm.shutdowns++;
		dev_err_ratelimited(tdev->base.dev, "thermal: the GPU stopped at its shutdown temperature (%d mC): every channel failed with THERMAL_SHUTDOWN; cool the board, then reset the device\n",
				    (s32)tgpu_rd32(tdev, TGPU_THERM_TEMP));
	}
	if (intr & (TGPU_THERM_INTR_HIGH | TGPU_THERM_INTR_LOW))
		queue_work(system_highpri_wq, &tdev->therm.work);
}

static void tgpu_therm_start(struct tgpu_device *tdev)
{
	struct tgpu_therm *th = &tdev->therm;

	mutex_lock(&th->lock);
	th->boost = tgpu_rd32(tdev, TGPU_THERM_CLK_BOOST);
	th->min = tgpu_rd32(tdev, TGPU_THERM_CLK_MIN);
	th->request = tgpu_rd32(tdev, TGPU_THERM_CLK_REQUEST);
	th->low = th->request;
	if (th->active) {
		tgpu_therm_gov_account(tdev, false);
		th->active = false;
		th->active_ns += ktime_get_ns() - th->since_ns;
	}
	/* the hardware gates an idle engine and ungates it for its work */
	tgpu_wr32(tdev, TGPU_THERM_CLOCK_GATING, th->gating);
	tgpu_wr32(tdev, TGPU_THERM_INTR, TGPU_THERM_INTR_MASK);
	tgpu_wr32(tdev, TGPU_THERM_INTR_EN, TGPU_THERM_INTR_MASK);
	tgpu_therm_govern(tdev);
	mutex_unlock(&th->lock);
}

/**
 * tgpu_therm_suspend() - before a device reset
 * @tdev: the device, its BARs still on
 *
 * The reset clears the device's reason time: keep what it counted.
 */
void tgpu_therm_suspend(struct tgpu_device *tdev)
{
	struct tgpu_therm *th = &tdev->therm;
	unsigned int b;

	mutex_lock(&th->lock);
	for (b = 0; b < TGPU_THERM_REASON_BITS; b++) {
		th->saved_ns[b] = tgpu_therm_reason_dev(tdev, b);
		th->reason_base_ns[b] += th->saved_ns[b];
	}
	if (th->active) {
		tgpu_therm_gov_account(tdev, false);
		th->gov_mark_ns = 0;
	}
	mutex_unlock(&th->lock);
}

/**
 * tgpu_therm_resume() - the governor after a device reset
 * @tdev: the device, inside drm_dev_enter(), its BARs on
 *
 * A reset puts the clock request, the thresholds and the interrupt
 * enables back to their reset values: the governor starts again from
 * the temperature the board has.
 */
void tgpu_therm_resume(struct tgpu_device *tdev)
{
	struct tgpu_therm *th = &tdev->therm;
	unsigned int b;
	u64 v;

	/* a reset that failed left the counters: count them once */
	mutex_lock(&th->lock);
	for (b = 0; b < TGPU_THERM_REASON_BITS; b++) {
		if (th->saved_ns[b] &&
		    tgpu_therm_rd64(tdev, TGPU_THERM_REASON_NS_LO(b), &v) &&
		    v >= th->saved_ns[b]) {
			th->reason_base_ns[b] -= th->saved_ns[b];
			if (BIT(b) == TGPU_THERM_REASON_APP_CLOCKS && th->active)
				th->gov_mark_ns = th->saved_ns[b];
		}
		th->saved_ns[b] = 0;
	}
	mutex_unlock(&th->lock);
	tgpu_therm_start(tdev);
}

static void tgpu_therm_fini(void *data)
{
	struct tgpu_device *tdev = data;

	tgpu_wr32(tdev, TGPU_THERM_INTR_EN, 0);
	cancel_work_sync(&tdev->therm.work);
}

static umode_t tgpu_hwmon_is_visible(const void *data,
				     enum hwmon_sensor_types type, u32 attr,
				     int channel)
{
	if (type == hwmon_power && attr == hwmon_power_cap)
		return 0644;
	return 0444;
}

static int tgpu_hwmon_read(struct device *dev, enum hwmon_sensor_types type,
			   u32 attr, int channel, long *val)
{
	struct tgpu_device *tdev = dev_get_drvdata(dev);
	u32 reg, v;
	int ret;

	if (type == hwmon_temp)
		reg = attr == hwmon_temp_input ? TGPU_THERM_TEMP :
		      attr == hwmon_temp_max ? TGPU_THERM_ALERT_HIGH :
		      attr == hwmon_temp_crit ? TGPU_THERM_SLOWDOWN_TEMP :
		      TGPU_THERM_SHUTDOWN_TEMP;
	else if (type == hwmon_power)
		reg = attr == hwmon_power_input ? TGPU_THERM_POWER_MW :
		      attr == hwmon_power_cap ? TGPU_THERM_POWER_CAP_MW :
		      attr == hwmon_power_cap_min ? TGPU_THERM_POWER_CAP_MIN_MW :
		      TGPU_PMC_POWER_LIMIT_MW;
	else
		return -EOPNOTSUPP;
	ret = tgpu_reg_read(tdev, reg, &v);
	if (ret)
		return ret;
	/* m°C (the sensor is signed) as they are; mW to µW */
	*val = type == hwmon_temp ? (s32)v : (long)v * 1000;
	return 0;
}

/* power1_cap: the device refuses a cap outside its range (ERR_VALUE). */
static int tgpu_hwmon_write(struct device *dev, enum hwmon_sensor_types type,
			    u32 attr, int channel, long val)
{
	struct tgpu_device *tdev = dev_get_drvdata(dev);
	int idx, bars, ret;
	u32 status;

	if (type != hwmon_power || attr != hwmon_power_cap)
		return -EOPNOTSUPP;
	if (val < 0 || val / 1000 > U32_MAX)
		return -EINVAL;
	/* the clear, the write and the check as one: hwmon does not */
	ret = tgpu_therm_lock(tdev, &idx, &bars);
	if (ret)
		return ret;
	tgpu_wr32(tdev, TGPU_THERM_STATUS, TGPU_THERM_STATUS_ERR_VALUE);
	tgpu_wr32(tdev, TGPU_THERM_POWER_CAP_MW, val / 1000);
	status = tgpu_rd32(tdev, TGPU_THERM_STATUS);
	if (status & TGPU_THERM_STATUS_ERR_VALUE) {
		tgpu_wr32(tdev, TGPU_THERM_STATUS, TGPU_THERM_STATUS_ERR_VALUE);
		ret = -EINVAL;
	}
	tgpu_therm_unlock(tdev, idx, bars);
	return ret;
}

static const struct hwmon_channel_info *const tgpu_hwmon_info[] = {
	HWMON_CHANNEL_INFO(temp, HWMON_T_INPUT | HWMON_T_MAX | HWMON_T_CRIT |
			   HWMON_T_EMERGENCY),
	HWMON_CHANNEL_INFO(power, HWMON_P_INPUT | HWMON_P_CAP |
			   HWMON_P_CAP_MIN | HWMON_P_CAP_MAX),
	NULL
};

static const struct hwmon_ops tgpu_hwmon_ops = {
	.is_visible = tgpu_hwmon_is_visible,
	.read = tgpu_hwmon_read,
	.write = tgpu_hwmon_write,
};

static const struct hwmon_chip_info tgpu_hwmon_chip = {
	.ops = &tgpu_hwmon_ops,
	.info = tgpu_hwmon_info,
};

/* hwmon's info API has no clocks: freq1_* as amdgpu has them */
static ssize_t freq1_input_show(struct device *dev,
				struct device_attribute *attr, char *buf)
{
	struct tgpu_device *tdev = dev_get_drvdata(dev);
	u32 mhz;
	int ret;

	ret = tgpu_reg_read(tdev, TGPU_THERM_CLK_EFFECTIVE, &mhz);
	if (ret)
		return ret;
	return sysfs_emit(buf, "%llu\n", (u64)mhz * 1000000);
}
static DEVICE_ATTR_RO(freq1_input);

static ssize_t freq1_label_show(struct device *dev,
				struct device_attribute *attr, char *buf)
{
	return sysfs_emit(buf, "sclk\n");
}
static DEVICE_ATTR_RO(freq1_label);

static struct attribute *tgpu_hwmon_attrs[] = {
	&dev_attr_freq1_input.attr,
	&dev_attr_freq1_label.attr,
	NULL
};
ATTRIBUTE_GROUPS(tgpu_hwmon);

/**
 * tgpu_therm_init() - start the governor, register the hwmon device
 * @tdev: the device, before its interrupts are set up (they wait)
 *
 * The hwmon device is under the PCI device, so that lm-sensors names it
 * tgpu-pci-<bus><dev>.  Both go with the driver's devres at unbind.
 *
 * Return: 0 on success, a negative errno otherwise.
 */
int tgpu_therm_init(struct tgpu_device *tdev)
{
	struct device *hwmon;
	unsigned int b;
	int ret;

	ret = drmm_mutex_init(&tdev->base, &tdev->therm.lock);
	if (ret)
		return ret;
	INIT_WORK(&tdev->therm.work, tgpu_therm_work);
	tdev->therm.gating = tgpu_clock_gating & TGPU_ENGINE_ALL;
	if (tgpu_clock_gating & ~TGPU_ENGINE_ALL)
		drm_warn(&tdev->base, "clock_gating=%u: only bits 0-2 (1 compute, 2 CE0, 4 CE1) are engines; gating %u\n",
			 tgpu_clock_gating, tdev->therm.gating);
	/* the counters count from the device's last reset: from now on */
	mutex_lock(&tdev->therm.lock);
	for (b = 0; b < TGPU_THERM_REASON_BITS; b++)
		tdev->therm.reason_base_ns[b] = -tgpu_therm_reason_dev(tdev, b);
	mutex_unlock(&tdev->therm.lock);
	tgpu_therm_start(tdev);
	ret = devm_add_action_or_reset(tdev->base.dev, tgpu_therm_fini, tdev);
	if (ret)
		return ret;
	hwmon = devm_hwmon_device_register_with_info(&tdev->pdev->dev, "tgpu",
						     tdev, &tgpu_hwmon_chip,
						     tgpu_hwmon_groups);
	return PTR_ERR_OR_ZERO(hwmon);
}
ALLOW_ERROR_INJECTION(tgpu_therm_init, ERRNO);

/* ---- throttle reasons ------------------------------------------------------ */

/*
 * throttle_reasons: the active ones, one name a line (nvidia-smi's, from
 * <tgpu/therm.h>).  The device says
 * "applications clocks" of any request below boost: the governor's is
 * sw_thermal_slowdown.
 */
static ssize_t throttle_reasons_show(struct device *dev,
				     struct device_attribute *attr, char *buf)
{
	struct tgpu_device *tdev = pci_get_drvdata(to_pci_dev(dev));
	ssize_t len = 0;
	u32 reasons;
	unsigned int i;
	int ret;

	ret = tgpu_reg_read(tdev, TGPU_THERM_REASONS, &reasons);
	if (ret)
		return ret;
	if (READ_ONCE(tdev->therm.active) &&
	    (reasons & TGPU_THERM_REASON_APP_CLOCKS)) {
		reasons &= ~TGPU_THERM_REASON_APP_CLOCKS;
		reasons |= TGPU_THERM_REASON_SW_THERMAL;
	}
	for (i = 0; i < 32; i++)
		if ((reasons & BIT(i)) && tgpu_therm_reason_name(BIT(i)))
			len += sysfs_emit_at(buf, len, "%s\n",
					     tgpu_therm_reason_name(BIT(i)));
	return len;
}
static DEVICE_ATTR_RO(throttle_reasons);

/*
 * The governor's clock request now, MHz: from the register, not the
 * governor's copy, which on a rise is stored just after the clock in use
 * has followed the register up.
 */
static ssize_t thermal_clock_request_show(struct device *dev,
					  struct device_attribute *attr,
					  char *buf)
{
	struct tgpu_device *tdev = pci_get_drvdata(to_pci_dev(dev));
	u32 mhz;
	int ret;

	ret = tgpu_reg_read(tdev, TGPU_THERM_CLK_REQUEST, &mhz);
	if (ret)
		return ret;
	return sysfs_emit(buf, "%u\n", mhz);
}
static DEVICE_ATTR_RO(thermal_clock_request);

/*
 * clock_gating: the engines (1 compute, 2 CE0, 4 CE1) the hardware
 * clock-gates while they are idle; it ungates one as work reaches it.
 * Writable, for measuring the idle power either way.
 */
static ssize_t clock_gating_show(struct device *dev,
				 struct device_attribute *attr, char *buf)
{
	struct tgpu_device *tdev = pci_get_drvdata(to_pci_dev(dev));

	return sysfs_emit(buf, "%u\n", READ_ONCE(tdev->therm.gating));
}

static ssize_t clock_gating_store(struct device *dev,
				  struct device_attribute *attr,
				  const char *buf, size_t count)
{
	struct tgpu_device *tdev = pci_get_drvdata(to_pci_dev(dev));
	int idx, bars, ret;
	u32 val;

	ret = kstrtou32(buf, 0, &val);
	if (ret)
		return ret;
	if (val & ~TGPU_ENGINE_ALL)
		return -EINVAL;
	ret = tgpu_therm_lock(tdev, &idx, &bars);
	if (ret)
		return ret;
	WRITE_ONCE(tdev->therm.gating, val);
	tgpu_wr32(tdev, TGPU_THERM_CLOCK_GATING, val);
	tgpu_therm_unlock(tdev, idx, bars);
	return count;
}
static DEVICE_ATTR_RW(clock_gating);

/* gpu_busy_percent, mem_busy_percent: the device's share of the last second */
static ssize_t tgpu_therm_show_reg(struct device *dev, u32 reg, char *buf)
{
	struct tgpu_device *tdev = pci_get_drvdata(to_pci_dev(dev));
	u32 v;
	int ret;

	ret = tgpu_reg_read(tdev, reg, &v);
	if (ret)
		return ret;
	if (v == U32_MAX)
		return -ENODEV;
	return sysfs_emit(buf, "%u\n", v);
}

static ssize_t gpu_busy_percent_show(struct device *dev,
				     struct device_attribute *attr, char *buf)
{
	return tgpu_therm_show_reg(dev, TGPU_THERM_UTIL_GPU, buf);
}
static DEVICE_ATTR_RO(gpu_busy_percent);

static ssize_t mem_busy_percent_show(struct device *dev,
				     struct device_attribute *attr, char *buf)
{
	return tgpu_therm_show_reg(dev, TGPU_THERM_UTIL_MEM, buf);
}
static DEVICE_ATTR_RO(mem_busy_percent);

static struct attribute *tgpu_therm_attrs[] = {
	&dev_attr_throttle_reasons.attr,
	&dev_attr_thermal_clock_request.attr,
	&dev_attr_clock_gating.attr,
	&dev_attr_gpu_busy_percent.attr,
	&dev_attr_mem_busy_percent.attr,
	NULL
};

const struct attribute_group tgpu_therm_group = {
	.attrs = tgpu_therm_attrs,
};

/*
 * clocks_event_reasons_counters/<reason>: microseconds the reason held
 * the clock below boost since the driver loaded (NVML's counters), one
 * file per reason with nvidia-smi's name.  From the device's REASON_NS,
 * with what it counted before each reset; the governor's requests count
 * as sw_thermal_slowdown, not as applications_clocks_setting.
 */
static int tgpu_therm_reason_us(struct tgpu_device *tdev, unsigned int b,
				u64 *us)
{
	struct tgpu_therm *th = &tdev->therm;
	int idx, bars, ret;
	u64 v, gov;

	ret = tgpu_therm_lock(tdev, &idx, &bars);
	if (ret)
		return ret;
	if (!tgpu_therm_rd64(tdev, TGPU_THERM_REASON_NS_LO(b), &v)) {
		ret = -ENODEV;
		goto out;
	}
	th->last_ns[b] = v;
	v += th->reason_base_ns[b];
	gov = th->gov_app_ns;
	if (th->active && tgpu_therm_app_ns(tdev) > th->gov_mark_ns)
		gov += tgpu_therm_app_ns(tdev) - th->gov_mark_ns;
	if (BIT(b) == TGPU_THERM_REASON_APP_CLOCKS)
		v -= min(v, gov);
	else if (BIT(b) == TGPU_THERM_REASON_SW_THERMAL)
		v += gov;
	*us = div_u64(v, NSEC_PER_USEC);
out:
	tgpu_therm_unlock(tdev, idx, bars);
	return ret;
}

/* a counter's file: its reason's bit */
struct tgpu_therm_counter_attr {
	struct device_attribute dattr;
	u32 bit;
};

static ssize_t tgpu_therm_counter_show(struct device *dev,
				       struct device_attribute *attr,
				       char *buf)
{
	struct tgpu_device *tdev = pci_get_drvdata(to_pci_dev(dev));
	u32 bit = container_of(attr, struct tgpu_therm_counter_attr,
			       dattr)->bit;
	u64 us;
	int ret;

	ret = tgpu_therm_reason_us(tdev, ilog2(bit), &us);
	if (ret)
		return ret;
	return sysfs_emit(buf, "%llu\n", us);
}

#define TGPU_THERM_COUNTER_ATTR(b, str) \
	(&((struct tgpu_therm_counter_attr){ \
		.dattr = { \
			.attr = { .name = str, .mode = 0444 }, \
			.show = tgpu_therm_counter_show, \
		}, \
		.bit = (b), \
	}).dattr.attr)
/* one file per reason of TGPU_THERM_REASON_NAMES, with its name */
#define TGPU_THERM_COUNTER_(b, str) TGPU_THERM_COUNTER_ATTR(b, str),

static struct attribute *tgpu_therm_counter_attrs[] = {
	TGPU_THERM_REASON_NAMES(TGPU_THERM_COUNTER_)
	NULL
};

const struct attribute_group tgpu_therm_counters_group = {
	.name = "clocks_event_reasons_counters",
	.attrs = tgpu_therm_counter_attrs,
};
