// SPDX-License-Identifier: MIT
/*
 * Unit tests of libtgpu's assembler and disassembler (tgpu_assemble(),
 * tgpu_disassemble(), tgpu_disassemble_one()) against <tgpu/isa.h>.
 *
 * Every opcode of TGPU_ISA_OPCODES with every legal sub value is built
 * from its operand fields, assembled, compared with the TGPU_INSN_R/I
 * encoding of the same fields, disassembled and assembled again.  Known
 * encodings are also checked as literals, so a mistake shared by the
 * encoder macros and the assembler still shows.
 */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>

#include <tgpu/isa.h>

#include "libtgpu.h"
#include "tap.h"
#include "tgpu-util.h"

static const struct {
	const char *name;
	const char *mnem;
	unsigned int op, fmt, akind;
} ops[] = {
#define T_OP(name, op, fmt, akind, mnem) { #name, mnem, op, fmt, akind },
	TGPU_ISA_OPCODES(T_OP)
#undef T_OP
};

static const char *const cmp_names[] = TGPU_CMP_NAMES;
static const char *const w_names[] = TGPU_W_NAMES;
static const char *const atom_names[] = TGPU_ATOM_NAMES;
static const char *const plop_names[] = TGPU_PLOP_NAMES;
static const char *const sr_names[] = TGPU_SR_NAMES;
static const char *const sign_names[] = TGPU_SIGN_NAMES;
static const char *const prmt_names[] = TGPU_PRMT_NAMES;
static const char *const fsh_names[] = TGPU_FSH_NAMES;
static const char *const vote_names[] = TGPU_VOTE_NAMES;
static const char *const shfl_names[] = TGPU_SHFL_NAMES;
static const char *const rnd_names[] = TGPU_RND_NAMES;
static const char *const mufu_names[] = TGPU_MUFU_NAMES;
static const char *const f2i_names[] = TGPU_F2I_NAMES;

/* Assemble src; on success the first word (or 0) in *w. */
static int asm_one(const char *src, uint64_t *w, char *err, size_t errlen)
{
	struct tgpu_kernel_image img;
	int rc = tgpu_assemble(src, &img, err, errlen);

	*w = rc == 0 && img.ninsns ? img.insns[0] : 0;
	tgpu_kernel_image_free(&img);
	return rc;
}

static unsigned int checked;    /* instructions through check_insn() */
static uint64_t all[4096];      /* ... collected for a whole-program round trip */
static size_t nall;

/*
 * src must assemble to exactly want; its disassembly must be an
 * instruction (not .word) and assemble to want again.
 */
static void check_insn(const char *src, uint64_t want)
{
	char err[512], text[160];
	uint64_t w = 0;
	int rc;

	checked++;
	if (nall < ARRAY_SIZE(all))
		all[nall++] = want;
	rc = asm_one(src, &w, err, sizeof(err));
	if (!ok(rc == 0, "assemble \"%s\"", src)) {
		diag("%s", err);
		return;
	}
	is_int((long long)w, (long long)want, "\"%s\" encodes as 0x%016llx", src,
	       (unsigned long long)want);
	tgpu_disassemble_one(want, text, sizeof(text));
	rc = asm_one(text, &w, err, sizeof(err));
	if (!ok(rc == 0 && w == want && strncmp(text, ".word", 5) != 0,
		"\"%s\" disassembles to \"%s\", which assembles back", src, text)) {
		diag("rc %d (%s), got 0x%016llx", rc, rc ? err : "", (unsigned long long)w);
	}
}

/* src must fail with exactly msg ("LINE:COL: ..."). */
static void check_err(const char *src, const char *msg)
{
	struct tgpu_kernel_image img = { 1, 2, 3, NULL };
	char err[512] = "(unset)";
	int rc = tgpu_assemble(src, &img, err, sizeof(err));

	is_int(rc, -EINVAL, "error: %s", msg);
	is_str(err, msg, "message of: %s", msg);
	is_str(tgpu_get_last_error_message(), msg, "last-error message of: %s", msg);
	ok(img.ninsns == 0 && img.insns == NULL && img.shared_size == 0,
	   "the image is empty after: %s", msg);
	tgpu_kernel_image_free(&img);
}

/* ---- every opcode, every legal sub ------------------------------------------ */

#define G_NONE  { "", TGPU_PRED_PT, 0 }

struct guard {
	const char *text;
	unsigned int pg, neg;
};

/* Guards cycle so that each predicate and negation shows up. */
static struct guard next_guard(void)
{
	static const struct guard g[] = {
		{ "@p0 ", 0, 0 }, { "@!p1 ", 1, 1 }, { "@p2 ", 2, 0 }, { "@!p3 ", 3, 1 },
		{ "@P4 ", 4, 0 }, { "@!p5 ", 5, 1 }, { "@p6 ", 6, 0 }, { "@!pt ", 7, 1 },
		{ "@pt ", 7, 0 },
	};
	static unsigned int i;

	return g[i++ % ARRAY_SIZE(g)];
}

static const char *sub_name(unsigned int fmt, unsigned int sub)
{
	switch (fmt) {
	case TGPU_FMT_SETP:
		return sub < TGPU_CMP_COUNT ? cmp_names[sub] : NULL;
	case TGPU_FMT_LD:
	case TGPU_FMT_ST:
		return sub < TGPU_W_COUNT ? w_names[sub] : NULL;
	case TGPU_FMT_ATOM:
		return sub < TGPU_ATOM_COUNT ? atom_names[sub] : NULL;
	case TGPU_FMT_PLOP:
		return sub < TGPU_PLOP_COUNT ? plop_names[sub] : NULL;
	case TGPU_FMT_RABS:
		return sub < TGPU_SIGN_COUNT ? sign_names[sub] : NULL;
	case TGPU_FMT_PRMT:
		return sub < TGPU_PRMT_COUNT ? prmt_names[sub] : NULL;
	case TGPU_FMT_FSH:
		return sub < TGPU_FSH_COUNT ? fsh_names[sub] : NULL;
	case TGPU_FMT_VOTE:
		return sub < TGPU_VOTE_COUNT ? vote_names[sub] : NULL;
	case TGPU_FMT_SHFL:
		return sub < TGPU_SHFL_COUNT ? shfl_names[sub] : NULL;
	case TGPU_FMT_DSETP:
		return sub < TGPU_CMP_COUNT ? cmp_names[sub] : NULL;
	case TGPU_FMT_MUFU:
		return sub < TGPU_MUFU_COUNT ? mufu_names[sub] : NULL;
	case TGPU_FMT_F64:
	case TGPU_FMT_F64FMA:
	case TGPU_FMT_CVT:
	case TGPU_FMT_RABR:
	case TGPU_FMT_RABCR:
		/* rn is the default: no suffix */
		return sub == 0 ? "" : sub < TGPU_RND_COUNT ? rnd_names[sub] : NULL;
	case TGPU_FMT_CVTZ:
		/* rz is f2i's default */
		return sub == 0 ? "" : sub < TGPU_F2I_COUNT ? f2i_names[sub] : NULL;
	}
	return sub == 0 ? "" : NULL;
}

