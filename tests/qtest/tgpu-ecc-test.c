/*
 * QTest testcase for the tgpu ECC unit: ECC control and the VRAM scrub,
 * refusals, reset, the ecc=off board, and the InfoROM retired-page store
 * (prepared, missing and corrupt files, and the driver's retirement), as
 * docs/hw/ecc.md specifies.
 *
 * Copyright (c) 2026 The tgpu authors
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */

#include "qemu/osdep.h"
#include "tgpu-qtest.h"
#include "tgpu/ecc.h"

/* VRAM_SIZE (64 MiB) at TGPU_ECC_SCRUB_NS_PER_MIB */
#define SCRUB_NS    (64ull * TGPU_ECC_SCRUB_NS_PER_MIB)

static uint32_t ecc_state(T *t)
{
    return rd(t, TGPU_ECC_STATUS) & TGPU_ECC_STATE_MASK;
}

/* Enable ECC and check every step of the scrub on the virtual clock. */
static void ecc_enable(T *t)
{
    wr(t, TGPU_ECC_CTRL, TGPU_ECC_CTRL_ENABLE);
    g_assert_cmphex(rd(t, TGPU_ECC_CTRL), ==, TGPU_ECC_CTRL_ENABLE);
    g_assert_cmpuint(ecc_state(t), ==, TGPU_ECC_STATE_SCRUBBING);
    g_assert_cmpuint((uint64_t)rd(t, TGPU_ECC_SCRUB_NS_HI) << 32 |
                     rd(t, TGPU_ECC_SCRUB_NS_LO), ==, SCRUB_NS);
    step(t, SCRUB_NS - 1);
    g_assert_cmpuint(ecc_state(t), ==, TGPU_ECC_STATE_SCRUBBING);
    step(t, 1);
    g_assert_cmpuint(ecc_state(t), ==, TGPU_ECC_STATE_ENABLED);
}

static void test_enable(void)
{
    T t;

    tgpu_start(&t, NULL);
    g_assert_cmphex(rd(&t, TGPU_ECC_CAPS), ==, TGPU_ECC_CAPS_ECC);
    g_assert_cmphex(rd(&t, TGPU_ECC_CTRL), ==, 0);
    g_assert_cmphex(rd(&t, TGPU_ECC_STATUS), ==, TGPU_ECC_STATE_DISABLED);

    /* the scrub-done interrupt reaches PMC_INTR bit 3 when enabled */
    wr(&t, TGPU_ECC_INTR_EN, 0xffffffff);
    g_assert_cmphex(rd(&t, TGPU_ECC_INTR_EN), ==, TGPU_ECC_INTR_MASK);
    ecc_enable(&t);
    g_assert_cmphex(rd(&t, TGPU_ECC_INTR), ==, TGPU_ECC_INTR_SCRUB_DONE);
    g_assert_cmphex(rd(&t, TGPU_PMC_INTR) & TGPU_INTR_ECC, ==, TGPU_INTR_ECC);
    wr(&t, TGPU_ECC_INTR, TGPU_ECC_INTR_SCRUB_DONE);
    g_assert_cmphex(rd(&t, TGPU_ECC_INTR), ==, 0);
    g_assert_cmphex(rd(&t, TGPU_PMC_INTR) & TGPU_INTR_ECC, ==, 0);

    /* enabling again is no change: no new scrub */
    wr(&t, TGPU_ECC_CTRL, TGPU_ECC_CTRL_ENABLE);
    g_assert_cmpuint(ecc_state(&t), ==, TGPU_ECC_STATE_ENABLED);

    /* disabling is immediate */
    wr(&t, TGPU_ECC_CTRL, 0);
    g_assert_cmphex(rd(&t, TGPU_ECC_STATUS), ==, TGPU_ECC_STATE_DISABLED);

    /* disabled while scrubbing: the scrub is dropped, no interrupt */
    wr(&t, TGPU_ECC_CTRL, TGPU_ECC_CTRL_ENABLE);
    step(&t, SCRUB_NS / 2);
    wr(&t, TGPU_ECC_CTRL, 0);
    step(&t, SCRUB_NS);
    g_assert_cmpuint(ecc_state(&t), ==, TGPU_ECC_STATE_DISABLED);
    g_assert_cmphex(rd(&t, TGPU_ECC_INTR), ==, 0);

    /* with INTR_EN clear the status bit is set, PMC_INTR stays quiet */
    wr(&t, TGPU_ECC_INTR_EN, 0);
    ecc_enable(&t);
    g_assert_cmphex(rd(&t, TGPU_ECC_INTR), ==, TGPU_ECC_INTR_SCRUB_DONE);
    g_assert_cmphex(rd(&t, TGPU_PMC_INTR) & TGPU_INTR_ECC, ==, 0);

    /* unassigned offsets between the blocks read BADF */
    g_assert_cmphex(rd(&t, TGPU_ECC_COUNTERS_CLEAR + 4), ==, TGPU_REG_BADF);
    g_assert_cmphex(rd(&t, TGPU_ECC_LOG_CLEAR + 4), ==, TGPU_REG_BADF);
    g_assert_cmphex(rd(&t, TGPU_ECC_INJ_PEND_MODE + 4), ==, TGPU_REG_BADF);
    g_assert_cmphex(rd(&t, TGPU_ECC_BASE + TGPU_ECC_SIZE - 4), ==,
                    TGPU_REG_BADF);
    tgpu_stop(&t);
}

