/*
 * tgpu compute engine: the compute class, its registers, and kernels
 *
 * docs/hw/isa.md is the manual.  A LAUNCH makes a TGPUKernel that its
 * channel owns until the kernel ends.  The engine's thread fetches the
 * program once, then hands the kernel to the SIMT executor
 * (tgpu-simt.h), whose global memory is the channel's GPU VM through
 * the MMU.
 *
 * A kernel runs for one timeslice of modelled GPU time at a time: one
 * warp instruction per SM clock cycle.  Then the engine hands it back to
 * the host unit, which may run another channel's kernel first; a kernel
 * that never ends keeps coming back until the driver kills its channel
 * or resets the engine, as a hung GPU does.  Everything the thread
 * touches is the kernel's, VRAM or guest RAM: it never needs the BQL.
 *
 * Copyright (c) 2026 The tgpu authors
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */

#include "qemu/osdep.h"
#include "qemu/memalign.h"
#include "qemu/log.h"
#include "qemu/lockable.h"
#include "qemu/main-loop.h"
#include "qemu/error-report.h"
#include "migration/vmstate.h"
#include "tgpu.h"
#include "tgpu-simt.h"
#include "trace.h"

struct TGPUKernel {
    GrKernel x;             /* what the executor runs */
    TGPUVmCtx vm;
    uint32_t launch;
    uint64_t prog_va;
    uint64_t sem_addr;
    uint32_t sem_payload;
    /* the program as fetched: what a migration's destination decodes */
    uint64_t *raw;
    uint32_t raw_size;          /* bytes; 0 until fetched */
};

/* VRAM pages the executor may have written since the last checkpoint */
#define GR_DIRTY_MAX        64

/*
 * Warp instructions a slice runs in the host unit's pass, under the BQL,
 * before the thread takes over: tens of microseconds of the interpreter
 * at most, which the writer of the doorbell waits for.
 */
#define GR_HERE_INSNS       1024

/* The compute engine: the engine object, its kernel, its registers. */
typedef struct TGPUComputeEngine TGPUComputeEngine;

struct TGPUComputeEngine {
    TGPUEngine e;
    TGPUKernel *k;          /* the kernel queued or on the thread */
    uint64_t budget;        /* warp instructions of the slice still to run */
    GrRun run;              /* the thread's own, while it runs */
    uint8_t *vram;          /* VRAM's host memory */
    bool run_finished;      /* the thread's: the kernel ended */
    uint64_t dirty[GR_DIRTY_MAX];       /* the thread's: VRAM page offsets */
    uint32_t ndirty;
    bool finished;          /* ... as published: else its slice did */
    /* registers, under e.lock */
    uint32_t chid, launches, preempts;
    uint64_t warp_insns, lane_ops;
    uint32_t error, err_pc, err_warp, err_lane, err_info;
    uint64_t err_cta, err_va;
};

static TGPUComputeEngine *gr_of(TGPUEngine *e)
{
    return container_of(e, TGPUComputeEngine, e);
}

/* ---- on the engine's thread ---------------------------------------------- */

/*
 * The executor writes VRAM through the page global() handed it, which
 * migration's dirty log does not see: the pages are marked after the
 * writes, at each checkpoint, before the thread can hold for a VM stop.
 * A step's page cache does not outlive the step (tgpu_simt_run()).
 */
static void gr_dirty_flush(TGPUComputeEngine *gr)
{
    for (uint32_t i = 0; i < gr->ndirty; i++) {
        memory_region_set_dirty(&gr->e.s->vram, gr->dirty[i],
                                TGPU_PAGE_SIZE);
    }
    gr->ndirty = 0;
}

static void gr_dirty_add(TGPUComputeEngine *gr, uint64_t page)
{
    if (gr->ndirty && gr->dirty[gr->ndirty - 1] == page) {
        return;
    }
    if (gr->ndirty == GR_DIRTY_MAX) {
        /* the writes to these are done, but for the page in hand's */
        gr_dirty_flush(gr);
    }
    gr->dirty[gr->ndirty++] = page;
}

