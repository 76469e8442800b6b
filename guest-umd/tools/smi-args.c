// SPDX-License-Identifier: MIT
/*
 * tgpu-smi core: the command line (getopt_long, nvidia-smi's options and
 * messages, the dmon subcommand), the exit codes, and -i's selection.
 */
#include <errno.h>
#include <getopt.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include <tgpu/regs.h>

#include "smi.h"
#include "smi-field.h"
#include "tgpu-util.h"

/* ---- arguments ------------------------------------------------------------ */

__attribute__((format(printf, 3, 4)))
static int arg_error(char *err, size_t len, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(err, len, fmt, ap);
	va_end(ap);
	return SMI_EXIT_INVALID_ARG;
}

/* Next comma-separated item of *p, blanks trimmed, into item. */
static bool next_item(const char **p, char *item, size_t len)
{
	const char *s = *p, *e;
	size_t n;

	if (!s)
		return false;
	e = strchr(s, ',');
	n = e ? (size_t)(e - s) : strlen(s);
	*p = e ? e + 1 : NULL;
	while (n && (*s == ' ' || *s == '\t')) {
		s++;
		n--;
	}
	while (n && (s[n - 1] == ' ' || s[n - 1] == '\t'))
		n--;
	if (n >= len)
		n = len - 1;
	memcpy(item, s, n);
	item[n] = '\0';
	return true;
}

static int parse_fields(const char *list, const char *opt,
			const struct smi_field *(*find)(const char *),
			struct smi_args *a, char *err, size_t errlen)
{
	const char *p = list;
	char item[128];

	a->nfields = 0;
	while (next_item(&p, item, sizeof(item))) {
		const struct smi_field *f = find(item);

		if (!f)
			return arg_error(err, errlen,
					 "Field \"%s\" is not a valid field to query.", item);
		if (a->nfields == SMI_MAX_FIELDS)
			return arg_error(err, errlen, "Too many fields in %s (at most %d).",
					 opt, SMI_MAX_FIELDS);
		a->fields[a->nfields++] = f;
	}
	return SMI_EXIT_OK;
}

static int parse_format(const char *fmt, struct smi_args *a, char *err,
			size_t errlen)
{
	const char *p = fmt;
	bool csv = false;
	char item[64];

	while (next_item(&p, item, sizeof(item))) {
		if (strcmp(item, "csv") == 0)
			csv = true;
		else if (strcmp(item, "noheader") == 0)
			a->noheader = true;
		else if (strcmp(item, "nounits") == 0)
			a->nounits = true;
		else
			return arg_error(err, errlen,
					 "\"%s\" is not a valid format option: use --format=csv[,noheader][,nounits].",
					 item);
	}
	if (!csv)
		return arg_error(err, errlen,
				 "--format must include csv: use --format=csv[,noheader][,nounits].");
	return SMI_EXIT_OK;
}

static bool valid_id(const char *id)
{
	struct tu_pci_addr addr;
	size_t n = strlen(id);

	if (n > 0 && n < 10 && strspn(id, "0123456789") == n)
		return true;
	return tu_parse_pci_bus_id(id, &addr);
}

/* A whole decimal number from min to max, else false. */
static bool parse_int(const char *s, int min, int max, int *v)
{
	char *end;
	long x;

	if (!s || !*s || !strchr("0123456789", s[0]))
		return false;
	errno = 0;
	x = strtol(s, &end, 10);
	if (errno || *end || x < min || x > max)
		return false;
	*v = (int)x;
	return true;
}

static int bad_id(const char *v, char *err, size_t errlen)
{
	return arg_error(err, errlen,
			 "Invalid GPU id \"%s\": use an index (0, 1, ...) or a PCI bus id (0000:01:00.0).",
			 v);
}

/*
 * The argument getopt_long() refused (an unknown option, or a non-option
 * where options were expected), as the user wrote it.
 */
