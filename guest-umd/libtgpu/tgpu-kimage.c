// SPDX-License-Identifier: MIT
/*
 * Kernel image files: see tgpu-kimage.h.  Byte by byte, so the format is the
 * same whatever the host's endianness.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tgpu-kimage.h"
#include "tgpu-util.h"

static uint64_t get64(const uint8_t *p)
{
	return (uint64_t)tu_get_le32(p) | (uint64_t)tu_get_le32(p + 4) << 32;
}

uint8_t *kimage_encode(const struct tgpu_kernel_image *img, size_t *len)
{
	size_t n = KIMAGE_HEADER_SIZE + (size_t)img->ninsns * 8, i;
	uint8_t *buf = malloc(n);

	if (!buf)
		return NULL;
	memcpy(buf, KIMAGE_MAGIC, 4);
	tu_put_le32(buf + 4, KIMAGE_VERSION);
	tu_put_le32(buf + 8, img->ninsns);
	tu_put_le32(buf + 12, img->shared_size);
	tu_put_le32(buf + 16, img->param_size);
	for (i = 0; i < img->ninsns; i++) {
		tu_put_le32(buf + KIMAGE_HEADER_SIZE + 8 * i, (uint32_t)img->insns[i]);
		tu_put_le32(buf + KIMAGE_HEADER_SIZE + 8 * i + 4, (uint32_t)(img->insns[i] >> 32));
	}
	*len = n;
	return buf;
}

int kimage_decode(const uint8_t *buf, size_t len, int raw,
		  struct tgpu_kernel_image *img, char *err, size_t errlen)
{
	size_t hdr = raw ? 0 : KIMAGE_HEADER_SIZE, n, i;
	uint32_t version;

	memset(img, 0, sizeof(*img));
	if (raw) {
		if (len % 8) {
			snprintf(err, errlen, "%zu bytes is not a whole number of 64-bit "
				 "instructions", len);
			return -EINVAL;
		}
		n = len / 8;
		if (n > UINT32_MAX) {
			snprintf(err, errlen, "more than 2^32 instructions");
			return -EINVAL;
		}
	} else {
		if (len < KIMAGE_HEADER_SIZE || memcmp(buf, KIMAGE_MAGIC, 4) != 0) {
			snprintf(err, errlen, "not a tgpu kernel image (no \"%s\" header; "
				 "--raw reads bare 64-bit words)", KIMAGE_MAGIC);
			return -EINVAL;
		}
		version = tu_get_le32(buf + 4);
		if (version != KIMAGE_VERSION) {
			snprintf(err, errlen, "kernel image version %u, this tool reads "
				 "version %u", version, KIMAGE_VERSION);
			return -EINVAL;
		}
		n = tu_get_le32(buf + 8);
		if ((len - hdr) / 8 != n || (len - hdr) % 8) {
			snprintf(err, errlen, "the header says %zu instructions (%zu bytes) "
				 "but the file has %zu bytes", n, hdr + n * 8, len);
			return -EINVAL;
		}
		img->shared_size = tu_get_le32(buf + 12);
		img->param_size = tu_get_le32(buf + 16);
	}
	if (n) {
		img->insns = malloc(n * sizeof(*img->insns));
		if (!img->insns) {
			snprintf(err, errlen, "out of memory");
			return -ENOMEM;
		}
	}
	img->ninsns = (uint32_t)n;
	for (i = 0; i < n; i++)
		img->insns[i] = get64(buf + hdr + 8 * i);
	return 0;
}

int kimage_read_file(const char *path, uint8_t **bufp, size_t *lenp)
{
	FILE *f = strcmp(path, "-") ? fopen(path, "rb") : stdin;
	size_t len = 0, cap = 65536, k;
	uint8_t *buf, *p;
	int err = 0;

	if (!f)
		return -errno;
	buf = malloc(cap);
	while (buf) {
		k = fread(buf + len, 1, cap - len - 1, f);
		len += k;
		if (len < cap - 1) {
			if (ferror(f))
				err = -EIO;
			break;
		}
		cap *= 2;
		p = realloc(buf, cap);
		if (!p)
			free(buf);
		buf = p;
	}
	if (f != stdin)
		fclose(f);
	if (!buf)
		return -ENOMEM;
	if (err) {
		free(buf);
		return err;
	}
	buf[len] = '\0';
	*bufp = buf;
	*lenp = len;
	return 0;
}