static void test_refused_channel_on(void)
{
    T t;
    Chan *c;

    tgpu_start(&t, NULL);
    c = chan_init(&t, 0, 0x100000, 0x60000, 0x200000, 0x10000);
    chan_up_cfg(&t, c);

    wr(&t, TGPU_ECC_CTRL, TGPU_ECC_CTRL_ENABLE);
    g_assert_cmphex(rd(&t, TGPU_ECC_CTRL), ==, 0);
    g_assert_cmphex(rd(&t, TGPU_ECC_STATUS), ==,
                    TGPU_ECC_STATE_DISABLED | TGPU_ECC_STATUS_ERR_BUSY);
    step(&t, SCRUB_NS * 2);
    g_assert_cmpuint(ecc_state(&t), ==, TGPU_ECC_STATE_DISABLED);
    /* the error bit is W1C */
    wr(&t, TGPU_ECC_STATUS, TGPU_ECC_STATUS_ERR_BUSY);
    g_assert_cmphex(rd(&t, TGPU_ECC_STATUS), ==, TGPU_ECC_STATE_DISABLED);

    /* with the channel disabled again it is accepted ... */
    cwr(&t, 0, TGPU_CHAN_CTRL, 0);
    ecc_enable(&t);

    /* ... and disabling ECC under a live channel is refused too */
    chan_enable(&t, c);
    wait_state(&t, 0, TGPU_CHAN_STATE_IDLE);
    wr(&t, TGPU_ECC_CTRL, 0);
    g_assert_cmphex(rd(&t, TGPU_ECC_CTRL), ==, TGPU_ECC_CTRL_ENABLE);
    g_assert_cmphex(rd(&t, TGPU_ECC_STATUS), ==,
                    TGPU_ECC_STATE_ENABLED | TGPU_ECC_STATUS_ERR_BUSY);
    tgpu_stop(&t);
}

