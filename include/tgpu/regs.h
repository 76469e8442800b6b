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

/* Architectures (BOOT_0 ARCH) and implementations (BOOT_0 IMPL). */
#define TGPU_ARCH_MAXWELL           0x12
#define TGPU_ARCH_PASCAL            0x13
#define TGPU_IMPL_GM200             0x00        /* with TGPU_ARCH_MAXWELL */
#define TGPU_IMPL_GP100             0x00        /* with TGPU_ARCH_PASCAL */
#define TGPU_IMPL_GP102             0x02        /* with TGPU_ARCH_PASCAL */

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

/* Reads of unimplemented registers return this, as on NVIDIA parts. */
#define TGPU_REG_BADF               0xbadf1100u

#endif /* TGPU_REGS_H */
