// SPDX-License-Identifier: MIT
/*
 * libtgpu: the assembler of the compute engine's ISA.  The syntax is in
 * docs/umd.md ("Assembler"), the encoding in <tgpu/isa.h>; everything
 * about opcodes comes from there through tgpu-isa-desc.h.
 *
 * One pass encodes each line and records labels; a branch or SSY whose
 * operand names a label becomes a fixup, patched once every label is
 * known.  The first error ends assembly with "LINE:COL: message".
 */
#include <errno.h>
#include <locale.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "libtgpu.h"
#include "tgpu-internal.h"
#include "tgpu-isa-desc.h"

#define MAX_INSNS   (TGPU_GR_PROGRAM_MAX / TGPU_INSN_SIZE)
#define ERR_LEN     512
#define SHOW_MAX    40      /* longest token quoted in a message */

struct label {
	const char *name;       /* in the source, not NUL-terminated */
	size_t len;             /* 0: free slot */
	uint32_t index;
	int line, col;
};

struct fixup {
	size_t insn;
	const char *name;
	size_t len;
	int line, col;
};

struct as {
	const char *line;       /* first byte of the current line */
	const char *p;          /* cursor */
	const char *end;        /* end of the line's code, blanks trimmed */
	int lineno;
	char *err;
	size_t errlen;

	uint64_t *insns;
	size_t n, cap;
	struct label *labels;   /* open addressing, lcap a power of two */
	size_t nlabels, lcap;
	struct fixup *fixups;
	size_t nfix, fixcap;
	int shared_line, param_line;    /* 0: not given yet */
	uint32_t shared, param;

	/* the instruction being parsed, for messages */
	const char *mnem;
	char syntax[96];
};

/* ---- messages ------------------------------------------------------------ */

/* A message without a position (bad arguments, no memory). */
static void set_msg(struct as *s, const char *msg)
{
	if (s->err && s->errlen)
		snprintf(s->err, s->errlen, "%s", msg);
	tu_set_last_error(msg);
}

__attribute__((format(printf, 4, 5)))
static int error_lc(struct as *s, int line, int col, const char *fmt, ...)
{
	char msg[ERR_LEN];
	va_list ap;
	int k;

	k = snprintf(msg, sizeof(msg), "%d:%d: ", line, col);
	va_start(ap, fmt);
	vsnprintf(msg + k, sizeof(msg) - k, fmt, ap);
	va_end(ap);
	set_msg(s, msg);
	return -EINVAL;
}

#define error_at(s, where, ...) \
	error_lc((s), (s)->lineno, (int)((where) - (s)->line) + 1, __VA_ARGS__)

static bool is_blank(char c)
{
	return c == ' ' || c == '\t' || c == '\r' || c == '\v' || c == '\f';
}

static bool is_ident(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
	       (c >= '0' && c <= '9') || c == '_' || c == '.';
}

static bool is_digit(char c)
{
	return c >= '0' && c <= '9';
}

static size_t ident_len(const char *p, const char *end)
{
	size_t n = 0;

	while (p + n < end && is_ident(p[n]))
		n++;
	return n;
}

static void skip_blanks(struct as *s)
{
	while (s->p < s->end && is_blank(*s->p))
		s->p++;
}

static bool at_end(struct as *s)
{
	skip_blanks(s);
	return s->p >= s->end;
}

/* The token at the cursor, quoted, for "got ..." in messages. */
static const char *got(const struct as *s, char *buf, size_t len)
{
	size_t n = 0;

	if (s->p >= s->end)
		return "the end of the line";
	while (s->p + n < s->end && !is_blank(s->p[n]) && s->p[n] != ',')
		n++;
	if (!n)
		n = 1;
	if (n > SHOW_MAX)
		snprintf(buf, len, "'%.*s...'", SHOW_MAX, s->p);
	else
		snprintf(buf, len, "'%.*s'", (int)n, s->p);
	return buf;
}

static int shown(size_t len)
{
	return len > SHOW_MAX ? SHOW_MAX : (int)len;
}

/* Before an operand: it must be there. */
static int need_operand(struct as *s, const char *what)
{
	if (at_end(s))
		return error_at(s, s->p, "missing operand %s (syntax: %s)", what, s->syntax);
	return 0;
}

/* Between operands: a comma, then the next operand. */
static int need_comma(struct as *s, const char *what)
{
	char g[SHOW_MAX + 8];

	if (at_end(s))
		return error_at(s, s->p, "missing operand %s (syntax: %s)", what, s->syntax);
	if (*s->p != ',')
		return error_at(s, s->p, "expected ',' before %s, got %s (syntax: %s)", what,
				got(s, g, sizeof(g)), s->syntax);
	s->p++;
	return need_operand(s, what);
}

static int need_end(struct as *s)
{
	char g[SHOW_MAX + 8];

	if (!at_end(s))
		return error_at(s, s->p, "unexpected %s after the last operand (syntax: %s)",
				got(s, g, sizeof(g)), s->syntax);
	return 0;
}

/* ---- operands -------------------------------------------------------------- */

static bool reg_name(const char *p, size_t n, unsigned int *r)
{
	unsigned int v = 0;
	size_t i;

	if (n == 2 && strncasecmp(p, "rz", 2) == 0) {
		*r = TGPU_REG_RZ;
		return true;
	}
	if (n < 2 || n > 3 || (p[0] != 'r' && p[0] != 'R'))
		return false;
	for (i = 1; i < n; i++) {
		if (!is_digit(p[i]))
			return false;
		v = v * 10 + (unsigned int)(p[i] - '0');
	}
	if (v >= TGPU_NR_REGS)
		return false;
	*r = v;
	return true;
}

