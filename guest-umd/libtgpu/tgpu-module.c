// SPDX-License-Identifier: MIT
/*
 * libtgpu: modules (compute code in VRAM), functions and launches.
 *
 * A module's kernels are assembled (or decoded from a TGPK image) when it
 * is loaded, and their code is written to one VRAM block, each kernel at
 * a 256-byte boundary.  A launch is one submission on the stream's
 * compute queue: the parameters first, copied into the command ring, then
 * the compute class methods that point at them.
 */
#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <tgpu/channel.h>
#include <tgpu/isa.h>

#include "tgpu-kimage.h"
#include "tgpu-cmdbuf.h"
#include "tgpu-internal.h"

#define NAME_MAX_LEN    63
#define CODE_ALIGN      256u
/* SET_OBJECT (2) + PROGRAM (4) + GRID..PARAM_SIZE (11) + LAUNCH (2) */
#define LAUNCH_DWORDS   19

struct tgpu_function {
	tgpu_module *mod;
	char name[NAME_MAX_LEN + 1];
	uint64_t va;
	uint32_t ninsns, shared_size, param_size;
};

struct tgpu_module {
	tgpu_context *ctx;
	struct tu_bo *code;
	size_t nfn;
	struct tgpu_function *fn;
};

/* ---- assembly sources with .entry ----------------------------------------- */

struct entry {
	char name[NAME_MAX_LEN + 1];
	size_t first_line;      /* the .entry line, 1-based */
};

static bool blank_or_comment(const char *p, const char *end)
{
	while (p < end && (*p == ' ' || *p == '\t' || *p == '\r'))
		p++;
	return p == end || *p == ';' || (p + 1 < end && p[0] == '/' && p[1] == '/');
}

/*
 * If the line [p, end) is ".entry NAME", put NAME in name and return 1;
 * 0 if it is another line; -1 (message set) for a bad .entry line.
 */
static int parse_entry(const char *p, const char *end, size_t line, char *name)
{
	size_t n = 0;

	while (p < end && (*p == ' ' || *p == '\t'))
		p++;
	if (end - p < 6 || strncasecmp(p, ".entry", 6) != 0 ||
	    (end - p > 6 && p[6] != ' ' && p[6] != '\t'))
		return 0;
	p += 6;
	while (p < end && (*p == ' ' || *p == '\t'))
		p++;
	if (p == end || !(isalpha((unsigned char)*p) || *p == '_')) {
		tu_fail(TGPU_ERROR_INVALID_IMAGE,
			"%zu: .entry needs a kernel name (letters, digits, '_', not starting with a digit)",
			line);
		return -1;
	}
	while (p < end && (isalnum((unsigned char)*p) || *p == '_')) {
		if (n == NAME_MAX_LEN) {
			tu_fail(TGPU_ERROR_INVALID_IMAGE,
				"%zu: kernel name longer than %d characters", line,
				NAME_MAX_LEN);
			return -1;
		}
		name[n++] = *p++;
	}
	name[n] = 0;
	if (!blank_or_comment(p, end)) {
		tu_fail(TGPU_ERROR_INVALID_IMAGE,
			"%zu: unexpected text after .entry %s", line, name);
		return -1;
	}
	return 1;
}

/*
 * Split src into kernels: each gets a copy of the whole text with every
 * line that is not its own blanked, so the assembler's LINE:COL messages
 * stay true to the file.
 */
static tgpu_status assemble_source(const char *src, struct entry **entp,
				   struct tgpu_kernel_image **imgp, size_t *np)
{
	size_t len = strlen(src), nent = 0, line = 1, i, k;
	struct entry *ent = NULL;
	struct tgpu_kernel_image *img;
	const char *p = src;
	tgpu_status st = TGPU_SUCCESS;
	char name[NAME_MAX_LEN + 1];