/* One opcode and sub value, all operand forms, unguarded and guarded. */
static void check_op(unsigned int i, unsigned int sub)
{
	const char *m = ops[i].mnem, *sn = sub_name(ops[i].fmt, sub);
	unsigned int op = ops[i].op, k;
	/* b of iadd64 and rc of imad.wide are pairs (docs/hw/isa.md) */
	unsigned int pb = op == TGPU_OP_IADD64 || op == TGPU_OP_ISUB64 ? 32 : 33;
	unsigned int pc = op == TGPU_OP_IMADW ? 62 : 63;
	char src[160], mn[32];

	snprintf(mn, sizeof(mn), "%s%s%s", m, sn && sn[0] ? "." : "", sn ? sn : "");
	for (k = 0; k < 2; k++) {
		struct guard g = k ? next_guard() : (struct guard)G_NONE;
		const char *gt = g.text;
		unsigned int pg = g.pg, ng = g.neg;

#define R(rd, ra, s, rb, rc, imm16) TGPU_INSN_R(op, pg, ng, rd, ra, s, rb, rc, imm16)
#define I(rd, ra, s, imm32) TGPU_INSN_I(op, pg, ng, rd, ra, s, imm32)
#define SRC(...) snprintf(src, sizeof(src), __VA_ARGS__)
		switch (ops[i].fmt) {
		case TGPU_FMT_NONE:
			SRC("%s%s", gt, mn);
			check_insn(src, R(0, 0, 0, 0, 0, 0));
			break;
		case TGPU_FMT_RB:
			SRC("%s%s r10, r33", gt, mn);
			check_insn(src, R(10, 0, 0, 33, 0, 0));
			SRC("%s%s rz, 0x12345678", gt, mn);
			check_insn(src, I(255, 0, 0, 0x12345678));
			SRC("%s%s r63, -2.5f", gt, mn);
			check_insn(src, I(63, 0, 0, 0xc0200000));
			break;
		case TGPU_FMT_RA:
			SRC("%s%s r10, r20", gt, mn);
			check_insn(src, R(10, 20, 0, 0, 0, 0));
			SRC("%s%s rz, rz", gt, mn);
			check_insn(src, R(255, 255, 0, 0, 0, 0));
			break;
		case TGPU_FMT_RAB:
		case TGPU_FMT_RABS:
		case TGPU_FMT_RABR:
			SRC("%s%s r10, r20, r%u", gt, mn, pb);
			check_insn(src, R(10, 20, sub, pb, 0, 0));
			SRC("%s%s r10, r20, 0x89abcdef", gt, mn);
			check_insn(src, I(10, 20, sub, 0x89abcdef));
			SRC("%s%s r10, rz, -1", gt, mn);
			check_insn(src, I(10, 255, sub, 0xffffffff));
			SRC("%s%s r10, r20, -2.5f", gt, mn);
			check_insn(src, I(10, 20, sub, 0xc0200000));
			break;
		case TGPU_FMT_RABC:
		case TGPU_FMT_PRMT:
		case TGPU_FMT_FSH:
		case TGPU_FMT_RABCR:
			SRC("%s%s r10, r21, r33, r%u", gt, mn, pc);
			check_insn(src, R(10, 21, sub, 33, pc, 0));
			SRC("%s%s rz, rz, rz, rz", gt, mn);
			check_insn(src, R(255, 255, sub, 255, 255, 0));
			break;
		case TGPU_FMT_SETP:
			SRC("%s%s p2, r21, r33", gt, mn);
			check_insn(src, R(2, 21, sub, 33, 0, 0));
			SRC("%s%s pt, r21, 0x7fffffff", gt, mn);
			check_insn(src, I(7, 21, sub, 0x7fffffff));
			SRC("%s%s p6, rz, 0.5f", gt, mn);
			check_insn(src, I(6, 255, sub, 0x3f000000));
			break;
		case TGPU_FMT_SEL: {
			/* sub is ps: every predicate */
			char ps[4] = "pt", PS[4] = "PT";

			if (sub != TGPU_PRED_PT) {
				snprintf(ps, sizeof(ps), "p%u", sub);
				snprintf(PS, sizeof(PS), "P%u", sub);
			}
			SRC("%s%s r10, r21, r33, %s", gt, mn, ps);
			check_insn(src, R(10, 21, sub, 33, 0, 0));
			SRC("%s%s r10, r21, 0x100, %s", gt, mn, PS);
			check_insn(src, I(10, 21, sub, 0x100));
			break;
		}
		case TGPU_FMT_B:
			SRC("%s%s r33", gt, mn);
			check_insn(src, R(0, 0, 0, 33, 0, 0));
			SRC("%s%s 0xffffffff", gt, mn);
			check_insn(src, I(0, 0, 0, 0xffffffff));
			SRC("%s%s rz", gt, mn);
			check_insn(src, R(0, 0, 0, 255, 0, 0));
			break;
		case TGPU_FMT_VOTE:
			SRC("%s%s p2, p4", gt, mn);
			check_insn(src, R(2, 4, sub, 0, 0, 0));
			SRC("%s%s pt, !p6", gt, mn);
			check_insn(src, R(7, 6, sub, 0, 0, TGPU_VOTE_NEG));
			SRC("%s%s p0, pt", gt, mn);
			check_insn(src, R(0, 7, sub, 0, 0, 0));
			break;
		case TGPU_FMT_BALLOT:
			SRC("%s%s r10, p4", gt, mn);
			check_insn(src, R(10, 4, 0, 0, 0, 0));
			SRC("%s%s rz, !pt", gt, mn);
			check_insn(src, R(255, 7, 0, 0, 0, TGPU_VOTE_NEG));
			break;
		case TGPU_FMT_F64:
		case TGPU_FMT_PAIRS:
			SRC("%s%s r10, r20, r32", gt, mn);
			check_insn(src, R(10, 20, sub, 32, 0, 0));
			SRC("%s%s rz, rz, r62", gt, mn);
			check_insn(src, R(255, 255, sub, 62, 0, 0));
			break;
		case TGPU_FMT_F64FMA:
			SRC("%s%s r10, r20, r32, r62", gt, mn);
			check_insn(src, R(10, 20, sub, 32, 62, 0));
			SRC("%s%s rz, rz, rz, rz", gt, mn);
			check_insn(src, R(255, 255, sub, 255, 255, 0));
			break;
		case TGPU_FMT_PAIR1:
			SRC("%s%s r10, r20", gt, mn);
			check_insn(src, R(10, 20, sub, 0, 0, 0));
			break;
		case TGPU_FMT_MUFU:
			SRC("%s%s r11, r21", gt, mn);
			check_insn(src, R(11, 21, sub, 0, 0, 0));
			SRC("%s%s rz, r63", gt, mn);
			check_insn(src, R(255, 63, sub, 0, 0, 0));
			break;
		case TGPU_FMT_DSETP:
			SRC("%s%s p2, r20, r32", gt, mn);
			check_insn(src, R(2, 20, sub, 32, 0, 0));
			SRC("%s%s pt, rz, r62", gt, mn);
			check_insn(src, R(7, 255, sub, 62, 0, 0));
			break;
		case TGPU_FMT_CVT:
		case TGPU_FMT_CVTZ: {
			unsigned int rd = tgpu_isa_rd_pair(op) ? 10 : 11;
			unsigned int ra = ops[i].akind == TGPU_A64 ? 20 : 21;

			SRC("%s%s r%u, r%u", gt, mn, rd, ra);
			check_insn(src, R(rd, ra, sub, 0, 0, 0));
			SRC("%s%s rz, rz", gt, mn);
			check_insn(src, R(255, 255, sub, 0, 0, 0));
			break;
		}
		case TGPU_FMT_SHFL:
			SRC("%s%s r10, r21, r33, r63", gt, mn);
			check_insn(src, R(10, 21, sub, 33, 63, 0));
			SRC("%s%s r10, r21, 0x1f, 0x1fff", gt, mn);
			check_insn(src, I(10, 21, sub, TGPU_SHFL_IMM(31, 0x1fff)));
			SRC("%s%s rz, rz, 1, 0x1f", gt, mn);
			check_insn(src, I(255, 255, sub, TGPU_SHFL_IMM(1, 0x1f)));
			break;
		case TGPU_FMT_PLOP:
			SRC("%s%s p2, p4, p6", gt, mn);
			check_insn(src, R(2, 4, sub, 6, 0, 0));
			SRC("%s%s p0, !p4, pt", gt, mn);
			check_insn(src, R(0, 4, sub, 7, 0, TGPU_PLOP_NEG_A));
			SRC("%s%s pt, pt, !p1", gt, mn);
			check_insn(src, R(7, 7, sub, 1, 0, TGPU_PLOP_NEG_B));
			SRC("%s%s p3, !p5, ! p6", gt, mn);
			check_insn(src, R(3, 5, sub, 6, 0, TGPU_PLOP_NEG_A | TGPU_PLOP_NEG_B));
			break;
		case TGPU_FMT_LD: {
			const char *c = op == TGPU_OP_LDC ? "c" : "";
			unsigned int rd = sub == TGPU_W_64 ? 10 : 11;

			SRC("%s%s r%u, %s[r20 + 0x7ffffff0]", gt, mn, rd, c);
			check_insn(src, I(rd, 20, sub, 0x7ffffff0));
			SRC("%s%s r%u, %s[r20 - 0x10]", gt, mn, rd, c);
			check_insn(src, I(rd, 20, sub, 0xfffffff0));
			SRC("%s%s rz, %s[rz]", gt, mn, c);
			check_insn(src, I(255, 255, sub, 0));
			SRC("%s%s r%u, %s[ r62-0x80000000 ]", gt, mn, rd, c);
			check_insn(src, I(rd, 62, sub, 0x80000000));
			break;
		}
		case TGPU_FMT_ST: {
			unsigned int rd = sub == TGPU_W_64 ? 10 : 11;

			SRC("%s%s [r20 + 0x40], r%u", gt, mn, rd);
			check_insn(src, I(rd, 20, sub, 0x40));
			SRC("%s%s [rz-4], rz", gt, mn);
			check_insn(src, I(255, 255, sub, 0xfffffffc));
			SRC("%s%s [r62], r%u", gt, mn, rd);
			check_insn(src, I(rd, 62, sub, 0));
			break;
		}
		case TGPU_FMT_ATOM:
			SRC("%s%s r11, [r20 + 0x7fff], r33, rz", gt, mn);
			check_insn(src, R(11, 20, sub, 33, 255, 0x7fff));
			SRC("%s%s r11, [r20 - 0x8000], r33, r63", gt, mn);
			check_insn(src, R(11, 20, sub, 33, 63, -0x8000));
			SRC("%s%s rz, [rz], rz, rz", gt, mn);
			check_insn(src, R(255, 255, sub, 255, 255, 0));
			break;
		case TGPU_FMT_TARGET:
			SRC("%s%s 0x1234", gt, mn);
			check_insn(src, I(0, 0, 0, 0x1234));
			SRC("%s%s 4294967295", gt, mn);
			check_insn(src, I(0, 0, 0, 0xffffffff));
			break;
		case TGPU_FMT_IMM:
			if (op == TGPU_OP_BAR) {
				SRC("%s%s %u", gt, mn, TGPU_NR_BARRIERS - 1);
				check_insn(src, I(0, 0, 0, TGPU_NR_BARRIERS - 1));
			} else {
				SRC("%s%s 0xdeadbeef", gt, mn);
				check_insn(src, I(0, 0, 0, 0xdeadbeef));
			}
			SRC("%s%s 0", gt, mn);
			check_insn(src, I(0, 0, 0, 0));
			break;
		case TGPU_FMT_S2R: {
			unsigned int s;

			for (s = 0; s < TGPU_SR_COUNT; s++) {
				SRC("%s%s r%u, %s", gt, mn, 30 + s, sr_names[s]);
				check_insn(src, I(30 + s, 0, 0, s));
			}
			break;
		}
		default:
			ok(0, "%s: format %u has no test", m, ops[i].fmt);
		}
#undef R
#undef I
#undef SRC
	}
}

