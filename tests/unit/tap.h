/* SPDX-License-Identifier: MIT */
/*
 * Minimal TAP producer for the unit tests (meson test protocol 'tap').
 * Each check prints "ok N - ..." or "not ok N - ..." with the got and
 * expected values as "# " diagnostics; tap_done() prints the plan and
 * gives the exit status.
 */
#ifndef TGPU_TAP_H
#define TGPU_TAP_H

#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

static int tap_n;
static int tap_failed;

/* "# "-prefixed diagnostics; multi-line text gets the prefix on every line. */
__attribute__((format(printf, 1, 2), unused))
static void diag(const char *fmt, ...)
{
	static char text[32768];
	char *line, *save = NULL;
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(text, sizeof(text), fmt, ap);
	va_end(ap);
	for (line = strtok_r(text, "\n", &save); line; line = strtok_r(NULL, "\n", &save))
		printf("# %s\n", line);
}

__attribute__((format(printf, 2, 0)))
static bool tap_vresult(bool cond, const char *fmt, va_list ap)
{
	tap_n++;
	if (!cond)
		tap_failed++;
	printf("%sok %d - ", cond ? "" : "not ", tap_n);
	vprintf(fmt, ap);
	putchar('\n');
	fflush(stdout);
	return cond;
}

__attribute__((format(printf, 2, 3), unused))
static bool ok(bool cond, const char *fmt, ...)
{
	va_list ap;
	bool r;

	va_start(ap, fmt);
	r = tap_vresult(cond, fmt, ap);
	va_end(ap);
	return r;
}

__attribute__((format(printf, 3, 4), unused))
static bool is_str(const char *got, const char *exp, const char *fmt, ...)
{
	bool cond = got && exp && strcmp(got, exp) == 0;
	va_list ap;

	va_start(ap, fmt);
	tap_vresult(cond, fmt, ap);
	va_end(ap);
	if (!cond) {
		diag("     got: \"%s\"", got ? got : "(null)");
		diag("expected: \"%s\"", exp ? exp : "(null)");
	}
	return cond;
}

__attribute__((format(printf, 3, 4), unused))
static bool is_int(long long got, long long exp, const char *fmt, ...)
{
	bool cond = got == exp;
	va_list ap;

	va_start(ap, fmt);
	tap_vresult(cond, fmt, ap);
	va_end(ap);
	if (!cond) {
		diag("     got: %lld (0x%llx)", got, (unsigned long long)got);
		diag("expected: %lld (0x%llx)", exp, (unsigned long long)exp);
	}
	return cond;
}

/* got contains needle. */
__attribute__((format(printf, 3, 4), unused))
static bool has_str(const char *got, const char *needle, const char *fmt, ...)
{
	bool cond = got && needle && strstr(got, needle);
	va_list ap;

	va_start(ap, fmt);
	tap_vresult(cond, fmt, ap);
	va_end(ap);
	if (!cond) {
		diag("     got: \"%s\"", got ? got : "(null)");
		diag("expected to contain: \"%s\"", needle ? needle : "(null)");
	}
	return cond;
}

__attribute__((unused))
static void skip(const char *why)
{
	printf("ok %d - # SKIP %s\n", ++tap_n, why);
}

__attribute__((unused))
static int tap_done(void)
{
	printf("1..%d\n", tap_n);
	return tap_failed ? 1 : 0;
}

#endif /* TGPU_TAP_H */
