/*
 * tgpu copy engines CE0 and CE1: the copy class, linked-list descriptors
 * and one thread per engine
 *
 * docs/hw/copy.md is the manual.  The host unit hands each LAUNCH_DMA to
 * its engine under the BQL, as a TGPUCopyJob; the engine's thread runs it
 * without the BQL, in steps of at most TGPU_CE_CHUNK bytes, and between steps
 * honours a reset, a kill, a disable or a VM stop.  The thread touches
 * only RAM (VRAM, or guest RAM mapped by tgpu_sysmem_map()), never MMIO:
 * it never needs the BQL, so the BQL side may wait for it.  MMU faults,
 * the semaphore and the interrupt of a finished launch are done by
 * done_bh, under the BQL.
 *
 * A launch is time-sliced: when another channel of the runlist waits
 * (tgpu-host.c asks, through preempt()), the thread stops it at the end
 * of the piece in hand once its turn has written TGPU_CE_SLICE_BYTES,
 * and the launch's place (the one a migration saves) goes back to its
 * channel as a TGPUCopyHeld, which the channel's next turn hands the
 * engine again.
 *
 * Copyright (c) 2026 The tgpu authors
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */

#include "qemu/osdep.h"
#include "qemu/bswap.h"
#include "qemu/log.h"
#include "qemu/main-loop.h"
#include "qemu/rcu.h"
#include "qemu/units.h"
#include "qemu/error-report.h"
#include "migration/vmstate.h"
#include "tgpu.h"
#include "tgpu-stream-copy.h"
#include "trace.h"

/* Lines or descriptors between two such looks, for tiny ones. */
#define CE_STEPS            4096
/* Elements a remap stages at a time: 16 bytes at most each. */
#define CE_REMAP_BATCH      4096
/* A fill pattern is repeated into this many bytes before it is copied. */
#define CE_PATTERN_SIZE     (64 * KiB)
/* Blocks from this size up are streamed past the CPU caches. */
#define CE_STREAM_MIN       (64 * KiB)
/* at most this much written runs in the host unit's pass: microseconds */
#define CE_HERE_BYTES       (64 * KiB)
/* a step of a copy moves at most this much: how soon a launch gives way */
#define CE_PIECE            TGPU_CE_SLICE_BYTES

/* How a launch ended, as the thread found it. */
/*
 * The engine's own translation of its current run, as a copy engine's
 * micro-TLB has: a run is translated once, not once per line or chunk.
 * Valid while the MMU's tlb_gen is unchanged, i.e. until any TLB entry
 * is dropped (an invalidation, a context switch without tagging, a
 * forgotten entry).
 */
typedef struct CeXlate {
    bool valid;
    bool sysmem;
    uint64_t va, pa, len;
    uint64_t gen;
} CeXlate;

typedef struct TGPUCopyEngine TGPUCopyEngine;

/*
 * What a copy engine is asked to do: the launch as the channel's methods
 * set it up, captured under the BQL so the engine thread needs nothing
 * else of the channel.
 */
typedef struct TGPUCopyJob {
    TGPUVmCtx vm;
    uint32_t launch;
    uint64_t src, dst;
    uint32_t pitch_in, pitch_out, line_length, line_count;
    uint64_t desc;
    uint32_t const_a, const_b, remap;
    uint64_t sem_addr;
    uint32_t sem_payload;
} TGPUCopyJob;

typedef struct CeRun {
    TGPUCopyEngine *ce;
    const TGPUCopyJob *job;
    uint32_t error;             /* TGPU_CE_ERR_* */
    uint64_t error_va;
    int fault_type;
    bool fault_write;
    uint64_t progress;          /* bytes written */
    uint32_t desc_done;
    /*
     * Where the launch is, for a migration to resume it: the line or
     * descriptor in hand, the progress when it began, and for a chain
     * the descriptor's address and the length the check found
     */
    bool copying;               /* past a chain's check */
    uint32_t item;
    uint64_t item_base;
    uint64_t desc_va;
    uint32_t chain_len;
    uint64_t since_check;       /* bytes since the last checkpoint */
    uint32_t steps;             /* lines or descriptors since then */
    bool preempted;             /* it gave way: its place goes on later */
    uint64_t turn_base;         /* progress when this turn began */
    uint32_t turn_steps;        /* lines, pieces or descriptors this turn */
    uint8_t *pattern;           /* fills: the element, repeated */
    uint64_t pattern_len;
    CeXlate xl[2];              /* the last run read [0] and written [1] */
} CeRun;

/*
 * A launch that gave way to another channel: its channel keeps it
 * (ch->ce_held) until its next turn.  RUN is its place only.
 */
struct TGPUCopyHeld {
    TGPUCopyJob job;
    CeRun run;
};

/* One copy engine: the engine object, its launch and its registers. */
struct TGPUCopyEngine {
    TGPUEngine e;
    unsigned int index;         /* 0: CE0, 1: CE1 */
    TGPUCopyJob job;            /* set while IDLE, read by the thread */
    CeRun run;                  /* the thread's own, while it runs */
    /*
     * run goes on from its place (a migration's, or a held launch's next
     * turn); ended: it ended already, and only publishes
     */
    bool resume, resume_ended;
    bool yield;                 /* another channel waits: give way */
    uint32_t mig_at;
    /* the result and the registers, under e.lock */
    uint32_t chid;
    uint32_t launches;
    uint32_t error;             /* TGPU_CE_ERR_* */
    uint64_t error_va;
    int fault_type;             /* TGPU_FAULT_*, with TGPU_CE_ERR_FAULT */
    bool fault_write;
    uint64_t progress;
    uint32_t desc_done;
    uint64_t bytes;
    uint32_t preempts;
    bool preempted;             /* the last turn gave way */
};

static const char *const ce_names[TGPU_CE_COUNT] = { "CE0", "CE1" };

static TGPUCopyEngine *ce_of(TGPUEngine *e)
{
    return container_of(e, TGPUCopyEngine, e);
}

/* ---- the engine thread: moving bytes --------------------------------- */

/*
 * Should the launch give way now?  Only once its turn has had its
 * slice: TGPU_CE_SLICE_BYTES written, or CE_STEPS lines, pieces or
 * descriptors (so that two channels do not trade the engine at every
 * step, and a short launch ends in one turn).  Not while a chain is
 * checked: the check would start again.
 */
static bool ce_should_yield(CeRun *r)
{
    return qatomic_read(&r->ce->yield) &&
           (r->progress - r->turn_base >= TGPU_CE_SLICE_BYTES ||
            r->turn_steps >= CE_STEPS) &&
           (!(r->job->launch & TGPU_CE_LAUNCH_LINKED_LIST) || r->copying);
}

/*
 * Between steps (see tgpu_engine_checkpoint); false: cancelled, or the
 * launch gives way here (r->preempted), its place as it stands.
 */
static bool ce_checkpoint(CeRun *r)
{
    r->since_check = 0;
    r->steps = 0;
    if (!tgpu_engine_checkpoint(&r->ce->e)) {
        return false;
    }
    if (ce_should_yield(r)) {
        r->preempted = true;
        return false;
    }
    return true;
}

static bool ce_step(CeRun *r, uint64_t bytes)
{
    r->since_check += bytes;
    r->turn_steps++;
    if (++r->steps >= CE_STEPS || r->since_check >= TGPU_CE_CHUNK ||
        tgpu_engine_should_stop(&r->ce->e) || ce_should_yield(r)) {
        return ce_checkpoint(r);
    }
    return true;
}

