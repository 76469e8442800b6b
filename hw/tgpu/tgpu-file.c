/*
 * tgpu: the host files a user names in the device's properties
 * (inforom=, fault-plan=), read at realize.  The path is the user's, so
 * it may name a FIFO, a device or a huge file: only a regular file is
 * read, without blocking in open(), and never more than its reader's
 * limit.
 *
 * Copyright (c) 2026 The tgpu authors
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */

#include "qemu/osdep.h"
#include "qapi/error.h"
#include "tgpu.h"

/* Up to @len bytes of @fd; -1 with errno on an error. */
static ssize_t read_upto(int fd, uint8_t *buf, size_t len)
{
    size_t done = 0;

    while (done < len) {
        ssize_t n = read(fd, buf + done, len - done);

        if (n < 0 && errno == EINTR) {
            continue;
        }
        if (n < 0) {
            return -1;
        }
        if (n == 0) {
            break;
        }
        done += n;
    }
    return done;
}

int tgpu_file_read(const char *path, const char *what, size_t max,
                   uint8_t **data, size_t *len, Error **errp)
{
    g_autofree uint8_t *buf = NULL;
    struct stat st;
    ssize_t n;
    int fd;

    *data = NULL;
    *len = 0;
    /*
     * O_NONBLOCK: opening a FIFO would otherwise wait for a writer, and
     * QEMU with it; what is not a regular file is refused below, before
     * anything is read.
     */
    fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY);
    if (fd < 0 && errno == ENOENT) {
        error_setg_errno(errp, errno, "tgpu: cannot read %s %s", what, path);
        return 0;
    }
    if (fd < 0) {
        error_setg_errno(errp, errno, "tgpu: cannot read %s %s", what, path);
        return -1;
    }
    /* a FIFO or a device could also be read without end */
    if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode)) {
        error_setg(errp, "tgpu: %s %s is not a regular file", what, path);
        close(fd);
        return -1;
    }
    /* one byte more than @max, to tell a longer file */
    buf = g_malloc(max + 2);
    n = read_upto(fd, buf, max + 1);
    if (n < 0) {
        error_setg_errno(errp, errno, "tgpu: cannot read %s %s", what, path);
        close(fd);
        return -1;
    }
    close(fd);
    buf[n] = 0;
    *len = n;
    *data = g_steal_pointer(&buf);
    return 1;
}