/* "r" and digits, whatever their value: a register name out of range. */
static bool looks_like_reg(const char *p, size_t n)
{
	size_t i;

	if (n < 2 || (p[0] != 'r' && p[0] != 'R'))
		return false;
	for (i = 1; i < n; i++)
		if (!is_digit(p[i]))
			return false;
	return true;
}

static int parse_reg(struct as *s, unsigned int *r, const char *what, const char **at)
{
	size_t n = ident_len(s->p, s->end);
	char g[SHOW_MAX + 8];

	*at = s->p;
	if (reg_name(s->p, n, r)) {
		s->p += n;
		return 0;
	}
	if (looks_like_reg(s->p, n))
		return error_at(s, s->p, "bad register '%.*s': expected r0..r%d or rz",
				shown(n), s->p, TGPU_NR_REGS - 1);
	return error_at(s, s->p, "expected register %s (r0..r%d or rz), got %s", what,
			TGPU_NR_REGS - 1, got(s, g, sizeof(g)));
}

static bool pred_name(const char *p, size_t n, unsigned int *pr)
{
	if (n != 2 || (p[0] != 'p' && p[0] != 'P'))
		return false;
	if (p[1] == 't' || p[1] == 'T') {
		*pr = TGPU_PRED_PT;
		return true;
	}
	if (p[1] >= '0' && p[1] < '0' + TGPU_NR_PREDS) {
		*pr = (unsigned int)(p[1] - '0');
		return true;
	}
	return false;
}

/* A predicate, with a leading '!' if neg is not NULL. */
static int parse_pred(struct as *s, unsigned int *pr, unsigned int *neg, const char *what)
{
	char g[SHOW_MAX + 8];
	size_t n;

	if (*s->p == '!') {
		if (!neg)
			return error_at(s, s->p, "%s cannot be negated: expected p0..p%d or pt",
					what, TGPU_NR_PREDS - 1);
		*neg = 1;
		s->p++;
		skip_blanks(s);
	}
	n = ident_len(s->p, s->end);
	if (pred_name(s->p, n, pr)) {
		s->p += n;
		return 0;
	}
	if (n >= 2 && (s->p[0] == 'p' || s->p[0] == 'P') && is_digit(s->p[1]))
		return error_at(s, s->p, "bad predicate '%.*s': expected p0..p%d or pt",
				shown(n), s->p, TGPU_NR_PREDS - 1);
	return error_at(s, s->p, "expected predicate %s (p0..p%d or pt), got %s", what,
			TGPU_NR_PREDS - 1, got(s, g, sizeof(g)));
}

struct num {
	const char *at;         /* the literal in the source */
	size_t len;
	bool neg;
	bool is_float;
	bool overflow;          /* magnitude above 2^64 - 1 */
	uint64_t mag;
	uint32_t fbits;         /* is_float: IEEE-754 single */
};

static int parse_float(struct as *s, struct num *v, const char *text, size_t n)
{
	locale_t c = tu_c_locale(), old = (locale_t)0;
	char buf[64];
	float f;

	if (n >= sizeof(buf))
		return error_at(s, v->at, "float literal '%.*s' is too long", shown(v->len), v->at);
	memcpy(buf, text, n);
	buf[n] = '\0';
	if (c)
		old = uselocale(c);
	f = strtof(buf, NULL);
	if (c)
		uselocale(old);
	if (isinf(f))
		return error_at(s, v->at, "float literal '%.*s' is out of range for float32 "
				"(largest 3.40282347e+38f)", shown(v->len), v->at);
	memcpy(&v->fbits, &f, sizeof(f));
	return 0;
}

/*
 * A number at the cursor: [-]decimal, [-]0xhex, or a float literal
 * [-]digits[.digits][e[+-]digits]f.  Ranges are the caller's business.
 */
static int scan_number(struct as *s, struct num *v, const char *what)
{
	const char *q = s->p, *digits, *mant_end;
	char g[SHOW_MAX + 8];
	bool point = false, expo = false;
	int base = 10;

	memset(v, 0, sizeof(*v));
	v->at = s->p;
	if (q < s->end && *q == '-') {
		v->neg = true;
		q++;
	}
	if (q + 1 < s->end && q[0] == '0' && (q[1] == 'x' || q[1] == 'X')) {
		base = 16;
		q += 2;
	}
	digits = q;
	if (base == 16) {
		while (q < s->end && ((*q >= '0' && *q <= '9') || ((*q | 0x20) >= 'a' && (*q | 0x20) <= 'f')))
			q++;
	} else {
		while (q < s->end && is_digit(*q))
			q++;
		if (q < s->end && *q == '.') {
			point = true;
			q++;
			while (q < s->end && is_digit(*q))
				q++;
		}
		/* an exponent needs a digit before it ("digits + point": not just ".") */
		if (q > digits + point && q < s->end && (*q == 'e' || *q == 'E')) {
			const char *e = q + 1;

			if (e < s->end && (*e == '+' || *e == '-'))
				e++;
			if (e < s->end && is_digit(*e)) {
				expo = true;
				q = e;
				while (q < s->end && is_digit(*q))
					q++;
			}
		}
	}
	mant_end = q;
	if (base == 10 && q > digits + point && q < s->end && (*q == 'f' || *q == 'F')) {
		v->is_float = true;
		q++;
	}
	v->len = (size_t)(q - v->at);
	if (q == digits || (base == 10 && mant_end == digits + point) ||
	    (q < s->end && is_ident(*q))) {
		if (q == v->at || (v->neg && q == v->at + 1))
			return error_at(s, v->at, "expected %s, got %s", what, got(s, g, sizeof(g)));
		while (q < s->end && is_ident(*q))
			q++;
		return error_at(s, v->at, "bad number '%.*s': expected %s", shown(q - v->at),
				v->at, what);
	}
	if ((point || expo) && !v->is_float)
		return error_at(s, v->at, "float literal '%.*s' needs an 'f' suffix (%.*sf)",
				shown(v->len), v->at, shown(v->len), v->at);
	s->p = q;
	if (v->is_float)
		return parse_float(s, v, v->at, (size_t)(mant_end - v->at));

	for (; digits < mant_end; digits++) {
		unsigned int dv = is_digit(*digits) ? (unsigned int)(*digits - '0') :
			(unsigned int)((*digits | 0x20) - 'a' + 10);

		if (v->mag > (UINT64_MAX - dv) / (unsigned int)base)
			v->overflow = true;
		v->mag = v->mag * (unsigned int)base + dv;
	}
	return 0;
}

