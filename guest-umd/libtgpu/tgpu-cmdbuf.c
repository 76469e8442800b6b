// SPDX-License-Identifier: MIT
/*
 * libtgpu: checking a command buffer before the GPU sees it.
 *
 * The checks mirror what the host unit (docs/hw/channels.md) and the
 * engines (docs/hw/copy.md, docs/hw/isa.md) would refuse with a channel
 * error, so that a malformed buffer costs the caller an error message,
 * not a dead queue.  Which methods exist comes from the tables of the
 * contract headers (TGPU_HOST_METHODS, TGPU_CE_METHODS, TGPU_GR_METHODS).
 */
#include <inttypes.h>
#include <stdbool.h>

#include <tgpu/channel.h>
#include <tgpu/copy.h>
#include <tgpu/isa.h>

#include "tgpu-cmdbuf.h"
#include "tgpu-internal.h"
#include "tgpu-util.h"

static uint32_t engine_class(enum tgpu_engine engine)
{
	return engine == TGPU_ENGINE_KIND_COMPUTE ? TGPU_CLASS_COMPUTE :
						    TGPU_CLASS_COPY;
}

#define BAD(...) tu_fail(TGPU_ERROR_INVALID_COMMANDS, __VA_ARGS__)

/*
 * Values set earlier in the buffer.  The rules on them are checked where
 * the hardware checks them, at the launch or SEM_EXECUTE that uses them,
 * and only for values this buffer set (earlier buffers are not seen).
 */
enum { V_SEM_LO, V_ENG_SEM_B, V_DESC_LO, V_REMAP, V_PROG_LO, V_PROG_SIZE,
       V_GRID_X, V_GRID_Y, V_GRID_Z, V_BLOCK_X, V_BLOCK_Y, V_BLOCK_Z,
       V_SHARED, V_PARAM_SIZE, V_COUNT };

struct cb_state {
	uint32_t v[V_COUNT];
	bool set[V_COUNT];
};

static void cb_set(struct cb_state *st, int i, uint32_t value)
{
	st->v[i] = value;
	st->set[i] = true;
}

/* The value of a method that feeds a later check, recorded. */
static void note_value(uint32_t cls, uint32_t m, uint32_t data,
		       struct cb_state *st)
{
	static const struct { uint32_t m; int v; } gr[] = {
		{ TGPU_GR_M_SET_PROGRAM_LOWER, V_PROG_LO },
		{ TGPU_GR_M_SET_PROGRAM_SIZE, V_PROG_SIZE },
		{ TGPU_GR_M_SET_GRID_X, V_GRID_X }, { TGPU_GR_M_SET_GRID_Y, V_GRID_Y },
		{ TGPU_GR_M_SET_GRID_Z, V_GRID_Z },
		{ TGPU_GR_M_SET_BLOCK_X, V_BLOCK_X }, { TGPU_GR_M_SET_BLOCK_Y, V_BLOCK_Y },
		{ TGPU_GR_M_SET_BLOCK_Z, V_BLOCK_Z },
		{ TGPU_GR_M_SET_SHARED_SIZE, V_SHARED },
		{ TGPU_GR_M_SET_PARAM_SIZE, V_PARAM_SIZE },
		{ TGPU_GR_M_SET_SEMAPHORE_B, V_ENG_SEM_B },
	};
	size_t i;

	if (cls == TGPU_CLASS_COMPUTE) {
		for (i = 0; i < ARRAY_SIZE(gr); i++)
			if (gr[i].m == m)
				cb_set(st, gr[i].v, data);
		return;
	}
	if (m == TGPU_CE_M_SET_SEMAPHORE_B)
		cb_set(st, V_ENG_SEM_B, data);
	else if (m == TGPU_CE_M_DESC_LIST_LOWER)
		cb_set(st, V_DESC_LO, data);
	else if (m == TGPU_CE_M_SET_REMAP_COMPONENTS)
		cb_set(st, V_REMAP, data);
}

/* Semaphore, interrupt and transfer fields of a launch: 3 is reserved. */
static bool launch_fields_ok(uint32_t data)
{
	return ((data >> TGPU_CE_LAUNCH_SEM_SHIFT) & TGPU_CE_LAUNCH_SEM_MASK) != 3 &&
	       ((data >> TGPU_CE_LAUNCH_INTR_SHIFT) & TGPU_CE_LAUNCH_INTR_MASK) != 3;
}

