/*
 * QTest testcase for the tgpu copy engines: every copy shape (1D, 2D
 * pitch, fill, remap, linked list) between every pair of apertures, with
 * unaligned sizes and addresses, byte-exact; both engines at once; launch
 * errors, bad chains and mid-copy faults; reset, kill and VM stop during
 * a copy.  docs/hw/copy.md is the specification.
 *
 * The engines run on threads of their own: a test waits for a launch by
 * polling its channel (bounded by a wall-clock limit only a hang reaches).
 *
 * Copyright (c) 2026 The tgpu authors
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */

#include "qemu/osdep.h"
#include "tgpu-qtest.h"
#include "tgpu/copy.h"

#define PB_SIZE             0x8000u
#define FAULTBUF_SIZE       64

/*
 * Where the tests put things (besides the runlists and instance blocks
 * of tgpu-qtest.h), allocated at every start (ce_start): the data areas
 * first, on 2 MiB pages.
 */
static struct {                 /* VRAM */
    uint64_t a, b;              /* data, 8 MiB each */
    uint64_t big;               /* 32 MiB */
    ChanMem ch[NR_TEST_CHANNELS];
    uint64_t sem;
    uint64_t faultbuf;          /* FAULTBUF_SIZE records */
    uint64_t desc;              /* descriptors */
} L;

static struct {                 /* guest RAM */
    uint64_t big, big2;         /* 32 MiB each */
    uint64_t a, b;              /* 8 MiB each */
    uint64_t desc;
} G;

static void ce_mem_init(T *t)
{
    /*
     * One block: test_concurrent's second 32 MiB copy, to L.a, runs on
     * over L.b into L.big, which 64 MiB of VRAM leave no room to avoid.
     */
    L.a = vram_alloc_aligned(t, 48 * MiB, TGPU_LARGE_PAGE_SIZE);
    L.b = L.a + 8 * MiB;
    L.big = L.a + 16 * MiB;
    chan_mem_alloc(t, L.ch, PB_SIZE);
    L.sem = vram_alloc(t, 1 * MiB);
    L.faultbuf = vram_alloc(t, FAULTBUF_SIZE * TGPU_FAULT_RECORD_SIZE);
    L.desc = vram_alloc(t, 512 * KiB);
    G.big = ram_alloc_aligned(t, 32 * MiB, TGPU_LARGE_PAGE_SIZE);
    G.big2 = ram_alloc_aligned(t, 32 * MiB, TGPU_LARGE_PAGE_SIZE);
    G.a = ram_alloc_aligned(t, 8 * MiB, TGPU_LARGE_PAGE_SIZE);
    G.b = ram_alloc_aligned(t, 8 * MiB, TGPU_LARGE_PAGE_SIZE);
    G.desc = ram_alloc(t, 1 * MiB);
}

/* GPU virtual addresses of the paged channel */
#define V_CHAN              0x0040000000ull
#define V_SRC               0x0100000000ull
#define V_DST               0x0180000000ull

#define SC                  4               /* the copy subchannel */
#define CH_CE0              16              /* bypass, runlist CE0 */
#define CH_CE1              24              /* bypass, runlist CE1 */
#define CH_PAGED            17              /* paged, runlist CE0 */

static uint32_t seq;

static void fill_random(uint8_t *p, size_t n, uint32_t seed)
{
    uint32_t x = seed * 2654435761u + 1;

    for (size_t i = 0; i < n; i++) {
        x ^= x << 13;
        x ^= x >> 17;
        x ^= x << 5;
        p[i] = x >> 24;
    }
}

static bool all_zero(const uint8_t *p, size_t n)
{
    return n == 0 || (p[0] == 0 && !memcmp(p, p + 1, n - 1));
}

static void pa_fill(T *t, uint64_t pa, uint8_t v, size_t len)
{
    g_autofree uint8_t *b = g_malloc(len);

    memset(b, v, len);
    pa_write(t, pa, b, len);
}

/* ---- the device and its channels --------------------------------------- */

static Chan *chan_cfg(T *t, int ch)
{
    return chan_init_mem(t, ch, L.ch);
}

/* Configure, enable and bind the copy class on subchannel SC. */
static Chan *ce_chan_up_cfg(T *t, Chan *c)
{
    return chan_up_class(t, c, SC, TGPU_CLASS_COPY);
}

static Chan *ce_chan_up(T *t, int ch)
{
    return ce_chan_up_cfg(t, chan_cfg(t, ch));
}

static void ce_start(T *t, const char *opts)
{
    tgpu_start(t, opts);
    ce_mem_init(t);
    runlists_std(t);
    wr(t, TGPU_MMU_FAULT_BUF_LO, L.faultbuf);
    wr(t, TGPU_MMU_FAULT_BUF_HI, 0);
    wr(t, TGPU_MMU_FAULT_BUF_SIZE, FAULTBUF_SIZE);
    pa_zero(t, L.faultbuf, FAULTBUF_SIZE * TGPU_FAULT_RECORD_SIZE);
    ce_chan_up(t, CH_CE0);
    ce_chan_up(t, CH_CE1);
}

static uint32_t cerd(T *t, int ce, uint32_t reg)
{
    return rd(t, TGPU_CE_REG(ce, reg));
}

static uint64_t cerd64(T *t, int ce, uint32_t lo)
{
    uint64_t v = cerd(t, ce, lo);

    return v | (uint64_t)cerd(t, ce, lo + 4) << 32;
}

static int ce_of(Chan *c)
{
    return c->engine - TGPU_RUNLIST_CE0;
}

/* ---- pushbuffers -------------------------------------------------------- */

static void pb_offsets(PB *pb, uint64_t src, uint64_t dst)
{
    pb_hdr(pb, TGPU_PB_OP_INC, SC, TGPU_CE_M_OFFSET_IN_UPPER, 4);
    pb_dw(pb, src >> 32);
    pb_dw(pb, (uint32_t)src);
    pb_dw(pb, dst >> 32);
    pb_dw(pb, (uint32_t)dst);
}

static void pb_shape(PB *pb, uint32_t pitch_in, uint32_t pitch_out,
                     uint32_t len, uint32_t lines)
{
    pb_hdr(pb, TGPU_PB_OP_INC, SC, TGPU_CE_M_PITCH_IN, 4);
    pb_dw(pb, pitch_in);
    pb_dw(pb, pitch_out);
    pb_dw(pb, len);
    pb_dw(pb, lines);
}

static void pb_remap(PB *pb, uint32_t a, uint32_t b, uint32_t comps)
{
    pb_hdr(pb, TGPU_PB_OP_INC, SC, TGPU_CE_M_SET_REMAP_CONST_A, 3);
    pb_dw(pb, a);
    pb_dw(pb, b);
    pb_dw(pb, comps);
}

/* LAUNCH_DMA with FLAGS, releasing the next sequence number at SEM. */
static uint32_t pb_launch_at(PB *pb, uint32_t flags, uint64_t sem)
{
    pb_hdr(pb, TGPU_PB_OP_INC, SC, TGPU_CE_M_SET_SEMAPHORE_A, 3);
    pb_dw(pb, sem >> 32);
    pb_dw(pb, (uint32_t)sem);
    pb_dw(pb, ++seq);
    pb_m(pb, SC, TGPU_CE_M_LAUNCH_DMA,
         TGPU_CE_LAUNCH(TGPU_CE_TRANSFER_NON_PIPELINED, TGPU_CE_SEM_ONE_WORD,
                        TGPU_CE_INTR_NONE) | flags);
    return seq;
}

/* LAUNCH_DMA with FLAGS, releasing the next sequence number at L.sem. */
static uint32_t pb_launch(PB *pb, uint32_t flags)
{
    return pb_launch_at(pb, flags, L.sem);
}

/* Run PB on C; the launch must end well and release its semaphore. */
static void ce_run(T *t, Chan *c, const PB *pb, uint32_t sem)
{
    run(t, c, pb);
    g_assert_cmphex(pa_rd32(t, L.sem), ==, sem);
    g_assert_cmpuint(cerd(t, ce_of(c), TGPU_CE_ERROR), ==, 0);
    g_assert_cmpuint(cerd(t, ce_of(c), TGPU_CE_CHID), ==, c->id);
    g_assert_cmphex(cerd(t, ce_of(c), TGPU_CE_STATUS), ==, 0);
}

/*
 * Check [dst - 64, dst + len + 64) against what it held before (OLD,
 * len + 128 bytes) with WANT over [dst, dst + len).
 */
static void expect_bytes(T *t, uint64_t dst, const uint8_t *old,
                         const uint8_t *want, size_t len)
{
    g_autofree uint8_t *got = g_malloc(len + 128);

    pa_read(t, dst - 64, got, len + 128);
    g_assert_cmpmem(got, 64, old, 64);
    g_assert_cmpmem(got + 64, len, want, len);
    g_assert_cmpmem(got + 64 + len, 64, old + 64 + len, 64);
}

/*
 * The data areas as the static case tables below name them (the areas
 * are allocated at start): a tag in bits 56 and up, and an offset.
 */
#define IN_LA               (1ull << 56)
#define IN_LB               (2ull << 56)
#define IN_GA               (3ull << 56)
#define IN_GB               (4ull << 56)

static uint64_t area(uint64_t v)
{
    uint64_t off = v & (IN_LA - 1);

    switch (v >> 56) {
    case 0:
        return v;
    case 1:
        return L.a + off;
    case 2:
        return L.b + off;
    case 3:
        return SYS(G.a) + off;
    case 4:
        return SYS(G.b) + off;
    }
    g_assert_not_reached();
}

/* ---- 1D copies ---------------------------------------------------------- */

