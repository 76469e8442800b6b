/* SPDX-License-Identifier: MIT */
/*
 * tgpu hardware contract: channels and the command stream.
 *
 * In-memory formats read by the host unit (instance block, USERD, GPFIFO
 * entries, runlists), the pushbuffer method header, the host methods and
 * the channel error codes.  Modelled on NVIDIA's public GPFIFO class
 * (open-gpu-doc clc36f.h) so that Pascal/Volta programmers recognise it;
 * docs/hw/channels.md is the manual.  Same rules as regs.h: no libc.
 */
#ifndef TGPU_CHANNEL_H
#define TGPU_CHANNEL_H

#include "copy.h"   /* TGPU_CE_ERR_*, for tgpu_chan_error_xid() */
#include "isa.h"    /* TGPU_KERR_* */

/* ---- GPU addresses ----------------------------------------------------- */

/*
 * GPU virtual addresses are 40 bits.  A channel without page tables
 * (instance FLAGS.PAGED = 0) runs in bypass mode: addresses below
 * TGPU_BYPASS_SYSMEM_BASE are VRAM offsets, addresses from it up are
 * system (guest physical) memory at (address - TGPU_BYPASS_SYSMEM_BASE),
 * reached by PCI DMA.
 */
#define TGPU_VA_BITS                40
#define TGPU_VA_LIMIT               (1ull << TGPU_VA_BITS)
#define TGPU_BYPASS_SYSMEM_BASE     (1ull << 39)

/* ---- instance block (in VRAM, TGPU_INST_ALIGN aligned) ------------------ */

#define TGPU_INST_ALIGN             4096
#define TGPU_INST_SIZE              4096
#define TGPU_INST_FLAGS             0x00    /* u32 */
#define   TGPU_INST_FLAGS_PAGED     (1u << 0)   /* page tables (MMU) */
#define   TGPU_INST_FLAGS_PRIV      (1u << 1)   /* the KMD's own channel */
#define TGPU_INST_ASID              0x04    /* u32 */
#define TGPU_INST_PDB               0x08    /* u64, page-directory base */
#define TGPU_INST_GPFIFO_BASE       0x10    /* u64 GPU VA, 8-byte aligned */
#define TGPU_INST_GPFIFO_LOG2       0x18    /* u32 log2(entries) */
#define   TGPU_GPFIFO_LOG2_MIN      1
#define   TGPU_GPFIFO_LOG2_MAX      20
#define TGPU_INST_ENGINE            0x1c    /* u32 TGPU_RUNLIST_* */
#define TGPU_INST_USERD             0x20    /* u64 GPU VA, 512-byte aligned */
#define   TGPU_USERD_ALIGN          512
#define TGPU_INST_PRIORITY          0x28    /* u32 0 (lowest) .. 3 */
#define   TGPU_PRIORITY_MAX         3
#define TGPU_INST_TIMESLICE_US      0x2c    /* u32, 0: default */
#define   TGPU_TIMESLICE_DEFAULT_US 1000
#define   TGPU_TIMESLICE_MAX_US     1000000
#define TGPU_INST_ACQ_TIMEOUT_US    0x30    /* u32, 0: never */
#define   TGPU_ACQ_TIMEOUT_MAX_US   100000000
/* the bytes the fields above take; the rest of the block is reserved (0) */
#define TGPU_INST_FIELDS_SIZE       0x34

/* An instance block's fields, for tgpu_inst_encode(). */
struct tgpu_inst {
    unsigned int flags;             /* TGPU_INST_FLAGS_* */
    unsigned int asid;
    unsigned long long pdb;
    unsigned long long gpfifo_base;
    unsigned int gpfifo_log2;
    unsigned int engine;            /* TGPU_RUNLIST_* */
    unsigned long long userd;
    unsigned int priority, timeslice_us, acq_timeout_us;
};

static inline void tgpu_put_le32_(unsigned char *p, unsigned int v)
{
    p[0] = v;
    p[1] = v >> 8;
    p[2] = v >> 16;
    p[3] = v >> 24;
}

/*
 * The first TGPU_INST_FIELDS_SIZE bytes of the instance block of IN, as
 * the device reads them (little-endian), at P: the only place that lays
 * an instance block out.
 */