static const char *refused_arg(char *const argv[], char *buf, size_t len)
{
	const char *arg = argv[optind - 1];

	/* a long option is its whole word; a short one may sit in a cluster */
	if (optind > 0 && strncmp(arg, "--", 2) == 0)
		return arg;
	snprintf(buf, len, "-%c", optopt);
	return buf;
}

enum { OPT_QUERY_GPU = 256, OPT_QUERY_APPS, OPT_QUERY_RETIRED, OPT_FORMAT,
       OPT_HELP_QUERY_GPU, OPT_HELP_QUERY_APPS, OPT_HELP_QUERY_RETIRED, OPT_VERSION };

/*
 * -q -d LIST: nvidia-smi's display types.  Those a tgpu has nothing for
 * are accepted and print no section, so that scripts written for
 * nvidia-smi run; only a name nvidia-smi does not know either is an error.
 */
static int parse_display(const char *list, struct smi_args *a, char *err,
			 size_t errlen)
{
	static const struct {
		const char *name;
		unsigned int bit;
	} types[] = {
		{ "MEMORY", SMI_DISPLAY_MEMORY },
		{ "UTILIZATION", SMI_DISPLAY_UTILIZATION },
		{ "ECC", SMI_DISPLAY_ECC },
		{ "TEMPERATURE", SMI_DISPLAY_TEMPERATURE },
		{ "POWER", SMI_DISPLAY_POWER },
		{ "CLOCK", SMI_DISPLAY_CLOCK },
		{ "COMPUTE", SMI_DISPLAY_COMPUTE },
		{ "PIDS", SMI_DISPLAY_PIDS },
		{ "PERFORMANCE", SMI_DISPLAY_PERFORMANCE },
		{ "PAGE_RETIREMENT", SMI_DISPLAY_PAGE_RETIREMENT },
		{ "SUPPORTED_CLOCKS", SMI_DISPLAY_NOTHING },
		{ "ACCOUNTING", SMI_DISPLAY_NOTHING },
		{ "ENCODER_STATS", SMI_DISPLAY_NOTHING },
		{ "SUPPORTED_GPU_TARGET_TEMP", SMI_DISPLAY_NOTHING },
		{ "VOLTAGE", SMI_DISPLAY_NOTHING },
		{ "FBC_STATS", SMI_DISPLAY_NOTHING },
		{ "ROW_REMAPPER", SMI_DISPLAY_NOTHING },
		{ "RESET_STATUS", SMI_DISPLAY_NOTHING },
		{ "GSP_FIRMWARE_VERSION", SMI_DISPLAY_NOTHING },
		{ "POWER_SMOOTHING", SMI_DISPLAY_NOTHING },
		{ "POWER_PROFILES", SMI_DISPLAY_NOTHING },
	};
	const char *p = list;
	char item[64];
	size_t i;

	a->display = 0;
	while (next_item(&p, item, sizeof(item))) {
		for (i = 0; i < ARRAY_SIZE(types); i++)
			if (strcasecmp(item, types[i].name) == 0)
				break;
		if (i == ARRAY_SIZE(types))
			return arg_error(err, errlen,
					 "\"%s\" is not a valid display type for -d: use any of MEMORY, UTILIZATION, ECC, TEMPERATURE, POWER, CLOCK, COMPUTE, PIDS, PERFORMANCE, PAGE_RETIREMENT, comma-separated.",
					 item);
		a->display |= types[i].bit;
	}
	return SMI_EXIT_OK;
}

/* dmon -o: D and T, nvidia-smi's letters, in any order. */
static int parse_dmon_options(const char *v, struct smi_args *a, char *err,
			      size_t errlen)
{
	const char *c;

	if (!*v)
		return arg_error(err, errlen,
				 "dmon -o needs D (date), T (time) or DT.");
	for (c = v; *c; c++) {
		if (*c == 'D')
			a->dmon_date = true;
		else if (*c == 'T')
			a->dmon_time = true;
		else
			return arg_error(err, errlen,
					 "Invalid option '%c' in dmon -o %s: use D (date), T (time) or DT.",
					 *c, v);
	}
	return SMI_EXIT_OK;
}

