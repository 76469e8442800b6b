#!/bin/sh
# soak-guest [--layers=1236] [--scale=N]: the guest side of make soak
# (layer 7 of the funnel).  The host side, tests/soak/tgpu-soak, reads
# these lines on the console (ttyS0) and answers on it: before each
# iteration the guest prints "# soak-ready: I" and reads "next MODE PATH"
# or "stop", where PATH is libtgpu's submission path for the iteration
# (TGPU_SUBMIT: user or kernel) and MODE is
#   n  a target process (soak-target) runs while the funnel's layers run
#      beside it, one after another, as the innocent work that no fault
#      may lose: 1 test-funnel-submit, 2 test-funnel-isolation,
#      3 test-funnel-fence, 6 test-funnel-coexist
#   x  the target alone: the fault (a DMA error) hits whatever DMA comes
#      next, so nothing innocent runs
#   b  the target alone, then the device falls off the bus: the host
#      brings it back and the driver is bound again
#
# Each iteration prints, for the host:
#   # soak-ready: I, then   # soak-iter: I MODE PATH
#   # soak-inject: I pid P asid A vram ADDR channels C:ENGINE,...
#       (the host aims the iteration's fault at that process)
#   # soak-layer: I L rc R seconds S     (with its output if R is not 0)
#   # soak-target: I rc R: its last line
#   # soak-restore: I          (b: the host restores the bus, answers "restored")
#   # soak-dmesg: I LINE        (the kernel log of the iteration)
#   # soak-coredump: I NAME BYTES, then its gzip as base64, "# soak-cd: ..."
#   # soak-mem: I vram_used BYTES slab_kb K
#   # soak-end: I
# and at the end "# soak-smi: ..." (tgpu-smi -q) and "# soak-done: N".
tests=/usr/libexec/tgpu-tests
layers=1236 scale=1
for a; do
    case "$a" in
        --layers=*) layers=${a#*=} ;;
        --scale=*) scale=${a#*=} ;;
        *) echo "usage: soak-guest [--layers=1236] [--scale=N]" >&2; exit 2 ;;
    esac
done

node=/dev/dri/renderD128
minor=$(stat -c %T "$node" 2>/dev/null)
dbg=/sys/kernel/debug/dri/$((0x${minor:-80}))
bdf=$(basename "$(readlink /sys/class/drm/renderD128/device)")
w=/tmp/soak
mkdir -p "$w"
stty -echo -F /dev/ttyS0 2>/dev/null
# SysRq from the host's keyboard, for a task list when the guest is stuck
echo 1 >/proc/sys/kernel/sysrq
dmesg -c >/dev/null

# run_layer I L: one layer of the funnel, its status and time
run_layer() {
    case $2 in
        1) set -- "$1" "$2" test-funnel-submit --threads=2 --submissions=$((1000 * scale)) --seed="$1" ;;
        2) set -- "$1" "$2" test-funnel-isolation --contexts=$((8 * scale)) --rounds=4 --bad-every=4 ;;
        3) set -- "$1" "$2" test-funnel-fence --threads=2 --waits=$((1000 * scale)) ;;
        6) set -- "$1" "$2" test-funnel-coexist ;;
        *) echo "# soak-layer: $1 $2 rc 2 seconds 0 (no such layer)"; return ;;
    esac
    i=$1 l=$2 prog=$3
    shift 3
    t0=$(cut -d' ' -f1 /proc/uptime)
    "$tests/$prog" "$@" >"$w/layer.out" 2>&1
    rc=$?
    t1=$(cut -d' ' -f1 /proc/uptime)
    echo "# soak-layer: $i $l rc $rc seconds $(echo "$t0 $t1" | awk '{printf "%.1f", $2 - $1}')"
    [ "$rc" -eq 0 ] || sed "s/^/# soak-out: $i $l /" "$w/layer.out" | tail -n 40
}

i=0
while :; do
    i=$((i + 1))
    echo "# soak-ready: $i"
    read -r cmd mode path </dev/ttyS0 || break
    [ "$cmd" = next ] || break
    # libtgpu's submission path for the iteration's processes
    [ -n "$path" ] && export TGPU_SUBMIT="$path"
    echo "# soak-iter: $i $mode ${TGPU_SUBMIT:-user}"
    rm -f "$w/ready" "$w/stop"
    "$tests/soak-target" --ready="$w/ready" --stop="$w/stop" >"$w/target.out" 2>&1 &
    tpid=$!
    n=0
    while [ ! -f "$w/ready" ] && [ "$n" -lt 600 ] && kill -0 "$tpid" 2>/dev/null; do
        sleep 0.1
        n=$((n + 1))
    done
    if [ -f "$w/ready" ]; then
        echo "# soak-inject: $i $(cat "$w/ready")"
    else
        echo "# soak-inject: $i none (the target did not start: $(tail -n 1 "$w/target.out"))"
    fi
    case "$mode" in
        n)
            for l in $(echo "$layers" | sed 's/./& /g'); do
                run_layer "$i" "$l"
            done ;;
        *)
            # the fault ends the target; 30 s at most
            n=0
            while kill -0 "$tpid" 2>/dev/null && [ "$n" -lt 300 ]; do
                sleep 0.1
                n=$((n + 1))
            done ;;
    esac
    touch "$w/stop"
    wait "$tpid"
    echo "# soak-target: $i rc $?: $(tail -n 1 "$w/target.out")"
    if [ "$mode" = b ]; then
        n=0
        until dmesg | grep -q 'Xid 79'; do
            [ "$n" -ge 300 ] && break
            sleep 0.1
            n=$((n + 1))
        done
        echo "# soak-restore: $i"
        read -r answer </dev/ttyS0
        [ -e "/sys/bus/pci/drivers/tgpu/$bdf" ] &&
            echo "$bdf" >/sys/bus/pci/drivers/tgpu/unbind
        echo "$bdf" >/sys/bus/pci/drivers/tgpu/bind ||
            echo "# soak-error: $i the driver did not bind again after the bus came back ($answer)"
        n=0
        while [ ! -e "$node" ] && [ "$n" -lt 100 ]; do
            sleep 0.1
            n=$((n + 1))
        done
    fi
    dmesg -c | sed "s/^/# soak-dmesg: $i /"
    for d in /sys/class/devcoredump/devcd*; do
        [ -e "$d/data" ] || continue
        gzip -c "$d/data" >"$w/cd.gz"
        echo "# soak-coredump: $i $(basename "$d") $(wc -c <"$w/cd.gz")"
        base64 "$w/cd.gz" | sed 's/^/# soak-cd: /'
        echo 1 >"$d/data"
    done
    vram=$(sed -n 's/^total .* vram_used \([0-9]*\)$/\1/p' "$dbg/files" 2>/dev/null)
    # empty slabs, and KASAN's quarantine of freed objects, given back
    # first (kmem_cache_shrink(); guest-baseline.h's shrink_slabs())
    for c in /sys/kernel/slab/*; do
        [ -L "$c" ] || echo 1 >"$c/shrink"
    done 2>/dev/null
    slab=$(sed -n 's/^Slab: *\([0-9]*\) kB$/\1/p' /proc/meminfo)
    echo "# soak-mem: $i vram_used ${vram:-none} slab_kb $slab"
    echo "# soak-end: $i"
done
tgpu-smi -q 2>&1 | sed 's/^/# soak-smi: /'
echo "# soak-done: $((i - 1))"
