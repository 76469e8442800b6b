#!/bin/sh
# SPDX-License-Identifier: MIT
#
# Layer 0 of the reliability funnel: programs that no one here wrote,
# from Debian's packages, run against tgpu in the guest, each checked for
# what it must show (lm-sensors' sensors is test-hwmon's):
#
#   libdrm-tests' drmdevice    drmGetDevices2() finds the render node,
#                              with its PCI address and IDs
#   intel-gpu-tools' lsgpu     udev enumeration lists the device
#   pciutils' lspci -vvv       the PM, PCIe, MSI-X and AER capabilities
#                              decode cleanly, with no "<?>"
#
# A failure is a bug in tgpu, not in the tool.  Output is TAP; the exit
# status is non-zero if any check failed.

n=0
failed=0
ok() { n=$((n + 1)); echo "ok $n - $1"; }
not_ok() { n=$((n + 1)); failed=$((failed + 1)); echo "not ok $n - $1"; }
# check DESCRIPTION COMMAND...: ok when COMMAND succeeds
check() {
    d=$1
    shift
    if "$@"; then ok "$d"; else not_ok "$d"; fi
}
# has FILE TEXT: FILE holds TEXT (fixed string)
has() { grep -qF -- "$2" "$1"; }
show() { sed 's/^/#   /' "$1"; }

node=/dev/dri/renderD128
sys=/sys/class/drm/renderD128/device
[ -e "$node" ] || { echo "Bail out! no $node"; exit 1; }
bdf=$(basename "$(readlink "$sys")")
vendor=$(sed 's/^0x//' "$sys/vendor")
device=$(sed 's/^0x//' "$sys/device")
domain=${bdf%%:*}
rest=${bdf#*:}
bus=${rest%%:*}
rest=${rest#*:}
slot=${rest%%.*}
func=${rest#*.}
out=/tmp/clients.$$
mkdir -p "$out"

# ---- drmdevice -----------------------------------------------------------
drmdevice >"$out/drmdevice" 2>&1
check "drmdevice exits 0" [ $? -eq 0 ]
check "drmdevice: drmGetDevices2 lists $node" has "$out/drmdevice" "$node"
check "drmdevice: on PCI $domain:$bus:$slot.$func" \
    sh -c "grep -q 'domain *$domain' '$out/drmdevice' &&
           grep -q 'bus *$bus' '$out/drmdevice' &&
           grep -q 'dev *$slot' '$out/drmdevice' &&
           grep -q 'func *$func' '$out/drmdevice'"
check "drmdevice: vendor $vendor, device $device" \
    sh -c "grep -qi 'vendor_id *$vendor' '$out/drmdevice' &&
           grep -qi 'device_id *$device' '$out/drmdevice'"
[ "$failed" -eq 0 ] || show "$out/drmdevice"

# ---- lsgpu -----------------------------------------------------------------
f=$failed
lsgpu -n >"$out/lsgpu" 2>&1
check "lsgpu exits 0" [ $? -eq 0 ]
check "lsgpu: card0 as $vendor:$device, its render node under it" \
    sh -c "grep -q '^card[0-9]* *$vendor:$device *drm:/dev/dri/card' '$out/lsgpu' &&
           grep -q 'renderD128 *drm:$node' '$out/lsgpu'"
lsgpu -p -n >"$out/lsgpu-p" 2>&1
check "lsgpu -p: the PCI device $bdf, its render node" \
    sh -c "grep -q 'PCI_SLOT_NAME *: $bdf' '$out/lsgpu-p' &&
           grep -q 'render device *: $node' '$out/lsgpu-p'"
check "lsgpu -p: PCI_ID $vendor:$device, driver tgpu" \
    sh -c "grep -qi 'PCI_ID *: $vendor:$device' '$out/lsgpu-p' &&
           grep -q 'DRIVER *: tgpu' '$out/lsgpu-p'"
[ "$failed" -eq "$f" ] || { show "$out/lsgpu"; head -n 40 "$out/lsgpu-p" | sed "s/^/#   /"; }

# ---- lspci -vvv --------------------------------------------------------------
f=$failed
lspci -vvv -nn -s "$bdf" >"$out/lspci" 2>&1
check "lspci -vvv exits 0" [ $? -eq 0 ]
check "lspci: [$vendor:$device]" has "$out/lspci" "[$vendor:$device]"
check "lspci: Power Management capability" has "$out/lspci" "Power Management version"
check "lspci: PCI Express endpoint" has "$out/lspci" "Express (v2) Endpoint"
check "lspci: MSI-X, enabled" has "$out/lspci" "MSI-X: Enable+"
check "lspci: Advanced Error Reporting" has "$out/lspci" "Advanced Error Reporting"
check "lspci: the regions, BAR0 and BAR1" \
    sh -c "grep -q 'Region 0: Memory' '$out/lspci' && grep -q 'Region 1\\|Region 2: Memory' '$out/lspci'"
check "lspci: Kernel driver in use: tgpu" has "$out/lspci" "Kernel driver in use: tgpu"
check "lspci: no field it cannot decode (<?>)" sh -c "! grep -qF '<?>' '$out/lspci'"
check "lspci: no unknown capability" sh -c "! grep -qi 'Capabilities: \\[[0-9a-f]*\\] *\\(#\\|Unknown\\)' '$out/lspci'"
[ "$failed" -eq "$f" ] || show "$out/lspci"

rm -rf "$out"
echo "1..$n"
[ "$failed" -eq 0 ]
