/*
 * tgpu: emulated Tesla-class compute GPU, device state shared by its units
 *
 * Copyright (c) 2026 The tgpu authors
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */

#ifndef HW_TGPU_TGPU_H
#define HW_TGPU_TGPU_H

#include "hw/pci/pci_device.h"
#include "qom/object.h"
#include "qemu/thread.h"
#include "qemu/thread-context.h"
#include "qemu/timer.h"
#include "qemu/notify.h"
#include "migration/vmstate.h"
#include "tgpu/regs.h"
#include "tgpu/channel.h"
#include "tgpu/copy.h"
#include "tgpu/ecc.h"
#include "tgpu/therm.h"
#include "tgpu/isa.h"
#include "tgpu/mmu.h"
#include "tgpu-engine.h"
#include "qapi/qapi-types-tgpu.h"

#define TYPE_TGPU "tgpu"
OBJECT_DECLARE_SIMPLE_TYPE(TGPUState, TGPU)

typedef struct TGPUKernel TGPUKernel;
typedef struct TGPUCopyHeld TGPUCopyHeld;

/* A board configuration: what model=p100|p40|m40 selects. */
typedef struct TGPUModel {
    const char *name;
    uint16_t device_id;
    uint8_t arch;
    uint8_t impl;
    uint64_t vram_size;
    uint32_t sm_count;
    uint32_t clk_sm_base_mhz;
    uint32_t clk_sm_boost_mhz;
    uint32_t clk_mem_mhz;
    uint32_t power_limit_mw;
    /* thermal, power and clocks (tgpu-therm.c, docs/hw/thermal.md) */
    uint32_t clk_sm_slowdown_mhz;   /* the hardware slowdown's clock */
    uint32_t clk_sm_min_mhz;
    uint32_t power_cap_min_mw;
    uint32_t therm_slowdown_mc, therm_shutdown_mc;
    uint32_t therm_tau_ms;          /* the board's thermal time constant */
    /* cycles of a float64 instruction: 1 / the FP64 rate (docs/hw/isa.md) */
    uint32_t f64_cost;
} TGPUModel;

/*
 * One channel: its registers, what enable read from its instance block,
 * and where it is in its command stream.
 */
typedef struct TGPUChannel {
    uint32_t id;
    uint32_t inst;              /* CHAN_INST */
    bool enabled;               /* CHAN_CTRL.ENABLE */
    uint32_t error;             /* TGPU_ERR_*, 0 when none */
    uint32_t error_info;
    /*
     * virtual ns its work had an engine (CHAN_BUSY_NS), counted from
     * BUSY_SINCE while BUSY_OPEN; HI latched
     */
    uint64_t busy_ns;
    int64_t busy_since;
    bool busy_open;
    uint32_t busy_hi;
    uint32_t gp_get;
    uint32_t gp_put;
    bool gp_put_dirty;          /* a doorbell came: re-read USERD.GP_PUT */

    /* from the instance block, read at enable */
    uint32_t flags;
    uint32_t asid;
    uint64_t pdb;
    uint64_t gpfifo_base;
    uint32_t gpfifo_entries;
    uint32_t engine;
    uint64_t userd;
    uint32_t priority;
    int64_t timeslice_ns;
    int64_t acq_timeout_ns;

    /* pushbuffer: current segment and the method header being executed */
    uint64_t pb_cur;
    uint64_t pb_end;
    uint32_t pb_buf[64];        /* prefetched pushbuffer dwords */
    uint64_t pb_buf_va;
    uint32_t pb_buf_len;        /* dwords in pb_buf from pb_buf_va */
    uint32_t mthd_op;
    uint32_t mthd_addr;
    uint32_t mthd_subch;
    uint32_t mthd_count;
    uint16_t subch_class[TGPU_PB_NR_SUBCH];

    /* host method registers */
    uint32_t sem_addr_lo, sem_addr_hi;
    uint32_t sem_payload_lo, sem_payload_hi;
    uint32_t mem_op_a, mem_op_b, mem_op_c;

    /* a semaphore acquire the channel waits on */
    bool blocked;
    uint32_t acq_exec;          /* its SEM_EXECUTE data */
    int64_t acq_start_ns;
    int64_t acq_next_try_ns;
    /*
     * PTIMER time before which work the engine holds between turns (a
     * preempted kernel) may not go on: a slice is a timeslice of
     * modelled time, so throughput follows the SM clock
     */
    int64_t hold_until_ns;
    bool acq_retry;             /* retry at the next scheduler pass */

    /* copy class state (tgpu-ce.c) */
    uint32_t ce_sem_a, ce_sem_b, ce_sem_payload;
    uint32_t ce_in_upper, ce_in_lower, ce_out_upper, ce_out_lower;
    uint32_t ce_pitch_in, ce_pitch_out, ce_line_length, ce_line_count;
    uint32_t ce_desc_upper, ce_desc_lower;
    uint32_t ce_const_a, ce_const_b, ce_remap;
    TGPUCopyHeld *ce_held;      /* a launch that gave way, for its next turn */

    /* compute class state (tgpu-compute.c) */
    uint32_t gr_prog_upper, gr_prog_lower, gr_prog_size;
    uint32_t gr_grid[3], gr_block[3];
    uint32_t gr_shared;
    uint32_t gr_param_upper, gr_param_lower, gr_param_size;
    uint32_t gr_sem_a, gr_sem_b, gr_sem_payload;
    TGPUKernel *gr_kernel;      /* launched and not finished */

    bool engine_wait;           /* its launch is on the engine now */
    bool fetch_hung;            /* an injected fetch hang holds it */
    /* an injected hang for its next work on its engine, and its number */
    TGPUHang hang;
    uint64_t hang_number;
} TGPUChannel;

