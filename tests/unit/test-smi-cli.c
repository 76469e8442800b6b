// SPDX-License-Identifier: MIT
/*
 * Runs the built tgpu-smi (path in argv[1]) and checks exit statuses and
 * messages: argument errors must be reported before any device access,
 * and on a host without a tgpu device every device mode must fail with
 * nvidia-smi's "driver not loaded" (9) or "not found" (6) status.
 */
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

#include "libtgpu.h"
#include "tap.h"

struct run {
	int status;             /* exit status, or -1 if it did not exit */
	char out[16384];
	char err[4096];
};

static void slurp(FILE *f, char *buf, size_t len)
{
	size_t n;

	rewind(f);
	n = fread(buf, 1, len - 1, f);
	buf[n] = '\0';
	fclose(f);
}

static void run(struct run *r, const char *smi, const char *const *args)
{
	const char *argv[16] = { smi };
	FILE *out = tmpfile(), *err = tmpfile();
	int i, st;
	pid_t pid;

	for (i = 0; args[i] && i < 14; i++)
		argv[i + 1] = args[i];
	argv[i + 1] = NULL;

	fflush(stdout);
	pid = fork();
	if (pid == 0) {
		dup2(fileno(out), 1);
		dup2(fileno(err), 2);
		execv(smi, (char *const *)argv);
		_exit(127);
	}
	waitpid(pid, &st, 0);
	r->status = WIFEXITED(st) ? WEXITSTATUS(st) : -1;
	slurp(out, r->out, sizeof(r->out));
	slurp(err, r->err, sizeof(r->err));
}

/* want: the exit status libtgpu's failure maps to, -2 for "any failure". */
static void check_no_device(const struct run *r, int want, const char *what)
{
	if (want == -2)
		ok(r->status != 0, "%s without a usable device fails (%d)", what, r->status);
	else
		is_int(r->status, want, "%s without a device exits %d", what, want);
}

#define ARGS(...) ((const char *const[]){ __VA_ARGS__, NULL })

