/* SPDX-License-Identifier: MIT */
/*
 * tgpu hardware contract: the ECC unit's registers and the InfoROM
 * retired-page store (its file format).
 *
 * docs/hw/ecc.md is the manual.  Like regs.h this compiles in the device
 * model, the kernel driver, the user-mode tools and the tests: no libc,
 * only the fixed-width integer types each user provides.
 */
#ifndef TGPU_ECC_H
#define TGPU_ECC_H

/* ---- ECC registers (BAR0) ------------------------------------------------ */

#define TGPU_ECC_BASE               0x00d000u
#define TGPU_ECC_SIZE               0x1000u

#define TGPU_ECC_CAPS               0x00d000u   /* RO */
#define   TGPU_ECC_CAPS_ECC         (1u << 0)   /* the board has ECC */
/*
 * CTRL.ENABLE asks for ECC on or off.  The unit takes a change only while
 * no channel is enabled; it then scrubs VRAM (enable) or turns ECC off at
 * once (disable).  A refused write leaves CTRL as it was.
 */
#define TGPU_ECC_CTRL               0x00d004u   /* RW */
#define   TGPU_ECC_CTRL_ENABLE      (1u << 0)
#define TGPU_ECC_STATUS             0x00d008u   /* RO; error bits W1C */
#define   TGPU_ECC_STATE_MASK       0xfu
#define   TGPU_ECC_STATE_DISABLED   0
#define   TGPU_ECC_STATE_SCRUBBING  1           /* enable in progress */
#define   TGPU_ECC_STATE_ENABLED    2
#define   TGPU_ECC_STATUS_ERR_BUSY  (1u << 16)  /* refused: channel on */
#define   TGPU_ECC_STATUS_ERR_NOCAP (1u << 17)  /* refused: no ECC */
#define   TGPU_ECC_STATUS_ERR_MASK  (TGPU_ECC_STATUS_ERR_BUSY | \
                                     TGPU_ECC_STATUS_ERR_NOCAP)
#define TGPU_ECC_INTR               0x00d00cu   /* R/W1C */
#define   TGPU_ECC_INTR_SCRUB_DONE  (1u << 0)
#define   TGPU_ECC_INTR_SBE         (1u << 1)   /* a corrected error */
#define   TGPU_ECC_INTR_DBE         (1u << 2)   /* an uncorrectable one */
#define   TGPU_ECC_INTR_MASK        (TGPU_ECC_INTR_SCRUB_DONE | \
                                     TGPU_ECC_INTR_SBE | TGPU_ECC_INTR_DBE)
#define TGPU_ECC_INTR_EN            0x00d010u   /* RW */
/* Modelled scrub time of the last (or current) enable, in ns. */
#define TGPU_ECC_SCRUB_NS_LO        0x00d014u   /* RO */
#define TGPU_ECC_SCRUB_NS_HI        0x00d018u   /* RO */
/* A scrub takes this long per MiB of VRAM on the virtual clock (64 GB/s). */
#define TGPU_ECC_SCRUB_NS_PER_MIB   16000u

/*
 * Error counters of VRAM (nvidia-smi's "DRAM" or "Device Memory").
 * Volatile counts start at 0 with every reset; aggregate ones never do.
 * Both saturate at 0xffffffff.  Writing COUNTERS_CLEAR bit 0 zeroes the
 * volatile pair, bit 1 the aggregate pair (nvidia-smi -p 0 and -p 1).
 */
#define TGPU_ECC_SBE_VOLATILE       0x00d100u   /* RO */
#define TGPU_ECC_DBE_VOLATILE       0x00d104u   /* RO */
#define TGPU_ECC_SBE_AGGREGATE      0x00d108u   /* RO */
#define TGPU_ECC_DBE_AGGREGATE      0x00d10cu   /* RO */
#define TGPU_ECC_COUNTERS_CLEAR     0x00d110u   /* WO */
#define   TGPU_ECC_CLEAR_VOLATILE   (1u << 0)
#define   TGPU_ECC_CLEAR_AGGREGATE  (1u << 1)
#define   TGPU_ECC_CLEAR_MASK       (TGPU_ECC_CLEAR_VOLATILE | \
                                     TGPU_ECC_CLEAR_AGGREGATE)

