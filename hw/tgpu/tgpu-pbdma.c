/*
 * tgpu PBDMA: a channel's command stream -- GPFIFO entries, pushbuffer
 * method headers, host methods and semaphores -- and the hand-off of
 * class methods to the channel's engine
 *
 * docs/hw/channels.md is the manual.  The host unit's scheduler
 * (tgpu-host.c) picks a channel and runs it here (tgpu_pbdma_run()) for
 * its timeslice, within the pass's budget.  Every address comes from the
 * guest and goes through the channel's VM (tgpu_gpu_rw()); a fault or
 * a malformed word stops the channel with its error.
 *
 * Copyright (c) 2026 The tgpu authors
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */

#include "qemu/osdep.h"
#include "qemu/bswap.h"
#include "qemu/log.h"
#include "tgpu.h"
#include "trace.h"

/* What executing one pushbuffer dword ended with. */
typedef enum {
    TGPU_PB_OK,
    TGPU_PB_BLOCK,
    TGPU_PB_YIELD,
    TGPU_PB_ENGINE,     /* the engine works for the channel: it waits */
    TGPU_PB_ERROR,
} TGPUPbResult;

/* ---- semaphores ---- */

static uint64_t sem_addr(TGPUChannel *ch)
{
    return (uint64_t)(ch->sem_addr_hi & 0xff) << 32 | (ch->sem_addr_lo & ~3u);
}

/* Is the acquire in @exec satisfied?  false with *fault on a bad address. */
/*
 * A host read of @ch failed (tgpu_gpu_rw() gave R): an uncorrectable ECC
 * error, or else the fault CODE with INFO.
 */
static void read_fail(TGPUState *s, TGPUChannel *ch, MemTxResult r,
                      uint32_t code, uint32_t info)
{
    if (r == MEMTX_ERROR) {
        tgpu_chan_fail(s, ch, TGPU_ERR_ECC_UNCORRECTABLE,
                       TGPU_ECC_ENGINE_HOST);
    } else {
        tgpu_chan_fail(s, ch, code, info);
    }
}

static bool sem_acquire_done(TGPUState *s, TGPUChannel *ch, uint32_t exec,
                             MemTxResult *fault)
{
    bool is64 = exec & TGPU_SEM_PAYLOAD_64;
    uint64_t addr = sem_addr(ch);
    uint64_t want, have = 0;

    want = is64 ? (uint64_t)ch->sem_payload_hi << 32 | ch->sem_payload_lo
                : ch->sem_payload_lo;
    *fault = tgpu_gpu_rw(s, ch, TGPU_ACC_SEM, addr, &have, is64 ? 8 : 4,
                         false);
    if (*fault) {
        return false;
    }
    have = le64_to_cpu(have);
    if ((exec & TGPU_SEM_OP_MASK) == TGPU_SEM_OP_ACQUIRE ? have == want
                                                          : have >= want) {
        return true;
    }
    trace_tgpu_sem_acquire_wait(ch->id, addr, want, have);
    return false;
}

/*
 * Write a semaphore's payload (and the time at +8) as @ch; false when
 * that faults.  Whoever waits may go on.
 */
bool tgpu_sem_release(TGPUState *s, TGPUChannel *ch, uint64_t addr,
                      uint64_t payload, bool is64, bool timestamp)
{
    uint64_t le = cpu_to_le64(payload), ts;

    if (tgpu_gpu_rw(s, ch, TGPU_ACC_SEM, addr, &le, is64 ? 8 : 4, true)) {
        return false;
    }
    if (timestamp) {
        ts = cpu_to_le64(tgpu_ptimer_now(s));
        if (tgpu_gpu_rw(s, ch, TGPU_ACC_SEM, addr + 8, &ts, 8, true)) {
            return false;
        }
    }
    trace_tgpu_sem_release(ch->id, addr, payload);
    /*
     * Whoever waits may now go on, on any engine: another pass is needed
     * for runlists this one has already been through.
     */
    for (uint32_t i = 0; s->chans_blocked && i < s->num_channels; i++) {
        if (s->chan[i].blocked) {
            s->chan[i].acq_retry = true;
            tgpu_host_kick(s);
        }
    }
    return true;
}

