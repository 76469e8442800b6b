/*
 * QTest testcase for tgpu ECC errors, as docs/hw/ecc.md specifies: the
 * injection registers and their limits; with ECC enabled, corrected
 * single-bit errors and contained double-bit errors on every VRAM reader
 * (the host unit's fetches, the instance block, page-table walks, both
 * copy engines, compute loads, the CPU through BAR1, with AER); silent
 * flips with ECC disabled; the counters, the address log and the ECC
 * interrupt.
 *
 * Copyright (c) 2026 The tgpu authors
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */

#include "qemu/osdep.h"
#include "hw/pci/pcie_regs.h"
#include "tgpu-mmu.h"
#include "tgpu-kernel.h"
#include "tgpu/ecc.h"

/* VRAM_SIZE (64 MiB) at TGPU_ECC_SCRUB_NS_PER_MIB */
#define SCRUB_NS            (64ull * TGPU_ECC_SCRUB_NS_PER_MIB)
#define AER_UNCOR_STATUS    (ECAM_TGPU + 0x100 + PCI_ERR_UNCOR_STATUS)

#define CH_GR               1       /* a compute channel */
#define CH_CE0              16      /* a channel on copy engine 0 */
#define CH_CE1              24      /* one on copy engine 1 */
#define SC_CE               4       /* subchannels */

#define SBE_BIT             (1ull << 5)
#define DBE_BITS            (3ull << 40)

/* ---- helpers ------------------------------------------------------------ */

static void ecc_start_opts(T *t, bool ecc_on, const char *opts)
{
    mmu_start(t, opts);
    wr(t, TGPU_ECC_INTR_EN, TGPU_ECC_INTR_SBE | TGPU_ECC_INTR_DBE);
    wr(t, TGPU_PMC_INTR_EN, rd(t, TGPU_PMC_INTR_EN) | TGPU_INTR_ECC);
    if (ecc_on) {
        wr(t, TGPU_ECC_CTRL, TGPU_ECC_CTRL_ENABLE);
        step(t, SCRUB_NS);
        g_assert_cmphex(rd(t, TGPU_ECC_STATUS), ==, TGPU_ECC_STATE_ENABLED);
        wr(t, TGPU_ECC_INTR, TGPU_ECC_INTR_SCRUB_DONE);
    }
    chan_up_cfg(t, chan_cfg(t, 0));
}

static void ecc_start(T *t, bool ecc_on)
{
    ecc_start_opts(t, ecc_on, NULL);
}

static void inj_regs(T *t, uint64_t addr, uint64_t mask, uint32_t mode)
{
    wr(t, TGPU_ECC_INJ_ADDR_LO, addr);
    wr(t, TGPU_ECC_INJ_ADDR_HI, addr >> 32);
    wr(t, TGPU_ECC_INJ_MASK_LO, mask);
    wr(t, TGPU_ECC_INJ_MASK_HI, mask >> 32);
    wr(t, TGPU_ECC_INJ_MODE, mode);
}

/* Arm an error at the 64-bit word of ADDR; it must be taken. */
static void inject(T *t, uint64_t addr, uint64_t mask, uint32_t mode)
{
    uint32_t before = rd(t, TGPU_ECC_INJ_STATUS);

    inj_regs(t, addr & ~7ull, mask, mode);
    wr(t, TGPU_ECC_INJ_ARM, 1);
    g_assert_cmphex(rd(t, TGPU_ECC_INJ_STATUS) & TGPU_ECC_INJ_ERR_ALL, ==,
                    before & TGPU_ECC_INJ_ERR_ALL);
}

static uint32_t pending(T *t)
{
    return rd(t, TGPU_ECC_INJ_STATUS) & TGPU_ECC_INJ_PENDING_MASK;
}

static void expect_counts(T *t, uint32_t sbe, uint32_t dbe)
{
    g_assert_cmpuint(rd(t, TGPU_ECC_SBE_VOLATILE), ==, sbe);
    g_assert_cmpuint(rd(t, TGPU_ECC_DBE_VOLATILE), ==, dbe);
}

/* Log entry IDX (0 = oldest) is TYPE at the word of ADDR, by ENGINE/CHID. */
static void expect_log(T *t, uint32_t idx, uint64_t addr, uint32_t type,
                       uint32_t engine, uint32_t chid)
{
    uint32_t info = type | engine << TGPU_ECC_LOG_ENGINE_SHIFT |
                    chid << TGPU_ECC_LOG_CHID_SHIFT;

    g_assert_cmpuint(rd(t, TGPU_ECC_LOG_COUNT), >, idx);
    wr(t, TGPU_ECC_LOG_SELECT, idx);
    g_assert_cmphex(rd(t, TGPU_ECC_LOG_ADDR_LO), ==, (uint32_t)addr & ~7u);
    g_assert_cmphex(rd(t, TGPU_ECC_LOG_ADDR_HI), ==, addr >> 32);
    g_assert_cmphex(rd(t, TGPU_ECC_LOG_INFO), ==, info);
}

/*
 * ECC_INTR must be exactly WANT, PMC_INTR's ECC bit set; then clear it.
 * The ECC vector is masked: its message stays pending.
 */
static void expect_intr(T *t, uint32_t want)
{
    settle(t);
    g_assert_cmphex(rd(t, TGPU_ECC_INTR), ==, want);
    g_assert_cmphex(rd(t, TGPU_PMC_INTR) & TGPU_INTR_ECC, ==, TGPU_INTR_ECC);
    g_assert_true(qpci_msix_pending(t->dev, TGPU_MSIX_VEC_ECC));
    wr(t, TGPU_ECC_INTR, want);
    g_assert_cmphex(rd(t, TGPU_PMC_INTR) & TGPU_INTR_ECC, ==, 0);
}

/* Queue PB on bypass channel 0 without ringing; its segment's address. */
static uint64_t queue_pb(T *t, const PB *pb)
{
    return chan_push(t, &t->ch[0], pb);
}

