#!/bin/sh
# dbhost place: guest vm4, libvirt domain vm4: the persistent definition (--config; next start).
# Add --live to vcpupin/emulatorpin to move a running guest's threads now; its memory stays where it is until a restart (001).
# <memoryBacking> hugepages and the guest NUMA cells have no virsh command: edit the domain with libvirt/vm4.xml
# ('virsh edit vm4') or let 'dbhost place --apply' define it. Run hugepages.sh first: the pages must be there at start.
set -e
virsh setvcpus vm4 14 --maximum --config
virsh setvcpus vm4 14 --config
virsh setmaxmem vm4 25165824KiB --config
virsh setmem vm4 25165824KiB --config
virsh vcpupin vm4 0 24 --config
virsh vcpupin vm4 1 56 --config
virsh vcpupin vm4 2 25 --config
virsh vcpupin vm4 3 57 --config
virsh vcpupin vm4 4 26 --config
virsh vcpupin vm4 5 58 --config
virsh vcpupin vm4 6 27 --config
virsh vcpupin vm4 7 59 --config
virsh vcpupin vm4 8 28 --config
virsh vcpupin vm4 9 60 --config
virsh vcpupin vm4 10 29 --config
virsh vcpupin vm4 11 61 --config
virsh vcpupin vm4 12 30 --config
virsh vcpupin vm4 13 62 --config
virsh emulatorpin vm4 31,63 --config
virsh numatune vm4 --mode strict --nodeset 3 --config
