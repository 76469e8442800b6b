// SPDX-License-Identifier: GPL-2.0-only OR MIT
/* Copyright (c) 2026 The tgpu authors */

#include <linux/bits.h>
#include <linux/build_bug.h>
#include <linux/device.h>
#include <linux/error-injection.h>
#include <linux/interrupt.h>
#include <linux/io.h>
#include <linux/math.h>
#include <linux/pci.h>
#include <linux/sched.h>
#include <linux/string.h>
#include <linux/unaligned.h>

#include <tgpu/channel.h>
#include <tgpu/copy.h>
#include <tgpu/isa.h>
#include <tgpu/mmu.h>

#include "tgpu_device.h"
#include "tgpu_ecc.h"
#include "tgpu_irq.h"
#include "tgpu_queue.h"
#include "tgpu_vram.h"

/* Fault buffer: 256 records of TGPU_FAULT_RECORD_SIZE bytes, 8 KiB. */
#define TGPU_FAULT_BUF_ENTRIES		256
#define TGPU_FAULT_BUF_BYTES \
	(TGPU_FAULT_BUF_ENTRIES * TGPU_FAULT_RECORD_SIZE)

#define TGPU_INTR_UNITS	(TGPU_INTR_FIFO | TGPU_INTR_NONSTALL | TGPU_INTR_MMU | \
			 TGPU_INTR_ECC | TGPU_INTR_THERMAL)

static const char * const tgpu_fault_types[] = {
	[TGPU_FAULT_NOT_PRESENT] = "NOT_PRESENT",
	[TGPU_FAULT_READ_ONLY] = "READ_ONLY",
	[TGPU_FAULT_PRIVILEGE] = "PRIVILEGE",
	[TGPU_FAULT_BAD_APERTURE] = "BAD_APERTURE",
	[TGPU_FAULT_WALK] = "WALK",
};

static const char * const tgpu_fault_engines[] = {
	[TGPU_FAULT_ENGINE_HOST] = "host",
	[TGPU_FAULT_ENGINE_COMPUTE] = "compute",
	[TGPU_FAULT_ENGINE_CE0] = "ce0",
	[TGPU_FAULT_ENGINE_CE1] = "ce1",
};

static const char *tgpu_name(const char * const *names, size_t n,
			     unsigned int i)
{
	return i < n && names[i] ? names[i] : "unknown";
}

/*
 * A copy-engine error: why, how far the launch got, where it stopped.
 * Returns the address it stopped at.
 */
static u64 tgpu_irq_copy_error(struct tgpu_device *tdev, unsigned int chid,
			       u32 info)
{
	unsigned int ce = TGPU_CE_ERR_INFO_CE(info);
	u64 done, va;

	done = tgpu_rd32(tdev, TGPU_CE_REG(ce, TGPU_CE_PROGRESS_LO)) |
	       (u64)tgpu_rd32(tdev, TGPU_CE_REG(ce, TGPU_CE_PROGRESS_HI)) << 32;
	va = tgpu_rd32(tdev, TGPU_CE_REG(ce, TGPU_CE_ERROR_VA_LO)) |
	     (u64)tgpu_rd32(tdev, TGPU_CE_REG(ce, TGPU_CE_ERROR_VA_HI)) << 32;
	dev_err_ratelimited(tdev->base.dev,
			    "channel %u: CE%u: %s, at 0x%010llx after %llu bytes\n",
			    chid, ce,
			    tgpu_ce_error_meaning(TGPU_CE_ERR_INFO_ERR(info)),
			    va, done);
	return va;
}

/*
 * A kernel error: why, and where in the program and the grid.  Returns
 * the faulting address.
 */
static u64 tgpu_irq_compute_error(struct tgpu_device *tdev, unsigned int chid,
				  u32 info)
{
	u64 va = tgpu_rd32(tdev, TGPU_GR_ERROR_VA_LO) |
		 (u64)tgpu_rd32(tdev, TGPU_GR_ERROR_VA_HI) << 32;

	dev_err_ratelimited(tdev->base.dev,
			    "channel %u: kernel error: %s, at instruction %u, CTA %u, warp %u, lane %u, address 0x%010llx, info 0x%x\n",
			    chid, tgpu_kerr_meaning(info),
			    tgpu_rd32(tdev, TGPU_GR_ERROR_PC),
			    tgpu_rd32(tdev, TGPU_GR_ERROR_CTA),
			    tgpu_rd32(tdev, TGPU_GR_ERROR_WARP),
			    tgpu_rd32(tdev, TGPU_GR_ERROR_LANE), va,
			    tgpu_rd32(tdev, TGPU_GR_ERROR_INFO));
	return va;
}