static bool ce_fault(CeRun *r, uint32_t err, uint64_t va, int type,
                     bool is_write)
{
    r->error = err;
    r->error_va = va;
    r->fault_type = type;
    r->fault_write = is_write;
    return false;
}

/* Where a run of GPU addresses is in host memory, while it is mapped. */
typedef struct CeMap {
    uint8_t *p;
    uint64_t len;
    bool sysmem;
    uint64_t vram;              /* VRAM offset, when !sysmem */
    TGPUSysmemMap sys;          /* the guest RAM, when sysmem */
} CeMap;

/*
 * Map where [va, va + max) starts: m->p and the m->len bytes from there.
 * 0, or a fault type.  System memory is mapped only when it is RAM
 * (tgpu_sysmem_map): a bounce buffer for MMIO would need the BQL, which
 * this thread must never wait for (the BQL side waits for it).
 */
static int ce_map(CeRun *r, uint64_t va, uint64_t max, bool is_write,
                  CeMap *m)
{
    TGPUState *s = r->ce->e.s;
    CeXlate *c = &r->xl[is_write];
    uint64_t gen = qatomic_read(&s->tlb_gen);
    uint64_t pa, n;
    int fault;

    if (c->valid && c->gen == gen && va >= c->va && va - c->va < c->len) {
        pa = c->pa + (va - c->va);
        m->sysmem = c->sysmem;
        n = MIN(c->len - (va - c->va), max);
    } else {
        fault = tgpu_mmu_translate_run(s, &r->job->vm, TGPU_ACC_COPY, va,
                                       MIN(max, TGPU_CE_CHUNK), is_write, &pa,
                                       &m->sysmem, &n);
        if (fault) {
            c->valid = false;
            return fault;
        }
        *c = (CeXlate) {
            .valid = true, .sysmem = m->sysmem, .va = va, .pa = pa,
            .len = n, .gen = gen,
        };
    }
    if (!m->sysmem) {
        /* the MMU checked that a VRAM run lies inside VRAM */
        m->vram = pa;
        m->p = s->vram_ptr + pa;
        m->len = n;
        return 0;
    }
    m->p = tgpu_sysmem_map(s, pa, &n, is_write, &m->sys);
    if (!m->p) {
        /* not RAM (MMIO, a hole, bus mastering off): never cached */
        c->valid = false;
        tgpu_mmu_forget(s, &r->job->vm, va);
        return TGPU_FAULT_BAD_APERTURE;
    }
    m->len = n;
    return 0;
}

/* Unmap, DONE bytes written when IS_WRITE (they become dirty). */
static void ce_unmap(CeRun *r, CeMap *m, bool is_write, uint64_t done)
{
    if (m->sysmem) {
        tgpu_sysmem_unmap(&m->sys, done);
    } else if (is_write && done) {
        memory_region_set_dirty(&r->ce->e.s->vram, m->vram, done);
        tgpu_ecc_vram_write(r->ce->e.s, m->vram, done);
    }
}

/*
 * The first N bytes of M are about to be read: ECC errors there happen.
 * Returns how many may be read; fewer than N (*dbe set) when an
 * uncorrectable error stops the read before its 4 KiB page.
 */
static uint64_t ce_ecc_read(CeRun *r, const CeMap *m, uint64_t n, bool *dbe)
{
    TGPUCopyEngine *ce = r->ce;
    uint64_t bad, page;

    *dbe = false;
    if (m->sysmem ||
        tgpu_ecc_vram_read(ce->e.s, m->vram, n, TGPU_ECC_ENGINE_CE0 +
                           ce->index, r->job->vm.chid, &bad)) {
        return n;
    }
    *dbe = true;
    page = bad & ~(uint64_t)(TGPU_PAGE_SIZE - 1);
    return page > m->vram ? page - m->vram : 0;
}

/* Move bytes as a DMA engine does: large blocks past the CPU caches. */
static void ce_memmove(uint8_t *d, const uint8_t *s, size_t n)
{
    if (n >= CE_STREAM_MIN && (d + n <= s || s + n <= d)) {
        tgpu_stream_copy(d, s, n);
    } else {
        memmove(d, s, n);
    }
}

/* Copy [src, src + len) to dst, both GPU addresses. */
static bool ce_copy(CeRun *r, uint64_t dst, uint64_t src, uint64_t len)
{
    while (len) {
        CeMap sm, dm;
        uint64_t n;
        int fault;
        bool dbe;

        qemu_mutex_lock(&r->ce->e.run_lock);
        fault = ce_map(r, src, len, false, &sm);
        if (fault) {
            qemu_mutex_unlock(&r->ce->e.run_lock);
            return ce_fault(r, TGPU_CE_ERR_FAULT, src, fault, false);
        }
        fault = ce_map(r, dst, sm.len, true, &dm);
        if (fault) {
            ce_unmap(r, &sm, false, 0);
            qemu_mutex_unlock(&r->ce->e.run_lock);
            return ce_fault(r, TGPU_CE_ERR_FAULT, dst, fault, true);
        }
        n = ce_ecc_read(r, &sm, MIN(MIN(sm.len, dm.len), CE_PIECE), &dbe);
        ce_memmove(dm.p, sm.p, n);
        ce_unmap(r, &dm, true, n);
        ce_unmap(r, &sm, false, n);
        qemu_mutex_unlock(&r->ce->e.run_lock);
        if (dbe) {
            r->progress += n;
            return ce_fault(r, TGPU_CE_ERR_ECC, src + n, 0, false);
        }
        src += n;
        dst += n;
        len -= n;
        r->progress += n;
        if (!ce_step(r, n)) {
            return false;
        }
    }
    return true;
}

/*
 * Fill [dst + at, dst + len) with r->pattern, which starts at element 0
 * at DST.
 */
static bool ce_fill(CeRun *r, uint64_t dst, uint64_t at, uint64_t len)
{
    while (at < len) {
        uint64_t ph = at % r->pattern_len;
        CeMap dm;
        int fault;

        qemu_mutex_lock(&r->ce->e.run_lock);
        fault = ce_map(r, dst + at, MIN(len - at, r->pattern_len - ph), true,
                       &dm);
        if (fault) {
            qemu_mutex_unlock(&r->ce->e.run_lock);
            return ce_fault(r, TGPU_CE_ERR_FAULT, dst + at, fault, true);
        }
        memcpy(dm.p, r->pattern + ph, dm.len);
        ce_unmap(r, &dm, true, dm.len);
        qemu_mutex_unlock(&r->ce->e.run_lock);
        at += dm.len;
        r->progress += dm.len;
        if (!ce_step(r, dm.len)) {
            return false;
        }
    }
    return true;
}

/* Move bytes between a GPU address and a host buffer. */
static bool ce_xfer(CeRun *r, uint64_t va, void *buf, uint64_t len,
                    bool is_write, uint32_t err)
{
    uint8_t *b = buf;

    while (len) {
        CeMap m;
        int fault;
        bool dbe = false;

        qemu_mutex_lock(&r->ce->e.run_lock);
        fault = ce_map(r, va, len, is_write, &m);
        if (fault) {
            qemu_mutex_unlock(&r->ce->e.run_lock);
            return ce_fault(r, err, va, fault, is_write);
        }
        if (is_write) {
            memcpy(m.p, b, m.len);
        } else {
            m.len = ce_ecc_read(r, &m, m.len, &dbe);
            memcpy(b, m.p, m.len);
        }
        if (dbe) {
            ce_unmap(r, &m, false, m.len);
            qemu_mutex_unlock(&r->ce->e.run_lock);
            return ce_fault(r, TGPU_CE_ERR_ECC, va + m.len, 0, false);
        }
        ce_unmap(r, &m, is_write, m.len);
        qemu_mutex_unlock(&r->ce->e.run_lock);
        va += m.len;
        b += m.len;
        len -= m.len;
    }
    return true;
}

