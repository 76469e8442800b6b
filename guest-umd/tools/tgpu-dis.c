// SPDX-License-Identifier: MIT
/*
 * tgpu-dis: print a kernel image file (or, with --raw, a file of bare
 * 64-bit words) as assembly that tgpu-as turns back into the same file;
 * with --pushbuffer, print a command stream's method headers and methods
 * by name.
 */
#include <getopt.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <tgpu/channel.h>
#include <tgpu/copy.h>
#include <tgpu/isa.h>

#include "tgpu-kimage.h"
#include "libtgpu.h"
#include "tgpu-util.h"

#define EXIT_USAGE 2

static void usage(FILE *f)
{
	fprintf(f,
		"usage: tgpu-dis [--raw] FILE\n"
		"       tgpu-dis --pushbuffer FILE\n"
		"       tgpu-dis --help | --version\n"
		"Disassemble a tgpu kernel image (as tgpu-as writes it) to standard output.\n"
		"--raw: FILE is bare little-endian 64-bit instructions, no header.\n"
		"--pushbuffer: FILE is a command stream (little-endian 32-bit dwords):\n"
		"  print each method header and each method with its name and data.\n"
		"FILE may be '-' for standard input.  Exit status: 0 ok, 1 error, 2 bad usage.\n");
}

/* The method's name: a host method, or one of the subchannel's class. */
static const char *method_name(uint32_t cls, uint32_t m)
{
	const char *name;

	if (m < TGPU_HOST_METHOD_LIMIT)
		name = tgpu_host_method_name(m);
	else if (cls == TGPU_CLASS_COPY)
		name = tgpu_ce_method_name(m);
	else if (cls == TGPU_CLASS_COMPUTE)
		name = tgpu_gr_method_name(m);
	else
		return "(no class bound)";
	return name ? name : "(unknown)";
}

/*
 * --pushbuffer: decode the dwords as the host unit does (docs/hw/
 * channels.md), tracking SET_OBJECT per subchannel.  1 (and a message
 * naming the dword) on a malformed stream, after printing what was good.
 */
static int dump_pushbuffer(const char *name, const uint8_t *buf, size_t len)
{
	static const char *const ops[8] = {
		[TGPU_PB_OP_INC] = "INC", [TGPU_PB_OP_NON_INC] = "NON_INC",
		[TGPU_PB_OP_IMMD] = "IMMD", [TGPU_PB_OP_ONE_INC] = "ONE_INC",
	};
	uint32_t cls[TGPU_PB_NR_SUBCH] = { 0 };
	size_t n = len / 4, i = 0;

	if (len % 4) {
		fprintf(stderr, "tgpu-dis: %s: %zu bytes is not a whole number of 32-bit dwords\n",
			name, len);
		return 1;
	}
	while (i < n) {
		uint32_t hdr = tu_get_le32(buf + 4 * i), op = hdr >> TGPU_PB_OP_SHIFT;
		uint32_t count = (hdr >> TGPU_PB_COUNT_SHIFT) & TGPU_PB_COUNT_MASK;
		uint32_t subch = (hdr >> TGPU_PB_SUBCH_SHIFT) & TGPU_PB_SUBCH_MASK;
		uint32_t m = (hdr & TGPU_PB_METHOD_MASK) << 2, j;

		if (!ops[op]) {
			fprintf(stderr, "tgpu-dis: %s: dword %zu: 0x%08x is not a method header (opcode %u)\n",
				name, i, hdr, op);
			return 1;
		}
		if (op == TGPU_PB_OP_IMMD) {
			printf("%6zu: %08x IMMD subch %u %s (0x%03x) = 0x%x\n", i, hdr, subch,
			       method_name(cls[subch], m), m, count);
			if (m == TGPU_M_SET_OBJECT)
				cls[subch] = count;
			i++;
			continue;
		}
		printf("%6zu: %08x %s subch %u method 0x%03x count %u\n", i, hdr, ops[op], subch,
		       m, count);
		for (j = 0, i++; j < count; j++, i++) {
			uint32_t d;

			if (i >= n) {
				fprintf(stderr, "tgpu-dis: %s: the header at dword %zu wants %u more dwords than the file has\n",
					name, i - j - 1, count - j);
				return 1;
			}
			d = tu_get_le32(buf + 4 * i);
			printf("%6zu: %08x   %s (0x%03x) = 0x%08x\n", i, d,
			       method_name(cls[subch], m), m, d);
			if (m == TGPU_M_SET_OBJECT)
				cls[subch] = d & 0xffff;
			if (op == TGPU_PB_OP_INC || op == TGPU_PB_OP_ONE_INC)
				m = (m + 4) & (TGPU_PB_METHOD_MASK << 2);
			if (op == TGPU_PB_OP_ONE_INC)
				op = TGPU_PB_OP_NON_INC;
		}
	}
	return 0;
}

