// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Unit tests of the device's SIMT executor (hw/tgpu/tgpu-simt*.c), built
 * on the host without QEMU and driven directly: kernels assembled with
 * libtgpu's assembler run on a flat "VRAM" array through GrMemOps.
 *
 * Global VAs [0, MEM_SIZE) are the array, each page handed out directly;
 * [SYS_BASE, SYS_BASE + MEM_SIZE) reach the same bytes through global()
 * doing the access itself, as system memory does in the device; anything
 * else faults NOT_PRESENT.  Every kernel runs on the generic build and,
 * where the host has one, the vector build: both must give the same
 * memory and the same end.
 */
#include <errno.h>
#include <fenv.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>

#include "libtgpu.h"
#include "tap.h"
#include "tgpu-simt.h"

#define MEM_SIZE        (1u << 20)
#define SYS_BASE        0x100000000ull

static uint8_t mem[MEM_SIZE];
static unsigned int locks, unlocks, checkpoints, indirect;
static int stop_after = -1;     /* checkpoint() says stop after N calls */

static int t_global(void *opaque, uint64_t va, unsigned int len,
		    bool is_write, uint8_t **page, void *buf, int atomic,
		    uint32_t b, uint32_t c)
{
	(void)opaque;
	if (va >= SYS_BASE && va - SYS_BASE + len <= MEM_SIZE) {
		indirect++;
		*page = NULL;
		tgpu_simt_access(mem + (va - SYS_BASE), buf, len, is_write,
				 atomic, b, c);
		return 0;
	}
	if (va + len > MEM_SIZE)
		return TGPU_FAULT_NOT_PRESENT;
	*page = mem + (va & ~(TGPU_PAGE_SIZE - 1));
	return 0;
}

static void t_lock(void *opaque)
{
	(void)opaque;
	locks++;
}

static void t_unlock(void *opaque)
{
	(void)opaque;
	unlocks++;
}

static bool t_checkpoint(void *opaque)
{
	(void)opaque;
	checkpoints++;
	return stop_after < 0 || (int)checkpoints <= stop_after;
}

static const GrMemOps t_ops = {
	.global = t_global,
	.lock = t_lock,
	.unlock = t_unlock,
	.checkpoint = t_checkpoint,
};

#define RUN_TIME_NS     (5ull << 32)

struct launch {
	const char *src;
	uint32_t grid, block;   /* x only */
	const void *param;
	uint32_t param_size;
	uint64_t budget;        /* per call of tgpu_simt_run(); 0: all at once */
};

struct result {
	bool ended;
	unsigned int runs;      /* calls of tgpu_simt_run() */
	uint64_t warp_insns;
	GrKernel k;             /* its end: error and where */
};

/* Assemble and run L to its end (or 1000 calls); K's buffers freed. */
static int run(const struct launch *l, struct result *res)
{
	struct tgpu_kernel_image img;
	char err[256];
	GrKernel *k = &res->k;
	GrRun *r = tgpu_simt_alloc0(1, sizeof(GrRun));

	memset(res, 0, sizeof(*res));
	if (tgpu_assemble(l->src, &img, err, sizeof(err))) {
		diag("assembler: %s", err);
		free(r);
		return -EINVAL;
	}
	k->ninsns = img.ninsns;
	k->grid[0] = l->grid;
	k->grid[1] = k->grid[2] = 1;
	k->block[0] = l->block;
	k->block[1] = k->block[2] = 1;
	k->ncta = l->grid;
	k->shared_size = img.shared_size;
	k->param_size = l->param_size;
	k->sm_count = 4;
	/* globaltimer: RUN_TIME_NS at cycle 0, one ns a cycle */
	k->time_ns = RUN_TIME_NS;
	k->clock_khz = 1000000;
	k->f64_cost = 2;                /* a P100's */
	if (l->param_size)
		memcpy(k->param, l->param, l->param_size);
	tgpu_simt_load(k, img.insns);
	tgpu_kernel_image_free(&img);

	while (!res->ended && res->runs < 1000) {
		memset(r, 0, sizeof(*r));
		r->k = k;
		r->ops = &t_ops;
		r->budget = l->budget ? l->budget : UINT64_MAX / 2;
		res->ended = tgpu_simt_run(r);
		res->runs++;
		res->warp_insns += r->warp_insns;
		if (stop_after >= 0 && !res->ended)
			break;
	}
	tgpu_simt_free(k);
	free(r);
	return 0;
}

static uint32_t rd32(uint64_t a)
{
	return simt_ldl(mem + a);
}

static void wr32m(uint64_t a, uint32_t v)
{
	simt_stl(mem + a, v);
}

/* Parameters: one or two 64-bit addresses and a 32-bit word */
struct p2 {
	uint64_t a, b;
	uint32_t n;
} __attribute__((packed));

/*
 * Divergence: lanes take four paths by (tid & 3), nested two deep, then
 * reconverge; lanes of tid >= n exit first.  out[tid] says which path.
 */
static const char divergence_src[] =
	".param 20\n"
	"	s2r	r0, tid.x\n"
	"	ldc.64	r2, c[rz + 0]\n"
	"	ldc.32	r4, c[rz + 16]\n"
	"	usetp.ge p0, r0, r4\n"
	"	@p0 exit\n"
	"	mov	r5, 4\n"
	"	imad.wide r2, r0, r5, r2\n"
	"	and	r6, r0, 1\n"
	"	and	r7, r0, 2\n"
	"	mov	r8, 0\n"
	"	ssy	end\n"
	"	usetp.ne p1, r6, 0\n"
	"	@p1 bra	odd\n"
	"	ssy	even_end\n"
	"	usetp.ne p2, r7, 0\n"
	"	@p2 bra	even2\n"
	"	mov	r8, 100\n"
	"	sync\n"
	"even2:	mov	r8, 102\n"
	"	sync\n"
	"even_end: iadd	r8, r8, 1000\n"
	"	sync\n"
	"odd:	ssy	odd_end\n"
	"	usetp.ne p2, r7, 0\n"
	"	@p2 bra	odd3\n"
	"	mov	r8, 201\n"
	"	sync\n"
	"odd3:	mov	r8, 203\n"
	"	sync\n"
	"odd_end: iadd	r8, r8, 2000\n"
	"	sync\n"
	"end:	iadd	r8, r8, r0\n"
	"	stg.32	[r2], r8\n"
	"	exit\n";

static uint32_t divergence_want(uint32_t t)
{
	static const uint32_t path[4] = { 1100, 2201, 1102, 2203 };

	return path[t & 3] + t;
}

static void test_divergence(const char *build, uint64_t out_base)
{
	struct p2 p = { .a = out_base, .n = 45 };
	struct launch l = { divergence_src, 1, 64, &p, sizeof(p), 0 };
	struct result res;
	unsigned int bad = 0;

	memset(mem, 0xee, 64 * 4);
	if (!ok(run(&l, &res) == 0 && res.ended, "%s: divergence ran", build))
		return;
	is_int(res.k.error, TGPU_KERR_NONE, "%s: divergence: no error", build);
	for (uint32_t t = 0; t < 64; t++) {
		uint32_t want = t < 45 ? divergence_want(t) : 0xeeeeeeee;

		if (rd32(t * 4) != want) {
			if (!bad++)
				diag("out[%u] = %u, want %u", t, rd32(t * 4), want);
		}
	}
	is_int(bad, 0, "%s: divergence: every lane took its path and "
	       "reconverged; exited lanes stored nothing", build);
}

/*
 * Barriers: 4 warps; thread t writes shared[t] = 3t + 1, bar 0, then
 * reads its neighbour in another warp, shared[(t + 33) % 128].
 */
static const char barrier_src[] =
	".param 8\n"
	".shared 512\n"
	"	s2r	r0, tid.x\n"
	"	ldc.64	r2, c[rz + 0]\n"
	"	mov	r9, 3\n"
	"	imad	r4, r0, r9, rz\n"
	"	iadd	r4, r4, 1\n"
	"	shl	r5, r0, 2\n"
	"	sts.32	[r5], r4\n"
	"	bar	0\n"
	"	iadd	r6, r0, 33\n"
	"	and	r6, r6, 127\n"
	"	shl	r6, r6, 2\n"
	"	lds.32	r7, [r6]\n"
	"	mov	r8, 4\n"
	"	imad.wide r2, r0, r8, r2\n"
	"	stg.32	[r2], r7\n"
	"	exit\n";

/* Warp 0 waits at barrier 1, the others at barrier 0: a deadlock. */
static const char barrier_deadlock_src[] =
	"	s2r	r0, warpid\n"
	"	usetp.eq p0, r0, 0\n"
	"	@p0 bar	1\n"
	"	@!p0 bar 0\n"
	"	exit\n";

static void test_barriers(const char *build)
{
	struct p2 p = { .a = 0x2000 };
	struct launch l = { barrier_src, 2, 128, &p, 8, 0 };
	struct launch dl = { barrier_deadlock_src, 1, 96, NULL, 0, 0 };
	struct result res;
	unsigned int bad = 0;

	if (!ok(run(&l, &res) == 0 && res.ended, "%s: barrier ran", build))
		return;
	is_int(res.k.error, TGPU_KERR_NONE, "%s: barrier: no error", build);
	for (uint32_t t = 0; t < 128; t++)
		bad += rd32(0x2000 + t * 4) != 3 * ((t + 33) % 128) + 1;
	is_int(bad, 0, "%s: every thread saw what another warp stored "
	       "before the barrier", build);

	/* budget 1: a warp is preempted after every instruction */
	memset(mem + 0x2000, 0, 512);
	l.budget = 1;
	if (ok(run(&l, &res) == 0 && res.ended, "%s: barrier, budget 1",
	       build)) {
		bad = 0;
		for (uint32_t t = 0; t < 128; t++)
			bad += rd32(0x2000 + t * 4) !=
			       3 * ((t + 33) % 128) + 1;
		is_int(bad, 0, "%s: ... the same, run one instruction at a "
		       "time (%u runs)", build, res.runs);
	}

	if (!ok(run(&dl, &res) == 0 && res.ended, "%s: deadlock ended", build))
		return;
	is_int(res.k.error, TGPU_KERR_BARRIER,
	       "%s: warps at different barriers: BARRIER", build);
	is_int(res.k.err_warp, 0, "%s: ... the first waiting warp", build);
	is_int(res.k.err_info, 1, "%s: ... info: its barrier id", build);
	is_int(res.k.err_pc, 2, "%s: ... PC: its bar", build);
}

