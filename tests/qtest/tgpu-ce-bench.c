/*
 * tgpu copy-engine benchmark: bandwidth of host-to-device, device-to-host
 * and device-to-device copies, one engine at a time and H2D on CE0 with
 * D2H on CE1 at once, beside this host's single-thread memcpy of the same
 * size, measured in the same run, and beside two host threads running the
 * engines' own copy loop: the most two streams get from this machine.
 *
 * The copies run as a driver would issue them: paged channels of one
 * address space, VRAM buffers mapped with 2 MiB pages and system-memory
 * buffers with 4 KiB pages (pinned user memory), so every byte goes
 * through the GPU MMU.  Time is the wall clock from the doorbell to the
 * launch's semaphore release seen by this process.
 *
 * Run normally (make check) it is a smoke test with 4 MiB copies whose
 * results are checked; with -m perf (make bench) it copies 64 MiB, takes
 * the median of 5 runs after a warm-up and prints "bench:"/"ref:" lines
 * that scripts/bench collects.
 *
 * /tgpu/ce-bench/innocent times a 4 KiB copy on CE0 alone, and while
 * another channel on CE0 streams 64 MiB copies back to back: the time
 * slicing of docs/hw/copy.md.
 *
 * Copyright (c) 2026 The tgpu authors
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */

#include "qemu/osdep.h"
#include "qemu/bswap.h"
#include "qemu/units.h"
#include "libqtest.h"
#include "libqos/pci.h"
#include "libqos/pci-pc.h"
#include "tgpu/regs.h"
#include "tgpu/channel.h"
#include "tgpu/copy.h"
#include "tgpu/mmu.h"
#include "hw/tgpu/tgpu-stream-copy.h"
#include "tgpu-bench.h"

#define BUF_MAX         (64 * MiB)

/* VRAM */
#define L_RUNLIST(r)    (0x4000u + 0x1000u * (r))
#define L_INST(ch)      (0x10000u + TGPU_INST_SIZE * (ch))
#define L_TABLES        0x100000u       /* to 0x200000 */
#define L_CHAN          0x200000u       /* one 2 MiB page: rings, PBs */
#define L_SEM           0x400000u
#define L_X             0x1000000u      /* 64 MiB each */
#define L_Y             0x6000000u
/* guest RAM */
#define G_A             0x4000000u      /* 64 MiB each */
#define G_B             0x8000000u
/* GPU virtual addresses */
#define V_CHAN          0x0040000000ull
#define V_SEM           0x0080000000ull
#define V_X             0x0100000000ull
#define V_Y             0x0200000000ull
#define V_A             0x0300000000ull
#define V_B             0x0400000000ull

/* within the channel page: per channel a ring, USERD and a pushbuffer */
#define CH_GPFIFO(c)    (0x10000u * (c))
#define CH_USERD(c)     (0x10000u * (c) + 0x8000u)
#define CH_PB(c)        (0x10000u * (c) + 0x9000u)
#define GP_LOG2         8

#define SC              4

typedef struct Bench {
    QTestState *qts;
    QPCIBus *bus;
    QPCIDevice *dev;
    QPCIBar bar0, bar1;
    uint64_t next_table;
    uint32_t put[3];
    uint32_t seq;
    uint32_t gate;
} Bench;

static void wr(Bench *b, uint32_t reg, uint32_t val)
{
    qpci_io_writel(b->dev, b->bar0, reg, val);
}

static uint32_t vram_rd32(Bench *b, uint64_t off)
{
    return qpci_io_readl(b->dev, b->bar1, off);
}

static void vram_write(Bench *b, uint64_t off, const void *buf, size_t len)
{
    qpci_memwrite(b->dev, b->bar1, off, buf, len);
}

static void vram_wr32(Bench *b, uint64_t off, uint32_t v)
{
    qpci_io_writel(b->dev, b->bar1, off, v);
}

/* ---- page tables, built here and written table by table ---------------- */