/* An address space as an engine uses it: the channel's at launch time. */
typedef struct TGPUVmCtx {
    uint32_t chid;
    uint32_t flags;             /* TGPU_INST_FLAGS_* */
    uint32_t asid;
    uint64_t pdb;
} TGPUVmCtx;

static inline TGPUVmCtx tgpu_chan_vm(const TGPUChannel *ch)
{
    return (TGPUVmCtx) {
        .chid = ch->id, .flags = ch->flags, .asid = ch->asid, .pdb = ch->pdb,
    };
}

typedef struct TGPUTlbEntry {
    bool valid;
    bool large;
    uint16_t asid;
    uint64_t vpn;               /* VA >> 12, or VA >> 21 when large */
    uint64_t pte;
} TGPUTlbEntry;

/* Who makes an access: it decides whether privileged pages are in reach. */
typedef enum {
    TGPU_ACC_FETCH,             /* host unit: GPFIFO, pushbuffer, USERD */
    TGPU_ACC_SEM,               /* host unit: semaphore methods */
    TGPU_ACC_COPY,              /* copy engines */
    TGPU_ACC_COMPUTE,           /* compute engine: loads, stores, code */
} TGPUAccessor;

/*
 * A unit's block of BAR0 registers.  read sets *ok when the unit has the
 * register at ADDR (an offset in BAR0); write returns whether it took
 * the value; NULL: the block is read-only.
 */
typedef struct TGPURegBlock {
    const char *name;
    hwaddr base, size;
    uint32_t (*read)(TGPUState *s, hwaddr addr, bool *ok);
    bool (*write)(TGPUState *s, hwaddr addr, uint32_t val);
} TGPURegBlock;

#define TGPU_NR_REG_BLOCKS  10

/* The region of one block, as BAR0 maps it. */
typedef struct TGPURegRegion {
    TGPUState *s;
    const TGPURegBlock *block;
    MemoryRegion mr;
} TGPURegRegion;

typedef struct TGPURunlist {
    uint32_t base_lo, base_hi;
    uint32_t status;
    uint32_t count;
    uint16_t chid[TGPU_CHANNELS_MAX];
    int resident;               /* channel in its timeslice, or -1 */
    int last;                   /* channel the engine ran last, or -1 */
    uint32_t rr_next;           /* round robin: index to look at first */
    int64_t slice_left_ns;
} TGPURunlist;

/* An armed ECC error injection: the bits to flip in a 64-bit VRAM word. */
typedef struct TGPUEccInj {
    uint64_t addr;              /* 8-byte aligned */
    uint64_t mask;              /* one bit: SBE; two: DBE */
    bool sticky;
    uint64_t number;            /* as QMP's tgpu-inject-ecc returns it */
} TGPUEccInj;

/* An error that happened, for the TGPU_ECC_ERROR event. */
typedef struct TGPUEccEvent {
    uint64_t addr;
    uint8_t type, engine;
    uint16_t chid;
} TGPUEccEvent;

#define TGPU_ECC_EVENTS     16  /* queued for the bottom half at most */
#define TGPU_ECC_PERSIST_MS 1000    /* the InfoROM's counts: write delay */

