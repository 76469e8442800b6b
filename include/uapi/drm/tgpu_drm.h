/* SPDX-License-Identifier: MIT */
/*
 * tgpu DRM uAPI: the ioctl ABI between tgpu.ko and libtgpu.
 *
 * Every struct is 64-bit aligned with explicit padding; padding and
 * reserved fields must be zero (the driver answers -EINVAL otherwise),
 * so they can be given a meaning later without breaking old binaries.
 */
#ifndef TGPU_DRM_H
#define TGPU_DRM_H

#include "drm.h"

#if defined(__cplusplus)
extern "C" {
#endif

#define DRM_TGPU_GET_PARAM          0x00
#define DRM_TGPU_GEM_CREATE         0x01
#define DRM_TGPU_GEM_MMAP_OFFSET    0x02
#define DRM_TGPU_VM_BIND            0x03
#define DRM_TGPU_VM_UNBIND          0x04
#define DRM_TGPU_QUEUE_CREATE       0x05
#define DRM_TGPU_QUEUE_DESTROY      0x06
#define DRM_TGPU_SUBMIT             0x07
#define DRM_TGPU_QUEUE_QUERY        0x08
#define DRM_TGPU_RESET_STATUS       0x09
#define DRM_TGPU_WAIT               0x0a
#define DRM_TGPU_USER_FENCE         0x0b

/* Parameters for DRM_IOCTL_TGPU_GET_PARAM. */
enum drm_tgpu_param {
	DRM_TGPU_PARAM_CHIP_ID = 0,     /* BOOT_0 register, raw */
	DRM_TGPU_PARAM_IFACE_VERSION,   /* hardware interface, major << 16 | minor */
	DRM_TGPU_PARAM_PCI_ID,          /* vendor << 16 | device */
	DRM_TGPU_PARAM_VRAM_SIZE,       /* bytes */
	DRM_TGPU_PARAM_BAR0_SIZE,       /* bytes */
	DRM_TGPU_PARAM_BAR1_SIZE,       /* bytes */
	DRM_TGPU_PARAM_SM_COUNT,
	DRM_TGPU_PARAM_ENGINES,         /* TGPU_ENGINE_* bitmask */
	DRM_TGPU_PARAM_CLK_SM_BASE_MHZ,
	DRM_TGPU_PARAM_CLK_SM_BOOST_MHZ,
	DRM_TGPU_PARAM_CLK_MEM_MHZ,
	DRM_TGPU_PARAM_POWER_LIMIT_MW,
	DRM_TGPU_PARAM_MSIX_VECTORS,    /* MSI-X vectors the driver enabled */
	DRM_TGPU_PARAM_VRAM_USED,       /* bytes allocated, driver's own included */
	/* uAPI 1.5: engines, queues, VM and compute limits */
	DRM_TGPU_PARAM_CHANNELS,        /* hardware channels, the driver's included */
	DRM_TGPU_PARAM_QUEUE_PRIORITIES, /* queue priority levels: 0 .. n - 1 */
	DRM_TGPU_PARAM_VA_BITS,         /* width of a GPU virtual address */
	DRM_TGPU_PARAM_VA_USER_LIMIT,   /* end of the user part of the VM */
	DRM_TGPU_PARAM_COMPUTE_CLASS,   /* SET_OBJECT class of compute queues */
	DRM_TGPU_PARAM_COPY_CLASS,      /* SET_OBJECT class of copy queues */
	DRM_TGPU_PARAM_GR_GRID_MAX,     /* CTAs per grid dimension */
	DRM_TGPU_PARAM_GR_BLOCK_MAX,    /* threads per CTA */
	DRM_TGPU_PARAM_GR_SHARED_MAX,   /* shared memory bytes per CTA */
	DRM_TGPU_PARAM_GR_PARAM_MAX,    /* kernel parameter bytes */
	DRM_TGPU_PARAM_GR_PROGRAM_MAX,  /* kernel code bytes */
	DRM_TGPU_PARAM_CLK_SM_KHZ,      /* effective SM clock now, read live */
	DRM_TGPU_PARAM_TIMESTAMP_FREQ,  /* GPU timestamp ticks per second */
	DRM_TGPU_PARAM_ECC_ENABLED,     /* 1: ECC on, 0: off or not supported */
	DRM_TGPU_PARAM_RETIRED_PAGES_SBE, /* VRAM pages retired for SBEs */
	DRM_TGPU_PARAM_RETIRED_PAGES_DBE, /* VRAM pages retired for a DBE */
	DRM_TGPU_PARAM_COUNT,           /* not a parameter: the number of them */
};

/**
 * struct drm_tgpu_get_param - read one device parameter
 * @param: one of enum drm_tgpu_param (in)
 * @pad: must be zero
 * @value: the parameter's value (out)
 *
 * Parameters are numbered for good: new ones are added before
 * DRM_TGPU_PARAM_COUNT, never renumbered, so a parameter unknown to the
 * running driver (an older one) fails with -EINVAL.
 *
 * Identity: CHIP_ID (PMC_BOOT_0), IFACE_VERSION, PCI_ID, VRAM_SIZE,
 * BAR0_SIZE, BAR1_SIZE, SM_COUNT, the clocks and POWER_LIMIT_MW are read
 * once at probe.  VRAM_USED (bytes of VRAM allocated now) and CLK_SM_KHZ
 * (the SM clock the compute engine runs at now, GR_CLOCK_KHZ: below the
 * boost clock while the board throttles) are read at each call.
 *
 * Engines: ENGINES is a TGPU_ENGINE_* bitmask (<tgpu/regs.h>); bit n
 * set means the board has the engine that
 * struct drm_tgpu_queue_create.engine n feeds: bit 0 (TGPU_ENGINE_COMPUTE)
 * for TGPU_RUNLIST_COMPUTE (0), bit 1 (TGPU_ENGINE_CE0) for
 * TGPU_RUNLIST_CE0 (1), bit 2 (TGPU_ENGINE_CE1) for TGPU_RUNLIST_CE1 (2).
 * A compute queue's work binds COMPUTE_CLASS with SET_OBJECT, a copy
 * queue's COPY_CLASS.
 *
 * Queues: CHANNELS is the number of hardware channels; one of them is
 * the driver's, so at most CHANNELS - 1 queues exist at a time over all
 * files (QUEUE_CREATE then fails with -EBUSY).  QUEUE_PRIORITIES is the
 * number of priority levels, 0 (lowest) to QUEUE_PRIORITIES - 1.
 *
 * VM: GPU virtual addresses have VA_BITS bits (DRM_TGPU_VA_LIMIT is
 * 1 << VA_BITS); VM_BIND takes ranges below VA_USER_LIMIT
 * (DRM_TGPU_VA_KERNEL_START).
 *
 * Compute engine limits (<tgpu/isa.h>): GR_GRID_MAX CTAs in each grid
 * dimension, GR_BLOCK_MAX threads per CTA, GR_SHARED_MAX bytes of shared
 * memory per CTA, GR_PARAM_MAX bytes of kernel parameters, GR_PROGRAM_MAX
 * bytes of kernel code.  A launch beyond them fails the channel.
 *
 * TIMESTAMP_FREQ: ticks per second of the GPU timer that semaphore
 * releases with TGPU_SEM_TIMESTAMP, copy-engine four-word releases and
 * the fault records stamp (PTIMER, nanoseconds: 1000000000).
 *
 * ECC (docs/hw/ecc.md): ECC_ENABLED is 1 when the driver enabled ECC at
 * probe and the VRAM scrub finished, 0 on a board without ECC or when
 * enabling failed (the kernel log says why).  RETIRED_PAGES_SBE and
 * RETIRED_PAGES_DBE count the 4 KiB VRAM pages the InfoROM lists as
 * retired, for repeated single-bit errors and for a double-bit error; the
 * driver keeps all of them out of every allocation (they count in
 * VRAM_USED).
 *
 * Errors: -EINVAL for an unknown @param or non-zero @pad; -ENODEV when
 * the device is gone.
 */
struct drm_tgpu_get_param {
	__u32 param;
	__u32 pad;
	__u64 value;
};

/* DRM_IOCTL_TGPU_GEM_CREATE flags */
#define DRM_TGPU_GEM_CREATE_SYSMEM  (1u << 0)   /* system memory, not VRAM */
#define DRM_TGPU_GEM_CREATE_FLAGS   DRM_TGPU_GEM_CREATE_SYSMEM

/**
 * struct drm_tgpu_gem_create - allocate a buffer object
 * @size: size in bytes (in); rounded up to the CPU page size (out)
 * @flags: DRM_TGPU_GEM_CREATE_* (in); 0 for an object in VRAM
 * @handle: GEM handle of the new object, local to this file (out)
 *
 * The object's memory is zeroed, whatever its kind.
 *
 * Without flags the object is in VRAM, CPU-mappable through BAR1: its
 * CPU mapping (DRM_IOCTL_TGPU_GEM_MMAP_OFFSET) is write-combined.
 *
 * With DRM_TGPU_GEM_CREATE_SYSMEM the object is in system memory (shmem
 * pages of the kernel), which the GPU reaches by PCI DMA: its CPU mapping
 * is cached (write-back), and DRM_IOCTL_TGPU_VM_BIND maps it through the
 * system-memory aperture, at the DMA addresses of its pages (so an IOMMU
 * in front of the device applies).  The pages are allocated, zeroed,
 * DMA-mapped and pinned at creation and stay so for the object's whole
 * life: creation fails rather than a later bind or GPU access.  The DMA
 * must be coherent (it is on x86); the driver does no cache maintenance.
 *
 * Errors: -EINVAL for a zero size, a size that cannot be rounded up to a
 * page, or unknown @flags; -E2BIG for a size larger than the CPU-visible
 * VRAM (VRAM objects) or than the system's RAM (SYSMEM objects): it can
 * never succeed; -ENOSPC when VRAM has no room for it now (VRAM objects);
 * -ENOMEM when kernel or system memory runs out (for SYSMEM objects also
 * when the pages cannot be had or DMA-mapped); -EINTR when the caller is
 * killed while the memory is being cleared or allocated.
 */
struct drm_tgpu_gem_create {
	__u64 size;
	__u32 flags;
	__u32 handle;
};

/**
 * struct drm_tgpu_gem_mmap_offset - get the fake offset to mmap an object
 * @handle: GEM handle (in)
 * @pad: must be zero
 * @offset: pass this to mmap() on the same DRM file (out)
 *
 * The mapping is shared (MAP_PRIVATE is refused with -EINVAL by mmap):
 * write-combined for a VRAM object, cached for a SYSMEM one.  It stays valid after the handle is closed, until it
 * is unmapped.  Errors: -EINVAL for non-zero @pad, -ENOENT for a handle
 * this file does not have.
 */
struct drm_tgpu_gem_mmap_offset {
	__u32 handle;
	__u32 pad;
	__u64 offset;
};

/*
 * GPU virtual address space.  Each open file of the render node has its
 * own: a 40-bit space (DRM_TGPU_VA_LIMIT) with its own ASID, whose page
 * tables the driver keeps.  User mappings (DRM_IOCTL_TGPU_VM_BIND) live
 * below DRM_TGPU_VA_KERNEL_START; the top gigabyte, from there to
 * DRM_TGPU_VA_LIMIT, is the driver's: the GPFIFO rings, USERD pages,
 * fence semaphores and fence pushbuffers of the file's queues.
 */
#define DRM_TGPU_VA_LIMIT           (1ull << 40)
#define DRM_TGPU_VA_KERNEL_START    (DRM_TGPU_VA_LIMIT - (1ull << 30))
/* The GPU page size: VM_BIND works in multiples of it. */
#define DRM_TGPU_VM_PAGE_SIZE       4096

/* DRM_IOCTL_TGPU_VM_BIND flags */
#define DRM_TGPU_VM_BIND_READ_ONLY  (1u << 0)   /* GPU writes fault */
#define DRM_TGPU_VM_BIND_FLAGS      DRM_TGPU_VM_BIND_READ_ONLY

/**
 * struct drm_tgpu_vm_bind - map part of a buffer object into the file's VM
 * @handle: GEM handle of the object (in)
 * @pad: must be zero
 * @bo_offset: byte offset in the object of the first page mapped (in)
 * @va: GPU virtual address of the mapping (in)
 * @size: bytes mapped (in)
 * @flags: DRM_TGPU_VM_BIND_* (in)
 * @pad2: must be zero
 *
 * @bo_offset, @va and @size must be multiples of DRM_TGPU_VM_PAGE_SIZE.
 * The mapping holds a reference to the object until it is unbound or the
 * file is closed, so closing the handle does not unmap it.  Where @va,
 * the object's VRAM and @size allow it, 2 MiB pages are used.  A SYSMEM
 * object (DRM_TGPU_GEM_CREATE_SYSMEM) is mapped with 4 KiB pages of the
 * system-memory aperture, at its pages' DMA addresses.
 *
 * Errors: -EINVAL for non-zero @pad or @pad2, unknown @flags, a zero or
 * unaligned @size, an unaligned @va or @bo_offset, a range that reaches
 * DRM_TGPU_VA_KERNEL_START (or wraps), or @bo_offset + @size beyond the
 * object; -ENOENT for a handle this file does not have; -EEXIST when the
 * range overlaps an existing mapping (nothing is changed); -ENOSPC when
 * VRAM has no room for page tables; -ENOMEM when kernel memory runs out;
 * -ENODEV when the device is gone or has no CPU-visible VRAM.
 */
struct drm_tgpu_vm_bind {
	__u32 handle;
	__u32 pad;
	__u64 bo_offset;
	__u64 va;
	__u64 size;
	__u32 flags;
	__u32 pad2;
};

/**
 * struct drm_tgpu_vm_unbind - remove a mapping from the file's VM
 * @va: GPU virtual address the mapping was bound at (in)
 * @size: its size (in)
 *
 * @va and @size must name exactly one mapping made by VM_BIND: a part of
 * a mapping, or a range covering several, is not accepted.  When the
 * ioctl returns, the page-table entries are cleared and the GPU's TLB is
 * invalidated for the range, so the GPU can no longer reach the object
 * through it.  The mapping's reference to the object is dropped once the
 * file's work already on the hardware has finished: the ioctl waits for
 * it (if a signal interrupts that wait, the ioctl still succeeds and the
 * reference goes when the file is closed).  Work still using the range
 * faults (unbinding under running work is the user's own bug).
 *
 * Errors: -ENOENT when no mapping starts at @va with exactly @size bytes
 * (also for a zero or unaligned @size); -ENODEV when the device is gone.
 */
struct drm_tgpu_vm_unbind {
	__u64 va;
	__u64 size;
};

/**
 * struct drm_tgpu_queue_create - create a submission queue
 * @engine: the engine it feeds: TGPU_RUNLIST_COMPUTE (0), TGPU_RUNLIST_CE0
 *	(1) or TGPU_RUNLIST_CE1 (2), as in <tgpu/channel.h> (in)
 * @priority: 0 (lowest) to 3; the device runs a higher-priority queue of
 *	an engine before any lower one (in)
 * @flags: DRM_TGPU_QUEUE_USER_SUBMIT, or zero (in)
 * @id: the queue's ID, local to this file, never 0 (out)
 * @timeout_ms: the job timeout of this queue, in milliseconds: 0 for
 *	the driver's (the tgpu.job_timeout_ms module parameter, 2000 unless
 *	set), else 1 to DRM_TGPU_QUEUE_TIMEOUT_MAX_MS.  Longer than the
 *	driver's (or any, when the driver's is 0: never) needs CAP_SYS_NICE,
 *	as xe's exec-queue job timeout does.  A job still running after it
 *	is checked for progress as after the driver's (DRM_IOCTL_TGPU_SUBMIT)
 *	(in)
 * @pad: must be zero
 * @ring_offset: with DRM_TGPU_QUEUE_USER_SUBMIT, the mmap offset of the
 *	queue's GPFIFO ring (DRM_TGPU_USER_RING_GPFIFO) and USERD
 *	(DRM_TGPU_USER_RING_USERD), DRM_TGPU_USER_RING_SIZE bytes (out)
 * @doorbell_offset: with DRM_TGPU_QUEUE_USER_SUBMIT, the mmap offset of
 *	the device's doorbell page, DRM_TGPU_DOORBELL_PAGE_SIZE bytes (out)
 * @ring_gpu_va: with DRM_TGPU_QUEUE_USER_SUBMIT, the GPU address of the
 *	ring, in the kernel part of the file's VM (out)
 * @ring_entries: with DRM_TGPU_QUEUE_USER_SUBMIT, the number of GPFIFO
 *	entries, a power of two (out)
 * @doorbell_token: with DRM_TGPU_QUEUE_USER_SUBMIT, the value to write to
 *	the doorbell (DRM_TGPU_DOORBELL_OFFSET): the channel's ID (out)
 *
 * A queue is a hardware channel in the file's VM.  Its GPFIFO ring,
 * USERD and fence pushbuffers are privileged pages in the kernel part of
 * the VM (the engines cannot write them).  Its fence semaphore is an
 * ordinary, writable page there: work on the queue can write it, so a
 * process can signal its own queue's fences early (and so only break
 * itself), never another's.
 *
 * With DRM_TGPU_QUEUE_USER_SUBMIT the process submits by itself, without
 * DRM_IOCTL_TGPU_SUBMIT (which then answers -EINVAL): it maps the ring and
 * the doorbell page (mmap() on the DRM file at @ring_offset and
 * @doorbell_offset, MAP_SHARED), writes GPFIFO entries (TGPU_GP_ENTRY() of
 * <tgpu/channel.h>) from USERD's GP_PUT on, publishes the new GP_PUT in
 * USERD and writes @doorbell_token to the doorbell.  A store fence (x86:
 * sfence, or a full barrier) is needed after the pushbuffers and entries
 * and before GP_PUT, and another between GP_PUT and the doorbell: the ring
 * is write-combined and the doorbell uncached, and the device reads GP_PUT
 * when the doorbell rings, and the entries when GP_PUT says so
 * (docs/hw/channels.md, "User-mode submission").  Completion is a
 * semaphore release the process puts in its own pushbuffer, followed by
 * the NON_STALL_INTERRUPT method: DRM_IOCTL_TGPU_WAIT sleeps on it, and
 * DRM_IOCTL_TGPU_USER_FENCE turns it into a syncobj fence.
 *
 * The channel stays the driver's: it is unprivileged and bound to the
 * file's VM, so its entries reach only what the file maps.  An error
 * (a fault, an illegal method, GP_PUT out of range) kills the queue as
 * above.  A queue whose GP_GET stays behind GP_PUT, with neither the
 * channel nor its engine making progress, for the queue's job timeout is
 * hung: it is killed, its engine reset, its file is guilty, and its
 * waits and fences fail with -ETIME.  A reset that takes down a user
 * queue's work (of another file's hang, or of the device) cannot replay
 * it: the queue dies with -ECANCELED.
 *
 * Errors: -EINVAL for an unknown @engine, an engine the board does not
 * have, @priority above 3, unknown @flags, non-zero @pad, or @timeout_ms above
 * DRM_TGPU_QUEUE_TIMEOUT_MAX_MS; -EPERM for a @timeout_ms longer than the
 * driver's without CAP_SYS_NICE; -EBUSY when every hardware
 * channel is in use; -ENOSPC when VRAM has no room for the queue's
 * memory (32 KiB) or page tables; -ENOMEM when kernel memory runs out;
 * -ENODEV when the device is gone or has no CPU-visible VRAM.
 */
struct drm_tgpu_queue_create {
	__u32 engine;
	__u32 priority;
	__u32 flags;
	__u32 id;
	__u32 timeout_ms;
	__u32 pad;
	__u64 ring_offset;
	__u64 doorbell_offset;
	__u64 ring_gpu_va;
	__u32 ring_entries;
	__u32 doorbell_token;
};

/* struct drm_tgpu_queue_create flags */
#define DRM_TGPU_QUEUE_USER_SUBMIT  (1u << 0)   /* the process submits */
#define DRM_TGPU_QUEUE_CREATE_FLAGS DRM_TGPU_QUEUE_USER_SUBMIT

/* A user-submit queue's ring mapping: GPFIFO, then USERD. */
#define DRM_TGPU_USER_RING_GPFIFO   0x0000
#define DRM_TGPU_USER_RING_USERD    0x1000
#define DRM_TGPU_USER_RING_SIZE     0x2000
/* The doorbell page: write a doorbell token at DRM_TGPU_DOORBELL_OFFSET. */
#define DRM_TGPU_DOORBELL_PAGE_SIZE 0x1000
#define DRM_TGPU_DOORBELL_OFFSET    0x090

/* the longest struct drm_tgpu_queue_create.timeout_ms: one minute */
#define DRM_TGPU_QUEUE_TIMEOUT_MAX_MS 60000

/**
 * struct drm_tgpu_queue_destroy - destroy a queue
 * @id: the queue (in)
 * @pad: must be zero
 *
 * Jobs still waiting for their in-syncobjs are waited for until they
 * reach the hardware (the wait can be interrupted by a fatal signal);
 * then the channel is stopped and reset at once: work it has not
 * finished is dropped and its fences fail with -ECANCELED (wait for the
 * out-syncobjs first to let it finish).  Closing the file does the same
 * for every queue left.
 *
 * Errors: -EINVAL for non-zero @pad; -ENOENT for an unknown @id.
 */
struct drm_tgpu_queue_destroy {
	__u32 id;
	__u32 pad;
};

/**
 * struct drm_tgpu_submit_range - one pushbuffer segment
 * @va: GPU virtual address of its first dword, 4-byte aligned, in the
 *	user part of the VM
 * @dwords: its length in dwords, 1 to 2^21 - 1 (a GPFIFO entry's field)
 * @pad: must be zero
 */
struct drm_tgpu_submit_range {
	__u64 va;
	__u32 dwords;
	__u32 pad;
};

/* The most ranges one DRM_IOCTL_TGPU_SUBMIT takes, and in-syncobjs. */
#define DRM_TGPU_SUBMIT_MAX_RANGES      64
#define DRM_TGPU_SUBMIT_MAX_IN_SYNCOBJS 64

/**
 * struct drm_tgpu_submit - queue a job: pushbuffer segments to execute
 * @queue: the queue's ID (in)
 * @count: number of ranges, 1 to DRM_TGPU_SUBMIT_MAX_RANGES (in)
 * @ranges: user pointer to @count struct drm_tgpu_submit_range (in)
 * @in_syncobjs: user pointer to @in_syncobj_count __u32 syncobj handles
 *	(binary syncobjs, or point 0); the job runs once all their fences
 *	have signalled (in)
 * @in_syncobj_count: 0 to DRM_TGPU_SUBMIT_MAX_IN_SYNCOBJS (in)
 * @out_syncobj: a syncobj handle, or 0: it gets the job's fence (in)
 * @flags: must be zero
 * @pad: must be zero
 *
 * The job is one GPFIFO entry per range, in order, then a kernel entry
 * that releases the job's fence.  The fence signals when every range has
 * executed; it fails with -EIO when the channel takes an error (for
 * example an illegal method: that queue is then dead, other queues go
 * on), -ETIME when the job stops making progress (it is not done after
 * the driver's job timeout, 2 s unless the tgpu.job_timeout_ms module
 * parameter says otherwise, and neither its channel nor its engine moved
 * since the last check: the engine is then reset and the file is
 * guilty), -ECANCELED when the queue is destroyed first, and -ENODEV when
 * the device goes away (unbind, or it fell off the bus) first.  A dead
 * queue refuses further submits with -EIO; destroy it and create
 * another.  A file found guilty of a hang refuses every further submit
 * with -ECANCELED (DRM_IOCTL_TGPU_RESET_STATUS).
 *
 * The queue's fence semaphore is in the file's VM, writable by its own
 * work: a process can make its own fences signal early (or late), never
 * another process's.
 *
 * The job's fence is also added, as a write, to the dma_resv of every
 * object mapped in the file's VM: implicit sync on such an object (poll
 * on its dma-buf, DMA_BUF_IOCTL_EXPORT_SYNC_FILE, an importing driver)
 * waits for the job.  The job itself does not wait for the fences other
 * work left in those objects: order work with syncobjs.
 *
 * Errors: -EINVAL for non-zero @flags or @pad, a @count or
 * @in_syncobj_count out of range, a range with non-zero @pad, an
 * unaligned @va, a zero or too large @dwords, or a segment outside the
 * user part of the VM; -EFAULT for an unreadable user pointer; -ENOENT
 * for an unknown @queue, in-syncobj or @out_syncobj (an in-syncobj with
 * no fence yet is -EINVAL, as drm_syncobj_find_fence() answers); -EIO
 * when the queue is dead; -ECANCELED when the file is guilty of a hang
 * (DRM_TGPU_RESET_GUILTY); -ENOMEM when kernel memory runs out; -EINTR
 * when a signal arrives while the objects are being locked (drmIoctl()
 * retries); -ENODEV when the device is gone.
 */
struct drm_tgpu_submit {
	__u32 queue;
	__u32 count;
	__u64 ranges;
	__u64 in_syncobjs;
	__u32 in_syncobj_count;
	__u32 out_syncobj;
	__u32 flags;
	__u32 pad;
};

/* struct drm_tgpu_queue_query states */
#define DRM_TGPU_QUEUE_STATE_ALIVE  0
#define DRM_TGPU_QUEUE_STATE_DEAD   1   /* refuses submits with -EIO */

/**
 * struct drm_tgpu_queue_query - why a queue died
 * @id: the queue (in)
 * @flags: must be zero
 * @state: DRM_TGPU_QUEUE_STATE_* (out)
 * @error: the negative errno its failed fences carry, 0 while alive: -EIO
 *	(a channel error), -ETIME (a job hung: it made no progress for
 *	the job timeout, and the engine was reset), -ENODEV (the device
 *	went away) (out)
 * @chan_error: for -EIO, the channel error code, TGPU_ERR_* of
 *	<tgpu/channel.h>; 0 otherwise (out)
 * @chan_error_info: the channel's CHAN_ERROR_INFO with that error: for
 *	TGPU_ERR_COMPUTE a TGPU_KERR_* (<tgpu/isa.h>), for TGPU_ERR_COPY a
 *	TGPU_CE_ERR_INFO (<tgpu/copy.h>) (out)
 * @fault_va: for an MMU fault of the queue's work, the faulting GPU
 *	virtual address when the driver knows it, else 0 (out)
 *
 * Lets user space tell a memory fault from other failures once a fence
 * failed.  Errors: -EINVAL for non-zero @flags; -ENOENT for an unknown
 * @id.
 */
struct drm_tgpu_queue_query {
	__u32 id;
	__u32 flags;
	__u32 state;
	__s32 error;
	__u32 chan_error;
	__u32 chan_error_info;
	__u64 fault_va;
};

/* struct drm_tgpu_reset_status statuses, as GL_ARB_robustness has them */
#define DRM_TGPU_RESET_NONE         0   /* no reset took this file's work */
#define DRM_TGPU_RESET_GUILTY       1   /* its work hung: it is banned */
#define DRM_TGPU_RESET_INNOCENT     2   /* a reset took its work down */

/* struct drm_tgpu_reset_status flags (out) */
#define DRM_TGPU_RESET_VRAM_LOST    (1u << 0)

/**
 * struct drm_tgpu_reset_status - DRM_IOCTL_TGPU_RESET_STATUS: has a GPU
 *	reset touched this file since it was opened
 * @status: DRM_TGPU_RESET_*: GUILTY once a job of this file hung (its
 *	unfinished fences failed with -ETIME, and every later submit fails
 *	with -ECANCELED); INNOCENT when a reset took down work of this
 *	file, which the driver ran again; else NONE (out).  An error the
 *	device reported (an MMU fault, an illegal method...) is not a
 *	reset: it kills only its queue, whose fences fail with -EIO and
 *	which takes no more submits (-EIO)
 * @flags: DRM_TGPU_RESET_VRAM_LOST when the device was reset as a whole
 *	(FLR) since the file was opened: VRAM contents are to be treated
 *	as lost, even though this driver's own structures survive (out)
 * @resets: engine and device resets since the file was opened (out)
 * @pad: must be zero (in)
 *
 * Errors: -EINVAL for non-zero @pad.
 */
struct drm_tgpu_reset_status {
	__u32 status;
	__u32 flags;
	__u32 resets;
	__u32 pad;
};

/* struct drm_tgpu_wait flags */
#define DRM_TGPU_WAIT_FLAGS         0

/**
 * struct drm_tgpu_wait - DRM_IOCTL_TGPU_WAIT: sleep until a semaphore in
 *	the file's memory reaches a value
 * @queue: a user-submit queue of the file, whose work releases the
 *	semaphore (in)
 * @flags: must be zero (in)
 * @va: GPU address of the 64-bit semaphore, 8-byte aligned, mapped in
 *	the file's VM (a VRAM object in the CPU-visible part, or a
 *	system-memory object) (in)
 * @value: the wait ends when the semaphore is at least this (unsigned)
 *	(in)
 * @timeout_nsec: absolute CLOCK_MONOTONIC time at which the wait gives
 *	up, as DRM_IOCTL_SYNCOBJ_WAIT's; 0 or a time in the past only
 *	checks, INT64_MAX waits for ever (in)
 *
 * The non-stall interrupt of the queue's channel wakes the sleeper (put
 * the NON_STALL_INTERRUPT method after the release); the driver does not
 * poll.  A signal ends the wait with -ERESTARTSYS, and the ioctl is
 * restarted with the same absolute timeout.
 *
 * Errors: -EINVAL for non-zero @flags, an unaligned @va, or a queue that
 * is not user-submit; -ENOENT for an unknown @queue or nothing mapped at
 * @va; -EFAULT when the memory at @va is not CPU-visible; -ETIME when the
 * timeout passed first; the queue's error (-EIO, -ETIME, -ECANCELED or
 * -ENODEV, as DRM_IOCTL_TGPU_QUEUE_QUERY reports it) when the queue died
 * before the semaphore reached @value.
 */
struct drm_tgpu_wait {
	__u32 queue;
	__u32 flags;
	__u64 va;
	__u64 value;
	__s64 timeout_nsec;
};

/**
 * struct drm_tgpu_user_fence - DRM_IOCTL_TGPU_USER_FENCE: a syncobj fence
 *	for a semaphore reaching a value
 * @queue: a user-submit queue of the file, whose work releases the
 *	semaphore (in)
 * @syncobj: a syncobj handle; its fence is replaced by the new one (in)
 * @va: GPU address of the 64-bit semaphore, as struct drm_tgpu_wait's
 *	(in)
 * @value: the fence signals when the semaphore is at least this (in)
 * @flags: must be zero (in)
 * @pad: must be zero (in)
 *
 * Other processes and drivers can then wait for user-submitted work as
 * for any other: DRM_IOCTL_SYNCOBJ_WAIT, or poll()/epoll on the sync_file
 * exported from the syncobj.  Attach the fence after the work that
 * releases the semaphore is submitted.  A fence must signal in finite
 * time, so it fails: with the queue's error when the queue dies; with
 * -ETIME when the queue's channel is found idle (all its work fetched
 * and done) without the semaphore at @value, or when the queue is found
 * hung; with -ECANCELED when the queue is destroyed first.
 *
 * Errors: as DRM_IOCTL_TGPU_WAIT's for @queue, @va and @flags, plus
 * -EINVAL for non-zero @pad and -ENOENT for an unknown @syncobj; -ENOMEM
 * when kernel memory runs out.
 */
struct drm_tgpu_user_fence {
	__u32 queue;
	__u32 syncobj;
	__u64 va;
	__u64 value;
	__u32 flags;
	__u32 pad;
};

#define DRM_IOCTL_TGPU_GET_PARAM \
	DRM_IOWR(DRM_COMMAND_BASE + DRM_TGPU_GET_PARAM, struct drm_tgpu_get_param)
#define DRM_IOCTL_TGPU_GEM_CREATE \
	DRM_IOWR(DRM_COMMAND_BASE + DRM_TGPU_GEM_CREATE, struct drm_tgpu_gem_create)
#define DRM_IOCTL_TGPU_GEM_MMAP_OFFSET \
	DRM_IOWR(DRM_COMMAND_BASE + DRM_TGPU_GEM_MMAP_OFFSET, \
		 struct drm_tgpu_gem_mmap_offset)
#define DRM_IOCTL_TGPU_VM_BIND \
	DRM_IOW(DRM_COMMAND_BASE + DRM_TGPU_VM_BIND, struct drm_tgpu_vm_bind)
#define DRM_IOCTL_TGPU_VM_UNBIND \
	DRM_IOW(DRM_COMMAND_BASE + DRM_TGPU_VM_UNBIND, struct drm_tgpu_vm_unbind)
#define DRM_IOCTL_TGPU_QUEUE_CREATE \
	DRM_IOWR(DRM_COMMAND_BASE + DRM_TGPU_QUEUE_CREATE, \
		 struct drm_tgpu_queue_create)
#define DRM_IOCTL_TGPU_QUEUE_DESTROY \
	DRM_IOW(DRM_COMMAND_BASE + DRM_TGPU_QUEUE_DESTROY, \
		struct drm_tgpu_queue_destroy)
#define DRM_IOCTL_TGPU_SUBMIT \
	DRM_IOW(DRM_COMMAND_BASE + DRM_TGPU_SUBMIT, struct drm_tgpu_submit)
#define DRM_IOCTL_TGPU_QUEUE_QUERY \
	DRM_IOWR(DRM_COMMAND_BASE + DRM_TGPU_QUEUE_QUERY, \
		 struct drm_tgpu_queue_query)
#define DRM_IOCTL_TGPU_RESET_STATUS \
	DRM_IOWR(DRM_COMMAND_BASE + DRM_TGPU_RESET_STATUS, \
		 struct drm_tgpu_reset_status)
#define DRM_IOCTL_TGPU_WAIT \
	DRM_IOW(DRM_COMMAND_BASE + DRM_TGPU_WAIT, struct drm_tgpu_wait)
#define DRM_IOCTL_TGPU_USER_FENCE \
	DRM_IOW(DRM_COMMAND_BASE + DRM_TGPU_USER_FENCE, \
		struct drm_tgpu_user_fence)

#if defined(__cplusplus)
}
#endif

#endif /* TGPU_DRM_H */