/*
 * The address log: the last TGPU_ECC_LOG_ENTRIES errors, oldest first.
 * An error past a full log drops the oldest entry and sets
 * LOG_STATUS.OVERFLOW.  LOG_SELECT picks the entry the next five
 * registers show; past LOG_COUNT they read 0 (INFO type NONE).
 */
#define TGPU_ECC_LOG_ENTRIES        16
#define TGPU_ECC_LOG_COUNT          0x00d200u   /* RO, entries held */
#define TGPU_ECC_LOG_STATUS         0x00d204u   /* R/W1C */
#define   TGPU_ECC_LOG_OVERFLOW     (1u << 0)
#define TGPU_ECC_LOG_SELECT         0x00d208u   /* RW, 0 = oldest */
#define TGPU_ECC_LOG_ADDR_LO        0x00d20cu   /* RO, the 64-bit word */
#define TGPU_ECC_LOG_ADDR_HI        0x00d210u   /* RO */
#define TGPU_ECC_LOG_INFO           0x00d214u   /* RO */
#define   TGPU_ECC_LOG_TYPE_MASK    0x3u        /* TGPU_ECC_TYPE_* */
#define   TGPU_ECC_LOG_ENGINE_SHIFT 4           /* TGPU_ECC_ENGINE_* */
#define   TGPU_ECC_LOG_ENGINE_MASK  0xfu
#define   TGPU_ECC_LOG_CHID_SHIFT   16          /* TGPU_ECC_NO_CHID: none */
#define   TGPU_ECC_LOG_CHID_MASK    0xffffu
#define TGPU_ECC_LOG_TIME_LO        0x00d218u   /* RO, PTIMER ns */
#define TGPU_ECC_LOG_TIME_HI        0x00d21cu   /* RO */
#define TGPU_ECC_LOG_CLEAR          0x00d220u   /* WO, 1: empty the log */

#define TGPU_ECC_TYPE_NONE          0
#define TGPU_ECC_TYPE_SBE           1
#define TGPU_ECC_TYPE_DBE           2

/* Who read the location: the MMU fault buffer's engine IDs, plus BAR1. */
#define TGPU_ECC_ENGINE_HOST        0   /* GPFIFO, pushbuffer, USERD, ... */
#define TGPU_ECC_ENGINE_COMPUTE     1
#define TGPU_ECC_ENGINE_CE0         2
#define TGPU_ECC_ENGINE_CE1         3
#define TGPU_ECC_ENGINE_MMU         4   /* a page-table walk */
#define TGPU_ECC_ENGINE_BAR1        5   /* a CPU read through BAR1 */
#define TGPU_ECC_NO_CHID            0xffffu

/* A reader as logs spell it. */
static inline const char *tgpu_ecc_engine_name(unsigned int engine)
{
    switch (engine) {
    case TGPU_ECC_ENGINE_HOST:
        return "host unit";
    case TGPU_ECC_ENGINE_COMPUTE:
        return "compute engine";
    case TGPU_ECC_ENGINE_CE0:
        return "copy engine 0";
    case TGPU_ECC_ENGINE_CE1:
        return "copy engine 1";
    case TGPU_ECC_ENGINE_MMU:
        return "MMU (a page-table walk)";
    case TGPU_ECC_ENGINE_BAR1:
        return "CPU through BAR1";
    }
    return "unknown reader";
}

/*
 * Error injection.  Write the 64-bit word's VRAM address (8-byte
 * aligned), the bits to flip in it (one bit: a single-bit error, two: a
 * double-bit error) and the mode, then write 1 to INJ_ARM.  A ONCE
 * error hits the next read of the word; a STICKY one every read until
 * the word is written.  Arming a word already pending replaces its
 * injection.  A refused arm, or a bad value in INJ_MODE or INJ_ARM,
 * sets an INJ_STATUS error bit and changes nothing else.
 *
 * With ECC enabled the unit corrects an SBE and contains a DBE (the
 * data never reaches its reader); with ECC disabled the first read of
 * the word flips its bits in VRAM, silently, and the injection is gone.
 */
