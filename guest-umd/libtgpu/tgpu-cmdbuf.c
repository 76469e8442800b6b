// SPDX-License-Identifier: MIT
/*
 * libtgpu: checking a command buffer before the GPU sees it.
 *
 * The checks mirror what the host unit (docs/hw/channels.md) and the
 * engines (docs/hw/copy.md, docs/hw/isa.md) would refuse with a channel
 * error, so that a malformed buffer costs the caller an error message,
 * not a dead queue.
 */
#include <inttypes.h>
#include <stdbool.h>

#include <tgpu/channel.h>
#include <tgpu/copy.h>
#include <tgpu/isa.h>

#include "tgpu-cmdbuf.h"
#include "tgpu-internal.h"

static const uint32_t host_methods[] = {
	TGPU_M_SET_OBJECT, TGPU_M_NOP, TGPU_M_NON_STALL_INTERRUPT,
	TGPU_M_MEM_OP_A, TGPU_M_MEM_OP_B, TGPU_M_MEM_OP_C, TGPU_M_MEM_OP_D,
	TGPU_M_SEM_ADDR_LO, TGPU_M_SEM_ADDR_HI, TGPU_M_SEM_PAYLOAD_LO,
	TGPU_M_SEM_PAYLOAD_HI, TGPU_M_SEM_EXECUTE, TGPU_M_WFI, TGPU_M_YIELD,
};

static const uint32_t copy_methods[] = {
	TGPU_CE_M_NOP, TGPU_CE_M_SET_SEMAPHORE_A, TGPU_CE_M_SET_SEMAPHORE_B,
	TGPU_CE_M_SET_SEMAPHORE_PAYLOAD, TGPU_CE_M_LAUNCH_DMA,
	TGPU_CE_M_OFFSET_IN_UPPER, TGPU_CE_M_OFFSET_IN_LOWER,
	TGPU_CE_M_OFFSET_OUT_UPPER, TGPU_CE_M_OFFSET_OUT_LOWER,
	TGPU_CE_M_PITCH_IN, TGPU_CE_M_PITCH_OUT, TGPU_CE_M_LINE_LENGTH_IN,
	TGPU_CE_M_LINE_COUNT, TGPU_CE_M_DESC_LIST_UPPER,
	TGPU_CE_M_DESC_LIST_LOWER, TGPU_CE_M_SET_REMAP_CONST_A,
	TGPU_CE_M_SET_REMAP_CONST_B, TGPU_CE_M_SET_REMAP_COMPONENTS,
};

static const uint32_t compute_methods[] = {
	TGPU_GR_M_NOP, TGPU_GR_M_SET_PROGRAM_UPPER, TGPU_GR_M_SET_PROGRAM_LOWER,
	TGPU_GR_M_SET_PROGRAM_SIZE, TGPU_GR_M_SET_GRID_X, TGPU_GR_M_SET_GRID_Y,
	TGPU_GR_M_SET_GRID_Z, TGPU_GR_M_SET_BLOCK_X, TGPU_GR_M_SET_BLOCK_Y,
	TGPU_GR_M_SET_BLOCK_Z, TGPU_GR_M_SET_SHARED_SIZE,
	TGPU_GR_M_SET_PARAM_UPPER, TGPU_GR_M_SET_PARAM_LOWER,
	TGPU_GR_M_SET_PARAM_SIZE, TGPU_GR_M_SET_SEMAPHORE_A,
	TGPU_GR_M_SET_SEMAPHORE_B, TGPU_GR_M_SET_SEMAPHORE_PAYLOAD,
	TGPU_GR_M_LAUNCH,
};

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

static bool in_list(const uint32_t *l, size_t n, uint32_t m)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (l[i] == m)
			return true;
	return false;
}

static uint32_t engine_class(enum tgpu_engine engine)
{
	return engine == TGPU_ENGINE_KIND_COMPUTE ? TGPU_CLASS_COMPUTE :
						    TGPU_CLASS_COPY;
}

#define BAD(...) tu_fail(TGPU_ERROR_INVALID_COMMANDS, __VA_ARGS__)

/* Values set earlier in the buffer, for the alignment rules. */
struct cb_state {
	uint32_t sem_lo;        /* host SEM_ADDR_LO */
	bool have_sem_lo;
	uint32_t eng_sem_b;     /* the class's SET_SEMAPHORE_B */
	bool have_eng_sem_b;
};

