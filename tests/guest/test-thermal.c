// SPDX-License-Identifier: MIT
/*
 * In-guest test of the driver's thermal governor under a heat-gun ramp
 * the host drives through QMP (a "# host-qmp:" line that
 * tests/guest/host-relay carries out), while a compute workload runs:
 *
 *   test-thermal --slowdown-c=S [--down-c=75] [--up-c=65] [--down-mhz=5]
 *                [--up-mhz=10] [--step-ms=400]
 *
 * The board goes from 60 °C to S + 2 (past the hardware slowdown, at S)
 * one degree each step-ms, then back down to 55 °C.  Every 100 ms the
 * test samples the temperature and the SM clock (hwmon temp1_input and
 * freq1_input), the governor's request (sysfs thermal_clock_request),
 * the throttle reasons and the kernels finished, and prints them as
 * "# csv: " lines for the host (tests/guest/run keeps the CSV and plots
 * it with gnuplot).  Then it checks the governor's criteria: the
 * request falls only above down-c, at most down-mhz per degree over it,
 * and rises only below up-c, at least up-mhz per degree under it (back
 * to boost by 55 °C); it never goes back and forth (no oscillation);
 * sw_thermal_slowdown while it is lowered; the hardware slowdown above
 * S; the effective clock the lowest of the request and the slowdown;
 * the reason counters (sysfs clocks_event_reasons_counters/) grow by the
 * time the governor and the hardware slowdown held the clock.
 * Output is TAP; the exit status is non-zero if any check failed.
 */
#include <errno.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdatomic.h>
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

static atomic_uint kernels_done;
static atomic_bool stop;

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

/* The workload: one small kernel after another, counted. */
static void *workload(void *arg)
{
	tgpu_device *dev = arg;
	struct spin_params sp = { .iters = 20000 };
	tgpu_function *fn;
	tgpu_context *ctx;
	tgpu_deviceptr out;
	tgpu_module *m;

	if (tgpu_ctx_create(&ctx, dev, 0) || tgpu_mem_alloc(ctx, &out, 4096) ||
	    tgpu_module_load_data(ctx, &m, spin_src, 0) ||
	    tgpu_module_get_function(&fn, m, "spin"))
		bail(tgpu_get_last_error_message());
	sp.out = out;
	while (!atomic_load(&stop)) {
		if (tgpu_launch_kernel(fn, 4, 1, 1, 32, 1, 1, 0, NULL, &sp, sizeof(sp)) ||
		    tgpu_ctx_synchronize(ctx))
			bail(tgpu_get_last_error_message());
		atomic_fetch_add(&kernels_done, 1);
	}
	tgpu_ctx_destroy(ctx);
	return NULL;
}

enum { MAX_SAMPLES = 4000 };

static struct sample {
	double t;          /* s since the start */
	double temp;       /* °C */
	unsigned int req;  /* the governor's request, MHz */
	unsigned int eff;  /* the clock in use, MHz */
	double kps;        /* kernels per second since the last sample */
	bool sw, hw;       /* sw_thermal_slowdown, hw_slowdown */
} samples[MAX_SAMPLES];
static int nsamples;

static void sample(double t0, unsigned int *last_done, double *last_t)
{
	struct sample *s = &samples[nsamples];
	char path[200], *r;
	unsigned int done = atomic_load(&kernels_done);
	double t = now_s();

	if (nsamples == MAX_SAMPLES)
		return;
	s->t = t - t0;
	s->temp = read_number(hwmon, "temp1_input") / 1000.0;
	s->req = (unsigned int)read_number(pcidev, "thermal_clock_request");
	s->eff = (unsigned int)(read_number(hwmon, "freq1_input") / 1000000);
	snprintf(path, sizeof(path), "%s/throttle_reasons", pcidev);
	r = read_text(path);
	s->sw = r && strstr(r, "sw_thermal_slowdown");
	s->hw = r && strstr(r, "hw_slowdown");
	free(r);
	s->kps = t > *last_t ? (done - *last_done) / (t - *last_t) : 0;
	*last_done = done;
	*last_t = t;
	printf("# csv: %.2f,%.3f,%u,%u,%.1f,%d,%d\n", s->t, s->temp, s->req, s->eff, s->kps,
	       s->sw, s->hw);
	nsamples++;
}

/*
 * Kernels a second at boost and at the lowest request, printed: against
 * host time the interpreter, not the modelled clock, sets the pace
 * (docs/hw/thermal.md), so this is a figure, not a criterion.
 */