	/* pass 1: the .entry lines */
	while (*p) {
		const char *e = strchr(p, '\n');
		int r;

		if (!e)
			e = p + strlen(p);
		r = parse_entry(p, e, line, name);
		if (r < 0) {
			free(ent);
			return TGPU_ERROR_INVALID_IMAGE;
		}
		if (r > 0) {
			struct entry *n = realloc(ent, (nent + 1) * sizeof(*ent));

			if (!n) {
				free(ent);
				return tu_fail(TGPU_ERROR_OUT_OF_MEMORY, "out of host memory");
			}
			ent = n;
			for (k = 0; k < nent; k++) {
				if (!strcmp(ent[k].name, name)) {
					free(ent);
					return tu_fail(TGPU_ERROR_INVALID_IMAGE,
						       "%zu: kernel %s is already defined at line %zu",
						       line, name, ent[k].first_line);
				}
			}
			snprintf(ent[nent].name, sizeof(ent[nent].name), "%s", name);
			ent[nent++].first_line = line;
		}
		p = *e ? e + 1 : e;
		line++;
	}
	if (!nent) {
		ent = malloc(sizeof(*ent));
		if (!ent)
			return tu_fail(TGPU_ERROR_OUT_OF_MEMORY, "out of host memory");
		snprintf(ent->name, sizeof(ent->name), "main");
		ent->first_line = 0;
		nent = 1;
	}
	img = calloc(nent, sizeof(*img));
	if (!img) {
		free(ent);
		return tu_fail(TGPU_ERROR_OUT_OF_MEMORY, "out of host memory");
	}

	/* pass 2: assemble each kernel's lines */
	for (k = 0; k < nent && !st; k++) {
		size_t from = ent[k].first_line;
		size_t to = k + 1 < nent ? ent[k + 1].first_line : SIZE_MAX;
		char *text = malloc(len + 1), *q = text;
		char err[256];

		if (!text) {
			st = tu_fail(TGPU_ERROR_OUT_OF_MEMORY, "out of host memory");
			break;
		}
		for (p = src, line = 1; *p; line++) {
			const char *e = strchr(p, '\n');

			if (!e)
				e = p + strlen(p);
			if (line > from && line < to) {
				memcpy(q, p, (size_t)(e - p));
				q += e - p;
			} else if (line < ent[0].first_line && !blank_or_comment(p, e)) {
				st = tu_fail(TGPU_ERROR_INVALID_IMAGE,
					     "%zu: code before the first .entry belongs to no kernel",
					     line);
			}
			if (*e)
				*q++ = '\n';
			p = *e ? e + 1 : e;
		}
		*q = 0;
		if (!st && tgpu_assemble(text, &img[k], err, sizeof(err)))
			st = tu_fail(TGPU_ERROR_INVALID_IMAGE, "kernel %s: %s",
				     ent[k].name, err);
		free(text);
	}
	if (st) {
		for (i = 0; i < nent; i++)
			tgpu_kernel_image_free(&img[i]);
		free(img);
		free(ent);
		return st;
	}
	*entp = ent;
	*imgp = img;
	*np = nent;
	return TGPU_SUCCESS;
}

/* ---- loading -------------------------------------------------------------- */

