/*
 * tgpu host unit: channels, doorbells, runlists and the scheduler
 * (PFIFO); tgpu-pbdma.c runs each channel's command stream
 *
 * docs/hw/channels.md is the manual.  Everything here is fed by the
 * guest: every index, length and address is checked before use, and a
 * scheduler pass does a bounded amount of work (TGPU_HOST_BUDGET) before
 * it yields to the rest of QEMU.
 *
 * Copyright (c) 2026 The tgpu authors
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */

#include "qemu/osdep.h"
#include "qemu/bswap.h"
#include "qemu/log.h"
#include "qemu/main-loop.h"
#include "qemu/error-report.h"
#include "migration/vmstate.h"
#include "tgpu.h"
#include "trace.h"




/* Does the engine hold work of the channel's between its turns? */
static bool chan_engine_holds(TGPUState *s, TGPUChannel *ch)
{
    TGPUEngine *e = tgpu_chan_engine(s, ch);

    return e && e->ops->holds && e->ops->holds(e, ch);
}

static bool chan_has_work(TGPUState *s, TGPUChannel *ch)
{
    return ch->gp_put_dirty || ch->gp_get != ch->gp_put ||
           ch->pb_cur < ch->pb_end || chan_engine_holds(s, ch);
}

static bool chan_on_runlist(TGPUState *s, TGPUChannel *ch)
{
    for (int r = 0; r < TGPU_NR_RUNLISTS; r++) {
        for (uint32_t i = 0; i < s->runlist[r].count; i++) {
            if (s->runlist[r].chid[i] == ch->id) {
                return true;
            }
        }
    }
    return false;
}

/* Is runlist @r's engine working (its channel waits for it)? */
static bool engine_busy(TGPUState *s, unsigned int r)
{
    return tgpu_engine_busy(s->engine[r]);
}

uint32_t tgpu_chan_state(TGPUState *s, TGPUChannel *ch)
{
    if (ch->error) {
        return TGPU_CHAN_STATE_ERROR;
    }
    if (!ch->enabled) {
        return TGPU_CHAN_STATE_DISABLED;
    }
    if (ch->blocked) {
        return TGPU_CHAN_STATE_BLOCKED;
    }
    if (ch->engine_wait) {
        return TGPU_CHAN_STATE_RUNNING;
    }
    if (!chan_has_work(s, ch)) {
        return TGPU_CHAN_STATE_IDLE;
    }
    if (ch->engine < TGPU_NR_RUNLISTS &&
        s->runlist[ch->engine].resident == (int)ch->id) {
        return TGPU_CHAN_STATE_RUNNING;
    }
    return TGPU_CHAN_STATE_PENDING;
}

static void host_kick(TGPUState *s)
{
    tgpu_defer_schedule(&s->host_defer);
}

void tgpu_host_kick(TGPUState *s)
{
    host_kick(s);
}

/* Work of the channel's is on its engine, or held by it: drop it. */
static void chan_stop_engines(TGPUState *s, TGPUChannel *ch)
{
    TGPUEngine *e = tgpu_chan_engine(s, ch);

    if (e && (ch->engine_wait || chan_engine_holds(s, ch))) {
        tgpu_engine_cancel_chan(e, ch);
    }
}

/* Keeps the count that spares a semaphore release its scan when none wait. */
static void chan_set_blocked(TGPUState *s, TGPUChannel *ch, bool blocked)
{
    if (ch->blocked != blocked) {
        ch->blocked = blocked;
        s->chans_blocked += blocked ? 1 : -1;
    }
}

static void runlists_forget(TGPUState *s, TGPUChannel *ch)
{
    for (int r = 0; r < TGPU_NR_RUNLISTS; r++) {
        if (s->runlist[r].resident == (int)ch->id) {
            s->runlist[r].resident = -1;
        }
    }
}

/* The channel stops with @code; the driver hears of it on vector 0. */
static void chan_fail(TGPUState *s, TGPUChannel *ch, uint32_t code,
                      uint32_t info)
{
    chan_stop_engines(s, ch);
    ch->error = code;
    ch->error_info = info;
    chan_set_blocked(s, ch, false);
    runlists_forget(s, ch);
    qemu_log_mask(LOG_GUEST_ERROR,
                  "tgpu: channel %u: error %u (%s), info 0x%08x\n",
                  ch->id, code, tgpu_chan_error_name(code), info);
    trace_tgpu_chan_error(ch->id, tgpu_chan_error_name(code), info);
    tgpu_qmp_chan_error_event(s, ch->id, code, info);
    if (code == TGPU_ERR_KILLED) {
        return;
    }
    s->err_pending[ch->id / 32] |= 1u << (ch->id % 32);
    tgpu_irq_raise(s, TGPU_UNIT_FIFO);
}

void tgpu_chan_fail(TGPUState *s, TGPUChannel *ch, uint32_t code,
                    uint32_t info)
{
    chan_fail(s, ch, code, info);
}

void tgpu_chan_set_blocked(TGPUState *s, TGPUChannel *ch, bool blocked)
{
    chan_set_blocked(s, ch, blocked);
}

/* A fence or a NON_STALL_INTERRUPT: vector 1, and which channel it was. */
void tgpu_chan_nonstall(TGPUState *s, TGPUChannel *ch)
{
    s->nonstall_pending[ch->id / 32] |= 1u << (ch->id % 32);
    s->nonstall_intr |= TGPU_FIFO_NONSTALL_INTR_PENDING;
    tgpu_irq_raise(s, TGPU_UNIT_NONSTALL);
}

static void chan_reset(TGPUState *s, TGPUChannel *ch)
{
    uint32_t id = ch->id;

    chan_stop_engines(s, ch);
    runlists_forget(s, ch);
    for (int r = 0; r < TGPU_NR_RUNLISTS; r++) {
        if (s->runlist[r].last == (int)id) {
            s->runlist[r].last = -1;
        }
    }
    s->err_pending[id / 32] &= ~(1u << (id % 32));
    chan_set_blocked(s, ch, false);
    memset(ch, 0, sizeof(*ch));
    ch->id = id;
}

/*
 * Read and check the instance block; on failure, which field is bad.
 * *ecc is set for an uncorrectable ECC error in it.
 */