/* ---- the registers ------------------------------------------------------ */

static void expect_refused(T *t, uint32_t err)
{
    uint32_t n = pending(t);

    wr(t, TGPU_ECC_INJ_ARM, 1);
    g_assert_cmphex(rd(t, TGPU_ECC_INJ_STATUS), ==, n | err);
    wr(t, TGPU_ECC_INJ_STATUS, err);
    g_assert_cmphex(rd(t, TGPU_ECC_INJ_STATUS), ==, n);
}

static void test_registers(void)
{
    T t;

    mmu_mem_start(&t, NULL);
    g_assert_cmpuint(rd(&t, TGPU_ECC_INJ_MAX_REG), ==, TGPU_ECC_INJ_MAX);
    g_assert_cmphex(rd(&t, TGPU_ECC_INJ_STATUS), ==, 0);
    g_assert_cmpuint(rd(&t, TGPU_ECC_LOG_COUNT), ==, 0);
    g_assert_cmphex(rd(&t, TGPU_ECC_LOG_INFO), ==, TGPU_ECC_TYPE_NONE);
    expect_counts(&t, 0, 0);
    g_assert_cmphex(rd(&t, TGPU_ECC_INJ_PEND_ADDR_LO), ==, 0xffffffff);
    g_assert_cmphex(rd(&t, TGPU_ECC_INJ_PEND_MASK_LO), ==, 0);

    /* two armed, read back in order */
    inject(&t, 0x1000, SBE_BIT, TGPU_ECC_INJ_ONCE);
    inject(&t, 0x3f00008, DBE_BITS, TGPU_ECC_INJ_STICKY);
    g_assert_cmpuint(pending(&t), ==, 2);
    wr(&t, TGPU_ECC_INJ_SELECT, 1);
    g_assert_cmphex(rd(&t, TGPU_ECC_INJ_PEND_ADDR_LO), ==, 0x3f00008);
    g_assert_cmphex(rd(&t, TGPU_ECC_INJ_PEND_ADDR_HI), ==, 0);
    g_assert_cmphex(rd(&t, TGPU_ECC_INJ_PEND_MASK_LO), ==, 0);
    g_assert_cmphex(rd(&t, TGPU_ECC_INJ_PEND_MASK_HI), ==, DBE_BITS >> 32);
    g_assert_cmpuint(rd(&t, TGPU_ECC_INJ_PEND_MODE), ==,
                     TGPU_ECC_INJ_STICKY);
    /* arming a pending word again replaces its injection */
    inject(&t, 0x1000, DBE_BITS, TGPU_ECC_INJ_STICKY);
    g_assert_cmpuint(pending(&t), ==, 2);
    wr(&t, TGPU_ECC_INJ_SELECT, 0);
    g_assert_cmphex(rd(&t, TGPU_ECC_INJ_PEND_MASK_HI), ==, DBE_BITS >> 32);
    g_assert_cmpuint(rd(&t, TGPU_ECC_INJ_PEND_MODE), ==,
                     TGPU_ECC_INJ_STICKY);

    /* refusals change nothing but the status */
    inj_regs(&t, 0x2004, SBE_BIT, TGPU_ECC_INJ_ONCE);
    expect_refused(&t, TGPU_ECC_INJ_ERR_ALIGN);
    inj_regs(&t, VRAM_SIZE, SBE_BIT, TGPU_ECC_INJ_ONCE);
    expect_refused(&t, TGPU_ECC_INJ_ERR_RANGE);
    inj_regs(&t, 0x4000ull << 32, SBE_BIT, TGPU_ECC_INJ_ONCE);
    expect_refused(&t, TGPU_ECC_INJ_ERR_RANGE);
    inj_regs(&t, 0x2000, 0, TGPU_ECC_INJ_ONCE);
    expect_refused(&t, TGPU_ECC_INJ_ERR_MASK);
    inj_regs(&t, 0x2000, 7ull << 60, TGPU_ECC_INJ_ONCE);
    expect_refused(&t, TGPU_ECC_INJ_ERR_MASK);
    wr(&t, TGPU_ECC_INJ_MODE, 2);
    g_assert_cmpuint(rd(&t, TGPU_ECC_INJ_MODE), ==, TGPU_ECC_INJ_ONCE);
    g_assert_cmphex(rd(&t, TGPU_ECC_INJ_STATUS), ==,
                    2 | TGPU_ECC_INJ_ERR_VALUE);
    wr(&t, TGPU_ECC_INJ_STATUS, TGPU_ECC_INJ_ERR_VALUE);
    inj_regs(&t, 0x2000, SBE_BIT, TGPU_ECC_INJ_ONCE);
    wr(&t, TGPU_ECC_INJ_ARM, 2);
    g_assert_cmphex(rd(&t, TGPU_ECC_INJ_STATUS), ==,
                    2 | TGPU_ECC_INJ_ERR_VALUE);
    wr(&t, TGPU_ECC_INJ_STATUS, TGPU_ECC_INJ_ERR_VALUE);
    wr(&t, TGPU_ECC_COUNTERS_CLEAR, 4);
    wr(&t, TGPU_ECC_LOG_CLEAR, 2);
    wr(&t, TGPU_ECC_INJ_CLEAR, 0);
    g_assert_cmphex(rd(&t, TGPU_ECC_INJ_STATUS), ==,
                    2 | TGPU_ECC_INJ_ERR_VALUE);
    wr(&t, TGPU_ECC_INJ_STATUS, TGPU_ECC_INJ_ERR_ALL);

    /* 64 pending at most: the 65th is refused */
    for (uint32_t i = 2; i < TGPU_ECC_INJ_MAX; i++) {
        inject(&t, 0x10000 + 8 * i, SBE_BIT, TGPU_ECC_INJ_ONCE);
    }
    g_assert_cmpuint(pending(&t), ==, TGPU_ECC_INJ_MAX);
    inj_regs(&t, 0x20000, SBE_BIT, TGPU_ECC_INJ_ONCE);
    expect_refused(&t, TGPU_ECC_INJ_ERR_FULL);
    /* but a pending word may still be re-armed */
    inject(&t, 0x1000, SBE_BIT, TGPU_ECC_INJ_ONCE);
    g_assert_cmpuint(pending(&t), ==, TGPU_ECC_INJ_MAX);

    wr(&t, TGPU_ECC_INJ_CLEAR, 1);
    g_assert_cmphex(rd(&t, TGPU_ECC_INJ_STATUS), ==, 0);
    /* nothing was read: no error happened */
    expect_counts(&t, 0, 0);
    g_assert_cmpuint(rd(&t, TGPU_ECC_LOG_COUNT), ==, 0);
    tgpu_stop(&t);
}

