// SPDX-License-Identifier: MIT
/*
 * libtgpu: the disassembler.  It prints the assembler's syntax
 * (docs/umd.md, "Assembler") and only words tu_isa_canonical() accepts;
 * every other word prints as .word, so assembling a listing gives back
 * exactly the words it came from.
 */
#include <errno.h>
#include <locale.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "libtgpu.h"
#include "tgpu-isa-desc.h"

/* snprintf() into buf, continued by each put(); n is the untruncated length. */
struct text {
	char *buf;
	size_t len;
	size_t n;
};

__attribute__((format(printf, 2, 3)))
static void put(struct text *t, const char *fmt, ...)
{
	size_t room = t->n < t->len ? t->len - t->n : 0;
	va_list ap;
	int k;

	va_start(ap, fmt);
	k = vsnprintf(room ? t->buf + t->n : NULL, room, fmt, ap);
	va_end(ap);
	if (k > 0)
		t->n += (size_t)k;
}

static void put_reg(struct text *t, unsigned int r)
{
	if (r == TGPU_REG_RZ)
		put(t, "rz");
	else
		put(t, "r%u", r);
}

static void put_pred(struct text *t, unsigned int p)
{
	if (p == TGPU_PRED_PT)
		put(t, "pt");
	else
		put(t, "p%u", p);
}

/*
 * The shortest decimal that reads back as the same float32 (at most 9
 * significant digits always do), in the C locale.  NaN and infinities
 * have no literal: hex.
 */
static void put_float(struct text *t, uint32_t bits)
{
	locale_t c = tu_c_locale(), old = (locale_t)0;
	char buf[32];
	float f, back;
	int prec;

	memcpy(&f, &bits, sizeof(f));
	if (!isfinite(f)) {
		put(t, "0x%x", bits);
		return;
	}
	if (c)
		old = uselocale(c);
	for (prec = 1; prec <= 9; prec++) {
		snprintf(buf, sizeof(buf), "%.*g", prec, (double)f);
		back = strtof(buf, NULL);
		if (memcmp(&back, &f, sizeof(f)) == 0)
			break;
	}
	if (c)
		uselocale(old);
	put(t, "%sf", buf);
}

static void put_b(struct text *t, uint64_t w, bool is_float)
{
	if (!TGPU_INSN_BIMM(w))
		put_reg(t, TGPU_INSN_RB(w));
	else if (is_float)
		put_float(t, TGPU_INSN_IMM32(w));
	else
		put(t, "0x%x", TGPU_INSN_IMM32(w));
}

static void put_offset(struct text *t, long long off)
{
	if (off > 0)
		put(t, " + 0x%llx", off);
	else if (off < 0)
		put(t, " - 0x%llx", -off);
}