#define TGPU_ECC_INJ_MAX            64          /* pending at most */
#define TGPU_ECC_INJ_ADDR_LO        0x00d800u   /* RW, bits 2:0 zero */
#define TGPU_ECC_INJ_ADDR_HI        0x00d804u   /* RW */
#define TGPU_ECC_INJ_MASK_LO        0x00d808u   /* RW, bits 31:0 */
#define TGPU_ECC_INJ_MASK_HI        0x00d80cu   /* RW, bits 63:32 */
#define TGPU_ECC_INJ_MODE           0x00d810u   /* RW */
#define   TGPU_ECC_INJ_ONCE         0
#define   TGPU_ECC_INJ_STICKY       1
#define TGPU_ECC_INJ_ARM            0x00d814u   /* WO, 1: commit */
#define TGPU_ECC_INJ_CLEAR          0x00d818u   /* WO, 1: drop all pending */
#define TGPU_ECC_INJ_STATUS         0x00d81cu   /* RO; error bits W1C */
#define   TGPU_ECC_INJ_PENDING_MASK 0xffu       /* injections pending */
#define   TGPU_ECC_INJ_ERR_FULL     (1u << 16)  /* 64 already pending */
#define   TGPU_ECC_INJ_ERR_RANGE    (1u << 17)  /* address not in VRAM */
#define   TGPU_ECC_INJ_ERR_MASK     (1u << 18)  /* mask not 1 or 2 bits */
#define   TGPU_ECC_INJ_ERR_ALIGN    (1u << 19)  /* address not 8-aligned */
#define   TGPU_ECC_INJ_ERR_VALUE    (1u << 20)  /* bad MODE or ARM value */
#define   TGPU_ECC_INJ_ERR_ALL      (0x1fu << 16)
#define TGPU_ECC_INJ_MAX_REG        0x00d820u   /* RO, TGPU_ECC_INJ_MAX */
/* Read back the pending injections: INJ_SELECT picks one (0 = oldest). */
#define TGPU_ECC_INJ_SELECT         0x00d824u   /* RW */
#define TGPU_ECC_INJ_PEND_ADDR_LO   0x00d828u   /* RO, all ones past end */
#define TGPU_ECC_INJ_PEND_ADDR_HI   0x00d82cu   /* RO */
#define TGPU_ECC_INJ_PEND_MASK_LO   0x00d830u   /* RO, 0 past the end */
#define TGPU_ECC_INJ_PEND_MASK_HI   0x00d834u   /* RO */
#define TGPU_ECC_INJ_PEND_MODE      0x00d838u   /* RO */

/*
 * InfoROM retired pages: RETIRED_COUNT entries, read one at a time by
 * writing its index to RETIRED_SELECT.  A select past the last entry reads
 * ADDR_LO/HI as all ones and CAUSE as TGPU_RETIRED_CAUSE_NONE.
 */
#define TGPU_ECC_RETIRED_COUNT      0x00d400u   /* RO, pages within VRAM */
#define TGPU_ECC_RETIRED_MAX        0x00d404u   /* RO, capacity */
#define TGPU_ECC_RETIRED_SELECT     0x00d408u   /* RW, reset 0 */
#define TGPU_ECC_RETIRED_ADDR_LO    0x00d40cu   /* RO, VRAM address [31:12] */
#define TGPU_ECC_RETIRED_ADDR_HI    0x00d410u   /* RO */
#define TGPU_ECC_RETIRED_CAUSE      0x00d414u   /* RO, TGPU_RETIRED_CAUSE_* */
#define TGPU_ECC_RETIRED_TIME_LO    0x00d418u   /* RO, Unix seconds */
#define TGPU_ECC_RETIRED_TIME_HI    0x00d41cu   /* RO */
/*
 * Retirement by the driver: RETIRE_ADDR and RETIRE_CAUSE name a page,
 * RETIRE = 1 writes it to the InfoROM at once (the file too), and the
 * RETIRED_* list shows it from then on; the driver keeps it out of use
 * from its next load.  A page listed already is left as it is (DONE).
 * RETIRE_STATUS has the outcome of the last RETIRE: DONE, or one error
 * bit, with nothing written.
 */
