/*
 * QTest testcase for tgpu's QMP interface (qapi/tgpu.json): ECC
 * injection by id and by QOM path, its effect on the device's registers
 * and on a reader, the TGPU_ECC_ERROR event and its rate limit,
 * tgpu-clear-injections, query-tgpu, and every bad argument.
 *
 * Copyright (c) 2026 The tgpu authors
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */

#include "qemu/osdep.h"
#include "tgpu-mmu.h"
#include "tgpu-qmp.h"
#include "tgpu/ecc.h"
#include "tgpu/therm.h"

#define SCRUB_NS            (64ull * TGPU_ECC_SCRUB_NS_PER_MIB)
#define GPU_PATH            "/machine/peripheral/gpu0"
#define ONE_SECOND_NS       1000000000ll

/* The device as gpu0, ECC enabled or not, bypass channel 0 up. */
static void qmp_start(T *t, bool ecc)
{
    mmu_start(t, "id=gpu0");
    if (ecc) {
        wr(t, TGPU_ECC_CTRL, TGPU_ECC_CTRL_ENABLE);
        step(t, SCRUB_NS);
        g_assert_cmphex(rd(t, TGPU_ECC_STATUS), ==, TGPU_ECC_STATE_ENABLED);
    }
    chan_up_cfg(t, chan_cfg(t, 0));
}

/* tgpu-inject-ecc with ARGS; its number. */
static uint64_t inject_ok(T *t, const char *args)
{
    return cmd_ok(t, "tgpu-inject-ecc", args);
}

static void expect_event(QDict *ev, const char *type, uint64_t addr,
                         const char *reader, int64_t chan)
{
    QDict *data = qdict_get_qdict(ev, "data");

    g_assert_cmpstr(qdict_get_str(data, "qom-path"), ==, GPU_PATH);
    g_assert_cmpstr(qdict_get_str(data, "type"), ==, type);
    g_assert_cmpuint(qdict_get_int(data, "address"), ==, addr);
    g_assert_cmpstr(qdict_get_str(data, "engine"), ==, reader);
    if (chan < 0) {
        g_assert_false(qdict_haskey(data, "channel"));
    } else {
        g_assert_cmpint(qdict_get_int(data, "channel"), ==, chan);
    }
}

/*
 * An injection through QMP is the registers' injection: readback shows
 * it, a CPU read hits it, the event names it.
 */