/* GrMemOps.global(): the kernel's VM, VRAM or guest RAM */
static int gr_mem_global(void *opaque, uint64_t va, unsigned int len,
                         bool is_write, uint8_t **page, void *buf,
                         int atomic, uint32_t b, uint32_t c)
{
    TGPUComputeEngine *gr = opaque;
    TGPUState *s = gr->e.s;
    TGPUKernel *k = gr->k;
    TGPUSysmemMap sm;
    uint64_t pa, n, l = len;
    bool sysmem;
    void *m;
    int fault;

    fault = tgpu_mmu_translate_run(s, &k->vm, TGPU_ACC_COMPUTE, va, len,
                                   is_write, &pa, &sysmem, &n);
    if (fault) {
        return fault;
    }
    if (!sysmem && likely(!qatomic_read(&s->ecc_inj_nr))) {
        *page = gr->vram + (pa & ~(TGPU_PAGE_SIZE - 1));
        if (is_write) {
            gr_dirty_add(gr, pa & ~(TGPU_PAGE_SIZE - 1));
        }
        return 0;
    }
    if (!sysmem) {
        /* errors are armed: each access checks, no page is kept */
        uint64_t bad;

        *page = NULL;
        if ((!is_write || atomic >= 0) &&
            !tgpu_ecc_vram_read(s, pa, len, TGPU_ECC_ENGINE_COMPUTE,
                                k->vm.chid, &bad)) {
            return GR_MEM_ECC;
        }
        tgpu_simt_access(gr->vram + pa, buf, len, is_write, atomic, b, c);
        if (is_write || atomic >= 0) {
            memory_region_set_dirty(&s->vram, pa, len);
            tgpu_ecc_vram_write(s, pa, len);
        }
        return 0;
    }
    *page = NULL;
    m = tgpu_sysmem_map(s, pa, &l, is_write, &sm);
    if (!m || l < len) {
        tgpu_sysmem_unmap(&sm, 0);
        tgpu_mmu_forget(s, &k->vm, va);
        return TGPU_FAULT_BAD_APERTURE;
    }
    tgpu_simt_access(m, buf, len, is_write, atomic, b, c);
    tgpu_sysmem_unmap(&sm, len);
    return 0;
}

/* An invalidation waits for the accesses of the instruction under way. */
static void gr_mem_lock(void *opaque)
{
    TGPUComputeEngine *gr = opaque;

    qemu_mutex_lock(&gr->e.run_lock);
}

static void gr_mem_unlock(void *opaque)
{
    TGPUComputeEngine *gr = opaque;

    qemu_mutex_unlock(&gr->e.run_lock);
}

/* Between steps (see tgpu_engine_checkpoint); false: cancelled. */
static bool gr_mem_checkpoint(void *opaque)
{
    TGPUComputeEngine *gr = opaque;

    gr_dirty_flush(gr);
    return tgpu_engine_checkpoint(&gr->e);
}

static const GrMemOps gr_mem_ops = {
    .global = gr_mem_global,
    .lock = gr_mem_lock,
    .unlock = gr_mem_unlock,
    .checkpoint = gr_mem_checkpoint,
};

/* Fetch and decode the program; false (the kernel failed) on a fault. */
static bool gr_fetch(TGPUComputeEngine *gr, TGPUKernel *k)
{
    TGPUState *s = gr->e.s;
    g_autofree uint64_t *raw = g_new(uint64_t, k->x.ninsns);
    uint64_t done = 0, len = (uint64_t)k->x.ninsns * TGPU_INSN_SIZE;

    assert(!k->raw);

    while (done < len) {
        uint64_t pa, n;
        bool sysmem;
        int fault;

        QEMU_LOCK_GUARD(&gr->e.run_lock);
        fault = tgpu_mmu_translate_run(s, &k->vm, TGPU_ACC_COMPUTE,
                                       k->prog_va + done, len - done, false,
                                       &pa, &sysmem, &n);
        if (!fault && sysmem &&
            !tgpu_sysmem_rw(s, pa, (uint8_t *)raw + done, n, false)) {
            fault = TGPU_FAULT_BAD_APERTURE;
        }
        if (fault) {
            k->x.fault_type = fault;
            k->x.fault_write = false;
            return tgpu_simt_fail(&k->x, TGPU_KERR_PROGRAM_FAULT,
                                  k->prog_va + done);
        }
        if (!sysmem) {
            uint64_t bad;

            if (!tgpu_ecc_vram_read(s, pa, n, TGPU_ECC_ENGINE_COMPUTE,
                                    k->vm.chid, &bad)) {
                return tgpu_simt_fail(&k->x, TGPU_KERR_ECC,
                                      k->prog_va + done + (bad - pa));
            }
            memcpy((uint8_t *)raw + done, gr->vram + pa, n);
        }
        done += n;
    }
    tgpu_simt_load(&k->x, raw);
    k->raw_size = len;
    k->raw = g_steal_pointer(&raw);
    return true;
}

/* Under e->lock, on the thread: the counters, at the end how it ended. */
static void gr_engine_publish(TGPUEngine *e, bool end, bool cancelled)
{
    TGPUComputeEngine *gr = gr_of(e);
    GrRun *r = &gr->run;

    gr->warp_insns += r->warp_insns;
    gr->lane_ops += r->lane_ops;
    r->warp_insns = 0;
    r->lane_ops = 0;
    if (end && !cancelled) {
        gr->finished = gr->run_finished;
    }
}

