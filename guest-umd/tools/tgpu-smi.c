// SPDX-License-Identifier: MIT
/*
 * tgpu-smi: the tgpu System Management Interface, modelled on nvidia-smi.
 *
 * This file only talks to libtgpu and picks a renderer; parsing and all
 * output formats live in smi.c, where the unit tests reach them.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

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

int main(int argc, char **argv)
{
	struct tgpu_device_info *infos;
	struct smi_snapshot snap;
	struct smi_args args;
	char err[256];
	tgpu_status st;
	int rc, n, i, sel;

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
	if (!infos) {
		fprintf(stderr, "tgpu-smi: out of memory\n");
		return SMI_EXIT_OTHER;
	}
	for (i = 0; i < n; i++) {
		tgpu_device *dev;

		st = tgpu_device_get(&dev, i);
		if (!st)
			st = tgpu_device_get_info(dev, &infos[i]);
		if (st) {
			free(infos);
			return fail(st);
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

	if (args.id) {
		sel = smi_select(args.id, infos, n);
		if (sel < 0) {
			fprintf(stderr, "No devices were found\n"
				"No tgpu GPU matches \"%s\": 'tgpu-smi -L' lists them.\n",
				args.id);
			free(infos);
			return SMI_EXIT_NOT_FOUND;
		}
		snap.devs = &infos[sel];
		snap.count = 1;
	}

	switch (args.mode) {
	case SMI_MODE_QUERY:
		smi_print_query(stdout, &snap);
		break;
	case SMI_MODE_LIST:
		smi_print_list(stdout, &snap);
		break;
	case SMI_MODE_QUERY_GPU:
		smi_print_csv(stdout, &args, &snap);
		break;
	default:
		smi_print_summary(stdout, &snap);
		break;
	}
	free(infos);

	/* A full disk or closed pipe must not look like success to scripts. */
	if (fflush(stdout) != 0 || ferror(stdout)) {
		perror("tgpu-smi: stdout");
		return SMI_EXIT_OTHER;
	}
	return SMI_EXIT_OK;
}
