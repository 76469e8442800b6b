// SPDX-License-Identifier: GPL-2.0-only OR MIT
/* Copyright (c) 2026 The tgpu authors */

/* DRM_IOCTL_TGPU_SUBMIT: a job of pushbuffer segments for a queue. */

#include <linux/dma-fence.h>
#include <linux/error-injection.h>
#include <linux/idr.h>
#include <linux/io.h>
#include <linux/jiffies.h>
#include <linux/moduleparam.h>
#include <linux/sched.h>
#include <linux/sizes.h>
#include <linux/slab.h>
#include <linux/uaccess.h>
#include <linux/workqueue.h>
#include <linux/xarray.h>

#include <drm/drm_drv.h>
#include <drm/drm_exec.h>
#include <drm/drm_file.h>
#include <drm/drm_gpuvm.h>
#include <drm/drm_managed.h>
#include <drm/drm_print.h>
#include <drm/drm_syncobj.h>
#include <drm/gpu_scheduler.h>
#include <drm/tgpu_drm.h>

#include <tgpu/channel.h>
#include <tgpu/copy.h>
#include <tgpu/isa.h>
#include <tgpu/mmu.h>

#include "tgpu_device.h"
#include "tgpu_file.h"
#include "tgpu_queue.h"
#include "tgpu_sched.h"
#include "tgpu_vm.h"

/* ---- submission ---------------------------------------------------------- */

/* Noinline and fault-injectable (fail_function), as the next: error paths */
static noinline int
tgpu_submit_copy_ranges(const struct drm_tgpu_submit *args,
			struct drm_tgpu_submit_range **out)
{
	struct drm_tgpu_submit_range *r;
	u64 len;
	u32 i;

	r = kvmalloc_array(args->count, sizeof(*r), GFP_KERNEL);
	if (!r)
		return -ENOMEM;
	if (copy_from_user(r, u64_to_user_ptr(args->ranges),
			   args->count * sizeof(*r))) {
		kvfree(r);
		return -EFAULT;
	}
	for (i = 0; i < args->count; i++) {
		len = (u64)r[i].dwords * 4;
		if (r[i].pad || !IS_ALIGNED(r[i].va, 4) || !r[i].dwords ||
		    r[i].dwords > TGPU_GP_ENTRY1_LENGTH_MASK ||
		    r[i].va >= DRM_TGPU_VA_KERNEL_START ||
		    len > DRM_TGPU_VA_KERNEL_START - r[i].va) {
			kvfree(r);
			return -EINVAL;
		}
	}
	*out = r;
	return 0;
}
ALLOW_ERROR_INJECTION(tgpu_submit_copy_ranges, ERRNO);

/* The job waits for the fences of the IN syncobjs, N of them. */
static noinline int tgpu_submit_deps(struct tgpu_job *job,
				     struct drm_file *file, const u32 *in,
				     u32 n)
{
	u32 i;
	int ret;

	for (i = 0; i < n; i++) {
		ret = drm_sched_job_add_syncobj_dependency(&job->base, file,
							   in[i], 0);
		if (ret)
			return ret;
	}
	return 0;
}
ALLOW_ERROR_INJECTION(tgpu_submit_deps, ERRNO);

/**
 * tgpu_ioctl_submit() - DRM_IOCTL_TGPU_SUBMIT
 * @ddev: the DRM device
 * @data: struct drm_tgpu_submit
 * @file: the DRM file that owns the queue
 *
 * Return: 0 on success, a negative errno otherwise (see the uAPI header).
 */
int tgpu_ioctl_submit(struct drm_device *ddev, void *data,
		      struct drm_file *file)
{
	struct tgpu_file *tfile = to_tgpu_file(file);
	struct drm_gpuvm_exec vm_exec = {
		.vm = &tfile->vm.base,
		.flags = DRM_EXEC_INTERRUPTIBLE_WAIT,
		.num_fences = 1,
	};
	struct drm_tgpu_submit *args = data;
	struct drm_syncobj *out_syncobj = NULL;
	struct dma_fence *done;
	struct tgpu_queue *q;
	struct tgpu_job *job;
	u32 *in = NULL;
	int ret;