typedef struct Tables {
    uint64_t pd1[TGPU_PD1_ENTRIES];
    uint64_t pd0_at[TGPU_PD1_ENTRIES];      /* VRAM address, 0: none */
    GHashTable *tables;                     /* VRAM address -> uint64_t[512] */
} Tables;

static uint64_t *table_get(Bench *b, Tables *t, uint64_t *entry)
{
    uint64_t *tbl;

    if (!(*entry & TGPU_PTE_VALID)) {
        uint64_t at = b->next_table;

        b->next_table += TGPU_PT_ALIGN;
        g_assert_cmpuint(b->next_table, <=, L_CHAN);
        *entry = at | TGPU_PTE_VALID;
        g_hash_table_insert(t->tables, GSIZE_TO_POINTER(at),
                            g_new0(uint64_t, TGPU_PT_ENTRIES));
    }
    tbl = g_hash_table_lookup(t->tables,
                              GSIZE_TO_POINTER(*entry & TGPU_PTE_ADDR_MASK));
    g_assert_nonnull(tbl);
    return tbl;
}

static void map(Bench *b, Tables *t, uint64_t va, uint64_t pa, bool large,
                uint64_t flags)
{
    uint64_t *pd0 = table_get(b, t, &t->pd1[TGPU_PD1_INDEX(va)]);
    uint64_t e = pa | TGPU_PTE_VALID | flags;

    if (large) {
        pd0[TGPU_PD0_INDEX(va)] = e | TGPU_PTE_LARGE;
    } else {
        table_get(b, t, &pd0[TGPU_PD0_INDEX(va)])[TGPU_PT_INDEX(va)] = e;
    }
}

static void tables_write(Bench *b, Tables *t, uint64_t pdb)
{
    GHashTableIter it;
    gpointer key, val;
    uint64_t le[TGPU_PD1_ENTRIES];

    for (int i = 0; i < TGPU_PD1_ENTRIES; i++) {
        le[i] = cpu_to_le64(t->pd1[i]);
    }
    vram_write(b, pdb, le, sizeof(le));
    g_hash_table_iter_init(&it, t->tables);
    while (g_hash_table_iter_next(&it, &key, &val)) {
        uint64_t *e = val;

        for (int i = 0; i < TGPU_PT_ENTRIES; i++) {
            le[i] = cpu_to_le64(e[i]);
        }
        vram_write(b, GPOINTER_TO_SIZE(key), le, TGPU_PT_ENTRIES * 8);
    }
}

/* ---- the device -------------------------------------------------------- */

static void runlist_set(Bench *b, uint32_t engine, const uint32_t *ids,
                        uint32_t n)
{
    uint32_t le[4];

    for (uint32_t i = 0; i < n; i++) {
        le[i] = cpu_to_le32(ids[i]);
    }
    vram_write(b, L_RUNLIST(engine), le, 4 * n);
    wr(b, TGPU_FIFO_RUNLIST_BASE_LO(engine), L_RUNLIST(engine));
    wr(b, TGPU_FIFO_RUNLIST_BASE_HI(engine), 0);
    wr(b, TGPU_FIFO_RUNLIST_SUBMIT(engine), n);
}

static void chan_setup(Bench *b, int c, uint32_t engine)
{
    uint8_t blk[64] = { 0 };
    uint32_t id = c;

    stl_le_p(blk + TGPU_INST_FLAGS, TGPU_INST_FLAGS_PAGED);
    stl_le_p(blk + TGPU_INST_ASID, 1);
    stq_le_p(blk + TGPU_INST_PDB, L_TABLES);
    stq_le_p(blk + TGPU_INST_GPFIFO_BASE, V_CHAN + CH_GPFIFO(c));
    stl_le_p(blk + TGPU_INST_GPFIFO_LOG2, GP_LOG2);
    stl_le_p(blk + TGPU_INST_ENGINE, engine);
    stq_le_p(blk + TGPU_INST_USERD, V_CHAN + CH_USERD(c));
    vram_write(b, L_INST(c), blk, sizeof(blk));
    runlist_set(b, engine, &id, 1);
    wr(b, TGPU_CHAN_REG(c, TGPU_CHAN_INST), L_INST(c) >> 12);
    wr(b, TGPU_CHAN_REG(c, TGPU_CHAN_CTRL), TGPU_CHAN_CTRL_ENABLE);
}

