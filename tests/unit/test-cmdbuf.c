// SPDX-License-Identifier: MIT
/*
 * Unit tests of the command-buffer checker (guest-umd/libtgpu/
 * tgpu-cmdbuf.c): what it accepts, what it refuses and the dword its
 * message names.  Headers are built by hand, not with TGPU_PB_HDR, so a
 * wrong field layout in the code under test shows; method numbers come
 * from include/tgpu/, except those chosen because no method has them.
 */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include <tgpu/channel.h>
#include <tgpu/copy.h>
#include <tgpu/isa.h>

#include "tap.h"
#include "tgpu-cmdbuf.h"
#include "tgpu-internal.h"
#include "tgpu-util.h"

static char msg[512];

/* The checker's only dependency on the rest of libtgpu. */
tgpu_status tu_fail(tgpu_status st, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	return st;
}

/* op [31:29], count [28:16], subch [15:13], method >> 2 [11:0] */
static uint32_t hdr(unsigned int op, unsigned int subch, unsigned int m,
		    unsigned int count)
{
	return op << 29 | count << 16 | subch << 13 | m >> 2;
}

static void check(const char *what, enum tgpu_engine e, const uint32_t *c,
		  size_t n, uint32_t cls[8], bool good, const char *in_msg)
{
	tgpu_status st;

	msg[0] = 0;
	st = tu_cb_validate(c, n, e, cls);
	ok(good ? st == TGPU_SUCCESS : st == TGPU_ERROR_INVALID_COMMANDS,
	   "%s: %s", what, good ? "accepted" : "refused");
	if (!good && in_msg)
		ok(strstr(msg, in_msg) != NULL, "%s: message has \"%s\" (%s)", what,
		   in_msg, msg);
}

/*
 * Every method address on each class: the checker knows exactly the
 * methods of the contract's tables (TGPU_*_METHODS), whatever it then
 * says about their data.
 */
static void check_tables(void)
{
	static const struct {
		const char *name;
		enum tgpu_engine e;
		uint32_t cls;
		const char *(*name_of)(unsigned int m);
	} classes[] = {
		{ "copy", TGPU_ENGINE_KIND_COPY0, TGPU_CLASS_COPY, tgpu_ce_method_name },
		{ "compute", TGPU_ENGINE_KIND_COMPUTE, TGPU_CLASS_COMPUTE, tgpu_gr_method_name },
	};
	unsigned int wrong = 0;
	uint32_t c[4], cls[8];

	for (size_t k = 0; k < ARRAY_SIZE(classes); k++) {
		unsigned int known = 0;

		for (uint32_t m = 0; m < 0x1000 * 4; m += 4) {
			bool in_table = m < TGPU_HOST_METHOD_LIMIT ?
					tgpu_host_method_name(m) != NULL :
					classes[k].name_of(m) != NULL;

			memset(cls, 0, sizeof(cls));
			cls[0] = classes[k].cls;
			c[0] = hdr(1, 0, m, 1);
			c[1] = 0;
			msg[0] = 0;
			tu_cb_validate(c, 2, classes[k].e, cls);
			known += in_table && m >= TGPU_HOST_METHOD_LIMIT;
			if (in_table == (strstr(msg, "is not a") != NULL)) {
				if (!wrong++)
					diag("%s: method 0x%03x: table says %s, checker: %s",
					     classes[k].name, m, in_table ? "known" : "unknown",
					     msg[0] ? msg : "(accepted)");
			}
		}
		ok(known > 0, "%s class: %u methods in its table", classes[k].name, known);
	}
	is_int(wrong, 0, "the checker knows exactly the tables' methods, host and class");
	is_str(tgpu_chan_error_name(TGPU_ERR_COUNT - 1), "THERMAL_SHUTDOWN",
	       "the last channel error code is THERMAL_SHUTDOWN");
	is_str(tgpu_chan_error_name(TGPU_ERR_COUNT), "UNKNOWN",
	       "TGPU_ERR_COUNT is one past the last code");
}

