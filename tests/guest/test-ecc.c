// SPDX-License-Identifier: MIT
/*
 * In-guest test of ECC at probe: the driver enabled ECC (or, on an
 * ecc=off board, says it has none), GET_PARAM and debugfs report it and
 * the InfoROM's retired pages, and no VRAM allocation hands out a retired
 * page: each retired page holds a marker written through BAR1, then one
 * object fills all the free VRAM (the driver zeroes it) and the markers
 * must be intact.  The host prepares the InfoROM with tgpu-inforom
 * (tests/guest/run).  BAR1 is mapped through sysfs while tgpu.ko holds
 * it, so the kernel needs iomem=relaxed.
 *
 *   test-ecc --ecc=on|off [--pages=ADDR:sbe|dbe,...] [--node=PATH]
 *
 * Output is TAP; the exit status is non-zero if any check failed.
 */
#include <fcntl.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "guest-tap.h"
#include "guest-sysfs.h"
#include "tgpu-raw.h"

#define MAX_PAGES	64
#define MARKER(i)	(0x5245544952454430ull + (i))	/* "RETIRED0" + i */

static const char *node = "/dev/dri/renderD128";
static int npages;
static uint64_t page[MAX_PAGES];
static const char *cause[MAX_PAGES];

static void parse_pages(const char *arg)
{
	char *s = strdup(arg), *tok, *save = NULL, *colon, *end;

	for (tok = strtok_r(s, ",", &save); tok && npages < MAX_PAGES;
	     tok = strtok_r(NULL, ",", &save)) {
		colon = strchr(tok, ':');
		if (!colon)
			bail("--pages wants ADDR:sbe|dbe,...");
		*colon = '\0';
		page[npages] = strtoull(tok, &end, 0);
		cause[npages] = strdup(colon + 1);
		npages++;
	}
	free(s);
}

static void check_report(int fd, bool ecc_on)
{
	char *ecc = node_debugfs(node, "ecc");
	char want[128];
	int i, nsbe = 0;

	ok(get_param(fd, DRM_TGPU_PARAM_ECC_ENABLED) == ecc_on,
	   "GET_PARAM(ECC_ENABLED) is %d", ecc_on);
	for (i = 0; i < npages; i++)
		nsbe += !strcmp(cause[i], "sbe");
	ok(get_param(fd, DRM_TGPU_PARAM_RETIRED_PAGES_SBE) == (uint64_t)nsbe,
	   "GET_PARAM(RETIRED_PAGES_SBE) is %d", nsbe);
	ok(get_param(fd, DRM_TGPU_PARAM_RETIRED_PAGES_DBE) == (uint64_t)(npages - nsbe),
	   "GET_PARAM(RETIRED_PAGES_DBE) is %d", npages - nsbe);
	if (!ok(ecc != NULL, "debugfs ecc is readable"))
		return;
	snprintf(want, sizeof(want), "capable %d\nenabled %d\n", ecc_on, ecc_on);
	ok(strstr(ecc, want) != NULL, "debugfs: capable %d, enabled %d",
	   ecc_on, ecc_on);
	snprintf(want, sizeof(want), "retired_pages %d\n", npages);
	ok(strstr(ecc, want) != NULL, "debugfs: retired_pages %d", npages);
	for (i = 0; i < npages; i++) {
		snprintf(want, sizeof(want), "page 0x%" PRIx64 " cause %s ",
			 page[i], cause[i]);
		ok(strstr(ecc, want) && strstr(strstr(ecc, want), " reserved\n"),
		   "debugfs: page 0x%" PRIx64 " (%s) is reserved", page[i],
		   cause[i]);
	}
	if (tap_failed)
		printf("# debugfs ecc:\n# %s\n", ecc);
	if (ecc_on)
		ok(klog_has("ECC enabled"), "the driver logged \"ECC enabled\"");
	else
		ok(klog_has("ECC: not supported"), "the driver logged that the board has no ECC");
	free(ecc);
}

/*
 * Markers in the retired pages through BAR1; then one object as large as
 * all the VRAM left, which the driver zeroes at creation: had a retired
 * page been free, the object would take it and the marker would be gone.
 */
static void check_never_handed_out(int fd)
{
	char path[128];
	uint64_t vram = get_param(fd, DRM_TGPU_PARAM_VRAM_SIZE);
	uint64_t used = get_param(fd, DRM_TGPU_PARAM_VRAM_USED);
	volatile uint64_t *bar1;
	uint32_t all = 0, more = 0;
	int i, bfd, lost = 0, err;
	const char *d = strrchr(node, '/');

	snprintf(path, sizeof(path), "/sys/class/drm/%s/device/resource1",
		 d ? d + 1 : node);
	bfd = open(path, O_RDWR | O_SYNC | O_CLOEXEC);
	bar1 = bfd < 0 ? MAP_FAILED :
	       mmap(NULL, vram, PROT_READ | PROT_WRITE, MAP_SHARED, bfd, 0);
	if (!ok(bar1 != MAP_FAILED, "map BAR1 through %s (iomem=relaxed)", path))
		return;
	close(bfd);
	for (i = 0; i < npages; i++)
		bar1[page[i] / 8] = MARKER(i);

	err = gem_create_err(fd, vram - used, 0, &all);
	ok(err == 0, "one object takes all the free VRAM, 0x%" PRIx64 " bytes (%s)",
	   vram - used, errname(err));
	err = gem_create_err(fd, 4096, 0, &more);
	ok(err == ENOSPC, "then VRAM is full: another 4 KiB is ENOSPC (%s)",
	   errname(err));
	ok(get_param(fd, DRM_TGPU_PARAM_VRAM_USED) == vram,
	   "VRAM_USED is all of VRAM");
	for (i = 0; i < npages; i++) {
		if (bar1[page[i] / 8] != MARKER(i)) {
			printf("# retired page 0x%" PRIx64 " reads 0x%" PRIx64 "\n",
			       page[i], (uint64_t)bar1[page[i] / 8]);
			lost++;
		}
	}
	ok(lost == 0, "every retired page kept its marker: none was handed out");
	if (all)
		gem_close(fd, all);
	if (more)
		gem_close(fd, more);
	ok(get_param(fd, DRM_TGPU_PARAM_VRAM_USED) == used,
	   "closing it gives VRAM back; the retired pages stay reserved");
	munmap((void *)bar1, vram);
}

int main(int argc, char **argv)
{
	int ecc_on = -1, fd, i;

	for (i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--ecc=on"))
			ecc_on = 1;
		else if (!strcmp(argv[i], "--ecc=off"))
			ecc_on = 0;
		else if (!strncmp(argv[i], "--pages=", 8))
			parse_pages(argv[i] + 8);
		else if (!strncmp(argv[i], "--node=", 7))
			node = argv[i] + 7;
		else
			ecc_on = -2;
	}
	if (ecc_on < 0) {
		fprintf(stderr, "usage: test-ecc --ecc=on|off [--pages=ADDR:sbe|dbe,...] [--node=PATH]\n");
		return 2;
	}
	fd = open(node, O_RDWR | O_CLOEXEC);
	if (fd < 0)
		bail("cannot open the render node: is tgpu.ko loaded?");
	check_report(fd, ecc_on);
	if (npages)
		check_never_handed_out(fd);
	close(fd);
	return tap_done();
}
