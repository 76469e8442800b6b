/*
 * QTest testcase for the tgpu device core: channels, GPFIFO and
 * pushbuffer fetch, the doorbell, semaphores, runlists and scheduling,
 * channel errors, interrupts (MSI-X and INTx), PTIMER and reset, as
 * docs/hw/channels.md specifies them.
 *
 * The device works in a bottom half: after a doorbell a test polls a
 * register or memory (every qtest command lets QEMU's main loop run),
 * bounded by a wall-clock limit that only a hang reaches.  The virtual
 * clock (PTIMER, acquire polls and timeouts) moves only when a test
 * steps it, so every time-dependent result is exact.
 *
 * Copyright (c) 2026 The tgpu authors
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */

#include "qemu/osdep.h"
#include "tgpu-qtest.h"
#include "tgpu/copy.h"

/* q35: slot 4 INTA goes to PIRQE, which is IOAPIC input 20 */
#define TGPU_INTX_GSI       20

/*
 * Where the tests put things, besides L_RUNLIST and L_INST.  Every
 * channel runs in bypass mode, its GPU addresses physical (SYS() for
 * guest RAM).
 */
#define L_USERD(ch)         (0x60000u + TGPU_USERD_SIZE * (ch))
#define L_GPFIFO(ch)        (0x100000u + 0x2000u * (ch))
#define L_PB_SIZE           0x20000u
#define L_PB(ch)            (0x200000u + L_PB_SIZE * (ch))
#define L_SEM               0x1400000u      /* semaphores */
#define L_SCRATCH           0x1800000u
#define L_BIGRING           0x2000000u      /* room for 2^20 entries */

#define G_MSI               0x300000u       /* MSI-X messages land here */
#define G_USERD             0x400000u
#define G_GPFIFO            0x401000u
#define G_PB                0x410000u
#define G_SEM               0x500000u

/* The device, with every test channel on its engine's runlist. */
static void tgpu_start_std(T *t)
{
    tgpu_start(t, NULL);
    runlists_std(t);
}

/* The default configuration of a channel: everything in VRAM. */
static Chan *chan_cfg(T *t, int ch)
{
    return chan_init(t, ch, L_GPFIFO(ch), L_USERD(ch), L_PB(ch), L_PB_SIZE);
}

/* The same, with GPFIFO, USERD and pushbuffer in system memory. */
static Chan *chan_cfg_sys(T *t, int ch)
{
    Chan *c = chan_cfg(t, ch);

    c->gpfifo = SYS(G_GPFIFO);
    c->log2 = 4;
    c->userd = SYS(G_USERD);
    c->pb = SYS(G_PB);
    c->pb_size = 0x10000;
    return c;
}

/* Configure (default), write and enable a channel; it must come up IDLE. */
static Chan *chan_up(T *t, int ch)
{
    return chan_up_cfg(t, chan_cfg(t, ch));
}

/*
 * The channel must fail with CODE and INFO, as the only channel with a
 * pending error; then acknowledge it, reset the channel and check that
 * both took.
 */
static void expect_err(T *t, Chan *c, uint32_t code, uint32_t info)
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
static void expect_err_after(T *t, Chan *c, uint32_t code, uint32_t info,
                             uint64_t mark, uint32_t tag)
{
    expect_err(t, c, code, info);
    g_assert_cmphex(pa_rd32(t, mark), ==, tag);
    g_assert_cmphex(pa_rd32(t, mark + 4), ==, 0);
}

static void enable_all_interrupts(T *t)
{
    wr(t, TGPU_FIFO_INTR_EN,
       TGPU_FIFO_INTR_CHAN_ERROR | TGPU_FIFO_INTR_RUNLIST);
    wr(t, TGPU_FIFO_NONSTALL_INTR_EN, 1);
    wr(t, TGPU_PMC_INTR_EN, TGPU_INTR_FIFO | TGPU_INTR_NONSTALL);
}

/*
 * ======================================================================
 * 1. semaphore releases, GP_GET
 */

static void test_release(void)
{
    g_autofree PB *pb = pb_new();
    uint64_t now, seg, last_seg = 0;
    uint32_t last_len = 0;
    T t;
    Chan *c;

    tgpu_start_std(&t);
    c = chan_up(&t, 0);
    g_assert_cmphex(crd(&t, 0, TGPU_CHAN_STATUS) &
                    TGPU_CHAN_STATUS_ON_RUNLIST, ==,
                    TGPU_CHAN_STATUS_ON_RUNLIST);

    /* a PTIMER value with both halves non-zero */
    now = qtest_clock_step(t.qts, 5000000000ll + 123457);
    g_assert_cmpuint(ptimer(&t), ==, now);

    pa_wr32(&t, L_SEM + 0x04, 0xa5a5a5a5);     /* guard */
    pa_wr32(&t, L_SEM + 0x24, 0xa5a5a5a5);     /* guard */
    pa_wr64(&t, L_SEM + 0x10, 0);

    /* entry 0: the plain forms */
    pb_m(pb, 0, TGPU_M_SET_OBJECT, TGPU_CLASS_COMPUTE);
    pb_release(pb, L_SEM, 0xcafef00d);
    pb_sem(pb, L_SEM + 0x10, 0x1122334455667788ull,
           TGPU_SEM_OP_RELEASE | TGPU_SEM_PAYLOAD_64);
    pb_sem(pb, L_SEM + 0x20, 0x600d,
           TGPU_SEM_OP_RELEASE | TGPU_SEM_TIMESTAMP);
    pb_sem(pb, SYS(G_SEM), 0xfeedfacecafebeefull,
           TGPU_SEM_OP_RELEASE | TGPU_SEM_PAYLOAD_64 | TGPU_SEM_TIMESTAMP |
           TGPU_SEM_RELEASE_WFI);
    pb_release(pb, SYS(G_SEM + 0x20), 0x1234);
    /* methods that are accepted and change nothing visible here */
    pb_m(pb, 5, TGPU_M_NOP, 0);
    pb_m(pb, 0, TGPU_M_WFI, 0);
    pb_mem_op(pb, 0, 0, TGPU_MEM_OP_MEMBAR);
    pb_mem_op(pb, 0, 0, TGPU_MEM_OP_TLB_INVALIDATE);
    pb_mem_op(pb, 0x10, 4, TGPU_MEM_OP_TLB_INVALIDATE_RANGE);
    pb_release(pb, L_SEM + 0x30, 1);
    chan_push(&t, c, pb);

    /*
     * entry 1: every header opcode.  A count-0 header does nothing;
     * NON_INC sends all data to one method; ONE_INC the first dword to
     * the method, the rest to the next; IMMD carries its data inline.
     */
    pb->n = 0;
    pb_hdr(pb, TGPU_PB_OP_INC, 0, TGPU_M_SEM_ADDR_LO, 2);
    pb_dw(pb, L_SEM + 0x40);
    pb_dw(pb, 0);
    pb_hdr(pb, TGPU_PB_OP_INC, 0, TGPU_M_SEM_PAYLOAD_LO, 0);
    pb_hdr(pb, TGPU_PB_OP_NON_INC, 0, TGPU_M_SEM_PAYLOAD_LO, 3);
    pb_dw(pb, 1);
    pb_dw(pb, 2);
    pb_dw(pb, 0x3333);
    pb_hdr(pb, TGPU_PB_OP_ONE_INC, 0, TGPU_M_SEM_PAYLOAD_HI, 2);
    pb_dw(pb, 0);
    pb_dw(pb, TGPU_SEM_OP_RELEASE);
    pb_immd(pb, TGPU_M_SEM_ADDR_LO, 0x44);      /* replaced below */
    pb_hdr(pb, TGPU_PB_OP_INC, 3, TGPU_M_SEM_ADDR_LO, 1);
    pb_dw(pb, L_SEM + 0x50);
    pb_immd(pb, TGPU_M_SEM_PAYLOAD_LO, 0x1abc);
    pb_immd(pb, TGPU_M_SEM_EXECUTE, TGPU_SEM_OP_RELEASE);
    chan_push(&t, c, pb);

    /* entries 2 and 3: a method's data continues in the next segment */
    pb->n = 0;
    pb_hdr(pb, TGPU_PB_OP_INC, 0, TGPU_M_SEM_ADDR_LO, 5);
    pb_dw(pb, L_SEM + 0x60);
    pb_dw(pb, 0);
    chan_push(&t, c, pb);
    pb->n = 0;
    pb_dw(pb, 0x6060);
    pb_dw(pb, 0);
    pb_dw(pb, TGPU_SEM_OP_RELEASE);
    chan_push(&t, c, pb);

    /* entry 4: a control NOP; entry 5: SYNC set */
    chan_gp(&t, c, TGPU_GP_ENTRY(0ull, 0, 0));
    pb->n = 0;
    pb_release(pb, L_SEM + 0x70, 0x7070);
    seg = chan_seg(&t, c, pb->dw, pb->n);
    chan_gp(&t, c, TGPU_GP_ENTRY(seg, pb->n, 1));
    last_seg = seg;
    last_len = pb->n;

    g_assert_cmpuint(c->put, ==, 6);
    chan_kick(&t, c);
    wait_done(&t, c);

    g_assert_cmphex(pa_rd32(&t, L_SEM), ==, 0xcafef00d);
    g_assert_cmphex(pa_rd32(&t, L_SEM + 0x04), ==, 0xa5a5a5a5);
    g_assert_cmphex(pa_rd64(&t, L_SEM + 0x10), ==, 0x1122334455667788ull);
    g_assert_cmphex(pa_rd32(&t, L_SEM + 0x20), ==, 0x600d);
    g_assert_cmphex(pa_rd32(&t, L_SEM + 0x24), ==, 0xa5a5a5a5);
    g_assert_cmpuint(pa_rd64(&t, L_SEM + 0x28), ==, now);
    g_assert_cmphex(pa_rd64(&t, SYS(G_SEM)), ==, 0xfeedfacecafebeefull);
    g_assert_cmpuint(pa_rd64(&t, SYS(G_SEM + 8)), ==, now);
    g_assert_cmphex(pa_rd32(&t, SYS(G_SEM + 0x20)), ==, 0x1234);
    g_assert_cmphex(pa_rd32(&t, L_SEM + 0x30), ==, 1);
    g_assert_cmphex(pa_rd32(&t, L_SEM + 0x40), ==, 0x3333);
    g_assert_cmphex(pa_rd32(&t, L_SEM + 0x50), ==, 0x1abc);
    g_assert_cmphex(pa_rd32(&t, L_SEM + 0x60), ==, 0x6060);
    g_assert_cmphex(pa_rd32(&t, L_SEM + 0x70), ==, 0x7070);
    /* nothing ran ahead of the IMMD address that was overwritten */
    g_assert_cmphex(pa_rd32(&t, 0x44), ==, 0);

    /* GP_GET in the register and in USERD; GP_PUT as read; PB position */
    g_assert_cmpuint(crd(&t, 0, TGPU_CHAN_GP_GET), ==, 6);
    g_assert_cmpuint(pa_rd32(&t, c->userd + TGPU_USERD_GP_GET), ==, 6);
    g_assert_cmpuint(crd(&t, 0, TGPU_CHAN_GP_PUT), ==, 6);
    g_assert_cmphex(crd(&t, 0, TGPU_CHAN_PB_LO), ==,
                    (uint32_t)(last_seg + 4 * last_len));
    g_assert_cmphex(crd(&t, 0, TGPU_CHAN_PB_HI), ==,
                    (uint32_t)((last_seg + 4 * last_len) >> 32));
    g_assert_cmphex(crd(&t, 0, TGPU_CHAN_STATUS), ==,
                    TGPU_CHAN_STATE_IDLE | TGPU_CHAN_STATUS_ON_RUNLIST);
    g_assert_cmpuint(crd(&t, 0, TGPU_CHAN_ERROR), ==, 0);
    g_assert_cmpuint(rd(&t, TGPU_FIFO_DOORBELLS), ==, 1);
    g_assert_cmpuint(rd(&t, TGPU_FIFO_DOORBELLS_BAD), ==, 0);
    assert_no_error_pending(&t);

    /* the frozen clock did not move: the timestamp is PTIMER now */
    g_assert_cmpuint(ptimer(&t), ==, now);
    tgpu_stop(&t);
}

/* A channel whose GPFIFO, USERD and pushbuffer are in guest RAM. */
static void test_release_sysmem(void)
{
    g_autofree PB *pb = pb_new();
    uint64_t now, seg;
    T t;
    Chan *c;

    tgpu_start_std(&t);
    c = chan_up_cfg(&t, chan_cfg_sys(&t, 1));
    now = qtest_clock_step(t.qts, 777);

    pb_release(pb, L_SEM, 0x5151);
    pb_sem(pb, SYS(G_SEM + 0x40), 0x4242,
           TGPU_SEM_OP_RELEASE | TGPU_SEM_TIMESTAMP);
    seg = chan_push(&t, c, pb);
    chan_kick(&t, c);
    wait_done(&t, c);

    g_assert_cmphex(pa_rd32(&t, L_SEM), ==, 0x5151);
    g_assert_cmphex(qtest_readl(t.qts, G_SEM + 0x40), ==, 0x4242);
    g_assert_cmpuint(qtest_readq(t.qts, G_SEM + 0x48), ==, now);
    g_assert_cmpuint(qtest_readl(t.qts, G_USERD + TGPU_USERD_GP_GET), ==, 1);
    g_assert_cmpuint(crd(&t, 1, TGPU_CHAN_GP_GET), ==, 1);
    g_assert_cmphex(crd(&t, 1, TGPU_CHAN_PB_LO), ==,
                    (uint32_t)(seg + 4 * pb->n));
    g_assert_cmphex(crd(&t, 1, TGPU_CHAN_PB_HI), ==,
                    (uint32_t)((seg + 4 * pb->n) >> 32));
    tgpu_stop(&t);
}

/* GP_GET wraps around the ring, in the register and in USERD. */
static void test_release_wrap(void)
{
    g_autofree PB *pb = pb_new();
    T t;
    Chan *c;

    tgpu_start_std(&t);
    c = chan_cfg(&t, 2);
    c->log2 = 2;
    chan_up_cfg(&t, c);

    for (uint32_t i = 1; i <= 10; i++) {
        pb->n = 0;
        pb_release(pb, L_SEM, i);
        run(&t, c, pb);
        g_assert_cmpuint(pa_rd32(&t, L_SEM), ==, i);
        g_assert_cmpuint(crd(&t, 2, TGPU_CHAN_GP_GET), ==, i % 4);
        g_assert_cmpuint(pa_rd32(&t, c->userd + TGPU_USERD_GP_GET), ==,
                         i % 4);
    }

    /* three entries at once, crossing the end of the ring */
    for (uint32_t i = 11; i <= 13; i++) {
        pb->n = 0;
        pb_release(pb, L_SEM + 4 * i, i);
        chan_push(&t, c, pb);
    }
    chan_kick(&t, c);
    wait_done(&t, c);
    for (uint32_t i = 11; i <= 13; i++) {
        g_assert_cmpuint(pa_rd32(&t, L_SEM + 4 * i), ==, i);
    }
    g_assert_cmpuint(crd(&t, 2, TGPU_CHAN_GP_GET), ==, 13 % 4);
    g_assert_cmpuint(rd(&t, TGPU_FIFO_DOORBELLS), ==, 11);
    tgpu_stop(&t);
}

/*
 * ======================================================================
 * 2. acquires
 */

