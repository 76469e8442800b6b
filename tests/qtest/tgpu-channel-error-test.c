/*
 * QTest testcase for the tgpu device core: channel errors, every code,
 * and hostile input to the host unit, as docs/hw/channels.md specifies
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
 * 6. every error code
 */

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
            c->pdb = L.scratch + TGPU_PDB_ALIGN / 2;
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
            c->pdb = L.scratch;
            c->asid = 0x10000;
            info = TGPU_INST_ASID;
            break;
        case 15:
            c->flags = TGPU_INST_FLAGS_PAGED | TGPU_INST_FLAGS_PRIV;
            c->pdb = L.scratch;
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
        c->gpfifo = i ? L.bigring : c->gpfifo;
        c->prio = TGPU_PRIORITY_MAX;
        c->ts_us = i ? TGPU_TIMESLICE_MAX_US : 1;
        c->acq_to_us = i ? TGPU_ACQ_TIMEOUT_MAX_US : 1;
        chan_up_cfg(&t, c);
        run_release(&t, c, L.sem, 0x1000 + i);
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
        pb_release(pb, L.sem + 0x10, 0x50 + i);
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
        pb_release(pb, L.sem + 0x14, 0xdead);
        chan_push(&t, c, pb);
        chan_kick(&t, c);
        expect_err_after(&t, c, TGPU_ERR_GPFIFO_ENTRY, 1, L.sem + 0x10,
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
        pb_release(pb, L.sem + 0x20, i + 1);
        pb_dw(pb, hdr);
        pb_dw(pb, 0);
        pb_release(pb, L.sem + 0x24, 0xdead);
        submit(&t, c, pb);
        expect_err_after(&t, c, TGPU_ERR_PB_HEADER, hdr, L.sem + 0x20, i + 1);
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
        pb_release(pb, L.sem + 0x10, i + 1);
        pb_m(pb, m->subch, m->method, m->data);
        pb_release(pb, L.sem + 0x14, 0xdead);
        submit(&t, c, pb);
        /* the work before the error ran, nothing after it */
        expect_err_after(&t, c, m->code, m->info, L.sem + 0x10, i + 1);
        check_alive(&t, 0x100 + i);
    }
    tgpu_stop(&t);
}

/* In the static table below, AT_SEM + offset stands for L.sem + offset. */
#define AT_SEM              (1ull << 56)

static uint64_t sem_at(uint64_t v)
{
    return v & AT_SEM ? L.sem + (v & ~AT_SEM) : v;
}