/* Log every channel with a pending error, then acknowledge them. */
static void tgpu_irq_chan_errors(struct tgpu_device *tdev)
{
	struct device *dev = tdev->base.dev;
	unsigned long pending;
	unsigned int i, bit, chid;
	u32 code, info;
	u64 va;

	for (i = 0; i < DIV_ROUND_UP(tdev->id.channels, 32); i++) {
		pending = tgpu_rd32(tdev, TGPU_FIFO_ERR_PENDING(i));
		if (!pending)
			continue;
		/* every channel in error at once: the device is gone */
		if (pending == U32_MAX) {
			tgpu_reset_check_bus_soon(tdev);
			return;
		}

		for_each_set_bit(bit, &pending, 32) {
			chid = i * 32 + bit;
			if (chid >= tdev->id.channels)
				break;
			code = tgpu_rd32(tdev, TGPU_CHAN_REG(chid, TGPU_CHAN_ERROR));
			/*
			 * Reset since it was raised (a recovery handing the
			 * channel its work again): nothing to report.
			 */
			if (code == TGPU_ERR_NONE)
				continue;
			info = tgpu_rd32(tdev,
					 TGPU_CHAN_REG(chid, TGPU_CHAN_ERROR_INFO));
			atomic64_inc(&tdev->irq.chan_errors);
			if (code < TGPU_ERR_COUNT)
				dev_err_ratelimited(dev, "channel %u: error %s (%u, %s), info 0x%08x\n",
						    chid, tgpu_chan_error_name(code),
						    code, tgpu_chan_error_meaning(code),
						    info);
			else
				dev_err_ratelimited(dev, "channel %u: unknown error %u, info 0x%08x\n",
						    chid, code, info);
			va = 0;
			if (code == TGPU_ERR_COPY)
				va = tgpu_irq_copy_error(tdev, chid, info);
			else if (code == TGPU_ERR_COMPUTE)
				va = tgpu_irq_compute_error(tdev, chid, info);
			if (chid == TGPU_KCHAN_CHID)
				tgpu_kchan_error(tdev, code, info);
			else
				tgpu_queues_chan_error(tdev, chid, code, info,
						       va);
		}
		tgpu_wr32(tdev, TGPU_FIFO_ERR_PENDING(i), pending);
	}
}

/* Stall unit: channel errors and refused runlists. */
static void tgpu_irq_fifo(struct tgpu_device *tdev)
{
	struct device *dev = tdev->base.dev;
	unsigned int r;
	u32 intr, status;

	intr = tgpu_rd32(tdev, TGPU_FIFO_INTR);
	if (intr == U32_MAX) {	/* the device is gone, or resetting */
		tgpu_reset_check_bus_soon(tdev);
		return;
	}

	if (intr & TGPU_FIFO_INTR_RUNLIST) {
		tgpu_wr32(tdev, TGPU_FIFO_INTR, TGPU_FIFO_INTR_RUNLIST);
		atomic64_inc(&tdev->irq.runlist_errors);
		for (r = 0; r < TGPU_NR_RUNLISTS; r++) {
			status = tgpu_rd32(tdev, TGPU_FIFO_RUNLIST_STATUS(r));
			if (status & TGPU_RUNLIST_STATUS_ERROR)
				dev_err_ratelimited(dev, "runlist %u: submission refused, %u entries still active\n",
						    r, status & TGPU_RUNLIST_STATUS_COUNT_MASK);
		}
	}

	/* CHAN_ERROR is a level: the OR of the ERR_PENDING bits. */
	if (intr & TGPU_FIFO_INTR_CHAN_ERROR)
		tgpu_irq_chan_errors(tdev);
}

