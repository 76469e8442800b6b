/*
 * QTest testcase for the tgpu GPU MMU: page walks of 4 KiB and 2 MiB
 * pages in VRAM and system memory, permissions and faults, the fault
 * buffer, ASID isolation, the TLB (invalidation, tagging, counters) and
 * hostile page tables, as docs/hw/mmu.md specifies them.
 *
 * The accesses are the host unit's: GPFIFO, pushbuffer and USERD fetches
 * and semaphore releases and acquires of channels with FLAGS.PAGED.  The
 * page tables are built in VRAM through BAR1; the test translates its own
 * writes to the channels' GPFIFO, USERD and pushbuffers by walking the
 * same tables.  As in tgpu-channel-test, the device works in a bottom
 * half, so a test polls (bounded by a wall-clock limit only a hang
 * reaches) and the virtual clock moves only when a test steps it.
 *
 * Copyright (c) 2026 The tgpu authors
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */

#include "qemu/osdep.h"
#include "tgpu-qtest.h"

/*
 * Physical addresses (see tgpu-qtest.h), besides L_RUNLIST and L_INST.
 * VRAM:
 */
#define L_BYP_USERD         0x60000u        /* channel 0 runs in bypass */
#define L_BYP_GPFIFO        0x61000u        /* 1024 entries */
#define L_BYP_PB            0x64000u
#define L_BYP_PB_SIZE       0x10000u
#define L_ALIVE             0x7f000u        /* channel 0's semaphore */
#define L_FAULTBUF          0x100000u       /* up to 65536 records: 2 MiB */
#define L_TABLES            0x400000u       /* page tables */
#define L_TABLES_END        0xc00000u
#define L_DATA              0xc00000u       /* 4 KiB pages */
#define L_DATA_END          0x2000000u
#define L_LARGE(i)          (0x2000000ull + TGPU_LARGE_PAGE_SIZE * (i))

/* guest RAM */
#define G_MSI               0x200000u       /* MSI-X messages land here */
#define G_FAULTBUF          0x1400000u      /* up to 2 MiB */
#define G_DATA              0x400000u       /* 4 KiB pages */
#define G_DATA_END          0x800000u
#define G_LARGE             0x1000000u      /* a 2 MiB page */

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
static uint64_t vram_page(T *t)
{
    uint64_t pa = t->next_page;

    t->next_page += TGPU_PAGE_SIZE;
    g_assert_cmpuint(t->next_page, <=, L_DATA_END);
    pa_zero(t, pa, TGPU_PAGE_SIZE);
    return pa;
}

static uint64_t sys_page(T *t)
{
    uint64_t pa = SYS(t->next_sys_page);

    t->next_sys_page += TGPU_PAGE_SIZE;
    g_assert_cmpuint(t->next_sys_page, <=, G_DATA_END);
    pa_zero(t, pa, TGPU_PAGE_SIZE);
    return pa;
}

/* Map a fresh VRAM page at VA; returns its physical address. */
static uint64_t map_new(T *t, Ctx *x, uint64_t va, uint64_t flags)
{
    uint64_t pa = vram_page(t);

    map4k(t, x, va, pa, flags);
    return pa;
}

/* ---- channels ---------------------------------------------------------- */

/* A bypass channel (privileged, as bypass requires), all in VRAM. */
static Chan *chan_cfg(T *t, int ch)
{
    return chan_init(t, ch, L_BYP_GPFIFO, L_BYP_USERD, L_BYP_PB,
                     L_BYP_PB_SIZE);
}

/*
 * A paged channel in context X, at VA: GPFIFO and USERD share a page,
 * then PB_PAGES pushbuffer pages, each mapped with FLAGS to a fresh VRAM
 * page.
 */
static Chan *pchan_cfg_at(T *t, int ch, Ctx *x, uint64_t va, uint64_t flags)
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
static Chan *pchan_cfg_flags(T *t, int ch, Ctx *x, uint64_t flags)
{
    return pchan_cfg_at(t, ch, x, V_CHAN(ch), flags);
}

static Chan *pchan_cfg(T *t, int ch, Ctx *x)
{
    return pchan_cfg_flags(t, ch, x, 0);
}

/* The same, written and enabled; it must come up IDLE. */
static Chan *pchan_up(T *t, int ch, Ctx *x)
{
    return chan_up_cfg(t, pchan_cfg(t, ch, x));
}

/* Write PB's dwords at VA (outside the pushbuffer area) and queue them. */
static void chan_push_at(T *t, Chan *c, uint64_t va, const PB *pb)
{
    chan_write_dw(t, c, va, pb->dw, pb->n);
    chan_gp(t, c, TGPU_GP_ENTRY(va, pb->n, 0));
}

/* The bypass channel 0 still runs work (QEMU and the device are alive). */
static void check_alive(T *t, uint32_t val)
{
    Chan *c = &t->ch[0];

    if (chan_state(t, 0) != TGPU_CHAN_STATE_IDLE) {
        chan_reset(t, 0);
        c = chan_up_cfg(t, chan_cfg(t, 0));
    }
    run_release(t, c, L_ALIVE, val);
    g_assert_cmphex(rd(t, TGPU_PMC_MAGIC), ==, TGPU_MAGIC);
}

/* ---- channel errors ---------------------------------------------------- */

/*
 * The channel must fail with CODE and INFO, as the only channel with a
 * pending error; then acknowledge it and reset the channel.
 */
static void expect_err(T *t, Chan *c, uint32_t code, uint32_t info)
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
static void expect_mmu_msi(T *t)
{
    g_assert_true(qpci_msix_pending(t->dev, TGPU_MSIX_VEC_MMU));
    g_assert_false(msi_seen(t, TGPU_MSIX_VEC_MMU));
    msix_mask(t, TGPU_MSIX_VEC_MMU, false);
    wait_msi(t, TGPU_MSIX_VEC_MMU);
    g_assert_false(qpci_msix_pending(t->dev, TGPU_MSIX_VEC_MMU));
    msix_mask(t, TGPU_MSIX_VEC_MMU, true);
    qtest_writel(t->qts, G_MSI + 16 * TGPU_MSIX_VEC_MMU, 0);
}

static void expect_no_mmu_msi(T *t)
{
    g_assert_false(qpci_msix_pending(t->dev, TGPU_MSIX_VEC_MMU));
    g_assert_false(msi_seen(t, TGPU_MSIX_VEC_MMU));
}

/* ---- the fault buffer --------------------------------------------------- */

/* Point the fault buffer at PA (a test physical address), SIZE entries. */
static void fb_setup(T *t, uint64_t pa, uint32_t size)
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
static void mmu_start(T *t, const char *opts)
{
    tgpu_start(t, opts);
    t->next_table = L_TABLES;
    t->tables_end = L_TABLES_END;
    t->next_page = L_DATA;
    t->next_sys_page = G_DATA;
    runlists_std(t);
    fb_setup(t, L_FAULTBUF, 64);
    msix_setup(t, G_MSI, true);
    wr(t, TGPU_MMU_INTR_EN, TGPU_MMU_INTR_FAULT | TGPU_MMU_INTR_OVERFLOW);
    wr(t, TGPU_FIFO_INTR_EN, TGPU_FIFO_INTR_CHAN_ERROR);
    wr(t, TGPU_PMC_INTR_EN, TGPU_INTR_FIFO | TGPU_INTR_MMU);
    step(t, 5000000000ll + 4321);
    t->faults = rd(t, TGPU_MMU_FAULT_COUNT);
}

static void wait_fault_count(T *t, uint32_t want)
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
static void check_record(T *t, uint32_t idx, const Fault *f)
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

