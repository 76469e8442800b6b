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
#define   TGPU_ECC_INTR_MASK        TGPU_ECC_INTR_SCRUB_DONE
#define TGPU_ECC_INTR_EN            0x00d010u   /* RW */
/* Modelled scrub time of the last (or current) enable, in ns. */
#define TGPU_ECC_SCRUB_NS_LO        0x00d014u   /* RO */
#define TGPU_ECC_SCRUB_NS_HI        0x00d018u   /* RO */
/* A scrub takes this long per MiB of VRAM on the virtual clock (64 GB/s). */
#define TGPU_ECC_SCRUB_NS_PER_MIB   16000u

/*
 * Reserved for the RAS registers (read TGPU_REG_BADF until then):
 *   0x00d100-0x00d1ff SBE/DBE counters (volatile and aggregate)
 *   0x00d200-0x00d3ff SBE/DBE address logs
 *   0x00d800-0x00d8ff error injection
 */
#define TGPU_ECC_RSVD_COUNTERS      0x00d100u
#define TGPU_ECC_RSVD_ADDR_LOG      0x00d200u
#define TGPU_ECC_RSVD_INJECT        0x00d800u

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
 * All fields little-endian.  The file is the header followed by exactly
 * `count` entries; the checksum is FNV-1a (32-bit) over the header with
 * its checksum field zero, then the entries.
 */
#define TGPU_INFOROM_MAGIC          0x4d4f5249u /* "IROM" */
#define TGPU_INFOROM_VERSION        1
#define TGPU_INFOROM_MAX_RETIRED    64          /* as NVIDIA's limit */
#define TGPU_INFOROM_PAGE_SIZE      4096u

#define TGPU_INFOROM_HDR_SIZE       16
#define   TGPU_INFOROM_HDR_MAGIC    0   /* u32 */
#define   TGPU_INFOROM_HDR_VERSION  4   /* u16 */
#define   TGPU_INFOROM_HDR_COUNT    6   /* u16 */
#define   TGPU_INFOROM_HDR_CHECKSUM 8   /* u32 */
#define   TGPU_INFOROM_HDR_RSVD     12  /* u32, 0 */
#define TGPU_INFOROM_ENTRY_SIZE     24
#define   TGPU_INFOROM_ENT_ADDR     0   /* u64, 4 KiB aligned VRAM address */
#define   TGPU_INFOROM_ENT_CAUSE    8   /* u32, SBE or DBE */
#define   TGPU_INFOROM_ENT_RSVD     12  /* u32, 0 */
#define   TGPU_INFOROM_ENT_TIME     16  /* u64, Unix seconds */
#define TGPU_INFOROM_MAX_SIZE \
    (TGPU_INFOROM_HDR_SIZE + TGPU_INFOROM_MAX_RETIRED * TGPU_INFOROM_ENTRY_SIZE)

struct tgpu_inforom_entry {
    uint64_t addr;
    uint32_t cause;
    uint64_t time;
};

struct tgpu_inforom {
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
    unsigned long len = TGPU_INFOROM_HDR_SIZE;
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
    uint32_t count, sum;

    if (len < TGPU_INFOROM_HDR_SIZE) {
        return "file too short for the InfoROM header";
    }
    if (tgpu_inforom_get(buf + TGPU_INFOROM_HDR_MAGIC, 4) !=
        TGPU_INFOROM_MAGIC) {
        return "bad magic (not an InfoROM file)";
    }
    if (tgpu_inforom_get(buf + TGPU_INFOROM_HDR_VERSION, 2) !=
        TGPU_INFOROM_VERSION) {
        return "unsupported InfoROM version";
    }
    count = tgpu_inforom_get(buf + TGPU_INFOROM_HDR_COUNT, 2);
    if (count > TGPU_INFOROM_MAX_RETIRED) {
        return "retired-page count exceeds the maximum of 64";
    }
    if (len != TGPU_INFOROM_HDR_SIZE +
               (unsigned long)count * TGPU_INFOROM_ENTRY_SIZE) {
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
    rom->count = count;
    for (uint32_t i = 0; i < count; i++) {
        const uint8_t *e = buf + TGPU_INFOROM_HDR_SIZE +
                           i * TGPU_INFOROM_ENTRY_SIZE;
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