static void test_err_semaphore(void)
{
    static const struct {
        uint64_t addr;
        uint32_t exec;
        uint32_t code;
        uint64_t info;
    } cases[] = {
        /* 11: misaligned for 64 bits, for a timestamp; unreachable */
        { AT_SEM + 4, TGPU_SEM_OP_RELEASE | TGPU_SEM_PAYLOAD_64,
          TGPU_ERR_SEM_FAULT, AT_SEM + 4 },
        { AT_SEM + 8, TGPU_SEM_OP_RELEASE | TGPU_SEM_TIMESTAMP,
          TGPU_ERR_SEM_FAULT, AT_SEM + 8 },
        { AT_SEM + 8, TGPU_SEM_OP_RELEASE | TGPU_SEM_TIMESTAMP |
          TGPU_SEM_PAYLOAD_64, TGPU_ERR_SEM_FAULT, AT_SEM + 8 },
        { AT_SEM + 0x24, TGPU_SEM_OP_ACQUIRE | TGPU_SEM_PAYLOAD_64,
          TGPU_ERR_SEM_FAULT, AT_SEM + 0x24 },
        { VRAM_GAP, TGPU_SEM_OP_RELEASE,
          TGPU_ERR_SEM_FAULT, (uint32_t)VRAM_GAP },
        { VRAM_SIZE, TGPU_SEM_OP_ACQ_GEQ, TGPU_ERR_SEM_FAULT, VRAM_SIZE },
        { SYS(G_UNMAPPED), TGPU_SEM_OP_RELEASE,
          TGPU_ERR_SEM_FAULT, (uint32_t)G_UNMAPPED },
        /* 12 */
        { AT_SEM, 3, TGPU_ERR_SEM_INVALID_OP, 3 },
        { AT_SEM, 7 | TGPU_SEM_PAYLOAD_64, TGPU_ERR_SEM_INVALID_OP,
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
        pb_release(pb, L.sem + 0x40, i + 1);
        pb_sem(pb, sem_at(cases[i].addr), 1, cases[i].exec);
        pb_release(pb, L.sem + 0x44, 0xdead);
        submit(&t, c, pb);
        expect_err_after(&t, c, cases[i].code, sem_at(cases[i].info),
                         L.sem + 0x40, i + 1);
        /* nothing was written at a misaligned address either */
        g_assert_cmphex(pa_rd64(&t, L.sem), ==, 0);
        g_assert_cmphex(pa_rd64(&t, L.sem + 8), ==, 0);
        g_assert_cmphex(pa_rd64(&t, L.sem + 0x10), ==, 0);
    }

    /* 13: a 64-bit GEQ acquire that times out after 10 us */
    c = chan_cfg(&t, 2);
    c->acq_to_us = 10;
    chan_up_cfg(&t, c);
    pb->n = 0;
    pb_sem(pb, SYS(G.sem + 0x10), 1, TGPU_SEM_OP_ACQ_GEQ |
           TGPU_SEM_PAYLOAD_64);
    submit_blocked(&t, c, pb);
    step(&t, 3 * TGPU_ACQUIRE_POLL_NS);
    expect_err(&t, c, TGPU_ERR_ACQUIRE_TIMEOUT, G.sem + 0x10);

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
    msix_setup(&t, true);
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
    pb_acquire(pb, L.sem, 1);
    pb_release(pb, L.sem + 0x10, 0xdead);
    submit_blocked(&t, c, pb);
    chan_kill(&t, 1);
    g_assert_cmpuint(chan_state(&t, 1), ==, TGPU_CHAN_STATE_ERROR);
    g_assert_cmpuint(crd(&t, 1, TGPU_CHAN_ERROR), ==, TGPU_ERR_KILLED);
    pa_wr32(&t, L.sem, 1);
    step(&t, 2 * TGPU_ACQUIRE_POLL_NS);
    g_assert_cmpuint(pa_rd32(&t, L.sem + 0x10), ==, 0);
    assert_no_error_pending(&t);
    g_assert_false(qpci_msix_pending(t.dev, TGPU_MSIX_VEC_STALL));
    chan_reset(&t, 1);

    /* ENGINE_RESET: a blocked channel on compute, and one on CE1 */
    c = chan_up(&t, 2);
    d = chan_up(&t, 24);
    pb->n = 0;
    pb_acquire(pb, L.sem + 0x20, 1);
    pb_release(pb, L.sem + 0x24, 0xdead);
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

    pa_wr32(&t, L.sem + 0x20, 1);
    step(&t, 2 * TGPU_ACQUIRE_POLL_NS);
    g_assert_cmpuint(pa_rd32(&t, L.sem + 0x24), ==, 0);

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
    pb_release(pb, L.sem, 0x1fff);
    run(&t, c, pb);
    g_assert_cmphex(pa_rd32(&t, L.sem), ==, 0x1fff);

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
    chan_gp(&t, c, TGPU_GP_ENTRY((uint64_t)L.scratch,
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

    /*
     * GP_GET written past the ring while disabled: GP_PUT follows it, and
     * both are taken modulo the ring size at the enable.  Were GP_PUT
     * kept, GP_GET would never meet it: the channel would run its ring
     * of NOPs round and round.
     */
    for (size_t i = 0; i < ARRAY_SIZE(puts); i++) {
        uint32_t at = puts[i] & ((1u << GP_LOG2_DEFAULT) - 1);

        c = chan_cfg(&t, 1);
        chan_write(&t, c);
        cwr(&t, 1, TGPU_CHAN_GP_GET, puts[i]);
        g_assert_cmphex(crd(&t, 1, TGPU_CHAN_GP_PUT), ==, puts[i]);
        chan_enable(&t, c);
        g_assert_cmphex(crd(&t, 1, TGPU_CHAN_GP_GET), ==, at);
        g_assert_cmphex(crd(&t, 1, TGPU_CHAN_GP_PUT), ==, at);
        g_assert_cmpuint(chan_state(&t, 1), ==, TGPU_CHAN_STATE_IDLE);
        chan_reset(&t, 1);
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
    a->gpfifo = L.scratch;
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
    z->gpfifo = L.bigring;
    chan_up_cfg(&t, z);
    z->put = (1u << TGPU_GPFIFO_LOG2_MAX) - 1;

    b = chan_up(&t, 2);

    chan_kick(&t, a);
    chan_kick(&t, z);
    g_assert_cmphex(rd(&t, TGPU_PMC_MAGIC), ==, TGPU_MAGIC);
    run_release(&t, b, L.sem, 1);
    g_assert_cmphex(rd(&t, TGPU_PMC_SCRATCH), ==, 0);

    wait_done(&t, a);
    wait_done(&t, z);
    g_assert_cmpuint(pa_rd32(&t, a->userd + TGPU_USERD_GP_GET), ==,
                     n_entries);
    g_assert_cmpuint(pa_rd32(&t, z->userd + TGPU_USERD_GP_GET), ==,
                     z->put);
    assert_no_error_pending(&t);
    run_release(&t, b, L.sem, 2);
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
    pb_release(pb, L.sem, 0x5e1f);
    submit(&t, c, pb);
    expect_err(&t, c, TGPU_ERR_SEM_FAULT,
               (uint32_t)(bar0_gpa + TGPU_USERMODE_DOORBELL));
    g_assert_cmpuint(rd(&t, TGPU_FIFO_DOORBELLS), ==, bells + 1);
    g_assert_cmpuint(rd(&t, TGPU_FIFO_DOORBELLS_BAD), ==, bad);
    g_assert_cmphex(pa_rd32(&t, L.sem), ==, 0);

    /* a pushbuffer fetched from its own registers */
    c = chan_up(&t, 1);
    chan_gp(&t, c, TGPU_GP_ENTRY(SYS(bar0_gpa), 4, 0));
    chan_kick(&t, c);
    expect_err(&t, c, TGPU_ERR_PB_FAULT, (uint32_t)bar0_gpa);

    /* a GPFIFO ring in its own VRAM, reached through BAR1 by DMA */
    c = chan_cfg(&t, 1);
    c->gpfifo = SYS(t.bar1.addr + L.ch[1].gpfifo);
    chan_up_cfg(&t, c);
    pb->n = 0;
    pb_release(pb, L.sem, 0xb1);
    run(&t, c, pb);
    g_assert_cmphex(pa_rd32(&t, L.sem), ==, 0xb1);
    g_assert_cmpuint(pa_rd32(&t, L.ch[1].userd + TGPU_USERD_GP_GET), ==, 1);
    chan_reset(&t, 1);

    /* an MSI-X message aimed at its own doorbell */
    msix_setup(&t, false);
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
static void test_hostile_ecam(void)
{
    g_autofree PB *pb = pb_new();
    uint16_t cmd;
    T t;
    Chan *c;

    tgpu_start_std(&t);
    ecam_open(&t);
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
    qtest_writel(t.qts, G.sem, 0x1111);

    c = chan_up(&t, 1);
    pb_release(pb, L.sem, 0x600d);
    pb_release(pb, SYS(G.sem), 0x2222);
    submit(&t, c, pb);
    expect_err(&t, c, TGPU_ERR_SEM_FAULT, G.sem);
    g_assert_cmphex(qtest_readl(t.qts, G.sem), ==, 0x1111);
    g_assert_cmphex(pa_rd32(&t, L.sem), ==, 0x600d);

    c = chan_up_cfg(&t, chan_cfg_sys(&t, 1));
    doorbell(&t, 1);
    expect_err(&t, c, TGPU_ERR_USERD_FAULT, G.userd);

    /* with it back on, the same work goes through */
    qpci_config_writew(t.dev, PCI_COMMAND, cmd);
    c = chan_up(&t, 1);
    run(&t, c, pb);
    g_assert_cmphex(qtest_readl(t.qts, G.sem), ==, 0x2222);
    tgpu_stop(&t);
}

int main(int argc, char **argv)
{
    g_test_init(&argc, &argv, NULL);

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

    return g_test_run();
}
