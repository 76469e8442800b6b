// SPDX-License-Identifier: GPL-2.0-only OR MIT
/* Copyright (c) 2026 The tgpu authors */

#include <linux/debugfs.h>
#include <linux/fs.h>
#include <linux/io.h>
#include <linux/list.h>
#include <linux/mutex.h>
#include <linux/pid.h>
#include <linux/rcupdate.h>
#include <linux/sched.h>
#include <linux/seq_file.h>
#include <linux/uaccess.h>
#include <linux/xarray.h>

#include <drm/drm_debugfs.h>
#include <drm/drm_drv.h>
#include <drm/drm_file.h>
#include <drm/drm_gem.h>
#include <drm/tgpu_drm.h>

#include <tgpu/channel.h>
#include <tgpu/copy.h>
#include <tgpu/isa.h>
#include <tgpu/mmu.h>

#include "tgpu_debugfs.h"
#include "tgpu_device.h"
#include "tgpu_ecc.h"
#include "tgpu_file.h"
#include "tgpu_gem.h"
#include "tgpu_irq.h"
#include "tgpu_queue.h"
#include "tgpu_vm.h"

/*
 * debugfs files of the device, in /sys/kernel/debug/dri/<minor>/ (the
 * DRM core's own "name", "clients" and "gem_names" are there too):
 *
 *   channels    every queue's channel: state, GP_GET/GP_PUT, fences, error
 *   runlists    each runlist: its channels and FIFO_RUNLIST_STATUS
 *   rings       each queue's last GPFIFO entries and pushbuffer heads
 *   files       each open file: process, ASID, mappings, objects
 *   interrupts  vector and unit counters
 *   ecc         ECC state and the retired pages, reserved or not
 *
 * The queues are reached through the files (dev->filelist, under its
 * mutex: a file on the list is not being closed) and each file's
 * queues_lock, which keeps its queues from being destroyed, so the show
 * functions may sleep.  Registers and VRAM are read inside
 * drm_dev_enter(); after unplug a file says "device unplugged".
 */

/* The last GPFIFO entries "rings" shows per queue, and dwords of each. */
#define TGPU_DEBUGFS_RING_ENTRIES	8
#define TGPU_DEBUGFS_PB_DWORDS		12

static struct tgpu_device *tgpu_debugfs_dev(struct seq_file *m)
{
	struct drm_debugfs_entry *entry = m->private;

	return to_tgpu_device(entry->dev);
}

/* The process that opened @file: its tgid and name. */
static void tgpu_debugfs_file_owner(struct seq_file *m, struct drm_file *file)
{
	struct task_struct *task;
	struct pid *pid;

	rcu_read_lock(); /* file->pid, and the task's comm */
	pid = rcu_dereference(file->pid);
	task = pid_task(pid, PIDTYPE_TGID);
	seq_printf(m, "pid %d comm %s", pid_vnr(pid),
		   task ? task->comm : "<unknown>");
	rcu_read_unlock();
}

/*
 * Call @fn for every queue of every open file.  @fn may sleep; the
 * queue cannot be destroyed meanwhile.
 */
static unsigned int tgpu_debugfs_walk_queues(struct tgpu_device *tdev,
					     struct seq_file *m,
					     void (*fn)(struct seq_file *m,
							struct tgpu_queue *q))
{
	struct drm_device *ddev = &tdev->base;
	struct tgpu_file *tfile;
	struct drm_file *file;
	struct tgpu_queue *q;
	unsigned int n = 0;
	unsigned long id;

	mutex_lock(&ddev->filelist_mutex);
	list_for_each_entry_reverse(file, &ddev->filelist, lhead) {
		tfile = to_tgpu_file(file);
		down_read(&tfile->queues_lock);
		xa_for_each(&tfile->queues, id, q) {
			fn(m, q);
			n++;
		}
		up_read(&tfile->queues_lock);
	}
	mutex_unlock(&ddev->filelist_mutex);
	return n;
}

/* ---- channels ------------------------------------------------------------ */