static unsigned int sub_count(unsigned int fmt, unsigned int op)
{
	if (op == TGPU_OP_F2D)
		return 1;       /* exact: rn only */
	switch (fmt) {
	case TGPU_FMT_DSETP:
		return TGPU_CMP_COUNT;
	case TGPU_FMT_MUFU:
		return TGPU_MUFU_COUNT;
	case TGPU_FMT_F64:
	case TGPU_FMT_F64FMA:
	case TGPU_FMT_CVT:
	case TGPU_FMT_CVTZ:
	case TGPU_FMT_RABR:
	case TGPU_FMT_RABCR:
		return TGPU_RND_COUNT;
	case TGPU_FMT_SETP:
		return TGPU_CMP_COUNT;
	case TGPU_FMT_LD:
	case TGPU_FMT_ST:
		return TGPU_W_COUNT;
	case TGPU_FMT_ATOM:
		return TGPU_ATOM_COUNT;
	case TGPU_FMT_PLOP:
		return TGPU_PLOP_COUNT;
	case TGPU_FMT_SEL:
		return 8;       /* ps: p0..p6, pt */
	case TGPU_FMT_RABS:
		return TGPU_SIGN_COUNT;
	case TGPU_FMT_PRMT:
		return TGPU_PRMT_COUNT;
	case TGPU_FMT_FSH:
		return TGPU_FSH_COUNT;
	case TGPU_FMT_VOTE:
		return TGPU_VOTE_COUNT;
	case TGPU_FMT_SHFL:
		return TGPU_SHFL_COUNT;
	}
	return 1;
}

static void test_every_opcode(void)
{
	unsigned int i, j, sub, insns_before;
	bool unique = true;
	char *text;

	for (i = 0; i < ARRAY_SIZE(ops); i++)
		for (j = 0; j < i; j++)
			if (strcmp(ops[i].mnem, ops[j].mnem) == 0 || ops[i].op == ops[j].op)
				unique = false;
	ok(unique, "TGPU_ISA_OPCODES: mnemonics and opcodes are unique");

	for (i = 0; i < ARRAY_SIZE(ops); i++) {
		insns_before = checked;
		for (sub = 0; sub < sub_count(ops[i].fmt, ops[i].op); sub++)
			check_op(i, sub);
		ok(checked > insns_before, "%s (%s): %u instructions checked", ops[i].name,
		   ops[i].mnem, checked - insns_before);
	}

	/* The same instructions as one program, through tgpu_disassemble(). */
	text = tgpu_disassemble(all, nall);
	if (ok(text != NULL, "disassemble all %zu instructions", nall)) {
		struct tgpu_kernel_image img;
		char err[512];
		int rc = tgpu_assemble(text, &img, err, sizeof(err));

		ok(rc == 0 && img.ninsns == nall &&
		   memcmp(img.insns, all, nall * sizeof(*all)) == 0,
		   "the listing of all of them assembles to the same words");
		if (rc)
			diag("%s", err);
		tgpu_kernel_image_free(&img);
		free(text);
	}
}

