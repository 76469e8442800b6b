/*
 * tgpu engine object: the worker thread, its state machine, cancel,
 * quiesce, VM stop and the completion bottom half of every engine
 *
 * tgpu-engine.h says how the pieces fit.  Lock order: run_lock, then
 * the MMU's mmu_lock; e->lock is never held while either is taken.
 *
 * Copyright (c) 2026 The tgpu authors
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */

#include "qemu/osdep.h"
#include "qemu/lockable.h"
#include "qemu/main-loop.h"
#include "qemu/rcu.h"
#include "qemu/error-report.h"
#include "tgpu.h"

static void engine_update_stop(TGPUEngine *e)
{
    qatomic_set(&e->stop, e->abort || e->paused || e->quit);
}

/* Does an injected hang hold the work in hand?  Under e->lock. */
static bool engine_hung(TGPUEngine *e)
{
    /* DONE is past the last hold: the work is no longer the engine's */
    if (e->hang == TGPU_HANG_NONE ||
        (e->state != TGPU_ENGINE_QUEUED && e->state != TGPU_ENGINE_RUNNING) ||
        (e->hang_chid >= 0 && e->hang_chid != e->chid)) {
        return false;
    }
    /* a cancel ends a stall; a wedge ignores it */
    return e->hang == TGPU_HANG_WEDGE || !e->abort;
}

/* deterministic=on: the thread waits for a tick's grant.  Under e->lock. */
static bool engine_gated(TGPUEngine *e)
{
    return e->det && !e->grant && !e->abort;
}

/* ---- on the engine's thread -------------------------------------------- */

/*
 * Hold while the VM is stopped or a hang holds the work, and (GATE)
 * under deterministic=on until a tick lets the thread go.  Under e->lock.
 */
static void engine_hold(TGPUEngine *e, bool gate)
{
    while (!e->quit && ((e->paused && !e->abort) || engine_hung(e) ||
                        (gate && engine_gated(e)))) {
        e->parked = true;
        qemu_cond_broadcast(&e->idle);
        qemu_cond_wait(&e->wake, &e->lock);
    }
    e->parked = false;
}

/*
 * Between steps: publish the progress, hold while the VM is stopped or
 * the engine hangs, and tell whether to go on (false: the work was
 * cancelled).  A hung engine's progress stands still.
 */
bool tgpu_engine_checkpoint(TGPUEngine *e)
{
    tgpu_fuzz_dma_step();
    QEMU_LOCK_GUARD(&e->lock);
    if (!engine_hung(e)) {
        e->progress++;
    }
    if (e->grant) {
        e->grant--;
    }
    e->ops->publish(e, false, false);
    e->at = TGPU_ENGINE_AT_STEP;
    engine_hold(e, true);
    return !e->abort && !e->quit;
}

static void *engine_thread(void *opaque)
{
    TGPUEngine *e = opaque;

    rcu_register_thread();
    qemu_mutex_lock(&e->lock);
    for (;;) {
        bool cancelled;

        while (!e->quit && (e->state != TGPU_ENGINE_QUEUED || e->paused)) {
            qemu_cond_wait(&e->wake, &e->lock);
        }
        if (e->quit) {
            break;
        }
        e->state = TGPU_ENGINE_RUNNING;
        /* a hang takes the work as it starts, and again as it ends */
        e->at = TGPU_ENGINE_AT_START;
        engine_hold(e, true);
        qemu_mutex_unlock(&e->lock);

        tgpu_fuzz_dma_step();
        e->ops->run(e);

        qemu_mutex_lock(&e->lock);
        e->at = TGPU_ENGINE_AT_END;
        engine_hold(e, false);
        e->progress++;
        cancelled = e->abort || e->quit;
        e->ops->publish(e, true, cancelled);
        if (cancelled) {
            e->state = TGPU_ENGINE_IDLE;
        } else {
            e->state = TGPU_ENGINE_DONE;
            tgpu_defer_schedule(&e->done);
        }
        qemu_cond_broadcast(&e->idle);
    }
    qemu_mutex_unlock(&e->lock);
    rcu_unregister_thread();
    return NULL;
}

/* ---- under the BQL ------------------------------------------------------ */

