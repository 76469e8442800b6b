// SPDX-License-Identifier: MIT
/*
 * The InfoROM file format of <tgpu/ecc.h> (encoder and decoder, which the
 * device model uses too) and the built tgpu-inforom (path in argv[1]):
 * create, list, add, clear, the files they write byte by byte, and the
 * exit statuses and messages of bad usage and bad files.
 */
#include <stdarg.h>
#include <stdint.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <tgpu/ecc.h>

#include "tap.h"

static const char *tool;
static char dir[64];
static int status;
static char out[8192], err[4096];

static void slurp(const char *p, char *buf, size_t len)
{
	FILE *f = fopen(p, "r");
	size_t n = f ? fread(buf, 1, len - 1, f) : 0;

	buf[n] = '\0';
	if (f)
		fclose(f);
}

/* Run tgpu-inforom with printf-formatted, shell-quoted arguments. */
__attribute__((format(printf, 1, 2)))
static void run(const char *fmt, ...)
{
	char cmd[1024], args[512];
	va_list ap;
	int st;

	va_start(ap, fmt);
	vsnprintf(args, sizeof(args), fmt, ap);
	va_end(ap);
	snprintf(cmd, sizeof(cmd), "'%s' %s >'%s/out' 2>'%s/err'", tool, args,
		 dir, dir);
	st = system(cmd);
	status = WIFEXITED(st) ? WEXITSTATUS(st) : -1;
	snprintf(cmd, sizeof(cmd), "%s/out", dir);
	slurp(cmd, out, sizeof(out));
	snprintf(cmd, sizeof(cmd), "%s/err", dir);
	slurp(cmd, err, sizeof(err));
}

static long file_bytes(const char *name, uint8_t *buf, size_t len)
{
	char p[128];
	FILE *f;
	size_t n;

	snprintf(p, sizeof(p), "%s/%s", dir, name);
	f = fopen(p, "rb");
	if (!f)
		return -1;
	n = fread(buf, 1, len, f);
	fclose(f);
	return (long)n;
}

static void put_file(const char *name, const void *data, size_t len)
{
	char p[128];
	FILE *f;

	snprintf(p, sizeof(p), "%s/%s", dir, name);
	f = fopen(p, "wb");
	if (!f || fwrite(data, 1, len, f) != len)
		diag("cannot write %s", p);
	if (f)
		fclose(f);
}

static void test_format(void)
{
	struct tgpu_inforom rom = { .count = 2, .sbe_aggregate = 0x1234567890ull, .dbe_aggregate = 3 }, back;
	uint8_t buf[TGPU_INFOROM_MAX_SIZE], v1[TGPU_INFOROM_MAX_SIZE];
	unsigned long len;
	uint32_t sum;

	rom.ent[0] = (struct tgpu_inforom_entry){ 0x123456789000ull, 1, 1700000000 };
	rom.ent[1] = (struct tgpu_inforom_entry){ 0x1000, 2, 0x1122334455667788ull };
	len = tgpu_inforom_encode(&rom, buf);
	is_int(len, 32 + 2 * 24, "two entries encode to 80 bytes (header, ECC block, entries)");
	ok(!memcmp(buf, "IROM\x02\x00\x02\x00", 8), "header: magic, version 2, count 2, little-endian");
	ok(!memcmp(buf + 16, "\x90\x78\x56\x34\x12\x00\x00\x00\x03\x00\x00\x00\x00\x00\x00\x00", 16),
	   "ECC block: aggregate SBE and DBE counts, u64 little-endian");
	ok(!memcmp(buf + 32, "\x00\x90\x78\x56\x34\x12\x00\x00\x01\x00\x00\x00\x00\x00\x00\x00", 16),
	   "entry 0: address and cause little-endian, reserved zero");
	ok(tgpu_inforom_decode(buf, len, &back) == NULL && back.count == 2 && back.version == 2 &&
	   back.ent[0].addr == rom.ent[0].addr && back.ent[1].time == rom.ent[1].time &&
	   back.ent[1].cause == 2 && back.sbe_aggregate == rom.sbe_aggregate &&
	   back.dbe_aggregate == 3, "decode gives back what was encoded, counts included");

	/* a version 1 file: the same without the ECC block */
	memcpy(v1, buf, 16);
	memcpy(v1 + 16, buf + 32, 2 * 24);
	v1[4] = 1;
	memset(v1 + 8, 0, 4);
	sum = tgpu_inforom_fnv1a(v1, 16 + 2 * 24);
	memcpy(v1 + 8, &sum, 4);	/* the test runs little-endian */
	ok(tgpu_inforom_decode(v1, 16 + 2 * 24, &back) == NULL && back.version == 1 &&
	   back.count == 2 && back.ent[1].addr == 0x1000 && back.sbe_aggregate == 0 &&
	   back.dbe_aggregate == 0, "a version 1 file still decodes: its pages, no counts");
	is_str(tgpu_inforom_decode(v1, 32 + 2 * 24, &back),
	       "file size does not match the retired-page count", "version 1 has no ECC block");
	v1[4] = 3;
	is_str(tgpu_inforom_decode(v1, 16 + 2 * 24, &back), "unsupported InfoROM version",
	       "version 3 is refused");

	buf[20] ^= 0x10;
	is_str(tgpu_inforom_decode(buf, len, &back), "checksum mismatch", "a flipped bit is a checksum mismatch");
	buf[20] ^= 0x10;
	is_str(tgpu_inforom_decode(buf, len - 1, &back), "file size does not match the retired-page count",
	       "a truncated file is refused");
	is_str(tgpu_inforom_decode(buf, 15, &back), "file too short for the InfoROM header", "so is a stub");
	buf[6] = 65;
	is_str(tgpu_inforom_decode(buf, len, &back), "retired-page count exceeds the maximum of 64",
	       "a count of 65 is refused before the size is looked at");
	buf[6] = 2;

	rom.ent[1].addr = 0x1800;
	len = tgpu_inforom_encode(&rom, buf);
	is_str(tgpu_inforom_decode(buf, len, &back), "a retired page address is not 4 KiB aligned",
	       "an unaligned address is refused (checksum valid)");
	rom.ent[1].addr = 0x1000;
	rom.ent[1].cause = 3;
	len = tgpu_inforom_encode(&rom, buf);
	is_str(tgpu_inforom_decode(buf, len, &back), "a retired page has an unknown cause",
	       "an unknown cause is refused");

	rom.count = 0;
	len = tgpu_inforom_encode(&rom, buf);
	ok(len == 32 && tgpu_inforom_decode(buf, len, &back) == NULL && back.count == 0,
	   "an empty table is the header and the ECC block");
}