/* ---- the host unit ------------------------------------------------------ */

/* An SBE in a pushbuffer: corrected, counted, logged, interrupt. */
static void test_sbe_pushbuffer(void)
{
    g_autofree PB *pb = pb_new();
    uint64_t seg;
    T t;

    ecc_start(&t, true);
    pb_release(pb, L.alive, 0xabc);
    seg = queue_pb(&t, pb);
    inject(&t, seg + 8, SBE_BIT, TGPU_ECC_INJ_ONCE);
    chan_kick(&t, &t.ch[0]);
    wait_done(&t, &t.ch[0]);
    g_assert_cmphex(pa_rd32(&t, L.alive), ==, 0xabc);
    expect_counts(&t, 1, 0);
    g_assert_cmpuint(rd(&t, TGPU_ECC_SBE_AGGREGATE), ==, 1);
    g_assert_cmpuint(pending(&t), ==, 0);
    g_assert_cmpuint(rd(&t, TGPU_ECC_LOG_COUNT), ==, 1);
    expect_log(&t, 0, seg + 8, TGPU_ECC_TYPE_SBE, TGPU_ECC_ENGINE_HOST, 0);
    expect_intr(&t, TGPU_ECC_INTR_SBE);
    /* ONCE: the next read of the word is clean */
    chan_gp(&t, &t.ch[0], TGPU_GP_ENTRY(seg, pb->n, 0));
    chan_kick(&t, &t.ch[0]);
    wait_done(&t, &t.ch[0]);
    expect_counts(&t, 1, 0);
    tgpu_stop(&t);
}

/*
 * A DBE in one channel's pushbuffer fails that channel with
 * ECC_UNCORRECTABLE: the segment before it ran, the poisoned one did
 * not.  Another channel's work goes on, its results intact.
 */
static void test_dbe_pushbuffer(void)
{
    g_autofree PB *pb = pb_new();
    uint64_t sem, seg;
    Chan *c;
    T t;

    ecc_start(&t, true);
    sem = vram_page(&t);
    c = chan_init(&t, 2, vram_page(&t), vram_page(&t), vram_page(&t),
                  TGPU_PAGE_SIZE);
    chan_up_cfg(&t, c);
    pb_release(pb, sem, 1);
    chan_push(&t, c, pb);
    pb->n = 0;
    pb_release(pb, sem + 4, 2);
    seg = chan_push(&t, c, pb);
    inject(&t, seg + 8, DBE_BITS, TGPU_ECC_INJ_ONCE);
    chan_kick(&t, c);
    expect_err(&t, c, TGPU_ERR_ECC_UNCORRECTABLE, TGPU_ECC_ENGINE_HOST);
    g_assert_cmphex(pa_rd32(&t, sem), ==, 1);
    g_assert_cmphex(pa_rd32(&t, sem + 4), ==, 0);
    expect_counts(&t, 0, 1);
    g_assert_cmpuint(rd(&t, TGPU_ECC_DBE_AGGREGATE), ==, 1);
    expect_log(&t, 0, seg + 8, TGPU_ECC_TYPE_DBE, TGPU_ECC_ENGINE_HOST, 2);
    expect_intr(&t, TGPU_ECC_INTR_DBE);
    check_alive(&t, 0x5151);
    tgpu_stop(&t);
}

/* A DBE in a GPFIFO entry, USERD's GP_PUT, the instance block. */
static void test_dbe_host_structures(void)
{
    g_autofree PB *pb = pb_new();
    Chan *c;
    T t;

    ecc_start(&t, true);
    pb_release(pb, L.alive, 1);

    /* the GPFIFO entry the channel fetches next */
    c = chan_up_cfg(&t, chan_init(&t, 2, vram_page(&t), vram_page(&t),
                                  vram_page(&t), TGPU_PAGE_SIZE));
    chan_push(&t, c, pb);
    inject(&t, c->gpfifo, DBE_BITS, TGPU_ECC_INJ_ONCE);
    chan_kick(&t, c);
    expect_err(&t, c, TGPU_ERR_ECC_UNCORRECTABLE, TGPU_ECC_ENGINE_HOST);
    expect_log(&t, 0, c->gpfifo, TGPU_ECC_TYPE_DBE, TGPU_ECC_ENGINE_HOST, 2);

    /* USERD's GP_PUT, read at the doorbell */
    c = chan_up_cfg(&t, chan_init(&t, 3, vram_page(&t), vram_page(&t),
                                  vram_page(&t), TGPU_PAGE_SIZE));
    chan_push(&t, c, pb);
    chan_mem_wr32(&t, c, c->userd + TGPU_USERD_GP_PUT, c->put);
    inject(&t, c->userd + TGPU_USERD_GP_PUT, DBE_BITS, TGPU_ECC_INJ_ONCE);
    doorbell(&t, c->id);
    expect_err(&t, c, TGPU_ERR_ECC_UNCORRECTABLE, TGPU_ECC_ENGINE_HOST);
    expect_log(&t, 1, c->userd + TGPU_USERD_GP_PUT, TGPU_ECC_TYPE_DBE,
               TGPU_ECC_ENGINE_HOST, 3);

    /* the instance block, read at enable */
    c = chan_init(&t, 4, vram_page(&t), vram_page(&t), vram_page(&t),
                  TGPU_PAGE_SIZE);
    chan_write(&t, c);
    inject(&t, c->inst + TGPU_INST_GPFIFO_BASE, DBE_BITS, TGPU_ECC_INJ_ONCE);
    chan_enable(&t, c);
    expect_err(&t, c, TGPU_ERR_ECC_UNCORRECTABLE, TGPU_ECC_ENGINE_HOST);
    expect_log(&t, 2, c->inst + TGPU_INST_GPFIFO_BASE, TGPU_ECC_TYPE_DBE,
               TGPU_ECC_ENGINE_HOST, 4);
    expect_counts(&t, 0, 3);
    check_alive(&t, 0x5252);
    tgpu_stop(&t);
}

