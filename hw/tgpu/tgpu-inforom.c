/*
 * tgpu InfoROM: the board's persistent store (a file on the host) of the
 * retired VRAM pages and the aggregate ECC error counts, and its
 * registers in the ECC block: the retired-page list and the driver's
 * page retirement.  docs/hw/ecc.md is the manual.
 *
 * Copyright (c) 2026 The tgpu authors
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */

#include "qemu/osdep.h"
#include "qemu/error-report.h"
#include "qemu/log.h"
#include "qemu/units.h"
#include "qapi/error.h"
#include "tgpu.h"
#include "trace.h"

/* Rebuilds the list the registers show: in-VRAM pages, each once. */
static void inforom_index(TGPUState *s, bool warn)
{
    const struct tgpu_inforom *rom = &s->inforom;

    s->retired_nr = 0;
    for (uint32_t i = 0; i < rom->count; i++) {
        uint64_t addr = rom->ent[i].addr;
        bool dup = false;

        if (addr >= s->vram_size) {
            if (warn) {
                warn_report("tgpu: InfoROM %s: retired page 0x%" PRIx64
                            " is beyond VRAM (%" PRIu64 " MiB), ignored",
                            s->inforom_path, addr, s->vram_size / MiB);
            }
            continue;
        }
        for (uint32_t j = 0; j < s->retired_nr; j++) {
            dup |= rom->ent[s->retired_idx[j]].addr == addr;
        }
        if (dup) {
            if (warn) {
                warn_report("tgpu: InfoROM %s: retired page 0x%" PRIx64
                            " is listed twice, counted once",
                            s->inforom_path, addr);
            }
            continue;
        }
        s->retired_idx[s->retired_nr++] = i;
    }
}

/*
 * Migration: are the loaded entries a store tgpu_inforom_load() would
 * take?  Then the list of retired pages is rebuilt from them.
 */
bool tgpu_inforom_loaded_valid(TGPUState *s)
{
    g_autofree uint8_t *buf = g_malloc(TGPU_INFOROM_MAX_SIZE);
    g_autofree struct tgpu_inforom *rom = g_new0(struct tgpu_inforom, 1);
    unsigned long len;

    if (s->inforom.count > TGPU_INFOROM_MAX_RETIRED) {
        return false;
    }
    len = tgpu_inforom_encode(&s->inforom, buf);
    if (tgpu_inforom_decode(buf, len, rom)) {
        return false;
    }
    inforom_index(s, false);
    return true;
}

/*
 * Writes the store, with the aggregate error counts as they are now, to
 * its file: a temporary file renamed over it.
 */
bool tgpu_inforom_persist(TGPUState *s, Error **errp)
{
    uint8_t buf[TGPU_INFOROM_MAX_SIZE];
    g_autoptr(GError) gerr = NULL;
    unsigned long len;

    /* a count that changes after this sets the flag again: another write */
    qatomic_xchg(&s->ecc_agg_dirty, false);
    s->inforom.sbe_aggregate = qatomic_read(&s->ecc_sbe_agg);
    s->inforom.dbe_aggregate = qatomic_read(&s->ecc_dbe_agg);
    len = tgpu_inforom_encode(&s->inforom, buf);
    if (!s->inforom_path) {
        return true;
    }
    /* CONSISTENT: write a temporary file, fsync it, rename it over. */
    if (!g_file_set_contents_full(s->inforom_path, (const char *)buf, len,
                                  G_FILE_SET_CONTENTS_CONSISTENT, 0644,
                                  &gerr)) {
        error_setg(errp, "tgpu: cannot write InfoROM file %s: %s",
                   s->inforom_path, gerr->message);
        return false;
    }
    return true;
}

/*
 * Records a retired page and writes the store: 0, or the
 * TGPU_ECC_RETIRE_ERR_* bit that says why not (for IO, @errp says more).
 * A page listed already is kept as it is.  On failure the store is
 * unchanged.  Bounded: each page is written once, and 64 at most.
 */