static inline void tgpu_inst_encode(unsigned char *p,
                                    const struct tgpu_inst *in)
{
    tgpu_put_le32_(p + TGPU_INST_FLAGS, in->flags);
    tgpu_put_le32_(p + TGPU_INST_ASID, in->asid);
    tgpu_put_le32_(p + TGPU_INST_PDB, (unsigned int)in->pdb);
    tgpu_put_le32_(p + TGPU_INST_PDB + 4, (unsigned int)(in->pdb >> 32));
    tgpu_put_le32_(p + TGPU_INST_GPFIFO_BASE, (unsigned int)in->gpfifo_base);
    tgpu_put_le32_(p + TGPU_INST_GPFIFO_BASE + 4,
                   (unsigned int)(in->gpfifo_base >> 32));
    tgpu_put_le32_(p + TGPU_INST_GPFIFO_LOG2, in->gpfifo_log2);
    tgpu_put_le32_(p + TGPU_INST_ENGINE, in->engine);
    tgpu_put_le32_(p + TGPU_INST_USERD, (unsigned int)in->userd);
    tgpu_put_le32_(p + TGPU_INST_USERD + 4, (unsigned int)(in->userd >> 32));
    tgpu_put_le32_(p + TGPU_INST_PRIORITY, in->priority);
    tgpu_put_le32_(p + TGPU_INST_TIMESLICE_US, in->timeslice_us);
    tgpu_put_le32_(p + TGPU_INST_ACQ_TIMEOUT_US, in->acq_timeout_us);
}

/* Runlists, one per engine; also the instance block's ENGINE values. */
#define TGPU_RUNLIST_COMPUTE        0
#define TGPU_RUNLIST_CE0            1
#define TGPU_RUNLIST_CE1            2
#define TGPU_NR_RUNLISTS            3

/* ---- USERD: the channel's user-visible control page (as clc36f) -------- */

#define TGPU_USERD_SIZE             512
#define TGPU_USERD_GP_GET           0x88    /* u32, written by the device */
#define TGPU_USERD_GP_PUT           0x8c    /* u32, written by software */

/* ---- GPFIFO entries (8 bytes, as NVC36F_GP_ENTRY0/1) ------------------- */

#define TGPU_GP_ENTRY_SIZE          8
/* entry0: [1:0] reserved (0), [31:2] address[31:2] */
#define TGPU_GP_ENTRY0_ADDR_MASK    0xfffffffcu
/* entry1: [7:0] address[39:32], [30:10] length in dwords, [31] sync */
#define TGPU_GP_ENTRY1_ADDR_HI_MASK 0xffu
#define TGPU_GP_ENTRY1_LENGTH_SHIFT 10
#define TGPU_GP_ENTRY1_LENGTH_MASK  0x1fffffu
#define TGPU_GP_ENTRY1_SYNC         (1u << 31)
#define TGPU_GP_ENTRY1_RSVD_MASK    0x00000300u
/* length 0: a control entry, opcode in entry1[7:0] */
#define TGPU_GP_CONTROL_NOP         0

#define TGPU_GP_ENTRY(va, ndw, sync) \
    ((unsigned long long)(((va) & TGPU_GP_ENTRY0_ADDR_MASK) | \
     ((unsigned long long)((((va) >> 32) & TGPU_GP_ENTRY1_ADDR_HI_MASK) | \
      ((unsigned int)(ndw) << TGPU_GP_ENTRY1_LENGTH_SHIFT) | \
      ((sync) ? TGPU_GP_ENTRY1_SYNC : 0u)) << 32)))

/* ---- runlist: an array of u32 channel IDs in VRAM ---------------------- */

#define TGPU_RUNLIST_ENTRY_SIZE     4

/* ---- pushbuffer method headers (as NVIDIA's NV_FIFO_DMA_*) ------------- */

#define TGPU_PB_OP_SHIFT            29
#define TGPU_PB_OP_INC              1   /* method, method+4, ... */
#define TGPU_PB_OP_NON_INC          3   /* the same method count times */
#define TGPU_PB_OP_IMMD             4   /* one method, 13-bit data inline */
#define TGPU_PB_OP_ONE_INC          5   /* method, then method+4 for the rest */
#define TGPU_PB_COUNT_SHIFT         16
#define TGPU_PB_COUNT_MASK          0x1fffu
#define TGPU_PB_SUBCH_SHIFT         13
#define TGPU_PB_SUBCH_MASK          0x7u
#define TGPU_PB_METHOD_MASK         0xfffu  /* method address >> 2 */
#define TGPU_PB_NR_SUBCH            8

