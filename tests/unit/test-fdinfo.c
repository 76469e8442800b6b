// SPDX-License-Identifier: MIT
/*
 * Unit tests of DRM fdinfo handling (guest-umd/libtgpu/tgpu-fdinfo.c):
 * size values, parsing of real and malformed fdinfo text, per-process
 * client accounting, and the /proc scan run over a fake /proc tree.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include "tap.h"
#include "tgpu-fdinfo.h"

#define MiB (1024ull * 1024)

/* What tgpu.ko prints (drm_show_fdinfo + drm_print_memory_stats, 6.12). */
static const char tgpu_fdinfo[] =
	"pos:\t0\n"
	"flags:\t02100002\n"
	"mnt_id:\t24\n"
	"ino:\t5\n"
	"drm-driver:\ttgpu\n"
	"drm-client-id:\t7\n"
	"drm-pdev:\t0000:01:00.0\n"
	"drm-total-vram:\t80 MiB\n"
	"drm-shared-vram:\t0\n"
	"drm-active-vram:\t0\n"
	"drm-resident-vram:\t64 MiB\n";

static void test_sizes(void)
{
	static const struct {
		const char *s;
		bool ok;
		uint64_t bytes;
	} cases[] = {
		{ "0", true, 0 },
		{ "4096", true, 4096 },
		{ "4 KiB", true, 4096 },
		{ "64 MiB", true, 64 * MiB },
		{ "2 GiB", true, 2048 * MiB },
		{ "  12\tKiB  ", true, 12 * 1024 },
		{ "7KiB", true, 7 * 1024 },
		{ "18446744073709551615", true, UINT64_MAX },
		{ "18446744073709551616", false, 0 },     /* overflow */
		{ "17179869184 GiB", false, 0 },          /* 2^34 GiB overflows */
		{ "", false, 0 },
		{ "   ", false, 0 },
		{ "MiB", false, 0 },
		{ "-4 KiB", false, 0 },
		{ "4 kib", false, 0 },                    /* units are case-sensitive */
		{ "4 KB", false, 0 },
		{ "4 MiB extra", false, 0 },
		{ "4.5 MiB", false, 0 },
		{ "0x10", false, 0 },
		{ "4 TiB", false, 0 },
	};
	size_t i;

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		uint64_t v = 12345;
		bool r = tu_drm_fdinfo_parse_size(cases[i].s, &v);

		if (cases[i].ok)
			ok(r && v == cases[i].bytes, "size \"%s\" is %llu bytes (got %s %llu)",
			   cases[i].s, (unsigned long long)cases[i].bytes, r ? "ok" : "error",
			   (unsigned long long)v);
		else
			ok(!r, "size \"%s\" is refused", cases[i].s);
	}
	ok(!tu_drm_fdinfo_parse_size(NULL, NULL), "NULL is refused");
}