/* ACQUIRE blocks until another channel releases the value it waits for. */
static void test_acquire_by_release(void)
{
    g_autofree PB *pb = pb_new();
    T t;
    Chan *a, *b;

    tgpu_start_std(&t);
    a = chan_up(&t, 1);
    b = chan_up(&t, 2);             /* same runlist */

    pb_acquire(pb, L_SEM, 5);
    pb_release(pb, L_SEM + 0x10, 0xa1);
    submit_blocked(&t, a, pb);
    g_assert_cmpuint(pa_rd32(&t, L_SEM + 0x10), ==, 0);

    /* a release of another value does not satisfy it; B is not held up */
    run_release(&t, b, L_SEM, 4);
    settle(&t);
    g_assert_cmpuint(chan_state(&t, 1), ==, TGPU_CHAN_STATE_BLOCKED);
    g_assert_cmpuint(pa_rd32(&t, L_SEM + 0x10), ==, 0);

    /* the right value: A completes */
    run_release(&t, b, L_SEM, 5);
    wait_done(&t, a);
    g_assert_cmphex(pa_rd32(&t, L_SEM + 0x10), ==, 0xa1);
    assert_no_error_pending(&t);
    tgpu_stop(&t);
}

#ifdef CONFIG_LINUX
/*
 * No acquire poll is pending when none can help: once nothing waits, and
 * while the only waiter is on no runlist.  A timer left armed would wake
 * QEMU's main loop for nothing, for ever under qtest, whose virtual clock
 * stands still (more than half a CPU here).
 */
static void test_acquire_idle_after(void)
{
    g_autofree PB *pb = pb_new();
    const uint32_t only_b[] = { 2 };
    T t;
    Chan *a, *b;

    tgpu_start_std(&t);
    a = chan_up(&t, 1);
    b = chan_up(&t, 2);
    pb_acquire(pb, L_SEM, 5);
    submit_blocked(&t, a, pb);
    run_release(&t, b, L_SEM, 5);
    wait_done(&t, a);
    assert_main_thread_idle(&t, 300);

    /* A waits again, then leaves the runlist: nothing can retry it */
    pb->n = 0;
    pb_acquire(pb, L_SEM, 6);
    submit_blocked(&t, a, pb);
    runlist_set(&t, TGPU_RUNLIST_COMPUTE, only_b, 1);
    settle(&t);
    g_assert_cmpuint(chan_state(&t, 1), ==, TGPU_CHAN_STATE_BLOCKED);
    assert_main_thread_idle(&t, 300);
    assert_no_error_pending(&t);
    tgpu_stop(&t);
}
#endif

/*
 * A release on one engine's runlist satisfies an acquire on another's,
 * at once: "retried after every release the device executes", with no
 * doorbell and no virtual time passing.
 */
static void test_acquire_cross_engine(void)
{
    static const int pairs[][2] = {     /* waiter, releaser */
        { 1, 16 },                      /* compute waits, CE0 releases */
        { 17, 24 },                     /* CE0 waits, CE1 releases */
        { 25, 2 },                      /* CE1 waits, compute releases */
        { 3, 26 },                      /* compute waits, CE1 releases */
    };
    g_autofree PB *pb = pb_new();
    T t;

    tgpu_start_std(&t);
    for (size_t i = 0; i < ARRAY_SIZE(pairs); i++) {
        Chan *w = chan_up(&t, pairs[i][0]);
        Chan *r = chan_up(&t, pairs[i][1]);

        g_test_message("channel %d waits, channel %d releases",
                       pairs[i][0], pairs[i][1]);
        pb->n = 0;
        pb_acquire(pb, L_SEM + 0x100 + 8 * i, 1);
        pb_release(pb, L_SEM + 0x104 + 8 * i, 0xa0 + i);
        submit_blocked(&t, w, pb);
        run_release(&t, r, L_SEM + 0x100 + 8 * i, 1);
        wait_done(&t, w);
        g_assert_cmphex(pa_rd32(&t, L_SEM + 0x104 + 8 * i), ==, 0xa0 + i);
    }
    assert_no_error_pending(&t);
    tgpu_stop(&t);
}

/*
 * A CPU write satisfies an acquire at the next poll, TGPU_ACQUIRE_POLL_NS
 * of virtual time later, or at once on a doorbell for the channel.
 */
static void test_acquire_cpu(void)
{
    g_autofree PB *pb = pb_new();
    uint32_t bells;
    T t;
    Chan *a;

    tgpu_start_std(&t);
    a = chan_up(&t, 1);

    /* in VRAM, written through BAR1 */
    pb_acquire(pb, L_SEM, 7);
    pb_release(pb, L_SEM + 0x10, 1);
    submit_blocked(&t, a, pb);
    pa_wr32(&t, L_SEM, 7);
    settle(&t);
    /* no poll without virtual time passing */
    g_assert_cmpuint(chan_state(&t, 1), ==, TGPU_CHAN_STATE_BLOCKED);
    g_assert_cmpuint(pa_rd32(&t, L_SEM + 0x10), ==, 0);
    poll_done(&t, a);
    g_assert_cmpuint(pa_rd32(&t, L_SEM + 0x10), ==, 1);

    /* in guest RAM */
    pb->n = 0;
    pb_acquire(pb, SYS(G_SEM), 0x99);
    pb_release(pb, L_SEM + 0x10, 2);
    submit_blocked(&t, a, pb);
    poll_blocked(&t, a);
    qtest_writel(t.qts, G_SEM, 0x99);
    poll_done(&t, a);
    g_assert_cmpuint(pa_rd32(&t, L_SEM + 0x10), ==, 2);

    /* a doorbell for the channel retries it at once, without time */
    pb->n = 0;
    pb_acquire(pb, L_SEM + 0x20, 3);
    pb_release(pb, L_SEM + 0x10, 3);
    submit_blocked(&t, a, pb);
    pa_wr32(&t, L_SEM + 0x20, 3);
    bells = rd(&t, TGPU_FIFO_DOORBELLS);
    doorbell(&t, 1);
    wait_done(&t, a);
    g_assert_cmpuint(pa_rd32(&t, L_SEM + 0x10), ==, 3);
    g_assert_cmpuint(rd(&t, TGPU_FIFO_DOORBELLS), ==, bells + 1);
    tgpu_stop(&t);
}

/* ACQUIRE is equality, ACQ_GEQ is unsigned >=; both 32 and 64 bits. */
static void test_acquire_compare(void)
{
    g_autofree PB *pb = pb_new();
    T t;
    Chan *a;

    tgpu_start_std(&t);
    a = chan_up(&t, 1);

    /* already satisfied: no blocking at all */
    pa_wr32(&t, L_SEM, 0x80000000);
    pb_acq_geq(pb, L_SEM, 1);           /* unsigned: 0x80000000 >= 1 */
    pb_acq_geq(pb, L_SEM, 0x80000000);  /* equal */
    pb_acquire(pb, L_SEM, 0x80000000);
    pb_release(pb, L_SEM + 0x10, 1);
    run(&t, a, pb);
    g_assert_cmpuint(pa_rd32(&t, L_SEM + 0x10), ==, 1);

    /* GEQ: waits while below, a larger value satisfies it */
    pa_wr32(&t, L_SEM, 10);
    pb->n = 0;
    pb_acq_geq(pb, L_SEM, 11);
    pb_release(pb, L_SEM + 0x10, 2);
    submit_blocked(&t, a, pb);
    poll_blocked(&t, a);
    pa_wr32(&t, L_SEM, 12);
    poll_done(&t, a);
    g_assert_cmpuint(pa_rd32(&t, L_SEM + 0x10), ==, 2);

    /* equality: a larger value does not do */
    pb->n = 0;
    pb_acquire(pb, L_SEM, 11);
    pb_release(pb, L_SEM + 0x10, 3);
    submit_blocked(&t, a, pb);
    poll_blocked(&t, a);
    pa_wr32(&t, L_SEM, 11);
    poll_done(&t, a);
    g_assert_cmpuint(pa_rd32(&t, L_SEM + 0x10), ==, 3);

    /* 64-bit: the high half counts */
    pa_wr64(&t, L_SEM + 0x20, 0x100000005ull);
    pb->n = 0;
    pb_sem(pb, L_SEM + 0x20, 5, TGPU_SEM_OP_ACQUIRE | TGPU_SEM_PAYLOAD_64);
    pb_release(pb, L_SEM + 0x10, 4);
    submit_blocked(&t, a, pb);
    pa_wr64(&t, L_SEM + 0x20, 5);
    poll_done(&t, a);
    g_assert_cmpuint(pa_rd32(&t, L_SEM + 0x10), ==, 4);

    /* 64-bit GEQ: 0x1_00000000 >= 0xffffffff, unlike its low half */
    pa_wr64(&t, L_SEM + 0x20, 0x0ffffffffull);
    pb->n = 0;
    pb_sem(pb, L_SEM + 0x20, 0x100000000ull,
           TGPU_SEM_OP_ACQ_GEQ | TGPU_SEM_PAYLOAD_64);
    pb_release(pb, L_SEM + 0x10, 5);
    submit_blocked(&t, a, pb);
    pa_wr64(&t, L_SEM + 0x20, 0x100000000ull);
    poll_done(&t, a);
    g_assert_cmpuint(pa_rd32(&t, L_SEM + 0x10), ==, 5);

    /* 32-bit: only the low word is compared (high word is not ours) */
    pa_wr64(&t, L_SEM + 0x30, 0xdead000000000009ull);
    pb->n = 0;
    pb_acquire(pb, L_SEM + 0x30, 9);
    pb_release(pb, L_SEM + 0x10, 6);
    run(&t, a, pb);
    g_assert_cmpuint(pa_rd32(&t, L_SEM + 0x10), ==, 6);
    assert_no_error_pending(&t);
    tgpu_stop(&t);
}

/* Disable keeps GP_GET and the pending acquire; enable continues. */
static void test_acquire_disable(void)
{
    g_autofree PB *pb = pb_new();
    T t;
    Chan *a;

    tgpu_start_std(&t);
    a = chan_up(&t, 1);

    pb_release(pb, L_SEM + 0x10, 1);
    pb_acquire(pb, L_SEM, 1);
    pb_release(pb, L_SEM + 0x10, 2);
    submit_blocked(&t, a, pb);
    g_assert_cmpuint(pa_rd32(&t, L_SEM + 0x10), ==, 1);

    cwr(&t, 1, TGPU_CHAN_CTRL, 0);
    wait_state(&t, 1, TGPU_CHAN_STATE_DISABLED);
    g_assert_cmpuint(crd(&t, 1, TGPU_CHAN_GP_GET), ==, 1);

    /* disabled: the acquire is not retried, doorbells are refused */
    pa_wr32(&t, L_SEM, 1);
    step(&t, 3 * TGPU_ACQUIRE_POLL_NS);
    doorbell(&t, 1);
    settle(&t);
    g_assert_cmpuint(chan_state(&t, 1), ==, TGPU_CHAN_STATE_DISABLED);
    g_assert_cmpuint(pa_rd32(&t, L_SEM + 0x10), ==, 1);
    g_assert_cmpuint(rd(&t, TGPU_FIFO_DOORBELLS_BAD), ==, 1);

    /* enable again: it continues where it stopped */
    chan_enable(&t, a);
    doorbell(&t, 1);
    poll_done(&t, a);
    g_assert_cmpuint(pa_rd32(&t, L_SEM + 0x10), ==, 2);
    g_assert_cmpuint(crd(&t, 1, TGPU_CHAN_GP_GET), ==, 1);
    assert_no_error_pending(&t);
    tgpu_stop(&t);
}

/*
 * ======================================================================
 * 3. acquire timeout
 */

static void test_acquire_timeout(void)
{
    g_autofree PB *pb = pb_new();
    T t;
    Chan *a, *b;

    tgpu_start_std(&t);
    msix_setup(&t, G_MSI, true);
    wr(&t, TGPU_FIFO_INTR_EN, TGPU_FIFO_INTR_CHAN_ERROR);
    wr(&t, TGPU_PMC_INTR_EN, TGPU_INTR_FIFO);

    a = chan_cfg(&t, 3);
    a->acq_to_us = 100;
    chan_up_cfg(&t, a);
    b = chan_up(&t, 4);

    pb_acquire(pb, L_SEM + 0x40, 1);
    pb_release(pb, L_SEM + 0x10, 1);
    submit_blocked(&t, a, pb);

    /* not before the timeout */
    for (int i = 0; i < 9; i++) {
        poll_blocked(&t, a);
    }
    step(&t, TGPU_ACQUIRE_POLL_NS - 1);         /* 99.999 us */
    g_assert_cmpuint(chan_state(&t, 3), ==, TGPU_CHAN_STATE_BLOCKED);
    g_assert_cmpuint(crd(&t, 3, TGPU_CHAN_ERROR), ==, 0);
    g_assert_cmphex(rd(&t, TGPU_FIFO_INTR), ==, 0);
    g_assert_cmphex(rd(&t, TGPU_PMC_INTR), ==, 0);
    g_assert_false(qpci_msix_pending(t.dev, TGPU_MSIX_VEC_STALL));

    /* other channels are not held up meanwhile */
    run_release(&t, b, L_SEM + 0x20, 0xb0);

    /* past it */
    step(&t, TGPU_ACQUIRE_POLL_NS + 1);
    wait_state(&t, 3, TGPU_CHAN_STATE_ERROR);
    g_assert_cmpuint(crd(&t, 3, TGPU_CHAN_ERROR), ==,
                     TGPU_ERR_ACQUIRE_TIMEOUT);
    g_assert_cmphex(crd(&t, 3, TGPU_CHAN_ERROR_INFO), ==, L_SEM + 0x40);
    g_assert_true(err_pending(&t, 3));
    g_assert_cmpuint(rd(&t, TGPU_FIFO_ERR_CHID), ==, 3);
    g_assert_cmpuint(rd(&t, TGPU_FIFO_ERR_CODE), ==,
                     TGPU_ERR_ACQUIRE_TIMEOUT);
    g_assert_cmphex(rd(&t, TGPU_FIFO_ERR_INFO), ==, L_SEM + 0x40);
    g_assert_cmphex(rd(&t, TGPU_FIFO_INTR), ==, TGPU_FIFO_INTR_CHAN_ERROR);
    g_assert_cmphex(rd(&t, TGPU_PMC_INTR), ==, TGPU_INTR_FIFO);
    g_assert_true(qpci_msix_pending(t.dev, TGPU_MSIX_VEC_STALL));
    g_assert_false(qpci_msix_pending(t.dev, TGPU_MSIX_VEC_NONSTALL));
    g_assert_cmpuint(pa_rd32(&t, L_SEM + 0x10), ==, 0);

    /* the semaphore arriving late changes nothing */
    pa_wr32(&t, L_SEM + 0x40, 1);
    step(&t, TGPU_ACQUIRE_POLL_NS);
    g_assert_cmpuint(chan_state(&t, 3), ==, TGPU_CHAN_STATE_ERROR);
    g_assert_cmpuint(pa_rd32(&t, L_SEM + 0x10), ==, 0);

    /* no timeout configured: blocked for (virtual) ever */
    pb->n = 0;
    pb_acquire(pb, L_SEM + 0x50, 1);
    submit_blocked(&t, b, pb);
    step(&t, 200 * 1000 * 1000);
    g_assert_cmpuint(chan_state(&t, 4), ==, TGPU_CHAN_STATE_BLOCKED);
    g_assert_cmpuint(crd(&t, 4, TGPU_CHAN_ERROR), ==, 0);
    tgpu_stop(&t);
}

/*
 * ======================================================================
 * 4. scheduling: priorities, timeslices, YIELD, CTXSW_COUNT
 */

typedef struct SchedCase {
    const char *name;
    uint32_t prio_a, prio_b;
    uint32_t ts_a, ts_b;        /* timeslice, us (0: default) */
    bool yield;                 /* A yields half-way */
    uint32_t ctxsw;             /* expected context switches */
    uint32_t last;              /* expected last writer: 'A' or 'B' */
} SchedCase;

