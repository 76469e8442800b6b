// SPDX-License-Identifier: MIT
/*
 * In-guest test of tgpu's hwmon device, read by lm-sensors' sensors (a
 * client no one here wrote) and through sysfs, against the device's
 * registers (BAR0 through sysfs: iomem=relaxed) and against a
 * temperature the host holds through QMP (a "# host-qmp:" line that
 * tests/guest/host-relay carries out):
 *
 *   test-hwmon --model-crit=C --model-emergency=E --cap-w=W
 *
 * C and E are the model's slowdown and shutdown temperatures (°C), W its
 * power limit.  Output is TAP; the exit status is non-zero if any check
 * failed.
 */
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include <tgpu/regs.h>
#include <tgpu/therm.h>

#include "guest-tap.h"
#include "guest-sysfs.h"

static const char *node = "/dev/dri/renderD128";
static char hwmon[300];

static long long hw(const char *file)
{
	return read_number(hwmon, file);
}

static int hw_write(const char *file, const char *val)
{
	char path[400];
	int fd, r = 0;

	snprintf(path, sizeof(path), "%s/%s", hwmon, file);
	fd = open(path, O_WRONLY | O_CLOEXEC);
	if (fd < 0)
		return -1;
	if (write(fd, val, strlen(val)) < 0)
		r = -1;
	close(fd);
	return r;
}

/* BAR0 through sysfs (iomem=relaxed) */
static volatile uint32_t *bar0;

static uint32_t reg(uint32_t off)
{
	return bar0[off / 4];
}

/* sensors' output for the tgpu chip ("sensors -u"), in buf */
static bool sensors_u(char *buf, size_t len)
{
	FILE *f = popen("sensors -u 'tgpu-*' 2>&1", "r");
	size_t n;

	if (!f)
		return false;
	n = fread(buf, 1, len - 1, f);
	buf[n] = 0;
	return pclose(f) == 0;
}

/* "  NAME: VALUE" of sensors -u, or -1 */
static double sensors_value(const char *out, const char *name)
{
	char want[64];
	const char *p;

	snprintf(want, sizeof(want), "  %s: ", name);
	p = strstr(out, want);
	return p ? strtod(p + strlen(want), NULL) : -1;
}

int main(int argc, char **argv)
{
	long long crit = 0, emerg = 0, cap = 0, t, t0;
	static char out[8192];
	char path[160];
	int i, fd;

	for (i = 1; i < argc; i++) {
		if (!strncmp(argv[i], "--model-crit=", 13))
			crit = atoll(argv[i] + 13);
		else if (!strncmp(argv[i], "--model-emergency=", 18))
			emerg = atoll(argv[i] + 18);
		else if (!strncmp(argv[i], "--cap-w=", 8))
			cap = atoll(argv[i] + 8);
	}
	if (!crit || !emerg || !cap) {
		fprintf(stderr, "usage: test-hwmon --model-crit=C --model-emergency=E --cap-w=W\n");
		return 2;
	}
	node_device_path(node, "resource0", path, sizeof(path));
	fd = open(path, O_RDWR | O_SYNC | O_CLOEXEC);
	bar0 = fd < 0 ? MAP_FAILED : mmap(NULL, 16 << 20, PROT_READ | PROT_WRITE,
					   MAP_SHARED, fd, 0);
	if (bar0 == MAP_FAILED)
		bail("cannot map BAR0 (iomem=relaxed?)");

	if (!ok(find_hwmon("tgpu", hwmon, sizeof(hwmon)), "a hwmon device named tgpu (%s)", hwmon))
		return tap_done();
	t = hw("temp1_input");
	ok(t > 0 && llabs(t - (int32_t)reg(TGPU_THERM_TEMP)) < 2000,
	   "temp1_input %lld m°C, the sensor register's", t);
	ok(hw("temp1_crit") == crit * 1000, "temp1_crit: the slowdown temperature, %lld °C", crit);
	ok(hw("temp1_emergency") == emerg * 1000,
	   "temp1_emergency: the shutdown temperature, %lld °C", emerg);
	ok(hw("temp1_max") == (long long)reg(TGPU_THERM_ALERT_HIGH),
	   "temp1_max: ALERT_HIGH (%lld)", hw("temp1_max"));
	ok(hw("power1_input") >= 22000000 && hw("power1_input") <= cap * 1000000,
	   "power1_input %lld µW: between the gated idle (22 W) and the limit", hw("power1_input"));
	ok(hw("power1_cap") == cap * 1000000 && hw("power1_cap_max") == cap * 1000000,
	   "power1_cap and power1_cap_max: the board limit, %lld W", cap);
	ok(hw("power1_cap_min") == (long long)reg(TGPU_THERM_POWER_CAP_MIN_MW) * 1000,
	   "power1_cap_min: POWER_CAP_MIN_MW");
	ok(hw("freq1_input") == (long long)reg(TGPU_THERM_CLK_EFFECTIVE) * 1000000,
	   "freq1_input %lld Hz: CLK_EFFECTIVE", hw("freq1_input"));

	/* the cap is writable within its range, and refused outside */
	ok(!hw_write("power1_cap", "200000000") && reg(TGPU_THERM_POWER_CAP_MW) == 200000 &&
	   hw("power1_cap") == 200000000, "power1_cap 200 W reaches POWER_CAP_MW");
	ok(hw_write("power1_cap", "1000") && reg(TGPU_THERM_POWER_CAP_MW) == 200000,
	   "1 mW is refused (EINVAL), the cap stays");
	hw_write("power1_cap", "250000000");

	/* lm-sensors reads the same */
	ok(sensors_u(out, sizeof(out)) && strstr(out, "tgpu-pci-"),
	   "sensors lists the chip tgpu-pci-*");
	ok(sensors_value(out, "temp1_crit") == crit && sensors_value(out, "temp1_emergency") == emerg,
	   "sensors: temp1_crit %g, temp1_emergency %g", sensors_value(out, "temp1_crit"),
	   sensors_value(out, "temp1_emergency"));
	ok(sensors_value(out, "power1_cap") > 0, "sensors: power1_cap %g W",
	   sensors_value(out, "power1_cap"));

	/* a temperature the host holds, as a heat gun would */
	printf("# host-qmp: {\"execute\": \"tgpu-set-thermal\", \"arguments\": {\"id\": \"gpu0\", \"sensor\": 71.5}}\n");
	fflush(stdout);
	t0 = hw("temp1_input");
	for (i = 0; i < 200 && (t = hw("temp1_input")) != 71500; i++)
		usleep(50000);
	ok(t == 71500, "the host holds the board at 71.5 °C: temp1_input %lld (was %lld)", t, t0);
	ok(sensors_u(out, sizeof(out)) && sensors_value(out, "temp1_input") == 71.5,
	   "sensors: temp1_input 71.5");
	/* tgpu-smi reads the same driver: 71.5 rounds to 72 */
	{
		FILE *f = popen("tgpu-smi --query-gpu=temperature.gpu,power.limit,power.max_limit "
				"--format=csv,noheader,nounits", "r");
		char line[128] = "";

		if (f && fgets(line, sizeof(line), f))
			line[strcspn(line, "\n")] = 0;
		if (f)
			pclose(f);
		ok(!strcmp(line, "72, 250.00, 250.00"),
		   "tgpu-smi: temperature.gpu 72, power.limit and power.max_limit 250 W (%s)", line);
	}
	printf("# host-qmp: {\"execute\": \"tgpu-set-thermal\", \"arguments\": {\"id\": \"gpu0\", \"release\": true}}\n");
	fflush(stdout);
	return tap_done();
}