static void test_parse(void)
{
	struct tu_drm_fdinfo fi;
	uint64_t v = 0;
	char buf[1024];

	ok(tu_drm_fdinfo_parse(tgpu_fdinfo, &fi), "tgpu.ko's fdinfo is a DRM file's");
	is_str(fi.driver, "tgpu", "drm-driver");
	ok(fi.has_client_id && fi.client_id == 7, "drm-client-id 7");
	ok(fi.has_pdev && fi.pdev.domain == 0 && fi.pdev.bus == 1 && fi.pdev.dev == 0 &&
	   fi.pdev.func == 0, "drm-pdev 0000:01:00.0");
	ok(fi.has_total_vram && fi.total_vram == 80 * MiB, "drm-total-vram 80 MiB");
	ok(fi.has_resident_vram && fi.resident_vram == 64 * MiB, "drm-resident-vram 64 MiB");
	ok(tu_drm_fdinfo_vram(&fi, &v) && v == 64 * MiB, "a client's VRAM is the resident one");

	/* Only total: that one; neither: unknown. */
	ok(tu_drm_fdinfo_parse("drm-driver: tgpu\ndrm-client-id: 3\ndrm-total-vram: 4096\n", &fi),
	   "blanks instead of a tab, no trailing fields");
	ok(tu_drm_fdinfo_vram(&fi, &v) && v == 4096, "without resident, total is used");
	ok(!fi.has_pdev, "no drm-pdev: has_pdev false");
	ok(tu_drm_fdinfo_parse("drm-driver:\ttgpu\ndrm-client-id:\t3", &fi) && !fi.has_total_vram &&
	   !tu_drm_fdinfo_vram(&fi, &v), "no memory keys: VRAM unknown; no final newline is fine");

	/* Not DRM files, or broken ones. */
	ok(!tu_drm_fdinfo_parse("pos:\t0\nflags:\t02\nmnt_id:\t24\nino:\t9\n", &fi),
	   "a regular file's fdinfo is not a DRM file's");
	ok(!tu_drm_fdinfo_parse("", &fi), "empty text");
	ok(!tu_drm_fdinfo_parse(NULL, &fi), "NULL text");
	ok(!tu_drm_fdinfo_parse("drm-driver:\ttgpu\n", &fi), "no client id");
	ok(!tu_drm_fdinfo_parse("drm-client-id:\t1\n", &fi), "no driver");
	ok(!tu_drm_fdinfo_parse("drm-driver:\n drm-client-id: 1\n", &fi), "empty driver");
	ok(!tu_drm_fdinfo_parse("drm-driver:\ttgpu\ndrm-client-id:\tseven\n", &fi),
	   "non-numeric client id");
	ok(!tu_drm_fdinfo_parse("drm-driver:\ttgpu\ndrm-client-id:\t-1\n", &fi),
	   "negative client id");
	ok(!tu_drm_fdinfo_parse("drm-driver:\ttgpu\ndrm-client-id:\t99999999999999999999\n", &fi),
	   "client id beyond 64 bits");
	ok(!tu_drm_fdinfo_parse("drm-driver\ttgpu\ndrm-client-id\t1\n", &fi), "no colons");
	ok(!tu_drm_fdinfo_parse("drm-driver:\tan-overly-long-driver-name-of-40-bytes\n"
				"drm-client-id:\t1\n", &fi), "a driver name too long to hold");
	ok(!tu_drm_fdinfo_parse("xdrm-driver:\ttgpu\ndrm-client-idx:\t1\n", &fi),
	   "keys match whole, not as substrings");

	ok(tu_drm_fdinfo_parse("drm-driver:\ttgpu\ndrm-client-id:\t5\ndrm-pdev:\tnonsense\n"
			       "drm-total-vram:\t12 parsecs\ndrm-resident-vram:\t\n", &fi),
	   "malformed optional keys do not spoil the file");
	ok(!fi.has_pdev && !fi.has_total_vram && !fi.has_resident_vram,
	   "... they are left out");
	ok(tu_drm_fdinfo_parse("drm-driver:\ttgpu\ndrm-client-id:\t5\ndrm-client-id:\t6\n"
			       "drm-pdev:\t00000000:02:00.0\n", &fi) && fi.client_id == 6 &&
	   fi.has_pdev && fi.pdev.bus == 2, "a repeated key keeps the last; 8-digit domains parse");

	/* Truncated mid-line, as a read into a short buffer leaves it. */
	snprintf(buf, sizeof(buf), "%.*s", (int)(strstr(tgpu_fdinfo, "drm-resident") -
						 tgpu_fdinfo) + 20, tgpu_fdinfo);
	ok(tu_drm_fdinfo_parse(buf, &fi) && fi.has_resident_vram && fi.resident_vram == 6,
	   "text cut in a value parses what is there (\"6\" of \"64 MiB\")");
}

static struct tu_drm_fdinfo client(uint64_t id, bool known, uint64_t vram)
{
	struct tu_drm_fdinfo fi;

	memset(&fi, 0, sizeof(fi));
	strcpy(fi.driver, "tgpu");
	fi.has_client_id = true;
	fi.client_id = id;
	fi.has_resident_vram = known;
	fi.resident_vram = vram;
	return fi;
}