/*
 * Cost model (docs/hw/channels.md): each GPFIFO entry and each pushbuffer
 * dword costs TGPU_HOST_DWORD_COST_NS, so a 1 us timeslice runs 10 of
 * them.  Each channel's work is one entry of 48 one-dword NOPs and a
 * 6-dword release of its name into a shared word: 55 units, 5.5 slices
 * of 1 us, so a round robin of 1 us slices alternates 6 times each.
 */
#define SCHED_NOPS          48
#define SCHED_UNITS         (1 + SCHED_NOPS + 6)

static const SchedCase sched_cases[] = {
    /* A B A B A B A B A B A B: 12 switches, B releases last */
    { "round-robin", 0, 0, 1, 1, false, 12, 'B' },
    /* A(10) B(30) A(10) B(25) A A A A: 5 switches, A last */
    { "timeslice", 0, 0, 1, 3, false, 5, 'A' },
    /* B all (it ran last: no switch), then A: 1 switch, A last */
    { "priority", 0, 2, 1, 1, false, 1, 'A' },
    /* default 1000 us: each runs to the end, A first: 2 switches */
    { "default-timeslice", 0, 0, 0, 0, false, 2, 'B' },
    /* A yields after its first release: A B A, A releases last */
    { "yield", 0, 0, 0, 0, true, 3, 'A' },
};

static void test_sched(const void *data)
{
    const SchedCase *sc = data;
    g_autofree PB *pb = pb_new();
    const uint64_t gate = L_SEM + 0x100, shared = L_SEM + 0x110;
    const uint32_t rl[] = { 1, 2 }, rl_ce0[] = { 16 };
    uint32_t base;
    T t;
    Chan *a, *b, *g;

    tgpu_start(&t, NULL);
    runlist_set(&t, TGPU_RUNLIST_COMPUTE, rl, 2);
    runlist_set(&t, TGPU_RUNLIST_CE0, rl_ce0, 1);

    a = chan_cfg(&t, 1);
    a->prio = sc->prio_a;
    a->ts_us = sc->ts_a;
    chan_up_cfg(&t, a);
    b = chan_cfg(&t, 2);
    b->prio = sc->prio_b;
    b->ts_us = sc->ts_b;
    chan_up_cfg(&t, b);
    g = chan_up(&t, 16);
    /* G has run on CE0, so its next run there is no switch */
    run_release(&t, g, L_SEM + 0x120, 1);

    /* A, then B, block on the gate: the compute engine last ran B */
    for (int i = 0; i < 2; i++) {
        Chan *c = i ? b : a;
        uint32_t name = i ? 'B' : 'A';

        pb->n = 0;
        pb_acq_geq(pb, gate, 1);
        chan_push(&t, c, pb);
        pb->n = 0;
        if (sc->yield && !i) {
            pb_release(pb, shared, name | 0x100);
            pb_m(pb, 0, TGPU_M_YIELD, 0);
            pb_release(pb, shared, name);
        } else {
            pb_nops(pb, SCHED_NOPS);
            pb_release(pb, shared, name);
            g_assert_cmpuint(pb->n + 1, ==, SCHED_UNITS);
        }
        chan_push(&t, c, pb);
        chan_kick(&t, c);
        wait_state(&t, c->id, TGPU_CHAN_STATE_BLOCKED);
    }
    base = rd(&t, TGPU_FIFO_CTXSW_COUNT);

    /* G's release makes both due for a retry at the same moment */
    run_release(&t, g, gate, 1);
    wait_done(&t, a);
    wait_done(&t, b);

    g_assert_cmphex(pa_rd32(&t, shared), ==, sc->last);
    g_assert_cmpuint(rd(&t, TGPU_FIFO_CTXSW_COUNT) - base, ==, sc->ctxsw);
    assert_no_error_pending(&t);
    tgpu_stop(&t);
}

/* A blocked channel, even of the highest priority, never stalls another. */
static void test_sched_blocked(void)
{
    g_autofree PB *pb = pb_new();
    T t;
    Chan *a, *b;

    tgpu_start_std(&t);
    a = chan_cfg(&t, 1);
    a->prio = TGPU_PRIORITY_MAX;
    chan_up_cfg(&t, a);
    b = chan_up(&t, 2);

    pb_acquire(pb, L_SEM, 1);
    pb_release(pb, L_SEM + 0x10, 0xaa);
    submit_blocked(&t, a, pb);

    for (uint32_t i = 1; i <= 5; i++) {
        run_release(&t, b, L_SEM + 0x20, i);
        poll_blocked(&t, a);
    }
    /* a long job on B while A polls */
    pb->n = 0;
    pb_nops(pb, 4000);
    pb_release(pb, L_SEM + 0x20, 0xbb);
    submit(&t, b, pb);
    poll_done(&t, b);
    g_assert_cmphex(pa_rd32(&t, L_SEM + 0x20), ==, 0xbb);

    pa_wr32(&t, L_SEM, 1);
    poll_done(&t, a);
    g_assert_cmphex(pa_rd32(&t, L_SEM + 0x10), ==, 0xaa);
    tgpu_stop(&t);
}

/*
 * ======================================================================
 * 5. garbage doorbells
 */

static void test_doorbell_garbage(void)
{
    static const uint32_t bad_ids[] = {
        64, 65, 511, 512, 0x10000, 0x80000000, 0xffffffff,
    };
    g_autofree PB *pb = pb_new();
    uint32_t bad = 0;
    T t;
    Chan *c, *k, *off;

    tgpu_start(&t, NULL);
    g_assert_cmpuint(t.nch, ==, TGPU_CHANNELS_DEFAULT);
    runlists_std(&t);
    c = chan_up(&t, 0);
    g_assert_cmpuint(rd(&t, TGPU_FIFO_DOORBELLS), ==, 0);
    g_assert_cmpuint(rd(&t, TGPU_FIFO_DOORBELLS_BAD), ==, 0);

    /* out of range */
    for (size_t i = 0; i < ARRAY_SIZE(bad_ids); i++) {
        doorbell(&t, bad_ids[i]);
        bad++;
    }
    /* disabled channels, configured or not */
    doorbell(&t, 5);
    bad++;
    chan_write(&t, chan_cfg(&t, 6));
    doorbell(&t, 6);
    bad++;
    /* a channel in ERROR, with work queued */
    k = chan_up(&t, 7);
    chan_kill(&t, 7);
    g_assert_cmpuint(chan_state(&t, 7), ==, TGPU_CHAN_STATE_ERROR);
    pb_release(pb, L_SEM + 0x70, 7);
    submit(&t, k, pb);
    bad++;
    settle(&t);
    g_assert_cmpuint(rd(&t, TGPU_FIFO_DOORBELLS_BAD), ==, bad);
    g_assert_cmpuint(rd(&t, TGPU_FIFO_DOORBELLS), ==, 0);
    g_assert_cmpuint(pa_rd32(&t, L_SEM + 0x70), ==, 0);
    g_assert_cmpuint(chan_state(&t, 5), ==, TGPU_CHAN_STATE_DISABLED);
    g_assert_cmpuint(chan_state(&t, 6), ==, TGPU_CHAN_STATE_DISABLED);
    g_assert_cmpuint(chan_state(&t, 7), ==, TGPU_CHAN_STATE_ERROR);
    g_assert_cmpuint(crd(&t, 7, TGPU_CHAN_ERROR), ==, TGPU_ERR_KILLED);
    assert_no_error_pending(&t);

    /* an enabled, idle channel with no new work: accepted, harmless */
    doorbell(&t, 0);
    settle(&t);
    g_assert_cmpuint(rd(&t, TGPU_FIFO_DOORBELLS), ==, 1);
    g_assert_cmpuint(chan_state(&t, 0), ==, TGPU_CHAN_STATE_IDLE);
    g_assert_cmpuint(crd(&t, 0, TGPU_CHAN_GP_GET), ==, 0);

    /* enabled, on a runlist but not its engine's: accepted, not run */
    off = chan_cfg(&t, 40);
    off->engine = TGPU_RUNLIST_CE1;         /* CE1's list has 24..31 */
    chan_up_cfg(&t, off);
    pb->n = 0;
    pb_release(pb, L_SEM + 0x80, 8);
    submit(&t, off, pb);
    settle(&t);
    g_assert_cmpuint(rd(&t, TGPU_FIFO_DOORBELLS), ==, 2);
    g_assert_cmpuint(crd(&t, 40, TGPU_CHAN_GP_GET), ==, 0);
    g_assert_cmphex(crd(&t, 40, TGPU_CHAN_STATUS) & TGPU_CHAN_STATE_MASK,
                    ==, TGPU_CHAN_STATE_PENDING);
    g_assert_cmpuint(pa_rd32(&t, L_SEM + 0x80), ==, 0);

    /* the device still works */
    run_release(&t, c, L_SEM, 0x600d);
    g_assert_cmpuint(rd(&t, TGPU_FIFO_DOORBELLS), ==, 3);
    g_assert_cmpuint(rd(&t, TGPU_FIFO_DOORBELLS_BAD), ==, bad);
    g_assert_cmphex(rd(&t, TGPU_PMC_MAGIC), ==, TGPU_MAGIC);
    assert_no_error_pending(&t);
    tgpu_stop(&t);
}

/*
 * ======================================================================
 * 6. every error code
 */

/* The healthy channel 0 still runs work. */
static void check_alive(T *t, uint32_t val)
{
    Chan *c = &t->ch[0];

    if (chan_state(t, 0) == TGPU_CHAN_STATE_DISABLED) {
        c = chan_up(t, 0);
    }
    run_release(t, c, L_SEM + 0xff0, val);
}

static void test_err_instance(void)
{
    enum { N_BAD = 17 };
    T t;
    Chan *c;

    tgpu_start_std(&t);

    for (int i = 0; i < N_BAD; i++) {
        uint32_t info;

        c = chan_cfg(&t, 1);
        switch (i) {
        case 0:
            /* bypass without PRIV (docs/hw/mmu.md) */
            c->flags = 0;
            info = TGPU_INST_FLAGS;
            break;
        case 1:
            c->gpfifo += 4;
            info = TGPU_INST_GPFIFO_BASE;
            break;
        case 2:
            c->gpfifo = TGPU_VA_LIMIT - 4 * TGPU_GP_ENTRY_SIZE;
            c->log2 = 3;
            info = TGPU_INST_GPFIFO_BASE;
            break;
        case 3:
            c->log2 = TGPU_GPFIFO_LOG2_MIN - 1;
            info = TGPU_INST_GPFIFO_LOG2;
            break;
        case 4:
            c->log2 = TGPU_GPFIFO_LOG2_MAX + 1;
            info = TGPU_INST_GPFIFO_LOG2;
            break;
        case 5:
            c->engine = TGPU_NR_RUNLISTS;
            info = TGPU_INST_ENGINE;
            break;
        case 6:
            c->userd += TGPU_USERD_ALIGN / 2;
            info = TGPU_INST_USERD;
            break;
        case 7:
            c->prio = TGPU_PRIORITY_MAX + 1;
            info = TGPU_INST_PRIORITY;
            break;
        case 8:
            c->ts_us = TGPU_TIMESLICE_MAX_US + 1;
            info = TGPU_INST_TIMESLICE_US;
            break;
        case 9:
            c->acq_to_us = TGPU_ACQ_TIMEOUT_MAX_US + 1;
            info = TGPU_INST_ACQ_TIMEOUT_US;
            break;
        case 10:
            c->inst = VRAM_GAP;
            info = 0xffffffff;
            break;
        case 11:
            /* paged: the PDB must be 8 KiB aligned ... */
            c->flags = TGPU_INST_FLAGS_PAGED;
            c->pdb = L_SCRATCH + TGPU_PDB_ALIGN / 2;
            info = TGPU_INST_PDB;
            break;
        case 12:
            /* ... and its PD1 table inside VRAM */
            c->flags = TGPU_INST_FLAGS_PAGED | TGPU_INST_FLAGS_PRIV;
            c->pdb = VRAM_SIZE;
            info = TGPU_INST_PDB;
            break;
        case 13:
            c->flags = TGPU_INST_FLAGS_PAGED;
            c->pdb = VRAM_GAP;
            info = TGPU_INST_PDB;
            break;
        case 14:
            /* ASIDs are 16 bits */
            c->flags = TGPU_INST_FLAGS_PAGED;
            c->pdb = L_SCRATCH;
            c->asid = 0x10000;
            info = TGPU_INST_ASID;
            break;
        case 15:
            c->flags = TGPU_INST_FLAGS_PAGED | TGPU_INST_FLAGS_PRIV;
            c->pdb = L_SCRATCH;
            c->asid = 0xffffffff;
            info = TGPU_INST_ASID;
            break;
        default:
            c->inst = VRAM_SIZE;
            info = 0xffffffff;
            break;
        }
        g_test_message("bad instance case %d", i);
        chan_write(&t, c);
        chan_enable(&t, c);
        expect_err(&t, c, TGPU_ERR_INVALID_INSTANCE, info);
    }

    /* the limits themselves are valid */
    for (int i = 0; i < 2; i++) {
        c = chan_cfg(&t, 2);
        c->flags = TGPU_INST_FLAGS_PRIV;
        c->log2 = i ? TGPU_GPFIFO_LOG2_MAX : TGPU_GPFIFO_LOG2_MIN;
        c->gpfifo = i ? L_BIGRING : c->gpfifo;
        c->prio = TGPU_PRIORITY_MAX;
        c->ts_us = i ? TGPU_TIMESLICE_MAX_US : 1;
        c->acq_to_us = i ? TGPU_ACQ_TIMEOUT_MAX_US : 1;
        chan_up_cfg(&t, c);
        run_release(&t, c, L_SEM, 0x1000 + i);
        chan_reset(&t, 2);
    }
    /* paged: the last PD1 table that fits in VRAM, the largest ASID */
    for (int i = 0; i < 2; i++) {
        c = chan_cfg(&t, 2);
        c->flags = TGPU_INST_FLAGS_PAGED | (i ? TGPU_INST_FLAGS_PRIV : 0);
        c->pdb = VRAM_SIZE - TGPU_PDB_ALIGN;
        c->asid = 0xffff;
        chan_up_cfg(&t, c);
        chan_reset(&t, 2);
    }
    check_alive(&t, 1);
    assert_no_error_pending(&t);
    tgpu_stop(&t);
}

