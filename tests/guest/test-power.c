// SPDX-License-Identifier: MIT
/*
 * In-guest test of power, clock gating, utilisation and the clock event
 * reason counters, through the driver's sysfs files, hwmon and tgpu-smi,
 * against a kernel of known length:
 *
 *   test-power --idle-w=I --idle-gated-w=G --busy-w=B
 *
 * I and G are the model's idle draw with clock gating off and on, B what
 * a busy compute engine adds at boost (docs/hw/thermal.md: 120, 22 and
 * 110 W for every model).  Prints the idle power both ways ("# power:").
 * Output is TAP; the exit status is non-zero if any check failed.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <libtgpu.h>

#include "guest-tap.h"
#include "guest-kernels.h"
#include "guest-sysfs.h"

static const char *node = "/dev/dri/renderD128";
static char hwmon[300], pcidev[160], counters[200];

static const char spin_src[] = GUEST_SPIN_KERNEL;

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static long long dev_num(const char *file)
{
	return read_number(pcidev, file);
}

static long long counter_us(const char *reason)
{
	return read_number(counters, reason);
}

static double power_w(void)
{
	return read_number(hwmon, "power1_input") / 1e6;
}

static int set_gating(const char *val)
{
	char path[220];

	snprintf(path, sizeof(path), "%s/clock_gating", pcidev);
	return write_file(path, val);
}

/* One line of tgpu-smi's output for ARGS, newline cut, in LINE. */
static void smi(const char *args, char *line, size_t len)
{
	char cmd[400];
	FILE *f;

	snprintf(cmd, sizeof(cmd), "tgpu-smi %s", args);
	line[0] = 0;
	f = popen(cmd, "r");
	if (f && fgets(line, (int)len, f))
		line[strcspn(line, "\n")] = 0;
	if (f)
		pclose(f);
}

/*
 * How much REASON's counter grows over SLEEP_US (in *GROWTH), and the
 * wall time that took, in us.
 */
static double counter_growth(const char *reason, unsigned int sleep_us, long long *growth)
{
	long long c0 = counter_us(reason);
	double t0 = now_s();

	usleep(sleep_us);
	*growth = counter_us(reason) - c0;
	return (now_s() - t0) * 1e6;
}

/* The line of TEXT that holds KEY also holds VALUE. */
static bool line_has(const char *text, const char *key, const char *value)
{
	const char *k = strstr(text, key), *end, *v;

	if (!k)
		return false;
	end = strchr(k, '\n');
	v = strstr(k, value);
	return v && (!end || v < end);
}

/* Wait (up to 2 s) for the draw to settle on a tick: the model's power. */
static double settled_power(void)
{
	double p = power_w(), q;
	int i;

	for (i = 0; i < 20; i++) {
		usleep(100000);
		q = power_w();
		if (q == p)
			return q;
		p = q;
	}
	return p;
}