/* The engine's thread, or run_here: run the queued kernel for its budget. */
static void gr_engine_run(TGPUEngine *e)
{
    TGPUComputeEngine *gr = gr_of(e);
    TGPUKernel *k = gr->k;
    GrRun *r = &gr->run;

    memset(r, 0, sizeof(*r));
    r->k = &k->x;
    r->ops = &gr_mem_ops;
    r->opaque = gr;
    r->budget = gr->budget;
    gr->vram = memory_region_get_ram_ptr(&e->s->vram);
    trace_tgpu_gr_slice(k->vm.chid, k->x.cta, r->budget);
    /* a migration may bring a kernel whose end done() has not seen */
    if (k->x.error || k->x.cta == k->x.ncta) {
        gr->run_finished = true;
        return;
    }
    if (!k->x.code && !gr_fetch(gr, k)) {
        gr->run_finished = true;
        return;
    }
    gr->run_finished = tgpu_simt_run(r);
    gr_dirty_flush(gr);
    /* the last step's counters too, before a VM stop can save them */
    WITH_QEMU_LOCK_GUARD(&e->lock) {
        gr_engine_publish(e, false, false);
    }
}

/* ---- under the BQL ------------------------------------------------------- */

/*
 * The first warp instructions of a slice, in the host unit's pass that
 * started it: a kernel that ends within them (an empty launch, a few
 * CTAs of a short one) never waits for the thread.  The rest of the
 * slice is the thread's.
 */
static bool gr_engine_run_here(TGPUEngine *e)
{
    TGPUComputeEngine *gr = gr_of(e);
    uint64_t slice = gr->budget, used;

    gr->budget = MIN(slice, GR_HERE_INSNS);
    gr_engine_run(e);
    used = gr->budget - gr->run.budget;
    gr->budget = slice - used;
    return gr->run_finished || !gr->budget;
}

static void gr_kernel_free(TGPUKernel *k)
{
    if (k) {
        tgpu_simt_free(&k->x);
        g_free(k->raw);
        g_free(k);
    }
}

/* Under the BQL: the slice ended, and perhaps the kernel. */
static void gr_engine_done(TGPUEngine *e)
{
    TGPUComputeEngine *gr = gr_of(e);
    TGPUState *s = e->s;
    TGPUChannel *ch;
    TGPUKernel *k;
    bool finished;

    WITH_QEMU_LOCK_GUARD(&e->lock) {
        k = gr->k;
        gr->k = NULL;
        finished = gr->finished;
        if (finished) {
            gr->error = k->x.error;
            gr->err_pc = k->x.err_pc;
            gr->err_cta = k->x.err_cta;
            gr->err_warp = k->x.err_warp;
            gr->err_lane = k->x.err_lane;
            gr->err_va = k->x.err_va;
            gr->err_info = k->x.err_info;
        } else {
            gr->preempts++;
        }
    }
    ch = &s->chan[k->vm.chid];
    if (!finished) {
        /* the slice is over: the host unit resumes it in its turn */
        tgpu_host_kick(s);
        return;
    }
    ch->gr_kernel = NULL;
    if (k->x.error) {
        if (k->x.error == TGPU_KERR_MMU_FAULT ||
            (k->x.error == TGPU_KERR_PROGRAM_FAULT && k->x.fault_type)) {
            tgpu_mmu_report_fault(s, &k->vm, e->fault_engine, k->x.err_va,
                                  k->x.fault_write, k->x.fault_type);
        }
        qemu_log_mask(LOG_GUEST_ERROR,
                      "tgpu: compute: channel %u: kernel failed: %s at PC "
                      "%u, CTA %" PRIu64 ", warp %u, lane %u, address 0x%"
                      PRIx64 ", info 0x%x\n", k->vm.chid,
                      tgpu_kerr_meaning(k->x.error), k->x.err_pc,
                      k->x.err_cta, k->x.err_warp, k->x.err_lane,
                      k->x.err_va, k->x.err_info);
        if (k->x.error == TGPU_KERR_ECC) {
            tgpu_chan_fail(s, ch, TGPU_ERR_ECC_UNCORRECTABLE,
                           TGPU_ECC_ENGINE_COMPUTE);
        } else {
            tgpu_chan_fail(s, ch, TGPU_ERR_COMPUTE, k->x.error);
        }
    } else {
        tgpu_launch_done(s, ch, k->launch, k->sem_addr, k->sem_payload);
    }
    gr_kernel_free(k);
    tgpu_host_kick(s);
}

/* Hand CH's kernel to the engine for a slice.  The engine must be idle. */
static void gr_start(TGPUState *s, TGPUChannel *ch)
{
    TGPUComputeEngine *gr = s->gr;
    /*
     * modelled time: one warp instruction per SM clock cycle, or per
     * sm-clock-divider cycles, for a pace the interpreter can keep
     */
    uint64_t khz = (uint64_t)tgpu_therm_clock_mhz(s) * 1000;

    int64_t now = tgpu_ptimer_now(s);
    TGPUKernel *k = ch->gr_kernel;

    /* SR_GLOBALTIMER: this slice's start, and a warp instruction's ns */
    k->x.time_ns = now;
    k->x.time_cycles = k->x.cycles;
    k->x.clock_khz = MAX(khz / s->sm_clock_divider, 1);
    k->x.f64_cost = s->model->f64_cost;
    WITH_QEMU_LOCK_GUARD(&gr->e.lock) {
        gr->k = k;
        gr->chid = ch->id;
        gr->budget = MAX(ch->timeslice_ns * khz / 1000000 /
                         s->sm_clock_divider, 1);
    }
    /* the slice is a timeslice of modelled time: the next waits for it */
    ch->hold_until_ns = now + ch->timeslice_ns;
    tgpu_engine_queue(&gr->e, ch->id);
}