#define TGPU_PB_HDR(op, subch, method, count) \
    ((unsigned int)(op) << TGPU_PB_OP_SHIFT | \
     ((unsigned int)(count) & TGPU_PB_COUNT_MASK) << TGPU_PB_COUNT_SHIFT | \
     ((unsigned int)(subch) & TGPU_PB_SUBCH_MASK) << TGPU_PB_SUBCH_SHIFT | \
     (((unsigned int)(method) >> 2) & TGPU_PB_METHOD_MASK))

/* ---- host methods (any subchannel, method < 0x100), as clc36f ----------- */

#define TGPU_HOST_METHOD_LIMIT      0x100
/*
 * The host methods, X(NAME, method): TGPU_M_<NAME>.  This table is the
 * list: the device's decoder, libtgpu's command-buffer checker, the
 * KMD's debugfs and the tests take the names and addresses from it.
 */
#define TGPU_HOST_METHODS(X) \
    X(SET_OBJECT,           0x0000) /* [15:0] class */ \
    X(NOP,                  0x0008) \
    X(NON_STALL_INTERRUPT,  0x0020) \
    X(MEM_OP_A,             0x0028) \
    X(MEM_OP_B,             0x002c) \
    X(MEM_OP_C,             0x0030) \
    X(MEM_OP_D,             0x0034) /* [31:27] operation: runs it */ \
    X(SEM_ADDR_LO,          0x005c) /* [31:2] address[31:2] */ \
    X(SEM_ADDR_HI,          0x0060) /* [7:0] address[39:32] */ \
    X(SEM_PAYLOAD_LO,       0x0064) \
    X(SEM_PAYLOAD_HI,       0x0068) \
    X(SEM_EXECUTE,          0x006c) /* runs the semaphore operation */ \
    X(WFI,                  0x0078) \
    X(YIELD,                0x0080)

enum {
#define TGPU_M_ENUM_(name, mthd) TGPU_M_##name = (mthd),
    TGPU_HOST_METHODS(TGPU_M_ENUM_)
#undef TGPU_M_ENUM_
};

/* The name of host method MTHD, or 0 (NULL) if there is none. */
static inline const char *tgpu_host_method_name(unsigned int mthd)
{
    switch (mthd) {
#define TGPU_M_NAME_(name, m) case (m): return #name;
    TGPU_HOST_METHODS(TGPU_M_NAME_)
#undef TGPU_M_NAME_
    }
    return 0;
}

#define   TGPU_MEM_OP_SHIFT         27
#define   TGPU_MEM_OP_MEMBAR        0x05
#define   TGPU_MEM_OP_TLB_INVALIDATE        0x09    /* all of this ASID */
#define   TGPU_MEM_OP_TLB_INVALIDATE_RANGE  0x0a    /* A: VA>>12, B: pages */
/* privileged channels only: another address space's entries */
#define   TGPU_MEM_OP_TLB_INVALIDATE_ASID   0x0b    /* C: ASID */
#define   TGPU_MEM_OP_TLB_INVALIDATE_ASID_RANGE 0x0c /* A, B as RANGE; C */
#define TGPU_M_SEM_ADDR_LO          0x005c  /* [31:2] address[31:2] */
#define TGPU_M_SEM_ADDR_HI          0x0060  /* [7:0] address[39:32] */
#define TGPU_M_SEM_PAYLOAD_LO       0x0064
#define TGPU_M_SEM_PAYLOAD_HI       0x0068
#define TGPU_M_SEM_EXECUTE          0x006c  /* runs the semaphore operation */
#define   TGPU_SEM_OP_MASK          0x7u
#define   TGPU_SEM_OP_ACQUIRE       0   /* wait until *addr == payload */
#define   TGPU_SEM_OP_RELEASE       1   /* *addr = payload */
#define   TGPU_SEM_OP_ACQ_GEQ       2   /* wait until *addr >= payload */
#define   TGPU_SEM_RELEASE_WFI      (1u << 20)
#define   TGPU_SEM_PAYLOAD_64       (1u << 24)
#define   TGPU_SEM_TIMESTAMP        (1u << 25)  /* release: ns at addr + 8 */
/*
 * A semaphore operation is one INC run over ADDR_LO..EXECUTE:
 * TGPU_SEM_DWORDS dwords.  tgpu_pb_sem() writes them at P (the only
 * place that encodes it) and returns how many it wrote; EXEC is the
 * SEM_EXECUTE word: TGPU_SEM_OP_* with its flags.
 */