/*
 * A STICKY error hits every read of its word until the word is written:
 * here a semaphore the channel acquires, then releases over.
 */
static void test_sticky_until_written(void)
{
    g_autofree PB *pb = pb_new();
    uint64_t sem;
    Chan *c;
    T t;

    ecc_start(&t, true);
    c = &t.ch[0];
    sem = vram_page(&t);
    pa_wr32(&t, sem, 7);
    inject(&t, sem, SBE_BIT, TGPU_ECC_INJ_STICKY);
    pb_acq_geq(pb, sem, 7);
    pb_acq_geq(pb, sem, 7);
    pb_acq_geq(pb, sem, 7);
    run(&t, c, pb);
    expect_counts(&t, 3, 0);
    g_assert_cmpuint(pending(&t), ==, 1);
    /* the release writes the word: new check bits, the error is gone */
    pb->n = 0;
    pb_release(pb, sem, 8);
    pb_acq_geq(pb, sem, 8);
    run(&t, c, pb);
    g_assert_cmpuint(pending(&t), ==, 0);
    expect_counts(&t, 3, 0);
    g_assert_cmphex(pa_rd32(&t, sem), ==, 8);
    tgpu_stop(&t);
}

/*
 * With ECC disabled an injection flips its bits in VRAM at the first
 * read, silently: the release writes the flipped payload, nothing is
 * counted or logged, no interrupt.  Two bits flip as silently as one.
 */
static void test_ecc_off_flips(void)
{
    g_autofree PB *pb = pb_new();
    uint64_t sem, seg;
    T t;

    ecc_start(&t, false);
    sem = vram_page(&t);
    pb_release(pb, sem, 0x100);
    pb_release(pb, sem + 4, 0x200);
    seg = queue_pb(&t, pb);
    /* payload_lo is dword 3 of a release: bits 63:32 of its word */
    inject(&t, seg + 8, 1ull << 32, TGPU_ECC_INJ_STICKY);
    inject(&t, seg + 4 * TGPU_SEM_DWORDS + 8, 3ull << 36, TGPU_ECC_INJ_ONCE);
    chan_kick(&t, &t.ch[0]);
    wait_done(&t, &t.ch[0]);
    g_assert_cmphex(pa_rd32(&t, sem), ==, 0x101);
    g_assert_cmphex(pa_rd32(&t, sem + 4), ==, 0x230);
    /* the cells keep the flipped bits; the injections are gone */
    g_assert_cmphex(pa_rd32(&t, seg + 12), ==, 0x101);
    g_assert_cmpuint(pending(&t), ==, 0);
    expect_counts(&t, 0, 0);
    g_assert_cmpuint(rd(&t, TGPU_ECC_LOG_COUNT), ==, 0);
    settle(&t);
    g_assert_cmphex(rd(&t, TGPU_ECC_INTR), ==, 0);
    g_assert_cmphex(rd(&t, TGPU_PMC_INTR) & TGPU_INTR_ECC, ==, 0);
    tgpu_stop(&t);
}

/* ---- the MMU ------------------------------------------------------------ */

/*
 * A DBE in a page table is an MMU fault of type ECC, with its record; an
 * SBE in one is corrected and the access goes on.
 */
static void test_page_walk(void)
{
    g_autofree PB *pb = pb_new();
    uint64_t data, pte_at;
    Ctx x;
    Chan *c;
    T t;

    ecc_start(&t, true);
    ctx_init(&t, &x, 5);
    c = pchan_up(&t, 2, &x);
    data = map_new(&t, &x, V_SEM, 0);
    pte_at = ptee_of(&t, &x, V_SEM);

    inject(&t, pte_at, SBE_BIT, TGPU_ECC_INJ_ONCE);
    run_release(&t, c, V_SEM, 0x77);
    g_assert_cmphex(pa_rd32(&t, data), ==, 0x77);
    expect_counts(&t, 1, 0);
    expect_log(&t, 0, pte_at, TGPU_ECC_TYPE_SBE, TGPU_ECC_ENGINE_MMU, 2);
    expect_intr(&t, TGPU_ECC_INTR_SBE);

    /* the TLB has it now: drop it so that the next access walks */
    wr(&t, TGPU_MMU_INVALIDATE, TGPU_MMU_INV_ALL);
    inject(&t, pte_at, DBE_BITS, TGPU_ECC_INJ_ONCE);
    pb_release(pb, V_SEM, 0x78);
    submit(&t, c, pb);
    expect_chan_fault(&t, c, V_SEM, TGPU_FAULT_ACCESS_WRITE, TGPU_FAULT_ECC,
                      TGPU_ERR_SEM_FAULT, (uint32_t)V_SEM);
    g_assert_cmphex(pa_rd32(&t, data), ==, 0x77);
    expect_counts(&t, 1, 1);
    expect_log(&t, 1, pte_at, TGPU_ECC_TYPE_DBE, TGPU_ECC_ENGINE_MMU, 2);
    expect_intr(&t, TGPU_ECC_INTR_DBE);
    check_alive(&t, 0x5353);
    tgpu_stop(&t);
}

/* ---- the copy engines --------------------------------------------------- */