static void test_copy_1d(void)
{
    static const struct {
        uint64_t src, dst;
        uint32_t len;
    } cases[] = {
        { IN_LA, IN_LB, 1 },
        { IN_LA + 1, IN_LB + 3, 3 },
        { IN_LA + 0xfff, IN_LB + 0x1001, 4097 },
        { IN_LA + 5, IN_LB + 6, 65536 + 13 },
        { IN_GA + 7, IN_LB + 1, 1 * MiB + 7 },
        { IN_LA + 3, IN_GB + 0xffd, 300001 },
        { IN_GA + 0x800, IN_GB + 2, 2 * MiB + 1 },
        { IN_GA, IN_GB, 4096 },
        { IN_LA, IN_LB, 5 * MiB + 3 },
    };
    T t;

    ce_start(&t, NULL);
    for (size_t i = 0; i < ARRAY_SIZE(cases); i++) {
        Chan *c = &t.ch[i % 2 ? CH_CE1 : CH_CE0];
        uint32_t len = cases[i].len;
        g_autofree uint8_t *src = g_malloc(len);
        g_autofree uint8_t *old = g_malloc(len + 128);
        g_autofree PB *pb = pb_new();
        uint64_t before = cerd64(&t, ce_of(c), TGPU_CE_BYTES_LO);
        uint32_t launches = cerd(&t, ce_of(c), TGPU_CE_LAUNCHES), sem;

        g_test_message("1D copy case %zu: %u bytes on CE%d", i, len,
                       ce_of(c));
        fill_random(src, len, i);
        pa_write(&t, area(cases[i].src), src, len);
        fill_random(old, len + 128, 100 + i);
        pa_write(&t, area(cases[i].dst) - 64, old, len + 128);

        pb_offsets(pb, area(cases[i].src), area(cases[i].dst));
        pb_shape(pb, 0, 0, len, 0);
        sem = pb_launch(pb, 0);
        ce_run(&t, c, pb, sem);

        expect_bytes(&t, area(cases[i].dst), old, src, len);
        g_assert_cmpuint(cerd64(&t, ce_of(c), TGPU_CE_PROGRESS_LO), ==, len);
        g_assert_cmpuint(cerd64(&t, ce_of(c), TGPU_CE_BYTES_LO), ==,
                         before + len);
        g_assert_cmpuint(cerd(&t, ce_of(c), TGPU_CE_LAUNCHES), ==,
                         launches + 1);
    }
    tgpu_stop(&t);
}

/* ---- 2D copies, fills and remaps ---------------------------------------- */

/* What the engine must make of a pitch launch, computed here. */
static void model_pitch(uint8_t *dst, const uint8_t *src, uint32_t len,
                        uint32_t lines, uint32_t pin, uint32_t pout)
{
    for (uint32_t l = 0; l < lines; l++) {
        memcpy(dst + (uint64_t)l * pout, src + (uint64_t)l * pin, len);
    }
}

static void test_copy_2d(void)
{
    static const struct {
        uint64_t src, dst;
        uint32_t len, lines, pin, pout;
    } cases[] = {
        { IN_LA + 1, IN_LB + 3, 100, 37, 128, 301 },
        { IN_GA + 9, IN_LB, 4097, 9, 8192, 4099 },
        { IN_LA, IN_GB + 1, 1, 1000, 3, 7 },
        { IN_GA, IN_GB + 17, 777, 64, 777, 1024 },
        { IN_LA + 2, IN_LB + 2, 64, 3, 0, 64 },         /* one source line */
    };
    T t;

    ce_start(&t, NULL);
    for (size_t i = 0; i < ARRAY_SIZE(cases); i++) {
        Chan *c = &t.ch[i % 2 ? CH_CE0 : CH_CE1];
        uint32_t len = cases[i].len, lines = cases[i].lines;
        uint32_t pin = cases[i].pin, pout = cases[i].pout;
        size_t sspan = (size_t)pin * (lines - 1) + len;
        size_t dspan = (size_t)pout * (lines - 1) + len;
        g_autofree uint8_t *src = g_malloc(sspan);
        g_autofree uint8_t *old = g_malloc(dspan + 128);
        g_autofree uint8_t *want = g_malloc(dspan);
        g_autofree PB *pb = pb_new();
        uint32_t sem;

        g_test_message("2D copy case %zu", i);
        fill_random(src, sspan, 200 + i);
        pa_write(&t, area(cases[i].src), src, sspan);
        fill_random(old, dspan + 128, 300 + i);
        pa_write(&t, area(cases[i].dst) - 64, old, dspan + 128);
        memcpy(want, old + 64, dspan);
        model_pitch(want, src, len, lines, pin, pout);

        pb_offsets(pb, area(cases[i].src), area(cases[i].dst));
        pb_shape(pb, pin, pout, len, lines);
        sem = pb_launch(pb, TGPU_CE_LAUNCH_MULTI_LINE);
        ce_run(&t, c, pb, sem);

        expect_bytes(&t, area(cases[i].dst), old, want, dspan);
        g_assert_cmpuint(cerd64(&t, ce_of(c), TGPU_CE_PROGRESS_LO), ==,
                         (uint64_t)len * lines);
    }
    tgpu_stop(&t);
}

/* A remap of ELEMS elements per line, modelled component by component. */
static void model_remap(uint8_t *dst, const uint8_t *src, uint32_t elems,
                        uint32_t comps, uint32_t a, uint32_t b)
{
    unsigned int cs = ((comps >> TGPU_CE_REMAP_COMP_SIZE_SHIFT) & 3) + 1;
    unsigned int ns = ((comps >> TGPU_CE_REMAP_NUM_SRC_SHIFT) & 3) + 1;
    unsigned int nd = ((comps >> TGPU_CE_REMAP_NUM_DST_SHIFT) & 3) + 1;
    uint8_t k[2][4];

    stl_le_p(k[0], a);
    stl_le_p(k[1], b);
    for (uint32_t e = 0; e < elems; e++) {
        for (unsigned int c = 0; c < nd; c++) {
            unsigned int sel = (comps >> (4 * c)) & 7;
            uint8_t *d = dst + (e * nd + c) * cs;

            if (sel <= TGPU_CE_REMAP_SRC_W) {
                memcpy(d, src + (e * ns + sel) * cs, cs);
            } else if (sel != TGPU_CE_REMAP_NO_WRITE) {
                memcpy(d, k[sel - TGPU_CE_REMAP_CONST_A], cs);
            }
        }
    }
}

static void test_fill_remap(void)
{
    enum { A = TGPU_CE_REMAP_CONST_A, B = TGPU_CE_REMAP_CONST_B,
           X = TGPU_CE_REMAP_SRC_X, Y = TGPU_CE_REMAP_SRC_Y,
           Z = TGPU_CE_REMAP_SRC_Z, W = TGPU_CE_REMAP_SRC_W,
           N = TGPU_CE_REMAP_NO_WRITE };
    static const struct {
        uint64_t src, dst;
        uint32_t comps, elems, lines, pin, pout;
    } cases[] = {
        /* fills: memset32, memset8, 6-byte elements, 2D */
        { 0, IN_LB + 1, TGPU_CE_REMAP(A, 0, 0, 0, 4, 1, 1), 300001, 1, 0, 0 },
        { 0, IN_GB + 3, TGPU_CE_REMAP(A, 0, 0, 0, 1, 1, 1), 70001, 1,
          0, 0 },
        { 0, IN_LB + 5, TGPU_CE_REMAP(A, B, 0, 0, 3, 1, 2), 12345, 1, 0, 0 },
        { 0, IN_LB, TGPU_CE_REMAP(B, A, B, 0, 2, 1, 3), 33, 17, 0, 250 },
        /* swizzles: RGBA to ABGR, with constants, with NO_WRITE */
        { IN_LA + 1, IN_LB + 2, TGPU_CE_REMAP(W, Z, Y, X, 1, 4, 4), 10007, 1,
          0, 0 },
        { IN_GA, IN_LB, TGPU_CE_REMAP(Y, A, X, B, 2, 2, 4), 5000, 3,
          20000, 40011 },
        { IN_LA, IN_GB + 1, TGPU_CE_REMAP(X, N, Z, N, 4, 3, 4), 4099, 1,
          0, 0 },
    };
    T t;

    ce_start(&t, NULL);
    for (size_t i = 0; i < ARRAY_SIZE(cases); i++) {
        Chan *c = &t.ch[i % 2 ? CH_CE0 : CH_CE1];
        uint32_t comps = cases[i].comps;
        unsigned int cs = ((comps >> TGPU_CE_REMAP_COMP_SIZE_SHIFT) & 3) + 1;
        unsigned int ns = ((comps >> TGPU_CE_REMAP_NUM_SRC_SHIFT) & 3) + 1;
        unsigned int nd = ((comps >> TGPU_CE_REMAP_NUM_DST_SHIFT) & 3) + 1;
        uint32_t elems = cases[i].elems, lines = cases[i].lines;
        size_t sline = (size_t)elems * cs * ns, dline = (size_t)elems * cs * nd;
        size_t sspan = (size_t)cases[i].pin * (lines - 1) + sline;
        size_t dspan = (size_t)cases[i].pout * (lines - 1) + dline;
        g_autofree uint8_t *src = g_malloc(sspan);
        g_autofree uint8_t *old = g_malloc(dspan + 128);
        g_autofree uint8_t *want = g_malloc(dspan);
        g_autofree PB *pb = pb_new();
        uint32_t a = 0x89abcdefu + i, b = 0x01234567u * (i + 1), sem;

        g_test_message("fill/remap case %zu", i);
        fill_random(src, sspan, 400 + i);
        if (area(cases[i].src)) {
            pa_write(&t, area(cases[i].src), src, sspan);
        }
        fill_random(old, dspan + 128, 500 + i);
        pa_write(&t, area(cases[i].dst) - 64, old, dspan + 128);
        memcpy(want, old + 64, dspan);
        for (uint32_t l = 0; l < lines; l++) {
            model_remap(want + (size_t)l * cases[i].pout,
                        src + (size_t)l * cases[i].pin, elems, comps, a, b);
        }

        pb_offsets(pb, area(cases[i].src), area(cases[i].dst));
        pb_shape(pb, cases[i].pin, cases[i].pout, elems, lines);
        pb_remap(pb, a, b, comps);
        sem = pb_launch(pb, TGPU_CE_LAUNCH_REMAP |
                        (lines > 1 ? TGPU_CE_LAUNCH_MULTI_LINE : 0));
        ce_run(&t, c, pb, sem);
        expect_bytes(&t, area(cases[i].dst), old, want, dspan);
    }
    tgpu_stop(&t);
}

