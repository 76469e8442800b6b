/*
 * QTest testcase for the tgpu device core: channel, engine and device
 * reset, runlists, interrupts (MSI-X and INTx), PTIMER, the channel
 * count and the channel registers, as docs/hw/channels.md specifies
 * them.  tgpu-channel.h has the layout the channel tests share.
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
    pb_release(pb, L.sem + 0x10, 1);
    pb_acquire(pb, L.sem, 1);
    pb_release(pb, L.sem + 0x10, 2);
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
    g_assert_cmpuint(pa_rd32(&t, L.sem + 0x10), ==, 1);
    /* no semaphore state: the acquire is gone */
    pa_wr32(&t, L.sem, 1);
    step(&t, 3 * TGPU_ACQUIRE_POLL_NS);
    g_assert_cmpuint(pa_rd32(&t, L.sem + 0x10), ==, 1);

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
    run_release(&t, c, L.sem + 0x20, 0x20);

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
    run_release(&t, c, L.sem + 0x20, 0x21);
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
    qtest_writel(t->qts, G.sem, 1);
    v = pa_rd32(t, busy_get);
    step(t, 5 * TGPU_ACQUIRE_POLL_NS);
    settle(t);
    g_assert_cmphex(qtest_readl(t->qts, G.sem + 4), ==, 0);
    g_assert_cmphex(pa_rd32(t, busy_get), ==, v);
    g_assert_cmphex(crd(t, busy->id, TGPU_CHAN_GP_GET), ==, 0);
    g_assert_cmphex(crd(t, blocked->id, TGPU_CHAN_STATUS), ==, 0);

    runlists_std(t);
    run_release(t, chan_up(t, 0), L.sem, 0x600d);
}

/*
 * Start the device with a blocked channel and a long job in flight, an
 * error, counters.
 */
static void tgpu_start_dirty(T *t, Chan **blocked, Chan **busy)
{
    g_autofree PB *pb = pb_new();
    Chan *a, *z, *e;

    chan_start(t, NULL);
    qtest_writel(t->qts, G.sem, 0);
    qtest_writel(t->qts, G.sem + 4, 0);
    runlists_std(t);
    enable_all_interrupts(t);
    a = chan_up(t, 1);
    pb_acquire(pb, SYS(G.sem), 1);
    pb_release(pb, SYS(G.sem + 4), 0xdead);
    submit_blocked(t, a, pb);

    e = chan_up(t, 2);
    pb->n = 0;
    pb_dw(pb, 0);
    submit(t, e, pb);
    wait_state(t, 2, TGPU_CHAN_STATE_ERROR);
    doorbell(t, 1000);

    z = chan_cfg(t, 17);
    z->log2 = TGPU_GPFIFO_LOG2_MAX;
    z->gpfifo = L.bigring;
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
    run_release(&t, idle, L.sem, 1);

    pb_acquire(pb, L.sem + 0x10, 1);
    pb_release(pb, L.sem + 0x14, 0xdead);
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
    run_release(&t, idle, L.sem, 2);
    pa_wr32(&t, L.sem + 0x10, 1);
    poll_done(&t, ce);
    g_assert_cmphex(pa_rd32(&t, L.sem + 0x14), ==, 0xdead);
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

    chan_start(&t, NULL);
    msix_setup(&t, true);
    enable_all_interrupts(&t);
    for (int r = 0; r < TGPU_NR_RUNLISTS; r++) {
        g_assert_cmphex(rd(&t, TGPU_FIFO_RUNLIST_STATUS(r)), ==, 0);
    }

    /* on no runlist: enabled, accepted, but nothing runs */
    a = chan_up(&t, 1);
    b = chan_up(&t, 2);
    g_assert_cmphex(crd(&t, 1, TGPU_CHAN_STATUS) &
                    TGPU_CHAN_STATUS_ON_RUNLIST, ==, 0);
    pb_release(pb, L.sem, 0xa);
    submit(&t, a, pb);
    settle(&t);
    g_assert_cmpuint(crd(&t, 1, TGPU_CHAN_GP_GET), ==, 0);
    g_assert_cmpuint(pa_rd32(&t, L.sem), ==, 0);
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
    g_assert_cmpuint(pa_rd32(&t, L.sem), ==, 0xa);
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
        run_release(&t, b, L.sem + 4, i + 1);
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
    pb_release(pb, L.sem + 8, 0xc);
    submit(&t, x, pb);
    settle(&t);
    g_assert_cmpuint(pa_rd32(&t, L.sem + 8), ==, 0);
    g_assert_cmpuint(crd(&t, 3, TGPU_CHAN_GP_GET), ==, 0);

    /* an empty list takes channels off */
    runlist_set(&t, TGPU_RUNLIST_COMPUTE, NULL, 0);
    g_assert_cmphex(crd(&t, 1, TGPU_CHAN_STATUS) &
                    TGPU_CHAN_STATUS_ON_RUNLIST, ==, 0);
    pb->n = 0;
    pb_release(pb, L.sem, 0xb);
    submit(&t, a, pb);
    settle(&t);
    g_assert_cmpuint(pa_rd32(&t, L.sem), ==, 0xa);
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
    pb_release(pb, L.sem + 0x80, tag);
    run(t, c, pb);
    g_assert_cmphex(pa_rd32(t, L.sem + 0x80), ==, tag);
    settle(t);
}

