/*
 * The tgpu channel qtests' shared layout and helpers: where the tests put
 * rings, USERD, pushbuffers and semaphores, and the checks of a channel
 * error.  tgpu-qtest.h has the device-level helpers.
 *
 * Copyright (c) 2026 The tgpu authors
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */

#ifndef TGPU_CHANNEL_QTEST_H
#define TGPU_CHANNEL_QTEST_H

#include "tgpu-qtest.h"
#include "tgpu/copy.h"

/* q35: slot 4 INTA goes to PIRQE, which is IOAPIC input 20 */
#define TGPU_INTX_GSI       20

/*
 * Where the tests put things, besides the runlists and instance blocks
 * of tgpu-qtest.h: allocated at every start (chan_start).  Every channel
 * runs in bypass mode, its GPU addresses physical (SYS() for guest RAM).
 */
#define PB_SIZE             0x20000u

static struct {                 /* VRAM */
    ChanMem ch[NR_TEST_CHANNELS];
    uint64_t sem;               /* semaphores: 4 MiB */
    uint64_t scratch;           /* 8 MiB, 8 KiB aligned (a PD1 table) */
    uint64_t bigring;           /* room for 2^20 entries */
} L;

static struct {                 /* guest RAM */
    uint64_t userd;             /* one channel's */
    uint64_t gpfifo;            /* 16 entries */
    uint64_t pb;                /* 64 KiB */
    uint64_t sem;
} G;

static inline void chan_mem_init(T *t)
{
    chan_mem_alloc(t, L.ch, PB_SIZE);
    L.sem = vram_alloc(t, 4 * MiB);
    L.scratch = vram_alloc_aligned(t, 8 * MiB, TGPU_PDB_ALIGN);
    L.bigring = vram_alloc(t, TGPU_GP_ENTRY_SIZE << 20);
    G.userd = ram_alloc(t, TGPU_USERD_SIZE);
    G.gpfifo = ram_alloc(t, 0xf000);
    G.pb = ram_alloc(t, 0xf0000);
    G.sem = ram_alloc(t, 4 * KiB);
}

/* The device and the channels' memory. */
static inline void chan_start(T *t, const char *opts)
{
    tgpu_start(t, opts);
    chan_mem_init(t);
}

/* The same, with every test channel on its engine's runlist. */
static inline void tgpu_start_std(T *t)
{
    chan_start(t, NULL);
    runlists_std(t);
}

/* The default configuration of a channel: everything in VRAM. */
static inline Chan *chan_cfg(T *t, int ch)
{
    return chan_init_mem(t, ch, L.ch);
}

/* The same, with GPFIFO, USERD and pushbuffer in system memory. */
static inline Chan *chan_cfg_sys(T *t, int ch)
{
    Chan *c = chan_cfg(t, ch);

    c->gpfifo = SYS(G.gpfifo);
    c->log2 = 4;
    c->userd = SYS(G.userd);
    c->pb = SYS(G.pb);
    c->pb_size = 0x10000;
    return c;
}

/* Configure (default), write and enable a channel; it must come up IDLE. */
static inline Chan *chan_up(T *t, int ch)
{
    return chan_up_cfg(t, chan_cfg(t, ch));
}

/*
 * The channel must fail with CODE and INFO, as the only channel with a
 * pending error; then acknowledge it, reset the channel and check that
 * both took.
 */
static inline void expect_err(T *t, Chan *c, uint32_t code, uint32_t info)
{
    int ch = c->id;

    wait_state(t, ch, TGPU_CHAN_STATE_ERROR);
    g_assert_cmpuint(crd(t, ch, TGPU_CHAN_ERROR), ==, code);
    g_assert_cmphex(crd(t, ch, TGPU_CHAN_ERROR_INFO), ==, info);
    g_assert_true(err_pending(t, ch));
    g_assert_cmphex(rd(t, TGPU_FIFO_INTR) & TGPU_FIFO_INTR_CHAN_ERROR, ==,
                    TGPU_FIFO_INTR_CHAN_ERROR);
    g_assert_cmpuint(rd(t, TGPU_FIFO_ERR_CHID), ==, ch);
    g_assert_cmpuint(rd(t, TGPU_FIFO_ERR_CODE), ==, code);
    g_assert_cmphex(rd(t, TGPU_FIFO_ERR_INFO), ==, info);

    err_ack(t, ch);
    assert_no_error_pending(t);
    /* acknowledged, but the channel stays in ERROR until RESET */
    g_assert_cmpuint(chan_state(t, ch), ==, TGPU_CHAN_STATE_ERROR);
    g_assert_cmpuint(crd(t, ch, TGPU_CHAN_ERROR), ==, code);

    chan_reset(t, ch);
    g_assert_cmpuint(chan_state(t, ch), ==, TGPU_CHAN_STATE_DISABLED);
    g_assert_cmpuint(crd(t, ch, TGPU_CHAN_ERROR), ==, 0);
    g_assert_cmpuint(crd(t, ch, TGPU_CHAN_ERROR_INFO), ==, 0);
}

/*
 * As expect_err, for work that released TAG at MARK before the error:
 * that release happened, the one after the error (at MARK + 4) did not.
 */
static inline void expect_err_after(T *t, Chan *c, uint32_t code, uint32_t info,
                             uint64_t mark, uint32_t tag)
{
    expect_err(t, c, code, info);
    g_assert_cmphex(pa_rd32(t, mark), ==, tag);
    g_assert_cmphex(pa_rd32(t, mark + 4), ==, 0);
}

static inline void enable_all_interrupts(T *t)
{
    wr(t, TGPU_FIFO_INTR_EN,
       TGPU_FIFO_INTR_CHAN_ERROR | TGPU_FIFO_INTR_RUNLIST);
    wr(t, TGPU_FIFO_NONSTALL_INTR_EN, 1);
    wr(t, TGPU_PMC_INTR_EN, TGPU_INTR_FIFO | TGPU_INTR_NONSTALL);
}

/* The healthy channel 0 still runs work. */
static inline void check_alive(T *t, uint32_t val)
{
    Chan *c = &t->ch[0];

    if (chan_state(t, 0) == TGPU_CHAN_STATE_DISABLED) {
        c = chan_up(t, 0);
    }
    run_release(t, c, L.sem + 0xff0, val);
}

#endif