/* Non-stall unit: acknowledge, then signal the fences the queues reached. */
static void tgpu_irq_nonstall(struct tgpu_device *tdev)
{
	u32 intr;

	intr = tgpu_rd32(tdev, TGPU_FIFO_NONSTALL_INTR);
	if (intr == U32_MAX) {
		tgpu_reset_check_bus_soon(tdev);
		return;
	}
	if (intr & TGPU_FIFO_NONSTALL_INTR_PENDING) {
		tgpu_wr32(tdev, TGPU_FIFO_NONSTALL_INTR,
			  TGPU_FIFO_NONSTALL_INTR_PENDING);
		atomic64_inc(&tdev->irq.nonstall);
	}
	tgpu_queues_signal(tdev);
	tgpu_kchan_signal(tdev);
}

static void tgpu_irq_log_fault(struct tgpu_device *tdev, const u8 *rec)
{
	u8 type = rec[TGPU_FAULT_REC_TYPE];
	u8 engine = rec[TGPU_FAULT_REC_ENGINE];
	u8 access = rec[TGPU_FAULT_REC_ACCESS];
	u32 chid = get_unaligned_le32(rec + TGPU_FAULT_REC_CHID);
	char who[8 + TASK_COMM_LEN + 16] = "kernel";
	struct tgpu_queue *q;

	if (rec[TGPU_FAULT_REC_VALID] != 1) {
		dev_err_ratelimited(tdev->base.dev, "MMU fault: invalid record in the fault buffer\n");
		return;
	}

	/* the process whose channel faulted, while its queue is there */
	if (chid != TGPU_KCHAN_CHID) {
		spin_lock(&tdev->queues_lock);
		q = xa_load(&tdev->chan_queues, chid);
		if (q) {
			snprintf(who, sizeof(who), "pid %d, %s",
				 pid_nr(q->pid), q->comm);
			/* for the channel error that follows (QUEUE_QUERY) */
			WRITE_ONCE(q->mmu_fault_va,
				   get_unaligned_le64(rec + TGPU_FAULT_REC_VA));
		} else {
			strscpy(who, "no queue");
		}
		spin_unlock(&tdev->queues_lock);
	}
	tgpu_xid(tdev, TGPU_XID_MMU_FAULT,
		 "MMU fault: %s on %s at 0x%010llx, asid %u, channel %u (%s), engine %s\n",
		 tgpu_name(tgpu_fault_types,
			   ARRAY_SIZE(tgpu_fault_types), type),
		 access == TGPU_FAULT_ACCESS_WRITE ? "write" : "read",
		 get_unaligned_le64(rec + TGPU_FAULT_REC_VA),
		 get_unaligned_le32(rec + TGPU_FAULT_REC_ASID), chid, who,
		 tgpu_name(tgpu_fault_engines,
			   ARRAY_SIZE(tgpu_fault_engines), engine));
}

/* MMU unit: drain the fault buffer from GET to PUT. */
static void tgpu_irq_mmu(struct tgpu_device *tdev)
{
	struct tgpu_fault_buf *fb = &tdev->irq.fault_buf;
	struct device *dev = tdev->base.dev;
	u8 rec[TGPU_FAULT_RECORD_SIZE];
	u32 intr, get, put;

	/* Acknowledge first: a fault recorded while draining raises it again. */
	intr = tgpu_rd32(tdev, TGPU_MMU_INTR);
	if (intr == U32_MAX) {
		tgpu_reset_check_bus_soon(tdev);
		return;
	}
	intr &= TGPU_MMU_INTR_FAULT | TGPU_MMU_INTR_OVERFLOW;
	if (intr)
		tgpu_wr32(tdev, TGPU_MMU_INTR, intr);

	if (intr & TGPU_MMU_INTR_OVERFLOW) {
		atomic64_inc(&tdev->irq.mmu_overflows);
		dev_err_ratelimited(dev, "MMU fault buffer overflow: faults were dropped\n");
	}

	if (!fb->entries)
		return;

	get = tgpu_rd32(tdev, TGPU_MMU_FAULT_BUF_GET);
	put = tgpu_rd32(tdev, TGPU_MMU_FAULT_BUF_PUT);
	if (get >= fb->entries || put >= fb->entries) {
		dev_err_ratelimited(dev, "MMU fault buffer: GET %u, PUT %u out of range\n",
				    get, put);
		return;
	}

	while (get != put) {
		memcpy_fromio(rec, fb->map + get * TGPU_FAULT_RECORD_SIZE,
			      sizeof(rec));
		atomic64_inc(&tdev->irq.mmu_faults);
		tgpu_irq_log_fault(tdev, rec);
		get = (get + 1) % fb->entries;
	}
	tgpu_wr32(tdev, TGPU_MMU_FAULT_BUF_GET, get);
}

