/*
 * QTest testcase for tgpu's fault injection (qapi/tgpu.json,
 * docs/fault-injection.md): every kind of tgpu-inject-hang and
 * tgpu-inject-fault, every trigger, what the hardware does (registers,
 * interrupts, engine progress) and the events, bad arguments, fault-plan
 * files, and the replay of a plan: the same plan and the same register
 * sequence give the same trace twice.
 *
 * Copyright (c) 2026 The tgpu authors
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */

#include "qemu/osdep.h"
#include "tgpu-channel.h"
#include "tgpu-qmp.h"
#include "tgpu-kernel.h"
#include "tgpu/ecc.h"
#include "tgpu/therm.h"

#define FAULTBUF_SIZE       16
#define CE_SC               4           /* the copy subchannel */
#define CH_GR               1           /* compute channels */
#define CH_GR2              2
#define CH_CE               16          /* CE0 */
#define GPU_PATH            "/machine/peripheral/gpu0"

static uint32_t seq;            /* kernels launched since fault_start */

/* VRAM besides tgpu-channel.h's, allocated at every start (fault_start) */
static struct {
    uint64_t code;              /* 16 kernels of 4 KiB */
    uint64_t param;
    uint64_t faultbuf;
    uint64_t out;               /* 12 MiB: copies of 8 MiB to out + 4 MiB */
} K;

static const uint64_t spin[] = { RI(IADD, 1, 1, 1), BRA(0) };
static const uint64_t quick[] = {
    LD(LDC, 64, 2, RZ, 0), MOVI(8, 0x600d), ST(STG, 32, 2, 0, 8), EXIT,
};

/* ---- the device and the monitor ----------------------------------------- */

static void fault_start(T *t, const char *opts)
{
    g_autofree char *o = g_strdup_printf("id=gpu0%s%s", opts ? "," : "",
                                         opts ? opts : "");

    chan_start(t, o);
    K.code = vram_alloc(t, 64 * KiB);
    K.param = vram_alloc(t, 4 * KiB);
    K.faultbuf = vram_alloc(t, FAULTBUF_SIZE * TGPU_FAULT_RECORD_SIZE);
    K.out = vram_alloc(t, 12 * MiB);
    seq = 0;
    runlists_std(t);
    wr(t, TGPU_MMU_FAULT_BUF_LO, K.faultbuf);
    wr(t, TGPU_MMU_FAULT_BUF_HI, 0);
    wr(t, TGPU_MMU_FAULT_BUF_SIZE, FAULTBUF_SIZE);
    pa_zero(t, K.faultbuf, FAULTBUF_SIZE * TGPU_FAULT_RECORD_SIZE);
}

static uint64_t hang(T *t, const char *args)
{
    g_autofree char *a = g_strdup_printf("'id': 'gpu0', %s", args);

    return cmd_ok(t, "tgpu-inject-hang", a);
}

static uint64_t fault(T *t, const char *args)
{
    g_autofree char *a = g_strdup_printf("'id': 'gpu0', %s", args);

    return cmd_ok(t, "tgpu-inject-fault", a);
}

/* query-tgpu's engine NAME. */
static QDict *query_engine(T *t, const char *name)
{
    QDict *d = query(t), *found = NULL;
    QListEntry *e;

    QLIST_FOREACH_ENTRY(qdict_get_qlist(d, "engines"), e) {
        QDict *en = qobject_to(QDict, qlist_entry_obj(e));

        if (!strcmp(qdict_get_str(en, "name"), name)) {
            found = en;
            qobject_ref(found);
        }
    }
    qobject_unref(d);
    g_assert_nonnull(found);
    return found;
}

/* The engine's injected hang, as query-tgpu has it; "" for none. */
static char *engine_hang(T *t, const char *name)
{
    QDict *e = query_engine(t, name);
    char *h = g_strdup(qdict_haskey(e, "hang") ?
                       qdict_get_str(e, "hang") : "");

    qobject_unref(e);
    return h;
}

static size_t nr_injections(T *t)
{
    QDict *d = query(t);
    size_t n = qlist_size(qdict_get_qlist(d, "injections"));

    qobject_unref(d);
    return n;
}

/*
 * The next EVENT, which must have come already; its data.  Events before
 * it are dropped: check them in the order the device sends them.
 */
static QDict *event(T *t, const char *name)
{
    QDict *ev, *data;

    qobject_unref(query(t));    /* takes in what is queued */
    ev = qtest_qmp_event_ref(t->qts, name);
    g_assert_nonnull(ev);
    data = qdict_get_qdict(ev, "data");
    qobject_ref(data);
    qobject_unref(ev);
    g_assert_cmpstr(qdict_get_str(data, "qom-path"), ==, GPU_PATH);
    return data;
}

/* TGPU_INJECTION_FIRED for injection NUMBER, of KIND. */
static void expect_fired(T *t, uint64_t number, const char *kind)
{
    QDict *d = event(t, "TGPU_INJECTION_FIRED");

    g_assert_cmpuint(qdict_get_int(d, "number"), ==, number);
    g_assert_cmpstr(qdict_get_str(d, "kind"), ==, kind);
    qobject_unref(d);
}

static void expect_not_fired(T *t)
{
    qobject_unref(query(t));
    g_assert_null(qtest_qmp_event_ref(t->qts, "TGPU_INJECTION_FIRED"));
}

static void expect_hang_event(T *t, uint64_t number, const char *engine,
                              const char *kind, int64_t chid)
{
    QDict *d = event(t, "TGPU_ENGINE_HANG");

    g_assert_cmpuint(qdict_get_int(d, "number"), ==, number);
    g_assert_cmpstr(qdict_get_str(d, "engine"), ==, engine);
    g_assert_cmpstr(qdict_get_str(d, "kind"), ==, kind);
    g_assert_cmpint(qdict_haskey(d, "channel") ?
                    qdict_get_int(d, "channel") : -1, ==, chid);
    qobject_unref(d);
}

/* ---- work --------------------------------------------------------------- */

static Chan *gr_chan_up(T *t, int ch)
{
    return chan_up_class(t, chan_cfg(t, ch), SC, TGPU_CLASS_COMPUTE);
}

/* Launch K on C; the launch releases the returned value at L.sem. */
static uint32_t submit_kernel(T *t, Chan *c, const uint64_t *code,
                              uint32_t n, uint32_t threads)
{
    uint64_t out = K.out;
    Kernel k = { code, n, { 1 }, { threads }, 0, &out, sizeof(out) };
    g_autofree PB *pb = pb_new();

    seq++;
    pb_kernel_at(t, pb, &k, K.code + 0x1000 * (seq % 16), K.param, L.sem,
                 seq);
    submit(t, c, pb);
    return seq;
}

static uint32_t progress(T *t, unsigned int runlist)
{
    return rd(t, TGPU_PMC_ENGINE_PROGRESS(runlist));
}

/* where copies release their semaphore */
#define CE_SEM              (L.sem + 64)

/* A copy of LEN bytes from SRC on C, releasing PAYLOAD at SEM. */
static void submit_copy_from(T *t, Chan *c, uint64_t src, uint32_t len,
                             uint64_t sem, uint32_t payload)
{
    g_autofree PB *pb = pb_new();

    pb_hdr(pb, TGPU_PB_OP_INC, CE_SC, TGPU_CE_M_OFFSET_IN_UPPER, 4);
    pb_dw(pb, src >> 32);
    pb_dw(pb, (uint32_t)src);
    pb_dw(pb, 0);
    pb_dw(pb, K.out + 0x400000);
    pb_hdr(pb, TGPU_PB_OP_INC, CE_SC, TGPU_CE_M_LINE_LENGTH_IN, 1);
    pb_dw(pb, len);
    pb_hdr(pb, TGPU_PB_OP_INC, CE_SC, TGPU_CE_M_SET_SEMAPHORE_A, 3);
    pb_dw(pb, sem >> 32);
    pb_dw(pb, (uint32_t)sem);
    pb_dw(pb, payload);
    pb_m(pb, CE_SC, TGPU_CE_M_LAUNCH_DMA,
         TGPU_CE_LAUNCH(TGPU_CE_TRANSFER_NON_PIPELINED, TGPU_CE_SEM_ONE_WORD,
                        TGPU_CE_INTR_NONE));
    submit(t, c, pb);
}

/* The same from K.out. */
static void submit_copy(T *t, Chan *c, uint32_t len, uint64_t sem,
                        uint32_t payload)
{
    submit_copy_from(t, c, K.out, len, sem, payload);
}

/* Virtual and real time pass: a hung engine's progress stands still. */
static void expect_stuck(T *t, unsigned int runlist)
{
    uint32_t p = progress(t, runlist);

    for (int i = 0; i < 5; i++) {
        step(t, TGPU_TIMESLICE_DEFAULT_US * 1000);
        g_usleep(2000);
    }
    g_assert_cmpuint(progress(t, runlist), ==, p);
}

/* The quick kernel runs to its end on C. */
static void expect_kernel_runs(T *t, Chan *c)
{
    uint32_t sem;

    pa_wr32(t, K.out, 0);
    sem = submit_kernel(t, c, quick, ARRAY_SIZE(quick), 32);
    wait_done(t, c);
    g_assert_cmphex(pa_rd32(t, K.out), ==, 0x600d);
    g_assert_cmphex(pa_rd32(t, L.sem), ==, sem);
}

/* ---- hangs -------------------------------------------------------------- */

/*
 * A stall: the kernel in hand makes no progress, its semaphore never
 * comes; the channel's KILL ends the stall, and kernels run again.
 */