static int scan_integer(struct as *s, struct num *v, const char *what)
{
	int rc = scan_number(s, v, what);

	if (rc)
		return rc;
	if (v->is_float)
		return error_at(s, v->at, "expected %s, got float literal '%.*s'", what,
				shown(v->len), v->at);
	return 0;
}

/* An unsigned value up to max. */
static int scan_unsigned(struct as *s, uint64_t *out, uint64_t max, const char *what)
{
	struct num v;
	int rc = scan_integer(s, &v, what);

	if (rc)
		return rc;
	if (v.neg || v.overflow || v.mag > max)
		return error_at(s, v.at, max < 0x10000 ? "%s %.*s out of range: expected 0..%llu" :
				"%s %.*s out of range: expected 0..0x%llx", what,
				shown(v.len), v.at, (unsigned long long)max);
	*out = v.mag;
	return 0;
}

/* An immediate B: 32 bits, signed or unsigned, or a float literal. */
static int imm32_of(struct as *s, const struct num *v, uint32_t *out)
{
	if (v->is_float) {
		*out = v->fbits;
		return 0;
	}
	if (v->overflow || v->mag > (v->neg ? 0x80000000ull : 0xffffffffull))
		return error_at(s, v->at, "immediate %.*s does not fit in 32 bits: expected "
				"-0x80000000..0xffffffff or a float literal", shown(v->len), v->at);
	*out = (uint32_t)(v->neg ? 0 - v->mag : v->mag);
	return 0;
}

/* Operand b: a register, or an immediate (*bimm = 1). */
static int parse_b(struct as *s, unsigned int *rb, unsigned int *bimm, uint32_t *imm,
		   const char **at)
{
	size_t n = ident_len(s->p, s->end);
	char g[SHOW_MAX + 8];
	struct num v;
	int rc;

	if (s->p < s->end && (is_digit(*s->p) || *s->p == '-' || *s->p == '.')) {
		rc = scan_number(s, &v, "operand b, a register or an immediate");
		if (rc)
			return rc;
		*bimm = 1;
		return imm32_of(s, &v, imm);
	}
	if (looks_like_reg(s->p, n) || reg_name(s->p, n, rb))
		return parse_reg(s, rb, "b", at);
	return error_at(s, s->p, "expected operand b, a register (r0..r%d or rz) or an "
			"immediate, got %s", TGPU_NR_REGS - 1, got(s, g, sizeof(g)));
}

/* [ra], [ra + off], [ra - off]; LDC: c[...].  bits: 32 or 16, signed. */
static int parse_mem(struct as *s, bool cbank, unsigned int *ra, const char **ra_at,
		     int32_t *off, int bits)
{
	const long long max = (1ll << (bits - 1)) - 1, min = -(1ll << (bits - 1));
	const char *form = cbank ? "c[ra + offset]" : "[ra + offset]";
	char g[SHOW_MAX + 8];
	bool had_off = false;
	struct num v;
	long long o;
	char sign;
	int rc;

	if (cbank) {
		if (!((*s->p == 'c' || *s->p == 'C') && s->p + 1 < s->end && s->p[1] == '['))
			return error_at(s, s->p, "expected a constant-bank address %s, got %s "
					"(syntax: %s)", form, got(s, g, sizeof(g)), s->syntax);
		s->p++;
	} else if (*s->p != '[') {
		return error_at(s, s->p, "expected an address %s, got %s (syntax: %s)", form,
				got(s, g, sizeof(g)), s->syntax);
	}
	s->p++;
	skip_blanks(s);
	rc = parse_reg(s, ra, "ra (the address)", ra_at);
	if (rc)
		return rc;
	*off = 0;
	skip_blanks(s);
	if (s->p < s->end && (*s->p == '+' || *s->p == '-')) {
		sign = *s->p++;
		skip_blanks(s);
		rc = scan_integer(s, &v, "an offset");
		if (rc)
			return rc;
		o = v.overflow || v.mag > (1ull << 62) ? (1ll << 62) : (long long)v.mag;
		if (v.neg != (sign == '-'))
			o = -o;
		if (o < min || o > max)
			return error_at(s, v.at, "offset %c %.*s does not fit in %d bits: expected "
					"-0x%llx..0x%llx", sign, shown(v.len), v.at, bits,
					(unsigned long long)-min, (unsigned long long)max);
		*off = (int32_t)o;
		had_off = true;
		skip_blanks(s);
	}
	if (s->p >= s->end || *s->p != ']')
		return error_at(s, s->p, "expected ']'%s, got %s (syntax: %s)",
				had_off ? "" : " or an offset '+ N' / '- N'",
				got(s, g, sizeof(g)), s->syntax);
	s->p++;
	return 0;
}