static void test_cli(void)
{
	uint8_t buf[TGPU_INFOROM_MAX_SIZE + 8];
	struct tgpu_inforom rom;
	char args[256];
	time_t before = time(NULL);
	long len;
	int i;

	run("%s", "");
	is_int(status, 2, "no arguments: exit 2");
	has_str(err, "usage: tgpu-inforom create FILE", "... with usage");
	run("frob x");
	is_int(status, 2, "an unknown command: exit 2");
	has_str(err, "unknown command or wrong arguments: 'frob'", "... naming it");
	run("--help");
	ok(status == 0 && strstr(out, "add PAGE [sbe|dbe] FILE"), "--help: usage on stdout, exit 0");

	run("list '%s/none.bin'", dir);
	is_int(status, 1, "list of a missing file: exit 1");
	has_str(err, "none.bin: No such file or directory (make one with 'tgpu-inforom create", "... saying how");

	run("create '%s/ir.bin'", dir);
	is_int(status, 0, "create: exit 0");
	len = file_bytes("ir.bin", buf, sizeof(buf));
	ok(len == 32 && tgpu_inforom_decode(buf, (unsigned long)len, &rom) == NULL && rom.count == 0 &&
	   rom.version == 2 && rom.sbe_aggregate == 0, "create writes an empty, valid table, version 2");
	run("create '%s/ir.bin'", dir);
	is_int(status, 1, "create over an existing file: exit 1");
	has_str(err, "ir.bin exists (use 'tgpu-inforom clear", "... and it is kept");

	run("add 0x1000 sbe '%s/ir.bin'", dir);
	is_int(status, 0, "add 0x1000 sbe: exit 0");
	run("add 0x3ffff000 '%s/ir.bin'", dir);
	is_int(status, 0, "add 0x3ffff000 (default cause): exit 0");
	len = file_bytes("ir.bin", buf, sizeof(buf));
	ok(len == 32 + 2 * 24 && tgpu_inforom_decode(buf, (unsigned long)len, &rom) == NULL &&
	   rom.count == 2 && rom.ent[0].addr == 0x1000 && rom.ent[0].cause == TGPU_RETIRED_CAUSE_SBE &&
	   rom.ent[1].addr == 0x3ffff000 && rom.ent[1].cause == TGPU_RETIRED_CAUSE_DBE,
	   "the file holds both pages in order, the default cause dbe");
	ok(rom.ent[0].time >= (uint64_t)before && rom.ent[0].time <= (uint64_t)time(NULL) + 1,
	   "timestamped now");

	run("list '%s/ir.bin'", dir);
	ok(status == 0 && strstr(out, "version 2, 2 of 64 retired pages") &&
	   strstr(out, "aggregate ECC errors: 0 single-bit, 0 double-bit") &&
	   strstr(out, " 0  0x000000001000  sbe  ") && strstr(out, " 1  0x00003ffff000  dbe  "),
	   "list shows the version, the count, the ECC counts and each page with its cause");

	run("add 0x1000 dbe '%s/ir.bin'", dir);
	ok(status == 1 && strstr(err, "page 0x1000 is already retired"), "a page twice: exit 1, saying so");
	run("add 0x1001 '%s/ir.bin'", dir);
	ok(status == 1 && strstr(err, "0x1001 is not 4 KiB aligned"), "an unaligned page: exit 1");
	run("add 12ab '%s/ir.bin'", dir);
	ok(status == 1 && strstr(err, "'12ab' is not a page address"), "not a number: exit 1");
	run("add 0x2000 tbe '%s/ir.bin'", dir);
	ok(status == 1 && strstr(err, "unknown cause 'tbe'"), "an unknown cause: exit 1");
	len = file_bytes("ir.bin", buf, sizeof(buf));
	is_int(len, 32 + 2 * 24, "failed adds leave the file alone");

	for (i = 2; i < TGPU_INFOROM_MAX_RETIRED; i++) {
		run("add %#x '%s/ir.bin'", 0x100000 + i * 0x1000, dir);
		if (status)
			break;
	}
	is_int(i, TGPU_INFOROM_MAX_RETIRED, "64 pages fit");
	run("add 0x7000000 '%s/ir.bin'", dir);
	ok(status == 1 && strstr(err, "is full: 64 pages retired already"), "the 65th is refused");

	/* a corrupt file: list and add refuse it, clear repairs it */
	len = file_bytes("ir.bin", buf, sizeof(buf));
	buf[40] ^= 1;
	put_file("ir.bin", buf, (size_t)len);
	run("list '%s/ir.bin'", dir);
	ok(status == 1 && strstr(err, "ir.bin is malformed: checksum mismatch"), "list of a corrupt file: exit 1");
	run("clear '%s/ir.bin'", dir);
	is_int(status, 0, "clear: exit 0");
	len = file_bytes("ir.bin", buf, sizeof(buf));
	ok(len == 32 && tgpu_inforom_decode(buf, (unsigned long)len, &rom) == NULL && rom.count == 0,
	   "clear leaves an empty, valid table");
	/* a version 1 file lists; add makes it version 2, its page kept */
	{
		uint8_t v1[16 + 24] = "IROM\x01\x00\x01\x00";
		uint32_t sum;

		v1[16 + 1] = 0x50;	/* page 0x5000 */
		v1[16 + 8] = TGPU_RETIRED_CAUSE_SBE;
		sum = tgpu_inforom_fnv1a(v1, sizeof(v1));
		memcpy(v1 + 8, &sum, 4);
		put_file("v1.bin", v1, sizeof(v1));
		run("list '%s/v1.bin'", dir);
		ok(status == 0 && strstr(out, "version 1, 1 of 64 retired pages") &&
		   strstr(out, "none recorded (a version 1 file") &&
		   strstr(out, " 0  0x000000005000  sbe  "), "list of a version 1 file");
		run("add 0x6000 '%s/v1.bin'", dir);
		len = file_bytes("v1.bin", buf, sizeof(buf));
		ok(status == 0 && len == 32 + 2 * 24 &&
		   tgpu_inforom_decode(buf, (unsigned long)len, &rom) == NULL && rom.version == 2 &&
		   rom.count == 2 && rom.ent[0].addr == 0x5000 && rom.ent[1].addr == 0x6000,
		   "add to a version 1 file writes version 2 with both pages");
		snprintf(args, sizeof(args), "%s/v1.bin", dir);
		unlink(args);
	}
	/* n itself is left out: the shell may create it before ls looks */
	snprintf(args, sizeof(args), "ls -A '%s' | grep -cvx n >'%s/n'", dir, dir);
	ok(system(args) == 0, "count the files");
	snprintf(args, sizeof(args), "%s/n", dir);
	slurp(args, out, sizeof(out));
	/* ir.bin, out and err: no temporary file left behind */
	is_int(atoi(out), 3, "no temporary files are left behind");
}

int main(int argc, char **argv)
{
	if (argc != 2) {
		fprintf(stderr, "usage: test-inforom PATH-TO-tgpu-inforom\n");
		return 2;
	}
	tool = argv[1];
	snprintf(dir, sizeof(dir), "/tmp/test-inforom.XXXXXX");
	if (!mkdtemp(dir)) {
		perror("mkdtemp");
		return 1;
	}
	test_format();
	test_cli();
	snprintf(out, sizeof(out), "rm -rf '%s'", dir);
	if (system(out))
		diag("cannot remove %s", dir);
	return tap_done();
}
