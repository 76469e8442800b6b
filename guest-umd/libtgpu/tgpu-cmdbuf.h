/* SPDX-License-Identifier: MIT */
/*
 * Command-buffer (pushbuffer) building and checking.  Every method number
 * and header field comes from <tgpu/channel.h>, <tgpu/copy.h> and
 * <tgpu/isa.h>.
 */
#ifndef TGPU_CMDBUF_H
#define TGPU_CMDBUF_H

#include <stddef.h>
#include <stdint.h>

#include <tgpu/channel.h>

#include "libtgpu.h"

/* A buffer being written: room for cap dwords at p. */
struct tu_cb {
	uint32_t *p;
	uint32_t n, cap;
};

/* One method and its data, an INC header on subchannel 0. */
static inline void tu_cb_method(struct tu_cb *cb, uint32_t method,
				uint32_t count, const uint32_t *data)
{
	uint32_t i;

	cb->p[cb->n++] = TGPU_PB_HDR(TGPU_PB_OP_INC, 0, method, count);
	for (i = 0; i < count; i++)
		cb->p[cb->n++] = data[i];
}

static inline void tu_cb_method1(struct tu_cb *cb, uint32_t method,
				 uint32_t value)
{
	tu_cb_method(cb, method, 1, &value);
}

/*
 * Check cmds for engine: header opcodes, counts within the buffer, every
 * method a host method or one of the class bound to its subchannel
 * (subch_class[8]: bindings so far on the queue, updated on success),
 * SET_OBJECT of the engine's class, semaphore and MEM_OP operations and
 * launch flags that the hardware accepts.  TGPU_SUCCESS, or
 * TGPU_ERROR_INVALID_COMMANDS with a message naming the dword.
 */
tgpu_status tu_cb_validate(const uint32_t *cmds, size_t n,
			   enum tgpu_engine engine, uint32_t subch_class[8]);

#endif /* TGPU_CMDBUF_H */