static void test_reset(void)
{
    T t;

    tgpu_start(&t, NULL);
    wr(&t, TGPU_ECC_INTR_EN, TGPU_ECC_INTR_SCRUB_DONE);
    ecc_enable(&t);
    wr(&t, TGPU_ECC_RETIRED_SELECT, 7);
    tgpu_system_reset(&t);
    g_assert_cmphex(rd(&t, TGPU_ECC_CTRL), ==, 0);
    g_assert_cmphex(rd(&t, TGPU_ECC_STATUS), ==, TGPU_ECC_STATE_DISABLED);
    g_assert_cmphex(rd(&t, TGPU_ECC_INTR), ==, 0);
    g_assert_cmphex(rd(&t, TGPU_ECC_INTR_EN), ==, 0);
    g_assert_cmphex(rd(&t, TGPU_ECC_RETIRED_SELECT), ==, 0);

    /* a reset in the middle of a scrub cancels it */
    wr(&t, TGPU_ECC_INTR_EN, TGPU_ECC_INTR_SCRUB_DONE);
    wr(&t, TGPU_ECC_CTRL, TGPU_ECC_CTRL_ENABLE);
    tgpu_system_reset(&t);
    step(&t, SCRUB_NS * 2);
    g_assert_cmphex(rd(&t, TGPU_ECC_STATUS), ==, TGPU_ECC_STATE_DISABLED);
    g_assert_cmphex(rd(&t, TGPU_ECC_INTR), ==, 0);
    tgpu_stop(&t);
}

static void test_ecc_off(void)
{
    T t;

    tgpu_start(&t, "ecc=off");
    g_assert_cmphex(rd(&t, TGPU_ECC_CAPS), ==, 0);
    wr(&t, TGPU_ECC_CTRL, TGPU_ECC_CTRL_ENABLE);
    g_assert_cmphex(rd(&t, TGPU_ECC_CTRL), ==, 0);
    g_assert_cmphex(rd(&t, TGPU_ECC_STATUS), ==,
                    TGPU_ECC_STATE_DISABLED | TGPU_ECC_STATUS_ERR_NOCAP);
    step(&t, SCRUB_NS * 2);
    g_assert_cmpuint(ecc_state(&t), ==, TGPU_ECC_STATE_DISABLED);
    tgpu_stop(&t);
}

/* ---- InfoROM ------------------------------------------------------------ */

static char *tmp_dir(void)
{
    g_autoptr(GError) err = NULL;
    char *dir = g_dir_make_tmp("tgpu-ecc-test-XXXXXX", &err);

    g_assert_no_error(err);
    return dir;
}

static void rm_tmp(char *dir, char *path)
{
    unlink(path);
    rmdir(dir);
    g_free(path);
    g_free(dir);
}

static void write_rom(const char *path, const struct tgpu_inforom *rom)
{
    uint8_t buf[TGPU_INFOROM_MAX_SIZE];
    unsigned long len = tgpu_inforom_encode(rom, buf);

    g_assert_true(g_file_set_contents(path, (char *)buf, len, NULL));
}

static void expect_entry(T *t, uint32_t i, uint64_t addr, uint32_t cause,
                         uint64_t time)
{
    wr(t, TGPU_ECC_RETIRED_SELECT, i);
    g_assert_cmphex(rd(t, TGPU_ECC_RETIRED_SELECT), ==, i);
    g_assert_cmphex(rd(t, TGPU_ECC_RETIRED_ADDR_LO), ==, (uint32_t)addr);
    g_assert_cmphex(rd(t, TGPU_ECC_RETIRED_ADDR_HI), ==, addr >> 32);
    g_assert_cmpuint(rd(t, TGPU_ECC_RETIRED_CAUSE), ==, cause);
    g_assert_cmpuint(rd(t, TGPU_ECC_RETIRED_TIME_LO), ==, (uint32_t)time);
    g_assert_cmpuint(rd(t, TGPU_ECC_RETIRED_TIME_HI), ==, time >> 32);
}

