// SPDX-License-Identifier: MIT
/*
 * DRM fdinfo parsing and per-process client accounting (pure), and the
 * scan of a /proc tree for DRM clients: see tgpu-fdinfo.h.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "tgpu-fdinfo.h"

static bool is_blank(char c)
{
	return c == ' ' || c == '\t';
}

/* Unsigned decimal of exactly n characters; false on overflow or junk. */
static bool parse_u64(const char *s, size_t n, uint64_t *v)
{
	uint64_t x = 0;
	size_t i;

	if (n == 0)
		return false;
	for (i = 0; i < n; i++) {
		unsigned int d;

		if (s[i] < '0' || s[i] > '9')
			return false;
		d = (unsigned int)(s[i] - '0');
		if (x > (UINT64_MAX - d) / 10)
			return false;
		x = x * 10 + d;
	}
	*v = x;
	return true;
}

/* s[0..n) with leading and trailing blanks cut: sets *b and returns the length. */
static size_t trim(const char *s, size_t n, const char **b)
{
	while (n && is_blank(*s)) {
		s++;
		n--;
	}
	while (n && is_blank(s[n - 1]))
		n--;
	*b = s;
	return n;
}

static bool parse_size_n(const char *s, size_t n, uint64_t *bytes)
{
	static const struct {
		const char *name;
		unsigned int shift;
	} units[] = { { "KiB", 10 }, { "MiB", 20 }, { "GiB", 30 } };
	const char *b;
	size_t digits, i;
	uint64_t v;

	n = trim(s, n, &b);
	for (digits = 0; digits < n && b[digits] >= '0' && b[digits] <= '9'; digits++)
		;
	if (!parse_u64(b, digits, &v))
		return false;
	if (digits == n) {
		*bytes = v;
		return true;
	}
	s = b + digits;
	n -= digits;
	n = trim(s, n, &b);
	for (i = 0; i < sizeof(units) / sizeof(units[0]); i++) {
		if (n == 3 && memcmp(b, units[i].name, 3) == 0) {
			if (v > (UINT64_MAX >> units[i].shift))
				return false;
			*bytes = v << units[i].shift;
			return true;
		}
	}
	return false;
}

bool tu_drm_fdinfo_parse_size(const char *s, uint64_t *bytes)
{
	return s && bytes && parse_size_n(s, strlen(s), bytes);
}

static bool key_is(const char *k, size_t n, const char *name)
{
	return strlen(name) == n && memcmp(k, name, n) == 0;
}

/* One "key: value" line (without its newline) into fi. */
static void parse_line(const char *line, size_t len, struct tu_drm_fdinfo *fi)
{
	const char *colon = memchr(line, ':', len), *k, *v;
	size_t kn, vn;
	char buf[64];
	uint64_t x;

	if (!colon)
		return;
	kn = trim(line, (size_t)(colon - line), &k);
	vn = trim(colon + 1, len - (size_t)(colon + 1 - line), &v);

	if (key_is(k, kn, "drm-driver")) {
		if (vn == 0 || vn >= sizeof(fi->driver))
			return;
		memcpy(fi->driver, v, vn);
		fi->driver[vn] = '\0';
	} else if (key_is(k, kn, "drm-client-id")) {
		if (parse_u64(v, vn, &x)) {
			fi->client_id = x;
			fi->has_client_id = true;
		}
	} else if (key_is(k, kn, "drm-pdev")) {
		struct tu_pci_addr a;

		if (vn >= sizeof(buf))
			return;
		memcpy(buf, v, vn);
		buf[vn] = '\0';
		if (tu_parse_pci_bus_id(buf, &a)) {
			fi->pdev = a;
			fi->has_pdev = true;
		}
	} else if (key_is(k, kn, "drm-total-vram")) {
		if (parse_size_n(v, vn, &x)) {
			fi->total_vram = x;
			fi->has_total_vram = true;
		}
	} else if (key_is(k, kn, "drm-resident-vram")) {
		if (parse_size_n(v, vn, &x)) {
			fi->resident_vram = x;
			fi->has_resident_vram = true;
		}
	}
}

bool tu_drm_fdinfo_parse(const char *text, struct tu_drm_fdinfo *fi)
{
	const char *p = text;

	memset(fi, 0, sizeof(*fi));
	if (!text)
		return false;
	while (*p) {
		const char *nl = strchr(p, '\n');
		size_t len = nl ? (size_t)(nl - p) : strlen(p);

		parse_line(p, len, fi);
		p += len;
		if (*p == '\n')
			p++;
	}
	return fi->driver[0] != '\0' && fi->has_client_id;
}

bool tu_drm_fdinfo_vram(const struct tu_drm_fdinfo *fi, uint64_t *bytes)
{
	if (fi->has_resident_vram) {
		*bytes = fi->resident_vram;
		return true;
	}
	if (fi->has_total_vram) {
		*bytes = fi->total_vram;
		return true;
	}
	return false;
}

int tu_drm_usage_add(struct tu_drm_usage *u, const struct tu_drm_fdinfo *fi)
{
	uint64_t bytes;
	size_t i;

	for (i = 0; i < u->nids; i++)
		if (u->ids[i] == fi->client_id)
			return 0;
	if (u->nids == u->cap) {
		size_t cap = u->cap ? u->cap * 2 : 4;
		uint64_t *ids = realloc(u->ids, cap * sizeof(*ids));

		if (!ids)
			return -1;
		u->ids = ids;
		u->cap = cap;
	}
	u->ids[u->nids++] = fi->client_id;
	if (!tu_drm_fdinfo_vram(fi, &bytes))
		u->vram_unknown = true;
	else if (u->vram > UINT64_MAX - bytes)
		u->vram = UINT64_MAX;
	else
		u->vram += bytes;
	return 1;
}