#define TGPU_ECC_RETIRE_ADDR_LO     0x00d420u   /* RW, 4 KiB aligned */
#define TGPU_ECC_RETIRE_ADDR_HI     0x00d424u   /* RW */
#define TGPU_ECC_RETIRE_CAUSE       0x00d428u   /* RW, TGPU_RETIRED_CAUSE_* */
#define TGPU_ECC_RETIRE             0x00d42cu   /* WO, 1: retire the page */
#define TGPU_ECC_RETIRE_STATUS      0x00d430u   /* RO */
#define   TGPU_ECC_RETIRE_DONE      (1u << 0)   /* listed (now or before) */
#define   TGPU_ECC_RETIRE_ERR_FULL  (1u << 16)  /* the store holds 64 */
#define   TGPU_ECC_RETIRE_ERR_RANGE (1u << 17)  /* not a page of VRAM */
#define   TGPU_ECC_RETIRE_ERR_CAUSE (1u << 18)  /* not SBE or DBE */
#define   TGPU_ECC_RETIRE_ERR_VALUE (1u << 19)  /* RETIRE written not 1 */
#define   TGPU_ECC_RETIRE_ERR_IO    (1u << 20)  /* the file not written */
#define   TGPU_RETIRED_NONE_ADDR    0xffffffffu

#define TGPU_RETIRED_CAUSE_NONE     0
#define TGPU_RETIRED_CAUSE_SBE      1   /* multiple single-bit errors */
#define TGPU_RETIRED_CAUSE_DBE      2   /* a double-bit error */

/* A retirement cause as tools and logs spell it. */
static inline const char *tgpu_retired_cause_name(unsigned int cause)
{
    switch (cause) {
    case TGPU_RETIRED_CAUSE_SBE:
        return "sbe";
    case TGPU_RETIRED_CAUSE_DBE:
        return "dbe";
    }
    return "unknown";
}

/* ---- InfoROM file format ------------------------------------------------- */

/*
 * All fields little-endian.  A version 2 file is the header, the ECC
 * block (the aggregate error counts) and exactly `count` entries; a
 * version 1 file, which still loads (its counts as 0), has no ECC
 * block.  The checksum is FNV-1a (32-bit) over the header with its
 * checksum field zero, then the rest.  Files are always written as
 * version 2.
 */
#define TGPU_INFOROM_MAGIC          0x4d4f5249u /* "IROM" */
#define TGPU_INFOROM_VERSION        2
#define TGPU_INFOROM_VERSION_1      1           /* no ECC block */
#define TGPU_INFOROM_MAX_RETIRED    64          /* as NVIDIA's limit */
#define TGPU_INFOROM_PAGE_SIZE      4096u

#define TGPU_INFOROM_HDR_SIZE       16
#define   TGPU_INFOROM_HDR_MAGIC    0   /* u32 */
#define   TGPU_INFOROM_HDR_VERSION  4   /* u16 */
#define   TGPU_INFOROM_HDR_COUNT    6   /* u16 */
#define   TGPU_INFOROM_HDR_CHECKSUM 8   /* u32 */
#define   TGPU_INFOROM_HDR_RSVD     12  /* u32, 0 */
#define TGPU_INFOROM_ECC_SIZE       16          /* version 2 */
#define   TGPU_INFOROM_ECC_SBE      0   /* u64, aggregate SBE count */
#define   TGPU_INFOROM_ECC_DBE      8   /* u64, aggregate DBE count */
/* where the entries start in a file of each version */
#define TGPU_INFOROM_ENTRIES_V1     TGPU_INFOROM_HDR_SIZE
#define TGPU_INFOROM_ENTRIES        (TGPU_INFOROM_HDR_SIZE + \
                                     TGPU_INFOROM_ECC_SIZE)
