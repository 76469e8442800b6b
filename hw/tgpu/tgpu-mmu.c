/*
 * tgpu MMU: per-channel GPU address spaces, page walks, the ASID-tagged
 * TLB and the fault buffer
 *
 * docs/hw/mmu.md is the manual.  Page tables are guest data: a walk reads
 * at most three entries, checks every table address against VRAM and
 * against the tables it already used, and faults instead of guessing.
 *
 * The copy engines translate on their own threads: mmu_lock guards the
 * TLB and its counters.  The fault buffer and interrupts stay under the
 * BQL; an engine hands its fault to tgpu_mmu_report_fault() from there.
 *
 * Copyright (c) 2026 The tgpu authors
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */

#include "qemu/osdep.h"
#include "qemu/bswap.h"
#include "qemu/log.h"
#include "qemu/lockable.h"
#include "qemu/main-loop.h"
#include "qemu/rcu.h"
#include "hw/pci/pci_device.h"
#include "qemu/error-report.h"
#include "migration/vmstate.h"
#include "tgpu.h"
#include "trace.h"

/* Pages an engine translates per hold of mmu_lock. */
#define TGPU_MMU_RUN_BATCH  64

static const char *const engine_names[] = {
    [TGPU_FAULT_ENGINE_HOST] = "host",
    [TGPU_FAULT_ENGINE_COMPUTE] = "compute",
    [TGPU_FAULT_ENGINE_CE0] = "CE0",
    [TGPU_FAULT_ENGINE_CE1] = "CE1",
};

static const char *const fault_names[] = {
    [TGPU_FAULT_NOT_PRESENT] = "not present",
    [TGPU_FAULT_READ_ONLY] = "write to read-only page",
    [TGPU_FAULT_PRIVILEGE] = "privileged page",
    [TGPU_FAULT_BAD_APERTURE] = "bad aperture",
    [TGPU_FAULT_WALK] = "page-walk error",
    [TGPU_FAULT_ECC] = "uncorrectable ECC error in a page table",
};

/*
 * Read VRAM for ENGINE (TGPU_ECC_ENGINE_*) and channel CHID:
 * MEMTX_DECODE_ERROR when [addr, addr + len) is not all VRAM, MEMTX_ERROR
 * for an uncorrectable ECC error there (nothing is read).
 */
MemTxResult tgpu_vram_read(TGPUState *s, uint64_t addr, void *buf,
                           uint64_t len, unsigned int engine, uint32_t chid)
{
    uint64_t bad;

    if (addr > s->vram_size || len > s->vram_size - addr) {
        return MEMTX_DECODE_ERROR;
    }
    if (!tgpu_ecc_vram_read(s, addr, len, engine, chid, &bad)) {
        return MEMTX_ERROR;
    }
    memcpy(buf, s->vram_ptr + addr, len);
    return MEMTX_OK;
}

/* Write VRAM; false when [addr, addr + len) is not all VRAM. */
bool tgpu_vram_write(TGPUState *s, uint64_t addr, const void *buf,
                     uint64_t len)
{
    if (addr > s->vram_size || len > s->vram_size - addr) {
        return false;
    }
    memcpy(s->vram_ptr + addr, buf, len);
    memory_region_set_dirty(&s->vram, addr, len);
    tgpu_ecc_vram_write(s, addr, len);
    return true;
}

/*
 * QEMU's generic fuzzer (--enable-fuzzing) fills guest RAM as a device
 * reads it, through fuzz_dma_read_cb, which address_space_map and
 * pci_dma_read call for other devices; this mapping reads RAM directly,
 * so it calls the hook itself.  The hook writes guest RAM through the
 * in-process qtest server: that is safe under the BQL, and on an
 * engine's thread only under deterministic=on, where the thread runs
 * while the main loop waits for it.  Without CONFIG_FUZZ it is nothing.
 */
#ifdef CONFIG_FUZZ
/*
 * The hook compares each read with every range it filled since the
 * fuzzer's last command, and one clock-step command can let a kernel
 * make millions of lane-sized reads: on an engine's thread the hook
 * sees the first TGPU_FUZZ_DMA_PER_STEP reads of each engine step only
 * (a copy's descriptors and first blocks, a kernel's first loads).
 */
#define TGPU_FUZZ_DMA_PER_STEP 64
static __thread unsigned int tgpu_fuzz_dma_reads;
#endif

/* An engine step begins (tgpu-engine.c): the hook's budget is renewed. */
void tgpu_fuzz_dma_step(void)
{
#ifdef CONFIG_FUZZ
    tgpu_fuzz_dma_reads = 0;
#endif
}