static void test_inject_ecc(void)
{
    QDict *ev, *d, *ecc;
    QList *pend;
    T t;

    qmp_start(&t, true);
    g_assert_cmpuint(inject_ok(&t, "'id': 'gpu0', 'address': 4096, "
                               "'type': 'double', 'mode': 'sticky'"), ==, 1);
    /* by QOM path, explicit bits, an unaligned address: its word */
    g_assert_cmpuint(inject_ok(&t, "'id': '" GPU_PATH "', 'address': 8195, "
                               "'bits': 256"), ==, 2);
    g_assert_cmpuint(rd(&t, TGPU_ECC_INJ_STATUS), ==, 2);
    wr(&t, TGPU_ECC_INJ_SELECT, 0);
    g_assert_cmphex(rd(&t, TGPU_ECC_INJ_PEND_ADDR_LO), ==, 4096);
    g_assert_cmphex(rd(&t, TGPU_ECC_INJ_PEND_MASK_LO), ==, 3);
    g_assert_cmpuint(rd(&t, TGPU_ECC_INJ_PEND_MODE), ==, TGPU_ECC_INJ_STICKY);
    wr(&t, TGPU_ECC_INJ_SELECT, 1);
    g_assert_cmphex(rd(&t, TGPU_ECC_INJ_PEND_ADDR_LO), ==, 8192);
    g_assert_cmphex(rd(&t, TGPU_ECC_INJ_PEND_MASK_LO), ==, 256);

    d = query(&t);
    ecc = qdict_get_qdict(d, "ecc");
    pend = qdict_get_qlist(ecc, "pending");
    g_assert_cmpuint(qlist_size(pend), ==, 2);
    {
        QDict *p = qobject_to(QDict, qlist_peek(pend));

        g_assert_cmpuint(qdict_get_int(p, "number"), ==, 1);
        g_assert_cmpuint(qdict_get_int(p, "address"), ==, 4096);
        g_assert_cmpstr(qdict_get_str(p, "type"), ==, "double");
        g_assert_cmpstr(qdict_get_str(p, "mode"), ==, "sticky");
    }
    g_assert_true(qdict_get_bool(ecc, "enabled"));
    qobject_unref(d);

    /* the CPU reads the poisoned word */
    g_assert_cmphex(pa_rd32(&t, 4096), ==, 0xffffffff);
    ev = qtest_qmp_eventwait_ref(t.qts, "TGPU_ECC_ERROR");
    expect_event(ev, "double", 4096, "bar1", -1);
    qobject_unref(ev);
    /* a channel reads the single-bit one: the event names it */
    {
        g_autofree PB *pb = pb_new();

        pb_acq_geq(pb, 8192, 0);
        step(&t, ONE_SECOND_NS);   /* past the rate limit */
        run(&t, &t.ch[0], pb);
    }
    ev = qtest_qmp_eventwait_ref(t.qts, "TGPU_ECC_ERROR");
    expect_event(ev, "single", 8192, "host", 0);
    qobject_unref(ev);

    d = query(&t);
    ecc = qdict_get_qdict(d, "ecc");
    g_assert_cmpuint(qdict_get_int(ecc, "dbe-volatile"), ==, 1);
    g_assert_cmpuint(qdict_get_int(ecc, "sbe-volatile"), ==, 1);
    g_assert_cmpuint(qlist_size(qdict_get_qlist(ecc, "pending")), ==, 1);
    /* the address log, as its registers have it: the DBE, then the SBE */
    {
        QList *log = qdict_get_qlist(ecc, "log");
        QDict *dbe = qobject_to(QDict, qlist_peek(log));
        QDict *sbe = qobject_to(QDict, qlist_entry_obj(
                                    qlist_next(qlist_first(log))));

        g_assert_cmpuint(qlist_size(log), ==, rd(&t, TGPU_ECC_LOG_COUNT));
        g_assert_cmpuint(qlist_size(log), ==, 2);
        g_assert_cmpuint(qdict_get_int(dbe, "address"), ==, 4096);
        g_assert_cmpstr(qdict_get_str(dbe, "type"), ==, "double");
        g_assert_cmpstr(qdict_get_str(dbe, "engine"), ==, "bar1");
        g_assert_false(qdict_haskey(dbe, "channel"));
        g_assert_cmpuint(qdict_get_int(sbe, "address"), ==, 8192);
        g_assert_cmpstr(qdict_get_str(sbe, "engine"), ==, "host");
        g_assert_cmpuint(qdict_get_int(sbe, "channel"), ==, 0);
        g_assert_cmpuint(qdict_get_int(sbe, "time-ns"), >=,
                         qdict_get_int(dbe, "time-ns"));
        g_assert_false(qdict_get_bool(ecc, "log-overflow"));
        g_assert_cmpuint(qlist_size(qdict_get_qlist(ecc, "retired")), ==,
                         qdict_get_int(ecc, "retired-pages"));
    }
    qobject_unref(d);
    tgpu_stop(&t);
}

/* One TGPU_ECC_ERROR a second per device; the counters have them all. */
static void test_event_rate_limit(void)
{
    QDict *ev, *d;
    T t;

    qmp_start(&t, true);
    inject_ok(&t, "'id': 'gpu0', 'address': 4096, 'type': 'double', "
              "'mode': 'sticky'");
    g_assert_cmphex(pa_rd32(&t, 4096), ==, 0xffffffff);
    ev = qtest_qmp_eventwait_ref(t.qts, "TGPU_ECC_ERROR");
    qobject_unref(ev);
    g_assert_cmphex(pa_rd32(&t, 4096), ==, 0xffffffff);
    g_assert_cmphex(pa_rd32(&t, 4096), ==, 0xffffffff);
    d = query(&t);      /* takes in whatever events are queued */
    g_assert_cmpuint(qdict_get_int(qdict_get_qdict(d, "ecc"),
                                   "dbe-volatile"), ==, 3);
    qobject_unref(d);
    g_assert_null(qtest_qmp_event_ref(t.qts, "TGPU_ECC_ERROR"));
    /* a second later the last one held back comes */
    step(&t, ONE_SECOND_NS);
    d = query(&t);
    qobject_unref(d);
    ev = qtest_qmp_eventwait_ref(t.qts, "TGPU_ECC_ERROR");
    expect_event(ev, "double", 4096, "bar1", -1);
    qobject_unref(ev);
    tgpu_stop(&t);
}

