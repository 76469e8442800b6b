/*
 * QTest testcase for the tgpu GPU MMU: invalidation, the TLB (tagging,
 * counters, evictions, faults not cached), hostile page tables and
 * reset, as docs/hw/mmu.md specifies them.  tgpu-mmu.h has the layout
 * and helpers the MMU tests share.
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
    v->old[3] = L.large[0];
    v->new[3] = L.large[1];
    pa_zero(t, L.large[0] + INV_LOFF, 4);
    pa_zero(t, L.large[1] + INV_LOFF, 4);
    map2m(t, x, INV_VL, L.large[0], 0);

    inv_expect(v, gen, 0);

    for (int i = 0; i < 3; i++) {
        map4k(t, x, INV_V(i), v->new[i], 0);
    }
    map2m(t, x, INV_VL, L.large[1], 0);
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
    map2m(&t, &x, V_SEM + TGPU_LARGE_PAGE_SIZE, L.large[0], 0);
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
    g_assert_cmphex(pa_rd32(&t, L.large[0] + 0x1000), ==, 4);
    g_assert_cmphex(pa_rd32(&t, L.large[0] + 0x1ff000), ==, 5);
    g_assert_cmphex(pa_rd32(&t, L.large[0] + 0xabcd0), ==, 6);
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

/* H_LARGE: L.large[0], a 2 MiB page */
enum { H_NONE, H_PDB, H_PD0, H_PT, H_PAGE, H_LARGE };

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
    { "large-misaligned", 2, H_LARGE,
      TGPU_PAGE_SIZE + (TGPU_PTE_LARGE | H_V) },
    { "large-misaligned-hi", 2, H_LARGE,
      TGPU_LARGE_PAGE_SIZE / 2 + (TGPU_PTE_LARGE | H_V) },
    { "large-rsvd", 2, H_LARGE,
      (1ull << 60) | TGPU_PTE_LARGE | H_V },
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
        uint64_t tbl[H_LARGE + 1], ea[4], e;
        Ctx x;
        Chan *c;

        g_test_message("hostile table: %s", h->name);
        ctx_init(&t, &x, 0x100 + i);
        c = pchan_up(&t, 13, &x);
        map_new(&t, &x, V_SEM, 0);
        tbl[H_NONE] = 0;
        tbl[H_PAGE] = map_new(&t, &x, va, 0);
        tbl[H_PDB] = x.pdb;
        tbl[H_LARGE] = L.large[0];
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
    fb_setup(&t, L.faultbuf, 8);
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
    static const int inv_all = INV_ALL;
    static const int inv_asid = INV_ASID;
    static const int inv_range = INV_RANGE;
    static const int inv_mem_op = INV_MEM_OP;
    static const int inv_mem_op_range = INV_MEM_OP_RANGE;
    static const int inv_targeted = INV_MEM_OP_ASID;
    static const uint8_t type_ro = TGPU_FAULT_READ_ONLY;
    static const uint8_t type_priv = TGPU_FAULT_PRIVILEGE;
    static const uint8_t type_ba = TGPU_FAULT_BAD_APERTURE;

    g_test_init(&argc, &argv, NULL);

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
