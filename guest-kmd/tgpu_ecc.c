// SPDX-License-Identifier: GPL-2.0-only OR MIT
/* Copyright (c) 2026 The tgpu authors */

#include <linux/iopoll.h>
#include <linux/seq_file.h>
#include <linux/sizes.h>

#include <drm/drm_print.h>

#include "tgpu_device.h"
#include "tgpu_ecc.h"
#include "tgpu_vram.h"

/* Poll interval while the scrub runs, and slack on top of its duration. */
#define TGPU_ECC_POLL_US	1000
#define TGPU_ECC_SLACK_US	(2 * USEC_PER_SEC)

static u32 tgpu_ecc_state(struct tgpu_device *tdev)
{
	return tgpu_rd32(tdev, TGPU_ECC_STATUS) & TGPU_ECC_STATE_MASK;
}

/*
 * ECC comes up disabled and can only be switched while no channel is
 * enabled: the kernel channel comes later in the probe.  The scrub is
 * modelled at TGPU_ECC_SCRUB_NS_PER_MIB; under emulation the virtual
 * clock may run slow, hence four times that plus slack.
 */
static void tgpu_ecc_enable(struct tgpu_device *tdev)
{
	struct drm_device *ddev = &tdev->base;
	struct tgpu_ecc *ecc = &tdev->ecc;
	u64 timeout_us;
	u32 status;
	int ret;

	if (tgpu_ecc_state(tdev) != TGPU_ECC_STATE_ENABLED) {
		/* no stale refusal (the probe stopped every channel before) */
		tgpu_wr32(tdev, TGPU_ECC_STATUS, TGPU_ECC_STATUS_ERR_MASK);
		tgpu_wr32(tdev, TGPU_ECC_CTRL, TGPU_ECC_CTRL_ENABLE);
		status = tgpu_rd32(tdev, TGPU_ECC_STATUS);
		if (status & TGPU_ECC_STATUS_ERR_MASK) {
			tgpu_wr32(tdev, TGPU_ECC_STATUS,
				  status & TGPU_ECC_STATUS_ERR_MASK);
			drm_err(ddev, "ECC: enable refused (ECC_STATUS 0x%08x%s): running with ECC disabled\n",
				status, status & TGPU_ECC_STATUS_ERR_BUSY ?
				", a channel is enabled" : "");
			return;
		}
		timeout_us = div_u64(tdev->id.vram_size, SZ_1M) *
			     TGPU_ECC_SCRUB_NS_PER_MIB * 4 / NSEC_PER_USEC +
			     TGPU_ECC_SLACK_US;
		ret = read_poll_timeout(tgpu_ecc_state, status,
					status == TGPU_ECC_STATE_ENABLED,
					TGPU_ECC_POLL_US, timeout_us, false, tdev);
		if (ret) {
			tgpu_wr32(tdev, TGPU_ECC_CTRL, 0);
			drm_err(ddev, "ECC: the VRAM scrub did not finish in %llu ms (state %u): running with ECC disabled\n",
				div_u64(timeout_us, USEC_PER_MSEC), status);
			return;
		}
	}
	/* polled, not an interrupt: drop the scrub-done bit */
	tgpu_wr32(tdev, TGPU_ECC_INTR, TGPU_ECC_INTR_SCRUB_DONE);
	ecc->scrub_ns = (u64)tgpu_rd32(tdev, TGPU_ECC_SCRUB_NS_HI) << 32 |
			tgpu_rd32(tdev, TGPU_ECC_SCRUB_NS_LO);
	ecc->enabled = true;
	drm_info(ddev, "ECC enabled (VRAM scrub %llu us)\n",
		 div_u64(ecc->scrub_ns, NSEC_PER_USEC));
}

