/* SPDX-License-Identifier: MIT */
/*
 * DRM fdinfo (/proc/<pid>/fdinfo/<fd> of an open DRM file, the kernel's
 * Documentation/gpu/drm-usage-stats.rst): parsing of its text and the
 * per-process accounting of its clients, pure functions the unit tests
 * drive with sample text; and the scan of a /proc tree that
 * tgpu_device_get_processes() (tgpu-monitor.c) runs on the real /proc
 * and the unit tests on a fake one.  Internal: not part of the
 * installed API.
 */
#ifndef TGPU_FDINFO_H
#define TGPU_FDINFO_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "libtgpu.h"
#include "tgpu-util.h"

/* What one DRM file's fdinfo says; has_* tell which keys were there. */
struct tu_drm_fdinfo {
	char driver[32];                /* drm-driver, "tgpu" */
	bool has_client_id;
	uint64_t client_id;             /* drm-client-id */
	bool has_pdev;
	struct tu_pci_addr pdev;        /* drm-pdev */
	bool has_total_vram;
	uint64_t total_vram;            /* drm-total-vram, bytes */
	bool has_resident_vram;
	uint64_t resident_vram;         /* drm-resident-vram, bytes */
};

/*
 * Parse a size value of drm-usage-stats: an unsigned decimal, then
 * optionally blanks and "KiB", "MiB" or "GiB" (bytes without a unit).
 * Surrounding blanks are allowed.  False for anything else or overflow.
 */
bool tu_drm_fdinfo_parse_size(const char *s, uint64_t *bytes);

/*
 * Parse fdinfo text (NUL-terminated, "key:<blanks>value" per line).
 * Unknown keys, and known keys with a malformed value, are ignored (the
 * has_* flag stays false); a repeated key keeps its last valid value.
 * Returns true when the text is a DRM file's: drm-driver and a valid
 * drm-client-id are present.
 */
bool tu_drm_fdinfo_parse(const char *text, struct tu_drm_fdinfo *fi);

/* The VRAM a client holds: resident if reported, else total. */
bool tu_drm_fdinfo_vram(const struct tu_drm_fdinfo *fi, uint64_t *bytes);

/*
 * One process's clients of one device.  Several files of a process may
 * be one client (dup(), fork(), SCM_RIGHTS: same drm-client-id); each
 * client counts once.
 */
struct tu_drm_usage {
	uint64_t *ids;          /* client ids seen, malloc'd */
	size_t nids, cap;
	uint64_t vram;          /* bytes, summed over the clients */
	bool vram_unknown;      /* some client did not report its VRAM */
};

/*
 * Account fi (a parsed DRM fdinfo with a client id) to u.  Returns 1 if
 * the client was new, 0 if already counted, -1 when out of memory.
 */
int tu_drm_usage_add(struct tu_drm_usage *u, const struct tu_drm_fdinfo *fi);
void tu_drm_usage_free(struct tu_drm_usage *u);

/*
 * The processes of proc_root ("/proc") with DRM files of driver on the
 * PCI device pdev: every /proc/<pid>/fd/<n> linking into /dev/dri/ whose
 * fdinfo has that drm-driver and drm-pdev.  Up to max of them go to out
 * (out may be NULL when max is 0), sorted by pid; *count gets how many
 * there are, which may be more than max.  A process or file that cannot
 * be read (permission, or it went away meanwhile) is skipped.  Returns 0,
 * or -errno when proc_root itself cannot be read (-ENOMEM when out of
 * memory).
 */
int tu_proc_scan_drm(const char *proc_root, const char *driver,
		     const struct tu_pci_addr *pdev,
		     struct tgpu_process_info *out, int max, int *count);

#endif /* TGPU_FDINFO_H */
