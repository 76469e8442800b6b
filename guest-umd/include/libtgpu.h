/* SPDX-License-Identifier: MIT */
/*
 * libtgpu: the tgpu user-mode driver.
 *
 * A CUDA-driver-style C API on top of the tgpu DRM render node.  Every
 * device call returns a tgpu_status; on failure the calling thread also
 * gets a human-readable message (tgpu_get_last_error_message()) that says
 * what went wrong and what to do about it.  The assembler (at the end of
 * this header) needs no device and follows the C library instead: it
 * returns 0 or a negative errno and fills a caller's message buffer, and
 * sets the thread's last-error message too.
 *
 * Lifetime and threading
 * ----------------------
 * - tgpu_init(0) must be called first.  It runs exactly once per process
 *   (pthread_once), from any thread, and may be called again and again:
 *   later calls return the result of the first.  Like cuInit() the result
 *   is sticky: if it failed (no device, driver not loaded, ...), every
 *   later call fails with the same status until the process restarts.
 * - Devices are enumerated once, at init, in PCI bus-id order (ordinal 0
 *   is the lowest bus id, as nvidia-smi and CUDA_DEVICE_ORDER=PCI_BUS_ID
 *   number them).  Each device's render node stays open for the rest of
 *   the process; tgpu_device handles are never freed and stay valid until
 *   exit, so they can be shared between threads freely.
 * - All functions are thread-safe.  The device table is immutable after
 *   init, so queries take no locks.
 * - The last-error message is thread-local.  It is only written by calls
 *   that fail (like errno): read it right after the failing call.
 *
 * Raw parameters (tgpu_device_get_param) are the enum drm_tgpu_param
 * values of the kernel uAPI header <tgpu_drm.h>; this header does not
 * include it so that it stays usable without the DRM headers.
 */
#ifndef LIBTGPU_H
#define LIBTGPU_H

#include <stddef.h>
#include <stdint.h>