/* ---- the engine thread: launches --------------------------------------- */

static unsigned int remap_comp_size(uint32_t remap)
{
    return ((remap >> TGPU_CE_REMAP_COMP_SIZE_SHIFT) & 3) + 1;
}

static unsigned int remap_nsrc(uint32_t remap)
{
    return ((remap >> TGPU_CE_REMAP_NUM_SRC_SHIFT) & 3) + 1;
}

static unsigned int remap_ndst(uint32_t remap)
{
    return ((remap >> TGPU_CE_REMAP_NUM_DST_SHIFT) & 3) + 1;
}

static unsigned int remap_sel(uint32_t remap, unsigned int c)
{
    return (remap >> TGPU_CE_REMAP_DST_SHIFT(c)) & TGPU_CE_REMAP_SEL_MASK;
}

/* Is every destination component a constant?  Then a remap is a fill. */
static bool remap_is_fill(uint32_t remap)
{
    for (unsigned int c = 0; c < remap_ndst(remap); c++) {
        unsigned int sel = remap_sel(remap, c);

        if (sel != TGPU_CE_REMAP_CONST_A && sel != TGPU_CE_REMAP_CONST_B) {
            return false;
        }
    }
    return true;
}

/* r->pattern: ELEM bytes repeated into a buffer of whole elements. */
static void ce_pattern(CeRun *r, const uint8_t *elem, unsigned int size)
{
    r->pattern_len = CE_PATTERN_SIZE - CE_PATTERN_SIZE % size;
    r->pattern = g_malloc(r->pattern_len);
    for (uint64_t i = 0; i < r->pattern_len; i += size) {
        memcpy(r->pattern + i, elem, size);
    }
}

/* One destination element of a remap from its source element. */
static void remap_element(uint32_t remap, const uint8_t consts[2][4],
                          const uint8_t *src, uint8_t *dst)
{
    unsigned int cs = remap_comp_size(remap);

    for (unsigned int c = 0; c < remap_ndst(remap); c++) {
        unsigned int sel = remap_sel(remap, c);

        if (sel <= TGPU_CE_REMAP_SRC_W) {
            memcpy(dst + c * cs, src + sel * cs, cs);
        } else if (sel != TGPU_CE_REMAP_NO_WRITE) {
            memcpy(dst + c * cs, consts[sel - TGPU_CE_REMAP_CONST_A], cs);
        }
    }
}

/* One line of a remap that reads its source: staged through buffers. */
static bool ce_remap_line(CeRun *r, uint64_t dst, uint64_t src,
                          uint64_t elems, const uint8_t consts[2][4],
                          uint8_t *sbuf, uint8_t *dbuf)
{
    uint32_t remap = r->job->remap;
    unsigned int cs = remap_comp_size(remap);
    uint64_t selem = cs * remap_nsrc(remap), delem = cs * remap_ndst(remap);
    bool keeps = false;

    for (unsigned int c = 0; c < remap_ndst(remap); c++) {
        keeps |= remap_sel(remap, c) == TGPU_CE_REMAP_NO_WRITE;
    }
    while (elems) {
        uint64_t k = MIN(elems, CE_REMAP_BATCH);

        if (!ce_xfer(r, src, sbuf, k * selem, false, TGPU_CE_ERR_FAULT) ||
            (keeps &&
             !ce_xfer(r, dst, dbuf, k * delem, false, TGPU_CE_ERR_FAULT))) {
            return false;
        }
        for (uint64_t e = 0; e < k; e++) {
            remap_element(remap, consts, sbuf + e * selem, dbuf + e * delem);
        }
        if (!ce_xfer(r, dst, dbuf, k * delem, true, TGPU_CE_ERR_FAULT)) {
            return false;
        }
        src += k * selem;
        dst += k * delem;
        elems -= k;
        r->progress += k * delem;
        if (!ce_step(r, k * delem)) {
            return false;
        }
    }
    return true;
}

/* BASE + LINE * PITCH, or the VA limit (which faults) when beyond it. */
static uint64_t line_va(uint64_t base, uint32_t line, uint32_t pitch)
{
    uint64_t off = (uint64_t)line * pitch;

    if (base >= TGPU_VA_LIMIT || off >= TGPU_VA_LIMIT - base) {
        return TGPU_VA_LIMIT;
    }
    return base + off;
}

/* The lines of a pitch launch: LINE_COUNT's, or one without MULTI_LINE. */
static uint32_t ce_pitch_lines(const TGPUCopyJob *j)
{
    return (j->launch & TGPU_CE_LAUNCH_MULTI_LINE) ? j->line_count : 1;
}

/* A pitch launch: ce_pitch_lines() lines. */
static bool ce_run_pitch(CeRun *r)
{
    const TGPUCopyJob *j = r->job;
    bool remap = j->launch & TGPU_CE_LAUNCH_REMAP;
    uint32_t lines = ce_pitch_lines(j);
    uint64_t delem = 1;
    g_autofree uint8_t *sbuf = NULL, *dbuf = NULL;
    uint8_t consts[2][4];
    bool ok = true;

    stl_le_p(consts[0], j->const_a);
    stl_le_p(consts[1], j->const_b);
    if (remap) {
        unsigned int cs = remap_comp_size(j->remap);
        uint8_t elem[16];

        delem = cs * remap_ndst(j->remap);
        if (remap_is_fill(j->remap)) {
            remap_element(j->remap, consts, NULL, elem);
            ce_pattern(r, elem, delem);
        } else {
            sbuf = g_malloc(CE_REMAP_BATCH * cs * remap_nsrc(j->remap));
            dbuf = g_malloc(CE_REMAP_BATCH * delem);
        }
    }
    if (!j->line_length) {
        return true;
    }
    for (uint32_t i = r->item; ok && i < lines; i++) {
        uint64_t src = line_va(j->src, i, j->pitch_in);
        uint64_t dst = line_va(j->dst, i, j->pitch_out);
        uint64_t len = j->line_length * delem;
        /* what a migrated launch did of this line already */
        uint64_t skip = MIN(r->progress - r->item_base, len);

        if (!remap) {
            ok = ce_copy(r, dst + skip, src + skip, len - skip);
        } else if (r->pattern) {
            ok = ce_fill(r, dst, skip, len);
        } else {
            skip /= delem;
            ok = ce_remap_line(r, dst + skip * delem, src +
                               skip * remap_nsrc(j->remap) *
                               remap_comp_size(j->remap),
                               j->line_length - skip, consts, sbuf, dbuf);
        }
        if (ok) {
            r->item = i + 1;
            r->item_base = r->progress;
        }
        ok = ok && ce_step(r, 0);
    }
    return ok;
}

typedef struct CeDesc {
    uint64_t src, dst, next;
    uint32_t length, flags;
} CeDesc;