/* A BAR1 page with an armed error: MMIO over the RAM, for the CPU. */
typedef struct TGPUEccPoison {
    TGPUState *s;
    MemoryRegion mr;
    uint64_t page;              /* VRAM offset, when mapped */
    bool mapped;
} TGPUEccPoison;

/* An entry of the ECC address log. */
typedef struct TGPUEccLog {
    uint64_t addr;
    uint64_t time;              /* PTIMER */
    uint8_t type;               /* TGPU_ECC_TYPE_* */
    uint8_t engine;             /* TGPU_ECC_ENGINE_* */
    uint16_t chid;              /* TGPU_ECC_NO_CHID: none */
} TGPUEccLog;

/*
 * An injection from the monitor (tgpu-fault.c): what it does, as the
 * command's arguments had it, and how far its trigger has got.
 */
typedef struct TGPUFaultInj {
    uint64_t number;
    TgpuInjectionKind kind;
    /* the command's arguments: one of them */
    TgpuInjectEcc *ecc;
    TgpuInjectHang *hang;
    TgpuInjectFault *fault;
    bool has_trigger;
    bool timed;                 /* at_ns, not events */
    TgpuTriggerEvent event;
    int64_t trig_chid;          /* count only this channel's; -1: any */
    uint64_t after, seen;
    int64_t at_ns;
    bool due;                   /* the trigger was reached: fire it */
    bool fired;
    uint32_t remaining;         /* of a fired fault's count */
} TGPUFaultInj;

/* sm-clock-divider: from modelled speed down to a host's interpreter's */
#define TGPU_SM_CLOCK_DIVIDER_MAX   100000

#define TGPU_FAULT_INJ_MAX      64
#define TGPU_FAULT_COUNT_MAX    1000000

/* Fired faults with a count left, which data paths look for. */
enum {
    TGPU_FAULT_ACTIVE_ILLEGAL = 1u << 0,
    TGPU_FAULT_ACTIVE_IRQ = 1u << 1,
    TGPU_FAULT_ACTIVE_DOORBELL = 1u << 2,
    TGPU_FAULT_ACTIVE_DMA = 1u << 3,
};

struct TGPUState {
    PCIDevice parent_obj;

    /* properties */
    char *model_name;
    uint64_t vram_size;         /* 0: the model's own */
    uint32_t sm_count;          /* 0: the model's own */
    uint32_t num_channels;
    bool deterministic;         /* engines only on the virtual clock */
    uint32_t sm_clock_divider;  /* kernels paced at 1/N of the SM clock */

    const TGPUModel *model;

    MemoryRegion bar0;          /* container: registers + MSI-X */
    MemoryRegion mmio;          /* the units' blocks, and between them */
    TGPURegRegion regs[TGPU_NR_REG_BLOCKS];
    MemoryRegion bar1;          /* container: VRAM, then nothing */
    MemoryRegion vram;

    /* PMC */
    uint32_t pmc_scratch;
    uint32_t pmc_intr_en;

    /* PTIMER: the kernel's and user space's copies latch separately */
    uint32_t ptimer_latch;
    uint32_t ptimer_user_latch;

    /* PFIFO and channels (tgpu-host.c) */
    TGPUChannel *chan;
    uint32_t chans_blocked;     /* channels waiting in a semaphore acquire */
    TGPURunlist runlist[TGPU_NR_RUNLISTS];
    uint32_t fifo_intr;         /* RUNLIST bit; CHAN_ERROR is computed */
    uint32_t fifo_intr_en;
    uint32_t nonstall_intr;
    uint32_t nonstall_intr_en;
    uint32_t doorbells;
    uint32_t doorbells_bad;
    uint32_t ctxsw_count;
    uint32_t err_pending[TGPU_CHANNELS_MAX / 32];
    uint32_t nonstall_pending[TGPU_CHANNELS_MAX / 32];
    TGPUDefer host_defer;       /* a scheduler pass */
    bool host_pass;             /* one runs: engines may run work in it */
    QEMUTimer *acquire_timer;

    /* the engines, by runlist (tgpu-engine.c) */
    TGPUEngine *engine[TGPU_NR_RUNLISTS];

    /* compute engine (tgpu-compute.c) */
    struct TGPUComputeEngine *gr;
    ThreadContext *gr_thread_ctx;       /* property compute-thread-context */

    /* copy engines (tgpu-ce.c) */
    struct TGPUCopyEngine *ce[TGPU_CE_COUNT];
    ThreadContext *ce_thread_ctx[TGPU_CE_COUNT]; /* ce<n>-thread-context */