/*
 * Atomics: every thread of 4 CTAs adds 1 to a counter, keeps the max
 * and min of its id, and the CAS winner of each CTA writes its id;
 * shared atomics count the CTA's threads first.
 */
static const char atomic_src[] =
	".param 8\n"
	".shared 4\n"
	"	s2r	r0, tid.x\n"
	"	s2r	r1, ctaid.x\n"
	"	s2r	r9, ntid.x\n"
	"	imad	r10, r1, r9, r0\n"
	"	ldc.64	r2, c[rz + 0]\n"
	"	mov	r4, 1\n"
	"	atomg.add r5, [r2], r4, rz\n"
	"	atomg.max rz, [r2 + 4], r10, rz\n"
	"	atomg.min rz, [r2 + 8], r10, rz\n"
	"	atoms.add r6, [rz], r4, rz\n"
	"	bar	0\n"
	"	lds.32	r7, [rz]\n"
	"	mov	r11, 0xffffffff\n"
	"	mov	r12, 16\n"
	"	imad.wide r12, r1, r12, r2\n"
	"	atomg.cas r8, [r12 + 16], r11, r10\n"
	"	usetp.ne p0, r0, 0\n"
	"	@p0 exit\n"
	"	stg.32	[r12 + 20], r7\n"
	"	exit\n";

static void test_atomics(const char *build, uint64_t base, const char *how)
{
	struct p2 p = { .a = base };
	struct launch l = { atomic_src, 4, 256, &p, 8, 0 };
	struct result res;
	unsigned int winners = 0;
	uint64_t o = base >= SYS_BASE ? base - SYS_BASE : base;

	memset(mem + o, 0, 128);
	wr32m(o + 8, 0x7fffffff);
	for (int c = 0; c < 4; c++)
		wr32m(o + 16 + 16 * c, 0xffffffff);
	indirect = 0;
	if (!ok(run(&l, &res) == 0 && res.ended, "%s: atomics (%s) ran",
		build, how))
		return;
	is_int(res.k.error, TGPU_KERR_NONE, "%s: atomics (%s): no error",
	       build, how);
	is_int(rd32(o), 1024, "%s: atomg.add: 1024 threads, 1024 (%s)",
	       build, how);
	is_int(rd32(o + 4), 1023, "%s: atomg.max: 1023", build);
	is_int(rd32(o + 8), 0, "%s: atomg.min: 0", build);
	for (int c = 0; c < 4; c++) {
		uint32_t v = rd32(o + 16 + 16 * c);

		winners += v >= (uint32_t)c * 256 && v < (uint32_t)c * 256 + 256;
		is_int(rd32(o + 20 + 16 * c), 256,
		       "%s: atoms.add counted CTA %d's 256 threads", build, c);
	}
	is_int(winners, 4, "%s: atomg.cas: one thread of each CTA won", build);
	if (base >= SYS_BASE)
		ok(indirect > 0, "%s: system memory went through global() "
		   "(%u accesses)", build, indirect);
}

/* Lane 5 of warp 1 traps; the store after it never happens. */
static const char trap_src[] =
	".param 8\n"
	"	s2r	r0, tid.x\n"
	"	usetp.eq p0, r0, 37\n"
	"	@p0 trap 0x42\n"
	"	ldc.64	r2, c[rz + 0]\n"
	"	mov	r4, 1\n"
	"	stg.32	[r2], r4\n"
	"	exit\n";

static void test_traps(const char *build)
{
	struct p2 p = { .a = 0x3000 };
	struct launch l = { trap_src, 1, 64, &p, 8, 0 };
	struct result res;

	wr32m(0x3000, 0);
	if (!ok(run(&l, &res) == 0 && res.ended, "%s: trap ended", build))
		return;
	is_int(res.k.error, TGPU_KERR_TRAP, "%s: TRAP", build);
	is_int(res.k.err_info, 0x42, "%s: ... info: its immediate", build);
	is_int(res.k.err_pc, 2, "%s: ... PC", build);
	is_int(res.k.err_warp, 1, "%s: ... warp 1", build);
	is_int(res.k.err_lane, 5, "%s: ... lane 5", build);
	/* warp 0 runs first and stores; warp 1 traps before its store */
	is_int(rd32(0x3000), 1, "%s: warp 0 finished before warp 1 ran",
	       build);
}

static const char fault_src[] =
	".param 8\n"
	"	ldc.64	r2, c[rz + 0]\n"
	"	s2r	r0, tid.x\n"
	"	shl	r0, r0, 2\n"
	"	iadd64	r2, r2, r0\n"
	"	ldg.32	r4, [r2]\n"
	"	exit\n";

static void test_faults(const char *build)
{
	struct p2 p = { .a = MEM_SIZE - 64 };
	struct launch l = { fault_src, 1, 32, &p, 8, 0 };
	struct result res;

	if (!ok(run(&l, &res) == 0 && res.ended, "%s: fault ended", build))
		return;
	is_int(res.k.error, TGPU_KERR_MMU_FAULT, "%s: beyond memory: MMU_FAULT",
	       build);
	is_int(res.k.fault_type, TGPU_FAULT_NOT_PRESENT,
	       "%s: ... the type global() gave", build);
	is_int(res.k.err_va, MEM_SIZE, "%s: ... at the first unreachable "
	       "address", build);
	is_int(res.k.err_lane, 16, "%s: ... lane 16", build);
	ok(!res.k.fault_write, "%s: ... a read", build);

	p.a = 0x4002;
	if (!ok(run(&l, &res) == 0 && res.ended, "%s: misaligned ended",
		build))
		return;
	is_int(res.k.error, TGPU_KERR_MISALIGNED, "%s: MISALIGNED", build);
	is_int(res.k.err_va, 0x4002, "%s: ... at its address", build);
}

/* An instruction that breaks a rule decodes as illegal and fails there. */
static void test_illegal(const char *build)
{
	/* iadd r64, r0, r0: register 64 does not exist */
	uint64_t bad = TGPU_OP_IADD | (uint64_t)TGPU_PRED_PT << 8 |
		       (uint64_t)64 << 12;
	GrInsn in = tgpu_simt_decode(bad);

	is_int(in.op, OP_ILLEGAL, "%s: decode: r64 is illegal", build);
	in = tgpu_simt_decode(TGPU_OP_IADD | (uint64_t)TGPU_PRED_PT << 8 |
			      (uint64_t)63 << 12);
	is_int(in.op, TGPU_OP_IADD, "%s: decode: r63 is an iadd", build);
	is_int(tgpu_simt_rows(&in), 65, "%s: ... that may write rows "
	       "up to 64", build);
}

/* ---- integer bit operations against PTX's definitions ----------------------- */

/*
 * References written from the PTX ISA's pseudocode, bit by bit, and its
 * prmt mode table as data: independent of the executor's forms.  The
 * inputs and the order of the operations are those of an H100 probe
 * (docs/hw/isa.md, "Checked against hardware").
 */
enum { B_BFEU, B_BFES, B_BFI, B_PRMT, B_SHF = B_PRMT + 7, B_CLZ = B_SHF + 4, B_POPC,
       B_BREV, B_MULHIS, B_MULHIU, B_NOPS };

#define BIT_N           4096
#define BIT_IN          0x10000u        /* a[], b[], c[]: BIT_N words each */
#define BIT_OUT         0x20000u        /* 32 words an input */

static uint32_t ref_bfe(uint32_t a, uint32_t b, uint32_t c, bool is_signed)
{
	unsigned int pos = b & 0xff, len = c & 0xff, top = pos + len - 1, i;
	uint32_t sbit = 0, d = 0;

	if (is_signed && len)
		sbit = a >> (top < 31 ? top : 31) & 1;
	for (i = 0; i <= 31; i++)
		d |= (i < len && pos + i <= 31 ? a >> (pos + i) & 1 : sbit) << i;
	return d;
}

static uint32_t ref_bfi(uint32_t a, uint32_t b, uint32_t c, uint32_t e)
{
	unsigned int pos = c & 0xff, len = e & 0xff, i;
	uint32_t f = b;

	for (i = 0; i < len && pos + i <= 31; i++)
		f = (f & ~(1u << (pos + i))) | (a >> i & 1) << (pos + i);
	return f;
}

/* PTX prmt's table: for each mode and c[1:0], the source byte of d.b0..d.b3 */
static const uint8_t prmt_table[6][4][4] = {
	{ { 0, 1, 2, 3 }, { 1, 2, 3, 4 }, { 2, 3, 4, 5 }, { 3, 4, 5, 6 } },   /* f4e */
	{ { 0, 7, 6, 5 }, { 1, 0, 7, 6 }, { 2, 1, 0, 7 }, { 3, 2, 1, 0 } },   /* b4e */
	{ { 0, 0, 0, 0 }, { 1, 1, 1, 1 }, { 2, 2, 2, 2 }, { 3, 3, 3, 3 } },   /* rc8 */
	{ { 0, 1, 2, 3 }, { 1, 1, 2, 3 }, { 2, 2, 2, 3 }, { 3, 3, 3, 3 } },   /* ecl */
	{ { 0, 0, 0, 0 }, { 0, 1, 1, 1 }, { 0, 1, 2, 2 }, { 0, 1, 2, 3 } },   /* ecr */
	{ { 0, 1, 0, 1 }, { 2, 3, 2, 3 }, { 0, 1, 0, 1 }, { 2, 3, 2, 3 } },   /* rc16 */
};

static uint32_t ref_prmt(uint32_t a, uint32_t b, uint32_t c, unsigned int mode)
{
	uint8_t x[8];
	uint32_t d = 0;
	unsigned int i;

	for (i = 0; i < 4; i++) {
		x[i] = a >> 8 * i;
		x[4 + i] = b >> 8 * i;
	}
	for (i = 0; i < 4; i++) {
		unsigned int sel = c >> 4 * i & 0xf;
		uint8_t v;

		if (mode == TGPU_PRMT_SEL)
			v = sel & 8 ? (x[sel & 7] & 0x80 ? 0xff : 0) : x[sel & 7];
		else
			v = x[prmt_table[mode - 1][c & 3][i]];
		d |= (uint32_t)v << 8 * i;
	}
	return d;
}

static uint32_t ref_shf(uint32_t a, uint32_t b, uint32_t c, bool right, bool wrap)
{
	unsigned int n = wrap ? c & 0x1f : (c < 32 ? c : 32);

	if (right)
		return n == 0 ? a : n == 32 ? b : a >> n | b << (32 - n);
	return n == 0 ? b : n == 32 ? a : b << n | a >> (32 - n);
}

