// SPDX-License-Identifier: MIT
/*
 * tgpu-inforom: make and edit InfoROM files, the retired-page store that
 * QEMU's tgpu device reads with -device tgpu,inforom=FILE.  The format is
 * in include/tgpu/ecc.h (docs/hw/ecc.md); this tool uses its encoder and
 * decoder, as the device does.
 *
 *   tgpu-inforom create FILE            a new file with no retired pages
 *   tgpu-inforom list FILE              print the retired pages
 *   tgpu-inforom add PAGE [sbe|dbe] FILE   retire a page (default dbe)
 *   tgpu-inforom clear FILE             empty the table (also repairs)
 *
 * Exit status: 0 done, 1 failed (the message says why), 2 bad usage.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <tgpu/ecc.h>

static const char *prog = "tgpu-inforom";

static void usage(FILE *f)
{
	fprintf(f,
		"usage: %s create FILE\n"
		"       %s list FILE\n"
		"       %s add PAGE [sbe|dbe] FILE\n"
		"       %s clear FILE\n"
		"PAGE is a 4 KiB aligned VRAM address (e.g. 0x1000); the cause\n"
		"defaults to dbe.  At most %u pages can be retired.  add keeps\n"
		"the aggregate ECC error counts; clear zeroes them too.\n",
		prog, prog, prog, prog, TGPU_INFOROM_MAX_RETIRED);
}

static int fail(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static int fail(const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "%s: ", prog);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	return 1;
}

/* 0, or an exit status after a message. */
static int load(const char *path, struct tgpu_inforom *rom)
{
	uint8_t buf[TGPU_INFOROM_MAX_SIZE + 1];
	const char *why;
	size_t len;
	FILE *f;

	f = fopen(path, "rb");
	if (!f) {
		if (errno == ENOENT)
			return fail("%s: %s (make one with '%s create %s')",
				    path, strerror(errno), prog, path);
		return fail("cannot open %s: %s", path, strerror(errno));
	}
	len = fread(buf, 1, sizeof(buf), f);
	if (ferror(f)) {
		fclose(f);
		return fail("cannot read %s: %s", path, strerror(errno));
	}
	fclose(f);
	if (len > TGPU_INFOROM_MAX_SIZE)
		return fail("%s is malformed: larger than an InfoROM can be (%u bytes)",
			    path, TGPU_INFOROM_MAX_SIZE);
	memset(rom, 0, sizeof(*rom));
	why = tgpu_inforom_decode(buf, len, rom);
	if (why)
		return fail("%s is malformed: %s (start afresh with '%s clear %s')",
			    path, why, prog, path);
	return 0;
}

/* Write the whole file atomically: a temporary file, fsync, rename. */
static int store(const char *path, const struct tgpu_inforom *rom, bool excl)
{
	uint8_t buf[TGPU_INFOROM_MAX_SIZE];
	unsigned long len = tgpu_inforom_encode(rom, buf);
	size_t plen = strlen(path);
	char *tmp = malloc(plen + 16);
	int fd, err;

	if (!tmp)
		return fail("out of memory");
	snprintf(tmp, plen + 16, "%s.tmp.XXXXXX", path);
	fd = mkstemp(tmp);
	if (fd < 0) {
		err = errno;
		free(tmp);
		return fail("cannot create a temporary file beside %s: %s",
			    path, strerror(err));
	}
	if (fchmod(fd, 0644) || write(fd, buf, len) != (ssize_t)len ||
	    fsync(fd)) {
		err = errno;
		close(fd);
		unlink(tmp);
		free(tmp);
		return fail("cannot write %s: %s", path, strerror(err));
	}
	close(fd);
	/* create must not replace: link() fails if the name exists */
	if (excl) {
		if (link(tmp, path)) {
			err = errno;
			unlink(tmp);
			free(tmp);
			if (err == EEXIST)
				return fail("%s exists (use '%s clear %s' to empty it)",
					    path, prog, path);
			return fail("cannot create %s: %s", path, strerror(err));
		}
		unlink(tmp);
	} else if (rename(tmp, path)) {
		err = errno;
		unlink(tmp);
		free(tmp);
		return fail("cannot replace %s: %s", path, strerror(err));
	}
	free(tmp);
	return 0;
}