#define TGPU_INFOROM_ENTRY_SIZE     24
#define   TGPU_INFOROM_ENT_ADDR     0   /* u64, 4 KiB aligned VRAM address */
#define   TGPU_INFOROM_ENT_CAUSE    8   /* u32, SBE or DBE */
#define   TGPU_INFOROM_ENT_RSVD     12  /* u32, 0 */
#define   TGPU_INFOROM_ENT_TIME     16  /* u64, Unix seconds */
#define TGPU_INFOROM_MAX_SIZE \
    (TGPU_INFOROM_ENTRIES + TGPU_INFOROM_MAX_RETIRED * TGPU_INFOROM_ENTRY_SIZE)

struct tgpu_inforom_entry {
    uint64_t addr;
    uint32_t cause;
    uint64_t time;
};

struct tgpu_inforom {
    uint32_t version;           /* as decoded; encoding writes the current */
    uint64_t sbe_aggregate, dbe_aggregate;
    uint32_t count;
    struct tgpu_inforom_entry ent[TGPU_INFOROM_MAX_RETIRED];
};

static inline uint32_t tgpu_inforom_get(const uint8_t *p, unsigned int n)
{
    uint32_t v = 0;

    while (n--) {
        v = v << 8 | p[n];
    }
    return v;
}

static inline void tgpu_inforom_put(uint8_t *p, unsigned int n, uint64_t v)
{
    for (unsigned int i = 0; i < n; i++) {
        p[i] = (uint8_t)(v >> (8 * i));
    }
}

static inline uint32_t tgpu_inforom_fnv1a(const uint8_t *p, unsigned long len)
{
    uint32_t h = 0x811c9dc5u;

    while (len--) {
        h = (h ^ *p++) * 0x01000193u;
    }
    return h;
}

/* Encodes @rom into @buf (TGPU_INFOROM_MAX_SIZE bytes); returns its size. */
static inline unsigned long tgpu_inforom_encode(const struct tgpu_inforom *rom,
                                                uint8_t *buf)
{
    unsigned long len = TGPU_INFOROM_ENTRIES;
    uint32_t n = rom->count;

    if (n > TGPU_INFOROM_MAX_RETIRED) {
        n = TGPU_INFOROM_MAX_RETIRED;
    }
    for (unsigned long i = 0; i < TGPU_INFOROM_MAX_SIZE; i++) {
        buf[i] = 0;
    }
    tgpu_inforom_put(buf + TGPU_INFOROM_HDR_MAGIC, 4, TGPU_INFOROM_MAGIC);
    tgpu_inforom_put(buf + TGPU_INFOROM_HDR_VERSION, 2, TGPU_INFOROM_VERSION);
    tgpu_inforom_put(buf + TGPU_INFOROM_HDR_COUNT, 2, n);
    tgpu_inforom_put(buf + TGPU_INFOROM_HDR_SIZE + TGPU_INFOROM_ECC_SBE, 8,
                     rom->sbe_aggregate);
    tgpu_inforom_put(buf + TGPU_INFOROM_HDR_SIZE + TGPU_INFOROM_ECC_DBE, 8,
                     rom->dbe_aggregate);
    for (uint32_t i = 0; i < n; i++, len += TGPU_INFOROM_ENTRY_SIZE) {
        uint8_t *e = buf + len;

        tgpu_inforom_put(e + TGPU_INFOROM_ENT_ADDR, 8, rom->ent[i].addr);
        tgpu_inforom_put(e + TGPU_INFOROM_ENT_CAUSE, 4, rom->ent[i].cause);
        tgpu_inforom_put(e + TGPU_INFOROM_ENT_TIME, 8, rom->ent[i].time);
    }
    tgpu_inforom_put(buf + TGPU_INFOROM_HDR_CHECKSUM, 4,
                     tgpu_inforom_fnv1a(buf, len));
    return len;
}

/*
 * Decodes a whole file into @rom.  Returns 0, or a static string saying
 * what is wrong with it.
 */