static bool ce_read_desc(CeRun *r, uint64_t va, CeDesc *d)
{
    uint8_t raw[TGPU_CE_DESC_SIZE];

    if (va % TGPU_CE_DESC_SIZE) {
        return ce_fault(r, TGPU_CE_ERR_DESC_BAD, va, 0, false);
    }
    if (!ce_xfer(r, va, raw, sizeof(raw), false, TGPU_CE_ERR_DESC_FAULT)) {
        return false;
    }
    d->src = ldq_le_p(raw + TGPU_CE_DESC_SRC);
    d->dst = ldq_le_p(raw + TGPU_CE_DESC_DST);
    d->next = ldq_le_p(raw + TGPU_CE_DESC_NEXT);
    d->length = ldl_le_p(raw + TGPU_CE_DESC_LENGTH);
    d->flags = ldl_le_p(raw + TGPU_CE_DESC_FLAGS);
    if (d->flags & ~TGPU_CE_DESC_FLAGS_VALID) {
        return ce_fault(r, TGPU_CE_ERR_DESC_BAD, va, 0, false);
    }
    return true;
}

/*
 * Walk the chain once before copying anything: every descriptor must be
 * readable and valid, the chain must end within TGPU_CE_CHAIN_MAX, and
 * it must not loop (Brent's cycle finding: constant memory, at most a
 * few times the chain's length in steps).  Returns its length, or 0.
 */
static uint32_t ce_chain_check(CeRun *r)
{
    uint64_t va = r->job->desc, tortoise = va;
    uint32_t n = 0, power = 1, lam = 0;
    CeDesc d;

    while (va) {
        if (n == TGPU_CE_CHAIN_MAX) {
            ce_fault(r, TGPU_CE_ERR_CHAIN_LONG, va, 0, false);
            return 0;
        }
        if (!ce_read_desc(r, va, &d)) {
            return 0;
        }
        n++;
        if (d.next && d.next == tortoise) {
            ce_fault(r, TGPU_CE_ERR_CHAIN_CYCLE, d.next, 0, false);
            return 0;
        }
        if (++lam == power) {
            tortoise = d.next;
            power *= 2;
            lam = 0;
        }
        va = d.next;
        if (!ce_step(r, 0)) {
            return 0;
        }
    }
    return n;
}

static bool ce_run_chain(CeRun *r)
{
    uint64_t va = r->job->desc;
    uint8_t fill[4];
    CeDesc d;

    if (r->copying) {
        /* a migrated launch: the descriptor in hand, as far as it got */
        va = r->desc_va;
    } else {
        r->chain_len = ce_chain_check(r);
        if (r->error || !r->chain_len) {
            return !r->error && !qatomic_read(&r->ce->e.abort);
        }
        r->copying = true;
        r->desc_va = va;
    }
    stl_le_p(fill, r->job->const_a);
    ce_pattern(r, fill, sizeof(fill));
    /* the chain may change under the engine: it runs no more than it saw */
    for (uint32_t i = r->item; i < r->chain_len && va; i++) {
        uint64_t skip;

        r->desc_done = i;
        r->desc_va = va;
        if (!ce_read_desc(r, va, &d)) {
            return false;
        }
        /* what a migrated launch did of this descriptor already */
        skip = MIN(r->progress - r->item_base, d.length);
        if ((d.flags & TGPU_CE_DESC_FILL)
            ? !ce_fill(r, d.dst, skip, d.length)
            : !ce_copy(r, d.dst + skip, d.src + skip, d.length - skip)) {
            return false;
        }
        r->desc_done++;
        va = d.next;
        r->item = i + 1;
        r->desc_va = va;
        r->item_base = r->progress;
        if (!ce_step(r, 0)) {
            return false;
        }
    }
    return true;
}

static void ce_run(CeRun *r)
{
    uint32_t launch = r->job->launch;

    if ((launch & TGPU_CE_LAUNCH_TRANSFER_MASK) == TGPU_CE_TRANSFER_NONE) {
        return;
    }
    if (launch & TGPU_CE_LAUNCH_LINKED_LIST) {
        ce_run_chain(r);
    } else {
        ce_run_pitch(r);
    }
}

/* The engine's thread: run the queued launch. */
static void ce_engine_run(TGPUEngine *e)
{
    TGPUCopyEngine *ce = ce_of(e);
    CeRun *r = &ce->run;
    bool resume = ce->resume, ended = ce->resume_ended;

    ce->resume = ce->resume_ended = false;
    if (resume) {
        /* a migration brought it: its place and result, nothing else */
        *r = (CeRun) {
            .ce = ce, .job = &ce->job, .error = r->error,
            .error_va = r->error_va, .fault_type = r->fault_type,
            .fault_write = r->fault_write, .progress = r->progress,
            .desc_done = r->desc_done, .copying = r->copying,
            .item = r->item, .item_base = r->item_base,
            .desc_va = r->desc_va, .chain_len = r->chain_len,
            .turn_base = r->turn_base,
        };
        if (ended) {
            return;
        }
    } else {
        *r = (CeRun) { .ce = ce, .job = &ce->job };
    }
    trace_tgpu_ce_start(ce->index, ce->job.vm.chid, ce->job.launch,
                        ce->job.src, ce->job.dst);
    ce_run(r);
    g_free(r->pattern);
    r->pattern = NULL;
}

/* Under e->lock, on the thread: the progress, at the end the result. */
static void ce_engine_publish(TGPUEngine *e, bool end, bool cancelled)
{
    TGPUCopyEngine *ce = ce_of(e);
    CeRun *r = &ce->run;

    ce->progress = r->progress;
    ce->desc_done = r->desc_done;
    if (!end) {
        return;
    }
    ce->bytes += r->progress - r->turn_base;
    ce->preempted = !cancelled && r->preempted;
    if (!cancelled) {
        ce->error = r->error;
        ce->error_va = r->error_va;
        ce->fault_type = r->fault_type;
        ce->fault_write = r->fault_write;
    }
    if (ce->preempted) {
        trace_tgpu_ce_preempt(ce->index, ce->job.vm.chid, r->progress,
                              r->desc_done);
    } else {
        trace_tgpu_ce_end(ce->index, ce->job.vm.chid, r->progress, r->error);
    }
}

/* ---- under the BQL: launches and their end ----------------------------- */

/*
 * A pitch launch of at most CE_HERE_BYTES written runs in the host unit's
 * pass that launched it: a 4 KiB copy costs less than the thread's
 * wake-up and the main loop's after it.  Not one a migration brought.
 */
static bool ce_engine_run_here(TGPUEngine *e)
{
    TGPUCopyEngine *ce = ce_of(e);
    const TGPUCopyJob *j = &ce->job;
    uint64_t lines = ce_pitch_lines(j);
    /* a remap writes up to 16 bytes an element */
    uint64_t unit = (j->launch & TGPU_CE_LAUNCH_REMAP) ? 16 : 1;

    if (ce->resume || (j->launch & TGPU_CE_LAUNCH_LINKED_LIST) ||
        lines * j->line_length > CE_HERE_BYTES / unit) {
        return false;
    }
    ce_engine_run(e);
    return true;
}

/* Semaphore and interrupt of a launch that ended well. */
static void ce_finish(TGPUState *s, TGPUChannel *ch, const TGPUCopyJob *j)
{
    tgpu_launch_done(s, ch, j->launch, j->sem_addr, j->sem_payload);
}

