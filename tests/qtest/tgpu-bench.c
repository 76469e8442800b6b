/*
 * tgpu host-unit benchmark: the cost of processing semaphore-release jobs
 *
 * Each job is one GPFIFO entry pointing at a 5-dword pushbuffer that
 * releases a semaphore.  Run normally (make check) it is a smoke test of
 * that path with a few jobs; with -m perf (make bench) it times batches of
 * 10,000 jobs through one channel and spread over 8 channels (the median
 * of 5 batches, each on a fresh device), and prints
 * "bench: NAME VALUE UNIT" lines that scripts/bench collects.
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
#include "tgpu/mmu.h"
#include "tgpu-bench.h"

#define VRAM_SIZE       (64 * MiB)
#define INST_BASE       0x00100000ull   /* instance blocks, 4 KiB each */
#define USERD_BASE      0x00200000ull   /* USERD pages, 512 bytes each */
#define RUNLIST_BASE    0x00300000ull
#define SEM_BASE        0x00400000ull   /* one semaphore per channel */
#define GPFIFO_BASE     0x01000000ull   /* 128 KiB ring per channel */
#define PB_BASE         0x02000000ull   /* one 32-byte pushbuffer per job */
#define GPFIFO_LOG2     14
#define JOB_PB_BYTES    32
#define MAX_JOBS        10000

typedef struct Bench {
    QTestState *qts;
    QPCIBus *bus;
    QPCIDevice *dev;
    QPCIBar bar0, bar1;
} Bench;

static void bench_start_opts(Bench *b, const char *opts)
{
    b->qts = qtest_initf("-M q35 -nodefaults "
                         "-device tgpu,addr=04.0,%s", opts);
    b->bus = qpci_new_pc(b->qts, NULL);
    b->dev = qpci_device_find(b->bus, QPCI_DEVFN(4, 0));
    g_assert_nonnull(b->dev);
    qpci_device_enable(b->dev);
    b->bar0 = qpci_iomap(b->dev, TGPU_BAR0, NULL);
    b->bar1 = qpci_iomap(b->dev, TGPU_BAR1, NULL);
}

static void bench_start(Bench *b)
{
    bench_start_opts(b, "vram-size=64M");
}

static void bench_stop(Bench *b)
{
    g_free(b->dev);
    qpci_free_pc(b->bus);
    qtest_quit(b->qts);
}

static void wr(Bench *b, uint32_t reg, uint32_t val)
{
    qpci_io_writel(b->dev, b->bar0, reg, val);
}

static uint32_t rd(Bench *b, uint32_t reg)
{
    return qpci_io_readl(b->dev, b->bar0, reg);
}

static void put32(void *p, uint32_t v)
{
    v = cpu_to_le32(v);
    memcpy(p, &v, 4);
}

/* A semaphore release at P, little-endian: TGPU_SEM_DWORDS dwords. */
static unsigned int put_release(uint32_t *p, uint64_t addr, uint32_t payload)
{
    unsigned int n = tgpu_pb_sem(p, addr, payload, TGPU_SEM_OP_RELEASE);

    for (unsigned int i = 0; i < n; i++) {
        put32(&p[i], p[i]);
    }
    return n;
}

static void put64(void *p, uint64_t v)
{
    v = cpu_to_le64(v);
    memcpy(p, &v, 8);
}

static void vram_write(Bench *b, uint64_t off, const void *buf, size_t len)
{
    qpci_memwrite(b->dev, b->bar1, off, buf, len);
}

/*
 * Channels 0..nchan-1 on the compute runlist; channel c gets jobs
 * c, c + nchan, ... of @njobs, each releasing job + 1 into its semaphore.
 */