/* "tgpu-smi dmon [-i ID] [-c COUNT] [-d SECS] [-s GROUPS] [-o DT] [--format csv]" */
static int parse_dmon(int argc, char *const argv[], struct smi_args *a,
		      char *err, size_t errlen)
{
	static const char letters[] = "pucvmet";   /* enum smi_dmon_group order */
	static const struct option longopts[] = {
		{ "help", no_argument, NULL, 'h' },
		{ "id", required_argument, NULL, 'i' },
		{ "count", required_argument, NULL, 'c' },
		{ "delay", required_argument, NULL, 'd' },
		{ "select", required_argument, NULL, 's' },
		{ "options", required_argument, NULL, 'o' },
		{ "format", required_argument, NULL, OPT_FORMAT },
		{ NULL, 0, NULL, 0 },
	};
	const char *c;
	char buf[8];
	int opt, rc;

	a->mode = SMI_MODE_DMON;
	a->dmon_delay = 1;
	a->dmon_groups = SMI_DMON_DEFAULT;
	/* argv[0] is "dmon": getopt_long() starts after it */
	while ((opt = getopt_long(argc, argv, "+:hi:c:d:s:o:", longopts, NULL)) != -1) {
		switch (opt) {
		case 'h':
			a->mode = SMI_MODE_HELP;
			return SMI_EXIT_OK;
		case 'i':
			if (!valid_id(optarg))
				return bad_id(optarg, err, errlen);
			a->id = optarg;
			break;
		case 'c':
			if (!parse_int(optarg, 1, INT32_MAX, &a->dmon_count))
				return arg_error(err, errlen,
						 "Invalid sample count \"%s\" for dmon -c: give a whole number of at least 1.",
						 optarg);
			break;
		case 'd':
			if (!parse_int(optarg, 1, 86400, &a->dmon_delay))
				return arg_error(err, errlen,
						 "Invalid delay \"%s\" for dmon -d: give whole seconds, 1 to 86400.",
						 optarg);
			break;
		case 's':
			if (!*optarg)
				return arg_error(err, errlen,
						 "dmon -s needs metric groups: any of p, u, c, v, m, e, t (default puc).");
			a->dmon_groups = 0;
			for (c = optarg; *c; c++) {
				const char *l = strchr(letters, *c);

				if (!l)
					return arg_error(err, errlen,
							 "Invalid metric group '%c' in dmon -s %s: use any of p, u, c, v, m, e, t.",
							 *c, optarg);
				a->dmon_groups |= 1u << (l - letters);
			}
			break;
		case 'o':
			rc = parse_dmon_options(optarg, a, err, errlen);
			if (rc)
				return rc;
			break;
		case OPT_FORMAT:
			if (strcmp(optarg, "csv") != 0)
				return arg_error(err, errlen,
						 "\"%s\" is not a valid dmon format: use --format csv.",
						 optarg);
			a->dmon_csv = true;
			break;
		case ':':
			switch (optopt) {
			case 'i':
				return bad_id("", err, errlen);
			case 'c':
				return arg_error(err, errlen,
						 "Invalid sample count \"\" for dmon -c: give a whole number of at least 1.");
			case 'd':
				return arg_error(err, errlen,
						 "Invalid delay \"\" for dmon -d: give whole seconds, 1 to 86400.");
			case 'o':
				return parse_dmon_options("", a, err, errlen);
			case OPT_FORMAT:
				return arg_error(err, errlen,
						 "dmon --format needs a value: use --format csv.");
			default:
				return arg_error(err, errlen,
						 "dmon -s needs metric groups: any of p, u, c, v, m, e, t (default puc).");
			}
		default:
			return arg_error(err, errlen,
					 "Unknown dmon option \"%s\". Please run 'tgpu-smi -h' for help.",
					 refused_arg(argv, buf, sizeof(buf)));
		}
	}
	if (optind < argc)
		return arg_error(err, errlen,
				 "Unknown dmon option \"%s\". Please run 'tgpu-smi -h' for help.",
				 argv[optind]);
	return SMI_EXIT_OK;
}