static void test_inforom_readback(void)
{
    struct tgpu_inforom rom = {
        .count = 5,
        .ent = {
            { 0x0000000ull, TGPU_RETIRED_CAUSE_DBE, 1700000000 },
            { 0x3fff000ull, TGPU_RETIRED_CAUSE_SBE, 1700000001 },
            { 0x4000000ull, TGPU_RETIRED_CAUSE_DBE, 5 },    /* past VRAM */
            { 0x0123000ull, TGPU_RETIRED_CAUSE_SBE, 0x123456789ull },
            { 0x3fff000ull, TGPU_RETIRED_CAUSE_DBE, 9 },    /* again */
        },
    };
    char *dir = tmp_dir();
    char *path = g_build_filename(dir, "inforom.bin", NULL);
    g_autofree char *opts = g_strdup_printf("inforom=%s", path);
    g_autofree char *before = NULL, *after = NULL;
    gsize blen, alen;
    T t;

    write_rom(path, &rom);
    g_assert_true(g_file_get_contents(path, &before, &blen, NULL));
    tgpu_start(&t, opts);
    g_assert_cmpuint(rd(&t, TGPU_ECC_RETIRED_MAX), ==,
                     TGPU_INFOROM_MAX_RETIRED);
    /* in VRAM, each page once, in file order */
    g_assert_cmpuint(rd(&t, TGPU_ECC_RETIRED_COUNT), ==, 3);
    expect_entry(&t, 0, 0x0000000, TGPU_RETIRED_CAUSE_DBE, 1700000000);
    expect_entry(&t, 1, 0x3fff000, TGPU_RETIRED_CAUSE_SBE, 1700000001);
    expect_entry(&t, 2, 0x0123000, TGPU_RETIRED_CAUSE_SBE, 0x123456789ull);

    /* past the end: the documented "none" entry, for any index */
    expect_entry(&t, 3, 0xffffffffffffffffull, TGPU_RETIRED_CAUSE_NONE, 0);
    expect_entry(&t, TGPU_INFOROM_MAX_RETIRED, 0xffffffffffffffffull,
                 TGPU_RETIRED_CAUSE_NONE, 0);
    expect_entry(&t, 0xffffffff, 0xffffffffffffffffull,
                 TGPU_RETIRED_CAUSE_NONE, 0);

    /* the store survives a reset; reading it does not rewrite the file */
    tgpu_system_reset(&t);
    g_assert_cmpuint(rd(&t, TGPU_ECC_RETIRED_COUNT), ==, 3);
    tgpu_stop(&t);
    g_assert_true(g_file_get_contents(path, &after, &alen, NULL));
    g_assert_cmpmem(before, blen, after, alen);
    rm_tmp(dir, path);
}

static void test_inforom_created(void)
{
    char *dir = tmp_dir();
    char *path = g_build_filename(dir, "new.bin", NULL);
    g_autofree char *opts = g_strdup_printf("inforom=%s", path);
    g_autofree char *buf = NULL;
    struct tgpu_inforom rom = { 0 };
    gsize len;
    T t;

    tgpu_start(&t, opts);
    g_assert_cmpuint(rd(&t, TGPU_ECC_RETIRED_COUNT), ==, 0);
    expect_entry(&t, 0, 0xffffffffffffffffull, TGPU_RETIRED_CAUSE_NONE, 0);
    tgpu_stop(&t);

    g_assert_true(g_file_get_contents(path, &buf, &len, NULL));
    g_assert_cmpuint(len, ==, TGPU_INFOROM_ENTRIES);
    g_assert_null(tgpu_inforom_decode((uint8_t *)buf, len, &rom));
    g_assert_cmpuint(rom.count, ==, 0);
    rm_tmp(dir, path);

    /* without the property: an empty store, nothing written anywhere */
    tgpu_start(&t, NULL);
    g_assert_cmpuint(rd(&t, TGPU_ECC_RETIRED_COUNT), ==, 0);
    tgpu_stop(&t);
}