static uint32_t ref_bitop(unsigned int op, uint32_t a, uint32_t b, uint32_t c)
{
	uint32_t d = 0;
	int i;

	switch (op) {
	case B_BFEU:
		return ref_bfe(a, b, c, false);
	case B_BFES:
		return ref_bfe(a, b, c, true);
	case B_BFI:
		return ref_bfi(a, b, c, a ^ c);
	case B_CLZ:
		for (i = 31; i >= 0 && !(a >> i & 1); i--)
			d++;
		return d;
	case B_POPC:
		for (i = 0; i < 32; i++)
			d += a >> i & 1;
		return d;
	case B_BREV:
		for (i = 0; i < 32; i++)
			d |= (a >> i & 1) << (31 - i);
		return d;
	case B_MULHIS:
		return (uint32_t)(((int64_t)(int32_t)a * (int64_t)(int32_t)b) >> 32);
	case B_MULHIU:
		return (uint32_t)(((uint64_t)a * b) >> 32);
	}
	if (op >= B_PRMT && op < B_SHF)
		return ref_prmt(a, b, c, op - B_PRMT);
	return ref_shf(a, b, c, (op - B_SHF) >= 2, (op - B_SHF) & 1);
}

static const char *const bitop_names[B_NOPS] = {
	"bfe.u32", "bfe.s32", "bfi", "prmt.sel", "prmt.f4e", "prmt.b4e", "prmt.rc8",
	"prmt.ecl", "prmt.ecr", "prmt.rc16", "fshl.clamp", "fshl.wrap", "fshr.clamp",
	"fshr.wrap", "clz", "popc", "brev", "imulhi.s32", "imulhi.u32",
};

/*
 * The start of a kernel of 32-thread CTAs, one input each: r0 the
 * thread's index, r2:r3 and r4:r5 the two 64-bit parameters (where the
 * inputs and the outputs are).
 */
#define ONE_THREAD_AN_INPUT \
	".param 16\n" \
	"	s2r	r0, tid.x\n" \
	"	s2r	r1, ctaid.x\n" \
	"	shl	r1, r1, 5\n" \
	"	iadd	r0, r0, r1\n" \
	"	ldc.64	r2, c[rz + 0]\n" \
	"	ldc.64	r4, c[rz + 8]\n"

/*
 * What an NVIDIA H100 (driver 580.159.04, nvcc 13.0, inline PTX, on
 * 2026-12-08) returned for these operations on bit_inputs()' first
 * BIT_N inputs: the FNV-1a 64 of each operation's results in input order,
 * each result little-endian.  docs/hw/isa.md, "Checked against hardware".
 */
static const uint64_t h100_bitops[B_NOPS] = {
	0x864906dae45fd25full, 0x17648361599b8ddfull, 0x83f12f04ba32a9feull,
	0x7d391241dd1d9212ull, 0x1fe0c1608e1e260dull, 0x45ef3e5af9cfc162ull,
	0x4f717993221c7175ull, 0x4dab82b9ffc67655ull, 0x646ab1d4deda3427ull,
	0xf98ced7ccd79af35ull, 0xfb76b435a1860e97ull, 0xb2c0e1ea9838f58dull,
	0xb8ea97215a50d34full, 0xdcb2ec6fb3cee5e9ull, 0xa6d7f2435d75d47dull,
	0x329c1d307b9917dfull, 0xbc8826a62c0ee9f6ull, 0xb53055735a56ee08ull,
	0x8fb4e6dc472565c2ull,
};

/* Each thread: a, b, c from BIT_IN, every operation into its BIT_OUT row. */
static const char bitops_src[] =
	ONE_THREAD_AN_INPUT
	"	mov	r6, 4\n"
	"	imad.wide r8, r0, r6, r2\n"
	"	ldg.32	r10, [r8]\n"
	"	ldg.32	r11, [r8 + 0x4000]\n"
	"	ldg.32	r12, [r8 + 0x8000]\n"
	"	mov	r6, 128\n"
	"	imad.wide r14, r0, r6, r4\n"
	/* bfe: pos = b, len = c, packed as pos | len << 8 */
	"	and	r16, r11, 0xff\n"
	"	and	r17, r12, 0xff\n"
	"	shl	r17, r17, 8\n"
	"	or	r16, r16, r17\n"
	"	bfe.u32	r20, r10, r16\n"
	"	stg.32	[r14 + 0], r20\n"
	"	bfe.s32	r20, r10, r16\n"
	"	stg.32	[r14 + 4], r20\n"
	/* bfi: a into base b at pos = c, len = a ^ c */
	"	xor	r18, r10, r12\n"
	"	and	r18, r18, 0xff\n"
	"	shl	r18, r18, 8\n"
	"	and	r19, r12, 0xff\n"
	"	or	r18, r18, r19\n"
	"	bfi	r20, r10, r18, r11\n"
	"	stg.32	[r14 + 8], r20\n"
	"	prmt.sel r20, r10, r11, r12\n"
	"	stg.32	[r14 + 12], r20\n"
	"	prmt.f4e r20, r10, r11, r12\n"
	"	stg.32	[r14 + 16], r20\n"
	"	prmt.b4e r20, r10, r11, r12\n"
	"	stg.32	[r14 + 20], r20\n"
	"	prmt.rc8 r20, r10, r11, r12\n"
	"	stg.32	[r14 + 24], r20\n"
	"	prmt.ecl r20, r10, r11, r12\n"
	"	stg.32	[r14 + 28], r20\n"
	"	prmt.ecr r20, r10, r11, r12\n"
	"	stg.32	[r14 + 32], r20\n"
	"	prmt.rc16 r20, r10, r11, r12\n"
	"	stg.32	[r14 + 36], r20\n"
	"	fshl.clamp r20, r10, r11, r12\n"
	"	stg.32	[r14 + 40], r20\n"
	"	fshl.wrap r20, r10, r11, r12\n"
	"	stg.32	[r14 + 44], r20\n"
	"	fshr.clamp r20, r10, r11, r12\n"
	"	stg.32	[r14 + 48], r20\n"
	"	fshr.wrap r20, r10, r11, r12\n"
	"	stg.32	[r14 + 52], r20\n"
	"	clz	r20, r10\n"
	"	stg.32	[r14 + 56], r20\n"
	"	popc	r20, r10\n"
	"	stg.32	[r14 + 60], r20\n"
	"	brev	r20, r10\n"
	"	stg.32	[r14 + 64], r20\n"
	"	imulhi.s32 r20, r10, r11\n"
	"	stg.32	[r14 + 68], r20\n"
	"	imulhi.u32 r20, r10, r11\n"
	"	stg.32	[r14 + 72], r20\n"
	"	exit\n";

static uint32_t xs32(uint32_t *x)
{
	*x ^= *x << 13;
	*x ^= *x >> 17;
	*x ^= *x << 5;
	return *x;
}

/* The probe's inputs: small positions and lengths mostly, edges first. */
static void bit_inputs(uint32_t *a, uint32_t *b, uint32_t *c)
{
	uint32_t x = 12345;

	for (unsigned int i = 0; i < BIT_N; i++) {
		a[i] = xs32(&x);
		b[i] = xs32(&x);
		c[i] = xs32(&x);
		if (i % 4 != 3) {
			b[i] &= (i & 1) ? 0x3f : 0xff;
			c[i] &= (i & 2) ? 0x3f : 0x1ff;
		}
		if (i < 64) {
			a[i] = i & 1 ? 0 : 0xffffffffu;
			if (i & 4)
				a[i] = 0x80000000u;
			b[i] = i;
			c[i] = 64 - i;
		}
	}
}

static void test_bitops(const char *build)
{
	struct p2 p = { .a = BIT_IN, .b = BIT_OUT };
	struct launch l = { bitops_src, BIT_N / 32, 32, &p, 16, 0 };
	static uint32_t a[BIT_N], b[BIT_N], c[BIT_N];
	unsigned int bad[B_NOPS] = { 0 };
	struct result res;
	int rc;

	bit_inputs(a, b, c);
	for (unsigned int i = 0; i < BIT_N; i++) {
		wr32m(BIT_IN + 4 * i, a[i]);
		wr32m(BIT_IN + 0x4000 + 4 * i, b[i]);
		wr32m(BIT_IN + 0x8000 + 4 * i, c[i]);
	}
	memset(mem + BIT_OUT, 0xee, BIT_N * 128);
	rc = run(&l, &res);
	if (!ok(rc == 0 && res.ended && res.k.error == TGPU_KERR_NONE,
		"%s: the bit-operation kernel ran (error %u)", build, rc ? 0 : res.k.error))
		return;
	for (unsigned int i = 0; i < BIT_N; i++) {
		for (unsigned int op = 0; op < B_NOPS; op++) {
			uint32_t got = rd32(BIT_OUT + 128 * i + 4 * op);
			uint32_t want = ref_bitop(op, a[i], b[i], c[i]);

			if (got != want && !bad[op]++)
				diag("%s(0x%08x, 0x%08x, 0x%08x) = 0x%08x, want 0x%08x",
				     bitop_names[op], a[i], b[i], c[i], got, want);
		}
	}
	for (unsigned int op = 0; op < B_NOPS; op++)
		is_int(bad[op], 0, "%s: %s: %u inputs as PTX defines it", build,
		       bitop_names[op], BIT_N);
	/* and as an H100 computed them: the FNV-1a of each operation's results */
	for (unsigned int op = 0; op < B_NOPS; op++) {
		uint64_t h = 0xcbf29ce484222325ull;

		for (unsigned int i = 0; i < BIT_N; i++) {
			uint32_t v = rd32(BIT_OUT + 128 * i + 4 * op);

			for (int k = 0; k < 4; k++) {
				h ^= (v >> 8 * k) & 0xff;
				h *= 0x100000001b3ull;
			}
		}
		ok(h == h100_bitops[op], "%s: %s: the %u results are an H100's (FNV-1a 0x%016llx)",
		   build, bitop_names[op], BIT_N, (unsigned long long)h);
	}
}