static void bench_start(Bench *b)
{
    Tables t = { .tables = g_hash_table_new_full(NULL, NULL, NULL, g_free) };

    memset(b, 0, sizeof(*b));
    b->qts = qtest_init("-M q35 -m 512M -nodefaults "
                        "-device tgpu,addr=04.0,vram-size=256M");
    b->bus = qpci_new_pc(b->qts, NULL);
    b->dev = qpci_device_find(b->bus, QPCI_DEVFN(4, 0));
    g_assert_nonnull(b->dev);
    qpci_device_enable(b->dev);
    b->bar0 = qpci_iomap(b->dev, TGPU_BAR0, NULL);
    b->bar1 = qpci_iomap(b->dev, TGPU_BAR1, NULL);

    b->next_table = L_TABLES + TGPU_PDB_ALIGN;
    map(b, &t, V_CHAN, L_CHAN, true, 0);
    map(b, &t, V_SEM, L_SEM, false, 0);
    for (uint64_t o = 0; o < BUF_MAX; o += TGPU_LARGE_PAGE_SIZE) {
        map(b, &t, V_X + o, L_X + o, true, 0);
        map(b, &t, V_Y + o, L_Y + o, true, 0);
    }
    for (uint64_t o = 0; o < BUF_MAX; o += TGPU_PAGE_SIZE) {
        map(b, &t, V_A + o, G_A + o, false, TGPU_PTE_SYSMEM);
        map(b, &t, V_B + o, G_B + o, false, TGPU_PTE_SYSMEM);
    }
    tables_write(b, &t, L_TABLES);
    g_hash_table_destroy(t.tables);

    qtest_memset(b->qts, b->bar1.addr + L_CHAN, 0, TGPU_LARGE_PAGE_SIZE);
    chan_setup(b, 0, TGPU_RUNLIST_CE0);
    chan_setup(b, 1, TGPU_RUNLIST_CE1);
}

static void bench_stop(Bench *b)
{
    g_free(b->dev);
    qpci_free_pc(b->bus);
    qtest_quit(b->qts);
}

/* The semaphore that starts two copies together (time_both()). */
#define GATE_OFF        0x40u

/*
 * Write a LAUNCH_DMA of LEN bytes on channel C and its GPFIFO entry;
 * returns its semaphore value.  launch_kick() submits it.  With a
 * GATE_OP (not -1), the launch comes after that semaphore operation on
 * the gate with payload GATE.
 */
static uint32_t launch_prepare(Bench *b, int c, uint64_t src, uint64_t dst,
                               uint32_t len, int gate_op, uint32_t gate)
{
    uint32_t pb[32], n = 0, sem = ++b->seq;
    uint64_t pb_off = L_CHAN + CH_PB(c) + 0x200 * (b->put[c] % 8);
    uint64_t entry;

    if (gate_op >= 0) {
        n += tgpu_pb_sem(&pb[n], V_SEM + GATE_OFF, gate, gate_op);
    }
    pb[n++] = TGPU_PB_HDR(TGPU_PB_OP_INC, SC, TGPU_M_SET_OBJECT, 1);
    pb[n++] = TGPU_CLASS_COPY;
    pb[n++] = TGPU_PB_HDR(TGPU_PB_OP_INC, SC, TGPU_CE_M_OFFSET_IN_UPPER, 8);
    pb[n++] = src >> 32;
    pb[n++] = src;
    pb[n++] = dst >> 32;
    pb[n++] = dst;
    pb[n++] = 0;
    pb[n++] = 0;
    pb[n++] = len;
    pb[n++] = 1;
    pb[n++] = TGPU_PB_HDR(TGPU_PB_OP_INC, SC, TGPU_CE_M_SET_SEMAPHORE_A, 3);
    pb[n++] = V_SEM >> 32;
    pb[n++] = (uint32_t)V_SEM + 16 * c;
    pb[n++] = sem;
    pb[n++] = TGPU_PB_HDR(TGPU_PB_OP_INC, SC, TGPU_CE_M_LAUNCH_DMA, 1);
    pb[n++] = TGPU_CE_LAUNCH(TGPU_CE_TRANSFER_NON_PIPELINED,
                             TGPU_CE_SEM_ONE_WORD, TGPU_CE_INTR_NONE);
    for (uint32_t i = 0; i < n; i++) {
        pb[i] = cpu_to_le32(pb[i]);
    }
    vram_write(b, pb_off, pb, n * 4);
    entry = cpu_to_le64(TGPU_GP_ENTRY(V_CHAN + pb_off - L_CHAN, n, 0));
    vram_write(b, L_CHAN + CH_GPFIFO(c) + 8 * b->put[c], &entry, 8);
    b->put[c] = (b->put[c] + 1) % (1u << GP_LOG2);
    return sem;
}

