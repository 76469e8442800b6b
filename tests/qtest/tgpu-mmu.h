/*
 * The tgpu MMU qtests' shared layout and helpers: where the tests put
 * page tables, channels and the fault buffer, the channels with
 * FLAGS.PAGED they run, and the checks of faults and counters.
 * tgpu-qtest.h has the device-level helpers.
 *
 * Copyright (c) 2026 The tgpu authors
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */

#ifndef TGPU_MMU_QTEST_H
#define TGPU_MMU_QTEST_H

#include "tgpu-qtest.h"

/*
 * Physical addresses (see tgpu-qtest.h), besides the runlists and
 * instance blocks of tgpu-qtest.h, allocated at every start
 * (mmu_mem_start); page tables and 4 KiB data pages come from the
 * allocators as the tests build them.
 */
#define BYP_PB_SIZE         0x10000u
#define FAULTBUF_MAX        (2 * MiB)       /* 65536 records */

static struct {                 /* VRAM */
    uint64_t byp_userd;         /* channel 0 runs in bypass */
    uint64_t byp_gpfifo;        /* 1024 entries */
    uint64_t byp_pb;
    uint64_t alive;             /* channel 0's semaphore */
    uint64_t faultbuf;
    uint64_t large[2];          /* 2 MiB pages */
} L;

static struct {                 /* guest RAM */
    uint64_t faultbuf;
    uint64_t large;             /* a 2 MiB page */
} G;

static inline void mmu_mem_init(T *t)
{
    L.byp_userd = vram_alloc(t, TGPU_USERD_SIZE);
    L.byp_gpfifo = vram_alloc(t, TGPU_GP_ENTRY_SIZE << GP_LOG2_DEFAULT);
    L.byp_pb = vram_alloc(t, BYP_PB_SIZE);
    L.alive = vram_alloc(t, TGPU_PAGE_SIZE);
    L.faultbuf = vram_alloc(t, FAULTBUF_MAX);
    for (int i = 0; i < ARRAY_SIZE(L.large); i++) {
        L.large[i] = vram_alloc_aligned(t, TGPU_LARGE_PAGE_SIZE,
                                        TGPU_LARGE_PAGE_SIZE);
    }
    G.faultbuf = ram_alloc(t, FAULTBUF_MAX);
    G.large = ram_alloc_aligned(t, TGPU_LARGE_PAGE_SIZE,
                                TGPU_LARGE_PAGE_SIZE);
}

/* The device (with OPTS) and the tests' memory. */
static inline void mmu_mem_start(T *t, const char *opts)
{
    tgpu_start(t, opts);
    mmu_mem_init(t);
}

/* GPU virtual addresses */
#define V_CHAN(ch)          (0x0040000000ull + TGPU_LARGE_PAGE_SIZE * (ch))
#define V_RING              0x000           /* GPFIFO at the page start */
#define V_USERD             0x800           /* USERD in the same page */
#define V_PB                0x1000          /* the pushbuffer pages */
#define V_SEM               0x1080000000ull /* above 4 GiB, 1 GiB aligned */
#define V_HOST              0x0200000000ull /* for hostile tables */
#define V_TOP               (TGPU_VA_LIMIT - TGPU_PAGE_SIZE)
#define V_NOWHERE           0x3012345000ull /* nothing maps it */

#define PAGED_LOG2          6               /* 64 entries: 512 bytes */
#define PB_PAGES            2

/* A fresh, zeroed 4 KiB page of VRAM or of guest RAM. */
static inline uint64_t vram_page(T *t)
{
    uint64_t pa = vram_alloc(t, TGPU_PAGE_SIZE);

    pa_zero(t, pa, TGPU_PAGE_SIZE);
    return pa;
}

static inline uint64_t sys_page(T *t)
{
    uint64_t pa = SYS(ram_alloc(t, TGPU_PAGE_SIZE));

    pa_zero(t, pa, TGPU_PAGE_SIZE);
    return pa;
}

/* Map a fresh VRAM page at VA; returns its physical address. */
static inline uint64_t map_new(T *t, Ctx *x, uint64_t va, uint64_t flags)
{
    uint64_t pa = vram_page(t);

    map4k(t, x, va, pa, flags);
    return pa;
}

/* ---- channels ---------------------------------------------------------- */