void tu_drm_usage_free(struct tu_drm_usage *u)
{
	free(u->ids);
	memset(u, 0, sizeof(*u));
}

/* ---- the /proc scan ------------------------------------------------------- */

/* Read a small file whole into buf (NUL-terminated); false if unreadable. */
static bool read_text(int dirfd, const char *path, char *buf, size_t len)
{
	size_t got = 0;
	ssize_t n;
	int fd;

	fd = openat(dirfd, path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return false;
	while (got < len - 1) {
		n = read(fd, buf + got, len - 1 - got);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		got += (size_t)n;
	}
	close(fd);
	buf[got] = '\0';
	return got > 0;
}

/* A decimal directory entry name, as /proc/<pid> and fd/<n> are. */
static bool number_name(const char *s, long *v)
{
	uint64_t x;

	if (!parse_u64(s, strlen(s), &x) || x > 0x7fffffff)
		return false;
	*v = (long)x;
	return true;
}

/*
 * Account the clients of one process (pid_dir is /proc/<pid>) of this
 * device to u; a process that cannot be read adds nothing.  Returns 0,
 * or -ENOMEM.
 */
static int scan_pid(int pid_dir, const char *driver,
		    const struct tu_pci_addr *pdev, struct tu_drm_usage *u)
{
	struct tu_drm_fdinfo fi;
	char path[64], target[64], text[8192];
	struct dirent *de;
	int fd_dir, rc = 0;
	DIR *d;
	long n;

	fd_dir = openat(pid_dir, "fd", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd_dir < 0)
		return 0;
	d = fdopendir(fd_dir);
	if (!d) {
		close(fd_dir);
		return 0;
	}
	while ((de = readdir(d))) {
		ssize_t tn;

		if (!number_name(de->d_name, &n))
			continue;
		/* Cheap test first: only DRM nodes get their fdinfo read. */
		tn = readlinkat(fd_dir, de->d_name, target, sizeof(target) - 1);
		if (tn <= 0)
			continue;
		target[tn] = '\0';
		if (strncmp(target, "/dev/dri/", 9) != 0)
			continue;
		snprintf(path, sizeof(path), "fdinfo/%ld", n);
		if (!read_text(pid_dir, path, text, sizeof(text)) ||
		    !tu_drm_fdinfo_parse(text, &fi) || strcmp(fi.driver, driver) != 0 ||
		    !fi.has_pdev || tu_pci_addr_cmp(&fi.pdev, pdev) != 0)
			continue;
		if (tu_drm_usage_add(u, &fi) < 0) {
			rc = -ENOMEM;
			break;
		}
	}
	closedir(d);
	return rc;
}

static int cmp_pid(const void *a, const void *b)
{
	const struct tgpu_process_info *pa = a, *pb = b;

	return (pa->pid > pb->pid) - (pa->pid < pb->pid);
}

int tu_proc_scan_drm(const char *proc_root, const char *driver,
		     const struct tu_pci_addr *pdev,
		     struct tgpu_process_info *out, int max, int *count)
{
	struct tgpu_process_info *all = NULL, *p;
	size_t nall = 0, cap = 0, i;
	struct dirent *de;
	int root, rc = 0;
	DIR *d;
	long pid;

	*count = 0;
	root = open(proc_root, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (root < 0)
		return -errno;
	d = fdopendir(root);
	if (!d) {
		rc = -errno;
		close(root);
		return rc;
	}
	while ((de = readdir(d))) {
		struct tu_drm_usage u = { 0 };
		char comm[sizeof(p->name)];
		int pid_dir;

		if (!number_name(de->d_name, &pid))
			continue;
		pid_dir = openat(root, de->d_name, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
		if (pid_dir < 0)
			continue;
		rc = scan_pid(pid_dir, driver, pdev, &u);
		if (rc == 0 && u.nids > 0 && nall == cap) {
			size_t ncap = cap ? cap * 2 : 16;
			struct tgpu_process_info *na = realloc(all, ncap * sizeof(*na));

			if (na) {
				all = na;
				cap = ncap;
			} else {
				rc = -ENOMEM;
			}
		}
		if (rc == 0 && u.nids > 0) {
			p = &all[nall++];
			memset(p, 0, sizeof(*p));
			p->pid = (int)pid;
			p->clients = (uint32_t)u.nids;
			p->used_memory = u.vram_unknown ? TGPU_MEMORY_UNKNOWN : u.vram;
			if (read_text(pid_dir, "comm", comm, sizeof(comm))) {
				comm[strcspn(comm, "\n")] = '\0';
				snprintf(p->name, sizeof(p->name), "%s", comm);
			}
		}
		tu_drm_usage_free(&u);
		close(pid_dir);
		if (rc)
			break;
	}
	closedir(d);
	if (rc) {
		free(all);
		return rc;
	}
	if (nall > 1)
		qsort(all, nall, sizeof(*all), cmp_pid);
	for (i = 0; i < nall && (int)i < max; i++)
		out[i] = all[i];
	*count = (int)nall;
	free(all);
	return 0;
}