/* ---- linked lists -------------------------------------------------------- */

typedef struct Desc {
    uint64_t src, dst, next;
    uint32_t len, flags;
} Desc;

static void desc_write(T *t, uint64_t at, const Desc *d)
{
    uint8_t raw[TGPU_CE_DESC_SIZE];

    stq_le_p(raw + TGPU_CE_DESC_SRC, d->src);
    stq_le_p(raw + TGPU_CE_DESC_DST, d->dst);
    stq_le_p(raw + TGPU_CE_DESC_NEXT, d->next);
    stl_le_p(raw + TGPU_CE_DESC_LENGTH, d->len);
    stl_le_p(raw + TGPU_CE_DESC_FLAGS, d->flags);
    pa_write(t, at, raw, sizeof(raw));
}

static uint32_t pb_list(PB *pb, uint64_t head, uint32_t fill)
{
    pb_hdr(pb, TGPU_PB_OP_INC, SC, TGPU_CE_M_DESC_LIST_UPPER, 2);
    pb_dw(pb, head >> 32);
    pb_dw(pb, (uint32_t)head);
    pb_m(pb, SC, TGPU_CE_M_SET_REMAP_CONST_A, fill);
    return pb_launch(pb, TGPU_CE_LAUNCH_LINKED_LIST);
}

static void test_linked_list(void)
{
    enum { N = 24 };
    uint64_t src_base[2], dst_base[2], desc_base[2];
    const uint32_t span = 4 * MiB;
    g_autofree uint8_t *src = g_malloc(span);
    g_autofree uint8_t *want[2] = { g_malloc(span), g_malloc(span) };
    g_autofree uint8_t *got = g_malloc(span);
    g_autofree PB *pb = pb_new();
    uint32_t fill = 0xc0ffee11, sem;
    uint8_t fb[4];
    uint64_t off = 0, total = 0;
    T t;

    ce_start(&t, NULL);
    src_base[0] = L.a;
    src_base[1] = SYS(G.a);
    dst_base[0] = L.b;
    dst_base[1] = SYS(G.b);
    desc_base[0] = L.desc;
    desc_base[1] = SYS(G.desc);
    fill_random(src, span, 7);
    pa_write(&t, src_base[0], src, span);
    pa_write(&t, src_base[1], src, span);
    for (int a = 0; a < 2; a++) {
        fill_random(want[a], span, 8 + a);
        pa_write(&t, dst_base[a], want[a], span);
    }
    stl_le_p(fb, fill);

    /* N descriptors alternating between memories, some fills, one empty */
    for (uint32_t i = 0; i < N; i++) {
        Desc d = {
            .len = i == 5 ? 0 : 1 + (i * 7919u) % 100000,
            .flags = i % 4 == 3 ? TGPU_CE_DESC_FILL : 0,
        };
        int sa = i % 2, da = (i / 2) % 2, dl = (i / 3) % 2;
        uint64_t soff = (i * 40503u) % (span - d.len);

        d.src = src_base[sa] + soff;
        d.dst = dst_base[da] + off;
        d.next = i + 1 < N ? desc_base[((i + 1) / 3) % 2] +
                             TGPU_CE_DESC_SIZE * (i + 1) : 0;
        desc_write(&t, desc_base[dl] + TGPU_CE_DESC_SIZE * i, &d);
        for (uint32_t k = 0; k < d.len; k++) {
            want[da][off + k] = d.flags ? fb[k % 4] : src[soff + k];
        }
        off += d.len + 3;
        total += d.len;
        g_assert_cmpuint(off, <, span);
    }
    sem = pb_list(pb, desc_base[0], fill);
    ce_run(&t, &t.ch[CH_CE1], pb, sem);
    for (int a = 0; a < 2; a++) {
        pa_read(&t, dst_base[a], got, span);
        g_assert_cmpmem(got, span, want[a], span);
    }
    g_assert_cmpuint(cerd(&t, 1, TGPU_CE_DESC_DONE), ==, N);
    g_assert_cmpuint(cerd64(&t, 1, TGPU_CE_PROGRESS_LO), ==, total);

    /* an empty list: only the semaphore */
    pb->n = 0;
    sem = pb_list(pb, 0, 0);
    ce_run(&t, &t.ch[CH_CE0], pb, sem);
    g_assert_cmpuint(cerd(&t, 0, TGPU_CE_DESC_DONE), ==, 0);
    tgpu_stop(&t);
}

/* ---- through the MMU ----------------------------------------------------- */

/*
 * The paged channel CH_PAGED in context X: its GPFIFO, USERD and
 * pushbuffer in one 2 MiB VRAM page at V_CHAN.
 */
static Chan *paged_up(T *t, Ctx *x)
{
    Chan *c = chan_cfg(t, CH_PAGED);

    c->ctx = x;
    c->flags = TGPU_INST_FLAGS_PAGED;
    c->asid = x->asid;
    c->pdb = x->pdb;
    c->gpfifo = V_CHAN;
    c->log2 = 6;
    c->userd = V_CHAN + 0x800;
    c->pb = V_CHAN + 0x1000;
    c->pb_size = PB_SIZE;
    map2m(t, x, V_CHAN, L.big + 30 * MiB, 0);
    map4k(t, x, L.sem, L.sem, 0);       /* the semaphores, as in bypass */
    return ce_chan_up_cfg(t, c);
}

static void test_mmu(void)
{
    enum { PAGES = 12 };
    const uint32_t len = PAGES * 4096 - 4096 + 77;
    g_autofree uint8_t *src = g_malloc(PAGES * 4096);
    g_autofree uint8_t *old = g_malloc(len + 128);
    g_autofree PB *pb = pb_new();
    uint32_t sem, miss;
    Chan *c;
    Ctx x;
    T t;

    ce_start(&t, NULL);
    ctx_init(&t, &x, 0x42);
    c = paged_up(&t, &x);

    /* source: 4 KiB system pages in reverse order; dest: a 2 MiB VRAM page */
    fill_random(src, PAGES * 4096, 11);
    for (int i = 0; i < PAGES; i++) {
        uint64_t pa = SYS(G.a) + (PAGES - 1 - i) * 4096;

        map4k(&t, &x, V_SRC + i * 4096, pa, 0);
        pa_write(&t, pa, src + i * 4096, 4096);
    }
    map2m(&t, &x, V_DST, L.big, 0);
    fill_random(old, len + 128, 12);
    pa_write(&t, L.big + 0x1000 - 64, old, len + 128);

    miss = rd(&t, TGPU_MMU_TLB_MISSES);
    pb_offsets(pb, V_SRC + 0x123, V_DST + 0x1000);
    pb_shape(pb, 0, 0, len, 0);
    sem = pb_launch(pb, 0);
    ce_run(&t, c, pb, sem);
    expect_bytes(&t, L.big + 0x1000, old, src + 0x123, len);
    /* every source page and the destination page missed once */
    g_assert_cmpuint(rd(&t, TGPU_MMU_TLB_MISSES) - miss, >=, PAGES + 1);
    tgpu_stop(&t);
}

/* ---- errors ------------------------------------------------------------ */

/* C must fail with TGPU_ERR_COPY for ERR; acknowledge and reset it. */
static void expect_copy_err(T *t, Chan *c, uint32_t err)
{
    uint32_t info = TGPU_CE_ERR_INFO(ce_of(c), err);

    wait_state(t, c->id, TGPU_CHAN_STATE_ERROR);
    g_assert_cmpuint(crd(t, c->id, TGPU_CHAN_ERROR), ==, TGPU_ERR_COPY);
    g_assert_cmphex(crd(t, c->id, TGPU_CHAN_ERROR_INFO), ==, info);
    g_assert_cmpuint(rd(t, TGPU_FIFO_ERR_CHID), ==, c->id);
    g_assert_cmphex(rd(t, TGPU_FIFO_ERR_INFO), ==, info);
    g_assert_cmpuint(cerd(t, ce_of(c), TGPU_CE_ERROR), ==, err);
    g_assert_cmpuint(cerd(t, ce_of(c), TGPU_CE_STATUS), ==, 0);
    err_ack(t, c->id);
    chan_reset(t, c->id);
}

/* The engine and channel C still copy correctly (after an error). */
static void check_alive(T *t, Chan *c)
{
    g_autofree PB *pb = pb_new();
    uint32_t sem;

    if (chan_state(t, c->id) != TGPU_CHAN_STATE_IDLE) {
        chan_reset(t, c->id);
        ce_chan_up(t, c->id);
    }
    pa_wr32(t, L.a + 0x7000, 0x5a5a0000 + seq);
    pb_offsets(pb, L.a + 0x7000, L.b + 0x7000);
    pb_shape(pb, 0, 0, 4, 0);
    sem = pb_launch(pb, 0);
    ce_run(t, c, pb, sem);
    g_assert_cmphex(pa_rd32(t, L.b + 0x7000), ==, 0x5a5a0000 + sem - 1);
    assert_no_error_pending(t);
}