/* A kernel whose slice ended goes on before anything after it. */
static bool gr_engine_resume(TGPUEngine *e, TGPUChannel *ch)
{
    if (!ch->gr_kernel || ch->engine_wait) {
        return false;
    }
    gr_start(e->s, ch);
    return true;
}

static bool gr_engine_holds(TGPUEngine *e, TGPUChannel *ch)
{
    return ch->gr_kernel;
}

/* The LAUNCH word's own bits: what the method takes (and a stream may) */
static bool gr_launch_bits_valid(uint32_t launch)
{
    return !(launch & ~TGPU_GR_LAUNCH_VALID_MASK) &&
           ((launch >> TGPU_CE_LAUNCH_SEM_SHIFT) &
            TGPU_CE_LAUNCH_SEM_MASK) != 3 &&
           ((launch >> TGPU_CE_LAUNCH_INTR_SHIFT) &
            TGPU_CE_LAUNCH_INTR_MASK) != 3 && !(launch & 7);
}

static uint32_t gr_launch_check(TGPUChannel *ch, uint32_t launch)
{
    uint64_t threads = (uint64_t)ch->gr_block[0] * ch->gr_block[1] *
                       ch->gr_block[2];

    if (!gr_launch_bits_valid(launch)) {
        return TGPU_KERR_LAUNCH;
    }
    for (int i = 0; i < 3; i++) {
        if (!ch->gr_grid[i] || ch->gr_grid[i] > TGPU_GR_GRID_MAX ||
            !ch->gr_block[i]) {
            return TGPU_KERR_LAUNCH;
        }
    }
    if (threads > TGPU_GR_BLOCK_MAX || !ch->gr_prog_size ||
        ch->gr_prog_size % TGPU_INSN_SIZE ||
        ch->gr_prog_size > TGPU_GR_PROGRAM_MAX || ch->gr_prog_lower % 8 ||
        ch->gr_shared > TGPU_GR_SHARED_MAX ||
        ch->gr_param_size > TGPU_GR_PARAM_MAX || ch->gr_param_size % 4) {
        return TGPU_KERR_LAUNCH;
    }
    return TGPU_KERR_NONE;
}

static TGPUMethodResult gr_launch(TGPUState *s, TGPUChannel *ch,
                                  uint32_t launch)
{
    TGPUComputeEngine *gr = s->gr;
    uint32_t err = gr_launch_check(ch, launch);
    uint64_t param_va = (uint64_t)(ch->gr_param_upper & TGPU_CE_UPPER_MASK)
                        << 32 | ch->gr_param_lower;
    TGPUKernel *k;
    MemTxResult r;

    WITH_QEMU_LOCK_GUARD(&gr->e.lock) {
        gr->launches++;
        gr->chid = ch->id;
        gr->error = err;
    }
    if (err) {
        qemu_log_mask(LOG_GUEST_ERROR, "tgpu: compute: channel %u: LAUNCH "
                      "0x%08x refused: grid, block, program, shared or "
                      "parameter size out of range\n", ch->id, launch);
        tgpu_chan_fail(s, ch, TGPU_ERR_COMPUTE, err);
        return TGPU_MTHD_ERROR;
    }
    k = g_new0(TGPUKernel, 1);
    k->vm = tgpu_chan_vm(ch);
    k->launch = launch;
    k->prog_va = (uint64_t)(ch->gr_prog_upper & TGPU_CE_UPPER_MASK) << 32 |
                 ch->gr_prog_lower;
    k->x.ninsns = ch->gr_prog_size / TGPU_INSN_SIZE;
    memcpy(k->x.grid, ch->gr_grid, sizeof(k->x.grid));
    memcpy(k->x.block, ch->gr_block, sizeof(k->x.block));
    k->x.ncta = (uint64_t)k->x.grid[0] * k->x.grid[1] * k->x.grid[2];
    k->x.shared_size = ch->gr_shared;
    k->x.param_size = ch->gr_param_size;
    k->x.sm_count = s->sm_count;
    k->sem_addr = (uint64_t)(ch->gr_sem_a & TGPU_CE_UPPER_MASK) << 32 |
                  ch->gr_sem_b;
    k->sem_payload = ch->gr_sem_payload;
    /* the parameters are read at launch, as a constant bank upload */
    r = k->x.param_size ? tgpu_gpu_rw(s, ch, TGPU_ACC_FETCH, param_va,
                                      k->x.param, k->x.param_size, false)
                        : MEMTX_OK;
    if (r == MEMTX_ERROR) {
        g_free(k);
        tgpu_chan_fail(s, ch, TGPU_ERR_ECC_UNCORRECTABLE,
                       TGPU_ECC_ENGINE_HOST);
        return TGPU_MTHD_ERROR;
    }
    if (r) {
        g_free(k);
        WITH_QEMU_LOCK_GUARD(&gr->e.lock) {
            gr->error = TGPU_KERR_CONST;
            gr->err_pc = gr->err_warp = gr->err_lane = gr->err_info = 0;
            gr->err_cta = 0;
            gr->err_va = param_va;
        }
        qemu_log_mask(LOG_GUEST_ERROR, "tgpu: compute: channel %u: "
                      "parameters at 0x%010" PRIx64 " unreachable\n",
                      ch->id, param_va);
        tgpu_chan_fail(s, ch, TGPU_ERR_COMPUTE, TGPU_KERR_CONST);
        return TGPU_MTHD_ERROR;
    }
    trace_tgpu_gr_launch(ch->id, k->prog_va, k->x.ninsns, k->x.ncta,
                         k->x.block[0] * k->x.block[1] * k->x.block[2]);
    ch->gr_kernel = k;
    /* before the engine has it: a hang it fires takes this kernel */
    tgpu_fault_count(s, TGPU_TRIGGER_EVENT_KERNEL_LAUNCHES, ch->id);
    gr_start(s, ch);
    return TGPU_MTHD_LAUNCHED;
}