/* ---- known encodings ---------------------------------------------------------- */

static void test_fields(void)
{
	char err[512];
	uint64_t w;

	/* Literal words, worked out by hand from the bit layout in isa.h. */
	asm_one("exit", &w, err, sizeof(err));
	is_int(w, 0x0000000000000701ll, "exit is 0x0000000000000701");
	asm_one("mov r7, rz", &w, err, sizeof(err));
	is_int(w, 0x000000ff00007710ll, "mov r7, rz");
	asm_one("s2r r0, tid.x", &w, err, sizeof(err));
	is_int(w, 0x0000000010000708ll, "s2r r0, tid.x");
	asm_one("@!p0 bra 26", &w, err, sizeof(err));
	is_int(w, 0x0000001a10000803ll, "@!p0 bra 26");
	asm_one("atomg.cas r9, [r4 - 8], r10, r11", &w, err, sizeof(err));
	is_int(w, (long long)0xfff80b0a80409745ull, "atomg.cas r9, [r4 - 8], r10, r11");
	asm_one("plop.and p1, !p0, pt", &w, err, sizeof(err));
	is_int(w, 0x0001000700001725ll, "plop.and p1, !p0, pt");
	asm_one("prmt.f4e r1, r2, r3, r4", &w, err, sizeof(err));
	is_int(w, 0x000004032020172cll, "prmt.f4e r1, r2, r3, r4");
	asm_one("bfe.u32 r1, r2, 0x0804", &w, err, sizeof(err));
	is_int(w, 0x000008043020172all, "bfe.u32 r1, r2, 0x0804");

	/* Field by field through the TGPU_INSN_* accessors. */
	asm_one("@!p3 isetp.ge p5, r7, r9", &w, err, sizeof(err));
	is_int(TGPU_INSN_OP(w), TGPU_OP_ISETP, "isetp.ge: opcode");
	is_int(TGPU_INSN_PG(w), 3, "isetp.ge: guard predicate");
	is_int(TGPU_INSN_PG_NEG(w), 1, "isetp.ge: guard negated");
	is_int(TGPU_INSN_RD(w), 5, "isetp.ge: pd in rd");
	is_int(TGPU_INSN_RA(w), 7, "isetp.ge: ra");
	is_int(TGPU_INSN_BIMM(w), 0, "isetp.ge: B is a register");
	is_int(TGPU_INSN_SUB(w), TGPU_CMP_GE, "isetp.ge: sub is CMP_GE");
	is_int(TGPU_INSN_RB(w), 9, "isetp.ge: rb");
	is_int(TGPU_INSN_RC(w), 0, "isetp.ge: rc unused");
	is_int(TGPU_INSN_IMM16(w), 0, "isetp.ge: imm16 unused");

	asm_one("ldg.s16 r3, [r8 - 0x20]", &w, err, sizeof(err));
	is_int(TGPU_INSN_OP(w), TGPU_OP_LDG, "ldg.s16: opcode");
	is_int(TGPU_INSN_PG(w), TGPU_PRED_PT, "ldg.s16: unguarded is PT");
	is_int(TGPU_INSN_PG_NEG(w), 0, "ldg.s16: not negated");
	is_int(TGPU_INSN_RD(w), 3, "ldg.s16: rd");
	is_int(TGPU_INSN_RA(w), 8, "ldg.s16: ra");
	is_int(TGPU_INSN_BIMM(w), 1, "ldg.s16: immediate form");
	is_int(TGPU_INSN_SUB(w), TGPU_W_S16, "ldg.s16: sub is W_S16");
	is_int((int32_t)TGPU_INSN_IMM32(w), -0x20, "ldg.s16: offset -0x20");

	asm_one("atoms.xor r1, [r2 - 2], r3, rz", &w, err, sizeof(err));
	is_int(TGPU_INSN_SUB(w), TGPU_ATOM_XOR, "atoms.xor: sub");
	is_int(TGPU_INSN_BIMM(w), 0, "atoms.xor: register form");
	is_int(TGPU_INSN_RB(w), 3, "atoms.xor: rb");
	is_int(TGPU_INSN_RC(w), TGPU_REG_RZ, "atoms.xor: rc is RZ");
	is_int(TGPU_INSN_IMM16(w), -2, "atoms.xor: imm16 offset -2");

	asm_one("sel r1, r2, 5, p4", &w, err, sizeof(err));
	is_int(TGPU_INSN_SUB(w), 4, "sel: ps in sub");
	is_int(TGPU_INSN_BIMM(w), 1, "sel: immediate b sets BIMM");
	is_int(TGPU_INSN_IMM32(w), 5, "sel: imm32");

	asm_one("s2r r9, clock.hi", &w, err, sizeof(err));
	is_int(TGPU_INSN_IMM32(w), TGPU_SR_CLOCK_HI, "s2r: imm32 is the SR index");
	asm_one("s2r r9, 16", &w, err, sizeof(err));
	is_int(TGPU_INSN_IMM32(w), TGPU_SR_CLOCK_HI, "s2r: a number is the SR index");

	/* "imad.wide" is a mnemonic of its own, not imad with a suffix. */
	asm_one("imad.wide r2, r3, r4, r6", &w, err, sizeof(err));
	is_int(TGPU_INSN_OP(w), TGPU_OP_IMADW, "imad.wide is IMADW");
	asm_one("imad r2, r3, r4, r6", &w, err, sizeof(err));
	is_int(TGPU_INSN_OP(w), TGPU_OP_IMAD, "imad is IMAD");

	/* case-insensitive mnemonics, suffixes, registers, SRs, directives */
	asm_one("@!P2 ISETP.LT PT, R1, RZ", &w, err, sizeof(err));
	is_int(w, (long long)TGPU_INSN_R(TGPU_OP_ISETP, 2, 1, 7, 1, TGPU_CMP_LT, 255, 0, 0),
	       "upper case");
	asm_one("S2R R0, NCTAID.Z", &w, err, sizeof(err));
	is_int(TGPU_INSN_IMM32(w), TGPU_SR_NCTAID_Z, "upper-case special register");
	asm_one("IMAD.WIDE R2, R3, R4, R6", &w, err, sizeof(err));
	is_int(TGPU_INSN_OP(w), TGPU_OP_IMADW, "IMAD.WIDE");
}

/* ---- labels, directives, immediates, .word ------------------------------------ */