	if (args->flags || args->pad || !args->count ||
	    args->count > DRM_TGPU_SUBMIT_MAX_RANGES ||
	    args->in_syncobj_count > DRM_TGPU_SUBMIT_MAX_IN_SYNCOBJS)
		return -EINVAL;

	job = kzalloc(sizeof(*job), GFP_KERNEL);
	if (!job)
		return -ENOMEM;
	job->hw_fence = kzalloc(sizeof(*job->hw_fence), GFP_KERNEL);
	if (!job->hw_fence) {
		ret = -ENOMEM;
		goto err_free_job;
	}
	spin_lock_init(&job->hw_fence->lock);
	job->count = args->count;
	ret = tgpu_submit_copy_ranges(args, &job->ranges);
	if (ret)
		goto err_free_job;

	if (args->in_syncobj_count) {
		in = kmalloc_array(args->in_syncobj_count, sizeof(*in),
				   GFP_KERNEL);
		if (!in) {
			ret = -ENOMEM;
			goto err_free_job;
		}
		if (copy_from_user(in, u64_to_user_ptr(args->in_syncobjs),
				   args->in_syncobj_count * sizeof(*in))) {
			ret = -EFAULT;
			goto err_free_job;
		}
	}

	if (args->out_syncobj) {
		out_syncobj = drm_syncobj_find(file, args->out_syncobj);
		if (!out_syncobj) {
			ret = -ENOENT;
			goto err_free_job;
		}
	}

	down_read(&tfile->queues_lock);
	q = xa_load(&tfile->queues, args->queue);
	if (!q) {
		ret = -ENOENT;
		goto err_unlock;
	}
	/* the process feeds a user-submit queue's ring itself */
	if (q->user) {
		ret = -EINVAL;
		goto err_unlock;
	}
	/* a file whose work hung is banned; a dead queue takes nothing */
	if (READ_ONCE(tfile->reset_status) == DRM_TGPU_RESET_GUILTY)
		ret = -ECANCELED;
	else
		ret = tgpu_queue_error(q) ? -EIO : 0;
	if (ret)
		goto err_unlock;
	job->q = q;

	ret = drm_sched_job_init(&job->base, &q->entity, job->count + 1, q,
				 file->client_id);
	if (ret)
		goto err_unlock;
	ret = tgpu_submit_deps(job, file, in, args->in_syncobj_count);
	if (ret)
		goto err_cleanup;

	/* The VM's resv and every mapped object's, with a slot each. */
	ret = drm_gpuvm_exec_lock(&vm_exec);
	if (ret)
		goto err_cleanup;

	mutex_lock(&q->submit_lock);
	drm_sched_job_arm(&job->base);
	done = dma_fence_get(&job->base.s_fence->finished);
	/*
	 * SUBMIT names no objects, so the job may write any of them: an
	 * importer's implicit sync (dma-buf poll, EXPORT_SYNC_FILE, a
	 * display's atomic commit) waits for it as for a writer.
	 */
	drm_gpuvm_resv_add_fence(vm_exec.vm, &vm_exec.exec, done,
				 DMA_RESV_USAGE_BOOKKEEP, DMA_RESV_USAGE_WRITE);
	drm_sched_entity_push_job(&job->base);
	mutex_unlock(&q->submit_lock);
	drm_gpuvm_exec_unlock(&vm_exec);
	up_read(&tfile->queues_lock);

	if (out_syncobj) {
		drm_syncobj_replace_fence(out_syncobj, done);
		drm_syncobj_put(out_syncobj);
	}
	dma_fence_put(done);
	kfree(in);
	return 0;

err_cleanup:
	drm_sched_job_cleanup(&job->base);
err_unlock:
	up_read(&tfile->queues_lock);
err_free_job:
	if (out_syncobj)
		drm_syncobj_put(out_syncobj);
	kfree(in);
	if (job->ranges)
		kvfree(job->ranges);
	kfree(job->hw_fence);
	kfree(job);
	return ret;
}
