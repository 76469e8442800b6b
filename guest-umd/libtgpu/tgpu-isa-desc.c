// SPDX-License-Identifier: MIT
/*
 * The ISA as the assembler and disassembler see it: see tgpu-isa-desc.h.
 */
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "tgpu-isa-desc.h"
#include "tgpu-util.h"

/*
 * Indexed by opcode.  A duplicate opcode in TGPU_ISA_OPCODES overrides an
 * initializer, which -Woverride-init (-Wextra) turns into a build error.
 */
static const struct tu_op ops[256] = {
#define TU_OP(name, op, fmt, akind, mnem) [op] = { mnem, fmt, akind },
	TGPU_ISA_OPCODES(TU_OP)
#undef TU_OP
};

static const char *const cmp_names[] = TGPU_CMP_NAMES;
static const char *const w_names[] = TGPU_W_NAMES;
static const char *const atom_names[] = TGPU_ATOM_NAMES;
static const char *const plop_names[] = TGPU_PLOP_NAMES;
static const char *const sign_names[] = TGPU_SIGN_NAMES;
static const char *const prmt_names[] = TGPU_PRMT_NAMES;
static const char *const fsh_names[] = TGPU_FSH_NAMES;
static const char *const vote_names[] = TGPU_VOTE_NAMES;
static const char *const shfl_names[] = TGPU_SHFL_NAMES;
static const char *const rnd_names[] = TGPU_RND_NAMES;
static const char *const mufu_names[] = TGPU_MUFU_NAMES;
static const char *const f2i_names[] = TGPU_F2I_NAMES;
const char *const tu_sr_names[] = TGPU_SR_NAMES;

_Static_assert(ARRAY_SIZE(cmp_names) == TGPU_CMP_COUNT, "TGPU_CMP_NAMES vs _COUNT");
_Static_assert(ARRAY_SIZE(w_names) == TGPU_W_COUNT, "TGPU_W_NAMES vs _COUNT");
_Static_assert(ARRAY_SIZE(atom_names) == TGPU_ATOM_COUNT, "TGPU_ATOM_NAMES vs _COUNT");
_Static_assert(ARRAY_SIZE(plop_names) == TGPU_PLOP_COUNT, "TGPU_PLOP_NAMES vs _COUNT");
_Static_assert(ARRAY_SIZE(tu_sr_names) == TGPU_SR_COUNT, "TGPU_SR_NAMES vs _COUNT");
_Static_assert(ARRAY_SIZE(sign_names) == TGPU_SIGN_COUNT, "TGPU_SIGN_NAMES vs _COUNT");
_Static_assert(ARRAY_SIZE(prmt_names) == TGPU_PRMT_COUNT, "TGPU_PRMT_NAMES vs _COUNT");
_Static_assert(ARRAY_SIZE(fsh_names) == TGPU_FSH_COUNT, "TGPU_FSH_NAMES vs _COUNT");
_Static_assert(ARRAY_SIZE(vote_names) == TGPU_VOTE_COUNT, "TGPU_VOTE_NAMES vs _COUNT");
_Static_assert(ARRAY_SIZE(shfl_names) == TGPU_SHFL_COUNT, "TGPU_SHFL_NAMES vs _COUNT");
_Static_assert(ARRAY_SIZE(rnd_names) == TGPU_RND_COUNT, "TGPU_RND_NAMES vs _COUNT");
_Static_assert(ARRAY_SIZE(mufu_names) == TGPU_MUFU_COUNT, "TGPU_MUFU_NAMES vs _COUNT");
_Static_assert(ARRAY_SIZE(f2i_names) == TGPU_F2I_COUNT, "TGPU_F2I_NAMES vs _COUNT");
/* The sub field is 3 bits wide. */
_Static_assert(TGPU_CMP_COUNT <= 8 && TGPU_W_COUNT <= 8 && TGPU_ATOM_COUNT <= 8 &&
	       TGPU_PLOP_COUNT <= 8 && TGPU_SIGN_COUNT <= 8 && TGPU_PRMT_COUNT <= 8 &&
	       TGPU_FSH_COUNT <= 8 && TGPU_VOTE_COUNT <= 8 && TGPU_SHFL_COUNT <= 8,
	       "a sub-field table outgrew the sub field");