static void test_stall(void)
{
    g_autofree char *h = NULL;
    Chan *c;
    uint64_t n;
    uint32_t sem;
    T t;

    fault_start(&t, NULL);
    c = gr_chan_up(&t, CH_GR);
    expect_kernel_runs(&t, c);

    n = hang(&t, "'engine': 'compute', 'kind': 'stall'");
    expect_hang_event(&t, n, "compute", "stall", -1);
    expect_fired(&t, n, "hang");
    h = engine_hang(&t, "compute");
    g_assert_cmpstr(h, ==, "stall");
    {
        QDict *e = query_engine(&t, "compute");

        g_assert_cmpstr(qdict_get_str(e, "state"), ==, "idle");
        qobject_unref(e);
    }

    sem = submit_kernel(&t, c, quick, ARRAY_SIZE(quick), 32);
    wait_state(&t, CH_GR, TGPU_CHAN_STATE_RUNNING);
    expect_stuck(&t, TGPU_RUNLIST_COMPUTE);
    g_assert_cmphex(pa_rd32(&t, L.sem), !=, sem);
    g_assert_cmpuint(chan_state(&t, CH_GR), ==, TGPU_CHAN_STATE_RUNNING);
    {
        QDict *e = query_engine(&t, "compute");

        g_assert_cmpstr(qdict_get_str(e, "state"), ==, "running");
        g_assert_cmpuint(qdict_get_int(e, "channel"), ==, CH_GR);
        qobject_unref(e);
    }
    /* a TLB invalidation waits for no stalled engine; nor does a VM stop */
    wr(&t, TGPU_MMU_INVALIDATE, TGPU_MMU_INV_ALL);
    qobject_unref(qtest_qmp(t.qts, "{'execute': 'stop'}"));
    qobject_unref(qtest_qmp(t.qts, "{'execute': 'cont'}"));
    g_assert_cmpuint(chan_state(&t, CH_GR), ==, TGPU_CHAN_STATE_RUNNING);

    chan_kill(&t, CH_GR);
    g_assert_cmpuint(chan_state(&t, CH_GR), ==, TGPU_CHAN_STATE_ERROR);
    g_assert_cmpuint(crd(&t, CH_GR, TGPU_CHAN_ERROR), ==, TGPU_ERR_KILLED);
    g_free(h);
    h = engine_hang(&t, "compute");
    g_assert_cmpstr(h, ==, "");
    chan_reset(&t, CH_GR);
    c = gr_chan_up(&t, CH_GR);
    expect_kernel_runs(&t, c);
    tgpu_stop(&t);
}

/*
 * A wedge ignores KILL: the channel stays on the engine, no error; only
 * PMC_ENGINE_RESET takes it off, with ENGINE_RESET.
 */
static void test_wedge(void)
{
    g_autofree char *h = NULL;
    Chan *c;
    uint64_t n;
    T t;

    fault_start(&t, NULL);
    c = gr_chan_up(&t, CH_GR);
    n = hang(&t, "'engine': 'compute', 'kind': 'wedge'");
    expect_hang_event(&t, n, "compute", "wedge", -1);
    submit_kernel(&t, c, spin, ARRAY_SIZE(spin), 32);
    wait_state(&t, CH_GR, TGPU_CHAN_STATE_RUNNING);
    expect_stuck(&t, TGPU_RUNLIST_COMPUTE);

    chan_kill(&t, CH_GR);
    settle(&t);
    g_assert_cmpuint(chan_state(&t, CH_GR), ==, TGPU_CHAN_STATE_RUNNING);
    g_assert_cmpuint(crd(&t, CH_GR, TGPU_CHAN_ERROR), ==, 0);
    g_assert_false(err_pending(&t, CH_GR));
    /* nor does a channel reset take the channel from it */
    chan_reset(&t, CH_GR);
    settle(&t);
    g_assert_cmpuint(chan_state(&t, CH_GR), ==, TGPU_CHAN_STATE_RUNNING);
    h = engine_hang(&t, "compute");
    g_assert_cmpstr(h, ==, "wedge");

    wr(&t, TGPU_PMC_ENGINE_RESET, TGPU_ENGINE_COMPUTE);
    wait_state(&t, CH_GR, TGPU_CHAN_STATE_ERROR);
    g_assert_cmpuint(crd(&t, CH_GR, TGPU_CHAN_ERROR), ==,
                     TGPU_ERR_ENGINE_RESET);
    g_free(h);
    h = engine_hang(&t, "compute");
    g_assert_cmpstr(h, ==, "");
    err_ack(&t, CH_GR);
    chan_reset(&t, CH_GR);
    c = gr_chan_up(&t, CH_GR);
    expect_kernel_runs(&t, c);
    tgpu_stop(&t);
}

/*
 * A hang for one channel: the engine runs another channel's kernel and
 * hangs at this one's.
 */
static void test_hang_channel(void)
{
    Chan *a, *b;
    uint64_t n;
    uint32_t sem;
    T t;

    fault_start(&t, NULL);
    a = gr_chan_up(&t, CH_GR);
    b = gr_chan_up(&t, CH_GR2);
    n = hang(&t, "'channel': 2, 'kind': 'stall'");
    expect_hang_event(&t, n, "compute", "stall", CH_GR2);
    expect_fired(&t, n, "hang");
    expect_kernel_runs(&t, a);
    sem = submit_kernel(&t, b, quick, ARRAY_SIZE(quick), 32);
    wait_state(&t, CH_GR2, TGPU_CHAN_STATE_RUNNING);
    expect_stuck(&t, TGPU_RUNLIST_COMPUTE);
    g_assert_cmphex(pa_rd32(&t, L.sem), !=, sem);
    wr(&t, TGPU_PMC_ENGINE_RESET, TGPU_ENGINE_COMPUTE);
    wait_state(&t, CH_GR2, TGPU_CHAN_STATE_ERROR);
    expect_kernel_runs(&t, a);

    /* a channel not enabled yet: the hang waits for its first work */
    n = hang(&t, "'channel': 3, 'kind': 'stall'");
    expect_fired(&t, n, "hang");
    g_assert_null(qtest_qmp_event_ref(t.qts, "TGPU_ENGINE_HANG"));
    b = gr_chan_up(&t, 3);
    expect_kernel_runs(&t, a);
    sem = submit_kernel(&t, b, quick, ARRAY_SIZE(quick), 32);
    wait_state(&t, 3, TGPU_CHAN_STATE_RUNNING);
    expect_hang_event(&t, n, "compute", "stall", 3);
    expect_stuck(&t, TGPU_RUNLIST_COMPUTE);
    g_assert_cmphex(pa_rd32(&t, L.sem), !=, sem);
    chan_kill(&t, 3);
    g_assert_cmpuint(crd(&t, 3, TGPU_CHAN_ERROR), ==, TGPU_ERR_KILLED);
    expect_kernel_runs(&t, a);
    tgpu_stop(&t);
}

/*
 * A fetch hang: the host unit stops taking GPFIFO entries (GP_GET and the
 * host's progress stand), for one channel or all; an engine reset ends it
 * and the work goes on.
 */
static void test_fetch(void)
{
    g_autofree PB *pb = pb_new();
    QDict *host;
    uint64_t n, before;
    Chan *c;
    T t;

    fault_start(&t, NULL);
    c = chan_up(&t, 0);
    run_release(&t, c, L.sem, 1);

    n = hang(&t, "'channel': 0, 'kind': 'fetch'");
    expect_hang_event(&t, n, "host", "fetch", 0);
    host = query_engine(&t, "host");
    before = qdict_get_int(host, "progress");
    qobject_unref(host);
    pb_release(pb, L.sem, 2);
    submit(&t, c, pb);
    step(&t, 1000000);
    g_assert_cmpuint(crd(&t, 0, TGPU_CHAN_GP_GET), ==, 1);
    g_assert_cmpuint(chan_state(&t, 0), ==, TGPU_CHAN_STATE_PENDING);
    g_assert_cmphex(pa_rd32(&t, L.sem), ==, 1);
    host = query_engine(&t, "host");
    g_assert_cmpuint(qdict_get_int(host, "progress"), ==, before);
    g_assert_true(qdict_get_bool(host, "busy"));
    qobject_unref(host);
    /* query-tgpu's channels: the one not idle, as its registers say */
    {
        QDict *d = query(&t), *ch, *mmu;
        QList *l = qdict_get_qlist(d, "channels");

        g_assert_cmpuint(qlist_size(l), ==, 1);
        ch = qobject_to(QDict, qlist_peek(l));
        g_assert_cmpuint(qdict_get_int(ch, "id"), ==, 0);
        g_assert_cmpstr(qdict_get_str(ch, "state"), ==, "pending");
        g_assert_true(qdict_get_bool(ch, "fetch-hung"));
        g_assert_cmpuint(qdict_get_int(ch, "gp-get"), ==,
                         crd(&t, 0, TGPU_CHAN_GP_GET));
        g_assert_cmpuint(qdict_get_int(ch, "runlist"), ==,
                         TGPU_RUNLIST_COMPUTE);
        g_assert_false(qdict_haskey(ch, "error"));
        mmu = qdict_get_qdict(d, "mmu");
        g_assert_cmpuint(qdict_get_int(mmu, "context-switches"), ==,
                         rd(&t, TGPU_FIFO_CTXSW_COUNT));
        g_assert_cmpuint(qdict_get_int(mmu, "walks"), ==,
                         rd(&t, TGPU_MMU_WALKS));
        g_assert_cmpuint(qdict_get_int(mmu, "faults"), ==,
                         rd(&t, TGPU_MMU_FAULT_COUNT));
        qobject_unref(d);
    }
    /* the channel's runlist engine's reset lets it go on */
    wr(&t, TGPU_PMC_ENGINE_RESET, TGPU_ENGINE_COMPUTE);
    wait_done(&t, c);
    g_assert_cmphex(pa_rd32(&t, L.sem), ==, 2);

    /* the whole host unit */
    n = hang(&t, "'engine': 'host', 'kind': 'stall'");
    expect_hang_event(&t, n, "host", "stall", -1);
    pb->n = 0;
    pb_release(pb, L.sem, 3);
    submit(&t, c, pb);
    step(&t, 1000000);
    g_assert_cmphex(pa_rd32(&t, L.sem), ==, 2);
    g_assert_cmpuint(chan_state(&t, 0), ==, TGPU_CHAN_STATE_PENDING);
    wr(&t, TGPU_PMC_ENGINE_RESET, TGPU_ENGINE_CE1);
    wait_done(&t, c);
    g_assert_cmphex(pa_rd32(&t, L.sem), ==, 3);
    tgpu_stop(&t);
}