/* A bypass channel (privileged, as bypass requires), all in VRAM. */
static inline Chan *chan_cfg(T *t, int ch)
{
    return chan_init(t, ch, L.byp_gpfifo, L.byp_userd, L.byp_pb,
                     BYP_PB_SIZE);
}

/*
 * A paged channel in context X, at VA: GPFIFO and USERD share a page,
 * then PB_PAGES pushbuffer pages, each mapped with FLAGS to a fresh VRAM
 * page.
 */
static inline Chan *pchan_cfg_at(T *t, int ch, Ctx *x, uint64_t va,
                                 uint64_t flags)
{
    Chan *c = chan_cfg(t, ch);

    c->ctx = x;
    c->flags = TGPU_INST_FLAGS_PAGED;
    c->asid = x->asid;
    c->pdb = x->pdb;
    c->gpfifo = va + V_RING;
    c->log2 = PAGED_LOG2;
    c->userd = va + V_USERD;
    c->pb = va + V_PB;
    c->pb_size = PB_PAGES * TGPU_PAGE_SIZE;
    map_new(t, x, va, flags);
    for (int i = 0; i < PB_PAGES; i++) {
        map_new(t, x, c->pb + i * TGPU_PAGE_SIZE, flags);
    }
    return c;
}

/* The same at V_CHAN(ch), which has a PD0 entry (2 MiB) of its own. */
static inline Chan *pchan_cfg_flags(T *t, int ch, Ctx *x, uint64_t flags)
{
    return pchan_cfg_at(t, ch, x, V_CHAN(ch), flags);
}

static inline Chan *pchan_cfg(T *t, int ch, Ctx *x)
{
    return pchan_cfg_flags(t, ch, x, 0);
}

/* The same, written and enabled; it must come up IDLE. */
static inline Chan *pchan_up(T *t, int ch, Ctx *x)
{
    return chan_up_cfg(t, pchan_cfg(t, ch, x));
}

/* Write PB's dwords at VA (outside the pushbuffer area) and queue them. */
static inline void chan_push_at(T *t, Chan *c, uint64_t va, const PB *pb)
{
    chan_write_dw(t, c, va, pb->dw, pb->n);
    chan_gp(t, c, TGPU_GP_ENTRY(va, pb->n, 0));
}

/* The bypass channel 0 still runs work (QEMU and the device are alive). */
static inline void check_alive(T *t, uint32_t val)
{
    Chan *c = &t->ch[0];

    if (chan_state(t, 0) != TGPU_CHAN_STATE_IDLE) {
        chan_reset(t, 0);
        c = chan_up_cfg(t, chan_cfg(t, 0));
    }
    run_release(t, c, L.alive, val);
    g_assert_cmphex(rd(t, TGPU_PMC_MAGIC), ==, TGPU_MAGIC);
}

/* ---- channel errors ---------------------------------------------------- */

/*
 * The channel must fail with CODE and INFO, as the only channel with a
 * pending error; then acknowledge it and reset the channel.
 */
static inline void expect_err(T *t, Chan *c, uint32_t code, uint32_t info)
{
    int ch = c->id;

    wait_state(t, ch, TGPU_CHAN_STATE_ERROR);
    g_assert_cmpuint(crd(t, ch, TGPU_CHAN_ERROR), ==, code);
    g_assert_cmphex(crd(t, ch, TGPU_CHAN_ERROR_INFO), ==, info);
    g_assert_true(err_pending(t, ch));
    g_assert_cmpuint(rd(t, TGPU_FIFO_ERR_CHID), ==, ch);
    g_assert_cmpuint(rd(t, TGPU_FIFO_ERR_CODE), ==, code);
    g_assert_cmphex(rd(t, TGPU_FIFO_ERR_INFO), ==, info);
    err_ack(t, ch);
    g_assert_cmphex(rd(t, TGPU_FIFO_ERR_CHID), ==, 0xffffffff);
    chan_reset(t, ch);
    g_assert_cmpuint(chan_state(t, ch), ==, TGPU_CHAN_STATE_DISABLED);
}

/* ---- MSI-X ------------------------------------------------------------- */

/*
 * The MMU vector is pending (it is masked); unmasking it sends the
 * message.  Leaves it masked, the message area clear.
 */
