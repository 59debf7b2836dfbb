#!/bin/sh
# dbhost place: guest scratch, libvirt domain scratch-vm: the persistent definition (--config; next start).
# Add --live to vcpupin/emulatorpin to move a running guest's threads now; its memory stays where it is until a restart (001).
# <memoryBacking> hugepages and the guest NUMA cells have no virsh command: edit the domain with libvirt/scratch-vm.xml
# ('virsh edit scratch-vm') or let 'dbhost place --apply' define it. Run hugepages.sh first: the pages must be there at start.
set -e
virsh setvcpus scratch-vm 3 --maximum --config
virsh setvcpus scratch-vm 3 --config
virsh setmaxmem scratch-vm 2097152KiB --config
virsh setmem scratch-vm 2097152KiB --config
virsh vcpupin scratch-vm 0 7,15,20-31,39,47,52-63 --config
virsh vcpupin scratch-vm 1 7,15,20-31,39,47,52-63 --config
virsh vcpupin scratch-vm 2 7,15,20-31,39,47,52-63 --config
virsh emulatorpin scratch-vm 7,15,20-31,39,47,52-63 --config
virsh numatune scratch-vm --mode interleave --nodeset 0-3 --config