static tgpu_status module_create(tgpu_context *ctx, const struct entry *ent,
				 struct tgpu_kernel_image *img, size_t n,
				 tgpu_module **out)
{
	uint64_t size = 0, off = 0;
	tgpu_module *m;
	tgpu_status st;
	size_t k;

	for (k = 0; k < n; k++) {
		if (!img[k].ninsns)
			return tu_fail(TGPU_ERROR_INVALID_IMAGE,
				       "kernel %s has no instructions", ent[k].name);
		if (img[k].param_size > TGPU_GR_PARAM_MAX || img[k].param_size % 4)
			return tu_fail(TGPU_ERROR_INVALID_IMAGE,
				       "kernel %s declares %" PRIu32 " parameter bytes: the compute engine takes a multiple of 4 up to %d",
				       ent[k].name, img[k].param_size, TGPU_GR_PARAM_MAX);
		if (img[k].shared_size > TGPU_GR_SHARED_MAX)
			return tu_fail(TGPU_ERROR_INVALID_IMAGE,
				       "kernel %s declares %" PRIu32 " bytes of shared memory, at most %u",
				       ent[k].name, img[k].shared_size, TGPU_GR_SHARED_MAX);
		if ((uint64_t)img[k].ninsns * 8 > TGPU_GR_PROGRAM_MAX)
			return tu_fail(TGPU_ERROR_INVALID_IMAGE,
				       "kernel %s has %" PRIu32 " instructions, the compute engine runs at most %u",
				       ent[k].name, img[k].ninsns, TGPU_GR_PROGRAM_MAX / 8);
		size += ((uint64_t)img[k].ninsns * 8 + CODE_ALIGN - 1) & ~(uint64_t)(CODE_ALIGN - 1);
	}
	m = calloc(1, sizeof(*m));
	if (!m)
		return tu_fail(TGPU_ERROR_OUT_OF_MEMORY, "out of host memory");
	m->ctx = ctx;
	m->fn = calloc(n, sizeof(*m->fn));
	if (!m->fn) {
		free(m);
		return tu_fail(TGPU_ERROR_OUT_OF_MEMORY, "out of host memory");
	}
	st = tu_bo_create(ctx, size, false, true, &m->code);
	if (st) {
		free(m->fn);
		free(m);
		return st;
	}
	for (k = 0; k < n; k++) {
		struct tgpu_function *f = &m->fn[k];
		uint64_t *dst = (uint64_t *)((char *)m->code->cpu + off);
		uint32_t i;

		for (i = 0; i < img[k].ninsns; i++)
			dst[i] = img[k].insns[i];       /* little-endian guest */
		f->mod = m;
		snprintf(f->name, sizeof(f->name), "%s", ent[k].name);
		f->va = m->code->va + off;
		f->ninsns = img[k].ninsns;
		f->shared_size = img[k].shared_size;
		f->param_size = img[k].param_size;
		off += ((uint64_t)img[k].ninsns * 8 + CODE_ALIGN - 1) & ~(uint64_t)(CODE_ALIGN - 1);
	}
	m->nfn = n;
	pthread_mutex_lock(&ctx->lock);
	if (!tu_list_add(&ctx->modules, m)) {
		pthread_mutex_unlock(&ctx->lock);
		tu_bo_destroy(ctx, m->code);
		free(m->fn);
		free(m);
		return tu_fail(TGPU_ERROR_OUT_OF_MEMORY, "out of host memory");
	}
	pthread_mutex_unlock(&ctx->lock);
	for (k = 0; k < n; k++) {
		if (!tu_handle_add(&m->fn[k], TU_H_FUNCTION)) {
			tu_module_free(m);
			return tu_fail(TGPU_ERROR_OUT_OF_MEMORY, "out of host memory");
		}
	}
	if (!tu_handle_add(m, TU_H_MODULE)) {
		tu_module_free(m);
		return tu_fail(TGPU_ERROR_OUT_OF_MEMORY, "out of host memory");
	}
	*out = m;
	return TGPU_SUCCESS;
}

tgpu_status tgpu_module_load_data(tgpu_context *ctx, tgpu_module **module,
				  const void *image, size_t size)
{
	struct tgpu_kernel_image *img = NULL;
	struct entry *ent = NULL;
	tgpu_status st;
	size_t n = 0, k;

	if (!module || !image)
		return tu_fail(TGPU_ERROR_INVALID_VALUE, "tgpu_module_load_data: %s is NULL",
			       module ? "image" : "module");
	st = tu_ctx_enter(ctx, "tgpu_module_load_data");
	if (st)
		return st;
	if (size >= 4 && !memcmp(image, KIMAGE_MAGIC, 4)) {
		char err[256];
		int r;

		img = calloc(1, sizeof(*img));
		ent = calloc(1, sizeof(*ent));
		if (!img || !ent) {
			free(img);
			free(ent);
			return tu_fail(TGPU_ERROR_OUT_OF_MEMORY, "out of host memory");
		}
		snprintf(ent->name, sizeof(ent->name), "main");
		n = 1;
		r = kimage_decode(image, size, 0, img, err, sizeof(err));
		if (r) {
			free(img);
			free(ent);
			return tu_fail(r == -ENOMEM ? TGPU_ERROR_OUT_OF_MEMORY :
				       TGPU_ERROR_INVALID_IMAGE,
				       "tgpu_module_load_data: not a valid TGPK kernel image: %s", err);
		}
	} else {
		char *text;

		if (!size)
			size = strlen(image);
		text = malloc(size + 1);
		if (!text)
			return tu_fail(TGPU_ERROR_OUT_OF_MEMORY, "out of host memory");
		memcpy(text, image, size);
		text[size] = 0;
		for (k = strlen(text); k < size; k++) {
			if (text[k]) {
				size_t at = strlen(text);

				free(text);
				return tu_fail(TGPU_ERROR_INVALID_IMAGE,
					       "tgpu_module_load_data: the image is neither a TGPK file nor assembly text (a NUL byte at offset %zu)",
					       at);
			}
		}
		st = assemble_source(text, &ent, &img, &n);
		free(text);
		if (st)
			return tu_fail_wrap(st, "tgpu_module_load_data");
	}
	st = module_create(ctx, ent, img, n, module);
	for (k = 0; k < n; k++)
		tgpu_kernel_image_free(&img[k]);
	free(img);
	free(ent);
	return st;
}