static void test_err_launch(void)
{
    static const struct {
        uint32_t launch, comps, err;
    } cases[] = {
        { TGPU_CE_LAUNCH(1, 0, 0) | (1u << 31), 0, TGPU_CE_ERR_LAUNCH },
        { TGPU_CE_LAUNCH(3, 0, 0), 0, TGPU_CE_ERR_LAUNCH },
        { TGPU_CE_LAUNCH(1, 3, 0), 0, TGPU_CE_ERR_LAUNCH },
        { TGPU_CE_LAUNCH(1, 0, 3), 0, TGPU_CE_ERR_LAUNCH },
        { 1, 0, TGPU_CE_ERR_LAUNCH },               /* block linear */
        { TGPU_CE_LAUNCH(1, 0, 0) | TGPU_CE_LAUNCH_SRC_PHYSICAL, 0,
          TGPU_CE_ERR_LAUNCH },
        { TGPU_CE_LAUNCH(1, 0, 0) | TGPU_CE_LAUNCH_SEM_REDUCTION, 0,
          TGPU_CE_ERR_LAUNCH },
        { TGPU_CE_LAUNCH(1, 0, 0) | TGPU_CE_LAUNCH_LINKED_LIST |
          TGPU_CE_LAUNCH_MULTI_LINE, 0, TGPU_CE_ERR_LAUNCH },
        { TGPU_CE_LAUNCH(1, 0, 0) | TGPU_CE_LAUNCH_REMAP, 7,
          TGPU_CE_ERR_REMAP },
        { TGPU_CE_LAUNCH(1, 0, 0) | TGPU_CE_LAUNCH_REMAP,
          TGPU_CE_REMAP(TGPU_CE_REMAP_SRC_Y, 0, 0, 0, 4, 1, 1),
          TGPU_CE_ERR_REMAP },
        { TGPU_CE_LAUNCH(1, 0, 0) | TGPU_CE_LAUNCH_REMAP, 1u << 30,
          TGPU_CE_ERR_REMAP },
    };
    T t;

    ce_start(&t, NULL);
    for (size_t i = 0; i < ARRAY_SIZE(cases); i++) {
        Chan *c = &t.ch[i % 2 ? CH_CE1 : CH_CE0];
        g_autofree PB *pb = pb_new();

        g_test_message("launch error case %zu", i);
        pa_wr32(&t, L.b, 0x11111111);
        pa_wr32(&t, L.a, 0x22222222);
        pb_offsets(pb, L.a, L.b);
        pb_shape(pb, 0, 0, 4, 1);
        pb_remap(pb, 0, 0, cases[i].comps);
        pb_m(pb, SC, TGPU_CE_M_LAUNCH_DMA, cases[i].launch);
        pb_m(pb, SC, TGPU_CE_M_LAUNCH_DMA,
             TGPU_CE_LAUNCH(1, 0, 0));              /* never runs */
        submit(&t, c, pb);
        expect_copy_err(&t, c, cases[i].err);
        g_assert_cmphex(pa_rd32(&t, L.b), ==, 0x11111111);
        check_alive(&t, c);
    }
    tgpu_stop(&t);
}

/* The fault buffer's record I: VA, ASID, channel, engine, access, type. */
static void expect_fault_record(T *t, uint32_t i, uint64_t va, uint32_t asid,
                                uint32_t ch, uint8_t engine, uint8_t access,
                                uint8_t type)
{
    uint8_t rec[TGPU_FAULT_RECORD_SIZE];

    g_assert_cmpuint(rd(t, TGPU_MMU_FAULT_BUF_PUT), ==, i + 1);
    pa_read(t, L.faultbuf + i * TGPU_FAULT_RECORD_SIZE, rec, sizeof(rec));
    g_assert_cmphex(ldq_le_p(rec + TGPU_FAULT_REC_VA), ==, va);
    g_assert_cmpuint(ldl_le_p(rec + TGPU_FAULT_REC_ASID), ==, asid);
    g_assert_cmpuint(ldl_le_p(rec + TGPU_FAULT_REC_CHID), ==, ch);
    g_assert_cmpuint(rec[TGPU_FAULT_REC_ENGINE], ==, engine);
    g_assert_cmpuint(rec[TGPU_FAULT_REC_ACCESS], ==, access);
    g_assert_cmpuint(rec[TGPU_FAULT_REC_TYPE], ==, type);
    g_assert_cmpuint(rec[TGPU_FAULT_REC_VALID], ==, 1);
}

static void test_err_fault(void)
{
    enum { PAGES = 6 };
    const uint64_t hole = V_SRC + PAGES * 4096;
    g_autofree uint8_t *src = g_malloc(PAGES * 4096);
    g_autofree uint8_t *got = g_malloc((PAGES + 1) * 4096);
    g_autofree PB *pb = pb_new();
    uint32_t done = PAGES * 4096 - 0x10;
    Chan *c;
    Ctx x;
    T t;

    ce_start(&t, NULL);
    ctx_init(&t, &x, 0x77);
    c = paged_up(&t, &x);
    fill_random(src, PAGES * 4096, 21);
    for (int i = 0; i < PAGES; i++) {
        map4k(&t, &x, V_SRC + i * 4096, SYS(G.a) + i * 4096, 0);
    }
    pa_write(&t, SYS(G.a), src, PAGES * 4096);
    map2m(&t, &x, V_DST, L.big, 0);
    map4k(&t, &x, V_DST + TGPU_LARGE_PAGE_SIZE, L.big + 4 * MiB,
          TGPU_PTE_READ_ONLY);
    pa_zero(&t, L.big, (PAGES + 1) * 4096);

    /* the source runs into an unmapped page mid-copy */
    pb_offsets(pb, V_SRC + 0x10, V_DST);
    pb_shape(pb, 0, 0, 3 * PAGES * 4096, 0);
    pb_launch(pb, 0);
    submit(&t, c, pb);
    expect_copy_err(&t, c, TGPU_CE_ERR_FAULT);
    g_assert_cmpuint(cerd64(&t, 0, TGPU_CE_PROGRESS_LO), ==, done);
    g_assert_cmphex(cerd64(&t, 0, TGPU_CE_ERROR_VA_LO), ==, hole);
    expect_fault_record(&t, 0, hole, 0x77, CH_PAGED, TGPU_FAULT_ENGINE_CE0,
                        TGPU_FAULT_ACCESS_READ, TGPU_FAULT_NOT_PRESENT);
    pa_read(&t, L.big, got, (PAGES + 1) * 4096);
    g_assert_cmpmem(got, done, src + 0x10, done);
    g_assert_true(all_zero(got + done, (PAGES + 1) * 4096 - done));

    /* the destination runs into a read-only page */
    c = paged_up(&t, &x);
    pb->n = 0;
    pb_offsets(pb, V_SRC, V_DST + TGPU_LARGE_PAGE_SIZE - 100);
    pb_shape(pb, 0, 0, 1000, 0);
    pb_launch(pb, 0);
    submit(&t, c, pb);
    expect_copy_err(&t, c, TGPU_CE_ERR_FAULT);
    g_assert_cmpuint(cerd64(&t, 0, TGPU_CE_PROGRESS_LO), ==, 100);
    expect_fault_record(&t, 1, V_DST + TGPU_LARGE_PAGE_SIZE, 0x77, CH_PAGED,
                        TGPU_FAULT_ENGINE_CE0, TGPU_FAULT_ACCESS_WRITE,
                        TGPU_FAULT_READ_ONLY);

    /* bypass CE1: past the end of VRAM, and guest memory that is not RAM */
    pb->n = 0;
    pb_offsets(pb, L.a, VRAM_SIZE - 8);
    pb_shape(pb, 0, 0, 16, 0);
    pb_launch(pb, 0);
    submit(&t, &t.ch[CH_CE1], pb);
    expect_copy_err(&t, &t.ch[CH_CE1], TGPU_CE_ERR_FAULT);
    g_assert_cmpuint(cerd64(&t, 1, TGPU_CE_PROGRESS_LO), ==, 8);
    expect_fault_record(&t, 2, VRAM_SIZE, 0, CH_CE1, TGPU_FAULT_ENGINE_CE1,
                        TGPU_FAULT_ACCESS_WRITE, TGPU_FAULT_BAD_APERTURE);
    ce_chan_up(&t, CH_CE1);
    pb->n = 0;
    pb_offsets(pb, SYS(G_UNMAPPED), L.b);
    pb_shape(pb, 0, 0, 16, 0);
    pb_launch(pb, 0);
    submit(&t, &t.ch[CH_CE1], pb);
    expect_copy_err(&t, &t.ch[CH_CE1], TGPU_CE_ERR_FAULT);
    expect_fault_record(&t, 3, SYS(G_UNMAPPED), 0, CH_CE1,
                        TGPU_FAULT_ENGINE_CE1, TGPU_FAULT_ACCESS_READ,
                        TGPU_FAULT_BAD_APERTURE);
    check_alive(&t, &t.ch[CH_CE0]);
    check_alive(&t, &t.ch[CH_CE1]);
    tgpu_stop(&t);
}

