/* SPDX-License-Identifier: MIT */
/*
 * Pure helpers shared by libtgpu, tgpu-smi and the unit tests: decoding
 * of hardware identity, formatting of sizes, clocks, power and PCI bus
 * ids.  Nothing here touches a device, so all of it is unit-tested on
 * the host.  Internal: not part of the installed API (the symbols are
 * hidden inside libtgpu.so).
 */
#ifndef TGPU_UTIL_H
#define TGPU_UTIL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Little-endian words at P, byte by byte (file formats, command streams). */
static inline uint32_t tu_get_le32(const uint8_t *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 |
	       (uint32_t)p[3] << 24;
}

static inline void tu_put_le32(uint8_t *p, uint32_t v)
{
	int i;

	for (i = 0; i < 4; i++)
		p[i] = (uint8_t)(v >> (8 * i));
}

static inline uint64_t tu_get_le64(const uint8_t *p)
{
	return tu_get_le32(p) | (uint64_t)tu_get_le32(p + 4) << 32;
}

/* The number of elements of array A (not a pointer). */
#ifndef ARRAY_SIZE
#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))
#endif

/* Decoded BOOT_0 (see TGPU_PMC_BOOT_0 in <tgpu/regs.h>). */
struct tu_chip {
	uint32_t boot0;
	unsigned int arch;
	unsigned int impl;
	unsigned int rev;
	bool known;             /* (arch, impl) is a chip regs.h names */
	char product[48];       /* "TGPU Tesla P100" / "TGPU (unknown chip 0x14000000)" */
	char chip[16];          /* "GP100" / "Unknown" */
	char arch_name[16];     /* "Pascal" / "Maxwell" / "Unknown" */
};

/* Returns ci->known. */
bool tu_chip_decode(uint32_t boot0, struct tu_chip *ci);

/* nvidia-smi's architecture name of a BOOT_0 ARCH value, NULL if unknown. */
const char *tu_arch_name(unsigned int arch);

/* Name of an enum drm_tgpu_param ("VRAM_SIZE"), NULL if out of range. */
const char *tu_param_name(uint32_t param);

/* A PCI address; domain is 32-bit as Linux allows (VMD uses 0x10000+). */
struct tu_pci_addr {
	uint32_t domain;
	uint8_t bus;
	uint8_t dev;    /* 0-31 */
	uint8_t func;   /* 0-7 */
};

/* "0000:01:00.0" (lspci/sysfs form).  Returns snprintf's result. */
int tu_fmt_pci_bus_id(char *buf, size_t len, const struct tu_pci_addr *a);

/*
 * Parse "DDDD:BB:DD.F", nvidia-smi's "DDDDDDDD:BB:DD.F" or "BB:DD.F"
 * (domain 0), hex, either case.  False on anything else.
 */
bool tu_parse_pci_bus_id(const char *s, struct tu_pci_addr *a);

/* qsort-style ordering by (domain, bus, dev, func). */
int tu_pci_addr_cmp(const struct tu_pci_addr *a, const struct tu_pci_addr *b);

/* Whole MiB, rounded down as nvidia-smi does. */
uint64_t tu_bytes_to_mib(uint64_t bytes);

/* "16384 MiB" (sep " ") or "16384MiB" (sep "").  Returns buf. */
const char *tu_fmt_mib(char *buf, size_t len, uint64_t bytes, const char *sep);

/*
 * Milliwatts as watts with two decimals, rounded half up: "250.00" and,
 * with unit, "250.00 W".  Returns buf.
 */
const char *tu_fmt_watts(char *buf, size_t len, uint32_t mw, bool unit);

/* Hardware interface version major << 16 | minor as "1.0".  Returns buf. */
const char *tu_fmt_iface_version(char *buf, size_t len, uint32_t v);

/* TGPU_ENGINE_* mask as "compute ce0 ce1"; unknown bits as hex.  Returns buf. */
const char *tu_fmt_engines(char *buf, size_t len, uint32_t mask);

/* Smallest power of two >= v (v = 0 gives 1); BAR1 sizing per regs.h. */
uint64_t tu_roundup_pow2(uint64_t v);

#endif /* TGPU_UTIL_H */