/* Ask the device to retire @page for @cause; RETIRE_STATUS after it. */
static uint32_t retire(T *t, uint64_t page, uint32_t cause)
{
    wr(t, TGPU_ECC_RETIRE_ADDR_LO, (uint32_t)page);
    wr(t, TGPU_ECC_RETIRE_ADDR_HI, page >> 32);
    wr(t, TGPU_ECC_RETIRE_CAUSE, cause);
    wr(t, TGPU_ECC_RETIRE, 1);
    return rd(t, TGPU_ECC_RETIRE_STATUS);
}

/*
 * The driver's page retirement: the page is in the list and in the file
 * at once; a page listed already is DONE without a second entry; bad
 * requests are refused with their error bit and change nothing; a full
 * store takes no more; a reset clears the registers, not the store.
 */
static void test_inforom_retire(void)
{
    char *dir = tmp_dir();
    char *path = g_build_filename(dir, "retire.bin", NULL);
    g_autofree char *opts = g_strdup_printf("inforom=%s", path);
    g_autofree char *buf = NULL;
    struct tgpu_inforom rom = { 0 };
    gsize len;
    uint32_t i;
    T t;

    tgpu_start(&t, opts);
    g_assert_cmphex(rd(&t, TGPU_ECC_RETIRE_STATUS), ==, 0);
    g_assert_cmphex(retire(&t, 0x5000, TGPU_RETIRED_CAUSE_DBE), ==,
                    TGPU_ECC_RETIRE_DONE);
    g_assert_cmpuint(rd(&t, TGPU_ECC_RETIRED_COUNT), ==, 1);
    wr(&t, TGPU_ECC_RETIRED_SELECT, 0);
    g_assert_cmphex(rd(&t, TGPU_ECC_RETIRED_ADDR_LO), ==, 0x5000);
    g_assert_cmpuint(rd(&t, TGPU_ECC_RETIRED_CAUSE), ==,
                     TGPU_RETIRED_CAUSE_DBE);
    g_assert_cmpuint(rd(&t, TGPU_ECC_RETIRED_TIME_LO), >, 0);
    /* in the file already, before QEMU exits */
    g_assert_true(g_file_get_contents(path, &buf, &len, NULL));
    g_assert_null(tgpu_inforom_decode((uint8_t *)buf, len, &rom));
    g_assert_cmpuint(rom.count, ==, 1);
    g_assert_cmphex(rom.ent[0].addr, ==, 0x5000);
    g_assert_cmpuint(rom.ent[0].cause, ==, TGPU_RETIRED_CAUSE_DBE);

    /* listed already: DONE, nothing added, the first cause kept */
    g_assert_cmphex(retire(&t, 0x5000, TGPU_RETIRED_CAUSE_SBE), ==,
                    TGPU_ECC_RETIRE_DONE);
    g_assert_cmpuint(rd(&t, TGPU_ECC_RETIRED_COUNT), ==, 1);
    g_assert_cmpuint(rd(&t, TGPU_ECC_RETIRED_CAUSE), ==,
                     TGPU_RETIRED_CAUSE_DBE);

    /* refused: not a page, past VRAM (64 MiB), a bad cause, a bad value */
    g_assert_cmphex(retire(&t, 0x5008, TGPU_RETIRED_CAUSE_SBE), ==,
                    TGPU_ECC_RETIRE_ERR_RANGE);
    g_assert_cmphex(retire(&t, 64ull << 20, TGPU_RETIRED_CAUSE_SBE), ==,
                    TGPU_ECC_RETIRE_ERR_RANGE);
    g_assert_cmphex(retire(&t, 1ull << 40, TGPU_RETIRED_CAUSE_SBE), ==,
                    TGPU_ECC_RETIRE_ERR_RANGE);
    g_assert_cmphex(retire(&t, 0x6000, 3), ==, TGPU_ECC_RETIRE_ERR_CAUSE);
    g_assert_cmphex(retire(&t, 0x6000, TGPU_RETIRED_CAUSE_NONE), ==,
                    TGPU_ECC_RETIRE_ERR_CAUSE);
    wr(&t, TGPU_ECC_RETIRE, 2);
    g_assert_cmphex(rd(&t, TGPU_ECC_RETIRE_STATUS), ==,
                    TGPU_ECC_RETIRE_ERR_VALUE);
    g_assert_cmpuint(rd(&t, TGPU_ECC_RETIRED_COUNT), ==, 1);
    /* the registers read back what was written */
    g_assert_cmphex(rd(&t, TGPU_ECC_RETIRE_ADDR_LO), ==, 0x6000);
    g_assert_cmpuint(rd(&t, TGPU_ECC_RETIRE_CAUSE), ==,
                     TGPU_RETIRED_CAUSE_NONE);

    /* fill the store: the 65th page is refused */
    for (i = 1; i < TGPU_INFOROM_MAX_RETIRED; i++) {
        g_assert_cmphex(retire(&t, 0x100000 + i * 0x1000ull,
                               TGPU_RETIRED_CAUSE_SBE), ==,
                        TGPU_ECC_RETIRE_DONE);
    }
    g_assert_cmpuint(rd(&t, TGPU_ECC_RETIRED_COUNT), ==,
                     TGPU_INFOROM_MAX_RETIRED);
    g_assert_cmphex(retire(&t, 0x7000, TGPU_RETIRED_CAUSE_DBE), ==,
                    TGPU_ECC_RETIRE_ERR_FULL);
    g_assert_cmpuint(rd(&t, TGPU_ECC_RETIRED_COUNT), ==,
                     TGPU_INFOROM_MAX_RETIRED);

    /* a reset clears the registers; the store stays */
    tgpu_system_reset(&t);
    g_assert_cmphex(rd(&t, TGPU_ECC_RETIRE_STATUS), ==, 0);
    g_assert_cmphex(rd(&t, TGPU_ECC_RETIRE_ADDR_LO), ==, 0);
    g_assert_cmpuint(rd(&t, TGPU_ECC_RETIRED_COUNT), ==,
                     TGPU_INFOROM_MAX_RETIRED);
    tgpu_stop(&t);

    /* and comes back from the file */
    tgpu_start(&t, opts);
    g_assert_cmpuint(rd(&t, TGPU_ECC_RETIRED_COUNT), ==,
                     TGPU_INFOROM_MAX_RETIRED);
    expect_entry(&t, 0, 0x5000, TGPU_RETIRED_CAUSE_DBE,
                 rom.ent[0].time);
    tgpu_stop(&t);
    rm_tmp(dir, path);
}