/* Under the BQL: the launch ended; the thread leaves it alone now. */
static void ce_engine_done(TGPUEngine *e)
{
    TGPUCopyEngine *ce = ce_of(e);
    TGPUState *s = e->s;
    const TGPUCopyJob *job = &ce->job;
    TGPUChannel *ch = &s->chan[job->vm.chid];
    uint32_t err = ce->error;
    uint64_t va = ce->error_va;
    int type = ce->fault_type;

    if (ce->preempted) {
        /* it gave way: its channel keeps its place for its next turn */
        TGPUCopyHeld *h = g_new(TGPUCopyHeld, 1);

        h->job = ce->job;
        h->run = ce->run;
        h->run.ce = NULL;
        h->run.job = NULL;
        h->run.preempted = false;
        g_free(ch->ce_held);
        ch->ce_held = h;
        WITH_QEMU_LOCK_GUARD(&e->lock) {
            ce->preempted = false;
            ce->preempts++;
        }
        tgpu_host_kick(s);
        return;
    }
    if (err == TGPU_CE_ERR_FAULT ||
        (err == TGPU_CE_ERR_DESC_FAULT && type)) {
        tgpu_mmu_report_fault(s, &job->vm, e->fault_engine, va,
                              ce->fault_write, type);
    }
    if (err) {
        qemu_log_mask(LOG_GUEST_ERROR,
                      "tgpu: %s: channel %u: launch failed at 0x%010"
                      PRIx64 ": %s\n", e->name, job->vm.chid,
                      va, tgpu_ce_error_meaning(err));
        if (err == TGPU_CE_ERR_ECC) {
            tgpu_chan_fail(s, ch, TGPU_ERR_ECC_UNCORRECTABLE,
                           TGPU_ECC_ENGINE_CE0 + ce->index);
        } else {
            tgpu_chan_fail(s, ch, TGPU_ERR_COPY,
                           TGPU_CE_ERR_INFO(ce->index, err));
        }
    } else {
        ce_finish(s, ch, job);
    }
    tgpu_host_kick(s);
}

/* Under the BQL: CH's launch that gave way goes on, before anything else. */
static bool ce_engine_resume(TGPUEngine *e, TGPUChannel *ch)
{
    TGPUCopyEngine *ce = ce_of(e);
    TGPUCopyHeld *h = ch->ce_held;

    if (!h || ch->engine_wait) {
        return false;
    }
    ch->ce_held = NULL;
    ce->job = h->job;
    ce->run = h->run;
    ce->run.turn_base = h->run.progress;
    ce->resume = true;
    ce->resume_ended = false;
    qatomic_set(&ce->yield, false);
    g_free(h);
    WITH_QEMU_LOCK_GUARD(&e->lock) {
        ce->chid = ch->id;
        ce->error = 0;
        ce->error_va = 0;
        ce->progress = ce->run.progress;
        ce->desc_done = ce->run.desc_done;
    }
    trace_tgpu_ce_resume(ce->index, ch->id, ce->run.progress);
    tgpu_engine_queue(e, ch->id);
    return true;
}

static bool ce_engine_holds(TGPUEngine *e, TGPUChannel *ch)
{
    return ch->ce_held;
}

/* Under the BQL: another channel waits; the launch gives way at a step. */
static void ce_engine_preempt(TGPUEngine *e)
{
    qatomic_set(&ce_of(e)->yield, true);
}

/* The channel goes away: so does its launch that gave way. */
static void ce_engine_forget(TGPUEngine *e, TGPUChannel *ch)
{
    g_free(ch->ce_held);
    ch->ce_held = NULL;
}

static void ce_engine_cancelled(TGPUEngine *e, int chid)
{
    /* a migrated launch dropped before its thread took it up again */
    ce_of(e)->resume = ce_of(e)->resume_ended = false;
    if (chid >= 0) {
        trace_tgpu_ce_cancel(ce_of(e)->index, chid);
    }
}

/* Why LAUNCH_DMA cannot run with REMAP, or TGPU_CE_ERR_NONE. */
static uint32_t ce_launch_check(uint32_t launch, uint32_t remap)
{
    bool copies = (launch & TGPU_CE_LAUNCH_TRANSFER_MASK) !=
                  TGPU_CE_TRANSFER_NONE;
    const uint32_t pitch = TGPU_CE_LAUNCH_SRC_PITCH |
                           TGPU_CE_LAUNCH_DST_PITCH;

    if ((launch & ~TGPU_CE_LAUNCH_VALID_MASK) ||
        (launch & TGPU_CE_LAUNCH_TRANSFER_MASK) == 3 ||
        ((launch >> TGPU_CE_LAUNCH_SEM_SHIFT) &
         TGPU_CE_LAUNCH_SEM_MASK) == 3 ||
        ((launch >> TGPU_CE_LAUNCH_INTR_SHIFT) &
         TGPU_CE_LAUNCH_INTR_MASK) == 3 ||
        (copies && (launch & pitch) != pitch) ||
        ((launch & TGPU_CE_LAUNCH_LINKED_LIST) &&
         (launch & (TGPU_CE_LAUNCH_MULTI_LINE | TGPU_CE_LAUNCH_REMAP)))) {
        return TGPU_CE_ERR_LAUNCH;
    }
    if (copies && (launch & TGPU_CE_LAUNCH_REMAP)) {
        if (remap & ~TGPU_CE_REMAP_VALID_MASK) {
            return TGPU_CE_ERR_REMAP;
        }
        for (unsigned int c = 0; c < remap_ndst(remap); c++) {
            unsigned int sel = remap_sel(remap, c);

            if (sel > TGPU_CE_REMAP_NO_WRITE ||
                (sel <= TGPU_CE_REMAP_SRC_W && sel >= remap_nsrc(remap))) {
                return TGPU_CE_ERR_REMAP;
            }
        }
    }
    return TGPU_CE_ERR_NONE;
}

static TGPUMethodResult ce_launch(TGPUCopyEngine *ce, TGPUChannel *ch,
                                  uint32_t launch)
{
    TGPUState *s = ce->e.s;
    uint32_t err = ce_launch_check(launch, ch->ce_remap);
    TGPUCopyJob job = {
        .vm = tgpu_chan_vm(ch),
        .launch = launch,
        .src = (uint64_t)(ch->ce_in_upper & TGPU_CE_UPPER_MASK) << 32 |
               ch->ce_in_lower,
        .dst = (uint64_t)(ch->ce_out_upper & TGPU_CE_UPPER_MASK) << 32 |
               ch->ce_out_lower,
        .pitch_in = ch->ce_pitch_in,
        .pitch_out = ch->ce_pitch_out,
        .line_length = ch->ce_line_length,
        .line_count = ch->ce_line_count,
        .desc = (uint64_t)(ch->ce_desc_upper & TGPU_CE_UPPER_MASK) << 32 |
                ch->ce_desc_lower,
        .const_a = ch->ce_const_a,
        .const_b = ch->ce_const_b,
        .remap = ch->ce_remap,
        .sem_addr = (uint64_t)(ch->ce_sem_a & TGPU_CE_UPPER_MASK) << 32 |
                    ch->ce_sem_b,
        .sem_payload = ch->ce_sem_payload,
    };

    trace_tgpu_ce_launch(ce->index, ch->id, launch);
    WITH_QEMU_LOCK_GUARD(&ce->e.lock) {
        ce->chid = ch->id;
        ce->launches++;
        ce->error = err;
        ce->error_va = 0;
        ce->progress = 0;
        ce->desc_done = 0;
    }
    if (!err) {
        /* before the engine has it: a hang it fires takes this launch */
        tgpu_fault_count(s, TGPU_TRIGGER_EVENT_COPY_LAUNCHES, ch->id);
    }
    if (!err && (launch & TGPU_CE_LAUNCH_TRANSFER_MASK) !=
                TGPU_CE_TRANSFER_NONE) {
        ce->job = job;
        ce->resume = ce->resume_ended = false;
        qatomic_set(&ce->yield, false);
        tgpu_engine_queue(&ce->e, ch->id);
        return TGPU_MTHD_LAUNCHED;
    }
    if (err) {
        qemu_log_mask(LOG_GUEST_ERROR,
                      "tgpu: %s: channel %u: LAUNCH_DMA 0x%08x refused: "
                      "%s\n", ce->e.name, ch->id, launch,
                      tgpu_ce_error_meaning(err));
        tgpu_chan_fail(s, ch, TGPU_ERR_COPY, TGPU_CE_ERR_INFO(ce->index, err));
        return TGPU_MTHD_ERROR;
    }
    ce_finish(s, ch, &job);
    return ch->error ? TGPU_MTHD_ERROR : TGPU_MTHD_OK;
}