static int parse_sr(struct as *s, uint32_t *sr)
{
	size_t n = ident_len(s->p, s->end);
	char names[256] = "";
	uint64_t v;
	unsigned int i;
	int rc;

	if (n && is_digit(*s->p)) {
		rc = scan_unsigned(s, &v, TGPU_SR_COUNT - 1, "special register index");
		*sr = (uint32_t)v;
		return rc;
	}
	for (i = 0; i < TGPU_SR_COUNT; i++) {
		if (strlen(tu_sr_names[i]) == n && strncasecmp(tu_sr_names[i], s->p, n) == 0) {
			*sr = i;
			s->p += n;
			return 0;
		}
	}
	for (i = 0; i < TGPU_SR_COUNT; i++) {
		size_t used = strlen(names);

		snprintf(names + used, sizeof(names) - used, "%s%s", i ? " " : "", tu_sr_names[i]);
	}
	return error_at(s, s->p, "unknown special register '%.*s': expected one of %s",
			shown(n ? n : 1), s->p, names);
}

/* ---- labels ---------------------------------------------------------------- */

static size_t hash(const char *p, size_t n)
{
	size_t h = 2166136261u;

	while (n--)
		h = (h ^ (unsigned char)*p++) * 16777619u;
	return h;
}

static struct label *label_slot(struct as *s, const char *name, size_t len)
{
	size_t i;

	if (!s->lcap)
		return NULL;
	for (i = hash(name, len) & (s->lcap - 1);; i = (i + 1) & (s->lcap - 1)) {
		struct label *l = &s->labels[i];

		if (!l->len || (l->len == len && memcmp(l->name, name, len) == 0))
			return l;
	}
}

static int label_define(struct as *s, const char *name, size_t len)
{
	struct label *l;

	if (is_digit(*name))
		return error_at(s, name, "bad label '%.*s': a label starts with a letter, "
				"'_' or '.'", shown(len), name);
	if ((s->nlabels + 1) * 2 > s->lcap) {
		size_t i, ocap = s->lcap;
		struct label *old = s->labels;

		s->lcap = ocap ? ocap * 2 : 64;
		s->labels = calloc(s->lcap, sizeof(*s->labels));
		if (!s->labels) {
			s->labels = old;
			s->lcap = ocap;
			return -ENOMEM;
		}
		for (i = 0; i < ocap; i++)
			if (old[i].len)
				*label_slot(s, old[i].name, old[i].len) = old[i];
		free(old);
	}
	l = label_slot(s, name, len);
	if (l->len)
		return error_at(s, name, "duplicate label '%.*s' (first defined at %d:%d)",
				shown(len), name, l->line, l->col);
	l->name = name;
	l->len = len;
	l->index = (uint32_t)s->n;
	l->line = s->lineno;
	l->col = (int)(name - s->line) + 1;
	s->nlabels++;
	return 0;
}

static int add_fixup(struct as *s, const char *name, size_t len)
{
	if (s->nfix == s->fixcap) {
		size_t cap = s->fixcap ? s->fixcap * 2 : 16;
		struct fixup *f = realloc(s->fixups, cap * sizeof(*f));

		if (!f)
			return -ENOMEM;
		s->fixups = f;
		s->fixcap = cap;
	}
	s->fixups[s->nfix++] = (struct fixup){
		.insn = s->n, .name = name, .len = len,
		.line = s->lineno, .col = (int)(name - s->line) + 1,
	};
	return 0;
}

/* ---- instructions ----------------------------------------------------------- */

static int emit(struct as *s, const char *at, uint64_t w)
{
	if (s->n >= MAX_INSNS)
		return error_at(s, at, "too many instructions: the compute engine runs at most "
				"%u (TGPU_GR_PROGRAM_MAX is %u bytes)", (unsigned int)MAX_INSNS,
				(unsigned int)TGPU_GR_PROGRAM_MAX);
	if (s->n == s->cap) {
		size_t cap = s->cap ? s->cap * 2 : 64;
		uint64_t *p = realloc(s->insns, cap * sizeof(*p));

		if (!p)
			return -ENOMEM;
		s->insns = p;
		s->cap = cap;
	}
	s->insns[s->n++] = w;
	return 0;
}