/* Service the units in @units (TGPU_INTR_* bits).  Called with the lock. */
static void tgpu_irq_service(struct tgpu_device *tdev, u32 units)
{
	if (units & TGPU_INTR_FIFO)
		tgpu_irq_fifo(tdev);
	if (units & TGPU_INTR_NONSTALL)
		tgpu_irq_nonstall(tdev);
	if (units & TGPU_INTR_MMU)
		tgpu_irq_mmu(tdev);
	if (units & TGPU_INTR_ECC)
		tgpu_ecc_irq(tdev);
	if (units & TGPU_INTR_THERMAL)
		tgpu_therm_irq(tdev);
}

/*
 * The device signals one MSI-X vector per source class (TGPU_MSIX_VEC_*,
 * numbered as the TGPU_INTR_* bits).  An MSI-X vector is never shared, so
 * whatever arrives on it is ours; a message may find its unit already
 * serviced, which is harmless.
 */
static irqreturn_t tgpu_irq_vector(struct tgpu_device *tdev, unsigned int vec)
{
	atomic64_inc(&tdev->irq.count[vec]);

	spin_lock(&tdev->irq.lock);
	tgpu_irq_service(tdev, BIT(vec) & tdev->irq.enabled);
	spin_unlock(&tdev->irq.lock);
	return IRQ_HANDLED;
}

static irqreturn_t tgpu_irq_stall(int irq, void *data)
{
	return tgpu_irq_vector(data, TGPU_MSIX_VEC_STALL);
}

static irqreturn_t tgpu_irq_nonstall_vec(int irq, void *data)
{
	return tgpu_irq_vector(data, TGPU_MSIX_VEC_NONSTALL);
}

static irqreturn_t tgpu_irq_mmu_vec(int irq, void *data)
{
	return tgpu_irq_vector(data, TGPU_MSIX_VEC_MMU);
}

static irqreturn_t tgpu_irq_ecc(int irq, void *data)
{
	return tgpu_irq_vector(data, TGPU_MSIX_VEC_ECC);
}

static irqreturn_t tgpu_irq_thermal(int irq, void *data)
{
	return tgpu_irq_vector(data, TGPU_MSIX_VEC_THERMAL);
}

static const struct tgpu_irq_vector_desc {
	const char *name;
	irq_handler_t handler;
} tgpu_irq_vectors[] = {
	[TGPU_MSIX_VEC_STALL] = { "stall", tgpu_irq_stall },
	[TGPU_MSIX_VEC_NONSTALL] = { "nonstall", tgpu_irq_nonstall_vec },
	[TGPU_MSIX_VEC_MMU] = { "mmu", tgpu_irq_mmu_vec },
	[TGPU_MSIX_VEC_ECC] = { "ecc", tgpu_irq_ecc },
	[TGPU_MSIX_VEC_THERMAL] = { "thermal", tgpu_irq_thermal },
};

static_assert(ARRAY_SIZE(tgpu_irq_vectors) == TGPU_MSIX_NR_VECTORS);
static_assert(BIT(TGPU_MSIX_VEC_STALL) == TGPU_INTR_FIFO);
static_assert(BIT(TGPU_MSIX_VEC_NONSTALL) == TGPU_INTR_NONSTALL);
static_assert(BIT(TGPU_MSIX_VEC_MMU) == TGPU_INTR_MMU);
static_assert(BIT(TGPU_MSIX_VEC_ECC) == TGPU_INTR_ECC);
static_assert(BIT(TGPU_MSIX_VEC_THERMAL) == TGPU_INTR_THERMAL);

/*
 * With a single vector every source class shares it, and PMC_INTR tells
 * them apart.  An INTx line may be shared with other devices: it is ours
 * only when an enabled unit is pending.  A message-signalled vector is
 * ours alone, even when the unit it was sent for is already serviced.
 */