static void launch_kick(Bench *b, int c)
{
    vram_wr32(b, L_CHAN + CH_USERD(c) + TGPU_USERD_GP_PUT, b->put[c]);
    wr(b, TGPU_USERMODE_DOORBELL, c);
}

/*
 * Wait for channel C's semaphore.  Each poll costs QEMU's main thread
 * and this process some CPU, which the engine threads need (2 CPUs run
 * both engines here), and preempts one of them.  So the first poll
 * comes only HINT_US after T0, the copy's start (most of the time the
 * copy took last time, 0 when unknown), then polls are spaced at 2% of
 * the time since T0: few polls while the engines work, and a small error.
 */
static void wait_sem(Bench *b, int c, uint32_t sem, gint64 t0,
                     gint64 hint_us)
{
    bench_sleep_from(t0, hint_us);
    while (vram_rd32(b, L_SEM + 16 * c) != sem) {
        bench_poll_pause(t0, 60);
    }
    g_assert_cmpuint(qpci_io_readl(b->dev, b->bar0,
                                   TGPU_CHAN_REG(c, TGPU_CHAN_ERROR)), ==, 0);
}

typedef struct Shape {
    const char *name;
    uint64_t src, dst;          /* GPU VAs */
} Shape;

static const Shape shapes[] = {
    { "h2d", V_A, V_X },
    { "d2h", V_Y, V_B },
    { "d2d", V_X, V_Y },
};

/* Seconds for one LEN-byte copy of SHAPE on channel C (HINT: wait_sem). */
static double time_copy(Bench *b, int c, const Shape *sh, uint32_t len,
                        double hint)
{
    uint32_t sem = launch_prepare(b, c, sh->src, sh->dst, len, -1, 0);
    gint64 t0 = g_get_monotonic_time();

    launch_kick(b, c);
    wait_sem(b, c, sem, t0, bench_hint_us(hint));
    return (g_get_monotonic_time() - t0) / 1e6;
}

/*
 * Seconds for H2D on CE0 and D2H on CE1 together (HINT: wait_sem).
 * CE1's channel first waits on a gate semaphore that CE0's channel
 * releases before its copy: one doorbell starts both, in one pass of
 * the host unit, as a driver starts two engines together.  (Two
 * doorbells would be two round trips through QEMU's main thread, which
 * the first engine's copy slows down: 2 ms apart, a fifth of the copy.)
 */
static double time_both(Bench *b, uint32_t len, double hint)
{
    uint32_t gate = ++b->gate;
    uint32_t s1 = launch_prepare(b, 1, shapes[1].src, shapes[1].dst, len,
                                 TGPU_SEM_OP_ACQ_GEQ, gate);
    uint32_t s0 = launch_prepare(b, 0, shapes[0].src, shapes[0].dst, len,
                                 TGPU_SEM_OP_RELEASE, gate);
    gint64 t0;

    launch_kick(b, 1);
    t0 = g_get_monotonic_time();
    for (;;) {
        uint32_t st = qpci_io_readl(b->dev, b->bar0,
                                    TGPU_CHAN_REG(1, TGPU_CHAN_STATUS)) &
                      TGPU_CHAN_STATE_MASK;

        if (st == TGPU_CHAN_STATE_BLOCKED) {
            break;
        }
        g_assert_cmpuint(st, !=, TGPU_CHAN_STATE_ERROR);
        g_assert_cmpint(g_get_monotonic_time() - t0, <, 10 * G_USEC_PER_SEC);
        g_usleep(10);
    }
    t0 = g_get_monotonic_time();
    launch_kick(b, 0);

    wait_sem(b, 0, s0, t0, bench_hint_us(hint));
    wait_sem(b, 1, s1, t0, 0);
    return (g_get_monotonic_time() - t0) / 1e6;
}