static void tgpu_debugfs_channel(struct seq_file *m, struct tgpu_queue *q)
{
	struct tgpu_device *tdev = q->tdev;
	u32 status, chan_error, chan_error_info, pending = 0;
	struct list_head *pos;
	unsigned long flags;
	u64 fault_va;
	int error;

	status = tgpu_rd32(tdev, TGPU_CHAN_REG(q->chid, TGPU_CHAN_STATUS));
	spin_lock_irqsave(&q->fence_lock, flags);
	error = q->error;
	chan_error = q->chan_error;
	chan_error_info = q->chan_error_info;
	fault_va = q->fault_va;
	list_for_each(pos, &q->fences)
		pending++;
	spin_unlock_irqrestore(&q->fence_lock, flags);

	seq_printf(m, "queue %u pid %d comm %s channel %u engine %s priority %u timeout_ms %u\n",
		   q->id, pid_vnr(q->pid), q->comm, q->chid,
		   tgpu_engine_name(q->engine), q->priority, q->timeout_ms);
	seq_printf(m, "  status 0x%08x %s%s gp_get %u gp_put %u userd_gp_put %u driver_gp_put %u\n",
		   status, tgpu_chan_state_name(status & TGPU_CHAN_STATE_MASK),
		   status & TGPU_CHAN_STATUS_ON_RUNLIST ? " on-runlist" : "",
		   tgpu_rd32(tdev, TGPU_CHAN_REG(q->chid, TGPU_CHAN_GP_GET)),
		   tgpu_rd32(tdev, TGPU_CHAN_REG(q->chid, TGPU_CHAN_GP_PUT)),
		   readl(q->userd + TGPU_USERD_GP_PUT),
		   READ_ONCE(q->gp_put));
	seq_printf(m, "  seqno %llu semaphore %llu pending %u\n",
		   READ_ONCE(q->seqno), readq(q->mem.cpu + TGPU_Q_SEM), pending);
	if (error)
		seq_printf(m, "  dead %d chan_error %s info 0x%x fault_va 0x%010llx\n",
			   error, tgpu_chan_error_name(chan_error),
			   chan_error_info, fault_va);
	else
		seq_puts(m, "  alive\n");
	seq_printf(m, "  CHAN_ERROR %u CHAN_ERROR_INFO 0x%x\n",
		   tgpu_rd32(tdev, TGPU_CHAN_REG(q->chid, TGPU_CHAN_ERROR)),
		   tgpu_rd32(tdev, TGPU_CHAN_REG(q->chid, TGPU_CHAN_ERROR_INFO)));
}

static int tgpu_debugfs_channels(struct seq_file *m, void *data)
{
	struct tgpu_device *tdev = tgpu_debugfs_dev(m);
	unsigned int n;
	int idx;

	if (!drm_dev_enter(&tdev->base, &idx)) {
		seq_puts(m, "device unplugged\n");
		return 0;
	}
	seq_printf(m, "channels %u (channel 0 is the driver's)\n",
		   tdev->id.channels);
	seq_printf(m, "channel %u kernel engine ce0 state %s submissions %llu status 0x%08x pt_batches %llu pt_entries %llu pt_cpu_entries %lld pt_invalidations %llu\n",
		   TGPU_KCHAN_CHID,
		   tgpu_kchan_running(tdev) ? "running" :
		   tdev->kchan.state ? "broken" : "none",
		   READ_ONCE(tdev->kchan.submits),
		   tgpu_rd32(tdev, TGPU_CHAN_REG(TGPU_KCHAN_CHID,
						 TGPU_CHAN_STATUS)),
		   READ_ONCE(tdev->kchan.pt_batches),
		   READ_ONCE(tdev->kchan.pt_entries),
		   atomic64_read(&tdev->kchan.pt_cpu_entries),
		   READ_ONCE(tdev->kchan.pt_invalidations));
	n = tgpu_debugfs_walk_queues(tdev, m, tgpu_debugfs_channel);
	seq_printf(m, "queues %u\n", n);
	drm_dev_exit(idx);
	return 0;
}

/* ---- runlists ------------------------------------------------------------ */