static const struct tu_subtab cmp_tab = { "comparison", cmp_names, TGPU_CMP_COUNT, false };
static const struct tu_subtab w_tab = { "width", w_names, TGPU_W_COUNT, false };
static const struct tu_subtab atom_tab = { "atomic operation", atom_names, TGPU_ATOM_COUNT, false };
static const struct tu_subtab plop_tab = { "predicate operation", plop_names, TGPU_PLOP_COUNT, false };
static const struct tu_subtab sign_tab = { "signedness", sign_names, TGPU_SIGN_COUNT, false };
static const struct tu_subtab prmt_tab = { "permute mode", prmt_names, TGPU_PRMT_COUNT, false };
static const struct tu_subtab fsh_tab = { "shift-count mode", fsh_names, TGPU_FSH_COUNT, false };
static const struct tu_subtab vote_tab = { "vote mode", vote_names, TGPU_VOTE_COUNT, false };
static const struct tu_subtab shfl_tab = { "shuffle mode", shfl_names, TGPU_SHFL_COUNT, false };
static const struct tu_subtab rnd_tab = { "rounding mode", rnd_names, TGPU_RND_COUNT, true };
static const struct tu_subtab mufu_tab = { "function", mufu_names, TGPU_MUFU_COUNT, false };
static const struct tu_subtab f2i_tab = { "rounding mode", f2i_names, TGPU_F2I_COUNT, true };

const struct tu_op *tu_op_by_code(unsigned int op)
{
	if (op >= ARRAY_SIZE(ops) || !ops[op].mnem)
		return NULL;
	return &ops[op];
}

int tu_op_by_mnem(const char *s, size_t len)
{
	unsigned int op;

	for (op = 0; op < ARRAY_SIZE(ops); op++)
		if (ops[op].mnem && strlen(ops[op].mnem) == len &&
		    strncasecmp(ops[op].mnem, s, len) == 0)
			return (int)op;
	return -1;
}

const struct tu_subtab *tu_subtab(unsigned int fmt)
{
	switch (fmt) {
	case TGPU_FMT_SETP:
	case TGPU_FMT_DSETP:
		return &cmp_tab;
	case TGPU_FMT_F64:
	case TGPU_FMT_F64FMA:
	case TGPU_FMT_CVT:
	case TGPU_FMT_RABR:
	case TGPU_FMT_RABCR:
		return &rnd_tab;
	case TGPU_FMT_CVTZ:
		return &f2i_tab;
	case TGPU_FMT_MUFU:
		return &mufu_tab;
	case TGPU_FMT_LD:
	case TGPU_FMT_ST:
		return &w_tab;
	case TGPU_FMT_ATOM:
		return &atom_tab;
	case TGPU_FMT_PLOP:
		return &plop_tab;
	case TGPU_FMT_RABS:
		return &sign_tab;
	case TGPU_FMT_PRMT:
		return &prmt_tab;
	case TGPU_FMT_FSH:
		return &fsh_tab;
	case TGPU_FMT_VOTE:
		return &vote_tab;
	case TGPU_FMT_SHFL:
		return &shfl_tab;
	}
	return NULL;
}

bool tu_rd_is_pair(unsigned int op, unsigned int sub)
{
	const struct tu_op *d = tu_op_by_code(op);

	if (!d)
		return false;
	/* isa.h has no destination-width column: these are by name. */
	if (op == TGPU_OP_IADD64 || op == TGPU_OP_IMADW || tgpu_isa_rd_pair(op))
		return true;
	return (d->fmt == TGPU_FMT_LD || d->fmt == TGPU_FMT_ST) && sub == TGPU_W_64;
}

bool tu_rb_is_pair(unsigned int op)
{
	const struct tu_op *d = tu_op_by_code(op);

	if (op == TGPU_OP_IADD64 || op == TGPU_OP_ISUB64)
		return true;
	return d && (d->fmt == TGPU_FMT_F64 || d->fmt == TGPU_FMT_F64FMA ||
		     d->fmt == TGPU_FMT_PAIRS || d->fmt == TGPU_FMT_DSETP);
}

bool tu_rc_is_pair(unsigned int op)
{
	return op == TGPU_OP_IMADW || op == TGPU_OP_DFMA;
}

bool tu_op_b_is_float(unsigned int op)
{
	const struct tu_op *d = tu_op_by_code(op);

	if (!d || d->mnem[0] != 'f')
		return false;
	return d->fmt == TGPU_FMT_RAB || d->fmt == TGPU_FMT_RABR || d->fmt == TGPU_FMT_SETP;
}

__attribute__((format(printf, 3, 4)))
static bool no(char *why, size_t len, const char *fmt, ...)
{
	va_list ap;

	if (why && len) {
		va_start(ap, fmt);
		vsnprintf(why, len, fmt, ap);
		va_end(ap);
	}
	return false;
}