/* USERD, GP_PUT, GPFIFO entries, pushbuffer fetch and headers */
static void test_err_fetch(void)
{
    static const uint32_t bad_ops[] = { 0, 2, 6, 7 };
    g_autofree PB *pb = pb_new();
    uint64_t va;
    T t;
    Chan *c;

    tgpu_start_std(&t);
    check_alive(&t, 1);

    /* 2: USERD unreachable, in VRAM's hole and in system memory */
    c = chan_cfg(&t, 1);
    c->userd = VRAM_GAP;
    chan_write(&t, c);
    chan_enable(&t, c);
    doorbell(&t, 1);
    expect_err(&t, c, TGPU_ERR_USERD_FAULT, (uint32_t)VRAM_GAP);
    c = chan_cfg(&t, 1);
    c->userd = SYS(G_UNMAPPED);
    chan_write(&t, c);
    chan_enable(&t, c);
    doorbell(&t, 1);
    expect_err(&t, c, TGPU_ERR_USERD_FAULT, (uint32_t)G_UNMAPPED);

    /* 3: GP_PUT at the ring size */
    c = chan_up(&t, 1);
    pa_wr32(&t, c->userd + TGPU_USERD_GP_PUT, 1u << GP_LOG2_DEFAULT);
    doorbell(&t, 1);
    expect_err(&t, c, TGPU_ERR_GP_PUT_INVALID, 1u << GP_LOG2_DEFAULT);

    /* 4: a ring that runs off the end of VRAM at entry 2 */
    c = chan_cfg(&t, 1);
    c->gpfifo = VRAM_SIZE - 2 * TGPU_GP_ENTRY_SIZE;
    c->log2 = 3;
    chan_up_cfg(&t, c);
    pa_wr64(&t, c->gpfifo, TGPU_GP_ENTRY(0ull, 0, 0));
    pa_wr64(&t, c->gpfifo + 8, TGPU_GP_ENTRY(0ull, 0, 0));
    pa_wr32(&t, c->userd + TGPU_USERD_GP_PUT, 3);
    doorbell(&t, 1);
    wait_state(&t, 1, TGPU_CHAN_STATE_ERROR);
    g_assert_cmpuint(crd(&t, 1, TGPU_CHAN_GP_GET), ==, 2);
    expect_err(&t, c, TGPU_ERR_GPFIFO_FAULT, 2);
    /* ... and one in unmapped system memory */
    c = chan_cfg(&t, 1);
    c->gpfifo = SYS(G_UNMAPPED);
    chan_up_cfg(&t, c);
    pa_wr32(&t, c->userd + TGPU_USERD_GP_PUT, 1);
    doorbell(&t, 1);
    expect_err(&t, c, TGPU_ERR_GPFIFO_FAULT, 0);

    /* 5: reserved bits, in either word; a control entry that is not NOP */
    for (int i = 0; i < 3; i++) {
        uint64_t bad;

        c = chan_up(&t, 1);
        pb->n = 0;
        pb_release(pb, L_SEM + 0x10, 0x50 + i);
        chan_push(&t, c, pb);
        va = chan_seg(&t, c, pb->dw, 1);
        if (i == 0) {
            bad = TGPU_GP_ENTRY(va, 1, 0) | 1ull << 40;     /* entry1[8] */
        } else if (i == 1) {
            bad = TGPU_GP_ENTRY(va, 1, 0) | 1;              /* entry0[0] */
        } else {
            bad = 3ull << 32;                   /* length 0, opcode 3 */
        }
        chan_gp(&t, c, bad);
        pb->n = 0;
        pb_release(pb, L_SEM + 0x14, 0xdead);
        chan_push(&t, c, pb);
        chan_kick(&t, c);
        expect_err_after(&t, c, TGPU_ERR_GPFIFO_ENTRY, 1, L_SEM + 0x10,
                         0x50 + i);
    }

    /* 6: pushbuffer unreachable: in the hole, across the end, in sysmem */
    c = chan_up(&t, 1);
    chan_gp(&t, c, TGPU_GP_ENTRY(VRAM_GAP, 4, 0));
    chan_kick(&t, c);
    expect_err(&t, c, TGPU_ERR_PB_FAULT, (uint32_t)VRAM_GAP);

    c = chan_up(&t, 1);
    pb->n = 0;
    pb_nops(pb, 2);
    pa_write_dw(&t, VRAM_SIZE - 8, pb->dw, 2);
    chan_gp(&t, c, TGPU_GP_ENTRY((uint64_t)VRAM_SIZE - 8, 3, 0));
    chan_kick(&t, c);
    expect_err(&t, c, TGPU_ERR_PB_FAULT, VRAM_SIZE);

    c = chan_up(&t, 1);
    chan_gp(&t, c, TGPU_GP_ENTRY(SYS(G_UNMAPPED), 1, 0));
    chan_kick(&t, c);
    expect_err(&t, c, TGPU_ERR_PB_FAULT, (uint32_t)G_UNMAPPED);

    /* 7: header opcodes that do not exist */
    for (size_t i = 0; i < ARRAY_SIZE(bad_ops); i++) {
        uint32_t hdr = TGPU_PB_HDR(bad_ops[i], 1, TGPU_M_NOP, 1);

        c = chan_up(&t, 1);
        pb->n = 0;
        pb_release(pb, L_SEM + 0x20, i + 1);
        pb_dw(pb, hdr);
        pb_dw(pb, 0);
        pb_release(pb, L_SEM + 0x24, 0xdead);
        submit(&t, c, pb);
        expect_err_after(&t, c, TGPU_ERR_PB_HEADER, hdr, L_SEM + 0x20, i + 1);
    }

    check_alive(&t, 2);
    tgpu_stop(&t);
}

typedef struct MethodErr {
    int ch;
    uint32_t subch, method, data;
    uint32_t bind_subch, bind_class;    /* SET_OBJECT first, if class */
    uint32_t code, info;
} MethodErr;

static void test_err_method(void)
{
    static const MethodErr cases[] = {
        /* 8 */
        { 1, 3, 0x0fc, 0, 0, 0, TGPU_ERR_ILLEGAL_METHOD, 3 << 16 | 0x0fc },
        { 1, 0, 0x004, 0, 0, 0, TGPU_ERR_ILLEGAL_METHOD, 0x004 },
        { 1, 7, 0x0a0, 0, 0, 0, TGPU_ERR_ILLEGAL_METHOD, 7 << 16 | 0x0a0 },
        /* 9 */
        { 1, 2, 0x100, 0, 0, 0, TGPU_ERR_ILLEGAL_SUBCH, 2 << 16 | 0x100 },
        { 17, 6, 0xffc, 0, 5, TGPU_CLASS_COPY,
          TGPU_ERR_ILLEGAL_SUBCH, 6 << 16 | 0xffc },
        /* 10 */
        { 1, 0, TGPU_M_SET_OBJECT, TGPU_CLASS_COPY, 0, 0,
          TGPU_ERR_BAD_CLASS, TGPU_CLASS_COPY },
        { 17, 0, TGPU_M_SET_OBJECT, TGPU_CLASS_COMPUTE, 0, 0,
          TGPU_ERR_BAD_CLASS, TGPU_CLASS_COMPUTE },
        { 25, 0, TGPU_M_SET_OBJECT, 0x1234, 0, 0,
          TGPU_ERR_BAD_CLASS, 0x1234 },
        /* 14 */
        { 1, 0, TGPU_M_MEM_OP_D, 0x1fu << TGPU_MEM_OP_SHIFT, 0, 0,
          TGPU_ERR_MEM_OP, 0x1f },
        { 1, 0, TGPU_M_MEM_OP_D, 0, 0, 0, TGPU_ERR_MEM_OP, 0 },
        /* 15 */
        { 1, 1, 0xffc, 0, 1, TGPU_CLASS_COMPUTE,
          TGPU_ERR_ENGINE, TGPU_CLASS_COMPUTE << 16 | 0xffc },
        { 26, 4, 0xffc, 0, 4, TGPU_CLASS_COPY,
          TGPU_ERR_ENGINE, (uint32_t)TGPU_CLASS_COPY << 16 | 0xffc },
    };
    g_autofree PB *pb = pb_new();
    T t;

    tgpu_start_std(&t);
    check_alive(&t, 1);

    for (size_t i = 0; i < ARRAY_SIZE(cases); i++) {
        const MethodErr *m = &cases[i];
        Chan *c = chan_up(&t, m->ch);

        g_test_message("method error case %zu", i);
        pb->n = 0;
        if (m->bind_class) {
            pb_m(pb, m->bind_subch, TGPU_M_SET_OBJECT, m->bind_class);
        }
        pb_release(pb, L_SEM + 0x10, i + 1);
        pb_m(pb, m->subch, m->method, m->data);
        pb_release(pb, L_SEM + 0x14, 0xdead);
        submit(&t, c, pb);
        /* the work before the error ran, nothing after it */
        expect_err_after(&t, c, m->code, m->info, L_SEM + 0x10, i + 1);
        check_alive(&t, 0x100 + i);
    }
    tgpu_stop(&t);
}

static void test_err_semaphore(void)
{
    static const struct {
        uint64_t addr;
        uint32_t exec;
        uint32_t code, info;
    } cases[] = {
        /* 11: misaligned for 64 bits, for a timestamp; unreachable */
        { L_SEM + 4, TGPU_SEM_OP_RELEASE | TGPU_SEM_PAYLOAD_64,
          TGPU_ERR_SEM_FAULT, L_SEM + 4 },
        { L_SEM + 8, TGPU_SEM_OP_RELEASE | TGPU_SEM_TIMESTAMP,
          TGPU_ERR_SEM_FAULT, L_SEM + 8 },
        { L_SEM + 8, TGPU_SEM_OP_RELEASE | TGPU_SEM_TIMESTAMP |
          TGPU_SEM_PAYLOAD_64, TGPU_ERR_SEM_FAULT, L_SEM + 8 },
        { L_SEM + 0x24, TGPU_SEM_OP_ACQUIRE | TGPU_SEM_PAYLOAD_64,
          TGPU_ERR_SEM_FAULT, L_SEM + 0x24 },
        { VRAM_GAP, TGPU_SEM_OP_RELEASE,
          TGPU_ERR_SEM_FAULT, (uint32_t)VRAM_GAP },
        { VRAM_SIZE, TGPU_SEM_OP_ACQ_GEQ, TGPU_ERR_SEM_FAULT, VRAM_SIZE },
        { SYS(G_UNMAPPED), TGPU_SEM_OP_RELEASE,
          TGPU_ERR_SEM_FAULT, (uint32_t)G_UNMAPPED },
        /* 12 */
        { L_SEM, 3, TGPU_ERR_SEM_INVALID_OP, 3 },
        { L_SEM, 7 | TGPU_SEM_PAYLOAD_64, TGPU_ERR_SEM_INVALID_OP,
          7 | TGPU_SEM_PAYLOAD_64 },
    };
    g_autofree PB *pb = pb_new();
    T t;
    Chan *c;

    tgpu_start_std(&t);
    check_alive(&t, 1);

    for (size_t i = 0; i < ARRAY_SIZE(cases); i++) {
        g_test_message("semaphore error case %zu", i);
        c = chan_up(&t, 1);
        pb->n = 0;
        pb_release(pb, L_SEM + 0x40, i + 1);
        pb_sem(pb, cases[i].addr, 1, cases[i].exec);
        pb_release(pb, L_SEM + 0x44, 0xdead);
        submit(&t, c, pb);
        expect_err_after(&t, c, cases[i].code, cases[i].info, L_SEM + 0x40,
                         i + 1);
        /* nothing was written at a misaligned address either */
        g_assert_cmphex(pa_rd64(&t, L_SEM), ==, 0);
        g_assert_cmphex(pa_rd64(&t, L_SEM + 8), ==, 0);
        g_assert_cmphex(pa_rd64(&t, L_SEM + 0x10), ==, 0);
    }

    /* 13: a 64-bit GEQ acquire that times out after 10 us */
    c = chan_cfg(&t, 2);
    c->acq_to_us = 10;
    chan_up_cfg(&t, c);
    pb->n = 0;
    pb_sem(pb, SYS(G_SEM + 0x10), 1, TGPU_SEM_OP_ACQ_GEQ |
           TGPU_SEM_PAYLOAD_64);
    submit_blocked(&t, c, pb);
    step(&t, 3 * TGPU_ACQUIRE_POLL_NS);
    expect_err(&t, c, TGPU_ERR_ACQUIRE_TIMEOUT, G_SEM + 0x10);

    check_alive(&t, 2);
    tgpu_stop(&t);
}

/* 16 ENGINE_RESET and 17 KILLED */
static void test_err_reset_kill(void)
{
    g_autofree PB *pb = pb_new();
    T t;
    Chan *c, *d;

    tgpu_start_std(&t);
    msix_setup(&t, G_MSI, true);
    enable_all_interrupts(&t);
    check_alive(&t, 1);

    /* KILL an idle channel: ERROR at once, and no interrupt */
    c = chan_up(&t, 1);
    chan_kill(&t, 1);
    g_assert_cmpuint(chan_state(&t, 1), ==, TGPU_CHAN_STATE_ERROR);
    g_assert_cmpuint(crd(&t, 1, TGPU_CHAN_ERROR), ==, TGPU_ERR_KILLED);
    g_assert_cmpuint(crd(&t, 1, TGPU_CHAN_ERROR_INFO), ==, 0);
    settle(&t);
    assert_no_error_pending(&t);
    g_assert_cmphex(rd(&t, TGPU_PMC_INTR), ==, 0);
    g_assert_false(qpci_msix_pending(t.dev, TGPU_MSIX_VEC_STALL));
    chan_reset(&t, 1);
    g_assert_cmpuint(chan_state(&t, 1), ==, TGPU_CHAN_STATE_DISABLED);

    /* KILL a blocked channel: its work never finishes */
    c = chan_up(&t, 1);
    pb_acquire(pb, L_SEM, 1);
    pb_release(pb, L_SEM + 0x10, 0xdead);
    submit_blocked(&t, c, pb);
    chan_kill(&t, 1);
    g_assert_cmpuint(chan_state(&t, 1), ==, TGPU_CHAN_STATE_ERROR);
    g_assert_cmpuint(crd(&t, 1, TGPU_CHAN_ERROR), ==, TGPU_ERR_KILLED);
    pa_wr32(&t, L_SEM, 1);
    step(&t, 2 * TGPU_ACQUIRE_POLL_NS);
    g_assert_cmpuint(pa_rd32(&t, L_SEM + 0x10), ==, 0);
    assert_no_error_pending(&t);
    g_assert_false(qpci_msix_pending(t.dev, TGPU_MSIX_VEC_STALL));
    chan_reset(&t, 1);

    /* ENGINE_RESET: a blocked channel on compute, and one on CE1 */
    c = chan_up(&t, 2);
    d = chan_up(&t, 24);
    pb->n = 0;
    pb_acquire(pb, L_SEM + 0x20, 1);
    pb_release(pb, L_SEM + 0x24, 0xdead);
    submit(&t, c, pb);
    submit(&t, d, pb);
    wait_state(&t, 2, TGPU_CHAN_STATE_BLOCKED);
    wait_state(&t, 24, TGPU_CHAN_STATE_BLOCKED);

    wr(&t, TGPU_PMC_ENGINE_RESET, TGPU_ENGINE_COMPUTE);
    g_assert_cmphex(rd(&t, TGPU_PMC_ENGINE_RESET), ==, 0);
    wait_state(&t, 2, TGPU_CHAN_STATE_ERROR);
    g_assert_true(qpci_msix_pending(t.dev, TGPU_MSIX_VEC_STALL));
    expect_err(&t, c, TGPU_ERR_ENGINE_RESET, TGPU_ENGINE_COMPUTE);
    /* CE1's channel is not touched by a compute reset */
    g_assert_cmpuint(chan_state(&t, 24), ==, TGPU_CHAN_STATE_BLOCKED);

    wr(&t, TGPU_PMC_ENGINE_RESET, TGPU_ENGINE_CE1);
    expect_err(&t, d, TGPU_ERR_ENGINE_RESET, TGPU_ENGINE_CE1);

    pa_wr32(&t, L_SEM + 0x20, 1);
    step(&t, 2 * TGPU_ACQUIRE_POLL_NS);
    g_assert_cmpuint(pa_rd32(&t, L_SEM + 0x24), ==, 0);

    /* the rest of the runlist goes on */
    check_alive(&t, 2);
    tgpu_stop(&t);
}

