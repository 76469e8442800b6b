// SPDX-License-Identifier: MIT
/*
 * tgpu-coredump: print a tgpu devcoredump readably, as Mesa's crashdec
 * does for msm: the guilty channel first, then the dump with its ascii85
 * blobs decoded: the instance block field by field, the VM root's valid
 * entries, the GPFIFO entries as address and length, and every
 * pushbuffer segment method by method, by name (docs/driver/kmd.md,
 * "Devcoredump").
 *
 *   tgpu-coredump FILE        (FILE: /sys/class/devcoredump/devcdN/data,
 *                              a copy of it, or - for standard input)
 */
#include <errno.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <tgpu/channel.h>
#include <tgpu/copy.h>
#include <tgpu/isa.h>

#include "tgpu-ascii85.h"
#include "tgpu-pbdump.h"
#include "tgpu-util.h"

#define EXIT_USAGE 2
/* the KMD writes at most 4096 dwords a segment, a 4 KiB VM root */
#define MAX_WORDS 4096

static char *read_all(FILE *f, size_t *len)
{
	size_t cap = 1 << 16, n = 0, got;
	char *buf = malloc(cap + 1), *p;

	while (buf && (got = fread(buf + n, 1, cap - n, f)) > 0) {
		n += got;
		if (n == cap) {
			p = realloc(buf, 2 * cap + 1);
			if (!p) {
				free(buf);
				return NULL;
			}
			buf = p;
			cap *= 2;
		}
	}
	if (buf)
		buf[n] = 0;
	*len = n;
	return buf;
}

static size_t indent_of(const char *line)
{
	return strspn(line, " ");
}

/* "  key: value" of @text's first line starting with @key, or NULL. */
static const char *find_value(const char *text, const char *key, char *out, size_t n)
{
	size_t klen = strlen(key);
	const char *p = text;

	while (p && *p) {
		const char *s = p + indent_of(p);

		if (!strncmp(s, key, klen) && s[klen] == ':' && s[klen + 1] == ' ') {
			size_t l = strcspn(s + klen + 2, "\n");

			if (l >= n)
				l = n - 1;
			memcpy(out, s + klen + 2, l);
			out[l] = 0;
			return out;
		}
		p = strchr(p, '\n');
		if (p)
			p++;
	}
	return NULL;
}

static void print_instance(const uint32_t *w, long n)
{
	uint8_t b[TGPU_INST_FIELDS_SIZE];
	long i;

	if (n * 4 < TGPU_INST_FIELDS_SIZE) {
		printf("    (instance block: %ld dwords, too short)\n", n);
		return;
	}
	for (i = 0; i < TGPU_INST_FIELDS_SIZE / 4; i++)
		tu_put_le32(b + 4 * i, w[i]);
	printf("    flags 0x%x%s%s, asid %u, pdb 0x%010" PRIx64 "\n",
	       tu_get_le32(b + TGPU_INST_FLAGS),
	       tu_get_le32(b + TGPU_INST_FLAGS) & TGPU_INST_FLAGS_PAGED ? " PAGED" : "",
	       tu_get_le32(b + TGPU_INST_FLAGS) & TGPU_INST_FLAGS_PRIV ? " PRIV" : "",
	       tu_get_le32(b + TGPU_INST_ASID), tu_get_le64(b + TGPU_INST_PDB));
	printf("    gpfifo 0x%010" PRIx64 " (2^%u entries), engine %u, userd 0x%010" PRIx64 "\n",
	       tu_get_le64(b + TGPU_INST_GPFIFO_BASE),
	       tu_get_le32(b + TGPU_INST_GPFIFO_LOG2), tu_get_le32(b + TGPU_INST_ENGINE),
	       tu_get_le64(b + TGPU_INST_USERD));
	printf("    priority %u, timeslice %u us, acquire timeout %u us\n",
	       tu_get_le32(b + TGPU_INST_PRIORITY), tu_get_le32(b + TGPU_INST_TIMESLICE_US),
	       tu_get_le32(b + TGPU_INST_ACQ_TIMEOUT_US));
}

static void print_root(const uint32_t *w, long n)
{
	unsigned int valid = 0;
	long i;

	for (i = 0; i + 1 < n; i += 2) {
		uint64_t e = w[i] | (uint64_t)w[i + 1] << 32;

		if (!e)
			continue;
		printf("    entry %ld: 0x%016" PRIx64 "\n", i / 2, e);
		valid++;
	}
	printf("    %u non-zero entries of %ld\n", valid, n / 2);
}

static void print_gp_entry(const char *line)
{
	const char *p = strstr(line, "entry: 0x");
	uint64_t e, va;
	uint32_t e0, e1, len;

	if (!p)
		return;
	e = strtoull(p + 7, NULL, 16);
	e0 = (uint32_t)e;
	e1 = (uint32_t)(e >> 32);
	va = (e0 & TGPU_GP_ENTRY0_ADDR_MASK) |
	     (uint64_t)(e1 & TGPU_GP_ENTRY1_ADDR_HI_MASK) << 32;
	len = (e1 >> TGPU_GP_ENTRY1_LENGTH_SHIFT) & TGPU_GP_ENTRY1_LENGTH_MASK;
	printf("      -> pushbuffer 0x%010" PRIx64 ", %u dwords%s\n", va, len,
	       e1 & TGPU_GP_ENTRY1_SYNC ? ", SYNC" : "");
}