static int list(const char *path)
{
	struct tgpu_inforom rom;
	char when[32];
	struct tm tm;
	time_t t;
	int rc = load(path, &rom);

	if (rc)
		return rc;
	printf("%s: InfoROM version %u, %u of %u retired pages\n", path,
	       rom.version, rom.count, TGPU_INFOROM_MAX_RETIRED);
	if (rom.version == TGPU_INFOROM_VERSION_1)
		printf("aggregate ECC errors: none recorded (a version 1 file; the next write makes it version %u)\n",
		       TGPU_INFOROM_VERSION);
	else
		printf("aggregate ECC errors: %" PRIu64 " single-bit, %" PRIu64 " double-bit\n",
		       rom.sbe_aggregate, rom.dbe_aggregate);
	for (uint32_t i = 0; i < rom.count; i++) {
		t = (time_t)rom.ent[i].time;
		if (gmtime_r(&t, &tm))
			strftime(when, sizeof(when), "%Y-%m-%d %H:%M:%S UTC", &tm);
		else
			snprintf(when, sizeof(when), "?");
		printf("%2u  0x%012" PRIx64 "  %s  %s\n", i, rom.ent[i].addr,
		       tgpu_retired_cause_name(rom.ent[i].cause), when);
	}
	return 0;
}

static int add(const char *page, const char *cause_s, const char *path)
{
	struct tgpu_inforom rom;
	uint32_t cause = TGPU_RETIRED_CAUSE_DBE;
	unsigned long long addr;
	char *end;
	int rc;

	errno = 0;
	addr = strtoull(page, &end, 0);
	if (!*page || *end || errno || page[0] == '-')
		return fail("'%s' is not a page address (a number, e.g. 0x1000)",
			    page);
	if (addr % TGPU_INFOROM_PAGE_SIZE)
		return fail("page address 0x%llx is not 4 KiB aligned", addr);
	if (cause_s) {
		if (!strcmp(cause_s, "sbe"))
			cause = TGPU_RETIRED_CAUSE_SBE;
		else if (!strcmp(cause_s, "dbe"))
			cause = TGPU_RETIRED_CAUSE_DBE;
		else
			return fail("unknown cause '%s': sbe or dbe", cause_s);
	}
	rc = load(path, &rom);
	if (rc)
		return rc;
	for (uint32_t i = 0; i < rom.count; i++)
		if (rom.ent[i].addr == addr)
			return fail("page 0x%llx is already retired in %s", addr, path);
	if (rom.count >= TGPU_INFOROM_MAX_RETIRED)
		return fail("%s is full: %u pages retired already", path,
			    TGPU_INFOROM_MAX_RETIRED);
	rom.ent[rom.count].addr = addr;
	rom.ent[rom.count].cause = cause;
	rom.ent[rom.count].time = (uint64_t)time(NULL);
	rom.count++;
	return store(path, &rom, false);
}

int main(int argc, char **argv)
{
	static const struct tgpu_inforom empty;
	const char *cmd;

	if (argc == 2 && (!strcmp(argv[1], "-h") || !strcmp(argv[1], "--help"))) {
		usage(stdout);
		return 0;
	}
	if (argc < 3) {
		usage(stderr);
		return 2;
	}
	cmd = argv[1];
	if (!strcmp(cmd, "create") && argc == 3)
		return store(argv[2], &empty, true);
	if (!strcmp(cmd, "list") && argc == 3)
		return list(argv[2]);
	if (!strcmp(cmd, "clear") && argc == 3)
		return store(argv[2], &empty, false);
	if (!strcmp(cmd, "add") && (argc == 4 || argc == 5))
		return add(argv[2], argc == 5 ? argv[3] : NULL, argv[argc - 1]);
	fprintf(stderr, "%s: unknown command or wrong arguments: '%s'\n",
		prog, cmd);
	usage(stderr);
	return 2;
}
