// SPDX-License-Identifier: MIT
/*
 * In-guest test of the driver's thermal governor under a heat-gun ramp
 * the host drives through QMP (a "# host-qmp:" line that
 * tests/guest/host-relay carries out), while a compute workload runs:
 *
 *   test-thermal --slowdown-c=S --clock-divider=D [--down-c=75] [--up-c=65]
 *                [--down-mhz=5] [--up-mhz=10] [--step-ms=400]
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
 * time the governor and the hardware slowdown held the clock; and the
 * throughput follows the clock: the device runs with sm-clock-divider=D
 * (docs/hw/thermal.md), so that a kernel does the clock's work over D
 * per second of host time, which the interpreter can keep up with, and
 * the compute engine's warp instructions (GR_WARP_INSNS, BAR0 through
 * sysfs: iomem=relaxed) over each sample are the clock in use over D.
 * Output is TAP; the exit status is non-zero if any check failed.
 */
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <fcntl.h>
#include <sys/mman.h>

#include <libtgpu.h>
#include <tgpu/isa.h>
#include <tgpu/therm.h>

#include "guest-tap.h"
#include "guest-kernels.h"
#include "guest-sysfs.h"

static const char *node = "/dev/dri/renderD128";
static char hwmon[300], pcidev[160], counters[200];

static const char spin_src[] = GUEST_SPIN_KERNEL;

/* BAR0 through sysfs (iomem=relaxed): the compute engine's counters */
static volatile uint32_t *bar0;

static uint64_t warp_insns(void)
{
	uint32_t hi, lo;

	do {
		hi = bar0[TGPU_GR_WARP_INSNS_HI / 4];
		lo = bar0[TGPU_GR_WARP_INSNS_LO / 4];
	} while (hi != bar0[TGPU_GR_WARP_INSNS_HI / 4]);
	return (uint64_t)hi << 32 | lo;
}

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
	struct spin_params sp = { .iters = 100000 };
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
	unsigned int req2; /* the request again, read after eff */
	double kps;        /* kernels per second since the last sample */
	double ips;        /* warp instructions per second, the same */
	bool sw, hw;       /* sw_thermal_slowdown, hw_slowdown */
} samples[MAX_SAMPLES];
static int nsamples;

