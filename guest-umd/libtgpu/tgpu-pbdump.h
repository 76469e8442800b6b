/* SPDX-License-Identifier: MIT */
#ifndef TGPU_PBDUMP_H
#define TGPU_PBDUMP_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include <tgpu/channel.h>

/* The method's name: a host method, or one of class @cls's. */
const char *tu_pb_method_name(uint32_t cls, uint32_t m);

/*
 * Print @len bytes of little-endian dwords as method headers and
 * methods; @cls: the class bound on each subchannel, in and out.
 * 0, or 1 on a malformed stream (the message on stderr, after
 * "PROG: NAME:").
 */
int tu_pb_print(FILE *out, const char *prog, const char *name, const uint8_t *buf,
		size_t len, uint32_t cls[TGPU_PB_NR_SUBCH]);

#endif