static void test_err_chain(void)
{
    g_autofree PB *pb = pb_new();
    uint64_t d;
    Chan *c;
    T t;

    ce_start(&t, NULL);
    d = L.desc;
    c = &t.ch[CH_CE0];

    /* a self loop, a loop of three after a tail of five */
    for (int k = 0; k < 2; k++) {
        int n = k ? 8 : 1, back = k ? 5 : 0;

        for (int i = 0; i < n; i++) {
            Desc e = {
                .src = L.a, .dst = L.b + 16 * i, .len = 16,
                .next = d + TGPU_CE_DESC_SIZE * (i + 1 < n ? i + 1 : back),
            };
            desc_write(&t, d + TGPU_CE_DESC_SIZE * i, &e);
        }
        pa_zero(&t, L.b, 256);
        pb->n = 0;
        pb_list(pb, d, 0);
        submit(&t, c, pb);
        expect_copy_err(&t, c, TGPU_CE_ERR_CHAIN_CYCLE);
        /* the chain is checked before anything is copied */
        g_assert_cmpuint(cerd(&t, 0, TGPU_CE_DESC_DONE), ==, 0);
        g_assert_cmpuint(cerd64(&t, 0, TGPU_CE_PROGRESS_LO), ==, 0);
        g_assert_cmphex(pa_rd64(&t, L.b), ==, 0);
        check_alive(&t, c);
    }

    /* one descriptor over the limit */
    {
        uint32_t n = TGPU_CE_CHAIN_MAX + 1;
        g_autofree uint8_t *raw = g_malloc0((size_t)n * TGPU_CE_DESC_SIZE);

        for (uint32_t i = 0; i < n; i++) {
            uint8_t *e = raw + (size_t)i * TGPU_CE_DESC_SIZE;

            stq_le_p(e + TGPU_CE_DESC_SRC, L.a);
            stq_le_p(e + TGPU_CE_DESC_DST, L.b);
            stq_le_p(e + TGPU_CE_DESC_NEXT, i + 1 < n ?
                     SYS(G.big) + (uint64_t)(i + 1) * TGPU_CE_DESC_SIZE : 0);
            stl_le_p(e + TGPU_CE_DESC_LENGTH, 1);
        }
        pa_write(&t, SYS(G.big), raw, (size_t)n * TGPU_CE_DESC_SIZE);
        pb->n = 0;
        pb_list(pb, SYS(G.big), 0);
        submit(&t, c, pb);
        expect_copy_err(&t, c, TGPU_CE_ERR_CHAIN_LONG);
        g_assert_cmphex(cerd64(&t, 0, TGPU_CE_ERROR_VA_LO), ==,
                        SYS(G.big) + (uint64_t)TGPU_CE_CHAIN_MAX *
                        TGPU_CE_DESC_SIZE);
        check_alive(&t, c);

        /* exactly the limit is fine */
        stq_le_p(raw + (size_t)(n - 2) * TGPU_CE_DESC_SIZE +
                 TGPU_CE_DESC_NEXT, 0);
        pa_write(&t, SYS(G.big) + (size_t)(n - 2) * TGPU_CE_DESC_SIZE,
                 raw + (size_t)(n - 2) * TGPU_CE_DESC_SIZE,
                 TGPU_CE_DESC_SIZE);
        pb->n = 0;
        ce_run(&t, c, pb, pb_list(pb, SYS(G.big), 0));
        g_assert_cmpuint(cerd(&t, 0, TGPU_CE_DESC_DONE), ==,
                         TGPU_CE_CHAIN_MAX);
    }

    /* bad flags, a misaligned next, an unreachable descriptor */
    {
        Desc ok = { .src = L.a, .dst = L.b, .len = 8, .next = d + 32 };
        Desc bad = { .src = L.a, .dst = L.b, .len = 8, .flags = 2 };
        Desc mis = { .src = L.a, .dst = L.b, .len = 8, .next = d + 72 };
        Desc far = { .src = L.a, .dst = L.b, .len = 8, .next = VRAM_GAP };

        desc_write(&t, d, &ok);
        desc_write(&t, d + 32, &bad);
        pb->n = 0;
        pb_list(pb, d, 0);
        submit(&t, c, pb);
        expect_copy_err(&t, c, TGPU_CE_ERR_DESC_BAD);
        g_assert_cmphex(cerd64(&t, 0, TGPU_CE_ERROR_VA_LO), ==, d + 32);
        check_alive(&t, c);

        desc_write(&t, d + 32, &mis);
        pb->n = 0;
        pb_list(pb, d, 0);
        submit(&t, c, pb);
        expect_copy_err(&t, c, TGPU_CE_ERR_DESC_BAD);
        g_assert_cmphex(cerd64(&t, 0, TGPU_CE_ERROR_VA_LO), ==, d + 72);
        check_alive(&t, c);

        desc_write(&t, d + 32, &far);
        pb->n = 0;
        pb_list(pb, d, 0);
        submit(&t, c, pb);
        expect_copy_err(&t, c, TGPU_CE_ERR_DESC_FAULT);
        g_assert_cmphex(cerd64(&t, 0, TGPU_CE_ERROR_VA_LO), ==, VRAM_GAP);
        expect_fault_record(&t, 0, VRAM_GAP, 0, CH_CE0,
                            TGPU_FAULT_ENGINE_CE0, TGPU_FAULT_ACCESS_READ,
                            TGPU_FAULT_BAD_APERTURE);
        check_alive(&t, c);
    }
    tgpu_stop(&t);
}

/* ---- concurrency, reset, kill, VM stop --------------------------------- */

/*
 * A slow launch on C: 2^19 lines of 64 bytes, each translated on its
 * own, from system memory into VRAM.  Returns its semaphore value.
 */
static uint32_t submit_slow(T *t, Chan *c, uint64_t src, uint64_t dst)
{
    g_autofree PB *pb = pb_new();
    uint32_t sem;

    pb_offsets(pb, src, dst);
    pb_shape(pb, 64, 64, 64, 1u << 19);
    sem = pb_launch(pb, TGPU_CE_LAUNCH_MULTI_LINE);
    submit(t, c, pb);
    return sem;
}

static bool ce_busy(T *t, int ce)
{
    return cerd(t, ce, TGPU_CE_STATUS) & TGPU_CE_STATUS_BUSY;
}

static void test_concurrent(void)
{
    bool both = false;
    T t;

    ce_start(&t, NULL);
    submit_slow(&t, &t.ch[CH_CE0], SYS(G.big), L.big);
    submit_slow(&t, &t.ch[CH_CE1], SYS(G.big2), L.a);
    /* CE1 is busy between two reads that both find CE0 busy */
    for (int i = 0; i < 100 && !both; i++) {
        both = ce_busy(&t, 0) && ce_busy(&t, 1) && ce_busy(&t, 0);
    }
    g_assert_true(both);
    g_assert_cmpuint(chan_state(&t, CH_CE0), ==, TGPU_CHAN_STATE_RUNNING);
    g_assert_cmpuint(chan_state(&t, CH_CE1), ==, TGPU_CHAN_STATE_RUNNING);
    wait_done(&t, &t.ch[CH_CE0]);
    wait_done(&t, &t.ch[CH_CE1]);
    g_assert_cmpuint(cerd64(&t, 0, TGPU_CE_PROGRESS_LO), ==, 32 * MiB);
    g_assert_cmpuint(cerd64(&t, 1, TGPU_CE_PROGRESS_LO), ==, 32 * MiB);
    tgpu_stop(&t);
}

/* ---- migration --------------------------------------------------------- */

/*
 * Under deterministic=on the engine takes one step (4 MiB at most) per
 * tick of the virtual clock.  Step C's launch of TOTAL bytes until it
 * has written a third of them, save the VM with migrate to a file and
 * restore it into a new QEMU.  Returns the bytes written then.
 */
static uint64_t migrate_midway(T *t, Chan *c, uint32_t sem, uint64_t total)
{
    int ce = ce_of(c);
    uint64_t p = 0;

    settle(t);
    for (int i = 0; i < 1000 && p < total / 3; i++) {
        step(t, TGPU_DET_TICK_NS);
        p = cerd64(t, ce, TGPU_CE_PROGRESS_LO);
    }
    g_test_message("migrating at %" PRIu64 " of %" PRIu64 " bytes", p, total);
    g_assert_cmpuint(p, >=, total / 3);
    g_assert_cmpuint(p, <, total);
    g_assert_true(ce_busy(t, ce));
    g_assert_cmphex(pa_rd32(t, L.sem), !=, sem);
    tgpu_migrate(t);
    g_assert_true(ce_busy(t, ce));
    g_assert_cmpuint(cerd64(t, ce, TGPU_CE_PROGRESS_LO), ==, p);
    return p;
}

/*
 * Step the restored launch to its end.  The tests change its source
 * before: a launch that started again, rather than going on from its
 * place, copies the new bytes where the old ones belong.
 */
static void migrate_finish(T *t, Chan *c, uint32_t sem, uint64_t total)
{
    int ce = ce_of(c);

    for (int i = 0; i < 1000 && pa_rd32(t, L.sem) != sem; i++) {
        step(t, TGPU_DET_TICK_NS);
    }
    g_assert_cmphex(pa_rd32(t, L.sem), ==, sem);
    g_assert_cmpuint(cerd(t, ce, TGPU_CE_ERROR), ==, 0);
    g_assert_cmpuint(cerd64(t, ce, TGPU_CE_PROGRESS_LO), ==, total);
    wait_done(t, c);
    g_assert_cmpuint(chan_state(t, c->id), ==, TGPU_CHAN_STATE_IDLE);
}

/* A pitch copy whose lines the steps end in the middle of. */
static void test_migrate_pitch(void)
{
    enum { LEN = 300001, LINES = 16, PIN = 310000, POUT = 320000 };
    size_t sspan = (size_t)PIN * (LINES - 1) + LEN;
    size_t dspan = (size_t)POUT * (LINES - 1) + LEN;
    g_autofree uint8_t *src = g_malloc(sspan);
    g_autofree uint8_t *src2 = g_malloc(sspan);
    g_autofree uint8_t *old = g_malloc(dspan + 128);
    g_autofree uint8_t *want = g_malloc(dspan);
    g_autofree PB *pb = pb_new();
    uint64_t p;
    uint32_t sem;
    T t;

    ce_start(&t, "deterministic=on");
    fill_random(src, sspan, 600);
    fill_random(src2, sspan, 602);
    pa_write(&t, L.a, src, sspan);
    fill_random(old, dspan + 128, 601);
    pa_write(&t, L.big - 64, old, dspan + 128);
    pb_offsets(pb, L.a, L.big);
    pb_shape(pb, PIN, POUT, LEN, LINES);
    sem = pb_launch(pb, TGPU_CE_LAUNCH_MULTI_LINE);
    submit(&t, &t.ch[CH_CE0], pb);
    p = migrate_midway(&t, &t.ch[CH_CE0], sem, (uint64_t)LEN * LINES);
    pa_write(&t, L.a, src2, sspan);
    migrate_finish(&t, &t.ch[CH_CE0], sem, (uint64_t)LEN * LINES);

    /* the first P bytes, in the order they are copied, from SRC */
    memcpy(want, old + 64, dspan);
    for (uint64_t g = 0; g < (uint64_t)LEN * LINES; g++) {
        uint64_t l = g / LEN, b = g % LEN;

        want[l * POUT + b] = (g < p ? src : src2)[l * PIN + b];
    }
    expect_bytes(&t, L.big, old, want, dspan);
    tgpu_stop(&t);
}

