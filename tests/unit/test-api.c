// SPDX-License-Identifier: MIT
/*
 * Unit tests of libtgpu's public API that need no device: status
 * strings, argument checks, the not-initialized state, sticky init,
 * thread-local messages and the exported symbol set.  On a host with a
 * tgpu device the no-device checks are skipped, not failed.
 *
 * Order matters: the pre-init checks must run before any tgpu_init(0).
 */
#include <dlfcn.h>
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>

#include "libtgpu.h"
#include "tap.h"

#define UNRECOGNIZED "unrecognized tgpu status code"

static void test_status_strings(void)
{
#define S(x) { x, #x }
	static const struct {
		tgpu_status st;
		const char *name;
	} all[] = {
		S(TGPU_SUCCESS),
		S(TGPU_ERROR_INVALID_VALUE),
		S(TGPU_ERROR_OUT_OF_MEMORY),
		S(TGPU_ERROR_NOT_INITIALIZED),
		S(TGPU_ERROR_NO_DEVICE),
		S(TGPU_ERROR_INVALID_DEVICE),
		S(TGPU_ERROR_NO_DRIVER),
		S(TGPU_ERROR_DEVICE_UNAVAILABLE),
		S(TGPU_ERROR_DEVICE_RESET),
		S(TGPU_ERROR_DEVICE_DEGRADED),
		S(TGPU_ERROR_ECC_UNCORRECTABLE),
		S(TGPU_ERROR_NOT_SUPPORTED),
		S(TGPU_ERROR_PERMISSION_DENIED),
		S(TGPU_ERROR_OS),
		S(TGPU_ERROR_UNKNOWN),
	};
#undef S
	size_t i, j, n = sizeof(all) / sizeof(all[0]);

	for (i = 0; i < n; i++) {
		const char *s = tgpu_get_error_string(all[i].st);

		ok(s && s[0] && strcmp(s, UNRECOGNIZED) != 0,
		   "%s has an error string (\"%s\")", all[i].name, s ? s : "(null)");
		is_str(tgpu_get_error_name(all[i].st), all[i].name,
		       "tgpu_get_error_name(%d)", (int)all[i].st);
		for (j = 0; j < i; j++)
			if (strcmp(s, tgpu_get_error_string(all[j].st)) == 0)
				ok(0, "%s and %s share an error string", all[i].name,
				   all[j].name);
	}
	is_str(tgpu_get_error_string((tgpu_status)12345), UNRECOGNIZED,
	       "unknown status gets the unrecognized string");
	is_str(tgpu_get_error_name((tgpu_status)-1), UNRECOGNIZED,
	       "unknown status gets the unrecognized name");
}

static void test_before_init(void)
{
	tgpu_device *dev = NULL;
	uint64_t v;
	int count = -1;

	is_str(tgpu_get_last_error_message(), "no error recorded on this thread",
	       "no message before any failure");
	is_int(tgpu_device_get_count(&count), TGPU_ERROR_NOT_INITIALIZED,
	       "get_count before tgpu_init is NOT_INITIALIZED");
	is_int(count, -1, "count untouched on failure");
	has_str(tgpu_get_last_error_message(), "tgpu_init(0)",
		"the message says to call tgpu_init(0)");
	is_int(tgpu_device_get(&dev, 0), TGPU_ERROR_NOT_INITIALIZED,
	       "device_get before tgpu_init is NOT_INITIALIZED");
	is_int(tgpu_device_get_param((tgpu_device *)&v, 0, &v), TGPU_ERROR_NOT_INITIALIZED,
	       "get_param before tgpu_init is NOT_INITIALIZED");
	is_int(tgpu_device_get_memory_info((tgpu_device *)&v, &v, &v), TGPU_ERROR_NOT_INITIALIZED,
	       "get_memory_info before tgpu_init is NOT_INITIALIZED");
	is_int(tgpu_device_get_processes((tgpu_device *)&v, NULL, 0, &count),
	       TGPU_ERROR_NOT_INITIALIZED, "get_processes before tgpu_init is NOT_INITIALIZED");

	is_int(tgpu_device_get_count(NULL), TGPU_ERROR_INVALID_VALUE,
	       "get_count(NULL) is INVALID_VALUE");
	has_str(tgpu_get_last_error_message(), "count is NULL", "... and names the argument");
	is_int(tgpu_device_get(NULL, 0), TGPU_ERROR_INVALID_VALUE,
	       "device_get(NULL) is INVALID_VALUE");
	is_int(tgpu_device_get_info(NULL, NULL), TGPU_ERROR_INVALID_VALUE,
	       "get_info(NULL, NULL) is INVALID_VALUE");
	is_int(tgpu_device_get_param(NULL, 0, NULL), TGPU_ERROR_INVALID_VALUE,
	       "get_param(value NULL) is INVALID_VALUE");

	is_int(tgpu_init(1), TGPU_ERROR_INVALID_VALUE, "tgpu_init(1) is INVALID_VALUE");
	has_str(tgpu_get_last_error_message(), "flags must be 0",
		"... and the message says why");
	is_int(tgpu_init(0x80000000u), TGPU_ERROR_INVALID_VALUE,
	       "tgpu_init(0x80000000) is INVALID_VALUE");
	is_int(tgpu_device_get_count(&count), TGPU_ERROR_NOT_INITIALIZED,
	       "a rejected tgpu_init does not initialize");
}

