/* SPDX-License-Identifier: MIT */
/*
 * What libtgpu's assembler and disassembler know about the ISA, all of
 * it derived from <tgpu/isa.h>: the opcode table (TGPU_ISA_OPCODES) and
 * the sub-field name tables.  No second opcode list lives here.
 *
 * tu_isa_canonical() is the one definition of "an instruction the
 * assembler can write": the assembler checks its output against it and
 * the disassembler prints anything else as .word, which is what keeps
 * disassemble -> assemble the identity for every 64-bit word.
 *
 * Internal: the symbols are hidden inside libtgpu.so.
 */
#ifndef TGPU_ISA_DESC_H
#define TGPU_ISA_DESC_H

#include <locale.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <tgpu/isa.h>

struct tu_op {
	const char *mnem;           /* NULL: not an opcode */
	unsigned int fmt;           /* TGPU_FMT_* */
	unsigned int akind;         /* TGPU_A32 / TGPU_A64 */
};

/* The names of a format's sub-field values, written as a .suffix. */
struct tu_subtab {
	const char *what;           /* "comparison", for messages */
	const char *const *names;
	unsigned int count;
	bool optional;              /* no suffix is value 0, which prints none */
};

/* The descriptor of an opcode, NULL when it is not in the table. */
const struct tu_op *tu_op_by_code(unsigned int op);

/* Opcode of a mnemonic (len bytes, any case), -1 if none. */
int tu_op_by_mnem(const char *s, size_t len);

/* The suffix table of a format, NULL if its mnemonics take no suffix. */
const struct tu_subtab *tu_subtab(unsigned int fmt);

/* TGPU_SR_NAMES, TGPU_SR_COUNT entries. */
extern const char *const tu_sr_names[];

/*
 * Which operands are 64-bit pairs beyond the A64 column's ra: rd (the
 * destination, or store data), b in register form (iadd64) and rc
 * (imad.wide).  isa.h has no column for these; docs/hw/isa.md says so.
 */
bool tu_rd_is_pair(unsigned int op, unsigned int sub);
bool tu_rb_is_pair(unsigned int op);
bool tu_rc_is_pair(unsigned int op);

/*
 * Immediates of this opcode's B operand are float32 bit patterns (only
 * how they print; isa.h has no type column, so: the f-prefixed ALU ops).
 */
bool tu_op_b_is_float(unsigned int op);

static inline bool tu_reg_ok(unsigned int r)
{
	return r < TGPU_NR_REGS || r == TGPU_REG_RZ;
}

/* Even register, or RZ (which reads 0:0 and discards writes). */
static inline bool tu_pair_ok(unsigned int r)
{
	return (r < TGPU_NR_REGS && !(r & 1)) || r == TGPU_REG_RZ;
}

/*
 * Whether the assembler can produce w: a known opcode, every field its
 * format uses in range, every field it does not use zero.  On false,
 * why (if not NULL) says which rule failed.
 */
bool tu_isa_canonical(uint64_t w, char *why, size_t len);

/* A "C" locale for number formatting and parsing, (locale_t)0 if none. */
locale_t tu_c_locale(void);

#endif /* TGPU_ISA_DESC_H */