/*
 * An engine's launch ended well: release its semaphore and raise its
 * interrupt, as the LAUNCH word's SEMAPHORE_TYPE and INTERRUPT_TYPE say.
 */
void tgpu_launch_done(TGPUState *s, TGPUChannel *ch, uint32_t launch,
                      uint64_t sem_addr, uint32_t payload)
{
    unsigned int sem = (launch >> TGPU_CE_LAUNCH_SEM_SHIFT) &
                       TGPU_CE_LAUNCH_SEM_MASK;
    unsigned int intr = (launch >> TGPU_CE_LAUNCH_INTR_SHIFT) &
                        TGPU_CE_LAUNCH_INTR_MASK;
    bool four = sem == TGPU_CE_SEM_FOUR_WORD;

    if (sem != TGPU_CE_SEM_NONE &&
        (sem_addr % (four ? 16 : 4) ||
         !tgpu_sem_release(s, ch, sem_addr, payload, four, four))) {
        tgpu_chan_fail(s, ch, TGPU_ERR_SEM_FAULT, (uint32_t)sem_addr);
        return;
    }
    if (intr != TGPU_CE_INTR_NONE) {
        tgpu_chan_nonstall(s, ch);
    }
}

static TGPUPbResult sem_execute(TGPUState *s, TGPUChannel *ch, uint32_t exec)
{
    uint32_t op = exec & TGPU_SEM_OP_MASK;
    bool is64 = exec & TGPU_SEM_PAYLOAD_64;
    uint64_t addr = sem_addr(ch);
    uint64_t align = (exec & TGPU_SEM_TIMESTAMP) ? 16 : is64 ? 8 : 4;
    uint64_t payload;
    MemTxResult fault;

    if (op != TGPU_SEM_OP_ACQUIRE && op != TGPU_SEM_OP_RELEASE &&
        op != TGPU_SEM_OP_ACQ_GEQ) {
        tgpu_chan_fail(s, ch, TGPU_ERR_SEM_INVALID_OP, exec);
        return TGPU_PB_ERROR;
    }
    if (addr % align) {
        tgpu_chan_fail(s, ch, TGPU_ERR_SEM_FAULT, (uint32_t)addr);
        return TGPU_PB_ERROR;
    }

    if (op == TGPU_SEM_OP_RELEASE) {
        payload = is64 ? (uint64_t)ch->sem_payload_hi << 32 |
                         ch->sem_payload_lo : ch->sem_payload_lo;
        if (!tgpu_sem_release(s, ch, addr, payload, is64,
                              exec & TGPU_SEM_TIMESTAMP)) {
            tgpu_chan_fail(s, ch, TGPU_ERR_SEM_FAULT, (uint32_t)addr);
            return TGPU_PB_ERROR;
        }
        return TGPU_PB_OK;
    }

    if (sem_acquire_done(s, ch, exec, &fault)) {
        return TGPU_PB_OK;
    }
    if (fault) {
        read_fail(s, ch, fault, TGPU_ERR_SEM_FAULT, (uint32_t)addr);
        return TGPU_PB_ERROR;
    }
    tgpu_chan_set_blocked(s, ch, true);
    ch->acq_exec = exec;
    ch->acq_start_ns = tgpu_ptimer_now(s);
    ch->acq_next_try_ns = ch->acq_start_ns + TGPU_ACQUIRE_POLL_NS;
    ch->acq_retry = false;
    return TGPU_PB_BLOCK;
}

/* A blocked channel's turn: true when it may run on. */
static bool acquire_retry(TGPUState *s, TGPUChannel *ch, int64_t now)
{
    MemTxResult fault;

    ch->acq_retry = false;
    if (sem_acquire_done(s, ch, ch->acq_exec, &fault)) {
        tgpu_chan_set_blocked(s, ch, false);
        return true;
    }
    if (fault) {
        read_fail(s, ch, fault, TGPU_ERR_SEM_FAULT, (uint32_t)sem_addr(ch));
    } else if (ch->acq_timeout_ns &&
               now - ch->acq_start_ns >= ch->acq_timeout_ns) {
        tgpu_chan_fail(s, ch, TGPU_ERR_ACQUIRE_TIMEOUT, (uint32_t)sem_addr(ch));
    } else {
        ch->acq_next_try_ns = now + TGPU_ACQUIRE_POLL_NS;
    }
    return false;
}