static void test_labels(void)
{
	static const char src[] =
		"top:\n"
		"        nop\n"
		"        bra fwd            ; forward\n"
		"loop:   bra top            // backward\n"
		"a: b:   @p0 bra loop\n"
		".Lx_1.y:\n"
		"fwd:    ssy end\n"
		"        bra .Lx_1.y\n"
		"        .word 0x701\n"
		"end:\n";
	struct tgpu_kernel_image img;
	char err[512];
	int rc;

	rc = tgpu_assemble(src, &img, err, sizeof(err));
	if (!ok(rc == 0, "labels: assembles")) {
		diag("%s", err);
		return;
	}
	is_int(img.ninsns, 7, "labels: 7 instructions");
	if (img.ninsns == 7) {
		is_int(TGPU_INSN_IMM32(img.insns[1]), 4, "forward reference: bra fwd -> 4");
		is_int(TGPU_INSN_IMM32(img.insns[2]), 0, "backward reference: bra top -> 0");
		is_int(TGPU_INSN_IMM32(img.insns[3]), 2, "two labels on a line, guard: -> 2");
		is_int(TGPU_INSN_IMM32(img.insns[4]), 7, "label at the end: ssy end -> 7");
		is_int(TGPU_INSN_IMM32(img.insns[5]), 4, "label with dots: -> 4");
		is_int(TGPU_INSN_OP(img.insns[4]), TGPU_OP_SSY, "ssy opcode");
		is_int(TGPU_INSN_PG(img.insns[3]), 0, "guarded branch");
		is_int(img.insns[6], 0x701, ".word counts as an instruction");
	}
	tgpu_kernel_image_free(&img);
	ok(img.insns == NULL && img.ninsns == 0, "tgpu_kernel_image_free() empties the image");
	tgpu_kernel_image_free(NULL);
}

static void test_directives(void)
{
	struct tgpu_kernel_image img;
	char err[512];
	int rc;

	rc = tgpu_assemble("  .shared 0x400 ; bytes\n.PARAM 64\nexit\n", &img, err, sizeof(err));
	ok(rc == 0, "directives assemble");
	is_int(img.shared_size, 1024, ".shared 0x400");
	is_int(img.param_size, 64, ".PARAM 64");
	is_int(img.ninsns, 1, "directives are not instructions");
	tgpu_kernel_image_free(&img);

	rc = tgpu_assemble("exit\n", &img, err, sizeof(err));
	ok(rc == 0 && img.shared_size == 0 && img.param_size == 0,
	   "no directives: sizes are 0");
	tgpu_kernel_image_free(&img);

	rc = tgpu_assemble(".shared 49152\n.param 4096\n", &img, err, sizeof(err));
	ok(rc == 0 && img.shared_size == TGPU_GR_SHARED_MAX && img.param_size == TGPU_GR_PARAM_MAX,
	   "the hardware maxima are accepted");
	is_int(img.ninsns, 0, "a program of directives only has no instructions");
	ok(img.insns == NULL, "... and no instruction array");
	tgpu_kernel_image_free(&img);

	rc = tgpu_assemble("", &img, err, sizeof(err));
	ok(rc == 0 && img.ninsns == 0, "the empty program");
	rc = tgpu_assemble("\n\n   \n; only a comment\r\n// and another", &img, err, sizeof(err));
	ok(rc == 0 && img.ninsns == 0, "blank lines and comments only");

	rc = tgpu_assemble("exit\r\nnop ;x\r\n", &img, err, sizeof(err));
	ok(rc == 0 && img.ninsns == 2, "CRLF line ends");
	tgpu_kernel_image_free(&img);
}

static void test_immediates(void)
{
	static const struct {
		const char *src;
		uint32_t bits;
	} f[] = {
		{ "fadd r0, r1, 1.5f", 0x3fc00000 },
		{ "fadd r0, r1, -2e-3f", 0xbb03126f },
		{ "fadd r0, r1, 0.1f", 0x3dcccccd },
		{ "fadd r0, r1, -0f", 0x80000000 },
		{ "fadd r0, r1, 3F", 0x40400000 },
		{ "fadd r0, r1, .5f", 0x3f000000 },
		{ "fadd r0, r1, 1e-45f", 0x00000001 },
		{ "fadd r0, r1, 3.40282347e+38f", 0x7f7fffff },
		{ "mov r0, 1.5f", 0x3fc00000 },
		{ "fsetp.lt p0, r1, -2.5f", 0xc0200000 },
		{ "iadd r0, r1, -1", 0xffffffff },
		{ "iadd r0, r1, -0x80000000", 0x80000000 },
		{ "iadd r0, r1, 4294967295", 0xffffffff },
		{ "iadd r0, r1, 0XFFFFFFFF", 0xffffffff },
		{ "iadd r0, r1, 010", 10 },
	};
	static const struct {
		uint32_t bits;
		const char *text;
	} p[] = {
		{ 0x3fc00000, "fadd r0, r1, 1.5f" },
		{ 0x3dcccccd, "fadd r0, r1, 0.1f" },
		{ 0x80000000, "fadd r0, r1, -0f" },
		{ 0x00000001, "fadd r0, r1, 1e-45f" },
		{ 0x7fc00000, "fadd r0, r1, 0x7fc00000" },     /* NaN: no literal */
		{ 0x7f800000, "fadd r0, r1, 0x7f800000" },     /* +inf */
	};
	char err[512], text[128];
	size_t i;
	uint64_t w;

	for (i = 0; i < ARRAY_SIZE(f); i++) {
		int rc = asm_one(f[i].src, &w, err, sizeof(err));

		ok(rc == 0 && TGPU_INSN_BIMM(w) == 1 && TGPU_INSN_IMM32(w) == f[i].bits,
		   "\"%s\" has imm32 0x%08x", f[i].src, f[i].bits);
		if (rc)
			diag("%s", err);
		else if (TGPU_INSN_IMM32(w) != f[i].bits)
			diag("got 0x%08x", TGPU_INSN_IMM32(w));
	}
	for (i = 0; i < ARRAY_SIZE(p); i++) {
		uint64_t in = TGPU_INSN_I(TGPU_OP_FADD, TGPU_PRED_PT, 0, 0, 1, 0, p[i].bits);

		tgpu_disassemble_one(in, text, sizeof(text));
		is_str(text, p[i].text, "float immediate 0x%08x prints", p[i].bits);
	}
	/* integer ops print their immediates in hex */
	tgpu_disassemble_one(TGPU_INSN_I(TGPU_OP_IADD, TGPU_PRED_PT, 0, 0, 1, 0, 0x3fc00000),
			     text, sizeof(text));
	is_str(text, "iadd r0, r1, 0x3fc00000", "integer immediate prints in hex");
	tgpu_disassemble_one(TGPU_INSN_I(TGPU_OP_BAR, 2, 1, 0, 0, 0, 15), text, sizeof(text));
	is_str(text, "@!p2 bar 0xf", "guarded bar");
}