static void tgpu_fuzz_dma_read(TGPUState *s, uint64_t pa, uint64_t len,
                               bool is_write, MemoryRegion *mr)
{
#ifdef CONFIG_FUZZ
    if (is_write) {
        return;
    }
    if (!bql_locked()) {
        if (!s->deterministic ||
            tgpu_fuzz_dma_reads >= TGPU_FUZZ_DMA_PER_STEP) {
            return;
        }
        tgpu_fuzz_dma_reads++;
    }
    fuzz_dma_read_cb(pa, len, mr);
#endif
}

/*
 * System memory: guest RAM reached through the device's PCI address space.
 * The translation and the host pointer come from one look at the memory
 * map (a MemoryRegionCache), so a region that stops being RAM in between
 * -- bus mastering turned off, a BAR moved over it -- cannot turn the
 * access into an MMIO bounce, which would need the BQL: engine threads
 * run without it while the BQL side waits for them.  Anything that is
 * not RAM (MMIO, a hole, config space, bus mastering off) is refused.
 */
uint8_t *tgpu_sysmem_map(TGPUState *s, uint64_t pa, uint64_t *len,
                         bool is_write, TGPUSysmemMap *m)
{
    int64_t l;

    m->mapped = false;
    if (!*len) {
        return NULL;
    }
    /* off the bus, or an injected dma-error: the access fails */
    if (qatomic_read(&s->bus_lost) ||
        tgpu_fault_hits(s, TGPU_FAULT_ACTIVE_DMA, -1)) {
        trace_tgpu_dma_error(pa, *len, is_write);
        return NULL;
    }
    l = address_space_cache_init(&m->cache,
                                 pci_get_address_space(PCI_DEVICE(s)), pa,
                                 *len, is_write);
    /* ptr is set exactly when the cache maps RAM directly */
    if (l <= 0 || !m->cache.ptr) {
        trace_tgpu_sysmem_refused(pa, *len, is_write, "not RAM");
        address_space_cache_destroy(&m->cache);
        return NULL;
    }
    m->mapped = true;
    m->is_write = is_write;
    *len = l;
    tgpu_fuzz_dma_read(s, pa, l, is_write, m->cache.mrs.mr);
    return m->cache.ptr;
}

/* End a mapping; the first WRITTEN bytes were written (they become dirty). */
void tgpu_sysmem_unmap(TGPUSysmemMap *m, uint64_t written)
{
    if (!m->mapped) {
        return;
    }
    if (m->is_write && written) {
        address_space_cache_invalidate(&m->cache, 0, written);
    }
    address_space_cache_destroy(&m->cache);
    m->mapped = false;
}

/* Copy to or from guest RAM; false when part of it is not RAM. */
bool tgpu_sysmem_rw(TGPUState *s, uint64_t pa, void *buf, uint64_t len,
                    bool is_write)
{
    uint8_t *b = buf;

    while (len) {
        TGPUSysmemMap m;
        uint64_t n = len;
        uint8_t *p = tgpu_sysmem_map(s, pa, &n, is_write, &m);

        if (!p) {
            return false;
        }
        if (is_write) {
            memcpy(p, b, n);
        } else {
            memcpy(b, p, n);
        }
        tgpu_sysmem_unmap(&m, n);
        pa += n;
        b += n;
        len -= n;
    }
    return true;
}

/*
 * A fault record into system memory: guest RAM only (docs/hw/mmu.md).
 * The device's own VRAM seen through BAR1 is RAM too, which a channel's
 * ring may use (peer-to-self DMA), but the MMU does not write its
 * records there: software reads them from guest RAM it owns.
 */
static bool fault_record_write(TGPUState *s, uint64_t pa, const void *rec,
                               uint64_t len)
{
    TGPUSysmemMap m;
    uint64_t n = len;
    uint8_t *p = tgpu_sysmem_map(s, pa, &n, true, &m);

    if (!p) {
        return false;
    }
    /* a 32-byte slot of a 4 KiB-aligned ring never straddles a page */
    if (n < len || m.cache.mrs.mr == &s->vram) {
        trace_tgpu_sysmem_refused(pa, len, true, "this device's BAR1");
        tgpu_sysmem_unmap(&m, 0);
        return false;
    }
    memcpy(p, rec, len);
    tgpu_sysmem_unmap(&m, len);
    return true;
}

/* ---- TLB ---- */

static unsigned int tlb_set(uint64_t vpn, uint32_t asid, bool large)
{
    uint64_t h = (vpn ^ ((uint64_t)asid << 5) ^ (large ? 0x2a : 0)) *
                 0x9e3779b97f4a7c15ull;

    return h >> 58;     /* top 6 bits: one of 64 sets */
}