/* The operand template of a format, for messages ("%s" is the mnemonic). */
static void syntax_of(char *buf, size_t len, const char *mnem, unsigned int op,
		      unsigned int fmt)
{
	const char *sfx = "", *ops = " ?";

	switch (fmt) {
	case TGPU_FMT_NONE:
		ops = "";
		break;
	case TGPU_FMT_RB:
		ops = " rd, b";
		break;
	case TGPU_FMT_RA:
		ops = " rd, ra";
		break;
	case TGPU_FMT_RAB:
		ops = " rd, ra, b";
		break;
	case TGPU_FMT_RABR:
		sfx = "[.rnd]";
		ops = " rd, ra, b";
		break;
	case TGPU_FMT_RABCR:
		sfx = "[.rnd]";
		ops = " rd, ra, rb, rc";
		break;
	case TGPU_FMT_CVTZ:
		sfx = "[.rnd]";
		ops = " rd, ra";
		break;
	case TGPU_FMT_RABC:
		ops = op == TGPU_OP_BFI ? " rd, ra, rb, rc   (rb: pos | len << 8)"
					: " rd, ra, rb, rc";
		break;
	case TGPU_FMT_RABS:
		sfx = ".s32|.u32";
		ops = op == TGPU_OP_BFE ? " rd, ra, b   (b: pos | len << 8)" : " rd, ra, b";
		break;
	case TGPU_FMT_PRMT:
		sfx = ".mode";
		ops = " rd, ra, rb, rc";
		break;
	case TGPU_FMT_FSH:
		sfx = ".clamp|.wrap";
		ops = " rd, ra, rb, rc";
		break;
	case TGPU_FMT_B:
		ops = " b";
		break;
	case TGPU_FMT_F64:
		sfx = "[.rnd]";
		/* fall through */
	case TGPU_FMT_PAIRS:
		ops = " rd, ra, rb   (pairs)";
		break;
	case TGPU_FMT_F64FMA:
		sfx = "[.rnd]";
		ops = " rd, ra, rb, rc   (pairs)";
		break;
	case TGPU_FMT_PAIR1:
		ops = " rd, ra   (pairs)";
		break;
	case TGPU_FMT_MUFU:
		sfx = ".fn";
		ops = " rd, ra";
		break;
	case TGPU_FMT_DSETP:
		sfx = ".cmp";
		ops = " pd, ra, rb   (pairs)";
		break;
	case TGPU_FMT_CVT:
		sfx = op == TGPU_OP_F2D ? "" : "[.rnd]";
		ops = " rd, ra";
		break;
	case TGPU_FMT_VOTE:
		sfx = ".mode";
		ops = " pd, [!]pa";
		break;
	case TGPU_FMT_BALLOT:
		ops = " rd, [!]pa";
		break;
	case TGPU_FMT_SHFL:
		sfx = ".mode";
		ops = " rd, ra, b, c   (b, c: both registers or both immediates)";
		break;
	case TGPU_FMT_SETP:
		sfx = ".cmp";
		ops = " pd, ra, b";
		break;
	case TGPU_FMT_SEL:
		ops = " rd, ra, b, ps";
		break;
	case TGPU_FMT_PLOP:
		sfx = ".op";
		ops = " pd, [!]pa, [!]pb";
		break;
	case TGPU_FMT_LD:
		sfx = ".w";
		ops = op == TGPU_OP_LDC ? " rd, c[ra + offset]" : " rd, [ra + offset]";
		break;
	case TGPU_FMT_ST:
		sfx = ".w";
		ops = " [ra + offset], rd";
		break;
	case TGPU_FMT_ATOM:
		sfx = ".op";
		ops = " rd, [ra + offset], rb, rc";
		break;
	case TGPU_FMT_TARGET:
		ops = " label";
		break;
	case TGPU_FMT_IMM:
		ops = " imm";
		break;
	case TGPU_FMT_S2R:
		ops = " rd, sr";
		break;
	}
	snprintf(buf, len, "%s%s%s", mnem, sfx, ops);
}

/* "one of .eq .ne ..." */
static void suffix_list(const struct tu_subtab *t, char *buf, size_t len)
{
	unsigned int i;

	buf[0] = '\0';
	for (i = 0; i < t->count; i++) {
		size_t used = strlen(buf);

		snprintf(buf + used, len - used, "%s.%s", i ? " " : "", t->names[i]);
	}
}

/* The mnemonic token: a whole mnemonic first ("imad.wide"), then shorter. */
static int parse_mnemonic(struct as *s, unsigned int *opp, unsigned int *sub)
{
	const char *tok = s->p, *sfx = NULL;
	size_t n = ident_len(s->p, s->end), cut = n, sn = 0;
	const struct tu_subtab *t;
	const struct tu_op *d;
	char g[SHOW_MAX + 8], list[128];
	unsigned int i;
	int op;

	if (!n)
		return error_at(s, s->p, "expected an instruction, a directive or a label, got %s",
				got(s, g, sizeof(g)));
	for (;;) {
		op = tu_op_by_mnem(tok, cut);
		if (op >= 0)
			break;
		while (cut > 0 && tok[cut - 1] != '.')
			cut--;
		if (cut <= 1)
			return error_at(s, tok, "unknown mnemonic '%.*s' (not an instruction of "
					"<tgpu/isa.h>)", shown(n), tok);
		cut--;
	}
	d = tu_op_by_code((unsigned int)op);
	*opp = (unsigned int)op;
	s->mnem = d->mnem;
	syntax_of(s->syntax, sizeof(s->syntax), d->mnem, *opp, d->fmt);
	if (cut < n) {
		sfx = tok + cut + 1;
		sn = n - cut - 1;
	}
	s->p += n;

	t = tu_subtab(d->fmt);
	*sub = 0;
	if (!t) {
		if (sfx)
			return error_at(s, sfx - 1, "%s takes no suffix, got '.%.*s' (syntax: %s)",
					d->mnem, shown(sn), sfx, s->syntax);
	} else {
		suffix_list(t, list, sizeof(list));
		if (!sfx && t->optional)
			goto done;
		if (!sfx)
			return error_at(s, tok + n, "%s needs a %s suffix: one of %s (syntax: %s)",
					d->mnem, t->what, list, s->syntax);
		for (i = 0; i < t->count; i++)
			if (strlen(t->names[i]) == sn && strncasecmp(t->names[i], sfx, sn) == 0)
				break;
		if (i == t->count)
			return error_at(s, sfx - 1, "bad %s suffix '.%.*s' for %s: expected one of %s",
					t->what, shown(sn), sfx, d->mnem, list);
		*sub = i;
		if (*opp == TGPU_OP_F2D && i)
			return error_at(s, sfx - 1, "f2d is exact: it takes no rounding suffix "
					"(syntax: %s)", s->syntax);
	}
done:
	if (s->p < s->end && !is_blank(*s->p))
		return error_at(s, s->p, "unexpected '%c' after the mnemonic (syntax: %s)",
				*s->p, s->syntax);
	return 0;
}