/* Encodings the new instructions do not have: each decodes as illegal. */
static void test_bitops_illegal(const char *build)
{
	static const struct {
		uint64_t w;
		const char *what;
	} bad[] = {
		{ TGPU_INSN_R(TGPU_OP_PRMT, TGPU_PRED_PT, 0, 1, 2, 7, 3, 4, 0), "prmt, mode 7" },
		{ TGPU_INSN_R(TGPU_OP_FSHL, TGPU_PRED_PT, 0, 1, 2, 2, 3, 4, 0), "fshl, mode 2" },
		{ TGPU_INSN_R(TGPU_OP_FSHR, TGPU_PRED_PT, 0, 1, 2, 0, 3, 4, 1), "fshr, imm16" },
		{ TGPU_INSN_R(TGPU_OP_IMULHI, TGPU_PRED_PT, 0, 1, 2, 2, 3, 0, 0), "imulhi, sub 2" },
		{ TGPU_INSN_R(TGPU_OP_BFE, TGPU_PRED_PT, 0, 1, 2, 0, 3, 4, 0), "bfe, rc" },
		{ TGPU_INSN_I(TGPU_OP_BFI, TGPU_PRED_PT, 0, 1, 2, 0, 0x0808), "bfi, immediate" },
		{ TGPU_INSN_R(TGPU_OP_POPC, TGPU_PRED_PT, 0, 1, 2, 0, 3, 0, 0), "popc, rb" },
		{ TGPU_INSN_R(TGPU_OP_CLZ, TGPU_PRED_PT, 0, 1, 2, 1, 0, 0, 0), "clz, sub 1" },
		{ TGPU_INSN_R(TGPU_OP_BREV, TGPU_PRED_PT, 0, 64, 2, 0, 0, 0, 0), "brev, r64" },
		{ TGPU_INSN_R(TGPU_OP_PRMT, TGPU_PRED_PT, 0, 1, 2, 0, 70, 4, 0), "prmt, r70" },
	};

	for (size_t i = 0; i < G_N_ELEMENTS(bad); i++)
		is_int(tgpu_simt_decode(bad[i].w).op, OP_ILLEGAL, "%s: decode: %s is illegal",
		       build, bad[i].what);
	is_int(tgpu_simt_decode(TGPU_INSN_R(TGPU_OP_PRMT, TGPU_PRED_PT, 0, 1, 2, 6, 3, 4, 0)).op,
	       TGPU_OP_PRMT, "%s: decode: prmt.rc16 is a prmt", build);
}

/* ---- warp-level operations and the new special registers -------------------- */

#define WARP_OUT        0x40000u        /* 16 words a thread */
#define WARP_LIVE       40              /* of 64 threads: warp 1 has 8 */

/*
 * Threads of tid >= 40 exit first (warp 1 keeps lanes 0-7).  p1 is
 * tid % 4 == 0; v is tid * 7 + 1, shuffled as CUDA's __shfl_*_sync with
 * widths 32 and 8 (c = (32 - width) << 8 | clamp).
 */
static const char warp_src[] =
	".param 8\n"
	"	s2r	r0, tid.x\n"
	"	usetp.ge p0, r0, 40\n"
	"	@p0 exit\n"
	"	ldc.64	r2, c[rz + 0]\n"
	"	mov	r4, 64\n"
	"	imad.wide r2, r0, r4, r2\n"
	"	s2r	r5, laneid\n"
	"	and	r6, r0, 3\n"
	"	isetp.eq p1, r6, 0\n"
	"	mov	r9, 1\n"
	"	wsync	0xffffffff\n"
	"	ballot	r7, p1\n"
	"	stg.32	[r2 + 0], r7\n"
	"	vote.all p2, p1\n"
	"	sel	r8, r9, 0, p2\n"
	"	stg.32	[r2 + 4], r8\n"
	"	vote.any p2, p1\n"
	"	sel	r8, r9, 0, p2\n"
	"	stg.32	[r2 + 8], r8\n"
	"	vote.uni p2, p1\n"
	"	sel	r8, r9, 0, p2\n"
	"	stg.32	[r2 + 12], r8\n"
	"	vote.all p2, pt\n"
	"	sel	r8, r9, 0, p2\n"
	"	stg.32	[r2 + 16], r8\n"
	"	vote.uni p2, !pt\n"
	"	sel	r8, r9, 0, p2\n"
	"	stg.32	[r2 + 20], r8\n"
	"	ballot	r7, !p1\n"
	"	stg.32	[r2 + 24], r7\n"
	"	ssy	am_done\n"
	"	@!p1 bra am_else\n"
	"	s2r	r8, activemask\n"
	"	stg.32	[r2 + 28], r8\n"
	"	sync\n"
	"am_else: s2r	r8, activemask\n"
	"	stg.32	[r2 + 28], r8\n"
	"	sync\n"
	"am_done: mov	r11, 7\n"
	"	imad	r10, r0, r11, r9\n"
	"	iadd	r12, r5, 5\n"
	"	and	r12, r12, 31\n"
	"	mov	r13, 0x1f\n"
	"	shfl.idx r14, r10, r12, r13\n"
	"	stg.32	[r2 + 32], r14\n"
	"	shfl.down r14, r10, 1, 0x1f\n"
	"	stg.32	[r2 + 36], r14\n"
	"	shfl.up	r14, r10, 2, 0\n"
	"	stg.32	[r2 + 40], r14\n"
	"	shfl.bfly r14, r10, 16, 0x1f\n"
	"	stg.32	[r2 + 44], r14\n"
	"	shfl.down r14, r10, 3, 0x181f\n"
	"	stg.32	[r2 + 48], r14\n"
	"	shfl.idx r14, r10, 2, 0x181f\n"
	"	stg.32	[r2 + 52], r14\n"
	"	shfl.up	r14, r10, 3, 0x1800\n"
	"	stg.32	[r2 + 56], r14\n"
	"	shfl.bfly r14, r10, 5, 0x181f\n"
	"	stg.32	[r2 + 60], r14\n"
	"	exit\n";

/* Lane L's v in warp WARP, as the kernel leaves it: exited lanes 0. */
static uint32_t warp_v(unsigned int warp, int l)
{
	unsigned int t = warp * 32 + (unsigned int)l;

	return t < WARP_LIVE ? t * 7 + 1 : 0;
}

/* CUDA's __shfl_*_sync(mask, v, x, width), by the programming guide. */
static uint32_t cuda_shfl(const char *mode, unsigned int warp, int l, int x, int width)
{
	int base = l & ~(width - 1), end = base + width - 1, j;

	if (!strcmp(mode, "idx"))
		j = base + (x & (width - 1));
	else if (!strcmp(mode, "up"))
		j = l - x >= base ? l - x : l;
	else if (!strcmp(mode, "down"))
		j = l + x <= end ? l + x : l;
	else
		j = (l ^ x) <= end ? l ^ x : l;
	return warp_v(warp, j);
}

static void test_warp(const char *build)
{
	struct p2 p = { .a = WARP_OUT };
	struct launch l = { warp_src, 1, 64, &p, 8, 0 };
	unsigned int bad = 0, checked = 0;
	struct result res;

	memset(mem + WARP_OUT, 0xee, 64 * 64);
	if (!ok(run(&l, &res) == 0 && res.ended && res.k.error == TGPU_KERR_NONE,
		"%s: the warp kernel ran", build))
		return;
	for (unsigned int t = 0; t < 64; t++) {
		unsigned int warp = t / 32, lane = t % 32;
		uint32_t live = warp ? 0xffu : ALL_LANES, p1 = 0, want[16];

		for (unsigned int i = 0; i < 32; i++)
			if ((warp * 32 + i) % 4 == 0 && (live >> i & 1))
				p1 |= 1u << i;
		want[0] = p1;
		want[1] = p1 == live;
		want[2] = p1 != 0;
		want[3] = p1 == 0 || p1 == live;
		want[4] = 1;
		want[5] = 1;
		want[6] = ~p1 & live;
		want[7] = (p1 >> lane & 1) ? p1 : live & ~p1;
		want[8] = warp_v(warp, (lane + 5) & 31);
		want[9] = cuda_shfl("down", warp, lane, 1, 32);
		want[10] = cuda_shfl("up", warp, lane, 2, 32);
		want[11] = cuda_shfl("bfly", warp, lane, 16, 32);
		want[12] = cuda_shfl("down", warp, lane, 3, 8);
		want[13] = cuda_shfl("idx", warp, lane, 2, 8);
		want[14] = cuda_shfl("up", warp, lane, 3, 8);
		want[15] = cuda_shfl("bfly", warp, lane, 5, 8);
		for (unsigned int i = 0; i < 16; i++) {
			uint32_t got = rd32(WARP_OUT + 64 * t + 4 * i);

			if (t >= WARP_LIVE)
				want[i] = 0xeeeeeeee;
			checked++;
			if (got != want[i] && !bad++)
				diag("thread %u word %u: 0x%08x, want 0x%08x", t, i, got, want[i]);
		}
	}
	is_int(bad, 0, "%s: ballot, vote, activemask and shfl in 4 modes at widths 32 "
	       "and 8, with exited lanes: %u values", build, checked);
}

/* wsync whose mask does not match: each a MEMBER_MASK at the wsync. */
static void test_warp_mask(const char *build)
{
	static const struct {
		const char *what, *src;
		uint32_t pc, lane, info;
	} cases[] = {
		{ "a lane of the mask diverged",
		  "	s2r	r0, tid.x\n"
		  "	and	r1, r0, 1\n"
		  "	isetp.eq p0, r1, 0\n"
		  "	ssy	done\n"
		  "	@!p0 bra skip\n"
		  "	wsync	0xffffffff\n"
		  "	sync\n"
		  "skip:	sync\n"
		  "done:	exit\n", 5, 1, 0xffffffff },
		{ "executing lanes outside the mask",
		  "	wsync	0xffff\n"
		  "	exit\n", 0, 16, 0xffff },
		{ "a member's guard false",
		  "	s2r	r0, laneid\n"
		  "	usetp.ne p0, r0, 7\n"
		  "	@p0 wsync 0xffffffff\n"
		  "	exit\n", 2, 7, 0xffffffff },
		{ "lanes give different masks",
		  "	s2r	r0, laneid\n"
		  "	usetp.lt p0, r0, 16\n"
		  "	mov	r2, 0xffffffff\n"
		  "	mov	r3, 0xfffffffe\n"
		  "	sel	r1, r2, r3, p0\n"
		  "	wsync	r1\n"
		  "	exit\n", 5, 16, 0xffffffff },
	};

	for (size_t i = 0; i < G_N_ELEMENTS(cases); i++) {
		struct launch l = { cases[i].src, 1, 32, NULL, 0, 0 };
		struct result res;

		if (!ok(run(&l, &res) == 0 && res.ended, "%s: wsync, %s: ran", build,
			cases[i].what))
			continue;
		ok(res.k.error == TGPU_KERR_MEMBER_MASK && res.k.err_pc == cases[i].pc &&
		   res.k.err_lane == cases[i].lane && res.k.err_info == cases[i].info,
		   "%s: wsync, %s: MEMBER_MASK at %u, lane %u, info 0x%x (got %u at %u, lane "
		   "%u, 0x%x)", build, cases[i].what, cases[i].pc, cases[i].lane, cases[i].info,
		   res.k.error, res.k.err_pc, res.k.err_lane, res.k.err_info);
	}
}