    /* MMU (tgpu-mmu.c); mmu_lock guards the TLB and its counters */
    QemuMutex mmu_lock;
    bool tlb_tagging;
    TGPUTlbEntry tlb[TGPU_TLB_SETS][TGPU_TLB_WAYS];
    uint8_t tlb_victim[TGPU_TLB_SETS];
    uint32_t mmu_intr;
    uint32_t mmu_intr_en;
    uint32_t fault_buf_lo, fault_buf_hi;
    uint32_t fault_buf_size, fault_buf_get, fault_buf_put;
    uint32_t fault_count;
    uint32_t inv_asid, inv_va_lo, inv_va_hi, inv_pages;
    uint32_t tlb_hits, tlb_misses, tlb_fills, tlb_flushes, tlb_evictions;
    uint32_t mmu_walks;
    /* bumped (under mmu_lock) whenever TLB entries are dropped */
    uint64_t tlb_gen;
    uint8_t *vram_ptr;          /* host address of VRAM, fixed at realize */

    /* ECC (tgpu-ecc.c) and the InfoROM (tgpu-inforom.c) */
    bool ecc_cap;               /* property ecc */
    char *inforom_path;         /* property inforom; NULL: volatile store */
    bool ecc_ctrl;              /* ECC_CTRL.ENABLE as accepted */
    uint32_t ecc_state;         /* TGPU_ECC_STATE_* */
    uint32_t ecc_status_err;    /* TGPU_ECC_STATUS_ERR_* */
    uint32_t ecc_intr;
    uint32_t ecc_intr_en;
    uint64_t ecc_scrub_ns;
    QEMUTimer *ecc_scrub_timer;
    /*
     * ECC errors.  Engine threads read VRAM without the BQL: ecc_lock
     * covers the injections, counters and log; ecc_inj_nr is also read
     * without it, as the fast path of every VRAM read.
     */
    QemuMutex ecc_lock;
    uint32_t ecc_inj_nr;
    TGPUEccInj ecc_inj[TGPU_ECC_INJ_MAX];       /* oldest first */
    TGPUEccEvent ecc_events[TGPU_ECC_EVENTS];
    uint32_t ecc_events_nr;
    uint64_t ecc_inj_addr, ecc_inj_mask;        /* INJ_ADDR, INJ_MASK */
    uint32_t ecc_inj_mode;
    uint32_t ecc_inj_err;                       /* TGPU_ECC_INJ_ERR_* */
    uint32_t ecc_inj_select;
    uint32_t ecc_sbe_vol, ecc_dbe_vol, ecc_sbe_agg, ecc_dbe_agg;
    bool ecc_agg_dirty;         /* the InfoROM's counts are behind */
    QEMUTimer *ecc_persist_timer;       /* writes them, at most 1/s */
    Notifier ecc_exit_notifier;         /* ... and at QEMU's exit */
    TGPUEccLog ecc_log[TGPU_ECC_LOG_ENTRIES];   /* a ring */
    uint32_t ecc_log_head, ecc_log_nr;          /* oldest entry, count */
    bool ecc_log_overflow;
    uint32_t ecc_log_select;
    TGPUDefer ecc_defer;        /* under the BQL: interrupt, BAR1 overlays */
    bool ecc_raise;             /* the BH raises the ECC interrupt */
    TGPUEccPoison ecc_poison[TGPU_ECC_INJ_MAX];
    struct tgpu_inforom inforom;        /* the file's entries, all of them */

    /* thermal, power and clocks (tgpu-therm.c), under the BQL */
    int32_t therm_ambient_c;    /* property ambient-temp */
    double therm_ambient;       /* the model's: the property, or QMP's */
    double therm_temp;          /* degrees C */
    int64_t therm_last_ns;      /* virtual time of the last tick */
    QEMUTimer *therm_timer;
    uint32_t therm_alert_high, therm_alert_low;     /* milli-degrees C */
    bool therm_was_high, therm_was_low;
    bool therm_slowdown, therm_halted;
    uint32_t therm_intr, therm_intr_en, therm_err;
    uint32_t therm_clk_request, therm_clk, therm_sw_thermal;
    uint32_t therm_reasons, therm_power_mw, therm_cap_mw, therm_gating;
    /* activity and reason time since reset, ns; the last second's ticks */
    uint64_t therm_busy_ns[TGPU_THERM_BUSY_ANY + 1];
    uint64_t therm_reason_ns[TGPU_THERM_REASON_BITS];
    uint8_t therm_window[TGPU_THERM_UTIL_WINDOW_MS * 1000000ull /
                         TGPU_THERM_TICK_NS];  /* busy engines per tick */
    uint32_t therm_window_pos, therm_window_n;
    uint32_t therm_latch_hi;    /* the HI half latched by a LO read */
    /* forced by QMP's tgpu-set-thermal: a ramp, then a hold */
    bool therm_forced;
    double therm_ramp_from, therm_ramp_to;      /* degrees C */
    int64_t therm_ramp_start_ns, therm_ramp_ns;
    uint64_t therm_mig[4];      /* migration: the doubles above, as bits */
    uint8_t retired_idx[TGPU_INFOROM_MAX_RETIRED]; /* shown: in VRAM, once */
    uint32_t retired_nr;
    uint32_t retired_select;
    uint64_t retire_addr;       /* ECC_RETIRE_ADDR */
    uint32_t retire_cause, retire_status;

