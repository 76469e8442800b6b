// SPDX-License-Identifier: GPL-2.0-only OR MIT
/* Copyright (c) 2026 The tgpu authors */

/*
 * The devcoredump of a hang: a text file in the style of msm's and xe's
 * (key: value lines, indented lists, binary blobs in ascii85), read from
 * /sys/class/devcoredump/devcdN/data and decoded by tgpu-coredump
 * (guest-umd/tools).  docs/driver/kmd.md, "Devcoredump", is the format.
 * It is taken before anything is reset, with the schedulers stopped.
 */

#include <linux/ascii85.h>
#include <linux/devcoredump.h>
#include <linux/error-injection.h>
#include <linux/io.h>
#include <linux/kref.h>
#include <linux/mm.h>
#include <linux/sizes.h>
#include <linux/slab.h>
#include <linux/sched.h>
#include <linux/string.h>
#include <linux/timekeeping.h>
#include <linux/unaligned.h>
#include <linux/utsname.h>
#include <linux/vmalloc.h>

#include <drm/drm_drv.h>
#include <drm/drm_print.h>

#include <tgpu/channel.h>
#include <tgpu/copy.h>
#include <tgpu/ecc.h>
#include <tgpu/isa.h>
#include <tgpu/mmu.h>
#include <tgpu/regs.h>

#include "tgpu_coredump.h"
#include "tgpu_device.h"
#include "tgpu_queue.h"
#include "tgpu_sched.h"
#include "tgpu_vm.h"

/* Enough for the registers, 512 channels and 64 segments of 16 KiB. */
#define TGPU_DUMP_SIZE		SZ_2M
/* Dwords of one pushbuffer segment that go into the dump, at most. */
#define TGPU_DUMP_PB_DWORDS	4096
/* GPFIFO entries of a dump without a job, at most. */
#define TGPU_DUMP_RING_ENTRIES	8

/*
 * The dump's memory, made at probe: its 2 MiB are not allocated in the
 * timeout handler, which is in the fence-signalling path, where memory
 * reclaim must not be entered (it may wait for the fences the handler
 * is to signal).  devcoredump's own device (dev_coredumpm()) is still
 * allocated there, as for every driver that dumps from its timeout
 * handler.  devcoredump keeps one dump per device, so one buffer does:
 * while a dump is up, a later hang takes none (devcoredump would drop
 * it).  devcoredump frees it when the dump goes, which can be after the
 * device (a reader holds the file open): hence the reference.
 */
struct tgpu_coredump_buf {
	struct kref ref;
	atomic_t busy;
	/* a pushbuffer segment, or the VM's root table, on its way */
	u32 scratch[TGPU_DUMP_PB_DWORDS];
	char text[TGPU_DUMP_SIZE];
};

static_assert(TGPU_DUMP_PB_DWORDS * 4 >= SZ_4K);

struct tgpu_dump {
	char *buf;
	u32 *scratch;
	size_t len;
	bool full;
};

static __printf(2, 3) void dump_printf(struct tgpu_dump *d, const char *fmt,
				       ...)
{
	va_list args;
	int n;

	if (d->full)
		return;
	va_start(args, fmt);
	n = vsnprintf(d->buf + d->len, TGPU_DUMP_SIZE - d->len, fmt, args);
	va_end(args);
	if (n < 0 || d->len + n >= TGPU_DUMP_SIZE - 64) {
		d->full = true;
		d->len = min_t(size_t, d->len + max(n, 0), TGPU_DUMP_SIZE - 64);
		d->len += scnprintf(d->buf + d->len, TGPU_DUMP_SIZE - d->len,
				    "\ntruncated: true\n");
		return;
	}
	d->len += n;
}

/* @n dwords as an ascii85 blob, 16 groups a line, after "key: !!ascii85 |". */
static void dump_blob(struct tgpu_dump *d, const char *indent,
		      const char *key, const u32 *dw, unsigned int n)
{
	char out[6];
	unsigned int i;

	dump_printf(d, "%s%s: !!ascii85 |\n%s  ", indent, key, indent);
	for (i = 0; i < n; i++) {
		dump_printf(d, "%s", ascii85_encode(dw[i], out));
		if (i % 16 == 15 && i + 1 < n)
			dump_printf(d, "\n%s  ", indent);
	}
	dump_printf(d, "\n");
}