static void test_clear_and_query(void)
{
    QDict *r, *d, *th;
    QList *engines;
    T t;

    qmp_start(&t, false);
    inject_ok(&t, "'id': 'gpu0', 'address': 4096, 'type': 'single'");
    inject_ok(&t, "'id': 'gpu0', 'address': 65536, 'type': 'single'");
    r = cmd(&t, "tgpu-clear-injections", "'id': 'gpu0'");
    g_assert_true(qdict_haskey(r, "return"));
    qobject_unref(r);
    g_assert_cmpuint(rd(&t, TGPU_ECC_INJ_STATUS), ==, 0);
    /* the words were not touched */
    g_assert_cmphex(pa_rd32(&t, 4096), ==, 0);
    g_assert_cmpuint(rd(&t, TGPU_ECC_SBE_VOLATILE), ==, 0);

    d = query(&t);
    g_assert_cmpstr(qdict_get_str(d, "qom-path"), ==, GPU_PATH);
    g_assert_cmpstr(qdict_get_str(d, "id"), ==, "gpu0");
    g_assert_cmpstr(qdict_get_str(d, "model"), ==, "p100");
    engines = qdict_get_qlist(d, "engines");
    /* the host unit, then the engines by runlist */
    g_assert_cmpuint(qlist_size(engines), ==, 4);
    g_assert_cmpstr(qdict_get_str(qobject_to(QDict, qlist_peek(engines)),
                                  "name"), ==, "host");
    g_assert_false(qdict_get_bool(d, "bus-lost"));
    g_assert_cmpuint(qlist_size(qdict_get_qlist(d, "injections")), ==, 0);
    th = qdict_get_qdict(d, "thermal");
    g_assert_cmpint(qdict_get_int(th, "temperature"), ==,
                    (int32_t)rd(&t, TGPU_THERM_TEMP));
    g_assert_cmpuint(qdict_get_int(th, "clock-mhz"), ==,
                     rd(&t, TGPU_THERM_CLK_EFFECTIVE));
    g_assert_cmpuint(qdict_get_int(th, "power-mw"), ==,
                     rd(&t, TGPU_THERM_POWER_MW));
    g_assert_false(qdict_get_bool(th, "shutdown"));
    qobject_unref(d);
    tgpu_stop(&t);
}