/* A bypass channel CH on a copy engine, its class bound on SC_CE. */
static Chan *ce_chan_up(T *t, int ch)
{
    return chan_up_class(t, chan_init(t, ch, vram_page(t), vram_page(t),
                                      vram_page(t), TGPU_PAGE_SIZE),
                         SC_CE, TGPU_CLASS_COPY);
}

/* Copy LEN bytes from SRC to DST (one line), releasing SEQ at SEM. */
static void pb_ce_copy(PB *pb, uint64_t dst, uint64_t src, uint32_t len,
                       uint64_t sem, uint32_t seq)
{
    pb_hdr(pb, TGPU_PB_OP_INC, SC_CE, TGPU_CE_M_OFFSET_IN_UPPER, 4);
    pb_dw(pb, src >> 32);
    pb_dw(pb, (uint32_t)src);
    pb_dw(pb, dst >> 32);
    pb_dw(pb, (uint32_t)dst);
    pb_hdr(pb, TGPU_PB_OP_INC, SC_CE, TGPU_CE_M_PITCH_IN, 4);
    pb_dw(pb, len);
    pb_dw(pb, len);
    pb_dw(pb, len);
    pb_dw(pb, 1);
    pb_hdr(pb, TGPU_PB_OP_INC, SC_CE, TGPU_CE_M_SET_SEMAPHORE_A, 3);
    pb_dw(pb, sem >> 32);
    pb_dw(pb, (uint32_t)sem);
    pb_dw(pb, seq);
    pb_m(pb, SC_CE, TGPU_CE_M_LAUNCH_DMA,
         TGPU_CE_LAUNCH(TGPU_CE_TRANSFER_NON_PIPELINED, TGPU_CE_SEM_ONE_WORD,
                        TGPU_CE_INTR_NONE));
}

static uint32_t cerd(T *t, int ce, uint32_t reg)
{
    return rd(t, TGPU_CE_REG(ce, reg));
}

/* Contiguous VRAM pages, zeroed. */
static uint64_t vram_pages(T *t, int n)
{
    uint64_t pa = vram_page(t);

    for (int i = 1; i < n; i++) {
        vram_page(t);
    }
    return pa;
}

/*
 * Both copy engines: an SBE in a source is corrected (the copy is
 * exact) and counted with its engine, a DBE stops the copy before its
 * 4 KiB page, which ERROR_VA names; the channel fails with
 * ECC_UNCORRECTABLE, the engine's error is TGPU_CE_ERR_ECC, and a copy
 * on the other engine is untouched.
 */
static void test_copy_engines(void)
{
    const uint32_t len = 3 * TGPU_PAGE_SIZE;
    g_autofree uint8_t *src = g_malloc(len);
    g_autofree uint8_t *got = g_malloc(len);
    g_autofree PB *pb = pb_new();
    uint64_t a, b, d, sem;
    Chan *c0, *c1;
    T t;

    ecc_start(&t, true);
    c0 = ce_chan_up(&t, CH_CE0);
    c1 = ce_chan_up(&t, CH_CE1);
    a = vram_pages(&t, 3);
    b = vram_pages(&t, 3);
    d = vram_pages(&t, 3);
    sem = vram_page(&t);
    for (uint32_t i = 0; i < len; i++) {
        src[i] = i * 7 + 3;
    }
    pa_write(&t, a, src, len);

    /* SBE in page 0 of the source of CE0's copy */
    inject(&t, a + 0x100, SBE_BIT, TGPU_ECC_INJ_ONCE);
    pb_ce_copy(pb, b, a, len, sem, 1);
    run(&t, c0, pb);
    g_assert_cmphex(pa_rd32(&t, sem), ==, 1);
    pa_read(&t, b, got, len);
    g_assert_cmpmem(got, len, src, len);
    expect_counts(&t, 1, 0);
    expect_log(&t, 0, a + 0x100, TGPU_ECC_TYPE_SBE, TGPU_ECC_ENGINE_CE0,
               CH_CE0);
    expect_intr(&t, TGPU_ECC_INTR_SBE);

    /*
     * DBE in page 1 of CE1's source: page 0 lands, pages 1 and 2 not; the
     * SBE behind it in page 2 is not read, so it stays armed
     */
    inject(&t, a + 0x300, SBE_BIT, TGPU_ECC_INJ_ONCE);
    inject(&t, a + TGPU_PAGE_SIZE + 0x208, DBE_BITS, TGPU_ECC_INJ_ONCE);
    inject(&t, a + 2 * TGPU_PAGE_SIZE + 0x10, SBE_BIT, TGPU_ECC_INJ_ONCE);
    pb->n = 0;
    pb_ce_copy(pb, d, a, len, sem, 2);
    submit(&t, c1, pb);
    expect_err(&t, c1, TGPU_ERR_ECC_UNCORRECTABLE, TGPU_ECC_ENGINE_CE1);
    g_assert_cmpuint(cerd(&t, 1, TGPU_CE_ERROR), ==, TGPU_CE_ERR_ECC);
    g_assert_cmphex(cerd(&t, 1, TGPU_CE_ERROR_VA_LO), ==,
                    (uint32_t)(a + TGPU_PAGE_SIZE));
    g_assert_cmphex(cerd(&t, 1, TGPU_CE_ERROR_VA_HI), ==, 0);
    pa_read(&t, d, got, len);
    g_assert_cmpmem(got, TGPU_PAGE_SIZE, src, TGPU_PAGE_SIZE);
    for (uint32_t i = TGPU_PAGE_SIZE; i < len; i++) {
        g_assert_cmpuint(got[i], ==, 0);
    }
    g_assert_cmphex(pa_rd32(&t, sem), ==, 1);
    expect_counts(&t, 2, 1);
    g_assert_cmpuint(pending(&t), ==, 1);
    expect_log(&t, 1, a + 0x300, TGPU_ECC_TYPE_SBE, TGPU_ECC_ENGINE_CE1,
               CH_CE1);
    expect_log(&t, 2, a + TGPU_PAGE_SIZE + 0x208, TGPU_ECC_TYPE_DBE,
               TGPU_ECC_ENGINE_CE1, CH_CE1);
    expect_intr(&t, TGPU_ECC_INTR_SBE | TGPU_ECC_INTR_DBE);

    /* CE0 still copies, exactly, and now reads the SBE */
    pb->n = 0;
    pb_ce_copy(pb, d, a, len, sem, 3);
    run(&t, c0, pb);
    g_assert_cmphex(pa_rd32(&t, sem), ==, 3);
    pa_read(&t, d, got, len);
    g_assert_cmpmem(got, len, src, len);
    expect_counts(&t, 3, 1);
    expect_log(&t, 3, a + 2 * TGPU_PAGE_SIZE + 0x10, TGPU_ECC_TYPE_SBE,
               TGPU_ECC_ENGINE_CE0, CH_CE0);
    tgpu_stop(&t);
}

