/* SPDX-License-Identifier: MIT */
/*
 * The kernel image file that tgpu-as writes and tgpu-dis reads
 * (docs/umd.md, "Kernel image files").  All fields little-endian:
 *
 *   0   char magic[4]      "TGPK"
 *   4   u32 version        1
 *   8   u32 ninsns
 *   12  u32 shared_size    bytes of shared memory per CTA (.shared)
 *   16  u32 param_size     bytes of parameters (.param)
 *   20  u64 insns[ninsns]  (not 8-byte aligned in the file)
 */
#ifndef TGPU_KIMAGE_H
#define TGPU_KIMAGE_H

#include <stddef.h>
#include <stdint.h>

#include "libtgpu.h"

#define KIMAGE_MAGIC        "TGPK"
#define KIMAGE_VERSION      1
#define KIMAGE_HEADER_SIZE  20

/* The file's bytes (malloc'd, *len set), NULL if out of memory. */
uint8_t *kimage_encode(const struct tgpu_kernel_image *img, size_t *len);

/*
 * Parse a file's bytes into img (free with tgpu_kernel_image_free()).
 * raw: the file is bare 64-bit words, no header.  Returns 0, -EINVAL
 * with a message in err, or -ENOMEM.
 */
int kimage_decode(const uint8_t *buf, size_t len, int raw,
		  struct tgpu_kernel_image *img, char *err, size_t errlen);

/*
 * A whole file ("-": standard input) into a malloc'd buffer with a NUL
 * after the last byte.  Returns 0 or a negative errno.
 */
int kimage_read_file(const char *path, uint8_t **buf, size_t *len);

#endif /* TGPU_KIMAGE_H */