static int tgpu_debugfs_runlists(struct seq_file *m, void *data)
{
	struct tgpu_device *tdev = tgpu_debugfs_dev(m);
	struct tgpu_runlist *rl;
	struct tgpu_queue *q;
	u32 status, count, i;
	unsigned int r;
	int idx;

	if (!drm_dev_enter(&tdev->base, &idx)) {
		seq_puts(m, "device unplugged\n");
		return 0;
	}
	mutex_lock(&tdev->rl_lock);
	for (r = 0; r < TGPU_NR_RUNLISTS; r++) {
		rl = &tdev->rl[r];
		status = tgpu_rd32(tdev, TGPU_FIFO_RUNLIST_STATUS(r));
		count = status & TGPU_RUNLIST_STATUS_COUNT_MASK;
		seq_printf(m, "runlist %u engine %s status 0x%08x count %u%s base 0x%010llx\n",
			   r, tgpu_engine_name(r), status, count,
			   status & TGPU_RUNLIST_STATUS_ERROR ? " ERROR" : "",
			   rl->mem.addr);
		if (r == TGPU_RUNLIST_CE0 && tgpu_kchan_running(tdev))
			seq_printf(m, "  channel %u kernel priority %u\n",
				   TGPU_KCHAN_CHID, TGPU_PRIORITY_MAX);
		list_for_each_entry(q, &rl->queues, rl_link)
			seq_printf(m, "  channel %u queue %u pid %d comm %s priority %u\n",
				   q->chid, q->id, pid_vnr(q->pid), q->comm,
				   q->priority);
		/* What the device was given, as it is in VRAM. */
		if (!rl->mem.cpu)
			continue;
		seq_puts(m, "  in VRAM:");
		for (i = 0; i < count && i < TGPU_CHANNELS_MAX; i++)
			seq_printf(m, " %u",
				   readl(rl->mem.cpu +
					 i * TGPU_RUNLIST_ENTRY_SIZE));
		seq_putc(m, '\n');
	}
	mutex_unlock(&tdev->rl_lock);
	drm_dev_exit(idx);
	return 0;
}

/* ---- rings --------------------------------------------------------------- */

/*
 * The method's name from the contract's tables: a host method, else one
 * of the class that runs on the queue's engine (the only class libtgpu
 * and the kernel channel bind there).
 */
static const char *tgpu_method_name(u32 engine, u32 method)
{
	const char *name;

	if (method < TGPU_HOST_METHOD_LIMIT) {
		name = tgpu_host_method_name(method);
		return name ? name : "host?";
	}
	if (engine == TGPU_RUNLIST_COMPUTE)
		name = tgpu_gr_method_name(method);
	else
		name = tgpu_ce_method_name(method);
	return name ? name : "engine?";
}

/* Decode @n dwords from the start of a pushbuffer segment. */
static void tgpu_debugfs_decode_pb(struct seq_file *m, u32 engine,
				   const u32 *dw, unsigned int n, u32 seg_dwords)
{
	unsigned int i = 0, j, count, op, method;

	while (i < n) {
		u32 hdr = dw[i];

		op = hdr >> TGPU_PB_OP_SHIFT;
		count = (hdr >> TGPU_PB_COUNT_SHIFT) & TGPU_PB_COUNT_MASK;
		method = (hdr & TGPU_PB_METHOD_MASK) << 2;
		seq_printf(m, "      %08x ", hdr);
		switch (op) {
		case TGPU_PB_OP_INC:
		case TGPU_PB_OP_NON_INC:
		case TGPU_PB_OP_ONE_INC:
			seq_printf(m, "%s subch %u method 0x%03x %s count %u:",
				   op == TGPU_PB_OP_INC ? "INC" :
				   op == TGPU_PB_OP_NON_INC ? "NON_INC" :
				   "ONE_INC",
				   (hdr >> TGPU_PB_SUBCH_SHIFT) & TGPU_PB_SUBCH_MASK,
				   method, tgpu_method_name(engine, method), count);
			for (j = 0, i++; j < count && i < n; j++, i++)
				seq_printf(m, " %08x", dw[i]);
			if (j < count)
				seq_puts(m, " ...");
			seq_putc(m, '\n');
			break;
		case TGPU_PB_OP_IMMD:
			seq_printf(m, "IMMD subch %u method 0x%03x %s data 0x%x\n",
				   (hdr >> TGPU_PB_SUBCH_SHIFT) & TGPU_PB_SUBCH_MASK,
				   method, tgpu_method_name(engine, method), count);
			i++;
			break;
		default:
			seq_printf(m, "bad opcode %u: not decoded further\n", op);
			return;
		}
	}
	if (n < seg_dwords)
		seq_printf(m, "      (%u more dwords)\n", seg_dwords - n);
}