/* ---- triggers ----------------------------------------------------------- */

/* After N kernel launches (of one channel): the Nth is the one that hangs. */
static void test_trigger_kernels(void)
{
    QDict *d;
    QDict *inj;
    Chan *a, *b;
    uint64_t n;
    uint32_t sem;
    T t;

    fault_start(&t, NULL);
    a = gr_chan_up(&t, CH_GR);
    b = gr_chan_up(&t, CH_GR2);
    n = hang(&t, "'engine': 'compute', 'kind': 'stall', 'trigger': "
             "{ 'after': 2, 'event': 'kernel-launches', 'channel': 1 }");
    expect_not_fired(&t);
    expect_kernel_runs(&t, b);          /* another channel's: not counted */
    expect_kernel_runs(&t, a);
    expect_not_fired(&t);
    d = query(&t);
    inj = qobject_to(QDict, qlist_peek(qdict_get_qlist(d, "injections")));
    g_assert_cmpuint(qdict_get_int(inj, "number"), ==, n);
    g_assert_cmpstr(qdict_get_str(inj, "kind"), ==, "hang");
    g_assert_cmpstr(qdict_get_str(inj, "target"), ==, "compute");
    g_assert_cmpuint(qdict_get_int(inj, "seen"), ==, 1);
    g_assert_false(qdict_get_bool(inj, "fired"));
    g_assert_cmpuint(qdict_get_int(qdict_get_qdict(inj, "trigger"),
                                   "after"), ==, 2);
    qobject_unref(d);

    sem = submit_kernel(&t, a, quick, ARRAY_SIZE(quick), 32);
    wait_state(&t, CH_GR, TGPU_CHAN_STATE_RUNNING);
    expect_hang_event(&t, n, "compute", "stall", -1);
    expect_fired(&t, n, "hang");
    expect_stuck(&t, TGPU_RUNLIST_COMPUTE);
    g_assert_cmphex(pa_rd32(&t, L.sem), !=, sem);
    g_assert_cmpuint(nr_injections(&t), ==, 0);
    tgpu_stop(&t);
}

/* After N copy launches: copy engine 0 stalls in the Nth. */
static void test_trigger_copies(void)
{
    Chan *c;
    uint64_t n;
    T t;

    fault_start(&t, NULL);
    c = chan_up_class(&t, chan_cfg(&t, CH_CE), CE_SC, TGPU_CLASS_COPY);
    n = hang(&t, "'engine': 'ce0', 'kind': 'stall', 'trigger': "
             "{ 'after': 1, 'event': 'copy-launches' }");
    expect_not_fired(&t);
    submit_copy(&t, c, 0x10000, L.sem, 0x77);
    wait_state(&t, CH_CE, TGPU_CHAN_STATE_RUNNING);
    expect_hang_event(&t, n, "ce0", "stall", -1);
    expect_fired(&t, n, "hang");
    expect_stuck(&t, TGPU_RUNLIST_CE0);
    g_assert_cmphex(pa_rd32(&t, L.sem), !=, 0x77);
    chan_kill(&t, CH_CE);
    g_assert_cmpuint(crd(&t, CH_CE, TGPU_CHAN_ERROR), ==, TGPU_ERR_KILLED);
    tgpu_stop(&t);
}

/* After N VRAM reads: an ECC error is armed then, not before. */
static void test_trigger_vram_reads(void)
{
    Chan *c;
    uint64_t n;
    T t;

    fault_start(&t, NULL);
    c = chan_up(&t, 0);
    n = cmd_ok(&t, "tgpu-inject-ecc", "'id': 'gpu0', 'address': 8192, "
               "'type': 'single', 'trigger': { 'after': 3, "
               "'event': 'vram-reads' }");
    settle(&t);
    g_assert_cmpuint(rd(&t, TGPU_ECC_INJ_STATUS), ==, 0);
    expect_not_fired(&t);
    /* GP_PUT, the GPFIFO entry, the pushbuffer: three reads at least */
    run_release(&t, c, L.sem, 1);
    settle(&t);
    expect_fired(&t, n, "ecc");
    g_assert_cmpuint(rd(&t, TGPU_ECC_INJ_STATUS), ==, 1);
    g_assert_cmpuint(nr_injections(&t), ==, 0);
    tgpu_stop(&t);
}

/* At a virtual time: an MMU fault record, its interrupt and its event. */
static void test_mmu_fault_at_time(void)
{
    QDict *d;
    uint64_t n;
    int64_t now;
    T t;

    fault_start(&t, NULL);
    msix_setup(&t, false);
    wr(&t, TGPU_MMU_INTR_EN, TGPU_MMU_INTR_FAULT);
    wr(&t, TGPU_PMC_INTR_EN, TGPU_INTR_MMU);
    now = vclock(&t);
    {
        g_autofree char *a = g_strdup_printf(
            "'kind': 'mmu-fault', 'va': 12288, 'asid': 7, 'channel': 3, "
            "'access': 'write', 'engine': 'ce1', 'count': 2, "
            "'trigger': { 'at-ns': %" PRId64 " }", now + 1000000);

        n = fault(&t, a);
    }
    step(&t, 999999);
    g_assert_cmpuint(rd(&t, TGPU_MMU_FAULT_BUF_PUT), ==, 0);
    g_assert_false(msi_seen(&t, TGPU_MSIX_VEC_MMU));
    expect_not_fired(&t);
    step(&t, 1);
    g_assert_cmpuint(rd(&t, TGPU_MMU_FAULT_BUF_PUT), ==, 2);
    g_assert_cmpuint(rd(&t, TGPU_MMU_FAULT_COUNT), ==, 2);
    g_assert_cmphex(pa_rd64(&t, K.faultbuf + TGPU_FAULT_REC_VA), ==, 12288);
    g_assert_cmpuint(pa_rd32(&t, K.faultbuf + TGPU_FAULT_REC_ASID), ==, 7);
    g_assert_cmpuint(pa_rd32(&t, K.faultbuf + TGPU_FAULT_REC_CHID), ==, 3);
    g_assert_cmpuint(pa_rd32(&t, K.faultbuf + TGPU_FAULT_REC_ENGINE) & 0xff,
                     ==, TGPU_FAULT_ENGINE_CE1);
    g_assert_true(rd(&t, TGPU_MMU_INTR) & TGPU_MMU_INTR_FAULT);
    g_assert_true(msi_seen(&t, TGPU_MSIX_VEC_MMU));
    d = event(&t, "TGPU_MMU_FAULT");
    g_assert_cmpuint(qdict_get_int(d, "va"), ==, 12288);
    g_assert_cmpuint(qdict_get_int(d, "asid"), ==, 7);
    g_assert_cmpstr(qdict_get_str(d, "engine"), ==, "ce1");
    g_assert_cmpstr(qdict_get_str(d, "access"), ==, "write");
    qobject_unref(d);
    expect_fired(&t, n, "mmu-fault");
    tgpu_stop(&t);
}

/*
 * After N methods of a channel: its next method is refused as illegal;
 * TGPU_CHANNEL_ERROR says so.
 */
static void test_illegal_method(void)
{
    g_autofree PB *pb = pb_new();
    QDict *d;
    uint64_t n;
    Chan *c;
    T t;

    fault_start(&t, NULL);
    c = chan_up(&t, 0);
    n = fault(&t, "'kind': 'illegal-method', 'channel': 0, 'trigger': "
              "{ 'after': 3, 'event': 'methods', 'channel': 0 }");
    pb_immd(pb, TGPU_M_NOP, 0);
    pb_immd(pb, TGPU_M_NOP, 0);
    pb_immd(pb, TGPU_M_NOP, 0);
    pb_immd(pb, TGPU_M_YIELD, 0);
    pb_release(pb, L.sem, 5);
    submit(&t, c, pb);
    wait_state(&t, 0, TGPU_CHAN_STATE_ERROR);
    expect_fired(&t, n, "illegal-method");
    d = event(&t, "TGPU_CHANNEL_ERROR");
    g_assert_cmpuint(qdict_get_int(d, "channel"), ==, 0);
    g_assert_cmpuint(qdict_get_int(d, "code"), ==, TGPU_ERR_ILLEGAL_METHOD);
    g_assert_cmpstr(qdict_get_str(d, "name"), ==, "ILLEGAL_METHOD");
    g_assert_cmphex(qdict_get_int(d, "info"), ==, TGPU_M_YIELD);
    qobject_unref(d);
    g_assert_cmphex(pa_rd32(&t, L.sem), ==, 0);
    expect_err(&t, c, TGPU_ERR_ILLEGAL_METHOD, TGPU_M_YIELD);
    g_assert_cmpuint(nr_injections(&t), ==, 0);
    c = chan_up(&t, 0);
    run_release(&t, c, L.sem, 6);
    tgpu_stop(&t);
}