static bool chan_load_instance(TGPUState *s, TGPUChannel *ch, uint32_t *bad,
                               bool *ecc)
{
    uint64_t ib = (uint64_t)ch->inst << 12;
    uint8_t f[TGPU_INST_FIELDS_SIZE];
    uint32_t log2, ts_us, acq_us;
    MemTxResult r;

    *ecc = false;
    r = tgpu_vram_read(s, ib, f, sizeof(f), TGPU_ECC_ENGINE_HOST, ch->id);
    if (r != MEMTX_OK || s->vram_size - ib < TGPU_INST_SIZE) {
        *ecc = r == MEMTX_ERROR;
        *bad = *ecc ? TGPU_ECC_ENGINE_HOST : 0xffffffff;
        return false;
    }
    ch->flags = ldl_le_p(f + TGPU_INST_FLAGS);
    ch->asid = ldl_le_p(f + TGPU_INST_ASID);
    ch->pdb = ldq_le_p(f + TGPU_INST_PDB);
    ch->gpfifo_base = ldq_le_p(f + TGPU_INST_GPFIFO_BASE);
    log2 = ldl_le_p(f + TGPU_INST_GPFIFO_LOG2);
    ch->engine = ldl_le_p(f + TGPU_INST_ENGINE);
    ch->userd = ldq_le_p(f + TGPU_INST_USERD);
    ch->priority = ldl_le_p(f + TGPU_INST_PRIORITY);
    ts_us = ldl_le_p(f + TGPU_INST_TIMESLICE_US);
    acq_us = ldl_le_p(f + TGPU_INST_ACQ_TIMEOUT_US);

    /* bypass reaches all memory: only the KMD's own channel may have it */
    if ((ch->flags & ~(TGPU_INST_FLAGS_PAGED | TGPU_INST_FLAGS_PRIV)) ||
        !(ch->flags & (TGPU_INST_FLAGS_PAGED | TGPU_INST_FLAGS_PRIV))) {
        *bad = TGPU_INST_FLAGS;
        return false;
    }
    if (ch->flags & TGPU_INST_FLAGS_PAGED) {
        if (ch->asid >= TGPU_ASID_COUNT) {
            *bad = TGPU_INST_ASID;
            return false;
        }
        if (ch->pdb % TGPU_PDB_ALIGN || ch->pdb > s->vram_size ||
            s->vram_size - ch->pdb < TGPU_PD1_ENTRIES * 8) {
            *bad = TGPU_INST_PDB;
            return false;
        }
    }
    if (log2 < TGPU_GPFIFO_LOG2_MIN || log2 > TGPU_GPFIFO_LOG2_MAX) {
        *bad = TGPU_INST_GPFIFO_LOG2;
        return false;
    }
    ch->gpfifo_entries = 1u << log2;
    if (ch->gpfifo_base % TGPU_GP_ENTRY_SIZE ||
        ch->gpfifo_base >= TGPU_VA_LIMIT ||
        TGPU_VA_LIMIT - ch->gpfifo_base <
        (uint64_t)ch->gpfifo_entries * TGPU_GP_ENTRY_SIZE) {
        *bad = TGPU_INST_GPFIFO_BASE;
        return false;
    }
    if (ch->engine >= TGPU_NR_RUNLISTS) {
        *bad = TGPU_INST_ENGINE;
        return false;
    }
    if (ch->userd % TGPU_USERD_ALIGN ||
        ch->userd > TGPU_VA_LIMIT - TGPU_USERD_SIZE) {
        *bad = TGPU_INST_USERD;
        return false;
    }
    if (ch->priority > TGPU_PRIORITY_MAX) {
        *bad = TGPU_INST_PRIORITY;
        return false;
    }
    if (ts_us > TGPU_TIMESLICE_MAX_US) {
        *bad = TGPU_INST_TIMESLICE_US;
        return false;
    }
    if (acq_us > TGPU_ACQ_TIMEOUT_MAX_US) {
        *bad = TGPU_INST_ACQ_TIMEOUT_US;
        return false;
    }
    ch->timeslice_ns = (int64_t)(ts_us ? ts_us : TGPU_TIMESLICE_DEFAULT_US)
                       * SCALE_US;
    ch->acq_timeout_ns = (int64_t)acq_us * SCALE_US;
    /* GP_PUT too: as GP_GET wrote it, it could never be met */
    ch->gp_get &= ch->gpfifo_entries - 1;
    ch->gp_put &= ch->gpfifo_entries - 1;
    return true;
}

static void chan_enable(TGPUState *s, TGPUChannel *ch)
{
    uint32_t bad;
    bool ecc;

    ch->enabled = true;
    if (tgpu_therm_halted(s)) {
        /* after a thermal shutdown nothing runs until a reset */
        chan_fail(s, ch, TGPU_ERR_THERMAL_SHUTDOWN, 0);
        return;
    }
    if (!chan_load_instance(s, ch, &bad, &ecc)) {
        chan_fail(s, ch, ecc ? TGPU_ERR_ECC_UNCORRECTABLE
                             : TGPU_ERR_INVALID_INSTANCE, bad);
        return;
    }
    trace_tgpu_chan_enable(ch->id, ch->engine, ch->priority,
                           ch->gpfifo_entries);
}

/* ---- the scheduler ---- */

static bool chan_runnable(TGPUState *s, TGPUChannel *ch, unsigned int r,
                          int64_t now)
{
    if (!ch->enabled || ch->error || ch->engine != r || ch->engine_wait ||
        ch->fetch_hung) {
        return false;
    }
    if (now < ch->hold_until_ns && chan_engine_holds(s, ch)) {
        return false;
    }
    if (ch->blocked) {
        return ch->acq_retry || now >= ch->acq_next_try_ns;
    }
    return chan_has_work(s, ch);
}

