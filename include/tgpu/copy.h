/* SPDX-License-Identifier: MIT */
/*
 * tgpu hardware contract: the copy engines CE0 and CE1.
 *
 * The copy class (TGPU_CLASS_COPY, bound with SET_OBJECT on a channel of
 * runlist CE0 or CE1), its LAUNCH_DMA word, the linked-list descriptor
 * and the engines' registers.  The methods keep the offsets and fields of
 * NVIDIA's public Pascal copy class (open-gpu-doc clc1b5.h); the linked
 * list is tgpu's own.  docs/hw/copy.md is the manual.  Same rules as
 * regs.h: no libc.
 */
#ifndef TGPU_COPY_H
#define TGPU_COPY_H

/* ---- copy class methods ------------------------------------------------ */

/*
 * The copy class methods, X(NAME, method): TGPU_CE_M_<NAME>; the
 * one list of them (see TGPU_HOST_METHODS in channel.h)
 */
#define TGPU_CE_METHODS(X) \
    X(NOP,                    0x0100) \
    X(SET_SEMAPHORE_A,        0x0240) /* [16:0] address[48:32] */ \
    X(SET_SEMAPHORE_B,        0x0244) /* address[31:0] */ \
    X(SET_SEMAPHORE_PAYLOAD,  0x0248) \
    X(LAUNCH_DMA,             0x0300) /* runs the copy */ \
    X(OFFSET_IN_UPPER,        0x0400) /* [16:0] */ \
    X(OFFSET_IN_LOWER,        0x0404) \
    X(OFFSET_OUT_UPPER,       0x0408) /* [16:0] */ \
    X(OFFSET_OUT_LOWER,       0x040c) \
    X(PITCH_IN,               0x0410) /* bytes between lines */ \
    X(PITCH_OUT,              0x0414) \
    X(LINE_LENGTH_IN,         0x0418) /* bytes, or remap elements */ \
    X(LINE_COUNT,             0x041c) \
    X(DESC_LIST_UPPER,        0x0480) /* tgpu: first descriptor */ \
    X(DESC_LIST_LOWER,        0x0484) \
    X(SET_REMAP_CONST_A,      0x0700) \
    X(SET_REMAP_CONST_B,      0x0704) \
    X(SET_REMAP_COMPONENTS,   0x0708)

enum {
#define TGPU_CE_M_ENUM_(name, mthd) TGPU_CE_M_##name = (mthd),
    TGPU_CE_METHODS(TGPU_CE_M_ENUM_)
#undef TGPU_CE_M_ENUM_
};

/* The name of copy class method MTHD, or 0 (NULL) if there is none. */
static inline const char *tgpu_ce_method_name(unsigned int mthd)
{
    switch (mthd) {
#define TGPU_CE_M_NAME_(name, m) case (m): return #name;
    TGPU_CE_METHODS(TGPU_CE_M_NAME_)
#undef TGPU_CE_M_NAME_
    }
    return 0;
}

#define TGPU_CE_UPPER_MASK              0x1ffffu

/* LAUNCH_DMA fields (clc1b5 NVC1B5_LAUNCH_DMA_*) */
#define TGPU_CE_LAUNCH_TRANSFER_MASK    0x3u        /* [1:0] */
#define   TGPU_CE_TRANSFER_NONE         0   /* only semaphore/interrupt */
#define   TGPU_CE_TRANSFER_PIPELINED    1
#define   TGPU_CE_TRANSFER_NON_PIPELINED 2
#define TGPU_CE_LAUNCH_FLUSH            (1u << 2)
#define TGPU_CE_LAUNCH_SEM_SHIFT        3           /* [4:3] */
#define TGPU_CE_LAUNCH_SEM_MASK         0x3u
#define   TGPU_CE_SEM_NONE              0
#define   TGPU_CE_SEM_ONE_WORD          1   /* payload, 4 bytes */
#define   TGPU_CE_SEM_FOUR_WORD         2   /* payload, 0, ns timestamp */
#define TGPU_CE_LAUNCH_INTR_SHIFT       5           /* [6:5] */
#define TGPU_CE_LAUNCH_INTR_MASK        0x3u
#define   TGPU_CE_INTR_NONE             0
#define   TGPU_CE_INTR_BLOCKING         1   /* both: the non-stall vector */
#define   TGPU_CE_INTR_NON_BLOCKING     2
#define TGPU_CE_LAUNCH_SRC_PITCH        (1u << 7)   /* must be set */
#define TGPU_CE_LAUNCH_DST_PITCH        (1u << 8)   /* must be set */
#define TGPU_CE_LAUNCH_MULTI_LINE       (1u << 9)
#define TGPU_CE_LAUNCH_REMAP            (1u << 10)
#define TGPU_CE_LAUNCH_FORCE_RMWDISABLE (1u << 11)  /* no effect */
#define TGPU_CE_LAUNCH_SRC_PHYSICAL     (1u << 12)  /* not supported */
#define TGPU_CE_LAUNCH_DST_PHYSICAL     (1u << 13)  /* not supported */
#define TGPU_CE_LAUNCH_SEM_REDUCTION    (1u << 19)  /* not supported */
#define TGPU_CE_LAUNCH_BYPASS_L2        (1u << 20)  /* no effect */
#define TGPU_CE_LAUNCH_LINKED_LIST      (1u << 24)  /* tgpu: descriptors */
/* Bits a launch may set; any other bit is a TGPU_CE_ERR_LAUNCH. */
#define TGPU_CE_LAUNCH_VALID_MASK       0x01100fffu

