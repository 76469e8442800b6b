/*
 * tgpu PTIMER: the GPU's nanosecond timer
 *
 * Copyright (c) 2026 The tgpu authors
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */

#include "qemu/osdep.h"
#include "tgpu.h"

/* The virtual clock: it stands still in qtest until the test steps it. */
uint64_t tgpu_ptimer_now(TGPUState *s)
{
    return qemu_clock_get_ns(QEMU_CLOCK_VIRTUAL);
}

/*
 * TIME_0 latches the high half, so low-then-high reads are consistent; the
 * usermode copy has its own latch, so user space cannot tear a kernel read.
 */
uint32_t tgpu_ptimer_read(TGPUState *s, hwaddr addr, bool *ok)
{
    uint64_t now;

    *ok = true;
    switch (addr) {
    case TGPU_PTIMER_TIME_0:
        now = tgpu_ptimer_now(s);
        s->ptimer_latch = now >> 32;
        return (uint32_t)now;
    case TGPU_PTIMER_TIME_1:
        return s->ptimer_latch;
    case TGPU_USERMODE_TIME_0:
        now = tgpu_ptimer_now(s);
        s->ptimer_user_latch = now >> 32;
        return (uint32_t)now;
    case TGPU_USERMODE_TIME_1:
        return s->ptimer_user_latch;
    }
    *ok = false;
    return TGPU_REG_BADF;
}