int main(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "raw", no_argument, NULL, 'r' },
		{ "pushbuffer", no_argument, NULL, 'p' },
		{ "help", no_argument, NULL, 'h' },
		{ "version", no_argument, NULL, 'V' },
		{ NULL, 0, NULL, 0 },
	};
	struct tgpu_kernel_image img;
	const char *in, *name;
	char err[256], *text;
	int c, rc, raw = 0, pushbuffer = 0;
	uint8_t *buf;
	size_t len;

	opterr = 0;
	while ((c = getopt_long(argc, argv, "rphV", longopts, NULL)) != -1) {
		switch (c) {
		case 'r':
			raw = 1;
			break;
		case 'p':
			pushbuffer = 1;
			break;
		case 'h':
			usage(stdout);
			return 0;
		case 'V':
			printf("tgpu-dis %s\n", TGPU_VERSION);
			return 0;
		default:
			fprintf(stderr, "tgpu-dis: unknown option '%s'\n", argv[optind - 1]);
			usage(stderr);
			return EXIT_USAGE;
		}
	}
	if (raw && pushbuffer) {
		fprintf(stderr, "tgpu-dis: --raw and --pushbuffer do not go together\n");
		usage(stderr);
		return EXIT_USAGE;
	}
	if (argc - optind != 1) {
		fprintf(stderr, "tgpu-dis: %s\n", argc == optind ? "no input file" :
			"one input file at a time");
		usage(stderr);
		return EXIT_USAGE;
	}
	in = argv[optind];
	name = strcmp(in, "-") ? in : "<stdin>";

	rc = kimage_read_file(in, &buf, &len);
	if (rc) {
		fprintf(stderr, "tgpu-dis: %s: %s\n", name, strerror(-rc));
		return 1;
	}
	if (pushbuffer) {
		rc = dump_pushbuffer(name, buf, len);
		free(buf);
		if (fflush(stdout) || ferror(stdout)) {
			fprintf(stderr, "tgpu-dis: writing the listing failed\n");
			return 1;
		}
		return rc;
	}
	rc = kimage_decode(buf, len, raw, &img, err, sizeof(err));
	free(buf);
	if (rc) {
		fprintf(stderr, "tgpu-dis: %s: %s\n", name, err);
		return 1;
	}
	text = tgpu_disassemble(img.insns, img.ninsns);
	if (!text) {
		fprintf(stderr, "tgpu-dis: %s: out of memory\n", name);
		tgpu_kernel_image_free(&img);
		return 1;
	}
	/* The directives first, so that tgpu-as rebuilds the same header. */
	if (img.shared_size)
		printf(".shared %u\n", img.shared_size);
	if (img.param_size)
		printf(".param %u\n", img.param_size);
	fputs(text, stdout);
	free(text);
	tgpu_kernel_image_free(&img);
	if (fflush(stdout) || ferror(stdout)) {
		fprintf(stderr, "tgpu-dis: writing the listing failed\n");
		return 1;
	}
	return 0;
}