#define TGPU_CE_LAUNCH(transfer, sem, intr) \
    ((unsigned int)(transfer) | \
     (unsigned int)(sem) << TGPU_CE_LAUNCH_SEM_SHIFT | \
     (unsigned int)(intr) << TGPU_CE_LAUNCH_INTR_SHIFT | \
     TGPU_CE_LAUNCH_SRC_PITCH | TGPU_CE_LAUNCH_DST_PITCH)

/* SET_REMAP_COMPONENTS fields */
#define TGPU_CE_REMAP_DST_SHIFT(c)      (4 * (c))   /* c = 0..3: X, Y, Z, W */
#define TGPU_CE_REMAP_SEL_MASK          0x7u
#define   TGPU_CE_REMAP_SRC_X           0
#define   TGPU_CE_REMAP_SRC_Y           1
#define   TGPU_CE_REMAP_SRC_Z           2
#define   TGPU_CE_REMAP_SRC_W           3
#define   TGPU_CE_REMAP_CONST_A         4
#define   TGPU_CE_REMAP_CONST_B         5
#define   TGPU_CE_REMAP_NO_WRITE        6
#define TGPU_CE_REMAP_COMP_SIZE_SHIFT   16          /* [17:16]: size - 1 */
#define TGPU_CE_REMAP_NUM_SRC_SHIFT     20          /* [21:20]: count - 1 */
#define TGPU_CE_REMAP_NUM_DST_SHIFT     24          /* [25:24]: count - 1 */
#define TGPU_CE_REMAP_VALID_MASK        0x03337777u

#define TGPU_CE_REMAP(x, y, z, w, size, nsrc, ndst) \
    ((unsigned int)(x) | (unsigned int)(y) << 4 | \
     (unsigned int)(z) << 8 | (unsigned int)(w) << 12 | \
     ((unsigned int)(size) - 1) << TGPU_CE_REMAP_COMP_SIZE_SHIFT | \
     ((unsigned int)(nsrc) - 1) << TGPU_CE_REMAP_NUM_SRC_SHIFT | \
     ((unsigned int)(ndst) - 1) << TGPU_CE_REMAP_NUM_DST_SHIFT)

/* ---- linked-list descriptors (32 bytes, little-endian, 32-byte aligned) */

#define TGPU_CE_DESC_SIZE               32
#define TGPU_CE_DESC_SRC                0x00    /* u64 GPU VA */
#define TGPU_CE_DESC_DST                0x08    /* u64 GPU VA */
#define TGPU_CE_DESC_NEXT               0x10    /* u64 GPU VA, 0: last */
#define TGPU_CE_DESC_LENGTH             0x18    /* u32 bytes */
#define TGPU_CE_DESC_FLAGS              0x1c    /* u32 */
#define   TGPU_CE_DESC_FILL             (1u << 0)   /* dst = CONST_A, x4 */
#define   TGPU_CE_DESC_FLAGS_VALID      0x1u
/* A chain longer than this ends in TGPU_CE_ERR_CHAIN_LONG. */
#define TGPU_CE_CHAIN_MAX               65536

/* ---- engine registers (BAR0), one block per copy engine ----------------- */

#define TGPU_CE_BASE                    0x00b000u
#define TGPU_CE_SIZE                    0x1000u
#define TGPU_CE_STRIDE                  0x100u
#define TGPU_CE_COUNT                   2
#define TGPU_CE_REG(ce, r) \
    (TGPU_CE_BASE + TGPU_CE_STRIDE * (ce) + (r))