/* Rules on the data of single methods: alignments and ranges. */
static tgpu_status check_data(size_t at, uint32_t cls, uint32_t m,
			      uint32_t data, struct cb_state *st)
{
	if (cls == TGPU_CLASS_COMPUTE) {
		switch (m) {
		case TGPU_GR_M_SET_PROGRAM_LOWER:
			if (data % 8)
				return BAD("dword %zu: SET_PROGRAM_LOWER 0x%08" PRIx32 " is not 8-byte aligned",
					   at, data);
			break;
		case TGPU_GR_M_SET_PROGRAM_SIZE:
			if (data % 8 || data > TGPU_GR_PROGRAM_MAX)
				return BAD("dword %zu: SET_PROGRAM_SIZE %" PRIu32 " is not a multiple of 8 up to %u",
					   at, data, TGPU_GR_PROGRAM_MAX);
			break;
		case TGPU_GR_M_SET_GRID_X:
		case TGPU_GR_M_SET_GRID_Y:
		case TGPU_GR_M_SET_GRID_Z:
			if (!data || data > TGPU_GR_GRID_MAX)
				return BAD("dword %zu: a grid dimension of %" PRIu32 " (1..%d)",
					   at, data, TGPU_GR_GRID_MAX);
			break;
		case TGPU_GR_M_SET_BLOCK_X:
		case TGPU_GR_M_SET_BLOCK_Y:
		case TGPU_GR_M_SET_BLOCK_Z:
			if (!data || data > TGPU_GR_BLOCK_MAX)
				return BAD("dword %zu: a block dimension of %" PRIu32 " (1..%d)",
					   at, data, TGPU_GR_BLOCK_MAX);
			break;
		case TGPU_GR_M_SET_SHARED_SIZE:
			if (data > TGPU_GR_SHARED_MAX)
				return BAD("dword %zu: %" PRIu32 " bytes of shared memory, at most %u",
					   at, data, TGPU_GR_SHARED_MAX);
			break;
		case TGPU_GR_M_SET_PARAM_SIZE:
			if (data % 4 || data > TGPU_GR_PARAM_MAX)
				return BAD("dword %zu: SET_PARAM_SIZE %" PRIu32 " is not a multiple of 4 up to %d",
					   at, data, TGPU_GR_PARAM_MAX);
			break;
		}
	} else if (cls == TGPU_CLASS_COPY && m == TGPU_CE_M_DESC_LIST_LOWER && data % 32) {
		return BAD("dword %zu: DESC_LIST_LOWER 0x%08" PRIx32 ": descriptors are 32-byte aligned",
			   at, data);
	}
	/* both classes: the semaphore of a launch */
	if (m == TGPU_CE_M_SET_SEMAPHORE_B) {
		st->eng_sem_b = data;
		st->have_eng_sem_b = true;
	}
	if ((m == TGPU_CE_M_LAUNCH_DMA || m == TGPU_GR_M_LAUNCH) && st->have_eng_sem_b) {
		uint32_t type = (data >> TGPU_CE_LAUNCH_SEM_SHIFT) & TGPU_CE_LAUNCH_SEM_MASK;
		uint32_t align = type == TGPU_CE_SEM_FOUR_WORD ? 16 : 4;

		if (type != TGPU_CE_SEM_NONE && st->eng_sem_b % align)
			return BAD("dword %zu: the launch releases a semaphore at ...%08" PRIx32 ", which is not %" PRIu32 "-byte aligned",
				   at, st->eng_sem_b, align);
	}
	return TGPU_SUCCESS;
}

