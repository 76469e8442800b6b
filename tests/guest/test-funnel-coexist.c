// SPDX-License-Identifier: MIT
/*
 * Reliability funnel, layer 6: coexistence.  Different workloads at once,
 * each a process of its own, all released at one moment:
 *
 *   test-funnel-coexist [--launches=K] [--iters=I] [--no-samples]
 *
 * - every sample (guest-umd/samples, at the odd sizes tests/guest/run
 *   gives them), on its context's default stream;
 * - four priority workers, one per stream priority 0 (lowest) to 3, each
 *   running the same compute work: K launches (default 6) of the spin
 *   kernel counting to I (default 2,000,000), all queued, then one wait.
 *
 * Checks: every sample passes (its GPU result against its CPU
 * reference) and every worker's counts are right; the workers finish in
 * priority order, highest first, by their measured finish times (the
 * device schedules strictly by priority, docs/hw/channels.md); and the
 * compute-engine time DRM fdinfo gives the processes (drm-engine-compute)
 * adds up to at most the wall time of the run, 100 % of the one compute
 * engine, and the workers' to at least a third of the time from the start
 * to the last worker's end (they keep it busy).
 * The samples' fdinfo is read every 20 ms while they live, so their
 * share is what was last seen: the sum can only be short, never over.
 * Output is TAP; the exit status is non-zero if any check failed.
 */
#include <dirent.h>
#include <inttypes.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <libtgpu.h>

#include "guest-kernels.h"
#include "guest-tap.h"

#define WORKERS         4       /* one per priority */
#define MAX_LAUNCHES    64

static const char *const samples[] = {
	"vector_add -q -n 100003",
	"saxpy -q -n 1000001",
	"sgemm -q -n 100",
	"reduction -q -n 1000003",
	"histogram -q -n 3000001",
	"bandwidth --csv -n 100000",
	"multistream -q -n 1000003 -s 3 -c 10",
};
#define NSAMPLES (sizeof(samples) / sizeof(samples[0]))

/* what a worker tells the parent */
struct report {
	int priority;
	int bad;                /* launches whose count is wrong; -1: an error */
	double done;            /* CLOCK_MONOTONIC s */
	uint64_t busy_ns;       /* its fdinfo drm-engine-compute, go to done */
	char msg[200];
};

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

/* drm-engine-compute of process @pid's tgpu files, summed (ns) */
static uint64_t fdinfo_compute(pid_t pid)
{
	char dir[64], path[320], line[256];
	unsigned long long v;
	uint64_t sum = 0;
	struct dirent *d;
	bool tgpu;
	DIR *dp;
	FILE *f;

	snprintf(dir, sizeof(dir), "/proc/%d/fdinfo", (int)pid);
	dp = opendir(dir);
	if (!dp)
		return 0;
	while ((d = readdir(dp))) {
		if (d->d_name[0] == '.')
			continue;
		snprintf(path, sizeof(path), "%s/%s", dir, d->d_name);
		f = fopen(path, "r");
		if (!f)
			continue;
		tgpu = false;
		while (fgets(line, sizeof(line), f)) {
			if (!strncmp(line, "drm-driver:", 11) && strstr(line, "tgpu"))
				tgpu = true;
			else if (tgpu && sscanf(line, "drm-engine-compute: %llu ns", &v) == 1)
				sum += v;
		}
		fclose(f);
	}
	closedir(dp);
	return sum;
}