static TGPUMethodResult gr_engine_method(TGPUEngine *e, TGPUChannel *ch,
                                        uint32_t mthd, uint32_t data)
{
    TGPUState *s = e->s;

    switch (mthd) {
    case TGPU_GR_M_NOP:
        return TGPU_MTHD_OK;
    case TGPU_GR_M_SET_PROGRAM_UPPER:
        ch->gr_prog_upper = data;
        return TGPU_MTHD_OK;
    case TGPU_GR_M_SET_PROGRAM_LOWER:
        ch->gr_prog_lower = data;
        return TGPU_MTHD_OK;
    case TGPU_GR_M_SET_PROGRAM_SIZE:
        ch->gr_prog_size = data;
        return TGPU_MTHD_OK;
    case TGPU_GR_M_SET_GRID_X:
    case TGPU_GR_M_SET_GRID_Y:
    case TGPU_GR_M_SET_GRID_Z:
        ch->gr_grid[(mthd - TGPU_GR_M_SET_GRID_X) / 4] = data;
        return TGPU_MTHD_OK;
    case TGPU_GR_M_SET_BLOCK_X:
    case TGPU_GR_M_SET_BLOCK_Y:
    case TGPU_GR_M_SET_BLOCK_Z:
        ch->gr_block[(mthd - TGPU_GR_M_SET_BLOCK_X) / 4] = data;
        return TGPU_MTHD_OK;
    case TGPU_GR_M_SET_SHARED_SIZE:
        ch->gr_shared = data;
        return TGPU_MTHD_OK;
    case TGPU_GR_M_SET_PARAM_UPPER:
        ch->gr_param_upper = data;
        return TGPU_MTHD_OK;
    case TGPU_GR_M_SET_PARAM_LOWER:
        ch->gr_param_lower = data;
        return TGPU_MTHD_OK;
    case TGPU_GR_M_SET_PARAM_SIZE:
        ch->gr_param_size = data;
        return TGPU_MTHD_OK;
    case TGPU_GR_M_SET_SEMAPHORE_A:
        ch->gr_sem_a = data;
        return TGPU_MTHD_OK;
    case TGPU_GR_M_SET_SEMAPHORE_B:
        ch->gr_sem_b = data;
        return TGPU_MTHD_OK;
    case TGPU_GR_M_SET_SEMAPHORE_PAYLOAD:
        ch->gr_sem_payload = data;
        return TGPU_MTHD_OK;
    case TGPU_GR_M_LAUNCH:
        return gr_launch(s, ch, data);
    }
    tgpu_chan_fail(s, ch, TGPU_ERR_ENGINE,
                   (uint32_t)TGPU_CLASS_COMPUTE << 16 | mthd);
    return TGPU_MTHD_ERROR;
}

/* The kernel on the engine was dropped: it stays the channel's. */
static void gr_engine_cancelled(TGPUEngine *e, int chid)
{
    TGPUComputeEngine *gr = gr_of(e);

    if (gr->k) {
        trace_tgpu_gr_cancel(gr->k->vm.chid);
    }
    gr->k = NULL;
}

/* The channel goes away: its kernel too, run or waiting for a slice. */
static void gr_engine_forget(TGPUEngine *e, TGPUChannel *ch)
{
    gr_kernel_free(ch->gr_kernel);
    ch->gr_kernel = NULL;
}

static const TGPUEngineOps gr_engine_ops = {
    .cls = TGPU_CLASS_COMPUTE,
    .method_name = tgpu_gr_method_name,
    .method = gr_engine_method,
    .run = gr_engine_run,
    .run_here = gr_engine_run_here,
    .publish = gr_engine_publish,
    .done = gr_engine_done,
    .cancelled = gr_engine_cancelled,
    .holds = gr_engine_holds,
    .resume = gr_engine_resume,
    .forget = gr_engine_forget,
};

/* ---- migration --------------------------------------------------------- */