/* Read the InfoROM's list and keep those pages out of the allocator. */
static void tgpu_ecc_retire_pages(struct tgpu_device *tdev)
{
	struct drm_device *ddev = &tdev->base;
	struct tgpu_ecc *ecc = &tdev->ecc;
	struct tgpu_retired_page *rp;
	u32 count, i;
	int ret;

	count = tgpu_rd32(tdev, TGPU_ECC_RETIRED_COUNT);
	/* more than the store holds: not a store (TGPU_REG_BADF, a dead bus) */
	if (count > TGPU_INFOROM_MAX_RETIRED) {
		drm_warn(ddev, "ECC: ECC_RETIRED_COUNT reads 0x%08x, more than the InfoROM holds (%u): no retired pages reserved\n",
			 count, TGPU_INFOROM_MAX_RETIRED);
		return;
	}
	for (i = 0; i < count; i++) {
		rp = &ecc->retired[ecc->nr_retired];
		tgpu_wr32(tdev, TGPU_ECC_RETIRED_SELECT, i);
		rp->addr = (u64)tgpu_rd32(tdev, TGPU_ECC_RETIRED_ADDR_HI) << 32 |
			   tgpu_rd32(tdev, TGPU_ECC_RETIRED_ADDR_LO);
		rp->cause = tgpu_rd32(tdev, TGPU_ECC_RETIRED_CAUSE);
		rp->time = (u64)tgpu_rd32(tdev, TGPU_ECC_RETIRED_TIME_HI) << 32 |
			   tgpu_rd32(tdev, TGPU_ECC_RETIRED_TIME_LO);
		if (!IS_ALIGNED(rp->addr, SZ_4K) ||
		    rp->addr >= tdev->vram.size) {
			drm_warn(ddev, "ECC: retired page %u at 0x%llx is not a page of VRAM, ignored\n",
				 i, rp->addr);
			continue;
		}
		ecc->nr_retired++;
		ret = tgpu_vram_reserve(tdev, rp->addr, SZ_4K);
		if (ret) {
			drm_err(ddev, "ECC: cannot reserve retired page 0x%llx (%d): it may be handed out\n",
				rp->addr, ret);
			continue;
		}
		rp->reserved = true;
	}
	if (ecc->nr_retired)
		drm_info(ddev, "ECC: %u retired pages reserved\n",
			 ecc->nr_retired);
}

/**
 * tgpu_ecc_init() - enable ECC and reserve the retired pages
 * @tdev: the device, with the VRAM allocator and nothing allocated yet
 *
 * Must run before any channel is enabled (ECC cannot change under one)
 * and before anything allocates VRAM (a retired page must never be
 * handed out).  A board without ECC, a refused enable or a scrub that
 * does not finish leave ECC disabled: logged, not a probe failure.
 */
void tgpu_ecc_init(struct tgpu_device *tdev)
{
	struct tgpu_ecc *ecc = &tdev->ecc;

	ecc->capable = tgpu_rd32(tdev, TGPU_ECC_CAPS) & TGPU_ECC_CAPS_ECC;
	if (ecc->capable)
		tgpu_ecc_enable(tdev);
	else
		drm_info(&tdev->base, "ECC: not supported by this board\n");
	tgpu_ecc_retire_pages(tdev);
}

/**
 * tgpu_ecc_resume() - enable ECC again after a device reset
 * @tdev: the device, with every channel disabled (as a reset leaves it)
 *
 * A reset turns ECC off; it comes back on as at probe, after its scrub.
 */
void tgpu_ecc_resume(struct tgpu_device *tdev)
{
	if (!tdev->ecc.enabled)
		return;
	tdev->ecc.enabled = false;
	tgpu_ecc_enable(tdev);
}

/**
 * tgpu_ecc_retired_count() - retired pages of one cause
 * @tdev: the device
 * @cause: TGPU_RETIRED_CAUSE_SBE or TGPU_RETIRED_CAUSE_DBE
 *
 * Return: how many of the InfoROM's pages were retired for @cause.
 */
u32 tgpu_ecc_retired_count(struct tgpu_device *tdev, u32 cause)
{
	u32 i, n = 0;

	for (i = 0; i < tdev->ecc.nr_retired; i++)
		n += tdev->ecc.retired[i].cause == cause;
	return n;
}

/**
 * tgpu_ecc_show() - the ECC state, for debugfs
 * @tdev: the device
 * @m: where to print
 */
void tgpu_ecc_show(struct tgpu_device *tdev, struct seq_file *m)
{
	struct tgpu_ecc *ecc = &tdev->ecc;
	u32 i;

	seq_printf(m, "capable %u\nenabled %u\nscrub_ns %llu\n",
		   ecc->capable, ecc->enabled, ecc->scrub_ns);
	seq_printf(m, "retired_pages %u\n", ecc->nr_retired);
	for (i = 0; i < ecc->nr_retired; i++)
		seq_printf(m, "page 0x%llx cause %s time %llu %s\n",
			   ecc->retired[i].addr,
			   tgpu_retired_cause_name(ecc->retired[i].cause),
			   ecc->retired[i].time,
			   ecc->retired[i].reserved ? "reserved" : "NOT-RESERVED");
}