static TGPUTlbEntry *tlb_find(TGPUState *s, uint32_t asid, uint64_t va)
{
    for (int large = 0; large < 2; large++) {
        uint64_t vpn = va >> (large ? TGPU_LARGE_PAGE_SHIFT : TGPU_PAGE_SHIFT);
        TGPUTlbEntry *set = s->tlb[tlb_set(vpn, asid, large)];

        for (int w = 0; w < TGPU_TLB_WAYS; w++) {
            if (set[w].valid && set[w].large == large &&
                set[w].asid == asid && set[w].vpn == vpn) {
                return &set[w];
            }
        }
    }
    return NULL;
}

static void tlb_fill(TGPUState *s, uint32_t asid, uint64_t va, bool large,
                     uint64_t pte)
{
    uint64_t vpn = va >> (large ? TGPU_LARGE_PAGE_SHIFT : TGPU_PAGE_SHIFT);
    unsigned int set = tlb_set(vpn, asid, large);
    TGPUTlbEntry *e = NULL;

    for (int w = 0; w < TGPU_TLB_WAYS; w++) {
        if (!s->tlb[set][w].valid) {
            e = &s->tlb[set][w];
            break;
        }
    }
    if (!e) {
        e = &s->tlb[set][s->tlb_victim[set]];
        s->tlb_victim[set] = (s->tlb_victim[set] + 1) % TGPU_TLB_WAYS;
        s->tlb_evictions++;
    }
    *e = (TGPUTlbEntry) {
        .valid = true, .large = large, .asid = asid, .vpn = vpn, .pte = pte,
    };
    s->tlb_fills++;
}

/* An access through this entry failed: it must not be used again. */
void tgpu_mmu_forget(TGPUState *s, const TGPUVmCtx *ctx, uint64_t va)
{
    TGPUTlbEntry *e;

    if (ctx->flags & TGPU_INST_FLAGS_PAGED) {
        QEMU_LOCK_GUARD(&s->mmu_lock);
        e = tlb_find(s, ctx->asid, va);
        if (e) {
            e->valid = false;
        }
        qatomic_set(&s->tlb_gen, s->tlb_gen + 1);
    }
}

/* Drop the entries of @asid (all ASIDs when negative) over [va, end). */
static void tlb_drop(TGPUState *s, int64_t asid, uint64_t va, uint64_t end)
{
    for (int i = 0; i < TGPU_TLB_SETS; i++) {
        for (int w = 0; w < TGPU_TLB_WAYS; w++) {
            TGPUTlbEntry *e = &s->tlb[i][w];
            unsigned int shift = e->large ? TGPU_LARGE_PAGE_SHIFT
                                          : TGPU_PAGE_SHIFT;
            uint64_t lo = e->vpn << shift, hi = lo + (1ull << shift);

            if (e->valid && (asid < 0 || e->asid == asid) &&
                lo < end && va < hi) {
                e->valid = false;
            }
        }
    }
    s->tlb_flushes++;
    qatomic_set(&s->tlb_gen, s->tlb_gen + 1);
}

void tgpu_mmu_invalidate(TGPUState *s, uint32_t asid, uint64_t va,
                         uint64_t pages)
{
    uint64_t end = pages ? va + pages * TGPU_PAGE_SIZE : TGPU_VA_LIMIT;

    trace_tgpu_mmu_invalidate(asid, va, pages);
    WITH_QEMU_LOCK_GUARD(&s->mmu_lock) {
        tlb_drop(s, asid, pages ? va : 0, end);
    }
    /* complete only when no engine still uses what was dropped */
    tgpu_engines_quiesce(s);
}

/* Untagged hardware must forget everything when the context changes. */
void tgpu_mmu_context_switch(TGPUState *s)
{
    if (!s->tlb_tagging) {
        QEMU_LOCK_GUARD(&s->mmu_lock);
        tlb_drop(s, -1, 0, TGPU_VA_LIMIT);
    }
}

/* ---- page walks ---- */

typedef struct Walk {
    uint64_t table[TGPU_MMU_LEVELS];
    uint64_t size[TGPU_MMU_LEVELS];
    int n;
} Walk;

/* Use the next table: it must lie in VRAM and overlap none used before. */
static bool walk_table(TGPUState *s, Walk *w, uint64_t addr, uint64_t size)
{
    if (addr % TGPU_PT_ALIGN || addr > s->vram_size ||
        s->vram_size - addr < size) {
        return false;
    }
    for (int i = 0; i < w->n; i++) {
        if (addr < w->table[i] + w->size[i] && w->table[i] < addr + size) {
            return false;
        }
    }
    w->table[w->n] = addr;
    w->size[w->n] = size;
    w->n++;
    return true;
}