/* Seconds for one copy of SHAPE on channel C: median of runs after warm-ups. */
static double copy_secs(Bench *b, int c, const Shape *sh, uint32_t len,
                        int runs)
{
    double secs[BENCH_RUNS], fast;

    /* the first copy also faults the pages in: not a hint */
    time_copy(b, c, sh, len, 0);
    fast = time_copy(b, c, sh, len, 0);
    for (int i = 0; i < runs; i++) {
        secs[i] = time_copy(b, c, sh, len, fast);
        fast = MIN(fast, secs[i]);
    }
    return median(secs, runs);
}

/* GB/s of H2D on CE0 and D2H on CE1 at once, together. */
static double both_gbs(Bench *b, uint32_t len, int runs)
{
    double secs[BENCH_RUNS], fast;

    qtest_memset(b->qts, b->bar1.addr + L_Y, 0x44, len);
    time_both(b, len, 0);
    fast = time_both(b, len, 0);
    for (int i = 0; i < runs; i++) {
        secs[i] = time_both(b, len, fast);
        fast = MIN(fast, secs[i]);
    }
    g_assert_cmphex(qtest_readl(b->qts, G_B + 4), ==, 0x44444444);
    return 2.0 * len / median(secs, runs) / 1e9;
}

typedef struct HostCopy {
    uint8_t *src, *dst;
    uint32_t len;
    bool stream;
} HostCopy;

static gpointer host_copy(gpointer opaque)
{
    HostCopy *h = opaque;

    if (h->stream) {
        /* in the engines' steps */
        for (uint32_t o = 0; o < h->len; o += TGPU_CE_CHUNK) {
            tgpu_stream_copy(h->dst + o, h->src + o,
                             MIN(TGPU_CE_CHUNK, h->len - o));
        }
    } else {
        memcpy(h->dst, h->src, h->len);
    }
    return NULL;
}

/*
 * This host's copy of LEN bytes in GB/s, on one thread, or on THREADS
 * at once (each its own buffers): the physical limits.  STREAM: the
 * engines' loop instead of memcpy.
 */
static double host_gbs(uint32_t len, int threads, bool stream)
{
    HostCopy h[2];
    GThread *th[2];
    double secs[BENCH_RUNS];

    for (int t = 0; t < threads; t++) {
        h[t] = (HostCopy) { g_malloc(len), g_malloc(len), len, stream };
        memset(h[t].src, 0x5a, len);
        memset(h[t].dst, 0xa5, len);
    }
    for (int i = 0; i <= BENCH_RUNS; i++) {
        gint64 t0 = g_get_monotonic_time();

        for (int t = 0; t < threads; t++) {
            th[t] = g_thread_new("copy", host_copy, &h[t]);
        }
        for (int t = 0; t < threads; t++) {
            g_thread_join(th[t]);
        }
        if (i) {
            secs[i - 1] = (g_get_monotonic_time() - t0) / 1e6;
        }
    }
    for (int t = 0; t < threads; t++) {
        g_assert_cmpuint(h[t].dst[len - 1], ==, 0x5a);
        g_free(h[t].src);
        g_free(h[t].dst);
    }
    return (double)threads * len / median(secs, BENCH_RUNS) / 1e9;
}