/* Highest priority first; equal priorities in runlist order from rr_next. */
static TGPUChannel *runlist_pick(TGPUState *s, unsigned int r, int64_t now)
{
    TGPURunlist *rl = &s->runlist[r];
    TGPUChannel *best = NULL;
    uint32_t best_pos = 0;

    if (rl->resident >= 0 &&
        chan_runnable(s, &s->chan[rl->resident], r, now) &&
        rl->slice_left_ns > 0) {
        return &s->chan[rl->resident];
    }
    for (uint32_t i = 0; i < rl->count; i++) {
        uint32_t pos = (rl->rr_next + i) % rl->count;
        TGPUChannel *ch = &s->chan[rl->chid[pos]];

        if (chan_runnable(s, ch, r, now) &&
            (!best || ch->priority > best->priority)) {
            best = ch;
            best_pos = pos;
        }
    }
    if (best) {
        rl->rr_next = (best_pos + 1) % rl->count;
    }
    return best;
}

/*
 * Runlist R's engine is busy: if another of its channels, of at least
 * the working one's priority, could run, the work gives way (copy
 * engines, docs/hw/copy.md), so that no channel holds the engine for as
 * long as its launch lasts.
 */
static void runlist_contend(TGPUState *s, unsigned int r, int64_t now)
{
    TGPUEngine *e = s->engine[r];
    TGPURunlist *rl = &s->runlist[r];
    TGPUChannel *cur;
    int owner;

    if (!e->ops->preempt) {
        return;
    }
    owner = tgpu_engine_owner(e);
    if (owner < 0) {
        return;
    }
    cur = &s->chan[owner];
    for (uint32_t i = 0; i < rl->count; i++) {
        TGPUChannel *ch = &s->chan[rl->chid[i]];

        if (ch != cur && ch->priority >= cur->priority &&
            chan_runnable(s, ch, r, now)) {
            e->ops->preempt(e);
            return;
        }
    }
}

/* One runlist's share of a pass; true when it has more to do. */
static bool runlist_run(TGPUState *s, unsigned int r, int budget,
                        int64_t now)
{
    TGPURunlist *rl = &s->runlist[r];

    while (budget > 0) {
        TGPUChannel *ch;

        /* an injected hang of the host unit or of the runlist's fetch */
        if (s->host_hung || s->runlist_fetch_hung[r] || s->bus_lost) {
            return false;
        }
        /*
         * An engine at work keeps its channel until its launch or slice
         * ends, or a copy gives way to a waiting channel
         */
        if (engine_busy(s, r)) {
            runlist_contend(s, r, now);
            return false;
        }
        ch = runlist_pick(s, r, now);

        if (!ch) {
            rl->resident = -1;
            return false;
        }
        if (rl->resident != (int)ch->id) {
            if (rl->last != (int)ch->id) {
                s->ctxsw_count++;
                trace_tgpu_ctxsw(r, rl->last, ch->id);
                tgpu_mmu_context_switch(s);
            }
            rl->resident = ch->id;
            rl->last = ch->id;
            rl->slice_left_ns = ch->timeslice_ns;
        }
        switch (tgpu_pbdma_run(s, ch, rl, &budget, now)) {
        case TGPU_RUN_BUDGET:
            return true;
        case TGPU_RUN_SLICE:
            /* the next channel of its priority gets a turn */
            rl->resident = -1;
            rl->slice_left_ns = 0;
            break;
        case TGPU_RUN_STOP:
            rl->resident = -1;
            break;
        }
    }
    return true;
}

/*
 * The next acquire poll, if any channel can use one: a blocked channel
 * on its runlist whose engine is free (the engine's end and a runlist
 * submission kick the host unit anyway); or the end of a hold, for work
 * its engine keeps between turns.  A timer left armed would wake QEMU's
 * main loop for nothing: at every iteration when its time has passed,
 * and for ever under qtest, whose virtual clock stands.
 *
 * NOW is the time the pass judged the channels by, not the time now: a
 * hold that pass saw will end must get its timer even if it ended since
 * (it then fires at once).  Read again, the clock could have passed the
 * hold's end meanwhile (the thread descheduled on a busy host), and
 * nothing would ever run the rest of the kernel.
 */
static void host_arm_acquire_timer(TGPUState *s, int64_t now)
{
    int64_t next = INT64_MAX, hold = INT64_MAX;

    for (unsigned int r = 0; r < TGPU_NR_RUNLISTS; r++) {
        TGPURunlist *rl = &s->runlist[r];

        if (engine_busy(s, r)) {
            continue;
        }
        for (uint32_t i = 0; i < rl->count; i++) {
            TGPUChannel *ch = &s->chan[rl->chid[i]];

            if (ch->engine != r || !ch->enabled || ch->error) {
                continue;
            }
            if (ch->blocked) {
                next = MIN(next, ch->acq_next_try_ns);
            } else if (now < ch->hold_until_ns &&
                       chan_engine_holds(s, ch)) {
                hold = MIN(hold, ch->hold_until_ns);
            }
        }
    }
    if (next == INT64_MAX && hold == INT64_MAX) {
        timer_del(s->acquire_timer);
        return;
    }
    /* due but not retried (others of higher priority ran): the usual pace */
    if (next <= now) {
        next = now + TGPU_ACQUIRE_POLL_NS;
    }
    /* a hold ends exactly then: it is no poll */
    timer_mod_anticipate(s->acquire_timer, MIN(next, hold));
}

/*
 * A pass over the runlists.  Short engine work runs in it (run_here in
 * tgpu-engine.h), and work that ended ends at its end: then the channels
 * go on in a second pass, so that an empty launch or a small copy is
 * done by the time the doorbell's write returns.
 */
static void tgpu_host_bh(void *opaque)
{
    TGPUState *s = opaque;
    bool more = false;
    int64_t now = 0;

    for (int pass = 0; pass < 2; pass++) {
        bool ended = false;

        now = tgpu_ptimer_now(s);

        /* a pass asked for before this one starts is this one */
        if (!s->deterministic) {
            tgpu_defer_cancel(&s->host_defer);
        }
        if (!s->host_hung && !s->bus_lost) {
            tgpu_pbdma_recheck_acquires(s, now);
        }
        more = false;
        s->host_pass = true;
        for (unsigned int r = 0; r < TGPU_NR_RUNLISTS; r++) {
            more |= runlist_run(s, r, TGPU_HOST_BUDGET / TGPU_NR_RUNLISTS,
                                now);
        }
        s->host_pass = false;
        for (unsigned int r = 0; r < TGPU_NR_RUNLISTS; r++) {
            ended |= tgpu_engine_finish(s->engine[r]);
        }
        if (!ended) {
            break;
        }
    }
    if (more) {
        host_kick(s);
    }
    host_arm_acquire_timer(s, now);
}