int main(void)
{
	uint32_t none[8] = { 0 }, cls[8], c[16];

	/* host methods on any engine */
	tgpu_pb_sem(c, 0x1000, 7, TGPU_SEM_OP_RELEASE);
	check("semaphore release (INC 5)", TGPU_ENGINE_KIND_COMPUTE, c, 6, none, true, NULL);
	check("count past the end", TGPU_ENGINE_KIND_COMPUTE, c, 5, none, false, "dword 0");
	c[5] = 3;
	check("SEM_EXECUTE operation 3", TGPU_ENGINE_KIND_COPY0, c, 6, none, false, "dword 5");
	c[0] = hdr(4, 0, TGPU_M_NOP, 0);
	check("NOP as IMMD", TGPU_ENGINE_KIND_COPY1, c, 1, none, true, NULL);
	c[0] = hdr(0, 0, TGPU_M_NOP, 1);
	check("header opcode 0", TGPU_ENGINE_KIND_COPY1, c, 2, none, false, "opcode 0");
	c[0] = hdr(2, 0, TGPU_M_NOP, 1);
	check("header opcode 2", TGPU_ENGINE_KIND_COPY1, c, 2, none, false, "opcode 2");
	c[0] = hdr(6, 0, TGPU_M_NOP, 1);
	check("header opcode 6", TGPU_ENGINE_KIND_COPY1, c, 2, none, false, "opcode 6");
	c[0] = hdr(1, 0, 0x0c, 1);
	c[1] = 0;
	check("host method 0x00c", TGPU_ENGINE_KIND_COPY1, c, 2, none, false, "0x00c");
	c[0] = hdr(1, 0, TGPU_M_MEM_OP_D, 1);
	c[1] = 0x1fu << 27;
	check("MEM_OP_D operation 0x1f", TGPU_ENGINE_KIND_COPY1, c, 2, none, false, "MEM_OP");
	c[1] = TGPU_MEM_OP_TLB_INVALIDATE << TGPU_MEM_OP_SHIFT;
	check("MEM_OP_D TLB invalidate", TGPU_ENGINE_KIND_COPY1, c, 2, none, true, NULL);
	check("an empty buffer", TGPU_ENGINE_KIND_COPY1, c, 0, none, false, "empty");

	/* classes and subchannels */
	c[0] = hdr(1, 2, TGPU_CE_M_OFFSET_IN_UPPER, 1);
	c[1] = 0;
	check("copy method, unbound subchannel", TGPU_ENGINE_KIND_COPY0, c, 2, none, false,
	      "subchannel 2");
	c[0] = hdr(1, 2, TGPU_M_SET_OBJECT, 1);
	c[1] = TGPU_CLASS_COPY;
	c[2] = hdr(1, 2, TGPU_CE_M_OFFSET_IN_UPPER, 4);
	c[3] = 0; c[4] = 0x1000; c[5] = 0; c[6] = 0x2000;
	memset(cls, 0, sizeof(cls));
	check("SET_OBJECT copy then OFFSET_IN/OUT", TGPU_ENGINE_KIND_COPY0, c, 7, cls, true, NULL);
	ok(cls[2] == TGPU_CLASS_COPY, "the binding is remembered for the queue");
	check("a later buffer on the bound subchannel", TGPU_ENGINE_KIND_COPY0, c + 2, 5, cls,
	      true, NULL);
	check("the copy class on the compute engine", TGPU_ENGINE_KIND_COMPUTE, c, 7, none,
	      false, "dword 1");
	c[2] = hdr(1, 2, 0x420, 1);
	c[3] = 0;
	check("copy method 0x420 (none)", TGPU_ENGINE_KIND_COPY0, c, 4, none, false, "0x420");
	c[2] = hdr(1, 2, TGPU_CE_M_LAUNCH_DMA, 1);
	c[3] = 1u << 30;
	check("LAUNCH_DMA with an unknown bit", TGPU_ENGINE_KIND_COPY0, c, 4, none, false,
	      "LAUNCH_DMA");
	c[3] = TGPU_CE_LAUNCH(TGPU_CE_TRANSFER_PIPELINED, 0, 0);
	check("LAUNCH_DMA pipelined", TGPU_ENGINE_KIND_COPY0, c, 4, none, true, NULL);
	/* a failed buffer leaves the bindings alone */
	memset(cls, 0, sizeof(cls));
	c[4] = hdr(2, 0, 0, 0);
	check("bind, then a bad header", TGPU_ENGINE_KIND_COPY0, c, 5, cls, false, "dword 4");
	ok(cls[2] == 0, "a refused buffer binds nothing");

	/* compute */
	c[0] = hdr(4, 1, TGPU_M_SET_OBJECT, TGPU_CLASS_COMPUTE & 0x1fff);
	check("IMMD SET_OBJECT truncates the class", TGPU_ENGINE_KIND_COMPUTE, c, 1, none,
	      false, "class");
	c[0] = hdr(1, 1, TGPU_M_SET_OBJECT, 1);
	c[1] = TGPU_CLASS_COMPUTE;
	c[2] = hdr(1, 1, TGPU_GR_M_SET_GRID_X, 10);
	memset(c + 3, 0, 10 * 4);
	c[3] = c[4] = c[5] = 1;                 /* grid 1 x 1 x 1 */
	c[6] = 32;                              /* block 32 x 1 x 1 */
	c[7] = c[8] = 1;
	c[13] = hdr(1, 1, TGPU_GR_M_LAUNCH, 1);
	c[14] = 0;
	check("compute: grid .. param size, launch", TGPU_ENGINE_KIND_COMPUTE, c, 15, none,
	      true, NULL);
	c[14] = 1;
	check("compute LAUNCH with a transfer type", TGPU_ENGINE_KIND_COMPUTE, c, 15, none,
	      false, "dword 14");
	c[2] = hdr(1, 1, TGPU_GR_M_SET_GRID_X, 11);
	check("an INC run into 0x238 (no method)", TGPU_ENGINE_KIND_COMPUTE, c, 15, none,
	      false, "0x238");
	c[2] = hdr(5, 1, TGPU_GR_M_SET_PARAM_SIZE, 3);
	c[3] = 8;                               /* a valid SET_PARAM_SIZE first */
	check("ONE_INC: 0x234 then 0x238", TGPU_ENGINE_KIND_COMPUTE, c, 6, none, false,
	      "0x238");
	c[2] = hdr(3, 1, TGPU_GR_M_SET_GRID_X, 3);
	check("NON_INC: 0x210 three times", TGPU_ENGINE_KIND_COMPUTE, c, 6, none, true, NULL);
	c[2] = hdr(1, 1, 0xffc, 2);
	check("an INC run from 0xffc, the last method", TGPU_ENGINE_KIND_COMPUTE, c, 5, none,
	      false, "0xffc");

	/* alignments and ranges, checked at the launch or SEM_EXECUTE */
	tgpu_pb_sem(c, 0x1006, 7, TGPU_SEM_OP_RELEASE);
	check("SEM_ADDR_LO bits 1:0 are ignored, as the hardware does",
	      TGPU_ENGINE_KIND_COMPUTE, c, 6, none, true, NULL);
	c[5] = TGPU_SEM_OP_RELEASE | TGPU_SEM_PAYLOAD_64;
	check("a 64-bit release at 4-byte alignment", TGPU_ENGINE_KIND_COMPUTE, c, 6, none,
	      false, "8-byte");
	c[1] = 0x1008;
	c[5] = TGPU_SEM_OP_RELEASE | TGPU_SEM_TIMESTAMP;
	check("a timestamp release at 8-byte alignment", TGPU_ENGINE_KIND_COMPUTE, c, 6, none,
	      false, "16-byte");
	c[1] = 0x1010;
	check("a timestamp release at 16-byte alignment", TGPU_ENGINE_KIND_COMPUTE, c, 6, none,
	      true, NULL);

	/* compute: SET_OBJECT, PROGRAM (3), then LAUNCH at c[6..7] */
	c[0] = hdr(1, 1, TGPU_M_SET_OBJECT, 1);
	c[1] = TGPU_CLASS_COMPUTE;
	c[2] = hdr(1, 1, TGPU_GR_M_SET_PROGRAM_UPPER, 3);
	c[3] = 0; c[4] = 0x1004; c[5] = 64;
	c[6] = hdr(1, 1, TGPU_GR_M_LAUNCH, 1);
	c[7] = 0;
	check("a misaligned SET_PROGRAM_LOWER alone is fine", TGPU_ENGINE_KIND_COMPUTE, c, 6,
	      none, true, NULL);
	check("a launch with SET_PROGRAM_LOWER not 8-byte aligned", TGPU_ENGINE_KIND_COMPUTE,
	      c, 8, none, false, "SET_PROGRAM_LOWER");
	c[4] = 0x1008; c[5] = 60;
	check("a launch with SET_PROGRAM_SIZE not a multiple of 8", TGPU_ENGINE_KIND_COMPUTE,
	      c, 8, none, false, "SET_PROGRAM_SIZE");
	c[5] = 64;
	check("a launch of an aligned program", TGPU_ENGINE_KIND_COMPUTE, c, 8, none, true, NULL);
	c[7] = 4;       /* FLUSH: not for compute */
	check("compute LAUNCH with bit 2", TGPU_ENGINE_KIND_COMPUTE, c, 8, none, false, "dword 7");
	c[7] = 3u << TGPU_CE_LAUNCH_SEM_SHIFT;
	check("compute LAUNCH with semaphore type 3", TGPU_ENGINE_KIND_COMPUTE, c, 8, none,
	      false, "dword 7");
	c[7] = 0;
	c[2] = hdr(1, 1, TGPU_GR_M_SET_GRID_X, 1);
	c[3] = 65536;
	c[4] = hdr(1, 1, TGPU_GR_M_LAUNCH, 1);
	c[5] = 0;
	check("a launch with grid x 65536", TGPU_ENGINE_KIND_COMPUTE, c, 6, none, false, "grid");
	c[3] = 0;
	check("grid x 0 then grid x 4: the launch sees 4", TGPU_ENGINE_KIND_COMPUTE,
	      (uint32_t []){ c[0], c[1], c[2], 0, c[2], 4, c[4], 0 }, 8, none, true, NULL);
	c[2] = hdr(1, 1, TGPU_GR_M_SET_BLOCK_X, 3);
	c[3] = 32; c[4] = 33; c[5] = 1;
	c[6] = hdr(1, 1, TGPU_GR_M_LAUNCH, 1);
	c[7] = 0;
	check("a launch of 32 x 33 x 1 threads", TGPU_ENGINE_KIND_COMPUTE, c, 8, none, false,
	      "threads");
	c[4] = 32;
	check("a launch of 32 x 32 x 1 threads", TGPU_ENGINE_KIND_COMPUTE, c, 8, none, true, NULL);
	c[2] = hdr(1, 1, TGPU_GR_M_SET_SHARED_SIZE, 1);
	c[3] = 49153;
	c[4] = hdr(1, 1, TGPU_GR_M_LAUNCH, 1);
	c[5] = 0;
	check("a launch with 49153 bytes of shared memory", TGPU_ENGINE_KIND_COMPUTE, c, 6, none,
	      false, "shared");
	c[2] = hdr(1, 1, TGPU_GR_M_SET_PARAM_SIZE, 1);
	c[3] = 6;
	check("a launch with SET_PARAM_SIZE 6", TGPU_ENGINE_KIND_COMPUTE, c, 6, none, false,
	      "SET_PARAM_SIZE");

	/* copy: SET_OBJECT, a value, then LAUNCH_DMA at c[4..5] */
	c[0] = hdr(1, 2, TGPU_M_SET_OBJECT, 1);
	c[1] = TGPU_CLASS_COPY;
	c[2] = hdr(1, 2, TGPU_CE_M_DESC_LIST_LOWER, 1);
	c[3] = 0x1010;
	c[4] = hdr(1, 2, TGPU_CE_M_LAUNCH_DMA, 1);
	c[5] = TGPU_CE_LAUNCH(TGPU_CE_TRANSFER_PIPELINED, 0, 0) | TGPU_CE_LAUNCH_LINKED_LIST;
	check("a linked-list launch of a list not 32-byte aligned", TGPU_ENGINE_KIND_COPY0, c,
	      6, none, false, "32-byte");
	c[5] = TGPU_CE_LAUNCH(TGPU_CE_TRANSFER_PIPELINED, 0, 0);
	check("the same DESC_LIST_LOWER without a linked-list launch", TGPU_ENGINE_KIND_COPY0,
	      c, 6, none, true, NULL);
	c[5] = TGPU_CE_LAUNCH(TGPU_CE_TRANSFER_PIPELINED, 0, 0) | TGPU_CE_LAUNCH_LINKED_LIST |
	       TGPU_CE_LAUNCH_MULTI_LINE;
	check("LINKED_LIST with MULTI_LINE", TGPU_ENGINE_KIND_COPY0, c, 6, none, false,
	      "LINKED_LIST");
	c[5] = TGPU_CE_TRANSFER_PIPELINED;      /* no pitch bits */
	check("a copy without SRC_PITCH and DST_PITCH", TGPU_ENGINE_KIND_COPY0, c, 6, none,
	      false, "PITCH");
	c[5] = 3;
	check("transfer type 3", TGPU_ENGINE_KIND_COPY0, c, 6, none, false, "reserved");
	c[5] = TGPU_CE_LAUNCH(TGPU_CE_TRANSFER_NONE, 0, 3);
	check("interrupt type 3", TGPU_ENGINE_KIND_COPY0, c, 6, none, false, "reserved");
	c[2] = hdr(1, 2, TGPU_CE_M_SET_REMAP_COMPONENTS, 1);
	c[3] = TGPU_CE_REMAP(TGPU_CE_REMAP_SRC_Y, 0, 0, 0, 4, 1, 1);
	c[5] = TGPU_CE_LAUNCH(TGPU_CE_TRANSFER_PIPELINED, 0, 0) | TGPU_CE_LAUNCH_REMAP;
	check("a remap of source Y with one source component", TGPU_ENGINE_KIND_COPY0, c, 6,
	      none, false, "does not exist");
	c[3] = TGPU_CE_REMAP(TGPU_CE_REMAP_CONST_A, 0, 0, 0, 4, 1, 1);
	check("a fill remap of constant A", TGPU_ENGINE_KIND_COPY0, c, 6, none, true, NULL);
	c[2] = hdr(1, 2, TGPU_CE_M_SET_SEMAPHORE_B, 1);
	c[3] = 0x2008;
	c[5] = TGPU_CE_LAUNCH(TGPU_CE_TRANSFER_NONE, TGPU_CE_SEM_FOUR_WORD, 0);
	check("a four-word launch semaphore at 8-byte alignment", TGPU_ENGINE_KIND_COPY0, c, 6,
	      none, false, "16-byte");
	c[5] = TGPU_CE_LAUNCH(TGPU_CE_TRANSFER_NONE, TGPU_CE_SEM_ONE_WORD, 0);
	check("a one-word launch semaphore at 8-byte alignment", TGPU_ENGINE_KIND_COPY0, c, 6,
	      none, true, NULL);
	check_tables();
	return tap_done();
}