/*
 * Under the BQL, at a scheduler pass: every blocked channel a release
 * may have freed (acq_retry) checks its acquire now, not at its next
 * turn.  Without it a channel whose semaphore was released stays
 * BLOCKED for as long as higher priorities keep its engine (make check's
 * soak saw a user queue behind three priority workers declared hung,
 * blocked for 2 s on an acquire long satisfied); now it is PENDING, and
 * a watchdog sees its engine move.
 */
void tgpu_pbdma_recheck_acquires(TGPUState *s, int64_t now)
{
    for (uint32_t i = 0; s->chans_blocked && i < s->num_channels; i++) {
        TGPUChannel *ch = &s->chan[i];

        if (ch->blocked && ch->acq_retry && ch->enabled && !ch->error &&
            !ch->fetch_hung && !s->runlist_fetch_hung[ch->engine]) {
            acquire_retry(s, ch, now);
        }
    }
}

/* ---- methods ---- */

static bool class_fits_engine(TGPUState *s, TGPUChannel *ch, uint32_t cls)
{
    TGPUEngine *e = tgpu_chan_engine(s, ch);

    return e && cls == e->ops->cls;
}

/*
 * A MEM_OP TLB invalidation, all of an ASID or MEM_OP_B pages from
 * MEM_OP_A (0 pages: none): the channel's own ASID, or the one in
 * MEM_OP_C, which only the driver's privileged channel may name (it
 * orders an invalidation after its page-table writes); false if refused.
 */
static bool mem_op_invalidate(TGPUState *s, TGPUChannel *ch, uint32_t op)
{
    bool other = op == TGPU_MEM_OP_TLB_INVALIDATE_ASID ||
                 op == TGPU_MEM_OP_TLB_INVALIDATE_ASID_RANGE;
    bool range = op == TGPU_MEM_OP_TLB_INVALIDATE_RANGE ||
                 op == TGPU_MEM_OP_TLB_INVALIDATE_ASID_RANGE;
    uint32_t asid = other ? ch->mem_op_c : ch->asid;

    if (other && !(ch->flags & TGPU_INST_FLAGS_PRIV)) {
        return false;
    }
    if (!range) {
        tgpu_mmu_invalidate(s, asid, 0, 0);
    } else if (ch->mem_op_b) {
        tgpu_mmu_invalidate(s, asid, (uint64_t)ch->mem_op_a << 12,
                            ch->mem_op_b);
    }
    return true;
}

static TGPUPbResult host_method(TGPUState *s, TGPUChannel *ch, uint32_t subch,
                                uint32_t mthd, uint32_t data)
{
    uint32_t op;

    switch (mthd) {
    case TGPU_M_SET_OBJECT:
        if (!class_fits_engine(s, ch, data & 0xffff)) {
            tgpu_chan_fail(s, ch, TGPU_ERR_BAD_CLASS, data);
            return TGPU_PB_ERROR;
        }
        ch->subch_class[subch] = data & 0xffff;
        return TGPU_PB_OK;
    case TGPU_M_NOP:
    case TGPU_M_WFI:
        return TGPU_PB_OK;
    case TGPU_M_NON_STALL_INTERRUPT:
        tgpu_chan_nonstall(s, ch);
        return TGPU_PB_OK;
    case TGPU_M_MEM_OP_A:
        ch->mem_op_a = data;
        return TGPU_PB_OK;
    case TGPU_M_MEM_OP_B:
        ch->mem_op_b = data;
        return TGPU_PB_OK;
    case TGPU_M_MEM_OP_C:
        ch->mem_op_c = data;
        return TGPU_PB_OK;
    case TGPU_M_MEM_OP_D:
        op = data >> TGPU_MEM_OP_SHIFT;
        switch (op) {
        case TGPU_MEM_OP_MEMBAR:
            return TGPU_PB_OK;
        case TGPU_MEM_OP_TLB_INVALIDATE:
        case TGPU_MEM_OP_TLB_INVALIDATE_RANGE:
        case TGPU_MEM_OP_TLB_INVALIDATE_ASID:
        case TGPU_MEM_OP_TLB_INVALIDATE_ASID_RANGE:
            if (mem_op_invalidate(s, ch, op)) {
                return TGPU_PB_OK;
            }
            break;
        }
        tgpu_chan_fail(s, ch, TGPU_ERR_MEM_OP, op);
        return TGPU_PB_ERROR;
    case TGPU_M_SEM_ADDR_LO:
        ch->sem_addr_lo = data;
        return TGPU_PB_OK;
    case TGPU_M_SEM_ADDR_HI:
        ch->sem_addr_hi = data;
        return TGPU_PB_OK;
    case TGPU_M_SEM_PAYLOAD_LO:
        ch->sem_payload_lo = data;
        return TGPU_PB_OK;
    case TGPU_M_SEM_PAYLOAD_HI:
        ch->sem_payload_hi = data;
        return TGPU_PB_OK;
    case TGPU_M_SEM_EXECUTE:
        return sem_execute(s, ch, data);
    case TGPU_M_YIELD:
        return TGPU_PB_YIELD;
    }
    /* tgpu_host_method_name() knows every method handled above */
    tgpu_chan_fail(s, ch, TGPU_ERR_ILLEGAL_METHOD, subch << 16 | mthd);
    return TGPU_PB_ERROR;
}