    /*
     * Injections (tgpu-fault.c).  fault_lock guards the list; engine
     * threads count VRAM reads and use up DMA errors, so fault_watch and
     * fault_active are read without it, as fast paths.
     */
    char *fault_plan;           /* property fault-plan */
    QemuMutex fault_lock;
    TGPUFaultInj *fault_inj[TGPU_FAULT_INJ_MAX];    /* oldest first */
    uint32_t fault_inj_nr;
    uint64_t inj_seq;           /* the last injection's number */
    uint32_t fault_watch[TGPU_TRIGGER_EVENT__MAX];  /* unfired, by event */
    uint32_t fault_active;      /* TGPU_FAULT_ACTIVE_* */
    TGPUDefer fault_defer;      /* fires what threads made due */
    QEMUTimer *fault_timer;     /* the next at-ns trigger */
    /* hangs in effect: the host unit's, each runlist's fetch */
    TgpuHangKind host_hang;
    bool host_hung;
    bool runlist_fetch_hung[TGPU_NR_RUNLISTS];
    uint64_t host_progress;     /* GPFIFO entries and methods taken */
    bool bus_lost;
    MemoryRegion bus_lost_bar0, bus_lost_bar1;
    NotifierWithReturn fault_mig_notifier;  /* refuses while faults act */
    /* loaded: the units take their work up when the VM runs */
    bool mig_restore;
    /* a load began and has not passed every check (tgpu_pre_load) */
    bool mig_loading;
    VMChangeStateEntry *mig_vmstate;
};

/*
 * A time of the virtual clock from a migration stream: not negative, and
 * far enough from INT64_MAX (2^62 ns: 146 years) that no sum or
 * difference of two of them, or of one and a timeslice, overflows.
 */
#define TGPU_MIG_TIME_MAX   (INT64_C(1) << 62)

static inline bool tgpu_mig_time_valid(int64_t ns)
{
    return ns >= 0 && ns <= TGPU_MIG_TIME_MAX;
}

/* Each unit's part of the device's migration state (tgpu-pci.c's). */
extern const VMStateDescription tgpu_vmstate_host;
extern const VMStateDescription tgpu_vmstate_chan_kernel;
extern const VMStateDescription tgpu_vmstate_chan_copy;
extern const VMStateDescription tgpu_vmstate_mmu;
extern const VMStateDescription tgpu_vmstate_ecc;
extern const VMStateDescription tgpu_vmstate_therm;
extern const VMStateDescription tgpu_vmstate_ce;
extern const VMStateDescription tgpu_vmstate_gr;
/* after a load, all sections in: cross-unit checks (false: refuse) */
bool tgpu_ce_loaded(TGPUState *s);
bool tgpu_gr_loaded_valid(TGPUState *s);
/* when the loaded VM first runs: work taken up again */
void tgpu_ce_restore(TGPUState *s);
void tgpu_gr_restore(TGPUState *s);
void tgpu_ecc_restore(TGPUState *s);

/* Interrupt units: PMC_INTR bits and MSI-X vectors share the numbering. */
enum {
    TGPU_UNIT_FIFO = 0,
    TGPU_UNIT_NONSTALL = 1,
    TGPU_UNIT_MMU = 2,
    TGPU_UNIT_ECC = 3,
    TGPU_UNIT_THERMAL = 4,
};

/* tgpu-engine.c: every engine's */
void tgpu_engines_quiesce(TGPUState *s);

/* tgpu-pci.c: an engine's thread, placed by its thread-context if set */
void tgpu_engine_thread_create(ThreadContext *tc, QemuThread *thread,
                               const char *name, void *(*fn)(void *),
                               void *opaque);

