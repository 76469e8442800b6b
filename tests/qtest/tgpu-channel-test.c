/*
 * QTest testcase for the tgpu device core: channels, GPFIFO and
 * pushbuffer fetch, semaphore releases and acquires, scheduling and the
 * doorbell, as docs/hw/channels.md specifies them.  tgpu-channel.h has
 * the layout the channel tests share.
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
#include "tgpu-channel.h"

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

    pa_wr32(&t, L.sem + 0x04, 0xa5a5a5a5);     /* guard */
    pa_wr32(&t, L.sem + 0x24, 0xa5a5a5a5);     /* guard */
    pa_wr64(&t, L.sem + 0x10, 0);

    /* entry 0: the plain forms */
    pb_m(pb, 0, TGPU_M_SET_OBJECT, TGPU_CLASS_COMPUTE);
    pb_release(pb, L.sem, 0xcafef00d);
    pb_sem(pb, L.sem + 0x10, 0x1122334455667788ull,
           TGPU_SEM_OP_RELEASE | TGPU_SEM_PAYLOAD_64);
    pb_sem(pb, L.sem + 0x20, 0x600d,
           TGPU_SEM_OP_RELEASE | TGPU_SEM_TIMESTAMP);
    pb_sem(pb, SYS(G.sem), 0xfeedfacecafebeefull,
           TGPU_SEM_OP_RELEASE | TGPU_SEM_PAYLOAD_64 | TGPU_SEM_TIMESTAMP |
           TGPU_SEM_RELEASE_WFI);
    pb_release(pb, SYS(G.sem + 0x20), 0x1234);
    /* methods that are accepted and change nothing visible here */
    pb_m(pb, 5, TGPU_M_NOP, 0);
    pb_m(pb, 0, TGPU_M_WFI, 0);
    pb_mem_op(pb, 0, 0, TGPU_MEM_OP_MEMBAR);
    pb_mem_op(pb, 0, 0, TGPU_MEM_OP_TLB_INVALIDATE);
    pb_mem_op(pb, 0x10, 4, TGPU_MEM_OP_TLB_INVALIDATE_RANGE);
    pb_release(pb, L.sem + 0x30, 1);
    chan_push(&t, c, pb);

    /*
     * entry 1: every header opcode.  A count-0 header does nothing;
     * NON_INC sends all data to one method; ONE_INC the first dword to
     * the method, the rest to the next; IMMD carries its data inline.
     */
    pb->n = 0;
    pb_hdr(pb, TGPU_PB_OP_INC, 0, TGPU_M_SEM_ADDR_LO, 2);
    pb_dw(pb, L.sem + 0x40);
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
    pb_dw(pb, L.sem + 0x50);
    pb_immd(pb, TGPU_M_SEM_PAYLOAD_LO, 0x1abc);
    pb_immd(pb, TGPU_M_SEM_EXECUTE, TGPU_SEM_OP_RELEASE);
    chan_push(&t, c, pb);

    /* entries 2 and 3: a method's data continues in the next segment */
    pb->n = 0;
    pb_hdr(pb, TGPU_PB_OP_INC, 0, TGPU_M_SEM_ADDR_LO, 5);
    pb_dw(pb, L.sem + 0x60);
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
    pb_release(pb, L.sem + 0x70, 0x7070);
    seg = chan_seg(&t, c, pb->dw, pb->n);
    chan_gp(&t, c, TGPU_GP_ENTRY(seg, pb->n, 1));
    last_seg = seg;
    last_len = pb->n;

    g_assert_cmpuint(c->put, ==, 6);
    chan_kick(&t, c);
    wait_done(&t, c);

    g_assert_cmphex(pa_rd32(&t, L.sem), ==, 0xcafef00d);
    g_assert_cmphex(pa_rd32(&t, L.sem + 0x04), ==, 0xa5a5a5a5);
    g_assert_cmphex(pa_rd64(&t, L.sem + 0x10), ==, 0x1122334455667788ull);
    g_assert_cmphex(pa_rd32(&t, L.sem + 0x20), ==, 0x600d);
    g_assert_cmphex(pa_rd32(&t, L.sem + 0x24), ==, 0xa5a5a5a5);
    g_assert_cmpuint(pa_rd64(&t, L.sem + 0x28), ==, now);
    g_assert_cmphex(pa_rd64(&t, SYS(G.sem)), ==, 0xfeedfacecafebeefull);
    g_assert_cmpuint(pa_rd64(&t, SYS(G.sem + 8)), ==, now);
    g_assert_cmphex(pa_rd32(&t, SYS(G.sem + 0x20)), ==, 0x1234);
    g_assert_cmphex(pa_rd32(&t, L.sem + 0x30), ==, 1);
    g_assert_cmphex(pa_rd32(&t, L.sem + 0x40), ==, 0x3333);
    g_assert_cmphex(pa_rd32(&t, L.sem + 0x50), ==, 0x1abc);
    g_assert_cmphex(pa_rd32(&t, L.sem + 0x60), ==, 0x6060);
    g_assert_cmphex(pa_rd32(&t, L.sem + 0x70), ==, 0x7070);
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

    pb_release(pb, L.sem, 0x5151);
    pb_sem(pb, SYS(G.sem + 0x40), 0x4242,
           TGPU_SEM_OP_RELEASE | TGPU_SEM_TIMESTAMP);
    seg = chan_push(&t, c, pb);
    chan_kick(&t, c);
    wait_done(&t, c);

    g_assert_cmphex(pa_rd32(&t, L.sem), ==, 0x5151);
    g_assert_cmphex(qtest_readl(t.qts, G.sem + 0x40), ==, 0x4242);
    g_assert_cmpuint(qtest_readq(t.qts, G.sem + 0x48), ==, now);
    g_assert_cmpuint(qtest_readl(t.qts, G.userd + TGPU_USERD_GP_GET), ==, 1);
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
        pb_release(pb, L.sem, i);
        run(&t, c, pb);
        g_assert_cmpuint(pa_rd32(&t, L.sem), ==, i);
        g_assert_cmpuint(crd(&t, 2, TGPU_CHAN_GP_GET), ==, i % 4);
        g_assert_cmpuint(pa_rd32(&t, c->userd + TGPU_USERD_GP_GET), ==,
                         i % 4);
    }

    /* three entries at once, crossing the end of the ring */
    for (uint32_t i = 11; i <= 13; i++) {
        pb->n = 0;
        pb_release(pb, L.sem + 4 * i, i);
        chan_push(&t, c, pb);
    }
    chan_kick(&t, c);
    wait_done(&t, c);
    for (uint32_t i = 11; i <= 13; i++) {
        g_assert_cmpuint(pa_rd32(&t, L.sem + 4 * i), ==, i);
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

    pb_acquire(pb, L.sem, 5);
    pb_release(pb, L.sem + 0x10, 0xa1);
    submit_blocked(&t, a, pb);
    g_assert_cmpuint(pa_rd32(&t, L.sem + 0x10), ==, 0);

    /* a release of another value does not satisfy it; B is not held up */
    run_release(&t, b, L.sem, 4);
    settle(&t);
    g_assert_cmpuint(chan_state(&t, 1), ==, TGPU_CHAN_STATE_BLOCKED);
    g_assert_cmpuint(pa_rd32(&t, L.sem + 0x10), ==, 0);

    /* the right value: A completes */
    run_release(&t, b, L.sem, 5);
    wait_done(&t, a);
    g_assert_cmphex(pa_rd32(&t, L.sem + 0x10), ==, 0xa1);
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
    pb_acquire(pb, L.sem, 5);
    submit_blocked(&t, a, pb);
    run_release(&t, b, L.sem, 5);
    wait_done(&t, a);
    assert_main_thread_idle(&t, 300);

    /* A waits again, then leaves the runlist: nothing can retry it */
    pb->n = 0;
    pb_acquire(pb, L.sem, 6);
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
        pb_acquire(pb, L.sem + 0x100 + 8 * i, 1);
        pb_release(pb, L.sem + 0x104 + 8 * i, 0xa0 + i);
        submit_blocked(&t, w, pb);
        run_release(&t, r, L.sem + 0x100 + 8 * i, 1);
        wait_done(&t, w);
        g_assert_cmphex(pa_rd32(&t, L.sem + 0x104 + 8 * i), ==, 0xa0 + i);
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
    pb_acquire(pb, L.sem, 7);
    pb_release(pb, L.sem + 0x10, 1);
    submit_blocked(&t, a, pb);
    pa_wr32(&t, L.sem, 7);
    settle(&t);
    /* no poll without virtual time passing */
    g_assert_cmpuint(chan_state(&t, 1), ==, TGPU_CHAN_STATE_BLOCKED);
    g_assert_cmpuint(pa_rd32(&t, L.sem + 0x10), ==, 0);
    poll_done(&t, a);
    g_assert_cmpuint(pa_rd32(&t, L.sem + 0x10), ==, 1);

    /* in guest RAM */
    pb->n = 0;
    pb_acquire(pb, SYS(G.sem), 0x99);
    pb_release(pb, L.sem + 0x10, 2);
    submit_blocked(&t, a, pb);
    poll_blocked(&t, a);
    qtest_writel(t.qts, G.sem, 0x99);
    poll_done(&t, a);
    g_assert_cmpuint(pa_rd32(&t, L.sem + 0x10), ==, 2);

    /* a doorbell for the channel retries it at once, without time */
    pb->n = 0;
    pb_acquire(pb, L.sem + 0x20, 3);
    pb_release(pb, L.sem + 0x10, 3);
    submit_blocked(&t, a, pb);
    pa_wr32(&t, L.sem + 0x20, 3);
    bells = rd(&t, TGPU_FIFO_DOORBELLS);
    doorbell(&t, 1);
    wait_done(&t, a);
    g_assert_cmpuint(pa_rd32(&t, L.sem + 0x10), ==, 3);
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
    pa_wr32(&t, L.sem, 0x80000000);
    pb_acq_geq(pb, L.sem, 1);           /* unsigned: 0x80000000 >= 1 */
    pb_acq_geq(pb, L.sem, 0x80000000);  /* equal */
    pb_acquire(pb, L.sem, 0x80000000);
    pb_release(pb, L.sem + 0x10, 1);
    run(&t, a, pb);
    g_assert_cmpuint(pa_rd32(&t, L.sem + 0x10), ==, 1);

    /* GEQ: waits while below, a larger value satisfies it */
    pa_wr32(&t, L.sem, 10);
    pb->n = 0;
    pb_acq_geq(pb, L.sem, 11);
    pb_release(pb, L.sem + 0x10, 2);
    submit_blocked(&t, a, pb);
    poll_blocked(&t, a);
    pa_wr32(&t, L.sem, 12);
    poll_done(&t, a);
    g_assert_cmpuint(pa_rd32(&t, L.sem + 0x10), ==, 2);

    /* equality: a larger value does not do */
    pb->n = 0;
    pb_acquire(pb, L.sem, 11);
    pb_release(pb, L.sem + 0x10, 3);
    submit_blocked(&t, a, pb);
    poll_blocked(&t, a);
    pa_wr32(&t, L.sem, 11);
    poll_done(&t, a);
    g_assert_cmpuint(pa_rd32(&t, L.sem + 0x10), ==, 3);

    /* 64-bit: the high half counts */
    pa_wr64(&t, L.sem + 0x20, 0x100000005ull);
    pb->n = 0;
    pb_sem(pb, L.sem + 0x20, 5, TGPU_SEM_OP_ACQUIRE | TGPU_SEM_PAYLOAD_64);
    pb_release(pb, L.sem + 0x10, 4);
    submit_blocked(&t, a, pb);
    pa_wr64(&t, L.sem + 0x20, 5);
    poll_done(&t, a);
    g_assert_cmpuint(pa_rd32(&t, L.sem + 0x10), ==, 4);

    /* 64-bit GEQ: 0x1_00000000 >= 0xffffffff, unlike its low half */
    pa_wr64(&t, L.sem + 0x20, 0x0ffffffffull);
    pb->n = 0;
    pb_sem(pb, L.sem + 0x20, 0x100000000ull,
           TGPU_SEM_OP_ACQ_GEQ | TGPU_SEM_PAYLOAD_64);
    pb_release(pb, L.sem + 0x10, 5);
    submit_blocked(&t, a, pb);
    pa_wr64(&t, L.sem + 0x20, 0x100000000ull);
    poll_done(&t, a);
    g_assert_cmpuint(pa_rd32(&t, L.sem + 0x10), ==, 5);

    /* 32-bit: only the low word is compared (high word is not ours) */
    pa_wr64(&t, L.sem + 0x30, 0xdead000000000009ull);
    pb->n = 0;
    pb_acquire(pb, L.sem + 0x30, 9);
    pb_release(pb, L.sem + 0x10, 6);
    run(&t, a, pb);
    g_assert_cmpuint(pa_rd32(&t, L.sem + 0x10), ==, 6);
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

    pb_release(pb, L.sem + 0x10, 1);
    pb_acquire(pb, L.sem, 1);
    pb_release(pb, L.sem + 0x10, 2);
    submit_blocked(&t, a, pb);
    g_assert_cmpuint(pa_rd32(&t, L.sem + 0x10), ==, 1);

    cwr(&t, 1, TGPU_CHAN_CTRL, 0);
    wait_state(&t, 1, TGPU_CHAN_STATE_DISABLED);
    g_assert_cmpuint(crd(&t, 1, TGPU_CHAN_GP_GET), ==, 1);

    /* disabled: the acquire is not retried, doorbells are refused */
    pa_wr32(&t, L.sem, 1);
    step(&t, 3 * TGPU_ACQUIRE_POLL_NS);
    doorbell(&t, 1);
    settle(&t);
    g_assert_cmpuint(chan_state(&t, 1), ==, TGPU_CHAN_STATE_DISABLED);
    g_assert_cmpuint(pa_rd32(&t, L.sem + 0x10), ==, 1);
    g_assert_cmpuint(rd(&t, TGPU_FIFO_DOORBELLS_BAD), ==, 1);

    /* enable again: it continues where it stopped */
    chan_enable(&t, a);
    doorbell(&t, 1);
    poll_done(&t, a);
    g_assert_cmpuint(pa_rd32(&t, L.sem + 0x10), ==, 2);
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
    msix_setup(&t, true);
    wr(&t, TGPU_FIFO_INTR_EN, TGPU_FIFO_INTR_CHAN_ERROR);
    wr(&t, TGPU_PMC_INTR_EN, TGPU_INTR_FIFO);

    a = chan_cfg(&t, 3);
    a->acq_to_us = 100;
    chan_up_cfg(&t, a);
    b = chan_up(&t, 4);

    pb_acquire(pb, L.sem + 0x40, 1);
    pb_release(pb, L.sem + 0x10, 1);
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
    run_release(&t, b, L.sem + 0x20, 0xb0);

    /* past it */
    step(&t, TGPU_ACQUIRE_POLL_NS + 1);
    wait_state(&t, 3, TGPU_CHAN_STATE_ERROR);
    g_assert_cmpuint(crd(&t, 3, TGPU_CHAN_ERROR), ==,
                     TGPU_ERR_ACQUIRE_TIMEOUT);
    g_assert_cmphex(crd(&t, 3, TGPU_CHAN_ERROR_INFO), ==, L.sem + 0x40);
    g_assert_true(err_pending(&t, 3));
    g_assert_cmpuint(rd(&t, TGPU_FIFO_ERR_CHID), ==, 3);
    g_assert_cmpuint(rd(&t, TGPU_FIFO_ERR_CODE), ==,
                     TGPU_ERR_ACQUIRE_TIMEOUT);
    g_assert_cmphex(rd(&t, TGPU_FIFO_ERR_INFO), ==, L.sem + 0x40);
    g_assert_cmphex(rd(&t, TGPU_FIFO_INTR), ==, TGPU_FIFO_INTR_CHAN_ERROR);
    g_assert_cmphex(rd(&t, TGPU_PMC_INTR), ==, TGPU_INTR_FIFO);
    g_assert_true(qpci_msix_pending(t.dev, TGPU_MSIX_VEC_STALL));
    g_assert_false(qpci_msix_pending(t.dev, TGPU_MSIX_VEC_NONSTALL));
    g_assert_cmpuint(pa_rd32(&t, L.sem + 0x10), ==, 0);

    /* the semaphore arriving late changes nothing */
    pa_wr32(&t, L.sem + 0x40, 1);
    step(&t, TGPU_ACQUIRE_POLL_NS);
    g_assert_cmpuint(chan_state(&t, 3), ==, TGPU_CHAN_STATE_ERROR);
    g_assert_cmpuint(pa_rd32(&t, L.sem + 0x10), ==, 0);

    /* no timeout configured: blocked for (virtual) ever */
    pb->n = 0;
    pb_acquire(pb, L.sem + 0x50, 1);
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
    const uint32_t rl[] = { 1, 2 }, rl_ce0[] = { 16 };
    uint64_t gate, shared;
    uint32_t base;
    T t;
    Chan *a, *b, *g;

    chan_start(&t, NULL);
    gate = L.sem + 0x100;
    shared = L.sem + 0x110;
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
    run_release(&t, g, L.sem + 0x120, 1);

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

    pb_acquire(pb, L.sem, 1);
    pb_release(pb, L.sem + 0x10, 0xaa);
    submit_blocked(&t, a, pb);

    for (uint32_t i = 1; i <= 5; i++) {
        run_release(&t, b, L.sem + 0x20, i);
        poll_blocked(&t, a);
    }
    /* a long job on B while A polls */
    pb->n = 0;
    pb_nops(pb, 4000);
    pb_release(pb, L.sem + 0x20, 0xbb);
    submit(&t, b, pb);
    poll_done(&t, b);
    g_assert_cmphex(pa_rd32(&t, L.sem + 0x20), ==, 0xbb);

    pa_wr32(&t, L.sem, 1);
    poll_done(&t, a);
    g_assert_cmphex(pa_rd32(&t, L.sem + 0x10), ==, 0xaa);
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

    chan_start(&t, NULL);
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
    pb_release(pb, L.sem + 0x70, 7);
    submit(&t, k, pb);
    bad++;
    settle(&t);
    g_assert_cmpuint(rd(&t, TGPU_FIFO_DOORBELLS_BAD), ==, bad);
    g_assert_cmpuint(rd(&t, TGPU_FIFO_DOORBELLS), ==, 0);
    g_assert_cmpuint(pa_rd32(&t, L.sem + 0x70), ==, 0);
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
    pb_release(pb, L.sem + 0x80, 8);
    submit(&t, off, pb);
    settle(&t);
    g_assert_cmpuint(rd(&t, TGPU_FIFO_DOORBELLS), ==, 2);
    g_assert_cmpuint(crd(&t, 40, TGPU_CHAN_GP_GET), ==, 0);
    g_assert_cmphex(crd(&t, 40, TGPU_CHAN_STATUS) & TGPU_CHAN_STATE_MASK,
                    ==, TGPU_CHAN_STATE_PENDING);
    g_assert_cmpuint(pa_rd32(&t, L.sem + 0x80), ==, 0);

    /* the device still works */
    run_release(&t, c, L.sem, 0x600d);
    g_assert_cmpuint(rd(&t, TGPU_FIFO_DOORBELLS), ==, 3);
    g_assert_cmpuint(rd(&t, TGPU_FIFO_DOORBELLS_BAD), ==, bad);
    g_assert_cmphex(rd(&t, TGPU_PMC_MAGIC), ==, TGPU_MAGIC);
    assert_no_error_pending(&t);
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

    return g_test_run();
}