/* A remap of 2-byte components, three of them from one source pair. */
static void test_migrate_remap(void)
{
    enum { A = TGPU_CE_REMAP_CONST_A, X = TGPU_CE_REMAP_SRC_X,
           Y = TGPU_CE_REMAP_SRC_Y, ELEMS = 800007 };
    const uint32_t comps = TGPU_CE_REMAP(Y, A, X, 0, 2, 2, 3);
    const size_t sline = (size_t)ELEMS * 4, dline = (size_t)ELEMS * 6;
    g_autofree uint8_t *src = g_malloc(sline);
    g_autofree uint8_t *src2 = g_malloc(sline);
    g_autofree uint8_t *old = g_malloc(dline + 128);
    g_autofree uint8_t *want = g_malloc(dline);
    g_autofree PB *pb = pb_new();
    uint64_t p;
    uint32_t sem;
    T t;

    ce_start(&t, "deterministic=on");
    fill_random(src, sline, 610);
    fill_random(src2, sline, 612);
    pa_write(&t, L.a, src, sline);
    fill_random(old, dline + 128, 611);
    pa_write(&t, L.big - 64, old, dline + 128);
    pb_offsets(pb, L.a, L.big);
    pb_shape(pb, 0, 0, ELEMS, 1);
    pb_remap(pb, 0x5a5aa5a5, 0, comps);
    sem = pb_launch(pb, TGPU_CE_LAUNCH_REMAP);
    submit(&t, &t.ch[CH_CE1], pb);
    p = migrate_midway(&t, &t.ch[CH_CE1], sem, dline);
    g_assert_cmpuint(p % 6, ==, 0);     /* whole elements */
    pa_write(&t, L.a, src2, sline);
    migrate_finish(&t, &t.ch[CH_CE1], sem, dline);

    for (uint32_t e = 0; e < ELEMS; e++) {
        model_remap(want + (size_t)e * 6,
                    ((uint64_t)e * 6 < p ? src : src2) + (size_t)e * 4, 1,
                    comps, 0x5a5aa5a5, 0);
    }
    expect_bytes(&t, L.big, old, want, dline);
    tgpu_stop(&t);
}

/*
 * Chains of copies and fills: one with a first descriptor longer than
 * a step (the migration in the middle of it), one of descriptors
 * shorter than a step (a step ends with one of them).
 */
static void test_migrate_chain(void)
{
    static const struct {
        uint32_t n, len[6];
    } cases[] = {
        { 3, { 5 * MiB + 7, 1 * MiB, 1 * MiB + 5 } },
        { 6, { 1 * MiB + 12345, 1 * MiB + 12345, 1 * MiB + 12345,
               1 * MiB + 12345, 1 * MiB + 12345, 1 * MiB + 12345 } },
    };
    const uint32_t fill = 0x0badf00d;
    uint8_t fb[4];

    stl_le_p(fb, fill);
    for (size_t c = 0; c < ARRAY_SIZE(cases); c++) {
        const uint32_t slen = cases[c].len[0];  /* the longest */
        g_autofree uint8_t *src = g_malloc(slen);
        g_autofree uint8_t *src2 = g_malloc(slen);
        g_autofree uint8_t *want = g_malloc(8 * MiB);
        g_autofree uint8_t *got = g_malloc(8 * MiB);
        g_autofree PB *pb = pb_new();
        uint64_t total = 0, at = 0, p;
        uint32_t sem;
        T t;

        ce_start(&t, "deterministic=on");
        fill_random(src, slen, 620 + c);
        fill_random(src2, slen, 630 + c);
        pa_write(&t, L.a, src, slen);
        for (uint32_t i = 0; i < cases[c].n; i++) {
            Desc d = {
                .src = L.a, .dst = L.big + total, .len = cases[c].len[i],
            };

            /* every other one a fill */
            d.flags = i % 2 ? TGPU_CE_DESC_FILL : 0;
            d.next = i + 1 < cases[c].n ? L.desc + TGPU_CE_DESC_SIZE * (i + 1)
                                        : 0;
            desc_write(&t, L.desc + TGPU_CE_DESC_SIZE * i, &d);
            total += d.len;
        }
        sem = pb_list(pb, L.desc, fill);
        submit(&t, &t.ch[CH_CE0], pb);
        p = migrate_midway(&t, &t.ch[CH_CE0], sem, total);
        g_assert_cmpuint(p, <, c ? total : cases[c].len[0]);
        pa_write(&t, L.a, src2, slen);
        migrate_finish(&t, &t.ch[CH_CE0], sem, total);

        for (uint32_t i = 0; i < cases[c].n; i++) {
            for (uint32_t k = 0; k < cases[c].len[i]; k++, at++) {
                want[at] = i % 2 ? fb[k % 4] : (at < p ? src : src2)[k];
            }
        }
        pa_read(&t, L.big, got, total);
        g_assert_cmpmem(got, total, want, total);
        g_assert_cmpuint(cerd(&t, 0, TGPU_CE_DESC_DONE), ==, cases[c].n);
        tgpu_stop(&t);
    }
}

/* ---- time slicing ------------------------------------------------------ */

#define CH_INNOCENT         18              /* bypass, runlist CE0 */
#define CH_HIGHER           19              /* bypass, runlist CE0 */
#define SLICE_LINE          (16 * MiB)
#define SLICE_LINES         4               /* 64 MiB written a launch */
#define SLICE_LAUNCHES      2

/* Step the virtual clock until the 32-bit word at SEM reads WANT. */
static void step_until_sem(T *t, uint64_t sem, uint32_t want)
{
    for (int i = 0; i < 10000 && pa_rd32(t, sem) != want; i++) {
        step(t, TGPU_DET_TICK_NS);
    }
    g_assert_cmphex(pa_rd32(t, sem), ==, want);
}

/*
 * The hostile channel's launches: SLICE_LAUNCHES back to back in one
 * submission, each SLICE_LINES repeats (pitch 0) of a 16 MiB line: 64
 * MiB written apiece.  Their semaphores at L.sem + 16 + 4 * i.
 */
static void slice_hostile(T *t, Chan *c, uint32_t *sems)
{
    g_autofree PB *pb = pb_new();

    for (int i = 0; i < SLICE_LAUNCHES; i++) {
        pb_offsets(pb, L.big, L.big + SLICE_LINE);
        pb_shape(pb, 0, 0, SLICE_LINE, SLICE_LINES);
        sems[i] = pb_launch_at(pb, TGPU_CE_LAUNCH_MULTI_LINE,
                               L.sem + 16 + 4 * i);
    }
    submit(t, c, pb);
}

/* The innocent's 4 KiB copy, N-th: L.a + 4 KiB * n to L.b, at L.sem + 64. */
static uint32_t slice_innocent(T *t, Chan *c, int n)
{
    g_autofree PB *pb = pb_new();
    uint32_t sem;

    pb_offsets(pb, L.a + 4 * KiB * n, L.b + 4 * KiB * n);
    pb_shape(pb, 0, 0, 4 * KiB, 1);
    sem = pb_launch_at(pb, 0, L.sem + 64);
    submit(t, c, pb);
    return sem;
}

/*
 * docs/hw/copy.md, "Time slicing": a channel that streams 64 MiB copies
 * on CE0 gives way to another channel's 4 KiB copy within a step, and
 * its launch goes on where it stopped (CE_BYTES counts every byte once).
 * Under deterministic=on, so that where it gives way does not depend on
 * the host.  Migrated once while the long launch is held by its channel.
 * A waiting channel of lower priority does not make it give way.
 */