/* CH's work is off the engine: the time since BUSY_SINCE goes to it. */
static void engine_busy_close(TGPUChannel *ch)
{
    if (ch->busy_open && !ch->engine_wait) {
        ch->busy_ns += qemu_clock_get_ns(QEMU_CLOCK_VIRTUAL) - ch->busy_since;
        ch->busy_open = false;
    }
}

/*
 * CHAN_BUSY_NS: a channel has the engine from the queue of its work until
 * the work leaves it, or another channel's work is queued: a kernel
 * between slices keeps it for the modelled rest of its slice, as
 * THERM_BUSY_NS counts it, but not while another channel runs.
 */
void tgpu_engine_chan_settle(TGPUEngine *e, TGPUChannel *ch)
{
    if (!(e->ops->holds && e->ops->holds(e, ch))) {
        engine_busy_close(ch);
    }
}

/**
 * tgpu_engine_chan_busy_ns: the virtual time channel CH's work had the
 * engine, counting the work on it now.
 */
uint64_t tgpu_engine_chan_busy_ns(TGPUChannel *ch)
{
    if (!ch->busy_open) {
        return ch->busy_ns;
    }
    return ch->busy_ns + qemu_clock_get_ns(QEMU_CLOCK_VIRTUAL) -
           ch->busy_since;
}

static void engine_done_bh(void *opaque)
{
    TGPUEngine *e = opaque;
    TGPUChannel *ch;

    WITH_QEMU_LOCK_GUARD(&e->lock) {
        if (e->state != TGPU_ENGINE_DONE) {
            return;
        }
        /* the thread leaves the work alone until the next queue */
        e->state = TGPU_ENGINE_IDLE;
    }
    ch = &e->s->chan[e->chid];
    ch->engine_wait = false;
    /* a kernel's next slice may be queued here */
    e->ops->done(e);
    tgpu_engine_chan_settle(e, ch);
}

/*
 * deterministic=on: let the thread pass TGPU_DET_GRANT checkpoints while
 * the main loop waits, so that nothing else moves meanwhile; again a
 * tick later while it has work it can go on with.
 */
static void engine_tick(void *opaque)
{
    TGPUEngine *e = opaque;
    bool more;

    WITH_QEMU_LOCK_GUARD(&e->lock) {
        if (e->state != TGPU_ENGINE_QUEUED &&
            e->state != TGPU_ENGINE_RUNNING) {
            return;
        }
        e->grant = TGPU_DET_GRANT;
        e->parked = false;
        qemu_cond_broadcast(&e->wake);
        while (e->state == TGPU_ENGINE_QUEUED ||
               (e->state == TGPU_ENGINE_RUNNING && !e->parked)) {
            qemu_cond_wait(&e->idle, &e->lock);
        }
        /* parked for want of a grant, not by a hang: it goes on */
        more = e->state == TGPU_ENGINE_RUNNING && !e->grant &&
               !engine_hung(e);
    }
    if (more) {
        timer_mod(e->tick, qemu_clock_get_ns(QEMU_CLOCK_VIRTUAL) +
                  TGPU_DET_TICK_NS);
    }
}

/*
 * The work of the queue (RUNNING, at its start) runs here, under the BQL,
 * as the thread would run it: nothing that stops, hangs or cancels an
 * engine can come between, as all of those take the BQL.  What
 * run_here() leaves goes to the thread; work that ended is DONE, and the
 * host unit's pass finishes it (tgpu_engine_finish).
 */
static void engine_run_here(TGPUEngine *e)
{
    bool ended = e->ops->run_here(e);

    QEMU_LOCK_GUARD(&e->lock);
    if (!ended) {
        e->state = TGPU_ENGINE_QUEUED;
        qemu_cond_signal(&e->wake);
        return;
    }
    e->at = TGPU_ENGINE_AT_END;
    e->progress++;
    e->ops->publish(e, true, false);
    e->state = TGPU_ENGINE_DONE;
    qemu_cond_broadcast(&e->idle);
}

/*
 * Hand the work the engine's ops set up for channel CHID to its thread,
 * or in the host unit's pass run it, or its start, at once.
 */
