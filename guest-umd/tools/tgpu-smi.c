// SPDX-License-Identifier: MIT
/*
 * tgpu-smi: the tgpu System Management Interface, modelled on nvidia-smi.
 *
 * This file only talks to libtgpu and picks a renderer; parsing and all
 * output formats live in smi.c, where the unit tests reach them.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <tgpu_drm.h>

#include "libtgpu.h"
#include "smi.h"

/* Say why libtgpu failed the way nvidia-smi does, plus libtgpu's advice. */
static int fail(tgpu_status st)
{
	int code = smi_exit_code(st);

	switch (code) {
	case SMI_EXIT_NO_DRIVER:
		fprintf(stderr, "TGPU-SMI has failed because it couldn't communicate with the tgpu driver. "
			"Make sure that the tgpu kernel module is loaded.\n");
		break;
	case SMI_EXIT_NOT_FOUND:
		fprintf(stderr, "No devices were found\n");
		break;
	default:
		fprintf(stderr, "TGPU-SMI has failed: %s (%s)\n",
			tgpu_get_error_string(st), tgpu_get_error_name(st));
		break;
	}
	fprintf(stderr, "%s\n", tgpu_get_last_error_message());
	return code;
}

static int print_version(void)
{
	struct tgpu_device_info info;
	tgpu_device *dev;
	const char *drv = "N/A";

	/* Versions print even without a device; the driver's then is N/A. */
	if (tgpu_init(0) == TGPU_SUCCESS && tgpu_device_get(&dev, 0) == TGPU_SUCCESS &&
	    tgpu_device_get_info(dev, &info) == TGPU_SUCCESS)
		drv = info.driver_version;
	printf("TGPU-SMI version  : %s\n", TGPU_VERSION);
	printf("libtgpu version   : %s\n", tgpu_get_version_string());
	printf("DRIVER version    : %s\n", drv);
	return SMI_EXIT_OK;
}

/*
 * dev's retired pages into a buffer of their own, *buf, which the caller
 * frees after printing.  A driver without the list leaves them unknown
 * (N/A); so does running out of memory, with the reason on stderr.
 */
static tgpu_status read_retired(tgpu_device *dev, struct smi_state *st,
				struct tgpu_retired_page **buf)
{
	struct tgpu_retired_page *pages = NULL, *np;
	int max = 16, count = 0;
	tgpu_status rc;

	st->retired_known = false;
	for (;;) {
		np = realloc(pages, (size_t)max * sizeof(*pages));
		if (!np) {
			fprintf(stderr, "tgpu-smi: out of memory listing retired pages\n");
			free(pages);
			return TGPU_SUCCESS;
		}
		pages = np;
		rc = tgpu_device_get_retired_pages(dev, pages, max, &count);
		if (rc) {
			free(pages);
			return rc == TGPU_ERROR_NOT_SUPPORTED ? TGPU_SUCCESS : rc;
		}
		if (count <= max)
			break;
		max = count + 16;   /* more were retired meanwhile: ask again */
	}
	st->retired = pages;
	st->nretired = count;
	st->retired_known = true;
	*buf = pages;
	return TGPU_SUCCESS;
}

/* A read's outcome: known, or N/A from a driver without it, or the error. */
static tgpu_status known(tgpu_status rc, bool *is_known)
{
	*is_known = rc == TGPU_SUCCESS;
	return rc == TGPU_ERROR_NOT_SUPPORTED ? TGPU_SUCCESS : rc;
}

/*
 * Memory, the SM clock, ECC, thermal, utilization and the clocks event
 * counters now, and the retired pages unless retired is NULL (dmon shows
 * none); what the driver cannot tell is N/A.
 */
static tgpu_status read_live(tgpu_device *dev, struct smi_state *st,
			     struct tgpu_retired_page **retired)
{
	uint64_t free_bytes, total, khz;
	tgpu_status rc;

	st->clk_sm_known = false;
	rc = tgpu_device_get_param(dev, DRM_TGPU_PARAM_CLK_SM_KHZ, &khz);
	if (rc == TGPU_SUCCESS) {
		st->clk_sm_known = true;
		st->clk_sm_mhz = (uint32_t)((khz + 500) / 1000);
	} else if (rc != TGPU_ERROR_NOT_SUPPORTED) {
		return rc;
	}

