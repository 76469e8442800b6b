// SPDX-License-Identifier: MIT
/*
 * ascii85 as the kernel's <linux/ascii85.h> writes devcoredump blobs
 * (msm, xe, tgpu): five characters '!'..'u' per 32-bit word, base 85,
 * most significant first, or 'z' for a zero word; no padding.
 */
#include <ctype.h>
#include <stddef.h>
#include <stdint.h>

#include "tgpu-ascii85.h"

long tu_ascii85_decode(const char *text, uint32_t *out, size_t max)
{
	size_t n = 0;
	uint64_t v;
	int i;

	while (*text) {
		if (isspace((unsigned char)*text)) {
			text++;
			continue;
		}
		if (n == max)
			return -1;
		if (*text == 'z') {
			out[n++] = 0;
			text++;
			continue;
		}
		for (v = 0, i = 0; i < 5; i++, text++) {
			if (*text < '!' || *text > 'u')
				return -1;
			v = v * 85 + (uint64_t)(*text - '!');
		}
		if (v > UINT32_MAX)
			return -1;
		out[n++] = (uint32_t)v;
	}
	return (long)n;
}