void tgpu_engine_queue(TGPUEngine *e, uint32_t chid)
{
    bool here = e->s->host_pass;

    /* a hang injected for the channel takes this work */
    tgpu_fault_chan_queued(e->s, &e->s->chan[chid], e);
    WITH_QEMU_LOCK_GUARD(&e->lock) {
        /* the runlist holds other channels back while the engine is busy */
        assert(e->state == TGPU_ENGINE_IDLE);
        if (e->chid != chid && e->chid < e->s->num_channels) {
            engine_busy_close(&e->s->chan[e->chid]);
        }
        e->chid = chid;
        e->s->chan[chid].engine_wait = true;
        if (!e->s->chan[chid].busy_open) {
            e->s->chan[chid].busy_since =
                qemu_clock_get_ns(QEMU_CLOCK_VIRTUAL);
            e->s->chan[chid].busy_open = true;
        }
        here = here && e->ops->run_here && !e->det && !e->paused &&
               e->hang == TGPU_HANG_NONE;
        if (here) {
            e->state = TGPU_ENGINE_RUNNING;
            e->at = TGPU_ENGINE_AT_START;
        } else {
            e->state = TGPU_ENGINE_QUEUED;
            qemu_cond_signal(&e->wake);
            if (e->det) {
                e->grant = 0;
                timer_mod(e->tick, qemu_clock_get_ns(QEMU_CLOCK_VIRTUAL) +
                          TGPU_DET_TICK_NS);
            }
        }
    }
    if (here) {
        engine_run_here(e);
    }
}

/*
 * At the end of the host unit's pass: work that ended, in the pass or on
 * the thread, ends now, rather than after the main loop woke up for the
 * bottom half (which then finds nothing).  Not under deterministic=on,
 * whose virtual clock orders the ends.  True when one did.
 */
bool tgpu_engine_finish(TGPUEngine *e)
{
    bool done;

    if (e->det) {
        return false;
    }
    WITH_QEMU_LOCK_GUARD(&e->lock) {
        done = e->state == TGPU_ENGINE_DONE;
    }
    if (done) {
        tgpu_defer_cancel(&e->done);
        engine_done_bh(e);
    }
    return done;
}

bool tgpu_engine_busy(TGPUEngine *e)
{
    QEMU_LOCK_GUARD(&e->lock);
    return e->state != TGPU_ENGINE_IDLE;
}

/* The channel whose work is on the engine, or -1 when it is idle. */
int tgpu_engine_owner(TGPUEngine *e)
{
    QEMU_LOCK_GUARD(&e->lock);
    return e->state == TGPU_ENGINE_IDLE ? -1 : (int)e->chid;
}

TGPUEngineState tgpu_engine_state(TGPUEngine *e)
{
    QEMU_LOCK_GUARD(&e->lock);
    return e->state;
}

uint64_t tgpu_engine_progress(TGPUEngine *e)
{
    QEMU_LOCK_GUARD(&e->lock);
    return e->progress;
}

/* Does a wedge hold the work of CHID?  Under the BQL. */
bool tgpu_engine_wedged_on(TGPUEngine *e, uint32_t chid)
{
    QEMU_LOCK_GUARD(&e->lock);
    return e->hang == TGPU_HANG_WEDGE && e->chid == chid && engine_hung(e);
}

/* An injected hang from now on (or none); CHID >= 0: only at its work. */
void tgpu_engine_hang(TGPUEngine *e, TGPUHang hang, int64_t chid)
{
    QEMU_LOCK_GUARD(&e->lock);
    e->hang = hang;
    e->hang_chid = chid;
    qemu_cond_broadcast(&e->wake);
}

TGPUHang tgpu_engine_hang_state(TGPUEngine *e)
{
    QEMU_LOCK_GUARD(&e->lock);
    return e->hang;
}

/*
 * Drop the engine's work, waiting for its thread to reach the end of a
 * step.  Returns the channel it worked for, or -1 when it was idle.  A
 * wedged engine keeps its work, and -1 is returned: only a reset, which
 * ends the wedge first, takes it away.
 */