#define TGPU_SEM_DWORDS             6

static inline unsigned int tgpu_pb_sem(unsigned int *p,
                                       unsigned long long addr,
                                       unsigned long long payload,
                                       unsigned int exec)
{
    p[0] = TGPU_PB_HDR(TGPU_PB_OP_INC, 0, TGPU_M_SEM_ADDR_LO, 5);
    p[1] = (unsigned int)addr;
    p[2] = (unsigned int)(addr >> 32);
    p[3] = (unsigned int)payload;
    p[4] = (unsigned int)(payload >> 32);
    p[5] = exec;
    return TGPU_SEM_DWORDS;
}


/* Engine classes for SET_OBJECT (NVIDIA's Pascal class numbers). */
#define TGPU_CLASS_COMPUTE          0xc0c0
#define TGPU_CLASS_COPY             0xc0b5

/* ---- the host unit's scheduling model ---------------------------------- */

/* Timeslice accounting: each pushbuffer dword and GPFIFO entry costs this. */
#define TGPU_HOST_DWORD_COST_NS     100
/* A blocked acquire is retried at least this often (virtual time). */
#define TGPU_ACQUIRE_POLL_NS        10000
/*
 * deterministic=on: an engine's thread runs only in a tick of the
 * virtual clock, every TGPU_DET_TICK_NS while it has work, for at most
 * TGPU_DET_GRANT of its checkpoints (4 MiB of a copy; 65536 warp
 * instructions or 2048 lane accesses through the MMU), while the main
 * loop waits for it.
 */
#define TGPU_DET_TICK_NS            10000
#define TGPU_DET_GRANT              1
/* Work done per scheduler pass before it yields to the rest of QEMU. */
#define TGPU_HOST_BUDGET            4096

/* ---- channel error codes (CHAN_ERROR, FIFO_ERR_CODE) ------------------- */

/*
 * X(NAME, code, xid, meaning): TGPU_ERR_<NAME>, the NVIDIA Xid a board
 * reports for such an error (0: none), and the name and meaning that the
 * logs of the device, the KMD and libtgpu print.  tgpu_chan_error_xid()
 * refines COPY and COMPUTE by their reason.
 */
#define TGPU_CHAN_ERRORS(X) \
    X(NONE,             0,  0,  "no error") \
    X(INVALID_INSTANCE, 1,  32, "instance block rejected at enable") \
    X(USERD_FAULT,      2,  32, "USERD unreachable") \
    X(GP_PUT_INVALID,   3,  32, "GP_PUT beyond the GPFIFO ring") \
    X(GPFIFO_FAULT,     4,  32, "GPFIFO entry unreachable") \
    X(GPFIFO_ENTRY,     5,  32, "bad GPFIFO entry or control op") \
    X(PB_FAULT,         6,  32, "pushbuffer unreachable") \
    X(PB_HEADER,        7,  32, "illegal method header opcode") \
    X(ILLEGAL_METHOD,   8,  13, "unknown host method") \
    X(ILLEGAL_SUBCH,    9,  13, "engine method on an unbound subchannel") \
    X(BAD_CLASS,        10, 13, "SET_OBJECT class unknown to this engine") \
    X(SEM_FAULT,        11, 31, "semaphore unreachable or misaligned") \
    X(SEM_INVALID_OP,   12, 13, "unknown semaphore operation") \
    X(ACQUIRE_TIMEOUT,  13, 8,  "semaphore acquire timed out") \
    X(MEM_OP,           14, 13, "unknown MEM_OP operation, or a privileged " \
                                "one on a user channel") \
    X(ENGINE,           15, 13, "engine error") \
    X(ENGINE_RESET,     16, 45, "engine reset under the channel") \
    X(KILLED,           17, 45, "killed by the driver") \
    /* info: TGPU_CE_ERR_INFO */ \
    X(COPY,             18, 13, "copy engine error (reason in the info, " \
                                "see copy.h)") \
    /* info: TGPU_KERR_* (isa.h) */ \
    X(COMPUTE,          19, 13, "kernel error (reason in the info, " \
                                "see isa.h)") \
    /* info: the reader, TGPU_ECC_ENGINE_* (ecc.h); the ECC log has where */ \
    X(ECC_UNCORRECTABLE, 20, 48, "uncorrectable ECC error in data the " \
                                 "channel's work read") \
    X(THERMAL_SHUTDOWN, 21, 0,  "the GPU stopped at its shutdown temperature")