/* ---- the compute engine ------------------------------------------------- */

/*
 * A kernel of one thread: out[0] = in[0] (a load), then an atomic add of
 * 1 at in[8].  An SBE in either is corrected; a DBE in the loaded word
 * fails the channel with ECC_UNCORRECTABLE and GR_ERROR is KERR_ECC.
 */
static void test_compute(void)
{
    static const uint64_t code[] = {
        LD(LDC, 64, 2, RZ, 0), LD(LDC, 64, 4, RZ, 8),
        LD(LDG, 32, 8, 4, 0), ST(STG, 32, 2, 0, 8),
        MOVI(9, 1), OPR(ATOMG, 10, 4, 9, RZ, TGPU_ATOM_ADD, 32),
        EXIT,
    };
    struct {
        uint64_t out, in;
    } p;
    Kernel k = { code, ARRAY_SIZE(code), { 1 }, { 1 }, 0, &p, sizeof(p) };
    g_autofree PB *pb = pb_new();
    uint64_t in, out, code_at, param, sem;
    Chan *c;
    T t;

    ecc_start(&t, true);
    c = chan_up_class(&t, chan_init(&t, CH_GR, vram_page(&t), vram_page(&t),
                                    vram_page(&t), TGPU_PAGE_SIZE),
                      SC, TGPU_CLASS_COMPUTE);
    in = vram_page(&t);
    out = vram_page(&t);
    code_at = vram_page(&t);
    param = vram_page(&t);
    sem = vram_page(&t);
    p.out = cpu_to_le64(out);
    p.in = cpu_to_le64(in);
    pa_wr32(&t, in, 0x1234);
    pa_wr32(&t, in + 32, 40);

    pb_kernel_at(&t, pb, &k, code_at, param, sem, 1);
    inject(&t, in, SBE_BIT, TGPU_ECC_INJ_ONCE);
    inject(&t, in + 32, SBE_BIT, TGPU_ECC_INJ_ONCE);
    run(&t, c, pb);
    g_assert_cmphex(pa_rd32(&t, sem), ==, 1);
    g_assert_cmphex(pa_rd32(&t, out), ==, 0x1234);
    g_assert_cmpuint(pa_rd32(&t, in + 32), ==, 41);
    expect_counts(&t, 2, 0);
    expect_log(&t, 0, in, TGPU_ECC_TYPE_SBE, TGPU_ECC_ENGINE_COMPUTE, CH_GR);
    expect_log(&t, 1, in + 32, TGPU_ECC_TYPE_SBE, TGPU_ECC_ENGINE_COMPUTE,
               CH_GR);
    expect_intr(&t, TGPU_ECC_INTR_SBE);

    pa_wr32(&t, out, 0);
    inject(&t, in, DBE_BITS, TGPU_ECC_INJ_ONCE);
    pb->n = 0;
    pb_kernel_at(&t, pb, &k, code_at, param, sem, 2);
    submit(&t, c, pb);
    expect_err(&t, c, TGPU_ERR_ECC_UNCORRECTABLE, TGPU_ECC_ENGINE_COMPUTE);
    g_assert_cmpuint(rd(&t, TGPU_GR_ERROR), ==, TGPU_KERR_ECC);
    g_assert_cmphex(pa_rd32(&t, out), ==, 0);
    g_assert_cmphex(pa_rd32(&t, sem), ==, 1);
    g_assert_cmpuint(pa_rd32(&t, in + 32), ==, 41);
    expect_counts(&t, 2, 1);
    expect_log(&t, 2, in, TGPU_ECC_TYPE_DBE, TGPU_ECC_ENGINE_COMPUTE, CH_GR);
    expect_intr(&t, TGPU_ECC_INTR_DBE);
    check_alive(&t, 0x5454);
    tgpu_stop(&t);
}

/* ---- the CPU through BAR1 ----------------------------------------------- */

/*
 * A CPU read of a poisoned word reads all ones and raises a non-fatal
 * uncorrectable error (poisoned TLP) through AER; an SBE reads the right
 * data.  Other words, and other pages, read as they are.  A write clears
 * the poison.
 */