static void worker(int priority, unsigned int launches, unsigned int iters, int ready_fd,
		   int go_fd, int report_fd)
{
	struct report r = { .priority = priority };
	uint32_t counts[MAX_LAUNCHES];
	struct spin_params p = { .iters = iters };
	tgpu_deviceptr out;
	tgpu_function *fn;
	tgpu_context *ctx;
	tgpu_stream *s;
	tgpu_device *dev;
	tgpu_module *m;
	uint64_t busy0;
	unsigned int i;
	char go;

	if (tgpu_init(0) || tgpu_device_get(&dev, 0) || tgpu_ctx_create(&ctx, dev, 0) ||
	    tgpu_stream_create(ctx, &s, 0, priority) ||
	    tgpu_module_load_data(ctx, &m, GUEST_SPIN_KERNEL, 0) ||
	    tgpu_module_get_function(&fn, m, "spin") ||
	    tgpu_mem_alloc(ctx, &out, sizeof(counts)) ||
	    tgpu_memset_d32(ctx, out, 0, launches)) {
		r.bad = -1;
		snprintf(r.msg, sizeof(r.msg), "set-up: %s", tgpu_get_last_error_message());
	}
	/* set up (or failed to): then all start at once */
	if (write(ready_fd, "r", 1) != 1 || read(go_fd, &go, 1) != 1)
		_exit(3);
	if (r.bad < 0)
		goto out;
	busy0 = fdinfo_compute(getpid());
	for (i = 0; i < launches; i++) {
		p.out = out + 4ull * i;
		if (tgpu_launch_kernel(fn, 1, 1, 1, 32, 1, 1, 0, s, &p, sizeof(p))) {
			r.bad = -1;
			snprintf(r.msg, sizeof(r.msg), "launch %u: %s", i,
				 tgpu_get_last_error_message());
			goto out;
		}
	}
	if (tgpu_stream_synchronize(s)) {
		r.bad = -1;
		snprintf(r.msg, sizeof(r.msg), "synchronize: %s", tgpu_get_last_error_message());
		goto out;
	}
	r.done = now_s();
	r.busy_ns = fdinfo_compute(getpid()) - busy0;
	if (tgpu_memcpy_dtoh(ctx, counts, out, 4ull * launches)) {
		r.bad = -1;
		snprintf(r.msg, sizeof(r.msg), "read-back: %s", tgpu_get_last_error_message());
		goto out;
	}
	for (i = 0; i < launches; i++)
		r.bad += counts[i] != iters;
	tgpu_ctx_destroy(ctx);
out:
	if (write(report_fd, &r, sizeof(r)) != sizeof(r))
		_exit(3);
	_exit(0);
}

/* a sample, its output to @path; exec'd through sh for its arguments */
static pid_t start_sample(const char *cmd, const char *path)
{
	pid_t pid = fork();

	if (pid == 0) {
		if (!freopen(path, "w", stdout))
			_exit(127);
		execl("/bin/sh", "sh", "-c", cmd, (char *)NULL);
		_exit(127);
	}
	return pid;
}

/* the last line of file @path is PASSED */
static bool passed(const char *path)
{
	char line[512], last[512] = "";
	FILE *f = fopen(path, "r");

	if (!f)
		return false;
	while (fgets(line, sizeof(line), f))
		if (line[0] != '\n')
			snprintf(last, sizeof(last), "%s", line);
	fclose(f);
	return !strcmp(last, "PASSED\n");
}