/* Lane masks, nsmid, warpsize, smem.total and globaltimer (1 ns a cycle). */
static const char sr_src[] =
	".param 8\n"
	".shared 256\n"
	"	s2r	r0, tid.x\n"
	"	ldc.64	r2, c[rz + 0]\n"
	"	mov	r4, 64\n"
	"	imad.wide r2, r0, r4, r2\n"
	"	s2r	r5, lanemask.eq\n"
	"	stg.32	[r2 + 0], r5\n"
	"	s2r	r5, lanemask.lt\n"
	"	stg.32	[r2 + 4], r5\n"
	"	s2r	r5, lanemask.le\n"
	"	stg.32	[r2 + 8], r5\n"
	"	s2r	r5, lanemask.gt\n"
	"	stg.32	[r2 + 12], r5\n"
	"	s2r	r5, lanemask.ge\n"
	"	stg.32	[r2 + 16], r5\n"
	"	s2r	r5, nsmid\n"
	"	stg.32	[r2 + 20], r5\n"
	"	s2r	r5, warpsize\n"
	"	stg.32	[r2 + 24], r5\n"
	"	s2r	r5, smem.total\n"
	"	stg.32	[r2 + 28], r5\n"
	"	s2r	r5, clock.lo\n"
	"	s2r	r6, globaltimer.lo\n"
	"	s2r	r7, globaltimer.hi\n"
	"	stg.32	[r2 + 32], r5\n"
	"	stg.32	[r2 + 36], r6\n"
	"	stg.32	[r2 + 40], r7\n"
	"	exit\n";

static void test_sr(const char *build)
{
	struct p2 p = { .a = WARP_OUT };
	struct launch l = { sr_src, 1, 64, &p, 8, 0 };
	unsigned int bad = 0;
	struct result res;

	memset(mem + WARP_OUT, 0xee, 64 * 64);
	if (!ok(run(&l, &res) == 0 && res.ended && res.k.error == TGPU_KERR_NONE,
		"%s: the special-register kernel ran", build))
		return;
	for (unsigned int t = 0; t < 64; t++) {
		unsigned int lane = t % 32;
		uint32_t eq = 1u << lane, lt = eq - 1, le = lt | eq;
		uint32_t want[8] = { eq, lt, le, ~le, ~lt, 4, 32, 256 };
		uint32_t clk = rd32(WARP_OUT + 64 * t + 32);
		uint64_t gt = rd32(WARP_OUT + 64 * t + 36) |
			      (uint64_t)rd32(WARP_OUT + 64 * t + 40) << 32;

		for (unsigned int i = 0; i < 8; i++)
			if (rd32(WARP_OUT + 64 * t + 4 * i) != want[i] && !bad++)
				diag("thread %u word %u: 0x%08x, want 0x%08x", t, i,
				     rd32(WARP_OUT + 64 * t + 4 * i), want[i]);
		/* the instruction after clock.lo: one cycle, one ns, later */
		if (gt != RUN_TIME_NS + clk + 1 && !bad++)
			diag("thread %u: globaltimer %llu, clock %u", t, (unsigned long long)gt,
			     clk);
	}
	is_int(bad, 0, "%s: lane masks, nsmid, warpsize, smem.total, globaltimer", build);
}

/* ---- float64 and the conversions, against the host FPU --------------------- */

#define F64_N           1024            /* inputs a round */
#define F64_ROUNDS      4
#define F64_IN          0x10000u        /* x[], y[], z[]: F64_N pairs each */
#define F64_OUT         0x20000u

enum f64_kind { K_ARITH, K_FMA, K_MINMAX, K_UNARY, K_SETP, K_CVT };

static const struct f64_case {
	const char *mnem;
	enum f64_kind kind;
	int modes;              /* rounding modes tested: 1 (rn) or 4 */
	bool wide;              /* the result is a pair */
} f64_cases[] = {
	{ "dadd", K_ARITH, 4, true }, { "dsub", K_ARITH, 4, true },
	{ "dmul", K_ARITH, 4, true }, { "dfma", K_FMA, 4, true },
	{ "dmin", K_MINMAX, 1, true }, { "dmax", K_MINMAX, 1, true },
	{ "dabs", K_UNARY, 1, true }, { "dneg", K_UNARY, 1, true },
	{ "dsetp", K_SETP, 1, false },
	{ "d2f", K_CVT, 4, false }, { "f2d", K_CVT, 1, true },
	{ "i2d", K_CVT, 1, true }, { "u2d", K_CVT, 1, true },
	{ "l2d", K_CVT, 4, true }, { "ul2d", K_CVT, 4, true },
	{ "d2i", K_CVT, 4, false }, { "d2u", K_CVT, 4, false },
	{ "d2l", K_CVT, 4, true }, { "d2ul", K_CVT, 4, true },
	{ "l2f", K_CVT, 4, false }, { "ul2f", K_CVT, 4, false },
	{ "f2l", K_CVT, 4, true }, { "f2ul", K_CVT, 4, true },
};

static const char *const f64_rnd[] = TGPU_RND_NAMES;
static const char *const f64_cmp[] = TGPU_CMP_NAMES;
static const int f64_fe[] = { FE_TONEAREST, FE_TOWARDZERO, FE_DOWNWARD, FE_UPWARD };

/* Results a thread stores: each case, by mode (dsetp: by comparison). */
static unsigned int f64_nres(void)
{
	unsigned int n = 0;

	for (size_t c = 0; c < G_N_ELEMENTS(f64_cases); c++)
		n += f64_cases[c].kind == K_SETP ? TGPU_CMP_COUNT : f64_cases[c].modes;
	return n;
}

static char *f64_kernel(void)
{
	GString *g = g_string_new(NULL);
	unsigned int k = 0;

	g_string_append_printf(g, ONE_THREAD_AN_INPUT
		"	mov	r6, 8\n"
		"	imad.wide r8, r0, r6, r2\n"
		"	ldg.64	r10, [r8]\n"
		"	ldg.64	r12, [r8 + 0x%x]\n"
		"	ldg.64	r14, [r8 + 0x%x]\n"
		"	mov	r6, %u\n"
		"	imad.wide r16, r0, r6, r4\n"
		"	mov	r18, 1\n", F64_N * 8, F64_N * 16, 8 * f64_nres());
	for (size_t c = 0; c < G_N_ELEMENTS(f64_cases); c++) {
		const struct f64_case *fc = &f64_cases[c];
		int n = fc->kind == K_SETP ? TGPU_CMP_COUNT : fc->modes;

		for (int m = 0; m < n; m++, k++) {
			const char *sfx = fc->kind == K_SETP ? f64_cmp[m] : m ? f64_rnd[m] : "";
			const char *dot = sfx[0] ? "." : "";

			switch (fc->kind) {
			case K_ARITH:
			case K_MINMAX:
				g_string_append_printf(g, "	%s%s%s r20, r10, r12\n", fc->mnem, dot,
						       sfx);
				break;
			case K_FMA:
				g_string_append_printf(g, "	%s%s%s r20, r10, r12, r14\n", fc->mnem,
						       dot, sfx);
				break;
			case K_UNARY:
				g_string_append_printf(g, "	%s r20, r10\n", fc->mnem);
				break;
			case K_SETP:
				g_string_append_printf(g, "	dsetp.%s p0, r10, r12\n"
						       "	sel	r20, r18, 0, p0\n", sfx);
				break;
			case K_CVT:
				/* a 32-bit source is x's low word, r10 */
				g_string_append_printf(g, "	%s%s%s r20, r10\n", fc->mnem, dot, sfx);
				break;
			}
			g_string_append_printf(g, "	stg.%s	[r16 + %u], r20\n",
					       fc->wide ? "64" : "32", 8 * k);
		}
	}
	g_string_append(g, "	exit\n");
	return g_string_free(g, false);
}

static bool nan64(uint64_t v)
{
	return (v & INT64_MAX) > 0x7ff0000000000000ull;
}

/* The documented NaN rule: the first NaN operand, quieted; else R. */
static uint64_t ref_nan(uint64_t r, uint64_t x, uint64_t y, uint64_t z)
{
	if (nan64(x))
		return x | 1ull << 51;
	if (nan64(y))
		return y | 1ull << 51;
	return nan64(z) ? z | 1ull << 51 : r;
}

/* Float to integer by the host's nearbyint() in MODE, saturated as PTX. */
static uint64_t ref_toint(long double x, int mode, bool is_signed, int bits)
{
	long double lo = is_signed ? -ldexpl(1, bits - 1) : 0;
	long double hi = ldexpl(1, bits - (is_signed ? 1 : 0)) - 1;

	if (isnan(x))
		return 0;
	fesetround(f64_fe[mode]);
	x = nearbyintl(x);
	fesetround(FE_TONEAREST);
	if (x < lo)
		x = lo;
	if (x > hi)
		x = hi;
	return is_signed ? (uint64_t)(int64_t)x : (uint64_t)x;
}

