// SPDX-License-Identifier: MIT
/*
 * Runs the built tgpu-as and tgpu-dis (paths in argv[1] and argv[2]):
 * the kernel image file format byte by byte, assemble -> disassemble ->
 * assemble giving the same file, --raw, --pushbuffer, standard input, and
 * the exit statuses and messages of bad usage and bad input.
 */
#include <fcntl.h>
#include <stdint.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <tgpu/channel.h>
#include <tgpu/copy.h>

#include "tap.h"

struct run {
	int status;             /* exit status, or -1 if it did not exit */
	char out[16384];
	char err[4096];
};

static char dir[64];

static void slurp(FILE *f, char *buf, size_t len)
{
	size_t n;

	rewind(f);
	n = fread(buf, 1, len - 1, f);
	buf[n] = '\0';
	fclose(f);
}

/* Run prog with args; stdin from the file in_path if not NULL. */
static void run(struct run *r, const char *prog, const char *in_path, const char *const *args)
{
	const char *argv[16] = { prog };
	FILE *out = tmpfile(), *err = tmpfile();
	int i, st, fd;
	pid_t pid;

	for (i = 0; args[i] && i < 14; i++)
		argv[i + 1] = args[i];
	argv[i + 1] = NULL;

	fflush(stdout);
	pid = fork();
	if (pid == 0) {
		if (in_path) {
			fd = open(in_path, O_RDONLY);
			dup2(fd, 0);
		}
		dup2(fileno(out), 1);
		dup2(fileno(err), 2);
		execv(prog, (char *const *)argv);
		_exit(127);
	}
	waitpid(pid, &st, 0);
	r->status = WIFEXITED(st) ? WEXITSTATUS(st) : -1;
	slurp(out, r->out, sizeof(r->out));
	slurp(err, r->err, sizeof(r->err));
}

#define ARGS(...) ((const char *const[]){ __VA_ARGS__, NULL })
#define NOARGS ((const char *const[]){ NULL })

static const char *path(const char *name)
{
	static char buf[4][128];
	static int i;
	char *p = buf[i++ % 4];

	snprintf(p, 128, "%s/%s", dir, name);
	return p;
}

static void write_file(const char *p, const void *data, size_t len)
{
	FILE *f = fopen(p, "wb");

	if (!f || fwrite(data, 1, len, f) != len)
		diag("cannot write %s", p);
	if (f)
		fclose(f);
}

/* The file's bytes into buf; its size, or -1. */
static long read_file(const char *p, unsigned char *buf, size_t len)
{
	FILE *f = fopen(p, "rb");
	size_t n;

	if (!f)
		return -1;
	n = fread(buf, 1, len, f);
	fclose(f);
	return (long)n;
}

static const char kernel[] =
	"; scale a vector\n"
	".param 16\n"
	".shared 0x100\n"
	"        s2r r0, tid.x\n"
	"        ldc.64 r2, c[rz]\n"
	"top:    isetp.ge p0, r0, 0x40\n"
	"        @p0 bra done\n"
	"        fmul r1, r1, 0.5f\n"
	"        bra top\n"
	"done:   exit\n";

static const char listing[] =
	".shared 256\n"
	".param 16\n"
	"\ts2r r0, tid.x\n"
	"\tldc.64 r2, c[rz]\n"
	"L2:\tisetp.ge p0, r0, 0x40\n"
	"\t@p0 bra L6\n"
	"\tfmul r1, r1, 0.5f\n"
	"\tbra L2\n"
	"L6:\texit\n";