static const struct {
	const char *name;
	u32 reg;
} tgpu_dump_regs[] = {
#define R(x) { #x, TGPU_##x }
	R(PMC_BOOT_0), R(PMC_MAGIC), R(PMC_IFACE_VERSION), R(PMC_INTR),
	R(PMC_INTR_EN), R(FIFO_INTR), R(FIFO_INTR_EN), R(FIFO_ERR_CHID),
	R(FIFO_ERR_CODE), R(FIFO_ERR_INFO), R(FIFO_NONSTALL_INTR),
	R(FIFO_DOORBELLS), R(FIFO_DOORBELLS_BAD), R(FIFO_CTXSW_COUNT),
	R(MMU_INTR), R(MMU_FAULT_BUF_GET), R(MMU_FAULT_BUF_PUT),
	R(GR_ERROR), R(GR_ERROR_PC), R(GR_ERROR_INFO), R(GR_CLOCK_KHZ),
	R(ECC_CTRL), R(ECC_STATUS), R(ECC_INTR),
#undef R
};

static void dump_registers(struct tgpu_dump *d, struct tgpu_device *tdev)
{
	unsigned int i;

	dump_printf(d, "registers:\n");
	for (i = 0; i < ARRAY_SIZE(tgpu_dump_regs); i++)
		dump_printf(d, "  - { offset: 0x%06x, name: %s, value: 0x%08x }\n",
			    tgpu_dump_regs[i].reg, tgpu_dump_regs[i].name,
			    tgpu_rd32(tdev, tgpu_dump_regs[i].reg));
	dump_printf(d, "engines:\n");
	for (i = 0; i < TGPU_NR_RUNLISTS; i++)
		dump_printf(d, "  - { name: %s, progress: %u, runlist_status: 0x%08x }\n",
			    tgpu_engine_name(i),
			    tgpu_rd32(tdev, TGPU_PMC_ENGINE_PROGRESS(i)),
			    tgpu_rd32(tdev, TGPU_FIFO_RUNLIST_STATUS(i)));
	for (i = 0; i < TGPU_CE_COUNT; i++)
		dump_printf(d, "  - { name: ce%u, error: %u }\n", i,
			    tgpu_rd32(tdev, TGPU_CE_REG(i, TGPU_CE_ERROR)));
}

/* Every channel that is not disabled and clean. */
static void dump_channels(struct tgpu_dump *d, struct tgpu_device *tdev)
{
	u32 ch, status, state, err;

	dump_printf(d, "channels:\n");
	for (ch = 0; ch < tdev->id.channels; ch++) {
		status = tgpu_rd32(tdev, TGPU_CHAN_REG(ch, TGPU_CHAN_STATUS));
		state = status & TGPU_CHAN_STATE_MASK;
		err = tgpu_rd32(tdev, TGPU_CHAN_REG(ch, TGPU_CHAN_ERROR));
		if (state == TGPU_CHAN_STATE_DISABLED && !err)
			continue;
		dump_printf(d, "  - id: %u\n    state: %s\n    status: 0x%08x\n",
			    ch, tgpu_chan_state_name(state), status);
		dump_printf(d, "    gp_get: %u\n    gp_put: %u\n    pb: 0x%08x%08x\n",
			    tgpu_rd32(tdev, TGPU_CHAN_REG(ch, TGPU_CHAN_GP_GET)),
			    tgpu_rd32(tdev, TGPU_CHAN_REG(ch, TGPU_CHAN_GP_PUT)),
			    tgpu_rd32(tdev, TGPU_CHAN_REG(ch, TGPU_CHAN_PB_HI)),
			    tgpu_rd32(tdev, TGPU_CHAN_REG(ch, TGPU_CHAN_PB_LO)));
		dump_printf(d, "    error: %u\n    error_name: %s\n    error_info: 0x%08x\n",
			    err, tgpu_chan_error_name(err),
			    tgpu_rd32(tdev, TGPU_CHAN_REG(ch, TGPU_CHAN_ERROR_INFO)));
	}
}

static void dump_runlists(struct tgpu_dump *d, struct tgpu_device *tdev)
{
	struct tgpu_queue *q;
	unsigned int r;

	dump_printf(d, "runlists:\n");
	for (r = 0; r < TGPU_NR_RUNLISTS; r++) {
		dump_printf(d, "  - engine: %s\n    channels: [", tgpu_engine_name(r));
		list_for_each_entry(q, &tdev->rl[r].queues, rl_link)
			dump_printf(d, " %u", q->chid);
		dump_printf(d, " ]\n");
	}
}