static uint64_t ref_f64(const struct f64_case *fc, int m, uint64_t a, uint64_t b, uint64_t c)
{
	volatile double x = simt_dbl(a), y = simt_dbl(b), z = simt_dbl(c), d = 0;
	volatile float f = 0, fa;
	uint32_t a32 = a, fb;
	uint64_t v;

	memcpy((float *)&fa, &a32, 4);
	if (fc->kind == K_SETP) {
		bool t = m == TGPU_CMP_EQ ? x == y : m == TGPU_CMP_NE ? !(x == y) :
			 m == TGPU_CMP_LT ? x < y : m == TGPU_CMP_LE ? x <= y :
			 m == TGPU_CMP_GT ? x > y : x >= y;

		return t;
	}
	if (!strcmp(fc->mnem, "dabs"))
		return a & INT64_MAX;
	if (!strcmp(fc->mnem, "dneg"))
		return a ^ 1ull << 63;
	if (fc->kind == K_MINMAX) {
		bool mx = !strcmp(fc->mnem, "dmax");

		/* IEEE maxNum/minNum, b first on equal operands (glibc's fmax) */
		if (nan64(a) && nan64(b))
			return ref_nan(0, b, a, a);
		if (nan64(a) || nan64(b)) {
			uint64_t n = nan64(a) ? a : b, o = nan64(a) ? b : a;

			return n & 1ull << 51 ? o : n | 1ull << 51;
		}
		return (mx ? y > x : y < x) ? b : a;
	}
	if (!strcmp(fc->mnem, "d2i"))
		return (uint32_t)ref_toint(x, m, true, 32);
	if (!strcmp(fc->mnem, "d2u"))
		return (uint32_t)ref_toint(x, m, false, 32);
	if (!strcmp(fc->mnem, "d2l"))
		return ref_toint(x, m, true, 64);
	if (!strcmp(fc->mnem, "d2ul"))
		return ref_toint(x, m, false, 64);
	if (!strcmp(fc->mnem, "f2l"))
		return ref_toint(fa, m, true, 64);
	if (!strcmp(fc->mnem, "f2ul"))
		return ref_toint(fa, m, false, 64);
	if (!strcmp(fc->mnem, "i2d"))
		return simt_dbl_bits((int32_t)a32);
	if (!strcmp(fc->mnem, "u2d"))
		return simt_dbl_bits(a32);
	if (!strcmp(fc->mnem, "f2d")) {
		v = simt_dbl_bits(fa);
		return nan64(v) ? v | 1ull << 51 : v;
	}
	fesetround(f64_fe[m]);
	if (!strcmp(fc->mnem, "dadd"))
		d = x + y;
	else if (!strcmp(fc->mnem, "dsub"))
		d = x - y;
	else if (!strcmp(fc->mnem, "dmul"))
		d = x * y;
	else if (!strcmp(fc->mnem, "dfma"))
		d = fma(x, y, z);
	else if (!strcmp(fc->mnem, "d2f"))
		f = x;
	else if (!strcmp(fc->mnem, "l2d"))
		d = (double)(int64_t)a;
	else if (!strcmp(fc->mnem, "ul2d"))
		d = (double)a;
	else if (!strcmp(fc->mnem, "l2f"))
		f = (float)(int64_t)a;
	else if (!strcmp(fc->mnem, "ul2f"))
		f = (float)a;
	fesetround(FE_TONEAREST);
	if (!fc->wide) {
		memcpy(&fb, (const float *)&f, 4);
		return fb;
	}
	v = simt_dbl_bits(d);
	if (!isnan(d) || (fc->kind != K_ARITH && fc->kind != K_FMA))
		return v;
	/* the documented order: b's NaN first for add and mul */
	if (!strcmp(fc->mnem, "dadd") || !strcmp(fc->mnem, "dmul"))
		return ref_nan(v, b, a, a);
	return ref_nan(v, a, b, fc->kind == K_FMA ? c : b);
}

/* Special values, numbers near rounding and integer edges, random bits. */
static uint64_t f64_input(uint32_t *x, unsigned int i)
{
	static const uint64_t special[] = {
		0, 1ull << 63, 0x7ff0000000000000ull, 0xfff0000000000000ull,
		0x7ff8000000000000ull, 0x7ff0000000000123ull, 0xfff8000000000456ull,
		1, 0x000fffffffffffffull, 0x0010000000000000ull, 0x7fefffffffffffffull,
		0x3ff0000000000000ull, 0xbff0000000000000ull, 0x3fe0000000000000ull,
		0x4330000000000001ull, 0x43e0000000000000ull, 0xc3e0000000000000ull,
		0x43f0000000000000ull, 0x41dfffffffc00000ull, 0x41e0000000000000ull,
		0xc1e0000000000000ull, 0x41efffffffe00000ull, 0x4004000000000000ull,
		0xc004000000000000ull, 0x3ff8000000000000ull, 0x400c000000000000ull,
	};
	uint64_t r = (uint64_t)xs32(x) << 32 | xs32(x);

	if (i < G_N_ELEMENTS(special))
		return special[i];
	switch (i % 4) {
	case 0:
		return r;                       /* any bits: NaNs, subnormals too */
	case 1:                                 /* a number of moderate size */
		return (r & 0x800fffffffffffffull) | (uint64_t)(1023 - 40 + r % 110) << 52;
	case 2:                                 /* a multiple of 1/2 near an integer */
		return simt_dbl_bits((double)(int64_t)(r % 4000001 - 2000000) / 2);
	}
	return (r & 0x800fffffffffffffull) | (uint64_t)(1023 + r % 66) << 52;
}

static void test_f64(const char *build)
{
	g_autofree char *src = f64_kernel();
	unsigned int nres = f64_nres(), bad[G_N_ELEMENTS(f64_cases)] = { 0 };
	struct p2 p = { .a = F64_IN, .b = F64_OUT };
	struct launch l = { src, F64_N / 32, 32, &p, 16, 0 };
	static uint64_t a[F64_N], b[F64_N], c[F64_N];
	uint64_t insns = 0;
	uint32_t x = 777;

	for (int round = 0; round < F64_ROUNDS; round++) {
		struct result res;
		int rc;

		for (unsigned int i = 0; i < F64_N; i++) {
			unsigned int j = round * F64_N + i;

			/* pairs of specials meet each other: x and y run apart */
			a[i] = f64_input(&x, j);
			b[i] = f64_input(&x, j < 26 * 26 ? (j / 26 + j) % 26 : j);
			c[i] = f64_input(&x, j ^ 5);
			simt_stq(mem + F64_IN + 8 * i, a[i]);
			simt_stq(mem + F64_IN + F64_N * 8 + 8 * i, b[i]);
			simt_stq(mem + F64_IN + F64_N * 16 + 8 * i, c[i]);
		}
		memset(mem + F64_OUT, 0xee, (size_t)F64_N * 8 * nres);
		rc = run(&l, &res);
		if (!ok(rc == 0 && res.ended && res.k.error == TGPU_KERR_NONE,
			"%s: the float64 kernel ran, round %d (error %u)", build, round,
			rc ? 0 : res.k.error))
			return;
		insns += res.warp_insns;
		for (unsigned int i = 0; i < F64_N; i++) {
			unsigned int k = 0;

			for (size_t cs = 0; cs < G_N_ELEMENTS(f64_cases); cs++) {
				const struct f64_case *fc = &f64_cases[cs];
				int n = fc->kind == K_SETP ? TGPU_CMP_COUNT : fc->modes;

				for (int m = 0; m < n; m++, k++) {
					uint64_t at = F64_OUT + (uint64_t)8 * (nres * i + k);
					uint64_t got = fc->wide ? simt_ldq(mem + at) : rd32(at);
					uint64_t want = ref_f64(fc, m, a[i], b[i], c[i]);

					if (got != want && !bad[cs]++)
						diag("%s.%s(0x%016llx, 0x%016llx, 0x%016llx) = 0x%llx, "
						     "want 0x%llx", fc->mnem,
						     fc->kind == K_SETP ? f64_cmp[m] : f64_rnd[m],
						     (unsigned long long)a[i], (unsigned long long)b[i],
						     (unsigned long long)c[i], (unsigned long long)got,
						     (unsigned long long)want);
				}
			}
		}
	}
	for (size_t cs = 0; cs < G_N_ELEMENTS(f64_cases); cs++)
		is_int(bad[cs], 0, "%s: %s: %u inputs in each of its modes, as the host FPU "
		       "rounds", build, f64_cases[cs].mnem, F64_N * F64_ROUNDS);
	(void)insns;
}

/* The cycle model: a float64 instruction costs f64_cost cycles. */
static void test_f64_cost(const char *build)
{
	static const char src[] =
		"	s2r	r0, clock.lo\n"
		"	dadd	r2, r4, r6\n"
		"	s2r	r1, clock.lo\n"
		"	iadd	r8, r1, 0\n"
		"	s2r	r9, clock.lo\n"
		"	isub	r10, r1, r0\n"
		"	isub	r11, r9, r1\n"
		"	usetp.ne p0, r10, 3\n"
		"	@p0 trap 1\n"
		"	usetp.ne p0, r11, 2\n"
		"	@p0 trap 2\n"
		"	exit\n";
	struct launch l = { src, 1, 32, NULL, 0, 0 };
	struct result res;

	if (!ok(run(&l, &res) == 0 && res.ended, "%s: the cost kernel ran", build))
		return;
	/* f64_cost 2: dadd (2) and s2r (1) from clock to clock; iadd and s2r 2 */
	ok(res.k.error == TGPU_KERR_NONE,
	   "%s: a dadd costs a P100's 2 cycles, an iadd 1 (error %u, trap %u)", build,
	   res.k.error, res.k.err_info);
	is_int(res.warp_insns, 12, "%s: ... and counts as one warp instruction", build);
}

/* ---- float32 rounding modes, against the host FPU --------------------------- */

#define F32_N           2048
#define F32_ROUNDS      2
#define F32_IN          0x10000u        /* a[], b[], c[]: words, 0x4000 apart */
#define F32_OUT         0x20000u        /* 32 words a thread */

static const char *const f32_ops[] = {
	"fadd", "fsub", "fmul", "ffma", "i2f", "u2f", "f2i", "f2u",
};

static char *f32_kernel(void)
{
	static const char *const rn_first[] = TGPU_RND_NAMES, *const rz_first[] = TGPU_F2I_NAMES;
	GString *g = g_string_new(ONE_THREAD_AN_INPUT
		"	mov	r6, 4\n"
		"	imad.wide r8, r0, r6, r2\n"
		"	ldg.32	r10, [r8]\n"
		"	ldg.32	r11, [r8 + 0x4000]\n"
		"	ldg.32	r12, [r8 + 0x8000]\n"
		"	mov	r6, 128\n"
		"	imad.wide r16, r0, r6, r4\n");

	for (unsigned int o = 0; o < G_N_ELEMENTS(f32_ops); o++) {
		for (unsigned int m = 0; m < 4; m++) {
			const char *sfx = o >= 6 ? rz_first[m] : rn_first[m];
			const char *args = o == 3 ? "r10, r11, r12" : o >= 4 ? "r10" : "r10, r11";

			g_string_append_printf(g, "	%s%s%s r20, %s\n	stg.32	[r16 + %u], r20\n",
					       f32_ops[o], m ? "." : "", m ? sfx : "", args,
					       16 * o + 4 * m);
		}
	}
	g_string_append(g, "	exit\n");
	return g_string_free(g, false);
}