static const char *method_name(TGPUState *s, TGPUChannel *ch, uint32_t mthd)
{
    TGPUEngine *e = tgpu_chan_engine(s, ch);
    const char *name = mthd < TGPU_HOST_METHOD_LIMIT ?
                       tgpu_host_method_name(mthd) :
                       e ? e->ops->method_name(mthd) : NULL;

    return name ? name : "?";
}

static TGPUPbResult method_exec(TGPUState *s, TGPUChannel *ch,
                                uint32_t subch, uint32_t mthd, uint32_t data)
{
    uint32_t cls = ch->subch_class[subch];
    TGPUEngine *e;

    if (trace_event_get_state_backends(TRACE_TGPU_METHOD)) {
        trace_tgpu_method(ch->id, subch, mthd, method_name(s, ch, mthd),
                          data);
    }
    if (tgpu_fault_hits(s, TGPU_FAULT_ACTIVE_ILLEGAL, ch->id)) {
        /* an injected illegal-method: refused as an unknown one */
        tgpu_chan_fail(s, ch, TGPU_ERR_ILLEGAL_METHOD, subch << 16 | mthd);
        return TGPU_PB_ERROR;
    }
    if (mthd < TGPU_HOST_METHOD_LIMIT) {
        return host_method(s, ch, subch, mthd, data);
    }
    if (!cls) {
        tgpu_chan_fail(s, ch, TGPU_ERR_ILLEGAL_SUBCH, subch << 16 | mthd);
        return TGPU_PB_ERROR;
    }
    /*
     * SET_OBJECT bound only the class of the channel's engine, but a
     * channel re-enabled onto another runlist keeps its subchannels.
     */
    e = tgpu_chan_engine(s, ch);
    if (!e || cls != e->ops->cls) {
        tgpu_chan_fail(s, ch, TGPU_ERR_BAD_CLASS, cls);
        return TGPU_PB_ERROR;
    }
    if (!e->ops->method_name(mthd)) {
        /* not a method of the class: the engine's error, as it reports */
        qemu_log_mask(LOG_GUEST_ERROR, "tgpu: channel %u: method 0x%03x is "
                      "not one of class 0x%04x\n", ch->id, mthd, cls);
        tgpu_chan_fail(s, ch, TGPU_ERR_ENGINE, cls << 16 | mthd);
        return TGPU_PB_ERROR;
    }
    switch (e->ops->method(e, ch, mthd, data)) {
    case TGPU_MTHD_OK:
        return TGPU_PB_OK;
    case TGPU_MTHD_LAUNCHED:
        return TGPU_PB_ENGINE;
    default:
        return TGPU_PB_ERROR;
    }
}

