#!/bin/sh
# dbhost place: guest vm1, libvirt domain vm1: the persistent definition (--config; next start).
# Add --live to vcpupin/emulatorpin to move a running guest's threads now; its memory stays where it is until a restart (001).
# <memoryBacking> hugepages and the guest NUMA cells have no virsh command: edit the domain with libvirt/vm1.xml
# ('virsh edit vm1') or let 'dbhost place --apply' define it. Run hugepages.sh first: the pages must be there at start.
set -e
virsh setvcpus vm1 14 --maximum --config
virsh setvcpus vm1 14 --config
virsh setmaxmem vm1 25165824KiB --config
virsh setmem vm1 25165824KiB --config
virsh vcpupin vm1 0 0 --config
virsh vcpupin vm1 1 32 --config
virsh vcpupin vm1 2 1 --config
virsh vcpupin vm1 3 33 --config
virsh vcpupin vm1 4 2 --config
virsh vcpupin vm1 5 34 --config
virsh vcpupin vm1 6 3 --config
virsh vcpupin vm1 7 35 --config
virsh vcpupin vm1 8 4 --config
virsh vcpupin vm1 9 36 --config
virsh vcpupin vm1 10 5 --config
virsh vcpupin vm1 11 37 --config
virsh vcpupin vm1 12 6 --config
virsh vcpupin vm1 13 38 --config
virsh emulatorpin vm1 7,39 --config
virsh numatune vm1 --mode strict --nodeset 0 --config