/* The float32 reference: the host FPU in MODE (FE_*), NaNs as documented. */
static uint32_t ref_f32(unsigned int o, unsigned int m, uint32_t a, uint32_t b, uint32_t c)
{
	volatile float x = simt_flt(a), y = simt_flt(b), z = simt_flt(c), d = 0;

	if (o >= 6) {
		/* f2i, f2u: modes rz, rn, rm, rp */
		static const int f2i_mode[] = { 1, 0, 2, 3 };

		return (uint32_t)ref_toint(x, f2i_mode[m], o == 6, 32);
	}
	fesetround(f64_fe[m]);
	switch (o) {
	case 0:
		d = x + y;
		break;
	case 1:
		d = x - y;
		break;
	case 2:
		d = x * y;
		break;
	case 3:
		d = fmaf(x, y, z);
		break;
	case 4:
		d = (float)(int32_t)a;
		break;
	case 5:
		d = (float)a;
		break;
	}
	fesetround(FE_TONEAREST);
	if (o >= 4)
		return simt_flt_bits(d);
	if (o == 0 || o == 2)
		return simt_nan_first(simt_flt_bits(d), b, a, a);
	return simt_nan_first(simt_flt_bits(d), a, b, o == 3 ? c : b);
}

static void test_f32_rounding(const char *build)
{
	g_autofree char *src = f32_kernel();
	struct p2 p = { .a = F32_IN, .b = F32_OUT };
	struct launch l = { src, F32_N / 32, 32, &p, 16, 0 };
	unsigned int bad[G_N_ELEMENTS(f32_ops)] = { 0 };
	static uint32_t a[F32_N], b[F32_N], c[F32_N];
	uint32_t x = 31337;

	for (int round = 0; round < F32_ROUNDS; round++) {
		struct result res;
		int rc;

		for (unsigned int i = 0; i < F32_N; i++) {
			/* the float64 inputs' high words: specials, edges, random */
			a[i] = f64_input(&x, round * F32_N + i) >> 32;
			b[i] = i % 3 ? xs32(&x) : f64_input(&x, i) >> 29;
			c[i] = xs32(&x) & 0x807fffffu;
			c[i] |= (uint32_t)(100 + xs32(&x) % 60) << 23;
			wr32m(F32_IN + 4 * i, a[i]);
			wr32m(F32_IN + 0x4000 + 4 * i, b[i]);
			wr32m(F32_IN + 0x8000 + 4 * i, c[i]);
		}
		rc = run(&l, &res);
		if (!ok(rc == 0 && res.ended && res.k.error == TGPU_KERR_NONE,
			"%s: the float32 rounding kernel ran, round %d", build, round))
			return;
		for (unsigned int i = 0; i < F32_N; i++) {
			for (unsigned int o = 0; o < G_N_ELEMENTS(f32_ops); o++) {
				for (unsigned int m = 0; m < 4; m++) {
					uint32_t got = rd32(F32_OUT + 128 * i + 16 * o + 4 * m);
					uint32_t want = ref_f32(o, m, a[i], b[i], c[i]);

					if (got != want && !bad[o]++)
						diag("%s mode %u (0x%08x, 0x%08x, 0x%08x) = 0x%08x, "
						     "want 0x%08x", f32_ops[o], m, a[i], b[i], c[i],
						     got, want);
				}
			}
		}
	}
	for (unsigned int o = 0; o < G_N_ELEMENTS(f32_ops); o++)
		is_int(bad[o], 0, "%s: %s in its four rounding modes over %u inputs, as the "
		       "host FPU", build, f32_ops[o], F32_N * F32_ROUNDS);
}

/* ---- 64-bit integers and carries ----------------------------------------------- */

#define I64_N           1024
#define I64_IN          0x10000u        /* x[], y[]: pairs; s[]: words */
#define I64_OUT         0x20000u        /* 16 pairs a thread */

/*
 * Each thread: x, y (64-bit) and a shift s; 64-bit ops, then x:y as
 * 128-bit numbers added to and subtracted from y:x with carry chains.
 */
static const char int64_src[] =
	ONE_THREAD_AN_INPUT
	"	mov	r6, 8\n"
	"	imad.wide r8, r0, r6, r2\n"
	"	ldg.64	r10, [r8]\n"
	"	ldg.64	r12, [r8 + 0x2000]\n"
	"	mov	r6, 4\n"
	"	imad.wide r8, r0, r6, r2\n"
	"	ldg.32	r14, [r8 + 0x4000]\n"
	"	mov	r6, 128\n"
	"	imad.wide r16, r0, r6, r4\n"
	"	isub64	r20, r10, r12\n"
	"	stg.64	[r16 + 0], r20\n"
	"	isub64	r20, r10, -7\n"
	"	stg.64	[r16 + 8], r20\n"
	"	imul64	r20, r10, r12\n"
	"	stg.64	[r16 + 16], r20\n"
	"	imulhi.s64 r20, r10, r12\n"
	"	stg.64	[r16 + 24], r20\n"
	"	imulhi.u64 r20, r10, r12\n"
	"	stg.64	[r16 + 32], r20\n"
	"	shl64	r20, r10, r14\n"
	"	stg.64	[r16 + 40], r20\n"
	"	shr64	r20, r10, r14\n"
	"	stg.64	[r16 + 48], r20\n"
	"	sar64	r20, r10, r14\n"
	"	stg.64	[r16 + 56], r20\n"
	"	sar64	r20, r10, 63\n"
	"	stg.64	[r16 + 64], r20\n"
	"	mov	r18, 1\n"
	"	isetp64.lt p0, r10, r12\n"
	"	sel	r20, r18, 0, p0\n"
	"	usetp64.lt p1, r10, r12\n"
	"	sel	r21, r18, 0, p1\n"
	"	isetp64.ge p0, r10, r12\n"
	"	sel	r22, r18, 0, p0\n"
	"	usetp64.eq p1, r10, r10\n"
	"	sel	r23, r18, 0, p1\n"
	"	stg.32	[r16 + 72], r20\n"
	"	stg.32	[r16 + 76], r21\n"
	"	stg.32	[r16 + 80], r22\n"
	"	stg.32	[r16 + 84], r23\n"
	/* (x.hi:x.lo:y.hi:y.lo) + (y.hi:y.lo:x.hi:x.lo), words low first */
	"	iadd.co	r24, r12, r10, p2\n"
	"	iadd.cio r25, r13, r11, p2\n"
	"	iadd.cio r26, r10, r12, p2\n"
	"	iadd.ci	r27, r11, r13, p2\n"
	"	stg.64	[r16 + 88], r24\n"
	"	stg.64	[r16 + 96], r26\n"
	"	isub.co	r24, r12, r10, p3\n"
	"	isub.cio r25, r13, r11, p3\n"
	"	isub.cio r26, r10, r12, p3\n"
	"	isub.ci	r27, r11, r13, p3\n"
	"	stg.64	[r16 + 104], r24\n"
	"	stg.64	[r16 + 112], r26\n"
	/* the carry out of the top word, as a value */
	"	iadd.co	r24, r11, r13, p4\n"
	"	sel	r20, r18, 0, p4\n"
	"	stg.32	[r16 + 120], r20\n"
	"	exit\n";

static void test_int64(const char *build)
{
	struct p2 p = { .a = I64_IN, .b = I64_OUT };
	struct launch l = { int64_src, I64_N / 32, 32, &p, 16, 0 };
	static uint64_t xv[I64_N], yv[I64_N];
	static uint32_t sv[I64_N];
	static const uint64_t edge[] = {
		0, 1, UINT64_MAX, INT64_MAX, (uint64_t)INT64_MIN, 0xffffffffull,
		0x100000000ull, 0x8000000000000001ull,
	};
	unsigned int bad = 0;
	struct result res;
	uint32_t x = 4242;
	int rc;

	for (unsigned int i = 0; i < I64_N; i++) {
		xv[i] = i < 64 ? edge[i % 8] : (uint64_t)xs32(&x) << 32 | xs32(&x);
		yv[i] = i < 64 ? edge[i / 8] : (uint64_t)xs32(&x) << 32 | xs32(&x);
		sv[i] = i < 70 ? i : xs32(&x) % 80;
		simt_stq(mem + I64_IN + 8 * i, xv[i]);
		simt_stq(mem + I64_IN + 0x2000 + 8 * i, yv[i]);
		wr32m(I64_IN + 0x4000 + 4 * i, sv[i]);
	}
	memset(mem + I64_OUT, 0xee, I64_N * 128);
	rc = run(&l, &res);
	if (!ok(rc == 0 && res.ended && res.k.error == TGPU_KERR_NONE,
		"%s: the 64-bit integer kernel ran", build))
		return;
	for (unsigned int i = 0; i < I64_N; i++) {
		uint64_t a = xv[i], b = yv[i], want[16];
		unsigned int n = sv[i];
		unsigned __int128 u = (unsigned __int128)a << 64 | b;
		unsigned __int128 v = (unsigned __int128)b << 64 | a;
		unsigned __int128 sum = u + v, dif = u - v;
		uint64_t at = I64_OUT + 128 * i;

		want[0] = a - b;
		want[1] = a + 7;
		want[2] = a * b;
		want[3] = (uint64_t)(((__int128)(int64_t)a * (int64_t)b) >> 64);
		want[4] = (uint64_t)(((unsigned __int128)a * b) >> 64);
		want[5] = n >= 64 ? 0 : a << n;
		want[6] = n >= 64 ? 0 : a >> n;
		want[7] = (uint64_t)((int64_t)a >> (n > 63 ? 63 : n));
		want[8] = (uint64_t)((int64_t)a >> 63);
		want[9] = ((uint64_t)((int64_t)a < (int64_t)b)) |
			  (uint64_t)(a < b) << 32;
		want[10] = ((uint64_t)((int64_t)a >= (int64_t)b)) | 1ull << 32;
		want[11] = (uint64_t)sum;
		want[12] = (uint64_t)(sum >> 64);
		want[13] = (uint64_t)dif;
		want[14] = (uint64_t)(dif >> 64);
		want[15] = (a >> 32) + (b >> 32) > UINT32_MAX;
		for (unsigned int k = 0; k < 16; k++) {
			uint64_t got = k == 15 ? rd32(at + 120) : simt_ldq(mem + at + 8 * k);

			if (got != want[k] && !bad++)
				diag("x 0x%016llx y 0x%016llx s %u: result %u = 0x%016llx, want "
				     "0x%016llx", (unsigned long long)a, (unsigned long long)b, n, k,
				     (unsigned long long)got, (unsigned long long)want[k]);
		}
	}
	is_int(bad, 0, "%s: isub64, imul64, imulhi.s64/u64, shl64/shr64/sar64, isetp64, "
	       "usetp64 and 128-bit carry chains over %u inputs", build, I64_N);
}

/* ---- the special functions, against long double ------------------------------ */

