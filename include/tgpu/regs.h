/* SPDX-License-Identifier: MIT */
/*
 * tgpu hardware contract: PCI identity and the BAR0 register map.
 *
 * This header is the one source of truth for the device model (hw/tgpu),
 * the kernel driver (guest-kmd), the user-mode driver (guest-umd) and the
 * qtests.  docs/hw/registers.md describes every register defined here.
 * It must compile in all four places: no libc, no kernel headers, only
 * fixed-width integer types which each user provides.
 */
#ifndef TGPU_REGS_H
#define TGPU_REGS_H

/* ---- PCI identity ------------------------------------------------------ */

#define TGPU_PCI_VENDOR_ID          0x1234  /* QEMU's test vendor, as edu */
#define TGPU_PCI_DEVICE_ID_P100     0x15f8
#define TGPU_PCI_DEVICE_ID_P40      0x1b38
#define TGPU_PCI_DEVICE_ID_M40      0x17fd
#define TGPU_PCI_CLASS              0x0302  /* display: 3D controller */
#define TGPU_PCI_REVISION           0xa1

/* BAR0: registers, 16 MiB, 32-bit non-prefetchable memory. */
#define TGPU_BAR0                   0
#define TGPU_BAR0_SIZE              0x01000000u
/* BAR1: VRAM aperture, 64-bit prefetchable, size = VRAM rounded up to 2^n. */
#define TGPU_BAR1                   1

/* MSI-X lives in BAR0 above every register block. */
#define TGPU_MSIX_TABLE_OFFSET      0x00ff0000u
#define TGPU_MSIX_PBA_OFFSET        0x00ff8000u

/* MSI-X vectors, one per interrupt source class. */
#define TGPU_MSIX_VEC_STALL         0   /* channel errors, engine errors */
#define TGPU_MSIX_VEC_NONSTALL      1   /* fence / non-stall interrupts */
#define TGPU_MSIX_VEC_MMU           2   /* MMU faults */
#define TGPU_MSIX_VEC_ECC           3   /* ECC events */
#define TGPU_MSIX_VEC_THERMAL       4   /* thermal alerts */
#define TGPU_MSIX_NR_VECTORS        5

/* ---- BAR0 register blocks ---------------------------------------------- */

/* PMC: identity and master control, 0x000000 - 0x000fff. */
#define TGPU_PMC_BASE               0x000000u
#define TGPU_PMC_SIZE               0x1000u

/*
 * BOOT_0 identifies the chip, laid out like NVIDIA's NV_PMC_BOOT_0:
 * architecture in [31:24], implementation in [23:16], revision in [7:0].
 */
#define TGPU_PMC_BOOT_0             0x000000u
#define   TGPU_BOOT_0_ARCH_SHIFT    24
#define   TGPU_BOOT_0_IMPL_SHIFT    16
#define   TGPU_BOOT_0_REV_SHIFT     0
#define   TGPU_BOOT_0_ARCH(v)       (((v) >> 24) & 0xffu)
#define   TGPU_BOOT_0_IMPL(v)       (((v) >> 16) & 0xffu)
#define   TGPU_BOOT_0_REV(v)        ((v) & 0xffu)
#define TGPU_PMC_MAGIC              0x000004u   /* reads TGPU_MAGIC */
#define   TGPU_MAGIC                0x54475055u /* "TGPU" */
#define TGPU_PMC_IFACE_VERSION      0x000008u   /* major << 16 | minor */
#define   TGPU_IFACE_MAJOR(v)       (((v) >> 16) & 0xffffu)
#define   TGPU_IFACE_MINOR(v)       ((v) & 0xffffu)
#define   TGPU_IFACE_VERSION_MAJOR  1
#define   TGPU_IFACE_VERSION_MINOR  0
#define TGPU_PMC_SCRATCH            0x00000cu   /* read/write, reset 0 */
#define TGPU_PMC_VRAM_SIZE_LO       0x000010u   /* VRAM bytes, low 32 bits */
#define TGPU_PMC_VRAM_SIZE_HI       0x000014u   /* VRAM bytes, high 32 bits */
#define TGPU_PMC_SM_COUNT           0x000018u
#define TGPU_PMC_ENGINES            0x00001cu   /* TGPU_ENGINE_* bitmask */
#define TGPU_PMC_CLK_SM_BASE_MHZ    0x000020u
#define TGPU_PMC_CLK_SM_BOOST_MHZ   0x000024u
#define TGPU_PMC_CLK_MEM_MHZ        0x000028u
#define TGPU_PMC_POWER_LIMIT_MW     0x00002cu   /* board power limit (TDP) */
#define TGPU_PMC_CHANNELS           0x000030u   /* number of channels */