static void test_msix(void)
{
    g_autofree PB *pb = pb_new();
    T t;
    Chan *c, *e;

    tgpu_start_std(&t);
    msix_setup(&t, false);
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

    chan_start(&t, NULL);
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

    chan_start(&t, NULL);
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

    chan_start(&t, NULL);
    check_channel_count(&t, TGPU_CHANNELS_DEFAULT);
    tgpu_stop(&t);

    chan_start(&t, "channels=8");
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
    pb_release(pb, L.sem, 7);
    run(&t, c, pb);
    g_assert_cmpuint(pa_rd32(&t, L.sem), ==, 7);
    tgpu_stop(&t);

    chan_start(&t, "channels=512");
    check_channel_count(&t, TGPU_CHANNELS_MAX);
    g_assert_cmphex(rd(&t, TGPU_FIFO_ERR_PENDING(TGPU_CHANNELS_MAX / 32 - 1)),
                    ==, 0);
    tgpu_stop(&t);

    chan_start(&t, "channels=1");
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

    chan_start(&t, NULL);
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
        g_assert_cmphex(crd(&t, ch, TGPU_CHAN_BUSY_NS_LO), ==, 0);
        g_assert_cmphex(crd(&t, ch, TGPU_CHAN_BUSY_NS_HI), ==, 0);
        /* past BUSY_NS_HI, the block is unimplemented */
        g_assert_cmphex(crd(&t, ch, TGPU_CHAN_BUSY_NS_HI + 4), ==,
                        TGPU_REG_BADF);
    }
    /*
     * INST is read/write, GP_GET writable while disabled (the restore
     * test below); the rest of the status is read-only
     */
    cwr(&t, 5, TGPU_CHAN_INST, 0x123);
    g_assert_cmphex(crd(&t, 5, TGPU_CHAN_INST), ==, 0x123);
    g_assert_cmphex(crd(&t, 6, TGPU_CHAN_INST), ==, 0);
    for (uint32_t reg = TGPU_CHAN_STATUS; reg <= TGPU_CHAN_BUSY_NS_HI;
         reg += 4) {
        if (reg == TGPU_CHAN_GP_GET) {
            continue;
        }
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

/*
 * A driver restores a channel after a reset: RESET, INST, GP_GET, enable,
 * doorbell.  Fetching starts at the GP_GET written, up to USERD's GP_PUT;
 * an enabled channel ignores the write.
 */
static void test_restore_gp_get(void)
{
    g_autofree PB *pb = pb_new();
    uint64_t busy;
    T t;
    Chan *c;

    tgpu_start_std(&t);
    c = chan_up(&t, 1);
    /* an entry that blocks, and one behind it */
    pb_acquire(pb, L.sem, 1);
    chan_push(&t, c, pb);
    pb->n = 0;
    pb_release(pb, L.sem + 0x10, 7);
    chan_push(&t, c, pb);
    chan_kick(&t, c);
    wait_state(&t, 1, TGPU_CHAN_STATE_BLOCKED);
    g_assert_cmpuint(crd(&t, 1, TGPU_CHAN_GP_GET), ==, 1);

    /* enabled: ignored */
    cwr(&t, 1, TGPU_CHAN_GP_GET, 0);
    g_assert_cmpuint(crd(&t, 1, TGPU_CHAN_GP_GET), ==, 1);

    chan_reset(&t, 1);
    g_assert_cmpuint(crd(&t, 1, TGPU_CHAN_GP_GET), ==, 0);
    cwr(&t, 1, TGPU_CHAN_INST, c->inst >> 12);
    cwr(&t, 1, TGPU_CHAN_GP_GET, 1);
    g_assert_cmpuint(crd(&t, 1, TGPU_CHAN_GP_GET), ==, 1);
    g_assert_cmpuint(crd(&t, 1, TGPU_CHAN_GP_PUT), ==, 1);
    chan_enable(&t, c);
    /* nothing until the doorbell: GP_PUT is still the written GP_GET */
    step(&t, 3 * TGPU_ACQUIRE_POLL_NS);
    g_assert_cmpuint(pa_rd32(&t, L.sem + 0x10), ==, 0);
    doorbell(&t, 1);
    wait_done(&t, c);
    /* entry 1 ran, entry 0 (the acquire) did not run again */
    g_assert_cmpuint(pa_rd32(&t, L.sem + 0x10), ==, 7);
    g_assert_cmpuint(chan_state(&t, 1), ==, TGPU_CHAN_STATE_IDLE);
    g_assert_cmpuint(crd(&t, 1, TGPU_CHAN_GP_GET), ==, 2);

    /* host methods alone never have an engine: no busy time */
    busy = crd(&t, 1, TGPU_CHAN_BUSY_NS_LO);
    busy |= (uint64_t)crd(&t, 1, TGPU_CHAN_BUSY_NS_HI) << 32;
    g_assert_cmpuint(busy, ==, 0);
    tgpu_stop(&t);
}

int main(int argc, char **argv)
{
    g_test_init(&argc, &argv, NULL);

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
    qtest_add_func("/tgpu/channel/restore", test_restore_gp_get);

    return g_test_run();
}