/* One method, and what the host unit counts of it. */
static TGPUPbResult method(TGPUState *s, TGPUChannel *ch, uint32_t subch,
                           uint32_t mthd, uint32_t data)
{
    TGPUPbResult r = method_exec(s, ch, subch, mthd, data);

    s->host_progress++;
    tgpu_fault_count(s, TGPU_TRIGGER_EVENT_METHODS, ch->id);
    return r;
}

/* ---- GPFIFO and pushbuffer ---- */

/* Take the next GPFIFO entry; false when the channel stopped. */
static bool gpfifo_fetch(TGPUState *s, TGPUChannel *ch)
{
    uint32_t entry[2], put, get = ch->gp_get, len;
    MemTxResult r;
    uint64_t va;

    if (ch->gp_put_dirty) {
        ch->gp_put_dirty = false;
        r = tgpu_gpu_rw(s, ch, TGPU_ACC_FETCH, ch->userd + TGPU_USERD_GP_PUT,
                        &put, sizeof(put), false);
        if (r) {
            read_fail(s, ch, r, TGPU_ERR_USERD_FAULT, (uint32_t)ch->userd);
            return false;
        }
        put = le32_to_cpu(put);
        if (put >= ch->gpfifo_entries) {
            tgpu_chan_fail(s, ch, TGPU_ERR_GP_PUT_INVALID, put);
            return false;
        }
        ch->gp_put = put;
    }
    if (get == ch->gp_put) {
        return false;
    }

    r = tgpu_gpu_rw(s, ch, TGPU_ACC_FETCH,
                    ch->gpfifo_base + (uint64_t)get * 8, entry,
                    sizeof(entry), false);
    if (r) {
        read_fail(s, ch, r, TGPU_ERR_GPFIFO_FAULT, get);
        return false;
    }
    entry[0] = le32_to_cpu(entry[0]);
    entry[1] = le32_to_cpu(entry[1]);
    len = (entry[1] >> TGPU_GP_ENTRY1_LENGTH_SHIFT) &
          TGPU_GP_ENTRY1_LENGTH_MASK;
    if ((entry[0] & ~TGPU_GP_ENTRY0_ADDR_MASK) ||
        (entry[1] & TGPU_GP_ENTRY1_RSVD_MASK) ||
        (!len && (entry[1] & TGPU_GP_ENTRY1_ADDR_HI_MASK) !=
                 TGPU_GP_CONTROL_NOP)) {
        tgpu_chan_fail(s, ch, TGPU_ERR_GPFIFO_ENTRY, get);
        return false;
    }
    va = (uint64_t)(entry[1] & TGPU_GP_ENTRY1_ADDR_HI_MASK) << 32 | entry[0];
    trace_tgpu_gpfifo_entry(ch->id, get, va, len);
    if (len) {
        ch->pb_cur = va;
        ch->pb_end = va + (uint64_t)len * 4;
        ch->pb_buf_len = 0;
    }

    s->host_progress++;
    ch->gp_get = (get + 1) & (ch->gpfifo_entries - 1);
    get = cpu_to_le32(ch->gp_get);
    if (tgpu_gpu_rw(s, ch, TGPU_ACC_FETCH, ch->userd + TGPU_USERD_GP_GET, &get,
                    sizeof(get), true)) {
        tgpu_chan_fail(s, ch, TGPU_ERR_USERD_FAULT, (uint32_t)ch->userd);
        return false;
    }
    return true;
}