static TGPUMethodResult ce_engine_method(TGPUEngine *e, TGPUChannel *ch,
                                        uint32_t mthd, uint32_t data)
{
    switch (mthd) {
    case TGPU_CE_M_NOP:
        return TGPU_MTHD_OK;
    case TGPU_CE_M_SET_SEMAPHORE_A:
        ch->ce_sem_a = data;
        return TGPU_MTHD_OK;
    case TGPU_CE_M_SET_SEMAPHORE_B:
        ch->ce_sem_b = data;
        return TGPU_MTHD_OK;
    case TGPU_CE_M_SET_SEMAPHORE_PAYLOAD:
        ch->ce_sem_payload = data;
        return TGPU_MTHD_OK;
    case TGPU_CE_M_LAUNCH_DMA:
        return ce_launch(ce_of(e), ch, data);
    case TGPU_CE_M_OFFSET_IN_UPPER:
        ch->ce_in_upper = data;
        return TGPU_MTHD_OK;
    case TGPU_CE_M_OFFSET_IN_LOWER:
        ch->ce_in_lower = data;
        return TGPU_MTHD_OK;
    case TGPU_CE_M_OFFSET_OUT_UPPER:
        ch->ce_out_upper = data;
        return TGPU_MTHD_OK;
    case TGPU_CE_M_OFFSET_OUT_LOWER:
        ch->ce_out_lower = data;
        return TGPU_MTHD_OK;
    case TGPU_CE_M_PITCH_IN:
        ch->ce_pitch_in = data;
        return TGPU_MTHD_OK;
    case TGPU_CE_M_PITCH_OUT:
        ch->ce_pitch_out = data;
        return TGPU_MTHD_OK;
    case TGPU_CE_M_LINE_LENGTH_IN:
        ch->ce_line_length = data;
        return TGPU_MTHD_OK;
    case TGPU_CE_M_LINE_COUNT:
        ch->ce_line_count = data;
        return TGPU_MTHD_OK;
    case TGPU_CE_M_DESC_LIST_UPPER:
        ch->ce_desc_upper = data;
        return TGPU_MTHD_OK;
    case TGPU_CE_M_DESC_LIST_LOWER:
        ch->ce_desc_lower = data;
        return TGPU_MTHD_OK;
    case TGPU_CE_M_SET_REMAP_CONST_A:
        ch->ce_const_a = data;
        return TGPU_MTHD_OK;
    case TGPU_CE_M_SET_REMAP_CONST_B:
        ch->ce_const_b = data;
        return TGPU_MTHD_OK;
    case TGPU_CE_M_SET_REMAP_COMPONENTS:
        ch->ce_remap = data;
        return TGPU_MTHD_OK;
    }
    tgpu_chan_fail(e->s, ch, TGPU_ERR_ENGINE, TGPU_CLASS_COPY << 16 | mthd);
    return TGPU_MTHD_ERROR;
}

static const TGPUEngineOps ce_engine_ops = {
    .cls = TGPU_CLASS_COPY,
    .method_name = tgpu_ce_method_name,
    .method = ce_engine_method,
    .run = ce_engine_run,
    .run_here = ce_engine_run_here,
    .publish = ce_engine_publish,
    .done = ce_engine_done,
    .cancelled = ce_engine_cancelled,
    .holds = ce_engine_holds,
    .resume = ce_engine_resume,
    .forget = ce_engine_forget,
    .preempt = ce_engine_preempt,
};

/* ---- migration --------------------------------------------------------- */

static int ce_pre_save(void *opaque)
{
    TGPUCopyEngine *ce = opaque;

    QEMU_LOCK_GUARD(&ce->e.lock);
    /* loaded and not run since: saved again as it was loaded */
    if (!ce->e.restore_pending) {
        ce->mig_at = ce->e.at;
    }
    return 0;
}

/* a launch as its channel's methods set it up */
static const VMStateDescription vmstate_ce_job = {
    .name = "tgpu/ce/job",
    .version_id = 1,
    .minimum_version_id = 1,
    .fields = (const VMStateField[]) {
        VMSTATE_UINT32(vm.chid, TGPUCopyJob),
        VMSTATE_UINT32(vm.flags, TGPUCopyJob),
        VMSTATE_UINT32(vm.asid, TGPUCopyJob),
        VMSTATE_UINT64(vm.pdb, TGPUCopyJob),
        VMSTATE_UINT32(launch, TGPUCopyJob),
        VMSTATE_UINT64(src, TGPUCopyJob),
        VMSTATE_UINT64(dst, TGPUCopyJob),
        VMSTATE_UINT32(pitch_in, TGPUCopyJob),
        VMSTATE_UINT32(pitch_out, TGPUCopyJob),
        VMSTATE_UINT32(line_length, TGPUCopyJob),
        VMSTATE_UINT32(line_count, TGPUCopyJob),
        VMSTATE_UINT64(desc, TGPUCopyJob),
        VMSTATE_UINT32(const_a, TGPUCopyJob),
        VMSTATE_UINT32(const_b, TGPUCopyJob),
        VMSTATE_UINT32(remap, TGPUCopyJob),
        VMSTATE_UINT64(sem_addr, TGPUCopyJob),
        VMSTATE_UINT32(sem_payload, TGPUCopyJob),
        VMSTATE_END_OF_LIST()
    },
};

/* how far a launch got: its place, or how it ended */
static const VMStateDescription vmstate_ce_place = {
    .name = "tgpu/ce/place",
    .version_id = 1,
    .minimum_version_id = 1,
    .fields = (const VMStateField[]) {
        VMSTATE_UINT32(error, CeRun),
        VMSTATE_UINT64(error_va, CeRun),
        VMSTATE_INT32(fault_type, CeRun),
        VMSTATE_BOOL(fault_write, CeRun),
        VMSTATE_UINT64(progress, CeRun),
        VMSTATE_UINT32(desc_done, CeRun),
        VMSTATE_BOOL(copying, CeRun),
        VMSTATE_UINT32(item, CeRun),
        VMSTATE_UINT64(item_base, CeRun),
        VMSTATE_UINT64(desc_va, CeRun),
        VMSTATE_UINT32(chain_len, CeRun),
        VMSTATE_END_OF_LIST()
    },
};