static inline void expect_mmu_msi(T *t)
{
    g_assert_true(qpci_msix_pending(t->dev, TGPU_MSIX_VEC_MMU));
    g_assert_false(msi_seen(t, TGPU_MSIX_VEC_MMU));
    msix_mask(t, TGPU_MSIX_VEC_MMU, false);
    wait_msi(t, TGPU_MSIX_VEC_MMU);
    g_assert_false(qpci_msix_pending(t->dev, TGPU_MSIX_VEC_MMU));
    msix_mask(t, TGPU_MSIX_VEC_MMU, true);
    qtest_writel(t->qts, t->msi + 16 * TGPU_MSIX_VEC_MMU, 0);
}

static inline void expect_no_mmu_msi(T *t)
{
    g_assert_false(qpci_msix_pending(t->dev, TGPU_MSIX_VEC_MMU));
    g_assert_false(msi_seen(t, TGPU_MSIX_VEC_MMU));
}

/* ---- the fault buffer --------------------------------------------------- */

/* Point the fault buffer at PA (a test physical address), SIZE entries. */
static inline void fb_setup(T *t, uint64_t pa, uint32_t size)
{
    uint64_t addr = pa_is_sys(pa) ? pa - TGPU_BYPASS_SYSMEM_BASE : pa;
    uint64_t bytes = (uint64_t)TGPU_FAULT_RECORD_SIZE * size;

    if (bytes && pa_reachable(pa, bytes)) {
        pa_zero(t, pa, bytes);
    }
    wr(t, TGPU_MMU_FAULT_BUF_LO,
       (uint32_t)addr | (pa_is_sys(pa) ? TGPU_FAULT_BUF_SYSMEM : 0));
    wr(t, TGPU_MMU_FAULT_BUF_HI, addr >> 32);
    wr(t, TGPU_MMU_FAULT_BUF_SIZE, size);
    g_assert_cmpuint(rd(t, TGPU_MMU_FAULT_BUF_SIZE), ==, size);
    g_assert_cmpuint(rd(t, TGPU_MMU_FAULT_BUF_GET), ==, 0);
    g_assert_cmpuint(rd(t, TGPU_MMU_FAULT_BUF_PUT), ==, 0);
    t->fb = pa;
    t->fb_size = size;
    t->fb_put = 0;
}

/*
 * Start the device (with OPTS) for the usual test: every test channel on
 * its runlist, a 64-entry fault buffer in VRAM, MMU and channel-error
 * interrupts enabled, MSI-X vectors masked (so they stay pending), and
 * PTIMER with both halves non-zero.
 */
static inline void mmu_start(T *t, const char *opts)
{
    mmu_mem_start(t, opts);
    runlists_std(t);
    fb_setup(t, L.faultbuf, 64);
    msix_setup(t, true);
    wr(t, TGPU_MMU_INTR_EN, TGPU_MMU_INTR_FAULT | TGPU_MMU_INTR_OVERFLOW);
    wr(t, TGPU_FIFO_INTR_EN, TGPU_FIFO_INTR_CHAN_ERROR);
    wr(t, TGPU_PMC_INTR_EN, TGPU_INTR_FIFO | TGPU_INTR_MMU);
    step(t, 5000000000ll + 4321);
    t->faults = rd(t, TGPU_MMU_FAULT_COUNT);
}

static inline void wait_fault_count(T *t, uint32_t want)
{
    gint64 end = g_get_monotonic_time() + WAIT_US;

    while (rd(t, TGPU_MMU_FAULT_COUNT) != want &&
           g_get_monotonic_time() < end) {
        rd(t, TGPU_PMC_MAGIC);
    }
    g_assert_cmpuint(rd(t, TGPU_MMU_FAULT_COUNT), ==, want);
}

/* for a fault whose type docs/hw/mmu.md leaves open */
#define FAULT_TYPE_ANY      0xff

typedef struct Fault {
    uint64_t va;
    uint32_t asid;
    uint32_t chid;
    uint8_t access;
    uint8_t type;
} Fault;