static void test_bandwidth(void)
{
    uint32_t len = g_test_perf() ? BUF_MAX : 4 * MiB;
    int runs = g_test_perf() ? BENCH_RUNS : 1;
    double single[ARRAY_SIZE(shapes)], both, host, host2, st, st2;
    Bench b;

    bench_start(&b);
    qtest_memset(b.qts, G_A, 0x11, len);
    qtest_memset(b.qts, b.bar1.addr + L_Y, 0x33, len);
    for (size_t s = 0; s < ARRAY_SIZE(shapes); s++) {
        single[s] = len / copy_secs(&b, s == 1 ? 1 : 0, &shapes[s], len,
                                    runs) / 1e9;
    }
    /* every copy landed: H2D brought 0x11 to X, D2H 0x33 to B, D2D X to Y */
    g_assert_cmphex(vram_rd32(&b, L_X + len - 4), ==, 0x11111111);
    g_assert_cmphex(qtest_readl(b.qts, G_B + len / 2), ==, 0x33333333);
    g_assert_cmphex(vram_rd32(&b, L_Y + len / 3 * 2), ==, 0x11111111);
    both = both_gbs(&b, len, runs);
    bench_stop(&b);

    if (!g_test_perf()) {
        return;
    }
    host = host_gbs(len, 1, false);
    host2 = host_gbs(len, 2, false);
    st = host_gbs(len, 1, true);
    st2 = host_gbs(len, 2, true);
    g_print("# %u MiB copies, median of %d after a warm-up\n", len >> 20,
            runs);
    for (size_t s = 0; s < ARRAY_SIZE(shapes); s++) {
        g_print("bench: copy.%s_64m_gbps %.2f GB/s\n", shapes[s].name,
                single[s]);
        g_print("ref: copy.%s_64m_gbps %.2f GB/s\n", shapes[s].name, host);
    }
    g_print("bench: copy.h2d_d2h_concurrent_gbps %.2f GB/s\n", both);
    g_print("ref: copy.h2d_d2h_concurrent_gbps %.2f GB/s\n",
            (single[0] + single[1]) / 2);
    g_print("bench: host.memcpy_64m_gbps %.2f GB/s\n", host);
    g_print("bench: host.memcpy_64m_2threads_gbps %.2f GB/s\n", host2);
    g_print("ref: host.memcpy_64m_2threads_gbps %.2f GB/s\n", host);
    g_print("bench: host.streamcopy_64m_gbps %.2f GB/s\n", st);
    g_print("bench: host.streamcopy_64m_2threads_gbps %.2f GB/s\n", st2);
    g_print("ref: host.streamcopy_64m_2threads_gbps %.2f GB/s\n", st);
}

/* ---- an innocent copy beside a stream of long ones ------------------- */

#define CH_HOSTILE      0               /* CE0 */
#define CH_INNOCENT     2               /* CE0 too */
#define HOSTILE_QUEUE   8               /* launches queued at a time */
#define INNOCENT_RUNS   25

/* Channel C's GPFIFO entries not yet fetched: is its stream still going? */
static bool chan_busy(Bench *b, int c)
{
    uint32_t st = qpci_io_readl(b->dev, b->bar0,
                                TGPU_CHAN_REG(c, TGPU_CHAN_STATUS)) &
                  TGPU_CHAN_STATE_MASK;

    g_assert_cmpuint(st, !=, TGPU_CHAN_STATE_ERROR);
    return st != TGPU_CHAN_STATE_IDLE;
}

/* Queue HOSTILE_QUEUE copies of LEN bytes, VRAM to VRAM, on CH_HOSTILE. */
static uint32_t hostile_queue(Bench *b, uint32_t len)
{
    uint32_t sem = 0;

    for (int i = 0; i < HOSTILE_QUEUE; i++) {
        sem = launch_prepare(b, CH_HOSTILE, V_X, V_Y, len, -1, 0);
    }
    launch_kick(b, CH_HOSTILE);
    return sem;
}