/* After N doorbells: the next ones are lost, and only of that channel. */
static void test_doorbell_drop(void)
{
    g_autofree PB *pb = pb_new();
    Chan *a, *b;
    uint64_t n;
    T t;

    fault_start(&t, NULL);
    a = chan_up(&t, 0);
    b = chan_up(&t, 3);
    n = fault(&t, "'kind': 'doorbell-drop', 'channel': 0, 'count': 2, "
              "'trigger': { 'after': 1, 'event': 'doorbells' }");
    run_release(&t, b, L.sem + 16, 1);  /* the first doorbell */
    expect_fired(&t, n, "doorbell-drop");
    g_assert_cmpuint(rd(&t, TGPU_FIFO_DOORBELLS), ==, 1);

    pb_release(pb, L.sem, 2);
    submit(&t, a, pb);
    settle(&t);
    chan_kick(&t, a);
    step(&t, 1000000);
    /* two lost: the work is there, the device never heard of it */
    g_assert_cmphex(pa_rd32(&t, L.sem), ==, 0);
    g_assert_cmpuint(crd(&t, 0, TGPU_CHAN_GP_GET), ==, 0);
    g_assert_cmpuint(rd(&t, TGPU_FIFO_DOORBELLS), ==, 1);
    run_release(&t, b, L.sem + 16, 3);  /* another channel's: taken */
    chan_kick(&t, a);
    wait_done(&t, a);
    g_assert_cmphex(pa_rd32(&t, L.sem), ==, 2);
    g_assert_cmpuint(rd(&t, TGPU_FIFO_DOORBELLS), ==, 3);
    g_assert_cmpuint(nr_injections(&t), ==, 0);
    tgpu_stop(&t);
}

/* A lost interrupt: the status is set, the message never comes. */
static void test_lost_interrupt(void)
{
    Chan *c;
    uint64_t n;
    T t;

    fault_start(&t, NULL);
    msix_setup(&t, false);
    enable_all_interrupts(&t);
    c = chan_up(&t, 0);
    n = fault(&t, "'kind': 'lost-interrupt', 'vector': 'fifo'");
    expect_fired(&t, n, "lost-interrupt");
    fault(&t, "'kind': 'illegal-method', 'channel': 0");
    run_release(&t, chan_up(&t, 3), L.sem, 1);   /* no interrupt */
    {
        g_autofree PB *pb = pb_new();

        pb_immd(pb, TGPU_M_NOP, 0);
        submit(&t, c, pb);
    }
    wait_state(&t, 0, TGPU_CHAN_STATE_ERROR);
    settle(&t);
    g_assert_true(rd(&t, TGPU_PMC_INTR) & TGPU_INTR_FIFO);
    g_assert_false(msi_seen(&t, TGPU_MSIX_VEC_STALL));
    err_ack(&t, 0);
    chan_reset(&t, 0);

    /* the next one is sent */
    c = chan_up(&t, 0);
    fault(&t, "'kind': 'illegal-method', 'channel': 0");
    {
        g_autofree PB *pb = pb_new();

        pb_immd(pb, TGPU_M_NOP, 0);
        submit(&t, c, pb);
    }
    wait_state(&t, 0, TGPU_CHAN_STATE_ERROR);
    wait_msi(&t, TGPU_MSIX_VEC_STALL);
    tgpu_stop(&t);
}

/* DMA errors: the next access of guest memory fails, as the bus would. */
static void test_dma_error(void)
{
    Chan *c;
    uint64_t n;
    T t;

    fault_start(&t, NULL);
    c = chan_up_cfg(&t, chan_cfg_sys(&t, 0));
    run_release(&t, c, L.sem, 1);
    n = fault(&t, "'kind': 'dma-error', 'count': 1");
    expect_fired(&t, n, "dma-error");
    {
        g_autofree PB *pb = pb_new();

        pb_release(pb, L.sem, 2);
        submit(&t, c, pb);
    }
    /* the first access is USERD's GP_PUT */
    expect_err(&t, c, TGPU_ERR_USERD_FAULT, (uint32_t)SYS(G.userd));
    g_assert_cmpuint(nr_injections(&t), ==, 0);
    c = chan_up_cfg(&t, chan_cfg_sys(&t, 0));
    run_release(&t, c, L.sem, 3);
    tgpu_stop(&t);
}

/* Off the bus: all ones, writes dropped, until restored or FLR. */
static void test_bus_loss(void)
{
    uint16_t cap, ctl;
    QDict *d;
    uint64_t n;
    T t;

    fault_start(&t, NULL);
    wr(&t, TGPU_PMC_SCRATCH, 0x1234);
    pa_wr32(&t, 64, 0xabcd);
    n = fault(&t, "'kind': 'bus-loss'");
    expect_fired(&t, n, "bus-loss");
    g_assert_cmphex(rd(&t, TGPU_PMC_BOOT_0), ==, 0xffffffff);
    g_assert_cmphex(rd(&t, TGPU_PMC_SCRATCH), ==, 0xffffffff);
    g_assert_cmphex(pa_rd32(&t, 64), ==, 0xffffffff);
    wr(&t, TGPU_PMC_SCRATCH, 0x5678);
    pa_wr32(&t, 64, 0);
    d = query(&t);
    g_assert_true(qdict_get_bool(d, "bus-lost"));
    qobject_unref(d);

    cmd_ok(&t, "tgpu-restore-bus", "'id': 'gpu0'");
    g_assert_cmphex(rd(&t, TGPU_PMC_MAGIC), ==, TGPU_MAGIC);
    g_assert_cmphex(rd(&t, TGPU_PMC_SCRATCH), ==, 0x1234);
    g_assert_cmphex(pa_rd32(&t, 64), ==, 0xabcd);

    /*
     * Lost in the middle of a pushbuffer: the host unit stops where it
     * is, and goes on from there once the bus is back.
     */
    {
        g_autofree PB *pb = pb_new();
        Chan *c = chan_up(&t, 0);

        fault(&t, "'kind': 'bus-loss', 'trigger': { 'after': 3, "
              "'event': 'methods' }");
        pb_nops(pb, 6);
        pb_release(pb, L.sem, 0x77);
        submit(&t, c, pb);
        settle(&t);
        g_assert_cmphex(rd(&t, TGPU_PMC_MAGIC), ==, 0xffffffff);
        cmd_ok(&t, "tgpu-restore-bus", "'id': 'gpu0'");
        wait_done(&t, c);
        g_assert_cmphex(pa_rd32(&t, L.sem), ==, 0x77);
        g_assert_cmpuint(crd(&t, 0, TGPU_CHAN_ERROR), ==, 0);
    }

    /* an FLR brings it back too, reset */
    fault(&t, "'kind': 'bus-loss'");
    g_assert_cmphex(rd(&t, TGPU_PMC_MAGIC), ==, 0xffffffff);
    cap = qpci_find_capability(t.dev, PCI_CAP_ID_EXP, 0);
    qpci_config_writew(t.dev, PCI_COMMAND, 0);
    ctl = qpci_config_readw(t.dev, cap + PCI_EXP_DEVCTL);
    qpci_config_writew(t.dev, cap + PCI_EXP_DEVCTL,
                       ctl | PCI_EXP_DEVCTL_BCR_FLR);
    tgpu_restore_bars(&t);
    g_assert_cmphex(rd(&t, TGPU_PMC_MAGIC), ==, TGPU_MAGIC);
    g_assert_cmphex(rd(&t, TGPU_PMC_SCRATCH), ==, 0);
    d = query(&t);
    g_assert_false(qdict_get_bool(d, "bus-lost"));
    qobject_unref(d);
    tgpu_stop(&t);
}

/* ---- bad arguments ------------------------------------------------------ */