uint32_t tgpu_inforom_retire(TGPUState *s, uint64_t addr, uint32_t cause,
                             Error **errp)
{
    struct tgpu_inforom *rom = &s->inforom;
    struct tgpu_inforom_entry *e;

    if (addr % TGPU_INFOROM_PAGE_SIZE || addr >= s->vram_size) {
        error_setg(errp, "tgpu: cannot retire 0x%" PRIx64
                   ": not a page of VRAM", addr);
        return TGPU_ECC_RETIRE_ERR_RANGE;
    }
    if (cause != TGPU_RETIRED_CAUSE_SBE && cause != TGPU_RETIRED_CAUSE_DBE) {
        error_setg(errp, "tgpu: cannot retire page 0x%" PRIx64
                   ": unknown cause %u", addr, cause);
        return TGPU_ECC_RETIRE_ERR_CAUSE;
    }
    for (uint32_t i = 0; i < rom->count; i++) {
        if (rom->ent[i].addr == addr) {
            return 0;
        }
    }
    if (rom->count >= TGPU_INFOROM_MAX_RETIRED) {
        error_setg(errp, "tgpu: InfoROM is full (%u retired pages)",
                   TGPU_INFOROM_MAX_RETIRED);
        return TGPU_ECC_RETIRE_ERR_FULL;
    }
    e = &rom->ent[rom->count++];
    e->addr = addr;
    e->cause = cause;
    e->time = g_get_real_time() / G_USEC_PER_SEC;
    if (!tgpu_inforom_persist(s, errp)) {
        rom->count--;
        return TGPU_ECC_RETIRE_ERR_IO;
    }
    inforom_index(s, false);
    trace_tgpu_inforom_retire(addr, cause);
    return 0;
}

/* At realize, before anything that would need undoing. */
bool tgpu_inforom_load(TGPUState *s, Error **errp)
{
    g_autofree uint8_t *buf = NULL;
    Error *err = NULL;
    const char *why;
    size_t len;
    int ret;

    memset(&s->inforom, 0, sizeof(s->inforom));
    if (!s->inforom_path) {
        return true;        /* a volatile, empty store */
    }
    ret = tgpu_file_read(s->inforom_path, "InfoROM file",
                         TGPU_INFOROM_MAX_SIZE, &buf, &len, &err);
    if (ret == 0) {
        /* no file yet: an empty store, written now */
        error_free(err);
        return tgpu_inforom_persist(s, errp);
    }
    if (ret < 0) {
        error_propagate(errp, err);
        return false;
    }
    if (len > TGPU_INFOROM_MAX_SIZE) {
        error_setg(errp, "tgpu: InfoROM file %s is malformed: more than "
                   "an InfoROM holds (%d bytes)", s->inforom_path,
                   TGPU_INFOROM_MAX_SIZE);
        return false;
    }
    why = tgpu_inforom_decode(buf, len, &s->inforom);
    if (why) {
        memset(&s->inforom, 0, sizeof(s->inforom));
        error_setg(errp, "tgpu: InfoROM file %s is malformed: %s",
                   s->inforom_path, why);
        error_append_hint(errp, "Repair it with tgpu-inforom, or remove it "
                          "to start with no retired pages.\n");
        return false;
    }
    inforom_index(s, true);
    /* the registers count 32 bits: the file's counts saturate there */
    s->ecc_sbe_agg = MIN(s->inforom.sbe_aggregate, UINT32_MAX);
    s->ecc_dbe_agg = MIN(s->inforom.dbe_aggregate, UINT32_MAX);
    trace_tgpu_inforom_load(s->inforom_path, s->inforom.count,
                            s->retired_nr);
    return true;
}