/* The record at ring index IDX must be F, written at PTIMER now. */
static inline void check_record(T *t, uint32_t idx, const Fault *f)
{
    uint8_t rec[TGPU_FAULT_RECORD_SIZE];

    pa_read(t, t->fb + TGPU_FAULT_RECORD_SIZE * idx, rec, sizeof(rec));
    g_assert_cmphex(ldq_le_p(rec + TGPU_FAULT_REC_VA), ==, f->va);
    g_assert_cmpuint(ldq_le_p(rec + TGPU_FAULT_REC_TIMESTAMP), ==,
                     ptimer(t));
    g_assert_cmphex(ldl_le_p(rec + TGPU_FAULT_REC_ASID), ==, f->asid);
    g_assert_cmpuint(ldl_le_p(rec + TGPU_FAULT_REC_CHID), ==, f->chid);
    g_assert_cmpuint(rec[TGPU_FAULT_REC_ENGINE], ==,
                     TGPU_FAULT_ENGINE_HOST);
    g_assert_cmpuint(rec[TGPU_FAULT_REC_ACCESS], ==, f->access);
    if (f->type != FAULT_TYPE_ANY) {
        g_assert_cmpuint(rec[TGPU_FAULT_REC_TYPE], ==, f->type);
    } else {
        g_assert_cmpuint(rec[TGPU_FAULT_REC_TYPE], >=, TGPU_FAULT_NOT_PRESENT);
        g_assert_cmpuint(rec[TGPU_FAULT_REC_TYPE], <=, TGPU_FAULT_WALK);
    }
    g_assert_cmpuint(rec[TGPU_FAULT_REC_VALID], ==, 1);
}

static inline void check_record_empty(T *t, uint32_t idx)
{
    g_assert_cmphex(pa_rd64(t, t->fb + TGPU_FAULT_RECORD_SIZE * idx + 24),
                    ==, 0);
}

/*
 * Channel C faulted on F and failed with CODE/INFO: exactly one fault
 * was counted and recorded at PUT; MMU_INTR.FAULT, PMC_INTR.MMU and the
 * MMU vector are up.  Acknowledge it all, consume the record (GET = PUT)
 * and reset the channel.
 */
static inline void expect_fault(T *t, Chan *c, const Fault *f, uint32_t code,
                         uint32_t info)
{
    uint32_t idx = t->fb_put;

    wait_state(t, c->id, TGPU_CHAN_STATE_ERROR);
    wait_fault_count(t, ++t->faults);
    settle(t);
    g_assert_cmpuint(rd(t, TGPU_MMU_FAULT_COUNT), ==, t->faults);
    t->fb_put = (t->fb_put + 1) % t->fb_size;
    g_assert_cmpuint(rd(t, TGPU_MMU_FAULT_BUF_PUT), ==, t->fb_put);
    check_record(t, idx, f);
    g_assert_cmphex(rd(t, TGPU_MMU_INTR), ==, TGPU_MMU_INTR_FAULT);
    g_assert_cmphex(rd(t, TGPU_PMC_INTR) & TGPU_INTR_MMU, ==, TGPU_INTR_MMU);
    expect_mmu_msi(t);
    wr(t, TGPU_MMU_INTR, TGPU_MMU_INTR_FAULT);
    g_assert_cmphex(rd(t, TGPU_MMU_INTR), ==, 0);
    g_assert_cmphex(rd(t, TGPU_PMC_INTR) & TGPU_INTR_MMU, ==, 0);
    wr(t, TGPU_MMU_FAULT_BUF_GET, t->fb_put);
    g_assert_cmpuint(rd(t, TGPU_MMU_FAULT_BUF_GET), ==, t->fb_put);
    expect_err(t, c, code, info);
}

/* As expect_fault, for the common case: channel C, its ASID. */
static inline void expect_chan_fault(T *t, Chan *c, uint64_t va, uint8_t access,
                              uint8_t type, uint32_t code, uint32_t info)
{
    Fault f = {
        .va = va, .asid = c->asid, .chid = c->id,
        .access = access, .type = type,
    };

    expect_fault(t, c, &f, code, info);
}

/*
 * Run the semaphore operation EXEC at VA on paged channel C, between a
 * release that must happen (at MARK) and one that must not (MARK + 4);
 * it must fault with TYPE.  The channel is up again afterwards.
 */