static tgpu_status check_launch_sem(size_t at, uint32_t data,
				    const struct cb_state *st)
{
	uint32_t type = (data >> TGPU_CE_LAUNCH_SEM_SHIFT) & TGPU_CE_LAUNCH_SEM_MASK;
	uint32_t align = type == TGPU_CE_SEM_FOUR_WORD ? 16 : 4;

	if (type != TGPU_CE_SEM_NONE && st->set[V_ENG_SEM_B] && st->v[V_ENG_SEM_B] % align)
		return BAD("dword %zu: the launch releases a semaphore at ...%08" PRIx32 ", which is not %" PRIu32 "-byte aligned",
			   at, st->v[V_ENG_SEM_B], align);
	return TGPU_SUCCESS;
}

/* What the copy engine's LAUNCH_DMA check refuses (docs/hw/copy.md). */
static tgpu_status check_copy_launch(size_t at, uint32_t data,
				     const struct cb_state *st)
{
	const uint32_t pitch = TGPU_CE_LAUNCH_SRC_PITCH | TGPU_CE_LAUNCH_DST_PITCH;
	bool copies = (data & TGPU_CE_LAUNCH_TRANSFER_MASK) != TGPU_CE_TRANSFER_NONE;

	if (data & ~TGPU_CE_LAUNCH_VALID_MASK)
		return BAD("dword %zu: LAUNCH_DMA 0x%08" PRIx32 " sets bits the copy engine does not know (valid: 0x%08x)",
			   at, data, TGPU_CE_LAUNCH_VALID_MASK);
	if ((data & TGPU_CE_LAUNCH_TRANSFER_MASK) == 3 || !launch_fields_ok(data))
		return BAD("dword %zu: LAUNCH_DMA 0x%08" PRIx32 ": a transfer, semaphore or interrupt type of 3 (reserved)",
			   at, data);
	if (copies && (data & pitch) != pitch)
		return BAD("dword %zu: LAUNCH_DMA 0x%08" PRIx32 " moves data without both SRC_PITCH and DST_PITCH",
			   at, data);
	if ((data & TGPU_CE_LAUNCH_LINKED_LIST) &&
	    (data & (TGPU_CE_LAUNCH_MULTI_LINE | TGPU_CE_LAUNCH_REMAP)))
		return BAD("dword %zu: LAUNCH_DMA 0x%08" PRIx32 ": LINKED_LIST with MULTI_LINE or REMAP",
			   at, data);
	if ((data & TGPU_CE_LAUNCH_LINKED_LIST) && st->set[V_DESC_LO] && st->v[V_DESC_LO] % 32)
		return BAD("dword %zu: DESC_LIST_LOWER 0x%08" PRIx32 ": descriptors are 32-byte aligned",
			   at, st->v[V_DESC_LO]);
	if (copies && (data & TGPU_CE_LAUNCH_REMAP) && st->set[V_REMAP]) {
		uint32_t r = st->v[V_REMAP];
		uint32_t nsrc = ((r >> TGPU_CE_REMAP_NUM_SRC_SHIFT) & 3) + 1;
		uint32_t ndst = ((r >> TGPU_CE_REMAP_NUM_DST_SHIFT) & 3) + 1;
		uint32_t c;

		if (r & ~TGPU_CE_REMAP_VALID_MASK)
			return BAD("dword %zu: SET_REMAP_COMPONENTS 0x%08" PRIx32 " sets reserved bits",
				   at, r);
		for (c = 0; c < ndst; c++) {
			uint32_t sel = (r >> TGPU_CE_REMAP_DST_SHIFT(c)) & TGPU_CE_REMAP_SEL_MASK;

			if (sel > TGPU_CE_REMAP_NO_WRITE ||
			    (sel <= TGPU_CE_REMAP_SRC_W && sel >= nsrc))
				return BAD("dword %zu: SET_REMAP_COMPONENTS 0x%08" PRIx32 ": component %" PRIu32 " selects %" PRIu32 ", which does not exist",
					   at, r, c, sel);
		}
	}
	return check_launch_sem(at, data, st);
}