/* Microseconds for one 4 KiB copy on CH_INNOCENT, in system memory. */
static double innocent_us(Bench *b)
{
    uint32_t sem = launch_prepare(b, CH_INNOCENT, V_A, V_B, 4 * KiB, -1, 0);
    gint64 t0 = g_get_monotonic_time();

    /*
     * Polls pause (bench_poll_pause), so that this process leaves the
     * two host CPUs to QEMU's main thread and the engine's: a poll loop
     * that never sleeps makes three runnable threads, and the main
     * thread then waits out a scheduler slice (milliseconds).
     */
    launch_kick(b, CH_INNOCENT);
    while (vram_rd32(b, L_SEM + 16 * CH_INNOCENT) != sem) {
        bench_poll_pause(t0, 60);
    }
    return g_get_monotonic_time() - t0;
}

static void test_innocent(void)
{
    uint32_t len = g_test_perf() ? BUF_MAX : 4 * MiB;
    int runs = g_test_perf() ? INNOCENT_RUNS : 3;
    double idle[INNOCENT_RUNS], load[INNOCENT_RUNS];
    uint32_t ids[2] = { CH_HOSTILE, CH_INNOCENT };
    int n = 0, queued = 0;
    uint32_t last, preempts;
    Bench b;

    bench_start(&b);
    chan_setup(&b, CH_INNOCENT, TGPU_RUNLIST_CE0);
    runlist_set(&b, TGPU_RUNLIST_CE0, ids, 2);
    qtest_memset(b.qts, G_A, 0x5a, 4 * KiB);
    qtest_memset(b.qts, b.bar1.addr + L_X, 0x11, len);
    /* the destination's host pages are in before the stream starts */
    qtest_memset(b.qts, b.bar1.addr + L_Y, 0, len);

    for (int i = 0; i < 3; i++) {
        innocent_us(&b);                /* warm-up: the pages fault in */
    }
    for (int i = 0; i < runs; i++) {
        idle[i] = innocent_us(&b);
    }
    /*
     * Under load: each sample while the hostile stream runs (it is
     * re-armed when it has run dry), spaced by a millisecond
     */
    last = hostile_queue(&b, len);
    queued++;
    while (n < runs) {
        g_usleep(1000);
        if (!chan_busy(&b, CH_HOSTILE)) {
            g_assert_cmphex(vram_rd32(&b, L_SEM + 16 * CH_HOSTILE), ==, last);
            g_assert_cmpint(queued, <, 1000);
            last = hostile_queue(&b, len);
            queued++;
            continue;
        }
        load[n] = innocent_us(&b);
        /* only a sample the stream ran through counts */
        if (chan_busy(&b, CH_HOSTILE)) {
            n++;
        }
    }
    while (chan_busy(&b, CH_HOSTILE)) {
        g_usleep(1000);
    }
    g_assert_cmphex(vram_rd32(&b, L_SEM + 16 * CH_HOSTILE), ==, last);
    /* both copies landed */
    g_assert_cmphex(qtest_readl(b.qts, G_B + 4 * KiB - 4), ==, 0x5a5a5a5a);
    g_assert_cmphex(vram_rd32(&b, L_Y + len - 4), ==, 0x11111111);
    preempts = qpci_io_readl(b.dev, b.bar0,
                             TGPU_CE_REG(0, TGPU_CE_PREEMPTS));
    bench_stop(&b);

    if (!g_test_perf()) {
        return;
    }
    g_print("# 4 KiB copies on CE0, median of %d: alone, and while another "
            "channel streams %u MiB copies on CE0\n", runs, len >> 20);
    g_print("# under load: %u turns given way; samples", preempts);
    for (int i = 0; i < runs; i++) {
        g_print(" %.0f", load[i]);
    }
    g_print("\n");
    g_print("bench: copy.innocent_4k_idle_us %.1f us\n",
            median(idle, runs));
    g_print("bench: copy.innocent_4k_under_load_us %.1f us\n",
            median(load, runs));
    g_print("ref: copy.innocent_4k_under_load_us %.1f us\n",
            median(idle, runs));
}

int main(int argc, char **argv)
{
    g_test_init(&argc, &argv, NULL);
    qtest_add_func("/tgpu/ce-bench/bandwidth", test_bandwidth);
    qtest_add_func("/tgpu/ce-bench/innocent", test_innocent);
    return g_test_run();
}