static void test_usage(void)
{
	struct tu_drm_usage u = { 0 };
	struct tu_drm_fdinfo a = client(1, true, 64 * MiB), b = client(2, true, 16 * MiB);
	struct tu_drm_fdinfo c = client(3, false, 0);
	int i, news = 0;

	is_int(tu_drm_usage_add(&u, &a), 1, "a new client");
	is_int(tu_drm_usage_add(&u, &a), 0, "the same client again (a dup'ed fd)");
	is_int(tu_drm_usage_add(&u, &b), 1, "a second client");
	ok(u.nids == 2 && u.vram == 80 * MiB && !u.vram_unknown,
	   "two clients, 80 MiB: the dup counted once");
	is_int(tu_drm_usage_add(&u, &c), 1, "a client without memory keys");
	ok(u.vram_unknown, "... makes the process's memory unknown");
	tu_drm_usage_free(&u);
	ok(u.nids == 0 && !u.ids && u.vram == 0, "free resets");

	for (i = 0; i < 100; i++) {
		struct tu_drm_fdinfo x = client((uint64_t)(i % 37), true, MiB);

		news += tu_drm_usage_add(&u, &x) == 1;
	}
	ok(news == 37 && u.nids == 37 && u.vram == 37 * MiB,
	   "100 files of 37 clients: 37 counted (growing the id array)");
	tu_drm_usage_free(&u);

	a = client(1, true, UINT64_MAX - 1);
	b = client(2, true, 10);
	tu_drm_usage_add(&u, &a);
	tu_drm_usage_add(&u, &b);
	ok(u.vram == UINT64_MAX, "a sum beyond 64 bits saturates");
	tu_drm_usage_free(&u);
}

/* ---- the /proc scan over a fake tree --------------------------------------- */

static char root[] = "/tmp/tgpu-test-fdinfo-XXXXXX";

__attribute__((noreturn))
static void bail(const char *why)
{
	printf("Bail out! %s: %s\n", why, strerror(errno));
	exit(1);
}

static void put(const char *rel, const char *text)
{
	char path[512];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", root, rel);
	f = fopen(path, "w");
	if (!f || fputs(text, f) < 0 || fclose(f))
		bail("cannot write the fake /proc");
}

static void dir(const char *rel)
{
	char path[512];

	snprintf(path, sizeof(path), "%s/%s", root, rel);
	if (mkdir(path, 0755) && errno != EEXIST)
		bail("cannot make the fake /proc");
}

static void link_to(const char *rel, const char *target)
{
	char path[512];

	snprintf(path, sizeof(path), "%s/%s", root, rel);
	if (symlink(target, path))
		bail("cannot link in the fake /proc");
}

/* A process of the fake tree: its comm, fd and fdinfo directories. */
static void proc(int pid, const char *comm)
{
	char rel[64];

	snprintf(rel, sizeof(rel), "%d", pid);
	dir(rel);
	snprintf(rel, sizeof(rel), "%d/fd", pid);
	dir(rel);
	snprintf(rel, sizeof(rel), "%d/fdinfo", pid);
	dir(rel);
	if (comm) {
		char text[64];

		snprintf(rel, sizeof(rel), "%d/comm", pid);
		snprintf(text, sizeof(text), "%s\n", comm);
		put(rel, text);
	}
}

static void file(int pid, int fd, const char *target, const char *fdinfo)
{
	char rel[64];

	snprintf(rel, sizeof(rel), "%d/fd/%d", pid, fd);
	link_to(rel, target);
	if (fdinfo) {
		snprintf(rel, sizeof(rel), "%d/fdinfo/%d", pid, fd);
		put(rel, fdinfo);
	}
}

static const char *drm(const char *driver, int client, const char *pdev, const char *vram)
{
	static char bufs[16][256];
	static int next;
	char *b = bufs[next++ % 16];

	snprintf(b, 256, "pos:\t0\nflags:\t02100002\ndrm-driver:\t%s\ndrm-client-id:\t%d\n"
		 "drm-pdev:\t%s\n%s", driver, client, pdev, vram);
	return b;
}