/* What the compute engine's launch check refuses (docs/hw/isa.md). */
static tgpu_status check_compute_launch(size_t at, uint32_t data,
					const struct cb_state *st)
{
	uint64_t threads = 1;
	int i;

	if ((data & ~TGPU_GR_LAUNCH_VALID_MASK) || (data & 7) || !launch_fields_ok(data))
		return BAD("dword %zu: compute LAUNCH 0x%08" PRIx32 " sets bits the compute engine does not accept",
			   at, data);
	for (i = 0; i < 3; i++) {
		if (st->set[V_GRID_X + i] &&
		    (!st->v[V_GRID_X + i] || st->v[V_GRID_X + i] > TGPU_GR_GRID_MAX))
			return BAD("dword %zu: launch with a grid dimension of %" PRIu32 " (1..%d)",
				   at, st->v[V_GRID_X + i], TGPU_GR_GRID_MAX);
		if (st->set[V_BLOCK_X + i] && !st->v[V_BLOCK_X + i])
			return BAD("dword %zu: launch with a block dimension of 0", at);
		threads *= st->set[V_BLOCK_X + i] ? st->v[V_BLOCK_X + i] : 1;
	}
	if (st->set[V_BLOCK_X] && st->set[V_BLOCK_Y] && st->set[V_BLOCK_Z] &&
	    threads > TGPU_GR_BLOCK_MAX)
		return BAD("dword %zu: launch with %" PRIu64 " threads per block, at most %d",
			   at, threads, TGPU_GR_BLOCK_MAX);
	if (st->set[V_PROG_LO] && st->v[V_PROG_LO] % 8)
		return BAD("dword %zu: SET_PROGRAM_LOWER 0x%08" PRIx32 " is not 8-byte aligned",
			   at, st->v[V_PROG_LO]);
	if (st->set[V_PROG_SIZE] && (!st->v[V_PROG_SIZE] || st->v[V_PROG_SIZE] % 8 ||
				     st->v[V_PROG_SIZE] > TGPU_GR_PROGRAM_MAX))
		return BAD("dword %zu: SET_PROGRAM_SIZE %" PRIu32 " is not a multiple of 8 from 8 to %u",
			   at, st->v[V_PROG_SIZE], TGPU_GR_PROGRAM_MAX);
	if (st->set[V_SHARED] && st->v[V_SHARED] > TGPU_GR_SHARED_MAX)
		return BAD("dword %zu: %" PRIu32 " bytes of shared memory, at most %u",
			   at, st->v[V_SHARED], TGPU_GR_SHARED_MAX);
	if (st->set[V_PARAM_SIZE] && (st->v[V_PARAM_SIZE] % 4 ||
				      st->v[V_PARAM_SIZE] > TGPU_GR_PARAM_MAX))
		return BAD("dword %zu: SET_PARAM_SIZE %" PRIu32 " is not a multiple of 4 up to %d",
			   at, st->v[V_PARAM_SIZE], TGPU_GR_PARAM_MAX);
	return check_launch_sem(at, data, st);
}

/* One method with its data, at dword index at. */
static tgpu_status check_method(size_t at, uint32_t subch, uint32_t m,
				uint32_t data, enum tgpu_engine engine,
				uint32_t cls[8], struct cb_state *st)
{
	if (m < TGPU_HOST_METHOD_LIMIT) {
		if (!tgpu_host_method_name(m))
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
			/* bits 1:0 are not part of the address */
			cb_set(st, V_SEM_LO, data & ~3u);
			break;
		case TGPU_M_SEM_EXECUTE: {
			uint32_t align = data & TGPU_SEM_TIMESTAMP ? 16 :
					 data & TGPU_SEM_PAYLOAD_64 ? 8 : 4;

			if ((data & TGPU_SEM_OP_MASK) > TGPU_SEM_OP_ACQ_GEQ)
				return BAD("dword %zu: SEM_EXECUTE operation %" PRIu32 " does not exist (0 acquire, 1 release, 2 acquire >=)",
					   at, data & TGPU_SEM_OP_MASK);
			if (st->set[V_SEM_LO] && st->v[V_SEM_LO] % align)
				return BAD("dword %zu: the semaphore at ...%08" PRIx32 " is not %" PRIu32 "-byte aligned, as this SEM_EXECUTE needs",
					   at, st->v[V_SEM_LO], align);
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
		if (!tgpu_ce_method_name(m))
			return BAD("dword %zu: 0x%03" PRIx32 " is not a method of the copy class (docs/hw/copy.md)",
				   at, m);
		if (m == TGPU_CE_M_LAUNCH_DMA)
			return check_copy_launch(at, data, st);
	} else {
		if (!tgpu_gr_method_name(m))
			return BAD("dword %zu: 0x%03" PRIx32 " is not a method of the compute class (docs/hw/isa.md)",
				   at, m);
		if (m == TGPU_GR_M_LAUNCH)
			return check_compute_launch(at, data, st);
	}
	note_value(cls[subch], m, data, st);
	return TGPU_SUCCESS;
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