tgpu_status tgpu_module_load(tgpu_context *ctx, tgpu_module **module,
			     const char *path)
{
	tgpu_status st;
	uint8_t *buf;
	size_t len;
	int r;

	if (!path)
		return tu_fail(TGPU_ERROR_INVALID_VALUE, "tgpu_module_load: path is NULL");
	r = kimage_read_file(path, &buf, &len);
	if (r)
		return tu_fail(r == -ENOMEM ? TGPU_ERROR_OUT_OF_MEMORY :
			       r == -ENOENT ? TGPU_ERROR_NOT_FOUND : TGPU_ERROR_OS,
			       "tgpu_module_load: cannot read %s: %s", path, strerror(-r));
	st = tgpu_module_load_data(ctx, module, buf, len);
	free(buf);
	if (st && st != TGPU_ERROR_INVALID_CONTEXT)
		return tu_fail_wrap(st, "%s", path);
	return st;
}

void tu_module_free(tgpu_module *m)
{
	tgpu_context *ctx = m->ctx;
	size_t k;

	tu_handle_remove(m);
	for (k = 0; k < m->nfn; k++)
		tu_handle_remove(&m->fn[k]);
	pthread_mutex_lock(&ctx->lock);
	tu_list_remove(&ctx->modules, m);
	pthread_mutex_unlock(&ctx->lock);
	/* the unbind waits for work that may still run the code */
	tu_bo_destroy(ctx, m->code);
	free(m->fn);
	free(m);
}

tgpu_status tgpu_module_unload(tgpu_module *module)
{
	if (!tu_handle_valid(module, TU_H_MODULE))
		return tu_fail(TGPU_ERROR_INVALID_HANDLE,
			       "tgpu_module_unload: %p is not a loaded module", (void *)module);
	tu_module_free(module);
	return TGPU_SUCCESS;
}

tgpu_status tgpu_module_get_function(tgpu_function **fn, tgpu_module *module,
				     const char *name)
{
	tgpu_status st;
	size_t k;

	if (!fn || !name)
		return tu_fail(TGPU_ERROR_INVALID_VALUE, "tgpu_module_get_function: %s is NULL",
			       fn ? "name" : "fn");
	if (!tu_handle_valid(module, TU_H_MODULE))
		return tu_fail(TGPU_ERROR_INVALID_HANDLE,
			       "tgpu_module_get_function: %p is not a loaded module", (void *)module);
	st = tu_ctx_enter(module->ctx, "tgpu_module_get_function");
	if (st)
		return st;
	for (k = 0; k < module->nfn; k++) {
		if (!strcmp(module->fn[k].name, name)) {
			*fn = &module->fn[k];
			return TGPU_SUCCESS;
		}
	}
	return tu_fail(TGPU_ERROR_NOT_FOUND,
		       "tgpu_module_get_function: the module has no kernel \"%s\" (it has %zu: \"%s\"%s)",
		       name, module->nfn, module->fn[0].name,
		       module->nfn > 1 ? ", ..." : "");
}

tgpu_status tgpu_function_get_info(tgpu_function *fn,
				   struct tgpu_function_info *info)
{
	if (!info)
		return tu_fail(TGPU_ERROR_INVALID_VALUE, "tgpu_function_get_info: info is NULL");
	if (!tu_handle_valid(fn, TU_H_FUNCTION))
		return tu_fail(TGPU_ERROR_INVALID_HANDLE,
			       "tgpu_function_get_info: %p is not a function of a loaded module",
			       (void *)fn);
	info->ninsns = fn->ninsns;
	info->shared_size = fn->shared_size;
	info->param_size = fn->param_size;
	info->max_threads_per_block = TGPU_GR_BLOCK_MAX;
	return TGPU_SUCCESS;
}

/* ---- launch --------------------------------------------------------------- */