static irqreturn_t tgpu_irq_combined(int irq, void *data)
{
	struct tgpu_device *tdev = data;
	u32 pending;

	pending = tgpu_rd32(tdev, TGPU_PMC_INTR);
	if (pending == U32_MAX) {	/* the device is gone, or resetting */
		tgpu_reset_check_bus_soon(tdev);
		return IRQ_NONE;
	}

	pending &= tdev->irq.enabled;
	if (!pending && tdev->irq.mode == TGPU_IRQ_MODE_INTX)
		return IRQ_NONE;

	atomic64_inc(&tdev->irq.combined);
	spin_lock(&tdev->irq.lock);
	tgpu_irq_service(tdev, pending);
	spin_unlock(&tdev->irq.lock);
	return IRQ_HANDLED;
}

static int tgpu_irq_request(struct tgpu_device *tdev, unsigned int nr,
			    const char *what, irq_handler_t handler,
			    unsigned long flags)
{
	struct pci_dev *pdev = tdev->pdev;
	struct device *dev = &pdev->dev;
	const char *name;
	int irq, ret;

	irq = pci_irq_vector(pdev, nr);
	if (irq < 0)
		return dev_err_probe(dev, irq, "no IRQ for vector %u (%s)\n",
				     nr, what ?: "combined");

	/* Shown in /proc/interrupts, e.g. "tgpu-stall@0000:01:00.0". */
	if (what)
		name = devm_kasprintf(dev, GFP_KERNEL, "%s-%s@%s",
				      TGPU_DRIVER_NAME, what, pci_name(pdev));
	else
		name = devm_kasprintf(dev, GFP_KERNEL, "%s@%s",
				      TGPU_DRIVER_NAME, pci_name(pdev));
	if (!name)
		return -ENOMEM;

	ret = devm_request_irq(dev, irq, handler, flags, name, tdev);
	if (ret)
		return dev_err_probe(dev, ret, "cannot request IRQ %d (%s)\n",
				     irq, name);
	return 0;
}

static void tgpu_fault_buf_fini(void *data)
{
	struct tgpu_device *tdev = data;
	struct tgpu_fault_buf *fb = &tdev->irq.fault_buf;

	/* The MMU must stop writing the ring before its VRAM is reused. */
	tgpu_wr32(tdev, TGPU_MMU_FAULT_BUF_SIZE, 0);
	fb->entries = 0;
	tgpu_vram_free(tdev, &fb->blocks);
}

/*
 * The MMU fault buffer: a ring in VRAM, at the top, that the MMU interrupt
 * handler reads through BAR1.  Without BAR1 there is no ring: faults are
 * then only counted as dropped (MMU_INTR.OVERFLOW).
 */
static int tgpu_fault_buf_init(struct tgpu_device *tdev)
{
	struct tgpu_fault_buf *fb = &tdev->irq.fault_buf;
	struct device *dev = tdev->base.dev;
	struct gpu_buddy_block *block;
	int ret;

	INIT_LIST_HEAD(&fb->blocks);
	if (tdev->vram.visible < TGPU_FAULT_BUF_BYTES) {
		dev_warn(dev, "no CPU access to VRAM: MMU faults will not be reported\n");
		return 0;
	}

	/* One naturally aligned block: 4 KiB alignment is all the MMU needs. */
	ret = tgpu_vram_alloc(tdev, TGPU_FAULT_BUF_BYTES, TGPU_FAULT_BUF_BYTES,
			      tdev->vram.visible, GPU_BUDDY_TOPDOWN_ALLOCATION,
			      &fb->blocks);
	if (ret)
		return dev_err_probe(dev, ret, "cannot allocate the MMU fault buffer\n");

	ret = devm_add_action_or_reset(dev, tgpu_fault_buf_fini, tdev);
	if (ret)
		return ret;

	block = list_first_entry(&fb->blocks, struct gpu_buddy_block, link);
	fb->addr = gpu_buddy_block_offset(block);
	fb->map = devm_ioremap_wc(dev, tdev->vram_bar.start + fb->addr,
				  TGPU_FAULT_BUF_BYTES);
	if (!fb->map)
		return dev_err_probe(dev, -ENOMEM, "cannot map the MMU fault buffer\n");
	memset_io(fb->map, 0, TGPU_FAULT_BUF_BYTES);

	tgpu_wr32(tdev, TGPU_MMU_FAULT_BUF_LO,
		  lower_32_bits(fb->addr) & ~(TGPU_PAGE_SIZE - 1));
	tgpu_wr32(tdev, TGPU_MMU_FAULT_BUF_HI, upper_32_bits(fb->addr));
	/* Writing the size empties the ring: GET = PUT = 0. */
	tgpu_wr32(tdev, TGPU_MMU_FAULT_BUF_SIZE, TGPU_FAULT_BUF_ENTRIES);
	fb->entries = TGPU_FAULT_BUF_ENTRIES;
	return 0;
}