static void test_bad_arguments(void)
{
    static const struct {
        const char *cmd, *args, *why;
    } cases[] = {
        { "tgpu-inject-hang", "'id': 'nope', 'engine': 'ce0', "
          "'kind': 'stall'", "no tgpu device" },
        { "tgpu-inject-hang", "'id': '/machine', 'engine': 'ce0', "
          "'kind': 'stall'", "is not a tgpu device" },
        { "tgpu-inject-hang", "'id': 'gpu0', 'engine': 'ce9', "
          "'kind': 'stall'", "'engine'" },
        { "tgpu-inject-hang", "'id': 'gpu0', 'kind': 'stall'",
          "either 'engine' or 'channel'" },
        { "tgpu-inject-hang", "'id': 'gpu0', 'engine': 'ce0', "
          "'channel': 1, 'kind': 'stall'", "either 'engine' or 'channel'" },
        { "tgpu-inject-hang", "'id': 'gpu0', 'channel': 999, "
          "'kind': 'stall'", "'channel' 999 does not exist" },
        { "tgpu-inject-hang", "'id': 'gpu0', 'engine': 'host', "
          "'kind': 'wedge'", "'kind' wedge" },
        { "tgpu-inject-hang", "'id': 'gpu0', 'engine': 'ce0', "
          "'kind': 'melt'", "'kind'" },
        { "tgpu-inject-hang", "'id': 'gpu0', 'engine': 'ce0', "
          "'kind': 'stall', 'trigger': { 'after': 0, "
          "'event': 'doorbells' }", "'after' must be at least 1" },
        { "tgpu-inject-hang", "'id': 'gpu0', 'engine': 'ce0', "
          "'kind': 'stall', 'trigger': { 'after': 1 }",
          "'after' and 'event' together" },
        { "tgpu-inject-hang", "'id': 'gpu0', 'engine': 'ce0', "
          "'kind': 'stall', 'trigger': { 'at-ns': 5, 'after': 1, "
          "'event': 'methods' }", "'at-ns' alone" },
        { "tgpu-inject-hang", "'id': 'gpu0', 'engine': 'ce0', "
          "'kind': 'stall', 'trigger': { 'after': 1, 'event': 'methods', "
          "'channel': 4096 }", "'trigger' 'channel' 4096 does not exist" },
        { "tgpu-inject-hang", "'id': 'gpu0', 'engine': 'ce0', "
          "'kind': 'stall', 'trigger': { 'after': 1, 'event': 'sneezes' }",
          "'event' does not accept value 'sneezes'" },
        { "tgpu-inject-fault", "'id': 'gpu0', 'kind': 'mmu-fault'",
          "'va'" },
        { "tgpu-inject-fault", "'id': 'gpu0', 'kind': 'mmu-fault', "
          "'va': 1099511627776", "beyond the 40-bit" },
        { "tgpu-inject-fault", "'id': 'gpu0', 'kind': 'mmu-fault', "
          "'va': 0, 'asid': 65536", "'asid' 65536 is out of range" },
        { "tgpu-inject-fault", "'id': 'gpu0', 'kind': 'illegal-method', "
          "'channel': 64", "'channel' 64 does not exist" },
        { "tgpu-inject-fault", "'id': 'gpu0', 'kind': 'doorbell-drop', "
          "'channel': 64", "'channel' 64 does not exist" },
        { "tgpu-inject-fault", "'id': 'gpu0', 'kind': 'lost-interrupt', "
          "'vector': 'nmi'", "'vector'" },
        { "tgpu-inject-fault", "'id': 'gpu0', 'kind': 'dma-error', "
          "'count': 0", "'count' 0 is out of range" },
        { "tgpu-inject-fault", "'id': 'gpu0', 'kind': 'dma-error', "
          "'count': 1000001", "'count' 1000001 is out of range" },
        { "tgpu-inject-fault", "'id': 'gpu0', 'kind': 'bus-loss', "
          "'count': 2", "a bus loss has none" },
        { "tgpu-inject-fault", "'id': 'gpu0', 'kind': 'fire'", "'kind'" },
        { "tgpu-inject-ecc", "'id': 'gpu0', 'address': 0, 'type': 'single', "
          "'trigger': { 'event': 'methods' }", "'after' and 'event'" },
        { "tgpu-restore-bus", "'id': 'nope'", "no tgpu device" },
        /* QOM resolves "" to the only tgpu: every command refuses it */
        { "tgpu-inject-ecc", "'id': '', 'address': 0, 'type': 'single'",
          "id '': no tgpu device" },
        { "tgpu-inject-hang", "'id': '', 'engine': 'ce0', 'kind': 'stall'",
          "id '': no tgpu device" },
        { "tgpu-inject-fault", "'id': '', 'kind': 'dma-error'",
          "id '': no tgpu device" },
        { "tgpu-restore-bus", "'id': ''", "id '': no tgpu device" },
        { "tgpu-clear-injections", "'id': ''", "id '': no tgpu device" },
        { "tgpu-set-thermal", "'id': '', 'ambient': 30",
          "id '': no tgpu device" },
    };
    g_autofree PB *pb = pb_new();
    Chan *c;
    T t;

    fault_start(&t, NULL);
    c = chan_up(&t, 0);
    for (size_t i = 0; i < ARRAY_SIZE(cases); i++) {
        expect_qmp_error(&t, cases[i].cmd, cases[i].args, cases[i].why);
    }
    /* nothing changed: nothing pending, nothing hangs, work runs */
    g_assert_cmpuint(nr_injections(&t), ==, 0);
    expect_not_fired(&t);
    run_release(&t, c, L.sem, 1);

    /* the 65th is refused, saying how to go on */
    for (int i = 0; i < 64; i++) {
        hang(&t, "'engine': 'ce1', 'kind': 'stall', 'trigger': "
             "{ 'after': 1000, 'event': 'doorbells' }");
    }
    expect_qmp_error(&t, "tgpu-inject-fault", "'id': 'gpu0', "
                 "'kind': 'dma-error'", "64 injections are pending already");
    cmd_ok(&t, "tgpu-clear-injections", "'id': 'gpu0'");
    g_assert_cmpuint(nr_injections(&t), ==, 0);
    tgpu_stop(&t);
}

/* ---- HMP ---------------------------------------------------------------- */

/* An HMP command; what it printed must have WANT in it. */
static void hmp_expect(T *t, const char *line, const char *want)
{
    g_autofree char *out = qtest_hmp(t->qts, "%s", line);

    g_test_message("(qemu) %s", line);
    g_test_message("%s", out);
    g_assert_nonnull(strstr(out, want));
}

/* tgpu_inject and info tgpu, in the syntax a person types. */
static void test_hmp(void)
{
    g_autofree char *pending = NULL;
    Chan *c;
    T t;

    fault_start(&t, NULL);
    c = gr_chan_up(&t, CH_GR);
    hmp_expect(&t, "help tgpu_inject", "stall|wedge|fetch ENGINE|chN");
    hmp_expect(&t, "tgpu_inject gpu0 stall compute after 2 kernel-launches "
               "channel 1", "injection 1");
    expect_kernel_runs(&t, c);
    hmp_expect(&t, "info tgpu", "#1 hang at compute after 2 "
               "kernel-launches of channel 1 (1 seen)");
    hmp_expect(&t, "tgpu_inject gpu0 mmu-fault 0x3000 9 at 1ms",
               "injection 2");
    hmp_expect(&t, "info tgpu", "#2 mmu-fault at VA 0x3000 at 1000000 ns");
    step(&t, 1000000);
    g_assert_cmpuint(rd(&t, TGPU_MMU_FAULT_BUF_PUT), ==, 1);
    g_assert_cmpuint(pa_rd32(&t, K.faultbuf + TGPU_FAULT_REC_ASID), ==, 9);
    hmp_expect(&t, "tgpu_inject gpu0 doorbell-drop 5 count 3",
               "injection 3");
    hmp_expect(&t, "info tgpu", "#3 doorbell-drop at channel 5: fired, "
               "3 left");
    hmp_expect(&t, "tgpu_inject gpu0 ecc-double 0x2000 sticky after 1 "
               "doorbells", "injection 4");
    hmp_expect(&t, "tgpu_inject gpu0 thermal sensor 95", "");
    g_assert_cmpint(rd(&t, TGPU_THERM_TEMP), ==, 95000);
    hmp_expect(&t, "tgpu_inject gpu0 thermal ramp 95 40 1", "");
    hmp_expect(&t, "tgpu_inject gpu0 thermal release", "");
    hmp_expect(&t, "tgpu_inject gpu0 thermal sensor 999", "out of range");
    hmp_expect(&t, "tgpu_inject gpu0 thermal hot", "give ambient C");
    hmp_expect(&t, "tgpu_inject gpu0 bus-loss", "injection 5");
    hmp_expect(&t, "info tgpu", "FALLEN OFF THE BUS");
    g_assert_cmphex(rd(&t, TGPU_PMC_MAGIC), ==, 0xffffffff);
    hmp_expect(&t, "tgpu_inject gpu0 restore-bus", "");
    g_assert_cmphex(rd(&t, TGPU_PMC_MAGIC), ==, TGPU_MAGIC);
    pending = qtest_hmp(t.qts, "info tgpu");
    g_assert_null(strstr(pending, "FALLEN"));
    g_free(pending);

    /* errors say what is wrong, and arm nothing */
    hmp_expect(&t, "tgpu_inject gpu0 stall gpu", "give an engine");
    hmp_expect(&t, "tgpu_inject gpu0 stall ce0 after 2 sneezes",
               "event: 'sneezes' is none of doorbells, methods");
    hmp_expect(&t, "tgpu_inject gpu0 dma-error at 5parsecs",
               "unknown unit");
    hmp_expect(&t, "tgpu_inject gpu0 illegal-method 4096",
               "'channel' 4096 does not exist");
    hmp_expect(&t, "tgpu_inject gpu0 melt", "unknown kind 'melt'");
    hmp_expect(&t, "tgpu_inject nope bus-loss", "no tgpu device");
    g_assert_cmpuint(nr_injections(&t), ==, 3);
    hmp_expect(&t, "tgpu_inject gpu0 clear", "");
    g_assert_cmpuint(nr_injections(&t), ==, 0);
    pending = qtest_hmp(t.qts, "info tgpu");
    g_assert_null(strstr(pending, "#"));
    tgpu_stop(&t);
}

/* ---- scripts/tgpu-qmp --------------------------------------------------- */

/* scripts/tgpu-qmp of the tree this test was built from. */
static char *tgpu_qmp_script(void)
{
    g_autofree char *self = realpath(__FILE__, NULL);
    g_autofree char *qtest = NULL, *tests = NULL, *top = NULL;

    g_assert_nonnull(self);     /* the test runs in QEMU's build tree */
    qtest = g_path_get_dirname(self);
    tests = g_path_get_dirname(qtest);
    top = g_path_get_dirname(tests);
    return g_build_filename(top, "scripts", "tgpu-qmp", NULL);
}