#define MUFU_N          8192            /* inputs a round */
#define MUFU_ROUNDS     13              /* 106,496 inputs, all through each */
#define MUFU_IN         0x10000u
#define MUFU_OUT        0x20000u        /* 8 words a thread */

static const char *const mufu_fn[] = TGPU_MUFU_NAMES;

static const char mufu_src[] =
	ONE_THREAD_AN_INPUT
	"	mov	r6, 4\n"
	"	imad.wide r8, r0, r6, r2\n"
	"	ldg.32	r10, [r8]\n"
	"	mov	r6, 32\n"
	"	imad.wide r16, r0, r6, r4\n"
	"	mufu.rcp r20, r10\n"
	"	stg.32	[r16 + 0], r20\n"
	"	mufu.rsq r20, r10\n"
	"	stg.32	[r16 + 4], r20\n"
	"	mufu.sqrt r20, r10\n"
	"	stg.32	[r16 + 8], r20\n"
	"	mufu.ex2 r20, r10\n"
	"	stg.32	[r16 + 12], r20\n"
	"	mufu.lg2 r20, r10\n"
	"	stg.32	[r16 + 16], r20\n"
	"	mufu.sin r20, r10\n"
	"	stg.32	[r16 + 20], r20\n"
	"	mufu.cos r20, r10\n"
	"	stg.32	[r16 + 24], r20\n"
	"	exit\n";

static long double mufu_ref(unsigned int fn, long double x)
{
	switch (fn) {
	case TGPU_MUFU_RCP:
		return 1 / x;
	case TGPU_MUFU_RSQ:
		return 1 / sqrtl(x);
	case TGPU_MUFU_SQRT:
		return sqrtl(x);
	case TGPU_MUFU_EX2:
		return exp2l(x);
	case TGPU_MUFU_LG2:
		return log2l(x);
	case TGPU_MUFU_SIN:
		return sinl(x);
	}
	return cosl(x);
}

/* |GOT - REF| in ulps of REF as a float (subnormal ulps below 2^-126) */
static double mufu_ulps(float got, long double ref)
{
	float r = (float)ref;
	int e;

	if (isnan(ref))
		return isnan(got) ? 0 : INFINITY;
	if (isinf(r))
		return got == r ? 0 : INFINITY;
	frexpl(ref, &e);
	if (e < -125)
		e = -125;
	return fabsl((long double)got - ref) / ldexpl(1, e - 24);
}

static float mufu_input(uint32_t *x, unsigned int i)
{
	static const uint32_t special[] = {
		0, 0x80000000u, 0x7f800000u, 0xff800000u, 0x7fc00000u, 0x7f812345u,
		1, 0x807fffffu, 0x00800000u, 0x7f7fffffu, 0x3f800000u, 0xbf800000u,
		0x40490fdbu, 0xc0490fdbu, 0x43000000u, 0xc3150000u, 0x42fe0000u,
	};
	uint32_t r = xs32(x);
	float f;

	if (i < G_N_ELEMENTS(special))
		r = special[i];
	else if (i % 4 == 1)
		return -150 + (r >> 8) * (280.0f / (1 << 24));         /* ex2's range */
	else if (i % 4 == 2)
		return -6.2831855f + (r >> 8) * (12.566371f / (1 << 24)); /* +-2 pi */
	else if (i % 4 == 3)
		r = (r & 0x007fffffu) | ((1 + r % 254) << 23);          /* normal, > 0 */
	memcpy(&f, &r, 4);
	return f;
}

static void test_mufu(const char *build)
{
	struct p2 p = { .a = MUFU_IN, .b = MUFU_OUT };
	struct launch l = { mufu_src, MUFU_N / 32, 32, &p, 16, 0 };
	double worst[TGPU_MUFU_COUNT] = { 0 };
	unsigned int bad[TGPU_MUFU_COUNT] = { 0 }, n = 0;
	static float in[MUFU_N];
	uint32_t x = 99;

	for (int round = 0; round < MUFU_ROUNDS; round++) {
		struct result res;
		int rc;

		for (unsigned int i = 0; i < MUFU_N; i++) {
			uint32_t v;

			in[i] = mufu_input(&x, round * MUFU_N + i);
			memcpy(&v, &in[i], 4);
			wr32m(MUFU_IN + 4 * i, v);
		}
		rc = run(&l, &res);
		if (!ok(rc == 0 && res.ended && res.k.error == TGPU_KERR_NONE,
			"%s: the special-function kernel ran, round %d", build, round))
			return;
		for (unsigned int i = 0; i < MUFU_N; i++, n++) {
			for (unsigned int fn = 0; fn < TGPU_MUFU_COUNT; fn++) {
				uint32_t gb = rd32(MUFU_OUT + 32 * i + 4 * fn);
				long double ref = mufu_ref(fn, in[i]);
				float got;
				double e;

				memcpy(&got, &gb, 4);
				e = mufu_ulps(got, ref);
				/* rcp and sqrt round correctly: exactly the reference */
				if ((fn == TGPU_MUFU_RCP || fn == TGPU_MUFU_SQRT) &&
				    !isnan(ref) && got != (float)ref)
					e = INFINITY;
				if (isnan(ref) && isnan(in[i]) &&
				    gb != (simt_flt_bits(in[i]) | 0x400000u))
					e = INFINITY;   /* a NaN operand comes back quieted */
				if (e > worst[fn])
					worst[fn] = e;
				if (e > 0.501 && !bad[fn]++)
					diag("mufu.%s(%a = 0x%08x) = %a, reference %La: %g ulp",
					     mufu_fn[fn], in[i], simt_flt_bits(in[i]), got, ref, e);
			}
		}
	}
	for (unsigned int fn = 0; fn < TGPU_MUFU_COUNT; fn++)
		is_int(bad[fn], 0, "%s: mufu.%s within 0.501 ulp of long double over %u inputs "
		       "(worst %.4f ulp)", build, mufu_fn[fn], n, worst[fn]);
}

/* A run that checkpoint() stops returns false; the kernel goes on later. */
static const char loop_src[] =
	".param 8\n"
	"	ldc.64	r2, c[rz + 0]\n"
	"	mov	r4, 0\n"
	"loop:	iadd	r4, r4, 1\n"
	"	usetp.lt p0, r4, 200000\n"
	"	@p0 bra	loop\n"
	"	s2r	r0, tid.x\n"
	"	usetp.eq p1, r0, 0\n"
	"	@p1 stg.32 [r2], r4\n"
	"	exit\n";

static void test_checkpoint(const char *build)
{
	struct p2 p = { .a = 0x5000 };
	struct launch l = { loop_src, 1, 32, &p, 8, 0 };
	struct result res;

	checkpoints = 0;
	stop_after = 1;
	run(&l, &res);
	ok(!res.ended && res.runs == 1, "%s: a stopped run is not the end",
	   build);
	ok(res.warp_insns > 0 && res.warp_insns < 600000,
	   "%s: ... it stopped early (%llu warp instructions)", build,
	   (unsigned long long)res.warp_insns);
	stop_after = -1;

	wr32m(0x5000, 0);
	checkpoints = 0;
	l.budget = 100000;
	if (!ok(run(&l, &res) == 0 && res.ended, "%s: sliced run ended",
		build))
		return;
	is_int(rd32(0x5000), 200000, "%s: ... with the right count", build);
	ok(res.runs >= 6, "%s: ... over %u slices", build, res.runs);
	is_int(res.warp_insns, 2 + 3 * 200000 + 4,
	       "%s: ... one warp instruction each", build);
	ok(checkpoints >= res.runs - 1, "%s: ... checkpoint() between "
	   "steps (%u)", build, checkpoints);
	is_int(locks, unlocks, "%s: every lock() unlocked", build);
}

/* Float results, NaNs included, bit for bit, on both builds. */
static const char float_src[] =
	".param 8\n"
	"	s2r	r0, tid.x\n"
	"	ldc.64	r2, c[rz + 0]\n"
	"	mov	r5, 4\n"
	"	imad.wide r6, r0, r5, r2\n"
	"	ldg.32	r8, [r6]\n"
	"	ldg.32	r9, [r6 + 128]\n"
	"	ffma	r10, r8, r9, r8\n"
	"	fadd	r11, r10, r9\n"
	"	fmin	r12, r11, r8\n"
	"	stg.32	[r6 + 256], r12\n"
	"	fmul	r13, r8, r9\n"
	"	stg.32	[r6 + 384], r13\n"
	"	exit\n";

static void float_inputs(void)
{
	static const uint32_t special[] = {
		0x7fc00000, 0x7f800001, 0xff800000, 0x7f800000, 0x80000000,
		0x00000001, 0x3f800000, 0xbf800000,
	};

	for (int l = 0; l < 32; l++) {
		wr32m(0x6000 + 4 * l,
		      l < 8 ? special[l] : 0x3f000000u + l * 977);
		wr32m(0x6080 + 4 * l,
		      l >= 24 ? special[l - 24] : 0x40000000u + l * 12345);
	}
}

static void test_float_builds(void)
{
	struct p2 p = { .a = 0x6000 };
	struct launch l = { float_src, 1, 32, &p, 8, 0 };
	uint8_t generic[256];
	struct result res;

	float_inputs();
	tgpu_simt_select(false);
	run(&l, &res);
	memcpy(generic, mem + 0x6100, sizeof(generic));
	if (!tgpu_simt_select(true)) {
		skip("no vector build on this host: one build to compare");
		return;
	}
	float_inputs();
	memset(mem + 0x6100, 0, sizeof(generic));
	run(&l, &res);
	ok(!memcmp(generic, mem + 0x6100, sizeof(generic)),
	   "float results and NaNs: the vector build gives the generic "
	   "build's bits");
}

static void suite(const char *build)
{
	test_divergence(build, 0);
	test_divergence(build, SYS_BASE);
	test_barriers(build);
	test_atomics(build, 0x1000, "VRAM");
	test_atomics(build, SYS_BASE + 0x1000, "system memory");
	test_traps(build);
	test_faults(build);
	test_illegal(build);
	test_checkpoint(build);
	test_bitops(build);
	test_bitops_illegal(build);
	test_warp(build);
	test_warp_mask(build);
	test_sr(build);
	test_f64(build);
	test_f64_cost(build);
	test_int64(build);
	test_mufu(build);
	test_f32_rounding(build);
}

int main(void)
{
	tgpu_simt_select(false);
	suite("generic");
	if (tgpu_simt_select(true))
		suite("vector");
	else
		skip("vector build: this host has no AVX2 and FMA");
	test_float_builds();
	return tap_done();
}