/*
 * QEMU must refuse to start with a corrupt InfoROM: run it and check its
 * exit status and message.
 */
static void expect_start_fails(const char *path, const char *why)
{
    const char *qemu = g_getenv("QTEST_QEMU_BINARY");
    g_autofree char *dev = g_strdup_printf("tgpu,addr=04.0,vram-size=64M,"
                                           "inforom=%s", path);
    const char *argv[] = {
        "timeout", "60", qemu, "-M", "q35", "-accel", "qtest",
        "-nodefaults", "-display", "none", "-device", dev, NULL,
    };
    g_autofree char *out = NULL, *err = NULL;
    g_autoptr(GError) gerr = NULL;
    int status;

    g_assert_nonnull(qemu);
    g_assert_true(g_spawn_sync(NULL, (char **)argv, NULL, G_SPAWN_SEARCH_PATH,
                               NULL, NULL, &out, &err, &status, &gerr));
    g_assert_no_error(gerr);
    g_test_message("qemu: %s", err);
    g_assert_true(WIFEXITED(status));
    g_assert_cmpint(WEXITSTATUS(status), ==, 1);
    g_assert_nonnull(strstr(err, path));
    g_assert_nonnull(strstr(err, why));
}

static void test_inforom_corrupt(void)
{
    struct tgpu_inforom rom = {
        .count = 1,
        .ent = { { 0x1000, TGPU_RETIRED_CAUSE_SBE, 1 } },
    };
    uint8_t buf[TGPU_INFOROM_MAX_SIZE + 16];
    char *dir = tmp_dir();
    char *path = g_build_filename(dir, "bad.bin", NULL);
    unsigned long len;

    len = tgpu_inforom_encode(&rom, buf);

    buf[0] ^= 1;
    g_assert_true(g_file_set_contents(path, (char *)buf, len, NULL));
    expect_start_fails(path, "bad magic");
    buf[0] ^= 1;

    buf[TGPU_INFOROM_HDR_VERSION] = TGPU_INFOROM_VERSION + 1;
    g_assert_true(g_file_set_contents(path, (char *)buf, len, NULL));
    expect_start_fails(path, "unsupported InfoROM version");
    buf[TGPU_INFOROM_HDR_VERSION] = TGPU_INFOROM_VERSION;

    buf[TGPU_INFOROM_ENTRIES + TGPU_INFOROM_ENT_CAUSE] = 2;  /* SBE->DBE */
    g_assert_true(g_file_set_contents(path, (char *)buf, len, NULL));
    expect_start_fails(path, "checksum mismatch");
    buf[TGPU_INFOROM_ENTRIES + TGPU_INFOROM_ENT_CAUSE] = 1;

    g_assert_true(g_file_set_contents(path, (char *)buf, len - 1, NULL));
    expect_start_fails(path, "file size does not match");

    /* a count above the maximum, however large the file */
    buf[TGPU_INFOROM_HDR_COUNT] = TGPU_INFOROM_MAX_RETIRED + 1;
    g_assert_true(g_file_set_contents(path, (char *)buf, len, NULL));
    expect_start_fails(path, "exceeds the maximum of 64");

    g_assert_true(g_file_set_contents(path, "IRO", 3, NULL));
    expect_start_fails(path, "file too short");

    /* larger than any InfoROM: refused before it is read */
    {
        g_autofree char *big = g_malloc0(TGPU_INFOROM_MAX_SIZE + 1);

        g_assert_true(g_file_set_contents(path, big,
                                          TGPU_INFOROM_MAX_SIZE + 1, NULL));
        expect_start_fails(path, "more than an InfoROM holds");
    }

    /* not a file: a character device would be read without end */
    expect_start_fails("/dev/zero", "is not a regular file");
    /* a FIFO with no writer: refused at once, not waited on in open() */
    {
        g_autofree char *fifo = g_build_filename(dir, "fifo", NULL);

        g_assert_cmpint(mkfifo(fifo, 0600), ==, 0);
        expect_start_fails(fifo, "is not a regular file");
        g_assert_cmpint(unlink(fifo), ==, 0);
    }

    /* a well-formed file still starts: the cases above were the reason */
    write_rom(path, &rom);
    {
        g_autofree char *opts = g_strdup_printf("inforom=%s", path);
        T t;

        tgpu_start(&t, opts);
        g_assert_cmpuint(rd(&t, TGPU_ECC_RETIRED_COUNT), ==, 1);
        tgpu_stop(&t);
    }
    rm_tmp(dir, path);
}

int main(int argc, char **argv)
{
    g_test_init(&argc, &argv, NULL);
    qtest_add_func("/tgpu/ecc/enable", test_enable);
    qtest_add_func("/tgpu/ecc/refused-channel-on", test_refused_channel_on);
    qtest_add_func("/tgpu/ecc/reset", test_reset);
    qtest_add_func("/tgpu/ecc/ecc-off", test_ecc_off);
    qtest_add_func("/tgpu/ecc/inforom-readback", test_inforom_readback);
    qtest_add_func("/tgpu/ecc/inforom-created", test_inforom_created);
    qtest_add_func("/tgpu/ecc/inforom-retire", test_inforom_retire);
    qtest_add_func("/tgpu/ecc/inforom-corrupt", test_inforom_corrupt);
    return g_test_run();
}