static void test_bar1(void)
{
    uint64_t page, other;
    uint32_t st;
    T t;

    ecc_start(&t, true);
    page = vram_page(&t);
    other = vram_page(&t);
    pa_wr32(&t, page + 0x40, 0x11223344);
    pa_wr32(&t, page + 0x80, 0x55667788);
    pa_wr32(&t, other, 0x99);
    ecam_open(&t);
    g_assert_cmphex(qtest_readl(t.qts, AER_UNCOR_STATUS), ==, 0);

    inject(&t, page + 0x40, DBE_BITS, TGPU_ECC_INJ_STICKY);
    inject(&t, page + 0x80, SBE_BIT, TGPU_ECC_INJ_ONCE);
    g_assert_cmphex(pa_rd32(&t, page + 0x80), ==, 0x55667788);
    g_assert_cmphex(pa_rd32(&t, page + 0x44), ==, 0xffffffff);
    g_assert_cmphex(pa_rd32(&t, page + 0x40), ==, 0xffffffff);
    g_assert_cmphex(pa_rd32(&t, page + 0xc0), ==, 0);
    g_assert_cmphex(pa_rd32(&t, other), ==, 0x99);
    expect_counts(&t, 1, 2);
    expect_log(&t, 0, page + 0x80, TGPU_ECC_TYPE_SBE, TGPU_ECC_ENGINE_BAR1,
               TGPU_ECC_NO_CHID);
    expect_log(&t, 1, page + 0x40, TGPU_ECC_TYPE_DBE, TGPU_ECC_ENGINE_BAR1,
               TGPU_ECC_NO_CHID);
    st = qtest_readl(t.qts, AER_UNCOR_STATUS);
    g_assert_cmphex(st, ==, PCI_ERR_UNC_POISON_TLP);
    expect_intr(&t, TGPU_ECC_INTR_SBE | TGPU_ECC_INTR_DBE);

    /* the write rewrites the check bits */
    pa_wr32(&t, page + 0x40, 0xabcd);
    settle(&t);
    g_assert_cmpuint(pending(&t), ==, 0);
    g_assert_cmphex(pa_rd32(&t, page + 0x40), ==, 0xabcd);
    g_assert_cmphex(pa_rd32(&t, page + 0x80), ==, 0x55667788);
    expect_counts(&t, 1, 2);
    tgpu_stop(&t);
}

/* ---- the log, the counters, reset --------------------------------------- */

static void test_log_and_counters(void)
{
    g_autofree PB *pb = pb_new();
    uint64_t base;
    T t;

    ecc_start(&t, true);
    base = vram_page(&t);
    /* 17 SBEs on 17 words, read by one acquire each */
    for (int i = 0; i <= TGPU_ECC_LOG_ENTRIES; i++) {
        pa_wr32(&t, base + 8 * i, 1);
        inject(&t, base + 8 * i, SBE_BIT, TGPU_ECC_INJ_ONCE);
        pb_acq_geq(pb, base + 8 * i, 1);
    }
    run(&t, &t.ch[0], pb);
    expect_counts(&t, TGPU_ECC_LOG_ENTRIES + 1, 0);
    g_assert_cmpuint(rd(&t, TGPU_ECC_LOG_COUNT), ==, TGPU_ECC_LOG_ENTRIES);
    g_assert_cmphex(rd(&t, TGPU_ECC_LOG_STATUS), ==, TGPU_ECC_LOG_OVERFLOW);
    /* the oldest was dropped */
    expect_log(&t, 0, base + 8, TGPU_ECC_TYPE_SBE, TGPU_ECC_ENGINE_HOST, 0);
    expect_log(&t, TGPU_ECC_LOG_ENTRIES - 1, base + 8 * TGPU_ECC_LOG_ENTRIES,
               TGPU_ECC_TYPE_SBE, TGPU_ECC_ENGINE_HOST, 0);
    wr(&t, TGPU_ECC_LOG_SELECT, TGPU_ECC_LOG_ENTRIES);
    g_assert_cmphex(rd(&t, TGPU_ECC_LOG_INFO), ==, 0);
    g_assert_cmphex(rd(&t, TGPU_ECC_LOG_ADDR_LO), ==, 0);
    wr(&t, TGPU_ECC_LOG_STATUS, TGPU_ECC_LOG_OVERFLOW);
    g_assert_cmphex(rd(&t, TGPU_ECC_LOG_STATUS), ==, 0);
    g_assert_cmpuint(rd(&t, TGPU_ECC_LOG_COUNT), ==, TGPU_ECC_LOG_ENTRIES);
    wr(&t, TGPU_ECC_LOG_CLEAR, 1);
    g_assert_cmpuint(rd(&t, TGPU_ECC_LOG_COUNT), ==, 0);

    /* COUNTERS_CLEAR: volatile and aggregate apart */
    wr(&t, TGPU_ECC_COUNTERS_CLEAR, TGPU_ECC_CLEAR_VOLATILE);
    expect_counts(&t, 0, 0);
    g_assert_cmpuint(rd(&t, TGPU_ECC_SBE_AGGREGATE), ==, 17);
    wr(&t, TGPU_ECC_COUNTERS_CLEAR, TGPU_ECC_CLEAR_AGGREGATE);
    g_assert_cmpuint(rd(&t, TGPU_ECC_SBE_AGGREGATE), ==, 0);

    /* a reset empties the volatile counters, the log and the injections */
    inject(&t, base, SBE_BIT, TGPU_ECC_INJ_ONCE);
    pb->n = 0;
    pb_acq_geq(pb, base, 1);
    run(&t, &t.ch[0], pb);
    inject(&t, base + 8, DBE_BITS, TGPU_ECC_INJ_STICKY);
    expect_counts(&t, 1, 0);
    tgpu_system_reset(&t);
    expect_counts(&t, 0, 0);
    g_assert_cmpuint(rd(&t, TGPU_ECC_SBE_AGGREGATE), ==, 1);
    g_assert_cmpuint(rd(&t, TGPU_ECC_LOG_COUNT), ==, 0);
    g_assert_cmphex(rd(&t, TGPU_ECC_INJ_STATUS), ==, 0);
    /* and BAR1 is plain RAM again there */
    g_assert_cmphex(pa_rd32(&t, base + 8), ==, 1);
    expect_counts(&t, 0, 0);
    tgpu_stop(&t);
}

/* The InfoROM file at PATH, decoded. */
static void read_rom(const char *path, struct tgpu_inforom *rom)
{
    g_autofree char *buf = NULL;
    gsize len;

    g_assert_true(g_file_get_contents(path, &buf, &len, NULL));
    g_assert_null(tgpu_inforom_decode((uint8_t *)buf, len, rom));
}