static void tgpu_acquire_timer_cb(void *opaque)
{
    host_kick(opaque);
}

/* ---- runlists ---- */

static void runlist_submit(TGPUState *s, unsigned int r, uint32_t count)
{
    TGPURunlist *rl = &s->runlist[r];
    uint64_t base = (uint64_t)rl->base_hi << 32 | rl->base_lo;
    g_autofree uint32_t *ids = NULL;
    g_autofree unsigned long *seen = bitmap_new(s->num_channels);
    bool ok = count <= s->num_channels && base % TGPU_RUNLIST_ENTRY_SIZE == 0;

    if (ok && count) {
        ids = g_new(uint32_t, count);
        /* an uncorrectable error in the list refuses it, as a bad one */
        ok = tgpu_vram_read(s, base, ids, (uint64_t)count * 4,
                            TGPU_ECC_ENGINE_HOST, TGPU_ECC_NO_CHID) ==
             MEMTX_OK;
    }
    for (uint32_t i = 0; ok && i < count; i++) {
        uint32_t id = le32_to_cpu(ids[i]);

        if (id >= s->num_channels || test_bit(id, seen)) {
            ok = false;
            break;
        }
        set_bit(id, seen);
    }
    trace_tgpu_runlist_submit(r, count, ok);
    if (!ok) {
        qemu_log_mask(LOG_GUEST_ERROR,
                      "tgpu: runlist %u: %u entries at 0x%" PRIx64
                      " refused (count, alignment, VRAM range, channel ID "
                      "or duplicate); the previous runlist stays\n",
                      r, count, base);
        rl->status |= TGPU_RUNLIST_STATUS_ERROR;
        s->fifo_intr |= TGPU_FIFO_INTR_RUNLIST;
        tgpu_irq_raise(s, TGPU_UNIT_FIFO);
        return;
    }
    for (uint32_t i = 0; i < count; i++) {
        rl->chid[i] = le32_to_cpu(ids[i]);
    }
    rl->count = count;
    rl->status = count;
    rl->rr_next = 0;
    if (rl->resident >= 0 && !test_bit(rl->resident, seen)) {
        rl->resident = -1;
    }
    host_kick(s);
}

/* ---- engine reset ---- */

void tgpu_host_engine_reset(TGPUState *s, uint32_t engines)
{
    trace_tgpu_engine_reset(engines);
    /* an engine reset restarts the host unit's fetch, unless it is wedged */
    if (s->host_hung && s->host_hang != TGPU_HANG_KIND_WEDGE) {
        s->host_hung = false;
    }
    for (unsigned int r = 0; r < TGPU_NR_RUNLISTS; r++) {
        TGPUEngine *e = s->engine[r];
        TGPURunlist *rl = &s->runlist[r];
        TGPUChannel *ch;
        int owner;

        if (!(engines & e->engine_bit)) {
            continue;
        }
        s->runlist_fetch_hung[r] = false;
        for (uint32_t i = 0; i < s->num_channels; i++) {
            if (s->chan[i].engine == r) {
                s->chan[i].fetch_hung = false;
            }
        }
        owner = tgpu_engine_reset(e);
        if (owner >= 0 && !s->chan[owner].error) {
            chan_fail(s, &s->chan[owner], TGPU_ERR_ENGINE_RESET,
                      e->engine_bit);
        }
        if (rl->last < 0) {
            continue;
        }
        ch = &s->chan[rl->last];
        if (!ch->error && ch->enabled &&
            (ch->blocked || ch->engine_wait || chan_engine_holds(s, ch) ||
             ch->pb_cur < ch->pb_end || ch->mthd_count)) {
            chan_fail(s, ch, TGPU_ERR_ENGINE_RESET, e->engine_bit);
        }
        rl->resident = -1;
        rl->last = -1;
    }
    /* the engines are free: their other channels may run (or poll) again */
    host_kick(s);
}

/* ---- registers ---- */

uint32_t tgpu_fifo_intr_status(TGPUState *s)
{
    uint32_t st = s->fifo_intr & TGPU_FIFO_INTR_RUNLIST;

    for (unsigned int i = 0; i < ARRAY_SIZE(s->err_pending); i++) {
        if (s->err_pending[i]) {
            st |= TGPU_FIFO_INTR_CHAN_ERROR;
        }
    }
    return st;
}

static TGPUChannel *lowest_pending(TGPUState *s)
{
    for (unsigned int i = 0; i < ARRAY_SIZE(s->err_pending); i++) {
        if (s->err_pending[i]) {
            return &s->chan[i * 32 + ctz32(s->err_pending[i])];
        }
    }
    return NULL;
}

static TGPUChannel *chan_of(TGPUState *s, hwaddr addr, hwaddr *reg)
{
    uint64_t id = (addr - TGPU_CHAN_BASE) / TGPU_CHAN_STRIDE;

    if (addr < TGPU_CHAN_BASE || id >= s->num_channels) {
        return NULL;
    }
    *reg = (addr - TGPU_CHAN_BASE) % TGPU_CHAN_STRIDE;
    return &s->chan[id];
}

static uint32_t chan_read(TGPUState *s, TGPUChannel *ch, hwaddr reg, bool *ok)
{
    switch (reg) {
    case TGPU_CHAN_INST:
        return ch->inst;
    case TGPU_CHAN_CTRL:
        return ch->enabled ? TGPU_CHAN_CTRL_ENABLE : 0;
    case TGPU_CHAN_STATUS:
        return tgpu_chan_state(s, ch) |
               (chan_on_runlist(s, ch) ? TGPU_CHAN_STATUS_ON_RUNLIST : 0);
    case TGPU_CHAN_GP_GET:
        return ch->gp_get;
    case TGPU_CHAN_GP_PUT:
        return ch->gp_put;
    case TGPU_CHAN_PB_LO:
        return (uint32_t)ch->pb_cur;
    case TGPU_CHAN_PB_HI:
        return ch->pb_cur >> 32;
    case TGPU_CHAN_ERROR:
        return ch->error;
    case TGPU_CHAN_ERROR_INFO:
        return ch->error_info;
    case TGPU_CHAN_BUSY_NS_LO: {
        uint64_t ns = tgpu_engine_chan_busy_ns(ch);

        ch->busy_hi = ns >> 32;
        return (uint32_t)ns;
    }
    case TGPU_CHAN_BUSY_NS_HI:
        return ch->busy_hi;
    }
    *ok = false;
    return TGPU_REG_BADF;
}