static void test_word(void)
{
	static const uint64_t junk[] = {
		0x0123456789abcdefull,              /* opcode 0xef is not in the table */
		0x0000000000001701ull,              /* exit with rd = 1 */
		0x0000000000000709ull,              /* opcode 0x09 */
		0x0000000000040710ull,              /* mov with rd 64 */
		0x0000000000300740ull,              /* ldg.u8 register form */
		0x0000000010300740ull,              /* ldg.u8 r0, [r3]: odd address */
		0x00000000d0000740ull,              /* ldg with sub 6 */
		0x0000001010000706ull,              /* bar 16 */
		0x0000001c10000708ull,              /* s2r of SR 28 */
		0x0004000000000725ull,              /* plop with imm16 bit 2 */
		0x0000000700a04716ull,              /* iadd64 r4, r10, r7: odd b */
		0x0000050300a04715ull,              /* imad.wide r4, r10, r3, r5: odd rc */
		0x00000403e020172cull,              /* prmt with mode 7 */
		0x000004034020172dull,              /* fshl with mode 2 */
		0x000008081020172bull,              /* bfi with an immediate */
		0x0000000000000000ull,              /* @p0 nop is fine, see below */
	};
	char err[512], text[128], want[64];
	struct tgpu_kernel_image img;
	size_t i;
	uint64_t w;
	int rc;

	rc = asm_one(".word 0x0123456789abcdef", &w, err, sizeof(err));
	ok(rc == 0 && w == 0x0123456789abcdefull, ".word 0x0123456789abcdef");
	rc = asm_one(".word 18446744073709551615", &w, err, sizeof(err));
	ok(rc == 0 && w == ~0ull, ".word 2^64 - 1 in decimal");
	rc = asm_one("x: .WORD 0x701", &w, err, sizeof(err));
	ok(rc == 0 && w == 0x701, "a labelled .WORD");

	for (i = 0; i + 1 < ARRAY_SIZE(junk); i++) {
		snprintf(want, sizeof(want), ".word 0x%016llx", (unsigned long long)junk[i]);
		tgpu_disassemble_one(junk[i], text, sizeof(text));
		is_str(text, want, "0x%016llx is not an instruction", (unsigned long long)junk[i]);
		rc = asm_one(text, &w, err, sizeof(err));
		ok(rc == 0 && w == junk[i], "... and assembles back");
	}
	tgpu_disassemble_one(0, text, sizeof(text));
	is_str(text, "@p0 nop", "the zero word is @p0 nop");

	rc = tgpu_assemble(".word 0x0000000000000701\n.word 0x0000000010000703\n",
			   &img, err, sizeof(err));
	ok(rc == 0 && img.ninsns == 2, ".word of real instructions");
	if (rc == 0) {
		char *t = tgpu_disassemble(img.insns, img.ninsns);

		is_str(t, "L0:\texit\n\tbra L0\n", "... disassembles as instructions");
		free(t);
	}
	tgpu_kernel_image_free(&img);
}

static void test_listing(void)
{
	static const char src[] =
		"        s2r r0, tid.x\n"
		"        isetp.ge p0, r0, 0x20\n"
		"        @p0 bra out\n"
		"        ssy join\n"
		"back:   iadd r0, r0, 1\n"
		"        @!p1 bra back\n"
		"        sync\n"
		"join:   bra 0x100\n"
		"out:    exit\n";
	static const char want[] =
		"\ts2r r0, tid.x\n"
		"\tisetp.ge p0, r0, 0x20\n"
		"\t@p0 bra L8\n"
		"\tssy L7\n"
		"L4:\tiadd r0, r0, 0x1\n"
		"\t@!p1 bra L4\n"
		"\tsync\n"
		"L7:\tbra 0x100\n"
		"L8:\texit\n";
	struct tgpu_kernel_image img;
	char err[512], buf[8], *t;
	int rc, n;

	rc = tgpu_assemble(src, &img, err, sizeof(err));
	ok(rc == 0, "listing source assembles");
	t = tgpu_disassemble(img.insns, img.ninsns);
	is_str(t, want, "listing: labels at targets, outside targets as numbers");
	free(t);
	/* a branch to the end of the program is outside it */
	t = tgpu_disassemble(img.insns, 8);
	has_str(t, "\t@p0 bra 0x8\n", "a target just past the end prints as a number");
	free(t);
	tgpu_kernel_image_free(&img);

	t = tgpu_disassemble(NULL, 0);
	is_str(t, "", "an empty listing");
	free(t);
	errno = 0;
	ok(tgpu_disassemble(NULL, 1) == NULL && errno == EINVAL, "NULL insns: EINVAL");

	n = tgpu_disassemble_one(TGPU_INSN_R(TGPU_OP_EXIT, TGPU_PRED_PT, 0, 0, 0, 0, 0, 0, 0),
				 buf, sizeof(buf));
	is_int(n, 4, "tgpu_disassemble_one returns the length");
	n = tgpu_disassemble_one(TGPU_INSN_I(TGPU_OP_BRA, 1, 0, 0, 0, 0, 3), buf, 5);
	is_str(buf, "@p1 ", "tgpu_disassemble_one truncates like snprintf");
	is_int(n, 11, "... and returns the full length of \"@p1 bra 0x3\"");
	n = tgpu_disassemble_one(TGPU_INSN_I(TGPU_OP_BRA, 1, 0, 0, 0, 0, 3), NULL, 0);
	is_int(n, 11, "a NULL buffer measures");
}

/* ---- random words ----------------------------------------------------------------- */

static uint64_t rng = 0x9e3779b97f4a7c15ull;

static uint64_t next_rand(void)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return rng;
}

/* A register field: mostly a register, sometimes RZ or any byte. */
static unsigned int pick_reg(void)
{
	uint64_t r = next_rand();

	switch (r % 8) {
	case 0:
		return TGPU_REG_RZ;
	case 1:
		return (unsigned int)(r >> 8) & 0xff;
	case 2:
		return (unsigned int)(r >> 8) & 7;      /* a predicate, too */
	}
	return (unsigned int)(r >> 8) % TGPU_NR_REGS;
}

/* A word from fields: a real opcode, fields that are often legal. */
static uint64_t random_insn(void)
{
	uint64_t r = next_rand();
	unsigned int op = ops[r % ARRAY_SIZE(ops)].op, pg = (r >> 8) & 7, neg = (r >> 11) & 1;
	unsigned int sub = (r >> 12) % 2 ? 0 : (r >> 14) % 6;
	unsigned int rd = (r >> 20) % 2 ? 0 : pick_reg(), ra = (r >> 23) % 2 ? 0 : pick_reg();

	if ((r >> 26) & 1)
		return TGPU_INSN_I(op, pg, neg, rd, ra, sub, (r >> 28) % 3 ? next_rand() % 32 :
				   (uint32_t)next_rand());
	return TGPU_INSN_R(op, pg, neg, rd, ra, sub, (r >> 28) % 2 ? pick_reg() : 0,
			   (r >> 30) % 2 ? pick_reg() : 0,
			   (r >> 32) % 2 ? 0 : (r >> 34) % 2 ? (r >> 40) & 3 : (r >> 40));
}

