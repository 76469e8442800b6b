// SPDX-License-Identifier: GPL-2.0-only OR MIT
/* Copyright (c) 2026 The tgpu authors */

/*
 * Thermal, power and clocks (docs/hw/thermal.md): the hwmon device that
 * lm-sensors shows.
 *
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
#include <linux/hwmon.h>
#include <linux/hwmon-sysfs.h>
#include <linux/pci.h>
#include <linux/sysfs.h>

#include <drm/drm_drv.h>

#include <tgpu/regs.h>
#include <tgpu/therm.h>

#include "tgpu_device.h"
#include "tgpu_reset.h"
#include "tgpu_therm.h"

/*
 * Read @reg outside a device reset, which has the BARs off.  -ENODEV
 * once the device is unplugged.
 */
static int tgpu_therm_rd(struct tgpu_device *tdev, u32 reg, u32 *val)
{
	int idx, bars;

	if (!drm_dev_enter(&tdev->base, &idx))
		return -ENODEV;
	if (tgpu_bars_enter_killable(tdev, &bars)) {
		drm_dev_exit(idx);
		return -EINTR;
	}
	*val = tgpu_rd32(tdev, reg);
	tgpu_bars_exit(tdev, bars);
	drm_dev_exit(idx);
	return 0;
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

	switch (type) {
	case hwmon_temp:
		reg = attr == hwmon_temp_input ? TGPU_THERM_TEMP :
		      attr == hwmon_temp_max ? TGPU_THERM_ALERT_HIGH :
		      attr == hwmon_temp_crit ? TGPU_THERM_SLOWDOWN_TEMP :
		      TGPU_THERM_SHUTDOWN_TEMP;
		ret = tgpu_therm_rd(tdev, reg, &v);
		/* milli-degrees, as hwmon wants them; the sensor is signed */
		*val = (s32)v;
		return ret;
	case hwmon_power:
		reg = attr == hwmon_power_input ? TGPU_THERM_POWER_MW :
		      attr == hwmon_power_cap ? TGPU_THERM_POWER_CAP_MW :
		      attr == hwmon_power_cap_min ? TGPU_THERM_POWER_CAP_MIN_MW :
		      TGPU_PMC_POWER_LIMIT_MW;
		ret = tgpu_therm_rd(tdev, reg, &v);
		*val = (long)v * 1000;	/* microwatts */
		return ret;
	default:
		return -EOPNOTSUPP;
	}
}

/* power1_cap: the device refuses a cap outside its range (ERR_VALUE). */
static int tgpu_hwmon_write(struct device *dev, enum hwmon_sensor_types type,
			    u32 attr, int channel, long val)
{
	struct tgpu_device *tdev = dev_get_drvdata(dev);
	int idx, bars, ret = 0;
	u32 status;

	if (type != hwmon_power || attr != hwmon_power_cap)
		return -EOPNOTSUPP;
	if (val < 0 || val / 1000 > U32_MAX)
		return -EINVAL;
	if (!drm_dev_enter(&tdev->base, &idx))
		return -ENODEV;
	if (tgpu_bars_enter_killable(tdev, &bars)) {
		drm_dev_exit(idx);
		return -EINTR;
	}
	tgpu_wr32(tdev, TGPU_THERM_STATUS, TGPU_THERM_STATUS_ERR_VALUE);
	tgpu_wr32(tdev, TGPU_THERM_POWER_CAP_MW, val / 1000);
	status = tgpu_rd32(tdev, TGPU_THERM_STATUS);
	if (status & TGPU_THERM_STATUS_ERR_VALUE) {
		tgpu_wr32(tdev, TGPU_THERM_STATUS, TGPU_THERM_STATUS_ERR_VALUE);
		ret = -EINVAL;
	}
	tgpu_bars_exit(tdev, bars);
	drm_dev_exit(idx);
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

	ret = tgpu_therm_rd(tdev, TGPU_THERM_CLK_EFFECTIVE, &mhz);
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
 * tgpu_therm_init() - register the hwmon device
 * @tdev: the device, its BARs mapped
 *
 * Under the PCI device, so that lm-sensors names it tgpu-pci-<bus><dev>.
 * Gone with the driver's devres at unbind.
 *
 * Return: 0 on success, a negative errno otherwise.
 */
int tgpu_therm_init(struct tgpu_device *tdev)
{
	struct device *hwmon;

	hwmon = devm_hwmon_device_register_with_info(&tdev->pdev->dev, "tgpu",
						     tdev, &tgpu_hwmon_chip,
						     tgpu_hwmon_groups);
	return PTR_ERR_OR_ZERO(hwmon);
}
