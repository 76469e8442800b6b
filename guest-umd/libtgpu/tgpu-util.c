// SPDX-License-Identifier: MIT
/*
 * Pure helpers: see tgpu-util.h.  No I/O, no global state.
 */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include <tgpu/regs.h>
#include <tgpu_drm.h>

#include "tgpu-util.h"

const char *tu_arch_name(unsigned int arch)
{
	switch (arch) {
	case TGPU_ARCH_MAXWELL:
		return "Maxwell";
	case TGPU_ARCH_PASCAL:
		return "Pascal";
	}
	return NULL;
}

bool tu_chip_decode(uint32_t boot0, struct tu_chip *ci)
{
	const char *product, *chip, *arch_name;

	memset(ci, 0, sizeof(*ci));
	ci->boot0 = boot0;
	ci->arch = TGPU_BOOT_0_ARCH(boot0);
	ci->impl = TGPU_BOOT_0_IMPL(boot0);
	ci->rev = TGPU_BOOT_0_REV(boot0);

	/* Names come from regs.h only: one table for device, KMD and UMD. */
	product = tgpu_product_name(ci->arch, ci->impl);
	chip = tgpu_chip_name(ci->arch, ci->impl);
	arch_name = tu_arch_name(ci->arch);
	ci->known = product && chip;

	if (product)
		snprintf(ci->product, sizeof(ci->product), "%s", product);
	else
		snprintf(ci->product, sizeof(ci->product),
			 "TGPU (unknown chip 0x%08" PRIx32 ")", boot0);
	snprintf(ci->chip, sizeof(ci->chip), "%s", chip ? chip : "Unknown");
	snprintf(ci->arch_name, sizeof(ci->arch_name), "%s",
		 arch_name ? arch_name : "Unknown");
	return ci->known;
}

static const char *const param_names[] = {
	[DRM_TGPU_PARAM_CHIP_ID] = "CHIP_ID",
	[DRM_TGPU_PARAM_IFACE_VERSION] = "IFACE_VERSION",
	[DRM_TGPU_PARAM_PCI_ID] = "PCI_ID",
	[DRM_TGPU_PARAM_VRAM_SIZE] = "VRAM_SIZE",
	[DRM_TGPU_PARAM_BAR0_SIZE] = "BAR0_SIZE",
	[DRM_TGPU_PARAM_BAR1_SIZE] = "BAR1_SIZE",
	[DRM_TGPU_PARAM_SM_COUNT] = "SM_COUNT",
	[DRM_TGPU_PARAM_ENGINES] = "ENGINES",
	[DRM_TGPU_PARAM_CLK_SM_BASE_MHZ] = "CLK_SM_BASE_MHZ",
	[DRM_TGPU_PARAM_CLK_SM_BOOST_MHZ] = "CLK_SM_BOOST_MHZ",
	[DRM_TGPU_PARAM_CLK_MEM_MHZ] = "CLK_MEM_MHZ",
	[DRM_TGPU_PARAM_POWER_LIMIT_MW] = "POWER_LIMIT_MW",
	[DRM_TGPU_PARAM_MSIX_VECTORS] = "MSIX_VECTORS",
	[DRM_TGPU_PARAM_VRAM_USED] = "VRAM_USED",
	[DRM_TGPU_PARAM_CHANNELS] = "CHANNELS",
	[DRM_TGPU_PARAM_QUEUE_PRIORITIES] = "QUEUE_PRIORITIES",
	[DRM_TGPU_PARAM_VA_BITS] = "VA_BITS",
	[DRM_TGPU_PARAM_VA_USER_LIMIT] = "VA_USER_LIMIT",
	[DRM_TGPU_PARAM_COMPUTE_CLASS] = "COMPUTE_CLASS",
	[DRM_TGPU_PARAM_COPY_CLASS] = "COPY_CLASS",
	[DRM_TGPU_PARAM_GR_GRID_MAX] = "GR_GRID_MAX",
	[DRM_TGPU_PARAM_GR_BLOCK_MAX] = "GR_BLOCK_MAX",
	[DRM_TGPU_PARAM_GR_SHARED_MAX] = "GR_SHARED_MAX",
	[DRM_TGPU_PARAM_GR_PARAM_MAX] = "GR_PARAM_MAX",
	[DRM_TGPU_PARAM_GR_PROGRAM_MAX] = "GR_PROGRAM_MAX",
	[DRM_TGPU_PARAM_CLK_SM_KHZ] = "CLK_SM_KHZ",
	[DRM_TGPU_PARAM_TIMESTAMP_FREQ] = "TIMESTAMP_FREQ",
	[DRM_TGPU_PARAM_ECC_ENABLED] = "ECC_ENABLED",
	[DRM_TGPU_PARAM_RETIRED_PAGES_SBE] = "RETIRED_PAGES_SBE",
	[DRM_TGPU_PARAM_RETIRED_PAGES_DBE] = "RETIRED_PAGES_DBE",
};
/* A new uAPI parameter must get a name here (the unit test checks holes). */
_Static_assert(ARRAY_SIZE(param_names) == DRM_TGPU_PARAM_COUNT,
	       "param_names[] out of sync with enum drm_tgpu_param");

const char *tu_param_name(uint32_t param)
{
	if (param >= ARRAY_SIZE(param_names))
		return NULL;
	return param_names[param];
}