static bool ce_turn_needed(void *opaque)
{
    TGPUCopyEngine *ce = opaque;

    return ce->resume || ce->run.turn_base || ce->preempts;
}

/*
 * Time slicing: a queued turn of a launch that gave way (it goes on from
 * run's place), how much the turn on the engine began with, and the
 * count.  Only when there was any, so that older streams still load.
 */
static const VMStateDescription vmstate_ce_turn = {
    .name = "tgpu/ce/engine/turn",
    .version_id = 1,
    .minimum_version_id = 1,
    .needed = ce_turn_needed,
    .fields = (const VMStateField[]) {
        VMSTATE_BOOL(resume, TGPUCopyEngine),
        VMSTATE_UINT64(run.turn_base, TGPUCopyEngine),
        VMSTATE_UINT32(preempts, TGPUCopyEngine),
        VMSTATE_END_OF_LIST()
    },
};

static int ce_pre_load(void *opaque)
{
    TGPUCopyEngine *ce = opaque;

    /* what vmstate_ce_turn brings when the source had any */
    ce->resume = false;
    ce->run.turn_base = 0;
    ce->preempts = 0;
    return 0;
}

static const VMStateDescription vmstate_ce = {
    .name = "tgpu/ce/engine",
    .version_id = 1,
    .minimum_version_id = 1,
    .pre_save = ce_pre_save,
    .pre_load = ce_pre_load,
    .fields = (const VMStateField[]) {
        VMSTATE_STRUCT(e, TGPUCopyEngine, 1, tgpu_vmstate_engine, TGPUEngine),
        /* the launch in hand */
        VMSTATE_STRUCT(job, TGPUCopyEngine, 1, vmstate_ce_job, TGPUCopyJob),
        /* how far the thread got: its place, or how it ended */
        VMSTATE_UINT32(mig_at, TGPUCopyEngine),
        VMSTATE_STRUCT(run, TGPUCopyEngine, 1, vmstate_ce_place, CeRun),
        /* registers */
        VMSTATE_UINT32(chid, TGPUCopyEngine),
        VMSTATE_UINT32(launches, TGPUCopyEngine),
        VMSTATE_UINT32(error, TGPUCopyEngine),
        VMSTATE_UINT64(error_va, TGPUCopyEngine),
        VMSTATE_INT32(fault_type, TGPUCopyEngine),
        VMSTATE_BOOL(fault_write, TGPUCopyEngine),
        VMSTATE_UINT64(progress, TGPUCopyEngine),
        VMSTATE_UINT32(desc_done, TGPUCopyEngine),
        VMSTATE_UINT64(bytes, TGPUCopyEngine),
        VMSTATE_END_OF_LIST()
    },
    .subsections = (const VMStateDescription * const []) {
        &vmstate_ce_turn,
        NULL
    },
};

static const VMStateDescription vmstate_ce_held = {
    .name = "tgpu/ce/held",
    .version_id = 1,
    .minimum_version_id = 1,
    .fields = (const VMStateField[]) {
        VMSTATE_STRUCT(job, TGPUCopyHeld, 1, vmstate_ce_job, TGPUCopyJob),
        VMSTATE_STRUCT(run, TGPUCopyHeld, 1, vmstate_ce_place, CeRun),
        VMSTATE_END_OF_LIST()
    },
};

static bool chan_copy_needed(void *opaque)
{
    TGPUChannel *ch = opaque;

    return ch->ce_held;
}

static int chan_copy_pre_load(void *opaque)
{
    TGPUChannel *ch = opaque;

    g_free(ch->ce_held);
    ch->ce_held = g_new0(TGPUCopyHeld, 1);
    return 0;
}

/* a launch of the channel's that gave way (tgpu-host.c); tgpu_ce_loaded() */
const VMStateDescription tgpu_vmstate_chan_copy = {
    .name = "tgpu/channel/copy",
    .version_id = 1,
    .minimum_version_id = 1,
    .needed = chan_copy_needed,
    .pre_load = chan_copy_pre_load,
    .fields = (const VMStateField[]) {
        VMSTATE_STRUCT_POINTER(ce_held, TGPUChannel, vmstate_ce_held,
                               TGPUCopyHeld),
        VMSTATE_END_OF_LIST()
    },
};

/* An error and the MMU fault type with it, as the engine leaves them. */
static bool ce_fault_valid(uint32_t err, int type)
{
    if (err == TGPU_CE_ERR_FAULT) {
        return type >= TGPU_FAULT_NOT_PRESENT && type <= TGPU_FAULT_ECC;
    }
    return type >= 0 && type <= TGPU_FAULT_ECC;
}

/* Is J a launch that channel J->vm.chid could have handed CE INDEX? */
static bool ce_job_of_chan(TGPUState *s, unsigned int index,
                           const TGPUCopyJob *j)
{
    TGPUChannel *ch;

    if (j->vm.chid >= s->num_channels) {
        return false;
    }
    ch = &s->chan[j->vm.chid];
    return ch->enabled && !ch->error &&
           ch->engine == TGPU_RUNLIST_CE0 + index &&
           j->vm.flags == ch->flags && j->vm.asid == ch->asid &&
           j->vm.pdb == ch->pdb && !ce_launch_check(j->launch, j->remap) &&
           (j->launch & TGPU_CE_LAUNCH_TRANSFER_MASK) !=
           TGPU_CE_TRANSFER_NONE;
}

/* Is R a place within launch J, never past its progress? */
static bool ce_place_valid(const TGPUCopyJob *j, const CeRun *r)
{
    uint32_t lines = (j->launch & TGPU_CE_LAUNCH_MULTI_LINE) ?
                     j->line_count : 1;

    if (!ce_fault_valid(r->error, r->fault_type) ||
        r->turn_base > r->progress) {
        return false;
    }
    if (j->launch & TGPU_CE_LAUNCH_LINKED_LIST) {
        return r->chain_len <= TGPU_CE_CHAIN_MAX &&
               r->item <= r->chain_len && r->desc_done <= r->chain_len &&
               r->item_base <= r->progress &&
               !(r->desc_va % TGPU_CE_DESC_SIZE) &&
               (r->copying || (!r->item && !r->progress));
    }
    return r->item <= lines && r->item_base <= r->progress && !r->copying;
}

/* Is the launch one its channel could have handed this engine? */
static bool ce_job_valid(TGPUState *s, TGPUCopyEngine *ce)
{
    const TGPUCopyJob *j = &ce->job;

    if (j->vm.chid != ce->e.chid || !ce_job_of_chan(s, ce->index, j)) {
        return false;
    }
    /* a result done() reports: an MMU fault needs a type it can name */
    if (ce->e.mig_state == TGPU_ENGINE_DONE &&
        !ce_fault_valid(ce->error, ce->fault_type)) {
        return false;
    }
    /* a fresh launch starts at its beginning: no place to check */
    if (!ce->resume && (ce->e.mig_state != TGPU_ENGINE_RUNNING ||
                        ce->mig_at == TGPU_ENGINE_AT_START)) {
        return true;
    }
    return ce_place_valid(j, &ce->run);
}

/*
 * A launch a channel keeps between turns: its own, on its engine, in a
 * place a turn can end at (never while a chain is checked), and not
 * also on the engine.
 */