/* Does a wedged engine hold the channel's work? */
static bool chan_wedged(TGPUState *s, TGPUChannel *ch)
{
    TGPUEngine *e = tgpu_chan_engine(s, ch);

    return e && tgpu_engine_wedged_on(e, ch->id);
}

static bool chan_write(TGPUState *s, TGPUChannel *ch, hwaddr reg,
                       uint32_t val)
{
    switch (reg) {
    case TGPU_CHAN_INST:
        ch->inst = val;
        return true;
    case TGPU_CHAN_GP_GET:
        /*
         * Where fetching starts, for a driver that restores a channel
         * after a reset: only while it is disabled, and it drops the
         * pushbuffer position.  GP_PUT follows, until a doorbell.
         */
        if (ch->enabled || ch->error) {
            qemu_log_mask(LOG_GUEST_ERROR,
                          "tgpu: channel %u: GP_GET written while %s: "
                          "ignored\n", ch->id,
                          ch->error ? "in error" : "enabled");
            trace_tgpu_chan_gp_get_ignored(ch->id, val);
            return true;
        }
        ch->gp_get = val;
        ch->gp_put = val;
        ch->pb_cur = 0;
        ch->pb_end = 0;
        ch->pb_buf_len = 0;
        ch->mthd_count = 0;
        return true;
    case TGPU_CHAN_CTRL:
        /*
         * A wedged engine holds on to its channel (tgpu_engine_hang): a
         * KILL or RESET of it does not take, nor the rest of the write.
         */
        if ((val & (TGPU_CHAN_CTRL_RESET | TGPU_CHAN_CTRL_KILL)) &&
            chan_wedged(s, ch)) {
            trace_tgpu_chan_kill_ignored(ch->id, tgpu_chan_engine(s, ch)->name);
            return true;
        }
        if (val & TGPU_CHAN_CTRL_RESET) {
            chan_reset(s, ch);
        }
        if ((val & TGPU_CHAN_CTRL_KILL) && !ch->error) {
            chan_fail(s, ch, TGPU_ERR_KILLED, 0);
        }
        if ((val & TGPU_CHAN_CTRL_ENABLE) && !ch->enabled && !ch->error) {
            chan_enable(s, ch);
        } else if (!(val & TGPU_CHAN_CTRL_ENABLE)) {
            chan_stop_engines(s, ch);
            ch->enabled = false;
            runlists_forget(s, ch);
        }
        host_kick(s);
        return true;
    }
    return false;
}

static void doorbell(TGPUState *s, uint32_t id)
{
    TGPUChannel *ch = id < s->num_channels ? &s->chan[id] : NULL;

    if (!ch || !ch->enabled || ch->error) {
        s->doorbells_bad++;
        qemu_log_mask(LOG_GUEST_ERROR,
                      "tgpu: doorbell for channel %u ignored: %s\n", id,
                      !ch ? "no such channel" :
                      ch->error ? "the channel is in error" :
                      "the channel is disabled");
        trace_tgpu_doorbell_bad(id);
        return;
    }
    if (tgpu_fault_hits(s, TGPU_FAULT_ACTIVE_DOORBELL, id)) {
        /* an injected doorbell-drop: as if it was never written */
        return;
    }
    s->doorbells++;
    trace_tgpu_doorbell(id);
    ch->gp_put_dirty = true;
    if (ch->blocked) {
        ch->acq_retry = true;
    }
    tgpu_fault_count(s, TGPU_TRIGGER_EVENT_DOORBELLS, id);
    /*
     * The host unit runs now, in the writer's thread (it holds the BQL,
     * as the bottom half would): a bottom half would first have to wake
     * the main loop, which costs more than a null job.  Bounded by the
     * budget as a bottom half's run is; the rest goes to one.  Not under
     * deterministic=on, whose order the virtual clock decides.
     */
    if (s->deterministic) {
        host_kick(s);
    } else {
        tgpu_host_bh(s);
    }
}

/* A runlist register: which runlist, and the register as of runlist 0. */
static TGPURunlist *runlist_of(TGPUState *s, hwaddr addr, hwaddr *reg)
{
    hwaddr r = (addr - TGPU_FIFO_RUNLIST_BASE_LO(0)) / 0x20;

    if (addr < TGPU_FIFO_RUNLIST_BASE_LO(0) || r >= TGPU_NR_RUNLISTS) {
        return NULL;
    }
    *reg = addr - TGPU_FIFO_RUNLIST_BASE_LO(r) + TGPU_FIFO_RUNLIST_BASE_LO(0);
    return &s->runlist[r];
}

/* A register of a channel bitmap at BASE (32 per register): index, or -1. */
static int chan_bitmap_of(TGPUState *s, hwaddr addr, hwaddr base)
{
    if (addr < base || addr >= base + 4 * DIV_ROUND_UP(s->num_channels, 32)) {
        return -1;
    }
    return (addr - base) / 4;
}

static int err_pending_of(TGPUState *s, hwaddr addr)
{
    return chan_bitmap_of(s, addr, TGPU_FIFO_ERR_PENDING(0));
}