static inline const char *tgpu_inforom_decode(const uint8_t *buf,
                                              unsigned long len,
                                              struct tgpu_inforom *rom)
{
    uint8_t hdr[TGPU_INFOROM_HDR_SIZE];
    uint32_t version, count, sum;
    unsigned long base;

    if (len < TGPU_INFOROM_HDR_SIZE) {
        return "file too short for the InfoROM header";
    }
    if (tgpu_inforom_get(buf + TGPU_INFOROM_HDR_MAGIC, 4) !=
        TGPU_INFOROM_MAGIC) {
        return "bad magic (not an InfoROM file)";
    }
    version = tgpu_inforom_get(buf + TGPU_INFOROM_HDR_VERSION, 2);
    if (version != TGPU_INFOROM_VERSION && version != TGPU_INFOROM_VERSION_1) {
        return "unsupported InfoROM version";
    }
    base = version == TGPU_INFOROM_VERSION_1 ? TGPU_INFOROM_ENTRIES_V1
                                             : TGPU_INFOROM_ENTRIES;
    count = tgpu_inforom_get(buf + TGPU_INFOROM_HDR_COUNT, 2);
    if (count > TGPU_INFOROM_MAX_RETIRED) {
        return "retired-page count exceeds the maximum of 64";
    }
    if (len != base + (unsigned long)count * TGPU_INFOROM_ENTRY_SIZE) {
        return "file size does not match the retired-page count";
    }
    for (unsigned int i = 0; i < TGPU_INFOROM_HDR_SIZE; i++) {
        hdr[i] = buf[i];
    }
    tgpu_inforom_put(hdr + TGPU_INFOROM_HDR_CHECKSUM, 4, 0);
    sum = tgpu_inforom_fnv1a(hdr, TGPU_INFOROM_HDR_SIZE);
    for (unsigned long i = TGPU_INFOROM_HDR_SIZE; i < len; i++) {
        sum = (sum ^ buf[i]) * 0x01000193u;
    }
    if (sum != tgpu_inforom_get(buf + TGPU_INFOROM_HDR_CHECKSUM, 4)) {
        return "checksum mismatch";
    }
    rom->version = version;
    rom->count = count;
    rom->sbe_aggregate = rom->dbe_aggregate = 0;
    if (version != TGPU_INFOROM_VERSION_1) {
        const uint8_t *c = buf + TGPU_INFOROM_HDR_SIZE;

        rom->sbe_aggregate = tgpu_inforom_get(c + TGPU_INFOROM_ECC_SBE, 4) |
            (uint64_t)tgpu_inforom_get(c + TGPU_INFOROM_ECC_SBE + 4, 4) << 32;
        rom->dbe_aggregate = tgpu_inforom_get(c + TGPU_INFOROM_ECC_DBE, 4) |
            (uint64_t)tgpu_inforom_get(c + TGPU_INFOROM_ECC_DBE + 4, 4) << 32;
    }
    for (uint32_t i = 0; i < count; i++) {
        const uint8_t *e = buf + base + i * TGPU_INFOROM_ENTRY_SIZE;
        struct tgpu_inforom_entry *r = &rom->ent[i];

        r->addr = tgpu_inforom_get(e + TGPU_INFOROM_ENT_ADDR, 4) |
                  (uint64_t)tgpu_inforom_get(e + TGPU_INFOROM_ENT_ADDR + 4,
                                             4) << 32;
        r->cause = tgpu_inforom_get(e + TGPU_INFOROM_ENT_CAUSE, 4);
        r->time = tgpu_inforom_get(e + TGPU_INFOROM_ENT_TIME, 4) |
                  (uint64_t)tgpu_inforom_get(e + TGPU_INFOROM_ENT_TIME + 4,
                                             4) << 32;
        if (r->addr % TGPU_INFOROM_PAGE_SIZE) {
            return "a retired page address is not 4 KiB aligned";
        }
        if (r->cause != TGPU_RETIRED_CAUSE_SBE &&
            r->cause != TGPU_RETIRED_CAUSE_DBE) {
            return "a retired page has an unknown cause";
        }
    }
    return 0;
}

#endif /* TGPU_ECC_H */
