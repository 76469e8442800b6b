# Minimal x86_64 device set for tgpu: the q35 board, what the guest launcher
# and the tests use, and the device itself.  Used with
# --without-default-devices --with-devices-x86_64=tgpu-x86_64.
CONFIG_Q35=y
CONFIG_PCIE_PORT=y
CONFIG_VIRTIO_PCI=y
CONFIG_VIRTIO_SERIAL=y
CONFIG_ISA_DEBUG=y
CONFIG_NVME_PCI=y
CONFIG_TGPU=y