static void sample(double t0, unsigned int *last_done, double *last_t, uint64_t *last_insns)
{
	struct sample *s = &samples[nsamples];
	char path[200], *r;
	unsigned int done = atomic_load(&kernels_done);
	uint64_t insns = warp_insns();
	double t = now_s();

	if (nsamples == MAX_SAMPLES)
		return;
	s->t = t - t0;
	/*
	 * The request before the temperature: the governor's request comes
	 * from a temperature it read earlier, never a later one, so on the
	 * way up it is checked against one at least as high as its own.
	 */
	s->req = (unsigned int)read_number(pcidev, "thermal_clock_request");
	s->temp = read_number(hwmon, "temp1_input") / 1000.0;
	s->eff = (unsigned int)(read_number(hwmon, "freq1_input") / 1000000);
	/*
	 * The clock in use is read between two reads of the request: it
	 * follows the request at the same tick, so at that moment it was
	 * under one of them, whichever way a change between them went.
	 */
	s->req2 = (unsigned int)read_number(pcidev, "thermal_clock_request");
	snprintf(path, sizeof(path), "%s/throttle_reasons", pcidev);
	r = read_text(path);
	s->sw = r && strstr(r, "sw_thermal_slowdown");
	s->hw = r && strstr(r, "hw_slowdown");
	free(r);
	s->kps = t > *last_t ? (done - *last_done) / (t - *last_t) : 0;
	s->ips = t > *last_t ? (insns - *last_insns) / (t - *last_t) : 0;
	*last_done = done;
	*last_insns = insns;
	*last_t = t;
	printf("# csv: %.2f,%.3f,%u,%u,%.1f,%d,%d,%.0f\n", s->t, s->temp, s->req, s->eff, s->kps,
	       s->sw, s->hw, s->ips);
	nsamples++;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

/*
 * The throughput follows the clock: over each sample whose clock in use
 * did not change (in it or the one before), the warp instructions a
 * second over the clock's over the divider are one ratio, the pacing's
 * efficiency (the median: between 0.85 and 1.05), within 15% for nine
 * samples in ten (a sample with a kernel's end loses the launch and the
 * wait between two).  Then the figures at boost and at the hardware
 * slowdown's clock, against the clocks' ratio.
 */
static void check_throughput(unsigned int boost, unsigned int slow_mhz, int divider)
{
	static double ratio[MAX_SAMPLES];
	double at_boost = 0, at_slow = 0, med;
	int i, n = 0, good = 0, nb = 0, ns = 0;

	for (i = 2; i < nsamples; i++) {
		struct sample *s = &samples[i];

		if (s->eff != samples[i - 1].eff || s->eff != samples[i - 2].eff)
			continue;
		ratio[n++] = s->ips / (s->eff * 1e6 / divider);
		if (s->eff == boost) {
			at_boost += s->ips;
			nb++;
		} else if (s->eff == slow_mhz) {
			at_slow += s->ips;
			ns++;
		}
	}
	qsort(ratio, n, sizeof(ratio[0]), cmp_double);
	med = n ? ratio[n / 2] : 0;
	for (i = 0; i < n; i++)
		good += fabs(ratio[i] / med - 1) <= 0.15;
	ok(n > 20 && med >= 0.85 && med <= 1.05 && good >= n * 9 / 10,
	   "the throughput follows the clock: warp instructions/s over (clock / %d) %.3f (median), %d of %d steady samples within 15%% of it",
	   divider, med, good, n);
	at_boost = nb ? at_boost / nb : 0;
	at_slow = ns ? at_slow / ns : 0;
	ok(nb && ns && fabs(at_slow / at_boost - (double)slow_mhz / boost) <
	   0.1 * slow_mhz / boost,
	   "%.4g warp instructions/s at %u MHz, %.4g at the slowdown's %u MHz: %.3f of it (the clocks: %.3f)",
	   at_boost, boost, at_slow, slow_mhz, at_boost ? at_slow / at_boost : 0,
	   (double)slow_mhz / boost);
}

static void host_thermal(const char *args)
{
	printf("# host-qmp: {\"execute\": \"tgpu-set-thermal\", \"arguments\": {\"id\": \"gpu0\", %s}}\n",
	       args);
	fflush(stdout);
}

int main(int argc, char **argv)
{
	int down = 75, up = 65, down_mhz = 5, up_mhz = 10, step_ms = 400, slow = 0, divider = 0;
	int i, top, falls = 0, rises = 0, reversals = 0, dir = 0, bad_fall = 0;
	int bad_rise = 0, bad_sw = 0, bad_eff = 0, hw_seen = 0;
	unsigned int boost, last_done = 0, lowest, slow_mhz;
	uint64_t last_insns;
	int fd;
	double t0, last_t, end, ramp_s, peak = 0, lowered_s = 0, hw_s = 0;
	long long sw0, app0, hw0, sw_us, hw_us;
	pthread_t th;
	tgpu_device *dev;
	char path[200];

	for (i = 1; i < argc; i++) {
		if (!strncmp(argv[i], "--slowdown-c=", 13))
			slow = atoi(argv[i] + 13);
		else if (!strncmp(argv[i], "--clock-divider=", 16))
			divider = atoi(argv[i] + 16);
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
	if (slow <= down || divider < 1) {
		fprintf(stderr, "usage: test-thermal --slowdown-c=S --clock-divider=D [--down-c=75] [--up-c=65] [--down-mhz=5] [--up-mhz=10] [--step-ms=400]\n");
		return 2;
	}
	node_device_path(node, "resource0", path, sizeof(path));
	fd = open(path, O_RDONLY | O_SYNC | O_CLOEXEC);
	bar0 = fd < 0 ? MAP_FAILED : mmap(NULL, 16 << 20, PROT_READ, MAP_SHARED, fd, 0);
	if (bar0 == MAP_FAILED)
		bail("cannot map BAR0 (iomem=relaxed?)");
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
	last_insns = warp_insns();
	ramp_s = (top - 60) * step_ms / 1000.0;
	printf("# csv: time_s,temp_c,request_mhz,effective_mhz,kernels_per_s,sw_thermal,hw_slowdown,warp_insns_per_s\n");
	{
		char a[160];

		snprintf(a, sizeof(a), "\"ramp\": {\"from\": 60, \"to\": %d, \"seconds\": %.1f}", top,
			 ramp_s);
		host_thermal(a);
		for (end = now_s() + ramp_s + 1.0; now_s() < end;) {
			sample(t0, &last_done, &last_t, &last_insns);
			usleep(100000);
		}
		ramp_s = (top - 55) * step_ms / 1000.0;
		snprintf(a, sizeof(a), "\"ramp\": {\"from\": %d, \"to\": 55, \"seconds\": %.1f}", top,
			 ramp_s);
		host_thermal(a);
		for (end = now_s() + ramp_s + 1.5; now_s() < end;) {
			sample(t0, &last_done, &last_t, &last_insns);
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
		if (b->eff > b->req && b->eff > b->req2)
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
	slow_mhz = bar0[TGPU_THERM_CLK_SLOWDOWN / 4];
	check_throughput(boost, slow_mhz, divider);
	return tap_done();
}
