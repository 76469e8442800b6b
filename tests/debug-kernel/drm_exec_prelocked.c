// SPDX-License-Identifier: GPL-2.0-only
/*
 * drm_exec_prelocked.ko: the false "held lock freed!" that check-debug-kernel
 * patches out of drm_exec, reproduced without tgpu.
 *
 * Debian's 6.12 drm_exec_cleanup() (the backport "drm/exec: don't
 * immediately add prelocked obj to array of locked objs") unlocks and puts
 * the object its retry loop locked first, the one that was contended, when
 * the loop ends without asking for it again.  That put may be the last:
 * another thread closed the object meanwhile.  Lockdep merges the
 * ww_mutexes of one class taken under one acquire context into a single
 * held-lock entry, and that entry keeps the address of the first one
 * taken, the prelocked one.  So freeing it, unlocked, while other objects
 * are still locked, reads as freeing a held lock, and lockdep turns itself
 * off for the rest of the boot.
 *
 * Here a kthread, the older transaction, holds a; drm_exec locks b, backs
 * off on a, drops both, then locks a (slow path) and b.  The kthread drops
 * the last other reference to a before the loop ends.  On the unpatched
 * kernel this prints the splat; on check-debug-kernel's it must not.
 *
 * DEBUG_WW_MUTEX_SLOWPATH fakes a contention now and then (the first
 * check, on b's lock in the second pass, when the ticket's stamp is a
 * multiple of 16): such a run ends with a third pass, which is not the
 * case above, so it is run again, with new objects and new tickets.
 */
#include <linux/completion.h>
#include <linux/dma-resv.h>
#include <linux/kthread.h>
#include <linux/module.h>
#include <linux/slab.h>

#include <drm/drm_device.h>
#include <drm/drm_drv.h>
#include <drm/drm_exec.h>
#include <drm/drm_gem.h>

static const struct drm_driver selftest_driver = {
	.driver_features = DRIVER_GEM,
};

static struct drm_device selftest_ddev = {
	.driver = &selftest_driver,
};

static void selftest_obj_free(struct drm_gem_object *obj)
{
	drm_gem_private_object_fini(obj);
	kfree(obj);
}

static const struct drm_gem_object_funcs selftest_obj_funcs = {
	.free = selftest_obj_free,
};

static struct drm_gem_object *selftest_obj_new(void)
{
	struct drm_gem_object *obj = kzalloc(sizeof(*obj), GFP_KERNEL);

	if (!obj)
		return NULL;
	obj->funcs = &selftest_obj_funcs;
	drm_gem_private_object_init(&selftest_ddev, obj, PAGE_SIZE);
	return obj;
}

/* Another transaction, older than the drm_exec one, holding @obj. */
struct selftest_holder {
	struct drm_gem_object *obj;
	struct completion locked;
	struct completion release;
	struct completion done;
};

static int selftest_holder_fn(void *data)
{
	struct selftest_holder *h = data;
	struct ww_acquire_ctx ticket;

	ww_acquire_init(&ticket, &reservation_ww_class);
	dma_resv_lock(h->obj->resv, &ticket);
	complete(&h->locked);
	wait_for_completion(&h->release);
	dma_resv_unlock(h->obj->resv);
	ww_acquire_fini(&ticket);
	/* like a GEM_CLOSE: drm_exec's reference is now the last one */
	drm_gem_object_put(h->obj);
	/* not "return": the module may be gone once done is complete */
	kthread_complete_and_exit(&h->done, 0);
}

static int selftest_prelocked(void)
{
	struct selftest_holder h;
	struct drm_gem_object *a, *b;
	struct task_struct *t;
	struct drm_exec exec;
	bool holder_done = false;
	int pass = 0, ret = 0;

	a = selftest_obj_new();
	b = selftest_obj_new();
	if (!a || !b) {
		if (a)
			drm_gem_object_put(a);
		if (b)
			drm_gem_object_put(b);
		return -ENOMEM;
	}
	h.obj = a;
	init_completion(&h.locked);
	init_completion(&h.release);
	init_completion(&h.done);
	t = kthread_run(selftest_holder_fn, &h, "drm-exec-prelocked");
	if (IS_ERR(t)) {
		drm_gem_object_put(a);
		drm_gem_object_put(b);
		return PTR_ERR(t);
	}
	/* the holder's ticket is older: drm_exec's stamps on its first pass */
	wait_for_completion(&h.locked);

	drm_exec_init(&exec, 0, 0);
	drm_exec_until_all_locked(&exec) {
		if (pass++ == 0) {
			ret = drm_exec_lock_obj(&exec, b);
			drm_exec_retry_on_contention(&exec);
			if (ret)
				break;
			/* wait-die: the younger ticket, holding b, backs off */
			ret = drm_exec_lock_obj(&exec, a);
			drm_exec_retry_on_contention(&exec);
			pr_err("drm_exec_prelocked: no contention on the held object (%d)\n",
			       ret);
			ret = -EPROTO;
			break;
		}
		complete(&h.release);
		/* locks a first (the contended one), then b; a is not asked for */
		ret = drm_exec_lock_obj(&exec, b);
		drm_exec_retry_on_contention(&exec);
		if (ret)
			break;
		wait_for_completion(&h.done);
		holder_done = true;
	}
	/*
	 * The loop's last drm_exec_cleanup() dropped a, whose last reference
	 * that was, while b was still locked; with the patch, this does.
	 */
	drm_exec_fini(&exec);
	/* the holder must be gone before h goes out of scope */
	if (!holder_done) {
		complete(&h.release);
		wait_for_completion(&h.done);
	}
	drm_gem_object_put(b);
	if (!ret && pass > 2)
		ret = -EAGAIN;	/* a contention injected in the second pass */
	return ret;
}

static int __init drm_exec_prelocked_init(void)
{
	int ret, tries = 0;

	do {
		ret = selftest_prelocked();
	} while (ret == -EAGAIN && ++tries < 3);
	pr_info("drm_exec_prelocked: drm_exec prelocked object freed: %s (%d)\n",
		ret ? "FAILED" : "ran", ret);
	return ret;
}
module_init(drm_exec_prelocked_init);

static void __exit drm_exec_prelocked_exit(void)
{
}
module_exit(drm_exec_prelocked_exit);

MODULE_DESCRIPTION("check-debug-kernel: lockdep's view of drm_exec's prelocked object");
MODULE_LICENSE("GPL");