/* tgpu-pmc.c: identity and master control */
uint32_t tgpu_pmc_read(TGPUState *s, hwaddr addr, bool *ok);
bool tgpu_pmc_write(TGPUState *s, hwaddr addr, uint32_t val);
void tgpu_pmc_reset(TGPUState *s);

/* tgpu-irq.c: top-level interrupt status and delivery */
uint32_t tgpu_intr_status(TGPUState *s);
void tgpu_irq_raise(TGPUState *s, unsigned int unit);
void tgpu_irq_update(TGPUState *s);

/* tgpu-ptimer.c */
uint64_t tgpu_ptimer_now(TGPUState *s);
uint32_t tgpu_ptimer_read(TGPUState *s, hwaddr addr, bool *ok);

/* tgpu-mmu.c: the GPU address space of a channel */

/* A run of guest RAM mapped for direct access, never an MMIO bounce. */
typedef struct TGPUSysmemMap {
    MemoryRegionCache cache;
    bool mapped;
    bool is_write;
} TGPUSysmemMap;

MemTxResult tgpu_gpu_rw(TGPUState *s, TGPUChannel *ch, TGPUAccessor who,
                        uint64_t va, void *buf, uint64_t len, bool is_write);
void tgpu_mmu_invalidate(TGPUState *s, uint32_t asid, uint64_t va,
                         uint64_t pages);
int tgpu_mmu_translate_run(TGPUState *s, const TGPUVmCtx *ctx,
                           TGPUAccessor who, uint64_t va, uint64_t max,
                           bool is_write, uint64_t *pa, bool *sysmem,
                           uint64_t *len);
void tgpu_mmu_forget(TGPUState *s, const TGPUVmCtx *ctx, uint64_t va);
void tgpu_fuzz_dma_step(void);
uint8_t *tgpu_sysmem_map(TGPUState *s, uint64_t pa, uint64_t *len,
                         bool is_write, TGPUSysmemMap *m);
void tgpu_sysmem_unmap(TGPUSysmemMap *m, uint64_t written);
bool tgpu_sysmem_rw(TGPUState *s, uint64_t pa, void *buf, uint64_t len,
                    bool is_write);
void tgpu_mmu_report_fault(TGPUState *s, const TGPUVmCtx *ctx,
                           unsigned int engine, uint64_t va, bool is_write,
                           int type);
void tgpu_mmu_context_switch(TGPUState *s);
MemTxResult tgpu_vram_read(TGPUState *s, uint64_t addr, void *buf,
                           uint64_t len, unsigned int engine, uint32_t chid);
bool tgpu_vram_write(TGPUState *s, uint64_t addr, const void *buf,
                     uint64_t len);
uint32_t tgpu_mmu_read(TGPUState *s, hwaddr addr, bool *ok);
bool tgpu_mmu_write(TGPUState *s, hwaddr addr, uint32_t val);
void tgpu_mmu_reset(TGPUState *s);
void tgpu_mmu_init(TGPUState *s);
void tgpu_mmu_exit(TGPUState *s);

/* The engine of the channel's runlist, or NULL when it names none. */
static inline TGPUEngine *tgpu_chan_engine(TGPUState *s, TGPUChannel *ch)
{
    return ch->engine < TGPU_NR_RUNLISTS ? s->engine[ch->engine] : NULL;
}

/* tgpu-host.c: channels, PFIFO, runlists, the scheduler */
void tgpu_host_init(TGPUState *s);
void tgpu_host_exit(TGPUState *s);
void tgpu_host_reset(TGPUState *s);
uint32_t tgpu_host_read(TGPUState *s, hwaddr addr, bool *ok);
bool tgpu_host_write(TGPUState *s, hwaddr addr, uint32_t val);
uint32_t tgpu_fifo_intr_status(TGPUState *s);
uint32_t tgpu_chan_state(TGPUState *s, TGPUChannel *ch);
void tgpu_host_engine_reset(TGPUState *s, uint32_t engines);
void tgpu_chan_fail(TGPUState *s, TGPUChannel *ch, uint32_t code,
                    uint32_t info);
void tgpu_chan_set_blocked(TGPUState *s, TGPUChannel *ch, bool blocked);
void tgpu_chan_nonstall(TGPUState *s, TGPUChannel *ch);
void tgpu_host_kick(TGPUState *s);