enum {
#define TGPU_ERR_ENUM_(name, code, xid, meaning) TGPU_ERR_##name = (code),
    TGPU_CHAN_ERRORS(TGPU_ERR_ENUM_)
#undef TGPU_ERR_ENUM_
};

/* the number of codes: they are 0..TGPU_ERR_COUNT-1 */
#define TGPU_ERR_ONE_(name, code, xid, meaning) + 1
#define TGPU_ERR_COUNT              (0 TGPU_CHAN_ERRORS(TGPU_ERR_ONE_))

/* The name and meaning of each code, for the logs of device and driver. */
static inline const char *tgpu_chan_error_name(unsigned int code)
{
    switch (code) {
#define TGPU_ERR_NAME_(name, c, xid, meaning) case (c): return #name;
    TGPU_CHAN_ERRORS(TGPU_ERR_NAME_)
#undef TGPU_ERR_NAME_
    }
    return "UNKNOWN";
}

static inline const char *tgpu_chan_error_meaning(unsigned int code)
{
    switch (code) {
#define TGPU_ERR_MEANING_(name, c, xid, meaning) case (c): return meaning;
    TGPU_CHAN_ERRORS(TGPU_ERR_MEANING_)
#undef TGPU_ERR_MEANING_
    }
    return "unknown error code";
}

/*
 * NVIDIA Xid numbers of events the driver detects itself, not a channel
 * error code: the "Xid N:" its log lines carry (docs/driver/kmd.md).
 */
#define TGPU_XID_STOPPED            8   /* a job stopped making progress */
#define TGPU_XID_MMU_FAULT          31  /* GPU memory page fault */
#define TGPU_XID_CLEANUP            45  /* work taken down by a reset */
#define TGPU_XID_DBE                48  /* double-bit ECC error */
#define TGPU_XID_RETIRED            63  /* ECC page retirement recorded */
#define TGPU_XID_RETIRE_FAILED      64  /* ECC page retirement failed */
#define TGPU_XID_BUS                79  /* fallen off the bus */
#define TGPU_XID_CTXSW_TIMEOUT      109 /* the engine would not let go */

/*
 * The Xid of a channel error; @info refines COPY and COMPUTE (an MMU
 * fault is 31, an ECC error 48, other reasons 13).
 */
static inline unsigned int tgpu_chan_error_xid(unsigned int code,
                                               unsigned int info)
{
    unsigned int reason = TGPU_CE_ERR_INFO_ERR(info);

    if (code == TGPU_ERR_COPY) {
        return reason == TGPU_CE_ERR_FAULT ||
               reason == TGPU_CE_ERR_DESC_FAULT ? TGPU_XID_MMU_FAULT :
               reason == TGPU_CE_ERR_ECC ? TGPU_XID_DBE : 13;
    }
    if (code == TGPU_ERR_COMPUTE) {
        return info == TGPU_KERR_MMU_FAULT ||
               info == TGPU_KERR_PROGRAM_FAULT ? TGPU_XID_MMU_FAULT :
               info == TGPU_KERR_ECC ? TGPU_XID_DBE : 13;
    }
    switch (code) {
#define TGPU_ERR_XID_(name, c, xid, meaning) case (c): return (xid);
    TGPU_CHAN_ERRORS(TGPU_ERR_XID_)
#undef TGPU_ERR_XID_
    }
    return 0;
}

#endif /* TGPU_CHANNEL_H */