int main(int argc, char **argv)
{
	static struct run r;
	const char *smi;
	tgpu_status st;
	int want;

	if (argc != 2) {
		fprintf(stderr, "usage: %s PATH-TO-TGPU-SMI\n", argv[0]);
		return 99;
	}
	smi = argv[1];

	run(&r, smi, ARGS("--query-gpu=name,bogus.field", "--format=csv"));
	is_int(r.status, 2, "unknown --query-gpu field exits 2");
	has_str(r.err, "Field \"bogus.field\" is not a valid field to query.",
		"... and names the field on stderr");
	is_str(r.out, "", "... and prints nothing on stdout");

	run(&r, smi, ARGS("--query-gpu=name"));
	is_int(r.status, 2, "--query-gpu without --format exits 2");
	run(&r, smi, ARGS("--query-gpu=name", "--format=xml"));
	is_int(r.status, 2, "--format=xml exits 2");
	run(&r, smi, ARGS("-q", "-L"));
	is_int(r.status, 2, "-q -L exits 2");
	run(&r, smi, ARGS("--frobnicate"));
	is_int(r.status, 2, "unknown option exits 2");
	has_str(r.err, "--frobnicate", "... and names it");
	run(&r, smi, ARGS("-i", "nope"));
	is_int(r.status, 2, "bad -i exits 2");

	run(&r, smi, ARGS("dmon", "-c", "0"));
	is_int(r.status, 2, "dmon -c 0 exits 2");
	has_str(r.err, "at least 1", "... and says what -c takes");
	is_str(r.out, "", "... before printing a header");
	run(&r, smi, ARGS("dmon", "-s", "z"));
	is_int(r.status, 2, "dmon -s z exits 2");
	run(&r, smi, ARGS("--query-compute-apps=pid,bogus", "--format=csv"));
	is_int(r.status, 2, "unknown --query-compute-apps field exits 2");
	has_str(r.err, "Field \"bogus\" is not a valid field to query.", "... and names it");
	run(&r, smi, ARGS("--help-query-compute-apps"));
	is_int(r.status, 0, "--help-query-compute-apps exits 0");
	has_str(r.out, "\"used_gpu_memory\" or \"used_memory\"", "... and lists the fields");

	/* -q -d, --query-retired-pages, dmon -o and --format: refused before any device */
	run(&r, smi, ARGS("-d", "ECC"));
	is_int(r.status, 2, "-d without -q exits 2");
	has_str(r.err, "-d (--display) is only valid with -q", "... and says so");
	is_str(r.out, "", "... with nothing on stdout");
	run(&r, smi, ARGS("-q", "-d", "ECC,BOGUS"));
	is_int(r.status, 2, "-q -d with an unknown display type exits 2");
	has_str(r.err, "\"BOGUS\" is not a valid display type", "... and names it");
	run(&r, smi, ARGS("-q", "--display=ECC,"));
	is_int(r.status, 2, "-q --display with an empty type exits 2");
	run(&r, smi, ARGS("-q", "-d"));
	is_int(r.status, 2, "-q -d without a value exits 2");
	run(&r, smi, ARGS("--query-retired-pages=retired_pages.address,bogus", "--format=csv"));
	is_int(r.status, 2, "unknown --query-retired-pages field exits 2");
	has_str(r.err, "Field \"bogus\" is not a valid field to query.", "... and names it");
	run(&r, smi, ARGS("--query-retired-pages=retired_pages.address"));
	is_int(r.status, 2, "--query-retired-pages without --format exits 2");
	run(&r, smi, ARGS("--help-query-retired-pages"));
	is_int(r.status, 0, "--help-query-retired-pages exits 0");
	has_str(r.out, "\"retired_pages.address\"\n", "... and lists the fields");
	run(&r, smi, ARGS("dmon", "-o", "DX"));
	is_int(r.status, 2, "dmon -o DX exits 2");
	has_str(r.err, "'X'", "... and names the letter");
	is_str(r.out, "", "... before printing a header");
	run(&r, smi, ARGS("dmon", "--format", "tsv"));
	is_int(r.status, 2, "dmon --format tsv exits 2");
	has_str(r.err, "\"tsv\"", "... and names it");

	run(&r, smi, ARGS("-h"));
	is_int(r.status, 0, "-h exits 0");
	has_str(r.out, "--query-gpu=FIELDS", "-h prints usage on stdout");
	has_str(r.out, "--display=LIST", "-h documents -q -d");
	has_str(r.out, "--options=DT", "-h documents dmon -o");
	has_str(r.out, "--query-retired-pages=FIELDS", "-h documents --query-retired-pages");
	run(&r, smi, ARGS("--help-query-gpu"));
	is_int(r.status, 0, "--help-query-gpu exits 0");
	has_str(r.out, "\"pci.bus_id\" or \"gpu_bus_id\"", "--help-query-gpu lists fields");
	run(&r, smi, ARGS("--version"));
	is_int(r.status, 0, "--version exits 0 even without a device");
	has_str(r.out, "TGPU-SMI version  : " TGPU_VERSION, "--version prints the tool version");

	/* Device modes: only meaningful without a tgpu device. */
	st = tgpu_init(0);
	if (st == TGPU_SUCCESS) {
		skip("no-device exit statuses: this host has a tgpu device");
		return tap_done();
	}
	want = st == TGPU_ERROR_NO_DRIVER ? 9 : st == TGPU_ERROR_NO_DEVICE ? 6 : -2;
	diag("host without tgpu: tgpu_init says %s", tgpu_get_error_name(st));

	run(&r, smi, ARGS("-q"));
	check_no_device(&r, want, "-q");
	has_str(r.err, "tgpu", "... and says why on stderr");
	is_str(r.out, "", "... with nothing on stdout");
	if (want == 9)
		has_str(r.err, "couldn't communicate with the tgpu driver",
			"driver-not-loaded wording");

	run(&r, smi, ARGS("--query-gpu=name", "--format=csv"));
	check_no_device(&r, want, "--query-gpu");
	run(&r, smi, ARGS("-L"));
	check_no_device(&r, want, "-L");
	run(&r, smi, ARGS(NULL));
	check_no_device(&r, want, "the summary");
	run(&r, smi, ARGS("--query-compute-apps=pid", "--format=csv"));
	check_no_device(&r, want, "--query-compute-apps");
	run(&r, smi, ARGS("dmon", "-c", "1"));
	check_no_device(&r, want, "dmon");
	is_str(r.out, "", "... without printing a header");
	run(&r, smi, ARGS("-q", "-d", "PERFORMANCE,PAGE_RETIREMENT"));
	check_no_device(&r, want, "-q -d");
	is_str(r.out, "", "... with nothing on stdout");
	run(&r, smi, ARGS("--query-retired-pages=retired_pages.address", "--format=csv"));
	check_no_device(&r, want, "--query-retired-pages");
	is_str(r.out, "", "... without printing a header");
	run(&r, smi, ARGS("dmon", "-c", "1", "-o", "DT", "--format", "csv"));
	check_no_device(&r, want, "dmon -o DT --format csv");
	is_str(r.out, "", "... without printing a header");
	return tap_done();
}