/* One segment of the job, read through the CPU from the file's VM. */
static void dump_segment(struct tgpu_dump *d, struct tgpu_vm *vm, u64 va,
			 u32 dwords, u32 *tmp)
{
	unsigned int n = min_t(u32, dwords, TGPU_DUMP_PB_DWORDS), got = 0;
	int ret = 0;

	dump_printf(d, "  - va: 0x%010llx\n    dwords: %u\n", va, dwords);
	while (got < n) {
		ret = tgpu_vm_read(vm, va + 4ull * got, tmp + got, n - got,
				   true);
		if (ret <= 0)
			break;
		got += ret;
	}
	if (got < dwords)
		dump_printf(d, "    captured: %u\n", got);
	if (ret < 0)
		dump_printf(d, "    unreadable: %d\n", ret);
	if (got)
		dump_blob(d, "    ", "data", tmp, got);
}

static void dump_job(struct tgpu_dump *d, struct tgpu_queue *q,
		     struct tgpu_job *job)
{
	const u32 mask = TGPU_Q_GPFIFO_ENTRIES - 1;
	u32 fence[TGPU_Q_FENCE_DWORDS], i, slot = job->gp_slot;
	u64 seqno = job->fence ? job->fence->base.seqno : 0;

	dump_printf(d, "job:\n  seqno: %llu\n  ranges: %u\n  semaphore: %llu\n",
		    seqno, job->count, readq(q->mem.cpu + TGPU_Q_SEM));
	/* its GPFIFO entries: one per range, then the kernel's fence entry */
	dump_printf(d, "gpfifo:\n");
	for (i = 0; i <= job->count; i++)
		dump_printf(d, "  - { slot: %u, entry: 0x%016llx }\n",
			    (slot + i) & mask,
			    readq(q->gpfifo +
				  ((slot + i) & mask) * TGPU_GP_ENTRY_SIZE));
	dump_printf(d, "pushbuffers:\n");
	for (i = 0; i < job->count; i++)
		dump_segment(d, q->vm, job->ranges[i].va, job->ranges[i].dwords,
			     d->scratch);
	slot = (slot + job->count) & mask;
	memcpy_fromio(fence, q->mem.cpu + TGPU_Q_FENCE_PB +
		      slot * TGPU_Q_FENCE_SLOT, sizeof(fence));
	dump_printf(d, "  - va: 0x%010llx\n    dwords: %u\n    kernel: true\n",
		    q->va + TGPU_Q_FENCE_PB + slot * TGPU_Q_FENCE_SLOT,
		    TGPU_Q_FENCE_DWORDS);
	dump_blob(d, "    ", "data", fence, TGPU_Q_FENCE_DWORDS);
}

/*
 * No job (the device reported an error, and the job may be freed by
 * now): the ring where the channel stopped, from two entries before
 * GP_GET (the one it was in, and its neighbour) to GP_PUT, each with its
 * segment.
 */