/* Any 64-bit word: disassemble -> assemble is the identity. */
static void test_random(void)
{
	enum { N = 100000 };
	uint64_t *w = malloc(N * sizeof(*w));
	struct tgpu_kernel_image img;
	size_t i, decoded = 0, nseen;
	bool seen[ARRAY_SIZE(ops)] = { false };
	char err[512], *t, *line;
	int rc;

	if (!ok(w != NULL, "random: memory"))
		return;
	for (i = 0; i < N; i++) {
		uint64_t r = next_rand();

		/*
		 * Some any word, most built from fields, many of them legal;
		 * some with every field but the guard 0 (nop, exit and sync
		 * are legal only so: with 100 opcodes, random fields may
		 * never hit them)
		 */
		switch (i % 5) {
		case 0:
			w[i] = r;
			break;
		case 1:
			w[i] = (r & ~0xffull) | ops[r % ARRAY_SIZE(ops)].op;
			break;
		case 4:
			w[i] = TGPU_INSN(ops[r % ARRAY_SIZE(ops)].op, (r >> 8) & 7, (r >> 11) & 1,
					 0, 0, 0);
			break;
		default:
			w[i] = random_insn();
			break;
		}
	}
	t = tgpu_disassemble(w, N);
	if (!ok(t != NULL, "random: %d words disassemble", N)) {
		free(w);
		return;
	}
	for (line = t; line && *line; line = strchr(line, '\n'), line = line ? line + 1 : NULL) {
		const char *m = strchr(line, '\t');
		size_t k, n;

		if (!m || strncmp(m + 1, ".word", 5) == 0)
			continue;
		decoded++;
		m++;
		if (*m == '@')
			m = strchr(m, ' ') + 1;
		n = strcspn(m, " \n");
		for (k = 0; k < ARRAY_SIZE(ops); k++) {
			size_t ml = strlen(ops[k].mnem);

			if (n >= ml && strncmp(m, ops[k].mnem, ml) == 0 && (n == ml || m[ml] == '.'))
				seen[k] = true;
		}
	}
	ok(decoded > N / 20 && decoded < N, "random: %zu of %d words are instructions",
	   decoded, N);
	for (i = 0, nseen = 0; i < ARRAY_SIZE(ops); i++) {
		nseen += seen[i];
		if (!seen[i])
			diag("random: %s was never decoded", ops[i].mnem);
	}
	is_int(nseen, ARRAY_SIZE(ops), "random: every opcode decoded at least once");
	rc = tgpu_assemble(t, &img, err, sizeof(err));
	ok(rc == 0 && img.ninsns == N && memcmp(img.insns, w, N * sizeof(*w)) == 0,
	   "random: the listing assembles to the same %d words", N);
	if (rc) {
		diag("%s", err);
	} else {
		for (i = 0; i < img.ninsns && i < N; i++) {
			if (img.insns[i] != w[i]) {
				diag("first difference at %zu: 0x%016llx became 0x%016llx", i,
				     (unsigned long long)w[i], (unsigned long long)img.insns[i]);
				break;
			}
		}
	}
	tgpu_kernel_image_free(&img);
	free(t);
	free(w);
}

/* ---- errors ----------------------------------------------------------------------- */