/* tgpu-pbdma.c: a channel's command stream */
/* What running a channel for a while ended with. */
typedef enum {
    TGPU_RUN_BUDGET,    /* the pass's budget is spent: continue next pass */
    TGPU_RUN_SLICE,     /* timeslice used up or YIELD: let others run */
    TGPU_RUN_STOP,      /* idle, blocked, disabled or failed */
} TGPURunResult;

/*
 * Run CH's command stream on runlist RL until its slice, its work or the
 * pass's *BUDGET (one per GPFIFO entry or dword) ends.
 */
TGPURunResult tgpu_pbdma_run(TGPUState *s, TGPUChannel *ch, TGPURunlist *rl,
                             int *budget, int64_t now);
void tgpu_pbdma_recheck_acquires(TGPUState *s, int64_t now);
bool tgpu_sem_release(TGPUState *s, TGPUChannel *ch, uint64_t addr,
                      uint64_t payload, bool is64, bool timestamp);
void tgpu_launch_done(TGPUState *s, TGPUChannel *ch, uint32_t launch,
                      uint64_t sem_addr, uint32_t payload);

/* tgpu-compute.c: the compute engine */
void tgpu_gr_init(TGPUState *s);
void tgpu_gr_exit(TGPUState *s);
void tgpu_gr_reset(TGPUState *s);
uint32_t tgpu_gr_read(TGPUState *s, hwaddr addr, bool *ok);

/* tgpu-fault.c: injections, their triggers, the faults they cause */
void tgpu_fault_init(TGPUState *s);
void tgpu_fault_exit(TGPUState *s);
void tgpu_fault_reset(TGPUState *s);
bool tgpu_fault_load_plan(TGPUState *s, Error **errp);
/* the largest fault-plan= file (docs/fault-injection.md) */
#define TGPU_FAULT_PLAN_MAX_SIZE    (1u << 20)     /* 1 MiB */

/*
 * tgpu-file.c: a regular file named by a property, at most @max bytes
 * and one more to tell a longer file (*@len > @max: the caller says
 * why that is too long).  1: read, *@data NUL-terminated, to g_free();
 * 0: the file does not exist; -1: any other error.  0 and -1 set @errp
 * ("tgpu: WHAT PATH is not a regular file", ...).
 */
int tgpu_file_read(const char *path, const char *what, size_t max,
                   uint8_t **data, size_t *len, Error **errp);
/* An injection from QMP or HMP, or (PLAN) a fault plan's line. */
uint64_t tgpu_fault_add_ecc(TGPUState *s, const TgpuInjectEcc *a,
                            bool plan, Error **errp);
uint64_t tgpu_fault_add_hang(TGPUState *s, const TgpuInjectHang *a,
                             bool plan, Error **errp);
uint64_t tgpu_fault_add_fault(TGPUState *s, const TgpuInjectFault *a,
                              bool plan, Error **errp);
void tgpu_fault_clear(TGPUState *s);
bool tgpu_fault_migratable(TGPUState *s, Error **errp);
void tgpu_fault_set_bus_lost(TGPUState *s, bool lost);
TgpuPendingInjectionList *tgpu_fault_query(TGPUState *s);
char *tgpu_fault_plan_text(TGPUState *s);
void tgpu_fault_count_slow(TGPUState *s, TgpuTriggerEvent ev, uint32_t chid);
bool tgpu_fault_take(TGPUState *s, uint32_t active, int64_t chid);
void tgpu_fault_chan_queued(TGPUState *s, TGPUChannel *ch, TGPUEngine *e);

/* An event a trigger may count happened, for channel CHID.  Any thread. */
static inline void tgpu_fault_count(TGPUState *s, TgpuTriggerEvent ev,
                                    uint32_t chid)
{
    if (unlikely(qatomic_read(&s->fault_watch[ev]))) {
        tgpu_fault_count_slow(s, ev, chid);
    }
}

/*
 * Use up one of a fired fault's count (TGPU_FAULT_ACTIVE_*) that
 * applies to CHID (a channel, or a vector for interrupts; -1: none):
 * true when this access is the one it hits.  Any thread.
 */
static inline bool tgpu_fault_hits(TGPUState *s, uint32_t active,
                                   int64_t chid)
{
    if (likely(!(qatomic_read(&s->fault_active) & active))) {
        return false;
    }
    return tgpu_fault_take(s, active, chid);
}

/* tgpu-inforom.c: the InfoROM store and its registers */
bool tgpu_inforom_load(TGPUState *s, Error **errp);
bool tgpu_inforom_persist(TGPUState *s, Error **errp);
bool tgpu_inforom_loaded_valid(TGPUState *s);
uint32_t tgpu_inforom_retire(TGPUState *s, uint64_t addr, uint32_t cause,
                             Error **errp);