/* query-tgpu's retired pages are the InfoROM's, within VRAM. */
static void test_query_retired(void)
{
    struct tgpu_inforom rom = {
        .count = 3,
        .ent = {
            { 0x3000, TGPU_RETIRED_CAUSE_DBE, 1700000000 },
            { 0x100000000ull, TGPU_RETIRED_CAUSE_SBE, 1700000001 },
            { 0x7000, TGPU_RETIRED_CAUSE_SBE, 1700000002 },
        },
    };
    g_autofree char *dir = g_dir_make_tmp("tgpu-qmp-XXXXXX", NULL);
    g_autofree char *path = g_build_filename(dir, "inforom.bin", NULL);
    g_autofree char *opts = g_strdup_printf("id=gpu0,inforom=%s", path);
    uint8_t buf[TGPU_INFOROM_MAX_SIZE];
    unsigned long len = tgpu_inforom_encode(&rom, buf);
    QDict *d, *ecc, *p;
    QList *l;
    T t;

    g_assert_true(g_file_set_contents(path, (char *)buf, len, NULL));
    mmu_start(&t, opts);
    d = query(&t);
    ecc = qdict_get_qdict(d, "ecc");
    l = qdict_get_qlist(ecc, "retired");
    /* the page past this 64 MiB board's VRAM is kept, not shown */
    g_assert_cmpuint(qdict_get_int(ecc, "retired-pages"), ==, 2);
    g_assert_cmpuint(qlist_size(l), ==, 2);
    p = qobject_to(QDict, qlist_peek(l));
    g_assert_cmphex(qdict_get_int(p, "address"), ==, 0x3000);
    g_assert_cmpstr(qdict_get_str(p, "cause"), ==, "dbe");
    g_assert_cmpuint(qdict_get_int(p, "time"), ==, 1700000000);
    p = qobject_to(QDict, qlist_entry_obj(qlist_next(qlist_first(l))));
    g_assert_cmphex(qdict_get_int(p, "address"), ==, 0x7000);
    g_assert_cmpstr(qdict_get_str(p, "cause"), ==, "sbe");
    qobject_unref(d);
    tgpu_stop(&t);
    unlink(path);
    rmdir(dir);
}

/* Each bad argument: an error that names it, and nothing changes. */
static void test_bad_arguments(void)
{
    T t;

    qmp_start(&t, false);
    expect_qmp_error(&t, "tgpu-inject-ecc", "'id': 'nope', 'address': 0, "
                     "'type': 'single'", "no tgpu device");
    expect_qmp_error(&t, "tgpu-inject-ecc", "'id': '/machine', "
                     "'address': 0, 'type': 'single'",
                     "is not a tgpu device");
    expect_qmp_error(&t, "tgpu-inject-ecc", "'id': 'gpu0', "
                     "'address': 67108864, 'type': 'single'",
                     "'address' 0x4000000 is beyond VRAM");
    expect_qmp_error(&t, "tgpu-inject-ecc", "'id': 'gpu0', 'address': 0",
                     "either 'type' or 'bits'");
    expect_qmp_error(&t, "tgpu-inject-ecc", "'id': 'gpu0', 'address': 0, "
                     "'type': 'single', 'bits': 1",
                     "either 'type' or 'bits'");
    expect_qmp_error(&t, "tgpu-inject-ecc", "'id': 'gpu0', 'address': 0, "
                     "'bits': 7", "'bits' 0x7 must have one bit");
    expect_qmp_error(&t, "tgpu-inject-ecc", "'id': 'gpu0', 'address': 0, "
                     "'bits': 0", "'bits' 0x0 must have one bit");
    expect_qmp_error(&t, "tgpu-clear-injections", "'id': 'nope'",
                     "no tgpu device");
    g_assert_cmphex(rd(&t, TGPU_ECC_INJ_STATUS), ==, 0);

    /* the 65th is refused, saying how to go on */
    for (int i = 0; i < TGPU_ECC_INJ_MAX; i++) {
        g_autofree char *a = g_strdup_printf("'id': 'gpu0', 'address': %d, "
                                             "'type': 'single'", 8 * i);

        inject_ok(&t, a);
    }
    expect_qmp_error(&t, "tgpu-inject-ecc", "'id': 'gpu0', "
                     "'address': 4096, 'type': 'single'",
                     "64 ECC errors are armed already");
    g_assert_cmpuint(rd(&t, TGPU_ECC_INJ_STATUS), ==, TGPU_ECC_INJ_MAX);
    tgpu_stop(&t);
}

static void expect_thermal(T *t, const char *kind, int32_t temp_mc)
{
    QDict *ev = qtest_qmp_eventwait_ref(t->qts, "TGPU_THERMAL");
    QDict *data = qdict_get_qdict(ev, "data");

    g_assert_cmpstr(qdict_get_str(data, "qom-path"), ==, GPU_PATH);
    g_assert_cmpstr(qdict_get_str(data, "kind"), ==, kind);
    if (temp_mc != INT32_MIN) {
        g_assert_cmpint(qdict_get_int(data, "temperature"), ==, temp_mc);
    }
    qobject_unref(ev);
}