static int check_pair(struct as *s, unsigned int r, const char *at, const char *role)
{
	if (tu_pair_ok(r))
		return 0;
	return error_at(s, at, "odd register r%u: %s %s a 64-bit pair, expected an even "
			"register (r2n:r2n+1) or rz", r, s->mnem, role);
}

static int parse_insn(struct as *s)
{
	unsigned int pg = TGPU_PRED_PT, pgneg = 0, rd = 0, ra = 0, sub = 0, rb = 0, rc = 0;
	unsigned int bimm = 0, neg_a = 0, neg_b = 0, op = 0;
	const char *start = s->p, *rd_at = s->p, *ra_at = s->p, *rb_at = s->p, *rc_at = s->p;
	const char *at;
	const struct tu_op *d;
	uint32_t imm32 = 0;
	int32_t off = 0;
	char why[128];
	uint64_t v = 0, w;
	size_t n;
	int err;

	if (*s->p == '@') {
		s->p++;
		if (s->p < s->end && *s->p == '!') {
			pgneg = 1;
			s->p++;
		}
		n = ident_len(s->p, s->end);
		if (!pred_name(s->p, n, &pg))
			return error_at(s, start, "bad guard '%.*s': expected @p0..@p%d, @pt or "
					"@!p0..@!pt", shown((size_t)(s->p + n - start)), start,
					TGPU_NR_PREDS - 1);
		s->p += n;
		if (at_end(s))
			return error_at(s, s->p, "missing instruction after the guard '%.*s'",
					(int)(s->p - start), start);
		if (s->p == start + 1 + pgneg + n)     /* "@p0,..." */
			return error_at(s, s->p, "expected a blank between the guard and the "
					"instruction");
	}

	at = s->p;
	err = parse_mnemonic(s, &op, &sub);
	if (err)
		return err;
	d = tu_op_by_code(op);

	switch (d->fmt) {
	case TGPU_FMT_NONE:
		break;
	case TGPU_FMT_RB:
		err = need_operand(s, "rd");
		err = err ?: parse_reg(s, &rd, "rd", &rd_at);
		err = err ?: need_comma(s, "b, a register or an immediate");
		err = err ?: parse_b(s, &rb, &bimm, &imm32, &rb_at);
		break;
	case TGPU_FMT_RA:
	case TGPU_FMT_PAIR1:
	case TGPU_FMT_CVT:
	case TGPU_FMT_CVTZ:
	case TGPU_FMT_MUFU:
		err = need_operand(s, "rd");
		err = err ?: parse_reg(s, &rd, "rd", &rd_at);
		err = err ?: need_comma(s, "ra");
		err = err ?: parse_reg(s, &ra, "ra", &ra_at);
		break;
	case TGPU_FMT_RAB:
	case TGPU_FMT_RABS:
	case TGPU_FMT_RABR:
		err = need_operand(s, "rd");
		err = err ?: parse_reg(s, &rd, "rd", &rd_at);
		err = err ?: need_comma(s, "ra");
		err = err ?: parse_reg(s, &ra, "ra", &ra_at);
		err = err ?: need_comma(s, "b, a register or an immediate");
		err = err ?: parse_b(s, &rb, &bimm, &imm32, &rb_at);
		break;
	case TGPU_FMT_DSETP:
		err = need_operand(s, "pd");
		err = err ?: parse_pred(s, &rd, NULL, "pd");
		err = err ?: need_comma(s, "ra");
		err = err ?: parse_reg(s, &ra, "ra", &ra_at);
		err = err ?: need_comma(s, "rb");
		err = err ?: parse_reg(s, &rb, "rb", &rb_at);
		break;
	case TGPU_FMT_RABC:
	case TGPU_FMT_PRMT:
	case TGPU_FMT_FSH:
	case TGPU_FMT_F64FMA:
	case TGPU_FMT_RABCR:
	case TGPU_FMT_F64:
	case TGPU_FMT_PAIRS:
		/* registers only: rd, ra, rb, and rc but for F64 and PAIRS */
		err = need_operand(s, "rd");
		err = err ?: parse_reg(s, &rd, "rd", &rd_at);
		err = err ?: need_comma(s, "ra");
		err = err ?: parse_reg(s, &ra, "ra", &ra_at);
		err = err ?: need_comma(s, "rb");
		err = err ?: parse_reg(s, &rb, "rb", &rb_at);
		if (d->fmt == TGPU_FMT_F64 || d->fmt == TGPU_FMT_PAIRS)
			break;
		err = err ?: need_comma(s, "rc");
		err = err ?: parse_reg(s, &rc, "rc", &rc_at);
		break;
	case TGPU_FMT_SETP:
		err = need_operand(s, "pd");
		err = err ?: parse_pred(s, &rd, NULL, "pd");
		err = err ?: need_comma(s, "ra");
		err = err ?: parse_reg(s, &ra, "ra", &ra_at);
		err = err ?: need_comma(s, "b, a register or an immediate");
		err = err ?: parse_b(s, &rb, &bimm, &imm32, &rb_at);
		break;
	case TGPU_FMT_SEL:
		err = need_operand(s, "rd");
		err = err ?: parse_reg(s, &rd, "rd", &rd_at);
		err = err ?: need_comma(s, "ra");
		err = err ?: parse_reg(s, &ra, "ra", &ra_at);
		err = err ?: need_comma(s, "b, a register or an immediate");
		err = err ?: parse_b(s, &rb, &bimm, &imm32, &rb_at);
		err = err ?: need_comma(s, "ps, the predicate");
		err = err ?: parse_pred(s, &sub, NULL, "ps");
		break;
	case TGPU_FMT_B:
		err = need_operand(s, "b, a register or an immediate");
		err = err ?: parse_b(s, &rb, &bimm, &imm32, &rb_at);
		break;
	case TGPU_FMT_VOTE:
	case TGPU_FMT_BALLOT:
		if (d->fmt == TGPU_FMT_VOTE) {
			err = need_operand(s, "pd");
			err = err ?: parse_pred(s, &rd, NULL, "pd");
		} else {
			err = need_operand(s, "rd");
			err = err ?: parse_reg(s, &rd, "rd", &rd_at);
		}
		err = err ?: need_comma(s, "pa");
		err = err ?: parse_pred(s, &ra, &neg_a, "pa");
		off = neg_a ? TGPU_VOTE_NEG : 0;
		break;
	case TGPU_FMT_SHFL:
		err = need_operand(s, "rd");
		err = err ?: parse_reg(s, &rd, "rd", &rd_at);
		err = err ?: need_comma(s, "ra");
		err = err ?: parse_reg(s, &ra, "ra", &ra_at);
		err = err ?: need_comma(s, "b, the lane or offset");
		rb_at = s->p;
		err = err ?: parse_b(s, &rb, &bimm, &imm32, &rb_at);
		err = err ?: need_comma(s, "c, the clamp and segment mask");
		if (err)
			break;
		if (!bimm) {
			err = parse_reg(s, &rc, "rc (b is a register)", &rc_at);
			break;
		}
		if (imm32 > 0x1f) {
			err = error_at(s, rb_at, "shfl: b 0x%x is not a lane or offset (0..31)",
				       imm32);
			break;
		}
		err = scan_unsigned(s, &v, 0x1fff, "c (b is an immediate)");
		imm32 = TGPU_SHFL_IMM(imm32, v);
		break;
	case TGPU_FMT_PLOP:
		err = need_operand(s, "pd");
		err = err ?: parse_pred(s, &rd, NULL, "pd");
		err = err ?: need_comma(s, "pa");
		err = err ?: parse_pred(s, &ra, &neg_a, "pa");
		err = err ?: need_comma(s, "pb");
		err = err ?: parse_pred(s, &rb, &neg_b, "pb");
		off = (neg_a ? TGPU_PLOP_NEG_A : 0) | (neg_b ? TGPU_PLOP_NEG_B : 0);
		break;
	case TGPU_FMT_LD:
		bimm = 1;
		err = need_operand(s, "rd");
		err = err ?: parse_reg(s, &rd, "rd", &rd_at);
		err = err ?: need_comma(s, "the address");
		err = err ?: parse_mem(s, op == TGPU_OP_LDC, &ra, &ra_at, &off, 32);
		imm32 = (uint32_t)off;
		break;
	case TGPU_FMT_ST:
		bimm = 1;
		err = need_operand(s, "the address");
		err = err ?: parse_mem(s, false, &ra, &ra_at, &off, 32);
		err = err ?: need_comma(s, "rd, the data");
		err = err ?: parse_reg(s, &rd, "rd (the data)", &rd_at);
		imm32 = (uint32_t)off;
		break;
	case TGPU_FMT_ATOM:
		err = need_operand(s, "rd");
		err = err ?: parse_reg(s, &rd, "rd", &rd_at);
		err = err ?: need_comma(s, "the address");
		err = err ?: parse_mem(s, false, &ra, &ra_at, &off, 16);
		err = err ?: need_comma(s, "rb");
		err = err ?: parse_reg(s, &rb, "rb", &at);
		err = err ?: need_comma(s, "rc (rz when not cas)");
		err = err ?: parse_reg(s, &rc, "rc", &at);
		break;
	case TGPU_FMT_TARGET:
		bimm = 1;
		err = need_operand(s, "target, a label or an instruction index");
		if (err)
			break;
		n = ident_len(s->p, s->end);
		if (n && !is_digit(*s->p)) {
			err = add_fixup(s, s->p, n);
			s->p += n;
		} else {
			err = scan_unsigned(s, &v, 0xffffffffu, "instruction index");
			imm32 = (uint32_t)v;
		}
		break;
	case TGPU_FMT_IMM:
		bimm = 1;
		err = need_operand(s, "imm, an integer");
		if (!err && op == TGPU_OP_BAR)
			err = scan_unsigned(s, &v, TGPU_NR_BARRIERS - 1, "barrier");
		else if (!err)
			err = scan_unsigned(s, &v, 0xffffffffu, "immediate");
		imm32 = (uint32_t)v;
		break;
	case TGPU_FMT_S2R:
		bimm = 1;
		err = need_operand(s, "rd");
		err = err ?: parse_reg(s, &rd, "rd", &rd_at);
		err = err ?: need_comma(s, "sr, a special register");
		err = err ?: parse_sr(s, &imm32);
		break;
	default:
		return error_at(s, at, "internal error: %s has format %u, unknown to libtgpu",
				d->mnem, d->fmt);
	}
	err = err ?: need_end(s);
	if (err)
		return err;

	if (d->akind == TGPU_A64 && d->fmt != TGPU_FMT_TARGET) {
		err = check_pair(s, ra, ra_at,
				 d->fmt == TGPU_FMT_LD || d->fmt == TGPU_FMT_ST ||
				 d->fmt == TGPU_FMT_ATOM ? "takes its address as" : "reads ra as");
		if (err)
			return err;
	}
	if (tu_rd_is_pair(op, sub)) {
		err = check_pair(s, rd, rd_at,
				 d->fmt == TGPU_FMT_ST ? "stores rd as" : "writes rd as");
		if (err)
			return err;
	}
	if (tu_rb_is_pair(op) && !bimm) {
		err = check_pair(s, rb, rb_at, "reads b as");
		if (err)
			return err;
	}
	if (tu_rc_is_pair(op)) {
		err = check_pair(s, rc, rc_at, "reads rc as");
		if (err)
			return err;
	}

	if (bimm)
		w = TGPU_INSN_I(op, pg, pgneg, rd, ra, sub, imm32);
	else
		w = TGPU_INSN_R(op, pg, pgneg, rd, ra, sub, rb, rc, off);
	/* The disassembler prints only what this check accepts. */
	if (!tu_isa_canonical(w, why, sizeof(why)))
		return error_at(s, at, "internal error: the encoding 0x%016llx is not canonical: "
				"%s", (unsigned long long)w, why);
	return emit(s, at, w);
}

