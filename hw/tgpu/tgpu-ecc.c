/*
 * tgpu ECC: control, the VRAM scrub that enabling starts, and the InfoROM
 * retired-page store (a file on the host).  docs/hw/ecc.md is the manual.
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
static void ecc_index_retired(TGPUState *s, bool warn)
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

/* Writes the store to its file: a temporary file renamed over it. */
static bool ecc_inforom_persist(TGPUState *s, Error **errp)
{
    uint8_t buf[TGPU_INFOROM_MAX_SIZE];
    unsigned long len = tgpu_inforom_encode(&s->inforom, buf);
    g_autoptr(GError) gerr = NULL;

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
 * Records a retired page and persists the store.  For the RAS unit (page
 * retirement on repeated SBEs or a DBE); a page already listed is kept as
 * it is.  On failure the store is unchanged.
 */
bool tgpu_ecc_retire_page(TGPUState *s, uint64_t addr, uint32_t cause,
                          Error **errp)
{
    struct tgpu_inforom *rom = &s->inforom;
    struct tgpu_inforom_entry *e;

    if (addr % TGPU_INFOROM_PAGE_SIZE || addr >= s->vram_size ||
        (cause != TGPU_RETIRED_CAUSE_SBE && cause != TGPU_RETIRED_CAUSE_DBE)) {
        error_setg(errp, "tgpu: cannot retire page 0x%" PRIx64
                   " (cause %u): not a page of VRAM or an unknown cause",
                   addr, cause);
        return false;
    }
    for (uint32_t i = 0; i < rom->count; i++) {
        if (rom->ent[i].addr == addr) {
            return true;
        }
    }
    if (rom->count >= TGPU_INFOROM_MAX_RETIRED) {
        error_setg(errp, "tgpu: InfoROM is full (%u retired pages)",
                   TGPU_INFOROM_MAX_RETIRED);
        return false;
    }
    e = &rom->ent[rom->count++];
    e->addr = addr;
    e->cause = cause;
    e->time = g_get_real_time() / G_USEC_PER_SEC;
    if (!ecc_inforom_persist(s, errp)) {
        rom->count--;
        return false;
    }
    ecc_index_retired(s, false);
    trace_tgpu_inforom_retire(addr, cause);
    return true;
}

/* Up to @len bytes of @fd; -1 with errno on an error. */
static ssize_t ecc_read_upto(int fd, uint8_t *buf, size_t len)
{
    size_t done = 0;

    while (done < len) {
        ssize_t n = read(fd, buf + done, len - done);

        if (n < 0 && errno == EINTR) {
            continue;
        }
        if (n < 0) {
            return -1;
        }
        if (n == 0) {
            break;
        }
        done += n;
    }
    return done;
}

/* At realize, before anything that would need undoing. */
bool tgpu_ecc_load_inforom(TGPUState *s, Error **errp)
{
    /* one byte more than a full store, to tell a longer file */
    uint8_t buf[TGPU_INFOROM_MAX_SIZE + 1];
    const char *why;
    struct stat st;
    ssize_t len;
    int fd;

    memset(&s->inforom, 0, sizeof(s->inforom));
    if (!s->inforom_path) {
        return true;        /* a volatile, empty store */
    }
    /*
     * The path is the user's.  O_NONBLOCK: opening a FIFO would otherwise
     * wait for a writer, and QEMU with it; what is not a regular file is
     * refused below, before anything is read.
     */
    fd = open(s->inforom_path, O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY);
    if (fd < 0 && errno == ENOENT) {
        return ecc_inforom_persist(s, errp);
    }
    if (fd < 0) {
        error_setg_errno(errp, errno, "tgpu: cannot read InfoROM file %s",
                         s->inforom_path);
        return false;
    }
    /* a FIFO or a device could also be read without end */
    if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode)) {
        error_setg(errp, "tgpu: InfoROM file %s is not a regular file",
                   s->inforom_path);
        close(fd);
        return false;
    }
    len = ecc_read_upto(fd, buf, sizeof(buf));
    if (len < 0) {
        error_setg_errno(errp, errno, "tgpu: cannot read InfoROM file %s",
                         s->inforom_path);
        close(fd);
        return false;
    }
    close(fd);
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
    ecc_index_retired(s, true);
    trace_tgpu_inforom_load(s->inforom_path, s->inforom.count,
                            s->retired_nr);
    return true;
}

static bool ecc_any_channel_enabled(TGPUState *s)
{
    for (uint32_t i = 0; i < s->num_channels; i++) {
        if (s->chan[i].enabled) {
            return true;
        }
    }
    return false;
}

static void ecc_scrub_done(void *opaque)
{
    TGPUState *s = opaque;

    if (s->ecc_state != TGPU_ECC_STATE_SCRUBBING) {
        return;
    }
    s->ecc_state = TGPU_ECC_STATE_ENABLED;
    s->ecc_intr |= TGPU_ECC_INTR_SCRUB_DONE;
    trace_tgpu_ecc_state(s->ecc_state);
    tgpu_irq_raise(s, TGPU_UNIT_ECC);
}