static void test_time_slice(void)
{
    for (int lower = 0; lower < 2; lower++) {
        g_autofree uint8_t *line = g_malloc(SLICE_LINE);
        g_autofree uint8_t *got = g_malloc(SLICE_LINE);
        g_autofree uint8_t *small = g_malloc(8 * KiB);
        uint32_t hsem[SLICE_LAUNCHES], isem;
        Chan *hostile, *innocent;
        uint64_t p;
        T t;

        g_test_message("innocent of %s priority", lower ? "lower" : "equal");
        ce_start(&t, "deterministic=on");
        fill_random(line, SLICE_LINE, 700);
        pa_write(&t, L.big, line, SLICE_LINE);
        fill_random(small, 8 * KiB, 701);
        pa_write(&t, L.a, small, 8 * KiB);
        pa_zero(&t, L.sem, 128);
        hostile = &t.ch[CH_CE0];
        innocent = chan_cfg(&t, CH_INNOCENT);
        innocent->prio = 0;
        if (lower) {
            /* the hostile channel is of a higher priority */
            hostile = chan_cfg(&t, CH_HIGHER);
            hostile->prio = 1;
            ce_chan_up_cfg(&t, hostile);
        }
        ce_chan_up_cfg(&t, innocent);

        slice_hostile(&t, hostile, hsem);
        settle(&t);
        for (int i = 0; i < 1000 && !cerd64(&t, 0, TGPU_CE_PROGRESS_LO); i++) {
            step(&t, TGPU_DET_TICK_NS);
        }
        g_assert_cmpuint(cerd64(&t, 0, TGPU_CE_PROGRESS_LO), >, 0);
        isem = slice_innocent(&t, innocent, 0);
        if (lower) {
            /* it waits for both launches of the channel above it */
            step_until_sem(&t, L.sem + 64, isem);
            g_assert_cmphex(pa_rd32(&t, L.sem + 16), ==, hsem[0]);
            g_assert_cmphex(pa_rd32(&t, L.sem + 20), ==, hsem[1]);
            g_assert_cmpuint(cerd(&t, 0, TGPU_CE_PREEMPTS), ==, 0);
            wait_done(&t, innocent);
            wait_done(&t, hostile);
            tgpu_stop(&t);
            continue;
        }

        /* it gives way: the innocent copy ends before the long launch */
        step_until_sem(&t, L.sem + 64, isem);
        g_assert_cmphex(pa_rd32(&t, L.sem + 16), ==, 0);
        g_assert_cmpuint(cerd(&t, 0, TGPU_CE_PREEMPTS), ==, 1);
        wait_done(&t, innocent);
        g_assert_cmpuint(chan_state(&t, hostile->id), !=,
                         TGPU_CHAN_STATE_IDLE);

        /*
         * Again while the second launch streams, migrated while its
         * channel holds it
         */
        step_until_sem(&t, L.sem + 16, hsem[0]);
        for (int i = 0; i < 1000 &&
             !(cerd(&t, 0, TGPU_CE_LAUNCHES) == SLICE_LAUNCHES + 1 &&
               cerd64(&t, 0, TGPU_CE_PROGRESS_LO)); i++) {
            step(&t, TGPU_DET_TICK_NS);
        }
        g_assert_cmpuint(cerd(&t, 0, TGPU_CE_CHID), ==, hostile->id);
        isem = slice_innocent(&t, innocent, 1);
        for (int i = 0; i < 10 && cerd(&t, 0, TGPU_CE_PREEMPTS) < 2; i++) {
            step(&t, TGPU_DET_TICK_NS);
        }
        g_assert_cmpuint(cerd(&t, 0, TGPU_CE_PREEMPTS), ==, 2);
        tgpu_migrate(&t);
        g_assert_cmpuint(cerd(&t, 0, TGPU_CE_PREEMPTS), ==, 2);
        step_until_sem(&t, L.sem + 64, isem);
        g_assert_cmphex(pa_rd32(&t, L.sem + 20), ==, 0);
        step_until_sem(&t, L.sem + 20, hsem[1]);
        wait_done(&t, hostile);
        wait_done(&t, innocent);

        /* every byte once: the launches went on from where they stopped */
        g_assert_cmpuint(cerd(&t, 0, TGPU_CE_ERROR), ==, 0);
        g_assert_cmpuint(cerd64(&t, 0, TGPU_CE_PROGRESS_LO), ==,
                         (uint64_t)SLICE_LINE * SLICE_LINES);
        g_assert_cmpuint(cerd64(&t, 0, TGPU_CE_BYTES_LO), ==,
                         (uint64_t)SLICE_LINE * SLICE_LINES * SLICE_LAUNCHES +
                         8 * KiB);
        g_assert_cmpuint(cerd(&t, 0, TGPU_CE_LAUNCHES), ==,
                         SLICE_LAUNCHES + 2);
        pa_read(&t, L.big + SLICE_LINE, got, SLICE_LINE);
        g_assert_true(!memcmp(got, line, SLICE_LINE));
        pa_read(&t, L.b, got, 8 * KiB);
        g_assert_cmpmem(got, 8 * KiB, small, 8 * KiB);
        p = cerd(&t, 0, TGPU_CE_PREEMPTS);
        tgpu_stop(&t);
        g_assert_cmpuint(p, ==, 2);
    }
}

#ifdef CONFIG_LINUX
/*
 * A channel blocked on an acquire behind a launch on its engine cannot
 * be retried before the launch ends (the engine's end kicks the host
 * unit): no acquire poll runs meanwhile, and QEMU's main thread idles.
 */
static void test_acquire_behind_launch(void)
{
    g_autofree PB *pb = pb_new();
    Chan *waiter;
    T t;

    ce_start(&t, NULL);
    waiter = ce_chan_up(&t, CH_CE0 + 2);
    pa_wr32(&t, L.sem + 0x100, 0);
    pb_acquire(pb, L.sem + 0x100, 1);
    submit_blocked(&t, waiter, pb);

    /* the same 64-byte line 2^24 times: a second or more of copying */
    pb->n = 0;
    pb_offsets(pb, SYS(G.a), L.a);
    pb_shape(pb, 0, 0, 64, 1u << 24);
    pb_launch(pb, TGPU_CE_LAUNCH_MULTI_LINE);
    submit(&t, &t.ch[CH_CE0], pb);
    g_assert_true(ce_busy(&t, 0));
    assert_main_thread_idle(&t, 200);
    g_assert_true(ce_busy(&t, 0));      /* all of it during the launch */

    /* once the engine is free, the waiter polls again */
    wr(&t, TGPU_PMC_ENGINE_RESET, TGPU_ENGINE_CE0);
    wait_state(&t, CH_CE0, TGPU_CHAN_STATE_ERROR);
    err_ack(&t, CH_CE0);
    pa_wr32(&t, L.sem + 0x100, 1);
    step(&t, TGPU_ACQUIRE_POLL_NS);
    wait_done(&t, waiter);
    tgpu_stop(&t);
}

/*
 * A release frees a channel blocked behind another channel's launch at
 * once: it has work again, not BLOCKED until its next turn (a watchdog
 * that reads BLOCKED as "waits on a semaphore no one released" must not
 * see it so), and the launch gives way to it (time slicing).
 */
static void test_acquire_released_behind_launch(void)
{
    g_autofree PB *pb = pb_new();
    uint32_t sem;
    Chan *waiter;
    T t;

    ce_start(&t, NULL);
    waiter = ce_chan_up(&t, CH_CE0 + 2);
    pa_wr32(&t, L.sem + 0x100, 0);
    pb_acquire(pb, L.sem + 0x100, 1);
    /* behind the acquire, a copy: work for the busy engine */
    pb_offsets(pb, L.a, L.b);
    pb_shape(pb, 0, 0, 64, 1);
    sem = pb_launch(pb, 0);
    submit_blocked(&t, waiter, pb);

    pb->n = 0;
    pb_offsets(pb, SYS(G.a), L.a);
    pb_shape(pb, 0, 0, 64, 1u << 24);
    pb_launch(pb, TGPU_CE_LAUNCH_MULTI_LINE);
    submit(&t, &t.ch[CH_CE0], pb);
    g_assert_true(ce_busy(&t, 0));

    /*
     * CE1's channel releases it; CE0's launch gives way to the waiter's
     * copy (time slicing) and goes on after it
     */
    pb->n = 0;
    pb_release(pb, L.sem + 0x100, 1);
    run(&t, &t.ch[CH_CE1], pb);
    wait_done(&t, waiter);
    g_assert_cmphex(pa_rd32(&t, L.sem), ==, sem);
    g_assert_cmpuint(cerd(&t, 0, TGPU_CE_PREEMPTS), ==, 1);
    g_assert_cmpuint(chan_state(&t, CH_CE0), !=, TGPU_CHAN_STATE_IDLE);
    for (int i = 0; i < 100000 && !(ce_busy(&t, 0) &&
                                    cerd(&t, 0, TGPU_CE_CHID) == CH_CE0);
         i++) {
        settle(&t);
    }
    g_assert_true(ce_busy(&t, 0));
    g_assert_cmpuint(cerd(&t, 0, TGPU_CE_CHID), ==, CH_CE0);

    wr(&t, TGPU_PMC_ENGINE_RESET, TGPU_ENGINE_CE0);
    wait_state(&t, CH_CE0, TGPU_CHAN_STATE_ERROR);
    err_ack(&t, CH_CE0);
    tgpu_stop(&t);
}
#endif

static void test_reset(void)
{
    const uint32_t total = 32 * MiB;
    uint64_t p;
    T t;

    ce_start(&t, NULL);

    /* engine reset: the channel hears ENGINE_RESET, the engine is idle */
    submit_slow(&t, &t.ch[CH_CE0], SYS(G.big), L.big);
    g_assert_true(ce_busy(&t, 0));
    wr(&t, TGPU_PMC_ENGINE_RESET, TGPU_ENGINE_CE0);
    g_assert_false(ce_busy(&t, 0));
    p = cerd64(&t, 0, TGPU_CE_PROGRESS_LO);
    g_assert_cmpuint(p, <, total);
    wait_state(&t, CH_CE0, TGPU_CHAN_STATE_ERROR);
    g_assert_cmpuint(crd(&t, CH_CE0, TGPU_CHAN_ERROR), ==,
                     TGPU_ERR_ENGINE_RESET);
    g_assert_cmpuint(cerd64(&t, 0, TGPU_CE_PROGRESS_LO), ==, p);
    err_ack(&t, CH_CE0);
    check_alive(&t, &t.ch[CH_CE0]);

    /* a kill: the engine stops too */
    submit_slow(&t, &t.ch[CH_CE1], SYS(G.big), L.big);
    g_assert_true(ce_busy(&t, 1));
    chan_kill(&t, CH_CE1);
    g_assert_false(ce_busy(&t, 1));
    g_assert_cmpuint(crd(&t, CH_CE1, TGPU_CHAN_ERROR), ==, TGPU_ERR_KILLED);
    check_alive(&t, &t.ch[CH_CE1]);

    /* a VM stop holds both engines; they go on when it runs again */
    submit_slow(&t, &t.ch[CH_CE0], SYS(G.big), L.big);
    submit_slow(&t, &t.ch[CH_CE1], SYS(G.big2), L.a);
    qtest_qmp_assert_success(t.qts, "{'execute': 'stop'}");
    for (int ce = 0; ce < 2; ce++) {
        g_assert_cmphex(cerd(&t, ce, TGPU_CE_STATUS), ==,
                        TGPU_CE_STATUS_BUSY | TGPU_CE_STATUS_PAUSED);
        p = cerd64(&t, ce, TGPU_CE_PROGRESS_LO);
        g_usleep(20000);
        g_assert_cmpuint(cerd64(&t, ce, TGPU_CE_PROGRESS_LO), ==, p);
    }
    qtest_qmp_assert_success(t.qts, "{'execute': 'cont'}");
    wait_done(&t, &t.ch[CH_CE0]);
    wait_done(&t, &t.ch[CH_CE1]);
    g_assert_cmpuint(cerd64(&t, 0, TGPU_CE_PROGRESS_LO), ==, total);
    g_assert_cmpuint(cerd64(&t, 1, TGPU_CE_PROGRESS_LO), ==, total);

    /* a system reset in the middle of two copies */
    submit_slow(&t, &t.ch[CH_CE0], SYS(G.big), L.big);
    submit_slow(&t, &t.ch[CH_CE1], SYS(G.big2), L.a);
    g_assert_true(ce_busy(&t, 0));
    tgpu_system_reset(&t);
    g_assert_cmphex(cerd(&t, 0, TGPU_CE_STATUS), ==, 0);
    g_assert_cmphex(cerd(&t, 1, TGPU_CE_STATUS), ==, 0);
    g_assert_cmpuint(cerd(&t, 0, TGPU_CE_LAUNCHES), ==, 0);
    runlists_std(&t);
    ce_chan_up(&t, CH_CE0);
    check_alive(&t, &t.ch[CH_CE0]);
    tgpu_stop(&t);
}