static void test_usage(const char *as, const char *dis)
{
	static struct run r;

	run(&r, as, NULL, NOARGS);
	is_int(r.status, 2, "tgpu-as without arguments exits 2");
	has_str(r.err, "tgpu-as: no input file\nusage: tgpu-as [-o OUT.bin] IN.s", "... with usage");
	run(&r, as, NULL, ARGS("-x", "a.s"));
	is_int(r.status, 2, "tgpu-as -x exits 2");
	has_str(r.err, "tgpu-as: unknown option '-x'\nusage:", "... naming the option");
	run(&r, as, NULL, ARGS("a.s", "-o"));
	is_int(r.status, 2, "tgpu-as -o without a file exits 2");
	has_str(r.err, "tgpu-as: option '-o' needs an argument\nusage:", "... saying so");
	run(&r, as, NULL, ARGS("a.s", "b.s"));
	is_int(r.status, 2, "tgpu-as with two inputs exits 2");
	has_str(r.err, "tgpu-as: one input file at a time", "... saying so");
	run(&r, as, NULL, ARGS("--help"));
	ok(r.status == 0 && strstr(r.out, "usage: tgpu-as"), "tgpu-as --help");
	run(&r, as, NULL, ARGS("--version"));
	ok(r.status == 0 && strncmp(r.out, "tgpu-as ", 8) == 0, "tgpu-as --version");

	run(&r, dis, NULL, NOARGS);
	is_int(r.status, 2, "tgpu-dis without arguments exits 2");
	has_str(r.err, "usage: tgpu-dis [--raw] FILE", "... with usage");
	run(&r, dis, NULL, ARGS("--bogus", "x"));
	is_int(r.status, 2, "tgpu-dis --bogus exits 2");
	has_str(r.err, "tgpu-dis: unknown option '--bogus'", "... naming the option");
}

static void test_roundtrip(const char *as, const char *dis)
{
	static const unsigned char header[20] = {
		'T', 'G', 'P', 'K', 1, 0, 0, 0, 7, 0, 0, 0, 0, 1, 0, 0, 16, 0, 0, 0,
	};
	/* exit, the last instruction: 0x0000000000000701 little-endian */
	static const unsigned char exit_le[8] = { 0x01, 0x07, 0, 0, 0, 0, 0, 0 };
	static unsigned char a[4096], b[4096];
	static struct run r;
	long na, nb;

	write_file(path("k.s"), kernel, strlen(kernel));
	run(&r, as, NULL, ARGS(path("k.s")));
	is_int(r.status, 0, "tgpu-as k.s exits 0");
	is_str(r.err, "", "... silently");
	na = read_file(path("k.bin"), a, sizeof(a));
	is_int(na, 20 + 7 * 8, "k.s -> k.bin: a 20-byte header and 7 instructions");
	ok(na >= 20 && memcmp(a, header, 20) == 0,
	   "header: TGPK, version 1, 7 instructions, shared 256, param 16 (little-endian)");
	ok(na == 76 && memcmp(a + 68, exit_le, 8) == 0, "the last word is exit, little-endian");

	run(&r, dis, NULL, ARGS(path("k.bin")));
	is_int(r.status, 0, "tgpu-dis k.bin exits 0");
	is_str(r.out, listing, "tgpu-dis prints the directives and the listing");

	write_file(path("k2.s"), r.out, strlen(r.out));
	run(&r, as, NULL, ARGS("-o", path("k2.out"), path("k2.s")));
	is_int(r.status, 0, "tgpu-as -o k2.out k2.s exits 0");
	nb = read_file(path("k2.out"), b, sizeof(b));
	ok(na == nb && memcmp(a, b, (size_t)na) == 0, "the listing assembles to the same file");

	/* standard input in, standard output out */
	run(&r, as, path("k.s"), ARGS("-o", "-", "-"));
	ok(r.status == 0 && memcmp(r.out, a, 20) == 0, "tgpu-as -o - - (stdin to stdout)");
	run(&r, dis, path("k.bin"), ARGS("-"));
	is_str(r.out, listing, "tgpu-dis - reads standard input");
}

static void test_raw(const char *dis)
{
	/* bra 0x1 ; exit ; a word that is no instruction */
	static const unsigned char words[24] = {
		0x03, 0x07, 0, 0x10, 1, 0, 0, 0,
		0x01, 0x07, 0, 0, 0, 0, 0, 0,
		0xef, 0xcd, 0xab, 0x89, 0x67, 0x45, 0x23, 0x01,
	};
	static struct run r;

	write_file(path("w.raw"), words, sizeof(words));
	run(&r, dis, NULL, ARGS("--raw", path("w.raw")));
	is_int(r.status, 0, "tgpu-dis --raw exits 0");
	is_str(r.out, "\tbra L1\nL1:\texit\n\t.word 0x0123456789abcdef\n",
	       "tgpu-dis --raw prints bare words");
	write_file(path("odd.raw"), words, 12);
	run(&r, dis, NULL, ARGS("--raw", path("odd.raw")));
	is_int(r.status, 1, "a raw file of 12 bytes exits 1");
	has_str(r.err, "odd.raw: 12 bytes is not a whole number of 64-bit instructions",
		"... saying why");
	run(&r, dis, NULL, ARGS(path("w.raw")));
	is_int(r.status, 1, "a raw file without --raw exits 1");
	has_str(r.err, "w.raw: not a tgpu kernel image (no \"TGPK\" header; --raw reads "
		"bare 64-bit words)", "... and suggests --raw");
}

