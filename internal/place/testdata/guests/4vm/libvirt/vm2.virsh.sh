#!/bin/sh
# dbhost place: guest vm2, libvirt domain vm2: the persistent definition (--config; next start).
# Add --live to vcpupin/emulatorpin to move a running guest's threads now; its memory stays where it is until a restart (001).
# <memoryBacking> hugepages and the guest NUMA cells have no virsh command: edit the domain with libvirt/vm2.xml
# ('virsh edit vm2') or let 'dbhost place --apply' define it. Run hugepages.sh first: the pages must be there at start.
set -e
virsh setvcpus vm2 14 --maximum --config
virsh setvcpus vm2 14 --config
virsh setmaxmem vm2 25165824KiB --config
virsh setmem vm2 25165824KiB --config
virsh vcpupin vm2 0 8 --config
virsh vcpupin vm2 1 40 --config
virsh vcpupin vm2 2 9 --config
virsh vcpupin vm2 3 41 --config
virsh vcpupin vm2 4 10 --config
virsh vcpupin vm2 5 42 --config
virsh vcpupin vm2 6 11 --config
virsh vcpupin vm2 7 43 --config
virsh vcpupin vm2 8 12 --config
virsh vcpupin vm2 9 44 --config
virsh vcpupin vm2 10 13 --config
virsh vcpupin vm2 11 45 --config
virsh vcpupin vm2 12 14 --config
virsh vcpupin vm2 13 46 --config
virsh emulatorpin vm2 15,47 --config
virsh numatune vm2 --mode strict --nodeset 1 --config
