/* SPDX-License-Identifier: MIT */
/*
 * sysfs for the in-guest tests that unbind and rebind the device.
 * Include after guest-tap.h.
 */
#ifndef TGPU_GUEST_SYSFS_H
#define TGPU_GUEST_SYSFS_H

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

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
