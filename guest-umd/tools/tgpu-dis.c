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
#include "tgpu-pbdump.h"
#include "libtgpu.h"
#include "tgpu-util.h"

#define EXIT_USAGE 2

static void usage(FILE *f)
{
	fprintf(f,
		"usage: tgpu-dis [--raw] FILE\n"
		"       tgpu-dis --pushbuffer | --pb FILE\n"
		"       tgpu-dis --help | --version\n"
		"Disassemble a tgpu kernel image (as tgpu-as writes it) to standard output.\n"
		"--raw: FILE is bare little-endian 64-bit instructions, no header.\n"
		"--pushbuffer: FILE is a command stream (little-endian 32-bit dwords):\n"
		"  print each method header and each method with its name and data.\n"
		"FILE may be '-' for standard input.  Exit status: 0 ok, 1 error, 2 bad usage.\n");
}

int main(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "raw", no_argument, NULL, 'r' },
		{ "pushbuffer", no_argument, NULL, 'p' },
		{ "pb", no_argument, NULL, 'p' },
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
		uint32_t cls[TGPU_PB_NR_SUBCH] = { 0 };

		rc = tu_pb_print(stdout, "tgpu-dis", name, buf, len, cls);
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