/*
 * ENGINE_PROGRESS moves while an engine copies, stands while it is idle,
 * and starts again from 0 at an engine reset.
 */
static void test_progress(void)
{
    const uint32_t reg = TGPU_PMC_ENGINE_PROGRESS(TGPU_RUNLIST_CE0);
    const uint32_t reg1 = TGPU_PMC_ENGINE_PROGRESS(TGPU_RUNLIST_CE1);
    uint32_t p, p1, q;
    T t;

    ce_start(&t, NULL);
    p = rd(&t, reg);
    p1 = rd(&t, reg1);
    g_usleep(20000);
    g_assert_cmpuint(rd(&t, reg), ==, p);

    submit_slow(&t, &t.ch[CH_CE0], SYS(G.big), L.big);
    q = p;
    for (int i = 0; i < 1000 && q - p < 2; i++) {
        g_usleep(1000);
        q = rd(&t, reg);
    }
    g_assert_cmpuint(q - p, >=, 2);
    g_assert_true(ce_busy(&t, 0));
    /* the other engine's stands: it has nothing to do */
    g_assert_cmpuint(rd(&t, reg1), ==, p1);

    wr(&t, TGPU_PMC_ENGINE_RESET, TGPU_ENGINE_CE0);
    g_assert_cmpuint(rd(&t, reg), ==, 0);
    g_usleep(20000);
    g_assert_cmpuint(rd(&t, reg), ==, 0);
    wait_state(&t, CH_CE0, TGPU_CHAN_STATE_ERROR);
    err_ack(&t, CH_CE0);
    check_alive(&t, &t.ch[CH_CE0]);
    g_assert_cmpuint(rd(&t, reg), >, 0);     /* the launch's end, at least */
    tgpu_stop(&t);
}

/*
 * A copy of at most 64 KiB ends in the doorbell's own write
 * (docs/hw/registers.md, "Engines and the big lock"): its bytes and its
 * semaphore are there when the write returns, and the channel is idle.
 * A longer one goes to the engine's thread.  Under deterministic=on the
 * virtual clock runs them all: nothing is done before it steps.
 */
static void test_run_here(void)
{
    static const uint32_t lens[] = { 4096, 64 * KiB, 64 * KiB + 1 };

    for (int det = 0; det < 2; det++) {
        T t;

        ce_start(&t, det ? "deterministic=on" : NULL);
        for (size_t i = 0; i < ARRAY_SIZE(lens); i++) {
            Chan *c = &t.ch[i % 2 ? CH_CE1 : CH_CE0];
            uint32_t len = lens[i], sem;
            g_autofree uint8_t *src = g_malloc(len);
            g_autofree uint8_t *got = g_malloc(len);
            g_autofree PB *pb = pb_new();

            g_test_message("%u bytes on CE%d, deterministic=%s", len,
                           ce_of(c), det ? "on" : "off");
            fill_random(src, len, 7 + i);
            pa_write(&t, SYS(G.a), src, len);
            pa_zero(&t, L.b, len);
            pb_offsets(pb, SYS(G.a), L.b);
            pb_shape(pb, 0, 0, len, 0);
            sem = pb_launch(pb, 0);
            submit(&t, c, pb);
            if (!det && len <= 64 * KiB) {
                g_assert_cmphex(pa_rd32(&t, L.sem), ==, sem);
                g_assert_cmpuint(chan_state(&t, c->id), ==,
                                 TGPU_CHAN_STATE_IDLE);
                pa_read(&t, L.b, got, len);
                g_assert_cmpmem(got, len, src, len);
            } else if (det) {
                g_assert_cmphex(pa_rd32(&t, L.sem), !=, sem);
                pa_read(&t, L.b, got, len);
                g_assert_true(all_zero(got, len));
            }
            while (chan_state(&t, c->id) != TGPU_CHAN_STATE_IDLE &&
                   chan_state(&t, c->id) != TGPU_CHAN_STATE_ERROR) {
                step(&t, 100000);
            }
            wait_done(&t, c);
            g_assert_cmphex(pa_rd32(&t, L.sem), ==, sem);
            g_assert_cmpuint(cerd(&t, ce_of(c), TGPU_CE_ERROR), ==, 0);
            pa_read(&t, L.b, got, len);
            g_assert_cmpmem(got, len, src, len);
        }
        tgpu_stop(&t);
    }
}

static void test_semaphore_intr(void)
{
    g_autofree PB *pb = pb_new();
    Chan *c;
    T t;

    ce_start(&t, NULL);
    c = &t.ch[CH_CE1];
    wr(&t, TGPU_FIFO_NONSTALL_INTR_EN, TGPU_FIFO_NONSTALL_INTR_PENDING);

    /* no transfer: a four-word release with its time, and an interrupt */
    step(&t, 1000000);
    pa_fill(&t, L.sem + 0x40, 0xff, 16);
    pb_hdr(pb, TGPU_PB_OP_INC, SC, TGPU_CE_M_SET_SEMAPHORE_A, 3);
    pb_dw(pb, 0);
    pb_dw(pb, L.sem + 0x40);
    pb_dw(pb, 0xfeedf00d);
    pb_m(pb, SC, TGPU_CE_M_LAUNCH_DMA,
         TGPU_CE_LAUNCH(TGPU_CE_TRANSFER_NONE, TGPU_CE_SEM_FOUR_WORD,
                        TGPU_CE_INTR_NON_BLOCKING));
    run(&t, c, pb);
    g_assert_cmphex(pa_rd32(&t, L.sem + 0x40), ==, 0xfeedf00d);
    g_assert_cmphex(pa_rd32(&t, L.sem + 0x44), ==, 0);
    g_assert_cmpuint(pa_rd64(&t, L.sem + 0x48), >=, 1000000);
    g_assert_cmpuint(pa_rd64(&t, L.sem + 0x48), <=, ptimer(&t));
    g_assert_cmphex(rd(&t, TGPU_FIFO_NONSTALL_INTR), ==,
                    TGPU_FIFO_NONSTALL_INTR_PENDING);
    wr(&t, TGPU_FIFO_NONSTALL_INTR, TGPU_FIFO_NONSTALL_INTR_PENDING);

    /* a misaligned four-word semaphore after a copy: SEM_FAULT */
    pb->n = 0;
    pb_offsets(pb, L.a, L.b);
    pb_shape(pb, 0, 0, 8, 0);
    pb_hdr(pb, TGPU_PB_OP_INC, SC, TGPU_CE_M_SET_SEMAPHORE_A, 3);
    pb_dw(pb, 0);
    pb_dw(pb, L.sem + 0x48);
    pb_dw(pb, 1);
    pb_m(pb, SC, TGPU_CE_M_LAUNCH_DMA,
         TGPU_CE_LAUNCH(TGPU_CE_TRANSFER_PIPELINED, TGPU_CE_SEM_FOUR_WORD,
                        TGPU_CE_INTR_NONE));
    submit(&t, c, pb);
    wait_state(&t, CH_CE1, TGPU_CHAN_STATE_ERROR);
    g_assert_cmpuint(crd(&t, CH_CE1, TGPU_CHAN_ERROR), ==,
                     TGPU_ERR_SEM_FAULT);
    g_assert_cmphex(crd(&t, CH_CE1, TGPU_CHAN_ERROR_INFO), ==, L.sem + 0x48);
    g_assert_cmphex(rd(&t, TGPU_FIFO_NONSTALL_INTR), ==, 0);
    err_ack(&t, CH_CE1);
    check_alive(&t, c);
    tgpu_stop(&t);
}

int main(int argc, char **argv)
{
    g_test_init(&argc, &argv, NULL);
    qtest_add_func("/tgpu/ce/copy/1d", test_copy_1d);
    qtest_add_func("/tgpu/ce/copy/2d", test_copy_2d);
    qtest_add_func("/tgpu/ce/copy/fill-remap", test_fill_remap);
    qtest_add_func("/tgpu/ce/copy/linked-list", test_linked_list);
    qtest_add_func("/tgpu/ce/copy/mmu", test_mmu);
    qtest_add_func("/tgpu/ce/error/launch", test_err_launch);
    qtest_add_func("/tgpu/ce/error/fault", test_err_fault);
    qtest_add_func("/tgpu/ce/error/chain", test_err_chain);
    qtest_add_func("/tgpu/ce/concurrent", test_concurrent);
#ifdef CONFIG_LINUX
    qtest_add_func("/tgpu/ce/acquire-behind-launch",
                   test_acquire_behind_launch);
    qtest_add_func("/tgpu/ce/acquire-released-behind-launch",
                   test_acquire_released_behind_launch);
#endif
    qtest_add_func("/tgpu/ce/reset", test_reset);
    qtest_add_func("/tgpu/ce/semaphore", test_semaphore_intr);
    qtest_add_func("/tgpu/ce/run-here", test_run_here);
    qtest_add_func("/tgpu/ce/progress", test_progress);
    qtest_add_func("/tgpu/ce/migrate-pitch", test_migrate_pitch);
    qtest_add_func("/tgpu/ce/migrate-remap", test_migrate_remap);
    qtest_add_func("/tgpu/ce/migrate-chain", test_migrate_chain);
    qtest_add_func("/tgpu/ce/time-slice", test_time_slice);
    return g_test_run();
}
