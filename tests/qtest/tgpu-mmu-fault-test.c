/*
 * QTest testcase for the tgpu GPU MMU: faults of every type and the
 * channel errors they cause, the fault buffer, and ASID isolation, as
 * docs/hw/mmu.md specifies them.  tgpu-mmu.h has the layout and helpers
 * the MMU tests share.
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
            L.large[0] | TGPU_PTE_LARGE);
    sem_fault(&t, c, mark, V_SEM + 3 * TGPU_LARGE_PAGE_SIZE + 0x100,
              TGPU_SEM_OP_RELEASE, TGPU_FAULT_NOT_PRESENT);
    g_assert_cmphex(pa_rd32(&t, semp + 8), ==, 0);

    /*
     * A paged channel has no bypass: VRAM offsets and the system-memory
     * window are virtual addresses like any other.
     */
    pa_wr32(&t, L.alive, 0);
    sem_fault(&t, c, mark, L.alive, TGPU_SEM_OP_RELEASE,
              TGPU_FAULT_NOT_PRESENT);
    sem_fault(&t, c, mark, sys_page(&t), TGPU_SEM_OP_RELEASE,
              TGPU_FAULT_NOT_PRESENT);
    g_assert_cmphex(pa_rd32(&t, L.alive), ==, 0);

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
    map2m(&t, &x, big, SYS(G.large), TGPU_PTE_READ_ONLY);
    pa_zero(&t, SYS(G.large), TGPU_PAGE_SIZE);
    pa_wr32(&t, rop + 0x10, 7);
    pa_wr64(&t, rop + 0x20, 0x100000001ull);
    pa_wr32(&t, SYS(G.large) + 0x30, 9);

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
    g_assert_cmphex(pa_rd32(&t, SYS(G.large) + 0x30), ==, 9);

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
    map2m(&t, &x, big, L.large[0], TGPU_PTE_PRIV);
    pa_zero(&t, L.large[0], TGPU_PAGE_SIZE);
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
    g_assert_cmphex(pa_rd32(&t, L.large[0] + 0x100), ==, 0);

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
    g_assert_cmphex(pa_rd32(&t, L.large[0] + 0x100), ==, 7);
    g_assert_cmpuint(pa_rd64(&t, L.large[0] + 0x108), ==, ptimer(&t));
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
    sem_fault(&t, c, L.alive, VRAM_GAP + 0x10, TGPU_SEM_OP_RELEASE,
              TGPU_FAULT_BAD_APERTURE);
    sem_fault(&t, c, L.alive, VRAM_SIZE, TGPU_SEM_OP_ACQUIRE,
              TGPU_FAULT_BAD_APERTURE);
    sem_fault(&t, c, L.alive, SYS(G_UNMAPPED), TGPU_SEM_OP_RELEASE,
              TGPU_FAULT_BAD_APERTURE);
    chan_gp(&t, c, TGPU_GP_ENTRY(VRAM_GAP, 2, 0));
    chan_kick(&t, c);
    expect_chan_fault(&t, c, VRAM_GAP, TGPU_FAULT_ACCESS_READ,
                      TGPU_FAULT_BAD_APERTURE, TGPU_ERR_PB_FAULT,
                      (uint32_t)VRAM_GAP);
    chan_up_cfg(&t, c);

    /* misaligned: SEM_FAULT, no MMU fault (bypass, then paged) */
    pb_sem(pb, L.alive + 4, 1, TGPU_SEM_OP_RELEASE | TGPU_SEM_PAYLOAD_64);
    submit(&t, c, pb);
    expect_err(&t, c, TGPU_ERR_SEM_FAULT, L.alive + 4);
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
    fb_setup(&t, sysmem ? SYS(G.faultbuf) : L.faultbuf, 4);
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
    fb_setup(&t, sysmem ? SYS(G.faultbuf) : L.faultbuf,
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
        { 0, 1 },               /* L.faultbuf (below), but HI counts */
        { (uint32_t)G_UNMAPPED | TGPU_FAULT_BUF_SYSMEM, G_UNMAPPED >> 32 },
    };
    T t;
    Ctx x;
    Chan *c;

    mmu_start(&t, NULL);
    ctx_init(&t, &x, 0x9a);
    c = pchan_up(&t, 12, &x);
    for (size_t i = 0; i < ARRAY_SIZE(bufs); i++) {
        uint32_t lo = bufs[i].lo ? bufs[i].lo : L.faultbuf;

        g_test_message("fault buffer at 0x%x 0x%x", bufs[i].hi, lo);
        wr(&t, TGPU_MMU_FAULT_BUF_LO, lo);
        wr(&t, TGPU_MMU_FAULT_BUF_HI, bufs[i].hi);
        wr(&t, TGPU_MMU_FAULT_BUF_SIZE, 4);
        quick_fault(&t, c, V_NOWHERE + 0x100 * i);
        fb_dropped(&t, 0);
    }
    g_assert_cmphex(pa_rd64(&t, L.faultbuf), ==, 0);
    g_assert_cmphex(pa_rd64(&t, L.faultbuf + TGPU_FAULT_REC_ASID), ==, 0);

    /*
     * In system memory at the device's own BAR1: RAM, but this device's
     * VRAM, not guest RAM; the record would land in VRAM past ECC.
     */
    {
        uint64_t at = t.bar1.addr + L.faultbuf;

        g_assert_cmphex(at & 0xfff, ==, 0);
        g_assert_cmphex(at >> 40, ==, 0);
        wr(&t, TGPU_MMU_FAULT_BUF_LO, (uint32_t)at | TGPU_FAULT_BUF_SYSMEM);
        wr(&t, TGPU_MMU_FAULT_BUF_HI, at >> 32);
        wr(&t, TGPU_MMU_FAULT_BUF_SIZE, 4);
        quick_fault(&t, c, V_NOWHERE + 0x700);
        fb_dropped(&t, 0);
        g_assert_cmphex(pa_rd64(&t, L.faultbuf + TGPU_FAULT_REC_VA), ==, 0);
        g_assert_cmphex(pa_rd64(&t, L.faultbuf + TGPU_FAULT_REC_ASID), ==, 0);
    }

    /* in system memory, with bus mastering off */
    {
        uint16_t cmd = qpci_config_readw(t.dev, PCI_COMMAND);

        fb_setup(&t, SYS(G.faultbuf), 4);
        qpci_config_writew(t.dev, PCI_COMMAND, cmd & ~PCI_COMMAND_MASTER);
        quick_fault(&t, c, V_NOWHERE + 0x800);
        g_assert_cmphex(rd(&t, TGPU_MMU_INTR), ==, TGPU_MMU_INTR_OVERFLOW);
        qpci_config_writew(t.dev, PCI_COMMAND, cmd);
        fb_dropped(&t, 0);
        check_record_empty(&t, 0);
    }

    /* and the ring works once it is sane */
    fb_setup(&t, L.faultbuf, 4);
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

int main(int argc, char **argv)
{
    static const bool f = false, tr = true;

    g_test_init(&argc, &argv, NULL);

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

    return g_test_run();
}