/*
 * Top-level interrupt status (RO) and enable (RW): one bit per unit, each
 * the OR of that unit's (status & enable).  With MSI-X each unit has its
 * own vector (TGPU_MSIX_VEC_*, same numbering); with INTx the line is
 * the OR of (PMC_INTR & PMC_INTR_EN).
 */
#define TGPU_PMC_INTR               0x000100u
#define TGPU_PMC_INTR_EN            0x000140u
#define   TGPU_INTR_FIFO            (1u << 0)   /* stall: channel errors */
#define   TGPU_INTR_NONSTALL        (1u << 1)
#define   TGPU_INTR_MMU             (1u << 2)
#define   TGPU_INTR_ECC             (1u << 3)
#define   TGPU_INTR_THERMAL         (1u << 4)
/* Write 1 to reset an engine (TGPU_ENGINE_* bits); reads as 0. */
#define TGPU_PMC_ENGINE_RESET       0x000144u
/*
 * Steps an engine has taken since reset (low 32 bits): it moves while the
 * engine makes progress, and stands while it is idle or stuck.  n is the
 * engine's runlist: 0 compute, 1 CE0, 2 CE1.
 */
#define TGPU_PMC_ENGINE_PROGRESS(n) (0x000160u + 4u * (n))

/* PFIFO: channel errors, fences, runlists, doorbell statistics. */
#define TGPU_FIFO_BASE              0x002000u
#define TGPU_FIFO_SIZE              0x1000u
#define TGPU_FIFO_INTR              0x002100u   /* R/W1C */
#define   TGPU_FIFO_INTR_CHAN_ERROR (1u << 0)   /* level: ERR_PENDING != 0 */
#define   TGPU_FIFO_INTR_RUNLIST    (1u << 1)   /* a runlist was rejected */
#define TGPU_FIFO_ERR_CHID          0x002104u   /* first unacked error */
#define TGPU_FIFO_ERR_CODE          0x002108u
#define TGPU_FIFO_ERR_INFO          0x00210cu
#define TGPU_FIFO_NONSTALL_INTR     0x002110u   /* R/W1C */
#define   TGPU_FIFO_NONSTALL_INTR_PENDING   (1u << 0)
#define TGPU_FIFO_DOORBELLS         0x002120u   /* doorbells accepted */
#define TGPU_FIFO_DOORBELLS_BAD     0x002124u   /* unknown/disabled channel */
#define TGPU_FIFO_CTXSW_COUNT       0x002128u   /* context switches */
#define TGPU_FIFO_INTR_EN           0x002140u
#define TGPU_FIFO_NONSTALL_INTR_EN  0x002144u
/* channels with an unacknowledged error, 32 per register, R/W1C */
#define TGPU_FIFO_ERR_PENDING(i)    (0x002200u + 4u * (i))
/* channels that raised a non-stall interrupt, 32 per register, R/W1C */
#define TGPU_FIFO_NONSTALL_PENDING(i) (0x002400u + 4u * (i))
/* runlist r: base (VRAM offset, 4-byte aligned), submit, status */
#define TGPU_FIFO_RUNLIST_BASE_LO(r)    (0x002800u + 0x20u * (r))
#define TGPU_FIFO_RUNLIST_BASE_HI(r)    (0x002804u + 0x20u * (r))
#define TGPU_FIFO_RUNLIST_SUBMIT(r)     (0x002808u + 0x20u * (r)) /* count */
#define TGPU_FIFO_RUNLIST_STATUS(r)     (0x00280cu + 0x20u * (r))
#define   TGPU_RUNLIST_STATUS_COUNT_MASK    0xffffu
#define   TGPU_RUNLIST_STATUS_ERROR         (1u << 31)

/* PTIMER: nanoseconds of the virtual clock. */
#define TGPU_PTIMER_FREQ_HZ         1000000000u /* ticks per second */
#define TGPU_PTIMER_BASE            0x009000u
#define TGPU_PTIMER_SIZE            0x1000u
#define TGPU_PTIMER_TIME_0          0x009400u   /* low; latches TIME_1 */
#define TGPU_PTIMER_TIME_1          0x009404u   /* high, as latched */

/* Channels: a 64-byte register block each. */
#define TGPU_CHAN_BASE              0x100000u
#define TGPU_CHAN_STRIDE            0x40u
#define TGPU_CHANNELS_MAX           512
#define TGPU_CHANNELS_DEFAULT       64
#define TGPU_CHAN_REG(ch, r) \
    (TGPU_CHAN_BASE + TGPU_CHAN_STRIDE * (ch) + (r))
