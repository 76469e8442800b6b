// SPDX-License-Identifier: MIT
/*
 * Unit tests of the pure helpers (guest-umd/libtgpu/tgpu-util.c).
 * Expected values are literals, not recomputed with the code under test.
 */
#include <inttypes.h>
#include <stdint.h>
#include <string.h>

#include <tgpu/regs.h>
#include <tgpu_drm.h>

#include "tap.h"
#include "tgpu-ascii85.h"
#include "tgpu-util.h"

#define GiB (1024ull * 1024 * 1024)
#define MiB (1024ull * 1024)

static void check_chip(uint32_t boot0, bool known, unsigned int arch,
		       unsigned int impl, unsigned int rev, const char *product,
		       const char *chip, const char *arch_name)
{
	struct tu_chip ci;
	bool r = tu_chip_decode(boot0, &ci);

	ok(r == known, "BOOT_0 0x%08" PRIx32 ": known = %d", boot0, known);
	is_int(ci.arch, arch, "BOOT_0 0x%08" PRIx32 ": arch", boot0);
	is_int(ci.impl, impl, "BOOT_0 0x%08" PRIx32 ": impl", boot0);
	is_int(ci.rev, rev, "BOOT_0 0x%08" PRIx32 ": rev", boot0);
	is_str(ci.product, product, "BOOT_0 0x%08" PRIx32 ": product name", boot0);
	is_str(ci.chip, chip, "BOOT_0 0x%08" PRIx32 ": chip name", boot0);
	is_str(ci.arch_name, arch_name, "BOOT_0 0x%08" PRIx32 ": architecture", boot0);
}

static void test_chip_decode(void)
{
	check_chip(0x130000a1, true, 0x13, 0x00, 0xa1, "TGPU Tesla P100", "GP100", "Pascal");
	check_chip(0x13020000, true, 0x13, 0x02, 0x00, "TGPU Tesla P40", "GP102", "Pascal");
	check_chip(0x12000001, true, 0x12, 0x00, 0x01, "TGPU Tesla M40", "GM200", "Maxwell");
	/* Bits 15:8 are not part of the identity. */
	check_chip(0x1302ff00, true, 0x13, 0x02, 0x00, "TGPU Tesla P40", "GP102", "Pascal");
	/* Known architecture, unknown implementation. */
	check_chip(0x13050000, false, 0x13, 0x05, 0x00,
		   "TGPU (unknown chip 0x13050000)", "Unknown", "Pascal");
	/* Unknown architecture. */
	check_chip(0x14000000, false, 0x14, 0x00, 0x00,
		   "TGPU (unknown chip 0x14000000)", "Unknown", "Unknown");
	/* What an unimplemented register reads: must not look like a chip. */
	check_chip(TGPU_REG_BADF, false, 0xba, 0xdf, 0x00,
		   "TGPU (unknown chip 0xbadf1100)", "Unknown", "Unknown");
	check_chip(0, false, 0, 0, 0, "TGPU (unknown chip 0x00000000)", "Unknown", "Unknown");

	ok(tu_arch_name(0x11) == NULL, "arch 0x11 has no name");
}

static void test_param_names(void)
{
	uint32_t p, q;
	bool all = true, unique = true;

	for (p = 0; p < DRM_TGPU_PARAM_COUNT; p++) {
		const char *n = tu_param_name(p);

		if (!n || !n[0]) {
			all = false;
			diag("param %" PRIu32 " has no name", p);
			continue;
		}
		for (q = 0; q < p; q++)
			if (tu_param_name(q) && strcmp(n, tu_param_name(q)) == 0)
				unique = false;
	}
	ok(all, "every enum drm_tgpu_param below COUNT has a name");
	ok(unique, "param names are unique");
	is_str(tu_param_name(DRM_TGPU_PARAM_CHIP_ID), "CHIP_ID", "CHIP_ID name");
	is_str(tu_param_name(DRM_TGPU_PARAM_VRAM_SIZE), "VRAM_SIZE", "VRAM_SIZE name");
	is_str(tu_param_name(DRM_TGPU_PARAM_MSIX_VECTORS), "MSIX_VECTORS", "MSIX_VECTORS name");
	is_str(tu_param_name(DRM_TGPU_PARAM_CHANNELS), "CHANNELS", "CHANNELS name");
	is_str(tu_param_name(DRM_TGPU_PARAM_CLK_SM_KHZ), "CLK_SM_KHZ", "CLK_SM_KHZ name");
	is_str(tu_param_name(DRM_TGPU_PARAM_TIMESTAMP_FREQ), "TIMESTAMP_FREQ",
	       "TIMESTAMP_FREQ name");
	ok(tu_param_name(DRM_TGPU_PARAM_COUNT) == NULL, "PARAM_COUNT is not a parameter");
	ok(tu_param_name(0xffffffffu) == NULL, "param 0xffffffff has no name");
}