struct thread_result {
	tgpu_status init;
	char msg_before[128];
	char msg_after[128];
};

static void *init_thread(void *arg)
{
	struct thread_result *r = arg;

	/* A fresh thread has its own (empty) message. */
	snprintf(r->msg_before, sizeof(r->msg_before), "%s", tgpu_get_last_error_message());
	r->init = tgpu_init(0);
	tgpu_init(7);   /* fails; must not touch the main thread's message */
	snprintf(r->msg_after, sizeof(r->msg_after), "%s", tgpu_get_last_error_message());
	return NULL;
}

static void test_init(void)
{
	struct thread_result r[8];
	pthread_t t[8];
	tgpu_status st;
	char main_msg[512];
	bool same = true, fresh = true;
	int i, count = -1;

	/* Main thread's last message is the tgpu_init(0x80000000) failure. */
	snprintf(main_msg, sizeof(main_msg), "%s", tgpu_get_last_error_message());

	/* Racing first calls: pthread_once gives all of them one answer. */
	for (i = 0; i < 8; i++)
		pthread_create(&t[i], NULL, init_thread, &r[i]);
	for (i = 0; i < 8; i++)
		pthread_join(t[i], NULL);
	for (i = 0; i < 8; i++) {
		same &= r[i].init == r[0].init;
		fresh &= strcmp(r[i].msg_before, "no error recorded on this thread") == 0;
	}
	ok(same, "8 racing tgpu_init(0) calls agree (%s)", tgpu_get_error_name(r[0].init));
	ok(fresh, "a new thread starts with no message");
	is_str(tgpu_get_last_error_message(), main_msg,
	       "other threads' failures leave this thread's message alone");
	has_str(r[0].msg_after, "0x7", "a thread sees its own failure message");

	st = tgpu_init(0);
	is_int(st, r[0].init, "a later tgpu_init(0) returns the first result");
	if (st == TGPU_SUCCESS) {
		ok(tgpu_device_get_count(&count) == TGPU_SUCCESS && count >= 1,
		   "this host has %d tgpu device(s)", count);
		skip("no-device behaviour: this host has a tgpu device");
		return;
	}

	ok(st == TGPU_ERROR_NO_DRIVER || st == TGPU_ERROR_NO_DEVICE ||
	   st == TGPU_ERROR_PERMISSION_DENIED || st == TGPU_ERROR_DEVICE_UNAVAILABLE,
	   "without a usable device tgpu_init fails with a device status (%s)",
	   tgpu_get_error_name(st));
	snprintf(main_msg, sizeof(main_msg), "%s", tgpu_get_last_error_message());
	diag("tgpu_init: %s", main_msg);
	has_str(main_msg, "tgpu", "the init message talks about tgpu");
	if (st == TGPU_ERROR_NO_DRIVER)
		has_str(main_msg, "tgpu.ko is not loaded", "NO_DRIVER says the module is not loaded");
	else if (st == TGPU_ERROR_NO_DEVICE)
		has_str(main_msg, "lspci", "NO_DEVICE says how to look for the device");

	/* Sticky: later calls fail the same way and repeat why. */
	count = -1;
	is_int(tgpu_device_get_count(&count), st, "get_count after failed init repeats its status");
	is_int(count, -1, "count untouched");
	has_str(tgpu_get_last_error_message(), "tgpu_init() failed: ",
		"... and says init failed");
	has_str(tgpu_get_last_error_message(), main_msg, "... with the original reason");
}

static void test_exports(void)
{
	/* Only the API is exported; the helpers linked in stay hidden. */
	ok(dlsym(RTLD_DEFAULT, "tgpu_init") != NULL, "tgpu_init is exported");
	ok(dlsym(RTLD_DEFAULT, "tgpu_device_get_info") != NULL,
	   "tgpu_device_get_info is exported");
	ok(dlsym(RTLD_DEFAULT, "tu_chip_decode") == NULL,
	   "internal tu_chip_decode is not exported");
	ok(dlsym(RTLD_DEFAULT, "tu_fmt_pci_bus_id") == NULL,
	   "internal tu_fmt_pci_bus_id is not exported");
	ok(dlsym(RTLD_DEFAULT, "tgpu_device_get_memory_info") != NULL &&
	   dlsym(RTLD_DEFAULT, "tgpu_device_get_processes") != NULL,
	   "the Monitoring calls are exported");
	ok(dlsym(RTLD_DEFAULT, "tu_drm_fdinfo_parse") == NULL &&
	   dlsym(RTLD_DEFAULT, "tu_proc_scan_drm") == NULL,
	   "the fdinfo parser and /proc scan are not");
}

int main(void)
{
	is_str(tgpu_get_version_string(), TGPU_VERSION,
	       "library version is the project version");
	test_status_strings();
	test_before_init();
	test_init();
	test_exports();
	return tap_done();
}