static bool ce_held_valid(TGPUState *s, TGPUChannel *ch)
{
    const TGPUCopyHeld *h = ch->ce_held;
    unsigned int index = ch->engine - TGPU_RUNLIST_CE0;
    TGPUCopyEngine *ce;

    if (ch->engine != TGPU_RUNLIST_CE0 && ch->engine != TGPU_RUNLIST_CE1) {
        return false;
    }
    ce = s->ce[index];
    if (h->job.vm.chid != ch->id || !ce_job_of_chan(s, index, &h->job) ||
        h->run.error || h->run.turn_base ||
        !ce_place_valid(&h->job, &h->run) ||
        ((h->job.launch & TGPU_CE_LAUNCH_LINKED_LIST) && !h->run.copying)) {
        return false;
    }
    return ce->e.mig_state == TGPU_ENGINE_IDLE || ce->e.chid != ch->id;
}

/*
 * After a load, once every section is in (tgpu_post_load()): are the
 * launches ones their channels could have handed the engines?  Their
 * channels wait for them from now on.
 */
bool tgpu_ce_loaded(TGPUState *s)
{
    for (unsigned int i = 0; i < TGPU_CE_COUNT; i++) {
        TGPUCopyEngine *ce = s->ce[i];

        if (ce->e.mig_state == TGPU_ENGINE_IDLE) {
            /* a flag for a queued turn means nothing without one */
            ce->resume = false;
            continue;
        }
        if (ce->mig_at > TGPU_ENGINE_AT_END || !ce_job_valid(s, ce)) {
            error_report("tgpu: %s: migrated launch of channel %u is out "
                         "of range", ce->e.name, ce->job.vm.chid);
            return false;
        }
        s->chan[ce->job.vm.chid].engine_wait = true;
    }
    for (uint32_t c = 0; c < s->num_channels; c++) {
        if (s->chan[c].ce_held && !ce_held_valid(s, &s->chan[c])) {
            error_report("tgpu: migrated copy of channel %u that gave way "
                         "is out of range", c);
            return false;
        }
    }
    return true;
}

/*
 * When the loaded VM first runs: each engine takes its launch up again
 * where the VM stop found it (tgpu-engine.h, TGPUEnginePlace), and its
 * channel waits for it.
 */
void tgpu_ce_restore(TGPUState *s)
{
    for (unsigned int i = 0; i < TGPU_CE_COUNT; i++) {
        TGPUCopyEngine *ce = s->ce[i];
        TGPUEngineState st = ce->e.mig_state;

        if (st == TGPU_ENGINE_IDLE) {
            tgpu_engine_restored(&ce->e);
            continue;
        }
        if (st == TGPU_ENGINE_RUNNING) {
            /* at its start: a fresh launch, or a queued turn (resume) */
            ce->resume = ce->resume || ce->mig_at != TGPU_ENGINE_AT_START;
            ce->resume_ended = ce->mig_at == TGPU_ENGINE_AT_END;
            st = TGPU_ENGINE_QUEUED;
        }
        tgpu_engine_restore(&ce->e, st, ce->job.vm.chid);
    }
}

const VMStateDescription tgpu_vmstate_ce = {
    .name = "tgpu/ce",
    .version_id = 1,
    .minimum_version_id = 1,
    .fields = (const VMStateField[]) {
        VMSTATE_ARRAY_OF_POINTER_TO_STRUCT(ce, TGPUState, TGPU_CE_COUNT, 1,
                                           vmstate_ce, TGPUCopyEngine),
        VMSTATE_END_OF_LIST()
    },
};

/* ---- registers and life cycle ------------------------------------------ */

uint32_t tgpu_ce_read(TGPUState *s, hwaddr addr, bool *ok)
{
    unsigned int i = (addr - TGPU_CE_BASE) / TGPU_CE_STRIDE;
    TGPUCopyEngine *ce;

    *ok = false;
    if (i >= TGPU_CE_COUNT) {
        return TGPU_REG_BADF;
    }
    ce = s->ce[i];
    QEMU_LOCK_GUARD(&ce->e.lock);
    *ok = true;
    switch ((addr - TGPU_CE_BASE) % TGPU_CE_STRIDE) {
    case TGPU_CE_STATUS:
        if (ce->e.state == TGPU_ENGINE_IDLE) {
            return 0;
        }
        return TGPU_CE_STATUS_BUSY |
               (ce->e.paused ? TGPU_CE_STATUS_PAUSED : 0);
    case TGPU_CE_CHID:
        return ce->chid;
    case TGPU_CE_LAUNCHES:
        return ce->launches;
    case TGPU_CE_ERROR:
        return ce->error;
    case TGPU_CE_PROGRESS_LO:
        return ce->progress;
    case TGPU_CE_PROGRESS_HI:
        return ce->progress >> 32;
    case TGPU_CE_DESC_DONE:
        return ce->desc_done;
    case TGPU_CE_ERROR_VA_LO:
        return ce->error_va;
    case TGPU_CE_ERROR_VA_HI:
        return ce->error_va >> 32;
    case TGPU_CE_BYTES_LO:
        return ce->bytes;
    case TGPU_CE_BYTES_HI:
        return ce->bytes >> 32;
    case TGPU_CE_PREEMPTS:
        return ce->preempts;
    }
    *ok = false;
    return TGPU_REG_BADF;
}

void tgpu_ce_reset(TGPUState *s)
{
    for (unsigned int i = 0; i < TGPU_CE_COUNT; i++) {
        TGPUCopyEngine *ce = s->ce[i];

        tgpu_engine_reset(&ce->e);
        for (uint32_t c = 0; c < s->num_channels; c++) {
            if (s->chan[c].engine == TGPU_RUNLIST_CE0 + i) {
                ce_engine_forget(&ce->e, &s->chan[c]);
            }
        }
        qatomic_set(&ce->yield, false);
        QEMU_LOCK_GUARD(&ce->e.lock);
        ce->chid = 0xffffffff;
        ce->launches = 0;
        ce->error = 0;
        ce->error_va = 0;
        ce->fault_type = 0;
        ce->progress = 0;
        ce->desc_done = 0;
        ce->bytes = 0;
        ce->preempts = 0;
        ce->preempted = false;
        ce->resume = ce->resume_ended = false;
    }
}

void tgpu_ce_init(TGPUState *s)
{
    for (unsigned int i = 0; i < TGPU_CE_COUNT; i++) {
        TGPUCopyEngine *ce = g_new0(TGPUCopyEngine, 1);
        g_autofree char *name = g_strdup_printf("tgpu-ce%u", i);

        s->ce[i] = ce;
        ce->index = i;
        ce->chid = 0xffffffff;
        tgpu_engine_init(&ce->e, s, &ce_engine_ops, ce_names[i], name,
                         TGPU_RUNLIST_CE0 + i, TGPU_ENGINE_CE0 << i,
                         TGPU_FAULT_ENGINE_CE0 + i, s->ce_thread_ctx[i]);
        s->engine[TGPU_RUNLIST_CE0 + i] = &ce->e;
    }
}

void tgpu_ce_exit(TGPUState *s)
{
    for (uint32_t c = 0; c < s->num_channels; c++) {
        g_free(s->chan[c].ce_held);
        s->chan[c].ce_held = NULL;
    }
    for (unsigned int i = 0; i < TGPU_CE_COUNT; i++) {
        tgpu_engine_exit(&s->ce[i]->e);
        g_free(s->ce[i]);
        s->ce[i] = NULL;
    }
}