int main(int argc, char **argv)
{
	static uint32_t words[MAX_WORDS];
	uint32_t cls[TGPU_PB_NR_SUBCH] = { 0 };
	char section[64] = "", v[4][128], *text, *line, *next;
	const char *name;
	bool ended = false;
	int bad = 0;
	size_t len;
	FILE *f;

	if (argc != 2 || !strcmp(argv[1], "--help")) {
		fprintf(argc == 2 ? stdout : stderr,
			"usage: tgpu-coredump FILE\n"
			"Print a tgpu devcoredump (/sys/class/devcoredump/devcdN/data) with its\n"
			"blobs decoded and its pushbuffers method by method.  FILE may be '-'.\n"
			"Exit status: 0 ok, 1 not a tgpu dump or a damaged one, 2 bad usage.\n");
		return argc == 2 ? 0 : EXIT_USAGE;
	}
	name = strcmp(argv[1], "-") ? argv[1] : "<stdin>";
	f = strcmp(argv[1], "-") ? fopen(argv[1], "r") : stdin;
	if (!f) {
		fprintf(stderr, "tgpu-coredump: %s: %s\n", name, strerror(errno));
		return 1;
	}
	text = read_all(f, &len);
	if (f != stdin)
		fclose(f);
	if (!text) {
		fprintf(stderr, "tgpu-coredump: %s: out of memory\n", name);
		return 1;
	}
	if (strncmp(text, "# tgpu devcoredump", 18) ||
	    !find_value(text, "format", v[0], sizeof(v[0])) || strcmp(v[0], "1")) {
		fprintf(stderr, "tgpu-coredump: %s: not a tgpu devcoredump of format 1\n", name);
		free(text);
		return 1;
	}
	if (find_value(text, "channel", v[0], sizeof(v[0])) &&
	    find_value(text, "pid", v[1], sizeof(v[1])) &&
	    find_value(text, "comm", v[2], sizeof(v[2])) &&
	    find_value(text, "reason", v[3], sizeof(v[3])))
		printf("guilty: channel %s (pid %s, %s): %s\n\n", v[0], v[1], v[2], v[3]);
	/*
	 * A channel runs on one engine, so a class bound by an earlier job
	 * (outside the dump) can only be that engine's.
	 */
	if (find_value(text, "engine", v[0], sizeof(v[0]))) {
		uint32_t c = !strcmp(v[0], "compute") ? TGPU_CLASS_COMPUTE :
			     !strncmp(v[0], "ce", 2) ? TGPU_CLASS_COPY : 0;
		unsigned int i;

		for (i = 0; i < TGPU_PB_NR_SUBCH; i++)
			cls[i] = c;
	}

	for (line = text; line && *line; line = next) {
		size_t ind = indent_of(line), l;
		char *blob;
		long n;

		next = strchr(line, '\n');
		if (next)
			*next++ = 0;
		if (!ind && strchr(line, ':')) {
			l = strcspn(line, ":");
			snprintf(section, sizeof(section), "%.*s", (int)l, line);
		}
		if (!strcmp(line, "end: true"))
			ended = true;
		if (!strstr(line, ": !!ascii85 |")) {
			puts(line);
			if (!strcmp(section, "gpfifo"))
				print_gp_entry(line);
			continue;
		}
		/* the blob: every following line indented deeper */
		printf("%.*s: (%s)\n", (int)strcspn(line, ":"), line, "decoded below");
		blob = next;
		while (next && *next && indent_of(next) > ind) {
			char *e = strchr(next, '\n');

			next = e ? e + 1 : NULL;
			if (e)
				*e = ' ';
		}
		if (next)
			next[-1] = 0;
		n = blob ? tu_ascii85_decode(blob, words, MAX_WORDS) : -1;
		if (n < 0) {
			fprintf(stderr, "tgpu-coredump: %s: a blob in \"%s\" is not ascii85\n",
				name, section);
			bad = 1;
			continue;
		}
		if (!strcmp(section, "instance")) {
			print_instance(words, n);
		} else if (!strcmp(section, "vm")) {
			print_root(words, n);
		} else if (!strcmp(section, "pushbuffers")) {
			uint8_t *b = malloc((size_t)n * 4 + 1);
			long i;

			if (!b)
				return 1;
			for (i = 0; i < n; i++)
				tu_put_le32(b + 4 * i, words[i]);
			if (tu_pb_print(stdout, "tgpu-coredump", name, b, (size_t)n * 4, cls))
				bad = 1;
			free(b);
		} else {
			printf("    %ld dwords\n", n);
		}
	}
	if (!ended) {
		fprintf(stderr, "tgpu-coredump: %s: the dump has no end (truncated)\n", name);
		bad = 1;
	}
	free(text);
	if (fflush(stdout) || ferror(stdout))
		return 1;
	return bad;
}