static void test_pci_fmt(void)
{
	struct tu_pci_addr a = { 0, 0x01, 0x00, 0 };
	struct tu_pci_addr b = { 0x10000, 0xff, 0x1f, 7 };
	char buf[32];
	int n;

	n = tu_fmt_pci_bus_id(buf, sizeof(buf), &a);
	is_str(buf, "0000:01:00.0", "bus id 0:1:0.0");
	is_int(n, 12, "bus id length");
	tu_fmt_pci_bus_id(buf, sizeof(buf), &b);
	is_str(buf, "10000:ff:1f.7", "bus id with a 5-digit (VMD) domain");
	tu_fmt_pci_bus_id(buf, 5, &a);
	is_str(buf, "0000", "bus id truncates to the buffer");
}

static void check_parse(const char *s, bool valid, uint32_t domain,
			unsigned int bus, unsigned int dev, unsigned int func)
{
	struct tu_pci_addr a = { 0xdead, 0xee, 0xee, 0xee };
	bool r = tu_parse_pci_bus_id(s, &a);

	if (!valid) {
		ok(!r, "\"%s\" is rejected", s);
		return;
	}
	ok(r && a.domain == domain && a.bus == bus && a.dev == dev && a.func == func,
	   "\"%s\" parses to %04" PRIx32 ":%02x:%02x.%x", s, domain, bus, dev, func);
	if (r && !(a.domain == domain && a.bus == bus && a.dev == dev && a.func == func))
		diag("got %04" PRIx32 ":%02x:%02x.%x", a.domain, a.bus, a.dev, a.func);
}

static void test_pci_parse(void)
{
	struct tu_pci_addr a;
	char buf[32];

	check_parse("0000:01:00.0", true, 0, 1, 0, 0);
	check_parse("00000000:01:00.0", true, 0, 1, 0, 0);      /* nvidia-smi */
	check_parse("01:00.0", true, 0, 1, 0, 0);               /* lspci */
	check_parse("0000:0A:1F.7", true, 0, 0x0a, 0x1f, 7);
	check_parse("0001:ff:1f.7", true, 1, 0xff, 0x1f, 7);
	check_parse("0000:01:20.0", false, 0, 0, 0, 0);         /* device 32 */
	check_parse("0000:01:00.8", false, 0, 0, 0, 0);         /* function 8 */
	check_parse("0000:1:00.0", false, 0, 0, 0, 0);
	check_parse("000:01:00.0", false, 0, 0, 0, 0);
	check_parse("0000:01:00.0 ", false, 0, 0, 0, 0);
	check_parse("0000:01:00", false, 0, 0, 0, 0);
	check_parse("0000:0g:00.0", false, 0, 0, 0, 0);
	check_parse("0000-01-00.0", false, 0, 0, 0, 0);
	check_parse("", false, 0, 0, 0, 0);
	check_parse("0", false, 0, 0, 0, 0);
	ok(!tu_parse_pci_bus_id(NULL, &a), "NULL is rejected");

	/* Format and parse agree. */
	ok(tu_parse_pci_bus_id("0000:3b:02.1", &a), "parse 0000:3b:02.1");
	tu_fmt_pci_bus_id(buf, sizeof(buf), &a);
	is_str(buf, "0000:3b:02.1", "parse then format round-trips");
}

static void test_pci_cmp(void)
{
	struct tu_pci_addr a = { 0, 1, 0, 0 }, b = { 0, 2, 0, 0 };
	struct tu_pci_addr c = { 1, 0, 0, 0 }, d = { 0, 1, 0, 1 };
	struct tu_pci_addr e = { 0, 1, 3, 0 };

	ok(tu_pci_addr_cmp(&a, &b) < 0, "bus 1 sorts before bus 2");
	ok(tu_pci_addr_cmp(&b, &a) > 0, "bus 2 sorts after bus 1");
	ok(tu_pci_addr_cmp(&b, &c) < 0, "domain outranks bus");
	ok(tu_pci_addr_cmp(&a, &d) < 0, "function orders within a device");
	ok(tu_pci_addr_cmp(&d, &e) < 0, "device outranks function");
	ok(tu_pci_addr_cmp(&a, &a) == 0, "equal addresses compare equal");
}

static void test_sizes(void)
{
	char buf[32];

	is_int(tu_bytes_to_mib(16 * GiB), 16384, "16 GiB is 16384 MiB (P100)");
	is_int(tu_bytes_to_mib(24 * GiB), 24576, "24 GiB is 24576 MiB (P40)");
	is_int(tu_bytes_to_mib(12 * GiB), 12288, "12 GiB is 12288 MiB (M40)");
	is_int(tu_bytes_to_mib(MiB - 1), 0, "MiB round down");
	is_int(tu_bytes_to_mib(1000000000ull), 953, "10^9 bytes is 953 MiB");
	is_str(tu_fmt_mib(buf, sizeof(buf), 16 * GiB, " "), "16384 MiB", "MiB with a blank");
	is_str(tu_fmt_mib(buf, sizeof(buf), 16 * GiB, ""), "16384MiB", "MiB, table style");
	is_str(tu_fmt_mib(buf, sizeof(buf), 0, " "), "0 MiB", "zero MiB");

	is_int(tu_roundup_pow2(16 * GiB), 16 * GiB, "BAR1 of 16 GiB VRAM");
	is_int(tu_roundup_pow2(12 * GiB), 16 * GiB, "BAR1 of 12 GiB VRAM");
	is_int(tu_roundup_pow2(24 * GiB), 32 * GiB, "BAR1 of 24 GiB VRAM");
	is_int(tu_roundup_pow2(3), 4, "roundup 3");
	is_int(tu_roundup_pow2(1), 1, "roundup 1");
	is_int(tu_roundup_pow2(0), 1, "roundup 0");
	is_int(tu_roundup_pow2((1ull << 63) + 1), 0, "roundup overflow gives 0");
}