static void dump_ring(struct tgpu_dump *d, struct tgpu_queue *q)
{
	const u32 mask = TGPU_Q_GPFIFO_ENTRIES - 1;
	u32 get, put, slot, n, i, lo, hi, dwords;
	u64 entry, va;

	get = tgpu_rd32(q->tdev, TGPU_CHAN_REG(q->chid, TGPU_CHAN_GP_GET));
	/* a user-submit queue's GP_PUT is the process's */
	put = q->user ? readl(q->userd + TGPU_USERD_GP_PUT) & mask :
			READ_ONCE(q->gp_put);
	slot = (get - 2) & mask;
	n = min_t(u32, (put - slot) & mask, TGPU_DUMP_RING_ENTRIES);
	dump_printf(d, "job:\n  seqno: 0\n  ranges: %u\n  semaphore: %llu\n  from_ring: true\n",
		    n, readq(q->mem.cpu + TGPU_Q_SEM));
	dump_printf(d, "gpfifo:\n");
	for (i = 0; i < n; i++)
		dump_printf(d, "  - { slot: %u, entry: 0x%016llx }\n",
			    (slot + i) & mask,
			    readq(q->gpfifo +
				  ((slot + i) & mask) * TGPU_GP_ENTRY_SIZE));
	dump_printf(d, "pushbuffers:\n");
	for (i = 0; i < n; i++) {
		entry = readq(q->gpfifo +
			      ((slot + i) & mask) * TGPU_GP_ENTRY_SIZE);
		lo = lower_32_bits(entry);
		hi = upper_32_bits(entry);
		va = (lo & TGPU_GP_ENTRY0_ADDR_MASK) |
		     (u64)(hi & TGPU_GP_ENTRY1_ADDR_HI_MASK) << 32;
		dwords = (hi >> TGPU_GP_ENTRY1_LENGTH_SHIFT) &
			 TGPU_GP_ENTRY1_LENGTH_MASK;
		/* the kernel's fence segments: in the queue's own memory */
		if (va >= q->va + TGPU_Q_FENCE_PB &&
		    va + 4ull * dwords <= q->va + TGPU_Q_SIZE &&
		    !tgpu_ecc_page_poisoned(q->tdev, q->mem.addr + (va - q->va))) {
			dwords = min_t(u32, dwords, TGPU_DUMP_PB_DWORDS);
			memcpy_fromio(d->scratch,
				      q->mem.cpu + (va - q->va), 4 * dwords);
			dump_printf(d, "  - va: 0x%010llx\n    dwords: %u\n    kernel: true\n",
				    va, dwords);
			dump_blob(d, "    ", "data", d->scratch, dwords);
			continue;
		}
		dump_segment(d, q->vm, va, dwords, d->scratch);
	}
}

static void dump_inst_vm(struct tgpu_dump *d, struct tgpu_queue *q)
{
	u32 blk[TGPU_INST_FIELDS_SIZE / 4];
	u32 *root = d->scratch;

	memcpy_fromio(blk, q->mem.cpu + TGPU_Q_INST, sizeof(blk));
	dump_printf(d, "instance:\n  address: 0x%010llx\n", q->mem.addr);
	dump_blob(d, "  ", "data", blk, ARRAY_SIZE(blk));
	dump_printf(d, "vm:\n  asid: %u\n", q->vm->asid);
	if (!q->vm->pd1)
		return;
	memcpy_fromio(root, q->vm->pd1->mem.cpu, SZ_4K);
	dump_printf(d, "  root: 0x%010llx\n", q->vm->pd1->mem.addr);
	dump_blob(d, "  ", "data", root, SZ_4K / 4);
}

/* The fault buffer's valid records, the newest last. */
static void dump_faults(struct tgpu_dump *d, struct tgpu_device *tdev)
{
	const struct tgpu_fault_buf *fb = &tdev->irq.fault_buf;
	u8 rec[TGPU_FAULT_RECORD_SIZE];
	u32 i, at, put;

	dump_printf(d, "faults:\n");
	if (!fb->entries)
		return;
	put = tgpu_rd32(tdev, TGPU_MMU_FAULT_BUF_PUT) % fb->entries;
	for (i = 0; i < fb->entries; i++) {
		at = (put + i) % fb->entries;
		memcpy_fromio(rec, fb->map + at * TGPU_FAULT_RECORD_SIZE,
			      sizeof(rec));
		if (rec[TGPU_FAULT_REC_VALID] != 1)
			continue;
		dump_printf(d, "  - { index: %u, va: 0x%010llx, asid: %u, channel: %u, engine: %u, access: %u, type: %u }\n",
			    at, get_unaligned_le64(rec + TGPU_FAULT_REC_VA),
			    get_unaligned_le32(rec + TGPU_FAULT_REC_ASID),
			    get_unaligned_le32(rec + TGPU_FAULT_REC_CHID),
			    rec[TGPU_FAULT_REC_ENGINE],
			    rec[TGPU_FAULT_REC_ACCESS],
			    rec[TGPU_FAULT_REC_TYPE]);
	}
}

static void dump_ecc(struct tgpu_dump *d, struct tgpu_device *tdev)
{
	dump_printf(d, "ecc:\n  enabled: %u\n  sbe_volatile: %u\n  dbe_volatile: %u\n  sbe_aggregate: %u\n  dbe_aggregate: %u\n  retired_pages: %u\n",
		    tdev->ecc.enabled,
		    tgpu_rd32(tdev, TGPU_ECC_SBE_VOLATILE),
		    tgpu_rd32(tdev, TGPU_ECC_DBE_VOLATILE),
		    tgpu_rd32(tdev, TGPU_ECC_SBE_AGGREGATE),
		    tgpu_rd32(tdev, TGPU_ECC_DBE_AGGREGATE),
		    tdev->ecc.nr_retired);
}