/* Fields that must read as zero, by name, for the message. */
#define MUST_BE_ZERO(field, val) do { \
	if (val) \
		return no(why, len, "%s: %s must be 0", d->mnem, field); \
} while (0)

#define MUST_BE_REG(field, val) do { \
	if (!tu_reg_ok(val)) \
		return no(why, len, "%s: %s %u is not a register", d->mnem, field, val); \
} while (0)

#define MUST_BE_PRED(field, val) do { \
	if ((val) > TGPU_PRED_PT) \
		return no(why, len, "%s: %s %u is not a predicate", d->mnem, field, val); \
} while (0)

bool tu_isa_canonical(uint64_t w, char *why, size_t len)
{
	unsigned int op = TGPU_INSN_OP(w), rd = TGPU_INSN_RD(w), ra = TGPU_INSN_RA(w);
	unsigned int sub = TGPU_INSN_SUB(w), bimm = TGPU_INSN_BIMM(w);
	unsigned int rb = TGPU_INSN_RB(w), rc = TGPU_INSN_RC(w);
	unsigned int imm16 = (unsigned int)(w >> 48), imm32 = TGPU_INSN_IMM32(w);
	const struct tu_op *d = tu_op_by_code(op);
	const struct tu_subtab *st;

	if (!d)
		return no(why, len, "opcode 0x%02x is not in the ISA", op);

	/* rd */
	switch (d->fmt) {
	case TGPU_FMT_NONE:
	case TGPU_FMT_TARGET:
	case TGPU_FMT_IMM:
	case TGPU_FMT_B:
		MUST_BE_ZERO("rd", rd);
		break;
	case TGPU_FMT_SETP:
	case TGPU_FMT_PLOP:
	case TGPU_FMT_VOTE:
	case TGPU_FMT_DSETP:
		MUST_BE_PRED("pd", rd);
		break;
	default:
		MUST_BE_REG("rd", rd);
		if (tu_rd_is_pair(op, sub) && !tu_pair_ok(rd))
			return no(why, len, "%s: rd r%u is odd, a 64-bit pair must be even",
				  d->mnem, rd);
		break;
	}

	/* ra */
	switch (d->fmt) {
	case TGPU_FMT_NONE:
	case TGPU_FMT_RB:
	case TGPU_FMT_TARGET:
	case TGPU_FMT_IMM:
	case TGPU_FMT_S2R:
	case TGPU_FMT_B:
		MUST_BE_ZERO("ra", ra);
		break;
	case TGPU_FMT_PLOP:
	case TGPU_FMT_VOTE:
	case TGPU_FMT_BALLOT:
		MUST_BE_PRED("pa", ra);
		break;
	default:
		MUST_BE_REG("ra", ra);
		if (d->akind == TGPU_A64 && !tu_pair_ok(ra))
			return no(why, len, "%s: ra r%u is odd, a 64-bit pair must be even",
				  d->mnem, ra);
		break;
	}

	/* sub */
	st = tu_subtab(d->fmt);
	if (op == TGPU_OP_F2D && sub)
		return no(why, len, "%s: sub must be 0: float32 to float64 is exact", d->mnem);
	if (st) {
		if (sub >= st->count)
			return no(why, len, "%s: sub %u is not a %s", d->mnem, sub, st->what);
	} else if (d->fmt != TGPU_FMT_SEL) {        /* SEL: sub is ps, all 8 legal */
		MUST_BE_ZERO("sub", sub);
	}

	/* B */
	switch (d->fmt) {
	case TGPU_FMT_RB:
	case TGPU_FMT_RAB:
	case TGPU_FMT_RABS:
	case TGPU_FMT_RABR:
	case TGPU_FMT_SETP:
	case TGPU_FMT_SEL:
	case TGPU_FMT_B:
		if (bimm)
			return true;
		MUST_BE_REG("rb", rb);
		if (tu_rb_is_pair(op) && !tu_pair_ok(rb))
			return no(why, len, "%s: rb r%u is odd, a 64-bit pair must be even",
				  d->mnem, rb);
		MUST_BE_ZERO("rc", rc);
		MUST_BE_ZERO("imm16", imm16);
		return true;
	case TGPU_FMT_NONE:
	case TGPU_FMT_RA:
	case TGPU_FMT_PAIR1:
	case TGPU_FMT_CVT:
	case TGPU_FMT_CVTZ:
	case TGPU_FMT_MUFU:
		MUST_BE_ZERO("the immediate-B bit", bimm);
		MUST_BE_ZERO("rb", rb);
		MUST_BE_ZERO("rc", rc);
		MUST_BE_ZERO("imm16", imm16);
		return true;
	case TGPU_FMT_F64:
	case TGPU_FMT_F64FMA:
	case TGPU_FMT_PAIRS:
	case TGPU_FMT_DSETP:
		MUST_BE_ZERO("the immediate-B bit", bimm);
		MUST_BE_REG("rb", rb);
		if (!tu_pair_ok(rb))
			return no(why, len, "%s: rb r%u is odd, a 64-bit pair must be even",
				  d->mnem, rb);
		if (d->fmt == TGPU_FMT_F64FMA) {
			MUST_BE_REG("rc", rc);
			if (!tu_pair_ok(rc))
				return no(why, len, "%s: rc r%u is odd, a 64-bit pair must be "
					  "even", d->mnem, rc);
		} else {
			MUST_BE_ZERO("rc", rc);
		}
		MUST_BE_ZERO("imm16", imm16);
		return true;
	case TGPU_FMT_RABC:
	case TGPU_FMT_PRMT:
	case TGPU_FMT_FSH:
	case TGPU_FMT_RABCR:
		MUST_BE_ZERO("the immediate-B bit", bimm);
		MUST_BE_REG("rb", rb);
		MUST_BE_REG("rc", rc);
		if (tu_rc_is_pair(op) && !tu_pair_ok(rc))
			return no(why, len, "%s: rc r%u is odd, a 64-bit pair must be even",
				  d->mnem, rc);
		MUST_BE_ZERO("imm16", imm16);
		return true;
	case TGPU_FMT_VOTE:
	case TGPU_FMT_BALLOT:
		MUST_BE_ZERO("the immediate-B bit", bimm);
		MUST_BE_ZERO("rb", rb);
		MUST_BE_ZERO("rc", rc);
		if (imm16 & ~(unsigned int)TGPU_VOTE_NEG)
			return no(why, len, "%s: imm16 0x%04x has bits other than the negation",
				  d->mnem, imm16);
		return true;
	case TGPU_FMT_SHFL:
		if (bimm) {
			if (imm32 & ~TGPU_SHFL_IMM_VALID)
				return no(why, len, "%s: imm32 0x%08x has bits outside b and c",
					  d->mnem, imm32);
			return true;
		}
		MUST_BE_REG("rb", rb);
		MUST_BE_REG("rc", rc);
		MUST_BE_ZERO("imm16", imm16);
		return true;
	case TGPU_FMT_PLOP:
		MUST_BE_ZERO("the immediate-B bit", bimm);
		MUST_BE_PRED("pb", rb);
		MUST_BE_ZERO("rc", rc);
		if (imm16 & ~(unsigned int)(TGPU_PLOP_NEG_A | TGPU_PLOP_NEG_B))
			return no(why, len, "%s: imm16 0x%04x has bits other than the negations",
				  d->mnem, imm16);
		return true;
	case TGPU_FMT_ATOM:
		MUST_BE_ZERO("the immediate-B bit", bimm);
		MUST_BE_REG("rb", rb);
		MUST_BE_REG("rc", rc);
		return true;
	case TGPU_FMT_LD:
	case TGPU_FMT_ST:
	case TGPU_FMT_TARGET:
		if (!bimm)
			return no(why, len, "%s: the immediate-B bit must be 1", d->mnem);
		return true;
	case TGPU_FMT_IMM:
		if (!bimm)
			return no(why, len, "%s: the immediate-B bit must be 1", d->mnem);
		if (op == TGPU_OP_BAR && imm32 >= TGPU_NR_BARRIERS)
			return no(why, len, "%s: barrier %u is not below %d", d->mnem, imm32,
				  TGPU_NR_BARRIERS);
		return true;
	case TGPU_FMT_S2R:
		if (!bimm)
			return no(why, len, "%s: the immediate-B bit must be 1", d->mnem);
		if (imm32 >= TGPU_SR_COUNT)
			return no(why, len, "%s: special register %u is not below %d", d->mnem,
				  imm32, TGPU_SR_COUNT);
		return true;
	}
	return no(why, len, "%s: format %u is unknown to libtgpu", d->mnem, d->fmt);
}

static pthread_once_t c_locale_once = PTHREAD_ONCE_INIT;
static locale_t c_locale;

static void make_c_locale(void)
{
	c_locale = newlocale(LC_ALL_MASK, "C", (locale_t)0);
}

/*
 * Float literals must read and print with a '.' whatever setlocale() the
 * application made; the locale lives until exit.
 */
locale_t tu_c_locale(void)
{
	pthread_once(&c_locale_once, make_c_locale);
	return c_locale;
}