uint32_t tgpu_host_read(TGPUState *s, hwaddr addr, bool *ok)
{
    TGPUChannel *ch;
    TGPURunlist *rl;
    hwaddr reg;
    int i;

    *ok = true;
    ch = chan_of(s, addr, &reg);
    if (ch) {
        return chan_read(s, ch, reg, ok);
    }
    rl = runlist_of(s, addr, &reg);
    if (rl) {
        switch (reg) {
        case TGPU_FIFO_RUNLIST_BASE_LO(0):
            return rl->base_lo;
        case TGPU_FIFO_RUNLIST_BASE_HI(0):
            return rl->base_hi;
        case TGPU_FIFO_RUNLIST_STATUS(0):
            return rl->status;
        }
    }
    i = err_pending_of(s, addr);
    if (i >= 0) {
        return s->err_pending[i];
    }
    i = chan_bitmap_of(s, addr, TGPU_FIFO_NONSTALL_PENDING(0));
    if (i >= 0) {
        return s->nonstall_pending[i];
    }
    switch (addr) {
    case TGPU_FIFO_INTR:
        return tgpu_fifo_intr_status(s);
    case TGPU_FIFO_INTR_EN:
        return s->fifo_intr_en;
    case TGPU_FIFO_ERR_CHID:
        ch = lowest_pending(s);
        return ch ? ch->id : 0xffffffff;
    case TGPU_FIFO_ERR_CODE:
        ch = lowest_pending(s);
        return ch ? ch->error : 0;
    case TGPU_FIFO_ERR_INFO:
        ch = lowest_pending(s);
        return ch ? ch->error_info : 0;
    case TGPU_FIFO_NONSTALL_INTR:
        return s->nonstall_intr;
    case TGPU_FIFO_NONSTALL_INTR_EN:
        return s->nonstall_intr_en;
    case TGPU_FIFO_DOORBELLS:
        return s->doorbells;
    case TGPU_FIFO_DOORBELLS_BAD:
        return s->doorbells_bad;
    case TGPU_FIFO_CTXSW_COUNT:
        return s->ctxsw_count;
    }
    *ok = false;
    return TGPU_REG_BADF;
}

bool tgpu_host_write(TGPUState *s, hwaddr addr, uint32_t val)
{
    TGPUChannel *ch;
    TGPURunlist *rl;
    hwaddr reg;
    int i;

    ch = chan_of(s, addr, &reg);
    if (ch) {
        return chan_write(s, ch, reg, val);
    }
    rl = runlist_of(s, addr, &reg);
    if (rl) {
        switch (reg) {
        case TGPU_FIFO_RUNLIST_BASE_LO(0):
            rl->base_lo = val;
            return true;
        case TGPU_FIFO_RUNLIST_BASE_HI(0):
            rl->base_hi = val;
            return true;
        case TGPU_FIFO_RUNLIST_SUBMIT(0):
            runlist_submit(s, rl - s->runlist, val);
            return true;
        }
        return false;
    }
    i = err_pending_of(s, addr);
    if (i >= 0) {
        s->err_pending[i] &= ~val;
        tgpu_irq_update(s);
        return true;
    }
    i = chan_bitmap_of(s, addr, TGPU_FIFO_NONSTALL_PENDING(0));
    if (i >= 0) {
        s->nonstall_pending[i] &= ~val;
        return true;
    }
    switch (addr) {
    case TGPU_USERMODE_DOORBELL:
        doorbell(s, val);
        return true;
    case TGPU_FIFO_INTR:
        s->fifo_intr &= ~(val & TGPU_FIFO_INTR_RUNLIST);
        tgpu_irq_update(s);
        return true;
    case TGPU_FIFO_INTR_EN:
        s->fifo_intr_en = val & (TGPU_FIFO_INTR_CHAN_ERROR |
                                 TGPU_FIFO_INTR_RUNLIST);
        tgpu_irq_update(s);
        return true;
    case TGPU_FIFO_NONSTALL_INTR:
        s->nonstall_intr &= ~(val & TGPU_FIFO_NONSTALL_INTR_PENDING);
        tgpu_irq_update(s);
        return true;
    case TGPU_FIFO_NONSTALL_INTR_EN:
        s->nonstall_intr_en = val & TGPU_FIFO_NONSTALL_INTR_PENDING;
        tgpu_irq_update(s);
        return true;
    }
    return false;
}

/* ---- migration ---- */

/* Are the fields an enable read from the instance block in range? */
static bool chan_loaded_valid(TGPUState *s, const TGPUChannel *ch)
{
    const uint32_t flags = TGPU_INST_FLAGS_PAGED | TGPU_INST_FLAGS_PRIV;
    uint32_t n = ch->gpfifo_entries;

    if ((ch->flags & ~flags) || !(ch->flags & flags) ||
        ch->engine >= TGPU_NR_RUNLISTS || ch->priority > TGPU_PRIORITY_MAX ||
        !is_power_of_2(n) || n < 1u << TGPU_GPFIFO_LOG2_MIN ||
        n > 1u << TGPU_GPFIFO_LOG2_MAX || ch->gp_get >= n ||
        ch->gp_put >= n ||
        ch->gpfifo_base % TGPU_GP_ENTRY_SIZE ||
        ch->gpfifo_base >= TGPU_VA_LIMIT ||
        TGPU_VA_LIMIT - ch->gpfifo_base < (uint64_t)n * TGPU_GP_ENTRY_SIZE ||
        ch->userd % TGPU_USERD_ALIGN ||
        ch->userd > TGPU_VA_LIMIT - TGPU_USERD_SIZE ||
        ch->timeslice_ns <= 0 ||
        ch->timeslice_ns > (int64_t)TGPU_TIMESLICE_MAX_US * SCALE_US ||
        ch->acq_timeout_ns < 0 ||
        ch->acq_timeout_ns > (int64_t)TGPU_ACQ_TIMEOUT_MAX_US * SCALE_US) {
        return false;
    }
    return !(ch->flags & TGPU_INST_FLAGS_PAGED) ||
           (ch->asid < TGPU_ASID_COUNT && !(ch->pdb % TGPU_PDB_ALIGN) &&
            ch->pdb <= s->vram_size &&
            s->vram_size - ch->pdb >= TGPU_PD1_ENTRIES * 8);
}

/*
 * A loaded channel must be one the device could have made itself: the
 * stream is input like any other, and nothing downstream checks again.
 */
static bool chan_post_load(TGPUState *s, TGPUChannel *ch, uint32_t id)
{
    /* pb_cur and pb_end are addresses, fetched through the MMU: any */
    if (ch->id != id || ch->pb_buf_len > ARRAY_SIZE(ch->pb_buf) ||
        ch->mthd_subch >= TGPU_PB_NR_SUBCH) {
        return false;
    }
    /* times of the virtual clock: none that a sum or difference overflows */
    if (!tgpu_mig_time_valid(ch->busy_since) ||
        !tgpu_mig_time_valid(ch->acq_start_ns) ||
        !tgpu_mig_time_valid(ch->acq_next_try_ns) ||
        !tgpu_mig_time_valid(ch->hold_until_ns)) {
        return false;
    }
    if (ch->enabled && !ch->error && !chan_loaded_valid(s, ch)) {
        return false;
    }
    /* engines and the host unit's hangs are re-established, not loaded */
    ch->engine_wait = false;
    ch->fetch_hung = false;
    ch->hang = TGPU_HANG_NONE;
    return true;
}