static void tgpu_coredump_release(struct kref *ref)
{
	vfree(container_of(ref, struct tgpu_coredump_buf, ref));
}

static ssize_t tgpu_coredump_read(char *buffer, loff_t offset, size_t count,
				  void *data, size_t datalen)
{
	struct tgpu_coredump_buf *cb = data;

	return memory_read_from_buffer(buffer, count, &offset, cb->text,
				       datalen);
}

/* devcoredump is done with the dump (read and dismissed, or expired) */
static void tgpu_coredump_free(void *data)
{
	struct tgpu_coredump_buf *cb = data;

	atomic_set(&cb->busy, 0);
	kref_put(&cb->ref, tgpu_coredump_release);
}

static void tgpu_coredump_fini(void *data)
{
	struct tgpu_device *tdev = data;

	/* the dump of a device that is gone goes with it, as in xe */
	dev_coredump_put(tdev->base.dev);
	kref_put(&tdev->coredump->ref, tgpu_coredump_release);
	tdev->coredump = NULL;
}

/**
 * tgpu_coredump_init() - make the memory of the device's devcoredumps
 * @tdev: the device
 *
 * Return: 0 on success, a negative errno otherwise.
 */
int tgpu_coredump_init(struct tgpu_device *tdev)
{
	struct tgpu_coredump_buf *cb = vzalloc(sizeof(*cb));

	if (!cb)
		return -ENOMEM;
	kref_init(&cb->ref);
	tdev->coredump = cb;
	return devm_add_action_or_reset(tdev->base.dev, tgpu_coredump_fini,
					tdev);
}
ALLOW_ERROR_INJECTION(tgpu_coredump_init, ERRNO);

/**
 * tgpu_coredump_capture() - take a devcoredump of a hang or an error
 * @tdev: the device, inside drm_dev_enter(), with the reset lock
 * @q: the guilty queue: its scheduler stopped, or its channel in error
 * @job: its hung job; NULL for an error the device reported (the dump
 *	then has the GPFIFO entries around the channel's GP_GET)
 * @reason: one line: what happened
 */
void tgpu_coredump_capture(struct tgpu_device *tdev, struct tgpu_queue *q,
			   struct tgpu_job *job, const char *reason)
{
	struct tgpu_coredump_buf *cb = tdev->coredump;
	const struct drm_driver *drv = tdev->base.driver;
	struct tgpu_dump d = { };

	/* one dump at a time: the last is still up */
	if (atomic_cmpxchg(&cb->busy, 0, 1)) {
		dev_info_ratelimited(tdev->base.dev, "no devcoredump of this fault: the last one is still unread in /sys/class/devcoredump\n");
		return;
	}
	d.buf = cb->text;
	d.scratch = cb->scratch;
	dump_printf(&d, "# tgpu devcoredump: decode with tgpu-coredump\n");
	dump_printf(&d, "format: 1\nkernel: %s %s\ndriver: %s %d.%d.%d\n",
		    init_utsname()->release, init_utsname()->version,
		    drv->name, drv->major, drv->minor, drv->patchlevel);
	dump_printf(&d, "time: %lld\ndevice: %s\nchip: %s\nreason: %s\n",
		    ktime_get_real_seconds(), dev_name(tdev->base.dev),
		    tdev->id.chip_name, reason);
	dump_printf(&d, "guilty:\n  channel: %u\n  queue: %u\n  pid: %d\n  comm: %s\n  engine: %s\n",
		    q->chid, q->id, pid_nr(q->pid), q->comm,
		    tgpu_engine_name(q->engine));
	dump_registers(&d, tdev);
	dump_channels(&d, tdev);
	dump_runlists(&d, tdev);
	dump_inst_vm(&d, q);
	if (job)
		dump_job(&d, q, job);
	else
		dump_ring(&d, q);
	dump_faults(&d, tdev);
	dump_ecc(&d, tdev);
	dump_printf(&d, "end: true\n");
	/* devcoredump holds a reference until tgpu_coredump_free() */
	kref_get(&cb->ref);
	dev_coredumpm(tdev->base.dev, THIS_MODULE, cb, d.len,
		      GFP_NOWAIT | __GFP_NOWARN, tgpu_coredump_read,
		      tgpu_coredump_free);
}