/* FIFO_ERR_* show the lowest pending channel; acks are per channel. */
static void test_err_reporting(void)
{
    g_autofree PB *pb = pb_new();
    uint32_t bad;
    T t;
    Chan *c9, *c3, *c40;

    tgpu_start_std(&t);
    check_alive(&t, 1);
    assert_no_error_pending(&t);

    c9 = chan_up(&t, 9);
    pb_m(pb, 0, 0x0fc, 0);
    submit(&t, c9, pb);
    wait_state(&t, 9, TGPU_CHAN_STATE_ERROR);
    g_assert_cmpuint(rd(&t, TGPU_FIFO_ERR_CHID), ==, 9);

    c3 = chan_up(&t, 3);
    pa_wr32(&t, c3->userd + TGPU_USERD_GP_PUT, 0xffffffff);
    doorbell(&t, 3);
    wait_state(&t, 3, TGPU_CHAN_STATE_ERROR);

    c40 = chan_up(&t, 40);
    pb->n = 0;
    pb_dw(pb, 0);
    submit(&t, c40, pb);
    wait_state(&t, 40, TGPU_CHAN_STATE_ERROR);

    g_assert_cmphex(rd(&t, TGPU_FIFO_ERR_PENDING(0)), ==, 1u << 9 | 1u << 3);
    g_assert_cmphex(rd(&t, TGPU_FIFO_ERR_PENDING(1)), ==, 1u << 8);
    g_assert_cmpuint(rd(&t, TGPU_FIFO_ERR_CHID), ==, 3);
    g_assert_cmpuint(rd(&t, TGPU_FIFO_ERR_CODE), ==, TGPU_ERR_GP_PUT_INVALID);
    g_assert_cmphex(rd(&t, TGPU_FIFO_ERR_INFO), ==, 0xffffffff);

    /* other channels go on; doorbells for failed ones are refused */
    bad = rd(&t, TGPU_FIFO_DOORBELLS_BAD);
    doorbell(&t, 9);
    doorbell(&t, 40);
    check_alive(&t, 2);
    g_assert_cmpuint(rd(&t, TGPU_FIFO_DOORBELLS_BAD), ==, bad + 2);

    /* FIFO_INTR.CHAN_ERROR follows ERR_PENDING: writing it does nothing */
    wr(&t, TGPU_FIFO_INTR, TGPU_FIFO_INTR_CHAN_ERROR);
    g_assert_cmphex(rd(&t, TGPU_FIFO_INTR) & TGPU_FIFO_INTR_CHAN_ERROR, ==,
                    TGPU_FIFO_INTR_CHAN_ERROR);
    /* writing 0 bits acknowledges nothing */
    wr(&t, TGPU_FIFO_ERR_PENDING(0), 0);
    g_assert_cmphex(rd(&t, TGPU_FIFO_ERR_PENDING(0)), ==, 1u << 9 | 1u << 3);

    err_ack(&t, 3);
    g_assert_cmphex(rd(&t, TGPU_FIFO_ERR_PENDING(0)), ==, 1u << 9);
    g_assert_cmpuint(rd(&t, TGPU_FIFO_ERR_CHID), ==, 9);
    g_assert_cmpuint(rd(&t, TGPU_FIFO_ERR_CODE), ==, TGPU_ERR_ILLEGAL_METHOD);
    g_assert_cmphex(rd(&t, TGPU_FIFO_ERR_INFO), ==, 0x0fc);
    g_assert_cmpuint(chan_state(&t, 3), ==, TGPU_CHAN_STATE_ERROR);

    err_ack(&t, 9);
    g_assert_cmpuint(rd(&t, TGPU_FIFO_ERR_CHID), ==, 40);
    g_assert_cmpuint(rd(&t, TGPU_FIFO_ERR_CODE), ==, TGPU_ERR_PB_HEADER);
    g_assert_cmphex(rd(&t, TGPU_FIFO_ERR_INFO), ==, 0);
    g_assert_cmphex(rd(&t, TGPU_FIFO_INTR) & TGPU_FIFO_INTR_CHAN_ERROR, ==,
                    TGPU_FIFO_INTR_CHAN_ERROR);

    err_ack(&t, 40);
    assert_no_error_pending(&t);
    g_assert_cmpuint(chan_state(&t, 40), ==, TGPU_CHAN_STATE_ERROR);
    tgpu_stop(&t);
}

/*
 * ======================================================================
 * 7. hostile input
 */

/* A GPFIFO ring whose entries point at the ring itself. */
static void test_hostile_self_ring(void)
{
    T t;
    Chan *c;

    tgpu_start_std(&t);
    c = chan_up(&t, 1);
    for (int i = 0; i < (1 << GP_LOG2_DEFAULT) - 1; i++) {
        chan_gp(&t, c, TGPU_GP_ENTRY(c->gpfifo,
                                     2 << GP_LOG2_DEFAULT, 0));
    }
    chan_kick(&t, c);
    g_assert_cmphex(rd(&t, TGPU_PMC_MAGIC), ==, TGPU_MAGIC);
    /* the first dword (entry 0's address) is read as a header */
    expect_err(&t, c, TGPU_ERR_PB_HEADER, (uint32_t)c->gpfifo);
    check_alive(&t, 1);
    tgpu_stop(&t);
}

/* Huge counts and lengths. */
static void test_hostile_huge(void)
{
    g_autofree PB *pb = pb_new();
    uint64_t va;
    T t;
    Chan *c;

    tgpu_start_std(&t);

    /*
     * A NON_INC header of the largest count, alone in its segment: the
     * data comes in the next entry, exactly that many dwords of it.
     */
    c = chan_up(&t, 1);
    pb_hdr(pb, TGPU_PB_OP_NON_INC, 0, TGPU_M_NOP, TGPU_PB_COUNT_MASK);
    submit(&t, c, pb);
    wait_done(&t, c);
    g_assert_cmphex(rd(&t, TGPU_PMC_MAGIC), ==, TGPU_MAGIC);
    pb->n = 0;
    for (int i = 0; i < TGPU_PB_COUNT_MASK; i++) {
        pb_dw(pb, 0);       /* as a header, 0 would be PB_HEADER */
    }
    pb_release(pb, L_SEM, 0x1fff);
    run(&t, c, pb);
    g_assert_cmphex(pa_rd32(&t, L_SEM), ==, 0x1fff);

    /* the largest length, running into the end of VRAM */
    c = chan_up(&t, 2);
    pb->n = 0;
    pb_nops(pb, 2048);
    va = VRAM_SIZE - 4 * 2048;
    pa_write_dw(&t, va, pb->dw, pb->n);
    chan_gp(&t, c, TGPU_GP_ENTRY(va, TGPU_GP_ENTRY1_LENGTH_MASK, 0));
    chan_kick(&t, c);
    g_assert_cmphex(rd(&t, TGPU_PMC_MAGIC), ==, TGPU_MAGIC);
    expect_err(&t, c, TGPU_ERR_PB_FAULT, VRAM_SIZE);

    /* the largest length in zeroed VRAM: the first zero is no header */
    c = chan_up(&t, 2);
    chan_gp(&t, c, TGPU_GP_ENTRY((uint64_t)L_SCRATCH,
                                 TGPU_GP_ENTRY1_LENGTH_MASK, 0));
    chan_kick(&t, c);
    expect_err(&t, c, TGPU_ERR_PB_HEADER, 0);

    /* the largest length, at the top of the GPU address space */
    c = chan_up(&t, 2);
    chan_gp(&t, c, TGPU_GP_ENTRY(TGPU_VA_LIMIT - 8,
                                 TGPU_GP_ENTRY1_LENGTH_MASK, 0));
    chan_kick(&t, c);
    expect_err(&t, c, TGPU_ERR_PB_FAULT, (uint32_t)(TGPU_VA_LIMIT - 8));

    check_alive(&t, 1);
    tgpu_stop(&t);
}

/* GP_PUT far outside the ring. */
static void test_hostile_gp_put(void)
{
    static const uint32_t puts[] = {
        1u << GP_LOG2_DEFAULT, 0x7fffffff, 0x80000000, 0xffffffff,
    };
    T t;
    Chan *c;

    tgpu_start_std(&t);
    for (size_t i = 0; i < ARRAY_SIZE(puts); i++) {
        c = chan_up(&t, 1);
        pa_wr32(&t, c->userd + TGPU_USERD_GP_PUT, puts[i]);
        doorbell(&t, 1);
        expect_err(&t, c, TGPU_ERR_GP_PUT_INVALID, puts[i]);
        g_assert_cmpuint(crd(&t, 1, TGPU_CHAN_GP_GET), ==, 0);
    }
    check_alive(&t, 1);
    tgpu_stop(&t);
}

/*
 * Many entries that all point at one segment, and a 2^20-entry ring of
 * zeros (control NOPs): bounded work, processed in passes, while QEMU
 * answers and other channels run.
 */
static void test_hostile_many(void)
{
    g_autofree PB *pb = pb_new();
    const uint32_t n_entries = 4095, seg_dw = 512;
    g_autofree uint64_t *ring = g_new(uint64_t, n_entries);
    uint64_t seg;
    T t;
    Chan *a, *z, *b;

    tgpu_start_std(&t);
    a = chan_cfg(&t, 1);
    a->log2 = 12;
    a->gpfifo = L_SCRATCH;
    chan_up_cfg(&t, a);

    pb_nops(pb, seg_dw);
    seg = chan_seg(&t, a, pb->dw, pb->n);
    for (uint32_t i = 0; i < n_entries; i++) {
        ring[i] = cpu_to_le64(TGPU_GP_ENTRY(seg, seg_dw, 0));
    }
    pa_write(&t, a->gpfifo, ring, 8 * n_entries);
    a->put = n_entries;

    z = chan_cfg(&t, 17);
    z->log2 = TGPU_GPFIFO_LOG2_MAX;
    z->gpfifo = L_BIGRING;
    chan_up_cfg(&t, z);
    z->put = (1u << TGPU_GPFIFO_LOG2_MAX) - 1;

    b = chan_up(&t, 2);

    chan_kick(&t, a);
    chan_kick(&t, z);
    g_assert_cmphex(rd(&t, TGPU_PMC_MAGIC), ==, TGPU_MAGIC);
    run_release(&t, b, L_SEM, 1);
    g_assert_cmphex(rd(&t, TGPU_PMC_SCRATCH), ==, 0);

    wait_done(&t, a);
    wait_done(&t, z);
    g_assert_cmpuint(pa_rd32(&t, a->userd + TGPU_USERD_GP_GET), ==,
                     n_entries);
    g_assert_cmpuint(pa_rd32(&t, z->userd + TGPU_USERD_GP_GET), ==,
                     z->put);
    assert_no_error_pending(&t);
    run_release(&t, b, L_SEM, 2);
    tgpu_stop(&t);
}

/*
 * The GPU's system-memory aperture reaching the device itself.  Its own
 * registers are not reachable by DMA (QEMU refuses re-entrant I/O), so
 * those accesses fault; its VRAM through BAR1 is memory like any other.
 * An MSI-X message aimed at its own doorbell goes nowhere.
 */
static void test_hostile_self_dma(void)
{
    g_autofree PB *pb = pb_new();
    uint64_t bar0_gpa = 0;
    uint32_t bells, bad;
    T t;
    Chan *c;

    tgpu_start_std(&t);
    bar0_gpa = t.bar0.addr;

    /* a release into its own doorbell register */
    c = chan_up(&t, 1);
    bells = rd(&t, TGPU_FIFO_DOORBELLS);
    bad = rd(&t, TGPU_FIFO_DOORBELLS_BAD);
    pb_release(pb, SYS(bar0_gpa + TGPU_USERMODE_DOORBELL), 1);
    pb_release(pb, L_SEM, 0x5e1f);
    submit(&t, c, pb);
    expect_err(&t, c, TGPU_ERR_SEM_FAULT,
               (uint32_t)(bar0_gpa + TGPU_USERMODE_DOORBELL));
    g_assert_cmpuint(rd(&t, TGPU_FIFO_DOORBELLS), ==, bells + 1);
    g_assert_cmpuint(rd(&t, TGPU_FIFO_DOORBELLS_BAD), ==, bad);
    g_assert_cmphex(pa_rd32(&t, L_SEM), ==, 0);

    /* a pushbuffer fetched from its own registers */
    c = chan_up(&t, 1);
    chan_gp(&t, c, TGPU_GP_ENTRY(SYS(bar0_gpa), 4, 0));
    chan_kick(&t, c);
    expect_err(&t, c, TGPU_ERR_PB_FAULT, (uint32_t)bar0_gpa);

    /* a GPFIFO ring in its own VRAM, reached through BAR1 by DMA */
    c = chan_cfg(&t, 1);
    c->gpfifo = SYS(t.bar1.addr + L_GPFIFO(1));
    chan_up_cfg(&t, c);
    pb->n = 0;
    pb_release(pb, L_SEM, 0xb1);
    run(&t, c, pb);
    g_assert_cmphex(pa_rd32(&t, L_SEM), ==, 0xb1);
    g_assert_cmpuint(pa_rd32(&t, L_USERD(1) + TGPU_USERD_GP_GET), ==, 1);
    chan_reset(&t, 1);

    /* an MSI-X message aimed at its own doorbell */
    msix_setup(&t, G_MSI, false);
    bar0_gpa = t.bar0.addr;
    wr(&t, t.dev->msix_table_off + PCI_MSIX_ENTRY_LOWER_ADDR,
       bar0_gpa + TGPU_USERMODE_DOORBELL);
    wr(&t, t.dev->msix_table_off + PCI_MSIX_ENTRY_DATA, 1);
    enable_all_interrupts(&t);
    c = chan_up(&t, 1);
    bells = rd(&t, TGPU_FIFO_DOORBELLS);
    bad = rd(&t, TGPU_FIFO_DOORBELLS_BAD);
    pb->n = 0;
    pb_m(pb, 0, 0x0fc, 0);
    submit(&t, c, pb);
    wait_state(&t, 1, TGPU_CHAN_STATE_ERROR);
    settle(&t);
    g_assert_cmpuint(rd(&t, TGPU_FIFO_DOORBELLS), ==, bells + 1);
    g_assert_cmpuint(rd(&t, TGPU_FIFO_DOORBELLS_BAD), ==, bad);
    expect_err(&t, c, TGPU_ERR_ILLEGAL_METHOD, 0x0fc);
    check_alive(&t, 1);
    tgpu_stop(&t);
}

/*
 * q35's ECAM window, opened as firmware opens it (PCIEXBAR), is MMIO:
 * a semaphore release or an MMU fault record aimed at the device's own
 * configuration space is refused, so a channel cannot clear its COMMAND
 * or move its BARs through it.
 */
#define Q35_PCIEXBAR        0x60
#define ECAM_BASE           0xb0000000u
#define ECAM_TGPU           (ECAM_BASE + (4u << 15))    /* 00:04.0 */