static void tgpu_debugfs_ring(struct seq_file *m, struct tgpu_queue *q)
{
	const u32 mask = TGPU_Q_GPFIFO_ENTRIES - 1;
	struct tgpu_device *tdev = q->tdev;
	u32 dw[TGPU_DEBUGFS_PB_DWORDS];
	u32 put, get, slot, len, i, n;
	const u64 fence_pb = q->va + TGPU_Q_FENCE_PB;
	u64 entry, va;
	int ret;

	get = tgpu_rd32(tdev, TGPU_CHAN_REG(q->chid, TGPU_CHAN_GP_GET));
	put = readl(q->userd + TGPU_USERD_GP_PUT) & mask;
	seq_printf(m, "queue %u pid %d comm %s channel %u engine %s gp_get %u gp_put %u\n",
		   q->id, pid_vnr(q->pid), q->comm, q->chid,
		   tgpu_engine_name(q->engine), get, put);

	for (i = TGPU_DEBUGFS_RING_ENTRIES; i > 0; i--) {
		slot = (put - i) & mask;
		entry = readq(q->gpfifo +
			      slot * TGPU_GP_ENTRY_SIZE);
		if (!entry)	/* the ring starts zeroed: never written */
			continue;
		va = (entry & TGPU_GP_ENTRY0_ADDR_MASK) |
		     (((entry >> 32) & TGPU_GP_ENTRY1_ADDR_HI_MASK) << 32);
		len = (entry >> (32 + TGPU_GP_ENTRY1_LENGTH_SHIFT)) &
		      TGPU_GP_ENTRY1_LENGTH_MASK;
		seq_printf(m, "  [%3u] va 0x%010llx dwords %u%s", slot, va, len,
			   entry >> 63 ? " sync" : "");
		n = min_t(u32, len, TGPU_DEBUGFS_PB_DWORDS);
		if (va >= fence_pb && va + 4ull * n <= q->va + TGPU_Q_SIZE) {
			/* The driver's own fence segment. */
			seq_puts(m, " kernel fence\n");
			memcpy_fromio(dw, q->mem.cpu + (va - q->va), 4 * n);
			ret = n;
		} else if (va >= DRM_TGPU_VA_KERNEL_START) {
			seq_puts(m, " kernel range: not readable\n");
			continue;
		} else {
			ret = tgpu_vm_read(q->vm, va, dw, n, false);
			if (ret == -ENOENT) {
				seq_puts(m, " user: not mapped now\n");
				continue;
			}
			if (ret < 0) {
				seq_puts(m, " user: not CPU-visible\n");
				continue;
			}
			seq_puts(m, " user\n");
		}
		tgpu_debugfs_decode_pb(m, q->engine, dw, ret, len);
	}
}

static int tgpu_debugfs_rings(struct seq_file *m, void *data)
{
	struct tgpu_device *tdev = tgpu_debugfs_dev(m);
	unsigned int n;
	int idx;

	if (!drm_dev_enter(&tdev->base, &idx)) {
		seq_puts(m, "device unplugged\n");
		return 0;
	}
	n = tgpu_debugfs_walk_queues(tdev, m, tgpu_debugfs_ring);
	seq_printf(m, "queues %u\n", n);
	drm_dev_exit(idx);
	return 0;
}

/* ---- files --------------------------------------------------------------- */

struct tgpu_debugfs_objs {
	struct seq_file *m;
	unsigned int count;
	size_t vram, sysmem;
};

static int tgpu_debugfs_obj(int handle, void *ptr, void *data)
{
	struct tgpu_debugfs_objs *objs = data;
	struct drm_gem_object *obj = ptr;
	bool sysmem = tgpu_gem_is_sysmem(obj);

	seq_printf(objs->m, "    handle %d %s size 0x%zx refs %u\n", handle,
		   sysmem ? "sysmem" : "vram", obj->size,
		   kref_read(&obj->refcount));
	if (sysmem)
		objs->sysmem += obj->size;
	else
		objs->vram += obj->size;
	objs->count++;
	return 0;
}

static int tgpu_debugfs_count(int id, void *ptr, void *data)
{
	(*(unsigned int *)data)++;
	return 0;
}

