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
	TGPU_ERROR_NO_DEVICE = 100,         /* driver loaded, no tgpu device */
	TGPU_ERROR_INVALID_DEVICE = 101,    /* bad ordinal, handle or bus id */
	TGPU_ERROR_NO_DRIVER = 102,         /* tgpu.ko is not loaded */
	TGPU_ERROR_DEVICE_UNAVAILABLE = 103,/* device exists but is unusable */
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
 * (temperature, clocks in use, ECC counters) will get its own calls.
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

#if defined(__cplusplus)
}
#endif

#endif /* LIBTGPU_H */