/*
 * Read entry INDEX of TABLE (walk_table() checked it is in VRAM); false
 * for an uncorrectable ECC error in it.
 */
static bool walk_entry(TGPUState *s, const TGPUVmCtx *ctx, uint64_t table,
                       unsigned int index, uint64_t *e)
{
    *e = 0;
    if (tgpu_vram_read(s, table + index * 8ull, e, sizeof(*e),
                       TGPU_ECC_ENGINE_MMU, ctx->chid) == MEMTX_ERROR) {
        return false;
    }
    *e = le64_to_cpu(*e);
    return true;
}

/* A page entry's page must exist: VRAM pages inside VRAM. */
static int walk_page(TGPUState *s, uint64_t pte, uint64_t size)
{
    uint64_t pa = pte & TGPU_PTE_ADDR_MASK;

    if (pa % size) {
        return TGPU_FAULT_WALK;
    }
    if (!(pte & TGPU_PTE_SYSMEM) &&
        (pa > s->vram_size || s->vram_size - pa < size)) {
        return TGPU_FAULT_BAD_APERTURE;
    }
    return 0;
}

static int mmu_walk(TGPUState *s, const TGPUVmCtx *ctx, uint64_t va,
                    uint64_t *pte, bool *large)
{
    const uint64_t dir_bad = TGPU_PTE_RSVD_MASK | TGPU_PTE_SYSMEM |
                             TGPU_PTE_READ_ONLY | TGPU_PTE_PRIV;
    Walk w = { .n = 0 };
    uint64_t e;

    s->mmu_walks++;
    if (!walk_table(s, &w, ctx->pdb, TGPU_PD1_ENTRIES * 8)) {
        return TGPU_FAULT_WALK;
    }
    if (!walk_entry(s, ctx, ctx->pdb, TGPU_PD1_INDEX(va), &e)) {
        return TGPU_FAULT_ECC;
    }
    if (!(e & TGPU_PTE_VALID)) {
        return TGPU_FAULT_NOT_PRESENT;
    }
    if (e & (dir_bad | TGPU_PTE_LARGE) ||
        !walk_table(s, &w, e & TGPU_PTE_ADDR_MASK, TGPU_PD0_ENTRIES * 8)) {
        return TGPU_FAULT_WALK;
    }

    if (!walk_entry(s, ctx, w.table[1], TGPU_PD0_INDEX(va), &e)) {
        return TGPU_FAULT_ECC;
    }
    if (!(e & TGPU_PTE_VALID)) {
        return TGPU_FAULT_NOT_PRESENT;
    }
    if (e & TGPU_PTE_LARGE) {
        if (e & TGPU_PTE_RSVD_MASK) {
            return TGPU_FAULT_WALK;
        }
        *pte = e;
        *large = true;
        return walk_page(s, e, TGPU_LARGE_PAGE_SIZE);
    }
    if (e & dir_bad ||
        !walk_table(s, &w, e & TGPU_PTE_ADDR_MASK, TGPU_PT_ENTRIES * 8)) {
        return TGPU_FAULT_WALK;
    }

    if (!walk_entry(s, ctx, w.table[2], TGPU_PT_INDEX(va), &e)) {
        return TGPU_FAULT_ECC;
    }
    if (!(e & TGPU_PTE_VALID)) {
        return TGPU_FAULT_NOT_PRESENT;
    }
    if (e & (TGPU_PTE_RSVD_MASK | TGPU_PTE_LARGE)) {
        return TGPU_FAULT_WALK;
    }
    *pte = e;
    *large = false;
    return walk_page(s, e, TGPU_PAGE_SIZE);
}

/* ---- faults ---- */