/* Execute the next pushbuffer dword: a method header or method data. */
static TGPUPbResult pb_step(TGPUState *s, TGPUChannel *ch)
{
    uint32_t d, op, mthd;

    /*
     * Fetch ahead like a PBDMA, but never past the current 4 KiB page, so
     * an unmapped page faults only when the stream gets there.
     */
    if (ch->pb_cur < ch->pb_buf_va ||
        ch->pb_cur >= ch->pb_buf_va + ch->pb_buf_len * 4ull) {
        uint64_t page_end = (ch->pb_cur | (TGPU_PAGE_SIZE - 1)) + 1;
        uint64_t n = MIN(MIN(ch->pb_end, page_end) - ch->pb_cur,
                         sizeof(ch->pb_buf)) / 4;
        MemTxResult r;

        ch->pb_buf_len = 0;
        r = tgpu_gpu_rw(s, ch, TGPU_ACC_FETCH, ch->pb_cur, ch->pb_buf, n * 4,
                        false);
        if (r) {
            read_fail(s, ch, r, TGPU_ERR_PB_FAULT, (uint32_t)ch->pb_cur);
            return TGPU_PB_ERROR;
        }
        ch->pb_buf_va = ch->pb_cur;
        ch->pb_buf_len = n;
    }
    d = le32_to_cpu(ch->pb_buf[(ch->pb_cur - ch->pb_buf_va) / 4]);
    ch->pb_cur += 4;

    if (ch->mthd_count) {
        mthd = ch->mthd_addr;
        if (ch->mthd_op == TGPU_PB_OP_INC) {
            ch->mthd_addr = (ch->mthd_addr + 4) & (TGPU_PB_METHOD_MASK << 2);
        } else if (ch->mthd_op == TGPU_PB_OP_ONE_INC) {
            ch->mthd_addr = (ch->mthd_addr + 4) & (TGPU_PB_METHOD_MASK << 2);
            ch->mthd_op = TGPU_PB_OP_NON_INC;
        }
        ch->mthd_count--;
        return method(s, ch, ch->mthd_subch, mthd, d);
    }

    op = d >> TGPU_PB_OP_SHIFT;
    mthd = (d & TGPU_PB_METHOD_MASK) << 2;
    ch->mthd_subch = (d >> TGPU_PB_SUBCH_SHIFT) & TGPU_PB_SUBCH_MASK;
    switch (op) {
    case TGPU_PB_OP_INC:
    case TGPU_PB_OP_NON_INC:
    case TGPU_PB_OP_ONE_INC:
        ch->mthd_op = op;
        ch->mthd_addr = mthd;
        ch->mthd_count = (d >> TGPU_PB_COUNT_SHIFT) & TGPU_PB_COUNT_MASK;
        return TGPU_PB_OK;
    case TGPU_PB_OP_IMMD:
        return method(s, ch, ch->mthd_subch, mthd,
                      (d >> TGPU_PB_COUNT_SHIFT) & TGPU_PB_COUNT_MASK);
    }
    tgpu_chan_fail(s, ch, TGPU_ERR_PB_HEADER, d);
    return TGPU_PB_ERROR;
}

/* ---- running a channel ---- */

TGPURunResult tgpu_pbdma_run(TGPUState *s, TGPUChannel *ch, TGPURunlist *rl,
                             int *budget, int64_t now)
{
    TGPUEngine *e = tgpu_chan_engine(s, ch);
    TGPUPbResult mr;

    /* work the engine holds (a preempted kernel) goes on first */
    if (e->ops->resume && e->ops->resume(e, ch)) {
        (*budget)--;
        return TGPU_RUN_STOP;
    }
    if (ch->blocked) {
        (*budget)--;
        rl->slice_left_ns -= TGPU_HOST_DWORD_COST_NS;
        if (!acquire_retry(s, ch, now)) {
            return TGPU_RUN_STOP;
        }
    }
    for (;;) {
        if (!ch->enabled || ch->error) {
            return TGPU_RUN_STOP;
        }
        /* a fault a method of this pass fired stops the fetch at once */
        if (ch->fetch_hung || s->host_hung ||
            s->runlist_fetch_hung[ch->engine] || qatomic_read(&s->bus_lost)) {
            return TGPU_RUN_STOP;
        }
        if (rl->slice_left_ns <= 0) {
            return TGPU_RUN_SLICE;
        }
        if (*budget <= 0) {
            return TGPU_RUN_BUDGET;
        }
        (*budget)--;
        rl->slice_left_ns -= TGPU_HOST_DWORD_COST_NS;

        if (ch->pb_cur >= ch->pb_end) {
            if (!gpfifo_fetch(s, ch)) {
                return TGPU_RUN_STOP;
            }
            continue;
        }
        mr = pb_step(s, ch);
        if (mr == TGPU_PB_BLOCK || mr == TGPU_PB_ENGINE ||
            mr == TGPU_PB_ERROR) {
            return TGPU_RUN_STOP;
        }
        if (mr == TGPU_PB_YIELD) {
            return TGPU_RUN_SLICE;
        }
    }
}