static void test_hostile_ecam(void)
{
    g_autofree PB *pb = pb_new();
    QPCIDevice *mch;
    uint16_t cmd;
    T t;
    Chan *c;

    tgpu_start_std(&t);
    mch = qpci_device_find(t.bus, QPCI_DEVFN(0, 0));
    g_assert_nonnull(mch);
    qpci_config_writel(mch, Q35_PCIEXBAR + 4, 0);
    qpci_config_writel(mch, Q35_PCIEXBAR, ECAM_BASE | 1);
    g_free(mch);
    /* the window works: it shows the device's identity */
    g_assert_cmphex(qtest_readw(t.qts, ECAM_TGPU + PCI_VENDOR_ID), ==,
                    TGPU_PCI_VENDOR_ID);
    cmd = qpci_config_readw(t.dev, PCI_COMMAND);
    g_assert_cmphex(qtest_readw(t.qts, ECAM_TGPU + PCI_COMMAND), ==, cmd);

    /* a release of 0 into its own COMMAND register */
    c = chan_up(&t, 1);
    pb_release(pb, SYS(ECAM_TGPU + PCI_COMMAND), 0);
    submit(&t, c, pb);
    expect_err(&t, c, TGPU_ERR_SEM_FAULT, ECAM_TGPU + PCI_COMMAND);
    g_assert_cmphex(qpci_config_readw(t.dev, PCI_COMMAND), ==, cmd);

    /* the fault buffer in config space: the record is dropped */
    wr(&t, TGPU_MMU_FAULT_BUF_LO, ECAM_TGPU | TGPU_FAULT_BUF_SYSMEM);
    wr(&t, TGPU_MMU_FAULT_BUF_HI, 0);
    wr(&t, TGPU_MMU_FAULT_BUF_SIZE, 4);
    wr(&t, TGPU_MMU_INTR, ~0u);
    c = chan_up(&t, 1);
    pb->n = 0;
    pb_release(pb, VRAM_GAP, 0x5a5a5a5a);
    submit(&t, c, pb);
    expect_err(&t, c, TGPU_ERR_SEM_FAULT, (uint32_t)VRAM_GAP);
    g_assert_cmphex(rd(&t, TGPU_MMU_INTR), ==, TGPU_MMU_INTR_OVERFLOW);
    g_assert_cmpuint(rd(&t, TGPU_MMU_FAULT_BUF_PUT), ==, 0);
    g_assert_cmphex(qpci_config_readw(t.dev, PCI_COMMAND), ==, cmd);
    g_assert_cmphex(qpci_config_readl(t.dev, PCI_BASE_ADDRESS_0), ==,
                    t.bar0.addr);
    check_alive(&t, 0xecab);
    tgpu_stop(&t);
}

/*
 * A subchannel keeps its class across a disable; re-enabled onto another
 * engine's runlist, the channel's next method of that class is a
 * BAD_CLASS error, not a method handed to the wrong engine.
 */
static void test_hostile_class_moved(void)
{
    g_autofree PB *pb = pb_new();
    const uint32_t compute_list[] = { 0, 16 };
    Chan *c;
    T t;

    tgpu_start_std(&t);
    c = chan_up(&t, 16);                        /* on CE0's runlist */
    pb_m(pb, 4, TGPU_M_SET_OBJECT, TGPU_CLASS_COPY);
    run(&t, c, pb);
    cwr(&t, 16, TGPU_CHAN_CTRL, 0);
    wait_state(&t, 16, TGPU_CHAN_STATE_DISABLED);

    /* only the instance block's engine changes; GP_GET stays where it is */
    c->engine = TGPU_RUNLIST_COMPUTE;
    pa_wr32(&t, c->inst + TGPU_INST_ENGINE, c->engine);
    runlist_set(&t, TGPU_RUNLIST_COMPUTE, compute_list, 2);
    chan_enable(&t, c);
    wait_state(&t, 16, TGPU_CHAN_STATE_IDLE);
    pb->n = 0;
    pb_m(pb, 4, TGPU_CE_M_LAUNCH_DMA, 0);
    submit(&t, c, pb);
    expect_err(&t, c, TGPU_ERR_BAD_CLASS, TGPU_CLASS_COPY);
    check_alive(&t, 0x60d);
    tgpu_stop(&t);
}

/* Without bus mastering, system memory is out of reach: a fault. */
static void test_hostile_no_bus_master(void)
{
    g_autofree PB *pb = pb_new();
    uint16_t cmd;
    T t;
    Chan *c;

    tgpu_start_std(&t);
    cmd = qpci_config_readw(t.dev, PCI_COMMAND);
    qpci_config_writew(t.dev, PCI_COMMAND, cmd & ~PCI_COMMAND_MASTER);
    qtest_writel(t.qts, G_SEM, 0x1111);

    c = chan_up(&t, 1);
    pb_release(pb, L_SEM, 0x600d);
    pb_release(pb, SYS(G_SEM), 0x2222);
    submit(&t, c, pb);
    expect_err(&t, c, TGPU_ERR_SEM_FAULT, G_SEM);
    g_assert_cmphex(qtest_readl(t.qts, G_SEM), ==, 0x1111);
    g_assert_cmphex(pa_rd32(&t, L_SEM), ==, 0x600d);

    c = chan_up_cfg(&t, chan_cfg_sys(&t, 1));
    doorbell(&t, 1);
    expect_err(&t, c, TGPU_ERR_USERD_FAULT, G_USERD);

    /* with it back on, the same work goes through */
    qpci_config_writew(t.dev, PCI_COMMAND, cmd);
    c = chan_up(&t, 1);
    run(&t, c, pb);
    g_assert_cmphex(qtest_readl(t.qts, G_SEM), ==, 0x2222);
    tgpu_stop(&t);
}

/*
 * ======================================================================
 * 8. reset
 */

static void test_reset_channel(void)
{
    g_autofree PB *pb = pb_new();
    T t;
    Chan *c;

    tgpu_start_std(&t);

    /* a blocked channel with a bound subchannel and a PB position */
    c = chan_up(&t, 1);
    pb_m(pb, 1, TGPU_M_SET_OBJECT, TGPU_CLASS_COMPUTE);
    pb_release(pb, L_SEM + 0x10, 1);
    pb_acquire(pb, L_SEM, 1);
    pb_release(pb, L_SEM + 0x10, 2);
    submit_blocked(&t, c, pb);
    g_assert_cmpuint(crd(&t, 1, TGPU_CHAN_GP_GET), ==, 1);
    g_assert_cmpuint(crd(&t, 1, TGPU_CHAN_GP_PUT), ==, 1);
    g_assert_cmphex(crd(&t, 1, TGPU_CHAN_PB_LO), !=, 0);

    chan_reset(&t, 1);
    g_assert_cmpuint(chan_state(&t, 1), ==, TGPU_CHAN_STATE_DISABLED);
    g_assert_cmpuint(crd(&t, 1, TGPU_CHAN_CTRL) & TGPU_CHAN_CTRL_ENABLE, ==,
                     0);
    g_assert_cmpuint(crd(&t, 1, TGPU_CHAN_ERROR), ==, 0);
    g_assert_cmpuint(crd(&t, 1, TGPU_CHAN_GP_GET), ==, 0);
    g_assert_cmpuint(crd(&t, 1, TGPU_CHAN_GP_PUT), ==, 0);
    g_assert_cmphex(crd(&t, 1, TGPU_CHAN_PB_LO), ==, 0);
    g_assert_cmphex(crd(&t, 1, TGPU_CHAN_PB_HI), ==, 0);
    /* memory is not touched */
    g_assert_cmpuint(pa_rd32(&t, c->userd + TGPU_USERD_GP_GET), ==, 1);
    g_assert_cmpuint(pa_rd32(&t, c->userd + TGPU_USERD_GP_PUT), ==, 1);
    g_assert_cmpuint(pa_rd32(&t, L_SEM + 0x10), ==, 1);
    /* no semaphore state: the acquire is gone */
    pa_wr32(&t, L_SEM, 1);
    step(&t, 3 * TGPU_ACQUIRE_POLL_NS);
    g_assert_cmpuint(pa_rd32(&t, L_SEM + 0x10), ==, 1);

    /* no subchannel binding: an engine method on it is ILLEGAL_SUBCH */
    c = chan_up(&t, 1);
    pb->n = 0;
    pb_m(pb, 1, 0x200, 0);
    submit(&t, c, pb);
    expect_err(&t, c, TGPU_ERR_ILLEGAL_SUBCH, 1 << 16 | 0x200);

    /* no pushbuffer position: a method waiting for data is forgotten */
    c = chan_up(&t, 1);
    pb->n = 0;
    pb_hdr(pb, TGPU_PB_OP_NON_INC, 0, TGPU_M_NOP, 100);
    run(&t, c, pb);
    chan_reset(&t, 1);
    c = chan_up(&t, 1);
    run_release(&t, c, L_SEM + 0x20, 0x20);

    /* RESET of a failed channel clears its ERR_PENDING without an ack */
    pb->n = 0;
    pb_m(pb, 0, 0x0fc, 0);
    submit(&t, c, pb);
    wait_state(&t, 1, TGPU_CHAN_STATE_ERROR);
    g_assert_true(err_pending(&t, 1));
    chan_reset(&t, 1);
    assert_no_error_pending(&t);
    g_assert_cmpuint(chan_state(&t, 1), ==, TGPU_CHAN_STATE_DISABLED);

    /* and it works afterwards */
    c = chan_up(&t, 1);
    run_release(&t, c, L_SEM + 0x20, 0x21);
    tgpu_stop(&t);
}

/*
 * Everything a device reset must put back, work that must not finish;
 * and the device works again.
 */
static void check_device_reset(T *t, Chan *blocked, Chan *busy)
{
    const uint64_t busy_get = busy->userd + TGPU_USERD_GP_GET;
    uint32_t v;

    for (int ch = 0; ch < (int)t->nch; ch++) {
        g_assert_cmphex(crd(t, ch, TGPU_CHAN_STATUS), ==, 0);
        g_assert_cmphex(crd(t, ch, TGPU_CHAN_INST), ==, 0);
        g_assert_cmphex(crd(t, ch, TGPU_CHAN_CTRL), ==, 0);
        g_assert_cmphex(crd(t, ch, TGPU_CHAN_GP_GET), ==, 0);
        g_assert_cmphex(crd(t, ch, TGPU_CHAN_GP_PUT), ==, 0);
        g_assert_cmphex(crd(t, ch, TGPU_CHAN_ERROR), ==, 0);
    }
    for (int r = 0; r < TGPU_NR_RUNLISTS; r++) {
        g_assert_cmphex(rd(t, TGPU_FIFO_RUNLIST_STATUS(r)), ==, 0);
    }
    assert_no_error_pending(t);
    g_assert_cmphex(rd(t, TGPU_FIFO_INTR), ==, 0);
    g_assert_cmphex(rd(t, TGPU_FIFO_INTR_EN), ==, 0);
    g_assert_cmphex(rd(t, TGPU_FIFO_NONSTALL_INTR), ==, 0);
    g_assert_cmphex(rd(t, TGPU_FIFO_NONSTALL_INTR_EN), ==, 0);
    g_assert_cmphex(rd(t, TGPU_PMC_INTR), ==, 0);
    g_assert_cmphex(rd(t, TGPU_PMC_INTR_EN), ==, 0);
    g_assert_cmphex(rd(t, TGPU_FIFO_DOORBELLS), ==, 0);
    g_assert_cmphex(rd(t, TGPU_FIFO_DOORBELLS_BAD), ==, 0);
    g_assert_cmphex(rd(t, TGPU_FIFO_CTXSW_COUNT), ==, 0);

    /* queued work is dropped, never finished afterwards */
    qtest_writel(t->qts, G_SEM, 1);
    v = pa_rd32(t, busy_get);
    step(t, 5 * TGPU_ACQUIRE_POLL_NS);
    settle(t);
    g_assert_cmphex(qtest_readl(t->qts, G_SEM + 4), ==, 0);
    g_assert_cmphex(pa_rd32(t, busy_get), ==, v);
    g_assert_cmphex(crd(t, busy->id, TGPU_CHAN_GP_GET), ==, 0);
    g_assert_cmphex(crd(t, blocked->id, TGPU_CHAN_STATUS), ==, 0);

    runlists_std(t);
    run_release(t, chan_up(t, 0), L_SEM, 0x600d);
}

/*
 * Start the device with a blocked channel and a long job in flight, an
 * error, counters.
 */
static void tgpu_start_dirty(T *t, Chan **blocked, Chan **busy)
{
    g_autofree PB *pb = pb_new();
    Chan *a, *z, *e;

    tgpu_start(t, NULL);
    qtest_writel(t->qts, G_SEM, 0);
    qtest_writel(t->qts, G_SEM + 4, 0);
    runlists_std(t);
    enable_all_interrupts(t);
    a = chan_up(t, 1);
    pb_acquire(pb, SYS(G_SEM), 1);
    pb_release(pb, SYS(G_SEM + 4), 0xdead);
    submit_blocked(t, a, pb);

    e = chan_up(t, 2);
    pb->n = 0;
    pb_dw(pb, 0);
    submit(t, e, pb);
    wait_state(t, 2, TGPU_CHAN_STATE_ERROR);
    doorbell(t, 1000);

    z = chan_cfg(t, 17);
    z->log2 = TGPU_GPFIFO_LOG2_MAX;
    z->gpfifo = L_BIGRING;
    chan_up_cfg(t, z);
    z->put = (1u << TGPU_GPFIFO_LOG2_MAX) - 1;
    chan_kick(t, z);

    g_assert_cmpuint(rd(t, TGPU_FIFO_DOORBELLS), >, 0);
    g_assert_cmpuint(rd(t, TGPU_FIFO_DOORBELLS_BAD), >, 0);
    g_assert_cmpuint(rd(t, TGPU_FIFO_CTXSW_COUNT), >, 0);
    g_assert_cmphex(rd(t, TGPU_FIFO_INTR), !=, 0);
    *blocked = a;
    *busy = z;
}

static void test_reset_system(void)
{
    T t;
    Chan *blocked, *busy;

    tgpu_start_dirty(&t, &blocked, &busy);
    tgpu_system_reset(&t);
    check_device_reset(&t, blocked, busy);
    tgpu_stop(&t);
}

static void test_reset_flr(void)
{
    uint8_t exp;
    T t;
    Chan *blocked, *busy;

    tgpu_start_dirty(&t, &blocked, &busy);
    exp = qpci_find_capability(t.dev, PCI_CAP_ID_EXP, 0);
    qpci_config_writew(t.dev, exp + PCI_EXP_DEVCTL,
                       qpci_config_readw(t.dev, exp + PCI_EXP_DEVCTL) |
                       PCI_EXP_DEVCTL_BCR_FLR);
    /* FLR cleared the BARs too: map them again */
    tgpu_unmap(&t);
    tgpu_map(&t);
    check_device_reset(&t, blocked, busy);
    tgpu_stop(&t);
}

/*
 * PMC_ENGINE_RESET fails the channel resident on the engine (the one it
 * ran last, blocked here); the others on the runlist go on.
 */
static void test_reset_engine(void)
{
    g_autofree PB *pb = pb_new();
    T t;
    Chan *idle, *a, *ce;

    tgpu_start_std(&t);
    idle = chan_up(&t, 1);
    a = chan_up(&t, 2);
    ce = chan_up(&t, 16);
    run_release(&t, idle, L_SEM, 1);

    pb_acquire(pb, L_SEM + 0x10, 1);
    pb_release(pb, L_SEM + 0x14, 0xdead);
    submit(&t, a, pb);
    submit(&t, ce, pb);
    wait_state(&t, 2, TGPU_CHAN_STATE_BLOCKED);
    wait_state(&t, 16, TGPU_CHAN_STATE_BLOCKED);

    /* an engine with nothing resident: nothing happens */
    wr(&t, TGPU_PMC_ENGINE_RESET, TGPU_ENGINE_CE1);
    settle(&t);
    assert_no_error_pending(&t);

    wr(&t, TGPU_PMC_ENGINE_RESET, TGPU_ENGINE_COMPUTE);
    wait_state(&t, 2, TGPU_CHAN_STATE_ERROR);
    g_assert_cmpuint(crd(&t, 2, TGPU_CHAN_ERROR), ==, TGPU_ERR_ENGINE_RESET);
    g_assert_cmpuint(crd(&t, 2, TGPU_CHAN_ERROR_INFO), ==,
                     TGPU_ENGINE_COMPUTE);
    g_assert_true(err_pending(&t, 2));
    g_assert_cmpuint(chan_state(&t, 1), ==, TGPU_CHAN_STATE_IDLE);
    g_assert_cmpuint(chan_state(&t, 16), ==, TGPU_CHAN_STATE_BLOCKED);

    /* the rest of the runlist, and CE0, go on */
    run_release(&t, idle, L_SEM, 2);
    pa_wr32(&t, L_SEM + 0x10, 1);
    poll_done(&t, ce);
    g_assert_cmphex(pa_rd32(&t, L_SEM + 0x14), ==, 0xdead);
    g_assert_cmpuint(chan_state(&t, 2), ==, TGPU_CHAN_STATE_ERROR);
    tgpu_stop(&t);
}