void tgpu_mmu_report_fault(TGPUState *s, const TGPUVmCtx *ctx,
                           unsigned int engine, uint64_t va, bool is_write,
                           int type)
{
    uint64_t base = ((uint64_t)(s->fault_buf_hi & 0xff) << 32) |
                    (s->fault_buf_lo & ~0xfffu);
    bool in_sysmem = s->fault_buf_lo & TGPU_FAULT_BUF_SYSMEM;
    uint8_t rec[TGPU_FAULT_RECORD_SIZE] = { 0 };
    uint64_t at;
    bool ok = false;

    s->fault_count++;
    qemu_log_mask(LOG_GUEST_ERROR,
                  "tgpu: MMU fault: channel %u ASID %u %s %s at VA 0x%010"
                  PRIx64 ": %s\n", ctx->chid, ctx->asid,
                  engine_names[engine], is_write ? "write" : "read", va,
                  fault_names[type]);
    trace_tgpu_mmu_fault(ctx->chid, ctx->asid, engine, va, is_write, type);
    tgpu_qmp_mmu_fault_event(s, ctx, engine, va, is_write, fault_names[type]);

    if (s->fault_buf_size &&
        (s->fault_buf_put + 1) % s->fault_buf_size != s->fault_buf_get) {
        stq_le_p(rec + TGPU_FAULT_REC_VA, va);
        stq_le_p(rec + TGPU_FAULT_REC_TIMESTAMP, tgpu_ptimer_now(s));
        stl_le_p(rec + TGPU_FAULT_REC_ASID, ctx->asid);
        stl_le_p(rec + TGPU_FAULT_REC_CHID, ctx->chid);
        rec[TGPU_FAULT_REC_ENGINE] = engine;
        rec[TGPU_FAULT_REC_ACCESS] = is_write ? TGPU_FAULT_ACCESS_WRITE
                                              : TGPU_FAULT_ACCESS_READ;
        rec[TGPU_FAULT_REC_TYPE] = type;
        rec[TGPU_FAULT_REC_VALID] = 1;
        at = base + (uint64_t)s->fault_buf_put * TGPU_FAULT_RECORD_SIZE;
        ok = in_sysmem ? fault_record_write(s, at, rec, sizeof(rec))
                       : tgpu_vram_write(s, at, rec, sizeof(rec));
    }
    if (ok) {
        s->fault_buf_put = (s->fault_buf_put + 1) % s->fault_buf_size;
        s->mmu_intr |= TGPU_MMU_INTR_FAULT;
    } else if (s->fault_buf_size &&
               (s->fault_buf_put + 1) % s->fault_buf_size != s->fault_buf_get) {
        /* room in the ring, but its address is not writable */
        qemu_log_mask(LOG_GUEST_ERROR,
                      "tgpu: MMU fault record dropped: the fault buffer's "
                      "slot at %s 0x%010" PRIx64 " is %s\n",
                      in_sysmem ? "system-memory address" : "VRAM offset",
                      at, in_sysmem ? "not guest RAM" : "beyond VRAM");
        trace_tgpu_mmu_fault_record_dropped(at, in_sysmem);
        s->mmu_intr |= TGPU_MMU_INTR_OVERFLOW;
    } else {
        s->mmu_intr |= TGPU_MMU_INTR_OVERFLOW;
    }
    tgpu_irq_raise(s, TGPU_UNIT_MMU);
}

/* ---- translation ---- */

/*
 * Where @va goes: the physical address, its aperture, and how many bytes
 * from there on the same translation holds.  0, or the fault type.
 */
typedef struct Xlate {
    uint64_t pa;
    bool sysmem;
    uint64_t avail;             /* bytes from pa on with this translation */
    bool fill;                  /* a walk found it: fill once it worked */
    bool large;
    uint64_t pte;
} Xlate;

static int mmu_translate(TGPUState *s, const TGPUVmCtx *ctx,
                         TGPUAccessor who, uint64_t va, bool is_write,
                         Xlate *x)
{
    TGPUTlbEntry *e;
    uint64_t pte, size;
    bool large;
    int fault;

    x->fill = false;
    if (!(ctx->flags & TGPU_INST_FLAGS_PAGED)) {
        x->sysmem = va >= TGPU_BYPASS_SYSMEM_BASE;
        if (!x->sysmem && va >= s->vram_size) {
            return TGPU_FAULT_BAD_APERTURE;
        }
        x->pa = x->sysmem ? va - TGPU_BYPASS_SYSMEM_BASE : va;
        x->avail = (x->sysmem ? TGPU_VA_LIMIT : s->vram_size) - va;
        return 0;
    }

    e = tlb_find(s, ctx->asid, va);
    if (e) {
        s->tlb_hits++;
        pte = e->pte;
        large = e->large;
    } else {
        s->tlb_misses++;
        fault = mmu_walk(s, ctx, va, &pte, &large);
        if (fault) {
            return fault;
        }
    }
    if (is_write && (pte & TGPU_PTE_READ_ONLY)) {
        return TGPU_FAULT_READ_ONLY;
    }
    if ((pte & TGPU_PTE_PRIV) && who != TGPU_ACC_FETCH &&
        !(ctx->flags & TGPU_INST_FLAGS_PRIV)) {
        return TGPU_FAULT_PRIVILEGE;
    }
    size = large ? TGPU_LARGE_PAGE_SIZE : TGPU_PAGE_SIZE;
    x->pa = (pte & TGPU_PTE_ADDR_MASK) | (va & (size - 1));
    x->sysmem = pte & TGPU_PTE_SYSMEM;
    x->avail = size - (va & (size - 1));
    x->fill = !e;
    x->large = large;
    x->pte = pte;
    return 0;
}