static void test_errors(const char *as, const char *dis)
{
	static const unsigned char v2[20] = { 'T', 'G', 'P', 'K', 2 };
	static const unsigned char short_img[28] = { 'T', 'G', 'P', 'K', 1, 0, 0, 0, 2 };
	static struct run r;
	char want[256];

	write_file(path("bad.s"), "exit\n  frob r0\n", 15);
	run(&r, as, NULL, ARGS(path("bad.s")));
	is_int(r.status, 1, "tgpu-as of a bad source exits 1");
	snprintf(want, sizeof(want), "tgpu-as: %s:2:3: unknown mnemonic 'frob' (not an "
		 "instruction of <tgpu/isa.h>)\n", path("bad.s"));
	is_str(r.err, want, "... with tgpu-as: file:line:col: message");
	ok(access(path("bad.bin"), F_OK) != 0, "... and writes no output file");

	run(&r, as, path("bad.s"), ARGS("-o", path("x.bin"), "-"));
	is_str(r.err, "tgpu-as: <stdin>:2:3: unknown mnemonic 'frob' (not an instruction of "
	       "<tgpu/isa.h>)\n", "standard input is <stdin> in messages");

	run(&r, as, NULL, ARGS(path("missing.s")));
	is_int(r.status, 1, "tgpu-as of a missing file exits 1");
	snprintf(want, sizeof(want), "tgpu-as: %s: No such file or directory\n",
		 path("missing.s"));
	is_str(r.err, want, "... with the file and strerror");

	write_file(path("v2.bin"), v2, sizeof(v2));
	run(&r, dis, NULL, ARGS(path("v2.bin")));
	is_int(r.status, 1, "an image of version 2 exits 1");
	has_str(r.err, "v2.bin: kernel image version 2, this tool reads version 1",
		"... naming the versions");
	write_file(path("short.bin"), short_img, sizeof(short_img));
	run(&r, dis, NULL, ARGS(path("short.bin")));
	is_int(r.status, 1, "a truncated image exits 1");
	has_str(r.err, "short.bin: the header says 2 instructions (36 bytes) but the file has "
		"28 bytes", "... with the sizes");
}

/*
 * --pushbuffer names methods from the contract's tables, by the class
 * each subchannel was bound to.  Headers are encoded by hand here.
 */
