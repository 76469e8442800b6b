/* SPDX-License-Identifier: MIT */
/*
 * tgpu hardware contract: the GPU MMU.
 *
 * Page-table format, MMU registers, TLB geometry and the fault-buffer
 * record.  docs/hw/mmu.md is the manual.  Same rules as regs.h: no libc.
 */
#ifndef TGPU_MMU_H
#define TGPU_MMU_H

/* ---- page tables: three levels in VRAM, 40-bit virtual addresses -------- */

/*
 *   VA [39:30] -> PD1 (1024 entries, 8 KiB)
 *   VA [29:21] -> PD0 (512 entries, 4 KiB), or a 2 MiB page
 *   VA [20:12] -> PT  (512 entries, 4 KiB) -> a 4 KiB page
 *
 * The instance block's PDB is the VRAM address of the PD1 table.
 */
#define TGPU_MMU_LEVELS             3
#define TGPU_PAGE_SHIFT             12
#define TGPU_PAGE_SIZE              (1ull << TGPU_PAGE_SHIFT)
#define TGPU_LARGE_PAGE_SHIFT       21
#define TGPU_LARGE_PAGE_SIZE        (1ull << TGPU_LARGE_PAGE_SHIFT)
#define TGPU_PD1_SHIFT              30
#define TGPU_PD1_ENTRIES            1024
#define TGPU_PD0_SHIFT              21
#define TGPU_PD0_ENTRIES            512
#define TGPU_PT_SHIFT               12
#define TGPU_PT_ENTRIES             512
#define TGPU_PDB_ALIGN              8192
#define TGPU_PT_ALIGN               4096

#define TGPU_VA_BITS                40      /* PD1's 1024 entries of 1 GiB */
#define TGPU_ASID_COUNT             0x10000u /* an ASID has 16 bits */

#define TGPU_PD1_INDEX(va)          (((va) >> TGPU_PD1_SHIFT) & 0x3ffu)
#define TGPU_PD0_INDEX(va)          (((va) >> TGPU_PD0_SHIFT) & 0x1ffu)
#define TGPU_PT_INDEX(va)           (((va) >> TGPU_PT_SHIFT) & 0x1ffu)

/*
 * Entries are 64 bits.  A directory entry (PD1, or PD0 without LARGE)
 * points at the next table, which is always in VRAM.  A PTE (PT, or PD0
 * with LARGE) maps a page in VRAM or system memory.
 */
#define TGPU_PTE_VALID              (1ull << 0)
#define TGPU_PTE_SYSMEM             (1ull << 1)   /* aperture: system memory */
#define TGPU_PTE_READ_ONLY          (1ull << 2)
#define TGPU_PTE_PRIV               (1ull << 3)   /* fetches, PRIV channels */
#define TGPU_PTE_LARGE              (1ull << 4)   /* PD0 only: a 2 MiB page */
#define TGPU_PTE_ADDR_MASK          0x000ffffffffff000ull /* [51:12] */
#define TGPU_PTE_RSVD_MASK          0xfff0000000000fe0ull /* must be 0 */

/* ---- MMU registers (BAR0) ------------------------------------------------ */