/* ---- directives and lines --------------------------------------------------- */

static int parse_directive(struct as *s)
{
	const char *at = s->p, *name = s->p + 1;
	size_t n = ident_len(name, s->end);
	int *line;
	uint32_t *val, max;
	uint64_t v;
	int err;

	s->p = name + n;
	if (n == 4 && strncasecmp(name, "word", 4) == 0) {
		snprintf(s->syntax, sizeof(s->syntax), ".word value");
		err = need_operand(s, "value, a 64-bit integer");
		err = err ?: scan_unsigned(s, &v, UINT64_MAX, ".word value");
		err = err ?: need_end(s);
		return err ?: emit(s, at, v);
	}
	if (n == 6 && strncasecmp(name, "shared", 6) == 0) {
		line = &s->shared_line;
		val = &s->shared;
		max = TGPU_GR_SHARED_MAX;
	} else if (n == 5 && strncasecmp(name, "param", 5) == 0) {
		line = &s->param_line;
		val = &s->param;
		max = TGPU_GR_PARAM_MAX;
	} else {
		return error_at(s, at, "unknown directive '.%.*s': expected .shared, .param "
				"or .word", shown(n), name);
	}
	if (*line)
		return error_at(s, at, "duplicate .%.*s: already given at line %d", (int)n, name,
				*line);
	snprintf(s->syntax, sizeof(s->syntax), ".%.*s bytes", (int)n, name);
	err = need_operand(s, "bytes, an integer");
	if (err)
		return err;
	at = s->p;
	err = scan_unsigned(s, &v, UINT32_MAX, "size");
	if (err)
		return err;
	if (v > max)
		return error_at(s, at, ".%.*s %llu is above the compute engine's limit of %u "
				"bytes", (int)n, name, (unsigned long long)v, max);
	/* SET_PARAM_SIZE must be whole words, or LAUNCH fails (docs/hw/isa.md). */
	if (val == &s->param && v % 4)
		return error_at(s, at, ".param %llu is not a multiple of 4: the compute "
				"engine takes parameters in 32-bit words", (unsigned long long)v);
	*val = (uint32_t)v;
	*line = s->lineno;
	return need_end(s);
}