static void test_errors(void)
{
	struct tgpu_kernel_image img;
	char big[64] = "";
	char err[16];
	int rc;

	check_err("nop\n  bra nowhere\n", "2:7: undefined label 'nowhere'");
	check_err("a: nop\nb: nop\n  a: exit\n",
		  "3:3: duplicate label 'a' (first defined at 1:1)");
	check_err("1x: nop", "1:1: bad label '1x': a label starts with a letter, '_' or '.'");

	check_err("iadd r64, r1, r2", "1:6: bad register 'r64': expected r0..r63 or rz");
	check_err("iadd r1, p0, r2",
		  "1:10: expected register ra (r0..r63 or rz), got 'p0'");
	check_err("iadd r1, r2, p0", "1:14: expected operand b, a register (r0..r63 or rz) "
		  "or an immediate, got 'p0'");
	check_err("ffma r1, r2, r3, 4",
		  "1:18: expected register rc (r0..r63 or rz), got '4'");
	check_err("isetp.eq p7, r1, r2", "1:10: bad predicate 'p7': expected p0..p6 or pt");
	check_err("sel r0, r1, r2, !p1", "1:17: ps cannot be negated: expected p0..p6 or pt");
	check_err("@p7 nop", "1:1: bad guard '@p7': expected @p0..@p6, @pt or @!p0..@!pt");
	check_err("@p1", "1:4: missing instruction after the guard '@p1'");

	check_err("ldg.32 r0, [r3]",
		  "1:13: odd register r3: ldg takes its address as a 64-bit pair, "
		  "expected an even register (r2n:r2n+1) or rz");
	check_err("iadd64 r1, r2, r4",
		  "1:8: odd register r1: iadd64 writes rd as a 64-bit pair, "
		  "expected an even register (r2n:r2n+1) or rz");
	check_err("iadd64 r2, r5, r4",
		  "1:12: odd register r5: iadd64 reads ra as a 64-bit pair, "
		  "expected an even register (r2n:r2n+1) or rz");
	check_err("lds.64 r5, [r1]",
		  "1:8: odd register r5: lds writes rd as a 64-bit pair, "
		  "expected an even register (r2n:r2n+1) or rz");
	check_err("sts.64 [r1], r7",
		  "1:14: odd register r7: sts stores rd as a 64-bit pair, "
		  "expected an even register (r2n:r2n+1) or rz");
	check_err("imad.wide r3, r1, r2, r4",
		  "1:11: odd register r3: imad.wide writes rd as a 64-bit pair, "
		  "expected an even register (r2n:r2n+1) or rz");
	check_err("iadd64 r2, r4, r7",
		  "1:16: odd register r7: iadd64 reads b as a 64-bit pair, "
		  "expected an even register (r2n:r2n+1) or rz");
	check_err("imad.wide r2, r1, r3, r5",
		  "1:23: odd register r5: imad.wide reads rc as a 64-bit pair, "
		  "expected an even register (r2n:r2n+1) or rz");
	check_err("atomg.add r1, [r9], r2, rz",
		  "1:16: odd register r9: atomg takes its address as a 64-bit pair, "
		  "expected an even register (r2n:r2n+1) or rz");

	check_err("mov r0, 0x100000000",
		  "1:9: immediate 0x100000000 does not fit in 32 bits: expected "
		  "-0x80000000..0xffffffff or a float literal");
	check_err("mov r0, -2147483649",
		  "1:9: immediate -2147483649 does not fit in 32 bits: expected "
		  "-0x80000000..0xffffffff or a float literal");
	check_err("atoms.add r0, [r1 + 0x8000], r2, rz",
		  "1:21: offset + 0x8000 does not fit in 16 bits: expected -0x8000..0x7fff");
	check_err("lds.32 r0, [r1 - 0x80000001]",
		  "1:18: offset - 0x80000001 does not fit in 32 bits: expected "
		  "-0x80000000..0x7fffffff");
	check_err("bar 16", "1:5: barrier 16 out of range: expected 0..15");
	check_err("trap -1", "1:6: immediate -1 out of range: expected 0..0xffffffff");
	check_err("bra 0x100000000",
		  "1:5: instruction index 0x100000000 out of range: expected 0..0xffffffff");
	check_err(".word 0x10000000000000000",
		  "1:7: .word value 0x10000000000000000 out of range: expected "
		  "0..0xffffffffffffffff");
	check_err("s2r r0, 28", "1:9: special register index 28 out of range: expected 0..27");
	check_err("s2r r0, tid.w",
		  "1:9: unknown special register 'tid.w': expected one of tid.x tid.y tid.z "
		  "ntid.x ntid.y ntid.z ctaid.x ctaid.y ctaid.z nctaid.x nctaid.y nctaid.z "
		  "laneid warpid smid clock.lo clock.hi activemask lanemask.eq lanemask.lt "
		  "lanemask.le lanemask.gt lanemask.ge nsmid warpsize smem.total globaltimer.lo "
		  "globaltimer.hi");
	check_err("fadd r0, r1, 1.5", "1:14: float literal '1.5' needs an 'f' suffix (1.5f)");
	check_err("fadd r0, r1, 1e39f",
		  "1:14: float literal '1e39f' is out of range for float32 "
		  "(largest 3.40282347e+38f)");
	check_err("iadd r0, r1, 12abc", "1:14: bad number '12abc': expected operand b, "
		  "a register or an immediate");
	check_err("ldg.32 r0, [r2 + 1.5f]", "1:18: expected an offset, got float literal '1.5f'");

	check_err("\n\n  frob r0", "3:3: unknown mnemonic 'frob' (not an instruction of "
		  "<tgpu/isa.h>)");
	check_err("isetp.lq p0, r1, r2",
		  "1:6: bad comparison suffix '.lq' for isetp: expected one of "
		  ".eq .ne .lt .le .gt .ge");
	check_err("atomg.sub r0, [r2], r1, rz",
		  "1:6: bad atomic operation suffix '.sub' for atomg: expected one of "
		  ".add .min .max .exch .cas .and .or .xor");
	check_err("iadd.lt r0, r1, r2",
		  "1:5: iadd takes no suffix, got '.lt' (syntax: iadd rd, ra, b)");
	check_err("imad.wide.x r0, r1, r2, r4",
		  "1:10: imad.wide takes no suffix, got '.x' (syntax: imad.wide rd, ra, rb, rc)");
	check_err("ldg r0, [r2]",
		  "1:4: ldg needs a width suffix: one of .u8 .s8 .u16 .s16 .32 .64 "
		  "(syntax: ldg.w rd, [ra + offset])");
	check_err("plop p0, p1, p2",
		  "1:5: plop needs a predicate operation suffix: one of .and .or .xor "
		  "(syntax: plop.op pd, [!]pa, [!]pb)");
	check_err("f2d.rz r0, r1", "1:4: f2d is exact: it takes no rounding suffix "
		  "(syntax: f2d rd, ra)");
	check_err("dadd r0, r3, r4", "1:10: odd register r3: dadd reads ra as a 64-bit pair, "
		  "expected an even register (r2n:r2n+1) or rz");
	check_err("dadd.rq r0, r2, r4",
		  "1:5: bad rounding mode suffix '.rq' for dadd: expected one of .rn .rz .rm .rp");
	check_err("shfl.down r0, r1, 32, 0x1f",
		  "1:19: shfl: b 0x20 is not a lane or offset (0..31)");
	check_err("shfl.down r0, r1, r2, 0x1f",
		  "1:23: expected register rc (b is a register) (r0..r63 or rz), got '0x1f'");
	check_err("vote r0, p1", "1:5: vote needs a vote mode suffix: one of .all .any .uni "
		  "(syntax: vote.mode pd, [!]pa)");
	check_err("prmt r0, r1, r2, r3",
		  "1:5: prmt needs a permute mode suffix: one of .sel .f4e .b4e .rc8 .ecl .ecr "
		  ".rc16 (syntax: prmt.mode rd, ra, rb, rc)");
	check_err("fshl.left r0, r1, r2, r3",
		  "1:5: bad shift-count mode suffix '.left' for fshl: expected one of .clamp .wrap");
	check_err("prmt.f4e r0, r1, r2, 7",
		  "1:22: expected register rc (r0..r63 or rz), got '7'");

	check_err("iadd r0, r1", "1:12: missing operand b, a register or an immediate "
		  "(syntax: iadd rd, ra, b)");
	check_err("iadd r0, r1,   ; comment", "1:13: missing operand b, a register or an "
		  "immediate (syntax: iadd rd, ra, b)");
	check_err("atomg.cas r0, [r2], r4", "1:23: missing operand rc (rz when not cas) "
		  "(syntax: atomg.op rd, [ra + offset], rb, rc)");
	check_err("bra", "1:4: missing operand target, a label or an instruction index "
		  "(syntax: bra label)");
	check_err("s2r r0", "1:7: missing operand sr, a special register (syntax: s2r rd, sr)");
	check_err("iadd r0 r1, r2",
		  "1:9: expected ',' before ra, got 'r1' (syntax: iadd rd, ra, b)");
	check_err("not r0, r1, r2",
		  "1:11: unexpected ',' after the last operand (syntax: not rd, ra)");
	check_err("exit now", "1:6: unexpected 'now' after the last operand (syntax: exit)");
	check_err("ldg.32 r0, r2", "1:12: expected an address [ra + offset], got 'r2' "
		  "(syntax: ldg.w rd, [ra + offset])");
	check_err("ldc.32 r0, [r2]", "1:12: expected a constant-bank address c[ra + offset], "
		  "got '[r2]' (syntax: ldc.w rd, c[ra + offset])");
	check_err("ldg.32 r0, [r2 + 4", "1:19: expected ']', got the end of the line "
		  "(syntax: ldg.w rd, [ra + offset])");
	check_err("ldg.32 r0, [r2 4]", "1:16: expected ']' or an offset '+ N' / '- N', "
		  "got '4]' (syntax: ldg.w rd, [ra + offset])");

	check_err(".shared 16\n.shared 32", "2:1: duplicate .shared: already given at line 1");
	check_err(".param 4097",
		  "1:8: .param 4097 is above the compute engine's limit of 4096 bytes");
	check_err(".param 6", "1:8: .param 6 is not a multiple of 4: the compute engine "
		  "takes parameters in 32-bit words");
	check_err(".shared 49153",
		  "1:9: .shared 49153 is above the compute engine's limit of 49152 bytes");
	check_err(".text", "1:1: unknown directive '.text': expected .shared, .param or .word");

	/* The first error wins; a syntax error comes before undefined labels. */
	check_err("bra nowhere\nfrob", "2:1: unknown mnemonic 'frob' (not an instruction of "
		  "<tgpu/isa.h>)");

	rc = tgpu_assemble("frob", &img, err, sizeof(err));
	is_str(err, "1:1: unknown mn", "a short message buffer truncates");
	rc = tgpu_assemble("frob", &img, NULL, 0);
	is_int(rc, -EINVAL, "a NULL message buffer is fine");
	rc = tgpu_assemble(NULL, &img, big, sizeof(big));
	is_int(rc, -EINVAL, "NULL source: -EINVAL");
	is_str(big, "tgpu_assemble: src is NULL", "NULL source: message");
	rc = tgpu_assemble("exit", NULL, big, sizeof(big));
	is_int(rc, -EINVAL, "NULL image: -EINVAL");
}

static void test_program_limit(void)
{
	size_t max = TGPU_GR_PROGRAM_MAX / TGPU_INSN_SIZE, i;
	char *src = malloc((max + 1) * 5 + 1), err[512], want[160];
	struct tgpu_kernel_image img;
	int rc;

	if (!ok(src != NULL, "program limit: memory"))
		return;
	for (i = 0; i < max; i++)
		memcpy(src + 5 * i, "exit\n", 5);
	src[5 * max] = '\0';
	rc = tgpu_assemble(src, &img, err, sizeof(err));
	ok(rc == 0 && img.ninsns == max, "%zu instructions (TGPU_GR_PROGRAM_MAX) assemble", max);
	tgpu_kernel_image_free(&img);
	memcpy(src + 5 * max, "exit\n", 6);
	snprintf(want, sizeof(want), "%zu:1: too many instructions: the compute engine runs at "
		 "most %zu (TGPU_GR_PROGRAM_MAX is %u bytes)", max + 1, max,
		 (unsigned int)TGPU_GR_PROGRAM_MAX);
	rc = tgpu_assemble(src, &img, err, sizeof(err));
	is_int(rc, -EINVAL, "one more is an error");
	is_str(err, want, "... that says so");
	free(src);
}

int main(void)
{
	test_every_opcode();
	test_fields();
	test_labels();
	test_directives();
	test_immediates();
	test_word();
	test_listing();
	test_random();
	test_errors();
	test_program_limit();
	return tap_done();
}