int tgpu_engine_cancel(TGPUEngine *e)
{
    int chid = -1;

    WITH_QEMU_LOCK_GUARD(&e->lock) {
        if (e->hang == TGPU_HANG_WEDGE && engine_hung(e)) {
            return -1;
        }
    }
    tgpu_defer_cancel(&e->done);
    WITH_QEMU_LOCK_GUARD(&e->lock) {
        /* before the wait: a cancelled thread leaves the engine IDLE */
        if (e->state != TGPU_ENGINE_IDLE) {
            chid = e->chid;
        }
        if (e->state == TGPU_ENGINE_RUNNING) {
            e->abort = true;
            engine_update_stop(e);
            qemu_cond_broadcast(&e->wake);
            while (e->state == TGPU_ENGINE_RUNNING) {
                qemu_cond_wait(&e->idle, &e->lock);
            }
            e->abort = false;
            engine_update_stop(e);
        }
        /* a stall ends with the work it held (or was to hold) */
        if (chid >= 0 && e->hang == TGPU_HANG_STALL &&
            (e->hang_chid < 0 || e->hang_chid == chid)) {
            e->hang = TGPU_HANG_NONE;
        }
        e->state = TGPU_ENGINE_IDLE;
    }
    if (chid >= 0) {
        e->s->chan[chid].engine_wait = false;
    }
    if (e->ops->cancelled) {
        e->ops->cancelled(e, chid);
    }
    if (chid >= 0) {
        tgpu_engine_chan_settle(e, &e->s->chan[chid]);
    }
    return chid;
}

/*
 * CH goes away: its work, running, queued, or held between turns; but
 * not from a wedged engine, which keeps it.
 */
void tgpu_engine_cancel_chan(TGPUEngine *e, TGPUChannel *ch)
{
    bool mine;

    if (tgpu_engine_wedged_on(e, ch->id)) {
        return;
    }
    WITH_QEMU_LOCK_GUARD(&e->lock) {
        mine = e->state != TGPU_ENGINE_IDLE && e->chid == ch->id;
    }
    if (mine) {
        tgpu_engine_cancel(e);
    }
    if (e->ops->forget) {
        e->ops->forget(e, ch);
    }
    ch->engine_wait = false;
    tgpu_engine_chan_settle(e, ch);
}

/*
 * Wait until the engine's thread uses no memory it translated before
 * now: after a TLB invalidation, nothing it dropped is in use any more.
 * The caller holds neither run_lock nor mmu_lock.
 */
void tgpu_engine_quiesce(TGPUEngine *e)
{
    qemu_mutex_lock(&e->run_lock);
    qemu_mutex_unlock(&e->run_lock);
}

/* A stopped VM: the engine holds at the end of its step until it runs. */
static void engine_vm_state_change(void *opaque, bool running,
                                   RunState state)
{
    TGPUEngine *e = opaque;

    QEMU_LOCK_GUARD(&e->lock);
    e->paused = !running;
    engine_update_stop(e);
    qemu_cond_broadcast(&e->wake);
    while (!running && e->state == TGPU_ENGINE_RUNNING && !e->parked) {
        qemu_cond_wait(&e->idle, &e->lock);
    }
}

/* ---- migration ---------------------------------------------------------- */

/*
 * Saved with the VM stopped: a RUNNING thread holds at a checkpoint or
 * at either end of its work (engine_vm_state_change waited for it), and
 * the unit's own section says how to go on from there.
 */
static int engine_pre_save(void *opaque)
{
    TGPUEngine *e = opaque;

    QEMU_LOCK_GUARD(&e->lock);
    /* loaded and not run since: saved again as it was loaded */
    if (!e->restore_pending) {
        e->mig_state = e->state;
        e->mig_at = e->at;
    }
    return 0;
}

static int engine_post_load(void *opaque, int version_id)
{
    TGPUEngine *e = opaque;

    if (e->mig_state > TGPU_ENGINE_DONE || e->mig_at > TGPU_ENGINE_AT_END ||
        (e->mig_state != TGPU_ENGINE_IDLE &&
         e->chid >= e->s->num_channels)) {
        error_report("tgpu: %s: migrated engine state %u at %u, channel %u: "
                     "out of range", e->name, e->mig_state, e->mig_at,
                     e->chid);
        return -EINVAL;
    }
    QEMU_LOCK_GUARD(&e->lock);
    e->restore_pending = true;
    return 0;
}

const VMStateDescription tgpu_vmstate_engine = {
    .name = "tgpu/engine",
    .version_id = 1,
    .minimum_version_id = 1,
    .pre_save = engine_pre_save,
    .post_load = engine_post_load,
    .fields = (const VMStateField[]) {
        VMSTATE_UINT32(mig_state, TGPUEngine),
        VMSTATE_UINT32(mig_at, TGPUEngine),
        VMSTATE_UINT32(chid, TGPUEngine),
        VMSTATE_UINT64(progress, TGPUEngine),
        VMSTATE_END_OF_LIST()
    },
};