static void test_runlist(void)
{
    const uint32_t good[] = { 1, 2 }, dup[] = { 1, 2, 1 };
    const uint32_t out[] = { 1, 64 }, huge[] = { 0xffffffff };
    g_autofree uint32_t *many = g_new(uint32_t, 65);
    g_autofree PB *pb = pb_new();
    T t;
    Chan *a, *b, *x;

    tgpu_start(&t, NULL);
    msix_setup(&t, G_MSI, true);
    enable_all_interrupts(&t);
    for (int r = 0; r < TGPU_NR_RUNLISTS; r++) {
        g_assert_cmphex(rd(&t, TGPU_FIFO_RUNLIST_STATUS(r)), ==, 0);
    }

    /* on no runlist: enabled, accepted, but nothing runs */
    a = chan_up(&t, 1);
    b = chan_up(&t, 2);
    g_assert_cmphex(crd(&t, 1, TGPU_CHAN_STATUS) &
                    TGPU_CHAN_STATUS_ON_RUNLIST, ==, 0);
    pb_release(pb, L_SEM, 0xa);
    submit(&t, a, pb);
    settle(&t);
    g_assert_cmpuint(crd(&t, 1, TGPU_CHAN_GP_GET), ==, 0);
    g_assert_cmpuint(pa_rd32(&t, L_SEM), ==, 0);
    /* work, waiting for an engine */
    g_assert_cmphex(crd(&t, 1, TGPU_CHAN_STATUS), ==,
                    TGPU_CHAN_STATE_PENDING);

    /* on its runlist it runs (the doorbell again, to be sure it looks) */
    runlist_set(&t, TGPU_RUNLIST_COMPUTE, good, 2);
    g_assert_cmphex(crd(&t, 1, TGPU_CHAN_STATUS) &
                    TGPU_CHAN_STATUS_ON_RUNLIST, ==,
                    TGPU_CHAN_STATUS_ON_RUNLIST);
    doorbell(&t, 1);
    wait_done(&t, a);
    g_assert_cmpuint(pa_rd32(&t, L_SEM), ==, 0xa);
    g_assert_cmphex(rd(&t, TGPU_FIFO_INTR), ==, 0);

    /* refused lists: the previous one stays */
    for (int i = 0; i < 6; i++) {
        uint32_t st;

        g_test_message("bad runlist case %d", i);
        switch (i) {
        case 0:
            for (int j = 0; j < 65; j++) {
                many[j] = j;
            }
            st = runlist_submit(&t, TGPU_RUNLIST_COMPUTE, many, 65);
            break;
        case 1:
            st = runlist_submit(&t, TGPU_RUNLIST_COMPUTE, dup, 3);
            break;
        case 2:
            st = runlist_submit(&t, TGPU_RUNLIST_COMPUTE, out, 2);
            break;
        case 3:
            st = runlist_submit(&t, TGPU_RUNLIST_COMPUTE, huge, 1);
            break;
        case 4:
            wr(&t, TGPU_FIFO_RUNLIST_BASE_LO(0), (uint32_t)VRAM_GAP);
            wr(&t, TGPU_FIFO_RUNLIST_BASE_HI(0), 0);
            wr(&t, TGPU_FIFO_RUNLIST_SUBMIT(0), 1);
            st = rd(&t, TGPU_FIFO_RUNLIST_STATUS(0));
            break;
        default:
            /* in VRAM at first, running off its end */
            wr(&t, TGPU_FIFO_RUNLIST_BASE_LO(0), VRAM_SIZE - 4);
            wr(&t, TGPU_FIFO_RUNLIST_BASE_HI(0), 0);
            wr(&t, TGPU_FIFO_RUNLIST_SUBMIT(0), 2);
            st = rd(&t, TGPU_FIFO_RUNLIST_STATUS(0));
            break;
        }
        g_assert_cmphex(st & TGPU_RUNLIST_STATUS_ERROR, ==,
                        TGPU_RUNLIST_STATUS_ERROR);
        g_assert_cmphex(rd(&t, TGPU_FIFO_INTR), ==, TGPU_FIFO_INTR_RUNLIST);
        g_assert_cmphex(rd(&t, TGPU_PMC_INTR), ==, TGPU_INTR_FIFO);
        g_assert_true(qpci_msix_pending(t.dev, TGPU_MSIX_VEC_STALL));
        /* still on the old list, and running */
        g_assert_cmphex(crd(&t, 2, TGPU_CHAN_STATUS), ==,
                        TGPU_CHAN_STATE_IDLE | TGPU_CHAN_STATUS_ON_RUNLIST);
        run_release(&t, b, L_SEM + 4, i + 1);
        /* RUNLIST is write-1-to-clear */
        wr(&t, TGPU_FIFO_INTR, TGPU_FIFO_INTR_RUNLIST);
        g_assert_cmphex(rd(&t, TGPU_FIFO_INTR), ==, 0);
        g_assert_cmphex(rd(&t, TGPU_PMC_INTR), ==, 0);
        /* reading the pending bit back clears it: unmask and re-mask */
        msix_mask(&t, TGPU_MSIX_VEC_STALL, false);
        wait_msi(&t, TGPU_MSIX_VEC_STALL);
        msix_mask(&t, TGPU_MSIX_VEC_STALL, true);
        msi_clear(&t);
    }
    g_assert_false(qpci_msix_pending(t.dev, TGPU_MSIX_VEC_STALL));

    /* a good list clears ERROR and reads its count */
    runlist_set(&t, TGPU_RUNLIST_COMPUTE, good, 2);
    runlist_set(&t, TGPU_RUNLIST_CE0, NULL, 0);

    /* a compute channel on CE0's list does not run */
    x = chan_up(&t, 3);
    runlist_set(&t, TGPU_RUNLIST_CE0, (const uint32_t[]){ 3 }, 1);
    pb->n = 0;
    pb_release(pb, L_SEM + 8, 0xc);
    submit(&t, x, pb);
    settle(&t);
    g_assert_cmpuint(pa_rd32(&t, L_SEM + 8), ==, 0);
    g_assert_cmpuint(crd(&t, 3, TGPU_CHAN_GP_GET), ==, 0);

    /* an empty list takes channels off */
    runlist_set(&t, TGPU_RUNLIST_COMPUTE, NULL, 0);
    g_assert_cmphex(crd(&t, 1, TGPU_CHAN_STATUS) &
                    TGPU_CHAN_STATUS_ON_RUNLIST, ==, 0);
    pb->n = 0;
    pb_release(pb, L_SEM, 0xb);
    submit(&t, a, pb);
    settle(&t);
    g_assert_cmpuint(pa_rd32(&t, L_SEM), ==, 0xa);
    g_assert_cmphex(rd(&t, TGPU_FIFO_INTR), ==, 0);
    tgpu_stop(&t);
}

/*
 * ======================================================================
 * 9. interrupts: MSI-X vectors and enables, INTx
 */

static void nonstall(T *t, Chan *c, uint32_t tag)
{
    g_autofree PB *pb = pb_new();

    pb_m(pb, 0, TGPU_M_NON_STALL_INTERRUPT, 0);
    pb_release(pb, L_SEM + 0x80, tag);
    run(t, c, pb);
    g_assert_cmphex(pa_rd32(t, L_SEM + 0x80), ==, tag);
    settle(t);
}

static void test_msix(void)
{
    g_autofree PB *pb = pb_new();
    T t;
    Chan *c, *e;

    tgpu_start_std(&t);
    msix_setup(&t, G_MSI, false);
    c = chan_up(&t, 0);

    /* nothing enabled: status only, and which channel it was */
    g_assert_cmphex(rd(&t, TGPU_FIFO_NONSTALL_PENDING(0)), ==, 0);
    nonstall(&t, c, 1);
    g_assert_cmphex(rd(&t, TGPU_FIFO_NONSTALL_INTR), ==, 1);
    g_assert_cmphex(rd(&t, TGPU_PMC_INTR), ==, 0);
    g_assert_false(msi_seen(&t, TGPU_MSIX_VEC_NONSTALL));
    wr(&t, TGPU_FIFO_NONSTALL_INTR, 1);
    g_assert_cmphex(rd(&t, TGPU_FIFO_NONSTALL_INTR), ==, 0);
    g_assert_cmphex(rd(&t, TGPU_FIFO_NONSTALL_PENDING(0)), ==, 1);
    e = chan_up(&t, 33);
    nonstall(&t, e, 1);
    g_assert_cmphex(rd(&t, TGPU_FIFO_NONSTALL_PENDING(1)), ==, 1u << 1);
    wr(&t, TGPU_FIFO_NONSTALL_PENDING(0), 1);
    wr(&t, TGPU_FIFO_NONSTALL_PENDING(1), 1u << 1);
    g_assert_cmphex(rd(&t, TGPU_FIFO_NONSTALL_PENDING(0)), ==, 0);
    g_assert_cmphex(rd(&t, TGPU_FIFO_NONSTALL_PENDING(1)), ==, 0);
    wr(&t, TGPU_FIFO_NONSTALL_INTR, 1);

    /* enabled in the unit, not in PMC: PMC_INTR shows it, no message */
    wr(&t, TGPU_FIFO_NONSTALL_INTR_EN, 1);
    nonstall(&t, c, 2);
    g_assert_cmphex(rd(&t, TGPU_PMC_INTR), ==, TGPU_INTR_NONSTALL);
    g_assert_false(msi_seen(&t, TGPU_MSIX_VEC_NONSTALL));
    wr(&t, TGPU_FIFO_NONSTALL_INTR, 1);
    g_assert_cmphex(rd(&t, TGPU_PMC_INTR), ==, 0);

    /* enabled in PMC, not in the unit: no message */
    wr(&t, TGPU_FIFO_NONSTALL_INTR_EN, 0);
    wr(&t, TGPU_PMC_INTR_EN, TGPU_INTR_FIFO | TGPU_INTR_NONSTALL);
    nonstall(&t, c, 3);
    g_assert_cmphex(rd(&t, TGPU_FIFO_NONSTALL_INTR), ==, 1);
    g_assert_cmphex(rd(&t, TGPU_PMC_INTR), ==, 0);
    g_assert_false(msi_seen(&t, TGPU_MSIX_VEC_NONSTALL));
    wr(&t, TGPU_FIFO_NONSTALL_INTR, 1);

    /* both: vector 1, and only vector 1 */
    wr(&t, TGPU_FIFO_NONSTALL_INTR_EN, 1);
    nonstall(&t, c, 4);
    wait_msi(&t, TGPU_MSIX_VEC_NONSTALL);
    g_assert_cmphex(rd(&t, TGPU_PMC_INTR), ==, TGPU_INTR_NONSTALL);
    for (int v = 0; v < TGPU_MSIX_NR_VECTORS; v++) {
        if (v != TGPU_MSIX_VEC_NONSTALL) {
            g_assert_false(msi_seen(&t, v));
        }
    }
    /* after an ack, the next event sends again */
    wr(&t, TGPU_FIFO_NONSTALL_INTR, 1);
    msi_clear(&t);
    nonstall(&t, c, 5);
    wait_msi(&t, TGPU_MSIX_VEC_NONSTALL);
    wr(&t, TGPU_FIFO_NONSTALL_INTR, 1);
    msi_clear(&t);

    /* errors: vector 0 once enabled in FIFO_INTR_EN */
    e = chan_up(&t, 1);
    pb_m(pb, 0, 0x0fc, 0);
    submit(&t, e, pb);
    wait_state(&t, 1, TGPU_CHAN_STATE_ERROR);
    settle(&t);
    g_assert_cmphex(rd(&t, TGPU_FIFO_INTR), ==, TGPU_FIFO_INTR_CHAN_ERROR);
    g_assert_cmphex(rd(&t, TGPU_PMC_INTR), ==, 0);
    g_assert_false(msi_seen(&t, TGPU_MSIX_VEC_STALL));
    err_ack(&t, 1);
    chan_reset(&t, 1);

    wr(&t, TGPU_FIFO_INTR_EN, TGPU_FIFO_INTR_CHAN_ERROR);
    e = chan_up(&t, 1);
    submit(&t, e, pb);
    wait_msi(&t, TGPU_MSIX_VEC_STALL);
    g_assert_cmphex(rd(&t, TGPU_PMC_INTR), ==, TGPU_INTR_FIFO);
    g_assert_false(msi_seen(&t, TGPU_MSIX_VEC_NONSTALL));
    err_ack(&t, 1);
    chan_reset(&t, 1);
    g_assert_cmphex(rd(&t, TGPU_PMC_INTR), ==, 0);
    msi_clear(&t);

    /* a masked vector is left pending and sent on unmask */
    msix_mask(&t, TGPU_MSIX_VEC_STALL, true);
    e = chan_up(&t, 1);
    submit(&t, e, pb);
    wait_state(&t, 1, TGPU_CHAN_STATE_ERROR);
    settle(&t);
    g_assert_true(qpci_msix_pending(t.dev, TGPU_MSIX_VEC_STALL));
    g_assert_false(msi_seen(&t, TGPU_MSIX_VEC_STALL));
    msix_mask(&t, TGPU_MSIX_VEC_STALL, false);
    wait_msi(&t, TGPU_MSIX_VEC_STALL);
    g_assert_false(qpci_msix_pending(t.dev, TGPU_MSIX_VEC_STALL));
    err_ack(&t, 1);
    chan_reset(&t, 1);
    msi_clear(&t);

    /* KILL never interrupts */
    e = chan_up(&t, 1);
    chan_kill(&t, 1);
    settle(&t);
    g_assert_false(msi_seen(&t, TGPU_MSIX_VEC_STALL));

    /* the MMU, ECC and thermal vectors stay silent */
    for (int v = TGPU_MSIX_VEC_MMU; v < TGPU_MSIX_NR_VECTORS; v++) {
        g_assert_false(msi_seen(&t, v));
        g_assert_false(qpci_msix_pending(t.dev, v));
    }
    tgpu_stop(&t);
}

static void test_intx(void)
{
    g_autofree PB *pb = pb_new();
    T t;
    Chan *c, *e;

    tgpu_start(&t, NULL);
    qtest_irq_intercept_in(t.qts, "ioapic");
    runlists_std(&t);
    c = chan_up(&t, 0);
    g_assert_false(qtest_get_irq(t.qts, TGPU_INTX_GSI));

    /* the line is the level of PMC_INTR & PMC_INTR_EN */
    e = chan_up(&t, 1);
    pb_m(pb, 0, 0x0fc, 0);
    submit(&t, e, pb);
    wait_state(&t, 1, TGPU_CHAN_STATE_ERROR);
    settle(&t);
    g_assert_false(qtest_get_irq(t.qts, TGPU_INTX_GSI));
    wr(&t, TGPU_FIFO_INTR_EN, TGPU_FIFO_INTR_CHAN_ERROR);
    g_assert_false(qtest_get_irq(t.qts, TGPU_INTX_GSI));
    wr(&t, TGPU_PMC_INTR_EN, TGPU_INTR_FIFO);
    g_assert_true(qtest_get_irq(t.qts, TGPU_INTX_GSI));
    wr(&t, TGPU_PMC_INTR_EN, 0);
    g_assert_false(qtest_get_irq(t.qts, TGPU_INTX_GSI));
    wr(&t, TGPU_PMC_INTR_EN, TGPU_INTR_FIFO | TGPU_INTR_NONSTALL);
    g_assert_true(qtest_get_irq(t.qts, TGPU_INTX_GSI));
    err_ack(&t, 1);
    g_assert_false(qtest_get_irq(t.qts, TGPU_INTX_GSI));

    /* non-stall: up until acknowledged */
    wr(&t, TGPU_FIFO_NONSTALL_INTR_EN, 1);
    nonstall(&t, c, 1);
    g_assert_true(qtest_get_irq(t.qts, TGPU_INTX_GSI));
    wr(&t, TGPU_FIFO_NONSTALL_INTR, 1);
    g_assert_false(qtest_get_irq(t.qts, TGPU_INTX_GSI));

    /* a refused runlist, too */
    wr(&t, TGPU_FIFO_INTR_EN,
       TGPU_FIFO_INTR_CHAN_ERROR | TGPU_FIFO_INTR_RUNLIST);
    g_assert_false(qtest_get_irq(t.qts, TGPU_INTX_GSI));
    runlist_submit(&t, TGPU_RUNLIST_CE1, (const uint32_t[]){ 5, 5 }, 2);
    g_assert_true(qtest_get_irq(t.qts, TGPU_INTX_GSI));
    wr(&t, TGPU_FIFO_INTR, TGPU_FIFO_INTR_RUNLIST);
    g_assert_false(qtest_get_irq(t.qts, TGPU_INTX_GSI));
    tgpu_stop(&t);
}