static int host_post_load(void *opaque, int version_id)
{
    TGPUState *s = opaque;
    uint32_t blocked = 0;

    for (uint32_t i = 0; i < s->num_channels; i++) {
        if (!chan_post_load(s, &s->chan[i], i)) {
            error_report("tgpu: migrated channel %u is out of range", i);
            return -EINVAL;
        }
        blocked += s->chan[i].blocked;
    }
    s->chans_blocked = blocked;
    for (int r = 0; r < TGPU_NR_RUNLISTS; r++) {
        TGPURunlist *rl = &s->runlist[r];
        g_autofree unsigned long *seen = bitmap_new(s->num_channels);

        if (rl->count > s->num_channels ||
            rl->resident < -1 || rl->resident >= (int)s->num_channels ||
            rl->last < -1 || rl->last >= (int)s->num_channels ||
            rl->rr_next > rl->count ||
            rl->slice_left_ns < -(int64_t)TGPU_TIMESLICE_MAX_US * SCALE_US ||
            rl->slice_left_ns > (int64_t)TGPU_TIMESLICE_MAX_US * SCALE_US) {
            error_report("tgpu: migrated runlist %d is out of range", r);
            return -EINVAL;
        }
        /* what runlist_submit() takes: each channel once */
        for (uint32_t i = 0; i < rl->count; i++) {
            if (rl->chid[i] >= s->num_channels ||
                test_and_set_bit(rl->chid[i], seen)) {
                error_report("tgpu: migrated runlist %d names channel %u "
                             "out of range or twice", r, rl->chid[i]);
                return -EINVAL;
            }
        }
    }
    /* no pending bit for a channel this device does not have */
    for (uint32_t i = s->num_channels; i < TGPU_CHANNELS_MAX; i++) {
        s->err_pending[i / 32] &= ~(1u << (i % 32));
        s->nonstall_pending[i / 32] &= ~(1u << (i % 32));
    }
    return 0;
}

static const VMStateDescription vmstate_channel = {
    .name = "tgpu/channel",
    .version_id = 1,
    .minimum_version_id = 1,
    .fields = (const VMStateField[]) {
        VMSTATE_UINT32(id, TGPUChannel),
        VMSTATE_UINT32(inst, TGPUChannel),
        VMSTATE_BOOL(enabled, TGPUChannel),
        VMSTATE_UINT32(error, TGPUChannel),
        VMSTATE_UINT32(error_info, TGPUChannel),
        VMSTATE_UINT64(busy_ns, TGPUChannel),
        VMSTATE_INT64(busy_since, TGPUChannel),
        VMSTATE_BOOL(busy_open, TGPUChannel),
        VMSTATE_UINT32(busy_hi, TGPUChannel),
        VMSTATE_UINT32(gp_get, TGPUChannel),
        VMSTATE_UINT32(gp_put, TGPUChannel),
        VMSTATE_BOOL(gp_put_dirty, TGPUChannel),
        VMSTATE_UINT32(flags, TGPUChannel),
        VMSTATE_UINT32(asid, TGPUChannel),
        VMSTATE_UINT64(pdb, TGPUChannel),
        VMSTATE_UINT64(gpfifo_base, TGPUChannel),
        VMSTATE_UINT32(gpfifo_entries, TGPUChannel),
        VMSTATE_UINT32(engine, TGPUChannel),
        VMSTATE_UINT64(userd, TGPUChannel),
        VMSTATE_UINT32(priority, TGPUChannel),
        VMSTATE_INT64(timeslice_ns, TGPUChannel),
        VMSTATE_INT64(acq_timeout_ns, TGPUChannel),
        VMSTATE_UINT64(pb_cur, TGPUChannel),
        VMSTATE_UINT64(pb_end, TGPUChannel),
        VMSTATE_UINT32_ARRAY(pb_buf, TGPUChannel, 64),
        VMSTATE_UINT64(pb_buf_va, TGPUChannel),
        VMSTATE_UINT32(pb_buf_len, TGPUChannel),
        VMSTATE_UINT32(mthd_op, TGPUChannel),
        VMSTATE_UINT32(mthd_addr, TGPUChannel),
        VMSTATE_UINT32(mthd_subch, TGPUChannel),
        VMSTATE_UINT32(mthd_count, TGPUChannel),
        VMSTATE_UINT16_ARRAY(subch_class, TGPUChannel, TGPU_PB_NR_SUBCH),
        VMSTATE_UINT32(sem_addr_lo, TGPUChannel),
        VMSTATE_UINT32(sem_addr_hi, TGPUChannel),
        VMSTATE_UINT32(sem_payload_lo, TGPUChannel),
        VMSTATE_UINT32(sem_payload_hi, TGPUChannel),
        VMSTATE_UINT32(mem_op_a, TGPUChannel),
        VMSTATE_UINT32(mem_op_b, TGPUChannel),
        VMSTATE_UINT32(mem_op_c, TGPUChannel),
        VMSTATE_BOOL(blocked, TGPUChannel),
        VMSTATE_UINT32(acq_exec, TGPUChannel),
        VMSTATE_INT64(acq_start_ns, TGPUChannel),
        VMSTATE_INT64(acq_next_try_ns, TGPUChannel),
        VMSTATE_INT64(hold_until_ns, TGPUChannel),
        VMSTATE_BOOL(acq_retry, TGPUChannel),
        VMSTATE_UINT32(ce_sem_a, TGPUChannel),
        VMSTATE_UINT32(ce_sem_b, TGPUChannel),
        VMSTATE_UINT32(ce_sem_payload, TGPUChannel),
        VMSTATE_UINT32(ce_in_upper, TGPUChannel),
        VMSTATE_UINT32(ce_in_lower, TGPUChannel),
        VMSTATE_UINT32(ce_out_upper, TGPUChannel),
        VMSTATE_UINT32(ce_out_lower, TGPUChannel),
        VMSTATE_UINT32(ce_pitch_in, TGPUChannel),
        VMSTATE_UINT32(ce_pitch_out, TGPUChannel),
        VMSTATE_UINT32(ce_line_length, TGPUChannel),
        VMSTATE_UINT32(ce_line_count, TGPUChannel),
        VMSTATE_UINT32(ce_desc_upper, TGPUChannel),
        VMSTATE_UINT32(ce_desc_lower, TGPUChannel),
        VMSTATE_UINT32(ce_const_a, TGPUChannel),
        VMSTATE_UINT32(ce_const_b, TGPUChannel),
        VMSTATE_UINT32(ce_remap, TGPUChannel),
        VMSTATE_UINT32(gr_prog_upper, TGPUChannel),
        VMSTATE_UINT32(gr_prog_lower, TGPUChannel),
        VMSTATE_UINT32(gr_prog_size, TGPUChannel),
        VMSTATE_UINT32_ARRAY(gr_grid, TGPUChannel, 3),
        VMSTATE_UINT32_ARRAY(gr_block, TGPUChannel, 3),
        VMSTATE_UINT32(gr_shared, TGPUChannel),
        VMSTATE_UINT32(gr_param_upper, TGPUChannel),
        VMSTATE_UINT32(gr_param_lower, TGPUChannel),
        VMSTATE_UINT32(gr_param_size, TGPUChannel),
        VMSTATE_UINT32(gr_sem_a, TGPUChannel),
        VMSTATE_UINT32(gr_sem_b, TGPUChannel),
        VMSTATE_UINT32(gr_sem_payload, TGPUChannel),
        VMSTATE_END_OF_LIST()
    },
    .subsections = (const VMStateDescription * const []) {
        &tgpu_vmstate_chan_kernel,
        &tgpu_vmstate_chan_copy,
        NULL
    },
};

