/*
 * tgpu engine object: what every engine (CE0, CE1, compute) shares
 *
 * An engine runs one piece of work at a time on a thread of its own,
 * without the BQL: the host unit hands it a launch under the BQL
 * (tgpu_engine_queue), the thread runs it in steps, and between steps
 * (tgpu_engine_checkpoint) publishes its progress, holds while the VM is
 * stopped and gives up when the work is cancelled.  When the work ends,
 * a bottom half finishes it under the BQL, or the host unit's next pass
 * does if it comes first.  Short work runs in the host unit's pass
 * itself (run_here), and ends there.  The thread reaches only RAM
 * (tgpu_sysmem_map), so the BQL side may wait for it: cancel, quiesce,
 * VM stop and unrealize all do.
 *
 * Copyright (c) 2026 The tgpu authors
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */

#ifndef HW_TGPU_TGPU_ENGINE_H
#define HW_TGPU_TGPU_ENGINE_H

#include "block/aio.h"
#include "qemu/thread.h"
#include "qemu/thread-context.h"
#include "system/runstate.h"
#include "migration/vmstate.h"

typedef struct TGPUState TGPUState;

/*
 * Work a unit defers to QEMU's main loop: a bottom half; under
 * deterministic=on a timer of the virtual clock, due at once, which
 * -icount and record/replay run at the same instruction every time.
 */
typedef struct TGPUDefer {
    QEMUBH *bh;
    QEMUTimer *timer;
} TGPUDefer;

void tgpu_defer_init(TGPUState *s, TGPUDefer *d, QEMUBHFunc *cb,
                     void *opaque);
void tgpu_defer_schedule(TGPUDefer *d);
void tgpu_defer_cancel(TGPUDefer *d);
void tgpu_defer_exit(TGPUDefer *d);

typedef struct TGPUChannel TGPUChannel;
typedef struct TGPUEngine TGPUEngine;

/* What an engine method did to its channel. */
typedef enum {
    TGPU_MTHD_OK,
    TGPU_MTHD_LAUNCHED,         /* the channel waits for the engine */
    TGPU_MTHD_ERROR,            /* the channel failed */
} TGPUMethodResult;

typedef enum {
    TGPU_ENGINE_IDLE,
    TGPU_ENGINE_QUEUED,         /* handed over, the thread has not begun */
    TGPU_ENGINE_RUNNING,        /* the thread works on it */
    TGPU_ENGINE_DONE,           /* it ended; done_bh finishes it */
} TGPUEngineState;

/* Where a RUNNING engine's thread holds, as a VM stop finds it. */
typedef enum {
    TGPU_ENGINE_AT_START,       /* before run(): nothing done yet */
    TGPU_ENGINE_AT_STEP,        /* at a checkpoint: the unit can resume */
    TGPU_ENGINE_AT_END,         /* run() returned, publish() not yet */
} TGPUEnginePlace;

/* An injected hang (tgpu-inject-hang), as the engine's thread obeys it. */
typedef enum {
    TGPU_HANG_NONE,
    TGPU_HANG_STALL,            /* no progress; a cancel or reset ends it */
    TGPU_HANG_WEDGE,            /* no progress; ignores a cancel */
} TGPUHang;

/* One kind of engine: its class and what it does at each stage. */
typedef struct TGPUEngineOps {
    uint16_t cls;               /* the class it executes, TGPU_CLASS_* */
    /* its methods: the name of each, NULL for none (the contract's table) */
    const char *(*method_name)(unsigned int mthd);
    /* under the BQL: a method of its class on a channel of its runlist */
    TGPUMethodResult (*method)(TGPUEngine *e, TGPUChannel *ch,
                               uint32_t mthd, uint32_t data);
    /* on the thread, without any lock: run the queued work */
    void (*run)(TGPUEngine *e);
    /*
     * Under the BQL, optional: run the queued work, or its start, at once
     * in the host unit's pass that queued it, as run() would; true when
     * it ended, false to leave the rest to the thread.  For work shorter
     * than handing it to the thread and its end back to the main loop.
     * Not called while the VM is stopped, a hang is injected or under
     * deterministic=on.
     */
    bool (*run_here)(TGPUEngine *e);
    /*
     * On the thread, under e->lock: publish the counters (at each
     * checkpoint and at the end); at the end the result too, unless the
     * work was cancelled.
     */
    void (*publish)(TGPUEngine *e, bool end, bool cancelled);
    /* under the BQL: the work ended (not cancelled) */
    void (*done)(TGPUEngine *e);
    /* under the BQL, optional: the work of CHID (or -1) was dropped */
    void (*cancelled)(TGPUEngine *e, int chid);
    /*
     * Under the BQL, optional: the engine holds work of CH that a later
     * turn of the channel goes on with (a preempted kernel).
     */
    bool (*holds)(TGPUEngine *e, TGPUChannel *ch);
    /*
     * Under the BQL, optional: give that work its next turn; false when
     * the engine holds none of CH's.
     */
    bool (*resume)(TGPUEngine *e, TGPUChannel *ch);
    /* under the BQL, optional: CH goes away; drop what the engine holds */
    void (*forget)(TGPUEngine *e, TGPUChannel *ch);
    /*
     * Under the BQL, optional: another channel of the runlist waits for
     * the engine; the work on it gives way soon, to go on in a later turn
     * of its channel (holds() then says so).
     */
    void (*preempt)(TGPUEngine *e);
} TGPUEngineOps;

