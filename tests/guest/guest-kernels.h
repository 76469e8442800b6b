/* SPDX-License-Identifier: MIT */
/*
 * Kernels the in-guest tests share, as tgpu assembly (docs/hw/isa.md).
 */
#ifndef TGPU_GUEST_KERNELS_H
#define TGPU_GUEST_KERNELS_H

#include <stdint.h>

/*
 * spin: counts to its parameter, then stores the count at out; one warp
 * of it runs about 3e7 iterations a second under the interpreter.
 */
#define GUEST_SPIN_KERNEL \
	".entry spin\n" \
	".param 12                  ; out (u64), iterations (u32)\n" \
	"	ldc.32 r0, c[rz + 8]\n" \
	"	mov r1, 0\n" \
	"loop:	iadd r1, r1, 1\n" \
	"	isetp.lt p0, r1, r0\n" \
	"	@p0 bra loop\n" \
	"	ldc.64 r2, c[rz]\n" \
	"	stg.32 [r2], r1\n" \
	"	exit\n"

struct spin_params {
	uint64_t out;
	uint32_t iters;
} __attribute__((packed));

/* peek: copies the word at src to dst (one thread) */
#define GUEST_PEEK_KERNEL \
	".entry peek\n" \
	".param 16                  ; src (u64), dst (u64)\n" \
	"	ldc.64 r2, c[rz]\n" \
	"	ldc.64 r4, c[rz + 8]\n" \
	"	ldg.32 r6, [r2]\n" \
	"	stg.32 [r4], r6\n" \
	"	exit\n"

struct peek_params {
	uint64_t src, dst;
} __attribute__((packed));

/*
 * One round of layer 2 and the soak's target: copy @len bytes from @a
 * to @b, then run @peek (GUEST_PEEK_KERNEL) on @args, and wait.  The
 * first failure's status, or TGPU_SUCCESS.  (libtgpu.h before this.)
 */
static inline tgpu_status copy_and_peek(tgpu_context *ctx, tgpu_function *peek,
					tgpu_deviceptr b, tgpu_deviceptr a, size_t len,
					struct peek_params *args)
{
	tgpu_status st = tgpu_memcpy_dtod(ctx, b, a, len);

	if (!st)
		st = tgpu_launch_kernel(peek, 1, 1, 1, 1, 1, 1, 0, NULL, args, sizeof(*args));
	if (!st)
		st = tgpu_ctx_synchronize(ctx);
	return st;
}

#endif /* TGPU_GUEST_KERNELS_H */