#if defined(__cplusplus)
extern "C" {
#endif

#if defined(__GNUC__)
#define TGPU_API __attribute__((visibility("default")))
#else
#define TGPU_API
#endif

/*
 * Status codes.  Grouped like CUresult: 1-99 API usage, 100-199 devices,
 * 800-899 OS/permission problems, 999 unknown.
 */
typedef enum tgpu_status {
	TGPU_SUCCESS = 0,
	TGPU_ERROR_INVALID_VALUE = 1,       /* bad argument */
	TGPU_ERROR_OUT_OF_MEMORY = 2,       /* host allocation failed */
	TGPU_ERROR_NOT_INITIALIZED = 3,     /* tgpu_init() not called */
	TGPU_ERROR_INVALID_COMMANDS = 30,   /* malformed command buffer */
	TGPU_ERROR_NO_DEVICE = 100,         /* driver loaded, no tgpu device */
	TGPU_ERROR_INVALID_DEVICE = 101,    /* bad ordinal, handle or bus id */
	TGPU_ERROR_NO_DRIVER = 102,         /* tgpu.ko is not loaded */
	TGPU_ERROR_DEVICE_UNAVAILABLE = 103,/* device exists but is unusable */
	TGPU_ERROR_DEVICE_LOST = 104,       /* sticky: device gone mid-use */
	TGPU_ERROR_DEVICE_RESET = 106,      /* sticky: device reset, VRAM lost */
	TGPU_ERROR_DEVICE_DEGRADED = 107,   /* too many VRAM pages retired */
	TGPU_ERROR_OUT_OF_DEVICE_MEMORY = 105, /* VRAM or channels exhausted */
	TGPU_ERROR_INVALID_IMAGE = 200,     /* not a kernel image or source */
	TGPU_ERROR_INVALID_CONTEXT = 201,   /* bad or destroyed context */
	TGPU_ERROR_ECC_UNCORRECTABLE = 214, /* sticky: uncorrectable ECC error */
	TGPU_ERROR_INVALID_HANDLE = 400,    /* bad stream, event, module... */
	TGPU_ERROR_NOT_FOUND = 500,         /* no kernel of that name */
	TGPU_ERROR_NOT_READY = 600,         /* work not finished yet (query) */
	TGPU_ERROR_ILLEGAL_ADDRESS = 700,   /* sticky: GPU memory fault */
	TGPU_ERROR_LAUNCH_TIMEOUT = 702,    /* sticky: job ran too long */
	TGPU_ERROR_LAUNCH_FAILED = 719,     /* sticky: kernel or engine error */
	TGPU_ERROR_NOT_SUPPORTED = 801,     /* driver does not know the request */
	TGPU_ERROR_PERMISSION_DENIED = 802, /* render node not accessible */
	TGPU_ERROR_OS = 804,                /* unexpected system-call failure */
	TGPU_ERROR_UNKNOWN = 999,
} tgpu_status;

/* Opaque device handle; valid from tgpu_device_get() until process exit. */
typedef struct tgpu_device tgpu_device;

/* "0000:01:00.0" plus NUL, with room for 8-digit PCI domains. */
#define TGPU_PCI_BUS_ID_LEN 20

/*
 * Static properties of a device, read once at tgpu_init().  Dynamic state
 * has its own calls: memory in use and processes (Monitoring, below),
 * the SM clock in use (tgpu_device_get_param, DRM_TGPU_PARAM_CLK_SM_KHZ);
 * temperature and ECC counters come with the thermal and RAS work.
 */
struct tgpu_device_info {
	int ordinal;
	char name[64];              /* product name, "TGPU Tesla P100" */
	char chip[16];              /* chip name, "GP100", or "Unknown" */
	char arch_name[16];         /* "Pascal", "Maxwell", or "Unknown" */
	uint32_t chip_id;           /* raw BOOT_0 */
	uint32_t arch;              /* BOOT_0 architecture */
	uint32_t impl;              /* BOOT_0 implementation */
	uint32_t rev;               /* BOOT_0 revision */
	uint32_t iface_version;     /* hardware interface, major << 16 | minor */

	char pci_bus_id[TGPU_PCI_BUS_ID_LEN]; /* "0000:01:00.0" */
	uint32_t pci_domain;
	uint8_t pci_bus;
	uint8_t pci_dev;
	uint8_t pci_func;
	uint16_t pci_vendor_id;
	uint16_t pci_device_id;

	uint64_t vram_size;         /* bytes */
	uint64_t bar0_size;         /* bytes */
	uint64_t bar1_size;         /* bytes */
	uint32_t sm_count;
	uint32_t engines;           /* TGPU_ENGINE_* bits of <tgpu/regs.h> */
	uint32_t clk_sm_base_mhz;
	uint32_t clk_sm_boost_mhz;  /* the maximum SM clock */
	uint32_t clk_mem_mhz;
	uint32_t power_limit_mw;
	uint32_t msix_vectors;      /* MSI-X vectors the kernel driver enabled */

	char render_node[64];       /* "/dev/dri/renderD128" */
	char driver_name[32];       /* kernel driver, "tgpu" */
	char driver_version[32];    /* kernel driver, "major.minor.patch" */
	char driver_date[16];

	/* ECC as the driver set it up at probe (docs/hw/ecc.md) */
	uint32_t ecc_enabled;       /* 1: ECC on, 0: off or not supported */
	uint32_t retired_pages_sbe; /* VRAM pages retired for SBEs */
	uint32_t retired_pages_dbe; /* VRAM pages retired for a DBE */
};

/* Version of this library, "major.minor.patch".  Never fails. */
TGPU_API const char *tgpu_get_version_string(void);

/*
 * Short description of a status, and its enumerator name
 * ("TGPU_ERROR_NO_DEVICE").  Never NULL: unknown values get a fixed
 * "unrecognized" string.
 */
TGPU_API const char *tgpu_get_error_string(tgpu_status status);
TGPU_API const char *tgpu_get_error_name(tgpu_status status);

/* This thread's message for its most recent failed call. */
TGPU_API const char *tgpu_get_last_error_message(void);

/* Initialize the library; flags must be 0. */
TGPU_API tgpu_status tgpu_init(unsigned int flags);

TGPU_API tgpu_status tgpu_device_get_count(int *count);
TGPU_API tgpu_status tgpu_device_get(tgpu_device **dev, int ordinal);
/* bus_id as in lspci: "0000:01:00.0", "01:00.0" or nvidia-smi's 8-digit domain. */
TGPU_API tgpu_status tgpu_device_get_by_pci_bus_id(tgpu_device **dev,
						   const char *bus_id);
TGPU_API tgpu_status tgpu_device_get_info(const tgpu_device *dev,
					  struct tgpu_device_info *info);

/*
 * Read one enum drm_tgpu_param from the kernel driver now (not cached).
 * A parameter the driver does not know gives TGPU_ERROR_NOT_SUPPORTED.
 */
TGPU_API tgpu_status tgpu_device_get_param(const tgpu_device *dev,
					   uint32_t param, uint64_t *value);

/*
 * Contexts
 * --------
 * A context is one GPU virtual address space (its own open file of the
 * render node, so its own ASID and page tables in the kernel driver) with
 * everything made in it: memory, streams, events and modules.  Contexts
 * are explicit handles passed to every call; there is no per-thread
 * "current" context.  Every call on a context, its streams, events and
 * modules is thread-safe.
 *
 * Errors are sticky, as in CUDA: once work of a context fails on the GPU
 * (memory fault, kernel error, timeout, device lost), every later call on
 * the context returns that status (tgpu_ctx_get_reset_status() tells it
 * without failing), until the context is destroyed and a new one made.
 * Argument errors (TGPU_ERROR_INVALID_VALUE ...) are not sticky.
 */
typedef struct tgpu_context tgpu_context;
typedef struct tgpu_stream tgpu_stream;
typedef struct tgpu_event tgpu_event;
typedef struct tgpu_module tgpu_module;
typedef struct tgpu_function tgpu_function;

/* A GPU virtual address in a context. */
typedef uint64_t tgpu_deviceptr;

/* Create a context on dev; flags must be 0. */
TGPU_API tgpu_status tgpu_ctx_create(tgpu_context **ctx, tgpu_device *dev,
				     unsigned int flags);
/*
 * Wait for the context's work, then free everything in it (streams,
 * events, modules, memory; host pointers from tgpu_mem_alloc_host() and
 * tgpu_mem_host_map() become invalid).  Works on a context in error.
 */
TGPU_API tgpu_status tgpu_ctx_destroy(tgpu_context *ctx);
TGPU_API tgpu_status tgpu_ctx_get_device(tgpu_context *ctx, tgpu_device **dev);
/* Wait until all work submitted on all streams of ctx has finished. */
TGPU_API tgpu_status tgpu_ctx_synchronize(tgpu_context *ctx);
/*
 * The context's sticky error: TGPU_SUCCESS while it is usable, else the
 * status that broke it (the call itself succeeds).  It also asks the
 * driver (DRM_IOCTL_TGPU_RESET_STATUS, as GL_ARB_robustness does): a
 * context whose work hung is TGPU_ERROR_LAUNCH_TIMEOUT, and every context
 * made before a whole-device reset TGPU_ERROR_DEVICE_RESET.  Work of an
 * innocent context that an engine reset took down was run again: it
 * stays usable.  The message of the
 * failure is in tgpu_get_last_error_message() of the calling thread.
 */
TGPU_API tgpu_status tgpu_ctx_get_reset_status(tgpu_context *ctx,
					       tgpu_status *status);

/* A context's limits, as cuCtxSetLimit() has them. */
typedef enum tgpu_limit {
	/*
	 * The job timeout, in ms, of the driver queues the context's streams
	 * create from now on (a stream creates one per engine at its first
	 * work there: set it before the first work).  0, the default, is the
	 * driver's (tgpu.job_timeout_ms, 2 s unless set); at most 60000.
	 * Work still running after it is checked for progress, and a job
	 * that made none, or no more after the driver's re-arms, is reset:
	 * the context gets TGPU_ERROR_LAUNCH_TIMEOUT.  Longer than the
	 * driver's takes CAP_SYS_NICE: the first work on a stream then fails
	 * with TGPU_ERROR_PERMISSION_DENIED.
	 */
	TGPU_LIMIT_JOB_TIMEOUT_MS = 0,
} tgpu_limit;

/*
 * Set or read a limit.  TGPU_ERROR_INVALID_VALUE for an unknown limit or
 * a value out of its range, TGPU_ERROR_NOT_SUPPORTED when tgpu.ko is too
 * old for it (JOB_TIMEOUT_MS: driver 1.8).
 */
TGPU_API tgpu_status tgpu_ctx_set_limit(tgpu_context *ctx, tgpu_limit limit,
					uint64_t value);
TGPU_API tgpu_status tgpu_ctx_get_limit(tgpu_context *ctx, tgpu_limit limit,
					uint64_t *value);

/*
 * Memory
 * ------
 * Device memory is VRAM mapped into the context's address space.  Pinned
 * host memory is system memory that the copy engines reach directly (and
 * kernels too, at its device pointer).  Copies from or to other host
 * memory ("pageable") go through pinned staging buffers of the context.
 */
TGPU_API tgpu_status tgpu_mem_alloc(tgpu_context *ctx, tgpu_deviceptr *dptr,
				    size_t size);
TGPU_API tgpu_status tgpu_mem_free(tgpu_context *ctx, tgpu_deviceptr dptr);
/* Free and total VRAM of the context's device, in bytes. */
TGPU_API tgpu_status tgpu_mem_get_info(tgpu_context *ctx, size_t *free_bytes,
				       size_t *total_bytes);
/* Pinned host memory, zeroed; cached CPU mapping. */
TGPU_API tgpu_status tgpu_mem_alloc_host(tgpu_context *ctx, void **p,
					 size_t size);
TGPU_API tgpu_status tgpu_mem_free_host(tgpu_context *ctx, void *p);
/* The device pointer of p, anywhere inside a tgpu_mem_alloc_host() block. */
TGPU_API tgpu_status tgpu_mem_host_get_device_pointer(tgpu_context *ctx,
						      tgpu_deviceptr *dptr,
						      void *p);
/*
 * A CPU pointer to dptr (anywhere inside a tgpu_mem_alloc() block), through
 * the device's VRAM aperture (write-combined: fast to write, slow to
 * read).  The mapping lives until the block is freed.
 */
TGPU_API tgpu_status tgpu_mem_host_map(tgpu_context *ctx, void **p,
				       tgpu_deviceptr dptr);

/*
 * Copies and fills.  The synchronous calls return when the data has
 * arrived.  The _async calls are ordered on stream (NULL: the context's
 * default stream) and return at once, except that a copy from or to
 * pageable host memory returns only when the host memory may be reused
 * (like CUDA): after staging for htod, after the copy for dtoh.
 * Host-to-device copies run on copy engine 0, device-to-host ones on copy
 * engine 1, device-to-device copies and fills on copy engine 0.
 */
TGPU_API tgpu_status tgpu_memcpy_htod(tgpu_context *ctx, tgpu_deviceptr dst,
				      const void *src, size_t n);
TGPU_API tgpu_status tgpu_memcpy_dtoh(tgpu_context *ctx, void *dst,
				      tgpu_deviceptr src, size_t n);
TGPU_API tgpu_status tgpu_memcpy_dtod(tgpu_context *ctx, tgpu_deviceptr dst,
				      tgpu_deviceptr src, size_t n);
TGPU_API tgpu_status tgpu_memcpy_htod_async(tgpu_context *ctx,
					    tgpu_deviceptr dst, const void *src,
					    size_t n, tgpu_stream *stream);
TGPU_API tgpu_status tgpu_memcpy_dtoh_async(tgpu_context *ctx, void *dst,
					    tgpu_deviceptr src, size_t n,
					    tgpu_stream *stream);
TGPU_API tgpu_status tgpu_memcpy_dtod_async(tgpu_context *ctx,
					    tgpu_deviceptr dst,
					    tgpu_deviceptr src, size_t n,
					    tgpu_stream *stream);
/* n bytes of value; n 32-bit words of value (dst 4-byte aligned). */
TGPU_API tgpu_status tgpu_memset_d8(tgpu_context *ctx, tgpu_deviceptr dst,
				    uint8_t value, size_t n);
TGPU_API tgpu_status tgpu_memset_d32(tgpu_context *ctx, tgpu_deviceptr dst,
				     uint32_t value, size_t n);
TGPU_API tgpu_status tgpu_memset_d8_async(tgpu_context *ctx,
					  tgpu_deviceptr dst, uint8_t value,
					  size_t n, tgpu_stream *stream);
TGPU_API tgpu_status tgpu_memset_d32_async(tgpu_context *ctx,
					   tgpu_deviceptr dst, uint32_t value,
					   size_t n, tgpu_stream *stream);

/*
 * Streams
 * -------
 * A stream is an ordered sequence of work: each operation starts after
 * the previous one on the same stream has finished.  Work on different
 * streams runs concurrently where engines allow.  A stream is backed by
 * up to three kernel queues (compute, copy engine 0, copy engine 1, made
 * when first used) at the stream's priority.  Each context has a default
 * stream (pass NULL), an ordinary stream at priority 0 that does not
 * synchronize with the others.
 */
#define TGPU_STREAM_PRIORITY_LOWEST   0
#define TGPU_STREAM_PRIORITY_HIGHEST  3   /* runs before lower ones */

/* The engines a stream feeds, as the hardware's runlist numbers. */
enum tgpu_engine {
	TGPU_ENGINE_KIND_COMPUTE = 0,
	TGPU_ENGINE_KIND_COPY0 = 1,
	TGPU_ENGINE_KIND_COPY1 = 2,
};

/* flags must be 0; priority from LOWEST to HIGHEST. */
TGPU_API tgpu_status tgpu_stream_create(tgpu_context *ctx, tgpu_stream **stream,
					unsigned int flags, int priority);
/* Waits for the stream's work, then frees it.  NULL is refused. */
TGPU_API tgpu_status tgpu_stream_destroy(tgpu_stream *stream);
TGPU_API tgpu_status tgpu_stream_synchronize(tgpu_stream *stream);
/* TGPU_SUCCESS when all work is done, TGPU_ERROR_NOT_READY if not. */
TGPU_API tgpu_status tgpu_stream_query(tgpu_stream *stream);
/* Later work on stream waits for event's last record (GPU side). */
TGPU_API tgpu_status tgpu_stream_wait_event(tgpu_stream *stream,
					    tgpu_event *event);
/*
 * Submit a command buffer (pushbuffer dwords, methods as in
 * docs/hw/channels.md) to one engine of the stream, in stream order.  It
 * is checked first: header opcodes, counts that fit the buffer, methods
 * that are host methods or methods of the class bound to the subchannel
 * by SET_OBJECT in this buffer, the class being the engine's.  A buffer
 * that fails is refused with TGPU_ERROR_INVALID_COMMANDS and a message
 * naming the dword and the reason; the GPU never sees it.  Concurrent
 * submissions never interleave.  At most TGPU_COMMANDS_MAX dwords.
 */
#define TGPU_COMMANDS_MAX 65536
TGPU_API tgpu_status tgpu_stream_submit_commands(tgpu_stream *stream,
						 enum tgpu_engine engine,
						 const uint32_t *cmds,
						 size_t ndwords);

/*
 * Events
 * ------
 * An event marks a point in a stream.  Recording it writes a GPU
 * timestamp when the stream's earlier work has finished.
 */
TGPU_API tgpu_status tgpu_event_create(tgpu_context *ctx, tgpu_event **event,
				       unsigned int flags);
TGPU_API tgpu_status tgpu_event_destroy(tgpu_event *event);
TGPU_API tgpu_status tgpu_event_record(tgpu_event *event, tgpu_stream *stream);
TGPU_API tgpu_status tgpu_event_synchronize(tgpu_event *event);
/* TGPU_SUCCESS when recorded work is done, TGPU_ERROR_NOT_READY if not. */
TGPU_API tgpu_status tgpu_event_query(tgpu_event *event);
/* Milliseconds between two completed records, from GPU timestamps. */
TGPU_API tgpu_status tgpu_event_elapsed_time(float *ms, tgpu_event *start,
					     tgpu_event *end);
/*
 * A sync_file fd that becomes readable (poll/epoll POLLIN) when the
 * event's last record completes.  The caller closes it.
 */
TGPU_API tgpu_status tgpu_event_export_fd(tgpu_event *event, int *fd);

/*
 * Modules and kernels
 * -------------------
 * A module is compute code loaded into a context.  Its image is a kernel
 * image file as tgpu-as writes it ("TGPK": one kernel, named "main"), or
 * the NUL-terminated text of an assembly source, whose kernels each start
 * with a line ".entry NAME" (text without .entry is one kernel, "main").
 */
TGPU_API tgpu_status tgpu_module_load_data(tgpu_context *ctx,
					   tgpu_module **module,
					   const void *image, size_t size);
/* The same from a file (an image or a source, told apart by content). */
TGPU_API tgpu_status tgpu_module_load(tgpu_context *ctx, tgpu_module **module,
				      const char *path);
TGPU_API tgpu_status tgpu_module_unload(tgpu_module *module);
TGPU_API tgpu_status tgpu_module_get_function(tgpu_function **fn,
					      tgpu_module *module,
					      const char *name);

struct tgpu_function_info {
	uint32_t ninsns;
	uint32_t shared_size;     /* .shared: static shared memory, bytes */
	uint32_t param_size;      /* .param: parameter bytes a launch passes */
	uint32_t max_threads_per_block;
};

TGPU_API tgpu_status tgpu_function_get_info(tgpu_function *fn,
					    struct tgpu_function_info *info);

/*
 * Launch fn on a grid of CTAs of block threads each, in stream order.
 * shared_bytes is dynamic shared memory, added to the kernel's .shared.
 * params/param_size: the parameter bytes (param_size must equal the
 * kernel's .param size), copied at the call.
 */
TGPU_API tgpu_status tgpu_launch_kernel(tgpu_function *fn, unsigned int grid_x,
					unsigned int grid_y, unsigned int grid_z,
					unsigned int block_x,
					unsigned int block_y,
					unsigned int block_z,
					unsigned int shared_bytes,
					tgpu_stream *stream,
					const void *params, size_t param_size);

/*
 * Kernels: the assembler and disassembler of the compute engine's SIMT
 * instruction set (the contract is <tgpu/isa.h>; the syntax is in
 * docs/umd.md, "Assembler").  Pure functions: no device, no tgpu_init(),
 * thread-safe.
 */
struct tgpu_kernel_image {
	uint32_t shared_size;       /* .shared: bytes of shared memory per CTA */
	uint32_t param_size;        /* .param: bytes of kernel parameters */
	uint32_t ninsns;
	uint64_t *insns;            /* ninsns instructions (NULL if none), malloc'd */
};

/*
 * Assemble src, a NUL-terminated program.  Returns 0, or -EINVAL when the
 * source is wrong (err gets "LINE:COL: message", 1-based, columns count
 * bytes, saying what is wrong and what was expected) or a NULL argument,
 * or -ENOMEM.  On failure *out is empty.  err may be NULL.
 * The message is also this thread's tgpu_get_last_error_message().
 */
TGPU_API int tgpu_assemble(const char *src, struct tgpu_kernel_image *out,
			   char *err, size_t errlen);

/* Free img's instructions and zero it; NULL and empty images are fine. */
TGPU_API void tgpu_kernel_image_free(struct tgpu_kernel_image *img);

/*
 * A listing of n instructions that tgpu_assemble() turns back into the
 * same n words: one instruction per line, "L<index>:" labels at branch
 * and SSY targets inside the program, ".word 0x..." for words that are
 * not instructions.  malloc'd, the caller frees it; NULL with errno set
 * (ENOMEM, or EINVAL for insns NULL with n > 0).
 */
TGPU_API char *tgpu_disassemble(const uint64_t *insns, size_t n);

/*
 * One instruction in the same syntax, without a newline; branch targets
 * print as instruction indices.  Returns the length of the text as
 * snprintf() does (the output is truncated to len - 1 characters).
 */
TGPU_API int tgpu_disassemble_one(uint64_t insn, char *buf, size_t len);

/*
 * Monitoring
 * ----------
 * The device's state now, read from the kernel driver at every call
 * (nothing is cached), for tools such as tgpu-smi.  Values the driver
 * does not report are never made up: the calls say so instead.
 */

/*
 * VRAM of dev, in bytes: what is free now and the total, as cuMemGetInfo()
 * for one device.  total - free is what DRM_TGPU_PARAM_VRAM_USED reports:
 * every allocation, the driver's own (page tables, queue memory) included.
 * A driver without VRAM_USED gives TGPU_ERROR_NOT_SUPPORTED.
 */
TGPU_API tgpu_status tgpu_device_get_memory_info(const tgpu_device *dev,
						 uint64_t *free_bytes,
						 uint64_t *total_bytes);

/* used_memory when the driver's fdinfo does not report VRAM. */
#define TGPU_MEMORY_UNKNOWN UINT64_MAX

struct tgpu_process_info {
	int pid;
	char name[64];              /* /proc/<pid>/comm; "" if unreadable */
	uint64_t used_memory;       /* bytes of VRAM, or TGPU_MEMORY_UNKNOWN */
	uint32_t clients;           /* its DRM clients (open files) of dev */
};

/*
 * The processes using dev, from DRM fdinfo (/proc/<pid>/fdinfo/<fd> of
 * their open files of dev's render or card node): pid, name and the VRAM
 * their buffer objects take (drm-resident-vram).  Files that share a
 * drm-client-id (dup(), fork(), fd passing) are one client, counted
 * once; a process's clients are summed.  A forked child that kept its
 * parent's file is listed too, with the same client.  Processes this
 * one may not inspect (other users', without privilege) are skipped, as
 * nvidia-smi does; the caller itself is listed when it has dev open
 * (libtgpu keeps a file of every device open after tgpu_init()).
 *
 * Up to max entries go to procs (NULL is fine with max 0), sorted by pid;
 * *count gets the number of processes, which may exceed max: then call
 * again with a larger array.  TGPU_ERROR_NOT_SUPPORTED when /proc cannot
 * be read.
 */
TGPU_API tgpu_status tgpu_device_get_processes(const tgpu_device *dev,
					       struct tgpu_process_info *procs,
					       int max, int *count);

/*
 * ECC of dev as the driver reports it (its sysfs files under the PCI
 * device, docs/driver/kmd.md "ECC errors").  Volatile counts are since
 * the device's last reset, aggregate ones for the board's life (its
 * InfoROM).  A pending page was retired while in use: it goes out of use
 * when freed, or at the next driver load.  TGPU_ERROR_NOT_SUPPORTED from
 * a driver without those files.
 */
struct tgpu_ecc_info {
	uint32_t mode_current;      /* 1: ECC on */
	uint32_t mode_pending;      /* 1: on after the next device reset */
	uint64_t sbe_volatile;      /* corrected errors */
	uint64_t dbe_volatile;      /* uncorrectable errors */
	uint64_t sbe_aggregate;
	uint64_t dbe_aggregate;
	uint32_t retired_sbe;       /* pages retired for repeated SBEs */
	uint32_t retired_dbe;       /* pages retired for a DBE */
	uint32_t retired_pending;   /* of those, still in use */
	uint32_t degraded;          /* 1: more retired than the driver's limit */
};

TGPU_API tgpu_status tgpu_device_get_ecc_info(const tgpu_device *dev,
					      struct tgpu_ecc_info *ecc);

/* A retired VRAM page (sysfs retired_pages). */
#define TGPU_RETIRED_CAUSE_SBE 1    /* repeated single-bit errors */
#define TGPU_RETIRED_CAUSE_DBE 2    /* a double-bit error */

struct tgpu_retired_page {
	uint64_t address;           /* VRAM address of the 4 KiB page */
	uint32_t cause;             /* TGPU_RETIRED_CAUSE_* */
	uint32_t pending;           /* 1: still in use, out of use when freed */
	uint64_t timestamp;         /* when it was retired, Unix seconds */
};

/*
 * dev's retired pages, in the order they were retired.  Up to max go to
 * pages (NULL is fine with max 0); *count gets how many there are, which
 * may exceed max.  TGPU_ERROR_NOT_SUPPORTED from a driver without them.
 */
TGPU_API tgpu_status tgpu_device_get_retired_pages(const tgpu_device *dev,
						   struct tgpu_retired_page *pages,
						   int max, int *count);

/* Why the SM clock is below boost: NVML's clocks event reason bits. */
#define TGPU_CLOCKS_EVENT_GPU_IDLE             0x01u
#define TGPU_CLOCKS_EVENT_APPLICATIONS_CLOCKS  0x02u
#define TGPU_CLOCKS_EVENT_SW_POWER_CAP         0x04u
#define TGPU_CLOCKS_EVENT_HW_SLOWDOWN          0x08u
#define TGPU_CLOCKS_EVENT_SW_THERMAL_SLOWDOWN  0x20u
#define TGPU_CLOCKS_EVENT_HW_THERMAL_SLOWDOWN  0x40u
/* the ones a tgpu board can report */
#define TGPU_CLOCKS_EVENT_SUPPORTED            0x6fu

/*
 * Temperature, power and clocks of dev as the driver reports them (its
 * hwmon device and sysfs throttle_reasons, docs/driver/kmd.md).
 * max_operating_mc is where the driver's governor starts lowering the
 * clock; slowdown_mc where the hardware halves it; shutdown_mc where the
 * GPU stops.  TGPU_ERROR_NOT_SUPPORTED from a driver without them.
 */
struct tgpu_thermal_info {
	int32_t temperature_mc;     /* the sensor, milli-degrees C */
	int32_t max_operating_mc;
	int32_t slowdown_mc;
	int32_t shutdown_mc;
	uint32_t power_mw;          /* the draw now */
	uint32_t power_cap_mw;      /* the cap in force */
	uint32_t power_cap_min_mw;
	uint32_t power_cap_max_mw;  /* the board's limit */
	uint32_t clock_mhz;         /* the SM clock in use */
	uint32_t reasons;           /* TGPU_CLOCKS_EVENT_* active now */
};

TGPU_API tgpu_status tgpu_device_get_thermal_info(const tgpu_device *dev,
						  struct tgpu_thermal_info *t);

/*
 * How busy dev was over the last second, as its thermal unit samples it
 * every 10 ms (sysfs gpu_busy_percent and mem_busy_percent): gpu is the
 * share of samples with a kernel on the compute engine (nvidia-smi's
 * utilization.gpu), memory the share with any engine at work, each of
 * which reads or writes device memory (utilization.memory).
 * performance_state is 0 (P0) while an engine has work and 8 (P8) while
 * none has, as a Tesla board's P-state follows its load.
 * TGPU_ERROR_NOT_SUPPORTED from a driver without them.
 */
struct tgpu_utilization {
	uint32_t gpu;               /* percent */
	uint32_t memory;            /* percent */
	uint32_t performance_state; /* 0 or 8 */
};

TGPU_API tgpu_status tgpu_device_get_utilization(const tgpu_device *dev,
						 struct tgpu_utilization *u);

/*
 * Microseconds each reason held the SM clock below boost since the
 * driver loaded (NVML's clocks event reasons counters; sysfs
 * clocks_event_reasons_counters/).  The driver's thermal governor counts
 * as sw_thermal_slowdown.  TGPU_ERROR_NOT_SUPPORTED from a driver
 * without them.
 */
struct tgpu_clocks_event_counters {
	uint64_t gpu_idle_us;
	uint64_t applications_clocks_setting_us;
	uint64_t sw_power_cap_us;
	uint64_t hw_slowdown_us;
	uint64_t sw_thermal_slowdown_us;
	uint64_t hw_thermal_slowdown_us;
};

TGPU_API tgpu_status tgpu_device_get_clocks_event_counters(
	const tgpu_device *dev, struct tgpu_clocks_event_counters *c);

/*
 * Whether dev is fit for service: TGPU_SUCCESS, or
 * TGPU_ERROR_DEVICE_DEGRADED once the driver has retired more VRAM pages
 * than its limit (tgpu.ecc_retire_limit) or could not retire one (the
 * board runs on, with less memory: plan to replace it), with the counts
 * in tgpu_get_last_error_message().  TGPU_ERROR_NOT_SUPPORTED from a
 * driver that does not say.
 */
TGPU_API tgpu_status tgpu_device_get_health(const tgpu_device *dev);

#if defined(__cplusplus)
}
#endif

#endif /* LIBTGPU_H */