int smi_parse_args(int argc, char *const argv[], struct smi_args *a,
		   char *err, size_t errlen)
{
	static const struct option longopts[] = {
		{ "help", no_argument, NULL, 'h' },
		{ "query", no_argument, NULL, 'q' },
		{ "list-gpus", no_argument, NULL, 'L' },
		{ "id", required_argument, NULL, 'i' },
		{ "query-gpu", required_argument, NULL, OPT_QUERY_GPU },
		{ "query-compute-apps", required_argument, NULL, OPT_QUERY_APPS },
		{ "query-retired-pages", required_argument, NULL, OPT_QUERY_RETIRED },
		{ "format", required_argument, NULL, OPT_FORMAT },
		{ "display", required_argument, NULL, 'd' },
		{ "help-query-gpu", no_argument, NULL, OPT_HELP_QUERY_GPU },
		{ "help-query-compute-apps", no_argument, NULL, OPT_HELP_QUERY_APPS },
		{ "help-query-retired-pages", no_argument, NULL, OPT_HELP_QUERY_RETIRED },
		{ "version", no_argument, NULL, OPT_VERSION },
		{ NULL, 0, NULL, 0 },
	};
	const char *query_gpu = NULL, *query_apps = NULL, *query_retired = NULL;
	const char *format = NULL, *display = NULL;
	const struct smi_field *(*find)(const char *) = NULL;
	const char *query = NULL, *opt_name = NULL;
	int modes = 0, rc, opt;
	char buf[8];

	memset(a, 0, sizeof(*a));
	a->mode = SMI_MODE_SUMMARY;
	if (errlen)
		err[0] = '\0';
	/* getopt_long()'s own messages are not nvidia-smi's: ours follow */
	opterr = 0;
	optind = 0;

	/* A subcommand, as in nvidia-smi, comes first. */
	if (argc > 1 && strcmp(argv[1], "dmon") == 0)
		return parse_dmon(argc - 1, argv + 1, a, err, errlen);

	while ((opt = getopt_long(argc, argv, "+:hqLi:d:", longopts, NULL)) != -1) {
		switch (opt) {
		case 'h':
			a->mode = SMI_MODE_HELP;
			return SMI_EXIT_OK;
		case OPT_HELP_QUERY_GPU:
			a->mode = SMI_MODE_HELP_QUERY_GPU;
			return SMI_EXIT_OK;
		case OPT_HELP_QUERY_APPS:
			a->mode = SMI_MODE_HELP_QUERY_APPS;
			return SMI_EXIT_OK;
		case OPT_HELP_QUERY_RETIRED:
			a->mode = SMI_MODE_HELP_QUERY_RETIRED_PAGES;
			return SMI_EXIT_OK;
		case OPT_VERSION:
			a->mode = SMI_MODE_VERSION;
			modes++;
			break;
		case 'q':
			a->mode = SMI_MODE_QUERY;
			modes++;
			break;
		case 'L':
			a->mode = SMI_MODE_LIST;
			modes++;
			break;
		case OPT_QUERY_GPU:
			query_gpu = optarg;
			a->mode = SMI_MODE_QUERY_GPU;
			modes++;
			break;
		case OPT_QUERY_APPS:
			query_apps = optarg;
			a->mode = SMI_MODE_QUERY_APPS;
			modes++;
			break;
		case OPT_QUERY_RETIRED:
			query_retired = optarg;
			a->mode = SMI_MODE_QUERY_RETIRED_PAGES;
			modes++;
			break;
		case OPT_FORMAT:
			format = optarg;
			break;
		case 'd':
			display = optarg;
			break;
		case 'i':
			if (!valid_id(optarg))
				return bad_id(optarg, err, errlen);
			a->id = optarg;
			break;
		case ':':
			switch (optopt) {
			case OPT_QUERY_GPU:
				return arg_error(err, errlen, "Option --query-gpu needs a list of fields.");
			case OPT_QUERY_APPS:
				return arg_error(err, errlen,
						 "Option --query-compute-apps needs a list of fields.");
			case OPT_QUERY_RETIRED:
				return arg_error(err, errlen,
						 "Option --query-retired-pages needs a list of fields.");
			case 'd':
				return arg_error(err, errlen,
						 "Option -d (--display) needs a list of display types, e.g. ECC,POWER.");
			case OPT_FORMAT:
				return arg_error(err, errlen, "Option --format needs a value, e.g. csv.");
			default:
				return bad_id("", err, errlen);
			}
		default:
			return arg_error(err, errlen,
					 "Unknown option \"%s\". Please run 'tgpu-smi -h' for help.",
					 refused_arg(argv, buf, sizeof(buf)));
		}
	}
	if (optind < argc)
		return arg_error(err, errlen,
				 "Unknown option \"%s\". Please run 'tgpu-smi -h' for help.",
				 argv[optind]);

	if (modes > 1)
		return arg_error(err, errlen,
				 "Invalid combination of input arguments. Please run 'tgpu-smi -h' for help.");
	if (display && a->mode != SMI_MODE_QUERY)
		return arg_error(err, errlen,
				 "-d (--display) is only valid with -q. Please run 'tgpu-smi -h' for help.");
	if (display) {
		rc = parse_display(display, a, err, errlen);
		if (rc)
			return rc;
	}
	if (query_gpu) {
		query = query_gpu;
		opt_name = "--query-gpu";
		find = smi_field_lookup;
	} else if (query_apps) {
		query = query_apps;
		opt_name = "--query-compute-apps";
		find = smi_app_field_lookup;
	} else if (query_retired) {
		query = query_retired;
		opt_name = "--query-retired-pages";
		find = smi_retired_field_lookup;
	}
	if (format && !query)
		return arg_error(err, errlen,
				 "--format is only valid with --query-gpu, --query-compute-apps or --query-retired-pages.");
	if (query) {
		if (!format)
			return arg_error(err, errlen, "%s needs --format=csv[,noheader][,nounits].",
					 opt_name);
		rc = parse_fields(query, opt_name, find, a, err, errlen);
		if (rc)
			return rc;
		rc = parse_format(format, a, err, errlen);
		if (rc)
			return rc;
	}
	return SMI_EXIT_OK;
}