int tu_fmt_pci_bus_id(char *buf, size_t len, const struct tu_pci_addr *a)
{
	return snprintf(buf, len, "%04" PRIx32 ":%02x:%02x.%x", a->domain,
			(unsigned int)a->bus, (unsigned int)a->dev,
			(unsigned int)a->func);
}

/* Exactly ndigits hex digits at *s; advances *s. */
static bool parse_hex(const char **s, int ndigits, uint32_t *out)
{
	uint32_t v = 0;
	int i;

	for (i = 0; i < ndigits; i++) {
		char c = (*s)[i];
		unsigned int d;

		if (c >= '0' && c <= '9')
			d = c - '0';
		else if (c >= 'a' && c <= 'f')
			d = c - 'a' + 10;
		else if (c >= 'A' && c <= 'F')
			d = c - 'A' + 10;
		else
			return false;
		v = v << 4 | d;
	}
	*s += ndigits;
	*out = v;
	return true;
}

/* Length of the run of hex digits at s. */
static size_t hex_run(const char *s)
{
	size_t n = 0;

	while ((s[n] >= '0' && s[n] <= '9') || (s[n] >= 'a' && s[n] <= 'f') ||
	       (s[n] >= 'A' && s[n] <= 'F'))
		n++;
	return n;
}

bool tu_parse_pci_bus_id(const char *s, struct tu_pci_addr *a)
{
	uint32_t domain = 0, bus, dev, func;
	size_t n;

	if (!s)
		return false;
	n = hex_run(s);
	if (s[n] == ':' && (n == 4 || n == 8)) {
		/* Leading domain; the bus that follows is 2 digits. */
		if (!parse_hex(&s, (int)n, &domain))
			return false;
		s++;
	}
	if (!parse_hex(&s, 2, &bus) || *s++ != ':')
		return false;
	if (!parse_hex(&s, 2, &dev) || *s++ != '.')
		return false;
	if (!parse_hex(&s, 1, &func) || *s != '\0')
		return false;
	if (dev > 31 || func > 7)
		return false;

	a->domain = domain;
	a->bus = (uint8_t)bus;
	a->dev = (uint8_t)dev;
	a->func = (uint8_t)func;
	return true;
}

int tu_pci_addr_cmp(const struct tu_pci_addr *a, const struct tu_pci_addr *b)
{
	if (a->domain != b->domain)
		return a->domain < b->domain ? -1 : 1;
	if (a->bus != b->bus)
		return a->bus < b->bus ? -1 : 1;
	if (a->dev != b->dev)
		return a->dev < b->dev ? -1 : 1;
	if (a->func != b->func)
		return a->func < b->func ? -1 : 1;
	return 0;
}

uint64_t tu_bytes_to_mib(uint64_t bytes)
{
	return bytes >> 20;
}

const char *tu_fmt_mib(char *buf, size_t len, uint64_t bytes, const char *sep)
{
	snprintf(buf, len, "%" PRIu64 "%sMiB", tu_bytes_to_mib(bytes), sep);
	return buf;
}

const char *tu_fmt_watts(char *buf, size_t len, uint32_t mw, bool unit)
{
	/* Centiwatts, rounded half up; 64-bit so UINT32_MAX cannot wrap. */
	uint64_t cw = ((uint64_t)mw + 5) / 10;

	snprintf(buf, len, "%" PRIu64 ".%02" PRIu64 "%s", cw / 100, cw % 100,
		 unit ? " W" : "");
	return buf;
}

const char *tu_fmt_iface_version(char *buf, size_t len, uint32_t v)
{
	snprintf(buf, len, "%u.%u", (unsigned int)TGPU_IFACE_MAJOR(v),
		 (unsigned int)TGPU_IFACE_MINOR(v));
	return buf;
}

/* Append to a NUL-terminated buffer, truncating at len. */
static void append(char *buf, size_t len, const char *s)
{
	size_t used = strlen(buf);

	if (used + 1 < len)
		snprintf(buf + used, len - used, "%s", s);
}

const char *tu_fmt_engines(char *buf, size_t len, uint32_t mask)
{
	static const struct {
		uint32_t bit;
		const char *name;
	} engines[] = {
		{ TGPU_ENGINE_COMPUTE, "compute" },
		{ TGPU_ENGINE_CE0, "ce0" },
		{ TGPU_ENGINE_CE1, "ce1" },
	};
	uint32_t rest = mask;
	char hex[16];
	size_t i;

	if (len == 0)
		return buf;
	buf[0] = '\0';
	if (!mask) {
		append(buf, len, "none");
		return buf;
	}
	for (i = 0; i < ARRAY_SIZE(engines); i++) {
		if (!(mask & engines[i].bit))
			continue;
		rest &= ~engines[i].bit;
		if (buf[0])
			append(buf, len, " ");
		append(buf, len, engines[i].name);
	}
	if (rest) {
		/* Engines this library predates: show them, don't hide them. */
		snprintf(hex, sizeof(hex), "%s0x%" PRIx32, buf[0] ? " " : "", rest);
		append(buf, len, hex);
	}
	return buf;
}

/* 0 when the result does not fit in 64 bits. */
uint64_t tu_roundup_pow2(uint64_t v)
{
	uint64_t p = 1;

	while (p < v && p)
		p <<= 1;
	return p;
}