static void tgpu_irq_disable(void *data)
{
	struct tgpu_device *tdev = data;

	tgpu_wr32(tdev, TGPU_PMC_INTR_EN, 0);
	tgpu_wr32(tdev, TGPU_FIFO_INTR_EN, 0);
	tgpu_wr32(tdev, TGPU_FIFO_NONSTALL_INTR_EN, 0);
	tgpu_wr32(tdev, TGPU_MMU_INTR_EN, 0);
	tgpu_wr32(tdev, TGPU_ECC_INTR_EN, 0);
	tdev->irq.enabled = 0;
}

/*
 * Enable the FIFO, non-stall, MMU, ECC and thermal units (ECC's and the
 * thermal unit's own enables are tgpu_ecc.c's and tgpu_therm.c's), then
 * service whatever was
 * already pending: enabling a unit whose status is set sends no message.
 */
static void tgpu_irq_hw_enable(struct tgpu_device *tdev)
{
	struct tgpu_irq *tirq = &tdev->irq;
	unsigned long flags;

	tgpu_wr32(tdev, TGPU_FIFO_INTR_EN,
		  TGPU_FIFO_INTR_CHAN_ERROR | TGPU_FIFO_INTR_RUNLIST);
	tgpu_wr32(tdev, TGPU_FIFO_NONSTALL_INTR_EN,
		  TGPU_FIFO_NONSTALL_INTR_PENDING);
	tgpu_wr32(tdev, TGPU_MMU_INTR_EN,
		  TGPU_MMU_INTR_FAULT | TGPU_MMU_INTR_OVERFLOW);

	spin_lock_irqsave(&tirq->lock, flags);
	tirq->enabled = TGPU_INTR_UNITS;
	tgpu_wr32(tdev, TGPU_PMC_INTR_EN, TGPU_INTR_UNITS);
	tgpu_irq_service(tdev, tgpu_rd32(tdev, TGPU_PMC_INTR) & TGPU_INTR_UNITS);
	spin_unlock_irqrestore(&tirq->lock, flags);
}

static int tgpu_irq_enable(struct tgpu_device *tdev)
{
	int ret;

	ret = devm_add_action_or_reset(tdev->base.dev, tgpu_irq_disable, tdev);
	if (ret)
		return ret;
	tgpu_irq_hw_enable(tdev);
	return 0;
}

/**
 * tgpu_irq_poll() - service whatever the device has pending
 * @tdev: the device
 *
 * For a timeout that suspects a lost interrupt: the status bits are set
 * even when the message was never sent (fault-injection.md).
 */
void tgpu_irq_poll(struct tgpu_device *tdev)
{
	struct tgpu_irq *tirq = &tdev->irq;
	unsigned long flags;
	u32 pending;

	spin_lock_irqsave(&tirq->lock, flags);
	pending = tgpu_rd32(tdev, TGPU_PMC_INTR);
	if (pending != U32_MAX)
		tgpu_irq_service(tdev, pending & tirq->enabled);
	spin_unlock_irqrestore(&tirq->lock, flags);
}

/**
 * tgpu_irq_chan_pending() - is a channel's interrupt raised, not serviced
 * @tdev: the device
 * @chid: the channel
 * @error: its error (FIFO_ERR_PENDING), else its non-stall event
 *
 * A timeout check that finds one pending, and still pending a while
 * later (or found by its own tgpu_irq_poll()), found its message lost.
 */
bool tgpu_irq_chan_pending(struct tgpu_device *tdev, u32 chid, bool error)
{
	u32 bits = tgpu_rd32(tdev, error ? TGPU_FIFO_ERR_PENDING(chid / 32) :
			     TGPU_FIFO_NONSTALL_PENDING(chid / 32));

	return bits != U32_MAX && (bits & BIT(chid % 32));
}

/**
 * tgpu_irq_restore() - set the interrupt units up again after a device
 *	reset, which cleared every enable and the fault buffer's registers
 * @tdev: the device
 */