/* One instruction; branch targets below nlabel print as labels. */
static void format_insn(struct text *t, uint64_t w, size_t nlabel)
{
	unsigned int op = TGPU_INSN_OP(w), pg = TGPU_INSN_PG(w), sub = TGPU_INSN_SUB(w);
	unsigned int imm16 = (unsigned int)(w >> 48);
	const struct tu_subtab *st;
	const struct tu_op *d;

	if (!tu_isa_canonical(w, NULL, 0)) {
		put(t, ".word 0x%016llx", (unsigned long long)w);
		return;
	}
	d = tu_op_by_code(op);
	if (pg != TGPU_PRED_PT || TGPU_INSN_PG_NEG(w)) {
		put(t, "@%s", TGPU_INSN_PG_NEG(w) ? "!" : "");
		put_pred(t, pg);
		put(t, " ");
	}
	put(t, "%s", d->mnem);
	st = tu_subtab(d->fmt);
	if (st && !(st->optional && sub == 0))
		put(t, ".%s", st->names[sub]);

	switch (d->fmt) {
	case TGPU_FMT_NONE:
		break;
	case TGPU_FMT_RB:
		put(t, " ");
		put_reg(t, TGPU_INSN_RD(w));
		put(t, ", ");
		put_b(t, w, false);
		break;
	case TGPU_FMT_RA:
	case TGPU_FMT_RAB:
	case TGPU_FMT_RABS:
	case TGPU_FMT_RABC:
	case TGPU_FMT_PRMT:
	case TGPU_FMT_FSH:
	case TGPU_FMT_SEL:
	case TGPU_FMT_F64:
	case TGPU_FMT_F64FMA:
	case TGPU_FMT_PAIRS:
	case TGPU_FMT_PAIR1:
	case TGPU_FMT_CVT:
	case TGPU_FMT_CVTZ:
	case TGPU_FMT_MUFU:
	case TGPU_FMT_RABR:
	case TGPU_FMT_RABCR:
		put(t, " ");
		put_reg(t, TGPU_INSN_RD(w));
		put(t, ", ");
		put_reg(t, TGPU_INSN_RA(w));
		if (d->fmt == TGPU_FMT_RAB || d->fmt == TGPU_FMT_RABS ||
		    d->fmt == TGPU_FMT_RABR || d->fmt == TGPU_FMT_SEL) {
			put(t, ", ");
			put_b(t, w, tu_op_b_is_float(op));
		} else if (d->fmt == TGPU_FMT_F64 || d->fmt == TGPU_FMT_PAIRS) {
			put(t, ", ");
			put_reg(t, TGPU_INSN_RB(w));
		} else if (d->fmt != TGPU_FMT_RA && d->fmt != TGPU_FMT_PAIR1 &&
			   d->fmt != TGPU_FMT_CVT && d->fmt != TGPU_FMT_CVTZ &&
			   d->fmt != TGPU_FMT_MUFU) {
			put(t, ", ");
			put_reg(t, TGPU_INSN_RB(w));
			put(t, ", ");
			put_reg(t, TGPU_INSN_RC(w));
		}
		if (d->fmt == TGPU_FMT_SEL) {
			put(t, ", ");
			put_pred(t, sub);
		}
		break;
	case TGPU_FMT_B:
		put(t, " ");
		put_b(t, w, false);
		break;
	case TGPU_FMT_VOTE:
	case TGPU_FMT_BALLOT:
		put(t, " ");
		if (d->fmt == TGPU_FMT_VOTE)
			put_pred(t, TGPU_INSN_RD(w));
		else
			put_reg(t, TGPU_INSN_RD(w));
		put(t, ", %s", imm16 & TGPU_VOTE_NEG ? "!" : "");
		put_pred(t, TGPU_INSN_RA(w));
		break;
	case TGPU_FMT_SHFL:
		put(t, " ");
		put_reg(t, TGPU_INSN_RD(w));
		put(t, ", ");
		put_reg(t, TGPU_INSN_RA(w));
		if (TGPU_INSN_BIMM(w)) {
			put(t, ", 0x%x, 0x%x", TGPU_SHFL_IMM_B(TGPU_INSN_IMM32(w)),
			    TGPU_SHFL_IMM_C(TGPU_INSN_IMM32(w)));
		} else {
			put(t, ", ");
			put_reg(t, TGPU_INSN_RB(w));
			put(t, ", ");
			put_reg(t, TGPU_INSN_RC(w));
		}
		break;
	case TGPU_FMT_SETP:
	case TGPU_FMT_DSETP:
		put(t, " ");
		put_pred(t, TGPU_INSN_RD(w));
		put(t, ", ");
		put_reg(t, TGPU_INSN_RA(w));
		put(t, ", ");
		put_b(t, w, tu_op_b_is_float(op));
		break;
	case TGPU_FMT_PLOP:
		put(t, " ");
		put_pred(t, TGPU_INSN_RD(w));
		put(t, ", %s", imm16 & TGPU_PLOP_NEG_A ? "!" : "");
		put_pred(t, TGPU_INSN_RA(w));
		put(t, ", %s", imm16 & TGPU_PLOP_NEG_B ? "!" : "");
		put_pred(t, TGPU_INSN_RB(w));
		break;
	case TGPU_FMT_LD:
		put(t, " ");
		put_reg(t, TGPU_INSN_RD(w));
		put(t, ", %s[", op == TGPU_OP_LDC ? "c" : "");
		put_reg(t, TGPU_INSN_RA(w));
		put_offset(t, (int32_t)TGPU_INSN_IMM32(w));
		put(t, "]");
		break;
	case TGPU_FMT_ST:
		put(t, " [");
		put_reg(t, TGPU_INSN_RA(w));
		put_offset(t, (int32_t)TGPU_INSN_IMM32(w));
		put(t, "], ");
		put_reg(t, TGPU_INSN_RD(w));
		break;
	case TGPU_FMT_ATOM:
		put(t, " ");
		put_reg(t, TGPU_INSN_RD(w));
		put(t, ", [");
		put_reg(t, TGPU_INSN_RA(w));
		put_offset(t, TGPU_INSN_IMM16(w));
		put(t, "], ");
		put_reg(t, TGPU_INSN_RB(w));
		put(t, ", ");
		put_reg(t, TGPU_INSN_RC(w));
		break;
	case TGPU_FMT_TARGET:
		if (TGPU_INSN_IMM32(w) < nlabel)
			put(t, " L%u", TGPU_INSN_IMM32(w));
		else
			put(t, " 0x%x", TGPU_INSN_IMM32(w));
		break;
	case TGPU_FMT_IMM:
		put(t, " 0x%x", TGPU_INSN_IMM32(w));
		break;
	case TGPU_FMT_S2R:
		put(t, " ");
		put_reg(t, TGPU_INSN_RD(w));
		put(t, ", %s", tu_sr_names[TGPU_INSN_IMM32(w)]);
		break;
	}
}