static void set_thermal_ok(T *t, const char *args)
{
    cmd_ok(t, "tgpu-set-thermal", args);
}

/* Pending TGPU_THERMAL events of KIND, the others dropped. */
static int thermal_pending(T *t, const char *kind)
{
    QDict *ev;
    int n = 0;

    qobject_unref(query(t));    /* takes in whatever events are queued */
    while ((ev = qtest_qmp_event_ref(t->qts, "TGPU_THERMAL"))) {
        n += !strcmp(qdict_get_str(qdict_get_qdict(ev, "data"), "kind"),
                     kind);
        qobject_unref(ev);
    }
    return n;
}

/*
 * A guest can move the temperature across a threshold and back: each
 * kind of TGPU_THERMAL comes once a second at most, per device, and one
 * kind does not hold back another.
 */
static void test_thermal_rate_limit(void)
{
    T t;

    qmp_start(&t, false);
    set_thermal_ok(&t, "'id': 'gpu0', 'sensor': 86");
    g_assert_cmpint(thermal_pending(&t, "alert-high"), ==, 1);
    set_thermal_ok(&t, "'id': 'gpu0', 'sensor': 40");
    g_assert_cmpint(thermal_pending(&t, "slowdown-off"), ==, 1);
    set_thermal_ok(&t, "'id': 'gpu0', 'sensor': 86");
    set_thermal_ok(&t, "'id': 'gpu0', 'sensor': 40");
    set_thermal_ok(&t, "'id': 'gpu0', 'sensor': 86");
    /* within the second: held back, the last of each kind kept */
    g_assert_cmpint(thermal_pending(&t, "alert-high"), ==, 0);
    set_thermal_ok(&t, "'id': 'gpu0', 'sensor': 95");
    g_assert_cmpint(thermal_pending(&t, "shutdown"), ==, 1);
    step(&t, ONE_SECOND_NS);
    g_assert_cmpint(thermal_pending(&t, "alert-high"), ==, 1);
    tgpu_stop(&t);
}

/*
 * tgpu-set-thermal: a forced sensor reading and its release, a ramp
 * (heat gun) through slowdown into shutdown, the ambient; the device
 * reacts as to its own model, with TGPU_THERMAL events.
 */
static void test_set_thermal(void)
{
    T t;

    qmp_start(&t, false);
    set_thermal_ok(&t, "'id': 'gpu0', 'sensor': 86");
    g_assert_cmpint((int32_t)rd(&t, TGPU_THERM_TEMP), ==, 86000);
    expect_thermal(&t, "alert-high", 86000);
    expect_thermal(&t, "slowdown-on", 86000);
    step(&t, TGPU_THERM_TICK_NS);
    g_assert_cmpuint(rd(&t, TGPU_THERM_CLK_EFFECTIVE), ==, 810);
    /* held: the model does not move it */
    step(&t, 100 * TGPU_THERM_TICK_NS);
    g_assert_cmpint((int32_t)rd(&t, TGPU_THERM_TEMP), ==, 86000);

    /* released, idle at 35 C air it cools towards 63.8 C */
    set_thermal_ok(&t, "'id': 'gpu0', 'release': true");
    while ((int32_t)rd(&t, TGPU_THERM_TEMP) >= 82000) {
        step(&t, 10 * TGPU_THERM_TICK_NS);
    }
    step(&t, TGPU_THERM_TICK_NS);
    expect_thermal(&t, "slowdown-off", INT32_MIN);
    g_assert_cmpuint(rd(&t, TGPU_THERM_CLK_EFFECTIVE), ==, 1328);

    /* a heat gun: 40 to 95 C over 10 s, linear in virtual time */
    set_thermal_ok(&t, "'id': 'gpu0', 'ramp': "
                   "{'from': 40, 'to': 95, 'seconds': 10}");
    g_assert_cmpint((int32_t)rd(&t, TGPU_THERM_TEMP), ==, 40000);
    step(&t, 5 * ONE_SECOND_NS);
    /* the reading is the last tick's: at most 10 ms (55 mC) behind */
    g_assert_cmpint((int32_t)rd(&t, TGPU_THERM_TEMP), <=, 67500);
    g_assert_cmpint((int32_t)rd(&t, TGPU_THERM_TEMP), >, 67500 - 100);
    step(&t, 4 * ONE_SECOND_NS);
    expect_thermal(&t, "alert-high", INT32_MIN);
    expect_thermal(&t, "slowdown-on", INT32_MIN);
    g_assert_cmpuint(chan_state(&t, 0), !=, TGPU_CHAN_STATE_ERROR);
    step(&t, ONE_SECOND_NS);
    expect_thermal(&t, "shutdown", INT32_MIN);
    g_assert_cmpint((int32_t)rd(&t, TGPU_THERM_TEMP), ==, 95000);
    wait_state(&t, 0, TGPU_CHAN_STATE_ERROR);
    g_assert_cmpuint(crd(&t, 0, TGPU_CHAN_ERROR), ==,
                     TGPU_ERR_THERMAL_SHUTDOWN);
    tgpu_stop(&t);

    /* the air: 0 C, and the idle board cools instead of warming */
    {
        int32_t before;

        qmp_start(&t, false);
        before = rd(&t, TGPU_THERM_TEMP);
        set_thermal_ok(&t, "'id': 'gpu0', 'ambient': 0");
        step(&t, ONE_SECOND_NS);
        g_assert_cmpint((int32_t)rd(&t, TGPU_THERM_TEMP), <, before);
        tgpu_stop(&t);
    }
}