	rc = known(tgpu_device_get_ecc_info(dev, &st->ecc), &st->ecc_known);
	if (!rc)
		rc = known(tgpu_device_get_thermal_info(dev, &st->therm), &st->therm_known);
	if (!rc)
		rc = known(tgpu_device_get_utilization(dev, &st->util), &st->util_known);
	if (!rc)
		rc = known(tgpu_device_get_clocks_event_counters(dev, &st->counters),
			   &st->counters_known);
	if (rc)
		return rc;

	st->retired_known = false;
	if (retired) {
		rc = read_retired(dev, st, retired);
		if (rc)
			return rc;
	}

	st->mem_known = false;
	rc = tgpu_device_get_memory_info(dev, &free_bytes, &total);
	if (rc == TGPU_ERROR_NOT_SUPPORTED)
		return TGPU_SUCCESS;
	if (rc)
		return rc;
	st->mem_known = true;
	st->mem_total = total;
	st->mem_used = total - free_bytes;
	return TGPU_SUCCESS;
}

/*
 * The processes using dev, except tgpu-smi itself: its file of the device
 * is libtgpu's, which holds no memory (nvidia-smi does not list itself
 * either).  A failure leaves them unknown (N/A), with the reason on stderr.
 */
static void read_processes(tgpu_device *dev, struct smi_state *st,
			   struct tgpu_process_info **buf)
{
	struct tgpu_process_info *procs = NULL, *np;
	int max = 16, count = 0, i, kept = 0;
	pid_t self = getpid();
	tgpu_status rc;

	st->procs_known = false;
	for (;;) {
		np = realloc(procs, (size_t)max * sizeof(*procs));
		if (!np) {
			fprintf(stderr, "tgpu-smi: out of memory listing processes\n");
			free(procs);
			return;
		}
		procs = np;
		rc = tgpu_device_get_processes(dev, procs, max, &count);
		if (rc) {
			fprintf(stderr, "tgpu-smi: cannot list the processes using the GPU: %s\n",
				tgpu_get_last_error_message());
			free(procs);
			return;
		}
		if (count <= max)
			break;
		max = count + 16;   /* more appeared meanwhile: ask again */
	}
	for (i = 0; i < count; i++)
		if (procs[i].pid != self)
			procs[kept++] = procs[i];
	st->procs = procs;
	st->nprocs = kept;
	st->procs_known = true;
	*buf = procs;
}

/*
 * dmon: one line per device every delay seconds, count times (0: forever).
 * Each device's previous sample stays for the violation columns.
 */
static int dmon(const struct smi_args *args, tgpu_device **devs,
		const struct tgpu_device_info *infos, int n)
{
	struct smi_dmon_sample *prev, cur;
	struct timespec next;
	tgpu_status rc;
	int sample, i;

	prev = calloc(n ? n : 1, sizeof(*prev));
	if (!prev) {
		fprintf(stderr, "tgpu-smi: out of memory\n");
		return SMI_EXIT_OTHER;
	}
	smi_dmon_header(stdout, args);
	clock_gettime(CLOCK_MONOTONIC, &next);
	for (sample = 0; args->dmon_count == 0 || sample < args->dmon_count; sample++) {
		if (sample > 0) {
			/* Absolute deadlines: the interval does not drift. */
			next.tv_sec += args->dmon_delay;
			while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &next, NULL) == EINTR)
				;
		}
		for (i = 0; i < n; i++) {
			memset(&cur, 0, sizeof(cur));
			rc = read_live(devs[i], &cur.st, NULL);
			if (rc) {
				free(prev);
				return fail(rc);
			}
			clock_gettime(CLOCK_REALTIME, &cur.wall);
			clock_gettime(CLOCK_MONOTONIC, &cur.mono);
			smi_dmon_line(stdout, args, &infos[i], &cur, sample ? &prev[i] : NULL);
			prev[i] = cur;
		}
		/* Each sample as it comes, also into a pipe. */
		if (fflush(stdout) != 0 || ferror(stdout)) {
			perror("tgpu-smi: stdout");
			free(prev);
			return SMI_EXIT_OTHER;
		}
	}
	free(prev);
	return SMI_EXIT_OK;
}