/*
 * The host unit's access to @ch's address space: MEMTX_OK; or
 * MEMTX_DECODE_ERROR after an MMU fault (reported here); or, reading,
 * MEMTX_ERROR for an uncorrectable ECC error (the ECC unit has it).
 */
MemTxResult tgpu_gpu_rw(TGPUState *s, TGPUChannel *ch, TGPUAccessor who,
                        uint64_t va, void *buf, uint64_t len, bool is_write)
{
    TGPUVmCtx ctx = tgpu_chan_vm(ch);
    uint8_t *p = buf;

    if (va >= TGPU_VA_LIMIT || len > TGPU_VA_LIMIT - va) {
        tgpu_mmu_report_fault(s, &ctx, TGPU_FAULT_ENGINE_HOST, va, is_write,
                              TGPU_FAULT_BAD_APERTURE);
        return MEMTX_DECODE_ERROR;
    }
    while (len) {
        uint64_t n;
        Xlate x;
        bool ok;
        int fault;

        WITH_QEMU_LOCK_GUARD(&s->mmu_lock) {
            fault = mmu_translate(s, &ctx, who, va, is_write, &x);
        }
        if (fault) {
            tgpu_mmu_report_fault(s, &ctx, TGPU_FAULT_ENGINE_HOST, va,
                                  is_write, fault);
            return MEMTX_DECODE_ERROR;
        }
        n = MIN(len, x.avail);
        if (x.sysmem) {
            ok = tgpu_sysmem_rw(s, x.pa, p, n, is_write);
        } else if (is_write) {
            ok = tgpu_vram_write(s, x.pa, p, n);
        } else {
            MemTxResult r = tgpu_vram_read(s, x.pa, p, n,
                                           TGPU_ECC_ENGINE_HOST, ctx.chid);

            /* poisoned data: the caller fails the channel, no fault */
            if (r == MEMTX_ERROR) {
                return MEMTX_ERROR;
            }
            ok = r == MEMTX_OK;
        }
        if (!ok) {
            tgpu_mmu_forget(s, &ctx, va);
            tgpu_mmu_report_fault(s, &ctx, TGPU_FAULT_ENGINE_HOST, va,
                                  is_write, TGPU_FAULT_BAD_APERTURE);
            return MEMTX_DECODE_ERROR;
        }
        /* faults are never cached: only an access that worked fills */
        if (x.fill) {
            QEMU_LOCK_GUARD(&s->mmu_lock);
            tlb_fill(s, ctx.asid, va, x.large, x.pte);
        }
        va += n;
        p += n;
        len -= n;
    }
    return MEMTX_OK;
}

/*
 * For an engine thread: translate [va, va + max) as far as it maps to one
 * physically contiguous run of one aperture, page by page through the
 * TLB.  Entries are filled as they are found; an engine whose access then
 * fails drops the entry again with tgpu_mmu_forget().  Returns 0 with the
 * run in *pa, *sysmem and *len (at least one byte), or the fault type of
 * @va.  A fault further on only ends the run there.
 */
int tgpu_mmu_translate_run(TGPUState *s, const TGPUVmCtx *ctx,
                           TGPUAccessor who, uint64_t va, uint64_t max,
                           bool is_write, uint64_t *pa, bool *sysmem,
                           uint64_t *len)
{
    uint64_t done = 0;
    Xlate x;
    int fault = TGPU_FAULT_BAD_APERTURE;

    if (va >= TGPU_VA_LIMIT) {
        return TGPU_FAULT_BAD_APERTURE;
    }
    max = MIN(max, TGPU_VA_LIMIT - va);

    /*
     * A batch of pages per lock: few lock round trips for the engines,
     * and the host unit never waits for more than a batch.
     */
    qemu_mutex_lock(&s->mmu_lock);
    for (unsigned int n = 1; done < max; n++) {
        fault = mmu_translate(s, ctx, who, va + done, is_write, &x);
        if (fault) {
            break;
        }
        if (x.fill) {
            /* the page that ends a run starts the next: keep it too */
            tlb_fill(s, ctx->asid, va + done, x.large, x.pte);
        }
        if (!done) {
            *pa = x.pa;
            *sysmem = x.sysmem;
        } else if (x.pa != *pa + done || x.sysmem != *sysmem) {
            break;
        }
        done += MIN(x.avail, max - done);
        if (n % TGPU_MMU_RUN_BATCH == 0) {
            qemu_mutex_unlock(&s->mmu_lock);
            qemu_mutex_lock(&s->mmu_lock);
        }
    }
    qemu_mutex_unlock(&s->mmu_lock);
    if (!done) {
        return fault;
    }
    *len = done;
    return 0;
}