static const VMStateDescription vmstate_warp_frame = {
    .name = "tgpu/warp/frame",
    .version_id = 1,
    .minimum_version_id = 1,
    .fields = (const VMStateField[]) {
        VMSTATE_UINT32(pc, GrFrame),
        VMSTATE_UINT32(mask, GrFrame),
        VMSTATE_UINT32(type, GrFrame),
        VMSTATE_END_OF_LIST()
    },
};

static const VMStateDescription vmstate_warp = {
    .name = "tgpu/warp",
    .version_id = 1,
    .minimum_version_id = 1,
    .fields = (const VMStateField[]) {
        VMSTATE_UINT32(pc, GrWarp),
        VMSTATE_UINT32(active, GrWarp),
        VMSTATE_UINT32(live, GrWarp),
        VMSTATE_UINT32(exists, GrWarp),
        VMSTATE_INT32(state, GrWarp),
        VMSTATE_UINT32(bar, GrWarp),
        VMSTATE_UINT32(sp, GrWarp),
        VMSTATE_STRUCT_ARRAY(stack, GrWarp, TGPU_SIMT_STACK_DEPTH, 1,
                             vmstate_warp_frame,
                             GrFrame),
        VMSTATE_UINT32_ARRAY(p, GrWarp, TGPU_NR_PREDS + 1),
        VMSTATE_UINT32_2DARRAY(r, GrWarp, NR_ROWS, W),
        VMSTATE_END_OF_LIST()
    },
};

static bool kernel_fetched(void *opaque)
{
    TGPUKernel *k = opaque;

    return k->raw;
}

/* Bound what the stream asks for before anything is allocated. */
static int kernel_state_pre_load(void *opaque)
{
    TGPUKernel *k = opaque;
    GrKernel *x = &k->x;
    uint64_t threads = (uint64_t)x->block[0] * x->block[1] * x->block[2];

    if (k->raw || x->warps || !x->ninsns ||
        x->ninsns > TGPU_GR_PROGRAM_MAX / TGPU_INSN_SIZE ||
        k->raw_size != x->ninsns * TGPU_INSN_SIZE ||
        !threads || threads > TGPU_GR_BLOCK_MAX ||
        x->nwarps != DIV_ROUND_UP(threads, TGPU_WARP_SIZE) ||
        x->shared_size > TGPU_GR_SHARED_MAX) {
        error_report("tgpu: compute: migrated kernel of channel %u is out "
                     "of range", k->vm.chid);
        return -EINVAL;
    }
    k->raw = g_malloc(k->raw_size);
    x->warps = tgpu_simt_alloc0(x->nwarps, sizeof(GrWarp));
    x->shared = g_malloc0(MAX(x->shared_size, 1));
    return 0;
}

/* a fetched kernel's program, warps and shared memory */
static const VMStateDescription vmstate_kernel_state = {
    .name = "tgpu/kernel/state",
    .version_id = 1,
    .minimum_version_id = 1,
    .needed = kernel_fetched,
    .pre_load = kernel_state_pre_load,
    .fields = (const VMStateField[]) {
        VMSTATE_VBUFFER_UINT32(raw, TGPUKernel, 1, NULL, raw_size),
        VMSTATE_STRUCT_VARRAY_POINTER_UINT32(x.warps, TGPUKernel, x.nwarps,
                                             vmstate_warp, GrWarp),
        VMSTATE_VBUFFER_UINT32(x.shared, TGPUKernel, 1, NULL, x.shared_size),
        VMSTATE_END_OF_LIST()
    },
};

static int kernel_post_load(void *opaque, int version_id)
{
    TGPUKernel *k = opaque;
    int type = k->x.fault_type;

    /* an MMU fault done() reports needs a type it can name */
    if ((!k->raw && k->raw_size) || type < 0 || type > TGPU_FAULT_ECC ||
        !gr_launch_bits_valid(k->launch) ||
        (k->x.error == TGPU_KERR_MMU_FAULT && !type) ||
        !tgpu_simt_restore(&k->x, k->raw)) {
        error_report("tgpu: compute: migrated kernel of channel %u is out "
                     "of range", k->vm.chid);
        return -EINVAL;
    }
    return 0;
}

/*
 * A kernel is saved at a step's end, where the executor keeps all of
 * its state in GrKernel: the destination goes on from there.
 */