#define TGPU_CHAN_INST              0x00    /* RW instance block VRAM >> 12 */
#define TGPU_CHAN_CTRL              0x04
#define   TGPU_CHAN_CTRL_ENABLE     (1u << 0)   /* RW */
#define   TGPU_CHAN_CTRL_KILL       (1u << 1)   /* W: error KILLED */
#define   TGPU_CHAN_CTRL_RESET      (1u << 2)   /* W: back to reset state */
#define TGPU_CHAN_STATUS            0x08    /* RO, TGPU_CHAN_STATE_* */
#define   TGPU_CHAN_STATE_MASK      0xfu
#define   TGPU_CHAN_STATE_DISABLED  0
#define   TGPU_CHAN_STATE_IDLE      1   /* enabled, no work */
#define   TGPU_CHAN_STATE_PENDING   2   /* work, waiting for the engine */
#define   TGPU_CHAN_STATE_RUNNING   3   /* resident on its engine */
#define   TGPU_CHAN_STATE_BLOCKED   4   /* waiting on a semaphore acquire */
#define   TGPU_CHAN_STATE_ERROR     5
#define   TGPU_CHAN_STATUS_ON_RUNLIST (1u << 8)
#define TGPU_CHAN_GP_GET            0x0c    /* RW: writable while disabled */
#define TGPU_CHAN_GP_PUT            0x10    /* RO, as last read from USERD */
#define TGPU_CHAN_PB_LO             0x14    /* RO, next pushbuffer dword */
#define TGPU_CHAN_PB_HI             0x18
#define TGPU_CHAN_ERROR             0x1c    /* RO, TGPU_ERR_* */
#define TGPU_CHAN_ERROR_INFO        0x20    /* RO, detail of the error */
/* RO, virtual ns the channel's work had its engine; LO latches HI */
#define TGPU_CHAN_BUSY_NS_LO        0x24
#define TGPU_CHAN_BUSY_NS_HI        0x28

/* USERMODE: the user-mappable doorbell page, as NVIDIA's NV_USERMODE. */
#define TGPU_USERMODE_BASE          0x810000u
#define TGPU_USERMODE_SIZE          0x1000u
#define TGPU_USERMODE_TIME_0        0x810080u   /* PTIMER, read-only */
#define TGPU_USERMODE_TIME_1        0x810084u
#define TGPU_USERMODE_DOORBELL      0x810090u   /* write a channel ID */

/* Architectures (BOOT_0 ARCH) and implementations (BOOT_0 IMPL). */
#define TGPU_ARCH_MAXWELL           0x12
#define TGPU_ARCH_PASCAL            0x13
#define TGPU_IMPL_GM200             0x00        /* with TGPU_ARCH_MAXWELL */
#define TGPU_IMPL_GP100             0x00        /* with TGPU_ARCH_PASCAL */
#define TGPU_IMPL_GP102             0x02        /* with TGPU_ARCH_PASCAL */

/* A CHAN_STATUS state (TGPU_CHAN_STATE_*) as logs and tools spell it. */
static inline const char *tgpu_chan_state_name(unsigned int state)
{
    switch (state) {
    case TGPU_CHAN_STATE_DISABLED:
        return "DISABLED";
    case TGPU_CHAN_STATE_IDLE:
        return "IDLE";
    case TGPU_CHAN_STATE_PENDING:
        return "PENDING";
    case TGPU_CHAN_STATE_RUNNING:
        return "RUNNING";
    case TGPU_CHAN_STATE_BLOCKED:
        return "BLOCKED";
    case TGPU_CHAN_STATE_ERROR:
        return "ERROR";
    }
    return "UNKNOWN";
}

/* Chip and product names of an (ARCH, IMPL) pair; NULL when unknown. */
static inline const char *tgpu_chip_name(unsigned int arch, unsigned int impl)
{
    if (arch == TGPU_ARCH_PASCAL && impl == TGPU_IMPL_GP100) {
        return "GP100";
    }
    if (arch == TGPU_ARCH_PASCAL && impl == TGPU_IMPL_GP102) {
        return "GP102";
    }
    if (arch == TGPU_ARCH_MAXWELL && impl == TGPU_IMPL_GM200) {
        return "GM200";
    }
    return (const char *)0;
}

static inline const char *tgpu_product_name(unsigned int arch,
                                            unsigned int impl)
{
    if (arch == TGPU_ARCH_PASCAL && impl == TGPU_IMPL_GP100) {
        return "TGPU Tesla P100";
    }
    if (arch == TGPU_ARCH_PASCAL && impl == TGPU_IMPL_GP102) {
        return "TGPU Tesla P40";
    }
    if (arch == TGPU_ARCH_MAXWELL && impl == TGPU_IMPL_GM200) {
        return "TGPU Tesla M40";
    }
    return (const char *)0;
}

/* Engines (PMC_ENGINES bits). */
#define TGPU_ENGINE_COMPUTE         (1u << 0)
#define TGPU_ENGINE_CE0             (1u << 1)
#define TGPU_ENGINE_CE1             (1u << 2)
#define TGPU_ENGINE_ALL             0x7u

/* Reads of unimplemented registers return this, as on NVIDIA parts. */
#define TGPU_REG_BADF               0xbadf1100u

#endif /* TGPU_REGS_H */