/* ---- registers ---- */

uint32_t tgpu_mmu_read(TGPUState *s, hwaddr addr, bool *ok)
{
    QEMU_LOCK_GUARD(&s->mmu_lock);

    *ok = true;
    switch (addr) {
    case TGPU_MMU_INTR:
        return s->mmu_intr;
    case TGPU_MMU_INTR_EN:
        return s->mmu_intr_en;
    case TGPU_MMU_FAULT_BUF_LO:
        return s->fault_buf_lo;
    case TGPU_MMU_FAULT_BUF_HI:
        return s->fault_buf_hi;
    case TGPU_MMU_FAULT_BUF_SIZE:
        return s->fault_buf_size;
    case TGPU_MMU_FAULT_BUF_GET:
        return s->fault_buf_get;
    case TGPU_MMU_FAULT_BUF_PUT:
        return s->fault_buf_put;
    case TGPU_MMU_FAULT_COUNT:
        return s->fault_count;
    case TGPU_MMU_INVALIDATE_ASID:
        return s->inv_asid;
    case TGPU_MMU_INVALIDATE_VA_LO:
        return s->inv_va_lo;
    case TGPU_MMU_INVALIDATE_VA_HI:
        return s->inv_va_hi;
    case TGPU_MMU_INVALIDATE_PAGES:
        return s->inv_pages;
    case TGPU_MMU_INVALIDATE:
        return 0;
    case TGPU_MMU_TLB_SETS:
        return TGPU_TLB_SETS;
    case TGPU_MMU_TLB_WAYS:
        return TGPU_TLB_WAYS;
    case TGPU_MMU_TLB_HITS:
        return s->tlb_hits;
    case TGPU_MMU_TLB_MISSES:
        return s->tlb_misses;
    case TGPU_MMU_TLB_FILLS:
        return s->tlb_fills;
    case TGPU_MMU_TLB_FLUSHES:
        return s->tlb_flushes;
    case TGPU_MMU_TLB_EVICTIONS:
        return s->tlb_evictions;
    case TGPU_MMU_WALKS:
        return s->mmu_walks;
    case TGPU_MMU_CTRL:
        return s->tlb_tagging ? TGPU_MMU_CTRL_TLB_TAGGED : 0;
    }
    *ok = false;
    return TGPU_REG_BADF;
}

bool tgpu_mmu_write(TGPUState *s, hwaddr addr, uint32_t val)
{
    uint64_t va;

    switch (addr) {
    case TGPU_MMU_INTR:
        s->mmu_intr &= ~val;
        tgpu_irq_update(s);
        return true;
    case TGPU_MMU_INTR_EN:
        s->mmu_intr_en = val & (TGPU_MMU_INTR_FAULT | TGPU_MMU_INTR_OVERFLOW);
        tgpu_irq_update(s);
        return true;
    case TGPU_MMU_FAULT_BUF_LO:
        s->fault_buf_lo = val & (~0xfffu | TGPU_FAULT_BUF_SYSMEM);
        return true;
    case TGPU_MMU_FAULT_BUF_HI:
        s->fault_buf_hi = val & 0xff;
        return true;
    case TGPU_MMU_FAULT_BUF_SIZE:
        if (val > TGPU_FAULT_BUF_SIZE_MAX) {
            qemu_log_mask(LOG_GUEST_ERROR, "tgpu: fault buffer of %u "
                          "entries refused (at most %u)\n", val,
                          TGPU_FAULT_BUF_SIZE_MAX);
            return true;
        }
        s->fault_buf_size = val;
        s->fault_buf_get = 0;
        s->fault_buf_put = 0;
        return true;
    case TGPU_MMU_FAULT_BUF_GET:
        if (val >= MAX(s->fault_buf_size, 1)) {
            qemu_log_mask(LOG_GUEST_ERROR, "tgpu: fault buffer GET %u "
                          "beyond its %u entries, ignored\n", val,
                          s->fault_buf_size);
            return true;
        }
        s->fault_buf_get = val;
        return true;
    case TGPU_MMU_INVALIDATE_ASID:
        s->inv_asid = val & 0xffff;
        return true;
    case TGPU_MMU_INVALIDATE_VA_LO:
        s->inv_va_lo = val & ~0xfffu;
        return true;
    case TGPU_MMU_INVALIDATE_VA_HI:
        s->inv_va_hi = val & 0xff;
        return true;
    case TGPU_MMU_INVALIDATE_PAGES:
        s->inv_pages = val;
        return true;
    case TGPU_MMU_INVALIDATE:
        va = (uint64_t)s->inv_va_hi << 32 | s->inv_va_lo;
        switch (val) {
        case TGPU_MMU_INV_ALL:
            trace_tgpu_mmu_invalidate(0xffffffff, 0, 0);
            WITH_QEMU_LOCK_GUARD(&s->mmu_lock) {
                tlb_drop(s, -1, 0, TGPU_VA_LIMIT);
            }
            tgpu_engines_quiesce(s);
            return true;
        case TGPU_MMU_INV_ASID:
            tgpu_mmu_invalidate(s, s->inv_asid, 0, 0);
            return true;
        case TGPU_MMU_INV_RANGE:
            if (s->inv_pages) {
                tgpu_mmu_invalidate(s, s->inv_asid, va, s->inv_pages);
            }
            return true;
        }
        return false;
    }
    return false;
}