static void setup(Bench *b, int nchan, int njobs)
{
    uint32_t runlist[8];
    g_autofree uint64_t *ring = g_new0(uint64_t, 1u << GPFIFO_LOG2);
    g_autofree uint32_t *pbs = g_new0(uint32_t, njobs * JOB_PB_BYTES / 4);

    for (int c = 0; c < nchan; c++) {
        uint8_t inst[TGPU_INST_FIELDS_SIZE];
        uint64_t gpfifo = GPFIFO_BASE + c * (8ull << GPFIFO_LOG2);
        uint64_t userd = USERD_BASE + c * TGPU_USERD_SIZE;
        uint32_t put = 0, put_le;

        tgpu_inst_encode(inst, &(struct tgpu_inst) {
            .flags = TGPU_INST_FLAGS_PRIV, .gpfifo_log2 = GPFIFO_LOG2,
            .gpfifo_base = gpfifo, .engine = TGPU_RUNLIST_COMPUTE,
            .userd = userd,
        });
        vram_write(b, INST_BASE + c * TGPU_INST_SIZE, inst, sizeof(inst));

        for (int j = c; j < njobs; j += nchan) {
            uint64_t pb = PB_BASE + (uint64_t)j * JOB_PB_BYTES;
            uint32_t *p = &pbs[j * JOB_PB_BYTES / 4];

            put64(&ring[put++],
                  TGPU_GP_ENTRY(pb, put_release(p, SEM_BASE + c * 8, j + 1),
                                0));
        }
        vram_write(b, gpfifo, ring, put * 8);
        put32(&put_le, put);
        vram_write(b, userd + TGPU_USERD_GP_PUT, &put_le, 4);

        wr(b, TGPU_CHAN_REG(c, TGPU_CHAN_INST),
           (INST_BASE + c * TGPU_INST_SIZE) >> 12);
        wr(b, TGPU_CHAN_REG(c, TGPU_CHAN_CTRL), TGPU_CHAN_CTRL_ENABLE);
    }
    vram_write(b, PB_BASE, pbs, njobs * JOB_PB_BYTES);
    for (int c = 0; c < nchan; c++) {
        put32(&runlist[c], c);
    }
    vram_write(b, RUNLIST_BASE, runlist, nchan * 4);
    wr(b, TGPU_FIFO_RUNLIST_BASE_LO(0), RUNLIST_BASE);
    wr(b, TGPU_FIFO_RUNLIST_BASE_HI(0), 0);
    wr(b, TGPU_FIFO_RUNLIST_SUBMIT(0), nchan);
    g_assert_cmpuint(rd(b, TGPU_FIFO_RUNLIST_STATUS(0)), ==, nchan);
}

/* Ring every channel, wait until every semaphore holds its last job. */
static double run_jobs(Bench *b, int nchan, int njobs)
{
    gint64 t0, t1;
    int done;

    t0 = g_get_monotonic_time();
    for (int c = 0; c < nchan; c++) {
        wr(b, TGPU_USERMODE_DOORBELL, c);
    }
    do {
        done = 0;
        for (int c = 0; c < nchan; c++) {
            int last = njobs - nchan + c + 1;   /* job numbers are 1-based */

            if (qpci_io_readl(b->dev, b->bar1, SEM_BASE + c * 8) == last) {
                done++;
            }
        }
        g_assert_cmpuint(rd(b, TGPU_FIFO_INTR), ==, 0);
        /* each poll is a trip through QEMU's main loop: keep them rare */
        if (done < nchan) {
            g_usleep(100);
        }
    } while (done < nchan);
    t1 = g_get_monotonic_time();

    for (int c = 0; c < nchan; c++) {
        g_assert_cmpuint(rd(b, TGPU_CHAN_REG(c, TGPU_CHAN_STATUS)) &
                         TGPU_CHAN_STATE_MASK, ==, TGPU_CHAN_STATE_IDLE);
        g_assert_cmpuint(rd(b, TGPU_CHAN_REG(c, TGPU_CHAN_GP_GET)), ==,
                         njobs / nchan);
    }
    return (t1 - t0) / 1e6;
}

/* The median of BENCH_RUNS batches, each on a fresh device. */
static void bench_jobs(int nchan, int njobs, const char *name)
{
    double secs[BENCH_RUNS];
    int runs = g_test_perf() ? BENCH_RUNS : 1;

    for (int i = 0; i < runs; i++) {
        Bench b;

        bench_start(&b);
        setup(&b, nchan, njobs);
        secs[i] = run_jobs(&b, nchan, njobs);
        bench_stop(&b);
    }
    if (g_test_perf()) {
        double med = median(secs, runs);

        g_print("bench: host.%s_jobs_per_s %.0f jobs/s\n", name,
                njobs / med);
        g_print("bench: host.%s_us_per_job %.3f us\n", name,
                med * 1e6 / njobs);
    }
}

static void test_one_channel(void)
{
    bench_jobs(1, g_test_perf() ? MAX_JOBS : 64, "sem_release_1ch");
}

static void test_eight_channels(void)
{
    bench_jobs(8, g_test_perf() ? MAX_JOBS : 64, "sem_release_8ch");
}

/*
 * Context switches between address spaces: N paged channels on one
 * runlist take turns (each block ends in YIELD); after switching in, a
 * channel releases a semaphore in each of its W working-set pages.  Each
 * context maps a 2 MiB page with its GPFIFO, USERD and pushbuffers at VA
 * 0, and its W data pages as 4 KiB pages from VA 2 MiB.
 */
#define CS_VRAM         "vram-size=256M"
#define CS_PD1_BASE     0x00800000ull   /* 8 KiB per context */
#define CS_PD0_BASE     0x00900000ull   /* 4 KiB per context */
#define CS_PT_BASE      0x00a00000ull   /* 4 KiB per context */
#define CS_DATA_BASE    0x00b00000ull   /* W pages per context */
#define CS_CODE_BASE    0x04000000ull   /* 2 MiB per context */
#define CS_VA_DATA      TGPU_LARGE_PAGE_SIZE
#define CS_GPFIFO_VA    0x0
#define CS_USERD_VA     0x1000
#define CS_PB_VA        0x2000
#define CS_SWITCHES     1000