/* One method with its data, at dword index at. */
static tgpu_status check_method(size_t at, uint32_t subch, uint32_t m,
				uint32_t data, enum tgpu_engine engine,
				uint32_t cls[8], struct cb_state *st)
{
	if (m < TGPU_HOST_METHOD_LIMIT) {
		if (!in_list(host_methods, ARRAY_SIZE(host_methods), m))
			return BAD("dword %zu: 0x%03" PRIx32 " is not a host method (docs/hw/channels.md lists them)",
				   at, m);
		switch (m) {
		case TGPU_M_SET_OBJECT:
			if ((data & 0xffff) != engine_class(engine))
				return BAD("dword %zu: SET_OBJECT class 0x%04" PRIx32 " does not run on the %s engine (its class is 0x%04" PRIx32 ")",
					   at, data & 0xffff,
					   engine == TGPU_ENGINE_KIND_COMPUTE ? "compute" : "copy",
					   engine_class(engine));
			cls[subch] = data & 0xffff;
			break;
		case TGPU_M_SEM_ADDR_LO:
			if (data & 3)
				return BAD("dword %zu: SEM_ADDR_LO 0x%08" PRIx32 ": bits 1:0 must be 0",
					   at, data);
			st->sem_lo = data;
			st->have_sem_lo = true;
			break;
		case TGPU_M_SEM_EXECUTE: {
			uint32_t align = data & TGPU_SEM_TIMESTAMP ? 16 :
					 data & TGPU_SEM_PAYLOAD_64 ? 8 : 4;

			if ((data & TGPU_SEM_OP_MASK) > TGPU_SEM_OP_ACQ_GEQ)
				return BAD("dword %zu: SEM_EXECUTE operation %" PRIu32 " does not exist (0 acquire, 1 release, 2 acquire >=)",
					   at, data & TGPU_SEM_OP_MASK);
			if (st->have_sem_lo && st->sem_lo % align)
				return BAD("dword %zu: the semaphore at ...%08" PRIx32 " is not %" PRIu32 "-byte aligned, as this SEM_EXECUTE needs",
					   at, st->sem_lo, align);
			break;
		}
		case TGPU_M_MEM_OP_D: {
			uint32_t op = data >> TGPU_MEM_OP_SHIFT;

			if (op != TGPU_MEM_OP_MEMBAR &&
			    op != TGPU_MEM_OP_TLB_INVALIDATE &&
			    op != TGPU_MEM_OP_TLB_INVALIDATE_RANGE)
				return BAD("dword %zu: MEM_OP_D operation 0x%02" PRIx32 " does not exist",
					   at, op);
			break;
		}
		}
		return TGPU_SUCCESS;
	}
	if (!cls[subch])
		return BAD("dword %zu: method 0x%03" PRIx32 " on subchannel %" PRIu32 ", which no SET_OBJECT has bound",
			   at, m, subch);
	if (cls[subch] == TGPU_CLASS_COPY) {
		if (!in_list(copy_methods, ARRAY_SIZE(copy_methods), m))
			return BAD("dword %zu: 0x%03" PRIx32 " is not a method of the copy class (docs/hw/copy.md)",
				   at, m);
		if (m == TGPU_CE_M_LAUNCH_DMA && (data & ~TGPU_CE_LAUNCH_VALID_MASK))
			return BAD("dword %zu: LAUNCH_DMA 0x%08" PRIx32 " sets bits the copy engine does not know (valid: 0x%08x)",
				   at, data, TGPU_CE_LAUNCH_VALID_MASK);
	} else {
		if (!in_list(compute_methods, ARRAY_SIZE(compute_methods), m))
			return BAD("dword %zu: 0x%03" PRIx32 " is not a method of the compute class (docs/hw/isa.md)",
				   at, m);
		if (m == TGPU_GR_M_LAUNCH &&
		    ((data & ~TGPU_GR_LAUNCH_VALID_MASK) ||
		     (data & TGPU_CE_LAUNCH_TRANSFER_MASK)))
			return BAD("dword %zu: compute LAUNCH 0x%08" PRIx32 " sets bits the compute engine does not accept",
				   at, data);
	}
	return check_data(at, cls[subch], m, data, st);
}

tgpu_status tu_cb_validate(const uint32_t *cmds, size_t n,
			   enum tgpu_engine engine, uint32_t subch_class[8])
{
	struct cb_state state = { 0 };
	uint32_t cls[8];
	tgpu_status st;
	size_t i = 0, k;

	if (!n)
		return BAD("the command buffer is empty");
	for (k = 0; k < 8; k++)
		cls[k] = subch_class[k];
	while (i < n) {
		uint32_t h = cmds[i];
		uint32_t op = h >> TGPU_PB_OP_SHIFT;
		uint32_t subch = (h >> TGPU_PB_SUBCH_SHIFT) & TGPU_PB_SUBCH_MASK;
		uint32_t m = (h & TGPU_PB_METHOD_MASK) << 2;
		uint32_t count = (h >> TGPU_PB_COUNT_SHIFT) & TGPU_PB_COUNT_MASK;
		size_t at = i++;

		switch (op) {
		case TGPU_PB_OP_IMMD:
			st = check_method(at, subch, m, count, engine, cls, &state);
			if (st)
				return st;
			continue;
		case TGPU_PB_OP_INC:
		case TGPU_PB_OP_NON_INC:
		case TGPU_PB_OP_ONE_INC:
			break;
		default:
			return BAD("dword %zu: 0x%08" PRIx32 " has header opcode %" PRIu32 ", which does not exist (INC 1, NON_INC 3, IMMD 4, ONE_INC 5)",
				   at, h, op);
		}
		if (count > n - i)
			return BAD("dword %zu: header 0x%08" PRIx32 " announces %" PRIu32 " data dwords, but the buffer ends after %zu",
				   at, h, count, n - i);
		for (k = 0; k < count; k++, i++) {
			uint32_t mk = op == TGPU_PB_OP_NON_INC ? m :
				      op == TGPU_PB_OP_ONE_INC ? (k ? m + 4 : m) :
				      m + 4 * (uint32_t)k;

			if (mk > (TGPU_PB_METHOD_MASK << 2))
				return BAD("dword %zu: method run of header %zu goes past the last method 0x%03x",
					   i, at, TGPU_PB_METHOD_MASK << 2);
			st = check_method(i, subch, mk, cmds[i], engine, cls, &state);
			if (st)
				return st;
		}
	}
	for (k = 0; k < 8; k++)
		subch_class[k] = cls[k];
	return TGPU_SUCCESS;
}