/*
 * The file once it holds SBE and DBE aggregate counts: the device
 * writes it at most once a second of host time.
 */
static void wait_rom(const char *path, uint64_t sbe, uint64_t dbe,
                     struct tgpu_inforom *rom)
{
    gint64 end = g_get_monotonic_time() + WAIT_US;

    for (;;) {
        read_rom(path, rom);
        if ((rom->sbe_aggregate == sbe && rom->dbe_aggregate == dbe) ||
            g_get_monotonic_time() > end) {
            break;
        }
        g_usleep(20000);
    }
    g_assert_cmpuint(rom->sbe_aggregate, ==, sbe);
    g_assert_cmpuint(rom->dbe_aggregate, ==, dbe);
}

/*
 * The aggregate counts live in the InfoROM: a version 1 file (no counts)
 * loads, the first errors make it version 2 with its page kept, and the
 * next QEMU with the file starts from those counts.
 */
static void test_inforom_counts(void)
{
    g_autofree char *dir = g_dir_make_tmp("tgpu-ecc-XXXXXX", NULL);
    g_autofree char *path = g_build_filename(dir, "ir.bin", NULL);
    g_autofree char *opts = g_strdup_printf("inforom=%s", path);
    uint8_t v1[TGPU_INFOROM_HDR_SIZE + TGPU_INFOROM_ENTRY_SIZE] = { 0 };
    struct tgpu_inforom rom;
    uint64_t page;
    T t;

    tgpu_inforom_put(v1 + TGPU_INFOROM_HDR_MAGIC, 4, TGPU_INFOROM_MAGIC);
    tgpu_inforom_put(v1 + TGPU_INFOROM_HDR_VERSION, 2, TGPU_INFOROM_VERSION_1);
    tgpu_inforom_put(v1 + TGPU_INFOROM_HDR_COUNT, 2, 1);
    tgpu_inforom_put(v1 + TGPU_INFOROM_ENTRIES_V1 + TGPU_INFOROM_ENT_ADDR, 8,
                     0x3f00000);
    tgpu_inforom_put(v1 + TGPU_INFOROM_ENTRIES_V1 + TGPU_INFOROM_ENT_CAUSE, 4,
                     TGPU_RETIRED_CAUSE_DBE);
    tgpu_inforom_put(v1 + TGPU_INFOROM_HDR_CHECKSUM, 4,
                     tgpu_inforom_fnv1a(v1, sizeof(v1)));
    g_assert_true(g_file_set_contents(path, (char *)v1, sizeof(v1), NULL));

    ecc_start_opts(&t, true, opts);
    g_assert_cmpuint(rd(&t, TGPU_ECC_RETIRED_COUNT), ==, 1);
    g_assert_cmpuint(rd(&t, TGPU_ECC_SBE_AGGREGATE), ==, 0);
    g_assert_cmpuint(rd(&t, TGPU_ECC_DBE_AGGREGATE), ==, 0);
    page = vram_page(&t);
    inject(&t, page, SBE_BIT, TGPU_ECC_INJ_ONCE);
    inject(&t, page + 8, DBE_BITS, TGPU_ECC_INJ_ONCE);
    g_assert_cmphex(pa_rd32(&t, page), ==, 0);
    g_assert_cmphex(pa_rd32(&t, page + 8), ==, 0xffffffff);
    wait_rom(path, 1, 1, &rom);
    g_assert_cmpuint(rom.version, ==, TGPU_INFOROM_VERSION);
    g_assert_cmpuint(rom.count, ==, 1);
    g_assert_cmphex(rom.ent[0].addr, ==, 0x3f00000);
    tgpu_stop(&t);

    /* a new QEMU, the same board: the aggregate counts go on */
    ecc_start_opts(&t, true, opts);
    expect_counts(&t, 0, 0);
    g_assert_cmpuint(rd(&t, TGPU_ECC_SBE_AGGREGATE), ==, 1);
    g_assert_cmpuint(rd(&t, TGPU_ECC_DBE_AGGREGATE), ==, 1);
    page = vram_page(&t);
    inject(&t, page, SBE_BIT, TGPU_ECC_INJ_ONCE);
    pa_rd32(&t, page);
    settle(&t);
    g_assert_cmpuint(rd(&t, TGPU_ECC_SBE_AGGREGATE), ==, 2);
    wait_rom(path, 2, 1, &rom);
    /* clearing them clears the file's */
    wr(&t, TGPU_ECC_COUNTERS_CLEAR, TGPU_ECC_CLEAR_AGGREGATE);
    wait_rom(path, 0, 0, &rom);
    g_assert_cmpuint(rom.count, ==, 1);
    tgpu_stop(&t);
    unlink(path);
    rmdir(dir);
}

int main(int argc, char **argv)
{
    g_test_init(&argc, &argv, NULL);
    qtest_add_func("/tgpu/ecc-inject/registers", test_registers);
    qtest_add_func("/tgpu/ecc-inject/sbe-pushbuffer", test_sbe_pushbuffer);
    qtest_add_func("/tgpu/ecc-inject/dbe-pushbuffer", test_dbe_pushbuffer);
    qtest_add_func("/tgpu/ecc-inject/dbe-host-structures",
                   test_dbe_host_structures);
    qtest_add_func("/tgpu/ecc-inject/sticky", test_sticky_until_written);
    qtest_add_func("/tgpu/ecc-inject/ecc-off-flips", test_ecc_off_flips);
    qtest_add_func("/tgpu/ecc-inject/page-walk", test_page_walk);
    qtest_add_func("/tgpu/ecc-inject/copy-engines", test_copy_engines);
    qtest_add_func("/tgpu/ecc-inject/compute", test_compute);
    qtest_add_func("/tgpu/ecc-inject/bar1", test_bar1);
    qtest_add_func("/tgpu/ecc-inject/log-and-counters",
                   test_log_and_counters);
    qtest_add_func("/tgpu/ecc-inject/inforom-counts", test_inforom_counts);
    return g_test_run();
}