int tgpu_disassemble_one(uint64_t insn, char *buf, size_t len)
{
	struct text t = { buf, buf ? len : 0, 0 };

	if (t.len)
		buf[0] = '\0';
	format_insn(&t, insn, 0);
	return (int)t.n;
}

char *tgpu_disassemble(const uint64_t *insns, size_t n)
{
	unsigned char *target;
	size_t i, used = 0, cap;
	char *out;

	if (!insns && n) {
		errno = EINVAL;
		return NULL;
	}
	target = calloc(n / 8 + 1, 1);
	if (!target)
		return NULL;
	for (i = 0; i < n; i++) {
		const struct tu_op *d = tu_op_by_code(TGPU_INSN_OP(insns[i]));
		uint32_t to = TGPU_INSN_IMM32(insns[i]);

		if (d && d->fmt == TGPU_FMT_TARGET && to < n && tu_isa_canonical(insns[i], NULL, 0))
			target[to / 8] |= (unsigned char)(1u << (to % 8));
	}

	cap = 1024;
	out = malloc(cap);
	if (!out)
		goto fail;
	out[0] = '\0';
	for (i = 0; i < n; i++) {
		char line[256];
		struct text t = { line, sizeof(line), 0 };

		if (target[i / 8] & (1u << (i % 8)))
			put(&t, "L%zu:", i);
		put(&t, "\t");
		format_insn(&t, insns[i], n);
		put(&t, "\n");
		if (used + t.n + 1 > cap) {
			char *p;

			while (used + t.n + 1 > cap)
				cap *= 2;
			p = realloc(out, cap);
			if (!p)
				goto fail;
			out = p;
		}
		/* no line comes near 256 bytes: the longest is about 60 */
		memcpy(out + used, line, t.n + 1);
		used += t.n;
	}
	free(target);
	return out;

fail:
	free(out);
	free(target);
	errno = ENOMEM;
	return NULL;
}