/*
 * ======================================================================
 * 10. PTIMER, channel count, channel registers
 */

static void test_ptimer(void)
{
    uint64_t now, t0, t1;
    uint32_t lo, hi;
    T t;

    tgpu_start(&t, NULL);
    now = vclock(&t);
    g_assert_cmpuint(ptimer(&t), ==, now);
    g_assert_cmpuint(qpci_io_readq(t.dev, t.bar0, TGPU_PTIMER_TIME_0), ==,
                     now);

    /* it advances exactly with the virtual clock */
    now = qtest_clock_step(t.qts, 12345);
    g_assert_cmpuint(ptimer(&t), ==, now);
    t0 = ptimer(&t);
    t1 = ptimer(&t);
    g_assert_cmpuint(t0, ==, t1);

    /* TIME_0 latches TIME_1 */
    lo = rd(&t, TGPU_PTIMER_TIME_0);
    hi = rd(&t, TGPU_PTIMER_TIME_1);
    g_assert_cmpuint((uint64_t)hi << 32 | lo, ==, now);
    now = qtest_clock_step(t.qts, (1ll << 32) + 99);
    g_assert_cmpuint(rd(&t, TGPU_PTIMER_TIME_1), ==, hi);
    g_assert_cmpuint(rd(&t, TGPU_PTIMER_TIME_0), ==, (uint32_t)now);
    g_assert_cmpuint(rd(&t, TGPU_PTIMER_TIME_1), ==, now >> 32);
    g_assert_cmpuint(now >> 32, >, hi);

    /* the usermode copy is the same timer, with its own latch */
    hi = rd(&t, TGPU_PTIMER_TIME_1);
    now = qtest_clock_step(t.qts, 1ll << 32);
    rd(&t, TGPU_USERMODE_TIME_0);
    g_assert_cmpuint(rd(&t, TGPU_PTIMER_TIME_1), ==, hi);
    lo = rd(&t, TGPU_USERMODE_TIME_0);
    hi = rd(&t, TGPU_USERMODE_TIME_1);
    g_assert_cmpuint((uint64_t)hi << 32 | lo, ==, now);
    now = qtest_clock_step(t.qts, 3ll << 32);
    g_assert_cmpuint(rd(&t, TGPU_USERMODE_TIME_1), ==, hi);
    lo = rd(&t, TGPU_USERMODE_TIME_0);
    hi = rd(&t, TGPU_USERMODE_TIME_1);
    g_assert_cmpuint((uint64_t)hi << 32 | lo, ==, now);
    g_assert_cmpuint(ptimer(&t), ==, now);

    /* read-only */
    wr(&t, TGPU_PTIMER_TIME_0, 0);
    wr(&t, TGPU_PTIMER_TIME_1, 0);
    wr(&t, TGPU_USERMODE_TIME_0, 0);
    g_assert_cmpuint(ptimer(&t), ==, now);

    /* the usermode page holds nothing else */
    g_assert_cmphex(rd(&t, TGPU_USERMODE_BASE), ==, TGPU_REG_BADF);
    g_assert_cmphex(rd(&t, TGPU_USERMODE_BASE + 0x100), ==, TGPU_REG_BADF);
    tgpu_stop(&t);
}

static void check_channel_count(T *t, uint32_t n)
{
    g_assert_cmpuint(rd(t, TGPU_PMC_CHANNELS), ==, n);
    for (uint32_t reg = 0; reg < TGPU_CHAN_STRIDE; reg += 4) {
        g_assert_cmphex(crd(t, n, reg), ==, TGPU_REG_BADF);
    }
    g_assert_cmphex(crd(t, n - 1, TGPU_CHAN_STATUS), ==, 0);
    g_assert_cmphex(crd(t, n - 1, TGPU_CHAN_ERROR), ==, 0);
    cwr(t, n, TGPU_CHAN_INST, 0x10);
    cwr(t, n, TGPU_CHAN_CTRL, TGPU_CHAN_CTRL_ENABLE);
    g_assert_cmphex(crd(t, n, TGPU_CHAN_INST), ==, TGPU_REG_BADF);
    g_assert_cmphex(crd(t, n - 1, TGPU_CHAN_INST), ==, 0);
}

static void test_channels_property(void)
{
    g_autofree PB *pb = pb_new();
    const uint32_t eight[] = { 0, 1, 2, 3, 4, 5, 6, 7, 8 };
    T t;
    Chan *c;

    tgpu_start(&t, NULL);
    check_channel_count(&t, TGPU_CHANNELS_DEFAULT);
    tgpu_stop(&t);

    tgpu_start(&t, "channels=8");
    check_channel_count(&t, 8);
    /* the count bounds doorbells and runlists */
    doorbell(&t, 8);
    settle(&t);
    g_assert_cmpuint(rd(&t, TGPU_FIFO_DOORBELLS_BAD), ==, 1);
    g_assert_cmphex(runlist_submit(&t, 0, eight, 9) &
                    TGPU_RUNLIST_STATUS_ERROR, ==,
                    TGPU_RUNLIST_STATUS_ERROR);
    wr(&t, TGPU_FIFO_INTR, TGPU_FIFO_INTR_RUNLIST);
    g_assert_cmphex(runlist_submit(&t, 0, eight + 1, 8) &
                    TGPU_RUNLIST_STATUS_ERROR, ==,
                    TGPU_RUNLIST_STATUS_ERROR);
    wr(&t, TGPU_FIFO_INTR, TGPU_FIFO_INTR_RUNLIST);
    runlist_set(&t, 0, eight, 8);
    c = chan_up(&t, 7);
    pb_release(pb, L_SEM, 7);
    run(&t, c, pb);
    g_assert_cmpuint(pa_rd32(&t, L_SEM), ==, 7);
    tgpu_stop(&t);

    tgpu_start(&t, "channels=512");
    check_channel_count(&t, TGPU_CHANNELS_MAX);
    g_assert_cmphex(rd(&t, TGPU_FIFO_ERR_PENDING(TGPU_CHANNELS_MAX / 32 - 1)),
                    ==, 0);
    tgpu_stop(&t);

    tgpu_start(&t, "channels=1");
    check_channel_count(&t, 1);
    tgpu_stop(&t);
}

static void test_channels_bad(void)
{
    static const int64_t bad[] = { 0, 513, 100000 };
    QTestState *qts = qtest_init("-M q35 -nodefaults "
                                 "-device pcie-root-port,id=rp0,slot=1");

    for (size_t i = 0; i < ARRAY_SIZE(bad); i++) {
        QDict *args = qdict_new();
        QDict *resp;

        qdict_put_str(args, "driver", "tgpu");
        qdict_put_str(args, "bus", "rp0");
        qdict_put_int(args, "channels", bad[i]);
        resp = qtest_qmp(qts, "{'execute': 'device_add', 'arguments': %p}",
                         args);
        g_assert_nonnull(qdict_get_qdict(resp, "error"));
        qobject_unref(resp);
    }
    qtest_quit(qts);
}

/* Channel register access rules. */
static void test_channel_registers(void)
{
    T t;

    tgpu_start(&t, NULL);
    for (int ch = 0; ch < (int)t.nch; ch += 21) {
        g_assert_cmphex(crd(&t, ch, TGPU_CHAN_INST), ==, 0);
        g_assert_cmphex(crd(&t, ch, TGPU_CHAN_CTRL), ==, 0);
        g_assert_cmphex(crd(&t, ch, TGPU_CHAN_STATUS), ==, 0);
        g_assert_cmphex(crd(&t, ch, TGPU_CHAN_GP_GET), ==, 0);
        g_assert_cmphex(crd(&t, ch, TGPU_CHAN_GP_PUT), ==, 0);
        g_assert_cmphex(crd(&t, ch, TGPU_CHAN_PB_LO), ==, 0);
        g_assert_cmphex(crd(&t, ch, TGPU_CHAN_PB_HI), ==, 0);
        g_assert_cmphex(crd(&t, ch, TGPU_CHAN_ERROR), ==, 0);
        g_assert_cmphex(crd(&t, ch, TGPU_CHAN_ERROR_INFO), ==, 0);
        /* past ERROR_INFO, the block is unimplemented */
        g_assert_cmphex(crd(&t, ch, TGPU_CHAN_ERROR_INFO + 4), ==,
                        TGPU_REG_BADF);
    }
    /* INST is read/write; the rest of the status is read-only */
    cwr(&t, 5, TGPU_CHAN_INST, 0x123);
    g_assert_cmphex(crd(&t, 5, TGPU_CHAN_INST), ==, 0x123);
    g_assert_cmphex(crd(&t, 6, TGPU_CHAN_INST), ==, 0);
    for (uint32_t reg = TGPU_CHAN_STATUS; reg <= TGPU_CHAN_ERROR_INFO;
         reg += 4) {
        cwr(&t, 5, reg, 0x5);
        g_assert_cmphex(crd(&t, 5, reg), ==, 0);
    }
    /* KILL and RESET read as 0 */
    cwr(&t, 5, TGPU_CHAN_CTRL, TGPU_CHAN_CTRL_RESET);
    g_assert_cmphex(crd(&t, 5, TGPU_CHAN_CTRL), ==, 0);

    /* the FIFO counters are read-only */
    wr(&t, TGPU_FIFO_DOORBELLS, 5);
    wr(&t, TGPU_FIFO_DOORBELLS_BAD, 5);
    wr(&t, TGPU_FIFO_CTXSW_COUNT, 5);
    wr(&t, TGPU_FIFO_ERR_CHID, 5);
    wr(&t, TGPU_PMC_INTR, 5);
    g_assert_cmphex(rd(&t, TGPU_FIFO_DOORBELLS), ==, 0);
    g_assert_cmphex(rd(&t, TGPU_FIFO_DOORBELLS_BAD), ==, 0);
    g_assert_cmphex(rd(&t, TGPU_FIFO_CTXSW_COUNT), ==, 0);
    g_assert_cmphex(rd(&t, TGPU_FIFO_ERR_CHID), ==, 0xffffffff);
    g_assert_cmphex(rd(&t, TGPU_PMC_INTR), ==, 0);
    /* the enables are read/write */
    wr(&t, TGPU_PMC_INTR_EN, TGPU_INTR_FIFO);
    wr(&t, TGPU_FIFO_INTR_EN, TGPU_FIFO_INTR_CHAN_ERROR);
    wr(&t, TGPU_FIFO_NONSTALL_INTR_EN, 1);
    g_assert_cmphex(rd(&t, TGPU_PMC_INTR_EN), ==, TGPU_INTR_FIFO);
    g_assert_cmphex(rd(&t, TGPU_FIFO_INTR_EN), ==,
                    TGPU_FIFO_INTR_CHAN_ERROR);
    g_assert_cmphex(rd(&t, TGPU_FIFO_NONSTALL_INTR_EN), ==, 1);
    tgpu_stop(&t);
}

int main(int argc, char **argv)
{
    g_test_init(&argc, &argv, NULL);

    qtest_add_func("/tgpu/channel/release/basic", test_release);
    qtest_add_func("/tgpu/channel/release/sysmem", test_release_sysmem);
    qtest_add_func("/tgpu/channel/release/wrap", test_release_wrap);
    qtest_add_func("/tgpu/channel/acquire/by-release",
                   test_acquire_by_release);
    qtest_add_func("/tgpu/channel/acquire/cross-engine",
                   test_acquire_cross_engine);
    qtest_add_func("/tgpu/channel/acquire/cpu", test_acquire_cpu);
#ifdef CONFIG_LINUX
    qtest_add_func("/tgpu/channel/acquire/idle-after",
                   test_acquire_idle_after);
#endif
    qtest_add_func("/tgpu/channel/acquire/compare", test_acquire_compare);
    qtest_add_func("/tgpu/channel/acquire/disable", test_acquire_disable);
    qtest_add_func("/tgpu/channel/acquire/timeout", test_acquire_timeout);
    for (size_t i = 0; i < ARRAY_SIZE(sched_cases); i++) {
        g_autofree char *path =
            g_strdup_printf("/tgpu/channel/sched/%s", sched_cases[i].name);

        qtest_add_data_func(path, &sched_cases[i], test_sched);
    }
    qtest_add_func("/tgpu/channel/sched/blocked", test_sched_blocked);
    qtest_add_func("/tgpu/channel/doorbell/garbage", test_doorbell_garbage);
    qtest_add_func("/tgpu/channel/error/instance", test_err_instance);
    qtest_add_func("/tgpu/channel/error/fetch", test_err_fetch);
    qtest_add_func("/tgpu/channel/error/method", test_err_method);
    qtest_add_func("/tgpu/channel/error/semaphore", test_err_semaphore);
    qtest_add_func("/tgpu/channel/error/reset-kill", test_err_reset_kill);
    qtest_add_func("/tgpu/channel/error/reporting", test_err_reporting);
    qtest_add_func("/tgpu/channel/hostile/self-ring",
                   test_hostile_self_ring);
    qtest_add_func("/tgpu/channel/hostile/huge", test_hostile_huge);
    qtest_add_func("/tgpu/channel/hostile/gp-put", test_hostile_gp_put);
    qtest_add_func("/tgpu/channel/hostile/many", test_hostile_many);
    qtest_add_func("/tgpu/channel/hostile/self-dma", test_hostile_self_dma);
    qtest_add_func("/tgpu/channel/hostile/ecam", test_hostile_ecam);
    qtest_add_func("/tgpu/channel/hostile/class-moved",
                   test_hostile_class_moved);
    qtest_add_func("/tgpu/channel/hostile/no-bus-master",
                   test_hostile_no_bus_master);
    qtest_add_func("/tgpu/channel/reset/channel", test_reset_channel);
    qtest_add_func("/tgpu/channel/reset/system", test_reset_system);
    qtest_add_func("/tgpu/channel/reset/flr", test_reset_flr);
    qtest_add_func("/tgpu/channel/reset/engine", test_reset_engine);
    qtest_add_func("/tgpu/channel/runlist", test_runlist);
    qtest_add_func("/tgpu/channel/irq/msix", test_msix);
    qtest_add_func("/tgpu/channel/irq/intx", test_intx);
    qtest_add_func("/tgpu/channel/ptimer", test_ptimer);
    qtest_add_func("/tgpu/channel/channels", test_channels_property);
    qtest_add_func("/tgpu/channel/channels-bad", test_channels_bad);
    qtest_add_func("/tgpu/channel/registers", test_channel_registers);

    return g_test_run();
}