int main(int argc, char **argv)
{
	unsigned int launches = 6, iters = 2000000, i, alive, order_bad = 0;
	struct report rep[WORKERS];
	pid_t wpid[WORKERS], spid[NSAMPLES];
	uint64_t sample_busy[NSAMPLES] = { 0 }, busy_sum = 0, workers_ns = 0;
	int go[2], rp[2], ready[2], status;
	bool with_samples = true, done[NSAMPLES] = { false };
	double t0, t_end, t_workers = 0;
	char path[NSAMPLES][64];

	for (int a = 1; a < argc; a++) {
		if (!strncmp(argv[a], "--launches=", 11))
			launches = (unsigned int)atoi(argv[a] + 11);
		else if (!strncmp(argv[a], "--iters=", 8))
			iters = (unsigned int)strtoul(argv[a] + 8, NULL, 0);
		else if (!strcmp(argv[a], "--no-samples"))
			with_samples = false;
	}
	if (!launches || launches > MAX_LAUNCHES || !iters) {
		fprintf(stderr, "usage: test-funnel-coexist [--launches=1..%d] [--iters=N] [--no-samples]\n",
			MAX_LAUNCHES);
		return 2;
	}
	printf("# funnel-coexist: %u priority workers x %u launches of %u iterations, %zu samples\n",
	       WORKERS, launches, iters, with_samples ? NSAMPLES : 0);
	fflush(stdout);
	if (pipe(go) || pipe(rp) || pipe(ready))
		bail("pipe");
	for (i = 0; i < WORKERS; i++) {
		wpid[i] = fork();
		if (wpid[i] < 0)
			bail("fork");
		if (wpid[i] == 0) {
			close(go[1]);
			close(rp[0]);
			close(ready[0]);
			worker((int)i, launches, iters, ready[1], go[0], rp[1]);
		}
	}
	close(go[0]);
	close(rp[1]);
	close(ready[1]);
	/* the workers set up, then wait: go, and the samples start with them */
	for (i = 0; i < WORKERS; i++) {
		char c;

		if (read(ready[0], &c, 1) != 1)
			bail("a worker died setting up");
	}
	t0 = now_s();
	for (i = 0; i < WORKERS; i++)
		if (write(go[1], "g", 1) != 1)
			bail("go");
	for (i = 0; with_samples && i < NSAMPLES; i++) {
		snprintf(path[i], sizeof(path[i]), "/tmp/coexist-sample-%u.out", i);
		spid[i] = start_sample(samples[i], path[i]);
		if (spid[i] < 0)
			bail("fork");
	}
	/* the samples' engine time, as long as they live */
	alive = with_samples ? NSAMPLES : 0;
	while (alive) {
		for (i = 0; i < NSAMPLES; i++) {
			uint64_t b;

			if (done[i])
				continue;
			b = fdinfo_compute(spid[i]);
			if (b > sample_busy[i])
				sample_busy[i] = b;
			if (waitpid(spid[i], &status, WNOHANG) == spid[i]) {
				done[i] = true;
				alive--;
				ok(WIFEXITED(status) && WEXITSTATUS(status) == 0 && passed(path[i]),
				   "sample %s alongside the rest: exit %d, PASSED",
				   samples[i], WIFEXITED(status) ? WEXITSTATUS(status) : -1);
			}
		}
		usleep(20000);
	}
	for (i = 0; i < WORKERS; i++) {
		struct report r;

		if (read(rp[0], &r, sizeof(r)) != sizeof(r))
			bail("a worker did not report");
		rep[r.priority] = r;
	}
	for (i = 0; i < WORKERS; i++)
		waitpid(wpid[i], &status, 0);
	t_end = now_s();
	for (i = 0; i < WORKERS; i++) {
		struct report *r = &rep[i];

		if (r->bad < 0)
			printf("# priority %u: %s\n", i, r->msg);
		else
			printf("# priority %u: done %.3f s after go, %" PRIu64 " ms of compute (fdinfo)\n",
			       i, r->done - t0, r->busy_ns / 1000000);
		ok(r->bad == 0, "priority %u worker: %u launches counted %u each (%d wrong)", i,
		   launches, iters, r->bad);
		busy_sum += r->busy_ns;
		workers_ns += r->busy_ns;
		t_workers = r->done > t_workers ? r->done : t_workers;
	}
	for (i = 0; i + 1 < WORKERS; i++)
		order_bad += !(rep[i + 1].done < rep[i].done);
	ok(order_bad == 0,
	   "the higher priority finished first: 3, 2, 1, 0 at %.3f, %.3f, %.3f, %.3f s",
	   rep[3].done - t0, rep[2].done - t0, rep[1].done - t0, rep[0].done - t0);
	for (i = 0; with_samples && i < NSAMPLES; i++)
		busy_sum += sample_busy[i];
	printf("# funnel-coexist: %.3f s of wall time, %.3f s of compute in fdinfo (%.1f %%)\n",
	       t_end - t0, busy_sum / 1e9, 100.0 * busy_sum / 1e9 / (t_end - t0));
	ok(busy_sum / 1e9 <= (t_end - t0) * 1.01,
	   "fdinfo's per-process compute time adds up to at most 100 %% of the run (%.1f %%)",
	   100.0 * busy_sum / 1e9 / (t_end - t0));
	/*
	 * While the workers run they keep the engine busy, whatever else
	 * shares it (the samples; in the soak, a target process and its
	 * faults): their own time is at least a third of their span.  The
	 * whole run is no measure: the samples' copies, and other
	 * processes' kernels, fill it with time no fdinfo here counts.
	 */
	ok(workers_ns / 1e9 >= (t_workers - t0) / 3,
	   "the workers' compute time is at least a third of their %.3f s (%.1f %%)",
	   t_workers - t0, 100.0 * workers_ns / 1e9 / (t_workers - t0));
	return tap_done();
}
