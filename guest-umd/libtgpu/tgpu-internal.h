/* SPDX-License-Identifier: MIT */
/*
 * Interfaces between libtgpu's own source files.  Hidden inside
 * libtgpu.so; not part of the installed API.
 */
#ifndef TGPU_INTERNAL_H
#define TGPU_INTERNAL_H

/* Set this thread's tgpu_get_last_error_message() (tgpu.c). */
void tu_set_last_error(const char *msg);

#endif /* TGPU_INTERNAL_H */
