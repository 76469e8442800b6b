/*
 * tgpu: moving bytes as a DMA engine does, past the CPU caches
 *
 * The copy engines' inner loop (tgpu-ce.c), here so that the copy-engine
 * benchmark can run the very same loop on host threads as the machine's
 * limit for one and for two engines.
 *
 * Copyright (c) 2026 The tgpu authors
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */

#ifndef HW_TGPU_STREAM_COPY_H
#define HW_TGPU_STREAM_COPY_H

#ifdef HOST_X86_64
#include <emmintrin.h>
#endif

/* Bytes an engine moves between two looks at reset, kill and VM stop. */
#define TGPU_CE_CHUNK       (4 * MiB)

/*
 * Copy @n bytes from @s to @d, which must not overlap, with non-temporal
 * stores: they do not pull the destination into the CPU caches first,
 * which cuts a copy's memory traffic by a third and keeps two engines
 * from evicting each other's data.  x86-64 hosts (all of which have
 * SSE2); elsewhere plain memcpy.
 */
static inline void tgpu_stream_copy(uint8_t *d, const uint8_t *s, size_t n)
{
#ifdef HOST_X86_64
    size_t head = MIN(-(uintptr_t)d & 15, n);

    memcpy(d, s, head);
    d += head;
    s += head;
    n -= head;
    for (; n >= 64; n -= 64, d += 64, s += 64) {
        __m128i a = _mm_loadu_si128((const __m128i *)s);
        __m128i b = _mm_loadu_si128((const __m128i *)(s + 16));
        __m128i c = _mm_loadu_si128((const __m128i *)(s + 32));
        __m128i e = _mm_loadu_si128((const __m128i *)(s + 48));

        _mm_stream_si128((__m128i *)d, a);
        _mm_stream_si128((__m128i *)(d + 16), b);
        _mm_stream_si128((__m128i *)(d + 32), c);
        _mm_stream_si128((__m128i *)(d + 48), e);
    }
    _mm_sfence();
#endif
    memcpy(d, s, n);
}

#endif
