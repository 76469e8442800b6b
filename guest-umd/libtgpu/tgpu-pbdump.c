// SPDX-License-Identifier: MIT
/*
 * Command streams, printed method by method with the names of the
 * contract headers' tables (TGPU_HOST_METHODS, TGPU_CE_METHODS,
 * TGPU_GR_METHODS): tgpu-dis --pushbuffer and tgpu-coredump.
 */
#include <stdint.h>
#include <stdio.h>

#include <tgpu/channel.h>
#include <tgpu/copy.h>
#include <tgpu/isa.h>

#include "tgpu-pbdump.h"
#include "tgpu-util.h"

/* The method's name: a host method, or one of the subchannel's class. */
const char *tu_pb_method_name(uint32_t cls, uint32_t m)
{
	const char *name;

	if (m < TGPU_HOST_METHOD_LIMIT)
		name = tgpu_host_method_name(m);
	else if (cls == TGPU_CLASS_COPY)
		name = tgpu_ce_method_name(m);
	else if (cls == TGPU_CLASS_COMPUTE)
		name = tgpu_gr_method_name(m);
	else
		return "(no class bound)";
	return name ? name : "(unknown)";
}

/*
 * Decode the dwords as the host unit does (docs/hw/channels.md), tracking
 * SET_OBJECT per subchannel in @cls, which carries over from segment to
 * segment.  1 (and a message on stderr, after "PROG: NAME:", naming the
 * dword) on a malformed stream, after printing what was good.
 */
int tu_pb_print(FILE *out, const char *prog, const char *name, const uint8_t *buf,
		size_t len, uint32_t cls[TGPU_PB_NR_SUBCH])
{
	static const char *const ops[8] = {
		[TGPU_PB_OP_INC] = "INC", [TGPU_PB_OP_NON_INC] = "NON_INC",
		[TGPU_PB_OP_IMMD] = "IMMD", [TGPU_PB_OP_ONE_INC] = "ONE_INC",
	};
	size_t n = len / 4, i = 0;

	if (len % 4) {
		fprintf(stderr, "%s: %s: %zu bytes is not a whole number of 32-bit dwords\n",
			prog, name, len);
		return 1;
	}
	while (i < n) {
		uint32_t hdr = tu_get_le32(buf + 4 * i), op = hdr >> TGPU_PB_OP_SHIFT;
		uint32_t count = (hdr >> TGPU_PB_COUNT_SHIFT) & TGPU_PB_COUNT_MASK;
		uint32_t subch = (hdr >> TGPU_PB_SUBCH_SHIFT) & TGPU_PB_SUBCH_MASK;
		uint32_t m = (hdr & TGPU_PB_METHOD_MASK) << 2, j;

		if (!ops[op]) {
			fprintf(stderr, "%s: %s: dword %zu: 0x%08x is not a method header (opcode %u)\n",
				prog, name, i, hdr, op);
			return 1;
		}
		if (op == TGPU_PB_OP_IMMD) {
			fprintf(out, "%6zu: %08x IMMD subch %u %s (0x%03x) = 0x%x\n", i, hdr, subch,
			       tu_pb_method_name(cls[subch], m), m, count);
			if (m == TGPU_M_SET_OBJECT)
				cls[subch] = count;
			i++;
			continue;
		}
		fprintf(out, "%6zu: %08x %s subch %u method 0x%03x count %u\n", i, hdr, ops[op], subch,
		       m, count);
		for (j = 0, i++; j < count; j++, i++) {
			uint32_t d;

			if (i >= n) {
				fprintf(stderr, "%s: %s: the header at dword %zu wants %u more dwords than the file has\n",
					prog, name, i - j - 1, count - j);
				return 1;
			}
			d = tu_get_le32(buf + 4 * i);
			fprintf(out, "%6zu: %08x   %s (0x%03x) = 0x%08x\n", i, d,
			       tu_pb_method_name(cls[subch], m), m, d);
			if (m == TGPU_M_SET_OBJECT)
				cls[subch] = d & 0xffff;
			if (op == TGPU_PB_OP_INC || op == TGPU_PB_OP_ONE_INC)
				m = (m + 4) & (TGPU_PB_METHOD_MASK << 2);
			if (op == TGPU_PB_OP_ONE_INC)
				op = TGPU_PB_OP_NON_INC;
		}
	}
	return 0;
}