static int parse_line(struct as *s)
{
	size_t n;
	const char *q;
	int err;

	for (;;) {
		skip_blanks(s);
		n = ident_len(s->p, s->end);
		q = s->p + n;
		while (q < s->end && is_blank(*q))
			q++;
		if (!n || q >= s->end || *q != ':')
			break;
		err = label_define(s, s->p, n);
		if (err)
			return err;
		s->p = q + 1;
	}
	if (s->p >= s->end)
		return 0;
	if (*s->p == '.')
		return parse_directive(s);
	return parse_insn(s);
}

/* The end of the code on the line at p: a comment, the newline, trailing blanks. */
static const char *code_end(const char *p, const char **next)
{
	const char *e = p;

	while (*e && *e != '\n' && *e != ';' && !(e[0] == '/' && e[1] == '/'))
		e++;
	*next = e;
	while (**next && **next != '\n')
		(*next)++;
	while (e > p && is_blank(e[-1]))
		e--;
	return e;
}

int tgpu_assemble(const char *src, struct tgpu_kernel_image *out, char *err, size_t errlen)
{
	struct as s = { .err = err, .errlen = err ? errlen : 0 };
	const char *next;
	size_t i;
	int rc = 0;

	if (err && errlen)
		err[0] = '\0';
	if (!out || !src) {
		if (out)
			memset(out, 0, sizeof(*out));
		set_msg(&s, src ? "tgpu_assemble: out is NULL" : "tgpu_assemble: src is NULL");
		return -EINVAL;
	}
	memset(out, 0, sizeof(*out));

	for (s.line = src, s.lineno = 1; !rc; s.line = next + 1, s.lineno++) {
		s.p = s.line;
		s.end = code_end(s.line, &next);
		rc = parse_line(&s);
		if (!*next)
			break;
	}
	for (i = 0; !rc && i < s.nfix; i++) {
		const struct fixup *f = &s.fixups[i];
		const struct label *l = label_slot(&s, f->name, f->len);

		if (!l || !l->len)
			rc = error_lc(&s, f->line, f->col, "undefined label '%.*s'",
				      shown(f->len), f->name);
		else
			s.insns[f->insn] |= (uint64_t)l->index << 32;
	}
	if (rc == -ENOMEM)
		set_msg(&s, "tgpu_assemble: out of memory");
	free(s.labels);
	free(s.fixups);
	if (rc) {
		free(s.insns);
		return rc;
	}
	out->shared_size = s.shared;
	out->param_size = s.param;
	out->ninsns = (uint32_t)s.n;
	out->insns = s.n ? s.insns : NULL;
	if (!s.n)
		free(s.insns);
	return 0;
}

void tgpu_kernel_image_free(struct tgpu_kernel_image *img)
{
	if (!img)
		return;
	free(img->insns);
	memset(img, 0, sizeof(*img));
}