/* Run it with ARGV (after the script), its output in *OUT; its status. */
static int run_tgpu_qmp(const char *const *args, char **out)
{
    g_autofree char *script = tgpu_qmp_script();
    g_autoptr(GPtrArray) argv = g_ptr_array_new();
    g_autofree char *err = NULL;
    int status;

    g_ptr_array_add(argv, script);
    for (int i = 0; args[i]; i++) {
        g_ptr_array_add(argv, (char *)args[i]);
    }
    g_ptr_array_add(argv, NULL);
    g_assert_true(g_spawn_sync(NULL, (char **)argv->pdata, NULL,
                               G_SPAWN_DEFAULT, NULL, NULL, out, &err,
                               &status, NULL));
    g_test_message("tgpu-qmp %s: %s%s", args[1], *out, err);
    return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

/*
 * One command from a shell, its reply printed; the event it waits for
 * on the same connection; an error's exit status.
 */
static void test_tgpu_qmp_script(void)
{
    g_autofree char *dir = g_dir_make_tmp("tgpu-qmp-XXXXXX", NULL);
    g_autofree char *sock = g_build_filename(dir, "qmp", NULL);
    /* a second QMP monitor, for the script, besides libqtest's */
    g_autofree char *opts = g_strdup_printf(
        "ecc=on -qmp unix:%s,server=on,wait=off", sock);
    const char *inject[] = {
        sock, "tgpu-inject-hang",
        "{\"id\": \"gpu0\", \"engine\": \"ce1\", \"kind\": \"wedge\"}",
        "--wait-event", "TGPU_ENGINE_HANG", NULL,
    };
    const char *bad[] = {
        sock, "tgpu-inject-hang", "{\"id\": \"gpu0\", \"kind\": \"x\"}",
        NULL,
    };
    const char *wait[] = {
        sock, "--wait-event", "TGPU_THERMAL", "--timeout", "0.5", NULL,
    };
    g_autofree char *out = NULL, *out2 = NULL, *out3 = NULL;
    g_autofree char *h = NULL;
    T t;

    fault_start(&t, opts);
    g_assert_cmpint(run_tgpu_qmp(inject, &out), ==, 0);
    g_assert_true(g_str_has_prefix(out, "{\"number\": 1}\n"));
    g_assert_nonnull(strstr(out, "\"event\": \"TGPU_ENGINE_HANG\""));
    g_assert_nonnull(strstr(out, "\"engine\": \"ce1\""));
    h = engine_hang(&t, "CE1");
    g_assert_cmpstr(h, ==, "wedge");
    g_assert_cmpint(run_tgpu_qmp(bad, &out2), ==, 1);
    g_assert_cmpint(run_tgpu_qmp(wait, &out3), ==, 2);
    tgpu_stop(&t);
    unlink(sock);
    rmdir(dir);
}

/* ---- fault plans -------------------------------------------------------- */

static char *plan_file(const char *dir, const char *name, const char *text)
{
    char *path = g_build_filename(dir, name, NULL);

    g_assert_true(g_file_set_contents(path, text, -1, NULL));
    return path;
}

/* What query-tgpu's as-plan gives. */
static char *query_plan(T *t)
{
    QDict *r = qtest_qmp(t->qts, "{'execute': 'query-tgpu', "
                         "'arguments': { 'as-plan': true }}");
    QDict *d = qobject_to(QDict, qlist_peek(qdict_get_qlist(r, "return")));
    char *plan = g_strdup(qdict_get_str(d, "plan"));

    qobject_unref(r);
    return plan;
}

/*
 * A plan's injections wait, as given; a line without a trigger waits for
 * the virtual clock to start; as-plan gives them back, and the same
 * again from its own output.
 */
static void test_plan(void)
{
    g_autofree char *dir = g_dir_make_tmp("tgpu-plan-XXXXXX", NULL);
    g_autofree char *path = plan_file(dir, "p", "# a plan\n"
        "{\"execute\": \"tgpu-inject-hang\", \"arguments\": "
        "{\"engine\": \"compute\", \"kind\": \"stall\", \"trigger\": "
        "{\"after\": 2, \"event\": \"kernel-launches\"}}}  # the 2nd\n"
        "\n"
        "{\"execute\": \"tgpu-inject-ecc\", \"arguments\": "
        "{\"address\": 4096, \"bits\": 3, \"trigger\": {\"at-ns\": 5000}}}\n"
        "{\"execute\": \"tgpu-inject-fault\", \"arguments\": "
        "{\"kind\": \"lost-interrupt\", \"vector\": \"mmu\"}}\n");
    g_autofree char *opts = g_strdup_printf("fault-plan=%s", path);
    g_autofree char *plan = NULL, *again = NULL, *path2 = NULL;
    g_autofree char *opts2 = NULL;
    QDict *d;
    T t;

    fault_start(&t, opts);
    g_assert_cmpuint(nr_injections(&t), ==, 3);
    plan = query_plan(&t);
    g_test_message("as plan:");
    g_test_message("%s", plan);
    g_assert_nonnull(strstr(plan, "\"execute\": \"tgpu-inject-hang\""));
    g_assert_nonnull(strstr(plan, "\"kernel-launches\""));
    g_assert_null(strstr(plan, "\"id\""));
    g_assert_cmpuint(rd(&t, TGPU_ECC_INJ_STATUS), ==, 0);
    step(&t, 5000);
    g_assert_cmpuint(rd(&t, TGPU_ECC_INJ_STATUS), ==, 1);
    d = query(&t);
    /* the hang waits; the lost interrupt fired, with its count left */
    g_assert_cmpuint(qlist_size(qdict_get_qlist(d, "injections")), ==, 2);
    qobject_unref(d);
    tgpu_stop(&t);

    path2 = plan_file(dir, "p2", plan);
    opts2 = g_strdup_printf("fault-plan=%s", path2);
    fault_start(&t, opts2);
    again = query_plan(&t);
    g_assert_cmpstr(again, ==, plan);
    tgpu_stop(&t);
    unlink(path);
    unlink(path2);
    rmdir(dir);
}

/*
 * QEMU with fault-plan=@path must refuse to start, saying @why (and
 * @where, if given).  Under timeout(1): a plan that hangs QEMU (a FIFO
 * read in open()) or that it reads without end (/dev/zero) fails here
 * in seconds, instead of stalling the suite.
 */
static void expect_plan_refused(const char *path, const char *where,
                                const char *why)
{
    const char *qemu = g_getenv("QTEST_QEMU_BINARY");
    g_autofree char *dev = g_strdup_printf(
        "tgpu,vram-size=64M,fault-plan=%s", path);
    g_autofree char *out = NULL, *err = NULL;
    const char *argv[] = {
        "timeout", "-k", "5", "30",
        qemu, "-M", "q35", "-nodefaults", "-display", "none",
        "-accel", "qtest", "-device", dev, NULL,
    };
    int status;

    g_assert_true(g_spawn_sync(NULL, (char **)argv, NULL,
                               G_SPAWN_SEARCH_PATH, NULL, NULL, &out, &err,
                               &status, NULL));
    g_test_message("%s", err);
    g_assert_false(WIFEXITED(status) && WEXITSTATUS(status) == 124);
    g_assert_false(WIFSIGNALED(status));
    g_assert_false(WIFEXITED(status) && WEXITSTATUS(status) == 0);
    if (where) {
        g_assert_nonnull(strstr(err, where));
    }
    g_assert_nonnull(strstr(err, why));
}

/* A malformed plan refuses the device, naming the line and the field. */
static void test_plan_malformed(void)
{
    static const struct {
        const char *line, *why;
    } cases[] = {
        { "{\"execute\": \"tgpu-inject-hang\", \"arguments\": "
          "{\"kind\": \"stall\"}}", "give either 'engine' or 'channel'" },
        { "{\"execute\": \"tgpu-inject-hang\", \"arguments\": "
          "{\"engine\": \"ce0\", \"kind\": \"stall\", \"trigger\": "
          "{\"after\": \"two\", \"event\": \"methods\"}}}", "trigger.after" },
        { "{\"execute\": \"tgpu-inject-hang\", \"arguments\": "
          "{\"engine\": \"ce0\", \"kind\": \"stal\"}}", "kind" },
        { "{\"execute\": \"tgpu-inject-fault\", \"arguments\": "
          "{\"kind\": \"dma-error\", \"colour\": 1}}", "colour" },
        { "{\"execute\": \"tgpu-inject-fault\", \"arguments\": "
          "{\"id\": \"gpu0\", \"kind\": \"dma-error\"}}", "'id'" },
        { "{\"execute\": \"quit\"}", "'execute' quit" },
        { "{\"execute\": \"tgpu-inject-fault\"", "JSON" },
        { "[1, 2]", "not a JSON object" },
    };
    g_autofree char *dir = g_dir_make_tmp("tgpu-plan-XXXXXX", NULL);

    for (size_t i = 0; i < ARRAY_SIZE(cases); i++) {
        g_autofree char *text = g_strdup_printf(
            "# line 1\n{\"execute\": \"tgpu-inject-fault\", \"arguments\": "
            "{\"kind\": \"dma-error\"}}\n%s\n", cases[i].line);
        g_autofree char *path = plan_file(dir, "bad", text);
        g_autofree char *where = g_strdup_printf("fault-plan %s:3:", path);

        expect_plan_refused(path, where, cases[i].why);
        unlink(path);
    }
    rmdir(dir);
}

/*
 * A plan is a regular text file of at most 1 MiB: a FIFO (which would
 * block QEMU in open()), a device (read without end), a longer file and
 * a file with a NUL (whose lines after it would be dropped) are refused
 * at once, naming the path; a missing file names it too.
 */
static void test_plan_not_a_file(void)
{
    g_autofree char *dir = g_dir_make_tmp("tgpu-plan-XXXXXX", NULL);
    g_autofree char *fifo = g_build_filename(dir, "fifo", NULL);
    g_autofree char *big = g_build_filename(dir, "big", NULL);
    g_autofree char *nul = g_build_filename(dir, "nul", NULL);
    g_autofree char *none = g_build_filename(dir, "none", NULL);
    g_autofree char *why = NULL;
    const size_t max = 1024 * 1024;     /* docs/fault-injection.md's */
    FILE *f;

    g_assert_cmpint(mkfifo(fifo, 0600), ==, 0);
    why = g_strdup_printf("fault-plan %s is not a regular file", fifo);
    expect_plan_refused(fifo, NULL, why);
    expect_plan_refused("/dev/zero", NULL,
                        "fault-plan /dev/zero is not a regular file");

    /* one byte over the limit, of comment lines: refused by its size */
    f = fopen(big, "w");
    g_assert_nonnull(f);
    for (size_t n = 0; n <= max; n += 64) {
        fprintf(f, "#%62s\n", "");
    }
    g_assert_cmpint(fclose(f), ==, 0);
    g_free(why);
    why = g_strdup_printf("fault-plan %s is larger than a plan may be "
                          "(1048576 bytes)", big);
    expect_plan_refused(big, NULL, why);
    /* at the limit, it loads (and holds nothing) */
    g_assert_cmpint(truncate(big, max), ==, 0);
    {
        g_autofree char *opts = g_strdup_printf("fault-plan=%s", big);
        T t;

        fault_start(&t, opts);
        g_assert_cmpuint(nr_injections(&t), ==, 0);
        tgpu_stop(&t);
    }

    {
        static const char text[] = "# a\n\0{\"execute\": \"quit\"}\n";

        g_assert_true(g_file_set_contents(nul, text, sizeof(text) - 1,
                                          NULL));
    }
    g_free(why);
    why = g_strdup_printf("fault-plan %s is not a text file (a NUL byte at "
                          "offset 4)", nul);
    expect_plan_refused(nul, NULL, why);

    g_free(why);
    why = g_strdup_printf("cannot read fault-plan %s: No such file", none);
    expect_plan_refused(none, NULL, why);

    unlink(fifo);
    unlink(big);
    unlink(nul);
    rmdir(dir);
}

/* ---- replay ------------------------------------------------------------- */

/* Two traces must be the same; if not, say where they part. */
static void expect_same_trace(const char *a, const char *b)
{
    g_auto(GStrv) la = g_strsplit(a, "\n", -1);
    g_auto(GStrv) lb = g_strsplit(b, "\n", -1);
    guint i;

    for (i = 0; la[i] && lb[i] && !strcmp(la[i], lb[i]); i++) {
        continue;
    }
    if (la[i] || lb[i]) {
        g_test_message("traces part at line %u:", i + 1);
        g_test_message("first:  %s", la[i] ? la[i] : "(end)");
        g_test_message("second: %s", lb[i] ? lb[i] : "(end)");
    }
    g_assert_true(!la[i] && !lb[i]);
}

/*
 * One run of the sequence against PLAN, traced into LOG: the plan's
 * illegal method, lost doorbell and timed MMU fault each fire where the
 * sequence's events put them.
 */
static void replay_run(const char *plan, const char *log, uint32_t *ticks)
{
    g_autofree char *opts = g_strdup_printf(
        "fault-plan=%s -trace enable=tgpu_*,file=%s", plan, log);
    g_autofree PB *pb = pb_new();
    Chan *a, *b;
    T t;

    *ticks = 0;
    fault_start(&t, opts);
    a = chan_up(&t, 0);
    b = chan_up(&t, 3);
    run_release(&t, a, L.sem, 1);               /* doorbell 1 */
    pb_immd(pb, TGPU_M_NOP, 0);
    pb_immd(pb, TGPU_M_NOP, 0);
    pb_release(pb, L.sem, 2);                   /* its 2nd method fails */
    submit(&t, a, pb);                          /* doorbell 2 */
    wait_state(&t, 0, TGPU_CHAN_STATE_ERROR);
    g_assert_cmpuint(crd(&t, 0, TGPU_CHAN_ERROR), ==,
                     TGPU_ERR_ILLEGAL_METHOD);
    err_ack(&t, 0);
    chan_reset(&t, 0);
    run_release(&t, b, L.sem + 16, 3);          /* doorbell 3 */
    pb->n = 0;
    pb_release(pb, L.sem + 16, 4);
    submit(&t, b, pb);                          /* doorbell 4: lost */
    settle(&t);
    g_assert_cmphex(pa_rd32(&t, L.sem + 16), ==, 3);
    chan_kick(&t, b);
    wait_done(&t, b);
    g_assert_cmphex(pa_rd32(&t, L.sem + 16), ==, 4);
    step(&t, 2000000);                          /* the MMU fault */
    g_assert_cmpuint(rd(&t, TGPU_MMU_FAULT_BUF_PUT), ==, 1);
    tgpu_stop(&t);
}

typedef void TraceRun(const char *plan, const char *log, uint32_t *ticks);

/*
 * RUN twice against a plan of PLAN_TEXT, each traced into a log: the two
 * traces must be the same.  The first one, and its run's *TICKS.
 */
static char *trace_twice(const char *plan_text, TraceRun *run,
                         uint32_t *ticks)
{
    g_autofree char *dir = g_dir_make_tmp("tgpu-trace-XXXXXX", NULL);
    g_autofree char *plan = plan_file(dir, "plan", plan_text);
    g_autofree char *log1 = g_build_filename(dir, "1.log", NULL);
    g_autofree char *log2 = g_build_filename(dir, "2.log", NULL);
    g_autofree char *t2 = NULL;
    char *t1 = NULL;
    uint32_t ticks2;

    run(plan, log1, ticks);
    run(plan, log2, &ticks2);
    g_assert_true(g_file_get_contents(log1, &t1, NULL, NULL));
    g_assert_true(g_file_get_contents(log2, &t2, NULL, NULL));
    g_test_message("%zu bytes of trace, %u ticks", strlen(t1), *ticks);
    g_assert_cmpuint(*ticks, ==, ticks2);
    expect_same_trace(t1, t2);
    unlink(log1);
    unlink(log2);
    unlink(plan);
    rmdir(dir);
    return t1;
}

static void test_replay_trace(void)
{
    g_autofree char *t1 = trace_twice(
        "{\"execute\": \"tgpu-inject-fault\", \"arguments\": "
        "{\"kind\": \"illegal-method\", \"channel\": 0, \"trigger\": "
        "{\"after\": 8, \"event\": \"methods\", \"channel\": 0}}}\n"
        "{\"execute\": \"tgpu-inject-fault\", \"arguments\": "
        "{\"kind\": \"doorbell-drop\", \"trigger\": "
        "{\"after\": 3, \"event\": \"doorbells\"}}}\n"
        "{\"execute\": \"tgpu-inject-fault\", \"arguments\": "
        "{\"kind\": \"mmu-fault\", \"va\": 4096, \"asid\": 5, "
        "\"trigger\": {\"at-ns\": 1500000}}}\n", replay_run, &(uint32_t){0});
    int fired = 0;

    for (const char *p = t1; (p = strstr(p, "tgpu_fault_fired")); p++) {
        fired++;
    }
    g_test_message("%d injections fired", fired);
    g_assert_cmpint(fired, ==, 3);
    g_assert_nonnull(strstr(t1, "tgpu_mmio_write"));
}

/* ---- deterministic=on -------------------------------------------------- */

/*
 * Engines advance only on the virtual clock: real time passing moves
 * nothing; each tick of it moves a bounded step; a hang holds, a kill
 * still ends it.
 */
static void test_deterministic(void)
{
    uint32_t sem, ticks = 0;
    Chan *g, *c;
    uint64_t n;
    T t;

    fault_start(&t, "deterministic=on");
    g = gr_chan_up(&t, CH_GR);
    c = chan_up_class(&t, chan_cfg(&t, CH_CE), CE_SC, TGPU_CLASS_COPY);

    pa_wr32(&t, K.out, 0);
    sem = submit_kernel(&t, g, quick, ARRAY_SIZE(quick), 32);
    settle(&t);
    g_usleep(50000);
    settle(&t);
    g_assert_cmpuint(chan_state(&t, CH_GR), ==, TGPU_CHAN_STATE_RUNNING);
    g_assert_cmphex(pa_rd32(&t, L.sem), !=, sem);
    step(&t, TGPU_DET_TICK_NS);
    wait_done(&t, g);
    g_assert_cmphex(pa_rd32(&t, K.out), ==, 0x600d);
    g_assert_cmphex(pa_rd32(&t, L.sem), ==, sem);

    /* 8 MiB: many checkpoints, so many ticks, each the same */
    submit_copy(&t, c, 8 * MiB, CE_SEM, 0x51);
    while (pa_rd32(&t, CE_SEM) != 0x51 && ticks < 10000) {
        uint32_t before = progress(&t, TGPU_RUNLIST_CE0);

        g_usleep(1000);
        g_assert_cmpuint(progress(&t, TGPU_RUNLIST_CE0), ==, before);
        step(&t, TGPU_DET_TICK_NS);
        ticks++;
    }
    g_test_message("8 MiB copy: %u ticks of %d ns", ticks, TGPU_DET_TICK_NS);
    g_assert_cmpuint(ticks, >, 1);
    wait_done(&t, c);

    /* a stall holds in this mode too, and a kill ends it */
    n = hang(&t, "'engine': 'compute', 'kind': 'stall'");
    expect_hang_event(&t, n, "compute", "stall", -1);
    sem = submit_kernel(&t, g, quick, ARRAY_SIZE(quick), 32);
    expect_stuck(&t, TGPU_RUNLIST_COMPUTE);
    g_assert_cmphex(pa_rd32(&t, L.sem), !=, sem);
    chan_kill(&t, CH_GR);
    g_assert_cmpuint(crd(&t, CH_GR, TGPU_CHAN_ERROR), ==, TGPU_ERR_KILLED);
    tgpu_stop(&t);
}

/*
 * Under deterministic=on the engines' work is in the trace too: a plan
 * and a sequence with kernels and copies give the same trace twice.
 *
 * The plan names the VRAM its ECC error lands in before QEMU starts, so
 * the copies read from a fixed address, DET_SRC, not from the allocator:
 * the 1 MiB there is in L.scratch, which no fault test uses.
 */
#define DET_SRC             0x1000000u
#define DET_ECC_ADDR        "16781312"      /* DET_SRC + 4 KiB */
static void det_run(const char *plan, const char *log, uint32_t *ticks)
{
    g_autofree char *opts = g_strdup_printf(
        "deterministic=on,fault-plan=%s -trace enable=tgpu_*,file=%s",
        plan, log);
    Chan *g, *c;
    T t;

    *ticks = 0;
    fault_start(&t, opts);
    g_assert_cmpuint(DET_SRC, >=, L.scratch);
    g_assert_cmpuint(DET_SRC + 1 * MiB, <=, L.scratch + 8 * MiB);
    g = gr_chan_up(&t, CH_GR);
    c = chan_up_class(&t, chan_cfg(&t, CH_CE), CE_SC, TGPU_CLASS_COPY);
    for (uint32_t i = 1; i <= 3; i++) {
        submit_kernel(&t, g, quick, ARRAY_SIZE(quick), 64);
        submit_copy_from(&t, c, DET_SRC, 1 * MiB, CE_SEM, 0x100 + i);
        /* the third never comes: 50 ticks show that */
        for (uint32_t n = 0; pa_rd32(&t, CE_SEM) != 0x100 + i &&
                             n < (i == 3 ? 50 : 1000); n++) {
            step(&t, TGPU_DET_TICK_NS);
            (*ticks)++;
        }
    }
    g_assert_cmphex(pa_rd32(&t, CE_SEM), ==, 0x102);
    /* the plan's hang took the third copy: it never ends */
    g_assert_cmpuint(chan_state(&t, CH_CE), ==, TGPU_CHAN_STATE_RUNNING);
    tgpu_stop(&t);
}

static void test_deterministic_trace(void)
{
    uint32_t ticks;
    g_autofree char *t1 = trace_twice(
        "{\"execute\": \"tgpu-inject-hang\", \"arguments\": "
        "{\"engine\": \"ce0\", \"kind\": \"stall\", \"trigger\": "
        "{\"after\": 3, \"event\": \"copy-launches\"}}}\n"
        "{\"execute\": \"tgpu-inject-ecc\", \"arguments\": "
        "{\"address\": " DET_ECC_ADDR ", \"type\": \"single\", \"trigger\": "
        "{\"after\": 5, \"event\": \"vram-reads\"}}}\n", det_run, &ticks);

    g_assert_nonnull(strstr(t1, "tgpu_ce_start"));
    g_assert_nonnull(strstr(t1, "tgpu_gr_launch"));
    g_assert_nonnull(strstr(t1, "tgpu_ecc_flip"));     /* ECC is off */
    g_assert_cmpuint(ticks, >, 50);
}

/* ---- migration ----------------------------------------------------------- */

/*
 * An injection is not migrated: while one is pending (or a hang or a
 * lost bus acts) migrate fails, saying why and what to do; once they
 * are cleared, the device migrates and works in the new QEMU.
 */
static void test_migrate_refused(void)
{
    g_autofree char *path = g_strdup_printf("%s/tgpu-qtest-%d.refused",
                                            g_get_tmp_dir(), getpid());
    g_autofree char *uri = g_strdup_printf("file:%s", path);
    QDict *r;
    T t;

    fault_start(&t, NULL);
    hang(&t, "'engine': 'compute', 'kind': 'stall', 'trigger': "
         "{ 'event': 'kernel-launches', 'after': 1000 }");
    qtest_qmp_assert_success(t.qts, "{'execute': 'migrate', 'arguments': "
                             "{'uri': %s}}", uri);
    r = migrate_end(t.qts);
    g_assert_cmpstr(qdict_get_str(r, "status"), ==, "failed");
    g_test_message("%s", qdict_get_str(r, "error-desc"));
    g_assert_nonnull(strstr(qdict_get_str(r, "error-desc"),
                            "injections are pending"));
    g_assert_nonnull(strstr(qdict_get_str(r, "error-desc"),
                            "tgpu-clear-injections"));
    qobject_unref(r);
    unlink(path);

    cmd_ok(&t, "tgpu-clear-injections", "'id': 'gpu0'");
    tgpu_migrate(&t);
    check_alive(&t, 0x600d);
    tgpu_stop(&t);
}

/*
 * A migration stream is input: a saved device with one field changed is
 * refused on load (the QEMU it is loaded into says which unit), and the
 * destination does not run with it.  Each case names a subsection and
 * the byte offset of a field after its version (the layout of its
 * VMStateDescription); the stream as saved must load.
 */
typedef struct Crafted {
    const char *sub;
    int at;             /* < 0: back from the end of the subsection */
    unsigned int width;
    uint64_t val;
    const char *what;
} Crafted;

/*
 * tgpu/host ends with its runlists (vmstate_runlist: base_lo, base_hi,
 * status, count, chid[], resident, last, rr_next, slice_left_ns), then
 * the FIFO's registers, pending bits, progress and timer.
 */
#define MIG_RL_SIZE     (4 * 4 + 2 * TGPU_CHANNELS_MAX + 3 * 4 + 8)
#define MIG_HOST_TAIL   (7 * 4 + 2 * 4 * (TGPU_CHANNELS_MAX / 32) + 8 + 8)
#define MIG_RL(r)       \
    (-MIG_HOST_TAIL - (TGPU_NR_RUNLISTS - (r)) * MIG_RL_SIZE)

static const Crafted crafted[] = {
    /* after num_channels (4): chan[0].id */
    { "tgpu/host", 4, 4, 7, "channel 0 claims to be channel 7" },
    /* chan[0]: id, inst, enabled, error, error_info, busy_ns: busy_since */
    { "tgpu/host", 29, 8, 1ull << 63, "a busy start before time began" },
    /* therm_mig[0], the ambient temperature's bits */
    { "tgpu/therm", 0, 8, 0x7ff8000000000000ull, "a NaN ambient" },
    /* after therm_mig[4]: therm_last_ns */
    { "tgpu/therm", 32, 8, 1ull << 63, "a last tick before time began" },
    /* ... timer, alerts, flags, intr, intr_en, err: therm_clk_request */
    { "tgpu/therm", 72, 4, 0xffffffff, "a clock request past the boost" },
    /* ecc_ctrl first: ECC on while the state says disabled */
    { "tgpu/ecc", 0, 1, 1, "ECC_CTRL on, the state disabled" },
    /* ... alert_high, alert_low, was_high, was_low, slowdown: halted */
    { "tgpu/therm", 59, 1, 1, "a thermal shutdown with channel 0 running" },
    /* runlist 0's chid[0] and chid[1] both channel 0 */
    { "tgpu/host", MIG_RL(0) + 16, 4, 0, "channel 0 twice on a runlist" },
};

/* Where in the stream D a crafted field AT of subsection NAME is. */
static size_t mig_crafted_at(const uint8_t *d, const size_t *sub, int nsub,
                             size_t hi, const char *name, int at)
{
    size_t from = mig_subsection_fields(d, sub, nsub, name);
    size_t end = hi;

    if (at >= 0) {
        return from + at;
    }
    for (int k = 0; k < nsub; k++) {
        if (sub[k] > from && sub[k] < end) {
            end = sub[k];
        }
    }
    g_assert_cmpuint(end - from, >=, (size_t)-at);
    return end + at;
}

static void test_migrate_crafted(void)
{
    g_autofree char *path = g_strdup_printf("%s/tgpu-qtest-%d.crafted",
                                            g_get_tmp_dir(), getpid());
    g_autofree char *cmd = NULL;
    g_autofree gchar *data = NULL;
    QTestState *dst;
    size_t sub[16], hi;
    bool loaded;
    gsize len;
    int nsub;
    T t;

    fault_start(&t, NULL);
    chan_up(&t, 0);
    cmd = tgpu_save(&t, path);
    g_assert_true(g_file_get_contents(path, &data, &len, NULL));
    nsub = mig_tgpu_subsections((const uint8_t *)data, len, sub,
                                ARRAY_SIZE(sub), &hi);
    /* runlist 0 as runlists_std() set it: two channels or more */
    g_assert_cmpuint(ldl_be_p(data + mig_crafted_at((const uint8_t *)data,
                                                    sub, nsub, hi,
                                                    "tgpu/host",
                                                    MIG_RL(0) + 12)),
                     >=, 2);

    /* as saved: it loads */
    dst = tgpu_load(cmd, path, &loaded);
    g_assert_true(loaded);
    qtest_quit(dst);

    for (size_t i = 0; i < ARRAY_SIZE(crafted); i++) {
        const Crafted *c = &crafted[i];
        g_autofree gchar *mut = g_memdup2(data, len);
        char *at = mut + mig_crafted_at((const uint8_t *)data, sub, nsub,
                                        hi, c->sub, c->at);

        g_test_message("%s %+d: %s", c->sub, c->at, c->what);
        switch (c->width) {
        case 1:
            *at = c->val;
            break;
        case 4:
            stl_be_p(at, c->val);
            break;
        default:
            stq_be_p(at, c->val);
            break;
        }
        g_assert_true(g_file_set_contents(path, mut, len, NULL));
        dst = tgpu_load(cmd, path, &loaded);
        g_assert_false(loaded);
        qtest_quit(dst);
    }
    unlink(path);
}

int main(int argc, char **argv)
{
    g_test_init(&argc, &argv, NULL);
    qtest_add_func("/tgpu/fault/stall", test_stall);
    qtest_add_func("/tgpu/fault/wedge", test_wedge);
    qtest_add_func("/tgpu/fault/hang-channel", test_hang_channel);
    qtest_add_func("/tgpu/fault/fetch", test_fetch);
    qtest_add_func("/tgpu/fault/trigger-kernels", test_trigger_kernels);
    qtest_add_func("/tgpu/fault/trigger-copies", test_trigger_copies);
    qtest_add_func("/tgpu/fault/trigger-vram-reads",
                   test_trigger_vram_reads);
    qtest_add_func("/tgpu/fault/mmu-fault-at-time", test_mmu_fault_at_time);
    qtest_add_func("/tgpu/fault/illegal-method", test_illegal_method);
    qtest_add_func("/tgpu/fault/doorbell-drop", test_doorbell_drop);
    qtest_add_func("/tgpu/fault/lost-interrupt", test_lost_interrupt);
    qtest_add_func("/tgpu/fault/dma-error", test_dma_error);
    qtest_add_func("/tgpu/fault/bus-loss", test_bus_loss);
    qtest_add_func("/tgpu/fault/bad-arguments", test_bad_arguments);
    qtest_add_func("/tgpu/fault/hmp", test_hmp);
    qtest_add_func("/tgpu/fault/tgpu-qmp-script", test_tgpu_qmp_script);
    qtest_add_func("/tgpu/fault/plan", test_plan);
    qtest_add_func("/tgpu/fault/plan-malformed", test_plan_malformed);
    qtest_add_func("/tgpu/fault/plan-not-a-file", test_plan_not_a_file);
    qtest_add_func("/tgpu/fault/replay-trace", test_replay_trace);
    qtest_add_func("/tgpu/fault/deterministic", test_deterministic);
    qtest_add_func("/tgpu/fault/migrate-refused", test_migrate_refused);
    qtest_add_func("/tgpu/fault/migrate-crafted", test_migrate_crafted);
    qtest_add_func("/tgpu/fault/deterministic-trace",
                   test_deterministic_trace);
    return g_test_run();
}
