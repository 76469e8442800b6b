/*
 * QTest testcase for the tgpu GPU MMU: its registers, and page walks of
 * 4 KiB and 2 MiB pages in VRAM and system memory, as docs/hw/mmu.md
 * specifies them.  tgpu-mmu.h has the layout and helpers the MMU tests
 * share.
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
#include "tgpu-mmu.h"

/*
 * ======================================================================
 * 1. registers
 */

static void test_registers(void)
{
    static const uint32_t counter_regs[] = MMU_COUNTER_REGS;
    static const uint32_t unimplemented[] = {
        TGPU_MMU_BASE + 0x008, TGPU_MMU_BASE + 0x00c, TGPU_MMU_BASE + 0x028,
        TGPU_MMU_BASE + 0x0a4, TGPU_MMU_BASE + TGPU_MMU_SIZE - 4,
    };
    T t;

    mmu_mem_start(&t, NULL);
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
    mmu_mem_start(&t, "tlb-tagging=off");
    check_mmu_reset_values(&t, false);
    tgpu_stop(&t);
    mmu_mem_start(&t, "tlb-tagging=on");
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
    map2m(&t, &x, big, L.large[0], 0);
    map2m(&t, &x, sbig, SYS(G.large), 0);
    ptop = map_new(&t, &x, V_TOP, 0);
    pa_zero(&t, L.large[0], TGPU_LARGE_PAGE_SIZE);
    pa_zero(&t, SYS(G.large), TGPU_LARGE_PAGE_SIZE);
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
    g_assert_cmphex(pa_rd32(&t, L.large[0] + 0x123450), ==, 0x4444);
    g_assert_cmphex(pa_rd32(&t, L.large[0] + TGPU_LARGE_PAGE_SIZE - 4), ==,
                    0x5555);
    g_assert_cmphex(qtest_readl(t.qts, G.large + 0xabc0), ==, 0x6666);
    g_assert_cmphex(qtest_readl(t.qts, G.large + 0x1ff000), ==, 0x7777);
    g_assert_cmphex(pa_rd32(&t, ptop + 0xffc), ==, 0x8888);
    /* the page offset of a large page is not applied twice, or dropped */
    g_assert_cmphex(pa_rd32(&t, L.large[0] + 0x450), ==, 0);
    g_assert_cmphex(pa_rd32(&t, L.large[0] + 0x123000), ==, 0);

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
    pa_wr32(&t, L.large[0] + 0x1000, 4);
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

int main(int argc, char **argv)
{
    g_test_init(&argc, &argv, NULL);

    qtest_add_func("/tgpu/mmu/registers", test_registers);
    qtest_add_func("/tgpu/mmu/translate/pages", test_translate);
    qtest_add_func("/tgpu/mmu/translate/structures", test_structures);
    qtest_add_func("/tgpu/mmu/translate/rebind", test_rebind);

    return g_test_run();
}