static void test_watts(void)
{
	char buf[32];

	is_str(tu_fmt_watts(buf, sizeof(buf), 250000, true), "250.00 W", "250 W");
	is_str(tu_fmt_watts(buf, sizeof(buf), 250000, false), "250.00", "250 W, no unit");
	is_str(tu_fmt_watts(buf, sizeof(buf), 123456, false), "123.46", "rounds half up");
	is_str(tu_fmt_watts(buf, sizeof(buf), 123454, false), "123.45", "rounds down");
	is_str(tu_fmt_watts(buf, sizeof(buf), 5, false), "0.01", "5 mW");
	is_str(tu_fmt_watts(buf, sizeof(buf), 4, false), "0.00", "4 mW");
	is_str(tu_fmt_watts(buf, sizeof(buf), 999999, false), "1000.00", "carry into watts");
	is_str(tu_fmt_watts(buf, sizeof(buf), UINT32_MAX, false), "4294967.30",
	       "UINT32_MAX mW does not wrap");
}

static void test_misc_fmt(void)
{
	char buf[64];

	is_str(tu_fmt_iface_version(buf, sizeof(buf), 1u << 16), "1.0", "iface 1.0");
	is_str(tu_fmt_iface_version(buf, sizeof(buf), 0x0002000a), "2.10", "iface 2.10");
	is_str(tu_fmt_engines(buf, sizeof(buf),
			      TGPU_ENGINE_COMPUTE | TGPU_ENGINE_CE0 | TGPU_ENGINE_CE1),
	       "compute ce0 ce1", "all engines");
	is_str(tu_fmt_engines(buf, sizeof(buf), TGPU_ENGINE_CE1), "ce1", "one engine");
	is_str(tu_fmt_engines(buf, sizeof(buf), 0), "none", "no engine");
	is_str(tu_fmt_engines(buf, sizeof(buf), TGPU_ENGINE_COMPUTE | 0x100),
	       "compute 0x100", "unknown engine bits are shown");
	is_str(tu_fmt_engines(buf, sizeof(buf), 0x80000000u), "0x80000000",
	       "only unknown bits");
	is_str(tu_fmt_engines(buf, 8, 7), "compute", "engines truncate to the buffer");
}

/*
 * The kernel's encoder (<linux/ascii85.h>), written again here: five
 * base-85 digits from '!', most significant first, 'z' for zero.
 */
static void a85_encode(uint32_t v, char *out)
{
	int i;

	if (!v) {
		strcpy(out, "z");
		return;
	}
	out[5] = 0;
	for (i = 5; i--; ) {
		out[i] = (char)('!' + v % 85);
		v /= 85;
	}
}

static void test_ascii85(void)
{
	static const uint32_t words[] = {
		0, 1, 84, 85, 0xdeadbeef, 0x7fffffff, 0xffffffff, 0x100, 0,
	};
	char text[256] = "", g[8];
	uint32_t out[16];
	unsigned int i;
	long n;

	for (i = 0; i < ARRAY_SIZE(words); i++) {
		a85_encode(words[i], g);
		strcat(text, g);
		if (i == 3)
			strcat(text, "\n    ");	/* a blob's line break */
	}
	n = tu_ascii85_decode(text, out, ARRAY_SIZE(out));
	ok(n == (long)ARRAY_SIZE(words) && !memcmp(out, words, sizeof(words)),
	   "ascii85: %zu words, zeros as 'z' and a line break, decode to themselves (%ld)",
	   ARRAY_SIZE(words), n);
	ok(tu_ascii85_decode("s8W-!", out, 1) == 1 && out[0] == 0xffffffff,
	   "ascii85: s8W-! is 0xffffffff");
	ok(tu_ascii85_decode("s8W-\"", out, 1) == -1,
	   "ascii85: a group above 0xffffffff is refused");
	ok(tu_ascii85_decode("!!!", out, 4) == -1, "ascii85: a short group is refused");
	ok(tu_ascii85_decode("!!!!v", out, 4) == -1, "ascii85: a character past 'u' is refused");
	ok(tu_ascii85_decode("zzz", out, 2) == -1, "ascii85: more words than room is refused");
	ok(tu_ascii85_decode("", out, 2) == 0, "ascii85: nothing is no words");
}

int main(void)
{
	test_chip_decode();
	test_param_names();
	test_pci_fmt();
	test_pci_parse();
	test_pci_cmp();
	test_sizes();
	test_watts();
	test_misc_fmt();
	test_ascii85();
	return tap_done();
}