static const VMStateDescription vmstate_runlist = {
    .name = "tgpu/runlist",
    .version_id = 1,
    .minimum_version_id = 1,
    .fields = (const VMStateField[]) {
        VMSTATE_UINT32(base_lo, TGPURunlist),
        VMSTATE_UINT32(base_hi, TGPURunlist),
        VMSTATE_UINT32(status, TGPURunlist),
        VMSTATE_UINT32(count, TGPURunlist),
        VMSTATE_UINT16_ARRAY(chid, TGPURunlist, TGPU_CHANNELS_MAX),
        VMSTATE_INT32(resident, TGPURunlist),
        VMSTATE_INT32(last, TGPURunlist),
        VMSTATE_UINT32(rr_next, TGPURunlist),
        VMSTATE_INT64(slice_left_ns, TGPURunlist),
        VMSTATE_END_OF_LIST()
    },
};

/* PFIFO: channels (a kernel in flight with its channel), runlists */
const VMStateDescription tgpu_vmstate_host = {
    .name = "tgpu/host",
    .version_id = 1,
    .minimum_version_id = 1,
    .post_load = host_post_load,
    .fields = (const VMStateField[]) {
        VMSTATE_UINT32_EQUAL(num_channels, TGPUState,
                             "the channels property must match"),
        VMSTATE_STRUCT_VARRAY_POINTER_UINT32(chan, TGPUState, num_channels,
                                             vmstate_channel, TGPUChannel),
        VMSTATE_STRUCT_ARRAY(runlist, TGPUState, TGPU_NR_RUNLISTS, 1,
                             vmstate_runlist, TGPURunlist),
        VMSTATE_UINT32(fifo_intr, TGPUState),
        VMSTATE_UINT32(fifo_intr_en, TGPUState),
        VMSTATE_UINT32(nonstall_intr, TGPUState),
        VMSTATE_UINT32(nonstall_intr_en, TGPUState),
        VMSTATE_UINT32(doorbells, TGPUState),
        VMSTATE_UINT32(doorbells_bad, TGPUState),
        VMSTATE_UINT32(ctxsw_count, TGPUState),
        VMSTATE_UINT32_ARRAY(err_pending, TGPUState, TGPU_CHANNELS_MAX / 32),
        VMSTATE_UINT32_ARRAY(nonstall_pending, TGPUState,
                             TGPU_CHANNELS_MAX / 32),
        VMSTATE_UINT64(host_progress, TGPUState),
        VMSTATE_TIMER_PTR(acquire_timer, TGPUState),
        VMSTATE_END_OF_LIST()
    },
};

/* ---- life cycle ---- */

void tgpu_host_reset(TGPUState *s)
{
    tgpu_defer_cancel(&s->host_defer);
    timer_del(s->acquire_timer);
    for (uint32_t i = 0; i < s->num_channels; i++) {
        memset(&s->chan[i], 0, sizeof(s->chan[i]));
        s->chan[i].id = i;
    }
    for (int r = 0; r < TGPU_NR_RUNLISTS; r++) {
        memset(&s->runlist[r], 0, sizeof(s->runlist[r]));
        s->runlist[r].resident = -1;
        s->runlist[r].last = -1;
    }
    s->fifo_intr = 0;
    s->fifo_intr_en = 0;
    s->nonstall_intr = 0;
    s->nonstall_intr_en = 0;
    s->doorbells = 0;
    s->doorbells_bad = 0;
    s->ctxsw_count = 0;
    s->chans_blocked = 0;
    s->host_hung = false;
    memset(s->runlist_fetch_hung, 0, sizeof(s->runlist_fetch_hung));
    s->host_progress = 0;
    memset(s->err_pending, 0, sizeof(s->err_pending));
    memset(s->nonstall_pending, 0, sizeof(s->nonstall_pending));
}

void tgpu_host_init(TGPUState *s)
{
    s->chan = g_new0(TGPUChannel, s->num_channels);
    tgpu_defer_init(s, &s->host_defer, tgpu_host_bh, s);
    s->acquire_timer = timer_new_ns(QEMU_CLOCK_VIRTUAL,
                                    tgpu_acquire_timer_cb, s);
    tgpu_host_reset(s);
}

void tgpu_host_exit(TGPUState *s)
{
    timer_free(s->acquire_timer);
    tgpu_defer_exit(&s->host_defer);
    g_free(s->chan);
}