typedef struct CtxswResult {
    double us_per_switch;
    uint32_t walks, misses, switches;
} CtxswResult;

static void put_pte(Bench *b, uint64_t table, unsigned int i, uint64_t e)
{
    uint64_t le;

    put64(&le, e);
    vram_write(b, table + i * 8ull, &le, 8);
}

static void ctxsw_setup(Bench *b, int n, int w, int blocks)
{
    uint32_t ids[32];
    int dw = TGPU_SEM_DWORDS * w + 1;
    g_autofree uint32_t *pb = g_new0(uint32_t, dw * blocks);
    g_autofree uint64_t *ring = g_new0(uint64_t, 512);

    for (int c = 0; c < n; c++) {
        uint64_t pd1 = CS_PD1_BASE + c * 8192ull;
        uint64_t pd0 = CS_PD0_BASE + c * 4096ull;
        uint64_t pt = CS_PT_BASE + c * 4096ull;
        uint64_t code = CS_CODE_BASE + c * TGPU_LARGE_PAGE_SIZE;
        uint8_t inst[TGPU_INST_FIELDS_SIZE];
        uint32_t put_le;

        put_pte(b, pd1, 0, pd0 | TGPU_PTE_VALID);
        put_pte(b, pd0, 0, code | TGPU_PTE_VALID | TGPU_PTE_LARGE);
        put_pte(b, pd0, 1, pt | TGPU_PTE_VALID);
        for (int i = 0; i < w; i++) {
            put_pte(b, pt, i, (CS_DATA_BASE + (c * w + i) * 4096ull) |
                    TGPU_PTE_VALID);
        }

        for (int k = 0; k < blocks; k++) {
            uint32_t *p = &pb[k * dw];

            for (int i = 0; i < w; i++) {
                p += put_release(p, CS_VA_DATA + i * 4096, k + 1);
            }
            put32(&p[0], TGPU_PB_HDR(TGPU_PB_OP_IMMD, 0, TGPU_M_YIELD, 0));
            put64(&ring[k], TGPU_GP_ENTRY(CS_PB_VA + k * dw * 4ull, dw, 0));
        }
        vram_write(b, code + CS_PB_VA, pb, dw * blocks * 4);
        vram_write(b, code + CS_GPFIFO_VA, ring, blocks * 8);
        put32(&put_le, blocks);
        vram_write(b, code + CS_USERD_VA + TGPU_USERD_GP_PUT, &put_le, 4);

        tgpu_inst_encode(inst, &(struct tgpu_inst) {
            .flags = TGPU_INST_FLAGS_PAGED, .asid = c + 1, .pdb = pd1,
            .gpfifo_base = CS_GPFIFO_VA, .gpfifo_log2 = 9,
            .userd = CS_USERD_VA,
        });
        vram_write(b, INST_BASE + c * TGPU_INST_SIZE, inst, sizeof(inst));
        wr(b, TGPU_CHAN_REG(c, TGPU_CHAN_INST),
           (INST_BASE + c * TGPU_INST_SIZE) >> 12);
        wr(b, TGPU_CHAN_REG(c, TGPU_CHAN_CTRL), TGPU_CHAN_CTRL_ENABLE);
        put32(&ids[c], c);
    }
    vram_write(b, RUNLIST_BASE, ids, n * 4);
    wr(b, TGPU_FIFO_RUNLIST_BASE_LO(0), RUNLIST_BASE);
}

/*
 * Has every context released its last semaphore?  Context N - 1 runs
 * the runlist's last block: only when it is done are the others read.
 */
static bool ctxsw_done(Bench *b, int n, int w, int blocks)
{
    for (int c = n - 1; c >= 0; c--) {
        uint64_t last = CS_DATA_BASE + (c * w + w - 1) * 4096ull;

        if (qpci_io_readl(b->dev, b->bar1, last) != blocks) {
            return false;
        }
    }
    return true;
}

/*
 * Time 1,000 switches.  Every poll is a trip through QEMU's main thread,
 * the thread that runs the host unit, so the first comes only after
 * HINT_US (most of the best time so far), then at 2% of the time waited:
 * a few polls per run instead of one per 100 us.
 */
