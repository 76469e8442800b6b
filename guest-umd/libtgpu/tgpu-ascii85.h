/* SPDX-License-Identifier: MIT */
#ifndef TGPU_ASCII85_H
#define TGPU_ASCII85_H

#include <stddef.h>
#include <stdint.h>

/*
 * Decode @text (white space ignored) into at most @max words.
 * Return: the number of words, or -1 when the text is not such ascii85
 * or holds more than @max words.
 */
long tu_ascii85_decode(const char *text, uint32_t *out, size_t max);

#endif