uint32_t tgpu_inforom_read(TGPUState *s, hwaddr addr, bool *ok);
bool tgpu_inforom_write(TGPUState *s, hwaddr addr, uint32_t val);
void tgpu_inforom_reset(TGPUState *s);

/* tgpu-ecc.c: ECC control, errors, injection */
void tgpu_ecc_init(TGPUState *s);
void tgpu_ecc_exit(TGPUState *s);
void tgpu_ecc_reset(TGPUState *s);
uint32_t tgpu_ecc_read(TGPUState *s, hwaddr addr, bool *ok);
bool tgpu_ecc_write(TGPUState *s, hwaddr addr, uint32_t val);
bool tgpu_ecc_vram_read_slow(TGPUState *s, uint64_t addr, uint64_t len,
                             unsigned int engine, uint32_t chid,
                             uint64_t *bad);
void tgpu_ecc_vram_write_slow(TGPUState *s, uint64_t addr, uint64_t len);
uint32_t tgpu_ecc_arm(TGPUState *s, uint64_t addr, uint64_t mask,
                      bool sticky, uint64_t *number);
void tgpu_ecc_clear_injections(TGPUState *s);

/*
 * Before ENGINE (TGPU_ECC_ENGINE_*), for channel CHID, reads
 * [addr, addr + len) of VRAM: the injected errors there happen.  True
 * when the data may be used (none, or corrected SBEs; with ECC off the
 * flips are then in VRAM); false for a DBE, at the 64-bit word *BAD.
 * Any thread.
 */
static inline bool tgpu_ecc_vram_read(TGPUState *s, uint64_t addr,
                                      uint64_t len, unsigned int engine,
                                      uint32_t chid, uint64_t *bad)
{
    bool ok = true;

    if (unlikely(qatomic_read(&s->ecc_inj_nr))) {
        ok = tgpu_ecc_vram_read_slow(s, addr, len, engine, chid, bad);
    }
    /* a trigger counts the reads of the host unit and the engines */
    if (engine <= TGPU_ECC_ENGINE_CE1) {
        tgpu_fault_count(s, TGPU_TRIGGER_EVENT_VRAM_READS, chid);
    }
    return ok;
}

/* [addr, addr + len) of VRAM is written: its words lose injections. */
static inline void tgpu_ecc_vram_write(TGPUState *s, uint64_t addr,
                                       uint64_t len)
{
    if (unlikely(qatomic_read(&s->ecc_inj_nr))) {
        tgpu_ecc_vram_write_slow(s, addr, len);
    }
}

/* tgpu-therm.c: thermal, power and clocks */
bool tgpu_therm_check(TGPUState *s, Error **errp);
void tgpu_therm_init(TGPUState *s);
void tgpu_therm_exit(TGPUState *s);
void tgpu_therm_reset(TGPUState *s);
uint32_t tgpu_therm_read(TGPUState *s, hwaddr addr, bool *ok);
bool tgpu_therm_write(TGPUState *s, hwaddr addr, uint32_t val);
bool tgpu_therm_halted(TGPUState *s);
bool tgpu_therm_loaded_valid(TGPUState *s);
void tgpu_therm_force(TGPUState *s, double from, double to, int64_t ns);
void tgpu_therm_release(TGPUState *s);
void tgpu_therm_set_ambient(TGPUState *s, double c);
uint32_t tgpu_therm_clock_mhz(TGPUState *s);

/* tgpu-qmp.c: the monitor's side */
void tgpu_qmp_ecc_event(const char *path, bool dbe, uint64_t addr,
                        unsigned int engine, uint32_t chid);
void tgpu_qmp_thermal_event(TGPUState *s, uint32_t intr_bit, bool on,
                            int32_t temp_mc);
void tgpu_qmp_chan_error_event(TGPUState *s, uint32_t chid, uint32_t code,
                               uint32_t info);
void tgpu_qmp_mmu_fault_event(TGPUState *s, const TGPUVmCtx *ctx,
                              unsigned int engine, uint64_t va,
                              bool is_write, const char *type);

/* tgpu-ce.c: the copy engines */
void tgpu_ce_init(TGPUState *s);
void tgpu_ce_exit(TGPUState *s);
void tgpu_ce_reset(TGPUState *s);
uint32_t tgpu_ce_read(TGPUState *s, hwaddr addr, bool *ok);

#endif /* HW_TGPU_TGPU_H */