int main(int argc, char **argv)
{
	struct tgpu_process_info **procbufs = NULL;
	struct tgpu_retired_page **retiredbufs = NULL;
	struct tgpu_device_info *infos;
	struct smi_state *states = NULL;
	tgpu_device **devs = NULL;
	struct smi_snapshot snap;
	struct smi_args args;
	char err[256];
	tgpu_status st;
	int rc, n, i, sel, first = 0, count;

	rc = smi_parse_args(argc, argv, &args, err, sizeof(err));
	if (rc) {
		fprintf(stderr, "%s\n", err);
		return rc;
	}
	switch (args.mode) {
	case SMI_MODE_HELP:
		smi_print_help(stdout);
		return SMI_EXIT_OK;
	case SMI_MODE_HELP_QUERY_GPU:
		smi_print_help_query_gpu(stdout);
		return SMI_EXIT_OK;
	case SMI_MODE_HELP_QUERY_APPS:
		smi_print_help_query_apps(stdout);
		return SMI_EXIT_OK;
	case SMI_MODE_HELP_QUERY_RETIRED_PAGES:
		smi_print_help_query_retired_pages(stdout);
		return SMI_EXIT_OK;
	case SMI_MODE_VERSION:
		return print_version();
	default:
		break;
	}

	st = tgpu_init(0);
	if (!st)
		st = tgpu_device_get_count(&n);
	if (st)
		return fail(st);

	infos = calloc(n, sizeof(*infos));
	devs = calloc(n, sizeof(*devs));
	states = calloc(n, sizeof(*states));
	procbufs = calloc(n, sizeof(*procbufs));
	retiredbufs = calloc(n, sizeof(*retiredbufs));
	if (!infos || !devs || !states || !procbufs || !retiredbufs) {
		fprintf(stderr, "tgpu-smi: out of memory\n");
		rc = SMI_EXIT_OTHER;
		goto out;
	}
	for (i = 0; i < n; i++) {
		st = tgpu_device_get(&devs[i], i);
		if (!st)
			st = tgpu_device_get_info(devs[i], &infos[i]);
		if (st) {
			rc = fail(st);
			goto out;
		}
	}

	memset(&snap, 0, sizeof(snap));
	snap.devs = infos;
	snap.count = n;
	snap.attached = n;
	/* One kernel module serves every device: any device's version will do. */
	snap.driver_version = n ? infos[0].driver_version : "N/A";
	snap.lib_version = tgpu_get_version_string();
	clock_gettime(CLOCK_REALTIME, &snap.now);

	count = n;
	if (args.id) {
		sel = smi_select(args.id, infos, n);
		if (sel < 0) {
			fprintf(stderr, "No devices were found\n"
				"No tgpu GPU matches \"%s\": 'tgpu-smi -L' lists them.\n",
				args.id);
			rc = SMI_EXIT_NOT_FOUND;
			goto out;
		}
		first = sel;
		count = 1;
		snap.devs = &infos[sel];
		snap.count = 1;
	}

	if (args.mode == SMI_MODE_DMON) {
		rc = dmon(&args, devs + first, infos + first, count);
		goto out;
	}

	/* The state now, of the devices printed. */
	snap.state = states + first;
	for (i = first; i < first + count && args.mode != SMI_MODE_LIST; i++) {
		st = read_live(devs[i], &states[i], &retiredbufs[i]);
		if (st) {
			rc = fail(st);
			goto out;
		}
		if (args.mode != SMI_MODE_QUERY_GPU && args.mode != SMI_MODE_QUERY_RETIRED_PAGES)
			read_processes(devs[i], &states[i], &procbufs[i]);
	}

	switch (args.mode) {
	case SMI_MODE_QUERY:
		smi_print_query(stdout, &args, &snap);
		break;
	case SMI_MODE_LIST:
		smi_print_list(stdout, &snap);
		break;
	case SMI_MODE_QUERY_GPU:
		smi_print_csv(stdout, &args, &snap);
		break;
	case SMI_MODE_QUERY_APPS:
		smi_print_csv_apps(stdout, &args, &snap);
		break;
	case SMI_MODE_QUERY_RETIRED_PAGES:
		smi_print_csv_retired(stdout, &args, &snap);
		break;
	default:
		smi_print_summary(stdout, &snap);
		break;
	}

	/* A full disk or closed pipe must not look like success to scripts. */
	rc = SMI_EXIT_OK;
	if (fflush(stdout) != 0 || ferror(stdout)) {
		perror("tgpu-smi: stdout");
		rc = SMI_EXIT_OTHER;
	}
out:
	for (i = 0; procbufs && i < n; i++)
		free(procbufs[i]);
	free(procbufs);
	for (i = 0; retiredbufs && i < n; i++)
		free(retiredbufs[i]);
	free(retiredbufs);
	free(states);
	free(devs);
	free(infos);
	return rc;
}