tgpu_status tgpu_launch_kernel(tgpu_function *fn, unsigned int grid_x,
			       unsigned int grid_y, unsigned int grid_z,
			       unsigned int block_x, unsigned int block_y,
			       unsigned int block_z, unsigned int shared_bytes,
			       tgpu_stream *stream, const void *params,
			       size_t param_size)
{
	const unsigned int grid[3] = { grid_x, grid_y, grid_z };
	const unsigned int block[3] = { block_x, block_y, block_z };
	uint64_t threads = (uint64_t)block_x * block_y * block_z, shared;
	uint32_t psize, poff, *pp;
	uint64_t va, pva, code;
	struct tu_cb cb;
	tgpu_context *ctx;
	tgpu_stream *s;
	tgpu_status st;
	char *cpu;
	int i;

	if (!tu_handle_valid(fn, TU_H_FUNCTION))
		return tu_fail(TGPU_ERROR_INVALID_HANDLE,
			       "tgpu_launch_kernel: %p is not a function of a loaded module",
			       (void *)fn);
	ctx = fn->mod->ctx;
	st = tu_ctx_enter(ctx, "tgpu_launch_kernel");
	if (!st)
		st = tu_stream_resolve(ctx, stream, &s, "tgpu_launch_kernel");
	if (st)
		return st;
	for (i = 0; i < 3; i++) {
		if (!grid[i] || grid[i] > TGPU_GR_GRID_MAX)
			return tu_fail(TGPU_ERROR_INVALID_VALUE,
				       "tgpu_launch_kernel(%s): grid %c is %u, must be 1..%d",
				       fn->name, "xyz"[i], grid[i], TGPU_GR_GRID_MAX);
		if (!block[i])
			return tu_fail(TGPU_ERROR_INVALID_VALUE,
				       "tgpu_launch_kernel(%s): block %c is 0", fn->name, "xyz"[i]);
	}
	if (threads > TGPU_GR_BLOCK_MAX)
		return tu_fail(TGPU_ERROR_INVALID_VALUE,
			       "tgpu_launch_kernel(%s): %ux%ux%u = %" PRIu64 " threads per block, at most %d",
			       fn->name, block_x, block_y, block_z, threads, TGPU_GR_BLOCK_MAX);
	shared = (uint64_t)fn->shared_size + shared_bytes;
	if (shared > TGPU_GR_SHARED_MAX)
		return tu_fail(TGPU_ERROR_INVALID_VALUE,
			       "tgpu_launch_kernel(%s): %" PRIu32 " bytes of .shared plus %u dynamic is more than the %u bytes a block can have",
			       fn->name, fn->shared_size, shared_bytes, TGPU_GR_SHARED_MAX);
	if (param_size != fn->param_size)
		return tu_fail(TGPU_ERROR_INVALID_VALUE,
			       "tgpu_launch_kernel(%s): %zu parameter bytes given, the kernel's .param says %" PRIu32,
			       fn->name, param_size, fn->param_size);
	if (param_size && !params)
		return tu_fail(TGPU_ERROR_INVALID_VALUE,
			       "tgpu_launch_kernel(%s): params is NULL", fn->name);
	/* param_size is the kernel's .param: at most TGPU_GR_PARAM_MAX */
	psize = (uint32_t)((param_size + 3) & ~(size_t)3);
	poff = (psize + 15) & ~15u;

	tu_stream_lock(s);
	st = tu_stream_reserve(s, poff + LAUNCH_DWORDS * 4, (void **)&cpu, &va);
	if (st)
		goto out;
	if (psize) {
		memcpy(cpu, params, param_size);
		memset(cpu + param_size, 0, psize - param_size);
	}
	pva = va;
	code = fn->va;
	pp = (uint32_t *)(cpu + poff);
	cb.p = pp;
	cb.n = 0;
	cb.cap = LAUNCH_DWORDS;
	{
		const uint32_t prog[3] = {
			(uint32_t)(code >> 32), (uint32_t)code, fn->ninsns * 8,
		};
		const uint32_t dims[10] = {
			grid_x, grid_y, grid_z, block_x, block_y, block_z,
			(uint32_t)shared, (uint32_t)(pva >> 32), (uint32_t)pva,
			psize,
		};

		tu_cb_method1(&cb, TGPU_M_SET_OBJECT, TGPU_CLASS_COMPUTE);
		tu_cb_method(&cb, TGPU_GR_M_SET_PROGRAM_UPPER, 3, prog);
		tu_cb_method(&cb, TGPU_GR_M_SET_GRID_X, 10, dims);
		tu_cb_method1(&cb, TGPU_GR_M_LAUNCH, 0);
	}
	st = tu_stream_commit(s, TGPU_ENGINE_KIND_COMPUTE, va + poff, cb.n, true);
out:
	tu_stream_unlock(s);
	return st;
}