/* ---- migration ---------------------------------------------------------- */

/* The TLB is not migrated: it starts empty, as after a full flush. */
static int mmu_post_load(void *opaque, int version_id)
{
    TGPUState *s = opaque;

    if (s->fault_buf_size > TGPU_FAULT_BUF_SIZE_MAX ||
        (s->fault_buf_size && (s->fault_buf_get >= s->fault_buf_size ||
                               s->fault_buf_put >= s->fault_buf_size))) {
        error_report("tgpu: migrated MMU fault buffer is out of range");
        return -EINVAL;
    }
    QEMU_LOCK_GUARD(&s->mmu_lock);
    memset(s->tlb, 0, sizeof(s->tlb));
    memset(s->tlb_victim, 0, sizeof(s->tlb_victim));
    s->tlb_gen++;
    return 0;
}

const VMStateDescription tgpu_vmstate_mmu = {
    .name = "tgpu/mmu",
    .version_id = 1,
    .minimum_version_id = 1,
    .post_load = mmu_post_load,
    .fields = (const VMStateField[]) {
        VMSTATE_UINT32(mmu_intr, TGPUState),
        VMSTATE_UINT32(mmu_intr_en, TGPUState),
        VMSTATE_UINT32(fault_buf_lo, TGPUState),
        VMSTATE_UINT32(fault_buf_hi, TGPUState),
        VMSTATE_UINT32(fault_buf_size, TGPUState),
        VMSTATE_UINT32(fault_buf_get, TGPUState),
        VMSTATE_UINT32(fault_buf_put, TGPUState),
        VMSTATE_UINT32(fault_count, TGPUState),
        VMSTATE_UINT32(inv_asid, TGPUState),
        VMSTATE_UINT32(inv_va_lo, TGPUState),
        VMSTATE_UINT32(inv_va_hi, TGPUState),
        VMSTATE_UINT32(inv_pages, TGPUState),
        VMSTATE_UINT32(tlb_hits, TGPUState),
        VMSTATE_UINT32(tlb_misses, TGPUState),
        VMSTATE_UINT32(tlb_fills, TGPUState),
        VMSTATE_UINT32(tlb_flushes, TGPUState),
        VMSTATE_UINT32(tlb_evictions, TGPUState),
        VMSTATE_UINT32(mmu_walks, TGPUState),
        VMSTATE_END_OF_LIST()
    },
};

void tgpu_mmu_reset(TGPUState *s)
{
    QEMU_LOCK_GUARD(&s->mmu_lock);

    memset(s->tlb, 0, sizeof(s->tlb));
    memset(s->tlb_victim, 0, sizeof(s->tlb_victim));
    s->mmu_intr = 0;
    s->mmu_intr_en = 0;
    s->fault_buf_lo = 0;
    s->fault_buf_hi = 0;
    s->fault_buf_size = 0;
    s->fault_buf_get = 0;
    s->fault_buf_put = 0;
    s->fault_count = 0;
    s->inv_asid = 0;
    s->inv_va_lo = 0;
    s->inv_va_hi = 0;
    s->inv_pages = 0;
    s->tlb_hits = 0;
    s->tlb_misses = 0;
    s->tlb_fills = 0;
    s->tlb_flushes = 0;
    s->tlb_evictions = 0;
    s->mmu_walks = 0;
}

void tgpu_mmu_init(TGPUState *s)
{
    qemu_mutex_init(&s->mmu_lock);
}

void tgpu_mmu_exit(TGPUState *s)
{
    qemu_mutex_destroy(&s->mmu_lock);
}