int main(int argc, char **argv)
{
	double idle_w = 0, gated_w = 0, busy_w = 0, p_gated, p_ungated, p, dt;
	long long idle0, cap0, app0, grew, gpu, mem;
	struct spin_params sp = { .iters = 20000000 };
	tgpu_function *fn;
	tgpu_context *ctx;
	tgpu_deviceptr out;
	tgpu_device *dev;
	tgpu_module *m;
	char path[400], line[256];
	int i;

	for (i = 1; i < argc; i++) {
		if (!strncmp(argv[i], "--idle-w=", 9))
			idle_w = atof(argv[i] + 9);
		else if (!strncmp(argv[i], "--idle-gated-w=", 15))
			gated_w = atof(argv[i] + 15);
		else if (!strncmp(argv[i], "--busy-w=", 9))
			busy_w = atof(argv[i] + 9);
	}
	if (idle_w <= 0 || gated_w <= 0 || busy_w <= 0) {
		fprintf(stderr, "usage: test-power --idle-w=I --idle-gated-w=G --busy-w=B\n");
		return 2;
	}
	node_device_path(node, "", path, sizeof(path));
	snprintf(pcidev, sizeof(pcidev), "%.*s", (int)strlen(path) - 1, path);
	snprintf(counters, sizeof(counters), "%s/clocks_event_reasons_counters", pcidev);
	if (!ok(find_hwmon("tgpu", hwmon, sizeof(hwmon)), "the tgpu hwmon device (%s)", hwmon))
		return tap_done();

	/* ---- clock gating, idle ---- */
	ok(dev_num("clock_gating") == 7, "clock_gating: every engine at probe (%lld)",
	   dev_num("clock_gating"));
	p_gated = settled_power();
	ok(p_gated == gated_w, "idle, gated: power1_input %.3f W (the model's %.1f W)", p_gated,
	   gated_w);
	ok(!set_gating("0") && dev_num("clock_gating") == 0, "clock_gating 0 taken");
	p_ungated = settled_power();
	ok(p_ungated == idle_w, "idle, ungated: power1_input %.3f W (the model's %.1f W)",
	   p_ungated, idle_w);
	printf("# power: idle %.1f W with clock gating, %.1f W without\n", p_gated, p_ungated);
	ok(set_gating("8") == EINVAL && set_gating("-1") == EINVAL && dev_num("clock_gating") == 0,
	   "clock_gating 8 and -1 refused (EINVAL)");
	ok(!set_gating("7"), "clock_gating 7 again");

	/* ---- idle: the counters and the shares ---- */
	usleep(1100000);
	ok(dev_num("gpu_busy_percent") == 0 && dev_num("mem_busy_percent") == 0,
	   "idle a second: gpu_busy_percent %lld, mem_busy_percent %lld", dev_num("gpu_busy_percent"),
	   dev_num("mem_busy_percent"));
	smi("--query-gpu=utilization.gpu,utilization.memory,pstate --format=csv,noheader,nounits",
	    line, sizeof(line));
	ok(!strcmp(line, "0, 0, P8"), "tgpu-smi idle: utilization 0, 0, pstate P8 (%s)", line);
	dt = counter_growth("gpu_idle", 1000000, &grew);
	ok(grew >= dt * 0.85 && grew <= dt + 30000,
	   "gpu_idle counts the idle time: +%lld us over %.0f us", grew, dt);

	/* ---- sixteen kernels of about 0.7 s: busy for ten ---- */
	if (tgpu_init(0) || tgpu_device_get(&dev, 0) || tgpu_ctx_create(&ctx, dev, 0) ||
	    tgpu_mem_alloc(ctx, &out, 4096) || tgpu_module_load_data(ctx, &m, spin_src, 0) ||
	    tgpu_module_get_function(&fn, m, "spin"))
		bail(tgpu_get_last_error_message());
	sp.out = out;
	/*
	 * queued at once, back to back with no gap: each short enough for
	 * the driver's hang check on a slow (sanitized) QEMU
	 */
	for (i = 0; i < 16; i++)
		if (tgpu_launch_kernel(fn, 1, 1, 1, 32, 1, 1, 0, NULL, &sp, sizeof(sp)))
			bail(tgpu_get_last_error_message());
	usleep(1200000);
	gpu = dev_num("gpu_busy_percent");
	mem = dev_num("mem_busy_percent");
	ok(gpu >= 95 && mem >= gpu, "a kernel running 1.2 s: gpu_busy_percent %lld, mem_busy_percent %lld",
	   gpu, mem);
	smi("--query-gpu=utilization.gpu,pstate --format=csv,noheader,nounits", line, sizeof(line));
	ok(atoi(line) >= 95 && strstr(line, ", P0"), "tgpu-smi: utilization.gpu and pstate (%s)",
	   line);
	idle0 = counter_us("gpu_idle");
	/* a busy engine draws in full, gated or not */
	p = power_w();
	ok(p >= gated_w + (idle_w - gated_w) * 80 / 98 + busy_w * 0.9 &&
	   p <= gated_w + (idle_w - gated_w) * 80 / 98 + busy_w,
	   "busy, gated: %.1f W: the compute engine's idle share and its work", p);
	/* a power cap the kernel cannot fit under: sw_power_cap, counted */
	app0 = counter_us("applications_clocks_setting");
	snprintf(path, sizeof(path), "%s/power1_cap", hwmon);
	ok(!write_file(path, "150000000"), "power1_cap 150 W");
	dt = counter_growth("sw_power_cap", 500000, &grew);
	ok(grew >= dt * 0.8 && grew <= dt + 30000,
	   "sw_power_cap counts the time under the cap: +%lld us over %.0f us", grew, dt);
	cap0 = counter_us("sw_power_cap");
	smi("--query-gpu=clocks_event_reasons_counters.sw_power_cap --format=csv,noheader,nounits",
	    line, sizeof(line));
	ok(atoll(line) >= cap0, "tgpu-smi clocks_event_reasons_counters.sw_power_cap %s us", line);
	/* dmon's violations over the second under the cap, and -q -d */
	{
		char text[4096];
		FILE *f = popen("tgpu-smi dmon -s v -c 2 -o T", "r");
		size_t n = f ? fread(text, 1, sizeof(text) - 1, f) : 0;
		char tm[16];
		int idx, pviol = -1, tviol = -1;
		const char *l;

		if (f)
			pclose(f);
		text[n] = 0;
		/* the second data line: HH:MM:SS gpu pviol tviol */
		l = strrchr(text, ':');
		while (l && l > text && l[-1] != '\n')
			l--;
		if (!l || sscanf(l, "%15s %d %d %d", tm, &idx, &pviol, &tviol) != 4)
			pviol = -1;
		ok(pviol >= 90 && tviol == 0,
		   "tgpu-smi dmon -s v -o T under the cap: pviol %d%%, tviol %d", pviol, tviol);
		f = popen("tgpu-smi -q -d PERFORMANCE", "r");
		n = f ? fread(text, 1, sizeof(text) - 1, f) : 0;
		if (f)
			pclose(f);
		text[n] = 0;
		ok(line_has(text, "Performance State", ": P0") &&
		   line_has(text, "SW Power Cap ", ": Active") &&
		   line_has(text, "SW Power Capping", " us") && !strstr(text, "FB Memory Usage"),
		   "tgpu-smi -q -d PERFORMANCE: P0, SW Power Cap active, its counter, nothing else");
	}
	write_file(path, "250000000");
	ok(counter_us("gpu_idle") - idle0 <= 30000, "no gpu_idle time while it runs (+%lld us)",
	   counter_us("gpu_idle") - idle0);
	ok(counter_us("applications_clocks_setting") == app0,
	   "no applications_clocks_setting time: nothing asked for a lower clock");
	if (tgpu_ctx_synchronize(ctx))
		bail(tgpu_get_last_error_message());
	tgpu_ctx_destroy(ctx);
	usleep(1100000);
	ok(dev_num("gpu_busy_percent") == 0, "a second after it: gpu_busy_percent %lld",
	   dev_num("gpu_busy_percent"));

	/* ---- a device reset keeps the counters and the gating ---- */
	idle0 = counter_us("gpu_idle");
	cap0 = counter_us("sw_power_cap");
	snprintf(path, sizeof(path), "%s/reset", pcidev);
	ok(!write_file(path, "1"), "a device reset (sysfs reset)");
	ok(counter_us("gpu_idle") >= idle0 && counter_us("sw_power_cap") >= cap0,
	   "after it the counters go on from where they were (gpu_idle %lld, was %lld)",
	   counter_us("gpu_idle"), idle0);
	p = settled_power();
	ok(p == gated_w && dev_num("clock_gating") == 7, "and the engines are gated again: %.1f W", p);
	return tap_done();
}
