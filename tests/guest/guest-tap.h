/* SPDX-License-Identifier: MIT */
/*
 * TAP output for the in-guest test programs: tests/guest/run relays each
 * "ok N - ..." / "not ok N - ..." line to make check.
 */
#ifndef TGPU_GUEST_TAP_H
#define TGPU_GUEST_TAP_H

#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>

static int tap_n, tap_failed;

__attribute__((unused, format(printf, 2, 3)))
static bool ok(bool cond, const char *fmt, ...)
{
	va_list ap;

	tap_n++;
	if (!cond)
		tap_failed++;
	printf("%sok %d - ", cond ? "" : "not ", tap_n);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	putchar('\n');
	fflush(stdout);
	return cond;
}

/* The plan, and the exit status: non-zero when any check failed. */
static inline int tap_done(void)
{
	printf("1..%d\n", tap_n);
	return tap_failed ? 1 : 0;
}

/* Kernel log lines matching the extended regex @pattern, -1 on failure */
static inline int dmesg_count(const char *pattern)
{
	char cmd[512];
	int n = -1;
	FILE *f;

	snprintf(cmd, sizeof(cmd), "dmesg | grep -cE '%s'", pattern);
	f = popen(cmd, "r");
	if (!f)
		return -1;
	if (fscanf(f, "%d", &n) != 1)
		n = -1;
	pclose(f);
	return n;
}

__attribute__((unused, noreturn))
static void bail(const char *why)
{
	printf("Bail out! %s\n", why);
	exit(1);
}

#endif /* TGPU_GUEST_TAP_H */