static const VMStateDescription vmstate_kernel = {
    .name = "tgpu/kernel",
    .version_id = 1,
    .minimum_version_id = 1,
    .post_load = kernel_post_load,
    .fields = (const VMStateField[]) {
        VMSTATE_UINT32(vm.chid, TGPUKernel),
        VMSTATE_UINT32(vm.flags, TGPUKernel),
        VMSTATE_UINT32(vm.asid, TGPUKernel),
        VMSTATE_UINT64(vm.pdb, TGPUKernel),
        VMSTATE_UINT32(launch, TGPUKernel),
        VMSTATE_UINT64(prog_va, TGPUKernel),
        VMSTATE_UINT64(sem_addr, TGPUKernel),
        VMSTATE_UINT32(sem_payload, TGPUKernel),
        VMSTATE_UINT32(x.ninsns, TGPUKernel),
        VMSTATE_UINT32_ARRAY(x.grid, TGPUKernel, 3),
        VMSTATE_UINT32_ARRAY(x.block, TGPUKernel, 3),
        VMSTATE_UINT32(x.shared_size, TGPUKernel),
        VMSTATE_UINT8_ARRAY(x.param, TGPUKernel, TGPU_GR_PARAM_MAX),
        VMSTATE_UINT32(x.param_size, TGPUKernel),
        VMSTATE_UINT32(x.sm_count, TGPUKernel),
        VMSTATE_UINT64(x.ncta, TGPUKernel),
        VMSTATE_UINT64(x.cta, TGPUKernel),
        VMSTATE_UINT32(x.nwarps, TGPUKernel),
        VMSTATE_UINT32(x.cur_warp, TGPUKernel),
        VMSTATE_UINT64(x.cycles, TGPUKernel),
        VMSTATE_UINT32(x.error, TGPUKernel),
        VMSTATE_UINT32(x.err_pc, TGPUKernel),
        VMSTATE_UINT32(x.err_warp, TGPUKernel),
        VMSTATE_UINT32(x.err_lane, TGPUKernel),
        VMSTATE_UINT32(x.err_info, TGPUKernel),
        VMSTATE_UINT64(x.err_cta, TGPUKernel),
        VMSTATE_UINT64(x.err_va, TGPUKernel),
        VMSTATE_INT32(x.fault_type, TGPUKernel),
        VMSTATE_BOOL(x.fault_write, TGPUKernel),
        VMSTATE_UINT32(raw_size, TGPUKernel),
        VMSTATE_END_OF_LIST()
    },
    .subsections = (const VMStateDescription * const []) {
        &vmstate_kernel_state,
        NULL
    },
};

static bool chan_kernel_needed(void *opaque)
{
    TGPUChannel *ch = opaque;

    return ch->gr_kernel;
}

static int chan_kernel_pre_load(void *opaque)
{
    TGPUChannel *ch = opaque;

    gr_kernel_free(ch->gr_kernel);
    ch->gr_kernel = g_new0(TGPUKernel, 1);
    return 0;
}

/* The kernel runs in its channel's VM: the one its enable read. */
/* Is K the kernel CH could have launched, in CH's VM? */
static bool gr_kernel_of(const TGPUChannel *ch, const TGPUKernel *k)
{
    if (k->vm.chid != ch->id || !ch->enabled || ch->error ||
        ch->engine != TGPU_RUNLIST_COMPUTE || k->vm.flags != ch->flags ||
        k->vm.asid != ch->asid || k->vm.pdb != ch->pdb) {
        error_report("tgpu: compute: migrated kernel of channel %u does "
                     "not match its channel", ch->id);
        return false;
    }
    return true;
}

static int chan_kernel_post_load(void *opaque, int version_id)
{
    TGPUChannel *ch = opaque;

    return gr_kernel_of(ch, ch->gr_kernel) ? 0 : -EINVAL;
}

/* the kernel a channel launched and that has not ended (tgpu-host.c) */
const VMStateDescription tgpu_vmstate_chan_kernel = {
    .name = "tgpu/channel/kernel",
    .version_id = 1,
    .minimum_version_id = 1,
    .needed = chan_kernel_needed,
    .pre_load = chan_kernel_pre_load,
    .post_load = chan_kernel_post_load,
    .fields = (const VMStateField[]) {
        VMSTATE_STRUCT_POINTER(gr_kernel, TGPUChannel, vmstate_kernel,
                               TGPUKernel),
        VMSTATE_END_OF_LIST()
    },
};

static const VMStateDescription vmstate_gr_engine = {
    .name = "tgpu/compute/engine",
    .version_id = 1,
    .minimum_version_id = 1,
    .fields = (const VMStateField[]) {
        VMSTATE_STRUCT(e, TGPUComputeEngine, 1, tgpu_vmstate_engine,
                       TGPUEngine),
        VMSTATE_UINT32(chid, TGPUComputeEngine),
        VMSTATE_UINT32(launches, TGPUComputeEngine),
        VMSTATE_UINT32(preempts, TGPUComputeEngine),
        VMSTATE_UINT64(warp_insns, TGPUComputeEngine),
        VMSTATE_UINT64(lane_ops, TGPUComputeEngine),
        VMSTATE_UINT32(error, TGPUComputeEngine),
        VMSTATE_UINT32(err_pc, TGPUComputeEngine),
        VMSTATE_UINT32(err_warp, TGPUComputeEngine),
        VMSTATE_UINT32(err_lane, TGPUComputeEngine),
        VMSTATE_UINT32(err_info, TGPUComputeEngine),
        VMSTATE_UINT64(err_cta, TGPUComputeEngine),
        VMSTATE_UINT64(err_va, TGPUComputeEngine),
        VMSTATE_END_OF_LIST()
    },
};