/*
 * When a loaded VM first runs, under the BQL: the engine takes up the
 * unit's work for CHID again.  QUEUED: the thread starts it (the unit
 * set where it resumes); DONE: done_bh finishes it.  Not from
 * post_load: a load that yields (a socket) would run the bottom halves
 * of work half loaded.  A load comes after a reset: the engine is idle.
 */
void tgpu_engine_restore(TGPUEngine *e, TGPUEngineState state,
                         uint32_t chid)
{
    QEMU_LOCK_GUARD(&e->lock);
    e->restore_pending = false;
    if (e->state != TGPU_ENGINE_IDLE || state == TGPU_ENGINE_RUNNING ||
        state == TGPU_ENGINE_IDLE) {
        return;
    }
    e->state = state;
    e->chid = chid;
    if (state == TGPU_ENGINE_QUEUED) {
        qemu_cond_signal(&e->wake);
        if (e->det) {
            e->grant = 0;
            timer_mod(e->tick, qemu_clock_get_ns(QEMU_CLOCK_VIRTUAL) +
                      TGPU_DET_TICK_NS);
        }
    } else if (state == TGPU_ENGINE_DONE) {
        tgpu_defer_schedule(&e->done);
    }
}

/* The loaded state was taken up (or dropped by a reset). */
void tgpu_engine_restored(TGPUEngine *e)
{
    QEMU_LOCK_GUARD(&e->lock);
    e->restore_pending = false;
}

/* ---- life cycle ------------------------------------------------------- */

/*
 * Reset: the work is dropped and the progress counter starts again.
 * Returns the channel the engine worked for, or -1.
 */
int tgpu_engine_reset(TGPUEngine *e)
{
    int chid;

    tgpu_engine_hang(e, TGPU_HANG_NONE, -1);
    chid = tgpu_engine_cancel(e);

    QEMU_LOCK_GUARD(&e->lock);
    e->progress = 0;
    e->restore_pending = false;
    return chid;
}

void tgpu_engine_init(TGPUEngine *e, TGPUState *s, const TGPUEngineOps *ops,
                      const char *name, const char *thread_name,
                      unsigned int runlist, uint32_t engine_bit,
                      unsigned int fault_engine, ThreadContext *tc)
{
    e->s = s;
    e->ops = ops;
    e->name = name;
    e->runlist = runlist;
    e->engine_bit = engine_bit;
    e->fault_engine = fault_engine;
    e->state = TGPU_ENGINE_IDLE;
    e->hang_chid = -1;
    e->paused = !runstate_is_running();
    engine_update_stop(e);
    qemu_mutex_init(&e->lock);
    qemu_mutex_init(&e->run_lock);
    qemu_cond_init(&e->wake);
    qemu_cond_init(&e->idle);
    e->det = s->deterministic;
    tgpu_defer_init(s, &e->done, engine_done_bh, e);
    if (e->det) {
        e->tick = timer_new_ns(QEMU_CLOCK_VIRTUAL, engine_tick, e);
    }
    tgpu_engine_thread_create(tc, &e->thread, thread_name, engine_thread, e);
    e->vmstate = qemu_add_vm_change_state_handler(engine_vm_state_change, e);
}

void tgpu_engine_exit(TGPUEngine *e)
{
    qemu_del_vm_change_state_handler(e->vmstate);
    WITH_QEMU_LOCK_GUARD(&e->lock) {
        e->quit = true;
        engine_update_stop(e);
        qemu_cond_broadcast(&e->wake);
    }
    qemu_thread_join(&e->thread);
    tgpu_defer_exit(&e->done);
    if (e->tick) {
        timer_free(e->tick);
    }
    qemu_cond_destroy(&e->idle);
    qemu_cond_destroy(&e->wake);
    qemu_mutex_destroy(&e->run_lock);
    qemu_mutex_destroy(&e->lock);
}

/* After a TLB invalidation: no engine uses what it dropped any more. */
void tgpu_engines_quiesce(TGPUState *s)
{
    for (unsigned int r = 0; r < TGPU_NR_RUNLISTS; r++) {
        tgpu_engine_quiesce(s->engine[r]);
    }
}
