/* SPDX-License-Identifier: MIT */
/*
 * sysfs, debugfs and the kernel log for the in-guest tests: the files
 * under a render node's PCI device, its debugfs directory (dri/<minor>,
 * found from the node, never assumed), reading whole files, dmesg, and
 * unbinding and rebinding the device.  Include after guest-tap.h.
 */
#ifndef TGPU_GUEST_SYSFS_H
#define TGPU_GUEST_SYSFS_H

#include <dirent.h>
#include <inttypes.h>
#include <errno.h>
#include <stdbool.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <stdint.h>
#include <string.h>
#include <sys/klog.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/types.h>
#include <unistd.h>

/* The kernel log (dmesg) has @needle somewhere. */
static inline bool klog_has(const char *needle)
{
	static char buf[1 << 20];
	int n = klogctl(3 /* SYSLOG_ACTION_READ_ALL */, buf, sizeof(buf) - 1);

	if (n < 0)
		return false;
	buf[n] = '\0';
	return strstr(buf, needle) != NULL;
}

/* The whole of file @path, NUL-terminated and malloc'd; NULL if unreadable. */
static inline char *read_text(const char *path)
{
	size_t len = 0, cap = 4096;
	char *buf;
	ssize_t n;
	int fd = open(path, O_RDONLY | O_CLOEXEC);

	if (fd < 0)
		return NULL;
	buf = malloc(cap + 1);
	while (buf) {
		if (len == cap) {
			char *b = realloc(buf, 2 * cap + 1);

			if (!b) {
				free(buf);
				buf = NULL;
				break;
			}
			buf = b;
			cap *= 2;
		}
		n = read(fd, buf + len, cap - len);
		if (n <= 0)
			break;
		len += (size_t)n;
	}
	close(fd);
	if (buf)
		buf[len] = 0;
	return buf;
}

/* The number in @dir/@file (a sysfs value); -1 if unreadable. */
static inline long long read_number(const char *dir, const char *file)
{
	char path[480], *v;
	long long n;

	snprintf(path, sizeof(path), "%s/%s", dir, file);
	v = read_text(path);
	if (!v)
		return -1;
	n = strtoll(v, NULL, 10);
	free(v);
	return n;
}

/* The hwmon directory named @name ("tgpu"), in @dir; false if none. */
static inline bool find_hwmon(const char *name, char *dir, size_t len)
{
	DIR *d = opendir("/sys/class/hwmon");
	char path[300], want[64], *n;
	struct dirent *e;
	bool found = false;

	snprintf(want, sizeof(want), "%s\n", name);
	while (d && (e = readdir(d)) && !found) {
		if (e->d_name[0] == '.')
			continue;
		snprintf(path, sizeof(path), "/sys/class/hwmon/%s/name", e->d_name);
		n = read_text(path);
		if (n && !strcmp(n, want)) {
			snprintf(dir, len, "%.*s", (int)(strlen(path) - 5), path);
			found = true;
		}
		free(n);
	}
	if (d)
		closedir(d);
	return found;
}

/* /sys/class/drm/<node's name>/device/@file, e.g. resource0 */
static inline void node_device_path(const char *node, const char *file, char *path,
				    size_t len)
{
	const char *n = strrchr(node, '/');

	snprintf(path, len, "/sys/class/drm/%s/device/%s", n ? n + 1 : node, file);
}

/* The debugfs directory of render node @node: /sys/kernel/debug/dri/<minor>. */
static inline void node_debugfs_dir(const char *node, char *dir, size_t len)
{
	struct stat st;

	if (stat(node, &st) || !S_ISCHR(st.st_mode))
		bail("cannot stat the render node");
	snprintf(dir, len, "/sys/kernel/debug/dri/%u", minor(st.st_rdev));
}

/* debugfs file @name of render node @node (read_text()), NULL if unreadable. */
static inline char *node_debugfs(const char *node, const char *name)
{
	char dir[64], path[128];

	node_debugfs_dir(node, dir, sizeof(dir));
	snprintf(path, sizeof(path), "%s/%s", dir, name);
	return read_text(path);
}

/*
 * The VRAM address of GPU VA @va of process @pid, from render node
 * @node's debugfs "files" (the mapping, "va A-B ... vram object ...
 * offset O at vram ADDR+SIZE,...", then the object's blocks); 0 if it is
 * not in VRAM or not found.
 */
static inline uint64_t node_vram_of(const char *node, pid_t pid, uint64_t va)
{
	char *files = node_debugfs(node, "files"), *line, *save = NULL, *b;
	uint64_t start, end, obj_off, addr, size, pos;
	char me[32];
	bool mine = false;

	if (!files)
		return 0;
	snprintf(me, sizeof(me), " pid %d comm ", (int)pid);
	for (line = strtok_r(files, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		if (!strncmp(line, "file ", 5))
			mine = strstr(line, me) != NULL;
		if (!mine || sscanf(line, " va 0x%" SCNx64 "-0x%" SCNx64
				    " size 0x%*x %*s vram object size 0x%*x offset 0x%" SCNx64,
				    &start, &end, &obj_off) != 3 ||
		    va < start || va >= end)
			continue;
		pos = obj_off + (va - start);
		b = strstr(line, " at vram ");
		for (b = b ? b + 9 : NULL; b && sscanf(b, "0x%" SCNx64 "+0x%" SCNx64, &addr, &size) == 2;
		     b = strchr(b, ',') ? strchr(b, ',') + 1 : NULL) {
			if (pos < size) {
				free(files);
				return addr + pos;
			}
			pos -= size;
		}
	}
	free(files);
	return 0;
}

/* Write @val to @path: 0, or the errno. */
static inline int write_file(const char *path, const char *val)
{
	int fd = open(path, O_WRONLY | O_CLOEXEC), err = 0;

	if (fd < 0)
		return errno;
	if (write(fd, val, strlen(val)) < 0)
		err = errno;
	close(fd);
	return err;
}

/* The PCI address (e.g. 0000:01:00.0) of render node @node. */
static inline void bdf_of_node(const char *node, char *bdf, size_t len)
{
	char link[256], path[128];
	const char *n = strrchr(node, '/');
	ssize_t r;
	char *slash;

	snprintf(path, sizeof(path), "/sys/class/drm/%s/device",
		 n ? n + 1 : node);
	r = readlink(path, link, sizeof(link) - 1);
	if (r < 0)
		bail("no device link for the render node");
	link[r] = 0;
	slash = strrchr(link, '/');
	snprintf(bdf, len, "%s", slash ? slash + 1 : link);
}

#endif /* TGPU_GUEST_SYSFS_H */