static void build_tree(void)
{
	const char *gpu0 = "0000:01:00.0", *gpu1 = "0000:02:00.0";

	if (!mkdtemp(root))
		bail("mkdtemp failed");
	/* 300: two clients (one dup'ed) of GPU 0: 64 + 16 MiB */
	proc(300, "holder");
	file(300, 0, "/dev/null", "pos:\t0\nflags:\t02\n");
	file(300, 3, "/dev/dri/renderD128", drm("tgpu", 7, gpu0, "drm-resident-vram:\t64 MiB\n"));
	file(300, 4, "/dev/dri/renderD128", drm("tgpu", 7, gpu0, "drm-resident-vram:\t64 MiB\n"));
	file(300, 5, "/dev/dri/card1", drm("tgpu", 8, gpu0, "drm-resident-vram:\t16 MiB\n"));
	/* 41: GPU 1 only, and a virtio_gpu card of GPU 0's bus id (not ours) */
	proc(41, "other");
	file(41, 3, "/dev/dri/renderD129", drm("tgpu", 9, gpu1, "drm-resident-vram:\t4 MiB\n"));
	file(41, 4, "/dev/dri/card0", drm("virtio_gpu", 1, gpu0, "drm-resident-vram:\t4 MiB\n"));
	/* 5: a client of GPU 0 without memory keys, and no comm */
	proc(5, NULL);
	file(5, 3, "/dev/dri/renderD128", drm("tgpu", 10, gpu0, ""));
	/* 1000: fdinfo says tgpu, but the fd is no DRM node: not read at all */
	proc(1000, "liar");
	file(1000, 3, "/tmp/x", drm("tgpu", 11, gpu0, "drm-resident-vram:\t1 MiB\n"));
	/* 77: a DRM link whose fdinfo is gone (the file closed meanwhile) */
	proc(77, "racer");
	file(77, 3, "/dev/dri/renderD128", NULL);
	/* 78: malformed fdinfo */
	proc(78, "garbage");
	file(78, 3, "/dev/dri/renderD128", "\x01\x02drm-driver tgpu\n:::\n\n");
	/* 79: no fd directory (another user's process) */
	dir("79");
	put("79/comm", "secret\n");
	/* not processes */
	dir("self");
	dir("sys");
	put("12abc", "");
	/* 12: the same client as 300's fd 3 (forked child) with 64 MiB */
	proc(12, "child");
	file(12, 9, "/dev/dri/renderD128", drm("tgpu", 7, gpu0, "drm-resident-vram:\t64 MiB\n"));
}

static void remove_tree(void)
{
	char cmd[128];

	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", root);
	if (system(cmd))
		diag("could not remove %s", root);
}

static void test_scan(void)
{
	struct tgpu_process_info out[8];
	struct tu_pci_addr gpu0 = { 0, 1, 0, 0 }, gpu1 = { 0, 2, 0, 0 }, gpu3 = { 0, 3, 0, 0 };
	int count = -1, rc;

	build_tree();

	rc = tu_proc_scan_drm(root, "tgpu", &gpu0, out, 8, &count);
	is_int(rc, 0, "the scan of GPU 0 succeeds");
	is_int(count, 3, "three processes use GPU 0");
	if (count == 3) {
		ok(out[0].pid == 5 && out[1].pid == 12 && out[2].pid == 300, "sorted by pid");
		ok(out[2].used_memory == 80 * MiB && out[2].clients == 2,
		   "300: 2 clients, 80 MiB: dup'ed fd once, render and card node both count");
		is_str(out[2].name, "holder", "300's name is its comm, without the newline");
		ok(out[1].used_memory == 64 * MiB && out[1].clients == 1,
		   "12: the forked child's shared client is listed too");
		ok(out[0].used_memory == TGPU_MEMORY_UNKNOWN && out[0].clients == 1,
		   "5: no memory keys: unknown memory");
		is_str(out[0].name, "", "5: no comm: empty name");
	}

	rc = tu_proc_scan_drm(root, "tgpu", &gpu1, out, 8, &count);
	ok(rc == 0 && count == 1 && out[0].pid == 41 && out[0].used_memory == 4 * MiB,
	   "GPU 1: only 41, its virtio_gpu file not counted");
	rc = tu_proc_scan_drm(root, "tgpu", &gpu3, out, 8, &count);
	ok(rc == 0 && count == 0, "an unused GPU has no processes");
	rc = tu_proc_scan_drm(root, "virtio_gpu", &gpu0, out, 8, &count);
	ok(rc == 0 && count == 1 && out[0].pid == 41, "the driver name selects too");

	memset(out, 0, sizeof(out));
	rc = tu_proc_scan_drm(root, "tgpu", &gpu0, out, 2, &count);
	ok(rc == 0 && count == 3 && out[0].pid == 5 && out[1].pid == 12 && out[2].pid == 0,
	   "max 2 of 3: the first two by pid, and the full count");
	rc = tu_proc_scan_drm(root, "tgpu", &gpu0, NULL, 0, &count);
	ok(rc == 0 && count == 3, "NULL and max 0 count only");

	rc = tu_proc_scan_drm("/nonexistent/proc", "tgpu", &gpu0, out, 8, &count);
	ok(rc == -ENOENT && count == 0, "a missing root is -ENOENT, with count 0");

	remove_tree();
}

int main(void)
{
	test_sizes();
	test_parse();
	test_usage();
	test_scan();
	return tap_done();
}