#define TGPU_MMU_BASE               0x00a000u
#define TGPU_MMU_SIZE               0x1000u
#define TGPU_MMU_INTR               0x00a000u   /* R/W1C */
#define   TGPU_MMU_INTR_FAULT       (1u << 0)   /* a fault was recorded */
#define   TGPU_MMU_INTR_OVERFLOW    (1u << 1)   /* a fault was dropped */
#define TGPU_MMU_INTR_EN            0x00a004u
/* fault buffer: a ring of TGPU_FAULT_RECORD_SIZE records */
#define TGPU_MMU_FAULT_BUF_LO       0x00a010u   /* [31:12] addr, [0] sysmem */
#define TGPU_MMU_FAULT_BUF_HI       0x00a014u   /* address [39:32] */
#define   TGPU_FAULT_BUF_SYSMEM     (1u << 0)
#define TGPU_MMU_FAULT_BUF_SIZE     0x00a018u   /* entries; 0: disabled */
#define   TGPU_FAULT_BUF_SIZE_MAX   65536
#define TGPU_MMU_FAULT_BUF_GET      0x00a01cu   /* RW, software consumes */
#define TGPU_MMU_FAULT_BUF_PUT      0x00a020u   /* RO, hardware produces */
#define TGPU_MMU_FAULT_COUNT        0x00a024u   /* faults since reset */
/* TLB invalidation: write the operation to INVALIDATE */
#define TGPU_MMU_INVALIDATE_ASID    0x00a030u
#define TGPU_MMU_INVALIDATE_VA_LO   0x00a034u   /* [31:12] */
#define TGPU_MMU_INVALIDATE_VA_HI   0x00a038u
#define TGPU_MMU_INVALIDATE_PAGES   0x00a03cu
#define TGPU_MMU_INVALIDATE         0x00a040u
#define   TGPU_MMU_INV_ALL          1
#define   TGPU_MMU_INV_ASID         2
#define   TGPU_MMU_INV_RANGE        3           /* ASID + VA + pages */
/* TLB geometry and counters (RO; counters reset with the device) */
#define TGPU_MMU_TLB_SETS           0x00a080u
#define TGPU_MMU_TLB_WAYS           0x00a084u
#define TGPU_MMU_TLB_HITS           0x00a088u
#define TGPU_MMU_TLB_MISSES         0x00a08cu
#define TGPU_MMU_TLB_FILLS          0x00a090u
#define TGPU_MMU_TLB_FLUSHES        0x00a094u
#define TGPU_MMU_TLB_EVICTIONS      0x00a098u
#define TGPU_MMU_WALKS              0x00a09cu
#define TGPU_MMU_CTRL               0x00a0a0u   /* RO: bit 0 tagging on */
#define   TGPU_MMU_CTRL_TLB_TAGGED  (1u << 0)

#define TGPU_TLB_SETS               64
#define TGPU_TLB_WAYS               8

/* ---- the fault record (32 bytes, little-endian) ------------------------- */

#define TGPU_FAULT_RECORD_SIZE      32
#define TGPU_FAULT_REC_VA           0x00    /* u64 */
#define TGPU_FAULT_REC_TIMESTAMP    0x08    /* u64, PTIMER */
#define TGPU_FAULT_REC_ASID         0x10    /* u32 */
#define TGPU_FAULT_REC_CHID         0x14    /* u32 */
#define TGPU_FAULT_REC_ENGINE       0x18    /* u8: TGPU_FAULT_ENGINE_* */
#define TGPU_FAULT_REC_ACCESS       0x19    /* u8: TGPU_FAULT_ACCESS_* */
#define TGPU_FAULT_REC_TYPE         0x1a    /* u8: TGPU_FAULT_* */
#define TGPU_FAULT_REC_VALID        0x1b    /* u8: 1 */

#define TGPU_FAULT_ENGINE_HOST      0       /* fetches and semaphores */
#define TGPU_FAULT_ENGINE_COMPUTE   1
#define TGPU_FAULT_ENGINE_CE0       2
#define TGPU_FAULT_ENGINE_CE1       3

#define TGPU_FAULT_ACCESS_READ      0
#define TGPU_FAULT_ACCESS_WRITE     1

#define TGPU_FAULT_NOT_PRESENT      1
#define TGPU_FAULT_READ_ONLY        2   /* write to a read-only page */
#define TGPU_FAULT_PRIVILEGE        3
#define TGPU_FAULT_BAD_APERTURE     4   /* VRAM page beyond VRAM, etc. */
#define TGPU_FAULT_WALK             5   /* table outside VRAM, bad entry */
#define TGPU_FAULT_ECC              6   /* uncorrectable ECC error in a table */

#endif /* TGPU_MMU_H */