struct TGPUEngine {
    TGPUState *s;
    const TGPUEngineOps *ops;
    const char *name;           /* "CE0", "CE1", "compute" */
    unsigned int runlist;       /* TGPU_RUNLIST_* */
    uint32_t engine_bit;        /* TGPU_ENGINE_* */
    unsigned int fault_engine;  /* TGPU_FAULT_ENGINE_* */

    QemuThread thread;
    QemuMutex lock;             /* guards everything below */
    QemuCond wake;              /* to the thread: work, pause, stop */
    QemuCond idle;              /* from the thread: parked or done */
    /*
     * Held by the thread while it uses memory it translated, so that an
     * invalidation can wait until nothing it dropped is in use.
     */
    QemuMutex run_lock;
    TGPUDefer done;
    VMChangeStateEntry *vmstate;
    TGPUEngineState state;
    TGPUEnginePlace at;         /* while RUNNING: where the thread is */
    uint32_t chid;              /* channel of the work, when not IDLE */
    bool quit;
    bool paused;                /* the VM is stopped: hold at a step */
    bool parked;                /* the thread holds, as paused asked */
    bool abort;                 /* drop the work at the next step */
    bool stop;                  /* abort || paused || quit, read unlocked */
    uint64_t progress;          /* steps taken since reset: ENGINE_PROGRESS */
    TGPUHang hang;
    int64_t hang_chid;          /* hang only at work of it; -1: any */
    /* deterministic=on (TGPU_DET_*) */
    bool det;
    uint32_t grant;             /* checkpoints the thread may still pass */
    QEMUTimer *tick;
    /* migration: state and at as saved (tgpu_vmstate_engine) */
    uint32_t mig_state, mig_at;
    bool restore_pending;       /* loaded; the VM has not run since */
};

extern const VMStateDescription tgpu_vmstate_engine;

void tgpu_engine_init(TGPUEngine *e, TGPUState *s, const TGPUEngineOps *ops,
                      const char *name, const char *thread_name,
                      unsigned int runlist, uint32_t engine_bit,
                      unsigned int fault_engine, ThreadContext *tc);
void tgpu_engine_exit(TGPUEngine *e);
int tgpu_engine_reset(TGPUEngine *e);

/* under the BQL */
void tgpu_engine_queue(TGPUEngine *e, uint32_t chid);
bool tgpu_engine_finish(TGPUEngine *e);
bool tgpu_engine_busy(TGPUEngine *e);
int tgpu_engine_owner(TGPUEngine *e);
int tgpu_engine_cancel(TGPUEngine *e);
void tgpu_engine_cancel_chan(TGPUEngine *e, TGPUChannel *ch);
uint64_t tgpu_engine_chan_busy_ns(TGPUChannel *ch);
void tgpu_engine_chan_settle(TGPUEngine *e, TGPUChannel *ch);
void tgpu_engine_quiesce(TGPUEngine *e);
uint64_t tgpu_engine_progress(TGPUEngine *e);
TGPUEngineState tgpu_engine_state(TGPUEngine *e);
void tgpu_engine_hang(TGPUEngine *e, TGPUHang hang, int64_t chid);
TGPUHang tgpu_engine_hang_state(TGPUEngine *e);
bool tgpu_engine_wedged_on(TGPUEngine *e, uint32_t chid);
void tgpu_engine_restore(TGPUEngine *e, TGPUEngineState state,
                         uint32_t chid);
void tgpu_engine_restored(TGPUEngine *e);

/* on the engine's thread */
bool tgpu_engine_checkpoint(TGPUEngine *e);

/* Should the thread come to a checkpoint now?  Read without the lock. */
static inline bool tgpu_engine_should_stop(TGPUEngine *e)
{
    return qatomic_read(&e->stop);
}

#endif /* HW_TGPU_TGPU_ENGINE_H */