static uint32_t inforom_retired_read(TGPUState *s, hwaddr addr)
{
    const struct tgpu_inforom_entry *e = NULL;

    if (s->retired_select < s->retired_nr) {
        e = &s->inforom.ent[s->retired_idx[s->retired_select]];
    }
    switch (addr) {
    case TGPU_ECC_RETIRED_ADDR_LO:
        return e ? (uint32_t)e->addr : TGPU_RETIRED_NONE_ADDR;
    case TGPU_ECC_RETIRED_ADDR_HI:
        return e ? e->addr >> 32 : TGPU_RETIRED_NONE_ADDR;
    case TGPU_ECC_RETIRED_CAUSE:
        return e ? e->cause : TGPU_RETIRED_CAUSE_NONE;
    case TGPU_ECC_RETIRED_TIME_LO:
        return e ? (uint32_t)e->time : 0;
    default: /* TGPU_ECC_RETIRED_TIME_HI */
        return e ? e->time >> 32 : 0;
    }
}

/* RETIRE = 1: the page the RETIRE_* registers name goes to the store. */
static void inforom_retire_write(TGPUState *s, uint32_t val)
{
    Error *err = NULL;
    uint32_t status;

    if (val != 1) {
        status = TGPU_ECC_RETIRE_ERR_VALUE;
        error_setg(&err, "tgpu: ECC_RETIRE 0x%08x: only 1 retires a page",
                   val);
    } else {
        status = tgpu_inforom_retire(s, s->retire_addr, s->retire_cause,
                                     &err);
    }
    s->retire_status = status ? status : TGPU_ECC_RETIRE_DONE;
    if (!status) {
        return;
    }
    trace_tgpu_inforom_retire_refused(s->retire_addr, s->retire_cause,
                                      status);
    if (status == TGPU_ECC_RETIRE_ERR_IO) {
        /* the host's problem, not the guest's: said once */
        error_report_once("%s", error_get_pretty(err));
    } else {
        qemu_log_mask(LOG_GUEST_ERROR, "%s\n", error_get_pretty(err));
    }
    error_free(err);
}

uint32_t tgpu_inforom_read(TGPUState *s, hwaddr addr, bool *ok)
{
    switch (addr) {
    case TGPU_ECC_RETIRED_COUNT:
        return s->retired_nr;
    case TGPU_ECC_RETIRED_MAX:
        return TGPU_INFOROM_MAX_RETIRED;
    case TGPU_ECC_RETIRED_SELECT:
        return s->retired_select;
    case TGPU_ECC_RETIRED_ADDR_LO:
    case TGPU_ECC_RETIRED_ADDR_HI:
    case TGPU_ECC_RETIRED_CAUSE:
    case TGPU_ECC_RETIRED_TIME_LO:
    case TGPU_ECC_RETIRED_TIME_HI:
        return inforom_retired_read(s, addr);
    case TGPU_ECC_RETIRE_ADDR_LO:
        return (uint32_t)s->retire_addr;
    case TGPU_ECC_RETIRE_ADDR_HI:
        return s->retire_addr >> 32;
    case TGPU_ECC_RETIRE_CAUSE:
        return s->retire_cause;
    case TGPU_ECC_RETIRE_STATUS:
        return s->retire_status;
    }
    *ok = false;
    return TGPU_REG_BADF;
}

bool tgpu_inforom_write(TGPUState *s, hwaddr addr, uint32_t val)
{
    switch (addr) {
    case TGPU_ECC_RETIRED_SELECT:
        /* any value: a select past the end reads the "none" entry */
        s->retired_select = val;
        return true;
    case TGPU_ECC_RETIRE_ADDR_LO:
        s->retire_addr = deposit64(s->retire_addr, 0, 32, val);
        return true;
    case TGPU_ECC_RETIRE_ADDR_HI:
        s->retire_addr = deposit64(s->retire_addr, 32, 32, val);
        return true;
    case TGPU_ECC_RETIRE_CAUSE:
        s->retire_cause = val;      /* checked at RETIRE */
        return true;
    case TGPU_ECC_RETIRE:
        inforom_retire_write(s, val);
        return true;
    }
    return false;
}

/* A reset clears the registers; the store stays. */
void tgpu_inforom_reset(TGPUState *s)
{
    s->retired_select = 0;
    s->retire_addr = 0;
    s->retire_cause = 0;
    s->retire_status = 0;
}