static void ecc_refuse(TGPUState *s, uint32_t err, uint32_t val,
                       const char *why)
{
    s->ecc_status_err |= err;
    qemu_log_mask(LOG_GUEST_ERROR, "tgpu: ECC_CTRL write 0x%08x refused: "
                  "%s\n", val, why);
    trace_tgpu_ecc_refused(val, why);
}

static void ecc_ctrl_write(TGPUState *s, uint32_t val)
{
    bool on = val & TGPU_ECC_CTRL_ENABLE;

    if (on == s->ecc_ctrl) {
        return;
    }
    if (!s->ecc_cap) {
        ecc_refuse(s, TGPU_ECC_STATUS_ERR_NOCAP, val,
                   "the board has no ECC (ecc=off)");
        return;
    }
    /* Check bits change under live data: no channel may run meanwhile. */
    if (ecc_any_channel_enabled(s)) {
        ecc_refuse(s, TGPU_ECC_STATUS_ERR_BUSY, val,
                   "a channel is enabled; disable every channel first");
        return;
    }
    s->ecc_ctrl = on;
    if (on) {
        /*
         * The scrub writes check bits for all of VRAM; it is only timed,
         * VRAM on the host is not touched (it is sparse) and keeps its data.
         */
        s->ecc_scrub_ns = s->vram_size / MiB * TGPU_ECC_SCRUB_NS_PER_MIB;
        s->ecc_state = TGPU_ECC_STATE_SCRUBBING;
        timer_mod(s->ecc_scrub_timer,
                  qemu_clock_get_ns(QEMU_CLOCK_VIRTUAL) + s->ecc_scrub_ns);
    } else {
        timer_del(s->ecc_scrub_timer);
        s->ecc_state = TGPU_ECC_STATE_DISABLED;
    }
    trace_tgpu_ecc_state(s->ecc_state);
}

static uint32_t ecc_retired_read(TGPUState *s, hwaddr addr)
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

uint32_t tgpu_ecc_read(TGPUState *s, hwaddr addr, bool *ok)
{
    *ok = true;
    switch (addr) {
    case TGPU_ECC_CAPS:
        return s->ecc_cap ? TGPU_ECC_CAPS_ECC : 0;
    case TGPU_ECC_CTRL:
        return s->ecc_ctrl ? TGPU_ECC_CTRL_ENABLE : 0;
    case TGPU_ECC_STATUS:
        return s->ecc_state | s->ecc_status_err;
    case TGPU_ECC_INTR:
        return s->ecc_intr;
    case TGPU_ECC_INTR_EN:
        return s->ecc_intr_en;
    case TGPU_ECC_SCRUB_NS_LO:
        return (uint32_t)s->ecc_scrub_ns;
    case TGPU_ECC_SCRUB_NS_HI:
        return s->ecc_scrub_ns >> 32;
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
        return ecc_retired_read(s, addr);
    }
    *ok = false;
    return TGPU_REG_BADF;
}

bool tgpu_ecc_write(TGPUState *s, hwaddr addr, uint32_t val)
{
    switch (addr) {
    case TGPU_ECC_CTRL:
        ecc_ctrl_write(s, val);
        return true;
    case TGPU_ECC_STATUS:
        s->ecc_status_err &= ~(val & TGPU_ECC_STATUS_ERR_MASK);
        return true;
    case TGPU_ECC_INTR:
        s->ecc_intr &= ~val;
        tgpu_irq_update(s);
        return true;
    case TGPU_ECC_INTR_EN:
        s->ecc_intr_en = val & TGPU_ECC_INTR_MASK;
        tgpu_irq_update(s);
        return true;
    case TGPU_ECC_RETIRED_SELECT:
        /* any value: a select past the end reads the "none" entry */
        s->retired_select = val;
        return true;
    }
    return false;
}

/* ECC starts disabled after every reset; the InfoROM keeps its pages. */
void tgpu_ecc_reset(TGPUState *s)
{
    timer_del(s->ecc_scrub_timer);
    s->ecc_ctrl = false;
    s->ecc_state = TGPU_ECC_STATE_DISABLED;
    s->ecc_status_err = 0;
    s->ecc_intr = 0;
    s->ecc_intr_en = 0;
    s->ecc_scrub_ns = 0;
    s->retired_select = 0;
}

void tgpu_ecc_init(TGPUState *s)
{
    s->ecc_scrub_timer = timer_new_ns(QEMU_CLOCK_VIRTUAL, ecc_scrub_done, s);
    tgpu_ecc_reset(s);
}

void tgpu_ecc_exit(TGPUState *s)
{
    timer_free(s->ecc_scrub_timer);
    s->ecc_scrub_timer = NULL;
}