static void check_record_empty(T *t, uint32_t idx)
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
static void expect_fault(T *t, Chan *c, const Fault *f, uint32_t code,
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
static void expect_chan_fault(T *t, Chan *c, uint64_t va, uint8_t access,
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
static void sem_fault(T *t, Chan *c, uint64_t mark, uint64_t va,
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

static void counters(T *t, Counters *k)
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
static void counters_since(T *t, Counters *k, Counters *d)
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

/*
 * ======================================================================
 * 1. registers
 */

static const uint32_t counter_regs[] = {
    TGPU_MMU_TLB_HITS, TGPU_MMU_TLB_MISSES, TGPU_MMU_TLB_FILLS,
    TGPU_MMU_TLB_FLUSHES, TGPU_MMU_TLB_EVICTIONS, TGPU_MMU_WALKS,
};

/* Every MMU register at its reset value. */
static void check_mmu_reset_values(T *t, bool tagged)
{
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

static void test_registers(void)
{
    static const uint32_t unimplemented[] = {
        TGPU_MMU_BASE + 0x008, TGPU_MMU_BASE + 0x00c, TGPU_MMU_BASE + 0x028,
        TGPU_MMU_BASE + 0x0a4, TGPU_MMU_BASE + TGPU_MMU_SIZE - 4,
    };
    T t;

    tgpu_start(&t, NULL);
    check_mmu_reset_values(&t, true);

    /* geometry, control and counters are read-only */
    wr(&t, TGPU_MMU_TLB_SETS, 1);
    wr(&t, TGPU_MMU_TLB_WAYS, 1);
    wr(&t, TGPU_MMU_CTRL, 0);
    for (size_t i = 0; i < ARRAY_SIZE(counter_regs); i++) {
        wr(&t, counter_regs[i], 0x55);
    }
    wr(&t, TGPU_MMU_FAULT_BUF_PUT, 3);
    wr(&t, TGPU_MMU_FAULT_COUNT, 3);
    check_mmu_reset_values(&t, true);

    /* the enables and the fault buffer registers are read/write */
    wr(&t, TGPU_MMU_INTR_EN, TGPU_MMU_INTR_FAULT | TGPU_MMU_INTR_OVERFLOW);
    g_assert_cmphex(rd(&t, TGPU_MMU_INTR_EN), ==,
                    TGPU_MMU_INTR_FAULT | TGPU_MMU_INTR_OVERFLOW);
    wr(&t, TGPU_MMU_INTR_EN, TGPU_MMU_INTR_OVERFLOW);
    g_assert_cmphex(rd(&t, TGPU_MMU_INTR_EN), ==, TGPU_MMU_INTR_OVERFLOW);
    wr(&t, TGPU_MMU_INTR_EN, 0);
    /* nothing is pending: W1C changes nothing */
    wr(&t, TGPU_MMU_INTR, TGPU_MMU_INTR_FAULT | TGPU_MMU_INTR_OVERFLOW);
    g_assert_cmphex(rd(&t, TGPU_MMU_INTR), ==, 0);

    wr(&t, TGPU_MMU_FAULT_BUF_LO, 0x00abc000 | TGPU_FAULT_BUF_SYSMEM);
    wr(&t, TGPU_MMU_FAULT_BUF_HI, 0x12);
    g_assert_cmphex(rd(&t, TGPU_MMU_FAULT_BUF_LO), ==,
                    0x00abc000 | TGPU_FAULT_BUF_SYSMEM);
    g_assert_cmphex(rd(&t, TGPU_MMU_FAULT_BUF_HI), ==, 0x12);
    wr(&t, TGPU_MMU_FAULT_BUF_SIZE, 16);
    g_assert_cmpuint(rd(&t, TGPU_MMU_FAULT_BUF_SIZE), ==, 16);
    wr(&t, TGPU_MMU_FAULT_BUF_GET, 5);
    g_assert_cmpuint(rd(&t, TGPU_MMU_FAULT_BUF_GET), ==, 5);
    g_assert_cmpuint(rd(&t, TGPU_MMU_FAULT_BUF_PUT), ==, 0);
    /* writing SIZE empties the ring */
    wr(&t, TGPU_MMU_FAULT_BUF_SIZE, 16);
    g_assert_cmpuint(rd(&t, TGPU_MMU_FAULT_BUF_GET), ==, 0);
    g_assert_cmpuint(rd(&t, TGPU_MMU_FAULT_BUF_PUT), ==, 0);
    wr(&t, TGPU_MMU_FAULT_BUF_SIZE, TGPU_FAULT_BUF_SIZE_MAX);
    g_assert_cmpuint(rd(&t, TGPU_MMU_FAULT_BUF_SIZE), ==,
                     TGPU_FAULT_BUF_SIZE_MAX);

    for (size_t i = 0; i < ARRAY_SIZE(unimplemented); i++) {
        g_assert_cmphex(rd(&t, unimplemented[i]), ==, TGPU_REG_BADF);
    }
    tgpu_stop(&t);

    /* MMU_CTRL bit 0 shows the property */
    tgpu_start(&t, "tlb-tagging=off");
    check_mmu_reset_values(&t, false);
    tgpu_stop(&t);
    tgpu_start(&t, "tlb-tagging=on");
    check_mmu_reset_values(&t, true);
    tgpu_stop(&t);
}

/*
 * ======================================================================
 * 2. translation
 */

/* 4 KiB and 2 MiB pages, in VRAM and in system memory; the top VA. */
static void test_translate(void)
{
    const uint64_t big = V_SEM + TGPU_LARGE_PAGE_SIZE;
    const uint64_t sbig = V_SEM + 2 * TGPU_LARGE_PAGE_SIZE;
    g_autofree PB *pb = pb_new();
    uint64_t p4k, s4k, ptop, now;
    T t;
    Ctx x;
    Chan *c;

    mmu_start(&t, NULL);
    ctx_init(&t, &x, 1);
    c = pchan_up(&t, 1, &x);

    p4k = map_new(&t, &x, V_SEM, 0);
    s4k = sys_page(&t);
    map4k(&t, &x, V_SEM + 0x1000, s4k, 0);
    map4k(&t, &x, V_SEM + 0x2000, p4k, 0);     /* an alias of the first */
    map2m(&t, &x, big, L_LARGE(0), 0);
    map2m(&t, &x, sbig, SYS(G_LARGE), 0);
    ptop = map_new(&t, &x, V_TOP, 0);
    pa_zero(&t, L_LARGE(0), TGPU_LARGE_PAGE_SIZE);
    pa_zero(&t, SYS(G_LARGE), TGPU_LARGE_PAGE_SIZE);
    pa_wr32(&t, p4k + 0x14, 0xa5a5a5a5);       /* guard */
    now = ptimer(&t);

    pb_release(pb, V_SEM + 0x10, 0x1111);
    pb_sem(pb, V_SEM + 0x1020, 0x2222333344445555ull,
           TGPU_SEM_OP_RELEASE | TGPU_SEM_PAYLOAD_64 | TGPU_SEM_TIMESTAMP);
    pb_release(pb, V_SEM + 0x2040, 0x3333);
    pb_release(pb, big + 0x123450, 0x4444);
    pb_release(pb, big + TGPU_LARGE_PAGE_SIZE - 4, 0x5555);
    pb_release(pb, sbig + 0xabc0, 0x6666);
    pb_release(pb, sbig + 0x1ff000, 0x7777);
    pb_release(pb, V_TOP + 0xffc, 0x8888);
    run(&t, c, pb);

    g_assert_cmphex(pa_rd32(&t, p4k + 0x10), ==, 0x1111);
    g_assert_cmphex(pa_rd32(&t, p4k + 0x14), ==, 0xa5a5a5a5);
    g_assert_cmphex(pa_rd64(&t, s4k + 0x20), ==, 0x2222333344445555ull);
    g_assert_cmpuint(pa_rd64(&t, s4k + 0x28), ==, now);
    g_assert_cmphex(pa_rd32(&t, p4k + 0x40), ==, 0x3333);
    g_assert_cmphex(pa_rd32(&t, L_LARGE(0) + 0x123450), ==, 0x4444);
    g_assert_cmphex(pa_rd32(&t, L_LARGE(0) + TGPU_LARGE_PAGE_SIZE - 4), ==,
                    0x5555);
    g_assert_cmphex(qtest_readl(t.qts, G_LARGE + 0xabc0), ==, 0x6666);
    g_assert_cmphex(qtest_readl(t.qts, G_LARGE + 0x1ff000), ==, 0x7777);
    g_assert_cmphex(pa_rd32(&t, ptop + 0xffc), ==, 0x8888);
    /* the page offset of a large page is not applied twice, or dropped */
    g_assert_cmphex(pa_rd32(&t, L_LARGE(0) + 0x450), ==, 0);
    g_assert_cmphex(pa_rd32(&t, L_LARGE(0) + 0x123000), ==, 0);

    /* reads: acquires that are satisfied at once, on every kind of page */
    pb->n = 0;
    pb_acquire(pb, V_SEM + 0x10, 0x1111);
    pb_acquire(pb, V_SEM + 0x2010, 0x1111);
    pb_sem(pb, V_SEM + 0x1020, 0x2222333344445555ull,
           TGPU_SEM_OP_ACQUIRE | TGPU_SEM_PAYLOAD_64);
    pb_acq_geq(pb, big + 0x123450, 0x4444);
    pb_acquire(pb, sbig + 0xabc0, 0x6666);
    pb_acquire(pb, V_TOP + 0xffc, 0x8888);
    pb_release(pb, V_SEM + 0x18, 0x9999);
    run(&t, c, pb);
    g_assert_cmphex(pa_rd32(&t, p4k + 0x18), ==, 0x9999);

    /* an acquire on a system-memory page sees a CPU write at its poll */
    pb->n = 0;
    pb_acquire(pb, V_SEM + 0x1100, 0x77);
    pb_release(pb, V_SEM + 0x1c, 1);
    submit_blocked(&t, c, pb);
    pa_wr32(&t, s4k + 0x100, 0x77);
    poll_done(&t, c);
    g_assert_cmphex(pa_rd32(&t, p4k + 0x1c), ==, 1);

    /* ... and on a large VRAM page */
    pb->n = 0;
    pb_acq_geq(pb, big + 0x1000, 3);
    pb_release(pb, V_SEM + 0x1c, 2);
    submit_blocked(&t, c, pb);
    pa_wr32(&t, L_LARGE(0) + 0x1000, 4);
    poll_done(&t, c);
    g_assert_cmphex(pa_rd32(&t, p4k + 0x1c), ==, 2);

    /* nothing faulted */
    g_assert_cmpuint(rd(&t, TGPU_MMU_FAULT_COUNT), ==, 0);
    g_assert_cmpuint(rd(&t, TGPU_MMU_FAULT_BUF_PUT), ==, 0);
    g_assert_cmphex(rd(&t, TGPU_MMU_INTR), ==, 0);
    expect_no_mmu_msi(&t);
    tgpu_stop(&t);
}

/*
 * Enabling a channel again re-reads its instance block: a new PDB and
 * ASID take effect, the channel going on where it stopped.
 */
static void test_rebind(void)
{
    uint64_t pa_a, pa_b;
    T t;
    Ctx a, b;
    Chan *c;

    mmu_start(&t, NULL);
    ctx_init(&t, &a, 0x11);
    ctx_init(&t, &b, 0x22);
    c = pchan_cfg(&t, 2, &a);
    /* B maps the channel's structures to the same pages */
    for (uint64_t off = 0; off < V_PB + PB_PAGES * TGPU_PAGE_SIZE;
         off += TGPU_PAGE_SIZE) {
        uint64_t p = 0;

        g_assert_true(xlate(&t, &a, V_CHAN(2) + off, &p));
        map4k(&t, &b, V_CHAN(2) + off, p, 0);
    }
    pa_a = map_new(&t, &a, V_SEM, 0);
    pa_b = map_new(&t, &b, V_SEM, 0);
    map_new(&t, &a, V_SEM + 0x1000, 0);
    chan_up_cfg(&t, c);
    run_release(&t, c, V_SEM + 0x10, 1);
    g_assert_cmphex(pa_rd32(&t, pa_a + 0x10), ==, 1);

    cwr(&t, 2, TGPU_CHAN_CTRL, 0);
    wait_state(&t, 2, TGPU_CHAN_STATE_DISABLED);
    pa_wr32(&t, c->inst + TGPU_INST_ASID, b.asid);
    pa_wr64(&t, c->inst + TGPU_INST_PDB, b.pdb);
    c->ctx = &b;
    c->asid = b.asid;
    chan_enable(&t, c);
    wait_state(&t, 2, TGPU_CHAN_STATE_IDLE);
    run_release(&t, c, V_SEM + 0x10, 2);
    g_assert_cmphex(pa_rd32(&t, pa_b + 0x10), ==, 2);
    g_assert_cmphex(pa_rd32(&t, pa_a + 0x10), ==, 1);
    g_assert_cmpuint(crd(&t, 2, TGPU_CHAN_GP_GET), ==, 2);
    /* and its faults carry the new ASID */
    sem_fault(&t, c, V_SEM, V_SEM + 0x1000, TGPU_SEM_OP_RELEASE,
              TGPU_FAULT_NOT_PRESENT);
    tgpu_stop(&t);
}

/*
 * GPFIFO, USERD and pushbuffer themselves through the page tables, in
 * VRAM and system-memory pages, the ring and the segments running across
 * page boundaries into physical pages that are not contiguous.
 */
static void test_structures(void)
{
    const uint64_t va = V_CHAN(3);
    const uint64_t seg1 = va + 0x4000 - 12, seg2 = va + 0x5000 - 8;
    const uint64_t seg3 = va + 0x3000;
    const uint64_t seg4 = va + 0x6000 - 8, seg5 = va + 0x6100;
    const uint64_t again[] = {
        va + 0x3ffc, va + 0x4ffc, va + 0x5ffc, va + 0x3040, va + 0x5040,
    };
    g_autofree PB *pb = pb_new();
    uint64_t pb_b, pb_a, semp, end = 0;
    T t;
    Ctx x;
    Chan *c;

    mmu_start(&t, NULL);
    ctx_init(&t, &x, 7);
    c = chan_cfg(&t, 3);
    c->ctx = &x;
    c->flags = TGPU_INST_FLAGS_PAGED;
    c->asid = x.asid;
    c->pdb = x.pdb;

    /* the ring: entries 0-1 in a system-memory page, 2-7 in VRAM */
    map4k(&t, &x, va, sys_page(&t), 0);
    map_new(&t, &x, va + 0x1000, 0);
    c->gpfifo = va + 0x1000 - 2 * TGPU_GP_ENTRY_SIZE;
    c->log2 = 3;
    /* USERD at the end of a system-memory page */
    map4k(&t, &x, va + 0x2000, sys_page(&t), 0);
    c->userd = va + 0x2000 + TGPU_PAGE_SIZE - TGPU_USERD_SIZE;
    /* pushbuffer: VRAM page A, system memory, VRAM page B below A, ... */
    pb_b = vram_page(&t);
    pb_a = vram_page(&t);
    map4k(&t, &x, va + 0x3000, pb_a, 0);
    map4k(&t, &x, va + 0x4000, sys_page(&t), 0);
    map4k(&t, &x, va + 0x5000, pb_b, 0);
    map4k(&t, &x, va + 0x6000, sys_page(&t), 0);
    c->pb = va + 0x3000;
    c->pb_size = 0x4000;
    semp = map_new(&t, &x, V_SEM, 0);
    chan_up_cfg(&t, c);

    /* entries 0-4: crossing from the system-memory ring page to VRAM */
    pb_release(pb, V_SEM + 0x00, 1);        /* VRAM A -> system memory */
    pb_release(pb, V_SEM + 0x04, 2);
    chan_push_at(&t, c, seg1, pb);
    pb->n = 0;
    pb_release(pb, V_SEM + 0x08, 3);        /* system memory -> VRAM B */
    chan_push_at(&t, c, seg2, pb);
    pb->n = 0;
    pb_release(pb, V_SEM + 0x0c, 4);
    chan_push_at(&t, c, seg3, pb);
    /* a method whose data runs across a page and into the next entry */
    pb->n = 0;
    pb_hdr(pb, TGPU_PB_OP_INC, 0, TGPU_M_SEM_ADDR_LO, 5);
    pb_dw(pb, (uint32_t)(V_SEM + 0x10));
    pb_dw(pb, (uint32_t)(V_SEM >> 32));
    pb_dw(pb, 5);
    chan_push_at(&t, c, seg4, pb);
    pb->n = 0;
    pb_dw(pb, 0);
    pb_dw(pb, TGPU_SEM_OP_RELEASE);
    chan_push_at(&t, c, seg5, pb);
    end = seg5 + 4 * pb->n;
    g_assert_cmpuint(c->put, ==, 5);
    chan_kick(&t, c);
    wait_done(&t, c);
    for (uint32_t i = 0; i < 5; i++) {
        g_assert_cmphex(pa_rd32(&t, semp + 4 * i), ==, i + 1);
    }
    g_assert_cmpuint(chan_mem_rd32(&t, c, c->userd + TGPU_USERD_GP_GET), ==,
                     5);
    g_assert_cmphex(crd(&t, 3, TGPU_CHAN_PB_LO), ==, (uint32_t)end);
    g_assert_cmphex(crd(&t, 3, TGPU_CHAN_PB_HI), ==, (uint32_t)(end >> 32));

    /* entries 5, 6, 7, 0, 1: the ring wraps back into system memory */
    for (uint32_t i = 0; i < 5; i++) {
        uint64_t seg = again[i];

        pb->n = 0;
        pb_release(pb, V_SEM + 0x20 + 4 * i, 0x10 + i);
        chan_push_at(&t, c, seg, pb);
        end = seg + 4 * pb->n;
    }
    g_assert_cmpuint(c->put, ==, 2);
    chan_kick(&t, c);
    wait_done(&t, c);
    for (uint32_t i = 0; i < 5; i++) {
        g_assert_cmphex(pa_rd32(&t, semp + 0x20 + 4 * i), ==, 0x10 + i);
    }
    g_assert_cmpuint(chan_mem_rd32(&t, c, c->userd + TGPU_USERD_GP_GET), ==,
                     2);
    g_assert_cmpuint(crd(&t, 3, TGPU_CHAN_GP_GET), ==, 2);
    g_assert_cmphex(crd(&t, 3, TGPU_CHAN_PB_LO), ==, (uint32_t)end);
    g_assert_cmphex(crd(&t, 3, TGPU_CHAN_PB_HI), ==, (uint32_t)(end >> 32));
    g_assert_cmpuint(rd(&t, TGPU_MMU_FAULT_COUNT), ==, 0);
    tgpu_stop(&t);
}

/*
 * ======================================================================
 * 3. faults of every type, and the channel errors they cause
 */

/* NOT_PRESENT at each level, reads and writes; no bypass; not cached. */
static void test_fault_not_present(void)
{
    const uint64_t mark = V_SEM;
    uint64_t semp, q;
    T t;
    Ctx x;
    Chan *c;

    mmu_start(&t, NULL);
    ctx_init(&t, &x, 0x1234);
    c = pchan_up(&t, 5, &x);
    semp = map_new(&t, &x, V_SEM, 0);

    /* no PD1 entry, no PD0 entry, no PTE */
    sem_fault(&t, c, mark, V_NOWHERE + 0x40, TGPU_SEM_OP_RELEASE,
              TGPU_FAULT_NOT_PRESENT);
    sem_fault(&t, c, mark, V_SEM + 0x10000000 + 0x40, TGPU_SEM_OP_RELEASE,
              TGPU_FAULT_NOT_PRESENT);
    sem_fault(&t, c, mark, V_SEM + 0x3040, TGPU_SEM_OP_RELEASE,
              TGPU_FAULT_NOT_PRESENT);
    /* reads */
    sem_fault(&t, c, mark, V_SEM + 0x3048,
              TGPU_SEM_OP_ACQUIRE | TGPU_SEM_PAYLOAD_64,
              TGPU_FAULT_NOT_PRESENT);
    sem_fault(&t, c, mark, V_NOWHERE + 0x1000, TGPU_SEM_OP_ACQ_GEQ,
              TGPU_FAULT_NOT_PRESENT);
    /* a release with a timestamp */
    sem_fault(&t, c, mark, V_SEM + 0x3010,
              TGPU_SEM_OP_RELEASE | TGPU_SEM_TIMESTAMP,
              TGPU_FAULT_NOT_PRESENT);

    /* entries without VALID are not present, whatever else they hold */
    pa_wr64(&t, ptee_of(&t, &x, V_SEM + 0x4000), semp);
    sem_fault(&t, c, mark, V_SEM + 0x4008, TGPU_SEM_OP_RELEASE,
              TGPU_FAULT_NOT_PRESENT);
    pa_wr64(&t, pd0e_of(&t, &x, V_SEM + 3 * TGPU_LARGE_PAGE_SIZE),
            L_LARGE(0) | TGPU_PTE_LARGE);
    sem_fault(&t, c, mark, V_SEM + 3 * TGPU_LARGE_PAGE_SIZE + 0x100,
              TGPU_SEM_OP_RELEASE, TGPU_FAULT_NOT_PRESENT);
    g_assert_cmphex(pa_rd32(&t, semp + 8), ==, 0);

    /*
     * A paged channel has no bypass: VRAM offsets and the system-memory
     * window are virtual addresses like any other.
     */
    pa_wr32(&t, L_ALIVE, 0);
    sem_fault(&t, c, mark, L_ALIVE, TGPU_SEM_OP_RELEASE,
              TGPU_FAULT_NOT_PRESENT);
    sem_fault(&t, c, mark, SYS(G_DATA), TGPU_SEM_OP_RELEASE,
              TGPU_FAULT_NOT_PRESENT);
    g_assert_cmphex(pa_rd32(&t, L_ALIVE), ==, 0);

    /* faults are never cached: once mapped, it works, no invalidation */
    q = map_new(&t, &x, V_SEM + 0x3000, 0);
    run_release(&t, c, V_SEM + 0x3040, 0x42);
    g_assert_cmphex(pa_rd32(&t, q + 0x40), ==, 0x42);
    q = map_new(&t, &x, V_NOWHERE, 0);
    run_release(&t, c, V_NOWHERE + 0x40, 0x43);
    g_assert_cmphex(pa_rd32(&t, q + 0x40), ==, 0x43);
    q = map_new(&t, &x, V_SEM + 0x10000000, 0);
    run_release(&t, c, V_SEM + 0x10000000 + 0x40, 0x44);
    g_assert_cmphex(pa_rd32(&t, q + 0x40), ==, 0x44);

    check_alive(&t, 1);
    tgpu_stop(&t);
}

/* The host unit's fetches fault with their own channel errors. */
static void test_fault_fetch(void)
{
    const uint64_t va = V_CHAN(17);
    g_autofree PB *pb = pb_new();
    uint64_t seg;
    T t;
    Ctx x;
    Chan *c;

    mmu_start(&t, NULL);
    ctx_init(&t, &x, 0x55);
    /* a CE0 channel: the host unit's accesses are still ENGINE host */
    c = pchan_cfg(&t, 17, &x);
    map_new(&t, &x, V_SEM, 0);

    /* USERD: the GP_PUT read on the doorbell */
    c->userd = V_NOWHERE + TGPU_USERD_ALIGN;
    chan_up_cfg(&t, c);
    doorbell(&t, 17);
    expect_chan_fault(&t, c, c->userd + TGPU_USERD_GP_PUT,
                      TGPU_FAULT_ACCESS_READ, TGPU_FAULT_NOT_PRESENT,
                      TGPU_ERR_USERD_FAULT, (uint32_t)c->userd);
    c->userd = va + V_USERD;

    /* GPFIFO: a ring running from a mapped page into an unmapped one */
    c->gpfifo = va + V_PB + PB_PAGES * TGPU_PAGE_SIZE -
                2 * TGPU_GP_ENTRY_SIZE;
    c->log2 = 3;
    chan_up_cfg(&t, c);
    chan_gp(&t, c, TGPU_GP_ENTRY(0ull, 0, 0));
    chan_gp(&t, c, TGPU_GP_ENTRY(0ull, 0, 0));
    c->put = 3;
    chan_kick(&t, c);
    wait_state(&t, 17, TGPU_CHAN_STATE_ERROR);
    g_assert_cmpuint(crd(&t, 17, TGPU_CHAN_GP_GET), ==, 2);
    expect_chan_fault(&t, c, c->gpfifo + 2 * TGPU_GP_ENTRY_SIZE,
                      TGPU_FAULT_ACCESS_READ, TGPU_FAULT_NOT_PRESENT,
                      TGPU_ERR_GPFIFO_FAULT, 2);

    /* nothing is fetched past GP_PUT: the same ring, GP_PUT 2 */
    chan_up_cfg(&t, c);
    chan_gp(&t, c, TGPU_GP_ENTRY(0ull, 0, 0));
    chan_gp(&t, c, TGPU_GP_ENTRY(0ull, 0, 0));
    chan_kick(&t, c);
    wait_done(&t, c);
    doorbell(&t, 17);
    settle(&t);
    g_assert_cmpuint(chan_state(&t, 17), ==, TGPU_CHAN_STATE_IDLE);
    chan_reset(&t, 17);
    c->gpfifo = va + V_RING;
    c->log2 = PAGED_LOG2;

    /* pushbuffer: a segment at an unmapped address */
    chan_up_cfg(&t, c);
    chan_gp(&t, c, TGPU_GP_ENTRY(V_NOWHERE + 0x5670, 4, 0));
    chan_kick(&t, c);
    expect_chan_fault(&t, c, V_NOWHERE + 0x5670, TGPU_FAULT_ACCESS_READ,
                      TGPU_FAULT_NOT_PRESENT, TGPU_ERR_PB_FAULT,
                      (uint32_t)(V_NOWHERE + 0x5670));

    /* ... and one running off its last mapped page: the first half runs */
    chan_up_cfg(&t, c);
    pb_release(pb, V_SEM + 0x10, 0x5eb);
    seg = va + V_PB + PB_PAGES * TGPU_PAGE_SIZE - 4 * pb->n;
    chan_write_dw(&t, c, seg, pb->dw, pb->n);
    chan_gp(&t, c, TGPU_GP_ENTRY(seg, 2 * pb->n, 0));
    chan_kick(&t, c);
    expect_chan_fault(&t, c, seg + 4 * pb->n, TGPU_FAULT_ACCESS_READ,
                      TGPU_FAULT_NOT_PRESENT, TGPU_ERR_PB_FAULT,
                      (uint32_t)(seg + 4 * pb->n));
    g_assert_cmphex(chan_mem_rd32(&t, c, V_SEM + 0x10), ==, 0x5eb);

    /* nothing is fetched past a segment's end: one ending at the page's */
    chan_up_cfg(&t, c);
    pb->n = 0;
    pb_release(pb, V_SEM + 0x18, 0x5ec);
    chan_push_at(&t, c, seg, pb);
    chan_kick(&t, c);
    wait_done(&t, c);
    g_assert_cmphex(chan_mem_rd32(&t, c, V_SEM + 0x18), ==, 0x5ec);
    g_assert_cmpuint(rd(&t, TGPU_MMU_FAULT_COUNT), ==, t.faults);
    chan_reset(&t, 17);

    /*
     * A segment running off the top of the 40-bit address space: the
     * dwords below 2^40 run, then a PB_FAULT at 2^40 (whose fault type
     * the manual does not name).
     */
    chan_up_cfg(&t, c);
    map_new(&t, &x, V_TOP, 0);
    pb->n = 0;
    pb_nops(pb, 2);
    seg = TGPU_VA_LIMIT - 4 * pb->n;
    chan_write_dw(&t, c, seg, pb->dw, pb->n);
    chan_gp(&t, c, TGPU_GP_ENTRY(seg, 4, 0));
    chan_kick(&t, c);
    wait_state(&t, 17, TGPU_CHAN_STATE_ERROR);
    g_assert_cmphex(crd(&t, 17, TGPU_CHAN_PB_LO), ==, 0);
    g_assert_cmphex(crd(&t, 17, TGPU_CHAN_PB_HI), ==, TGPU_VA_LIMIT >> 32);
    expect_chan_fault(&t, c, TGPU_VA_LIMIT, TGPU_FAULT_ACCESS_READ,
                      FAULT_TYPE_ANY, TGPU_ERR_PB_FAULT, 0);

    /* the channel works again once its structures are sane */
    chan_up_cfg(&t, c);
    run_release(&t, c, V_SEM + 0x14, 0x600d);
    g_assert_cmphex(chan_mem_rd32(&t, c, V_SEM + 0x14), ==, 0x600d);
    check_alive(&t, 1);
    tgpu_stop(&t);
}

/* READ_ONLY: writes fault, reads (acquires, fetches) work. */
static void test_fault_read_only(void)
{
    const uint64_t mark = V_SEM + 0x10000;
    const uint64_t big = V_SEM + TGPU_LARGE_PAGE_SIZE;
    g_autofree PB *pb = pb_new();
    uint64_t rop, userd;
    T t;
    Ctx x;
    Chan *c;

    mmu_start(&t, NULL);
    ctx_init(&t, &x, 0x66);
    c = pchan_up(&t, 6, &x);
    map_new(&t, &x, mark, 0);
    rop = map_new(&t, &x, V_SEM, TGPU_PTE_READ_ONLY);
    map2m(&t, &x, big, SYS(G_LARGE), TGPU_PTE_READ_ONLY);
    pa_zero(&t, SYS(G_LARGE), TGPU_PAGE_SIZE);
    pa_wr32(&t, rop + 0x10, 7);
    pa_wr64(&t, rop + 0x20, 0x100000001ull);
    pa_wr32(&t, SYS(G_LARGE) + 0x30, 9);

    /* acquires read */
    pb_acquire(pb, V_SEM + 0x10, 7);
    pb_sem(pb, V_SEM + 0x20, 0x100000001ull,
           TGPU_SEM_OP_ACQUIRE | TGPU_SEM_PAYLOAD_64);
    pb_acq_geq(pb, big + 0x30, 9);
    pb_release(pb, mark, 1);
    run(&t, c, pb);
    g_assert_cmphex(chan_mem_rd32(&t, c, mark), ==, 1);
    pb->n = 0;
    pb_acquire(pb, V_SEM + 0x40, 3);
    pb_release(pb, mark, 2);
    submit_blocked(&t, c, pb);
    pa_wr32(&t, rop + 0x40, 3);
    poll_done(&t, c);
    g_assert_cmphex(chan_mem_rd32(&t, c, mark), ==, 2);

    /* releases write */
    sem_fault(&t, c, mark, V_SEM + 0x10, TGPU_SEM_OP_RELEASE,
              TGPU_FAULT_READ_ONLY);
    sem_fault(&t, c, mark, V_SEM + 0x20,
              TGPU_SEM_OP_RELEASE | TGPU_SEM_PAYLOAD_64 | TGPU_SEM_TIMESTAMP,
              TGPU_FAULT_READ_ONLY);
    sem_fault(&t, c, mark, big + 0x30, TGPU_SEM_OP_RELEASE,
              TGPU_FAULT_READ_ONLY);
    g_assert_cmphex(pa_rd32(&t, rop + 0x10), ==, 7);
    g_assert_cmphex(pa_rd64(&t, rop + 0x20), ==, 0x100000001ull);
    g_assert_cmphex(pa_rd64(&t, rop + 0x28), ==, 0);
    g_assert_cmphex(pa_rd32(&t, SYS(G_LARGE) + 0x30), ==, 9);

    /* GPFIFO and pushbuffer on read-only pages work ... */
    c = pchan_cfg_flags(&t, 7, &x, TGPU_PTE_READ_ONLY);
    userd = V_CHAN(7) + V_PB + PB_PAGES * TGPU_PAGE_SIZE;
    map_new(&t, &x, userd, 0);
    c->userd = userd;
    chan_up_cfg(&t, c);
    run_release(&t, c, mark + 8, 0x600d);
    g_assert_cmphex(chan_mem_rd32(&t, c, mark + 8), ==, 0x600d);

    /* ... but USERD is written (GP_GET) */
    c->userd = V_CHAN(7) + V_USERD;
    chan_reset(&t, 7);
    chan_write(&t, c);
    chan_enable(&t, c);
    wait_state(&t, 7, TGPU_CHAN_STATE_IDLE);
    pb->n = 0;
    pb_release(pb, mark + 12, 1);
    chan_push(&t, c, pb);
    /* (chan_kick writes GP_PUT through BAR1, past the READ_ONLY bit) */
    chan_kick(&t, c);
    expect_chan_fault(&t, c, c->userd + TGPU_USERD_GP_GET,
                      TGPU_FAULT_ACCESS_WRITE, TGPU_FAULT_READ_ONLY,
                      TGPU_ERR_USERD_FAULT, (uint32_t)c->userd);
    check_alive(&t, 1);
    tgpu_stop(&t);
}

/*
 * PRIVILEGE: an ordinary channel's semaphores may not use PRIV pages;
 * the host unit's fetches and a privileged channel may.
 */
static void test_fault_privilege(void)
{
    const uint64_t mark = V_SEM + 0x10000;
    const uint64_t big = V_SEM + TGPU_LARGE_PAGE_SIZE;
    g_autofree PB *pb = pb_new();
    uint64_t privp;
    T t;
    Ctx x;
    Chan *c, *p;

    mmu_start(&t, NULL);
    ctx_init(&t, &x, 0x77);
    /* GPFIFO, USERD and pushbuffer in privileged pages */
    c = pchan_cfg_flags(&t, 9, &x, TGPU_PTE_PRIV);
    g_assert_cmphex(c->flags, ==, TGPU_INST_FLAGS_PAGED);
    map_new(&t, &x, mark, 0);
    privp = map_new(&t, &x, V_SEM, TGPU_PTE_PRIV);
    map_new(&t, &x, V_SEM + 0x1000, TGPU_PTE_PRIV | TGPU_PTE_READ_ONLY);
    map2m(&t, &x, big, L_LARGE(0), TGPU_PTE_PRIV);
    pa_zero(&t, L_LARGE(0), TGPU_PAGE_SIZE);
    pa_wr32(&t, privp + 0x10, 5);

    chan_up_cfg(&t, c);
    run_release(&t, c, mark, 1);
    g_assert_cmphex(chan_mem_rd32(&t, c, mark), ==, 1);
    g_assert_cmpuint(chan_mem_rd32(&t, c, c->userd + TGPU_USERD_GP_GET), ==,
                     1);

    sem_fault(&t, c, mark, V_SEM + 0x10, TGPU_SEM_OP_RELEASE,
              TGPU_FAULT_PRIVILEGE);
    sem_fault(&t, c, mark, V_SEM + 0x10, TGPU_SEM_OP_ACQUIRE,
              TGPU_FAULT_PRIVILEGE);
    sem_fault(&t, c, mark, big + 0x100, TGPU_SEM_OP_ACQ_GEQ,
              TGPU_FAULT_PRIVILEGE);
    sem_fault(&t, c, mark, big + 0x100,
              TGPU_SEM_OP_RELEASE | TGPU_SEM_TIMESTAMP,
              TGPU_FAULT_PRIVILEGE);
    g_assert_cmphex(pa_rd32(&t, privp + 0x10), ==, 5);
    g_assert_cmphex(pa_rd32(&t, L_LARGE(0) + 0x100), ==, 0);

    /* a privileged channel in the same address space may use them */
    p = pchan_cfg(&t, 10, &x);
    p->flags |= TGPU_INST_FLAGS_PRIV;
    chan_up_cfg(&t, p);
    pb_acquire(pb, V_SEM + 0x10, 5);
    pb_release(pb, V_SEM + 0x14, 6);
    pb_sem(pb, big + 0x100, 7, TGPU_SEM_OP_RELEASE | TGPU_SEM_TIMESTAMP);
    pb_acquire(pb, V_SEM + 0x1020, 0);
    pb_release(pb, mark + 4, 8);
    run(&t, p, pb);
    g_assert_cmphex(pa_rd32(&t, privp + 0x14), ==, 6);
    g_assert_cmphex(pa_rd32(&t, L_LARGE(0) + 0x100), ==, 7);
    g_assert_cmpuint(pa_rd64(&t, L_LARGE(0) + 0x108), ==, ptimer(&t));
    g_assert_cmphex(chan_mem_rd32(&t, p, mark + 4), ==, 8);
    /* PRIV does not lift READ_ONLY */
    sem_fault(&t, p, mark, V_SEM + 0x1020, TGPU_SEM_OP_RELEASE,
              TGPU_FAULT_READ_ONLY);

    /* the ordinary channel still runs from its privileged pages */
    run_release(&t, c, mark + 8, 9);
    g_assert_cmphex(chan_mem_rd32(&t, c, mark + 8), ==, 9);
    check_alive(&t, 1);
    tgpu_stop(&t);
}

/*
 * Bypass channels: an address outside VRAM and system memory is a
 * BAD_APERTURE fault too, recorded like any other.  A misaligned
 * semaphore is a channel error, not an MMU fault.
 */
static void test_fault_bypass(void)
{
    g_autofree PB *pb = pb_new();
    uint64_t semp;
    T t;
    Ctx x;
    Chan *c, *p;

    mmu_start(&t, NULL);
    c = chan_up_cfg(&t, chan_cfg(&t, 0));
    sem_fault(&t, c, L_ALIVE, VRAM_GAP + 0x10, TGPU_SEM_OP_RELEASE,
              TGPU_FAULT_BAD_APERTURE);
    sem_fault(&t, c, L_ALIVE, VRAM_SIZE, TGPU_SEM_OP_ACQUIRE,
              TGPU_FAULT_BAD_APERTURE);
    sem_fault(&t, c, L_ALIVE, SYS(G_UNMAPPED), TGPU_SEM_OP_RELEASE,
              TGPU_FAULT_BAD_APERTURE);
    chan_gp(&t, c, TGPU_GP_ENTRY(VRAM_GAP, 2, 0));
    chan_kick(&t, c);
    expect_chan_fault(&t, c, VRAM_GAP, TGPU_FAULT_ACCESS_READ,
                      TGPU_FAULT_BAD_APERTURE, TGPU_ERR_PB_FAULT,
                      (uint32_t)VRAM_GAP);
    chan_up_cfg(&t, c);

    /* misaligned: SEM_FAULT, no MMU fault (bypass, then paged) */
    pb_sem(pb, L_ALIVE + 4, 1, TGPU_SEM_OP_RELEASE | TGPU_SEM_PAYLOAD_64);
    submit(&t, c, pb);
    expect_err(&t, c, TGPU_ERR_SEM_FAULT, L_ALIVE + 4);
    ctx_init(&t, &x, 0x31);
    p = pchan_up(&t, 1, &x);
    semp = map_new(&t, &x, V_SEM, 0);
    pb->n = 0;
    pb_sem(pb, V_SEM + 8, 1, TGPU_SEM_OP_RELEASE | TGPU_SEM_TIMESTAMP);
    submit(&t, p, pb);
    expect_err(&t, p, TGPU_ERR_SEM_FAULT, (uint32_t)(V_SEM + 8));
    settle(&t);
    g_assert_cmpuint(rd(&t, TGPU_MMU_FAULT_COUNT), ==, t.faults);
    g_assert_cmpuint(rd(&t, TGPU_MMU_FAULT_BUF_PUT), ==, t.fb_put);
    g_assert_cmphex(rd(&t, TGPU_MMU_INTR), ==, 0);
    g_assert_cmphex(pa_rd64(&t, semp + 8), ==, 0);
    check_alive(&t, 1);
    tgpu_stop(&t);
}

/* BAD_APERTURE: pages beyond VRAM, system memory the DMA cannot reach. */
static void test_fault_bad_aperture(void)
{
    const uint64_t mark = V_SEM + 0x10000;
    const uint64_t big = V_SEM + TGPU_LARGE_PAGE_SIZE;
    const uint64_t big2 = V_SEM + 2 * TGPU_LARGE_PAGE_SIZE;
    uint32_t bells;
    T t;
    Ctx x;
    Chan *c;

    mmu_start(&t, NULL);
    ctx_init(&t, &x, 0x88);
    c = pchan_up(&t, 11, &x);
    map_new(&t, &x, mark, 0);

    map4k(&t, &x, V_SEM, VRAM_SIZE, 0);
    sem_fault(&t, c, mark, V_SEM + 0x10, TGPU_SEM_OP_RELEASE,
              TGPU_FAULT_BAD_APERTURE);
    sem_fault(&t, c, mark, V_SEM + 0x10, TGPU_SEM_OP_ACQUIRE,
              TGPU_FAULT_BAD_APERTURE);
    map4k(&t, &x, V_SEM + 0x2000, VRAM_GAP, 0);
    sem_fault(&t, c, mark, V_SEM + 0x2010, TGPU_SEM_OP_RELEASE,
              TGPU_FAULT_BAD_APERTURE);
    map4k(&t, &x, V_SEM + 0x3000, 1ull << 45, 0);
    sem_fault(&t, c, mark, V_SEM + 0x3010, TGPU_SEM_OP_RELEASE,
              TGPU_FAULT_BAD_APERTURE);
    map2m(&t, &x, big, VRAM_SIZE, 0);
    sem_fault(&t, c, mark, big + 0x10, TGPU_SEM_OP_RELEASE,
              TGPU_FAULT_BAD_APERTURE);
    map4k(&t, &x, V_SEM + 0x4000, SYS(G_UNMAPPED), 0);
    sem_fault(&t, c, mark, V_SEM + 0x4010, TGPU_SEM_OP_RELEASE,
              TGPU_FAULT_BAD_APERTURE);

    /* system memory that is the device's own registers: refused */
    bells = rd(&t, TGPU_FIFO_DOORBELLS);
    map4k(&t, &x, V_SEM + 0x5000, SYS(t.bar0.addr + TGPU_USERMODE_BASE), 0);
    sem_fault(&t, c, mark, V_SEM + 0x5000 +
              (TGPU_USERMODE_DOORBELL - TGPU_USERMODE_BASE),
              TGPU_SEM_OP_RELEASE, TGPU_FAULT_BAD_APERTURE);
    g_assert_cmpuint(rd(&t, TGPU_FIFO_DOORBELLS), ==, bells + 1);

    /* a pushbuffer there */
    chan_gp(&t, c, TGPU_GP_ENTRY(V_SEM + 0x2000, 4, 0));
    chan_kick(&t, c);
    expect_chan_fault(&t, c, V_SEM + 0x2000, TGPU_FAULT_ACCESS_READ,
                      TGPU_FAULT_BAD_APERTURE, TGPU_ERR_PB_FAULT,
                      (uint32_t)(V_SEM + 0x2000));
    chan_up_cfg(&t, c);

    /* system memory with bus mastering off */
    {
        g_autofree PB *pb = pb_new();
        uint16_t cmd = qpci_config_readw(t.dev, PCI_COMMAND);
        uint64_t s = sys_page(&t);

        map4k(&t, &x, V_SEM + 0x6000, s, 0);
        qpci_config_writew(t.dev, PCI_COMMAND, cmd & ~PCI_COMMAND_MASTER);
        pb_release(pb, V_SEM + 0x6010, 0xb1);
        submit(&t, c, pb);
        wait_state(&t, 11, TGPU_CHAN_STATE_ERROR);
        /* on again, for the MSI-X message */
        qpci_config_writew(t.dev, PCI_COMMAND, cmd);
        expect_chan_fault(&t, c, V_SEM + 0x6010, TGPU_FAULT_ACCESS_WRITE,
                          TGPU_FAULT_BAD_APERTURE, TGPU_ERR_SEM_FAULT,
                          (uint32_t)(V_SEM + 0x6010));
        g_assert_cmphex(pa_rd32(&t, s + 0x10), ==, 0);
        chan_up_cfg(&t, c);
        run_release(&t, c, V_SEM + 0x6010, 0xb2);
        g_assert_cmphex(pa_rd32(&t, s + 0x10), ==, 0xb2);
    }

    /* the last page and the last large page of VRAM are fine */
    map4k(&t, &x, V_SEM + 0x1000, VRAM_SIZE - TGPU_PAGE_SIZE, 0);
    map2m(&t, &x, big2, VRAM_SIZE - TGPU_LARGE_PAGE_SIZE, 0);
    run_release(&t, c, V_SEM + 0x1ffc, 0x1a57);
    run_release(&t, c, big2 + TGPU_LARGE_PAGE_SIZE - 8, 0x1a58);
    g_assert_cmphex(pa_rd32(&t, VRAM_SIZE - 4), ==, 0x1a57);
    g_assert_cmphex(pa_rd32(&t, VRAM_SIZE - 8), ==, 0x1a58);
    check_alive(&t, 1);
    tgpu_stop(&t);
}

/*
 * ======================================================================
 * 4. the fault buffer
 */

/*
 * Make paged channel C fault with a release at VA; the channel error is
 * acknowledged and the channel up again.  The fault is counted.
 */
static void quick_fault(T *t, Chan *c, uint64_t va)
{
    g_autofree PB *pb = pb_new();

    pb_release(pb, va, 1);
    submit(t, c, pb);
    wait_state(t, c->id, TGPU_CHAN_STATE_ERROR);
    g_assert_cmpuint(crd(t, c->id, TGPU_CHAN_ERROR), ==, TGPU_ERR_SEM_FAULT);
    wait_fault_count(t, ++t->faults);
    err_ack(t, c->id);
    chan_reset(t, c->id);
    chan_up_cfg(t, c);
}

static void fb_check_record(T *t, uint32_t idx, Chan *c, uint64_t va)
{
    Fault f = {
        .va = va, .asid = c->asid, .chid = c->id,
        .access = TGPU_FAULT_ACCESS_WRITE, .type = TGPU_FAULT_NOT_PRESENT,
    };

    check_record(t, idx, &f);
}

/* A fault was recorded: PUT moved to PUT, FAULT raised; acknowledge. */
static void fb_recorded(T *t, uint32_t put)
{
    g_assert_cmpuint(rd(t, TGPU_MMU_FAULT_BUF_PUT), ==, put);
    g_assert_cmphex(rd(t, TGPU_MMU_INTR), ==, TGPU_MMU_INTR_FAULT);
    expect_mmu_msi(t);
    wr(t, TGPU_MMU_INTR, TGPU_MMU_INTR_FAULT);
}

/* A fault was dropped: PUT stays at PUT, OVERFLOW raised; acknowledge. */
static void fb_dropped(T *t, uint32_t put)
{
    g_assert_cmpuint(rd(t, TGPU_MMU_FAULT_BUF_PUT), ==, put);
    g_assert_cmphex(rd(t, TGPU_MMU_INTR), ==, TGPU_MMU_INTR_OVERFLOW);
    g_assert_cmphex(rd(t, TGPU_PMC_INTR) & TGPU_INTR_MMU, ==, TGPU_INTR_MMU);
    expect_mmu_msi(t);
    wr(t, TGPU_MMU_INTR, TGPU_MMU_INTR_OVERFLOW);
    g_assert_cmphex(rd(t, TGPU_MMU_INTR), ==, 0);
    g_assert_cmphex(rd(t, TGPU_PMC_INTR) & TGPU_INTR_MMU, ==, 0);
}

/* PUT advances and wraps; full (PUT + 1 == GET) drops; SIZE empties. */
static void test_fault_buffer(const void *data)
{
    const bool sysmem = *(const bool *)data;
    const uint64_t v = V_NOWHERE;
    T t;
    Ctx x;
    Chan *c;

    mmu_start(&t, NULL);
    fb_setup(&t, sysmem ? SYS(G_FAULTBUF) : L_FAULTBUF, 4);
    ctx_init(&t, &x, 0x99);
    c = pchan_up(&t, 12, &x);

    for (uint32_t i = 0; i < 3; i++) {
        step(&t, 1000 + i);
        quick_fault(&t, c, v + 0x100 * i);
        fb_check_record(&t, i, c, v + 0x100 * i);
        fb_recorded(&t, i + 1);
    }
    /* full: GET 0, PUT 3 */
    quick_fault(&t, c, v + 0x300);
    fb_dropped(&t, 3);
    check_record_empty(&t, 3);
    g_assert_cmpuint(rd(&t, TGPU_MMU_FAULT_COUNT), ==, 4);

    /* software consumed two records: room for two more, wrapping */
    wr(&t, TGPU_MMU_FAULT_BUF_GET, 2);
    quick_fault(&t, c, v + 0x400);
    fb_check_record(&t, 3, c, v + 0x400);
    fb_recorded(&t, 0);
    step(&t, 77);
    quick_fault(&t, c, v + 0x500);
    fb_check_record(&t, 0, c, v + 0x500);
    fb_recorded(&t, 1);
    quick_fault(&t, c, v + 0x600);
    fb_dropped(&t, 1);
    /* record 1 is the old one still */
    g_assert_cmphex(pa_rd64(&t, t.fb + TGPU_FAULT_RECORD_SIZE +
                            TGPU_FAULT_REC_VA), ==, v + 0x100);

    /* writing SIZE empties the ring */
    wr(&t, TGPU_MMU_FAULT_BUF_SIZE, 4);
    g_assert_cmpuint(rd(&t, TGPU_MMU_FAULT_BUF_GET), ==, 0);
    g_assert_cmpuint(rd(&t, TGPU_MMU_FAULT_BUF_PUT), ==, 0);
    quick_fault(&t, c, v + 0x700);
    fb_check_record(&t, 0, c, v + 0x700);
    fb_recorded(&t, 1);

    /* a ring of one entry is always full */
    wr(&t, TGPU_MMU_FAULT_BUF_SIZE, 1);
    quick_fault(&t, c, v + 0x800);
    fb_dropped(&t, 0);

    /* disabled: dropped */
    wr(&t, TGPU_MMU_FAULT_BUF_SIZE, 0);
    quick_fault(&t, c, v + 0x900);
    fb_dropped(&t, 0);
    g_assert_cmpuint(rd(&t, TGPU_MMU_FAULT_COUNT), ==, 10);

    /* OVERFLOW without its enable: status only */
    wr(&t, TGPU_MMU_INTR_EN, TGPU_MMU_INTR_FAULT);
    quick_fault(&t, c, v + 0xa00);
    g_assert_cmphex(rd(&t, TGPU_MMU_INTR), ==, TGPU_MMU_INTR_OVERFLOW);
    g_assert_cmphex(rd(&t, TGPU_PMC_INTR) & TGPU_INTR_MMU, ==, 0);
    expect_no_mmu_msi(&t);
    wr(&t, TGPU_MMU_INTR, TGPU_MMU_INTR_OVERFLOW);

    /* the largest ring */
    wr(&t, TGPU_MMU_INTR_EN, TGPU_MMU_INTR_FAULT | TGPU_MMU_INTR_OVERFLOW);
    fb_setup(&t, sysmem ? SYS(G_FAULTBUF) : L_FAULTBUF,
             TGPU_FAULT_BUF_SIZE_MAX);
    wr(&t, TGPU_MMU_FAULT_BUF_GET, TGPU_FAULT_BUF_SIZE_MAX - 1);
    quick_fault(&t, c, v + 0xb00);
    fb_check_record(&t, 0, c, v + 0xb00);
    fb_recorded(&t, 1);

    /* masked in PMC_INTR_EN: PMC_INTR shows it, no message */
    wr(&t, TGPU_PMC_INTR_EN, TGPU_INTR_FIFO);
    quick_fault(&t, c, v + 0xc00);
    fb_check_record(&t, 1, c, v + 0xc00);
    g_assert_cmpuint(rd(&t, TGPU_MMU_FAULT_BUF_PUT), ==, 2);
    g_assert_cmphex(rd(&t, TGPU_MMU_INTR), ==, TGPU_MMU_INTR_FAULT);
    g_assert_cmphex(rd(&t, TGPU_PMC_INTR) & TGPU_INTR_MMU, ==, TGPU_INTR_MMU);
    expect_no_mmu_msi(&t);
    wr(&t, TGPU_PMC_INTR_EN, TGPU_INTR_FIFO | TGPU_INTR_MMU);
    expect_no_mmu_msi(&t);
    wr(&t, TGPU_MMU_INTR, TGPU_MMU_INTR_FAULT);
    g_assert_cmphex(rd(&t, TGPU_PMC_INTR) & TGPU_INTR_MMU, ==, 0);
    check_alive(&t, 1);
    tgpu_stop(&t);
}

/* A ring the MMU cannot write drops faults with OVERFLOW. */
static void test_fault_buffer_unwritable(void)
{
    static const struct {
        uint32_t lo, hi;
    } bufs[] = {
        { (uint32_t)VRAM_GAP, 0 },                  /* past VRAM */
        { VRAM_SIZE, 0 },
        { L_FAULTBUF, 1 },                          /* HI counts */
        { (uint32_t)G_UNMAPPED | TGPU_FAULT_BUF_SYSMEM, G_UNMAPPED >> 32 },
    };
    T t;
    Ctx x;
    Chan *c;

    mmu_start(&t, NULL);
    ctx_init(&t, &x, 0x9a);
    c = pchan_up(&t, 12, &x);
    for (size_t i = 0; i < ARRAY_SIZE(bufs); i++) {
        g_test_message("fault buffer at 0x%x 0x%x", bufs[i].hi, bufs[i].lo);
        wr(&t, TGPU_MMU_FAULT_BUF_LO, bufs[i].lo);
        wr(&t, TGPU_MMU_FAULT_BUF_HI, bufs[i].hi);
        wr(&t, TGPU_MMU_FAULT_BUF_SIZE, 4);
        quick_fault(&t, c, V_NOWHERE + 0x100 * i);
        fb_dropped(&t, 0);
    }
    g_assert_cmphex(pa_rd64(&t, L_FAULTBUF), ==, 0);
    g_assert_cmphex(pa_rd64(&t, L_FAULTBUF + TGPU_FAULT_REC_ASID), ==, 0);

    /* in system memory, with bus mastering off */
    {
        uint16_t cmd = qpci_config_readw(t.dev, PCI_COMMAND);

        fb_setup(&t, SYS(G_FAULTBUF), 4);
        qpci_config_writew(t.dev, PCI_COMMAND, cmd & ~PCI_COMMAND_MASTER);
        quick_fault(&t, c, V_NOWHERE + 0x800);
        g_assert_cmphex(rd(&t, TGPU_MMU_INTR), ==, TGPU_MMU_INTR_OVERFLOW);
        qpci_config_writew(t.dev, PCI_COMMAND, cmd);
        fb_dropped(&t, 0);
        check_record_empty(&t, 0);
    }

    /* and the ring works once it is sane */
    fb_setup(&t, L_FAULTBUF, 4);
    quick_fault(&t, c, V_NOWHERE + 0x40);
    fb_check_record(&t, 0, c, V_NOWHERE + 0x40);
    fb_recorded(&t, 1);
    check_alive(&t, 1);
    tgpu_stop(&t);
}

/*
 * ======================================================================
 * 5. ASID isolation
 */

static void test_isolation(const void *data)
{
    const char *opts = data;
    g_autofree PB *pb = pb_new();
    uint64_t pa, pb_, only_a;
    T t;
    Ctx a, b;
    Chan *ca, *cb;

    mmu_start(&t, opts);
    /* ASIDs that differ only in their high bits */
    ctx_init(&t, &a, 0x0001);
    ctx_init(&t, &b, 0xff01);
    /* the same VAs for the two channels' structures, other memory */
    ca = chan_up_cfg(&t, pchan_cfg_at(&t, 1, &a, V_CHAN(1), 0));
    cb = chan_up_cfg(&t, pchan_cfg_at(&t, 2, &b, V_CHAN(1), 0));
    pa = map_new(&t, &a, V_SEM, 0);
    pb_ = map_new(&t, &b, V_SEM, 0);
    only_a = map_new(&t, &a, V_SEM + 0x1000, 0);

    for (uint32_t i = 0; i < 4; i++) {
        run_release(&t, ca, V_SEM + 0x10, 0xa0 + i);
        run_release(&t, cb, V_SEM + 0x10, 0xb0 + i);
        g_assert_cmphex(pa_rd32(&t, pa + 0x10), ==, 0xa0 + i);
        g_assert_cmphex(pa_rd32(&t, pb_ + 0x10), ==, 0xb0 + i);
    }
    /* both at once */
    pb_release(pb, V_SEM + 0x20, 0xaa);
    submit(&t, ca, pb);
    pb->n = 0;
    pb_release(pb, V_SEM + 0x20, 0xbb);
    submit(&t, cb, pb);
    wait_done(&t, ca);
    wait_done(&t, cb);
    g_assert_cmphex(pa_rd32(&t, pa + 0x20), ==, 0xaa);
    g_assert_cmphex(pa_rd32(&t, pb_ + 0x20), ==, 0xbb);

    /* A's page is in the TLB; B does not map it */
    run_release(&t, ca, V_SEM + 0x1010, 0xa1a1);
    g_assert_cmphex(pa_rd32(&t, only_a + 0x10), ==, 0xa1a1);
    /* each USERD (same VA) counted its own channel's entries */
    g_assert_cmpuint(chan_mem_rd32(&t, ca, ca->userd + TGPU_USERD_GP_GET),
                     ==, 6);
    g_assert_cmpuint(chan_mem_rd32(&t, cb, cb->userd + TGPU_USERD_GP_GET),
                     ==, 5);
    sem_fault(&t, cb, V_SEM, V_SEM + 0x1010, TGPU_SEM_OP_RELEASE,
              TGPU_FAULT_NOT_PRESENT);
    sem_fault(&t, cb, V_SEM, V_SEM + 0x1010, TGPU_SEM_OP_ACQUIRE,
              TGPU_FAULT_NOT_PRESENT);
    g_assert_cmphex(pa_rd32(&t, only_a + 0x10), ==, 0xa1a1);

    /* A goes on */
    run_release(&t, ca, V_SEM + 0x1010, 0xa2a2);
    g_assert_cmphex(pa_rd32(&t, only_a + 0x10), ==, 0xa2a2);
    g_assert_cmphex(pa_rd32(&t, pa + 0x10), ==, 0xa3);
    g_assert_cmphex(pa_rd32(&t, pb_ + 0x10), ==, 0xb3);
    g_assert_cmphex(pa_rd32(&t, pa), ==, 0);    /* B's marks stayed in B */
    check_alive(&t, 1);
    tgpu_stop(&t);
}

/*
 * ======================================================================
 * 6. invalidation
 */

enum {
    INV_ALL, INV_ASID, INV_RANGE, INV_MEM_OP, INV_MEM_OP_RANGE,
    INV_MEM_OP_ASID,
};

#define INV_V(i)            (V_SEM + TGPU_PAGE_SIZE * (i))   /* i < 3 */
#define INV_VL              (V_SEM + TGPU_LARGE_PAGE_SIZE)
#define INV_LOFF            0x5010
#define INV_ASID_ID         0x0105
#define INV_OTHER_ASID      0x0005          /* differs in bit 8 only */

typedef struct Inv {
    T t;
    Ctx x;
    Chan *c;
    uint64_t old[4], new[4];        /* 3 small pages and a large one */
    uint32_t swaps;
} Inv;

/* Release GEN at the four VAs, after the MEM_OP (if OP) in the same PB. */
static void inv_release(Inv *v, uint32_t gen, uint32_t op, uint32_t a,
                        uint32_t b)
{
    g_autofree PB *pb = pb_new();

    if (op) {
        pb_mem_op(pb, a, b, op);
    }
    for (int i = 0; i < 3; i++) {
        pb_release(pb, INV_V(i) + 0x10, gen);
    }
    pb_release(pb, INV_VL + INV_LOFF, gen);
    run(&v->t, v->c, pb);
}

/* Which of the four went to the new page (bit i), which to the old. */
static unsigned inv_where(Inv *v, uint32_t gen)
{
    unsigned mask = 0;

    for (int i = 0; i < 4; i++) {
        uint64_t off = i < 3 ? 0x10 : INV_LOFF;
        uint32_t o = pa_rd32(&v->t, v->old[i] + off);
        uint32_t n = pa_rd32(&v->t, v->new[i] + off);

        if (n == gen) {
            mask |= 1u << i;
        } else {
            g_assert_cmpuint(o, ==, gen);
        }
    }
    return mask;
}

static void inv_reg(Inv *v, uint32_t op, uint32_t asid, uint64_t va,
                    uint32_t pages)
{
    Counters k, d;

    counters(&v->t, &k);
    wr(&v->t, TGPU_MMU_INVALIDATE_ASID, asid);
    wr(&v->t, TGPU_MMU_INVALIDATE_VA_LO, (uint32_t)va);
    wr(&v->t, TGPU_MMU_INVALIDATE_VA_HI, va >> 32);
    wr(&v->t, TGPU_MMU_INVALIDATE_PAGES, pages);
    wr(&v->t, TGPU_MMU_INVALIDATE, op);
    counters_since(&v->t, &k, &d);
    g_assert_cmpuint(d.flushes, ==, 1);
}

/* Release GEN at the four VAs: WHERE (bit i) went to the new page. */
static void inv_expect(Inv *v, uint32_t gen, unsigned where)
{
    inv_release(v, gen, 0, 0, 0);
    g_assert_cmphex(inv_where(v, gen), ==, where);
}

/*
 * Invalidate with a MEM_OP, then release GEN; one flush counted, and
 * WHERE went to the new page.
 */
static void inv_mem_op(Inv *v, uint32_t gen, uint32_t op, uint64_t va,
                       uint32_t pages, unsigned where)
{
    Counters k, d;

    counters(&v->t, &k);
    inv_release(v, gen, op, va >> TGPU_PAGE_SHIFT, pages);
    counters_since(&v->t, &k, &d);
    g_assert_cmpuint(d.flushes, ==, 1);
    g_assert_cmphex(inv_where(v, gen), ==, where);
}

/*
 * Invalidate ASID's entries (VA and PAGES: a range; 0 pages: all) from
 * the privileged bypass channel 0, then release GEN in the context's
 * channel; one flush counted, and WHERE went to the new page.
 */
static void inv_mem_op_asid(Inv *v, uint32_t gen, uint32_t asid,
                            uint64_t va, uint32_t pages, unsigned where)
{
    g_autofree PB *pb = pb_new();
    Counters k, d;

    pb_mem_op_c(pb, va >> TGPU_PAGE_SHIFT, pages, asid,
                pages ? TGPU_MEM_OP_TLB_INVALIDATE_ASID_RANGE
                      : TGPU_MEM_OP_TLB_INVALIDATE_ASID);
    counters(&v->t, &k);
    run(&v->t, &v->t.ch[0], pb);
    counters_since(&v->t, &k, &d);
    g_assert_cmpuint(d.flushes, ==, 1);
    inv_expect(v, gen, where);
}

/*
 * Point the four entries at the other pages (old and new swap places)
 * and check that, without an invalidation, the TLB still uses the old.
 */
static void inv_remap(Inv *v)
{
    T *t = &v->t;
    uint32_t gen = 0x1000 + v->swaps++;

    for (int i = 0; i < 4; i++) {
        uint64_t p = v->old[i];

        v->old[i] = v->new[i];
        v->new[i] = p;
        if (i < 3) {
            map4k(t, &v->x, INV_V(i), v->new[i], 0);
        } else {
            map2m(t, &v->x, INV_VL, v->new[i], 0);
        }
    }
    inv_expect(v, gen, 0);
}

/*
 * Map four pages, use them, then point their entries elsewhere: without
 * an invalidation the old pages are still used; after one, the new.
 */
static void test_invalidate(const void *data)
{
    const int method = *(const int *)data;
    g_autofree PB *pb = pb_new();
    Inv inv, *v = &inv;
    T *t = &v->t;
    Ctx *x = &v->x;
    uint32_t gen = 1;

    mmu_start(t, NULL);
    v->swaps = 0;
    ctx_init(t, x, INV_ASID_ID);
    v->c = pchan_up(t, 1, x);
    for (int i = 0; i < 3; i++) {
        v->old[i] = map_new(t, x, INV_V(i), 0);
        v->new[i] = vram_page(t);
    }
    v->old[3] = L_LARGE(0);
    v->new[3] = L_LARGE(1);
    pa_zero(t, L_LARGE(0) + INV_LOFF, 4);
    pa_zero(t, L_LARGE(1) + INV_LOFF, 4);
    map2m(t, x, INV_VL, L_LARGE(0), 0);

    inv_expect(v, gen, 0);

    for (int i = 0; i < 3; i++) {
        map4k(t, x, INV_V(i), v->new[i], 0);
    }
    map2m(t, x, INV_VL, L_LARGE(1), 0);
    /* stale: the TLB still has the old translations */
    inv_expect(v, ++gen, 0);

    switch (method) {
    case INV_ALL:
        inv_reg(v, TGPU_MMU_INV_ALL, 0, 0, 0);
        inv_expect(v, ++gen, 0xf);
        /* removal: stale until invalidated, then NOT_PRESENT */
        pa_wr64(t, ptee_of(t, x, INV_V(1)), 0);
        inv_expect(v, ++gen, 0xf);
        inv_reg(v, TGPU_MMU_INV_ALL, 0, 0, 0);
        sem_fault(t, v->c, INV_V(0) + 0x20, INV_V(1) + 0x10,
                  TGPU_SEM_OP_RELEASE, TGPU_FAULT_NOT_PRESENT);
        break;
    case INV_ASID:
        inv_reg(v, TGPU_MMU_INV_ASID, INV_OTHER_ASID, 0, 0);
        inv_expect(v, ++gen, 0);
        inv_reg(v, TGPU_MMU_INV_ASID, INV_ASID_ID, 0, 0);
        inv_expect(v, ++gen, 0xf);
        /* a blocked acquire whose page goes away faults at its retry */
        pb_acquire(pb, INV_V(2) + 0x20, 1);
        submit_blocked(t, v->c, pb);
        pa_wr64(t, ptee_of(t, x, INV_V(2)), 0);
        inv_reg(v, TGPU_MMU_INV_ASID, INV_ASID_ID, 0, 0);
        step(t, TGPU_ACQUIRE_POLL_NS);
        expect_chan_fault(t, v->c, INV_V(2) + 0x20, TGPU_FAULT_ACCESS_READ,
                          TGPU_FAULT_NOT_PRESENT, TGPU_ERR_SEM_FAULT,
                          (uint32_t)(INV_V(2) + 0x20));
        break;
    case INV_RANGE:
        /* exactly the page in the range: not the one before or after */
        inv_reg(v, TGPU_MMU_INV_RANGE, INV_ASID_ID, INV_V(1), 1);
        inv_expect(v, ++gen, 0x2);
        /* another ASID's range changes nothing */
        inv_reg(v, TGPU_MMU_INV_RANGE, INV_OTHER_ASID, V_SEM, 0x1000);
        inv_expect(v, ++gen, 0x2);
        /* a page inside the large page drops the large entry */
        inv_reg(v, TGPU_MMU_INV_RANGE, INV_ASID_ID, INV_VL + 0x10000, 1);
        inv_expect(v, ++gen, 0xa);
        inv_reg(v, TGPU_MMU_INV_RANGE, INV_ASID_ID, INV_V(0), 3);
        inv_expect(v, ++gen, 0xf);
        inv_remap(v);
        /* the largest range: all of the address space, at once */
        inv_reg(v, TGPU_MMU_INV_RANGE, INV_ASID_ID, 0, 0xffffffff);
        inv_expect(v, ++gen, 0xf);
        break;
    case INV_MEM_OP:
        inv_mem_op(v, ++gen, TGPU_MEM_OP_TLB_INVALIDATE, 0, 0, 0xf);
        break;
    case INV_MEM_OP_RANGE:
        inv_mem_op(v, ++gen, TGPU_MEM_OP_TLB_INVALIDATE_RANGE,
                   INV_V(1), 1, 0x2);
        inv_mem_op(v, ++gen, TGPU_MEM_OP_TLB_INVALIDATE_RANGE,
                   INV_VL + 0x1ff000, 1, 0xa);
        inv_mem_op(v, ++gen, TGPU_MEM_OP_TLB_INVALIDATE_RANGE,
                   INV_V(0), 3, 0xf);
        inv_remap(v);
        inv_mem_op(v, ++gen, TGPU_MEM_OP_TLB_INVALIDATE_RANGE,
                   0, 0xffffffff, 0xf);
        break;
    case INV_MEM_OP_ASID:
        chan_up_cfg(t, chan_cfg(t, 0));
        inv_mem_op_asid(v, ++gen, INV_OTHER_ASID, 0, 0, 0);
        inv_mem_op_asid(v, ++gen, INV_ASID_ID, INV_V(1), 1, 0x2);
        inv_mem_op_asid(v, ++gen, INV_OTHER_ASID, V_SEM, 0x1000, 0x2);
        inv_mem_op_asid(v, ++gen, INV_ASID_ID, 0, 0, 0xf);
        /* a user's channel may not reach another address space */
        pb_mem_op_c(pb, 0, 0, INV_OTHER_ASID,
                    TGPU_MEM_OP_TLB_INVALIDATE_ASID);
        submit(t, v->c, pb);
        expect_err(t, v->c, TGPU_ERR_MEM_OP,
                   TGPU_MEM_OP_TLB_INVALIDATE_ASID);
        break;
    default:
        g_assert_not_reached();
    }
    check_alive(t, 1);
    tgpu_stop(t);
}

/*
 * ======================================================================
 * 7. the TLB: tagging, counters, evictions
 */

#define ALT_ROUNDS          16

/*
 * A channel living in the pages of paged channel H: its GPFIFO, USERD
 * and pushbuffer in the second halves of H's ring page and first
 * pushbuffer page.  (So that it adds no translations.)
 */
static Chan *pchan_share(T *t, int ch, Chan *h)
{
    Chan *c = chan_cfg(t, ch);

    c->ctx = h->ctx;
    c->flags = h->flags;
    c->asid = h->asid;
    c->pdb = h->pdb;
    c->gpfifo = h->gpfifo + 0x400;
    c->log2 = PAGED_LOG2;
    c->userd = h->userd + 0x400;
    c->pb = h->pb + TGPU_PAGE_SIZE / 2;
    c->pb_size = TGPU_PAGE_SIZE / 2;
    h->pb_size = TGPU_PAGE_SIZE / 2;
    return c;
}

/*
 * Two channels of two address spaces take turns (YIELD) on the compute
 * engine, each touching its own three pages (ring and USERD, pushbuffer,
 * semaphores) over and over; then two CE0 channels living in the same
 * pages take turns.  Six translations fit in any set.
 */
static void test_tlb_tagging(const void *data)
{
    const bool tagged = *(const bool *)data;
    g_autofree PB *pb = pb_new();
    uint64_t shared;
    Counters k, d;
    T t;
    Ctx x[2];
    Chan *c[2], *ce[2];

    mmu_start(&t, tagged ? "tlb-tagging=on" : "tlb-tagging=off");
    g_assert_cmphex(rd(&t, TGPU_MMU_CTRL) & TGPU_MMU_CTRL_TLB_TAGGED, ==,
                    tagged ? TGPU_MMU_CTRL_TLB_TAGGED : 0);
    shared = vram_page(&t);
    for (int i = 0; i < 2; i++) {
        ctx_init(&t, &x[i], 1 + i);
        c[i] = chan_up_cfg(&t, pchan_cfg(&t, 1 + i, &x[i]));
        map4k(&t, &x[i], V_SEM, shared, 0);
        ce[i] = chan_up_cfg(&t, pchan_share(&t, 16 + i, c[i]));
    }
    /* first touch */
    for (int i = 0; i < 2; i++) {
        run_release(&t, c[i], V_SEM + 0x100 * (i + 1), 1);
        run_release(&t, ce[i], V_SEM + 0x300 + 4 * i, 1);
    }
    counters(&t, &k);
    if (tagged) {
        g_assert_cmpuint(k.walks, ==, 6);
    } else {
        g_assert_cmpuint(k.flushes, ==, k.ctxsw);
    }
    g_assert_cmpuint(k.misses, ==, k.walks);
    g_assert_cmpuint(k.fills, ==, k.misses);
    g_assert_cmpuint(k.evictions, ==, 0);

    /* both wait on a gate, then alternate ALT_ROUNDS times each */
    for (int i = 0; i < 2; i++) {
        pb->n = 0;
        pb_acq_geq(pb, V_SEM, 1);
        chan_push(&t, c[i], pb);
        pb->n = 0;
        for (uint32_t r = 1; r <= ALT_ROUNDS; r++) {
            pb_release(pb, V_SEM + 0x100 * (i + 1), r);
            pb_m(pb, 0, TGPU_M_YIELD, 0);
        }
        chan_push(&t, c[i], pb);
        chan_kick(&t, c[i]);
        wait_state(&t, c[i]->id, TGPU_CHAN_STATE_BLOCKED);
    }
    counters(&t, &k);
    pa_wr32(&t, shared, 1);
    poll_done(&t, c[0]);
    wait_done(&t, c[1]);
    /* the CE0 channels: every switch on any engine counts */
    for (uint32_t r = 2; r < 5; r++) {
        run_release(&t, ce[0], V_SEM + 0x300, r);
        run_release(&t, ce[1], V_SEM + 0x304, r);
    }
    counters_since(&t, &k, &d);
    g_assert_cmpuint(pa_rd32(&t, shared + 0x100), ==, ALT_ROUNDS);
    g_assert_cmpuint(pa_rd32(&t, shared + 0x200), ==, ALT_ROUNDS);

    g_assert_cmpuint(d.ctxsw, >=, 2 * ALT_ROUNDS + 6);
    g_assert_cmpuint(pa_rd32(&t, shared + 0x300), ==, 4);
    g_assert_cmpuint(pa_rd32(&t, shared + 0x304), ==, 4);
    g_assert_cmpuint(d.misses, ==, d.walks);
    g_assert_cmpuint(d.fills, ==, d.misses);
    g_assert_cmpuint(d.evictions, ==, 0);
    /* every release is a lookup at least */
    g_assert_cmpuint(d.hits + d.misses, >=, 2 * ALT_ROUNDS);
    if (tagged) {
        /* the translations stayed: every release hit, no walk at all */
        g_assert_cmpuint(d.hits, >=, 2 * ALT_ROUNDS);
        g_assert_cmpuint(d.walks, ==, 0);
        g_assert_cmpuint(d.flushes, ==, 0);
        g_assert_cmpuint(rd(&t, TGPU_MMU_WALKS), ==, 6);
    } else {
        /* every switch flushed, and the next channel walked again */
        g_assert_cmpuint(d.flushes, ==, d.ctxsw);
        g_assert_cmpuint(d.walks, >=, d.ctxsw);
    }
    g_assert_cmpuint(rd(&t, TGPU_MMU_FAULT_COUNT), ==, 0);
    tgpu_stop(&t);
}

#define N_EVICT             600
#define V_EVICT             0x00c0000000ull

/* More pages than the TLB holds: evictions, and misses on a second pass. */
static void test_tlb_evictions(void)
{
    g_autofree PB *pb = pb_new();
    g_autofree uint32_t *seen = g_new(uint32_t, TGPU_PAGE_SIZE / 4);
    uint64_t target;
    Counters k, d;
    T t;
    Ctx x;
    Chan *c;

    mmu_start(&t, NULL);
    ctx_init(&t, &x, 3);
    c = pchan_cfg(&t, 1, &x);
    for (uint32_t i = PB_PAGES; i < 4; i++) {
        map_new(&t, &x, c->pb + i * TGPU_PAGE_SIZE, 0);
    }
    c->pb_size = 4 * TGPU_PAGE_SIZE;
    chan_up_cfg(&t, c);
    /* N_EVICT pages, all the same physical page */
    target = vram_page(&t);
    for (uint32_t i = 0; i < N_EVICT; i++) {
        map4k(&t, &x, V_EVICT + i * TGPU_PAGE_SIZE, target, 0);
    }
    for (uint32_t i = 0; i < N_EVICT; i++) {
        pb_release(pb, V_EVICT + i * TGPU_PAGE_SIZE + 4 * i, i + 1);
    }
    counters(&t, &k);
    g_assert_cmpuint(k.walks, ==, 0);
    run(&t, c, pb);
    counters_since(&t, &k, &d);

    pa_read(&t, target, seen, TGPU_PAGE_SIZE);
    for (uint32_t i = 0; i < N_EVICT; i++) {
        g_assert_cmpuint(le32_to_cpu(seen[i]), ==, i + 1);
    }
    g_assert_cmpuint(d.fills, >=, N_EVICT);
    g_assert_cmpuint(d.misses, ==, d.fills);
    g_assert_cmpuint(d.walks, ==, d.misses);
    g_assert_cmpuint(d.hits, >, 0);
    g_assert_cmpuint(d.flushes, ==, 0);
    /* at most SETS * WAYS fills found an invalid way */
    g_assert_cmpuint(d.evictions, >, 0);
    g_assert_cmpuint(d.evictions, >=, d.fills - TGPU_TLB_SETS * TGPU_TLB_WAYS);
    g_assert_cmpuint(d.evictions, <=, d.fills);

    /* again: at most SETS * WAYS of them can still be there */
    c->pb_used = 0;                     /* the first copy was consumed */
    run(&t, c, pb);
    counters_since(&t, &k, &d);
    g_assert_cmpuint(d.misses, >=, N_EVICT - TGPU_TLB_SETS * TGPU_TLB_WAYS);
    g_assert_cmpuint(d.misses, ==, d.fills);
    g_assert_cmpuint(d.evictions, ==, d.fills);
    g_assert_cmpuint(rd(&t, TGPU_MMU_FAULT_COUNT), ==, 0);
    tgpu_stop(&t);
}

/* Start with paged channel 1 (ASID 4), MARK mapped, all its pages used. */
static Chan *tlb_start(T *t, Ctx *x, uint64_t mark)
{
    Chan *c;

    mmu_start(t, NULL);
    ctx_init(t, x, 4);
    c = pchan_up(t, 1, x);
    map_new(t, x, mark, 0);
    run_release(t, c, mark + 8, 1);
    return c;
}

/* A fault walks and misses but fills nothing; every retry walks again. */
static void test_tlb_faults(void)
{
    const uint64_t mark = V_SEM;
    Counters k, d;
    uint64_t q;
    T t;
    Ctx x;
    Chan *c;

    c = tlb_start(&t, &x, mark);

    for (int i = 0; i < 2; i++) {
        counters(&t, &k);
        sem_fault(&t, c, mark, V_SEM + 0x1000, TGPU_SEM_OP_RELEASE,
                  TGPU_FAULT_NOT_PRESENT);
        counters_since(&t, &k, &d);
        g_assert_cmpuint(d.walks, ==, 1);
        g_assert_cmpuint(d.misses, ==, 1);
        g_assert_cmpuint(d.fills, ==, 0);
        g_assert_cmpuint(d.hits, >, 0);
    }
    q = map_new(&t, &x, V_SEM + 0x1000, 0);
    counters(&t, &k);
    run_release(&t, c, V_SEM + 0x1000, 2);
    counters_since(&t, &k, &d);
    g_assert_cmpuint(d.walks, ==, 1);
    g_assert_cmpuint(d.fills, ==, 1);
    g_assert_cmphex(pa_rd32(&t, q), ==, 2);
    counters(&t, &k);
    run_release(&t, c, V_SEM + 0x1000, 3);
    counters_since(&t, &k, &d);
    g_assert_cmpuint(d.walks, ==, 0);
    g_assert_cmpuint(d.misses, ==, 0);
    g_assert_cmphex(pa_rd32(&t, q), ==, 3);

    /* a large page is one translation: all of it hits once one part did */
    map2m(&t, &x, V_SEM + TGPU_LARGE_PAGE_SIZE, L_LARGE(0), 0);
    counters(&t, &k);
    run_release(&t, c, V_SEM + TGPU_LARGE_PAGE_SIZE + 0x1000, 4);
    counters_since(&t, &k, &d);
    g_assert_cmpuint(d.walks, ==, 1);
    g_assert_cmpuint(d.fills, ==, 1);
    counters(&t, &k);
    run_release(&t, c, V_SEM + TGPU_LARGE_PAGE_SIZE + 0x1ff000, 5);
    run_release(&t, c, V_SEM + TGPU_LARGE_PAGE_SIZE + 0xabcd0, 6);
    counters_since(&t, &k, &d);
    g_assert_cmpuint(d.walks, ==, 0);
    g_assert_cmpuint(d.misses, ==, 0);
    g_assert_cmphex(pa_rd32(&t, L_LARGE(0) + 0x1000), ==, 4);
    g_assert_cmphex(pa_rd32(&t, L_LARGE(0) + 0x1ff000), ==, 5);
    g_assert_cmphex(pa_rd32(&t, L_LARGE(0) + 0xabcd0), ==, 6);
    tgpu_stop(&t);
}

/*
 * "A walk ... faults ... on READ_ONLY, PRIVILEGE, BAD_APERTURE ...;
 * faults are never cached" (docs/hw/mmu.md): after a permission or
 * aperture fault on a page nobody used before, fixing its entry is
 * enough, as after NOT_PRESENT; the faulting walk filled nothing.
 */
static void test_tlb_fault_not_cached(const void *data)
{
    const uint8_t type = *(const uint8_t *)data;
    const uint64_t mark = V_SEM, va = V_SEM + 0x1000;
    Counters k, d;
    uint64_t q;
    T t;
    Ctx x;
    Chan *c;

    c = tlb_start(&t, &x, mark);

    if (type == TGPU_FAULT_BAD_APERTURE) {
        /* system memory the DMA cannot reach */
        map4k(&t, &x, va, SYS(G_UNMAPPED), 0);
        q = sys_page(&t);
    } else {
        q = map_new(&t, &x, va, type == TGPU_FAULT_READ_ONLY ?
                    TGPU_PTE_READ_ONLY : TGPU_PTE_PRIV);
    }
    counters(&t, &k);
    sem_fault(&t, c, mark, va + 0x10, TGPU_SEM_OP_RELEASE, type);
    counters_since(&t, &k, &d);
    /* fixed, not invalidated */
    map4k(&t, &x, va, q, 0);
    g_test_message("entry fixed, no invalidation: the release must work");
    run_release(&t, c, va + 0x10, 0x600d);
    g_assert_cmphex(pa_rd32(&t, q + 0x10), ==, 0x600d);
    g_assert_cmpuint(d.walks, ==, 1);
    g_assert_cmpuint(d.fills, ==, 0);
    tgpu_stop(&t);
}

/*
 * ======================================================================
 * 8. hostile page tables
 */

typedef struct Hostile {
    const char *name;
    int level;              /* the entry replaced: 1 PD1, 2 PD0, 3 PT */
    int base;               /* of its value: the tables of the walk */
    uint64_t add;           /* plus this */
} Hostile;

enum { H_NONE, H_PDB, H_PD0, H_PT, H_PAGE };

#define H_V                 TGPU_PTE_VALID

static const Hostile hostile[] = {
    { "pd1-self", 1, H_PDB, H_V },
    { "pd1-outside", 1, H_NONE, VRAM_SIZE | H_V },
    { "pd1-gap", 1, H_NONE, VRAM_GAP | H_V },
    { "pd1-far", 1, H_PD0, (1ull << 51) | H_V },
    { "pd1-rsvd-lo", 1, H_PD0, (1ull << 5) | H_V },
    { "pd1-rsvd-hi", 1, H_PD0, (1ull << 63) | H_V },
    { "pd1-sysmem", 1, H_PD0, TGPU_PTE_SYSMEM | H_V },
    { "pd1-read-only", 1, H_PD0, TGPU_PTE_READ_ONLY | H_V },
    { "pd1-priv", 1, H_PD0, TGPU_PTE_PRIV | H_V },
    { "pd1-large", 1, H_NONE, TGPU_PTE_LARGE | H_V },
    { "pd0-self", 2, H_PD0, H_V },
    { "pd0-pd1", 2, H_PDB, H_V },
    { "pd0-outside", 2, H_NONE, VRAM_SIZE | H_V },
    { "pd0-sysmem", 2, H_PT, TGPU_PTE_SYSMEM | H_V },
    { "pd0-read-only", 2, H_PT, TGPU_PTE_READ_ONLY | H_V },
    { "pd0-priv", 2, H_PT, TGPU_PTE_PRIV | H_V },
    { "pd0-rsvd-lo", 2, H_PT, (1ull << 11) | H_V },
    { "pd0-rsvd-hi", 2, H_PT, (1ull << 52) | H_V },
    { "large-misaligned", 2, H_NONE,
      L_LARGE(0) + TGPU_PAGE_SIZE + (TGPU_PTE_LARGE | H_V) },
    { "large-misaligned-hi", 2, H_NONE,
      L_LARGE(0) + TGPU_LARGE_PAGE_SIZE / 2 + (TGPU_PTE_LARGE | H_V) },
    { "large-rsvd", 2, H_NONE,
      L_LARGE(0) + ((1ull << 60) | TGPU_PTE_LARGE | H_V) },
    { "pte-rsvd-lo", 3, H_PAGE, (1ull << 5) | H_V },
    { "pte-rsvd-mid", 3, H_PAGE, (1ull << 10) | H_V },
    { "pte-rsvd-hi", 3, H_PAGE, (1ull << 62) | H_V },
};

/* Every broken table is a WALK fault of that access, nothing worse. */
static void test_hostile(void)
{
    const uint64_t va = V_HOST + 0x3040;
    T t;

    mmu_start(&t, NULL);
    for (size_t i = 0; i < ARRAY_SIZE(hostile); i++) {
        const Hostile *h = &hostile[i];
        uint64_t tbl[H_PAGE + 1], ea[4], e;
        Ctx x;
        Chan *c;

        g_test_message("hostile table: %s", h->name);
        ctx_init(&t, &x, 0x100 + i);
        c = pchan_up(&t, 13, &x);
        map_new(&t, &x, V_SEM, 0);
        tbl[H_NONE] = 0;
        tbl[H_PAGE] = map_new(&t, &x, va, 0);
        tbl[H_PDB] = x.pdb;
        ea[1] = pd1e_of(&x, va);
        tbl[H_PD0] = pa_rd64(&t, ea[1]) & TGPU_PTE_ADDR_MASK;
        ea[2] = tbl[H_PD0] + 8 * TGPU_PD0_INDEX(va);
        tbl[H_PT] = pa_rd64(&t, ea[2]) & TGPU_PTE_ADDR_MASK;
        ea[3] = tbl[H_PT] + 8 * TGPU_PT_INDEX(va);
        e = tbl[h->base] + h->add;
        pa_wr64(&t, ea[h->level], e);

        sem_fault(&t, c, V_SEM, va, TGPU_SEM_OP_RELEASE, TGPU_FAULT_WALK);
        sem_fault(&t, c, V_SEM, va + 8, TGPU_SEM_OP_ACQUIRE, TGPU_FAULT_WALK);
        g_assert_cmphex(pa_rd64(&t, tbl[H_PAGE] + 0x40), ==, 0);
        check_alive(&t, i + 1);
        chan_reset(&t, 13);
    }

    /*
     * The channel's own structures behind a table that refers to itself:
     * the USERD read on the doorbell is the first access.
     */
    {
        Ctx x;
        Chan *c;

        ctx_init(&t, &x, 0x1ff);
        c = pchan_up(&t, 14, &x);
        pa_wr64(&t, pd1e_of(&x, c->userd), x.pdb | TGPU_PTE_VALID);
        doorbell(&t, 14);
        expect_chan_fault(&t, c, c->userd + TGPU_USERD_GP_PUT,
                          TGPU_FAULT_ACCESS_READ, TGPU_FAULT_WALK,
                          TGPU_ERR_USERD_FAULT, (uint32_t)c->userd);
    }
    check_alive(&t, 0x1000);
    tgpu_stop(&t);
}

#define STORM_CHANNELS      40

/*
 * Many channels, of every engine's runlist, fault at once into a small
 * ring: each fault counted, the ring fills, the rest is dropped.
 */
static void test_hostile_storm(void)
{
    g_autofree PB *pb = pb_new();
    uint64_t seen = 0;
    T t;
    Ctx x;

    mmu_start(&t, NULL);
    fb_setup(&t, L_FAULTBUF, 8);
    ctx_init(&t, &x, 0xabc);
    for (int ch = 1; ch <= STORM_CHANNELS; ch++) {
        pchan_up(&t, ch, &x);
    }
    for (int ch = 1; ch <= STORM_CHANNELS; ch++) {
        pb->n = 0;
        pb_release(pb, V_NOWHERE + 0x40 * ch, ch);
        submit(&t, &t.ch[ch], pb);
    }
    for (int ch = 1; ch <= STORM_CHANNELS; ch++) {
        wait_state(&t, ch, TGPU_CHAN_STATE_ERROR);
        g_assert_cmpuint(crd(&t, ch, TGPU_CHAN_ERROR), ==,
                         TGPU_ERR_SEM_FAULT);
        g_assert_true(err_pending(&t, ch));
    }
    wait_fault_count(&t, STORM_CHANNELS);
    g_assert_cmpuint(rd(&t, TGPU_MMU_FAULT_BUF_PUT), ==, 7);
    g_assert_cmphex(rd(&t, TGPU_MMU_INTR), ==,
                    TGPU_MMU_INTR_FAULT | TGPU_MMU_INTR_OVERFLOW);
    for (uint32_t i = 0; i < 7; i++) {
        uint8_t rec[TGPU_FAULT_RECORD_SIZE];
        uint32_t ch;

        pa_read(&t, t.fb + TGPU_FAULT_RECORD_SIZE * i, rec, sizeof(rec));
        ch = ldl_le_p(rec + TGPU_FAULT_REC_CHID);
        g_assert_cmpuint(ch, >=, 1);
        g_assert_cmpuint(ch, <=, STORM_CHANNELS);
        g_assert_false(seen & (1ull << ch));
        seen |= 1ull << ch;
        g_assert_cmphex(ldq_le_p(rec + TGPU_FAULT_REC_VA), ==,
                        V_NOWHERE + 0x40 * ch);
        g_assert_cmphex(ldl_le_p(rec + TGPU_FAULT_REC_ASID), ==, 0xabc);
        g_assert_cmpuint(rec[TGPU_FAULT_REC_ENGINE], ==,
                         TGPU_FAULT_ENGINE_HOST);
        g_assert_cmpuint(rec[TGPU_FAULT_REC_ACCESS], ==,
                         TGPU_FAULT_ACCESS_WRITE);
        g_assert_cmpuint(rec[TGPU_FAULT_REC_TYPE], ==,
                         TGPU_FAULT_NOT_PRESENT);
        g_assert_cmpuint(rec[TGPU_FAULT_REC_VALID], ==, 1);
    }
    check_record_empty(&t, 7);
    for (int ch = 1; ch <= STORM_CHANNELS; ch++) {
        err_ack(&t, ch);
        chan_reset(&t, ch);
    }
    wr(&t, TGPU_MMU_INTR, TGPU_MMU_INTR_FAULT | TGPU_MMU_INTR_OVERFLOW);
    g_assert_cmphex(rd(&t, TGPU_MMU_INTR), ==, 0);
    check_alive(&t, 1);
    tgpu_stop(&t);
}

/*
 * ======================================================================
 * 9. reset
 */

static void test_reset(void)
{
    uint64_t p;
    T t;
    Ctx x;
    Chan *c;

    mmu_start(&t, "tlb-tagging=off");
    ctx_init(&t, &x, 0x42);
    c = pchan_up(&t, 1, &x);
    map_new(&t, &x, V_SEM, 0);
    run_release(&t, c, V_SEM, 1);
    sem_fault(&t, c, V_SEM, V_NOWHERE, TGPU_SEM_OP_RELEASE,
              TGPU_FAULT_NOT_PRESENT);
    wr(&t, TGPU_MMU_INVALIDATE, TGPU_MMU_INV_ALL);
    g_assert_cmpuint(rd(&t, TGPU_MMU_WALKS), >, 0);

    tgpu_system_reset(&t);
    check_mmu_reset_values(&t, false);

    /* the tables in VRAM survive; a channel using them works again */
    runlists_std(&t);
    c = chan_up_cfg(&t, c);
    run_release(&t, c, V_SEM + 4, 2);
    g_assert_true(xlate(&t, &x, V_SEM, &p));
    g_assert_cmphex(pa_rd32(&t, p + 4), ==, 2);
    g_assert_cmpuint(rd(&t, TGPU_MMU_WALKS), >, 0);
    tgpu_stop(&t);
}

int main(int argc, char **argv)
{
    static const bool f = false, tr = true;
    static const int inv_all = INV_ALL, inv_asid = INV_ASID;
    static const int inv_range = INV_RANGE, inv_mem_op = INV_MEM_OP;
    static const int inv_mem_op_range = INV_MEM_OP_RANGE;
    static const int inv_targeted = INV_MEM_OP_ASID;
    static const uint8_t type_ro = TGPU_FAULT_READ_ONLY;
    static const uint8_t type_priv = TGPU_FAULT_PRIVILEGE;
    static const uint8_t type_ba = TGPU_FAULT_BAD_APERTURE;

    g_test_init(&argc, &argv, NULL);

    qtest_add_func("/tgpu/mmu/registers", test_registers);
    qtest_add_func("/tgpu/mmu/translate/pages", test_translate);
    qtest_add_func("/tgpu/mmu/translate/structures", test_structures);
    qtest_add_func("/tgpu/mmu/translate/rebind", test_rebind);
    qtest_add_func("/tgpu/mmu/fault/not-present", test_fault_not_present);
    qtest_add_func("/tgpu/mmu/fault/fetch", test_fault_fetch);
    qtest_add_func("/tgpu/mmu/fault/read-only", test_fault_read_only);
    qtest_add_func("/tgpu/mmu/fault/privilege", test_fault_privilege);
    qtest_add_func("/tgpu/mmu/fault/bad-aperture", test_fault_bad_aperture);
    qtest_add_func("/tgpu/mmu/fault/bypass", test_fault_bypass);
    qtest_add_data_func("/tgpu/mmu/fault-buffer/vram", &f,
                        test_fault_buffer);
    qtest_add_data_func("/tgpu/mmu/fault-buffer/sysmem", &tr,
                        test_fault_buffer);
    qtest_add_func("/tgpu/mmu/fault-buffer/unwritable",
                   test_fault_buffer_unwritable);
    qtest_add_data_func("/tgpu/mmu/isolation/tagged", "tlb-tagging=on",
                        test_isolation);
    qtest_add_data_func("/tgpu/mmu/isolation/untagged", "tlb-tagging=off",
                        test_isolation);
    qtest_add_data_func("/tgpu/mmu/invalidate/all", &inv_all,
                        test_invalidate);
    qtest_add_data_func("/tgpu/mmu/invalidate/asid", &inv_asid,
                        test_invalidate);
    qtest_add_data_func("/tgpu/mmu/invalidate/range", &inv_range,
                        test_invalidate);
    qtest_add_data_func("/tgpu/mmu/invalidate/mem-op", &inv_mem_op,
                        test_invalidate);
    qtest_add_data_func("/tgpu/mmu/invalidate/mem-op-range",
                        &inv_mem_op_range, test_invalidate);
    qtest_add_data_func("/tgpu/mmu/invalidate/mem-op-asid", &inv_targeted,
                        test_invalidate);
    qtest_add_data_func("/tgpu/mmu/tlb/tagged", &tr, test_tlb_tagging);
    qtest_add_data_func("/tgpu/mmu/tlb/untagged", &f, test_tlb_tagging);
    qtest_add_func("/tgpu/mmu/tlb/evictions", test_tlb_evictions);
    qtest_add_func("/tgpu/mmu/tlb/faults", test_tlb_faults);
    qtest_add_func("/tgpu/mmu/hostile/tables", test_hostile);
    qtest_add_func("/tgpu/mmu/hostile/storm", test_hostile_storm);
    qtest_add_func("/tgpu/mmu/reset", test_reset);
    qtest_add_data_func("/tgpu/mmu/fault-not-cached/read-only",
                        &type_ro, test_tlb_fault_not_cached);
    qtest_add_data_func("/tgpu/mmu/fault-not-cached/privilege",
                        &type_priv, test_tlb_fault_not_cached);
    qtest_add_data_func("/tgpu/mmu/fault-not-cached/bad-aperture",
                        &type_ba, test_tlb_fault_not_cached);

    return g_test_run();
}