static void report_throughput(unsigned int boost, unsigned int lowest)
{
	double at_boost = 0, at_low = 0;
	int i, nb = 0, nl = 0;

	for (i = 1; i < nsamples; i++) {
		if (samples[i].eff == boost) {
			at_boost += samples[i].kps;
			nb++;
		} else if (samples[i].req == lowest) {
			at_low += samples[i].kps;
			nl++;
		}
	}
	printf("# throughput: %.1f kernels/s at %u MHz, %.1f at the lowest request %u MHz\n",
	       nb ? at_boost / nb : 0, boost, nl ? at_low / nl : 0, lowest);
}

static void host_thermal(const char *args)
{
	printf("# host-qmp: {\"execute\": \"tgpu-set-thermal\", \"arguments\": {\"id\": \"gpu0\", %s}}\n",
	       args);
	fflush(stdout);
}

int main(int argc, char **argv)
{
	int down = 75, up = 65, down_mhz = 5, up_mhz = 10, step_ms = 400, slow = 0;
	int i, top, falls = 0, rises = 0, reversals = 0, dir = 0, bad_fall = 0;
	int bad_rise = 0, bad_sw = 0, bad_eff = 0, hw_seen = 0;
	unsigned int boost, last_done = 0, lowest;
	double t0, last_t, end, ramp_s, peak = 0, lowered_s = 0, hw_s = 0;
	long long sw0, app0, hw0, sw_us, hw_us;
	pthread_t th;
	tgpu_device *dev;
	char path[200];

	for (i = 1; i < argc; i++) {
		if (!strncmp(argv[i], "--slowdown-c=", 13))
			slow = atoi(argv[i] + 13);
		else if (!strncmp(argv[i], "--down-c=", 9))
			down = atoi(argv[i] + 9);
		else if (!strncmp(argv[i], "--up-c=", 7))
			up = atoi(argv[i] + 7);
		else if (!strncmp(argv[i], "--down-mhz=", 11))
			down_mhz = atoi(argv[i] + 11);
		else if (!strncmp(argv[i], "--up-mhz=", 9))
			up_mhz = atoi(argv[i] + 9);
		else if (!strncmp(argv[i], "--step-ms=", 10))
			step_ms = atoi(argv[i] + 10);
	}
	if (slow <= down) {
		fprintf(stderr, "usage: test-thermal --slowdown-c=S [--down-c=75] [--up-c=65] [--down-mhz=5] [--up-mhz=10] [--step-ms=400]\n");
		return 2;
	}
	node_device_path(node, "", path, sizeof(path));
	snprintf(pcidev, sizeof(pcidev), "%.*s", (int)strlen(path) - 1, path);
	if (!ok(find_hwmon("tgpu", hwmon, sizeof(hwmon)), "the tgpu hwmon device (%s)", hwmon))
		return tap_done();
	if (tgpu_init(0) || tgpu_device_get(&dev, 0))
		bail(tgpu_get_last_error_message());
	boost = (unsigned int)read_number(pcidev, "thermal_clock_request");
	ok(boost > 0 && read_number(hwmon, "freq1_input") == (long long)boost * 1000000,
	   "before the ramp the governor asks for boost, %u MHz, and gets it", boost);

	snprintf(counters, sizeof(counters), "%s/clocks_event_reasons_counters", pcidev);
	sw0 = read_number(counters, "sw_thermal_slowdown");
	app0 = read_number(counters, "applications_clocks_setting");
	hw0 = read_number(counters, "hw_thermal_slowdown");
	pthread_create(&th, NULL, workload, dev);
	/* the heat gun: 60 °C to slowdown + 2, then down to 55 °C */
	top = slow + 2;
	host_thermal("\"sensor\": 60");
	usleep(300000);
	t0 = last_t = now_s();
	last_done = atomic_load(&kernels_done);
	ramp_s = (top - 60) * step_ms / 1000.0;
	printf("# csv: time_s,temp_c,request_mhz,effective_mhz,kernels_per_s,sw_thermal,hw_slowdown\n");
	{
		char a[160];

		snprintf(a, sizeof(a), "\"ramp\": {\"from\": 60, \"to\": %d, \"seconds\": %.1f}", top,
			 ramp_s);
		host_thermal(a);
		for (end = now_s() + ramp_s + 1.0; now_s() < end;) {
			sample(t0, &last_done, &last_t);
			usleep(100000);
		}
		ramp_s = (top - 55) * step_ms / 1000.0;
		snprintf(a, sizeof(a), "\"ramp\": {\"from\": %d, \"to\": 55, \"seconds\": %.1f}", top,
			 ramp_s);
		host_thermal(a);
		for (end = now_s() + ramp_s + 1.5; now_s() < end;) {
			sample(t0, &last_done, &last_t);
			usleep(100000);
		}
	}
	host_thermal("\"release\": true");
	atomic_store(&stop, true);
	pthread_join(th, NULL);

	/* the criteria, sample by sample */
	lowest = boost;
	for (i = 1; i < nsamples; i++) {
		struct sample *a = &samples[i - 1], *b = &samples[i];
		int d = b->req < a->req ? -1 : b->req > a->req ? 1 : 0;

		peak = b->temp > peak ? b->temp : peak;
		lowest = b->req < lowest ? b->req : lowest;
		if (d < 0) {
			falls++;
			/* only above down-c, and no lower than the table says */
			if (b->temp <= down ||
			    b->req < boost - (unsigned int)(down_mhz * ((int)b->temp - down)))
				bad_fall++;
		}
		if (d > 0) {
			rises++;
			if (b->temp >= up)
				bad_rise++;
		}
		if (d && dir && d != dir)
			reversals++;
		if (d)
			dir = d;
		if (b->sw != (b->req < boost))
			bad_sw++;
		hw_seen += b->hw && b->temp >= slow;
		if (b->eff > b->req)
			bad_eff++;
	}
	ok(nsamples > 20, "%d samples over the ramp", nsamples);
	ok(peak >= top - 0.5, "the board reached %.1f °C (the ramp's top %d)", peak, top);
	ok(falls > 0 && bad_fall == 0,
	   "the request fell %d times, only above %d °C and at most %d MHz per degree over it (%d not)",
	   falls, down, down_mhz, bad_fall);
	ok(lowest <= boost - (unsigned int)(down_mhz * (top - 1 - down)),
	   "at the top it was down to %u MHz (boost %u)", lowest, boost);
	ok(rises > 0 && bad_rise == 0, "it rose %d times, only below %d °C (%d not)", rises, up,
	   bad_rise);
	ok(samples[nsamples - 1].req == boost, "back at boost, %u MHz, by 55 °C",
	   samples[nsamples - 1].req);
	ok(reversals == 1, "no oscillation: one way down, one way up (%d reversals)", reversals);
	/*
	 * The request and the reasons are two reads, and the device updates
	 * its reasons each 10 ms tick: at each of the two changes one sample
	 * may straddle it.
	 */
	ok(bad_sw <= 2, "sw_thermal_slowdown while the request is below boost (%d samples straddle a change)",
	   bad_sw);
	ok(hw_seen > 0, "the hardware slowdown engaged above %d °C (%d samples)", slow, hw_seen);
	ok(bad_eff == 0, "the clock in use never above the request (%d samples)", bad_eff);
	ok(atomic_load(&kernels_done) > 0, "the workload ran %u kernels through it",
	   atomic_load(&kernels_done));
	/*
	 * The counters: the governor's time is sw_thermal_slowdown's, not
	 * applications_clocks_setting's, and the hardware slowdown's is
	 * hw_thermal_slowdown's.  Each sample stands for the 100 ms to the
	 * next; the device counts in 10 ms ticks.
	 */
	for (i = 1; i < nsamples; i++) {
		if (samples[i - 1].req < boost)
			lowered_s += samples[i].t - samples[i - 1].t;
		if (samples[i - 1].hw)
			hw_s += samples[i].t - samples[i - 1].t;
	}
	sw_us = read_number(counters, "sw_thermal_slowdown") - sw0;
	ok(sw_us >= lowered_s * 1e6 - 250000 && sw_us <= lowered_s * 1e6 + 250000,
	   "clocks_event_reasons_counters/sw_thermal_slowdown +%lld us: the %.2f s the governor held the clock down",
	   sw_us, lowered_s);
	ok(read_number(counters, "applications_clocks_setting") - app0 <= 50000,
	   "applications_clocks_setting +%lld us: none of it is the governor's",
	   read_number(counters, "applications_clocks_setting") - app0);
	hw_us = read_number(counters, "hw_thermal_slowdown") - hw0;
	ok(hw_us >= hw_s * 1e6 - 250000 && hw_us <= hw_s * 1e6 + 250000,
	   "hw_thermal_slowdown +%lld us: the %.2f s of the hardware slowdown", hw_us, hw_s);
	(void)up_mhz;
	report_throughput(boost, lowest);
	return tap_done();
}