void tgpu_irq_restore(struct tgpu_device *tdev)
{
	struct tgpu_fault_buf *fb = &tdev->irq.fault_buf;

	if (fb->entries) {
		tgpu_wr32(tdev, TGPU_MMU_FAULT_BUF_LO,
			  lower_32_bits(fb->addr) & ~(TGPU_PAGE_SIZE - 1));
		tgpu_wr32(tdev, TGPU_MMU_FAULT_BUF_HI, upper_32_bits(fb->addr));
		tgpu_wr32(tdev, TGPU_MMU_FAULT_BUF_SIZE, fb->entries);
	}
	tgpu_irq_hw_enable(tdev);
}

/**
 * tgpu_irq_init() - allocate interrupt vectors and install their handlers
 * @tdev: the device, with the PCI function enabled
 *
 * Sets up the MMU fault buffer, then asks for TGPU_MSIX_NR_VECTORS MSI-X
 * vectors, one handler per source class.  If the platform cannot give
 * that many, falls back to a single vector (MSI-X, MSI or INTx, in that
 * order) with one combined handler.  Finally enables the FIFO, non-stall
 * and MMU interrupt sources.
 *
 * The vectors are freed by the PCI core (the device is pcim-managed) and
 * the rest by devres when the driver unbinds, in reverse: sources
 * disabled, handlers freed, fault buffer released.
 *
 * Return: 0 on success, a negative errno otherwise.
 */
int tgpu_irq_init(struct tgpu_device *tdev)
{
	struct tgpu_irq *tirq = &tdev->irq;
	struct pci_dev *pdev = tdev->pdev;
	struct device *dev = &pdev->dev;
	int nvec, msix_err, ret;
	unsigned int i;

	spin_lock_init(&tirq->lock);

	ret = tgpu_fault_buf_init(tdev);
	if (ret)
		return ret;

	nvec = pci_alloc_irq_vectors(pdev, TGPU_MSIX_NR_VECTORS,
				     TGPU_MSIX_NR_VECTORS, PCI_IRQ_MSIX);
	msix_err = nvec;
	if (nvec < 0) {
		nvec = pci_alloc_irq_vectors(pdev, 1, 1, PCI_IRQ_ALL_TYPES);
		if (nvec < 0)
			return dev_err_probe(dev, nvec,
					     "cannot allocate an interrupt vector\n");
	}

	tirq->nr_vectors = nvec;
	if (pdev->msix_enabled)
		tirq->mode = TGPU_IRQ_MODE_MSIX;
	else if (pdev->msi_enabled)
		tirq->mode = TGPU_IRQ_MODE_MSI;
	else
		tirq->mode = TGPU_IRQ_MODE_INTX;

	if (nvec == TGPU_MSIX_NR_VECTORS) {
		for (i = 0; i < TGPU_MSIX_NR_VECTORS; i++) {
			ret = tgpu_irq_request(tdev, i, tgpu_irq_vectors[i].name,
					       tgpu_irq_vectors[i].handler, 0);
			if (ret)
				return ret;
		}
	} else {
		ret = tgpu_irq_request(tdev, 0, NULL, tgpu_irq_combined,
				       tirq->mode == TGPU_IRQ_MODE_INTX ?
				       IRQF_SHARED : 0);
		if (ret)
			return ret;
		dev_warn(dev, "cannot allocate %u MSI-X vectors (%d), using a single combined %s interrupt\n",
			 TGPU_MSIX_NR_VECTORS, msix_err,
			 tirq->mode == TGPU_IRQ_MODE_MSIX ? "MSI-X" :
			 tirq->mode == TGPU_IRQ_MODE_MSI ? "MSI" : "INTx");
	}

	return tgpu_irq_enable(tdev);
}
ALLOW_ERROR_INJECTION(tgpu_irq_init, ERRNO);

/**
 * tgpu_irq_msix_vectors() - number of MSI-X vectors in use
 * @tdev: the device
 *
 * Return: the number of MSI-X vectors enabled, 0 when interrupts are
 * delivered by MSI or INTx instead.
 */
unsigned int tgpu_irq_msix_vectors(const struct tgpu_device *tdev)
{
	if (tdev->irq.mode != TGPU_IRQ_MODE_MSIX)
		return 0;
	return tdev->irq.nr_vectors;
}