static inline void sem_fault(T *t, Chan *c, uint64_t mark, uint64_t va,
                      uint32_t exec, uint8_t type)
{
    g_autofree PB *pb = pb_new();
    uint32_t op = exec & TGPU_SEM_OP_MASK;
    uint8_t access = op == TGPU_SEM_OP_RELEASE ? TGPU_FAULT_ACCESS_WRITE :
                     TGPU_FAULT_ACCESS_READ;

    g_test_message("semaphore 0x%x at 0x%" PRIx64 ": fault type %u",
                   exec, va, type);
    chan_mem_wr64(t, c, mark, 0);
    pb_release(pb, mark, 0x600d);
    pb_sem(pb, va, 1, exec);
    pb_release(pb, mark + 4, 0xdead);
    submit(t, c, pb);
    expect_chan_fault(t, c, va, access, type, TGPU_ERR_SEM_FAULT,
                      (uint32_t)va);
    g_assert_cmphex(chan_mem_rd32(t, c, mark), ==, 0x600d);
    g_assert_cmphex(chan_mem_rd32(t, c, mark + 4), ==, 0);
    chan_up_cfg(t, c);
}

/* ---- counters ----------------------------------------------------------- */

typedef struct Counters {
    uint32_t hits, misses, fills, flushes, evictions, walks, ctxsw;
} Counters;

static inline void counters(T *t, Counters *k)
{
    k->hits = rd(t, TGPU_MMU_TLB_HITS);
    k->misses = rd(t, TGPU_MMU_TLB_MISSES);
    k->fills = rd(t, TGPU_MMU_TLB_FILLS);
    k->flushes = rd(t, TGPU_MMU_TLB_FLUSHES);
    k->evictions = rd(t, TGPU_MMU_TLB_EVICTIONS);
    k->walks = rd(t, TGPU_MMU_WALKS);
    k->ctxsw = rd(t, TGPU_FIFO_CTXSW_COUNT);
}

/* D = the counters now - K; then K = the counters now. */
static inline void counters_since(T *t, Counters *k, Counters *d)
{
    Counters now;

    counters(t, &now);
    d->hits = now.hits - k->hits;
    d->misses = now.misses - k->misses;
    d->fills = now.fills - k->fills;
    d->flushes = now.flushes - k->flushes;
    d->evictions = now.evictions - k->evictions;
    d->walks = now.walks - k->walks;
    d->ctxsw = now.ctxsw - k->ctxsw;
    g_test_message("hits %u misses %u fills %u flushes %u evictions %u "
                   "walks %u ctxsw %u", d->hits, d->misses, d->fills,
                   d->flushes, d->evictions, d->walks, d->ctxsw);
    *k = now;
}

/* The MMU's counter registers */
#define MMU_COUNTER_REGS { \
    TGPU_MMU_TLB_HITS, TGPU_MMU_TLB_MISSES, TGPU_MMU_TLB_FILLS, \
    TGPU_MMU_TLB_FLUSHES, TGPU_MMU_TLB_EVICTIONS, TGPU_MMU_WALKS, \
}

/* Every MMU register at its reset value. */
static inline void check_mmu_reset_values(T *t, bool tagged)
{
    static const uint32_t counter_regs[] = MMU_COUNTER_REGS;

    g_assert_cmpuint(rd(t, TGPU_MMU_TLB_SETS), ==, TGPU_TLB_SETS);
    g_assert_cmpuint(rd(t, TGPU_MMU_TLB_WAYS), ==, TGPU_TLB_WAYS);
    g_assert_cmphex(rd(t, TGPU_MMU_CTRL) & TGPU_MMU_CTRL_TLB_TAGGED, ==,
                    tagged ? TGPU_MMU_CTRL_TLB_TAGGED : 0);
    for (size_t i = 0; i < ARRAY_SIZE(counter_regs); i++) {
        g_assert_cmpuint(rd(t, counter_regs[i]), ==, 0);
    }
    g_assert_cmphex(rd(t, TGPU_MMU_INTR), ==, 0);
    g_assert_cmphex(rd(t, TGPU_MMU_INTR_EN), ==, 0);
    g_assert_cmphex(rd(t, TGPU_MMU_FAULT_BUF_LO), ==, 0);
    g_assert_cmphex(rd(t, TGPU_MMU_FAULT_BUF_HI), ==, 0);
    g_assert_cmpuint(rd(t, TGPU_MMU_FAULT_BUF_SIZE), ==, 0);
    g_assert_cmpuint(rd(t, TGPU_MMU_FAULT_BUF_GET), ==, 0);
    g_assert_cmpuint(rd(t, TGPU_MMU_FAULT_BUF_PUT), ==, 0);
    g_assert_cmpuint(rd(t, TGPU_MMU_FAULT_COUNT), ==, 0);
    g_assert_cmphex(rd(t, TGPU_PMC_INTR) & TGPU_INTR_MMU, ==, 0);
}

#endif