static int tgpu_debugfs_files(struct seq_file *m, void *data)
{
	struct tgpu_device *tdev = tgpu_debugfs_dev(m);
	struct drm_device *ddev = &tdev->base;
	unsigned int files = 0, maps = 0, queues, objects = 0;
	unsigned int total_queues = 0, syncobjs, total_syncobjs = 0;
	struct tgpu_debugfs_objs objs;
	struct tgpu_file *tfile;
	struct drm_file *file;
	struct tgpu_queue *q;
	unsigned long id;

	mutex_lock(&ddev->filelist_mutex);
	list_for_each_entry_reverse(file, &ddev->filelist, lhead) {
		tfile = to_tgpu_file(file);
		seq_printf(m, "file %llu minor %d ", file->client_id,
			   file->minor->index);
		tgpu_debugfs_file_owner(m, file);
		seq_printf(m, " asid %u\n", tfile->vm.asid);

		queues = 0;
		down_read(&tfile->queues_lock);
		xa_for_each(&tfile->queues, id, q) {
			seq_printf(m, "  queue %u channel %u engine %s priority %u\n",
				   q->id, q->chid, tgpu_engine_name(q->engine),
				   q->priority);
			queues++;
		}
		up_read(&tfile->queues_lock);

		seq_puts(m, "  mappings:\n");
		maps += tgpu_vm_show(&tfile->vm, m);

		seq_puts(m, "  objects:\n");
		objs = (struct tgpu_debugfs_objs){ .m = m };
		spin_lock(&file->table_lock);
		idr_for_each(&file->object_idr, tgpu_debugfs_obj, &objs);
		spin_unlock(&file->table_lock);
		syncobjs = 0;
		spin_lock(&file->syncobj_table_lock);
		idr_for_each(&file->syncobj_idr, tgpu_debugfs_count, &syncobjs);
		spin_unlock(&file->syncobj_table_lock);
		seq_printf(m, "  %u queues, %u objects, vram 0x%zx, sysmem 0x%zx, %u syncobjs\n",
			   queues, objs.count, objs.vram, objs.sysmem, syncobjs);
		total_queues += queues;
		objects += objs.count;
		total_syncobjs += syncobjs;
		files++;
	}
	mutex_unlock(&ddev->filelist_mutex);
	seq_printf(m, "total files %u queues %u mappings %u objects %u syncobjs %u vram_used %llu\n",
		   files, total_queues, maps, objects, total_syncobjs,
		   tgpu_vram_used(tdev));
	return 0;
}

/* ---- interrupts ---------------------------------------------------------- */

static int tgpu_debugfs_interrupts(struct seq_file *m, void *data)
{
	static const char * const vectors[TGPU_MSIX_NR_VECTORS] = {
		[TGPU_MSIX_VEC_STALL] = "stall",
		[TGPU_MSIX_VEC_NONSTALL] = "nonstall",
		[TGPU_MSIX_VEC_MMU] = "mmu",
		[TGPU_MSIX_VEC_ECC] = "ecc",
		[TGPU_MSIX_VEC_THERMAL] = "thermal",
	};
	static const char * const modes[] = {
		[TGPU_IRQ_MODE_MSIX] = "msix",
		[TGPU_IRQ_MODE_MSI] = "msi",
		[TGPU_IRQ_MODE_INTX] = "intx",
	};
	struct tgpu_device *tdev = tgpu_debugfs_dev(m);
	struct tgpu_irq *irq = &tdev->irq;
	unsigned int v;
	int idx;

	seq_printf(m, "mode %s vectors %u\n",
		   irq->mode < ARRAY_SIZE(modes) ? modes[irq->mode] : "?",
		   irq->nr_vectors);
	for (v = 0; v < TGPU_MSIX_NR_VECTORS; v++)
		seq_printf(m, "vector %u %s %lld\n", v, vectors[v],
			   atomic64_read(&irq->count[v]));
	seq_printf(m, "combined %lld\n", atomic64_read(&irq->combined));
	seq_printf(m, "chan_errors %lld\n", atomic64_read(&irq->chan_errors));
	seq_printf(m, "runlist_errors %lld\n",
		   atomic64_read(&irq->runlist_errors));
	seq_printf(m, "nonstall %lld\n", atomic64_read(&irq->nonstall));
	seq_printf(m, "mmu_faults %lld\n", atomic64_read(&irq->mmu_faults));
	seq_printf(m, "mmu_overflows %lld\n",
		   atomic64_read(&irq->mmu_overflows));
	seq_printf(m, "ecc_errors %lld\n", atomic64_read(&irq->ecc));
	seq_printf(m, "missed_irqs %lld\n",
		   atomic64_read(&tdev->reset.missed_irqs));

	if (!drm_dev_enter(&tdev->base, &idx)) {
		seq_puts(m, "device unplugged\n");
		return 0;
	}
	seq_printf(m, "PMC_INTR 0x%08x PMC_INTR_EN 0x%08x\n",
		   tgpu_rd32(tdev, TGPU_PMC_INTR),
		   tgpu_rd32(tdev, TGPU_PMC_INTR_EN));
	seq_printf(m, "FIFO_INTR 0x%08x FIFO_NONSTALL_INTR 0x%08x MMU_INTR 0x%08x\n",
		   tgpu_rd32(tdev, TGPU_FIFO_INTR),
		   tgpu_rd32(tdev, TGPU_FIFO_NONSTALL_INTR),
		   tgpu_rd32(tdev, TGPU_MMU_INTR));
	seq_printf(m, "MMU_FAULT_BUF_GET %u MMU_FAULT_BUF_PUT %u MMU_FAULT_COUNT %u\n",
		   tgpu_rd32(tdev, TGPU_MMU_FAULT_BUF_GET),
		   tgpu_rd32(tdev, TGPU_MMU_FAULT_BUF_PUT),
		   tgpu_rd32(tdev, TGPU_MMU_FAULT_COUNT));
	drm_dev_exit(idx);
	return 0;
}