/*
 * After a load, once every section is in (tgpu_post_load()).  Every
 * kernel is its channel's and the engine keeps none: a kernel the VM
 * stop found on the engine goes on as one preempted there, in its
 * channel's next turn.
 */
bool tgpu_gr_loaded_valid(TGPUState *s)
{
    for (uint32_t i = 0; i < s->num_channels; i++) {
        TGPUKernel *k = s->chan[i].gr_kernel;

        /* again: a channel loaded a second time, without its kernel */
        if (k && !gr_kernel_of(&s->chan[i], k)) {
            return false;
        }
        if (k && k->x.sm_count != s->sm_count) {
            error_report("tgpu: compute: migrated kernel of channel %u ran "
                         "on %u SMs, this device has %u", i, k->x.sm_count,
                         s->sm_count);
            return false;
        }
    }
    return true;
}

void tgpu_gr_restore(TGPUState *s)
{
    tgpu_engine_restored(&s->gr->e);
}

const VMStateDescription tgpu_vmstate_gr = {
    .name = "tgpu/compute",
    .version_id = 1,
    .minimum_version_id = 1,
    .fields = (const VMStateField[]) {
        VMSTATE_STRUCT_POINTER(gr, TGPUState, vmstate_gr_engine,
                               TGPUComputeEngine),
        VMSTATE_END_OF_LIST()
    },
};

uint32_t tgpu_gr_read(TGPUState *s, hwaddr addr, bool *ok)
{
    TGPUComputeEngine *gr = s->gr;

    QEMU_LOCK_GUARD(&gr->e.lock);
    *ok = true;
    switch (addr) {
    case TGPU_GR_STATUS:
        return gr->e.state != TGPU_ENGINE_IDLE ? TGPU_GR_STATUS_BUSY : 0;
    case TGPU_GR_CHID:
        return gr->chid;
    case TGPU_GR_LAUNCHES:
        return gr->launches;
    case TGPU_GR_ERROR:
        return gr->error;
    case TGPU_GR_ERROR_PC:
        return gr->err_pc;
    case TGPU_GR_ERROR_CTA:
        return gr->err_cta;
    case TGPU_GR_ERROR_WARP:
        return gr->err_warp;
    case TGPU_GR_ERROR_LANE:
        return gr->err_lane;
    case TGPU_GR_ERROR_VA_LO:
        return gr->err_va;
    case TGPU_GR_ERROR_VA_HI:
        return gr->err_va >> 32;
    case TGPU_GR_ERROR_INFO:
        return gr->err_info;
    case TGPU_GR_WARP_INSNS_LO:
        return gr->warp_insns;
    case TGPU_GR_WARP_INSNS_HI:
        return gr->warp_insns >> 32;
    case TGPU_GR_LANE_OPS_LO:
        return gr->lane_ops;
    case TGPU_GR_LANE_OPS_HI:
        return gr->lane_ops >> 32;
    case TGPU_GR_PREEMPTS:
        return gr->preempts;
    case TGPU_GR_CLOCK_KHZ:
        return tgpu_therm_clock_mhz(s) * 1000;
    }
    *ok = false;
    return TGPU_REG_BADF;
}

void tgpu_gr_reset(TGPUState *s)
{
    TGPUComputeEngine *gr = s->gr;

    tgpu_engine_reset(&gr->e);
    for (uint32_t i = 0; i < s->num_channels; i++) {
        gr_kernel_free(s->chan[i].gr_kernel);
        s->chan[i].gr_kernel = NULL;
        s->chan[i].engine_wait = false;
        tgpu_engine_chan_settle(&gr->e, &s->chan[i]);
    }
    QEMU_LOCK_GUARD(&gr->e.lock);
    gr->chid = 0xffffffff;
    gr->launches = 0;
    gr->preempts = 0;
    gr->warp_insns = 0;
    gr->lane_ops = 0;
    gr->error = 0;
    gr->err_pc = gr->err_warp = gr->err_lane = gr->err_info = 0;
    gr->err_cta = gr->err_va = 0;
}

void tgpu_gr_init(TGPUState *s)
{
    /* it holds the executor's GrRun: see SIMT_ALIGN */
    TGPUComputeEngine *gr = qemu_memalign(SIMT_ALIGN, sizeof(*gr));

    memset(gr, 0, sizeof(*gr));
    tgpu_simt_select(true);
    s->gr = gr;
    gr->chid = 0xffffffff;
    tgpu_engine_init(&gr->e, s, &gr_engine_ops, "compute", "tgpu-compute",
                     TGPU_RUNLIST_COMPUTE, TGPU_ENGINE_COMPUTE,
                     TGPU_FAULT_ENGINE_COMPUTE, s->gr_thread_ctx);
    s->engine[TGPU_RUNLIST_COMPUTE] = &gr->e;
}

void tgpu_gr_exit(TGPUState *s)
{
    TGPUComputeEngine *gr = s->gr;

    tgpu_engine_exit(&gr->e);
    for (uint32_t i = 0; i < s->num_channels; i++) {
        gr_kernel_free(s->chan[i].gr_kernel);
    }
    qemu_vfree(gr);
}