static void test_set_thermal_bad(void)
{
    uint32_t before;
    T t;

    qmp_start(&t, false);
    before = rd(&t, TGPU_THERM_TEMP);
    expect_qmp_error(&t, "tgpu-set-thermal", "'id': 'nope', 'sensor': 50",
                     "no tgpu device");
    expect_qmp_error(&t, "tgpu-set-thermal", "'id': 'gpu0'",
                     "give one of 'sensor', 'ramp' and 'release'");
    expect_qmp_error(&t, "tgpu-set-thermal", "'id': 'gpu0', 'sensor': 50, "
                     "'release': true", "give one of");
    expect_qmp_error(&t, "tgpu-set-thermal", "'id': 'gpu0', 'sensor': 151",
                     "'sensor' 151 is out of range");
    expect_qmp_error(&t, "tgpu-set-thermal", "'id': 'gpu0', 'ambient': 101",
                     "'ambient' 101 is out of range");
    expect_qmp_error(&t, "tgpu-set-thermal", "'id': 'gpu0', 'ramp': "
                     "{'from': 40, 'to': 95, 'seconds': 0}",
                     "'seconds' 0 is out of range");
    expect_qmp_error(&t, "tgpu-set-thermal", "'id': 'gpu0', 'ramp': "
                     "{'from': 40, 'to': 200, 'seconds': 1}",
                     "'ramp' goes outside");
    /* nothing changed: no time passed, the model's reading */
    g_assert_cmpuint(rd(&t, TGPU_THERM_TEMP), ==, before);
    g_assert_cmphex(rd(&t, TGPU_THERM_STATUS), ==, 0);
    tgpu_stop(&t);
}

int main(int argc, char **argv)
{
    g_test_init(&argc, &argv, NULL);
    qtest_add_func("/tgpu/qmp/inject-ecc", test_inject_ecc);
    qtest_add_func("/tgpu/qmp/event-rate-limit", test_event_rate_limit);
    qtest_add_func("/tgpu/qmp/clear-and-query", test_clear_and_query);
    qtest_add_func("/tgpu/qmp/query-retired", test_query_retired);
    qtest_add_func("/tgpu/qmp/bad-arguments", test_bad_arguments);
    qtest_add_func("/tgpu/qmp/set-thermal", test_set_thermal);
    qtest_add_func("/tgpu/qmp/set-thermal-bad", test_set_thermal_bad);
    qtest_add_func("/tgpu/qmp/thermal-rate-limit", test_thermal_rate_limit);
    return g_test_run();
}
