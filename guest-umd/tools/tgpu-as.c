// SPDX-License-Identifier: MIT
/*
 * tgpu-as: assemble a compute kernel into a kernel image file.
 * The syntax is libtgpu's (docs/umd.md, "Assembler"); the file format
 * is in tgpu-kimage.h.
 */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "tgpu-kimage.h"
#include "libtgpu.h"

#define EXIT_USAGE 2

static void usage(FILE *f)
{
	fprintf(f,
		"usage: tgpu-as [-o OUT.bin] IN.s\n"
		"       tgpu-as --help | --version\n"
		"Assemble a tgpu compute kernel (syntax: docs/umd.md, \"Assembler\").\n"
		"IN.s may be '-' for standard input.  Without -o the output is IN with\n"
		"its .s extension replaced by .bin (a.bin for standard input); '-o -'\n"
		"writes to standard output.  Exit status: 0 ok, 1 error, 2 bad usage.\n");
}

static char *default_output(const char *in)
{
	size_t n = strlen(in);
	char *out;

	if (strcmp(in, "-") == 0)
		return strdup("a.bin");
	if (n > 2 && strcmp(in + n - 2, ".s") == 0)
		n -= 2;
	out = malloc(n + 5);
	if (out)
		snprintf(out, n + 5, "%.*s.bin", (int)n, in);
	return out;
}

static int write_all(const char *path, const uint8_t *buf, size_t len)
{
	FILE *f = strcmp(path, "-") ? fopen(path, "wb") : stdout;
	int err = 0;

	if (!f)
		return -errno;
	if (fwrite(buf, 1, len, f) != len)
		err = -EIO;
	if (f == stdout ? fflush(f) : fclose(f))
		err = err ?: -errno;
	if (err && f != stdout)
		unlink(path);
	return err;
}

/* in (name in messages) to out; the exit status. */
static int assemble(const char *in, const char *name, const char *out)
{
	struct tgpu_kernel_image img;
	uint8_t *src, *bin;
	char err[512];
	size_t len;
	int rc;

	rc = kimage_read_file(in, &src, &len);
	if (rc) {
		fprintf(stderr, "tgpu-as: %s: %s\n", name, strerror(-rc));
		return 1;
	}
	if (strlen((const char *)src) != len) {
		fprintf(stderr, "tgpu-as: %s: a NUL byte in the source (is it a binary?)\n",
			name);
		free(src);
		return 1;
	}
	rc = tgpu_assemble((const char *)src, &img, err, sizeof(err));
	free(src);
	if (rc) {
		fprintf(stderr, "tgpu-as: %s:%s\n", name, err);
		return 1;
	}
	bin = kimage_encode(&img, &len);
	tgpu_kernel_image_free(&img);
	if (!bin) {
		fprintf(stderr, "tgpu-as: out of memory\n");
		return 1;
	}
	rc = write_all(out, bin, len);
	free(bin);
	if (rc) {
		fprintf(stderr, "tgpu-as: %s: %s\n", out, strerror(-rc));
		return 1;
	}
	return 0;
}

int main(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "output", required_argument, NULL, 'o' },
		{ "help", no_argument, NULL, 'h' },
		{ "version", no_argument, NULL, 'V' },
		{ NULL, 0, NULL, 0 },
	};
	const char *in, *name, *out = NULL;
	char *outbuf = NULL;
	int c, rc;

	opterr = 0;
	while ((c = getopt_long(argc, argv, ":o:hV", longopts, NULL)) != -1) {
		switch (c) {
		case 'o':
			out = optarg;
			break;
		case 'h':
			usage(stdout);
			return 0;
		case 'V':
			printf("tgpu-as %s\n", TGPU_VERSION);
			return 0;
		case ':':
			fprintf(stderr, "tgpu-as: option '%s' needs an argument\n", argv[optind - 1]);
			usage(stderr);
			return EXIT_USAGE;
		default:
			fprintf(stderr, "tgpu-as: unknown option '%s'\n", argv[optind - 1]);
			usage(stderr);
			return EXIT_USAGE;
		}
	}
	if (argc - optind != 1) {
		fprintf(stderr, "tgpu-as: %s\n", argc == optind ? "no input file" :
			"one input file at a time");
		usage(stderr);
		return EXIT_USAGE;
	}
	in = argv[optind];
	name = strcmp(in, "-") ? in : "<stdin>";
	if (!out) {
		out = outbuf = default_output(in);
		if (!out) {
			fprintf(stderr, "tgpu-as: out of memory\n");
			return 1;
		}
	}

	rc = assemble(in, name, out);
	free(outbuf);
	return rc;
}