int smi_exit_code(tgpu_status st)
{
	switch (st) {
	case TGPU_SUCCESS:
		return SMI_EXIT_OK;
	case TGPU_ERROR_INVALID_VALUE:
		return SMI_EXIT_INVALID_ARG;
	case TGPU_ERROR_NO_DRIVER:
		return SMI_EXIT_NO_DRIVER;
	case TGPU_ERROR_NO_DEVICE:
	case TGPU_ERROR_INVALID_DEVICE:
		return SMI_EXIT_NOT_FOUND;
	case TGPU_ERROR_PERMISSION_DENIED:
		return SMI_EXIT_NO_PERMISSION;
	case TGPU_ERROR_DEVICE_UNAVAILABLE:
		return SMI_EXIT_GPU_LOST;
	default:
		return SMI_EXIT_OTHER;
	}
}

int smi_select(const char *id, const struct tgpu_device_info *devs, int n)
{
	struct tu_pci_addr addr;
	int i;

	if (id[0] && strspn(id, "0123456789") == strlen(id)) {
		long idx = strtol(id, NULL, 10);

		for (i = 0; i < n; i++)
			if (devs[i].ordinal == idx)
				return i;
		return -1;
	}
	if (!tu_parse_pci_bus_id(id, &addr))
		return -1;
	for (i = 0; i < n; i++) {
		if (devs[i].pci_domain == addr.domain && devs[i].pci_bus == addr.bus &&
		    devs[i].pci_dev == addr.dev && devs[i].pci_func == addr.func)
			return i;
	}
	return -1;
}