static CtxswResult ctxsw_run(int n, int w, bool tagged, gint64 hint_us)
{
    int blocks = CS_SWITCHES / n;
    uint32_t walks0, misses0, sw0;
    CtxswResult r;
    gint64 t0;
    Bench b;

    bench_start_opts(&b, tagged ? CS_VRAM ",tlb-tagging=on"
                                : CS_VRAM ",tlb-tagging=off");
    ctxsw_setup(&b, n, w, blocks);
    walks0 = rd(&b, TGPU_MMU_WALKS);
    misses0 = rd(&b, TGPU_MMU_TLB_MISSES);
    sw0 = rd(&b, TGPU_FIFO_CTXSW_COUNT);

    /* all doorbells first: the runlist makes every channel runnable at once */
    for (int c = 0; c < n; c++) {
        wr(&b, TGPU_USERMODE_DOORBELL, c);
    }
    t0 = g_get_monotonic_time();
    wr(&b, TGPU_FIFO_RUNLIST_SUBMIT(0), n);
    bench_sleep_from(t0, hint_us);
    while (!ctxsw_done(&b, n, w, blocks)) {
        if (rd(&b, TGPU_FIFO_INTR)) {
            g_error("channel %u failed: error %u, info 0x%x",
                    rd(&b, TGPU_FIFO_ERR_CHID), rd(&b, TGPU_FIFO_ERR_CODE),
                    rd(&b, TGPU_FIFO_ERR_INFO));
        }
        bench_poll_pause(t0, 60);
    }
    r.us_per_switch = g_get_monotonic_time() - t0;
    g_assert_cmpuint(rd(&b, TGPU_FIFO_INTR), ==, 0);

    r.walks = rd(&b, TGPU_MMU_WALKS) - walks0;
    r.misses = rd(&b, TGPU_MMU_TLB_MISSES) - misses0;
    r.switches = rd(&b, TGPU_FIFO_CTXSW_COUNT) - sw0;
    r.us_per_switch /= r.switches;
    g_assert_cmpuint(r.switches, >=, n * blocks);
    bench_stop(&b);
    return r;
}

/*
 * Counts are exact; the time is the median of BENCH_RUNS runs after a
 * warm-up, which also gives the first hint.
 */
static CtxswResult ctxsw_median(int n, int w, bool tagged)
{
    double us[BENCH_RUNS], best;
    CtxswResult r;

    if (!g_test_perf()) {
        return ctxsw_run(n, w, tagged, 0);
    }
    r = ctxsw_run(n, w, tagged, 0);
    best = r.us_per_switch * r.switches / 1e6;
    for (int i = 0; i < BENCH_RUNS; i++) {
        r = ctxsw_run(n, w, tagged, bench_hint_us(best));
        us[i] = r.us_per_switch;
        best = MIN(best, us[i] * r.switches / 1e6);
    }
    r.us_per_switch = median(us, BENCH_RUNS);
    return r;
}

static void test_ctxsw(void)
{
    static const struct { int n, w; } cfg[] = { { 2, 16 }, { 8, 16 },
                                                 { 32, 8 } };

    for (size_t i = 0; i < ARRAY_SIZE(cfg); i++) {
        int n = cfg[i].n, w = cfg[i].w;
        CtxswResult on, off;

        if (!g_test_perf() && n != 2) {
            continue;
        }
        on = ctxsw_median(n, w, true);
        off = ctxsw_median(n, w, false);
        /* tagging keeps each context's pages across switches */
        g_assert_cmpuint(on.walks, <, off.walks);
        if (!g_test_perf()) {
            continue;
        }
        g_print("bench: mmu.ctxsw_%dctx_walks_tagged %u walks\n", n,
                on.walks);
        g_print("bench: mmu.ctxsw_%dctx_walks_untagged %u walks\n", n,
                off.walks);
        g_print("bench: mmu.ctxsw_%dctx_us_tagged %.3f us\n", n,
                on.us_per_switch);
        g_print("bench: mmu.ctxsw_%dctx_us_untagged %.3f us\n", n,
                off.us_per_switch);
        g_print("bench: mmu.ctxsw_%dctx_walk_ratio %.1f x\n", n,
                (double)off.walks / MAX(on.walks, 1));
        g_print("bench: mmu.ctxsw_%dctx_time_ratio %.2f x\n", n,
                off.us_per_switch / on.us_per_switch);
        if (n == 8) {
            g_print("bench: mmu.ctxswitch_walk_ratio %.1f x\n",
                    (double)off.walks / MAX(on.walks, 1));
            g_print("bench: mmu.ctxswitch_time_ratio %.2f x\n",
                    off.us_per_switch / on.us_per_switch);
        }
    }
}

int main(int argc, char **argv)
{
    g_test_init(&argc, &argv, NULL);
    qtest_add_func("/tgpu/bench/sem-release/1-channel", test_one_channel);
    qtest_add_func("/tgpu/bench/sem-release/8-channels", test_eight_channels);
    qtest_add_func("/tgpu/bench/ctxsw", test_ctxsw);
    return g_test_run();
}