#define TGPU_CE_STATUS                  0x00    /* RO */
#define   TGPU_CE_STATUS_BUSY           (1u << 0)   /* a launch runs */
#define   TGPU_CE_STATUS_PAUSED         (1u << 1)   /* held: VM stopped */
#define TGPU_CE_CHID                    0x04    /* RO, channel of the launch */
#define TGPU_CE_LAUNCHES                0x08    /* RO, launches since reset */
#define TGPU_CE_ERROR                   0x0c    /* RO, TGPU_CE_ERR_* */
/* progress of the current (or last) launch: bytes written, descriptors */
#define TGPU_CE_PROGRESS_LO             0x10
#define TGPU_CE_PROGRESS_HI             0x14
#define TGPU_CE_DESC_DONE               0x18
/* the failing address: the faulting VA, or the bad descriptor's VA */
#define TGPU_CE_ERROR_VA_LO             0x20
#define TGPU_CE_ERROR_VA_HI             0x24
/* bytes written by every launch since reset */
#define TGPU_CE_BYTES_LO                0x28
#define TGPU_CE_BYTES_HI                0x2c
/* turns a launch gave to another channel's work since reset */
#define TGPU_CE_PREEMPTS                0x30

/*
 * Time slicing (docs/hw/copy.md): while another channel of the engine's
 * runlist, of at least the launch's priority, has work, a launch gives
 * way once its turn has written this many bytes (or run 4096 lines,
 * pieces or descriptors), at the end of the piece in hand (at most this
 * many bytes more), and goes on where it stopped in its channel's next
 * turn.
 */
#define TGPU_CE_SLICE_BYTES             (256u * 1024)

/* Why a launch failed (TGPU_CE_ERROR, and CHAN_ERROR_INFO [7:0]). */
#define TGPU_CE_ERR_NONE                0
#define TGPU_CE_ERR_LAUNCH              1   /* bad or unsupported field */
#define TGPU_CE_ERR_REMAP               2   /* bad SET_REMAP_COMPONENTS */
#define TGPU_CE_ERR_FAULT               3   /* MMU fault: see fault buffer */
#define TGPU_CE_ERR_DESC_FAULT          4   /* descriptor unreachable */
#define TGPU_CE_ERR_DESC_BAD            5   /* reserved flags, alignment */
#define TGPU_CE_ERR_CHAIN_CYCLE         6   /* the chain loops */
#define TGPU_CE_ERR_CHAIN_LONG          7   /* over TGPU_CE_CHAIN_MAX */
/*
 * An uncorrectable ECC error in VRAM the launch read: it stopped before
 * the poisoned 4 KiB page, whose VA is in ERROR_VA.  The channel fails
 * with TGPU_ERR_ECC_UNCORRECTABLE (not TGPU_ERR_COPY).
 */
#define TGPU_CE_ERR_ECC                 8

/* CHAN_ERROR_INFO of TGPU_ERR_COPY: engine in [8], reason in [7:0]. */
#define TGPU_CE_ERR_INFO(ce, err)       ((unsigned int)(ce) << 8 | (err))
#define TGPU_CE_ERR_INFO_CE(info)       (((info) >> 8) & 1u)
#define TGPU_CE_ERR_INFO_ERR(info)      ((info) & 0xffu)

static inline const char *tgpu_ce_error_meaning(unsigned int err)
{
    switch (err) {
    case TGPU_CE_ERR_NONE:
        return "no error";
    case TGPU_CE_ERR_LAUNCH:
        return "LAUNCH_DMA has a reserved or unsupported field";
    case TGPU_CE_ERR_REMAP:
        return "SET_REMAP_COMPONENTS is invalid";
    case TGPU_CE_ERR_FAULT:
        return "MMU fault during the copy";
    case TGPU_CE_ERR_DESC_FAULT:
        return "descriptor unreachable";
    case TGPU_CE_ERR_DESC_BAD:
        return "descriptor with reserved flags or a misaligned next";
    case TGPU_CE_ERR_CHAIN_CYCLE:
        return "descriptor chain loops";
    case TGPU_CE_ERR_CHAIN_LONG:
        return "descriptor chain longer than TGPU_CE_CHAIN_MAX";
    case TGPU_CE_ERR_ECC:
        return "uncorrectable ECC error in VRAM the copy read";
    }
    return "unknown copy-engine error";
}

#endif /* TGPU_COPY_H */