static void test_pushbuffer(const char *dis)
{
	uint32_t pb[32];
	unsigned char bytes[sizeof(pb)];
	static struct run r;
	unsigned int n = 0;

	pb[n++] = 1u << 29 | 1 << 16 | 3 << 13 | TGPU_M_SET_OBJECT >> 2;	/* INC subch 3 */
	pb[n++] = TGPU_CLASS_COPY;
	pb[n++] = 1u << 29 | 2 << 16 | 3 << 13 | TGPU_CE_M_OFFSET_IN_UPPER >> 2;
	pb[n++] = 0x1;
	pb[n++] = 0x2000;
	pb[n++] = 4u << 29 | 5 << 16 | 3 << 13 | TGPU_CE_M_LAUNCH_DMA >> 2;	/* IMMD */
	pb[n++] = 4u << 29 | 0 << 16 | 1 << 13 | TGPU_CE_M_LAUNCH_DMA >> 2;	/* unbound subch 1 */
	pb[n++] = 4u << 29 | 0 << 16 | 3 << 13 | 0x7fc >> 2;			/* no such method */
	n += tgpu_pb_sem(pb + n, 0x12345678, 7, TGPU_SEM_OP_RELEASE);
	for (unsigned int i = 0; i < n; i++) {
		bytes[4 * i] = pb[i];
		bytes[4 * i + 1] = pb[i] >> 8;
		bytes[4 * i + 2] = pb[i] >> 16;
		bytes[4 * i + 3] = pb[i] >> 24;
	}
	write_file(path("p.pb"), bytes, 4 * n);
	run(&r, dis, NULL, ARGS("--pushbuffer", path("p.pb")));
	is_int(r.status, 0, "tgpu-dis --pushbuffer exits 0");
	is_str(r.out,
	       "     0: 20016000 INC subch 3 method 0x000 count 1\n"
	       "     1: 0000c0b5   SET_OBJECT (0x000) = 0x0000c0b5\n"
	       "     2: 20026100 INC subch 3 method 0x400 count 2\n"
	       "     3: 00000001   OFFSET_IN_UPPER (0x400) = 0x00000001\n"
	       "     4: 00002000   OFFSET_IN_LOWER (0x404) = 0x00002000\n"
	       "     5: 800560c0 IMMD subch 3 LAUNCH_DMA (0x300) = 0x5\n"
	       "     6: 800020c0 IMMD subch 1 (no class bound) (0x300) = 0x0\n"
	       "     7: 800061ff IMMD subch 3 (unknown) (0x7fc) = 0x0\n"
	       "     8: 20050017 INC subch 0 method 0x05c count 5\n"
	       "     9: 12345678   SEM_ADDR_LO (0x05c) = 0x12345678\n"
	       "    10: 00000000   SEM_ADDR_HI (0x060) = 0x00000000\n"
	       "    11: 00000007   SEM_PAYLOAD_LO (0x064) = 0x00000007\n"
	       "    12: 00000000   SEM_PAYLOAD_HI (0x068) = 0x00000000\n"
	       "    13: 00000001   SEM_EXECUTE (0x06c) = 0x00000001\n",
	       "tgpu-dis --pushbuffer names host and class methods, by the bound class");

	write_file(path("short.pb"), bytes, 4 * 4);
	run(&r, dis, NULL, ARGS("--pushbuffer", path("short.pb")));
	is_int(r.status, 1, "a pushbuffer cut inside a method's data exits 1");
	has_str(r.err, "short.pb: the header at dword 2 wants 1 more dwords than the file has",
		"... naming the header");
	bytes[0] = bytes[1] = bytes[2] = 0;
	bytes[3] = 0x40;	/* opcode 2 */
	write_file(path("bad.pb"), bytes, 4 * n);
	run(&r, dis, NULL, ARGS("--pushbuffer", path("bad.pb")));
	is_int(r.status, 1, "a word that is no header exits 1");
	has_str(r.err, "bad.pb: dword 0: 0x40000000 is not a method header (opcode 2)",
		"... saying which dword");
	write_file(path("odd.pb"), bytes, 6);
	run(&r, dis, NULL, ARGS("--pushbuffer", path("odd.pb")));
	has_str(r.err, "odd.pb: 6 bytes is not a whole number of 32-bit dwords",
		"6 bytes: not dwords");
	run(&r, dis, NULL, ARGS("--pushbuffer", "--raw", path("p.pb")));
	is_int(r.status, 2, "--pushbuffer with --raw exits 2");
}

int main(int argc, char **argv)
{
	if (argc != 3) {
		fprintf(stderr, "usage: %s PATH-TO-TGPU-AS PATH-TO-TGPU-DIS\n", argv[0]);
		return 99;
	}
	snprintf(dir, sizeof(dir), "/tmp/tgpu-asm-cli.XXXXXX");
	if (!mkdtemp(dir)) {
		perror("mkdtemp");
		return 99;
	}
	test_usage(argv[1], argv[2]);
	test_roundtrip(argv[1], argv[2]);
	test_raw(argv[2]);
	test_pushbuffer(argv[2]);
	test_errors(argv[1], argv[2]);

	{
		static const char *const files[] = {
			"k.s", "k.bin", "k2.s", "k2.out", "w.raw", "odd.raw", "bad.s",
			"v2.bin", "short.bin", "x.bin",
		};
		size_t i;

		for (i = 0; i < sizeof(files) / sizeof(files[0]); i++)
			unlink(path(files[i]));
		rmdir(dir);
	}
	return tap_done();
}