/* ---- ecc ----------------------------------------------------------------- */

static int tgpu_debugfs_ecc(struct seq_file *m, void *data)
{
	tgpu_ecc_show(tgpu_debugfs_dev(m), m);
	return 0;
}

/*
 * ecc_inject (write only): "ADDRESS sbe|dbe [sticky]", an ECC error at
 * the 64-bit VRAM word ADDRESS, as the monitor's tgpu-inject-ecc arms
 * it: for tests that run entirely in the guest.
 */
static ssize_t tgpu_debugfs_ecc_inject(struct file *f, const char __user *ubuf,
				       size_t len, loff_t *pos)
{
	struct tgpu_device *tdev = file_inode(f)->i_private;
	char buf[64], kind[8], mode[8] = "";
	unsigned long long addr;
	int n, ret;

	if (len >= sizeof(buf))
		return -EINVAL;
	if (copy_from_user(buf, ubuf, len))
		return -EFAULT;
	buf[len] = 0;
	n = sscanf(buf, "%llx %7s %7s", &addr, kind, mode);
	if (n < 2 || (strcmp(kind, "sbe") && strcmp(kind, "dbe")) ||
	    (n == 3 && strcmp(mode, "sticky")))
		return -EINVAL;
	ret = tgpu_ecc_inject(tdev, addr, !strcmp(kind, "dbe"), n == 3);
	return ret ? ret : len;
}

static const struct file_operations tgpu_debugfs_ecc_inject_fops = {
	.owner = THIS_MODULE,
	.open = simple_open,
	.write = tgpu_debugfs_ecc_inject,
	.llseek = noop_llseek,
};

/* ---- recovery ------------------------------------------------------------ */

static int tgpu_debugfs_recovery(struct seq_file *m, void *data)
{
	tgpu_reset_show(tgpu_debugfs_dev(m), m);
	return 0;
}

static const struct drm_debugfs_info tgpu_debugfs_list[] = {
	{ "channels", tgpu_debugfs_channels, 0 },
	{ "runlists", tgpu_debugfs_runlists, 0 },
	{ "rings", tgpu_debugfs_rings, 0 },
	{ "files", tgpu_debugfs_files, 0 },
	{ "interrupts", tgpu_debugfs_interrupts, 0 },
	{ "ecc", tgpu_debugfs_ecc, 0 },
	{ "recovery", tgpu_debugfs_recovery, 0 },
};

/**
 * tgpu_debugfs_init() - add the driver's debugfs files
 * @tdev: the device, not yet registered
 *
 * The files live in the DRM device's debugfs directory, which the core
 * removes at unregister (unplug), before the hardware goes.
 */
void tgpu_debugfs_init(struct tgpu_device *tdev)
{
	drm_debugfs_add_files(&tdev->base, tgpu_debugfs_list,
			      ARRAY_SIZE(tgpu_debugfs_list));
	debugfs_create_file("ecc_inject", 0200, tdev->base.debugfs_root, tdev,
			    &tgpu_debugfs_ecc_inject_fops);
}
